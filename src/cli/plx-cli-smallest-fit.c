#include "parallax/parallax.h"

#include "plx-cli-smallest-fit.h"
#include "base/plx-json.h"

JsonNode *
plx_cli_smallest_fit (JsonNode   *applied,
                      const char *dir,
                      const char *source)
{
  g_autoptr (PlxScenario) raw = plx_scenario_new_unresolved (applied, dir, source, NULL);
  g_autoptr (PlxSearch) search = NULL;
  const PlxSearchResult *best = NULL;
  PlxSearchOptions options;
  JsonNode *out;
  guint per_node;

  if (raw == NULL || raw->strategy->global_batch_size == 0)
    return NULL;
  if (raw->strategy->seq_length == 0)
    raw->strategy->seq_length = raw->model->max_positions;
  per_node = raw->cluster->gpus_per_node;
  plx_search_options_init (&options);
  options.gpus_min = per_node;
  options.gpus_max = plx_cluster_get_n_gpus (raw->cluster);
  /* The choice needs the fewest GPUs and the fastest among them, not a ranking. */
  options.top_k = 1;
  search = plx_search_run (raw->model, raw->cluster, raw->strategy, &options, NULL, NULL, NULL, NULL);
  if (search == NULL)
    return NULL;
  /* Results fit and come best first: the first of the fewest GPUs. */
  for (guint i = 0; i < search->results->len; i++)
    {
      const PlxSearchResult *r = &g_array_index (search->results, PlxSearchResult, i);
      if (r->fits_in_memory && (best == NULL || r->n_gpus < best->n_gpus))
        best = r;
    }
  if (best == NULL)
    {
      /* Run as adapted, named for what it is: the built-in scenario's name is GPT-3's. */
      g_autofree char *name = g_strdup_printf ("%s on the cluster's %u %s: no strategy searched fits",
                                               raw->model->name, plx_cluster_get_n_gpus (raw->cluster),
                                               raw->cluster->gpu_name);
      out = plx_json_deep_copy (applied);
      json_object_set_string_member (json_node_get_object (out), "name", name);
      return out;
    }
  out = plx_search_result_to_scenario (best, applied, per_node, NULL);
  if (out != NULL)
    {
      g_autofree char *name = g_strdup_printf ("%s on %u %s, the fewest of the cluster's %u on which it fits",
                                               raw->model->name, best->n_gpus, raw->cluster->gpu_name,
                                               plx_cluster_get_n_gpus (raw->cluster));
      json_object_set_string_member (json_node_get_object (out), "name", name);
    }
  return out;
}
