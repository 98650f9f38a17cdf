/* Strategy search. The space is enumerated so that only valid strategies are built
 * (the rules of plx_strategy_resolve, checked cheaply), with the choices that change a
 * block's cost (tp, cp, ep, sequence parallelism, micro-batch, recompute) in the outer
 * loops and the ones that only recompose it (pp, dp, schedule, chunks, ZeRO) inside,
 * so the analytical engine's cache (plx_analytic_run_cached) makes most evaluations a
 * few hundred nanoseconds. Outer choices are work items that threads take in turn;
 * each thread keeps its own cache and results for the whole search, which are merged
 * and sorted by a total order at the end (plx-search-rank.c), so the outcome does
 * not depend on the number of threads. A shard
 * (options->n_shards > 0) runs every n-th work item and stops before the event
 * engine; plx_search_rank on the union of all shards finishes it (docs/sweeps.md). */
#include <math.h>
#include <string.h>

#include "parallax/plx-analytic.h"
#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "parallax/plx-search.h"

#include "plx-search-rank.h"

void
plx_search_options_init (PlxSearchOptions *o)
{
  memset (o, 0, sizeof *o);
  o->fix_tp = o->fix_pp = o->fix_cp = o->fix_ep = o->fix_dp = PLX_SEARCH_FREE;
  o->fix_micro_batch = o->fix_virtual_stages = o->fix_zero_stage = PLX_SEARCH_FREE;
  o->fix_recompute = o->fix_schedule = o->fix_sequence_parallel = PLX_SEARCH_FREE;
  o->top_k = 10;
  o->max_micro_batch = 64;
}

typedef struct
{
  guint    n_gpus;
  guint    tp, cp, ep;
  gboolean sp;
  guint    recompute;
  guint64  micro_batch;
} WorkItem;

typedef struct
{
  const PlxModel         *model;
  const PlxCluster       *cluster;       /* the base cluster */
  PlxCluster            **clusters;      /* one per GPU count searched */
  guint                  *gpu_counts;
  guint                   n_counts;
  const PlxStrategy      *base;
  const PlxSearchOptions *options;
  GCancellable           *cancellable;
  GArray                 *pp_values;     /* guint */
  const WorkItem         *items;
  guint                   n_items;
  gint                    next_item;     /* atomic: the next to take */
  gint                    items_done;    /* atomic */
  GMutex                  lock;
  GCond                   finished;      /* signalled as each thread ends */
  guint                   threads_done;  /* under lock */
} Search;

/* One thread of the search. A cache per thread rather than per work item: its memo
 * keeps serving the next items (the same groups and bytes recur), and no 48 KiB
 * table is allocated and zeroed per item. The results grow in the thread's own
 * array as compact hits and are written out whole once, in their ranked place. */
typedef struct
{
  Search           *se;
  PlxAnalyticCache *cache;
  PlxSearchHits     run;
  guint64           evaluated, valid, fit, pruned_states, pruned_act;
} Worker;

static gboolean
fixed_ok (gint fix, guint value)
{
  return fix == PLX_SEARCH_FREE || (guint) fix == value;
}

static guint
cluster_index (const Search *se, guint n_gpus)
{
  for (guint i = 0; i < se->n_counts; i++)
    if (se->gpu_counts[i] == n_gpus)
      return i;
  return 0;
}

/* The schedules to try for a pipeline of pp stages and m micro-batches. */
static guint
schedules_for (const Search *se, guint pp, guint64 m, PlxSchedule *sched, guint *vs, guint max)
{
  const PlxSearchOptions *o = se->options;
  guint n = 0;
  static const guint v_values[] = { 2, 3, 4, 6, 8 };

#define ADD(s_, v_)                                                                          \
  G_STMT_START {                                                                             \
    if (n < max && fixed_ok (o->fix_schedule, s_) && fixed_ok (o->fix_virtual_stages, v_)) \
      {                                                                                      \
        sched[n] = s_;                                                                       \
        vs[n] = v_;                                                                          \
        n++;                                                                                 \
      }                                                                                      \
  } G_STMT_END

  ADD (PLX_SCHEDULE_1F1B, 1);
  if (pp > 1)
    {
      ADD (PLX_SCHEDULE_GPIPE, 1);
      ADD (PLX_SCHEDULE_ZERO_BUBBLE_H1, 1);
      if (m % pp == 0)
        for (guint i = 0; i < G_N_ELEMENTS (v_values); i++)
          if (se->model->n_layers % (pp * v_values[i]) == 0)
            ADD (PLX_SCHEDULE_INTERLEAVED_1F1B, v_values[i]);
    }
#undef ADD
  return n;
}

/* What follows from the ZeRO stage and the split, the same for a candidate evaluated
 * here and one read back from a shard's file (plx_search_strategy_for). */
static void
apply_zero_and_split (PlxStrategy *s, const PlxStrategy *base, guint zero_stage, gboolean auto_split)
{
  s->zero_stage = zero_stage;
  /* fp8 gathers need sharded weights: asked for, it is kept where ZeRO shards. */
  if (base->fp8_param_gather == TRUE)
    s->fp8_param_gather = zero_stage > 0;
  s->reshard_after_forward = zero_stage == 3 ? base->reshard_after_forward : PLX_RESHARD_AUTO;
  s->layers_per_stage_auto = auto_split ? TRUE : base->layers_per_stage_auto;
}

void
plx_search_strategy_for (const PlxStrategy        *base,
                         const PlxSearchCandidate *c,
                         PlxStrategy              *out)
{
  *out = *base;
  out->schedule_path = NULL;
  out->tp = c->tp;
  out->cp = c->cp;
  out->ep = c->ep;
  out->sequence_parallel = c->sequence_parallel;
  out->recompute = c->recompute;
  out->micro_batch_size = c->micro_batch_size;
  out->pp = c->pp;
  out->dp = c->dp;
  out->schedule = c->schedule;
  out->virtual_stages = c->virtual_stages;
  apply_zero_and_split (out, base, c->zero_stage, c->layers_per_stage_auto);
}

/* The shard of the i-th work item. Not i mod n: neighbouring items differ in the
 * micro-batch, recompute and sequence parallelism, whose cost recurs with a short
 * period, so a plain stride handed one shard 2.5 times another's work (megatron-1t on
 * 4 shards). A multiplicative hash (Knuth's, the golden ratio in 64 bits) scatters
 * them; the high bits are the well-mixed ones. */
static guint
shard_of (guint64 i, guint n_shards)
{
  return (guint) (((i * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 32) % n_shards);
}

static void
run_item (const WorkItem *item, Worker *worker)
{
  Search *se = worker->se;
  const PlxSearchOptions *o = se->options;
  const PlxCluster *cluster = se->clusters[cluster_index (se, item->n_gpus)];
  PlxAnalyticCache *cache = worker->cache;
  double usable = (double) (cluster->hbm_bytes - cluster->reserved_bytes) * (1.0 - o->memory_headroom);
  guint64 evaluated = 0, valid = 0, fit = 0, pruned_states = 0, pruned_act = 0;
  PlxStrategy s = *se->base;

  s.schedule_path = NULL;
  s.tp = item->tp;
  s.cp = item->cp;
  s.ep = item->ep;
  s.sequence_parallel = item->sp;
  s.recompute = item->recompute;
  s.micro_batch_size = item->micro_batch;

  for (guint pi = 0; pi < se->pp_values->len; pi++)
    {
      guint pp = g_array_index (se->pp_values, guint, pi);
      guint64 model_par = (guint64) item->tp * item->cp * pp, m;
      PlxSchedule sched[16];
      guint vs[16], n_sched;
      double even_step = G_MAXDOUBLE;
      gboolean sharded;

      /* A candidate that breaks a rule counts once as evaluated, not valid. */
      if (item->n_gpus % model_par != 0)
        {
          evaluated++;
          continue;
        }
      s.pp = pp;
      s.dp = (guint) (item->n_gpus / model_par);
      /* The expert layout, with the scenario's expert TP (plx_strategy_resolve's rule). */
      if (!fixed_ok (o->fix_dp, s.dp) || !plx_strategy_expert_layout_fits (item->tp, s.dp, item->cp, item->ep, s.etp) ||
          s.global_batch_size % ((guint64) s.dp * item->micro_batch) != 0)
        {
          evaluated++;
          continue;
        }
      m = s.global_batch_size / ((guint64) s.dp * item->micro_batch);
      /* ZeRO needs more than one rank to shard over; the same for every schedule. */
      sharded = plx_strategy_get_grad_group_size (&s) > 1;
      n_sched = schedules_for (se, pp, m, sched, vs, G_N_ELEMENTS (sched));
      for (guint si = 0; si < n_sched; si++)
        for (guint z = 0; z <= 3; z++)
          for (guint split = 0, n_splits = 1; split < n_splits; split++)
            {
              PlxReport r;
              double states;

              if (!fixed_ok (o->fix_zero_stage, z) || (z > 0 && !sharded))
                continue;
              s.schedule = sched[si];
              s.virtual_stages = vs[si];
              apply_zero_and_split (&s, se->base, z, split == 1);
              /* Uneven stages: the even split first, then "auto" (layers that do not
               * divide are balanced already, and so is a base that asks for "auto"). */
              if (split == 0)
                even_step = G_MAXDOUBLE;
              if (split == 0 && o->uneven_stages && pp > 1 && !se->base->layers_per_stage_auto &&
                  se->model->n_layers % (pp * vs[si]) == 0)
                n_splits = 2;
              evaluated++;
              valid++;
              if (!plx_analytic_run_if_fits (se->model, cluster, &s, cache, usable, &r))
                {
                  states = (double) (r.memory_bytes[PLX_MEM_WEIGHTS] + r.memory_bytes[PLX_MEM_GRADIENTS] +
                                     r.memory_bytes[PLX_MEM_OPTIMIZER] + r.memory_bytes[PLX_MEM_OTHER]);
                  if (states > usable)
                    pruned_states++;
                  else
                    pruned_act++;
                  continue;
                }
              fit++;
              /* "auto" is a result of its own only where it beats the even split: the
               * same split (the usual case) or a slower one would be a second row. */
              if (split == 0)
                even_step = r.step_time_s;
              else if (r.step_time_s >= even_step)
                continue;
              {
                /* What plx_search_strategy_for builds s again from, with the figures. */
                PlxSearchHit hit = { r.step_time_s, r.peak_memory_bytes, r.mfu, r.tokens_per_s, item->n_gpus,
                                     { s.tp, s.pp, s.cp, s.ep, s.dp, s.micro_batch_size, s.schedule, s.virtual_stages,
                                       s.recompute, z, s.sequence_parallel, split == 1 } };
                g_array_append_val (worker->run.hits, hit);
              }
            }
    }

  worker->evaluated += evaluated;
  worker->valid += valid;
  worker->fit += fit;
  worker->pruned_states += pruned_states;
  worker->pruned_act += pruned_act;
}

/* Items are taken in order, one at a time: they differ in cost by orders of
 * magnitude (a micro-batch of 64 fits almost nowhere), so no static split balances. */
static gpointer
worker_main (gpointer data)
{
  Worker *worker = data;
  Search *se = worker->se;

  while (!g_cancellable_is_cancelled (se->cancellable))
    {
      guint i = (guint) g_atomic_int_add (&se->next_item, 1);
      if (i >= se->n_items)
        break;
      run_item (&se->items[i], worker);
      g_atomic_int_inc (&se->items_done);
    }
  /* Each thread puts its own results in order; the calling thread merges the runs. */
  if (!g_cancellable_is_cancelled (se->cancellable))
    plx_search_hits_sort (&worker->run);
  g_mutex_lock (&se->lock);
  se->threads_done++;
  g_cond_signal (&se->finished);
  g_mutex_unlock (&se->lock);
  return NULL;
}

PlxSearch *
plx_search_run (const PlxModel          *model,
                const PlxCluster        *cluster,
                const PlxStrategy       *base,
                const PlxSearchOptions  *options,
                GCancellable            *cancellable,
                PlxSearchProgress        progress,
                gpointer                 progress_data,
                GError                 **error)
{
  Search se = { 0 };
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (WorkItem));
  g_autoptr (GArray) tp_values = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) cp_values = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) ep_values = g_array_new (FALSE, FALSE, sizeof (guint));
  PlxSearch *out;
  g_autofree Worker *workers = NULL;
  g_autofree GThread **threads = NULL;

  gint64 t0 = g_get_monotonic_time ();
  guint per_node = cluster->gpus_per_node, nodes_lo, nodes_hi;
  guint n_threads;
  guint64 n_listed = 0;

  if (options->n_shards > 0 && options->shard >= options->n_shards)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "search: shard %u of %u does not exist (shards are 1 to %u)",
                   options->shard + 1, options->n_shards, options->n_shards);
      return NULL;
    }
  if (base->global_batch_size == 0 || base->seq_length == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "search: the base strategy needs global_batch_size and seq_length (resolve it first)");
      return NULL;
    }
  /* The closed form predicts training steps only (plx_analytic_run refuses the rest):
   * searched, every candidate read a report the engine had not written. */
  if (base->workload == PLX_WORKLOAD_INFERENCE)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                   "search: inference workloads are not searched (the search ranks training strategies)");
      return NULL;
    }
  if (options->gpus_min > 0 && options->gpus_max < options->gpus_min)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "search: --gpus %u:%u is an empty range",
                   options->gpus_min, options->gpus_max);
      return NULL;
    }

  se.model = model;
  se.cluster = cluster;
  se.base = base;
  se.options = options;
  se.cancellable = cancellable;
  g_mutex_init (&se.lock);
  g_cond_init (&se.finished);
  se.pp_values = g_array_new (FALSE, FALSE, sizeof (guint));

  /* GPU counts: whole nodes. */
  if (options->gpus_min == 0)
    nodes_lo = nodes_hi = cluster->num_nodes;
  else
    {
      nodes_lo = MAX ((options->gpus_min + per_node - 1) / per_node, 1u);
      nodes_hi = options->gpus_max / per_node;
      if (nodes_hi < nodes_lo || nodes_hi - nodes_lo > 4096)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "search: --gpus %u:%u holds no whole node of %u GPUs, or more than 4096 node counts",
                       options->gpus_min, options->gpus_max, per_node);
          g_array_unref (se.pp_values);
          return NULL;
        }
    }
  se.n_counts = nodes_hi - nodes_lo + 1;
  se.gpu_counts = g_new (guint, se.n_counts);
  se.clusters = g_new0 (PlxCluster *, se.n_counts);
  for (guint i = 0; i < se.n_counts; i++)
    {
      se.clusters[i] = plx_cluster_copy (cluster);
      se.clusters[i]->num_nodes = nodes_lo + i;
      se.gpu_counts[i] = (nodes_lo + i) * per_node;
    }

  /* Degrees Megatron accepts: TP divides heads, KV heads and the MLP within a node;
   * PP up to one layer per stage (layers that do not divide are split balanced, as
   * Megatron-LM's first/last-stage counts allow; interleaving still needs them to
   * divide, above); CP divides the sequence (powers of two); EP the experts. */
  for (guint t = 1; t <= MIN (model->heads, per_node); t++)
    if (model->heads % t == 0 && model->kv_heads % t == 0 && model->ffn % t == 0 && fixed_ok (options->fix_tp, t))
      g_array_append_val (tp_values, t);
  for (guint p = 1; p <= model->n_layers; p++)
    if (fixed_ok (options->fix_pp, p))
      g_array_append_val (se.pp_values, p);
  for (guint c = 1; c <= 64; c *= 2)
    if (base->seq_length % c == 0 && fixed_ok (options->fix_cp, c))
      g_array_append_val (cp_values, c);
  for (guint e = 1; e <= MAX (model->experts, 1); e++)
    if (MAX (model->experts, 1) % e == 0 && fixed_ok (options->fix_ep, e))
      g_array_append_val (ep_values, e);

  /* A cancel is heeded while the work is listed and handed out too: a thousand GPU
   * counts make millions of items, seconds of work before the first is run. */
  for (guint gi = 0; gi < se.n_counts && !g_cancellable_is_cancelled (cancellable); gi++)
    for (guint ti = 0; ti < tp_values->len; ti++)
      for (guint ci = 0; ci < cp_values->len; ci++)
        for (guint ei = 0; ei < ep_values->len; ei++)
          for (guint sp = 0; sp <= 1; sp++)
            /* none, selective, full: save-dots-except-mlp-input is a scenario's to name. */
            for (guint rc = 0; rc <= PLX_RECOMPUTE_FULL; rc++)
              for (guint64 mb = 1; mb <= MAX (options->max_micro_batch, 1u); mb++)
                {
                  WorkItem w = { se.gpu_counts[gi], g_array_index (tp_values, guint, ti),
                                 g_array_index (cp_values, guint, ci), g_array_index (ep_values, guint, ei),
                                 sp, rc, mb };
                  guint64 tokens = base->seq_length / w.cp;

                  if ((sp && w.tp == 1) || !fixed_ok (options->fix_sequence_parallel, sp) ||
                      !fixed_ok (options->fix_recompute, rc) || !fixed_ok (options->fix_micro_batch, (guint) mb) ||
                      (sp && tokens % w.tp != 0) || base->global_batch_size % mb != 0 ||
                      se.gpu_counts[gi] % ((guint64) w.tp * w.cp) != 0)
                    continue;
                  if (options->n_shards == 0 || shard_of (n_listed, options->n_shards) == options->shard)
                    g_array_append_val (items, w);
                  n_listed++;
                }

  n_threads = options->n_threads ? options->n_threads : g_get_num_processors ();
  se.items = (const WorkItem *) (gconstpointer) items->data;
  se.n_items = items->len;
  workers = g_new0 (Worker, n_threads);
  threads = g_new0 (GThread *, n_threads);
  for (guint t = 0; t < n_threads; t++)
    {
      workers[t].se = &se;
      workers[t].cache = plx_analytic_cache_new ();
      workers[t].run.hits = g_array_new (FALSE, FALSE, sizeof (PlxSearchHit));
      threads[t] = g_thread_new ("plx-search", worker_main, &workers[t]);
    }
  /* Progress from the calling thread while the workers run; woken when one ends. */
  g_mutex_lock (&se.lock);
  while (se.threads_done < n_threads)
    {
      guint done = (guint) g_atomic_int_get (&se.items_done);
      if (progress != NULL)
        {
          g_mutex_unlock (&se.lock);
          progress (PLX_SEARCH_SCREENING, se.n_items ? (double) done / se.n_items : 1.0, progress_data);
          g_mutex_lock (&se.lock);
        }
      if (se.threads_done < n_threads)
        g_cond_wait_until (&se.finished, &se.lock, g_get_monotonic_time () + 2000);
    }
  g_mutex_unlock (&se.lock);
  if (progress != NULL && !g_cancellable_is_cancelled (cancellable))
    progress (PLX_SEARCH_SCREENING, 1.0, progress_data);
  /* Cancelled: the items not yet taken are dropped, those running finish. */
  for (guint t = 0; t < n_threads; t++)
    {
      g_thread_join (threads[t]);
      plx_analytic_cache_free (workers[t].cache);
    }
  g_mutex_clear (&se.lock);
  g_cond_clear (&se.finished);
  for (guint i = 0; i < se.n_counts; i++)
    plx_cluster_free (se.clusters[i]);
  g_free (se.clusters);
  g_free (se.gpu_counts);
  g_array_unref (se.pp_values);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      for (guint t = 0; t < n_threads; t++)
        {
          g_array_unref (workers[t].run.hits);
          g_free (workers[t].run.keys);
        }
      return NULL;
    }

  out = g_new0 (PlxSearch, 1);
  for (guint t = 0; t < n_threads; t++)
    {
      out->configs_evaluated += workers[t].evaluated;
      out->configs_valid += workers[t].valid;
      out->configs_fit += workers[t].fit;
      out->pruned_model_states += workers[t].pruned_states;
      out->pruned_activations += workers[t].pruned_act;
    }
  {
    g_autofree PlxSearchHits *runs = g_new (PlxSearchHits, n_threads);
    for (guint t = 0; t < n_threads; t++)
      runs[t] = workers[t].run;
    out->results = plx_search_hits_merge (runs, n_threads, base);
  }
  out->n_threads = n_threads;
  /* A shard is ranked with the others (plx-search-shard.h): the closed form only. */
  if (options->n_shards == 0)
    plx_search_rank_sorted (out, model, cluster, options, cancellable, progress, progress_data);
  /* A cancel while the best were re-simulated (seconds on a deep pipeline) is a
   * cancel too: it was ignored, and the results written after all. The ranking
   * stops after the run in progress. */
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      plx_search_free (out);
      return NULL;
    }
  out->elapsed_s = (g_get_monotonic_time () - t0) / 1e6;
  return out;
}

PlxSearchResult *
plx_search_result_copy (const PlxSearchResult *result)
{
  PlxSearchResult *r = g_memdup2 (result, sizeof *result);

  r->strategy.schedule_path = g_strdup (result->strategy.schedule_path);
  r->strategy.layers_per_stage = g_memdup2 (result->strategy.layers_per_stage,
                                            sizeof (guint) * result->strategy.n_layers_per_stage);
  return r;
}

void
plx_search_result_free (PlxSearchResult *result)
{
  if (result == NULL)
    return;
  g_free (result->strategy.schedule_path);
  g_free (result->strategy.layers_per_stage);
  g_free (result);
}

void
plx_search_free (PlxSearch *search)
{
  if (search == NULL)
    return;
  g_array_unref (search->results);
  g_free (search);
}

gboolean
plx_search_options_parse_fix (PlxSearchOptions *o,
                              const char       *text,
                              GError          **error)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_auto (GStrv) kv = g_strsplit (g_strstrip (parts[i]), "=", 2);
      const char *key, *value;
      char *end = NULL;
      gint64 n;

      if (kv[0] == NULL || kv[1] == NULL || kv[0][0] == '\0' || kv[1][0] == '\0')
        goto bad;
      key = kv[0];
      value = kv[1];
      if (g_str_equal (key, "schedule"))
        {
          static const char *const names[] = { "gpipe", "1f1b", "interleaved-1f1b", "zero-bubble-h1" };
          o->fix_schedule = PLX_SEARCH_FREE;
          for (guint k = 0; k < G_N_ELEMENTS (names); k++)
            if (g_str_equal (value, names[k]))
              o->fix_schedule = (gint) k;
          if (o->fix_schedule == PLX_SEARCH_FREE)
            goto bad;
          continue;
        }
      if (g_str_equal (key, "recompute"))
        {
          if (g_str_equal (value, "none"))
            o->fix_recompute = PLX_RECOMPUTE_NONE;
          else if (g_str_equal (value, "selective"))
            o->fix_recompute = PLX_RECOMPUTE_SELECTIVE;
          else if (g_str_equal (value, "full"))
            o->fix_recompute = PLX_RECOMPUTE_FULL;
          else
            goto bad;
          continue;
        }
      n = g_ascii_strtoll (value, &end, 10);
      if (*end != '\0' || n < 0 || n > 1048576)
        goto bad;
      if (g_str_equal (key, "tp"))
        o->fix_tp = (gint) n;
      else if (g_str_equal (key, "pp"))
        o->fix_pp = (gint) n;
      else if (g_str_equal (key, "cp"))
        o->fix_cp = (gint) n;
      else if (g_str_equal (key, "ep"))
        o->fix_ep = (gint) n;
      else if (g_str_equal (key, "dp"))
        o->fix_dp = (gint) n;
      else if (g_str_equal (key, "mbs") || g_str_equal (key, "micro_batch_size"))
        o->fix_micro_batch = (gint) n;
      else if (g_str_equal (key, "v") || g_str_equal (key, "virtual_stages"))
        o->fix_virtual_stages = (gint) n;
      else if (g_str_equal (key, "zero") || g_str_equal (key, "zero_stage"))
        o->fix_zero_stage = (gint) n;
      else if (g_str_equal (key, "sp") || g_str_equal (key, "sequence_parallel"))
        o->fix_sequence_parallel = n ? 1 : 0;
      else
        goto bad;
      continue;

    bad:
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "--fix: \"%.60s\" is not key=value with a key of tp, pp, cp, ep, dp, mbs, v, zero, sp, "
                   "schedule, recompute", parts[i]);
      return FALSE;
    }
  return TRUE;
}

/* The scenario with a search result's strategy, ready to load or save: the strategy
 * keys the search chose are set, the schedule file dropped, the cluster resized
 * when the result is for another GPU count. What the search did not choose (global
 * batch, sequence, dtype, overlap) stays as the scenario had it. */
JsonNode *
plx_search_result_to_scenario (const PlxSearchResult *r,
                               JsonNode              *scenario,
                               guint                  gpus_per_node,
                               GError               **error)
{
  g_autoptr (JsonNode) out = NULL;
  JsonObject *root, *st, *cl;
  const PlxStrategy *s = &r->strategy;

  if (scenario == NULL || !JSON_NODE_HOLDS_OBJECT (scenario) || gpus_per_node == 0 || r->n_gpus % gpus_per_node != 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "search result for %u GPUs: not a scenario object, or not a whole number of %u-GPU nodes", r->n_gpus,
                   gpus_per_node);
      return NULL;
    }
  /* A tree of its own: json_node_copy would share the objects, and the keys set
   * below would change the caller's scenario too. */
  out = plx_json_deep_copy (scenario);
  root = json_node_get_object (out);
  if (!json_object_has_member (root, "strategy") || !JSON_NODE_HOLDS_OBJECT (json_object_get_member (root, "strategy")))
    json_object_set_object_member (root, "strategy", json_object_new ());
  st = json_object_get_object_member (root, "strategy");
  json_object_set_int_member (st, "dp", s->dp);
  json_object_set_int_member (st, "tp", s->tp);
  json_object_set_int_member (st, "pp", s->pp);
  json_object_set_int_member (st, "cp", s->cp);
  json_object_set_int_member (st, "ep", s->ep);
  json_object_set_int_member (st, "micro_batch_size", (gint64) s->micro_batch_size);
  json_object_set_string_member (st, "schedule", plx_schedule_to_string (s->schedule));
  if (s->schedule == PLX_SCHEDULE_INTERLEAVED_1F1B)
    json_object_set_int_member (st, "virtual_stages", s->virtual_stages);
  else if (json_object_has_member (st, "virtual_stages"))
    json_object_remove_member (st, "virtual_stages");
  json_object_set_string_member (st, "recompute", plx_recompute_to_string (s->recompute));
  json_object_set_int_member (st, "zero_stage", s->zero_stage);
  json_object_set_boolean_member (st, "sequence_parallel", s->sequence_parallel);
  if (s->layers_per_stage_auto)
    json_object_set_string_member (st, "layers_per_stage", "auto");

  if (!json_object_has_member (root, "cluster") || !JSON_NODE_HOLDS_OBJECT (json_object_get_member (root, "cluster")))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "search result: the scenario has no cluster object");
      return NULL;
    }
  cl = json_object_get_object_member (root, "cluster");
  json_object_set_int_member (cl, "num_nodes", r->n_gpus / gpus_per_node);
  return g_steal_pointer (&out);
}
