/* Costs of one stage's work on one GPU for one micro-batch: ops (plx-op-cost.c) plus
 * the collectives Megatron-LM issues around them. Formulas and sources are cited where
 * they are used; the derivations are in docs/cost-model.md. */
#include <math.h>
#include <string.h>

#include "cost/plx-pipeline.h"
#include "parallax/plx-strategy.h"

#include "plx-costing.h"
#include "plx-op-cost-env.h"
#include "cost/plx-layer-split.h"
#include "base/plx-minmax.h"

void
plx_costing_init (PlxCosting        *cx,
                  const PlxModel    *model,
                  const PlxCluster  *cluster,
                  const PlxStrategy *s,
                  double             micro_batch)
{
  plx_costing_init_unplaced (cx, model, cluster, s, micro_batch);
  plx_costing_place (cx);
}

void
plx_costing_init_unplaced (PlxCosting        *cx,
                           const PlxModel    *model,
                           const PlxCluster  *cluster,
                           const PlxStrategy *s,
                           double             micro_batch)
{
  double eb = s->dtype == PLX_DTYPE_FP8 ? 2.0 : plx_dtype_bytes (s->dtype);

  cx->model = model;
  cx->cluster = cluster;
  cx->strategy = s;
  cx->micro_batches = MAX (1.0, (double) s->global_batch_size / (s->dp * micro_batch));
  cx->ctx.tokens = micro_batch * s->seq_length / s->cp;
  cx->ctx.seq_kv = (double) s->seq_length;
  cx->ctx.heads = model->heads;
  cx->ctx.tp = s->tp;
  cx->ctx.sp = s->sequence_parallel && s->tp > 1;
  cx->ctx.ep = s->ep;
  cx->ctx.etp = plx_strategy_get_expert_tp (s);
  cx->ctx.experts = MAX (model->experts, 1);
  cx->ctx.experts_per_token = MAX (model->experts_per_token, 1);
  cx->ctx.moe_load = model->experts > 0 ? plx_strategy_moe_load (s, cx->ctx.tokens * cx->ctx.experts_per_token) : 1.0;
  cx->ctx.dtype = s->dtype;
  cx->ctx.flash = s->flash_attention;
  cx->ctx.eager = plx_strategy_is_pytorch (s);
  cx->ctx.fused_elementwise = s->implementation == PLX_IMPLEMENTATION_PYTORCH_COMPILE;
  cx->ctx.attention_kernel = s->attention_kernel;
  cx->ctx.loss_fusion = s->cross_entropy_fusion;
  cx->act_bytes = cx->ctx.tokens * model->hidden * eb;
  /* Only its per-tensor collectives and memory read the tensor counts: the closed
   * form's other strategies skip counting them op by op. */
  cx->per_tensor = plx_strategy_zero3_per_tensor (s);
  cx->chunk_layers = NULL;
  cx->memo = NULL;
}

void
plx_costing_place (PlxCosting *cx)
{
  const PlxCluster *cluster = cx->cluster;
  const PlxStrategy *s = cx->strategy;
  guint grad_ranks = plx_strategy_get_grad_group_size (s);
  guint etp = plx_strategy_get_expert_tp (s);

  /* Megatron's rank order: TP innermost, then CP, EP (inside DP), DP, PP outermost. */
  cx->tp_group = plx_group_place (cluster, s->tp, 1);
  cx->cp_group = plx_group_place (cluster, s->cp, s->tp);
  /* Expert parallelism over the data- and context-parallel ranks, next to TP
   * (Megatron-Core's expert layout: expert TP innermost, then EP, then expert DP,
   * within a stage's tp x cp x dp ranks). */
  cx->ep_group = plx_group_place (cluster, s->ep, etp);
  cx->etp_group = plx_group_place (cluster, etp, 1);
  /* Gradients are reduced, and ZeRO shards, over the data-parallel ranks with their
   * context-parallel ones (plx_strategy_get_grad_group_size): CP is next to TP, so
   * that group is every rank tp apart. */
  cx->dp_group = plx_group_place (cluster, grad_ranks, s->tp);
  /* Hybrid sharding: the shard groups are innermost in DP (within a node when they
   * fit), their replicas across (Zhao et al. 2023 §3.2.2, "hybrid sharding"). */
  cx->shard = plx_strategy_get_shard_size (s);
  cx->shard_group = plx_group_place (cluster, (guint) cx->shard, s->tp);
  cx->replica_group = plx_group_place (cluster, MAX (grad_ranks / (guint) cx->shard, 1), s->tp * (guint) cx->shard);
  cx->edp_group = plx_group_place (cluster, MAX (s->tp * grad_ranks / (s->ep * etp), 1), etp * s->ep);
  cx->pp_group = plx_group_place (cluster, s->pp, s->tp * s->cp * s->dp);
}

double
plx_costing_collective (const PlxCosting *cx,
                        PlxCollectiveKind kind,
                        const PlxGroup   *group,
                        double            bytes)
{
  if (cx->memo != NULL)
    return plx_cost_memo_collective (cx->memo, cx->cluster, kind, group, bytes);
  return plx_collective_time (cx->cluster, kind, group, bytes);
}

double
plx_costing_memory (const PlxCosting *cx,
                    double            bytes)
{
  if (cx->memo != NULL)
    return plx_cost_memo_memory (cx->memo, cx->cluster, bytes);
  return plx_memory_time (cx->cluster, bytes);
}

static gboolean
skip_op (const PlxOp *op,
         gboolean     flash)
{
  if (op->kind == PLX_OP_ATTN_FLASH)
    return !flash;
  return flash && op->attn_core;
}

/* An op held by some of the blocks only (DeepSeek's dense first blocks, its expert
 * blocks) counts in the one block every layer is costed as by the share of blocks
 * that hold it: totals over the model are exact, and a stage is charged the mean
 * block - the dense blocks sit on the first stage in fact (docs/cost-model.md). */
static void
scale_op_cost (PlxOpCost *c,
               double     share)
{
  G_STATIC_ASSERT (sizeof (PlxOpCost) % sizeof (double) == 0);
  for (guint i = 0; i < sizeof (PlxOpCost) / sizeof (double); i++)
    ((double *) c)[i] *= share;
}

/* PyTorch training code's "selective" checkpoints whole blocks, every other one
 * (torchtitan's selective "layer" policy at its default frequency 2; fms-fsdp's
 * selective_checkpointing 0.5): half of each block's forward is recomputed on
 * average and half of its activations are kept. Megatron's recomputes the attention
 * core (Korthikanti 2022 §5). */
#define EAGER_SELECTIVE_SHARE 0.5

static double
recompute_block_share (const PlxCosting *cx)
{
  return cx->strategy->recompute == PLX_RECOMPUTE_SELECTIVE && cx->ctx.eager ? EAGER_SELECTIVE_SHARE : 0.0;
}

/* Where an op sits in its block, for PLX_RECOMPUTE_SAVE_DOTS_EXCEPT_MLP_INPUT: the
 * first op of each half reads the half's input (the block's input, or the block's
 * input plus the kept attention out-projection); the last op writes the block's
 * output, the next block's input. */
enum
{
  OP_READS_HALF_INPUT = 1 << 0,
  OP_WRITES_BLOCK_OUTPUT = 1 << 1,
};

/* MaxText's remat_policy "save_dot_except_mlpwi" (maxtext layers/decoders.py,
 * get_remat_policy) is jax.checkpoint_policies.save_only_these_names ("query_proj",
 * "value_proj", "key_proj", "qkv_proj", "out_proj", "mlpwo"): of the values the
 * backward pass reads, only those named ones are kept; jax.checkpoint recomputes
 * the others from them and from the block's input, which the scanned layer keeps
 * (JAX, jax.checkpoint and its policies). "context", the attention core's output,
 * is not in the list (MaxText's save_dot_with_context_except_mlp adds it), so the
 * core runs forward again; neither are "mlpwi_0"/"mlpwi_1", the gate and up
 * projections. "mlpwo" (the down projection) only enters the residual sum, which
 * the backward does not read. So the backward re-runs every op but the kept
 * matmuls (its recompute), and a block keeps its input, the attention core's per-
 * token inputs (the Q, K, V projections' outputs; rotary re-applied to them) and
 * the out projection's output (the MLP half's norm reads it plus the block's
 * input, one add away): the saved values of the first op of each half and of the
 * core's per-token ops. The block's last op (the residual add) writes the next
 * block's input and is not re-run. */
static inline void
save_dots_op (const PlxOp     *op,
              const PlxOpCost *c,
              guint            place,
              PlxBlockCost    *b)
{
  gboolean kept_dot = op->kind == PLX_OP_MATMUL && !op->mlp_input;
  gboolean core = op->attn_core || op->kind == PLX_OP_ATTN_FLASH;

  if (!kept_dot && !(place & OP_WRITES_BLOCK_OUTPUT))
    {
      b->recompute_s += c->fwd_time_s;
      b->recompute_flops += c->fwd_flops;
    }
  if ((place & OP_READS_HALF_INPUT) || (core && !op->per_score))
    b->saved_bytes += c->saved_bytes;
}

/* DeepSpeed ZeRO-3 keeps a parameter of fewer elements than
 * stage3_param_persistence_threshold gathered for the whole run (default 1e5:
 * deepspeed/runtime/zero/constants.py, v0.3.14); only larger ones are gathered and
 * released around each use. */
#define ZERO3_PERSISTENCE_ELEMS 1e5

/* The op's parameter tensors, and how many of them are weights that DeepSpeed's
 * ZeRO-3 gathers one call each (plx_costing_zero3_comm_from). Eager PyTorch runs Q,
 * K and V (gate and up) as separate nn.Linear modules, each with its own weight. */
static inline void
count_tensors (const PlxCosting *cx,
               const PlxOp      *op,
               double            local_params,
               double            share,
               PlxBlockCost     *b)
{
  double tensors, gemms = 1.0, weight;

  if (op->params == 0)
    return;
  tensors = op->param_tensors > 0 ? op->param_tensors : 1;
  if (op->kind != PLX_OP_MATMUL)
    {
      /* Norm gains and biases, embedding tables: equal parts. */
      b->param_tensors += share * tensors;
      if (local_params / tensors >= ZERO3_PERSISTENCE_ELEMS)
        {
          b->large_tensors += share * tensors;
          b->largest_tensor = MAX (b->largest_tensor, local_params / tensors);
        }
      return;
    }
  if (cx->ctx.eager && op->eager_gemms > 1)
    gemms = op->eager_gemms;
  b->param_tensors += share * gemms * tensors;
  weight = local_params * ((double) op->k * op->n / op->params) / gemms;
  if (weight >= ZERO3_PERSISTENCE_ELEMS)
    {
      b->large_tensors += share * gemms;
      b->largest_tensor = MAX (b->largest_tensor, weight);
    }
}

/* One op's cost added into b, the block (or half) it belongs to. */
static inline void
cost_op (const PlxCosting *cx,
         const PlxOpEnv   *env,
         const PlxOp      *op,
         gboolean          is_layer,
         PlxRecompute      recompute,
         double            block_share,
         guint             place,
         PlxBlockCost     *b)
{
  PlxOpCost c;
  double share = 1.0;

  plx_op_cost_env (op, &cx->ctx, env, cx->cluster, &c);
  if (is_layer && op->layers != PLX_OP_LAYERS_ALL)
    {
      share = plx_model_layers_share (cx->model, (PlxOpLayers) op->layers);
      scale_op_cost (&c, share);
    }
  if (cx->per_tensor)
    count_tensors (cx, op, share > 0.0 ? c.params / share : 0.0, share, b);
  b->fwd_s += c.fwd_time_s;
  b->bwd_s += c.bwd_time_s;
  b->wgrad_s += c.wgrad_time_s;
  b->fwd_flops += c.fwd_flops;
  b->bwd_flops += c.bwd_flops;
  b->fwd_bytes += c.fwd_bytes;
  b->bwd_bytes += c.bwd_bytes;
  b->params += c.params;
  if (op->expert)
    b->expert_params += c.params;
  /* Weights only: biases are added in 16 bits, never cast. */
  if (op->fp8 && op->params > 0 && plx_gemm_dtype (cx->cluster, cx->ctx.dtype, TRUE) == PLX_DTYPE_FP8)
    b->fp8_params += c.params * ((double) op->k * op->n / op->params);
  b->full_saved_bytes += c.saved_bytes;
  if (op->attn_core || op->kind == PLX_OP_ATTN_FLASH)
    {
      b->attn_core_s += c.fwd_time_s;
      b->attn_core_bwd_s += c.bwd_time_s;
    }

  if (is_layer && recompute == PLX_RECOMPUTE_FULL)
    {
      b->recompute_s += c.fwd_time_s;
      b->recompute_flops += c.fwd_flops;
    }
  else if (is_layer && recompute == PLX_RECOMPUTE_SAVE_DOTS_EXCEPT_MLP_INPUT)
    save_dots_op (op, &c, place, b);
  else if (is_layer && block_share > 0.0)
    {
      b->recompute_s += block_share * c.fwd_time_s;
      b->recompute_flops += block_share * c.fwd_flops;
      b->saved_bytes += (1.0 - block_share) * c.saved_bytes;
      if (op->kind == PLX_OP_MATMUL)
        b->wgrad_saved_bytes += (1.0 - block_share) * c.saved_bytes;
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
    {
      b->saved_bytes += c.saved_bytes;
      if (op->kind == PLX_OP_MATMUL)
        b->wgrad_saved_bytes += c.saved_bytes;
    }
}

/* What a half-block adds after its ops. */
static void
layer_half_end (const PlxCosting *cx,
                PlxHalf           half,
                double            block_share,
                PlxBlockCost     *b)
{
  PlxRecompute recompute = cx->strategy->recompute;

  if (cx->cluster->layer_overhead_s > 0.0 && cx->ctx.eager)
    {
      /* A calibrated fixed cost per block and pass, half per half-block, of PyTorch
       * code: eager ops dispatched one by one from Python and FSDP's hooks around
       * each unit, which no op's roofline sees (docs/calibration.md); backward runs
       * twice the ops, a full recompute the forward's again. Megatron's fused
       * blocks launch few kernels and have no such hooks. */
      double h = 0.5 * cx->cluster->layer_overhead_s;
      b->fwd_s += h;
      b->bwd_s += 2.0 * h;
      if (recompute == PLX_RECOMPUTE_FULL)
        b->recompute_s += h;
      else
        b->recompute_s += block_share * h;
    }

  /* The checkpointed blocks keep their input, which belongs to the first half. */
  if (block_share > 0.0 && half != PLX_HALF_MLP)
    b->saved_bytes += block_share * cx->act_bytes / (cx->ctx.sp ? cx->ctx.tp : 1);

  if (recompute == PLX_RECOMPUTE_FULL)
    {
      /* Only each layer's input is checkpointed: 2sbh, or 2sbh/t with sequence
       * parallelism (Korthikanti 2022 Table 2); it belongs to the first half. */
      b->saved_bytes = half == PLX_HALF_MLP ? 0.0 : cx->act_bytes / (cx->ctx.sp ? cx->ctx.tp : 1);
      b->wgrad_saved_bytes = 0.0;
    }
}

/* The embedding's or the head's ops: no recompute, every one counted whole. */
static void
cost_ops (const PlxCosting *cx,
          const PlxOpEnv   *env,
          const PlxOp      *ops,
          guint             n_ops,
          PlxBlockCost     *b)
{
  for (guint i = 0; i < n_ops; i++)
    if (!skip_op (&ops[i], cx->ctx.flash))
      cost_op (cx, env, &ops[i], FALSE, PLX_RECOMPUTE_NONE, 0.0, 0, b);
}

/* Both halves of a block in one pass over its ops: each op goes to its own half in
 * the list's order, so each half gets the sums it got when it was costed alone
 * (/core/analytic/block-halves). */
static void
cost_layer_halves (const PlxCosting *cx,
                   const PlxOpEnv   *env,
                   PlxBlockCost     *attn,
                   PlxBlockCost     *mlp)
{
  PlxRecompute recompute = cx->strategy->recompute;
  double block_share = recompute_block_share (cx);
  const PlxOp *ops = cx->model->layer_ops;
  guint n = cx->model->n_layer_ops;

  *attn = (PlxBlockCost) { 0 };
  *mlp = (PlxBlockCost) { 0 };
  for (guint i = 0; i < n; i++)
    if (!skip_op (&ops[i], cx->ctx.flash))
      {
        guint place = 0;

        if (i == 0 || ops[i].mlp_half != ops[i - 1].mlp_half)
          place |= OP_READS_HALF_INPUT;
        if (i + 1 == n)
          place |= OP_WRITES_BLOCK_OUTPUT;
        cost_op (cx, env, &ops[i], TRUE, recompute, block_share, place, ops[i].mlp_half ? mlp : attn);
      }
  layer_half_end (cx, PLX_HALF_ATTENTION, block_share, attn);
  layer_half_end (cx, PLX_HALF_MLP, block_share, mlp);
}

/* A hidden state's tensor-parallel collectives, which every half-block, the
 * embedding and the head issue: gathered and reduce-scattered with sequence
 * parallelism, all-reduced without; costed once per evaluation. */
typedef struct
{
  double gather, scatter, reduce;
} TpComm;

static void
tp_comm (const PlxCosting *cx,
         TpComm           *t)
{
  t->gather = t->scatter = t->reduce = 0.0;
  if (cx->strategy->tp <= 1)
    return;
  if (cx->ctx.sp)
    {
      t->gather = plx_costing_collective (cx, PLX_COLLECTIVE_ALL_GATHER, &cx->tp_group, cx->act_bytes);
      t->scatter = plx_costing_collective (cx, PLX_COLLECTIVE_REDUCE_SCATTER, &cx->tp_group, cx->act_bytes);
    }
  else
    t->reduce = plx_costing_collective (cx, PLX_COLLECTIVE_ALL_REDUCE, &cx->tp_group, cx->act_bytes);
}

/* What of `comm_s` run beside `window_s` of compute stays exposed, with the
 * compute's slowdown for the time they overlap (plx_costing_contention). */
static double
overlapped (const PlxCosting *cx,
            double            comm_s,
            double            window_s)
{
  double exposed = MAX (0.0, comm_s - MAX (window_s, 0.0));

  return exposed + plx_costing_contention (cx, comm_s, exposed, window_s);
}

/* The chance that none of a token's k experts, drawn without repeats from E, is
 * among `held` given ones (C(E - held, k) / C(E, k)). */
static double
none_held (double experts, double k, double held)
{
  double q = 1.0;

  for (double i = 0.0; i < k; i++)
    {
      if (experts - held - i <= 0.0)
        return 0.0;
      q *= (experts - held - i) / (experts - i);
    }
  return q;
}

/* DeepEP's dispatch (deepseek-ai/DeepEP, README, "normal kernels"; DeepSeek-V3
 * technical report §3.2.2): a token crosses the network once for each other node
 * that holds any of its top-k experts, to the GPU of its own local index there, which
 * forwards it over NVLink to each other GPU of the node holding one; tokens for the
 * own node go over NVLink directly. With the experts spread evenly and routing at
 * random, a token reaches (N - 1)(1 - q_node) other nodes and ep(1 - q_rank) ranks
 * (q: the chance a node's E/N, a rank's E/ep experts hold none of its k), all but the
 * N entry GPUs over NVLink: (ep - N)(1 - q_rank) NVLink deliveries a token, the same
 * on every rank by symmetry. The combine sends the same back. `token_bytes` is one
 * copy of the rank's tokens (the busiest rank's share); returns the exchange's time
 * and the bytes it moves in *bytes. */
static double
deepep_exchange (const PlxCosting *cx,
                 double            token_bytes,
                 double           *bytes)
{
  const PlxModel *m = cx->model;
  const PlxGroup *g = &cx->ep_group;
  double e = m->experts, k = m->experts_per_token, ep = g->size, n = MAX (g->nodes, 1);
  double q_node = none_held (e, k, e / n), q_rank = none_held (e, k, e / ep);
  double inter = token_bytes * (n - 1.0) * (1.0 - q_node);
  double intra = token_bytes * (ep - n) * (1.0 - q_rank);

  *bytes = inter + intra;
  return plx_collective_two_level_all_to_all_time (cx->cluster, g, inter, intra);
}

/* Megatron's tensor-parallel collectives bracket each half of a block (Shoeybi et al.
 * 2019 §3: the f and g operators, one all-reduce forward and one backward per half),
 * or with sequence parallelism an all-gather and a reduce-scatter in place of each
 * all-reduce (Korthikanti 2022 §4.2.2). Context parallelism gathers K and V around
 * the ring (Liu et al. 2023, Ring Attention), overlapped with attention compute;
 * expert parallelism dispatches and combines tokens with all-to-alls (Lepikhin et al.
 * 2020, GShard §2.2), two forward and two backward. */
static void
half_comm (const PlxCosting *cx,
           PlxHalf           half,
           const TpComm     *tp,
           double            attn_core_s,
           double            attn_core_bwd_s,
           PlxBlockCost     *b)
{
  const PlxStrategy *s = cx->strategy;
  const PlxModel *m = cx->model;
  double fwd = 0.0, bwd = 0.0, bytes = 0.0;
  /* The context-parallel ring: what outlasts the attention core, and the part of
   * the core it keeps busy (forward, backward). */
  double ring_fwd = 0.0, ring_bwd = 0.0, ring_cover_fwd = 0.0, ring_cover_bwd = 0.0;
  /* The blocks whose MLP half gathers its hidden states over TP. */
  double dense_share = 1.0;
  /* An expert half's share of the blocks (the mean block, as scale_op_cost), and the
   * routed rows this rank sends: its tokens (1/tp of them with sequence parallelism)
   * top-k times, the busiest rank's share (plx_strategy_moe_load). */
  gboolean moe = half == PLX_HALF_MLP && m->experts > 0;
  double moe_share = moe ? plx_model_layers_share (m, PLX_OP_LAYERS_MOE) : 0.0;
  double routed = moe ? cx->act_bytes * m->experts_per_token * cx->ctx.moe_load / (cx->ctx.sp ? s->tp : 1) : 0.0;

  /* Megatron-Core's MoE layer (sequence parallel, as it requires with TP) does not
   * gather the hidden states over TP for its routed experts: each rank routes its
   * own 1/tp of the tokens, the all-to-all dispatches them, and the expert-TP
   * group all-gathers what arrived - the routed rows, top-k times the hidden
   * states - and reduce-scatters them back before the combine
   * (megatron/core/transformer/moe/token_dispatcher.py, MoEAlltoAllTokenDispatcher:
   * dispatch_postprocess, combine_preprocess, over expt_tp_group). Shared experts
   * are a dense MLP with the dense gather. */
  if (moe && (cx->ctx.sp || s->tp == 1))
    {
      double etp = cx->ctx.etp;

      dense_share = 1.0 - moe_share + (m->arch.shared_ffn > 0 ? moe_share : 0.0);
      if (etp > 1.0)
        {
          double gathered = routed * etp;
          double pair = plx_costing_collective (cx, PLX_COLLECTIVE_ALL_GATHER, &cx->etp_group, gathered) +
                        plx_costing_collective (cx, PLX_COLLECTIVE_REDUCE_SCATTER, &cx->etp_group, gathered);
          fwd += moe_share * pair;
          bwd += moe_share * pair;
          bytes += moe_share * 2.0 * gathered;
        }
    }

  if (s->tp > 1)
    {
      if (cx->ctx.sp)
        {
          double pair = tp->gather + tp->scatter;
          fwd += dense_share * pair;
          bwd += dense_share * pair;
          bytes += dense_share * 2.0 * cx->act_bytes;
        }
      else
        {
          fwd += tp->reduce;
          bwd += tp->reduce;
          bytes += cx->act_bytes;
        }
    }

  if (half == PLX_HALF_ATTENTION && s->cp > 1)
    {
      double kv = cx->ctx.tokens * 2.0 * m->kv_heads * m->head_dim / s->tp *
                  (cx->act_bytes / (cx->ctx.tokens * m->hidden)) * s->cp;
      double ag = plx_costing_collective (cx, PLX_COLLECTIVE_ALL_GATHER, &cx->cp_group, kv);
      double rs = plx_costing_collective (cx, PLX_COLLECTIVE_REDUCE_SCATTER, &cx->cp_group, kv);
      /* Backward, K/V gathered again and their gradients reduce-scattered beside the
       * core's own backward - its time, not twice its forward: where the backward
       * sped up less than twice the forward's gain, a faster GPU was slower. */
      ring_fwd = MAX (0.0, ag - attn_core_s) + plx_costing_contention (cx, ag, MAX (0.0, ag - attn_core_s), attn_core_s);
      ring_bwd = MAX (0.0, ag + rs - attn_core_bwd_s) +
                 plx_costing_contention (cx, ag + rs, MAX (0.0, ag + rs - attn_core_bwd_s), attn_core_bwd_s);
      bytes += kv;
      ring_cover_fwd = MIN (ag, attn_core_s);
      ring_cover_bwd = MIN (ag + rs, attn_core_bwd_s);
    }

  if (moe && s->ep > 1)
    {
      /* Only the expert blocks exchange tokens; the busiest rank's share sets the
       * exchange's pace. */
      double a2a_bytes = routed;
      double a2a;

      if (s->moe_dispatcher == PLX_MOE_DISPATCHER_DEEPEP)
        a2a = deepep_exchange (cx, a2a_bytes / m->experts_per_token, &a2a_bytes);
      else
        a2a = plx_costing_collective (cx, PLX_COLLECTIVE_ALL_TO_ALL, &cx->ep_group, a2a_bytes);
      fwd += 2.0 * a2a * moe_share;
      bwd += 2.0 * a2a * moe_share;
      bytes += 2.0 * a2a_bytes * moe_share;
    }

  /* Overlapping TP collectives with the GEMMs around them (Wang et al. 2023, "Overlap
   * Communication with Dependent Computation via Decomposition") leaves exposed only
   * what outlasts the half's compute - less the attention core that already hides
   * the context-parallel ring, and never the ring's own remainder: the core waits
   * for the ring's last K/V block (Liu et al. 2023 §3.1, each block's transfer
   * overlaps the previous block's compute) and the projection after it for the
   * core. Hiding the ring's remainder behind the same core a second time made the
   * half faster with a slower core: twice the HBM bandwidth once cost 21 % more.
   * With window w = compute - cover the half takes compute + ring exposed +
   * max(0, c - w) + k min(c, w), which grows with the compute, the core and the
   * communication alike. */
  if (s->overlap_tp_comm)
    {
      /* Zero-bubble H1 runs the weight-gradient GEMMs later, in W passes (Qi et al.
       * 2023 §2): a B pass hides its collectives behind the input gradients only,
       * or the W time the schedule takes off the critical path counted twice. */
      double wgrad = plx_schedule_splits_backward (s->schedule, s->pp) ? b->wgrad_s : 0.0;

      fwd = overlapped (cx, fwd, b->fwd_s - ring_cover_fwd);
      bwd = overlapped (cx, bwd, b->bwd_s - wgrad - ring_cover_bwd);
    }
  fwd += ring_fwd;
  bwd += ring_bwd;
  b->comm_fwd_s += fwd;
  b->comm_bwd_s += bwd;
  b->comm_bytes += bytes;
  if (s->recompute == PLX_RECOMPUTE_FULL)
    b->comm_recompute_s += fwd;
  else if (s->recompute == PLX_RECOMPUTE_SELECTIVE && plx_strategy_is_pytorch (s))
    b->comm_recompute_s += 0.5 * fwd;
  else if (s->recompute == PLX_RECOMPUTE_SAVE_DOTS_EXCEPT_MLP_INPUT && cx->ctx.sp)
    {
      /* The kept matmuls' outputs need no collective again; the recomputed norm's
       * output is gathered again for the column-parallel matmul that reads it (its
       * weight gradient; the MLP's input projection itself). Without sequence
       * parallelism that input is replicated and nothing is re-sent. */
      b->comm_recompute_s += tp->gather;
    }
}

static void
block_sum (const PlxBlockCost *a,
           const PlxBlockCost *b,
           PlxBlockCost       *sum)
{
  /* Field by field: every member is a double that adds, but the largest tensor. */
  G_STATIC_ASSERT (sizeof (PlxBlockCost) % sizeof (double) == 0);
  for (guint i = 0; i < sizeof (PlxBlockCost) / sizeof (double); i++)
    ((double *) sum)[i] = ((const double *) a)[i] + ((const double *) b)[i];
  sum->largest_tensor = MAX (a->largest_tensor, b->largest_tensor);
}

/* The embedding (first stage) and the final norm, LM head and loss (last stage),
 * with their tensor-parallel collectives (below). */
static void embedding_cost (const PlxCosting *cx, const PlxOpEnv *env, const TpComm *tp, PlxBlockCost *cost);
static void head_cost (const PlxCosting *cx, const PlxOpEnv *env, const TpComm *tp, PlxBlockCost *cost);

void
plx_costing_compute_unsent (const PlxCosting *cx,
                            PlxStageCosts    *costs)
{
  TpComm tp;
  PlxOpEnv env;

  /* What every op reads of the shard context, worked out once for all three lists. */
  plx_op_env (&cx->ctx, &env);
  tp_comm (cx, &tp);
  cost_layer_halves (cx, &env, &costs->attn, &costs->mlp);
  half_comm (cx, PLX_HALF_ATTENTION, &tp, costs->attn.attn_core_s, costs->attn.attn_core_bwd_s, &costs->attn);
  /* A Mamba block is one half: in_proj gathers, out_proj reduces, once. */
  if (cx->model->arch.ssm_version == 0)
    half_comm (cx, PLX_HALF_MLP, &tp, costs->mlp.attn_core_s, costs->mlp.attn_core_bwd_s, &costs->mlp);
  block_sum (&costs->attn, &costs->mlp, &costs->layer);
  embedding_cost (cx, &env, &tp, &costs->embedding);
  head_cost (cx, &env, &tp, &costs->head);
  costs->send_s = 0.0;
}

void
plx_costing_compute (const PlxCosting *cx,
                     PlxStageCosts    *costs)
{
  plx_costing_compute_unsent (cx, costs);
  costs->send_s = plx_costing_send (cx);
}

/* DeepSpeed's BF16_Optimizer (deepspeed/runtime/bf16_optimizer.py, written for BLOOM
 * in 2022; called by the pipeline engine's _exec_backward_pass after every micro-batch):
 * update_hp_grads runs hp_grad.add_(lp.grad.to(fp32)) per parameter - a cast (read 2,
 * write 4 bytes) and an add (read 4 + 4, write 4): 18 bytes per parameter, each
 * micro-batch, on every stage. Megatron-LM instead accumulates into its fp32 main_grad
 * inside the weight-gradient GEMM (gradient_accumulation_fusion): no pass at all. */
static void
add_accumulation (const PlxCosting *cx,
                  PlxBlockCost     *cost,
                  double            params)
{
  double bytes = 18.0 * params, t = plx_costing_memory (cx, bytes);

  cost->bwd_s += t;
  cost->wgrad_s += t;
  cost->bwd_bytes += bytes;
}

void
plx_costing_grad_accumulation (const PlxCosting *cx,
                               PlxStageCosts    *costs)
{
  const PlxStrategy *s = cx->strategy;
  double tied_copy = cx->model->tied_embeddings && s->pp > 1 ? (double) cx->model->vocab * cx->model->hidden / s->tp : 0.0;

  if (!plx_strategy_accumulates_fp32_copy (s))
    return;
  add_accumulation (cx, &costs->attn, costs->attn.params);
  add_accumulation (cx, &costs->mlp, costs->mlp.params);
  block_sum (&costs->attn, &costs->mlp, &costs->layer);
  add_accumulation (cx, &costs->embedding, costs->embedding.params);
  /* The last stage's copy of tied word embeddings is the LM head's weight. */
  add_accumulation (cx, &costs->head, costs->head.params + tied_copy);
}

static void
embedding_cost (const PlxCosting *cx,
                const PlxOpEnv   *env,
                const TpComm     *tp,
                PlxBlockCost     *cost)
{
  *cost = (PlxBlockCost) { 0 };
  cost_ops (cx, env, cx->model->pre_ops, cx->model->n_pre_ops, cost);
  /* Vocabulary-parallel embedding: its output is summed over TP ranks (reduce-
   * scattered with sequence parallelism). */
  if (cx->strategy->tp > 1)
    {
      cost->comm_fwd_s = cx->ctx.sp ? tp->scatter : tp->reduce;
      cost->comm_bytes = cx->act_bytes;
    }
}

static void
head_cost (const PlxCosting *cx,
           const PlxOpEnv   *env,
           const TpComm     *tp,
           PlxBlockCost     *cost)
{
  *cost = (PlxBlockCost) { 0 };
  cost_ops (cx, env, cx->model->post_ops, cx->model->n_post_ops, cost);
  /* The LM head gathers its input with sequence parallelism, and its input gradient
   * is reduced in backward. Megatron's vocabulary-parallel loss all-reduces three
   * fp32 values per token (max, sum, target logit). */
  if (cx->strategy->tp > 1)
    {
      cost->comm_fwd_s = (cx->ctx.sp ? tp->gather : 0.0) +
                         3.0 * plx_costing_collective (cx, PLX_COLLECTIVE_ALL_REDUCE, &cx->tp_group, cx->ctx.tokens * 4.0);
      cost->comm_bwd_s = cx->ctx.sp ? tp->scatter : tp->reduce;
      cost->comm_bytes = (cx->ctx.sp ? cx->act_bytes : 0.0) + 3.0 * cx->ctx.tokens * 4.0;
    }
}

double
plx_costing_send (const PlxCosting *cx)
{
  const PlxStrategy *s = cx->strategy;
  double slice, t;

  if (s->pp <= 1)
    return 0.0;
  /* Stage-to-stage activations (and gradients back): with tensor parallelism each
   * rank sends only its 1/t slice and the receivers all-gather over NVLink
   * (Narayanan et al. 2021 §4.1, scatter/gather optimisation); with sequence
   * parallelism the slice is already all a rank holds. */
  slice = cx->act_bytes / s->tp;
  t = plx_costing_collective (cx, PLX_COLLECTIVE_SEND_RECV, &cx->pp_group, slice);
  if (s->tp > 1 && !cx->ctx.sp)
    t += plx_costing_collective (cx, PLX_COLLECTIVE_ALL_GATHER, &cx->tp_group, cx->act_bytes);
  return t;
}

/* Bytes per parameter of model states under Megatron mixed precision: 16-bit weights,
 * fp32 gradients (main_grad accumulation for bf16), fp32 master weights and two Adam
 * moments: 2 + 4 + 12 = 18 (Korthikanti 2022 Fig. 1 uses exactly this). fp16 keeps
 * 16-bit gradients (Rajbhandari et al. 2020 §3.1: 2 + 2 + 12 = 16). */
void
plx_costing_state_bytes (PlxDtype dtype,
                         double  *w,
                         double  *g,
                         double  *o)
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

/* grad_dtype overrides the dtype's rule for the gradient buffers: NeMo's
 * distributed_fused_adam with grad_sync_dtype bf16 keeps and reduce-scatters 16-bit
 * gradients (Apex DistributedFusedAdam's contiguous grad buffer in that dtype), as
 * Megatron-Core's DDP does without grad_reduce_in_fp32. */
void
plx_costing_strategy_state_bytes (const PlxStrategy *s,
                                  double            *w,
                                  double            *g,
                                  double            *o)
{
  plx_costing_state_bytes (s->dtype, w, g, o);
  if (s->grad_dtype == PLX_GRAD_DTYPE_FP32)
    *g = 4.0;
  else if (s->grad_dtype == PLX_GRAD_DTYPE_BF16)
    *g = 2.0;
}

double
plx_costing_strategy_grad_bytes (const PlxStrategy *s)
{
  double w, g, o;

  plx_costing_strategy_state_bytes (s, &w, &g, &o);
  return g;
}

typedef struct
{
  const PlxCosting    *cx;
  const PlxStageCosts *costs;
  const PlxZero3Comm  *zero3;
} Zero3ChunkCost;

/* One micro-batch's forward and backward through a chunk, with ZeRO-3's gathers and
 * reduce-scatters as far as they outlast its compute (plx_costing_zero3_pass). */
static double
zero3_chunk_time (PlxChunkKind kind,
                  guint        n_layers,
                  gpointer     data)
{
  const Zero3ChunkCost *z = data;
  const PlxBlockCost *l = &z->costs->layer, *pre = &z->costs->embedding, *post = &z->costs->head;
  gboolean first = kind == PLX_CHUNK_FIRST, last = kind == PLX_CHUNK_LAST;
  double t = n_layers * (l->fwd_s + l->comm_fwd_s + l->bwd_s + l->comm_bwd_s + l->recompute_s + l->comm_recompute_s);
  double f, b;

  if (first)
    t += pre->fwd_s + pre->comm_fwd_s + pre->bwd_s + pre->comm_bwd_s;
  if (last)
    t += post->fwd_s + post->comm_fwd_s + post->bwd_s + post->comm_bwd_s;
  plx_costing_zero3_pass (z->cx, z->costs, z->zero3, n_layers, first, last, &f, &b);
  /* Its sends, which the sender's compute waits for (plx_costing_layer_split). */
  return t + f + b + (first || last ? 1.0 : 2.0) * z->costs->send_s;
}

/* Why the split counts the sends: both engines charge them to the
 * sender's compute. Megatron-LM's 1F1B p2p is synchronous (Narayanan et al. 2021
 * §2.2); the event engine keeps the stage busy for send_s after each forward with a
 * successor and each backward with a predecessor (plx-sim.c), and the closed form's
 * steady state is max(t_end + (2v - 1) send, t_mid + 2v send) per micro-batch
 * (plx_pipeline_time_stages). Per chunk that is one send for chunk 0 (activations on)
 * and chunk K-1 (gradients back), two for every other - with interleaving too, where
 * chunk k's neighbours k - 1 and k + 1 sit on other stages. A send is b*s*h/t bytes
 * (plx_costing_send: the scatter/gather optimisation of §4.1, with sequence
 * parallelism the slice a rank holds). */
guint *
plx_costing_layer_split (const PlxCosting    *cx,
                         const PlxStageCosts *costs,
                         const PlxZero3Comm  *zero3)
{
  const PlxStrategy *s = cx->strategy;
  const PlxBlockCost *l = &costs->layer, *pre = &costs->embedding, *post = &costs->head;
  double layer_s = l->fwd_s + l->comm_fwd_s + l->bwd_s + l->comm_bwd_s + l->recompute_s + l->comm_recompute_s;
  guint *out;

  if (!plx_layer_split_is_uneven (s, cx->model->n_layers))
    return NULL;
  out = g_new (guint, (gsize) s->pp * s->virtual_stages);
  /* ZeRO-3: a chunk's time is not its layers times a layer's - the embedding's and
   * head's large gathers hide behind more or fewer layers - so the split balances
   * the chunk times themselves. Otherwise linear, in layers of time. */
  if (zero3->active)
    {
      Zero3ChunkCost chunk = { cx, costs, zero3 };
      plx_layer_split_by_cost (s, cx->model->n_layers, zero3_chunk_time, &chunk, out);
      return out;
    }
  /* The embedding and the LM head with its loss, in layers of time (forward and
   * backward): what the first and last chunk carry besides their layers - less one
   * send each, for the sends are counted too (above): a middle chunk pays two
   * per micro-batch, an end chunk one, so relative to a middle chunk an end is one
   * send lighter. */
  plx_layer_split (s, cx->model->n_layers,
                   layer_s > 0 ? (pre->fwd_s + pre->comm_fwd_s + pre->bwd_s + pre->comm_bwd_s - costs->send_s) / layer_s : 0.0,
                   layer_s > 0 ? (post->fwd_s + post->comm_fwd_s + post->bwd_s + post->comm_bwd_s - costs->send_s) / layer_s : 0.0,
                   out);
  return out;
}

void
plx_costing_stage_memory_terms (const PlxCosting    *cx,
                                const PlxStageCosts *costs,
                                PlxStageMemoryTerms *terms)
{
  const PlxStrategy *s = cx->strategy;
  const PlxBlockCost *layer = &costs->layer;
  double edp;

  plx_costing_strategy_state_bytes (s, &terms->wb, &terms->gb, &terms->ob);

  /* ZeRO (Rajbhandari et al. 2020 §5.1): stage 1 shards optimizer states over the
   * data-parallel group, stage 2 also gradients, stage 3 also weights. Expert weights
   * are sharded over their own data-parallel group, dp/ep. */
  edp = (double) s->tp * plx_strategy_get_grad_group_size (s) / ((double) s->ep * plx_strategy_get_expert_tp (s));
  terms->edp = MIN (MAX (1.0, edp), cx->shard);
  {
    /* ZeRO-3 that keeps its units gathered from forward to backward holds the
     * stage's weights whole through the step; once per step (pipelined FSDP) the
     * gradients too, accumulated unsharded until the last micro-batch. */
    gboolean once = plx_strategy_zero3_once_per_step (s);
    terms->shard_w = s->zero_stage >= 3 && plx_strategy_reshard_after_forward (s) && !once;
    terms->shard_g = s->zero_stage >= 2 && !once;
  }
  terms->fp32_copy = plx_strategy_accumulates_fp32_copy (s);
  terms->transient = plx_costing_recompute_transient_bytes (s, layer);

  /* Communication buffers: the pipeline's receive and send buffers (two hidden states)
   * and the tensor-parallel gather buffer of one hidden state; ZeRO-3 keeps the next
   * layer's gathered weights while the current one computes (FSDP prefetch). */
  terms->other = 0.0;
  if (s->pp > 1)
    terms->other += 2.0 * cx->act_bytes / (cx->ctx.sp ? s->tp : 1);
  if (s->tp > 1)
    terms->other += cx->act_bytes;
  if (s->zero_stage >= 3 && cx->dp_group.size > 1)
    {
      if (cx->per_tensor)
        {
          /* DeepSpeed 2021's ZeRO-3 (v0.3.14) gathers one tensor at a time, in
           * series with compute, and releases a sub-module's weights after it ran,
           * so it never holds a whole layer gathered. At most, in backward, it holds
           * four full-size tensors of the largest parameter's size: the weight
           * gathered for its sub-module's backward; that weight's gradient, whole
           * until reduced; the previous parameter's whole gradient, which
           * reduce_ipg_grads reduce-scatters only when the next one overflows the
           * 5e8-element reduce bucket - every large weight of these models does;
           * and the flat copy of that gradient PyTorch's list reduce_scatter makes
           * (plx_costing_zero3_comm_from). A gather holds two: DeepSpeed's buffer
           * and PyTorch's flat output. */
          double largest = MAX (layer->largest_tensor, MAX (costs->embedding.largest_tensor,
                                                            costs->head.largest_tensor));
          terms->other += 4.0 * largest * terms->wb;
        }
      else
        terms->other += 2.0 * layer->params * terms->wb;
    }
}

void
plx_costing_stage_memory_at (const PlxCosting          *cx,
                             const PlxStageCosts       *costs,
                             const PlxStageMemoryTerms *terms,
                             guint                      stage,
                             PlxStageMemory            *mem)
{
  const PlxStrategy *s = cx->strategy;
  gboolean first = stage == 0, last = stage == s->pp - 1;
  double m = cx->micro_batches;
  double layers = plx_costing_stage_layers (cx, stage);
  double chunk_layers = layers / s->virtual_stages;
  double in_flight = plx_pipeline_chunks_in_flight (s->schedule, s->pp, s->virtual_stages, stage, (guint64) m);
  const PlxBlockCost *layer = &costs->layer;
  double params, expert, dense, wb = terms->wb, gb = terms->gb, ob = terms->ob, edp = terms->edp;
  gboolean shard_w = terms->shard_w, shard_g = terms->shard_g;

  params = plx_costing_stage_params (cx, costs, stage);
  expert = layers * layer->expert_params;
  dense = params - expert;

  mem->weights = dense * wb / (shard_w ? cx->shard : 1.0) + expert * wb / (shard_w ? edp : 1.0);
  mem->gradients = dense * gb / (shard_g ? cx->shard : 1.0) + expert * gb / (shard_g ? edp : 1.0);
  mem->optimizer = dense * ob / (s->zero_stage >= 1 ? cx->shard : 1.0) + expert * ob / (s->zero_stage >= 1 ? edp : 1.0);
  /* DeepSpeed's BF16_Optimizer keeps the 16-bit gradients the backward pass writes
   * beside the fp32 copy it adds them into (plx_costing_grad_accumulation). */
  if (terms->fp32_copy)
    mem->gradients += params * 2.0;
  /* fp8 training keeps each fp8 layer's weights cast once per step, as is and
   * transposed (Transformer Engine's fp8 weight workspaces): 2 bytes per parameter.
   * Under ZeRO-3/FSDP the gathered weights are cast each time instead. With
   * fp8_param_gather the fp8 copy is the weight itself (Megatron-LM's
   * --fp8-param-gather and NeMo's fp8_params keep those layers' parameters as
   * Transformer Engine Float8Tensors, 1 byte, with their cached transpose, 1 byte;
   * the fp32 master copy stays in the optimizer): the 2 bytes counted above. */
  if (s->zero_stage < 3 && !plx_strategy_fp8_param_gather (s))
    mem->weights += layers * layer->fp8_params * 2.0;

  mem->activations = in_flight * chunk_layers * layer->saved_bytes +
                     plx_pipeline_wgrad_pending (s->schedule, s->pp, stage, (guint64) m) * chunk_layers *
                       layer->wgrad_saved_bytes;
  if (first)
    mem->activations += ceil (in_flight / s->virtual_stages) * costs->embedding.saved_bytes;
  if (last)
    mem->activations += (s->schedule == PLX_SCHEDULE_GPIPE ? m : 1.0) * costs->head.saved_bytes;
  mem->activations += terms->transient;
  mem->other = terms->other;
}

void
plx_costing_stage_memory (const PlxCosting    *cx,
                          const PlxStageCosts *costs,
                          guint                stage,
                          PlxStageMemory      *mem)
{
  PlxStageMemoryTerms terms;

  plx_costing_stage_memory_terms (cx, costs, &terms);
  plx_costing_stage_memory_at (cx, costs, &terms, stage, mem);
}

/* Recompute re-creates, while one layer's backward runs, what that layer did not
 * keep (Korthikanti 2022 §5), and frees it when the backward ends:
 *  - full: the layer's activations less its input checkpoint (2sbh per layer is
 *    kept; the recomputed forward's first norm saves that same tensor again);
 *  - Megatron's selective: the attention core's per-score values (5as^2b/t), which
 *    the core's recompute rebuilds just before its backward - the same tensors a
 *    full recompute rebuilds for it;
 *  - PyTorch's selective (every other block checkpointed whole): a checkpointed
 *    block's activations less its input: the mean unsaved share per block over the
 *    share of blocks checkpointed;
 *  - save-dots-except-mlp-input: what the layer did not keep (its norms' outputs,
 *    the attention core's and the MLP's input projection's), rebuilt for its
 *    backward.
 * So at any moment full holds the inputs of every layer in flight and one whole
 * layer, selective all but the cores and one core: n i + (L - i) <= n (L - c) + c
 * for n >= 1 layers since i + c <= L, and full never holds more than selective,
 * nor selective more than none (n L). Selective once added nothing, and full then
 * held one attention core more than it on the head's stage (up to +165 %). */
double
plx_costing_recompute_transient_bytes (const PlxStrategy  *s,
                                       const PlxBlockCost *layer)
{
  double unsaved = MAX (0.0, layer->full_saved_bytes - layer->saved_bytes);

  if (s->recompute == PLX_RECOMPUTE_NONE)
    return 0.0;
  if (s->recompute == PLX_RECOMPUTE_SELECTIVE && plx_strategy_is_pytorch (s))
    return unsaved / EAGER_SELECTIVE_SHARE;
  return unsaved;
}

/* The optimizer step is memory-bound; per local parameter, Megatron-LM's mixed-
 * precision optimizer makes these passes over HBM:
 *   fused Adam (Kingma and Ba 2015, Alg. 1; apex multi-tensor Adam): reads the
 *     gradient, master weight and both moments, writes master and moments: 16 + 12
 *   global gradient norm for clipping (Pascanu et al. 2013): reads the gradient: 4
 *   copy of the fp32 master to the 16-bit model weight: 4 + 2
 *   zeroing the fp32 gradient buffer for the next step: 4
 * 42 bytes; fp16 adds the inf/nan check of the loss scaler: 4 more. */
double
plx_costing_optimizer_time (const PlxCosting    *cx,
                            const PlxStageCosts *costs,
                            guint                stage)
{
  const PlxStrategy *s = cx->strategy;
  double stage_params = plx_costing_stage_params (cx, costs, stage);
  double local = stage_params / (s->zero_stage >= 1 ? cx->shard : 1);
  double bytes_per_param = 42.0 + (s->dtype == PLX_DTYPE_FP16 ? 4.0 : 0.0);
  /* fp8: the updated 16-bit weights of the fp8 layers are cast once for the next
   * step, as is and transposed: read 2, write 1 + 1 bytes per parameter - all of them
   * after a 16-bit gather, only this rank's shard before an fp8 one. Under ZeRO-3
   * without it the cast is each pass's (plx_costing_zero3_comm). */
  gboolean fp8_gather = plx_strategy_fp8_param_gather (s);
  double fp8_cast = s->zero_stage < 3 || fp8_gather
                      ? plx_costing_stage_layers (cx, stage) * costs->layer.fp8_params * 4.0 / (fp8_gather ? cx->shard : 1.0)
                      : 0.0;

  return plx_costing_memory (cx, local * bytes_per_param + fp8_cast);
}

double
plx_costing_tied_embedding_time (const PlxCosting *cx)
{
  const PlxStrategy *s = cx->strategy;
  PlxGroup pair;

  if (!cx->model->tied_embeddings || s->pp <= 1)
    return 0.0;
  /* The two copies of the word embeddings sum their gradients (first and last
   * stage), after the backward pass. */
  pair = plx_group_place (cx->cluster, 2, s->tp * s->cp * s->dp * (s->pp - 1));
  return plx_costing_collective (cx, PLX_COLLECTIVE_ALL_REDUCE, &pair,
                                 (double) cx->model->vocab * cx->model->hidden / s->tp *
                                   plx_costing_strategy_grad_bytes (s));
}

/* A two-stage flow shop (Johnson 1954): jobs go through the communication stream
 * (a) and then the compute stream (b) in order. c1 and c2 are when each stream
 * finishes the jobs so far; one job moves them to c1 + a and max(c2, c1 + a) + b. */
static void
flow_job (double *c1, double *c2, double a, double b)
{
  *c1 += a;
  *c2 = MAX (*c2, *c1) + b;
}

/* n identical jobs at once: compute finishes at max(c2 + n b, c1 + a + n b,
 * c1 + n a + b) - the bottleneck stream paces all but one job (the recurrence
 * unrolled; the middle terms are linear in the job index, so only its ends count). */
static void
flow_jobs (double *c1, double *c2, double n, double a, double b)
{
  double end;

  if (n <= 0.0)
    return;
  end = MAX (*c2 + n * b, MAX (*c1 + a + n * b, *c1 + n * a + b));
  *c1 += n * a;
  *c2 = end;
}

/* Overlap is not free: a collective's kernels hold SMs (NCCL runs one thread block
 * per channel) and HBM bandwidth while the GEMMs beside them run, so the overlapped
 * compute slows (arXiv 2507.03114, "Characterizing Compute-Communication Overlap in
 * GPU-Accelerated Distributed Deep Learning", abstract: 18.9 % mean, 40 % at most, on
 * A100 and H100; Agrawal et al. 2024, arXiv 2412.14335, §I: overlap realises 21 % of
 * its ideal speedup). Modelled as the compute stretched by overlap_slowdown for the
 * time the two ran together. */
double
plx_costing_contention (const PlxCosting *cx,
                        double            comm_s,
                        double            exposed_s,
                        double            busy_s)
{
  double k = cx->cluster->overlap_slowdown;

  if (k <= 0.0)
    return 0.0;
  return k * CLAMP (comm_s - exposed_s, 0.0, MAX (busy_s, 0.0));
}

/* ZeRO-3 / FSDP (Rajbhandari et al. 2020 §5.3; Zhao et al. 2023, "PyTorch FSDP",
 * §3.3-3.4): each block is a unit whose weights are all-gathered over the
 * data-parallel group before its forward, gathered again before its backward
 * (reshard after forward) and whose gradients are reduce-scattered after it; the
 * embedding and the head with the loss are units of their own. The gathers run on
 * their own stream ahead of compute (prefetch), so a pass is a flow shop of its
 * units: the first gather is always exposed, and a unit whose communication
 * outlasts its compute paces the pass. Returns the exposed part: the pass's length
 * beyond its compute. Without overlap every collective waits for compute. */
void
plx_costing_zero3_inputs (const PlxCosting    *cx,
                          const PlxStageCosts *c,
                          PlxZero3Inputs      *in)
{
  const PlxStrategy *s = cx->strategy;

  memset (in, 0, sizeof *in);   /* padding too: the inputs are compared byte for byte */
  if (s->zero_stage < 3 || cx->dp_group.size <= 1)
    return;
  in->active = TRUE;
  in->cluster = cx->cluster;
  in->dtype = s->dtype;
  in->eager = cx->ctx.eager;
  in->fp8_gather = plx_strategy_fp8_param_gather (s);
  in->grad_bytes = plx_costing_strategy_grad_bytes (s);
  in->reshard = plx_strategy_reshard_after_forward (s);
  in->per_step = plx_strategy_zero3_once_per_step (s) ? 1.0 / cx->micro_batches : 1.0;
  in->shard = cx->shard;
  in->shard_group = cx->shard_group;
  in->replica_group = cx->replica_group;
  in->unit_params[0] = c->layer.params;
  in->unit_params[1] = c->embedding.params;
  in->unit_params[2] = c->head.params;
  in->unit_fp8[0] = c->layer.fp8_params;
  in->unit_fp8[1] = c->embedding.fp8_params;
  in->unit_fp8[2] = c->head.fp8_params;
  if (cx->per_tensor)
    {
      const PlxBlockCost *units[3] = { &c->layer, &c->embedding, &c->head };
      for (guint i = 0; i < 3; i++)
        {
          in->unit_calls_gather[i] = units[i]->large_tensors;
          in->unit_calls_scatter[i] = units[i]->param_tensors;
        }
    }
}

void
plx_costing_zero3_comm (const PlxCosting    *cx,
                        const PlxStageCosts *c,
                        PlxZero3Comm        *z)
{
  PlxZero3Inputs in;

  plx_costing_zero3_inputs (cx, c, &in);
  plx_costing_zero3_comm_from (cx, &in, z);
}

void
plx_costing_zero3_comm_from (const PlxCosting     *cx,
                             const PlxZero3Inputs *in,
                             PlxZero3Comm         *z)
{
  double wb, gb, ob;

  *z = (PlxZero3Comm) { 0 };
  if (!in->active)
    return;
  plx_costing_state_bytes (in->dtype, &wb, &gb, &ob);
  gb = in->grad_bytes;
  z->active = TRUE;
  {
    const double *unit_params = in->unit_params, *unit_fp8 = in->unit_fp8;
    gboolean fp8_gather = in->fp8_gather, reshard = in->reshard;
    double per_step = in->per_step;
    for (guint i = 0; i < 3; i++)
      {
        /* fp8 weights gathered at 1 byte a parameter (torchao's float8 all-gather for
         * FSDP2: each rank casts its shard before the all-gather). */
        double gathered = unit_params[i] * wb - (fp8_gather ? unit_fp8[i] * (wb - 1.0) : 0.0);
        z->gather[i] = plx_costing_collective (cx, PLX_COLLECTIVE_ALL_GATHER, &in->shard_group, gathered);
        /* FSDP2 all-gathers into one flat buffer and copies it out into the unit's
         * per-parameter tensors (split_with_sizes_copy: read and write the 16-bit
         * weights), and before the reduce-scatter copies the gradients into one
         * buffer in the reduce dtype (read 2 bytes, write 4): FSDP2's
         * foreach_all_gather_copy_out and reduce-scatter copy-in (pytorch/pytorch
         * #117950, #117975, #119451; tracker #114299). */
        if (in->eager)
          {
            z->copy_out[i] = plx_costing_memory (cx, 2.0 * unit_params[i] * wb);
            z->copy_in[i] = plx_costing_memory (cx, unit_params[i] * (wb + gb));
          }
        /* Gathered in 16 bits, the fp8 layers' weights are cast again each time they
         * are gathered, forward and backward - resharded after use, there is no copy
         * to keep for the step (torchao's Float8Linear with dynamic scaling; as
         * Transformer Engine's cast_transpose: read 2 bytes, write 1 + 1). */
        if (!fp8_gather && unit_fp8[i] > 0.0)
          z->copy_out[i] += plx_costing_memory (cx, 4.0 * unit_fp8[i]);
        z->scatter[i] = plx_costing_collective (cx, PLX_COLLECTIVE_REDUCE_SCATTER, &in->shard_group, unit_params[i] * gb);
        /* DeepSpeed v0.3.14's ZeRO-3 (partition_parameters.py: _allgather_param,
         * _reduce_scatter_gradient) gathers each large parameter with its own
         * torch.distributed.all_gather after a torch.cuda.synchronize(), and
         * reduce-scatters each gradient with its own call, both over lists of one
         * slice per rank. PyTorch's ProcessGroupNCCL (1.8, allgather and
         * reduce_scatter) copies such a list out of (into) a flat buffer one
         * tensor at a time, a copy kernel per rank; and with every call waited for,
         * none pipelines into the next, so each pays its ring steps' latency
         * again (plx_collective_ring_steps_latency). */
        if (in->unit_calls_scatter[i] > 0.0)
          {
            double per_call = plx_collective_ring_steps_latency (in->cluster, &in->shard_group) +
                              in->shard_group.size * in->cluster->kernel_launch_s;
            z->gather[i] += in->unit_calls_gather[i] * per_call;
            z->scatter[i] += in->unit_calls_scatter[i] * per_call;
          }
        /* Hybrid sharding: each shard's gradients are then all-reduced over the replicas. */
        if (in->replica_group.size > 1)
          z->scatter[i] += plx_costing_collective (cx, PLX_COLLECTIVE_ALL_REDUCE, &in->replica_group,
                                                   unit_params[i] * gb / in->shard);
        /* Resharded after forward, the backward gathers (and copies, casts) again. */
        if (reshard)
          {
            z->regather[i] = z->gather[i];
            z->copy_regather[i] = z->copy_out[i];
          }
        /* Once per step: the first micro-batch gathers, the last reduce-scatters;
         * spread evenly, each micro-batch's passes carry 1/m of them (the closed
         * form and the plan cost every micro-batch alike). */
        z->gather[i] *= per_step;
        z->copy_out[i] *= per_step;
        z->scatter[i] *= per_step;
        z->copy_in[i] *= per_step;
      }
  }
}

void
plx_costing_zero3_pass (const PlxCosting    *cx,
                        const PlxStageCosts *c,
                        const PlxZero3Comm  *z,
                        double               n_layers,
                        gboolean             first,
                        gboolean             last,
                        double              *fwd_extra,
                        double              *bwd_extra)
{
  const PlxStrategy *s = cx->strategy;
  const PlxBlockCost *l = &c->layer, *pre = &c->embedding, *post = &c->head;
  double c1 = 0.0, c2 = 0.0, busy;
  double gather_l = z->gather[0], scatter_l = z->scatter[0], regather_l = z->regather[0];
  double gather_e = first ? z->gather[1] : 0.0, scatter_e = first ? z->scatter[1] : 0.0;
  double gather_h = last ? z->gather[2] : 0.0, scatter_h = last ? z->scatter[2] : 0.0;
  double regather_e = first ? z->regather[1] : 0.0, regather_h = last ? z->regather[2] : 0.0;
  double lf = l->fwd_s + l->comm_fwd_s;
  double lb = l->bwd_s + l->comm_bwd_s + l->recompute_s + l->comm_recompute_s;
  double pf = pre->fwd_s + pre->comm_fwd_s, pb = pre->bwd_s + pre->comm_bwd_s;
  double qf = post->fwd_s + post->comm_fwd_s, qb = post->bwd_s + post->comm_bwd_s;
  double copies_f, copies_b;

  *fwd_extra = *bwd_extra = 0.0;
  if (!z->active)
    return;
  /* Zero-bubble H1 moves the weight gradients into W passes (Qi et al. 2023 §2),
   * so a backward pass hides its gathers behind the input gradients alone. Hidden
   * behind B + W, the gathers of a communication-bound stage looked covered by a
   * W that the schedule then also took off the critical path: counted saved twice,
   * a saving that shrank as the GPU got faster (twice the FLOP/s, +4.6 %). */
  if (plx_schedule_splits_backward (s->schedule, s->pp))
    {
      lb -= l->wgrad_s;
      qb -= last ? post->wgrad_s : 0.0;   /* the embedding's stay in B (plx-plan.c) */
    }
  /* The copies run with each unit's compute; the pass's busy time below stays the
   * compute alone, so they count in what the pass adds. */
  lf += z->copy_out[0];
  lb += z->copy_regather[0] + z->copy_in[0];
  pf += first ? z->copy_out[1] : 0.0;
  pb += first ? z->copy_regather[1] + z->copy_in[1] : 0.0;
  qf += last ? z->copy_out[2] : 0.0;
  qb += last ? z->copy_regather[2] + z->copy_in[2] : 0.0;
  copies_f = n_layers * z->copy_out[0] + (first ? z->copy_out[1] : 0.0) + (last ? z->copy_out[2] : 0.0);
  copies_b = n_layers * (z->copy_regather[0] + z->copy_in[0]) + (first ? z->copy_regather[1] + z->copy_in[1] : 0.0) +
             (last ? z->copy_regather[2] + z->copy_in[2] : 0.0);
  if (!s->overlap_dp_comm)
    {
      *fwd_extra = n_layers * gather_l + gather_e + gather_h + copies_f;
      *bwd_extra = n_layers * (regather_l + scatter_l) + regather_e + scatter_e + regather_h + scatter_h + copies_b;
      return;
    }

  /* Forward: embedding, layers, head. */
  if (first)
    flow_job (&c1, &c2, gather_e, pf);
  flow_jobs (&c1, &c2, n_layers, gather_l, lf);
  if (last)
    flow_job (&c1, &c2, gather_h, qf);
  busy = n_layers * lf + (first ? pf : 0.0) + (last ? qf : 0.0) - copies_f;
  *fwd_extra = MAX (0.0, c2 - busy);
  *fwd_extra += plx_costing_contention (cx, c1, *fwd_extra - copies_f, busy);

  /* Backward, in reverse: each unit's gather and its gradients' reduce-scatter share
   * the stream; the last reduce-scatter ends the pass. */
  c1 = c2 = 0.0;
  if (last)
    flow_job (&c1, &c2, regather_h + scatter_h, qb);
  flow_jobs (&c1, &c2, n_layers, regather_l + scatter_l, lb);
  if (first)
    flow_job (&c1, &c2, regather_e + scatter_e, pb);
  busy = n_layers * lb + (first ? pb : 0.0) + (last ? qb : 0.0) - copies_b;
  *bwd_extra = MAX (0.0, MAX (c1, c2) - busy);
  *bwd_extra += plx_costing_contention (cx, c1, *bwd_extra - copies_b, busy);
}

/* Data-parallel gradient buckets (PyTorch DDP, Li et al. 2020 §3.2.3; Megatron-LM's
 * DDP): each chunk's gradients fill ceil(bytes / bucket size) buckets of equal size,
 * each reduced (all-reduced, or reduce-scattered under ZeRO) as one collective. */
void
plx_costing_grad_buckets (const PlxCosting    *cx,
                          const PlxStageCosts *c,
                          guint                stage,
                          double              *bucket_bytes,
                          double              *bucket_s,
                          double              *n_buckets)
{
  const PlxStrategy *s = cx->strategy;
  double gb = plx_costing_strategy_grad_bytes (s);
  double limit = (double) plx_strategy_get_grad_bucket_bytes (s), grads = 0.0;
  guint K = s->pp * s->virtual_stages;
  double even = cx->chunk_layers == NULL ? (double) cx->model->n_layers / K : 0.0;  /* once, not a chunk */

  *n_buckets = 0.0;
  for (guint v = 0; v < s->virtual_stages; v++)
    {
      guint k = v * s->pp + stage;
      double chunk = plx_costing_chunk_params_of (cx, c, k, K, cx->chunk_layers != NULL ? cx->chunk_layers[k] : even) * gb;

      grads += chunk;
      *n_buckets += plx_max (1.0, ceil (chunk / limit));
    }
  /* Buckets split a chunk's gradients evenly: none is left a sliver. */
  *bucket_bytes = grads > 0.0 ? grads / *n_buckets : 0.0;
  if (*bucket_bytes <= 0.0)
    *bucket_s = 0.0;
  else if (s->zero_stage == 0)
    *bucket_s = plx_costing_collective (cx, PLX_COLLECTIVE_ALL_REDUCE, &cx->dp_group, *bucket_bytes);
  else
    {
      *bucket_s = plx_costing_collective (cx, PLX_COLLECTIVE_REDUCE_SCATTER, &cx->shard_group, *bucket_bytes);
      /* Hybrid sharding: the shard's part all-reduced over the replicas. */
      if (cx->replica_group.size > 1)
        *bucket_s += plx_costing_collective (cx, PLX_COLLECTIVE_ALL_REDUCE, &cx->replica_group,
                                             *bucket_bytes / cx->shard);
    }
  if (grads <= 0.0)
    *n_buckets = 0.0;
}

/* n buckets of equal size become ready evenly over the last backward pass of the
 * chunk they belong to, and are reduced one after another: a flow shop of gradient
 * production (w/n per bucket) and reduction (t). With one chunk per stage the last
 * reduction ends max(w + t, w/n + n t) after the pass starts. With v interleaved
 * chunks (Narayanan et al. 2021 §2.2) the stage's last backward passes run chunk
 * v-1 first and chunk 0 last, p passes of w/v apart (each chunk's pass for the last
 * group of p micro-batches): chunk c's buckets are ready c p w/v before the stage's
 * compute ends. Returns what outlasts the compute; without overlap, all of it.
 * window: the stage's backward of one micro-batch, all chunks. */
double
plx_costing_bucket_exposed (const PlxCosting *cx,
                            double            n_buckets,
                            double            bucket_s,
                            double            window)
{
  const PlxStrategy *s = cx->strategy;
  double v = s->virtual_stages, pass = window / v, per_chunk = n_buckets / v;
  double queue = -G_MAXDOUBLE, exposed;

  if (n_buckets <= 0.0)
    return 0.0;
  if (!s->overlap_dp_comm)
    return n_buckets * bucket_s;
  for (guint c = s->virtual_stages; c-- > 0;)
    {
      /* Chunk c's pass, measured from the end of the stage's compute. */
      double start = -(double) c * s->pp * pass - pass;
      /* flow_jobs with the streams the other way round: production, then reduction. */
      queue = MAX (queue + per_chunk * bucket_s,
                   MAX (start + pass / per_chunk + per_chunk * bucket_s, start + pass + bucket_s));
    }
  exposed = MAX (bucket_s, queue);
  /* The compute they can overlap: from the first chunk's pass to the end. */
  return exposed + plx_costing_contention (cx, n_buckets * bucket_s, exposed,
                                           ((double) (s->virtual_stages - 1) * s->pp + 1.0) * pass);
}

/* ZeRO-1/2 all-gather the updated weights after the optimizer step, bucket by bucket
 * (Rajbhandari et al. 2020 §7; Megatron-LM's distributed optimizer). With overlap
 * (Megatron's --overlap-param-gather) the next step's first forward pass waits for
 * each bucket only as it reaches that bucket's layers: a flow shop of gathers and
 * forward compute (fwd_s split evenly over the buckets), exposed by what outlasts the
 * forward; without overlap every gather is exposed. */
double
plx_costing_param_gather_exposed (const PlxCosting    *cx,
                                  const PlxStageCosts *costs,
                                  guint                stage,
                                  double               bucket_bytes,
                                  double               n,
                                  double               fwd_s)
{
  const PlxStrategy *s = cx->strategy;
  double wb, gb, ob, gather, c1 = 0.0, c2 = 0.0, exposed, weight_bytes = 0.0;

  if (cx->dp_group.size <= 1 || s->zero_stage < 1 || s->zero_stage > 2 || n <= 0.0)
    return 0.0;
  plx_costing_strategy_state_bytes (s, &wb, &gb, &ob);
  /* The same buckets hold 16-bit weights; with fp8_param_gather the fp8 layers'
   * share of them 1 byte each (Megatron-LM's --fp8-param-gather). */
  weight_bytes = wb;
  if (plx_strategy_fp8_param_gather (s))
    {
      double params = plx_costing_stage_params (cx, costs, stage);
      double fp8 = plx_costing_stage_layers (cx, stage) * costs->layer.fp8_params;
      if (params > 0.0)
        weight_bytes = (params * wb - fp8 * (wb - 1.0)) / params;
    }
  gather = plx_costing_collective (cx, PLX_COLLECTIVE_ALL_GATHER, &cx->shard_group, bucket_bytes * weight_bytes / gb);
  if (!s->overlap_dp_comm)
    return n * gather;
  flow_jobs (&c1, &c2, n, gather, fwd_s / n);
  exposed = MAX (0.0, c2 - fwd_s);
  return exposed + plx_costing_contention (cx, n * gather, exposed, fwd_s);
}
