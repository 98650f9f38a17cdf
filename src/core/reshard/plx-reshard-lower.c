/* A redistribution plan lowered into the distributed-program IR (docs/reshard.md,
 * "In the IR"): each step becomes the IR op that moves the same bytes between the
 * same devices as the SPMD executor (plx-reshard-exec.c) does, so the IR simulator
 * prices it on the groups the planner priced (plx_collective_time). The mesh
 * arithmetic (an axis's stride, a device's coordinate) is the executor's, written
 * again here because plx-reshard.h does not export it. */
#include <string.h>

#include "parallax/plx-error.h"
#include "reshard/plx-reshard-ir.h"

/* What a program file may hold (docs/ir.md, "File format"): the lowering refuses a
 * shard the program could not be written with. */
#define IR_MAX_EXTENT (G_GINT64_CONSTANT (1) << 40)
#define IR_MAX_ELEMENTS 1e15

static const char axis_names[PLX_MESH_MAX_AXES] = { 'x', 'y', 'z' };

typedef struct
{
  const PlxReshardPlan *plan;
  PlxIrGraph           *graph;
  const guint          *mesh_devices;
  guint                 n_mesh;
  const char           *prefix;
  PlxDtype              dtype;
  GHashTable           *names; /* every tensor and op name, for plx_ir_unique_name */
  guint                 step;  /* 1-based, for names */
} Lower;

static guint
graph_device (const Lower *l, guint mesh_dev)
{
  return l->mesh_devices != NULL ? l->mesh_devices[mesh_dev] : mesh_dev;
}

/* Each device's shard under `s`, padding included (plx_reshard_shard_bytes's). */
static void
shard_shape (const PlxReshardPlan *plan, const PlxSharding *s, gint64 *shape)
{
  for (guint d = 0; d < plan->shape.rank; d++)
    shape[d] = (gint64) (plan->padded[d] / plx_sharding_dim_shards (s, &plan->mesh, d));
}

static gboolean
check_shape_fits (const PlxReshardPlan *plan, const PlxSharding *s, GError **error)
{
  gint64 shape[PLX_RESHARD_MAX_RANK], largest = 0;
  double elements = 1.0;

  shard_shape (plan, s, shape);
  for (guint d = 0; d < plan->shape.rank; d++)
    {
      elements *= (double) shape[d];
      largest = MAX (largest, shape[d]);
    }
  if (largest > IR_MAX_EXTENT || elements > IR_MAX_ELEMENTS)
    {
      g_autofree char *layout = plx_sharding_format (s);

      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "reshard lowering: the %s shard has %.0f elements, its longest dimension %" G_GINT64_FORMAT
                   "; a program's tensor holds at most 10^15, each dimension at most 2^40",
                   layout, elements, largest);
      return FALSE;
    }
  return TRUE;
}

static guint
add_shard_tensor (Lower *l, const PlxSharding *s)
{
  gint64 shape[PLX_RESHARD_MAX_RANK];
  g_autofree char *layout = plx_sharding_format (s);
  g_autofree char *base = g_strconcat (l->prefix, layout, NULL);

  shard_shape (l->plan, s, shape);
  return plx_ir_graph_add_tensor (l->graph, plx_ir_unique_name (l->names, base), l->plan->shape.rank, shape,
                                  l->dtype, PLX_IR_ROLE_DATA);
}

static PlxIrOp *
add_step_op (Lower *l, const PlxReshardStep *st, PlxIrKind kind, guint in, guint out, const guint *devices,
             guint n_devices)
{
  g_autofree char *base = st->op == PLX_RESHARD_PERMUTE
                            ? g_strdup_printf ("%s:%u:%s", l->prefix, l->step, plx_reshard_op_name (st->op))
                            : g_strdup_printf ("%s:%u:%s.%c", l->prefix, l->step, plx_reshard_op_name (st->op),
                                               axis_names[st->axis]);

  return plx_ir_graph_add_op (l->graph, plx_ir_unique_name (l->names, base), kind, &in, 1, &out, 1, devices,
                              n_devices);
}

/* The groups of mesh axis a, as the executor forms them: a device's group is the
 * devices that differ from it in a's coordinate only, in the order of that
 * coordinate; groups in the order of their first device. */
static void
axis_groups (const Lower *l, guint axis, guint *devices)
{
  const PlxMesh *mesh = &l->plan->mesh;
  guint stride = plx_mesh_stride (mesh, axis), n = 0;

  for (guint dev = 0; dev < l->n_mesh; dev++)
    if (plx_mesh_coord (mesh, dev, axis) == 0)
      for (guint j = 0; j < mesh->size[axis]; j++)
        devices[n++] = graph_device (l, dev + j * stride);
}

/* One collective over all the groups of the step's axis at once. */
static guint
lower_axis_collective (Lower *l, const PlxReshardStep *st, PlxIrKind kind, gint ir_axis, guint in)
{
  g_autofree guint *devices = g_new (guint, l->n_mesh);
  guint out = add_shard_tensor (l, &st->after);
  PlxIrOp *op;

  axis_groups (l, st->axis, devices);
  op = add_step_op (l, st, kind, in, out, devices, l->n_mesh);
  op->groups = l->n_mesh / l->plan->mesh.size[st->axis];
  op->axis = ir_axis;
  return out;
}

static guint
lower_slice (Lower *l, const PlxReshardStep *st, guint in)
{
  g_autofree guint *devices = g_new (guint, l->n_mesh);
  guint out = add_shard_tensor (l, &st->after);
  PlxIrOp *op;

  for (guint dev = 0; dev < l->n_mesh; dev++)
    devices[dev] = graph_device (l, dev);
  op = add_step_op (l, st, PLX_IR_SLICE, in, out, devices, l->n_mesh);
  op->axis = (gint) st->dim;
  return out;
}

static guint
lower_permute (Lower *l, const PlxSharding *before, const PlxReshardStep *st, guint in)
{
  g_autofree guint *from = g_new (guint, l->n_mesh);
  g_autofree guint *to = g_new (guint, l->n_mesh);
  guint n = 0, out;
  PlxIrOp *op;

  for (guint r = 0; r < l->n_mesh; r++)
    {
      guint s = plx_reshard_permute_sender (&l->plan->mesh, before, &st->after, st->dim, r);

      /* A device whose block is its own already keeps it: no copy. */
      if (s == r)
        continue;
      from[n] = graph_device (l, s);
      to[n++] = graph_device (l, r);
    }
  /* Reordering axes that move no block (a size-1 axis) changes only the name. */
  if (n == 0)
    return in;
  out = add_shard_tensor (l, &st->after);
  op = add_step_op (l, st, PLX_IR_SEND, in, out, from, n);
  op->peers = g_memdup2 (to, n * sizeof (guint));
  return out;
}

static gboolean
check_devices (const Lower *l, GError **error)
{
  g_autofree gboolean *used = NULL;

  if (l->mesh_devices == NULL)
    {
      if (l->n_mesh > l->graph->n_devices)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                       "reshard lowering: a mesh of %u devices in a program of %u", l->n_mesh, l->graph->n_devices);
          return FALSE;
        }
      return TRUE;
    }
  used = g_new0 (gboolean, MAX (l->graph->n_devices, 1));
  for (guint m = 0; m < l->n_mesh; m++)
    {
      guint d = l->mesh_devices[m];

      if (d >= l->graph->n_devices || used[d])
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "reshard lowering: mesh device %u is program device %u, %s", m, d,
                       d >= l->graph->n_devices ? "not in the program" : "given to another mesh device too");
          return FALSE;
        }
      used[d] = TRUE;
    }
  return TRUE;
}

static gboolean
check_input (const Lower *l, guint input, GError **error)
{
  const PlxReshardPlan *plan = l->plan;
  const PlxIrTensor *t;
  gint64 want[PLX_RESHARD_MAX_RANK];
  gboolean same;

  if (input >= l->graph->tensors->len)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "reshard lowering: tensor %u is not in the program (%u tensors)", input, l->graph->tensors->len);
      return FALSE;
    }
  t = l->graph->tensors->pdata[input];
  shard_shape (plan, &plan->source, want);
  same = t->rank == plan->shape.rank && plx_dtype_bytes (t->dtype) == plan->shape.elem_bytes;
  for (guint d = 0; same && d < t->rank; d++)
    same = t->shape[d] == want[d];
  if (!same)
    {
      g_autofree char *layout = plx_sharding_format (&plan->source);
      GString *s = g_string_new (NULL);

      for (guint d = 0; d < plan->shape.rank; d++)
        g_string_append_printf (s, "%s%" G_GINT64_FORMAT, d ? ", " : "", want[d]);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "reshard lowering: tensor \"%s\" is not the %s shard: expected [%s] of %u-byte elements", t->name,
                   layout, s->str, plan->shape.elem_bytes);
      g_string_free (s, TRUE);
      return FALSE;
    }
  return TRUE;
}

gboolean
plx_reshard_lower (const PlxReshardPlan *plan,
                   PlxIrGraph           *graph,
                   guint                 input,
                   const guint          *mesh_devices,
                   const char           *prefix,
                   guint                *output,
                   GError              **error)
{
  Lower l = { .plan = plan, .graph = graph, .mesh_devices = mesh_devices, .n_mesh = plx_mesh_n_devices (&plan->mesh),
              .prefix = prefix != NULL ? prefix : "reshard" };
  PlxSharding before = plan->source;
  guint cur = input;

  if (!check_devices (&l, error) || !check_input (&l, input, error))
    return FALSE;
  for (guint i = 0; i < plan->steps->len; i++)
    if (!check_shape_fits (plan, &g_array_index (plan->steps, PlxReshardStep, i).after, error))
      return FALSE;
  l.dtype = ((const PlxIrTensor *) graph->tensors->pdata[input])->dtype;
  l.names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint t = 0; t < graph->tensors->len; t++)
    g_hash_table_insert (l.names, g_strdup (((const PlxIrTensor *) graph->tensors->pdata[t])->name), NULL);
  for (guint o = 0; o < graph->ops->len; o++)
    g_hash_table_insert (l.names, g_strdup (((const PlxIrOp *) graph->ops->pdata[o])->name), NULL);

  for (guint i = 0; i < plan->steps->len; i++)
    {
      const PlxReshardStep *st = &g_array_index (plan->steps, PlxReshardStep, i);

      l.step = i + 1;
      switch (st->op)
        {
        case PLX_RESHARD_ALL_GATHER:
          /* Concatenates the group's shards along dim: the IR's all-gather along it. */
          cur = lower_axis_collective (&l, st, PLX_IR_ALL_GATHER, (gint) st->dim, cur);
          break;
        case PLX_RESHARD_ALL_TO_ALL:
          /* Cuts along to_dim, stacks along dim; `axis` names the cut. */
          cur = lower_axis_collective (&l, st, PLX_IR_ALL_TO_ALL, (gint) st->to_dim, cur);
          break;
        case PLX_RESHARD_SLICE:
          cur = lower_slice (&l, st, cur);
          break;
        case PLX_RESHARD_PERMUTE:
          cur = lower_permute (&l, &before, st, cur);
          break;
        case PLX_RESHARD_REDUCE_SCATTER:
          /* Sums over the partial axis's group, each keeping its block of dim. */
          cur = lower_axis_collective (&l, st, PLX_IR_REDUCE_SCATTER, (gint) st->dim, cur);
          break;
        case PLX_RESHARD_ALL_REDUCE:
          cur = lower_axis_collective (&l, st, PLX_IR_ALL_REDUCE, -1, cur);
          break;
        case PLX_RESHARD_N_OPS:
        default:
          g_hash_table_unref (l.names);
          g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "reshard lowering: step %u is a %s, which has no IR op",
                       i + 1, plx_reshard_op_name (st->op));
          return FALSE;
        }
      before = st->after;
    }
  g_hash_table_unref (l.names);
  *output = cur;
  return TRUE;
}

gboolean
plx_reshard_ir_dtype (guint     elem_bytes,
                      PlxDtype *dtype,
                      GError  **error)
{
  switch (elem_bytes)
    {
    case 1:
      *dtype = PLX_DTYPE_FP8;
      return TRUE;
    case 2:
      *dtype = PLX_DTYPE_BF16;
      return TRUE;
    case 4:
      *dtype = PLX_DTYPE_FP32;
      return TRUE;
    default:
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                   "reshard lowering: %u-byte elements have no IR dtype (1, 2 or 4 bytes: fp8, bf16, fp32)",
                   elem_bytes);
      return FALSE;
    }
}

PlxIrGraph *
plx_reshard_plan_to_graph (const PlxReshardPlan *plan,
                           GError              **error)
{
  g_autoptr (PlxIrGraph) graph = NULL;
  g_autofree char *layout = plx_sharding_format (&plan->source);
  g_autofree char *name = g_strconcat ("array", layout, NULL);
  gint64 shape[PLX_RESHARD_MAX_RANK];
  PlxDtype dtype;
  guint input, output;

  if (!plx_reshard_ir_dtype (plan->shape.elem_bytes, &dtype, error) ||
      !check_shape_fits (plan, &plan->source, error))
    return NULL;
  graph = plx_ir_graph_new (plx_mesh_n_devices (&plan->mesh));
  shard_shape (plan, &plan->source, shape);
  input = plx_ir_graph_add_tensor (graph, name, plan->shape.rank, shape, dtype, PLX_IR_ROLE_DATA);
  if (!plx_reshard_lower (plan, graph, input, NULL, "array", &output, error))
    return NULL;
  return g_steal_pointer (&graph);
}
