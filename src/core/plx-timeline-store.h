/* plx-timeline-store.h: how a PlxTimeline holds its events (plx-timeline.c), for the
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
} PlxTimelineTemplate;

struct _PlxTimelineStore
{
  guint                pp;
  guint                n_templates;  /* K x 3, indexed k * 3 + pass */
  PlxTimelineTemplate *templates;
  PlxPlanTask         *tasks;        /* the templates' tasks, one block */
  double               send_s, send_bytes;
  GArray              *passes;       /* PlxTimelinePassRecord, in scheduled order */
  GArray              *pass_first;   /* guint32 per pass: the index of its first event */
  guint64              n_pass_events; /* events the pass records expand to */
  GArray              *whole;        /* PlxTimelineEvent: every event after the passes */
};

/* Sets the timeline up to record passes of `plan`, room for `passes` of them. */
void plx_timeline_store_init_passes (PlxTimeline *timeline, const PlxPlan *plan, gsize passes);
