/* Calibration: at most four global parameters of a GPU type, fitted by nonlinear
 * least squares (GSL's trust-region gsl_multifit_nlinear, Levenberg-Marquardt
 * steps) to the published runs made on it. The residual of a comparison is the log
 * of predicted over measured speed (step time inverted), so a run 10 % fast and
 * one 10 % slow weigh alike whatever their size; a weak prior holds each factor at
 * 1 unless the data move it. Why these parameters and not others: docs/calibration.md. */
#include <math.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_multifit_nlinear.h>

#include "parallax/plx-analytic.h"
#include "parallax/plx-calibrate.h"
#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "base/plx-presets.h"

static const char *const param_names[PLX_N_CAL] = { "matmul_scale", "memory_scale", "network_scale", "layer_overhead_s",
                                                     "overlap_slowdown" };
static const char *const param_short[PLX_N_CAL] = { "matmul", "memory", "network", "overhead", "overlap" };

/* The prior's weight: a factor 10 % off 1 costs as much as one comparison 1 % off. */
#define PRIOR_WEIGHT 0.1
/* The additive parameters are fitted as unit x softplus(x): positive, smooth
 * through 0; the factors as exp(x). */
#define OVERHEAD_UNIT 1e-4
#define OVERLAP_UNIT 0.1

/* A parameter's unit if it is additive (0 is its uncalibrated value), else 0. */
static double
additive_unit (guint k)
{
  return k == PLX_CAL_LAYER_OVERHEAD_S ? OVERHEAD_UNIT : k == PLX_CAL_OVERLAP_SLOWDOWN ? OVERLAP_UNIT : 0.0;
}

typedef struct
{
  const PlxScenario *scenario;
  PlxCluster        *cluster;   /* the case's own copy, whose calibration fields move */
  PlxMetric          metric;
  double             measured;
  guint              source;
} Entry;

typedef struct
{
  GArray         *entries;      /* Entry */
  const gboolean *active;       /* per entry: used by this fit */
  gboolean        fit[PLX_N_CAL];
  guint           n_active;
} Problem;

const char *
plx_cal_param_to_string (PlxCalParam param)
{
  return param_names[param];
}

gboolean
plx_cal_params_parse (const char *list,
                      gboolean    fit[PLX_N_CAL],
                      GError    **error)
{
  g_auto (GStrv) parts = g_strsplit (list, ",", -1);

  gboolean any = FALSE;

  for (guint i = 0; i < PLX_N_CAL; i++)
    fit[i] = FALSE;
  for (guint i = 0; parts[i] != NULL; i++)
    {
      gboolean known = FALSE;
      g_strstrip (parts[i]);
      if (parts[i][0] == '\0')
        continue;
      any = TRUE;
      for (guint k = 0; k < PLX_N_CAL; k++)
        if (g_str_equal (parts[i], param_short[k]) || g_str_equal (parts[i], param_names[k]))
          fit[k] = known = TRUE;
      if (!known)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "--fit: \"%.40s\" is not one of matmul, memory, network, overhead, overlap", parts[i]);
          return FALSE;
        }
    }
  if (!any)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "--fit: nothing to fit; name one or more of matmul, memory, network, overhead, overlap");
      return FALSE;
    }
  return TRUE;
}

static double
softplus (double x)
{
  return x > 30.0 ? x : log1p (exp (x));
}

/* Parameter values from the free variables x (in the order of the free ones). */
static void
values_from_x (const Problem *pb, const gsl_vector *x, double value[PLX_N_CAL])
{
  guint j = 0;

  value[PLX_CAL_MATMUL_SCALE] = value[PLX_CAL_MEMORY_SCALE] = value[PLX_CAL_NETWORK_SCALE] = 1.0;
  value[PLX_CAL_LAYER_OVERHEAD_S] = value[PLX_CAL_OVERLAP_SLOWDOWN] = 0.0;
  for (guint k = 0; k < PLX_N_CAL; k++)
    if (pb->fit[k])
      {
        double xk = gsl_vector_get (x, j++);
        value[k] = additive_unit (k) > 0.0 ? additive_unit (k) * softplus (xk) : exp (CLAMP (xk, -2.0, 2.0));
      }
  /* The cluster file's bound. */
  value[PLX_CAL_OVERLAP_SLOWDOWN] = MIN (value[PLX_CAL_OVERLAP_SLOWDOWN], 0.9);
}

static void
apply (GArray *entries, const double value[PLX_N_CAL])
{
  for (guint i = 0; i < entries->len; i++)
    {
      PlxCluster *c = g_array_index (entries, Entry, i).cluster;
      c->matmul_scale = value[PLX_CAL_MATMUL_SCALE];
      c->memory_scale = value[PLX_CAL_MEMORY_SCALE];
      c->inter_node.scale = value[PLX_CAL_NETWORK_SCALE];
      c->layer_overhead_s = value[PLX_CAL_LAYER_OVERHEAD_S];
      c->overlap_slowdown = value[PLX_CAL_OVERLAP_SLOWDOWN];
    }
}

/* Predicted over measured speed, or NAN if the case does not run. */
static double
speed_ratio (const Entry *e)
{
  PlxReport r;
  double predicted;

  if (!plx_analytic_run (e->scenario->model, e->cluster, e->scenario->strategy, &r, NULL))
    return NAN;
  predicted = plx_validation_predicted (e->metric, &r);
  if (!(predicted > 0.0))
    return NAN;
  return e->metric == PLX_METRIC_STEP_TIME ? e->measured / predicted : predicted / e->measured;
}

static int
residuals (const gsl_vector *x, void *data, gsl_vector *f)
{
  const Problem *pb = data;
  double value[PLX_N_CAL];
  guint row = 0, j = 0;

  values_from_x (pb, x, value);
  apply (pb->entries, value);
  for (guint i = 0; i < pb->entries->len; i++)
    {
      double ratio;
      if (!pb->active[i])
        continue;
      ratio = speed_ratio (&g_array_index (pb->entries, Entry, i));
      /* A case that stops running under these parameters counts as far off. */
      gsl_vector_set (f, row++, isfinite (ratio) ? log (ratio) : 10.0);
    }
  for (guint k = 0; k < PLX_N_CAL; k++)
    if (pb->fit[k])
      {
        double xk = gsl_vector_get (x, j++);
        gsl_vector_set (f, row++, PRIOR_WEIGHT * (additive_unit (k) > 0.0 ? value[k] / additive_unit (k) : xk));
      }
  return GSL_SUCCESS;
}

/* Fits the free parameters on the active entries; returns the iterations, or -1. */
static int
fit_problem (Problem *pb, double value[PLX_N_CAL], double std_error[PLX_N_CAL])
{
  const gsl_multifit_nlinear_type *type = gsl_multifit_nlinear_trust;
  gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters ();
  gsl_multifit_nlinear_fdf fdf = { 0 };
  gsl_multifit_nlinear_workspace *w;
  gsl_vector *x;
  gsl_matrix *covar;
  guint p = 0, n, j = 0;
  int info = 0, status, iterations;
  double chi2, dof;

  for (guint k = 0; k < PLX_N_CAL; k++)
    p += pb->fit[k] ? 1 : 0;
  for (guint k = 0; k < PLX_N_CAL; k++)
    std_error[k] = NAN;
  if (p == 0 || pb->n_active == 0)
    {
      gsl_vector *none = gsl_vector_calloc (1);
      values_from_x (pb, none, value);
      gsl_vector_free (none);
      return 0;
    }
  n = pb->n_active + p;
  fdf.f = residuals;
  fdf.n = n;
  fdf.p = p;
  fdf.params = pb;
  x = gsl_vector_alloc (p);
  for (guint k = 0; k < PLX_N_CAL; k++)
    if (pb->fit[k])
      /* Start from the uncalibrated model: factors of 1, the additive ones at 1 % of
       * their unit. */
      gsl_vector_set (x, j++, additive_unit (k) > 0.0 ? log (expm1 (0.01)) : 0.0);
  w = gsl_multifit_nlinear_alloc (type, &params, n, p);
  gsl_multifit_nlinear_init (x, &fdf, w);
  status = gsl_multifit_nlinear_driver (200, 1e-8, 1e-8, 0.0, NULL, NULL, &info, w);
  iterations = status == GSL_SUCCESS || status == GSL_EMAXITER ? (int) gsl_multifit_nlinear_niter (w) : -1;

  values_from_x (pb, gsl_multifit_nlinear_position (w), value);
  covar = gsl_matrix_alloc (p, p);
  chi2 = pow (gsl_blas_dnrm2 (gsl_multifit_nlinear_residual (w)), 2.0);
  dof = n > p ? (double) (n - p) : 1.0;
  if (gsl_multifit_nlinear_covar (gsl_multifit_nlinear_jac (w), 1e-10, covar) == GSL_SUCCESS)
    {
      j = 0;
      for (guint k = 0; k < PLX_N_CAL; k++)
        if (pb->fit[k])
          {
            double xk = gsl_vector_get (gsl_multifit_nlinear_position (w), j);
            double se_x = sqrt (gsl_matrix_get (covar, j, j) * chi2 / dof);
            /* The delta method: through d value / d x. */
            double slope = additive_unit (k) > 0.0 ? additive_unit (k) / (1.0 + exp (-xk)) : value[k];
            std_error[k] = isfinite (se_x) ? fabs (slope) * se_x : NAN;
            j++;
          }
    }
  gsl_matrix_free (covar);
  gsl_multifit_nlinear_free (w);
  gsl_vector_free (x);
  return iterations;
}

/* Mean |predicted - measured| / measured in %, over active (or inactive) entries of
 * one source (G_MAXUINT: all), at the given parameters. */
static double
mean_error (GArray *entries, const double value[PLX_N_CAL], guint source, guint *count)
{
  double sum = 0.0;
  guint n = 0;

  apply (entries, value);
  for (guint i = 0; i < entries->len; i++)
    {
      const Entry *e = &g_array_index (entries, Entry, i);
      double ratio;
      if (source != G_MAXUINT && e->source != source)
        continue;
      ratio = speed_ratio (e);
      if (!isfinite (ratio))
        continue;
      /* Back to the metric's own error: a step time's is measured/ratio. */
      sum += fabs ((e->metric == PLX_METRIC_STEP_TIME ? 1.0 / ratio : ratio) - 1.0) * 100.0;
      n++;
    }
  if (count != NULL)
    *count = n;
  return n > 0 ? sum / n : NAN;
}

void
plx_calibration_free (PlxCalibration *cal)
{
  if (cal == NULL)
    return;
  g_free (cal->preset);
  if (cal->sources != NULL)
    g_ptr_array_unref (cal->sources);
  if (cal->source_n != NULL)
    g_array_unref (cal->source_n);
  if (cal->source_before_pct != NULL)
    g_array_unref (cal->source_before_pct);
  if (cal->source_after_pct != NULL)
    g_array_unref (cal->source_after_pct);
  if (cal->source_loso_pct != NULL)
    g_array_unref (cal->source_loso_pct);
  g_free (cal);
}

static void
entry_clear (gpointer data)
{
  plx_cluster_free (((Entry *) data)->cluster);
}

PlxCalibration *
plx_calibrate (PlxValidationTable *const *tables,
               guint                      n_tables,
               const char                *preset,
               const gboolean             fit[PLX_N_CAL],
               GError                   **error)
{
  g_autoptr (PlxCalibration) cal = g_new0 (PlxCalibration, 1);
  g_autoptr (GArray) entries = g_array_new (FALSE, TRUE, sizeof (Entry));
  g_autofree gboolean *active = NULL;
  const double uncalibrated[PLX_N_CAL] = { 1.0, 1.0, 1.0, 0.0 };
  Problem pb = { 0 };
  double loso_sum = 0.0;
  guint loso_n = 0;
  int iterations;

  g_array_set_clear_func (entries, entry_clear);
  cal->preset = g_strdup (preset);
  cal->sources = g_ptr_array_new_with_free_func (g_free);
  cal->source_n = g_array_new (FALSE, TRUE, sizeof (guint));
  cal->source_before_pct = g_array_new (FALSE, TRUE, sizeof (double));
  cal->source_after_pct = g_array_new (FALSE, TRUE, sizeof (double));
  cal->source_loso_pct = g_array_new (FALSE, TRUE, sizeof (double));

  for (guint t = 0; t < n_tables; t++)
    {
      gboolean used = FALSE;
      for (guint i = 0; i < tables[t]->cases->len; i++)
        {
          const PlxValidationCase *c = tables[t]->cases->pdata[i];
          if (g_strcmp0 (c->cluster_preset, preset) != 0)
            continue;
          for (guint m = 0; m <= PLX_METRIC_TOKENS_PER_S_PER_GPU; m++)
            {
              Entry e = { 0 };
              if (isnan (c->measured[m]))
                continue;
              e.scenario = c->scenario;
              e.cluster = plx_cluster_copy (c->scenario->cluster);
              e.metric = (PlxMetric) m;
              e.measured = c->measured[m];
              e.source = cal->sources->len;
              g_array_append_val (entries, e);
              used = TRUE;
            }
        }
      if (used)
        g_ptr_array_add (cal->sources, g_strdup (tables[t]->file));
    }
  if (entries->len == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "calibrate: no case of the tables runs on the cluster preset \"%.60s\" with a measured step time, "
                   "MFU or throughput", preset);
      return NULL;
    }

  cal->n_comparisons = entries->len;
  for (guint k = 0; k < PLX_N_CAL; k++)
    cal->fitted[k] = fit[k];
  pb.entries = entries;
  for (guint k = 0; k < PLX_N_CAL; k++)
    pb.fit[k] = fit[k];
  active = g_new (gboolean, entries->len);

  /* The fit on everything. */
  for (guint i = 0; i < entries->len; i++)
    active[i] = TRUE;
  pb.active = active;
  pb.n_active = entries->len;
  iterations = fit_problem (&pb, cal->value, cal->std_error);
  if (iterations < 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "calibrate: the fit for \"%.60s\" did not converge",
                   preset);
      return NULL;
    }
  cal->iterations = (guint) iterations;
  cal->mean_before_pct = mean_error (entries, uncalibrated, G_MAXUINT, NULL);
  cal->mean_after_pct = mean_error (entries, cal->value, G_MAXUINT, NULL);

  /* Per source: before, after, and fitted without it. */
  for (guint s = 0; s < cal->sources->len; s++)
    {
      double before, after, loso = NAN, value[PLX_N_CAL], se[PLX_N_CAL];
      guint n = 0;

      before = mean_error (entries, uncalibrated, s, &n);
      after = mean_error (entries, cal->value, s, NULL);
      if (cal->sources->len > 1)
        {
          pb.n_active = 0;
          for (guint i = 0; i < entries->len; i++)
            {
              active[i] = g_array_index (entries, Entry, i).source != s;
              pb.n_active += active[i] ? 1 : 0;
            }
          if (fit_problem (&pb, value, se) >= 0)
            {
              loso = mean_error (entries, value, s, NULL);
              loso_sum += loso * n;
              loso_n += n;
            }
        }
      g_array_append_val (cal->source_n, n);
      g_array_append_val (cal->source_before_pct, before);
      g_array_append_val (cal->source_after_pct, after);
      g_array_append_val (cal->source_loso_pct, loso);
    }
  cal->loso_mean_pct = loso_n > 0 ? loso_sum / loso_n : NAN;
  return g_steal_pointer (&cal);
}

char *
plx_calibration_to_text (const PlxCalibration *cal)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "Calibration of %s on %u comparisons (step time, MFU, throughput), analytical engine, "
                               "%u iterations\n\n", cal->preset, cal->n_comparisons, cal->iterations);
  g_string_append_printf (out, "%-18s %12s %12s\n", "parameter", "value", "std. error");
  for (guint k = 0; k < PLX_N_CAL; k++)
    {
      if (!cal->fitted[k])
        {
          g_string_append_printf (out, "%-18s %12s %12s\n", param_names[k],
                                  k == PLX_CAL_LAYER_OVERHEAD_S ? "0 s" : k == PLX_CAL_OVERLAP_SLOWDOWN ? "0" : "1",
                                  "not fitted");
          continue;
        }
      if (k == PLX_CAL_LAYER_OVERHEAD_S)
        g_string_append_printf (out, "%-18s %9.1f us %9.1f us\n", param_names[k], cal->value[k] * 1e6,
                                cal->std_error[k] * 1e6);
      else
        g_string_append_printf (out, "%-18s %12.3f %12.3f\n", param_names[k], cal->value[k], cal->std_error[k]);
    }
  g_string_append_printf (out, "\n%-36s %5s %9s %9s %22s\n", "source", "cases", "before", "after",
                          "left out of the fit");
  for (guint s = 0; s < cal->sources->len; s++)
    {
      double loso = g_array_index (cal->source_loso_pct, double, s);
      g_autofree char *l = isfinite (loso) ? g_strdup_printf ("%.1f %%", loso) : g_strdup ("-");
      g_string_append_printf (out, "%-36s %5u %7.1f %% %7.1f %% %22s\n", (const char *) cal->sources->pdata[s],
                              g_array_index (cal->source_n, guint, s), g_array_index (cal->source_before_pct, double, s),
                              g_array_index (cal->source_after_pct, double, s), l);
    }
  g_string_append_printf (out, "%-36s %5u %7.1f %% %7.1f %% ", "all", cal->n_comparisons, cal->mean_before_pct,
                          cal->mean_after_pct);
  if (isfinite (cal->loso_mean_pct))
    g_string_append_printf (out, "%20.1f %%\n", cal->loso_mean_pct);
  else
    g_string_append_printf (out, "%22s\n", "- (one source)");
  g_string_append (out, "\nMean absolute error of the predicted step time, MFU or throughput. 'Left out of the "
                        "fit': each source predicted by the parameters fitted on the others.\n");
  return g_string_free (out, FALSE);
}

JsonNode *
plx_calibration_to_json (const PlxCalibration *cal)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "preset");
  json_builder_add_string_value (b, cal->preset);
  json_builder_set_member_name (b, "comparisons");
  json_builder_add_int_value (b, cal->n_comparisons);
  json_builder_set_member_name (b, "parameters");
  json_builder_begin_object (b);
  for (guint k = 0; k < PLX_N_CAL; k++)
    {
      json_builder_set_member_name (b, param_names[k]);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "value");
      json_builder_add_double_value (b, cal->value[k]);
      json_builder_set_member_name (b, "fitted");
      json_builder_add_boolean_value (b, cal->fitted[k]);
      if (cal->fitted[k] && isfinite (cal->std_error[k]))
        {
          json_builder_set_member_name (b, "std_error");
          json_builder_add_double_value (b, cal->std_error[k]);
        }
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "mean_abs_error_pct_before");
  json_builder_add_double_value (b, cal->mean_before_pct);
  json_builder_set_member_name (b, "mean_abs_error_pct_after");
  json_builder_add_double_value (b, cal->mean_after_pct);
  if (isfinite (cal->loso_mean_pct))
    {
      json_builder_set_member_name (b, "leave_one_source_out_mean_abs_error_pct");
      json_builder_add_double_value (b, cal->loso_mean_pct);
    }
  json_builder_set_member_name (b, "sources");
  json_builder_begin_array (b);
  for (guint s = 0; s < cal->sources->len; s++)
    {
      double loso = g_array_index (cal->source_loso_pct, double, s);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "file");
      json_builder_add_string_value (b, cal->sources->pdata[s]);
      json_builder_set_member_name (b, "comparisons");
      json_builder_add_int_value (b, g_array_index (cal->source_n, guint, s));
      json_builder_set_member_name (b, "mean_abs_error_pct_before");
      json_builder_add_double_value (b, g_array_index (cal->source_before_pct, double, s));
      json_builder_set_member_name (b, "mean_abs_error_pct_after");
      json_builder_add_double_value (b, g_array_index (cal->source_after_pct, double, s));
      if (isfinite (loso))
        {
          json_builder_set_member_name (b, "leave_one_source_out_pct");
          json_builder_add_double_value (b, loso);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

JsonNode *
plx_calibration_cluster_json (const PlxCalibration *cal,
                              GError              **error)
{
  g_autoptr (JsonNode) preset = plx_presets_lookup (PLX_PRESET_CLUSTER, cal->preset, error);
  JsonNode *out;
  JsonObject *o, *c;
  JsonArray *files;

  if (preset == NULL)
    return NULL;
  out = plx_json_deep_copy (preset);
  o = json_node_get_object (out);
  json_object_remove_member (o, "calibration");
  c = json_object_new ();
  for (guint k = 0; k < PLX_N_CAL; k++)
    json_object_set_double_member (c, param_names[k], cal->value[k]);
  files = json_array_new ();
  for (guint s = 0; s < cal->sources->len; s++)
    json_array_add_string_element (files, cal->sources->pdata[s]);
  json_object_set_array_member (c, "fitted_on", files);
  json_object_set_string_member (c, "engine", "analytical");
  json_object_set_int_member (c, "cases", cal->n_comparisons);
  json_object_set_object_member (o, "calibration", c);
  return out;
}
