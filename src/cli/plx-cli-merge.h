/* plx-cli-merge.h: search --shard I/N --out PART.jsonl, and merge PART... (docs/sweeps.md). */
#pragma once

#include <json-glib/json-glib.h>

#include "parallax/plx-scenario.h"
#include "parallax/plx-search.h"

/* "I/N" with 1 <= I <= N <= 1000000; `shard` is 0-based. */
gboolean plx_cli_parse_shard (const char *text,
                              guint      *shard,
                              guint      *n_shards);
/* Runs the shard `options` names and writes its part: `applied` is the scenario JSON
 * with the overrides applied, `dir` the directory its relative paths are read from,
 * `path` the scenario file (NULL: the built-in default); `top` what merge shows by
 * default. Returns the exit status. */
int      plx_cli_search_part (const PlxScenario      *scenario,
                              JsonNode               *applied,
                              const char             *dir,
                              const char             *path,
                              const PlxSearchOptions *options,
                              guint                   top,
                              const char             *out);
/* parallax-cli merge PART.jsonl... [--top K] [--csv OUT] [--json] */
int      plx_cli_merge (int    argc,
                        char **argv);
