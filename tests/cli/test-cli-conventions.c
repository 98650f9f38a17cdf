/* test-cli-conventions.c: what every parallax-cli command accepts alike (docs/cli.md):
 * --version after any command, help COMMAND as COMMAND --help, "-" as standard input,
 * and a main help that names every command. The references are the CLI's own other
 * spelling of the same request (COMMAND --help, a file named on the command line):
 * what is asserted is that the two spellings agree, and the specific errors. */
#include <string.h>

#include <gio/gio.h>

static const char *const commands[] = {
  "presets", "simulate", "plan", "compare", "search", "merge", "sweep", "partition",
  "fuse", "reshard", "validate", "calibrate", NULL,
};

/* Runs parallax-cli with `input` (NULL: none) on standard input; returns its exit status. */
static int
run_with_input (const char *input, char **out, char **err, const char *first, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *own_out = NULL, *own_err = NULL;
  va_list ap;

  g_ptr_array_add (argv, (gpointer) g_getenv ("PLX_CLI"));
  g_assert_nonnull (argv->pdata[0]);
  va_start (ap, first);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  proc = g_subprocess_newv ((const char *const *) argv->pdata,
                            G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                              G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, input, NULL, out ? out : &own_out, err ? err : &own_err, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (proc));
  return g_subprocess_get_exit_status (proc);
}

#define run(out, err, ...) run_with_input (NULL, out, err, __VA_ARGS__)

static char *
data_path (const char *dir, const char *name)
{
  return g_build_filename (g_getenv ("G_TEST_SRCDIR"), dir, name, NULL);
}

static void
test_version_on_every_command (void)
{
  g_autofree char *reference = NULL;

  g_assert_cmpint (run (&reference, NULL, "--version", NULL), ==, 0);
  g_assert_true (g_str_has_prefix (reference, "parallax-cli "));
  for (guint i = 0; commands[i] != NULL; i++)
    {
      g_autofree char *out = NULL;
      /* After other arguments too: --version wins over what they would have done. */
      g_assert_cmpint (run (&out, NULL, commands[i], "--json", "--version", NULL), ==, 0);
      g_assert_cmpstr (out, ==, reference);
    }
}

static void
test_help_command (void)
{
  g_autofree char *main_help = NULL, *help_alone = NULL, *err = NULL;

  g_assert_cmpint (run (&main_help, NULL, "--help", NULL), ==, 0);
  g_assert_cmpint (run (&help_alone, NULL, "help", NULL), ==, 0);
  g_assert_cmpstr (help_alone, ==, main_help);
  for (guint i = 0; commands[i] != NULL; i++)
    {
      g_autofree char *via_help = NULL, *via_flag = NULL, *usage = NULL;

      g_assert_cmpint (run (&via_help, NULL, "help", commands[i], NULL), ==, 0);
      g_assert_cmpint (run (&via_flag, NULL, commands[i], "--help", NULL), ==, 0);
      g_assert_cmpstr (via_help, ==, via_flag);
      /* A usage line for the command (fuse shares the graph commands' help). */
      usage = g_strdup_printf ("parallax-cli %s ", commands[i]);
      g_assert_true (g_str_has_prefix (via_help, "Usage: "));
      g_assert_nonnull (strstr (via_help, usage));
    }
  g_assert_cmpint (run (NULL, &err, "help", "frobnicate", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "unknown command \"frobnicate\""));
}

static void
test_main_help_lists_every_command (void)
{
  g_autofree char *help = NULL;

  g_assert_cmpint (run (&help, NULL, "--help", NULL), ==, 0);
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
      g_assert_cmpint (run (&named, NULL, cmd, path, "--json", NULL), ==, 0);
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
  g_assert_cmpint (run (&named, NULL, "calibrate", "--kineto", path, NULL), ==, 0);
  g_assert_cmpint (run_with_input (text, &piped, NULL, "calibrate", "--kineto", "-", NULL), ==, 0);
  g_assert_true (g_str_has_prefix (named, path));
  expected = g_strconcat ("<stdin>", named + strlen (path), NULL);
  g_assert_cmpstr (piped, ==, expected);
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli-conventions/version-on-every-command", test_version_on_every_command);
  g_test_add_func ("/cli-conventions/help-command", test_help_command);
  g_test_add_func ("/cli-conventions/main-help-lists-every-command", test_main_help_lists_every_command);
  g_test_add_func ("/cli-conventions/stdin-scenario-and-table", test_stdin_scenario_and_table);
  g_test_add_func ("/cli-conventions/stdin-trace-named-stdin", test_stdin_trace_named_stdin);
  g_test_add_func ("/cli-conventions/stdin-errors", test_stdin_errors);
  return g_test_run ();
}
