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

#include "plx-cluster.h"
#include "plx-types.h"

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
  /* communication */
  PLX_IR_ALL_REDUCE,
  PLX_IR_ALL_GATHER,
  PLX_IR_REDUCE_SCATTER,
  PLX_IR_ALL_TO_ALL,
  PLX_IR_BROADCAST,
  PLX_IR_SEND,          /* from its device to `peer`; the output is the copy there */
  PLX_N_IR_KINDS
} PlxIrKind;

typedef struct
{
  char    *name;
  guint    rank;
  gint64   shape[PLX_IR_MAX_RANK];
  PlxDtype dtype;
  gint     producer; /* the op that writes it, or -1 for a graph input */
} PlxIrTensor;

typedef struct
{
  char     *name;
  PlxIrKind kind;
  guint    *inputs;  guint n_inputs;   /* tensor indices */
  guint    *outputs; guint n_outputs;
  guint    *devices; guint n_devices;  /* a collective's group; else where it runs */
  gint      axis;                      /* gather/scatter/concat/split axis; -1 if none */
  guint     peer;                      /* SEND: the receiving device */
} PlxIrOp;

typedef struct
{
  guint      n_devices;
  GPtrArray *tensors; /* PlxIrTensor* */
  GPtrArray *ops;     /* PlxIrOp*, topological order */
} PlxIrGraph;

const char *plx_ir_kind_to_string (PlxIrKind kind);
gboolean    plx_ir_kind_is_collective (PlxIrKind kind);

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

gint64      plx_ir_tensor_elements (const PlxIrTensor *tensor);
double      plx_ir_tensor_bytes (const PlxIrTensor *tensor);
/* Floating-point operations of one run of the op: 2mnk a matmul; a few per element
 * for the others (docs/ir.md); 0 for communication and data movement. */
double      plx_ir_op_flops (const PlxIrGraph *graph,
                             const PlxIrOp    *op);
/* Bytes the op reads and writes: its inputs and outputs once each. */
double      plx_ir_op_bytes (const PlxIrGraph *graph,
                             const PlxIrOp    *op);

/* A run of a program (plx_ir_simulate): when each op ran, when each device is done. */
typedef struct
{
  double  makespan_s;     /* the last op's end */
  guint   n_devices;
  double *device_free_s;  /* when each device finished its last op */
  double *device_busy_s;  /* the time each device spent running ops */
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
/* Runs the program on the cluster's first devices (device d is GPU d, node by
 * node): each device runs its ops in program order, an op starting when its inputs
 * are ready and all the devices it occupies (a collective's group; a send's two
 * ends) are free (DistIR's simulator, Santhanam et al. 2021 §4). */
gboolean    plx_ir_simulate (const PlxIrGraph *graph,
                             const PlxCluster *cluster,
                             PlxIrRun         *run,
                             GError          **error);
void        plx_ir_run_clear (PlxIrRun *run);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxIrGraph, plx_ir_graph_free)

G_END_DECLS
