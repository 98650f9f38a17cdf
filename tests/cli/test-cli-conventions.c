/* test-cli-conventions.c: what every parallax-cli command accepts alike (docs/cli.md):
 * --version after any command, help COMMAND as COMMAND --help, "-" as standard input,
 * and a main help that names every command. The references are the CLI's own other
 * spelling of the same request (COMMAND --help, a file named on the command line):
 * what is asserted is that the two spellings agree, and the specific errors. */
#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "test-cli-run.h"
#include "test-files.h"

static const char *const commands[] = {
  "presets", "simulate", "plan", "compare", "search", "merge", "sweep", "partition",
  "fuse", "reshard", "validate", "calibrate", "import", NULL,
};

/* Runs parallax-cli with `input` (NULL: none) on standard input; returns its exit status. */
static int
run_with_input (const char *input, char **out, char **err, const char *first, ...)
{
  va_list ap;
  int status;

  va_start (ap, first);
  status = run_va (NULL, input, out, err, first, ap);
  va_end (ap);
  return status;
}

#define run_list(out, err, ...) run_with_input (NULL, out, err, __VA_ARGS__)

static char *
data_path (const char *dir, const char *name)
{
  return g_build_filename (g_getenv ("G_TEST_SRCDIR"), dir, name, NULL);
}

static void
test_version_on_every_command (void)
{
  g_autofree char *reference = NULL;

  g_assert_cmpint (run_list (&reference, NULL, "--version", NULL), ==, 0);
  g_assert_true (g_str_has_prefix (reference, "parallax-cli "));
  for (guint i = 0; commands[i] != NULL; i++)
    {
      g_autofree char *out = NULL;
      /* After other arguments too: --version wins over what they would have done. */
      g_assert_cmpint (run_list (&out, NULL, commands[i], "--json", "--version", NULL), ==, 0);
      g_assert_cmpstr (out, ==, reference);
    }
}

static void
test_help_command (void)
{
  g_autofree char *main_help = NULL, *help_alone = NULL, *err = NULL;

  g_assert_cmpint (run_list (&main_help, NULL, "--help", NULL), ==, 0);
  g_assert_cmpint (run_list (&help_alone, NULL, "help", NULL), ==, 0);
  g_assert_cmpstr (help_alone, ==, main_help);
  for (guint i = 0; commands[i] != NULL; i++)
    {
      g_autofree char *via_help = NULL, *via_flag = NULL, *usage = NULL;

      g_assert_cmpint (run_list (&via_help, NULL, "help", commands[i], NULL), ==, 0);
      g_assert_cmpint (run_list (&via_flag, NULL, commands[i], "--help", NULL), ==, 0);
      g_assert_cmpstr (via_help, ==, via_flag);
      /* A usage line for the command (fuse shares the graph commands' help). */
      usage = g_strdup_printf ("parallax-cli %s ", commands[i]);
      g_assert_true (g_str_has_prefix (via_help, "Usage: "));
      g_assert_nonnull (strstr (via_help, usage));
    }
  g_assert_cmpint (run_list (NULL, &err, "help", "frobnicate", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "unknown command \"frobnicate\""));
}

static void
test_main_help_lists_every_command (void)
{
  g_autofree char *help = NULL;

  g_assert_cmpint (run_list (&help, NULL, "--help", NULL), ==, 0);
  for (guint i = 0; commands[i] != NULL; i++)
    {
      g_autofree char *entry = g_strdup_printf ("\n  %s ", commands[i]);
      g_assert_nonnull (strstr (help, entry));
    }
  g_assert_nonnull (strstr (help, "calibrate --nccl-tests"));
  g_assert_nonnull (strstr (help, "calibrate --kineto"));
}

/* The same file named and piped gives the same report. */
static void
test_stdin_scenario_and_table (void)
{
  const char *files[][2] = { { "../examples", "gpt3-1f1b-full.json" }, { "data", "bloom176b.json" } };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = data_path (files[i][0], files[i][1]);
      g_autofree char *text = NULL, *named = NULL, *piped = NULL;
      const char *cmd = i == 0 ? "simulate" : "validate";

      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      g_assert_cmpint (run_list (&named, NULL, cmd, path, "--json", NULL), ==, 0);
      g_assert_cmpint (run_with_input (text, &piped, NULL, cmd, "-", "--json", NULL), ==, 0);
      if (i == 1)
        {
          /* A table's report names its file: the basename, or "<stdin>". */
          g_autofree char *from = g_strdup_printf ("\"file\" : \"%s\"", files[i][1]);
          g_auto (GStrv) parts = g_strsplit (named, from, -1);
          g_assert_cmpuint (g_strv_length (parts), ==, 2);
          g_free (named);
          named = g_strjoinv ("\"file\" : \"<stdin>\"", parts);
        }
      g_assert_cmpstr (piped, ==, named);
    }
}

/* A trace's report names its source: "<stdin>" for "-", and the rest is the file's. */
static void
test_stdin_trace_named_stdin (void)
{
  g_autofree char *path = data_path ("data/kineto", "hta-nccl-rank0.json");
  g_autofree char *text = NULL, *named = NULL, *piped = NULL, *expected = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpint (run_list (&named, NULL, "calibrate", "--kineto", path, NULL), ==, 0);
  g_assert_cmpint (run_with_input (text, &piped, NULL, "calibrate", "--kineto", "-", NULL), ==, 0);
  g_assert_true (g_str_has_prefix (named, path));
  expected = g_strconcat ("<stdin>", named + strlen (path), NULL);
  g_assert_cmpstr (piped, ==, expected);
}

/* A cluster file piped in: `--cluster -` as the same JSON named by a file. */
static void
test_stdin_cluster (void)
{
  const char *cluster = "{\"preset\": \"dgx-h100-80gb\", \"num_nodes\": 16}";
  g_autofree char *dir = g_dir_make_tmp ("plx-conv-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "c.json", NULL);
  g_autofree char *named = NULL, *piped = NULL;

  g_assert_true (g_file_set_contents (path, cluster, -1, NULL));
  g_assert_cmpint (run_list (&named, NULL, "simulate", "--cluster", path, "--engine", "analytical", NULL), ==, 0);
  g_assert_cmpint (run_with_input (cluster, &piped, NULL, "simulate", "--cluster", "-", "--engine", "analytical", NULL), ==, 0);
  g_assert_cmpstr (piped, ==, named);
  g_unlink (path);
  g_rmdir (dir);
}

/* A Hugging Face config.json piped in: `--model -` as the same file named. */
static void
test_stdin_model (void)
{
  g_autofree char *path = data_path ("data/hf-configs", "meta-llama--Llama-2-13b-hf.json");
  g_autofree char *text = NULL, *named = NULL, *piped = NULL, *err = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpint (run_list (&named, NULL, "simulate", "--model", path, "--engine", "analytical", NULL), ==, 0);
  g_assert_cmpint (run_with_input (text, &piped, NULL, "simulate", "--model", "-", "--engine", "analytical", NULL), ==, 0);
  g_assert_cmpstr (piped, ==, named);
  /* A graph of ops piped the same way: the CLI looks, then runs it as a graph. */
  {
    g_autofree char *graph = data_path ("data/graphs", "mlp-2layer.json");
    g_autofree char *graph_text = NULL, *graph_named = NULL, *graph_piped = NULL;

    g_assert_true (g_file_get_contents (graph, &graph_text, NULL, NULL));
    g_assert_cmpint (run_list (&graph_named, NULL, "simulate", "--model", graph, "--json", NULL), ==, 0);
    g_assert_cmpint (run_with_input (graph_text, &graph_piped, NULL, "simulate", "--model", "-", "--json", NULL), ==, 0);
    g_assert_cmpstr (graph_piped, ==, graph_named);
  }
  /* It was taken for a preset named "-". */
  g_assert_cmpint (run_with_input ("{\"model_type\": ", NULL, &err, "simulate", "--model", "-", NULL), ==, 1);
  g_assert_true (g_str_has_prefix (err, "parallax-cli: --model: <stdin>: not valid JSON"));
}

/* `--model ORG/NAME`: a hub id found in the Hugging Face cache ($HF_HUB_CACHE), run as
 * that snapshot's config.json named, and named by the id; one not there says where it
 * looked (a path-like id once went to the folder of that name in the working one). */
static void
test_model_hub_id (void)
{
  g_autofree char *cache = g_dir_make_tmp ("plx-hub-XXXXXX", NULL);
  g_autofree char *snap = g_build_filename (cache, "models--meta-llama--Llama-2-13b-hf", "snapshots", "c2f3ec8", NULL);
  g_autofree char *config = g_build_filename (snap, "config.json", NULL);
  g_autofree char *path = data_path ("data/hf-configs", "meta-llama--Llama-2-13b-hf.json");
  g_autofree char *text = NULL, *by_id = NULL, *named = NULL, *err = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpint (g_mkdir_with_parents (snap, 0700), ==, 0);
  g_assert_true (g_file_set_contents (config, text, -1, NULL));
  g_setenv ("HF_HUB_CACHE", cache, TRUE);
  g_assert_cmpint (run_list (&by_id, NULL, "simulate", "--model", "meta-llama/Llama-2-13b-hf", "--engine", "analytical",
                             NULL), ==, 0);
  g_assert_cmpint (run_list (&named, NULL, "simulate", "--model", config, "--engine", "analytical", NULL), ==, 0);
  g_assert_nonnull (strstr (by_id, "Model             meta-llama/Llama-2-13b-hf (13.0 B parameters, 40 layers)"));
  g_assert_nonnull (strstr (named, "(13.0 B parameters, 40 layers)"));
  g_assert_cmpint (run_list (NULL, &err, "simulate", "--model", "meta-llama/Llama-2-99b-hf", NULL), ==, 1);
  g_assert_nonnull (strstr (err, "meta-llama/Llama-2-99b-hf is not in the Hugging Face cache"));
  g_unsetenv ("HF_HUB_CACHE");
  g_unlink (config);
  test_rm_rf (cache);
}

static void
test_stdin_errors (void)
{
  g_autofree char *err = NULL, *err2 = NULL, *path = data_path ("../examples", "gpt3-1f1b-full.json");
  g_autofree char *scenario = NULL;

  /* Malformed: a user error that names standard input, not "-". */
  g_assert_cmpint (run_with_input ("{\"model\": ", NULL, &err, "simulate", "-", NULL), ==, 1);
  g_assert_true (g_str_has_prefix (err, "parallax-cli: <stdin>: not valid JSON"));
  /* Standard input is read once: a second "-" is refused, not taken as an empty file. */
  g_assert_true (g_file_get_contents (path, &scenario, NULL, NULL));
  g_assert_cmpint (run_with_input (scenario, NULL, &err2, "compare", "-", "-", "--out", "unused.png", NULL), ==, 1);
  g_assert_nonnull (strstr (err2, "standard input (\"-\") was already read"));
}

/* The --flags a help text names (a "--no-" prefix, which names no flag, left out). */
static GPtrArray *
flags_of (const char *help)
{
  GPtrArray *flags = g_ptr_array_new_with_free_func (g_free);

  for (const char *p = strstr (help, "--"); p != NULL; p = strstr (p + 2, "--"))
    {
      gsize n = 2;
      if (p > help && (g_ascii_isalnum (p[-1]) || p[-1] == '-'))
        continue;
      while (g_ascii_isalnum (p[n]) || p[n] == '-')
        n++;
      while (n > 2 && p[n - 1] == '-')
        n--;
      if (n > 2 && g_ascii_islower (p[2]))
        g_ptr_array_add (flags, g_strndup (p, n));
    }
  return flags;
}

/* Each command's page exists, is titled for it and names every flag of its help
 * (troff writes "-" as "\-"). */
static void
test_man_pages_name_flags (void)
{
  for (guint i = 0; commands[i] != NULL; i++)
    {
      g_autofree char *name = g_strdup_printf ("parallax-cli-%s.1", commands[i]);
      g_autofree char *path = g_build_filename (g_getenv ("PLX_CLI_DATA"), name, NULL);
      g_autofree char *page = NULL, *help = NULL, *title = NULL, *upper = NULL;
      g_autoptr (GPtrArray) flags = NULL;

      g_assert_true (g_file_get_contents (path, &page, NULL, NULL));
      upper = g_ascii_strup (name, strlen (name) - 2);
      title = g_strdup_printf (".TH %s 1 ", upper);
      g_assert_true (g_str_has_prefix (page, title));
      g_assert_cmpint (run_list (&help, NULL, "help", commands[i], NULL), ==, 0);
      flags = flags_of (help);
      g_assert_cmpuint (flags->len, >, 0);
      for (guint f = 0; f < flags->len; f++)
        {
          g_autofree char *escaped = NULL;
          g_auto (GStrv) parts = g_strsplit (g_ptr_array_index (flags, f), "-", -1);
          escaped = g_strjoinv ("\\-", parts);
          if (strstr (page, escaped) == NULL)
            g_error ("%s does not name %s", name, (const char *) g_ptr_array_index (flags, f));
        }
    }
  {
    g_autofree char *main_page = NULL;
    g_autofree char *path = g_build_filename (g_getenv ("PLX_CLI_DATA"), "parallax-cli.1", NULL);
    g_assert_true (g_file_get_contents (path, &main_page, NULL, NULL));
    g_assert_true (g_str_has_prefix (main_page, ".TH PARALLAX-CLI 1 "));
  }
}

/* COMPREPLY of the installed completion for the words `line` (the last is completed). */
static char *
complete (const char *line)
{
  g_autofree char *script = g_build_filename (g_getenv ("PLX_CLI_DATA"), "parallax-cli", NULL);
  g_autofree char *code = g_strdup_printf ("source '%s'; COMP_WORDS=(%s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
                                           "_parallax_cli; printf '%%s\\n' \"${COMPREPLY[@]}\"", script, line);
  const char *argv[] = { "bash", "--norc", "--noprofile", "-c", code, NULL };
  g_autoptr (GError) error = NULL;
  char *out = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return out;
}

static void
test_bash_completion (void)
{
  g_autofree char *cmd = complete ("parallax-cli si");
  /* The flags of simulate's help (and its graph variant's) that start with --t:
   * --timeline, --tornado, --tornado-of, --trace (simulate --help) and --tp (the
   * overrides). */
  g_autofree char *flags = complete ("parallax-cli simulate --t");
  g_autofree char *help = complete ("parallax-cli help cal");

  g_assert_cmpstr (cmd, ==, "simulate\n");
  g_assert_cmpstr (flags, ==, "--timeline\n--tornado\n--tornado-of\n--tp\n--trace\n");
  g_assert_cmpstr (help, ==, "calibrate\n");
  /* Every flag of every command's help completes after that command. */
  for (guint i = 0; commands[i] != NULL; i++)
    {
      g_autofree char *text = NULL;
      g_autoptr (GPtrArray) all = NULL;

      g_assert_cmpint (run_list (&text, NULL, "help", commands[i], NULL), ==, 0);
      all = flags_of (text);
      for (guint f = 0; f < all->len; f++)
        {
          g_autofree char *words = g_strdup_printf ("parallax-cli %s %s", commands[i],
                                                    (const char *) g_ptr_array_index (all, f));
          g_autofree char *got = complete (words);
          g_autofree char *line = g_strdup_printf ("%s\n", (const char *) g_ptr_array_index (all, f));
          if (!g_str_has_prefix (got, line) && strstr (got, line) == NULL)
            g_error ("%s: %s does not complete", commands[i], (const char *) g_ptr_array_index (all, f));
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli-conventions/version-on-every-command", test_version_on_every_command);
  g_test_add_func ("/cli-conventions/help-command", test_help_command);
  g_test_add_func ("/cli-conventions/main-help-lists-every-command", test_main_help_lists_every_command);
  g_test_add_func ("/cli-conventions/stdin-scenario-and-table", test_stdin_scenario_and_table);
  g_test_add_func ("/cli-conventions/stdin-trace-named-stdin", test_stdin_trace_named_stdin);
  g_test_add_func ("/cli-conventions/stdin-cluster", test_stdin_cluster);
  g_test_add_func ("/cli-conventions/stdin-model", test_stdin_model);
  g_test_add_func ("/cli-conventions/model-hub-id", test_model_hub_id);
  g_test_add_func ("/cli-conventions/stdin-errors", test_stdin_errors);
  g_test_add_func ("/cli-conventions/man-pages-name-flags", test_man_pages_name_flags);
  g_test_add_func ("/cli-conventions/bash-completion", test_bash_completion);
  return g_test_run ();
}
