/* A user preset (docs/cli.md: $XDG_DATA_HOME/parallax/{models,clusters,scenarios}/NAME.json,
 * saved from the window and read by name wherever a built-in is): the bytes as a saved
 * model, cluster and scenario preset, looked up by name, expanded with an override over
 * them as a scenario's {"preset": NAME, ...} is, and built. A refusal is a PLX_ERROR. */
#include "fuzz-common.h"
#include "base/plx-presets.h"

static char *user_dirs[3];

static void
setup (void)
{
  g_autofree char *home = g_dir_make_tmp ("plx-fuzz-presets-XXXXXX", NULL);

  /* Before GLib reads it for the first time: g_get_user_data_dir caches it. */
  g_setenv ("XDG_DATA_HOME", home, TRUE);
  for (guint k = 0; k < 3; k++)
    {
      user_dirs[k] = plx_presets_user_dir ((PlxPresetKind) k);
      g_mkdir_with_parents (user_dirs[k], 0700);
    }
}

static JsonNode *
object_with_preset (void)
{
  JsonObject *o = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (o, "preset", "fuzzed");
  json_node_take_object (node, o);
  return node;
}

static void
build (PlxPresetKind kind)
{
  GError *error = NULL;
  JsonNode *found = plx_presets_lookup (kind, "fuzzed", &error);
  JsonNode *ref, *expanded;

  fuzz_check_error (error);
  if (found == NULL)
    return;
  json_node_unref (found);
  error = NULL;
  ref = object_with_preset ();
  expanded = plx_presets_expand (kind, ref, "fuzz", kind == PLX_PRESET_MODEL ? "model" : "cluster", NULL, &error);
  fuzz_check_error (error);
  error = NULL;
  if (expanded != NULL)
    {
      if (kind == PLX_PRESET_MODEL)
        {
          PlxModel *m = plx_model_new_from_json (expanded, "fuzz", &error);
          if (m != NULL)
            plx_model_free (m);
        }
      else if (kind == PLX_PRESET_CLUSTER)
        {
          PlxCluster *c = plx_cluster_new_from_json (expanded, "fuzz", &error);
          if (c != NULL)
            plx_cluster_free (c);
        }
      else
        {
          PlxScenario *s = plx_scenario_new_from_json (expanded, ".", "fuzz", &error);
          if (s != NULL)
            plx_scenario_free (s);
        }
      fuzz_check_error (error);
      json_node_unref (expanded);
    }
  json_node_unref (ref);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size > 1 << 20)
    return 0;
  if (user_dirs[0] == NULL)
    setup ();
  for (guint k = 0; k < 3; k++)
    {
      g_autofree char *path = g_build_filename (user_dirs[k], "fuzzed.json", NULL);
      /* No fsync (g_file_set_contents makes one): a run is thousands of files. */
      if (!g_file_set_contents_full (path, (const char *) data, (gssize) size, G_FILE_SET_CONTENTS_NONE, 0600, NULL))
        return 0;
    }
  build (PLX_PRESET_MODEL);
  build (PLX_PRESET_CLUSTER);
  build (PLX_PRESET_SCENARIO);
  return 0;
}
