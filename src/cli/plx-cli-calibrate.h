/* plx-cli-calibrate.h: `parallax-cli calibrate` (docs/calibration.md). */
#pragma once

int plx_cli_calibrate (int argc, char **argv);
/* The --nccl-tests form (plx-cli-calibrate-nccl.c). */
int plx_cli_calibrate_nccl (int argc, char **argv);
