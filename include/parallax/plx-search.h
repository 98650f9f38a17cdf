/* plx-search.h: every valid strategy for a model, a cluster (or a range of GPU
 * counts) and a global batch, predicted and ranked (DistIR's grid search, DistSim's
 * strategy search). */
#pragma once

#include <gio/gio.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-strategy.h"

G_BEGIN_DECLS

#define PLX_SEARCH_FREE (-1)

typedef struct
{
  guint  gpus_min;          /* 0: the cluster's GPU count */
  guint  gpus_max;
  /* A degree or option held fixed, or PLX_SEARCH_FREE. */
  gint   fix_tp, fix_pp, fix_cp, fix_ep, fix_dp;
  gint   fix_micro_batch, fix_virtual_stages, fix_zero_stage;
  gint   fix_recompute;     /* PlxRecompute */
  gint   fix_schedule;      /* PlxSchedule (not FILE) */
  gint   fix_sequence_parallel;
  double memory_headroom;   /* fraction of usable HBM kept free, 0 .. 0.9 */
  guint  top_k;             /* the K best by the event engine (more are re-simulated to find them) */
  guint  n_threads;         /* 0: one per core */
  guint  max_micro_batch;
  /* Also evaluate each pipeline whose layers divide with "layers_per_stage": "auto"
   * (plx-layer-split.h), kept when it is faster than the even split. Off: as before
   * (layers that do not divide are split balanced either way). */
  gboolean uneven_stages;
  /* A slice of the space for one process of many (docs/sweeps.md): work item i of the
   * enumeration is this shard's when a Fibonacci hash of i, taken to [0, n_shards),
   * equals shard (0-based; plx-search.c shard_of: i mod n gave shards of very unequal
   * size); n_shards 0: the whole space, ranked. A shard's results (even 1 of 1) are
   * the closed form's, unranked by the event engine and without Pareto marks:
   * plx_search_rank does that on the union. */
  guint    shard;
  guint    n_shards;
} PlxSearchOptions;

typedef struct _PlxSearchResult
{
  PlxStrategy strategy;     /* schedule_path is NULL */
  guint       n_gpus;
  double      step_time_s;  /* from the event engine for the re-simulated, else analytical */
  double      analytical_step_time_s;
  double      mfu;
  double      tokens_per_s;
  guint64     peak_memory_bytes;
  gboolean    fits_in_memory;
  gboolean    event;        /* re-simulated with the event engine */
  gboolean    pareto;       /* no other is both faster and needs less memory */
  gboolean    pareto_gpus;  /* no other is both faster and uses fewer GPUs */
} PlxSearchResult;

/* The choices the search makes for one candidate; the rest of its strategy is the base's. */
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

/* A result on its own, outside the search's array (its strategy copied deeply). */
PlxSearchResult *plx_search_result_copy (const PlxSearchResult *result);
void             plx_search_result_free (PlxSearchResult *result);

typedef struct
{
  guint64 configs_evaluated;
  guint64 configs_valid;
  guint64 configs_fit;
  guint64 pruned_model_states;  /* weights, gradients and optimizer alone exceed memory */
  guint64 pruned_activations;   /* model states fit, activations do not */
  double  elapsed_s;
  guint   n_threads;
  GArray *results;              /* PlxSearchResult that fit, best first */
} PlxSearch;

/* A search screens every strategy with the closed form, then re-simulates the best
 * with the event engine (seconds on a deep pipeline). `fraction` runs 0..1 within a
 * phase; while re-simulating it is the share of the most that may be re-simulated,
 * as the phase may end early. */
typedef enum
{
  PLX_SEARCH_SCREENING,
  PLX_SEARCH_RESIMULATING,
} PlxSearchPhase;

typedef void (*PlxSearchProgress) (PlxSearchPhase phase, double fraction, gpointer data);

void       plx_search_options_init (PlxSearchOptions *options);
/* `base` supplies what is not searched: global batch, sequence length, dtype,
 * FlashAttention, overlap options. Progress is called from the calling thread.
 * A cancel stops the screening and the re-simulation after the runs in progress. */
PlxSearch *plx_search_run (const PlxModel          *model,
                           const PlxCluster        *cluster,
                           const PlxStrategy       *base,
                           const PlxSearchOptions  *options,
                           GCancellable            *cancellable,
                           PlxSearchProgress        progress,
                           gpointer                 progress_data,
                           GError                 **error);
void       plx_search_free (PlxSearch *search);
/* Sorts `search`'s closed-form results, re-simulates the best with the event engine
 * (pruning those its memory trace does not fit, counted in configs_fit and
 * pruned_activations) and marks the Pareto fronts: what plx_search_run does after
 * evaluating, for the union of shards' results. */
void       plx_search_rank (PlxSearch              *search,
                            const PlxModel         *model,
                            const PlxCluster       *cluster,
                            const PlxSearchOptions *options);
/* The strategy a candidate runs: `base` with the candidate's choices and what follows
 * from its ZeRO stage (fp8 gathers, resharding), exactly as the search built it. */
void       plx_search_strategy_for (const PlxStrategy        *base,
                                    const PlxSearchCandidate *candidate,
                                    PlxStrategy              *out);
/* Parses "tp=8,pp=4,schedule=1f1b,recompute=selective,zero=1,sp=1,mbs=2,v=3". */
gboolean   plx_search_options_parse_fix (PlxSearchOptions *options,
                                         const char       *text,
                                         GError          **error);

/* A copy of `scenario` (FORMATS.md §1) running the result's strategy on its GPU count. */
JsonNode  *plx_search_result_to_scenario (const PlxSearchResult *result,
                                          JsonNode              *scenario,
                                          guint                  gpus_per_node,
                                          GError               **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxSearch, plx_search_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxSearchResult, plx_search_result_free)

G_END_DECLS
