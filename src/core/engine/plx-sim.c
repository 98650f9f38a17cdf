/* The event simulator. Passes (F, B, W of one chunk for one micro-batch) are the
 * scheduled events: each stage runs its schedule's entries in order on its compute
 * stream, an entry starting when the stream is free and its input has arrived from
 * the neighbouring stage. Inside a pass the plan's tasks run back to back (Megatron's
 * TP collectives are on the critical path), so they are laid out on the timeline
 * from the pass's start without further scheduling. Stage-to-stage sends are
 * synchronous, as Megatron-LM's p2p in the 1F1B schedules (Narayanan et al. 2021
 * §2.2): the sender's compute waits for them. Gradient buckets reduce on the DP
 * stream as the last micro-batch's backward produces them (PyTorch DDP, Li et al.
 * 2020 §3.2.3). Because every dependency points to a neighbouring stage, a stage is
 * advanced as soon as its next entry's inputs are known: each pass is handled once,
 * no global event queue is needed, and the result does not depend on visiting order. */
#include <math.h>
#include <string.h>

#include "parallax/plx-error.h"
#include "parallax/plx-sim.h"

#include "plx-sim-memory-trace-store.h"
#include "scenario/plx-schedule-cursor.h"
#include "plx-sim-window.h"
#include "plx-sim-timeline-store.h"
#include "base/plx-minmax.h"

/* Gradient-bucket bars per chunk on the timeline. */
#define MAX_BUCKET_BARS 256

typedef struct
{
  const PlxPlan          *plan;
  const PlxScheduleOrder *order;
  PlxScheduleCursor      *cursors;      /* per stage: its entries, computed or stored */
  guint                   K;
  /* Per virtual stage, a ring of `window` slots (plx-sim-window.h): when micro-batch
   * mb's pass ended, in slot mb & (window - 1), known while its tag is mb + 1 (0:
   * nothing yet, so the ring starts as untouched zero pages). Its output reaches the
   * next stage send_s later (computed again where needed: the same addition, so the
   * same time). A slot is taken over by mb + window only after the stage has run
   * mb's last pass; by then the neighbours have read mb's times too: B(k, mb) ran
   * after B(k+1, mb), which ran after F(k+1, mb); and B(k, mb + window) runs after
   * F(k - 1, mb + window), which the window puts after B(k - 1, mb). */
  guint                   window;
  double                 *f_end, *b_end;
  guint32                *f_tag, *b_tag;
  double                 *stage_free;
  guint                  *next;
  double                 *act, *act_peak, *act_peak_time;
  double                 *kind_time;     /* pp x PLX_N_KINDS */
  double                 *grad_start, *grad_end; /* per virtual stage: its last gradient pass */
  double                 *pass_kind;     /* K x 3 x PLX_N_KINDS: task time by kind per pass */
  PlxTimeline            *timeline;     /* NULL: not recorded */
  gboolean                compact;       /* passes go into the timeline as pass records */
  gboolean                last_pass_compact; /* the pass just recorded is a pass record */
  PlxMemoryPassEffect    *effects;       /* K x 3: each pass's activation changes */
  PlxMemoryTrace         *trace;         /* NULL: not recorded */
  gboolean                trace_whole;   /* too many chunks for pass codes: samples whole */
  PlxSimStats             stats;
} Sim;

static void
record (Sim *sim, guint rank, PlxStream stream, PlxTaskKind kind, guint chunk, guint32 mb,
        const char *label, double start, double end, double flops, double bytes)
{
  PlxTimelineEvent ev;

  if (sim->timeline == NULL)
    return;
  ev.rank = rank;
  ev.stream = (guint8) stream;
  ev.kind = (guint8) kind;
  ev.chunk = (guint16) chunk;
  ev.micro_batch = mb;
  ev.label = label;
  ev.start_s = start;
  ev.end_s = end;
  ev.flops = flops;
  ev.bytes = bytes;
  plx_timeline_append (sim->timeline, &ev);
}

/* A pass whose events all fit goes in as one pass record (plx-timeline.c expands it
 * exactly as the loop below lays it out); one that straddles the limit goes in task
 * by task, so the events recorded and dropped are the same either way. */
static void
record_pass (Sim *sim, guint stage, guint k, PlxPass pass, guint32 mb, double start)
{
  const PlxPlanPass *pp = &sim->plan->chunks[k].pass[pass];
  PlxTimelineStore *st = sim->timeline->store;
  double t = start;

  sim->last_pass_compact = sim->compact && st->whole->len == 0 &&
                           st->n_pass_events + pp->n_tasks <= PLX_TIMELINE_MAX_EVENTS;
  if (sim->last_pass_compact)
    {
      PlxTimelinePassRecord rec = { start, mb, (guint16) k, (guint8) pass, 0 };
      plx_timeline_store_add_pass (st, &rec, pp->n_tasks);
      return;
    }
  /* Past the limit every task is dropped; when none runs backwards in time the first
   * task's start is the earliest, so the pass is dropped at once (millions of tasks
   * in the largest steps). */
  if (sim->compact && plx_timeline_n_events (sim->timeline) >= PLX_TIMELINE_MAX_EVENTS && pp->n_tasks > 0 &&
      st->templates[k * 3 + pass].monotone)
    {
      PlxTimeline *tl = sim->timeline;
      if (tl->dropped == 0 || start < tl->recorded_until_s)
        tl->recorded_until_s = start;
      tl->dropped += pp->n_tasks;
      return;
    }
  for (guint i = 0; i < pp->n_tasks; i++)
    {
      const PlxPlanTask *task = &pp->tasks[i];
      record (sim, stage, task->stream, task->kind, k / sim->plan->pp, mb, task->label,
              t, t + task->duration_s, task->flops, task->bytes);
      t += task->duration_s;
    }
}

/* The send after the pass just recorded: a flag on its record if it has one. */
static void
record_send (Sim *sim, guint stage, guint chunk, guint32 mb, const char *label, double end, double free_at)
{
  PlxTimelineStore *st;

  if (sim->timeline == NULL)
    return;
  st = sim->timeline->store;
  if (sim->last_pass_compact && st->n_pass_events < PLX_TIMELINE_MAX_EVENTS)
    {
      g_array_index (st->passes, PlxTimelinePassRecord, st->passes->len - 1).send = 1;
      st->n_pass_events++;
      return;
    }
  record (sim, stage, PLX_STREAM_PP, PLX_KIND_PP_SEND, chunk, mb, label, end, free_at, 0, sim->plan->send_bytes);
}

static void
memory_change (Sim *sim, guint stage, double t, double delta)
{
  sim->act[stage] += delta;
  if (sim->act[stage] > sim->act_peak[stage] * (1.0 + 1e-12))
    {
      sim->act_peak[stage] = sim->act[stage];
      sim->act_peak_time[stage] = t;
    }
  if (sim->trace_whole)
    {
      PlxMemorySample sample = { t, sim->act[stage] };
      plx_memory_trace_append (sim->trace, stage, &sample);
    }
}

/* The pass's changes to its stage's activations; recorded as the pass's code, and its
 * start unless the stage's free time (which a reader recomputes) was it. */
static void
pass_memory (Sim *sim, guint s, guint k, const PlxScheduleEntry *e, double start, double end)
{
  const PlxMemoryPassEffect *fx = &sim->effects[(gsize) k * 3 + e->pass];
  guint code;

  for (guint i = 0; i < fx->n_changes; i++)
    memory_change (sim, s, (fx->at_end >> i & 1) ? end : start, fx->delta[i]);
  if (sim->trace == NULL || sim->trace_whole)
    return;
  code = e->chunk * 3u + e->pass;
  /* Bits, not ==: a reader must get this very double back. */
  if (memcmp (&start, &sim->stage_free[s], sizeof start) == 0)
    code |= PLX_MEMORY_FROM_FREE;
  plx_memory_trace_store_add_pass (&sim->trace->store->ranks[s], (guint8) code, start, fx->n_changes);
}

/* What each pass does to activation memory: F keeps its activations from its start;
 * B frees them at its end (but what W still needs, when W is split off), re-creating
 * a layer's worth meanwhile under full recompute; W frees the rest at its end. */
static PlxMemoryPassEffect *
pass_effects (const PlxPlan *plan, guint K, gboolean split_backward)
{
  PlxMemoryPassEffect *fx = g_new0 (PlxMemoryPassEffect, (gsize) K * 3);

  for (guint k = 0; k < K; k++)
    {
      const PlxPlanChunk *chunk = &plan->chunks[k];
      PlxMemoryPassEffect *f = &fx[k * 3 + PLX_PASS_FORWARD], *b = &fx[k * 3 + PLX_PASS_BACKWARD],
                          *w = &fx[k * 3 + PLX_PASS_WEIGHT_GRAD];
      double freed = split_backward ? -(chunk->saved_bytes - chunk->wgrad_saved_bytes) : -chunk->saved_bytes;

      for (guint p = 0; p < 3; p++)
        fx[k * 3 + p].duration_s = chunk->pass[p].duration_s;
      f->n_changes = 1;
      f->delta[0] = chunk->saved_bytes;
      f->sends = k + 1 < K;
      if (chunk->transient_bytes > 0.0)
        {
          b->n_changes = 3;
          b->at_end = 6;
          b->delta[0] = chunk->transient_bytes;
          b->delta[1] = -chunk->transient_bytes;
          b->delta[2] = freed;
        }
      else
        {
          b->n_changes = 1;
          b->at_end = 1;
          b->delta[0] = freed;
        }
      b->sends = k > 0;
      w->n_changes = 1;
      w->at_end = 1;
      w->delta[0] = -chunk->wgrad_saved_bytes;
    }
  return fx;
}

/* Lays the pass's tasks out from `start` and books their time by kind. */
static void
run_pass (Sim *sim, guint stage, guint k, PlxPass pass, guint32 mb, double start)
{
  const double *by_kind = &sim->pass_kind[((gsize) k * 3 + pass) * PLX_N_KINDS];

  for (guint i = 0; i < PLX_N_KINDS; i++)
    sim->kind_time[(gsize) stage * PLX_N_KINDS + i] += by_kind[i];
  if (sim->timeline != NULL)
    record_pass (sim, stage, k, pass, mb, start);
}

static gsize
ring_slot (const Sim *sim, guint k, guint32 mb)
{
  return (gsize) k * sim->window + (mb & (sim->window - 1));
}

/* The time the entry's input is available, or NAN if not yet known. */
static double
input_time (const Sim *sim, guint k, const PlxScheduleEntry *e)
{
  gsize i = ring_slot (sim, k, e->micro_batch), w = sim->window;
  guint32 tag = e->micro_batch + 1;

  switch (e->pass)
    {
    case PLX_PASS_FORWARD:
      if (k == 0)
        return 0.0;
      return sim->f_tag[i - w] == tag ? sim->f_end[i - w] + sim->plan->send_s : NAN;
    case PLX_PASS_BACKWARD:
      if (sim->f_tag[i] != tag)
        return NAN;
      if (k + 1 == sim->K)
        return sim->f_end[i];
      return sim->b_tag[i + w] == tag ? sim->b_end[i + w] + sim->plan->send_s : NAN;
    case PLX_PASS_WEIGHT_GRAD:
    default:
      return sim->b_tag[i] == tag ? sim->b_end[i] : NAN;
    }
}

/* Stages whose next entry may have become runnable, last in first out: pushed and
 * popped once a pass, so kept as a bare array rather than a GArray (a call and a
 * copy each way). The visiting order decides the timeline's event order. */
typedef struct
{
  guint *stages;
  gsize  len, size;
} WakeStack;

static inline void
wake_stage (WakeStack *wake, guint stage)
{
  if (wake->len == wake->size)
    {
      wake->size = MAX (64, wake->size * 2);
      wake->stages = g_renew (guint, wake->stages, wake->size);
    }
  wake->stages[wake->len++] = stage;
}

/* A stored order's entries are read once each, a stage at a time in the order stages
 * wake up: no hardware prefetcher follows a hundred interleaved streams, so each cache
 * line of them was a miss to memory. Reaching a line's first entry fetches the next
 * line: the stage comes back to it only after the others have had their turn. A
 * built-in schedule's entries are computed (plx-schedule-cursor.h): nothing to fetch. */
static inline PlxScheduleEntry
next_entry (const PlxScheduleCursor *c, guint next)
{
#if defined(__GNUC__)
  const guint per_line = 64 / sizeof (PlxScheduleEntry);
  if (c->stored != NULL && next % per_line == 0 && next + per_line < c->len)
    __builtin_prefetch (&g_array_index (c->stored, PlxScheduleEntry, next + per_line));
#endif
  return plx_schedule_cursor_at (c, next);
}

static void
advance_stage (Sim *sim, guint s, WakeStack *wake)
{
  const PlxPlan *plan = sim->plan;
  const PlxScheduleCursor *cursor = &sim->cursors[s];

  while (sim->next[s] < cursor->len)
    {
      const PlxScheduleEntry entry = next_entry (cursor, sim->next[s]);
      const PlxScheduleEntry *e = &entry;
      guint k = e->chunk * plan->pp + s;
      gsize i = ring_slot (sim, k, e->micro_batch);
      const PlxPlanChunk *chunk = &plan->chunks[k];
      double ready = input_time (sim, k, e), start, end, free_at;

      if (isnan (ready))
        return;
      start = MAX (sim->stage_free[s], ready);

      end = start + chunk->pass[e->pass].duration_s;
      run_pass (sim, s, k, e->pass, e->micro_batch, start);
      pass_memory (sim, s, k, e, start, end);
      free_at = end;
      sim->stats.passes++;
      sim->stats.events++;

      switch (e->pass)
        {
        case PLX_PASS_FORWARD:
          sim->f_end[i] = end;
          sim->f_tag[i] = e->micro_batch + 1;
          if (k + 1 < sim->K)
            {
              free_at = end + plan->send_s;
              if (plan->send_s > 0.0)
                {
                  record_send (sim, s, e->chunk, e->micro_batch, "send activations", end, free_at);
                  sim->kind_time[(gsize) s * PLX_N_KINDS + PLX_KIND_PP_SEND] += plan->send_s;
                  sim->stats.events++;
                }
              wake_stage (wake, (k + 1) % plan->pp);
            }
          if (k + 1 == sim->K)
            wake_stage (wake, s);
          break;
        case PLX_PASS_BACKWARD:
          if (!sim->order->split_backward)
            {
              sim->grad_start[k] = start;
              sim->grad_end[k] = end;
            }
          sim->b_end[i] = end;
          sim->b_tag[i] = e->micro_batch + 1;
          if (k > 0)
            {
              free_at = end + plan->send_s;
              if (plan->send_s > 0.0)
                {
                  record_send (sim, s, e->chunk, e->micro_batch, "send gradients", end, free_at);
                  sim->kind_time[(gsize) s * PLX_N_KINDS + PLX_KIND_PP_SEND] += plan->send_s;
                  sim->stats.events++;
                }
              wake_stage (wake, (k - 1) % plan->pp);
            }
          break;
        case PLX_PASS_WEIGHT_GRAD:
        default:
          /* W needs the matmuls' inputs, which live until it ends (pass_effects). */
          sim->grad_start[k] = start;
          sim->grad_end[k] = end;
          break;
        }

      sim->stage_free[s] = free_at;
      sim->next[s]++;
    }
}

/* The trace the engine fills: pass codes, room for one a pass; with more chunks than
 * the codes can name, whole samples. */
static PlxMemoryTrace *
trace_new (Sim *sim)
{
  guint pp = sim->plan->pp;
  PlxMemoryTrace *tr = plx_memory_trace_new (pp);
  g_autofree gsize *passes = g_new (gsize, pp);

  sim->trace_whole = (gsize) sim->plan->virtual_stages * 3 > PLX_MEMORY_MAX_CODES;
  if (sim->trace_whole)
    return tr;
  for (guint s = 0; s < pp; s++)
    passes[s] = sim->cursors[s].len;
  plx_memory_trace_store_init_passes (tr, sim->effects, sim->K * 3, sim->plan->send_s, passes);
  return tr;
}

static int
compare_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

gboolean
plx_sim_run (const PlxPlan          *plan,
             const PlxScheduleOrder *order,
             PlxReport              *report,
             PlxTimeline           **timeline_out,
             PlxMemoryTrace        **trace_out,
             PlxSimStats            *stats,
             GError                **error)
{
  Sim sim = { 0 };
  guint pp = plan->pp;
  gsize n;
  WakeStack wake = { NULL, 0, 0 };
  g_autofree double *stage_end = NULL, *compute_end = NULL, *grads_done = NULL, *exposed = NULL;
  double step = 0.0;
  guint peak_stage = 0;
  double peak_total = -1.0;
  gboolean ok = TRUE;

  g_return_val_if_fail (order->pp == pp && order->virtual_stages == plan->virtual_stages &&
                        order->micro_batches == plan->micro_batches, FALSE);

  sim.plan = plan;
  sim.order = order;
  sim.K = pp * plan->virtual_stages;
  sim.window = plx_sim_window (order);
  sim.cursors = g_new (PlxScheduleCursor, pp);
  for (guint s = 0; s < pp; s++)
    plx_schedule_cursor_init (&sim.cursors[s], order, s);
  n = (gsize) sim.K * sim.window;
  sim.f_end = g_new (double, n);
  sim.b_end = g_new (double, n);
  sim.f_tag = g_new0 (guint32, n);
  sim.b_tag = g_new0 (guint32, n);
  sim.stage_free = g_new0 (double, pp);
  sim.next = g_new0 (guint, pp);
  sim.act = g_new0 (double, pp);
  sim.act_peak = g_new0 (double, pp);
  sim.act_peak_time = g_new0 (double, pp);
  sim.kind_time = g_new0 (double, (gsize) pp * PLX_N_KINDS);
  sim.grad_start = g_new0 (double, sim.K);
  sim.grad_end = g_new0 (double, sim.K);
  sim.pass_kind = g_new0 (double, (gsize) sim.K * 3 * PLX_N_KINDS);
  for (guint k = 0; k < sim.K; k++)
    for (guint p = 0; p < 3; p++)
      {
        const PlxPlanPass *pass = &plan->chunks[k].pass[p];
        for (guint i = 0; i < pass->n_tasks; i++)
          sim.pass_kind[((gsize) k * 3 + p) * PLX_N_KINDS + pass->tasks[i].kind] += pass->tasks[i].duration_s;
      }
  if (timeline_out != NULL)
    {
      gsize passes = 0;
      for (guint s = 0; s < pp; s++)
        passes += sim.cursors[s].len;
      sim.timeline = plx_timeline_new (pp, 0.0);
      plx_timeline_store_keep_labels (sim.timeline->store, plan);
      /* A pass record names its virtual stage in 16 bits; beyond, passes are kept whole. */
      sim.compact = sim.K <= G_MAXUINT16 + 1u;
      if (sim.compact)
        plx_timeline_store_init_passes (sim.timeline, plan, MIN (passes, PLX_TIMELINE_MAX_EVENTS));
    }
  sim.effects = pass_effects (plan, sim.K, order->split_backward);
  if (trace_out != NULL)
    sim.trace = trace_new (&sim);

  /* Advance every stage as far as its inputs allow; a stage whose output another
   * needs wakes that one. */
  for (guint s = pp; s-- > 0;)
    wake_stage (&wake, s);
  while (wake.len > 0)
    {
      guint s = wake.stages[--wake.len];
      advance_stage (&sim, s, &wake);
    }
  g_free (wake.stages);
  for (guint s = 0; s < pp; s++)
    if (sim.next[s] < sim.cursors[s].len)
      {
        PlxScheduleEntry e = plx_schedule_cursor_at (&sim.cursors[s], sim.next[s]);
        g_autofree char *name = plx_schedule_entry_to_string (&e);
        g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                     "schedule: stage %u, entry %u (%s) never gets its input: the order deadlocks", s, sim.next[s], name);
        ok = FALSE;
        goto out;
      }

  /* Once per step: gradient buckets, tied embeddings, optimizer, ZeRO gathers. */
  stage_end = g_new0 (double, pp);
  compute_end = g_new0 (double, pp);
  grads_done = g_new0 (double, pp);
  exposed = g_new0 (double, pp);
  for (guint s = 0; s < pp; s++)
    {
      const PlxPlanStage *st = &plan->stages[s];
      double dp = 0.0, comm = 0.0, first_ready = G_MAXDOUBLE;

      compute_end[s] = sim.stage_free[s];
      if (st->grad_bucket_s > 0.0 && plan->zero_stage < 3)
        {
          /* The chunks' gradients come out over their last backward (or W) passes, in
           * the order those ran; bucket j of a chunk is ready (j+1)/n of the way. */
          g_autofree double *order_by_end = g_new (double, plan->virtual_stages);
          for (guint c = 0; c < plan->virtual_stages; c++)
            order_by_end[c] = sim.grad_end[c * pp + s];
          qsort (order_by_end, plan->virtual_stages, sizeof (double), compare_double);
          for (guint ci = 0; ci < plan->virtual_stages; ci++)
            {
              guint k = 0;
              double g0, g1, bar_start = 0.0;
              guint64 nb, group;

              for (guint c = 0; c < plan->virtual_stages; c++)
                if (sim.grad_end[c * pp + s] == order_by_end[ci])
                  k = c * pp + s;
              g0 = sim.grad_start[k];
              g1 = sim.grad_end[k];
              /* Buckets of equal size (plx_costing_grad_buckets). */
              nb = (guint64) plx_max (1.0, round (plan->chunks[k].grad_bytes / st->grad_bucket_bytes));
              /* Thousands of small buckets are drawn as at most MAX_BUCKET_BARS bars of
               * consecutive buckets each; the times are still bucket by bucket. */
              group = (nb + MAX_BUCKET_BARS - 1) / MAX_BUCKET_BARS;
              for (guint64 j = 0; j < nb; j++)
                {
                  double ready = plan->overlap_dp_comm ? g0 + (g1 - g0) * (double) (j + 1) / nb : compute_end[s];
                  double b0 = MAX (dp, ready);
                  dp = b0 + st->grad_bucket_s;
                  comm += st->grad_bucket_s;
                  first_ready = MIN (first_ready, ready);
                  if (j % group == 0)
                    bar_start = b0;
                  if ((j + 1) % group == 0 || j + 1 == nb)
                    {
                      record (&sim, s, PLX_STREAM_DP, PLX_KIND_DP_COMM, k / pp, PLX_NO_MICRO_BATCH,
                              plan->zero_stage ? "gradient reduce-scatter" : "gradient all-reduce", bar_start, dp, 0,
                              st->grad_bucket_bytes * (double) (j % group + 1));
                      sim.stats.events++;
                    }
                }
            }
        }
      grads_done[s] = MAX (compute_end[s], dp);
      /* The compute the reduction ran beside is slowed, as plx_costing_contention has it. */
      if (plan->overlap_dp_comm && comm > 0.0)
        grads_done[s] += plan->overlap_slowdown *
                         CLAMP (comm - (grads_done[s] - compute_end[s]), 0.0, MAX (0.0, compute_end[s] - first_ready));
    }
  for (guint s = 0; s < pp; s++)
    {
      const PlxPlanStage *st = &plan->stages[s];
      double t = grads_done[s], opt_end;

      /* Communication is the transfer: the gradient reduction beyond the compute, and
       * the tied all-reduce's own time. Waiting for the other end's gradients is
       * bubble, not communication. */
      exposed[s] = grads_done[s] - compute_end[s] + st->tied_embedding_s;
      if (st->tied_embedding_s > 0.0)
        {
          /* First and last stage sum their embedding gradients once both are done. */
          double t0 = MAX (grads_done[0], grads_done[pp - 1]);
          record (&sim, s, PLX_STREAM_DP, PLX_KIND_DP_COMM, 0, PLX_NO_MICRO_BATCH, "tied embedding all-reduce",
                  t0, t0 + st->tied_embedding_s, 0, 0);
          t = t0 + st->tied_embedding_s;
          sim.stats.events++;
        }
      opt_end = t + st->optimizer_s;
      record (&sim, s, PLX_STREAM_COMPUTE, PLX_KIND_OPTIMIZER, 0, PLX_NO_MICRO_BATCH, "optimizer step", t, opt_end, 0, 0);
      sim.stats.events++;
      stage_end[s] = opt_end;
      if (plan->zero_stage >= 1 && plan->zero_stage <= 2 && st->zero_gather_s > 0.0)
        {
          record (&sim, s, PLX_STREAM_DP, PLX_KIND_DP_COMM, 0, PLX_NO_MICRO_BATCH, "ZeRO weight all-gather",
                  opt_end, opt_end + st->zero_gather_s, 0, 0);
          stage_end[s] = opt_end + st->zero_gather_s;
          exposed[s] += st->zero_gather_s;
          sim.stats.events++;
        }
      step = MAX (step, stage_end[s]);
    }

  /* The report describes the GPU with the highest memory peak. */
  for (guint s = 0; s < pp; s++)
    {
      double total = sim.act_peak[s];
      for (guint c = 0; c < 5; c++)
        total += plan->stages[s].static_bytes[c];
      if (total > peak_total * (1.0 + 1e-12))
        {
          peak_total = total;
          peak_stage = s;
        }
    }
  plx_plan_report (plan, "event", step, peak_stage, sim.act_peak[peak_stage],
                   &sim.kind_time[(gsize) peak_stage * PLX_N_KINDS], exposed[peak_stage], report);

  if (timeline_out != NULL)
    {
      PlxTimeline *tl = g_steal_pointer (&sim.timeline);
      tl->step_time_s = step;
      if (tl->dropped == 0)
        tl->recorded_until_s = step;
      sim.stats.timeline_events = plx_timeline_n_events (tl);
      *timeline_out = tl;
    }
  if (trace_out != NULL)
    {
      PlxMemoryTrace *tr = g_steal_pointer (&sim.trace);
      plx_memory_trace_store_trim (tr);
      for (guint s = 0; s < pp; s++)
        {
          tr->static_bytes[(gsize) s * PLX_N_MEM + PLX_MEM_WEIGHTS] = plan->stages[s].static_bytes[0];
          tr->static_bytes[(gsize) s * PLX_N_MEM + PLX_MEM_GRADIENTS] = plan->stages[s].static_bytes[1];
          tr->static_bytes[(gsize) s * PLX_N_MEM + PLX_MEM_OPTIMIZER] = plan->stages[s].static_bytes[2];
          tr->static_bytes[(gsize) s * PLX_N_MEM + PLX_MEM_OTHER] = plan->stages[s].static_bytes[4];
        }
      memcpy (tr->peak_activation_bytes, sim.act_peak, pp * sizeof (double));
      memcpy (tr->peak_time_s, sim.act_peak_time, pp * sizeof (double));
      *trace_out = tr;
    }
  if (stats != NULL)
    *stats = sim.stats;

out:
  g_free (sim.f_end);
  g_free (sim.b_end);
  g_free (sim.f_tag);
  g_free (sim.b_tag);
  g_free (sim.stage_free);
  g_free (sim.next);
  g_free (sim.cursors);
  g_free (sim.act);
  g_free (sim.act_peak);
  g_free (sim.act_peak_time);
  g_free (sim.kind_time);
  g_free (sim.grad_start);
  g_free (sim.grad_end);
  g_free (sim.pass_kind);
  g_free (sim.effects);
  plx_timeline_free (sim.timeline);
  plx_memory_trace_free (sim.trace);
  return ok;
}

gboolean
plx_sim_too_many_passes (const PlxStrategy *s)
{
  return (double) plx_strategy_get_n_micro_batches (s) * s->pp * s->virtual_stages > PLX_SIM_MAX_PASSES;
}

gboolean
plx_sim_prepare (const PlxModel     *model,
                 const PlxCluster   *cluster,
                 const PlxStrategy  *s,
                 PlxPlan           **plan_out,
                 PlxScheduleOrder  **order_out,
                 GError            **error)
{
  g_autoptr (PlxPlan) plan = NULL;
  g_autoptr (PlxScheduleOrder) order = NULL;
  guint64 m = plx_strategy_get_n_micro_batches (s);

  if (m == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "strategy: not resolved against the model and cluster (no micro-batches per step)");
      return FALSE;
    }
  /* Memory grows with the passes simulated; a million micro-batches is no schedule
   * anyone runs, and the closed form answers it in a microsecond. The message names
   * what every caller can change (the window has no other engine; the CLI adds its
   * --engine analytical). */
  if (plx_sim_too_many_passes (s))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                   "strategy: %" G_GUINT64_FORMAT " micro-batches x %u stages x %u chunks is more than the event engine's %d "
                   "million passes; a larger micro-batch size or a smaller global batch size makes fewer micro-batches",
                   m, s->pp, s->virtual_stages, PLX_SIM_MAX_PASSES / 1000000);
      return FALSE;
    }
  if (s->schedule == PLX_SCHEDULE_FILE)
    order = plx_schedule_order_load (s->schedule_path, s->pp, s->virtual_stages, m, error);
  else
    order = plx_schedule_order_new (s->schedule, s->pp, s->virtual_stages, m);
  if (order == NULL)
    return FALSE;
  /* A schedule file with W entries splits the weight gradients off, as ZB-H1 does. */
  plan = plx_plan_lower_split (model, cluster, s, order->split_backward, error);
  if (plan == NULL)
    return FALSE;
  *plan_out = g_steal_pointer (&plan);
  *order_out = g_steal_pointer (&order);
  return TRUE;
}

gboolean
plx_sim_check_report (const PlxReport   *report,
                      const PlxStrategy *s,
                      PlxTimeline      **timeline,
                      PlxMemoryTrace   **trace,
                      GError           **error)
{
  if (plx_report_check (report, s->seq_length, s->micro_batch_size, error))
    return TRUE;
  if (timeline != NULL)
    g_clear_pointer (timeline, plx_timeline_free);
  if (trace != NULL)
    g_clear_pointer (trace, plx_memory_trace_free);
  return FALSE;
}

gboolean
plx_sim_run_scenario (const PlxModel    *model,
                      const PlxCluster  *cluster,
                      const PlxStrategy *s,
                      PlxReport         *report,
                      PlxPlan          **plan_out,
                      PlxTimeline      **timeline,
                      PlxMemoryTrace   **trace,
                      GError           **error)
{
  g_autoptr (PlxPlan) plan = NULL;
  g_autoptr (PlxScheduleOrder) order = NULL;

  if (!plx_sim_prepare (model, cluster, s, &plan, &order, error))
    return FALSE;
  if (!plx_sim_run (plan, order, report, timeline, trace, NULL, error))
    return FALSE;
  if (!plx_sim_check_report (report, s, timeline, trace, error))
    return FALSE;
  if (plan_out != NULL)
    *plan_out = g_steal_pointer (&plan);
  return TRUE;
}
