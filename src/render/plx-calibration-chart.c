/* The calibration chart (plx-calibration-chart.h). The layout is fixed margins in
 * pixels (the labels' room does not grow with the window) and whole decades on x,
 * so a test can compute a point's pixel by hand. */
#include <math.h>
#include <stdio.h>

#include <glib/gi18n-lib.h>

#include "plx-axis.h"
#include "plx-calibration-chart.h"
#include "plx-render-text.h"

#define MARGIN_LEFT 64.0    /* the y labels */
#define MARGIN_RIGHT 24.0
#define TITLE_TOP 10.0
#define LEGEND_GAP 10.0     /* between the title and the legend */
#define LEGEND_SWATCH 26.0  /* a legend entry's line or marker and its gap to the text */
#define LEGEND_SPACE 16.0   /* between entries */
#define AXIS_TITLE_ROOM 26.0  /* above the plot: the y axis's title */
#define MARGIN_BOTTOM 56.0  /* the x labels and the axis title */
#define MARKER 4.0          /* half a marker's size */

/* The finite values of the curve's points and lines, for the axes' ranges. */
static void
extend (const GArray *xy, double *x_lo, double *x_hi, double *y_hi)
{
  for (guint i = 0; xy != NULL && i < xy->len; i++)
    {
      const PlxCalXY *p = &g_array_index (xy, PlxCalXY, i);
      if (!isfinite (p->x) || !isfinite (p->y) || p->x <= 0.0)
        continue;
      *x_lo = MIN (*x_lo, p->x);
      *x_hi = MAX (*x_hi, p->x);
      *y_hi = MAX (*y_hi, p->y);
    }
}

static const char *
legend_text (const PlxCalCurve *curve, guint e)
{
  if (e == 0)
    return _("calibrated");
  if (e == 1)
    return _("before (the scenario's cluster)");
  return ((const PlxCalSeries *) curve->series->pdata[e - 2])->label;
}

static double
legend_font (const PlxRenderStyle *style)
{
  return style->font_size * 0.9;
}

/* Walks the legend's entries as drawn, from estimated widths (the layout has no
 * cairo_t; Pango's widths are below the estimate, so an entry never passes the
 * edge). Calls `place` with each entry's left and its line, if given. */
typedef void (*LegendPlace) (const PlxCalCurve *curve, guint e, double x, guint row, gpointer data);

static guint
legend_walk (const PlxCalCurve *curve, const PlxRenderStyle *style, double width, LegendPlace place, gpointer data)
{
  double x = 12.0;
  guint row = 0;

  for (guint e = 0; e < 2 + curve->series->len; e++)
    {
      double tw = plx_render_text_estimate (legend_text (curve, e), legend_font (style));
      if (e == 1 && curve->before->len == 0)
        continue;
      if (x > 12.0 && x + LEGEND_SWATCH + tw > width - 12.0)
        {
          x = 12.0;
          row++;
        }
      if (place != NULL)
        place (curve, e, x, row, data);
      x += LEGEND_SWATCH + tw + LEGEND_SPACE;
    }
  return row + 1;
}

static double
legend_row_y (const PlxRenderStyle *style, guint row)
{
  return TITLE_TOP + style->title_size + LEGEND_GAP + 0.5 * legend_font (style) + row * (legend_font (style) + 8.0);
}

void
plx_calibration_chart_layout (const PlxCalCurve    *curve,
                              const PlxRenderStyle *style,
                              double                width,
                              double                height,
                              PlxCalChartLayout    *l)
{
  double x_lo = INFINITY, x_hi = -INFINITY, y_hi = -INFINITY;

  *l = (PlxCalChartLayout) { 0 };
  l->legend_rows = curve != NULL ? legend_walk (curve, style, width, NULL, NULL) : 0;
  l->plot_x0 = MARGIN_LEFT;
  l->plot_x1 = MAX (width - MARGIN_RIGHT, l->plot_x0 + 1.0);
  /* Under the legend's last line, with room for the y axis's title. */
  l->plot_y0 = legend_row_y (style, l->legend_rows) + AXIS_TITLE_ROOM - legend_font (style);
  l->plot_y1 = MAX (height - MARGIN_BOTTOM, l->plot_y0 + 1.0);
  if (curve != NULL)
    {
      extend (curve->fitted, &x_lo, &x_hi, &y_hi);
      extend (curve->before, &x_lo, &x_hi, &y_hi);
      for (guint s = 0; s < curve->series->len; s++)
        {
          const PlxCalSeries *series = curve->series->pdata[s];
          extend (series->points, &x_lo, &x_hi, &y_hi);
          if (series->own != NULL)
            extend (series->own, &x_lo, &x_hi, &y_hi);
        }
    }
  l->empty = !isfinite (x_lo) || !isfinite (y_hi) || !(y_hi > 0.0);
  if (l->empty)
    {
      l->decade_lo = 0;
      l->decade_hi = 1;
      l->y_max = 1.0;
      l->y_step = 0.2;
      return;
    }
  l->decade_lo = (int) floor (log10 (x_lo));
  l->decade_hi = MAX ((int) ceil (log10 (x_hi)), l->decade_lo + 1);
  if (curve->y_unit == PLX_CAL_Y_EFFICIENCY && y_hi <= 1.0)
    {
      /* Efficiencies on the scale they live on, 0-100 %, so two charts compare. */
      l->y_max = 1.0;
      l->y_step = 0.2;
    }
  else
    {
      l->y_step = plx_axis_nice_step (y_hi, 5);
      l->y_max = ceil (y_hi * 1.02 / l->y_step) * l->y_step;
    }
}

double
plx_calibration_chart_x (const PlxCalChartLayout *l,
                         double                   x)
{
  return l->plot_x0 + (log10 (x) - l->decade_lo) / (l->decade_hi - l->decade_lo) * (l->plot_x1 - l->plot_x0);
}

double
plx_calibration_chart_y (const PlxCalChartLayout *l,
                         double                   y)
{
  return l->plot_y1 - y / l->y_max * (l->plot_y1 - l->plot_y0);
}

PlxColor
plx_calibration_series_color (const PlxRenderStyle *style,
                              guint                 index)
{
  /* Distinct in colour-blind palettes (Okabe and Ito), none the calibrated line's. */
  static const PlxTaskKind order[] = { PLX_KIND_BACKWARD, PLX_KIND_WEIGHT_GRAD, PLX_KIND_TP_COMM, PLX_KIND_PP_SEND,
                                       PLX_KIND_DP_COMM };
  return style->kind[order[index % G_N_ELEMENTS (order)]];
}

/* Square, circle, triangle, diamond, cross: series told apart without colour too. */
static void
marker (cairo_t *cr, guint shape, double x, double y, PlxColor color)
{
  double r = MARKER;

  plx_render_set_color (cr, color);
  switch (shape % 5)
    {
    case 0:
      cairo_rectangle (cr, x - r, y - r, 2 * r, 2 * r);
      break;
    case 1:
      cairo_arc (cr, x, y, r + 0.5, 0, 2 * G_PI);
      break;
    case 2:
      cairo_move_to (cr, x, y - r - 1);
      cairo_line_to (cr, x + r + 1, y + r);
      cairo_line_to (cr, x - r - 1, y + r);
      cairo_close_path (cr);
      break;
    case 3:
      cairo_move_to (cr, x, y - r - 1);
      cairo_line_to (cr, x + r + 1, y);
      cairo_line_to (cr, x, y + r + 1);
      cairo_line_to (cr, x - r - 1, y);
      cairo_close_path (cr);
      break;
    default:
      cairo_set_line_width (cr, 2.0);
      cairo_move_to (cr, x - r, y - r);
      cairo_line_to (cr, x + r, y + r);
      cairo_move_to (cr, x + r, y - r);
      cairo_line_to (cr, x - r, y + r);
      cairo_stroke (cr);
      return;
    }
  cairo_fill (cr);
}

static void
polyline (const PlxCalChartLayout *l, cairo_t *cr, const GArray *xy)
{
  gboolean pen = FALSE;

  for (guint i = 0; i < xy->len; i++)
    {
      const PlxCalXY *p = &g_array_index (xy, PlxCalXY, i);
      if (!isfinite (p->x) || !isfinite (p->y) || p->x <= 0.0)
        {
          pen = FALSE;
          continue;
        }
      if (pen)
        cairo_line_to (cr, plx_calibration_chart_x (l, p->x), plx_calibration_chart_y (l, p->y));
      else
        cairo_move_to (cr, plx_calibration_chart_x (l, p->x), plx_calibration_chart_y (l, p->y));
      pen = TRUE;
    }
  cairo_stroke (cr);
}

static PlxColor
fitted_color (const PlxRenderStyle *style)
{
  return style->kind[PLX_KIND_FORWARD];
}

static void
draw_axes (const PlxCalCurve *curve, const PlxCalChartLayout *l, const PlxRenderStyle *style, cairo_t *cr,
           double width, double height)
{
  g_autoptr (GArray) ticks = g_array_new (FALSE, FALSE, sizeof (PlxAxisTick));
  double fs = style->font_size * 0.9, w = l->plot_x1 - l->plot_x0;
  const char *x_title = curve->x_unit == PLX_CAL_X_FLOPS ? _("GEMM size (FLOPs, log scale)")
                        : curve->role == PLX_CAL_CURVE_MEMORY ? _("bytes read and written (log scale)")
                                                              : _("message size (bytes, log scale)");
  const char *y_title = curve->y_unit == PLX_CAL_Y_BANDWIDTH ? _("link bandwidth, GB/s") : _("efficiency, percent of peak");

  /* At most one label per 80 px, so "100 MB" never meets its neighbour. */
  plx_axis_decade_ticks (l->decade_lo, l->decade_hi, (guint) MAX (2.0, w / 80.0),
                         curve->x_unit == PLX_CAL_X_FLOPS ? "FLOP" : "B", ticks);
  cairo_set_line_width (cr, 1.0);
  for (guint i = 0; i < ticks->len; i++)
    {
      const PlxAxisTick *t = &g_array_index (ticks, PlxAxisTick, i);
      double x = round (l->plot_x0 + t->position * w) + 0.5;
      /* Centred under its grid line, but inside the chart: the last decade's label
       * ("100 GFLOP") is wider than twice the right margin. */
      double half = 0.5 * plx_render_text_width (cr, style, t->label, fs, PLX_TEXT_NORMAL);
      double label_x = MAX (MIN (x, width - 6.0 - half), 6.0 + half);
      plx_render_set_color (cr, style->grid);
      cairo_move_to (cr, x, l->plot_y0);
      cairo_line_to (cr, x, l->plot_y1);
      cairo_stroke (cr);
      plx_render_text (cr, style, t->label, label_x, l->plot_y1 + 6.0, fs, style->muted, 0.5, 0.0, PLX_TEXT_NORMAL);
    }
  for (double v = 0.0; v <= l->y_max * (1.0 + 1e-9); v += l->y_step)
    {
      double y = round (plx_calibration_chart_y (l, v)) + 0.5;
      char label[32];
      if (curve->y_unit == PLX_CAL_Y_BANDWIDTH)
        snprintf (label, sizeof label, "%g", v / 1e9);
      else
        snprintf (label, sizeof label, "%g", round (v * 1000.0) / 10.0);
      plx_render_set_color (cr, style->grid);
      cairo_move_to (cr, l->plot_x0, y);
      cairo_line_to (cr, l->plot_x1, y);
      cairo_stroke (cr);
      plx_render_text (cr, style, label, l->plot_x0 - 6.0, y, fs, style->muted, 1.0, 0.5, PLX_TEXT_NORMAL);
    }
  plx_render_set_color (cr, style->foreground);
  cairo_rectangle (cr, round (l->plot_x0) + 0.5, round (l->plot_y0) + 0.5, round (w), round (l->plot_y1 - l->plot_y0));
  cairo_stroke (cr);
  plx_render_text (cr, style, x_title, 0.5 * (l->plot_x0 + l->plot_x1), height - 8.0, style->font_size,
                   style->foreground, 0.5, 1.0, PLX_TEXT_BOLD);
  plx_render_text (cr, style, y_title, l->plot_x0, l->plot_y0 - 6.0, fs, style->foreground, 0.0, 1.0,
                   PLX_TEXT_NORMAL);
}

typedef struct
{
  const PlxRenderStyle *style;
  cairo_t              *cr;
} LegendDraw;

static void
legend_entry (const PlxCalCurve *curve, guint e, double x, guint row, gpointer data)
{
  const LegendDraw *d = data;
  cairo_t *cr = d->cr;
  double y = legend_row_y (d->style, row);

  if (e < 2)
    {
      plx_render_set_color (cr, e == 0 ? fitted_color (d->style) : d->style->muted);
      cairo_set_line_width (cr, 2.0);
      if (e == 1)
        cairo_set_dash (cr, (const double[]) { 5.0, 3.0 }, 2, 0.0);
      cairo_move_to (cr, x, y);
      cairo_line_to (cr, x + 20.0, y);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0.0);
    }
  else
    marker (cr, e - 2, x + 10.0, y, plx_calibration_series_color (d->style, e - 2));
  plx_render_text (cr, d->style, legend_text (curve, e), x + LEGEND_SWATCH, y, legend_font (d->style),
                   d->style->foreground, 0.0, 0.5, PLX_TEXT_NORMAL);
}

void
plx_calibration_chart_render (const PlxCalCurve    *curve,
                              const char           *title,
                              const char           *empty_text,
                              const PlxRenderStyle *style,
                              cairo_t              *cr,
                              double                width,
                              double                height)
{
  PlxCalChartLayout l;

  plx_calibration_chart_layout (curve, style, width, height, &l);
  cairo_save (cr);
  plx_render_set_color (cr, style->background);
  cairo_paint (cr);
  if (title != NULL)
    plx_render_text (cr, style, title, 12.0, TITLE_TOP, style->title_size, style->foreground, 0.0, 0.0, PLX_TEXT_BOLD);
  if (l.empty)
    {
      plx_render_text (cr, style, empty_text != NULL ? empty_text : _("No measurement to show"), width / 2.0,
                       height / 2.0, style->font_size, style->muted, 0.5, 0.5, PLX_TEXT_NORMAL);
      cairo_restore (cr);
      return;
    }
  draw_axes (curve, &l, style, cr, width, height);
  cairo_rectangle (cr, l.plot_x0, l.plot_y0, l.plot_x1 - l.plot_x0, l.plot_y1 - l.plot_y0);
  cairo_save (cr);
  cairo_clip (cr);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  if (curve->before->len > 0)
    {
      plx_render_set_color (cr, style->muted);
      cairo_set_line_width (cr, 1.5);
      cairo_set_dash (cr, (const double[]) { 5.0, 3.0 }, 2, 0.0);
      polyline (&l, cr, curve->before);
      cairo_set_dash (cr, NULL, 0, 0.0);
    }
  plx_render_set_color (cr, fitted_color (style));
  cairo_set_line_width (cr, 2.0);
  polyline (&l, cr, curve->fitted);
  /* An op with its own curve (efficiency_by_collective): that curve, thinner, in the
   * op's marker colour, so its points sit on a line of their own colour. */
  cairo_set_line_width (cr, 1.25);
  for (guint s = 0; s < curve->series->len; s++)
    {
      const GArray *own = ((const PlxCalSeries *) curve->series->pdata[s])->own;
      if (own != NULL && own->len > 0)
        {
          plx_render_set_color (cr, plx_calibration_series_color (style, s));
          polyline (&l, cr, own);
        }
    }
  for (guint s = 0; s < curve->series->len; s++)
    {
      const GArray *pts = ((const PlxCalSeries *) curve->series->pdata[s])->points;
      for (guint i = 0; i < pts->len; i++)
        {
          const PlxCalXY *p = &g_array_index (pts, PlxCalXY, i);
          if (isfinite (p->x) && isfinite (p->y) && p->x > 0.0)
            marker (cr, s, plx_calibration_chart_x (&l, p->x), plx_calibration_chart_y (&l, p->y),
                    plx_calibration_series_color (style, s));
        }
    }
  cairo_restore (cr);
  {
    LegendDraw d = { style, cr };
    legend_walk (curve, style, width, legend_entry, &d);
  }
  cairo_restore (cr);
}
