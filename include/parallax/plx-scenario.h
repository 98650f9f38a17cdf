/**
 * SECTION:plx-scenario
 * @title: plx-scenario.h
 * @short_description: a model, a cluster and a strategy, from a scenario file
 *
 * A model, a cluster and a strategy, from a scenario file (FORMATS.md §1).
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-strategy.h"

G_BEGIN_DECLS

/**
 * PlxScenario:
 * @name: the scenario's name key, or else the model's name
 * @source: file path, or "built-in default"
 * @model: the model
 * @cluster: the cluster
 * @strategy: the strategy, resolved
 * @document: the scenario object as given
 * @base_dir: the folder its relative paths start from
 *
 * A model, a cluster and a strategy. @document and @base_dir are kept so that a
 * change of one key can be applied as the CLI's overrides are and the scenario
 * rebuilt (plx-gi.h, plx_scenario_update_strategy()).
 */
typedef struct _PlxScenario
{
  char        *name;
  char        *source;
  PlxModel    *model;
  PlxCluster  *cluster;
  PlxStrategy *strategy;
  JsonNode    *document;
  char        *base_dir;
} PlxScenario;

/**
 * plx_scenario_new_from_json:
 * @node: the scenario object; copied, not taken
 * @base_dir: (nullable): the folder that resolves relative hf_config and schedule
 *   file paths; %NULL for the current folder
 * @source: the name of the file in errors
 * @error: return location for a #GError, or %NULL
 *
 * Builds a scenario, its strategy resolved.
 *
 * Returns: (transfer full) (nullable): the scenario, or %NULL with @error set
 *   naming the file, key and value
 */
PlxScenario *plx_scenario_new_from_json (JsonNode   *node,
                                         const char *base_dir,
                                         const char *source,
                                         GError    **error);
/**
 * plx_scenario_new_from_file:
 * @path: a scenario file, or "-" for standard input
 * @error: return location for a #GError, or %NULL
 *
 * Reads and builds a scenario; relative paths in it start from the file's folder.
 *
 * Returns: (transfer full) (nullable): the scenario, or %NULL with @error set
 */
PlxScenario *plx_scenario_new_from_file (const char *path,
                                         GError    **error);
/**
 * plx_scenario_new_unresolved:
 * @node: the scenario object; copied, not taken
 * @base_dir: (nullable): as for plx_scenario_new_from_json()
 * @source: the name of the file in errors
 * @error: return location for a #GError, or %NULL
 *
 * As plx_scenario_new_from_json(), with the strategy as the file gives it, not
 * resolved (dp and seq_length may be 0): for advice on a strategy that does not
 * resolve.
 *
 * Returns: (transfer full) (nullable): the scenario, or %NULL with @error set
 */
PlxScenario *plx_scenario_new_unresolved (JsonNode   *node,
                                          const char *base_dir,
                                          const char *source,
                                          GError    **error);
/**
 * plx_scenario_read_json:
 * @path: a scenario file, or "-" for standard input
 * @error: return location for a #GError, or %NULL
 *
 * Reads the scenario file's JSON, for callers that apply overrides before building.
 *
 * Returns: (transfer full) (nullable): the JSON, or %NULL with @error set
 */
JsonNode    *plx_scenario_read_json (const char *path,
                                     GError    **error);
/**
 * plx_scenario_default_json:
 *
 * Returns: (transfer full): the built-in default scenario's JSON
 */
JsonNode    *plx_scenario_default_json (void);
/**
 * plx_scenario_copy:
 * @scenario: a scenario
 *
 * Returns: (transfer full): an independent copy of @scenario
 */
PlxScenario *plx_scenario_copy (const PlxScenario *scenario);
/**
 * plx_scenario_free:
 * @scenario: (transfer full) (nullable): a scenario
 *
 * Frees @scenario.
 */
void         plx_scenario_free (PlxScenario *scenario);
/**
 * plx_scenario_describe:
 * @scenario: a resolved scenario
 *
 * Says what a resolved scenario runs, for titles: model, GPU count and name, the
 * degrees (CP and EP when above 1), schedule and chunks:
 * "gpt3-175b on 64 A100-SXM4-80GB, TP 8 × PP 8 × DP 1, interleaved 1F1B ×3".
 *
 * Returns: (transfer full): the description
 */
char        *plx_scenario_describe (const PlxScenario *scenario);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxScenario, plx_scenario_free)

G_END_DECLS
