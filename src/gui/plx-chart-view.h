/* plx-chart-view.h: a chart of src/render/ in the window. The timeline zooms with
 * ctrl+scroll and pinch, pans by dragging, and tells the event under the pointer in
 * a tooltip. */
#pragma once

#include <gtk/gtk.h>

#include "plx-result.h"

G_BEGIN_DECLS

typedef enum
{
  PLX_CHART_TIMELINE,
  PLX_CHART_MEMORY,
  PLX_CHART_COMPARE,
} PlxChartKind;

#define PLX_TYPE_CHART_VIEW (plx_chart_view_get_type ())
G_DECLARE_FINAL_TYPE (PlxChartView, plx_chart_view, PLX, CHART_VIEW, GtkDrawingArea)

GtkWidget *plx_chart_view_new (PlxChartKind kind);
void       plx_chart_view_set_result (PlxChartView *self,
                                      PlxResult    *result);
/* Compare: B is the current result, A the pinned one. */
void       plx_chart_view_set_pinned (PlxChartView *self,
                                      PlxResult    *pinned);
void       plx_chart_view_set_dark (PlxChartView *self,
                                    gboolean      dark);
/* The visible time window of the timeline; t1 <= t0 shows the whole step. */
void       plx_chart_view_set_window (PlxChartView *self,
                                      double        t0_s,
                                      double        t1_s);
void       plx_chart_view_get_window (PlxChartView *self,
                                      double       *t0_s,
                                      double       *t1_s);
/* Draws the chart as it is on screen into a file (PNG, SVG or PDF by extension). */
gboolean   plx_chart_view_export (PlxChartView *self,
                                  const char   *path,
                                  GError      **error);
/* Frames drawn, for tests and the benchmark. */
guint      plx_chart_view_get_n_draws (PlxChartView *self);
double     plx_chart_view_get_last_draw_ms (PlxChartView *self);
/* The tooltip text for the point (x, y) in widget pixels, or NULL. */
char      *plx_chart_view_describe_at (PlxChartView *self,
                                       double        x,
                                       double        y);

G_END_DECLS
