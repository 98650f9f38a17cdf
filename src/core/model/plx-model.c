/* Transformer builders. Each op's saved activations follow Korthikanti et al. 2022,
 * "Reducing Activation Recomputation in Large Transformer Models", §4.1: per layer
 * sbh(34 + 5as/h) bytes in 16-bit precision, itemised there op by op; Table 2 gives
 * how tensor and sequence parallelism divide each item, which is what `split` and
 * `saved_split` encode. Llama-style blocks replace LayerNorm with RMSNorm, the GELU
 * MLP with SwiGLU (Shazeer 2020) and learned positions with rotary embeddings, and
 * train without dropout (Touvron et al. 2023). */
#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "parallax/plx-model.h"
#include "base/plx-presets.h"

typedef struct
{
  GArray *pre;
  GArray *layer;
  GArray *post;
} OpLists;

static PlxOp *
add_op (GArray     *ops,
        const char *name,
        PlxOpKind   kind,
        PlxSplit    split,
        PlxSplit    saved_split)
{
  PlxOp op = { 0 };

  op.name = name;
  op.kind = kind;
  op.split = split;
  op.saved_split = saved_split;
  g_array_append_val (ops, op);
  return &g_array_index (ops, PlxOp, ops->len - 1);
}

/* A memory-bound op: fwd/bwd elements read+written per token, saved elements. */
static PlxOp *
add_elementwise (GArray     *ops,
                 const char *name,
                 PlxSplit    split,
                 double      fwd_elems,
                 double      bwd_elems,
                 double      saved_elems)
{
  PlxOp *op = add_op (ops, name, PLX_OP_ELEMENTWISE, split, split);

  op->fwd_elems = fwd_elems;
  op->bwd_elems = bwd_elems;
  op->saved_elems = saved_elems;
  return op;
}

/* A linear layer: Megatron's column-parallel layer keeps its (replicated, or with
 * sequence parallelism sequence-split) input; the row-parallel one keeps its
 * TP-split input (Shoeybi et al. 2019 §3, Korthikanti 2022 Table 2). */
static PlxOp *
add_matmul (GArray     *ops,
            const char *name,
            guint64     k,
            guint64     n,
            gboolean    row_parallel,
            gboolean    bias)
{
  PlxOp *op = add_op (ops, name, PLX_OP_MATMUL, PLX_SPLIT_TP,
                      row_parallel ? PLX_SPLIT_TP : PLX_SPLIT_SEQ);

  op->k = k;
  op->n = n;
  op->row_parallel = row_parallel;
  op->fp8 = TRUE;
  op->params = k * n + (bias ? n : 0);
  op->param_tensors = bias ? 2 : 1;
  op->saved_elems = (double) k;
  return op;
}

static void
add_norm (GArray     *ops,
          const char *name,
          guint64     h,
          gboolean    layernorm)
{
  /* Reads x, writes y; backward reads x and dy, writes dx. Keeps its input (2sbh). */
  PlxOp *op = add_elementwise (ops, name, PLX_SPLIT_SEQ, 2.0 * h, 3.0 * h, (double) h);
  op->params = layernorm ? 2 * h : h;
  op->param_tensors = layernorm ? 2 : 1;
  if (!layernorm)
    {
      /* RMSNorm written in PyTorch (Llama's reference code, torchtitan, Hugging Face):
       * x.float() (read 2 write 4 bytes), pow (4 + 4), mean (4), x * rsqrt (4 + 4),
       * .type_as (4 + 2), * weight (2 + 2): 36 bytes, 18 16-bit elements per value
       * against the fused kernel's 2. Backward through the same ops: about 30.
       * (F.layer_norm is one native kernel, eager or not.) */
      op->eager_fwd_elems = 18.0 * h;
      op->eager_bwd_elems = 30.0 * h;
    }
}

static void
add_attention (GArray         *ops,
               const PlxModel *m)
{
  /* MLA's values are narrower than its query/key heads (v_head_dim). */
  const guint64 v_dim = m->arch.v_head_dim > 0 ? m->arch.v_head_dim : m->head_dim;
  const double q = (double) (m->heads * m->head_dim);
  const double qkv = q + (double) m->kv_heads * (m->head_dim + v_dim);
  PlxOp *op;

  /* Unfused Megatron attention core: Q K^T (keeps Q, K and V: 4sbh + 2sbh with full
   * heads), scaled masked softmax (keeps its output, 2as^2b), dropout (mask, as^2b),
   * P V (keeps the dropout output, 2as^2b). Korthikanti 2022 §4.1. */
  op = add_op (ops, "attn_scores", PLX_OP_ATTN_SCORES, PLX_SPLIT_TP, PLX_SPLIT_TP);
  op->attn_core = TRUE;
  op->k = m->head_dim;
  op->saved_elems = qkv;

  if (m->arch.attn_softcap > 0.0)
    {
      /* Gemma 2: scores = cap * tanh(scores / cap), per score: read and write; the
       * backward reads the kept tanh and the gradient. Eager: divide, tanh and
       * multiply as three kernels. */
      op = add_elementwise (ops, "attn_softcap", PLX_SPLIT_TP, 2.0, 3.0, 1.0);
      op->per_score = TRUE;
      op->attn_core = TRUE;
      op->eager_fwd_elems = 6.0;
      op->eager_bwd_elems = 9.0;
    }
  op = add_elementwise (ops, "softmax", PLX_SPLIT_TP, 2.0, 3.0, 1.0);
  op->per_score = TRUE;
  op->attn_core = TRUE;

  if (m->dropout)
    {
      op = add_elementwise (ops, "attn_dropout", PLX_SPLIT_TP, 2.0, 2.0, 0.0);
      op->per_score = TRUE;
      op->attn_core = TRUE;
      op->fwd_mask = 1.0;
      op->bwd_mask = 1.0;
      op->saved_mask = 1.0;
    }

  op = add_op (ops, "attn_values", PLX_OP_ATTN_VALUES, PLX_SPLIT_TP, PLX_SPLIT_TP);
  op->attn_core = TRUE;
  op->per_score = TRUE;
  op->k = v_dim;
  /* Without dropout P V reads the softmax output, which softmax already keeps. */
  op->saved_elems = m->dropout ? 1.0 : 0.0;

  /* FlashAttention (Dao et al. 2022 §3.1) keeps Q, K, V and the fp32 log-sum-exp per
   * head, and recomputes the scores in its backward pass. */
  op = add_op (ops, "flash_attention", PLX_OP_ATTN_FLASH, PLX_SPLIT_TP, PLX_SPLIT_TP);
  op->k = (m->head_dim + v_dim) / 2;   /* Q K^T at head_dim, P V at v_dim */
  op->saved_elems = qkv;
  /* Only a fused kernel skips the key tiles outside the window; the unfused ops
   * above compute every score and mask them. Soft-capping runs inside it. */
  op->window = m->arch.sliding_window;
  op->window_share = m->arch.sliding_share;
  op->saved_fp32 = (double) m->heads;
}

static void
add_residual (GArray  *ops,
              guint64  h,
              gboolean dropout,
              const char *name)
{
  PlxOp *op;

  if (dropout)
    {
      /* Megatron's fused bias-dropout-add: reads x and the residual, writes the sum
       * and a 1-byte mask (kept: sbh). */
      op = add_elementwise (ops, name, PLX_SPLIT_SEQ, 3.0 * h, 2.0 * h, 0.0);
      op->fwd_mask = (double) h;
      op->bwd_mask = (double) h;
      op->saved_mask = (double) h;
    }
  else
    {
      /* A plain add: its gradient passes through without a kernel. */
      add_elementwise (ops, name, PLX_SPLIT_SEQ, 3.0 * h, 0.0, 0.0);
    }
}

static void
build_gpt2_block (GArray         *ops,
                  const PlxModel *m)
{
  const guint64 h = m->hidden;
  const guint64 q = (guint64) m->heads * m->head_dim;
  const guint64 kv = (guint64) m->kv_heads * m->head_dim;
  PlxOp *op;

  add_norm (ops, "ln_1", h, TRUE);
  add_matmul (ops, "qkv_proj", h, q + 2 * kv, FALSE, TRUE);
  add_attention (ops, m);
  add_matmul (ops, "out_proj", q, h, TRUE, TRUE);
  add_residual (ops, h, m->dropout, "dropout_add_1");
  add_norm (ops, "ln_2", h, TRUE);
  add_matmul (ops, "fc1", h, m->ffn, FALSE, TRUE)->mlp_input = TRUE;
  /* Fused bias-GELU keeps its input (8sbh for ffn = 4h). */
  op = add_elementwise (ops, "gelu", PLX_SPLIT_TP, 2.0 * m->ffn, 3.0 * m->ffn, (double) m->ffn);
  (void) op;
  add_matmul (ops, "fc2", m->ffn, h, TRUE, TRUE);
  add_residual (ops, h, m->dropout, "dropout_add_2");
}

/* SwiGLU or GeGLU: reads gate and up, writes their product; keeps both inputs.
 * Eager: the activation of gate (read 1, write 1) then * up (read 2, write 1);
 * backward: the product's two gradients (read 3, write 2) and the activation's
 * (read 2, write 1). */
static PlxOp *
add_glu (GArray *ops, const char *name, guint64 width)
{
  PlxOp *op = add_elementwise (ops, name, PLX_SPLIT_TP, 3.0 * width, 5.0 * width, 2.0 * width);

  op->eager_fwd_elems = 5.0 * width;
  op->eager_bwd_elems = 8.0 * width;
  return op;
}

/* Rotary embedding rewrites Q and K in place (Su et al. 2021). Eager (torchtitan's
 * complex form): .float() (2 + 4 bytes), complex multiply (4 + 4), .type_as (4 + 2):
 * 20 bytes, plus the transposes around attention: 11 elements per value, both ways. */
static void
add_rotary (GArray *ops, guint64 q, guint64 kv)
{
  PlxOp *op = add_elementwise (ops, "rotary", PLX_SPLIT_TP, 2.0 * (q + kv), 2.0 * (q + kv), 0.0);

  op->eager_fwd_elems = 11.0 * (q + kv);
  op->eager_bwd_elems = 11.0 * (q + kv);
}

/* Router logits and top-k (Jiang et al. 2024, Mixtral §2.1); weights replicated.
 * Each routed row is copied into its expert's slot before the dispatch and back,
 * scaled by its router weight, after the combine (the permutation and
 * un-permutation around the experts, Gale et al. 2023, MegaBlocks §2): read and
 * write h elements each way, forward and backward; only indices are kept. */
static void
add_router (GArray *ops, const PlxModel *m)
{
  PlxOp *op = add_op (ops, "router", PLX_OP_MATMUL, PLX_SPLIT_SEQ, PLX_SPLIT_SEQ);

  op->k = m->hidden;
  op->n = m->experts;
  op->params = m->hidden * m->experts;
  op = add_elementwise (ops, "token_permute", PLX_SPLIT_SEQ, 4.0 * m->hidden, 4.0 * m->hidden, 0.0);
  op->expert = TRUE;
}

static void
add_swiglu_mlp (GArray         *ops,
                const PlxModel *m,
                gboolean        expert)
{
  PlxOp *op;

  op = add_matmul (ops, expert ? "expert_gate_up" : "gate_up_proj", m->hidden, 2 * m->ffn, FALSE, FALSE);
  op->expert = expert;
  op->mlp_input = TRUE;
  /* Eager: gate (w1) and up (w3) are two GEMMs; Megatron's linear_fc1 is one. */
  op->eager_gemms = 2;
  op->eager_first_n = m->ffn;
  op = add_glu (ops, expert ? "expert_swiglu" : "swiglu", m->ffn);
  op->expert = expert;
  op = add_matmul (ops, expert ? "expert_down" : "down_proj", m->ffn, m->hidden, TRUE, FALSE);
  op->expert = expert;
}

static void
build_llama_block (GArray         *ops,
                   const PlxModel *m)
{
  const guint64 h = m->hidden;
  const guint64 q = (guint64) m->heads * m->head_dim;
  const guint64 kv = (guint64) m->kv_heads * m->head_dim;
  PlxOp *op;

  add_norm (ops, "input_norm", h, FALSE);
  op = add_matmul (ops, "qkv_proj", h, q + 2 * kv, FALSE, FALSE);
  /* Eager Llama code (torchtitan's wq, wk, wv; Hugging Face's q_proj, k_proj, v_proj)
   * projects Q, K and V with three GEMMs; Megatron fuses them into one. */
  op->eager_gemms = 3;
  op->eager_first_n = q;
  add_rotary (ops, q, kv);
  add_attention (ops, m);
  add_matmul (ops, "o_proj", q, h, TRUE, FALSE);
  add_residual (ops, h, FALSE, "residual_1");
  add_norm (ops, "post_attention_norm", h, FALSE);
  if (m->experts > 0)
    {
      add_router (ops, m);
      add_swiglu_mlp (ops, m, TRUE);
    }
  else
    add_swiglu_mlp (ops, m, FALSE);
  add_residual (ops, h, FALSE, "residual_2");
}

static void
build_pre_post (OpLists        *lists,
                const PlxModel *m,
                gboolean        layernorm)
{
  const guint64 h = m->hidden;
  PlxOp *op;

  /* Vocabulary-parallel embedding (Megatron): the table is split over TP ranks. */
  op = add_op (lists->pre, "embedding", PLX_OP_EMBEDDING, PLX_SPLIT_TP, PLX_SPLIT_SEQ);
  op->params = m->vocab * h;
  op->fwd_elems = 2.0 * h;
  op->bwd_elems = 2.0 * h;
  if (m->learned_positions)
    {
      op = add_elementwise (lists->pre, "position_embedding", PLX_SPLIT_SEQ, 3.0 * h, 1.0 * h, 0.0);
      op->split = PLX_SPLIT_NONE;
      op->params = m->max_positions * h;
    }
  if (m->dropout)
    {
      op = add_elementwise (lists->pre, "embedding_dropout", PLX_SPLIT_SEQ, 2.0 * h, 2.0 * h, 0.0);
      op->fwd_mask = (double) h;
      op->bwd_mask = (double) h;
      op->saved_mask = (double) h;
    }

  add_norm (lists->post, "final_norm", h, layernorm);
  op = add_matmul (lists->post, "lm_head", h, m->vocab, FALSE, FALSE);
  /* Megatron-LM's output layer is not a Transformer Engine module, and torchao's
   * float8 conversion leaves the output projection out: 16-bit under fp8. */
  op->fp8 = FALSE;
  /* Tied: the embedding's weights, counted once (plx_model_get_n_params). */
  op->params = m->tied_embeddings ? 0 : m->vocab * h;
  /* Megatron's vocabulary-parallel cross-entropy (megatron/core/tensor_parallel/
   * cross_entropy.py) works on fp32 logits, op by op, and keeps the softmax for
   * backward. Per logit: the upcast .float() (read 2, write 4 bytes), the max (4),
   * subtracting it (4 + 4), exp (4 + 4), the sum (4), dividing by it (4 + 4): 38
   * bytes, 19 16-bit elements. Backward: scaling the kept softmax by the incoming
   * gradient (4 + 4) and the downcast (4 + 2): 14 bytes, 7 elements. With a 131k
   * vocabulary this is a tenth of a 2B model's step. */
  if (m->arch.final_softcap > 0.0)
    {
      /* Gemma 2's logits = cap * tanh(logits / cap) before the loss: per logit a read
       * and a write, the tanh kept; eager as three kernels. */
      op = add_elementwise (lists->post, "final_softcap", PLX_SPLIT_TP, 2.0 * m->vocab, 3.0 * m->vocab,
                            (double) m->vocab);
      op->eager_fwd_elems = 6.0 * m->vocab;
      op->eager_bwd_elems = 9.0 * m->vocab;
    }
  op = add_elementwise (lists->post, "cross_entropy", PLX_SPLIT_TP, 19.0 * m->vocab, 7.0 * m->vocab, 0.0);
  op->saved_fp32 = (double) m->vocab;
  op->loss = TRUE;
  op->n = m->vocab;
  /* Eager (F.cross_entropy on logits.float()): the upcast (2 + 4 bytes) and one
   * log_softmax kernel (4 + 4), 14 bytes; backward log_softmax's (4 + 4 + 4) and the
   * downcast (4 + 2), 18 bytes. */
  op->eager_fwd_elems = 7.0 * m->vocab;
  op->eager_bwd_elems = 9.0 * m->vocab;
}

/* Marks the ops from the second norm on as the MLP half of the block: the halves
 * are what Megatron brackets with its tensor-parallel collectives. */
static void
mark_mlp_half (GArray     *ops,
               const char *second_norm)
{
  gboolean mlp = FALSE;

  for (guint i = 0; i < ops->len; i++)
    {
      PlxOp *op = &g_array_index (ops, PlxOp, i);
      if (g_str_equal (op->name, second_norm))
        mlp = TRUE;
      op->mlp_half = mlp;
    }
}


/* ---- the other decoder families (Hugging Face model types) ----------------------
 * One block built from the features that tell them apart (PlxModelArch), out of the
 * same ops as GPT-2 and Llama above; GPT-2 and the Llama family keep their own
 * builders, which the published measurements were checked against. Sources: each
 * family's modeling_*.py in Hugging Face transformers (layer by layer) and its paper:
 * GPT-NeoX (Black et al. 2022: parallel attention and MLP), OPT (Zhang et al. 2022),
 * BLOOM (Le Scao et al. 2022: ALiBi, embedding LayerNorm), Falcon (Almazrouei et al.
 * 2023: multi-query, parallel block), Gemma (2024; Gemma 2: four norms per block),
 * Qwen2/Qwen3 (QKV biases; Q/K RMSNorm), Qwen2-MoE (shared expert with a gate), DBRX. */

static void
add_norm_arch (GArray *ops, const char *name, const PlxModel *m, guint64 width)
{
  add_norm (ops, name, width, m->arch.layernorm);
  if (m->arch.layernorm && !m->arch.norm_bias)
    g_array_index (ops, PlxOp, ops->len - 1).params = width;
}

static void
add_mlp_arch (GArray *ops, const PlxModel *m, guint64 width, gboolean expert, const char *prefix)
{
  PlxOp *op;
  char *up = g_strconcat (prefix, m->arch.gated ? "gate_up_proj" : "fc1", NULL);
  char *act = g_strconcat (prefix, m->arch.gated ? "glu" : "activation", NULL);
  char *down = g_strconcat (prefix, m->arch.gated ? "down_proj" : "fc2", NULL);

  /* Op names are static strings elsewhere: these few are interned once. */
  gboolean bias = expert ? m->arch.expert_bias : m->arch.mlp_bias;

  op = add_matmul (ops, g_intern_string (up), m->hidden, (m->arch.gated ? 2 : 1) * width, FALSE, bias);
  op->expert = expert;
  op->mlp_input = TRUE;
  if (m->arch.gated)
    {
      op->eager_gemms = 2;
      op->eager_first_n = width;
      op = add_glu (ops, g_intern_string (act), width);
    }
  else
    op = add_elementwise (ops, g_intern_string (act), PLX_SPLIT_TP, 2.0 * width, 3.0 * width, (double) width);
  op->expert = expert;
  op = add_matmul (ops, g_intern_string (down), width, m->hidden, TRUE, bias);
  op->expert = expert;
  g_free (up);
  g_free (act);
  g_free (down);
}

/* A down-projection every tensor-parallel rank computes whole (Megatron-LM's MLA
 * builds linear_q_down_proj and linear_kv_down_proj "duplicated"): weights
 * replicated, work split only by sequence parallelism. */
static PlxOp *
add_down_proj (GArray *ops, const char *name, guint64 k, guint64 n)
{
  PlxOp *op = add_matmul (ops, name, k, n, FALSE, FALSE);

  op->split = PLX_SPLIT_SEQ;
  op->saved_split = PLX_SPLIT_SEQ;
  return op;
}

/* Multi-head latent attention (DeepSeek-V2, arXiv 2405.04434 §2.1.2-2.1.3, eqs. 9-19;
 * Hugging Face modeling_deepseek.py): queries through a rank-q_lora latent (or
 * directly), keys and values up-projected per head from one rank-kv_lora latent, plus
 * a rotary key part shared by all heads; each head's query and key are
 * qk_nope + qk_rope wide (head_dim), its value v_head_dim. Training materialises
 * every head's K and V, so the core is ordinary attention with those widths. */
static void
add_mla (GArray *ops, const PlxModel *m)
{
  const PlxModelArch *a = &m->arch;
  const guint64 h = m->hidden, heads = m->heads;
  const guint64 q = heads * m->head_dim, nope = m->head_dim - a->rope_head_dim;

  if (a->q_lora_rank > 0)
    {
      add_down_proj (ops, "q_down_proj", h, a->q_lora_rank);
      add_norm (ops, "q_norm", a->q_lora_rank, FALSE);
      add_matmul (ops, "q_up_proj", a->q_lora_rank, q, FALSE, FALSE);
    }
  else
    add_matmul (ops, "q_proj", h, q, FALSE, FALSE);
  add_down_proj (ops, "kv_down_proj", h, a->kv_lora_rank + a->rope_head_dim);
  add_norm (ops, "kv_norm", a->kv_lora_rank, FALSE);
  add_matmul (ops, "kv_up_proj", a->kv_lora_rank, heads * (nope + a->v_head_dim), FALSE, FALSE);
  add_rotary (ops, heads * a->rope_head_dim, a->rope_head_dim);
  add_attention (ops, m);
  add_matmul (ops, "o_proj", heads * a->v_head_dim, h, TRUE, FALSE);
}

/* The ops from `from` up to `to` are in the dense blocks only, or the MoE ones only. */
static void
set_op_layers (GArray *ops, guint from, guint to, PlxOpLayers layers)
{
  for (guint i = from; i < to; i++)
    g_array_index (ops, PlxOp, i).layers = layers;
}

static void
build_family_block (GArray *ops, const PlxModel *m)
{
  const guint64 h = m->hidden;
  const guint64 q = (guint64) m->heads * m->head_dim;
  const guint64 kv = (guint64) m->kv_heads * m->head_dim;
  PlxOp *op;

  add_norm_arch (ops, "input_norm", m, h);
  if (m->arch.kv_lora_rank > 0)
    add_mla (ops, m);
  else
    {
      op = add_matmul (ops, "qkv_proj", h, q + 2 * kv, FALSE, m->arch.qkv_bias);
      op->eager_gemms = 3;
      op->eager_first_n = q;
      if (m->arch.qk_norm)
        {
          /* RMSNorm over each head's Q and K: a gain of head_dim each, shared by the
           * heads (Qwen3, Gemma 3), or one per channel of every head (OLMo 2's over
           * the whole projection, Cohere's and StableLM's per head). */
          op = add_elementwise (ops, "qk_norm", PLX_SPLIT_TP, 2.0 * (q + kv), 3.0 * (q + kv), (double) (q + kv));
          op->params = m->arch.qk_norm_full ? q + kv : 2 * m->head_dim;
          op->param_tensors = 2;
        }
      if (!m->arch.alibi)
        add_rotary (ops, q, kv);
      add_attention (ops, m);
      if (m->arch.attn_sinks)
        {
          /* gpt-oss: each head's softmax has one more, learned logit (the sink),
           * a parameter per head; its work is the softmax's. */
          op = add_elementwise (ops, "attention_sinks", PLX_SPLIT_TP, 0.0, 0.0, 0.0);
          op->params = m->heads;
        }
      add_matmul (ops, "o_proj", q, h, TRUE, m->arch.out_bias);
    }
  if (m->arch.block_norms == 4)
    add_norm_arch (ops, "post_attention_norm", m, h);
  if (!m->arch.parallel)
    add_residual (ops, h, FALSE, "residual_1");
  if (m->arch.block_norms >= 2)
    add_norm_arch (ops, "mlp_norm", m, h);
  else
    /* Falcon 7B: the MLP reads the same normalised input as the attention. */
    add_elementwise (ops, "mlp_norm", PLX_SPLIT_SEQ, 0.0, 0.0, 0.0);
  if (m->experts > 0)
    {
      guint dense = ops->len, moe;

      if (m->arch.dense_layers > 0)
        add_mlp_arch (ops, m, m->arch.dense_ffn, FALSE, "dense_");
      moe = ops->len;
      add_router (ops, m);
      g_array_index (ops, PlxOp, moe).params += m->arch.router_bias;
      add_mlp_arch (ops, m, m->ffn, TRUE, "expert_");
      if (m->arch.shared_ffn > 0)
        {
          add_mlp_arch (ops, m, m->arch.shared_ffn, FALSE, "shared_");
          if (m->arch.shared_gate)
            {
              op = add_op (ops, "shared_gate", PLX_OP_MATMUL, PLX_SPLIT_SEQ, PLX_SPLIT_SEQ);
              op->k = h;
              op->n = 1;
              op->params = h;
            }
        }
      if (m->arch.dense_layers > 0)
        {
          /* DeepSeek: the first blocks have the dense MLP, the others the experts. */
          set_op_layers (ops, dense, moe, PLX_OP_LAYERS_DENSE);
          set_op_layers (ops, moe, ops->len, PLX_OP_LAYERS_MOE);
        }
    }
  else
    add_mlp_arch (ops, m, m->ffn, FALSE, "");
  if (m->arch.block_norms == 4)
    add_norm_arch (ops, "post_mlp_norm", m, h);
  add_residual (ops, h, FALSE, "residual_2");
}

static void
build_family_pre_post (OpLists *lists, const PlxModel *m)
{
  build_pre_post (lists, m, m->arch.layernorm);
  for (guint i = 0; i < lists->post->len; i++)
    {
      PlxOp *op = &g_array_index (lists->post, PlxOp, i);
      if (g_str_equal (op->name, "lm_head") && m->arch.lm_head_bias)
        {
          op->params += m->vocab;
          op->param_tensors = 2;
        }
      if (g_str_equal (op->name, "final_norm") && m->arch.layernorm && !m->arch.norm_bias)
        op->params = m->hidden;
    }
  for (guint i = 0; i < lists->pre->len; i++)
    {
      PlxOp *op = &g_array_index (lists->pre, PlxOp, i);
      if (g_str_equal (op->name, "position_embedding"))
        op->params = (m->max_positions + m->arch.position_offset) * m->hidden;
      if (g_str_equal (op->name, "embedding") && m->arch.embed_dim > 0)
        op->params = m->vocab * m->arch.embed_dim;
    }
  if (m->arch.embed_dim > 0)
    {
      /* OPT-350m: embeddings of word_embed_proj_dim, projected in and out. */
      add_matmul (lists->pre, "project_in", m->arch.embed_dim, m->hidden, FALSE, FALSE)->fp8 = FALSE;
      add_matmul (lists->post, "project_out", m->hidden, m->arch.embed_dim, FALSE, FALSE)->fp8 = FALSE;
      for (guint i = 0; i < lists->post->len; i++)
        {
          PlxOp *op = &g_array_index (lists->post, PlxOp, i);
          if (g_str_equal (op->name, "lm_head"))
            {
              op->k = m->arch.embed_dim;
              op->params = m->tied_embeddings ? 0 : m->vocab * m->arch.embed_dim;
            }
        }
    }
  if (m->arch.embedding_norm)
    add_norm_arch (lists->pre, "embedding_norm", m, m->hidden);
}

/* ---- state-space blocks (Mamba, Mamba-2) ---------------------------------------
 * As transformers' MambaMixer and Mamba2Mixer hold them (and the mamba_ssm reference
 * the papers give): a pre-norm, an input projection, a causal depthwise convolution,
 * the selective scan, and an output projection, with the residual; no MLP. Tensor
 * parallelism splits the inner width (Megatron-Core's MambaMixer: in_proj column-,
 * out_proj row-parallel). */

/* Mamba-2's SSD (Dao and Gu 2024, arXiv 2405.21060 §6, the chunked algorithm of its
 * Listing 1): a token's multiply-adds in one block - within its chunk of Q tokens,
 * the Q scores C_t . B_s over N (once a group, G of them) and their product with X over
 * P (each of H heads); between chunks, its contribution to the chunk's state and the
 * state's to its output, N x P each a head. The chunk-to-chunk recurrence, T/Q steps,
 * is left out. */
static guint64
ssd_macs_per_token (const PlxModelArch *a)
{
  guint64 p = a->ssm_inner / MAX (a->ssm_heads, 1);

  return a->ssm_groups * a->ssm_chunk * a->ssm_state + a->ssm_heads * (a->ssm_chunk * p + 2 * a->ssm_state * p);
}

guint64
plx_model_ssm_state_elems (const PlxModel *model)
{
  const PlxModelArch *a = &model->arch;

  if (a->ssm_version == 2)
    return a->ssm_inner * a->ssm_state + (a->ssm_inner + 2 * a->ssm_groups * a->ssm_state) * a->ssm_conv;
  if (a->ssm_version == 1)
    return a->ssm_inner * a->ssm_state + a->ssm_inner * a->ssm_conv;
  return 0;
}

static void
build_mamba_block (GArray *ops, const PlxModel *m)
{
  const PlxModelArch *a = &m->arch;
  const guint64 h = m->hidden, d = a->ssm_inner, n = a->ssm_state;
  gboolean bias = a->mlp_bias, conv_bias = a->out_bias;
  guint64 conv_dim = a->ssm_version == 2 ? d + 2 * a->ssm_groups * n : d;
  PlxOp *op;

  add_norm (ops, "input_norm", h, FALSE);
  if (a->ssm_version == 2)
    /* z, x, B, C and dt in one projection (Mamba2Mixer.in_proj). */
    add_matmul (ops, "in_proj", h, 2 * d + 2 * a->ssm_groups * n + a->ssm_heads, FALSE, bias);
  else
    add_matmul (ops, "in_proj", h, 2 * d, FALSE, bias);
  /* The depthwise causal convolution over conv_kernel taps: memory-bound. */
  op = add_elementwise (ops, "conv1d", PLX_SPLIT_TP, 2.0 * conv_dim, 3.0 * conv_dim, (double) conv_dim);
  op->params = conv_dim * a->ssm_conv + (conv_bias ? conv_dim : 0);
  op->param_tensors = conv_bias ? 2 : 1;
  if (a->ssm_version == 2)
    {
      /* dt_bias, A_log and D: one of each a head. Reads x, B, C and dt, writes y;
       * keeps them and the chunks' states (H x P x N every Q tokens). */
      op = add_op (ops, "ssd_scan", PLX_OP_SSM_SCAN, PLX_SPLIT_TP, PLX_SPLIT_TP);
      op->k = ssd_macs_per_token (a);
      op->n = 1;
      op->params = 3 * a->ssm_heads;
      op->param_tensors = 3;
      op->fwd_elems = (double) (conv_dim + a->ssm_heads + d);
      op->bwd_elems = 2.0 * op->fwd_elems;
      op->saved_elems = (double) (conv_dim + a->ssm_heads) + (double) (d * n) / (double) MAX (a->ssm_chunk, 1);
      /* The gated RMSNorm over the inner width (MambaRMSNormGated): y and z in. */
      op = add_elementwise (ops, "gated_norm", PLX_SPLIT_TP, 3.0 * d, 4.0 * d, 2.0 * d);
      op->params = d;
    }
  else
    {
      /* Mamba's selective scan (Gu and Dao 2023 §3.3): dt, B and C projected from x
       * (x_proj, dt_proj), A (inner x N) and D; the fused scan is memory-bound (§3.3.2):
       * it reads x, dt, B, C and z and writes y. */
      add_matmul (ops, "x_proj", d, a->ssm_dt_rank + 2 * n, FALSE, FALSE)->split = PLX_SPLIT_TP;
      add_matmul (ops, "dt_proj", a->ssm_dt_rank, d, FALSE, TRUE);
      op = add_elementwise (ops, "selective_scan", PLX_SPLIT_TP, 4.0 * d + 2.0 * n, 8.0 * d + 4.0 * n, 3.0 * d + 2.0 * n);
      op->params = d * n + d;
      op->param_tensors = 2;
    }
  add_matmul (ops, "out_proj", d, h, TRUE, bias);
  add_residual (ops, h, FALSE, "residual");
}

static void
model_build_ops (PlxModel *m)
{
  OpLists lists;
  gboolean gpt2 = g_strcmp0 (m->model_type, "gpt2") == 0;

  lists.pre = g_array_new (FALSE, TRUE, sizeof (PlxOp));
  lists.layer = g_array_new (FALSE, TRUE, sizeof (PlxOp));
  lists.post = g_array_new (FALSE, TRUE, sizeof (PlxOp));

  if (m->arch.ssm_version > 0)
    {
      /* One mixer a block, no MLP half. */
      build_mamba_block (lists.layer, m);
      build_family_pre_post (&lists, m);
    }
  else if (m->arch.generic)
    {
      build_family_block (lists.layer, m);
      mark_mlp_half (lists.layer, "mlp_norm");
      build_family_pre_post (&lists, m);
    }
  else if (gpt2)
    {
      build_gpt2_block (lists.layer, m);
      mark_mlp_half (lists.layer, "ln_2");
      build_pre_post (&lists, m, gpt2);
    }
  else
    {
      build_llama_block (lists.layer, m);
      mark_mlp_half (lists.layer, "post_attention_norm");
      build_pre_post (&lists, m, gpt2);
    }

  m->n_pre_ops = lists.pre->len;
  m->pre_ops = (PlxOp *) (void *) g_array_free (lists.pre, FALSE);
  m->n_layer_ops = lists.layer->len;
  m->layer_ops = (PlxOp *) (void *) g_array_free (lists.layer, FALSE);
  m->n_post_ops = lists.post->len;
  m->post_ops = (PlxOp *) (void *) g_array_free (lists.post, FALSE);
}

/* ---- Hugging Face config.json ------------------------------------------------ */

#define MAX_DIM G_GUINT64_CONSTANT (10000000)   /* far above any real model width */
#define MAX_LAYERS G_GUINT64_CONSTANT (100000)

static gboolean
get_dim (JsonObject *obj, const char *source, const char *key, gboolean required,
         guint64 max, guint64 *out, GError **error)
{
  return plx_json_get_uint (obj, source, "model", key, required, 1, max, out, error);
}

static gboolean
parse_gpt2 (PlxModel *m, JsonObject *obj, const char *source, GError **error)
{
  guint64 layers = 0, hidden = 0, heads = 0, positions = 1024, vocab = 0, inner = 0;
  double pdrop = 0.1;

  if (!get_dim (obj, source, "n_layer", TRUE, MAX_LAYERS, &layers, error) ||
      !get_dim (obj, source, "n_embd", TRUE, MAX_DIM, &hidden, error) ||
      !get_dim (obj, source, "n_head", TRUE, MAX_DIM, &heads, error) ||
      !get_dim (obj, source, "vocab_size", TRUE, MAX_DIM * 10, &vocab, error) ||
      !get_dim (obj, source, "n_positions", FALSE, MAX_DIM, &positions, error) ||
      !get_dim (obj, source, "n_inner", FALSE, MAX_DIM * 10, &inner, error) ||
      !plx_json_get_double (obj, source, "model", "attn_pdrop", FALSE, 0.0, 1.0, &pdrop, error))
    return FALSE;
  if (hidden % heads != 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%s: model.n_embd: %" G_GUINT64_FORMAT " is not divisible by model.n_head=%" G_GUINT64_FORMAT,
                   source, hidden, heads);
      return FALSE;
    }
  m->n_layers = (guint) layers;
  m->hidden = hidden;
  m->heads = (guint) heads;
  m->kv_heads = (guint) heads;
  m->head_dim = hidden / heads;
  m->ffn = inner ? inner : 4 * hidden;
  m->vocab = vocab;
  m->max_positions = positions;
  m->tied_embeddings = TRUE;
  m->learned_positions = TRUE;
  m->dropout = pdrop > 0.0;
  return TRUE;
}

static gboolean
parse_llama (PlxModel *m, JsonObject *obj, const char *source, gboolean moe, GError **error)
{
  guint64 layers = 0, hidden = 0, heads = 0, kv_heads = 0, inter = 0, vocab = 0;
  guint64 positions = 4096, head_dim = 0, experts = 0, per_tok = 0;
  gboolean tied = FALSE;

  if (!get_dim (obj, source, "num_hidden_layers", TRUE, MAX_LAYERS, &layers, error) ||
      !get_dim (obj, source, "hidden_size", TRUE, MAX_DIM, &hidden, error) ||
      !get_dim (obj, source, "num_attention_heads", TRUE, MAX_DIM, &heads, error) ||
      !get_dim (obj, source, "num_key_value_heads", FALSE, MAX_DIM, &kv_heads, error) ||
      !get_dim (obj, source, "intermediate_size", TRUE, MAX_DIM * 10, &inter, error) ||
      !get_dim (obj, source, "vocab_size", TRUE, MAX_DIM * 10, &vocab, error) ||
      !get_dim (obj, source, "max_position_embeddings", FALSE, MAX_DIM * 10, &positions, error) ||
      !get_dim (obj, source, "head_dim", FALSE, MAX_DIM, &head_dim, error) ||
      !plx_json_get_bool (obj, source, "model", "tie_word_embeddings", &tied, error))
    return FALSE;
  if (moe &&
      (!get_dim (obj, source, "num_local_experts", TRUE, 100000, &experts, error) ||
       !get_dim (obj, source, "num_experts_per_tok", TRUE, 100000, &per_tok, error)))
    return FALSE;

  if (kv_heads == 0)
    kv_heads = heads;
  if (heads % kv_heads != 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%s: model.num_key_value_heads: %" G_GUINT64_FORMAT " does not divide model.num_attention_heads=%" G_GUINT64_FORMAT,
                   source, kv_heads, heads);
      return FALSE;
    }
  if (head_dim == 0)
    {
      if (hidden % heads != 0)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                       "%s: model.hidden_size: %" G_GUINT64_FORMAT " is not divisible by model.num_attention_heads=%" G_GUINT64_FORMAT,
                       source, hidden, heads);
          return FALSE;
        }
      head_dim = hidden / heads;
    }
  if (moe && per_tok > experts)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%s: model.num_experts_per_tok: %" G_GUINT64_FORMAT " exceeds model.num_local_experts=%" G_GUINT64_FORMAT,
                   source, per_tok, experts);
      return FALSE;
    }

  m->n_layers = (guint) layers;
  m->hidden = hidden;
  m->heads = (guint) heads;
  m->kv_heads = (guint) kv_heads;
  m->head_dim = head_dim;
  m->ffn = inter;
  m->vocab = vocab;
  m->max_positions = positions;
  m->tied_embeddings = tied;
  m->learned_positions = FALSE;
  m->dropout = FALSE;
  m->experts = (guint) experts;
  m->experts_per_token = (guint) per_tok;
  return TRUE;
}


/* The first of `keys` the config has (Hugging Face families name the same thing
 * differently: num_hidden_layers, n_layer, n_layers); required: the first is named. */
static gboolean
get_dim_any (JsonObject *obj, const char *source, const char *const *keys, gboolean required, guint64 max,
             guint64 *out, GError **error)
{
  for (guint i = 0; keys[i] != NULL; i++)
    if (json_object_has_member (obj, keys[i]) && !JSON_NODE_HOLDS_NULL (json_object_get_member (obj, keys[i])))
      return get_dim (obj, source, keys[i], TRUE, max, out, error);
  if (required)
    return get_dim (obj, source, keys[0], TRUE, max, out, error);
  return TRUE;
}

static gboolean
get_bool_default (JsonObject *obj, const char *source, const char *key, gboolean fallback, gboolean *out,
                  GError **error)
{
  *out = fallback;
  return plx_json_get_bool (obj, source, "model", key, out, error);
}

/* An optional number that a config may also write as null (none). */
static gboolean
get_cap (JsonObject *obj, const char *source, const char *key, double *out, GError **error)
{
  *out = 0.0;
  if (!json_object_has_member (obj, key) || JSON_NODE_HOLDS_NULL (json_object_get_member (obj, key)))
    return TRUE;
  return plx_json_get_double (obj, source, "model", key, FALSE, 0.0, 1e9, out, error);
}

/* Sliding-window attention and soft-capping, where a config has them: Mistral's
 * sliding_window (every block), Gemma 2's (every other block: its layer_types
 * alternate sliding and full), and Qwen2/Qwen3's, which apply only when
 * use_sliding_window says so (their configs carry a window they do not use). */
static gboolean
parse_window (PlxModel *m, JsonObject *obj, const char *source, const char *type, GError **error)
{
  static const char *const window_k[] = { "sliding_window", NULL };
  guint64 window = 0;
  gboolean use = !g_str_has_prefix (type, "qwen");

  if (!get_dim_any (obj, source, window_k, FALSE, MAX_DIM * 10, &window, error) ||
      !get_bool_default (obj, source, "use_sliding_window", use, &use, error) ||
      !get_cap (obj, source, "attn_logit_softcapping", &m->arch.attn_softcap, error) ||
      !get_cap (obj, source, "final_logit_softcapping", &m->arch.final_softcap, error))
    return FALSE;
  if (use && window > 0)
    {
      double share = g_str_equal (type, "gemma2") ? 0.5 : 1.0;
      JsonNode *types = json_object_get_member (obj, "layer_types");
      guint64 pattern = 0;

      if (!plx_json_get_uint (obj, source, "model", "sliding_window_pattern", FALSE, 1, MAX_LAYERS, &pattern, error))
        return FALSE;
      /* Gemma 3: every pattern-th block global, the others local (its config's
       * sliding_window_pattern, 6: five local to one global, Gemma 3 report §2.2). */
      if (pattern > 0)
        share = (double) (pattern - 1) / (double) pattern;
      /* Newer configs list each block's attention (OLMo 3, Gemma 2/3, Qwen3):
       * the share that is "sliding_attention". */
      if (types != NULL && JSON_NODE_HOLDS_ARRAY (types) && json_array_get_length (json_node_get_array (types)) > 0)
        {
          JsonArray *list = json_node_get_array (types);
          guint n = json_array_get_length (list), sliding = 0;

          for (guint i = 0; i < n; i++)
            {
              JsonNode *e = json_array_get_element (list, i);
              if (JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_STRING &&
                  g_str_equal (json_node_get_string (e), "sliding_attention"))
                sliding++;
            }
          share = (double) sliding / n;
        }
      if (share > 0.0)
        {
          m->arch.sliding_window = window;
          m->arch.sliding_share = share;
        }
    }
  return TRUE;
}

static const char *const family_types[] = { "qwen2", "qwen3", "qwen2_moe", "qwen3_moe", "phi3", "gemma", "gemma2",
                                            "gemma3_text", "gpt_neox", "opt", "falcon", "bloom", "dbrx",
                                            "deepseek_v2", "deepseek_v3", "kimi_k2", "olmo2", "olmo3", "granite",
                                            "cohere", "phi", "mpt", "gptj", "codegen", "gpt_bigcode", "stablelm",
                                            "baichuan", "chatglm", "gpt_oss", NULL };

/* DeepSeek-V2/V3: multi-head latent attention, shared and routed experts, dense
 * first blocks (configuration_deepseek.py's keys). */
static gboolean
parse_deepseek (PlxModel *m, JsonObject *obj, const char *source, const char *type, guint64 layers,
                guint64 *head_dim, guint64 *kv_heads, guint64 heads, guint64 experts, guint64 expert_ffn,
                GError **error)
{
  static const char *const first_k[] = { "first_k_dense_replace", NULL };
  static const char *const shared_k[] = { "n_shared_experts", NULL };
  static const char *const q_lora_k[] = { "q_lora_rank", NULL };
  static const char *const kv_lora_k[] = { "kv_lora_rank", NULL };
  static const char *const nope_k[] = { "qk_nope_head_dim", NULL };
  static const char *const rope_k[] = { "qk_rope_head_dim", NULL };
  static const char *const v_k[] = { "v_head_dim", NULL };
  static const char *const freq_k[] = { "moe_layer_freq", NULL };
  static const char *const dense_k[] = { "intermediate_size", NULL };
  PlxModelArch *a = &m->arch;
  guint64 first = 0, shared = 0, q_lora = 0, kv_lora = 0, nope = 0, rope = 0, v = 0, freq = 1, dense = 0;
  const char *topk_method = NULL;

  if (!get_dim_any (obj, source, first_k, FALSE, MAX_LAYERS, &first, error) ||
      !get_dim_any (obj, source, shared_k, FALSE, 100000, &shared, error) ||
      !get_dim_any (obj, source, q_lora_k, FALSE, MAX_DIM, &q_lora, error) ||
      !get_dim_any (obj, source, kv_lora_k, TRUE, MAX_DIM, &kv_lora, error) ||
      !get_dim_any (obj, source, nope_k, TRUE, MAX_DIM, &nope, error) ||
      !get_dim_any (obj, source, rope_k, TRUE, MAX_DIM, &rope, error) ||
      !get_dim_any (obj, source, v_k, TRUE, MAX_DIM, &v, error) ||
      !get_dim_any (obj, source, freq_k, FALSE, MAX_LAYERS, &freq, error) ||
      !get_dim_any (obj, source, dense_k, first > 0, MAX_DIM * 10, &dense, error) ||
      !plx_json_get_string (obj, source, "model", "topk_method", FALSE, &topk_method, error))
    return FALSE;
  if (experts == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%s: model.n_routed_experts: a %s model needs its routed experts", source, type);
      return FALSE;
    }
  if (first >= layers)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%s: model.first_k_dense_replace: %" G_GUINT64_FORMAT " dense blocks leave none of the %"
                   G_GUINT64_FORMAT " blocks for the experts", source, first, layers);
      return FALSE;
    }
  if (freq != 1)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                   "%s: model.moe_layer_freq: %" G_GUINT64_FORMAT " is not modelled (experts in every block after "
                   "the dense ones: 1)", source, freq);
      return FALSE;
    }
  a->dense_layers = (guint) first;
  a->dense_ffn = dense;
  a->q_lora_rank = q_lora;
  a->kv_lora_rank = kv_lora;
  a->rope_head_dim = rope;
  a->v_head_dim = v;
  a->shared_ffn = shared * expert_ffn;   /* n_shared_experts of moe_intermediate_size */
  /* V3's sigmoid router adds a bias per expert for load balancing without an
   * auxiliary loss (arXiv 2412.19437 §2.1.2, e_score_correction_bias). */
  a->router_bias = topk_method != NULL && g_str_equal (topk_method, "noaux_tc") ? experts : 0;
  *head_dim = nope + rope;
  *kv_heads = heads;   /* training materialises every head's key and value */
  return TRUE;
}

static gboolean
is_family (const char *model_type)
{
  return g_strv_contains (family_types, model_type);
}

/* More decoder families, each read from its Hugging Face configuration_*.py and
 * built layer by layer as its modeling_*.py does: OLMo 2/3 (Groeneveld et al.;
 * OLMo 2, arXiv 2501.00656 §3.1: norms after attention and MLP, QK-norm over the
 * whole projection), Granite (IBM Granite 3.0 report: the Llama block), Cohere
 * Command R (one LayerNorm without bias, attention and MLP in parallel), Phi-2
 * (parallel block, biases everywhere, LM head with a bias), MPT (ALiBi, no biases),
 * GPT-J and CodeGen (parallel block, MLP and head biases), GPT-BigCode (StarCoder:
 * GPT-2 with multi-query attention, Li et al. 2023 §5), StableLM, Baichuan 2 (the
 * Llama block, W_pack), ChatGLM (GLM: grouped queries as multi_query_group_num,
 * QKV bias only) and Gemma 3's text model (Gemma 2's four norms with QK-norm).
 * Returns TRUE and leaves the arch alone for the other types. */
static gboolean
parse_more_families (PlxModel *m, JsonObject *obj, const char *source, const char *type, guint64 hidden,
                     guint64 heads, guint64 *kv_heads, guint64 *ffn, gboolean *tied, GError **error)
{
  PlxModelArch *a = &m->arch;
  gboolean flag = FALSE;

  if (g_str_equal (type, "olmo2") || g_str_equal (type, "olmo3"))
    {
      /* post_attention_layernorm and post_feedforward_layernorm: two RMSNorms a
       * block, as many parameters as pre-norms; q_norm and k_norm over the whole
       * Q and K widths. */
      a->qk_norm = a->qk_norm_full = TRUE;
      if (!get_bool_default (obj, source, "attention_bias", FALSE, &flag, error))
        return FALSE;
      a->qkv_bias = a->out_bias = flag;
    }
  else if (g_str_equal (type, "granite"))
    {
      *tied = TRUE;
      if (!get_bool_default (obj, source, "attention_bias", FALSE, &flag, error) ||
          !get_bool_default (obj, source, "mlp_bias", FALSE, &a->mlp_bias, error))
        return FALSE;
      a->qkv_bias = a->out_bias = flag;
    }
  else if (g_str_equal (type, "cohere"))
    {
      *tied = TRUE;
      a->layernorm = TRUE;
      a->norm_bias = FALSE;
      a->parallel = TRUE;
      a->block_norms = 1;
      if (!get_bool_default (obj, source, "use_qk_norm", FALSE, &a->qk_norm, error) ||
          !get_bool_default (obj, source, "attention_bias", FALSE, &flag, error))
        return FALSE;
      a->qk_norm_full = a->qk_norm;
      a->qkv_bias = a->out_bias = flag;
    }
  else if (g_str_equal (type, "phi"))
    {
      a->layernorm = a->norm_bias = a->qkv_bias = a->out_bias = a->mlp_bias = TRUE;
      a->gated = FALSE;
      a->parallel = TRUE;
      a->block_norms = 1;
      a->lm_head_bias = TRUE;
      if (!get_bool_default (obj, source, "qk_layernorm", FALSE, &a->qk_norm, error))
        return FALSE;
      /* Phi's q_layernorm and k_layernorm are LayerNorms of head_dim with a bias,
       * shared by the heads: 2 x 2 head_dim, where Qwen3's RMSNorms have 2 head_dim. */
      if (a->qk_norm)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                       "%s: model.qk_layernorm: true is not modelled for phi (LayerNorms with a bias on Q and K)",
                       source);
          return FALSE;
        }
    }
  else if (g_str_equal (type, "mpt"))
    {
      JsonObject *attn = NULL;
      guint64 ratio = 4;
      gboolean no_bias = TRUE, alibi = TRUE;

      *tied = TRUE;
      a->layernorm = TRUE;
      a->gated = FALSE;
      a->alibi = TRUE;
      if (!get_bool_default (obj, source, "no_bias", TRUE, &no_bias, error) ||
          !plx_json_get_uint (obj, source, "model", "expansion_ratio", FALSE, 1, 1000, &ratio, error))
        return FALSE;
      if (json_object_has_member (obj, "attn_config") &&
          ((attn = plx_json_get_object (obj, source, "model", "attn_config", FALSE, error)) == NULL ||
           !get_bool_default (attn, source, "alibi", TRUE, &alibi, error)))
        return FALSE;
      if (!alibi)
        {
          /* MPT without ALiBi adds a learned position table (learned_pos_emb). */
          m->learned_positions = TRUE;
          a->alibi = FALSE;
        }
      a->norm_bias = a->qkv_bias = a->out_bias = a->mlp_bias = !no_bias;
      if (*ffn == 0)
        *ffn = ratio * hidden;
    }
  else if (g_str_equal (type, "gptj") || g_str_equal (type, "codegen"))
    {
      a->layernorm = a->norm_bias = a->mlp_bias = TRUE;
      a->gated = FALSE;
      a->parallel = TRUE;
      a->block_norms = 1;
      a->lm_head_bias = TRUE;
    }
  else if (g_str_equal (type, "gpt_bigcode"))
    {
      gboolean multi_query = TRUE;

      *tied = TRUE;
      a->layernorm = a->norm_bias = a->qkv_bias = a->out_bias = a->mlp_bias = TRUE;
      a->gated = FALSE;
      m->learned_positions = TRUE;
      if (!get_bool_default (obj, source, "multi_query", TRUE, &multi_query, error))
        return FALSE;
      *kv_heads = multi_query ? 1 : heads;
    }
  else if (g_str_equal (type, "stablelm"))
    {
      a->layernorm = a->norm_bias = TRUE;
      if (!get_bool_default (obj, source, "use_qkv_bias", FALSE, &a->qkv_bias, error) ||
          !get_bool_default (obj, source, "qk_layernorm", FALSE, &a->qk_norm, error) ||
          !get_bool_default (obj, source, "use_parallel_residual", FALSE, &a->parallel, error))
        return FALSE;
      /* StableLmLayerNormPerHead: a LayerNorm without bias for each head. */
      a->qk_norm_full = a->qk_norm;
      a->block_norms = a->parallel ? 1 : 2;
    }
  else if (g_str_equal (type, "baichuan"))
    {
      /* Baichuan 2 13B replaces rotary positions with ALiBi: no parameters either way. */
      if (hidden == 5120)
        a->alibi = TRUE;
    }
  else if (g_str_equal (type, "chatglm"))
    {
      gboolean multi_query = FALSE, rmsnorm = TRUE, linear_bias = FALSE;
      guint64 groups = 0;

      if (!get_bool_default (obj, source, "multi_query_attention", FALSE, &multi_query, error) ||
          !plx_json_get_uint (obj, source, "model", "multi_query_group_num", FALSE, 1, MAX_DIM, &groups, error) ||
          !get_bool_default (obj, source, "add_qkv_bias", FALSE, &a->qkv_bias, error) ||
          !get_bool_default (obj, source, "add_bias_linear", FALSE, &linear_bias, error) ||
          !get_bool_default (obj, source, "rmsnorm", TRUE, &rmsnorm, error))
        return FALSE;
      if (multi_query && groups > 0)
        *kv_heads = groups;
      a->out_bias = a->mlp_bias = linear_bias;
      a->layernorm = a->norm_bias = !rmsnorm;
    }
  else if (g_str_equal (type, "gpt_oss"))
    {
      /* OpenAI gpt-oss model card (2025) §2.1: experts with biases, a router with a
       * bias, attention with biases and a learned sink per head, alternating banded
       * (128-token) and full attention (layer_types). */
      if (!get_bool_default (obj, source, "attention_bias", TRUE, &flag, error))
        return FALSE;
      a->qkv_bias = a->out_bias = flag;
      a->expert_bias = TRUE;
      a->attn_sinks = TRUE;
    }
  else if (g_str_equal (type, "gemma3_text"))
    {
      *tied = TRUE;
      a->block_norms = 4;
      a->qk_norm = TRUE;
    }
  return TRUE;
}

static gboolean
parse_family (PlxModel *m, JsonObject *obj, const char *source, const char *type, GError **error)
{
  static const char *const layer_keys[] = { "num_hidden_layers", "n_layer", "n_layers", "num_layers", NULL };
  static const char *const hidden_keys[] = { "hidden_size", "n_embd", "n_embed", "d_model", NULL };
  static const char *const head_keys[] = { "num_attention_heads", "n_head", "n_heads", NULL };
  static const char *const kv_keys[] = { "num_key_value_heads", "num_kv_heads", NULL };
  static const char *const ffn_keys[] = { "intermediate_size", "ffn_dim", "ffn_hidden_size", "n_inner", NULL };
  static const char *const pos_keys[] = { "max_position_embeddings", "n_positions", "max_seq_len", "seq_length",
                                          "model_max_length", NULL };
  /* ChatGLM names its head width kv_channels. */
  static const char *const head_dim_keys[] = { "head_dim", "kv_channels", NULL };
  /* ChatGLM's embedding holds its padded vocabulary. */
  static const char *const vocab_keys[] = { "padded_vocab_size", "vocab_size", NULL };
  PlxModelArch *a = &m->arch;
  JsonObject *ffn_obj = obj, *attn_obj = obj;
  guint64 layers = 0, hidden = 0, heads = 0, kv_heads = 0, ffn = 0, vocab = 0, positions = 2048, head_dim = 0;
  guint64 experts = 0, per_tok = 0, shared = 0, embed_dim = 0;
  gboolean tied, flag;

  a->generic = TRUE;
  a->block_norms = 2;
  if (g_str_equal (type, "dbrx"))
    {
      /* DBRX nests its attention and FFN settings. */
      if ((attn_obj = plx_json_get_object (obj, source, "model", "attn_config", TRUE, error)) == NULL ||
          (ffn_obj = plx_json_get_object (obj, source, "model", "ffn_config", TRUE, error)) == NULL)
        return FALSE;
    }
  {
    static const char *const dbrx_kv[] = { "kv_n_heads", NULL };
    static const char *const moe_e[] = { "num_experts", "num_local_experts", "moe_num_experts", "n_routed_experts",
                                         NULL };
    static const char *const moe_k[] = { "num_experts_per_tok", "moe_top_k", NULL };
    static const char *const moe_w[] = { "moe_intermediate_size", NULL };
    static const char *const shared_w[] = { "shared_expert_intermediate_size", NULL };
    static const char *const embed_w[] = { "word_embed_proj_dim", NULL };

    if (!get_dim_any (obj, source, layer_keys, TRUE, MAX_LAYERS, &layers, error) ||
        !get_dim_any (obj, source, hidden_keys, TRUE, MAX_DIM, &hidden, error) ||
        !get_dim_any (obj, source, head_keys, TRUE, MAX_DIM, &heads, error) ||
        !get_dim_any (attn_obj, source, attn_obj == obj ? kv_keys : dbrx_kv, FALSE, MAX_DIM, &kv_heads, error) ||
        !get_dim_any (ffn_obj, source, ffn_keys, FALSE, MAX_DIM * 10, &ffn, error) ||
        !get_dim_any (obj, source, vocab_keys, TRUE, MAX_DIM * 10, &vocab, error) ||
        !get_dim_any (obj, source, pos_keys, FALSE, MAX_DIM * 10, &positions, error) ||
        !get_dim_any (obj, source, head_dim_keys, FALSE, MAX_DIM, &head_dim, error) ||
        !get_dim_any (ffn_obj, source, moe_e, FALSE, 100000, &experts, error) ||
        !get_dim_any (ffn_obj, source, moe_k, FALSE, 100000, &per_tok, error) ||
        !get_dim_any (obj, source, moe_w, FALSE, MAX_DIM * 10, &ffn, error) ||
        /* 0 says no shared expert (Qwen3-MoE configs write it so). */
        !plx_json_get_uint (obj, source, "model", shared_w[0], FALSE, 0, MAX_DIM * 10, &shared, error) ||
        !get_dim_any (obj, source, embed_w, FALSE, MAX_DIM, &embed_dim, error))
      return FALSE;
  }

  /* Per family: norms, biases, MLP shape, positions, tied embeddings by default. */
  tied = FALSE;
  a->gated = TRUE;
  if (g_str_equal (type, "qwen3") || g_str_equal (type, "qwen3_moe"))
    a->qk_norm = TRUE;
  else if (g_str_equal (type, "qwen2"))
    a->qkv_bias = TRUE;
  else if (g_str_equal (type, "qwen2_moe"))
    {
      a->qkv_bias = TRUE;
      a->shared_ffn = shared;
      a->shared_gate = shared > 0;
    }
  else if (g_str_equal (type, "gemma") || g_str_equal (type, "gemma2"))
    {
      tied = TRUE;
      a->block_norms = g_str_equal (type, "gemma2") ? 4 : 2;
    }
  else if (g_str_equal (type, "gpt_neox"))
    {
      a->layernorm = a->norm_bias = a->qkv_bias = a->out_bias = a->mlp_bias = TRUE;
      a->gated = FALSE;
      if (!get_bool_default (obj, source, "use_parallel_residual", TRUE, &a->parallel, error))
        return FALSE;
    }
  else if (g_str_equal (type, "opt"))
    {
      tied = TRUE;
      a->layernorm = a->norm_bias = a->gated = FALSE;
      a->layernorm = a->norm_bias = TRUE;
      if (!get_bool_default (obj, source, "enable_bias", TRUE, &flag, error))
        return FALSE;
      a->qkv_bias = a->out_bias = a->mlp_bias = flag;
      m->learned_positions = TRUE;
      a->position_offset = 2;   /* OPTLearnedPositionalEmbedding's offset */
      a->embed_dim = embed_dim != hidden ? embed_dim : 0;
    }
  else if (g_str_equal (type, "falcon"))
    {
      gboolean new_arch = FALSE, multi_query = TRUE;
      tied = TRUE;
      a->gated = FALSE;
      a->layernorm = a->norm_bias = TRUE;
      if (!get_bool_default (obj, source, "bias", FALSE, &flag, error) ||
          !get_bool_default (obj, source, "parallel_attn", TRUE, &a->parallel, error) ||
          !get_bool_default (obj, source, "new_decoder_architecture", FALSE, &new_arch, error) ||
          !get_bool_default (obj, source, "multi_query", TRUE, &multi_query, error))
        return FALSE;
      a->qkv_bias = a->out_bias = a->mlp_bias = flag;
      a->block_norms = new_arch || !a->parallel ? 2 : 1;
      if (!new_arch)
        kv_heads = multi_query ? 1 : heads;
    }
  else if (g_str_equal (type, "bloom"))
    {
      tied = TRUE;
      a->gated = FALSE;
      a->layernorm = a->norm_bias = a->qkv_bias = a->out_bias = a->mlp_bias = TRUE;
      a->alibi = a->embedding_norm = TRUE;
    }
  else if (g_str_equal (type, "dbrx"))
    {
      a->layernorm = TRUE;
      a->norm_bias = FALSE;
    }
  else if ((g_str_has_prefix (type, "deepseek_v") || g_str_equal (type, "kimi_k2")) &&
           !parse_deepseek (m, obj, source, type, layers, &head_dim, &kv_heads, heads, experts, ffn, error))
    return FALSE;
  else if (!parse_more_families (m, obj, source, type, hidden, heads, &kv_heads, &ffn, &tied, error))
    return FALSE;
  if (!get_bool_default (obj, source, "tie_word_embeddings", tied, &tied, error))
    return FALSE;
  /* A gated MLP has no conventional width: its config must say it. */
  if (a->gated && ffn == 0 && !get_dim_any (ffn_obj, source, ffn_keys, TRUE, MAX_DIM * 10, &ffn, error))
    return FALSE;

  if (kv_heads == 0)
    kv_heads = heads;
  if (heads % kv_heads != 0 || (head_dim == 0 && hidden % heads != 0))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%s: model: %" G_GUINT64_FORMAT " attention heads do not split %" G_GUINT64_FORMAT
                   " hidden units over %" G_GUINT64_FORMAT " key/value heads", source, heads, hidden, kv_heads);
      return FALSE;
    }
  if (experts > 0 && (per_tok == 0 || per_tok > experts))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%s: model: %" G_GUINT64_FORMAT " experts per token of %" G_GUINT64_FORMAT " experts",
                   source, per_tok, experts);
      return FALSE;
    }
  /* gpt-oss's router is a linear layer with a bias. */
  if (a->expert_bias)
    a->router_bias = experts;
  m->n_layers = (guint) layers;
  m->hidden = hidden;
  m->heads = (guint) heads;
  m->kv_heads = (guint) kv_heads;
  m->head_dim = head_dim > 0 ? head_dim : hidden / heads;
  m->ffn = ffn > 0 ? ffn : 4 * hidden;
  m->vocab = vocab;
  m->max_positions = positions;
  m->tied_embeddings = tied;
  m->dropout = FALSE;
  m->experts = (guint) experts;
  m->experts_per_token = (guint) per_tok;
  return TRUE;
}

/* Mamba (mamba, falcon_mamba) and Mamba-2 (mamba2) configs: MambaConfig's and
 * Mamba2Config's keys. */
static gboolean
parse_mamba (PlxModel *m, JsonObject *obj, const char *source, const char *type, GError **error)
{
  static const char *const layer_k[] = { "num_hidden_layers", "n_layer", NULL };
  static const char *const hidden_k[] = { "hidden_size", "d_model", NULL };
  PlxModelArch *a = &m->arch;
  guint64 layers = 0, hidden = 0, vocab = 0, state = 16, expand = 2, conv = 4, heads = 0, head_dim = 0, groups = 1;
  guint64 chunk = 256, dt_rank = 0, inner = 0;
  gboolean two = g_str_equal (type, "mamba2"), tied = !two, bias = FALSE, conv_bias = TRUE;
  JsonNode *rank = json_object_get_member (obj, "time_step_rank");

  if (!get_dim_any (obj, source, layer_k, TRUE, MAX_LAYERS, &layers, error) ||
      !get_dim_any (obj, source, hidden_k, TRUE, MAX_DIM, &hidden, error) ||
      !get_dim (obj, source, "intermediate_size", FALSE, MAX_DIM * 10, &inner, error) ||
      !get_dim (obj, source, "vocab_size", TRUE, MAX_DIM * 10, &vocab, error) ||
      !get_dim (obj, source, "state_size", FALSE, MAX_DIM, &state, error) ||
      !get_dim (obj, source, "expand", FALSE, 1000, &expand, error) ||
      !get_dim (obj, source, "conv_kernel", FALSE, 1000, &conv, error) ||
      !get_bool_default (obj, source, "use_bias", FALSE, &bias, error) ||
      !get_bool_default (obj, source, "use_conv_bias", TRUE, &conv_bias, error) ||
      !get_bool_default (obj, source, "tie_word_embeddings", tied, &tied, error))
    return FALSE;
  if (two &&
      (!get_dim (obj, source, "num_heads", TRUE, MAX_DIM, &heads, error) ||
       !get_dim (obj, source, "head_dim", TRUE, MAX_DIM, &head_dim, error) ||
       !get_dim (obj, source, "n_groups", FALSE, MAX_DIM, &groups, error) ||
       !get_dim (obj, source, "chunk_size", FALSE, MAX_DIM, &chunk, error)))
    return FALSE;
  /* time_step_rank: a number, or "auto": ceil(hidden / 16) (MambaConfig). */
  if (rank != NULL && JSON_NODE_HOLDS_VALUE (rank) && json_node_get_value_type (rank) != G_TYPE_STRING &&
      !get_dim (obj, source, "time_step_rank", TRUE, MAX_DIM, &dt_rank, error))
    return FALSE;
  if (dt_rank == 0)
    dt_rank = (hidden + 15) / 16;
  /* transformers derives the inner width as expand x hidden, but a config that
   * states intermediate_size is loaded with it (the key overrides the derived
   * attribute): Falcon-Mamba's says 8192 beside an expand of 16. */
  if (inner == 0)
    inner = expand * hidden;
  if (two && (heads * head_dim != inner || heads % groups != 0))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%s: model: num_heads %" G_GUINT64_FORMAT " x head_dim %" G_GUINT64_FORMAT " is not the inner width %"
                   G_GUINT64_FORMAT " (expand x hidden_size), or n_groups %" G_GUINT64_FORMAT
                   " does not divide the heads", source, heads, head_dim, inner, groups);
      return FALSE;
    }
  a->generic = TRUE;
  a->ssm_version = two ? 2 : 1;
  a->ssm_inner = inner;
  a->ssm_state = state;
  a->ssm_heads = two ? heads : 1;
  a->ssm_groups = two ? groups : 1;
  a->ssm_conv = conv;
  a->ssm_chunk = two ? chunk : 0;
  a->ssm_dt_rank = two ? 0 : dt_rank;
  a->mlp_bias = bias;      /* in_proj and out_proj */
  a->out_bias = conv_bias; /* the convolution */
  m->n_layers = (guint) layers;
  m->hidden = hidden;
  /* Tensor parallelism splits heads and groups (Mamba-2) - the whole inner width as
   * one head for Mamba, which Parallax then keeps on one GPU. */
  m->heads = (guint) a->ssm_heads;
  m->kv_heads = (guint) a->ssm_groups;
  m->head_dim = a->ssm_inner / a->ssm_heads;
  m->ffn = a->ssm_inner;
  m->vocab = vocab;
  m->tied_embeddings = tied;
  m->learned_positions = FALSE;
  m->dropout = FALSE;
  /* No positions to bound the sequence: the default sequence length. */
  m->max_positions = 4096;
  return TRUE;
}

/* A model object is a Hugging Face config: real ones hold dozens of keys Parallax
 * has no use for (bos_token_id, rope_theta, torch_dtype), so unknown keys cannot all
 * be refused. A key within a typo of one that is read, though ("n_layr"), would
 * silently leave the default in place: that is refused, naming the key meant. */
static gboolean
near_miss_keys (JsonObject *obj,
                const char *source,
                const char *model_type,
                GError    **error)
{
  static const char *const gpt2_keys[] = { "model_type", "name", "source", "preset", "_name_or_path", "n_layer",
                                           "n_embd", "n_head", "vocab_size", "n_positions", "n_inner", "n_ctx",
                                           NULL };
  static const char *const llama_keys[] = { "model_type", "name", "source", "preset", "_name_or_path",
                                            "num_hidden_layers", "hidden_size", "num_attention_heads",
                                            "num_key_value_heads", "intermediate_size", "vocab_size",
                                            "max_position_embeddings", "head_dim", "tie_word_embeddings",
                                            "num_local_experts", "num_experts_per_tok", "sliding_window",
                                            "use_sliding_window", "attn_logit_softcapping",
                                            "final_logit_softcapping", NULL };
  static const char *const deepseek_keys[] = { "model_type", "name", "source", "preset", "_name_or_path",
                                               "num_hidden_layers", "hidden_size", "num_attention_heads",
                                               "num_key_value_heads", "intermediate_size", "vocab_size",
                                               "max_position_embeddings", "tie_word_embeddings",
                                               "num_experts_per_tok", "n_routed_experts", "n_shared_experts",
                                               "moe_intermediate_size", "first_k_dense_replace", "moe_layer_freq",
                                               "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim",
                                               "qk_rope_head_dim", "v_head_dim", "topk_method", NULL };
  const char *const *known = g_str_equal (model_type, "gpt2") ? gpt2_keys
                             : g_str_has_prefix (model_type, "deepseek_v") || g_str_equal (model_type, "kimi_k2")
                               ? deepseek_keys
                               : llama_keys;

  return plx_json_check_near_keys (obj, source, "model", known, error);
}

/* Keys a Hugging Face config may leave out because transformers' configuration
 * class supplies them (configuration_<type>.py's __init__ defaults). Only those
 * whose absence would otherwise refuse a real config: the vocabulary. */
static const struct
{
  const char *type;
  const char *key;
  gint64      value;
} hf_defaults[] = {
  { "llama", "vocab_size", 32000 },      { "mistral", "vocab_size", 32000 },   { "mixtral", "vocab_size", 32000 },
  { "gemma", "vocab_size", 256000 },     { "gemma2", "vocab_size", 256000 },   { "gemma3_text", "vocab_size", 262208 },
  { "qwen2", "vocab_size", 151936 },     { "cohere", "vocab_size", 256000 },   { "phi", "vocab_size", 51200 },
  { "gptj", "vocab_size", 50400 },       { "codegen", "vocab_size", 50400 },   { "gpt_bigcode", "vocab_size", 50257 },
  { "stablelm", "vocab_size", 50304 },   { "mpt", "vocab_size", 50368 },       { "olmo2", "vocab_size", 50304 },
  { "granite", "vocab_size", 32000 },
};

/* Model types Parallax recognises but cannot build yet, with what they need. */
static const struct
{
  const char *type;
  const char *needs;
} not_yet[] = {
  { "gemma3", "a vision encoder beside its language model (text_config)" },
  { "mllama", "a vision encoder with cross-attention blocks" },
  { "qwen2_5_vl", "a vision encoder beside its language model" },
  { "qwen2_vl", "a vision encoder beside its language model" },
  { "mistral3", "a vision encoder beside its language model (text_config)" },
  { "llava", "a vision encoder beside its language model (text_config)" },
  { "llama4", "experts on alternate blocks, chunked attention and blocks without positions, and a vision encoder" },
  { "minimax_m2", "its block as the config describes it" },
  { "qwen3_next", "linear-attention (Gated DeltaNet) blocks between attention blocks" },
  { "qwen3_5", "linear-attention (Gated DeltaNet) blocks between attention blocks" },
  { "qwen3_5_moe", "linear-attention (Gated DeltaNet) blocks between attention blocks" },
  { "nemotron-nas", "a different block per layer (block_configs)" },
  { "nemotron_h", "Mamba-2 blocks beside attention blocks" },
  { "jamba", "Mamba blocks beside attention blocks, with experts" },
  { "t5", "an encoder and a decoder with cross-attention" },
  { "mt5", "an encoder and a decoder with cross-attention" },
  { "umt5", "an encoder and a decoder with cross-attention" },
  { "bart", "an encoder and a decoder with cross-attention" },
  { "whisper", "an audio encoder and a decoder with cross-attention" },
};

PlxModel *
plx_model_new_from_json (JsonNode   *config,
                         const char *source,
                         GError    **error)
{
  g_autoptr (PlxModel) m = NULL;
  g_autoptr (JsonNode) merged = NULL;
  JsonObject *obj;
  const char *model_type = NULL;
  const char *name = NULL;
  gboolean ok, had_preset;

  if (config == NULL || !JSON_NODE_HOLDS_OBJECT (config))
    {
      g_autofree char *value = plx_json_value_to_string (config);
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                   "%s: model: %s is not an object", source, value);
      return NULL;
    }
  obj = json_node_get_object (config);

  merged = plx_presets_expand (PLX_PRESET_MODEL, config, source, "model", &had_preset, error);
  if (merged == NULL)
    return NULL;
  obj = json_node_get_object (merged);

  /* Some configs name only their class: "architectures": ["LlamaForCausalLM"]. */
  if (!json_object_has_member (obj, "model_type") && json_object_has_member (obj, "architectures"))
    {
      static const char *const classes[][2] = { { "GPT2LMHeadModel", "gpt2" }, { "LlamaForCausalLM", "llama" },
                                                { "MistralForCausalLM", "mistral" }, { "Qwen2ForCausalLM", "qwen2" },
                                                { "MixtralForCausalLM", "mixtral" } };
      JsonNode *arch = json_object_get_member (obj, "architectures");
      if (JSON_NODE_HOLDS_ARRAY (arch) && json_array_get_length (json_node_get_array (arch)) > 0)
        {
          JsonNode *first = json_array_get_element (json_node_get_array (arch), 0);
          const char *cls = JSON_NODE_HOLDS_VALUE (first) && json_node_get_value_type (first) == G_TYPE_STRING
                              ? json_node_get_string (first) : "";
          for (guint i = 0; i < G_N_ELEMENTS (classes); i++)
            if (g_str_equal (cls, classes[i][0]))
              json_object_set_string_member (obj, "model_type", classes[i][1]);
        }
    }
  if (!plx_json_get_string (obj, source, "model", "model_type", TRUE, &model_type, error) ||
      !plx_json_get_string (obj, source, "model", "name", FALSE, &name, error))
    return NULL;

  m = g_new0 (PlxModel, 1);
  m->model_type = g_strdup (model_type);
  {
    g_autoptr (GString) assumed = NULL;
    for (guint i = 0; i < G_N_ELEMENTS (hf_defaults); i++)
      if (g_str_equal (model_type, hf_defaults[i].type) && !json_object_has_member (obj, hf_defaults[i].key))
        {
          json_object_set_int_member (obj, hf_defaults[i].key, hf_defaults[i].value);
          if (assumed == NULL)
            assumed = g_string_new (NULL);
          g_string_append_printf (assumed, "%s%s %" G_GINT64_FORMAT, assumed->len > 0 ? ", " : "",
                                  hf_defaults[i].key, hf_defaults[i].value);
        }
    if (assumed != NULL)
      m->assumed = g_string_free (g_steal_pointer (&assumed), FALSE);
  }
  if (g_str_equal (model_type, "gpt2"))
    ok = parse_gpt2 (m, obj, source, error);
  else if (g_str_equal (model_type, "llama") || g_str_equal (model_type, "mistral"))
    ok = parse_llama (m, obj, source, FALSE, error) && parse_window (m, obj, source, model_type, error);
  else if (g_str_equal (model_type, "mixtral"))
    ok = parse_llama (m, obj, source, TRUE, error) && parse_window (m, obj, source, model_type, error);
  else if (is_family (model_type))
    ok = parse_family (m, obj, source, model_type, error) && parse_window (m, obj, source, model_type, error);
  else if (g_str_equal (model_type, "mamba") || g_str_equal (model_type, "falcon_mamba") ||
           g_str_equal (model_type, "mamba2"))
    ok = parse_mamba (m, obj, source, model_type, error);
  else
    {
      g_autofree char *value = plx_json_value_to_string (json_object_get_member (obj, "model_type"));
      for (guint i = 0; i < G_N_ELEMENTS (not_yet); i++)
        if (g_str_equal (model_type, not_yet[i].type))
          {
            g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                         "%s: model.model_type: %s is not supported yet: it needs %s, which Parallax does not model",
                         source, value, not_yet[i].needs);
            return NULL;
          }
      /* The list is long: a long value is cut to keep the message on one short line. */
      if (strlen (value) > 32)
        strcpy (value + 29, "...");
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                   "%s: model.model_type: %s is not supported (supported: gpt2 gpt_neox gptj codegen gpt_bigcode "
                   "opt bloom falcon mpt llama mistral mixtral qwen2 qwen3 qwen2_moe qwen3_moe phi phi3 gemma gemma2 "
                   "gemma3_text olmo2 olmo3 granite cohere stablelm baichuan chatglm dbrx deepseek_v2 deepseek_v3 "
                   "kimi_k2)",
                   source, value);
      return NULL;
    }
  if (!ok)
    return NULL;

  if (!near_miss_keys (obj, source, model_type, error))
    return NULL;

  /* Hugging Face's own name for the model, checked as every string is. */
  if (name == NULL)
    {
      const char *hf_name = NULL;
      JsonNode *n = json_object_get_member (obj, "_name_or_path");
      if (n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING &&
          !plx_json_get_string (obj, source, "model", "_name_or_path", FALSE, &hf_name, error))
        return NULL;
      /* "./" or a local folder the config was saved from names nothing. */
      if (hf_name != NULL && (hf_name[0] == '.' || hf_name[0] == '/' || hf_name[0] == '\0'))
        hf_name = NULL;
      name = hf_name != NULL ? hf_name : model_type;
    }
  m->name = g_strdup (name);
  model_build_ops (m);

  /* Keep every later count inside 64 bits: 10^15 parameters is a thousand times
   * the largest model ever trained. */
  {
    double total = 0.0;
    for (guint i = 0; i < m->n_layer_ops; i++)
      total += (double) m->layer_ops[i].params * (m->layer_ops[i].expert ? MAX (m->experts, 1) : 1) *
               plx_model_op_layers (m, &m->layer_ops[i]);
    total += (double) m->vocab * m->hidden * 2.0;
    if (total > 1e15)
      {
        g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                     "%s: model: %.3g parameters is beyond what Parallax models (at most 1e15)", source, total);
        return NULL;
      }
  }
  return g_steal_pointer (&m);
}

PlxModel *
plx_model_new_preset (const char *name,
                      GError    **error)
{
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *obj = json_object_new ();

  json_object_set_string_member (obj, "preset", name);
  json_node_take_object (node, obj);
  return plx_model_new_from_json (node, "preset", error);
}

PlxModel *
plx_model_copy (const PlxModel *model)
{
  PlxModel *copy = g_memdup2 (model, sizeof *model);

  copy->name = g_strdup (model->name);
  copy->model_type = g_strdup (model->model_type);
  copy->assumed = g_strdup (model->assumed);
  copy->pre_ops = g_memdup2 (model->pre_ops, model->n_pre_ops * sizeof (PlxOp));
  copy->layer_ops = g_memdup2 (model->layer_ops, model->n_layer_ops * sizeof (PlxOp));
  copy->post_ops = g_memdup2 (model->post_ops, model->n_post_ops * sizeof (PlxOp));
  return copy;
}

void
plx_model_free (PlxModel *model)
{
  if (model == NULL)
    return;
  g_free (model->name);
  g_free (model->model_type);
  g_free (model->assumed);
  g_free (model->pre_ops);
  g_free (model->layer_ops);
  g_free (model->post_ops);
  g_free (model);
}

guint
plx_model_op_layers (const PlxModel *model,
                     const PlxOp    *op)
{
  return plx_model_layers_holding (model, (PlxOpLayers) op->layers);
}

double
plx_model_layers_share (const PlxModel *model,
                        PlxOpLayers     which)
{
  return (double) plx_model_layers_holding (model, which) / model->n_layers;
}

guint
plx_model_layers_holding (const PlxModel *model,
                          PlxOpLayers     which)
{
  guint dense = MIN (model->arch.dense_layers, model->n_layers);

  switch (which)
    {
    case PLX_OP_LAYERS_DENSE:
      return dense;
    case PLX_OP_LAYERS_MOE:
      return model->n_layers - dense;
    case PLX_OP_LAYERS_ALL:
    default:
      return model->n_layers;
    }
}

/* An expert op's params are one expert's; `experts` says how many count. A block
 * op counts once per block that holds it (`model` given), else once. */
static guint64
sum_params (const PlxModel *model,
            const PlxOp    *ops,
            guint           n,
            guint           experts)
{
  guint64 total = 0;

  for (guint i = 0; i < n; i++)
    total += ops[i].params * (ops[i].expert ? experts : 1) * (model != NULL ? plx_model_op_layers (model, &ops[i]) : 1);
  return total;
}

guint64
plx_model_get_n_params (const PlxModel *model)
{
  return sum_params (NULL, model->pre_ops, model->n_pre_ops, model->experts) +
         sum_params (model, model->layer_ops, model->n_layer_ops, model->experts) +
         sum_params (NULL, model->post_ops, model->n_post_ops, model->experts);
}

char *
plx_model_describe_blocks (const PlxModel *model)
{
  const PlxModelArch *a = &model->arch;
  guint n = model->n_layers, dense = MIN (a->dense_layers, n);
  GString *s = g_string_new (NULL);
  gboolean alike = TRUE;

  if (a->ssm_version > 0)
    {
      /* TRANSLATORS: "64 Mamba-2 blocks, state size 128": a state-space model. */
      g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "%u Mamba%s block, state size %u",
                                              "%u Mamba%s blocks, state size %u", n),
                              n, a->ssm_version == 2 ? "-2" : "", (guint) a->ssm_state);
      return g_string_free (s, FALSE);
    }
  g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE, "%u block", "%u blocks", n), n);
  if (model->experts > 0)
    {
      g_autofree char *top = NULL;
      /* Shared experts: DeepSeek's n_shared_experts of the routed width. */
      guint shared = a->shared_ffn > 0 && model->ffn > 0 ? (guint) MAX (a->shared_ffn / model->ffn, 1) : 0;

      top = shared > 0 ? g_strdup_printf (_("top %u, %u shared"), model->experts_per_token, shared)
                       : g_strdup_printf (_("top %u"), model->experts_per_token);
      if (dense > 0)
        /* TRANSLATORS: "61 blocks: 3 dense, 58 with 256 experts (top 8, 1 shared)". */
        g_string_append_printf (s, _(": %u dense, %u with %u experts (%s)"), dense, n - dense, model->experts, top);
      else
        g_string_append_printf (s, _(", each with %u experts (%s)"), model->experts, top);
      alike = dense == 0;
    }
  if (a->sliding_window > 0 && a->sliding_share > 0.0)
    {
      guint sliding = (guint) round (a->sliding_share * n);
      const char *sep = model->experts > 0 ? "; " : ": ";
      /* The width as text: a 64-bit format inside a message would not reach the
       * translation catalogue intact. */
      g_autofree char *window = g_strdup_printf ("%" G_GUINT64_FORMAT, a->sliding_window);

      if (sliding >= n)
        g_string_append_printf (s, _("%sall with a sliding window of %s tokens"), sep, window);
      else
        {
          g_string_append_printf (s, _("%s%u with a sliding window of %s tokens, %u global"), sep, sliding, window,
                                  n - sliding);
          alike = FALSE;
        }
    }
  if (a->kv_lora_rank > 0)
    g_string_append (s, _("; latent attention"));
  if (alike && model->experts == 0 && a->sliding_window == 0)
    g_string_append (s, _(", all alike"));
  return g_string_free (s, FALSE);
}

char *
plx_model_format_params (guint64 n)
{
  enum { THOUSANDS, MILLIONS, BILLIONS, TRILLIONS, N_UNITS };
  double v = (double) n / 1e3;
  guint u = 0;
  int decimals;
  g_autofree char *digits = NULL;

  if (n < 1000)
    return g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  while (u + 1 < N_UNITS && v >= 1000.0)
    v /= 1000.0, u++;
  /* Rounding to three digits may carry into a fourth (999.7 M): the next unit up. */
  for (;;)
    {
      decimals = v >= 99.95 ? 0 : v >= 9.995 ? 1 : 2;
      if (round (v * pow (10, decimals)) < 1000.0 * pow (10, decimals) || u + 1 >= N_UNITS)
        break;
      v /= 1000.0, u++;
    }
  digits = g_strdup_printf ("%.*f", decimals, v);
  /* TRANSLATORS: thousands, millions, billions and trillions of parameters. */
  switch (u)
    {
    case THOUSANDS:
      return g_strdup_printf (_("%s k"), digits);
    case MILLIONS:
      return g_strdup_printf (_("%s M"), digits);
    case BILLIONS:
      return g_strdup_printf (_("%s B"), digits);
    default:
      return g_strdup_printf (_("%s T"), digits);
    }
}

guint64
plx_model_get_n_active_params (const PlxModel *model)
{
  guint k = model->experts_per_token;

  return sum_params (NULL, model->pre_ops, model->n_pre_ops, k) +
         sum_params (model, model->layer_ops, model->n_layer_ops, k) +
         sum_params (NULL, model->post_ops, model->n_post_ops, k);
}

double
plx_model_get_forward_flops (const PlxModel *model,
                             guint64         seq_length)
{
  double s = (double) seq_length;
  double layer = 0.0, post = 0.0;
  /* The blocks holding each kind of op, by PlxOpLayers: counted once, not per op. */
  double holding[] = { plx_model_layers_holding (model, PLX_OP_LAYERS_ALL),
                       plx_model_layers_holding (model, PLX_OP_LAYERS_DENSE),
                       plx_model_layers_holding (model, PLX_OP_LAYERS_MOE) };

  G_STATIC_ASSERT (PLX_OP_LAYERS_ALL == 0 && PLX_OP_LAYERS_DENSE == 1 && PLX_OP_LAYERS_MOE == 2);
  for (guint i = 0; i < model->n_layer_ops; i++)
    {
      const PlxOp *op = &model->layer_ops[i];
      double tokens = op->expert ? s * model->experts_per_token : s;

      double blocks = op->layers < G_N_ELEMENTS (holding) ? holding[op->layers] : plx_model_op_layers (model, op);

      if (op->kind == PLX_OP_MATMUL || op->kind == PLX_OP_SSM_SCAN)
        layer += blocks * 2.0 * tokens * op->k * op->n;
      else if (op->kind == PLX_OP_ATTN_SCORES || op->kind == PLX_OP_ATTN_VALUES)
        layer += blocks * 2.0 * s * s * model->heads * op->k;
    }
  for (guint i = 0; i < model->n_post_ops; i++)
    if (model->post_ops[i].kind == PLX_OP_MATMUL)
      post += 2.0 * s * model->post_ops[i].k * model->post_ops[i].n;
  return layer + post;
}
