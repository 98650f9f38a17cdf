/* plx-search-shard.h: a search split over processes (docs/sweeps.md). Each shard
 * evaluates every n-th work item of the enumeration (PlxSearchOptions.shard) and writes
 * its closed-form results to a part file, one JSON object a line; the merge reads all
 * parts, checks that they belong together, and ranks their union exactly as one
 * unsharded plx_search_run would. */
#pragma once

#include <json-glib/json-glib.h>

#include "parallax/plx-search.h"

G_BEGIN_DECLS

/* Which revision of the part file this is (docs/formats.md "search --shard"). */
#define PLX_SEARCH_PART_VERSION 1

typedef struct
{
  PlxSearchCandidate candidate;
  guint              n_gpus;
  double             step_time_s;        /* the closed form's */
  double             mfu;
  double             tokens_per_s;
  guint64            peak_memory_bytes;
} PlxSearchPartRow;

typedef struct
{
  char             *path;
  JsonObject       *header;     /* the first line: context, options, shard */
  guint             shard;      /* 0-based */
  guint             n_shards;
  PlxSearchOptions  options;    /* as the shard searched (n_threads and top_k not kept) */
  GArray           *rows;       /* PlxSearchPartRow */
  guint64           configs_evaluated, configs_valid, configs_fit;
  guint64           pruned_model_states, pruned_activations;
  double            elapsed_s;
} PlxSearchPart;

/* Writes a shard's results (options->n_shards > 0) to `path`, replaced whole so that a
 * killed job leaves no half file. `context` (may be NULL) goes into the header as
 * given: what the merge needs to rebuild the scenario, and what must agree across
 * parts. */
gboolean       plx_search_part_write (const char             *path,
                                      JsonObject             *context,
                                      const PlxSearchOptions *options,
                                      const PlxSearch        *search,
                                      GError                **error);
PlxSearchPart *plx_search_part_read (const char *path,
                                     GError    **error);
void           plx_search_part_free (PlxSearchPart *part);
/* The header member `name` ("context" holds the caller's), or NULL. */
JsonNode      *plx_search_part_get_context (const PlxSearchPart *part,
                                            const char          *name);

/* The union of parts ranked as one search: every shard 1..N exactly once, headers
 * equal but for the shard, else an error naming the file. `base` is the strategy the
 * scenario gives (the search's base); top_k as PlxSearchOptions.top_k. */
PlxSearch     *plx_search_merge (PlxSearchPart *const *parts,
                                 guint                 n_parts,
                                 const PlxModel       *model,
                                 const PlxCluster     *cluster,
                                 const PlxStrategy    *base,
                                 guint                 top_k,
                                 GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxSearchPart, plx_search_part_free)

G_END_DECLS
