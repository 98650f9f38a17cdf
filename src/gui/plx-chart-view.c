#include <glib/gi18n-lib.h>
#include <math.h>

#include "plx-chart-view.h"
#include "plx-compare-chart.h"
#include "plx-engine.h"
#include "plx-format.h"
#include "plx-memory-chart.h"
#include "plx-render-export.h"
#include "plx-render-text.h"
#include "plx-timeline-band.h"
#include "plx-timeline-chart.h"

/* The keys pan by this share of the visible span, as Perfetto's A and D do. */
#define PAN_STEP 0.1
/* A press that moves less than this is a click (select), not a drag (pan). */
#define CLICK_SLOP_PX 3.0

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

enum { SIGNAL_CHANGED, SIGNAL_DETAILS_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void update_details (PlxChartView *self);

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
      /* The whole step reaches to the sampled band's end, so all of it shows. */
      if (self->result != NULL && self->result->sampled && self->kind == PLX_CHART_TIMELINE)
        *t1 = MAX (*t1, self->result->uncertainty.step_p95_s);
    }
}

static PlxTimelineLayout *
build_layout (PlxChartView *self, double width, double height)
{
  PlxTimelineOptions o;
  PlxTimelineLayout *l;

  plx_timeline_options_init (&o, width, height);
  if (self->export_title != NULL)
    o.title = self->export_title;
  effective_window (self, &o.t0_s, &o.t1_s);
  /* The window's worker may have built this one already (plx-engine.c). */
  if (self->export_title == NULL &&
      (l = plx_result_take_layout (self->result, width, height, o.t0_s, o.t1_s)) != NULL)
    return l;
  return plx_timeline_layout_new (self->result->timeline, &o);
}

/* The layout of the widget as it is (drawn or about to be), for keys and hit tests
 * that come before the first frame. */
static const PlxTimelineLayout *
ensure_layout (PlxChartView *self)
{
  int w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));

  if (self->layout == NULL && self->kind == PLX_CHART_TIMELINE && self->result != NULL && w > 0 && h > 0)
    self->layout = build_layout (self, w, h);
  return self->layout;
}

static void
draw_band (PlxChartView *self, const PlxTimelineLayout *l, const PlxRenderStyle *style, cairo_t *cr, double width,
           double height)
{
  if (self->result->sampled)
    plx_timeline_band_render (l, style, cr, width, height, self->result->uncertainty.step_p5_s,
                              self->result->uncertainty.step_p95_s);
}

static void
draw_chart (PlxChartView *self, cairo_t *cr, double width, double height, gboolean keep_layout)
{
  PlxRenderStyle style;
  gboolean dark = self->export_dark >= 0 ? self->export_dark : self->dark;

  plx_render_style_init (&style, dark, 1.0);
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
        o.title = self->export_title != NULL ? self->export_title : _("Memory per GPU");
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
          PlxCompareSide a = { name_a, &self->pinned->report, self->pinned->timeline,
                               self->pinned->scenario->model->name };
          PlxCompareSide b = { name_b, &self->result->report, self->result->timeline,
                               self->result->scenario->model->name };
          g_autoptr (PlxCompareLayout) l = plx_compare_layout_new (&a, &b, width, height);
          plx_compare_chart_render (l, &style, cr, width, height);
        }
      break;
    case PLX_CHART_TIMELINE:
    default:
      {
        PlxTimelineLayout *l;
        double t0, t1;

        effective_window (self, &t0, &t1);
        /* The timeline pane asks for the layout (its plot bounds) just before this
         * frame: one built for this size and window is the one to draw. */
        if (keep_layout && self->layout != NULL && self->layout->width_px == width &&
            self->layout->height_px == height && self->layout->t0_s == t0 && self->layout->t1_s == t1 &&
            self->export_title == NULL)
          {
            plx_timeline_chart_render (self->layout, &style, cr, width, height);
            draw_band (self, self->layout, &style, cr, width, height);
            break;
          }
        l = build_layout (self, width, height);
        plx_timeline_chart_render (l, &style, cr, width, height);
        draw_band (self, l, &style, cr, width, height);
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

/* An invalid strategy: the last valid chart stays in place, washed out, with the
 * reason on top, so the page and its context do not jump away. */
static void
draw_error (PlxChartView *self, cairo_t *cr, double width, double height)
{
  PlxRenderStyle style;
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans 11");
  int tw, th;
  double box_w = MIN (width - 48, 720);

  plx_render_style_init (&style, self->dark, 1.0);
  cairo_set_source_rgba (cr, style.background.r, style.background.g, style.background.b, 0.78);
  cairo_paint (cr);
  if (box_w < 40)
    goto out;
  pango_layout_set_font_description (layout, font);
  pango_layout_set_width (layout, (int) ((box_w - 32) * PANGO_SCALE));
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_alignment (layout, PANGO_ALIGN_CENTER);
  pango_layout_set_text (layout, self->error, -1);
  pango_layout_get_pixel_size (layout, &tw, &th);
  {
    double x = (width - box_w) / 2, y = MAX (12, (height - th - 24) / 2);
    cairo_set_source_rgba (cr, 0.75, 0.11, 0.16, 0.12);
    cairo_rectangle (cr, x, y, box_w, th + 24);
    cairo_fill (cr);
    cairo_set_source_rgb (cr, style.foreground.r, style.foreground.g, style.foreground.b);
    cairo_move_to (cr, x + 16, y + 12);
    pango_cairo_show_layout (cr, layout);
  }
out:
  pango_font_description_free (font);
  g_object_unref (layout);
}

/* ---- geometry ------------------------------------------------------------------ */

/* The x in widget pixels of time `t` in the drawn layout. */
static double
x_of_time (const PlxTimelineLayout *l, double t, double width)
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
static gint
row_of_event (const PlxTimelineLayout *l, const PlxTimelineEvent *ev)
{
  for (guint i = 0; i < l->rows->len; i++)
    if (row_has (&g_array_index (l->rows, PlxChartRow, i), ev))
      return (gint) i;
  return -1;
}

static gint
row_at_y (const PlxTimelineLayout *l, double y01)
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
static guint
focus_row (PlxChartView *self, const PlxTimelineLayout *l)
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
static const PlxTimelineEvent *
event_at (PlxChartView *self, gint index, PlxTimelineEvent *buf)
{
  if (self->result == NULL || index < 0 || !plx_timeline_get_event (self->result->timeline, (guint64) index, buf))
    return NULL;
  return buf;
}

/* ---- drawing the navigation on top of the chart --------------------------------- */

static PlxColor
accent_color (PlxChartView *self)
{
  GdkRGBA rgba = { 0.21, 0.52, 0.89, 1.0 };   /* Adwaita's blue, if the theme has none */
  PlxColor c;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_lookup_color (gtk_widget_get_style_context (GTK_WIDGET (self)), "accent_color", &rgba);
  G_GNUC_END_IGNORE_DEPRECATIONS
  c.r = rgba.red;
  c.g = rgba.green;
  c.b = rgba.blue;
  return c;
}

static void
draw_range (PlxChartView *self, const PlxTimelineLayout *l, const PlxRenderStyle *style, cairo_t *cr,
            double width, double height)
{
  PlxColor accent = accent_color (self);
  double a = MIN (self->range_t0, self->range_t1), b = MAX (self->range_t0, self->range_t1);
  double x0 = x_of_time (l, MAX (a, l->t0_s), width), x1 = x_of_time (l, MIN (b, l->t1_s), width);
  double y0 = l->plot_y0 * height, y1 = l->plot_y1 * height;
  g_autofree char *dur = plx_format_time_short (b - a);

  if (b <= l->t0_s || a >= l->t1_s)
    return;
  cairo_save (cr);
  cairo_set_source_rgba (cr, accent.r, accent.g, accent.b, 0.16);
  cairo_rectangle (cr, x0, y0, x1 - x0, y1 - y0);
  cairo_fill (cr);
  plx_render_set_color (cr, accent);
  cairo_set_line_width (cr, 1.0);
  if (a >= l->t0_s)
    {
      cairo_move_to (cr, round (x0) + 0.5, y0);
      cairo_line_to (cr, round (x0) + 0.5, y1);
    }
  if (b <= l->t1_s)
    {
      cairo_move_to (cr, round (x1) + 0.5, y0);
      cairo_line_to (cr, round (x1) + 0.5, y1);
    }
  cairo_stroke (cr);
  /* The duration on a plate at the foot of the band (below the last stage's compute
   * row), and each stage's busy share on its compute row where there is room. */
  {
    double tw = plx_render_text_width (cr, style, dur, l->font_size, PLX_TEXT_BOLD), cx = (x0 + x1) / 2.0;
    cx = CLAMP (cx, l->plot_x0 * width + tw / 2 + 4, l->plot_x1 * width - tw / 2 - 4);
    cairo_set_source_rgba (cr, style->background.r, style->background.g, style->background.b, 0.9);
    cairo_rectangle (cr, cx - tw / 2 - 4, y1 - l->font_size - 8, tw + 8, l->font_size + 6);
    cairo_fill (cr);
    plx_render_text (cr, style, dur, cx, y1 - 5, l->font_size, style->foreground, 0.5, 1.0, PLX_TEXT_BOLD);
  }
  if (x1 - x0 >= 40.0 && self->range_busy != NULL)
    for (guint i = 0; i < l->rows->len; i++)
      {
        const PlxChartRow *row = &g_array_index (l->rows, PlxChartRow, i);
        double ry0 = row->y0 * height, ry1 = row->y1 * height;
        char text[16];
        double tw;
        if (row->stream != PLX_STREAM_COMPUTE || row->rank >= self->range_n || ry1 - ry0 < 11.0 ||
            ry1 > y1 - l->font_size - 8)
          continue;
        g_snprintf (text, sizeof text, "%.0f %%", 100.0 * self->range_busy[row->rank]);
        tw = plx_render_text_width (cr, style, text, l->font_size * 0.9, PLX_TEXT_NORMAL);
        cairo_set_source_rgba (cr, style->background.r, style->background.g, style->background.b, 0.85);
        cairo_rectangle (cr, (x0 + x1) / 2 - tw / 2 - 3, (ry0 + ry1) / 2 - l->font_size * 0.6, tw + 6,
                         l->font_size * 1.2);
        cairo_fill (cr);
        plx_render_text (cr, style, text, (x0 + x1) / 2, (ry0 + ry1) / 2, l->font_size * 0.9, style->foreground,
                         0.5, 0.5, PLX_TEXT_NORMAL);
      }
  cairo_restore (cr);
}

static void
draw_navigation (PlxChartView *self, cairo_t *cr, double width, double height)
{
  const PlxTimelineLayout *l = self->layout;
  PlxTimelineEvent ev_event;
  const PlxTimelineEvent *ev = event_at (self, self->selected, &ev_event);
  gboolean focused = gtk_widget_has_focus (GTK_WIDGET (self));
  PlxRenderStyle style;
  PlxColor accent;

  if (self->kind != PLX_CHART_TIMELINE || l == NULL || self->result == NULL)
    return;
  plx_render_style_init (&style, self->dark, 1.0);
  accent = accent_color (self);
  if (self->have_range)
    draw_range (self, l, &style, cr, width, height);
  /* The selected event: outlined, at least a few pixels wide however short it is. */
  if (ev != NULL && ev->end_s >= l->t0_s && ev->start_s <= l->t1_s)
    {
      gint ri = row_of_event (l, ev);
      if (ri >= 0)
        {
          const PlxChartRow *row = &g_array_index (l->rows, PlxChartRow, ri);
          double x0 = x_of_time (l, MAX (ev->start_s, l->t0_s), width);
          double x1 = x_of_time (l, MIN (ev->end_s, l->t1_s), width);
          double y0 = row->y0 * height, y1 = row->y1 * height;
          if (x1 - x0 < 4.0)
            {
              double c = (x0 + x1) / 2;
              x0 = c - 2.0;
              x1 = c + 2.0;
            }
          cairo_save (cr);
          cairo_set_line_width (cr, 3.0);
          plx_render_set_color (cr, style.background);
          cairo_rectangle (cr, x0 - 1.5, y0 - 1.5, x1 - x0 + 3, y1 - y0 + 3);
          cairo_stroke (cr);
          cairo_set_line_width (cr, 1.5);
          plx_render_set_color (cr, style.foreground);
          cairo_rectangle (cr, x0 - 1.5, y0 - 1.5, x1 - x0 + 3, y1 - y0 + 3);
          cairo_stroke (cr);
          cairo_restore (cr);
        }
    }
  /* With the keyboard: a mark beside the row [ and ] step through, and a ring. */
  if (focused)
    {
      if (l->rows->len > 0)
        {
          const PlxChartRow *row = &g_array_index (l->rows, PlxChartRow, focus_row (self, l));
          plx_render_set_color (cr, accent);
          cairo_rectangle (cr, l->plot_x0 * width - 5.0, row->y0 * height, 3.0, (row->y1 - row->y0) * height);
          cairo_fill (cr);
        }
      cairo_save (cr);
      cairo_set_source_rgba (cr, accent.r, accent.g, accent.b, 0.7);
      cairo_set_line_width (cr, 2.0);
      cairo_rectangle (cr, 1.0, 1.0, width - 2.0, height - 2.0);
      cairo_stroke (cr);
      cairo_restore (cr);
    }
}

static void
draw_func (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  PlxChartView *self = PLX_CHART_VIEW (area);
  gint64 t0 = g_get_monotonic_time ();

  draw_chart (self, cr, width, height, TRUE);
  draw_navigation (self, cr, width, height);
  if (self->error != NULL)
    draw_error (self, cr, width, height);
  self->n_draws++;
  self->last_draw_ms = (g_get_monotonic_time () - t0) / 1000.0;
}

/* ---- zoom and pan ---------------------------------------------------------------- */

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

/* Moves the window by `shift` seconds, keeping its span, within the step. */
static void
pan_by (PlxChartView *self, double shift)
{
  double t0, t1, step = step_time (self);

  effective_window (self, &t0, &t1);
  shift = CLAMP (shift, -t0, step - t1);
  if (shift != 0.0)
    plx_chart_view_set_window (self, t0 + shift, t1 + shift);
}

static double
plot_fraction (PlxChartView *self, double x)
{
  const PlxTimelineLayout *l = ensure_layout (self);
  double w = gtk_widget_get_width (GTK_WIDGET (self));
  if (l == NULL || w <= 0)
    return 0.5;
  return CLAMP ((x / w - l->plot_x0) / (l->plot_x1 - l->plot_x0), 0.0, 1.0);
}

static double
time_at (PlxChartView *self, double x)
{
  double t0, t1;

  effective_window (self, &t0, &t1);
  return t0 + plot_fraction (self, x) * (t1 - t0);
}

/* Keys zoom around the pointer when it is over the plot, as the wheel does, and
 * around the centre otherwise. */
static double
key_zoom_anchor (PlxChartView *self)
{
  const PlxTimelineLayout *l = ensure_layout (self);
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));

  if (!self->pointer_in || l == NULL || w <= 0 || h <= 0)
    return 0.5;
  if (self->pointer_x < l->plot_x0 * w || self->pointer_x > l->plot_x1 * w || self->pointer_y < l->plot_y0 * h ||
      self->pointer_y > l->plot_y1 * h)
    return 0.5;
  return plot_fraction (self, self->pointer_x);
}

static void
zoom_step (PlxChartView *self, gboolean in, double anchor)
{
  double t0, t1;

  if (self->kind != PLX_CHART_TIMELINE || self->result == NULL)
    return;
  effective_window (self, &t0, &t1);
  zoom (self, anchor, in ? PLX_CHART_ZOOM_STEP : 1.0 / PLX_CHART_ZOOM_STEP, t0, t1);
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
set_range (PlxChartView *self, gboolean have, double t0, double t1)
{
  self->have_range = have;
  self->range_t0 = t0;
  self->range_t1 = t1;
  update_details (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, PlxChartView *self)
{
  GdkModifierType mods = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));

  /* A click on the chart gives it the keyboard. */
  if (gtk_widget_get_focusable (GTK_WIDGET (self)))
    gtk_widget_grab_focus (GTK_WIDGET (self));
  effective_window (self, &self->drag_t0, &self->drag_t1);
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
  double w = gtk_widget_get_width (GTK_WIDGET (self)), plot_w, shift, span, step = step_time (self);

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
static gboolean bar_at (const PlxTimelineLayout *l, double x, double y, PlxChartBar *bar);

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
  l = ensure_layout (self);
  if (l == NULL)
    return;
  gtk_gesture_drag_get_start_point (gesture, &x0, &y0);
  if (x0 / w < l->plot_x0 || x0 / w > l->plot_x1)
    return;
  row = row_at_y (l, y0 / h);
  if (row >= 0)
    set_focus_row (self, &g_array_index (l->rows, PlxChartRow, row));
  {
    PlxChartBar bar;
    select_event (self, bar_at (l, x0 / w, y0 / h, &bar) ? (gint) bar.event : -1, FALSE);
  }
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

  effective_window (self, &t0, &t1);
  span = t1 - t0;
  if (ev->start_s >= t0 && ev->end_s <= t1)
    return;
  if (ev->end_s - ev->start_s > 0.8 * span || ev->start_s < t0)
    pan_by (self, ev->start_s - (t0 + PAN_STEP * span));
  else
    pan_by (self, ev->end_s - (t1 - PAN_STEP * span));
}

static void
select_event (PlxChartView *self, gint index, gboolean reveal)
{
  PlxTimelineEvent ev_event;
  const PlxTimelineEvent *ev = event_at (self, index, &ev_event);

  self->selected = ev != NULL ? index : -1;
  if (ev != NULL)
    {
      const PlxTimelineLayout *l = ensure_layout (self);
      gint row = l != NULL ? row_of_event (l, ev) : -1;
      if (row >= 0)
        set_focus_row (self, &g_array_index (l->rows, PlxChartRow, row));
      if (reveal)
        reveal_event (self, ev);
    }
  update_details (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The next (dir > 0) or previous event on the focused row in the order of their
 * start times (ties by their order in the timeline). With nothing selected: the
 * first event that reaches into the visible window, or the last that starts in it. */
static void
step_selection (PlxChartView *self, int dir)
{
  const PlxTimelineLayout *l = ensure_layout (self);
  PlxTimelineEvent cur_event;
  const PlxTimelineEvent *cur = event_at (self, self->selected, &cur_event);
  PlxTimelineIter iter;
  PlxTimelineEvent event, best_event;
  const PlxChartRow *row;
  gint best = -1;
  double t0, t1;

  if (l == NULL || l->rows->len == 0)
    return;
  row = &g_array_index (l->rows, PlxChartRow, focus_row (self, l));
  if (cur != NULL && !row_has (row, cur))
    cur = NULL;
  effective_window (self, &t0, &t1);
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
  const PlxTimelineLayout *l = ensure_layout (self);
  PlxTimelineEvent cur_event;
  const PlxTimelineEvent *cur = event_at (self, self->selected, &cur_event);
  const PlxChartRow *row;
  guint index;
  gint best = -1;
  double best_d = G_MAXDOUBLE, mid;

  if (l == NULL || l->rows->len == 0)
    return;
  index = focus_row (self, l);
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
  const PlxTimelineEvent *ev = event_at (self, self->selected, &ev_event);
  double a, b, pad, step = step_time (self);

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
  effective_window (self, &t0, &t1);
  /* Keys with Ctrl are the window's (Ctrl+S saves), except the usual zoom keys. */
  switch (keyval)
    {
    case GDK_KEY_plus:
    case GDK_KEY_equal:
    case GDK_KEY_KP_Add:
      if (alt)
        return FALSE;
      zoom_step (self, TRUE, key_zoom_anchor (self));
      return TRUE;
    case GDK_KEY_minus:
    case GDK_KEY_underscore:
    case GDK_KEY_KP_Subtract:
      if (alt)
        return FALSE;
      zoom_step (self, FALSE, key_zoom_anchor (self));
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
      zoom_step (self, TRUE, key_zoom_anchor (self));
      return TRUE;
    case GDK_KEY_s:
    case GDK_KEY_S:
      if (alt)
        return FALSE;
      zoom_step (self, FALSE, key_zoom_anchor (self));
      return TRUE;
    case GDK_KEY_a:
    case GDK_KEY_A:
      if (alt)
        return FALSE;
      pan_by (self, -PAN_STEP * (t1 - t0));
      return TRUE;
    case GDK_KEY_d:
    case GDK_KEY_D:
      if (alt)
        return FALSE;
      pan_by (self, PAN_STEP * (t1 - t0));
      return TRUE;
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      if (alt)
        step_selection (self, -1);
      else
        pan_by (self, -PAN_STEP * (t1 - t0));
      return TRUE;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
      if (alt)
        step_selection (self, 1);
      else
        pan_by (self, PAN_STEP * (t1 - t0));
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

/* ---- what the tooltip and the details line say -------------------------------- */

/* Whether the timeline's ranks are a program's GPUs rather than pipeline stages. */
static gboolean
per_device (PlxChartView *self)
{
  return self->result != NULL && self->result->timeline != NULL && self->result->timeline->per_device;
}

/* An event in four parts: what, where, when, how much work. */
static char *
describe_event (const PlxTimelineEvent *ev, gboolean per_device, const char *separator)
{
  g_autofree char *label = g_markup_escape_text (ev->label != NULL ? ev->label : "", -1);
  g_autofree char *start = plx_format_time (ev->start_s);
  g_autofree char *dur = plx_format_time (ev->end_s - ev->start_s);
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "<b>%s</b>: %s%s", plx_task_kind_display_name (ev->kind), label, separator);
  g_string_append_printf (text, per_device ? _("GPU %u, %s stream") : _("Stage %u, %s stream"), ev->rank,
                          plx_stream_to_string (ev->stream));
  if (ev->micro_batch != PLX_NO_MICRO_BATCH)
    g_string_append_printf (text, _(", micro-batch %u"), ev->micro_batch);
  g_string_append (text, separator);
  g_string_append_printf (text, _("Starts at %s, takes %s"), start, dur);
  if (ev->flops > 0 || ev->bytes > 0)
    {
      g_autofree char *flops = plx_format_flops (ev->flops);
      g_autofree char *bytes = plx_format_bytes (ev->bytes);
      g_string_append (text, separator);
      if (ev->flops > 0 && ev->bytes > 0)
        g_string_append_printf (text, "%s, %s", flops, bytes);
      else
        g_string_append (text, ev->flops > 0 ? flops : bytes);
    }
  return g_string_free (text, FALSE);
}

/* The bar under (x, y) (0..1 of the chart). As plx_timeline_layout_hit, a thin bar
 * is found a pixel and a half beside it, but only where no bar is under the pointer
 * itself: in a dense stretch the neighbouring column would otherwise answer. */
static gboolean
bar_at (const PlxTimelineLayout *l, double x, double y, PlxChartBar *bar)
{
  for (guint pass = 0; pass < 2; pass++)
    {
      double slop = pass == 0 ? 0.0 : 1.5 / l->width_px;
      /* The column shares lie over the bars, as they are drawn after them. */
      for (guint i = l->shares->len; i-- > 0;)
        {
          plx_timeline_layout_share_bar (l, i, bar);
          if (y >= bar->y0 && y <= bar->y1 && x >= bar->x0 - slop && x < bar->x1 + slop)
            return TRUE;
        }
      for (guint i = l->bars->len; i-- > 0;)
        {
          const PlxChartBar *b = &g_array_index (l->bars, PlxChartBar, i);
          if (y >= b->y0 && y <= b->y1 && x >= b->x0 - slop && x < b->x1 + slop)
            {
              *bar = *b;
              return TRUE;
            }
        }
    }
  return FALSE;
}

/* A pixel column of events narrower than a pixel: how busy it is. The bar's height is
 * that share averaged with the columns beside it (plx-timeline-chart.c, against
 * aliasing); the tooltip gives the column's own, from the events themselves. */
static char *
describe_column (const PlxTimeline *tl, const PlxTimelineLayout *l, const PlxChartBar *bar)
{
  PlxTimelineIter ev_iter;
  PlxTimelineEvent ev_buf;
  gint ri = row_at_y (l, (bar->y0 + bar->y1) / 2);
  double busy = 0.0, col_t0, col_t1, span = l->t1_s - l->t0_s, plot = l->plot_x1 - l->plot_x0;
  g_autofree char *from = NULL, *width = NULL;
  GString *text = g_string_new (NULL);

  col_t0 = l->t0_s + (bar->x0 - l->plot_x0) / plot * span;
  col_t1 = l->t0_s + (bar->x1 - l->plot_x0) / plot * span;
  if (ri >= 0)
    {
      const PlxChartRow *row = &g_array_index (l->rows, PlxChartRow, ri);
      for (plx_timeline_iter_init (&ev_iter, tl); plx_timeline_iter_next (&ev_iter, &ev_buf);)
        {
          const PlxTimelineEvent *ev = &ev_buf;
          double o = MIN (ev->end_s, col_t1) - MAX (ev->start_s, col_t0);
          /* A merged row (stream -1) holds every communication stream. */
          if (o > 0.0 && ev->rank == row->rank &&
              (row->stream >= 0 ? ev->stream == (guint8) row->stream : ev->stream != PLX_STREAM_COMPUTE))
            busy += o;
        }
      busy = MIN (busy / (col_t1 - col_t0), 1.0);
    }
  from = plx_format_time (MAX (col_t0, 0.0));
  width = plx_format_time_short (col_t1 - col_t0);
  g_string_append_printf (text,
                          g_dngettext (GETTEXT_PACKAGE, "<b>%u event</b> in this pixel column (%s from %s)",
                                       "<b>%u events</b> in this pixel column (%s from %s)", bar->n_events),
                          bar->n_events, width, from);
  g_string_append_c (text, '\n');
  g_string_append_printf (text, _("Too dense to draw one by one: the bar's height is the share of the time "
                                  "the stream is busy, averaged with the two columns on each side; in this "
                                  "column alone %.0f %%."),
                          100.0 * busy);
  return g_string_free (text, FALSE);
}

char *
plx_chart_view_describe_at (PlxChartView *self,
                            double        x,
                            double        y)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  const PlxTimelineLayout *l;
  PlxChartBar bar_buf;
  const PlxChartBar *bar = &bar_buf;
  PlxTimelineEvent bar_event;
  g_autofree char *event = NULL;

  if (self->kind != PLX_CHART_TIMELINE || self->result == NULL || w <= 0 || h <= 0)
    return NULL;
  l = ensure_layout (self);
  if (l == NULL)
    return NULL;
  if (!bar_at (l, x / w, y / h, &bar_buf) || event_at (self, (gint) bar->event, &bar_event) == NULL)
    return NULL;
  event = describe_event (&bar_event, per_device (self), "\n");
  if (bar->aggregate)
    {
      g_autofree char *column = describe_column (self->result->timeline, l, bar);
      return g_strdup_printf ("%s\n\n%s\n%s", column, _("The first of them:"), event);
    }
  return g_steal_pointer (&event);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip, PlxChartView *self)
{
  g_autofree char *text = NULL;
  PlxTimelineEvent selected;

  /* Asked for from the keyboard, the tooltip tells the selected event. */
  if (keyboard && event_at (self, self->selected, &selected) != NULL)
    text = describe_event (&selected, per_device (self), "\n");
  else
    text = plx_chart_view_describe_at (self, x, y);
  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_markup (tooltip, text);
  return TRUE;
}

/* Each stage's compute stream: the share of [a, b] it is busy. Events of one stream
 * do not overlap, so their overlaps with the range add up. */
static void
compute_range_busy (PlxChartView *self)
{
  PlxTimelineIter ev_iter;
  PlxTimelineEvent ev_buf;
  const PlxTimeline *tl = self->result->timeline;
  double a = MIN (self->range_t0, self->range_t1), b = MAX (self->range_t0, self->range_t1);

  g_clear_pointer (&self->range_busy, g_free);
  self->range_n = tl->n_ranks;
  self->range_busy = g_new0 (double, MAX (tl->n_ranks, 1));
  for (plx_timeline_iter_init (&ev_iter, tl); plx_timeline_iter_next (&ev_iter, &ev_buf);)
    {
      const PlxTimelineEvent *ev = &ev_buf;
      double o = MIN (ev->end_s, b) - MAX (ev->start_s, a);
      if (ev->stream == PLX_STREAM_COMPUTE && ev->rank < tl->n_ranks && o > 0.0)
        self->range_busy[ev->rank] += o;
    }
  for (guint r = 0; r < tl->n_ranks; r++)
    self->range_busy[r] = b > a ? MIN (self->range_busy[r] / (b - a), 1.0) : 0.0;
}

static char *
describe_range (PlxChartView *self)
{
  double a = MIN (self->range_t0, self->range_t1), b = MAX (self->range_t0, self->range_t1);
  g_autofree char *range = plx_format_time_range (a, b);
  g_autofree char *dur = plx_format_time_short (b - a);
  GString *text = g_string_new (NULL);
  guint n = self->range_n;

  g_string_append_printf (text, _("Range %s: <b>%s</b>"), range, dur);
  if (n == 0)
    return g_string_free (text, FALSE);
  g_string_append (text, "  ·  ");
  if (n <= 8)
    {
      g_string_append (text, _("compute busy:"));
      for (guint r = 0; r < n; r++)
        {
          g_string_append (text, r == 0 ? " " : ", ");
          g_string_append_printf (text, per_device (self) ? _("GPU %u %.0f %%") : _("stage %u %.0f %%"), r,
                                  100.0 * self->range_busy[r]);
        }
    }
  else
    {
      double lo = 1.0, hi = 0.0, sum = 0.0;
      for (guint r = 0; r < n; r++)
        {
          lo = MIN (lo, self->range_busy[r]);
          hi = MAX (hi, self->range_busy[r]);
          sum += self->range_busy[r];
        }
      g_string_append_printf (text, _("compute busy %.0f–%.0f %% (mean %.0f %%) over %u stages"), 100.0 * lo,
                              100.0 * hi, 100.0 * sum / n, n);
    }
  return g_string_free (text, FALSE);
}

/* Two lines, always, so the chart above does not jump when they change: the selected
 * event and the measured range, or how to get them. */
static void
update_details (PlxChartView *self)
{
  PlxTimelineEvent ev_event;
  const PlxTimelineEvent *ev = event_at (self, self->selected, &ev_event);
  g_autofree char *line1 = NULL, *line2 = NULL;
  char *details;

  if (self->have_range && self->result != NULL)
    compute_range_busy (self);
  line1 = ev != NULL ? describe_event (ev, per_device (self), "  ·  ")
                     : g_markup_escape_text (_("No event selected: click one, or step through the marked row "
                                               "with ] and [ (Up and Down change the row)."),
                                             -1);
  line2 = self->have_range && self->result != NULL
            ? describe_range (self)
            : g_markup_escape_text (_("Shift+drag across the chart to measure a time range; Escape clears it."), -1);
  details = g_strconcat (line1, "\n", line2, NULL);
  if (g_strcmp0 (details, self->details) == 0)
    {
      g_free (details);
      return;
    }
  g_free (self->details);
  self->details = details;
  g_signal_emit (self, signals[SIGNAL_DETAILS_CHANGED], 0);
}

/* ---- the object ------------------------------------------------------------------ */

static void
plx_chart_view_dispose (GObject *object)
{
  PlxChartView *self = PLX_CHART_VIEW (object);

  g_clear_pointer (&self->result, plx_result_unref);
  g_clear_pointer (&self->pinned, plx_result_unref);
  g_clear_pointer (&self->layout, plx_timeline_layout_free);
  g_clear_pointer (&self->error, g_free);
  g_clear_pointer (&self->range_busy, g_free);
  g_clear_pointer (&self->details, g_free);
  G_OBJECT_CLASS (plx_chart_view_parent_class)->dispose (object);
}

static void
plx_chart_view_class_init (PlxChartViewClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = plx_chart_view_dispose;
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                          NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_DETAILS_CHANGED] = g_signal_new ("details-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
plx_chart_view_init (PlxChartView *self)
{
  GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  GtkGesture *drag = gtk_gesture_drag_new ();
  GtkGesture *pinch = gtk_gesture_zoom_new ();

  self->selected = -1;
  self->export_dark = -1;
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self), draw_func, NULL, NULL);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (on_query_tooltip), self);
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

GtkWidget *
plx_chart_view_new (PlxChartKind kind)
{
  PlxChartView *self = g_object_new (PLX_TYPE_CHART_VIEW, NULL);

  self->kind = kind;
  if (kind == PLX_CHART_TIMELINE)
    {
      /* The timeline is worked with the keyboard too: it takes focus. */
      GtkEventController *keys = gtk_event_controller_key_new ();
      GtkEventController *motion = gtk_event_controller_motion_new ();
      GtkEventController *focus = gtk_event_controller_focus_new ();

      gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
      g_signal_connect (keys, "key-pressed", G_CALLBACK (on_key_pressed), self);
      gtk_widget_add_controller (GTK_WIDGET (self), keys);
      g_signal_connect (motion, "enter", G_CALLBACK (on_motion), self);
      g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
      g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
      gtk_widget_add_controller (GTK_WIDGET (self), motion);
      g_signal_connect (focus, "enter", G_CALLBACK (on_focus_change), self);
      g_signal_connect (focus, "leave", G_CALLBACK (on_focus_change), self);
      gtk_widget_add_controller (GTK_WIDGET (self), focus);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Timeline"), -1);
    }
  update_details (self);
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
  /* Event numbers are the old timeline's; a range is kept while it fits the step. */
  self->selected = -1;
  if (self->have_range && MAX (self->range_t0, self->range_t1) > step_time (self))
    self->have_range = FALSE;
  invalidate (self);
  update_details (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
plx_chart_view_set_error (PlxChartView *self,
                          const char   *message)
{
  if (g_strcmp0 (self->error, message) == 0)
    return;
  g_free (self->error);
  self->error = g_strdup (message);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

const char *
plx_chart_view_get_error (PlxChartView *self)
{
  return self->error;
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
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
plx_chart_view_set_window (PlxChartView *self,
                           double        t0_s,
                           double        t1_s)
{
  self->t0 = t0_s;
  self->t1 = t1_s;
  invalidate (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
plx_chart_view_get_window (PlxChartView *self,
                           double       *t0_s,
                           double       *t1_s)
{
  effective_window (self, t0_s, t1_s);
}

gboolean
plx_chart_view_shows_whole_step (PlxChartView *self)
{
  return self->t1 <= self->t0;
}

PlxResult *
plx_chart_view_get_result (PlxChartView *self)
{
  return self->result;
}

gboolean
plx_chart_view_get_dark (PlxChartView *self)
{
  return self->dark;
}

void
plx_chart_view_zoom_in (PlxChartView *self)
{
  zoom_step (self, TRUE, 0.5);
}

void
plx_chart_view_zoom_out (PlxChartView *self)
{
  zoom_step (self, FALSE, 0.5);
}

void
plx_chart_view_reset_zoom (PlxChartView *self)
{
  plx_chart_view_set_window (self, 0.0, 0.0);
}

void
plx_chart_view_center_on (PlxChartView *self,
                          double        t_s)
{
  double t0, t1;

  effective_window (self, &t0, &t1);
  pan_by (self, t_s - (t0 + t1) / 2);
}

void
plx_chart_view_get_plot_bounds (PlxChartView *self,
                                double       *x0,
                                double       *x1)
{
  const PlxTimelineLayout *l = ensure_layout (self);
  double w = gtk_widget_get_width (GTK_WIDGET (self));

  *x0 = l != NULL ? l->plot_x0 * w : 0.0;
  *x1 = l != NULL ? l->plot_x1 * w : w;
}

gint
plx_chart_view_get_selected (PlxChartView *self)
{
  return self->selected;
}

gboolean
plx_chart_view_get_range (PlxChartView *self,
                          double       *t0_s,
                          double       *t1_s)
{
  if (t0_s != NULL)
    *t0_s = MIN (self->range_t0, self->range_t1);
  if (t1_s != NULL)
    *t1_s = MAX (self->range_t0, self->range_t1);
  return self->have_range;
}

const char *
plx_chart_view_get_details (PlxChartView *self)
{
  return self->details;
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

gboolean
plx_chart_view_export_with (PlxChartView *self,
                            const char   *path,
                            double        width,
                            double        height,
                            double        scale,
                            int           dark,
                            const char   *title,
                            GError      **error)
{
  PlxRenderStyle style;
  gboolean ok;

  if (width <= 0)
    width = MAX (gtk_widget_get_width (GTK_WIDGET (self)), 800);
  if (height <= 0)
    height = MAX (gtk_widget_get_height (GTK_WIDGET (self)), 500);
  self->export_dark = dark;
  self->export_title = title;
  plx_render_style_init (&style, dark >= 0 ? dark : self->dark, scale);
  ok = plx_render_export (path, width, height, scale, &style, export_draw, self, error);
  self->export_dark = -1;
  self->export_title = NULL;
  return ok;
}
