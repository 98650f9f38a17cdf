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

#include "plx-validation.h"

G_BEGIN_DECLS

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
