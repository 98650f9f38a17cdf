/* test-strategy.c: strategy parsing (plx_strategy_new_from_json) and the rules of
 * plx_strategy_resolve (FORMATS.md §1, strategy), through plx_scenario_new_from_json
 * as a scenario file would reach them. Every error must carry the PLX_ERROR domain,
 * a specific code, and a message naming the key and the offending value. */
#include <math.h>
#include <string.h>

#include "parallax/parallax.h"
#include "test-home.h"
#include "base/plx-json.h"

#define GPT3 "{\"preset\": \"gpt3-175b\"}"
#define GPT2 "{\"preset\": \"gpt2\"}"
#define MIXTRAL "{\"preset\": \"mixtral-8x7b\"}"
/* 32 query heads, 8 key-value heads: tp 16 divides the first but not the second. */
#define LLAMA_GQA \
  "{\"model_type\": \"llama\", \"num_hidden_layers\": 32, \"hidden_size\": 4096," \
  " \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"intermediate_size\": 11008," \
  " \"vocab_size\": 32000, \"max_position_embeddings\": 4096}"
/* 8 heads (tp 8 divides them) but an MLP width of 3004 (tp 8 does not). */
#define GPT2_ODD_FFN \
  "{\"model_type\": \"gpt2\", \"n_layer\": 12, \"n_embd\": 768, \"n_head\": 8," \
  " \"n_inner\": 3004, \"vocab_size\": 50257}"

#define A100_8 "{\"preset\": \"dgx-a100-80gb\"}"
#define A100_16 "{\"preset\": \"dgx-a100-80gb\", \"num_nodes\": 2}"
#define A100_64 "{\"preset\": \"dgx-a100-80gb\", \"num_nodes\": 8}"
#define A100_1024 "{\"preset\": \"dgx-a100-80gb\", \"num_nodes\": 128}"
#define H100_64 "{\"preset\": \"dgx-h100-80gb\", \"num_nodes\": 8}"

/* ---- helpers ---------------------------------------------------------------- */

static PlxScenario *
load_scenario (const char *model,
               const char *cluster,
               const char *strategy,
               GError    **error)
{
  g_autofree char *text = NULL;
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (GError) parse_error = NULL;

  if (strategy != NULL)
    text = g_strdup_printf ("{\"model\": %s, \"cluster\": %s, \"strategy\": %s}",
                            model, cluster, strategy);
  else
    text = g_strdup_printf ("{\"model\": %s, \"cluster\": %s}", model, cluster);
  node = plx_json_parse_data (text, -1, "test.json", &parse_error);
  g_assert_no_error (parse_error);
  if (node == NULL)
    return NULL;
  return plx_scenario_new_from_json (node, ".", "test.json", error);
}

/* Loads the scenario, asserts it fails with `code`, that the message starts with the
 * source and contains every needle, and that it stays one short line. */
static void
expect_error (const char        *model,
              const char        *cluster,
              const char        *strategy,
              PlxError       code,
              const char *const *needles)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScenario) sc = load_scenario (model, cluster, strategy, &error);

  g_assert_null (sc);
  g_assert_error (error, PLX_ERROR, (gint) code);
  if (error == NULL)
    return;
  g_test_message ("message: %s", error->message);
  g_assert_true (g_str_has_prefix (error->message, "test.json: "));
  g_assert_null (strchr (error->message, '\n'));
  g_assert_cmpuint (strlen (error->message), <, 400);
  for (guint i = 0; needles[i] != NULL; i++)
    {
      if (strstr (error->message, needles[i]) == NULL)
        g_test_message ("\"%s\" not found in \"%s\"", needles[i], error->message);
      g_assert_nonnull (strstr (error->message, needles[i]));
    }
}

#define EXPECT_ERROR(model, cluster, strategy, code, ...) \
  G_STMT_START { \
    const char *const needles_[] = { __VA_ARGS__, NULL }; \
    expect_error (model, cluster, strategy, code, needles_); \
  } G_STMT_END

static PlxScenario *
expect_ok (const char *model,
           const char *cluster,
           const char *strategy)
{
  g_autoptr (GError) error = NULL;
  PlxScenario *sc = load_scenario (model, cluster, strategy, &error);

  g_assert_no_error (error);
  g_assert_nonnull (sc);
  return sc;
}

/* ---- table-driven errors on single keys -------------------------------------- */

typedef struct
{
  char        *strategy;
  PlxError code;
  char        *needle;   /* "strategy.KEY: VALUE" as the message renders it */
} KeyCase;

static void
key_case_free (gpointer data)
{
  KeyCase *kc = data;

  g_free (kc->strategy);
  g_free (kc->needle);
  g_free (kc);
}

static void
test_key_case (gconstpointer data)
{
  const KeyCase *kc = data;
  const char *const needles[] = { kc->needle, NULL };

  expect_error (GPT3, A100_64, kc->strategy, kc->code, needles);
}

static void
add_key_case (const char  *name,
              const char  *key,
              const char  *json_value,
              PlxError code,
              const char  *shown_value)
{
  KeyCase *kc = g_new0 (KeyCase, 1);
  g_autofree char *path = g_strdup_printf ("/strategy/error/%s", name);

  /* Parsing fails before resolving, so the other keys do not matter; keep the
   * scenario otherwise valid so only this key can be blamed. */
  if (g_str_equal (key, "global_batch_size"))
    kc->strategy = g_strdup_printf ("{\"tp\": 8, \"pp\": 8, \"%s\": %s}", key, json_value);
  else
    kc->strategy = g_strdup_printf ("{\"global_batch_size\": 64, \"%s\": %s}", key, json_value);
  kc->code = code;
  kc->needle = g_strdup_printf ("test.json: strategy.%s: %s", key, shown_value);
  g_test_add_data_func_full (path, kc, test_key_case, key_case_free);
}

static void
add_number_key_cases (void)
{
  static const char *const keys[][2] = {
    { "tp", "tp" },
    { "pp", "pp" },
    { "dp", "dp" },
    { "cp", "cp" },
    { "ep", "ep" },
    { "micro_batch_size", "micro-batch-size" },
    { "global_batch_size", "global-batch-size" },
    { "virtual_stages", "virtual-stages" },
    { "seq_length", "seq-length" },
  };
  static const struct
  {
    const char  *suffix;
    const char  *json;
    PlxError code;
    const char  *shown;
  } values[] = {
    { "zero", "0", PLX_ERROR_INVALID_VALUE, "0 is out of range" },
    { "negative", "-3", PLX_ERROR_INVALID_VALUE, "-3 is out of range" },
    { "fraction", "2.5", PLX_ERROR_INVALID_VALUE, "2.5 is not a whole number" },
    { "huge", "1e20", PLX_ERROR_INVALID_VALUE, "1e+20" },
    /* 2^32 + 1: must not wrap to 1 in a 32-bit degree. */
    { "above-uint32", "4294967297", PLX_ERROR_INVALID_VALUE, "4294967297 is out of range" },
    { "string", "\"8\"", PLX_ERROR_PARSE, "\"8\" is not a number" },
  };

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    for (guint v = 0; v < G_N_ELEMENTS (values); v++)
      {
        g_autofree char *name = g_strdup_printf ("%s-%s", keys[k][1], values[v].suffix);
        add_key_case (name, keys[k][0], values[v].json, values[v].code, values[v].shown);
      }

  /* Other JSON types where a degree belongs. */
  add_key_case ("tp-bool", "tp", "true", PLX_ERROR_PARSE, "true is not a number");
  add_key_case ("tp-array", "tp", "[8]", PLX_ERROR_PARSE, "[8] is not a number");
  add_key_case ("tp-object", "tp", "{}", PLX_ERROR_PARSE, "{} is not a number");
  add_key_case ("tp-above-max-degree", "tp", "2000000", PLX_ERROR_INVALID_VALUE, "2000000 is out of range");
  add_key_case ("seq-length-above-2^30", "seq_length", "1073741825", PLX_ERROR_INVALID_VALUE,
                "1073741825 is out of range");

  /* Enumerations and other keys. */
  add_key_case ("schedule-unknown", "schedule", "\"zigzag\"", PLX_ERROR_INVALID_VALUE, "\"zigzag\" is not one of");
  add_key_case ("schedule-number", "schedule", "5", PLX_ERROR_PARSE, "5 is not a string");
  add_key_case ("recompute-unknown", "recompute", "\"partial\"", PLX_ERROR_INVALID_VALUE, "\"partial\" is not one of");
  add_key_case ("recompute-bool", "recompute", "true", PLX_ERROR_PARSE, "true is not a string");
  add_key_case ("dtype-unknown", "dtype", "\"int8\"", PLX_ERROR_INVALID_VALUE, "\"int8\" is not one of");
  add_key_case ("dtype-tf32", "dtype", "\"tf32\"", PLX_ERROR_INVALID_VALUE, "\"tf32\" is not one of");
  add_key_case ("workload-unknown", "workload", "\"serving\"", PLX_ERROR_INVALID_VALUE, "\"serving\" is not one of");
  add_key_case ("zero-stage-4", "zero_stage", "4", PLX_ERROR_INVALID_VALUE, "4 is out of range (allowed 0 to 3)");
  add_key_case ("zero-stage-negative", "zero_stage", "-1", PLX_ERROR_INVALID_VALUE, "-1 is out of range");
  add_key_case ("zero-stage-fraction", "zero_stage", "1.5", PLX_ERROR_INVALID_VALUE, "1.5 is not a whole number");
  add_key_case ("zero-stage-string", "zero_stage", "\"1\"", PLX_ERROR_PARSE, "\"1\" is not a number");
  add_key_case ("sequence-parallel-string", "sequence_parallel", "\"yes\"", PLX_ERROR_PARSE, "\"yes\" is not true or false");
  add_key_case ("overlap-dp-comm-number", "overlap_dp_comm", "1", PLX_ERROR_PARSE, "1 is not true or false");
  add_key_case ("grad-bucket-bytes-zero", "grad_bucket_bytes", "0", PLX_ERROR_INVALID_VALUE, "0 is out of range");
  /* One byte per bucket made GPT-3 175B's reduction billions of collectives (a hang). */
  add_key_case ("grad-bucket-bytes-one", "grad_bucket_bytes", "1", PLX_ERROR_INVALID_VALUE,
                "1 is out of range (allowed 1000000 to");
}

/* ---- the strategy node itself ------------------------------------------------- */

static void
test_strategy_not_object (void)
{
  EXPECT_ERROR (GPT3, A100_64, "5", PLX_ERROR_PARSE, "test.json: strategy: 5 is not an object");
  EXPECT_ERROR (GPT3, A100_64, "[1, 2]", PLX_ERROR_PARSE, "strategy: [1,2] is not an object");
}

static void
test_strategy_missing (void)
{
  EXPECT_ERROR (GPT3, A100_64, NULL, PLX_ERROR_MISSING_KEY, "test.json: strategy: required key is missing");
}

static void
test_strategy_new_from_json_direct (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data ("{\"tp\": 0}", -1, "direct", &error);
  g_autoptr (PlxStrategy) s = NULL;

  g_assert_no_error (error);
  s = plx_strategy_new_from_json (node, "direct", &error);
  g_assert_null (s);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "direct: strategy.tp: 0"));
}

/* ---- plx_strategy_resolve rules ----------------------------------------------- */

static void
test_tp_heads (void)
{
  /* GPT-2 small has 12 heads. */
  EXPECT_ERROR (GPT2, A100_8, "{\"tp\": 8, \"global_batch_size\": 8}", PLX_ERROR_INCONSISTENT,
                "strategy.tp: 8", "12 attention heads");
}

static void
test_tp_kv_heads (void)
{
  EXPECT_ERROR (LLAMA_GQA, A100_16, "{\"tp\": 16, \"global_batch_size\": 8}", PLX_ERROR_INCONSISTENT,
                "strategy.tp: 16", "8 key-value heads");
}

static void
test_tp_ffn (void)
{
  EXPECT_ERROR (GPT2_ODD_FFN, A100_8, "{\"tp\": 8, \"global_batch_size\": 8}", PLX_ERROR_INCONSISTENT,
                "strategy.tp: 8", "3004");
}

static void
test_pp_above_layers (void)
{
  EXPECT_ERROR (GPT2, A100_16, "{\"pp\": 16, \"global_batch_size\": 16}", PLX_ERROR_INCONSISTENT,
                "strategy.pp: 16", "12 layers");
}

static void
test_layers_per_stage (void)
{
  /* Layers that do not divide evenly are split (balanced) rather than refused; a
   * split by hand names every stage and adds up to the model's layers. */
  g_autoptr (PlxScenario) uneven = expect_ok (GPT2, A100_8, "{\"pp\": 8, \"global_batch_size\": 8}");
  PlxReport event, closed;

  /* Both engines run it (how closely they agree is tested on BLOOM's 70 layers over
   * 12 stages, test-validation.c). */
  g_assert_true (plx_sim_run_scenario (uneven->model, uneven->cluster, uneven->strategy, &event, NULL, NULL, NULL, NULL));
  g_assert_true (plx_analytic_run (uneven->model, uneven->cluster, uneven->strategy, &closed, NULL));
  g_assert_cmpfloat (event.step_time_s, >, 0.0);
  g_assert_cmpfloat (closed.step_time_s, >, 0.0);
  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 4, \"layers_per_stage\": [3, 3, 6], \"global_batch_size\": 8}",
                PLX_ERROR_INCONSISTENT, "strategy.layers_per_stage: 3 counts given", "pp = 4 stages");
  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 4, \"layers_per_stage\": [3, 3, 3, 4], \"global_batch_size\": 8}",
                PLX_ERROR_INCONSISTENT, "strategy.layers_per_stage", "add up to 13 layers", "model's 12");
  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 4, \"layers_per_stage\": [3, -1, 7, 3], \"global_batch_size\": 8}",
                PLX_ERROR_INVALID_VALUE, "strategy.layers_per_stage[1]", "-1 is not a layer count", "from 0 to");
  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 4, \"layers_per_stage\": \"even\", \"global_batch_size\": 8}",
                PLX_ERROR_INVALID_VALUE, "strategy.layers_per_stage", "\"even\"", "\"auto\"");
  /* With interleaving, one count per model chunk: 8 x 5 = 40 of them. */
  EXPECT_ERROR (GPT3, A100_64,
                "{\"tp\": 8, \"pp\": 8, \"schedule\": \"interleaved-1f1b\", \"virtual_stages\": 5,"
                " \"layers_per_stage\": [12, 12, 12, 12, 12, 12, 12, 12], \"global_batch_size\": 64}",
                PLX_ERROR_INCONSISTENT, "8 counts given", "pp*virtual_stages = 40 model chunks");
  /* Megatron's first/last-stage counts: the other stages take equal shares. GPT-2's
   * 12 layers over 4 stages with 3 on the first leave 9 for three stages (even); with
   * 2, 10 over three do not divide. */
  {
    g_autoptr (PlxScenario) ends = expect_ok (GPT2, A100_8,
                                              "{\"pp\": 4, \"first_stage_layers\": 3, \"global_batch_size\": 8}");
    g_assert_cmpuint (ends->strategy->first_stage_layers, ==, 3);
  }
  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 4, \"first_stage_layers\": 2, \"global_batch_size\": 8}",
                PLX_ERROR_INCONSISTENT, "strategy.first_stage_layers", "10 other layers", "other 3 stages");
  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 4, \"last_stage_layers\": 6, \"first_stage_layers\": 6, \"global_batch_size\": 8}",
                PLX_ERROR_INCONSISTENT, "strategy.first_stage_layers", "6 and 6 layers", "model's 12");
  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 4, \"last_stage_layers\": 3, \"layers_per_stage\": \"auto\", \"global_batch_size\": 8}",
                PLX_ERROR_INCONSISTENT, "strategy.last_stage_layers", "not both");
  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 4, \"last_stage_layers\": 0, \"global_batch_size\": 8}",
                PLX_ERROR_INVALID_VALUE, "strategy.last_stage_layers");
  /* More chunks than layers cannot be split at all. */
  EXPECT_ERROR (GPT2, A100_16,
                "{\"pp\": 8, \"schedule\": \"interleaved-1f1b\", \"virtual_stages\": 2, \"global_batch_size\": 16}",
                PLX_ERROR_INCONSISTENT, "8*2 = 16 model chunks", "12 layers");
}

/* Issue 36 item 3: chunks without transformer layers (Llama 3 405B's embedding-only
 * first and head-only last chunk), as counts or as Megatron-LM's layout string. GPT-2's
 * 12 layers: "E|(t*6|)*2L" is the embedding alone, two chunks of 6, the head alone;
 * over pp 4 one chunk a stage, over pp 2 two (interleaved). */
static void
test_zero_layer_chunks (void)
{
  g_autoptr (PlxScenario) counts = expect_ok (GPT2, A100_8, "{\"pp\": 4, \"layers_per_stage\": [0, 6, 6, 0], "
                                                            "\"global_batch_size\": 8}");
  g_autoptr (PlxScenario) layout = expect_ok (GPT2, A100_8, "{\"pp\": 4, \"pipeline_layout\": \"E|(t*6|)*2L\", "
                                                            "\"global_batch_size\": 8}");
  g_autoptr (PlxScenario) interleaved = expect_ok (GPT2, A100_8, "{\"pp\": 2, \"pipeline_layout\": \"E|(t*6|)*2L\", "
                                                                 "\"global_batch_size\": 8}");
  g_autoptr (JsonNode) written = plx_strategy_to_json (layout->strategy);
  const guint expected[] = { 0, 6, 6, 0 };
  PlxReport a, b, event;

  g_assert_cmpuint (layout->strategy->n_layers_per_stage, ==, 4);
  g_assert_cmpuint (interleaved->strategy->n_layers_per_stage, ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      g_assert_cmpuint (layout->strategy->layers_per_stage[i], ==, expected[i]);
      g_assert_cmpuint (interleaved->strategy->layers_per_stage[i], ==, expected[i]);
    }
  g_assert_cmpuint (layout->strategy->virtual_stages, ==, 1);
  g_assert_cmpuint (interleaved->strategy->virtual_stages, ==, 2);
  g_assert_cmpint (interleaved->strategy->schedule, ==, PLX_SCHEDULE_INTERLEAVED_1F1B);
  /* Written back as given, not as counts. */
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (written), "pipeline_layout"), ==, "E|(t*6|)*2L");
  g_assert_false (json_object_has_member (json_node_get_object (written), "layers_per_stage"));
  /* The same split either way, and both engines run it within the differential
   * suite's 5 % (docs/differential.md): 3.9 % apart here, the closed form slower. An
   * empty first chunk of a model with tied embeddings is where they differ most
   * (0.1 % for [1, 5, 5, 1], and for Llama 2 7B's untied [0, 16, 16, 0]). */
  g_assert_true (plx_analytic_run (counts->model, counts->cluster, counts->strategy, &a, NULL));
  g_assert_true (plx_analytic_run (layout->model, layout->cluster, layout->strategy, &b, NULL));
  g_assert_cmpfloat (a.step_time_s, ==, b.step_time_s);
  g_assert_true (plx_sim_run_scenario (counts->model, counts->cluster, counts->strategy, &event, NULL, NULL, NULL, NULL));
  g_assert_cmpfloat (fabs (event.step_time_s / a.step_time_s - 1.0), <, 0.05);
  {
    /* The plan says which chunks hold no layer. */
    g_autoptr (GError) error = NULL;
    PlxPlan *plan = plx_plan_lower (counts->model, counts->cluster, counts->strategy, &error);
    g_autofree char *text = NULL;

    g_assert_no_error (error);
    text = plx_plan_to_text (plan);
    g_assert_nonnull (strstr (text, "# stage 0 chunk 0 (no layers)"));
    g_assert_nonnull (strstr (text, "# stage 1 chunk 0 (layers 0-5)"));
    g_assert_nonnull (strstr (text, "# stage 3 chunk 0 (no layers)"));
    plx_plan_free (plan);
  }

  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 4, \"pipeline_layout\": \"E|(t*6|)*2\", \"global_batch_size\": 8}",
                PLX_ERROR_INVALID_VALUE, "strategy.pipeline_layout", "loss (L) last");
  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 4, \"pipeline_layout\": \"E|(t*5|)*2L\", \"global_batch_size\": 8}",
                PLX_ERROR_INCONSISTENT, "strategy.pipeline_layout", "add up to 10 layers", "model's 12");
  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 3, \"pipeline_layout\": \"E|(t*6|)*2L\", \"global_batch_size\": 8}",
                PLX_ERROR_INCONSISTENT, "strategy.pipeline_layout", "4 model chunks", "pp=3");
  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 4, \"pipeline_layout\": \"E|(t*6|)*2L\", \"layers_per_stage\": [0, 6, 6, 0], "
                "\"global_batch_size\": 8}", PLX_ERROR_INCONSISTENT, "strategy.pipeline_layout", "not both");
  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 2, \"pipeline_layout\": \"E|(t*6|)*2L\", \"virtual_stages\": 3, "
                "\"global_batch_size\": 8}", PLX_ERROR_INCONSISTENT, "strategy.virtual_stages: 3", "make 2");
  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 4, \"pipeline_layout\": \"Et*6|t*5,m|L\", \"global_batch_size\": 8}",
                PLX_ERROR_UNSUPPORTED, "strategy.pipeline_layout", "(m) are not modelled");
  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 4, \"pipeline_layout\": \"E|(t*6|*2L\", \"global_batch_size\": 8}",
                PLX_ERROR_INVALID_VALUE, "strategy.pipeline_layout", "'(' is not closed at the end");
  EXPECT_ERROR (GPT2, A100_8, "{\"pp\": 4, \"pipeline_layout\": \"(E|(t*6|)*2L)*4000000\", \"global_batch_size\": 8}",
                PLX_ERROR_INVALID_VALUE, "strategy.pipeline_layout", "too large");
}

static void
test_virtual_stages_without_interleaved (void)
{
  EXPECT_ERROR (GPT3, A100_64,
                "{\"tp\": 8, \"pp\": 8, \"virtual_stages\": 2, \"schedule\": \"1f1b\", \"global_batch_size\": 64}",
                PLX_ERROR_INCONSISTENT, "strategy.virtual_stages: 2", "\"1f1b\"");
  /* The default schedule (1f1b) is not interleaved either. */
  EXPECT_ERROR (GPT3, A100_64, "{\"tp\": 8, \"pp\": 8, \"virtual_stages\": 3, \"global_batch_size\": 64}",
                PLX_ERROR_INCONSISTENT, "strategy.virtual_stages: 3", "interleaved-1f1b");
}

static void
test_interleaved_one_chunk (void)
{
  EXPECT_ERROR (GPT3, A100_64,
                "{\"tp\": 8, \"pp\": 8, \"schedule\": \"interleaved-1f1b\", \"virtual_stages\": 1, \"global_batch_size\": 64}",
                PLX_ERROR_INCONSISTENT, "strategy.virtual_stages", "not 1");
  /* virtual_stages absent means 1. */
  EXPECT_ERROR (GPT3, A100_64,
                "{\"tp\": 8, \"pp\": 8, \"schedule\": \"interleaved-1f1b\", \"global_batch_size\": 64}",
                PLX_ERROR_INCONSISTENT, "strategy.virtual_stages", "not 1");
}

static void
test_interleaved_pp1 (void)
{
  EXPECT_ERROR (GPT3, A100_8,
                "{\"tp\": 8, \"pp\": 1, \"schedule\": \"interleaved-1f1b\", \"virtual_stages\": 2, \"global_batch_size\": 8}",
                PLX_ERROR_INCONSISTENT, "strategy.schedule", "interleaved-1f1b", "not 1");
}

static void
test_interleaved_micro_batches (void)
{
  /* dp 1: 60 micro-batches, not a multiple of pp 8. */
  EXPECT_ERROR (GPT3, A100_64,
                "{\"tp\": 8, \"pp\": 8, \"schedule\": \"interleaved-1f1b\", \"virtual_stages\": 3, \"global_batch_size\": 60}",
                PLX_ERROR_INCONSISTENT, "60 micro-batches", "pp=8");
}

static void
test_gpu_count (void)
{
  EXPECT_ERROR (GPT3, A100_64, "{\"dp\": 2, \"tp\": 8, \"pp\": 8, \"global_batch_size\": 64}",
                PLX_ERROR_INCONSISTENT, "dp*tp*pp*cp = 2*8*8*1 = 128", "64 GPUs");
  EXPECT_ERROR (GPT3, A100_64, "{\"dp\": 1, \"tp\": 8, \"pp\": 4, \"global_batch_size\": 64}",
                PLX_ERROR_INCONSISTENT, "dp*tp*pp*cp = 1*8*4*1 = 32", "64 GPUs");
}

static void
test_gpu_count_not_divisible (void)
{
  EXPECT_ERROR (GPT3, A100_64, "{\"tp\": 8, \"pp\": 3, \"global_batch_size\": 64}",
                PLX_ERROR_INCONSISTENT, "tp*pp*cp = 8*3*1 = 24", "64 GPUs");
  EXPECT_ERROR (GPT3, A100_64, "{\"tp\": 1, \"pp\": 1, \"cp\": 128, \"global_batch_size\": 64}",
                PLX_ERROR_INCONSISTENT, "tp*pp*cp = 1*1*128 = 128", "64 GPUs");
}

static void
test_gpu_count_product_overflow (void)
{
  /* 45344 * 279073 * 5920 * 246241 = 2^64 + 1024: every degree is within its range
   * and every other rule holds (heads, kv heads, MLP width divisible by tp; layers by
   * pp; seq_length by cp; the global batch by dp; a small model, with head_dim 1),
   * but the product is 2^64 + 1024 GPUs, not 1024. The check must not wrap around
   * in 64 bits. */
  EXPECT_ERROR ("{\"model_type\": \"llama\", \"num_hidden_layers\": 5920, \"hidden_size\": 64,"
                " \"num_attention_heads\": 279073, \"head_dim\": 1, \"intermediate_size\": 279073,"
                " \"vocab_size\": 1000}",
                A100_1024,
                "{\"dp\": 45344, \"tp\": 279073, \"pp\": 5920, \"cp\": 246241, \"seq_length\": 246241,"
                " \"global_batch_size\": 45344}",
                PLX_ERROR_INCONSISTENT, "dp*tp*pp*cp", "1024 GPUs");
}

static void
test_global_batch_multiple (void)
{
  /* tp 8, pp 2 on 64 GPUs: dp 4; micro-batch 2; 36 is not a multiple of 8. */
  EXPECT_ERROR (GPT3, A100_64, "{\"tp\": 8, \"pp\": 2, \"micro_batch_size\": 2, \"global_batch_size\": 36}",
                PLX_ERROR_INCONSISTENT, "strategy.global_batch_size: 36", "dp*micro_batch_size = 4*2");
}

static void
test_global_batch_missing (void)
{
  EXPECT_ERROR (GPT3, A100_64, "{\"tp\": 8, \"pp\": 8}", PLX_ERROR_MISSING_KEY,
                "test.json: strategy.global_batch_size", "required");
  /* null is absent too. */
  EXPECT_ERROR (GPT3, A100_64, "{\"tp\": 8, \"pp\": 8, \"global_batch_size\": null}", PLX_ERROR_MISSING_KEY,
                "strategy.global_batch_size");
}

static void
test_seq_length_above_positions (void)
{
  EXPECT_ERROR (GPT2, A100_8, "{\"seq_length\": 2048, \"global_batch_size\": 8}", PLX_ERROR_INCONSISTENT,
                "strategy.seq_length: 2048", "1024");
  EXPECT_ERROR (GPT2, A100_8, "{\"seq_length\": 1025, \"global_batch_size\": 8}", PLX_ERROR_INCONSISTENT,
                "strategy.seq_length: 1025", "1024");
}

static void
test_cp_seq_length (void)
{
  EXPECT_ERROR (GPT3, A100_64, "{\"tp\": 4, \"cp\": 16, \"seq_length\": 1000, \"global_batch_size\": 64}",
                PLX_ERROR_INCONSISTENT, "strategy.cp: 16", "seq_length=1000");
}

static void
test_sequence_parallel_split (void)
{
  EXPECT_ERROR (GPT3, A100_64,
                "{\"tp\": 8, \"pp\": 8, \"seq_length\": 1004, \"sequence_parallel\": true, \"global_batch_size\": 64}",
                PLX_ERROR_INCONSISTENT, "strategy.sequence_parallel", "1004", "tp=8");
  /* With cp 2 it is seq/cp (2000/2 = 1000, 1000 % 16 != 0) that must split over tp. */
  EXPECT_ERROR (GPT3, A100_64,
                "{\"tp\": 16, \"pp\": 2, \"cp\": 2, \"seq_length\": 2000, \"sequence_parallel\": true, \"global_batch_size\": 64}",
                PLX_ERROR_INCONSISTENT, "strategy.sequence_parallel", "1000", "tp=16");
}

static void
test_ep_dense (void)
{
  EXPECT_ERROR (GPT2, A100_8, "{\"ep\": 2, \"global_batch_size\": 8}", PLX_ERROR_INCONSISTENT,
                "strategy.ep: 2", "gpt2", "no experts");
}

static void
test_ep_experts (void)
{
  EXPECT_ERROR (MIXTRAL, A100_8, "{\"ep\": 3, \"seq_length\": 4096, \"global_batch_size\": 8}",
                PLX_ERROR_INCONSISTENT, "strategy.ep: 3", "8 experts");
}

static void
test_ep_dp (void)
{
  /* tp 2 on 8 GPUs: dp 4, which ep 8 does not divide. */
  EXPECT_ERROR (MIXTRAL, A100_8, "{\"tp\": 2, \"ep\": 8, \"seq_length\": 4096, \"global_batch_size\": 8}",
                PLX_ERROR_INCONSISTENT, "strategy.ep: 8", "dp x cp = 4 x 1");
  /* cp 2 on 8 GPUs: dp 4, and the experts spread over dp x cp = 8 ranks, as
   * Megatron-Core spreads them; their all-to-all runs over all 8 GPUs of the node. */
  {
    g_autoptr (PlxScenario) sc = expect_ok (MIXTRAL, A100_8, "{\"cp\": 2, \"ep\": 8, \"seq_length\": 4096, \"global_batch_size\": 8}");
    g_assert_cmpuint (sc->strategy->dp, ==, 4);
  }
}

static void
test_moe_keys (void)
{
  /* Both keys describe the busiest rank's load, one with drops and one without. */
  EXPECT_ERROR (MIXTRAL, A100_8,
                "{\"ep\": 8, \"moe_capacity_factor\": 1.25, \"moe_load_imbalance\": 1.1,"
                " \"seq_length\": 4096, \"global_batch_size\": 8}",
                PLX_ERROR_INCONSISTENT, "strategy.moe_load_imbalance: 1.1", "moe_capacity_factor is 1.25");
  EXPECT_ERROR (MIXTRAL, A100_8, "{\"ep\": 8, \"moe_capacity_factor\": 0.5, \"seq_length\": 4096, \"global_batch_size\": 8}",
                PLX_ERROR_INVALID_VALUE, "strategy.moe_capacity_factor: 0.5 is below 1", "or 0 for dropless");
  EXPECT_ERROR (MIXTRAL, A100_8, "{\"ep\": 8, \"moe_capacity_factor\": -1, \"seq_length\": 4096, \"global_batch_size\": 8}",
                PLX_ERROR_INVALID_VALUE, "strategy.moe_capacity_factor: -1");
  EXPECT_ERROR (MIXTRAL, A100_8, "{\"ep\": 8, \"moe_load_imbalance\": 65, \"seq_length\": 4096, \"global_batch_size\": 8}",
                PLX_ERROR_INVALID_VALUE, "strategy.moe_load_imbalance", "65");
  EXPECT_ERROR (MIXTRAL, A100_8, "{\"ep\": 8, \"moe_capacity_factor\": \"high\", \"seq_length\": 4096, \"global_batch_size\": 8}",
                PLX_ERROR_PARSE, "strategy.moe_capacity_factor", "\"high\"");
}

static void
test_moe_load (void)
{
  g_autoptr (PlxScenario) sc = expect_ok (MIXTRAL, A100_8, "{\"ep\": 8, \"seq_length\": 4096, \"global_batch_size\": 8}");
  g_autoptr (PlxScenario) zero =
    expect_ok (MIXTRAL, A100_8, "{\"ep\": 8, \"moe_capacity_factor\": 0, \"seq_length\": 4096, \"global_batch_size\": 8}");
  PlxStrategy *s;

  if (sc == NULL)
    return;
  s = sc->strategy;
  /* A capacity factor of 0 is dropless, as no key is. */
  g_assert_nonnull (zero);
  g_assert_cmpfloat (plx_strategy_moe_load (zero->strategy, 8192.0), ==, plx_strategy_moe_load (s, 8192.0));
  /* Random top-2 routing of 4096 tokens per rank over 8 ranks: 8192 routed tokens per
   * rank, binomial variance 8192 x 7/8 = 7168, sd 84.66; the busiest of 8 is
   * sqrt(2 ln 8) = 2.0393 sd above the mean: 1 + 2.0393 x 84.66 / 8192 = 1.02108. */
  g_assert_cmpfloat_with_epsilon (plx_strategy_moe_load (s, 8192.0), 1.02108, 1e-5);
  /* More tokens even it out: at 128 times as many, the excess is sqrt(128) smaller. */
  g_assert_cmpfloat_with_epsilon (plx_strategy_moe_load (s, 8192.0 * 128) - 1.0, 0.02108 / sqrt (128.0), 1e-6);
  /* A stated imbalance replaces the random-routing floor; a capacity factor pads
   * every buffer to it. */
  s->moe_load_imbalance = 1.3;
  g_assert_cmpfloat (plx_strategy_moe_load (s, 8192.0), ==, 1.3);
  s->moe_load_imbalance = 0.0;
  s->moe_capacity_factor = 1.25;
  g_assert_cmpfloat (plx_strategy_moe_load (s, 8192.0), ==, 1.25);
  /* Dropless on one rank: all experts are its own, the grouped GEMM takes every
   * routed token however they spread. A capacity still pads there. */
  s->ep = 1;
  g_assert_cmpfloat (plx_strategy_moe_load (s, 8192.0), ==, 1.25);
  s->moe_capacity_factor = 0.0;
  s->moe_load_imbalance = 1.3;
  g_assert_cmpfloat (plx_strategy_moe_load (s, 8192.0), ==, 1.0);
}

static void
test_fp8_a100 (void)
{
  EXPECT_ERROR (GPT3, A100_64, "{\"tp\": 8, \"pp\": 8, \"dtype\": \"fp8\", \"global_batch_size\": 64}",
                PLX_ERROR_INCONSISTENT, "strategy.dtype", "fp8", "A100-SXM4-80GB");
}

static void
test_inference (void)
{
  /* Serving models tp, pp and dp (docs/inference.md); the rest is refused by name. */
  EXPECT_ERROR (MIXTRAL, A100_64, "{\"tp\": 8, \"ep\": 2, \"workload\": \"inference\", \"global_batch_size\": 64}",
                PLX_ERROR_UNSUPPORTED, "strategy.ep", "expert parallelism");
  EXPECT_ERROR (GPT3, A100_64, "{\"tp\": 8, \"workload\": \"inference\", \"global_batch_size\": 63}",
                PLX_ERROR_INCONSISTENT, "strategy.global_batch_size", "63 sequences do not split over dp = 8");
  EXPECT_ERROR (GPT3, A100_64, "{\"tp\": 8, \"prompt_length\": 100, \"global_batch_size\": 64}",
                PLX_ERROR_INCONSISTENT, "strategy.prompt_length", "workload \"inference\"");
  /* GPT-2 has 1024 learned positions: a 1000-token prompt leaves no room for 100 more. */
  EXPECT_ERROR (GPT2, A100_64, "{\"tp\": 1, \"workload\": \"inference\", \"global_batch_size\": 64, "
                "\"prompt_length\": 1000, \"decode_tokens\": 100}",
                PLX_ERROR_INCONSISTENT, "strategy.seq_length", "1100", "1024 learned positions");
}

static void
test_schedule_file (void)
{
  /* A schedule file resolves, relative to the scenario's folder; the analytical
   * engine has no closed form for it and says so, naming the file. */
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data (
    "{\"model\": " GPT3 ", \"cluster\": " A100_64 ","
    " \"strategy\": {\"tp\": 8, \"pp\": 8, \"schedule\": \"schedules/zb-v.json\", \"global_batch_size\": 64}}",
    -1, "test.json", &error);
  g_autoptr (PlxScenario) sc = plx_scenario_new_from_json (node, "/data/runs", "test.json", &error);
  PlxReport r;

  g_assert_no_error (error);
  g_assert_nonnull (sc);
  if (sc == NULL)
    return;
  g_assert_cmpint (sc->strategy->schedule, ==, PLX_SCHEDULE_FILE);
  g_assert_cmpstr (sc->strategy->schedule_path, ==, "/data/runs/schedules/zb-v.json");
  g_assert_false (plx_analytic_run (sc->model, sc->cluster, sc->strategy, &r, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "schedules/zb-v.json"));
}

static void
test_schedule_file_parsed (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data ("{\"schedule\": \"zb.json\"}", -1, "direct", &error);
  g_autoptr (PlxStrategy) s = NULL;

  g_assert_no_error (error);
  s = plx_strategy_new_from_json (node, "direct", &error);
  g_assert_no_error (error);
  g_assert_nonnull (s);
  g_assert_cmpint (s->schedule, ==, PLX_SCHEDULE_FILE);
  g_assert_cmpstr (s->schedule_path, ==, "zb.json");
}

/* ---- positive cases ---------------------------------------------------------- */

static void
test_defaults (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data ("{}", -1, "direct", &error);
  g_autoptr (PlxStrategy) s = NULL;

  g_assert_no_error (error);
  s = plx_strategy_new_from_json (node, "direct", &error);
  g_assert_no_error (error);
  g_assert_cmpint (s->workload, ==, PLX_WORKLOAD_TRAINING);
  g_assert_cmpuint (s->seq_length, ==, 0);
  g_assert_cmpuint (s->global_batch_size, ==, 0);
  g_assert_cmpuint (s->micro_batch_size, ==, 1);
  g_assert_cmpuint (s->dp, ==, 0);
  g_assert_cmpuint (s->tp, ==, 1);
  g_assert_cmpuint (s->pp, ==, 1);
  g_assert_cmpuint (s->cp, ==, 1);
  g_assert_cmpuint (s->ep, ==, 1);
  g_assert_cmpuint (s->virtual_stages, ==, 1);
  g_assert_false (s->sequence_parallel);
  g_assert_cmpint (s->schedule, ==, PLX_SCHEDULE_1F1B);
  g_assert_cmpint (s->recompute, ==, PLX_RECOMPUTE_NONE);
  g_assert_cmpuint (s->zero_stage, ==, 0);
  g_assert_cmpint (s->dtype, ==, PLX_DTYPE_BF16);
  g_assert_true (s->overlap_dp_comm);
  /* Megatron-LM's bucket: max(40M, 1M x dp) fp32 gradients - 160 MB up to dp 40,
   * 192 MB at dp 48. */
  g_assert_cmpuint (s->grad_bucket_bytes, ==, PLX_GRAD_BUCKET_AUTO);
  s->dp = 8;
  g_assert_cmpuint (plx_strategy_get_grad_bucket_bytes (s), ==, 160000000);
  s->dp = 48;
  g_assert_cmpuint (plx_strategy_get_grad_bucket_bytes (s), ==, 192000000);
  s->dtype = PLX_DTYPE_FP16;
  g_assert_cmpuint (plx_strategy_get_grad_bucket_bytes (s), ==, 96000000);
  s->grad_bucket_bytes = 25000000;
  g_assert_cmpuint (plx_strategy_get_grad_bucket_bytes (s), ==, 25000000);
}

static void
test_all_keys_parsed (void)
{
  g_autoptr (PlxScenario) sc =
    expect_ok (GPT3, A100_64,
               "{\"workload\": \"training\", \"seq_length\": 2048, \"global_batch_size\": 128,"
               " \"micro_batch_size\": 2, \"dp\": 1, \"tp\": 8, \"pp\": 8, \"cp\": 1, \"ep\": 1,"
               " \"sequence_parallel\": true, \"schedule\": \"interleaved-1f1b\", \"virtual_stages\": 4,"
               " \"recompute\": \"full\", \"zero_stage\": 3, \"dtype\": \"fp16\","
               " \"overlap_dp_comm\": false, \"grad_bucket_bytes\": 2.5e7}");
  const PlxStrategy *s;

  if (sc == NULL)
    return;
  s = sc->strategy;
  g_assert_cmpuint (s->seq_length, ==, 2048);
  g_assert_cmpuint (s->global_batch_size, ==, 128);
  g_assert_cmpuint (s->micro_batch_size, ==, 2);
  g_assert_cmpuint (s->dp, ==, 1);
  g_assert_cmpuint (s->tp, ==, 8);
  g_assert_cmpuint (s->pp, ==, 8);
  g_assert_true (s->sequence_parallel);
  g_assert_cmpint (s->schedule, ==, PLX_SCHEDULE_INTERLEAVED_1F1B);
  g_assert_cmpuint (s->virtual_stages, ==, 4);
  g_assert_cmpint (s->recompute, ==, PLX_RECOMPUTE_FULL);
  g_assert_cmpuint (s->zero_stage, ==, 3);
  g_assert_cmpint (s->dtype, ==, PLX_DTYPE_FP16);
  g_assert_false (s->overlap_dp_comm);
  g_assert_cmpuint (s->grad_bucket_bytes, ==, 25000000);
  g_assert_cmpuint (plx_strategy_get_n_micro_batches (s), ==, 64);
}

static void
test_dp_derived (void)
{
  g_autoptr (PlxScenario) sc = expect_ok (GPT3, A100_64, "{\"tp\": 8, \"pp\": 2, \"global_batch_size\": 64}");

  if (sc == NULL)
    return;
  g_assert_cmpuint (plx_cluster_get_n_gpus (sc->cluster), ==, 64);
  g_assert_cmpuint (sc->strategy->dp, ==, 4);
  g_assert_cmpuint (plx_strategy_get_n_micro_batches (sc->strategy), ==, 16);
}

static void
test_dp_derived_with_cp (void)
{
  /* 64 / (4 * 2 * 2) = 4. */
  g_autoptr (PlxScenario) sc = expect_ok (GPT3, A100_64,
                                          "{\"tp\": 4, \"pp\": 2, \"cp\": 2, \"seq_length\": 2048, \"global_batch_size\": 64}");

  if (sc == NULL)
    return;
  g_assert_cmpuint (sc->strategy->dp, ==, 4);
}

static void
test_dp_explicit_matches (void)
{
  g_autoptr (PlxScenario) sc = expect_ok (GPT3, A100_64, "{\"dp\": 4, \"tp\": 8, \"pp\": 2, \"global_batch_size\": 64}");

  if (sc == NULL)
    return;
  g_assert_cmpuint (sc->strategy->dp, ==, 4);
}

static void
test_seq_length_default_gpt2 (void)
{
  g_autoptr (PlxScenario) sc = expect_ok (GPT2, A100_8, "{\"global_batch_size\": 8}");

  if (sc == NULL)
    return;
  g_assert_cmpuint (sc->strategy->seq_length, ==, 1024);
  g_assert_cmpuint (sc->strategy->dp, ==, 8);
}

static void
test_seq_length_default_llama (void)
{
  g_autoptr (PlxScenario) sc = expect_ok ("{\"preset\": \"llama-2-7b\"}", A100_8, "{\"tp\": 8, \"global_batch_size\": 8}");

  if (sc == NULL)
    return;
  g_assert_cmpuint (sc->strategy->seq_length, ==, 4096);
  g_assert_cmpuint (sc->strategy->dp, ==, 1);
}

static void
test_seq_length_rotary_beyond_positions (void)
{
  /* Rotary models have no position table: a longer sequence is the user's choice. */
  g_autoptr (PlxScenario) sc = expect_ok ("{\"preset\": \"llama-2-7b\"}", A100_8,
                                          "{\"tp\": 8, \"seq_length\": 8192, \"global_batch_size\": 8}");

  if (sc == NULL)
    return;
  g_assert_cmpuint (sc->strategy->seq_length, ==, 8192);
}

static void
test_fp8_h100 (void)
{
  g_autoptr (PlxScenario) sc = expect_ok (GPT3, H100_64, "{\"tp\": 8, \"pp\": 8, \"dtype\": \"fp8\", \"global_batch_size\": 64}");

  if (sc == NULL)
    return;
  g_assert_cmpint (sc->strategy->dtype, ==, PLX_DTYPE_FP8);
}

static void
test_ep_valid (void)
{
  /* 8 GPUs, tp 1: dp 8; ep 8 divides both the 8 experts and dp. */
  g_autoptr (PlxScenario) sc = expect_ok (MIXTRAL, A100_8, "{\"ep\": 8, \"seq_length\": 4096, \"global_batch_size\": 8}");

  if (sc == NULL)
    return;
  g_assert_cmpuint (sc->strategy->ep, ==, 8);
  g_assert_cmpuint (sc->strategy->dp, ==, 8);
}

/* Expert tensor parallelism (Megatron-Core's --expert-tensor-parallel-size): with it
 * left out, EP must divide dp x cp as before; with etp 1 the experts spread over the
 * TP ranks too, so EP 8 fits TP 2 x DP 4; ep x etp must divide tp x dp x cp; a dense
 * model has no experts to split. Written back only when given. */
static void
test_expert_tp (void)
{
  g_autoptr (PlxScenario) sc = expect_ok (MIXTRAL, A100_8,
                                          "{\"tp\": 2, \"ep\": 8, \"etp\": 1, \"sequence_parallel\": true,"
                                          " \"seq_length\": 4096, \"global_batch_size\": 8}");
  g_autoptr (PlxScenario) plain = expect_ok (MIXTRAL, A100_8, "{\"tp\": 2, \"ep\": 4, \"global_batch_size\": 8}");

  EXPECT_ERROR (MIXTRAL, A100_8, "{\"tp\": 2, \"ep\": 8, \"global_batch_size\": 8}", PLX_ERROR_INCONSISTENT,
                "strategy.ep: 8 does not divide dp x cp = 4 x 1", "set etp");
  EXPECT_ERROR (MIXTRAL, A100_8, "{\"tp\": 2, \"ep\": 4, \"etp\": 4, \"global_batch_size\": 8}",
                PLX_ERROR_INCONSISTENT, "strategy.etp: ep x etp = 4 x 4 does not divide tp x dp x cp = 2 x 4 x 1");
  EXPECT_ERROR (GPT3, A100_8, "{\"etp\": 1, \"global_batch_size\": 8}", PLX_ERROR_INCONSISTENT,
                "strategy.etp: 1 needs a mixture-of-experts model");
  EXPECT_ERROR (MIXTRAL, A100_8, "{\"etp\": 0, \"global_batch_size\": 8}", PLX_ERROR_INVALID_VALUE, "strategy.etp");
  EXPECT_ERROR (GPT3, A100_8, "{\"moe_dispatcher\": \"deepep\", \"global_batch_size\": 8}", PLX_ERROR_INCONSISTENT,
                "strategy.moe_dispatcher: \"deepep\" needs a mixture-of-experts model");
  EXPECT_ERROR (MIXTRAL, A100_8, "{\"moe_dispatcher\": \"deep-ep\", \"global_batch_size\": 8}",
                PLX_ERROR_INVALID_VALUE, "strategy.moe_dispatcher", "deep-ep");
  if (sc == NULL || plain == NULL)
    return;
  g_assert_cmpuint (sc->strategy->dp, ==, 4);
  g_assert_cmpuint (plx_strategy_get_expert_tp (sc->strategy), ==, 1);
  g_assert_cmpuint (plx_strategy_get_expert_tp (plain->strategy), ==, 2);
  {
    g_autoptr (JsonNode) a = plx_strategy_to_json (sc->strategy);
    g_autoptr (JsonNode) b = plx_strategy_to_json (plain->strategy);
    g_assert_cmpint (json_object_get_int_member (json_node_get_object (a), "etp"), ==, 1);
    g_assert_false (json_object_has_member (json_node_get_object (b), "etp"));
  }
}

static void
test_interleaved_valid (void)
{
  g_autoptr (PlxScenario) sc =
    expect_ok (GPT3, A100_64,
               "{\"tp\": 8, \"pp\": 8, \"schedule\": \"interleaved-1f1b\", \"virtual_stages\": 3,"
               " \"sequence_parallel\": true, \"global_batch_size\": 64}");

  if (sc == NULL)
    return;
  g_assert_cmpint (sc->strategy->schedule, ==, PLX_SCHEDULE_INTERLEAVED_1F1B);
  g_assert_cmpuint (sc->strategy->virtual_stages, ==, 3);
  g_assert_cmpuint (sc->strategy->dp, ==, 1);
  g_assert_cmpuint (plx_strategy_get_n_micro_batches (sc->strategy), ==, 64);
  g_assert_cmpuint (sc->strategy->seq_length, ==, 2048);
}

static void
test_default_scenario_resolves (void)
{
  g_autoptr (JsonNode) node = plx_scenario_default_json ();
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScenario) sc = plx_scenario_new_from_json (node, ".", "default", &error);

  g_assert_no_error (error);
  g_assert_nonnull (sc);
  if (sc == NULL)
    return;
  g_assert_cmpuint (sc->strategy->dp, ==, 1);
  g_assert_cmpuint (sc->strategy->tp, ==, 8);
  g_assert_cmpuint (sc->strategy->pp, ==, 8);
  g_assert_cmpuint (sc->strategy->global_batch_size, ==, 64);
  g_assert_cmpuint (sc->strategy->seq_length, ==, 2048);
}

static void
test_copy (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data ("{\"schedule\": \"s/x.json\", \"tp\": 4}", -1, "direct", &error);
  g_autoptr (PlxStrategy) s = NULL;
  g_autoptr (PlxStrategy) copy = NULL;

  g_assert_no_error (error);
  s = plx_strategy_new_from_json (node, "direct", &error);
  g_assert_no_error (error);
  copy = plx_strategy_copy (s);
  g_assert_cmpuint (copy->tp, ==, 4);
  g_assert_cmpstr (copy->schedule_path, ==, "s/x.json");
  g_assert_true (copy->schedule_path != s->schedule_path);
}

static void
test_enum_names (void)
{
  g_assert_cmpstr (plx_schedule_to_string (PLX_SCHEDULE_GPIPE), ==, "gpipe");
  g_assert_cmpstr (plx_schedule_to_string (PLX_SCHEDULE_1F1B), ==, "1f1b");
  g_assert_cmpstr (plx_schedule_to_string (PLX_SCHEDULE_INTERLEAVED_1F1B), ==, "interleaved-1f1b");
  g_assert_cmpstr (plx_schedule_to_string (PLX_SCHEDULE_ZERO_BUBBLE_H1), ==, "zero-bubble-h1");
  g_assert_cmpstr (plx_recompute_to_string (PLX_RECOMPUTE_SELECTIVE), ==, "selective");
  g_assert_cmpstr (plx_workload_to_string (PLX_WORKLOAD_INFERENCE), ==, "inference");
}

static PlxStrategy *
parse_direct (const char *json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data (json, -1, "direct", &error);
  PlxStrategy *s;

  g_assert_no_error (error);
  s = plx_strategy_new_from_json (node, "direct", &error);
  g_assert_no_error (error);
  return s;
}

/* A strategy object refused with code, the message naming needle. */
static void
expect_parse_refused (const char *json, PlxError code, const char *needle)
{
  g_autoptr (JsonNode) node = plx_json_parse_data (json, -1, "direct", NULL);
  g_autoptr (GError) e = NULL;
  g_autoptr (PlxStrategy) s = plx_strategy_new_from_json (node, "direct", &e);

  g_assert_null (s);
  g_assert_error (e, PLX_ERROR, (gint) code);
  g_assert_nonnull (strstr (e->message, needle));
}

static void
test_deepspeed (void)
{
  /* DeepSpeed reduces gradients after the backward passes unless the file says
   * otherwise; its BF16 optimizer (bf16, up to ZeRO-1) keeps an fp32 gradient copy. */
  g_autoptr (PlxStrategy) ds = parse_direct ("{\"implementation\": \"deepspeed\", \"zero_stage\": 1}");
  g_autoptr (PlxStrategy) ds_overlap = parse_direct ("{\"implementation\": \"deepspeed\", \"overlap_dp_comm\": true}");
  g_autoptr (PlxStrategy) ds_fp16 = parse_direct ("{\"implementation\": \"deepspeed\", \"dtype\": \"fp16\"}");
  g_autoptr (PlxStrategy) ds_zero2 = parse_direct ("{\"implementation\": \"deepspeed\", \"zero_stage\": 2}");
  g_autoptr (PlxStrategy) megatron = parse_direct ("{\"implementation\": \"megatron\"}");

  g_assert_cmpint (ds->implementation, ==, PLX_IMPLEMENTATION_DEEPSPEED);
  g_assert_cmpstr (plx_implementation_to_string (ds->implementation), ==, "deepspeed");
  g_assert_false (ds->overlap_dp_comm);
  g_assert_true (ds_overlap->overlap_dp_comm);
  g_assert_true (megatron->overlap_dp_comm);
  g_assert_false (plx_strategy_is_pytorch (ds));
  g_assert_true (plx_strategy_accumulates_fp32_copy (ds));
  g_assert_false (plx_strategy_accumulates_fp32_copy (ds_fp16));
  g_assert_false (plx_strategy_accumulates_fp32_copy (ds_zero2));
  g_assert_false (plx_strategy_accumulates_fp32_copy (megatron));
}

/* issue 36: "jax-xla" and "save-dots-except-mlp-input" parse and are written back
 * as they were; "pytorch-eager" is "pytorch" (written "pytorch"); a misspelt value
 * is refused with the key and the value named. */
static void
test_jax_xla_names (void)
{
  g_autoptr (PlxStrategy) jax = parse_direct ("{\"implementation\": \"jax-xla\", \"zero_stage\": 3, "
                                              "\"recompute\": \"save-dots-except-mlp-input\"}");
  g_autoptr (PlxStrategy) eager = parse_direct ("{\"implementation\": \"pytorch-eager\", \"zero_stage\": 3}");
  g_autoptr (PlxStrategy) plain = parse_direct ("{\"implementation\": \"pytorch\"}");
  g_autoptr (JsonNode) written = NULL;
  g_autoptr (PlxStrategy) again = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *o;
  static const char *const misspelt[][2] = {
    { "{\"implementation\": \"jax_xla\"}", "strategy.implementation: \"jax_xla\" is not one of" },
    { "{\"implementation\": \"pytorch-compiled\"}", "strategy.implementation: \"pytorch-compiled\" is not one of" },
    { "{\"implementation\": \"JAX-XLA\"}", "strategy.implementation: \"JAX-XLA\" is not one of" },
    { "{\"recompute\": \"save_dot_except_mlpwi\"}", "strategy.recompute: \"save_dot_except_mlpwi\" is not one of" },
  };

  g_assert_cmpint (jax->implementation, ==, PLX_IMPLEMENTATION_JAX_XLA);
  g_assert_cmpint (jax->recompute, ==, PLX_RECOMPUTE_SAVE_DOTS_EXCEPT_MLP_INPUT);
  /* XLA fuses: not eager PyTorch, even under ZeRO-3 (which "auto" reads as PyTorch). */
  g_assert_false (plx_strategy_is_pytorch (jax));
  g_assert_cmpint (eager->implementation, ==, PLX_IMPLEMENTATION_PYTORCH);
  g_assert_cmpint (plain->implementation, ==, PLX_IMPLEMENTATION_PYTORCH);
  g_assert_true (plx_strategy_is_pytorch (eager));
  g_assert_cmpstr (plx_implementation_to_string (PLX_IMPLEMENTATION_JAX_XLA), ==, "jax-xla");
  g_assert_cmpstr (plx_implementation_to_string (PLX_IMPLEMENTATION_PYTORCH_COMPILE), ==, "pytorch-compile");
  g_assert_cmpstr (plx_recompute_to_string (PLX_RECOMPUTE_SAVE_DOTS_EXCEPT_MLP_INPUT), ==, "save-dots-except-mlp-input");

  written = plx_strategy_to_json (jax);
  o = json_node_get_object (written);
  g_assert_cmpstr (json_object_get_string_member (o, "implementation"), ==, "jax-xla");
  g_assert_cmpstr (json_object_get_string_member (o, "recompute"), ==, "save-dots-except-mlp-input");
  again = plx_strategy_new_from_json (written, "written", &error);
  g_assert_no_error (error);
  g_assert_cmpint (again->implementation, ==, PLX_IMPLEMENTATION_JAX_XLA);
  g_assert_cmpint (again->recompute, ==, PLX_RECOMPUTE_SAVE_DOTS_EXCEPT_MLP_INPUT);
  g_clear_pointer (&written, json_node_unref);
  written = plx_strategy_to_json (eager);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (written), "implementation"), ==, "pytorch");

  for (guint i = 0; i < G_N_ELEMENTS (misspelt); i++)
    expect_parse_refused (misspelt[i][0], PLX_ERROR_INVALID_VALUE, misspelt[i][1]);
}

/* The fused attention kernel by name: parsed, written back only when named, and a
 * named kernel is fused (flash_attention on), unless the file turns it off, which is
 * refused with both keys named; a misspelt kernel is refused with its value. */
static void
test_attention_kernel (void)
{
  g_autoptr (PlxStrategy) triton = parse_direct ("{\"attention_kernel\": \"triton\"}");
  g_autoptr (PlxStrategy) fa1 = parse_direct ("{\"attention_kernel\": \"flash-attention-1\", \"flash_attention\": true}");
  g_autoptr (PlxStrategy) plain = parse_direct ("{\"flash_attention\": true}");
  g_autoptr (JsonNode) written = plx_strategy_to_json (triton);
  g_autoptr (JsonNode) written_plain = plx_strategy_to_json (plain);
  g_autoptr (PlxStrategy) again = NULL;
  g_autoptr (GError) error = NULL;
  static const char *const refused[][3] = {
    { "{\"attention_kernel\": \"cudnn\", \"flash_attention\": false}",
      "strategy.attention_kernel: \"cudnn\" is a fused attention kernel, but flash_attention is false", "c" },
    { "{\"attention_kernel\": \"flash-attention-3\"}", "strategy.attention_kernel: \"flash-attention-3\" is not one of "
      "auto, cudnn, flash-attention-2, flash-attention-1, triton", "v" },
  };

  g_assert_cmpint (triton->attention_kernel, ==, PLX_ATTENTION_KERNEL_TRITON);
  g_assert_true (triton->flash_attention);
  g_assert_cmpint (fa1->attention_kernel, ==, PLX_ATTENTION_KERNEL_FLASH_ATTENTION_1);
  g_assert_cmpint (plain->attention_kernel, ==, PLX_ATTENTION_KERNEL_AUTO);
  g_assert_cmpstr (plx_attention_kernel_to_string (PLX_ATTENTION_KERNEL_FLASH_ATTENTION_2), ==, "flash-attention-2");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (written), "attention_kernel"), ==, "triton");
  g_assert_false (json_object_has_member (json_node_get_object (written_plain), "attention_kernel"));
  again = plx_strategy_new_from_json (written, "written", &error);
  g_assert_no_error (error);
  g_assert_cmpint (again->attention_kernel, ==, PLX_ATTENTION_KERNEL_TRITON);

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    expect_parse_refused (refused[i][0], refused[i][2][0] == 'c' ? PLX_ERROR_INCONSISTENT : PLX_ERROR_INVALID_VALUE,
                          refused[i][1]);
}

/* cross_entropy_fusion: parsed, written back only when fused, refused when misspelt;
 * grad_dtype the same way. */
static void
test_loss_fusion_and_grad_dtype (void)
{
  g_autoptr (PlxStrategy) te = parse_direct ("{\"cross_entropy_fusion\": \"te\", \"grad_dtype\": \"bf16\"}");
  g_autoptr (PlxStrategy) plain = parse_direct ("{}");
  g_autoptr (JsonNode) written = plx_strategy_to_json (te);
  g_autoptr (JsonNode) written_plain = plx_strategy_to_json (plain);
  static const char *const refused[][2] = {
    { "{\"cross_entropy_fusion\": \"fused\"}", "strategy.cross_entropy_fusion: \"fused\" is not one of none, native, te" },
    { "{\"grad_dtype\": \"fp16\"}", "strategy.grad_dtype: \"fp16\" is not one of auto, fp32, bf16" },
  };

  g_assert_cmpint (te->cross_entropy_fusion, ==, PLX_CROSS_ENTROPY_TE);
  g_assert_cmpint (te->grad_dtype, ==, PLX_GRAD_DTYPE_BF16);
  g_assert_cmpint (plain->cross_entropy_fusion, ==, PLX_CROSS_ENTROPY_UNFUSED);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (written), "cross_entropy_fusion"), ==, "te");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (written), "grad_dtype"), ==, "bf16");
  g_assert_false (json_object_has_member (json_node_get_object (written_plain), "cross_entropy_fusion"));
  g_assert_false (json_object_has_member (json_node_get_object (written_plain), "grad_dtype"));
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    expect_parse_refused (refused[i][0], PLX_ERROR_INVALID_VALUE, refused[i][1]);
}

/* The override rules every front end shares (plx-strategy-changes.c), on one
 * strategy: dp 2, tp 4, pp 8, a per-stage layer list and a first-stage count. */
static char *
changed (const char *changes_json, gboolean gpus_changed)
{
  g_autoptr (JsonNode) strategy = plx_json_parse_data ("{ \"dp\": 2, \"tp\": 4, \"pp\": 8, \"first_stage_layers\": 3, "
                                                        "\"layers_per_stage\": [3, 4, 4, 4, 4, 4, 4, 5] }", -1, "s", NULL);
  g_autoptr (JsonNode) changes = plx_json_parse_data (changes_json, -1, "c", NULL);

  plx_strategy_json_apply_changes (json_node_get_object (strategy), json_node_get_object (changes), gpus_changed);
  return json_to_string (strategy, FALSE);
}

static void
test_apply_changes (void)
{
  g_autofree char *mbs = changed ("{ \"micro_batch_size\": 2 }", FALSE);
  g_autofree char *tp = changed ("{ \"tp\": 2 }", FALSE);
  g_autofree char *tp_dp = changed ("{ \"tp\": 2, \"dp\": 4 }", FALSE);
  g_autofree char *nodes = changed ("{ \"micro_batch_size\": 2 }", TRUE);
  g_autofree char *pp = changed ("{ \"pp\": 4 }", FALSE);
  g_autofree char *pp_first = changed ("{ \"pp\": 4, \"first_stage_layers\": 6 }", FALSE);
  g_autofree char *pp_auto = changed ("{ \"pp\": 4, \"layers_per_stage\": \"auto\" }", FALSE);

  /* A key that is not a degree changes only itself. */
  g_assert_cmpstr (mbs, ==, "{\"dp\":2,\"tp\":4,\"pp\":8,\"first_stage_layers\":3,"
                            "\"layers_per_stage\":[3,4,4,4,4,4,4,5],\"micro_batch_size\":2}");
  /* A new degree: dp is derived again, unless given with it. */
  g_assert_cmpstr (tp, ==, "{\"tp\":2,\"pp\":8,\"first_stage_layers\":3,\"layers_per_stage\":[3,4,4,4,4,4,4,5]}");
  g_assert_cmpstr (tp_dp, ==, "{\"dp\":4,\"tp\":2,\"pp\":8,\"first_stage_layers\":3,"
                              "\"layers_per_stage\":[3,4,4,4,4,4,4,5]}");
  /* Another GPU count (a new cluster or --nodes) too. */
  g_assert_cmpstr (nodes, ==, "{\"tp\":4,\"pp\":8,\"first_stage_layers\":3,\"layers_per_stage\":[3,4,4,4,4,4,4,5],"
                              "\"micro_batch_size\":2}");
  /* A new pipeline: the 8 per-stage counts and the first stage's go, unless given. */
  g_assert_cmpstr (pp, ==, "{\"tp\":4,\"pp\":4}");
  g_assert_cmpstr (pp_first, ==, "{\"tp\":4,\"pp\":4,\"first_stage_layers\":6}");
  g_assert_cmpstr (pp_auto, ==, "{\"tp\":4,\"pp\":4,\"first_stage_layers\":3,\"layers_per_stage\":\"auto\"}");
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  /* A failed check marks its test failed and lets the others run. */
  g_test_set_nonfatal_assertions ();

  add_number_key_cases ();

  g_test_add_func ("/strategy/error/not-object", test_strategy_not_object);
  g_test_add_func ("/strategy/error/missing", test_strategy_missing);
  g_test_add_func ("/strategy/error/direct-source", test_strategy_new_from_json_direct);
  g_test_add_func ("/strategy/error/tp-heads", test_tp_heads);
  g_test_add_func ("/strategy/error/tp-kv-heads", test_tp_kv_heads);
  g_test_add_func ("/strategy/error/tp-ffn", test_tp_ffn);
  g_test_add_func ("/strategy/error/pp-above-layers", test_pp_above_layers);
  g_test_add_func ("/strategy/layers-per-stage", test_layers_per_stage);
  g_test_add_func ("/strategy/error/virtual-stages-without-interleaved", test_virtual_stages_without_interleaved);
  g_test_add_func ("/strategy/error/interleaved-one-chunk", test_interleaved_one_chunk);
  g_test_add_func ("/strategy/error/interleaved-pp1", test_interleaved_pp1);
  g_test_add_func ("/strategy/error/interleaved-micro-batches", test_interleaved_micro_batches);
  g_test_add_func ("/strategy/error/gpu-count", test_gpu_count);
  g_test_add_func ("/strategy/error/gpu-count-not-divisible", test_gpu_count_not_divisible);
  g_test_add_func ("/strategy/error/gpu-count-product-overflow", test_gpu_count_product_overflow);
  g_test_add_func ("/strategy/error/global-batch-multiple", test_global_batch_multiple);
  g_test_add_func ("/strategy/error/global-batch-missing", test_global_batch_missing);
  g_test_add_func ("/strategy/error/seq-length-above-positions", test_seq_length_above_positions);
  g_test_add_func ("/strategy/error/cp-seq-length", test_cp_seq_length);
  g_test_add_func ("/strategy/error/sequence-parallel-split", test_sequence_parallel_split);
  g_test_add_func ("/strategy/error/ep-dense", test_ep_dense);
  g_test_add_func ("/strategy/error/ep-experts", test_ep_experts);
  g_test_add_func ("/strategy/error/moe-keys", test_moe_keys);
  g_test_add_func ("/strategy/moe-load", test_moe_load);
  g_test_add_func ("/strategy/error/ep-dp", test_ep_dp);
  g_test_add_func ("/strategy/error/fp8-a100", test_fp8_a100);
  g_test_add_func ("/strategy/error/inference", test_inference);
  g_test_add_func ("/strategy/error/schedule-file", test_schedule_file);

  g_test_add_func ("/strategy/parse/defaults", test_defaults);
  g_test_add_func ("/strategy/parse/all-keys", test_all_keys_parsed);
  g_test_add_func ("/strategy/parse/schedule-file", test_schedule_file_parsed);
  g_test_add_func ("/strategy/parse/copy", test_copy);
  g_test_add_func ("/strategy/parse/enum-names", test_enum_names);
  g_test_add_func ("/strategy/parse/deepspeed", test_deepspeed);
  g_test_add_func ("/strategy/parse/jax-xla", test_jax_xla_names);
  g_test_add_func ("/strategy/parse/attention-kernel", test_attention_kernel);
  g_test_add_func ("/strategy/parse/loss-fusion-grad-dtype", test_loss_fusion_and_grad_dtype);
  g_test_add_func ("/strategy/resolve/zero-layer-chunks", test_zero_layer_chunks);
  g_test_add_func ("/strategy/resolve/dp-derived", test_dp_derived);
  g_test_add_func ("/strategy/resolve/dp-derived-with-cp", test_dp_derived_with_cp);
  g_test_add_func ("/strategy/resolve/dp-explicit", test_dp_explicit_matches);
  g_test_add_func ("/strategy/resolve/seq-length-default-gpt2", test_seq_length_default_gpt2);
  g_test_add_func ("/strategy/resolve/seq-length-default-llama", test_seq_length_default_llama);
  g_test_add_func ("/strategy/resolve/seq-length-rotary", test_seq_length_rotary_beyond_positions);
  g_test_add_func ("/strategy/resolve/fp8-h100", test_fp8_h100);
  g_test_add_func ("/strategy/resolve/ep-valid", test_ep_valid);
  g_test_add_func ("/strategy/resolve/expert-tp", test_expert_tp);
  g_test_add_func ("/strategy/resolve/interleaved-valid", test_interleaved_valid);
  g_test_add_func ("/strategy/resolve/default-scenario", test_default_scenario_resolves);
  g_test_add_func ("/strategy/apply-changes", test_apply_changes);

  return g_test_run ();
}
