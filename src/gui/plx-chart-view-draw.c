/* The chart view drawn (plx-chart-view-private.h): the renderer of src/render/ on the
 * widget, the greyed chart under an error, the navigation drawn on top (the measured
 * range, the selection, the focused row), and the same renderer into a file. */
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

/* ---- the chart ------------------------------------------------------------------- */

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

        plx_chart_view_effective_window (self, &t0, &t1);
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
        l = plx_chart_view_build_layout (self, width, height);
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
  double x0 = plx_chart_view_x_of_time (l, MAX (a, l->t0_s), width), x1 = plx_chart_view_x_of_time (l, MIN (b, l->t1_s), width);
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
  const PlxTimelineEvent *ev = plx_chart_view_event_at (self, self->selected, &ev_event);
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
      gint ri = plx_chart_view_row_of_event (l, ev);
      if (ri >= 0)
        {
          const PlxChartRow *row = &g_array_index (l->rows, PlxChartRow, ri);
          double x0 = plx_chart_view_x_of_time (l, MAX (ev->start_s, l->t0_s), width);
          double x1 = plx_chart_view_x_of_time (l, MIN (ev->end_s, l->t1_s), width);
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
          const PlxChartRow *row = &g_array_index (l->rows, PlxChartRow, plx_chart_view_focus_row (self, l));
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

void
plx_chart_view_draw_func (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
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
