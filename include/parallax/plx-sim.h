/**
 * SECTION:plx-sim
 * @title: plx-sim.h
 * @short_description: discrete-event execution of a plan under a pipeline schedule
 *
 * Discrete-event execution of a plan under a pipeline schedule (DistSim, Lu et al.
 * 2023; docs/event-simulator.md): per stage a compute stream and TP, pipeline and DP communication
 * streams, dependencies across stages, overlap where Megatron-LM and PyTorch DDP
 * overlap. Produces the Timeline and the MemoryTrace, and a Report.
 */
#pragma once

#include <glib.h>

#include "plx-plan.h"
#include "plx-report.h"
#include "plx-strategy.h"

G_BEGIN_DECLS

/**
 * PLX_NO_MICRO_BATCH:
 *
 * #PlxTimelineEvent.micro_batch of once-per-step work.
 */
#define PLX_NO_MICRO_BATCH G_MAXUINT32
/**
 * PLX_SIM_MAX_PASSES:
 *
 * The most (micro-batch, stage, chunk) passes the event engine will simulate.
 */
#define PLX_SIM_MAX_PASSES 4000000
/**
 * PLX_TIMELINE_MAX_EVENTS:
 *
 * The most events a timeline records (expanded events: up to 56 MB as
 * #PlxTimelineEvent, far less as the event engine stores them); the simulation goes
 * on without them.
 */
#define PLX_TIMELINE_MAX_EVENTS 1000000

/**
 * PlxTimelineEvent:
 * @rank: pipeline stage (its representative GPU)
 * @stream: a #PlxStream
 * @kind: a #PlxTaskKind
 * @chunk: the model chunk
 * @micro_batch: %PLX_NO_MICRO_BATCH for once-per-step work
 * @label: static, in the timeline's labels or its plan's (kept with it)
 * @start_s: when it starts in the step
 * @end_s: when it ends
 * @flops: its FLOPs
 * @bytes: HBM traffic of compute, or bytes through a collective
 *
 * One task as it ran.
 */
typedef struct
{
  guint32     rank;
  guint8      stream;
  guint8      kind;
  guint16     chunk;
  guint32     micro_batch;
  const char *label;
  double      start_s;
  double      end_s;
  double      flops;
  double      bytes;
} PlxTimelineEvent;

/**
 * PlxTimelineStore:
 *
 * How a timeline holds its events (plx-timeline.c): a pass of the event engine is one
 * small record expanded from the plan's task list on reading; other events are kept
 * whole. Private: read the events with the functions below.
 */
typedef struct _PlxTimelineStore PlxTimelineStore;

/**
 * PlxTimeline:
 * @n_ranks: its rows
 * @step_time_s: the step it covers
 * @dropped: events past %PLX_TIMELINE_MAX_EVENTS, not recorded
 * @recorded_until_s: with @dropped > 0: the first unrecorded event's start
 * @per_device: ranks are devices of a program (plx-ir-timeline.h), not stages
 * @labels: (nullable): the events' labels when the timeline owns them (or %NULL:
 *   static or the plan's, which the timeline keeps)
 * @store: the events, in the order they were scheduled
 *
 * What ran where and when in one step.
 */
typedef struct
{
  guint   n_ranks;
  double  step_time_s;
  guint64 dropped;
  double  recorded_until_s;
  gboolean per_device;
  GStringChunk *labels;
  PlxTimelineStore *store;
} PlxTimeline;

/**
 * PlxTimelineIter:
 * @timeline: the timeline read
 * @index: of the event the next call returns
 * @record: private: the pass record reached
 * @task: private: the task in it reached
 * @t: private: where that task starts
 *
 * Reads the events in order; a pass is expanded task by task as the engine laid it
 * out. The timeline must not change while an iterator is in use.
 */
typedef struct
{
  const PlxTimeline *timeline;
  guint64 index;
  gsize   record;
  guint   task;
  double  t;
} PlxTimelineIter;

/**
 * PlxMemorySample:
 * @time_s: when the activations changed
 * @activation_bytes: after the change at @time_s
 *
 * One point of a rank's activation memory.
 */
typedef struct
{
  double time_s;
  double activation_bytes;
} PlxMemorySample;

/**
 * PlxMemoryTraceStore:
 *
 * How a trace holds its samples (plx-memory-trace.c): the event engine's as one byte
 * a pass, plus the pass's start when it cannot be recomputed, expanded on reading; a
 * program's (plx-ir-sim.c) whole. Private: read the samples with the functions below.
 */
typedef struct _PlxMemoryTraceStore PlxMemoryTraceStore;

/**
 * PlxMemoryTrace:
 * @n_ranks: its ranks
 * @static_bytes: n_ranks x PLX_N_MEM: weights, gradients, optimizer, (0), other
 * @peak_activation_bytes: n_ranks
 * @peak_time_s: n_ranks: when the peak was first reached
 * @per_device: ranks are devices of a program, not stages
 * @store: each rank's samples, time-ordered
 *
 * Each rank's memory over one step.
 */
typedef struct
{
  guint    n_ranks;
  double  *static_bytes;
  double  *peak_activation_bytes;
  double  *peak_time_s;
  gboolean per_device;
  PlxMemoryTraceStore *store;
} PlxMemoryTrace;

/**
 * PlxMemoryTraceIter:
 * @trace: the trace read
 * @rank: the rank read
 * @index: of the sample the next call returns
 * @pass: private: passes begun
 * @start: private: recorded starts read
 * @effect: private: the pass's effect
 * @change: private: its changes returned
 * @n_changes: private: its changes
 * @start_s: private: its start
 * @end_s: private: its end
 * @free_s: private: the stage's free time
 * @act: private: the sum
 *
 * Reads one rank's samples in order. The trace must not change while it is in use.
 */
typedef struct
{
  const PlxMemoryTrace *trace;
  guint   rank;
  guint64 index;
  gsize   pass, start;
  guint   effect, change, n_changes;
  double  start_s, end_s, free_s, act;
} PlxMemoryTraceIter;

/**
 * PlxSimStats:
 * @passes: F/B/W passes scheduled
 * @events: everything scheduled: passes, sends, buckets, optimizer
 * @timeline_events: recorded in the timeline
 *
 * What a simulation did.
 */
typedef struct
{
  guint64 passes;
  guint64 events;
  guint64 timeline_events;
} PlxSimStats;

/**
 * plx_sim_run:
 * @plan: a plan
 * @order: its schedule's order, which must pass plx_schedule_order_check()
 * @report: (out caller-allocates): the report
 * @timeline: (out) (optional) (transfer full): the timeline; %NULL: not recorded,
 *   faster
 * @trace: (out) (optional) (transfer full): the memory trace; %NULL: not recorded,
 *   faster
 * @stats: (out caller-allocates) (optional): what the simulation did, or %NULL
 * @error: return location for a #GError, or %NULL
 *
 * Runs @plan under @order.
 *
 * Returns: %TRUE on success; %FALSE with a %PLX_ERROR_INCONSISTENT error naming the
 *   stage and entry when the order deadlocks
 */
gboolean plx_sim_run (const PlxPlan          *plan,
                      const PlxScheduleOrder *order,
                      PlxReport              *report,
                      PlxTimeline           **timeline,
                      PlxMemoryTrace        **trace,
                      PlxSimStats            *stats,
                      GError                **error);

/**
 * plx_sim_too_many_passes:
 * @strategy: a resolved strategy
 *
 * Returns: whether the strategy's (micro-batch, stage, chunk) passes are more than
 *   %PLX_SIM_MAX_PASSES, which the event engine refuses
 */
gboolean plx_sim_too_many_passes (const PlxStrategy *strategy);

/**
 * plx_sim_prepare:
 * @model: the model
 * @cluster: the cluster
 * @strategy: a resolved strategy
 * @plan: (out) (transfer full): the plan
 * @order: (out) (transfer full): the schedule's order
 * @error: return location for a #GError, or %NULL
 *
 * Makes what the event engine runs for a resolved scenario: its schedule, built or
 * loaded (a file with W entries splits the weight gradients off), and the plan
 * lowered for it.
 *
 * Returns: %TRUE on success; %FALSE with @error set on an unresolved strategy or
 *   more than %PLX_SIM_MAX_PASSES passes (or a schedule file that does not load)
 */
gboolean plx_sim_prepare (const PlxModel     *model,
                          const PlxCluster   *cluster,
                          const PlxStrategy  *strategy,
                          PlxPlan           **plan,
                          PlxScheduleOrder  **order,
                          GError            **error);
/**
 * plx_sim_check_report:
 * @report: a simulator's report
 * @strategy: the strategy it ran, named in the error
 * @timeline: (inout) (optional) (nullable): its timeline
 * @trace: (inout) (optional) (nullable): its memory trace
 * @error: return location for a #GError, or %NULL
 *
 * Runs plx_report_check() on a simulator's report; when it fails, the timeline and
 * trace (either may be %NULL) are freed and cleared.
 *
 * Returns: the check's result
 */
gboolean plx_sim_check_report (const PlxReport   *report,
                               const PlxStrategy *strategy,
                               PlxTimeline      **timeline,
                               PlxMemoryTrace   **trace,
                               GError           **error);
/**
 * plx_sim_run_scenario:
 * @model: the model
 * @cluster: the cluster
 * @strategy: a resolved strategy
 * @report: (out caller-allocates): the report
 * @plan: (out) (optional) (transfer full): the plan, or %NULL
 * @timeline: (out) (optional) (transfer full): the timeline, or %NULL: not recorded
 * @trace: (out) (optional) (transfer full): the memory trace, or %NULL: not recorded
 * @error: return location for a #GError, or %NULL
 *
 * The whole event engine for a resolved scenario: lower, build or load the schedule,
 * simulate, check the report (plx_sim_prepare(), plx_sim_run(),
 * plx_sim_check_report()).
 *
 * Returns: %TRUE on success; %FALSE with the error of the step that failed
 */
gboolean plx_sim_run_scenario (const PlxModel    *model,
                               const PlxCluster  *cluster,
                               const PlxStrategy *strategy,
                               PlxReport         *report,
                               PlxPlan          **plan,
                               PlxTimeline      **timeline,
                               PlxMemoryTrace   **trace,
                               GError           **error);

/**
 * plx_timeline_new:
 * @n_ranks: its rows
 * @step_time_s: the step it covers
 *
 * Makes an empty timeline of @n_ranks rows lasting @step_time_s; events are added
 * whole with plx_timeline_append() (the event engine adds passes compactly).
 *
 * Returns: (transfer full): the timeline
 */
PlxTimeline *plx_timeline_new (guint n_ranks, double step_time_s);
/**
 * plx_timeline_append:
 * @timeline: a timeline
 * @event: the event, copied
 *
 * Adds an event after the others; past %PLX_TIMELINE_MAX_EVENTS it is counted in
 * dropped instead. The label must outlive the timeline (static, interned or in
 * tl->labels).
 */
void     plx_timeline_append (PlxTimeline *timeline, const PlxTimelineEvent *event);
/**
 * plx_timeline_n_events:
 * @timeline: a timeline
 *
 * Returns: the events recorded
 */
guint64  plx_timeline_n_events (const PlxTimeline *timeline);
/**
 * plx_timeline_get_event:
 * @timeline: a timeline
 * @index: an event's index, in scheduled order
 * @out: (out caller-allocates): the event
 *
 * Returns: %TRUE with the event at @index; %FALSE past the end
 */
gboolean plx_timeline_get_event (const PlxTimeline *timeline, guint64 index, PlxTimelineEvent *out);
/**
 * plx_timeline_iter_init:
 * @iter: (out caller-allocates): the iterator
 * @timeline: the timeline to read
 *
 * Sets @iter before the first event.
 */
void     plx_timeline_iter_init (PlxTimelineIter *iter, const PlxTimeline *timeline);
/**
 * plx_timeline_iter_next:
 * @iter: an iterator
 * @out: (out caller-allocates): the next event
 *
 * Reads the next event; iter->index - 1 is the returned event's index.
 *
 * Returns: %TRUE with an event; %FALSE at the end
 */
gboolean plx_timeline_iter_next (PlxTimelineIter *iter, PlxTimelineEvent *out);
/**
 * PlxTimelinePass:
 * @tasks: (array length=n_tasks): the plan's tasks of the pass
 * @n_tasks: the entries of @tasks
 * @rank: the rank every task runs on
 * @chunk: the model chunk
 * @micro_batch: the micro-batch
 * @first_event: index of its first task's event
 * @start_s: where its first task starts
 *
 * One pass of the event engine, as an iterator reaches it: its tasks are the next
 * n_tasks events, all on @rank, laid out back to back from @start_s exactly as
 * plx_timeline_iter_next() lays them out (t = start_s; task j starts at t and ends at
 * t + duration_s; then t += duration_s). A reader doing that arithmetic itself can
 * take the pass whole instead of an event per task (the timeline chart's layout).
 */
typedef struct
{
  const PlxPlanTask *tasks;
  guint    n_tasks;
  guint32  rank;
  guint16  chunk;
  guint32  micro_batch;
  guint64  first_event;
  double   start_s;
} PlxTimelinePass;

/**
 * plx_timeline_iter_peek_pass:
 * @iter: an iterator
 * @pass: (out caller-allocates): the pass
 *
 * Fills in @pass when the next event is the first task of a pass (with tasks); the
 * events the iterator returns do not change.
 *
 * Returns: whether the next event is the first task of a pass
 */
gboolean plx_timeline_iter_peek_pass (PlxTimelineIter *iter, PlxTimelinePass *pass);
/**
 * plx_timeline_iter_skip_pass:
 * @iter: an iterator
 * @pass: the pass plx_timeline_iter_peek_pass() gave
 *
 * Moves past the tasks of the pass; its send, if any, comes next.
 */
void     plx_timeline_iter_skip_pass (PlxTimelineIter *iter, const PlxTimelinePass *pass);
/**
 * plx_timeline_pass_event:
 * @pass: a pass
 * @j: a task's index in it
 * @start_s: where the arithmetic above puts it
 * @out: (out caller-allocates): the event
 *
 * Writes task @j of the pass as its event (index pass->first_event + j), starting at
 * @start_s.
 */
void     plx_timeline_pass_event (const PlxTimelinePass *pass, guint j, double start_s, PlxTimelineEvent *out);
/**
 * PlxTimelineByRank:
 *
 * The events rank by rank, each rank's in scheduled order, for a reader that takes
 * one rank at a time (the timeline chart's layout, whose per-column sums then need
 * one rank's rows, not all of them). 8 bytes an item. Opaque.
 */
typedef struct _PlxTimelineByRank PlxTimelineByRank;
/**
 * plx_timeline_by_rank_new:
 * @timeline: a timeline
 * @n_ranks: the ranks kept: those below it (events of others are left out)
 *
 * Returns: (transfer full): the events of @timeline rank by rank
 */
PlxTimelineByRank *plx_timeline_by_rank_new (const PlxTimeline *timeline, guint n_ranks);
/**
 * plx_timeline_by_rank_n_items:
 * @by_rank: the events rank by rank
 * @rank: a rank below its n_ranks
 *
 * Returns: the rank's items
 */
guint    plx_timeline_by_rank_n_items (const PlxTimelineByRank *by_rank, guint rank);
/**
 * plx_timeline_by_rank_item:
 * @by_rank: the events rank by rank
 * @rank: a rank below its n_ranks
 * @j: an item's index
 * @pass: (out caller-allocates): the pass, when the item is one
 * @has_send: (out): whether the pass has a send
 * @event: (out caller-allocates): the pass's send, or the event
 * @event_index: (out): @event's index
 *
 * Reads item @j of a rank: a pass (*@pass as plx_timeline_iter_peek_pass() gives it,
 * n_tasks possibly 0, and when *@has_send its send in *@event at *@event_index) or
 * another event (*@event at *@event_index).
 *
 * Returns: %TRUE for a pass, %FALSE for another event
 */
gboolean plx_timeline_by_rank_item (const PlxTimelineByRank *by_rank, guint rank, guint j, PlxTimelinePass *pass,
                                    gboolean *has_send, PlxTimelineEvent *event, guint64 *event_index);
/**
 * plx_timeline_by_rank_free:
 * @by_rank: (transfer full) (nullable): the events rank by rank
 *
 * Frees @by_rank.
 */
void     plx_timeline_by_rank_free (PlxTimelineByRank *by_rank);
/**
 * plx_timeline_get_size:
 * @timeline: a timeline
 *
 * Returns: bytes the timeline holds for its events (records, templates, indices)
 */
gsize    plx_timeline_get_size (const PlxTimeline *timeline);
/**
 * plx_timeline_free:
 * @timeline: (transfer full) (nullable): a timeline
 *
 * Frees @timeline.
 */
void plx_timeline_free (PlxTimeline *timeline);
/**
 * plx_memory_trace_new:
 * @n_ranks: its ranks
 *
 * Makes an empty trace of @n_ranks ranks (static bytes and peaks 0) whose samples are
 * kept whole, added with plx_memory_trace_append() (the event engine adds passes
 * compactly).
 *
 * Returns: (transfer full): the trace
 */
PlxMemoryTrace *plx_memory_trace_new (guint n_ranks);
/**
 * plx_memory_trace_append:
 * @trace: a trace from plx_memory_trace_new()
 * @rank: the rank
 * @sample: the sample, copied
 *
 * Adds a sample after the rank's others (a trace the event engine made is not
 * appended to).
 */
void     plx_memory_trace_append (PlxMemoryTrace *trace, guint rank, const PlxMemorySample *sample);
/**
 * plx_memory_trace_n_samples:
 * @trace: a trace
 * @rank: a rank
 *
 * Returns: the rank's samples
 */
guint64  plx_memory_trace_n_samples (const PlxMemoryTrace *trace, guint rank);
/**
 * plx_memory_trace_iter_init:
 * @iter: (out caller-allocates): the iterator
 * @trace: the trace to read
 * @rank: the rank to read
 *
 * Sets @iter before the rank's first sample.
 */
void     plx_memory_trace_iter_init (PlxMemoryTraceIter *iter, const PlxMemoryTrace *trace, guint rank);
/**
 * plx_memory_trace_iter_next:
 * @iter: an iterator
 * @out: (out caller-allocates): the sample
 *
 * Reads the rank's next sample.
 *
 * Returns: %TRUE with a sample; %FALSE at the end
 */
gboolean plx_memory_trace_iter_next (PlxMemoryTraceIter *iter, PlxMemorySample *out);
/**
 * plx_memory_trace_get_size:
 * @trace: a trace
 *
 * Returns: bytes the trace holds for its samples (pass codes, starts, effects, whole
 *   samples)
 */
gsize    plx_memory_trace_get_size (const PlxMemoryTrace *trace);
/**
 * plx_memory_trace_free:
 * @trace: (transfer full) (nullable): a trace
 *
 * Frees @trace.
 */
void plx_memory_trace_free (PlxMemoryTrace *trace);

/**
 * PLX_TRACE_MAX_EVENTS:
 *
 * The most events a Chrome trace holds: track names (six a stage), timeline events
 * and memory samples (about 200 bytes each: 400 MB, 15 s to write).
 */
#define PLX_TRACE_MAX_EVENTS 2000000

/**
 * plx_timeline_write_chrome_trace:
 * @timeline: a timeline
 * @trace: (nullable): its memory trace, or %NULL
 * @path: the file to write
 * @error: return location for a #GError, or %NULL
 *
 * Writes Chrome trace-event JSON (Perfetto, chrome://tracing): one process per
 * stage, one thread per stream, activation memory as a counter track. Written
 * atomically.
 *
 * Returns: %TRUE on success; %FALSE with @error set: more than
 *   %PLX_TRACE_MAX_EVENTS events is an error, and nothing is written
 */
gboolean plx_timeline_write_chrome_trace (const PlxTimeline    *timeline,
                                          const PlxMemoryTrace *trace,
                                          const char           *path,
                                          GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxTimeline, plx_timeline_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxMemoryTrace, plx_memory_trace_free)

G_END_DECLS
