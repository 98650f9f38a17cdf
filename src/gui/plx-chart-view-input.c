/* The timeline worked by pointer and keyboard (plx-chart-view-private.h): zoom with
 * ctrl+scroll, pinch and W/S or +/-, pan by dragging and with A/D or the arrows,
 * select events by click or with [ and ], measure a range with Shift+drag. */
#include <glib/gi18n-lib.h>
#include <math.h>

#include "plx-chart-view-private.h"
#include "plx-compare-chart.h"
#include "plx-engine.h"
#include "plx-format.h"
#include "plx-memory-chart.h"
#include "plx-render-export.h"
#include "plx-render-text.h"
#include "plx-timeline-band.h"

/* The keys pan by this share of the visible span, as Perfetto's A and D do. */
#define PAN_STEP 0.1
/* A press that moves less than this is a click (select), not a drag (pan). */
#define CLICK_SLOP_PX 3.0

/* ---- geometry ------------------------------------------------------------------ */

/* The x in widget pixels of time `t` in the drawn layout. */
double
plx_chart_view_x_of_time (const PlxTimelineLayout *l, double t, double width)
{
  return (l->plot_x0 + (t - l->t0_s) / (l->t1_s - l->t0_s) * (l->plot_x1 - l->plot_x0)) * width;
}

static gboolean
row_has (const PlxChartRow *row, const PlxTimelineEvent *ev)
{
  return ev->rank == row->rank &&
         (row->stream == (gint) ev->stream || (row->stream < 0 && ev->stream != PLX_STREAM_COMPUTE));
}

/* The layout row that shows `ev`, or -1 (its stage is not sampled). */
gint
plx_chart_view_row_of_event (const PlxTimelineLayout *l, const PlxTimelineEvent *ev)
{
  for (guint i = 0; i < l->rows->len; i++)
    if (row_has (&g_array_index (l->rows, PlxChartRow, i), ev))
      return (gint) i;
  return -1;
}

gint
plx_chart_view_row_at_y (const PlxTimelineLayout *l, double y01)
{
  for (guint i = 0; i < l->rows->len; i++)
    {
      const PlxChartRow *row = &g_array_index (l->rows, PlxChartRow, i);
      if (y01 >= row->y0 && y01 <= row->y1)
        return (gint) i;
    }
  return -1;
}

/* The focused row's index in `l`: the row last focused if it is still shown, else
 * its stage's first row, else the first row. */
guint
plx_chart_view_focus_row (PlxChartView *self, const PlxTimelineLayout *l)
{
  gint fallback = -1;

  for (guint i = 0; i < l->rows->len; i++)
    {
      const PlxChartRow *row = &g_array_index (l->rows, PlxChartRow, i);
      if (row->rank == self->focus_rank && row->stream == self->focus_stream)
        return i;
      if (fallback < 0 && row->rank >= self->focus_rank)
        fallback = (gint) i;
    }
  return fallback >= 0 ? (guint) fallback : 0;
}

static void
set_focus_row (PlxChartView *self, const PlxChartRow *row)
{
  self->focus_rank = row->rank;
  self->focus_stream = row->stream;
}

/* The event at `index` copied into `buf`, or NULL. */
const PlxTimelineEvent *
plx_chart_view_event_at (PlxChartView *self, gint index, PlxTimelineEvent *buf)
{
  if (self->result == NULL || index < 0 || !plx_timeline_get_event (self->result->timeline, (guint64) index, buf))
    return NULL;
  return buf;
}

/* ---- zoom and pan ---------------------------------------------------------------- */

/* Zoom around `anchor` (0..1 of the plot) by `factor` (< 1 zooms in). */
void
plx_chart_view_zoom (PlxChartView *self, double anchor, double factor, double from_t0, double from_t1)
{
  double step = plx_chart_view_step_time (self);
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

/* Moves the window by `shift` seconds, keeping its span, within the step. */
void
plx_chart_view_pan_by (PlxChartView *self, double shift)
{
  double t0, t1, step = plx_chart_view_step_time (self);

  plx_chart_view_effective_window (self, &t0, &t1);
  shift = CLAMP (shift, -t0, step - t1);
  if (shift != 0.0)
    plx_chart_view_set_window (self, t0 + shift, t1 + shift);
}

static double
plot_fraction (PlxChartView *self, double x)
{
  const PlxTimelineLayout *l = plx_chart_view_ensure_layout (self);
  double w = gtk_widget_get_width (GTK_WIDGET (self));
  if (l == NULL || w <= 0)
    return 0.5;
  return CLAMP ((x / w - l->plot_x0) / (l->plot_x1 - l->plot_x0), 0.0, 1.0);
}

static double
time_at (PlxChartView *self, double x)
{
  double t0, t1;

  plx_chart_view_effective_window (self, &t0, &t1);
  return t0 + plot_fraction (self, x) * (t1 - t0);
}

/* Keys zoom around the pointer when it is over the plot, as the wheel does, and
 * around the centre otherwise. */
static double
key_zoom_anchor (PlxChartView *self)
{
  const PlxTimelineLayout *l = plx_chart_view_ensure_layout (self);
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));

  if (!self->pointer_in || l == NULL || w <= 0 || h <= 0)
    return 0.5;
  if (self->pointer_x < l->plot_x0 * w || self->pointer_x > l->plot_x1 * w || self->pointer_y < l->plot_y0 * h ||
      self->pointer_y > l->plot_y1 * h)
    return 0.5;
  return plot_fraction (self, self->pointer_x);
}

void
plx_chart_view_zoom_step (PlxChartView *self, gboolean in, double anchor)
{
  double t0, t1;

  if (self->kind != PLX_CHART_TIMELINE || self->result == NULL)
    return;
  plx_chart_view_effective_window (self, &t0, &t1);
  plx_chart_view_zoom (self, anchor, in ? PLX_CHART_ZOOM_STEP : 1.0 / PLX_CHART_ZOOM_STEP, t0, t1);
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
  plx_chart_view_effective_window (self, &t0, &t1);
  plx_chart_view_zoom (self, plot_fraction (self, x), dy > 0 ? 1.25 : 0.8, t0, t1);
  return TRUE;
}

static void
set_range (PlxChartView *self, gboolean have, double t0, double t1)
{
  self->have_range = have;
  self->range_t0 = t0;
  self->range_t1 = t1;
  plx_chart_view_update_details (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, PlxChartView *self)
{
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));

  /* A click on the chart gives it the keyboard. */
  if (gtk_widget_get_focusable (GTK_WIDGET (self)))
    gtk_widget_grab_focus (GTK_WIDGET (self));
  plx_chart_view_effective_window (self, &self->drag_t0, &self->drag_t1);
  self->measuring = self->kind == PLX_CHART_TIMELINE && (mods & GDK_SHIFT_MASK) && self->result != NULL;
  if (self->measuring)
    {
      double t = time_at (self, x);
      set_range (self, FALSE, t, t);
    }
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, PlxChartView *self)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self)), plot_w, shift, span, step = plx_chart_view_step_time (self);

  if (self->measuring)
    {
      double x0 = 0.0, y0 = 0.0;
      gtk_gesture_drag_get_start_point (gesture, &x0, &y0);
      self->range_t1 = time_at (self, x0 + dx);
      set_range (self, self->range_t1 != self->range_t0, self->range_t0, self->range_t1);
      return;
    }
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

static void select_event (PlxChartView *self, gint index, gboolean reveal);

/* A press and release in place selects the event under it (or nothing), and the row
 * under it becomes the one the keys step through. */
static void
on_drag_end (GtkGestureDrag *gesture, double dx, double dy, PlxChartView *self)
{
  double x0 = 0.0, y0 = 0.0, w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  const PlxTimelineLayout *l;
  gint row;

  if (self->measuring)
    {
      self->measuring = FALSE;
      return;
    }
  if (self->kind != PLX_CHART_TIMELINE || fabs (dx) > CLICK_SLOP_PX || fabs (dy) > CLICK_SLOP_PX || w <= 0 || h <= 0)
    return;
  l = plx_chart_view_ensure_layout (self);
  if (l == NULL)
    return;
  gtk_gesture_drag_get_start_point (gesture, &x0, &y0);
  if (x0 / w < l->plot_x0 || x0 / w > l->plot_x1)
    return;
  row = plx_chart_view_row_at_y (l, y0 / h);
  if (row >= 0)
    set_focus_row (self, &g_array_index (l->rows, PlxChartRow, row));
  {
    PlxChartBar bar;
    select_event (self, plx_chart_view_bar_at (l, x0 / w, y0 / h, &bar) ? (gint) bar.event : -1, FALSE);
  }
}

static void
on_zoom_begin (GtkGesture *gesture, GdkEventSequence *sequence, PlxChartView *self)
{
  plx_chart_view_effective_window (self, &self->zoom_t0, &self->zoom_t1);
}

static void
on_zoom_scale (GtkGestureZoom *gesture, double scale, PlxChartView *self)
{
  double cx = 0.0, cy = 0.0;

  if (self->kind != PLX_CHART_TIMELINE || scale <= 0.0)
    return;
  gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &cx, &cy);
  plx_chart_view_zoom (self, plot_fraction (self, cx), 1.0 / scale, self->zoom_t0, self->zoom_t1);
}

static void
on_motion (GtkEventControllerMotion *motion, double x, double y, PlxChartView *self)
{
  self->pointer_in = TRUE;
  self->pointer_x = x;
  self->pointer_y = y;
}

static void
on_leave (GtkEventControllerMotion *motion, PlxChartView *self)
{
  self->pointer_in = FALSE;
}

static void
on_focus_change (GtkEventControllerFocus *focus, PlxChartView *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* ---- selection ------------------------------------------------------------------- */

/* Pans (keeping the span) so that a selected event is in view, as a list scrolls to
 * its selected row. */
static void
reveal_event (PlxChartView *self, const PlxTimelineEvent *ev)
{
  double t0, t1, span;

  plx_chart_view_effective_window (self, &t0, &t1);
  span = t1 - t0;
  if (ev->start_s >= t0 && ev->end_s <= t1)
    return;
  if (ev->end_s - ev->start_s > 0.8 * span || ev->start_s < t0)
    plx_chart_view_pan_by (self, ev->start_s - (t0 + PAN_STEP * span));
  else
    plx_chart_view_pan_by (self, ev->end_s - (t1 - PAN_STEP * span));
}

static void
select_event (PlxChartView *self, gint index, gboolean reveal)
{
  PlxTimelineEvent ev_event;
  const PlxTimelineEvent *ev = plx_chart_view_event_at (self, index, &ev_event);

  self->selected = ev != NULL ? index : -1;
  if (ev != NULL)
    {
      const PlxTimelineLayout *l = plx_chart_view_ensure_layout (self);
      gint row = l != NULL ? plx_chart_view_row_of_event (l, ev) : -1;
      if (row >= 0)
        set_focus_row (self, &g_array_index (l->rows, PlxChartRow, row));
      if (reveal)
        reveal_event (self, ev);
    }
  plx_chart_view_update_details (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The next (dir > 0) or previous event on the focused row in the order of their
 * start times (ties by their order in the timeline). With nothing selected: the
 * first event that reaches into the visible window, or the last that starts in it. */
static void
step_selection (PlxChartView *self, int dir)
{
  const PlxTimelineLayout *l = plx_chart_view_ensure_layout (self);
  PlxTimelineEvent cur_event;
  const PlxTimelineEvent *cur = plx_chart_view_event_at (self, self->selected, &cur_event);
  PlxTimelineIter iter;
  PlxTimelineEvent event, best_event;
  const PlxChartRow *row;
  gint best = -1;
  double t0, t1;

  if (l == NULL || l->rows->len == 0)
    return;
  row = &g_array_index (l->rows, PlxChartRow, plx_chart_view_focus_row (self, l));
  if (cur != NULL && !row_has (row, cur))
    cur = NULL;
  plx_chart_view_effective_window (self, &t0, &t1);
  for (plx_timeline_iter_init (&iter, self->result->timeline); plx_timeline_iter_next (&iter, &event);)
    {
      const PlxTimelineEvent *ev = &event;
      const PlxTimelineEvent *b = best >= 0 ? &best_event : NULL;
      guint i = (guint) (iter.index - 1);
      gboolean after, before;

      if (!row_has (row, ev))
        continue;
      if (cur != NULL)
        {
          after = ev->start_s > cur->start_s || (ev->start_s == cur->start_s && (gint) i > self->selected);
          before = ev->start_s < cur->start_s || (ev->start_s == cur->start_s && (gint) i < self->selected);
        }
      else
        {
          after = ev->end_s > t0;
          before = ev->start_s < t1;
        }
      if ((dir > 0 && after && (b == NULL || ev->start_s < b->start_s)) ||
          (dir < 0 && before && (b == NULL || ev->start_s >= b->start_s)))
        {
          best = (gint) i;
          best_event = event;
        }
    }
  if (best >= 0)
    select_event (self, best, TRUE);
}

/* Up and Down: the row above or below; the selection follows to the event on it
 * nearest in time. */
static void
step_row (PlxChartView *self, int dir)
{
  PlxTimelineIter ev_iter;
  PlxTimelineEvent ev_buf;
  const PlxTimelineLayout *l = plx_chart_view_ensure_layout (self);
  PlxTimelineEvent cur_event;
  const PlxTimelineEvent *cur = plx_chart_view_event_at (self, self->selected, &cur_event);
  const PlxChartRow *row;
  guint index;
  gint best = -1;
  double best_d = G_MAXDOUBLE, mid;

  if (l == NULL || l->rows->len == 0)
    return;
  index = plx_chart_view_focus_row (self, l);
  if ((dir < 0 && index == 0) || (dir > 0 && index + 1 >= l->rows->len))
    return;
  row = &g_array_index (l->rows, PlxChartRow, index + dir);
  set_focus_row (self, row);
  if (cur == NULL)
    {
      gtk_widget_queue_draw (GTK_WIDGET (self));
      return;
    }
  mid = (cur->start_s + cur->end_s) / 2;
  for (plx_timeline_iter_init (&ev_iter, self->result->timeline); plx_timeline_iter_next (&ev_iter, &ev_buf);)
    {
      const PlxTimelineEvent *ev = &ev_buf;
      guint i = (guint) (ev_iter.index - 1);
      double d;
      if (!row_has (row, ev))
        continue;
      d = mid < ev->start_s ? ev->start_s - mid : mid > ev->end_s ? mid - ev->end_s : 0.0;
      if (d < best_d)
        best_d = d, best = (gint) i;
    }
  select_event (self, best, TRUE);
}

/* F: the window around the selected event, or else the measured range. */
static void
frame_selection (PlxChartView *self)
{
  PlxTimelineEvent ev_event;
  const PlxTimelineEvent *ev = plx_chart_view_event_at (self, self->selected, &ev_event);
  double a, b, pad, step = plx_chart_view_step_time (self);

  if (ev != NULL)
    a = ev->start_s, b = ev->end_s;
  else if (self->have_range)
    a = MIN (self->range_t0, self->range_t1), b = MAX (self->range_t0, self->range_t1);
  else
    return;
  pad = MAX (b - a, step * 1e-6) * 0.1;
  a = MAX (a - pad, 0.0);
  b = MIN (b + pad, step);
  plx_chart_view_set_window (self, a, b);
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
                PlxChartView *self)
{
  gboolean ctrl = (state & GDK_CONTROL_MASK) != 0, alt = (state & GDK_ALT_MASK) != 0;
  double t0, t1;

  if (self->kind != PLX_CHART_TIMELINE || self->result == NULL)
    return FALSE;
  plx_chart_view_effective_window (self, &t0, &t1);
  /* Keys with Ctrl are the window's (Ctrl+S saves), except the usual zoom keys. */
  switch (keyval)
    {
    case GDK_KEY_plus:
    case GDK_KEY_equal:
    case GDK_KEY_KP_Add:
      if (alt)
        return FALSE;
      plx_chart_view_zoom_step (self, TRUE, key_zoom_anchor (self));
      return TRUE;
    case GDK_KEY_minus:
    case GDK_KEY_underscore:
    case GDK_KEY_KP_Subtract:
      if (alt)
        return FALSE;
      plx_chart_view_zoom_step (self, FALSE, key_zoom_anchor (self));
      return TRUE;
    case GDK_KEY_0:
    case GDK_KEY_KP_0:
    case GDK_KEY_Home:
      if (alt)
        return FALSE;
      plx_chart_view_reset_zoom (self);
      return TRUE;
    default:
      break;
    }
  if (ctrl)
    return FALSE;
  switch (keyval)
    {
    case GDK_KEY_w:
    case GDK_KEY_W:
      if (alt)
        return FALSE;
      plx_chart_view_zoom_step (self, TRUE, key_zoom_anchor (self));
      return TRUE;
    case GDK_KEY_s:
    case GDK_KEY_S:
      if (alt)
        return FALSE;
      plx_chart_view_zoom_step (self, FALSE, key_zoom_anchor (self));
      return TRUE;
    case GDK_KEY_a:
    case GDK_KEY_A:
      if (alt)
        return FALSE;
      plx_chart_view_pan_by (self, -PAN_STEP * (t1 - t0));
      return TRUE;
    case GDK_KEY_d:
    case GDK_KEY_D:
      if (alt)
        return FALSE;
      plx_chart_view_pan_by (self, PAN_STEP * (t1 - t0));
      return TRUE;
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      if (alt)
        step_selection (self, -1);
      else
        plx_chart_view_pan_by (self, -PAN_STEP * (t1 - t0));
      return TRUE;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
      if (alt)
        step_selection (self, 1);
      else
        plx_chart_view_pan_by (self, PAN_STEP * (t1 - t0));
      return TRUE;
    case GDK_KEY_bracketleft:
      step_selection (self, -1);
      return TRUE;
    case GDK_KEY_bracketright:
      step_selection (self, 1);
      return TRUE;
    case GDK_KEY_Up:
    case GDK_KEY_KP_Up:
      step_row (self, -1);
      return TRUE;
    case GDK_KEY_Down:
    case GDK_KEY_KP_Down:
      step_row (self, 1);
      return TRUE;
    case GDK_KEY_f:
    case GDK_KEY_F:
      if (alt)
        return FALSE;
      frame_selection (self);
      return TRUE;
    case GDK_KEY_Escape:
      /* The range first, then the selection; with neither, Escape is the window's. */
      if (self->have_range)
        set_range (self, FALSE, 0.0, 0.0);
      else if (self->selected >= 0)
        select_event (self, -1, FALSE);
      else
        return FALSE;
      return TRUE;
    default:
      return FALSE;
    }
}

/* The wheel, drags and pinches, on every chart. */
void
plx_chart_view_add_pointer_controllers (PlxChartView *self)
{
  GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  GtkGesture *drag = gtk_gesture_drag_new ();
  GtkGesture *pinch = gtk_gesture_zoom_new ();

  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
  g_signal_connect (pinch, "begin", G_CALLBACK (on_zoom_begin), self);
  g_signal_connect (pinch, "scale-changed", G_CALLBACK (on_zoom_scale), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (pinch));
}

/* The keys, the pointer's position and the focus, on the timeline. */
void
plx_chart_view_add_timeline_controllers (PlxChartView *self)
{
  GtkEventController *keys = gtk_event_controller_key_new ();
  GtkEventController *motion = gtk_event_controller_motion_new ();
  GtkEventController *focus = gtk_event_controller_focus_new ();

  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
  g_signal_connect (motion, "enter", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);
  g_signal_connect (focus, "enter", G_CALLBACK (on_focus_change), self);
  g_signal_connect (focus, "leave", G_CALLBACK (on_focus_change), self);
  gtk_widget_add_controller (GTK_WIDGET (self), focus);
}
