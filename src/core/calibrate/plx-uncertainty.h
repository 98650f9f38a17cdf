/* plx-uncertainty.h: the analytical engine run over draws of the cluster inputs given
 * as ranges or distributions (plx-cluster-inputs.h), and the sensitivity of the step to every input
 * (docs/uncertainty.md). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "parallax/plx-cluster.h"
#include "hardware/plx-cluster-inputs.h"
#include "parallax/plx-model.h"
#include "parallax/plx-report.h"
#include "parallax/plx-strategy.h"

G_BEGIN_DECLS

typedef struct
{
  guint   samples;
  guint64 seed;
  guint   n_uncertain;       /* 0: every draw is the nominal cluster */
  double  step_mean_s, step_sd_s;
  double  step_p5_s, step_p50_s, step_p95_s;
  double  mfu_p5, mfu_p50, mfu_p95;
  double  oom_probability;   /* draws whose peak memory is past the usable HBM */
} PlxUncertaintyResult;

#define PLX_UNCERTAINTY_DEFAULT_SEED 15

/* `samples` draws (1 .. 10 000 000) of the cluster's uncertain inputs (mt19937
 * seeded with `seed`), each run through the analytical engine. */
gboolean plx_uncertainty_sample (const PlxModel       *model,
                                 const PlxCluster     *cluster,
                                 const PlxStrategy    *strategy,
                                 guint                 samples,
                                 guint64               seed,
                                 PlxUncertaintyResult *result,
                                 GError              **error);

typedef struct
{
  guint  input;
  double value;             /* nominal */
  double step_elasticity;   /* d ln step / d ln x, central differences at +-1 % */
  double memory_elasticity; /* d ln peak memory / d ln x */
  /* HBM use: the peak over the usable HBM (capacity less reserved), the share that
   * decides whether the step fits; peak memory alone depends on no cluster input. */
  double hbm_use_elasticity; /* d ln HBM use / d ln x */
  double step_low_s, step_high_s; /* the step at x - 1 % and x + 1 % */
  double hbm_use_low, hbm_use_high; /* HBM use at x - 1 % and x + 1 % */
  double sobol_first;       /* first-order Sobol index of the step; NaN unless the input is uncertain */
  double sobol_total;       /* total-effect index of the step; NaN likewise */
  double sobol_first_hbm_use, sobol_total_hbm_use; /* the same for HBM use */
} PlxSensitivity;

/* A report's HBM use: peak memory over usable HBM (1 byte if none is usable). */
double plx_report_hbm_use (const PlxReport *report);

/* One entry per input whose nominal value is not 0 (the elasticity of a term that is
 * off is not defined), sorted by |step_elasticity|, largest first. With uncertain
 * inputs and samples > 0, their Sobol indices on the step and on HBM use too
 * (samples * (k + 2) engine runs). */
GArray *plx_sensitivity_run (const PlxModel    *model,
                             const PlxCluster  *cluster,
                             const PlxStrategy *strategy,
                             guint              samples,
                             guint64            seed,
                             GError           **error);

G_END_DECLS
