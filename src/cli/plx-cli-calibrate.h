/* plx-cli-calibrate.h: `parallax-cli calibrate` (docs/calibration.md). */
#pragma once

int plx_cli_calibrate (int argc, char **argv);
