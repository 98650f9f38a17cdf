/* plx-engine.h: computes scenarios off the UI thread, on one worker thread of its own.
 * Each compute() replaces the request before it, so dragging a slider never queues up
 * work and the UI thread only draws. */
#pragma once

#include <gio/gio.h>

#include "plx-result.h"
#include "plx-timeline-chart.h"

G_BEGIN_DECLS

#define PLX_TYPE_ENGINE (plx_engine_get_type ())
G_DECLARE_FINAL_TYPE (PlxEngine, plx_engine, PLX, ENGINE, GObject)

PlxEngine *plx_engine_new (void);
/* Computes a copy of `scenario`; "computed" (PlxResult *) or "failed" (message)
 * follows on the main context, unless a newer compute() came first; with uncertain
 * cluster inputs, "sampled" (the same PlxResult *, its band set) after that. */
void       plx_engine_compute (PlxEngine  *self,
                               JsonNode   *scenario,
                               const char *base_dir,
                               const char *source);
/* The timeline chart's size, for the compute()s that follow: the worker builds the
 * timeline's layout of each result for it (the whole step), after handing the result
 * over, so the main thread shows the numbers and lays out the window meanwhile. The
 * height is the chart's when the result fits in memory, or when it does not (the
 * window then shows the fit advice above the charts); 0: none (the chart is not
 * shown, or zoomed, or its height in that case is not known yet). */
void       plx_engine_set_timeline_size (PlxEngine *self,
                                         int        width,
                                         int        height_fits,
                                         int        height_not_fits);
gboolean   plx_engine_is_busy (PlxEngine *self);
/* The result shown waits for its uncertainty band ("sampled" follows). */
gboolean   plx_engine_is_sampling (PlxEngine *self);
/* While a computation runs, waits up to `max_us` for it and emits its signal now
 * rather than from the next main-loop iteration. Returns whether it did. */
gboolean   plx_engine_deliver_within (PlxEngine *self,
                                      guint      max_us);
/* The layout the worker built for `result`, if it has exactly these options (the
 * chart's size, the default options, the window t0_s..t1_s), waiting while the worker
 * still builds it; NULL at once otherwise (the caller builds it). Transfer full: one
 * taker. */
PlxTimelineLayout *plx_result_take_layout (PlxResult *result,
                                           double     width,
                                           double     height,
                                           double     t0_s,
                                           double     t1_s);
/* Computes synchronously in the calling thread (for tests and the CLI-equal check). */
PlxResult *plx_engine_compute_sync (JsonNode   *scenario,
                                    const char *base_dir,
                                    const char *source,
                                    GError    **error);

G_END_DECLS
