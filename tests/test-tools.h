/* test-tools.h: running the programs that check our output (rsvg-convert, pdftoppm,
 * pdfinfo, ...), skipping a test where one is missing. */
#pragma once

#include <glib.h>
#include <sys/wait.h>

/* parallax-cli as meson built it ($PLX_CLI, tests/meson.build): one definition for
 * every test that runs the command line. */
static inline const char *
test_cli_path (void)
{
  const char *path = g_getenv ("PLX_CLI");

  if (path == NULL)
    g_error ("PLX_CLI is not set: run this test through meson test");
  return path;
}

/* Skips the test, returning FALSE, if `tool` is not installed. */
static inline gboolean
test_have_tool (const char *tool)
{
  g_autofree char *path = g_find_program_in_path (tool);

  if (path == NULL)
    {
      g_autofree char *msg = g_strdup_printf ("%s is not installed", tool);
      g_test_skip (msg);
      return FALSE;
    }
  return TRUE;
}

/* Runs a tool (argv[0] looked up in PATH, no shell); returns its exit status, -1 if
 * it did not exit normally, and its standard output in *out if `out` is not NULL. */
static inline int
test_run_tool (const char *const *argv,
               char             **out)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *cmdline = g_strjoinv (" ", (char **) argv);
  g_autofree char *err = NULL;
  int wait_status = 0;

  g_test_message ("running: %s", cmdline);
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, out, &err, &wait_status, &error);
  g_assert_no_error (error);
  if (err != NULL && err[0] != '\0')
    g_test_message ("stderr: %.500s", err);
  if (error != NULL || !WIFEXITED (wait_status))
    return -1;
  return WEXITSTATUS (wait_status);
}
