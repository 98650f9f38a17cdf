/* The joint refinement of an nccl-tests fit (docs/calibration.md "Joint refinement").
 *
 * Why: the per-size inversion (plx-nccl-fit.c) makes each size's time right on its
 * own, but a multi-node all-reduce is the faster of the ring (which reads the curve
 * at the message) and the hierarchical algorithm (which reads it at the per-node
 * shard bytes/k), so one knot serves two sizes and the inversions undo each other.
 * Following DistSim (Lu et al. 2023, §4: fit the per-event parameters so that the
 * composed model reproduces the measured end-to-end times), every knot and the
 * latency are fitted at once to every time: least squares on ln(model / measured),
 * a relative error, with GSL's trust-region Levenberg-Marquardt and a
 * finite-difference Jacobian (the model has kinks where the algorithm or the
 * latency floor changes, so no analytic one).
 *
 * Parameters: the natural log of the link's bandwidth at each knot (positive by
 * construction; the peak and the efficiencies are split afterwards, which the
 * Steffen spline allows because its interpolant is homogeneous in the values), and
 * the log of the latency. A weak pull towards the starting point (weight
 * PRIOR_WEIGHT per parameter, in log units) keeps the knots no time depends on -
 * those under a latency floor - where the inversion put them, and gives GSL the
 * n >= p it needs. */
#include <math.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <string.h>

#include "parallax/plx-cluster.h"
#include "parallax/plx-error.h"

#include "plx-nccl-joint.h"
#include "base/plx-minmax.h"

/* A 1 % change of a knot costs (1e-6 x 0.01)^2 = 1e-16, against 1e-4 for a 1 %
 * error in one time: the data decide wherever they say anything (at 1e-3 the pull
 * alone left 3e-5 % on the exact points). */
#define PRIOR_WEIGHT 1e-6
/* The bandwidth the link is set to while fitting, so the curve's values
 * bw / BW_REF stay in (0, 1] and MIN (1, efficiency) never binds. */
#define BW_REF 1e16
#define MIN_LOG_BW (log (1e3))
#define MAX_LOG_BW (log (BW_REF))

typedef struct
{
  PlxCluster          *c;
  PlxLink             *link;
  const PlxGroup      *g;
  const PlxNcclSample *samples;
  guint                n_samples;
  const double        *knot_x;
  guint                n_knots;
  gboolean             latency_free;
  const double        *x0;   /* the starting point */
  double              *y;    /* scratch: the curve's values */
} Problem;

static gboolean
apply (Problem *pb, const gsl_vector *x)
{
  PlxCurve *curve;

  for (guint i = 0; i < pb->n_knots; i++)
    pb->y[i] = exp (plx_clamp (gsl_vector_get (x, i), MIN_LOG_BW, MAX_LOG_BW)) / BW_REF;
  curve = plx_curve_new (pb->knot_x, pb->y, pb->n_knots, NULL);
  if (curve == NULL)
    return FALSE;
  plx_curve_free (pb->link->efficiency);
  pb->link->efficiency = curve;
  pb->link->bw_Bps = BW_REF;
  pb->link->scale = 1.0;
  if (pb->latency_free)
    /* Between 1 ps and 1 s a step: beyond either it is no latency. */
    pb->link->latency_s = exp (plx_clamp (gsl_vector_get (x, pb->n_knots), log (1e-12), 0.0));
  return TRUE;
}

static int
residuals (const gsl_vector *x, void *data, gsl_vector *f)
{
  Problem *pb = data;
  guint row = 0;

  if (!apply (pb, x))
    return GSL_EDOM;
  for (guint s = 0; s < pb->n_samples; s++)
    {
      const PlxNcclSample *sm = &pb->samples[s];
      double t = plx_collective_time (pb->c, sm->kind, pb->g, sm->bytes);
      gsl_vector_set (f, row++, log (t / sm->time_s));
    }
  for (guint j = 0; j < x->size; j++)
    gsl_vector_set (f, row++, PRIOR_WEIGHT * (gsl_vector_get (x, j) - pb->x0[j]));
  return GSL_SUCCESS;
}

/* ln bw at `at`, linear in ln x between the inversion's knots, flat beyond them. */
static double
interpolate_log_bw (const double *x, const double *bw, guint n, double at)
{
  if (at <= x[0])
    return log (bw[0]);
  if (at >= x[n - 1])
    return log (bw[n - 1]);
  for (guint i = 1; i < n; i++)
    if (at <= x[i])
      {
        double u = (log (at) - log (x[i - 1])) / (log (x[i]) - log (x[i - 1]));
        return (1.0 - u) * log (bw[i - 1]) + u * log (bw[i]);
      }
  return log (bw[n - 1]);
}

static gint
double_cmp (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Every size at which plx_collective_time reads `link`'s curve for the samples. */
static GArray *
read_sizes (const PlxCluster *c, const PlxLink *link, const PlxGroup *g, const PlxNcclSample *samples, guint n)
{
  GArray *xs = g_array_new (FALSE, FALSE, sizeof (double));
  guint w = 0;

  for (guint s = 0; s < n; s++)
    {
      double b = samples[s].bytes, shard;
      if (samples[s].kind == PLX_COLLECTIVE_ALL_TO_ALL)
        b /= g->size;
      g_array_append_val (xs, b);
      if (samples[s].kind == PLX_COLLECTIVE_ALL_REDUCE && g->nodes > 1 && link == &c->inter_node)
        {
          shard = b / g->ranks_per_node;
          g_array_append_val (xs, shard);
        }
    }
  g_array_sort (xs, double_cmp);
  for (guint i = 1; i < xs->len; i++)
    if (g_array_index (xs, double, i) != g_array_index (xs, double, w))
      g_array_index (xs, double, ++w) = g_array_index (xs, double, i);
  g_array_set_size (xs, xs->len > 0 ? w + 1 : 0);
  return xs;
}

void
plx_nccl_joint_clear (PlxNcclJoint *joint)
{
  if (joint->knot_x != NULL)
    g_array_unref (joint->knot_x);
  if (joint->knot_bw_Bps != NULL)
    g_array_unref (joint->knot_bw_Bps);
  joint->knot_x = joint->knot_bw_Bps = NULL;
}

gboolean
plx_nccl_joint_fit (PlxCluster          *c,
                    PlxLink             *link,
                    const PlxGroup      *g,
                    const PlxNcclSample *samples,
                    guint                n_samples,
                    const double        *knot_x,
                    const double        *knot_bw_Bps,
                    guint                n_knots,
                    double               latency_s,
                    PlxNcclJoint        *out,
                    GError             **error)
{
  g_autoptr (GArray) xs = read_sizes (c, link, g, samples, n_samples);
  g_autofree double *x0 = NULL, *y = NULL;
  gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters ();
  gsl_multifit_nlinear_fdf fdf = { 0 };
  gsl_multifit_nlinear_workspace *w;
  gsl_vector_view start;
  Problem pb = { 0 };
  guint p;
  int info = 0, status;
  double sumsq = 0.0;
  const gsl_vector *best;

  memset (out, 0, sizeof *out);
  if (n_samples == 0 || n_knots == 0 || xs->len > 256)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "the joint fit needs 1 to 256 curve sizes and some times (%u sizes, %u times)", xs->len, n_samples);
      return FALSE;
    }
  out->latency_free = latency_s > 0.0 && isfinite (latency_s);
  p = xs->len + (out->latency_free ? 1 : 0);
  x0 = g_new (double, p);
  y = g_new (double, xs->len);
  for (guint i = 0; i < xs->len; i++)
    x0[i] = interpolate_log_bw (knot_x, knot_bw_Bps, n_knots, g_array_index (xs, double, i));
  if (out->latency_free)
    x0[xs->len] = log (latency_s);

  pb.c = c;
  pb.link = link;
  pb.g = g;
  pb.samples = samples;
  pb.n_samples = n_samples;
  pb.knot_x = (const double *) (void *) xs->data;
  pb.n_knots = xs->len;
  pb.latency_free = out->latency_free;
  pb.x0 = x0;
  pb.y = y;
  fdf.f = residuals;
  fdf.n = n_samples + p;
  fdf.p = p;
  fdf.params = &pb;
  start = gsl_vector_view_array (x0, p);
  w = gsl_multifit_nlinear_alloc (gsl_multifit_nlinear_trust, &params, fdf.n, p);
  gsl_multifit_nlinear_init (&start.vector, &fdf, w);
  status = gsl_multifit_nlinear_driver (500, 1e-14, 1e-14, 0.0, NULL, NULL, &info, w);
  if (status != GSL_SUCCESS && status != GSL_EMAXITER)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "the joint fit of the link failed: %s",
                   gsl_strerror (status));
      gsl_multifit_nlinear_free (w);
      return FALSE;
    }
  best = gsl_multifit_nlinear_position (w);
  out->iterations = gsl_multifit_nlinear_niter (w);
  out->knot_x = g_array_ref (xs);
  out->knot_bw_Bps = g_array_sized_new (FALSE, FALSE, sizeof (double), xs->len);
  for (guint i = 0; i < xs->len; i++)
    {
      double bw = exp (plx_clamp (gsl_vector_get (best, i), MIN_LOG_BW, MAX_LOG_BW));
      g_array_append_val (out->knot_bw_Bps, bw);
    }
  out->latency_s = out->latency_free ? exp (plx_clamp (gsl_vector_get (best, xs->len), log (1e-12), 0.0)) : latency_s;
  {
    const gsl_vector *f = gsl_multifit_nlinear_residual (w);
    for (guint s = 0; s < n_samples; s++)
      sumsq += gsl_vector_get (f, s) * gsl_vector_get (f, s);
  }
  out->rms_log_residual = sqrt (sumsq / n_samples);
  gsl_multifit_nlinear_free (w);
  return TRUE;
}
