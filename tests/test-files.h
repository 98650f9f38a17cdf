/* test-files.h: temporary directories and files for the tests that read and write
 * them (CLI, loaders, schedule files, export). */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

/* A new directory under the system's temporary one, named after `prefix`. */
static inline char *
test_make_tmp_dir (const char *prefix)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *tmpl = g_strdup_printf ("%s-XXXXXX", prefix);
  char *dir = g_dir_make_tmp (tmpl, &error);

  g_assert_no_error (error);
  return dir;
}

/* Writes `contents` (`length` bytes, or up to the NUL for -1) to dir/name, making the
 * directories on the way; returns the path. */
static inline char *
test_write_file (const char *dir,
                 const char *name,
                 const char *contents,
                 gssize      length)
{
  g_autoptr (GError) error = NULL;
  char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_file_set_contents (path, contents, length, &error);
  g_assert_no_error (error);
  return path;
}

/* Removes a file, or a directory and everything in it; follows no links. */
static inline void
test_rm_rf (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          test_rm_rf (child);
        }
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

static inline int
test_compare_names (gconstpointer a,
                    gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

/* The names in `dir`, sorted and joined with spaces ("" when empty). */
static inline char *
test_dir_listing (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (d);
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, test_compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}
