/* The timeline's events. The event engine lays a pass's tasks out back to back from
 * the pass's start, so a pass is kept as one 16-byte record (start, micro-batch,
 * virtual stage, pass) and its events are computed again when read, with the same
 * additions in the same order as plx-sim.c's run_pass (t = start; each task ends at
 * t + d; t += d), so they are bit-identical to the ones the engine saw. The pass's
 * stage-to-stage send is a flag on the record. Everything else (DP buckets,
 * optimizer, a program's ops) is kept whole, after the passes. Random access goes
 * through a mark every 64 passes. 16 bytes a pass instead of 56 a task: for
 * megatron-1t on 3072 GPUs 1.3 MB instead of 37 MB of memory touched for the first
 * time (docs/performance.md). */
#include <string.h>

#include "plx-sim-timeline-store.h"

static PlxTimelineStore *
store_new (void)
{
  PlxTimelineStore *st = g_new0 (PlxTimelineStore, 1);

  st->passes = g_array_new (FALSE, FALSE, sizeof (PlxTimelinePassRecord));
  st->pass_first = g_array_new (FALSE, FALSE, sizeof (guint32));
  st->whole = g_array_new (FALSE, FALSE, sizeof (PlxTimelineEvent));
  return st;
}

PlxTimeline *
plx_timeline_new (guint n_ranks, double step_time_s)
{
  PlxTimeline *tl = g_new0 (PlxTimeline, 1);

  tl->n_ranks = n_ranks;
  tl->step_time_s = step_time_s;
  tl->recorded_until_s = step_time_s;
  tl->store = store_new ();
  return tl;
}

void
plx_timeline_store_init_passes (PlxTimeline *tl, const PlxPlan *plan, gsize passes)
{
  PlxTimelineStore *st = tl->store;
  guint K = plan->pp * plan->virtual_stages;
  gsize n_tasks = 0, at = 0;

  g_return_if_fail (st->passes->len == 0 && st->whole->len == 0 && st->templates == NULL);
  st->send_s = plan->send_s;
  st->send_bytes = plan->send_bytes;
  st->n_templates = K * 3;
  st->templates = g_new0 (PlxTimelineTemplate, st->n_templates);
  for (guint k = 0; k < K; k++)
    for (guint p = 0; p < 3; p++)
      n_tasks += plan->chunks[k].pass[p].n_tasks;
  st->tasks = g_new (PlxPlanTask, MAX (n_tasks, 1));
  for (guint k = 0; k < K; k++)
    for (guint p = 0; p < 3; p++)
      {
        const PlxPlanPass *pass = &plan->chunks[k].pass[p];
        PlxTimelineTemplate *tpl = &st->templates[k * 3 + p];

        if (pass->n_tasks > 0)
          memcpy (&st->tasks[at], pass->tasks, pass->n_tasks * sizeof (PlxPlanTask));
        tpl->tasks = &st->tasks[at];
        tpl->n_tasks = pass->n_tasks;
        tpl->duration_s = pass->duration_s;
        tpl->rank = k % plan->pp;
        tpl->chunk = (guint16) (k / plan->pp);
        tpl->monotone = TRUE;
        for (guint i = 0; i < pass->n_tasks; i++)
          tpl->monotone = tpl->monotone && pass->tasks[i].duration_s >= 0.0;
        at += pass->n_tasks;
      }
  /* Room reserved is only address space until written. */
  g_array_unref (st->passes);
  g_array_unref (st->pass_first);
  st->passes = g_array_sized_new (FALSE, FALSE, sizeof (PlxTimelinePassRecord), (guint) passes);
  st->pass_first = g_array_sized_new (FALSE, FALSE, sizeof (guint32),
                                     (guint) (passes / PLX_TIMELINE_PASSES_PER_MARK + 1));
}

guint64
plx_timeline_n_events (const PlxTimeline *tl)
{
  return tl->store->n_pass_events + tl->store->whole->len;
}

void
plx_timeline_append (PlxTimeline *tl, const PlxTimelineEvent *ev)
{
  /* A step of millions of micro-batches would need gigabytes of timeline: recording
   * stops at the limit and says so (dropped, recorded_until_s). */
  if (plx_timeline_n_events (tl) >= PLX_TIMELINE_MAX_EVENTS)
    {
      if (tl->dropped == 0 || ev->start_s < tl->recorded_until_s)
        tl->recorded_until_s = ev->start_s;
      tl->dropped++;
      return;
    }
  g_array_append_val (tl->store->whole, *ev);
}

static inline void
fill_task (guint32 rank, guint16 chunk, guint32 micro_batch, const PlxPlanTask *task, double t,
           PlxTimelineEvent *out)
{
  out->rank = rank;
  out->stream = (guint8) task->stream;
  out->kind = (guint8) task->kind;
  out->chunk = chunk;
  out->micro_batch = micro_batch;
  out->label = task->label;
  out->start_s = t;
  out->end_s = t + task->duration_s;
  out->flops = task->flops;
  out->bytes = task->bytes;
}

/* The send after a forward (activations) or backward (gradients) pass, timed as
 * plx-sim.c's advance_stage times it: from the pass's end, start + its duration. */
static void
fill_send (const PlxTimelineStore *st, const PlxTimelinePassRecord *rec, PlxTimelineEvent *out)
{
  const PlxTimelineTemplate *tpl = &st->templates[rec->k * 3 + rec->pass];
  double end = rec->start_s + tpl->duration_s;

  out->rank = tpl->rank;
  out->stream = PLX_STREAM_PP;
  out->kind = PLX_KIND_PP_SEND;
  out->chunk = tpl->chunk;
  out->micro_batch = rec->micro_batch;
  out->label = rec->pass == PLX_PASS_FORWARD ? "send activations" : "send gradients";
  out->start_s = end;
  out->end_s = end + st->send_s;
  out->flops = 0;
  out->bytes = st->send_bytes;
}

static guint
record_events (const PlxTimelineStore *st, const PlxTimelinePassRecord *rec)
{
  return st->templates[rec->k * 3 + rec->pass].n_tasks + rec->send;
}

gboolean
plx_timeline_get_event (const PlxTimeline *tl, guint64 index, PlxTimelineEvent *out)
{
  const PlxTimelineStore *st = tl->store;
  const guint32 *first = (const guint32 *) (gpointer) st->pass_first->data;
  const PlxTimelinePassRecord *rec;
  const PlxTimelineTemplate *tpl;
  guint lo = 0, hi, j;
  guint64 at;
  gsize r;
  double t;

  if (index >= plx_timeline_n_events (tl))
    return FALSE;
  if (index >= st->n_pass_events)
    {
      *out = g_array_index (st->whole, PlxTimelineEvent, index - st->n_pass_events);
      return TRUE;
    }
  /* The last mark at or before index, then the pass holding it: the last one that
   * starts at or before it (an empty pass starts where the next one does). */
  hi = st->pass_first->len;
  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;
      if (first[mid] <= index)
        lo = mid;
      else
        hi = mid;
    }
  at = first[lo];
  r = (gsize) lo * PLX_TIMELINE_PASSES_PER_MARK;
  while (at + record_events (st, &g_array_index (st->passes, PlxTimelinePassRecord, r)) <= index)
    at += record_events (st, &g_array_index (st->passes, PlxTimelinePassRecord, r++));
  rec = &g_array_index (st->passes, PlxTimelinePassRecord, r);
  tpl = &st->templates[rec->k * 3 + rec->pass];
  j = (guint) (index - at);
  if (j >= tpl->n_tasks)
    {
      fill_send (st, rec, out);
      return TRUE;
    }
  t = rec->start_s;
  for (guint i = 0; i < j; i++)
    t += tpl->tasks[i].duration_s;
  fill_task (tpl->rank, tpl->chunk, rec->micro_batch, &tpl->tasks[j], t, out);
  return TRUE;
}

void
plx_timeline_iter_init (PlxTimelineIter *iter, const PlxTimeline *tl)
{
  memset (iter, 0, sizeof *iter);
  iter->timeline = tl;
}

/* The pass record of the iterator's next event (which must be a pass's): this one,
 * or a later one once this one's events (if any) have all been read. */
static const PlxTimelinePassRecord *
iter_record (PlxTimelineIter *iter, const PlxTimelineTemplate **tpl_out)
{
  const PlxTimelineStore *st = iter->timeline->store;
  const PlxTimelinePassRecord *rec = &g_array_index (st->passes, PlxTimelinePassRecord, iter->record);
  const PlxTimelineTemplate *tpl = &st->templates[rec->k * 3 + rec->pass];

  while (iter->task >= tpl->n_tasks + rec->send)
    {
      iter->record++;
      iter->task = 0;
      rec++;
      tpl = &st->templates[rec->k * 3 + rec->pass];
    }
  *tpl_out = tpl;
  return rec;
}

static void
fill_pass (const PlxTimelineTemplate *tpl, const PlxTimelinePassRecord *rec, guint64 first_event,
           PlxTimelinePass *pass)
{
  pass->tasks = tpl->tasks;
  pass->n_tasks = tpl->n_tasks;
  pass->rank = tpl->rank;
  pass->chunk = tpl->chunk;
  pass->micro_batch = rec->micro_batch;
  pass->first_event = first_event;
  pass->start_s = rec->start_s;
}

gboolean
plx_timeline_iter_peek_pass (PlxTimelineIter *iter, PlxTimelinePass *pass)
{
  const PlxTimelinePassRecord *rec;
  const PlxTimelineTemplate *tpl;

  if (iter->index >= iter->timeline->store->n_pass_events)
    return FALSE;
  rec = iter_record (iter, &tpl);
  if (iter->task != 0 || tpl->n_tasks == 0)
    return FALSE;
  fill_pass (tpl, rec, iter->index, pass);
  return TRUE;
}

void
plx_timeline_iter_skip_pass (PlxTimelineIter *iter, const PlxTimelinePass *pass)
{
  g_return_if_fail (iter->task == 0 && iter->index == pass->first_event);
  iter->task = pass->n_tasks;
  iter->index += pass->n_tasks;
}

void
plx_timeline_pass_event (const PlxTimelinePass *pass, guint j, double start_s, PlxTimelineEvent *out)
{
  g_return_if_fail (j < pass->n_tasks);
  fill_task (pass->rank, pass->chunk, pass->micro_batch, &pass->tasks[j], start_s, out);
}

gboolean
plx_timeline_iter_next (PlxTimelineIter *iter, PlxTimelineEvent *out)
{
  const PlxTimelineStore *st = iter->timeline->store;
  const PlxTimelinePassRecord *rec;
  const PlxTimelineTemplate *tpl;

  if (iter->index >= st->n_pass_events)
    {
      if (iter->index >= st->n_pass_events + st->whole->len)
        return FALSE;
      *out = g_array_index (st->whole, PlxTimelineEvent, iter->index - st->n_pass_events);
      iter->index++;
      return TRUE;
    }
  rec = iter_record (iter, &tpl);
  if (iter->task == 0)
    iter->t = rec->start_s;
  if (iter->task < tpl->n_tasks)
    {
      const PlxPlanTask *task = &tpl->tasks[iter->task];
      fill_task (tpl->rank, tpl->chunk, rec->micro_batch, task, iter->t, out);
      iter->t += task->duration_s;
    }
  else
    fill_send (st, rec, out);
  iter->task++;
  iter->index++;
  return TRUE;
}

struct _PlxTimelineByRank
{
  const PlxTimeline *timeline;
  guint    n_ranks;
  guint32 *start;          /* n_ranks + 1: rank r's items are item[start[r]..start[r + 1]) */
  guint32 *item;           /* a pass record's index, or BY_RANK_WHOLE | a whole event's */
  guint32 *first;          /* a pass's first event (events are fewer than 2^32) */
};

#define BY_RANK_WHOLE 0x80000000u

PlxTimelineByRank *
plx_timeline_by_rank_new (const PlxTimeline *tl, guint n_ranks)
{
  const PlxTimelineStore *st = tl->store;
  PlxTimelineByRank *b = g_new0 (PlxTimelineByRank, 1);
  g_autofree guint32 *at = NULL;

  G_STATIC_ASSERT (PLX_TIMELINE_MAX_EVENTS < BY_RANK_WHOLE);
  b->timeline = tl;
  b->n_ranks = n_ranks;
  b->start = g_new0 (guint32, (gsize) b->n_ranks + 1);
  /* Twice over the items, passes then whole events: first each rank's count, then
   * each item put in its rank's place (a counting sort, stable). */
  for (guint fill = 0; fill < 2; fill++)
    {
      guint64 event = 0;

      if (fill)
        {
          for (guint r = 0; r < b->n_ranks; r++)
            b->start[r + 1] += b->start[r];
          at = g_memdup2 (b->start, ((gsize) b->n_ranks + 1) * sizeof (guint32));
          b->item = g_new (guint32, MAX (b->start[b->n_ranks], 1));
          b->first = g_new (guint32, MAX (b->start[b->n_ranks], 1));
        }
      for (guint i = 0; i < st->passes->len + st->whole->len; i++)
        {
          gboolean whole = i >= st->passes->len;
          guint k = whole ? i - st->passes->len : i;
          const PlxTimelinePassRecord *rec = whole ? NULL : &g_array_index (st->passes, PlxTimelinePassRecord, k);
          guint rank = whole ? g_array_index (st->whole, PlxTimelineEvent, k).rank
                             : st->templates[rec->k * 3 + rec->pass].rank;

          if (rank < b->n_ranks && !fill)
            b->start[rank + 1]++;
          else if (rank < b->n_ranks)
            {
              b->item[at[rank]] = whole ? BY_RANK_WHOLE | k : k;
              b->first[at[rank]++] = (guint32) (whole ? st->n_pass_events + k : event);
            }
          if (!whole && fill)
            event += record_events (st, rec);
        }
    }
  return b;
}

guint
plx_timeline_by_rank_n_items (const PlxTimelineByRank *b, guint rank)
{
  g_return_val_if_fail (rank < b->n_ranks, 0);
  return b->start[rank + 1] - b->start[rank];
}

gboolean
plx_timeline_by_rank_item (const PlxTimelineByRank *b, guint rank, guint j, PlxTimelinePass *pass,
                           gboolean *has_send, PlxTimelineEvent *event, guint64 *event_index)
{
  const PlxTimelineStore *st = b->timeline->store;
  guint at = b->start[rank] + j, item = b->item[at];
  const PlxTimelinePassRecord *rec;
  const PlxTimelineTemplate *tpl;

  *event_index = b->first[at];
  if (item & BY_RANK_WHOLE)
    {
      *event = g_array_index (st->whole, PlxTimelineEvent, item & ~BY_RANK_WHOLE);
      return FALSE;
    }
  rec = &g_array_index (st->passes, PlxTimelinePassRecord, item);
  tpl = &st->templates[rec->k * 3 + rec->pass];
  fill_pass (tpl, rec, b->first[at], pass);
  *has_send = rec->send;
  if (rec->send)
    {
      fill_send (st, rec, event);
      *event_index = b->first[at] + tpl->n_tasks;
    }
  return TRUE;
}

void
plx_timeline_by_rank_free (PlxTimelineByRank *b)
{
  if (b == NULL)
    return;
  g_free (b->start);
  g_free (b->item);
  g_free (b->first);
  g_free (b);
}

gsize
plx_timeline_get_size (const PlxTimeline *tl)
{
  const PlxTimelineStore *st = tl->store;
  gsize n_tasks = 0;

  for (guint i = 0; i < st->n_templates; i++)
    n_tasks += st->templates[i].n_tasks;
  return sizeof *tl + sizeof *st + st->n_templates * sizeof (PlxTimelineTemplate) + n_tasks * sizeof (PlxPlanTask) +
         st->passes->len * sizeof (PlxTimelinePassRecord) + st->pass_first->len * sizeof (guint32) +
         st->whole->len * sizeof (PlxTimelineEvent);
}

void
plx_timeline_free (PlxTimeline *timeline)
{
  if (timeline == NULL)
    return;
  if (timeline->store != NULL)
    {
      g_array_unref (timeline->store->passes);
      g_array_unref (timeline->store->pass_first);
      g_array_unref (timeline->store->whole);
      g_free (timeline->store->templates);
      g_free (timeline->store->tasks);
      plx_plan_labels_unref (timeline->store->plan_labels);
      g_free (timeline->store);
    }
  if (timeline->labels != NULL)
    g_string_chunk_free (timeline->labels);
  g_free (timeline);
}
