/* plx-latest-task.h: a page's work on a GTask thread of which only the newest
 * request's answer counts (DESIGN.md: a newer slider value cancels the older
 * computation; the UI thread only draws). The Search, Graph, Calibration and
 * Sensitivity pages start their jobs through it. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct
{
  guint         generation;   /* of the newest request */
  guint         running;      /* jobs started whose answer has not come back */
  GCancellable *cancellable;  /* the newest job's */
} PlxLatestTask;

void     plx_latest_task_init      (PlxLatestTask *latest);
/* For dispose: what still runs is superseded, so its answer is dropped. */
void     plx_latest_task_clear     (PlxLatestTask *latest);
/* Runs `func` on a thread with `data` (freed with `data_free` when the task goes) and
 * `done` on this thread when it returns. The job answers the request of now: a later
 * plx_latest_task_supersede makes its answer stale. */
void     plx_latest_task_start     (PlxLatestTask      *latest,
                                    gpointer            source,
                                    const char         *name,
                                    gpointer            data,
                                    GDestroyNotify      data_free,
                                    GTaskThreadFunc     func,
                                    GAsyncReadyCallback done);
/* A newer request: every job started before answers a stale one, and the newest is
 * cancelled (a thread function that looks at its GCancellable stops early). */
void     plx_latest_task_supersede (PlxLatestTask *latest);
/* Cancels the newest job without superseding it: its answer still counts (as
 * G_IO_ERROR_CANCELLED, or what it had when it did not look). */
void     plx_latest_task_cancel    (PlxLatestTask *latest);
/* For `done`, first: TRUE when `result` answers the newest request. A stale answer
 * is freed with its task when `done` does not propagate it. */
gboolean plx_latest_task_finish    (PlxLatestTask *latest,
                                    GAsyncResult  *result);
/* A job started has not answered yet (stale or not). */
gboolean plx_latest_task_is_running (const PlxLatestTask *latest);

G_END_DECLS
