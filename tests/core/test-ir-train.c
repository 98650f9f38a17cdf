/* Training programs from forward graphs (docs/ir.md, "Training"): the backward pass
 * and the optimizer written for a two-layer MLP in DistIR's shape, counted by hand;
 * and the forward graphs that cannot be trained refused by name. */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "parallax/parallax.h"

#include "test-util.h"
#include "ir/plx-ir.h"
#include "ir/plx-partition-dag.h"

static PlxIrGraph *
load_file (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "graphs", name, NULL);
  g_autoptr (GError) error = NULL;
  PlxIrGraph *g = plx_ir_graph_new_from_file (path, &error);

  g_assert_no_error (error);
  return g;
}

static const PlxIrOp *
find_op (const PlxIrGraph *g, const char *name)
{
  for (guint i = 0; i < g->ops->len; i++)
    if (g_str_equal (((const PlxIrOp *) g->ops->pdata[i])->name, name))
      return g->ops->pdata[i];
  g_error ("no op \"%s\"", name);
  return NULL;
}

static guint
count_kind (const PlxIrGraph *g, PlxIrKind kind)
{
  guint n = 0;

  for (guint i = 0; i < g->ops->len; i++)
    n += ((const PlxIrOp *) g->ops->pdata[i])->kind == kind;
  return n;
}

static double
matmul_flops (const PlxIrGraph *g)
{
  double f = 0.0;

  for (guint i = 0; i < g->ops->len; i++)
    if (((const PlxIrOp *) g->ops->pdata[i])->kind == PLX_IR_MATMUL)
      f += plx_ir_op_flops (g, g->ops->pdata[i]);
  return f;
}

static void
test_mlp_backward (void)
{
  /* x [64, 1024] -> fc1 (w1 1024 x 1024) -> ReLU -> fc2 (w2) -> ReLU -> loss.
   * Backward: the loss's gradient; ReLU2's; fc2's two matmuls (dA1 = dH2 w2^T, dW2 =
   * A1^T dH2); ReLU1's; fc1's weight gradient only (x is data: no dX). 6 ops, 13
   * with the 5 forward and 2 SGD updates. Matmul FLOPs: 2 forward + 3 backward
   * matmuls of 2 x 64 x 1024 x 1024 each = 671,088,640. */
  g_autoptr (PlxIrGraph) fwd = load_file ("mlp-2layer.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) t = plx_ir_training_graph (fwd, PLX_IR_OPTIMIZER_SGD, "mlp-2layer.json", &error);
  const PlxIrOp *dw2, *da1, *dw1;

  g_assert_no_error (error);
  g_assert_cmpuint (t->ops->len, ==, 13);
  g_assert_cmpuint (count_kind (t, PLX_IR_MATMUL), ==, 5);
  g_assert_cmpuint (count_kind (t, PLX_IR_RELU_GRAD), ==, 2);
  g_assert_cmpuint (count_kind (t, PLX_IR_LOSS_GRAD), ==, 1);
  g_assert_cmpuint (count_kind (t, PLX_IR_OPTIMIZER), ==, 2);
  g_assert_cmpfloat (matmul_flops (t), ==, 5 * 2.0 * 64 * 1024 * 1024);
  /* Each gradient stored as its operand: dW2 = A1^T dH2 reads A1 transposed, dA1 =
   * dH2 w2^T reads w2 transposed. */
  dw2 = find_op (t, "matmul:w2");
  da1 = find_op (t, "matmul:a1");
  dw1 = find_op (t, "matmul:w1");
  g_assert_true (dw2->transpose_a && !dw2->transpose_b);
  g_assert_true (!da1->transpose_a && da1->transpose_b);
  g_assert_true (dw1->transpose_a);
  g_assert_cmpstr (((PlxIrTensor *) t->tensors->pdata[dw2->inputs[0]])->name, ==, "a1");
  g_assert_cmpstr (((PlxIrTensor *) t->tensors->pdata[dw2->inputs[1]])->name, ==, "d:h2");
  /* The update of w1 comes from fc1 (its stage in a pipeline), the backward ops
   * from the forward op they differentiate. */
  g_assert_cmpint (find_op (t, "update:w1")->origin, ==, 0);
  g_assert_cmpint (find_op (t, "update:w2")->origin, ==, 2);
  g_assert_cmpint (da1->origin, ==, 2);
  g_assert_cmpint (find_op (t, "update:w1")->phase, ==, PLX_IR_PHASE_OPTIMIZER);
  g_assert_cmpint (dw1->phase, ==, PLX_IR_PHASE_BACKWARD);
  /* What was written reads back: every shape rule holds. */
  g_assert_true (plx_ir_graph_check (t, "training", &error));
  g_assert_no_error (error);
}

static void
test_mlp_adam (void)
{
  /* Adam on bf16 weights: each update reads the weight, its gradient, an fp32 master
   * copy and two fp32 moments, and writes all but the gradient back. The state is
   * 12 bytes a parameter, the weight 2 (Rajbhandari et al. 2020 §3.1's 2 + 2 + 12
   * with the gradient). */
  g_autoptr (PlxIrGraph) fwd = load_file ("mlp-2layer.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) t = plx_ir_training_graph (fwd, PLX_IR_OPTIMIZER_ADAM, "mlp-2layer.json", &error);
  const PlxIrOp *u;
  double state = 0.0;

  g_assert_no_error (error);
  u = find_op (t, "update:w2");
  g_assert_cmpuint (u->n_inputs, ==, 5);
  g_assert_cmpuint (u->n_outputs, ==, 4);
  for (guint j = 2; j < u->n_inputs; j++)
    {
      const PlxIrTensor *s = t->tensors->pdata[u->inputs[j]];
      g_assert_cmpint (s->role, ==, PLX_IR_ROLE_STATE);
      state += plx_ir_tensor_bytes (s);
    }
  g_assert_cmpfloat (state, ==, 12.0 * 1024 * 1024);
  g_assert_true (plx_ir_graph_check (t, "training", &error));
  g_assert_no_error (error);
}

static void
expect_refused (const char *text, GQuark domain, gint code, const char *needle)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data (text, -1, "f.json", &error);
  g_autoptr (PlxIrGraph) fwd = NULL;
  g_autoptr (PlxIrGraph) t = NULL;

  g_assert_no_error (error);
  fwd = plx_ir_graph_new_from_json (node, "f.json", &error);
  g_assert_no_error (error);
  t = plx_ir_training_graph (fwd, PLX_IR_OPTIMIZER_SGD, "f.json", &error);
  g_assert_null (t);
  g_assert_error (error, domain, code);
  if (strstr (error->message, needle) == NULL)
    g_error ("\"%s\" not in: %s", needle, error->message);
}

#define TENSORS \
  "\"tensors\": [ { \"name\": \"x\", \"shape\": [8, 16] }, { \"name\": \"w\", \"shape\": [16, 16], " \
  "\"role\": \"weight\" }, { \"name\": \"y\", \"shape\": [8, 16] }, { \"name\": \"l\", \"shape\": [1] }, " \
  "{ \"name\": \"l2\", \"shape\": [1] }, { \"name\": \"y2\", \"shape\": [8, 16] } ]"

static void
test_refusals (void)
{
  /* No loss: nothing to differentiate. */
  expect_refused ("{ " TENSORS ", \"ops\": [ { \"name\": \"fc\", \"op\": \"matmul\", \"inputs\": [\"x\", \"w\"], "
                  "\"outputs\": [\"y\"] } ] }", PLX_ERROR, PLX_ERROR_MISSING_KEY, "f.json: no op is a loss");
  /* Two losses. */
  expect_refused ("{ " TENSORS ", \"ops\": [ { \"name\": \"fc\", \"op\": \"matmul\", \"inputs\": [\"x\", \"w\"], "
                  "\"outputs\": [\"y\"] }, { \"name\": \"l_a\", \"op\": \"loss\", \"inputs\": [\"y\", \"x\"], "
                  "\"outputs\": [\"l\"] }, { \"name\": \"l_b\", \"op\": \"loss\", \"inputs\": [\"y\", \"x\"], "
                  "\"outputs\": [\"l2\"] } ] }", PLX_ERROR, PLX_ERROR_INCONSISTENT,
                  "ops \"l_a\" and \"l_b\" are both losses");
  /* A loss no weight reaches. */
  expect_refused ("{ " TENSORS ", \"ops\": [ { \"name\": \"l_a\", \"op\": \"loss\", \"inputs\": [\"x\", \"x\"], "
                  "\"outputs\": [\"l\"] } ] }", PLX_ERROR, PLX_ERROR_INCONSISTENT,
                  "the loss \"l_a\" depends on no weight");
  /* Communication in a forward graph: it is a distributed program already. */
  expect_refused ("{ " TENSORS ", \"ops\": [ { \"name\": \"fc\", \"op\": \"matmul\", \"inputs\": [\"x\", \"w\"], "
                  "\"outputs\": [\"y\"] }, { \"name\": \"ar\", \"op\": \"all_reduce\", \"inputs\": [\"y\"], "
                  "\"outputs\": [\"y2\"] }, { \"name\": \"l_a\", \"op\": \"loss\", \"inputs\": [\"y2\", \"x\"], "
                  "\"outputs\": [\"l\"] } ] }", PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                  "f.json: op \"ar\" (all_reduce): a forward graph has no communication");
}

static PlxCluster *
ideal_node (void)
{
  g_autoptr (JsonNode) node = plx_json_parse_data (TEST_IDEAL_CLUSTER (1, 1e11, 1e10), -1, "ideal", NULL);
  return plx_cluster_new_from_json (node, "ideal", NULL);
}

static PlxIrGraph *
lower (const char *file, guint dp, guint tp, guint pp, guint m, PlxIrSchedule schedule, GError **error)
{
  g_autoptr (PlxIrGraph) fwd = load_file (file);
  g_autoptr (PlxIrGraph) t = plx_ir_training_graph (fwd, PLX_IR_OPTIMIZER_SGD, file, error);
  g_autoptr (PlxCluster) c = ideal_node ();
  PlxIrParallel par = { dp, tp, pp, m, schedule };

  if (t == NULL)
    return NULL;
  return plx_ir_parallelize (t, &par, c, file, error);
}

static const PlxIrTensor *
tensor_named (const PlxIrGraph *g, guint index)
{
  return g->tensors->pdata[index];
}

static void
test_mlp_dp_tp (void)
{
  /* Data parallel 2 x tensor parallel 2 on the two-layer MLP (DistIR's D2.H2).
   * Tensor parallel: w1 split by column (fc1's input is whole), so h1 and a1 are
   * split along their width; fc2 contracts over that width, so w2 is split by row
   * and h2 is a partial sum, all-reduced before the ReLU (Megatron's g). x is data:
   * no gradient, so no backward all-reduce (Megatron's f). Data parallel: the batch
   * split, each weight gradient a partial sum over the two replicas, all-reduced
   * before its update. So 3 collectives: h2 over the tensor pair ([32, 1024] bf16 on
   * each device), dW1 and dW2 over the data pair ([1024, 512] and [512, 1024]). */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) p = lower ("mlp-2layer.json", 2, 2, 1, 1, PLX_IR_SCHEDULE_1F1B, &error);
  g_autoptr (PlxCluster) c = ideal_node ();
  guint n_ar = 0, n_tp = 0, n_dp = 0;
  PlxIrRun run;

  g_assert_no_error (error);
  g_assert_cmpuint (p->n_devices, ==, 4);
  g_assert_cmpuint (p->ops->len, ==, 16);
  for (guint i = 0; i < p->ops->len; i++)
    {
      const PlxIrOp *op = p->ops->pdata[i];
      const PlxIrTensor *in = tensor_named (p, op->inputs[0]);
      if (op->kind != PLX_IR_ALL_REDUCE)
        {
          g_assert_false (plx_ir_kind_is_collective (op->kind));
          continue;
        }
      n_ar++;
      g_assert_cmpuint (op->groups, ==, 2);
      if (op->devices[1] == 1)
        {
          /* tensor-parallel pairs are neighbours: {0, 1}, {2, 3} */
          n_tp++;
          g_assert_cmpstr (in->name, ==, "h2");
          g_assert_cmpint (in->shape[0], ==, 32);
          g_assert_cmpint (in->shape[1], ==, 1024);
        }
      else
        {
          /* data-parallel pairs strided: {0, 2}, {1, 3} */
          n_dp++;
          g_assert_cmpuint (op->devices[1], ==, 2);
          g_assert_cmpfloat (plx_ir_tensor_bytes (in), ==, 1024.0 * 512 * 2);
        }
    }
  g_assert_cmpuint (n_ar, ==, 3);
  g_assert_cmpuint (n_tp, ==, 1);
  g_assert_cmpuint (n_dp, ==, 2);
  g_assert_true (plx_ir_graph_check (p, "dp2-tp2", &error));
  g_assert_no_error (error);

  /* No work is repeated: the four devices' matmul FLOPs add up to one device's
   * 671,088,640. Each device holds a quarter of the weights and half the batch:
   * 2 x 1 MiB + x and z (32 x 1024 x 2 B each) = 2,228,224 B of inputs. */
  g_assert_true (plx_ir_simulate (p, c, &run, &error));
  g_assert_cmpfloat (matmul_flops (p) * 4, ==, 5 * 2.0 * 64 * 1024 * 1024);
  g_assert_cmpfloat (run.device_input_bytes[3], ==, 2228224.0);
  plx_ir_run_clear (&run);
}

/* The order device 0 runs its ops in, as "F0 F1 B0 ..." (each micro-batch's forward
 * or backward at its first op). */
static char *
task_order (const PlxIrGraph *p)
{
  GString *s = g_string_new (NULL);
  char last[32] = "";

  for (guint i = 0; i < p->ops->len; i++)
    {
      const PlxIrOp *op = p->ops->pdata[i];
      const char *hash = strrchr (op->name, '#');
      char now[32];

      if (op->devices[0] != 0 || hash == NULL || op->kind == PLX_IR_SEND || op->phase == PLX_IR_PHASE_OPTIMIZER)
        continue;
      g_snprintf (now, sizeof now, "%c%s", op->phase == PLX_IR_PHASE_FORWARD ? 'F' : 'B', hash + 1);
      if (!g_str_equal (now, last))
        g_string_append_printf (s, "%s%s", s->len ? " " : "", now);
      g_strlcpy (last, now, sizeof last);
    }
  return g_string_free (s, FALSE);
}

static void
test_mlp_pipeline (void)
{
  /* Two stages, four micro-batches of 16. The forward ops' times on one GPU are fc1
   * 2.359 us, ReLU 0.262, fc2 2.359, ReLU 0.262, loss 0.262: half of the 5.505 us
   * falls nearest the boundary after the first ReLU, so stage 0 is fc1 and its ReLU.
   * Each micro-batch sends a1 forward and its gradient back: 8 sends. Stage 0 under
   * 1F1B (Narayanan et al. 2021 §2.2) warms up with one forward, then alternates; each
   * stage adds its weight's four gradients in 3 adds. */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) p = lower ("mlp-2layer.json", 1, 1, 2, 4, PLX_IR_SCHEDULE_1F1B, &error);
  g_autoptr (PlxIrGraph) gp = NULL;
  g_autoptr (PlxCluster) c = ideal_node ();
  g_autofree char *order = NULL, *gorder = NULL;
  PlxIrRun run, grun;

  g_assert_no_error (error);
  g_assert_cmpuint (p->n_devices, ==, 2);
  g_assert_cmpuint (count_kind (p, PLX_IR_SEND), ==, 8);
  g_assert_cmpuint (count_kind (p, PLX_IR_ADD), ==, 6);
  g_assert_cmpuint (find_op (p, "fc1#0")->devices[0], ==, 0);
  g_assert_cmpuint (find_op (p, "relu1#0")->devices[0], ==, 0);
  g_assert_cmpuint (find_op (p, "fc2#0")->devices[0], ==, 1);
  g_assert_cmpuint (find_op (p, "update:w1")->devices[0], ==, 0);
  g_assert_cmpuint (find_op (p, "update:w2")->devices[0], ==, 1);
  g_assert_cmpint (tensor_named (p, find_op (p, "fc1#2")->inputs[0])->shape[0], ==, 16);
  order = task_order (p);
  g_assert_cmpstr (order, ==, "F0 F1 B0 F2 B1 F3 B2 B3");
  g_assert_true (plx_ir_graph_check (p, "pp2", &error));
  g_assert_no_error (error);

  /* GPipe runs every forward first, so stage 0 holds all four micro-batches'
   * activations where 1F1B holds at most two (pp). */
  gp = lower ("mlp-2layer.json", 1, 1, 2, 4, PLX_IR_SCHEDULE_GPIPE, &error);
  g_assert_no_error (error);
  gorder = task_order (gp);
  g_assert_cmpstr (gorder, ==, "F0 F1 F2 F3 B0 B1 B2 B3");
  g_assert_true (plx_ir_simulate (p, c, &run, &error));
  g_assert_true (plx_ir_simulate (gp, c, &grun, &error));
  g_assert_cmpfloat (grun.device_peak_bytes[0] - grun.device_input_bytes[0], >,
                     run.device_peak_bytes[0] - run.device_input_bytes[0]);
  plx_ir_run_clear (&run);
  plx_ir_run_clear (&grun);
}

/* A schedule file in a temporary directory; returns its path. */
static char *
schedule_file (const char *dir, const char *name, const char *stage0, const char *stage1)
{
  char *path = g_build_filename (dir, name, NULL);
  g_autofree char *text = g_strdup_printf ("{ \"name\": \"%s\", \"stages\": [ [%s], [%s] ] }", name, stage0, stage1);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
test_mlp_schedule_file (void)
{
  /* The two-stage MLP of mlp-pipeline above, its passes in a schedule file's order
   * (docs/schedule-files.md). A file with 1F1B's order gives 1F1B's program, the same
   * step to the bit; one that warms stage 0 up with three forwards runs them so; one
   * with weight-gradient passes (W) is refused, naming the file: a graph's backward is
   * one pass. */
  g_autofree char *dir = g_dir_make_tmp ("plx-ir-schedule-XXXXXX", NULL);
  g_autofree char *same = schedule_file (dir, "1f1b.json", "\"F0\", \"F1\", \"B0\", \"F2\", \"B1\", \"F3\", \"B2\", \"B3\"",
                                         "\"F0\", \"B0\", \"F1\", \"B1\", \"F2\", \"B2\", \"F3\", \"B3\"");
  g_autofree char *deep = schedule_file (dir, "warm3.json", "\"F0\", \"F1\", \"F2\", \"B0\", \"F3\", \"B1\", \"B2\", \"B3\"",
                                         "\"F0\", \"B0\", \"F1\", \"B1\", \"F2\", \"B2\", \"F3\", \"B3\"");
  g_autofree char *split = schedule_file (dir, "zb.json",
                                          "\"F0\", \"F1\", \"B0\", \"W0\", \"F2\", \"B1\", \"W1\", \"F3\", \"B2\", \"W2\", \"B3\", \"W3\"",
                                          "\"F0\", \"B0\", \"W0\", \"F1\", \"B1\", \"W1\", \"F2\", \"B2\", \"W2\", \"F3\", \"B3\", \"W3\"");
  g_autoptr (PlxIrGraph) fwd = load_file ("mlp-2layer.json");
  g_autoptr (PlxIrGraph) t = plx_ir_training_graph (fwd, PLX_IR_OPTIMIZER_SGD, "mlp", NULL);
  g_autoptr (PlxCluster) c = ideal_node ();
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) built_in = lower ("mlp-2layer.json", 1, 1, 2, 4, PLX_IR_SCHEDULE_1F1B, &error);
  PlxIrParallel par = { 1, 1, 2, 4, PLX_IR_SCHEDULE_FILE, same };
  g_autoptr (PlxIrGraph) from_file = plx_ir_parallelize (t, &par, c, "mlp", &error);
  g_autoptr (PlxIrGraph) warm = NULL;
  g_autoptr (PlxIrGraph) refused = NULL;
  g_autofree char *order = NULL;
  PlxIrRun a, b;

  g_assert_no_error (error);
  g_assert_nonnull (from_file);
  g_assert_true (plx_ir_simulate (built_in, c, &a, NULL));
  g_assert_true (plx_ir_simulate (from_file, c, &b, NULL));
  g_assert_cmpfloat (a.makespan_s, ==, b.makespan_s);
  g_assert_cmpfloat (a.peak_bytes, ==, b.peak_bytes);
  plx_ir_run_clear (&a);
  plx_ir_run_clear (&b);

  par.schedule_path = deep;
  warm = plx_ir_parallelize (t, &par, c, "mlp", &error);
  g_assert_no_error (error);
  order = task_order (warm);
  g_assert_cmpstr (order, ==, "F0 F1 F2 B0 F3 B1 B2 B3");

  par.schedule_path = split;
  refused = plx_ir_parallelize (t, &par, c, "mlp", &error);
  g_assert_null (refused);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "zb.json splits weight gradients (W)"));
  g_unlink (same);
  g_unlink (deep);
  g_unlink (split);
  g_rmdir (dir);
}

static void
test_mlp_interleaved (void)
{
  /* Two stages of two chunks each: the five forward ops cut by time into four
   * chunks, fc1 | relu1 | fc2 | relu2 + loss, GPU 0 holding virtual stages 0 and 2
   * (fc1, fc2), GPU 1 stages 1 and 3 (Megatron-LM's chunk c x pp + s). Megatron's
   * interleaved 1F1B (Narayanan et al. 2021 §2.2.2) with 4 micro-batches warms GPU 0
   * up with (pp - 1) x 2 + (v - 1) x pp = 4 forwards - micro-batches 0, 1 on chunk 0,
   * then 0, 1 on chunk 1 - then alternates a forward and a backward, backwards taking
   * the chunks in reverse: F0 F1 F0 F1 | F2 B0 F3 B1 F2 B0 F3 B1 | B2 B3 B2 B3. */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) fwd = load_file ("mlp-2layer.json");
  g_autoptr (PlxIrGraph) t = plx_ir_training_graph (fwd, PLX_IR_OPTIMIZER_SGD, "mlp", NULL);
  g_autoptr (PlxCluster) c = ideal_node ();
  PlxIrParallel par = { 1, 1, 2, 4, PLX_IR_SCHEDULE_INTERLEAVED, NULL, 2 };
  g_autoptr (PlxIrGraph) p = plx_ir_parallelize (t, &par, c, "mlp", &error);
  g_autoptr (PlxIrGraph) bad = NULL;
  g_autofree char *order = NULL;
  PlxIrRun run;

  g_assert_no_error (error);
  g_assert_cmpuint (find_op (p, "fc1#0")->devices[0], ==, 0);
  g_assert_cmpuint (find_op (p, "relu1#0")->devices[0], ==, 1);
  g_assert_cmpuint (find_op (p, "fc2#0")->devices[0], ==, 0);
  g_assert_cmpuint (find_op (p, "loss#0")->devices[0], ==, 1);
  /* Every chunk boundary crosses the GPUs: three sends forward and three back for
   * each of the 4 micro-batches. */
  g_assert_cmpuint (count_kind (p, PLX_IR_SEND), ==, 24);
  order = task_order (p);
  g_assert_cmpstr (order, ==, "F0 F1 F0 F1 F2 B0 F3 B1 F2 B0 F3 B1 B2 B3 B2 B3");
  g_assert_true (plx_ir_graph_check (p, "interleaved", &error));
  g_assert_true (plx_ir_simulate (p, c, &run, &error));
  g_assert_no_error (error);
  plx_ir_run_clear (&run);

  /* Megatron's rule: the micro-batches in groups of pp; and chunks need the
   * interleaved schedule (or a file). */
  par.micro_batches = 3;
  bad = plx_ir_parallelize (t, &par, c, "mlp", &error);
  g_assert_null (bad);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
  g_assert_nonnull (strstr (error->message, "micro-batches (3) a multiple of pp (2)"));
  g_clear_error (&error);
  par.micro_batches = 4;
  par.schedule = PLX_IR_SCHEDULE_1F1B;
  bad = plx_ir_parallelize (t, &par, c, "mlp", &error);
  g_assert_null (bad);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
  g_assert_nonnull (strstr (error->message, "the interleaved schedule or a schedule file"));
}

static void
test_mlp_chain_costs (void)
{
  /* The two-layer MLP as a chain (docs/partition.md): fc1 costs its forward and its
   * weight gradient (the input x needs no gradient), two matmuls of the same shape;
   * fc2 three (forward, input and weight gradients). Every boundary carries one
   * 64 x 1024 bf16 activation, 131,072 bytes. Split optimally in two, the chain puts
   * fc1 and its ReLU apart from fc2, its ReLU and the loss, as the nearest split does. */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) fwd = load_file ("mlp-2layer.json");
  g_autoptr (PlxIrGraph) t = plx_ir_training_graph (fwd, PLX_IR_OPTIMIZER_SGD, "mlp", NULL);
  g_autoptr (PlxCluster) c = ideal_node ();
  g_autofree double *node_s = NULL, *cut_s = NULL, *cut_bytes = NULL;
  double fc = plx_ir_op_time (t, find_op (t, "fc1"), c);
  guint n = plx_ir_chain_costs (t, c, 4, &node_s, &cut_s, &cut_bytes);
  PlxIrParallel par = { 1, 1, 2, 4, PLX_IR_SCHEDULE_1F1B, NULL, 0, PLX_IR_SPLIT_OPTIMAL };
  g_autoptr (PlxIrGraph) p = plx_ir_parallelize (t, &par, c, "mlp", &error);

  g_assert_cmpuint (n, ==, 5);
  g_assert_cmpfloat (fabs (node_s[0] - 2.0 * fc), <, 1e-12);
  g_assert_cmpfloat (fabs (node_s[2] - 3.0 * fc), <, 1e-12);
  for (guint b = 0; b + 1 < n; b++)
    {
      g_assert_cmpfloat (cut_bytes[b], ==, 131072.0);
      g_assert_cmpfloat (cut_s[b], >, 0.0);
    }
  g_assert_no_error (error);
  g_assert_cmpuint (find_op (p, "relu1#0")->devices[0], ==, 0);
  g_assert_cmpuint (find_op (p, "fc2#0")->devices[0], ==, 1);

  {
    /* The firsts plx_ir_parallelize cuts at, asked for alone: fc2 (op 2) starts the
     * second stage in the optimum, and in the nearest split too - the forward time
     * is 2 matmuls m, 2 ReLUs r and the loss l, half of it m + r + l/2, and the
     * boundary after relu1 (m + r) is l/2 from it, the nearest. Given firsts come back
     * as given; more stages than forward ops are refused as parallelize refuses them. */
    PlxIrParallel given = par;
    guint first[2] = { 9, 9 }, mine[2] = { 0, 4 };
    guint six[6];

    g_assert_true (plx_ir_split_firsts (t, &par, c, first, "mlp", &error));
    g_assert_no_error (error);
    g_assert_cmpuint (first[0], ==, 0);
    g_assert_cmpuint (first[1], ==, 2);
    given.split = PLX_IR_SPLIT_NEAREST;
    first[1] = 9;
    g_assert_true (plx_ir_split_firsts (t, &given, c, first, "mlp", &error));
    g_assert_cmpuint (first[1], ==, 2);
    given.split = PLX_IR_SPLIT_GIVEN;
    given.chunk_first = mine;
    g_assert_true (plx_ir_split_firsts (t, &given, c, first, "mlp", &error));
    g_assert_cmpuint (first[1], ==, 4);
    given.pp = 6;
    given.split = PLX_IR_SPLIT_NEAREST;
    g_assert_false (plx_ir_split_firsts (t, &given, c, six, "mlp", &error));
    g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
    g_assert_nonnull (strstr (error->message, "6 pipeline stages, but the model has 5 forward ops"));
    g_clear_error (&error);
  }

  {
    /* Refined by the simulator on 4 stages of 8 micro-batches: never slower than the
     * chain optimum or the nearest split, and a valid split (starts increasing from
     * 0). A split given by hand that does not increase is refused by name. */
    PlxIrParallel four = { 1, 1, 4, 8, PLX_IR_SCHEDULE_1F1B, NULL, 0, PLX_IR_SPLIT_OPTIMAL, NULL };
    PlxIrParallel bad = four;
    guint first[4], wrong[4] = { 0, 2, 2, 3 };
    double refined = plx_ir_refine_split (t, &four, c, 50, first, "mlp", &error);
    g_autoptr (PlxIrGraph) q = NULL;
    PlxIrRun run;

    g_assert_no_error (error);
    g_assert_cmpuint (first[0], ==, 0);
    for (guint k = 1; k < 4; k++)
      g_assert_cmpuint (first[k], >, first[k - 1]);
    for (guint s = 0; s < 2; s++)
      {
        g_autoptr (PlxIrGraph) base = NULL;
        four.split = s == 0 ? PLX_IR_SPLIT_OPTIMAL : PLX_IR_SPLIT_NEAREST;
        base = plx_ir_parallelize (t, &four, c, "mlp", &error);
        g_assert_no_error (error);
        g_assert_true (plx_ir_simulate (base, c, &run, NULL));
        g_assert_cmpfloat (refined, <=, run.makespan_s);
        plx_ir_run_clear (&run);
      }
    bad.split = PLX_IR_SPLIT_GIVEN;
    bad.chunk_first = wrong;
    q = plx_ir_parallelize (t, &bad, c, "mlp", &error);
    g_assert_null (q);
    g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
    g_assert_nonnull (strstr (error->message, "mlp: a given split needs 4 chunks' first ops"));
  }
}

static void
test_parallel_refusals (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) p = NULL;

  /* A batch of 64 in 128 pieces. */
  p = lower ("mlp-2layer.json", 4, 1, 1, 32, PLX_IR_SCHEDULE_1F1B, &error);
  g_assert_null (p);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
  g_assert_nonnull (strstr (error->message, "mlp-2layer.json: tensor \"x\": dimension 0 (64) does not split into 128 "
                                            "(micro-batches 32 x data parallel 4)"));
  g_clear_error (&error);
  /* More stages than forward ops. */
  p = lower ("mlp-2layer.json", 1, 1, 6, 1, PLX_IR_SCHEDULE_1F1B, &error);
  g_assert_null (p);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
  g_assert_nonnull (strstr (error->message, "6 pipeline stages, but the model has 5 forward ops"));
  g_clear_error (&error);
  /* A million micro-batches of a three-layer MLP: 13 ops each, 13.6 million in all,
   * refused before any is written. */
  {
    g_autoptr (PlxIrGraph) fwd = plx_ir_graph_new (1);
    g_autoptr (PlxIrGraph) t = NULL;
    g_autoptr (PlxCluster) c = ideal_node ();
    const gint64 rows[2] = { 1 << 20, 4 }, square[2] = { 4, 4 }, one = 1;
    PlxIrParallel par = { 1, 1, 1, 1 << 20, PLX_IR_SCHEDULE_1F1B };
    guint x = plx_ir_graph_add_tensor (fwd, "x", 2, rows, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA), dev = 0;

    for (guint l = 0; l < 3; l++)
      {
        g_autofree char *wn = g_strdup_printf ("w%u", l), *hn = g_strdup_printf ("h%u", l);
        g_autofree char *on = g_strdup_printf ("fc%u", l);
        guint in[2] = { x, plx_ir_graph_add_tensor (fwd, wn, 2, square, PLX_DTYPE_BF16, PLX_IR_ROLE_WEIGHT) };
        guint h = plx_ir_graph_add_tensor (fwd, hn, 2, rows, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
        plx_ir_graph_add_op (fwd, on, PLX_IR_MATMUL, in, 2, &h, 1, &dev, 1);
        x = h;
      }
    {
      guint in[2] = { x, 0 }, l = plx_ir_graph_add_tensor (fwd, "l", 1, &one, PLX_DTYPE_FP32, PLX_IR_ROLE_DATA);
      plx_ir_graph_add_op (fwd, "loss", PLX_IR_LOSS, in, 2, &l, 1, &dev, 1);
    }
    t = plx_ir_training_graph (fwd, PLX_IR_OPTIMIZER_SGD, "big", &error);
    g_assert_no_error (error);
    p = plx_ir_parallelize (t, &par, c, "big", &error);
    g_assert_null (p);
    g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
    g_assert_nonnull (strstr (error->message, "big: 1048576 micro-batches make a program of 1.36e+07 ops, more than "
                                              "10 million"));
    g_clear_error (&error);
  }
  /* Micro-batches times data-parallel ranks past 2^32: refused, not divided by zero. */
  p = lower ("mlp-2layer.json", 65536, 1, 1, 65536, PLX_IR_SCHEDULE_1F1B, &error);
  g_assert_null (p);
  g_assert_nonnull (strstr (error->message, "does not split into 4294967296 (micro-batches 65536 x data parallel 65536)"));
  g_clear_error (&error);
  /* A zero degree. */
  p = lower ("mlp-2layer.json", 0, 1, 1, 1, PLX_IR_SCHEDULE_1F1B, &error);
  g_assert_null (p);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
}

/* Lowers tests/data/graphs/edge/NAME under the degrees, simulates the program and
 * reads it back; or expects the refusal `needle`. */
static void
edge_case (const char *name, guint dp, guint tp, guint pp, guint m, const char *needle)
{
  g_autofree char *file = g_build_filename ("edge", name, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) p = lower (file, dp, tp, pp, m, PLX_IR_SCHEDULE_1F1B, &error);
  g_autoptr (PlxCluster) c = ideal_node ();
  PlxIrRun run;

  if (needle != NULL)
    {
      g_assert_null (p);
      g_assert_nonnull (error);
      if (strstr (error->message, needle) == NULL)
        g_error ("%s: \"%s\" not in: %s", name, needle, error->message);
      return;
    }
  g_assert_no_error (error);
  g_assert_true (plx_ir_graph_check (p, name, &error));
  g_assert_no_error (error);
  g_assert_true (plx_ir_simulate (p, c, &run, &error));
  g_assert_cmpfloat (run.makespan_s, >, 0.0);
  plx_ir_run_clear (&run);
}

static void
test_edge_cases (void)
{
  /* Graphs a review found breaking the transforms, each now lowered to a program
   * that reads back, or refused by name. */
  /* A mean over the batch inside each micro-batch: refused, not a crash. */
  edge_case ("batch-mean.json", 1, 1, 1, 2, "needs tensor \"mu\" summed over the whole batch inside each micro-batch");
  /* A bias through a GELU added to a batch of one: its gradient reshaped, not mis-shaped. */
  edge_case ("batch1-bias.json", 1, 1, 1, 1, NULL);
  /* Inputs all constants, two stages: the backward pass after the forward. */
  edge_case ("constant-inputs.json", 1, 1, 2, 1, NULL);
  /* Embeddings summed over the batch, data parallel: dY cut to the device's rows. */
  edge_case ("bag-of-embeddings.json", 2, 1, 1, 1, NULL);
  /* A one-wide head over two tensor ranks stays whole; a scalar loss input. */
  edge_case ("scalar-output.json", 1, 2, 1, 1, NULL);
  /* Half of a split data tensor unused: it needs no gradient. */
  edge_case ("half-used-split.json", 1, 1, 1, 1, NULL);
}

/* The convolution block of tests/data/graphs/conv-bn-pool.json trained and split
 * over two data-parallel ranks. Backward, in reverse: the loss's gradient, the
 * classifier's dX and dW, the mean's expand, the pool's gradient (dY [8, 6, 4, 4]
 * and the input it pooled -> [8, 6, 8, 8]), ReLU's, the batch norm's dX, dScale and
 * dBias in one kernel, the convolution's dX and dW; then 4 updates. Over two ranks
 * each runs 4 of the 8 images, with its own batch statistics (PyTorch's BatchNorm2d
 * under DDP), and every weight's gradient - the batch norm's scale and bias among
 * them, summed over each rank's images - is all-reduced once: 216 + 6 + 6 + 60
 * values. */
static void
test_conv_bn_pool (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) fwd = load_file ("conv-bn-pool.json");
  g_autoptr (PlxIrGraph) t = plx_ir_training_graph (fwd, PLX_IR_OPTIMIZER_SGD, "conv-bn-pool.json", &error);
  g_autoptr (PlxIrGraph) p = NULL;
  const PlxIrOp *bn_grad, *pool_grad;
  guint n_reduce = 0;
  gint64 reduced = 0;

  g_assert_no_error (error);
  g_assert_cmpuint (count_kind (t, PLX_IR_BATCH_NORM_GRAD), ==, 1);
  g_assert_cmpuint (count_kind (t, PLX_IR_MAX_POOL_GRAD), ==, 1);
  g_assert_cmpuint (count_kind (t, PLX_IR_CONV_GRAD), ==, 1);
  g_assert_cmpuint (count_kind (t, PLX_IR_OPTIMIZER), ==, 4);
  bn_grad = find_op (t, "batch_norm_grad:bn");
  g_assert_cmpuint (bn_grad->n_outputs, ==, 3);
  g_assert_cmpint (tensor_named (t, bn_grad->outputs[0])->shape[1], ==, 6);
  g_assert_cmpint (plx_ir_tensor_elements (tensor_named (t, bn_grad->outputs[1])), ==, 6);
  g_assert_cmpint (plx_ir_tensor_elements (tensor_named (t, bn_grad->outputs[2])), ==, 6);
  pool_grad = find_op (t, "max_pool_grad:r");
  g_assert_cmpint (plx_ir_tensor_elements (tensor_named (t, pool_grad->inputs[0])), ==, 8 * 6 * 4 * 4);
  g_assert_cmpint (plx_ir_tensor_elements (tensor_named (t, pool_grad->outputs[0])), ==, 8 * 6 * 8 * 8);

  p = lower ("conv-bn-pool.json", 2, 1, 1, 1, PLX_IR_SCHEDULE_1F1B, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < p->ops->len; i++)
    {
      const PlxIrOp *op = p->ops->pdata[i];
      if (op->kind == PLX_IR_ALL_REDUCE)
        {
          n_reduce++;
          reduced += plx_ir_tensor_elements (tensor_named (p, op->inputs[0]));
        }
      if (op->kind == PLX_IR_BATCH_NORM || op->kind == PLX_IR_MAX_POOL)
        g_assert_cmpint (tensor_named (p, op->inputs[0])->shape[0], ==, 4);
    }
  g_assert_cmpuint (n_reduce, ==, 4);
  g_assert_cmpint (reduced, ==, 216 + 6 + 6 + 60);
}

static void
test_dag_split (void)
{
  /* GPT-2 small over 4 stages split by the DAG partitioner (PLX_IR_SPLIT_DAG): the
   * stages need not be runs of ops, but every tensor must go to the same stage or a
   * later one, so in the forward pass every send goes from a stage to a later one
   * (device = stage x dp x tp + ..., dp = tp = 1 here: the device is the stage). The
   * partition itself: every forward op in one of the 4 chunks, each chunk non-empty,
   * loads within the 5 % bound, no edge backwards (plx_partition_dag's ORDERED). */
  g_autoptr (PlxIrGraph) fwd = load_file ("gpt2-b256.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) t = plx_ir_training_graph (fwd, PLX_IR_OPTIMIZER_ADAM, "gpt2", &error);
  g_autoptr (PlxCluster) c = plx_cluster_new_preset ("dgx-a100-80gb", &error);
  g_autoptr (PlxDagPartition) part = NULL;
  g_autoptr (PlxIrGraph) p = NULL;
  PlxIrParallel par = { 1, 1, 4, 8, PLX_IR_SCHEDULE_1F1B, NULL, 0, PLX_IR_SPLIT_DAG, NULL };
  guint per_chunk[4] = { 0 }, sends = 0;
  PlxIrRun run;

  g_assert_no_error (error);
  part = plx_ir_dag_partition (t, c, 8, 4, PLX_DAG_ORDERED, "gpt2", &error);
  g_assert_no_error (error);
  for (guint i = 0; i < part->n_nodes; i++)
    {
      g_assert_cmpuint (part->part[i], <, 4);
      per_chunk[part->part[i]]++;
    }
  for (guint k = 0; k < 4; k++)
    g_assert_cmpuint (per_chunk[k], >, 0);
  {
    /* The bound: max(1.05 W / 4, W / 4 + the heaviest op); the tied LM head alone
     * is a large share of W here, so the second term decides. */
    g_autofree double *node_s = NULL, *cut_s = NULL, *cut_bytes = NULL;
    guint n = plx_ir_chain_costs (t, c, 8, &node_s, &cut_s, &cut_bytes);
    double w = 0.0, heaviest = 0.0;
    g_assert_cmpuint (n, ==, part->n_nodes);
    for (guint i = 0; i < n; i++)
      w += node_s[i], heaviest = MAX (heaviest, node_s[i]);
    g_assert_cmpfloat (part->max_load_s, <=, MAX (1.05 * w / 4, w / 4 + heaviest) * (1 + 1e-12));
  }
  p = plx_ir_parallelize (t, &par, c, "gpt2", &error);
  g_assert_no_error (error);
  for (guint i = 0; i < p->ops->len; i++)
    {
      const PlxIrOp *op = p->ops->pdata[i];
      if (op->kind != PLX_IR_SEND || op->phase != PLX_IR_PHASE_FORWARD)
        continue;
      sends++;
      for (guint d = 0; d < op->n_devices; d++)
        g_assert_cmpuint (op->peers[d], >, op->devices[d]);
    }
  g_assert_cmpuint (sends, >, 0);
  g_assert_true (plx_ir_simulate (p, c, &run, &error));
  g_assert_cmpfloat (run.makespan_s, >, 0.0);
  plx_ir_run_clear (&run);
}

static void
test_place_branches (void)
{
  /* Two branches of a diamond on two GPUs (plx_ir_place): a = x wa and b = x wb, s =
   * a + b, the loss on s; x [64, 4096] and the weights [4096, 4096] bf16. Placed
   * mm_a, add and loss on GPU 0 and mm_b on GPU 1, each op goes with its forward op
   * (the update of wb too), and two tensors cross: b to GPU 0 going forward, and the
   * gradient mm_b's backward reads to GPU 1. On the ideal node a matmul is 2 x 64 x
   * 4096^2 / 1e14 = 21.5 us and a send of 64 x 4096 x 2 B at 1e11 B/s 5.2 us, so
   * running the branches side by side (two forward and two weight-gradient matmuls
   * at once) beats one GPU doing all four; all on GPU 0, nothing is sent. */
  g_autoptr (PlxIrGraph) fwd = plx_ir_graph_new (1);
  gint64 act[2] = { 64, 4096 }, w[2] = { 4096, 4096 }, one = 1;
  guint dev = 0;
  guint x = plx_ir_graph_add_tensor (fwd, "x", 2, act, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint z = plx_ir_graph_add_tensor (fwd, "z", 2, act, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint wa = plx_ir_graph_add_tensor (fwd, "wa", 2, w, PLX_DTYPE_BF16, PLX_IR_ROLE_WEIGHT);
  guint wb = plx_ir_graph_add_tensor (fwd, "wb", 2, w, PLX_DTYPE_BF16, PLX_IR_ROLE_WEIGHT);
  guint a = plx_ir_graph_add_tensor (fwd, "a", 2, act, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint b = plx_ir_graph_add_tensor (fwd, "b", 2, act, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint sum = plx_ir_graph_add_tensor (fwd, "s", 2, act, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint l = plx_ir_graph_add_tensor (fwd, "l", 1, &one, PLX_DTYPE_FP32, PLX_IR_ROLE_DATA);
  guint xa[2] = { x, wa }, xb[2] = { x, wb }, ab[2] = { a, b }, sz[2] = { sum, z };
  const guint split[4] = { 0, 1, 0, 0 }, alone[4] = { 0, 0, 0, 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) t = NULL;
  g_autoptr (PlxIrGraph) two = NULL;
  g_autoptr (PlxIrGraph) single = NULL;
  g_autoptr (PlxCluster) c = ideal_node ();
  guint sends = 0;
  PlxIrRun r2, r1;

  plx_ir_graph_add_op (fwd, "mm_a", PLX_IR_MATMUL, xa, 2, &a, 1, &dev, 1);
  plx_ir_graph_add_op (fwd, "mm_b", PLX_IR_MATMUL, xb, 2, &b, 1, &dev, 1);
  plx_ir_graph_add_op (fwd, "add", PLX_IR_ADD, ab, 2, &sum, 1, &dev, 1);
  plx_ir_graph_add_op (fwd, "loss", PLX_IR_LOSS, sz, 2, &l, 1, &dev, 1);
  t = plx_ir_training_graph (fwd, PLX_IR_OPTIMIZER_SGD, "diamond", &error);
  g_assert_no_error (error);
  two = plx_ir_place (t, split, 2, "diamond", &error);
  g_assert_no_error (error);
  g_assert_true (plx_ir_graph_check (two, "placed", &error));
  g_assert_no_error (error);
  for (guint i = 0; i < two->ops->len; i++)
    {
      const PlxIrOp *op = two->ops->pdata[i];
      g_assert_cmpuint (op->n_devices, ==, 1);
      if (op->kind == PLX_IR_SEND)
        sends++;
      else
        g_assert_cmpuint (op->devices[0], ==, split[op->origin]);
    }
  g_assert_cmpuint (sends, ==, 2);
  single = plx_ir_place (t, alone, 2, "diamond", &error);
  g_assert_cmpuint (single->ops->len, ==, t->ops->len);
  g_assert_true (plx_ir_simulate (two, c, &r2, &error));
  g_assert_true (plx_ir_simulate (single, c, &r1, &error));
  g_assert_cmpfloat (r2.makespan_s, <, r1.makespan_s);
  plx_ir_run_clear (&r2);
  plx_ir_run_clear (&r1);
  /* A device out of range is refused by value. */
  {
    const guint wrong[4] = { 0, 2, 0, 0 };
    g_autoptr (GError) e = NULL;
    g_autoptr (PlxIrGraph) none = plx_ir_place (t, wrong, 2, "diamond", &e);
    g_assert_null (none);
    g_assert_error (e, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
    g_assert_cmpstr (e->message, ==, "diamond: forward op 1 (mm_b) placed on device 2, but there are 2");
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/ir-train/mlp-backward", test_mlp_backward);
  g_test_add_func ("/core/ir-train/mlp-adam", test_mlp_adam);
  g_test_add_func ("/core/ir-train/refusals", test_refusals);
  g_test_add_func ("/core/ir-train/mlp-dp-tp", test_mlp_dp_tp);
  g_test_add_func ("/core/ir-train/mlp-pipeline", test_mlp_pipeline);
  g_test_add_func ("/core/ir-train/mlp-schedule-file", test_mlp_schedule_file);
  g_test_add_func ("/core/ir-train/mlp-interleaved", test_mlp_interleaved);
  g_test_add_func ("/core/ir-train/mlp-chain-costs", test_mlp_chain_costs);
  g_test_add_func ("/core/ir-train/parallel-refusals", test_parallel_refusals);
  g_test_add_func ("/core/ir-train/edge-cases", test_edge_cases);
  g_test_add_func ("/core/ir-train/conv-bn-pool", test_conv_bn_pool);
  g_test_add_func ("/core/ir-train/dag-split", test_dag_split);
  g_test_add_func ("/core/ir-train/place-branches", test_place_branches);
  return g_test_run ();
}
