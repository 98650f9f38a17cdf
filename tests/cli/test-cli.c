/* test-cli.c: end-to-end tests of parallax-cli (FORMATS.md §3). The binary's path
 * comes from $PLX_CLI (set by meson); test data from G_TEST_DIST/data.
 *
 * Exit status: 0 success, 1 user error (one line on stderr naming the file, key and
 * value), 2 bad usage. Every failing run must print exactly one line on stderr. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "parallax/parallax.h"
#include "test-home.h"
#include "test-files.h"
#include "test-tools.h"
#include "test-cli-run.h"
#include "base/plx-json.h"
#include "ir/plx-ir.h"

/* The built-in default scenario: GPT-3 175B on 64 A100 (312 TFLOP/s bf16), global
 * batch 64 of 2048 tokens, tp 8, pp 8. */
#define DEFAULT_GPUS 64
#define DEFAULT_TOKENS (64.0 * 2048.0)
#define A100_PEAK 312e12

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

/* The default scenario's step time with `engine` ("event" is the default). */
static double
default_step_time (const char *engine)
{
  g_auto (CliRun) r = { 0 };
  g_autoptr (JsonNode) root = NULL;
  JsonObject *o;

  RUN_CLI (&r, "simulate", "--engine", engine, "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return NAN;
  o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member_with_default (o, "engine", ""), ==, engine);
  return get_number (o, "step_time_s");
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
  /* The event simulator is the default engine. */
  g_assert_cmpstr (json_object_get_string_member_with_default (o, "engine", ""), ==, "event");
  check_report (o, DEFAULT_TOKENS, DEFAULT_GPUS, A100_PEAK);
}

static void
test_simulate_json_keys_analytical (void)
{
  g_auto (CliRun) r = { 0 };
  g_autoptr (JsonNode) root = NULL;
  JsonObject *o;

  RUN_CLI (&r, "simulate", "--engine", "analytical", "--json");
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
  double step, event_step;

  RUN_CLI (&r, "simulate", "--engine=analytical", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  g_assert_cmpstr (json_object_get_string_member_with_default (json_node_get_object (root), "engine", ""), ==,
                   "analytical");
  /* Like with like: the same engine on the same default scenario. */
  step = get_number (json_node_get_object (root), "step_time_s");
  g_assert_cmpfloat (step, ==, default_step_time ("analytical"));
  /* The closed form and the event simulator model the same step; they agree closely
   * on this uniform pipeline. */
  event_step = default_step_time ("event");
  g_assert_true (close_rel (step, event_step, 0.05));
}

/* --engine event is the default, spelled out. */
static void
test_simulate_json_engine_event (void)
{
  g_auto (CliRun) explicit_ = { 0 };
  g_auto (CliRun) deflt = { 0 };
  g_autoptr (JsonNode) root = NULL;

  RUN_CLI (&explicit_, "simulate", "--engine", "event", "--json");
  RUN_CLI (&deflt, "simulate", "--json");
  assert_success (&explicit_);
  assert_success (&deflt);
  g_assert_cmpstr (explicit_.out, ==, deflt.out);
  root = parse_stdout (&explicit_);
  if (root == NULL)
    return;
  g_assert_cmpstr (json_object_get_string_member_with_default (json_node_get_object (root), "engine", ""), ==,
                   "event");
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

static double
step_of (const CliRun *r)
{
  g_autoptr (JsonNode) root = parse_stdout (r);
  g_assert_nonnull (root);
  return json_object_get_double_member (json_node_get_object (root), "step_time_s");
}

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
  /* The file's name still reads "TP 8 x PP 8"; the line below it says what runs. */
  g_assert_nonnull (strstr (text.out, "Running           gpt3-175b on 64 A100-SXM4-80GB, TP 4 × PP 8 × DP 2"));

  RUN_CLI (&r, "simulate", "--tp", "4", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  step = check_report (json_node_get_object (root), DEFAULT_TOKENS, DEFAULT_GPUS, A100_PEAK);
  /* Both runs use the default (event) engine. */
  g_assert_cmpfloat (step, !=, default_step_time ("event"));
}

/* search needs only the model, the cluster, the batch and the sequence: TP 5 x PP 7
 * on 16 GPUs does not resolve, yet the search answers, and its best strategy is a
 * valid one for the 16 GPUs. */
static void
test_search_any_strategy (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *path = test_write_file (dir, "bad.json",
    "{\"model\": {\"preset\": \"gpt2\"}, \"cluster\": {\"preset\": \"dgx-a100-80gb\", \"num_nodes\": 2},"
    " \"strategy\": {\"tp\": 5, \"pp\": 7, \"global_batch_size\": 64}}", -1);
  g_auto (CliRun) sim = { 0 };
  g_auto (CliRun) r = { 0 };
  g_autoptr (JsonNode) root = NULL;
  JsonObject *best;

  RUN_CLI (&sim, "simulate", path);
  ASSERT_FAILURE (&sim, 1, "does not divide the cluster's 16 GPUs");
  RUN_CLI (&r, "search", path, "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  g_assert_nonnull (root);
  best = json_array_get_object_element (json_object_get_array_member (json_node_get_object (root), "results"), 0);
  g_assert_cmpint (json_object_get_int_member (best, "tp") * json_object_get_int_member (best, "pp") *
                     json_object_get_int_member (best, "dp") * json_object_get_int_member (best, "cp"), ==, 16);
  test_rm_rf (dir);
}

/* The step time of the search's best strategy on `gpus` GPUs of the built-in
 * scenario's cluster for `model`, or 0 when none fits there. */
static double
searched_best (const char *model,
               const char *gpus)
{
  g_auto (CliRun) r = { 0 };
  g_autoptr (JsonNode) root = NULL;
  JsonArray *results;

  RUN_CLI (&r, "search", "--model", model, "--gpus", gpus, "--top", "1", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  g_assert_nonnull (root);
  results = json_object_get_array_member (json_node_get_object (root), "results");
  if (json_array_get_length (results) == 0)
    return 0.0;
  return json_object_get_double_member (json_array_get_object_element (results, 0), "step_time_s");
}

/* --model with no scenario (issue 37): the built-in scenario's 64 GPUs are GPT-3's,
 * so the model runs on the fewest whole nodes where a strategy fits, with the search's
 * fastest there - GPT-2 on one node; Llama 3.1 70B on two, as no strategy fits on one
 * (its 16-bit weights alone, 141 GB, are most of a node's 8 x 80 GB with gradients
 * and optimizer states besides). A degree given on the command line is the user's:
 * kept, adapted to as the window does, and refused by name if it does not fit. */
static void
test_simulate_model_adapts (void)
{
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) big = { 0 };
  g_auto (CliRun) forced = { 0 };
  g_auto (CliRun) kept = { 0 };
  g_autoptr (JsonNode) root = NULL, big_root = NULL, kept_root = NULL;
  g_autofree char *llama = g_test_build_filename (G_TEST_DIST, "data", "hf-configs", "meta-llama--Meta-Llama-3.1-70B.json",
                                                  NULL);
  JsonObject *o;

  RUN_CLI (&r, "simulate", "--model", "gpt2", "--json", "--engine", "event");
  assert_success (&r);
  root = parse_stdout (&r);
  g_assert_nonnull (root);
  o = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "cluster"), "num_nodes"), ==, 1);
  g_assert_true (json_object_get_boolean_member (o, "fits_in_memory"));
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "step_time_s"), searched_best ("gpt2", "8:8"), 1e-9);
  g_assert_nonnull (strstr (json_object_get_string_member (o, "scenario"), "the fewest of the cluster's 64 on which it fits"));

  RUN_CLI (&big, "simulate", "--model", llama, "--json");
  assert_success (&big);
  big_root = parse_stdout (&big);
  g_assert_nonnull (big_root);
  o = json_node_get_object (big_root);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "cluster"), "num_nodes"), ==, 2);
  g_assert_true (json_object_get_boolean_member (o, "fits_in_memory"));
  g_assert_cmpfloat (searched_best (llama, "8:8"), ==, 0.0);

  /* A strategy flag: the built-in scenario adapted (TP 8 -> 4 for 12 heads), its 64 GPUs kept. */
  RUN_CLI (&kept, "simulate", "--model", "gpt2", "--pp", "2", "--json");
  assert_success (&kept);
  kept_root = parse_stdout (&kept);
  g_assert_nonnull (kept_root);
  o = json_object_get_object_member (json_node_get_object (kept_root), "strategy");
  g_assert_cmpint (json_object_get_int_member (o, "tp"), ==, 4);
  g_assert_cmpint (json_object_get_int_member (o, "pp") * json_object_get_int_member (o, "tp") *
                     json_object_get_int_member (o, "dp"), ==, 64);
  RUN_CLI (&forced, "simulate", "--model", "gpt2", "--tp", "8");
  ASSERT_FAILURE (&forced, 1, "strategy.tp: 8 does not divide the model's 12 attention heads");
}

/* simulate --json says what it is about (format 2): the tool, the scenario, the model
 * with its parameter count, the cluster, and the strategy as resolved - which, read
 * back as a scenario's strategy, gives the same prediction. */
static void
test_simulate_json_identity (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *path = test_write_file (dir, "gpt2.json",
    "{\"name\": \"small\", \"model\": {\"preset\": \"gpt2\"}, \"cluster\": {\"preset\": \"dgx-a100-80gb\"},"
    " \"strategy\": {\"pp\": 2, \"tp\": 2, \"global_batch_size\": 16, \"recompute\": \"full\"}}", -1);
  g_auto (CliRun) first = { 0 };
  g_auto (CliRun) again = { 0 };
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autofree char *strategy = NULL, *path2 = NULL, *text = NULL;
  JsonObject *o, *model;

  RUN_CLI (&first, "simulate", path, "--json");
  assert_success (&first);
  root = parse_stdout (&first);
  g_assert_nonnull (root);
  o = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (o, "format_version"), ==, 2);
  {
    /* The version --version prints. */
    g_auto (CliRun) version = { 0 };
    g_autofree char *expected = NULL;
    RUN_CLI (&version, "--version");
    assert_success (&version);
    g_assert_true (g_str_has_prefix (version.out, "parallax-cli "));
    expected = g_strstrip (g_strdup (version.out + strlen ("parallax-cli ")));
    g_assert_cmpstr (json_object_get_string_member (o, "tool_version"), ==, expected);
  }
  g_assert_cmpstr (json_object_get_string_member (o, "scenario"), ==, "small");
  model = json_object_get_object_member (o, "model");
  g_assert_cmpstr (json_object_get_string_member (model, "name"), ==, "gpt2");
  /* 12 x (12 x 768^2 + 13 x 768) + 50257 x 768 + 1024 x 768 + 2 x 768 */
  g_assert_cmpint (json_object_get_int_member (model, "n_params"), ==, 124439808);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (o, "cluster"), "gpu"), ==,
                   "A100-SXM4-80GB");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "strategy"), "dp"), ==, 2);
  json_generator_set_root (gen, json_object_get_member (o, "strategy"));
  strategy = json_generator_to_data (gen, NULL);
  text = g_strdup_printf ("{\"model\": {\"preset\": \"gpt2\"}, \"cluster\": {\"preset\": \"dgx-a100-80gb\"},"
                          " \"strategy\": %s}", strategy);
  path2 = test_write_file (dir, "again.json", text, -1);
  RUN_CLI (&again, "simulate", path2, "--json");
  assert_success (&again);
  g_assert_cmpfloat (step_of (&again), ==, step_of (&first));
  test_rm_rf (dir);
}

/* --layers-per-stage: counts by hand, checked against the pipeline; another --pp
 * drops the file's counts (they were one per stage of its own pipeline). */
static void
test_simulate_layers_per_stage (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *path = test_write_file (dir, "gpt2.json",
    "{\"model\": {\"preset\": \"gpt2\"}, \"cluster\": {\"preset\": \"dgx-a100-80gb\"},"
    " \"strategy\": {\"pp\": 4, \"layers_per_stage\": [2, 4, 4, 2], \"global_batch_size\": 8}}", -1);
  g_auto (CliRun) given = { 0 };
  g_auto (CliRun) wrong = { 0 };
  g_auto (CliRun) bad = { 0 };
  g_auto (CliRun) repiped = { 0 };
  g_auto (CliRun) even = { 0 };
  g_auto (CliRun) balanced = { 0 };

  /* In the closed form a 1F1B step is (m - 1) x the slowest stage plus one pass
   * through all of them (Narayanan et al. 2021 §2.2); the balanced split has the
   * smallest slowest stage, so no split by hand is faster. GPT-2's 50,257-word
   * embedding and head weigh several of its small layers, so 3 3 3 3 is not it. */
  RUN_CLI (&given, "simulate", path, "--engine", "analytical", "--json");
  assert_success (&given);
  RUN_CLI (&even, "simulate", path, "--layers-per-stage", "3,3,3,3", "--engine", "analytical", "--json");
  assert_success (&even);
  RUN_CLI (&balanced, "simulate", path, "--layers-per-stage", "auto", "--engine", "analytical", "--json");
  assert_success (&balanced);
  g_assert_cmpfloat (step_of (&balanced), <=, step_of (&given));
  g_assert_cmpfloat (step_of (&balanced), <, step_of (&even));
  g_assert_cmpfloat (step_of (&given), !=, step_of (&even));
  RUN_CLI (&wrong, "simulate", path, "--layers-per-stage", "6,6");
  ASSERT_FAILURE (&wrong, 1, "strategy.layers_per_stage: 2 counts given, but pp = 4 stages need one each");
  RUN_CLI (&bad, "simulate", path, "--layers-per-stage", "3,x,3,3");
  ASSERT_FAILURE (&bad, 2, "--layers-per-stage", "\"x\" is not a whole number");
  RUN_CLI (&repiped, "simulate", path, "--pp", "8");
  assert_success (&repiped);
  test_rm_rf (dir);
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
test_simulate_power_limit (void)
{
  g_auto (CliRun) full = { 0 };
  g_auto (CliRun) capped = { 0 };
  g_auto (CliRun) bad = { 0 };
  g_auto (CliRun) locked = { 0 };
  g_autoptr (JsonNode) a = NULL, b = NULL;

  /* The default A100s (400 W, 90 W static) capped at 300 W: tensor cores at
   * (210/310)^(1/3) = 87.8 % of full speed. */
  RUN_CLI (&capped, "simulate", "--power-limit", "300");
  assert_success (&capped);
  g_assert_nonnull (strstr (capped.out, "capped at 300 W of 400 W: tensor cores at 87.8 % of full speed"));
  RUN_CLI (&locked, "simulate", "--gpu-clock", "1128");
  assert_success (&locked);
  g_assert_nonnull (strstr (locked.out, "clock locked at 1128 MHz of 1410 MHz: tensor cores at 80.0 % of full speed"));

  /* Only the GEMMs slow down: the step grows, by less than 1/0.878. */
  RUN_CLI (&full, "simulate", "--json");
  g_clear_pointer (&capped.out, g_free);
  g_clear_pointer (&capped.err, g_free);
  RUN_CLI (&capped, "simulate", "--power-limit", "300", "--json");
  assert_success (&full);
  assert_success (&capped);
  a = parse_stdout (&full);
  b = parse_stdout (&capped);
  if (a == NULL || b == NULL)
    return;
  {
    double ta = json_object_get_double_member (json_node_get_object (a), "step_time_s");
    double tb = json_object_get_double_member (json_node_get_object (b), "step_time_s");

    g_assert_cmpfloat (tb, >, ta * 1.05);
    g_assert_cmpfloat (tb, <, ta / cbrt (210.0 / 310.0));
  }

  RUN_CLI (&bad, "simulate", "--power-limit", "500");
  ASSERT_FAILURE (&bad, 1, "cluster.gpu.power_limit_w: 500 W", "400 W (tdp_w)");
}

static void
test_simulate_fp8_param_gather (void)
{
  g_auto (CliRun) pytorch = { 0 };
  g_auto (CliRun) off = { 0 };
  g_auto (CliRun) megatron = { 0 };
  g_auto (CliRun) bad = { 0 };

  /* Llama 2 7B in fp8 under ZeRO-3 on 8 H100: PyTorch code (auto under ZeRO-3)
   * gathers the fp8 weights in fp8 unless told not to; Megatron's does not unless
   * told to; bf16 cannot. */
  RUN_CLI (&pytorch, "simulate", "--model", "llama-2-7b", "--cluster", "dgx-h100-80gb", "--nodes", "1", "--tp", "1",
           "--pp", "1", "--schedule", "1f1b", "--virtual-stages", "1", "--global-batch-size", "8", "--zero-stage", "3", "--dtype", "fp8", "--flash-attention");
  assert_success (&pytorch);
  g_assert_nonnull (strstr (pytorch.out, "ZeRO 3, fp8 (weights gathered in fp8)"));
  RUN_CLI (&off, "simulate", "--model", "llama-2-7b", "--cluster", "dgx-h100-80gb", "--nodes", "1", "--tp", "1",
           "--pp", "1", "--schedule", "1f1b", "--virtual-stages", "1", "--global-batch-size", "8", "--zero-stage", "3", "--dtype", "fp8", "--flash-attention",
           "--no-fp8-param-gather");
  assert_success (&off);
  g_assert_nonnull (strstr (off.out, "ZeRO 3, fp8"));
  g_assert_null (strstr (off.out, "gathered in fp8"));
  RUN_CLI (&megatron, "simulate", "--model", "llama-2-7b", "--cluster", "dgx-h100-80gb", "--nodes", "1", "--tp", "1",
           "--pp", "1", "--schedule", "1f1b", "--virtual-stages", "1", "--global-batch-size", "8", "--zero-stage", "1", "--dtype", "fp8", "--flash-attention");
  assert_success (&megatron);
  g_assert_nonnull (strstr (megatron.out, "ZeRO 1, fp8"));
  g_assert_null (strstr (megatron.out, "gathered in fp8"));
  RUN_CLI (&bad, "simulate", "--model", "llama-2-7b", "--tp", "1", "--pp", "1", "--schedule", "1f1b", "--virtual-stages", "1", "--global-batch-size", "8",
           "--zero-stage", "3", "--fp8-param-gather");
  ASSERT_FAILURE (&bad, 1, "strategy.fp8_param_gather: true gathers fp8 weights, but dtype is bf16");
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
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *config
      = test_write_file (dir, "tiny/config.json",
                         "{\"model_type\": \"llama\", \"num_hidden_layers\": 8, \"hidden_size\": 1024,"
                         " \"num_attention_heads\": 16, \"num_key_value_heads\": 8,"
                         " \"intermediate_size\": 2816, \"vocab_size\": 32000,"
                         " \"max_position_embeddings\": 2048, \"_name_or_path\": \"tiny/llama\"}",
                         -1);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--model", config, "--tp", "8", "--pp", "1", "--schedule", "1f1b", "--virtual-stages", "1");
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "tiny/llama"));
  g_assert_nonnull (strstr (r.out, "8 layers"));
  g_assert_nonnull (strstr (r.out, "dp 8, tp 8, pp 1"));
  test_rm_rf (dir);
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
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "Engine            event\n"));
  g_assert_nonnull (strstr (r.out, "Step time"));
}

static void
test_simulate_engine_text (void)
{
  g_auto (CliRun) deflt = { 0 };
  g_auto (CliRun) analytical = { 0 };

  RUN_CLI (&deflt, "simulate");
  RUN_CLI (&analytical, "simulate", "--engine", "analytical");
  assert_success (&deflt);
  assert_success (&analytical);
  g_assert_nonnull (strstr (deflt.out, "Engine            event\n"));
  g_assert_nonnull (strstr (analytical.out, "Engine            analytical\n"));
}

static void
test_simulate_engine_missing_value (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--engine");
  ASSERT_FAILURE (&r, 2, "--engine");
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
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *path = g_build_filename (dir, "no-such-scenario.json", NULL);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", path);
  ASSERT_FAILURE (&r, 1, path);
  test_rm_rf (dir);
}

static void
test_simulate_malformed_file (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *path = test_write_file (dir, "broken.json",
                                           "{\n  \"model\": {\"preset\": \"gpt2\"},\n  \"cluster\": \n", -1);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", path);
  ASSERT_FAILURE (&r, 1, path);
  g_assert_true (g_str_has_prefix (r.err, "parallax-cli: "));
  test_rm_rf (dir);
}

static void
test_simulate_top_level_array (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *path = test_write_file (dir, "array.json", "[{\"model\": {\"preset\": \"gpt2\"}}]", -1);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", path);
  ASSERT_FAILURE (&r, 1, path);
  test_rm_rf (dir);
}

static void
test_simulate_inconsistent_file (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *path
      = test_write_file (dir, "bad-dp.json",
                         "{\"model\": {\"preset\": \"gpt2\"}, \"cluster\": {\"preset\": \"dgx-a100-80gb\"},"
                         " \"strategy\": {\"dp\": 3, \"global_batch_size\": 12}}",
                         -1);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", path);
  ASSERT_FAILURE (&r, 1, path, "dp", "3");
  test_rm_rf (dir);
}

/* A degree that does not divide the cluster: the one error line goes on with the
 * nearest valid values and their flags (docs/advice.md). TP 6 with PP 8 on 64 GPUs:
 * tp*pp = 48 does not divide 64; the nearest TP on a log scale that does is 8
 * (|ln 8/6| = 0.29 < |ln 6/4| = 0.41), and the fix it names runs. */
static void
test_simulate_nearest_valid (void)
{
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) fixed = { 0 };

  RUN_CLI (&r, "simulate", "--tp", "6");
  ASSERT_FAILURE (&r, 1, "tp*pp*cp = 6*8*1 = 48", "Nearest valid: TP 8 (--tp 8)");
  g_assert_null (strstr (r.err, "TP 6"));

  RUN_CLI (&fixed, "simulate", "--tp", "8");
  assert_success (&fixed);
}

/* Issue 34, advice that led nowhere. A global batch of 2^30 on DP 24 (TP 8 x PP 1 on
 * 24 nodes): 2^30 = 16 (mod 24), so 1073741808 and 1073741832 are the multiples
 * around it, and the nearer one is past the 2^30 the reader takes; the fix is the
 * lower. The default on 12 nodes (96 GPUs, which TP 8 x PP 8 = 64 does not divide)
 * had no suggestion: 16 and 8 nodes (|ln 16/12| = 0.29 < |ln 12/8| = 0.41; no one
 * strategy key mends it, tests/core/test-advice.c). Each fix's flags run. */
static void
test_simulate_nearest_leads_somewhere (void)
{
  g_auto (CliRun) batch = { 0 };
  g_auto (CliRun) batch_fixed = { 0 };
  g_auto (CliRun) nodes = { 0 };
  g_auto (CliRun) nodes_fixed = { 0 };

  RUN_CLI (&batch, "simulate", "--engine", "analytical", "--tp", "8", "--pp", "1", "--nodes", "24", "--schedule", "1f1b",
           "--virtual-stages", "1", "--global-batch-size", "1073741824");
  ASSERT_FAILURE (&batch, 1, "Nearest valid: Global batch 1073741808 (--global-batch-size 1073741808)");
  g_assert_null (strstr (batch.err, "1073741832"));
  RUN_CLI (&batch_fixed, "simulate", "--engine", "analytical", "--tp", "8", "--pp", "1", "--nodes", "24", "--schedule",
           "1f1b", "--virtual-stages", "1", "--global-batch-size", "1073741808");
  assert_success (&batch_fixed);

  RUN_CLI (&nodes, "simulate", "--nodes", "12");
  ASSERT_FAILURE (&nodes, 1, "does not divide the cluster's 96 GPUs. Nearest valid: 16 nodes (128 GPUs) (--nodes 16), "
                  "8 nodes (64 GPUs) (--nodes 8)");
  RUN_CLI (&nodes_fixed, "simulate", "--engine", "analytical", "--nodes", "16");
  assert_success (&nodes_fixed);
}

/* Issue 34: where the event engine refuses (GPT-2 with TP 4 x PP 2 on 8 GPUs is DP 1: a
 * global batch of 2,500,000 is 5 million passes of 2 stages, past 4 million), the CLI
 * adds its own way out, --engine analytical, after what the strategy can change; and
 * that way runs. Integers past 64 bits are quoted as written, never as -1. */
static void
test_simulate_refusals_named (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *big = NULL;
  g_auto (CliRun) passes = { 0 };
  g_auto (CliRun) closed = { 0 };
  g_auto (CliRun) file = { 0 };
  g_auto (CliRun) flag = { 0 };

  RUN_CLI (&passes, "simulate", "--model", "gpt2", "--nodes", "1", "--tp", "4", "--pp", "2", "--schedule", "1f1b",
           "--virtual-stages", "1", "--global-batch-size", "2500000");
  ASSERT_FAILURE (&passes, 1, "2500000 micro-batches x 2 stages x 1 chunks",
                  "a larger micro-batch size or a smaller global batch size makes fewer micro-batches; "
                  "or --engine analytical answers in closed form");
  RUN_CLI (&closed, "simulate", "--engine", "analytical", "--model", "gpt2", "--nodes", "1", "--tp", "4", "--pp", "2",
           "--schedule", "1f1b", "--virtual-stages", "1", "--global-batch-size", "2500000");
  assert_success (&closed);

  big = test_write_file (dir, "big.json", "{ \"strategy\": { \"global_batch_size\": 99999999999999999999 } }", -1);
  RUN_CLI (&file, "simulate", big);
  ASSERT_FAILURE (&file, 1, "strategy.global_batch_size: 99999999999999999999 is out of range");
  RUN_CLI (&flag, "simulate", "--global-batch-size", "99999999999999999999");
  ASSERT_FAILURE (&flag, 2, "--global-batch-size: 99999999999999999999 is out of range");
  test_rm_rf (dir);
}

/* Issue 34: "No effect at DP 1" on ZeRO where it shards over CP 4. The header says
 * nothing at TP 8 x PP 2 x CP 4 (DP 1, DP x CP = 4) and the peak falls from ZeRO 0 to
 * ZeRO 1; at TP 8 x PP 8 (DP x CP = 1) it says ZeRO has no effect. Parameter counts
 * in the unit that fits: GPT-2 small's 124,439,808 are "124 M", not "0.12 B". */
static void
test_simulate_zero_note_and_params (void)
{
  g_auto (CliRun) cp4 = { 0 };
  g_auto (CliRun) dp1 = { 0 };
  g_auto (CliRun) presets = { 0 };
  g_autoptr (JsonNode) j1 = NULL;
  g_autoptr (JsonNode) j0 = NULL;

  RUN_CLI (&cp4, "simulate", "--engine", "analytical", "--tp", "8", "--pp", "2", "--cp", "4", "--zero-stage", "1");
  assert_success (&cp4);
  g_assert_nonnull (strstr (cp4.out, ", ZeRO 1, bf16"));
  RUN_CLI (&dp1, "simulate", "--engine", "analytical", "--tp", "8", "--pp", "8", "--zero-stage", "1");
  assert_success (&dp1);
  g_assert_nonnull (strstr (dp1.out, "ZeRO 1 (no effect at DP × CP = 1: ZeRO shards over the data- and "
                                     "context-parallel ranks), "));
  /* GPT-3: 174.6 billion parameters (Brown et al. 2020, "175B"). */
  g_assert_nonnull (strstr (dp1.out, "Model             gpt3-175b (175 B parameters, 96 layers)"));
  {
    g_auto (CliRun) a = { 0 };
    g_auto (CliRun) b = { 0 };
    RUN_CLI (&a, "simulate", "--json", "--engine", "analytical", "--tp", "8", "--pp", "2", "--cp", "4", "--zero-stage", "1");
    RUN_CLI (&b, "simulate", "--json", "--engine", "analytical", "--tp", "8", "--pp", "2", "--cp", "4", "--zero-stage", "0");
    assert_success (&a);
    assert_success (&b);
    j1 = parse_stdout (&a);
    j0 = parse_stdout (&b);
    g_assert_cmpfloat (get_number (json_node_get_object (j1), "peak_memory_bytes"), <,
                       get_number (json_node_get_object (j0), "peak_memory_bytes"));
  }
  RUN_CLI (&presets, "presets");
  assert_success (&presets);
  g_assert_nonnull (strstr (presets.out, "  gpt2             gpt2         12 layers, hidden    768,  12 heads,    124 M parameters\n"));
}

/* The flags that make a fit suggestion, from its key and value. */
static void
add_fix_flags (GPtrArray  *args,
               JsonObject *fix)
{
  const char *key = json_object_get_string_member (fix, "key");
  JsonNode *value = json_object_get_member (fix, "value");
  char *flag = g_str_equal (key, "num_nodes") ? g_strdup ("--nodes") : g_strdup_printf ("--%s", key);

  g_strdelimit (flag, "_", '-');
  g_ptr_array_add (args, flag);
  if (json_node_get_value_type (value) == G_TYPE_STRING)
    g_ptr_array_add (args, g_strdup (json_node_get_string (value)));
  else
    g_ptr_array_add (args, g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (value)));
}

/* Micro-batch 4 on the default (TP 8, PP 8, selective recompute, DP 1) does not fit.
 * Each suggested change, run on its own through the closed form, must fit with the
 * step time and peak the suggestion announced; they come fastest first. Micro-batch 3
 * does not divide the 64 micro-batches, so the micro-batch suggestion is 2; ZeRO
 * cannot help at DP 1 and is not offered. */
static void
test_simulate_fit_suggestions (void)
{
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) text = { 0 };
  g_auto (CliRun) fits = { 0 };
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (JsonNode) fits_root = NULL;
  JsonArray *fixes;
  gboolean saw_micro_batch = FALSE;
  double previous = 0;

  RUN_CLI (&r, "simulate", "--json", "--micro-batch-size", "4");
  assert_success (&r);
  root = parse_stdout (&r);
  g_assert_false (json_object_get_boolean_member (json_node_get_object (root), "fits_in_memory"));
  fixes = json_object_get_array_member (json_node_get_object (root), "fit_suggestions");
  g_assert_nonnull (fixes);
  g_assert_cmpuint (json_array_get_length (fixes), >=, 2);

  for (guint i = 0; i < json_array_get_length (fixes); i++)
    {
      JsonObject *fix = json_array_get_object_element (fixes, i);
      const char *key = json_object_get_string_member (fix, "key");
      g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
      g_auto (CliRun) one = { 0 };
      g_autoptr (JsonNode) one_root = NULL;
      JsonObject *report;
      double step = get_number (fix, "step_time_s");

      g_assert_cmpfloat (step, >=, previous);
      previous = step;
      g_assert_cmpstr (key, !=, "zero_stage");
      if (g_str_equal (key, "micro_batch_size"))
        {
          saw_micro_batch = TRUE;
          g_assert_cmpint (json_object_get_int_member (fix, "value"), ==, 2);
          g_assert_cmpstr (json_object_get_string_member (fix, "label"), ==, "Micro-batch 2");
        }
      g_ptr_array_add (args, NULL);  /* the program: parallax-cli */
      g_ptr_array_add (args, g_strdup ("simulate"));
      g_ptr_array_add (args, g_strdup ("--json"));
      g_ptr_array_add (args, g_strdup ("--engine"));
      g_ptr_array_add (args, g_strdup ("analytical"));
      g_ptr_array_add (args, g_strdup ("--micro-batch-size"));
      g_ptr_array_add (args, g_strdup ("4"));
      add_fix_flags (args, fix);
      g_ptr_array_add (args, NULL);
      cli_run (&one, NULL, NULL, (const char *const *) args->pdata);
      assert_success (&one);
      one_root = parse_stdout (&one);
      report = json_node_get_object (one_root);
      g_assert_true (json_object_get_boolean_member (report, "fits_in_memory"));
      g_assert_false (json_object_has_member (report, "fit_suggestions"));
      g_assert_true (close_rel (get_number (report, "step_time_s"), step, 1e-9));
      g_assert_true (close_rel (get_number (report, "peak_memory_bytes"),
                                get_number (fix, "peak_memory_bytes"), 1e-9));
    }
  g_assert_true (saw_micro_batch);

  RUN_CLI (&text, "simulate", "--micro-batch-size", "4");
  assert_success (&text);
  g_assert_nonnull (strstr (text.out, "To fit, one change"));
  g_assert_true (g_regex_match_simple ("\\n  Micro-batch 2 +[0-9.]+ s +[0-9.]+ GiB +--micro-batch-size 2\\n",
                                          text.out, 0, 0));

  RUN_CLI (&fits, "simulate", "--json");
  assert_success (&fits);
  fits_root = parse_stdout (&fits);
  g_assert_false (json_object_has_member (json_node_get_object (fits_root), "fit_suggestions"));
  g_assert_null (strstr (fits.out, "To fit"));
}

static void
test_simulate_scenario_file (void)
{
  /* hf_config is relative to the scenario file, not to the working directory. */
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *config G_GNUC_UNUSED
      = test_write_file (dir, "models/config.json",
                         "{\"model_type\": \"gpt2\", \"n_layer\": 12, \"n_embd\": 768, \"n_head\": 12,"
                         " \"vocab_size\": 50257, \"n_positions\": 1024}",
                         -1);
  g_autofree char *path
      = test_write_file (dir, "runs/small.json",
                         "{\"name\": \"small run\", \"model\": {\"hf_config\": \"../models/config.json\"},"
                         " \"cluster\": {\"preset\": \"dgx-a100-80gb\"},"
                         " \"strategy\": {\"tp\": 2, \"pp\": 2, \"global_batch_size\": 32,"
                         " \"micro_batch_size\": 4}}",
                         -1);
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
  test_rm_rf (dir);
}


/* ---- simulate: schedule files ------------------------------------------------------ */

/* gpt2 (12 layers) on one DGX A100 node: pp 2, dp 4, m = 8 / (4 * 1) = 2, and the
 * 1F1B order for it as a schedule file. */
#define SCHEDULE_SCENARIO_FMT \
  "{\"model\": {\"preset\": \"gpt2\"}, \"cluster\": {\"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1}," \
  " \"strategy\": {\"pp\": 2, \"dp\": 4, \"global_batch_size\": 8, \"micro_batch_size\": 1," \
  " \"seq_length\": 1024, \"schedule\": \"%s\"}}"
#define SCHEDULE_1F1B_PP2_M2 "{\"stages\": [[\"F0\", \"F1\", \"B0\", \"B1\"], [\"F0\", \"B0\", \"F1\", \"B1\"]]}"

static double
step_time_of (const CliRun *r,
              const char   *engine)
{
  g_autoptr (JsonNode) root = NULL;
  JsonObject *o;

  assert_success (r);
  root = parse_stdout (r);
  if (root == NULL)
    return NAN;
  o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member_with_default (o, "engine", ""), ==, engine);
  check_report (o, 8.0 * 1024.0, 8, A100_PEAK);
  return get_number (o, "step_time_s");
}

static void
test_simulate_schedule_file (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *sched = test_write_file (dir, "runs/sched.json", SCHEDULE_1F1B_PP2_M2, -1);
  g_autofree char *text = g_strdup_printf (SCHEDULE_SCENARIO_FMT, "sched.json");
  g_autofree char *path = test_write_file (dir, "runs/scenario.json", text, -1);
  g_auto (CliRun) file = { 0 };
  g_auto (CliRun) builtin = { 0 };
  double a, b;

  /* Relative to the scenario's folder: run from elsewhere. */
  RUN_CLI_IN (&file, dir, "simulate", path, "--json");
  RUN_CLI_IN (&builtin, dir, "simulate", path, "--schedule", "1f1b", "--json");
  a = step_time_of (&file, "event");
  b = step_time_of (&builtin, "event");
  g_assert_cmpfloat (a, ==, b);
  g_assert_true (g_file_test (sched, G_FILE_TEST_EXISTS));
  test_rm_rf (dir);
}

static void
test_simulate_schedule_file_analytical (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *sched = test_write_file (dir, "sched.json", SCHEDULE_1F1B_PP2_M2, -1);
  g_autofree char *text = g_strdup_printf (SCHEDULE_SCENARIO_FMT, "sched.json");
  g_autofree char *path = test_write_file (dir, "scenario.json", text, -1);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", path, "--engine", "analytical");
  ASSERT_FAILURE (&r, 1, "strategy.schedule", sched);
  test_rm_rf (dir);
}

static void
test_simulate_schedule_file_missing (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *text = g_strdup_printf (SCHEDULE_SCENARIO_FMT, "plans/absent.json");
  g_autofree char *path = test_write_file (dir, "scenario.json", text, -1);
  g_autofree char *sched = g_build_filename (dir, "plans", "absent.json", NULL);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", path);
  ASSERT_FAILURE (&r, 1, sched);
  test_rm_rf (dir);
}

static void
test_simulate_schedule_file_deadlock (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *sched = test_write_file (
      dir, "sched.json", "{\"stages\": [[\"F0\", \"B0\", \"F1\", \"B1\"], [\"F1\", \"F0\", \"B0\", \"B1\"]]}",
      -1);
  g_autofree char *text = g_strdup_printf (SCHEDULE_SCENARIO_FMT, "sched.json");
  g_autofree char *path = test_write_file (dir, "scenario.json", text, -1);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", path);
  ASSERT_FAILURE (&r, 1, sched, "stage 0", "B0", "deadlocks");
  test_rm_rf (dir);
}

/* ---- simulate --trace --------------------------------------------------------------- */

static gboolean
is_printable_ascii (const char *s)
{
  if (s == NULL || *s == '\0')
    return FALSE;
  for (; *s != '\0'; s++)
    if (!g_ascii_isprint (*s))
      return FALSE;
  return TRUE;
}

/* The labels of the forward tasks in `parallax-cli plan` of the default scenario. */
static GHashTable *plan_forward_labels (void);

static void
check_trace_file (const char *path,
                  guint       n_stages)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GHashTable) forward_labels = plan_forward_labels ();
  g_autofree guint *threads = g_new0 (guint, n_stages);
  g_autofree guint8 *processes = g_new0 (guint8, n_stages);
  JsonNode *root;
  JsonArray *events;
  guint n_process = 0, n_thread = 0, n_forward = 0, n_x = 0, n_memory = 0;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  g_assert_nonnull (root);
  if (root == NULL)
    return;
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  if (!JSON_NODE_HOLDS_OBJECT (root))
    return;
  events = json_object_get_array_member (json_node_get_object (root), "traceEvents");
  g_assert_nonnull (events);
  if (events == NULL)
    return;
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *ev = json_array_get_object_element (events, i);
      const char *ph = json_object_get_string_member_with_default (ev, "ph", "");
      const char *name = json_object_get_string_member_with_default (ev, "name", NULL);
      gint64 pid = json_object_get_int_member_with_default (ev, "pid", -1);
      JsonObject *args = json_object_get_object_member (ev, "args");

      g_assert_nonnull (name);
      g_assert_cmpint (pid, >=, 0);
      g_assert_cmpint (pid, <, n_stages);
      if (name == NULL || pid < 0 || pid >= n_stages)
        continue;
      if (g_str_equal (ph, "M") && g_str_equal (name, "process_name"))
        {
          g_autofree char *expected = g_strdup_printf ("stage %" G_GINT64_FORMAT, pid);

          g_assert_cmpstr (json_object_get_string_member_with_default (args, "name", ""), ==, expected);
          g_assert_cmpuint (processes[pid], ==, 0);
          processes[pid] = 1;
          n_process++;
        }
      else if (g_str_equal (ph, "M") && g_str_equal (name, "thread_name"))
        {
          static const char *const streams[] = { "compute", "tp", "pp", "dp" };
          const char *thread = json_object_get_string_member_with_default (args, "name", "");
          gboolean known = FALSE;

          for (guint k = 0; k < G_N_ELEMENTS (streams); k++)
            if (g_str_equal (thread, streams[k]))
              {
                g_assert_cmpuint (threads[pid] & (1u << k), ==, 0);
                threads[pid] |= 1u << k;
                known = TRUE;
              }
          if (!known)
            g_test_message ("unknown thread name \"%s\"", thread);
          g_assert_true (known);
          n_thread++;
        }
      else if (g_str_equal (ph, "X"))
        {
          const char *cat = json_object_get_string_member_with_default (ev, "cat", "");

          n_x++;
          /* Names are the plan's labels: plain text, never stale memory. */
          if (!is_printable_ascii (name))
            g_test_message ("event %u: name is not printable text", i);
          g_assert_true (is_printable_ascii (name));
          g_assert_cmpfloat (json_object_get_double_member_with_default (ev, "dur", -1.0), >=, 0.0);
          g_assert_cmpfloat (json_object_get_double_member_with_default (ev, "ts", -1.0), >=, 0.0);
          if (g_str_equal (cat, "forward") && args != NULL && json_object_has_member (args, "micro_batch"))
            {
              g_assert_cmpint (json_object_get_int_member (args, "micro_batch"), >=, 0);
              g_assert_cmpint (json_object_get_int_member (args, "micro_batch"), <, 64);
              if (!g_hash_table_contains (forward_labels, name))
                g_test_message ("forward event \"%.80s\" is not a forward task of the plan", name);
              g_assert_true (g_hash_table_contains (forward_labels, name));
              n_forward++;
            }
        }
      else if (g_str_equal (ph, "C") && g_str_equal (name, "memory"))
        {
          g_assert_nonnull (args);
          if (args != NULL)
            g_assert_cmpfloat (json_object_get_double_member_with_default (args, "activation_bytes", -1.0), >=, 0.0);
          n_memory++;
        }
    }
  g_assert_cmpuint (n_process, ==, n_stages);
  g_assert_cmpuint (n_thread, ==, 4 * n_stages);
  for (guint s = 0; s < n_stages; s++)
    g_assert_cmpuint (threads[s], ==, 0xf);
  g_assert_cmpuint (n_x, >, 0);
  g_assert_cmpuint (n_forward, >=, 1);
  g_assert_cmpuint (n_memory, >=, 1);
}

/* `dir` holds exactly the files named, sorted and space-separated. */
#define ASSERT_DIR_LISTING(dir, expected) \
  G_STMT_START { \
    g_autofree char *listing_ = test_dir_listing (dir); \
    g_assert_cmpstr (listing_, ==, expected); \
  } G_STMT_END

static void
test_simulate_trace (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *path = g_build_filename (dir, "T.json", NULL);
  g_auto (CliRun) r = { 0 };

  /* A relative path, in the working directory. */
  RUN_CLI_IN (&r, dir, "simulate", "--trace", "T.json");
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "T.json"));
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  check_trace_file (path, 8);
  ASSERT_DIR_LISTING (dir, "T.json");
  test_rm_rf (dir);
}

/* An existing file is replaced; --trace=PATH works as --trace PATH. */
static void
test_simulate_trace_replaces (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *path = test_write_file (dir, "old.json", "stale, not JSON", -1);
  g_autofree char *arg = g_strdup_printf ("--trace=%s", path);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--pp", "4", "--json", arg);
  assert_success (&r);
  check_trace_file (path, 4);
  ASSERT_DIR_LISTING (dir, "old.json");
  test_rm_rf (dir);
}

static void
test_simulate_trace_analytical (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_auto (CliRun) r = { 0 };

  RUN_CLI_IN (&r, dir, "simulate", "--engine", "analytical", "--trace", "T.json");
  ASSERT_FAILURE (&r, 2, "--trace");
  ASSERT_DIR_LISTING (dir, "");
  test_rm_rf (dir);
}

static void
test_simulate_trace_unwritable (void)
{
  g_auto (CliRun) r = { 0 };

  g_assert_false (g_file_test ("/nonexistent-dir", G_FILE_TEST_EXISTS));
  RUN_CLI (&r, "simulate", "--trace", "/nonexistent-dir/t.json");
  ASSERT_FAILURE (&r, 1, "/nonexistent-dir/t.json");
  g_assert_false (g_file_test ("/nonexistent-dir/t.json", G_FILE_TEST_EXISTS));
}

/* The target is a directory: the rename fails, and the temporary file goes too. */
static void
test_simulate_trace_onto_directory (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *target = g_build_filename (dir, "T.json", NULL);
  g_autofree char *inside = test_write_file (dir, "T.json/keep", "x", -1);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--trace", target);
  ASSERT_FAILURE (&r, 1, target);
  g_assert_true (g_file_test (target, G_FILE_TEST_IS_DIR));
  g_assert_true (g_file_test (inside, G_FILE_TEST_IS_REGULAR));
  ASSERT_DIR_LISTING (dir, "T.json");
  test_rm_rf (dir);
}

/* ---- plan ------------------------------------------------------------------------ */

/* One task line of `parallax-cli plan`: "%5u %5u %4c %-7s %-12s %-36s %9.3e %9.3e "
 * then a duration with its unit (src/core/engine/plx-plan.c). */
typedef struct
{
  guint  stage;
  guint  chunk;
  char   pass;
  char  *stream;
  char  *kind;
  char  *label;
  double flops;
  double bytes;
  double duration_s;
} PlanTask;

static void
plan_task_free (gpointer data)
{
  PlanTask *t = data;

  g_free (t->stream);
  g_free (t->kind);
  g_free (t->label);
  g_free (t);
}

static GPtrArray *
parse_plan_tasks (const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GRegex) re = g_regex_new ("^\\s*(\\d+)\\s+(\\d+)\\s+([FBW])\\s+(\\S+)\\s+(\\S+)\\s+(.+?)\\s+(\\S+)\\s+(\\S+)"
                                       "\\s+(\\S+)\\s*(s|ms|us)\\s*$", 0, 0, &error);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  GPtrArray *tasks = g_ptr_array_new_with_free_func (plan_task_free);

  g_assert_no_error (error);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr (GMatchInfo) match = NULL;
      PlanTask *t;
      g_autofree char *unit = NULL;
      g_autofree char *field = NULL;

      if (!g_regex_match (re, lines[i], 0, &match))
        continue;
      t = g_new0 (PlanTask, 1);
      field = g_match_info_fetch (match, 1);
      t->stage = (guint) g_ascii_strtoull (field, NULL, 10);
      g_free (field);
      field = g_match_info_fetch (match, 2);
      t->chunk = (guint) g_ascii_strtoull (field, NULL, 10);
      g_free (field);
      field = g_match_info_fetch (match, 3);
      t->pass = field[0];
      t->stream = g_match_info_fetch (match, 4);
      t->kind = g_match_info_fetch (match, 5);
      t->label = g_match_info_fetch (match, 6);
      g_free (field);
      field = g_match_info_fetch (match, 7);
      t->flops = g_ascii_strtod (field, NULL);
      g_free (field);
      field = g_match_info_fetch (match, 8);
      t->bytes = g_ascii_strtod (field, NULL);
      g_free (field);
      field = g_match_info_fetch (match, 9);
      unit = g_match_info_fetch (match, 10);
      t->duration_s = g_ascii_strtod (field, NULL) *
                      (g_str_equal (unit, "s") ? 1.0 : g_str_equal (unit, "ms") ? 1e-3 : 1e-6);
      g_ptr_array_add (tasks, t);
    }
  return tasks;
}

static guint
count_plan_tasks (GPtrArray *tasks,
                  guint      stage,
                  guint      chunk,
                  char       pass)
{
  guint n = 0;

  for (guint i = 0; i < tasks->len; i++)
    {
      const PlanTask *t = g_ptr_array_index (tasks, i);
      if (t->stage == stage && t->chunk == chunk && t->pass == pass)
        n++;
    }
  return n;
}

/* The `index`-th task of (stage, chunk, pass), or NULL. */
static const PlanTask *
nth_plan_task (GPtrArray *tasks,
               guint      stage,
               guint      chunk,
               char       pass,
               guint      index)
{
  for (guint i = 0; i < tasks->len; i++)
    {
      const PlanTask *t = g_ptr_array_index (tasks, i);
      if (t->stage == stage && t->chunk == chunk && t->pass == pass && index-- == 0)
        return t;
    }
  return NULL;
}

/* Lines "STAGE - step STREAM KIND LABEL ..." of stage `stage` holding `label`. */
static guint
count_step_lines (const char *text,
                  guint       stage,
                  const char *label)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      guint st;
      char chunk[8], when[8];

      if (sscanf (lines[i], "%u %7s %7s", &st, chunk, when) == 3 && st == stage && g_str_equal (chunk, "-") &&
          g_str_equal (when, "step") && strstr (lines[i], label) != NULL)
        n++;
    }
  return n;
}

static GHashTable *
plan_forward_labels (void)
{
  g_auto (CliRun) r = { 0 };
  g_autoptr (GPtrArray) tasks = NULL;
  GHashTable *labels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  RUN_CLI (&r, "plan");
  assert_success (&r);
  tasks = parse_plan_tasks (r.out);
  for (guint i = 0; i < tasks->len; i++)
    {
      const PlanTask *t = g_ptr_array_index (tasks, i);
      if (g_str_equal (t->kind, "forward"))
        g_hash_table_add (labels, g_strdup (t->label));
    }
  g_assert_cmpuint (g_hash_table_size (labels), >, 0);
  return labels;
}

static void
test_plan_default (void)
{
  g_auto (CliRun) r = { 0 };
  g_autoptr (GPtrArray) tasks = NULL;
  const PlanTask *t;
  gboolean found = FALSE;

  RUN_CLI (&r, "plan");
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "gpt3-175b"));
  g_assert_nonnull (strstr (r.out, "# plan: 8 stages x 3 chunks, 64 micro-batches per step, schedule interleaved-1f1b\n"));
  tasks = parse_plan_tasks (r.out);

  for (guint i = 0; i < tasks->len; i++)
    {
      t = g_ptr_array_index (tasks, i);
      if (t->stage == 0 && t->chunk == 0 && t->pass == 'F' && g_str_equal (t->label, "layer 0 attention"))
        {
          found = TRUE;
          g_assert_cmpstr (t->stream, ==, "compute");
          g_assert_cmpstr (t->kind, ==, "forward");
          g_assert_cmpfloat (t->flops, >, 0.0);
          g_assert_cmpfloat (t->bytes, >, 0.0);
          g_assert_cmpfloat (t->duration_s, >, 0.0);
        }
    }
  g_assert_true (found);

  /* 96 layers / (8 stages x 3 chunks) = 4 layers a chunk; a layer's forward is
   * attention, its TP collective, MLP, its TP collective (tp 8). The first virtual
   * stage adds the embedding and its TP collective; the last (stage 7, chunk 2) the
   * LM head and its TP collective. */
  g_assert_cmpuint (count_plan_tasks (tasks, 7, 2, 'F'), ==, 4 * 4 + 2);
  g_assert_cmpuint (count_plan_tasks (tasks, 0, 0, 'F'), ==, 2 + 4 * 4);
  g_assert_cmpuint (count_plan_tasks (tasks, 3, 1, 'F'), ==, 4 * 4);
  g_assert_cmpuint (count_plan_tasks (tasks, 7, 1, 'F'), ==, 4 * 4);
  /* No W passes: interleaved 1F1B does not split the backward. */
  for (guint i = 0; i < tasks->len; i++)
    g_assert_cmpint (((const PlanTask *) g_ptr_array_index (tasks, i))->pass, !=, 'W');

  t = nth_plan_task (tasks, 7, 2, 'F', 0);
  g_assert_nonnull (t);
  if (t != NULL)
    g_assert_cmpstr (t->label, ==, "layer 92 attention");
  t = nth_plan_task (tasks, 7, 2, 'F', 16);
  g_assert_nonnull (t);
  if (t != NULL)
    {
      g_assert_cmpstr (t->label, ==, "LM head and loss");
      g_assert_cmpstr (t->kind, ==, "forward");
    }
  t = nth_plan_task (tasks, 7, 2, 'F', 17);
  g_assert_nonnull (t);
  if (t != NULL)
    {
      g_assert_cmpstr (t->stream, ==, "tp");
      g_assert_cmpstr (t->kind, ==, "tp_comm");
    }
  t = nth_plan_task (tasks, 0, 0, 'F', 0);
  g_assert_nonnull (t);
  if (t != NULL)
    g_assert_cmpstr (t->label, ==, "embedding");

  /* Once per step: each stage's optimizer; the tied embedding's all-reduce on the
   * first and last stage only; no gradient buckets with dp 1. */
  for (guint st = 0; st < 8; st++)
    {
      g_assert_cmpuint (count_step_lines (r.out, st, "Adam step"), ==, 1);
      g_assert_cmpuint (count_step_lines (r.out, st, "tied embedding all-reduce"), ==, (st == 0 || st == 7) ? 1 : 0);
      g_assert_cmpuint (count_step_lines (r.out, st, "gradient bucket"), ==, 0);
    }
  g_assert_cmpuint (count_step_lines (r.out, 8, "Adam step"), ==, 0);
}

static void
test_plan_overrides (void)
{
  g_auto (CliRun) r = { 0 };
  g_autoptr (GPtrArray) tasks = NULL;

  /* pp 4 on 64 GPUs: dp 2; 96 / (4 x 3) = 8 layers a chunk; 64 / 2 = 32 micro-batches. */
  RUN_CLI (&r, "plan", "--pp", "4");
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "dp 2, tp 8, pp 4"));
  g_assert_nonnull (strstr (r.out, "# plan: 4 stages x 3 chunks, 32 micro-batches per step, schedule interleaved-1f1b\n"));
  tasks = parse_plan_tasks (r.out);
  g_assert_cmpuint (count_plan_tasks (tasks, 3, 2, 'F'), ==, 4 * 8 + 2);
  g_assert_cmpuint (count_plan_tasks (tasks, 1, 1, 'F'), ==, 4 * 8);
  g_assert_cmpuint (count_plan_tasks (tasks, 4, 0, 'F'), ==, 0);
  for (guint st = 0; st < 4; st++)
    {
      g_assert_cmpuint (count_step_lines (r.out, st, "gradient bucket"), ==, 1);
      g_assert_cmpuint (count_step_lines (r.out, st, "Adam step"), ==, 1);
    }
}

/* A schedule that splits the backward: zero-bubble H1 lowers W passes. */
static void
test_plan_zero_bubble (void)
{
  g_auto (CliRun) r = { 0 };
  g_autoptr (GPtrArray) tasks = NULL;

  RUN_CLI (&r, "plan", "--schedule", "zero-bubble-h1", "--virtual-stages", "1");
  assert_success (&r);
  tasks = parse_plan_tasks (r.out);
  /* 96 / 8 = 12 layers a stage, one weight-gradient task each. */
  g_assert_cmpuint (count_plan_tasks (tasks, 3, 0, 'W'), ==, 12);
  g_assert_cmpuint (count_plan_tasks (tasks, 3, 0, 'F'), ==, 4 * 12);
}

static void
test_plan_missing_file (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *path = g_build_filename (dir, "absent.json", NULL);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "plan", path);
  ASSERT_FAILURE (&r, 1, path);
  test_rm_rf (dir);
}

static void
test_plan_unknown_option (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "plan", "--frobnicate");
  ASSERT_FAILURE (&r, 2, "--frobnicate");
}

static void
test_plan_help (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "plan", "--help");
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "parallax-cli plan"));
  g_assert_nonnull (strstr (r.out, "--tp"));
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
  g_assert_nonnull (strstr (r.out, "Engine: event\n"));
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
  g_assert_cmpstr (json_object_get_string_member_with_default (o, "engine", ""), ==, "event");
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
test_validate_text_analytical (void)
{
  g_autofree char *table = data_path ("korthikanti2022.json");
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "validate", "--engine", "analytical", table);
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "Engine: analytical\n"));
  g_assert_nonnull (strstr (r.out, "mean absolute error"));
}

static gint
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static void
test_validate_pooled (void)
{
  /* Two tables: each one's object, then the pooled summary over their step times,
   * MFUs and throughputs: the comparisons add up, the mean is the comparisons'
   * weighted mean, the worst the larger, and the median and speed bias come from the
   * rows (a step time predicted short counts as predicted faster). */
  g_autofree char *a = data_path ("korthikanti2022.json");
  g_autofree char *b = data_path ("bloom176b.json");
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) text = { 0 };
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (GArray) errors = g_array_new (FALSE, FALSE, sizeof (double));
  JsonObject *o, *pooled, *perf;
  JsonArray *tables;
  double sum = 0.0, speed = 0.0, worst = 0.0, median;

  RUN_CLI (&r, "validate", a, b, "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  o = json_node_get_object (root);
  tables = json_object_get_array_member (o, "tables");
  g_assert_cmpuint (json_array_get_length (tables), ==, 2);
  for (guint t = 0; t < 2; t++)
    {
      JsonArray *rows = json_object_get_array_member (json_array_get_object_element (tables, t), "rows");
      for (guint i = 0; i < json_array_get_length (rows); i++)
        {
          JsonObject *row = json_array_get_object_element (rows, i);
          const char *metric = json_object_get_string_member (row, "metric");
          double e = get_number (row, "error_pct");
          if (!g_str_equal (metric, "step_time_s") && !g_str_equal (metric, "mfu") &&
              !g_str_equal (metric, "tokens_per_s_per_gpu"))
            continue;
          g_array_append_val (errors, e);
          sum += fabs (e);
          worst = MAX (worst, fabs (e));
          speed += g_str_equal (metric, "step_time_s") ? -e : e;
        }
    }
  /* Korthikanti: 8 step times and 4 MFUs; BLOOM: one step time. */
  g_assert_cmpuint (errors->len, ==, 13);
  for (guint i = 0; i < errors->len; i++)
    g_array_index (errors, double, i) = fabs (g_array_index (errors, double, i));
  g_array_sort (errors, compare_doubles);
  median = g_array_index (errors, double, 6);
  pooled = json_object_get_object_member (o, "pooled");
  perf = json_object_get_object_member (pooled, "performance");
  g_assert_cmpint (json_object_get_int_member (perf, "comparisons"), ==, 13);
  g_assert_true (close_rel (get_number (perf, "mean_abs_error_pct"), sum / 13.0, 1e-9));
  g_assert_true (close_rel (get_number (perf, "median_abs_error_pct"), median, 1e-9));
  g_assert_true (close_rel (get_number (perf, "max_abs_error_pct"), worst, 1e-9));
  g_assert_true (close_rel (get_number (perf, "speed_bias_pct"), speed / 13.0, 1e-9));
  /* The pooled step-time summary counts both tables' step times. */
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json_object_get_object_member (pooled, "summary"),
                                                                              "step_time_s"), "cases"), ==, 9);

  RUN_CLI (&text, "validate", a, b);
  assert_success (&text);
  g_assert_nonnull (strstr (text.out, "Pooled over 2 tables"));
  g_assert_nonnull (strstr (text.out, "korthikanti2022.json"));
  g_assert_nonnull (strstr (text.out, "bloom176b.json"));
  g_assert_nonnull (strstr (text.out, "speed bias"));
}

/* validate --memory: every timed case (it ran) listed with whether it is predicted to
 * fit. GPT-3 175B unsharded on 8 GPUs needs 16 bytes a parameter for its Adam states
 * on each GPU (ZeRO, Rajbhandari et al. 2020, §3.1), 2.8 TB against 80 - 3 GiB usable;
 * GPT-2 small about 3 GB; BLOOM-176B ran on its 384 A100s, so it must fit. A table
 * without --memory has no "memory". */
static void
test_validate_memory (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *table = g_build_filename (dir, "hand.json", NULL);
  g_autofree char *bloom = data_path ("bloom176b.json");
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) plain = { 0 };
  g_auto (CliRun) text = { 0 };
  g_auto (CliRun) two = { 0 };
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (JsonNode) root_two = NULL;
  JsonObject *memory, *big;
  JsonArray *cases;

  g_assert_true (g_file_set_contents (table,
    "{ \"source\": \"hand\", \"cases\": ["
    "  { \"name\": \"175B unsharded\", \"measured\": { \"step_time_s\": 100.0 },"
    "    \"scenario\": { \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\" },"
    "                  \"strategy\": { \"global_batch_size\": 8 } } },"
    "  { \"name\": \"GPT-2\", \"measured\": { \"mfu\": 0.4 },"
    "    \"scenario\": { \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\" },"
    "                  \"strategy\": { \"global_batch_size\": 8 } } } ] }", -1, NULL));

  RUN_CLI (&r, "validate", table, "--memory", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  memory = json_object_get_object_member (json_node_get_object (root), "memory");
  g_assert_cmpint (json_object_get_int_member (memory, "runs"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (memory, "predicted_to_fit"), ==, 1);
  cases = json_object_get_array_member (memory, "cases");
  big = json_array_get_object_element (cases, 0);
  g_assert_cmpstr (json_object_get_string_member (big, "case"), ==, "175B unsharded");
  g_assert_false (json_object_get_boolean_member (big, "fits"));
  g_assert_cmpint (json_object_get_int_member (big, "usable_bytes"), ==, (gint64) 77 << 30);
  g_assert_cmpint (json_object_get_int_member (big, "peak_memory_bytes"), >=, (gint64) (16.0 * 174.6e9));
  g_assert_true (json_object_get_boolean_member (json_array_get_object_element (cases, 1), "fits"));

  RUN_CLI (&plain, "validate", table, "--json");
  assert_success (&plain);
  g_assert_null (strstr (plain.out, "\"memory\""));

  RUN_CLI (&text, "validate", table, "--memory");
  assert_success (&text);
  g_assert_nonnull (strstr (text.out, "175B unsharded"));
  g_assert_nonnull (strstr (text.out, "does not fit"));
  g_assert_nonnull (strstr (text.out, "77.00 GiB"));

  RUN_CLI (&two, "validate", table, bloom, "--memory", "--json");
  assert_success (&two);
  root_two = parse_stdout (&two);
  if (root_two == NULL)
    return;
  memory = json_object_get_object_member (json_object_get_object_member (json_node_get_object (root_two), "pooled"),
                                          "memory");
  g_assert_cmpint (json_object_get_int_member (memory, "runs"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (memory, "predicted_to_fit"), ==, 2);
  g_assert_false (json_object_has_member (memory, "cases"));
  test_rm_rf (dir);
}

/* Both engines hold the Korthikanti et al. 2022 step times to a mean error of 5 %
 * and a largest of 10 %. */
static void
check_validate_accuracy (const char *engine)
{
  g_autofree char *table = data_path ("korthikanti2022.json");
  g_auto (CliRun) r = { 0 };
  g_autoptr (JsonNode) root = NULL;
  JsonObject *o, *summary, *step;

  if (engine != NULL)
    RUN_CLI (&r, "validate", table, "--engine", engine, "--json");
  else
    RUN_CLI (&r, "validate", table, "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member_with_default (o, "engine", ""), ==, engine ? engine : "event");
  summary = json_object_get_object_member (o, "summary");
  g_assert_nonnull (summary);
  if (summary == NULL)
    return;
  step = json_object_get_object_member (summary, "step_time_s");
  g_assert_nonnull (step);
  if (step == NULL)
    return;
  g_assert_cmpint (json_object_get_int_member (step, "cases"), >=, 8);
  g_assert_cmpfloat (get_number (step, "mean_abs_error_pct"), <=, 5.0);
  g_assert_cmpfloat (get_number (step, "max_abs_error_pct"), <=, 10.0);
}

static void
test_validate_accuracy_event (void)
{
  check_validate_accuracy (NULL);
}

static void
test_validate_accuracy_analytical (void)
{
  check_validate_accuracy ("analytical");
}

static void
test_calibrate (void)
{
  /* The A100 runs of two tables, one factor: the fit, per-source errors before,
   * after and left out, and the cluster file written whole, which a scenario can use. */
  g_autofree char *a = data_path ("korthikanti2022.json");
  g_autofree char *b = data_path ("torchtitan-a100.json");
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *out = g_build_filename (dir, "a100.json", NULL);
  g_autofree char *scenario = g_build_filename (dir, "s.json", NULL);
  g_autofree char *text = NULL;
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) sim = { 0 };
  g_auto (CliRun) bad = { 0 };
  g_auto (CliRun) none = { 0 };
  g_autoptr (JsonNode) root = NULL, cluster = NULL;
  JsonObject *o, *cal;
  JsonArray *sources;

  RUN_CLI (&r, "calibrate", a, b, "--cluster", "dgx-a100-80gb", "--fit", "matmul", "--out", out, "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  o = json_node_get_object (root);
  /* Korthikanti: 8 step times and 4 MFUs; torchtitan: 8 throughputs. */
  g_assert_cmpint (json_object_get_int_member (o, "comparisons"), ==, 20);
  sources = json_object_get_array_member (o, "sources");
  g_assert_cmpuint (json_array_get_length (sources), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *src = json_array_get_object_element (sources, i);
      g_assert_cmpfloat (get_number (src, "mean_abs_error_pct_after"), >=, 0.0);
      g_assert_cmpfloat (get_number (src, "leave_one_source_out_pct"), >=, 0.0);
    }
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (
    json_object_get_object_member (o, "parameters"), "matmul_scale"), "fitted"));
  g_assert_false (json_object_get_boolean_member (json_object_get_object_member (
    json_object_get_object_member (o, "parameters"), "memory_scale"), "fitted"));

  cluster = plx_json_parse_file (out, NULL);
  g_assert_nonnull (cluster);
  cal = json_object_get_object_member (json_node_get_object (cluster), "calibration");
  g_assert_nonnull (cal);
  g_assert_true (close_rel (json_object_get_double_member (cal, "matmul_scale"),
                            get_number (json_object_get_object_member (json_object_get_object_member (o, "parameters"),
                                                                       "matmul_scale"), "value"), 1e-12));
  g_assert_cmpfloat (json_object_get_double_member (cal, "memory_scale"), ==, 1.0);
  /* The written cluster runs a scenario. */
  {
    g_autofree char *cluster_text = NULL;
    g_assert_true (g_file_get_contents (out, &cluster_text, NULL, NULL));
    text = g_strdup_printf ("{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": %s,"
                            "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 8 } }", cluster_text);
  }
  g_assert_true (g_file_set_contents (scenario, text, -1, NULL));
  RUN_CLI (&sim, "simulate", scenario);
  assert_success (&sim);

  RUN_CLI (&bad, "calibrate", a, "--cluster", "dgx-z900");
  ASSERT_FAILURE (&bad, 1, "dgx-z900");
  RUN_CLI (&none, "calibrate", a);
  ASSERT_FAILURE (&none, 2, "--cluster");
  test_rm_rf (dir);
}

static void
test_calibrate_gemm (void)
{
  /* XLA's H100 GEMM table into dgx-h100-80gb: bf16 is written as the matmul curve
   * (tf32 as matmul_tf32), the file written loads, and its curve is the one printed. */
  g_autofree char *gemm = data_path ("sweeps/xla-h100-gemm.csv");
  g_autofree char *membw = data_path ("sweeps/a100-40gb-stream.csv");
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *out = g_build_filename (dir, "h100.json", NULL);
  g_autofree char *bad_csv = NULL;
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) text = { 0 };
  g_auto (CliRun) missing = { 0 };
  g_auto (CliRun) bad = { 0 };
  g_auto (CliRun) mixed = { 0 };
  g_autoptr (JsonNode) root = NULL, written = NULL;
  g_autoptr (PlxCluster) cluster = NULL;
  g_autoptr (GError) error = NULL;
  JsonArray *fits, *curve;
  JsonObject *bf16;

  RUN_CLI (&r, "calibrate", "--gemm", gemm, "--cluster", "dgx-h100-80gb", "--out", out, "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  fits = json_object_get_array_member (json_node_get_object (root), "fits");
  g_assert_cmpuint (json_array_get_length (fits), ==, 2);
  bf16 = json_array_get_object_element (fits, 0);
  g_assert_cmpstr (json_object_get_string_member (bf16, "name"), ==, "bf16");
  g_assert_cmpstr (json_object_get_string_member (bf16, "key"), ==, "matmul");
  g_assert_cmpint (json_object_get_int_member (bf16, "rows"), ==, 31);
  g_assert_cmpfloat (get_number (bf16, "e_max_std_error"), >, 0.0);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (fits, 1), "key"), ==, "matmul_tf32");

  written = plx_json_parse_file (out, &error);
  g_assert_no_error (error);
  cluster = plx_cluster_new_from_json (written, out, &error);
  g_assert_no_error (error);
  curve = json_object_get_array_member (bf16, "curve");
  /* The measured curve is not scaled again by the preset's matmul_scale (0.864, fitted
   * to published runs against the preset's own curve). */
  g_assert_cmpfloat (cluster->matmul_scale, ==, 1.0);
  g_assert_cmpuint (plx_curve_get_n_points (cluster->matmul_efficiency), ==, json_array_get_length (curve));
  for (guint i = 0; i < json_array_get_length (curve); i++)
    {
      double x, y;
      JsonArray *point = json_array_get_array_element (curve, i);
      plx_curve_get_point (cluster->matmul_efficiency, i, &x, &y);
      g_assert_cmpfloat (x, ==, json_array_get_double_element (point, 0));
      g_assert_cmpfloat (y, ==, json_array_get_double_element (point, 1));
    }
  /* Everything else is the preset's: its peaks and its calibration. */
  g_assert_cmpfloat (cluster->peak_flops[PLX_DTYPE_BF16], ==, 9.894e14);

  RUN_CLI (&text, "calibrate", "--membw", membw, "--cluster", "dgx-a100-40gb");
  assert_success (&text);
  g_assert_nonnull (strstr (text.out, "memory: 29 rows -> gpu.efficiency.memory; 75 rows left out"));

  RUN_CLI (&missing, "calibrate", "--gemm", "/nonexistent/gemm.csv");
  ASSERT_FAILURE (&missing, 1, "gemm.csv");
  bad_csv = test_write_file (dir, "bad.csv", "m,n,k,dtype,time_us\n64,64,64,bf16,oops\n", -1);
  RUN_CLI (&bad, "calibrate", "--gemm", bad_csv);
  ASSERT_FAILURE (&bad, 1, "bad.csv:2: column \"time_us\": \"oops\" is not a positive number");
  RUN_CLI (&mixed, "calibrate", "table.json", "--gemm", gemm);
  ASSERT_FAILURE (&mixed, 2, "table.json");
  test_rm_rf (dir);
}


static void
test_calibrate_nccl (void)
{
  /* One node of 8 H100: the fitted intra-node link reproduces the all-reduce times
   * (single-node all-reduce is bandwidth-bound on that link alone), the JSON has a
   * point per measured size, and the written cluster runs a scenario. */
  g_autofree char *file = g_test_build_filename (G_TEST_DIST, "data", "nccl-tests", "h100-1x8-nvlink-five-ops.txt", NULL);
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *out = g_build_filename (dir, "h100.json", NULL);
  g_autofree char *scenario = g_build_filename (dir, "s.json", NULL);
  g_autofree char *cluster_text = NULL, *text = NULL;
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) sim = { 0 };
  g_auto (CliRun) wrong = { 0 };
  g_auto (CliRun) missing = { 0 };
  g_auto (CliRun) from_file = { 0 };
  g_auto (CliRun) as_text = { 0 };
  g_autofree char *cluster_file = g_build_filename (dir, "named.json", NULL);
  g_autoptr (JsonNode) root = NULL;
  JsonArray *ops, *points;

  RUN_CLI (&r, "calibrate", "--nccl-tests", file, "--gpus-per-node", "8", "--nodes", "1", "--cluster", "dgx-h100-80gb",
           "--out", out, "--json");
  assert_success (&r);
  /* A cluster file naming the same preset fits the same link (it crashed: the
   * preset expansion was handed no place to say it had one). */
  g_assert_true (g_file_set_contents (cluster_file, "{ \"preset\": \"dgx-h100-80gb\" }", -1, NULL));
  RUN_CLI (&from_file, "calibrate", "--nccl-tests", file, "--gpus-per-node", "8", "--nodes", "1", "--cluster",
           cluster_file, "--json");
  assert_success (&from_file);
  g_assert_cmpstr (from_file.out, ==, r.out);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (root), "link"), ==, "intra_node");
  ops = json_object_get_array_member (json_node_get_object (root), "ops");
  g_assert_cmpuint (json_array_get_length (ops), ==, 5);
  points = json_object_get_array_member (json_array_get_object_element (ops, 0), "points");
  g_assert_cmpuint (json_array_get_length (points), ==, 6);
  for (guint i = 0; i < 6; i++)
    g_assert_cmpfloat (fabs (get_number (json_array_get_object_element (points, i), "residual_pct")), <, 1e-6);
  /* 32 MiB took 182.87 us out of place (182.88 in place): the faster. */
  g_assert_cmpfloat (get_number (json_array_get_object_element (points, 0), "measured_time_s"), ==, 182.87e-6);
  /* All-reduce defines the link curve, so has no curve of its own; all-gather does:
   * on the link curve its 1 GiB takes half the all-reduce's 3997.59 us, 1998.795,
   * against 2700.76 measured (-25.99 %), on its own curve the measured time. */
  g_assert_false (json_object_get_boolean_member (json_array_get_object_element (ops, 0), "own_curve"));
  g_assert_false (json_object_has_member (json_array_get_object_element (points, 0), "own_residual_pct"));
  g_assert_true (json_object_get_boolean_member (json_array_get_object_element (ops, 1), "own_curve"));
  points = json_object_get_array_member (json_array_get_object_element (ops, 1), "points");
  g_assert_cmpfloat_with_epsilon (get_number (json_array_get_object_element (points, 5), "residual_pct"),
                                  (1998.795 - 2700.76) / 2700.76 * 100.0, 0.01);
  g_assert_cmpfloat (fabs (get_number (json_array_get_object_element (points, 5), "own_residual_pct")), <, 1e-6);
  g_assert_cmpfloat_with_epsilon (get_number (json_array_get_object_element (points, 5), "own_model_time_s"),
                                  2700.76e-6, 1e-12);
  g_assert_cmpfloat (get_number (json_node_get_object (root), "max_abs_residual_written_pct"), <, 1e-6);
  g_assert_cmpfloat (get_number (json_node_get_object (root), "max_abs_residual_pct"), >, 78.0);

  g_assert_true (g_file_get_contents (out, &cluster_text, NULL, NULL));
  text = g_strdup_printf ("{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": %s,"
                          "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 8, \"dp\": 8 } }", cluster_text);
  g_assert_true (g_file_set_contents (scenario, text, -1, NULL));
  RUN_CLI (&sim, "simulate", scenario);
  assert_success (&sim);

  /* The text says which ops got their own curve, and both residuals. */
  RUN_CLI (&as_text, "calibrate", "--nccl-tests", file, "--gpus-per-node", "8", "--nodes", "1", "--cluster",
           "dgx-h100-80gb");
  assert_success (&as_text);
  g_assert_nonnull (strstr (as_text.out, "own curve: intra_node.efficiency_by_collective.all_gather"));
  g_assert_null (strstr (as_text.out, "efficiency_by_collective.all_reduce"));
  g_assert_nonnull (strstr (as_text.out, "model us   residual  own curve\n"));
  g_assert_nonnull (strstr (as_text.out, "Largest |residual| with each op's own curve where it has one: 0.00 %"));

  RUN_CLI (&wrong, "calibrate", "--nccl-tests", file, "--gpus-per-node", "4", "--nodes", "1");
  ASSERT_FAILURE (&wrong, 1, "lists 8 ranks");
  RUN_CLI (&missing, "calibrate", "--nccl-tests", file);
  ASSERT_FAILURE (&missing, 2, "--gpus-per-node");
  test_rm_rf (dir);
}

static void
test_calibrate_nccl_with_uncertainty (void)
{
  /* GH200 2 x 4 over Slingshot with --with-uncertainty: the written cluster holds
   * inter_node.latency_s and calibration.network_scale as {"mean", "sd"} (their
   * values by hand in tests/core/test-nccl-tests.c /nccl-tests/fit-with-uncertainty),
   * and data parallelism over both nodes then has a step-time spread; without the
   * flag the file has no distribution. */
  g_autofree char *file = g_test_build_filename (G_TEST_DIST, "data", "nccl-tests", "gh200-2x4-slingshot-all_reduce.txt",
                                                 NULL);
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *out = g_build_filename (dir, "gh200.json", NULL);
  g_autofree char *plain = g_build_filename (dir, "plain.json", NULL);
  g_autofree char *scenario = g_build_filename (dir, "s.json", NULL);
  g_autofree char *cluster_text = NULL, *plain_text = NULL, *text = NULL;
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) r_plain = { 0 };
  g_auto (CliRun) sim = { 0 };
  g_autoptr (JsonNode) root = NULL;

  RUN_CLI (&r, "calibrate", "--nccl-tests", file, "--gpus-per-node", "4", "--nodes", "2", "--cluster", "gh200-96gb",
           "--out", out, "--with-uncertainty");
  assert_success (&r);
  RUN_CLI (&r_plain, "calibrate", "--nccl-tests", file, "--gpus-per-node", "4", "--nodes", "2", "--cluster",
           "gh200-96gb", "--out", plain);
  assert_success (&r_plain);
  g_assert_true (g_file_get_contents (out, &cluster_text, NULL, NULL));
  g_assert_true (g_file_get_contents (plain, &plain_text, NULL, NULL));
  g_assert_nonnull (strstr (cluster_text, "\"sd\""));
  g_assert_null (strstr (plain_text, "\"sd\""));
  text = g_strdup_printf ("{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": %s,"
                          "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 8, \"dp\": 8 } }",
                          cluster_text);
  g_assert_true (g_file_set_contents (scenario, text, -1, NULL));
  RUN_CLI (&sim, "simulate", scenario, "--samples", "64", "--json");
  assert_success (&sim);
  root = parse_stdout (&sim);
  if (root == NULL)
    return;
  g_assert_cmpfloat (get_number (json_node_get_object (root), "step_time_sd_s"), >, 0.0);
  test_rm_rf (dir);
}

static void
test_validate_engine_unknown (void)
{
  g_autofree char *table = data_path ("korthikanti2022.json");
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "validate", table, "--engine", "magic");
  ASSERT_FAILURE (&r, 2, "magic");
}

static void
test_validate_missing_file (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *path = g_build_filename (dir, "no-table.json", NULL);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "validate", path);
  ASSERT_FAILURE (&r, 1, path);
  test_rm_rf (dir);
}

static void
test_validate_malformed_file (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *path = test_write_file (dir, "table.json", "{\"cases\": [ {\"name\": \"x\", ", -1);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "validate", path);
  ASSERT_FAILURE (&r, 1, path);
  test_rm_rf (dir);
}

static void
test_validate_no_table (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "validate");
  ASSERT_FAILURE (&r, 2, "validate");
}

/* ---- charts: simulate --timeline/--memory, compare ---------------------------------- */

/* parse_stdout for a run that should have succeeded: NULL (the failure already
 * recorded) if it did not, so a failed run does not end the whole test program. */
static JsonNode *
parse_stdout_of_success (const CliRun *r)
{
  assert_success (r);
  if (r->status != 0 || r->out[0] == '\0')
    return NULL;
  return parse_stdout (r);
}

/* Reads the width and height from a PNG file's IHDR chunk (this test does not link
 * cairo). Returns FALSE if `path` is not a PNG. */
static gboolean
png_size (const char *path,
          guint32    *width,
          guint32    *height)
{
  static const unsigned char signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  g_autofree char *contents = NULL;
  const unsigned char *p;
  gsize len = 0;

  *width = *height = 0;
  if (!g_file_get_contents (path, &contents, &len, NULL) || len < 24)
    return FALSE;
  p = (const unsigned char *) contents;
  if (memcmp (p, signature, sizeof signature) != 0 || memcmp (p + 12, "IHDR", 4) != 0)
    return FALSE;
  *width = ((guint32) p[16] << 24) | ((guint32) p[17] << 16) | ((guint32) p[18] << 8) | p[19];
  *height = ((guint32) p[20] << 24) | ((guint32) p[21] << 16) | ((guint32) p[22] << 8) | p[23];
  return TRUE;
}

static void
assert_png_size (const char *path,
                 guint32     width,
                 guint32     height)
{
  guint32 w = 0, h = 0;

  if (!png_size (path, &w, &h))
    g_test_message ("%s is not a PNG file", path);
  g_assert_true (png_size (path, &w, &h));
  g_assert_cmpuint (w, ==, width);
  g_assert_cmpuint (h, ==, height);
}

/* Renders an SVG file with rsvg-convert and checks the size of the PNG it makes
 * (SVG in px units: one pixel per unit). */
static void
assert_svg_renders_at (const char *svg,
                       const char *dir,
                       guint32     width,
                       guint32     height)
{
  g_autofree char *png = g_build_filename (dir, "svg-rendered.png", NULL);
  const char *argv[] = { "rsvg-convert", "-o", png, svg, NULL };

  g_assert_cmpint (test_run_tool (argv, NULL), ==, 0);
  assert_png_size (png, width, height);
  g_unlink (png);
}

/* The default scenario (GPT-3 175B, 64 GPUs) with both charts at their default
 * sizes: timeline 1600 x 900, memory 1200 x 800. */
static void
test_charts_timeline_png (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *timeline = g_build_filename (dir, "t.png", NULL);
  g_autofree char *memory = g_build_filename (dir, "m.svg", NULL);
  g_autofree char *svg = NULL;
  g_auto (CliRun) r = { 0 };

  RUN_CLI_IN (&r, dir, "simulate", "--timeline", "t.png", "--memory", "m.svg");
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "Timeline chart    t.png\n"));
  g_assert_nonnull (strstr (r.out, "Memory chart      m.svg\n"));
  /* The report is printed as without charts. */
  g_assert_nonnull (strstr (r.out, "Step time"));
  ASSERT_DIR_LISTING (dir, "m.svg t.png");
  assert_png_size (timeline, 1600, 900);

  g_assert_true (g_file_get_contents (memory, &svg, NULL, NULL));
  g_assert_true (svg != NULL && g_str_has_prefix (svg, "<?xml"));
  g_assert_true (svg != NULL && strstr (svg, "width=\"1200px\"") != NULL);
  g_assert_true (svg != NULL && strstr (svg, "height=\"800px\"") != NULL);
  if (test_have_tool ("rsvg-convert"))
    assert_svg_renders_at (memory, dir, 1200, 800);
  test_rm_rf (dir);
}

/* --width/--height set the chart's size in logical pixels; --scale multiplies the
 * PNG's. With --json, stdout stays pure JSON. */
static void
test_charts_size_scale (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *path = g_build_filename (dir, "t.png", NULL);
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) j = { 0 };
  g_autoptr (JsonNode) root = NULL;

  RUN_CLI_IN (&r, dir, "simulate", "--width", "640", "--height", "360", "--scale", "2", "--timeline", "t.png");
  assert_success (&r);
  assert_png_size (path, 1280, 720);

  /* --timeline=PATH, --dark and --json together; the existing file is replaced. */
  RUN_CLI_IN (&j, dir, "simulate", "--json", "--dark", "--width", "300", "--height", "200", "--timeline=t.png");
  root = parse_stdout_of_success (&j);
  g_assert_nonnull (root);
  g_assert_null (strstr (j.out, "Timeline chart"));
  assert_png_size (path, 300, 200);
  ASSERT_DIR_LISTING (dir, "t.png");
  test_rm_rf (dir);
}

static void
test_charts_timeline_pdf (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *path = g_build_filename (dir, "t.pdf", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *info = NULL;
  g_auto (CliRun) r = { 0 };

  RUN_CLI_IN (&r, dir, "simulate", "--timeline", "t.pdf");
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "Timeline chart    t.pdf\n"));
  ASSERT_DIR_LISTING (dir, "t.pdf");
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_true (contents != NULL && g_str_has_prefix (contents, "%PDF-"));
  if (!test_have_tool ("pdfinfo"))
    {
      test_rm_rf (dir);
      return;
    }
  {
    const char *argv[] = { "pdfinfo", path, NULL };
    g_assert_cmpint (test_run_tool (argv, &info), ==, 0);
  }
  g_assert_nonnull (info);
  g_assert_true (g_regex_match_simple ("^Pages: +1$", info, G_REGEX_MULTILINE, 0));
  /* One point per logical pixel. */
  g_assert_true (g_regex_match_simple ("^Page size: +1600 x 900 pts", info, G_REGEX_MULTILINE, 0));
  test_rm_rf (dir);
}

/* The image type is checked before simulating: a usage error, no file. */
static void
test_charts_unknown_extension (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) m = { 0 };

  RUN_CLI_IN (&r, dir, "simulate", "--timeline", "t.bmp");
  ASSERT_FAILURE (&r, 2, "--timeline", "t.bmp");
  g_assert_cmpstr (r.out, ==, "");
  RUN_CLI_IN (&m, dir, "simulate", "--timeline", "t.png", "--memory", "m.jpeg");
  ASSERT_FAILURE (&m, 2, "--memory", "m.jpeg");
  ASSERT_DIR_LISTING (dir, "");
  test_rm_rf (dir);
}

/* Charts come from the event engine's timeline. */
static void
test_charts_analytical (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) m = { 0 };

  RUN_CLI_IN (&r, dir, "simulate", "--engine", "analytical", "--timeline", "t.png");
  ASSERT_FAILURE (&r, 2, "--timeline", "analytical");
  RUN_CLI_IN (&m, dir, "simulate", "--memory", "m.png", "--engine=analytical");
  ASSERT_FAILURE (&m, 2, "--memory", "analytical");
  ASSERT_DIR_LISTING (dir, "");
  test_rm_rf (dir);
}

static void
test_charts_unwritable (void)
{
  g_auto (CliRun) r = { 0 };

  g_assert_false (g_file_test ("/nonexistent-dir", G_FILE_TEST_EXISTS));
  RUN_CLI (&r, "simulate", "--timeline", "/nonexistent-dir/t.png");
  ASSERT_FAILURE (&r, 1, "/nonexistent-dir/t.png");
  g_assert_false (g_file_test ("/nonexistent-dir/t.png", G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test ("/nonexistent-dir", G_FILE_TEST_EXISTS));
}

/* The target is a directory: exit 1, the directory stays, no temporary file. */
static void
test_charts_onto_directory (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *target = g_build_filename (dir, "t.png", NULL);
  g_autofree char *inside = test_write_file (dir, "t.png/keep", "x", -1);
  g_auto (CliRun) r = { 0 };

  RUN_CLI (&r, "simulate", "--timeline", target);
  ASSERT_FAILURE (&r, 1, target);
  g_assert_true (g_file_test (target, G_FILE_TEST_IS_DIR));
  g_assert_true (g_file_test (inside, G_FILE_TEST_IS_REGULAR));
  ASSERT_DIR_LISTING (dir, "t.png");
  test_rm_rf (dir);
}

static void
test_charts_bad_sizes (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_auto (CliRun) w = { 0 };
  g_auto (CliRun) s = { 0 };
  g_auto (CliRun) h = { 0 };
  g_auto (CliRun) big = { 0 };
  g_auto (CliRun) trailing = { 0 };
  g_auto (CliRun) missing = { 0 };

  RUN_CLI_IN (&w, dir, "simulate", "--width", "abc", "--timeline", "t.png");
  ASSERT_FAILURE (&w, 2, "--width", "abc");
  RUN_CLI_IN (&s, dir, "simulate", "--scale", "9", "--timeline", "t.png");
  ASSERT_FAILURE (&s, 2, "--scale", "9");
  {
    /* Below 1 is bad usage too, not a failed export. */
    g_auto (CliRun) half = { 0 };
    RUN_CLI_IN (&half, dir, "simulate", "--scale", "0.5", "--timeline", "t.png");
    ASSERT_FAILURE (&half, 2, "--scale", "0.5");
  }
  RUN_CLI_IN (&h, dir, "simulate", "--height", "10", "--timeline", "t.png");
  ASSERT_FAILURE (&h, 2, "--height", "10");
  RUN_CLI_IN (&big, dir, "simulate", "--width", "16385", "--timeline", "t.png");
  ASSERT_FAILURE (&big, 2, "--width", "16385");
  RUN_CLI_IN (&trailing, dir, "simulate", "--width", "640px", "--timeline", "t.png");
  ASSERT_FAILURE (&trailing, 2, "--width", "640px");
  RUN_CLI_IN (&missing, dir, "simulate", "--timeline", "t.png", "--width");
  ASSERT_FAILURE (&missing, 2, "--width");
  ASSERT_DIR_LISTING (dir, "");
  test_rm_rf (dir);
}

/* Two small scenarios that differ only in the pipeline: gpt2 on one DGX A100 node,
 * global batch 16 of 1024 tokens. */
#define COMPARE_SCENARIO_FMT \
  "{\"name\": \"%s\", \"model\": {\"preset\": \"gpt2\"}," \
  " \"cluster\": {\"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1}," \
  " \"strategy\": {\"seq_length\": 1024, \"global_batch_size\": 16, \"pp\": %u, \"dp\": %u}}"
#define COMPARE_TOKENS (16.0 * 1024.0)

static void
write_compare_scenarios (const char *dir,
                         char      **a,
                         char      **b)
{
  g_autofree char *ja = g_strdup_printf (COMPARE_SCENARIO_FMT, "gpt2 pp2", 2u, 4u);
  g_autofree char *jb = g_strdup_printf (COMPARE_SCENARIO_FMT, "gpt2 pp4", 4u, 2u);

  *a = test_write_file (dir, "A.json", ja, -1);
  *b = test_write_file (dir, "B.json", jb, -1);
}

/* The number of lines of `text` that start with `prefix`; *first is the index of the
 * first of them, or -1. */
static guint
count_lines_with_prefix (const char *text,
                         const char *prefix,
                         gint       *first)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = 0;

  *first = -1;
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], prefix))
      {
        if (n++ == 0)
          *first = (gint) i;
      }
  return n;
}

static void
test_compare_png (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *chart = g_build_filename (dir, "c.png", NULL);
  g_auto (CliRun) r = { 0 };
  gint first_a, first_b;

  write_compare_scenarios (dir, &a, &b);
  RUN_CLI_IN (&r, dir, "compare", "A.json", "B.json", "--out", "c.png");
  assert_success (&r);
  g_assert_cmpuint (count_lines_with_prefix (r.out, "A ", &first_a), ==, 1);
  g_assert_cmpuint (count_lines_with_prefix (r.out, "B ", &first_b), ==, 1);
  g_assert_cmpint (first_a, ==, 0);
  g_assert_cmpint (first_b, ==, 1);
  /* Each line names its scenario. */
  g_assert_true (g_str_has_prefix (r.out, "A  gpt2 pp2"));
  g_assert_nonnull (strstr (r.out, "\nB  gpt2 pp4"));
  g_assert_nonnull (strstr (r.out, "\nChart c.png\n"));
  assert_png_size (chart, 1600, 1100);
  ASSERT_DIR_LISTING (dir, "A.json B.json c.png");
  test_rm_rf (dir);
}

/* Issue 34: compare said "B is 431 % slower" of two models on different GPU counts.
 * A: GPT-2 on one node (8 GPUs); B: GPT-2 medium on two (16 GPUs). The verdict line
 * names both and gives each one's MFU, the share of peak, which the model's size does
 * not decide; the MFU printed is each side's own. */
static void
test_compare_unlike (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *a = test_write_file (dir, "A.json",
    "{\"name\": \"small\", \"model\": {\"preset\": \"gpt2\"}, \"cluster\": {\"preset\": \"dgx-a100-80gb\","
    " \"num_nodes\": 1}, \"strategy\": {\"seq_length\": 1024, \"global_batch_size\": 16}}", -1);
  g_autofree char *b = test_write_file (dir, "B.json",
    "{\"name\": \"medium\", \"model\": {\"preset\": \"gpt2-medium\"}, \"cluster\": {\"preset\": \"dgx-a100-80gb\","
    " \"num_nodes\": 2}, \"strategy\": {\"seq_length\": 1024, \"global_batch_size\": 16}}", -1);
  g_auto (CliRun) r = { 0 };
  double mfu_a, mfu_b;
  g_autofree char *expect = NULL;

  RUN_CLI_IN (&r, dir, "compare", a, b, "--out", "c.png");
  assert_success (&r);
  g_assert_cmpint (sscanf (strstr (r.out, "A  small"), "A  small step %*f s, MFU %lf", &mfu_a), ==, 1);
  g_assert_cmpint (sscanf (strstr (r.out, "B  medium"), "B  medium step %*f s, MFU %lf", &mfu_b), ==, 1);
  expect = g_strdup_printf ("\nVerdict: A (gpt2, 8 GPUs) vs B (gpt2-medium, 16 GPUs): MFU %.1f %% vs %.1f %%\n", mfu_a,
                            mfu_b);
  g_assert_nonnull (strstr (r.out, expect));
  g_assert_null (strstr (r.out, "slower"));
  g_assert_null (strstr (r.out, "faster"));
  test_rm_rf (dir);
}

/* Other image types and sizes, as for simulate. */
static void
test_compare_svg_size (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *svg = g_build_filename (dir, "c.svg", NULL);
  g_autofree char *png = g_build_filename (dir, "c.png", NULL);
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) p = { 0 };

  write_compare_scenarios (dir, &a, &b);
  RUN_CLI_IN (&r, dir, "compare", "--width", "800", "--height", "600", "A.json", "B.json", "--out=c.svg");
  assert_success (&r);
  RUN_CLI_IN (&p, dir, "compare", "A.json", "B.json", "--out", "c.png", "--scale", "2", "--width", "500",
              "--height", "400", "--dark");
  assert_success (&p);
  assert_png_size (png, 1000, 800);
  ASSERT_DIR_LISTING (dir, "A.json B.json c.png c.svg");
  if (test_have_tool ("rsvg-convert"))
    assert_svg_renders_at (svg, dir, 800, 600);
  test_rm_rf (dir);
}

static void
test_compare_json (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) sa = { 0 };
  g_auto (CliRun) sb = { 0 };
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (JsonNode) root_a = NULL;
  g_autoptr (JsonNode) root_b = NULL;
  JsonObject *o, *oa, *ob;
  double step_a, step_b, ratio;

  write_compare_scenarios (dir, &a, &b);
  RUN_CLI_IN (&r, dir, "compare", "A.json", "B.json", "--json");
  root = parse_stdout_of_success (&r);
  if (root == NULL)
    {
      test_rm_rf (dir);
      return;
    }
  o = json_node_get_object (root);
  g_assert_true (json_object_has_member (o, "a"));
  g_assert_true (json_object_has_member (o, "b"));
  g_assert_true (json_object_has_member (o, "step_time_ratio"));
  /* Format 2 names the tool and the two scenarios, and each side says what it is. */
  g_assert_cmpint (json_object_get_int_member (o, "format_version"), ==, 2);
  g_assert_true (json_object_has_member (o, "tool_version"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "scenarios")), ==, 2);
  g_assert_cmpuint (json_object_get_size (o), ==, 6);
  oa = json_object_get_object_member (o, "a");
  ob = json_object_get_object_member (o, "b");
  g_assert_cmpstr (json_object_get_string_member (oa, "scenario"), ==,
                   json_array_get_string_element (json_object_get_array_member (o, "scenarios"), 0));
  g_assert_cmpstr (json_object_get_string_member (ob, "scenario"), ==,
                   json_array_get_string_element (json_object_get_array_member (o, "scenarios"), 1));
  g_assert_nonnull (oa);
  g_assert_nonnull (ob);
  if (oa == NULL || ob == NULL)
    {
      test_rm_rf (dir);
      return;
    }
  /* Each side is a full report of its 8 GPUs. */
  step_a = check_report (oa, COMPARE_TOKENS, 8, A100_PEAK);
  step_b = check_report (ob, COMPARE_TOKENS, 8, A100_PEAK);
  g_assert_cmpfloat (get_number (oa, "step_time_s"), ==, step_a);
  g_assert_cmpfloat (get_number (ob, "step_time_s"), ==, step_b);
  g_assert_cmpstr (json_object_get_string_member_with_default (oa, "engine", ""), ==, "event");
  g_assert_cmpstr (json_object_get_string_member_with_default (ob, "engine", ""), ==, "event");
  /* Different pipelines, different step times. */
  g_assert_cmpfloat (step_a, !=, step_b);
  ratio = get_number (o, "step_time_ratio");
  if (!(fabs (ratio - step_b / step_a) <= 1e-9))
    g_test_message ("step_time_ratio %.17g, b / a %.17g", ratio, step_b / step_a);
  g_assert_cmpfloat_with_epsilon (ratio, step_b / step_a, 1e-9);

  /* The same step times as simulating each file on its own. */
  RUN_CLI (&sa, "simulate", a, "--json");
  RUN_CLI (&sb, "simulate", b, "--json");
  root_a = parse_stdout_of_success (&sa);
  root_b = parse_stdout_of_success (&sb);
  if (root_a != NULL)
    g_assert_true (close_rel (get_number (json_node_get_object (root_a), "step_time_s"), step_a, 1e-12));
  if (root_b != NULL)
    g_assert_true (close_rel (get_number (json_node_get_object (root_b), "step_time_s"), step_b, 1e-12));

  /* --json draws nothing. */
  ASSERT_DIR_LISTING (dir, "A.json B.json");
  test_rm_rf (dir);
}

static void
test_compare_one_file (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) none = { 0 };
  g_auto (CliRun) three = { 0 };

  write_compare_scenarios (dir, &a, &b);
  RUN_CLI_IN (&r, dir, "compare", "A.json", "--out", "c.png");
  ASSERT_FAILURE (&r, 2, "compare");
  RUN_CLI_IN (&none, dir, "compare");
  ASSERT_FAILURE (&none, 2, "compare");
  RUN_CLI_IN (&three, dir, "compare", "A.json", "B.json", "A.json", "--out", "c.png");
  ASSERT_FAILURE (&three, 2, "compare");
  ASSERT_DIR_LISTING (dir, "A.json B.json");
  test_rm_rf (dir);
}

static void
test_compare_missing_file (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) first = { 0 };

  write_compare_scenarios (dir, &a, &b);
  RUN_CLI_IN (&r, dir, "compare", "A.json", "missing.json", "--out", "c.png");
  ASSERT_FAILURE (&r, 1, "missing.json");
  g_assert_cmpstr (r.out, ==, "");
  /* The missing one first. */
  RUN_CLI_IN (&first, dir, "compare", "missing.json", "B.json", "--json");
  ASSERT_FAILURE (&first, 1, "missing.json");
  g_assert_cmpstr (first.out, ==, "");
  ASSERT_DIR_LISTING (dir, "A.json B.json");
  test_rm_rf (dir);
}

static void
test_compare_no_output (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_auto (CliRun) r = { 0 };

  write_compare_scenarios (dir, &a, &b);
  RUN_CLI_IN (&r, dir, "compare", "A.json", "B.json");
  ASSERT_FAILURE (&r, 2, "--out");
  g_assert_cmpstr (r.out, ==, "");
  ASSERT_DIR_LISTING (dir, "A.json B.json");
  test_rm_rf (dir);
}

static void
test_compare_bad_options (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_auto (CliRun) ext = { 0 };
  g_auto (CliRun) scale = { 0 };
  g_auto (CliRun) unknown = { 0 };
  g_auto (CliRun) out_missing = { 0 };

  write_compare_scenarios (dir, &a, &b);
  RUN_CLI_IN (&ext, dir, "compare", "A.json", "B.json", "--out", "c.bmp");
  ASSERT_FAILURE (&ext, 2, "c.bmp");
  RUN_CLI_IN (&scale, dir, "compare", "A.json", "B.json", "--out", "c.png", "--scale", "9");
  ASSERT_FAILURE (&scale, 2, "--scale", "9");
  RUN_CLI_IN (&unknown, dir, "compare", "A.json", "B.json", "--out", "c.png", "--tp", "2");
  ASSERT_FAILURE (&unknown, 2, "--tp");
  RUN_CLI_IN (&out_missing, dir, "compare", "A.json", "B.json", "--out");
  ASSERT_FAILURE (&out_missing, 2, "--out");
  ASSERT_DIR_LISTING (dir, "A.json B.json");
  test_rm_rf (dir);
}

static void
test_search_json (void)
{
  /* The issue's contract: counts, time, and per result the strategy keys and the
   * figures. The built-in default scenario: GPT-3 175B on 64 A100. */
  g_auto (CliRun) r = { 0 };
  g_autoptr (JsonNode) root = NULL;
  JsonObject *o;
  JsonArray *results;
  static const char *const keys[] = {
    "dp", "tp", "pp", "cp", "ep", "micro_batch_size", "global_batch_size", "seq_length", "schedule",
    "virtual_stages", "recompute", "zero_stage", "dtype", "sequence_parallel", "step_time_s", "mfu",
    "peak_memory_bytes", "fits_in_memory", "pareto", "n_gpus",
  };
  double prev = 0.0;

  RUN_CLI (&r, "search", "--json", "--top", "3");
  g_assert_cmpint (r.status, ==, 0);
  root = parse_stdout (&r);
  o = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (o, "configs_evaluated"), >=, json_object_get_int_member (o, "configs_valid"));
  g_assert_cmpint (json_object_get_int_member (o, "configs_valid"), >=, json_object_get_int_member (o, "configs_fit"));
  g_assert_cmpint (json_object_get_int_member (o, "configs_fit"), >, 0);
  g_assert_cmpfloat (json_object_get_double_member (o, "elapsed_s"), >=, 0.0);
  results = json_object_get_array_member (o, "results");
  g_assert_cmpuint (json_array_get_length (results), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      JsonObject *res = json_array_get_object_element (results, i);
      for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
        g_assert_true (json_object_has_member (res, keys[k]));
      g_assert_true (json_object_get_boolean_member (res, "fits_in_memory"));
      g_assert_cmpint (json_object_get_int_member (res, "n_gpus"), ==, 64);
      g_assert_cmpint (json_object_get_int_member (res, "dp") * json_object_get_int_member (res, "tp") *
                       json_object_get_int_member (res, "pp") * json_object_get_int_member (res, "cp"), ==, 64);
      /* Best first. */
      g_assert_cmpfloat (json_object_get_double_member (res, "step_time_s"), >=, prev);
      prev = json_object_get_double_member (res, "step_time_s");
    }
}

static void
test_search_csv_and_errors (void)
{
  g_autofree char *dir = g_dir_make_tmp ("plx-cli-search-XXXXXX", NULL);
  g_autofree char *csv = g_build_filename (dir, "all.csv", NULL);
  g_autofree char *text = NULL;
  g_auto (CliRun) ok = { 0 };
  g_auto (CliRun) fix = { 0 };
  g_auto (CliRun) gpus = { 0 };
  g_auto (CliRun) bad_csv = { 0 };
  g_auto (GStrv) lines = NULL;

  RUN_CLI (&ok, "search", "--fix", "tp=8,recompute=selective", "--csv", csv);
  g_assert_cmpint (ok.status, ==, 0);
  g_assert_nonnull (strstr (ok.out, "fit in memory"));
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_assert_true (g_str_has_prefix (lines[0], "n_gpus,dp,tp,pp,"));
  /* Every row has tp 8 and selective recompute (columns 3 and 12). */
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_auto (GStrv) cols = g_strsplit (lines[i], ",", -1);
      g_auto (GStrv) header = g_strsplit (lines[0], ",", -1);
      /* As many fields as the header names, the closed-form time last but one. */
      g_assert_cmpuint (g_strv_length (cols), ==, 25);
      g_assert_cmpuint (g_strv_length (header), ==, 25);
      g_assert_cmpstr (header[23], ==, "analytical_step_time_s");
      g_assert_cmpfloat (g_ascii_strtod (cols[23], NULL), >, 0.0);
      g_assert_cmpstr (cols[2], ==, "8");
      g_assert_cmpstr (cols[11], ==, "selective");
    }
  RUN_CLI (&fix, "search", "--fix", "tp=abc");
  assert_failure (&fix, 2, (const char *const[]) { "--fix", "tp=abc", NULL });
  RUN_CLI (&gpus, "search", "--gpus", "64");
  assert_failure (&gpus, 2, (const char *const[]) { "--gpus", "64", NULL });
  RUN_CLI (&bad_csv, "search", "--csv", "/nonexistent-dir/x.csv");
  assert_failure (&bad_csv, 1, (const char *const[]) { "/nonexistent-dir/x.csv", NULL });
  g_remove (csv);
  g_rmdir (dir);
}

static void
test_graph_search (void)
{
  /* DistIR's grid on 4 GPUs (Santhanam et al. 2021 §5.1) for an MLP of 8 layers of
   * 8192 x 8192 (537 M parameters, 1 GiB in bf16), trained with SGD as DistIR does.
   * At a batch of 16 a step computes 8 x 3 x 2 x 16 x 8192^2 = 51.5 GFLOP, 0.17 ms on
   * one A100, while data parallelism must all-reduce the 1 GiB of gradients (about
   * 6 ms at NVLink's bandwidth): tensor parallelism, which all-reduces only 16 x 8192
   * activations a layer, wins. At 8192 the step is 26 TFLOP, 88 ms on one GPU, and
   * the gradient all-reduce hides behind the backward pass: data parallelism wins -
   * the paper's finding that the best strategy changes with the batch. */
  g_autofree char *small = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "graphs", "mlp-8x8192-b16.json",
                                             NULL);
  g_autofree char *large = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "graphs",
                                             "mlp-8x8192-b8192.json", NULL);
  const char *files[2] = { small, large };
  const gint64 best_dp[2] = { 1, 4 }, best_tp[2] = { 4, 1 };

  for (guint f = 0; f < 2; f++)
    {
      g_auto (CliRun) r;
      g_autoptr (JsonNode) root = NULL;
      JsonObject *best;
      JsonArray *results;

      RUN_CLI (&r, "search", "--model", files[f], "--devices", "4", "--optimizer", "sgd", "--json");
      assert_success (&r);
      root = parse_stdout (&r);
      /* (dp, tp, pp) over the 6 factorings of 4; with pipelining, 2 to 128
       * micro-batches: 3 + 3 x 7 = 24 configurations, those whose batch splits run. */
      g_assert_cmpint (get_int (json_node_get_object (root), "configurations") +
                       get_int (json_node_get_object (root), "skipped"), ==, 24);
      results = json_object_get_array_member (json_node_get_object (root), "results");
      best = json_array_get_object_element (results, 0);
      g_assert_cmpint (get_int (best, "dp"), ==, best_dp[f]);
      g_assert_cmpint (get_int (best, "tp"), ==, best_tp[f]);
      g_assert_cmpint (get_int (best, "pp"), ==, 1);
      for (guint i = 1; i < json_array_get_length (results); i++)
        g_assert_cmpfloat (get_number (json_array_get_object_element (results, i), "step_time_s"), >=,
                           get_number (json_array_get_object_element (results, i - 1), "step_time_s"));
    }
}

static void
test_graph_partition (void)
{
  /* The two-layer MLP over 2 pipeline stages: fc1 and its ReLU, then fc2, its ReLU
   * and the loss; each part reads one 1024 x 1024 bf16 weight (2,097,152 bytes) and
   * the cut carries a 64 x 1024 bf16 activation (131,072 bytes). The chain optimum and
   * the nearest-time split are this split, and moving its boundary by one op does not
   * run faster, so the three simulated steps are equal; data parallel over 2 is given
   * beside them. More devices than forward ops is an error naming the file. */
  g_autofree char *graph = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "graphs", "mlp-2layer.json",
                                             NULL);
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) bad = { 0 };
  g_autoptr (JsonNode) root = NULL;
  JsonObject *o;
  JsonArray *parts;

  RUN_CLI (&r, "partition", "--model", graph, "--devices", "2", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  o = json_node_get_object (root);
  parts = json_object_get_array_member (o, "parts");
  g_assert_cmpuint (json_array_get_length (parts), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (parts, 0), "first_op"), ==, "fc1");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (parts, 0), "last_op"), ==, "relu1");
  g_assert_cmpint (get_int (json_array_get_object_element (parts, 1), "ops"), ==, 3);
  g_assert_cmpint (get_int (json_array_get_object_element (parts, 0), "weight_bytes"), ==, 2097152);
  g_assert_cmpint (get_int (json_array_get_object_element (parts, 0), "cut_bytes"), ==, 131072);
  g_assert_cmpint (get_int (json_array_get_object_element (parts, 1), "cut_bytes"), ==, 0);
  /* The split proposed is never slower than the chain optimum or the nearest split;
   * here all three are the same split. */
  g_assert_cmpfloat (get_number (o, "step_time_s"), ==, get_number (o, "nearest_split_step_time_s"));
  g_assert_cmpfloat (get_number (o, "step_time_s"), ==, get_number (o, "chain_optimum_step_time_s"));
  g_assert_cmpfloat (get_number (o, "data_parallel_step_time_s"), >, 0.0);
  /* The DAG partitioner's split beside them: two non-empty stages of the five ops;
   * and its free split placed as model parallelism without a pipeline. */
  g_assert_cmpfloat (get_number (o, "dag_split_step_time_s"), >, 0.0);
  g_assert_cmpfloat (get_number (o, "free_split_step_time_s"), >, 0.0);
  {
    JsonArray *dag_parts = json_object_get_array_member (json_object_get_object_member (o, "dag_split"), "parts");
    g_assert_cmpuint (json_array_get_length (dag_parts), ==, 2);
    g_assert_cmpint (get_int (json_array_get_object_element (dag_parts, 0), "ops") +
                         get_int (json_array_get_object_element (dag_parts, 1), "ops"), ==, 5);
    g_assert_cmpint (get_int (json_array_get_object_element (dag_parts, 0), "ops"), >, 0);
    g_assert_cmpint (get_int (json_array_get_object_element (dag_parts, 1), "ops"), >, 0);
  }

  /* Three stages: 2 x 3 = 6 micro-batches do not split the batch of 64, nor 5; 4 do. */
  {
    g_auto (CliRun) three = { 0 };
    g_autoptr (JsonNode) three_root = NULL;
    RUN_CLI (&three, "partition", "--model", graph, "--devices", "3", "--json");
    assert_success (&three);
    three_root = parse_stdout (&three);
    if (three_root != NULL)
      g_assert_cmpint (get_int (json_node_get_object (three_root), "micro_batches"), ==, 4);
  }

  RUN_CLI (&bad, "partition", "--model", graph, "--devices", "6");
  g_assert_cmpint (bad.status, ==, 1);
  g_assert_nonnull (strstr (bad.err, "mlp-2layer.json: 6 devices, but the model has 5 forward ops to split"));
}

static void
test_graph_fuse (void)
{
  /* `fuse GRAPH --dp N`: the two-layer MLP over 2 GPUs. Its two memory-bound pairs
   * (relu2 + loss, loss_grad + relu_grad) fuse into two kernels; each of its two
   * 2 MiB gradients is in exactly one bucket, in the order backward makes them (w2's
   * first); the plan is never slower than the best baseline nor faster than the ideal
   * bound. --tp is refused: fusion is searched for data parallelism. */
  g_autofree char *graph = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "graphs", "mlp-2layer.json",
                                             NULL);
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) text = { 0 };
  g_auto (CliRun) bad = { 0 };
  g_autoptr (JsonNode) root = NULL;
  JsonObject *o, *base;
  JsonArray *buckets, *groups;
  double best, total = 0.0;
  guint n_tensors = 0;

  RUN_CLI (&r, "fuse", graph, "--dp", "2", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  o = json_node_get_object (root);
  g_assert_cmpint (get_int (o, "devices"), ==, 2);
  base = json_object_get_object_member (o, "baselines");
  best = MIN (MIN (get_number (base, "none"), get_number (base, "ddp_25mb")),
              MIN (get_number (base, "horovod_64mb"), get_number (base, "fuse_elementwise")));
  g_assert_cmpfloat (get_number (o, "step_time_s"), <=, best);
  g_assert_cmpfloat (get_number (o, "step_time_s"), >=, get_number (base, "ideal_overlap"));
  buckets = json_object_get_array_member (o, "buckets");
  for (guint i = 0; i < json_array_get_length (buckets); i++)
    {
      JsonObject *b = json_array_get_object_element (buckets, i);
      JsonArray *t = json_object_get_array_member (b, "tensors");
      if (i == 0)
        g_assert_cmpstr (json_array_get_string_element (t, 0), ==, "d:w2");
      n_tensors += json_array_get_length (t);
      total += get_number (b, "bytes");
    }
  g_assert_cmpuint (n_tensors, ==, 2);
  g_assert_cmpfloat (total, ==, 2 * 2097152.0);
  groups = json_object_get_array_member (o, "fused_groups");
  g_assert_cmpuint (json_array_get_length (groups), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (
                     json_object_get_array_member (json_array_get_object_element (groups, 0), "ops"), 0), ==, "relu2");
  g_assert_cmpint (get_int (o, "simulations"), >, 0);

  RUN_CLI (&text, "fuse", "--model", graph, "--dp", "2");
  assert_success (&text);
  g_assert_nonnull (strstr (text.out, "DDP's 25 MiB buckets"));
  g_assert_nonnull (strstr (text.out, "Found: 2 kernels fusing 4 ops; 2 gradients in"));

  RUN_CLI (&bad, "fuse", graph, "--dp", "2", "--tp", "2");
  g_assert_cmpint (bad.status, ==, 2);
  g_assert_nonnull (strstr (bad.err, "fusion is searched for data-parallel programs"));
}

static void
test_scenario_partition (void)
{
  /* A transformer whose LM head outweighs its layers: 8 layers of h = 1024 and a
   * 250,880-word vocabulary (the head 2 h V / (24 h^2 + 4 s h) = 15 layers of time),
   * 4 stages. The even split (2 each, no remainder: rule "even") paces every
   * micro-batch by the last stage's 2 layers and the head; "auto" leaves that stage
   * 1 layer, its least, so the step is shorter. Each stage but the last sends one
   * micro-batch's activations b s h = 1 * 2048 * 1024 bf16 = 4,194,304 bytes on (tp 1);
   * the last sends none. Data parallel over the same 8 GPUs (pp 1, dp 8) fits: the
   * model is 0.3 B parameters. pp beyond the layers is refused naming key and value. */
  g_autofree char *dir = test_make_tmp_dir ("plx-test-partition");
  g_autofree char *path = test_write_file (dir, "big-vocab.json",
    "{ \"model\": { \"model_type\": \"gpt2\", \"n_layer\": 8, \"n_embd\": 1024, \"n_head\": 16,"
    "               \"vocab_size\": 250880, \"n_positions\": 2048 },"
    "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 },"
    "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 64, \"micro_batch_size\": 1,"
    "                 \"tp\": 1, \"pp\": 4, \"dp\": 2, \"zero_stage\": 0 } }", -1);
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) text = { 0 };
  g_auto (CliRun) bad = { 0 };
  g_autoptr (JsonNode) root = NULL;
  JsonObject *o;
  JsonArray *stages, *split, *even;
  gint64 layers = 0;

  RUN_CLI (&r, "partition", path, "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root != NULL)
    {
      o = json_node_get_object (root);
      g_assert_cmpint (get_int (o, "pp"), ==, 4);
      g_assert_cmpint (get_int (o, "micro_batches"), ==, 32);
      split = json_object_get_array_member (o, "layers_per_stage");
      g_assert_cmpuint (json_array_get_length (split), ==, 4);
      g_assert_cmpint (json_array_get_int_element (split, 3), ==, 1);
      stages = json_object_get_array_member (o, "stages");
      g_assert_cmpuint (json_array_get_length (stages), ==, 4);
      for (guint i = 0; i < 4; i++)
        {
          JsonObject *st = json_array_get_object_element (stages, i);
          g_assert_cmpint (get_int (st, "n_layers"), ==, json_array_get_int_element (split, i));
          g_assert_cmpint (get_int (st, "send_bytes"), ==, i < 3 ? 4194304 : 0);
          g_assert_cmpfloat (get_number (st, "compute_s"), >, 0.0);
          g_assert_cmpint (get_int (st, "peak_memory_bytes"), >, 0);
          layers += get_int (st, "n_layers");
        }
      g_assert_cmpint (layers, ==, 8);
      /* The last stage: one layer and a head of about 15 - far the slowest. */
      g_assert_cmpfloat (get_number (json_array_get_object_element (stages, 3), "compute_s"), >,
                         4.0 * get_number (json_array_get_object_element (stages, 0), "compute_s"));
      even = json_object_get_array_member (o, "even_split");
      for (guint i = 0; i < 4; i++)
        g_assert_cmpint (json_array_get_int_element (even, i), ==, 2);
      g_assert_cmpstr (json_object_get_string_member (o, "even_split_rule"), ==, "even");
      g_assert_cmpfloat (get_number (o, "step_time_s"), <, get_number (o, "even_split_step_time_s"));
      g_assert_cmpfloat (get_number (o, "data_parallel_step_time_s"), >, 0.0);
    }

  RUN_CLI (&text, "partition", path);
  assert_success (&text);
  g_assert_nonnull (strstr (text.out, "Split \"auto\""));
  g_assert_nonnull (strstr (text.out, "with the even split 2,2,2,2"));
  g_assert_nonnull (strstr (text.out, "as data parallel (pp 1, dp 8)"));

  RUN_CLI (&bad, "partition", path, "--nodes", "2", "--pp", "16", "--dp", "1");
  g_assert_cmpint (bad.status, ==, 1);
  g_assert_nonnull (strstr (bad.err, "strategy.pp: 16 stages is more than the model's 8 layers"));
  test_rm_rf (dir);
}

static void
test_reshard (void)
{
  /* A 12288 x 49152 bf16 array (1152 MiB) on an 8 x 8 mesh, from [x,y] (each GPU
   * 1536 x 6144: 18 MiB) to [y,-] (1536 x 49152: 144 MiB). The plan's every layout
   * holds at most the larger shard, so no step holds more than twice 144 MiB; its
   * steps add up to its time. XLA's way gathers the whole array: its peak is the
   * 1152 MiB array and the last gather's 144 MiB input, 1296 MiB. An axis the mesh
   * does not have is a usage error naming it. */
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) bad = { 0 };
  g_autoptr (JsonNode) root = NULL;
  JsonObject *o, *base;
  JsonArray *steps;
  double sum = 0.0;

  RUN_CLI (&r, "reshard", "--shape", "12288x49152", "--mesh", "8x8", "--from", "[x,y]", "--to", "[y,-]", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  o = json_node_get_object (root);
  g_assert_cmpint (get_int (o, "source_shard_bytes"), ==, 18 * 1048576);
  g_assert_cmpint (get_int (o, "target_shard_bytes"), ==, 144 * 1048576);
  steps = json_object_get_array_member (o, "steps");
  g_assert_cmpuint (json_array_get_length (steps), >, 0);
  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonObject *st = json_array_get_object_element (steps, i);
      g_assert_cmpint (get_int (st, "peak_bytes_per_device"), <=, 2 * 144 * 1048576);
      sum += get_number (st, "time_s");
    }
  g_assert_cmpfloat_with_epsilon (sum, get_number (o, "time_s"), 1e-12);
  g_assert_cmpint (get_int (o, "peak_bytes_per_device"), <=, 2 * 144 * 1048576);
  base = json_object_get_object_member (o, "baseline");
  g_assert_cmpint (get_int (base, "peak_bytes_per_device"), ==, 1296 * 1048576);
  g_assert_cmpfloat (get_number (base, "time_s"), >, 0.0);

  RUN_CLI (&bad, "reshard", "--shape", "12288x49152", "--mesh", "8x8", "--from", "[x,q]", "--to", "[y,-]");
  g_assert_cmpint (bad.status, ==, 2);
  g_assert_nonnull (strstr (bad.err, "'q' in dimension 1 is not an axis of a 2-axis mesh"));

  /* Partial sums over x (a row-parallel output on 8 GPUs of a node) wanted split along
   * dimension 0: one reduce-scatter of the whole 4096 x 12288 bf16 (96 MiB) input,
   * leaving 12 MiB; both plans the same. Making a partial sum is refused (exit 1). */
  {
    g_auto (CliRun) rs = { 0 };
    g_auto (CliRun) made = { 0 };
    g_autoptr (JsonNode) rs_root = NULL;
    JsonObject *ro;
    JsonArray *rs_steps;

    RUN_CLI (&rs, "reshard", "--shape", "4096x12288", "--mesh", "8", "--from", "[-,-]+x", "--to", "[x,-]", "--json");
    assert_success (&rs);
    rs_root = parse_stdout (&rs);
    if (rs_root == NULL)
      return;
    ro = json_node_get_object (rs_root);
    rs_steps = json_object_get_array_member (ro, "steps");
    g_assert_cmpuint (json_array_get_length (rs_steps), ==, 1);
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (rs_steps, 0), "collective"), ==,
                     "reduce-scatter");
    g_assert_cmpint (get_int (ro, "peak_bytes_per_device"), ==, 108 * 1048576);
    g_assert_cmpfloat (get_number (ro, "time_s"), ==,
                       get_number (json_object_get_object_member (ro, "baseline"), "time_s"));
    RUN_CLI (&made, "reshard", "--shape", "4096x12288", "--mesh", "8", "--from", "[x,-]", "--to", "[-,-]+x");
    g_assert_cmpint (made.status, ==, 1);
    g_assert_nonnull (strstr (made.err, "holds partial sums over an axis the source [x,-] does not"));
  }

  /* The default scenario's checkpoint (GPT-3 175B, TP 8 x PP 8) to TP 4 x PP 16: one
   * 8 x 2 x 4 mesh, each parameter array as bf16 and as fp32, qkv_proj
   * from stages over x and TP over y z to stages over x y and TP over z; the whole
   * step the sum of each entry's time times its count. To TP 4 x PP 8 is refused. */
  {
    g_auto (CliRun) model = { 0 };
    g_auto (CliRun) fewer = { 0 };
    g_autoptr (JsonNode) m_root = NULL;
    JsonObject *mo, *first;
    JsonArray *arrays;
    double total = 0.0;

    RUN_CLI (&model, "reshard", "--to-strategy", "tp=4,pp=16", "--json");
    assert_success (&model);
    m_root = parse_stdout (&model);
    if (m_root == NULL)
      return;
    mo = json_node_get_object (m_root);
    g_assert_cmpstr (json_object_get_string_member (mo, "mesh"), ==, "8x2x4");
    arrays = json_object_get_array_member (mo, "arrays");
    /* 14 parameter arrays (10 per block, 4 on the end stages: tests/core/test-reshard.c
     * counts them), bf16 and fp32; the second the first block's qkv_proj. */
    g_assert_cmpuint (json_array_get_length (arrays), ==, 28);
    first = json_array_get_object_element (arrays, 2);
    g_assert_cmpstr (json_object_get_string_member (first, "name"), ==, "qkv_proj");
    g_assert_cmpstr (json_object_get_string_member (first, "where"), ==, "blocks");
    g_assert_cmpstr (json_object_get_string_member (first, "from"), ==, "[x,-,yz]");
    g_assert_cmpstr (json_object_get_string_member (first, "to"), ==, "[xy,-,z]");
    for (guint i = 0; i < json_array_get_length (arrays); i++)
      {
        JsonObject *a = json_array_get_object_element (arrays, i);
        total += get_int (a, "count") * get_number (a, "time_s");
      }
    g_assert_cmpfloat_with_epsilon (total, get_number (mo, "time_s"), 1e-12);

    RUN_CLI (&fewer, "reshard", "--to-strategy", "tp=4,pp=8");
    g_assert_cmpint (fewer.status, ==, 1);
    g_assert_nonnull (strstr (fewer.err, "TP 8 x PP 8 to TP 4 x PP 8: the GPUs of a model copy must stay as many"));
  }
}

static void
test_reshard_ir (void)
{
  /* `reshard --ir FILE` writes the plan as a program that `simulate --program` runs
   * to the plan's time: both price the same collectives on the same groups. On 8 x
   * 8 (DGX A100 nodes) [x,y] -> [y,-] is an all-gather then an all-to-all; [xy,-]
   * -> [yx,-] one permute, device 8x + y taking block 8y + x from device 8y + x, so
   * the 8 devices with x = y keep theirs and 56 send. */
  static const char *const cases[][3] = { { "12288x49152", "[x,y]", "[y,-]" }, { "4096x4096", "[xy,-]", "[yx,-]" } };
  static const guint ops[] = { 2, 1 };
  g_autofree char *dir = g_dir_make_tmp ("plx-reshard-ir-XXXXXX", NULL);
  g_autofree char *program = g_build_filename (dir, "reshard.json", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (CliRun) plan = { 0 };
      g_auto (CliRun) sim = { 0 };
      g_autoptr (JsonNode) a = NULL;
      g_autoptr (JsonNode) b = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxIrGraph) g = NULL;
      double want;

      RUN_CLI (&plan, "reshard", "--shape", cases[i][0], "--mesh", "8x8", "--from", cases[i][1], "--to", cases[i][2],
               "--json", "--ir", program);
      assert_success (&plan);
      g = plx_ir_graph_new_from_file (program, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (g->n_devices, ==, 64);
      g_assert_cmpuint (g->ops->len, ==, ops[i]);
      if (i == 1)
        {
          const PlxIrOp *send = g->ops->pdata[0];
          g_assert_cmpint (send->kind, ==, PLX_IR_SEND);
          g_assert_cmpuint (send->n_devices, ==, 56);
          for (guint d = 0; d < send->n_devices; d++)
            g_assert_cmpuint (send->peers[d], ==, send->devices[d] % 8 * 8 + send->devices[d] / 8);
        }
      RUN_CLI (&sim, "simulate", "--program", program, "--json");
      assert_success (&sim);
      a = parse_stdout (&plan);
      b = parse_stdout (&sim);
      if (a == NULL || b == NULL)
        return;
      want = get_number (json_node_get_object (a), "time_s");
      g_assert_cmpfloat (want, >, 0.0);
      g_assert_cmpfloat_with_epsilon (get_number (json_node_get_object (b), "step_time_s"), want, want * 1e-9);
    }
  g_unlink (program);
  g_rmdir (dir);
  {
    /* One array's program only. */
    g_auto (CliRun) bad = { 0 };
    RUN_CLI (&bad, "reshard", "--to-strategy", "tp=4,pp=16", "--ir", program);
    g_assert_cmpint (bad.status, ==, 2);
    g_assert_nonnull (strstr (bad.err, "no --shape, --mesh, --from, --to or --ir"));
  }
}

static void
test_graph_program_round_trip (void)
{
  /* The program `plan --json` prints runs through `simulate --program` to the same
   * step time as `simulate --model` with the same degrees. */
  g_autofree char *graph = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "graphs", "mlp-2layer.json",
                                             NULL);
  g_autofree char *dir = g_dir_make_tmp ("plx-program-XXXXXX", NULL);
  g_autofree char *program = g_build_filename (dir, "program.json", NULL);
  g_auto (CliRun) plan;
  g_auto (CliRun) direct;
  g_auto (CliRun) again;
  g_auto (CliRun) bad;
  g_autoptr (JsonNode) a = NULL;
  g_autoptr (JsonNode) b = NULL;

  RUN_CLI (&plan, "plan", "--model", graph, "--dp", "2", "--pp", "2", "--micro-batches", "4", "--json");
  assert_success (&plan);
  g_assert_true (g_file_set_contents (program, plan.out, -1, NULL));
  RUN_CLI (&direct, "simulate", "--model", graph, "--dp", "2", "--pp", "2", "--micro-batches", "4", "--json");
  assert_success (&direct);
  RUN_CLI (&again, "simulate", "--program", program, "--json");
  assert_success (&again);
  a = parse_stdout (&direct);
  b = parse_stdout (&again);
  g_assert_cmpfloat (get_number (json_node_get_object (a), "step_time_s"), ==,
                     get_number (json_node_get_object (b), "step_time_s"));
  g_assert_cmpint (get_int (json_node_get_object (b), "n_devices"), ==, 4);
  /* A batch of 64 does not split 3 ways: the error names the file, tensor and sizes. */
  RUN_CLI (&bad, "simulate", "--model", graph, "--dp", "3");
  g_assert_cmpint (bad.status, ==, 1);
  g_assert_nonnull (strstr (bad.err, "mlp-2layer.json: tensor \"x\": dimension 0 (64) does not split into 3 "
                                     "(data parallel 3)"));
  cli_run_clear (&bad);
  /* Degrees do not apply to a program run as written. */
  RUN_CLI (&bad, "simulate", "--program", program, "--tp", "2");
  g_assert_cmpint (bad.status, ==, 2);
  g_assert_nonnull (strstr (bad.err, "--program runs a program as written"));
  cli_run_clear (&bad);
  {
    /* A schedule file with 1F1B's order runs as --schedule 1f1b does; the search,
     * which tries many pipelines, refuses one. */
    g_autofree char *sched = g_build_filename (dir, "1f1b.json", NULL);
    g_auto (CliRun) filed = { 0 };
    g_autoptr (JsonNode) c = NULL;

    g_assert_true (g_file_set_contents (sched, "{ \"stages\": [ [\"F0\", \"F1\", \"B0\", \"F2\", \"B1\", \"F3\", "
                                        "\"B2\", \"B3\"], [\"F0\", \"B0\", \"F1\", \"B1\", \"F2\", \"B2\", \"F3\", "
                                        "\"B3\"] ] }", -1, NULL));
    RUN_CLI (&filed, "simulate", "--model", graph, "--dp", "2", "--pp", "2", "--micro-batches", "4", "--schedule", sched,
             "--json");
    assert_success (&filed);
    c = parse_stdout (&filed);
    if (c != NULL)
      g_assert_cmpfloat (get_number (json_node_get_object (c), "step_time_s"), ==,
                         get_number (json_node_get_object (a), "step_time_s"));
    RUN_CLI (&bad, "search", "--model", graph, "--devices", "4", "--schedule", sched);
    g_assert_cmpint (bad.status, ==, 2);
    g_assert_nonnull (strstr (bad.err, "a schedule file is written for one pipeline depth"));
    g_unlink (sched);
  }
  {
    /* Interleaved: two chunks per stage; the program plan prints runs as written to
     * the same step. */
    g_auto (CliRun) iplan = { 0 };
    g_auto (CliRun) idirect = { 0 };
    g_auto (CliRun) iagain = { 0 };
    g_autoptr (JsonNode) x = NULL;
    g_autoptr (JsonNode) y = NULL;

    RUN_CLI (&iplan, "plan", "--model", graph, "--pp", "2", "--micro-batches", "4", "--schedule", "interleaved-1f1b",
             "--virtual-stages", "2", "--json");
    assert_success (&iplan);
    g_assert_true (g_file_set_contents (program, iplan.out, -1, NULL));
    RUN_CLI (&idirect, "simulate", "--model", graph, "--pp", "2", "--micro-batches", "4", "--schedule",
             "interleaved-1f1b", "--virtual-stages", "2", "--json");
    assert_success (&idirect);
    RUN_CLI (&iagain, "simulate", "--program", program, "--json");
    assert_success (&iagain);
    x = parse_stdout (&idirect);
    y = parse_stdout (&iagain);
    if (x != NULL && y != NULL)
      g_assert_cmpfloat (get_number (json_node_get_object (x), "step_time_s"), ==,
                         get_number (json_node_get_object (y), "step_time_s"));
  }
  g_unlink (program);
  g_rmdir (dir);
}

static void
test_scenario_program (void)
{
  /* A transformer scenario's program: `plan --json` prints it, `simulate --program`
   * runs it (on as many GPUs as stages, one each) to the step the event engine
   * predicts (docs/ir.md: the same plan, the same dependencies; within 1 %), and
   * `simulate --engine ir` does both in one go. The default scenario (GPT-3 175B, 8
   * stages of 3 chunks, interleaved 1F1B) with a batch of 16: 384 passes, a program
   * small enough for the sanitizer build. */
  g_autofree char *dir = g_dir_make_tmp ("plx-program-XXXXXX", NULL);
  g_autofree char *program = g_build_filename (dir, "gpt3.json", NULL);
  g_auto (CliRun) plan = { 0 };
  g_auto (CliRun) run = { 0 };
  g_auto (CliRun) ev = { 0 };
  g_auto (CliRun) irr = { 0 };
  g_autoptr (JsonNode) p = NULL;
  g_autoptr (JsonNode) r = NULL;
  g_autoptr (JsonNode) e = NULL;
  g_autoptr (JsonNode) ij = NULL;
  double event, ir;

  RUN_CLI (&ev, "simulate", "--global-batch-size", "16", "--json");
  assert_success (&ev);
  RUN_CLI (&irr, "simulate", "--global-batch-size", "16", "--engine", "ir", "--json");
  assert_success (&irr);
  e = parse_stdout (&ev);
  ij = parse_stdout (&irr);
  event = get_number (json_node_get_object (e), "step_time_s");
  ir = get_number (json_node_get_object (ij), "step_time_s");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (ij), "engine"), ==, "ir");
  g_assert_true (close_rel (ir, event, 0.01));
  RUN_CLI (&plan, "plan", "--global-batch-size", "16", "--json");
  assert_success (&plan);
  p = parse_stdout (&plan);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (p), "format"), ==, "parallax-ir");
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (p), "devices"), ==, 8);
  g_assert_true (g_file_set_contents (program, plan.out, -1, NULL));
  RUN_CLI (&run, "simulate", "--program", program, "--json");
  assert_success (&run);
  r = parse_stdout (&run);
  g_assert_cmpfloat (get_number (json_node_get_object (r), "step_time_s"), ==, ir);
  g_unlink (program);

  /* The IR engine's charts: a rank per stage, the same tasks at the same times, so
   * the same drawing as the event engine's, byte for byte. */
  {
    const char *const names[] = { "ir-timeline.svg", "ir-memory.svg", "event-timeline.svg", "event-memory.svg" };
    char *paths[4] = { NULL };
    g_auto (CliRun) a = { 0 };
    g_auto (CliRun) b = { 0 };
    g_autofree char *ta = NULL, *tb = NULL, *ma = NULL, *mb = NULL;

    for (guint i = 0; i < 4; i++)
      paths[i] = g_build_filename (dir, names[i], NULL);
    RUN_CLI (&a, "simulate", "--global-batch-size", "16", "--engine", "ir", "--timeline", paths[0], "--memory",
             paths[1]);
    assert_success (&a);
    RUN_CLI (&b, "simulate", "--global-batch-size", "16", "--timeline", paths[2], "--memory", paths[3]);
    assert_success (&b);
    g_assert_true (g_file_get_contents (paths[0], &ta, NULL, NULL));
    g_assert_true (g_file_get_contents (paths[1], &ma, NULL, NULL));
    g_assert_true (g_file_get_contents (paths[2], &tb, NULL, NULL));
    g_assert_true (g_file_get_contents (paths[3], &mb, NULL, NULL));
    g_assert_cmpuint (strlen (ta), >, 5000);
    g_assert_true (g_str_equal (ta, tb));
    g_assert_true (g_str_equal (ma, mb));
    for (guint i = 0; i < 4; i++)
      {
        g_unlink (paths[i]);
        g_free (paths[i]);
      }
  }
  g_rmdir (dir);
}

static void
test_graph_cnn_mfu (void)
{
  /* A convolution is a GEMM for MFU (implicit GEMM), as the window's report counts
   * it. tests/data/graphs/conv-bn-pool.json trained on one A100: the convolution
   * 2 x 3,072 outputs x 36 (4 channels x 3 x 3) = 221,184 FLOPs, its dX and dW
   * twice that, 442,368; the classifier 2 x 8 x 10 x 6 = 960, its dX and dW 960
   * each: 666,432 in all, over A100's 312 TFLOP/s of bf16 for the step. */
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "graphs", "conv-bn-pool.json", NULL);
  g_auto (CliRun) r;
  g_autoptr (JsonNode) root = NULL;
  JsonObject *o;

  RUN_CLI (&r, "simulate", "--model", model, "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  o = json_node_get_object (root);
  g_assert_cmpfloat (get_number (o, "matmul_flops"), ==, 666432.0);
  g_assert_true (close_rel (get_number (o, "mfu"), 666432.0 / (312e12 * get_number (o, "step_time_s")), 1e-12));
}

static void
test_graph_charts (void)
{
  /* A graph model's run drawn: a timeline row per GPU and memory per GPU. */
  g_autofree char *graph = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "graphs", "mlp-2layer.json",
                                             NULL);
  g_autofree char *dir = g_dir_make_tmp ("plx-graph-charts-XXXXXX", NULL);
  g_autofree char *timeline = g_build_filename (dir, "timeline.png", NULL);
  g_autofree char *memory = g_build_filename (dir, "memory.pdf", NULL);
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) bad = { 0 };
  g_autofree char *png = NULL, *pdf = NULL;
  gsize n_png = 0, n_pdf = 0;

  RUN_CLI (&r, "simulate", "--model", graph, "--dp", "2", "--pp", "2", "--micro-batches", "4", "--timeline", timeline,
           "--memory", memory);
  assert_success (&r);
  g_assert_nonnull (strstr (r.out, "Timeline chart"));
  g_assert_true (g_file_get_contents (timeline, &png, &n_png, NULL));
  g_assert_true (g_file_get_contents (memory, &pdf, &n_pdf, NULL));
  g_assert_cmpuint (n_png, >, 8);
  g_assert_cmpint (memcmp (png, "\x89PNG", 4), ==, 0);
  g_assert_cmpint (memcmp (pdf, "%PDF", 4), ==, 0);
  /* A chart name the exporter cannot write is a usage error before anything runs. */
  RUN_CLI (&bad, "simulate", "--model", graph, "--timeline", "chart.bmp");
  g_assert_cmpint (bad.status, ==, 2);
  g_assert_nonnull (strstr (bad.err, "--timeline"));
  g_unlink (timeline);
  g_unlink (memory);
  g_rmdir (dir);
}

static void
test_graph_onnx (void)
{
  /* An ONNX GPT-2-shaped decoder written by python3-onnx (tests/onnx/make-models.py):
   * simulated with its symbolic batch given, refused without it. */
  g_autofree char *script = g_build_filename (g_test_get_dir (G_TEST_DIST), "onnx", "make-models.py", NULL);
  g_autofree char *dir = g_dir_make_tmp ("plx-cli-onnx-XXXXXX", NULL);
  g_autofree char *model = g_build_filename (dir, "gpt2.onnx", NULL);
  const char *argv[] = { "/usr/bin/python3", script, dir, NULL };
  int wait = 0;
  g_auto (CliRun) ok;
  g_auto (CliRun) bad;
  g_autoptr (JsonNode) root = NULL;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &wait, NULL));
  g_assert_true (g_spawn_check_wait_status (wait, NULL));
  RUN_CLI (&ok, "simulate", "--model", model, "--dim", "batch=8", "--dp", "2", "--tp", "2", "--json");
  assert_success (&ok);
  root = parse_stdout (&ok);
  g_assert_cmpint (get_int (json_node_get_object (root), "n_devices"), ==, 4);
  /* 8 sequences a step */
  g_assert_true (close_rel (get_number (json_node_get_object (root), "samples_per_s") *
                            get_number (json_node_get_object (root), "step_time_s"), 8.0, 1e-12));
  RUN_CLI (&bad, "simulate", "--model", model);
  g_assert_cmpint (bad.status, ==, 1);
  g_assert_nonnull (strstr (bad.err, "input \"ids\": dimension 0 is symbolic (\"batch\"); give its size "
                                     "(--dim batch=N)"));

  /* Served with a KV cache: the decoder that takes the cache as inputs, the
   * contract's inference keys; the cache at its longest (8 sequences, 2 layers of
   * keys and values, 4 heads of 32 fp32, 16 + 7 tokens) on each of its GPUs. */
  {
    g_autofree char *past = g_build_filename (dir, "gpt2-past.onnx", NULL);
    g_auto (CliRun) serve = { 0 };
    g_auto (CliRun) no_batch = { 0 };
    g_autoptr (JsonNode) r = NULL;
    JsonObject *o, *mem;

    RUN_CLI (&serve, "simulate", "--model", past, "--workload", "inference", "--dim", "batch=8", "--prompt-length",
             "16", "--decode-tokens", "8", "--json");
    assert_success (&serve);
    r = parse_stdout (&serve);
    o = json_node_get_object (r);
    g_assert_cmpstr (json_object_get_string_member (o, "workload"), ==, "inference");
    g_assert_cmpfloat (get_number (o, "prefill_time_s"), >, 0.0);
    g_assert_cmpfloat (get_number (o, "decode_time_per_token_s"), >, 0.0);
    g_assert_true (close_rel (get_number (o, "tokens_per_s") * get_number (o, "decode_time_s"), 8.0 * 8, 1e-12));
    mem = json_object_get_object_member (o, "memory_bytes");
    g_assert_cmpint (json_object_get_int_member (mem, "kv_cache"), ==, 2 * 2 * 8 * 4 * (16 + 7) * 32 * 4);
    RUN_CLI (&no_batch, "simulate", "--model", past, "--workload", "inference");
    g_assert_cmpint (no_batch.status, ==, 2);
    g_assert_nonnull (strstr (no_batch.err, "--workload inference needs the batch: --dim batch=N"));
    cli_run_clear (&no_batch);
    /* The sequence is the steps' own: a --dim for it would be silently overridden. */
    RUN_CLI (&no_batch, "simulate", "--model", past, "--workload", "inference", "--dim", "batch=8", "--dim",
             "sequence=128");
    g_assert_cmpint (no_batch.status, ==, 2);
    g_assert_nonnull (strstr (no_batch.err, "--dim sequence: serving sets the sequence"));

    /* Per batch size (DistIR's GPT-2 study): each row what a run at that batch says;
     * a batch the 2 replicas cannot split says why in its row. Generation at 8
     * sequences a step outruns one at 2: the step grows less than the batch, the
     * weights read once for all of them. */
    {
      g_auto (CliRun) rows = { 0 };
      g_auto (CliRun) single = { 0 };
      g_autoptr (JsonNode) sw = NULL;
      g_autoptr (JsonNode) one = NULL;
      JsonArray *a;

      RUN_CLI (&rows, "simulate", "--model", past, "--workload", "inference", "--batches", "2,3,8", "--dp", "2",
               "--prompt-length", "16", "--decode-tokens", "8", "--json");
      assert_success (&rows);
      sw = parse_stdout (&rows);
      a = json_object_get_array_member (json_node_get_object (sw), "sweep");
      g_assert_cmpuint (json_array_get_length (a), ==, 3);
      g_assert_nonnull (strstr (json_object_get_string_member (json_array_get_object_element (a, 1), "error"),
                                "batch 3 does not split over 2 replicas (dp)"));
      RUN_CLI (&single, "simulate", "--model", past, "--workload", "inference", "--dim", "batch=8", "--dp", "2",
               "--prompt-length", "16", "--decode-tokens", "8", "--json");
      assert_success (&single);
      one = parse_stdout (&single);
      g_assert_cmpfloat (get_number (json_array_get_object_element (a, 2), "tokens_per_s"), ==,
                         get_number (json_node_get_object (one), "tokens_per_s"));
      g_assert_cmpfloat (get_number (json_array_get_object_element (a, 2), "tokens_per_s"), >,
                         get_number (json_array_get_object_element (a, 0), "tokens_per_s"));
    }
  }
  test_rm_rf (dir);
}

static void
test_inference_json (void)
{
  /* Llama 3 8B served on one DGX A100, one sequence a GPU (DP 8): the contract's keys;
   * the KV cache of 1,024 + 256 tokens x 32 layers x 4,096 B (2 x 8 heads x 128 x 2 B)
   * = 167,772,160 B; 8 x 256 tokens generated in the decode time. */
  g_auto (CliRun) r;
  g_auto (CliRun) bad;
  g_autoptr (JsonNode) root = NULL;
  JsonObject *o, *mem;

  RUN_CLI (&r, "simulate", "--model", "llama-3-8b", "--cluster", "dgx-a100-80gb", "--nodes", "1", "--tp", "1",
           "--pp", "1", "--workload", "inference", "--global-batch-size", "8", "--prompt-length", "1024",
           "--decode-tokens", "256", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "workload"), ==, "inference");
  g_assert_cmpfloat (get_number (o, "prefill_time_s"), >, 0.0);
  g_assert_cmpfloat (get_number (o, "decode_time_per_token_s"), >, 0.0);
  g_assert_true (close_rel (get_number (o, "tokens_per_s") * get_number (o, "decode_time_s"), 8.0 * 256, 1e-12));
  mem = json_object_get_object_member (o, "memory_bytes");
  g_assert_nonnull (mem);
  g_assert_cmpint (get_int (mem, "kv_cache"), ==, 167772160);
  /* Charts are of training steps. */
  RUN_CLI (&bad, "simulate", "--workload", "inference", "--timeline", "x.png");
  g_assert_cmpint (bad.status, ==, 2);
}

/* The step time of `simulate --engine analytical --json` on a scenario file. */
static double
analytical_step (const char *path)
{
  g_auto (CliRun) r = { 0 };
  g_autoptr (JsonNode) root = NULL;

  RUN_CLI (&r, "simulate", path, "--engine", "analytical", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  g_assert_nonnull (root);
  return get_number (json_node_get_object (root), "step_time_s");
}

#define UQ_SCENARIO(bw) \
  "{ \"name\": \"uq\", \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\"," \
  "  \"num_nodes\": 8, \"inter_node\": { \"bw_Bps\": " bw " } }, \"strategy\": { \"seq_length\": 2048," \
  "  \"global_batch_size\": 64, \"tp\": 8, \"pp\": 8, \"schedule\": \"1f1b\" } }"

static void
test_simulate_samples (void)
{
  /* GPT-3 175B on 8 DGX A100 nodes with the inter-node bandwidth anywhere in
   * [5, 25] GB/s. The step only gets longer as the bandwidth falls, so every draw -
   * and so every quantile - lies between the step at 25 GB/s and at 5 GB/s, each
   * computed alone; the same seed gives the same draws, another seed others. The
   * 1F1B step keeps every activation and does not fit 80 GB: out of memory always. */
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *uq = test_write_file (dir, "uq.json", UQ_SCENARIO ("{ \"min\": 5e9, \"max\": 25e9 }"), -1);
  g_autofree char *lo = test_write_file (dir, "lo.json", UQ_SCENARIO ("5e9"), -1);
  g_autofree char *hi = test_write_file (dir, "hi.json", UQ_SCENARIO ("25e9"), -1);
  g_auto (CliRun) a = { 0 };
  g_auto (CliRun) b = { 0 };
  g_auto (CliRun) c = { 0 };
  g_auto (CliRun) bad = { 0 };
  g_autoptr (JsonNode) ra = NULL;
  g_autoptr (JsonNode) rc = NULL;
  JsonObject *oa, *q;
  double slow = analytical_step (lo), fast = analytical_step (hi);

  RUN_CLI (&a, "simulate", uq, "--samples", "400", "--seed", "7", "--json");
  RUN_CLI (&b, "simulate", uq, "--samples", "400", "--seed", "7", "--json");
  RUN_CLI (&c, "simulate", uq, "--samples", "400", "--seed", "8", "--json");
  assert_success (&a);
  ra = parse_stdout (&a);
  rc = parse_stdout (&c);
  if (ra == NULL || rc == NULL)
    return;
  oa = json_node_get_object (ra);
  g_assert_cmpint (get_int (oa, "samples"), ==, 400);
  g_assert_cmpint (get_int (oa, "uncertain_inputs"), ==, 1);
  q = json_object_get_object_member (oa, "step_time_quantiles_s");
  g_assert_cmpfloat (fast, <, slow);
  g_assert_cmpfloat (fast, <=, get_number (q, "p5"));
  g_assert_cmpfloat (get_number (q, "p5"), <=, get_number (q, "p50"));
  g_assert_cmpfloat (get_number (q, "p50"), <=, get_number (q, "p95"));
  g_assert_cmpfloat (get_number (q, "p95"), <=, slow);
  g_assert_cmpfloat (get_number (oa, "oom_probability"), ==, 1.0);
  g_assert_cmpstr (a.out, ==, b.out);
  g_assert_cmpfloat (get_number (json_object_get_object_member (json_node_get_object (rc), "step_time_quantiles_s"),
                                 "p50"), !=, get_number (q, "p50"));

  RUN_CLI (&bad, "simulate", uq, "--samples", "0");
  ASSERT_FAILURE (&bad, 2, "--samples");
  test_rm_rf (dir);
}

static void
test_simulate_sensitivity (void)
{
  /* The same scenario's sensitivities: sorted by the size of the step's elasticity,
   * the bf16 peak first (the GEMMs dominate); the uncertain inter-node bandwidth,
   * the only one, carries Sobol indices and (alone) nearly all the variance. The
   * tornado chart is written as an SVG. */
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *uq = test_write_file (dir, "uq.json", UQ_SCENARIO ("{ \"min\": 5e9, \"max\": 25e9 }"), -1);
  g_autofree char *svg = g_build_filename (dir, "tornado.svg", NULL);
  g_autofree char *contents = NULL;
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) t = { 0 };
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *memory_svg = g_build_filename (dir, "tornado-memory.svg", NULL);
  g_autofree char *memory_contents = NULL;
  g_auto (CliRun) m = { 0 };
  g_auto (CliRun) bad = { 0 };
  JsonArray *sens;
  double last = G_MAXDOUBLE, hbm = 0.0, reserved = 0.0, e_hbm = 0.0, e_reserved = 0.0;
  gboolean seen_bw = FALSE;

  RUN_CLI (&r, "simulate", uq, "--sensitivity", "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  sens = json_object_get_array_member (json_node_get_object (root), "sensitivity");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (sens, 0), "input"), ==,
                   "gpu.peak_flops.bf16");
  for (guint i = 0; i < json_array_get_length (sens); i++)
    {
      JsonObject *e = json_array_get_object_element (sens, i);
      double el = fabs (get_number (e, "step_time_elasticity"));
      const char *input = json_object_get_string_member (e, "input");

      g_assert_cmpfloat (el, <=, last);
      last = el;

      /* Peak memory reads no cluster input. */
      g_assert_cmpfloat (get_number (e, "peak_memory_elasticity"), ==, 0.0);
      if (g_str_equal (input, "inter_node.bw_Bps"))
        {
          seen_bw = TRUE;
          g_assert_cmpfloat (get_number (e, "step_time_elasticity"), <, 0.0);
          g_assert_cmpfloat (get_number (e, "sobol_first_order"), >, 0.9);
          /* HBM use reads neither: its indices are exactly 0. */
          g_assert_cmpfloat (get_number (e, "sobol_first_order_hbm_use"), ==, 0.0);
          g_assert_cmpfloat (get_number (e, "sobol_total_hbm_use"), ==, 0.0);
        }
      else
        g_assert_false (json_object_has_member (e, "sobol_first_order"));
      if (g_str_equal (input, "gpu.hbm_bytes"))
        {
          hbm = get_number (e, "value");
          e_hbm = get_number (e, "hbm_use_elasticity");
        }
      else if (g_str_equal (input, "gpu.reserved_bytes"))
        {
          reserved = get_number (e, "value");
          e_reserved = get_number (e, "hbm_use_elasticity");
        }
      else
        g_assert_cmpfloat (get_number (e, "hbm_use_elasticity"), ==, 0.0);
    }
  g_assert_true (seen_bw);
  /* HBM use = peak / (H - R): d ln use / d ln H = -H / (H - R), d ln use / d ln R =
   * R / (H - R) (the A100 preset: 80 GiB, 3 GiB reserved: -1.0390 and 0.0390). */
  g_assert_cmpfloat (hbm, >, reserved);
  g_assert_cmpfloat_with_epsilon (e_hbm, -hbm / (hbm - reserved), 1e-3);
  g_assert_cmpfloat_with_epsilon (e_reserved, reserved / (hbm - reserved), 1e-3);

  RUN_CLI (&t, "simulate", uq, "--tornado", svg);
  assert_success (&t);
  g_assert_true (g_file_get_contents (svg, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "<svg"));

  /* The memory side: two bars, the HBM size and the reserved bytes. */
  RUN_CLI (&m, "simulate", uq, "--tornado", memory_svg, "--tornado-of", "memory");
  assert_success (&m);
  g_assert_true (g_file_get_contents (memory_svg, &memory_contents, NULL, NULL));
  g_assert_nonnull (strstr (memory_contents, "<svg"));
  g_assert_cmpstr (memory_contents, !=, contents);
  RUN_CLI (&bad, "simulate", uq, "--tornado", memory_svg, "--tornado-of", "peak");
  ASSERT_FAILURE (&bad, 2, "--tornado-of: \"peak\" is neither step nor memory");
  test_rm_rf (dir);
}

static void
test_calibrate_kineto (void)
{
  /* A real trace (tests/data/kineto/README.md) folded into the A100 preset: one NCCL
   * kernel of 11727 us (jq over the file), a cluster written that loads, and --out
   * without --cluster a usage error. The model ran in fp32: of its GEMM ops 64
   * launched s1688 kernels (TF32 tensor cores) and 25 others (12 sgemm, 4 gemmk1,
   * 4 gemvx, 4 gemvNSP, 1 scal: FP32 units; grep over the file), so they make the
   * matmul_tf32 and matmul_fp32 curves, each rising, and the 16-bit matmul curve
   * stays the preset's. */
  g_autofree char *trace = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "kineto", "hta-sampled-rank0.json", NULL);
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *out = g_build_filename (dir, "a100-kineto.json", NULL);
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) bad = { 0 };
  g_autoptr (JsonNode) root = NULL, folded = NULL;
  g_autoptr (PlxCluster) c = NULL, preset = NULL;
  JsonObject *coll;
  double last = 0.0;

  RUN_CLI (&r, "calibrate", "--kineto", trace, "--cluster", "dgx-a100-80gb", "--out", out, "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  coll = json_object_get_object_member (json_object_get_object_member (json_node_get_object (root), "classes"), "collective");
  g_assert_cmpint (json_object_get_int_member (coll, "count"), ==, 1);
  g_assert_cmpfloat (get_number (coll, "total_us"), ==, 11727.0);
  folded = plx_json_parse_file (out, NULL);
  g_assert_nonnull (folded);
  c = plx_cluster_new_from_json (folded, out, NULL);
  g_assert_nonnull (c);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (root), "matmul_points")), ==, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (root), "matmul_tf32_points")), ==, 64);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (root), "matmul_fp32_points")), ==, 25);
  preset = plx_cluster_new_preset ("dgx-a100-80gb", NULL);
  g_assert_cmpuint (plx_curve_get_n_points (c->matmul_efficiency), ==, plx_curve_get_n_points (preset->matmul_efficiency));
  for (gsize i = 0; i < plx_curve_get_n_points (c->matmul_efficiency); i++)
    {
      double x, y, px, py;
      plx_curve_get_point (c->matmul_efficiency, i, &x, &y);
      plx_curve_get_point (preset->matmul_efficiency, i, &px, &py);
      g_assert_cmpfloat (x, ==, px);
      g_assert_cmpfloat (y, ==, py);
    }
  g_assert_nonnull (c->matmul_tf32_efficiency);
  g_assert_nonnull (c->matmul_fp32_efficiency);
  for (gsize i = 0; i < plx_curve_get_n_points (c->matmul_tf32_efficiency); i++)
    {
      double x, y;
      plx_curve_get_point (c->matmul_tf32_efficiency, i, &x, &y);
      g_assert_cmpfloat (y, >=, last);
      last = y;
    }
  RUN_CLI (&bad, "calibrate", "--kineto", trace, "--out", out);
  g_assert_cmpint (bad.status, ==, 2);
  g_remove (out);
  g_rmdir (dir);
}

static void
test_calibrate_kineto_scenario (void)
{
  /* tests/data/kineto-gemm/README.md: the real trace's MLP GEMMs matched to the
   * scenario written for it. 1024 x 1024 * 1024 x 2048 ran 8 times, median (60 + 63) /
   * 2 = 61.5 us; 1024 x 2048 * 2048 x 1024 4 times, median 58.5 us; fc1 and fc2 have
   * six products of those two shapes; QKV, the attention output and the LM head (3 x
   * 3 products) and the trace's 1024 x 4864 * 4864 x 2048 (218 us) match nothing. */
  g_autofree char *trace = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "kineto-gemm", "hta-mlp-a100.json", NULL);
  g_autofree char *scenario = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "kineto-gemm", "gpt2-mlp1024-a100.json", NULL);
  g_autofree char *dir = test_make_tmp_dir ("plx-test-cli");
  g_autofree char *out = g_build_filename (dir, "a100-gemms.json", NULL);
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) text = { 0 };
  g_auto (CliRun) sim = { 0 };
  g_auto (CliRun) sim_json = { 0 };
  g_autoptr (JsonNode) root = NULL, written = NULL, simulated = NULL;
  JsonObject *match, *gpu;
  JsonArray *rows, *left, *table, *used;
  guint measured = 0;

  RUN_CLI (&r, "calibrate", "--kineto", trace, "--scenario", scenario, "--out", out, "--json");
  assert_success (&r);
  root = parse_stdout (&r);
  if (root == NULL)
    return;
  match = json_object_get_object_member (json_node_get_object (root), "gemm_match");
  rows = json_object_get_array_member (match, "scenario_gemms");
  g_assert_cmpuint (json_array_get_length (rows), ==, 15);
  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      if (json_node_is_null (json_object_get_member (row, "measured_s")))
        continue;
      measured++;
      g_assert_true (g_str_has_prefix (json_object_get_string_member (row, "op"), "fc"));
      g_assert_cmpfloat (get_number (row, "ratio"), ==, get_number (row, "measured_s") / get_number (row, "roofline_s"));
      if (g_str_equal (json_object_get_string_member (row, "op"), "fc1") &&
          g_str_equal (json_object_get_string_member (row, "product"), "forward"))
        g_assert_cmpfloat_with_epsilon (get_number (row, "measured_s"), 61.5e-6, 1e-15);
    }
  g_assert_cmpuint (measured, ==, 6);
  left = json_object_get_array_member (match, "trace_gemms_unmatched");
  g_assert_cmpuint (json_array_get_length (left), ==, 1);
  g_assert_cmpfloat (get_number (json_array_get_object_element (left, 0), "k"), ==, 4864.0);
  g_assert_cmpfloat_with_epsilon (get_number (json_array_get_object_element (left, 0), "median_s"), 218e-6, 1e-15);

  /* The written cluster: the preset expanded, the two shapes under gpu.measured_gemms. */
  written = plx_json_parse_file (out, NULL);
  g_assert_nonnull (written);
  if (written == NULL)
    return;
  gpu = json_object_get_object_member (json_node_get_object (written), "gpu");
  table = json_object_get_array_member (gpu, "measured_gemms");
  g_assert_cmpuint (json_array_get_length (table), ==, 2);

  RUN_CLI (&text, "calibrate", "--kineto", trace, "--scenario", scenario);
  assert_success (&text);
  g_assert_nonnull (strstr (text.out, "fc1            block        forward     1024x1024*1024x2048        fp32      1       61.50"));
  g_assert_nonnull (strstr (text.out, "Not in the trace (9; these keep the curves' time)"));
  g_assert_nonnull (strstr (text.out, "Trace GEMM shapes no scenario GEMM has (1,"));

  /* simulate with the written cluster says which GEMMs took the measured times. */
  RUN_CLI (&sim, "simulate", scenario, "--cluster", out);
  assert_success (&sim);
  g_assert_nonnull (strstr (sim.out, "Measured GEMMs    6 of the model's 15 GEMM products"));
  g_assert_nonnull (strstr (sim.out, "fc2            forward     1024x2048*2048x1024      fp32       58.50 us measured"));
  RUN_CLI (&sim_json, "simulate", scenario, "--cluster", out, "--json");
  assert_success (&sim_json);
  simulated = parse_stdout (&sim_json);
  if (simulated == NULL)
    return;
  used = json_object_get_array_member (json_node_get_object (simulated), "measured_gemms");
  g_assert_cmpuint (json_array_get_length (used), ==, 6);
  g_remove (out);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  /* A failed check marks its test failed and lets the others run. */
  g_test_set_nonfatal_assertions ();

  g_test_add_func ("/cli/presets/text", test_presets_text);
  g_test_add_func ("/cli/presets/json", test_presets_json);
  g_test_add_func ("/cli/presets/bad-argument", test_presets_bad_argument);

  g_test_add_func ("/cli/simulate/text", test_simulate_text);
  g_test_add_func ("/cli/simulate/json-keys", test_simulate_json_keys);
  g_test_add_func ("/cli/simulate/layers-per-stage", test_simulate_layers_per_stage);
  g_test_add_func ("/cli/simulate/json-identity", test_simulate_json_identity);
  g_test_add_func ("/cli/simulate/model-adapts", test_simulate_model_adapts);
  g_test_add_func ("/cli/search/any-strategy", test_search_any_strategy);
  g_test_add_func ("/cli/simulate/json-keys-analytical", test_simulate_json_keys_analytical);
  g_test_add_func ("/cli/simulate/engine-analytical", test_simulate_json_engine_analytical);
  g_test_add_func ("/cli/simulate/engine-event-json", test_simulate_json_engine_event);
  g_test_add_func ("/cli/simulate/engine-text", test_simulate_engine_text);
  g_test_add_func ("/cli/simulate/help", test_simulate_help);
  g_test_add_func ("/cli/simulate/tp-override", test_simulate_tp_override);
  g_test_add_func ("/cli/simulate/tp-equals-form", test_simulate_tp_equals_form);
  g_test_add_func ("/cli/simulate/nodes-override", test_simulate_nodes_override);
  g_test_add_func ("/cli/simulate/power-limit", test_simulate_power_limit);
  g_test_add_func ("/cli/simulate/fp8-param-gather", test_simulate_fp8_param_gather);
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
  g_test_add_func ("/cli/simulate/engine-missing-value", test_simulate_engine_missing_value);
  g_test_add_func ("/cli/simulate/two-files", test_simulate_two_files);
  g_test_add_func ("/cli/simulate/missing-file", test_simulate_missing_file);
  g_test_add_func ("/cli/simulate/malformed-file", test_simulate_malformed_file);
  g_test_add_func ("/cli/simulate/top-level-array", test_simulate_top_level_array);
  g_test_add_func ("/cli/simulate/inconsistent-file", test_simulate_inconsistent_file);
  g_test_add_func ("/cli/simulate/nearest-valid", test_simulate_nearest_valid);
  g_test_add_func ("/cli/simulate/nearest-leads-somewhere", test_simulate_nearest_leads_somewhere);
  g_test_add_func ("/cli/simulate/refusals-named", test_simulate_refusals_named);
  g_test_add_func ("/cli/simulate/zero-note-and-params", test_simulate_zero_note_and_params);
  g_test_add_func ("/cli/simulate/fit-suggestions", test_simulate_fit_suggestions);
  g_test_add_func ("/cli/simulate/scenario-file", test_simulate_scenario_file);
  g_test_add_func ("/cli/simulate/schedule-file", test_simulate_schedule_file);
  g_test_add_func ("/cli/simulate/schedule-file-analytical", test_simulate_schedule_file_analytical);
  g_test_add_func ("/cli/simulate/schedule-file-missing", test_simulate_schedule_file_missing);
  g_test_add_func ("/cli/simulate/schedule-file-deadlock", test_simulate_schedule_file_deadlock);
  g_test_add_func ("/cli/simulate/trace", test_simulate_trace);
  g_test_add_func ("/cli/simulate/trace-replaces", test_simulate_trace_replaces);
  g_test_add_func ("/cli/simulate/trace-analytical", test_simulate_trace_analytical);
  g_test_add_func ("/cli/simulate/trace-unwritable", test_simulate_trace_unwritable);
  g_test_add_func ("/cli/simulate/trace-onto-directory", test_simulate_trace_onto_directory);

  g_test_add_func ("/cli/plan/default", test_plan_default);
  g_test_add_func ("/cli/plan/overrides", test_plan_overrides);
  g_test_add_func ("/cli/plan/zero-bubble", test_plan_zero_bubble);
  g_test_add_func ("/cli/plan/missing-file", test_plan_missing_file);
  g_test_add_func ("/cli/plan/unknown-option", test_plan_unknown_option);
  g_test_add_func ("/cli/plan/help", test_plan_help);

  g_test_add_func ("/cli/usage/unknown-command", test_usage_unknown_command);
  g_test_add_func ("/cli/usage/no-command", test_usage_no_command);
  g_test_add_func ("/cli/usage/no-command-one-line", test_usage_no_command_one_line);
  g_test_add_func ("/cli/usage/help", test_usage_help);

  g_test_add_func ("/cli/validate/text", test_validate_text);
  g_test_add_func ("/cli/validate/json", test_validate_json);
  g_test_add_func ("/cli/validate/text-analytical", test_validate_text_analytical);
  g_test_add_func ("/cli/validate/pooled", test_validate_pooled);
  g_test_add_func ("/cli/validate/memory", test_validate_memory);
  g_test_add_func ("/cli/calibrate", test_calibrate);
  g_test_add_func ("/cli/calibrate-nccl", test_calibrate_nccl);
  g_test_add_func ("/cli/calibrate-nccl-with-uncertainty", test_calibrate_nccl_with_uncertainty);
  g_test_add_func ("/cli/calibrate-gemm", test_calibrate_gemm);
  g_test_add_func ("/cli/calibrate-kineto", test_calibrate_kineto);
  g_test_add_func ("/cli/calibrate-kineto-scenario", test_calibrate_kineto_scenario);
  g_test_add_func ("/cli/simulate-samples", test_simulate_samples);
  g_test_add_func ("/cli/simulate-sensitivity", test_simulate_sensitivity);
  g_test_add_func ("/cli/validate/accuracy-event", test_validate_accuracy_event);
  g_test_add_func ("/cli/validate/accuracy-analytical", test_validate_accuracy_analytical);
  g_test_add_func ("/cli/validate/engine-unknown", test_validate_engine_unknown);
  g_test_add_func ("/cli/validate/missing-file", test_validate_missing_file);
  g_test_add_func ("/cli/validate/malformed-file", test_validate_malformed_file);
  g_test_add_func ("/cli/validate/no-table", test_validate_no_table);

  g_test_add_func ("/cli/charts/timeline-png", test_charts_timeline_png);
  g_test_add_func ("/cli/charts/size-scale", test_charts_size_scale);
  g_test_add_func ("/cli/charts/timeline-pdf", test_charts_timeline_pdf);
  g_test_add_func ("/cli/charts/unknown-extension", test_charts_unknown_extension);
  g_test_add_func ("/cli/charts/analytical", test_charts_analytical);
  g_test_add_func ("/cli/charts/unwritable", test_charts_unwritable);
  g_test_add_func ("/cli/charts/onto-directory", test_charts_onto_directory);
  g_test_add_func ("/cli/charts/bad-sizes", test_charts_bad_sizes);

  g_test_add_func ("/cli/compare/png", test_compare_png);
  g_test_add_func ("/cli/compare/unlike", test_compare_unlike);
  g_test_add_func ("/cli/compare/svg-size", test_compare_svg_size);
  g_test_add_func ("/cli/compare/json", test_compare_json);
  g_test_add_func ("/cli/compare/one-file", test_compare_one_file);
  g_test_add_func ("/cli/compare/missing-file", test_compare_missing_file);
  g_test_add_func ("/cli/compare/no-output", test_compare_no_output);
  g_test_add_func ("/cli/compare/bad-options", test_compare_bad_options);
  g_test_add_func ("/cli/search/json", test_search_json);
  g_test_add_func ("/cli/graph/search", test_graph_search);
  g_test_add_func ("/cli/graph/program-round-trip", test_graph_program_round_trip);
  g_test_add_func ("/cli/graph/partition", test_graph_partition);
  g_test_add_func ("/cli/graph/fuse", test_graph_fuse);
  g_test_add_func ("/cli/reshard", test_reshard);
  g_test_add_func ("/cli/reshard-ir", test_reshard_ir);
  g_test_add_func ("/cli/partition/scenario", test_scenario_partition);
  g_test_add_func ("/cli/graph/onnx", test_graph_onnx);
  g_test_add_func ("/cli/graph/scenario-program", test_scenario_program);
  g_test_add_func ("/cli/graph/charts", test_graph_charts);
  g_test_add_func ("/cli/graph/cnn-mfu", test_graph_cnn_mfu);
  g_test_add_func ("/cli/inference/json", test_inference_json);
  g_test_add_func ("/cli/search/csv-and-errors", test_search_csv_and_errors);

  return g_test_run ();
}
