/* plx-op-cost.h: one op's work on one GPU, for one micro-batch, under a shard context. */
#pragma once

#include <glib.h>

#include "parallax/plx-cluster.h"
#include "parallax/plx-model.h"
#include "parallax/plx-strategy.h"
#include "parallax/plx-types.h"

G_BEGIN_DECLS

typedef struct
{
  double   tokens;      /* tokens per micro-batch on this rank: micro_batch * seq / cp */
  double   seq_kv;      /* key length each query attends to: seq */
  guint    heads;       /* query heads of the model */
  guint    tp;
  gboolean sp;          /* sequence parallelism */
  guint    ep;
  guint    etp;         /* expert tensor parallelism (plx_strategy_get_expert_tp) */
  guint    experts;
  guint    experts_per_token;
  double   moe_load;    /* routed tokens the busiest EP rank takes, over the even share
                         * (plx_strategy_moe_load); 1 without experts */
  PlxDtype dtype;
  gboolean flash;       /* ATTN_FLASH ops are costed; unfused ops skipped (and vice versa) */
  gboolean eager;       /* memory-bound ops as PyTorch eager modules (PlxOp.eager_*) */
  gboolean fused_elementwise; /* eager PyTorch whose memory-bound ops a compiler fused
                               * (torch.compile): those cost as fused, PlxOp.eager_*
                               * unused; the rest of eager stays */
  PlxCrossEntropyFusion loss_fusion;  /* PlxOp.loss's traffic */
  PlxAttentionKernel attention_kernel; /* the fused kernel's ceiling; auto: eager
                                        * code's FlashAttention-2, else cuDNN */
} PlxShardContext;

typedef struct
{
  double  fwd_flops;      /* matmul FLOPs */
  double  bwd_flops;      /* input-gradient + weight-gradient matmul FLOPs */
  double  wgrad_flops;    /* the weight-gradient part of bwd_flops */
  double  fwd_bytes;      /* HBM traffic */
  double  bwd_bytes;
  double  fwd_time_s;
  double  bwd_time_s;
  double  wgrad_time_s;   /* part of bwd_time_s */
  double  saved_bytes;    /* activations kept for backward */
  double  params;         /* parameters held by this rank */
} PlxOpCost;

void plx_op_cost (const PlxOp            *op,
                  const PlxShardContext  *ctx,
                  const PlxCluster       *cluster,
                  PlxOpCost              *cost);

/* One GEMM shape an op runs: m x k by k x n (k contracted), `count` of them, each
 * taking `time_s` by the roofline. */
typedef struct
{
  double m;
  double k;
  double n;
  double count;
  double time_s;
} PlxGemmPiece;

/* The forward GEMMs of one matmul op on one GPU for one micro-batch: `kernels` times
 * the pieces (an expert op runs one per local expert); one piece, or two when eager
 * PyTorch splits the op into separate GEMMs (Q, K and V; gate and up: the first
 * once, the rest `count` times). m, k, n: the op's whole GEMM. */
typedef struct
{
  PlxDtype     dtype;
  double       m;
  double       k;
  double       n;
  double       kernels;
  guint        n_pieces;
  PlxGemmPiece piece[2];
} PlxMatmulGemms;

/* Training runs three products per GEMM: the forward, the data (input) gradient and
 * the weight gradient, each as many FLOPs as the forward. */
typedef enum
{
  PLX_GEMM_FORWARD,
  PLX_GEMM_DATA_GRAD,
  PLX_GEMM_WEIGHT_GRAD,
  PLX_N_GEMM_PRODUCTS
} PlxGemmProduct;

void plx_matmul_gemms (const PlxOp           *op,
                       const PlxShardContext *ctx,
                       const PlxCluster      *cluster,
                       PlxMatmulGemms        *out);
/* The product `which` of the forward GEMM `piece`, as {m, k, n} of an m x k by k x n
 * product, k contracted. */
void plx_gemm_product_shape (const PlxGemmPiece *piece,
                             PlxGemmProduct      which,
                             double              shape[3]);

/* Time of one GEMM kernel of `flops` moving `bytes`: roofline of the measured
 * matmul efficiency and achieved HBM bandwidth, plus the launch overhead. */
double plx_gemm_time (const PlxCluster *cluster,
                      PlxDtype          dtype,
                      double            flops,
                      double            bytes);
/* The dtype a GEMM runs in under the strategy's dtype: fp8 only for ops marked fp8
 * (the blocks' linear layers), 16-bit for the rest. */
PlxDtype plx_gemm_dtype (const PlxCluster *cluster,
                         PlxDtype          dtype,
                         gboolean          fp8_op);
/* Time of one memory-bound kernel moving `bytes`. */
double plx_memory_time (const PlxCluster *cluster,
                        double            bytes);

G_END_DECLS
