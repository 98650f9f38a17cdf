/* test-cli.c: end-to-end tests of parallax-cli (FORMATS.md §3). The binary's path
 * comes from $PLX_CLI (set by meson); test data from G_TEST_DIST/data.
 *
 * Exit status: 0 success, 1 user error (one line on stderr naming the file, key and
 * value), 2 bad usage. Every failing run must print exactly one line on stderr. */
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "parallax/parallax.h"

/* The built-in default scenario: GPT-3 175B on 64 A100 (312 TFLOP/s bf16), global
 * batch 64 of 2048 tokens, tp 8, pp 8. */
#define DEFAULT_GPUS 64
#define DEFAULT_TOKENS (64.0 * 2048.0)
#define A100_PEAK 312e12

typedef struct
{
  char    *out;
  char    *err;
  int      status;     /* exit status, or -1 if the process did not exit normally */
  gboolean signalled;
} CliRun;

static void
cli_run_clear (CliRun *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CliRun, cli_run_clear)

static const char *
cli_path (void)
{
  const char *path = g_getenv ("PLX_CLI");

  if (path == NULL)
    g_error ("PLX_CLI is not set: run this test through meson test");
  return path;
}

/* Runs parallax-cli with the NULL-terminated arguments `args`. */
static void
run_cli_argv (CliRun            *r,
              const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) wait_error = NULL;
  g_autofree char *cmdline = NULL;
  int wait_status = 0;
  gboolean exited_ok;

  g_ptr_array_add (argv, (gpointer) cli_path ());
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  cmdline = g_strjoinv (" ", (char **) argv->pdata);
  g_test_message ("running: %.300s", cmdline);

  memset (r, 0, sizeof *r);
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                &r->out, &r->err, &wait_status, &error);
  g_assert_no_error (error);
  if (r->out == NULL)
    r->out = g_strdup ("");
  if (r->err == NULL)
    r->err = g_strdup ("");

  exited_ok = g_spawn_check_wait_status (wait_status, &wait_error);
  if (WIFEXITED (wait_status))
    {
      r->status = WEXITSTATUS (wait_status);
      r->signalled = FALSE;
    }
  else
    {
      r->status = -1;
      r->signalled = TRUE;
    }
  g_assert_true (exited_ok == (r->status == 0));
  g_test_message ("exit %d%s; stderr: %.500s", r->status, r->signalled ? " (killed by a signal)" : "",
                  r->err);
}

#define RUN_CLI(r, ...) \
  G_STMT_START { \
    const char *const args_[] = { __VA_ARGS__, NULL }; \
    run_cli_argv (r, args_); \
  } G_STMT_END

static guint
count_char (const char *s,
            char        c)
{
  guint n = 0;

  for (; *s != '\0'; s++)
    if (*s == c)
      n++;
  return n;
}

/* A failed run: the given exit status and exactly one line on stderr holding each
 * needle. */
static void
assert_failure (const CliRun      *r,
                int                status,
                const char *const *needles)
{
  g_assert_false (r->signalled);
  g_assert_cmpint (r->status, ==, status);
  g_assert_cmpuint (count_char (r->err, '\n'), ==, 1);
  g_assert_true (g_str_has_suffix (r->err, "\n"));
  for (guint i = 0; needles != NULL && needles[i] != NULL; i++)
    {
      if (strstr (r->err, needles[i]) == NULL)
        g_test_message ("\"%s\" not found on stderr", needles[i]);
      g_assert_nonnull (strstr (r->err, needles[i]));
    }
}

#define ASSERT_FAILURE(r, status, ...) \
  G_STMT_START { \
    const char *const needles_[] = { __VA_ARGS__, NULL }; \
    assert_failure (r, status, needles_); \
  } G_STMT_END

static void
assert_success (const CliRun *r)
{
  g_assert_false (r->signalled);
  g_assert_cmpint (r->status, ==, 0);
  g_assert_cmpstr (r->err, ==, "");
}

static JsonNode *
parse_stdout (const CliRun *r)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonNode *root;

  json_parser_load_from_data (parser, r->out, -1, &error);
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  g_assert_nonnull (root);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return root != NULL ? json_node_copy (root) : NULL;
}

static gboolean
close_rel (double a,
           double b,
           double rel)
{
  return fabs (a - b) <= rel * MAX (fabs (a), fabs (b));
}

static double
get_number (JsonObject *obj,
            const char *key)
{
  JsonNode *node = json_object_get_member (obj, key);

  if (node == NULL)
    g_test_message ("missing key \"%s\"", key);
  g_assert_nonnull (node);
  if (node == NULL)
    return NAN;
  g_assert_true (JSON_NODE_HOLDS_VALUE (node));
  g_assert_true (json_node_get_value_type (node) == G_TYPE_DOUBLE ||
                 json_node_get_value_type (node) == G_TYPE_INT64);
  return json_node_get_double (node);
}

static gint64
get_int (JsonObject *obj,
         const char *key)
{
  JsonNode *node = json_object_get_member (obj, key);

  if (node == NULL)
    g_test_message ("missing key \"%s\"", key);
  g_assert_nonnull (node);
  if (node == NULL)
    return -1;
  g_assert_true (JSON_NODE_HOLDS_VALUE (node));
  g_assert_true (json_node_get_value_type (node) == G_TYPE_INT64);
  return json_node_get_int (node);
}

static char *
data_path (const char *name)
{
  return g_build_filename (g_test_get_dir (G_TEST_DIST), "data", name, NULL);
}

static char *
make_tmp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("plx-test-cli-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static char *
write_file (const char *dir,
            const char *name,
            const char *contents)
{
  g_autoptr (GError) error = NULL;
  char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
  return path;
}

static void
rm_rf (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          rm_rf (child);
        }
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

/* Checks the FORMATS.md §3 report of a run over `gpus` GPUs of `peak` FLOP/s with
 * `tokens` tokens per step, and returns its step time. */
static double
check_report (JsonObject *o,
              double      tokens,
              guint       gpus,
              double      peak)
{
  static const char *const top_keys[] = {
    "engine", "step_time_s", "tokens_per_s", "model_flops_per_step", "hardware_flops_per_step",
    "mfu", "hfu", "bubble_fraction", "fits_in_memory", "peak_memory_bytes", "memory_bytes", "time_s",
  };
  static const char *const mem_keys[] = { "weights", "gradients", "optimizer", "activations", "other" };
  static const char *const time_keys[] = {
    "compute", "recompute", "tp_comm", "pp_comm", "dp_comm", "bubble", "optimizer",
  };
  JsonObject *mem, *time;
  double step, tps, mflops, hflops, time_sum = 0.0;
  gint64 peak_bytes, mem_sum = 0;

  for (guint i = 0; i < G_N_ELEMENTS (top_keys); i++)
    {
      if (!json_object_has_member (o, top_keys[i]))
        g_test_message ("missing key \"%s\"", top_keys[i]);
      g_assert_true (json_object_has_member (o, top_keys[i]));
    }
  g_assert_nonnull (json_object_get_string_member_with_default (o, "engine", NULL));
  g_assert_true (JSON_NODE_HOLDS_VALUE (json_object_get_member (o, "fits_in_memory")) &&
                 json_node_get_value_type (json_object_get_member (o, "fits_in_memory")) == G_TYPE_BOOLEAN);
  mem = json_object_get_object_member (o, "memory_bytes");
  time = json_object_get_object_member (o, "time_s");
  g_assert_nonnull (mem);
  g_assert_nonnull (time);
  if (mem == NULL || time == NULL)
    return NAN;

  step = get_number (o, "step_time_s");
  g_assert_cmpfloat (step, >, 0.0);
  for (guint i = 0; i < G_N_ELEMENTS (time_keys); i++)
    {
      double t = get_number (time, time_keys[i]);
      g_assert_cmpfloat (t, >=, 0.0);
      time_sum += t;
    }
  /* The parts of the step sum to the step. */
  if (!close_rel (time_sum, step, 1e-9))
    g_test_message ("time_s parts sum to %.17g, step_time_s is %.17g", time_sum, step);
  g_assert_true (close_rel (time_sum, step, 1e-9));

  peak_bytes = get_int (o, "peak_memory_bytes");
  g_assert_cmpint (peak_bytes, >, 0);
  for (guint i = 0; i < G_N_ELEMENTS (mem_keys); i++)
    {
      gint64 b = get_int (mem, mem_keys[i]);
      g_assert_cmpint (b, >=, 0);
      mem_sum += b;
    }
  g_assert_cmpint (mem_sum, ==, peak_bytes);

  tps = get_number (o, "tokens_per_s");
  g_assert_true (close_rel (tps, tokens / step, 1e-9));

  mflops = get_number (o, "model_flops_per_step");
  hflops = get_number (o, "hardware_flops_per_step");
  g_assert_cmpfloat (mflops, >, 0.0);
  g_assert_cmpfloat (hflops, >=, mflops);
  g_assert_true (close_rel (get_number (o, "mfu"), mflops / (step * gpus * peak), 1e-9));
  g_assert_true (close_rel (get_number (o, "hfu"), hflops / (step * gpus * peak), 1e-9));
  g_assert_cmpfloat (get_number (o, "mfu"), <, 1.0);

  g_assert_cmpfloat (get_number (o, "bubble_fraction"), >=, 0.0);
  g_assert_cmpfloat (get_number (o, "bubble_fraction"), <, 1.0);
  return step;
}

static double
default_step_time (void)
{
  g_auto (CliRun) r = { 0 };
  g_autoptr (JsonNode) root = NULL;

  RUN_CLI (&r, "simulate", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return NAN;
  return get_number (json_node_get_object (root), "step_time_s");
}

/* ---- presets ----------------------------------------------------------------- */

static void
test_presets_text (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "presets");
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "gpt3-175b"));
  g_assert_nonnull (strstr (r.out, "llama-2-7b"));
  g_assert_nonnull (strstr (r.out, "mixtral-8x7b"));
  g_assert_nonnull (strstr (r.out, "dgx-a100-80gb"));
  g_assert_nonnull (strstr (r.out, "dgx-h100-80gb"));
}

static void
test_presets_json (void)
{
  g_auto (CliRun) r = { 0 };
  g_autoptr (JsonNode) root = NULL;
  JsonObject *o;
  JsonArray *models, *clusters;
  gboolean found_model = FALSE, found_cluster = FALSE;

  RUN_CLI (&r, "presets", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  o = json_node_get_object (root);
  models = json_object_get_array_member (o, "models");
  clusters = json_object_get_array_member (o, "clusters");
  g_assert_nonnull (models);
  g_assert_nonnull (clusters);
  if (models == NULL || clusters == NULL)
    return;
  for (guint i = 0; i < json_array_get_length (models); i++)
    {
      JsonObject *m = json_array_get_object_element (models, i);
      if (g_strcmp0 (json_object_get_string_member_with_default (m, "name", ""), "gpt3-175b") == 0)
        {
          found_model = TRUE;
          /* 174.6 B parameters. */
          g_assert_cmpint (json_object_get_int_member (m, "params"), >, G_GINT64_CONSTANT (174000000000));
          g_assert_cmpint (json_object_get_int_member (m, "params"), <, G_GINT64_CONSTANT (176000000000));
        }
    }
  for (guint i = 0; i < json_array_get_length (clusters); i++)
    if (g_strcmp0 (json_array_get_string_element (clusters, i), "dgx-a100-80gb") == 0)
      found_cluster = TRUE;
  g_assert_true (found_model);
  g_assert_true (found_cluster);
}

static void
test_presets_bad_argument (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "presets", "--bogus");
  ASSERT_FAILURE (&r, 2, "--bogus");
}

/* ---- simulate: the default scenario -------------------------------------------- */

static void
test_simulate_text (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate");
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "Step time"));
  g_assert_nonnull (strstr (r.out, " s\n"));
  g_assert_nonnull (strstr (r.out, "GiB"));
  g_assert_nonnull (strstr (r.out, "%"));
  g_assert_nonnull (strstr (r.out, "gpt3-175b"));
  g_assert_nonnull (strstr (r.out, "dp 1, tp 8, pp 8"));
}

static void
test_simulate_json_keys (void)
{
  g_auto (CliRun) r = { 0 };
  g_autoptr (JsonNode) root = NULL;
  JsonObject *o;

  RUN_CLI (&r, "simulate", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member_with_default (o, "engine", ""), ==, "analytical");
  check_report (o, DEFAULT_TOKENS, DEFAULT_GPUS, A100_PEAK);
}

static void
test_simulate_json_engine_analytical (void)
{
  g_auto (CliRun) r = { 0 };
  g_autoptr (JsonNode) root = NULL;

  RUN_CLI (&r, "simulate", "--engine", "analytical", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  g_assert_cmpstr (json_object_get_string_member_with_default (json_node_get_object (root), "engine", ""), ==,
                   "analytical");
  g_assert_cmpfloat (get_number (json_node_get_object (root), "step_time_s"), ==, default_step_time ());
}

static void
test_simulate_help (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--help");
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "--tp"));
  g_assert_nonnull (strstr (r.out, "--global-batch-size"));
}

/* ---- simulate: overrides ---------------------------------------------------------- */

static void
test_simulate_tp_override (void)
{
  g_auto (CliRun) text = { 0 };
  g_auto (CliRun) r = { 0 };
  g_autoptr (JsonNode) root = NULL;
  double step;

  /* tp 4 with the file's pp 8 on 64 GPUs: dp is re-derived as 64 / (4*8) = 2. */
  RUN_CLI (&text, "simulate", "--tp", "4");
  assert_success (&text);
  g_assert_nonnull (strstr (text.out, "dp 2, tp 4, pp 8"));

  RUN_CLI (&r, "simulate", "--tp", "4", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  step = check_report (json_node_get_object (root), DEFAULT_TOKENS, DEFAULT_GPUS, A100_PEAK);
  g_assert_cmpfloat (step, !=, default_step_time ());
}

static void
test_simulate_tp_equals_form (void)
{
  g_auto (CliRun) a = { 0 };
  g_auto (CliRun) b = { 0 };

  RUN_CLI (&a, "simulate", "--tp=4", "--json");
  RUN_CLI (&b, "simulate", "--tp", "4", "--json");
  assert_success (&a);
  assert_success (&b);
  g_assert_cmpstr (a.out, ==, b.out);
}

static void
test_simulate_nodes_override (void)
{
  g_auto (CliRun) r = { 0 };

  /* 16 nodes of 8: dp 128 / (8*8) = 2. */
  RUN_CLI (&r, "simulate", "--nodes", "16");
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "dp 2, tp 8, pp 8"));
  g_assert_nonnull (strstr (r.out, "16 x 8"));
}

static void
test_simulate_model_preset (void)
{
  g_auto (CliRun) text = { 0 };
  g_auto (CliRun) r = { 0 };
  g_autoptr (JsonNode) root = NULL;

  RUN_CLI (&text, "simulate", "--model", "llama-2-7b", "--tp", "8", "--pp", "1", "--global-batch-size", "512",
           "--schedule", "1f1b", "--virtual-stages", "1");
  assert_success (&text);
  g_assert_nonnull (strstr (text.out, "llama-2-7b"));
  g_assert_nonnull (strstr (text.out, "dp 8, tp 8, pp 1"));
  g_assert_nonnull (strstr (text.out, "global batch 512"));

  RUN_CLI (&r, "simulate", "--model", "llama-2-7b", "--tp", "8", "--pp", "1", "--global-batch-size", "512",
           "--schedule", "1f1b", "--virtual-stages", "1", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  /* The file's seq_length 2048 stays. */
  check_report (json_node_get_object (root), 512.0 * 2048.0, DEFAULT_GPUS, A100_PEAK);
}

static void
test_simulate_model_interleaved_pp1 (void)
{
  g_auto (CliRun) r = { 0 };

  /* The default scenario is interleaved-1f1b; with pp 1 that is an error to report,
   * not to fix up silently. */
  RUN_CLI (&r, "simulate", "--model", "llama-2-7b", "--tp", "8", "--pp", "1", "--global-batch-size", "512");
  ASSERT_FAILURE (&r, 1, "interleaved-1f1b", "pp");
}

static void
test_simulate_model_hf_config (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *config = write_file (dir, "tiny/config.json",
                                        "{\"model_type\": \"llama\", \"num_hidden_layers\": 8, \"hidden_size\": 1024,"
                                        " \"num_attention_heads\": 16, \"num_key_value_heads\": 8,"
                                        " \"intermediate_size\": 2816, \"vocab_size\": 32000,"
                                        " \"max_position_embeddings\": 2048, \"_name_or_path\": \"tiny/llama\"}");
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--model", config, "--tp", "8", "--pp", "1", "--schedule", "1f1b", "--virtual-stages", "1");
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "tiny/llama"));
  g_assert_nonnull (strstr (r.out, "8 layers"));
  g_assert_nonnull (strstr (r.out, "dp 8, tp 8, pp 1"));
  rm_rf (dir);
}

static void
test_simulate_model_missing_file (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--model", "/nonexistent/dir/config.json");
  ASSERT_FAILURE (&r, 1, "/nonexistent/dir/config.json");
}

static void
test_simulate_cluster_missing_file (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--cluster", "/nonexistent/dir/cluster.json");
  ASSERT_FAILURE (&r, 1, "/nonexistent/dir/cluster.json");
}

static void
test_simulate_cluster_preset (void)
{
  g_auto (CliRun) r = { 0 };
  g_autoptr (JsonNode) root = NULL;

  /* Eight H100 nodes: the same 64 GPUs at the H100's bf16 peak. */
  RUN_CLI (&r, "simulate", "--cluster", "dgx-h100-80gb", "--nodes", "8", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  check_report (json_node_get_object (root), DEFAULT_TOKENS, DEFAULT_GPUS, 989.4e12);
}

static void
test_simulate_tp_zero (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--tp", "0");
  ASSERT_FAILURE (&r, 1, "strategy.tp", "0");
}

static void
test_simulate_dp_inconsistent (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--dp", "2");
  ASSERT_FAILURE (&r, 1, "dp*tp*pp*cp", "128", "64");
}

static void
test_simulate_fp8_a100 (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--dtype", "fp8");
  ASSERT_FAILURE (&r, 1, "strategy.dtype", "fp8");
}

static void
test_simulate_schedule_unknown (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--schedule", "zigzag");
  ASSERT_FAILURE (&r, 1, "strategy.schedule", "zigzag");
}

static void
test_simulate_tp_not_number (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--tp", "abc");
  ASSERT_FAILURE (&r, 2, "--tp", "abc");
}

static void
test_simulate_tp_trailing_garbage (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--tp", "8x");
  ASSERT_FAILURE (&r, 2, "--tp", "8x");
}

static void
test_simulate_tp_missing_value (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--tp");
  ASSERT_FAILURE (&r, 2, "--tp");
}

static void
test_simulate_unknown_option (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--frobnicate");
  ASSERT_FAILURE (&r, 2, "--frobnicate");
}

static void
test_simulate_engine_event (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--engine", "event");
  ASSERT_FAILURE (&r, 2, "event");
}

static void
test_simulate_engine_unknown (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--engine", "magic");
  ASSERT_FAILURE (&r, 2, "magic");
}

static void
test_simulate_two_files (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "a.json", "b.json");
  ASSERT_FAILURE (&r, 2, "a.json", "b.json");
}

/* ---- simulate: scenario files ------------------------------------------------------ */

static void
test_simulate_missing_file (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "no-such-scenario.json", NULL);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", path);
  ASSERT_FAILURE (&r, 1, path);
  rm_rf (dir);
}

static void
test_simulate_malformed_file (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = write_file (dir, "broken.json", "{\n  \"model\": {\"preset\": \"gpt2\"},\n  \"cluster\": \n");
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", path);
  ASSERT_FAILURE (&r, 1, path);
  g_assert_true (g_str_has_prefix (r.err, "parallax-cli: "));
  rm_rf (dir);
}

static void
test_simulate_top_level_array (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = write_file (dir, "array.json", "[{\"model\": {\"preset\": \"gpt2\"}}]");
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", path);
  ASSERT_FAILURE (&r, 1, path);
  rm_rf (dir);
}

static void
test_simulate_inconsistent_file (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = write_file (dir, "bad-dp.json",
                                      "{\"model\": {\"preset\": \"gpt2\"}, \"cluster\": {\"preset\": \"dgx-a100-80gb\"},"
                                      " \"strategy\": {\"dp\": 3, \"global_batch_size\": 12}}");
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", path);
  ASSERT_FAILURE (&r, 1, path, "dp", "3");
  rm_rf (dir);
}

static void
test_simulate_scenario_file (void)
{
  /* hf_config is relative to the scenario file, not to the working directory. */
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *config = write_file (dir, "models/config.json",
                                        "{\"model_type\": \"gpt2\", \"n_layer\": 12, \"n_embd\": 768, \"n_head\": 12,"
                                        " \"vocab_size\": 50257, \"n_positions\": 1024}");
  g_autofree char *path = write_file (dir, "runs/small.json",
                                      "{\"name\": \"small run\", \"model\": {\"hf_config\": \"../models/config.json\"},"
                                      " \"cluster\": {\"preset\": \"dgx-a100-80gb\"},"
                                      " \"strategy\": {\"tp\": 2, \"pp\": 2, \"global_batch_size\": 32,"
                                      " \"micro_batch_size\": 4}}");
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) j = { 0 };
  g_autoptr (JsonNode) root = NULL;

  RUN_CLI (&r, "simulate", path);
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "small run"));
  g_assert_nonnull (strstr (r.out, "dp 2, tp 2, pp 2"));

  RUN_CLI (&j, "simulate", path, "--json");
  assert_success (&j);
  root = parse_stdout (&j);
  if (root != NULL)
    check_report (json_node_get_object (root), 32.0 * 1024.0, 8, A100_PEAK);
  rm_rf (dir);
}

/* ---- usage --------------------------------------------------------------------------- */

static void
test_usage_unknown_command (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "frobnicate");
  ASSERT_FAILURE (&r, 2, "frobnicate");
}

static void
test_usage_no_command (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, NULL);
  g_assert_false (r.signalled);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.out, ==, "");
}

static void
test_usage_no_command_one_line (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, NULL);
  ASSERT_FAILURE (&r, 2, "parallax-cli");
}

static void
test_usage_help (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "--help");
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "simulate"));
  g_assert_nonnull (strstr (r.out, "validate"));
  g_assert_nonnull (strstr (r.out, "presets"));
}

/* ---- validate -------------------------------------------------------------------------- */

static void
test_validate_text (void)
{
  g_autofree char *table = data_path ("korthikanti2022.json");
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "validate", table);
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "mean absolute error"));
  g_assert_nonnull (strstr (r.out, "175B"));
  g_assert_nonnull (strstr (r.out, "step_time_s"));
}

static void
test_validate_json (void)
{
  g_autofree char *table = data_path ("korthikanti2022.json");
  g_auto (CliRun) r = { 0 };
  g_autoptr (JsonNode) root = NULL;
  JsonObject *o, *summary, *step_summary;
  JsonArray *rows;
  guint n_step = 0;
  double abs_sum = 0.0, abs_max = 0.0;

  RUN_CLI (&r, "validate", table, "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  o = json_node_get_object (root);
  rows = json_object_get_array_member (o, "rows");
  g_assert_nonnull (rows);
  if (rows == NULL)
    return;
  g_assert_cmpuint (json_array_get_length (rows), >=, 10);
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      double measured = get_number (row, "measured");
      double predicted = get_number (row, "predicted");
      double err = get_number (row, "error_pct");

      g_assert_nonnull (json_object_get_string_member_with_default (row, "case", NULL));
      g_assert_nonnull (json_object_get_string_member_with_default (row, "metric", NULL));
      g_assert_cmpfloat (measured, >, 0.0);
      g_assert_true (close_rel (err, (predicted - measured) / measured * 100.0, 1e-9));
      if (g_strcmp0 (json_object_get_string_member_with_default (row, "metric", ""), "step_time_s") == 0)
        {
          n_step++;
          abs_sum += fabs (err);
          abs_max = MAX (abs_max, fabs (err));
        }
    }
  g_assert_cmpuint (n_step, >=, 8);

  /* The summary agrees with the rows. */
  summary = json_object_get_object_member (o, "summary");
  g_assert_nonnull (summary);
  if (summary == NULL)
    return;
  step_summary = json_object_get_object_member (summary, "step_time_s");
  g_assert_nonnull (step_summary);
  if (step_summary == NULL)
    return;
  g_assert_cmpint (json_object_get_int_member (step_summary, "cases"), ==, n_step);
  g_assert_true (close_rel (get_number (step_summary, "mean_abs_error_pct"), abs_sum / n_step, 1e-9));
  g_assert_true (close_rel (get_number (step_summary, "max_abs_error_pct"), abs_max, 1e-9));
}

static void
test_validate_missing_file (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "no-table.json", NULL);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "validate", path);
  ASSERT_FAILURE (&r, 1, path);
  rm_rf (dir);
}

static void
test_validate_malformed_file (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = write_file (dir, "table.json", "{\"cases\": [ {\"name\": \"x\", ");
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "validate", path);
  ASSERT_FAILURE (&r, 1, path);
  rm_rf (dir);
}

static void
test_validate_no_table (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "validate");
  ASSERT_FAILURE (&r, 2, "validate");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  /* A failed check marks its test failed and lets the others run. */
  g_test_set_nonfatal_assertions ();

  g_test_add_func ("/cli/presets/text", test_presets_text);
  g_test_add_func ("/cli/presets/json", test_presets_json);
  g_test_add_func ("/cli/presets/bad-argument", test_presets_bad_argument);

  g_test_add_func ("/cli/simulate/text", test_simulate_text);
  g_test_add_func ("/cli/simulate/json-keys", test_simulate_json_keys);
  g_test_add_func ("/cli/simulate/engine-analytical", test_simulate_json_engine_analytical);
  g_test_add_func ("/cli/simulate/help", test_simulate_help);
  g_test_add_func ("/cli/simulate/tp-override", test_simulate_tp_override);
  g_test_add_func ("/cli/simulate/tp-equals-form", test_simulate_tp_equals_form);
  g_test_add_func ("/cli/simulate/nodes-override", test_simulate_nodes_override);
  g_test_add_func ("/cli/simulate/model-preset", test_simulate_model_preset);
  g_test_add_func ("/cli/simulate/model-interleaved-pp1", test_simulate_model_interleaved_pp1);
  g_test_add_func ("/cli/simulate/model-hf-config", test_simulate_model_hf_config);
  g_test_add_func ("/cli/simulate/model-missing-file", test_simulate_model_missing_file);
  g_test_add_func ("/cli/simulate/cluster-preset", test_simulate_cluster_preset);
  g_test_add_func ("/cli/simulate/cluster-missing-file", test_simulate_cluster_missing_file);
  g_test_add_func ("/cli/simulate/tp-zero", test_simulate_tp_zero);
  g_test_add_func ("/cli/simulate/dp-inconsistent", test_simulate_dp_inconsistent);
  g_test_add_func ("/cli/simulate/fp8-a100", test_simulate_fp8_a100);
  g_test_add_func ("/cli/simulate/schedule-unknown", test_simulate_schedule_unknown);
  g_test_add_func ("/cli/simulate/tp-not-number", test_simulate_tp_not_number);
  g_test_add_func ("/cli/simulate/tp-trailing-garbage", test_simulate_tp_trailing_garbage);
  g_test_add_func ("/cli/simulate/tp-missing-value", test_simulate_tp_missing_value);
  g_test_add_func ("/cli/simulate/unknown-option", test_simulate_unknown_option);
  g_test_add_func ("/cli/simulate/engine-event", test_simulate_engine_event);
  g_test_add_func ("/cli/simulate/engine-unknown", test_simulate_engine_unknown);
  g_test_add_func ("/cli/simulate/two-files", test_simulate_two_files);
  g_test_add_func ("/cli/simulate/missing-file", test_simulate_missing_file);
  g_test_add_func ("/cli/simulate/malformed-file", test_simulate_malformed_file);
  g_test_add_func ("/cli/simulate/top-level-array", test_simulate_top_level_array);
  g_test_add_func ("/cli/simulate/inconsistent-file", test_simulate_inconsistent_file);
  g_test_add_func ("/cli/simulate/scenario-file", test_simulate_scenario_file);

  g_test_add_func ("/cli/usage/unknown-command", test_usage_unknown_command);
  g_test_add_func ("/cli/usage/no-command", test_usage_no_command);
  g_test_add_func ("/cli/usage/no-command-one-line", test_usage_no_command_one_line);
  g_test_add_func ("/cli/usage/help", test_usage_help);

  g_test_add_func ("/cli/validate/text", test_validate_text);
  g_test_add_func ("/cli/validate/json", test_validate_json);
  g_test_add_func ("/cli/validate/missing-file", test_validate_missing_file);
  g_test_add_func ("/cli/validate/malformed-file", test_validate_malformed_file);
  g_test_add_func ("/cli/validate/no-table", test_validate_no_table);

  return g_test_run ();
}
