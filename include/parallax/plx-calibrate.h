/**
 * SECTION:plx-calibrate
 * @title: plx-calibrate.h
 * @short_description: a few global parameters of a GPU type fitted to published runs
 *
 * A few global parameters of a GPU type fitted to published runs (issue 10, point 8;
 * docs/calibration.md).
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "plx-report.h"
#include "plx-scenario.h"

G_BEGIN_DECLS

/**
 * SECTION:plx-validation
 * @title: Predictions held against a table of published measurements
 * @include: parallax/plx-calibrate.h
 * @short_description: predictions held against a table of published measurements
 *
 * Predictions held against a table of published measurements (docs/formats.md §2).
 */
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
 * PlxValidationFit:
 * @case_name: the case's name
 * @peak_memory_bytes: the predicted peak of the fullest GPU
 * @usable_bytes: one GPU's memory less the cluster's reserved bytes
 * @fits: whether @peak_memory_bytes is within @usable_bytes
 *
 * A case whose run was timed (it has a measured step time, MFU or throughput, so the
 * configuration ran on real GPUs) with whether Parallax predicts it fits in memory
 * (validate --memory; docs/accuracy.md). A run that ran and is predicted not to fit is
 * a memory model that is too pessimistic.
 */
typedef struct
{
  char    *case_name;
  guint64  peak_memory_bytes;
  guint64  usable_bytes;
  gboolean fits;
} PlxValidationFit;

/**
 * PlxValidation:
 * @source: the table's source
 * @file: the table's file name, without its directory
 * @engine: "analytical", "event" or "ir" (static string)
 * @rows: #PlxValidationRow
 * @summary: each metric's summary, by #PlxMetric
 * @performance: step times, MFUs and throughputs together (what "accuracy" means in
 *   README)
 * @fits: #PlxValidationFit, one per case with a measured step time, MFU or throughput
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
  GArray               *fits;
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

/**
 * plx_validation_count_fits:
 * @validation: a table's (or the pooled) predictions
 *
 * Returns: how many of @validation's fits are predicted to fit
 */
guint          plx_validation_count_fits (const PlxValidation *validation);
/**
 * plx_validation_memory_to_text:
 * @tables: (array length=n_tables): tables' predictions
 * @n_tables: how many
 *
 * validate --memory's text: each timed case's predicted peak memory against the
 * usable memory, and for each table how many of its timed runs are predicted to fit.
 *
 * Returns: (transfer full): the text
 */
char          *plx_validation_memory_to_text (PlxValidation *const *tables,
                                              guint                 n_tables);
/**
 * plx_validation_memory_to_json:
 * @validation: a table's (or the pooled) predictions
 * @with_cases: whether to list the cases (the pooled object counts only)
 *
 * validate --memory's JSON member "memory": `runs`, `predicted_to_fit` and, with
 * @with_cases, `cases` (`case`, `peak_memory_bytes`, `usable_bytes`, `fits`).
 *
 * Returns: (transfer full): the object
 */
JsonNode      *plx_validation_memory_to_json (const PlxValidation *validation,
                                              gboolean             with_cases);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxValidation, plx_validation_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxValidationTable, plx_validation_table_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxValidationCase, plx_validation_case_free)

/**
 * PlxCalParam:
 * @PLX_CAL_MATMUL_SCALE: factor on the matmul efficiency curves ("matmul_scale")
 * @PLX_CAL_MEMORY_SCALE: factor on the memory-bandwidth efficiency curve ("memory_scale")
 * @PLX_CAL_NETWORK_SCALE: factor on the inter-node link's efficiency curve ("network_scale")
 * @PLX_CAL_LAYER_OVERHEAD_S: fixed time per block and forward pass ("layer_overhead_s")
 * @PLX_CAL_OVERLAP_SLOWDOWN: compute slowed beside an overlapping collective
 *   ("overlap_slowdown")
 * @PLX_N_CAL: the number of parameters, not a parameter
 *
 * The parameters a calibration may fit; the quoted names are those of
 * plx_cal_param_to_string() and of a cluster's "calibration" object.
 */
typedef enum
{
  PLX_CAL_MATMUL_SCALE,
  PLX_CAL_MEMORY_SCALE,
  PLX_CAL_NETWORK_SCALE,
  PLX_CAL_LAYER_OVERHEAD_S,
  PLX_CAL_OVERLAP_SLOWDOWN,
  PLX_N_CAL
} PlxCalParam;

/**
 * PlxCalibration:
 * @preset: the cluster preset fitted
 * @n_comparisons: step times, MFUs and throughputs fitted
 * @fitted: which parameters were free
 * @value: each parameter's value after the fit
 * @std_error: from the covariance at the optimum; NAN if not determined
 * @mean_before_pct: mean |error| over the comparisons, uncalibrated
 * @mean_after_pct: the same with the fitted parameters
 * @iterations: the fit's iterations
 * @sources: char *, file names
 * @source_n: guint, each source's comparisons
 * @source_before_pct: double, each source's mean |error| before
 * @source_after_pct: double, each source's mean |error| after
 * @source_loso_pct: double, each source's mean |error| with the parameters fitted
 *   without it
 * @loso_mean_pct: over every comparison, each judged by the fit without its source
 *
 * A calibration. Per source (table file): comparisons, mean |error| before and
 * after, and with the parameters fitted without that source (leave-one-source-out;
 * NAN when it is the only source).
 */
typedef struct
{
  char     *preset;
  guint     n_comparisons;
  gboolean  fitted[PLX_N_CAL];
  double    value[PLX_N_CAL];
  double    std_error[PLX_N_CAL];
  double    mean_before_pct;
  double    mean_after_pct;
  guint     iterations;
  GPtrArray *sources;
  GArray    *source_n;
  GArray    *source_before_pct;
  GArray    *source_after_pct;
  GArray    *source_loso_pct;
  double     loso_mean_pct;
} PlxCalibration;

/**
 * plx_cal_param_to_string:
 * @param: a parameter
 *
 * Returns: (transfer none): its name: "matmul_scale", "memory_scale",
 *   "network_scale", "layer_overhead_s" or "overlap_slowdown"
 */
const char     *plx_cal_param_to_string (PlxCalParam param);
/**
 * plx_cal_params_parse:
 * @list: names separated by commas, as calibrate --fit takes them
 * @fit: (out caller-allocates) (array fixed-size=5): which parameters are free
 * @error: return location for a #GError, or %NULL
 *
 * Parses "matmul,memory,network,overhead" (any subset, and "overlap"; the full
 * names of plx_cal_param_to_string() too) into @fit.
 *
 * Returns: %TRUE on success; %FALSE with a %PLX_ERROR_INVALID_VALUE error for an
 *   unknown name or an empty list
 */
gboolean        plx_cal_params_parse (const char *list,
                                      gboolean    fit[PLX_N_CAL],
                                      GError    **error);
/**
 * plx_calibrate:
 * @tables: (array length=n_tables): validation tables
 * @n_tables: the number of tables
 * @preset: the cluster preset whose cases are fitted
 * @fit: (array fixed-size=5): which parameters are free
 * @error: return location for a #GError, or %NULL
 *
 * Fits the free parameters of the cases run on @preset with gsl_multifit_nlinear,
 * minimising the squared log ratios of predicted to measured speed, using the
 * analytical engine.
 *
 * Returns: (transfer full) (nullable): the calibration; %NULL with a
 *   %PLX_ERROR_INVALID_VALUE error when no case runs on @preset with a measured
 *   step time, MFU or throughput, or the fit does not converge
 */
PlxCalibration *plx_calibrate (PlxValidationTable *const *tables,
                               guint                      n_tables,
                               const char                *preset,
                               const gboolean             fit[PLX_N_CAL],
                               GError                   **error);
/**
 * plx_calibration_free:
 * @cal: (transfer full) (nullable): a calibration
 *
 * Frees @cal.
 */
void            plx_calibration_free (PlxCalibration *cal);
/**
 * plx_calibration_to_text:
 * @cal: a calibration
 *
 * Returns: (transfer full): the calibration as calibrate prints it, with units
 */
char           *plx_calibration_to_text (const PlxCalibration *cal);
/**
 * plx_calibration_to_json:
 * @cal: a calibration
 *
 * Returns: (transfer full): the calibration as calibrate --json prints it
 */
JsonNode       *plx_calibration_to_json (const PlxCalibration *cal);
/**
 * plx_calibration_cluster_json:
 * @cal: a calibration
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full) (nullable): the preset's cluster with a "calibration"
 *   object holding the fit; %NULL with @error set when the preset is not found
 */
JsonNode       *plx_calibration_cluster_json (const PlxCalibration *cal,
                                              GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxCalibration, plx_calibration_free)

G_END_DECLS
