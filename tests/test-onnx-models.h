/* test-onnx-models.h: the ONNX models tests/onnx/make-models.py writes (with Debian's
 * python3-onnx), in a new temporary directory, for test-onnx and test-cli-inputs. */
#pragma once

#include <glib.h>

/* The directory holding the models; abort with the script's stderr if it fails. */
static inline char *
test_onnx_models_make (void)
{
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "onnx", "make-models.py", NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  const char *argv[] = { "/usr/bin/python3", script, NULL, NULL };
  char *dir = g_dir_make_tmp ("plx-onnx-XXXXXX", &error);
  int status = 0;

  g_assert_no_error (error);
  argv[2] = dir;
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("make-models.py failed (is python3-onnx installed? tools/install-deps installs it): %s", err);
  return dir;
}
