#include <glib/gi18n-lib.h>
#include <math.h>

#include "plx-chart-view.h"
#include "plx-compare-chart.h"
#include "plx-memory-chart.h"
#include "plx-render-export.h"
#include "plx-timeline-chart.h"

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
  guint              n_draws;
  double             last_draw_ms;
};

G_DEFINE_FINAL_TYPE (PlxChartView, plx_chart_view, GTK_TYPE_DRAWING_AREA)

static void
invalidate (PlxChartView *self)
{
  g_clear_pointer (&self->layout, plx_timeline_layout_free);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static double
step_time (PlxChartView *self)
{
  return self->result != NULL && self->result->timeline != NULL ? self->result->timeline->step_time_s : 1.0;
}

static void
effective_window (PlxChartView *self, double *t0, double *t1)
{
  if (self->t1 > self->t0)
    {
      *t0 = self->t0;
      *t1 = self->t1;
    }
  else
    {
      *t0 = 0.0;
      *t1 = step_time (self);
    }
}

static void
draw_chart (PlxChartView *self, cairo_t *cr, double width, double height, gboolean keep_layout)
{
  PlxRenderStyle style;

  plx_render_style_init (&style, self->dark, 1.0);
  cairo_set_source_rgb (cr, style.background.r, style.background.g, style.background.b);
  cairo_paint (cr);
  if (self->result == NULL)
    return;

  switch (self->kind)
    {
    case PLX_CHART_MEMORY:
      {
        PlxMemoryOptions o;
        g_autoptr (PlxMemoryLayout) l = NULL;
        plx_memory_options_init (&o, width, height);
        o.capacity_bytes = (double) self->result->report.hbm_bytes;
        o.usable_bytes = (double) self->result->report.hbm_usable_bytes;
        o.step_time_s = self->result->report.step_time_s;
        o.title = _("Memory per GPU");
        l = plx_memory_layout_new (self->result->trace, &o);
        plx_memory_chart_render (l, &style, cr, width, height);
      }
      break;
    case PLX_CHART_COMPARE:
      if (self->pinned != NULL)
        {
          /* Named by their strategies: an edited scenario keeps its file's name. */
          g_autofree char *name_a = plx_strategy_describe (self->pinned->scenario->strategy);
          g_autofree char *name_b = plx_strategy_describe (self->result->scenario->strategy);
          PlxCompareSide a = { name_a, &self->pinned->report, self->pinned->timeline };
          PlxCompareSide b = { name_b, &self->result->report, self->result->timeline };
          g_autoptr (PlxCompareLayout) l = plx_compare_layout_new (&a, &b, width, height);
          plx_compare_chart_render (l, &style, cr, width, height);
        }
      break;
    case PLX_CHART_TIMELINE:
    default:
      {
        PlxTimelineOptions o;
        PlxTimelineLayout *l;
        plx_timeline_options_init (&o, width, height);
        effective_window (self, &o.t0_s, &o.t1_s);
        l = plx_timeline_layout_new (self->result->timeline, &o);
        plx_timeline_chart_render (l, &style, cr, width, height);
        if (keep_layout)
          {
            g_clear_pointer (&self->layout, plx_timeline_layout_free);
            self->layout = l;
          }
        else
          plx_timeline_layout_free (l);
      }
      break;
    }
}

static void
draw_func (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  PlxChartView *self = PLX_CHART_VIEW (area);
  gint64 t0 = g_get_monotonic_time ();

  draw_chart (self, cr, width, height, TRUE);
  self->n_draws++;
  self->last_draw_ms = (g_get_monotonic_time () - t0) / 1000.0;
}

/* Zoom around `anchor` (0..1 of the plot) by `factor` (< 1 zooms in). */
static void
zoom (PlxChartView *self, double anchor, double factor, double from_t0, double from_t1)
{
  double step = step_time (self);
  double span = (from_t1 - from_t0) * factor, center = from_t0 + anchor * (from_t1 - from_t0);
  double t0, t1;

  span = CLAMP (span, step * 1e-6, step);
  t0 = center - anchor * span;
  t1 = t0 + span;
  if (t0 < 0.0)
    t0 = 0.0, t1 = span;
  if (t1 > step)
    t1 = step, t0 = step - span;
  plx_chart_view_set_window (self, t0, t1);
}

static double
plot_fraction (PlxChartView *self, double x)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self));
  if (self->layout == NULL || w <= 0)
    return 0.5;
  return CLAMP ((x / w - self->layout->plot_x0) / (self->layout->plot_x1 - self->layout->plot_x0), 0.0, 1.0);
}

static gboolean
on_scroll (GtkEventControllerScroll *controller, double dx, double dy, PlxChartView *self)
{
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (controller));
  double t0, t1, x = 0.0, y = 0.0;
  GdkEvent *event;

  if (self->kind != PLX_CHART_TIMELINE || !(mods & GDK_CONTROL_MASK))
    return FALSE;
  event = gtk_event_controller_get_current_event (GTK_EVENT_CONTROLLER (controller));
  if (event != NULL)
    gdk_event_get_position (event, &x, &y);
  effective_window (self, &t0, &t1);
  zoom (self, plot_fraction (self, x), dy > 0 ? 1.25 : 0.8, t0, t1);
  return TRUE;
}

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, PlxChartView *self)
{
  effective_window (self, &self->drag_t0, &self->drag_t1);
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, PlxChartView *self)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self)), plot_w, shift, span, step = step_time (self);

  if (self->kind != PLX_CHART_TIMELINE || self->layout == NULL || w <= 0)
    return;
  plot_w = (self->layout->plot_x1 - self->layout->plot_x0) * w;
  span = self->drag_t1 - self->drag_t0;
  if (span >= step * (1.0 - 1e-9))
    return;
  shift = -dx / plot_w * span;
  shift = CLAMP (shift, -self->drag_t0, step - self->drag_t1);
  plx_chart_view_set_window (self, self->drag_t0 + shift, self->drag_t1 + shift);
}

static void
on_zoom_begin (GtkGesture *gesture, GdkEventSequence *sequence, PlxChartView *self)
{
  effective_window (self, &self->zoom_t0, &self->zoom_t1);
}

static void
on_zoom_scale (GtkGestureZoom *gesture, double scale, PlxChartView *self)
{
  double cx = 0.0, cy = 0.0;

  if (self->kind != PLX_CHART_TIMELINE || scale <= 0.0)
    return;
  gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &cx, &cy);
  zoom (self, plot_fraction (self, cx), 1.0 / scale, self->zoom_t0, self->zoom_t1);
}

static char *
format_duration (double s)
{
  if (s >= 1.0)
    return g_strdup_printf ("%.3f s", s);
  if (s >= 1e-3)
    return g_strdup_printf ("%.3f ms", s * 1e3);
  return g_strdup_printf ("%.1f µs", s * 1e6);
}

char *
plx_chart_view_describe_at (PlxChartView *self,
                            double        x,
                            double        y)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  const PlxTimelineEvent *ev;
  gint index;
  g_autofree char *start = NULL, *dur = NULL;
  GString *text;

  if (self->kind != PLX_CHART_TIMELINE || self->layout == NULL || self->result == NULL || w <= 0 || h <= 0)
    return NULL;
  index = plx_timeline_layout_hit (self->layout, x / w, y / h);
  if (index < 0)
    return NULL;
  ev = &g_array_index (self->result->timeline->events, PlxTimelineEvent, index);
  start = format_duration (ev->start_s);
  dur = format_duration (ev->end_s - ev->start_s);
  text = g_string_new (NULL);
  g_string_append_printf (text, "<b>%s</b>: %s\n", plx_task_kind_display_name (ev->kind), ev->label);
  g_string_append_printf (text, _("Stage %u, %s stream"), ev->rank, plx_stream_to_string (ev->stream));
  if (ev->micro_batch != PLX_NO_MICRO_BATCH)
    g_string_append_printf (text, _(", micro-batch %u"), ev->micro_batch);
  g_string_append_printf (text, _("\nStarts at %s, takes %s"), start, dur);
  if (ev->flops > 0)
    g_string_append_printf (text, _("\n%.3g FLOP"), ev->flops);
  if (ev->bytes > 0)
    g_string_append_printf (text, _("\n%.3g bytes"), ev->bytes);
  return g_string_free (text, FALSE);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip, PlxChartView *self)
{
  g_autofree char *text = plx_chart_view_describe_at (self, x, y);

  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_markup (tooltip, text);
  return TRUE;
}

static void
plx_chart_view_dispose (GObject *object)
{
  PlxChartView *self = PLX_CHART_VIEW (object);

  g_clear_pointer (&self->result, plx_result_unref);
  g_clear_pointer (&self->pinned, plx_result_unref);
  g_clear_pointer (&self->layout, plx_timeline_layout_free);
  G_OBJECT_CLASS (plx_chart_view_parent_class)->dispose (object);
}

static void
plx_chart_view_class_init (PlxChartViewClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = plx_chart_view_dispose;
}

static void
plx_chart_view_init (PlxChartView *self)
{
  GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  GtkGesture *drag = gtk_gesture_drag_new ();
  GtkGesture *pinch = gtk_gesture_zoom_new ();

  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self), draw_func, NULL, NULL);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (on_query_tooltip), self);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
  g_signal_connect (pinch, "begin", G_CALLBACK (on_zoom_begin), self);
  g_signal_connect (pinch, "scale-changed", G_CALLBACK (on_zoom_scale), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (pinch));
}

GtkWidget *
plx_chart_view_new (PlxChartKind kind)
{
  PlxChartView *self = g_object_new (PLX_TYPE_CHART_VIEW, NULL);

  self->kind = kind;
  return GTK_WIDGET (self);
}

void
plx_chart_view_set_result (PlxChartView *self,
                           PlxResult    *result)
{
  if (result != NULL)
    plx_result_ref (result);
  g_clear_pointer (&self->result, plx_result_unref);
  self->result = result;
  /* A new step: keep the zoom only if it still fits. */
  if (self->t1 > step_time (self))
    self->t0 = self->t1 = 0.0;
  invalidate (self);
}

void
plx_chart_view_set_pinned (PlxChartView *self,
                           PlxResult    *pinned)
{
  if (pinned != NULL)
    plx_result_ref (pinned);
  g_clear_pointer (&self->pinned, plx_result_unref);
  self->pinned = pinned;
  invalidate (self);
}

void
plx_chart_view_set_dark (PlxChartView *self,
                         gboolean      dark)
{
  self->dark = dark;
  invalidate (self);
}

void
plx_chart_view_set_window (PlxChartView *self,
                           double        t0_s,
                           double        t1_s)
{
  self->t0 = t0_s;
  self->t1 = t1_s;
  invalidate (self);
}

void
plx_chart_view_get_window (PlxChartView *self,
                           double       *t0_s,
                           double       *t1_s)
{
  effective_window (self, t0_s, t1_s);
}

guint
plx_chart_view_get_n_draws (PlxChartView *self)
{
  return self->n_draws;
}

double
plx_chart_view_get_last_draw_ms (PlxChartView *self)
{
  return self->last_draw_ms;
}

static void
export_draw (cairo_t *cr, double width, double height, gpointer data)
{
  draw_chart (PLX_CHART_VIEW (data), cr, width, height, FALSE);
}

gboolean
plx_chart_view_export (PlxChartView *self,
                       const char   *path,
                       GError      **error)
{
  PlxRenderStyle style;
  double w = MAX (gtk_widget_get_width (GTK_WIDGET (self)), 800);
  double h = MAX (gtk_widget_get_height (GTK_WIDGET (self)), 500);

  plx_render_style_init (&style, self->dark, 1.0);
  return plx_render_export (path, w, h, 1.0, &style, export_draw, self, error);
}
