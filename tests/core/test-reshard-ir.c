/* Redistribution in the IR (issue 14): plans lowered by plx_reshard_lower are valid
 * programs whose ops run on exactly the groups the SPMD executor forms, and which
 * the IR simulator prices at the planner's time - by hand on small cases, and on
 * random (mesh, shape, source, target) cases against a brute-force pricing of each
 * op's actual device groups; a layer that wants its input split another way gets
 * the redistribution inside the step. */
#include <string.h>

#include "parallax/parallax.h"
#include "test-home.h"

#include "test-util.h"
#include "hardware/plx-collective.h"
#include "ir/plx-ir.h"
#include "reshard/plx-reshard-ir.h"

#define RANDOM_CASES 1000u

/* got within rel x want of want (a zero time exactly zero). */
#define assert_time(got, want, rel) \
  G_STMT_START { \
    double got_ = (got), want_ = (want); \
    if ((want_) == 0.0) \
      g_assert_cmpfloat (got_, ==, 0.0); \
    else \
      g_assert_cmpfloat_with_epsilon (got_, want_, want_ * (rel)); \
  } G_STMT_END

static PlxCluster *
ideal_cluster (guint nodes)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *json = NULL;
  g_autoptr (JsonNode) node = NULL;
  PlxCluster *c;

  /* 8 GPUs a node, 100 GB/s in a node, 25 GB/s between, no latency, efficiency 1. */
  json = g_strdup_printf (TEST_IDEAL_CLUSTER (%u, 100e9, 25e9), nodes);
  node = plx_json_parse_data (json, -1, "test", &error);
  g_assert_no_error (error);
  c = plx_cluster_new_from_json (node, "test", &error);
  g_assert_no_error (error);
  return c;
}

static PlxCluster *
dgx_cluster (guint nodes)
{
  g_autoptr (GError) error = NULL;
  PlxCluster *c = plx_cluster_new_preset ("dgx-a100-80gb", &error);

  g_assert_no_error (error);
  c->num_nodes = nodes;
  return c;
}

static PlxReshardPlan *
plan_of (const PlxCluster *c, const char *mesh_text, const PlxArrayShape *shape, const char *from, const char *to)
{
  g_autoptr (GError) error = NULL;
  PlxMesh m;
  PlxSharding src, tgt;
  PlxReshardPlan *p;

  g_assert_true (plx_mesh_parse (mesh_text, &m, &error));
  g_assert_true (plx_sharding_parse (from, &m, shape->rank, &src, &error));
  g_assert_true (plx_sharding_parse (to, &m, shape->rank, &tgt, &error));
  p = plx_reshard_plan (c, &m, shape, &src, &tgt, &error);
  g_assert_no_error (error);
  return p;
}

/* ---------- the test's own mesh arithmetic (the executor's definitions) ---------- */

static guint
stride_of (const PlxMesh *m, guint axis)
{
  guint s = 1;

  for (guint a = axis + 1; a < m->n_axes; a++)
    s *= m->size[a];
  return s;
}

static guint
coord_of (const PlxMesh *m, guint dev, guint axis)
{
  return dev / stride_of (m, axis) % m->size[axis];
}

static guint
with_coord (const PlxMesh *m, guint dev, guint axis, guint value)
{
  return dev + (value - coord_of (m, dev, axis)) * stride_of (m, axis);
}

static guint64
block_of (const PlxMesh *m, const PlxSharding *s, guint dev, guint d)
{
  guint64 idx = 0;

  for (guint i = 0; i < s->n_axes[d]; i++)
    idx = idx * m->size[s->axes[d][i]] + coord_of (m, dev, s->axes[d][i]);
  return idx;
}

static gboolean
same_blocks (const PlxMesh *m, const PlxSharding *a, guint dev_a, const PlxSharding *b, guint dev_b)
{
  for (guint d = 0; d < a->rank; d++)
    if (block_of (m, a, dev_a, d) != block_of (m, b, dev_b, d))
      return FALSE;
  return TRUE;
}

/* Where devices sit on the cluster, counted one by one. */
static PlxGroup
placement (const PlxCluster *c, const guint *devs, guint n)
{
  g_autofree guint *count = g_new0 (guint, c->num_nodes);
  PlxGroup g = { n, 0, 0 };

  for (guint i = 0; i < n; i++)
    {
      guint node = devs[i] / c->gpus_per_node;

      g.nodes += count[node] == 0;
      count[node]++;
      g.ranks_per_node = MAX (g.ranks_per_node, count[node]);
    }
  return g;
}

static gboolean
same_group (PlxGroup a, PlxGroup b)
{
  return a.size == b.size && a.nodes == b.nodes && a.ranks_per_node == b.ranks_per_node;
}

/* What one lowered step is checked against: the IR's time for it, priced here from
 * the op's actual devices, and whether every group sits where plx_group_place
 * (the planner's placement) put it. */
typedef struct
{
  double   ir_s;
  gboolean as_planned;
  guint    n_ops;
} StepCheck;

typedef struct
{
  const PlxCluster     *cluster;
  const PlxReshardPlan *plan;
  const PlxIrGraph     *graph;
  const guint          *map;     /* mesh device -> graph device */
  const guint          *inverse; /* graph device -> mesh device */
} Lowered;

static guint
graph_dev (const Lowered *lw, guint mesh_dev)
{
  return lw->map != NULL ? lw->map[mesh_dev] : mesh_dev;
}

static guint
mesh_dev (const Lowered *lw, guint graph_device)
{
  return lw->inverse != NULL ? lw->inverse[graph_device] : graph_device;
}

static const PlxIrTensor *
tensor (const PlxIrGraph *g, guint i)
{
  return g->tensors->pdata[i];
}

/* A collective over an axis (all-gather, all-to-all, reduce-scatter, all-reduce): the
 * executor's groups of the step's axis (a device
 * and those differing from it in that coordinate only, in its order), one after
 * another, each group's first device the one at coordinate 0, in increasing order. */
static StepCheck
check_axis_collective (const Lowered *lw, const PlxReshardStep *st, const PlxIrOp *op)
{
  const PlxMesh *m = &lw->plan->mesh;
  guint n = plx_mesh_n_devices (m), size = m->size[st->axis];
  gboolean all_gather = st->op == PLX_RESHARD_ALL_GATHER;
  PlxGroup planned = plx_group_place (lw->cluster, size, stride_of (m, st->axis));
  StepCheck r = { 0.0, TRUE, 1 };
  gint last_leader = -1;
  /* Each step's IR op, the dimension it names, and the collective that prices it: an
   * all-to-all names the dimension it cuts, a reduce-scatter the one it scatters. */
  PlxIrKind kind = st->op == PLX_RESHARD_ALL_GATHER       ? PLX_IR_ALL_GATHER
                   : st->op == PLX_RESHARD_ALL_TO_ALL     ? PLX_IR_ALL_TO_ALL
                   : st->op == PLX_RESHARD_REDUCE_SCATTER ? PLX_IR_REDUCE_SCATTER
                                                          : PLX_IR_ALL_REDUCE;
  PlxCollectiveKind collective = st->op == PLX_RESHARD_ALL_GATHER       ? PLX_COLLECTIVE_ALL_GATHER
                                 : st->op == PLX_RESHARD_ALL_TO_ALL     ? PLX_COLLECTIVE_ALL_TO_ALL
                                 : st->op == PLX_RESHARD_REDUCE_SCATTER ? PLX_COLLECTIVE_REDUCE_SCATTER
                                                                        : PLX_COLLECTIVE_ALL_REDUCE;
  gint axis = st->op == PLX_RESHARD_ALL_TO_ALL ? (gint) st->to_dim : st->op == PLX_RESHARD_ALL_REDUCE ? -1 : (gint) st->dim;

  g_assert_cmpint (op->kind, ==, kind);
  g_assert_cmpint (op->axis, ==, axis);
  g_assert_cmpuint (op->n_devices, ==, n);
  g_assert_cmpuint (op->groups, ==, n / size);
  /* Bytes as the planner counted them: the gathered output, the all-to-all's input. */
  g_assert_cmpfloat (plx_ir_tensor_bytes (tensor (lw->graph, op->inputs[0])), ==, st->in_bytes);
  g_assert_cmpfloat (plx_ir_tensor_bytes (tensor (lw->graph, op->outputs[0])), ==, st->out_bytes);
  for (guint g = 0; g < op->groups; g++)
    {
      const guint *chunk = op->devices + g * size;
      guint leader = mesh_dev (lw, chunk[0]);
      PlxGroup actual = placement (lw->cluster, chunk, size);

      g_assert_cmpuint (coord_of (m, leader, st->axis), ==, 0);
      g_assert_cmpint ((gint) leader, >, last_leader);
      last_leader = (gint) leader;
      for (guint j = 0; j < size; j++)
        g_assert_cmpuint (chunk[j], ==, graph_dev (lw, with_coord (m, leader, st->axis, j)));
      r.ir_s = MAX (r.ir_s, plx_collective_time (lw->cluster, collective, &actual,
                                                 all_gather ? st->out_bytes : st->in_bytes));
      r.as_planned &= same_group (actual, planned);
    }
  return r;
}

/* A permute: exactly the devices whose blocks change receive, once each, from a
 * device that holds those blocks under the old layout (the executor's rule) and
 * differs from it only on the reordered dimension's axes. */
static StepCheck
check_permute (const Lowered *lw, const PlxSharding *before, const PlxReshardStep *st, const PlxIrOp *op)
{
  const PlxMesh *m = &lw->plan->mesh;
  guint n = plx_mesh_n_devices (m), span = 1, min_stride = G_MAXUINT, receivers = 0;
  gboolean on_dim[PLX_MESH_MAX_AXES] = { FALSE }, crosses = FALSE;
  g_autofree guint *received = g_new0 (guint, n);
  StepCheck r = { 0.0, TRUE, 0 };
  PlxGroup planned;

  for (guint i = 0; i < before->n_axes[st->dim]; i++)
    {
      guint a = before->axes[st->dim][i];

      on_dim[a] = TRUE;
      span *= m->size[a];
      min_stride = MIN (min_stride, stride_of (m, a));
    }
  for (guint dev = 0; dev < n; dev++)
    receivers += !same_blocks (m, &st->after, dev, before, dev);
  if (receivers > 0)
    {
      g_assert_nonnull (op);
      g_assert_cmpint (op->kind, ==, PLX_IR_SEND);
      g_assert_cmpuint (op->n_devices, ==, receivers);
      g_assert_cmpfloat (plx_ir_tensor_bytes (tensor (lw->graph, op->inputs[0])), ==, st->in_bytes);
      r.n_ops = 1;
      for (guint i = 0; i < op->n_devices; i++)
        {
          guint s = mesh_dev (lw, op->devices[i]), t = mesh_dev (lw, op->peers[i]);
          guint pair[2] = { op->devices[i], op->peers[i] };
          PlxGroup g = placement (lw->cluster, pair, 2);

          g_assert_true (same_blocks (m, before, s, &st->after, t));
          g_assert_false (same_blocks (m, &st->after, t, before, t));
          g_assert_cmpuint (received[t]++, ==, 0);
          for (guint a = 0; a < m->n_axes; a++)
            if (!on_dim[a])
              g_assert_cmpuint (coord_of (m, s, a), ==, coord_of (m, t, a));
          crosses |= g.nodes > 1;
          r.ir_s = MAX (r.ir_s, plx_collective_time (lw->cluster, PLX_COLLECTIVE_SEND_RECV, &g, st->in_bytes));
        }
    }
  /* The planner prices one send on the group the dimension's axes span, placed by
   * plx_group_place: across nodes if that group is. */
  planned = plx_group_place (lw->cluster, span, min_stride);
  r.as_planned = (receivers > 0 || span <= 1) && (planned.nodes > 1) == crosses;
  return r;
}

static StepCheck
check_slice (const Lowered *lw, const PlxReshardStep *st, const PlxIrOp *op)
{
  guint n = plx_mesh_n_devices (&lw->plan->mesh);
  StepCheck r = { 0.0, TRUE, 1 };

  g_assert_cmpint (op->kind, ==, PLX_IR_SLICE);
  g_assert_cmpint (op->axis, ==, (gint) st->dim);
  g_assert_cmpuint (op->n_devices, ==, n);
  for (guint d = 0; d < n; d++)
    g_assert_cmpuint (op->devices[d], ==, graph_dev (lw, d));
  return r;
}

/* Checks the ops from `first_op` on against the plan, step by step; returns the
 * IR's time for them (each step priced on its op's own groups) and sets
 * *as_planned when every group sits where the planner placed it. */
static double
check_lowered (const Lowered *lw, guint first_op, guint input, gboolean *as_planned)
{
  PlxSharding before = lw->plan->source;
  guint k = first_op, cur = input;
  double total = 0.0;

  *as_planned = TRUE;
  for (guint i = 0; i < lw->plan->steps->len; i++)
    {
      const PlxReshardStep *st = &g_array_index (lw->plan->steps, PlxReshardStep, i);
      const PlxIrOp *op = k < lw->graph->ops->len ? lw->graph->ops->pdata[k] : NULL;
      StepCheck r;

      /* Each step reads what the one before left. */
      if (op != NULL && op->inputs[0] != cur)
        op = NULL;
      switch (st->op)
        {
        case PLX_RESHARD_ALL_GATHER:
        case PLX_RESHARD_ALL_TO_ALL:
        case PLX_RESHARD_REDUCE_SCATTER:
        case PLX_RESHARD_ALL_REDUCE:
          g_assert_nonnull (op);
          r = check_axis_collective (lw, st, op);
          break;
        case PLX_RESHARD_SLICE:
          g_assert_nonnull (op);
          r = check_slice (lw, st, op);
          break;
        case PLX_RESHARD_PERMUTE:
          r = check_permute (lw, &before, st, op);
          break;
        case PLX_RESHARD_N_OPS:
        default:
          g_assert_not_reached ();
        }
      /* The planner prices each step on its groups' real placement, as the IR does
       * (as_planned only says whether plx_group_place's aligned guess would too). */
      assert_time (r.ir_s, st->time_s, 1e-12);
      *as_planned &= r.as_planned;
      total += r.ir_s;
      if (r.n_ops > 0)
        cur = op->outputs[0];
      k += r.n_ops;
      before = st->after;
    }
  g_assert_cmpuint (k, ==, lw->graph->ops->len);
  return total;
}

static double
simulate (const PlxIrGraph *g, const PlxCluster *c)
{
  g_autoptr (GError) error = NULL;
  PlxIrRun run;
  double t;

  g_assert_true (plx_ir_simulate (g, c, &run, &error));
  g_assert_no_error (error);
  t = run.makespan_s;
  plx_ir_run_clear (&run);
  return t;
}

/* The plan as a standalone program: checked by the IR's reader, its ops against the
 * executor's groups, simulated. Returns the simulated time. */
static double
lower_and_check (const PlxCluster *c, const PlxReshardPlan *p, gboolean *as_planned, double *derived)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = plx_reshard_plan_to_graph (p, &error);
  Lowered lw = { c, p, NULL, NULL, NULL };
  double sim;

  g_assert_no_error (error);
  g_assert_true (plx_ir_graph_check (g, "lowered", &error));
  g_assert_no_error (error);
  lw.graph = g;
  *derived = check_lowered (&lw, 0, 0, as_planned);
  sim = simulate (g, c);
  assert_time (sim, *derived, 1e-9);
  return sim;
}

/* ---------- by hand ---------- */

static void
test_docs_example (void)
{
  /* docs/reshard.md's command line: 12288 x 49152 bf16 on 8 x 8 DGX A100 GPUs (8
   * nodes), [x,y] -> [y,-]: an all-gather of x (dimension 0), then an all-to-all of
   * y from dimension 1 to 0. x spans the nodes: its 8 groups are g, g+8, ..., g+56;
   * y is a node: group g is 8g..8g+7. Both steps on node-aligned groups, so the IR
   * prices each as the planner did and the program takes the plan's time. */
  g_autoptr (PlxCluster) c = dgx_cluster (8);
  PlxArrayShape shape = { .rank = 2, .dim = { 12288, 49152 }, .elem_bytes = 2 };
  g_autoptr (PlxReshardPlan) p = plan_of (c, "8x8", &shape, "[x,y]", "[y,-]");
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = plx_reshard_plan_to_graph (p, &error);
  const PlxIrOp *gather, *a2a;
  const PlxIrTensor *src, *mid, *dst;
  gboolean as_planned;
  double derived, sim;

  g_assert_no_error (error);
  g_assert_cmpuint (p->steps->len, ==, 2);
  g_assert_cmpint (g_array_index (p->steps, PlxReshardStep, 0).op, ==, PLX_RESHARD_ALL_GATHER);
  g_assert_cmpint (g_array_index (p->steps, PlxReshardStep, 1).op, ==, PLX_RESHARD_ALL_TO_ALL);
  g_assert_cmpuint (g->n_devices, ==, 64);
  g_assert_cmpuint (g->ops->len, ==, 2);
  gather = g->ops->pdata[0];
  a2a = g->ops->pdata[1];
  g_assert_cmpint (gather->kind, ==, PLX_IR_ALL_GATHER);
  g_assert_cmpint (gather->axis, ==, 0);
  g_assert_cmpuint (gather->groups, ==, 8);
  g_assert_cmpint (a2a->kind, ==, PLX_IR_ALL_TO_ALL);
  g_assert_cmpuint (a2a->groups, ==, 8);
  for (guint grp = 0; grp < 8; grp++)
    for (guint j = 0; j < 8; j++)
      {
        g_assert_cmpuint (gather->devices[grp * 8 + j], ==, grp + 8 * j);
        g_assert_cmpuint (a2a->devices[grp * 8 + j], ==, 8 * grp + j);
      }
  /* Per-device shards: 1536 x 6144 (18 MiB), 12288 x 6144 after the gather, 1536 x
   * 49152 (144 MiB) at the end. */
  src = g->tensors->pdata[0];
  mid = g->tensors->pdata[gather->outputs[0]];
  dst = g->tensors->pdata[a2a->outputs[0]];
  g_assert_cmpstr (src->name, ==, "array[x,y]");
  g_assert_cmpstr (dst->name, ==, "array[y,-]");
  g_assert_cmpint (src->shape[0], ==, 1536);
  g_assert_cmpint (src->shape[1], ==, 6144);
  g_assert_cmpint (mid->shape[0], ==, 12288);
  g_assert_cmpint (mid->shape[1], ==, 6144);
  g_assert_cmpint (dst->shape[0], ==, 1536);
  g_assert_cmpint (dst->shape[1], ==, 49152);
  g_assert_cmpint (src->dtype, ==, PLX_DTYPE_BF16);

  sim = lower_and_check (c, p, &as_planned, &derived);
  g_assert_true (as_planned);
  assert_time (sim, p->time_s, 1e-9);
}

static void
test_all_to_all_by_hand (void)
{
  /* test-reshard's case: 1024 x 1024 fp32 on one node of 8, [x,-] -> [-,x]: one
   * all-to-all of each GPU's 1024 x 128 x 4 B = 524288 B, 7/8 of it over NVLink at
   * 100 GB/s: 7/8 x 524288 / 100e9 s. */
  g_autoptr (PlxCluster) c = ideal_cluster (1);
  PlxArrayShape shape = { .rank = 2, .dim = { 1024, 1024 }, .elem_bytes = 4 };
  g_autoptr (PlxReshardPlan) p = plan_of (c, "8", &shape, "[x,-]", "[-,x]");
  double want = 7.0 / 8.0 * 524288.0 / 100e9, derived;
  gboolean as_planned;

  g_assert_cmpfloat_with_epsilon (lower_and_check (c, p, &as_planned, &derived), want, want * 1e-12);
  g_assert_true (as_planned);
}

static void
test_permute_by_hand (void)
{
  /* test-reshard's 2 x 8 case on two ideal nodes, [x] -> [-] of 2^20 bf16: slice y
   * ([xy], 65536 elements = 131072 B each, free), permute to [yx], gather x, gather
   * y. The permute: device (x, y) = 8x + y holds block 8x + y and needs block 2y + x,
   * which device (x', y') with 8x' + y' = 2y + x holds. Devices 0 and 15 keep
   * theirs (y = 7x); the other 14 receive, e.g. device 8 (x 1, y 0) needs block 1,
   * from device 1, across the nodes; device 1 needs block 2, from device 2. The
   * slowest pair crosses nodes: 131072 / 25e9. Then x's gather (output 262144 B
   * between two nodes: 1/2 x 262144 / 25e9) and y's in the node (7/8 x 2097152 /
   * 100e9). Total 262144 / 25e9 + 1835008 / 100e9, the planner's figure. */
  g_autoptr (PlxCluster) c = ideal_cluster (2);
  PlxArrayShape shape = { .rank = 1, .dim = { 1 << 20 }, .elem_bytes = 2 };
  g_autoptr (PlxReshardPlan) p = plan_of (c, "2x8", &shape, "[x]", "[-]");
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = plx_reshard_plan_to_graph (p, &error);
  double want = 262144.0 / 25e9 + 1835008.0 / 100e9, derived;
  const PlxIrOp *send;
  gboolean as_planned, seen_8 = FALSE, seen_1 = FALSE;

  g_assert_no_error (error);
  g_assert_cmpuint (g->ops->len, ==, 4);
  g_assert_cmpint (((const PlxIrOp *) g->ops->pdata[0])->kind, ==, PLX_IR_SLICE);
  send = g->ops->pdata[1];
  g_assert_cmpint (send->kind, ==, PLX_IR_SEND);
  g_assert_cmpuint (send->n_devices, ==, 14);
  for (guint i = 0; i < send->n_devices; i++)
    {
      g_assert_cmpuint (send->peers[i], !=, 0);
      g_assert_cmpuint (send->peers[i], !=, 15);
      if (send->peers[i] == 8)
        {
          g_assert_cmpuint (send->devices[i], ==, 1);
          seen_8 = TRUE;
        }
      if (send->peers[i] == 1)
        {
          g_assert_cmpuint (send->devices[i], ==, 2);
          seen_1 = TRUE;
        }
    }
  g_assert_true (seen_8 && seen_1);
  g_assert_cmpfloat_with_epsilon (lower_and_check (c, p, &as_planned, &derived), want, want * 1e-12);
  g_assert_true (as_planned);
}

static void
test_slices_are_free (void)
{
  /* Replicated to [y,x] on 2 x 4: two slices on all 8 devices, no time. */
  g_autoptr (PlxCluster) c = ideal_cluster (1);
  PlxArrayShape shape = { .rank = 2, .dim = { 64, 64 }, .elem_bytes = 4 };
  g_autoptr (PlxReshardPlan) p = plan_of (c, "2x4", &shape, "[-,-]", "[y,x]");
  gboolean as_planned;
  double derived;

  g_assert_cmpuint (p->steps->len, ==, 2);
  g_assert_cmpfloat (lower_and_check (c, p, &as_planned, &derived), ==, 0.0);
}

static void
test_bench_pairs (void)
{
  /* Two of bench-reshard's pairs on DGX A100 nodes, 8 GPUs each: [x,-] -> [-,x] on
   * 8 x 8 (the five-step plan) and [xyz,-,-] -> [-,-,zyx] on 8 x 8 x 8 (512 GPUs,
   * three all-to-alls). Every group is node-aligned, so the program's time is the
   * plan's. */
  static const struct { const char *mesh, *from, *to; guint rank; guint64 dim[3]; guint nodes; } pairs[] = {
    { "8x8", "[x,-]", "[-,x]", 2, { 12288, 49152 }, 8 },
    { "8x8x8", "[xyz,-,-]", "[-,-,zyx]", 3, { 64, 8192, 8192 }, 64 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
    {
      g_autoptr (PlxCluster) c = dgx_cluster (pairs[i].nodes);
      PlxArrayShape shape = { .rank = pairs[i].rank, .elem_bytes = 2 };
      g_autoptr (PlxReshardPlan) p = NULL;
      gboolean as_planned;
      double derived, sim;

      memcpy (shape.dim, pairs[i].dim, sizeof pairs[i].dim);
      p = plan_of (c, pairs[i].mesh, &shape, pairs[i].from, pairs[i].to);
      g_assert_cmpuint (p->steps->len, >, 0);
      sim = lower_and_check (c, p, &as_planned, &derived);
      g_assert_true (as_planned);
      assert_time (sim, p->time_s, 1e-9);
    }
}

static void
test_mesh_on_other_devices (void)
{
  /* A 2 x 2 mesh on program devices 6, 7, 4, 5 (mesh device m -> map[m]): gathering
   * x runs on the mesh groups {0, 2} and {1, 3}, i.e. devices {6, 4} and {7, 5}. */
  g_autoptr (PlxCluster) c = ideal_cluster (1);
  PlxArrayShape shape = { .rank = 2, .dim = { 8, 8 }, .elem_bytes = 2 };
  g_autoptr (PlxReshardPlan) p = plan_of (c, "2x2", &shape, "[x,y]", "[-,y]");
  g_autoptr (PlxIrGraph) g = plx_ir_graph_new (8);
  g_autoptr (GError) error = NULL;
  static const guint map[4] = { 6, 7, 4, 5 };
  static const guint inverse[8] = { G_MAXUINT, G_MAXUINT, G_MAXUINT, G_MAXUINT, 2, 3, 0, 1 };
  static const guint want[4] = { 6, 4, 7, 5 };
  gint64 src_shape[2] = { 4, 4 };
  guint in = plx_ir_graph_add_tensor (g, "w", 2, src_shape, PLX_DTYPE_BF16, PLX_IR_ROLE_WEIGHT), out = 0;
  Lowered lw = { c, p, g, map, inverse };
  const PlxIrOp *op;
  gboolean as_planned;

  g_assert_true (plx_reshard_lower (p, g, in, map, "w", &out, &error));
  g_assert_no_error (error);
  g_assert_true (plx_ir_graph_check (g, "mapped", &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g->ops->len, ==, 1);
  op = g->ops->pdata[0];
  g_assert_cmpuint (op->groups, ==, 2);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpuint (op->devices[i], ==, want[i]);
  g_assert_cmpstr (((const PlxIrTensor *) g->tensors->pdata[out])->name, ==, "w[-,y]");
  check_lowered (&lw, 0, in, &as_planned);
  g_assert_true (as_planned);
}

static void
expect_lower_error (const PlxReshardPlan *p, PlxIrGraph *g, guint input, const guint *map, gint code,
                    const char *fragment)
{
  g_autoptr (GError) error = NULL;
  guint out = G_MAXUINT, n_ops = g->ops->len;

  g_assert_false (plx_reshard_lower (p, g, input, map, NULL, &out, &error));
  g_assert_error (error, PLX_ERROR, code);
  g_assert_nonnull (strstr (error->message, fragment));
  g_assert_cmpuint (out, ==, G_MAXUINT);
  g_assert_cmpuint (g->ops->len, ==, n_ops);
}

static void
test_bad_input (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (1);
  PlxArrayShape shape = { .rank = 2, .dim = { 8, 8 }, .elem_bytes = 2 };
  g_autoptr (PlxReshardPlan) p = plan_of (c, "2x2", &shape, "[x,y]", "[y,x]");
  g_autoptr (PlxIrGraph) g = plx_ir_graph_new (4);
  g_autoptr (PlxIrGraph) small = plx_ir_graph_new (2);
  gint64 right[2] = { 4, 4 }, wrong[2] = { 4, 8 };
  guint ok = plx_ir_graph_add_tensor (g, "ok", 2, right, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint bad_shape = plx_ir_graph_add_tensor (g, "bad", 2, wrong, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint bad_dtype = plx_ir_graph_add_tensor (g, "wide", 2, right, PLX_DTYPE_FP32, PLX_IR_ROLE_DATA);
  guint in_small = plx_ir_graph_add_tensor (small, "s", 2, right, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  static const guint twice[4] = { 0, 1, 1, 2 }, beyond[4] = { 0, 1, 2, 4 };

  expect_lower_error (p, g, bad_shape, NULL, PLX_ERROR_INCONSISTENT,
                      "tensor \"bad\" is not the [x,y] shard: expected [4, 4] of 2-byte elements");
  expect_lower_error (p, g, bad_dtype, NULL, PLX_ERROR_INCONSISTENT, "tensor \"wide\" is not the [x,y] shard");
  expect_lower_error (p, g, 99, NULL, PLX_ERROR_INVALID_VALUE, "tensor 99 is not in the program (3 tensors)");
  expect_lower_error (p, g, ok, twice, PLX_ERROR_INVALID_VALUE,
                      "mesh device 2 is program device 1, given to another mesh device too");
  expect_lower_error (p, g, ok, beyond, PLX_ERROR_INVALID_VALUE, "mesh device 3 is program device 4, not in the program");
  expect_lower_error (p, small, in_small, NULL, PLX_ERROR_INCONSISTENT, "a mesh of 4 devices in a program of 2");

  {
    /* 8-byte elements: no IR dtype. */
    PlxArrayShape wide = { .rank = 1, .dim = { 8 }, .elem_bytes = 8 };
    g_autoptr (PlxReshardPlan) q = plan_of (c, "2x2", &wide, "[x]", "[y]");
    g_autoptr (GError) error = NULL;
    g_autoptr (PlxIrGraph) none = plx_reshard_plan_to_graph (q, &error);

    g_assert_null (none);
    g_assert_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED);
    g_assert_nonnull (strstr (error->message, "8-byte elements have no IR dtype"));
  }
  {
    /* A 2^40 x 2^40 array replicated: 2^80 elements a device, more than a program's
     * tensor may hold. */
    PlxArrayShape huge = { .rank = 2, .dim = { G_GUINT64_CONSTANT (1) << 40, G_GUINT64_CONSTANT (1) << 40 },
                           .elem_bytes = 2 };
    g_autoptr (PlxReshardPlan) q = plan_of (c, "2x2", &huge, "[-,-]", "[-,-]");
    g_autoptr (GError) error = NULL;
    g_autoptr (PlxIrGraph) none = plx_reshard_plan_to_graph (q, &error);

    g_assert_null (none);
    g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
    g_assert_nonnull (strstr (error->message, "the [-,-] shard has"));
    g_assert_nonnull (strstr (error->message, "at most 10^15"));
  }
}

/* ---------- random cases ---------- */

static gboolean
power_of_two_mesh (const PlxMesh *m)
{
  for (guint a = 0; a < m->n_axes; a++)
    if ((m->size[a] & (m->size[a] - 1)) != 0)
      return FALSE;
  return TRUE;
}

static gboolean
has_permute (const PlxReshardPlan *p)
{
  for (guint i = 0; i < p->steps->len; i++)
    if (g_array_index (p->steps, PlxReshardStep, i).op == PLX_RESHARD_PERMUTE)
      return TRUE;
  return FALSE;
}

static void
test_random (void)
{
  /* Meshes of 1 to 3 axes of 1, 2, 3, 4 or 8 (at most 64 GPUs, on 8-GPU nodes),
   * arrays of rank 1 to 4 with extents 1 to 12 (most do not divide), elements of 1,
   * 2 or 4 bytes, random source (some with partial sums) and target; half on the ideal cluster, half on DGX
   * A100 nodes (measured efficiency curves, latencies). Every program is read back
   * by the IR's checker, every op's groups are the executor's, and the simulated
   * time is the sum of each step priced on its op's actual groups (brute force) -
   * and the plan's time, every case. Counted apart: the cases where an aligned
   * guess (plx_group_place, which assumes a group starts on a node boundary) would
   * have priced some step otherwise - an axis of 3 straddling a node, a permute
   * whose pairs cross nodes where the span of its axes does not or the other way
   * round; the planner once priced those so, up to 12.5 times off. */
  g_autoptr (PlxCluster) ideal = ideal_cluster (8);
  g_autoptr (PlxCluster) dgx = dgx_cluster (8);
  g_autoptr (GRand) rand = g_rand_new_with_seed (1402);
  static const guint sizes[] = { 1, 2, 3, 4, 8 };
  static const guint elem[] = { 1, 2, 4 };
  guint exact = 0, displaced = 0, displaced_pow2 = 0, with_steps = 0, with_partial = 0;

  for (guint n = 0; n < RANDOM_CASES; n++)
    {
      g_autoptr (GError) error = NULL;
      const PlxCluster *c = n % 2 ? dgx : ideal;
      PlxMesh m = { .n_axes = (guint) g_rand_int_range (rand, 1, 4) };
      PlxArrayShape shape = { .rank = (guint) g_rand_int_range (rand, 1, 5),
                              .elem_bytes = elem[g_rand_int_range (rand, 0, 3)] };
      PlxSharding src, tgt;
      g_autoptr (PlxReshardPlan) p = NULL;
      gboolean as_planned;
      double derived, sim;

      do
        for (guint a = 0; a < m.n_axes; a++)
          m.size[a] = sizes[g_rand_int_range (rand, 0, G_N_ELEMENTS (sizes))];
      while (plx_mesh_n_devices (&m) > 64);
      for (guint d = 0; d < shape.rank; d++)
        shape.dim[d] = (guint64) g_rand_int_range (rand, 1, 13);
      src = test_random_sharding (rand, &m, shape.rank, 7);
      tgt = test_random_sharding (rand, &m, shape.rank, src.partial);
      with_partial += src.partial != 0;
      p = plx_reshard_plan (c, &m, &shape, &src, &tgt, &error);
      g_assert_no_error (error);

      sim = lower_and_check (c, p, &as_planned, &derived);
      with_steps += p->steps->len > 0;
      assert_time (sim, p->time_s, 1e-9);
      if (as_planned)
        exact++;
      else
        {
          displaced++;
          displaced_pow2 += power_of_two_mesh (&m);
        }
      /* Groups of an axis whose sizes are powers of two tile the 8-GPU nodes, so
       * without a permute the aligned guess is right. */
      if (power_of_two_mesh (&m) && !has_permute (p))
        g_assert_true (as_planned);
    }
  g_test_message ("%u cases (%u with steps, %u from partial sums), all at the plan's time; %u of them with a "
                  "step an aligned guess would misprice (%u on meshes of powers of two: a permute)",
                  RANDOM_CASES, with_steps, with_partial, displaced, displaced_pow2);
  /* Both kinds occur among these cases.*/
  g_assert_cmpuint (exact, >, RANDOM_CASES / 2);
  g_assert_cmpuint (displaced, >, 0);
}

/* ---------- inside a step ---------- */

static void
test_inside_a_step (void)
{
  /* Two layers on 4 GPUs of one ideal node (1e14 FLOP/s bf16, 1e12 B/s HBM,
   * NVLink 100 GB/s). Layer 1 is column-parallel: X [1024, 1024] (every GPU) x
   * W1's column block [1024, 1024] -> H [1024, 1024], H's layout [-,x] of the
   * [1024, 4096] activation. Layer 2 splits the batch: it wants H as [x,-], each GPU
   * 256 x 4096, times the whole W2 [4096, 1024]. Between them the plan's one
   * all-to-all of each GPU's 2 MiB H, in the node: 3/4 x 2097152 / 100e9. Layer 1:
   * 2 x 1024^3 = 2^31 FLOPs at 1e14 (21.5 us; its 6 MiB of HBM traffic 6.3 us).
   * Layer 2: 2 x 256 x 4096 x 1024 = 2^31 FLOPs too (its 10.5 MiB 11.0 us). Each
   * waits for the one before, so the step is 2^31 / 1e14 + 3/4 x 2097152 / 100e9 +
   * 2^31 / 1e14. */
  g_autoptr (PlxCluster) c = ideal_cluster (1);
  PlxArrayShape h_shape = { .rank = 2, .dim = { 1024, 4096 }, .elem_bytes = 2 };
  g_autoptr (PlxReshardPlan) p = plan_of (c, "4", &h_shape, "[-,x]", "[x,-]");
  g_autoptr (PlxIrGraph) g = plx_ir_graph_new (4);
  g_autoptr (GError) error = NULL;
  static const guint devices[4] = { 0, 1, 2, 3 };
  gint64 xs[2] = { 1024, 1024 }, w1s[2] = { 1024, 1024 }, hs[2] = { 1024, 1024 };
  gint64 w2s[2] = { 4096, 1024 }, ys[2] = { 256, 1024 };
  guint x = plx_ir_graph_add_tensor (g, "x", 2, xs, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint w1 = plx_ir_graph_add_tensor (g, "w1", 2, w1s, PLX_DTYPE_BF16, PLX_IR_ROLE_WEIGHT);
  guint w2 = plx_ir_graph_add_tensor (g, "w2", 2, w2s, PLX_DTYPE_BF16, PLX_IR_ROLE_WEIGHT);
  guint h = plx_ir_graph_add_tensor (g, "h", 2, hs, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint y = plx_ir_graph_add_tensor (g, "y", 2, ys, PLX_DTYPE_BF16, PLX_IR_ROLE_DATA);
  guint in1[2] = { x, w1 }, in2[2], h_rows = 0;
  double layer = 2147483648.0 / 1e14, reshard = 0.75 * 2097152.0 / 100e9, want = layer + reshard + layer;
  PlxIrRun run;
  const PlxIrOp *a2a;

  g_assert_cmpuint (p->steps->len, ==, 1);
  g_assert_cmpint (g_array_index (p->steps, PlxReshardStep, 0).op, ==, PLX_RESHARD_ALL_TO_ALL);
  plx_ir_graph_add_op (g, "fc1", PLX_IR_MATMUL, in1, 2, &h, 1, devices, 4);
  g_assert_true (plx_reshard_lower (p, g, h, NULL, "h", &h_rows, &error));
  g_assert_no_error (error);
  in2[0] = h_rows;
  in2[1] = w2;
  plx_ir_graph_add_op (g, "fc2", PLX_IR_MATMUL, in2, 2, &y, 1, devices, 4);
  g_assert_true (plx_ir_graph_check (g, "mlp", &error));
  g_assert_no_error (error);

  g_assert_cmpuint (g->ops->len, ==, 3);
  a2a = g->ops->pdata[1];
  g_assert_cmpint (a2a->kind, ==, PLX_IR_ALL_TO_ALL);
  g_assert_cmpint (((const PlxIrTensor *) g->tensors->pdata[h_rows])->shape[0], ==, 256);
  g_assert_cmpint (((const PlxIrTensor *) g->tensors->pdata[h_rows])->shape[1], ==, 4096);
  assert_time (p->time_s, reshard, 1e-12);
  g_assert_true (plx_ir_simulate (g, c, &run, &error));
  g_assert_no_error (error);
  assert_time (run.op_end_s[0], layer, 1e-12);
  assert_time (run.op_start_s[1], layer, 1e-12);
  assert_time (run.op_end_s[1] - run.op_start_s[1], reshard, 1e-12);
  assert_time (run.makespan_s, want, 1e-12);
  plx_ir_run_clear (&run);
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/core/reshard-ir/docs-example", test_docs_example);
  g_test_add_func ("/core/reshard-ir/all-to-all-by-hand", test_all_to_all_by_hand);
  g_test_add_func ("/core/reshard-ir/permute-by-hand", test_permute_by_hand);
  g_test_add_func ("/core/reshard-ir/slices-are-free", test_slices_are_free);
  g_test_add_func ("/core/reshard-ir/bench-pairs", test_bench_pairs);
  g_test_add_func ("/core/reshard-ir/mesh-on-other-devices", test_mesh_on_other_devices);
  g_test_add_func ("/core/reshard-ir/bad-input", test_bad_input);
  g_test_add_func ("/core/reshard-ir/random", test_random);
  g_test_add_func ("/core/reshard-ir/inside-a-step", test_inside_a_step);
  return g_test_run ();
}
