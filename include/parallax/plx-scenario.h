/* plx-scenario.h: a model, a cluster and a strategy, from a scenario file (FORMATS.md §1). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-strategy.h"

G_BEGIN_DECLS

typedef struct _PlxScenario
{
  char        *name;
  char        *source;   /* file path, or "built-in default" */
  PlxModel    *model;
  PlxCluster  *cluster;
  PlxStrategy *strategy; /* resolved */
  /* The scenario object as given and the folder its relative paths start from, so
   * that a change of one key can be applied as the CLI's overrides are and the
   * scenario rebuilt (plx-gi.h, plx_scenario_update_strategy). */
  JsonNode    *document;
  char        *base_dir;
} PlxScenario;

/* `base_dir` resolves relative hf_config paths; `source` names the file in errors. */
PlxScenario *plx_scenario_new_from_json (JsonNode   *node,
                                         const char *base_dir,
                                         const char *source,
                                         GError    **error);
PlxScenario *plx_scenario_new_from_file (const char *path,
                                         GError    **error);
/* As plx_scenario_new_from_json, with the strategy as the file gives it, not resolved
 * (dp and seq_length may be 0): for advice on a strategy that does not resolve. */
PlxScenario *plx_scenario_new_unresolved (JsonNode   *node,
                                          const char *base_dir,
                                          const char *source,
                                          GError    **error);
/* The scenario file's JSON, for callers that apply overrides before building. */
JsonNode    *plx_scenario_read_json (const char *path,
                                     GError    **error);
JsonNode    *plx_scenario_default_json (void);
PlxScenario *plx_scenario_copy (const PlxScenario *scenario);
void         plx_scenario_free (PlxScenario *scenario);
/* What a resolved scenario runs, for titles: model, GPU count and name, the degrees
 * (CP and EP when above 1), schedule and chunks:
 * "gpt3-175b on 64 A100-SXM4-80GB, TP 8 × PP 8 × DP 1, interleaved 1F1B ×3". */
char        *plx_scenario_describe (const PlxScenario *scenario);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxScenario, plx_scenario_free)

G_END_DECLS
