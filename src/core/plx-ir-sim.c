/* Running a distributed program (docs/ir.md, "Simulation"): DistIR's simulator
 * (Santhanam et al. 2021 §4): each device runs its ops one at a time in program
 * order; an op starts when its inputs are ready and every device it occupies is
 * free, and takes its cost-model time. */
#include <string.h>

#include "parallax/plx-collective.h"
#include "parallax/plx-error.h"
#include "parallax/plx-ir.h"
#include "parallax/plx-op-cost.h"

/* Where an op's devices sit: the group the collective model prices. */
static PlxGroup
group_of (const PlxCluster *cluster, const guint *devices, guint n)
{
  g_autoptr (GHashTable) per_node = g_hash_table_new (g_direct_hash, g_direct_equal);
  PlxGroup g = { n, 0, 0 };

  for (guint i = 0; i < n; i++)
    {
      guint node = devices[i] / cluster->gpus_per_node;
      guint count = GPOINTER_TO_UINT (g_hash_table_lookup (per_node, GUINT_TO_POINTER (node))) + 1;
      g_hash_table_insert (per_node, GUINT_TO_POINTER (node), GUINT_TO_POINTER (count));
      g.ranks_per_node = MAX (g.ranks_per_node, count);
    }
  g.nodes = g_hash_table_size (per_node);
  return g;
}

double
plx_ir_op_time (const PlxIrGraph *graph,
                const PlxIrOp    *op,
                const PlxCluster *cluster)
{
  const PlxIrTensor *in = graph->tensors->pdata[op->inputs[0]];
  const PlxIrTensor *out = graph->tensors->pdata[op->outputs[0]];
  PlxGroup group;

  switch (op->kind)
    {
    case PLX_IR_MATMUL:
      /* Roofline of the measured GEMM efficiency and HBM (plx_gemm_time). */
      return plx_gemm_time (cluster, plx_gemm_dtype (cluster, in->dtype, FALSE), plx_ir_op_flops (graph, op),
                            plx_ir_op_bytes (graph, op));
    case PLX_IR_RESHAPE:
      return 0.0;   /* a view: no kernel */
    case PLX_IR_ALL_REDUCE:
    case PLX_IR_REDUCE_SCATTER:
    case PLX_IR_ALL_GATHER:
    case PLX_IR_ALL_TO_ALL:
    case PLX_IR_BROADCAST:
      if (op->n_devices < 2)
        return 0.0;
      group = group_of (cluster, op->devices, op->n_devices);
      /* Bytes as plx_collective_time takes them: each rank's whole buffer for
       * all-reduce and reduce-scatter, the gathered result for all-gather (a
       * broadcast moves as much), each rank's send buffer for all-to-all. */
      if (op->kind == PLX_IR_ALL_REDUCE)
        return plx_collective_time (cluster, PLX_COLLECTIVE_ALL_REDUCE, &group, plx_ir_tensor_bytes (in));
      if (op->kind == PLX_IR_REDUCE_SCATTER)
        return plx_collective_time (cluster, PLX_COLLECTIVE_REDUCE_SCATTER, &group, plx_ir_tensor_bytes (in));
      if (op->kind == PLX_IR_ALL_TO_ALL)
        return plx_collective_time (cluster, PLX_COLLECTIVE_ALL_TO_ALL, &group, plx_ir_tensor_bytes (in));
      return plx_collective_time (cluster, PLX_COLLECTIVE_ALL_GATHER, &group, plx_ir_tensor_bytes (out));
    case PLX_IR_SEND:
      {
        guint pair[2] = { op->devices[0], op->peer };
        group = group_of (cluster, pair, 2);
        return plx_collective_time (cluster, PLX_COLLECTIVE_SEND_RECV, &group, plx_ir_tensor_bytes (in));
      }
    case PLX_IR_ADD:
    case PLX_IR_MUL:
    case PLX_IR_RELU:
    case PLX_IR_GELU:
    case PLX_IR_TANH:
    case PLX_IR_SOFTMAX:
    case PLX_IR_LAYER_NORM:
    case PLX_IR_RMS_NORM:
    case PLX_IR_REDUCE_MEAN:
    case PLX_IR_GATHER:
    case PLX_IR_TRANSPOSE:
    case PLX_IR_CONCAT:
    case PLX_IR_SPLIT:
    case PLX_IR_LOSS:
    case PLX_IR_OPTIMIZER:
    case PLX_N_IR_KINDS:
    default:
      /* Memory-bound: each input and output through HBM once. */
      return plx_memory_time (cluster, plx_ir_op_bytes (graph, op));
    }
}

gboolean
plx_ir_simulate (const PlxIrGraph *graph,
                 const PlxCluster *cluster,
                 PlxIrRun         *run,
                 GError          **error)
{
  guint n_gpus = cluster->num_nodes * cluster->gpus_per_node;
  g_autofree double *ready = NULL;

  memset (run, 0, sizeof *run);
  if (graph->n_devices > n_gpus)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "program: %u devices, but the cluster \"%s\" has %u GPUs", graph->n_devices, cluster->name, n_gpus);
      return FALSE;
    }
  run->n_devices = graph->n_devices;
  run->device_free_s = g_new0 (double, graph->n_devices);
  run->device_busy_s = g_new0 (double, graph->n_devices);
  run->n_ops = graph->ops->len;
  run->op_start_s = g_new0 (double, MAX (graph->ops->len, 1));
  run->op_end_s = g_new0 (double, MAX (graph->ops->len, 1));
  ready = g_new0 (double, MAX (graph->tensors->len, 1));

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PlxIrOp *op = graph->ops->pdata[i];
      double start = 0.0, time = plx_ir_op_time (graph, op, cluster);

      for (guint j = 0; j < op->n_inputs; j++)
        start = MAX (start, ready[op->inputs[j]]);
      for (guint d = 0; d < op->n_devices; d++)
        start = MAX (start, run->device_free_s[op->devices[d]]);
      if (op->kind == PLX_IR_SEND)
        start = MAX (start, run->device_free_s[op->peer]);
      run->op_start_s[i] = start;
      run->op_end_s[i] = start + time;
      for (guint d = 0; d < op->n_devices; d++)
        {
          run->device_free_s[op->devices[d]] = start + time;
          run->device_busy_s[op->devices[d]] += time;
        }
      if (op->kind == PLX_IR_SEND)
        {
          run->device_free_s[op->peer] = start + time;
          run->device_busy_s[op->peer] += time;
        }
      for (guint j = 0; j < op->n_outputs; j++)
        ready[op->outputs[j]] = start + time;
      run->makespan_s = MAX (run->makespan_s, start + time);
    }
  return TRUE;
}

void
plx_ir_run_clear (PlxIrRun *run)
{
  g_clear_pointer (&run->device_free_s, g_free);
  g_clear_pointer (&run->device_busy_s, g_free);
  g_clear_pointer (&run->op_start_s, g_free);
  g_clear_pointer (&run->op_end_s, g_free);
}
