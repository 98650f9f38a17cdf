/* plx-graph-run.h: one run of the Graph page, on a GTask thread - the forward graph
 * trained (plx_ir_training_graph), spread (plx_ir_parallelize), fused when asked
 * (plx-ir-fuse.h), simulated and drawn, as `parallax-cli simulate --model FILE` and
 * `parallax-cli fuse` run it. */
#pragma once

#include <gio/gio.h>

#include "plx-result.h"
#include "ir/plx-ir-fuse.h"
#include "ir/plx-ir.h"

G_BEGIN_DECLS

/* The Fusion dropdown's items. */
typedef enum
{
  PLX_GRAPH_FUSION_NONE,
  PLX_GRAPH_FUSION_DDP,          /* PyTorch DDP's buckets: the first 1 MiB, then 25 MiB */
  PLX_GRAPH_FUSION_ELEMENTWISE,  /* every chain of memory-bound ops one kernel */
  PLX_GRAPH_FUSION_SEARCHED,     /* DisCo's joint search (plx_fuse_search) */
} PlxGraphFusion;

/* The forward graph, shared by the page and the jobs computing from it: a job may
 * outlive the graph the page has moved on from. A g_atomic_rc_box. */
typedef struct
{
  PlxIrGraph *graph;
} PlxGraphForward;

void plx_graph_forward_unref (PlxGraphForward *f);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxGraphForward, plx_graph_forward_unref)

/* What a job runs: the page's controls when it started. */
typedef struct
{
  PlxGraphForward   *forward;
  PlxIrParallel      par;
  PlxIrOptimizerKind optimizer;
  PlxGraphFusion     fusion;
  PlxCluster        *cluster;
  char              *source;
  guint             *chunk_first;   /* PLX_IR_SPLIT_GIVEN's, owned */
} PlxGraphJob;

void plx_graph_job_free (PlxGraphJob *job);

/* What a job hands back: the run, and what fusion did to the program. */
typedef struct
{
  PlxResult     *result;
  PlxGraphFusion fusion;
  guint          kernels;       /* fused groups of two or more ops */
  guint          gradients;     /* gradient all-reduces before fusion */
  guint          all_reduces;   /* and after: the buckets */
  double         unfused_s;     /* the step with nothing fused */
  guint         *firsts;        /* each chunk's first forward op (n_chunks), or NULL */
  guint         *chunk_of;      /* a DAG split: each forward op's chunk (n_fwd), else NULL */
  guint          n_fwd;
  guint          n_chunks, pp;
} PlxGraphRun;

void plx_graph_run_free (PlxGraphRun *c);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxGraphRun, plx_graph_run_free)

/* Fusion is defined on data-parallel programs (DisCo's setting; `parallax-cli fuse`
 * refuses --tp, --pp and --micro-batches). */
gboolean plx_graph_fusion_applies (const PlxIrParallel *par);
/* The GTask thread function: `data` is a PlxGraphJob; returns a PlxGraphRun. */
void     plx_graph_job_run (GTask        *task,
                            gpointer      source,
                            gpointer      data,
                            GCancellable *cancellable);

G_END_DECLS
