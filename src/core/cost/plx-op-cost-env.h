/* plx-op-cost-env.h (internal): what plx_op_cost reads of its shard context for every op,
 * worked out once for all the ops costed under one context (plx-costing.c costs a
 * block's ops in a loop) rather than once per op: the element size and the share of
 * the work each split leaves this rank. The same doubles either way. */
#pragma once

#include "cost/plx-op-cost.h"

G_BEGIN_DECLS

typedef struct
{
  double eb;                        /* bytes of a stored activation element */
  double share[PLX_SPLIT_TP + 1];   /* by PlxSplit */
  double expert_share;              /* an expert GEMM's weight share: 1/etp */
  double expert_rows;               /* its routed rows over those of expert TP = tp: etp/tp */
} PlxOpEnv;

void plx_op_env (const PlxShardContext *ctx,
                 PlxOpEnv              *env);
/* plx_op_cost with env from plx_op_env (ctx): the same cost. */
void plx_op_cost_env (const PlxOp           *op,
                      const PlxShardContext *ctx,
                      const PlxOpEnv        *env,
                      const PlxCluster      *cluster,
                      PlxOpCost             *cost);

G_END_DECLS
