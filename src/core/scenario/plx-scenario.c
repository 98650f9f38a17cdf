#include <string.h>

#include <glib/gi18n-lib.h>

#include "base/plx-input.h"
#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "base/plx-presets.h"
#include "parallax/plx-scenario.h"
#include "scenario/plx-hf-cache.h"

/* TRUE when `key` holds a name: a string that is no local path ("./" is what
 * save_pretrained writes from the working folder). */
static gboolean
names_model (JsonObject *obj,
                      const char *key)
{
  JsonNode *n = json_object_get_member (obj, key);
  const char *v;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return n != NULL;
  v = json_node_get_string (n);
  return v[0] != '\0' && v[0] != '.' && v[0] != '/';
}

/* A Hugging Face model as people download it: a config.json, or the snapshot
 * directory that holds one. Its name, unless the config states one, is the
 * directory's for a config.json ("Llama-2-7b-hf/config.json"), else the file's. The
 * config file is what errors about the model name (*model_source). */
static JsonNode *
resolve_model_node (JsonObject *obj,
                    const char *base_dir,
                    const char *source,
                    char      **model_source,
                    double     *checkpoint_params,
                    GError    **error)
{
  JsonObject *model = plx_json_get_object (obj, source, "", "model", TRUE, error);
  const char *hf = NULL, *hub_id = NULL;
  g_autofree char *path = NULL;
  g_autoptr (JsonNode) config = NULL;
  g_autoptr (JsonNode) overrides = NULL;

  if (model == NULL)
    return NULL;
  if (!plx_json_get_string (model, source, "model", "hf_config", FALSE, &hf, error))
    return NULL;
  if (hf == NULL)
    return plx_json_deep_copy (json_object_get_member (obj, "model"));

  path = g_path_is_absolute (hf) ? g_strdup (hf) : g_build_filename (base_dir, hf, NULL);
  /* Not a file or folder here: a hub id ("meta-llama/Llama-3.1-8B") is looked up in
   * the Hugging Face cache, as transformers' from_pretrained finds it offline. */
  if (!g_file_test (path, G_FILE_TEST_EXISTS) && plx_hf_is_repo_id (hf))
    {
      char *snapshot = plx_hf_cache_snapshot (hf, error);
      if (snapshot == NULL)
        {
          g_prefix_error (error, "%s: model.hf_config: ", source);
          return NULL;
        }
      g_free (path);
      path = snapshot;
      hub_id = hf;
    }
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      char *inside = g_build_filename (path, "config.json", NULL);
      g_free (path);
      path = inside;
    }
  config = plx_json_parse_file (path, error);
  if (config == NULL)
    {
      g_prefix_error (error, "%s: model.hf_config: ", source);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (config))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: model.hf_config: %s is not a JSON object", source, path);
      return NULL;
    }
  if (!json_object_has_member (json_node_get_object (config), "name") &&
      !names_model (json_node_get_object (config), "_name_or_path"))
    {
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *dir_base = g_path_get_basename (dir);
      g_autofree char *name = NULL;

      if (hub_id != NULL)
        name = g_strdup (hub_id);
      else if (g_str_equal (base, "config.json") && !g_str_equal (dir_base, ".") && !g_str_equal (dir_base, "/"))
        name = g_strdup (dir_base);
      else
        name = g_str_has_suffix (base, ".json") ? g_strndup (base, strlen (base) - 5) : g_strdup (base);
      /* Checked as any name in a file is: a file name may hold controls too. */
      if (g_utf8_validate (name, -1, NULL))
        json_object_set_string_member (json_node_get_object (config), "name", name);
    }
  *model_source = g_strdup (path);
  {
    g_autofree char *dir = g_path_get_dirname (path);
    *checkpoint_params = plx_hf_checkpoint_params (dir, config);
  }
  overrides = plx_json_deep_copy (json_object_get_member (obj, "model"));
  json_object_remove_member (json_node_get_object (overrides), "hf_config");
  return plx_json_merge (config, overrides);
}

static PlxScenario *
scenario_new (JsonNode   *node,
              const char *base_dir,
              const char *source,
              gboolean    resolve,
              GError    **error)
{
  g_autoptr (PlxScenario) sc = g_new0 (PlxScenario, 1);
  g_autoptr (JsonNode) model_node = NULL;
  g_autofree char *model_source = NULL;
  double checkpoint_params = 0.0;
  JsonObject *obj;
  JsonNode *strategy_node;
  const char *name = NULL;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: a scenario must be a JSON object", source);
      return NULL;
    }
  obj = json_node_get_object (node);
  {
    /* "notes" and "description": free text for the reader, ignored. */
    static const char *const keys[] = { "name", "model", "cluster", "strategy", "notes", "description", NULL };
    if (!plx_json_check_keys (obj, source, "", keys, error))
      return NULL;
  }
  if (!plx_json_get_string (obj, source, "", "name", FALSE, &name, error))
    return NULL;
  if (plx_json_get_object (obj, source, "", "cluster", TRUE, error) == NULL)
    return NULL;

  model_node = resolve_model_node (obj, base_dir ? base_dir : ".", source, &model_source, &checkpoint_params, error);
  if (model_node == NULL)
    return NULL;
  sc->model = plx_model_new_from_json (model_node, model_source != NULL ? model_source : source, error);
  if (sc->model == NULL)
    return NULL;
  sc->model->checkpoint_params = checkpoint_params;
  sc->cluster = plx_cluster_new_from_json (json_object_get_member (obj, "cluster"), source, error);
  if (sc->cluster == NULL)
    return NULL;

  strategy_node = json_object_get_member (obj, "strategy");
  if (strategy_node == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY, "%s: strategy: required key is missing", source);
      return NULL;
    }
  sc->strategy = plx_strategy_new_from_json (strategy_node, source, error);
  if (sc->strategy == NULL)
    return NULL;
  if (sc->strategy->schedule == PLX_SCHEDULE_FILE && !g_path_is_absolute (sc->strategy->schedule_path))
    {
      char *abs = g_build_filename (base_dir ? base_dir : ".", sc->strategy->schedule_path, NULL);
      g_free (sc->strategy->schedule_path);
      sc->strategy->schedule_path = abs;
    }
  if (resolve && !plx_strategy_resolve (sc->strategy, sc->model, sc->cluster, source, error))
    return NULL;

  sc->source = g_strdup (source);
  sc->name = g_strdup (name ? name : sc->model->name);
  sc->document = plx_json_deep_copy (node);
  sc->base_dir = g_strdup (base_dir ? base_dir : ".");
  return g_steal_pointer (&sc);
}

PlxScenario *
plx_scenario_new_from_json (JsonNode   *node,
                            const char *base_dir,
                            const char *source,
                            GError    **error)
{
  return scenario_new (node, base_dir, source, TRUE, error);
}

PlxScenario *
plx_scenario_new_unresolved (JsonNode   *node,
                             const char *base_dir,
                             const char *source,
                             GError    **error)
{
  return scenario_new (node, base_dir, source, FALSE, error);
}

JsonNode *
plx_scenario_read_json (const char *path,
                        GError    **error)
{
  return plx_json_parse_file (path, error);
}

PlxScenario *
plx_scenario_new_from_file (const char *path,
                            GError    **error)
{
  g_autoptr (JsonNode) node = plx_scenario_read_json (path, error);
  g_autofree char *dir = NULL;

  if (node == NULL)
    return NULL;
  dir = g_path_get_dirname (path);
  return plx_scenario_new_from_json (node, dir, plx_input_name (path), error);
}

JsonNode *
plx_scenario_default_json (void)
{
  /* Built in, so it is a programming error if it cannot be read. */
  JsonNode *node = plx_presets_lookup (PLX_PRESET_SCENARIO, "default", NULL);
  g_assert (node != NULL);
  return node;
}

PlxScenario *
plx_scenario_copy (const PlxScenario *scenario)
{
  PlxScenario *sc = g_new0 (PlxScenario, 1);

  sc->name = g_strdup (scenario->name);
  sc->source = g_strdup (scenario->source);
  sc->model = plx_model_copy (scenario->model);
  sc->cluster = plx_cluster_copy (scenario->cluster);
  sc->strategy = plx_strategy_copy (scenario->strategy);
  sc->document = scenario->document != NULL ? plx_json_deep_copy (scenario->document) : NULL;
  sc->base_dir = g_strdup (scenario->base_dir);
  return sc;
}

void
plx_scenario_free (PlxScenario *scenario)
{
  if (scenario == NULL)
    return;
  g_free (scenario->name);
  g_free (scenario->source);
  g_clear_pointer (&scenario->document, json_node_unref);
  g_free (scenario->base_dir);
  plx_model_free (scenario->model);
  plx_cluster_free (scenario->cluster);
  plx_strategy_free (scenario->strategy);
  g_free (scenario);
}

static const char *
schedule_display (const PlxStrategy *s)
{
  switch (s->schedule)
    {
    case PLX_SCHEDULE_GPIPE:
      return _("GPipe");
    case PLX_SCHEDULE_INTERLEAVED_1F1B:
      return _("interleaved 1F1B");
    case PLX_SCHEDULE_ZERO_BUBBLE_H1:
      return _("zero bubble H1");
    case PLX_SCHEDULE_FILE:
      return _("schedule file");
    case PLX_SCHEDULE_1F1B:
    default:
      return _("1F1B");
    }
}

char *
plx_scenario_describe (const PlxScenario *sc)
{
  const PlxStrategy *s = sc->strategy;
  GString *out = g_string_new (NULL);

  /* TRANSLATORS: model name, GPU count, GPU name: "gpt3-175b on 64 A100-SXM4-80GB" */
  g_string_append_printf (out, _("%s on %u %s"), sc->model->name, plx_cluster_get_n_gpus (sc->cluster),
                          sc->cluster->gpu_name);
  g_string_append_printf (out, ", TP %u × PP %u × DP %u", s->tp, s->pp, s->dp);
  if (s->cp > 1)
    g_string_append_printf (out, " × CP %u", s->cp);
  if (s->ep > 1)
    g_string_append_printf (out, ", EP %u", s->ep);
  if (s->etp != 0 && s->etp != s->tp)
    g_string_append_printf (out, ", expert TP %u", s->etp);
  g_string_append_printf (out, ", %s", schedule_display (s));
  if (s->virtual_stages > 1)
    g_string_append_printf (out, " ×%u", s->virtual_stages);
  return g_string_free (out, FALSE);
}
