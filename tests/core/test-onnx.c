/* ONNX import (docs/graph-format.md, "ONNX"): real models written at test time by
 * Debian's python3-onnx (tests/onnx/make-models.py) - an MLP, a small CNN (also
 * with its weights in a deleted external file), a GPT-2-shaped decoder - read, their
 * FLOPs counted by hand, trained and spread; the decoder with a KV cache served; and
 * the refusals. */
#include <string.h>

#include <glib/gstdio.h>

#include "parallax/parallax.h"

#include "test-files.h"
#include "test-onnx-models.h"
#include "test-util.h"
#include "ir/plx-ir-inference.h"
#include "ir/plx-ir.h"
#include "ir/plx-onnx.h"

static char *models_dir;

static PlxIrGraph *
import (const char *name, const PlxOnnxOptions *options, GError **error)
{
  g_autofree char *path = g_build_filename (models_dir, name, NULL);
  return plx_onnx_import (path, options, error);
}

static double
flops_of (const PlxIrGraph *g, PlxIrKind kind)
{
  double f = 0.0;

  for (guint i = 0; i < g->ops->len; i++)
    if (((const PlxIrOp *) g->ops->pdata[i])->kind == kind)
      f += plx_ir_op_flops (g, g->ops->pdata[i]);
  return f;
}

static guint
count (const PlxIrGraph *g, PlxIrKind kind)
{
  guint n = 0;

  for (guint i = 0; i < g->ops->len; i++)
    n += ((const PlxIrOp *) g->ops->pdata[i])->kind == kind;
  return n;
}

static const PlxIrTensor *
tensor_named (const PlxIrGraph *g, const char *name)
{
  for (guint i = 0; i < g->tensors->len; i++)
    if (g_str_equal (((const PlxIrTensor *) g->tensors->pdata[i])->name, name))
      return g->tensors->pdata[i];
  g_error ("no tensor \"%s\"", name);
  return NULL;
}

static void
test_mlp (void)
{
  /* Gemm x [32, 256] by w1 [256, 512] plus its bias: a matmul and an add;
   * ReLU; MatMul by w2 [512, 10]. Matmul FLOPs 2 x 32 x 256 x 512 + 2 x 32 x 512 x 10
   * = 8,716,288. Initializers are weights; x is data. */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = import ("mlp.onnx", NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (g->ops->len, ==, 4);
  g_assert_cmpuint (count (g, PLX_IR_MATMUL), ==, 2);
  g_assert_cmpuint (count (g, PLX_IR_ADD), ==, 1);
  g_assert_cmpfloat (flops_of (g, PLX_IR_MATMUL), ==, 8716288.0);
  g_assert_cmpint (tensor_named (g, "w1")->role, ==, PLX_IR_ROLE_WEIGHT);
  g_assert_cmpint (tensor_named (g, "x")->role, ==, PLX_IR_ROLE_DATA);
  g_assert_cmpint (tensor_named (g, "x")->dtype, ==, PLX_DTYPE_FP32);
  g_assert_cmpint (tensor_named (g, "y")->shape[1], ==, 10);
}

static void
test_cnn (void)
{
  /* conv1: 3x3 over 3 channels into 16, padding 1: [8, 16, 32, 32], 2 x 131,072 x 27
   * = 7,077,888 FLOPs. conv2: stride 2, (32 + 2 - 2 - 1) / 2 + 1 = 16: [8, 32, 16, 16],
   * 2 x 65,536 x 144 = 18,874,368. The pool keeps [8, 32, 1, 1], flattened to [8, 32];
   * the classifier 2 x 8 x 32 x 10 = 5,120. The copy whose weights were in a file
   * that no longer exists reads the same. */
  const char *files[] = { "cnn.onnx", "cnn-external.onnx" };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxIrGraph) g = import (files[f], NULL, &error);
      const PlxIrTensor *h2;

      g_assert_no_error (error);
      g_assert_cmpfloat (flops_of (g, PLX_IR_CONV), ==, 7077888.0 + 18874368.0);
      g_assert_cmpfloat (flops_of (g, PLX_IR_MATMUL), ==, 5120.0);
      h2 = tensor_named (g, "h2");
      g_assert_cmpint (h2->shape[1], ==, 32);
      g_assert_cmpint (h2->shape[2], ==, 16);
      g_assert_cmpint (h2->shape[3], ==, 16);
      g_assert_cmpint (tensor_named (g, "f")->rank, ==, 2);
    }
}

static void
test_cnn_training (void)
{
  /* Trained with a loss on its output, data parallel over 2: the images split
   * along the batch; each weight's gradient (the convolutions' among them) a
   * partial sum, all-reduced - 5 weights and biases, 5 all-reduces. Each
   * convolution's backward pass is one kernel pair, dX and dW, twice the forward
   * FLOPs: 2 x (7,077,888 + 18,874,368) on one device, halved by the split. (conv1's
   * dX is counted too, which a framework skips for an input that needs no gradient:
   * docs/ir.md.) */
  PlxOnnxOptions opts = { NULL, NULL, 0, TRUE };
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = import ("cnn.onnx", &opts, &error);
  g_autoptr (PlxIrGraph) t = NULL;
  g_autoptr (PlxIrGraph) p = NULL;
  g_autoptr (JsonNode) cnode = plx_json_parse_data (TEST_IDEAL_CLUSTER (1, 1e11, 1e10), -1, "ideal", NULL);
  g_autoptr (PlxCluster) c = plx_cluster_new_from_json (cnode, "ideal", NULL);
  PlxIrParallel par = { 2, 1, 1, 1, PLX_IR_SCHEDULE_1F1B };

  g_assert_no_error (error);
  t = plx_ir_training_graph (g, PLX_IR_OPTIMIZER_SGD, "cnn.onnx", &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (flops_of (t, PLX_IR_CONV_GRAD), ==, 2.0 * (7077888.0 + 18874368.0));
  p = plx_ir_parallelize (t, &par, c, "cnn.onnx", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count (p, PLX_IR_ALL_REDUCE), ==, 5);
  g_assert_cmpfloat (flops_of (p, PLX_IR_CONV_GRAD), ==, 7077888.0 + 18874368.0);
  g_assert_true (plx_ir_graph_check (p, "cnn dp2", &error));
  g_assert_no_error (error);
}

/* A ResNet stem and basic block as exported for training (make-models.py
 * resnet_block): batch norms with training_mode=1, max pools, one with ceil_mode.
 * Shapes by ONNX's rule (onnx.shape_inference gives the same):
 *   conv1 7x7 stride 2 pad 3: (32 + 6 - 6 - 1) / 2 + 1 = 16 -> [4, 16, 16, 16]
 *   pool1 3x3 stride 2 pad 1: (16 + 2 - 2 - 1) / 2 + 1 = 8  -> [4, 16, 8, 8]
 *   conv2 3x3 pad 1 -> [4, 16, 8, 8]
 *   pool2 3x3 stride 2 ceil:  ceil((8 - 3) / 2) + 1 = 4, the last window starting at
 *     6 < 8, inside the input -> [4, 16, 4, 4] (floor would give 3).
 * FLOPs: conv1 2 x 16,384 outputs x (3 x 7 x 7) = 4,816,896; conv2 2 x 4,096 x
 * (16 x 3 x 3) = 1,179,648; the batch norms at the IR's 8 a element (docs/ir.md)
 * 8 x 16,384 + 8 x 4,096 = 163,840; the pools one comparison an input element,
 * 16,384 + 4,096 = 20,480. Bytes of bn1: x and y, 16,384 fp32 each, and the scale
 * and bias, 16 each: 4 x (2 x 16,384 + 32) = 131,200. pool1: x 16,384 and y 4,096
 * elements: 81,920 bytes. */
static void
test_resnet_block (void)
{
  PlxOnnxOptions opts = { NULL, NULL, 0, TRUE };
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = import ("resnet-block.onnx", &opts, &error);
  g_autoptr (PlxIrGraph) t = NULL;
  g_autoptr (PlxIrGraph) p = NULL;
  g_autoptr (JsonNode) cnode = plx_json_parse_data (TEST_IDEAL_CLUSTER (1, 1e11, 1e10), -1, "ideal", NULL);
  g_autoptr (PlxCluster) c = plx_cluster_new_from_json (cnode, "ideal", NULL);
  PlxIrParallel par = { 2, 1, 1, 1, PLX_IR_SCHEDULE_1F1B };
  const PlxIrTensor *p2;

  g_assert_no_error (error);
  g_assert_cmpuint (count (g, PLX_IR_BATCH_NORM), ==, 2);
  g_assert_cmpuint (count (g, PLX_IR_MAX_POOL), ==, 2);
  g_assert_cmpint (tensor_named (g, "p1")->shape[2], ==, 8);
  p2 = tensor_named (g, "p2");
  g_assert_cmpint (p2->shape[1], ==, 16);
  g_assert_cmpint (p2->shape[2], ==, 4);
  g_assert_cmpint (p2->shape[3], ==, 4);
  g_assert_cmpfloat (flops_of (g, PLX_IR_CONV), ==, 4816896.0 + 1179648.0);
  g_assert_cmpfloat (flops_of (g, PLX_IR_BATCH_NORM), ==, 163840.0);
  g_assert_cmpfloat (flops_of (g, PLX_IR_MAX_POOL), ==, 20480.0);
  for (guint i = 0; i < g->ops->len; i++)
    {
      const PlxIrOp *op = g->ops->pdata[i];
      if (g_str_equal (op->name, "bn1"))
        g_assert_cmpfloat (plx_ir_op_bytes (g, op), ==, 131200.0);
      if (g_str_equal (op->name, "pool1"))
        g_assert_cmpfloat (plx_ir_op_bytes (g, op), ==, 81920.0);
    }
  /* The running statistics are buffers, not trained. */
  g_assert_cmpint (tensor_named (g, "bn1_m")->role, ==, PLX_IR_ROLE_CONSTANT);
  g_assert_cmpint (tensor_named (g, "bn2_v")->role, ==, PLX_IR_ROLE_CONSTANT);
  g_assert_cmpint (tensor_named (g, "bn1_s")->role, ==, PLX_IR_ROLE_WEIGHT);

  /* Trained data parallel over 2: the weights are the two convolutions, the batch
   * norms' scales and biases and the classifier's two: 8 gradients, 8 all-reduces
   * (12 if the running statistics were trained). */
  t = plx_ir_training_graph (g, PLX_IR_OPTIMIZER_SGD, "resnet-block.onnx", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count (t, PLX_IR_BATCH_NORM_GRAD), ==, 2);
  g_assert_cmpuint (count (t, PLX_IR_MAX_POOL_GRAD), ==, 2);
  p = plx_ir_parallelize (t, &par, c, "resnet-block.onnx", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count (p, PLX_IR_ALL_REDUCE), ==, 8);
  g_assert_true (plx_ir_graph_check (p, "resnet-block dp2", &error));
  g_assert_no_error (error);
}

/* --dtype (PlxOnnxOptions.cast_floats): the fp32 MLP held and computed in bf16. On a
 * GPU of 1e14 FLOP/s in bf16, 1e13 in fp32 and 1e12 B/s, efficiencies 1: fc1
 * ([32, 256] x [256, 512], 8,388,608 FLOPs) reads x and w1 and writes h: 32 x 256 +
 * 256 x 512 + 32 x 512 = 155,648 elements. In fp32 the compute bound rules:
 * 8,388,608 / 1e13 = 838.8608 ns (622,592 B take 622.592 ns); in bf16 the bytes:
 * 311,296 B / 1e12 = 311.296 ns (compute 83.886 ns). The gpt2 decoder's int64 ids
 * stay 4-byte elements while its embedding table turns bf16. */
static void
test_dtype (void)
{
  static const char *const cluster_json =
    "{ \"name\": \"ideal\", \"num_nodes\": 1, \"gpus_per_node\": 8,"
    "  \"gpu\": { \"name\": \"ideal\", \"peak_flops\": { \"bf16\": 1e14, \"fp16\": 1e14, \"fp32\": 1e13 },"
    "           \"hbm_bytes\": 85899345920, \"hbm_bw_Bps\": 1e12,"
    "           \"efficiency\": { \"matmul\": [[1, 1.0]], \"memory\": [[1, 1.0]], \"kernel_launch_s\": 0,"
    "                           \"attention\": 1.0 } },"
    "  \"intra_node\": { \"bw_Bps\": 1e11, \"latency_s\": 0, \"efficiency\": [[1, 1.0]] },"
    "  \"inter_node\": { \"bw_Bps\": 1e10, \"latency_s\": 0, \"efficiency\": [[1, 1.0]] } }";
  g_autoptr (JsonNode) cnode = plx_json_parse_data (cluster_json, -1, "ideal", NULL);
  g_autoptr (PlxCluster) c = plx_cluster_new_from_json (cnode, "ideal", NULL);
  const char *names[] = { "batch" };
  const gint64 values[] = { 4 };
  const PlxOnnxOptions as_file = { NULL, NULL, 0, FALSE, FALSE, PLX_DTYPE_BF16 };
  const PlxOnnxOptions bf16 = { NULL, NULL, 0, FALSE, TRUE, PLX_DTYPE_BF16 };
  const PlxOnnxOptions gpt2_bf16 = { names, values, 1, FALSE, TRUE, PLX_DTYPE_BF16 };
  const double expected_s[2] = { 838.8608e-9, 311.296e-9 };
  const PlxOnnxOptions *opts[2] = { &as_file, &bf16 };
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) gpt2 = NULL;

  g_assert_nonnull (c);
  for (guint k = 0; k < 2; k++)
    {
      g_autoptr (PlxIrGraph) g = import ("mlp.onnx", opts[k], &error);
      const PlxIrOp *fc1 = NULL;

      g_assert_no_error (error);
      g_assert_cmpint (tensor_named (g, "w1")->dtype, ==, k == 0 ? PLX_DTYPE_FP32 : PLX_DTYPE_BF16);
      g_assert_cmpint (tensor_named (g, "y")->dtype, ==, k == 0 ? PLX_DTYPE_FP32 : PLX_DTYPE_BF16);
      for (guint i = 0; i < g->ops->len; i++)
        if (g_str_equal (((const PlxIrOp *) g->ops->pdata[i])->name, "fc1"))
          fc1 = g->ops->pdata[i];
      g_assert_nonnull (fc1);
      g_assert_cmpint (fc1->kind, ==, PLX_IR_MATMUL);
      g_assert_cmpfloat (plx_ir_op_bytes (g, fc1), ==, (k == 0 ? 4.0 : 2.0) * 155648);
      g_assert_cmpfloat_with_epsilon (plx_ir_op_time (g, fc1, c), expected_s[k], 1e-12 * expected_s[k]);
    }
  gpt2 = import ("gpt2.onnx", &gpt2_bf16, &error);
  g_assert_no_error (error);
  g_assert_cmpint (tensor_named (gpt2, "ids")->dtype, ==, PLX_DTYPE_FP32);
  g_assert_cmpint (tensor_named (gpt2, "wte")->dtype, ==, PLX_DTYPE_BF16);
  g_assert_cmpint (tensor_named (gpt2, "tok")->dtype, ==, PLX_DTYPE_BF16);
}

static void
test_gpt2 (void)
{
  /* GPT-2's decoder, 2 blocks of hidden 128, 4 heads, 64 positions, vocabulary 1000,
   * batch 4 (the symbolic "batch" given): 256 rows. Per block, 2 x 256 x: QKV
   * 128 x 384 (25,165,824), the output projection 128 x 128 (8,388,608), the MLP
   * 128 x 512 and back (33,554,432 each); the scores and the context
   * 2 x (4 x 4 x 64 x 64) x 32 each (4,194,304): 109,051,904; the LM head
   * 2 x 256 x 128 x 1000 = 65,536,000. 283,639,808 in all (Kaplan et al. 2020 §2.1
   * count the same matmuls). */
  const char *names[] = { "batch" };
  const gint64 values[] = { 4 };
  PlxOnnxOptions opts = { names, values, 1, TRUE };
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = import ("gpt2.onnx", &opts, &error);
  g_autoptr (PlxIrGraph) t = NULL;
  g_autoptr (JsonNode) cnode = plx_json_parse_data (TEST_IDEAL_CLUSTER (1, 1e11, 1e10), -1, "ideal", NULL);
  g_autoptr (PlxCluster) c = plx_cluster_new_from_json (cnode, "ideal", NULL);
  const PlxIrTensor *scores;

  g_assert_no_error (error);
  g_assert_cmpfloat (flops_of (g, PLX_IR_MATMUL), ==, 283639808.0);
  g_assert_cmpuint (count (g, PLX_IR_LAYER_NORM), ==, 5);
  g_assert_cmpuint (count (g, PLX_IR_SOFTMAX), ==, 2);
  g_assert_cmpuint (count (g, PLX_IR_GELU), ==, 2);
  scores = tensor_named (g, "h1.s0");
  g_assert_cmpuint (scores->rank, ==, 4);
  g_assert_cmpint (scores->shape[1], ==, 4);
  g_assert_cmpint (scores->shape[3], ==, 64);
  g_assert_cmpint (tensor_named (g, "tok")->shape[0], ==, 4);

  /* It trains and spreads: data parallel 2 x tensor parallel 2 over 2 stages of 2
   * micro-batches, every shape rule holding in the program; the position ids ([1,
   * 64], no batch) are read whole by every device. */
  t = plx_ir_training_graph (g, PLX_IR_OPTIMIZER_ADAM, "gpt2.onnx", &error);
  g_assert_no_error (error);
  {
    PlxIrParallel par = { 2, 2, 2, 2, PLX_IR_SCHEDULE_1F1B };
    g_autoptr (PlxIrGraph) p = plx_ir_parallelize (t, &par, c, "gpt2.onnx", &error);
    PlxIrRun run;
    g_assert_no_error (error);
    g_assert_cmpuint (p->n_devices, ==, 8);
    plx_ir_graph_check (p, "gpt2 program", &error);
    g_assert_no_error (error);
    g_assert_true (plx_ir_simulate (p, c, &run, &error));
    g_assert_cmpfloat (run.makespan_s, >, 0.0);
    plx_ir_run_clear (&run);
  }
}

static void
test_refusals (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = NULL;
  g_autofree char *junk = g_build_filename (models_dir, "junk.onnx", NULL);

  /* An op Parallax cannot cost: named with its node. */
  g = import ("einsum.onnx", NULL, &error);
  g_assert_null (g);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "einsum.onnx: node \"mix\" (Einsum): Parallax cannot cost this op"));
  g_clear_error (&error);
  /* A symbolic batch without its size. */
  g = import ("gpt2.onnx", NULL, &error);
  g_assert_null (g);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY);
  g_assert_nonnull (strstr (error->message, "input \"ids\": dimension 0 is symbolic (\"batch\"); give its size "
                                            "(--dim batch=N)"));
  g_clear_error (&error);
  /* Not a model at all. */
  g_assert_true (g_file_set_contents (junk, "{ \"this\": \"is JSON\" }", -1, NULL));
  g = import ("junk.onnx", NULL, &error);
  g_assert_null (g);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "junk.onnx: not an ONNX model"));
  g_clear_error (&error);
  /* A file that is not there. */
  g = import ("absent.onnx", NULL, &error);
  g_assert_null (g);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_NOT_FOUND);
  g_unlink (junk);
}

/* Serving the GPT-2-shaped decoder with a KV cache (make-models.py gpt2_past: 2
 * layers, 4 heads of 32, vocabulary 1000, 1024 positions, fp32), 8 sequences, a
 * 512-token prompt, 128 tokens generated. */
static void
test_serve_gpt2 (void)
{
  g_autofree char *path = g_build_filename (models_dir, "gpt2-past.onnx", NULL);
  g_autofree char *no_past = g_build_filename (models_dir, "gpt2.onnx", NULL);
  g_autoptr (PlxScenario) sc = test_scenario_from_string (
    "{ \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 },"
    "  \"strategy\": { \"tp\": 8, \"pp\": 1, \"global_batch_size\": 8, \"seq_length\": 2048 } }");
  g_autoptr (GError) error = NULL;
  PlxIrInferenceOptions o = { path, NULL, NULL, 0, NULL, NULL, NULL, 8, 512, 128, 1, 1, 1 };
  PlxIrInferenceReport r, split;

  g_assert_true (plx_ir_inference_run (&o, sc->cluster, &r, &error));
  g_assert_no_error (error);
  /* The cache at its longest: the prompt and 127 generated tokens, keys and values
   * of 2 layers, 8 sequences, 4 heads of 32, 4 bytes each. */
  g_assert_cmpfloat (r.kv_cache_bytes, ==, 2.0 * 2 * 8 * 4 * (512 + 127) * 32 * 4);
  /* Weights: wte 1000 x 128, wpe 1024 x 128, per layer 2 LayerNorms (2 x 2 x 128),
   * QKV 128 x 384 + 384, projection 128 x 128 + 128, MLP 128 x 512 + 512 and
   * 512 x 128 + 128; the final LayerNorm, the LM head 128 x 1000; and the attention
   * scale, a one-element initializer: 783,872 parameters and one, 4 bytes each. */
  g_assert_cmpfloat (r.weight_bytes, ==, 4.0 * (1000 * 128 + 1024 * 128 +
                                                2 * (4 * 128 + 128 * 384 + 384 + 128 * 128 + 128 + 128 * 512 + 512 +
                                                     512 * 128 + 128) + 2 * 128 + 128 * 1000 + 1));
  /* The prompt costs more than a token; the mean step lies between the first and
   * the last (Simpson's rule over them and the middle); generation runs at the
   * batch over the mean step. */
  g_assert_cmpfloat (r.prefill_s, >, r.decode_first_s);
  g_assert_cmpfloat (r.decode_per_token_s, >=, MIN (r.decode_first_s, r.decode_last_s) * 0.999);
  g_assert_cmpfloat (r.decode_per_token_s, <=, MAX (r.decode_first_s, r.decode_last_s) * 1.001);
  g_assert_cmpfloat_with_epsilon (r.tokens_per_s, 8.0 * 128 / (128 * r.decode_per_token_s), 1e-9 * r.tokens_per_s);
  g_assert_cmpfloat_with_epsilon (r.step_s, r.prefill_s + 128 * r.decode_per_token_s, 1e-12);
  g_assert_true (r.fits_in_memory);
  g_assert_cmpfloat (r.peak_bytes, >=, r.weight_bytes + r.kv_cache_bytes);

  /* Two replicas of tp 2 x pp 2: each serves 4 sequences; the cache and the weights
   * a GPU holds are a replica's over its 4 GPUs. */
  o.dp = 2;
  o.tp = 2;
  o.pp = 2;
  g_assert_true (plx_ir_inference_run (&o, sc->cluster, &split, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (split.n_devices, ==, 8);
  g_assert_cmpfloat (split.kv_cache_bytes, ==, r.kv_cache_bytes / 2 / 4);
  g_assert_cmpfloat (split.weight_bytes, ==, r.weight_bytes / 4);

  /* Refusals: a batch that does not split over the replicas, a model without a
   * cache input, more GPUs than the cluster has. */
  o.batch = 7;
  g_assert_false (plx_ir_inference_run (&o, sc->cluster, &split, &error));
  g_assert_nonnull (strstr (error->message, "gpt2-past.onnx: batch 7 does not split over 2 replicas (dp)"));
  g_clear_error (&error);
  o.batch = 8;
  o.dp = 4;
  g_assert_false (plx_ir_inference_run (&o, sc->cluster, &split, &error));
  g_assert_nonnull (strstr (error->message, "dp 4 x tp 2 x pp 2 is 16 GPUs; the cluster"));
  g_clear_error (&error);
  o.dp = o.tp = o.pp = 1;
  o.path = no_past;
  g_assert_false (plx_ir_inference_run (&o, sc->cluster, &split, &error));
  g_assert_nonnull (strstr (error->message, "gpt2.onnx: no input has the dimension \"past\""));
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  models_dir = test_onnx_models_make ();
  g_test_add_func ("/core/onnx/mlp", test_mlp);
  g_test_add_func ("/core/onnx/cnn", test_cnn);
  g_test_add_func ("/core/onnx/cnn-training", test_cnn_training);
  g_test_add_func ("/core/onnx/resnet-block", test_resnet_block);
  g_test_add_func ("/core/onnx/dtype", test_dtype);
  g_test_add_func ("/core/onnx/gpt2", test_gpt2);
  g_test_add_func ("/core/onnx/refusals", test_refusals);
  g_test_add_func ("/core/onnx/serve-gpt2", test_serve_gpt2);
  status = g_test_run ();
  test_rm_rf (models_dir);
  g_free (models_dir);
  return status;
}
