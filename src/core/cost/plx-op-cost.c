/* Per-op time: a roofline (Williams, Waterman and Patterson 2009, "Roofline: an
 * insightful visual performance model", CACM 52(4)) whose two ceilings are the
 * *achieved* matmul throughput and HBM bandwidth measured on the GPU (the cluster's
 * efficiency curves), plus a fixed kernel launch cost. A GEMM of M x K by K x N does
 * 2MNK FLOPs (Narayanan et al. 2021 §5.1) and moves (MK + KN + MN) elements; its
 * backward is two GEMMs of the same size, for the input and the weight gradient.
 * A kernel takes at least kernel_launch_s. */
#include <math.h>

#include "cost/plx-op-cost.h"

#include "plx-op-cost-env.h"

/* Achieved fraction of the dtype's peak for a GEMM of `flops`. An fp8 GEMM without a
 * measured curve of its own runs as fast as a 16-bit GEMM of flops x (16-bit peak /
 * fp8 peak): the same tiles at twice the rate, so what the curve holds (launch, tail,
 * wave quantisation: fixed time per kernel) weighs twice as much. On H100 this gives
 * 0.74 of fp8 peak for an 8192^3 GEMM against the 0.81 measured with cuBLASLt
 * (e4m3 in, bf16 out) - the 16-bit curve's own large-size value (0.75-0.78) is the
 * limit, as fp8 GEMMs also hit the power and clock ceiling first. */
static double
matmul_efficiency (const PlxCluster *c,
                   PlxDtype          dtype,
                   double            flops)
{
  double scale;
  double eff;

  /* A TF32 or FP32 GEMM runs other kernels (1688 MMA, SIMT sgemm) against another
   * peak: its own measured curve where a sweep or trace gave one - a measurement, so
   * no calibration scale fitted to published 16-bit runs applies to it - else the
   * 16-bit curve's shape (docs/calibration.md). */
  if (dtype == PLX_DTYPE_TF32 && c->matmul_tf32_efficiency != NULL)
    {
      eff = plx_curve_eval (c->matmul_tf32_efficiency, flops);
      return MIN (1.0, eff) * c->compute_clock_factor;
    }
  if (dtype == PLX_DTYPE_FP32 && c->matmul_fp32_efficiency != NULL)
    {
      eff = plx_curve_eval (c->matmul_fp32_efficiency, flops);
      return MIN (1.0, eff) * c->compute_clock_factor;
    }
  if (dtype != PLX_DTYPE_FP8)
    eff = plx_curve_eval (c->matmul_efficiency, flops);
  else if (c->matmul_fp8_efficiency != NULL)
    eff = plx_curve_eval (c->matmul_fp8_efficiency, flops);
  else
    {
      scale = c->peak_flops[PLX_DTYPE_BF16] > 0.0 ? c->peak_flops[PLX_DTYPE_BF16] / c->peak_flops[PLX_DTYPE_FP8] : 1.0;
      eff = plx_curve_eval (c->matmul_efficiency, flops * MIN (scale, 1.0));
    }
  /* A calibrated cluster scales the measured curve (docs/calibration.md); a power cap
   * or locked clock slows the tensor cores below the clock it was measured at. */
  return MIN (1.0, eff * c->matmul_scale) * c->compute_clock_factor;
}

/* Achieved fraction of HBM bandwidth, with a calibrated cluster's factor. */
static double
memory_efficiency (const PlxCluster *c,
                   double            bytes)
{
  double eff = plx_curve_eval (c->memory_efficiency, bytes) * c->memory_scale;
  return MIN (eff, 1.0);
}

/* The dtype a GEMM runs in: under fp8 training only the blocks' linear layers are
 * fp8 (Micikevicius et al. 2022, "FP8 Formats for Deep Learning" §4; Transformer
 * Engine); everything else runs in bf16. A GPU without fp8 runs 16-bit. */
PlxDtype
plx_gemm_dtype (const PlxCluster *c,
                PlxDtype          dtype,
                gboolean          fp8_op)
{
  if (dtype != PLX_DTYPE_FP8)
    return dtype;
  if (fp8_op && c->peak_flops[PLX_DTYPE_FP8] > 0.0)
    return PLX_DTYPE_FP8;
  return c->peak_flops[PLX_DTYPE_BF16] > 0.0 ? PLX_DTYPE_BF16 : PLX_DTYPE_FP16;
}

double
plx_gemm_time (const PlxCluster *c,
               PlxDtype          dtype,
               double            flops,
               double            bytes)
{
  double compute, memory;

  if (flops <= 0.0)
    return 0.0;
  compute = flops / (c->peak_flops[dtype] * matmul_efficiency (c, dtype, flops));
  memory = bytes / (c->hbm_bw_Bps * memory_efficiency (c, bytes));
  /* The measured curves already include each kernel's fixed cost at small sizes;
   * kernel_launch_s is only a floor, so it is not counted twice. */
  return MAX (MAX (compute, memory), c->kernel_launch_s);
}

double
plx_memory_time (const PlxCluster *c,
                 double            bytes)
{
  double t;

  if (bytes <= 0.0)
    return 0.0;
  /* The lookup in a variable, not in plx_max's argument (plx-minmax.h): there GCC loads
   * kernel_launch_s before the call and keeps it across, more instructions on the
   * closed form's path (docs/performance.md), as in memory_efficiency and above. */
  t = bytes / (c->hbm_bw_Bps * memory_efficiency (c, bytes));
  return MAX (t, c->kernel_launch_s);
}

/* Activations are kept in 16 bits under fp8 training too (Transformer Engine casts
 * only GEMM inputs), so fp8 stores 2 bytes per element. */
static double
element_bytes (PlxDtype dtype)
{
  return dtype == PLX_DTYPE_FP8 ? 2.0 : plx_dtype_bytes (dtype);
}

void
plx_op_env (const PlxShardContext *ctx,
            PlxOpEnv              *env)
{
  double tp = 1.0 / ctx->tp;

  env->eb = element_bytes (ctx->dtype);
  env->share[PLX_SPLIT_NONE] = 1.0;
  env->share[PLX_SPLIT_SEQ] = ctx->sp ? tp : 1.0;
  env->share[PLX_SPLIT_TP] = tp;
  /* Expert tensor parallelism re-divides the tp ranks' work on the experts: each
   * expert's weights over etp ranks, each of which then computes etp/tp of the
   * routed rows of its expert-TP = tp counterpart - the same FLOPs a rank, in other
   * GEMM shapes (Megatron-Core's expert layout, --expert-tensor-parallel-size). */
  {
    double etp = ctx->etp > 0 ? ctx->etp : ctx->tp;
    env->expert_share = 1.0 / etp;
    env->expert_rows = etp * tp;
  }
}

static inline double
share (PlxSplit     split,
       const PlxOpEnv *env)
{
  return (guint) split <= PLX_SPLIT_TP ? env->share[split] : 1.0;
}

/* The sizes of the op's GEMM on this rank: m x k by k x n, and how many such GEMMs
 * (an expert op runs one per local expert). */
static void
matmul_shape (const PlxOp           *op,
              const PlxShardContext *ctx,
              const PlxOpEnv        *env,
              double                *m,
              double                *k,
              double                *n,
              double                *kernels)
{
  double frac = share (op->split, env);
  double tokens = ctx->tokens;

  *kernels = 1.0;
  if (op->expert)
    {
      /* The EP group's tokens x top_k spread over all experts: this rank's E/ep
       * experts see tokens x top_k rows in all on average, in E/ep GEMMs, and the
       * busiest rank moe_load times that (capacity padding or imbalance); with
       * expert TP apart from tp, etp/tp of those rows over 1/etp of the weights. */
      *kernels = (double) ctx->experts / ctx->ep;
      tokens = tokens * ctx->experts_per_token * ctx->moe_load / *kernels * env->expert_rows;
      if (op->split == PLX_SPLIT_TP)
        frac = env->expert_share;
    }
  if (op->split == PLX_SPLIT_SEQ)
    {
      /* Router: replicated weights, tokens split only by sequence parallelism. */
      *m = tokens * frac;
      *k = op->k;
      *n = op->n;
    }
  else
    {
      *m = tokens;
      *k = op->row_parallel ? op->k * frac : op->k;
      *n = op->row_parallel ? op->n : op->n * frac;
    }
}

/* Static, so that matmul_cost (the search's inner loop) has it inlined. */
static inline void
matmul_gemms (const PlxOp           *op,
              const PlxShardContext *ctx,
              const PlxOpEnv        *env,
              const PlxCluster      *c,
              PlxMatmulGemms        *out)
{
  PlxDtype gemm = plx_gemm_dtype (c, ctx->dtype, op->fp8);
  double eb = env->eb;
  /* fp8 GEMMs read fp8 inputs and weights and write 16-bit outputs. */
  double ib = gemm == PLX_DTYPE_FP8 ? 1.0 : eb;
  double wb = gemm == PLX_DTYPE_FP8 ? 1.0 : plx_dtype_bytes (gemm);
  double m, k, n;

  matmul_shape (op, ctx, env, &m, &k, &n, &out->kernels);
  out->dtype = gemm;
  out->m = m;
  out->k = k;
  out->n = n;
  if (ctx->eager && op->eager_gemms > 1 && op->eager_first_n < op->n)
    {
      /* Separate GEMMs over the same input: each reads it, each is smaller and so
       * further down the efficiency curve (cluster-presets.md). */
      double first = n * (double) op->eager_first_n / (double) op->n;
      double rest = (n - first) / (op->eager_gemms - 1);
      out->n_pieces = 2;
      out->piece[0] = (PlxGemmPiece) { m, k, first, 1.0,
                                       plx_gemm_time (c, gemm, 2.0 * m * k * first, ib * m * k + eb * m * first + wb * k * first) };
      out->piece[1] = (PlxGemmPiece) { m, k, rest, (double) (op->eager_gemms - 1),
                                       plx_gemm_time (c, gemm, 2.0 * m * k * rest, ib * m * k + eb * m * rest + wb * k * rest) };
    }
  else
    {
      out->n_pieces = 1;
      out->piece[0] = (PlxGemmPiece) { m, k, n, 1.0, plx_gemm_time (c, gemm, 2.0 * m * k * n, ib * m * k + eb * m * n + wb * k * n) };
    }
}

void
plx_matmul_gemms (const PlxOp           *op,
                  const PlxShardContext *ctx,
                  const PlxCluster      *c,
                  PlxMatmulGemms        *out)
{
  PlxOpEnv env;

  plx_op_env (ctx, &env);
  matmul_gemms (op, ctx, &env, c, out);
}

void
plx_gemm_product_shape (const PlxGemmPiece *p,
                        PlxGemmProduct      which,
                        double              shape[3])
{
  /* Y[m,n] = X[m,k] W[k,n]; dX[m,k] = dY[m,n] W^T[n,k]; dW[k,n] = X^T[k,m] dY[m,n]
   * (the three products of backpropagation through a linear layer). */
  switch (which)
    {
    case PLX_GEMM_DATA_GRAD:
      shape[0] = p->m, shape[1] = p->n, shape[2] = p->k;
      break;
    case PLX_GEMM_WEIGHT_GRAD:
      shape[0] = p->k, shape[1] = p->m, shape[2] = p->n;
      break;
    case PLX_GEMM_FORWARD:
    default:
      shape[0] = p->m, shape[1] = p->k, shape[2] = p->n;
      break;
    }
}

/* DistSim (Lu et al. 2023, §4) profiles each op once and composes the step from the
 * profiles; here a GEMM whose shape the cluster's table lists takes the measured
 * time. A product the table lacks, of an op whose other products it has, takes their
 * mean: all three do the same FLOPs over the same three matrices, so the roofline
 * gives them one time, and what the measurement adds (the library's kernel choice,
 * clocks) is the best guess for the missing one - a forward-only trace keeps the
 * backward at twice the forward, as the roofline has it. An op none of whose products
 * was measured keeps the roofline. Returns the time of each product over the pieces. */
static void
measured_times (const PlxCluster     *c,
                const PlxMatmulGemms *g,
                double                t[PLX_N_GEMM_PRODUCTS])
{
  for (guint j = 0; j < PLX_N_GEMM_PRODUCTS; j++)
    t[j] = 0.0;
  for (guint i = 0; i < g->n_pieces; i++)
    {
      const PlxGemmPiece *p = &g->piece[i];
      double measured[PLX_N_GEMM_PRODUCTS], sum = 0.0, fallback;
      guint found = 0;

      for (guint j = 0; j < PLX_N_GEMM_PRODUCTS; j++)
        {
          double shape[3];
          plx_gemm_product_shape (p, (PlxGemmProduct) j, shape);
          measured[j] = plx_measured_gemm_time (c->measured_gemms, c->n_measured_gemms, g->dtype, shape[0], shape[1],
                                                shape[2]);
          if (measured[j] > 0.0)
            {
              sum += measured[j];
              found++;
            }
        }
      fallback = found > 0 ? sum / found : p->time_s;
      for (guint j = 0; j < PLX_N_GEMM_PRODUCTS; j++)
        t[j] += p->count * (measured[j] > 0.0 ? measured[j] : fallback);
    }
}

static void
matmul_cost (const PlxOp           *op,
             const PlxShardContext *ctx,
             const PlxOpEnv        *env,
             const PlxCluster      *c,
             PlxOpCost             *cost)
{
  PlxMatmulGemms g;
  double eb = env->eb;
  double ib, wb, kernels, m, k, n, flops, bytes, t, cast_fwd = 0.0, cast_bwd = 0.0;

  matmul_gemms (op, ctx, env, c, &g);
  ib = g.dtype == PLX_DTYPE_FP8 ? 1.0 : eb;
  wb = g.dtype == PLX_DTYPE_FP8 ? 1.0 : plx_dtype_bytes (g.dtype);
  kernels = g.kernels;
  m = g.m;
  k = g.k;
  n = g.n;
  flops = 2.0 * m * k * n;
  bytes = ib * m * k + eb * m * n + wb * k * n;
  if (g.n_pieces == 2)
    {
      t = g.piece[0].time_s + g.piece[1].count * g.piece[1].time_s;
      bytes += g.piece[1].count * ib * m * k;
    }
  else
    t = g.piece[0].time_s;
  if (g.dtype == PLX_DTYPE_FP8)
    {
      /* Each fp8 GEMM quantises its 16-bit operand with a scale from the amax
       * history and writes it twice, as is and transposed, because Hopper's fp8
       * tensor cores take only the TN layout and the weight gradient needs the
       * transpose (Transformer Engine's cast_transpose; NVIDIA, "Using FP8 with
       * Transformer Engine"): read 2 bytes, write 1 + 1 per element, the input in
       * forward and the output gradient in backward. The weights are cast once per
       * step (the first micro-batch's copy is kept): in the optimizer pass. */
      cast_fwd = plx_memory_time (c, 4.0 * m * k);
      cast_bwd = plx_memory_time (c, 4.0 * m * n);
    }

  cost->fwd_flops = kernels * flops;
  cost->bwd_flops = 2.0 * kernels * flops;
  cost->wgrad_flops = kernels * flops;
  cost->fwd_bytes = kernels * (bytes + 4.0 * (cast_fwd > 0.0 ? m * k : 0.0));
  cost->bwd_bytes = kernels * (2.0 * bytes + 4.0 * (cast_bwd > 0.0 ? m * n : 0.0));
  if (c->n_measured_gemms == 0)
    {
      cost->fwd_time_s = kernels * (t + cast_fwd);
      cost->bwd_time_s = kernels * (2.0 * t + cast_bwd);
      cost->wgrad_time_s = kernels * t;
    }
  else
    {
      double tm[PLX_N_GEMM_PRODUCTS];
      measured_times (c, &g, tm);
      cost->fwd_time_s = kernels * (tm[PLX_GEMM_FORWARD] + cast_fwd);
      cost->bwd_time_s = kernels * (tm[PLX_GEMM_DATA_GRAD] + tm[PLX_GEMM_WEIGHT_GRAD] + cast_bwd);
      cost->wgrad_time_s = kernels * tm[PLX_GEMM_WEIGHT_GRAD];
    }
  cost->params = op->params * (op->split == PLX_SPLIT_SEQ ? 1.0 : op->expert ? env->expert_share : share (op->split, env)) *
                 (op->expert ? kernels : 1.0);
}

/* Dao 2023 (FlashAttention-2) §4.1, on A100: FlashAttention-2 is 1.7-3.0x as fast
 * as FlashAttention and 1.3-2.5x as fast as FlashAttention in Triton; the geometric
 * middles of those ranges, applied to the GPU's own FlashAttention-2 figure. */
#define FLASH_ATTENTION_1_SLOWDOWN 2.26
#define TRITON_FLASH_ATTENTION_SLOWDOWN 1.80

/* The fused kernel's ceiling as a fraction of peak (0: none given). */
static double
attention_ceiling (const PlxShardContext *ctx,
                   const PlxCluster      *c)
{
  PlxAttentionKernel kernel = ctx->attention_kernel;

  if (kernel == PLX_ATTENTION_KERNEL_AUTO)
    kernel = ctx->eager ? PLX_ATTENTION_KERNEL_FLASH_ATTENTION_2 : PLX_ATTENTION_KERNEL_CUDNN;
  switch (kernel)
    {
    case PLX_ATTENTION_KERNEL_CUDNN:
      return c->attention_efficiency;
    case PLX_ATTENTION_KERNEL_FLASH_ATTENTION_1:
      return c->attention_efficiency_pytorch / FLASH_ATTENTION_1_SLOWDOWN;
    case PLX_ATTENTION_KERNEL_TRITON:
      return c->attention_efficiency_pytorch / TRITON_FLASH_ATTENTION_SLOWDOWN;
    case PLX_ATTENTION_KERNEL_FLASH_ATTENTION_2:
    case PLX_ATTENTION_KERNEL_AUTO:
    default:
      return c->attention_efficiency_pytorch;
    }
}

static void
attention_cost (const PlxOp           *op,
                const PlxShardContext *ctx,
                const PlxOpEnv        *env,
                const PlxCluster      *c,
                PlxOpCost             *cost)
{
  double eb = env->eb;
  /* The attention core stays 16-bit under fp8 training (Transformer Engine's fp8
   * attention is opt-in), as the unfused batched GEMMs do. */
  PlxDtype gemm = plx_gemm_dtype (c, ctx->dtype, FALSE);
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
      cost->fwd_time_s = plx_gemm_time (c, gemm, flops, bytes);
      cost->bwd_time_s = 2.0 * cost->fwd_time_s;
      break;
    case PLX_OP_ATTN_FLASH:
      {
        /* Both matmuls in one kernel that never writes the scores to HBM; backward
         * recomputes Q K^T, so 2.5x the forward work (Dao et al. 2022 §3.1, Thm. 2).
         * A causal kernel skips the key blocks wholly above the diagonal: of n x n
         * tiles of 128 it computes n (n + 1) / 2 (Dao 2023, FlashAttention-2 §3.1.1;
         * with context parallelism the load-balanced ring gives each rank the same
         * share). The FLOPs reported stay the full matrix, as MFU counts them. */
        double n = ceil (skv / 128.0), causal = (n + 1.0) / (2.0 * n);
        double cap = attention_ceiling (ctx, c);
        double work;

        /* A sliding window of w keys leaves each row of query tiles at most
         * ceil(w/128) + 1 key tiles: sum over rows of min(i + 1, b) = b n - b(b-1)/2
         * of the n^2 (FlashAttention-2's window_size, Dao 2023 §3.1.1 tiling). */
        if (op->window > 0 && (double) op->window < skv && op->window_share > 0.0)
          {
            double tiles = ceil ((double) op->window / 128.0) + 1.0;
            double b = MIN (tiles, n);
            double windowed = (b * n - b * (b - 1.0) / 2.0) / (n * n);
            causal = (1.0 - op->window_share) * causal + op->window_share * windowed;
          }
        work = causal * flops;

        bytes = eb * heads * (2.0 * sq * d + 2.0 * skv * d);
        cost->fwd_flops = 2.0 * flops;
        cost->bwd_flops = 4.0 * flops;
        cost->fwd_bytes = bytes;
        cost->bwd_bytes = 2.0 * bytes;
        cost->fwd_time_s = plx_gemm_time (c, gemm, 2.0 * work, bytes);
        cost->bwd_time_s = plx_gemm_time (c, gemm, 5.0 * work, 2.0 * bytes);
        /* The kernel's own ceiling, below a GEMM's (softmax, masking and the online
         * rescaling between its two matmuls), scaled with the GEMMs by calibration. */
        if (cap > 0.0)
          {
            double rate = c->peak_flops[gemm] * cap * MIN (c->matmul_scale, 1.0) * c->compute_clock_factor;
            cost->fwd_time_s = MAX (cost->fwd_time_s, 2.0 * work / rate);
            cost->bwd_time_s = MAX (cost->bwd_time_s, 5.0 * work / rate);
          }
        break;
      }
    default:
      g_assert_not_reached ();
    }
}

/* A fused cross-entropy, per logit (the op's elems are per token: vocab of them).
 * Megatron-Core's native fusion (megatron/core/fusions/fused_cross_entropy.py) runs
 * the same fp32 steps as the unfused loss in three jit-fused kernels: the upcast and
 * max (read 2, write 4 bytes), the shifted exp and its sum (read 4, write 4), the
 * division (read 4, write 4): 22 bytes; backward reads the kept fp32 softmax and
 * writes the 16-bit gradient: 6. Transformer Engine's kernel (te/pytorch/triton/
 * cross_entropy.py, online softmax) reads the 16-bit logits once and writes their
 * gradient in their place: 4 bytes, keeping that 16-bit buffer for backward, which
 * scales it by the incoming gradient (read 2, write 2). */
static void
fused_loss_cost (const PlxOp           *op,
                 const PlxShardContext *ctx,
                 const PlxOpEnv        *env,
                 double                 units,
                 double                 tokens,
                 const PlxCluster      *c,
                 PlxOpCost             *cost)
{
  double logits = units * (double) op->n;
  gboolean te = ctx->loss_fusion == PLX_CROSS_ENTROPY_TE;

  cost->fwd_bytes = logits * (te ? 4.0 : 22.0);
  cost->bwd_bytes = logits * (te ? 4.0 : 6.0);
  cost->fwd_time_s = plx_memory_time (c, cost->fwd_bytes);
  cost->bwd_time_s = plx_memory_time (c, cost->bwd_bytes);
  cost->params = 0.0;
  cost->saved_bytes = tokens * share (op->saved_split, env) * op->saved_fp32 * (te ? 2.0 : 4.0);
}

/* Mamba-2's SSD scan: its multiply-adds (PlxOp k x n a token) run as batched
 * matrix products of chunk size (Dao and Gu 2024 §6: "dominated by matrix
 * multiplications"), costed as a 16-bit GEMM of that work and the traffic of its
 * inputs and output; its backward, the gradients of x, B, C and dt through the same
 * products, twice that, as a GEMM's (dgrad and wgrad). TP splits its heads. */
static void
ssm_scan_cost (const PlxOp           *op,
               const PlxShardContext *ctx,
               const PlxOpEnv        *env,
               const PlxCluster      *c,
               double                 tokens,
               PlxOpCost             *cost)
{
  double part = share (op->split, env);
  PlxDtype gemm = plx_gemm_dtype (c, ctx->dtype, FALSE);
  double flops = 2.0 * tokens * (double) op->k * (double) op->n * part;

  cost->fwd_flops = flops;
  cost->bwd_flops = 2.0 * flops;
  cost->fwd_bytes = tokens * op->fwd_elems * part * env->eb;
  cost->bwd_bytes = tokens * op->bwd_elems * part * env->eb;
  cost->fwd_time_s = plx_gemm_time (c, gemm, cost->fwd_flops, cost->fwd_bytes);
  cost->bwd_time_s = plx_gemm_time (c, gemm, cost->bwd_flops, cost->bwd_bytes);
  cost->params = op->params * part;
}

void
plx_op_cost (const PlxOp           *op,
             const PlxShardContext *ctx,
             const PlxCluster      *c,
             PlxOpCost             *cost)
{
  PlxOpEnv env;

  plx_op_env (ctx, &env);
  plx_op_cost_env (op, ctx, &env, c, cost);
}

void
plx_op_cost_env (const PlxOp           *op,
                 const PlxShardContext *ctx,
                 const PlxOpEnv        *env,
                 const PlxCluster      *c,
                 PlxOpCost             *cost)
{
  double eb = env->eb;
  double width = op->per_score ? (double) ctx->heads * ctx->seq_kv : 1.0;
  double tokens = op->expert ? ctx->tokens * ctx->experts_per_token * ctx->moe_load : ctx->tokens;
  double units = tokens * width * share (op->split, env);
  double saved_units = tokens * width * share (op->saved_split, env);
  /* XLA and torch.compile fuse element-wise chains into one kernel each (XLA's
   * operator fusion; TorchInductor's pointwise and reduction fusion): the fused
   * traffic, as Transformer Engine's kernels. */
  gboolean unfused = ctx->eager && !ctx->fused_elementwise;

  *cost = (PlxOpCost) { 0 };

  switch (op->kind)
    {
    case PLX_OP_MATMUL:
      matmul_cost (op, ctx, env, c, cost);
      break;
    case PLX_OP_ATTN_SCORES:
    case PLX_OP_ATTN_VALUES:
    case PLX_OP_ATTN_FLASH:
      attention_cost (op, ctx, env, c, cost);
      break;
    case PLX_OP_SSM_SCAN:
      ssm_scan_cost (op, ctx, env, c, tokens, cost);
      break;
    case PLX_OP_ELEMENTWISE:
    case PLX_OP_EMBEDDING:
    default:
      if (op->loss && ctx->loss_fusion != PLX_CROSS_ENTROPY_UNFUSED)
        {
          fused_loss_cost (op, ctx, env, units, tokens, c, cost);
          return;
        }
      cost->fwd_bytes = units * ((unfused && op->eager_fwd_elems > 0.0 ? op->eager_fwd_elems : op->fwd_elems) * eb +
                                 op->fwd_mask);
      cost->bwd_bytes = units * ((unfused && op->eager_bwd_elems > 0.0 ? op->eager_bwd_elems : op->bwd_elems) * eb +
                                 op->bwd_mask);
      cost->fwd_time_s = plx_memory_time (c, cost->fwd_bytes);
      cost->bwd_time_s = plx_memory_time (c, cost->bwd_bytes);
      cost->params = op->params * share (op->split == PLX_SPLIT_SEQ ? PLX_SPLIT_NONE : op->split, env);
      break;
    }

  /* Per-score ops keep per-score values; other ops' saved values are per token. */
  cost->saved_bytes = saved_units * (op->saved_elems * eb + op->saved_mask) +
                      tokens * share (op->saved_split, env) * op->saved_fp32 * 4.0;
}
