/* plx-cli-calibrate-gemm.h: `parallax-cli calibrate --gemm/--membw` (docs/calibration.md
 * "From GEMM and bandwidth sweeps"). */
#pragma once

#include <glib.h>

/* Whether the command line asks for a sweep fit (--gemm or --membw). */
gboolean plx_cli_calibrate_gemm_wanted (int argc, char **argv);
int      plx_cli_calibrate_gemm (int argc, char **argv);
