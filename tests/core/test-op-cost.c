/* Per-op costs by hand on an ideal GPU (100 TFLOP/s, 1 TB/s, efficiency 1):
 * roofline time = max(FLOPs / peak, bytes / bandwidth). */
#include <math.h>
#include <string.h>

#include "parallax/parallax.h"
#include "test-home.h"

#include "test-util.h"
#include "cost/plx-cost-memo.h"
#include "cost/plx-op-cost.h"

static const PlxOp *
find_op (const PlxModel *m, const char *name)
{
  for (guint i = 0; i < m->n_layer_ops; i++)
    if (g_str_equal (m->layer_ops[i].name, name))
      return &m->layer_ops[i];
  for (guint i = 0; i < m->n_post_ops; i++)
    if (g_str_equal (m->post_ops[i].name, name))
      return &m->post_ops[i];
  g_assert_not_reached ();
  return NULL;
}

static PlxCluster *
ideal (void)
{
  g_autoptr (JsonNode) node = plx_json_parse_data (TEST_IDEAL_CLUSTER (1, 1e11, 1e10), -1, "test", NULL);
  return plx_cluster_new_from_json (node, "test", NULL);
}

static PlxShardContext
context (guint tp, gboolean sp)
{
  PlxShardContext ctx = { 0 };

  ctx.tokens = 1024;
  ctx.seq_kv = 1024;
  ctx.heads = 12;
  ctx.tp = tp;
  ctx.sp = sp;
  ctx.ep = 1;
  ctx.experts = 1;
  ctx.experts_per_token = 1;
  ctx.moe_load = 1.0;
  ctx.dtype = PLX_DTYPE_BF16;
  return ctx;
}

static void
test_matmul_roofline (void)
{
  g_autoptr (PlxModel) m = plx_model_new_preset ("gpt2", NULL);
  g_autoptr (PlxCluster) c = ideal ();
  PlxShardContext ctx = context (1, FALSE);
  PlxOpCost cost;

  /* GPT-2 QKV: 1024 tokens x 768 by 768 x 2304: 2*1024*768*2304 FLOPs = 36.24 us at
   * 1e14; it moves 2 bytes x (1024*768 + 1024*2304 + 768*2304) = 9.83 MB = 9.83 us. */
  plx_op_cost (find_op (m, "qkv_proj"), &ctx, c, &cost);
  g_assert_cmpfloat (cost.fwd_flops, ==, 2.0 * 1024 * 768 * 2304);
  g_assert_cmpfloat (cost.fwd_bytes, ==, 2.0 * (1024 * 768 + 1024 * 2304 + 768 * 2304));
  g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, 2.0 * 1024 * 768 * 2304 / 1e14, 1e-18);
  /* Backward: input-gradient and weight-gradient GEMMs of the same size. */
  g_assert_cmpfloat (cost.bwd_flops, ==, 2.0 * cost.fwd_flops);
  g_assert_cmpfloat (cost.wgrad_flops, ==, cost.fwd_flops);
  g_assert_cmpfloat_with_epsilon (cost.bwd_time_s, 2.0 * cost.fwd_time_s, 1e-18);
  /* Column-parallel over 4 ranks: a quarter of the output columns and weights. */
  ctx = context (4, FALSE);
  plx_op_cost (find_op (m, "qkv_proj"), &ctx, c, &cost);
  g_assert_cmpfloat (cost.fwd_flops, ==, 2.0 * 1024 * 768 * 576);
  g_assert_cmpfloat (cost.params, ==, (768.0 * 2304 + 2304) / 4);
  /* ... and it keeps its replicated input: 2 bytes x 1024 x 768. */
  g_assert_cmpfloat (cost.saved_bytes, ==, 2.0 * 1024 * 768);
  /* Sequence parallelism splits that input over the 4 ranks. */
  ctx = context (4, TRUE);
  plx_op_cost (find_op (m, "qkv_proj"), &ctx, c, &cost);
  g_assert_cmpfloat (cost.saved_bytes, ==, 2.0 * 1024 * 768 / 4);
}

static void
test_power_cap (void)
{
  /* A GPU of 700 W with 150 W static, capped at 500 W: the tensor cores run at
   * (350/550)^(1/3) = 0.8601 of their clock, so GPT-2's QKV GEMM (compute-bound,
   * 36.24 us at full clock) takes 36.24 / 0.8601 = 42.13 us; the LayerNorm
   * (memory-bound) keeps its 3.15 us. */
  g_autoptr (PlxModel) m = plx_model_new_preset ("gpt2", NULL);
  g_autoptr (PlxCluster) c = ideal ();
  PlxShardContext ctx = context (1, FALSE);
  PlxOpCost cost;

  c->compute_clock_factor = plx_cluster_clock_factor (700, 500, 150, 0, 0);
  plx_op_cost (find_op (m, "qkv_proj"), &ctx, c, &cost);
  g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, 2.0 * 1024 * 768 * 2304 / 1e14 / cbrt (350.0 / 550.0), 1e-15);
  g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, 42.13e-6, 0.01e-6);
  plx_op_cost (find_op (m, "ln_1"), &ctx, c, &cost);
  g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, 2.0 * 2.0 * 1024 * 768 / 1e12, 1e-18);
}

static void
test_memory_bound (void)
{
  g_autoptr (PlxModel) m = plx_model_new_preset ("gpt2", NULL);
  g_autoptr (PlxCluster) c = ideal ();
  PlxShardContext ctx = context (1, FALSE);
  PlxOpCost cost;

  /* LayerNorm reads and writes 1024 x 768 bf16 values: 3.15 MB, 3.15 us at 1 TB/s;
   * its backward reads x and dy and writes dx. */
  plx_op_cost (find_op (m, "ln_1"), &ctx, c, &cost);
  g_assert_cmpfloat (cost.fwd_bytes, ==, 2.0 * 2.0 * 1024 * 768);
  g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, 2.0 * 2.0 * 1024 * 768 / 1e12, 1e-18);
  g_assert_cmpfloat (cost.bwd_bytes, ==, 3.0 * 2.0 * 1024 * 768);
  g_assert_cmpfloat (cost.fwd_flops, ==, 0.0);
  /* Softmax works on 12 heads x 1024 x 1024 scores, read and written: 50.3 MB. */
  plx_op_cost (find_op (m, "softmax"), &ctx, c, &cost);
  g_assert_cmpfloat (cost.fwd_bytes, ==, 2.0 * 2.0 * 12 * 1024 * 1024);
  g_assert_cmpfloat (cost.saved_bytes, ==, 2.0 * 12 * 1024 * 1024);
  /* Dropout's mask is one byte a score. */
  plx_op_cost (find_op (m, "attn_dropout"), &ctx, c, &cost);
  g_assert_cmpfloat (cost.saved_bytes, ==, 12.0 * 1024 * 1024);
  g_assert_cmpfloat (cost.fwd_bytes, ==, (2.0 * 2.0 + 1.0) * 12 * 1024 * 1024);
}

static void
test_attention (void)
{
  g_autoptr (PlxModel) m = plx_model_new_preset ("gpt2", NULL);
  g_autoptr (PlxCluster) c = ideal ();
  PlxShardContext ctx = context (2, FALSE);
  PlxOpCost cost;

  /* Q K^T over 6 of 12 heads: 2 * 6 * 1024 * 1024 * 64 FLOPs; it writes the 6 x
   * 1024 x 1024 scores and is memory-bound on the ideal GPU: 2 bytes x (Q + K +
   * scores) = 2 * 6 * (1024*64*2 + 1024*1024) = 14.2 MB against 8.05 GFLOP. */
  plx_op_cost (find_op (m, "attn_scores"), &ctx, c, &cost);
  g_assert_cmpfloat (cost.fwd_flops, ==, 2.0 * 6 * 1024 * 1024 * 64);
  g_assert_cmpfloat_with_epsilon (cost.fwd_time_s,
                                  MAX (2.0 * 6 * 1024 * 1024 * 64 / 1e14, 2.0 * 6 * (1024 * 64 * 2 + 1024 * 1024) / 1e12), 1e-18);
  /* It keeps Q, K and V of its heads: 3 x 768/2 values a token. */
  g_assert_cmpfloat (cost.saved_bytes, ==, 2.0 * 1024 * 3 * 768 / 2);
  /* FlashAttention: both matmuls, scores never stored; backward 2.5x. */
  plx_op_cost (find_op (m, "flash_attention"), &ctx, c, &cost);
  g_assert_cmpfloat (cost.fwd_flops, ==, 2.0 * 2.0 * 6 * 1024 * 1024 * 64);
  g_assert_cmpfloat (cost.bwd_flops, ==, 2.0 * cost.fwd_flops);
  {
    /* Causal: of the 8 x 8 tiles of 128 keys and queries it computes 8 x 9 / 2, 9/16
     * of the reported FLOPs; compute-bound on the ideal GPU (its 3.1 MB of Q, K, V and
     * output take 3.1 us, the work 9.1 us), backward 2.5x the forward work. */
    const double work = 9.0 / 16.0 * 2.0 * 2.0 * 6 * 1024 * 1024 * 64;
    g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, work / 1e14, 1e-15);
    g_assert_cmpfloat_with_epsilon (cost.bwd_time_s, 2.5 * work / 1e14, 1e-15);
    /* The kernel's ceiling: at half the peak it takes twice as long; PyTorch's
     * kernel has its own. */
    c->attention_efficiency = 0.5;
    c->attention_efficiency_pytorch = 0.25;
    plx_op_cost (find_op (m, "flash_attention"), &ctx, c, &cost);
    g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, work / 0.5e14, 1e-15);
    g_assert_cmpfloat_with_epsilon (cost.bwd_time_s, 2.5 * work / 0.5e14, 1e-15);
    ctx.eager = TRUE;
    plx_op_cost (find_op (m, "flash_attention"), &ctx, c, &cost);
    g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, work / 0.25e14, 1e-15);
    /* A kernel said by name overrides the implementation's: cuDNN has the cluster's
     * `attention` ceiling even in eager code; FlashAttention-2 `attention_pytorch`
     * in Megatron code. FlashAttention 1 and the Triton kernel run FlashAttention-2's
     * ceiling over the geometric middles of Dao 2023's ranges (§4.1):
     * sqrt(1.7 x 3.0) = 2.26 and sqrt(1.3 x 2.5) = 1.80. */
    ctx.attention_kernel = PLX_ATTENTION_KERNEL_CUDNN;
    plx_op_cost (find_op (m, "flash_attention"), &ctx, c, &cost);
    g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, work / 0.5e14, 1e-15);
    ctx.eager = FALSE;
    ctx.attention_kernel = PLX_ATTENTION_KERNEL_FLASH_ATTENTION_2;
    plx_op_cost (find_op (m, "flash_attention"), &ctx, c, &cost);
    g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, work / 0.25e14, 1e-15);
    ctx.attention_kernel = PLX_ATTENTION_KERNEL_FLASH_ATTENTION_1;
    plx_op_cost (find_op (m, "flash_attention"), &ctx, c, &cost);
    g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, work / (0.25e14 / 2.26), 1e-15);
    g_assert_cmpfloat_with_epsilon (cost.bwd_time_s, 2.5 * work / (0.25e14 / 2.26), 1e-15);
    ctx.attention_kernel = PLX_ATTENTION_KERNEL_TRITON;
    plx_op_cost (find_op (m, "flash_attention"), &ctx, c, &cost);
    g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, work / (0.25e14 / 1.80), 1e-15);
    g_assert_cmpfloat_with_epsilon (sqrt (1.3 * 2.5), 1.80, 0.005);
    g_assert_cmpfloat_with_epsilon (sqrt (1.7 * 3.0), 2.26, 0.005);
  }
}

static PlxModel *
model_from (const char *json)
{
  g_autoptr (JsonNode) node = plx_json_parse_data (json, -1, "test", NULL);
  g_autoptr (GError) error = NULL;
  PlxModel *m = plx_model_new_from_json (node, "test", &error);

  g_assert_no_error (error);
  return m;
}

#define WINDOWED(type, window, extra) \
  "{\"model_type\": \"" type "\", \"hidden_size\": 768, \"num_attention_heads\": 12," \
  " \"num_hidden_layers\": 12, \"intermediate_size\": 3072, \"vocab_size\": 50257," \
  " \"sliding_window\": " #window extra "}"

static void
test_sliding_window (void)
{
  /* GPT-2 small's attention shape with a 256-key window, 1024 tokens: of each row of
   * the 8 x 8 query/key tiles the kernel computes at most ceil(256/128) + 1 = 3:
   * 1 + 2 + 3 x 6 = 21 of 64 (causal alone: 36 of 64, test_attention). Gemma 2
   * windows every other block: (36 + 21)/2 of 64. Compute-bound on the ideal GPU. */
  g_autoptr (PlxModel) mistral = model_from (WINDOWED ("mistral", 256, ""));
  g_autoptr (PlxModel) wide = model_from (WINDOWED ("mistral", 4096, ""));
  g_autoptr (PlxModel) gemma2 = model_from (WINDOWED ("gemma2", 256, ", \"attn_logit_softcapping\": 50.0, "
                                                               "\"final_logit_softcapping\": 30.0, \"head_dim\": 64"));
  g_autoptr (PlxModel) qwen = model_from (WINDOWED ("qwen2", 256, ", \"use_sliding_window\": false"));
  g_autoptr (PlxCluster) c = ideal ();
  PlxShardContext ctx = context (2, FALSE);
  const double full = 2.0 * 2.0 * 6 * 1024 * 1024 * 64;
  PlxOpCost cost;

  plx_op_cost (find_op (mistral, "flash_attention"), &ctx, c, &cost);
  g_assert_cmpfloat (cost.fwd_flops, ==, full);   /* as MFU counts them */
  g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, 21.0 / 64.0 * full / 1e14, 1e-15);
  /* A window wider than the sequence changes nothing; Qwen's unused one neither. */
  plx_op_cost (find_op (wide, "flash_attention"), &ctx, c, &cost);
  g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, 36.0 / 64.0 * full / 1e14, 1e-15);
  plx_op_cost (find_op (qwen, "flash_attention"), &ctx, c, &cost);
  g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, 36.0 / 64.0 * full / 1e14, 1e-15);
  plx_op_cost (find_op (gemma2, "flash_attention"), &ctx, c, &cost);
  g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, (36.0 + 21.0) / 128.0 * full / 1e14, 1e-15);
  /* Soft-capping, unfused: a read and a write of the 6 x 1024 x 1024 scores of this
   * rank's heads; the logits' cap a read and a write of the 50257 logits a token. */
  plx_op_cost (find_op (gemma2, "attn_softcap"), &ctx, c, &cost);
  g_assert_cmpfloat (cost.fwd_bytes, ==, 2.0 * 2.0 * 6 * 1024 * 1024);
  plx_op_cost (find_op (gemma2, "final_softcap"), &ctx, c, &cost);
  g_assert_cmpfloat (cost.fwd_bytes, ==, 2.0 * 2.0 * 1024 * 50257 / 2);
}

static void
test_expert (void)
{
  /* Mixtral expert up-projection on 1024 tokens, top-2 of 8 experts, EP 4: this
   * rank's 2 experts see 1024 * 2 tokens in all, in 2 GEMMs of 1024 rows. */
  g_autoptr (PlxModel) m = plx_model_new_preset ("mixtral-8x7b", NULL);
  g_autoptr (PlxCluster) c = ideal ();
  PlxShardContext ctx = context (1, FALSE);
  PlxOpCost cost;

  ctx.heads = 32;
  ctx.experts = 8;
  ctx.experts_per_token = 2;
  ctx.ep = 4;
  plx_op_cost (find_op (m, "expert_gate_up"), &ctx, c, &cost);
  g_assert_cmpfloat (cost.fwd_flops, ==, 2.0 * 1024 * 2 * 4096 * 2 * 14336);
  g_assert_cmpfloat (cost.params, ==, 2.0 * 4096 * 2 * 14336);
}

static void
test_expert_load (void)
{
  /* The busiest rank of a capacity factor of 1.25 computes 1.25 x 1024 x 2 rows over
   * its 2 experts, and keeps 1.25 times the activations; the ideal GPU takes 1.25
   * times as long. The weights do not change. */
  g_autoptr (PlxModel) m = plx_model_new_preset ("mixtral-8x7b", NULL);
  g_autoptr (PlxCluster) c = ideal ();
  PlxShardContext ctx = context (1, FALSE);
  PlxOpCost even, busy;

  ctx.heads = 32;
  ctx.experts = 8;
  ctx.experts_per_token = 2;
  ctx.ep = 4;
  plx_op_cost (find_op (m, "expert_gate_up"), &ctx, c, &even);
  ctx.moe_load = 1.25;
  plx_op_cost (find_op (m, "expert_gate_up"), &ctx, c, &busy);
  g_assert_cmpfloat (busy.fwd_flops, ==, 1.25 * 2.0 * 1024 * 2 * 4096 * 2 * 14336);
  g_assert_cmpfloat_with_epsilon (busy.fwd_time_s, busy.fwd_flops / 1e14, 1e-12);
  g_assert_cmpfloat_with_epsilon (busy.fwd_time_s / even.fwd_time_s, 1.25, 1e-12);
  g_assert_cmpfloat_with_epsilon (busy.saved_bytes / even.saved_bytes, 1.25, 1e-12);
  g_assert_cmpfloat (busy.params, ==, even.params);
}

static void
test_kernel_floor (void)
{
  /* A kernel takes at least kernel_launch_s: the stock A100 preset's 4 us. */
  g_autoptr (PlxCluster) c = plx_cluster_new_preset ("dgx-a100-80gb", NULL);

  g_assert_cmpfloat (plx_memory_time (c, 1.0), ==, c->kernel_launch_s);
  g_assert_cmpfloat (plx_gemm_time (c, PLX_DTYPE_BF16, 2.0, 6.0), ==, c->kernel_launch_s);
  g_assert_cmpfloat (plx_memory_time (c, 0.0), ==, 0.0);
}

/* The ideal GPU with an fp8 peak of twice its bf16 one, and optionally a measured
 * fp8 matmul curve (a constant 0.5). */
static PlxCluster *
ideal_fp8 (gboolean curve)
{
  g_autofree char *json = g_strdup_printf (
    "{ \"name\": \"ideal\", \"num_nodes\": 1, \"gpus_per_node\": 8,"
    "  \"gpu\": { \"name\": \"ideal\", \"peak_flops\": { \"bf16\": 1e14, \"fp8\": 2e14 },"
    "           \"hbm_bytes\": 85899345920, \"hbm_bw_Bps\": 1e12,"
    "           \"efficiency\": { \"matmul\": [[1e9, 0.5], [1e10, 1.0]], %s \"memory\": [[1, 1.0]],"
    "                            \"kernel_launch_s\": 0 } },"
    "  \"intra_node\": { \"bw_Bps\": 1e11, \"latency_s\": 0, \"efficiency\": [[1, 1.0]] },"
    "  \"inter_node\": { \"bw_Bps\": 1e10, \"latency_s\": 0, \"efficiency\": [[1, 1.0]] } }",
    curve ? "\"matmul_fp8\": [[1, 0.5]]," : "");
  g_autoptr (JsonNode) node = plx_json_parse_data (json, -1, "test", NULL);
  g_autoptr (GError) error = NULL;
  PlxCluster *c = plx_cluster_new_from_json (node, "test", &error);

  g_assert_no_error (error);
  return c;
}

/* TF32 and FP32 GEMMs on their own measured curves (constant 0.4 and 0.8 of their
 * peaks, 1.5e14 and 2e13) under a matmul_scale of 0.5 that scales only the 16-bit
 * curve; a GEMM of 1e12 FLOPs (bytes 0: compute-bound). */
static void
test_32bit_curves (void)
{
  const char *json =
    "{ \"name\": \"ideal\", \"num_nodes\": 1, \"gpus_per_node\": 8,"
    "  \"gpu\": { \"name\": \"ideal\", \"peak_flops\": { \"bf16\": 3e14, \"tf32\": 1.5e14, \"fp32\": 2e13 },"
    "           \"hbm_bytes\": 85899345920, \"hbm_bw_Bps\": 1e12,"
    "           \"efficiency\": { \"matmul\": [[1, 1.0]], \"matmul_tf32\": [[1, 0.4]], \"matmul_fp32\": [[1, 0.8]],"
    "                            \"memory\": [[1, 1.0]], \"kernel_launch_s\": 0 } },"
    "  \"calibration\": { \"matmul_scale\": 0.5 },"
    "  \"intra_node\": { \"bw_Bps\": 1e11, \"latency_s\": 0, \"efficiency\": [[1, 1.0]] },"
    "  \"inter_node\": { \"bw_Bps\": 1e10, \"latency_s\": 0, \"efficiency\": [[1, 1.0]] } }";
  g_autoptr (JsonNode) node = plx_json_parse_data (json, -1, "test", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxCluster) c = plx_cluster_new_from_json (node, "test", &error);
  g_autoptr (JsonNode) bad = NULL;
  g_autoptr (PlxCluster) none = NULL;
  g_autofree char *bad_json = NULL;

  g_assert_no_error (error);
  /* 1e12 / (1.5e14 x 0.4) = 16.667 ms; 1e12 / (2e13 x 0.8) = 62.5 ms; bf16 at 1.0 x 0.5
   * of 3e14: 6.667 ms. */
  g_assert_cmpfloat_with_epsilon (plx_gemm_time (c, PLX_DTYPE_TF32, 1e12, 0.0), 1e12 / 6e13, 1e-15);
  g_assert_cmpfloat_with_epsilon (plx_gemm_time (c, PLX_DTYPE_FP32, 1e12, 0.0), 1e12 / 1.6e13, 1e-15);
  g_assert_cmpfloat_with_epsilon (plx_gemm_time (c, PLX_DTYPE_BF16, 1e12, 0.0), 1e12 / 1.5e14, 1e-15);
  /* A copy keeps them. */
  {
    g_autoptr (PlxCluster) copy = plx_cluster_copy (c);
    g_assert_cmpfloat (plx_gemm_time (copy, PLX_DTYPE_TF32, 1e12, 0.0), ==, plx_gemm_time (c, PLX_DTYPE_TF32, 1e12, 0.0));
  }
  /* A bad curve is named by its key. */
  {
    g_auto (GStrv) parts = g_strsplit (json, "[[1, 0.4]]", 2);
    bad_json = g_strjoinv ("[[1, -0.4]]", parts);
  }
  bad = plx_json_parse_data (bad_json, -1, "test", NULL);
  none = plx_cluster_new_from_json (bad, "test", &error);
  g_assert_null (none);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "test: cluster.gpu.efficiency.matmul_tf32: "));
}

static void
test_fp8 (void)
{
  g_autoptr (PlxModel) m = plx_model_new_preset ("gpt2", NULL);
  g_autoptr (PlxCluster) c = ideal_fp8 (FALSE);
  g_autoptr (PlxCluster) measured = ideal_fp8 (TRUE);
  PlxShardContext ctx = context (1, FALSE);
  PlxOpCost bf16, fp8;
  /* GPT-2 QKV again: 2*1024*768*2304 = 3.62e9 FLOPs. */
  const double flops = 2.0 * 1024 * 768 * 2304;
  /* The 16-bit curve at flops/2 = 1.81e9 (log-linear between 0.5 at 1e9 and 1.0 at
   * 1e10 - two points interpolate linearly in log size): the fp8 GEMM takes as long
   * as a 16-bit GEMM of half the FLOPs. */
  const double eff_half = 0.5 + 0.5 * log10 (flops / 2.0 / 1e9);
  /* Casts: the input 1024 x 768 in forward, the output gradient 1024 x 2304 in
   * backward, 4 bytes per element each at 1 TB/s. */
  const double cast_fwd = 4.0 * 1024 * 768 / 1e12, cast_bwd = 4.0 * 1024 * 2304 / 1e12;

  plx_op_cost (find_op (m, "qkv_proj"), &ctx, c, &bf16);
  ctx.dtype = PLX_DTYPE_FP8;
  plx_op_cost (find_op (m, "qkv_proj"), &ctx, c, &fp8);
  g_assert_cmpfloat (fp8.fwd_flops, ==, bf16.fwd_flops);
  g_assert_cmpfloat_with_epsilon (fp8.fwd_time_s, flops / (2e14 * eff_half) + cast_fwd, 1e-15);
  g_assert_cmpfloat_with_epsilon (fp8.bwd_time_s, 2.0 * flops / (2e14 * eff_half) + cast_bwd, 1e-15);
  /* Equal to the 16-bit GEMM of half the FLOPs, casts aside. */
  g_assert_cmpfloat_with_epsilon (fp8.fwd_time_s - cast_fwd, (flops / 2.0) / (1e14 * eff_half), 1e-15);
  /* A measured fp8 curve is used as it is: 0.5 of 2e14. */
  plx_op_cost (find_op (m, "qkv_proj"), &ctx, measured, &fp8);
  g_assert_cmpfloat_with_epsilon (fp8.fwd_time_s, flops / 1e14 + cast_fwd, 1e-15);

  /* The LM head stays 16-bit: 2*1024*768*50257 FLOPs at the 16-bit curve (1.0 above
   * 1e10), no casts. */
  ctx.dtype = PLX_DTYPE_BF16;
  plx_op_cost (find_op (m, "lm_head"), &ctx, c, &bf16);
  ctx.dtype = PLX_DTYPE_FP8;
  plx_op_cost (find_op (m, "lm_head"), &ctx, c, &fp8);
  g_assert_cmpfloat_with_epsilon (fp8.fwd_time_s, 2.0 * 1024 * 768 * 50257 / 1e14, 1e-15);
  g_assert_cmpfloat (fp8.fwd_time_s, ==, bf16.fwd_time_s);
  /* So does the attention core. */
  ctx.flash = TRUE;
  ctx.dtype = PLX_DTYPE_BF16;
  plx_op_cost (find_op (m, "flash_attention"), &ctx, c, &bf16);
  ctx.dtype = PLX_DTYPE_FP8;
  plx_op_cost (find_op (m, "flash_attention"), &ctx, c, &fp8);
  g_assert_cmpfloat (fp8.fwd_time_s, ==, bf16.fwd_time_s);
  g_assert_cmpfloat (fp8.bwd_time_s, ==, bf16.bwd_time_s);
}

static void
test_eager_rmsnorm (void)
{
  /* Llama's RMSNorm over h = 4096: fused, read 2 bytes and write 2 per value; as
   * eager PyTorch ops 36 bytes (upcast 6, pow 8, mean 4, scale 8, downcast 6, weight
   * 4). 1024 tokens at 1 TB/s: 16.8 MB in 16.8 us, against 151 MB in 151 us. */
  g_autoptr (PlxModel) m = plx_model_new_preset ("llama-2-7b", NULL);
  g_autoptr (PlxCluster) c = ideal ();
  PlxShardContext ctx = context (1, FALSE);
  PlxOpCost fused, eager;
  const PlxOp *norm = &m->layer_ops[0];

  g_assert_cmpstr (norm->name, ==, "input_norm");
  plx_op_cost (norm, &ctx, c, &fused);
  ctx.eager = TRUE;
  plx_op_cost (norm, &ctx, c, &eager);
  g_assert_cmpfloat (fused.fwd_bytes, ==, 1024.0 * 4096 * 4);
  g_assert_cmpfloat (eager.fwd_bytes, ==, 1024.0 * 4096 * 36);
  g_assert_cmpfloat_with_epsilon (eager.fwd_time_s, 1024.0 * 4096 * 36 / 1e12, 1e-15);
  /* A matmul is the same either way. */
  plx_op_cost (find_op (m, "o_proj"), &ctx, c, &eager);
  ctx.eager = FALSE;
  plx_op_cost (find_op (m, "o_proj"), &ctx, c, &fused);
  g_assert_cmpfloat (eager.fwd_time_s, ==, fused.fwd_time_s);
}

static void
test_fp8_weight_copies (void)
{
  /* fp8 keeps each block linear's weights cast (as is and transposed): 2 bytes per
   * weight more than bf16 (biases are not cast). GPT-2's 12 blocks hold 12 x 12h^2 =
   * 84,934,656 linear weights (h = 768): 169,869,312 bytes. */
  g_autoptr (PlxScenario) bf16 = test_scenario_from_string (
    "{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-h100-80gb\" },"
    "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 8, \"dp\": 8 } }");
  g_autoptr (PlxScenario) fp8 = test_scenario_from_string (
    "{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-h100-80gb\" },"
    "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 8, \"dp\": 8, \"dtype\": \"fp8\" } }");
  PlxReport a = test_run (bf16), b = test_run (fp8);

  g_assert_cmpuint (b.memory_bytes[PLX_MEM_WEIGHTS] - a.memory_bytes[PLX_MEM_WEIGHTS], ==, 169869312);
  g_assert_cmpuint (b.memory_bytes[PLX_MEM_OPTIMIZER], ==, a.memory_bytes[PLX_MEM_OPTIMIZER]);
  {
    /* With fp8_param_gather (which needs the distributed optimizer, ZeRO-1) the fp8
     * weights are the parameters (Float8Tensor, 1 byte, and its transpose, 1 byte) in
     * place of the bf16 copy: the weights take what bf16 training's do. The optimizer
     * keeps its fp32 master copy, sharded over the 8 ranks. */
    g_autoptr (PlxScenario) fp8_params = test_scenario_from_string (
      "{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-h100-80gb\" },"
      "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 8, \"dp\": 8, \"dtype\": \"fp8\","
      "                \"zero_stage\": 1, \"fp8_param_gather\": true } }");
    PlxReport c = test_run (fp8_params);

    g_assert_cmpuint (c.memory_bytes[PLX_MEM_WEIGHTS], ==, a.memory_bytes[PLX_MEM_WEIGHTS]);
    g_assert_cmpuint (c.memory_bytes[PLX_MEM_OPTIMIZER], ==, a.memory_bytes[PLX_MEM_OPTIMIZER] / 8);
  }
}

/* The loss over GPT-2's 50,257-logit vocabulary, 1024 tokens, TP 2 (each rank its
 * half of the logits), memory-bound at 1 TB/s on the ideal GPU. Op by op on fp32
 * logits: 38 bytes a logit forward, 14 backward, 4 kept. Megatron-Core's native fusion:
 * the same fp32 steps in three kernels, 22 forward, 6 backward, the fp32 softmax kept.
 * Transformer Engine's kernel: 4 each way, the 16-bit logits' buffer (their gradient)
 * kept. */
static void
test_fused_cross_entropy (void)
{
  g_autoptr (PlxModel) m = plx_model_new_preset ("gpt2", NULL);
  g_autoptr (PlxCluster) c = ideal ();
  PlxShardContext ctx = context (2, FALSE);
  const PlxOp *loss = find_op (m, "cross_entropy");
  const double logits = 1024.0 * 50257.0 / 2.0;
  const struct { PlxCrossEntropyFusion fusion; double fwd, bwd, saved; } cases[] = {
    { PLX_CROSS_ENTROPY_UNFUSED, 38.0, 14.0, 4.0 },
    { PLX_CROSS_ENTROPY_NATIVE, 22.0, 6.0, 4.0 },
    { PLX_CROSS_ENTROPY_TE, 4.0, 4.0, 2.0 },
  };

  g_assert_nonnull (loss);
  g_assert_true (loss->loss);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      PlxOpCost cost;

      ctx.loss_fusion = cases[i].fusion;
      plx_op_cost (loss, &ctx, c, &cost);
      g_assert_cmpfloat_with_epsilon (cost.fwd_bytes, cases[i].fwd * logits, 1.0);
      g_assert_cmpfloat_with_epsilon (cost.bwd_bytes, cases[i].bwd * logits, 1.0);
      g_assert_cmpfloat_with_epsilon (cost.saved_bytes, cases[i].saved * logits, 1.0);
      g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, cases[i].fwd * logits / 1e12, 1e-12);
    }
  /* Only the loss: the norm before it costs the same either way. */
  {
    PlxOpCost a, b;
    ctx.loss_fusion = PLX_CROSS_ENTROPY_UNFUSED;
    plx_op_cost (find_op (m, "final_norm"), &ctx, c, &a);
    ctx.loss_fusion = PLX_CROSS_ENTROPY_TE;
    plx_op_cost (find_op (m, "final_norm"), &ctx, c, &b);
    g_assert_cmpfloat (a.fwd_bytes, ==, b.fwd_bytes);
  }
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/core/op-cost/matmul-roofline", test_matmul_roofline);
  g_test_add_func ("/core/op-cost/memory-bound", test_memory_bound);
  g_test_add_func ("/core/op-cost/power-cap", test_power_cap);
  g_test_add_func ("/core/op-cost/attention", test_attention);
  g_test_add_func ("/core/op-cost/sliding-window", test_sliding_window);
  g_test_add_func ("/core/op-cost/expert", test_expert);
  g_test_add_func ("/core/op-cost/expert-load", test_expert_load);
  g_test_add_func ("/core/op-cost/kernel-floor", test_kernel_floor);
  g_test_add_func ("/core/op-cost/fp8", test_fp8);
  g_test_add_func ("/core/op-cost/32-bit-curves", test_32bit_curves);
  g_test_add_func ("/core/op-cost/eager-rmsnorm", test_eager_rmsnorm);
  g_test_add_func ("/core/op-cost/fp8-weight-copies", test_fp8_weight_copies);
  g_test_add_func ("/core/op-cost/fused-cross-entropy", test_fused_cross_entropy);
  return g_test_run ();
}
