/* A link's collective curves fitted to nccl-tests output (docs/calibration.md, "From
 * nccl-tests").
 *
 * Which link: a group on one node measured NVLink (intra_node); a group over several
 * nodes measured the network (inter_node). plx-collective.c models a multi-node ring
 * as the node's members' NICs together (bandwidth ranks_per_node x the inter-node
 * busbw) and all-reduce as the faster of that ring and the hierarchical algorithm;
 * the fit inverts exactly plx_collective_time, so whichever the model picks is the
 * one inverted.
 *
 * Efficiency: for each size, the bandwidth of the fitted link (its curve held flat)
 * that makes plx_collective_time equal the measured time, found by bisection (the
 * time falls monotonically with the bandwidth), divided by the link's peak. The
 * point goes on the curve at the size the model reads it at (the message for
 * all-reduce, all-gather, reduce-scatter and send/recv; the per-peer share
 * bytes/p for all-to-all). Where several tests measured the same size, their
 * efficiencies' geometric mean. A measured busbw above the link's peak (NVLink
 * SHARP, in-network reduction) raises the written peak to it, so every efficiency
 * stays in (0, 1].
 *
 * Latency: least squares (gsl_fit_linear) of time = alpha + beta * bytes over the
 * sizes up to 64 KiB, where the bandwidth term is small, needing at least three
 * (one degree of freedom for the standard error). The model's floor is steps x
 * latency_s (Thakur et al. 2005, §3: 2(p-1) steps for a ring all-reduce, p-1 for
 * all-gather, reduce-scatter and all-to-all, 1 for send/recv), so latency_s =
 * alpha / steps and its standard error sqrt(cov00) / steps. The link takes the
 * all-reduce's, else the first test's that has small sizes. */
#include <math.h>
#include <string.h>

#include <gsl/gsl_fit.h>

#include "parallax/plx-cluster.h"
#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "calibrate/plx-nccl-tests.h"

#include "plx-nccl-joint.h"
#include "base/plx-minmax.h"

#define LATENCY_MAX_BYTES 65536.0
/* An op whose times the link curve reproduces within this keeps to the link curve:
 * nccl-tests' own run-to-run spread is of this order (the H100 file's in-place and
 * out-of-place times differ by up to 1.5 %). */
#define OWN_CURVE_TOLERANCE_PCT 2.0
/* The bandwidths the inversion searches: 1 kB/s to 10 PB/s. */
#define MIN_BW_BPS 1e3
#define MAX_BW_BPS 1e16

static double
ring_steps (PlxCollectiveKind kind, double p)
{
  switch (kind)
    {
    case PLX_COLLECTIVE_ALL_REDUCE:
      return 2.0 * (p - 1.0);
    case PLX_COLLECTIVE_SEND_RECV:
      return 1.0;
    default:
      return p - 1.0;
    }
}

static void
op_fit_free (PlxNcclOpFit *op)
{
  g_free (op->source);
  g_free (op->test);
  if (op->points != NULL)
    g_array_unref (op->points);
  g_free (op);
}

void
plx_nccl_fit_free (PlxNcclFit *fit)
{
  if (fit == NULL)
    return;
  if (fit->ops != NULL)
    g_ptr_array_unref (fit->ops);
  if (fit->cluster != NULL)
    json_node_unref (fit->cluster);
  g_free (fit);
}

/* The link's bandwidth at which the model takes `time_s`: its curve flat at 1, its
 * peak bisected in log space, no latency floor (that is fitted apart). */
static double
invert_bandwidth (PlxCluster *c, PlxLink *link, PlxCollectiveKind kind, const PlxGroup *g,
                  double bytes, double time_s)
{
  double lo = log (MIN_BW_BPS), hi = log (MAX_BW_BPS);

  link->bw_Bps = MAX_BW_BPS;
  if (plx_collective_time (c, kind, g, bytes) > time_s)
    return MAX_BW_BPS;

  for (int it = 0; it < 200 && hi - lo > 1e-13; it++)
    {
      double mid = 0.5 * (lo + hi);
      link->bw_Bps = exp (mid);
      if (plx_collective_time (c, kind, g, bytes) > time_s)
        lo = mid;
      else
        hi = mid;
    }
  return exp (0.5 * (lo + hi));
}

/* Where on the curve the model reads the point's efficiency: at the message, but at
 * the per-peer share for all-to-all and at the per-node shard bytes/k when the
 * hierarchical all-reduce is the faster (plx-collective.c). With `bw` the link's
 * bandwidth that reproduces the point. */
static double
knot_size (PlxCluster *c, PlxLink *link, PlxCollectiveKind kind, const PlxGroup *g, double bytes, double bw)
{
  if (kind == PLX_COLLECTIVE_ALL_TO_ALL)
    return bytes / g->size;
  if (kind == PLX_COLLECTIVE_ALL_REDUCE && g->nodes > 1 && link == &c->inter_node)
    {
      link->bw_Bps = bw;
      if (plx_collective_hierarchical_all_reduce_time (c, g, bytes) < plx_collective_ring_all_reduce_time (c, g, bytes))
        return bytes / g->ranks_per_node;
    }
  return bytes;
}

typedef struct
{
  double x;
  double log_bw_sum;
  guint  n;
} Knot;

static gint
knot_cmp (gconstpointer a, gconstpointer b)
{
  double x = ((const Knot *) a)->x, y = ((const Knot *) b)->x;
  return (x > y) - (x < y);
}

/* Merges the points at one size: the geometric mean of their bandwidths. */
static void
merge_knots (GArray *knots)
{
  guint w = 0;

  g_array_sort (knots, knot_cmp);
  for (guint i = 1; i < knots->len; i++)
    {
      Knot *prev = &g_array_index (knots, Knot, w), *cur = &g_array_index (knots, Knot, i);
      if (cur->x == prev->x)
        {
          prev->log_bw_sum += cur->log_bw_sum;
          prev->n++;
        }
      else
        g_array_index (knots, Knot, ++w) = *cur;
    }
  g_array_set_size (knots, knots->len > 0 ? w + 1 : 0);
}

/* The joint refinement from the inversion's `knots`; the better of two runs into
 * `best` (cleared first if it holds one already). */
static gboolean
refine (PlxCluster *c, PlxLink *link, const PlxGroup *g, GArray *samples, GArray *knots, double latency_s,
        PlxNcclJoint *best, GError **error)
{
  g_autofree double *kx = g_new (double, knots->len);
  g_autofree double *kbw = g_new (double, knots->len);
  PlxNcclJoint joint;

  for (guint i = 0; i < knots->len; i++)
    {
      const Knot *k = &g_array_index (knots, Knot, i);
      kx[i] = k->x;
      kbw[i] = exp (k->log_bw_sum / k->n);
    }
  if (!plx_nccl_joint_fit (c, link, g, (const PlxNcclSample *) (void *) samples->data, samples->len, kx, kbw, knots->len,
                           latency_s, &joint, error))
    return FALSE;
  if (best->knot_x == NULL || joint.rms_log_residual < best->rms_log_residual)
    {
      plx_nccl_joint_clear (best);
      *best = joint;
    }
  else
    plx_nccl_joint_clear (&joint);
  return TRUE;
}

static void
fit_latency (const PlxNcclTable *t, const PlxGroup *g, PlxNcclOpFit *op)
{
  double x[64], y[64];
  double c0, c1, cov00, cov01, cov11, sumsq, steps = ring_steps (t->kind, g->size);
  guint n = 0;

  for (guint r = 0; r < t->rows->len && n < G_N_ELEMENTS (x); r++)
    {
      const PlxNcclRow *row = &g_array_index (t->rows, PlxNcclRow, r);
      if (row->bytes <= LATENCY_MAX_BYTES)
        {
          x[n] = row->bytes;
          y[n] = plx_nccl_row_time_s (row);
          n++;
        }
    }
  if (n < 3 || gsl_fit_linear (x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq) != 0 || !isfinite (c0))
    return;
  op->latency_rows = n;
  /* A negative intercept (noise on a flat line) is no latency: the floor is then 0. */
  op->latency_s = MAX (c0, 0.0) / steps;
  op->latency_std_error_s = sqrt (cov00) / steps;
}

/* A curve file's [size, efficiency] pairs: the bandwidths `bw` (doubles) at the
 * sizes `x` over the peak `bw_Bps`. */
static JsonArray *
curve_json (const GArray *x, const GArray *bw, double bw_Bps)
{
  JsonArray *curve = json_array_new ();

  for (guint i = 0; i < x->len; i++)
    {
      JsonArray *pair = json_array_new ();
      double e = g_array_index (bw, double, i) / bw_Bps;
      json_array_add_double_element (pair, g_array_index (x, double, i));
      /* Rounding in exp/log can put the best point a hair above 1. */
      json_array_add_double_element (pair, MIN (e, 1.0));
      json_array_add_array_element (curve, pair);
    }
  return curve;
}

static void
set_link_curve (JsonObject *lo, const GArray *x, const GArray *bw, double bw_Bps)
{
  json_object_set_array_member (lo, "efficiency", curve_json (x, bw, bw_Bps));
  json_object_set_double_member (lo, "bw_Bps", bw_Bps);
}

/* Marks the ops whose kind gets a curve of its own: every op of a kind other than
 * all-reduce (which defines the link curve when measured) that has a reproducible
 * point off the link curve by more than OWN_CURVE_TOLERANCE_PCT. `written` is the
 * cluster with the link curve alone. */
static void
mark_own_curves (PlxNcclFit *fit, const PlxCluster *written)
{
  gboolean off[PLX_N_COLLECTIVE_KINDS] = { FALSE };

  for (guint i = 0; i < fit->ops->len; i++)
    {
      const PlxNcclOpFit *op = fit->ops->pdata[i];
      for (guint r = 0; op->kind != PLX_COLLECTIVE_ALL_REDUCE && r < op->points->len; r++)
        {
          const PlxNcclPoint *pt = &g_array_index (op->points, PlxNcclPoint, r);
          double t = plx_collective_time (written, op->kind, &fit->group, pt->bytes);
          if (isfinite (pt->efficiency) && fabs (t / pt->measured_time_s - 1.0) * 100.0 > OWN_CURVE_TOLERANCE_PCT)
            off[op->kind] = TRUE;
        }
    }
  for (guint i = 0; i < fit->ops->len; i++)
    {
      PlxNcclOpFit *op = fit->ops->pdata[i];
      op->own_curve = off[op->kind];
    }
}

/* The per-size inversions of every op of `kind` (bandwidths, not yet over the
 * peak) as knots where the model reads them, merged per size. */
static GArray *
own_knots (const PlxNcclFit *fit, PlxCollectiveKind kind)
{
  GArray *knots = g_array_new (FALSE, FALSE, sizeof (Knot));

  for (guint i = 0; i < fit->ops->len; i++)
    {
      const PlxNcclOpFit *op = fit->ops->pdata[i];
      for (guint r = 0; op->kind == kind && op->own_curve && r < op->points->len; r++)
        {
          const PlxNcclPoint *pt = &g_array_index (op->points, PlxNcclPoint, r);
          Knot k = { pt->curve_bytes, log (pt->efficiency), 1 };
          if (isfinite (pt->efficiency))
            g_array_append_val (knots, k);
        }
    }
  merge_knots (knots);
  return knots;
}

/* Each op off the link curve gets its own, efficiency_by_collective.KIND in `lo`, made
 * of its per-size inversions (docs/calibration.md): its measured times are then
 * reproduced at the measured sizes. An op faster than every point of the link
 * curve raises the peak, as all-reduce's best does, so each efficiency stays <= 1. */
static gboolean
add_own_curves (PlxNcclFit *fit, JsonObject *lo, const PlxNcclJoint *joint, GError **error)
{
  g_autoptr (PlxCluster) written = plx_cluster_new_from_json (fit->cluster, "the fitted cluster", error);
  g_autoptr (GPtrArray) x = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr (GPtrArray) bw = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  double peak = fit->bw_Bps;
  JsonObject *by;

  if (written == NULL)
    return FALSE;
  mark_own_curves (fit, written);
  for (guint k = 0; k < PLX_N_COLLECTIVE_KINDS; k++)
    {
      g_autoptr (GArray) knots = own_knots (fit, k);
      GArray *kx = g_array_new (FALSE, FALSE, sizeof (double)), *kbw = g_array_new (FALSE, FALSE, sizeof (double));

      g_ptr_array_add (x, kx);
      g_ptr_array_add (bw, kbw);
      if (knots->len > 256)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "%u distinct sizes measured for %s; an efficiency curve holds at most 256", knots->len,
                       plx_collective_kind_names[k]);
          return FALSE;
        }
      for (guint i = 0; i < knots->len; i++)
        {
          const Knot *kn = &g_array_index (knots, Knot, i);
          double b = exp (kn->log_bw_sum / kn->n);
          g_array_append_val (kx, kn->x);
          g_array_append_val (kbw, b);
          peak = MAX (peak, b);
        }
    }
  if (peak > fit->bw_Bps)
    {
      fit->bw_Bps = peak;
      set_link_curve (lo, joint->knot_x, joint->knot_bw_Bps, peak);
    }
  by = json_object_new ();
  for (guint k = 0; k < PLX_N_COLLECTIVE_KINDS; k++)
    if (((GArray *) x->pdata[k])->len > 0)
      json_object_set_array_member (by, plx_collective_kind_names[k], curve_json (x->pdata[k], bw->pdata[k], peak));
  if (json_object_get_size (by) > 0)
    json_object_set_object_member (lo, "efficiency_by_collective", by);
  else
    json_object_unref (by);
  return TRUE;
}

/* Every point's model time and residual with the cluster as written: against the
 * link curve (the collectives' own curves left out), and against its op's own
 * curve where it has one. */
static gboolean
set_residuals (PlxNcclFit *fit, GError **error)
{
  g_autoptr (PlxCluster) written = plx_cluster_new_from_json (fit->cluster, "the fitted cluster", error);
  g_autoptr (PlxCluster) link_only = NULL;
  PlxLink *link;

  if (written == NULL)
    return FALSE;
  link_only = plx_cluster_copy (written);
  link = fit->inter_node ? &link_only->inter_node : &link_only->intra_node;
  for (guint k = 0; k < PLX_N_COLLECTIVE_KINDS; k++)
    g_clear_pointer (&link->efficiency_by_collective[k], plx_curve_free);
  for (guint i = 0; i < fit->ops->len; i++)
    {
      PlxNcclOpFit *op = fit->ops->pdata[i];
      for (guint r = 0; r < op->points->len; r++)
        {
          PlxNcclPoint *pt = &g_array_index (op->points, PlxNcclPoint, r);
          pt->efficiency /= fit->bw_Bps; /* NAN stays NAN: not reproducible */
          pt->model_time_s = plx_collective_time (link_only, op->kind, &fit->group, pt->bytes);
          pt->residual_pct = (pt->model_time_s - pt->measured_time_s) / pt->measured_time_s * 100.0;
          pt->own_model_time_s = pt->own_residual_pct = NAN;
          if (op->own_curve)
            {
              pt->own_model_time_s = plx_collective_time (written, op->kind, &fit->group, pt->bytes);
              pt->own_residual_pct = (pt->own_model_time_s - pt->measured_time_s) / pt->measured_time_s * 100.0;
            }
          fit->max_abs_residual_pct = plx_max (fit->max_abs_residual_pct, fabs (pt->residual_pct));
          fit->max_abs_residual_written_pct = plx_max (fit->max_abs_residual_written_pct,
                                                       fabs (op->own_curve ? pt->own_residual_pct : pt->residual_pct));
        }
    }
  return TRUE;
}

PlxNcclFit *
plx_nccl_fit (JsonNode           *base,
              const char         *base_source,
              PlxNcclFile *const *files,
              guint               n_files,
              guint               gpus_per_node,
              guint               nodes,
              GError            **error)
{
  g_autoptr (PlxNcclFit) fit = g_new0 (PlxNcclFit, 1);
  g_autoptr (PlxCluster) c = NULL;
  g_autoptr (GArray) knots = g_array_new (FALSE, FALSE, sizeof (Knot));
  g_autoptr (GArray) ring_knots = g_array_new (FALSE, FALSE, sizeof (Knot));
  PlxLink *link;
  JsonObject *o, *lo;
  const char *key;
  double peak, other_latency_s;
  g_autoptr (GArray) samples = g_array_new (FALSE, FALSE, sizeof (PlxNcclSample));
  PlxNcclJoint joint;
  const PlxNcclOpFit *lat = NULL;
  gboolean curve_from_all_reduce = FALSE, ok;

  if (gpus_per_node == 0 || gpus_per_node > 1024 || nodes == 0 || nodes > 100000)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "the group measured: %u GPUs per node x %u nodes (each must be 1 to 1024 and 1 to 100000)",
                   gpus_per_node, nodes);
      return NULL;
    }
  if (gpus_per_node * nodes < 2)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "the group measured has 1 GPU: a collective needs at least 2 (--gpus-per-node, --nodes)");
      return NULL;
    }
  c = plx_cluster_new_from_json (base, base_source, error);
  if (c == NULL)
    return NULL;
  fit->ops = g_ptr_array_new_with_free_func ((GDestroyNotify) op_fit_free);
  fit->group.size = gpus_per_node * nodes;
  fit->group.ranks_per_node = gpus_per_node;
  fit->group.nodes = nodes;
  fit->inter_node = nodes > 1;
  key = fit->inter_node ? "inter_node" : "intra_node";
  link = fit->inter_node ? &c->inter_node : &c->intra_node;
  peak = link->bw_Bps;
  /* The curve flat at 1, as measured (no calibration factor), while inverting; the
   * collectives' own curves out, so every one reads it. */
  {
    double one_x = 1.0, one_y = 1.0;
    plx_curve_free (link->efficiency);
    link->efficiency = plx_curve_new (&one_x, &one_y, 1, NULL);
    link->scale = 1.0;
    for (guint k = 0; k < PLX_N_COLLECTIVE_KINDS; k++)
      g_clear_pointer (&link->efficiency_by_collective[k], plx_curve_free);
  }
  fit->latency_s = link->latency_s;
  other_latency_s = (fit->inter_node ? &c->intra_node : &c->inter_node)->latency_s;
  c->intra_node.latency_s = c->inter_node.latency_s = 0.0;

  /* One curve per link serves every collective; all-reduce defines it when measured
   * (the busbw definition makes the others comparable, and they are reported
   * against it), else every test does. */
  for (guint f = 0; f < n_files; f++)
    for (guint t = 0; t < files[f]->tables->len; t++)
      if (((PlxNcclTable *) files[f]->tables->pdata[t])->kind == PLX_COLLECTIVE_ALL_REDUCE)
        curve_from_all_reduce = TRUE;
  for (guint f = 0; f < n_files; f++)
    for (guint t = 0; t < files[f]->tables->len; t++)
      {
        const PlxNcclTable *table = files[f]->tables->pdata[t];
        PlxNcclOpFit *op = g_new0 (PlxNcclOpFit, 1);

        if (table->n_ranks > 0 && table->n_ranks != fit->group.size)
          {
            g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                         "%s: %s lists %u ranks, but the group given is %u GPUs per node x %u nodes = %u",
                         files[f]->source, table->test, table->n_ranks, gpus_per_node, nodes, fit->group.size);
            op_fit_free (op);
            return NULL;
          }
        op->source = g_strdup (files[f]->source);
        op->test = g_strdup (table->test);
        op->kind = table->kind;
        op->points = g_array_new (FALSE, TRUE, sizeof (PlxNcclPoint));
        g_ptr_array_add (fit->ops, op);
        for (guint r = 0; r < table->rows->len; r++)
          {
            const PlxNcclRow *row = &g_array_index (table->rows, PlxNcclRow, r);
            PlxNcclPoint pt = { 0 };
            Knot k;
            double bw;

            pt.bytes = row->bytes;
            pt.measured_time_s = plx_nccl_row_time_s (row);
            pt.measured_busbw_Bps = pt.measured_time_s == row->oop_time_s ? row->oop_busbw_Bps : row->ip_busbw_Bps;
            bw = invert_bandwidth (c, link, table->kind, &fit->group, row->bytes, pt.measured_time_s);
            pt.efficiency = bw; /* divided by the peak below, once the peak is known */
            if (!curve_from_all_reduce || table->kind == PLX_COLLECTIVE_ALL_REDUCE)
              {
                PlxNcclSample sm = { table->kind, row->bytes, pt.measured_time_s };
                g_array_append_val (samples, sm);
                if (isfinite (row->oop_time_s) && isfinite (row->ip_time_s) && row->oop_time_s > 0.0 &&
                    row->ip_time_s > 0.0)
                  {
                    double d = log (row->oop_time_s / row->ip_time_s);
                    fit->repeat_spread += d * d;
                    fit->repeat_pairs++;
                  }
              }
            if (bw >= MAX_BW_BPS)
              {
                /* Faster than the model can be at any bandwidth of this link: the
                 * other link's part (the base cluster's) alone takes longer. */
                pt.efficiency = NAN;
                g_array_append_val (op->points, pt);
                continue;
              }
            pt.curve_bytes = knot_size (c, link, table->kind, &fit->group, row->bytes, bw);
            g_array_append_val (op->points, pt);
            if (!curve_from_all_reduce || table->kind == PLX_COLLECTIVE_ALL_REDUCE)
              {
                k.x = pt.curve_bytes;
                k.log_bw_sum = log (bw);
                k.n = 1;
                g_array_append_val (knots, k);
                k.x = table->kind == PLX_COLLECTIVE_ALL_TO_ALL ? row->bytes / fit->group.size : row->bytes;
                g_array_append_val (ring_knots, k);
              }
          }
        fit_latency (table, &fit->group, op);
        if (op->latency_rows > 0 && (lat == NULL || (op->kind == PLX_COLLECTIVE_ALL_REDUCE &&
                                                     lat->kind != PLX_COLLECTIVE_ALL_REDUCE)))
          lat = op;
      }
  if (knots->len == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "no measured time can be reproduced on the %s link: the base cluster's other link alone is slower",
                   key);
      return NULL;
    }
  merge_knots (knots);
  merge_knots (ring_knots);
  if (knots->len > 256)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%u distinct sizes measured; an efficiency curve holds at most 256", knots->len);
      return NULL;
    }

  /* Every knot and the latency refined together against every time, with the
   * latencies as they will be written (plx-nccl-joint.c). */
  if (lat != NULL)
    fit->latency_s = lat->latency_s;
  (fit->inter_node ? &c->intra_node : &c->inter_node)->latency_s = other_latency_s;
  link->latency_s = fit->latency_s;
  /* Two starts: the knots where the inversion read them, and every point's at its
   * message (the ring's reading); the model's kinks (the faster algorithm, the
   * narrower link) leave LM stuck where a knot's gradient is zero, which one of
   * the two usually is not. */
  memset (&joint, 0, sizeof joint);
  if (!refine (c, link, &fit->group, samples, knots, lat != NULL ? fit->latency_s : 0.0, &joint, error) ||
      !refine (c, link, &fit->group, samples, ring_knots, lat != NULL ? fit->latency_s : 0.0, &joint, error))
    {
      plx_nccl_joint_clear (&joint);
      return NULL;
    }
  fit->joint_iterations = joint.iterations;
  if (fit->repeat_pairs > 0)
    fit->repeat_spread = sqrt (fit->repeat_spread / (2.0 * fit->repeat_pairs));
  fit->bw_Bps = peak;
  for (guint i = 0; i < joint.knot_bw_Bps->len; i++)
    fit->bw_Bps = MAX (fit->bw_Bps, g_array_index (joint.knot_bw_Bps, double, i));

  /* The cluster file: the base with the fitted link. */
  fit->cluster = plx_json_deep_copy (base);
  o = json_node_get_object (fit->cluster);
  lo = json_object_get_object_member (o, key);
  /* A new fit replaces the link's curves, any collective's own among them. */
  json_object_remove_member (lo, "efficiency_by_collective");
  set_link_curve (lo, joint.knot_x, joint.knot_bw_Bps, fit->bw_Bps);
  if (lat != NULL)
    {
      fit->latency_fitted = TRUE;
      fit->latency_s = joint.latency_s;
      fit->latency_std_error_s = lat->latency_std_error_s;
    }
  json_object_set_double_member (lo, "latency_s", fit->latency_s);
  json_object_set_int_member (o, "gpus_per_node", gpus_per_node);
  json_object_set_int_member (o, "num_nodes", MAX ((guint) json_object_get_int_member_with_default (o, "num_nodes", 1),
                                                   nodes));
  /* The measured curve stands as measured: a fitted network factor no longer applies. */
  if (fit->inter_node && json_object_has_member (o, "calibration"))
    json_object_set_double_member (json_object_get_object_member (o, "calibration"), "network_scale", 1.0);
  if (json_object_has_member (o, "sources") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "sources")))
    {
      g_autoptr (GString) names = g_string_new ("nccl-tests output fitted by parallax-cli calibrate:");
      for (guint f = 0; f < n_files; f++)
        g_string_append_printf (names, " %s", files[f]->source);
      json_object_set_string_member (json_object_get_object_member (o, "sources"),
                                     fit->inter_node ? "inter_node_efficiency" : "intra_node_efficiency", names->str);
    }
  ok = add_own_curves (fit, lo, &joint, error) && set_residuals (fit, error);
  plx_nccl_joint_clear (&joint);
  if (!ok)
    return NULL;
  return g_steal_pointer (&fit);
}

/* A residual as printed to one decimal: what rounds to zero prints "0.0", not "-0.0". */
static double
shown_pct (double pct)
{
  return fabs (pct) < 0.05 ? 0.0 : pct;
}

char *
plx_nccl_fit_to_text (const PlxNcclFit *fit)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "Group: %u GPUs per node x %u nodes; fitted link: %s, peak %.4g GB/s\n",
                          fit->group.ranks_per_node, fit->group.nodes, fit->inter_node ? "inter_node" : "intra_node",
                          fit->bw_Bps / 1e9);
  for (guint i = 0; i < fit->ops->len; i++)
    {
      const PlxNcclOpFit *op = fit->ops->pdata[i];
      g_string_append_printf (out, "\n%s: %s (%s)\n", op->source, op->test, plx_collective_kind_names[op->kind]);
      if (op->own_curve)
        g_string_append_printf (out, "own curve: %s.efficiency_by_collective.%s (off the link curve by more than "
                                     "%g %%)\n", fit->inter_node ? "inter_node" : "intra_node",
                                plx_collective_kind_names[op->kind], OWN_CURVE_TOLERANCE_PCT);
      g_string_append_printf (out, "%14s %12s %11s %13s %13s %10s%s\n", "size (B)", "busbw GB/s", "efficiency",
                              "measured us", "model us", "residual", op->own_curve ? "  own curve" : "");
      for (guint r = 0; r < op->points->len; r++)
        {
          const PlxNcclPoint *pt = &g_array_index (op->points, PlxNcclPoint, r);
          g_string_append_printf (out, "%14.0f %12.2f %11.4g %13.2f %13.2f %9.1f %%", pt->bytes,
                                  pt->measured_busbw_Bps / 1e9, pt->efficiency, pt->measured_time_s * 1e6,
                                  pt->model_time_s * 1e6, shown_pct (pt->residual_pct));
          if (op->own_curve)
            g_string_append_printf (out, " %9.1f %%", shown_pct (pt->own_residual_pct));
          g_string_append_c (out, '\n');
        }
      if (op->latency_rows > 0)
        g_string_append_printf (out, "latency per step: %.3g us +- %.2g (line over %u sizes up to 64 KiB)\n",
                                op->latency_s * 1e6, op->latency_std_error_s * 1e6, op->latency_rows);
      else
        g_string_append (out, "latency: not fitted (fewer than 3 sizes up to 64 KiB)\n");
    }
  if (fit->latency_fitted)
    g_string_append_printf (out, "\nLink latency written: %.3g us +- %.2g per step\n", fit->latency_s * 1e6,
                            fit->latency_std_error_s * 1e6);
  else
    g_string_append_printf (out, "\nLink latency kept from the base cluster: %.3g us per step\n", fit->latency_s * 1e6);
  g_string_append_printf (out, "Largest |residual|: %.2f %%\n", fit->max_abs_residual_pct);
  if (fit->max_abs_residual_written_pct != fit->max_abs_residual_pct)
    g_string_append_printf (out, "Largest |residual| with each op's own curve where it has one: %.2f %%\n",
                            fit->max_abs_residual_written_pct);
  return g_string_free (out, FALSE);
}

JsonNode *
plx_nccl_fit_to_json (const PlxNcclFit *fit)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "link");
  json_builder_add_string_value (b, fit->inter_node ? "inter_node" : "intra_node");
  json_builder_set_member_name (b, "gpus_per_node");
  json_builder_add_int_value (b, fit->group.ranks_per_node);
  json_builder_set_member_name (b, "nodes");
  json_builder_add_int_value (b, fit->group.nodes);
  json_builder_set_member_name (b, "bw_Bps");
  json_builder_add_double_value (b, fit->bw_Bps);
  json_builder_set_member_name (b, "latency_s");
  json_builder_add_double_value (b, fit->latency_s);
  json_builder_set_member_name (b, "latency_fitted");
  json_builder_add_boolean_value (b, fit->latency_fitted);
  if (fit->latency_fitted)
    {
      json_builder_set_member_name (b, "latency_std_error_s");
      json_builder_add_double_value (b, fit->latency_std_error_s);
    }
  json_builder_set_member_name (b, "max_abs_residual_pct");
  json_builder_add_double_value (b, fit->max_abs_residual_pct);
  json_builder_set_member_name (b, "max_abs_residual_written_pct");
  json_builder_add_double_value (b, fit->max_abs_residual_written_pct);
  json_builder_set_member_name (b, "ops");
  json_builder_begin_array (b);
  for (guint i = 0; i < fit->ops->len; i++)
    {
      const PlxNcclOpFit *op = fit->ops->pdata[i];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "file");
      json_builder_add_string_value (b, op->source);
      json_builder_set_member_name (b, "test");
      json_builder_add_string_value (b, op->test);
      json_builder_set_member_name (b, "op");
      json_builder_add_string_value (b, plx_collective_kind_names[op->kind]);
      json_builder_set_member_name (b, "own_curve");
      json_builder_add_boolean_value (b, op->own_curve);
      if (op->latency_rows > 0)
        {
          json_builder_set_member_name (b, "latency_s");
          json_builder_add_double_value (b, op->latency_s);
          json_builder_set_member_name (b, "latency_std_error_s");
          json_builder_add_double_value (b, op->latency_std_error_s);
        }
      json_builder_set_member_name (b, "points");
      json_builder_begin_array (b);
      for (guint r = 0; r < op->points->len; r++)
        {
          const PlxNcclPoint *pt = &g_array_index (op->points, PlxNcclPoint, r);
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "bytes");
          json_builder_add_double_value (b, pt->bytes);
          json_builder_set_member_name (b, "measured_time_s");
          json_builder_add_double_value (b, pt->measured_time_s);
          json_builder_set_member_name (b, "measured_busbw_Bps");
          json_builder_add_double_value (b, pt->measured_busbw_Bps);
          json_builder_set_member_name (b, "efficiency");
          if (isfinite (pt->efficiency))
            json_builder_add_double_value (b, pt->efficiency);
          else
            json_builder_add_null_value (b);
          json_builder_set_member_name (b, "model_time_s");
          json_builder_add_double_value (b, pt->model_time_s);
          json_builder_set_member_name (b, "residual_pct");
          json_builder_add_double_value (b, pt->residual_pct);
          if (op->own_curve)
            {
              json_builder_set_member_name (b, "own_model_time_s");
              json_builder_add_double_value (b, pt->own_model_time_s);
              json_builder_set_member_name (b, "own_residual_pct");
              json_builder_add_double_value (b, pt->own_residual_pct);
            }
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* A fit's standard errors written as distributions (calibrate --with-uncertainty;
 * docs/calibration.md "The fits' own uncertainty"): normals on inputs the
 * uncertainty engine already samples (plx-cluster-inputs.c), the mean the value
 * written without the flag, so a nominal run is unchanged. latency_s: its standard
 * error is the line fit's, sqrt(cov00) over the ring steps. An nccl-tests curve
 * interpolates its sizes (as many knots as sizes, so no degrees of freedom are left
 * for a residual variance); the repeatability of the measurement is what is
 * uncertain, and nccl-tests measures each size twice (out of place and in place): for
 * pairs d = ln t_oop - ln t_ip, var d = 2 s^2, so the relative spread of one run is
 * s = sqrt(sum d^2 / 2n). */
JsonNode *
plx_nccl_fit_uncertain_cluster (const PlxNcclFit *fit)
{
  JsonNode *node = plx_json_deep_copy (fit->cluster);
  JsonObject *o = json_node_get_object (node);
  JsonObject *link = json_object_get_object_member (o, fit->inter_node ? "inter_node" : "intra_node");

  if (fit->latency_fitted && isfinite (fit->latency_std_error_s) && fit->latency_std_error_s > 0.0)
    plx_json_set_normal (link, "latency_s", fit->latency_s, fit->latency_std_error_s);
  if (fit->repeat_pairs > 0 && fit->repeat_spread > 0.0)
    {
      if (fit->inter_node)
        plx_json_set_normal (plx_json_object_member_made (o, "calibration"), "network_scale", 1.0, fit->repeat_spread);
      else
        plx_json_set_normal (link, "bw_Bps", fit->bw_Bps, fit->bw_Bps * fit->repeat_spread);
    }
  return node;
}
