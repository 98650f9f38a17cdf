/* plx-ir.h: a distributed program as a graph of ops on devices (docs/ir.md).
 *
 * After DistIR (Santhanam et al. 2021, arXiv 2111.05426 §3): tensors of known shape
 * and dtype; ops that read and write them, each on a set of devices; collectives
 * and sends as ops of their own, so that a strategy is a transform of the graph and
 * a simulator can run it. Ops are kept in a topological order (each op's inputs are
 * graph inputs or outputs of ops before it), which is what a simulator walks.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "parallax/plx-cluster.h"
#include "plx-partition-dag.h"
#include "parallax/plx-types.h"

G_BEGIN_DECLS

#define PLX_IR_MAX_RANK 8

typedef enum
{
  /* compute */
  PLX_IR_MATMUL,        /* [..., m, k] x [k, n] (or [..., k, n]) -> [..., m, n] */
  PLX_IR_ADD,           /* elementwise, the second input broadcast over leading dims */
  PLX_IR_MUL,
  PLX_IR_RELU,
  PLX_IR_GELU,
  PLX_IR_TANH,
  PLX_IR_SOFTMAX,       /* over the last dimension */
  PLX_IR_LAYER_NORM,
  PLX_IR_RMS_NORM,
  PLX_IR_REDUCE_MEAN,
  PLX_IR_GATHER,        /* embedding lookup */
  PLX_IR_RESHAPE,
  PLX_IR_TRANSPOSE,
  PLX_IR_CONCAT,
  PLX_IR_SPLIT,
  PLX_IR_LOSS,          /* softmax cross-entropy */
  PLX_IR_OPTIMIZER,     /* an optimizer update of the weights it reads */
  PLX_IR_REDUCE_SUM,
  PLX_IR_EXPAND,        /* x -> a larger shape holding copies of it (reduce's gradient) */
  PLX_IR_CONV,          /* x [N, C, H, W], w [K, C/groups, R, S] (, bias [K]) -> [N, K, P, Q] */
  PLX_IR_SLICE,         /* this device's part of x along `axis` (a view) */
  PLX_IR_BATCH_NORM,    /* x [N, C, ...] (, scale [C], bias [C]) -> x's shape, statistics per channel */
  PLX_IR_MAX_POOL,      /* x [N, C, H, W] -> [N, C, P, Q], the window implied by the shapes */
  /* gradients, as the backward pass (plx_ir_training_graph) writes them */
  PLX_IR_RELU_GRAD,     /* (dy, x) -> dx */
  PLX_IR_GELU_GRAD,
  PLX_IR_TANH_GRAD,
  PLX_IR_SOFTMAX_GRAD,  /* (dy, y) -> dx */
  PLX_IR_LAYER_NORM_GRAD, /* (dy, x [, weight]) -> dx [, dweight [, dbias]] */
  PLX_IR_RMS_NORM_GRAD,
  PLX_IR_GATHER_GRAD,   /* (dy, indices) -> dtable */
  PLX_IR_LOSS_GRAD,     /* (logits, labels) -> dlogits */
  PLX_IR_CONV_GRAD,     /* (dy, x, w) -> dx, dw (, dbias) */
  PLX_IR_BATCH_NORM_GRAD, /* (dy, x [, scale]) -> dx [, dscale [, dbias]] */
  PLX_IR_MAX_POOL_GRAD, /* (dy, x) -> dx */
  /* a group of ops costed as one: its FLOPs and HBM bytes given (`flops`, `bytes`),
   * as a transformer block's fused kernels are (plx_ir_lower_scenario) */
  PLX_IR_KERNEL,
  /* communication */
  PLX_IR_ALL_REDUCE,
  PLX_IR_ALL_GATHER,
  PLX_IR_REDUCE_SCATTER,
  PLX_IR_ALL_TO_ALL,
  PLX_IR_BROADCAST,
  PLX_IR_SEND,          /* from its device to `peer`; the output is the copy there */
  PLX_N_IR_KINDS
} PlxIrKind;

/* What a graph input is: data split along its first (batch) dimension by data
 * parallelism and micro-batches; a weight, trained; a constant; optimizer state. */
typedef enum
{
  PLX_IR_ROLE_DATA,
  PLX_IR_ROLE_WEIGHT,
  PLX_IR_ROLE_CONSTANT,
  PLX_IR_ROLE_STATE,
} PlxIrRole;

typedef enum
{
  PLX_IR_PHASE_FORWARD,
  PLX_IR_PHASE_BACKWARD,
  PLX_IR_PHASE_OPTIMIZER,
} PlxIrPhase;

typedef struct
{
  char    *name;
  guint    rank;
  gint64   shape[PLX_IR_MAX_RANK];
  PlxDtype dtype;
  gint     producer; /* the op that writes it, or -1 for a graph input */
  PlxIrRole role;    /* graph inputs only */
} PlxIrTensor;

typedef struct
{
  char     *name;
  PlxIrKind kind;
  guint    *inputs;  guint n_inputs;   /* tensor indices */
  guint    *outputs; guint n_outputs;
  guint    *devices; guint n_devices;  /* a collective's group; else where it runs */
  gint      axis;                      /* gather/scatter/concat/split axis; -1 if none */
  guint    *peers;                     /* SEND: where each of `devices` sends (NULL otherwise) */
  gboolean  transpose_a, transpose_b;  /* MATMUL: an operand's last two dimensions swapped */
  guint     n_perm;                    /* TRANSPOSE: output dimension i is input dimension */
  guint8    perm[PLX_IR_MAX_RANK];     /* perm[i]; 0 dimensions given: not known */
  guint     groups;                    /* collective: `devices` is this many groups, one after
                                        * another, each reducing or gathering on its own (1) */
  /* Where the op came from, for the transforms (not written to files): the pass,
   * and the forward op it belongs to (its own index for a forward op). */
  PlxIrPhase phase;
  gint       origin;
  /* Costs a finer model worked out (a transformer scenario's program carries them on
   * every op): the op's time, or NAN for the cost model's (plx_ir_op_time); a
   * kernel's FLOPs and HBM bytes (bytes NAN: its tensors', once each). */
  double     time_s;
  double     flops;
  double     bytes;
  /* The stream it runs on (an index into the graph's streams), or -1: "compute" for
   * compute, "comm" for communication; a send's stream on the receiving end. */
  gint       stream;
  gint       peer_stream;
  gboolean   packed;    /* inputs, outputs and devices share one allocation (inputs') */
} PlxIrOp;

/* The streams every program has; a program names more in its ops. */
#define PLX_IR_STREAM_COMPUTE 0
#define PLX_IR_STREAM_COMM    1
#define PLX_IR_MAX_STREAMS    16

typedef struct
{
  guint      n_devices;
  GPtrArray *tensors; /* PlxIrTensor* */
  GPtrArray *ops;     /* PlxIrOp*, topological order */
  GPtrArray *streams; /* names: "compute", "comm", then those the ops name */
  GStringChunk *names; /* every tensor's and op's name, freed with the graph */
  /* How much compute slows beside a collective (PlxCluster.overlap_slowdown), as
   * the program was costed; NAN: the cluster's. */
  double     overlap_slowdown;
} PlxIrGraph;

const char *plx_ir_kind_to_string (PlxIrKind kind);
const char *plx_ir_role_to_string (PlxIrRole role);
/* Collectives and sends; the rest are compute (or data movement on one device). */
gboolean    plx_ir_kind_is_collective (PlxIrKind kind);
/* The stream an op runs on: its own, or "comm" for a collective, "compute" else. */
gint        plx_ir_op_stream (const PlxIrOp *op);
#define plx_ir_kind_is_compute(kind) (!plx_ir_kind_is_collective (kind))

/* Reads and checks a program: unique names, every reference defined, ops in
 * topological order, devices in range, shapes that agree with each op's kind.
 * Errors name `source`, the op or tensor and the value. */
PlxIrGraph *plx_ir_graph_new_from_json (JsonNode   *node,
                                        const char *source,
                                        GError    **error);
PlxIrGraph *plx_ir_graph_new_from_file (const char *path,
                                        GError    **error);
/* The JSON plx_ir_graph_new_from_json reads back to the same graph. */
JsonNode   *plx_ir_graph_to_json (const PlxIrGraph *graph);
void        plx_ir_graph_free (PlxIrGraph *graph);

/* Building a program in code. Names are copied; the caller keeps them unique and
 * adds ops in an order where each reads only inputs and earlier outputs. */
PlxIrGraph *plx_ir_graph_new (guint n_devices);
guint       plx_ir_graph_add_tensor (PlxIrGraph   *graph,
                                     const char   *name,
                                     guint         rank,
                                     const gint64 *shape,
                                     PlxDtype      dtype,
                                     PlxIrRole     role);
PlxIrOp    *plx_ir_graph_add_op (PlxIrGraph  *graph,
                                 const char  *name,
                                 PlxIrKind    kind,
                                 const guint *inputs,
                                 guint        n_inputs,
                                 const guint *outputs,
                                 guint        n_outputs,
                                 const guint *devices,
                                 guint        n_devices);
/* An op like `like` (another graph's: its kind, name, attributes, pass, origin and
 * costs; `like->peers` only if n_devices equals like's) on tensors and devices of
 * `graph`. For transforms that rebuild a program. */
PlxIrOp    *plx_ir_graph_add_op_like (PlxIrGraph    *graph,
                                      const PlxIrOp *like,
                                      const guint   *inputs,
                                      const guint   *outputs,
                                      const guint   *devices,
                                      guint          n_devices);
/* The index of stream `name`, added if new; -1 past PLX_IR_MAX_STREAMS. */
gint        plx_ir_graph_stream (PlxIrGraph *graph,
                                 const char *name);
/* `base`, or `base~2`, `base~3`... whichever `names` does not hold yet; added to
 * it, and owned by it. `names` maps each name (a string it owns) to the next suffix
 * to try (NULL: 2); add names of your own with the value NULL. */
const char *plx_ir_unique_name (GHashTable *names,
                                const char *base);
/* Checks a built program as plx_ir_graph_new_from_json checks a file: written out
 * and read back (a transform's self-check in the tests). */
gboolean    plx_ir_graph_check (const PlxIrGraph *graph,
                                const char       *source,
                                GError          **error);

typedef enum
{
  PLX_IR_OPTIMIZER_SGD,   /* the weight and its gradient */
  PLX_IR_OPTIMIZER_ADAM,  /* and two fp32 moments, and an fp32 master copy of a 16-bit weight */
} PlxIrOptimizerKind;

/* The training program of a forward graph on one device: the forward ops, the
 * backward pass (each op's gradient, in reverse; gradients of a tensor read twice
 * added), and one optimizer update per weight (role "weight") the loss depends on.
 * The forward graph has one loss op, no communication and no gradient ops. Errors
 * name `source` and the op. */
PlxIrGraph *plx_ir_training_graph (const PlxIrGraph  *forward,
                                   PlxIrOptimizerKind optimizer,
                                   const char        *source,
                                   GError           **error);

typedef enum
{
  PLX_IR_SCHEDULE_GPIPE,  /* every micro-batch's forward, then every backward */
  PLX_IR_SCHEDULE_1F1B,   /* PipeDream-Flush: warm up, then one forward one backward */
  PLX_IR_SCHEDULE_FILE,   /* a schedule file's order (docs/schedule-files.md) */
  PLX_IR_SCHEDULE_INTERLEAVED, /* Megatron's interleaved 1F1B over virtual_stages chunks per stage */
} PlxIrSchedule;

/* How a training program is spread: data parallel `dp` (the batch split, weights
 * replicated, gradients all-reduced), tensor parallel `tp` (weights split, Megatron's
 * column then row), `pp` pipeline stages, the batch in `micro_batches`; with
 * PLX_IR_SCHEDULE_FILE each stage's forwards and backwards in the order of the
 * schedule file at `schedule_path` (one model chunk per stage; a backward is one pass,
 * so a file that splits off weight gradients is refused). */
typedef struct
{
  guint         dp, tp, pp, micro_batches;
  PlxIrSchedule schedule;
  const char   *schedule_path;
  /* Model chunks per stage (0 or 1: one): with PLX_IR_SCHEDULE_INTERLEAVED or a file,
   * the forward ops cut into pp x virtual_stages chunks, chunk c of stage s holding
   * virtual stage c x pp + s (Megatron-LM's interleaved assignment). */
  guint         virtual_stages;
  /* How the forward ops are cut into chunks: PLX_IR_SPLIT_NEAREST (0) cuts each
   * boundary nearest its share of the forward time; PLX_IR_SPLIT_OPTIMAL takes the
   * contiguous split with the smallest largest chunk time, sends included
   * (plx_ir_chain_costs, plx_partition_chain; issue 13). */
  guint         split;
  /* PLX_IR_SPLIT_GIVEN: each chunk's first forward op (pp x virtual_stages entries,
   * increasing from 0). */
  const guint  *chunk_first;
} PlxIrParallel;

#define PLX_IR_SPLIT_NEAREST 0u
#define PLX_IR_SPLIT_OPTIMAL 1u
#define PLX_IR_SPLIT_GIVEN   2u
/* The DAG partitioner's stages (plx_partition_dag, ORDERED; docs/partition.md,
 * "DAGs"): a chunk need not be a run of ops in program order, only every tensor go
 * to the same chunk or a later one. */
#define PLX_IR_SPLIT_DAG     3u

/* Each model chunk's first forward op as plx_ir_parallelize cuts the forward ops
 * under `parallel`'s split: pp x virtual_stages entries in `first`, chunk c on stage
 * c % pp (what a view of the partition colours by). Errors as plx_ir_parallelize's
 * for a split that cannot be made. */
gboolean    plx_ir_split_firsts (const PlxIrGraph    *training,
                                 const PlxIrParallel *parallel,
                                 const PlxCluster    *cluster,
                                 guint               *first,
                                 const char          *source,
                                 GError             **error);
/* The split of `parallel` (its pp x virtual_stages chunks) improved by the simulator:
 * from the better of the optimal and the nearest split, each boundary moved one op
 * either way while that makes the simulated step shorter, at most `max_runs`
 * simulations. `first` gets each chunk's first forward op; returns the step time, or
 * a negative number with `error` set if no split runs. */
double      plx_ir_refine_split (const PlxIrGraph    *training,
                                 const PlxIrParallel *parallel,
                                 const PlxCluster    *cluster,
                                 guint                max_runs,
                                 guint               *first,
                                 const char          *source,
                                 GError             **error);

/* A training graph (plx_ir_training_graph) as a chain of its forward ops in program
 * order, for partitioning (docs/partition.md): per forward op, its own and its
 * backward ops' time on `cluster` for the whole batch (node_s), and per boundary after
 * it what a cut there costs each side: its live activations sent on and their
 * gradients sent back, in `micro_batches` sends each between neighbouring GPUs
 * (cut_s, n - 1 entries) and their bytes for the whole batch (cut_bytes). Returns the
 * number of forward ops n; the arrays are newly allocated. */
guint       plx_ir_chain_costs (const PlxIrGraph *training,
                                const PlxCluster *cluster,
                                guint             micro_batches,
                                double          **node_s,
                                double          **cut_s,
                                double          **cut_bytes);

/* The forward ops of a training graph split into n_chunks parts by the DAG
 * partitioner: nodes the forward ops with their backward ops' time, an edge per
 * tensor one forward op makes and another reads, costing as a chain's cut (once per
 * tensor, on the edge to its last reader); loads within 5 % (or the heaviest op's
 * bound). ORDERED: pipeline chunks (PLX_IR_SPLIT_DAG's); FREE: devices for
 * plx_ir_place. part[i] is forward op i's part. NULL with an error naming `source`
 * when it cannot split. */
PlxDagPartition *plx_ir_dag_partition (const PlxIrGraph *training,
                                       const PlxCluster *cluster,
                                       guint             micro_batches,
                                       guint             n_chunks,
                                       PlxDagMode        mode,
                                       const char       *source,
                                       GError          **error);

/* Model parallelism without a pipeline (Tavarageri et al. 2019: the partition's
 * parts on devices, running at once where the graph allows): every op of a training
 * graph on the device of its forward op (`device`, one per forward op, below
 * n_devices), the whole batch at once; a tensor read on another device than its own
 * is sent there once, on the communication stream, before its first reader there.
 * Any assignment runs, a FREE one included (program order stays the training
 * graph's, which is topological). NULL with an error naming `source` and the value
 * for a device out of range. */
PlxIrGraph      *plx_ir_place (const PlxIrGraph *training,
                               const guint      *device,
                               guint             n_devices,
                               const char       *source,
                               GError          **error);

/* The distributed program of a training graph (plx_ir_training_graph) on
 * pp x dp x tp devices (device = stage * dp * tp + d * tp + t): each tensor's
 * sharding over the micro-batch, data and tensor axes found op by op, collectives
 * where an op needs what its input is not (docs/ir.md, "Parallel programs"); the
 * forward ops split into pp contiguous stages of about equal time on `cluster`, each
 * backward and update op on its forward op's stage, sends between stages, each
 * stage's ops in the schedule's order. */
PlxIrGraph *plx_ir_parallelize (const PlxIrGraph    *training,
                                const PlxIrParallel *parallel,
                                const PlxCluster    *cluster,
                                const char          *source,
                                GError             **error);

/* The global batch of a forward graph: the first dimension of its first data input
 * (0 if it has none). */
gint64      plx_ir_graph_batch (const PlxIrGraph *graph);
gint64      plx_ir_tensor_elements (const PlxIrTensor *tensor);
double      plx_ir_tensor_bytes (const PlxIrTensor *tensor);
/* Floating-point operations of one run of the op: 2mnk a matmul; a few per element
 * for the others (docs/ir.md); 0 for communication and data movement. */
double      plx_ir_op_flops (const PlxIrGraph *graph,
                             const PlxIrOp    *op);
/* Bytes the op reads and writes: its inputs and outputs once each. */
double      plx_ir_op_bytes (const PlxIrGraph *graph,
                             const PlxIrOp    *op);

/* A run of a program (plx_ir_simulate): when each op ran, when each device is done,
 * and what each device held at its fullest. */
typedef struct
{
  double  makespan_s;         /* the last op's end */
  double  flops;              /* every device's compute ops' FLOPs, summed */
  double  peak_bytes;         /* the fullest device's peak */
  guint   n_devices;
  double *device_free_s;      /* when each device finished its last op */
  double *device_compute_s;   /* time each device's compute stream was busy */
  double *device_comm_s;      /* time its communication stream was busy */
  double *device_peak_bytes;  /* the most it held at once */
  double *device_input_bytes; /* of which graph inputs (weights, data, state) */
  guint   n_ops;
  double *op_start_s;
  double *op_end_s;
} PlxIrRun;

/* One op's time on `cluster`: a matmul by the GEMM roofline (plx_gemm_time), the
 * collectives and sends by the collective model on where its devices sit, a reshape
 * nothing, every other op its bytes through HBM (plx_memory_time). */
double      plx_ir_op_time (const PlxIrGraph *graph,
                            const PlxIrOp    *op,
                            const PlxCluster *cluster);
/* The most ops the IR simulator runs (about 5 s and 500 MB on one core; a
 * lowered scenario or a parallelized graph past it is refused before it is built). */
#define PLX_IR_MAX_OPS 1000000

/* Runs the program on the cluster's first devices (device d is GPU d, node by
 * node), after DistIR's simulator (Santhanam et al. 2021 §4): each device has a
 * compute and a communication stream, each running its ops in program order; an op
 * starts when its inputs are ready and its stream is free on every device it
 * occupies (an op on several devices runs on each at once; a collective occupies
 * its group, a send both ends). Memory: graph inputs held throughout, each output
 * from its op's start until its last reader ends. More than PLX_IR_MAX_OPS ops is an
 * error. */
gboolean    plx_ir_simulate (const PlxIrGraph *graph,
                             const PlxCluster *cluster,
                             PlxIrRun         *run,
                             GError          **error);
/* As plx_ir_simulate without the memory: peaks left 0, a third faster (a search
 * that asks only for step times, plx_fuse_search). */
gboolean    plx_ir_simulate_timing (const PlxIrGraph *graph,
                                    const PlxCluster *cluster,
                                    PlxIrRun         *run,
                                    GError          **error);
void        plx_ir_run_clear (PlxIrRun *run);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxIrGraph, plx_ir_graph_free)

G_END_DECLS
