/* Op and tensor fusion (issue 13, DisCo): what may fuse, the kernels and buckets a
 * plan makes, worked out by hand on an ideal cluster, and the search's bounds. */
#include <math.h>

#include "parallax/parallax.h"
#include "test-util.h"
#include "ir/plx-ir-fuse.h"
#include "ir/plx-ir-timeline.h"
#include "ir/plx-ir.h"

static PlxCluster *
ideal_cluster (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data (TEST_IDEAL_CLUSTER (1, 1e11, 1e10), -1, "ideal", &error);
  PlxCluster *c;

  g_assert_no_error (error);
  c = plx_cluster_new_from_json (node, "ideal", &error);
  g_assert_no_error (error);
  return c;
}

/* The data-parallel training program of a graph in tests/data/graphs. */
static PlxIrGraph *
dp_program (const char *name, guint dp, const PlxCluster *cluster)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "graphs", name, NULL);
  g_autoptr (PlxIrGraph) fwd = plx_ir_graph_new_from_file (path, &error);
  g_autoptr (PlxIrGraph) training = NULL;
  PlxIrParallel par = { dp, 1, 1, 1, PLX_IR_SCHEDULE_1F1B };
  PlxIrGraph *p;

  g_assert_no_error (error);
  training = plx_ir_training_graph (fwd, PLX_IR_OPTIMIZER_ADAM, name, &error);
  g_assert_no_error (error);
  p = plx_ir_parallelize (training, &par, cluster, name, &error);
  g_assert_no_error (error);
  return p;
}

static const PlxIrOp *
op_named (const PlxIrGraph *g, const char *name)
{
  for (guint i = 0; i < g->ops->len; i++)
    if (g_str_equal (((PlxIrOp *) g->ops->pdata[i])->name, name))
      return g->ops->pdata[i];
  return NULL;
}

static gboolean
has_tensor (const PlxIrGraph *g, const char *name)
{
  for (guint i = 0; i < g->tensors->len; i++)
    if (g_str_equal (((PlxIrTensor *) g->tensors->pdata[i])->name, name))
      return TRUE;
  return FALSE;
}

static const char *
tensor_name (const PlxIrGraph *g, guint t)
{
  return ((PlxIrTensor *) g->tensors->pdata[t])->name;
}

static void
test_space (void)
{
  /* The two-layer MLP (fc1, relu1, fc2, relu2, loss) and its backward: memory-bound
   * pairs that touch are relu2 -> loss and loss_grad -> relu_grad:h2; relu1 and
   * relu_grad:h1 sit between matmuls, and relu2 -> relu_grad:h2 crosses from forward
   * to backward. The gradients are reduced w2's first (backward makes it first),
   * 1024 x 1024 bf16 = 2 MiB each. */
  g_autoptr (PlxCluster) c = ideal_cluster ();
  g_autoptr (PlxIrGraph) p = dp_program ("mlp-2layer.json", 2, c);
  g_autoptr (PlxFuseSpace) s = plx_fuse_space_new (p);

  g_assert_cmpuint (s->n_edges, ==, 2);
  g_assert_cmpstr (((PlxIrOp *) p->ops->pdata[s->edge_producer[0]])->name, ==, "relu2");
  g_assert_cmpstr (((PlxIrOp *) p->ops->pdata[s->edge_consumer[0]])->name, ==, "loss");
  g_assert_cmpstr (((PlxIrOp *) p->ops->pdata[s->edge_producer[1]])->name, ==, "loss_grad:a2");
  g_assert_cmpstr (((PlxIrOp *) p->ops->pdata[s->edge_consumer[1]])->name, ==, "relu_grad:h2");
  g_assert_cmpuint (s->n_grads, ==, 2);
  g_assert_cmpstr (tensor_name (p, ((PlxIrOp *) p->ops->pdata[s->grad_op[0]])->inputs[0]), ==, "d:w2");
  g_assert_cmpstr (tensor_name (p, ((PlxIrOp *) p->ops->pdata[s->grad_op[1]])->inputs[0]), ==, "d:w1");
  g_assert_cmpfloat (s->grad_bytes[0], ==, 2097152.0);
  g_assert_true (s->grad_break[0]);
  g_assert_false (s->grad_break[1]);
}

static void
test_kernels (void)
{
  /* Everything fused: two kernels. loss_grad:a2 (a2, z -> d:a2) and relu_grad:h2
   * (d:a2, h2 -> d:h2) become one reading a2, z and h2 and writing d:h2; d:a2 never
   * reaches HBM and is gone from the program. Per GPU (batch 64 / dp 2 = 32 rows)
   * each activation is 32 x 1024 x 2 B = 65,536 B, so the kernel moves 4 x 65,536 B
   * at 1e12 B/s: 262.144 ns, where the two ops moved 3 + 3 tensors. relu2 (h2 -> a2)
   * and loss (a2, z -> l) keep a2, which loss_grad reads, and write l (fp32, 4 B),
   * read by nobody: h2, z in; a2, l out. */
  g_autoptr (PlxCluster) c = ideal_cluster ();
  g_autoptr (PlxIrGraph) p = dp_program ("mlp-2layer.json", 2, c);
  g_autoptr (PlxFuseSpace) s = plx_fuse_space_new (p);
  g_autoptr (PlxFusePlan) plan = plx_fuse_plan_new (s);
  g_autoptr (PlxIrGraph) f = NULL;
  g_autoptr (GError) error = NULL;
  const PlxIrOp *k;
  guint kernels = 0;

  plx_fuse_plan_fuse_all (plan);
  f = plx_fuse_apply (s, plan, &kernels, NULL);
  g_assert_cmpuint (kernels, ==, 2);
  g_assert_true (plan->fuse[0] && plan->fuse[1]);
  g_assert_true (plx_ir_graph_check (f, "fused", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (f->ops->len, ==, p->ops->len - 2);
  g_assert_false (has_tensor (f, "d:a2"));
  k = op_named (f, "fused:loss_grad:a2");
  g_assert_nonnull (k);
  g_assert_cmpint (k->kind, ==, PLX_IR_KERNEL);
  g_assert_cmpuint (k->n_inputs, ==, 3);
  g_assert_cmpuint (k->n_outputs, ==, 1);
  g_assert_cmpstr (tensor_name (f, k->outputs[0]), ==, "d:h2");
  g_assert_cmpfloat_with_epsilon (plx_ir_op_time (f, k, c), 4 * 65536 / 1e12, 1e-18);
  g_assert_cmpfloat_with_epsilon (plx_ir_op_time (p, op_named (p, "loss_grad:a2"), c) +
                                      plx_ir_op_time (p, op_named (p, "relu_grad:h2"), c),
                                  6 * 65536 / 1e12, 1e-18);
  k = op_named (f, "fused:relu2");
  g_assert_nonnull (k);
  g_assert_cmpuint (k->n_inputs, ==, 2);
  g_assert_cmpuint (k->n_outputs, ==, 2);
  g_assert_cmpfloat_with_epsilon (plx_ir_op_time (f, k, c), (3 * 65536 + 4) / 1e12, 1e-18);
}

static void
test_bucket (void)
{
  PlxTimelineIter ev_iter;
  PlxTimelineEvent ev_buf;
  /* Both gradients in one bucket: packed (2 x 2 MiB read, 4 MiB written: 8 MiB at
   * 1e12 B/s), one ring all-reduce of 4 MiB over 2 GPUs of a node - 2 (n - 1) / n x
   * 4,194,304 B at 1e11 B/s = 41.94304 us - and unpacked into d:w2 and d:w1's
   * reduced tensors, which the updates read as before. */
  g_autoptr (PlxCluster) c = ideal_cluster ();
  g_autoptr (PlxIrGraph) p = dp_program ("mlp-2layer.json", 2, c);
  g_autoptr (PlxFuseSpace) s = plx_fuse_space_new (p);
  g_autoptr (PlxFusePlan) plan = plx_fuse_plan_new (s);
  g_autoptr (PlxIrGraph) f = NULL;
  g_autoptr (GError) error = NULL;
  const PlxIrOp *pack, *ar, *unpack;

  plan->cut[0] = FALSE;
  f = plx_fuse_apply (s, plan, NULL, NULL);
  g_assert_true (plx_ir_graph_check (f, "bucketed", &error));
  g_assert_no_error (error);
  pack = op_named (f, "pack:bucket0");
  ar = op_named (f, "allreduce bucket0: d:w2, d:w1");
  unpack = op_named (f, "unpack:bucket0");
  g_assert_nonnull (pack);
  g_assert_nonnull (ar);
  g_assert_nonnull (unpack);
  g_assert_cmpuint (f->ops->len, ==, p->ops->len - 2 + 3);
  g_assert_cmpuint (pack->n_inputs, ==, 2);
  g_assert_cmpint (plx_ir_tensor_elements (f->tensors->pdata[ar->inputs[0]]), ==, 2 * 1048576);
  g_assert_cmpfloat_with_epsilon (plx_ir_op_time (f, pack, c), 8388608 / 1e12, 1e-15);
  g_assert_cmpfloat_with_epsilon (plx_ir_op_time (f, ar, c), 4194304 / 1e11, 1e-12);
  g_assert_cmpstr (tensor_name (f, unpack->outputs[0]), ==, "d:w2:ar.dp");
  g_assert_cmpstr (tensor_name (f, unpack->outputs[1]), ==, "d:w1:ar.dp");
  /* The bucket's reduction waits for d:w1, the last gradient made. */
  {
    PlxIrRun run;
    guint i_ar = 0, i_w1 = 0;
    g_assert_true (plx_ir_simulate (f, c, &run, &error));
    for (guint i = 0; i < f->ops->len; i++)
      {
        if (f->ops->pdata[i] == ar)
          i_ar = i;
        if (g_str_equal (((PlxIrOp *) f->ops->pdata[i])->name, "matmul:w1"))
          i_w1 = i;
      }
    g_assert_cmpfloat (run.op_start_s[i_ar], >=, run.op_end_s[i_w1]);
    /* On a timeline it is data-parallel communication, labelled by what it carries,
     * though the updates read the unpacked gradients rather than its output. */
    {
      g_autoptr (PlxTimeline) tl = NULL;
      guint found = 0;
      plx_ir_run_charts (f, &run, NULL, &tl, NULL);
      for (plx_timeline_iter_init (&ev_iter, tl); plx_timeline_iter_next (&ev_iter, &ev_buf);)
        {
          const PlxTimelineEvent *ev = &ev_buf;
          if (g_str_equal (ev->label, "allreduce bucket0: d:w2, d:w1"))
            {
              g_assert_cmpint (ev->kind, ==, PLX_KIND_DP_COMM);
              g_assert_cmpint (ev->stream, ==, PLX_STREAM_DP);
              found++;
            }
        }
      g_assert_cmpuint (found, ==, 2);   /* one event per GPU */
    }
    plx_ir_run_clear (&run);
  }
}

/* A program of gradient all-reduces alone, `sizes` MiB each, an update reading each. */
static PlxIrGraph *
gradients_program (const double *mib, guint n)
{
  PlxIrGraph *g = plx_ir_graph_new (2);
  guint devices[2] = { 0, 1 };

  for (guint i = 0; i < n; i++)
    {
      gint64 elements = (gint64) (mib[i] * 1048576 / 2);
      g_autofree char *gn = g_strdup_printf ("g%u", i), *rn = g_strdup_printf ("g%u:ar", i);
      g_autofree char *wn = g_strdup_printf ("w%u", i), *un = g_strdup_printf ("w%u:new", i);
      g_autofree char *an = g_strdup_printf ("ar%u", i), *on = g_strdup_printf ("update%u", i);
      guint gt = plx_ir_graph_add_tensor (g, gn, 1, &elements, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
      guint rt = plx_ir_graph_add_tensor (g, rn, 1, &elements, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
      guint wt = plx_ir_graph_add_tensor (g, wn, 1, &elements, PLX_DTYPE_BF16, PLX_IR_ROLE_WEIGHT);
      guint ut = plx_ir_graph_add_tensor (g, un, 1, &elements, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
      guint in[2] = { wt, rt };
      plx_ir_graph_add_op (g, an, PLX_IR_ALL_REDUCE, &gt, 1, &rt, 1, devices, 2);
      plx_ir_graph_add_op (g, on, PLX_IR_OPTIMIZER, in, 2, &ut, 1, devices, 2);
    }
  return g;
}

static void
test_ddp_buckets (void)
{
  /* PyTorch DDP's assignment (1 MiB first, then 25 MiB; the gradient that fills a
   * bucket stays in it) on gradients of 0.5, 0.75, 10, 20, 3 and 30 MiB: 0.5 + 0.75
   * = 1.25 >= 1 closes the first; 10 + 20 = 30 >= 25 the second; 3 + 30 = 33 the
   * third. Horovod's 64 MiB would not matter here: the plan is by size alone. */
  const double mib[] = { 0.5, 0.75, 10, 20, 3, 30 };
  const gboolean want[] = { FALSE, TRUE, FALSE, TRUE, FALSE, TRUE };
  g_autoptr (PlxIrGraph) g = gradients_program (mib, G_N_ELEMENTS (mib));
  g_autoptr (PlxFuseSpace) s = plx_fuse_space_new (g);
  g_autoptr (PlxFusePlan) plan = plx_fuse_plan_new (s);

  g_assert_cmpuint (s->n_grads, ==, 6);
  plx_fuse_plan_buckets_by_size (s, plan, 1048576.0, 25 * 1048576.0);
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    g_assert_cmpint (plan->cut[i], ==, want[i]);
}

static void
test_convexity (void)
{
  /* a = x + x; b = a x w (a matmul); c = b + a. a -> c may fuse by kind, but the
   * kernel {a, c} would wait on b, which waits on a: the fusion is refused and the
   * program keeps its three ops. */
  g_autoptr (PlxIrGraph) g = plx_ir_graph_new (1);
  gint64 shape[2] = { 64, 64 };
  guint dev = 0;
  guint x = plx_ir_graph_add_tensor (g, "x", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint w = plx_ir_graph_add_tensor (g, "w", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_WEIGHT);
  guint a = plx_ir_graph_add_tensor (g, "a", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint b = plx_ir_graph_add_tensor (g, "b", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint cc = plx_ir_graph_add_tensor (g, "c", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint xx[2] = { x, x }, aw[2] = { a, w }, ba[2] = { b, a };
  g_autoptr (PlxFuseSpace) s = NULL;
  g_autoptr (PlxFusePlan) plan = NULL;
  g_autoptr (PlxIrGraph) f = NULL;
  guint kernels = 99;

  plx_ir_graph_add_op (g, "add_a", PLX_IR_ADD, xx, 2, &a, 1, &dev, 1);
  plx_ir_graph_add_op (g, "mm_b", PLX_IR_MATMUL, aw, 2, &b, 1, &dev, 1);
  plx_ir_graph_add_op (g, "add_c", PLX_IR_ADD, ba, 2, &cc, 1, &dev, 1);
  s = plx_fuse_space_new (g);
  g_assert_cmpuint (s->n_edges, ==, 1);
  plan = plx_fuse_plan_new (s);
  plx_fuse_plan_fuse_all (plan);
  f = plx_fuse_apply (s, plan, &kernels, NULL);
  g_assert_cmpuint (kernels, ==, 0);
  g_assert_false (plan->fuse[0]);
  g_assert_cmpuint (f->ops->len, ==, 3);
}

static void
test_cross_groups (void)
{
  /* Two groups, each convex, that would read each other: relu(x) -> p, tanh(x) -> q,
   * mm1 = p w1, mm2 = q w2, adda = p + mm2, addb = q + mm1, adds = adda + addb, loss.
   * Edges in order: relu-adda, tanh-addb, adda-adds, addb-adds, adds-loss.
   * relu-adda fuses. tanh-addb would be convex alone, but {tanh, addb} feeds mm2,
   * which feeds {relu, adda}, which feeds mm1, which feeds addb: refused. adda-adds is
   * refused (relu -> mm1 -> addb -> adds runs outside). addb-adds and adds-loss fuse.
   * Two kernels, {relu, adda} and {addb, adds, loss}, and a program that orders. */
  g_autoptr (PlxIrGraph) g = plx_ir_graph_new (1);
  gint64 shape[2] = { 64, 64 }, one = 1;
  guint dev = 0;
  guint x = plx_ir_graph_add_tensor (g, "x", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint z = plx_ir_graph_add_tensor (g, "z", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint w1 = plx_ir_graph_add_tensor (g, "w1", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_WEIGHT);
  guint w2 = plx_ir_graph_add_tensor (g, "w2", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_WEIGHT);
  guint p = plx_ir_graph_add_tensor (g, "p", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint q = plx_ir_graph_add_tensor (g, "q", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint mp = plx_ir_graph_add_tensor (g, "mp", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint mq = plx_ir_graph_add_tensor (g, "mq", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint a2 = plx_ir_graph_add_tensor (g, "a2", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint b2 = plx_ir_graph_add_tensor (g, "b2", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint sum = plx_ir_graph_add_tensor (g, "s", 2, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint l = plx_ir_graph_add_tensor (g, "l", 1, &one, PLX_DTYPE_FP32, PLX_IR_ROLE_DATA);
  guint in_mm1[2] = { p, w1 }, in_mm2[2] = { q, w2 }, in_a[2] = { p, mq }, in_b[2] = { q, mp };
  guint in_s[2] = { a2, b2 }, in_l[2] = { sum, z };
  const gboolean want[] = { TRUE, FALSE, FALSE, TRUE, TRUE };
  g_autoptr (PlxFuseSpace) sp = NULL;
  g_autoptr (PlxFusePlan) plan = NULL;
  g_autoptr (PlxIrGraph) f = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxCluster) c = ideal_cluster ();
  guint kernels = 0, group[8];
  PlxIrRun run;

  plx_ir_graph_add_op (g, "relu", PLX_IR_RELU, &x, 1, &p, 1, &dev, 1);
  plx_ir_graph_add_op (g, "tanh", PLX_IR_TANH, &x, 1, &q, 1, &dev, 1);
  plx_ir_graph_add_op (g, "mm1", PLX_IR_MATMUL, in_mm1, 2, &mp, 1, &dev, 1);
  plx_ir_graph_add_op (g, "mm2", PLX_IR_MATMUL, in_mm2, 2, &mq, 1, &dev, 1);
  plx_ir_graph_add_op (g, "adda", PLX_IR_ADD, in_a, 2, &a2, 1, &dev, 1);
  plx_ir_graph_add_op (g, "addb", PLX_IR_ADD, in_b, 2, &b2, 1, &dev, 1);
  plx_ir_graph_add_op (g, "adds", PLX_IR_ADD, in_s, 2, &sum, 1, &dev, 1);
  plx_ir_graph_add_op (g, "loss", PLX_IR_LOSS, in_l, 2, &l, 1, &dev, 1);
  sp = plx_fuse_space_new (g);
  g_assert_cmpuint (sp->n_edges, ==, 5);
  plan = plx_fuse_plan_new (sp);
  plx_fuse_plan_fuse_all (plan);
  f = plx_fuse_apply (sp, plan, &kernels, group);
  g_assert_nonnull (f);
  g_assert_cmpuint (kernels, ==, 2);
  for (guint e = 0; e < 5; e++)
    g_assert_cmpint (plan->fuse[e], ==, want[e]);
  g_assert_cmpuint (group[0], ==, group[4]);                           /* relu, adda */
  g_assert_true (group[5] == group[6] && group[6] == group[7]);       /* addb, adds, loss */
  g_assert_cmpuint (group[1], ==, 1);                                  /* tanh alone */
  g_assert_true (plx_ir_graph_check (f, "cross", &error));
  g_assert_no_error (error);
  g_assert_true (plx_ir_simulate (f, c, &run, &error));
  plx_ir_run_clear (&run);
}

static void
test_batch_norm_sweep (void)
{
  /* A batch norm fused with the ReLU after it still reads x twice (its statistics
   * span the batch): x in, r out, and x again, each [8, 16, 16, 16] bf16 = 65,536 B:
   * 3 x 65,536 B at 1e12 B/s, where the two ops apart move x twice and y (the norm),
   * y and r (the ReLU): 5 x 65,536 B. A mean reduced and then added does not fuse:
   * the mean is whole only at the reduction's end. */
  g_autoptr (PlxIrGraph) g = plx_ir_graph_new (1);
  gint64 shape[4] = { 8, 16, 16, 16 }, row[2] = { 64, 64 }, col[2] = { 64, 1 };
  guint dev = 0;
  guint x = plx_ir_graph_add_tensor (g, "x", 4, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint y = plx_ir_graph_add_tensor (g, "y", 4, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint r = plx_ir_graph_add_tensor (g, "r", 4, shape, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint u = plx_ir_graph_add_tensor (g, "u", 2, row, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint mu = plx_ir_graph_add_tensor (g, "mu", 2, col, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint v = plx_ir_graph_add_tensor (g, "v", 2, row, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint uv[2] = { u, mu };
  g_autoptr (PlxFuseSpace) sp = NULL;
  g_autoptr (PlxFusePlan) plan = NULL;
  g_autoptr (PlxIrGraph) f = NULL;
  g_autoptr (PlxCluster) c = ideal_cluster ();
  PlxIrOp *mean;

  plx_ir_graph_add_op (g, "bn", PLX_IR_BATCH_NORM, &x, 1, &y, 1, &dev, 1);
  plx_ir_graph_add_op (g, "relu", PLX_IR_RELU, &y, 1, &r, 1, &dev, 1);
  mean = plx_ir_graph_add_op (g, "mean", PLX_IR_REDUCE_MEAN, &u, 1, &mu, 1, &dev, 1);
  mean->axis = 1;
  plx_ir_graph_add_op (g, "add", PLX_IR_ADD, uv, 2, &v, 1, &dev, 1);
  sp = plx_fuse_space_new (g);
  g_assert_cmpuint (sp->n_edges, ==, 1);
  g_assert_cmpfloat_with_epsilon (plx_ir_op_time (g, g->ops->pdata[0], c) + plx_ir_op_time (g, g->ops->pdata[1], c),
                                  5 * 65536 / 1e12, 1e-18);
  plan = plx_fuse_plan_new (sp);
  plx_fuse_plan_fuse_all (plan);
  f = plx_fuse_apply (sp, plan, NULL, NULL);
  g_assert_cmpfloat_with_epsilon (plx_ir_op_time (f, op_named (f, "fused:bn"), c), 3 * 65536 / 1e12, 1e-18);
}

static void
check_search (const char *graph, guint dp, const PlxCluster *c, guint budget)
{
  /* DisCo's claims as bounds: the plan found is never slower than the best baseline
   * (they seed the search) and never faster than the ideal bound (communication
   * free); and it is what it says: applied and simulated again, the same step. */
  g_autoptr (PlxIrGraph) p = dp_program (graph, dp, c);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxFuseSpace) s = plx_fuse_space_new (p);
  g_autoptr (PlxIrGraph) f = NULL;
  PlxFuseResult r;
  PlxIrRun run;
  double best_baseline;

  plx_fuse_search (p, c, budget, &r, &error);
  g_assert_no_error (error);
  best_baseline = MIN (MIN (r.none_s, r.ddp_s), MIN (r.horovod_s, r.elementwise_s));
  g_assert_cmpfloat (r.step_s, <=, best_baseline);
  g_assert_cmpfloat (r.step_s, >=, r.ideal_s);
  g_assert_cmpfloat (r.ideal_s, >, 0.0);
  /* 7 baselines and seeds, the search's budget (one over at most), 3 for the bound. */
  g_assert_cmpuint (r.simulations, <=, 7 + budget + 1 + 3);
  f = plx_fuse_apply (s, r.plan, NULL, NULL);
  g_assert_true (plx_ir_simulate (f, c, &run, &error));
  g_assert_cmpfloat_with_epsilon (run.makespan_s, r.step_s, 1e-12 * r.step_s);
  plx_ir_run_clear (&run);
  plx_fuse_result_clear (&r);
}

static void
test_search_bounds (void)
{
  g_autoptr (PlxCluster) ideal = ideal_cluster ();
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxCluster) a100 = plx_cluster_new_preset ("dgx-a100-80gb", &error);

  g_assert_no_error (error);
  check_search ("mlp-2layer.json", 2, ideal, 300);
  check_search ("mlp-2layer.json", 8, a100, 300);
  check_search ("mlp-8x8192-b16.json", 8, a100, 300);
  /* DisCo's kinds of model over two nodes, with a budget the search runs out of. */
  a100->num_nodes = 2;
  check_search ("gpt2-b256.json", 16, a100, 40);
  check_search ("resnet50-b2048.json", 16, a100, 40);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fuse/space", test_space);
  g_test_add_func ("/fuse/kernels", test_kernels);
  g_test_add_func ("/fuse/bucket", test_bucket);
  g_test_add_func ("/fuse/ddp-buckets", test_ddp_buckets);
  g_test_add_func ("/fuse/convexity", test_convexity);
  g_test_add_func ("/fuse/cross-groups", test_cross_groups);
  g_test_add_func ("/fuse/batch-norm-sweep", test_batch_norm_sweep);
  g_test_add_func ("/fuse/search-bounds", test_search_bounds);
  return g_test_run ();
}
