/* plx-cli-sweep.h: parallax-cli sweep expand | run-task | merge (docs/sweeps.md). */
#pragma once

int plx_cli_sweep (int    argc,
                   char **argv);
