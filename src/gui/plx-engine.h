/* plx-engine.h: computes scenarios off the UI thread, on one worker thread of its own.
 * Each compute() replaces the request before it, so dragging a slider never queues up
 * work and the UI thread only draws. */
#pragma once

#include <gio/gio.h>

#include "plx-result.h"

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
gboolean   plx_engine_is_busy (PlxEngine *self);
/* The result shown waits for its uncertainty band ("sampled" follows). */
gboolean   plx_engine_is_sampling (PlxEngine *self);
/* While a computation runs, waits up to `max_us` for it and emits its signal now
 * rather than from the next main-loop iteration. Returns whether it did. */
gboolean   plx_engine_deliver_within (PlxEngine *self,
                                      guint      max_us);
/* Computes synchronously in the calling thread (for tests and the CLI-equal check). */
PlxResult *plx_engine_compute_sync (JsonNode   *scenario,
                                    const char *base_dir,
                                    const char *source,
                                    GError    **error);

G_END_DECLS
