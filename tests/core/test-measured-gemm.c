/* Measured GEMMs in place of the roofline (DistSim's method, docs/calibration.md):
 * the cluster key gpu.measured_gemms read and refused, the op cost's rule, and the
 * matcher on the real trace of tests/data/kineto-gemm (README.md there) and on a
 * small synthetic one written here. */
#include <math.h>
#include <string.h>

#include "parallax/parallax.h"
#include "calibrate/plx-kineto-match.h"
#include "base/plx-json.h"
#include "base/plx-presets.h"

static JsonNode *
parse (const char *text)
{
  g_autoptr (GError) error = NULL;
  JsonNode *node = plx_json_parse_data (text, -1, "test", &error);

  g_assert_no_error (error);
  return node;
}

/* The A100 80GB preset with gpu.measured_gemms = `table` (a JSON list). */
static PlxCluster *
cluster_with (const char *table, GError **error)
{
  g_autofree char *text = g_strdup_printf ("{\"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1, \"gpus_per_node\": 2,"
                                           " \"gpu\": {\"measured_gemms\": %s}}", table);
  g_autoptr (JsonNode) node = parse (text);

  return plx_cluster_new_from_json (node, "c.json", error);
}

static void
test_table (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxCluster) c = cluster_with ("[{\"m\": 2048, \"k\": 1024, \"n\": 1536, \"dtype\": \"bf16\", \"time_s\": 1e-4, \"count\": 3},"
                                           " {\"m\": 8, \"k\": 8, \"n\": 8, \"dtype\": \"fp8\", \"time_s\": 2e-6}]",
                                           &error);
  g_autoptr (PlxCluster) copy = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (c->n_measured_gemms, ==, 2);
  /* The shape as written, its transpose (m and n swapped: the same GEMM), and not
   * another dtype, another contracted size, or a size that is not whole. */
  g_assert_cmpfloat (plx_measured_gemm_time (c->measured_gemms, c->n_measured_gemms, PLX_DTYPE_BF16, 2048, 1024, 1536), ==, 1e-4);
  g_assert_cmpfloat (plx_measured_gemm_time (c->measured_gemms, c->n_measured_gemms, PLX_DTYPE_BF16, 1536, 1024, 2048), ==, 1e-4);
  g_assert_cmpfloat (plx_measured_gemm_time (c->measured_gemms, c->n_measured_gemms, PLX_DTYPE_FP16, 2048, 1024, 1536), ==, 0.0);
  g_assert_cmpfloat (plx_measured_gemm_time (c->measured_gemms, c->n_measured_gemms, PLX_DTYPE_BF16, 2048, 1536, 1024), ==, 0.0);
  g_assert_cmpfloat (plx_measured_gemm_time (c->measured_gemms, c->n_measured_gemms, PLX_DTYPE_BF16, 2048.5, 1024, 1536), ==, 0.0);
  g_assert_cmpfloat (plx_measured_gemm_time (c->measured_gemms, c->n_measured_gemms, PLX_DTYPE_FP8, 8, 8, 8), ==, 2e-6);
  /* A copy (the sampler's) owns its table. */
  copy = plx_cluster_copy (c);
  g_clear_pointer (&c, plx_cluster_free);
  g_assert_cmpfloat (plx_measured_gemm_time (copy->measured_gemms, copy->n_measured_gemms, PLX_DTYPE_BF16, 2048, 1024, 1536), ==, 1e-4);
}

static void
test_bad_values (void)
{
  static const struct { const char *table; const char *message; } cases[] = {
    { "{\"m\": 1}", "cluster.gpu.measured_gemms: {\"m\":1} is not a list" },
    { "[7]", "measured_gemms[0]: 7 is not an object" },
    { "[{\"m\": 0, \"k\": 8, \"n\": 8, \"dtype\": \"bf16\", \"time_s\": 1e-6}]", "measured_gemms[0].m: 0 is out of range" },
    { "[{\"m\": 8.5, \"k\": 8, \"n\": 8, \"dtype\": \"bf16\", \"time_s\": 1e-6}]", "measured_gemms[0].m: 8.5 is not a whole number" },
    { "[{\"m\": 8, \"k\": 1e12, \"n\": 8, \"dtype\": \"bf16\", \"time_s\": 1e-6}]", "measured_gemms[0].k: 1e+12 is out of range" },
    { "[{\"m\": 8, \"k\": 8, \"dtype\": \"bf16\", \"time_s\": 1e-6}]", "measured_gemms[0].n: required key is missing" },
    { "[{\"m\": 8, \"k\": 8, \"n\": 8, \"dtype\": \"tf32\", \"time_s\": 1e-6}]", "measured_gemms[0].dtype: \"tf32\" is not one of bf16, fp16, fp8, fp32" },
    { "[{\"m\": 8, \"k\": 8, \"n\": 8, \"dtype\": \"int8\", \"time_s\": 1e-6}]", "measured_gemms[0].dtype: \"int8\"" },
    { "[{\"m\": 8, \"k\": 8, \"n\": 8, \"dtype\": \"bf16\", \"time_s\": -1}]", "measured_gemms[0].time_s: -1 is out of range" },
    { "[{\"m\": 8, \"k\": 8, \"n\": 8, \"dtype\": \"bf16\", \"time_s\": 0}]", "measured_gemms[0].time_s: 0 is out of range" },
    { "[{\"m\": 8, \"k\": 8, \"n\": 8, \"dtype\": \"bf16\", \"time_s\": \"fast\"}]", "measured_gemms[0].time_s: \"fast\" is not a number" },
    { "[{\"m\": 8, \"k\": 8, \"n\": 8, \"dtype\": \"bf16\", \"time_s\": 1e-6, \"count\": 0}]", "measured_gemms[0].count: 0 is out of range" },
    { "[{\"m\": 8, \"k\": 8, \"n\": 8, \"dtype\": \"bf16\", \"time_s\": 1e-6, \"tim_s\": 1}]", "measured_gemms[0].tim_s: unknown key; did you mean \"time_s\"?" },
    /* The same GEMM twice, transposed the second time: which time holds is not
     * for the reader to guess. */
    { "[{\"m\": 8, \"k\": 4, \"n\": 16, \"dtype\": \"bf16\", \"time_s\": 1e-6}, {\"m\": 16, \"k\": 4, \"n\": 8, \"dtype\": \"bf16\", \"time_s\": 2e-6}]",
      "the bf16 GEMM 8 x 4 by 4 x 16 is listed twice (1e-06 s and 2e-06 s)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxCluster) c = cluster_with (cases[i].table, &error);

      g_assert_null (c);
      g_assert_nonnull (error);
      if (error == NULL)
        continue;
      g_test_message ("%s -> %s", cases[i].table, error->message);
      g_assert_true (g_str_has_prefix (error->message, "c.json: "));
      g_assert_nonnull (strstr (error->message, cases[i].message));
    }
}

/* A shard context of 4 x 512 tokens, TP 2, bf16, as plx_costing_init sets it. */
static PlxShardContext
context (void)
{
  PlxShardContext ctx = { 0 };

  ctx.tokens = 2048.0;
  ctx.seq_kv = 512.0;
  ctx.heads = 16;
  ctx.tp = 2;
  ctx.ep = 1;
  ctx.experts = 1;
  ctx.experts_per_token = 1;
  ctx.moe_load = 1.0;
  ctx.dtype = PLX_DTYPE_BF16;
  return ctx;
}

static void
test_op_cost_rule (void)
{
  /* A column-parallel QKV projection, hidden 1024, TP 2: on one GPU m = 2048 tokens,
   * k = 1024, n = 3072 / 2 = 1536. Its products (k contracted):
   *   forward     2048 x 1024 * 1024 x 1536
   *   data grad   2048 x 1536 * 1536 x 1024   (dX = dY W^T)
   *   weight grad 1024 x 2048 * 2048 x 1536   (dW = X^T dY) */
  PlxOp qkv = { .name = "qkv_proj", .kind = PLX_OP_MATMUL, .split = PLX_SPLIT_TP, .k = 1024, .n = 3072 };
  /* A row-parallel projection 1024 -> 1024: k = 1024 / 2 = 512 on one GPU. */
  PlxOp out = { .name = "out_proj", .kind = PLX_OP_MATMUL, .split = PLX_SPLIT_TP, .row_parallel = 1, .k = 1024, .n = 1024 };
  PlxShardContext ctx = context ();
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxCluster) all = cluster_with ("[{\"m\": 2048, \"k\": 1024, \"n\": 1536, \"dtype\": \"bf16\", \"time_s\": 1e-4},"
                                             " {\"m\": 1024, \"k\": 1536, \"n\": 2048, \"dtype\": \"bf16\", \"time_s\": 1.5e-4},"
                                             " {\"m\": 1536, \"k\": 2048, \"n\": 1024, \"dtype\": \"bf16\", \"time_s\": 1.2e-4},"
                                             " {\"m\": 2048, \"k\": 512, \"n\": 1024, \"dtype\": \"bf16\", \"time_s\": 3e-5}]", &error);
  g_autoptr (PlxCluster) fwd_only = cluster_with ("[{\"m\": 2048, \"k\": 1024, \"n\": 1536, \"dtype\": \"bf16\", \"time_s\": 1e-4}]", &error);
  g_autoptr (PlxCluster) other = cluster_with ("[{\"m\": 7, \"k\": 7, \"n\": 7, \"dtype\": \"bf16\", \"time_s\": 1e-4}]", &error);
  g_autoptr (PlxCluster) none = cluster_with ("[]", &error);
  PlxOpCost c, plain;

  g_assert_no_error (error);
  /* Every product measured: each takes its time. */
  plx_op_cost (&qkv, &ctx, all, &c);
  g_assert_cmpfloat (c.fwd_time_s, ==, 1e-4);
  g_assert_cmpfloat_with_epsilon (c.bwd_time_s, 1.5e-4 + 1.2e-4, 1e-18);
  g_assert_cmpfloat (c.wgrad_time_s, ==, 1.2e-4);
  /* The row-parallel op's forward (2048 x 512 * 512 x 1024) is measured, its two
   * gradients are not: they take the forward's time, so backward = 2 x 30 us. */
  plx_op_cost (&out, &ctx, all, &c);
  g_assert_cmpfloat (c.fwd_time_s, ==, 3e-5);
  g_assert_cmpfloat (c.bwd_time_s, ==, 6e-5);
  g_assert_cmpfloat (c.wgrad_time_s, ==, 3e-5);
  /* Only the forward of QKV: backward twice it, as the roofline would have it. */
  plx_op_cost (&qkv, &ctx, fwd_only, &c);
  g_assert_cmpfloat (c.fwd_time_s, ==, 1e-4);
  g_assert_cmpfloat (c.bwd_time_s, ==, 2e-4);
  /* A table without the op's shapes, or an empty one: the roofline, to the bit. */
  plx_op_cost (&qkv, &ctx, none, &plain);
  g_assert_cmpuint (none->n_measured_gemms, ==, 0);
  plx_op_cost (&qkv, &ctx, other, &c);
  g_assert_cmpfloat (c.fwd_time_s, ==, plain.fwd_time_s);
  g_assert_cmpfloat (c.bwd_time_s, ==, plain.bwd_time_s);
  g_assert_cmpfloat (c.wgrad_time_s, ==, plain.wgrad_time_s);
  g_assert_cmpfloat (c.fwd_flops, ==, plain.fwd_flops);
  /* ... which is the curve's: 2 m k n FLOPs at the achieved rate. */
  g_assert_cmpfloat (plain.fwd_flops, ==, 2.0 * 2048 * 1024 * 1536);
  g_assert_cmpfloat (plain.bwd_time_s, ==, 2.0 * plain.fwd_time_s);
}

static const PlxGemmMatchRow *
row (const PlxGemmMatch *m, const char *op, PlxGemmProduct product)
{
  for (guint i = 0; i < m->rows->len; i++)
    {
      const PlxGemmMatchRow *r = &g_array_index (m->rows, PlxGemmMatchRow, i);
      if (g_str_equal (r->op, op) && r->product == product)
        return r;
    }
  g_assert_not_reached ();
  return NULL;
}

static const PlxOp *
layer_op (const PlxModel *model, const char *name)
{
  for (guint i = 0; i < model->n_layer_ops; i++)
    if (g_str_equal (model->layer_ops[i].name, name))
      return &model->layer_ops[i];
  g_assert_not_reached ();
  return NULL;
}

/* The scenario's cluster JSON with its preset expanded, with the match written in. */
static PlxCluster *
written_cluster (JsonNode *scenario_json, const PlxGemmMatch *match, PlxCluster **without)
{
  g_autoptr (GError) error = NULL;
  gboolean had_preset;
  g_autoptr (JsonNode) cj = plx_presets_expand (PLX_PRESET_CLUSTER,
                                                json_object_get_member (json_node_get_object (scenario_json), "cluster"),
                                                "s.json", "cluster", &had_preset, &error);
  PlxCluster *c;

  g_assert_no_error (error);
  *without = plx_cluster_new_from_json (cj, "s.json", &error);
  g_assert_no_error (error);
  g_assert_true (plx_gemm_match_write_cluster (cj, match, "trace.json", &error));
  g_assert_no_error (error);
  c = plx_cluster_new_from_json (cj, "written", &error);
  g_assert_no_error (error);
  return c;
}

static void
test_real_trace (void)
{
  g_autofree char *trace_path = g_test_build_filename (G_TEST_DIST, "data", "kineto-gemm", "hta-mlp-a100.json", NULL);
  g_autofree char *scenario_path = g_test_build_filename (G_TEST_DIST, "data", "kineto-gemm", "gpt2-mlp1024-a100.json", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxKinetoTrace) trace = plx_kineto_load (trace_path, &error);
  g_autoptr (JsonNode) sj = plx_scenario_read_json (scenario_path, &error);
  g_autoptr (PlxScenario) sc = plx_scenario_new_from_file (scenario_path, &error);
  g_autoptr (PlxGemmMatch) m = NULL;
  g_autoptr (PlxCluster) c = NULL, base = NULL;
  const PlxTraceGemm *left = NULL;
  guint unmatched_rows = 0, unmatched_trace = 0;

  g_assert_no_error (error);
  m = plx_gemm_match (trace, sc->model, sc->cluster, sc->strategy, &error);
  g_assert_no_error (error);
  /* README.md's table: 1024 x 1024 * 1024 x 2048 ran 8 times (60, 60, 63, 64, 59, 65,
   * 59, 65 us: median (60 + 63) / 2 = 61.5 us), 1024 x 2048 * 2048 x 1024 4 times (59,
   * 58, 58, 59: median 58.5 us). The scenario (2 x 512 tokens, 1024 -> 2048 -> 1024,
   * fp32 tensors as the trace's): fc1 forward m 1024, k 1024, n 2048; its data grad
   * contracts 2048 (1024 x 2048 * 2048 x 1024); its weight grad 1024 x 1024 * 1024 x
   * 2048. fc2 (k 2048, n 1024): forward contracts 2048, both gradients contract 1024. */
  g_assert_cmpfloat_with_epsilon (row (m, "fc1", PLX_GEMM_FORWARD)->measured_s, 61.5e-6, 1e-15);
  g_assert_cmpuint (row (m, "fc1", PLX_GEMM_FORWARD)->instances, ==, 8);
  g_assert_cmpfloat_with_epsilon (row (m, "fc1", PLX_GEMM_DATA_GRAD)->measured_s, 58.5e-6, 1e-15);
  g_assert_cmpuint (row (m, "fc1", PLX_GEMM_DATA_GRAD)->instances, ==, 4);
  g_assert_cmpfloat_with_epsilon (row (m, "fc1", PLX_GEMM_WEIGHT_GRAD)->measured_s, 61.5e-6, 1e-15);
  g_assert_cmpfloat_with_epsilon (row (m, "fc2", PLX_GEMM_FORWARD)->measured_s, 58.5e-6, 1e-15);
  g_assert_cmpfloat_with_epsilon (row (m, "fc2", PLX_GEMM_DATA_GRAD)->measured_s, 61.5e-6, 1e-15);
  g_assert_cmpfloat_with_epsilon (row (m, "fc2", PLX_GEMM_WEIGHT_GRAD)->measured_s, 61.5e-6, 1e-15);
  g_assert_cmpuint (row (m, "fc1", PLX_GEMM_FORWARD)->dtype, ==, PLX_DTYPE_FP32);
  /* QKV (n 3072), the attention output (1024 x 1024 * 1024 x 1024) and the LM head
   * (n 1000) never ran in this model: 3 ops x 3 products unmatched. */
  for (guint i = 0; i < m->rows->len; i++)
    unmatched_rows += g_array_index (m->rows, PlxGemmMatchRow, i).measured_s == 0.0;
  g_assert_cmpuint (unmatched_rows, ==, 9);
  g_assert_cmpfloat (row (m, "qkv_proj", PLX_GEMM_FORWARD)->measured_s, ==, 0.0);
  /* The trace's one GEMM no scenario GEMM has: 1024 x 4864 * 4864 x 2048, 218 us. */
  for (guint i = 0; i < m->trace->len; i++)
    if (!g_array_index (m->trace, PlxTraceGemm, i).matched)
      {
        unmatched_trace++;
        left = &g_array_index (m->trace, PlxTraceGemm, i);
      }
  g_assert_cmpuint (unmatched_trace, ==, 1);
  g_assert_cmpfloat (left->k, ==, 4864);
  g_assert_cmpfloat (left->m, ==, 1024);
  g_assert_cmpfloat (left->n, ==, 2048);
  g_assert_cmpfloat_with_epsilon (left->median_s, 218e-6, 1e-15);
  g_assert_cmpuint (m->gemms_without_dims, ==, 0);

  /* Written into the cluster, the op cost takes the measurements: fc1 forward 61.5 us,
   * backward 58.5 + 61.5 us; QKV keeps the curve's time (the same cluster, no table). */
  c = written_cluster (sj, m, &base);
  g_assert_cmpuint (c->n_measured_gemms, ==, 2);
  {
    PlxShardContext ctx = { 0 };
    PlxOpCost cost, curve;

    ctx.tokens = 1024.0;
    ctx.seq_kv = 512.0;
    ctx.heads = 16;
    ctx.tp = 1;
    ctx.ep = 1;
    ctx.experts = 1;
    ctx.experts_per_token = 1;
    ctx.moe_load = 1.0;
    ctx.dtype = PLX_DTYPE_FP32;
    plx_op_cost (layer_op (sc->model, "fc1"), &ctx, c, &cost);
    g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, 61.5e-6, 1e-15);
    g_assert_cmpfloat_with_epsilon (cost.bwd_time_s, 58.5e-6 + 61.5e-6, 1e-15);
    plx_op_cost (layer_op (sc->model, "qkv_proj"), &ctx, c, &cost);
    plx_op_cost (layer_op (sc->model, "qkv_proj"), &ctx, base, &curve);
    g_assert_cmpfloat (cost.fwd_time_s, ==, curve.fwd_time_s);
    g_assert_cmpfloat (cost.bwd_time_s, ==, curve.bwd_time_s);
    /* The roofline the table printed is that time: QKV is 1024 x 1024 * 1024 x 3072. */
    g_assert_cmpfloat (row (m, "qkv_proj", PLX_GEMM_FORWARD)->roofline_s, ==, curve.fwd_time_s);
  }
}

/* SYNTHETIC: a trace written here by hand (no such real trace was found; see
 * tests/data/kineto-gemm/README.md), of a GPT-2 block with hidden 1024 and 16 heads,
 * 4 x 512 tokens, TP 2, bf16. Per GPU the QKV projection is m = 2048, k = 1024,
 * n = 3072 / 2 = 1536. The durations are chosen: 40 us for the forward, recorded as
 * aten::linear on a [4, 512, 1024] input (the leading dims flatten into m = 2048);
 * 45 us for the weight gradient, recorded transposed (dW^T = dY^T X: [1536, 2048] by
 * [2048, 1024]); a batched GEMM and an fp16 GEMM of the forward's shape that must
 * match nothing. */
#define SYN_OP(name, dims, types, ts, launch, corr, dur)                                                              \
  "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" name "\", \"pid\": 1, \"tid\": 1, \"ts\": " #ts ", \"dur\": 50," \
  " \"args\": {\"Input Dims\": " dims ", \"Input type\": " types "}},"                                               \
  "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": " #launch \
  ", \"dur\": 5, \"args\": {\"correlation\": " #corr "}},"                                                          \
  "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm80_xmma_gemm_bf16bf16\", \"pid\": 0, \"tid\": 7, \"ts\": " #launch \
  ", \"dur\": " #dur ", \"args\": {\"correlation\": " #corr "}}"

static const char synthetic_trace[] =
  "{\"traceEvents\": ["
  SYN_OP ("aten::linear", "[[4, 512, 1024], [1536, 1024], [1536]]", "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]", 100, 110, 1, 40) ","
  SYN_OP ("aten::mm", "[[1536, 2048], [2048, 1024]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]", 200, 210, 2, 45) ","
  SYN_OP ("aten::bmm", "[[32, 512, 64], [32, 64, 512]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]", 300, 310, 3, 30) ","
  SYN_OP ("aten::mm", "[[2048, 1024], [1024, 1536]]", "[\"c10::Half\", \"c10::Half\"]", 400, 410, 4, 35)
  "]}";

static const char synthetic_scenario[] =
  "{\"model\": {\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_embd\": 1024, \"n_head\": 16, \"vocab_size\": 1000,"
  " \"n_positions\": 512},"
  " \"cluster\": {\"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1, \"gpus_per_node\": 2},"
  " \"strategy\": {\"seq_length\": 512, \"global_batch_size\": 4, \"micro_batch_size\": 4, \"tp\": 2, \"dp\": 1,"
  " \"pp\": 1, \"dtype\": \"bf16\"}}";

static void
test_synthetic_trace (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) tj = parse (synthetic_trace);
  g_autoptr (JsonNode) sj = parse (synthetic_scenario);
  g_autoptr (PlxKinetoTrace) trace = plx_kineto_parse (tj, "synthetic", &error);
  g_autoptr (PlxScenario) sc = plx_scenario_new_from_json (sj, ".", "s.json", &error);
  g_autoptr (PlxGemmMatch) m = NULL;
  g_autoptr (PlxCluster) c = NULL, base = NULL;
  guint batched = 0, fp16 = 0;

  g_assert_no_error (error);
  m = plx_gemm_match (trace, sc->model, sc->cluster, sc->strategy, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (row (m, "qkv_proj", PLX_GEMM_FORWARD)->m, ==, 2048);
  g_assert_cmpfloat (row (m, "qkv_proj", PLX_GEMM_FORWARD)->k, ==, 1024);
  g_assert_cmpfloat (row (m, "qkv_proj", PLX_GEMM_FORWARD)->n, ==, 1536);
  g_assert_cmpfloat_with_epsilon (row (m, "qkv_proj", PLX_GEMM_FORWARD)->measured_s, 40e-6, 1e-15);
  g_assert_cmpfloat_with_epsilon (row (m, "qkv_proj", PLX_GEMM_WEIGHT_GRAD)->measured_s, 45e-6, 1e-15);
  g_assert_cmpfloat (row (m, "qkv_proj", PLX_GEMM_DATA_GRAD)->measured_s, ==, 0.0);
  for (guint i = 0; i < m->trace->len; i++)
    {
      const PlxTraceGemm *g = &g_array_index (m->trace, PlxTraceGemm, i);
      if (g->matched)
        continue;
      batched += g->batch == 32.0;
      fp16 += g->dtype == PLX_DTYPE_FP16;
    }
  g_assert_cmpuint (batched, ==, 1);
  g_assert_cmpuint (fp16, ==, 1);

  /* In the op cost: forward 40 us; the unmeasured data gradient takes the mean of the
   * measured products, (40 + 45) / 2 = 42.5 us; backward 42.5 + 45 us. The output
   * projection (row parallel, 2048 x 512 * 512 x 1024) keeps the curve's time. */
  c = written_cluster (sj, m, &base);
  {
    PlxShardContext ctx = context ();
    PlxOpCost cost, curve;

    plx_op_cost (layer_op (sc->model, "qkv_proj"), &ctx, c, &cost);
    g_assert_cmpfloat_with_epsilon (cost.fwd_time_s, 40e-6, 1e-15);
    g_assert_cmpfloat_with_epsilon (cost.bwd_time_s, 42.5e-6 + 45e-6, 1e-15);
    g_assert_cmpfloat_with_epsilon (cost.wgrad_time_s, 45e-6, 1e-15);
    plx_op_cost (layer_op (sc->model, "out_proj"), &ctx, c, &cost);
    plx_op_cost (layer_op (sc->model, "out_proj"), &ctx, base, &curve);
    g_assert_cmpfloat (cost.fwd_time_s, ==, curve.fwd_time_s);
    g_assert_cmpfloat (cost.bwd_time_s, ==, curve.bwd_time_s);
  }
}

static void
test_inference_refused (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) tj = parse (synthetic_trace);
  g_autoptr (JsonNode) sj = parse (synthetic_scenario);
  g_autoptr (PlxKinetoTrace) trace = plx_kineto_parse (tj, "synthetic", &error);
  g_autoptr (PlxScenario) sc = plx_scenario_new_from_json (sj, ".", "s.json", &error);
  g_autoptr (PlxGemmMatch) m = NULL;

  g_assert_no_error (error);
  sc->strategy->workload = PLX_WORKLOAD_INFERENCE;
  m = plx_gemm_match (trace, sc->model, sc->cluster, sc->strategy, &error);
  g_assert_null (m);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/measured-gemm/table", test_table);
  g_test_add_func ("/measured-gemm/bad-values", test_bad_values);
  g_test_add_func ("/measured-gemm/op-cost-rule", test_op_cost_rule);
  g_test_add_func ("/measured-gemm/real-trace", test_real_trace);
  g_test_add_func ("/measured-gemm/synthetic-trace", test_synthetic_trace);
  g_test_add_func ("/measured-gemm/inference-refused", test_inference_refused);
  return g_test_run ();
}
