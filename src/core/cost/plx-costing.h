/* plx-costing.h (internal): the costs of one stage's work, shared by the analytical
 * engine (which composes them in closed form) and the plan (which the event
 * simulator schedules), so that the two engines agree by construction. */
#pragma once

#include "parallax/plx-cluster.h"
#include "hardware/plx-collective.h"
#include "parallax/plx-model.h"
#include "cost/plx-op-cost.h"
#include "parallax/plx-strategy.h"

#include "plx-cost-memo.h"

G_BEGIN_DECLS

/* The work of a group of ops for one micro-batch on one GPU. */
typedef struct
{
  double fwd_s;            /* compute */
  double bwd_s;            /* compute, input and weight gradients */
  double wgrad_s;          /* weight-gradient part of bwd_s */
  double recompute_s;      /* compute repeated in backward */
  double comm_fwd_s;       /* TP/SP, CP and EP collectives on the critical path */
  double comm_bwd_s;
  double comm_recompute_s;
  double fwd_flops;
  double bwd_flops;
  double recompute_flops;
  double fwd_bytes;        /* HBM traffic */
  double bwd_bytes;
  double comm_bytes;       /* bytes through collectives, forward */
  double saved_bytes;      /* activations kept per micro-batch under the recompute mode */
  double wgrad_saved_bytes; /* part of saved_bytes that weight gradients need: the matmuls' inputs */
  double full_saved_bytes; /* ... with no recompute: alive while a layer's backward runs */
  double attn_core_s;      /* forward of the attention core, which ring attention overlaps */
  double attn_core_bwd_s;  /* ... and its backward */
  double params;           /* parameters on this GPU */
  double expert_params;    /* part of params sharded over the expert-data-parallel group */
  double fp8_params;       /* part of params in linear layers that fp8 training runs in fp8 */
  double param_tensors;    /* tensors the params are stored in (PlxOp.param_tensors) */
  double large_tensors;    /* ... of them, the weights of at least ZERO3_PERSISTENCE_ELEMS on this GPU */
  double largest_tensor;   /* elements on this GPU of the largest of them (the largest, not a sum) */
} PlxBlockCost;

typedef struct
{
  const PlxModel    *model;
  const PlxCluster  *cluster;
  const PlxStrategy *strategy;
  PlxShardContext    ctx;
  double             micro_batches; /* per step per data-parallel rank */
  double             act_bytes;     /* one micro-batch's hidden state b*s/cp*h on this rank */
  gboolean           per_tensor;    /* DeepSpeed 2021's ZeRO-3: PlxBlockCost counts parameter tensors */
  PlxGroup           tp_group;
  PlxGroup           cp_group;
  PlxGroup           ep_group;
  PlxGroup           etp_group;     /* expert tensor parallelism (plx_strategy_get_expert_tp) */
  PlxGroup           dp_group;
  PlxGroup           edp_group;     /* data-parallel group of the expert weights */
  PlxGroup           shard_group;   /* the ranks ZeRO shards over (dp, or a hybrid group) */
  PlxGroup           replica_group; /* hybrid sharding: the groups' replicas (size 1 if none) */
  double             shard;         /* shard_group's size */
  PlxGroup           pp_group;
  /* Layers per model chunk (pp*virtual_stages) when the split is uneven, set by the
   * caller from plx_costing_layer_split; NULL: n_layers / (pp*virtual_stages) each. */
  const guint       *chunk_layers;
  /* Remembers collective and HBM times across evaluations (the search's cache);
   * NULL: computed each time. Either way the same doubles. */
  PlxCostMemo       *memo;
} PlxCosting;

typedef enum
{
  PLX_HALF_ATTENTION,
  PLX_HALF_MLP,
} PlxHalf;

typedef struct
{
  double weights, gradients, optimizer, activations, other;
} PlxStageMemory;

/* Everything a stage is made of, costed once. */
typedef struct
{
  PlxBlockCost attn;      /* one block's attention half */
  PlxBlockCost mlp;       /* one block's MLP half */
  PlxBlockCost layer;     /* their sum */
  PlxBlockCost embedding; /* first stage */
  PlxBlockCost head;      /* last stage */
  double       send_s;    /* one stage-to-stage send */
} PlxStageCosts;

void   plx_costing_init (PlxCosting        *cx,
                         const PlxModel    *model,
                         const PlxCluster  *cluster,
                         const PlxStrategy *strategy,
                         double             micro_batch);
/* plx_costing_init in two: all but the groups, and the groups (a pure function of
 * the cluster and the degrees, which a cache may copy instead: plx-analytic.c). */
void   plx_costing_init_unplaced (PlxCosting        *cx,
                                  const PlxModel    *model,
                                  const PlxCluster  *cluster,
                                  const PlxStrategy *strategy,
                                  double             micro_batch);
void   plx_costing_place (PlxCosting *cx);
void   plx_costing_compute (const PlxCosting *cx,
                            PlxStageCosts    *costs);
/* All of plx_costing_compute but the send (send_s 0), for a caller that has it. */
void   plx_costing_compute_unsent (const PlxCosting *cx,
                                   PlxStageCosts    *costs);
/* DeepSpeed's BF16_Optimizer adds each micro-batch's 16-bit gradients into an fp32
 * copy after the backward pass (plx_strategy_accumulates_fp32_copy): its HBM time is
 * added to each block's backward (and weight-gradient) time; nothing otherwise. */
void   plx_costing_grad_accumulation (const PlxCosting *cx,
                                      PlxStageCosts    *costs);
/* One stage-to-stage send of a micro-batch's activations (or gradients). */
double plx_costing_send (const PlxCosting *cx);
double plx_costing_collective (const PlxCosting *cx,
                               PlxCollectiveKind kind,
                               const PlxGroup   *group,
                               double            bytes);
/* plx_memory_time on the strategy's cluster, through the memo. */
double plx_costing_memory (const PlxCosting *cx,
                           double            bytes);
/* Layers on a stage's GPU: all its chunks'. Inline, with the two below: the closed
 * form asks them a dozen times an evaluation; as calls they were a tenth of a search. */
static inline double
plx_costing_stage_layers (const PlxCosting *cx,
                          guint             stage)
{
  const PlxStrategy *s = cx->strategy;
  double n = 0.0;

  if (cx->chunk_layers == NULL)
    return (double) cx->model->n_layers / s->pp;
  for (guint c = 0; c < s->virtual_stages; c++)
    n += cx->chunk_layers[(gsize) c * s->pp + stage];
  return n;
}

/* Parameters of model chunk k of K, holding `layers` layers: with the embedding or
 * the head (and a copy of tied embeddings) if it has them. */
static inline double
plx_costing_chunk_params_of (const PlxCosting    *cx,
                             const PlxStageCosts *c,
                             guint                k,
                             guint                K,
                             double               layers)
{
  const PlxStrategy *s = cx->strategy;
  double params = layers * c->layer.params + (k == 0 ? c->embedding.params : 0.0) + (k + 1 == K ? c->head.params : 0.0);

  /* Tied embeddings: the last stage keeps its own copy of the word embeddings when
   * it is not also the first (Megatron-LM, Narayanan et al. 2021 §4); its gradients
   * are reduced over the data-parallel group with the rest before the two copies
   * are summed. */
  if (k + 1 == K && cx->model->tied_embeddings && s->pp > 1)
    params += (double) cx->model->vocab * cx->model->hidden / s->tp;
  return params;
}

/* Parameters of model chunk k. A stage's are its chunks'. */
static inline double
plx_costing_chunk_params (const PlxCosting    *cx,
                          const PlxStageCosts *c,
                          guint                k)
{
  const PlxStrategy *s = cx->strategy;
  guint K = s->pp * s->virtual_stages;
  double layers = cx->chunk_layers != NULL ? cx->chunk_layers[k] : (double) cx->model->n_layers / K;

  return plx_costing_chunk_params_of (cx, c, k, K, layers);
}

/* Parameters held by a stage's GPU, including the tied embedding copy. An even
 * split's chunks hold one share, divided once, not once a chunk. */
static inline double
plx_costing_stage_params (const PlxCosting    *cx,
                          const PlxStageCosts *costs,
                          guint                stage)
{
  const PlxStrategy *s = cx->strategy;
  guint K = s->pp * s->virtual_stages;
  double even = cx->chunk_layers == NULL ? (double) cx->model->n_layers / K : 0.0;
  double params = 0.0;

  for (guint c = 0; c < s->virtual_stages; c++)
    {
      guint k = c * s->pp + stage;
      params += plx_costing_chunk_params_of (cx, costs, k, K, cx->chunk_layers != NULL ? cx->chunk_layers[k] : even);
    }
  return params;
}
void   plx_costing_stage_memory (const PlxCosting    *cx,
                                 const PlxStageCosts *costs,
                                 guint                stage,
                                 PlxStageMemory      *mem);
/* plx_costing_stage_memory in two parts: what is the same for every stage of an
 * evaluation (bytes per parameter, ZeRO's sharding, the buffers), worked out once,
 * and a stage's own. The closed form asks two stages or more an evaluation. */
typedef struct
{
  double   wb, gb, ob, edp;
  gboolean shard_w, shard_g, fp32_copy;
  double   transient, other;
} PlxStageMemoryTerms;
void   plx_costing_stage_memory_terms (const PlxCosting    *cx,
                                       const PlxStageCosts *costs,
                                       PlxStageMemoryTerms *terms);
void   plx_costing_stage_memory_at (const PlxCosting          *cx,
                                    const PlxStageCosts       *costs,
                                    const PlxStageMemoryTerms *terms,
                                    guint                      stage,
                                    PlxStageMemory            *mem);
double plx_costing_recompute_transient_bytes (const PlxStrategy  *s,
                                              const PlxBlockCost *layer);
/* Inline: the closed form compares two or three stages an evaluation. */
static inline double
plx_costing_stage_memory_total (const PlxStageMemory *mem)
{
  return mem->weights + mem->gradients + mem->optimizer + mem->activations + mem->other;
}
/* Bytes per parameter of weights, gradients and optimizer state. */
void   plx_costing_state_bytes (PlxDtype dtype,
                                double  *weights,
                                double  *gradients,
                                double  *optimizer);
/* As plx_costing_state_bytes for the strategy's dtype, with its grad_dtype. */
void   plx_costing_strategy_state_bytes (const PlxStrategy *strategy,
                                         double            *w,
                                         double            *g,
                                         double            *o);
double plx_costing_strategy_grad_bytes (const PlxStrategy *strategy);
double plx_costing_optimizer_time (const PlxCosting    *cx,
                                   const PlxStageCosts *costs,
                                   guint                stage);
/* ZeRO-3's collectives per unit and micro-batch: a block's, the embedding's, the
 * head's gather before the forward, gather again before the backward (0 when the
 * weights stay gathered: plx_strategy_reshard_after_forward) and reduce-scatter over
 * the data-parallel group; a step's one gather and scatter spread over its
 * micro-batches when plx_strategy_zero3_once_per_step; all 0 (inactive) below ZeRO-3. */
typedef struct
{
  gboolean active;
  double   gather[3];
  double   regather[3];
  double   scatter[3];
  /* On the compute side, with each gather: PyTorch FSDP2's copy of the gathered
   * weights out into the unit's parameters and, gathered in 16 bits, the fp8 layers'
   * cast; with each reduce-scatter FSDP2's copy of the gradients into its buffer. */
  double   copy_out[3];
  double   copy_regather[3];
  double   copy_in[3];
} PlxZero3Comm;

/* The chunks' layer counts when they are uneven (plx-layer-split.h, with the
 * embedding and head worth their time in layers; under ZeRO-3, `zero3` from
 * plx_costing_zero3_comm, the chunk times themselves), newly allocated; NULL when
 * even. */
guint *plx_costing_layer_split (const PlxCosting    *cx,
                                const PlxStageCosts *costs,
                                const PlxZero3Comm  *zero3);
void   plx_costing_zero3_comm (const PlxCosting    *cx,
                               const PlxStageCosts *costs,
                               PlxZero3Comm        *zero3);
/* Everything plx_costing_zero3_comm reads, zeroed first (padding too): equal bytes,
 * equal collectives (the analytical cache keeps the last). The cluster and memo of
 * comm_from's cx serve only to time the collectives. */
typedef struct
{
  gboolean          active;
  gboolean          eager, fp8_gather, reshard;
  PlxDtype          dtype;
  const PlxCluster *cluster;
  double            per_step, shard;
  PlxGroup          shard_group, replica_group;
  double            unit_params[3], unit_fp8[3];
  double            grad_bytes;  /* plx_costing_strategy_grad_bytes */
  /* DeepSpeed 2021's ZeRO-3 gathers and reduce-scatters one tensor a call, each call
   * with per-rank overheads (plx_costing_zero3_comm_from); 0 elsewhere. */
  double            unit_calls_gather[3], unit_calls_scatter[3];
} PlxZero3Inputs;
void   plx_costing_zero3_inputs (const PlxCosting    *cx,
                                 const PlxStageCosts *costs,
                                 PlxZero3Inputs      *inputs);
void   plx_costing_zero3_comm_from (const PlxCosting     *cx,
                                    const PlxZero3Inputs *inputs,
                                    PlxZero3Comm         *zero3);
/* ZeRO-3's exposed communication in one chunk's forward and backward pass of
 * n_layers blocks (with the embedding when first, the head when last): the pass's
 * length beyond its compute; 0 below ZeRO-3. */
void   plx_costing_zero3_pass (const PlxCosting    *cx,
                               const PlxStageCosts *costs,
                               const PlxZero3Comm  *zero3,
                               double               n_layers,
                               gboolean             first,
                               gboolean             last,
                               double              *fwd_extra,
                               double              *bwd_extra);
/* A stage's gradient buckets: size, one's reduction time, how many its chunks fill. */
void   plx_costing_grad_buckets (const PlxCosting    *cx,
                                 const PlxStageCosts *costs,
                                 guint                stage,
                                 double              *bucket_bytes,
                                 double              *bucket_s,
                                 double              *n_buckets);
/* The time compute loses to collectives that overlap it: the cluster's
 * overlap_slowdown times the part of comm_s (exposed_s of it not overlapped) that ran
 * beside busy_s of compute. */
double plx_costing_contention (const PlxCosting *cx,
                               double            comm_s,
                               double            exposed_s,
                               double            busy_s);
/* What of n buckets' reduction outlasts the backward window they are produced in,
 * plus the compute it slows (plx_costing_contention). */
double plx_costing_bucket_exposed (const PlxCosting *cx,
                                   double            n_buckets,
                                   double            bucket_s,
                                   double            window);
/* ZeRO-1/2's weight all-gather after the step, in the gradient buckets (n of
 * bucket_bytes gradients; plx_costing_grad_buckets), as far as the next step's first
 * forward pass (fwd_s on this stage) does not hide it. */
double plx_costing_param_gather_exposed (const PlxCosting    *cx,
                                         const PlxStageCosts *costs,
                                         guint                stage,
                                         double               bucket_bytes,
                                         double               n_buckets,
                                         double               fwd_s);
/* The tied-embedding gradient all-reduce between first and last stage (0 if none). */
double plx_costing_tied_embedding_time (const PlxCosting *cx);

G_END_DECLS
