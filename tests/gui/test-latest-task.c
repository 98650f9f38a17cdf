/* The pages' latest-only GTask plumbing (plx-latest-task.h): an answer counts only
 * when no newer request came after its start; a superseded job is cancelled and its
 * answer freed unread; Cancel alone keeps the answer. No display needed. */
#include <string.h>

#include "plx-latest-task.h"

/* A gate the jobs wait at until the test opens it, so answers come in a known order. */
static GMutex lock;
static GCond opened;
static gboolean open_gate;
static gint freed;   /* answers freed, atomic */

typedef struct
{
  PlxLatestTask *latest;
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
start (Page *page, GObject *source, guint value)
{
  plx_latest_task_start (page->latest, source, "[test] gated", g_memdup2 (&value, sizeof value), g_free, gated_job,
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

static GObject *
page_object (Page *page, PlxLatestTask *latest)
{
  GObject *o = g_object_new (G_TYPE_OBJECT, NULL);

  memset (page, 0, sizeof *page);
  page->latest = latest;
  plx_latest_task_init (latest);
  g_object_set_data (o, "page", page);
  set_gate (FALSE);
  g_atomic_int_set (&freed, 0);
  return o;
}

/* Two requests: the first job, superseded, is cancelled and its answer dropped (freed
 * by its task, never read); only the second's counts. */
static void
test_newest_counts (void)
{
  PlxLatestTask latest;
  Page page;
  g_autoptr (GObject) o = page_object (&page, &latest);

  start (&page, o, 1);
  g_assert_true (plx_latest_task_is_running (&latest));
  plx_latest_task_supersede (&latest);
  start (&page, o, 2);
  set_gate (TRUE);
  wait_answers (&page, 2);
  g_assert_cmpuint (page.latest_of, ==, 2);
  g_assert_no_error (page.error);
  /* The second's answer was read (and freed by on_done's g_autofree, not answer_free);
   * the first was cancelled before it answered, so nothing else was made. */
  g_assert_cmpint (g_atomic_int_get (&freed), ==, 0);
  plx_latest_task_clear (&latest);
}

/* A superseded job that had already answered: the answer is freed unread. */
static void
test_stale_answer_freed (void)
{
  PlxLatestTask latest;
  Page page;
  g_autoptr (GObject) o = page_object (&page, &latest);

  set_gate (TRUE);
  start (&page, o, 7);
  /* Let the thread answer before the request goes stale: the cancel then comes late. */
  while (!g_main_context_pending (NULL))
    g_usleep (1000);
  plx_latest_task_supersede (&latest);
  wait_answers (&page, 1);
  g_assert_cmpuint (page.latest_of, ==, 0);
  /* The task's last reference may be the worker's, dropped a moment later. */
  for (guint i = 0; i < 5000 && g_atomic_int_get (&freed) == 0; i++)
    g_usleep (1000);
  g_assert_cmpint (g_atomic_int_get (&freed), ==, 1);
  plx_latest_task_clear (&latest);
}

/* Cancel without a newer request: the answer still counts, as the cancel. */
static void
test_cancel_keeps_answer (void)
{
  PlxLatestTask latest;
  Page page;
  g_autoptr (GObject) o = page_object (&page, &latest);

  start (&page, o, 3);
  plx_latest_task_cancel (&latest);
  wait_answers (&page, 1);
  g_assert_cmpuint (page.latest_of, ==, 0);
  g_assert_error (page.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&page.error);
  plx_latest_task_clear (&latest);
}

/* Clear (a page's dispose) makes what still runs stale. */
static void
test_clear_drops (void)
{
  PlxLatestTask latest;
  Page page;
  g_autoptr (GObject) o = page_object (&page, &latest);

  start (&page, o, 4);
  plx_latest_task_clear (&latest);
  set_gate (TRUE);
  wait_answers (&page, 1);
  g_assert_cmpuint (page.latest_of, ==, 0);
  g_assert_no_error (page.error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gui/latest-task/newest-counts", test_newest_counts);
  g_test_add_func ("/gui/latest-task/stale-answer-freed", test_stale_answer_freed);
  g_test_add_func ("/gui/latest-task/cancel-keeps-answer", test_cancel_keeps_answer);
  g_test_add_func ("/gui/latest-task/clear-drops", test_clear_drops);
  return g_test_run ();
}
