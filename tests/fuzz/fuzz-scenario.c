/* A scenario file: loaded, resolved and, when it resolves, run through the closed
 * form and (kept small, so a run stays fast) the event engine. */
#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  JsonNode *node = fuzz_parse (data, size);
  GError *error = NULL;
  PlxScenario *sc;
  PlxReport report;

  if (node == NULL)
    return 0;
  sc = plx_scenario_new_from_json (node, "/nonexistent-fuzz-dir", "fuzz", &error);
  fuzz_check_error (error);
  error = NULL;
  if (sc != NULL)
    {
      guint64 m = plx_strategy_get_n_micro_batches (sc->strategy);

      plx_analytic_run (sc->model, sc->cluster, sc->strategy, &report, &error);
      fuzz_check_error (error);
      error = NULL;
      if (m * sc->strategy->pp * sc->strategy->virtual_stages <= 20000)
        {
          plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &report, NULL, NULL, NULL, &error);
          fuzz_check_error (error);
        }
      plx_scenario_free (sc);
    }
  json_node_unref (node);
  return 0;
}
