/* The order of search results and the ranking after the closed form: sorted by a
 * total order, the best re-simulated by the event engine, the Pareto fronts marked.
 *
 * A result is a 200-byte struct and a search keeps tens of thousands: sorting the
 * structs themselves moved each one some 16 times (a quarter of a one-thread search).
 * Each search thread sorts small keys (step time, memory, index) of its own results,
 * in parallel; the sorted runs are merged and each result is moved once, in place,
 * into the largest thread's array. After re-simulation only the first few results
 * have new figures, so they are sorted alone and merged into the rest in place. The
 * outcome is the same order as a sort of the whole array. */
#include <string.h>

#include "parallax/plx-sim.h"

#include "plx-search-rank.h"

int
plx_search_compare_results (gconstpointer pa, gconstpointer pb)
{
  const PlxSearchResult *a = pa, *b = pb;
  const PlxStrategy *x = &a->strategy, *y = &b->strategy;

  /* Fastest first; ties broken by the strategy itself, a total order. */
#define CMP(f, g) if ((f) != (g)) return (f) < (g) ? -1 : 1
  CMP (a->step_time_s, b->step_time_s);
  CMP (a->peak_memory_bytes, b->peak_memory_bytes);
  CMP (a->n_gpus, b->n_gpus);
  CMP (x->tp, y->tp);
  CMP (x->pp, y->pp);
  CMP (x->cp, y->cp);
  CMP (x->ep, y->ep);
  CMP (x->dp, y->dp);
  CMP (x->micro_batch_size, y->micro_batch_size);
  CMP (x->schedule, y->schedule);
  CMP (x->virtual_stages, y->virtual_stages);
  CMP (x->recompute, y->recompute);
  CMP (x->zero_stage, y->zero_stage);
  CMP (x->sequence_parallel, y->sequence_parallel);
  CMP (x->layers_per_stage_auto, y->layers_per_stage_auto);
#undef CMP
  return 0;
}


typedef struct
{
  double  step;
  guint64 memory;
  guint   index;
} SortKey;

/* plx_search_compare_results, deciding on the copied figures before it reads the
 * results: step time and memory settle almost every comparison. */
static int
compare_keys (gconstpointer pa, gconstpointer pb, gpointer results)
{
  const SortKey *a = pa, *b = pb;
  const PlxSearchResult *all = results;

  if (a->step != b->step)
    return a->step < b->step ? -1 : 1;
  if (a->memory != b->memory)
    return a->memory < b->memory ? -1 : 1;
  return plx_search_compare_results (&all[a->index], &all[b->index]);
}

/* A bottom-up merge sort of the keys, returning whichever of keys and a scratch
 * array ends up holding them (the other is freed). Written out rather than
 * g_qsort_with_data, whose element copies and indirect calls took twice as long. */
static SortKey *
sort_keys (SortKey *keys, guint n, const PlxSearchResult *results)
{
  SortKey *from = keys, *to = g_new (SortKey, MAX (n, 1));

  for (guint width = 1; width < n; width *= 2)
    {
      for (guint lo = 0; lo < n; lo += 2 * width)
        {
          guint mid = MIN (lo + width, n), hi = MIN (lo + 2 * width, n), a = lo, b = mid;

          for (guint w = lo; w < hi; w++)
            to[w] = b >= hi || (a < mid && compare_keys (&from[a], &from[b], (gpointer) results) <= 0) ? from[a++]
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

void
plx_search_run_sort (PlxSearchRun *run)
{
  const PlxSearchResult *r = (const PlxSearchResult *) (gconstpointer) run->results->data;
  SortKey *keys = g_new (SortKey, MAX (run->results->len, 1));

  for (guint i = 0; i < run->results->len; i++)
    {
      keys[i].step = r[i].step_time_s;
      keys[i].memory = r[i].peak_memory_bytes;
      keys[i].index = i;
    }
  run->keys = sort_keys (keys, run->results->len, r);
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
            if (best == n_runs || compare_keys (&k, &head, all->data) < 0)
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
  guint64 key;      /* memory or GPU count */
  guint   index;
} FrontEntry;

static int
compare_front (gconstpointer pa, gconstpointer pb)
{
  const FrontEntry *a = pa, *b = pb;

  if (a->step != b->step)
    return a->step < b->step ? -1 : 1;
  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

/* The entries in compare_front's order. They come from results already ranked:
 * sorted by step time and memory, or the re-simulated first and then the rest, each
 * part in order - one or two runs, merged in linear time. More (another order of
 * GPU counts) are sorted whole. The order is total, so either way it is the same. */
static void
sort_front (FrontEntry *e, guint n)
{
  guint descents = 0, cut = 0;
  g_autofree FrontEntry *merged = NULL;

  for (guint i = 1; i < n; i++)
    if (compare_front (&e[i - 1], &e[i]) > 0)
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
    merged[w] = b >= n || (a < cut && compare_front (&e[a], &e[b]) < 0) ? e[a++] : e[b++];
  memcpy (e, merged, sizeof (FrontEntry) * n);
}

/* A result is on the front if no other dominates it: at least as fast and needing no
 * more (memory, or GPUs), and strictly better in one of the two. Sorted by step time,
 * a sweep finds them: among equal step times only the smallest need can be on it,
 * and only if everything strictly faster needs more. */
static void
mark_front (GArray *results, gboolean by_gpus)
{
  g_autofree FrontEntry *e = g_new (FrontEntry, MAX (results->len, 1));
  guint64 best = G_MAXUINT64;
  guint i = 0;

  for (guint k = 0; k < results->len; k++)
    {
      const PlxSearchResult *r = &g_array_index (results, PlxSearchResult, k);
      e[k].step = r->step_time_s;
      e[k].key = by_gpus ? r->n_gpus : r->peak_memory_bytes;
      e[k].index = k;
    }
  sort_front (e, results->len);
  while (i < results->len)
    {
      guint j = i;
      guint64 group_min = G_MAXUINT64;
      while (j < results->len && e[j].step == e[i].step)
        {
          group_min = MIN (group_min, e[j].key);
          j++;
        }
      for (guint k = i; k < j; k++)
        {
          PlxSearchResult *r = &g_array_index (results, PlxSearchResult, e[k].index);
          gboolean front = e[k].key == group_min && e[k].key < best;
          if (by_gpus)
            r->pareto_gpus = front;
          else
            r->pareto = front;
        }
      best = MIN (best, group_min);
      i = j;
    }
}

static void
mark_pareto (GArray *results)
{
  mark_front (results, FALSE);
  mark_front (results, TRUE);
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
                        const PlxSearchOptions *options)
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
  plx_search_rank_sorted (search, model, cluster, options);
}
