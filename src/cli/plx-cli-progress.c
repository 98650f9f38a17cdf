/* plx-cli-progress.c: progress lines and SIGINT for parallax-cli's long runs.
 *
 * SIGINT is caught with GLib's unix signal source, on a main context of its own
 * iterated by a helper thread: the search runs on the calling thread and its workers,
 * and the handler only cancels a GCancellable, which the search checks between
 * items - nothing is done inside the signal handler itself. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <glib-unix.h>

#include "base/plx-output.h"
#include "parallax/plx-search.h"
#include "plx-cli-progress.h"

#define MIN_INTERVAL_US (G_USEC_PER_SEC / 4)   /* at most four redraws a second */

struct _PlxCliProgress
{
  char         *what;
  gboolean      tty;        /* stderr is a terminal: one line, redrawn */
  gboolean      shown;      /* progress is drawn at all */
  gint64        started_us;
  gint64        drawn_us;   /* the last draw, 0: none yet */
  gboolean      line_open;  /* a redrawn line waits for its newline */
  gboolean      done;       /* 100 % drawn */
  gboolean      resimulating; /* the search's second phase was said */
  GCancellable *cancellable;
  gint          signals;    /* SIGINTs received (atomic) */
  GMainContext *context;
  gint          stop;       /* the watching thread should end (atomic) */
  GSource      *source;
  GThread      *thread;
};

static gboolean
on_sigint (gpointer data)
{
  PlxCliProgress *p = data;

  if (g_atomic_int_add (&p->signals, 1) > 0)
    {
      /* A second Ctrl+C: the user will not wait for the items running to end. The
       * files a signal would remove (temporaries, `--csv -`'s private folder) go
       * first, as _exit runs no cleanup. */
      static const char msg[] = "\nparallax-cli: interrupted\n";
      plx_output_remove_now ();
      if (write (STDERR_FILENO, msg, sizeof msg - 1) < 0)
        {
          /* nothing more to tell */
        }
      _exit (130);
    }
  /* Said at once, so the user knows the key was seen while the runs in progress end
   * (and so that a second Ctrl+C can follow it: GLib folds two SIGINTs that arrive
   * before its source dispatches into one). The newline ends a redrawn progress line. */
  fputs ("\nparallax-cli: stopping after the runs in progress (Ctrl+C again to stop at once)\n", stderr);
  fflush (stderr);
  g_cancellable_cancel (p->cancellable);
  return G_SOURCE_CONTINUE;
}

static gpointer
watch_signals (gpointer data)
{
  PlxCliProgress *p = data;

  /* Not a GMainLoop: a quit before its run starts would be lost. */
  while (!g_atomic_int_get (&p->stop))
    g_main_context_iteration (p->context, TRUE);
  return NULL;
}

PlxCliProgress *
plx_cli_progress_new (const char *what,
                      gboolean    forced)
{
  PlxCliProgress *p = g_new0 (PlxCliProgress, 1);

  p->what = g_strdup (what);
  p->tty = isatty (STDERR_FILENO);
  p->shown = p->tty || forced;
  p->started_us = g_get_monotonic_time ();
  p->cancellable = g_cancellable_new ();
  p->context = g_main_context_new ();
  p->source = g_unix_signal_source_new (SIGINT);
  g_source_set_callback (p->source, on_sigint, p, NULL);
  g_source_attach (p->source, p->context);
  p->thread = g_thread_new ("plx-sigint", watch_signals, p);
  return p;
}

GCancellable *
plx_cli_progress_cancellable (PlxCliProgress *progress)
{
  return progress->cancellable;
}

gboolean
plx_cli_progress_interrupted (PlxCliProgress *progress)
{
  return g_atomic_int_get (&progress->signals) > 0;
}

void
plx_cli_progress_update (double   fraction,
                         gpointer data)
{
  PlxCliProgress *p = data;
  gint64 now = g_get_monotonic_time ();
  gint64 interval = p->tty ? MIN_INTERVAL_US : G_USEC_PER_SEC;

  /* The end is drawn once (the last workers finishing report it again and again);
   * the rest at most once an interval, the first after one has passed. */
  if (!p->shown || p->done || (fraction < 1.0 && now - MAX (p->drawn_us, p->started_us) < interval))
    return;
  p->done = fraction >= 1.0;
  p->drawn_us = now;
  fprintf (stderr, "%s%s: %3.0f %%, %.1f s%s", p->tty ? "\r" : "", p->what, CLAMP (fraction, 0.0, 1.0) * 100.0,
           (now - p->started_us) / (double) G_USEC_PER_SEC, p->tty ? "\033[K" : "\n");
  p->line_open = p->tty;
  fflush (stderr);
}

void
plx_cli_progress_search (PlxSearchPhase phase,
                         double         fraction,
                         gpointer       data)
{
  PlxCliProgress *p = data;

  if (phase == PLX_SEARCH_SCREENING)
    {
      plx_cli_progress_update (fraction, data);
      return;
    }
  /* Said once, as the phase starts: the best's event-engine runs take seconds on a
   * deep pipeline, and a Ctrl+C now stops after the one in progress. */
  if (!p->shown || p->resimulating)
    return;
  p->resimulating = TRUE;
  fprintf (stderr, "%s%s: re-simulating the best with the event engine, %.1f s%s", p->tty ? "\r" : "", p->what,
           (g_get_monotonic_time () - p->started_us) / (double) G_USEC_PER_SEC, p->tty ? "\033[K" : "\n");
  p->line_open = p->tty;
  fflush (stderr);
}

void
plx_cli_progress_free (PlxCliProgress *progress)
{
  if (progress == NULL)
    return;
  if (progress->line_open)
    fputs ("\r\033[K", stderr);
  g_atomic_int_set (&progress->stop, 1);
  g_main_context_wakeup (progress->context);
  g_thread_join (progress->thread);
  /* The last source on SIGINT gone, GLib gives the signal its default again. */
  g_source_destroy (progress->source);
  g_source_unref (progress->source);
  g_main_context_unref (progress->context);
  g_object_unref (progress->cancellable);
  g_free (progress->what);
  g_free (progress);
}
