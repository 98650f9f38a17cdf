/* plx-analytic.h: closed-form step time and memory (the fast engine used by search). */
#pragma once

#include <glib.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-report.h"
#include "plx-strategy.h"

G_BEGIN_DECLS

/* One transformer block on one GPU for one micro-batch. */
typedef struct
{
  double forward_s;        /* compute (matmuls and memory-bound ops) */
  double backward_s;
  double recompute_s;      /* compute repeated in backward by the recompute mode */
  double comm_forward_s;   /* TP/SP, CP and EP collectives on the critical path */
  double comm_backward_s;  /* ... in backward, including recompute's */
  double saved_bytes;      /* activations kept for backward */
  double params;           /* parameters on this GPU */
  double pipeline_send_s;  /* one stage-to-stage send of a micro-batch's activations */
} PlxLayerCost;

/* The strategy must have been resolved (plx_strategy_resolve) against the same model
 * and cluster. No allocation: safe to call millions of times from worker threads. */
gboolean plx_analytic_run (const PlxModel    *model,
                           const PlxCluster  *cluster,
                           const PlxStrategy *strategy,
                           PlxReport         *report,
                           GError           **error);

/* Costs of the blocks, embedding and head depend on fewer keys than a step does (not
 * on pp, dp, the schedule or ZeRO); a search that varies those in its inner loops
 * reuses them through this cache, and with them the placement terms, ZeRO-3's
 * collectives and the last uneven layer split (each keyed on all it is computed
 * from). The keys hold the model's and cluster's addresses: a cache must not outlive
 * them, nor see them edited in place. One per thread. */
typedef struct _PlxAnalyticCache PlxAnalyticCache;
PlxAnalyticCache *plx_analytic_cache_new (void);
void              plx_analytic_cache_free (PlxAnalyticCache *cache);
gboolean plx_analytic_run_cached (const PlxModel    *model,
                                  const PlxCluster  *cluster,
                                  const PlxStrategy *strategy,
                                  PlxAnalyticCache  *cache,
                                  PlxReport         *report,
                                  GError           **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxAnalyticCache, plx_analytic_cache_free)
/* The same prediction for a search that keeps only what fits: when the peak memory is
 * past memory_limit bytes it returns FALSE with only the report's memory figures
 * (memory_bytes, peak_memory_bytes, hbm_*, fits_in_memory, reported_stage) set, and
 * no time computed. */
gboolean plx_analytic_run_if_fits (const PlxModel    *model,
                                   const PlxCluster  *cluster,
                                   const PlxStrategy *strategy,
                                   PlxAnalyticCache  *cache,
                                   double             memory_limit,
                                   PlxReport         *report);

gboolean plx_analytic_layer_cost (const PlxModel    *model,
                                  const PlxCluster  *cluster,
                                  const PlxStrategy *strategy,
                                  PlxLayerCost      *cost,
                                  GError           **error);

/* The layers of each model chunk (pp * virtual_stages of them, newly allocated) that
 * both engines use for a resolved strategy: its own counts, n_layers / K, or the
 * balanced split of plx-layer-split.h with the costs of this model and cluster. */
guint   *plx_analytic_layer_split (const PlxModel    *model,
                                   const PlxCluster  *cluster,
                                   const PlxStrategy *strategy,
                                   GError           **error);

/* The largest micro-batch size whose peak memory fits the usable HBM, other keys
 * unchanged (found with GSL's Brent solver on memory against micro-batch size);
 * 0 if not even 1 fits. Ignores whether the global batch divides by it. */
gboolean plx_analytic_max_micro_batch_size (const PlxModel    *model,
                                            const PlxCluster  *cluster,
                                            const PlxStrategy *strategy,
                                            guint64           *out,
                                            GError           **error);

G_END_DECLS
