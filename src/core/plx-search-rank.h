/* plx-search-rank.h (internal): the order of search results and the ranking that
 * follows the closed form, shared by plx_search_run and the merge of shards. */
#pragma once

#include "parallax/plx-search.h"

G_BEGIN_DECLS

/* Fastest first, ties broken by the strategy: a total order. */
int     plx_search_compare_results (gconstpointer a,
                                    gconstpointer b);
/* The results of all the parts in that order, in a new array of exactly their count;
 * each result is copied once. */
GArray *plx_search_sorted_union (GArray *const *parts,
                                 guint          n_parts);
/* plx_search_rank for results already in that order. */
void    plx_search_rank_sorted (PlxSearch              *search,
                                const PlxModel         *model,
                                const PlxCluster       *cluster,
                                const PlxSearchOptions *options);

G_END_DECLS
