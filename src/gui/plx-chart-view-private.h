/* plx-chart-view-private.h: what the parts of the chart view share
 * (src/gui/plx-chart-view*.c).
 *
 *   plx-chart-view.c          the object, its state and its public setters and getters
 *   plx-chart-view-draw.c     drawing on screen (the chart, the navigation on top) and export
 *   plx-chart-view-input.c    zoom, pan, selection and measuring by pointer and keyboard
 *   plx-chart-view-details.c  what the tooltip and the details line say
 */
#pragma once

#include "plx-chart-view.h"
#include "plx-timeline-chart.h"

G_BEGIN_DECLS

struct _PlxChartView
{
  GtkDrawingArea     parent_instance;
  PlxChartKind       kind;
  PlxResult         *result;
  PlxResult         *pinned;
  gboolean           dark;
  double             t0, t1;         /* timeline window; t1 <= t0: whole step */
  double             drag_t0, drag_t1, zoom_t0, zoom_t1;
  PlxTimelineLayout *layout;         /* the last drawn, for hit tests */
  char              *error;          /* the strategy is invalid: greyed, with this on top */
  const char        *export_title;   /* during an export: the title asked for, or NULL */
  int                export_dark;    /* during an export: -1 as on screen, else 0 or 1 */
  guint              n_draws;
  double             last_draw_ms;

  /* Navigation. */
  gboolean           pointer_in;
  double             pointer_x, pointer_y;
  gboolean           measuring;      /* this drag began with Shift: it marks a range */
  gboolean           have_range;
  double             range_t0, range_t1;
  double            *range_busy;     /* per stage: compute stream's busy share of the range */
  guint              range_n;
  gint               selected;       /* timeline event, or -1 */
  guint              focus_rank;     /* the row [ and ] step through, by identity, */
  gint               focus_stream;   /* so it survives a new layout (-1: merged comm) */
  char              *details;
};

/* plx-chart-view.c */
void plx_chart_view_emit_details_changed (PlxChartView *self);
double plx_chart_view_step_time (PlxChartView *self);
void plx_chart_view_effective_window (PlxChartView *self, double *t0, double *t1);
PlxTimelineLayout *plx_chart_view_build_layout (PlxChartView *self, double width, double height);
const PlxTimelineLayout *plx_chart_view_ensure_layout (PlxChartView *self);

/* plx-chart-view-draw.c */
void plx_chart_view_draw_func (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data);

/* plx-chart-view-input.c */
double plx_chart_view_x_of_time (const PlxTimelineLayout *l, double t, double width);
gint plx_chart_view_row_of_event (const PlxTimelineLayout *l, const PlxTimelineEvent *ev);
gint plx_chart_view_row_at_y (const PlxTimelineLayout *l, double y01);
guint plx_chart_view_focus_row (PlxChartView *self, const PlxTimelineLayout *l);
const PlxTimelineEvent *plx_chart_view_event_at (PlxChartView *self, gint index, PlxTimelineEvent *buf);
void plx_chart_view_zoom (PlxChartView *self, double anchor, double factor, double from_t0, double from_t1);
void plx_chart_view_pan_by (PlxChartView *self, double shift);
void plx_chart_view_zoom_step (PlxChartView *self, gboolean in, double anchor);
void plx_chart_view_add_pointer_controllers (PlxChartView *self);
void plx_chart_view_add_timeline_controllers (PlxChartView *self);

/* plx-chart-view-details.c */
gboolean plx_chart_view_bar_at (const PlxTimelineLayout *l, double x, double y, PlxChartBar *bar);
gboolean plx_chart_view_on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip, PlxChartView *self);
void plx_chart_view_update_details (PlxChartView *self);

G_END_DECLS
