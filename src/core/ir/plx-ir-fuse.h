/* plx-ir-fuse.h: operator fusion and gradient tensor fusion of a data-parallel
 * program, searched jointly (DisCo: Yi et al. 2022, "Optimizing DNN
 * Compilation for Distributed Training with Joint OP and Tensor Fusion", IEEE TPDS,
 * arXiv 2209.12769: ops fused into kernels and gradients into all-reduce buckets,
 * chosen by a backtracking search; its estimator is a GNN, ours the IR simulator). docs/fusion.md. */
#pragma once

#include "parallax/plx-cluster.h"
#include "plx-ir.h"

G_BEGIN_DECLS

/* What can be fused in a program (plx_ir_parallelize's, or any): `edges` are
 * producer -> consumer pairs of memory-bound ops on the same devices, stream and
 * pass (elementwise ops, norms, softmax, the loss and their gradients); `grads` the
 * gradient all-reduces (an all-reduce an optimizer update reads), in program order,
 * which is the order backward makes them. */
typedef struct
{
  const PlxIrGraph *program;   /* not owned; must outlive the space */
  guint     n_edges;
  guint    *edge_producer;     /* program op indices */
  guint    *edge_consumer;
  guint     n_grads;
  guint    *grad_op;           /* the all-reduce's op index */
  double   *grad_bytes;        /* its buffer, per device */
  gboolean *grad_break;        /* cannot share a bucket with the gradient before it
                                * (other devices, dtype or stream; the first) */
  /* For plx_fuse_apply, worked out once: each tensor's readers (CSR: tensor t's are
   * reader_op[reader_start[t] .. reader_start[t + 1] - 1]), and the program's names. */
  guint      *reader_start, *reader_op;
  GHashTable *names;
} PlxFuseSpace;

/* A fusion plan: which edges are fused (an edge whose fusion would make a group one
 * that a path leaves and re-enters is not: the kernel could not run in one piece),
 * and after which gradients a bucket ends (cut[n_grads - 1] is always TRUE). */
typedef struct
{
  guint     n_edges, n_grads;
  gboolean *fuse;
  gboolean *cut;
} PlxFusePlan;

PlxFuseSpace *plx_fuse_space_new (const PlxIrGraph *program);
void          plx_fuse_space_free (PlxFuseSpace *space);

/* Nothing fused: every op its own kernel, every gradient its own all-reduce. */
PlxFusePlan  *plx_fuse_plan_new (const PlxFuseSpace *space);
PlxFusePlan  *plx_fuse_plan_copy (const PlxFusePlan *plan);
void          plx_fuse_plan_free (PlxFusePlan *plan);
/* Buckets filled in backward order, a bucket closed once it holds `bucket_bytes`
 * (PyTorch DDP, Li et al. 2020 §3.2.3: the tensor that fills it stays in it), the
 * first once it holds `first_bytes` (DDP: 1 MiB, so that reduction starts early). */
void          plx_fuse_plan_buckets_by_size (const PlxFuseSpace *space,
                                             PlxFusePlan        *plan,
                                             double              first_bytes,
                                             double              bucket_bytes);
/* Every edge fused (as far as legal): every chain of memory-bound ops one kernel. */
void          plx_fuse_plan_fuse_all (PlxFusePlan *plan);

/* The program with the plan applied: each group of fused ops one kernel reading what
 * its ops read from outside and writing what is read outside (or is an output of
 * the program), timed by the memory roofline on those bytes (and a batch norm's second
 * sweep); each bucket of two or more gradients packed into one buffer on the compute
 * stream, all-reduced as one, and unpacked (DDP's and Horovod's copies into and out
 * of the fusion buffer). Sets the plan's illegal fusions to FALSE. `n_kernels`
 * (optional): fused groups; `group` (optional, one per program op): the op whose
 * group each op is in (itself when alone). NULL only if the groups could not be
 * ordered (a fault of this code, not of the plan). */
PlxIrGraph   *plx_fuse_apply (const PlxFuseSpace *space,
                              PlxFusePlan        *plan,
                              guint              *n_kernels,
                              guint              *group);

typedef struct
{
  double       step_s;          /* the plan found */
  PlxFusePlan *plan;
  /* Baselines (docs/fusion.md): nothing fused; DDP's 25 MiB buckets (first 1 MiB);
   * Horovod's 64 MiB fusion buffer filled with what is ready in one 5 ms cycle;
   * every memory-bound chain fused (XLA-like) with one all-reduce per gradient; and
   * the ideal bound: the fastest op fusion seen with communication free. */
  double       none_s, ddp_s, horovod_s, elementwise_s, ideal_s;
  guint        simulations;
  double       search_s;        /* wall time of the search */
} PlxFuseResult;

/* DisCo's search on `program` (a data-parallel training program): from the best
 * baseline and the buckets a dynamic program proposes from the simulated gradient
 * ready times, single changes (a bucket boundary, an edge) are tried in turn and the
 * first that shortens the simulated step is kept; where none does, the search
 * backtracks to the plan before and tries its next change. At most `max_simulations`
 * runs of the simulator for the search (one more for a frame's first change), besides
 * the 7 of the baselines and seeds and the 3 of the ideal bound. */
gboolean      plx_fuse_search (const PlxIrGraph *program,
                               const PlxCluster *cluster,
                               guint             max_simulations,
                               PlxFuseResult    *result,
                               GError          **error);
void          plx_fuse_result_clear (PlxFuseResult *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxFuseSpace, plx_fuse_space_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxFusePlan, plx_fuse_plan_free)

G_END_DECLS
