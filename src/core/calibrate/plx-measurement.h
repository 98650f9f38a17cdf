/* plx-measurement.h: a user's measurement files (nccl-tests output, GEMM and
 * bandwidth sweeps, a Kineto trace) told apart by content and fitted with the same
 * core calls as `parallax-cli calibrate`, returned as the calibrated cluster plus
 * what a chart of the fit needs: measured points, the fitted curve, the base
 * cluster's curve, and a residual per measurement (issue 15; docs/calibration.md
 * "In the window"). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "plx-kineto-match.h"

G_BEGIN_DECLS

typedef enum
{
  PLX_MEASUREMENT_NCCL_TESTS,
  PLX_MEASUREMENT_GEMM_SWEEP,
  PLX_MEASUREMENT_MEMBW_SWEEP,
  PLX_MEASUREMENT_KINETO,
} PlxMeasurementKind;

/* The kind of the file at `path` from its content: a JSON object is a Kineto trace,
 * nccl-tests' banner or column header marks its output, a CSV header with m, n and k
 * columns is a GEMM sweep, one with a bytes (size) column a bandwidth sweep. Anything
 * else: PLX_ERROR_UNSUPPORTED naming the file and what was expected. */
gboolean    plx_measurement_detect (const char         *path,
                                    PlxMeasurementKind *kind,
                                    GError            **error);
/* "nccl-tests output", "GEMM sweep", "bandwidth sweep", "Kineto trace". */
const char *plx_measurement_kind_name (PlxMeasurementKind kind);
/* Whether two kinds fit together in one calibration (the CLI's rule: nccl-tests,
 * sweeps - GEMM and bandwidth together - or a trace, one kind a run). */
gboolean    plx_measurement_kinds_combine (PlxMeasurementKind a,
                                           PlxMeasurementKind b);

typedef enum
{
  PLX_CAL_X_BYTES,
  PLX_CAL_X_FLOPS,
} PlxCalXUnit;

typedef enum
{
  PLX_CAL_Y_BANDWIDTH,   /* B/s */
  PLX_CAL_Y_EFFICIENCY,  /* 0..1 of the peak */
} PlxCalYUnit;

typedef struct
{
  double x, y;
} PlxCalXY;

typedef struct
{
  char   *label;    /* "all_reduce", "bf16", "GEMM ops" */
  GArray *points;   /* PlxCalXY: measured */
  GArray *own;      /* PlxCalXY: a link op's own curve (efficiency_by_collective), sampled
                     * in log x as `fitted`; empty if the op reads the link's curve */
} PlxCalSeries;

typedef struct
{
  guint  series;        /* index into PlxCalCurve.series */
  double size;          /* the message in bytes, the GEMM's FLOPs, the kernel's bytes */
  double measured;      /* a time in s (residual_is_time) or an efficiency 0..1 */
  double fitted;        /* the same from the calibrated cluster */
  double residual_pct;  /* (fitted - measured) / measured x 100 for times (the CLI's sign);
                         * (measured / fitted - 1) x 100 for efficiencies (plx-sweep-fit.h) */
  double own_residual_pct;  /* a link's: the same against the op's own curve
                             * (efficiency_by_collective, the CLI's own_residual_pct); NAN if none */
} PlxCalResidual;

typedef enum
{
  PLX_CAL_CURVE_INTRA_NODE,  /* the link curves fitted to nccl-tests */
  PLX_CAL_CURVE_INTER_NODE,
  PLX_CAL_CURVE_MATMUL,      /* GEMM efficiency of one dtype (`dtype`) */
  PLX_CAL_CURVE_MEMORY,      /* memory-bound kernels' HBM efficiency */
} PlxCalCurveRole;

typedef struct
{
  PlxCalCurveRole role;
  char        *dtype;           /* "bf16", "fp8", ... for MATMUL; NULL otherwise */
  PlxCalXUnit  x_unit;
  PlxCalYUnit  y_unit;
  gboolean     residual_is_time;
  GArray      *fitted;          /* PlxCalXY: the calibrated curve, sampled in log x */
  GArray      *before;          /* PlxCalXY: the base cluster's curve; empty if it has none */
  GPtrArray   *series;          /* PlxCalSeries * */
  GArray      *residuals;       /* PlxCalResidual, by series then size as measured */
  /* The fitted parameters shown beside the chart; NAN where they do not apply. */
  double       peak_Bps;                     /* a link's written peak */
  double       latency_s, latency_se_s;      /* a link's per-step latency (se NAN: not fitted) */
  double       e_max, e_max_se, x_half, x_half_se;  /* a sweep's curve (plx-sweep-fit.h) */
} PlxCalCurve;

typedef struct
{
  PlxMeasurementKind kind;      /* of the first file */
  GPtrArray         *curves;    /* PlxCalCurve * */
  JsonNode          *cluster;   /* the calibrated cluster (a full cluster object) */
  guint              gpus_per_node, nodes;  /* the nccl-tests group fitted; 0 for other kinds */
  /* A trace's GEMMs matched to the scenario's (DistSim's per-op times, written into
   * `cluster` as gpu.measured_gemms); NULL: no trace, or no training scenario given. */
  PlxGemmMatch      *gemm_match;
} PlxMeasuredFit;

/* Fits `paths` (of `kinds`, which must combine) on `base_cluster` (a cluster object,
 * a preset reference with overrides is expanded), as `calibrate --nccl-tests`
 * (gpus_per_node x nodes the group measured), `--gemm/--membw` and `--kineto --out`
 * do. At most one GEMM, one bandwidth sweep and one trace. With
 * `layout_from_files`, nccl-tests files that list their ranks ("#  Rank" lines) on
 * hosts give the group instead (ranks / hosts per node, hosts nodes). With a
 * training `model` and `strategy` (both or neither), a trace's GEMMs are also
 * matched to the scenario's, as `calibrate --kineto --scenario` does. */
PlxMeasuredFit *plx_measured_fit (JsonNode                 *base_cluster,
                                  const char               *base_name,
                                  const char *const        *paths,
                                  const PlxMeasurementKind *kinds,
                                  guint                     n_paths,
                                  guint                     gpus_per_node,
                                  guint                     nodes,
                                  gboolean                  layout_from_files,
                                  const PlxModel           *model,
                                  const PlxStrategy        *strategy,
                                  GError                  **error);
void            plx_measured_fit_free (PlxMeasuredFit *fit);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxMeasuredFit, plx_measured_fit_free)

G_END_DECLS
