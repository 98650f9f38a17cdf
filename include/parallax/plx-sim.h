/* plx-sim.h: discrete-event execution of a plan under a pipeline schedule (DistSim,
 * Lu et al. 2023): per stage a compute stream and TP, pipeline and DP communication
 * streams, dependencies across stages, overlap where Megatron-LM and PyTorch DDP
 * overlap. Produces the Timeline and the MemoryTrace, and a Report. */
#pragma once

#include <glib.h>

#include "plx-plan.h"
#include "plx-report.h"
#include "plx-schedule.h"

G_BEGIN_DECLS

#define PLX_NO_MICRO_BATCH G_MAXUINT32
/* The most (micro-batch, stage, chunk) passes the event engine will simulate. */
#define PLX_SIM_MAX_PASSES 4000000
/* The most events a timeline records (expanded events: up to 56 MB as
 * PlxTimelineEvent, far less as the event engine stores them); the simulation goes
 * on without them. */
#define PLX_TIMELINE_MAX_EVENTS 1000000

typedef struct
{
  guint32     rank;        /* pipeline stage (its representative GPU) */
  guint8      stream;      /* PlxStream */
  guint8      kind;        /* PlxTaskKind */
  guint16     chunk;
  guint32     micro_batch; /* PLX_NO_MICRO_BATCH for once-per-step work */
  const char *label;       /* static, in the timeline's labels or its plan's (kept with it) */
  double      start_s;
  double      end_s;
  double      flops;
  double      bytes;
} PlxTimelineEvent;

/* How a timeline holds its events (plx-timeline.c): a pass of the event engine is one
 * small record expanded from the plan's task list on reading; other events are kept
 * whole. Private: read the events with the functions below. */
typedef struct _PlxTimelineStore PlxTimelineStore;

typedef struct
{
  guint   n_ranks;
  double  step_time_s;
  guint64 dropped;         /* events past PLX_TIMELINE_MAX_EVENTS, not recorded */
  double  recorded_until_s; /* with dropped > 0: the first unrecorded event's start */
  gboolean per_device;     /* ranks are devices of a program (plx-ir-timeline.h), not stages */
  GStringChunk *labels;    /* the events' labels when the timeline owns them (or NULL:
                            * static or the plan's, which the timeline keeps) */
  PlxTimelineStore *store; /* the events, in the order they were scheduled */
} PlxTimeline;

/* Reads the events in order; a pass is expanded task by task as the engine laid it
 * out. The timeline must not change while an iterator is in use. */
typedef struct
{
  const PlxTimeline *timeline;
  guint64 index;           /* of the event the next call returns */
  gsize   record;          /* private: the pass record and the task in it reached, */
  guint   task;
  double  t;               /* and where that task starts */
} PlxTimelineIter;

typedef struct
{
  double time_s;
  double activation_bytes; /* after the change at time_s */
} PlxMemorySample;

/* How a trace holds its samples (plx-memory-trace.c): the event engine's as one byte a
 * pass, plus the pass's start when it cannot be recomputed, expanded on reading; a
 * program's (plx-ir-sim.c) whole. Private: read the samples with the functions below. */
typedef struct _PlxMemoryTraceStore PlxMemoryTraceStore;

typedef struct
{
  guint    n_ranks;
  double  *static_bytes;     /* n_ranks x PLX_N_MEM: weights, gradients, optimizer, (0), other */
  double  *peak_activation_bytes; /* n_ranks */
  double  *peak_time_s;      /* n_ranks: when the peak was first reached */
  gboolean per_device;       /* ranks are devices of a program, not stages */
  PlxMemoryTraceStore *store; /* each rank's samples, time-ordered */
} PlxMemoryTrace;

/* Reads one rank's samples in order. The trace must not change while it is in use. */
typedef struct
{
  const PlxMemoryTrace *trace;
  guint   rank;
  guint64 index;           /* of the sample the next call returns */
  gsize   pass, start;     /* private: passes begun and recorded starts read, */
  guint   effect, change, n_changes; /* the pass's effect and its changes returned, */
  double  start_s, end_s, free_s, act; /* its times, the stage's free time, the sum */
} PlxMemoryTraceIter;

typedef struct
{
  guint64 passes;          /* F/B/W passes scheduled */
  guint64 events;          /* everything scheduled: passes, sends, buckets, optimizer */
  guint64 timeline_events; /* recorded in the timeline */
} PlxSimStats;

/* Runs `plan` under `order` (which must pass plx_schedule_order_check). Timeline and
 * trace are optional (NULL: not recorded, faster). */
gboolean plx_sim_run (const PlxPlan          *plan,
                      const PlxScheduleOrder *order,
                      PlxReport              *report,
                      PlxTimeline           **timeline,
                      PlxMemoryTrace        **trace,
                      PlxSimStats            *stats,
                      GError                **error);

/* Whether a resolved strategy's (micro-batch, stage, chunk) passes are more than
 * PLX_SIM_MAX_PASSES, which the event engine refuses. */
gboolean plx_sim_too_many_passes (const PlxStrategy *strategy);

/* What the event engine runs for a resolved scenario: its schedule, built or loaded
 * (a file with W entries splits the weight gradients off), and the plan lowered for
 * it. Errors on an unresolved strategy or more than PLX_SIM_MAX_PASSES passes. */
gboolean plx_sim_prepare (const PlxModel     *model,
                          const PlxCluster   *cluster,
                          const PlxStrategy  *strategy,
                          PlxPlan           **plan,
                          PlxScheduleOrder  **order,
                          GError            **error);
/* plx_report_check on a simulator's report; when it fails, the timeline and trace
 * (either may be NULL) are freed and cleared. */
gboolean plx_sim_check_report (const PlxReport   *report,
                               const PlxStrategy *strategy,
                               PlxTimeline      **timeline,
                               PlxMemoryTrace   **trace,
                               GError           **error);
/* The whole event engine for a resolved scenario: lower, build or load the schedule,
 * simulate. */
gboolean plx_sim_run_scenario (const PlxModel    *model,
                               const PlxCluster  *cluster,
                               const PlxStrategy *strategy,
                               PlxReport         *report,
                               PlxPlan          **plan,
                               PlxTimeline      **timeline,
                               PlxMemoryTrace   **trace,
                               GError           **error);

/* An empty timeline of `n_ranks` rows lasting `step_time_s`; events are added whole
 * with plx_timeline_append (the event engine adds passes compactly). */
PlxTimeline *plx_timeline_new (guint n_ranks, double step_time_s);
/* Adds an event after the others; past PLX_TIMELINE_MAX_EVENTS it is counted in
 * dropped instead. The label must outlive the timeline (static, interned or in
 * tl->labels). */
void     plx_timeline_append (PlxTimeline *timeline, const PlxTimelineEvent *event);
guint64  plx_timeline_n_events (const PlxTimeline *timeline);
/* The event at `index` (in scheduled order), FALSE past the end. */
gboolean plx_timeline_get_event (const PlxTimeline *timeline, guint64 index, PlxTimelineEvent *out);
void     plx_timeline_iter_init (PlxTimelineIter *iter, const PlxTimeline *timeline);
/* The next event, FALSE at the end; iter->index - 1 is the returned event's index. */
gboolean plx_timeline_iter_next (PlxTimelineIter *iter, PlxTimelineEvent *out);
/* One pass of the event engine, as an iterator reaches it: its tasks are the next
 * n_tasks events, all on `rank`, laid out back to back from start_s exactly as
 * plx_timeline_iter_next lays them out (t = start_s; task j starts at t and ends at
 * t + duration_s; then t += duration_s). A reader doing that arithmetic itself can
 * take the pass whole instead of an event per task (the timeline chart's layout). */
typedef struct
{
  const PlxPlanTask *tasks;
  guint    n_tasks;
  guint32  rank;
  guint16  chunk;
  guint32  micro_batch;
  guint64  first_event;    /* index of its first task's event */
  double   start_s;
} PlxTimelinePass;

/* TRUE when the next event is the first task of a pass (with tasks), which it fills
 * in; the events the iterator returns do not change. */
gboolean plx_timeline_iter_peek_pass (PlxTimelineIter *iter, PlxTimelinePass *pass);
/* Moves past the tasks of the pass peek_pass gave; its send, if any, comes next. */
void     plx_timeline_iter_skip_pass (PlxTimelineIter *iter, const PlxTimelinePass *pass);
/* Task j of the pass as its event (index pass->first_event + j), starting at
 * `start_s` (where the arithmetic above puts it). */
void     plx_timeline_pass_event (const PlxTimelinePass *pass, guint j, double start_s, PlxTimelineEvent *out);
/* The events rank by rank, each rank's in scheduled order, for a reader that takes
 * one rank at a time (the timeline chart's layout, whose per-column sums then need
 * one rank's rows, not all of them). Item j of a rank is a pass (TRUE: *pass as
 * peek_pass gives it, n_tasks possibly 0, and when *has_send its send in *event at
 * *event_index) or another event (FALSE: *event at *event_index), for ranks below
 * n_ranks (events of others are left out). 8 bytes an item. */
typedef struct _PlxTimelineByRank PlxTimelineByRank;
PlxTimelineByRank *plx_timeline_by_rank_new (const PlxTimeline *timeline, guint n_ranks);
guint    plx_timeline_by_rank_n_items (const PlxTimelineByRank *by_rank, guint rank);
gboolean plx_timeline_by_rank_item (const PlxTimelineByRank *by_rank, guint rank, guint j, PlxTimelinePass *pass,
                                    gboolean *has_send, PlxTimelineEvent *event, guint64 *event_index);
void     plx_timeline_by_rank_free (PlxTimelineByRank *by_rank);
/* Bytes the timeline holds for its events (records, templates, indices). */
gsize    plx_timeline_get_size (const PlxTimeline *timeline);
void plx_timeline_free (PlxTimeline *timeline);
/* An empty trace of `n_ranks` ranks (static bytes and peaks 0) whose samples are kept
 * whole, added with plx_memory_trace_append (the event engine adds passes compactly). */
PlxMemoryTrace *plx_memory_trace_new (guint n_ranks);
/* Adds a sample after the rank's others (a trace the event engine made is not
 * appended to). */
void     plx_memory_trace_append (PlxMemoryTrace *trace, guint rank, const PlxMemorySample *sample);
guint64  plx_memory_trace_n_samples (const PlxMemoryTrace *trace, guint rank);
void     plx_memory_trace_iter_init (PlxMemoryTraceIter *iter, const PlxMemoryTrace *trace, guint rank);
/* The rank's next sample, FALSE at the end. */
gboolean plx_memory_trace_iter_next (PlxMemoryTraceIter *iter, PlxMemorySample *out);
/* Bytes the trace holds for its samples (pass codes, starts, effects, whole samples). */
gsize    plx_memory_trace_get_size (const PlxMemoryTrace *trace);
void plx_memory_trace_free (PlxMemoryTrace *trace);

/* The most events a Chrome trace holds: track names (six a stage), timeline events
 * and memory samples (about 200 bytes each: 400 MB, 15 s to write). */
#define PLX_TRACE_MAX_EVENTS 2000000

/* Chrome trace-event JSON (Perfetto, chrome://tracing): one process per stage, one
 * thread per stream, activation memory as a counter track. Written atomically. More
 * than PLX_TRACE_MAX_EVENTS events is an error, and nothing is written. */
gboolean plx_timeline_write_chrome_trace (const PlxTimeline    *timeline,
                                          const PlxMemoryTrace *trace,
                                          const char           *path,
                                          GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxTimeline, plx_timeline_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxMemoryTrace, plx_memory_trace_free)

G_END_DECLS
