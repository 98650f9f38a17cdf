#include <math.h>

#include <gsl/gsl_statistics_double.h>

#include "base/plx-input.h"
#include "parallax/plx-analytic.h"
#include "parallax/plx-error.h"
#include "ir/plx-ir-lower.h"
#include "base/plx-json.h"
#include "parallax/plx-scenario.h"
#include "parallax/plx-sim.h"
#include "parallax/plx-calibrate.h"

/* docs/formats.md §2: what `measured` may hold (NULL-terminated for the key check). */
static const char *const metric_keys[PLX_N_METRICS + 1] = {
  "step_time_s", "mfu", "tokens_per_s_per_gpu", "model_states_bytes", "activation_bytes",
  "peak_memory_bytes", NULL,
};

/* docs/formats.md §2. */
static const char *const table_keys[] = { "source", "cases", NULL };
static const char *const case_keys[] = { "name", "scenario", "measured", "notes", NULL };


const char *
plx_metric_to_string (PlxMetric metric)
{
  return metric_keys[metric];
}

static double
predicted_value (PlxMetric metric,
                 const PlxReport *r)
{
  switch (metric)
    {
    case PLX_METRIC_STEP_TIME:
      return r->step_time_s;
    case PLX_METRIC_MFU:
      return r->mfu;
    case PLX_METRIC_TOKENS_PER_S_PER_GPU:
      return r->tokens_per_s / r->n_gpus;
    case PLX_METRIC_MODEL_STATES_BYTES:
      return (double) (r->memory_bytes[PLX_MEM_WEIGHTS] + r->memory_bytes[PLX_MEM_GRADIENTS] +
                       r->memory_bytes[PLX_MEM_OPTIMIZER]);
    case PLX_METRIC_ACTIVATION_BYTES:
      return (double) r->memory_bytes[PLX_MEM_ACTIVATIONS];
    case PLX_METRIC_PEAK_MEMORY_BYTES:
      return (double) r->peak_memory_bytes;
    case PLX_N_METRICS:
    default:
      g_return_val_if_reached (NAN);
    }
}

static void
row_clear (gpointer data)
{
  PlxValidationRow *row = data;
  g_free (row->case_name);
}

static void
fit_clear (gpointer data)
{
  PlxValidationFit *fit = data;
  g_free (fit->case_name);
}

static GArray *
fits_new (void)
{
  GArray *fits = g_array_new (FALSE, TRUE, sizeof (PlxValidationFit));
  g_array_set_clear_func (fits, fit_clear);
  return fits;
}

void
plx_validation_free (PlxValidation *v)
{
  if (v == NULL)
    return;
  g_free (v->source);
  g_free (v->file);
  if (v->rows != NULL)
    g_array_unref (v->rows);
  if (v->fits != NULL)
    g_array_unref (v->fits);
  g_free (v);
}

static gboolean
is_performance (PlxMetric metric)
{
  return metric == PLX_METRIC_STEP_TIME || metric == PLX_METRIC_MFU || metric == PLX_METRIC_TOKENS_PER_S_PER_GPU;
}

static void
summarise_rows (const PlxValidation *v, int metric, PlxValidationSummary *sum)
{
  g_autoptr (GArray) abs_err = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) err = g_array_new (FALSE, FALSE, sizeof (double));

  *sum = (PlxValidationSummary) { 0 };
  sum->metric = metric < 0 ? PLX_METRIC_STEP_TIME : (PlxMetric) metric;
  for (guint i = 0; i < v->rows->len; i++)
    {
      const PlxValidationRow *row = &g_array_index (v->rows, PlxValidationRow, i);
      double a = fabs (row->error_pct), e = row->error_pct;

      if (metric >= 0 ? row->metric != (PlxMetric) metric : !is_performance (row->metric))
        continue;
      /* As speed: a step time predicted short is a prediction too fast. */
      if (metric < 0 && row->metric == PLX_METRIC_STEP_TIME)
        e = -e;
      g_array_append_val (abs_err, a);
      g_array_append_val (err, e);
    }
  sum->n = abs_err->len;
  if (sum->n == 0)
    return;
  sum->mean_abs_error_pct = gsl_stats_mean ((double *) (void *) abs_err->data, 1, abs_err->len);
  sum->max_abs_error_pct = gsl_stats_max ((double *) (void *) abs_err->data, 1, abs_err->len);
  sum->stddev_error_pct = sum->n > 1 ? gsl_stats_sd ((double *) (void *) err->data, 1, err->len) : 0.0;
  sum->bias_pct = gsl_stats_mean ((double *) (void *) err->data, 1, err->len);
  /* gsl_stats_median sorts in place: a copy is already ours. */
  sum->median_abs_error_pct = gsl_stats_median ((double *) (void *) abs_err->data, 1, abs_err->len);
}

static void
summarise (PlxValidation *v)
{
  for (guint metric = 0; metric < PLX_N_METRICS; metric++)
    summarise_rows (v, (int) metric, &v->summary[metric]);
  summarise_rows (v, -1, &v->performance);
}

void
plx_validation_case_free (PlxValidationCase *c)
{
  if (c == NULL)
    return;
  plx_scenario_free (c->scenario);
  g_free (c->name);
  g_free (c->where);
  g_free (c->cluster_preset);
  g_free (c);
}

void
plx_validation_table_free (PlxValidationTable *t)
{
  if (t == NULL)
    return;
  g_free (t->source);
  g_free (t->file);
  if (t->cases != NULL)
    g_ptr_array_unref (t->cases);
  g_free (t);
}

PlxValidationTable *
plx_validation_table_load (const char *file,
                           GError    **error)
{
  g_autoptr (JsonNode) root = plx_json_parse_file (file, error);
  /* What messages name: "<stdin>" for "-". */
  const char *path = plx_input_name (file);
  g_autoptr (PlxValidationTable) t = NULL;
  g_autofree char *dir = NULL;
  JsonObject *obj;
  JsonNode *cases;
  const char *source = "";

  if (root == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: a validation table must be a JSON object", path);
      return NULL;
    }
  obj = json_node_get_object (root);
  if (!plx_json_check_keys (obj, path, "", table_keys, error) ||
      !plx_json_get_string (obj, path, "", "source", FALSE, &source, error))
    return NULL;
  cases = json_object_get_member (obj, "cases");
  if (cases == NULL || !JSON_NODE_HOLDS_ARRAY (cases))
    {
      g_set_error (error, PLX_ERROR, cases ? PLX_ERROR_PARSE : PLX_ERROR_MISSING_KEY,
                   "%s: cases: %s", path, cases ? "is not a list" : "required key is missing");
      return NULL;
    }

  t = g_new0 (PlxValidationTable, 1);
  t->source = g_strdup (source ? source : "");
  t->file = g_path_get_basename (path);
  t->cases = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_validation_case_free);
  dir = g_path_get_dirname (path);

  for (guint i = 0; i < json_array_get_length (json_node_get_array (cases)); i++)
    {
      JsonNode *c = json_array_get_element (json_node_get_array (cases), i);
      g_autoptr (PlxValidationCase) vc = g_new0 (PlxValidationCase, 1);
      JsonObject *cobj, *measured;
      JsonNode *scenario, *cluster;
      const char *name = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (c))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: cases[%u]: not an object", path, i);
          return NULL;
        }
      cobj = json_node_get_object (c);
      vc->where = g_strdup_printf ("%s: cases[%u]", path, i);
      if (!plx_json_check_keys (cobj, vc->where, "", case_keys, error) ||
          !plx_json_get_string (cobj, vc->where, "", "name", FALSE, &name, error))
        return NULL;
      vc->name = g_strdup (name ? name : vc->where);
      measured = plx_json_get_object (cobj, vc->where, "", "measured", TRUE, error);
      if (measured == NULL || !plx_json_check_keys (measured, vc->where, "measured", metric_keys, error))
        return NULL;
      for (guint metric = 0; metric < PLX_N_METRICS; metric++)
        {
          vc->measured[metric] = NAN;
          if (json_object_has_member (measured, metric_keys[metric]) &&
              !plx_json_get_double (measured, vc->where, "measured", metric_keys[metric], TRUE,
                                    1e-30, 1e30, &vc->measured[metric], error))
            return NULL;
        }
      scenario = json_object_get_member (cobj, "scenario");
      if (scenario == NULL)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY, "%s: scenario: required key is missing", vc->where);
          return NULL;
        }
      vc->scenario = plx_scenario_new_from_json (scenario, dir, vc->where, error);
      if (vc->scenario == NULL)
        return NULL;
      /* Which built-in cluster the case runs on, for calibration per GPU type. */
      cluster = JSON_NODE_HOLDS_OBJECT (scenario) ? json_object_get_member (json_node_get_object (scenario), "cluster")
                                                  : NULL;
      if (cluster != NULL && JSON_NODE_HOLDS_OBJECT (cluster))
        {
          JsonNode *preset = json_object_get_member (json_node_get_object (cluster), "preset");
          if (preset != NULL && JSON_NODE_HOLDS_VALUE (preset) && json_node_get_value_type (preset) == G_TYPE_STRING)
            vc->cluster_preset = g_strdup (json_node_get_string (preset));
        }
      g_ptr_array_add (t->cases, g_steal_pointer (&vc));
    }
  return g_steal_pointer (&t);
}

double
plx_validation_predicted (PlxMetric        metric,
                          const PlxReport *report)
{
  return predicted_value (metric, report);
}

/* "event", "analytical", or "ir" (the event engine's program run by the IR
 * simulator, plx-ir-lower.h). */
static gboolean
known_engine (const char *engine, GError **error)
{
  if (g_str_equal (engine, "analytical") || g_str_equal (engine, "event") || g_str_equal (engine, "ir"))
    return TRUE;
  g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "engine \"%.60s\" is not \"analytical\", \"event\" or \"ir\"",
               engine);
  return FALSE;
}

PlxValidation *
plx_validation_run_table (const PlxValidationTable *t,
                          const char               *engine,
                          GError                  **error)
{
  g_autoptr (PlxValidation) v = NULL;

  if (engine == NULL)
    engine = "event";
  if (!known_engine (engine, error))
    return NULL;
  v = g_new0 (PlxValidation, 1);
  v->source = g_strdup (t->source);
  v->engine = g_str_equal (engine, "event") ? "event" : g_str_equal (engine, "ir") ? "ir" : "analytical";
  v->file = g_strdup (t->file);
  v->rows = g_array_new (FALSE, TRUE, sizeof (PlxValidationRow));
  g_array_set_clear_func (v->rows, row_clear);
  v->fits = fits_new ();

  for (guint i = 0; i < t->cases->len; i++)
    {
      const PlxValidationCase *c = t->cases->pdata[i];
      const PlxScenario *sc = c->scenario;
      PlxReport report = { 0 };

      if (g_str_equal (engine, "event")
            ? !plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &report, NULL, NULL, NULL, error)
            : g_str_equal (engine, "ir") ? !plx_ir_run_scenario (sc->model, sc->cluster, sc->strategy, &report, NULL, NULL, error)
                                         : !plx_analytic_run (sc->model, sc->cluster, sc->strategy, &report, error))
        {
          g_prefix_error (error, "%s: ", c->where);
          return NULL;
        }
      /* A timed run ran: it fitted on the real GPUs (issue 36). */
      if (!isnan (c->measured[PLX_METRIC_STEP_TIME]) || !isnan (c->measured[PLX_METRIC_MFU]) ||
          !isnan (c->measured[PLX_METRIC_TOKENS_PER_S_PER_GPU]))
        {
          PlxValidationFit fit = { g_strdup (c->name), report.peak_memory_bytes, report.hbm_usable_bytes,
                                   report.fits_in_memory };
          g_array_append_val (v->fits, fit);
        }
      for (guint metric = 0; metric < PLX_N_METRICS; metric++)
        {
          PlxValidationRow row = { 0 };

          if (isnan (c->measured[metric]))
            continue;
          row.case_name = g_strdup (c->name);
          row.metric = metric;
          row.measured = c->measured[metric];
          row.predicted = predicted_value (metric, &report);
          row.error_pct = (row.predicted - row.measured) / row.measured * 100.0;
          g_array_append_val (v->rows, row);
        }
    }

  summarise (v);
  return g_steal_pointer (&v);
}

PlxValidation *
plx_validation_run_file (const char *path,
                         const char *engine,
                         GError    **error)
{
  g_autoptr (PlxValidationTable) t = NULL;

  if (engine != NULL && !known_engine (engine, error))
    return NULL;
  t = plx_validation_table_load (path, error);
  if (t == NULL)
    return NULL;
  return plx_validation_run_table (t, engine, error);
}

/* One summary as a JSON member; the performance summary counts "comparisons" and
 * gives its bias as speed. */
static void
add_summary_json (JsonBuilder *b, const char *name, const PlxValidationSummary *s, gboolean performance)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, performance ? "comparisons" : "cases");
  json_builder_add_int_value (b, s->n);
  json_builder_set_member_name (b, "mean_abs_error_pct");
  json_builder_add_double_value (b, s->mean_abs_error_pct);
  json_builder_set_member_name (b, "max_abs_error_pct");
  json_builder_add_double_value (b, s->max_abs_error_pct);
  json_builder_set_member_name (b, "median_abs_error_pct");
  json_builder_add_double_value (b, s->median_abs_error_pct);
  json_builder_set_member_name (b, performance ? "speed_bias_pct" : "bias_pct");
  json_builder_add_double_value (b, s->bias_pct);
  json_builder_end_object (b);
}

JsonNode *
plx_validation_to_json (const PlxValidation *v)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, v->source);
  json_builder_set_member_name (b, "file");
  json_builder_add_string_value (b, v->file);
  json_builder_set_member_name (b, "engine");
  json_builder_add_string_value (b, v->engine);
  json_builder_set_member_name (b, "rows");
  json_builder_begin_array (b);
  for (guint i = 0; i < v->rows->len; i++)
    {
      const PlxValidationRow *row = &g_array_index (v->rows, PlxValidationRow, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "case");
      json_builder_add_string_value (b, row->case_name);
      json_builder_set_member_name (b, "metric");
      json_builder_add_string_value (b, metric_keys[row->metric]);
      json_builder_set_member_name (b, "measured");
      json_builder_add_double_value (b, row->measured);
      json_builder_set_member_name (b, "predicted");
      json_builder_add_double_value (b, row->predicted);
      json_builder_set_member_name (b, "error_pct");
      json_builder_add_double_value (b, row->error_pct);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "summary");
  json_builder_begin_object (b);
  for (guint metric = 0; metric < PLX_N_METRICS; metric++)
    {
      if (v->summary[metric].n > 0)
        add_summary_json (b, metric_keys[metric], &v->summary[metric], FALSE);
    }
  json_builder_end_object (b);
  add_summary_json (b, "performance", &v->performance, TRUE);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static char *
format_value (PlxMetric metric, double value)
{
  switch (metric)
    {
    case PLX_METRIC_STEP_TIME:
      return g_strdup_printf ("%.2f s", value);
    case PLX_METRIC_MFU:
      return g_strdup_printf ("%.1f %%", value * 100.0);
    case PLX_METRIC_TOKENS_PER_S_PER_GPU:
      return g_strdup_printf ("%.0f tok/s", value);
    case PLX_METRIC_MODEL_STATES_BYTES:
    case PLX_METRIC_ACTIVATION_BYTES:
    case PLX_METRIC_PEAK_MEMORY_BYTES:
    case PLX_N_METRICS:
    default:
      return g_strdup_printf ("%.2f GiB", value / 1073741824.0);
    }
}

char *
plx_validation_to_text (const PlxValidation *v)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "Source: %s\nEngine: %s\n\n", v->source, v->engine);
  g_string_append_printf (out, "%-58s %-20s %12s %12s %8s\n", "case", "metric", "measured", "predicted", "error");
  for (guint i = 0; i < v->rows->len; i++)
    {
      const PlxValidationRow *row = &g_array_index (v->rows, PlxValidationRow, i);
      g_autofree char *m = format_value (row->metric, row->measured);
      g_autofree char *p = format_value (row->metric, row->predicted);
      g_string_append_printf (out, "%-58.58s %-20s %12s %12s %+7.1f%%\n", row->case_name,
                              metric_keys[row->metric], m, p, row->error_pct);
    }
  g_string_append (out, "\n");
  for (guint metric = 0; metric < PLX_N_METRICS; metric++)
    {
      const PlxValidationSummary *s = &v->summary[metric];
      if (s->n == 0)
        continue;
      g_string_append_printf (out, "%-20s %u cases: mean absolute error %.2f %%, median %.2f %%, largest %.2f %%, "
                              "bias %+.2f %%\n", metric_keys[metric], s->n, s->mean_abs_error_pct,
                              s->median_abs_error_pct, s->max_abs_error_pct, s->bias_pct);
    }
  if (v->performance.n > 0)
    g_string_append_printf (out, "%-20s %u comparisons (step time, MFU, throughput): mean %.2f %%, median %.2f %%, "
                            "largest %.2f %%, speed bias %+.2f %% (+ = predicted faster)\n", "performance",
                            v->performance.n, v->performance.mean_abs_error_pct, v->performance.median_abs_error_pct,
                            v->performance.max_abs_error_pct, v->performance.bias_pct);
  return g_string_free (out, FALSE);
}

PlxValidation *
plx_validation_pool (PlxValidation *const *tables,
                     guint                 n_tables)
{
  PlxValidation *v = g_new0 (PlxValidation, 1);

  v->source = g_strdup ("pooled");
  v->file = g_strdup ("all");
  v->engine = n_tables > 0 ? tables[0]->engine : "event";
  v->rows = g_array_new (FALSE, TRUE, sizeof (PlxValidationRow));
  g_array_set_clear_func (v->rows, row_clear);
  for (guint t = 0; t < n_tables; t++)
    for (guint i = 0; i < tables[t]->rows->len; i++)
      {
        PlxValidationRow row = g_array_index (tables[t]->rows, PlxValidationRow, i);
        row.case_name = g_strdup (row.case_name);
        g_array_append_val (v->rows, row);
      }
  v->fits = fits_new ();
  for (guint t = 0; t < n_tables; t++)
    for (guint i = 0; tables[t]->fits != NULL && i < tables[t]->fits->len; i++)
      {
        PlxValidationFit fit = g_array_index (tables[t]->fits, PlxValidationFit, i);
        fit.case_name = g_strdup (fit.case_name);
        g_array_append_val (v->fits, fit);
      }
  summarise (v);
  return v;
}

char *
plx_validation_pooled_to_text (PlxValidation *const *tables,
                               guint                 n_tables,
                               const PlxValidation  *pooled)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "Pooled over %u tables, %s engine: step time, MFU and throughput\n\n", n_tables,
                          pooled->engine);
  g_string_append_printf (out, "%-36s %11s %7s %7s %7s %11s\n", "table", "comparisons", "mean", "median", "worst",
                          "speed bias");
  for (guint t = 0; t <= n_tables; t++)
    {
      const PlxValidation *v = t < n_tables ? tables[t] : pooled;
      const char *name = v->file;
      const PlxValidationSummary *p = &v->performance;

      if (p->n == 0)
        g_string_append_printf (out, "%-36s %11u %7s %7s %7s %11s\n", name, 0u, "-", "-", "-", "-");
      else
        g_string_append_printf (out, "%-36s %11u %6.1f%% %6.1f%% %6.1f%% %+10.1f%%\n", name, p->n,
                                p->mean_abs_error_pct, p->median_abs_error_pct, p->max_abs_error_pct, p->bias_pct);
    }
  return g_string_free (out, FALSE);
}

JsonNode *
plx_validation_pooled_to_json (PlxValidation *const *tables,
                               guint                 n_tables,
                               const PlxValidation  *pooled)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "engine");
  json_builder_add_string_value (b, pooled->engine);
  json_builder_set_member_name (b, "tables");
  json_builder_begin_array (b);
  for (guint t = 0; t < n_tables; t++)
    json_builder_add_value (b, plx_validation_to_json (tables[t]));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "pooled");
  {
    g_autoptr (JsonNode) all = plx_validation_to_json (pooled);
    JsonObject *o = json_node_get_object (all);
    /* The rows are the tables' own, above. */
    json_object_remove_member (o, "rows");
    json_object_remove_member (o, "source");
    json_builder_add_value (b, g_steal_pointer (&all));
  }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

guint
plx_validation_count_fits (const PlxValidation *v)
{
  guint n = 0;

  for (guint i = 0; v->fits != NULL && i < v->fits->len; i++)
    n += g_array_index (v->fits, PlxValidationFit, i).fits ? 1 : 0;
  return n;
}

char *
plx_validation_memory_to_text (PlxValidation *const *tables,
                               guint                 n_tables)
{
  GString *out = g_string_new (NULL);
  guint runs = 0, fit = 0;

  g_string_append (out, "Memory: does each run that was timed (so ran on real GPUs) fit as predicted?\n\n");
  g_string_append_printf (out, "%-58s %13s %13s  %s\n", "case", "peak memory", "usable", "predicted");
  for (guint t = 0; t < n_tables; t++)
    for (guint i = 0; tables[t]->fits != NULL && i < tables[t]->fits->len; i++)
      {
        const PlxValidationFit *f = &g_array_index (tables[t]->fits, PlxValidationFit, i);
        g_string_append_printf (out, "%-58.58s %9.2f GiB %9.2f GiB  %s\n", f->case_name,
                                f->peak_memory_bytes / 1073741824.0, f->usable_bytes / 1073741824.0,
                                f->fits ? "fits" : "does not fit");
      }
  g_string_append_printf (out, "\n%-36s %6s %8s %13s\n", "table", "runs", "fit", "do not fit");
  for (guint t = 0; t < n_tables; t++)
    {
      guint n = tables[t]->fits != NULL ? tables[t]->fits->len : 0, k = plx_validation_count_fits (tables[t]);
      g_string_append_printf (out, "%-36s %6u %8u %13u\n", tables[t]->file, n, k, n - k);
      runs += n;
      fit += k;
    }
  if (n_tables > 1)
    g_string_append_printf (out, "%-36s %6u %8u %13u\n", "all", runs, fit, runs - fit);
  return g_string_free (out, FALSE);
}

JsonNode *
plx_validation_memory_to_json (const PlxValidation *v,
                               gboolean             with_cases)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  guint n = v->fits != NULL ? v->fits->len : 0;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "runs");
  json_builder_add_int_value (b, n);
  json_builder_set_member_name (b, "predicted_to_fit");
  json_builder_add_int_value (b, plx_validation_count_fits (v));
  if (with_cases)
    {
      json_builder_set_member_name (b, "cases");
      json_builder_begin_array (b);
      for (guint i = 0; i < n; i++)
        {
          const PlxValidationFit *f = &g_array_index (v->fits, PlxValidationFit, i);
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "case");
          json_builder_add_string_value (b, f->case_name);
          json_builder_set_member_name (b, "peak_memory_bytes");
          json_builder_add_int_value (b, (gint64) f->peak_memory_bytes);
          json_builder_set_member_name (b, "usable_bytes");
          json_builder_add_int_value (b, (gint64) f->usable_bytes);
          json_builder_set_member_name (b, "fits");
          json_builder_add_boolean_value (b, f->fits);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}
