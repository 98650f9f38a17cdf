/* plx-latest-task.c: the latest-only GTask plumbing of the window's pages
 * (plx-latest-task.h). Each task carries the generation it was started in; an answer
 * whose generation is not the newest is stale. */
#include "plx-latest-task.h"

static GQuark
generation_quark (void)
{
  return g_quark_from_static_string ("plx-latest-task-generation");
}

void
plx_latest_task_init (PlxLatestTask *latest)
{
  latest->generation = 0;
  latest->running = 0;
  latest->cancellable = NULL;
}

void
plx_latest_task_clear (PlxLatestTask *latest)
{
  plx_latest_task_supersede (latest);
  g_clear_object (&latest->cancellable);
}

void
plx_latest_task_start (PlxLatestTask      *latest,
                       gpointer            source,
                       const char         *name,
                       gpointer            data,
                       GDestroyNotify      data_free,
                       GTaskThreadFunc     func,
                       GAsyncReadyCallback done)
{
  g_autoptr (GTask) task = NULL;

  g_clear_object (&latest->cancellable);
  latest->cancellable = g_cancellable_new ();
  task = g_task_new (source, latest->cancellable, done, NULL);
  g_task_set_task_data (task, data, data_free);
  if (name != NULL)
    g_task_set_name (task, name);
  g_object_set_qdata (G_OBJECT (task), generation_quark (), GUINT_TO_POINTER (latest->generation));
  latest->running++;
  g_task_run_in_thread (task, func);
}

void
plx_latest_task_supersede (PlxLatestTask *latest)
{
  latest->generation++;
  if (latest->cancellable != NULL)
    g_cancellable_cancel (latest->cancellable);
}

void
plx_latest_task_cancel (PlxLatestTask *latest)
{
  if (latest->running > 0 && latest->cancellable != NULL)
    g_cancellable_cancel (latest->cancellable);
}

gboolean
plx_latest_task_finish (PlxLatestTask *latest,
                        GAsyncResult  *result)
{
  guint generation = GPOINTER_TO_UINT (g_object_get_qdata (G_OBJECT (result), generation_quark ()));

  g_return_val_if_fail (latest->running > 0, FALSE);
  latest->running--;
  return generation == latest->generation;
}

gboolean
plx_latest_task_is_running (const PlxLatestTask *latest)
{
  return latest->running > 0;
}
