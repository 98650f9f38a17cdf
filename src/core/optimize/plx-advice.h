/* plx-advice.h: what a user can change next. The values of one strategy key that are
 * valid with the rest (for sliders), the nearest one-key changes that make an invalid
 * strategy valid, the one-key changes that make a strategy fit in memory, and a
 * strategy kept and adapted to another model or cluster. Rules, candidate sets and
 * bounds: docs/advice.md. Plain functions of their arguments: no globals, safe from
 * any thread. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "parallax/plx-cluster.h"
#include "parallax/plx-model.h"
#include "parallax/plx-scenario.h"
#include "parallax/plx-strategy.h"

G_BEGIN_DECLS

typedef struct
{
  char     *key;          /* strategy key ("tp", "schedule", "dp", ...) or "num_nodes" (cluster) */
  JsonNode *value;        /* the new value: an integer, a string (schedule, recompute) or a boolean */
  char     *label;        /* "PP 4", "Schedule 1F1B", "ZeRO 1", "3 nodes (24 GPUs)" */
  double    step_time_s;  /* closed-form step time with the change */
  double    peak_memory_bytes;
  gboolean  fits;
} PlxAdviceFix;

void          plx_advice_fix_free (PlxAdviceFix *fix);

/* Values (guint64, ascending) of `key` ("tp", "pp", "cp", "ep", "virtual_stages",
 * "micro_batch_size") with which `strategy` (resolved or not; dp re-derived when TP,
 * PP or CP changes) resolves. The current value need not be valid. */
GArray       *plx_advice_valid_values (const PlxModel    *model,
                                       const PlxCluster  *cluster,
                                       const PlxStrategy *strategy,
                                       const char        *key);

/* For a strategy that does not resolve: up to `max` one-key changes that make it
 * resolve, keys the error names first, then nearest first. Empty if it resolves. */
GPtrArray    *plx_advice_nearest_fixes (const PlxModel    *model,
                                        const PlxCluster  *cluster,
                                        const PlxStrategy *strategy,
                                        guint              max);

/* For a strategy that resolves but does not fit: up to `max` one-key changes after
 * which it resolves and fits, the smallest such change of each key, fastest first.
 * Empty if it fits or does not resolve. */
GPtrArray    *plx_advice_fit_fixes (const PlxModel    *model,
                                    const PlxCluster  *cluster,
                                    const PlxStrategy *strategy,
                                    guint              max);

/* Makes the change `fix` stands for in a scenario's strategy and cluster objects: sets
 * the key (num_nodes in `cluster`), drops "dp" when a degree or the node count changes
 * (re-derived), and sets "virtual_stages" to 1 with a schedule other than
 * interleaved-1f1b. FALSE (nothing changed) for a num_nodes fix without `cluster`. */
gboolean      plx_advice_fix_apply (const PlxAdviceFix *fix,
                                    JsonObject         *strategy,
                                    JsonObject         *cluster);

/* The strategy JSON for another model or cluster: every key still valid stays, each
 * invalid one moves to its nearest valid value; dp is removed (re-derived). NULL if
 * `strategy` is not a strategy object. The result resolves whenever the ordered
 * adaptation or one nearest fix after it can make it. */
JsonNode     *plx_advice_adapt_strategy (const PlxModel   *model,
                                         const PlxCluster *cluster,
                                         JsonNode         *strategy);

/* For a resolved strategy whose ZeRO stage saves no memory (it shards over DP x CP
 * ranks, or a shard group of them, and there is one): why, for beside the setting.
 * NULL when ZeRO is off or has an effect. */
char         *plx_advice_zero_note (const PlxStrategy *strategy);
/* Whether an error message names a strategy key as a word ("strategy.tp", "tp*pp"). */
gboolean      plx_advice_message_names (const char *message,
                                        const char *key);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxAdviceFix, plx_advice_fix_free)

G_END_DECLS
