#include <stdio.h>
#include <string.h>

#include "parallax/plx-input.h"
#include "parallax/plx-error.h"
#include "parallax/plx-json.h"
#include "parallax/plx-presets.h"
#include "parallax/plx-scenario.h"
#include "plx-cli-util.h"

int
usage_error (const char *fmt, ...)
{
  va_list args;
  g_autofree char *msg = NULL;

  va_start (args, fmt);
  msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  fprintf (stderr, "parallax-cli: %s (see parallax-cli --help)\n", msg);
  return EXIT_USAGE;
}

int
user_error (const GError *error)
{
  g_autofree char *line = g_strdup (error->message);
  g_autofree char *safe = NULL;

  /* One line, as scripts read it, and nothing a terminal would obey (a file name or
   * value may carry escape sequences). */
  g_strdelimit (line, "\n\r", ' ');
  safe = plx_printable (line);
  fprintf (stderr, "parallax-cli: %s\n", safe);
  return EXIT_USER;
}

void
print_json (JsonNode *node)
{
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autofree char *text = NULL;

  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, node);
  text = json_generator_to_data (gen, NULL);
  printf ("%s\n", text);
}

gboolean
plx_cli_names_file (const char *name)
{
  return strchr (name, '/') != NULL || g_str_has_suffix (name, ".json") || plx_input_is_stdin (name);
}

JsonNode *
plx_cli_cluster_json (const char *name,
                      GError    **error)
{
  g_autoptr (JsonNode) node = NULL;

  if (!plx_cli_names_file (name))
    return plx_presets_lookup (PLX_PRESET_CLUSTER, name, error);
  node = plx_json_parse_file (name, error);
  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: a cluster file is a JSON object", name);
      return NULL;
    }
  return plx_presets_expand (PLX_PRESET_CLUSTER, node, name, "cluster", NULL, error);
}

PlxCluster *
plx_cli_load_cluster (const char *name,
                      guint       nodes,
                      GError    **error)
{
  g_autoptr (PlxCluster) c = NULL;

  if (name == NULL)
    {
      g_autoptr (JsonNode) sc = plx_scenario_default_json ();
      c = plx_cluster_new_from_json (json_object_get_member (json_node_get_object (sc), "cluster"),
                                     "built-in default scenario", error);
    }
  else if (plx_cli_names_file (name))
    {
      g_autoptr (JsonNode) node = plx_json_parse_file (name, error);
      if (node != NULL)
        c = plx_cluster_new_from_json (node, name, error);
    }
  else
    c = plx_cluster_new_preset (name, error);
  if (c != NULL && nodes > 0)
    c->num_nodes = nodes;
  return g_steal_pointer (&c);
}
