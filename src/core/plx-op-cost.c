/* Per-op time: a roofline (Williams, Waterman and Patterson 2009, "Roofline: an
 * insightful visual performance model", CACM 52(4)) whose two ceilings are the
 * *achieved* matmul throughput and HBM bandwidth measured on the GPU (the cluster's
 * efficiency curves), plus a fixed kernel launch cost. A GEMM of M x K by K x N does
 * 2MNK FLOPs (Narayanan et al. 2021 §5.1) and moves (MK + KN + MN) elements; its
 * backward is two GEMMs of the same size, for the input and the weight gradient.
 * A kernel takes at least kernel_launch_s. */
#include "parallax/plx-op-cost.h"

double
plx_gemm_time (const PlxCluster *c,
               PlxDtype          dtype,
               double            flops,
               double            bytes)
{
  double compute, memory;

  if (flops <= 0.0)
    return 0.0;
  compute = flops / (c->peak_flops[dtype] * plx_curve_eval (c->matmul_efficiency, flops));
  memory = bytes / (c->hbm_bw_Bps * plx_curve_eval (c->memory_efficiency, bytes));
  /* The measured curves already include each kernel's fixed cost at small sizes;
   * kernel_launch_s is only a floor, so it is not counted twice. */
  return MAX (MAX (compute, memory), c->kernel_launch_s);
}

double
plx_memory_time (const PlxCluster *c,
                 double            bytes)
{
  if (bytes <= 0.0)
    return 0.0;
  return MAX (bytes / (c->hbm_bw_Bps * plx_curve_eval (c->memory_efficiency, bytes)), c->kernel_launch_s);
}

static double
share (PlxSplit split,
       const PlxShardContext *ctx)
{
  switch (split)
    {
    case PLX_SPLIT_TP:
      return 1.0 / ctx->tp;
    case PLX_SPLIT_SEQ:
      return ctx->sp ? 1.0 / ctx->tp : 1.0;
    case PLX_SPLIT_NONE:
    default:
      return 1.0;
    }
}

/* Activations are kept in 16 bits under fp8 training too (Transformer Engine casts
 * only GEMM inputs), so fp8 stores 2 bytes per element. */
static double
element_bytes (PlxDtype dtype)
{
  return dtype == PLX_DTYPE_FP8 ? 2.0 : plx_dtype_bytes (dtype);
}

static void
matmul_cost (const PlxOp           *op,
             const PlxShardContext *ctx,
             const PlxCluster      *c,
             PlxOpCost             *cost)
{
  double eb = element_bytes (ctx->dtype);
  double wb = plx_dtype_bytes (ctx->dtype);
  double frac = share (op->split, ctx);
  double tokens = ctx->tokens;
  double kernels = 1.0;
  double m, k, n, flops, bytes, t;

  if (op->expert)
    {
      /* Balanced routing: the EP group's tokens x top_k spread evenly over all experts,
       * so this rank's E/ep experts see tokens x top_k rows in all, in E/ep GEMMs. */
      kernels = (double) ctx->experts / ctx->ep;
      tokens = tokens * ctx->experts_per_token / kernels;
    }
  if (op->split == PLX_SPLIT_SEQ)
    {
      /* Router: replicated weights, tokens split only by sequence parallelism. */
      m = tokens * frac;
      k = op->k;
      n = op->n;
    }
  else
    {
      m = tokens;
      k = op->row_parallel ? op->k * frac : op->k;
      n = op->row_parallel ? op->n : op->n * frac;
    }
  flops = 2.0 * m * k * n;
  bytes = eb * (m * k + m * n) + wb * k * n;
  t = plx_gemm_time (c, ctx->dtype, flops, bytes);

  cost->fwd_flops = kernels * flops;
  cost->bwd_flops = 2.0 * kernels * flops;
  cost->wgrad_flops = kernels * flops;
  cost->fwd_bytes = kernels * bytes;
  cost->bwd_bytes = 2.0 * kernels * bytes;
  cost->fwd_time_s = kernels * t;
  cost->bwd_time_s = 2.0 * kernels * t;
  cost->wgrad_time_s = kernels * t;
  cost->params = op->params * (op->split == PLX_SPLIT_SEQ ? 1.0 : frac) *
                 (op->expert ? kernels : 1.0);
}

static void
attention_cost (const PlxOp           *op,
                const PlxShardContext *ctx,
                const PlxCluster      *c,
                PlxOpCost             *cost)
{
  double eb = element_bytes (ctx->dtype);
  double heads = (double) ctx->heads / ctx->tp;
  double sq = ctx->tokens, skv = ctx->seq_kv, d = op->k;
  /* Q K^T and P V each do 2 * s_q * s_kv * d FLOPs per head (Korthikanti 2022 §6:
   * the 4bs^2h attention term of the layer's 24bsh^2 + 4bs^2h). */
  double flops = 2.0 * heads * sq * skv * d;
  double bytes;

  switch (op->kind)
    {
    case PLX_OP_ATTN_SCORES:
    case PLX_OP_ATTN_VALUES:
      /* Q K^T reads Q and K and writes the scores; P V reads the probabilities and V
       * and writes the output: the same three shapes either way. */
      bytes = eb * heads * (sq * d + skv * d + sq * skv);
      cost->fwd_flops = flops;
      cost->bwd_flops = 2.0 * flops;
      cost->fwd_bytes = bytes;
      cost->bwd_bytes = 2.0 * bytes;
      cost->fwd_time_s = plx_gemm_time (c, ctx->dtype, flops, bytes);
      cost->bwd_time_s = 2.0 * cost->fwd_time_s;
      break;
    case PLX_OP_ATTN_FLASH:
      /* Both matmuls in one kernel that never writes the scores to HBM; backward
       * recomputes Q K^T, so 2.5x the forward work (Dao et al. 2022 §3.1, Thm. 2). */
      bytes = eb * heads * (2.0 * sq * d + 2.0 * skv * d);
      cost->fwd_flops = 2.0 * flops;
      cost->bwd_flops = 4.0 * flops;
      cost->fwd_bytes = bytes;
      cost->bwd_bytes = 2.0 * bytes;
      cost->fwd_time_s = plx_gemm_time (c, ctx->dtype, 2.0 * flops, bytes);
      cost->bwd_time_s = plx_gemm_time (c, ctx->dtype, 5.0 * flops, 2.0 * bytes);
      break;
    default:
      g_assert_not_reached ();
    }
}

void
plx_op_cost (const PlxOp           *op,
             const PlxShardContext *ctx,
             const PlxCluster      *c,
             PlxOpCost             *cost)
{
  double eb = element_bytes (ctx->dtype);
  double width = op->per_score ? (double) ctx->heads * ctx->seq_kv : 1.0;
  double tokens = op->expert ? ctx->tokens * ctx->experts_per_token : ctx->tokens;
  double units = tokens * width * share (op->split, ctx);
  double saved_units = tokens * width * share (op->saved_split, ctx);

  *cost = (PlxOpCost) { 0 };

  switch (op->kind)
    {
    case PLX_OP_MATMUL:
      matmul_cost (op, ctx, c, cost);
      break;
    case PLX_OP_ATTN_SCORES:
    case PLX_OP_ATTN_VALUES:
    case PLX_OP_ATTN_FLASH:
      attention_cost (op, ctx, c, cost);
      break;
    case PLX_OP_ELEMENTWISE:
    case PLX_OP_EMBEDDING:
    default:
      cost->fwd_bytes = units * (op->fwd_elems * eb + op->fwd_mask);
      cost->bwd_bytes = units * (op->bwd_elems * eb + op->bwd_mask);
      cost->fwd_time_s = plx_memory_time (c, cost->fwd_bytes);
      cost->bwd_time_s = plx_memory_time (c, cost->bwd_bytes);
      cost->params = op->params * share (op->split == PLX_SPLIT_SEQ ? PLX_SPLIT_NONE : op->split, ctx);
      break;
    }

  /* Per-score ops keep per-score values; other ops' saved values are per token. */
  cost->saved_bytes = saved_units * (op->saved_elems * eb + op->saved_mask) +
                      tokens * share (op->saved_split, ctx) * op->saved_fp32 * 4.0;
}
