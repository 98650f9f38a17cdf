/* A scenario through the bindable API (plx-gi.h): loading, changing the strategy
 * and simulating. A change is made to the scenario's JSON and the scenario rebuilt
 * from it, so that it is checked by the same code, and gives the same numbers, as
 * the CLI's overrides of that key. */
#include <math.h>

#include "parallax/parallax.h"

#include "plx-gi-private.h"
#include "base/plx-json.h"
#include "ir/plx-ir-lower.h"

/**
 * plx_scenario_new_default: (constructor)
 *
 * The built-in scenario that the GUI opens with and that `parallax-cli simulate`
 * runs without a file (GPT-3 175B on 64 A100-80GB, TP 8 × PP 8, interleaved 1F1B).
 *
 * Returns: (transfer full): the default scenario
 */
PlxScenario *
plx_scenario_new_default (void)
{
  g_autoptr (JsonNode) node = plx_scenario_default_json ();
  g_autofree char *dir = g_get_current_dir ();
  g_autoptr (GError) error = NULL;
  PlxScenario *sc = plx_scenario_new_from_json (node, dir, "built-in default scenario", &error);

  /* Built in and tested: failing to resolve it is a bug, not a user's mistake. */
  if (sc == NULL)
    g_error ("the built-in default scenario does not resolve: %s", error->message);
  return sc;
}

/**
 * plx_scenario_new_from_string: (constructor)
 * @json: a scenario (docs/formats.md §1) as JSON text
 * @base_dir: (nullable) (type filename): where relative paths in it start; %NULL
 *   for the current folder
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the scenario, or %NULL with @error
 */
PlxScenario *
plx_scenario_new_from_string (const char *json,
                              const char *base_dir,
                              GError    **error)
{
  g_autoptr (JsonNode) node = NULL;
  g_autofree char *dir = base_dir != NULL ? g_strdup (base_dir) : g_get_current_dir ();

  g_return_val_if_fail (json != NULL, NULL);
  node = plx_json_parse_data (json, -1, "scenario string", error);
  if (node == NULL)
    return NULL;
  return plx_scenario_new_from_json (node, dir, "scenario string", error);
}

/**
 * plx_scenario_get_name:
 * @scenario: a #PlxScenario
 *
 * Returns: (transfer none): the scenario's name, or its model's when the file gives none
 */
const char *
plx_scenario_get_name (const PlxScenario *scenario)
{
  return scenario->name;
}

/**
 * plx_scenario_get_source:
 * @scenario: a #PlxScenario
 *
 * Returns: (transfer none): the file it was read from, or what else it came from
 *   ("built-in default scenario", "scenario string")
 */
const char *
plx_scenario_get_source (const PlxScenario *scenario)
{
  return scenario->source;
}

/**
 * plx_scenario_get_model:
 * @scenario: a #PlxScenario
 *
 * Returns: (transfer none): the model, owned by the scenario until it changes
 */
const PlxModel *
plx_scenario_get_model (const PlxScenario *scenario)
{
  return scenario->model;
}

/**
 * plx_scenario_get_cluster:
 * @scenario: a #PlxScenario
 *
 * Returns: (transfer none): the cluster, owned by the scenario until it changes
 */
const PlxCluster *
plx_scenario_get_cluster (const PlxScenario *scenario)
{
  return scenario->cluster;
}

/**
 * plx_scenario_get_strategy:
 * @scenario: a #PlxScenario
 *
 * Returns: (transfer none): the strategy as resolved (dp and seq_length filled in),
 *   owned by the scenario until it changes
 */
const PlxStrategy *
plx_scenario_get_strategy (const PlxScenario *scenario)
{
  return scenario->strategy;
}

/**
 * plx_scenario_to_string:
 * @scenario: a #PlxScenario
 *
 * Returns: (transfer full): the scenario file's JSON with the changes made since,
 *   which plx_scenario_new_from_string() reads back to the same scenario
 */
char *
plx_scenario_to_string (const PlxScenario *scenario)
{
  return json_to_string (scenario->document, TRUE);
}

void
plx_gi_scenario_replace (PlxScenario *scenario,
                         PlxScenario *replacement)
{
  PlxScenario old = *scenario;

  *scenario = *replacement;
  *replacement = old;
  plx_scenario_free (replacement);
}

static gboolean
update_strategy (PlxScenario *scenario,
                 JsonObject  *changes,
                 GError     **error)
{
  g_autoptr (JsonNode) document = plx_json_deep_copy (scenario->document);
  JsonObject *root = json_node_get_object (document);
  PlxScenario *rebuilt;

  /* The CLI's rules for an override, so that a change here runs what the same
   * flags run there. */
  plx_strategy_json_apply_changes (json_object_get_object_member (root, "strategy"), changes, FALSE);
  rebuilt = plx_scenario_new_from_json (document, scenario->base_dir, scenario->source, error);
  if (rebuilt == NULL)
    return FALSE;
  plx_gi_scenario_replace (scenario, rebuilt);
  return TRUE;
}

/**
 * plx_scenario_update_strategy:
 * @scenario: a #PlxScenario
 * @changes: a JSON object of strategy keys (docs/formats.md §1), e.g.
 *   `{"tp": 4, "pp": 16, "schedule": "1f1b"}`
 * @error: return location for a #GError
 *
 * Sets the keys in the scenario's strategy and resolves it again, as
 * `parallax-cli simulate FILE --tp 4 --pp 16 --schedule 1f1b` does: changing tp,
 * pp or cp derives dp anew from the GPU count unless @changes gives dp too.
 * On error (an unknown key, a value out of range, degrees that do not divide the
 * GPUs) the scenario is left as it was.
 *
 * Returns: %TRUE if the strategy changed, %FALSE with @error
 */
gboolean
plx_scenario_update_strategy (PlxScenario *scenario,
                              const char  *changes,
                              GError     **error)
{
  g_autoptr (JsonNode) node = NULL;

  g_return_val_if_fail (scenario != NULL && changes != NULL, FALSE);
  node = plx_json_parse_data (changes, -1, "strategy changes", error);
  if (node == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "strategy changes: \"%.80s\" is not a JSON object", changes);
      return FALSE;
    }
  return update_strategy (scenario, json_node_get_object (node), error);
}

static gboolean
set_one (PlxScenario *scenario,
         const char  *key,
         JsonNode    *value,
         GError     **error)
{
  g_autoptr (JsonObject) changes = json_object_new ();

  json_object_set_member (changes, key, value);
  return update_strategy (scenario, changes, error);
}

/**
 * plx_scenario_set_strategy_int:
 * @scenario: a #PlxScenario
 * @key: a whole-number strategy key: "tp", "pp", "dp", "cp", "ep",
 *   "micro_batch_size", "global_batch_size", "seq_length", "virtual_stages",
 *   "zero_stage", ...
 * @value: its value
 * @error: return location for a #GError
 *
 * As plx_scenario_update_strategy() with the one key.
 *
 * Returns: %TRUE if the strategy changed, %FALSE with @error naming the key and value
 */
gboolean
plx_scenario_set_strategy_int (PlxScenario *scenario,
                               const char  *key,
                               gint64       value,
                               GError     **error)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);

  g_return_val_if_fail (scenario != NULL && key != NULL, FALSE);
  json_node_set_int (node, value);
  return set_one (scenario, key, node, error);
}

/**
 * plx_scenario_set_strategy_double:
 * @scenario: a #PlxScenario
 * @key: a strategy key taking a number: "moe_capacity_factor", "moe_load_imbalance"
 * @value: its value
 * @error: return location for a #GError
 *
 * As plx_scenario_update_strategy() with the one key.
 *
 * Returns: %TRUE if the strategy changed, %FALSE with @error naming the key and value
 */
gboolean
plx_scenario_set_strategy_double (PlxScenario *scenario,
                                  const char  *key,
                                  double       value,
                                  GError     **error)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);

  g_return_val_if_fail (scenario != NULL && key != NULL, FALSE);
  if (!isfinite (value))
    {
      json_node_unref (node);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %g is not a finite number", key, value);
      return FALSE;
    }
  json_node_set_double (node, value);
  return set_one (scenario, key, node, error);
}

/**
 * plx_scenario_set_strategy_bool:
 * @scenario: a #PlxScenario
 * @key: a yes/no strategy key: "sequence_parallel", "flash_attention",
 *   "overlap_dp_comm", "overlap_tp_comm", ...
 * @value: its value
 * @error: return location for a #GError
 *
 * As plx_scenario_update_strategy() with the one key.
 *
 * Returns: %TRUE if the strategy changed, %FALSE with @error naming the key
 */
gboolean
plx_scenario_set_strategy_bool (PlxScenario *scenario,
                                const char  *key,
                                gboolean     value,
                                GError     **error)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);

  g_return_val_if_fail (scenario != NULL && key != NULL, FALSE);
  json_node_set_boolean (node, value);
  return set_one (scenario, key, node, error);
}

/**
 * plx_scenario_set_strategy_string:
 * @scenario: a #PlxScenario
 * @key: a strategy key taking a name: "schedule", "recompute", "dtype",
 *   "implementation", "workload", ...
 * @value: its value ("1f1b", "selective", "bf16", ...)
 * @error: return location for a #GError
 *
 * As plx_scenario_update_strategy() with the one key.
 *
 * Returns: %TRUE if the strategy changed, %FALSE with @error naming the key and value
 */
gboolean
plx_scenario_set_strategy_string (PlxScenario *scenario,
                                  const char  *key,
                                  const char  *value,
                                  GError     **error)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);

  g_return_val_if_fail (scenario != NULL && key != NULL && value != NULL, FALSE);
  json_node_set_string (node, value);
  return set_one (scenario, key, node, error);
}

/**
 * plx_scenario_simulate_with_engine:
 * @scenario: a #PlxScenario
 * @engine: "event" (the event simulator), "analytical" (the closed form) or "ir"
 *   (the simulator of the distributed program)
 * @error: return location for a #GError
 *
 * Predicts one training step, as `parallax-cli simulate --engine ENGINE` does.
 *
 * Returns: (transfer full): the report, or %NULL with @error
 */
PlxReport *
plx_scenario_simulate_with_engine (const PlxScenario *scenario,
                                   const char        *engine,
                                   GError           **error)
{
  PlxReport report = { 0 };
  gboolean ok;

  g_return_val_if_fail (scenario != NULL && engine != NULL, NULL);
  if (scenario->strategy->workload == PLX_WORKLOAD_INFERENCE)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                   "%s: an inference scenario; a Report is of a training step (parallax-cli simulate predicts "
                   "inference)", scenario->source);
      return NULL;
    }
  if (g_str_equal (engine, "event"))
    ok = plx_sim_run_scenario (scenario->model, scenario->cluster, scenario->strategy, &report, NULL, NULL, NULL,
                               error);
  else if (g_str_equal (engine, "analytical"))
    ok = plx_analytic_run (scenario->model, scenario->cluster, scenario->strategy, &report, error);
  else if (g_str_equal (engine, "ir"))
    ok = plx_ir_run_scenario (scenario->model, scenario->cluster, scenario->strategy, &report, NULL, NULL, error);
  else
    {
      g_autofree char *shown = plx_printable (engine);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "engine \"%s\" is not event, analytical or ir", shown);
      return NULL;
    }
  return ok ? plx_report_copy (&report) : NULL;
}

/**
 * plx_scenario_simulate:
 * @scenario: a #PlxScenario
 * @error: return location for a #GError
 *
 * Predicts one training step with the event simulator, the engine
 * `parallax-cli simulate` uses unless told otherwise: the report's numbers are
 * those of `parallax-cli simulate FILE --json`.
 *
 * Returns: (transfer full): the report, or %NULL with @error
 */
PlxReport *
plx_scenario_simulate (const PlxScenario *scenario,
                       GError           **error)
{
  return plx_scenario_simulate_with_engine (scenario, "event", error);
}
