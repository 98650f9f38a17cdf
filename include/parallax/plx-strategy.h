/**
 * SECTION:plx-strategy
 * @title: plx-strategy.h
 * @short_description: how a run is split over the cluster
 *
 * How a run is split over the cluster (FORMATS.md §1, strategy).
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-types.h"

G_BEGIN_DECLS

/**
 * PlxWorkload:
 * @PLX_WORKLOAD_TRAINING: training steps, "training"
 * @PLX_WORKLOAD_INFERENCE: serving: prefill and decode (plx-inference.h), "inference"
 *
 * What the run does; the quoted names are the strategy key workload's values
 * (plx_workload_to_string()).
 */
typedef enum
{
  PLX_WORKLOAD_TRAINING,
  PLX_WORKLOAD_INFERENCE,
} PlxWorkload;

/**
 * PlxSchedule:
 * @PLX_SCHEDULE_GPIPE: GPipe, "gpipe"
 * @PLX_SCHEDULE_1F1B: 1F1B, "1f1b"
 * @PLX_SCHEDULE_INTERLEAVED_1F1B: Megatron's interleaved 1F1B, "interleaved-1f1b"
 * @PLX_SCHEDULE_ZERO_BUBBLE_H1: zero-bubble H1, "zero-bubble-h1"
 * @PLX_SCHEDULE_FILE: an order read from a schedule file (FORMATS.md §4), "file"
 *
 * The pipeline schedule (plx-schedule.h); the quoted names are the strategy key
 * schedule's values (plx_schedule_to_string()).
 */
typedef enum
{
  PLX_SCHEDULE_GPIPE,
  PLX_SCHEDULE_1F1B,
  PLX_SCHEDULE_INTERLEAVED_1F1B,
  PLX_SCHEDULE_ZERO_BUBBLE_H1,
  PLX_SCHEDULE_FILE,
} PlxSchedule;

/**
 * PlxRecompute:
 * @PLX_RECOMPUTE_NONE: activations kept, "none"
 * @PLX_RECOMPUTE_SELECTIVE: part recomputed in backward, as #PlxImplementation
 *   says, "selective"
 * @PLX_RECOMPUTE_FULL: each block recomputed in backward from its input, "full"
 * @PLX_RECOMPUTE_SAVE_DOTS_EXCEPT_MLP_INPUT: every matmul's output kept except the
 *   MLP's input projection (gate and up, or fc1); the rest of each block - its
 *   norms, element-wise ops, attention core and that projection - recomputed in
 *   backward (MaxText's remat_policy save_dot_except_mlpwi),
 *   "save-dots-except-mlp-input"
 *
 * Activation recomputation; the quoted names are the strategy key recompute's
 * values (plx_recompute_to_string()).
 */
typedef enum
{
  PLX_RECOMPUTE_NONE,
  PLX_RECOMPUTE_SELECTIVE,
  PLX_RECOMPUTE_FULL,
  PLX_RECOMPUTE_SAVE_DOTS_EXCEPT_MLP_INPUT,
} PlxRecompute;

/**
 * PlxImplementation:
 * @PLX_IMPLEMENTATION_AUTO: pytorch under ZeRO-3 (FSDP, DeepSpeed), megatron
 *   otherwise; "auto"
 * @PLX_IMPLEMENTATION_MEGATRON: Megatron-LM / NeMo: Transformer Engine's fused
 *   kernels; selective recompute = the attention core; "megatron"
 * @PLX_IMPLEMENTATION_PYTORCH: eager PyTorch modules (torchtitan, fms-fsdp, Hugging
 *   Face): one kernel per tensor op; selective = every other block; "pytorch"
 *   (also spelt "pytorch-eager")
 * @PLX_IMPLEMENTATION_DEEPSPEED: Megatron-DeepSpeed (BLOOM, MT-NLG): Megatron's
 *   kernels under DeepSpeed's engine - bf16 gradients accumulated into fp32 after
 *   every micro-batch, gradients reduced after the last backward pass
 *   (overlap_dp_comm defaults to false); "deepspeed"
 * @PLX_IMPLEMENTATION_JAX_XLA: JAX compiled by XLA (MaxText, Pax): XLA fuses the
 *   element-wise ops and norms into neighbouring kernels, so they cost as
 *   Transformer Engine's fused ones; FSDP is ZeRO-3's sharded gathers; selective
 *   recompute = the attention core, as megatron; "jax-xla"
 * @PLX_IMPLEMENTATION_PYTORCH_COMPILE: PyTorch modules under torch.compile: its
 *   compiler fuses the element-wise ops and norms (costed as fused, as jax-xla);
 *   everything else as pytorch (separate nn.Linear GEMMs, PyTorch's attention
 *   ceiling, FSDP's per-block overhead and copies, selective = every other block);
 *   "pytorch-compile"
 *
 * Which kind of training code runs the model (docs/cost-model.md, "Implementation"):
 * it decides how the memory-bound ops run and what "selective" recompute means. The
 * quoted names are the strategy key implementation's values
 * (plx_implementation_to_string()).
 */
typedef enum
{
  PLX_IMPLEMENTATION_AUTO,
  PLX_IMPLEMENTATION_MEGATRON,
  PLX_IMPLEMENTATION_PYTORCH,
  PLX_IMPLEMENTATION_DEEPSPEED,
  PLX_IMPLEMENTATION_JAX_XLA,
  PLX_IMPLEMENTATION_PYTORCH_COMPILE,
} PlxImplementation;

/**
 * PlxGradDtype:
 * @PLX_GRAD_DTYPE_AUTO: the training dtype's rule: fp32 gradients (Megatron's
 *   main_grad) under bf16 and fp8, 16-bit under fp16, fp32 under fp32; "auto"
 * @PLX_GRAD_DTYPE_FP32: fp32 gradient buffers, reduced in fp32 (Megatron-LM's
 *   --accumulate-allreduce-grads-in-fp32); "fp32"
 * @PLX_GRAD_DTYPE_BF16: 16-bit gradient buffers, reduced in 16 bits (NeMo's
 *   distributed_fused_adam with grad_sync_dtype bf16, Megatron-Core's DDP without
 *   grad_reduce_in_fp32); "bf16"
 *
 * The bytes each gradient takes in memory and in the data-parallel reduction
 * (docs/cost-model.md, "Memory"). The quoted names are the strategy key grad_dtype's
 * values.
 */
typedef enum
{
  PLX_GRAD_DTYPE_AUTO,
  PLX_GRAD_DTYPE_FP32,
  PLX_GRAD_DTYPE_BF16,
} PlxGradDtype;

/**
 * PlxCrossEntropyFusion:
 * @PLX_CROSS_ENTROPY_UNFUSED: the loss op by op on fp32 logits (Megatron-LM's
 *   vocabulary-parallel cross-entropy; PyTorch's F.cross_entropy eager); "none"
 * @PLX_CROSS_ENTROPY_NATIVE: Megatron-Core's --cross-entropy-loss-fusion with
 *   --cross-entropy-fusion-impl native: the same fp32 steps in three jit-fused
 *   kernels; "native"
 * @PLX_CROSS_ENTROPY_TE: --cross-entropy-fusion-impl te (Megatron-Bridge's
 *   cross_entropy_fusion_impl te): Transformer Engine's one-pass kernel on the 16-bit
 *   logits, which writes their gradient in place; "te"
 *
 * How the cross-entropy loss runs (docs/cost-model.md, "A step"). The quoted names
 * are the strategy key cross_entropy_fusion's values.
 */
typedef enum
{
  PLX_CROSS_ENTROPY_UNFUSED,
  PLX_CROSS_ENTROPY_NATIVE,
  PLX_CROSS_ENTROPY_TE,
} PlxCrossEntropyFusion;

/**
 * PlxMoeDispatcher:
 * @PLX_MOE_DISPATCHER_ALLTOALL: Megatron-Core's all-to-all token dispatcher: each
 *   routed row (a token for one of its top-k experts) goes to its expert's rank,
 *   pairwise over NVLink and the network; "alltoall"
 * @PLX_MOE_DISPATCHER_DEEPEP: DeepEP's dispatch and combine (Megatron-Core's flex
 *   dispatcher with --moe-enable-deepep): a token crosses the network once for each
 *   other node holding any of its experts, then is forwarded over NVLink to each GPU
 *   there that holds one; "deepep"
 *
 * How a mixture-of-experts layer exchanges its tokens (docs/cost-model.md). The quoted
 * names are the strategy key moe_dispatcher's values.
 */
typedef enum
{
  PLX_MOE_DISPATCHER_ALLTOALL,
  PLX_MOE_DISPATCHER_DEEPEP,
} PlxMoeDispatcher;

/**
 * PlxAttentionKernel:
 * @PLX_ATTENTION_KERNEL_AUTO: the implementation's own: PyTorch code runs
 *   scaled_dot_product_attention (FlashAttention-2), the others Transformer Engine's
 *   cuDNN kernel; "auto"
 * @PLX_ATTENTION_KERNEL_CUDNN: cuDNN fused attention as Transformer Engine calls it
 *   (FlashAttention-3's speed on H100), the cluster's `attention` efficiency;
 *   "cudnn"
 * @PLX_ATTENTION_KERNEL_FLASH_ATTENTION_2: the flash-attn 2 package or PyTorch's SDPA,
 *   the cluster's `attention_pytorch` efficiency; "flash-attention-2"
 * @PLX_ATTENTION_KERNEL_FLASH_ATTENTION_1: the flash-attn 1.x package, FlashAttention-2's
 *   speed over 2.26; "flash-attention-1"
 * @PLX_ATTENTION_KERNEL_TRITON: FlashAttention written in Triton before FlashAttention-2
 *   (flash_attn_triton.py, MosaicML's attn_impl triton), FlashAttention-2's speed
 *   over 1.8; "triton"
 *
 * Which fused attention kernel runs when #PlxStrategy.flash_attention is set
 * (docs/cost-model.md, "Time of one op"): its ceiling, as a fraction of the GPU's
 * peak, at long sequences. The older kernels' ratios are the geometric middles of
 * the ranges Dao 2023 (FlashAttention-2, §4.1) measured on A100: FlashAttention-2
 * 1.7-3.0x faster than FlashAttention, 1.3-2.5x faster than FlashAttention in
 * Triton. The quoted names are the strategy key attention_kernel's values
 * (plx_attention_kernel_to_string()).
 */
typedef enum
{
  PLX_ATTENTION_KERNEL_AUTO,
  PLX_ATTENTION_KERNEL_CUDNN,
  PLX_ATTENTION_KERNEL_FLASH_ATTENTION_2,
  PLX_ATTENTION_KERNEL_FLASH_ATTENTION_1,
  PLX_ATTENTION_KERNEL_TRITON,
} PlxAttentionKernel;

/**
 * PlxStrategy:
 * @workload: training or inference
 * @prompt_length: inference: tokens of each prompt (0 until resolved: 512)
 * @decode_tokens: inference: tokens generated for each (0 until resolved: 128)
 * @seq_length: 0 until resolved: the model's max positions
 * @global_batch_size: sequences per optimizer step; 0 = not given
 * @micro_batch_size: sequences per micro-batch
 * @dp: data-parallel degree; 0 until resolved: GPUs / (tp*pp*cp)
 * @tp: tensor-parallel degree
 * @pp: pipeline-parallel degree (stages)
 * @cp: context-parallel degree
 * @ep: expert-parallel degree
 * @moe_dispatcher: how expert layers exchange their tokens
 * @etp: expert tensor-parallel degree, each expert's weights split over that many
 *   ranks (Megatron-Core's --expert-tensor-parallel-size); 0 = the same as @tp, its
 *   default (plx_strategy_get_expert_tp())
 * @virtual_stages: model chunks per pipeline stage (interleaved 1F1B)
 * @sequence_parallel: the TP ranks split the replicated ops over the sequence
 * @schedule: the pipeline schedule
 * @schedule_path: %PLX_SCHEDULE_FILE only
 * @recompute: activation recomputation
 * @zero_stage: ZeRO stage, 0 to 3
 * @dtype: the training dtype
 * @overlap_dp_comm: data-parallel gradient reduction overlapped with backward
 * @overlap_tp_comm: TP collectives hidden under the next GEMM (Megatron's
 *   --tp-comm-overlap, Wang et al. 2023); default off
 * @flash_attention: fused attention core (FlashAttention)
 * @attention_kernel: which fused attention kernel (with @flash_attention)
 * @grad_dtype: the gradients' bytes in memory and in the reduction
 * @cross_entropy_fusion: how the loss runs
 * @pipeline_layout: (nullable): Megatron-LM's --pipeline-model-parallel-layout as
 *   given ("Et|(tt|)*30L"), from which @layers_per_stage and @virtual_stages were
 *   read; %NULL when the counts were given as such
 * @grad_bucket_bytes: gradient bucket size; %PLX_GRAD_BUCKET_AUTO: Megatron-LM's
 *   own size
 * @implementation: the kind of training code
 * @shard_group_size: hybrid sharding (PyTorch FSDP's HYBRID_SHARD, DeepSpeed's
 *   MiCS): ZeRO shards over groups of this many data-parallel ranks and replicates
 *   across the groups; 0 = over all of dp
 * @moe_capacity_factor: mixture of experts (docs/cost-model.md): each expert's
 *   buffer holds this many times its even share of the routed tokens and is
 *   computed and exchanged whole, tokens beyond it dropped (GShard, Switch
 *   Transformer); 0 = dropless (Megatron's default)
 * @moe_load_imbalance: dropless: the busiest expert-parallel rank's routed tokens
 *   over the mean, as a router log shows it; 0 = only what random routing gives
 *   (plx_strategy_moe_load())
 * @layers_per_stage: (array length=n_layers_per_stage) (nullable): layers per
 *   pipeline stage (per model chunk, pp*virtual_stages of them, with interleaving),
 *   as given; %NULL for an even split, or the balanced one when the layers do not
 *   divide evenly or @layers_per_stage_auto is set (plx-layer-split.h)
 * @n_layers_per_stage: the entries of @layers_per_stage
 * @layers_per_stage_auto: split the layers by the balanced split
 * @first_stage_layers: Megatron-LM's --decoder-first-pipeline-num-layers: the first
 *   stage's layers, the rest split evenly over the stages between; 0 = not given
 * @last_stage_layers: the same for the last stage
 *   (--decoder-last-pipeline-num-layers)
 * @fp8_param_gather: fp8 training: the sharded weights of the fp8 layers are cast to
 *   fp8 before they are all-gathered, at 1 byte a parameter (torchao's float8
 *   all-gather for FSDP2, torchtitan's enable_fsdp_float8_all_gather; Megatron-LM's
 *   --fp8-param-gather). %PLX_FP8_PARAM_GATHER_AUTO: on for PyTorch code under
 *   ZeRO-3 (torchtitan's fp8 recipes), off otherwise
 *   (plx_strategy_fp8_param_gather())
 * @reshard_after_forward: ZeRO-3: whether a unit's gathered weights are freed after
 *   its forward and gathered again for its backward (PyTorch FSDP's
 *   reshard_after_forward). %PLX_RESHARD_AUTO: yes, but for PyTorch code with
 *   pp > 1 (torchtitan's default policy; plx_strategy_reshard_after_forward())
 *
 * How a run is split over the cluster: the keys of a scenario's strategy object.
 */
typedef struct _PlxStrategy
{
  PlxWorkload  workload;
  guint64      prompt_length;
  guint64      decode_tokens;
  guint64      seq_length;
  guint64      global_batch_size;
  guint64      micro_batch_size;
  guint        dp;
  guint        tp;
  guint        pp;
  guint        cp;
  guint        ep;
  guint        virtual_stages;
  gboolean     sequence_parallel;
  PlxSchedule  schedule;
  char        *schedule_path;
  PlxRecompute recompute;
  guint        zero_stage;
  PlxDtype     dtype;
  gboolean     overlap_dp_comm;
  gboolean     overlap_tp_comm;
  gboolean     flash_attention;
  guint64      grad_bucket_bytes;
  PlxImplementation implementation;
  guint        shard_group_size;
  double       moe_capacity_factor;
  double       moe_load_imbalance;
  guint       *layers_per_stage;
  guint        n_layers_per_stage;
  gboolean     layers_per_stage_auto;
  guint        first_stage_layers;
  guint        last_stage_layers;
  gint         fp8_param_gather;
  gint         reshard_after_forward;
  PlxAttentionKernel attention_kernel;
  PlxGradDtype grad_dtype;
  char        *pipeline_layout;
  PlxCrossEntropyFusion cross_entropy_fusion;
  guint        etp;
  PlxMoeDispatcher moe_dispatcher;
} PlxStrategy;

/**
 * PLX_FP8_PARAM_GATHER_AUTO:
 *
 * #PlxStrategy.fp8_param_gather left to plx_strategy_fp8_param_gather().
 */
#define PLX_FP8_PARAM_GATHER_AUTO (-1)
/**
 * PLX_RESHARD_AUTO:
 *
 * #PlxStrategy.reshard_after_forward left to plx_strategy_reshard_after_forward().
 */
#define PLX_RESHARD_AUTO (-1)

/**
 * PLX_GRAD_BUCKET_AUTO:
 *
 * grad_bucket_bytes 0: Megatron-LM's own size (plx_strategy_get_grad_bucket_bytes()).
 */
#define PLX_GRAD_BUCKET_AUTO ((guint64) 0)

/**
 * PLX_STRATEGY_MAX_COUNT:
 *
 * The largest global batch, micro-batch and sequence length a strategy file may give
 * (2^30): what the reader accepts, and so the largest value advice may propose.
 */
#define PLX_STRATEGY_MAX_COUNT (G_GUINT64_CONSTANT (1) << 30)

/**
 * plx_strategy_new:
 *
 * Returns: (transfer full): a strategy of the defaults: training, micro-batch 1, all
 *   degrees 1 (dp 0, to be resolved), 1F1B, no recompute, bf16, data-parallel
 *   communication overlapped
 */
PlxStrategy *plx_strategy_new (void);
/**
 * plx_strategy_new_from_json:
 * @node: a scenario's strategy object
 * @source: the name of the file in errors
 * @error: return location for a #GError, or %NULL
 *
 * Reads a strategy, not resolved (plx_strategy_resolve()).
 *
 * Returns: (transfer full) (nullable): the strategy, or %NULL with @error set naming
 *   the file, key and value
 */
PlxStrategy *plx_strategy_new_from_json (JsonNode   *node,
                                         const char *source,
                                         GError    **error);
/**
 * plx_strategy_copy:
 * @strategy: a strategy
 *
 * Returns: (transfer full): an independent copy of @strategy
 */
PlxStrategy *plx_strategy_copy (const PlxStrategy *strategy);
/**
 * plx_strategy_free:
 * @strategy: (transfer full) (nullable): a strategy
 *
 * Frees @strategy.
 */
void         plx_strategy_free (PlxStrategy *strategy);

/**
 * plx_strategy_resolve:
 * @strategy: a strategy
 * @model: the model it runs
 * @cluster: the cluster it runs on
 * @source: the name of the file in errors
 * @error: return location for a #GError, or %NULL
 *
 * Fills the defaults that depend on the model and cluster (seq_length, dp) and
 * checks every rule of FORMATS.md.
 *
 * Returns: %TRUE on success; %FALSE with an error that names the keys and values
 *   involved
 */
gboolean     plx_strategy_resolve (PlxStrategy      *strategy,
                                   const PlxModel   *model,
                                   const PlxCluster *cluster,
                                   const char       *source,
                                   GError          **error);

/**
 * plx_strategy_get_n_micro_batches:
 * @strategy: a strategy
 *
 * Returns: the micro-batches of one step on each data-parallel rank:
 *   global_batch_size / (dp * micro_batch_size); 0 while dp or micro_batch_size is 0
 */
guint64      plx_strategy_get_n_micro_batches (const PlxStrategy *strategy);

/**
 * plx_strategy_describe:
 * @strategy: a strategy
 *
 * Returns: (transfer full): a short description for labels:
 *   "TP 8 · PP 8 · DP 1 · interleaved-1f1b x3 · selective"
 */
char        *plx_strategy_describe (const PlxStrategy *strategy);
/**
 * plx_schedule_to_string:
 * @schedule: a schedule
 *
 * Returns: (transfer none): its name in a strategy file, as in #PlxSchedule
 */
const char  *plx_schedule_to_string (PlxSchedule schedule);
/**
 * plx_recompute_to_string:
 * @recompute: a recompute mode
 *
 * Returns: (transfer none): its name in a strategy file, as in #PlxRecompute
 */
const char  *plx_recompute_to_string (PlxRecompute recompute);
/**
 * plx_workload_to_string:
 * @workload: a workload
 *
 * Returns: (transfer none): its name in a strategy file, as in #PlxWorkload
 */
const char  *plx_workload_to_string (PlxWorkload workload);

/**
 * plx_strategy_json_apply_changes:
 * @strategy: a scenario's strategy object, changed in place
 * @changes: the keys to set
 * @gpus_changed: a new cluster or node count
 *
 * Sets the keys of @changes into a scenario's strategy object (docs/formats.md §1)
 * with the rules of an override (parallax-cli's flags, the library's
 * set_strategy_*): new tp, pp or cp - or @gpus_changed, a new cluster or node count -
 * drop dp unless @changes has it; a new pp or virtual_stages drops per-stage layer
 * counts not given anew.
 */
void plx_strategy_json_apply_changes (JsonObject *strategy,
                                      JsonObject *changes,
                                      gboolean    gpus_changed);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxStrategy, plx_strategy_free)

/**
 * plx_strategy_get_grad_bucket_bytes:
 * @strategy: a resolved strategy
 *
 * Returns: the gradient bucket size in bytes: as given, or Megatron-LM's default of
 *   max(40M, 1M x dp x cp) gradient elements (4 bytes each, 2 under fp16)
 */
guint64 plx_strategy_get_grad_bucket_bytes (const PlxStrategy *strategy);

/**
 * plx_strategy_is_pytorch:
 * @strategy: a strategy
 *
 * Returns: whether the model runs as eager PyTorch modules
 *   (%PLX_IMPLEMENTATION_AUTO resolved by the ZeRO stage)
 */
gboolean    plx_strategy_is_pytorch (const PlxStrategy *strategy);
/**
 * plx_strategy_accumulates_fp32_copy:
 * @strategy: a strategy
 *
 * Returns: whether gradients are kept twice, 16-bit as the backward pass writes them
 *   and an fp32 copy they are added into after every micro-batch (DeepSpeed's
 *   BF16_Optimizer, which runs bf16 up to ZeRO-1)
 */
gboolean    plx_strategy_accumulates_fp32_copy (const PlxStrategy *strategy);
/**
 * plx_implementation_to_string:
 * @implementation: an implementation
 *
 * Returns: (transfer none): its name in a strategy file, as in #PlxImplementation
 */
const char *plx_implementation_to_string (PlxImplementation implementation);

/**
 * plx_attention_kernel_to_string:
 * @kernel: an attention kernel
 *
 * Returns: the kernel's name as the strategy key attention_kernel spells it
 */
const char *plx_attention_kernel_to_string (PlxAttentionKernel kernel);
/**
 * plx_strategy_to_json:
 * @strategy: a strategy
 *
 * Returns: (transfer full): the strategy as a "strategy" object of the scenario
 *   format, every key written as it stands (resolved: dp, seq_length, the bucket
 *   size), so that reading it back gives the same strategy
 */
JsonNode   *plx_strategy_to_json (const PlxStrategy *strategy);

/**
 * plx_strategy_moe_load:
 * @s: a resolved strategy
 * @routed: tokens per rank and micro-batch (tokens x top-k)
 *
 * Returns: how many times its even share of routed tokens the busiest
 *   expert-parallel rank computes and exchanges: the capacity factor, the stated
 *   imbalance, or the expected maximum of ep binomial loads; 1 without experts or
 *   expert parallelism
 */
double plx_strategy_moe_load (const PlxStrategy *s,
                              double             routed);
/**
 * plx_strategy_get_expert_tp:
 * @strategy: a strategy
 *
 * Returns: the expert tensor-parallel degree: @etp where given, else @tp
 */
guint plx_strategy_get_expert_tp (const PlxStrategy *strategy);
/**
 * plx_strategy_get_grad_group_size:
 * @strategy: a resolved strategy
 *
 * Returns: the ranks that hold the same weights and reduce their gradients together:
 *   the data-parallel ranks and, within each, the context-parallel ones, which
 *   compute the same layers on other parts of the sequences (Megatron-Core's
 *   data-parallel group "with context parallel"; torchtitan's FSDP mesh,
 *   dp_shard x cp)
 */
guint plx_strategy_get_grad_group_size (const PlxStrategy *strategy);
/**
 * plx_strategy_get_shard_size:
 * @strategy: a resolved strategy
 *
 * Returns: the ranks ZeRO shards over: shard_group_size data-parallel ranks, or all
 *   dp, each with its context-parallel ranks (x cp)
 */
guint plx_strategy_get_shard_size (const PlxStrategy *strategy);
/**
 * plx_strategy_fp8_param_gather:
 * @strategy: a strategy
 *
 * Returns: whether the fp8 layers' weights are gathered in fp8: fp8_param_gather
 *   with AUTO resolved; %FALSE without fp8 or without ZeRO
 */
gboolean plx_strategy_fp8_param_gather (const PlxStrategy *strategy);
/**
 * plx_strategy_reshard_after_forward:
 * @strategy: a strategy
 *
 * Returns: reshard_after_forward with AUTO resolved; %FALSE below ZeRO-3
 */
gboolean plx_strategy_reshard_after_forward (const PlxStrategy *strategy);
/**
 * plx_strategy_zero3_once_per_step:
 * @strategy: a strategy
 *
 * Returns: whether ZeRO-3 gathers each unit once per step and reduce-scatters its
 *   gradients once, after the last micro-batch's backward, holding weights and
 *   gradients unsharded in between: PyTorch code with pp > 1, as
 *   torch.distributed.pipelining runs an FSDP stage (no resharding after backward
 *   and no gradient sync but for the last micro-batch)
 */
gboolean plx_strategy_zero3_once_per_step (const PlxStrategy *strategy);
/**
 * plx_strategy_zero3_per_tensor:
 * @strategy: a strategy
 *
 * Returns: whether ZeRO-3 gathers and reduce-scatters one parameter tensor a call,
 *   each waited for, as DeepSpeed 2021 did: the deepspeed implementation at ZeRO-3
 *   (docs/cost-model.md)
 */
gboolean plx_strategy_zero3_per_tensor (const PlxStrategy *strategy);
/**
 * plx_strategy_expert_layout_fits:
 * @tp: tensor-parallel degree
 * @dp: data-parallel degree
 * @cp: context-parallel degree
 * @ep: expert-parallel degree
 * @etp: expert tensor-parallel degree; 0: the same as @tp
 *
 * Megatron-Core's expert layout re-divides a stage's @tp x @cp x @dp ranks into
 * expert TP x EP x expert DP: with expert TP equal to TP, EP must divide @dp x @cp;
 * with its own, @ep x @etp must divide @tp x @dp x @cp.
 *
 * Returns: whether the experts can be laid out so
 */
gboolean plx_strategy_expert_layout_fits (guint tp,
                                          guint dp,
                                          guint cp,
                                          guint ep,
                                          guint etp);

/**
 * SECTION:plx-schedule
 * @title: The order in which each pipeline stage runs its passes
 * @include: parallax/plx-strategy.h
 * @short_description: the order in which each pipeline stage runs its passes
 *
 * The order in which each pipeline stage runs its passes.
 */
/**
 * PlxPass:
 * @PLX_PASS_FORWARD: F
 * @PLX_PASS_BACKWARD: B: input gradients (and weight gradients unless split)
 * @PLX_PASS_WEIGHT_GRAD: W: weight gradients, when the schedule splits them off
 * @PLX_N_PASSES: the number of passes, not a pass
 *
 * What a stage runs of one micro-batch on one model chunk.
 */
typedef enum
{
  PLX_PASS_FORWARD,
  PLX_PASS_BACKWARD,
  PLX_PASS_WEIGHT_GRAD,
  PLX_N_PASSES
} PlxPass;

/**
 * PlxScheduleEntry:
 * @pass: a #PlxPass
 * @chunk: model chunk on this stage, 0 .. virtual_stages - 1
 * @micro_batch: the micro-batch, from 0
 *
 * One pass in a stage's order.
 */
typedef struct
{
  guint8  pass;
  guint16 chunk;
  guint32 micro_batch;
} PlxScheduleEntry;

/**
 * PlxScheduleOrder:
 * @pp: the pipeline stages
 * @virtual_stages: the model chunks on each stage
 * @micro_batches: the micro-batches of one step
 * @split_backward: W passes are separate entries
 * @stages: pp arrays of #PlxScheduleEntry, in execution order. %NULL in a built-in
 *   order until plx_schedule_order_get_stages() asks for them: the event engine
 *   computes a built-in schedule's entries instead (plx-schedule-cursor.h), so it
 *   never writes 16.8 MB of them for 8192 micro-batches on 128 stages. Read through
 *   the getter.
 * @generated: entries follow from @schedule and the shape
 * @schedule: when generated: GPipe, 1F1B or interleaved 1F1B
 *
 * The order in which each pipeline stage runs its passes.
 */
typedef struct
{
  guint     pp;
  guint     virtual_stages;
  guint64   micro_batches;
  gboolean  split_backward;
  GArray  **stages;
  gboolean  generated;
  PlxSchedule schedule;
} PlxScheduleOrder;

/**
 * plx_schedule_splits_backward:
 * @schedule: a schedule
 * @pp: the pipeline stages
 *
 * Returns: whether the schedule runs weight gradients as passes of their own (W):
 *   zero-bubble H1 on more than one stage
 */
gboolean plx_schedule_splits_backward (PlxSchedule schedule,
                                       guint       pp);

/**
 * plx_schedule_order_new:
 * @schedule: a built-in schedule, not %PLX_SCHEDULE_FILE
 * @pp: the pipeline stages, at least 1
 * @virtual_stages: the model chunks on each stage, at least 1; only interleaved
 *   1F1B uses more than one
 * @micro_batches: the micro-batches of one step, at least 1
 *
 * Makes the order of one of the built-in schedules: GPipe (Huang et al. 2019), 1F1B
 * (Narayanan et al. 2021 §2.2.1, PipeDream-Flush), Megatron's interleaved 1F1B
 * (§2.2.2) and zero-bubble H1 (Qi et al. 2023 §3.1). Not %PLX_SCHEDULE_FILE.
 *
 * Returns: (transfer full): the order
 */
PlxScheduleOrder *plx_schedule_order_new (PlxSchedule schedule,
                                          guint       pp,
                                          guint       virtual_stages,
                                          guint64     micro_batches);
/**
 * plx_schedule_order_load:
 * @path: a schedule file (FORMATS.md §4)
 * @pp: the pipeline stages the file must have
 * @virtual_stages: the model chunks on each stage
 * @micro_batches: the micro-batches of one step
 * @error: return location for a #GError, or %NULL
 *
 * Reads a schedule file, checked like any other order
 * (plx_schedule_order_check()).
 *
 * Returns: (transfer full) (nullable): the order, or %NULL with @error set
 */
PlxScheduleOrder *plx_schedule_order_load (const char *path,
                                           guint       pp,
                                           guint       virtual_stages,
                                           guint64     micro_batches,
                                           GError    **error);
/**
 * plx_schedule_order_check:
 * @order: an order
 * @source: the name of the order in errors
 * @error: return location for a #GError, or %NULL
 *
 * Checks that every stage runs each pass of each (micro-batch, chunk) exactly once
 * and the order can run to the end without deadlock.
 *
 * Returns: %TRUE if so; otherwise %FALSE with an error that names stage and entry
 */
gboolean          plx_schedule_order_check (const PlxScheduleOrder *order,
                                            const char             *source,
                                            GError                **error);
/**
 * plx_schedule_order_free:
 * @order: (transfer full) (nullable): an order
 *
 * Frees @order.
 */
void              plx_schedule_order_free (PlxScheduleOrder *order);
/**
 * plx_schedule_order_get_stages:
 * @order: an order
 *
 * Returns: (transfer none): the per-stage arrays (@order's pp of them), built on the
 *   first call for a built-in order (thread-safe)
 */
GArray          **plx_schedule_order_get_stages (const PlxScheduleOrder *order);
/**
 * plx_schedule_entry_to_string:
 * @entry: an entry
 *
 * Returns: (transfer full): "F3", "B0.1", "W2": pass letter, micro-batch, optional
 *   ".chunk" (none for chunk 0)
 */
char             *plx_schedule_entry_to_string (const PlxScheduleEntry *entry);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxScheduleOrder, plx_schedule_order_free)

G_END_DECLS
