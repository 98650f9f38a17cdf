/* Serving a transformer (docs/inference.md): the KV cache and the weights counted by
 * hand, the decode step's growth with the context derived from the roofline on an
 * ideal node, and what tensor parallelism does to a decode step. */
#include <string.h>

#include "parallax/parallax.h"

#include "test-util.h"

static PlxScenario *
scenario (const char *model, const char *cluster, const char *strategy)
{
  g_autofree char *text = g_strdup_printf ("{ \"model\": %s, \"cluster\": %s, \"strategy\": %s }", model, cluster,
                                           strategy);
  return test_scenario_from_string (text);
}

static void
run (const PlxScenario *sc, PlxInferenceReport *r)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (plx_inference_run (sc->model, sc->cluster, sc->strategy, r, &error));
  g_assert_no_error (error);
}

static void
test_memory (void)
{
  /* Llama 3 8B (32 layers, 8 key-value heads of 128) at TP 2, 8 sequences a replica
   * of 1024 + 256 tokens: each token's keys and values on a GPU are 2 x 4 heads x
   * 128 x 2 B = 2,048 B a layer; x 32 layers x 1,280 tokens x 8 sequences =
   * 671,088,640 B. At TP 1 one GPU holds every weight: 2 B a parameter. */
  g_autoptr (PlxScenario) tp2 = scenario ("{\"preset\": \"llama-3-8b\"}", "{\"preset\": \"dgx-a100-80gb\"}",
                                          "{\"workload\": \"inference\", \"tp\": 2, \"pp\": 1, \"global_batch_size\": 32, "
                                          "\"prompt_length\": 1024, \"decode_tokens\": 256}");
  g_autoptr (PlxScenario) tp1 = scenario ("{\"preset\": \"llama-3-8b\"}", "{\"preset\": \"dgx-a100-80gb\"}",
                                          "{\"workload\": \"inference\", \"tp\": 1, \"pp\": 1, \"global_batch_size\": 8}");
  PlxInferenceReport r;

  run (tp2, &r);
  g_assert_cmpuint (r.batch_per_replica, ==, 8);
  g_assert_cmpfloat (r.kv_cache_bytes, ==, 671088640.0);
  run (tp1, &r);
  g_assert_cmpfloat (r.weights_bytes, ==, 2.0 * plx_model_get_n_params (tp1->model));
  /* the defaults: 512-token prompts, 128 generated */
  g_assert_cmpuint (tp1->strategy->prompt_length, ==, 512);
  g_assert_cmpuint (tp1->strategy->decode_tokens, ==, 128);
  g_assert_cmpfloat (r.tokens_per_s, ==, 8.0 * 128 / r.decode_time_s);
}

static void
test_decode_growth (void)
{
  /* On an ideal node (1e14 FLOP/s, 1e12 B/s, no launch cost) a decode step of one
   * sequence of Llama 3 8B reads, per layer, the cache of every earlier token:
   * 4,096 B each (2 x 8 heads x 128 x 2 B) against 16,384 FLOPs (4 x 32 heads x 128),
   * memory-bound. Only attention grows with the context, so the second step takes
   * 32 layers x 4,096 B / 1e12 B/s = 0.131072 us longer than the first (Pope et al.
   * 2022 §2). */
  const char *cluster = TEST_IDEAL_CLUSTER (1, 1e11, 1e10);
  g_autoptr (PlxScenario) one = scenario ("{\"preset\": \"llama-3-8b\"}", cluster,
                                          "{\"workload\": \"inference\", \"tp\": 1, \"pp\": 1, \"dp\": 8, "
                                          "\"global_batch_size\": 8, \"prompt_length\": 100, \"decode_tokens\": 1}");
  g_autoptr (PlxScenario) two = scenario ("{\"preset\": \"llama-3-8b\"}", cluster,
                                          "{\"workload\": \"inference\", \"tp\": 1, \"pp\": 1, \"dp\": 8, "
                                          "\"global_batch_size\": 8, \"prompt_length\": 100, \"decode_tokens\": 2}");
  PlxInferenceReport r1, r2;

  run (one, &r1);
  run (two, &r2);
  g_assert_cmpfloat_with_epsilon (r2.decode_time_s - 2.0 * r1.decode_time_s, 32.0 * 4096.0 / 1e12, 1e-15);
  /* A step reads every weight once but the embedding table, of which it looks up
   * one row: at least (16,060,522,496 - 128,256 x 4,096 x 2 B) / 1e12 B/s. */
  g_assert_cmpfloat (r1.decode_time_per_token_s, >=,
                     (r1.weights_bytes - 2.0 * (double) one->model->vocab * (double) one->model->hidden) / 1e12);
}

static void
test_tensor_parallel_decode (void)
{
  /* Llama 3 70B, one sequence: a decode step reads the weights, so eight GPUs
   * sharing them (TP 8 over NVLink) take less than a quarter of one GPU's step even
   * with the two all-reduces a block. */
  g_autoptr (PlxScenario) tp1 = scenario ("{\"preset\": \"llama-3-70b\"}", "{\"preset\": \"dgx-h100-80gb\"}",
                                          "{\"workload\": \"inference\", \"tp\": 1, \"pp\": 1, \"global_batch_size\": 8}");
  g_autoptr (PlxScenario) tp8 = scenario ("{\"preset\": \"llama-3-70b\"}", "{\"preset\": \"dgx-h100-80gb\"}",
                                          "{\"workload\": \"inference\", \"tp\": 8, \"pp\": 1, \"global_batch_size\": 1}");
  PlxInferenceReport r1, r8;

  run (tp1, &r1);
  run (tp8, &r8);
  g_assert_false (r1.fits_in_memory);   /* 141 GB of weights on an 80 GB GPU */
  g_assert_true (r8.fits_in_memory);
  g_assert_cmpfloat (r8.decode_time_per_token_s, <, r1.decode_time_per_token_s / 4.0);
}

/* A sliding window caps the KV cache where it applies (Mistral 7B's rolling buffer,
 * Jiang et al. 2023 §2): Mistral 7B's shape (32 blocks, 8 key-value heads of 128)
 * with a 1024-token window, 8 sequences a replica of 2048 + 128 tokens at TP 1: each
 * cached token is 2 x 8 x 128 x 2 B = 4,096 B a block, and a block keeps 1,024 of the
 * 2,176: 8 x 1,024 x 4,096 x 32 = 1,073,741,824 B. With the window on every other
 * block (Gemma 2's pattern) half the blocks keep all 2,176: (1,024 + 2,176) / 2 =
 * 1,600 tokens a block on average, 1,677,721,600 B. */
static void
test_sliding_window_cache (void)
{
  const char *every = "{\"model_type\": \"mistral\", \"hidden_size\": 4096, \"intermediate_size\": 14336,"
                      " \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"num_hidden_layers\": 32,"
                      " \"vocab_size\": 32000, \"sliding_window\": 1024}";
  const char *alternate = "{\"model_type\": \"mistral\", \"hidden_size\": 4096, \"intermediate_size\": 14336,"
                          " \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"num_hidden_layers\": 32,"
                          " \"vocab_size\": 32000, \"sliding_window\": 1024, \"layer_types\": [" 
                          "\"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\"]}";
  const char *strategy = "{\"workload\": \"inference\", \"tp\": 1, \"pp\": 1, \"global_batch_size\": 64, "
                         "\"prompt_length\": 2048, \"decode_tokens\": 128}";
  g_autoptr (PlxScenario) all = scenario (every, "{\"preset\": \"dgx-h100-80gb\"}", strategy);
  g_autoptr (PlxScenario) half = scenario (alternate, "{\"preset\": \"dgx-h100-80gb\"}", strategy);
  PlxInferenceReport r;

  run (all, &r);
  g_assert_cmpuint (r.batch_per_replica, ==, 8);
  g_assert_cmpfloat (r.kv_cache_bytes, ==, 1073741824.0);
  run (half, &r);
  g_assert_cmpfloat (r.kv_cache_bytes, ==, 1677721600.0);
}

/* A Mamba-2 model generates with a state of fixed size in place of a KV cache
 * (Dao and Gu 2024 §6; transformers' Mamba2Cache): per block and sequence the scan's
 * 128 heads x 64 x 128 = 1,048,576 values and the convolution's 4 taps of
 * 8192 + 2 x 8 x 128 = 10,240 channels, 1,089,536 values of 2 B. Mamba-Codestral's
 * shape (64 blocks) at TP 2, 8 sequences a replica: 1,089,536 / 2 x 2 B x 64 x 8 =
 * 557,842,432 B, whatever the context; and the second decode step on an ideal node
 * costs no more than the first (nothing grows), unlike attention's. */
static void
test_ssm_state (void)
{
  const char *mamba2 = "{\"model_type\": \"mamba2\", \"hidden_size\": 4096, \"num_hidden_layers\": 64, \"num_heads\": 128,"
                       " \"head_dim\": 64, \"state_size\": 128, \"expand\": 2, \"n_groups\": 8, \"conv_kernel\": 4,"
                       " \"chunk_size\": 256, \"vocab_size\": 32768}";
  const char *cluster = TEST_IDEAL_CLUSTER (1, 1e11, 1e10);
  g_autoptr (PlxScenario) tp2 = scenario (mamba2, "{\"preset\": \"dgx-a100-80gb\"}",
                                          "{\"workload\": \"inference\", \"tp\": 2, \"pp\": 1, \"global_batch_size\": 32, "
                                          "\"prompt_length\": 1024, \"decode_tokens\": 256}");
  g_autoptr (PlxScenario) one = scenario (mamba2, cluster,
                                          "{\"workload\": \"inference\", \"tp\": 1, \"pp\": 1, \"dp\": 8, "
                                          "\"global_batch_size\": 8, \"prompt_length\": 100, \"decode_tokens\": 1}");
  g_autoptr (PlxScenario) two = scenario (mamba2, cluster,
                                          "{\"workload\": \"inference\", \"tp\": 1, \"pp\": 1, \"dp\": 8, "
                                          "\"global_batch_size\": 8, \"prompt_length\": 100, \"decode_tokens\": 2}");
  PlxInferenceReport r, r1, r2;

  g_assert_cmpuint (plx_model_ssm_state_elems (tp2->model), ==, 1089536);
  run (tp2, &r);
  g_assert_cmpuint (r.batch_per_replica, ==, 8);
  g_assert_cmpfloat (r.kv_cache_bytes, ==, 557842432.0);
  run (one, &r1);
  run (two, &r2);
  g_assert_cmpfloat_with_epsilon (r2.decode_time_s, 2.0 * r1.decode_time_s, 1e-15);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/inference/memory", test_memory);
  g_test_add_func ("/core/inference/decode-growth", test_decode_growth);
  g_test_add_func ("/core/inference/tensor-parallel-decode", test_tensor_parallel_decode);
  g_test_add_func ("/core/inference/ssm-state", test_ssm_state);
  g_test_add_func ("/core/inference/sliding-window-cache", test_sliding_window_cache);
  return g_test_run ();
}
