/* Running a distributed program (docs/ir.md, "Simulation"): DistIR's simulator
 * (Santhanam et al. 2021 §4): each device runs its ops one at a time in program
 * order; an op starts when its inputs are ready and every device it occupies is
 * free, and takes its cost-model time. */
#include <math.h>
#include <string.h>

#include "hardware/plx-collective.h"
#include "parallax/plx-error.h"
#include "ir/plx-ir.h"
#include "cost/plx-op-cost.h"
#include "ir/plx-ir-timeline.h"
#include "base/plx-minmax.h"

double
plx_ir_op_time (const PlxIrGraph *graph,
                const PlxIrOp    *op,
                const PlxCluster *cluster)
{
  const PlxIrTensor *out = graph->tensors->pdata[op->outputs[0]];
  const PlxIrTensor *in = op->n_inputs > 0 ? graph->tensors->pdata[op->inputs[0]] : out;
  PlxGroup group;

  if (!isnan (op->time_s))
    return op->time_s;
  switch (op->kind)
    {
    case PLX_IR_KERNEL:
      /* Its own FLOPs and bytes through the GEMM roofline: a fused kernel; with no
       * FLOPs, its bytes through HBM. */
      if (op->flops <= 0.0)
        return plx_memory_time (cluster, plx_ir_op_bytes (graph, op));
      return plx_gemm_time (cluster, plx_gemm_dtype (cluster, out->dtype, FALSE), op->flops, plx_ir_op_bytes (graph, op));
    case PLX_IR_MATMUL:
    case PLX_IR_CONV:        /* cuDNN's implicit GEMM (Chetlur et al. 2014 §3) */
    case PLX_IR_CONV_GRAD:
      /* Roofline of the measured GEMM efficiency and HBM (plx_gemm_time). */
      return plx_gemm_time (cluster, plx_gemm_dtype (cluster, in->dtype, FALSE), plx_ir_op_flops (graph, op),
                            plx_ir_op_bytes (graph, op));
    case PLX_IR_RESHAPE:
    case PLX_IR_SLICE:
      return 0.0;   /* a view: no kernel */
    case PLX_IR_BATCH_NORM:
    case PLX_IR_BATCH_NORM_GRAD:
      /* Two sweeps over the activations: the channel statistics (forward: mean and
       * variance of x; backward: the sums of dY and dY x-hat), then the elementwise
       * pass that reads them again (Jung et al. 2019, "Restructuring Batch
       * Normalization to Accelerate CNN Training", SysML 2019: the forward pass
       * reads x twice, the backward x and dY twice). So x, and dY in the backward, once more. */
      return plx_memory_time (cluster, plx_ir_op_bytes (graph, op) + plx_ir_tensor_bytes (in) +
                                         (op->kind == PLX_IR_BATCH_NORM_GRAD
                                            ? plx_ir_tensor_bytes (graph->tensors->pdata[op->inputs[1]]) : 0.0));
    case PLX_IR_ALL_REDUCE:
    case PLX_IR_REDUCE_SCATTER:
    case PLX_IR_ALL_GATHER:
    case PLX_IR_ALL_TO_ALL:
    case PLX_IR_BROADCAST:
      {
        /* Bytes as plx_collective_time takes them: each rank's whole buffer for
         * all-reduce and reduce-scatter, the gathered result for all-gather (a
         * broadcast moves as much), each rank's send buffer for all-to-all. */
        PlxCollectiveKind kind = op->kind == PLX_IR_ALL_REDUCE      ? PLX_COLLECTIVE_ALL_REDUCE
                             : op->kind == PLX_IR_REDUCE_SCATTER ? PLX_COLLECTIVE_REDUCE_SCATTER
                             : op->kind == PLX_IR_ALL_TO_ALL     ? PLX_COLLECTIVE_ALL_TO_ALL
                                                                 : PLX_COLLECTIVE_ALL_GATHER;
        double bytes = plx_ir_tensor_bytes (kind == PLX_COLLECTIVE_ALL_GATHER ? out : in);
        guint size = op->n_devices / op->groups;
        double slowest = 0.0;

        if (size < 2)
          return 0.0;
        /* The groups run at once, each on its own devices: the slowest sets the time. */
        for (guint k = 0; k < op->groups; k++)
          {
            group = plx_group_of_ranks (cluster, op->devices + k * size, size);
            slowest = plx_max (slowest, plx_collective_time (cluster, kind, &group, bytes));
          }
        return slowest;
      }
    case PLX_IR_SEND:
      {
        /* The pairs send at once; the slowest pair's link sets the time. */
        double slowest = 0.0;
        for (guint d = 0; d < op->n_devices; d++)
          {
            guint pair[2] = { op->devices[d], op->peers[d] };
            group = plx_group_of_ranks (cluster, pair, 2);
            slowest = plx_max (slowest, plx_collective_time (cluster, PLX_COLLECTIVE_SEND_RECV, &group,
                                                             plx_ir_tensor_bytes (in)));
          }
        return slowest;
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
    case PLX_IR_MAX_POOL:
    case PLX_IR_MAX_POOL_GRAD:
    case PLX_N_IR_KINDS:
    default:
      /* Memory-bound: each input and output through HBM once. */
      return plx_memory_time (cluster, plx_ir_op_bytes (graph, op));
    }
}

/* Where an op's i-th input or output lives: a collective with one tensor per device
 * of its group has the i-th on the i-th device; otherwise each tensor is on every
 * device the op runs on (SPMD), and a send's output on its peers. */
static void
places (const PlxIrOp *op, gboolean output, guint i, guint n_tensors, const guint **devices, guint *n)
{
  if (plx_ir_kind_is_collective (op->kind) && op->kind != PLX_IR_SEND && n_tensors == op->n_devices &&
      n_tensors > 1)
    {
      *devices = op->devices + i;
      *n = 1;
      return;
    }
  *devices = output && op->kind == PLX_IR_SEND ? op->peers : op->devices;
  *n = op->n_devices;
}

/* One tensor made or freed at once on each of its devices (an SPMD op's output is on
 * all of them): one event, not one a device, so a 64-GPU program sorts no more. */
typedef struct
{
  double       time_s;
  double       bytes;  /* + allocated, - freed */
  const guint *devices;
  guint        n_devices;
} MemoryEvent;

static int
compare_events (const void *pa, const void *pb)
{
  const MemoryEvent *a = pa, *b = pb;

  if (a->time_s != b->time_s)
    return a->time_s < b->time_s ? -1 : 1;
  /* At one instant, what an op ends frees before what the next allocates. */
  return (a->bytes > b->bytes) - (a->bytes < b->bytes);
}

/* A graph input read on a device. */
typedef struct
{
  guint input;   /* tensor index */
  guint device;
} InputUse;

static int
compare_uses (const void *pa, const void *pb)
{
  const InputUse *a = pa, *b = pb;

  if (a->input != b->input)
    return a->input < b->input ? -1 : 1;
  return (a->device > b->device) - (a->device < b->device);
}

/* Each device's peak: graph inputs held throughout; an op's outputs from its start
 * until the last op reading them ends (outputs nothing reads, to the end). */
static void
memory_peaks (const PlxIrGraph *graph, PlxIrRun *run, PlxMemoryTrace *trace, double *static_bytes)
{
  g_autoptr (GArray) events = g_array_new (FALSE, FALSE, sizeof (MemoryEvent));
  g_autoptr (GArray) uses = g_array_new (FALSE, FALSE, sizeof (InputUse));
  g_autofree double *last_read = g_new (double, MAX (graph->tensors->len, 1));
  g_autofree double *live = g_new0 (double, MAX (graph->n_devices, 1));
  guint n_dev = graph->n_devices;

  /* Graph inputs are held by every device that reads them: the (input, device)
   * pairs read, sorted and counted once each - not an inputs x devices map, which
   * for a pipeline of p stages (4 inputs a stage) is 4 p^2 bytes to clear and scan. */
  for (guint t = 0; t < graph->tensors->len; t++)
    last_read[t] = -1.0;
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PlxIrOp *op = graph->ops->pdata[i];
      for (guint j = 0; j < op->n_inputs; j++)
        {
          const PlxIrTensor *t = graph->tensors->pdata[op->inputs[j]];
          const guint *devs;
          guint n;

          last_read[op->inputs[j]] = MAX (last_read[op->inputs[j]], run->op_end_s[i]);
          if (t->producer != -1)
            continue;
          places (op, FALSE, j, op->n_inputs, &devs, &n);
          for (guint d = 0; d < n; d++)
            {
              InputUse use = { op->inputs[j], devs[d] };
              g_array_append_val (uses, use);
            }
        }
    }
  /* By input, then device: each device adds its inputs in tensor order, as before. */
  g_array_sort (uses, compare_uses);
  for (guint u = 0; u < uses->len; u++)
    {
      const InputUse *use = &g_array_index (uses, InputUse, u);
      const PlxIrTensor *tensor = graph->tensors->pdata[use->input];
      guint d = use->device;

      if (u > 0 && compare_uses (use, use - 1) == 0)
        continue;
      live[d] += plx_ir_tensor_bytes (tensor);
      if (static_bytes != NULL)
        static_bytes[(gsize) d * PLX_N_MEM + (tensor->role == PLX_IR_ROLE_WEIGHT  ? PLX_MEM_WEIGHTS
                                               : tensor->role == PLX_IR_ROLE_STATE ? PLX_MEM_OPTIMIZER
                                                                                   : PLX_MEM_OTHER)] +=
          plx_ir_tensor_bytes (tensor);
    }
  for (guint d = 0; d < n_dev; d++)
    run->device_peak_bytes[d] = run->device_input_bytes[d] = live[d];

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PlxIrOp *op = graph->ops->pdata[i];
      for (guint j = 0; j < op->n_outputs; j++)
        {
          double bytes = plx_ir_tensor_bytes (graph->tensors->pdata[op->outputs[j]]);
          double end = last_read[op->outputs[j]];
          const guint *devs;
          guint n;

          places (op, TRUE, j, op->n_outputs, &devs, &n);
          {
            MemoryEvent alloc = { run->op_start_s[i], bytes, devs, n };
            MemoryEvent release = { MAX (end, run->op_end_s[i]), -bytes, devs, n };
            g_array_append_val (events, alloc);
            if (end >= 0.0)
              g_array_append_val (events, release);
          }
        }
    }
  g_array_sort (events, compare_events);
  for (guint e = 0; e < events->len; e++)
    {
      const MemoryEvent *ev = &g_array_index (events, MemoryEvent, e);
      for (guint d = 0; d < ev->n_devices; d++)
        {
          guint dev = ev->devices[d];
          live[dev] += ev->bytes;
          run->device_peak_bytes[dev] = MAX (run->device_peak_bytes[dev], live[dev]);
          if (trace != NULL)
            {
              /* What the device made, over its inputs: the activations' line. */
              PlxMemorySample sample = { ev->time_s, live[dev] - run->device_input_bytes[dev] };
              plx_memory_trace_append (trace, dev, &sample);
            }
        }
    }
}

typedef struct
{
  double start_s, end_s;
} Interval;

/* Contention (plx_costing_contention, arXiv 2507.03114): a collective that runs
 * beside compute slows it by `slowdown` times the time they ran together. Each
 * device keeps, per stream, the collectives nobody has waited on yet; the first op
 * that reads one's output on that device pays for all of them: the part of each
 * that ran before the device's compute stream went idle, times the slowdown. So a
 * step's gradient reduction behind the backward pass delays the update that waits
 * for it, as the event engine has it (plx-sim.c). */
static double
settle (GArray **unpaid, guint slot, double compute_free, double slowdown)
{
  double overlap = 0.0;

  if (unpaid[slot] == NULL)
    return 0.0;
  for (guint i = 0; i < unpaid[slot]->len; i++)
    {
      const Interval *iv = &g_array_index (unpaid[slot], Interval, i);
      overlap += MAX (0.0, MIN (iv->end_s, compute_free) - iv->start_s);
    }
  g_array_set_size (unpaid[slot], 0);
  return slowdown * overlap;
}

static gboolean
simulate (const PlxIrGraph *graph,
          const PlxCluster *cluster,
          gboolean          memory,
          PlxIrRun         *run,
          GError          **error)
{
  guint n_gpus = cluster->num_nodes * cluster->gpus_per_node;
  guint n_dev = graph->n_devices, n_streams = graph->streams != NULL ? graph->streams->len : 2;
  double slowdown = isnan (graph->overlap_slowdown) ? cluster->overlap_slowdown : graph->overlap_slowdown;
  g_autofree double *ready = NULL;
  g_autofree double *free_at = NULL;   /* [stream * n_dev + device] */
  g_autofree double *debt = NULL;
  GArray **unpaid = NULL;              /* [stream * n_dev + device], contention only */

  memset (run, 0, sizeof *run);
  if (graph->ops->len > PLX_IR_MAX_OPS)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                   "program: %u ops is more than the IR engine's %d million ops", graph->ops->len,
                   PLX_IR_MAX_OPS / 1000000);
      return FALSE;
    }
  if (n_dev > n_gpus)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "program: %u devices, but the cluster \"%s\" has %u GPUs", n_dev, cluster->name, n_gpus);
      return FALSE;
    }
  run->n_devices = n_dev;
  run->device_free_s = g_new0 (double, n_dev);
  run->device_compute_s = g_new0 (double, n_dev);
  run->device_comm_s = g_new0 (double, n_dev);
  run->device_peak_bytes = g_new0 (double, n_dev);
  run->device_input_bytes = g_new0 (double, n_dev);
  run->n_ops = graph->ops->len;
  run->op_start_s = g_new0 (double, MAX (graph->ops->len, 1));
  run->op_end_s = g_new0 (double, MAX (graph->ops->len, 1));
  ready = g_new0 (double, MAX (graph->tensors->len, 1));
  free_at = g_new0 (double, (gsize) n_streams * n_dev);
  if (slowdown > 0.0)
    {
      unpaid = g_new0 (GArray *, (gsize) n_streams * n_dev);
      debt = g_new0 (double, n_dev);
    }

  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PlxIrOp *op = graph->ops->pdata[i];
      gboolean comm = plx_ir_kind_is_collective (op->kind);
      gboolean per_device = comm && op->kind != PLX_IR_SEND && op->n_inputs == op->n_devices && op->n_inputs > 1;
      /* Each stream of a device runs its ops in program order; communication has
       * its own, as NCCL's kernels run on their own CUDA stream. */
      guint stream = (guint) plx_ir_op_stream (op);
      guint peer_stream = op->peer_stream >= 0 ? (guint) op->peer_stream : stream;
      /* Busy time by what the op does, whichever stream it runs on. */
      double *busy = comm ? run->device_comm_s : run->device_compute_s;
      double *peer_busy = busy;
      double start = 0.0, time = plx_ir_op_time (graph, op, cluster), end, common = 0.0;

      /* Inputs on every device (one per device for a collective that takes them so). */
      for (guint j = 0; !per_device && j < op->n_inputs; j++)
        common = MAX (common, ready[op->inputs[j]]);
      for (guint d = 0; d < op->n_devices; d++)
        {
          guint dev = op->devices[d];
          double at = MAX (common, free_at[(gsize) stream * n_dev + dev]);

          if (per_device)
            at = MAX (at, ready[op->inputs[d]]);
          if (unpaid != NULL)
            {
              debt[dev] = 0.0;
              for (guint j = 0; j < op->n_inputs; j++)
                {
                  const PlxIrTensor *t = graph->tensors->pdata[op->inputs[j]];
                  const PlxIrOp *w = t->producer >= 0 ? graph->ops->pdata[t->producer] : NULL;
                  if (w != NULL && plx_ir_kind_is_collective (w->kind))
                    debt[dev] += settle (unpaid, (guint) plx_ir_op_stream (w) * n_dev + dev,
                                         free_at[(gsize) PLX_IR_STREAM_COMPUTE * n_dev + dev], slowdown);
                }
              at += debt[dev];
            }
          start = MAX (start, at);
        }
      for (guint d = 0; op->kind == PLX_IR_SEND && d < op->n_devices; d++)
        start = MAX (start, free_at[(gsize) peer_stream * n_dev + op->peers[d]]);
      end = start + time;
      run->op_start_s[i] = start;
      run->op_end_s[i] = end;
      for (guint d = 0; d < op->n_devices; d++)
        {
          guint dev = op->devices[d];
          free_at[(gsize) stream * n_dev + dev] = end;
          busy[dev] += time;
          /* A send's output is read on its peer: the sender never waits on it. */
          if (unpaid != NULL && comm && op->kind != PLX_IR_SEND && stream != PLX_IR_STREAM_COMPUTE && time > 0.0)
            {
              gsize slot = (gsize) stream * n_dev + dev;
              Interval iv = { start, end };
              if (unpaid[slot] == NULL)
                unpaid[slot] = g_array_new (FALSE, FALSE, sizeof (Interval));
              g_array_append_val (unpaid[slot], iv);
            }
        }
      for (guint d = 0; op->kind == PLX_IR_SEND && d < op->n_devices; d++)
        {
          free_at[(gsize) peer_stream * n_dev + op->peers[d]] = end;
          peer_busy[op->peers[d]] += time;
        }
      for (guint j = 0; j < op->n_outputs; j++)
        ready[op->outputs[j]] = end;
      run->makespan_s = MAX (run->makespan_s, end);
      if (plx_ir_kind_is_compute (op->kind))
        run->flops += plx_ir_op_flops (graph, op) * op->n_devices;
    }
  for (guint d = 0; d < n_dev; d++)
    for (guint st = 0; st < n_streams; st++)
      run->device_free_s[d] = MAX (run->device_free_s[d], free_at[(gsize) st * n_dev + d]);
  if (unpaid != NULL)
    {
      for (gsize k = 0; k < (gsize) n_streams * n_dev; k++)
        if (unpaid[k] != NULL)
          g_array_unref (unpaid[k]);
      g_free (unpaid);
    }
  if (!memory)
    return TRUE;
  memory_peaks (graph, run, NULL, NULL);
  for (guint d = 0; d < n_dev; d++)
    run->peak_bytes = MAX (run->peak_bytes, run->device_peak_bytes[d]);
  return TRUE;
}

gboolean
plx_ir_simulate (const PlxIrGraph *graph,
                 const PlxCluster *cluster,
                 PlxIrRun         *run,
                 GError          **error)
{
  return simulate (graph, cluster, TRUE, run, error);
}

gboolean
plx_ir_simulate_timing (const PlxIrGraph *graph,
                        const PlxCluster *cluster,
                        PlxIrRun         *run,
                        GError          **error)
{
  return simulate (graph, cluster, FALSE, run, error);
}

void
plx_ir_run_clear (PlxIrRun *run)
{
  g_clear_pointer (&run->device_free_s, g_free);
  g_clear_pointer (&run->device_compute_s, g_free);
  g_clear_pointer (&run->device_comm_s, g_free);
  g_clear_pointer (&run->device_peak_bytes, g_free);
  g_clear_pointer (&run->device_input_bytes, g_free);
  g_clear_pointer (&run->op_start_s, g_free);
  g_clear_pointer (&run->op_end_s, g_free);
}

/* What the charts draw of a run (plx-ir-timeline.h). */
/* Per op: a collective whose output an optimizer update reads (directly, or through
 * the kernel that unpacks a fused bucket, plx_fuse_apply), or that runs on a "dp"
 * stream, is data-parallel gradient communication (the rest of the collectives are
 * tensor-parallel). */
static gboolean *
gradient_collectives (const PlxIrGraph *graph)
{
  gboolean *dp = g_new0 (gboolean, MAX (graph->ops->len, 1));
  gint dp_stream = -1;

  for (guint i = 0; graph->streams != NULL && i < graph->streams->len; i++)
    if (g_str_equal (graph->streams->pdata[i], "dp"))
      dp_stream = (gint) i;
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PlxIrOp *op = graph->ops->pdata[i];
      if (plx_ir_kind_is_collective (op->kind) && dp_stream >= 0 && op->stream == dp_stream)
        dp[i] = TRUE;
      if (op->kind != PLX_IR_OPTIMIZER)
        continue;
      for (guint j = 0; j < op->n_inputs; j++)
        {
          gint w = ((const PlxIrTensor *) graph->tensors->pdata[op->inputs[j]])->producer;
          const PlxIrOp *writer = w >= 0 ? graph->ops->pdata[w] : NULL;
          gboolean unpacks = writer != NULL && writer->kind == PLX_IR_KERNEL && writer->n_inputs > 0;
          if (writer != NULL && plx_ir_kind_is_collective (writer->kind))
            dp[w] = TRUE;
          /* an unpacking kernel reads nothing but reduced buckets */
          for (guint k = 0; unpacks && k < writer->n_inputs; k++)
            {
              gint r = ((const PlxIrTensor *) graph->tensors->pdata[writer->inputs[k]])->producer;
              unpacks = r >= 0 && plx_ir_kind_is_collective (((const PlxIrOp *) graph->ops->pdata[r])->kind);
            }
          for (guint k = 0; unpacks && k < writer->n_inputs; k++)
            dp[((const PlxIrTensor *) graph->tensors->pdata[writer->inputs[k]])->producer] = TRUE;
        }
    }
  return dp;
}

static PlxTaskKind
task_kind (const PlxIrOp *op, gboolean gradient_collective)
{
  if (op->kind == PLX_IR_SEND)
    return PLX_KIND_PP_SEND;
  if (plx_ir_kind_is_collective (op->kind))
    return gradient_collective ? PLX_KIND_DP_COMM : PLX_KIND_TP_COMM;
  if (op->kind == PLX_IR_OPTIMIZER || op->phase == PLX_IR_PHASE_OPTIMIZER)
    return PLX_KIND_OPTIMIZER;
  if (op->phase == PLX_IR_PHASE_BACKWARD || (op->kind >= PLX_IR_RELU_GRAD && op->kind < PLX_IR_KERNEL))
    return PLX_KIND_BACKWARD;
  return PLX_KIND_FORWARD;
}

static PlxStream
task_stream (PlxTaskKind kind)
{
  switch (kind)
    {
    case PLX_KIND_TP_COMM:
      return PLX_STREAM_TP;
    case PLX_KIND_PP_SEND:
      return PLX_STREAM_PP;
    case PLX_KIND_DP_COMM:
      return PLX_STREAM_DP;
    case PLX_KIND_FORWARD:
    case PLX_KIND_BACKWARD:
    case PLX_KIND_WEIGHT_GRAD:
    case PLX_KIND_RECOMPUTE:
    case PLX_KIND_OPTIMIZER:
    case PLX_N_KINDS:
    default:
      return PLX_STREAM_COMPUTE;
    }
}

void
plx_ir_run_charts (const PlxIrGraph *graph,
                   const PlxIrRun   *run,
                   const guint8     *op_kinds,
                   PlxTimeline     **timeline_out,
                   PlxMemoryTrace  **trace_out)
{
  g_autofree gboolean *dp = gradient_collectives (graph);
  guint n_dev = graph->n_devices;

  if (timeline_out != NULL)
    {
      PlxTimeline *tl = plx_timeline_new (n_dev, run->makespan_s);
      tl->per_device = TRUE;
      tl->labels = g_string_chunk_new (1 << 16);
      for (guint i = 0; i < graph->ops->len; i++)
        {
          const PlxIrOp *op = graph->ops->pdata[i];
          PlxTimelineEvent ev = { 0 };
          guint8 kind = op_kinds != NULL && op_kinds[i] != G_MAXUINT8 ? op_kinds[i]
                                                                       : (guint8) task_kind (op, dp[i]);

          /* Markers of no time draw nothing. */
          if (op_kinds != NULL && op_kinds[i] == G_MAXUINT8 && run->op_end_s[i] <= run->op_start_s[i])
            continue;
          ev.kind = kind;
          ev.stream = (guint8) (op->kind == PLX_IR_SEND ? PLX_STREAM_PP : task_stream ((PlxTaskKind) kind));
          ev.micro_batch = PLX_NO_MICRO_BATCH;
          /* Copied into the timeline: it outlives the program that named its events. */
          ev.label = g_string_chunk_insert_const (tl->labels, op->name);
          ev.start_s = run->op_start_s[i];
          ev.end_s = run->op_end_s[i];
          ev.flops = plx_ir_kind_is_compute (op->kind) ? plx_ir_op_flops (graph, op) : 0.0;
          ev.bytes = plx_ir_op_bytes (graph, op);
          for (guint d = 0; d < op->n_devices; d++)
            {
              ev.rank = op->devices[d];
              plx_timeline_append (tl, &ev);
            }
        }
      *timeline_out = tl;
    }
  if (trace_out != NULL)
    {
      PlxMemoryTrace *tr = plx_memory_trace_new (n_dev);
      PlxIrRun copy = *run;
      g_autofree double *peaks = g_new0 (double, MAX (n_dev, 1));
      g_autofree double *inputs = g_new0 (double, MAX (n_dev, 1));

      tr->per_device = TRUE;
      /* The sweep again, on copies of the peaks, recording each device's line. */
      copy.device_peak_bytes = peaks;
      copy.device_input_bytes = inputs;
      memory_peaks (graph, &copy, tr, tr->static_bytes);
      for (guint d = 0; d < n_dev; d++)
        {
          PlxMemoryTraceIter it;
          PlxMemorySample smp;

          plx_memory_trace_iter_init (&it, tr, d);
          while (plx_memory_trace_iter_next (&it, &smp))
            if (smp.activation_bytes > tr->peak_activation_bytes[d] * (1.0 + 1e-12))
              {
                tr->peak_activation_bytes[d] = smp.activation_bytes;
                tr->peak_time_s[d] = smp.time_s;
              }
        }
      *trace_out = tr;
    }
}

void
plx_ir_run_report (const PlxIrGraph *graph,
                   const PlxIrRun   *run,
                   const PlxCluster *cluster,
                   PlxReport        *report)
{
  g_autoptr (PlxMemoryTrace) trace = NULL;
  guint fullest = 0, n_dev = graph->n_devices;
  double flops = 0.0, busy = 0.0;
  double *kind_time = g_new0 (double, PLX_N_KINDS);
  g_autofree gboolean *dp = gradient_collectives (graph);

  plx_ir_run_charts (graph, run, NULL, NULL, &trace);
  for (guint d = 1; d < n_dev; d++)
    if (run->device_peak_bytes[d] > run->device_peak_bytes[fullest] * (1.0 + 1e-12))
      fullest = d;
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PlxIrOp *op = graph->ops->pdata[i];
      if (op->kind == PLX_IR_MATMUL || op->kind == PLX_IR_KERNEL || op->kind == PLX_IR_CONV ||
          op->kind == PLX_IR_CONV_GRAD)
        flops += plx_ir_op_flops (graph, op) * op->n_devices;
      for (guint d = 0; d < op->n_devices; d++)
        if (op->devices[d] == fullest || (op->kind == PLX_IR_SEND && op->peers[d] == fullest))
          kind_time[task_kind (op, dp[i])] += run->op_end_s[i] - run->op_start_s[i];
    }
  *report = (PlxReport) { 0 };
  report->engine = "ir";
  report->step_time_s = run->makespan_s;
  report->n_gpus = n_dev;
  report->model_flops_per_step = report->hardware_flops_per_step = flops;
  if (run->makespan_s > 0.0 && cluster->peak_flops[PLX_DTYPE_BF16] > 0.0)
    report->mfu = report->hfu = flops / (n_dev * cluster->peak_flops[PLX_DTYPE_BF16] * run->makespan_s);
  report->reported_stage = fullest;
  report->hbm_bytes = cluster->hbm_bytes;
  report->hbm_usable_bytes = cluster->hbm_bytes - cluster->reserved_bytes;
  for (guint c = 0; c < PLX_N_MEM; c++)
    report->memory_bytes[c] = (guint64) ceil (trace->static_bytes[(gsize) fullest * PLX_N_MEM + c]);
  report->memory_bytes[PLX_MEM_ACTIVATIONS] =
    (guint64) ceil (MAX (0.0, run->device_peak_bytes[fullest] - run->device_input_bytes[fullest]));
  for (guint c = 0; c < PLX_N_MEM; c++)
    report->peak_memory_bytes += report->memory_bytes[c];
  report->fits_in_memory = report->peak_memory_bytes <= report->hbm_usable_bytes;
  report->time_s[PLX_TIME_COMPUTE] = kind_time[PLX_KIND_FORWARD] + kind_time[PLX_KIND_BACKWARD];
  report->time_s[PLX_TIME_TP_COMM] = kind_time[PLX_KIND_TP_COMM];
  report->time_s[PLX_TIME_PP_COMM] = kind_time[PLX_KIND_PP_SEND];
  report->time_s[PLX_TIME_DP_COMM] = kind_time[PLX_KIND_DP_COMM];
  report->time_s[PLX_TIME_OPTIMIZER] = kind_time[PLX_KIND_OPTIMIZER];
  for (guint i = 0; i < PLX_N_TIME; i++)
    busy += report->time_s[i];
  report->time_s[PLX_TIME_BUBBLE] = MAX (0.0, run->makespan_s - busy);
  report->bubble_fraction = run->makespan_s > 0.0 ? report->time_s[PLX_TIME_BUBBLE] / run->makespan_s : 0.0;
  g_free (kind_time);
}
