/* plx-cli-progress.h: a long command's progress on stderr, and Ctrl+C (SIGINT) as a
 * clean stop (docs/cli.md, "Progress and interrupting"). */
#pragma once

#include <gio/gio.h>

#include "parallax/plx-search.h"

typedef struct _PlxCliProgress PlxCliProgress;

/* From here until plx_cli_progress_free, SIGINT cancels the returned progress's
 * cancellable instead of killing the process (a second one exits at once, 130).
 * Progress lines ("search: 42 % of 120,000 configurations, 3.1 s") go to stderr when
 * it is a terminal (one line redrawn) or `forced` (--progress: a line a second). */
PlxCliProgress *plx_cli_progress_new (const char *what,
                                      gboolean    forced);
GCancellable   *plx_cli_progress_cancellable (PlxCliProgress *progress);
/* `fraction` done (0..1); `data` is the PlxCliProgress. Draws at most four times a
 * second. */
void            plx_cli_progress_update (double   fraction,
                                         gpointer data);
/* A PlxSearchProgress: the screening as plx_cli_progress_update; the re-simulation
 * of the best said once as it starts ("search: re-simulating the best with the event
 * engine, 0.4 s"). */
void            plx_cli_progress_search (PlxSearchPhase phase,
                                         double         fraction,
                                         gpointer       data);
/* Whether SIGINT came. */
gboolean        plx_cli_progress_interrupted (PlxCliProgress *progress);
/* Clears the terminal line, gives SIGINT back its default. */
void            plx_cli_progress_free (PlxCliProgress *progress);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxCliProgress, plx_cli_progress_free)
