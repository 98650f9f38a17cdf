/* The layout is computed apart from drawing (as the other charts do) so a test can
 * check the order and proportions, and a GUI page can hit-test the bars. */
#include <math.h>
#include <string.h>
#include <stdio.h>

#include <glib/gi18n-lib.h>

#include "plx-render-text.h"
#include "plx-tornado-chart.h"
#include "../core/base/plx-minmax.h"

#define PLOT_X0 0.34   /* labels to the left of this */
#define PLOT_X1 0.95
#define PLOT_Y0 0.14
#define PLOT_Y1 0.88

static gint
by_width (gconstpointer pa, gconstpointer pb)
{
  const PlxTornadoRow *a = pa, *b = pb;
  double wa = fabs (a->high - a->low), wb = fabs (b->high - b->low);

  /* Ties in input order, so the same figures always draw the same chart. */
  if (wa != wb)
    return wa < wb ? 1 : -1;
  return a->index < b->index ? -1 : a->index > b->index;
}

PlxTornadoLayout *
plx_tornado_layout_new (const PlxTornadoBar *bars,
                        guint                n_bars,
                        guint                max_rows,
                        const char          *title,
                        const char          *axis_label)
{
  PlxTornadoLayout *l = g_new0 (PlxTornadoLayout, 1);
  double row_h;

  l->rows = g_array_new (FALSE, TRUE, sizeof (PlxTornadoRow));
  l->labels = g_new0 (char *, n_bars + 1);
  l->plot_x0 = PLOT_X0;
  l->plot_x1 = PLOT_X1;
  l->plot_y0 = PLOT_Y0;
  l->plot_y1 = PLOT_Y1;
  g_strlcpy (l->title, title != NULL ? title : _("Sensitivity"), sizeof l->title);
  g_strlcpy (l->axis_label, axis_label != NULL ? axis_label : _("change of the output"), sizeof l->axis_label);
  for (guint i = 0; i < n_bars; i++)
    {
      PlxTornadoRow r = { 0 };
      l->labels[i] = g_strdup (bars[i].label != NULL ? bars[i].label : "");
      if (!isfinite (bars[i].low) || !isfinite (bars[i].high))
        continue;
      r.index = i;
      r.low = bars[i].low;
      r.high = bars[i].high;
      g_array_append_val (l->rows, r);
    }
  g_array_sort (l->rows, by_width);
  if (l->rows->len > max_rows)
    g_array_set_size (l->rows, max_rows);

  l->span = 0.0;
  for (guint i = 0; i < l->rows->len; i++)
    {
      const PlxTornadoRow *r = &g_array_index (l->rows, PlxTornadoRow, i);
      l->span = plx_max (l->span, plx_max (fabs (r->low), fabs (r->high)));
    }
  l->zero_x = 0.5 * (l->plot_x0 + l->plot_x1);
  row_h = l->rows->len > 0 ? (l->plot_y1 - l->plot_y0) / l->rows->len : 0.0;
  for (guint i = 0; i < l->rows->len; i++)
    {
      PlxTornadoRow *r = &g_array_index (l->rows, PlxTornadoRow, i);
      /* Symmetric about no change, the largest change at the plot's edge; with no
       * change at all every bar is a line on zero (never a division by 0). */
      double half = 0.5 * (l->plot_x1 - l->plot_x0), k = l->span > 0.0 ? half / l->span : 0.0;
      r->low_x = l->zero_x + k * r->low;
      r->high_x = l->zero_x + k * r->high;
      r->x0 = MIN (MIN (r->low_x, r->high_x), l->zero_x);
      r->x1 = MAX (MAX (r->low_x, r->high_x), l->zero_x);
      r->y0 = l->plot_y0 + (i + 0.15) * row_h;
      r->y1 = l->plot_y0 + (i + 0.85) * row_h;
    }
  return l;
}

void
plx_tornado_layout_free (PlxTornadoLayout *layout)
{
  if (layout == NULL)
    return;
  g_array_unref (layout->rows);
  g_strfreev (layout->labels);
  g_free (layout);
}

PlxColor
plx_tornado_low_color (const PlxRenderStyle *style)
{
  return style->kind[PLX_KIND_DP_COMM];
}

PlxColor
plx_tornado_high_color (const PlxRenderStyle *style)
{
  return style->kind[PLX_KIND_FORWARD];
}

/* The title as drawn: cut at a character and ended with "…" where it is wider than
 * the chart less its margins (a long scenario name ran off a 1000 px window). */
static char *
fitted_title (const PlxTornadoLayout *l, const PlxRenderStyle *style, cairo_t *cr, double width)
{
  GString *t = g_string_new (l->title);
  double room = width - 24.0;

  while (t->len > 0 && plx_render_text_width (cr, style, t->str, style->title_size, PLX_TEXT_BOLD) > room)
    {
      /* Drop the last character before the ellipsis added on an earlier pass. */
      gsize keep = g_str_has_suffix (t->str, "…") ? t->len - strlen ("…") : t->len;
      const char *prev = g_utf8_find_prev_char (t->str, t->str + keep);
      g_string_truncate (t, prev != NULL ? (gsize) (prev - t->str) : 0);
      if (t->len > 0)
        g_string_append (t, "…");
    }
  return g_string_free (t, FALSE);
}

/* Top right, right-aligned to the plot's edge: which colour is which end of the input. */
static void
draw_legend (const PlxTornadoLayout *l, const char *title, const PlxRenderStyle *style, cairo_t *cr, double width,
             PlxColor low_color, PlxColor high_color)
{
  const char *low_text = _("input −1 %"), *high_text = _("input +1 %");
  double fs = style->font_size * 0.9, sw = fs, gap = 14.0, y = 10.0 + 0.5 * style->title_size;
  double x = l->plot_x1 * width;
  double hw = plx_render_text_width (cr, style, high_text, fs, PLX_TEXT_NORMAL);
  double lw = plx_render_text_width (cr, style, low_text, fs, PLX_TEXT_NORMAL);
  double title_w = plx_render_text_width (cr, style, title, style->title_size, PLX_TEXT_BOLD);

  /* Beside the title when both fit on the line, else on a line of its own under it. */
  if (12.0 + title_w + 2.0 * gap > x - hw - lw - 2.0 * (sw + 4.0) - gap)
    y += style->title_size + 6.0;
  x -= hw;
  plx_render_text (cr, style, high_text, x, y, fs, style->foreground, 0.0, 0.5, PLX_TEXT_NORMAL);
  x -= sw + 4.0;
  plx_render_set_color (cr, high_color);
  cairo_rectangle (cr, x, y - 0.5 * sw, sw, sw);
  cairo_fill (cr);
  x -= gap + lw;
  plx_render_text (cr, style, low_text, x, y, fs, style->foreground, 0.0, 0.5, PLX_TEXT_NORMAL);
  x -= sw + 4.0;
  plx_render_set_color (cr, low_color);
  cairo_rectangle (cr, x, y - 0.5 * sw, sw, sw);
  cairo_fill (cr);
}

/* The plot's top and bottom in pixels, and the pixels per unit of the layout's height
 * fractions. The layout's fractions, with room kept in pixels above the plot for the
 * title and legend and below it for the tick figures and the axis label: in a short
 * chart (two bars, 188 px) 12 % of the height was less than the two lines and the
 * label sat on the "0". Two bars in a tall window were 170 px slabs: a row is at most
 * 5 font sizes. Rows keep their places within the plot. */
static void
plot_pixels (const PlxTornadoLayout *l, const PlxRenderStyle *style, double height, double *y0, double *y1,
             double *y_scale)
{
  double fs = style->font_size;

  *y0 = MAX (l->plot_y0 * height, 16.0 + 1.4 * style->title_size);
  *y1 = MAX (*y0 + 1.0, MIN (l->plot_y1 * height, height - (22.0 + 2.4 * fs)));
  *y1 = MIN (*y1, *y0 + MAX (l->rows->len, 1u) * 5.0 * fs);
  *y_scale = (*y1 - *y0) / (l->plot_y1 - l->plot_y0);
}

void
plx_tornado_chart_row_pixels (const PlxTornadoLayout *l,
                              const PlxRenderStyle   *style,
                              double                  height,
                              guint                   row,
                              double                 *top,
                              double                 *bottom)
{
  const PlxTornadoRow *r = &g_array_index (l->rows, PlxTornadoRow, row);
  double y0, y1, y_scale;

  plot_pixels (l, style, height, &y0, &y1, &y_scale);
  *top = y0 + (r->y0 - l->plot_y0) * y_scale;
  *bottom = y0 + (r->y1 - l->plot_y0) * y_scale;
}

void
plx_tornado_chart_render (const PlxTornadoLayout *l,
                          const PlxRenderStyle   *style,
                          cairo_t                *cr,
                          double                  width,
                          double                  height)
{
  double fs = style->font_size, zx = round (l->zero_x * width) + 0.5;
  double y0, y1, y_scale;
  g_autofree char *title = NULL;
  /* The input at -1 % in the light blue, at +1 % in the dark one, as the legend says. */
  PlxColor low_color = plx_tornado_low_color (style), high_color = plx_tornado_high_color (style);
  double row_px;
  /* The figures go under the input's name when a row has room for two lines: beside
   * the bar, the widest bar's reached the chart's edge and were cut off there. */
  gboolean two_lines;

  plot_pixels (l, style, height, &y0, &y1, &y_scale);
  row_px = l->rows->len > 0 ? (y1 - y0) / l->rows->len : 0.0;
  two_lines = row_px >= 2.3 * fs;

  cairo_save (cr);
  plx_render_set_color (cr, style->background);
  cairo_paint (cr);
  title = fitted_title (l, style, cr, width);
  plx_render_text (cr, style, title, 12.0, 8.0, style->title_size, style->foreground, 0.0, 0.0, PLX_TEXT_BOLD);
  if (l->rows->len == 0)
    {
      plx_render_text (cr, style, _("No input moves the output"), width / 2.0, height / 2.0, fs, style->muted, 0.5,
                       0.5, PLX_TEXT_NORMAL);
      cairo_restore (cr);
      return;
    }
  for (guint i = 0; i < l->rows->len; i++)
    {
      const PlxTornadoRow *r = &g_array_index (l->rows, PlxTornadoRow, i);
      double top, bottom, mid;
      char value[64];

      plx_tornado_chart_row_pixels (l, style, height, i, &top, &bottom);
      mid = 0.5 * (top + bottom);

      /* Each side coloured by which end of the input it shows, from no change out. */
      plx_render_set_color (cr, low_color);
      cairo_rectangle (cr, MIN (r->low_x * width, zx), top, fabs (r->low_x * width - zx), bottom - top);
      cairo_fill (cr);
      plx_render_set_color (cr, high_color);
      cairo_rectangle (cr, MIN (r->high_x * width, zx), top, fabs (r->high_x * width - zx), bottom - top);
      cairo_fill (cr);
      g_snprintf (value, sizeof value, "%+.3g / %+.3g", r->low, r->high);
      if (two_lines)
        {
          plx_render_text (cr, style, l->labels[r->index], l->plot_x0 * width - 8.0, mid, fs, style->foreground,
                           1.0, 1.0, PLX_TEXT_NORMAL);
          plx_render_text (cr, style, value, l->plot_x0 * width - 8.0, mid + 1.0, fs * 0.85, style->muted, 1.0, 0.0,
                           PLX_TEXT_NORMAL);
        }
      else
        {
          /* One line: the name, and the figures beside the bar only where they fit. */
          double vw = plx_render_text_width (cr, style, value, fs * 0.85, PLX_TEXT_NORMAL);
          plx_render_text (cr, style, l->labels[r->index], l->plot_x0 * width - 8.0, mid, fs, style->foreground, 1.0,
                           0.5, PLX_TEXT_NORMAL);
          if (r->x1 * width + 4.0 + vw <= width - 4.0)
            plx_render_text (cr, style, value, r->x1 * width + 4.0, mid, fs * 0.85, style->muted, 0.0, 0.5,
                             PLX_TEXT_NORMAL);
        }
    }
  draw_legend (l, title, style, cr, width, low_color, high_color);
  plx_render_set_color (cr, style->foreground);
  cairo_set_line_width (cr, 1.0);
  cairo_move_to (cr, zx, y0);
  cairo_line_to (cr, zx, y1);
  cairo_stroke (cr);
  {
    char lo[32], hi[32];
    g_snprintf (lo, sizeof lo, "%+.3g", -l->span);
    g_snprintf (hi, sizeof hi, "%+.3g", l->span);
    plx_render_text (cr, style, lo, l->plot_x0 * width, y1 + 6.0, fs * 0.9, style->muted, 0.5, 0.0, PLX_TEXT_NORMAL);
    plx_render_text (cr, style, "0", zx, y1 + 6.0, fs * 0.9, style->muted, 0.5, 0.0, PLX_TEXT_NORMAL);
    plx_render_text (cr, style, hi, l->plot_x1 * width, y1 + 6.0, fs * 0.9, style->muted, 0.5, 0.0, PLX_TEXT_NORMAL);
  }
  /* Under the tick figures (y1 leaves 22 px + 2.4 font sizes for both). */
  plx_render_text (cr, style, l->axis_label, zx, y1 + 14.0 + 2.4 * fs, fs, style->foreground, 0.5, 1.0,
                   PLX_TEXT_BOLD);
  cairo_restore (cr);
}
