/* test-dlopen.c: the first answer of a libparallax.so that a process dlopen()s, as
 * Python (PyGObject) and any plugin host load it. Issue 34: with GCC's TLS-descriptor
 * dialect, glibc 2.36's dynamic TLS path clobbered vector registers the first time a
 * thread touched the curve memo, and that first simulate() of the default scenario
 * was 7356.5 s where the CLI says 13.914 s. Each case runs diff-first-answer (the
 * differential test's dlopen path) in a fresh process, one engine as its first and
 * only call, and compares its numbers with the CLI's JSON for the same file. */
#include <json-glib/json-glib.h>
#include <string.h>

#include "../test-sanitizer.h"

static JsonObject *
cli_json (const char *file, const char *engine)
{
  const char *cli = g_getenv ("PLX_CLI");
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  int status = 0;
  const char *argv[] = { cli, "simulate", "--json", "--engine", engine, file, NULL };

  g_assert_nonnull (cli);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static void
run_case (gconstpointer data)
{
  const char *const *c = data;  /* { file, engine } */
  const char *argv[] = { g_getenv ("PLX_DIFF_FIRST_ANSWER"), g_getenv ("PLX_LIBPARALLAX"), c[0], c[1], NULL };
  g_autoptr (JsonObject) expected = cli_json (c[0], c[1]);
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  g_auto (GStrv) got = NULL;
  int status = 0;

  g_assert_nonnull (argv[0]);
  g_assert_nonnull (argv[1]);
  /* A fresh process: the fault was on a thread's first access to the memo. */
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  /* "ENGINE ok STEP_S MFU PEAK_BYTES" */
  got = g_strsplit (g_strstrip (out), " ", 5);
  g_assert_cmpuint (g_strv_length (got), ==, 5);
  g_assert_cmpstr (got[0], ==, c[1]);
  g_assert_cmpstr (got[1], ==, "ok");
  /* The same library code on the same inputs: equal to the last bit. */
  g_assert_cmpfloat (g_ascii_strtod (got[2], NULL), ==,
                     json_object_get_double_member (expected, "step_time_s"));
  g_assert_cmpfloat (g_ascii_strtod (got[3], NULL), ==,
                     json_object_get_double_member (expected, "mfu"));
}

int
main (int argc, char **argv)
{
  static const char *engines[] = { "event", "analytical", "ir" };
  /* Under AddressSanitizer each case costs ~7 s (the CLI and the child, both
   * instrumented): the default-sized example only there. */
#ifdef PLX_TEST_ASAN
  static const char *files[] = { "gpt3-1f1b-full.json" };
#else
  static const char *files[] = { "gpt3-1f1b-full.json", "megatron-1t-3072.json" };
#endif
  static const char *cases[G_N_ELEMENTS (files) * G_N_ELEMENTS (engines)][2];
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  g_test_init (&argc, &argv, NULL);
  for (gsize f = 0; f < G_N_ELEMENTS (files); f++)
    for (gsize e = 0; e < G_N_ELEMENTS (engines); e++)
      {
        const char **c = cases[f * G_N_ELEMENTS (engines) + e];
        g_autofree char *path = g_strdup_printf ("/dlopen/first-answer/%s/%s", files[f], engines[e]);
        char *file = g_test_build_filename (G_TEST_DIST, "..", "..", "examples", files[f], NULL);

        g_ptr_array_add (paths, file);
        c[0] = file;
        c[1] = engines[e];
        g_test_add_data_func (path, c, run_case);
      }
  return g_test_run ();
}
