#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_interp.h>

#include "parallax/plx-cluster.h"
#include "parallax/plx-error.h"

/* One interval of the interpolant, all that evaluating it reads in one place (40 bytes:
 * one cache line or two) rather than in five arrays. */
typedef struct
{
  double log_x;  /* log2 of the interval's first size */
  double y;
  double c;
  double b;
  double a;
} CurveKnot;

struct _PlxCurve
{
  gsize       n;
  double     *x;
  double     *y;
  /* The interpolant as one cubic per interval, y + c dx + b dx^2 + a dx^3 with
   * dx = log2(x) - log_x, read off GSL's at init: evaluating it inline is a fifth of
   * the analytical engine's time less than gsl_interp_eval (bench-analytic). log_x is
   * log2 of the sizes (glibc's log2 is much faster than log10), strictly increasing.
   * knot[n - 1] holds the last point (its cubic is never evaluated). */
  CurveKnot  *knot;
  /* Where a size's interval starts, found from its binary exponent in O(1) instead
   * of a scan that waits for log2 and mispredicts its exit: binade[e - exp_lo] is the
   * last interval starting at or below the binade's smallest double 2^e (docs/
   * performance.md). exp_lo is the biased exponent of x[0]. */
  guint32    *binade;
  guint       exp_lo;
  /* This curve's key in the per-thread memo: a serial number times an odd constant
   * (a bijection, so never 0 and never reused), premixed for the slot's hash. */
  guint64     memo_key;
};

/* The last values each thread looked up, by (curve, size) in sets of two: an engine
 * evaluation asks a curve for the same few dozen sizes again and again - the two
 * halves of a block, forward and backward passes, configurations of a search that
 * share a tensor-parallel degree - and a hit skips log2 and the cubic. Thread-local
 * because curves are shared read-only between threads (the search's pool, the GUI's
 * workers): no locks, and the curve stays immutable. The key is a serial number, not
 * the curve's address, so a curve freed and another allocated in its place never
 * finds the first one's values. 128 sets of two slots of 24 bytes per thread: with one
 * slot per key (direct-mapped), two of an evaluation's fifty sizes that hashed alike
 * pushed each other out at every evaluation (docs/performance.md). */
#define MEMO_BITS 8

typedef struct
{
  guint64 curve_key;  /* 0: empty */
  guint64 x_bits;  /* the size's bits: equal keys are equal doubles */
  double  y;
} MemoSlot;

static _Thread_local MemoSlot memo[1u << MEMO_BITS];
static atomic_uint_least64_t next_serial = 1;

/* The IEEE 754 biased exponent of a positive double: nondecreasing in x (0 for the
 * subnormals), so it orders sizes by binade without a log. */
static guint
biased_exponent (double x)
{
  guint64 bits;

  memcpy (&bits, &x, sizeof bits);
  return (guint) (bits >> 52) & 0x7ffu;
}

/* The smallest positive double of a binade. */
static double
binade_start (guint e)
{
  guint64 bits = (guint64) e << 52;
  double start;

  memcpy (&start, &bits, sizeof start);
  return start;
}

static void
fill_binades (PlxCurve *curve)
{
  guint exp_hi = biased_exponent (curve->x[curve->n - 1]);
  gsize i = 0;

  curve->exp_lo = biased_exponent (curve->x[0]);
  /* At most 2047 binades, a few dozen for a measured curve. */
  curve->binade = g_new (guint32, exp_hi - curve->exp_lo + 1);
  for (guint e = curve->exp_lo; e <= exp_hi; e++)
    {
      /* Every size in binade e is at least 2^e (the subnormals' binade: at least 0). */
      double start = e == 0 ? 0.0 : binade_start (e);

      while (i + 2 < curve->n && curve->x[i + 1] <= start)
        i++;
      curve->binade[e - curve->exp_lo] = (guint32) i;
    }
}

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
  curve->memo_key = atomic_fetch_add_explicit (&next_serial, 1, memory_order_relaxed) *
                    G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  curve->x = g_memdup2 (x, n * sizeof (double));
  curve->y = g_memdup2 (y, n * sizeof (double));
  curve->knot = g_new0 (CurveKnot, n);
  for (gsize i = 0; i < n; i++)
    {
      curve->knot[i].log_x = log2 (x[i]);
      curve->knot[i].y = y[i];
    }

  if (n >= 2)
    {
      /* Steffen's method is monotone between points: no overshoot above a measured
       * efficiency, which a cubic spline would produce near a knee. */
      gsl_interp *interp;
      g_autofree double *log_x = g_new (double, n);

      for (gsize i = 0; i < n; i++)
        log_x[i] = curve->knot[i].log_x;
      type = n >= gsl_interp_type_min_size (gsl_interp_steffen) ? gsl_interp_steffen
                                                                : gsl_interp_linear;
      interp = gsl_interp_alloc (type, n);
      if (gsl_interp_init (interp, log_x, curve->y, n) != GSL_SUCCESS)
        {
          gsl_interp_free (interp);
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "the efficiency curve could not be interpolated");
          return NULL;
        }
      for (gsize i = 0; i + 1 < n; i++)
        {
          /* At an interval's start GSL evaluates that interval's cubic: its first and
           * second derivatives there are c and 2b; a closes the cubic on the next point. */
          CurveKnot *k = &curve->knot[i];
          double h = log_x[i + 1] - log_x[i];

          k->c = gsl_interp_eval_deriv (interp, log_x, curve->y, log_x[i], NULL);
          k->b = 0.5 * gsl_interp_eval_deriv2 (interp, log_x, curve->y, log_x[i], NULL);
          k->a = (curve->y[i + 1] - curve->y[i] - h * (k->c + h * k->b)) / (h * h * h);
        }
      gsl_interp_free (interp);
      fill_binades (curve);
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
  g_free (curve->knot);
  g_free (curve->binade);
  g_free (curve->x);
  g_free (curve->y);
  g_free (curve);
}

/* The cubic of x's interval: x lies strictly inside the table. */
static double
eval_inside (const PlxCurve *curve,
             double          x)
{
  const CurveKnot *k;
  double lx = log2 (x), dx;
  /* Its interval is the last one (of the first n - 1) whose start is at or below
   * log2(x) - the one the former scan from the first interval found; the binade's
   * entry starts at most a knot or two short. */
  gsize i = curve->binade[biased_exponent (x) - curve->exp_lo];

  while (i + 2 < curve->n && lx >= curve->knot[i + 1].log_x)
    i++;
  /* x >= x[i] does not promise log2(x) >= log2(x[i]) from a log2 that is not
   * correctly rounded: step back where it rounds below. */
  while (i > 0 && lx < curve->knot[i].log_x)
    i--;
  k = &curve->knot[i];
  dx = lx - k->log_x;
  return k->y + dx * (k->c + dx * (k->b + dx * k->a));
}

/* Out of line: the memo hit, the common case, stays a few instructions. The new value
 * goes in the set's first way, the one there moves to the second. */
static G_GNUC_NO_INLINE double
eval_and_remember (const PlxCurve *curve,
                   double          x,
                   guint64         x_bits,
                   MemoSlot       *set)
{
  double y;

  if (curve->n == 1 || !(x > curve->x[0]))
    y = curve->y[0];
  else if (x >= curve->x[curve->n - 1])
    y = curve->y[curve->n - 1];
  else
    y = eval_inside (curve, x);
  set[1] = set[0];
  set[0].curve_key = curve->memo_key;
  set[0].x_bits = x_bits;
  set[0].y = y;
  return y;
}

double
plx_curve_eval (const PlxCurve *curve,
                double          x)
{
  guint64 x_bits;
  MemoSlot *set;

  memcpy (&x_bits, &x, sizeof x_bits);
  /* A multiplicative hash (Knuth, TAOCP vol. 3 §6.4) of both keys: the top bits pick
   * a set of two slots. */
  set = &memo[(((x_bits ^ curve->memo_key) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> (64 - MEMO_BITS + 1)) << 1];
  if (G_LIKELY (set[0].curve_key == curve->memo_key && set[0].x_bits == x_bits))
    return set[0].y;
  if (set[1].curve_key == curve->memo_key && set[1].x_bits == x_bits)
    return set[1].y;
  return eval_and_remember (curve, x, x_bits, set);
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
