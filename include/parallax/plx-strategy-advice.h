/* plx-strategy-advice.h: what a user can change next. The values of one strategy key
 * that are valid with the rest (for sliders), the nearest one-key changes that make an
 * invalid strategy valid, the one-key changes that make a strategy fit in memory, and
 * a strategy kept and adapted to another model or cluster. Rules: docs/advice.md. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-scenario.h"
#include "plx-strategy.h"

G_BEGIN_DECLS

typedef struct
{
  char     *key;          /* strategy key ("tp", "schedule", ...) or "num_nodes" (cluster) */
  JsonNode *value;        /* the new value */
  char     *label;        /* "PP 4", "Schedule 1F1B", "ZeRO 1" */
  double    step_time_s;  /* closed-form step time with the change */
  double    peak_memory_bytes;
  gboolean  fits;
} PlxAdviceFix;

void          plx_advice_fix_free (PlxAdviceFix *fix);

/* Values (guint64, ascending) of `key` ("tp", "pp", "cp", "ep", "virtual_stages",
 * "micro_batch_size") with which `strategy` (resolved or not; dp re-derived when a
 * degree changes) resolves. */
GArray       *plx_advice_valid_values (const PlxModel    *model,
                                       const PlxCluster  *cluster,
                                       const PlxStrategy *strategy,
                                       const char        *key);

/* For a strategy that does not resolve: up to `max` one-key changes that make it
 * resolve, keys the error names first, then nearest first. */
GPtrArray    *plx_advice_nearest_fixes (const PlxModel    *model,
                                        const PlxCluster  *cluster,
                                        const PlxStrategy *strategy,
                                        guint              max);

/* For a resolved strategy that does not fit: up to `max` one-key changes after which
 * it resolves and fits, fastest first. */
GPtrArray    *plx_advice_fit_fixes (const PlxModel    *model,
                                    const PlxCluster  *cluster,
                                    const PlxStrategy *strategy,
                                    guint              max);

/* The strategy JSON for another model or cluster: every key still valid stays, each
 * invalid one moves to its nearest valid value; dp is removed (re-derived). NULL if
 * `strategy` is not a strategy object. */
JsonNode     *plx_advice_adapt_strategy (const PlxModel   *model,
                                         const PlxCluster *cluster,
                                         JsonNode         *strategy);

/* Whether an error message names a strategy key as a word ("strategy.tp", "tp*pp"). */
gboolean      plx_advice_message_names (const char *message,
                                        const char *key);

/* "GPT-3 175B on 64 A100-SXM4-80GB, TP 8 × PP 8 × DP 1, interleaved 1F1B ×3". */
char         *plx_scenario_describe (const PlxScenario *scenario);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxAdviceFix, plx_advice_fix_free)

G_END_DECLS
