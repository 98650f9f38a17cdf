/* plx-timeline-pane.h: the timeline page: a toolbar (zoom buttons and the visible
 * window), an overview of the whole step with the visible window marked, the
 * timeline chart, and the details of the selected event and the measured range
 * below it, so everything the tooltip tells is reachable with the keyboard. */
#pragma once

#include <gtk/gtk.h>

#include "plx-chart-view.h"

G_BEGIN_DECLS

#define PLX_TYPE_TIMELINE_PANE (plx_timeline_pane_get_type ())
G_DECLARE_FINAL_TYPE (PlxTimelinePane, plx_timeline_pane, PLX, TIMELINE_PANE, GtkBox)

GtkWidget    *plx_timeline_pane_new (void);
/* The timeline chart inside: results, errors, style and export go to it. */
PlxChartView *plx_timeline_pane_get_chart (PlxTimelinePane *self);
/* The overview strip, and where its time axis (0 to the step time) starts and ends
 * in its own pixels. */
GtkWidget    *plx_timeline_pane_get_overview (PlxTimelinePane *self);
void          plx_timeline_pane_get_overview_bounds (PlxTimelinePane *self,
                                                     double          *x0,
                                                     double          *x1);
/* The text of the toolbar's window label: "0.000 s – 12.931 s, 12.9 s shown". */
const char   *plx_timeline_pane_get_window_text (PlxTimelinePane *self);

G_END_DECLS
