/* plx-calibrate.h: a few global parameters of a GPU type fitted to published runs
 * (issue 10, point 8; docs/calibration.md). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "plx-validation.h"

G_BEGIN_DECLS

typedef enum
{
  PLX_CAL_MATMUL_SCALE,     /* factor on the matmul efficiency curves */
  PLX_CAL_MEMORY_SCALE,     /* factor on the memory-bandwidth efficiency curve */
  PLX_CAL_NETWORK_SCALE,    /* factor on the inter-node link's efficiency curve */
  PLX_CAL_LAYER_OVERHEAD_S, /* fixed time per block and forward pass */
  PLX_CAL_OVERLAP_SLOWDOWN, /* compute slowed beside an overlapping collective */
  PLX_N_CAL
} PlxCalParam;

typedef struct
{
  char     *preset;
  guint     n_comparisons;         /* step times, MFUs and throughputs fitted */
  gboolean  fitted[PLX_N_CAL];     /* which parameters were free */
  double    value[PLX_N_CAL];
  double    std_error[PLX_N_CAL];  /* from the covariance at the optimum; NAN if not determined */
  double    mean_before_pct;       /* mean |error| over the comparisons, uncalibrated */
  double    mean_after_pct;
  guint     iterations;
  /* Per source (table file): comparisons, mean |error| before and after, and with the
   * parameters fitted without that source (leave-one-source-out; NAN when it is the
   * only source). */
  GPtrArray *sources;              /* char *, file names */
  GArray    *source_n;             /* guint */
  GArray    *source_before_pct;    /* double */
  GArray    *source_after_pct;     /* double */
  GArray    *source_loso_pct;      /* double */
  double     loso_mean_pct;        /* over every comparison, each judged by the fit without its source */
} PlxCalibration;

const char     *plx_cal_param_to_string (PlxCalParam param);
/* Parses "matmul,memory,network,overhead" (any subset) into `fit`. */
gboolean        plx_cal_params_parse (const char *list,
                                      gboolean    fit[PLX_N_CAL],
                                      GError    **error);
/* Fits the free parameters of the cases run on `preset` with
 * gsl_multifit_nlinear, minimising the squared log ratios of predicted to measured
 * speed, using the analytical engine. */
PlxCalibration *plx_calibrate (PlxValidationTable *const *tables,
                               guint                      n_tables,
                               const char                *preset,
                               const gboolean             fit[PLX_N_CAL],
                               GError                   **error);
void            plx_calibration_free (PlxCalibration *cal);
char           *plx_calibration_to_text (const PlxCalibration *cal);
JsonNode       *plx_calibration_to_json (const PlxCalibration *cal);
/* The preset's cluster with a "calibration" object holding the fit. */
JsonNode       *plx_calibration_cluster_json (const PlxCalibration *cal,
                                              GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxCalibration, plx_calibration_free)

G_END_DECLS
