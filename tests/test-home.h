/* test-home.h: g_test_init with one private home for the whole run.
 *
 * Rather than G_TEST_OPTION_ISOLATE_DIRS, whose per-test XDG strings GLib 2.74 keeps
 * for the life of the process: LeakSanitizer reports them, and matching them to a
 * suppression needs full stacks through GLib, which the slow unwinder gives at the
 * price of every malloc (fast_unwind_on_malloc=0 made the sanitized suite spend
 * minutes there - test-properties 124 s against 13 s). Nothing leaks here: the
 * variables are set once, before GLib reads them. The tree goes at exit. */
#pragma once

#include <stdlib.h>

#include <glib.h>
#include <glib/gstdio.h>

static char *test_home_dir;

static void
test_home_remove_tree (const char *path)
{
  GDir *dir = g_file_test (path, G_FILE_TEST_IS_SYMLINK) ? NULL : g_dir_open (path, 0, NULL);
  const char *name;

  if (dir == NULL)
    {
      g_remove (path);
      return;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      test_home_remove_tree (child);
    }
  g_dir_close (dir);
  g_rmdir (path);
}

static void
test_home_remove (void)
{
  if (test_home_dir != NULL)
    test_home_remove_tree (test_home_dir);
  g_free (test_home_dir);
  test_home_dir = NULL;
}

static inline void
test_init_private_home (int *argc, char ***argv)
{
  static const char *const vars[][2] = {
    { "XDG_DATA_HOME", "data" },      { "XDG_CONFIG_HOME", "config" },   { "XDG_CACHE_HOME", "cache" },
    { "XDG_STATE_HOME", "state" },    { "XDG_RUNTIME_DIR", "runtime" },  { "XDG_CONFIG_DIRS", "system-config" },
    { "XDG_DATA_DIRS", "system-data" },
  };

  test_home_dir = g_dir_make_tmp ("plx-test-home-XXXXXX", NULL);
  g_assert_nonnull (test_home_dir);
  g_setenv ("HOME", test_home_dir, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    {
      g_autofree char *d = g_build_filename (test_home_dir, vars[i][1], NULL);

      g_mkdir_with_parents (d, 0700);
      g_setenv (vars[i][0], d, TRUE);
    }
  atexit (test_home_remove);
  g_test_init (argc, argv, NULL);
}
