/* The user's own presets: saved atomically under $XDG_DATA_HOME/parallax, listed with
 * the built-in ones, looked up by name; bad names, built-in names and broken files
 * give errors naming the name or the file. Its own binary: GLib reads XDG_DATA_HOME
 * once, so main sets it to a fresh directory first. */
#include <glib/gstdio.h>
#include <string.h>

#include "parallax/parallax.h"
#include "test-files.h"
#include "base/plx-json.h"
#include "base/plx-presets.h"

static char *data_home;

static JsonNode *
small_cluster (double hbm_gib)
{
  g_autoptr (JsonNode) base = plx_presets_lookup (PLX_PRESET_CLUSTER, "dgx-a100-80gb", NULL);
  JsonNode *copy = plx_json_deep_copy (base);
  JsonObject *gpu = json_object_get_object_member (json_node_get_object (copy), "gpu");

  json_object_set_int_member (gpu, "hbm_bytes", (gint64) (hbm_gib * 1073741824.0));
  json_object_set_string_member (json_node_get_object (copy), "name", "My lab");
  return copy;
}

static gboolean
listed (PlxPresetKind kind, const char *name)
{
  g_auto (GStrv) names = plx_presets_list (kind);

  return g_strv_contains ((const char *const *) names, name);
}

static void
test_save_list_lookup (void)
{
  g_autoptr (JsonNode) json = small_cluster (96.0);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) back = NULL;
  g_autoptr (PlxCluster) c = NULL;
  g_autofree char *path = g_build_filename (data_home, "parallax", "clusters", "my-lab.json", NULL);

  g_assert_false (listed (PLX_PRESET_CLUSTER, "my-lab"));
  g_assert_true (plx_presets_save (PLX_PRESET_CLUSTER, "my-lab", json, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  g_assert_true (listed (PLX_PRESET_CLUSTER, "my-lab"));
  g_assert_true (listed (PLX_PRESET_CLUSTER, "dgx-a100-80gb"));
  g_assert_false (plx_presets_is_builtin (PLX_PRESET_CLUSTER, "my-lab"));
  g_assert_true (plx_presets_is_builtin (PLX_PRESET_CLUSTER, "dgx-a100-80gb"));
  back = plx_presets_lookup (PLX_PRESET_CLUSTER, "my-lab", &error);
  g_assert_no_error (error);
  g_assert_true (json_node_equal (back, json));
  /* And a cluster built from it by name has its 96 GiB. */
  c = plx_cluster_new_preset ("my-lab", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (c->hbm_bytes, ==, G_GUINT64_CONSTANT (96) * 1073741824);
  /* Saving again replaces it. */
  {
    g_autoptr (JsonNode) again = small_cluster (120.0);
    g_autoptr (PlxCluster) c2 = NULL;
    g_assert_true (plx_presets_save (PLX_PRESET_CLUSTER, "my-lab", again, &error));
    c2 = plx_cluster_new_preset ("my-lab", &error);
    g_assert_no_error (error);
    g_assert_cmpuint (c2->hbm_bytes, ==, G_GUINT64_CONSTANT (120) * 1073741824);
  }
}

static void
test_bad_names (void)
{
  static const char *const bad[] = { "", "../escape", "a/b", ".hidden", "-dash", "with space", "naïve",
                                     "0123456789012345678901234567890123456789012345678901234567890123456789" };
  g_autoptr (JsonNode) json = small_cluster (80.0);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_false (plx_presets_save (PLX_PRESET_CLUSTER, bad[i], json, &error));
      g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
      g_assert_nonnull (strstr (error->message, "preset name"));
    }
  {
    g_autoptr (GError) error = NULL;
    g_assert_false (plx_presets_save (PLX_PRESET_CLUSTER, "dgx-h100-80gb", json, &error));
    g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
    g_assert_nonnull (strstr (error->message, "built-in cluster preset"));
  }
}

/* A broken or foreign file in the directory: listing still works; looking the broken
 * one up names its file; a file with a built-in's name never shadows the built-in. */
static void
test_hostile_files (void)
{
  g_autofree char *dir = plx_presets_user_dir (PLX_PRESET_CLUSTER);
  g_autofree char *broken = g_build_filename (dir, "broken.json", NULL);
  g_autofree char *shadow = g_build_filename (dir, "dgx-a100-80gb.json", NULL);
  g_autofree char *notes = g_build_filename (dir, "notes.txt", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) builtin = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (broken, "{\"name\": ", -1, NULL));
  g_assert_true (g_file_set_contents (shadow, "{\"name\": \"impostor\"}", -1, NULL));
  g_assert_true (g_file_set_contents (notes, "not a preset", -1, NULL));
  g_assert_true (listed (PLX_PRESET_CLUSTER, "broken"));
  g_assert_false (listed (PLX_PRESET_CLUSTER, "notes"));
  g_assert_null (plx_presets_lookup (PLX_PRESET_CLUSTER, "broken", &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, broken));
  builtin = plx_presets_lookup (PLX_PRESET_CLUSTER, "dgx-a100-80gb", NULL);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (builtin), "name"), ==,
                   "DGX A100 80GB, HDR InfiniBand");
  {
    g_auto (GStrv) names = plx_presets_list (PLX_PRESET_CLUSTER);
    guint n = 0;
    for (guint i = 0; names[i] != NULL; i++)
      n += g_str_equal (names[i], "dgx-a100-80gb");
    g_assert_cmpuint (n, ==, 1);
  }
  g_unlink (broken);
  g_unlink (shadow);
  g_unlink (notes);
}

int
main (int argc, char **argv)
{
  int status;

  data_home = test_make_tmp_dir ("plx-test-presets");
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/presets/user/save-list-lookup", test_save_list_lookup);
  g_test_add_func ("/presets/user/bad-names", test_bad_names);
  g_test_add_func ("/presets/user/hostile-files", test_hostile_files);
  status = g_test_run ();
  test_rm_rf (data_home);
  g_free (data_home);
  return status;
}
