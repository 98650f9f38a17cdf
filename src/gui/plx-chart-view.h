/* plx-chart-view.h: a chart of src/render/ in the window. The timeline zooms with
 * ctrl+scroll, pinch and the keyboard (W/S, +/-), pans by dragging and with A/D or
 * the arrows, tells the event under the pointer in a tooltip, selects events by
 * click or with [ and ] (the details go to plx_chart_view_get_details, so they are
 * reachable without a pointer), and measures a time range with Shift+drag. */
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

#define PLX_TYPE_CHART_KIND (plx_chart_kind_get_type ())
GType plx_chart_kind_get_type (void);

#define PLX_TYPE_CHART_VIEW (plx_chart_view_get_type ())
G_DECLARE_FINAL_TYPE (PlxChartView, plx_chart_view, PLX, CHART_VIEW, GtkDrawingArea)

/* `kind` is the construct-only property "kind" ("timeline", "memory", "compare" in a
 * template). */
GtkWidget *plx_chart_view_new (PlxChartKind kind);
void       plx_chart_view_set_result (PlxChartView *self,
                                      PlxResult    *result);
/* An invalid strategy: the chart stays, greyed, with `message` over it (NULL clears). */
void       plx_chart_view_set_error (PlxChartView *self,
                                     const char   *message);
const char *plx_chart_view_get_error (PlxChartView *self);
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
/* Export with options: `width`/`height` <= 0 mean as on screen; `scale` 1 to 4;
 * `dark` -1 as on screen, 0 light, 1 dark; `title` replaces the chart's title (NULL
 * keeps it). */
gboolean   plx_chart_view_export_with (PlxChartView *self,
                                       const char   *path,
                                       double        width,
                                       double        height,
                                       double        scale,
                                       int           dark,
                                       const char   *title,
                                       GError      **error);
/* Frames drawn, for tests and the benchmark. */
guint      plx_chart_view_get_n_draws (PlxChartView *self);
double     plx_chart_view_get_last_draw_ms (PlxChartView *self);
/* The tooltip text for the point (x, y) in widget pixels, or NULL. */
char      *plx_chart_view_describe_at (PlxChartView *self,
                                       double        x,
                                       double        y);

/* Navigation of the timeline. Signals: "changed" (the result, the visible window,
 * the style or the error changed) and "details-changed" (the selection or the
 * measured range changed). */
PlxResult  *plx_chart_view_get_result (PlxChartView *self);
/* Not zoomed in: the timeline shows the whole step. */
gboolean    plx_chart_view_shows_whole_step (PlxChartView *self);
gboolean    plx_chart_view_get_dark (PlxChartView *self);
/* One step of the zoom buttons and keys, around the centre: the visible span is
 * multiplied by PLX_CHART_ZOOM_STEP (zoom in) or divided by it (zoom out). */
#define PLX_CHART_ZOOM_STEP (2.0 / 3.0)
void        plx_chart_view_zoom_in (PlxChartView *self);
void        plx_chart_view_zoom_out (PlxChartView *self);
/* Shows the whole step. */
void        plx_chart_view_reset_zoom (PlxChartView *self);
/* Moves the window, keeping its span, so it is centred on `t_s` (within the step). */
void        plx_chart_view_center_on (PlxChartView *self,
                                      double        t_s);
/* Where the plot's time axis starts and ends, in widget pixels. */
void        plx_chart_view_get_plot_bounds (PlxChartView *self,
                                            double       *x0,
                                            double       *x1);
/* The selected timeline event (index into the timeline's events), or -1. */
gint        plx_chart_view_get_selected (PlxChartView *self);
/* The measured range (Shift+drag); FALSE when there is none. */
gboolean    plx_chart_view_get_range (PlxChartView *self,
                                      double       *t0_s,
                                      double       *t1_s);
/* What is selected and measured, as Pango markup: one line each. */
const char *plx_chart_view_get_details (PlxChartView *self);

G_END_DECLS
