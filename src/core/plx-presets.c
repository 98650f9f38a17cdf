#include <string.h>

#include "parallax/plx-error.h"
#include "parallax/plx-json.h"
#include "parallax/plx-presets.h"

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

char **
plx_presets_list (PlxPresetKind kind)
{
  g_auto (GStrv) children = g_resource_enumerate_children (plx_get_resource (), kind_dirs[kind],
                                                           G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  GPtrArray *names = g_ptr_array_new ();

  for (guint i = 0; children != NULL && children[i] != NULL; i++)
    if (g_str_has_suffix (children[i], ".json"))
      g_ptr_array_add (names, g_strndup (children[i], strlen (children[i]) - 5));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
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

  /* A name is a bare identifier: no path tricks into other resources. */
  if (name == NULL || *name == '\0' || strchr (name, '/') != NULL)
    goto not_found;
  path = g_strdup_printf ("%s/%s.json", kind_dirs[kind], name);
  bytes = g_resource_lookup_data (plx_get_resource (), path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  if (bytes == NULL)
    goto not_found;
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
