/**
 * SECTION:plx-plan
 * @title: plx-plan.h
 * @short_description: a scenario lowered to an explicit distributed program
 *
 * A scenario lowered to an explicit distributed program (DistIR, Santhanam et al.
 * 2021): for each pipeline stage and model chunk, the ordered tasks
 * of one micro-batch's forward, backward and weight-gradient passes, with their costs
 * and memory; plus what each stage does once per step (gradient buckets, optimizer).
 * Ranks inside a TP, CP or DP group are symmetric, so a stage is one representative
 * GPU: the plan's size grows with pp * virtual_stages * layers, not with the GPU count.
 */
#pragma once

#include <glib.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-report.h"
#include "plx-strategy.h"

G_BEGIN_DECLS

/**
 * PlxPlanLabels:
 *
 * The text of a plan's task labels, one block per plan and shared (reference
 * counted) with the timelines made from it, which outlive the plan. Opaque.
 */
typedef struct _PlxPlanLabels PlxPlanLabels;

/**
 * PlxStream:
 * @PLX_STREAM_COMPUTE: kernels, "compute"
 * @PLX_STREAM_TP: tensor/sequence/context/expert-parallel collectives, "tp"
 * @PLX_STREAM_PP: stage-to-stage sends, "pp"
 * @PLX_STREAM_DP: data-parallel gradient and ZeRO collectives, "dp"
 * @PLX_N_STREAMS: the number of streams, not a stream
 *
 * Where a task runs on its GPU; the quoted names are plx_stream_to_string()'s.
 */
typedef enum
{
  PLX_STREAM_COMPUTE,
  PLX_STREAM_TP,
  PLX_STREAM_PP,
  PLX_STREAM_DP,
  PLX_N_STREAMS
} PlxStream;

/**
 * PlxTaskKind:
 * @PLX_KIND_FORWARD: forward compute, "forward"
 * @PLX_KIND_BACKWARD: backward compute, "backward"
 * @PLX_KIND_WEIGHT_GRAD: a split-off weight gradient, "weight_grad"
 * @PLX_KIND_RECOMPUTE: forward repeated in backward, "recompute"
 * @PLX_KIND_TP_COMM: a tensor/sequence/context/expert-parallel collective, "tp_comm"
 * @PLX_KIND_PP_SEND: a stage-to-stage send, "pp_send"
 * @PLX_KIND_DP_COMM: a data-parallel or ZeRO collective, "dp_comm"
 * @PLX_KIND_OPTIMIZER: the optimizer step, "optimizer"
 * @PLX_N_KINDS: the number of kinds, not a kind
 *
 * What a task does; the quoted names are plx_task_kind_to_string()'s.
 */
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

/**
 * PlxPlanTask:
 * @stream: where it runs
 * @kind: what it does
 * @label: owned by the plan's labels (or static): valid while the plan or a timeline
 *   made from it lives
 * @duration_s: its time
 * @flops: its FLOPs
 * @bytes: HBM traffic of compute, or bytes through a collective
 *
 * One task of a pass.
 */
typedef struct
{
  PlxStream   stream;
  PlxTaskKind kind;
  const char *label;
  double      duration_s;
  double      flops;
  double      bytes;
} PlxPlanTask;

/**
 * PlxPlanPass:
 * @tasks: (array length=n_tasks): run one after another
 * @n_tasks: the entries of @tasks
 * @duration_s: the pass's time
 *
 * One micro-batch's forward, backward or weight-gradient pass of a chunk.
 */
typedef struct
{
  PlxPlanTask *tasks;
  guint        n_tasks;
  double       duration_s;
} PlxPlanPass;

/**
 * PlxPlanChunk:
 * @stage: the pipeline stage
 * @chunk: the model chunk on that stage
 * @first_layer: its first transformer block
 * @n_layers: its blocks
 * @pass: by #PlxPass: F, B, W (W empty unless the schedule splits)
 * @saved_bytes: kept from the start of F to the end of B (or W)
 * @wgrad_saved_bytes: of those, what a split-off W still needs after B: the
 *   matmuls' inputs (Qi et al. 2023 §2)
 * @transient_bytes: alive during B only (full recompute's re-created layer)
 * @grad_bytes: gradients this chunk produces for data-parallel reduction
 *
 * One model chunk on one stage: its passes for one micro-batch and their memory.
 */
typedef struct
{
  guint       stage;
  guint       chunk;
  guint       first_layer;
  guint       n_layers;
  PlxPlanPass pass[3];
  double      saved_bytes;
  double      wgrad_saved_bytes;
  double      transient_bytes;
  double      grad_bytes;
} PlxPlanChunk;

/**
 * PlxPlanStage:
 * @static_bytes: by #PlxMemCategory: weights, gradients, optimizer, -, other
 * @grad_bucket_s: one bucket's reduction over the DP group
 * @grad_bucket_bytes: one bucket's bytes
 * @zero_gather_s: ZeRO-1/2: all weights after the step (ZeRO-3's are in the passes)
 * @tied_embedding_s: first/last stage only
 * @optimizer_s: the optimizer step
 * @params: parameters on this stage's GPU
 *
 * What a stage does once per step, and its memory that lasts the whole step.
 */
typedef struct
{
  double static_bytes[5];
  double grad_bucket_s;
  double grad_bucket_bytes;
  double zero_gather_s;
  double tied_embedding_s;
  double optimizer_s;
  double params;
} PlxPlanStage;

/**
 * PlxPlan:
 * @pp: pipeline stages
 * @virtual_stages: model chunks per stage
 * @micro_batches: micro-batches per step
 * @schedule: the pipeline schedule
 * @zero_stage: the ZeRO stage
 * @overlap_dp_comm: data-parallel communication overlapped with backward
 * @overlap_slowdown: the cluster's: compute slowed beside a collective
 * @split_backward: W passes split off B
 * @send_s: one stage-to-stage send, activations or gradients
 * @send_bytes: its bytes
 * @chunks: pp * virtual_stages, indexed chunk * pp + stage
 * @stages: pp
 * @layer_forward_s: one block, one micro-batch, with its collectives
 * @layer_backward_s: ... backward with recompute
 * @model_flops_per_step: the model's FLOPs in one step
 * @hardware_flops_per_step: the same with recompute
 * @tokens_per_step: tokens trained in one step
 * @n_gpus: the GPUs
 * @peak_flops: one GPU's peak FLOP/s in the training dtype
 * @hbm_bytes: one GPU's HBM capacity
 * @hbm_usable_bytes: capacity less the cluster's reserved bytes
 * @labels: (nullable): the tasks' labels (%NULL: static strings)
 *
 * A scenario as a distributed program.
 */
typedef struct
{
  guint           pp;
  guint           virtual_stages;
  guint64         micro_batches;
  PlxSchedule     schedule;
  guint           zero_stage;
  gboolean        overlap_dp_comm;
  double          overlap_slowdown;
  gboolean        split_backward;
  double          send_s;
  double          send_bytes;
  PlxPlanChunk   *chunks;
  PlxPlanStage   *stages;
  double          layer_forward_s;
  double          layer_backward_s;
  double          model_flops_per_step;
  double          hardware_flops_per_step;
  double          tokens_per_step;
  guint           n_gpus;
  double          peak_flops;
  double          hbm_bytes;
  double          hbm_usable_bytes;
  PlxPlanLabels  *labels;
} PlxPlan;

/**
 * plx_plan_lower:
 * @model: the model
 * @cluster: the cluster
 * @strategy: a resolved training strategy
 * @error: return location for a #GError, or %NULL
 *
 * Lowers a scenario to a plan. Weight gradients are split into their own W passes
 * for zero-bubble schedules.
 *
 * Returns: (transfer full) (nullable): the plan; %NULL with a
 *   %PLX_ERROR_UNSUPPORTED error for an inference workload, or as
 *   plx_plan_lower_split()
 */
PlxPlan *plx_plan_lower (const PlxModel    *model,
                         const PlxCluster  *cluster,
                         const PlxStrategy *strategy,
                         GError           **error);
/**
 * plx_plan_lower_split:
 * @model: the model
 * @cluster: the cluster
 * @strategy: a resolved strategy
 * @split_backward: whether weight gradients get W passes of their own
 * @error: return location for a #GError, or %NULL
 *
 * As plx_plan_lower(), with the split of the backward pass given.
 *
 * Returns: (transfer full) (nullable): the plan; %NULL with a
 *   %PLX_ERROR_INCONSISTENT error when the strategy is not resolved
 */
PlxPlan *plx_plan_lower_split (const PlxModel    *model,
                               const PlxCluster  *cluster,
                               const PlxStrategy *strategy,
                               gboolean           split_backward,
                               GError           **error);
/**
 * plx_plan_free:
 * @plan: (transfer full) (nullable): a plan
 *
 * Frees @plan (its labels live on while a timeline holds them).
 */
void     plx_plan_free (PlxPlan *plan);
/**
 * plx_plan_report:
 * @plan: the plan simulated
 * @engine: the engine's name, a static string
 * @step_s: the step time
 * @stage: the stage with the highest memory peak
 * @activation_bytes: its activations' peak
 * @kt: (array fixed-size=8): its time per task kind, by #PlxTaskKind (the
 *   optimizer's is the plan's)
 * @dp_exposed_s: the data-parallel communication the step waited for once per step
 *   (gradient reduction beyond the compute with its contention, the tied
 *   all-reduce, ZeRO's weight gather)
 * @report: (out caller-allocates): the report
 *
 * Writes the report of a step of @step_s simulated from the plan, for @stage. Both
 * simulators report through it.
 */
void     plx_plan_report (const PlxPlan *plan,
                          const char    *engine,
                          double         step_s,
                          guint          stage,
                          double         activation_bytes,
                          const double  *kt,
                          double         dp_exposed_s,
                          PlxReport     *report);
/**
 * plx_plan_labels_ref:
 * @labels: (nullable): a plan's labels
 *
 * Takes a reference on the plan's labels, for what keeps them past the plan
 * (%NULL-safe).
 *
 * Returns: (transfer full) (nullable): @labels
 */
PlxPlanLabels *plx_plan_labels_ref (PlxPlanLabels *labels);
/**
 * plx_plan_labels_unref:
 * @labels: (transfer full) (nullable): a plan's labels
 *
 * Drops a reference (%NULL-safe).
 */
void           plx_plan_labels_unref (PlxPlanLabels *labels);
/**
 * plx_plan_get_chunk:
 * @plan: a plan
 * @stage: a stage, below pp
 * @chunk: a chunk on it, below virtual_stages
 *
 * Returns: (transfer none): the chunk
 */
const PlxPlanChunk *plx_plan_get_chunk (const PlxPlan *plan,
                                        guint          stage,
                                        guint          chunk);
/**
 * plx_plan_to_text:
 * @plan: a plan
 *
 * Returns: (transfer full): one line per task: stage, chunk, pass, stream, kind,
 *   label, FLOPs, bytes, duration
 */
char    *plx_plan_to_text (const PlxPlan *plan);

/**
 * plx_stream_to_string:
 * @stream: a stream
 *
 * Returns: (transfer none): its name, as in #PlxStream
 */
const char *plx_stream_to_string (PlxStream stream);
/**
 * plx_task_kind_to_string:
 * @kind: a task kind
 *
 * Returns: (transfer none): its name, as in #PlxTaskKind
 */
const char *plx_task_kind_to_string (PlxTaskKind kind);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxPlan, plx_plan_free)

G_END_DECLS
