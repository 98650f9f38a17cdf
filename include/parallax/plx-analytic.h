/**
 * SECTION:plx-analytic
 * @title: plx-analytic.h
 * @short_description: closed-form step time and memory
 *
 * Closed-form step time and memory (the fast engine used by search).
 */
#pragma once

#include <glib.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-report.h"
#include "plx-strategy.h"

G_BEGIN_DECLS

/**
 * PlxLayerCost:
 * @forward_s: forward compute (matmuls and memory-bound ops)
 * @backward_s: backward compute
 * @recompute_s: compute repeated in backward by the recompute mode
 * @comm_forward_s: TP/SP, CP and EP collectives on the critical path
 * @comm_backward_s: ... in backward, including recompute's
 * @saved_bytes: activations kept for backward
 * @params: parameters on this GPU
 * @pipeline_send_s: one stage-to-stage send of a micro-batch's activations
 *
 * One transformer block on one GPU for one micro-batch; times in seconds.
 */
typedef struct
{
  double forward_s;
  double backward_s;
  double recompute_s;
  double comm_forward_s;
  double comm_backward_s;
  double saved_bytes;
  double params;
  double pipeline_send_s;
} PlxLayerCost;

/**
 * plx_analytic_run:
 * @model: the model
 * @cluster: the cluster
 * @strategy: the strategy, resolved (plx_strategy_resolve()) against the same model
 *   and cluster
 * @report: (out caller-allocates): the prediction
 * @error: return location for a #GError, or %NULL
 *
 * Predicts one step in closed form. No allocation: safe to call millions of times
 * from worker threads. The report is checked with plx_report_check().
 *
 * Returns: %TRUE on success; %FALSE with a %PLX_ERROR_UNSUPPORTED error for a
 *   schedule file or an inference workload (no closed form), or an error when the
 *   strategy is not resolved, or the error of plx_report_check()
 */
gboolean plx_analytic_run (const PlxModel    *model,
                           const PlxCluster  *cluster,
                           const PlxStrategy *strategy,
                           PlxReport         *report,
                           GError           **error);

/**
 * PlxAnalyticCache:
 *
 * Costs of the blocks, embedding and head depend on fewer keys than a step does (not
 * on pp, dp, the schedule or ZeRO); a search that varies those in its inner loops
 * reuses them through this cache, and with them the placement terms, ZeRO-3's
 * collectives and the last uneven layer split (each keyed on all it is computed
 * from). The keys hold the model's and cluster's addresses: a cache must not outlive
 * them, nor see them edited in place. One per thread. Opaque.
 */
typedef struct _PlxAnalyticCache PlxAnalyticCache;
/**
 * plx_analytic_cache_new:
 *
 * Returns: (transfer full): an empty cache
 */
PlxAnalyticCache *plx_analytic_cache_new (void);
/**
 * plx_analytic_cache_free:
 * @cache: (transfer full) (nullable): a cache
 *
 * Frees @cache.
 */
void              plx_analytic_cache_free (PlxAnalyticCache *cache);
/**
 * plx_analytic_run_cached:
 * @model: the model
 * @cluster: the cluster
 * @strategy: the strategy, resolved against the same model and cluster
 * @cache: (nullable): this thread's cache, or %NULL for none
 * @report: (out caller-allocates): the prediction
 * @error: return location for a #GError, or %NULL
 *
 * As plx_analytic_run(), through @cache, and without plx_report_check(): for a
 * search, which only ranks.
 *
 * Returns: %TRUE on success; %FALSE with a %PLX_ERROR_UNSUPPORTED error for a
 *   schedule file or an inference workload (no closed form), or an error when the
 *   strategy is not resolved
 */
gboolean plx_analytic_run_cached (const PlxModel    *model,
                                  const PlxCluster  *cluster,
                                  const PlxStrategy *strategy,
                                  PlxAnalyticCache  *cache,
                                  PlxReport         *report,
                                  GError           **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxAnalyticCache, plx_analytic_cache_free)
/**
 * plx_analytic_run_if_fits:
 * @model: the model
 * @cluster: the cluster
 * @strategy: the strategy, resolved against the same model and cluster, with a
 *   closed form (a critical warning otherwise)
 * @cache: (nullable): this thread's cache, or %NULL for none
 * @memory_limit: the peak memory kept, in bytes
 * @report: (out caller-allocates): the prediction
 *
 * The same prediction for a search that keeps only what fits.
 *
 * Returns: %TRUE with the whole report; when the peak memory is past @memory_limit
 *   bytes %FALSE with only the report's memory figures (memory_bytes,
 *   peak_memory_bytes, hbm_*, fits_in_memory, reported_stage) set, and no time
 *   computed
 */
gboolean plx_analytic_run_if_fits (const PlxModel    *model,
                                   const PlxCluster  *cluster,
                                   const PlxStrategy *strategy,
                                   PlxAnalyticCache  *cache,
                                   double             memory_limit,
                                   PlxReport         *report);

/**
 * plx_analytic_layer_cost:
 * @model: the model
 * @cluster: the cluster
 * @strategy: the strategy, resolved against the same model and cluster
 * @cost: (out caller-allocates): one transformer block's costs
 * @error: return location for a #GError, or %NULL
 *
 * The closed form's costs of one transformer block on one GPU for one micro-batch.
 *
 * Returns: %TRUE on success; %FALSE with a %PLX_ERROR_UNSUPPORTED error for a
 *   schedule file or an inference workload (no closed form), or an error when the
 *   strategy is not resolved
 */
gboolean plx_analytic_layer_cost (const PlxModel    *model,
                                  const PlxCluster  *cluster,
                                  const PlxStrategy *strategy,
                                  PlxLayerCost      *cost,
                                  GError           **error);

/**
 * plx_analytic_layer_split:
 * @model: the model
 * @cluster: the cluster
 * @strategy: a resolved strategy
 * @error: return location for a #GError, or %NULL
 *
 * The layers of each model chunk that both engines use for a resolved strategy: its
 * own counts, n_layers / K, or the balanced split of plx-layer-split.h with the
 * costs of this model and cluster.
 *
 * Returns: (transfer full) (nullable): pp * virtual_stages counts, newly allocated;
 *   %NULL with @error set as for plx_analytic_run_cached()
 */
guint   *plx_analytic_layer_split (const PlxModel    *model,
                                   const PlxCluster  *cluster,
                                   const PlxStrategy *strategy,
                                   GError           **error);

/**
 * plx_analytic_max_micro_batch_size:
 * @model: the model
 * @cluster: the cluster
 * @strategy: a resolved strategy
 * @out: (out): the size
 * @error: return location for a #GError, or %NULL
 *
 * Finds the largest micro-batch size whose peak memory fits the usable HBM, other
 * keys unchanged (found with GSL's Brent solver on memory against micro-batch size);
 * 0 if not even 1 fits, at most 1048576. Ignores whether the global batch divides by
 * it.
 *
 * Returns: %TRUE with *@out set; %FALSE with @error set as for
 *   plx_analytic_run_cached()
 */
gboolean plx_analytic_max_micro_batch_size (const PlxModel    *model,
                                            const PlxCluster  *cluster,
                                            const PlxStrategy *strategy,
                                            guint64           *out,
                                            GError           **error);

G_END_DECLS
