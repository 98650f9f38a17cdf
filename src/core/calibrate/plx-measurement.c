/* Measurement files to a calibrated cluster and the data of its chart
 * (plx-measurement.h). The fitting is the CLI's (plx_nccl_fit, plx_sweep_calibrate,
 * plx_kineto_points and plx_kineto_cluster_json); this file only tells the files
 * apart and turns each fit into points, curves and residuals on one pair of axes. */
#include <math.h>
#include <string.h>

#include "parallax/plx-cluster.h"
#include "hardware/plx-collective.h"
#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "calibrate/plx-kineto.h"
#include "calibrate/plx-measurement.h"
#include "calibrate/plx-nccl-tests.h"
#include "base/plx-presets.h"
#include "calibrate/plx-sweep-fit.h"
#include "base/plx-csv.h"

/* Enough of a file to see what it is: nccl-tests print their banner and column
 * header in the first lines, a CSV its header on the first. */
#define HEAD_BYTES 8192
/* Samples of a drawn curve: smooth at any chart width. */
#define CURVE_SAMPLES 160

/* ---- telling files apart --------------------------------------------------------- */

static gboolean
csv_has_column (char **cols, const char *name)
{
  for (guint i = 0; cols[i] != NULL; i++)
    if (g_str_equal (cols[i], name))
      return TRUE;
  return FALSE;
}

gboolean
plx_measurement_detect (const char         *path,
                        PlxMeasurementKind *kind,
                        GError            **error)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GFileInputStream) in = NULL;
  g_autofree char *head = g_malloc0 (HEAD_BYTES + 1);
  g_auto (GStrv) cols = NULL;
  gsize got = 0;
  const char *p;

  in = g_file_read (file, NULL, error);
  if (in == NULL || !g_input_stream_read_all (G_INPUT_STREAM (in), head, HEAD_BYTES, &got, NULL, error))
    {
      g_prefix_error (error, "%s: ", path);
      return FALSE;
    }
  head[got] = '\0';
  for (p = head; *p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'; p++)
    ;
  if (*p == '\0' && got < HEAD_BYTES)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: the file is empty%s", path,
                   got > 0 ? " (only blank lines)" : "");
      return FALSE;
    }
  if (*p == '{')
    {
      *kind = PLX_MEASUREMENT_KINETO;
      return TRUE;
    }
  if (strstr (head, "nccl-tests") != NULL || strstr (head, "Collective test starting") != NULL ||
      strstr (head, "out-of-place") != NULL)
    {
      *kind = PLX_MEASUREMENT_NCCL_TESTS;
      return TRUE;
    }
  /* A CSV: the header is the first record (RFC 4180: a quoted name may hold a
   * comma). One that does not read is no CSV. */
  {
    gsize pos = 0;
    guint lines = 0, line = 0;
    cols = plx_csv_next_record (p, &pos, &lines, &line, path, NULL);
  }
  if (cols == NULL)
    cols = g_new0 (char *, 1);
  for (guint i = 0; cols[i] != NULL; i++)
    {
      char *lower = g_ascii_strdown (g_strstrip (cols[i]), -1);
      g_free (cols[i]);
      cols[i] = lower;
    }
  if (g_strv_length (cols) >= 2 && csv_has_column (cols, "m") && csv_has_column (cols, "n") &&
      csv_has_column (cols, "k"))
    {
      *kind = PLX_MEASUREMENT_GEMM_SWEEP;
      return TRUE;
    }
  if (g_strv_length (cols) >= 2 &&
      (csv_has_column (cols, "bytes") || csv_has_column (cols, "size") || csv_has_column (cols, "sizebytes")))
    {
      *kind = PLX_MEASUREMENT_MEMBW_SWEEP;
      return TRUE;
    }
  g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
               "%s: not a measurement file: expected nccl-tests output, a GEMM sweep CSV (m, n, k columns), a "
               "bandwidth sweep CSV (a bytes column) or a Kineto JSON trace",
               path);
  return FALSE;
}

const char *
plx_measurement_kind_name (PlxMeasurementKind kind)
{
  switch (kind)
    {
    case PLX_MEASUREMENT_NCCL_TESTS:
      return "nccl-tests output";
    case PLX_MEASUREMENT_GEMM_SWEEP:
      return "GEMM sweep";
    case PLX_MEASUREMENT_MEMBW_SWEEP:
      return "bandwidth sweep";
    case PLX_MEASUREMENT_KINETO:
    default:
      return "Kineto trace";
    }
}

static gboolean
is_sweep (PlxMeasurementKind k)
{
  return k == PLX_MEASUREMENT_GEMM_SWEEP || k == PLX_MEASUREMENT_MEMBW_SWEEP;
}

gboolean
plx_measurement_kinds_combine (PlxMeasurementKind a,
                               PlxMeasurementKind b)
{
  return a == b || (is_sweep (a) && is_sweep (b));
}

/* ---- chart data -------------------------------------------------------------------- */

static void
curve_free (PlxCalCurve *c)
{
  g_free (c->dtype);
  g_array_unref (c->fitted);
  g_array_unref (c->before);
  g_ptr_array_unref (c->series);
  g_array_unref (c->residuals);
  g_free (c);
}

static void
series_free (PlxCalSeries *s)
{
  g_free (s->label);
  g_array_unref (s->points);
  g_array_unref (s->own);
  g_free (s);
}

static PlxCalCurve *
curve_new (PlxCalCurveRole role, PlxCalXUnit x_unit, PlxCalYUnit y_unit)
{
  PlxCalCurve *c = g_new0 (PlxCalCurve, 1);

  c->role = role;
  c->x_unit = x_unit;
  c->y_unit = y_unit;
  c->fitted = g_array_new (FALSE, FALSE, sizeof (PlxCalXY));
  c->before = g_array_new (FALSE, FALSE, sizeof (PlxCalXY));
  c->series = g_ptr_array_new_with_free_func ((GDestroyNotify) series_free);
  c->residuals = g_array_new (FALSE, FALSE, sizeof (PlxCalResidual));
  c->peak_Bps = c->latency_s = c->latency_se_s = NAN;
  c->e_max = c->e_max_se = c->x_half = c->x_half_se = NAN;
  return c;
}

static PlxCalSeries *
add_series (PlxCalCurve *c, const char *label)
{
  PlxCalSeries *s = g_new0 (PlxCalSeries, 1);

  s->label = g_strdup (label);
  s->points = g_array_new (FALSE, FALSE, sizeof (PlxCalXY));
  s->own = g_array_new (FALSE, FALSE, sizeof (PlxCalXY));
  g_ptr_array_add (c->series, s);
  return s;
}

static void
add_point (PlxCalSeries *s, double x, double y)
{
  PlxCalXY p = { x, y };

  if (isfinite (x) && isfinite (y) && x > 0.0)
    g_array_append_val (s->points, p);
}

/* The residual added, NULL if it had no finite times to add. */
static PlxCalResidual *
add_residual (PlxCalCurve *c, double size, double measured, double fitted, double residual_pct)
{
  PlxCalResidual r = { c->series->len - 1, size, measured, fitted, residual_pct, NAN };

  if (!isfinite (measured) || !isfinite (fitted))
    return NULL;
  g_array_append_val (c->residuals, r);
  return &g_array_index (c->residuals, PlxCalResidual, c->residuals->len - 1);
}

/* The measured points' x range, a factor of 2 wider on each side; FALSE if none. */
static gboolean
points_range (const PlxCalCurve *c, double *lo, double *hi)
{
  *lo = INFINITY;
  *hi = -INFINITY;
  for (guint s = 0; s < c->series->len; s++)
    {
      const GArray *pts = ((const PlxCalSeries *) c->series->pdata[s])->points;
      for (guint i = 0; i < pts->len; i++)
        {
          *lo = MIN (*lo, g_array_index (pts, PlxCalXY, i).x);
          *hi = MAX (*hi, g_array_index (pts, PlxCalXY, i).x);
        }
    }
  *lo *= 0.5;
  *hi *= 2.0;
  return isfinite (*lo) && isfinite (*hi);
}

typedef double (*CurveEval) (gconstpointer curve, double x, gconstpointer extra);

/* `eval` sampled evenly in log x over the points' range into `out`. */
static void
sample (const PlxCalCurve *c, GArray *out, CurveEval eval, gconstpointer curve, gconstpointer extra)
{
  double lo, hi;

  if (curve == NULL || !points_range (c, &lo, &hi))
    return;
  for (guint i = 0; i < CURVE_SAMPLES; i++)
    {
      double x = exp (log (lo) + (log (hi) - log (lo)) * i / (CURVE_SAMPLES - 1));
      PlxCalXY p = { x, eval (curve, x, extra) };
      if (isfinite (p.y))
        g_array_append_val (out, p);
    }
}

/* A link's bus bandwidth on its own curve, as the collective model reads it. */
static double
eval_link (gconstpointer curve, double bytes, gconstpointer extra)
{
  const PlxLink *link = curve;

  return plx_link_bandwidth (link, link->efficiency, bytes);
}

/* The same on a collective's own curve (`curve`) of the link `extra`. */
static double
eval_own (gconstpointer curve, double bytes, gconstpointer extra)
{
  return plx_link_bandwidth (extra, curve, bytes);
}

static double
eval_curve (gconstpointer curve, double x, gconstpointer extra)
{
  return plx_curve_eval (curve, x);
}

static double
eval_sweep_fit (gconstpointer curve, double x, gconstpointer extra)
{
  return plx_sweep_fit_eval (curve, x);
}

/* ---- the three kinds of fit --------------------------------------------------------- */

static gboolean
fit_nccl (PlxMeasuredFit *out, JsonNode *base, const PlxCluster *base_c, const char *base_name,
          const char *const *paths, guint n, guint gpus_per_node, guint nodes, gboolean layout_from_files,
          GError **error)
{
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_nccl_file_free);
  g_autoptr (PlxNcclFit) fit = NULL;
  g_autoptr (PlxCluster) written = NULL;
  const PlxLink *link;
  PlxCalCurve *c;

  for (guint i = 0; i < n; i++)
    {
      PlxNcclFile *f = plx_nccl_file_load (paths[i], error);
      if (f == NULL)
        return FALSE;
      g_ptr_array_add (files, f);
      for (guint t = 0; layout_from_files && t < f->tables->len; t++)
        {
          const PlxNcclTable *table = f->tables->pdata[t];
          if (table->n_hosts > 0 && table->n_ranks % table->n_hosts == 0)
            {
              gpus_per_node = table->n_ranks / table->n_hosts;
              nodes = table->n_hosts;
              layout_from_files = FALSE;
            }
        }
    }
  out->gpus_per_node = gpus_per_node;
  out->nodes = nodes;
  fit = plx_nccl_fit (base, base_name, (PlxNcclFile *const *) files->pdata, files->len, gpus_per_node, nodes, error);
  if (fit == NULL)
    return FALSE;
  written = plx_cluster_new_from_json (fit->cluster, "the calibrated cluster", error);
  if (written == NULL)
    return FALSE;
  link = fit->inter_node ? &written->inter_node : &written->intra_node;
  c = curve_new (fit->inter_node ? PLX_CAL_CURVE_INTER_NODE : PLX_CAL_CURVE_INTRA_NODE, PLX_CAL_X_BYTES,
                 PLX_CAL_Y_BANDWIDTH);
  c->residual_is_time = TRUE;
  c->peak_Bps = fit->bw_Bps;
  c->latency_s = fit->latency_s;
  c->latency_se_s = fit->latency_fitted ? fit->latency_std_error_s : NAN;
  g_ptr_array_add (out->curves, c);
  for (guint o = 0; o < fit->ops->len; o++)
    {
      const PlxNcclOpFit *op = fit->ops->pdata[o];
      PlxCalSeries *s = add_series (c, op->test);
      for (guint i = 0; i < op->points->len; i++)
        {
          const PlxNcclPoint *pt = &g_array_index (op->points, PlxNcclPoint, i);
          PlxCalResidual *r;
          /* The link bandwidth that reproduces the measured time, where the model
           * reads the curve: on the curve for the sizes that define it. */
          add_point (s, pt->curve_bytes, pt->efficiency * fit->bw_Bps);
          r = add_residual (c, pt->bytes, pt->measured_time_s, pt->model_time_s, pt->residual_pct);
          if (r != NULL)
            r->own_residual_pct = pt->own_residual_pct;
        }
    }
  sample (c, c->fitted, eval_link, link, NULL);
  sample (c, c->before, eval_link, fit->inter_node ? &base_c->inter_node : &base_c->intra_node, NULL);
  for (guint o = 0; o < fit->ops->len; o++)
    {
      const PlxNcclOpFit *op = fit->ops->pdata[o];
      if (op->own_curve)
        sample (c, ((PlxCalSeries *) c->series->pdata[o])->own, eval_own, link->efficiency_by_collective[op->kind],
                link);
    }
  out->cluster = json_node_ref (fit->cluster);
  return TRUE;
}

static const PlxCurve *
base_curve_of (const PlxCluster *c, const PlxSweepFit *f)
{
  if (g_str_equal (f->name, "memory"))
    return c->memory_efficiency;
  if (g_strcmp0 (f->key, "matmul") == 0)
    return c->matmul_efficiency;
  if (g_strcmp0 (f->key, "matmul_fp8") == 0)
    return c->matmul_fp8_efficiency;
  if (g_strcmp0 (f->key, "matmul_tf32") == 0)
    return c->matmul_tf32_efficiency;
  if (g_strcmp0 (f->key, "matmul_fp32") == 0)
    return c->matmul_fp32_efficiency;
  return NULL;
}

static gboolean
fit_sweeps (PlxMeasuredFit *out, JsonNode *base, const PlxCluster *base_c, const char *base_name,
            const char *const *paths, const PlxMeasurementKind *kinds, guint n, GError **error)
{
  g_autoptr (PlxGemmSweep) gemm = NULL;
  g_autoptr (PlxMembwSweep) membw = NULL;
  g_autoptr (GPtrArray) fits = NULL;
  g_autoptr (JsonNode) cluster = json_node_copy (base);

  for (guint i = 0; i < n; i++)
    {
      if ((kinds[i] == PLX_MEASUREMENT_GEMM_SWEEP && gemm != NULL) ||
          (kinds[i] == PLX_MEASUREMENT_MEMBW_SWEEP && membw != NULL))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: a second %s; one of each kind a calibration",
                       paths[i], plx_measurement_kind_name (kinds[i]));
          return FALSE;
        }
      if (kinds[i] == PLX_MEASUREMENT_GEMM_SWEEP ? (gemm = plx_gemm_sweep_load (paths[i], error)) == NULL
                                                  : (membw = plx_membw_sweep_load (paths[i], error)) == NULL)
        return FALSE;
    }
  fits = plx_sweep_calibrate (cluster, base_name, gemm, membw, FALSE, error);
  if (fits == NULL)
    return FALSE;
  for (guint i = 0; i < fits->len; i++)
    {
      const PlxSweepFit *f = fits->pdata[i];
      gboolean memory = g_str_equal (f->name, "memory");
      PlxCalCurve *c = curve_new (memory ? PLX_CAL_CURVE_MEMORY : PLX_CAL_CURVE_MATMUL,
                                  memory ? PLX_CAL_X_BYTES : PLX_CAL_X_FLOPS, PLX_CAL_Y_EFFICIENCY);
      g_autofree char *file = g_path_get_basename (memory ? membw->source : gemm->source);
      PlxCalSeries *s;

      c->dtype = memory ? NULL : g_strdup (f->name);
      c->e_max = f->e_max;
      c->e_max_se = f->e_max_se;
      c->x_half = f->x_half;
      c->x_half_se = f->x_half_se;
      g_ptr_array_add (out->curves, c);
      s = add_series (c, file);
      for (guint r = 0; r < f->x->len; r++)
        {
          double x = g_array_index (f->x, double, r), m = g_array_index (f->measured, double, r);
          double fitted = g_array_index (f->fitted, double, r);
          add_point (s, x, m);
          add_residual (c, x, m, fitted, (m / fitted - 1.0) * 100.0);
        }
      sample (c, c->fitted, eval_sweep_fit, f, NULL);
      sample (c, c->before, eval_curve, base_curve_of (base_c, f), NULL);
    }
  out->cluster = g_steal_pointer (&cluster);
  return TRUE;
}

static void
kineto_curve (PlxMeasuredFit *out, PlxCalCurveRole role, const char *dtype, const GArray *points, const char *label,
              const PlxCurve *folded, const PlxCurve *before)
{
  PlxCalCurve *c = curve_new (role, role == PLX_CAL_CURVE_MATMUL ? PLX_CAL_X_FLOPS : PLX_CAL_X_BYTES,
                              PLX_CAL_Y_EFFICIENCY);
  PlxCalSeries *s;

  if (points->len == 0)
    {
      curve_free (c);
      return;
    }
  c->dtype = g_strdup (dtype);
  g_ptr_array_add (out->curves, c);
  s = add_series (c, label);
  for (guint i = 0; i < points->len; i++)
    {
      const PlxCurvePoint *p = &g_array_index (points, PlxCurvePoint, i);
      double fitted = plx_curve_eval (folded, p->x);
      add_point (s, p->x, p->y);
      add_residual (c, p->x, p->y, fitted, (p->y / fitted - 1.0) * 100.0);
    }
  sample (c, c->fitted, eval_curve, folded, NULL);
  sample (c, c->before, eval_curve, before, NULL);
}

static gboolean
fit_kineto (PlxMeasuredFit *out, JsonNode *base, const PlxCluster *base_c, const char *const *paths, guint n,
            const PlxModel *model, const PlxStrategy *strategy, GError **error)
{
  g_autoptr (PlxKinetoTrace) trace = NULL;
  g_autoptr (PlxKinetoPoints) pts = NULL;
  g_autoptr (JsonNode) folded = NULL;
  g_autoptr (PlxCluster) written = NULL;
  g_autofree char *name = NULL;

  if (n > 1)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: a second Kineto trace; one trace a calibration",
                   paths[1]);
      return FALSE;
    }
  trace = plx_kineto_load (paths[0], error);
  if (trace == NULL)
    return FALSE;
  pts = plx_kineto_points (trace, base_c);
  if (pts->matmul->len == 0 && pts->matmul_fp8->len == 0 && pts->matmul_tf32->len == 0 && pts->matmul_fp32->len == 0 &&
      pts->memory->len == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%s: no GEMM or elementwise op with recorded shapes (profile with record_shapes=True)", paths[0]);
      return FALSE;
    }
  name = g_path_get_basename (paths[0]);
  folded = plx_kineto_cluster_json (base, pts, name, error);
  if (folded == NULL || (written = plx_cluster_new_from_json (folded, "the folded cluster", error)) == NULL)
    return FALSE;
  /* Matched against the base cluster's costs, as the CLI does: the roofline each
   * measured GEMM replaces is the one the scenario had. */
  if (model != NULL && strategy != NULL && strategy->workload == PLX_WORKLOAD_TRAINING)
    {
      out->gemm_match = plx_gemm_match (trace, model, base_c, strategy, error);
      if (out->gemm_match == NULL || !plx_gemm_match_write_cluster (folded, out->gemm_match, name, error))
        return FALSE;
    }
  /* One chart per curve the trace measured, each GEMM dtype against its own peak
   * (plx_kineto_points). */
  kineto_curve (out, PLX_CAL_CURVE_MATMUL, "16-bit", pts->matmul, name, written->matmul_efficiency,
                base_c->matmul_efficiency);
  kineto_curve (out, PLX_CAL_CURVE_MATMUL, "fp8", pts->matmul_fp8, name, written->matmul_fp8_efficiency,
                base_c->matmul_fp8_efficiency);
  kineto_curve (out, PLX_CAL_CURVE_MATMUL, "tf32", pts->matmul_tf32, name, written->matmul_tf32_efficiency,
                base_c->matmul_tf32_efficiency);
  kineto_curve (out, PLX_CAL_CURVE_MATMUL, "fp32", pts->matmul_fp32, name, written->matmul_fp32_efficiency,
                base_c->matmul_fp32_efficiency);
  kineto_curve (out, PLX_CAL_CURVE_MEMORY, NULL, pts->memory, name, written->memory_efficiency,
                base_c->memory_efficiency);
  out->cluster = g_steal_pointer (&folded);
  return TRUE;
}

PlxMeasuredFit *
plx_measured_fit (JsonNode                 *base_cluster,
                  const char               *base_name,
                  const char *const        *paths,
                  const PlxMeasurementKind *kinds,
                  guint                     n_paths,
                  guint                     gpus_per_node,
                  guint                     nodes,
                  gboolean                  layout_from_files,
                  const PlxModel           *model,
                  const PlxStrategy        *strategy,
                  GError                  **error)
{
  g_autoptr (PlxMeasuredFit) fit = g_new0 (PlxMeasuredFit, 1);
  g_autoptr (JsonNode) base = NULL;
  g_autoptr (PlxCluster) base_c = NULL;
  gboolean ok, had_preset;

  if (n_paths == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "no measurement file to fit");
      return NULL;
    }
  for (guint i = 1; i < n_paths; i++)
    if (!plx_measurement_kinds_combine (kinds[0], kinds[i]))
      {
        g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                     "%s is %s, %s is %s: one kind of measurement a calibration", paths[0],
                     plx_measurement_kind_name (kinds[0]), paths[i], plx_measurement_kind_name (kinds[i]));
        return NULL;
      }
  if (base_cluster == NULL || !JSON_NODE_HOLDS_OBJECT (base_cluster))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: a cluster is a JSON object", base_name);
      return NULL;
    }
  base = plx_presets_expand (PLX_PRESET_CLUSTER, base_cluster, base_name, "cluster", &had_preset, error);
  if (base == NULL || (base_c = plx_cluster_new_from_json (base, base_name, error)) == NULL)
    return NULL;
  fit->kind = kinds[0];
  fit->curves = g_ptr_array_new_with_free_func ((GDestroyNotify) curve_free);
  if (kinds[0] == PLX_MEASUREMENT_NCCL_TESTS)
    ok = fit_nccl (fit, base, base_c, base_name, paths, n_paths, gpus_per_node, nodes, layout_from_files, error);
  else if (is_sweep (kinds[0]))
    ok = fit_sweeps (fit, base, base_c, base_name, paths, kinds, n_paths, error);
  else
    ok = fit_kineto (fit, base, base_c, paths, n_paths, model, strategy, error);
  return ok ? g_steal_pointer (&fit) : NULL;
}

void
plx_measured_fit_free (PlxMeasuredFit *fit)
{
  if (fit == NULL)
    return;
  if (fit->curves != NULL)
    g_ptr_array_unref (fit->curves);
  if (fit->cluster != NULL)
    json_node_unref (fit->cluster);
  plx_gemm_match_free (fit->gemm_match);
  g_free (fit);
}
