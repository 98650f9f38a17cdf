/* render-util.h: hand-made timelines and traces for the chart tests. */
#pragma once

#include "parallax/parallax.h"

static inline void
add_labelled_event (PlxTimeline *tl, guint rank, PlxStream stream, PlxTaskKind kind, guint32 mb, double start,
                    double end, const char *label)
{
  PlxTimelineEvent ev = { 0 };

  ev.rank = rank;
  ev.stream = (guint8) stream;
  ev.kind = (guint8) kind;
  ev.micro_batch = mb;
  ev.label = label;
  ev.start_s = start;
  ev.end_s = end;
  plx_timeline_append (tl, &ev);
}

static inline void
add_event (PlxTimeline *tl, guint rank, PlxStream stream, PlxTaskKind kind, guint32 mb, double start, double end)
{
  add_labelled_event (tl, rank, stream, kind, mb, start, end, g_intern_static_string ("task"));
}

static inline PlxTimeline *
timeline_new (guint n_ranks, double step)
{
  return plx_timeline_new (n_ranks, step);
}

/* Two stages: stage 0 forward 0-2 s and backward 3-7 s with a TP collective at
 * 2-2.5 s; stage 1 forward 2-4 s. The step lasts 10 s. */
static inline PlxTimeline *
small_timeline (void)
{
  PlxTimeline *tl = timeline_new (2, 10.0);

  add_event (tl, 0, PLX_STREAM_COMPUTE, PLX_KIND_FORWARD, 0, 0.0, 2.0);
  add_event (tl, 0, PLX_STREAM_TP, PLX_KIND_TP_COMM, 0, 2.0, 2.5);
  add_event (tl, 0, PLX_STREAM_COMPUTE, PLX_KIND_BACKWARD, 0, 3.0, 7.0);
  add_event (tl, 1, PLX_STREAM_COMPUTE, PLX_KIND_FORWARD, 0, 2.0, 4.0);
  return tl;
}

/* Memory of n stages: static 10 GiB (4 weights, 2 gradients, 3 optimizer, 1 other)
 * and peak activations of (n - i) x `act` GiB. */
static inline PlxMemoryTrace *
memory_trace_new (guint n, double act_gib)
{
  PlxMemoryTrace *t = plx_memory_trace_new (n);
  const double gib = 1073741824.0;

  for (guint r = 0; r < n; r++)
    {
      PlxMemorySample up = { 1.0, (n - r) * act_gib * gib }, down = { 9.0, 0.0 };
      t->static_bytes[(gsize) r * PLX_N_MEM + PLX_MEM_WEIGHTS] = 4 * gib;
      t->static_bytes[(gsize) r * PLX_N_MEM + PLX_MEM_GRADIENTS] = 2 * gib;
      t->static_bytes[(gsize) r * PLX_N_MEM + PLX_MEM_OPTIMIZER] = 3 * gib;
      t->static_bytes[(gsize) r * PLX_N_MEM + PLX_MEM_OTHER] = 1 * gib;
      t->peak_activation_bytes[r] = (n - r) * act_gib * gib;
      plx_memory_trace_append (t, r, &up);
      plx_memory_trace_append (t, r, &down);
    }
  return t;
}
