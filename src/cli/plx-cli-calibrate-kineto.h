/* plx-cli-calibrate-kineto.h: `parallax-cli calibrate --kineto` (docs/calibration.md,
 * "From a profiler trace"). */
#pragma once

int plx_cli_calibrate_kineto (int argc, char **argv);
