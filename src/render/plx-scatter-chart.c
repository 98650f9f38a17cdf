#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "plx-render-text.h"
#include "plx-scatter-chart.h"
#include "../core/base/plx-minmax.h"

#define LEFT_PX 84.0
#define RIGHT_PX 24.0
#define TOP_PX 84.0
#define BOTTOM_PX 58.0
/* The style's title size (plx_render_style_init), for fitting the title. */
#define TITLE_SIZE_PX 15.0

void
plx_scatter_options_init (PlxScatterOptions *o,
                          double             width_px,
                          double             height_px)
{
  o->width_px = width_px;
  o->height_px = height_px;
  o->usable_bytes = 0.0;
  o->selected = -1;
  o->by_gpus = FALSE;
  o->title = NULL;
}

void
plx_scatter_layout_free (PlxScatterLayout *l)
{
  if (l == NULL)
    return;
  g_array_unref (l->positions);
  g_array_unref (l->front);
  g_array_unref (l->x_ticks);
  g_array_unref (l->y_ticks);
  g_free (l->above);
  g_free (l);
}

typedef struct
{
  double x, step;
} FrontPoint;

static int
compare_front (const void *pa, const void *pb)
{
  const FrontPoint *a = pa, *b = pb;
  if (a->x != b->x)
    return a->x < b->x ? -1 : 1;
  return a->step < b->step ? -1 : a->step > b->step;
}

static double
finite_or (double v, double fallback)
{
  return isfinite (v) ? v : fallback;
}

PlxScatterLayout *
plx_scatter_layout_new (const PlxScatterPoint   *points,
                        guint                    n,
                        const PlxScatterOptions *o)
{
  PlxScatterLayout *l = g_new0 (PlxScatterLayout, 1);
  double w = MAX (o->width_px, 200.0), h = MAX (o->height_px, 150.0);
  double lo = G_MAXDOUBLE, hi = 0.0, step;
  double x_data_max = o->by_gpus ? 0.0 : finite_or (o->usable_bytes, 0.0);
  double x_data_min = G_MAXDOUBLE;
  g_autofree FrontPoint *front = g_new (FrontPoint, MAX (n, 1));
  guint n_front = 0;

  l->width_px = w;
  l->height_px = h;
  l->font_size = 12.0;
  l->plot_x0 = LEFT_PX / w;
  l->plot_x1 = 1.0 - RIGHT_PX / w;
  l->plot_y0 = TOP_PX / h;
  l->plot_y1 = 1.0 - BOTTOM_PX / h;
  l->positions = g_array_sized_new (FALSE, FALSE, sizeof (PlxChartPoint), n);
  l->front = g_array_new (FALSE, FALSE, sizeof (PlxChartPoint));
  l->x_ticks = g_array_new (FALSE, FALSE, sizeof (PlxAxisTick));
  l->y_ticks = g_array_new (FALSE, FALSE, sizeof (PlxAxisTick));
  l->n_points = n;
  l->by_gpus = o->by_gpus;
  l->selected = o->selected >= 0 && (guint) o->selected < n ? o->selected : -1;
  g_strlcpy (l->title, o->title ? o->title : o->by_gpus ? _("Step time against GPU count") : _("Step time against peak memory"),
             sizeof l->title);
  {
    /* "subject: step time against peak memory" too wide for the chart: the axes'
     * titles already say what is plotted against what, so the subject alone stays. */
    char *colon = strstr (l->title, ": ");
    if (colon != NULL && plx_render_text_estimate (l->title, TITLE_SIZE_PX) > w - 24.0)
      *colon = '\0';
  }

  for (guint i = 0; i < n; i++)
    {
      double s = finite_or (points[i].step_time_s, 0.0);
      double x = finite_or (o->by_gpus ? points[i].gpus : points[i].memory_bytes, 0.0);
      lo = MIN (lo, s);
      hi = MAX (hi, s);
      x_data_max = MAX (x_data_max, x);
      x_data_min = MIN (x_data_min, x);
      if (o->by_gpus ? points[i].pareto_gpus : points[i].pareto)
        {
          front[n_front].x = x;
          front[n_front].step = s;
          n_front++;
        }
    }
  l->n_pareto = n_front;
  snprintf (l->summary, sizeof l->summary, g_dngettext (GETTEXT_PACKAGE, "%u strategy, %u on the Pareto front",
                                                        "%u strategies, %u on the Pareto front", n),
            n, n_front);
  if (n == 0)
    lo = 0.0, hi = 1.0;

  /* The x axis spans the points and the usable capacity (so the line shows each
   * strategy's headroom) with 5 % to spare each side. It starts at zero only when zero
   * is within a third of the span anyway: strategies that all need 48-77 GiB would
   * otherwise crowd into the right third of the plot. A start other than zero is
   * rounded down to a tick, so the first label sits on the axis's left end. */
  {
    double x_lo = n > 0 ? x_data_min : 0.0, x_hi = x_data_max, span, x_step;
    double unit = o->by_gpus ? 1.0 : 1073741824.0;
    guint ticks = MAX ((guint) ((l->plot_x1 - l->plot_x0) * w / 90.0), 2);

    if (!(x_hi > 0.0))
      x_hi = unit;
    span = x_hi - x_lo > 0.0 ? x_hi - x_lo : 0.2 * x_hi;
    l->x_max = x_hi + 0.05 * span;
    l->x_min = MAX (x_lo - 0.05 * span, 0.0);
    if (l->x_min < l->x_max / 3.0)
      l->x_min = 0.0;
    else
      {
        x_step = plx_axis_nice_step ((l->x_max - l->x_min) / unit, ticks) * unit;
        if (o->by_gpus)
          x_step = MAX (x_step, 1.0);
        l->x_min = floor (l->x_min / x_step) * x_step;
      }
  }
  /* The y axis spans the step times on round values (Heckbert's nice numbers): the
   * differences between strategies are what the plot is for. */
  /* A few very slow strategies would squash the rest (and the front) into the
   * bottom of the plot: the axis stops at four times the fastest, or a fifth above
   * the slowest point of the front if that is higher, and slower ones are drawn on
   * the top edge as triangles and counted. */
  {
    double front_max = 0.0, cap;
    for (guint i = 0; i < n_front; i++)
      front_max = MAX (front_max, front[i].step);
    cap = MAX (4.0 * lo, 1.2 * front_max);
    if (lo > 0.0 && hi > cap)
      hi = cap;
  }
  if (!(hi > lo))
    {
      double pad = lo > 0.0 ? lo * 0.1 : 1.0;
      lo -= pad;
      hi += pad;
    }
  step = plx_axis_nice_step (hi - lo, 5);
  l->y_lo_s = plx_max (floor (lo / step) * step, 0.0);
  l->y_hi_s = ceil (hi / step) * step;
  if (!(l->y_hi_s > l->y_lo_s))
    l->y_hi_s = l->y_lo_s + step;

  if (o->by_gpus)
    plx_axis_count_ticks (l->x_min, l->x_max, MAX ((guint) ((l->plot_x1 - l->plot_x0) * w / 90.0), 2), l->x_ticks);
  else
    plx_axis_bytes_ticks (l->x_min, l->x_max, MAX ((guint) ((l->plot_x1 - l->plot_x0) * w / 90.0), 2), l->x_ticks);
  for (guint i = 0; i < l->x_ticks->len; i++)
    {
      PlxAxisTick *tk = &g_array_index (l->x_ticks, PlxAxisTick, i);
      tk->position = l->plot_x0 + tk->position * (l->plot_x1 - l->plot_x0);
    }
  plx_axis_time_ticks (l->y_lo_s, l->y_hi_s, 5, l->y_ticks);
  for (guint i = 0; i < l->y_ticks->len; i++)
    {
      PlxAxisTick *tk = &g_array_index (l->y_ticks, PlxAxisTick, i);
      tk->position = l->plot_y1 - tk->position * (l->plot_y1 - l->plot_y0);
    }

#define PX(m) (l->plot_x0 + ((m) - l->x_min) / (l->x_max - l->x_min) * (l->plot_x1 - l->plot_x0))
#define PY(s) (l->plot_y1 - (MIN (s, l->y_hi_s) - l->y_lo_s) / (l->y_hi_s - l->y_lo_s) * (l->plot_y1 - l->plot_y0))
  l->above = g_new0 (guint8, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      double x = finite_or (o->by_gpus ? points[i].gpus : points[i].memory_bytes, 0.0);
      double st = finite_or (points[i].step_time_s, 0.0);
      PlxChartPoint p = { PX (x), PY (st) };
      g_array_append_val (l->positions, p);
      if (st > l->y_hi_s)
        {
          l->above[i] = 1;
          l->n_above++;
        }
    }
  if (l->n_above > 0)
    {
      gsize len = strlen (l->summary);
      snprintf (l->summary + len, sizeof l->summary - len,
                g_dngettext (GETTEXT_PACKAGE, "; %u slower than the axis shows, on the top edge",
                             "; %u slower than the axis shows, on the top edge", l->n_above),
                l->n_above);
    }
  l->usable_x = !o->by_gpus && o->usable_bytes > 0.0 && isfinite (o->usable_bytes) ? PX (o->usable_bytes) : -1.0;

  /* The front as a staircase: from each point right at its step time to the next
   * point's memory, then down to that point's (faster) step time. */
  qsort (front, n_front, sizeof (FrontPoint), compare_front);
  for (guint i = 0; i < n_front; i++)
    {
      PlxChartPoint p = { PX (front[i].x), PY (front[i].step) };
      if (i > 0)
        {
          PlxChartPoint corner = { p.x, PY (front[i - 1].step) };
          g_array_append_val (l->front, corner);
        }
      g_array_append_val (l->front, p);
    }
#undef PX
#undef PY
  return l;
}

gint
plx_scatter_layout_hit (const PlxScatterLayout *l,
                        double                  x,
                        double                  y,
                        double                  radius_px)
{
  gint best = -1;
  double best_d2 = radius_px * radius_px;

  for (guint i = 0; i < l->positions->len; i++)
    {
      const PlxChartPoint *p = &g_array_index (l->positions, PlxChartPoint, i);
      double dx = (p->x - x) * l->width_px, dy = (p->y - y) * l->height_px;
      double d2 = dx * dx + dy * dy;
      /* Ties go to the lower index: the better-ranked strategy. */
      if (d2 < best_d2 || (d2 == best_d2 && best < 0))
        {
          best_d2 = d2;
          best = (gint) i;
        }
    }
  return best;
}

static void
dot (cairo_t *cr, double x, double y, double r)
{
  cairo_new_sub_path (cr);
  cairo_arc (cr, x, y, r, 0.0, 2.0 * G_PI);
}

void
plx_scatter_chart_render (const PlxScatterLayout *l,
                          const PlxRenderStyle   *style,
                          cairo_t                *cr,
                          double                  width,
                          double                  height)
{
  double fs = l->font_size;
  double x0 = l->plot_x0 * width, x1 = l->plot_x1 * width, y0 = l->plot_y0 * height, y1 = l->plot_y1 * height;
  PlxColor front_color = style->kind[PLX_KIND_FORWARD], other = style->muted, sel = style->kind[PLX_KIND_PP_SEND];

  cairo_save (cr);
  plx_render_text (cr, style, l->title, 12.0, 8.0, style->title_size, style->foreground, 0.0, 0.0, PLX_TEXT_BOLD);
  plx_render_text (cr, style, l->summary, 12.0, 8.0 + style->title_size + 6.0, fs, style->muted, 0.0, 0.0,
                   PLX_TEXT_NORMAL);

  /* Grid and axes. */
  cairo_set_line_width (cr, 1.0);
  for (guint i = 0; i < l->y_ticks->len; i++)
    {
      const PlxAxisTick *tk = &g_array_index (l->y_ticks, PlxAxisTick, i);
      double y = round (tk->position * height) + 0.5;
      plx_render_set_color (cr, style->grid);
      cairo_move_to (cr, x0, y);
      cairo_line_to (cr, x1, y);
      cairo_stroke (cr);
      plx_render_text (cr, style, tk->label, x0 - 6.0, y, fs * 0.95, style->muted, 1.0, 0.5, PLX_TEXT_NORMAL);
    }
  for (guint i = 0; i < l->x_ticks->len; i++)
    {
      const PlxAxisTick *tk = &g_array_index (l->x_ticks, PlxAxisTick, i);
      double x = round (tk->position * width) + 0.5;
      plx_render_set_color (cr, style->grid);
      cairo_move_to (cr, x, y0);
      cairo_line_to (cr, x, y1);
      cairo_stroke (cr);
      plx_render_text (cr, style, tk->label, x, y1 + 6.0, fs * 0.95, style->muted, 0.5, 0.0, PLX_TEXT_NORMAL);
    }
  plx_render_text (cr, style, l->by_gpus ? _("GPUs") : _("Peak memory per GPU"), (x0 + x1) / 2.0, height - 8.0, fs,
                   style->foreground, 0.5, 1.0, PLX_TEXT_BOLD);
  cairo_save (cr);
  cairo_translate (cr, 14.0, (y0 + y1) / 2.0);
  cairo_rotate (cr, -G_PI / 2.0);
  plx_render_text (cr, style, _("Step time"), 0.0, 0.0, fs, style->foreground, 0.5, 0.0, PLX_TEXT_BOLD);
  cairo_restore (cr);

  if (l->usable_x >= 0.0)
    {
      double x = round (l->usable_x * width) + 0.5;
      plx_render_set_color (cr, style->capacity);
      cairo_set_line_width (cr, 1.5);
      cairo_set_dash (cr, (double[]){ 6.0, 4.0 }, 2, 0.0);
      cairo_move_to (cr, x, y0);
      cairo_line_to (cr, x, y1);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0.0);
      plx_render_text (cr, style, _("usable HBM"), x - 4.0, y0 + 4.0, fs * 0.9, style->foreground, 1.0, 0.0,
                       PLX_TEXT_NORMAL);
    }

  /* The rest first, faint, then the front on top. */
  cairo_rectangle (cr, x0 - 6.0, y0 - 6.0, x1 - x0 + 12.0, y1 - y0 + 12.0);
  cairo_clip (cr);
  cairo_set_source_rgba (cr, other.r, other.g, other.b, 0.45);
  for (guint i = 0; i < l->positions->len; i++)
    {
      const PlxChartPoint *p = &g_array_index (l->positions, PlxChartPoint, i);
      if (l->above[i])
        {
          /* Off the top of the axis: a triangle pointing up. */
          cairo_move_to (cr, p->x * width, p->y * height - 4.0);
          cairo_line_to (cr, p->x * width + 3.5, p->y * height + 2.0);
          cairo_line_to (cr, p->x * width - 3.5, p->y * height + 2.0);
          cairo_close_path (cr);
        }
      else
        dot (cr, p->x * width, p->y * height, 2.5);
    }
  cairo_fill (cr);

  if (l->front->len > 0)
    {
      plx_render_set_color (cr, front_color);
      cairo_set_line_width (cr, 2.0);
      for (guint i = 0; i < l->front->len; i++)
        {
          const PlxChartPoint *p = &g_array_index (l->front, PlxChartPoint, i);
          if (i == 0)
            cairo_move_to (cr, p->x * width, p->y * height);
          else
            cairo_line_to (cr, p->x * width, p->y * height);
        }
      cairo_stroke (cr);
      /* Every other front entry is a corner; the points are at even indices. */
      for (guint i = 0; i < l->front->len; i += 2)
        {
          const PlxChartPoint *p = &g_array_index (l->front, PlxChartPoint, i);
          dot (cr, p->x * width, p->y * height, 5.0);
        }
      cairo_fill_preserve (cr);
      plx_render_set_color (cr, style->background);
      cairo_set_line_width (cr, 1.5);
      cairo_stroke (cr);
    }
  if (l->selected >= 0)
    {
      const PlxChartPoint *p = &g_array_index (l->positions, PlxChartPoint, l->selected);
      plx_render_set_color (cr, sel);
      cairo_set_line_width (cr, 2.5);
      dot (cr, p->x * width, p->y * height, 9.0);
      cairo_stroke (cr);
    }
  cairo_reset_clip (cr);

  {
    /* Legend, top right, above the plot. */
    const char *labels[3] = { _("Pareto front"), _("other strategies that fit"), _("selected") };
    double x = x1, y = y0 - 18.0;
    for (gint i = 2; i >= 0; i--)
      {
        double tw;
        if (i == 2 && l->selected < 0)
          continue;
        tw = plx_render_text_width (cr, style, labels[i], fs, PLX_TEXT_NORMAL);
        x -= tw;
        plx_render_text (cr, style, labels[i], x, y, fs, style->foreground, 0.0, 0.5, PLX_TEXT_NORMAL);
        x -= 14.0;
        if (i == 0)
          {
            plx_render_set_color (cr, front_color);
            dot (cr, x, y, 5.0);
            cairo_fill (cr);
          }
        else if (i == 1)
          {
            cairo_set_source_rgba (cr, other.r, other.g, other.b, 0.8);
            dot (cr, x, y, 3.0);
            cairo_fill (cr);
          }
        else
          {
            plx_render_set_color (cr, sel);
            cairo_set_line_width (cr, 2.0);
            dot (cr, x, y, 6.0);
            cairo_stroke (cr);
          }
        x -= 22.0;
      }
  }
  cairo_restore (cr);
}
