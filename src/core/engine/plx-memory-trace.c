/* The memory trace's samples. Every sample of the event engine is a change of a
 * stage's activation bytes at a pass's start or end (a B pass with a transient makes
 * three), by one of a few amounts per (virtual stage, pass). So a pass is kept as one
 * byte naming its chunk and pass, and its start time only when the pass waited for its
 * input: one that started as soon as its stage was free starts at the previous pass's
 * end (plus the send), which the reader recomputes. Reading redoes the engine's
 * arithmetic in the engine's order (end = start + duration, free = end + send_s, the
 * running sum act += delta from 0), so every time and every sum is the same double the
 * engine had. A program's trace (plx-ir-sim.c) keeps its samples whole. For 8192
 * micro-batches on 128 stages: 10.5 MB (2.1 MB of codes; nearly every B pass waits
 * for its gradient, so half the passes keep a start) instead of 33.5 MB of 16-byte
 * samples (docs/performance.md). */
#include <string.h>

#include "plx-sim-memory-trace-store.h"

PlxMemoryTrace *
plx_memory_trace_new (guint n_ranks)
{
  PlxMemoryTrace *tr = g_new0 (PlxMemoryTrace, 1);
  PlxMemoryTraceStore *st = g_new0 (PlxMemoryTraceStore, 1);
  guint n = MAX (n_ranks, 1);

  tr->n_ranks = n_ranks;
  tr->static_bytes = g_new0 (double, (gsize) n * PLX_N_MEM);
  tr->peak_activation_bytes = g_new0 (double, n);
  tr->peak_time_s = g_new0 (double, n);
  st->ranks = g_new0 (PlxMemoryTraceRank, n);
  for (guint r = 0; r < n_ranks; r++)
    st->ranks[r].whole = g_array_new (FALSE, FALSE, sizeof (PlxMemorySample));
  tr->store = st;
  return tr;
}

void
plx_memory_trace_store_init_passes (PlxMemoryTrace            *tr,
                                    const PlxMemoryPassEffect *effects,
                                    guint                      n_effects,
                                    double                     send_s,
                                    const gsize               *passes)
{
  PlxMemoryTraceStore *st = tr->store;

  g_return_if_fail (st->effects == NULL && n_effects % 3 == 0 && tr->n_ranks > 0);
  st->pp = tr->n_ranks;
  st->send_s = send_s;
  st->n_effects = n_effects;
  st->effects = g_memdup2 (effects, n_effects * sizeof *effects);
  for (guint r = 0; r < tr->n_ranks; r++)
    {
      PlxMemoryTraceRank *rk = &st->ranks[r];
      g_array_unref (rk->whole);
      rk->whole = NULL;
      /* One code a pass, exactly; a block of starts when the passes that need one come. */
      rk->codes = g_new (guint8, MAX (passes[r], 1));
      rk->max_passes = MAX (passes[r], 1);
      rk->start_blocks = g_new0 (double *, passes[r] / PLX_MEMORY_STARTS_PER_BLOCK + 1);
    }
}

void
plx_memory_trace_store_trim (PlxMemoryTrace *tr)
{
  for (guint r = 0; r < tr->n_ranks; r++)
    {
      PlxMemoryTraceRank *rk = &tr->store->ranks[r];
      gsize used = rk->n_starts % PLX_MEMORY_STARTS_PER_BLOCK, last = rk->n_starts / PLX_MEMORY_STARTS_PER_BLOCK;
      if (used > 0)
        rk->start_blocks[last] = g_renew (double, rk->start_blocks[last], used);
    }
}

void
plx_memory_trace_append (PlxMemoryTrace *tr, guint rank, const PlxMemorySample *sample)
{
  PlxMemoryTraceRank *rk = &tr->store->ranks[rank];

  g_return_if_fail (rank < tr->n_ranks && rk->whole != NULL);
  g_array_append_vals (rk->whole, sample, 1);
  rk->n_samples++;
}

guint64
plx_memory_trace_n_samples (const PlxMemoryTrace *tr, guint rank)
{
  g_return_val_if_fail (rank < tr->n_ranks, 0);
  return tr->store->ranks[rank].n_samples;
}

void
plx_memory_trace_iter_init (PlxMemoryTraceIter *iter, const PlxMemoryTrace *tr, guint rank)
{
  memset (iter, 0, sizeof *iter);
  iter->trace = tr;
  iter->rank = rank;
}

/* The next pass's times, as plx-sim.c's advance_stage computes them. */
static void
begin_pass (PlxMemoryTraceIter *it, const PlxMemoryTraceStore *st, const PlxMemoryTraceRank *rk)
{
  guint code = rk->codes[it->pass++];
  guint c = (code & ~PLX_MEMORY_FROM_FREE) / 3, p = (code & ~PLX_MEMORY_FROM_FREE) % 3;
  const PlxMemoryPassEffect *fx;

  it->effect = (c * st->pp + it->rank) * 3 + p;
  fx = &st->effects[it->effect];
  if (code & PLX_MEMORY_FROM_FREE)
    it->start_s = it->free_s;
  else
    {
      it->start_s = rk->start_blocks[it->start / PLX_MEMORY_STARTS_PER_BLOCK][it->start % PLX_MEMORY_STARTS_PER_BLOCK];
      it->start++;
    }
  it->end_s = it->start_s + fx->duration_s;
  it->free_s = fx->sends ? it->end_s + st->send_s : it->end_s;
  it->change = 0;
  it->n_changes = fx->n_changes;
}

gboolean
plx_memory_trace_iter_next (PlxMemoryTraceIter *it, PlxMemorySample *out)
{
  const PlxMemoryTraceStore *st = it->trace->store;
  const PlxMemoryTraceRank *rk;
  const PlxMemoryPassEffect *fx;

  if (it->rank >= it->trace->n_ranks)
    return FALSE;
  rk = &st->ranks[it->rank];
  if (rk->whole != NULL)
    {
      if (it->index >= rk->whole->len)
        return FALSE;
      *out = g_array_index (rk->whole, PlxMemorySample, it->index++);
      return TRUE;
    }
  while (it->change >= it->n_changes)
    {
      if (it->pass >= rk->n_passes)
        return FALSE;
      begin_pass (it, st, rk);
    }
  fx = &st->effects[it->effect];
  out->time_s = (fx->at_end >> it->change & 1) ? it->end_s : it->start_s;
  it->act += fx->delta[it->change++];
  out->activation_bytes = it->act;
  it->index++;
  return TRUE;
}

gsize
plx_memory_trace_get_size (const PlxMemoryTrace *tr)
{
  const PlxMemoryTraceStore *st = tr->store;
  gsize size = sizeof *tr + sizeof *st + tr->n_ranks * sizeof (PlxMemoryTraceRank) +
               st->n_effects * sizeof (PlxMemoryPassEffect);

  for (guint r = 0; r < tr->n_ranks; r++)
    {
      const PlxMemoryTraceRank *rk = &st->ranks[r];
      size += rk->n_passes + rk->n_starts * sizeof (double) +
              (rk->n_starts + PLX_MEMORY_STARTS_PER_BLOCK - 1) / PLX_MEMORY_STARTS_PER_BLOCK * sizeof (double *);
      if (rk->whole != NULL)
        size += rk->whole->len * sizeof (PlxMemorySample);
    }
  return size;
}

void
plx_memory_trace_free (PlxMemoryTrace *trace)
{
  if (trace == NULL)
    return;
  if (trace->store != NULL)
    {
      for (guint r = 0; r < trace->n_ranks; r++)
        {
          PlxMemoryTraceRank *rk = &trace->store->ranks[r];
          if (rk->whole != NULL)
            g_array_unref (rk->whole);
          for (gsize b = 0; b * PLX_MEMORY_STARTS_PER_BLOCK < rk->n_starts; b++)
            g_free (rk->start_blocks[b]);
          g_free (rk->start_blocks);
          g_free (rk->codes);
        }
      g_free (trace->store->ranks);
      g_free (trace->store->effects);
      g_free (trace->store);
    }
  g_free (trace->static_bytes);
  g_free (trace->peak_activation_bytes);
  g_free (trace->peak_time_s);
  g_free (trace);
}
