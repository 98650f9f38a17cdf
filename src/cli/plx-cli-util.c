#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/plx-input.h"
#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "base/plx-presets.h"
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
  /* Usage errors quote command-line values: shown, not obeyed, by a terminal. */
  fprintf (stderr, "parallax-cli: %s (see parallax-cli --help)\n", plx_cli_shown (msg));
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

/* The last strings plx_cli_shown made, freed as the ring turns (a message line never
 * holds more than a few). */
#define N_SHOWN 8
static char *shown[N_SHOWN];
static guint next_shown;

const char *
plx_cli_shown (const char *text)
{
  char **slot = &shown[next_shown++ % N_SHOWN];

  g_free (*slot);
  *slot = plx_printable (text != NULL ? text : "");
  return *slot;
}

/* Set when a document could not be printed: the command then fails (exit 1). */
static gboolean output_failed;

void
print_json (JsonNode *node)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *text = plx_json_to_text (node, TRUE, &error);

  if (text == NULL)
    {
      user_error (error);
      output_failed = TRUE;
      return;
    }
  printf ("%s\n", text);
}

int
plx_cli_finish_output (int status)
{
  int saved;

  errno = 0;
  if (fflush (stdout) == 0 && !ferror (stdout))
    return output_failed && status == 0 ? EXIT_USER : status;
  /* A full disk or a closed pipe: the output is lost, which is never a success. */
  saved = errno != 0 ? errno : EIO;
  fprintf (stderr, "parallax-cli: writing to standard output: %s\n", g_strerror (saved));
  return status != 0 ? status : EXIT_USER;
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
