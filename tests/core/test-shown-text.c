/* What users read, in the window and the CLI alike (issue 34): parameter counts in
 * units that fit, integers past 64 bits in JSON quoted as written (json-glib reads
 * them as -1 or INT64_MIN), and the event engine's refusal of too many passes naming
 * what the strategy can change, not an engine the window does not offer. */
#include <string.h>

#include "parallax/parallax.h"

#include "test-util.h"

/* Three significant digits in the unit that fits (k, M, B, T at 1e3, 1e6, 1e9, 1e12):
 * OPT-125M's parameters (Zhang et al. 2022, Table 1, "125M": embeddings 50272 x 768
 * + 2050 x 768 positions, 12 layers of 7,087,872, a final LayerNorm of 1536 =
 * 125,239,296) are "125 M", not "0.13 B"; GPT-2 small's 124,439,808 "124 M"; Llama 2 7B's 6,738,415,616
 * "6.74 B"; GPT-3's 174.6 B "175 B"; Megatron-1T's 1.008e12 "1.01 T". 999,700,000 rounds
 * to 1000 M, a fourth digit: "1.00 B". Below a thousand, the count itself. */
static void
test_param_counts (void)
{
  static const struct { guint64 n; const char *text; } cases[] = {
    { 125239296, "125 M" },
    { 124439808, "124 M" },
    { G_GUINT64_CONSTANT (6738415616), "6.74 B" },
    { G_GUINT64_CONSTANT (174600000000), "175 B" },
    { G_GUINT64_CONSTANT (1008000000000), "1.01 T" },
    { 999700000, "1.00 B" },
    { 1500, "1.50 k" },
    { 999, "999" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = plx_model_format_params (cases[i].n);
      g_assert_cmpstr (text, ==, cases[i].text);
    }
  {
    /* The preset as the CLI and the window show it: GPT-2 small, 124,439,808
     * (Radford et al. 2019, "124M" as Hugging Face's model card counts it). */
    g_autoptr (PlxModel) m = plx_model_new_preset ("gpt2", NULL);
    g_autofree char *text = plx_model_format_params (plx_model_get_n_params (m));
    g_assert_cmpstr (text, ==, "124 M");
  }
}

/* 99999999999999999999 is past 2^64; json-glib 1.6 read it as -1, and 2^63 =
 * 9223372036854775808 as INT64_MIN, and the reader then said "-1 is out of range".
 * Both are refused at parsing, quoted as written, with the path of their key. The
 * largest int64 and the smallest still parse, and a double's exponent digits are no
 * integer. */
static void
test_big_integers (void)
{
  static const struct { const char *json, *message; } refused[] = {
    { "{ \"strategy\": { \"global_batch_size\": 99999999999999999999 } }",
      "test: strategy.global_batch_size: 99999999999999999999 is out of range" },
    { "{ \"strategy\": { \"tp\": 9223372036854775808 } }", "test: strategy.tp: 9223372036854775808 is out of range" },
    { "{ \"a\": [1, 2, -9223372036854775809] }", "test: a[2]: -9223372036854775809 is out of range" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (JsonNode) node = plx_json_parse_data (refused[i].json, -1, "test", &error);
      g_assert_null (node);
      g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
      g_assert_true (g_str_has_prefix (error->message, refused[i].message));
    }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) node = plx_json_parse_data (
      "{ \"max\": 9223372036854775807, \"min\": -9223372036854775808, \"d\": 1e99999999999999999999, \"s\": \"99999999999999999999\" }",
      -1, "test", &error);
    JsonObject *o;

    g_assert_no_error (error);
    o = json_node_get_object (node);
    g_assert_cmpint (json_object_get_int_member (o, "max"), ==, G_MAXINT64);
    g_assert_cmpint (json_object_get_int_member (o, "min"), ==, G_MININT64);
    g_assert_cmpstr (json_object_get_string_member (o, "s"), ==, "99999999999999999999");
  }
}

/* GPT-2 with TP 4 x PP 2 on one 8-GPU node is DP 1: a global batch of 2,500,000 at
 * micro-batch 1 is 2,500,000 micro-batches x 2 stages = 5 million passes, past the
 * event engine's 4 million. The window runs the event engine and has no other: the
 * message names what the strategy can change, and no engine. */
static void
test_too_many_passes (void)
{
  g_autoptr (PlxScenario) sc = test_scenario_from_string (
    "{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 },"
    "  \"strategy\": { \"tp\": 4, \"pp\": 2, \"schedule\": \"1f1b\", \"micro_batch_size\": 1,"
    "                \"global_batch_size\": 2500000 } }");
  g_autoptr (GError) error = NULL;
  PlxReport r;

  g_assert_true (plx_sim_too_many_passes (sc->strategy));
  g_assert_false (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &r, NULL, NULL, NULL, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED);
  g_assert_cmpstr (error->message, ==,
                   "strategy: 2500000 micro-batches x 2 stages x 1 chunks is more than the event engine's 4 million "
                   "passes; a larger micro-batch size or a smaller global batch size makes fewer micro-batches");
  g_assert_null (strstr (error->message, "analytical"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/shown-text/param-counts", test_param_counts);
  g_test_add_func ("/core/shown-text/big-integers", test_big_integers);
  g_test_add_func ("/core/shown-text/too-many-passes", test_too_many_passes);
  return g_test_run ();
}
