/* plx-search-rank.h (internal): the order of search results and the ranking that
 * follows the closed form, shared by plx_search_run and the merge of shards. */
#pragma once

#include "parallax/plx-search.h"

G_BEGIN_DECLS

/* Fastest first, ties broken by the strategy: a total order. */
int     plx_search_compare_results (gconstpointer a,
                                    gconstpointer b);
/* One thread's results and, once sorted, their order. */
typedef struct
{
  GArray  *results;  /* PlxSearchResult */
  gpointer keys;     /* plx_search_run_sort's, private to plx-search-rank.c */
} PlxSearchRun;

/* One result of the closed form as a search thread keeps it: the figures ranking
 * reads and the candidate's choices (the rest of its strategy is the base's), 96
 * bytes where a PlxSearchResult is 240. The results are written out whole once, in
 * their final order (plx_search_hits_merge). */
typedef struct
{
  double             step_time_s;
  guint64            peak_memory_bytes;
  double             mfu;
  double             tokens_per_s;
  guint              n_gpus;
  PlxSearchCandidate candidate;
} PlxSearchHit;

/* One thread's hits and, once sorted, their order. */
typedef struct
{
  GArray  *hits;  /* PlxSearchHit */
  gpointer keys;  /* plx_search_hits_sort's, private to plx-search-rank.c */
} PlxSearchHits;

/* Puts the hits' keys in plx_search_compare_results' order. */
void    plx_search_hits_sort (PlxSearchHits *run);
/* The sorted runs' hits as PlxSearchResult (strategies from `base`, as
 * plx_search_strategy_for builds them), in that order, in an array of their own.
 * Frees the runs' arrays and keys. */
GArray *plx_search_hits_merge (PlxSearchHits     *runs,
                               guint              n_runs,
                               const PlxStrategy *base);

/* Puts the run's keys in that order (its results stay where they are). */
void    plx_search_run_sort (PlxSearchRun *run);
/* The sorted runs' results in one array, in that order. Takes the runs' arrays and
 * keys: one of the arrays becomes the result. */
GArray *plx_search_runs_merge (PlxSearchRun *runs,
                               guint         n_runs);
/* plx_search_rank for results already in that order, with plx_search_run's progress
 * (PLX_SEARCH_RESIMULATING) and cancel: a cancel stops after the run in progress,
 * leaving the ranking unfinished (the caller drops it). */
void    plx_search_rank_sorted (PlxSearch              *search,
                                const PlxModel         *model,
                                const PlxCluster       *cluster,
                                const PlxSearchOptions *options,
                                GCancellable           *cancellable,
                                PlxSearchProgress       progress,
                                gpointer                progress_data);

G_END_DECLS
