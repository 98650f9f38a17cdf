/* Serving a transformer (docs/inference.md): prefill and decode with a KV cache.
 *
 * Each forward pass is the training model's forward ops at inference's shapes -
 * prefill: every prompt token, keys over the prompt; decode: one token a sequence,
 * keys over the whole context (Pope et al. 2022, "Efficiently Scaling Transformer
 * Inference", §2: decode is bound by reading the weights and the KV cache). The
 * op costs are plx_op_cost's rooflines; decode attention reads each sequence's
 * cache once per step. Tensor parallelism adds Megatron's two all-reduces a block
 * (Shoeybi et al. 2019 §3); pipeline stages run one after another for a batch, with
 * a send between each (no overlap across batches: a latency view). */
#include <math.h>
#include <string.h>

#include "hardware/plx-collective.h"
#include "parallax/plx-error.h"
#include "parallax/plx-inference.h"
#include "cost/plx-op-cost.h"

typedef struct
{
  const PlxModel   *model;
  const PlxCluster *cluster;
  PlxShardContext   ctx;
  PlxGroup          tp_group, pp_group;
  double            eb;              /* bytes an element, activation or weight (fp8 kept in 16 bits) */
} Serve;

/* Ops that do not run when serving: dropout, the loss; and the attention kernel
 * not chosen (inference kernels are fused: FlashAttention, FlashDecoding). */
static gboolean
skipped (const PlxOp *op)
{
  if (op->kind == PLX_OP_ATTN_SCORES || op->kind == PLX_OP_ATTN_VALUES || op->attn_core)
    return TRUE;
  return strstr (op->name, "dropout") != NULL || g_str_equal (op->name, "cross_entropy");
}

/* Bytes of KV cache a token holds on a GPU, per layer: keys and values of every kv
 * head (GQA shares them; Ainslie et al. 2023), or with MLA the compressed latent and
 * the rotary key, not split by TP (DeepSeek-V2 §2.1.3). */
static double
kv_bytes_per_token (const Serve *sv)
{
  const PlxModel *m = sv->model;

  /* A state-space model keeps a state of fixed size a sequence instead
   * (ssm_state_bytes). */
  if (m->arch.ssm_version > 0)
    return 0.0;
  if (m->arch.kv_lora_rank > 0)
    return (double) (m->arch.kv_lora_rank + m->arch.rope_head_dim) * sv->eb;
  return 2.0 * ((double) m->kv_heads / sv->ctx.tp) * (double) m->head_dim * sv->eb;
}

/* Decode attention for `rows` new tokens (one a sequence) over `context` cached keys
 * each: Q K^T and P V, 4 x heads x context x head_dim FLOPs a token, while reading
 * the cache - keys and values of every kv head (GQA shares them; Ainslie et al. 2023)
 * or, with MLA, the compressed latent and the rotary key (DeepSeek-V2 §2.1.3). */
static double
decode_attention_time (const Serve *sv, const PlxOp *op, double rows, double context, double *flops)
{
  const PlxModel *m = sv->model;
  double heads = (double) m->heads / sv->ctx.tp, d = (double) m->head_dim;
  double f, bytes;

  /* A sliding window of w keys reads at most w of them, in the blocks that have it
   * (Mistral: all; Gemma 2: every other one). */
  if (op != NULL && op->window > 0 && (double) op->window < context && op->window_share > 0.0)
    context = (1.0 - op->window_share) * context + op->window_share * (double) op->window;
  f = 4.0 * heads * rows * context * d;
  bytes = rows * context * kv_bytes_per_token (sv) + 2.0 * rows * heads * d * sv->eb;

  *flops += f;
  return plx_gemm_time (sv->cluster, plx_gemm_dtype (sv->cluster, sv->ctx.dtype, FALSE), f, bytes);
}

/* Bytes of recurrent state a sequence keeps in one block of a state-space model on
 * a GPU: TP splits the heads (plx_model_ssm_state_elems). */
static double
ssm_state_bytes (const Serve *sv)
{
  return (double) plx_model_ssm_state_elems (sv->model) / sv->ctx.tp * sv->eb;
}

/* Decode through a scan for `rows` new tokens, one a sequence: the recurrence
 * h = exp(dt A) h + dt B x, y = C h reads and writes each sequence's state
 * (Gu and Dao 2023 §3.3.2: memory-bound), about 4 FLOPs an element of it. */
static double
decode_scan_time (const Serve *sv, double rows, double *flops)
{
  double elems = (double) plx_model_ssm_state_elems (sv->model) / sv->ctx.tp;
  double f = 4.0 * rows * elems, bytes = 2.0 * rows * ssm_state_bytes (sv);

  *flops += f;
  return plx_gemm_time (sv->cluster, plx_gemm_dtype (sv->cluster, sv->ctx.dtype, FALSE), f, bytes);
}

/* A block's decode attention ops (each weighted by the share of blocks holding it)
 * at one context: time, and their FLOPs added to *flops. */
static double
attn_time (const Serve *sv, double rows, double context, double *flops)
{
  double t = 0.0;

  for (guint i = 0; i < sv->model->n_layer_ops; i++)
    {
      const PlxOp *op = &sv->model->layer_ops[i];
      double share = plx_model_layers_share (sv->model, (PlxOpLayers) op->layers), f = 0.0;
      if (op->kind == PLX_OP_SSM_SCAN)
        t += share * decode_scan_time (sv, rows, &f);
      else if (op->kind == PLX_OP_ATTN_FLASH)
        t += share * decode_attention_time (sv, op, rows, context, &f);
      else
        continue;
      *flops += share * f;
    }
  return t;
}

/* One block's ops for `tokens` rows attending over `context` keys: time, matmul
 * FLOPs and the largest op's working set. Prefill includes the causal flash kernel;
 * decode leaves attention out, costed each step at its own context (attn_time). */
static double
block_time (Serve *sv, double tokens, double per_seq, double context, gboolean decode, double *flops,
            double *largest)
{
  double t = 0.0;

  sv->ctx.tokens = tokens;
  sv->ctx.seq_kv = decode ? context : per_seq;
  for (guint i = 0; i < sv->model->n_layer_ops; i++)
    {
      const PlxOp *op = &sv->model->layer_ops[i];
      double share = plx_model_layers_share (sv->model, (PlxOpLayers) op->layers);
      PlxOpCost c;

      if (op->kind == PLX_OP_ATTN_FLASH || op->kind == PLX_OP_SSM_SCAN ? decode : skipped (op))
        continue;
      plx_op_cost (op, &sv->ctx, sv->cluster, &c);
      t += share * c.fwd_time_s;
      *flops += share * c.fwd_flops;
      /* the working set: what the op reads and writes, less its weights (counted apart) */
      *largest = MAX (*largest, c.fwd_bytes - c.params * sv->eb);
    }
  /* Megatron's all-reduce after the attention and after the MLP (Shoeybi §3). */
  if (sv->ctx.tp > 1)
    t += 2.0 * plx_collective_time (sv->cluster, PLX_COLLECTIVE_ALL_REDUCE, &sv->tp_group,
                                    tokens * (double) sv->model->hidden * sv->eb);
  return t;
}

/* The ops before the first block (`pre`) or after the last, for `tokens` rows. */
static double
ends_time (Serve *sv, const PlxOp *ops, guint n, double tokens, double *flops, double *largest)
{
  double t = 0.0;

  sv->ctx.tokens = tokens;
  for (guint i = 0; i < n; i++)
    {
      PlxOpCost c;
      if (skipped (&ops[i]))
        continue;
      plx_op_cost (&ops[i], &sv->ctx, sv->cluster, &c);
      t += c.fwd_time_s;
      *flops += c.fwd_flops;
      *largest = MAX (*largest, c.fwd_bytes - c.params * sv->eb);
    }
  return t;
}

static double
params_of (Serve *sv, const PlxOp *ops, guint n, double times)
{
  double p = 0.0;

  for (guint i = 0; i < n; i++)
    {
      PlxOpCost c;
      plx_op_cost (&ops[i], &sv->ctx, sv->cluster, &c);
      p += c.params * (times > 0.0 ? times * plx_model_layers_share (sv->model, (PlxOpLayers) ops[i].layers) : 1.0);
    }
  return p;
}

gboolean
plx_inference_run (const PlxModel      *model,
                   const PlxCluster    *cluster,
                   const PlxStrategy   *s,
                   PlxInferenceReport  *r,
                   GError             **error)
{
  Serve sv = { model, cluster, { 0 }, { 0 }, { 0 }, 0.0 };
  double b, prompt = (double) s->prompt_length, steps = (double) s->decode_tokens;
  double layers_first, layers_last, stage_layers, block_flops = 0.0, largest = 0.0, scratch = 0.0;
  double send_prefill, send_decode, decode_total = 0.0, weights_first, weights_last, ends_flops = 0.0;

  memset (r, 0, sizeof *r);
  if (s->workload != PLX_WORKLOAD_INFERENCE || s->dp == 0 || s->global_batch_size % s->dp != 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "inference: the strategy is not a resolved inference "
                   "strategy");
      return FALSE;
    }
  r->batch_per_replica = s->global_batch_size / s->dp;
  b = (double) r->batch_per_replica;
  sv.ctx.heads = model->heads;
  sv.ctx.tp = s->tp;
  sv.ctx.ep = 1;
  sv.ctx.experts = model->experts;
  sv.ctx.experts_per_token = model->experts_per_token;
  sv.ctx.moe_load = 1.0;
  sv.ctx.dtype = s->dtype;
  sv.ctx.flash = TRUE;
  sv.eb = plx_dtype_bytes (s->dtype == PLX_DTYPE_FP8 ? PLX_DTYPE_BF16 : s->dtype);
  sv.tp_group = plx_group_place (cluster, s->tp, 1);
  sv.pp_group = plx_group_place (cluster, s->pp, s->tp * s->dp);

  /* Layers per stage: even, the remainder on the first stages (the largest stage
   * paces nothing here - stages run one after another - but holds the most). */
  stage_layers = floor ((double) model->n_layers / s->pp);
  layers_first = stage_layers + (model->n_layers % s->pp != 0 ? 1.0 : 0.0);
  layers_last = s->pp == 1 ? layers_first : stage_layers;

  /* Prefill: every prompt token through every block; the LM head on each
   * sequence's last token only (the next token's logits). */
  send_prefill = s->pp > 1 ? plx_collective_time (cluster, PLX_COLLECTIVE_SEND_RECV, &sv.pp_group,
                                                   b * prompt * (double) model->hidden * sv.eb) : 0.0;
  r->prefill_time_s = model->n_layers * block_time (&sv, b * prompt, prompt, prompt, FALSE, &scratch, &largest) +
                      ends_time (&sv, model->pre_ops, model->n_pre_ops, b * prompt, &scratch, &largest) +
                      ends_time (&sv, model->post_ops, model->n_post_ops, b, &scratch, &largest) +
                      (s->pp - 1) * send_prefill;

  /* Decode: one token a sequence a step, the context growing by one each step. The
   * blocks' ops other than attention do not depend on the context: costed once. */
  send_decode = s->pp > 1 ? plx_collective_time (cluster, PLX_COLLECTIVE_SEND_RECV, &sv.pp_group,
                                                  b * (double) model->hidden * sv.eb) : 0.0;
  {
    double unused = 0.0;
    double block_decode_fixed = block_time (&sv, b, 1.0, prompt, TRUE, &block_flops, &unused);
    {
      double ends = ends_time (&sv, model->pre_ops, model->n_pre_ops, b, &ends_flops, &unused) +
                    ends_time (&sv, model->post_ops, model->n_post_ops, b, &ends_flops, &unused);
      double step_fixed = model->n_layers * block_decode_fixed + ends + (s->pp - 1) * send_decode;
      double mean_attn_flops = 0.0;
      for (double k = 0; k < steps; k++)
        {
          double f = 0.0;
          decode_total += step_fixed + model->n_layers * attn_time (&sv, b, prompt + k, &f);
          mean_attn_flops += f / steps;
        }
      r->decode_flops = model->n_layers * (block_flops + mean_attn_flops) + ends_flops;
    }
  }
  r->decode_time_s = decode_total;
  r->decode_time_per_token_s = steps > 0 ? decode_total / steps : 0.0;
  r->request_time_s = r->prefill_time_s + r->decode_time_s;
  r->tokens_per_s = decode_total > 0.0 ? (double) s->global_batch_size * steps / decode_total : 0.0;
  /* The FLOPs above are one tensor-parallel rank's; the replica's are tp times. */
  r->decode_flops *= s->tp;
  r->mfu_decode = r->decode_time_per_token_s > 0.0
                    ? r->decode_flops / (r->decode_time_per_token_s * (double) s->tp * s->pp *
                                         cluster->peak_flops[plx_gemm_dtype (cluster, s->dtype, FALSE)])
                    : 0.0;

  /* Memory on the fullest stage: its weights, its blocks' KV cache for every
   * sequence served, and the largest prefill op's working set with the logits. */
  sv.ctx.tokens = 1.0;
  weights_first = (params_of (&sv, model->layer_ops, model->n_layer_ops, layers_first) +
                   params_of (&sv, model->pre_ops, model->n_pre_ops, 0.0) +
                   (s->pp == 1 ? params_of (&sv, model->post_ops, model->n_post_ops, 0.0) : 0.0)) * sv.eb;
  weights_last = (params_of (&sv, model->layer_ops, model->n_layer_ops, layers_last) +
                  params_of (&sv, model->post_ops, model->n_post_ops, 0.0)) * sv.eb;
  /* A tied LM head reads the embedding table, which the last stage holds a copy of. */
  if (model->tied_embeddings && s->pp > 1)
    weights_last += (double) model->vocab * (double) model->hidden / s->tp * sv.eb;
  {
    double per_token = kv_bytes_per_token (&sv);
    double logits = b * (double) model->vocab / s->tp * 4.0;
    /* A sliding window of w keys needs only the last w in the blocks that have it
     * (a rolling buffer: Mistral 7B, Jiang et al. 2023 §2, "Rolling Buffer Cache");
     * a scan's state does not grow with the context at all. */
    double context = prompt + steps, cached = context;
    double kv_first, kv_last;
    gboolean first;

    if (model->arch.sliding_window > 0 && (double) model->arch.sliding_window < context)
      cached = (1.0 - model->arch.sliding_share) * context +
               model->arch.sliding_share * (double) model->arch.sliding_window;
    kv_first = b * (cached * per_token + ssm_state_bytes (&sv)) * layers_first;
    kv_last = b * (cached * per_token + ssm_state_bytes (&sv)) * layers_last;
    /* One stage holds everything, the logits included; else the fuller of the ends. */
    first = s->pp == 1 || weights_first + kv_first >= weights_last + kv_last + logits;

    r->weights_bytes = first ? weights_first : weights_last;
    r->kv_cache_bytes = first ? kv_first : kv_last;
    r->activation_bytes = largest + (first && s->pp > 1 ? 0.0 : logits);
  }
  r->total_bytes = r->weights_bytes + r->kv_cache_bytes + r->activation_bytes + (double) cluster->reserved_bytes;
  r->fits_in_memory = r->total_bytes <= (double) cluster->hbm_bytes;
  return TRUE;
}

JsonNode *
plx_inference_report_to_json (const PlxInferenceReport *r)
{
  JsonObject *o = json_object_new (), *mem = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (o, "workload", "inference");
  json_object_set_string_member (o, "engine", "analytical");
  json_object_set_int_member (o, "batch_per_replica", (gint64) r->batch_per_replica);
  json_object_set_double_member (o, "prefill_time_s", r->prefill_time_s);
  json_object_set_double_member (o, "time_to_first_token_s", r->prefill_time_s);
  json_object_set_double_member (o, "decode_time_per_token_s", r->decode_time_per_token_s);
  json_object_set_double_member (o, "decode_time_s", r->decode_time_s);
  json_object_set_double_member (o, "step_time_s", r->request_time_s);
  json_object_set_double_member (o, "tokens_per_s", r->tokens_per_s);
  json_object_set_double_member (o, "mfu", r->mfu_decode);
  json_object_set_int_member (mem, "weights", (gint64) r->weights_bytes);
  json_object_set_int_member (mem, "kv_cache", (gint64) r->kv_cache_bytes);
  json_object_set_int_member (mem, "activations", (gint64) r->activation_bytes);
  json_object_set_int_member (mem, "total", (gint64) r->total_bytes);
  json_object_set_object_member (o, "memory_bytes", mem);
  json_object_set_int_member (o, "peak_memory_bytes", (gint64) r->total_bytes);
  json_object_set_boolean_member (o, "fits_in_memory", r->fits_in_memory);
  json_node_take_object (node, o);
  return node;
}

char *
plx_inference_report_to_text (const PlxInferenceReport *r,
                              const PlxStrategy        *s)
{
  GString *t = g_string_new (NULL);
  const double gib = 1073741824.0;

  g_string_append_printf (t, "Workload          inference: %" G_GUINT64_FORMAT " sequences (%" G_GUINT64_FORMAT
                          " a replica), prompts of %" G_GUINT64_FORMAT " tokens, %" G_GUINT64_FORMAT
                          " generated each\n", s->global_batch_size, r->batch_per_replica, s->prompt_length,
                          s->decode_tokens);
  g_string_append_printf (t, "Prefill           %.3f ms (time to first token)\n", r->prefill_time_s * 1e3);
  g_string_append_printf (t, "Decode            %.3f ms a token (mean over the steps), %.3f s in all\n",
                          r->decode_time_per_token_s * 1e3, r->decode_time_s);
  g_string_append_printf (t, "Request           %.3f s from prompt to last token\n", r->request_time_s);
  g_string_append_printf (t, "Throughput        %.0f tokens/s generated (all replicas)\n", r->tokens_per_s);
  g_string_append_printf (t, "MFU (decode)      %.1f %%\n", r->mfu_decode * 100.0);
  g_string_append_printf (t, "Memory per GPU    %.2f GiB: weights %.2f, KV cache %.2f, activations %.2f GiB%s\n",
                          r->total_bytes / gib, r->weights_bytes / gib, r->kv_cache_bytes / gib,
                          r->activation_bytes / gib, r->fits_in_memory ? "" : " - does not fit");
  return g_string_free (t, FALSE);
}
