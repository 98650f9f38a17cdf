/* The pages' latest-only GTask plumbing (plx-latest-task.h): an answer counts only
 * when no newer request came after its start; a superseded job is cancelled and its
 * answer freed unread; Cancel alone keeps the answer. No display needed. */
#include "plx-latest-task.h"

/* A gate the jobs wait at until the test opens it, so answers come in a known order. */
static GMutex lock;
static GCond opened;
static gboolean open_gate;
static gint freed;   /* answers freed, atomic */

/* The fixture: a page's helper, its source object and what its `done` saw. */
typedef struct
{
  PlxLatestTask  task;
  PlxLatestTask *latest;
  GObject       *o;
  guint          answers;     /* done calls */
  guint          latest_of;   /* the value of the answer that counted, 0: none */
  GError        *error;       /* of the answer that counted */
} Page;

static void
answer_free (gpointer p)
{
  g_atomic_int_inc (&freed);
  g_free (p);
}

/* Waits at the gate (or for the cancel), then answers the number it was given. */
static void
gated_job (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  g_mutex_lock (&lock);
  while (!open_gate && !g_cancellable_is_cancelled (cancellable))
    g_cond_wait_until (&opened, &lock, g_get_monotonic_time () + 5 * G_TIME_SPAN_MILLISECOND);
  g_mutex_unlock (&lock);
  if (g_task_return_error_if_cancelled (task))
    return;
  g_task_return_pointer (task, g_memdup2 (data, sizeof (guint)), answer_free);
}

static void
on_done (GObject *source, GAsyncResult *res, gpointer data)
{
  Page *page = g_object_get_data (source, "page");
  g_autofree guint *value = NULL;

  page->answers++;
  if (!plx_latest_task_finish (page->latest, res))
    return;
  value = g_task_propagate_pointer (G_TASK (res), &page->error);
  page->latest_of = value != NULL ? *value : 0;
}

static void
start (Page *page, guint value)
{
  plx_latest_task_start (page->latest, page->o, "[test] gated", g_memdup2 (&value, sizeof value), g_free, gated_job,
                         on_done);
}

static void
set_gate (gboolean open)
{
  g_mutex_lock (&lock);
  open_gate = open;
  g_cond_broadcast (&opened);
  g_mutex_unlock (&lock);
}

static void
wait_answers (Page *page, guint n)
{
  while (page->answers < n)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (plx_latest_task_is_running (page->latest));
}

static void
page_setup (Page *page, gconstpointer data)
{
  page->latest = &page->task;
  plx_latest_task_init (page->latest);
  page->o = g_object_new (G_TYPE_OBJECT, NULL);
  g_object_set_data (page->o, "page", page);
  set_gate (FALSE);
  g_atomic_int_set (&freed, 0);
}

static void
page_teardown (Page *page, gconstpointer data)
{
  plx_latest_task_clear (page->latest);
  g_clear_error (&page->error);
  g_object_unref (page->o);
}

/* Two requests: the first job, superseded, is cancelled and its answer dropped (freed
 * by its task, never read); only the second's counts. */
static void
test_newest_counts (Page *page, gconstpointer data)
{
  start (page, 1);
  g_assert_true (plx_latest_task_is_running (page->latest));
  plx_latest_task_supersede (page->latest);
  start (page, 2);
  set_gate (TRUE);
  wait_answers (page, 2);
  g_assert_cmpuint (page->latest_of, ==, 2);
  g_assert_no_error (page->error);
  /* The second's answer was read (and freed by on_done's g_autofree, not answer_free);
   * the first was cancelled before it answered, so nothing else was made. */
  g_assert_cmpint (g_atomic_int_get (&freed), ==, 0);
}

/* A superseded job that had already answered: the answer is freed unread. */
static void
test_stale_answer_freed (Page *page, gconstpointer data)
{
  set_gate (TRUE);
  start (page, 7);
  /* Let the thread answer before the request goes stale: the cancel then comes late. */
  while (!g_main_context_pending (NULL))
    g_usleep (1000);
  plx_latest_task_supersede (page->latest);
  wait_answers (page, 1);
  g_assert_cmpuint (page->latest_of, ==, 0);
  /* The task's last reference may be the worker's, dropped a moment later. */
  for (guint i = 0; i < 5000 && g_atomic_int_get (&freed) == 0; i++)
    g_usleep (1000);
  g_assert_cmpint (g_atomic_int_get (&freed), ==, 1);
}

/* Cancel without a newer request: the answer still counts, as the cancel. */
static void
test_cancel_keeps_answer (Page *page, gconstpointer data)
{
  start (page, 3);
  plx_latest_task_cancel (page->latest);
  wait_answers (page, 1);
  g_assert_cmpuint (page->latest_of, ==, 0);
  g_assert_error (page->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* Clear (a page's dispose) makes what still runs stale. */
static void
test_clear_drops (Page *page, gconstpointer data)
{
  start (page, 4);
  plx_latest_task_clear (page->latest);
  set_gate (TRUE);
  wait_answers (page, 1);
  g_assert_cmpuint (page->latest_of, ==, 0);
  g_assert_no_error (page->error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/gui/latest-task/newest-counts", Page, NULL, page_setup, test_newest_counts, page_teardown);
  g_test_add ("/gui/latest-task/stale-answer-freed", Page, NULL, page_setup, test_stale_answer_freed, page_teardown);
  g_test_add ("/gui/latest-task/cancel-keeps-answer", Page, NULL, page_setup, test_cancel_keeps_answer,
              page_teardown);
  g_test_add ("/gui/latest-task/clear-drops", Page, NULL, page_setup, test_clear_drops, page_teardown);
  return g_test_run ();
}
