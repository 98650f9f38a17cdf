/* plx-cli-smallest-fit.h: a model given without a scenario runs on the fewest whole
 * nodes of the cluster on which some strategy fits, with the fastest there (issue 37:
 * a 2B model is not GPT-3's 64 GPUs). */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* A copy of the scenario `applied` running the search's fastest strategy on the
 * fewest whole nodes of its cluster where one fits, renamed to say so; where none
 * fits, the scenario as it is, renamed to say that; NULL when it does not load. */
JsonNode *plx_cli_smallest_fit (JsonNode   *applied,
                                const char *dir,
                                const char *source);

G_END_DECLS
