/* plx-sim-timeline-store.h: how a PlxTimeline holds its events (plx-timeline.c), for the
 * event engine (plx-sim.c) that records passes compactly. Not installed. */
#pragma once

#include "parallax/plx-sim.h"

/* One F, B or W pass of virtual stage k for one micro-batch: its tasks are the
 * template's, laid out one after another from start_s, as run_pass lays them out. */
typedef struct
{
  double  start_s;
  guint32 micro_batch;
  guint16 k;               /* chunk * pp + stage */
  guint8  pass;            /* PlxPass */
  guint8  send;            /* followed by its stage-to-stage send */
} PlxTimelinePassRecord;

/* A pass's tasks, copied from the plan (the timeline outlives it). */
typedef struct
{
  PlxPlanTask *tasks;
  guint        n_tasks;
  double       duration_s;
  gboolean     monotone;   /* no task of negative (or NaN) duration: the first starts first */
  guint32      rank;       /* the virtual stage's stage and chunk, divided out once */
  guint16      chunk;
} PlxTimelineTemplate;

/* Random access finds the mark before an event, then walks at most this many passes. */
#define PLX_TIMELINE_PASSES_PER_MARK 64

struct _PlxTimelineStore
{
  guint                n_templates;  /* K x 3, indexed k * 3 + pass */
  PlxTimelineTemplate *templates;
  PlxPlanTask         *tasks;        /* the templates' tasks, one block */
  double               send_s, send_bytes;
  GArray              *passes;       /* PlxTimelinePassRecord, in scheduled order */
  GArray              *pass_first;   /* guint32 per PLX_TIMELINE_PASSES_PER_MARK passes:
                                      * the index of the first one's first event */
  guint64              n_pass_events; /* events the pass records expand to */
  GArray              *whole;        /* PlxTimelineEvent: every event after the passes */
  PlxPlanLabels       *plan_labels;  /* a reference on the labels of the plan recorded */
};

/* Appends a pass record of `n_tasks` events (n_pass_events + n_tasks must not pass
 * PLX_TIMELINE_MAX_EVENTS). */
static inline void
plx_timeline_store_add_pass (PlxTimelineStore *st, const PlxTimelinePassRecord *rec, guint n_tasks)
{
  if (st->passes->len % PLX_TIMELINE_PASSES_PER_MARK == 0)
    {
      guint32 first = (guint32) st->n_pass_events;
      g_array_append_val (st->pass_first, first);
    }
  g_array_append_vals (st->passes, rec, 1);
  st->n_pass_events += n_tasks;
}

/* Keeps the plan's task labels alive as long as the timeline, whose events name them. */
static inline void
plx_timeline_store_keep_labels (PlxTimelineStore *st, const PlxPlan *plan)
{
  if (st->plan_labels == NULL)
    st->plan_labels = plx_plan_labels_ref (plan->labels);
}

/* Sets the timeline up to record passes of `plan`, room for `passes` of them. */
void plx_timeline_store_init_passes (PlxTimeline *timeline, const PlxPlan *plan, gsize passes);
