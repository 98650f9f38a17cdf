#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "base/plx-presets.h"

#include "plx-resources.h"

static const char *const kind_dirs[] = {
  "/org/parallax/presets/models",
  "/org/parallax/presets/clusters",
  "/org/parallax/presets/scenarios",
};

static const char *const kind_names[] = { "model", "cluster", "scenario" };

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

static const char *const kind_user_dirs[] = { "models", "clusters", "scenarios" };

char *
plx_presets_user_dir (PlxPresetKind kind)
{
  return g_build_filename (g_get_user_data_dir (), "parallax", kind_user_dirs[kind], NULL);
}

/* The file of the user's preset `name` (a valid name). */
static char *
user_preset_path (PlxPresetKind kind,
                  const char   *name)
{
  g_autofree char *dir = plx_presets_user_dir (kind);
  g_autofree char *file = g_strdup_printf ("%s.json", name);

  return g_build_filename (dir, file, NULL);
}

/* A preset name is a bare identifier: letters, digits, '.', '_' and '-', starting
 * with a letter or digit, at most 64 characters; no path can hide in it. */
gboolean
plx_presets_name_is_valid (const char *name)
{
  gsize n = name != NULL ? strlen (name) : 0;

  if (n == 0 || n > 64 || !g_ascii_isalnum (name[0]))
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (!g_ascii_isalnum (name[i]) && name[i] != '.' && name[i] != '_' && name[i] != '-')
      return FALSE;
  return TRUE;
}

static gboolean
builtin_exists (PlxPresetKind kind,
                const char   *name)
{
  g_autofree char *path = g_strdup_printf ("%s/%s.json", kind_dirs[kind], name);

  return g_resource_get_info (plx_get_resource (), path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL, NULL, NULL);
}

gboolean
plx_presets_is_builtin (PlxPresetKind kind,
                        const char   *name)
{
  return plx_presets_name_is_valid (name) && builtin_exists (kind, name);
}

char **
plx_presets_list (PlxPresetKind kind)
{
  g_auto (GStrv) children = g_resource_enumerate_children (plx_get_resource (), kind_dirs[kind],
                                                           G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_autofree char *user_dir = plx_presets_user_dir (kind);
  g_autoptr (GDir) dir = g_dir_open (user_dir, 0, NULL);
  GPtrArray *names = g_ptr_array_new ();
  const char *entry;

  for (guint i = 0; children != NULL && children[i] != NULL; i++)
    if (g_str_has_suffix (children[i], ".json"))
      g_ptr_array_add (names, g_strndup (children[i], strlen (children[i]) - 5));
  /* The user's presets (saved from the window), under names the built-ins do not
   * take; other files in the directory are not presets. */
  while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *name = g_str_has_suffix (entry, ".json") ? g_strndup (entry, strlen (entry) - 5) : NULL;
      if (name != NULL && plx_presets_name_is_valid (name) && !builtin_exists (kind, name))
        g_ptr_array_add (names, g_steal_pointer (&name));
    }
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

gboolean
plx_presets_save (PlxPresetKind kind,
                  const char   *name,
                  JsonNode     *json,
                  GError      **error)
{
  g_autofree char *dir = plx_presets_user_dir (kind);
  g_autofree char *path = NULL;

  if (!plx_presets_name_is_valid (name))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "preset name \"%.80s\": use letters, digits, '.', '_' and '-', starting with a letter or digit "
                   "(at most 64)", name ? name : "");
      return FALSE;
    }
  if (builtin_exists (kind, name))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "preset name \"%s\": a built-in %s preset has that name",
                   name, kind_names[kind]);
      return FALSE;
    }
  if (json == NULL || !JSON_NODE_HOLDS_OBJECT (json))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "preset \"%s\": not a JSON object", name);
      return FALSE;
    }
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int e = errno;
      g_set_error (error, PLX_ERROR, PLX_ERROR_IO, "%s: %s", dir, g_strerror (e));
      return FALSE;
    }
  path = user_preset_path (kind, name);
  /* A temporary file renamed over the old one: a crash leaves the old preset or the
   * new, never half of one. */
  return plx_json_write_file (json, path, error);
}

JsonNode *
plx_presets_lookup (PlxPresetKind kind,
                    const char   *name,
                    GError      **error)
{
  g_autofree char *path = NULL;
  g_autoptr (GBytes) bytes = NULL;
  gsize size;
  const char *data;

  /* A name is a bare identifier: no path tricks into other resources or files. */
  if (!plx_presets_name_is_valid (name))
    goto not_found;
  path = g_strdup_printf ("%s/%s.json", kind_dirs[kind], name);
  bytes = g_resource_lookup_data (plx_get_resource (), path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  if (bytes == NULL)
    {
      /* A preset the user saved: parsed from its file, errors naming the file. */
      g_autofree char *user_path = user_preset_path (kind, name);
      if (g_file_test (user_path, G_FILE_TEST_IS_REGULAR))
        return plx_json_parse_file (user_path, error);
      goto not_found;
    }
  data = g_bytes_get_data (bytes, &size);
  return plx_json_parse_data (data, (gssize) size, path, error);

not_found:
  {
    g_auto (GStrv) known = plx_presets_list (kind);
    g_autofree char *list = g_strjoinv (", ", known);
    g_set_error (error, PLX_ERROR, PLX_ERROR_NOT_FOUND, "unknown %s preset \"%.60s\" (known: %s)",
                 kind_names[kind], name ? name : "", list);
    return NULL;
  }
}

JsonNode *
plx_presets_expand (PlxPresetKind kind,
                    JsonNode     *node,
                    const char   *source,
                    const char   *key,
                    gboolean     *had_preset,
                    GError      **error)
{
  g_autoptr (JsonNode) base = NULL;
  g_autoptr (JsonNode) overrides = NULL;
  JsonNode *merged;
  const char *preset = NULL;
  gboolean unused;

  /* Callers that do not ask which (calibrate --nccl-tests) pass NULL. */
  if (had_preset == NULL)
    had_preset = &unused;
  *had_preset = FALSE;
  if (!plx_json_get_string (json_node_get_object (node), source, key, "preset", FALSE, &preset, error))
    return NULL;
  if (preset == NULL)
    return plx_json_deep_copy (node);

  base = plx_presets_lookup (kind, preset, error);
  if (base == NULL)
    {
      g_prefix_error (error, "%s: %s.preset: ", source, key);
      return NULL;
    }
  /* Keys beside "preset" override the preset's values (FORMATS.md §1). */
  overrides = plx_json_deep_copy (node);
  json_object_remove_member (json_node_get_object (overrides), "preset");
  merged = plx_json_merge (base, overrides);
  if (!json_object_has_member (json_node_get_object (merged), "name"))
    json_object_set_string_member (json_node_get_object (merged), "name", preset);
  *had_preset = TRUE;
  return merged;
}
