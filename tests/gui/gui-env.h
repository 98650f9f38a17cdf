/* gui-env.h: the private home every GUI test executable runs in, and its removal. */
#pragma once

#include <adwaita.h>
#include <glib/gi18n.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <execinfo.h>
#endif

#include "test-files.h"
#include "test-sanitizer.h"

/* A GUI test that crashes on a CI machine and nowhere else must say where: the test
 * it was in and the stack (frames as binary(+offset), for addr2line on the same
 * build). Not under AddressSanitizer, whose own report is better. */
#if !defined(PLX_TEST_ASAN)
static void
gui_env_crash (int sig)
{
  const char *path = g_test_get_path ();
  const char *head = "\ngui test crashed (signal ";
  char num[4] = { (char) ('0' + sig / 10 % 10), (char) ('0' + sig % 10), ')', 0 };

  if (write (2, head, strlen (head)) < 0 || write (2, num, strlen (num)) < 0 ||
      write (2, " in ", 4) < 0 || write (2, path ? path : "?", path ? strlen (path) : 1) < 0 || write (2, "\n", 1) < 0)
    _exit (128 + sig);
#ifdef __GLIBC__
  {
    /* 24 frames: CI keeps the last 40 lines of a failure, and the innermost
     * frames are the ones that matter (a longer stack pushed them out once). */
    void *frames[24];
    backtrace_symbols_fd (frames, backtrace (frames, 24), 2);
  }
#endif
  signal (sig, SIG_DFL);
  raise (sig);
}
#endif

/* GTK 4.8 sometimes draws a frame of a widget before allocating a button it just
 * added ("Trying to snapshot GtkButton ... without a current allocation") - seen
 * with its own file chooser's location bar on a loaded CI machine, the dialog's last
 * frame at times coming after the test that used it returned. A warning about
 * GTK's internals that a person does not see: printed, not fatal. GTK logs it
 * structured, which g_test_log_set_fatal_handler does not reach, so it is taken here
 * in the log writer; every other warning still ends the test. */
static GLogWriterOutput
gui_env_log_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
  const char *domain = NULL, *message = NULL;

  for (gsize i = 0; i < n_fields; i++)
    if (g_strcmp0 (fields[i].key, "GLIB_DOMAIN") == 0 && fields[i].length < 0)
      domain = fields[i].value;
    else if (g_strcmp0 (fields[i].key, "MESSAGE") == 0 && fields[i].length < 0)
      message = fields[i].value;
  if ((level & G_LOG_LEVEL_WARNING) && g_strcmp0 (domain, "Gtk") == 0 && message != NULL &&
      strstr (message, "Trying to snapshot GtkButton") != NULL && strstr (message, "without a current allocation") != NULL)
    {
      g_printerr ("(tolerated) Gtk-WARNING: %s\n", message);
      return G_LOG_WRITER_HANDLED;
    }
  return g_log_writer_default (level, fields, n_fields, data);
}

/* One private home for the whole run rather than G_TEST_OPTION_ISOLATE_DIRS: GTK's
 * recent-files store writes after a test ends, into a folder isolation would already
 * have removed. Returns the home, to pass to gui_env_finish. */
static char *
gui_env_init (int *argc, char ***argv)
{
  char *home = test_make_tmp_dir ("plx-gui-home");
  const char *subdirs[][2] = { { "XDG_DATA_HOME", "data" }, { "XDG_CONFIG_HOME", "config" },
                               { "XDG_CACHE_HOME", "cache" } };

  g_assert_nonnull (home);
  g_setenv ("HOME", home, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (subdirs); i++)
    {
      g_autofree char *d = g_build_filename (home, subdirs[i][1], NULL);
      g_mkdir_with_parents (d, 0700);
      g_setenv (subdirs[i][0], d, TRUE);
    }
  g_log_set_writer_func (gui_env_log_writer, NULL, NULL);
  g_test_init (argc, argv, NULL);
#if !defined(PLX_TEST_ASAN)
  signal (SIGSEGV, gui_env_crash);
  signal (SIGBUS, gui_env_crash);
  signal (SIGFPE, gui_env_crash);
  signal (SIGILL, gui_env_crash);
#endif
  setlocale (LC_ALL, "");
  if (g_getenv ("PARALLAX_LOCALEDIR") != NULL)
    bindtextdomain (GETTEXT_PACKAGE, g_getenv ("PARALLAX_LOCALEDIR"));
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  gtk_init ();
  adw_init ();
  return home;
}

static int
gui_env_finish (char *home, int status)
{
  /* Leave nothing behind. */
  test_rm_rf (home);
  if (g_file_test (home, G_FILE_TEST_EXISTS))
    g_printerr ("could not remove %s\n", home);
  g_free (home);
  return status;
}
