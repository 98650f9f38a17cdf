/* The order of search results and the ranking after the closed form: sorted by a
 * total order, the best re-simulated by the event engine, the Pareto fronts marked.
 *
 * A result is a 240-byte struct and a search keeps tens of thousands: sorting the
 * structs themselves moved each one some 16 times (a quarter of a one-thread search).
 * Each search thread keeps 96-byte hits and sorts small keys (step time, memory,
 * index) of them, in parallel; the sorted runs are merged and each hit is written out
 * as its result once, in place. A merge of shards' results (plx_search_rank) sorts
 * the same keys of the results and moves each result once, in place, into the
 * largest array. After re-simulation only the first few results have new figures, so
 * they are sorted alone and merged into the rest in place. The outcome is the same
 * order as a sort of the whole array by plx_search_compare_results. */
#include <string.h>

#include "parallax/plx-sim.h"

#include "plx-search-rank.h"

static int compare_hits (const PlxSearchHit *a, const PlxSearchHit *b);
static void hit_of (const PlxSearchResult *r, PlxSearchHit *h);

/* compare_hits on what a result holds of a hit: one order for both. */
int
plx_search_compare_results (gconstpointer pa, gconstpointer pb)
{
  PlxSearchHit a, b;

  hit_of (pa, &a);
  hit_of (pb, &b);
  return compare_hits (&a, &b);
}


typedef struct
{
  double  step;
  guint64 memory;
  guint   index;
} SortKey;

/* Ties of step time and memory are settled by the entries themselves: results, or
 * a thread's hits. */
typedef int (*TieCompare) (gconstpointer all_a, guint a, gconstpointer all_b, guint b);

static int
results_tie (gconstpointer all_a, guint a, gconstpointer all_b, guint b)
{
  return plx_search_compare_results ((const PlxSearchResult *) all_a + a, (const PlxSearchResult *) all_b + b);
}

/* Fastest first; ties broken by the strategy's choices, a total order. A result's
 * choices are its strategy's (hit_of): the candidate's "auto" is the split the
 * search chose; the strategy's is that or the base's, and a base that asks for
 * "auto" is never split again (plx-search.c), so within one search the two order
 * alike. */
static int
compare_hits (const PlxSearchHit *a, const PlxSearchHit *b)
{
#define CMP(f) if (a->f != b->f) return a->f < b->f ? -1 : 1
  CMP (step_time_s);
  CMP (peak_memory_bytes);
  CMP (n_gpus);
  CMP (candidate.tp);
  CMP (candidate.pp);
  CMP (candidate.cp);
  CMP (candidate.ep);
  CMP (candidate.dp);
  CMP (candidate.micro_batch_size);
  CMP (candidate.schedule);
  CMP (candidate.virtual_stages);
  CMP (candidate.recompute);
  CMP (candidate.zero_stage);
  CMP (candidate.sequence_parallel);
  CMP (candidate.layers_per_stage_auto);
#undef CMP
  return 0;
}

static void
hit_of (const PlxSearchResult *r, PlxSearchHit *h)
{
  const PlxStrategy *s = &r->strategy;

  h->step_time_s = r->step_time_s;
  h->peak_memory_bytes = r->peak_memory_bytes;
  h->mfu = r->mfu;
  h->tokens_per_s = r->tokens_per_s;
  h->n_gpus = r->n_gpus;
  h->candidate.tp = s->tp;
  h->candidate.pp = s->pp;
  h->candidate.cp = s->cp;
  h->candidate.ep = s->ep;
  h->candidate.dp = s->dp;
  h->candidate.micro_batch_size = s->micro_batch_size;
  h->candidate.schedule = s->schedule;
  h->candidate.virtual_stages = s->virtual_stages;
  h->candidate.recompute = s->recompute;
  h->candidate.zero_stage = s->zero_stage;
  h->candidate.sequence_parallel = s->sequence_parallel;
  h->candidate.layers_per_stage_auto = s->layers_per_stage_auto;
}

static int
hits_tie (gconstpointer all_a, guint a, gconstpointer all_b, guint b)
{
  return compare_hits ((const PlxSearchHit *) all_a + a, (const PlxSearchHit *) all_b + b);
}

/* The total order, deciding on the copied figures before it reads the entries:
 * step time and memory settle almost every comparison. */
static inline int
compare_keys (const SortKey *a, gconstpointer all_a, const SortKey *b, gconstpointer all_b, TieCompare tie)
{
  if (a->step != b->step)
    return a->step < b->step ? -1 : 1;
  if (a->memory != b->memory)
    return a->memory < b->memory ? -1 : 1;
  return tie (all_a, a->index, all_b, b->index);
}

/* A bottom-up merge sort of the keys, returning whichever of keys and a scratch
 * array ends up holding them (the other is freed). Written out rather than
 * g_qsort_with_data, whose element copies and indirect calls took twice as long. */
static SortKey *
merge_sort_keys (SortKey *keys, guint n, gconstpointer all, TieCompare tie)
{
  SortKey *from = keys, *to = g_new (SortKey, MAX (n, 1));

  for (guint width = 1; width < n; width *= 2)
    {
      for (guint lo = 0; lo < n; lo += 2 * width)
        {
          guint mid = MIN (lo + width, n), hi = MIN (lo + 2 * width, n), a = lo, b = mid;

          for (guint w = lo; w < hi; w++)
            to[w] = b >= hi || (a < mid && compare_keys (&from[a], all, &from[b], all, tie) <= 0) ? from[a++]
                                                                                          : from[b++];
        }
      {
        SortKey *t = from;
        from = to;
        to = t;
      }
    }
  g_free (to);
  return from;
}

static guint64
step_bits (const SortKey *k)
{
  guint64 bits;

  memcpy (&bits, &k->step, sizeof bits);
  return bits;
}

/* The keys in compare_keys' order, returned as merge_sort_keys returns them. Step
 * times are positive doubles, whose bits in IEEE 754 order as unsigned integers do
 * (a larger exponent, then a larger mantissa, is a larger number): a least-significant
 * -digit radix sort on those 64 bits, a byte a pass, puts them in order without a
 * comparison (the merge sort's compares were a coin toss to the branch predictor,
 * half of a thread's sort). A pass whose byte all keys share is skipped; most of the
 * exponent's are. Keys of one step time (equal bits: equal doubles, as no -0 or NaN
 * is let in) are then in place but for memory and the tie-break, which a few
 * insertion steps settle. A negative, zero or NaN step is left to the merge sort. */
static SortKey *
sort_keys (SortKey *keys, guint n, gconstpointer all, TieCompare tie)
{
  g_autofree guint *count = NULL;
  SortKey *from = keys, *to;

  for (guint i = 0; i < n; i++)
    if (!(keys[i].step > 0.0))
      return merge_sort_keys (keys, n, all, tie);
  count = g_new0 (guint, 8 * 256);
  for (guint i = 0; i < n; i++)
    {
      guint64 b = step_bits (&keys[i]);
      for (guint d = 0; d < 8; d++)
        count[d * 256 + ((b >> (8 * d)) & 0xff)]++;
    }
  to = g_new (SortKey, MAX (n, 1));
  for (guint d = 0; d < 8; d++)
    {
      guint *c = count + d * 256, sum = 0;
      SortKey *t;

      if (n == 0 || c[(step_bits (&from[0]) >> (8 * d)) & 0xff] == n)
        continue;
      for (guint v = 0; v < 256; v++)
        {
          guint here = c[v];
          c[v] = sum;
          sum += here;
        }
      for (guint i = 0; i < n; i++)
        to[c[(step_bits (&from[i]) >> (8 * d)) & 0xff]++] = from[i];
      t = from;
      from = to;
      to = t;
    }
  g_free (to);
  /* Equal step times, by memory and then the entries: insertion within each run. */
  for (guint i = 1; i < n; i++)
    if (from[i].step == from[i - 1].step)
      {
        SortKey held = from[i];
        guint j = i;

        while (j > 0 && from[j - 1].step == held.step && compare_keys (&from[j - 1], all, &held, all, tie) > 0)
          {
            from[j] = from[j - 1];
            j--;
          }
        from[j] = held;
      }
  return from;
}

/* The sorted keys of n entries of `size` bytes whose step time and memory are at
 * those offsets: the threads' hits, or a merge's results. */
static SortKey *
sorted_keys (gconstpointer all, guint n, gsize size, gsize step_at, gsize memory_at, TieCompare tie)
{
  SortKey *keys = g_new (SortKey, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      const guint8 *e = (const guint8 *) all + (gsize) i * size;
      memcpy (&keys[i].step, e + step_at, sizeof (double));
      memcpy (&keys[i].memory, e + memory_at, sizeof (guint64));
      keys[i].index = i;
    }
  return sort_keys (keys, n, all, tie);
}

void
plx_search_hits_sort (PlxSearchHits *run)
{
  run->keys = sorted_keys (run->hits->data, run->hits->len, sizeof (PlxSearchHit),
                           G_STRUCT_OFFSET (PlxSearchHit, step_time_s), G_STRUCT_OFFSET (PlxSearchHit, peak_memory_bytes),
                           hits_tie);
}

/* The result a hit stands for, as the search built its strategy. */
static void
expand_hit (const PlxSearchHit *h, const PlxStrategy *base, PlxSearchResult *out)
{
  memset (out, 0, sizeof *out);
  plx_search_strategy_for (base, &h->candidate, &out->strategy);
  out->n_gpus = h->n_gpus;
  out->step_time_s = out->analytical_step_time_s = h->step_time_s;
  out->mfu = h->mfu;
  out->tokens_per_s = h->tokens_per_s;
  out->peak_memory_bytes = h->peak_memory_bytes;
  out->fits_in_memory = TRUE;
}

#define MERGE_PREFETCH 16

/* The runs merged by a scan for the smallest head (a run per thread: a handful),
 * each hit written out as its result where it ranks: the results are written once,
 * in order, and never moved. */
GArray *
plx_search_hits_merge (PlxSearchHits     *runs,
                       guint              n_runs,
                       const PlxStrategy *base)
{
  g_autofree guint *next = g_new0 (guint, MAX (n_runs, 1));
  guint n = 0;
  GArray *all;
  PlxSearchResult *out;

  for (guint r = 0; r < n_runs; r++)
    n += runs[r].hits->len;
  all = g_array_sized_new (FALSE, FALSE, sizeof (PlxSearchResult), n);
  g_array_set_size (all, n);
  out = (PlxSearchResult *) (gpointer) all->data;
  for (guint r = 0; r < n_runs; r++)
    for (guint i = 0; i < MIN (runs[r].hits->len, MERGE_PREFETCH); i++)
      __builtin_prefetch (&g_array_index (runs[r].hits, PlxSearchHit, ((const SortKey *) runs[r].keys)[i].index));
  for (guint w = 0; w < n; w++)
    {
      guint best = n_runs;
      const SortKey *head = NULL;

      for (guint r = 0; r < n_runs; r++)
        if (next[r] < runs[r].hits->len)
          {
            const SortKey *k = (const SortKey *) runs[r].keys + next[r];

            if (head == NULL || compare_keys (k, runs[r].hits->data, head, runs[best].hits->data, hits_tie) < 0)
              {
                best = r;
                head = k;
              }
          }
      expand_hit (&g_array_index (runs[best].hits, PlxSearchHit, head->index), base, &out[w]);
      next[best]++;
      /* The hits are read in ranked order, all over their array: each was a cache
       * miss (6 % of a one-thread search in perf) until asked for this far ahead. */
      if (next[best] + MERGE_PREFETCH < runs[best].hits->len)
        __builtin_prefetch (&g_array_index (runs[best].hits, PlxSearchHit,
                                            ((const SortKey *) runs[best].keys)[next[best] + MERGE_PREFETCH].index));
    }
  for (guint r = 0; r < n_runs; r++)
    {
      g_clear_pointer (&runs[r].hits, g_array_unref);
      g_clear_pointer (&runs[r].keys, g_free);
    }
  return all;
}

void
plx_search_run_sort (PlxSearchRun *run)
{
  run->keys = sorted_keys (run->results->data, run->results->len, sizeof (PlxSearchResult),
                           G_STRUCT_OFFSET (PlxSearchResult, step_time_s),
                           G_STRUCT_OFFSET (PlxSearchResult, peak_memory_bytes), results_tie);
}

/* Moves every result once: order[i] is where the result for place i is now. Each
 * cycle of the permutation is followed with one result in hand; a done place is
 * marked as its own. */
static void
permute (PlxSearchResult *all, guint *order, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      PlxSearchResult held;
      guint j = i;

      if (order[i] == i)
        continue;
      held = all[i];
      while (TRUE)
        {
          guint k = order[j];
          order[j] = j;
          if (k == i)
            {
              all[j] = held;
              break;
            }
          all[j] = all[k];
          j = k;
        }
    }
}

GArray *
plx_search_runs_merge (PlxSearchRun *runs,
                       guint         n_runs)
{
  guint largest = 0, n = 0;
  g_autofree guint *offset = g_new0 (guint, MAX (n_runs, 1));
  g_autofree guint *length = g_new0 (guint, MAX (n_runs, 1));
  g_autofree guint *next = g_new0 (guint, MAX (n_runs, 1));
  g_autofree guint *order = NULL;
  GArray *all;

  for (guint r = 0; r < n_runs; r++)
    {
      length[r] = runs[r].results->len;
      if (length[r] > length[largest])
        largest = r;
    }
  /* The largest array grows to hold the others: a large block's realloc moves its
   * pages rather than copying them, and no fresh copy of every result is touched. */
  all = g_steal_pointer (&runs[largest].results);
  for (guint r = 0; r < n_runs; r++)
    if (r != largest)
      {
        offset[r] = all->len;
        g_array_append_vals (all, runs[r].results->data, runs[r].results->len);
      }
  n = all->len;
  order = g_new (guint, MAX (n, 1));
  /* Merge the sorted runs; a handful of them, so the smallest head is found by a scan. */
  for (guint w = 0; w < n; w++)
    {
      guint best = n_runs;
      SortKey head = { 0 };

      for (guint r = 0; r < n_runs; r++)
        if (next[r] < length[r])
          {
            SortKey k = ((const SortKey *) runs[r].keys)[next[r]];
            k.index += offset[r];
            if (best == n_runs || compare_keys (&k, all->data, &head, all->data, results_tie) < 0)
              {
                best = r;
                head = k;
              }
          }
      order[w] = head.index;
      next[best]++;
    }
  permute ((PlxSearchResult *) (gpointer) all->data, order, n);
  for (guint r = 0; r < n_runs; r++)
    {
      g_clear_pointer (&runs[r].results, g_array_unref);
      g_clear_pointer (&runs[r].keys, g_free);
    }
  return all;
}

typedef struct
{
  double  step;
  guint64 memory;
  guint   n_gpus;
  guint   index;
} FrontEntry;

static int
compare_front_step (const FrontEntry *a, const FrontEntry *b)
{
  return (a->step > b->step) - (a->step < b->step);
}

static int
compare_front (gconstpointer pa, gconstpointer pb)
{
  const FrontEntry *a = pa, *b = pb;
  int c = compare_front_step (a, b);

  return c != 0 ? c : (a->index > b->index) - (a->index < b->index);
}

/* The entries in order of step time, which is all the sweep below reads: within one
 * step time it takes the smallest need and marks each entry by its own, in any
 * order. They come from results already ranked: sorted by step time, or the
 * re-simulated first and then the rest, each part in order - one or two runs,
 * merged in linear time. More (not seen from the search) are sorted whole.
 * Ordering by need within a step time too, as before, made every tie of step times
 * between results of different memory a descent, and sent the search's entries to
 * qsort. */
static void
sort_front (FrontEntry *e, guint n)
{
  guint descents = 0, cut = 0;
  g_autofree FrontEntry *merged = NULL;

  for (guint i = 1; i < n; i++)
    if (!(e[i - 1].step <= e[i].step))
      {
        descents++;
        cut = i;
      }
  if (descents == 0)
    return;
  if (descents > 1)
    {
      qsort (e, n, sizeof (FrontEntry), compare_front);
      return;
    }
  merged = g_new (FrontEntry, n);
  for (guint a = 0, b = cut, w = 0; w < n; w++)
    merged[w] = b >= n || (a < cut && compare_front_step (&e[a], &e[b]) <= 0) ? e[a++] : e[b++];
  memcpy (e, merged, sizeof (FrontEntry) * n);
}

/* A result is on the front if no other dominates it: at least as fast and needing no
 * more (memory, or GPUs), and strictly better in one of the two. Sorted by step time,
 * a sweep finds them: among equal step times only the smallest need can be on it,
 * and only if everything strictly faster needs more. Sets `bit` in on_front[index]
 * for each entry on it. */
static void
sweep_front (const FrontEntry *e, guint n, gboolean by_gpus, guint8 *on_front, guint8 bit)
{
  guint64 best = G_MAXUINT64;
  guint i = 0;

  while (i < n)
    {
      guint j = i;
      guint64 group_min = G_MAXUINT64;
      while (j < n && e[j].step == e[i].step)
        {
          group_min = MIN (group_min, by_gpus ? e[j].n_gpus : e[j].memory);
          j++;
        }
      for (guint k = i; k < j; k++)
        {
          guint64 key = by_gpus ? e[k].n_gpus : e[k].memory;
          if (key == group_min && key < best)
            on_front[e[k].index] |= bit;
        }
      best = MIN (best, group_min);
      i = j;
    }
}

/* Both fronts from one read of the results and one write: the results are 240 bytes
 * each, so each pass over them is a pass of cache misses. */
static void
mark_pareto (GArray *results)
{
  guint n = results->len;
  g_autofree FrontEntry *e = g_new (FrontEntry, MAX (n, 1));
  g_autofree guint8 *on_front = g_new0 (guint8, MAX (n, 1));
  PlxSearchResult *all = (PlxSearchResult *) (gpointer) results->data;

  for (guint k = 0; k < n; k++)
    {
      e[k].step = all[k].step_time_s;
      e[k].memory = all[k].peak_memory_bytes;
      e[k].n_gpus = all[k].n_gpus;
      e[k].index = k;
    }
  sort_front (e, n);
  sweep_front (e, n, FALSE, on_front, 1);
  sweep_front (e, n, TRUE, on_front, 2);
  for (guint k = 0; k < n; k++)
    {
      all[k].pareto = (on_front[k] & 1) != 0;
      all[k].pareto_gpus = (on_front[k] & 2) != 0;
    }
}

/* A copy of the base cluster resized to n_gpus (whole nodes), made once per count. */
static const PlxCluster *
cluster_for (GHashTable *clusters, const PlxCluster *base, guint n_gpus)
{
  PlxCluster *c = g_hash_table_lookup (clusters, GUINT_TO_POINTER (n_gpus));

  if (c == NULL)
    {
      c = plx_cluster_copy (base);
      c->num_nodes = n_gpus / base->gpus_per_node;
      g_hash_table_insert (clusters, GUINT_TO_POINTER (n_gpus), c);
    }
  return c;
}

/* What a sort of the whole array followed by "the K best re-simulated first" gives,
 * when only results[0, end) changed: those are sorted alone, the first k of them the
 * event engine predicted go first, and the others are merged with results[end, len),
 * which is still in order. The merge writes at w and reads at r >= w (w counts
 * the prefix and r the prefix's slots), so it runs in place. */
static void
reorder_after_simulation (GArray *results,
                          guint   end,
                          guint   k)
{
  g_autofree PlxSearchResult *prefix = g_memdup2 (results->data, sizeof (PlxSearchResult) * end);
  g_autofree gboolean *placed = g_new0 (gboolean, MAX (end, 1));
  PlxSearchResult *all = (PlxSearchResult *) (gpointer) results->data;
  guint w = 0, r = end, t = 0, n_heads = 0;

  qsort (prefix, end, sizeof (PlxSearchResult), plx_search_compare_results);
  for (guint i = 0; i < end; i++)
    if (prefix[i].event && n_heads < k)
      {
        all[w++] = prefix[i];
        n_heads++;
        placed[i] = TRUE;
      }
  while (TRUE)
    {
      while (t < end && placed[t])
        t++;
      if (t < end && (r >= results->len || plx_search_compare_results (&prefix[t], &all[r]) < 0))
        all[w++] = prefix[t++];
      else if (r < results->len)
        {
          if (w != r)
            all[w] = all[r];
          w++;
          r++;
        }
      else
        break;
    }
}

void
plx_search_rank_sorted (PlxSearch              *search,
                        const PlxModel         *model,
                        const PlxCluster       *cluster,
                        const PlxSearchOptions *options,
                        GCancellable           *cancellable,
                        PlxSearchProgress       progress,
                        gpointer                progress_data)
{
  g_autoptr (GHashTable) clusters = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                           (GDestroyNotify) plx_cluster_free);

  /* The best K again with the event engine, ranked by its figures. Its memory trace
   * can find more (zero-bubble schedules hold the matmul inputs until W): a strategy
   * that no longer fits is pruned, and the next one takes its place. The closed form
   * is mostly the optimistic one (it overlaps what the event engine serialises, most
   * of all ZeRO-3's gathers), so candidates are re-simulated in its order until the
   * K-th best simulated time is no worse than the next candidate's closed-form time:
   * then none left is likely to enter the top K. A cap bounds the work when the two
   * disagree widely. */
  {
    guint k = options->top_k, n_event = 0, n_sims = 0, cap = options->top_k * 4 + 8;
    g_autofree double *best = g_new (double, MAX (k, 1));   /* the K best simulated times, ascending */

    guint i = 0;

    while (k > 0 && i < search->results->len && n_sims < cap)
      {
        PlxSearchResult *res = &g_array_index (search->results, PlxSearchResult, i);
        const PlxCluster *c = cluster_for (clusters, cluster, res->n_gpus);
        double usable = (double) (c->hbm_bytes - c->reserved_bytes) * (1.0 - options->memory_headroom);
        PlxReport r;

        if (n_event >= k && best[k - 1] <= res->analytical_step_time_s)
          break;
        if (g_cancellable_is_cancelled (cancellable))
          return;
        if (progress != NULL)
          progress (PLX_SEARCH_RESIMULATING, (double) n_sims / cap, progress_data);
        n_sims++;
        if (plx_sim_run_scenario (model, c, &res->strategy, &r, NULL, NULL, NULL, NULL))
          {
            guint j;
            if ((double) r.peak_memory_bytes > usable)
              {
                g_array_remove_index (search->results, i);
                search->configs_fit--;
                search->pruned_activations++;
                continue;
              }
            res->step_time_s = r.step_time_s;
            res->mfu = r.mfu;
            res->tokens_per_s = r.tokens_per_s;
            res->peak_memory_bytes = r.peak_memory_bytes;
            res->event = TRUE;
            /* Insert into the K best. */
            j = MIN (n_event, k - 1);
            if (n_event < k || r.step_time_s < best[k - 1])
              {
                while (j > 0 && best[j - 1] > r.step_time_s)
                  {
                    best[j] = best[j - 1];
                    j--;
                  }
                best[j] = r.step_time_s;
              }
            n_event++;
          }
        i++;
      }
    /* The K best re-simulated first, even if the closed form put one of the others
     * a hair ahead (or the cap stopped early): they are the better-founded figures.
     * The rest follow by their own best figure, so the ranking reads in order of
     * step time below the top K too. Nothing re-simulated: nothing moved. */
    if (n_sims > 0)
      reorder_after_simulation (search->results, i, k);
  }
  mark_pareto (search->results);
}

void
plx_search_rank (PlxSearch              *search,
                 const PlxModel         *model,
                 const PlxCluster       *cluster,
                 const PlxSearchOptions *options)
{
  PlxSearchRun run = { g_steal_pointer (&search->results), NULL };

  plx_search_run_sort (&run);
  search->results = plx_search_runs_merge (&run, 1);
  plx_search_rank_sorted (search, model, cluster, options, NULL, NULL, NULL);
}
