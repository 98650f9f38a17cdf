/* plx-plan.h: a scenario lowered to an explicit distributed program (DistIR,
 * Santhanam et al. 2021): for each pipeline stage and model chunk, the ordered tasks
 * of one micro-batch's forward, backward and weight-gradient passes, with their costs
 * and memory; plus what each stage does once per step (gradient buckets, optimizer).
 * Ranks inside a TP, CP or DP group are symmetric, so a stage is one representative
 * GPU: the plan's size grows with pp * virtual_stages * layers, not with the GPU count. */
#pragma once

#include <glib.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-report.h"
#include "plx-schedule.h"
#include "plx-strategy.h"

G_BEGIN_DECLS

/* The text of a plan's task labels, one block per plan and shared (reference
 * counted) with the timelines made from it, which outlive the plan. */
typedef struct _PlxPlanLabels PlxPlanLabels;

typedef enum
{
  PLX_STREAM_COMPUTE,
  PLX_STREAM_TP,      /* tensor/sequence/context/expert-parallel collectives */
  PLX_STREAM_PP,      /* stage-to-stage sends */
  PLX_STREAM_DP,      /* data-parallel gradient and ZeRO collectives */
  PLX_N_STREAMS
} PlxStream;

typedef enum
{
  PLX_KIND_FORWARD,
  PLX_KIND_BACKWARD,
  PLX_KIND_WEIGHT_GRAD,
  PLX_KIND_RECOMPUTE,
  PLX_KIND_TP_COMM,
  PLX_KIND_PP_SEND,
  PLX_KIND_DP_COMM,
  PLX_KIND_OPTIMIZER,
  PLX_N_KINDS
} PlxTaskKind;

typedef struct
{
  PlxStream   stream;
  PlxTaskKind kind;
  const char *label;      /* owned by the plan's labels (or static): valid while the plan or a
                           * timeline made from it lives */
  double      duration_s;
  double      flops;
  double      bytes;      /* HBM traffic of compute, or bytes through a collective */
} PlxPlanTask;

typedef struct
{
  PlxPlanTask *tasks;     /* run one after another */
  guint        n_tasks;
  double       duration_s;
} PlxPlanPass;

typedef struct
{
  guint       stage;
  guint       chunk;
  guint       first_layer;
  guint       n_layers;
  PlxPlanPass pass[3];        /* PlxPass: F, B, W (W empty unless the schedule splits) */
  double      saved_bytes;    /* kept from the start of F to the end of B (or W) */
  double      wgrad_saved_bytes; /* of those, what a split-off W still needs after B:
                                  * the matmuls' inputs (Qi et al. 2023 §2) */
  double      transient_bytes; /* alive during B only (full recompute's re-created layer) */
  double      grad_bytes;     /* gradients this chunk produces for data-parallel reduction */
} PlxPlanChunk;

typedef struct
{
  double static_bytes[5];     /* PlxMemCategory: weights, gradients, optimizer, -, other */
  double grad_bucket_s;       /* one bucket's reduction over the DP group */
  double grad_bucket_bytes;
  double zero_gather_s;       /* ZeRO-1/2: all weights after the step (ZeRO-3's are in the passes) */
  double tied_embedding_s;    /* first/last stage only */
  double optimizer_s;
  double params;
} PlxPlanStage;

typedef struct
{
  guint           pp;
  guint           virtual_stages;
  guint64         micro_batches;
  PlxSchedule     schedule;
  guint           zero_stage;
  gboolean        overlap_dp_comm;
  double          overlap_slowdown; /* the cluster's: compute slowed beside a collective */
  gboolean        split_backward;
  double          send_s;       /* one stage-to-stage send, activations or gradients */
  double          send_bytes;
  PlxPlanChunk   *chunks;       /* pp * virtual_stages, indexed chunk * pp + stage */
  PlxPlanStage   *stages;       /* pp */
  double          layer_forward_s;  /* one block, one micro-batch, with its collectives */
  double          layer_backward_s; /* ... backward with recompute */
  double          model_flops_per_step;
  double          hardware_flops_per_step;
  double          tokens_per_step;
  guint           n_gpus;
  double          peak_flops;
  double          hbm_bytes;
  double          hbm_usable_bytes;
  PlxPlanLabels  *labels;       /* the tasks' labels (NULL: static strings) */
} PlxPlan;

/* Weight gradients are split into their own W passes for zero-bubble schedules. */
PlxPlan *plx_plan_lower (const PlxModel    *model,
                         const PlxCluster  *cluster,
                         const PlxStrategy *strategy,
                         GError           **error);
PlxPlan *plx_plan_lower_split (const PlxModel    *model,
                               const PlxCluster  *cluster,
                               const PlxStrategy *strategy,
                               gboolean           split_backward,
                               GError           **error);
void     plx_plan_free (PlxPlan *plan);
/* The report of a step of `step_s` simulated from the plan, for `stage` (the one with
 * the highest memory peak): its activations' peak, its time per task kind (kt,
 * PLX_N_KINDS; the optimizer's is the plan's), and the data-parallel communication
 * the step waited for once per step (gradient reduction beyond the compute with its
 * contention, the tied all-reduce, ZeRO's weight gather). Both simulators report
 * through it. */
void     plx_plan_report (const PlxPlan *plan,
                          const char    *engine,
                          double         step_s,
                          guint          stage,
                          double         activation_bytes,
                          const double  *kt,
                          double         dp_exposed_s,
                          PlxReport     *report);
/* A reference on the plan's labels, for what keeps them past the plan (NULL-safe). */
PlxPlanLabels *plx_plan_labels_ref (PlxPlanLabels *labels);
void           plx_plan_labels_unref (PlxPlanLabels *labels);
const PlxPlanChunk *plx_plan_get_chunk (const PlxPlan *plan,
                                        guint          stage,
                                        guint          chunk);
/* One line per task: stage, chunk, pass, stream, kind, label, FLOPs, bytes, duration. */
char    *plx_plan_to_text (const PlxPlan *plan);

const char *plx_stream_to_string (PlxStream stream);
const char *plx_task_kind_to_string (PlxTaskKind kind);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxPlan, plx_plan_free)

G_END_DECLS
