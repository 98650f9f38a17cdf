/* Search through the bindable API (plx-gi.h): the strategies `parallax-cli search`
 * finds, as a list of results a binding can hold on to. */
#include "parallax/parallax.h"

#include "plx-gi-private.h"

/**
 * plx_scenario_search:
 * @scenario: a #PlxScenario
 * @fix: (nullable): degrees or options held fixed, as `parallax-cli search --fix`
 *   takes them: "tp=8,pp=4,schedule=1f1b,recompute=selective,zero=1,sp=1,mbs=2,v=3"
 * @top: how many results to return, 1 to 100000
 * @error: return location for a #GError
 *
 * Every valid strategy for the scenario's model, cluster, global batch and sequence
 * length, predicted by the closed form, those that do not fit pruned, the best
 * re-simulated by the event engine: `parallax-cli search FILE --top TOP --fix FIX`.
 *
 * Returns: (transfer full) (element-type PlxSearchResult) (nullable): the best @top
 *   results that fit in memory, fastest first (fewer if fewer fit; %NULL if none
 *   does, or with @error); free with
 *   `g_list_free_full (results, (GDestroyNotify) plx_search_result_free)`
 */
GList *
plx_scenario_search (const PlxScenario *scenario,
                     const char        *fix,
                     guint              top,
                     GError           **error)
{
  PlxSearchOptions options;
  g_autoptr (PlxSearch) search = NULL;
  GList *results = NULL;

  g_return_val_if_fail (scenario != NULL, NULL);
  if (top < 1 || top > 100000)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "search: top %u is not a whole number from 1 to 100000",
                   top);
      return NULL;
    }
  plx_search_options_init (&options);
  if (fix != NULL && !plx_search_options_parse_fix (&options, fix, error))
    return NULL;
  /* As the CLI: at least ten re-simulated, however few are returned, since the
   * closed form alone ranks less well. */
  options.top_k = CLAMP (top, 10u, 50u);
  search = plx_search_run (scenario->model, scenario->cluster, scenario->strategy, &options, NULL, NULL, NULL, error);
  if (search == NULL)
    return NULL;
  /* A list, whose ownership bindings read unambiguously: the caller owns the list
   * and each result (PyGObject 3.42 frees a GPtrArray's elements twice when the
   * array has a free function). */
  for (guint i = MIN (top, search->results->len); i > 0; i--)
    results = g_list_prepend (results, plx_search_result_copy (&g_array_index (search->results, PlxSearchResult, i - 1)));
  return results;
}

/**
 * plx_scenario_apply_search_result:
 * @scenario: a #PlxScenario
 * @result: a result of plx_scenario_search() on this scenario
 * @error: return location for a #GError
 *
 * Makes the scenario run the result's strategy on the result's GPU count (the rest
 * of the strategy, batch and sequence as they were).
 *
 * Returns: %TRUE if the scenario changed, %FALSE with @error (it is left as it was)
 */
gboolean
plx_scenario_apply_search_result (PlxScenario           *scenario,
                                  const PlxSearchResult *result,
                                  GError               **error)
{
  g_autoptr (JsonNode) node = NULL;
  PlxScenario *rebuilt;

  g_return_val_if_fail (scenario != NULL && result != NULL, FALSE);
  node = plx_search_result_to_scenario (result, scenario->document, scenario->cluster->gpus_per_node, error);
  if (node == NULL)
    return FALSE;
  rebuilt = plx_scenario_new_from_json (node, scenario->base_dir, scenario->source, error);
  if (rebuilt == NULL)
    return FALSE;
  plx_gi_scenario_replace (scenario, rebuilt);
  return TRUE;
}

/**
 * plx_search_result_get_n_gpus:
 * @result: a #PlxSearchResult
 *
 * Returns: the GPUs the strategy runs on
 */
guint
plx_search_result_get_n_gpus (const PlxSearchResult *result)
{
  return result->n_gpus;
}

/**
 * plx_search_result_get_step_time_s:
 * @result: a #PlxSearchResult
 *
 * Returns: seconds per step: the event engine's if re-simulated
 *   (plx_search_result_get_event_simulated()), else the closed form's
 */
double
plx_search_result_get_step_time_s (const PlxSearchResult *result)
{
  return result->step_time_s;
}

/**
 * plx_search_result_get_analytical_step_time_s:
 * @result: a #PlxSearchResult
 *
 * Returns: seconds per step by the closed form
 */
double
plx_search_result_get_analytical_step_time_s (const PlxSearchResult *result)
{
  return result->analytical_step_time_s;
}

/**
 * plx_search_result_get_mfu:
 * @result: a #PlxSearchResult
 *
 * Returns: model FLOPs utilisation, 0 to 1
 */
double
plx_search_result_get_mfu (const PlxSearchResult *result)
{
  return result->mfu;
}

/**
 * plx_search_result_get_tokens_per_s:
 * @result: a #PlxSearchResult
 *
 * Returns: tokens trained per second, all GPUs together
 */
double
plx_search_result_get_tokens_per_s (const PlxSearchResult *result)
{
  return result->tokens_per_s;
}

/**
 * plx_search_result_get_peak_memory_bytes:
 * @result: a #PlxSearchResult
 *
 * Returns: the peak memory of the fullest GPU, in bytes
 */
guint64
plx_search_result_get_peak_memory_bytes (const PlxSearchResult *result)
{
  return result->peak_memory_bytes;
}

/**
 * plx_search_result_get_fits_in_memory:
 * @result: a #PlxSearchResult
 *
 * Returns: whether the peak fits in the GPU's usable memory
 */
gboolean
plx_search_result_get_fits_in_memory (const PlxSearchResult *result)
{
  return result->fits_in_memory;
}

/**
 * plx_search_result_get_event_simulated:
 * @result: a #PlxSearchResult
 *
 * Returns: whether the step time is the event engine's (the best are re-simulated)
 */
gboolean
plx_search_result_get_event_simulated (const PlxSearchResult *result)
{
  return result->event;
}

/**
 * plx_search_result_get_pareto:
 * @result: a #PlxSearchResult
 *
 * Returns: whether no other result is both faster and needs less memory
 */
gboolean
plx_search_result_get_pareto (const PlxSearchResult *result)
{
  return result->pareto;
}

/**
 * plx_search_result_get_pareto_gpus:
 * @result: a #PlxSearchResult
 *
 * Returns: whether no other result is both faster and uses fewer GPUs
 */
gboolean
plx_search_result_get_pareto_gpus (const PlxSearchResult *result)
{
  return result->pareto_gpus;
}

/**
 * plx_search_result_get_strategy:
 * @result: a #PlxSearchResult
 *
 * Returns: (transfer none): the strategy found, owned by @result
 */
const PlxStrategy *
plx_search_result_get_strategy (const PlxSearchResult *result)
{
  return &result->strategy;
}
