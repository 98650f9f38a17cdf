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
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "parallax/plx-analytic.h"
#include "hardware/plx-collective.h"
#include "parallax/plx-error.h"
#include "cost/plx-layer-split.h"
#include "cost/plx-op-cost.h"
#include "parallax/plx-strategy.h"
#include "cost/plx-pipeline.h"

#include "plx-costing.h"

/* Byte counts are exact integers; an absurd input must saturate, not wrap. */
static guint64
to_bytes (double x)
{
  if (!(x >= 0.0))
    return 0;
  if (x >= 1.8e19)
    return G_MAXUINT64;
  /* ceil without its SSE2 sequence and the unsigned conversion's branch (5 a
   * candidate, 3 % of a search): below 2^53 the truncation is floor(x), exact as a
   * double, and one more where it falls short; from 2^53 on every double is whole. */
  if (x < 9007199254740992.0)
    {
      guint64 t = (guint64) (gint64) x;
      return t + ((double) t < x ? 1u : 0u);
    }
  return (guint64) x;
}

/* One slot per implementation: the search varies the ZeRO stage innermost, and
 * ZeRO-3 switches the default implementation (plx_strategy_is_pytorch). */
typedef struct
{
  gboolean          valid;
  const PlxModel   *model;
  const PlxCluster *cluster;
  guint             tp, cp, ep, etp;
  gboolean          sp, flash, overlap_tp;
  guint64           seq;
  double            micro_batch;
  PlxDtype          dtype;
  PlxRecompute      recompute;
  gboolean          eager;
  gboolean          per_tensor;   /* PlxCosting.per_tensor: tensor counts in the costs */
  gboolean          fused_elementwise;
  PlxAttentionKernel attention_kernel;
  PlxCrossEntropyFusion loss_fusion;
  PlxStageCosts     costs;
  double            forward_flops; /* of one sequence: depends on the model and seq only */
} CacheSlot;

/* The last uneven layer split and all it is computed from (plx_costing_layer_split,
 * plx_layer_split, plx_layer_split_by_cost): the stage costs with the sends,
 * ZeRO-3's collectives, the cluster's overlap slowdown and the strategy's split
 * keys - not the schedule, or the ZeRO stage below 3, which the search varies
 * innermost. Compared byte for byte, so a hit is the same split. One slot for
 * ZeRO-3's splits and one for the others, which the search alternates. Under ZeRO-3
 * each split is a bisection over flow shops: 40 % of a 64-stage search before. */
typedef struct
{
  gboolean          valid;
  const PlxModel   *model;
  const PlxCluster *cluster;
  guint             pp, virtual_stages, first_stage_layers, last_stage_layers, n_layers_per_stage;
  const guint      *layers_per_stage;
  gboolean          layers_per_stage_auto, overlap_dp_comm;
  PlxStageCosts     costs;
  PlxZero3Comm      zero3;
  guint            *split;
} SplitSlot;

/* Where the ranks sit and the two terms that follow from it alone: the groups
 * (plx_costing_place), one stage-to-stage send (plx_costing_send) and the
 * tied-embedding all-reduce (plx_costing_tied_embedding_time). They depend on the
 * degrees, the cluster and one micro-batch's hidden state, not on the schedule or
 * (but for hybrid sharding's group size, a key) the ZeRO stage the search varies
 * innermost; recomputed they were a placement, two memo probes and a group per
 * evaluation. */
typedef struct
{
  gboolean          valid;
  const PlxModel   *model;
  const PlxCluster *cluster;
  guint             tp, cp, ep, etp, dp, pp, shard_group_size;
  gboolean          sp;
  PlxDtype          dtype;
  double            act_bytes;
  PlxGroup          tp_group, cp_group, ep_group, etp_group, dp_group, edp_group, shard_group, replica_group, pp_group;
  double            shard;
  double            send_s, tied_s;
} PlacementSlot;

/* ZeRO-3's collectives per unit (plx_costing_zero3_comm) and all they are computed
 * from: the same for every schedule of a pipeline depth, which the search tries in
 * turn. */
typedef struct
{
  gboolean       valid;
  PlxZero3Inputs inputs;
  PlxZero3Comm   comm;
} Zero3Slot;

struct _PlxAnalyticCache
{
  CacheSlot    slot[2];
  PlacementSlot placement;
  Zero3Slot    zero3;
  SplitSlot    split[2];
  PlxCostMemo *memo;
};

PlxAnalyticCache *
plx_analytic_cache_new (void)
{
  PlxAnalyticCache *cache = g_new0 (PlxAnalyticCache, 1);

  cache->memo = plx_cost_memo_new ();
  return cache;
}

void
plx_analytic_cache_free (PlxAnalyticCache *cache)
{
  if (cache == NULL)
    return;
  plx_cost_memo_free (cache->memo);
  g_free (cache->split[0].split);
  g_free (cache->split[1].split);
  g_free (cache);
}

static gboolean
cache_matches (const CacheSlot *c, const PlxModel *model, const PlxCluster *cluster,
               const PlxStrategy *s, double micro_batch)
{
  return c->valid && c->model == model && c->cluster == cluster && c->tp == s->tp && c->cp == s->cp &&
         c->ep == s->ep && c->etp == s->etp && c->sp == s->sequence_parallel && c->flash == s->flash_attention &&
         c->overlap_tp == s->overlap_tp_comm && c->seq == s->seq_length && c->micro_batch == micro_batch &&
         c->dtype == s->dtype && c->recompute == s->recompute && c->eager == plx_strategy_is_pytorch (s) &&
         c->per_tensor == plx_strategy_zero3_per_tensor (s) &&
         c->fused_elementwise == (s->implementation == PLX_IMPLEMENTATION_PYTORCH_COMPILE) &&
         c->attention_kernel == s->attention_kernel && c->loss_fusion == s->cross_entropy_fusion;
}

/* The groups, send and tied-embedding time of cx's strategy: from the slot when it
 * holds them, else placed, computed and kept. */
static void
place_cached (PlxAnalyticCache *cache, PlxCosting *cx, double *send_s, double *tied_s)
{
  const PlxStrategy *s = cx->strategy;
  PlacementSlot *p;

  if (cache == NULL)
    {
      plx_costing_place (cx);
      *send_s = plx_costing_send (cx);
      *tied_s = plx_costing_tied_embedding_time (cx);
      return;
    }
  p = &cache->placement;
  if (!(p->valid && p->model == cx->model && p->cluster == cx->cluster && p->tp == s->tp && p->cp == s->cp &&
        p->ep == s->ep && p->etp == s->etp && p->dp == s->dp && p->pp == s->pp && p->shard_group_size == s->shard_group_size &&
        p->sp == cx->ctx.sp && p->dtype == s->dtype && memcmp (&p->act_bytes, &cx->act_bytes, sizeof (double)) == 0))
    {
      plx_costing_place (cx);
      p->valid = TRUE;
      p->model = cx->model;
      p->cluster = cx->cluster;
      p->tp = s->tp;
      p->cp = s->cp;
      p->ep = s->ep;
      p->etp = s->etp;
      p->dp = s->dp;
      p->pp = s->pp;
      p->shard_group_size = s->shard_group_size;
      p->sp = cx->ctx.sp;
      p->dtype = s->dtype;
      p->act_bytes = cx->act_bytes;
      p->tp_group = cx->tp_group;
      p->cp_group = cx->cp_group;
      p->ep_group = cx->ep_group;
      p->etp_group = cx->etp_group;
      p->dp_group = cx->dp_group;
      p->edp_group = cx->edp_group;
      p->shard_group = cx->shard_group;
      p->replica_group = cx->replica_group;
      p->pp_group = cx->pp_group;
      p->shard = cx->shard;
      p->send_s = plx_costing_send (cx);
      p->tied_s = plx_costing_tied_embedding_time (cx);
    }
  else
    {
      cx->tp_group = p->tp_group;
      cx->cp_group = p->cp_group;
      cx->ep_group = p->ep_group;
      cx->etp_group = p->etp_group;
      cx->dp_group = p->dp_group;
      cx->edp_group = p->edp_group;
      cx->shard_group = p->shard_group;
      cx->replica_group = p->replica_group;
      cx->pp_group = p->pp_group;
      cx->shard = p->shard;
    }
  *send_s = p->send_s;
  *tied_s = p->tied_s;
}

static void
zero3_cached (PlxAnalyticCache *cache, const PlxCosting *cx, const PlxStageCosts *costs, PlxZero3Comm *zero3)
{
  PlxZero3Inputs in;

  if (cache == NULL)
    {
      plx_costing_zero3_comm (cx, costs, zero3);
      return;
    }
  plx_costing_zero3_inputs (cx, costs, &in);
  if (!in.active)
    {
      plx_costing_zero3_comm_from (cx, &in, zero3);
      return;
    }
  if (!cache->zero3.valid || memcmp (&cache->zero3.inputs, &in, sizeof in) != 0)
    {
      plx_costing_zero3_comm_from (cx, &in, &cache->zero3.comm);
      memcpy (&cache->zero3.inputs, &in, sizeof in);
      cache->zero3.valid = TRUE;
    }
  *zero3 = cache->zero3.comm;
}

static gboolean
split_matches (const SplitSlot *k, const PlxCosting *cx, const PlxStageCosts *costs, const PlxZero3Comm *zero3)
{
  const PlxStrategy *s = cx->strategy;

  return k->valid && k->model == cx->model && k->cluster == cx->cluster && k->pp == s->pp &&
         k->virtual_stages == s->virtual_stages && k->first_stage_layers == s->first_stage_layers &&
         k->last_stage_layers == s->last_stage_layers && k->n_layers_per_stage == s->n_layers_per_stage &&
         k->layers_per_stage == s->layers_per_stage && k->layers_per_stage_auto == s->layers_per_stage_auto &&
         k->overlap_dp_comm == s->overlap_dp_comm && memcmp (&k->costs, costs, sizeof *costs) == 0 &&
         k->zero3.active == zero3->active &&
         memcmp (k->zero3.gather, zero3->gather, sizeof (PlxZero3Comm) - G_STRUCT_OFFSET (PlxZero3Comm, gather)) == 0;
}

/* plx_costing_layer_split of an uneven split through the cache's slot: a new copy
 * either way. */
static guint *
layer_split_cached (PlxAnalyticCache *cache, const PlxCosting *cx, const PlxStageCosts *costs,
                    const PlxZero3Comm *zero3)
{
  const PlxStrategy *s = cx->strategy;
  SplitSlot *k;

  if (cache == NULL)
    return plx_costing_layer_split (cx, costs, zero3);
  k = &cache->split[zero3->active ? 1 : 0];
  if (!split_matches (k, cx, costs, zero3))
    {
      g_free (k->split);
      k->split = plx_costing_layer_split (cx, costs, zero3);
      k->valid = TRUE;
      k->model = cx->model;
      k->cluster = cx->cluster;
      k->pp = s->pp;
      k->virtual_stages = s->virtual_stages;
      k->first_stage_layers = s->first_stage_layers;
      k->last_stage_layers = s->last_stage_layers;
      k->n_layers_per_stage = s->n_layers_per_stage;
      k->layers_per_stage = s->layers_per_stage;
      k->layers_per_stage_auto = s->layers_per_stage_auto;
      k->overlap_dp_comm = s->overlap_dp_comm;
      k->costs = *costs;
      k->zero3 = *zero3;
    }
  return g_memdup2 (k->split, sizeof (guint) * s->pp * s->virtual_stages);
}

/* A stage's layers, with an even split's share (n_layers / pp) worked out once an
 * evaluation by the caller rather than divided again for each stage asked. */
static inline double
stage_layers (const PlxCosting *cx,
              double            even,
              guint             stage)
{
  return cx->chunk_layers == NULL ? even : plx_costing_stage_layers (cx, stage);
}

/* ZeRO-3's exposed communication on one stage's GPU, per micro-batch: its chunks'
 * forward and backward passes (plx_costing_zero3_pass, shared with the plan). */
static void
zero3_stage (const PlxCosting    *cx,
             const PlxStageCosts *costs,
             const PlxZero3Comm  *z,
             guint                stage,
             double              *fwd,
             double              *bwd)
{
  const PlxStrategy *s = cx->strategy;
  /* A chunk's pass depends on it only through its layers and whether it holds the
   * embedding or the head: interleaved middle chunks of equal layers pass alike. */
  double last_n = -1.0, last_f = 0.0, last_b = 0.0;

  *fwd = *bwd = 0.0;
  if (!z->active)
    return;
  for (guint c = 0; c < s->virtual_stages; c++)
    {
      guint k = c * s->pp + stage;
      double n = cx->chunk_layers != NULL ? cx->chunk_layers[k] : (double) cx->model->n_layers / (s->pp * s->virtual_stages);
      gboolean end = k == 0 || k + 1 == s->pp * s->virtual_stages;
      double f, b;

      if (!end && n == last_n)
        {
          f = last_f;
          b = last_b;
        }
      else
        {
          plx_costing_zero3_pass (cx, costs, z, n, k == 0, k + 1 == s->pp * s->virtual_stages, &f, &b);
          if (!end)
            {
              last_n = n;
              last_f = f;
              last_b = b;
            }
        }
      *fwd += f;
      *bwd += b;
    }
}

/* Two figures of a middle pipeline stage by its layer count, for the loops over
 * stages of an uneven split: a handful of counts recur over up to a hundred stages. */
typedef struct
{
  guint  n;
  guint  layers[4];
  double value[4][2];
} StageMemo;

static const double *
stage_memo_find (const StageMemo *memo,
                 guint            layers)
{
  for (guint i = 0; i < memo->n; i++)
    if (memo->layers[i] == layers)
      return memo->value[i];
  return NULL;
}

static void
stage_memo_add (StageMemo *memo,
                guint      layers,
                double     a,
                double     b)
{
  if (memo->n == G_N_ELEMENTS (memo->layers))
    return;
  memo->layers[memo->n] = layers;
  memo->value[memo->n][0] = a;
  memo->value[memo->n][1] = b;
  memo->n++;
}

/* The engine, with the micro-batch size as a real number so that root finding can
 * treat memory as a continuous function of it (plx_analytic_max_micro_batch_size). */
/* Returns FALSE, with only the memory figures of the report set, when the peak is
 * past memory_limit bytes (G_MAXDOUBLE: never). */
static gboolean
analytic_eval (const PlxModel    *model,
               const PlxCluster  *cluster,
               const PlxStrategy *s,
               double             micro_batch,
               double             memory_limit,
               PlxAnalyticCache  *caches,
               PlxReport         *report,
               PlxLayerCost      *layer_out)
{
  PlxCosting cx;
  /* The search's slot is read in place (an 808-byte copy was 3 % of a search); own
   * holds a miss's costs, or a copy when the ZeRO stage adds to them. */
  PlxStageCosts own;
  const PlxStageCosts *costs;
  const PlxBlockCost *layer, *pre, *post;
  double m, p = s->pp, v = s->virtual_stages;
  double layers = (double) model->n_layers / s->pp;
  double t_first, t_last, t_mid, t_max, t_avg, w_avg, c_pp, max_f, max_b;
  double lf, lb; /* one block, one micro-batch: forward; backward with recompute */
  double fwd_first, bwd_first, fwd_last, bwd_last;
  double t_pipe, dp_exposed = 0.0, tied, optimizer = 0.0;
  double peak_flops, wb, gb_unused, ob_unused;
  PlxStageMemory mem_first, mem_last, mem_mid, *mem;
  PlxStageMemoryTerms mem_terms;
  guint peak_stage;
  g_autofree guint *split = NULL;
  PlxZero3Comm zero3;
  gboolean uneven;
  double layers_first, layers_last, layers_peak;
  double z_first[2] = { 0.0, 0.0 }, z_last[2] = { 0.0, 0.0 }; /* ZeRO-3's passes, kept for the report */
  double stage_compute, stage_recompute, stage_comm, per_seq, send_s;

  CacheSlot *cache = caches != NULL ? &caches->slot[plx_strategy_is_pytorch (s) ? 1 : 0] : NULL;

  plx_costing_init_unplaced (&cx, model, cluster, s, micro_batch);
  cx.memo = caches != NULL ? caches->memo : NULL;
  place_cached (caches, &cx, &send_s, &tied);
  if (cache != NULL && cache_matches (cache, model, cluster, s, micro_batch))
    {
      cache->costs.send_s = send_s;  /* depends on where the stages sit */
      costs = &cache->costs;
      per_seq = cache->forward_flops;
    }
  else
    {
      /* The send is place_cached's: the same function of the same groups. */
      plx_costing_compute_unsent (&cx, &own);
      own.send_s = send_s;
      costs = &own;
      per_seq = plx_model_get_forward_flops (model, s->seq_length);
      if (cache != NULL)
        {
          cache->valid = TRUE;
          cache->model = model;
          cache->cluster = cluster;
          cache->tp = s->tp;
          cache->cp = s->cp;
          cache->ep = s->ep;
          cache->etp = s->etp;
          cache->per_tensor = cx.per_tensor;
          cache->sp = s->sequence_parallel;
          cache->flash = s->flash_attention;
          cache->overlap_tp = s->overlap_tp_comm;
          cache->seq = s->seq_length;
          cache->micro_batch = micro_batch;
          cache->dtype = s->dtype;
          cache->recompute = s->recompute;
          cache->eager = plx_strategy_is_pytorch (s);
          cache->fused_elementwise = s->implementation == PLX_IMPLEMENTATION_PYTORCH_COMPILE;
          cache->attention_kernel = s->attention_kernel;
          cache->loss_fusion = s->cross_entropy_fusion;
          cache->costs = own;
          cache->forward_flops = per_seq;
        }
    }
  /* After the cache: it depends on the ZeRO stage, which the search varies innermost. */
  if (plx_strategy_accumulates_fp32_copy (s))
    {
      if (costs != &own)
        own = *costs;
      plx_costing_grad_accumulation (&cx, &own);
      costs = &own;
    }
  layer = &costs->layer;
  pre = &costs->embedding;
  post = &costs->head;
  m = cx.micro_batches;
  c_pp = costs->send_s;
  plx_costing_state_bytes (s->dtype, &wb, &gb_unused, &ob_unused);
  /* Uneven stages: each stage's own layers; the even case keeps n_layers / pp. */
  /* ZeRO-3's collectives only balance an uneven split before the memory check; an
   * even one's wait until the strategy fits (two in three of a search's do not). */
  uneven = plx_layer_split_is_uneven (s, model->n_layers);
  if (uneven)
    {
      zero3_cached (caches, &cx, costs, &zero3);
      split = layer_split_cached (caches, &cx, costs, &zero3);
    }
  cx.chunk_layers = split;
  layers_first = stage_layers (&cx, layers, 0);
  layers_last = stage_layers (&cx, layers, s->pp - 1);

  plx_costing_stage_memory_terms (&cx, costs, &mem_terms);
  plx_costing_stage_memory_at (&cx, costs, &mem_terms, 0, &mem_first);
  if (s->pp > 1)
    plx_costing_stage_memory_at (&cx, costs, &mem_terms, s->pp - 1, &mem_last);
  else
    mem_last = mem_first;  /* the one stage */
  peak_stage = (s->pp > 1 && plx_costing_stage_memory_total (&mem_last) > plx_costing_stage_memory_total (&mem_first))
                 ? s->pp - 1 : 0;
  mem = peak_stage == 0 ? &mem_first : &mem_last;
  /* Uneven stages: a middle stage with more layers may hold the most. With one chunk
   * per stage, a middle stage's memory depends on the stage only through its layers
   * and the micro-batches in flight, which shrink or stay along the pipeline under
   * every schedule (plx_pipeline_chunks_in_flight): of the stages with the same
   * layers the first holds at least as much as each later one, term by term and
   * after rounding, so no later one can be a strictly larger peak. A balanced split
   * has two or three layer counts; the rest are skipped. */
  for (guint st = 1, seen[4], n_seen = 0; split != NULL && st + 1 < s->pp; st++)
    {
      if (s->virtual_stages == 1)
        {
          gboolean again = st > 1 && split[st] == split[st - 1];  /* a balanced split's counts come in runs */
          for (guint i = 0; i < n_seen; i++)
            again = again || seen[i] == split[st];
          if (again)
            continue;
          if (n_seen < G_N_ELEMENTS (seen))
            seen[n_seen++] = split[st];
        }
      plx_costing_stage_memory_at (&cx, costs, &mem_terms, st, &mem_mid);
      if (plx_costing_stage_memory_total (&mem_mid) > plx_costing_stage_memory_total (mem))
        {
          peak_stage = st;
          mem_first = mem_mid;   /* kept in a slot that lives on */
          mem = &mem_first;
        }
    }
  layers_peak = stage_layers (&cx, layers, peak_stage);

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
  /* Memory first: a search asks only whether the strategy fits before it wants a time. */
  if ((double) report->peak_memory_bytes > memory_limit)
    return FALSE;
  if (!uneven)
    zero3_cached (caches, &cx, costs, &zero3);

  /* Per micro-batch, all chunks of a stage: forward, and backward with recompute. */
  lf = layer->fwd_s + layer->comm_fwd_s;
  lb = layer->bwd_s + layer->comm_bwd_s + layer->recompute_s + layer->comm_recompute_s;
  {
    double pf = pre->fwd_s + pre->comm_fwd_s, pb = pre->bwd_s + pre->comm_bwd_s;
    double qf = post->fwd_s + post->comm_fwd_s, qb = post->bwd_s + post->comm_bwd_s;
    double zf, zb;

    zero3_stage (&cx, costs, &zero3, 0, &zf, &zb);
    z_first[0] = z_last[0] = zf;
    z_first[1] = z_last[1] = zb;
    fwd_first = layers_first * lf + pf + (p == 1 ? qf : 0.0) + zf;
    bwd_first = layers_first * lb + pb + (p == 1 ? qb : 0.0) + zb;
    if (s->pp > 1)
      {
        zero3_stage (&cx, costs, &zero3, s->pp - 1, &zf, &zb);
        z_last[0] = zf;
        z_last[1] = zb;
      }
    fwd_last = layers_last * lf + qf + (p == 1 ? pf : 0.0) + zf;
    bwd_last = layers_last * lb + qb + (p == 1 ? pb : 0.0) + zb;
    t_first = fwd_first + bwd_first;
    t_last = fwd_last + bwd_last;
    if (s->pp > 2)
      zero3_stage (&cx, costs, &zero3, 1, &zf, &zb);
    t_mid = layers * (lf + lb) + (s->pp > 2 ? zf + zb : 0.0);
    /* GPipe's phases (below), with each pass's send: forwards send on from all
     * but the last stage, backwards from all but the first. */
    max_f = MAX (fwd_first + (p > 1 ? c_pp : 0.0), fwd_last);
    max_b = MAX (bwd_first, bwd_last + (p > 1 ? c_pp : 0.0));
    if (s->pp > 2 && split == NULL)
      {
        max_f = MAX (max_f, layers * lf + zf + c_pp);
        max_b = MAX (max_b, layers * lb + zb + c_pp);
      }
    t_max = MAX (t_first, t_last);
    t_avg = p == 1 ? t_first : (t_first + t_last + (p - 2.0) * t_mid) / p;
    if (split != NULL && p > 2)
      {
        /* The slowest stage paces the steady state; fill and drain pass through
         * every stage once (Narayanan et al. 2021 §2.2 with stage times t_i). */
        double sum_mid = 0.0, max_mid = 0.0;
        StageMemo z_memo = { 0 };
        for (guint st = 1; st + 1 < s->pp; st++)
          {
            double n_i = plx_costing_stage_layers (&cx, st), t_i;
            /* ZeRO-3's passes of a middle stage of one chunk: once per layer count. */
            const double *known = zero3.active && s->virtual_stages == 1 ? stage_memo_find (&z_memo, split[st]) : NULL;
            if (known != NULL)
              {
                zf = known[0];
                zb = known[1];
              }
            else
              {
                zero3_stage (&cx, costs, &zero3, st, &zf, &zb);
                if (zero3.active && s->virtual_stages == 1)
                  stage_memo_add (&z_memo, split[st], zf, zb);
              }
            t_i = n_i * (lf + lb) + zf + zb;
            max_f = MAX (max_f, n_i * lf + zf + c_pp);
            max_b = MAX (max_b, n_i * lb + zb + c_pp);
            sum_mid += t_i;
            max_mid = MAX (max_mid, t_i);
          }
        t_mid = max_mid;
        t_max = MAX (t_max, max_mid);
        t_avg = (t_first + t_last + sum_mid) / p;
      }
    else if (p > 2)
      t_max = MAX (t_max, t_mid);
    /* GPipe runs all forwards, then all backwards: each phase is paced by its own
     * slowest stage, (m - 1)(max f_i + max b_i) + sum t_i (Huang et al. 2019 §2.2
     * with stage times of their own), more than the largest f_i + b_i when an LM
     * head's forward-heavy stage is not the backward-heaviest. The pace goes in as
     * every stage's time less the sends plx_pipeline_time_stages adds back. */
    if (s->schedule == PLX_SCHEDULE_GPIPE && p > 1)
      {
        double pace = max_f + max_b;
        double steady = MAX (t_first, t_last) + c_pp;

        if (p > 2)
          steady = MAX (steady, t_mid + 2.0 * c_pp);
        if (pace > steady)
          {
            t_first = MAX (t_first, pace - c_pp);
            t_last = MAX (t_last, pace - c_pp);
            t_mid = MAX (t_mid, pace - 2.0 * c_pp);
            /* The fill below takes the pacing stage's time out of sum t_i; its sends
             * stay counted as where the slowest stage paced, so that the step grows
             * without a jump as the pace passes it. */
            t_max = pace - (steady - t_max);
          }
      }
    w_avg = layers * layer->wgrad_s + (post->wgrad_s + pre->wgrad_s) / p;
    report->layer_forward_s = lf;
    report->layer_backward_s = lb;
    report->stage_forward_s = t_first >= t_last ? fwd_first : fwd_last;
    report->stage_backward_s = t_first >= t_last ? bwd_first : bwd_last;
  }

  /* Fill and drain pass once through every stage but the one that paces the steady
   * state: with stage times t_i and m micro-batches a pipeline takes
   * (m - 1) max t_i + sum t_i (a flow shop of m equal jobs; Narayanan et al. 2021
   * §2.2.1's (m + p - 1) t when the stages are equal), so a fill step is the mean
   * of the other stages, not of all - an unbalanced head or embedding counted in
   * the fill overstated the step by up to 10 % against the event engine.
   * Zero-bubble H1 fills the bubble with weight-gradient work: with m >= p each
   * fill step costs F + B - W instead of F + B + W (Qi et al. 2023 §3.1), 2 (p - 1) W
   * saved in all. With fewer micro-batches there are fewer W passes to defer: one
   * micro-batch saves (p - 1) W (each stage sends its input gradient after B and runs
   * W while the others continue: p (F + B) + W instead of p (F + B + W)), and each
   * further one defers one more W, so min(m + p - 2, 2 (p - 1)) W in all. */
  {
    /* The stage left out of the fill is the one plx_pipeline_time_stages paces by,
     * sends included: a middle stage sends twice a micro-batch, an end once, so
     * with the sends a middle stage can pace while an end is the longest without
     * them. Leaving out that end instead counted the pacer twice and the end not
     * at all: a lighter LM head (twice the FLOP/s) then saved nothing while
     * zero-bubble H1's W saving shrank with it. GPipe's pace is set above. */
    gboolean mid_paces = s->schedule != PLX_SCHEDULE_GPIPE && p > 2 &&
                         t_mid + 2.0 * v * c_pp > MAX (t_first, t_last) + (2.0 * v - 1.0) * c_pp;
    double fill_unit = p > 1 ? (p * t_avg - (mid_paces ? t_mid : t_max)) / (p - 1.0) : t_avg;
    double w_saved = plx_schedule_splits_backward (s->schedule, s->pp)
                       ? w_avg * MIN (m + p - 2.0, 2.0 * (p - 1.0)) / (p - 1.0) : 0.0;
    fill_unit = MAX (fill_unit - w_saved, 0.0);
    t_pipe = plx_pipeline_time_stages ((guint64) m, s->pp, s->virtual_stages, t_first, t_mid, t_last, fill_unit, c_pp);
    /* Each stage x bounds a flow shop's makespan: the first micro-batch's way to x,
     * m passes through x, the last one's way on (sum t_i + (m - 1) t_x; Narayanan et
     * al. 2021 §2.2.1 with stage times of their own); the step is the largest bound.
     * Where an end paces by less than a send more than a middle stage, the middle
     * stage's bound is the larger one with the sends counted as the closed form
     * counts them (two a micro-batch in the middle, one at an end): taking the
     * pacer's alone made the step jump by a send where the pacer changed, so that
     * twice the FLOP/s on the same split was 0.24 % slower (test-analytic,
     * /core/analytic/faster-hardware). */
    if (!mid_paces && s->schedule != PLX_SCHEDULE_GPIPE && p > 2)
      t_pipe = MAX (t_pipe, m * (t_mid + 2.0 * v * c_pp) +
                              (p - 1.0) / v * (MAX ((p * t_avg - t_mid) / (p - 1.0) - w_saved, 0.0) + 2.0 * v * c_pp));
  }


  /* Data parallelism (PyTorch DDP, Li et al. 2020 §3.2.3; Megatron's DDP buckets):
   * gradients are reduced in buckets as the last micro-batch's backward produces them;
   * only what outlasts that backward pass, and at least the last bucket, is exposed.
   * ZeRO-1/2 reduce-scatter them and all-gather the updated weights, hidden as far as
   * the next step's first forward allows (Rajbhandari et al. 2020 §7); ZeRO-3's
   * collectives are part of each pass (zero3_stage). Shared with the plan.
   * Each stage reduces and updates after its own last backward; the drain reaches
   * stage 0 last, so a stage st finishes the backward the drain's passes on stages
   * 0..st-1 earlier and has that much more room to hide its reduction and run its
   * optimizer step. The step ends with the stage that ends last - not with the one
   * that holds the most memory (a GPipe last stage full of logits overstated the
   * step by a quarter against the event engine). */
  {
    double slack = 0.0, tail = 0.0;
    gboolean split_backward = plx_schedule_splits_backward (s->schedule, s->pp);
    guint st = 0;
    /* A middle stage of one chunk is its layer count to this loop: its reduction and
     * optimizer step are worked out once per count (a 64-stage split has two). */
    StageMemo dp_memo = { 0 };

    while (st < s->pp)
      {
        double n_st = stage_layers (&cx, layers, st);
        double window = st == 0 ? bwd_first : st == s->pp - 1 ? bwd_last : n_st * lb;
        double fwd = st == 0 ? fwd_first : st == s->pp - 1 ? fwd_last : n_st * lf;
        gboolean middle_chunk = split != NULL && s->virtual_stages == 1 && st > 0 && st + 1 < s->pp;
        const double *known = middle_chunk ? stage_memo_find (&dp_memo, split[st]) : NULL;
        double exposed = 0.0, opt = known != NULL ? known[1] : plx_costing_optimizer_time (&cx, costs, st);
        /* Zero-bubble H1 produces the weight gradients in W passes: the last one
         * on a stage is all the reduction can hide behind, and the drain before it
         * carries input gradients only (B). */
        double wgrad = n_st * layer->wgrad_s + (st == 0 ? pre->wgrad_s : 0.0) + (st == s->pp - 1 ? post->wgrad_s : 0.0);
        double drain = window;

        if (split_backward)
          {
            drain = window - wgrad;
            window = wgrad;
          }
        if (known != NULL)
          exposed = known[0];
        else if (cx.dp_group.size > 1 && s->zero_stage < 3)
          {
            double bucket_bytes, bucket_s, n_buckets;

            plx_costing_grad_buckets (&cx, costs, st, &bucket_bytes, &bucket_s, &n_buckets);
            exposed = plx_costing_bucket_exposed (&cx, n_buckets, bucket_s, window) +
                      plx_costing_param_gather_exposed (&cx, costs, st, bucket_bytes, n_buckets, fwd);
          }
        if (middle_chunk && known == NULL)
          stage_memo_add (&dp_memo, split[st], exposed, opt);
        if (st == 0 || exposed + opt - slack > tail)
          {
            tail = exposed + opt - slack;
            dp_exposed = exposed;
            optimizer = opt;
            if (slack > 0.0)
              {
                /* What the drain hides comes off the reduction first. */
                double hidden = MIN (slack, dp_exposed);
                dp_exposed -= hidden;
                optimizer -= slack - hidden;
              }
          }
        slack += drain / v + c_pp;
        if (split == NULL && st == 0 && s->pp > 2)
          {
            /* Middle stages of an even split hold stage 0's layers without its
             * embedding and start their reduction earlier: they never end after
             * stage 0. Their drains are added at once, and the last stage is next. */
            double mid = layers * (split_backward ? lb - layer->wgrad_s : lb);
            slack += (s->pp - 2.0) * (mid / v + c_pp);
            st = s->pp - 1;
          }
        else
          st++;
      }
  }

  report->engine = "analytical";
  report->step_time_s = t_pipe + dp_exposed + tied + optimizer;
  report->n_gpus = plx_cluster_get_n_gpus (cluster);
  report->tokens_per_s = (double) s->global_batch_size * s->seq_length / report->step_time_s;
  {
    /* Model FLOPs: forward plus a backward of twice the forward (Narayanan et al. 2021
     * §5.1, eq. 3 without recompute; Korthikanti 2022 §6). Hardware FLOPs add what
     * recompute repeats. recompute_flops is per micro-batch per rank; over the whole
     * step and all ranks it is layers x micro-batches x tp x cp x dp. */
    report->model_flops_per_step = 3.0 * per_seq * s->global_batch_size;
    report->hardware_flops_per_step = report->model_flops_per_step +
                                      layer->recompute_flops * model->n_layers * m * s->tp * s->cp * s->dp;
  }
  peak_flops = cluster->peak_flops[s->dtype];
  report->mfu = report->model_flops_per_step / (report->step_time_s * report->n_gpus * peak_flops);
  report->hfu = report->hardware_flops_per_step / (report->step_time_s * report->n_gpus * peak_flops);


  /* Split the reported GPU's step: its own busy time by kind; the rest it waits. */
  {
    gboolean first = peak_stage == 0, last = peak_stage == s->pp - 1;
    stage_compute = layers_peak * (layer->fwd_s + layer->bwd_s) +
                    (first ? pre->fwd_s + pre->bwd_s : 0.0) + (last ? post->fwd_s + post->bwd_s : 0.0);
    stage_recompute = layers_peak * layer->recompute_s;
    stage_comm = layers_peak * (layer->comm_fwd_s + layer->comm_bwd_s + layer->comm_recompute_s) +
                 (first ? pre->comm_fwd_s + pre->comm_bwd_s : 0.0) +
                 (last ? post->comm_fwd_s + post->comm_bwd_s : 0.0);
  }
  report->time_s[PLX_TIME_COMPUTE] = m * stage_compute;
  report->time_s[PLX_TIME_RECOMPUTE] = m * stage_recompute;
  report->time_s[PLX_TIME_TP_COMM] = m * stage_comm;
  report->time_s[PLX_TIME_PP_COMM] = p > 1 ? (m + (p - 1.0) / v) * 2.0 * v * c_pp : 0.0;
  {
    double zf = 0.0, zb = 0.0;
    if (zero3.active && (peak_stage == 0 || peak_stage == s->pp - 1))
      {
        zf = peak_stage == 0 ? z_first[0] : z_last[0];
        zb = peak_stage == 0 ? z_first[1] : z_last[1];
      }
    else if (zero3.active)
      zero3_stage (&cx, costs, &zero3, peak_stage, &zf, &zb);
    report->time_s[PLX_TIME_DP_COMM] = dp_exposed + tied + m * (zf + zb);
  }
  report->time_s[PLX_TIME_OPTIMIZER] = optimizer;
  {
    double busy = 0.0, excess;
    for (guint i = 0; i < PLX_N_TIME; i++)
      if (i != PLX_TIME_BUBBLE)
        busy += report->time_s[i];
    /* The closed form hides part of the pipeline sends (and ZB-H1 part of the fill)
     * under other stages' work: counted whole on this GPU, its kinds could add up past
     * the step. What the step does not leave room for is not this GPU's time: it comes
     * off the sends first, then the exposed data-parallel communication. */
    excess = busy - report->step_time_s;
    for (guint k = 0; k < 2 && excess > 0.0; k++)
      {
        double *t = &report->time_s[k == 0 ? PLX_TIME_PP_COMM : PLX_TIME_DP_COMM];
        double cut = MIN (excess, *t);
        *t -= cut;
        excess -= cut;
        busy -= cut;
      }
    /* Below a nanosecond per second of step it is rounding, not waiting. */
    report->time_s[PLX_TIME_BUBBLE] = report->step_time_s - busy > 1e-9 * report->step_time_s
                                        ? report->step_time_s - busy : 0.0;
  }
  report->bubble_fraction = report->time_s[PLX_TIME_BUBBLE] / report->step_time_s;

  if (layer_out != NULL)
    {
      layer_out->forward_s = layer->fwd_s;
      layer_out->backward_s = layer->bwd_s;
      layer_out->recompute_s = layer->recompute_s;
      layer_out->comm_forward_s = layer->comm_fwd_s;
      layer_out->comm_backward_s = layer->comm_bwd_s + layer->comm_recompute_s;
      layer_out->saved_bytes = layer->saved_bytes;
      layer_out->params = layer->params;
      layer_out->pipeline_send_s = c_pp;
    }
  return TRUE;
}

static gboolean
check_resolved (const PlxStrategy *s,
                GError           **error)
{
  if (s->schedule == PLX_SCHEDULE_FILE)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                   "strategy.schedule: a schedule file (\"%.200s\") has no closed form; use the event engine",
                   s->schedule_path);
      return FALSE;
    }
  if (s->workload == PLX_WORKLOAD_INFERENCE)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "strategy.workload: inference is reported by "
                   "plx_inference_run (parallax-cli simulate), not by the training engines");
      return FALSE;
    }
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
  /* The search, through the cached entry, only ranks; a report shown to a user is
   * checked for numbers past what the arithmetic holds. */
  return plx_analytic_run_cached (model, cluster, s, NULL, report, error) &&
         plx_report_check (report, s->seq_length, s->micro_batch_size, error);
}

gboolean
plx_analytic_run_cached (const PlxModel    *model,
                         const PlxCluster  *cluster,
                         const PlxStrategy *s,
                         PlxAnalyticCache  *cache,
                         PlxReport         *report,
                         GError           **error)
{
  if (!check_resolved (s, error))
    return FALSE;
  analytic_eval (model, cluster, s, (double) s->micro_batch_size, G_MAXDOUBLE, cache, report, NULL);
  return TRUE;
}

gboolean
plx_analytic_run_if_fits (const PlxModel    *model,
                          const PlxCluster  *cluster,
                          const PlxStrategy *s,
                          PlxAnalyticCache  *cache,
                          double             memory_limit,
                          PlxReport         *report)
{
  g_return_val_if_fail (check_resolved (s, NULL), FALSE);
  return analytic_eval (model, cluster, s, (double) s->micro_batch_size, memory_limit, cache, report, NULL);
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
  analytic_eval (model, cluster, s, (double) s->micro_batch_size, G_MAXDOUBLE, NULL, &report, cost);
  return TRUE;
}

guint *
plx_analytic_layer_split (const PlxModel    *model,
                          const PlxCluster  *cluster,
                          const PlxStrategy *s,
                          GError           **error)
{
  PlxCosting cx;
  PlxStageCosts costs;
  PlxZero3Comm zero3;
  guint *split;
  guint k = s->pp * s->virtual_stages;

  if (!check_resolved (s, error))
    return NULL;
  /* As analytic_eval and the plan cost it: the same split as both engines use. */
  plx_costing_init (&cx, model, cluster, s, (double) s->micro_batch_size);
  plx_costing_compute (&cx, &costs);
  plx_costing_grad_accumulation (&cx, &costs);
  plx_costing_zero3_comm (&cx, &costs, &zero3);
  split = plx_costing_layer_split (&cx, &costs, &zero3);
  if (split == NULL)
    {
      split = g_new (guint, k);
      for (guint i = 0; i < k; i++)
        split[i] = model->n_layers / k;
    }
  return split;
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

  analytic_eval (fp->model, fp->cluster, fp->strategy, micro_batch, G_MAXDOUBLE, NULL, &r, NULL);
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
