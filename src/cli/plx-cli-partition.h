/* plx-cli-partition.h: partition on a transformer scenario (docs/partition.md). */
#pragma once

#include "parallax/parallax.h"

/* Prints the "auto" split of the scenario's layers over its stages, each stage's
 * compute, sends and memory, and the step with it, with the framework's uniform split
 * and as pure data parallelism; returns the exit status. */
int plx_cli_partition_scenario (const PlxScenario *sc,
                                gboolean           json);
