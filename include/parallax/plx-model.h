/**
 * SECTION:plx-model
 * @title: plx-model.h
 * @short_description: a transformer as lists of ops, independent of any parallel strategy
 *
 * A transformer as lists of ops, independent of any parallel strategy.
 *
 * Every transformer block of a model is the same, so a model is one block's op list
 * (applied n_layers times) plus the ops before the first block (embedding) and after
 * the last (final norm, LM head, loss). Each op states its work per token in a form
 * that a shard context (micro-batch, sequence, tensor/sequence/context/expert
 * parallel degrees, dtype) turns into FLOPs, bytes, parameters and saved activations:
 * see plx-op-cost.h.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * PlxOpKind:
 * @PLX_OP_MATMUL: tokens x k times a k x n weight
 * @PLX_OP_ATTN_SCORES: batched Q K^T: per head, s_q x head_dim times head_dim x s_kv
 * @PLX_OP_ATTN_VALUES: batched P V: per head, s_q x s_kv times s_kv x head_dim
 * @PLX_OP_ATTN_FLASH: fused attention core (FlashAttention, Dao et al. 2022)
 * @PLX_OP_ELEMENTWISE: memory-bound: norms, activations, dropout, residual, softmax
 * @PLX_OP_EMBEDDING: table lookup (forward) and scatter-add (backward)
 * @PLX_OP_SSM_SCAN: a state-space scan (Mamba-2's chunked SSD, Dao and Gu 2024 §6):
 *   k x n multiply-adds a token, matmul-like work without weights
 *
 * What an op computes, which decides how it is costed.
 */
typedef enum
{
  PLX_OP_MATMUL,
  PLX_OP_ATTN_SCORES,
  PLX_OP_ATTN_VALUES,
  PLX_OP_ATTN_FLASH,
  PLX_OP_ELEMENTWISE,
  PLX_OP_EMBEDDING,
  PLX_OP_SSM_SCAN,
} PlxOpKind;

/**
 * PlxOpLayers:
 * @PLX_OP_LAYERS_ALL: every block
 * @PLX_OP_LAYERS_DENSE: only the blocks with a dense MLP
 * @PLX_OP_LAYERS_MOE: only the MoE blocks
 *
 * Which blocks of the model hold an op: all of them, or - in a model whose first
 * blocks have a dense MLP before the expert blocks (DeepSeek-V2/V3's
 * first_k_dense_replace) - only the dense or only the MoE ones.
 */
typedef enum
{
  PLX_OP_LAYERS_ALL,
  PLX_OP_LAYERS_DENSE,
  PLX_OP_LAYERS_MOE,
} PlxOpLayers;

/**
 * PlxSplit:
 * @PLX_SPLIT_NONE: replicated on every TP rank
 * @PLX_SPLIT_SEQ: replicated, but split over TP ranks with sequence parallelism
 *   (Korthikanti 2022 §4.2.2)
 * @PLX_SPLIT_TP: always divided by the TP degree (heads, or a weight's row/column)
 *
 * How tensor parallelism (Megatron-LM, Shoeybi et al. 2019 §3) divides an op.
 */
typedef enum
{
  PLX_SPLIT_NONE,
  PLX_SPLIT_SEQ,
  PLX_SPLIT_TP,
} PlxSplit;

/**
 * PlxOp:
 * @name: static string: "qkv_proj", "softmax", ...
 * @kind: what the op computes
 * @split: how TP divides the work
 * @saved_split: how TP divides the saved activations (a column-parallel matmul keeps
 *   its replicated input: %PLX_SPLIT_SEQ)
 * @per_score: traffic and saved values are per score: x heads x key length
 * @attn_core: recomputed by selective recompute, which then keeps none of its
 *   per-score activations (Korthikanti 2022 §5)
 * @row_parallel: matmul split along k (input) rather than n (output)
 * @mlp_half: in the block's second half (MLP or experts), after the attention half's
 *   residual add
 * @mlp_input: the MLP's input projection (gate and up, or fc1, of a dense, shared or
 *   expert MLP): the one matmul whose output recompute
 *   %PLX_RECOMPUTE_SAVE_DOTS_EXCEPT_MLP_INPUT does not keep (MaxText's "mlpwi")
 * @expert: MoE expert op: runs on top_k of the tokens, weights split by EP
 * @loss: the cross-entropy loss, whose traffic the strategy's cross_entropy_fusion
 *   may replace (plx-op-cost.c)
 * @fp8: a block's linear layer: fp8 training runs its GEMMs in fp8 (Transformer
 *   Engine's te.Linear, torchao's Float8Linear); the LM head, router and attention
 *   core stay 16-bit
 * @layers: a #PlxOpLayers: which of the blocks have this op
 * @window: sliding-window attention (ATTN_FLASH): each query sees at most @window
 *   keys in @window_share of the blocks (Mistral: all; Gemma 2: every other one);
 *   0: none
 * @window_share: see @window
 * @k: matmul: the full (unsharded) weight is k x n. Attention ops: k = head_dim.
 * @n: see @k. The loss (@loss): its logits per token, the vocabulary (k is 0)
 * @params: parameters of the op, unsharded (weights, biases, norm gains)
 * @param_tensors: the tensors @params are stored in (a weight and its bias: 2; a
 *   LayerNorm's gain and bias: 2); 0 reads as 1 where @params is not 0
 * @fwd_elems: memory traffic of a memory-bound op in forward, per token (per score
 *   if @per_score): elements of the compute dtype read+written
 * @bwd_elems: the same in backward
 * @fwd_mask: 1-byte mask elements read+written in forward, per token (per score if
 *   @per_score)
 * @bwd_mask: the same in backward
 * @eager_fwd_elems: @fwd_elems when run as PyTorch eager modules, one kernel per
 *   tensor op (0: as fused)
 * @eager_bwd_elems: the same for @bwd_elems
 * @saved_elems: activations kept for the backward pass, per token (per score if
 *   @per_score)
 * @saved_mask: 1-byte mask elements kept for the backward pass, the same way
 * @saved_fp32: float32 elements kept per token (the loss keeps fp32 softmax
 *   statistics)
 * @eager_gemms: a matmul that eager PyTorch runs as separate nn.Linear GEMMs over the
 *   same input (Q, K and V; gate and up): eager_gemms of them, the first
 *   @eager_first_n of the n output columns wide, the rest sharing the remainder
 *   equally (0: one GEMM)
 * @eager_first_n: see @eager_gemms
 *
 * One op of a model: its work per token, in a form that a shard context turns into
 * FLOPs, bytes, parameters and saved activations (plx-op-cost.h).
 */
typedef struct
{
  const char *name;
  PlxOpKind   kind;
  PlxSplit    split;
  PlxSplit    saved_split;
  guint       per_score : 1;
  guint       attn_core : 1;
  guint       row_parallel : 1;
  guint       mlp_half : 1;
  guint       mlp_input : 1;
  guint       expert : 1;
  guint       loss : 1;
  guint       fp8 : 1;
  guint       layers : 2;
  guint       param_tensors : 3;
  guint64     window;
  double      window_share;
  guint64 k;
  guint64 n;
  guint64 params;
  double fwd_elems;
  double bwd_elems;
  double fwd_mask;
  double bwd_mask;
  double eager_fwd_elems;
  double eager_bwd_elems;
  double saved_elems;
  double saved_mask;
  double saved_fp32;
  guint   eager_gemms;
  guint64 eager_first_n;
} PlxOp;

/**
 * PlxModelArch:
 * @generic: built by the family builder
 * @layernorm: LayerNorm (2h parameters with bias; h without) vs RMSNorm
 * @norm_bias: the norms have a bias
 * @qkv_bias: the Q, K and V projections have biases
 * @out_bias: the attention output projection has a bias
 * @mlp_bias: the MLP's linear layers have biases
 * @gated: SwiGLU/GeGLU: gate, up, down; else up, activation, down
 * @parallel: attention and MLP from the same input (GPT-NeoX, Falcon)
 * @block_norms: norms per block: 2; 1 (Falcon 7B); 4 (Gemma 2)
 * @qk_norm: RMSNorm over each head's Q and K (Qwen3)
 * @alibi: ALiBi biases instead of rotary (BLOOM)
 * @embedding_norm: LayerNorm after the embedding (BLOOM)
 * @shared_ffn: MoE: the shared expert's width, 0 if none
 * @shared_gate: ... scaled by a sigmoid gate (Qwen2-MoE: h x 1)
 * @position_offset: learned position rows beyond max positions (OPT: 2)
 * @embed_dim: OPT's word_embed_proj_dim when not the hidden size
 * @dense_layers: DeepSeek-V2/V3: the first blocks have a dense MLP instead of experts
 * @dense_ffn: ... this wide
 * @q_lora_rank: MLA: queries through a down-projection of this rank (0: direct)
 * @kv_lora_rank: MLA: keys and values from a latent of this rank; 0: no MLA
 * @rope_head_dim: MLA: the rotary part of each query and key head
 * @v_head_dim: value head width when not head_dim (MLA)
 * @router_bias: router parameters besides its weight (V3's correction bias)
 * @sliding_window: sliding-window attention: keys a query sees at most; 0: all
 * @sliding_share: ... in this share of the blocks
 * @attn_softcap: cap of the attention scores; 0: none
 * @final_softcap: cap of the output logits; 0: none
 * @qk_norm_full: the Q and K norms have a gain per channel of every head (OLMo 2,
 *   Cohere, StableLM: heads x head_dim), not one shared by the heads (Qwen3)
 * @lm_head_bias: the LM head has a bias (Phi-2, GPT-J, CodeGen)
 * @expert_bias: the experts' linear layers have biases (gpt-oss)
 * @attn_sinks: a learned sink logit per attention head (gpt-oss)
 * @ssm_version: a state-space model's blocks: 0 none (attention), 1 Mamba (Gu and
 *   Dao 2023), 2 Mamba-2 (Dao and Gu 2024)
 * @ssm_inner: the mixer's inner width (expand x hidden)
 * @ssm_state: the state size per channel (N, state_size)
 * @ssm_heads: Mamba-2's heads (num_heads); the inner width is heads x head_dim
 * @ssm_groups: Mamba-2's groups sharing B and C (n_groups)
 * @ssm_conv: the causal convolution's taps (conv_kernel)
 * @ssm_chunk: Mamba-2's chunk length (chunk_size)
 * @ssm_dt_rank: Mamba's time-step projection rank (time_step_rank)
 *
 * What tells the decoder families apart (plx-model-families.c). DeepSeek-V2/V3:
 * DeepSeek-AI 2024, arXiv 2405.04434 §2.1-2.2; arXiv 2412.19437 §2.1. Sliding-window
 * attention: Mistral 7B, Jiang et al. 2023 §2; Gemma 2, 2024 §2: every other block;
 * and Gemma 2's tanh soft-capping of logits.
 */
typedef struct
{
  gboolean generic;
  gboolean layernorm;
  gboolean norm_bias;
  gboolean qkv_bias;
  gboolean out_bias;
  gboolean mlp_bias;
  gboolean gated;
  gboolean parallel;
  guint    block_norms;
  gboolean qk_norm;
  gboolean alibi;
  gboolean embedding_norm;
  guint64  shared_ffn;
  gboolean shared_gate;
  guint64  position_offset;
  guint64  embed_dim;
  guint    dense_layers;
  guint64  dense_ffn;
  guint64  q_lora_rank;
  guint64  kv_lora_rank;
  guint64  rope_head_dim;
  guint64  v_head_dim;
  guint64  router_bias;
  guint64  sliding_window;
  double   sliding_share;
  double   attn_softcap;
  double   final_softcap;
  gboolean qk_norm_full;
  gboolean lm_head_bias;
  gboolean expert_bias;
  gboolean attn_sinks;
  guint    ssm_version;
  guint64  ssm_inner;
  guint64  ssm_state;
  guint64  ssm_heads;
  guint64  ssm_groups;
  guint64  ssm_conv;
  guint64  ssm_chunk;
  guint64  ssm_dt_rank;
} PlxModelArch;

/**
 * PlxModel:
 * @name: the model's name
 * @model_type: "gpt2", "llama", "mistral", "qwen2", "mixtral", ...
 * @n_layers: transformer blocks
 * @hidden: hidden size
 * @heads: attention heads
 * @kv_heads: key and value heads (fewer than @heads with grouped-query attention)
 * @head_dim: each head's width
 * @ffn: the MLP's (or each expert's) inner width
 * @vocab: vocabulary size
 * @max_positions: the longest sequence the model takes
 * @experts: 0 for a dense model
 * @experts_per_token: the experts each token is routed to (top_k)
 * @tied_embeddings: the LM head shares the embedding table
 * @dropout: GPT-2/Megatron train with dropout; Llama does not
 * @learned_positions: absolute position table (GPT-2) vs rotary
 * @arch: the architecture of the families built by plx-model-families.c (all
 *   FALSE/0 for gpt2 and the Llama family, whose builders predate them)
 * @pre_ops: (array length=n_pre_ops): before the first block: embedding
 * @n_pre_ops: the entries of @pre_ops
 * @layer_ops: (array length=n_layer_ops): one transformer block
 * @n_layer_ops: the entries of @layer_ops
 * @post_ops: (array length=n_post_ops): after the last block: norm, LM head, loss
 * @n_post_ops: the entries of @post_ops
 * @assumed: (nullable): the keys the config left out that were given Hugging Face
 *   transformers' defaults for its model type, with their values
 *   ("vocab_size 256000"), or %NULL
 * @checkpoint_params: the parameters the checkpoint beside the config holds, by its
 *   model.safetensors.index.json (total size over the bytes of its dtype); 0: unknown
 *
 * A transformer as lists of ops.
 */
typedef struct _PlxModel
{
  char   *name;
  char   *model_type;
  guint   n_layers;
  guint64 hidden;
  guint   heads;
  guint   kv_heads;
  guint64 head_dim;
  guint64 ffn;
  guint64 vocab;
  guint64 max_positions;
  guint   experts;
  guint   experts_per_token;
  gboolean tied_embeddings;
  gboolean dropout;
  gboolean learned_positions;
  PlxModelArch arch;

  PlxOp *pre_ops;   guint n_pre_ops;
  PlxOp *layer_ops; guint n_layer_ops;
  PlxOp *post_ops;  guint n_post_ops;
  char  *assumed;
  double checkpoint_params;
} PlxModel;

/**
 * plx_model_new_from_json:
 * @config: a model object: a Hugging Face config (model_type, or architectures
 *   naming the class), or a "preset" and keys over it
 * @source: the name of the file in errors
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full) (nullable): the model, or %NULL with @error set naming
 *   the file, key and value
 */
PlxModel   *plx_model_new_from_json (JsonNode    *config,
                                     const char  *source,
                                     GError     **error);
/**
 * plx_model_new_preset:
 * @name: a model preset's name
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full) (nullable): the preset's model, or %NULL with @error set
 *   (%PLX_ERROR_NOT_FOUND for an unknown preset)
 */
PlxModel   *plx_model_new_preset (const char *name,
                                  GError    **error);
/**
 * plx_model_copy:
 * @model: a model
 *
 * Returns: (transfer full): an independent copy of @model
 */
PlxModel   *plx_model_copy (const PlxModel *model);
/**
 * plx_model_free:
 * @model: (transfer full) (nullable): a model
 *
 * Frees @model.
 */
void        plx_model_free (PlxModel *model);

/**
 * plx_model_op_layers:
 * @model: a model
 * @op: one of its block's ops
 *
 * Returns: how many of the model's blocks hold @op (#PlxOp.layers)
 */
guint       plx_model_op_layers (const PlxModel *model,
                                 const PlxOp    *op);
/**
 * plx_model_layers_holding:
 * @model: a model
 * @which: a kind of block
 *
 * Returns: the number of blocks of that kind
 */
guint       plx_model_layers_holding (const PlxModel *model,
                                      PlxOpLayers     which);
/**
 * plx_model_layers_share:
 * @model: a model
 * @which: a kind of block
 *
 * Returns: the blocks of that kind as a share of all
 */
double      plx_model_layers_share (const PlxModel *model,
                                    PlxOpLayers     which);
/**
 * plx_model_get_n_params:
 * @model: a model
 *
 * Returns: unique parameters (tied embeddings counted once)
 */
guint64     plx_model_get_n_params (const PlxModel *model);
/**
 * plx_model_ssm_state_elems:
 * @model: a model
 *
 * Returns: the elements of the recurrent state one sequence keeps in one block of a
 *   state-space model when it generates (what stands for the KV cache): Mamba-2's
 *   heads x head_dim x state_size plus the convolution's window over its
 *   conv_kernel taps of inner + 2 x groups x state_size channels; Mamba's inner x
 *   state_size plus conv_kernel x inner; 0 for an attention model
 */
guint64     plx_model_ssm_state_elems (const PlxModel *model);
/**
 * plx_model_describe_blocks:
 * @model: a model
 *
 * Returns: (transfer full): the model's blocks as people describe them, translated:
 *   "61 blocks: 3 dense, 58 with 256 experts (top 8, 1 shared); latent attention",
 *   "26 blocks: 13 with a sliding window of 4096 tokens, 13 global", "96 blocks, all
 *   alike"
 */
char       *plx_model_describe_blocks (const PlxModel *model);
/**
 * plx_model_format_params:
 * @n: a parameter count
 *
 * Returns: (transfer full): the count as people say it, with three significant
 *   digits in the unit that fits: "125 M", "6.74 B", "175 B", "1.01 T" (k below a
 *   million)
 */
char       *plx_model_format_params (guint64 n);
/**
 * plx_model_get_n_active_params:
 * @model: a model
 *
 * Returns: parameters used per token (MoE: only top_k experts count)
 */
guint64     plx_model_get_n_active_params (const PlxModel *model);
/**
 * plx_model_get_forward_flops:
 * @model: a model
 * @seq_length: tokens in the sequence
 *
 * Returns: forward matmul FLOPs of one sequence of @seq_length tokens, whole model
 */
double      plx_model_get_forward_flops (const PlxModel *model,
                                         guint64         seq_length);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxModel, plx_model_free)

G_END_DECLS
