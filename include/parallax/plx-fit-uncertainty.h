/* plx-fit-uncertainty.h: calibration fits written with their own uncertainty, as the
 * distributions the uncertainty engine reads (calibrate --with-uncertainty;
 * docs/calibration.md "The fits' own uncertainty", docs/uncertainty.md). */
#pragma once

#include <json-glib/json-glib.h>

#include "plx-nccl-tests.h"
#include "plx-sweep-fit.h"

G_BEGIN_DECLS

/* A copy of fit->cluster with the fitted link's latency_s as {"mean": latency,
 * "sd": its standard error} (when fitted) and, when the files repeat each size
 * (in place and out of place), the link's curve scale as {"mean": 1, "sd": the
 * repeats' relative spread}: calibration.network_scale for the inter-node link,
 * intra_node.bw_Bps {"mean": peak, "sd": peak x spread} for NVLink (it has no
 * scale of its own). */
JsonNode *plx_nccl_fit_uncertain_cluster (const PlxNcclFit *fit);

/* Sets calibration.matmul_scale (the curve written as gpu.efficiency.matmul) or
 * calibration.memory_scale (gpu.efficiency.memory) in `cluster` to {"mean": m,
 * "sd": m x e_max_se / e_max}, m the scale there before (1 if none); FALSE (nothing set) when the fit has no standard error
 * or writes no such curve. */
gboolean  plx_sweep_fit_apply_uncertainty (JsonNode          *cluster,
                                           const PlxSweepFit *fit);

G_END_DECLS
