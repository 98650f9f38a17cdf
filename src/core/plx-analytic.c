/* The analytical engine: closed-form step time and memory for one strategy.
 *
 * Every block is identical, so one block is costed and multiplied; stages differ only
 * in the embedding (first) and the LM head and loss (last). Time composes as Megatron-LM
 * executes a step (Narayanan et al. 2021, "Efficient Large-Scale Language Model
 * Training on GPU Clusters Using Megatron-LM", §2.2, §3): per micro-batch a forward and
 * a backward pass of each stage with its tensor-parallel collectives on the critical
 * path, pipeline sends between stages, the pipeline fill and drain, then the
 * data-parallel gradient reduction (overlapped with the last backward pass) and the
 * optimizer step. Memory follows Korthikanti et al. 2022 §4 (activations) and
 * Rajbhandari et al. 2020 §3.1 (model states). Derivations: docs/cost-model.md. */
#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "parallax/plx-analytic.h"
#include "parallax/plx-collective.h"
#include "parallax/plx-error.h"
#include "parallax/plx-op-cost.h"
#include "parallax/plx-pipeline.h"

typedef struct
{
  double fwd_s;          /* compute, one micro-batch */
  double bwd_s;
  double wgrad_s;        /* weight-gradient part of bwd_s */
  double recompute_s;    /* compute repeated in backward */
  double comm_fwd_s;     /* TP/SP/CP/EP collectives on the critical path */
  double comm_bwd_s;
  double comm_recompute_s;
  double saved_bytes;    /* activations kept per micro-batch under the recompute mode */
  double full_saved_bytes; /* ... with no recompute: alive while a layer's backward runs */
  double recompute_flops;
  double attn_core_s;    /* forward of the attention core, which ring attention overlaps */
  double params;         /* parameters on this rank */
  double expert_params;  /* part of params sharded over the expert-data-parallel group */
} Block;

typedef struct
{
  const PlxModel    *model;
  const PlxCluster  *cluster;
  const PlxStrategy *strategy;
  PlxShardContext    ctx;
  double             act_bytes;   /* one micro-batch's hidden state b*s/cp*h on this rank */
  PlxGroup           tp_group;
  PlxGroup           cp_group;
  PlxGroup           ep_group;
  PlxGroup           dp_group;
  PlxGroup           edp_group;   /* data-parallel group of the expert weights */
  PlxGroup           pp_group;
} Context;

static gboolean
skip_op (const PlxOp *op,
         gboolean     flash)
{
  if (op->kind == PLX_OP_ATTN_FLASH)
    return !flash;
  if (flash && op->attn_core)
    return TRUE;
  return FALSE;
}

static void
cost_ops (const Context *cx,
          const PlxOp   *ops,
          guint          n_ops,
          gboolean       is_layer,
          Block         *b)
{
  PlxRecompute recompute = cx->strategy->recompute;

  for (guint i = 0; i < n_ops; i++)
    {
      const PlxOp *op = &ops[i];
      PlxOpCost c;

      if (skip_op (op, cx->ctx.flash))
        continue;
      plx_op_cost (op, &cx->ctx, cx->cluster, &c);
      b->fwd_s += c.fwd_time_s;
      b->bwd_s += c.bwd_time_s;
      b->wgrad_s += c.wgrad_time_s;
      b->params += c.params;
      if (op->expert)
        b->expert_params += c.params;
      b->full_saved_bytes += c.saved_bytes;
      if (op->attn_core || op->kind == PLX_OP_ATTN_FLASH)
        b->attn_core_s += c.fwd_time_s;

      if (is_layer && recompute == PLX_RECOMPUTE_FULL)
        {
          b->recompute_s += c.fwd_time_s;
          b->recompute_flops += c.fwd_flops;
        }
      else if (is_layer && recompute == PLX_RECOMPUTE_SELECTIVE && op->attn_core)
        {
          /* Korthikanti 2022 §5: the attention core is recomputed; of its saved
           * values only the per-token inputs (Q, K, V) stay. */
          b->recompute_s += c.fwd_time_s;
          b->recompute_flops += c.fwd_flops;
          if (!op->per_score)
            b->saved_bytes += c.saved_bytes;
        }
      else
        b->saved_bytes += c.saved_bytes;
    }

  if (is_layer && recompute == PLX_RECOMPUTE_FULL)
    {
      /* Only each layer's input is checkpointed: 2sbh, or 2sbh/t with sequence
       * parallelism (Korthikanti 2022 Table 2). */
      b->saved_bytes = cx->act_bytes / (cx->ctx.sp ? cx->ctx.tp : 1);
    }
}

static double
coll (const Context *cx, PlxCollectiveKind kind, const PlxGroup *g, double bytes)
{
  return plx_collective_time (cx->cluster, kind, g, bytes);
}

/* Megatron's tensor-parallel collectives of one block (Shoeybi et al. 2019 §3: the f
 * and g operators, two all-reduces forward and two backward), or with sequence
 * parallelism an all-gather and a reduce-scatter in place of each all-reduce
 * (Korthikanti 2022 §4.2.2). Context parallelism gathers K and V around the ring
 * (Liu et al. 2023, Ring Attention), overlapped with attention compute; expert
 * parallelism dispatches and combines tokens with all-to-alls (Lepikhin et al. 2020
 * GShard §2.2), two forward and two backward. */
static void
layer_comm (const Context *cx,
            double         attn_core_s,
            Block         *b)
{
  const PlxStrategy *s = cx->strategy;
  const PlxModel *m = cx->model;
  double fwd = 0.0, bwd = 0.0;

  if (s->tp > 1)
    {
      if (cx->ctx.sp)
        {
          double pair = coll (cx, PLX_COLLECTIVE_ALL_GATHER, &cx->tp_group, cx->act_bytes) +
                        coll (cx, PLX_COLLECTIVE_REDUCE_SCATTER, &cx->tp_group, cx->act_bytes);
          fwd += 2.0 * pair;
          bwd += 2.0 * pair;
        }
      else
        {
          double ar = coll (cx, PLX_COLLECTIVE_ALL_REDUCE, &cx->tp_group, cx->act_bytes);
          fwd += 2.0 * ar;
          bwd += 2.0 * ar;
        }
    }

  if (s->cp > 1)
    {
      double kv = cx->ctx.tokens * 2.0 * m->kv_heads * m->head_dim / s->tp *
                  (cx->act_bytes / (cx->ctx.tokens * m->hidden)) * s->cp;
      double ag = coll (cx, PLX_COLLECTIVE_ALL_GATHER, &cx->cp_group, kv);
      double rs = coll (cx, PLX_COLLECTIVE_REDUCE_SCATTER, &cx->cp_group, kv);
      fwd += MAX (0.0, ag - attn_core_s);
      bwd += MAX (0.0, ag + rs - 2.0 * attn_core_s);
    }

  if (m->experts > 0 && s->ep > 1)
    {
      double bytes = cx->act_bytes * m->experts_per_token / (cx->ctx.sp ? s->tp : 1);
      double a2a = coll (cx, PLX_COLLECTIVE_ALL_TO_ALL, &cx->ep_group, bytes);
      fwd += 2.0 * a2a;
      bwd += 2.0 * a2a;
    }

  b->comm_fwd_s = fwd;
  b->comm_bwd_s = bwd;
  b->comm_recompute_s = s->recompute == PLX_RECOMPUTE_FULL ? fwd : 0.0;
}

typedef struct
{
  double weights, gradients, optimizer, activations, other;
} StageMemory;

/* Bytes per parameter of model states under Megatron mixed precision: 16-bit weights,
 * fp32 gradients (main_grad accumulation for bf16), fp32 master weights and two Adam
 * moments: 2 + 4 + 12 = 18 (Korthikanti 2022 Fig. 1 uses exactly this). fp16 keeps
 * 16-bit gradients (Rajbhandari et al. 2020 §3.1: 2 + 2 + 12 = 16). */
static void
state_bytes (PlxDtype dtype, double *w, double *g, double *o)
{
  switch (dtype)
    {
    case PLX_DTYPE_FP32:
    case PLX_DTYPE_TF32:
      *w = 4.0; *g = 4.0; *o = 8.0;
      break;
    case PLX_DTYPE_FP16:
      *w = 2.0; *g = 2.0; *o = 12.0;
      break;
    case PLX_DTYPE_BF16:
    case PLX_DTYPE_FP8:
    case PLX_N_DTYPES:
    default:
      *w = 2.0; *g = 4.0; *o = 12.0;
      break;
    }
}

static void
stage_memory (const Context *cx,
              const Block   *layer,
              const Block   *pre,
              const Block   *post,
              guint          stage,
              double         m,
              StageMemory   *mem)
{
  const PlxStrategy *s = cx->strategy;
  gboolean first = stage == 0, last = stage == s->pp - 1;
  double layers = (double) cx->model->n_layers / s->pp;
  double chunk_layers = layers / s->virtual_stages;
  double in_flight = plx_pipeline_chunks_in_flight (s->schedule, s->pp, s->virtual_stages, stage, (guint64) m);
  double params = layers * layer->params;
  double expert = layers * layer->expert_params;
  double wb, gb, ob, dense, zdiv, edp, edpdiv;
  double mb_in_flight;

  if (first)
    params += pre->params;
  if (last)
    {
      params += post->params;
      /* Tied embeddings: the last stage keeps its own copy of the word embeddings
       * when it is not also the first (Megatron-LM, Narayanan et al. 2021 §4). */
      if (cx->model->tied_embeddings && s->pp > 1)
        params += (double) cx->model->vocab * cx->model->hidden / s->tp;
    }
  dense = params - expert;
  state_bytes (s->dtype, &wb, &gb, &ob);

  /* ZeRO (Rajbhandari et al. 2020 §5.1): stage 1 shards optimizer states over the
   * data-parallel group, stage 2 also gradients, stage 3 also weights. Expert weights
   * are sharded over their own data-parallel group, dp/ep. */
  zdiv = s->dp;
  edp = MAX (1.0, (double) s->dp / s->ep);
  edpdiv = edp;
  mem->weights = (dense * wb) / (s->zero_stage >= 3 ? zdiv : 1.0) + (expert * wb) / (s->zero_stage >= 3 ? edpdiv : 1.0);
  mem->gradients = (dense * gb) / (s->zero_stage >= 2 ? zdiv : 1.0) + (expert * gb) / (s->zero_stage >= 2 ? edpdiv : 1.0);
  mem->optimizer = (dense * ob) / (s->zero_stage >= 1 ? zdiv : 1.0) + (expert * ob) / (s->zero_stage >= 1 ? edpdiv : 1.0);

  mem->activations = in_flight * chunk_layers * layer->saved_bytes;
  mb_in_flight = ceil (in_flight / s->virtual_stages);
  if (first)
    mem->activations += mb_in_flight * pre->saved_bytes;
  if (last)
    mem->activations += (s->schedule == PLX_SCHEDULE_GPIPE ? (double) m : 1.0) * post->saved_bytes;
  /* Full recompute re-creates one layer's activations while that layer's backward runs. */
  if (s->recompute == PLX_RECOMPUTE_FULL)
    mem->activations += layer->full_saved_bytes;

  /* Communication buffers: the pipeline's receive and send buffers (two hidden states)
   * and the tensor-parallel gather buffer of one hidden state; ZeRO-3 keeps the next
   * layer's gathered weights while the current one computes (FSDP prefetch). */
  mem->other = 0.0;
  if (s->pp > 1)
    mem->other += 2.0 * cx->act_bytes / (cx->ctx.sp ? s->tp : 1);
  if (s->tp > 1)
    mem->other += cx->act_bytes;
  if (s->zero_stage >= 3 && s->dp > 1)
    mem->other += 2.0 * layer->params * wb;
}

/* Byte counts are exact integers; an absurd input must saturate, not wrap. */
static guint64
to_bytes (double x)
{
  if (!(x >= 0.0))
    return 0;
  if (x >= 1.8e19)
    return G_MAXUINT64;
  return (guint64) ceil (x);
}

static double
mem_total (const StageMemory *mem)
{
  return mem->weights + mem->gradients + mem->optimizer + mem->activations + mem->other;
}

/* The engine, with the micro-batch size as a real number so that root finding can
 * treat memory as a continuous function of it (plx_analytic_max_micro_batch_size). */
static void
analytic_eval (const PlxModel    *model,
               const PlxCluster  *cluster,
               const PlxStrategy *s,
               double             micro_batch,
               PlxReport         *report,
               PlxLayerCost      *layer_out)
{
  Context cx;
  Block layer = { 0 }, pre = { 0 }, post = { 0 };
  double m = MAX (1.0, (double) s->global_batch_size / (s->dp * micro_batch));
  double p = s->pp, v = s->virtual_stages;
  double layers = (double) model->n_layers / s->pp;
  double eb, gb_unused, ob_unused, wb;
  double pre_comm_fwd = 0.0, post_comm_fwd = 0.0, post_comm_bwd = 0.0;
  double t_first, t_last, t_mid, t_max, t_avg, w_avg, c_pp = 0.0;
  double fwd_first, bwd_first, fwd_last, bwd_last;
  double t_pipe, dp_exposed = 0.0, tied = 0.0, optimizer;
  double peak_flops;
  StageMemory mem_first, mem_last, *mem;
  guint peak_stage;
  double stage_compute, stage_recompute, stage_comm;
  double stage_params, grad_bytes;

  cx.model = model;
  cx.cluster = cluster;
  cx.strategy = s;
  cx.ctx.tokens = micro_batch * s->seq_length / s->cp;
  cx.ctx.seq_kv = (double) s->seq_length;
  cx.ctx.heads = model->heads;
  cx.ctx.tp = s->tp;
  cx.ctx.sp = s->sequence_parallel && s->tp > 1;
  cx.ctx.ep = s->ep;
  cx.ctx.experts = MAX (model->experts, 1);
  cx.ctx.experts_per_token = MAX (model->experts_per_token, 1);
  cx.ctx.dtype = s->dtype;
  cx.ctx.flash = s->flash_attention;
  state_bytes (s->dtype, &wb, &gb_unused, &ob_unused);
  eb = s->dtype == PLX_DTYPE_FP8 ? 2.0 : plx_dtype_bytes (s->dtype);
  cx.act_bytes = cx.ctx.tokens * model->hidden * eb;

  /* Megatron's rank order: TP innermost, then CP, EP (inside DP), DP, PP outermost. */
  cx.tp_group = plx_group_place (cluster, s->tp, 1);
  cx.cp_group = plx_group_place (cluster, s->cp, s->tp);
  cx.ep_group = plx_group_place (cluster, s->ep, s->tp * s->cp);
  cx.dp_group = plx_group_place (cluster, s->dp, s->tp * s->cp);
  cx.edp_group = plx_group_place (cluster, MAX (s->dp / s->ep, 1), s->tp * s->cp * s->ep);
  cx.pp_group = plx_group_place (cluster, s->pp, s->tp * s->cp * s->dp);

  cost_ops (&cx, model->layer_ops, model->n_layer_ops, TRUE, &layer);
  layer_comm (&cx, layer.attn_core_s, &layer);
  cost_ops (&cx, model->pre_ops, model->n_pre_ops, FALSE, &pre);
  cost_ops (&cx, model->post_ops, model->n_post_ops, FALSE, &post);

  if (s->tp > 1)
    {
      /* Vocabulary-parallel embedding: its output is summed over TP ranks (reduce-
       * scattered with sequence parallelism). The LM head gathers its input with
       * sequence parallelism, and its input gradient is reduced in backward. The
       * loss all-reduces three fp32 values per token (max, sum, target logit). */
      PlxCollectiveKind reduce = cx.ctx.sp ? PLX_COLLECTIVE_REDUCE_SCATTER : PLX_COLLECTIVE_ALL_REDUCE;
      pre_comm_fwd = coll (&cx, reduce, &cx.tp_group, cx.act_bytes);
      post_comm_fwd = (cx.ctx.sp ? coll (&cx, PLX_COLLECTIVE_ALL_GATHER, &cx.tp_group, cx.act_bytes) : 0.0) +
                      3.0 * coll (&cx, PLX_COLLECTIVE_ALL_REDUCE, &cx.tp_group, cx.ctx.tokens * 4.0);
      post_comm_bwd = coll (&cx, reduce, &cx.tp_group, cx.act_bytes);
    }

  /* Per micro-batch, all chunks of a stage: forward, and backward with recompute. */
  {
    double lf = layer.fwd_s + layer.comm_fwd_s;
    double lb = layer.bwd_s + layer.comm_bwd_s + layer.recompute_s + layer.comm_recompute_s;
    double pf = pre.fwd_s + pre_comm_fwd, pb = pre.bwd_s;
    double qf = post.fwd_s + post_comm_fwd, qb = post.bwd_s + post_comm_bwd;

    fwd_first = layers * lf + pf + (p == 1 ? qf : 0.0);
    bwd_first = layers * lb + pb + (p == 1 ? qb : 0.0);
    fwd_last = layers * lf + qf + (p == 1 ? pf : 0.0);
    bwd_last = layers * lb + qb + (p == 1 ? pb : 0.0);
    t_first = fwd_first + bwd_first;
    t_last = fwd_last + bwd_last;
    t_mid = layers * (lf + lb);
    t_max = MAX (t_first, t_last);
    t_avg = p == 1 ? t_first : (t_first + t_last + (p - 2.0) * t_mid) / p;
    w_avg = layers * layer.wgrad_s + (post.wgrad_s + pre.wgrad_s) / p;
    report->layer_forward_s = lf;
    report->layer_backward_s = lb;
    report->stage_forward_s = t_first >= t_last ? fwd_first : fwd_last;
    report->stage_backward_s = t_first >= t_last ? bwd_first : bwd_last;
  }

  if (s->pp > 1)
    {
      /* Stage-to-stage activations (and gradients back): with tensor parallelism
       * each rank sends only its 1/t slice and the receivers all-gather over NVLink
       * (Narayanan et al. 2021 §4.1, scatter/gather optimisation); with sequence
       * parallelism the slice is already all a rank holds. */
      double slice = cx.act_bytes / s->tp;
      c_pp = coll (&cx, PLX_COLLECTIVE_SEND_RECV, &cx.pp_group, slice);
      if (s->tp > 1 && !cx.ctx.sp)
        c_pp += coll (&cx, PLX_COLLECTIVE_ALL_GATHER, &cx.tp_group, cx.act_bytes);
    }

  /* Zero-bubble H1 fills the bubble with weight-gradient work: each fill step costs
   * F + B - W instead of F + B + W (Qi et al. 2023 §3.1). */
  {
    double fill_unit = t_avg;
    if (s->schedule == PLX_SCHEDULE_ZERO_BUBBLE_H1)
      fill_unit = MAX (t_avg - 2.0 * w_avg, 0.0);
    t_pipe = plx_pipeline_time ((guint64) m, s->pp, s->virtual_stages, t_max, fill_unit, c_pp);
  }

  /* Data parallelism (PyTorch DDP, Li et al. 2020 §3.2.3; Megatron's DDP buckets):
   * gradients are reduced in buckets as the last micro-batch's backward produces them;
   * only what outlasts that backward pass, and at least the last bucket, is exposed. */
  mem_first = (StageMemory) { 0 };
  mem_last = (StageMemory) { 0 };
  stage_memory (&cx, &layer, &pre, &post, 0, m, &mem_first);
  stage_memory (&cx, &layer, &pre, &post, s->pp - 1, m, &mem_last);
  peak_stage = (s->pp > 1 && mem_total (&mem_last) > mem_total (&mem_first)) ? s->pp - 1 : 0;
  mem = peak_stage == 0 ? &mem_first : &mem_last;

  stage_params = layers * layer.params + (peak_stage == 0 ? pre.params : 0.0) +
                 (peak_stage == s->pp - 1 ? post.params : 0.0);
  if (peak_stage == s->pp - 1 && s->pp > 1 && model->tied_embeddings)
    stage_params += (double) model->vocab * model->hidden / s->tp;
  grad_bytes = s->dtype == PLX_DTYPE_FP16 ? 2.0 : 4.0;
  if (s->dp > 1)
    {
      double grads = stage_params * grad_bytes;
      double bucket = MIN ((double) s->grad_bucket_bytes, grads);
      double reduce, bucket_t, window = peak_stage == 0 ? bwd_first : bwd_last;

      if (s->zero_stage == 0)
        {
          reduce = coll (&cx, PLX_COLLECTIVE_ALL_REDUCE, &cx.dp_group, grads);
          bucket_t = coll (&cx, PLX_COLLECTIVE_ALL_REDUCE, &cx.dp_group, bucket);
          dp_exposed = s->overlap_dp_comm ? MAX (bucket_t, reduce - window) : reduce;
        }
      else
        {
          /* ZeRO reduce-scatters the gradients and all-gathers the updated weights
           * after the optimizer step (Rajbhandari et al. 2020 §7). Stage 3 instead
           * gathers weights before each layer's forward and backward of every
           * micro-batch and reduce-scatters gradients after each backward (§5.3),
           * prefetched under compute (FSDP, Zhao et al. 2023 §3.3). */
          double weights = stage_params * wb;
          reduce = coll (&cx, PLX_COLLECTIVE_REDUCE_SCATTER, &cx.dp_group, grads);
          bucket_t = coll (&cx, PLX_COLLECTIVE_REDUCE_SCATTER, &cx.dp_group, bucket);
          if (s->zero_stage <= 2)
            dp_exposed = (s->overlap_dp_comm ? MAX (bucket_t, reduce - window) : reduce) +
                         coll (&cx, PLX_COLLECTIVE_ALL_GATHER, &cx.dp_group, weights);
          else
            {
              double per_mb = 2.0 * coll (&cx, PLX_COLLECTIVE_ALL_GATHER, &cx.dp_group, weights) + reduce;
              double busy = peak_stage == 0 ? t_first : t_last;
              dp_exposed = (double) m * (s->overlap_dp_comm ? MAX (bucket_t, per_mb - busy) : per_mb);
            }
        }
    }
  if (model->tied_embeddings && s->pp > 1)
    {
      /* The two copies of the word embeddings sum their gradients (first and last
       * stage), after the backward pass. */
      PlxGroup pair = plx_group_place (cluster, 2, s->tp * s->cp * s->dp * (s->pp - 1));
      tied = coll (&cx, PLX_COLLECTIVE_ALL_REDUCE, &pair,
                   (double) model->vocab * model->hidden / s->tp * grad_bytes);
    }

  /* The optimizer step is memory-bound; per local parameter, Megatron-LM's mixed-
   * precision optimizer makes these passes over HBM:
   *   fused Adam (Kingma and Ba 2015, Alg. 1; apex multi-tensor Adam): reads the
   *     gradient, master weight and both moments, writes master and moments: 16 + 12
   *   global gradient norm for clipping (Pascanu et al. 2013): reads the gradient: 4
   *   copy of the fp32 master to the 16-bit model weight: 4 + 2
   *   zeroing the fp32 gradient buffer for the next step: 4
   * 42 bytes; fp16 adds the inf/nan check of the loss scaler: 4 more. */
  {
    double local = stage_params / (s->zero_stage >= 1 ? s->dp : 1);
    double bytes_per_param = 42.0 + (s->dtype == PLX_DTYPE_FP16 ? 4.0 : 0.0);
    optimizer = plx_memory_time (cluster, local * bytes_per_param);
  }

  report->engine = "analytical";
  report->step_time_s = t_pipe + dp_exposed + tied + optimizer;
  report->n_gpus = plx_cluster_get_n_gpus (cluster);
  report->tokens_per_s = (double) s->global_batch_size * s->seq_length / report->step_time_s;
  {
    double per_seq = plx_model_get_forward_flops (model, s->seq_length);
    /* Model FLOPs: forward plus a backward of twice the forward (Narayanan et al. 2021
     * §5.1, eq. 3 without recompute; Korthikanti 2022 §6). Hardware FLOPs add what
     * recompute repeats. recompute_flops is per micro-batch per rank; over the whole
     * step and all ranks it is layers x micro-batches x tp x cp x dp. */
    report->model_flops_per_step = 3.0 * per_seq * s->global_batch_size;
    report->hardware_flops_per_step = report->model_flops_per_step +
                                      layer.recompute_flops * model->n_layers * (double) m *
                                        s->tp * s->cp * s->dp;
  }
  peak_flops = cluster->peak_flops[s->dtype];
  report->mfu = report->model_flops_per_step / (report->step_time_s * report->n_gpus * peak_flops);
  report->hfu = report->hardware_flops_per_step / (report->step_time_s * report->n_gpus * peak_flops);

  report->reported_stage = peak_stage;
  report->hbm_bytes = cluster->hbm_bytes;
  report->hbm_usable_bytes = cluster->hbm_bytes - cluster->reserved_bytes;
  report->memory_bytes[PLX_MEM_WEIGHTS] = to_bytes (mem->weights);
  report->memory_bytes[PLX_MEM_GRADIENTS] = to_bytes (mem->gradients);
  report->memory_bytes[PLX_MEM_OPTIMIZER] = to_bytes (mem->optimizer);
  report->memory_bytes[PLX_MEM_ACTIVATIONS] = to_bytes (mem->activations);
  report->memory_bytes[PLX_MEM_OTHER] = to_bytes (mem->other);
  report->peak_memory_bytes = 0;
  for (guint i = 0; i < PLX_N_MEM; i++)
    report->peak_memory_bytes = report->memory_bytes[i] > G_MAXUINT64 - report->peak_memory_bytes
                                  ? G_MAXUINT64 : report->peak_memory_bytes + report->memory_bytes[i];
  report->fits_in_memory = report->peak_memory_bytes <= report->hbm_usable_bytes;

  /* Split the reported GPU's step: its own busy time by kind; the rest it waits. */
  {
    gboolean first = peak_stage == 0, last = peak_stage == s->pp - 1;
    stage_compute = layers * (layer.fwd_s + layer.bwd_s) +
                    (first ? pre.fwd_s + pre.bwd_s : 0.0) + (last ? post.fwd_s + post.bwd_s : 0.0);
    stage_recompute = layers * layer.recompute_s;
    stage_comm = layers * (layer.comm_fwd_s + layer.comm_bwd_s + layer.comm_recompute_s) +
                 (first ? pre_comm_fwd : 0.0) + (last ? post_comm_fwd + post_comm_bwd : 0.0);
  }
  report->time_s[PLX_TIME_COMPUTE] = (double) m * stage_compute;
  report->time_s[PLX_TIME_RECOMPUTE] = (double) m * stage_recompute;
  report->time_s[PLX_TIME_TP_COMM] = (double) m * stage_comm;
  report->time_s[PLX_TIME_PP_COMM] = p > 1 ? ((double) m + (p - 1.0) / v) * 2.0 * v * c_pp : 0.0;
  report->time_s[PLX_TIME_DP_COMM] = dp_exposed + tied;
  report->time_s[PLX_TIME_OPTIMIZER] = optimizer;
  {
    double busy = 0.0;
    for (guint i = 0; i < PLX_N_TIME; i++)
      if (i != PLX_TIME_BUBBLE)
        busy += report->time_s[i];
    report->time_s[PLX_TIME_BUBBLE] = MAX (0.0, report->step_time_s - busy);
  }
  report->bubble_fraction = report->time_s[PLX_TIME_BUBBLE] / report->step_time_s;

  if (layer_out != NULL)
    {
      layer_out->forward_s = layer.fwd_s;
      layer_out->backward_s = layer.bwd_s;
      layer_out->recompute_s = layer.recompute_s;
      layer_out->comm_forward_s = layer.comm_fwd_s;
      layer_out->comm_backward_s = layer.comm_bwd_s + layer.comm_recompute_s;
      layer_out->saved_bytes = layer.saved_bytes;
      layer_out->params = layer.params;
      layer_out->pipeline_send_s = c_pp;
    }
}

static gboolean
check_resolved (const PlxStrategy *s,
                GError           **error)
{
  if (s->dp == 0 || s->seq_length == 0 || plx_strategy_get_n_micro_batches (s) == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "strategy: not resolved against the model and cluster (no micro-batches per step)");
      return FALSE;
    }
  return TRUE;
}

gboolean
plx_analytic_run (const PlxModel    *model,
                  const PlxCluster  *cluster,
                  const PlxStrategy *s,
                  PlxReport         *report,
                  GError           **error)
{
  if (!check_resolved (s, error))
    return FALSE;
  analytic_eval (model, cluster, s, (double) s->micro_batch_size, report, NULL);
  return TRUE;
}

gboolean
plx_analytic_layer_cost (const PlxModel    *model,
                         const PlxCluster  *cluster,
                         const PlxStrategy *s,
                         PlxLayerCost      *cost,
                         GError           **error)
{
  PlxReport report;

  if (!check_resolved (s, error))
    return FALSE;
  analytic_eval (model, cluster, s, (double) s->micro_batch_size, &report, cost);
  return TRUE;
}

typedef struct
{
  const PlxModel    *model;
  const PlxCluster  *cluster;
  const PlxStrategy *strategy;
} FitProblem;

/* Peak memory less usable memory, in GiB so Brent's tolerances are meaningful. */
static double
memory_excess (double micro_batch,
               void  *data)
{
  const FitProblem *fp = data;
  PlxReport r;

  analytic_eval (fp->model, fp->cluster, fp->strategy, micro_batch, &r, NULL);
  return ((double) r.peak_memory_bytes - (double) r.hbm_usable_bytes) / 1073741824.0;
}

gboolean
plx_analytic_max_micro_batch_size (const PlxModel    *model,
                                   const PlxCluster  *cluster,
                                   const PlxStrategy *s,
                                   guint64           *out,
                                   GError           **error)
{
  FitProblem fp = { model, cluster, s };
  gsl_function f = { memory_excess, &fp };
  gsl_root_fsolver *solver;
  double lo = 1.0, hi = 2.0, root;
  const double cap = 1048576.0;
  guint64 best;

  if (!check_resolved (s, error))
    return FALSE;
  *out = 0;
  if (memory_excess (1.0, &fp) > 0.0)
    return TRUE;
  /* Bracket: activations grow with the micro-batch, model states do not. */
  while (memory_excess (hi, &fp) <= 0.0)
    {
      lo = hi;
      hi *= 2.0;
      if (hi > cap)
        {
          *out = (guint64) cap;
          return TRUE;
        }
    }

  solver = gsl_root_fsolver_alloc (gsl_root_fsolver_brent);
  gsl_root_fsolver_set (solver, &f, lo, hi);
  for (guint iter = 0; iter < 100; iter++)
    {
      gsl_root_fsolver_iterate (solver);
      lo = gsl_root_fsolver_x_lower (solver);
      hi = gsl_root_fsolver_x_upper (solver);
      if (gsl_root_test_interval (lo, hi, 0.25, 0.0) == GSL_SUCCESS)
        break;
    }
  root = gsl_root_fsolver_root (solver);
  gsl_root_fsolver_free (solver);

  /* The root is where memory runs out; the answer is the whole number below it. */
  best = (guint64) floor (MAX (root, 1.0));
  while (best > 1 && memory_excess ((double) best, &fp) > 0.0)
    best--;
  while (memory_excess ((double) best + 1.0, &fp) <= 0.0)
    best++;
  *out = best;
  return TRUE;
}
