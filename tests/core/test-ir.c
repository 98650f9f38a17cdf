/* The distributed-program IR (docs/ir.md): a two-layer MLP split over two devices,
 * read, counted by hand and written back; and every kind of bad program refused
 * with an error that names the op, the tensor and the value. */
#include <string.h>

#include "parallax/parallax.h"

#include "test-util.h"
#include "ir/plx-ir.h"

/* DistIR's MLP shape (Santhanam et al. 2021 §5.1), horizontally parallel over two
 * devices (Megatron's column then row split, Shoeybi et al. 2019 §3): each device
 * multiplies the batch by its half of w1 (1024 x 2048 of 1024 x 4096), applies ReLU,
 * multiplies by its half of w2 (2048 x 1024), and the partial sums are all-reduced;
 * device 1 then sends the result to device 0. */
#define MLP_TP2 \
  "{ \"format\": \"parallax-ir\", \"version\": 1, \"devices\": 2," \
  "  \"tensors\": [" \
  "    { \"name\": \"x\", \"shape\": [64, 1024] }," \
  "    { \"name\": \"w1_0\", \"shape\": [1024, 2048] }, { \"name\": \"w1_1\", \"shape\": [1024, 2048] }," \
  "    { \"name\": \"h_0\", \"shape\": [64, 2048] }, { \"name\": \"h_1\", \"shape\": [64, 2048] }," \
  "    { \"name\": \"a_0\", \"shape\": [64, 2048] }, { \"name\": \"a_1\", \"shape\": [64, 2048] }," \
  "    { \"name\": \"w2_0\", \"shape\": [2048, 1024] }, { \"name\": \"w2_1\", \"shape\": [2048, 1024] }," \
  "    { \"name\": \"y_0\", \"shape\": [64, 1024], \"dtype\": \"fp32\" }," \
  "    { \"name\": \"y_1\", \"shape\": [64, 1024], \"dtype\": \"fp32\" }," \
  "    { \"name\": \"y\", \"shape\": [64, 1024], \"dtype\": \"fp32\" }," \
  "    { \"name\": \"y_at_0\", \"shape\": [64, 1024], \"dtype\": \"fp32\" } ]," \
  "  \"ops\": [" \
  "    { \"name\": \"fc1_0\", \"op\": \"matmul\", \"inputs\": [\"x\", \"w1_0\"], \"outputs\": [\"h_0\"], \"devices\": [0] }," \
  "    { \"name\": \"fc1_1\", \"op\": \"matmul\", \"inputs\": [\"x\", \"w1_1\"], \"outputs\": [\"h_1\"], \"devices\": [1] }," \
  "    { \"name\": \"relu_0\", \"op\": \"relu\", \"inputs\": [\"h_0\"], \"outputs\": [\"a_0\"], \"devices\": [0] }," \
  "    { \"name\": \"relu_1\", \"op\": \"relu\", \"inputs\": [\"h_1\"], \"outputs\": [\"a_1\"], \"devices\": [1] }," \
  "    { \"name\": \"fc2_0\", \"op\": \"matmul\", \"inputs\": [\"a_0\", \"w2_0\"], \"outputs\": [\"y_0\"], \"devices\": [0] }," \
  "    { \"name\": \"fc2_1\", \"op\": \"matmul\", \"inputs\": [\"a_1\", \"w2_1\"], \"outputs\": [\"y_1\"], \"devices\": [1] }," \
  "    { \"name\": \"sum\", \"op\": \"all_reduce\", \"inputs\": [\"y_0\", \"y_1\"], \"outputs\": [\"y\"], \"devices\": [0, 1] }," \
  "    { \"name\": \"to_0\", \"op\": \"send\", \"inputs\": [\"y\"], \"outputs\": [\"y_at_0\"], \"devices\": [1], \"peer\": 0 } ] }"

static PlxIrGraph *
load (const char *text, GError **error)
{
  g_autoptr (JsonNode) node = plx_json_parse_data (text, -1, "mlp.json", error);

  if (node == NULL)
    return NULL;
  return plx_ir_graph_new_from_json (node, "mlp.json", error);
}

static const PlxIrOp *
find (const PlxIrGraph *g, const char *name)
{
  for (guint i = 0; i < g->ops->len; i++)
    if (g_str_equal (((const PlxIrOp *) g->ops->pdata[i])->name, name))
      return g->ops->pdata[i];
  g_assert_not_reached ();
  return NULL;
}

static void
test_mlp (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = load (MLP_TP2, &error);
  double flops = 0.0;

  g_assert_no_error (error);
  g_assert_cmpuint (g->n_devices, ==, 2);
  g_assert_cmpuint (g->tensors->len, ==, 13);
  g_assert_cmpuint (g->ops->len, ==, 8);
  /* fc1 on one device: 64 x 2048 outputs, each 1024 multiply-adds: 268,435,456. */
  g_assert_cmpfloat (plx_ir_op_flops (g, find (g, "fc1_0")), ==, 2.0 * 64 * 2048 * 1024);
  /* It reads x (64 x 1024) and its w1 half (1024 x 2048) and writes h (64 x 2048),
   * 2 bytes each in bf16: 4,587,520 bytes. */
  g_assert_cmpfloat (plx_ir_op_bytes (g, find (g, "fc1_0")), ==, 2.0 * (64 * 1024 + 1024 * 2048 + 64 * 2048));
  /* fc2 writes fp32: 2 x (64 x 2048 + 2048 x 1024) + 4 x 64 x 1024. */
  g_assert_cmpfloat (plx_ir_op_bytes (g, find (g, "fc2_1")), ==, 2.0 * (64 * 2048 + 2048 * 1024) + 4.0 * 64 * 1024);
  g_assert_cmpfloat (plx_ir_op_flops (g, find (g, "relu_1")), ==, 64.0 * 2048);
  g_assert_cmpfloat (plx_ir_op_flops (g, find (g, "sum")), ==, 0.0);
  g_assert_true (plx_ir_kind_is_collective (find (g, "sum")->kind));
  g_assert_false (plx_ir_kind_is_collective (find (g, "fc2_1")->kind));
  /* The whole MLP's matmuls, split or not: 2 x 64 x (1024 x 4096 + 4096 x 1024). */
  for (guint i = 0; i < g->ops->len; i++)
    if (((const PlxIrOp *) g->ops->pdata[i])->kind == PLX_IR_MATMUL)
      flops += plx_ir_op_flops (g, g->ops->pdata[i]);
  g_assert_cmpfloat (flops, ==, 2.0 * 64 * (1024.0 * 4096 + 4096.0 * 1024));
  g_assert_cmpuint (find (g, "to_0")->peers[0], ==, 0);
  g_assert_cmpint (((const PlxIrTensor *) g->tensors->pdata[0])->producer, ==, -1);
}

static void
test_round_trip (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = load (MLP_TP2, &error);
  g_autoptr (JsonNode) once = NULL, twice = NULL;
  g_autoptr (PlxIrGraph) again = NULL;
  g_autofree char *a = NULL, *b = NULL;

  g_assert_no_error (error);
  once = plx_ir_graph_to_json (g);
  again = plx_ir_graph_new_from_json (once, "written", &error);
  g_assert_no_error (error);
  twice = plx_ir_graph_to_json (again);
  a = json_to_string (once, FALSE);
  b = json_to_string (twice, FALSE);
  g_assert_cmpstr (a, ==, b);
  /* What is written is what was read: shapes, dtypes, devices, the peer. */
  g_assert_nonnull (strstr (a, "{\"name\":\"y_0\",\"shape\":[64,1024],\"dtype\":\"fp32\"}"));
  g_assert_nonnull (strstr (a, "\"op\":\"send\",\"inputs\":[\"y\"],\"outputs\":[\"y_at_0\"],\"devices\":[1],\"peer\":0"));
}

/* A program with one op replaced: `find` in the MLP text becomes `replace`. */
static void
check_bad (const char *find_text, const char *replace, PlxError code, const char *const *needles)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = NULL;
  const char *at = strstr (MLP_TP2, find_text);

  g_assert_nonnull (at);
  text = g_strdup_printf ("%.*s%s%s", (int) (at - MLP_TP2), MLP_TP2, replace, at + strlen (find_text));
  g = load (text, &error);
  g_assert_null (g);
  g_assert_error (error, PLX_ERROR, (gint) code);
  for (guint i = 0; needles[i] != NULL; i++)
    {
      if (strstr (error->message, needles[i]) == NULL)
        g_test_message ("\"%s\" not in: %s", needles[i], error->message);
      g_assert_nonnull (strstr (error->message, needles[i]));
    }
}

#define BAD(find_text, replace, code, ...) \
  G_STMT_START { \
    const char *const needles_[] = { __VA_ARGS__, NULL }; \
    check_bad (find_text, replace, code, needles_); \
  } G_STMT_END

static void
test_errors (void)
{
  /* An op nobody can cost. */
  BAD ("\"op\": \"relu\", \"inputs\": [\"h_0\"]", "\"op\": \"swish2\", \"inputs\": [\"h_0\"]", PLX_ERROR_UNSUPPORTED,
       "mlp.json", "ops[2].op", "\"swish2\"", "relu_0");
  /* Inner dimensions that do not meet: w1 as 2048 x 1024. */
  BAD ("{ \"name\": \"w1_0\", \"shape\": [1024, 2048] }", "{ \"name\": \"w1_0\", \"shape\": [2048, 1024] }",
       PLX_ERROR_INCONSISTENT, "ops[0]", "matmul \"fc1_0\"", "[64, 1024], [2048, 1024] -> [64, 2048]");
  /* A tensor that is not there. */
  BAD ("[\"x\", \"w1_0\"]", "[\"x\", \"w1\"]", PLX_ERROR_INCONSISTENT, "ops[0].inputs[1]", "\"w1\"",
       "not a tensor");
  /* Out of order: ReLU before the matmul that writes its input. */
  BAD ("{ \"name\": \"fc1_0\", \"op\": \"matmul\", \"inputs\": [\"x\", \"w1_0\"], \"outputs\": [\"h_0\"], \"devices\": [0] },"
       "    { \"name\": \"fc1_1\", \"op\": \"matmul\", \"inputs\": [\"x\", \"w1_1\"], \"outputs\": [\"h_1\"], \"devices\": [1] },"
       "    { \"name\": \"relu_0\", \"op\": \"relu\", \"inputs\": [\"h_0\"], \"outputs\": [\"a_0\"], \"devices\": [0] },",
       "{ \"name\": \"relu_0\", \"op\": \"relu\", \"inputs\": [\"h_0\"], \"outputs\": [\"a_0\"], \"devices\": [0] },"
       "    { \"name\": \"fc1_0\", \"op\": \"matmul\", \"inputs\": [\"x\", \"w1_0\"], \"outputs\": [\"h_0\"], \"devices\": [0] },"
       "    { \"name\": \"fc1_1\", \"op\": \"matmul\", \"inputs\": [\"x\", \"w1_1\"], \"outputs\": [\"h_1\"], \"devices\": [1] },",
       PLX_ERROR_INCONSISTENT, "op \"relu_0\" reads tensor \"h_0\" before op \"fc1_0\" writes it");
  /* Two writers of one tensor. */
  BAD ("\"outputs\": [\"h_1\"]", "\"outputs\": [\"h_0\"]", PLX_ERROR_INCONSISTENT,
       "tensor \"h_0\" is written by op \"fc1_0\" and again by op \"fc1_1\"");
  /* A device the program does not have. */
  BAD ("\"outputs\": [\"a_1\"], \"devices\": [1]", "\"outputs\": [\"a_1\"], \"devices\": [5]",
       PLX_ERROR_INVALID_VALUE, "ops[3].devices[0]: 5 is not a device (0 to 1)");
  /* A misspelt key: the one meant is named. */
  BAD ("\"op\": \"relu\", \"inputs\": [\"h_1\"]", "\"op\": \"relu\", \"input\": [\"h_1\"]", PLX_ERROR_UNKNOWN_KEY,
       "mlp.json: ops[3].input: unknown key", "\"inputs\"");
  /* A negative or zero dimension. */
  BAD ("\"shape\": [64, 1024] },", "\"shape\": [64, -1] },", PLX_ERROR_INVALID_VALUE, "tensors[0].shape[1]",
       "-1");
  /* A send to itself. */
  BAD ("\"devices\": [1], \"peer\": 0", "\"devices\": [1], \"peer\": 1", PLX_ERROR_INCONSISTENT,
       "send \"to_0\"", "a device sends to itself");
  /* A send from one device given as a list of receivers that does not match. */
  BAD ("\"devices\": [1], \"peer\": 0", "\"devices\": [1], \"peers\": [0, 1]", PLX_ERROR_INCONSISTENT,
       "ops[7].peers: send \"to_0\" has 1 devices and 2 peers");
  /* A receiver on an op that is not a send. */
  BAD ("\"outputs\": [\"a_1\"], \"devices\": [1]", "\"outputs\": [\"a_1\"], \"devices\": [1], \"peer\": 0",
       PLX_ERROR_INCONSISTENT, "ops[3].peer: op \"relu_1\" is a relu; only a send has one");
  /* A transposed operand on an op that is not a matmul. */
  BAD ("\"outputs\": [\"a_1\"], \"devices\": [1]", "\"outputs\": [\"a_1\"], \"devices\": [1], \"transpose_a\": true",
       PLX_ERROR_INCONSISTENT, "ops[3].transpose_a: op \"relu_1\" is a relu, not a matmul");
  /* A transposed weight whose dimensions then do not meet. */
  BAD ("\"inputs\": [\"x\", \"w1_0\"], \"outputs\": [\"h_0\"], \"devices\": [0]",
       "\"inputs\": [\"x\", \"w1_0\"], \"outputs\": [\"h_0\"], \"devices\": [0], \"transpose_b\": true",
       PLX_ERROR_INCONSISTENT, "matmul \"fc1_0\" ([64, 1024], [1024, 2048] -> [64, 2048])",
       "the inner dimensions of the operands (as multiplied) differ");
  /* A role that is not one. */
  BAD ("{ \"name\": \"x\", \"shape\": [64, 1024] }", "{ \"name\": \"x\", \"shape\": [64, 1024], \"role\": \"bias\" }",
       PLX_ERROR_INVALID_VALUE, "tensors[0].role: \"bias\" is not a role (data, weight, constant, state)");
  /* An all-gather whose output is not the group's parts side by side. */
  BAD ("\"op\": \"all_reduce\", \"inputs\": [\"y_0\", \"y_1\"]", "\"op\": \"all_gather\", \"inputs\": [\"y_0\", \"y_1\"]",
       PLX_ERROR_INCONSISTENT, "all_gather \"sum\"", "the whole is not the part times the group");
  /* A collective over two devices with three inputs. */
  BAD ("\"inputs\": [\"y_0\", \"y_1\"], \"outputs\": [\"y\"]", "\"inputs\": [\"y_0\", \"y_1\", \"y_0\"], \"outputs\": [\"y\"]",
       PLX_ERROR_INCONSISTENT, "all_reduce \"sum\"", "one input (and output) or one per device of its group");
  /* Too many inputs. */
  BAD ("\"inputs\": [\"h_0\"], \"outputs\": [\"a_0\"]", "\"inputs\": [\"h_0\", \"x\"], \"outputs\": [\"a_0\"]",
       PLX_ERROR_INCONSISTENT, "relu \"relu_0\" takes inputs: 1, outputs: 1; it has 2 and 1");
  /* Not this format. */
  BAD ("\"format\": \"parallax-ir\"", "\"format\": \"onnx\"", PLX_ERROR_INVALID_VALUE, "program.format",
       "\"onnx\"");
}

static void
test_data_movement (void)
{
  /* GPT-2's embedding looked up, split in halves along the width and joined again,
   * reduce-scattered over 4 devices along the batch and gathered back, flattened and
   * averaged: the shape rules of each, and the mean's 1024 x 768 additions. */
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "ir", "gather-split-collectives.json", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = plx_ir_graph_new_from_file (path, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (g->n_devices, ==, 4);
  g_assert_cmpfloat (plx_ir_op_flops (g, find (g, "embed")), ==, 0.0);
  g_assert_cmpfloat (plx_ir_op_flops (g, find (g, "avg")), ==, 1024.0 * 768);
  g_assert_cmpint (find (g, "scatter")->axis, ==, 0);
  g_assert_cmpuint (find (g, "gather_back")->n_devices, ==, 4);
}

static void
test_simulate (void)
{
  /* The MLP on one ideal node (1e14 FLOP/s, 1e12 B/s of HBM, 1e11 B/s NVLink, no
   * latency): both devices in step. fc1 is memory-bound, 4,587,520 B: 4.58752 us
   * (its 268 MFLOP take 2.68 us); ReLU reads and writes 64 x 2048 x 2 B: 0.524288 us;
   * fc2 moves 4,718,592 B: 4.718592 us; the ring all-reduce of 262,144 B over 2
   * ranks moves 2(n-1)/n of it: 2.62144 us; the send the same 262,144 B: 2.62144 us.
   * 15.07328 us in all: device 0 computes 9.8304 us and communicates 5.24288 us (the
   * send occupies both ends).
   * Memory on device 0: x (131,072 B), w1_0 and w2_0 (4,194,304 B each) held
   * throughout, 8,519,680 B; at most two 262,144 B intermediates live at once (h_0
   * and a_0 during the ReLU; a_0 and y_0 during fc2, h_0 freed as fc2 starts; y_0 and
   * y; y and y_at_0): 9,043,968 B. */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = load (MLP_TP2, &error);
  g_autoptr (JsonNode) cluster_node = plx_json_parse_data (TEST_IDEAL_CLUSTER (1, 1e11, 1e10), -1, "ideal", NULL);
  g_autoptr (PlxCluster) c = plx_cluster_new_from_json (cluster_node, "ideal", NULL);
  PlxIrRun run;

  g_assert_no_error (error);
  g_assert_true (plx_ir_simulate (g, c, &run, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (run.op_end_s[0], 4.58752e-6, 1e-15);
  g_assert_cmpfloat_with_epsilon (run.op_start_s[1], 0.0, 1e-15);     /* fc1_1 beside fc1_0 */
  g_assert_cmpfloat_with_epsilon (run.op_end_s[4], 4.58752e-6 + 0.524288e-6 + 4.718592e-6, 1e-15);
  g_assert_cmpfloat_with_epsilon (run.op_end_s[6] - run.op_start_s[6], 2.62144e-6, 1e-15);
  g_assert_cmpfloat_with_epsilon (run.makespan_s, 15.07328e-6, 1e-15);
  g_assert_cmpfloat_with_epsilon (run.device_compute_s[0], 9.8304e-6, 1e-15);
  g_assert_cmpfloat_with_epsilon (run.device_comm_s[0], 5.24288e-6, 1e-15);
  g_assert_cmpfloat (run.device_input_bytes[0], ==, 8519680.0);
  g_assert_cmpfloat (run.device_peak_bytes[0], ==, 9043968.0);
  g_assert_cmpfloat (run.device_peak_bytes[1], ==, 9043968.0);
  g_assert_cmpfloat (run.flops, ==, 2.0 * (2 * 64.0 * 2048 * 1024 + 2 * 64.0 * 1024 * 2048 + 64.0 * 2048));
  g_assert_cmpfloat_with_epsilon (run.device_free_s[1], 15.07328e-6, 1e-15);
  plx_ir_run_clear (&run);
  /* A program for more devices than the cluster has is refused by name. */
  g->n_devices = 16;
  g_assert_false (plx_ir_simulate (g, c, &run, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
  g_assert_nonnull (strstr (error->message, "16 devices, but the cluster \"ideal\" has 8 GPUs"));
  plx_ir_run_clear (&run);
}

/* A convolution block in the shape of ResNet's: conv, batch norm, ReLU, a 2x2 max
 * pool, the global average and a classifier (tests/data/graphs/conv-bn-pool.json). */
static void
test_batch_norm_max_pool (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "graphs", "conv-bn-pool.json", NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = plx_ir_graph_new_from_file (path, &error);
  g_autoptr (JsonNode) cluster_node = plx_json_parse_data (TEST_IDEAL_CLUSTER (1, 1e11, 1e10), -1, "ideal", NULL);
  g_autoptr (PlxCluster) c = plx_cluster_new_from_json (cluster_node, "ideal", NULL);
  static const struct
  {
    const char *find, *replace, *why;
  } bad[] = {
    /* A scale of 5 for 6 channels. */
    { "{ \"name\": \"g\",      \"shape\": [6]", "{ \"name\": \"g\",      \"shape\": [5]",
      "batch_norm \"bn\" ([8, 6, 8, 8], [5] -> [8, 6, 8, 8]): the scale or bias is not one value per channel" },
    /* A pool that grows the image. */
    { "{ \"name\": \"p\",      \"shape\": [8, 6, 4, 4]", "{ \"name\": \"p\",      \"shape\": [8, 6, 9, 4]",
      "max_pool \"pool\" ([8, 6, 8, 8] -> [8, 6, 9, 4]): not x [N, C, H, W] -> [N, C, P, Q] with P <= H, Q <= W" },
    /* A pool that drops a channel. */
    { "{ \"name\": \"p\",      \"shape\": [8, 6, 4, 4]", "{ \"name\": \"p\",      \"shape\": [8, 5, 4, 4]",
      "not x [N, C, H, W] -> [N, C, P, Q]" },
  };

  g_assert_no_error (error);
  /* 8 x 6 x 8 x 8 = 3,072 elements: the batch norm's 8 FLOPs each (mean, variance,
   * normalise, scale and shift, as a layer norm's); the pool one comparison an input
   * element. */
  g_assert_cmpfloat (plx_ir_op_flops (g, find (g, "bn")), ==, 8.0 * 3072);
  g_assert_cmpfloat (plx_ir_op_flops (g, find (g, "pool")), ==, 3072.0);
  /* On 1e12 B/s of HBM: the batch norm reads c (6,144 B) twice, g and b (12 B each)
   * and writes n (6,144 B): 18,456 B, 18.456 ns; the pool reads r and writes p
   * (1,536 B): 7.68 ns. */
  g_assert_cmpfloat_with_epsilon (plx_ir_op_time (g, find (g, "bn"), c), 18.456e-9, 1e-20);
  g_assert_cmpfloat_with_epsilon (plx_ir_op_time (g, find (g, "pool"), c), 7.68e-9, 1e-20);

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *broken = NULL;
      g_autoptr (JsonNode) node = NULL;
      g_autoptr (PlxIrGraph) back = NULL;
      GString *s = g_string_new (text);

      g_assert_cmpuint (g_string_replace (s, bad[i].find, bad[i].replace, 1), ==, 1);
      broken = g_string_free (s, FALSE);
      node = plx_json_parse_data (broken, -1, "cnn.json", NULL);
      back = plx_ir_graph_new_from_json (node, "cnn.json", &error);
      g_assert_null (back);
      g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
      if (strstr (error->message, bad[i].why) == NULL)
        g_error ("\"%s\" not in: %s", bad[i].why, error->message);
      g_clear_error (&error);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/ir/mlp", test_mlp);
  g_test_add_func ("/core/ir/round-trip", test_round_trip);
  g_test_add_func ("/core/ir/errors", test_errors);
  g_test_add_func ("/core/ir/data-movement", test_data_movement);
  g_test_add_func ("/core/ir/simulate", test_simulate);
  g_test_add_func ("/core/ir/batch-norm-max-pool", test_batch_norm_max_pool);
  return g_test_run ();
}
