/* plx-strategy.h: how a run is split over the cluster (FORMATS.md §1, strategy). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-types.h"

G_BEGIN_DECLS

typedef enum
{
  PLX_WORKLOAD_TRAINING,
  PLX_WORKLOAD_INFERENCE,
} PlxWorkload;

typedef enum
{
  PLX_SCHEDULE_GPIPE,
  PLX_SCHEDULE_1F1B,
  PLX_SCHEDULE_INTERLEAVED_1F1B,
  PLX_SCHEDULE_ZERO_BUBBLE_H1,
  PLX_SCHEDULE_FILE,
} PlxSchedule;

typedef enum
{
  PLX_RECOMPUTE_NONE,
  PLX_RECOMPUTE_SELECTIVE,
  PLX_RECOMPUTE_FULL,
} PlxRecompute;

/* Which kind of training code runs the model (docs/cost-model.md, "Implementation"):
 * it decides how the memory-bound ops run and what "selective" recompute means. */
typedef enum
{
  PLX_IMPLEMENTATION_AUTO,     /* pytorch under ZeRO-3 (FSDP, DeepSpeed), megatron otherwise */
  PLX_IMPLEMENTATION_MEGATRON, /* Megatron-LM / NeMo: Transformer Engine's fused kernels;
                                * selective recompute = the attention core */
  PLX_IMPLEMENTATION_PYTORCH,  /* eager PyTorch modules (torchtitan, fms-fsdp, Hugging Face):
                                * one kernel per tensor op; selective = every other block */
  PLX_IMPLEMENTATION_DEEPSPEED, /* Megatron-DeepSpeed (BLOOM, MT-NLG): Megatron's kernels under
                                 * DeepSpeed's engine - bf16 gradients accumulated into fp32
                                 * after every micro-batch, gradients reduced after the last
                                 * backward pass (overlap_dp_comm defaults to false) */
} PlxImplementation;

typedef struct _PlxStrategy
{
  PlxWorkload  workload;
  guint64      prompt_length;     /* inference: tokens of each prompt (0 until resolved: 512) */
  guint64      decode_tokens;     /* inference: tokens generated for each (0 until resolved: 128) */
  guint64      seq_length;        /* 0 until resolved: the model's max positions */
  guint64      global_batch_size; /* 0 = not given */
  guint64      micro_batch_size;
  guint        dp;                /* 0 until resolved: GPUs / (tp*pp*cp) */
  guint        tp;
  guint        pp;
  guint        cp;
  guint        ep;
  guint        virtual_stages;
  gboolean     sequence_parallel;
  PlxSchedule  schedule;
  char        *schedule_path;     /* PLX_SCHEDULE_FILE only */
  PlxRecompute recompute;
  guint        zero_stage;
  PlxDtype     dtype;
  gboolean     overlap_dp_comm;
  gboolean     overlap_tp_comm;   /* TP collectives hidden under the next GEMM (Megatron's
                                   * --tp-comm-overlap, Wang et al. 2023); default off */
  gboolean     flash_attention;
  guint64      grad_bucket_bytes;
  PlxImplementation implementation;
  /* Hybrid sharding (PyTorch FSDP's HYBRID_SHARD, DeepSpeed's MiCS): ZeRO shards over
   * groups of this many data-parallel ranks and replicates across the groups;
   * 0 = over all of dp. */
  guint        shard_group_size;
  /* Mixture of experts (docs/cost-model.md): each expert's buffer holds this many times
   * its even share of the routed tokens and is computed and exchanged whole, tokens
   * beyond it dropped (GShard, Switch Transformer); 0 = dropless (Megatron's default). */
  double       moe_capacity_factor;
  /* Dropless: the busiest expert-parallel rank's routed tokens over the mean, as a
   * router log shows it; 0 = only what random routing gives (plx_strategy_moe_load). */
  double       moe_load_imbalance;
  /* Layers per pipeline stage (per model chunk, pp*virtual_stages of them, with
   * interleaving), as given; NULL for an even split, or the balanced one when the
   * layers do not divide evenly or layers_per_stage_auto is set (plx-layer-split.h). */
  guint       *layers_per_stage;
  guint        n_layers_per_stage;
  gboolean     layers_per_stage_auto;
  /* Megatron-LM's --decoder-first/last-pipeline-num-layers: the first and last
   * stage's layers, the rest split evenly over the stages between; 0 = not given. */
  guint        first_stage_layers;
  guint        last_stage_layers;
  /* fp8 training: the sharded weights of the fp8 layers are cast to fp8 before they
   * are all-gathered, at 1 byte a parameter (torchao's float8 all-gather for FSDP2,
   * torchtitan's enable_fsdp_float8_all_gather; Megatron-LM's --fp8-param-gather).
   * PLX_FP8_PARAM_GATHER_AUTO: on for PyTorch code under ZeRO-3 (torchtitan's fp8
   * recipes), off otherwise (plx_strategy_fp8_param_gather). */
  gint         fp8_param_gather;
  /* ZeRO-3: whether a unit's gathered weights are freed after its forward and
   * gathered again for its backward (PyTorch FSDP's reshard_after_forward).
   * PLX_RESHARD_AUTO: yes, but for PyTorch code with pp > 1 (torchtitan's default
   * policy; plx_strategy_reshard_after_forward). */
  gint         reshard_after_forward;
} PlxStrategy;

#define PLX_FP8_PARAM_GATHER_AUTO (-1)
#define PLX_RESHARD_AUTO (-1)

/* grad_bucket_bytes 0: Megatron-LM's own size (plx_strategy_get_grad_bucket_bytes). */
#define PLX_GRAD_BUCKET_AUTO ((guint64) 0)

/* The largest global batch, micro-batch and sequence length a strategy file may give
 * (2^30): what the reader accepts, and so the largest value advice may propose. */
#define PLX_STRATEGY_MAX_COUNT (G_GUINT64_CONSTANT (1) << 30)

PlxStrategy *plx_strategy_new (void);
PlxStrategy *plx_strategy_new_from_json (JsonNode   *node,
                                         const char *source,
                                         GError    **error);
PlxStrategy *plx_strategy_copy (const PlxStrategy *strategy);
void         plx_strategy_free (PlxStrategy *strategy);

/* Fills the defaults that depend on the model and cluster (seq_length, dp) and checks
 * every rule of FORMATS.md; the error names the keys and values involved. */
gboolean     plx_strategy_resolve (PlxStrategy      *strategy,
                                   const PlxModel   *model,
                                   const PlxCluster *cluster,
                                   const char       *source,
                                   GError          **error);

guint64      plx_strategy_get_n_micro_batches (const PlxStrategy *strategy);

/* A short description for labels: "TP 8 · PP 8 · DP 1 · interleaved-1f1b x3 · selective". */
char        *plx_strategy_describe (const PlxStrategy *strategy);
const char  *plx_schedule_to_string (PlxSchedule schedule);
const char  *plx_recompute_to_string (PlxRecompute recompute);
const char  *plx_workload_to_string (PlxWorkload workload);

/* Sets the keys of `changes` into a scenario's `strategy` object (docs/formats.md §1)
 * with the rules of an override (parallax-cli's flags, the library's
 * set_strategy_*): new tp, pp or cp - or `gpus_changed`, a new cluster or node count -
 * drop dp unless `changes` has it; a new pp or virtual_stages drops per-stage layer
 * counts not given anew. */
void plx_strategy_json_apply_changes (JsonObject *strategy,
                                      JsonObject *changes,
                                      gboolean    gpus_changed);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxStrategy, plx_strategy_free)

/* The gradient bucket size in bytes: as given, or Megatron-LM's default of
 * max(40M, 1M x dp x cp) gradient elements (4 bytes each, 2 under fp16). */
guint64 plx_strategy_get_grad_bucket_bytes (const PlxStrategy *strategy);

/* Whether the model runs as eager PyTorch modules (PLX_IMPLEMENTATION_AUTO resolved
 * by the ZeRO stage). */
gboolean    plx_strategy_is_pytorch (const PlxStrategy *strategy);
/* Whether gradients are kept twice, 16-bit as the backward pass writes them and an
 * fp32 copy they are added into after every micro-batch (DeepSpeed's BF16_Optimizer,
 * which runs bf16 up to ZeRO-1). */
gboolean    plx_strategy_accumulates_fp32_copy (const PlxStrategy *strategy);
const char *plx_implementation_to_string (PlxImplementation implementation);
/* The strategy as a "strategy" object of the scenario format, every key written as
 * it stands (resolved: dp, seq_length, the bucket size), so that reading it back
 * gives the same strategy. */
JsonNode   *plx_strategy_to_json (const PlxStrategy *strategy);

/* How many times its even share of routed tokens the busiest expert-parallel rank
 * computes and exchanges, for `routed` tokens per rank and micro-batch (tokens x top-k):
 * the capacity factor, the stated imbalance, or the expected maximum of ep binomial
 * loads; 1 without experts or expert parallelism. */
double plx_strategy_moe_load (const PlxStrategy *s,
                              double             routed);
/* The ranks that hold the same weights and reduce their gradients together: the
 * data-parallel ranks and, within each, the context-parallel ones, which compute
 * the same layers on other parts of the sequences (Megatron-Core's data-parallel
 * group "with context parallel"; torchtitan's FSDP mesh, dp_shard x cp). */
guint plx_strategy_get_grad_group_size (const PlxStrategy *strategy);
/* The ranks ZeRO shards over: shard_group_size data-parallel ranks, or all dp, each
 * with its context-parallel ranks (x cp). */
guint plx_strategy_get_shard_size (const PlxStrategy *strategy);
/* Whether the fp8 layers' weights are gathered in fp8: fp8_param_gather with AUTO
 * resolved; FALSE without fp8 or without ZeRO. */
gboolean plx_strategy_fp8_param_gather (const PlxStrategy *strategy);
/* reshard_after_forward with AUTO resolved; FALSE below ZeRO-3. */
gboolean plx_strategy_reshard_after_forward (const PlxStrategy *strategy);
/* Whether ZeRO-3 gathers each unit once per step and reduce-scatters its gradients
 * once, after the last micro-batch's backward, holding weights and gradients
 * unsharded in between: PyTorch code with pp > 1, as torch.distributed.pipelining
 * runs an FSDP stage (no resharding after backward and no gradient sync but for the
 * last micro-batch). */
gboolean plx_strategy_zero3_once_per_step (const PlxStrategy *strategy);

G_END_DECLS
