/* parallax-cli sweep: a sweep file (models x clusters x GPU counts x batch sizes,
 * docs/sweeps.md) expanded into scenario files and a task list a scheduler runs one
 * line at a time, and the merge of every scenario's parts.
 *
 * The task list holds, per line, the arguments of one `parallax-cli search` with paths
 * relative to the list's directory: a Slurm array task runs line $SLURM_ARRAY_TASK_ID
 * and needs nothing else, and the directory can move between the login node and the
 * compute nodes' shared file system. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <glib/gstdio.h>

#include "base/plx-input.h"
#include "parallax/parallax.h"

#include "plx-cli-options.h"
#include "plx-cli-sweep.h"
#include "plx-cli-util.h"
#include "base/plx-json.h"
#include "base/plx-output.h"
#include "optimize/plx-merge-list.h"

#define TASKS_FILE "tasks.txt"
#define MERGES_FILE "merges.txt"

/* What `sweep --help` says beyond its (empty) flag list. */
static const char *const sweep_summary =
  "  parallax-cli sweep expand SWEEP.json --shards N --dir DIR\n"
  "  parallax-cli sweep run-task DIR/tasks.txt I\n"
  "  parallax-cli sweep merge DIR\n"
  "\n"
  "expand writes DIR/scenarios/NAME.json for every model x cluster x GPU count x batch size\n"
  "of the sweep file, and DIR/tasks.txt with one search shard a line (N per scenario).\n"
  "run-task runs line I (0-based, as $SLURM_ARRAY_TASK_ID counts) into DIR/parts/.\n"
  "merge merges each scenario's parts into DIR/results/NAME.json and NAME.csv (docs/sweeps.md).\n"
  "Each takes --help.";

/* This program, to run a search or a merge as a process of its own. */
static char *
self_path (GError **error)
{
  return g_file_read_link ("/proc/self/exe", error);
}

/* A name safe in a file name and a tab-separated line. */
static char *
label (JsonNode *entry, const char *kind, guint index)
{
  const char *text = NULL;
  char *out;

  if (JSON_NODE_HOLDS_VALUE (entry) && json_node_get_value_type (entry) == G_TYPE_STRING)
    text = json_node_get_string (entry);
  else if (JSON_NODE_HOLDS_OBJECT (entry))
    {
      JsonObject *o = json_node_get_object (entry);
      static const char *const keys[] = { "name", "preset", "hf_config" };
      for (guint k = 0; text == NULL && k < G_N_ELEMENTS (keys); k++)
        if (json_object_has_member (o, keys[k]) && JSON_NODE_HOLDS_VALUE (json_object_get_member (o, keys[k])))
          text = json_object_get_string_member (o, keys[k]);
    }
  if (text == NULL || text[0] == '\0')
    return g_strdup_printf ("%s%u", kind, index + 1);
  out = g_path_get_basename (text);
  if (g_str_has_suffix (out, ".json"))
    out[strlen (out) - 5] = '\0';
  g_strcanon (out, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-", '-');
  return out;
}

/* A list member of whole numbers from 1 up. */
static GArray *
positive_list (JsonObject *root, const char *key, const char *path, GError **error)
{
  JsonNode *node = json_object_get_member (root, key);
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (gint64));
  JsonArray *a;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node) || json_array_get_length (a = json_node_get_array (node)) == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY, "%s: \"%s\" must be a list of at least one value", path,
                   key);
      return NULL;
    }
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      gint64 v = JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_INT64 ? json_node_get_int (e) : 0;
      if (v < 1 || v > 10000000)
        {
          g_autofree char *text = plx_json_value_to_string (e);
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %s[%u] is %s, not a whole number from 1 to 10000000",
                       path, key, i, text);
          return NULL;
        }
      g_array_append_val (out, v);
    }
  return g_steal_pointer (&out);
}

static JsonArray *
entry_list (JsonObject *root, const char *key, const char *path, GError **error)
{
  JsonNode *node = json_object_get_member (root, key);
  JsonArray *a;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node) || json_array_get_length (a = json_node_get_array (node)) == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY,
                   "%s: \"%s\" must be a list of at least one preset name or object", path, key);
      return NULL;
    }
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      if (!JSON_NODE_HOLDS_OBJECT (e) && !(JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_STRING))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %s[%u] is neither a preset name nor an object",
                       path, key, i);
          return NULL;
        }
    }
  return a;
}

static JsonNode *
object_node (void)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, json_object_new ());
  return node;
}

/* {"preset": NAME} for a name, a copy of an object; a relative hf_config made absolute,
 * as the scenario files live elsewhere. */
static JsonNode *
entry_node (JsonNode *entry, const char *sweep_dir)
{
  JsonNode *out;
  JsonObject *o;

  if (!JSON_NODE_HOLDS_OBJECT (entry))
    {
      out = json_node_new (JSON_NODE_OBJECT);
      o = json_object_new ();
      json_object_set_string_member (o, "preset", json_node_get_string (entry));
      json_node_take_object (out, o);
      return out;
    }
  out = plx_json_deep_copy (entry);
  o = json_node_get_object (out);
  if (json_object_has_member (o, "hf_config") && JSON_NODE_HOLDS_VALUE (json_object_get_member (o, "hf_config")))
    {
      const char *p = json_object_get_string_member (o, "hf_config");
      if (p != NULL && !g_path_is_absolute (p))
        {
          g_autofree char *abs = g_build_filename (sweep_dir, p, NULL);
          json_object_set_string_member (o, "hf_config", abs);
        }
    }
  return out;
}

/* The search flags the sweep's "search" object asks for, appended to a task line. */
static gboolean
search_flags (JsonObject *root, GString *flags, const char *path, GError **error)
{
  static const char *const known[] = { "top", "fix", "headroom", "uneven_stages", "threads", NULL };
  JsonNode *node = json_object_get_member (root, "search");
  JsonObject *o;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: \"search\" must be an object", path);
      return FALSE;
    }
  o = json_node_get_object (node);
  if (!plx_json_check_keys (o, path, "search", known, error))
    return FALSE;
  for (guint k = 0; known[k] != NULL; k++)
    {
      JsonNode *v = json_object_get_member (o, known[k]);
      g_autofree char *flag = g_strdup_printf ("--%s", known[k]);
      g_autofree char *text = NULL;

      if (v == NULL)
        continue;
      g_strdelimit (flag, "_", '-');
      if (!JSON_NODE_HOLDS_VALUE (v))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: search.%s must be a value", path, known[k]);
          return FALSE;
        }
      if (json_node_get_value_type (v) == G_TYPE_BOOLEAN)
        {
          if (json_node_get_boolean (v))
            g_string_append_printf (flags, "\t%s", flag);
          continue;
        }
      text = json_node_get_value_type (v) == G_TYPE_STRING ? g_strdup (json_node_get_string (v))
                                                            : plx_json_value_to_string (v);
      if (strchr (text, '\t') != NULL || strchr (text, '\n') != NULL)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: search.%s holds a tab or a line break", path,
                       known[k]);
          return FALSE;
        }
      /* The search checks the value, as it would on its command line. */
      g_string_append_printf (flags, "\t%s\t%s", flag, text);
    }
  return TRUE;
}

static gboolean
write_file (const char *path, const char *text, GError **error)
{
  return plx_output_write_file (path, text, -1, error);
}

static gboolean
expand (const char *sweep_path, guint n_shards, const char *dir, GError **error)
{
  static const char *const known[] = { "name", "models", "clusters", "gpus", "global_batch_sizes", "seq_length",
                                       "strategy", "search", NULL };
  g_autoptr (JsonNode) node = plx_json_parse_file (sweep_path, error);
  g_autofree char *sweep_dir = NULL;
  g_autoptr (GArray) gpus = NULL;
  g_autoptr (GArray) batches = NULL;
  g_autoptr (GString) tasks = g_string_new (NULL);
  g_autoptr (GString) merges = g_string_new (NULL);
  g_autoptr (GString) flags = g_string_new (NULL);
  g_autoptr (GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  JsonObject *root, *strategy = NULL;
  JsonArray *models, *clusters;
  gint64 seq = 0;
  guint n_scenarios = 0;

  if (node == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: a sweep file is a JSON object", sweep_path);
      return FALSE;
    }
  root = json_node_get_object (node);
  if (!plx_json_check_keys (root, sweep_path, "", known, error) ||
      (models = entry_list (root, "models", sweep_path, error)) == NULL ||
      (clusters = entry_list (root, "clusters", sweep_path, error)) == NULL ||
      (gpus = positive_list (root, "gpus", sweep_path, error)) == NULL ||
      (batches = positive_list (root, "global_batch_sizes", sweep_path, error)) == NULL ||
      !search_flags (root, flags, sweep_path, error))
    return FALSE;
  if (json_object_has_member (root, "seq_length"))
    {
      JsonNode *v = json_object_get_member (root, "seq_length");
      seq = JSON_NODE_HOLDS_VALUE (v) && json_node_get_value_type (v) == G_TYPE_INT64 ? json_node_get_int (v) : 0;
      if (seq < 1 || seq > 100000000)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: \"seq_length\" must be a whole number from 1",
                       sweep_path);
          return FALSE;
        }
    }
  if (json_object_has_member (root, "strategy"))
    {
      JsonNode *v = json_object_get_member (root, "strategy");
      if (!JSON_NODE_HOLDS_OBJECT (v))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: \"strategy\" must be an object", sweep_path);
          return FALSE;
        }
      strategy = json_node_get_object (v);
    }
  sweep_dir = g_path_get_dirname (sweep_path);
  {
    g_autofree char *abs = g_canonicalize_filename (sweep_dir, NULL);
    g_free (sweep_dir);
    sweep_dir = g_steal_pointer (&abs);
  }
  {
    static const char *const subdirs[] = { "scenarios", "parts", "results" };
    for (guint k = 0; k < G_N_ELEMENTS (subdirs); k++)
      {
        g_autofree char *sub = g_build_filename (dir, subdirs[k], NULL);
        if (g_mkdir_with_parents (sub, 0755) != 0)
          {
            g_set_error (error, PLX_ERROR, PLX_ERROR_IO, "%s: cannot create: %s", sub, g_strerror (errno));
            return FALSE;
          }
      }
  }

  for (guint mi = 0; mi < json_array_get_length (models); mi++)
    for (guint ci = 0; ci < json_array_get_length (clusters); ci++)
      for (guint gi = 0; gi < gpus->len; gi++)
        for (guint bi = 0; bi < batches->len; bi++)
          {
            JsonNode *model_entry = json_array_get_element (models, mi);
            JsonNode *cluster_entry = json_array_get_element (clusters, ci);
            gint64 n_gpus = g_array_index (gpus, gint64, gi), batch = g_array_index (batches, gint64, bi);
            g_autofree char *model_label = label (model_entry, "model", mi);
            g_autofree char *cluster_label = label (cluster_entry, "cluster", ci);
            g_autofree char *name = g_strdup_printf ("%s_%s_g%" G_GINT64_FORMAT "_b%" G_GINT64_FORMAT, model_label,
                                                     cluster_label, n_gpus, batch);
            g_autoptr (JsonNode) scenario = object_node ();
            JsonObject *sc = json_node_get_object (scenario);
            JsonNode *cluster_node = entry_node (cluster_entry, sweep_dir);
            g_autoptr (JsonNode) st_node = strategy != NULL ? plx_json_deep_copy (json_object_get_member (root, "strategy"))
                                                            : object_node ();
            JsonObject *st = json_node_get_object (st_node);
            g_autoptr (PlxScenario) probe = NULL;
            g_autoptr (GError) probe_error = NULL;
            g_autofree char *file = NULL;
            guint per_node;

            /* Two entries with one label (two inline models without a name) stay apart. */
            for (guint k = 2; g_hash_table_contains (names, name); k++)
              {
                g_free (name);
                name = g_strdup_printf ("%s_%s-%u_g%" G_GINT64_FORMAT "_b%" G_GINT64_FORMAT, model_label, cluster_label,
                                        k, n_gpus, batch);
              }
            g_hash_table_add (names, g_strdup (name));

            json_object_set_string_member (sc, "name", name);
            json_object_set_member (sc, "model", entry_node (model_entry, sweep_dir));
            json_object_set_member (sc, "cluster", cluster_node);
            json_object_set_int_member (st, "global_batch_size", batch);
            if (seq > 0)
              json_object_set_int_member (st, "seq_length", seq);
            json_object_set_object_member (sc, "strategy", json_object_ref (st));

            /* The GPU count as whole nodes of this cluster: its node size from the
             * cluster as the scenario will load it. */
            json_object_set_int_member (json_node_get_object (cluster_node), "num_nodes", 1);
            probe = plx_scenario_new_unresolved (scenario, sweep_dir, sweep_path, &probe_error);
            if (probe == NULL)
              {
                g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: models[%u] x clusters[%u]: %s", sweep_path,
                             mi, ci, probe_error->message);
                return FALSE;
              }
            per_node = probe->cluster->gpus_per_node;
            if (per_node == 0 || n_gpus % per_node != 0)
              {
                g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                             "%s: gpus[%u] is %" G_GINT64_FORMAT ", not a whole number of %s's %u-GPU nodes", sweep_path,
                             gi, n_gpus, cluster_label, per_node);
                return FALSE;
              }
            json_object_set_int_member (json_node_get_object (cluster_node), "num_nodes", n_gpus / per_node);

            file = g_strdup_printf ("%s/scenarios/%s.json", dir, name);
            if (!plx_json_write_file (scenario, file, error))
              return FALSE;
            g_string_append_printf (merges, "results/%s", name);
            for (guint s = 1; s <= n_shards; s++)
              {
                g_string_append_printf (tasks, "search\tscenarios/%s.json\t--shard\t%u/%u\t--out\tparts/%s.%u-of-%u.jsonl%s\n",
                                        name, s, n_shards, name, s, n_shards, flags->str);
                g_string_append_printf (merges, "\tparts/%s.%u-of-%u.jsonl", name, s, n_shards);
              }
            g_string_append_c (merges, '\n');
            n_scenarios++;
          }

  {
    g_autofree char *tasks_path = g_build_filename (dir, TASKS_FILE, NULL);
    g_autofree char *merges_path = g_build_filename (dir, MERGES_FILE, NULL);
    if (!write_file (tasks_path, tasks->str, error) || !write_file (merges_path, merges->str, error))
      return FALSE;
    printf ("%u scenarios x %u shards: %u tasks in %s (sbatch --array=0-%u), merged by parallax-cli sweep merge %s\n",
            n_scenarios, n_shards, n_scenarios * n_shards, plx_cli_shown (tasks_path), n_scenarios * n_shards - 1,
            plx_cli_shown (dir));
  }
  return TRUE;
}

/* The tab-separated lines of a list file, the empty last one dropped. */
static GStrv
read_lines (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) io_error = NULL;
  GStrv lines;
  guint n;

  if (!plx_input_get_contents (path, &text, NULL, &io_error))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_IO, "%s: cannot read: %s", path, io_error->message);
      return NULL;
    }
  lines = g_strsplit (text, "\n", -1);
  n = g_strv_length (lines);
  if (n > 0 && lines[n - 1][0] == '\0')
    {
      g_free (lines[n - 1]);
      lines[n - 1] = NULL;
    }
  return lines;
}

/* Runs this program with `args` in `cwd`; its standard output kept when `out` is not
 * NULL, else passed through. Returns its exit status (or EXIT_USER if it could not run). */
static int
run_self (const char *cwd, GStrv args, char **out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  char *self = self_path (&error);
  int wait_status = 0;

  if (self == NULL)
    return user_error (error);
  g_ptr_array_add (argv, self);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (args[i]));
  g_ptr_array_add (argv, NULL);
  fflush (stdout);
  if (!g_spawn_sync (cwd, (char **) argv->pdata, NULL, out != NULL ? G_SPAWN_CHILD_INHERITS_STDERR
                                                                   : G_SPAWN_CHILD_INHERITS_STDOUT | G_SPAWN_CHILD_INHERITS_STDERR,
                     NULL, NULL, out, NULL, &wait_status, &error))
    return user_error (error);
  if (!WIFEXITED (wait_status))
    {
      g_autoptr (GError) died = g_error_new (PLX_ERROR, PLX_ERROR_IO, "%s %s did not exit normally", args[0],
                                             args[1] != NULL ? args[1] : "");
      return user_error (died);
    }
  return WEXITSTATUS (wait_status);
}

static int
run_task (const char *list, const char *index_text)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) lines = read_lines (list, &error);
  g_auto (GStrv) args = NULL;
  g_autofree char *dir = NULL;
  char *end = NULL;
  gint64 index;
  guint n;

  if (lines == NULL)
    return user_error (error);
  n = g_strv_length (lines);
  index = g_ascii_strtoll (index_text, &end, 10);
  if (end == index_text || *end != '\0' || index < 0 || index >= (gint64) n)
    return usage_error ("sweep run-task: \"%s\" is not a task of %s (0 to %d)", index_text, list, (int) n - 1);
  args = g_strsplit (lines[index], "\t", -1);
  /* The list runs searches only, whatever else a file may hold. */
  if (args[0] == NULL || !g_str_equal (args[0], "search"))
    {
      g_autoptr (GError) bad = g_error_new (PLX_ERROR, PLX_ERROR_PARSE, "%s:%" G_GINT64_FORMAT ": not a search task",
                                            list, index + 1);
      return user_error (bad);
    }
  dir = g_path_get_dirname (list);
  return run_self (dir, args, NULL);
}

static int
merge_all (const char *dir)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *merges_path = g_build_filename (dir, MERGES_FILE, NULL);
  g_autofree char *text = NULL;
  g_autoptr (GPtrArray) entries = NULL;
  gsize length = 0;
  int status = 0;

  text = plx_json_read_text_file (merges_path, &length, &error);
  if (text == NULL)
    return user_error (error);
  entries = plx_merge_list_parse (text, (gssize) length, merges_path, &error);
  if (entries == NULL)
    return user_error (error);
  for (guint i = 0; i < entries->len; i++)
    {
      const PlxMergeEntry *e = entries->pdata[i];
      /* Valid by plx_merge_list_parse: "results/" then a plain name. */
      const char *name = e->result + strlen ("results/");
      g_autoptr (GPtrArray) args = g_ptr_array_new ();
      g_autofree char *csv = NULL;
      g_autofree char *json_path = NULL;
      g_autofree char *out = NULL;
      g_autoptr (JsonNode) result = NULL;
      int rc;

      csv = g_strdup_printf ("%s.csv", e->result);
      g_ptr_array_add (args, (gpointer) "merge");
      for (guint k = 0; e->parts[k] != NULL; k++)
        g_ptr_array_add (args, e->parts[k]);
      g_ptr_array_add (args, (gpointer) "--json");
      g_ptr_array_add (args, (gpointer) "--csv");
      g_ptr_array_add (args, csv);
      g_ptr_array_add (args, NULL);
      rc = run_self (dir, (GStrv) args->pdata, &out);
      if (rc != 0)
        {
          status = rc;
          continue;
        }
      json_path = g_strdup_printf ("%s/%s.json", dir, e->result);
      if (!write_file (json_path, out, &error))
        return user_error (error);
      /* One line a scenario: its best strategy. */
      result = json_from_string (out, NULL);
      {
        JsonObject *o = result != NULL && JSON_NODE_HOLDS_OBJECT (result) ? json_node_get_object (result) : NULL;
        JsonArray *rs = o != NULL && json_object_has_member (o, "results") ? json_object_get_array_member (o, "results") : NULL;
        if (rs != NULL && json_array_get_length (rs) > 0)
          {
            JsonObject *b = json_array_get_object_element (rs, 0);
            printf ("%-40s tp %2" G_GINT64_FORMAT " pp %2" G_GINT64_FORMAT " dp %4" G_GINT64_FORMAT " mbs %2"
                    G_GINT64_FORMAT "  %8.3f s  MFU %5.1f %%\n", name,
                    json_object_get_int_member (b, "tp"), json_object_get_int_member (b, "pp"),
                    json_object_get_int_member (b, "dp"), json_object_get_int_member (b, "micro_batch_size"),
                    json_object_get_double_member (b, "step_time_s"), 100.0 * json_object_get_double_member (b, "mfu"));
          }
        else
          printf ("%-40s no strategy fits in memory\n", name);
      }
    }
  return status;
}

static int
sweep_expand (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL, *shards_text = NULL;
  char **paths;
  guint n_shards = 1;
  const GOptionEntry entries[] = {
    { "shards", 0, 0, G_OPTION_ARG_STRING, &shards_text, "search shards per scenario (1)", "N" },
    { "dir", 0, 0, G_OPTION_ARG_FILENAME, &dir, "where the scenarios and the task list go", "DIR" },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (PlxCliOptions) options = plx_cli_options_new (
    "sweep expand", "SWEEP.json",
    "Write DIR/scenarios/NAME.json for every model x cluster x GPU count x batch size of\n"
    "the sweep file, and DIR/tasks.txt with one search shard a line (N per scenario).",
    NULL);
  int status;

  plx_cli_options_add_entries (options, entries);
  status = plx_cli_options_parse (options, argc, argv);
  if (status != PLX_CLI_OPTIONS_CONTINUE)
    return status;
  if (shards_text != NULL)
    {
      char *end = NULL;
      gint64 n = g_ascii_strtoll (shards_text, &end, 10);
      if (*end != '\0' || n < 1 || n > 100000)
        return usage_error ("--shards: \"%s\" is not a whole number from 1 to 100000", shards_text);
      n_shards = (guint) n;
    }
  paths = plx_cli_options_positionals (options);
  if (paths[0] != NULL && paths[1] != NULL)
    return usage_error ("sweep expand: more than one sweep file (\"%s\", \"%s\")", paths[0], paths[1]);
  if (paths[0] == NULL || dir == NULL)
    return usage_error ("sweep expand needs SWEEP.json and --dir DIR");
  if (!expand (paths[0], n_shards, dir, &error))
    return user_error (error);
  return 0;
}

/* run-task and merge take no flags but --help: `n_args` arguments. */
static int
sweep_positionals (int argc, char **argv, const char *parameters, const char *summary, guint n_args,
                   const char *missing, char ***args)
{
  g_autofree char *command = g_strdup_printf ("sweep %s", argv[1]);
  g_autoptr (PlxCliOptions) options = plx_cli_options_new (command, parameters, summary, NULL);
  int status = plx_cli_options_parse (options, argc, argv);

  if (status != PLX_CLI_OPTIONS_CONTINUE)
    return status;
  if (plx_cli_options_n_positionals (options) != n_args)
    return usage_error ("%s", missing);
  *args = g_strdupv (plx_cli_options_positionals (options));
  return PLX_CLI_OPTIONS_CONTINUE;
}

int
plx_cli_sweep (int    argc,
               char **argv)
{
  const char *sub = argc > 2 ? argv[2] : NULL;
  g_auto (GStrv) args = NULL;
  int status;

  if (sub == NULL || sub[0] == '-')
    {
      g_autoptr (PlxCliOptions) options = plx_cli_options_new ("sweep", "expand|run-task|merge ...", sweep_summary,
                                                               NULL);
      g_autofree char *help = NULL;

      status = plx_cli_options_parse (options, argc, argv);
      if (status != PLX_CLI_OPTIONS_CONTINUE)
        return status;
      /* No subcommand: what there is to choose from, and a usage error. */
      help = plx_cli_options_help (options);
      fputs (help, stdout);
      return EXIT_USAGE;
    }
  /* The subcommand stands where a command does: its arguments follow it. */
  if (g_str_equal (sub, "expand"))
    return sweep_expand (argc - 1, argv + 1);
  if (g_str_equal (sub, "run-task"))
    {
      status = sweep_positionals (argc - 1, argv + 1, "DIR/tasks.txt I",
                                  "Run line I (0-based, as $SLURM_ARRAY_TASK_ID counts) of the task list into "
                                  "DIR/parts/.",
                                  2, "sweep run-task needs LIST and I (0-based)", &args);
      return status != PLX_CLI_OPTIONS_CONTINUE ? status : run_task (args[0], args[1]);
    }
  if (g_str_equal (sub, "merge"))
    {
      status = sweep_positionals (argc - 1, argv + 1, "DIR",
                                  "Merge each scenario's parts into DIR/results/NAME.json and NAME.csv "
                                  "(docs/sweeps.md).",
                                  1, "sweep merge needs DIR (where sweep expand wrote)", &args);
      return status != PLX_CLI_OPTIONS_CONTINUE ? status : merge_all (args[0]);
    }
  return usage_error ("sweep: unknown subcommand \"%s\" (expand, run-task, merge)", sub);
}
