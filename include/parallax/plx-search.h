/**
 * SECTION:plx-search
 * @title: plx-search.h
 * @short_description: every valid strategy for a model, a cluster and a global
 *   batch, predicted and ranked
 *
 * Every valid strategy for a model, a cluster (or a range of GPU counts) and a
 * global batch, predicted and ranked (DistIR's grid search, DistSim's strategy
 * search; docs/search.md).
 */
#pragma once

#include <gio/gio.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-strategy.h"

G_BEGIN_DECLS

/**
 * PLX_SEARCH_FREE:
 *
 * A #PlxSearchOptions fix_ field's value when the search chooses it.
 */
#define PLX_SEARCH_FREE (-1)

/**
 * PlxSearchOptions:
 * @gpus_min: the fewest GPUs searched; 0: the cluster's GPU count
 * @gpus_max: the most GPUs searched
 * @fix_tp: a degree or option held fixed, or %PLX_SEARCH_FREE: tensor-parallel degree
 * @fix_pp: pipeline-parallel degree
 * @fix_cp: context-parallel degree
 * @fix_ep: expert-parallel degree
 * @fix_dp: data-parallel degree
 * @fix_micro_batch: micro-batch size
 * @fix_virtual_stages: model chunks per stage
 * @fix_zero_stage: ZeRO stage
 * @fix_recompute: a #PlxRecompute
 * @fix_schedule: a #PlxSchedule (not FILE)
 * @fix_sequence_parallel: 1 or 0
 * @memory_headroom: fraction of usable HBM kept free, 0 .. 0.9
 * @top_k: the K best by the event engine (more are re-simulated to find them)
 * @n_threads: 0: one per core
 * @max_micro_batch: the largest micro-batch size searched
 * @uneven_stages: also evaluate each pipeline whose layers divide with
 *   "layers_per_stage": "auto" (plx-layer-split.h), kept when it is faster than the
 *   even split. Off: as before (layers that do not divide are split balanced either
 *   way).
 * @shard: a slice of the space for one process of many (docs/sweeps.md): work item i
 *   of the enumeration is this shard's when a Fibonacci hash of i, taken to
 *   [0, @n_shards), equals @shard (0-based; plx-search.c shard_of: i mod n gave
 *   shards of very unequal size)
 * @n_shards: 0: the whole space, ranked. A shard's results (even 1 of 1) are the
 *   closed form's, unranked by the event engine and without Pareto marks:
 *   plx_search_rank() does that on the union.
 *
 * What a search covers and how; plx_search_options_init() sets the defaults.
 */
typedef struct
{
  guint  gpus_min;
  guint  gpus_max;
  gint   fix_tp, fix_pp, fix_cp, fix_ep, fix_dp;
  gint   fix_micro_batch, fix_virtual_stages, fix_zero_stage;
  gint   fix_recompute;
  gint   fix_schedule;
  gint   fix_sequence_parallel;
  double memory_headroom;
  guint  top_k;
  guint  n_threads;
  guint  max_micro_batch;
  gboolean uneven_stages;
  guint    shard;
  guint    n_shards;
} PlxSearchOptions;

/**
 * PlxSearchResult:
 * @strategy: the strategy; schedule_path is %NULL
 * @n_gpus: the GPUs it uses
 * @step_time_s: from the event engine for the re-simulated, else analytical
 * @analytical_step_time_s: the closed form's step time
 * @mfu: model FLOPs utilisation
 * @tokens_per_s: tokens trained a second
 * @peak_memory_bytes: the highest peak of any GPU
 * @fits_in_memory: the peak fits the usable HBM
 * @event: re-simulated with the event engine
 * @pareto: no other is both faster and needs less memory
 * @pareto_gpus: no other is both faster and uses fewer GPUs
 *
 * One strategy the search predicted.
 */
typedef struct _PlxSearchResult
{
  PlxStrategy strategy;
  guint       n_gpus;
  double      step_time_s;
  double      analytical_step_time_s;
  double      mfu;
  double      tokens_per_s;
  guint64     peak_memory_bytes;
  gboolean    fits_in_memory;
  gboolean    event;
  gboolean    pareto;
  gboolean    pareto_gpus;
} PlxSearchResult;

/**
 * PlxSearchCandidate:
 * @tp: tensor-parallel degree
 * @pp: pipeline-parallel degree
 * @cp: context-parallel degree
 * @ep: expert-parallel degree
 * @dp: data-parallel degree
 * @micro_batch_size: micro-batch size
 * @schedule: pipeline schedule
 * @virtual_stages: model chunks per stage
 * @recompute: recompute mode
 * @zero_stage: ZeRO stage
 * @sequence_parallel: sequence parallelism
 * @layers_per_stage_auto: the balanced layer split
 *
 * The choices the search makes for one candidate; the rest of its strategy is the
 * base's.
 */
typedef struct
{
  guint        tp, pp, cp, ep, dp;
  guint64      micro_batch_size;
  PlxSchedule  schedule;
  guint        virtual_stages;
  PlxRecompute recompute;
  guint        zero_stage;
  gboolean     sequence_parallel;
  gboolean     layers_per_stage_auto;
} PlxSearchCandidate;

/**
 * plx_search_result_copy:
 * @result: a result
 *
 * Returns: (transfer full): a result on its own, outside the search's array (its
 *   strategy copied deeply)
 */
PlxSearchResult *plx_search_result_copy (const PlxSearchResult *result);
/**
 * plx_search_result_free:
 * @result: (transfer full) (nullable): a result from plx_search_result_copy()
 *
 * Frees @result.
 */
void             plx_search_result_free (PlxSearchResult *result);

/**
 * PlxSearch:
 * @configs_evaluated: strategies evaluated
 * @configs_valid: those that are valid
 * @configs_fit: those that fit in memory
 * @pruned_model_states: weights, gradients and optimizer alone exceed memory
 * @pruned_activations: model states fit, activations do not
 * @elapsed_s: the search's wall-clock time
 * @n_threads: the threads it ran on
 * @results: #PlxSearchResult that fit, best first
 *
 * A search's results and counts.
 */
typedef struct
{
  guint64 configs_evaluated;
  guint64 configs_valid;
  guint64 configs_fit;
  guint64 pruned_model_states;
  guint64 pruned_activations;
  double  elapsed_s;
  guint   n_threads;
  GArray *results;
} PlxSearch;

/**
 * PlxSearchPhase:
 * @PLX_SEARCH_SCREENING: every strategy with the closed form
 * @PLX_SEARCH_RESIMULATING: the best with the event engine
 *
 * A search screens every strategy with the closed form, then re-simulates the best
 * with the event engine (seconds on a deep pipeline).
 */
typedef enum
{
  PLX_SEARCH_SCREENING,
  PLX_SEARCH_RESIMULATING,
} PlxSearchPhase;

/**
 * PlxSearchProgress:
 * @phase: the phase
 * @fraction: runs 0..1 within a phase; while re-simulating it is the share of the
 *   most that may be re-simulated, as the phase may end early
 * @data: the progress_data given to plx_search_run()
 *
 * Called with a search's progress, from the thread that called plx_search_run().
 */
typedef void (*PlxSearchProgress) (PlxSearchPhase phase, double fraction, gpointer data);

/**
 * plx_search_options_init:
 * @options: (out caller-allocates): the options
 *
 * Sets the defaults: nothing fixed, the cluster's GPU count, top 10, micro-batches up
 * to 64, one thread per core, no headroom, the whole space.
 */
void       plx_search_options_init (PlxSearchOptions *options);
/**
 * plx_search_run:
 * @model: the model
 * @cluster: the cluster
 * @base: a resolved strategy that supplies what is not searched: global batch,
 *   sequence length, dtype, FlashAttention, overlap options
 * @options: what is searched
 * @cancellable: (nullable): stops the screening and the re-simulation after the
 *   runs in progress
 * @progress: (nullable) (scope call) (closure progress_data): called from the
 *   calling thread
 * @progress_data: data for @progress
 * @error: return location for a #GError, or %NULL
 *
 * Searches: screens every strategy with the closed form, then re-simulates the best
 * with the event engine and marks the Pareto fronts (plx_search_rank()), unless
 * @options asks for one shard.
 *
 * Returns: (transfer full) (nullable): the search, or %NULL with @error set: a shard
 *   that does not exist, a base without global_batch_size or seq_length, an
 *   inference workload, an empty GPU range
 */
PlxSearch *plx_search_run (const PlxModel          *model,
                           const PlxCluster        *cluster,
                           const PlxStrategy       *base,
                           const PlxSearchOptions  *options,
                           GCancellable            *cancellable,
                           PlxSearchProgress        progress,
                           gpointer                 progress_data,
                           GError                 **error);
/**
 * plx_search_free:
 * @search: (transfer full) (nullable): a search
 *
 * Frees @search and its results.
 */
void       plx_search_free (PlxSearch *search);
/**
 * plx_search_rank:
 * @search: a search whose results are the closed form's (shards' results joined)
 * @model: the model
 * @cluster: the cluster
 * @options: the options the search ran with
 *
 * Sorts @search's closed-form results, re-simulates the best with the event engine
 * (pruning those its memory trace does not fit, counted in configs_fit and
 * pruned_activations) and marks the Pareto fronts: what plx_search_run() does after
 * evaluating, for the union of shards' results.
 */
void       plx_search_rank (PlxSearch              *search,
                            const PlxModel         *model,
                            const PlxCluster       *cluster,
                            const PlxSearchOptions *options);
/**
 * plx_search_strategy_for:
 * @base: the search's base strategy
 * @candidate: a candidate's choices
 * @out: (out caller-allocates): the strategy
 *
 * Builds the strategy a candidate runs: @base with the candidate's choices and what
 * follows from its ZeRO stage (fp8 gathers, resharding), exactly as the search
 * built it.
 */
void       plx_search_strategy_for (const PlxStrategy        *base,
                                    const PlxSearchCandidate *candidate,
                                    PlxStrategy              *out);
/**
 * plx_search_options_parse_fix:
 * @options: the options to set
 * @text: "tp=8,pp=4,schedule=1f1b,recompute=selective,zero=1,sp=1,mbs=2,v=3"
 * @error: return location for a #GError, or %NULL
 *
 * Parses a --fix list into @options' fix_ fields (keys tp, pp, cp, ep, dp, mbs, v,
 * zero, sp, schedule, recompute; micro_batch_size, virtual_stages, zero_stage and
 * sequence_parallel too).
 *
 * Returns: %TRUE on success; %FALSE with a %PLX_ERROR_INVALID_VALUE error naming the
 *   part that is not key=value with a known key
 */
gboolean   plx_search_options_parse_fix (PlxSearchOptions *options,
                                         const char       *text,
                                         GError          **error);

/**
 * plx_search_result_to_scenario:
 * @result: a result
 * @scenario: a scenario object (FORMATS.md §1); not changed
 * @gpus_per_node: the cluster's GPUs per node
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full) (nullable): a copy of @scenario running the result's
 *   strategy on its GPU count; %NULL with a %PLX_ERROR_INVALID_VALUE error when
 *   @scenario is not a scenario object with a cluster or the GPU count is not a whole
 *   number of nodes
 */
JsonNode  *plx_search_result_to_scenario (const PlxSearchResult *result,
                                          JsonNode              *scenario,
                                          guint                  gpus_per_node,
                                          GError               **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxSearch, plx_search_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxSearchResult, plx_search_result_free)

G_END_DECLS
