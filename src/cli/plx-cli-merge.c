/* A search as shards and their merge. The part's header carries the scenario JSON as
 * the search built it (overrides applied, with the directory its relative paths came
 * from), so the merge rebuilds the same model, cluster and base strategy without the
 * command line that made it, and refuses parts of another search: every header
 * member but the shard must agree (plx_search_merge). */
#include <stdio.h>

#include "parallax/parallax.h"
#include "optimize/plx-search-shard.h"

#include "plx-cli-merge.h"
#include "plx-cli-options.h"
#include "plx-cli-search-output.h"
#include "plx-cli-stdout.h"
#include "plx-cli-util.h"

gboolean
plx_cli_parse_shard (const char *text,
                     guint      *shard,
                     guint      *n_shards)
{
  char *slash = NULL, *end = NULL;
  gint64 i = g_ascii_strtoll (text, &slash, 10), n;

  if (slash == text || *slash != '/')
    return FALSE;
  n = g_ascii_strtoll (slash + 1, &end, 10);
  if (end == slash + 1 || *end != '\0' || i < 1 || n < i || n > 1000000)
    return FALSE;
  *shard = (guint) (i - 1);
  *n_shards = (guint) n;
  return TRUE;
}

int
plx_cli_search_part (const PlxScenario      *sc,
                     JsonNode               *applied,
                     const char             *dir,
                     const char             *path,
                     const PlxSearchOptions *options,
                     guint                   top,
                     const char             *out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxSearch) search = NULL;
  g_autoptr (JsonObject) context = json_object_new ();
  /* The merge may run elsewhere in the file system (a Slurm job's own directory). */
  g_autofree char *abs_dir = g_canonicalize_filename (dir, NULL);

  search = plx_search_run (sc->model, sc->cluster, sc->strategy, options, NULL, NULL, NULL, &error);
  if (search == NULL)
    return user_error (error);
  json_object_set_string_member (context, "tool_version", PACKAGE_VERSION);
  json_object_set_member (context, "scenario", json_node_copy (applied));
  json_object_set_string_member (context, "scenario_dir", abs_dir);
  json_object_set_string_member (context, "scenario_source", path != NULL ? path : "built-in default scenario");
  json_object_set_int_member (context, "top", top);
  if (!plx_search_part_write (out, context, options, search, &error))
    return user_error (error);
  printf ("Shard %u/%u: %" G_GUINT64_FORMAT " configurations, %" G_GUINT64_FORMAT " valid, %" G_GUINT64_FORMAT
          " fit in memory, in %.3f s on %u threads; written to %s\n", options->shard + 1, options->n_shards,
          search->configs_evaluated, search->configs_valid, search->configs_fit, search->elapsed_s, search->n_threads,
          plx_cli_shown (plx_cli_output_name (out)));
  return 0;
}

/* The scenario a part was searched on, as load_scenario builds it for search: a
 * strategy that does not resolve is searched all the same when it has a batch. */
static PlxScenario *
part_scenario (const PlxSearchPart *part, GError **error)
{
  JsonNode *applied = plx_search_part_get_context (part, "scenario");
  JsonNode *dir = plx_search_part_get_context (part, "scenario_dir");
  JsonNode *source = plx_search_part_get_context (part, "scenario_source");
  PlxScenario *sc, *raw;

  if (applied == NULL || !JSON_NODE_HOLDS_OBJECT (applied) || dir == NULL || source == NULL ||
      json_node_get_string (dir) == NULL || json_node_get_string (source) == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY,
                   "%s:1: the header has no \"context\" with \"scenario\", \"scenario_dir\" and \"scenario_source\"",
                   part->path);
      return NULL;
    }
  sc = plx_scenario_new_from_json (applied, json_node_get_string (dir), json_node_get_string (source), error);
  if (sc != NULL)
    return sc;
  raw = plx_scenario_new_unresolved (applied, json_node_get_string (dir), json_node_get_string (source), NULL);
  if (raw != NULL && raw->strategy->global_batch_size > 0)
    {
      g_clear_error (error);
      if (raw->strategy->seq_length == 0)
        raw->strategy->seq_length = raw->model->max_positions;
      return raw;
    }
  g_clear_pointer (&raw, plx_scenario_free);
  g_prefix_error (error, "%s: the scenario it was searched on: ", part->path);
  return NULL;
}

int
plx_cli_merge (int    argc,
               char **argv)
{
  g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_search_part_free);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScenario) sc = NULL;
  g_autoptr (PlxSearch) search = NULL;
  g_autofree char *csv = NULL, *top_text = NULL;
  gboolean json = FALSE;
  gint64 top = 0;
  const GOptionEntry entries[] = {
    { "top", 0, 0, G_OPTION_ARG_STRING, &top_text, "how many to show (default: the search's)", "K" },
    { "csv", 0, 0, G_OPTION_ARG_FILENAME, &csv, "also write every configuration as CSV", "OUT.csv" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "JSON output", NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (PlxCliOptions) options = plx_cli_options_new (
    "merge", "PART.jsonl...",
    "The parts of one search (search --shard I/N --out PART.jsonl), every shard once, ranked\n"
    "as one search: the best re-simulated by the event engine, the Pareto fronts marked, and\n"
    "printed as search prints them.",
    NULL);
  char **paths;
  int status;

  plx_cli_options_add_entries (options, entries);
  status = plx_cli_options_parse (options, argc, argv);
  if (status != PLX_CLI_OPTIONS_CONTINUE)
    return status;
  if (!plx_cli_output_take ("--csv", &csv, &error))
    return usage_error ("merge: %s", error->message);
  if (top_text != NULL)
    {
      char *end = NULL;
      top = g_ascii_strtoll (top_text, &end, 10);
      if (*end != '\0' || top < 1 || top > 100000)
        return usage_error ("--top: \"%s\" is not a whole number from 1 to 100000", top_text);
    }
  paths = plx_cli_options_positionals (options);
  for (guint i = 0; paths[i] != NULL; i++)
    {
      PlxSearchPart *part = plx_search_part_read (paths[i], &error);
      if (part == NULL)
        return user_error (error);
      g_ptr_array_add (parts, part);
    }
  if (parts->len == 0)
    return usage_error ("merge: no part given (search --shard I/N --out PART.jsonl writes them)");

  sc = part_scenario (parts->pdata[0], &error);
  if (sc == NULL)
    return user_error (error);
  if (top == 0)
    {
      JsonNode *t = plx_search_part_get_context (parts->pdata[0], "top");
      top = t != NULL && JSON_NODE_HOLDS_VALUE (t) ? CLAMP (json_node_get_int (t), 1, 100000) : 10;
    }
  /* As search: at least ten re-simulated, however few are shown. */
  search = plx_search_merge ((PlxSearchPart *const *) parts->pdata, parts->len, sc->model, sc->cluster, sc->strategy,
                             CLAMP ((guint) top, 10u, 50u), &error);
  if (search == NULL)
    return user_error (error);
  return plx_cli_search_report (sc, search, (guint) top, json, csv);
}
