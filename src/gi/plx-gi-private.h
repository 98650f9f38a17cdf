/* plx-gi-private.h: what the files of the bindable layer share; not installed. */
#pragma once

#include "parallax/plx-gi.h"

/* Moves `replacement`'s contents into `scenario` (whose callers keep their pointer)
 * and frees the old contents with `replacement`'s shell. */
void plx_gi_scenario_replace (PlxScenario *scenario,
                              PlxScenario *replacement);
