/* plx-cli-gemm-match.h: printing the GEMM match of `calibrate --kineto --scenario`
 * and the measured GEMMs `simulate` used (docs/calibration.md). */
#pragma once

#include "parallax/parallax.h"
#include "calibrate/plx-kineto-match.h"

void      plx_cli_gemm_match_print (const PlxGemmMatch *match);
JsonNode *plx_cli_gemm_match_to_json (const PlxGemmMatch *match);
/* simulate: the scenario's GEMM products the cluster's measured table times, with the
 * curves' time beside; nothing when the cluster has no table. */
void      plx_cli_measured_gemms_print (const PlxScenario *sc);
void      plx_cli_measured_gemms_add_json (const PlxScenario *sc,
                                           JsonObject        *out);
