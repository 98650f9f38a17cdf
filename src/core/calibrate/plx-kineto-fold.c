/* plx-kineto-fold.c: measured kernel efficiencies folded into a cluster's curves -
 * DistSim's "profile each op, compose the step" (Lu et al. 2023, §4.1): where the
 * trace measured a size, the measurement stands; elsewhere the fitted curve does. */
#include <math.h>
#include <stdlib.h>

#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "calibrate/plx-kineto.h"

void
plx_kineto_points_free (PlxKinetoPoints *points)
{
  if (points == NULL)
    return;
  g_array_unref (points->matmul);
  g_array_unref (points->matmul_fp8);
  g_array_unref (points->matmul_tf32);
  g_array_unref (points->matmul_fp32);
  g_array_unref (points->memory);
  g_free (points);
}

static void
add_point (PlxKinetoPoints *p, GArray *to, double x, double y)
{
  PlxCurvePoint pt = { x, y, 1.0 };

  /* Above the peak: the op's dims or the cluster's peak are not what ran. */
  if (!(y > 0.0) || y > 1.0 || !isfinite (x))
    {
      p->n_rejected++;
      return;
    }
  g_array_append_val (to, pt);
}

PlxKinetoPoints *
plx_kineto_points_new (void)
{
  PlxKinetoPoints *p = g_new0 (PlxKinetoPoints, 1);

  p->matmul = g_array_new (FALSE, FALSE, sizeof (PlxCurvePoint));
  p->matmul_fp8 = g_array_new (FALSE, FALSE, sizeof (PlxCurvePoint));
  p->matmul_tf32 = g_array_new (FALSE, FALSE, sizeof (PlxCurvePoint));
  p->matmul_fp32 = g_array_new (FALSE, FALSE, sizeof (PlxCurvePoint));
  p->memory = g_array_new (FALSE, FALSE, sizeof (PlxCurvePoint));
  return p;
}

/* Each GEMM dtype has its own curve (plx-op-cost.c): a TF32 GEMM's 40 % of the TF32
 * peak says nothing about a bf16 GEMM of the same size. */
static GArray *
gemm_points (PlxKinetoPoints *p, PlxDtype dtype)
{
  switch (dtype)
    {
    case PLX_DTYPE_FP8:
      return p->matmul_fp8;
    case PLX_DTYPE_TF32:
      return p->matmul_tf32;
    case PLX_DTYPE_FP32:
      return p->matmul_fp32;
    case PLX_DTYPE_BF16:
    case PLX_DTYPE_FP16:
    default:
      return p->matmul;
    }
}

PlxKinetoPoints *
plx_kineto_points (const PlxKinetoTrace *trace,
                   const PlxCluster     *cluster)
{
  PlxKinetoPoints *p = plx_kineto_points_new ();

  for (guint i = 0; i < trace->ops->len; i++)
    {
      const PlxKinetoOp *op = &g_array_index (trace->ops, PlxKinetoOp, i);
      double seconds = op->kernel_us * 1e-6;

      if (seconds <= 0.0)
        continue;
      /* Achieved over peak, as the curves are (plx-op-cost.c): the peak of the
       * dtype the GEMM ran in; HBM bandwidth for the elementwise ops. */
      if (op->kclass == PLX_KERNEL_GEMM && op->flops > 0.0 && cluster->peak_flops[op->dtype] > 0.0)
        add_point (p, gemm_points (p, op->dtype), op->flops, op->flops / seconds / cluster->peak_flops[op->dtype]);
      else if (op->kclass == PLX_KERNEL_MEMORY && op->bytes > 0.0 && cluster->hbm_bw_Bps > 0.0)
        add_point (p, p->memory, op->bytes, op->bytes / seconds / cluster->hbm_bw_Bps);
    }
  return p;
}

static gint
compare_x (gconstpointer a, gconstpointer b)
{
  double x = ((const PlxCurvePoint *) a)->x, y = ((const PlxCurvePoint *) b)->x;
  return x < y ? -1 : x > y ? 1 : 0;
}

static gint
compare_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/* Measurements within a factor of 2 of the group's smallest size are one point: the
 * geometric mean size and the median efficiency (robust to a kernel that shared the
 * GPU with a collective). */
static GArray *
group_measured (const PlxCurvePoint *measured, gsize n)
{
  g_autoptr (GArray) sorted = g_array_sized_new (FALSE, FALSE, sizeof (PlxCurvePoint), n);
  g_autoptr (GArray) ys = g_array_new (FALSE, FALSE, sizeof (double));
  GArray *groups = g_array_new (FALSE, FALSE, sizeof (PlxCurvePoint));
  gsize i = 0;

  g_array_append_vals (sorted, measured, n);
  g_array_sort (sorted, compare_x);
  while (i < n)
    {
      const PlxCurvePoint *first = &g_array_index (sorted, PlxCurvePoint, i);
      PlxCurvePoint g = { 0.0, 0.0, 0.0 };
      double log_sum = 0.0;
      gsize j = i, m;

      g_array_set_size (ys, 0);
      for (; j < n && g_array_index (sorted, PlxCurvePoint, j).x < 2.0 * first->x; j++)
        {
          log_sum += log (g_array_index (sorted, PlxCurvePoint, j).x);
          g_array_append_val (ys, g_array_index (sorted, PlxCurvePoint, j).y);
        }
      m = j - i;
      g_array_sort (ys, compare_double);
      g.x = exp (log_sum / (double) m);
      g.y = m % 2 ? g_array_index (ys, double, m / 2)
                  : 0.5 * (g_array_index (ys, double, m / 2 - 1) + g_array_index (ys, double, m / 2));
      g.weight = (double) m;
      g_array_append_val (groups, g);
      i = j;
    }
  return groups;
}

/* Weighted pool adjacent violators (Barlow et al. 1972, "Statistical inference under
 * order restrictions", §1.2): the non-decreasing sequence closest in weighted least
 * squares. Efficiency rises with size (fixed launch and tail costs amortise), so a
 * dip is noise; pooling it keeps the curve monotone without a spline's overshoot. */
static void
make_non_decreasing (GArray *pts)
{
  g_autoptr (GArray) value = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) weight = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) count = g_array_new (FALSE, FALSE, sizeof (guint));
  guint k = 0;

  for (guint i = 0; i < pts->len; i++)
    {
      const PlxCurvePoint *p = &g_array_index (pts, PlxCurvePoint, i);
      guint one = 1;
      g_array_append_val (value, p->y);
      g_array_append_val (weight, p->weight);
      g_array_append_val (count, one);
      while (value->len >= 2 &&
             g_array_index (value, double, value->len - 2) > g_array_index (value, double, value->len - 1))
        {
          guint a = value->len - 2, b = value->len - 1;
          double wa = g_array_index (weight, double, a), wb = g_array_index (weight, double, b);
          g_array_index (value, double, a) = (wa * g_array_index (value, double, a) + wb * g_array_index (value, double, b)) / (wa + wb);
          g_array_index (weight, double, a) = wa + wb;
          g_array_index (count, guint, a) += g_array_index (count, guint, b);
          g_array_set_size (value, b);
          g_array_set_size (weight, b);
          g_array_set_size (count, b);
        }
    }
  for (guint b = 0; b < value->len; b++)
    for (guint c = 0; c < g_array_index (count, guint, b); c++)
      g_array_index (pts, PlxCurvePoint, k++).y = g_array_index (value, double, b);
}

GArray *
plx_curve_fold (const PlxCurve      *curve,
                const PlxCurvePoint *measured,
                gsize                n_measured)
{
  g_autoptr (GArray) groups = group_measured (measured, n_measured);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (PlxCurvePoint));

  /* No curve yet (a dtype the cluster never measured): the points alone. */
  for (gsize i = 0; curve != NULL && i < plx_curve_get_n_points (curve); i++)
    {
      PlxCurvePoint p = { 0.0, 0.0, 1.0 };
      gboolean near = FALSE;

      plx_curve_get_point (curve, i, &p.x, &p.y);
      for (guint g = 0; g < groups->len && !near; g++)
        near = fabs (log2 (p.x / g_array_index (groups, PlxCurvePoint, g).x)) < 1.0;
      if (!near)
        g_array_append_val (out, p);
    }
  g_array_append_vals (out, groups->data, groups->len);
  g_array_sort (out, compare_x);
  make_non_decreasing (out);
  return out;
}

static JsonNode *
curve_json (GArray *pts)
{
  JsonArray *a = json_array_new ();
  JsonNode *n = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; i < pts->len; i++)
    {
      JsonArray *pair = json_array_new ();
      json_array_add_double_element (pair, g_array_index (pts, PlxCurvePoint, i).x);
      json_array_add_double_element (pair, g_array_index (pts, PlxCurvePoint, i).y);
      json_array_add_array_element (a, pair);
    }
  json_node_take_array (n, a);
  return n;
}

/* `curve` with each efficiency times `factor` (at most 1); NULL for NULL. */
static PlxCurve *
scaled_curve (const PlxCurve *curve, double factor)
{
  gsize n = curve != NULL ? plx_curve_get_n_points (curve) : 0;
  g_autofree double *x = g_new (double, MAX (n, 1));
  g_autofree double *y = g_new (double, MAX (n, 1));

  if (curve == NULL)
    return NULL;
  for (gsize i = 0; i < n; i++)
    {
      plx_curve_get_point (curve, i, &x[i], &y[i]);
      y[i] = MIN (1.0, y[i] * factor);
    }
  return plx_curve_new (x, y, n, NULL);
}

static JsonNode *
plain_curve_json (const PlxCurve *curve)
{
  g_autoptr (GArray) pts = g_array_new (FALSE, FALSE, sizeof (PlxCurvePoint));

  for (gsize i = 0; i < plx_curve_get_n_points (curve); i++)
    {
      PlxCurvePoint p = { 0.0, 0.0, 1.0 };
      plx_curve_get_point (curve, i, &p.x, &p.y);
      g_array_append_val (pts, p);
    }
  return curve_json (pts);
}

/* The calibration scale `key` of `out` as a plain number (or absent): a measurement
 * folded in takes it out (below). A distribution is left as the user wrote it. */
static gboolean
scale_is_plain (JsonObject *out, const char *key)
{
  JsonNode *cal = json_object_get_member (out, "calibration");
  JsonNode *v = cal != NULL && JSON_NODE_HOLDS_OBJECT (cal) ? json_object_get_member (json_node_get_object (cal), key)
                                                            : NULL;

  return v == NULL || JSON_NODE_HOLDS_VALUE (v);
}

static void
reset_scale (JsonObject *out, const char *key)
{
  if (!json_object_has_member (out, "calibration"))
    json_object_set_object_member (out, "calibration", json_object_new ());
  json_object_set_double_member (json_object_get_object_member (out, "calibration"), key, 1.0);
}

JsonNode *
plx_kineto_cluster_json (JsonNode              *cluster_json,
                         const PlxKinetoPoints *points,
                         const char            *trace_name,
                         GError               **error)
{
  g_autoptr (PlxCluster) cluster = plx_cluster_new_from_json (cluster_json, "--cluster", error);
  g_autoptr (JsonNode) out = NULL;
  JsonObject *gpu, *eff, *sources;
  g_autofree char *note = NULL;
  g_autoptr (PlxCurve) matmul = NULL, matmul_fp8 = NULL, memory = NULL;
  double matmul_scale = 1.0, memory_scale = 1.0;

  if (cluster == NULL)
    return NULL;
  out = plx_json_deep_copy (cluster_json);
  /* An inline cluster may leave its curves to the defaults (plx-cluster.c): the
   * folded ones are written in full. */
  if (!json_object_has_member (json_node_get_object (out), "gpu"))
    json_object_set_object_member (json_node_get_object (out), "gpu", json_object_new ());
  gpu = json_object_get_object_member (json_node_get_object (out), "gpu");
  if (!json_object_has_member (gpu, "efficiency"))
    json_object_set_object_member (gpu, "efficiency", json_object_new ());
  eff = json_object_get_object_member (gpu, "efficiency");
  /* A measured kernel's efficiency is what it reached; calibration.matmul_scale and
   * memory_scale were fitted to published runs against the preset's curves, and
   * would scale the measured points too (0.864 on the H100 preset: every traced GEMM
   * 14 % slow). So the fold is done in effective terms, as calibrate --gemm's rule
   * (docs/calibration.md): the curves the scale multiplies - the 16-bit and fp8
   * matmul curves, the attention ceilings - take it into their points, the measured
   * points join as measured, and the scale becomes 1. Unmeasured sizes predict as
   * before; TF32 and FP32 curves were never scaled. */
  if ((points->matmul->len > 0 || points->matmul_fp8->len > 0) &&
      scale_is_plain (json_node_get_object (out), "matmul_scale") && cluster->matmul_scale != 1.0)
    matmul_scale = cluster->matmul_scale;
  if (points->memory->len > 0 && scale_is_plain (json_node_get_object (out), "memory_scale") &&
      cluster->memory_scale != 1.0)
    memory_scale = cluster->memory_scale;
  matmul = scaled_curve (cluster->matmul_efficiency, matmul_scale);
  matmul_fp8 = scaled_curve (cluster->matmul_fp8_efficiency, matmul_scale);
  memory = scaled_curve (cluster->memory_efficiency, memory_scale);
  if (matmul_scale != 1.0)
    {
      json_object_set_member (eff, "matmul", plain_curve_json (matmul));
      if (matmul_fp8 != NULL)
        json_object_set_member (eff, "matmul_fp8", plain_curve_json (matmul_fp8));
      /* Attention's ceiling is scaled by min(scale, 1) (plx-op-cost.c). */
      if (cluster->attention_efficiency > 0.0)
        json_object_set_double_member (eff, "attention", MAX (0.01, cluster->attention_efficiency * MIN (matmul_scale, 1.0)));
      if (cluster->attention_efficiency_pytorch > 0.0)
        json_object_set_double_member (eff, "attention_pytorch",
                                       MAX (0.01, cluster->attention_efficiency_pytorch * MIN (matmul_scale, 1.0)));
      reset_scale (json_node_get_object (out), "matmul_scale");
    }
  if (memory_scale != 1.0)
    {
      json_object_set_member (eff, "memory", plain_curve_json (memory));
      reset_scale (json_node_get_object (out), "memory_scale");
    }
  {
    const struct
    {
      const char     *key;
      const GArray   *measured;
      const PlxCurve *curve;
    } folds[] = {
      { "matmul", points->matmul, matmul },
      { "matmul_fp8", points->matmul_fp8, matmul_fp8 },
      { "matmul_tf32", points->matmul_tf32, cluster->matmul_tf32_efficiency },
      { "matmul_fp32", points->matmul_fp32, cluster->matmul_fp32_efficiency },
      { "memory", points->memory, memory },
    };

    for (guint i = 0; i < G_N_ELEMENTS (folds); i++)
      if (folds[i].measured->len > 0)
        {
          g_autoptr (GArray) m = plx_curve_fold (folds[i].curve, (const PlxCurvePoint *) (void *) folds[i].measured->data,
                                                 folds[i].measured->len);
          json_object_set_member (eff, folds[i].key, curve_json (m));
        }
  }
  if (!json_object_has_member (json_node_get_object (out), "sources"))
    json_object_set_object_member (json_node_get_object (out), "sources", json_object_new ());
  sources = json_object_get_object_member (json_node_get_object (out), "sources");
  note = g_strdup_printf ("%s: %u GEMM ops measured (%u 16-bit, %u fp8, %u tf32, %u fp32) and %u elementwise, "
                          "folded into the matmul curve of each dtype and the memory curve "
                          "(parallax-cli calibrate --kineto; docs/calibration.md)",
                          trace_name, points->matmul->len + points->matmul_fp8->len + points->matmul_tf32->len +
                          points->matmul_fp32->len, points->matmul->len, points->matmul_fp8->len,
                          points->matmul_tf32->len, points->matmul_fp32->len, points->memory->len);
  json_object_set_string_member (sources, "kineto", note);
  /* What we write must read back. */
  {
    g_autoptr (PlxCluster) check = plx_cluster_new_from_json (out, "the folded cluster", error);
    if (check == NULL)
      return NULL;
  }
  return g_steal_pointer (&out);
}
