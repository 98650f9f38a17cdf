/* Drawn over the chart rather than inside the layout: the band belongs to the
 * result's sampling, not to the simulated timeline, and an export draws it the same. */
#include <math.h>

#include <glib/gi18n-lib.h>

#include "plx-render-text.h"
#include "plx-timeline-band.h"

gboolean
plx_timeline_band_extent (const PlxTimelineLayout *l,
                          double                   lo_s,
                          double                   hi_s,
                          double                  *x0,
                          double                  *x1)
{
  double span = l->t1_s - l->t0_s, a, b;

  if (!isfinite (lo_s) || !isfinite (hi_s) || !(span > 0.0) || hi_s < lo_s)
    return FALSE;
  if (hi_s < l->t0_s || lo_s > l->t1_s)
    return FALSE;
  a = (MAX (lo_s, l->t0_s) - l->t0_s) / span;
  b = (MIN (hi_s, l->t1_s) - l->t0_s) / span;
  *x0 = l->plot_x0 + a * (l->plot_x1 - l->plot_x0);
  *x1 = l->plot_x0 + b * (l->plot_x1 - l->plot_x0);
  return TRUE;
}

void
plx_timeline_band_render (const PlxTimelineLayout *l,
                          const PlxRenderStyle    *style,
                          cairo_t                 *cr,
                          double                   width,
                          double                   height,
                          double                   lo_s,
                          double                   hi_s)
{
  double x0, x1, y0 = l->plot_y0 * height, y1 = l->plot_y1 * height;
  PlxColor c = style->foreground;

  if (!plx_timeline_band_extent (l, lo_s, hi_s, &x0, &x1))
    return;
  x0 *= width;
  x1 *= width;
  /* At least two pixels wide, so a narrow band is still seen. */
  if (x1 - x0 < 2.0)
    x0 = x1 - 2.0;
  cairo_save (cr);
  cairo_set_source_rgba (cr, c.r, c.g, c.b, 0.14);
  cairo_rectangle (cr, x0, y0, x1 - x0, y1 - y0);
  cairo_fill (cr);
  cairo_set_source_rgba (cr, c.r, c.g, c.b, 0.6);
  cairo_set_line_width (cr, 1.0);
  cairo_set_dash (cr, (const double[]) { 3.0, 3.0 }, 2, 0.0);
  cairo_move_to (cr, round (x0) + 0.5, y0);
  cairo_line_to (cr, round (x0) + 0.5, y1);
  cairo_move_to (cr, round (x1) - 0.5, y0);
  cairo_line_to (cr, round (x1) - 0.5, y1);
  cairo_stroke (cr);
  /* Inside the band's top: above the plot is the overview or the title. The band
   * lies over the step's last events, whose bars would run through the text: it
   * stands on a backdrop of the chart's background. */
  {
    const char *label = _("p5 – p95");
    double fs = style->font_size * 0.85, cx = 0.5 * (x0 + x1);
    double tw = plx_render_text_width (cr, style, label, fs, PLX_TEXT_NORMAL);
    PlxColor bg = style->background;

    cairo_set_source_rgba (cr, bg.r, bg.g, bg.b, 0.9);
    cairo_rectangle (cr, cx - 0.5 * tw - 3.0, y0 + 1.0, tw + 6.0, 1.4 * fs + 2.0);
    cairo_fill (cr);
    plx_render_text (cr, style, label, cx, y0 + 2.0, fs, style->foreground, 0.5, 0.0, PLX_TEXT_NORMAL);
  }
  cairo_restore (cr);
}
