/* plx-reshard-page.h: the window's Reshard page (issue 14): one array's layouts
 * typed in, or the scenario's checkpoint moved to another TP x PP; the plan's steps
 * and memory per GPU beside the XLA-style baseline's (plx-reshard-chart.h), and its
 * totals. Planning takes well under a millisecond, so it runs on every change. */
#pragma once

#include <adwaita.h>

#include "plx-result.h"

G_BEGIN_DECLS

#define PLX_TYPE_RESHARD_PAGE (plx_reshard_page_get_type ())
G_DECLARE_FINAL_TYPE (PlxReshardPage, plx_reshard_page, PLX, RESHARD_PAGE, GtkBox)

GtkWidget  *plx_reshard_page_new (void);
/* The scenario whose cluster it plans on and whose model and strategy the
 * checkpoint mode moves; NULL while the scenario has an error. */
void        plx_reshard_page_set_scenario (PlxReshardPage *self,
                                           PlxResult      *result);
void        plx_reshard_page_set_dark (PlxReshardPage *self,
                                       gboolean        dark);
/* The chart as PNG, SVG or PDF: width x height (0: as on screen, at least 800 x
 * 500), `dark` 1 or 0 (-1: as on screen). */
gboolean    plx_reshard_page_export (PlxReshardPage *self,
                                     const char     *path,
                                     double          width,
                                     double          height,
                                     double          scale,
                                     int             dark,
                                     GError        **error);
/* A control by name: "mode-array", "mode-checkpoint", "shape", "dtype", "mesh",
 * "from", "to", "tp", "pp", "optimizer"; NULL for another name. */
GtkWidget  *plx_reshard_page_get_control (PlxReshardPage *self,
                                          const char     *name);
/* What it shows: the totals (plan and baseline; FALSE when nothing is planned), the
 * error of the input (NULL when valid) and the totals' labels' text. */
gboolean    plx_reshard_page_get_totals (PlxReshardPage *self,
                                         double         *time_s,
                                         double         *peak_bytes,
                                         double         *base_time_s,
                                         double         *base_peak_bytes);
const char *plx_reshard_page_get_error (PlxReshardPage *self);
const char *plx_reshard_page_get_totals_text (PlxReshardPage *self);

G_END_DECLS
