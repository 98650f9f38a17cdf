#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_interp.h>

#include "parallax/plx-curve.h"
#include "parallax/plx-error.h"

struct _PlxCurve
{
  gsize       n;
  double     *log_x;  /* log2 of the sizes (glibc's log2 is much faster than log10), strictly increasing */
  double     *x;
  double     *y;
  /* The interpolant as one cubic per interval, y[i] + c dx + b dx^2 + a dx^3 with
   * dx = log2(x) - log_x[i], read off GSL's at init: evaluating it inline is a
   * fifth of the analytical engine's time less than gsl_interp_eval (bench-analytic). */
  double     *a;
  double     *b;
  double     *c;
};

PlxCurve *
plx_curve_new (const double *x,
               const double *y,
               gsize         n,
               GError      **error)
{
  g_autoptr (PlxCurve) curve = NULL;
  const gsl_interp_type *type;

  if (n < 1)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "an efficiency curve needs at least one point");
      return NULL;
    }
  for (gsize i = 0; i < n; i++)
    {
      if (!(x[i] > 0.0) || !isfinite (x[i]))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "point %zu: size %g must be a positive finite number", i, x[i]);
          return NULL;
        }
      if (!(y[i] > 0.0 && y[i] <= 1.0))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "point %zu: efficiency %g must be in (0, 1]", i, y[i]);
          return NULL;
        }
      if (i > 0 && !(x[i] > x[i - 1]))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "point %zu: size %g does not increase over the previous %g",
                       i, x[i], x[i - 1]);
          return NULL;
        }
    }

  curve = g_new0 (PlxCurve, 1);
  curve->n = n;
  curve->x = g_memdup2 (x, n * sizeof (double));
  curve->y = g_memdup2 (y, n * sizeof (double));
  curve->log_x = g_new (double, n);
  for (gsize i = 0; i < n; i++)
    curve->log_x[i] = log2 (x[i]);

  if (n >= 2)
    {
      /* Steffen's method is monotone between points: no overshoot above a measured
       * efficiency, which a cubic spline would produce near a knee. */
      gsl_interp *interp;

      type = n >= gsl_interp_type_min_size (gsl_interp_steffen) ? gsl_interp_steffen
                                                                : gsl_interp_linear;
      interp = gsl_interp_alloc (type, n);
      if (gsl_interp_init (interp, curve->log_x, curve->y, n) != GSL_SUCCESS)
        {
          gsl_interp_free (interp);
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "the efficiency curve could not be interpolated");
          return NULL;
        }
      curve->a = g_new0 (double, n);
      curve->b = g_new0 (double, n);
      curve->c = g_new0 (double, n);
      for (gsize i = 0; i + 1 < n; i++)
        {
          /* At an interval's start GSL evaluates that interval's cubic: its first and
           * second derivatives there are c and 2b; a closes the cubic on the next point. */
          double h = curve->log_x[i + 1] - curve->log_x[i];

          curve->c[i] = gsl_interp_eval_deriv (interp, curve->log_x, curve->y, curve->log_x[i], NULL);
          curve->b[i] = 0.5 * gsl_interp_eval_deriv2 (interp, curve->log_x, curve->y, curve->log_x[i], NULL);
          curve->a[i] = (curve->y[i + 1] - curve->y[i] - h * (curve->c[i] + h * curve->b[i])) / (h * h * h);
        }
      gsl_interp_free (interp);
    }

  return g_steal_pointer (&curve);
}

PlxCurve *
plx_curve_copy (const PlxCurve *curve)
{
  if (curve == NULL)
    return NULL;
  return plx_curve_new (curve->x, curve->y, curve->n, NULL);
}

void
plx_curve_free (PlxCurve *curve)
{
  if (curve == NULL)
    return;
  g_free (curve->a);
  g_free (curve->b);
  g_free (curve->c);
  g_free (curve->log_x);
  g_free (curve->x);
  g_free (curve->y);
  g_free (curve);
}

double
plx_curve_eval (const PlxCurve *curve,
                double          x)
{
  double lx;

  if (curve->n == 1 || !(x > curve->x[0]))
    return curve->y[0];
  if (x >= curve->x[curve->n - 1])
    return curve->y[curve->n - 1];
  lx = log2 (x);
  /* x lies strictly inside the table: a short scan finds its interval. */
  {
    gsize i = 0;
    double dx;

    while (i + 2 < curve->n && lx >= curve->log_x[i + 1])
      i++;
    dx = lx - curve->log_x[i];
    return curve->y[i] + dx * (curve->c[i] + dx * (curve->b[i] + dx * curve->a[i]));
  }
}

gsize
plx_curve_get_n_points (const PlxCurve *curve)
{
  return curve->n;
}

void
plx_curve_get_point (const PlxCurve *curve,
                     gsize           i,
                     double         *x,
                     double         *y)
{
  g_return_if_fail (i < curve->n);
  *x = curve->x[i];
  *y = curve->y[i];
}
