/* plx-model.h: a transformer as lists of ops, independent of any parallel strategy.
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

typedef enum
{
  PLX_OP_MATMUL,      /* tokens x k times a k x n weight */
  PLX_OP_ATTN_SCORES, /* batched Q K^T: per head, s_q x head_dim times head_dim x s_kv */
  PLX_OP_ATTN_VALUES, /* batched P V: per head, s_q x s_kv times s_kv x head_dim */
  PLX_OP_ATTN_FLASH,  /* fused attention core (FlashAttention, Dao et al. 2022) */
  PLX_OP_ELEMENTWISE, /* memory-bound: norms, activations, dropout, residual, softmax */
  PLX_OP_EMBEDDING,   /* table lookup (forward) and scatter-add (backward) */
} PlxOpKind;

/* Which blocks of the model hold an op: all of them, or - in a model whose first
 * blocks have a dense MLP before the expert blocks (DeepSeek-V2/V3's
 * first_k_dense_replace) - only the dense or only the MoE ones. */
typedef enum
{
  PLX_OP_LAYERS_ALL,
  PLX_OP_LAYERS_DENSE,
  PLX_OP_LAYERS_MOE,
} PlxOpLayers;

/* How tensor parallelism (Megatron-LM, Shoeybi et al. 2019 §3) divides an op. */
typedef enum
{
  PLX_SPLIT_NONE, /* replicated on every TP rank */
  PLX_SPLIT_SEQ,  /* replicated, but split over TP ranks with sequence parallelism (Korthikanti 2022 §4.2.2) */
  PLX_SPLIT_TP,   /* always divided by the TP degree (heads, or a weight's row/column) */
} PlxSplit;

typedef struct
{
  const char *name;      /* static string: "qkv_proj", "softmax", ... */
  PlxOpKind   kind;
  PlxSplit    split;       /* how TP divides the work */
  PlxSplit    saved_split; /* how TP divides the saved activations (a column-parallel
                            * matmul keeps its replicated input: PLX_SPLIT_SEQ) */
  guint       per_score : 1; /* traffic and saved values are per score: x heads x key length */
  guint       attn_core : 1; /* recomputed by selective recompute, which then keeps none of
                              * its per-score activations (Korthikanti 2022 §5) */
  guint       row_parallel : 1; /* matmul split along k (input) rather than n (output) */
  guint       mlp_half : 1;     /* in the block's second half (MLP or experts), after the
                                 * attention half's residual add */
  guint       expert : 1;    /* MoE expert op: runs on top_k of the tokens, weights split by EP */
  guint       fp8 : 1;       /* a block's linear layer: fp8 training runs its GEMMs in fp8
                              * (Transformer Engine's te.Linear, torchao's Float8Linear);
                              * the LM head, router and attention core stay 16-bit */
  guint       layers : 2;    /* PlxOpLayers: which of the blocks have this op */
  /* Sliding-window attention (ATTN_FLASH): each query sees at most `window` keys in
   * `window_share` of the blocks (Mistral: all; Gemma 2: every other one); 0: none. */
  guint64     window;
  double      window_share;
  /* Matmul: the full (unsharded) weight is k x n. Attention ops: k = head_dim. */
  guint64 k;
  guint64 n;
  /* Parameters of the op, unsharded (weights, biases, norm gains). */
  guint64 params;
  /* Memory traffic of a memory-bound op, per token (per score if per_score):
   * elements of the compute dtype read+written, and 1-byte mask elements. */
  double fwd_elems;
  double bwd_elems;
  double fwd_mask;
  double bwd_mask;
  /* The same run as PyTorch eager modules, one kernel per tensor op (0: as fused). */
  double eager_fwd_elems;
  double eager_bwd_elems;
  /* Activations kept for the backward pass, per token (per score if per_score). */
  double saved_elems;
  double saved_mask;
  /* Float32 elements kept per token (the loss keeps fp32 softmax statistics). */
  double saved_fp32;
  /* A matmul that eager PyTorch runs as separate nn.Linear GEMMs over the same input
   * (Q, K and V; gate and up): eager_gemms of them, the first eager_first_n of the n
   * output columns wide, the rest sharing the remainder equally (0: one GEMM). */
  guint   eager_gemms;
  guint64 eager_first_n;
} PlxOp;

/* What tells the decoder families apart (plx-model-families.c). */
typedef struct
{
  gboolean generic;        /* built by the family builder */
  gboolean layernorm;      /* LayerNorm (2h parameters with bias; h without) vs RMSNorm */
  gboolean norm_bias;
  gboolean qkv_bias;
  gboolean out_bias;
  gboolean mlp_bias;
  gboolean gated;          /* SwiGLU/GeGLU: gate, up, down; else up, activation, down */
  gboolean parallel;       /* attention and MLP from the same input (GPT-NeoX, Falcon) */
  guint    block_norms;    /* norms per block: 2; 1 (Falcon 7B); 4 (Gemma 2) */
  gboolean qk_norm;        /* RMSNorm over each head's Q and K (Qwen3) */
  gboolean alibi;          /* ALiBi biases instead of rotary (BLOOM) */
  gboolean embedding_norm; /* LayerNorm after the embedding (BLOOM) */
  guint64  shared_ffn;     /* MoE: the shared expert's width, 0 if none */
  gboolean shared_gate;    /* ... scaled by a sigmoid gate (Qwen2-MoE: h x 1) */
  guint64  position_offset; /* learned position rows beyond max positions (OPT: 2) */
  guint64  embed_dim;      /* OPT's word_embed_proj_dim when not the hidden size */
  /* DeepSeek-V2/V3 (DeepSeek-AI 2024, arXiv 2405.04434 §2.1-2.2; arXiv 2412.19437 §2.1) */
  guint    dense_layers;   /* the first blocks have a dense MLP instead of experts */
  guint64  dense_ffn;      /* ... this wide */
  guint64  q_lora_rank;    /* MLA: queries through a down-projection of this rank (0: direct) */
  guint64  kv_lora_rank;   /* MLA: keys and values from a latent of this rank; 0: no MLA */
  guint64  rope_head_dim;  /* MLA: the rotary part of each query and key head */
  guint64  v_head_dim;     /* value head width when not head_dim (MLA) */
  guint64  router_bias;    /* router parameters besides its weight (V3's correction bias) */
  /* Sliding-window attention (Mistral 7B, Jiang et al. 2023 §2; Gemma 2, 2024 §2:
   * every other block) and Gemma 2's tanh soft-capping of logits. */
  guint64  sliding_window; /* keys a query sees at most; 0: all */
  double   sliding_share;  /* ... in this share of the blocks */
  double   attn_softcap;   /* cap of the attention scores; 0: none */
  double   final_softcap;  /* cap of the output logits; 0: none */
} PlxModelArch;

typedef struct _PlxModel
{
  char   *name;
  char   *model_type;   /* "gpt2", "llama", "mistral", "qwen2", "mixtral" */
  guint   n_layers;
  guint64 hidden;
  guint   heads;
  guint   kv_heads;
  guint64 head_dim;
  guint64 ffn;
  guint64 vocab;
  guint64 max_positions;
  guint   experts;            /* 0 for a dense model */
  guint   experts_per_token;
  gboolean tied_embeddings;
  gboolean dropout;           /* GPT-2/Megatron train with dropout; Llama does not */
  gboolean learned_positions; /* absolute position table (GPT-2) vs rotary */
  /* The architecture of the families built by plx-model-families.c (all FALSE/0
   * for gpt2 and the Llama family, whose builders predate them). */
  PlxModelArch arch;

  PlxOp *pre_ops;   guint n_pre_ops;   /* before the first block: embedding */
  PlxOp *layer_ops; guint n_layer_ops; /* one transformer block */
  PlxOp *post_ops;  guint n_post_ops;  /* after the last block: norm, LM head, loss */
} PlxModel;

PlxModel   *plx_model_new_from_json (JsonNode    *config,
                                     const char  *source,
                                     GError     **error);
PlxModel   *plx_model_new_preset (const char *name,
                                  GError    **error);
PlxModel   *plx_model_copy (const PlxModel *model);
void        plx_model_free (PlxModel *model);

/* How many of the model's blocks hold `op` (PlxOp.layers); the blocks of a kind,
 * in number and as a share of all. */
guint       plx_model_op_layers (const PlxModel *model,
                                 const PlxOp    *op);
guint       plx_model_layers_holding (const PlxModel *model,
                                      PlxOpLayers     which);
double      plx_model_layers_share (const PlxModel *model,
                                    PlxOpLayers     which);
/* Unique parameters (tied embeddings counted once). */
guint64     plx_model_get_n_params (const PlxModel *model);
/* A parameter count as people say it, with three significant digits in the unit
 * that fits: "125 M", "6.74 B", "175 B", "1.01 T" (k below a million). */
char       *plx_model_format_params (guint64 n);
/* Parameters used per token (MoE: only top_k experts count). */
guint64     plx_model_get_n_active_params (const PlxModel *model);
/* Forward matmul FLOPs of one sequence of seq_length tokens, whole model. */
double      plx_model_get_forward_flops (const PlxModel *model,
                                         guint64         seq_length);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxModel, plx_model_free)

G_END_DECLS
