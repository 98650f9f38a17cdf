/**
 * SECTION:plx-validation
 * @title: plx-validation.h
 * @short_description: predictions held against a table of published measurements
 *
 * Predictions held against a table of published measurements (docs/formats.md §2).
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "plx-report.h"
#include "plx-scenario.h"

G_BEGIN_DECLS

/**
 * PlxMetric:
 * @PLX_METRIC_STEP_TIME: step time in seconds, "step_time_s"
 * @PLX_METRIC_MFU: model FLOPs utilisation, "mfu"
 * @PLX_METRIC_TOKENS_PER_S_PER_GPU: tokens a second per GPU, "tokens_per_s_per_gpu"
 * @PLX_METRIC_MODEL_STATES_BYTES: weights + gradients + optimizer state per GPU,
 *   "model_states_bytes"
 * @PLX_METRIC_ACTIVATION_BYTES: activations per GPU, "activation_bytes"
 * @PLX_METRIC_PEAK_MEMORY_BYTES: peak memory per GPU, "peak_memory_bytes"
 * @PLX_N_METRICS: the number of metrics, not a metric
 *
 * What a case may have measured; the quoted names are the keys of a case's
 * measured object (plx_metric_to_string()).
 */
typedef enum
{
  PLX_METRIC_STEP_TIME,
  PLX_METRIC_MFU,
  PLX_METRIC_TOKENS_PER_S_PER_GPU,
  PLX_METRIC_MODEL_STATES_BYTES,
  PLX_METRIC_ACTIVATION_BYTES,
  PLX_METRIC_PEAK_MEMORY_BYTES,
  PLX_N_METRICS
} PlxMetric;

/**
 * PlxValidationRow:
 * @case_name: the case's name
 * @metric: what was measured
 * @measured: the published value
 * @predicted: the engine's value
 * @error_pct: the error in percent: (predicted - measured) / measured * 100
 *
 * One measured value of one case against its prediction.
 */
typedef struct
{
  char     *case_name;
  PlxMetric metric;
  double    measured;
  double    predicted;
  double    error_pct;
} PlxValidationRow;

/**
 * PlxValidationSummary:
 * @metric: the metric summarised
 * @n: the rows summarised
 * @mean_abs_error_pct: mean |error|
 * @max_abs_error_pct: largest |error|
 * @stddev_error_pct: standard deviation of the signed errors (0 for fewer than two)
 * @median_abs_error_pct: median |error|
 * @bias_pct: mean signed error; in `performance`, as speed: + = predicted faster
 *
 * The errors of one metric's rows, in percent.
 */
typedef struct
{
  PlxMetric metric;
  guint     n;
  double    mean_abs_error_pct;
  double    max_abs_error_pct;
  double    stddev_error_pct;
  double    median_abs_error_pct;
  double    bias_pct;
} PlxValidationSummary;

/**
 * PlxValidation:
 * @source: the table's source
 * @file: the table's file name, without its directory
 * @engine: "analytical", "event" or "ir" (static string)
 * @rows: #PlxValidationRow
 * @summary: each metric's summary, by #PlxMetric
 * @performance: step times, MFUs and throughputs together (what "accuracy" means in
 *   README)
 *
 * A table's predictions held against its measurements.
 */
typedef struct
{
  char                 *source;
  char                 *file;
  const char           *engine;
  GArray               *rows;
  PlxValidationSummary  summary[PLX_N_METRICS];
  PlxValidationSummary  performance;
} PlxValidation;

/**
 * PlxValidationCase:
 * @scenario: the case's scenario
 * @name: the case's name, or else @where
 * @where: "FILE: cases[i]", for messages
 * @cluster_preset: the scenario's cluster.preset, or %NULL
 * @measured: by #PlxMetric
 *
 * One case of a table: its scenario and what was measured (NAN where nothing).
 */
typedef struct
{
  PlxScenario *scenario;
  char        *name;
  char        *where;
  char        *cluster_preset;
  double       measured[PLX_N_METRICS];
} PlxValidationCase;

/**
 * PlxValidationTable:
 * @source: the table's source key
 * @file: file name without its directory
 * @cases: #PlxValidationCase
 *
 * A table of published measurements, read and checked.
 */
typedef struct
{
  char      *source;
  char      *file;
  GPtrArray *cases;
} PlxValidationTable;

/**
 * plx_validation_table_load:
 * @path: a validation table (docs/formats.md §2), or "-" for standard input
 * @error: return location for a #GError, or %NULL
 *
 * Reads a table and builds each case's scenario.
 *
 * Returns: (transfer full) (nullable): the table, or %NULL with @error set naming
 *   the file, case and key
 */
PlxValidationTable *plx_validation_table_load (const char *path,
                                               GError    **error);
/**
 * plx_validation_table_free:
 * @table: (transfer full) (nullable): a table
 *
 * Frees @table.
 */
void                plx_validation_table_free (PlxValidationTable *table);
/**
 * plx_validation_case_free:
 * @c: (transfer full) (nullable): a case
 *
 * Frees @c.
 */
void                plx_validation_case_free (PlxValidationCase *c);
/**
 * plx_validation_run_table:
 * @table: a table
 * @engine: (nullable): as for plx_validation_run_file()
 * @error: return location for a #GError, or %NULL
 *
 * Predicts every case of @table with @engine and holds each measured value against
 * its prediction.
 *
 * Returns: (transfer full) (nullable): the validation, or %NULL with @error set: an
 *   unknown engine, or a case the engine refuses (the error names it)
 */
PlxValidation      *plx_validation_run_table (const PlxValidationTable *table,
                                               const char               *engine,
                                               GError                  **error);
/**
 * plx_validation_predicted:
 * @metric: a metric
 * @report: a report
 *
 * Returns: what @report predicts for a measured key
 */
double              plx_validation_predicted (PlxMetric        metric,
                                              const PlxReport *report);

/**
 * plx_validation_run_file:
 * @path: a validation table, or "-" for standard input
 * @engine: (nullable): "event" (%NULL: the default), "analytical" or "ir"
 * @error: return location for a #GError, or %NULL
 *
 * As plx_validation_table_load() and plx_validation_run_table().
 *
 * Returns: (transfer full) (nullable): the validation, or %NULL with @error set
 */
PlxValidation *plx_validation_run_file (const char *path,
                                        const char *engine,
                                        GError    **error);
/**
 * plx_validation_free:
 * @validation: (transfer full) (nullable): a validation
 *
 * Frees @validation.
 */
void           plx_validation_free (PlxValidation *validation);
/**
 * plx_validation_pool:
 * @tables: (array length=n_tables): validations of tables
 * @n_tables: the number of them
 *
 * Returns: (transfer full): all rows of several tables as one, with their summaries
 *   (source "pooled")
 */
PlxValidation *plx_validation_pool (PlxValidation *const *tables,
                                    guint                 n_tables);
/**
 * plx_validation_pooled_to_text:
 * @tables: (array length=n_tables): validations of tables
 * @n_tables: the number of them
 * @pooled: their plx_validation_pool()
 *
 * Returns: (transfer full): the pooled text: one line per table and the pooled
 *   summary
 */
char          *plx_validation_pooled_to_text (PlxValidation *const *tables,
                                              guint                 n_tables,
                                              const PlxValidation  *pooled);
/**
 * plx_validation_pooled_to_json:
 * @tables: (array length=n_tables): validations of tables
 * @n_tables: the number of them
 * @pooled: their plx_validation_pool()
 *
 * Returns: (transfer full): the pooled JSON: each table's plx_validation_to_json()
 *   and the pooled summary
 */
JsonNode      *plx_validation_pooled_to_json (PlxValidation *const *tables,
                                              guint                 n_tables,
                                              const PlxValidation  *pooled);
/**
 * plx_metric_to_string:
 * @metric: a metric
 *
 * Returns: (transfer none): its key in a case's measured object, as in #PlxMetric
 */
const char    *plx_metric_to_string (PlxMetric metric);
/**
 * plx_validation_to_json:
 * @validation: a validation
 *
 * Returns: (transfer full): the validation as validate --json prints it
 */
JsonNode      *plx_validation_to_json (const PlxValidation *validation);
/**
 * plx_validation_to_text:
 * @validation: a validation
 *
 * Returns: (transfer full): the validation as validate prints it
 */
char          *plx_validation_to_text (const PlxValidation *validation);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxValidation, plx_validation_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxValidationTable, plx_validation_table_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxValidationCase, plx_validation_case_free)

G_END_DECLS
