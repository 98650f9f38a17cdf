/* Training programs from forward graphs (docs/ir.md, "Training"): the backward pass
 * and the optimizer written for a two-layer MLP in DistIR's shape, counted by hand;
 * and the forward graphs that cannot be trained refused by name. */
#include <string.h>

#include "parallax/parallax.h"

#include "test-util.h"

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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/ir-train/mlp-backward", test_mlp_backward);
  g_test_add_func ("/core/ir-train/mlp-adam", test_mlp_adam);
  g_test_add_func ("/core/ir-train/refusals", test_refusals);
  return g_test_run ();
}
