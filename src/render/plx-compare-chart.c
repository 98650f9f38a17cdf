#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "plx-compare-chart.h"
#include "plx-render-text.h"

#define LEFT_PX 118.0
#define RIGHT_PX 16.0

PlxColor
plx_render_style_time_color (const PlxRenderStyle *style,
                             PlxTimeCategory       category)
{
  switch (category)
    {
    case PLX_TIME_COMPUTE:
      return style->kind[PLX_KIND_FORWARD];
    case PLX_TIME_RECOMPUTE:
      return style->kind[PLX_KIND_RECOMPUTE];
    case PLX_TIME_TP_COMM:
      return style->kind[PLX_KIND_TP_COMM];
    case PLX_TIME_PP_COMM:
      return style->kind[PLX_KIND_PP_SEND];
    case PLX_TIME_DP_COMM:
      return style->kind[PLX_KIND_DP_COMM];
    case PLX_TIME_OPTIMIZER:
      return style->kind[PLX_KIND_OPTIMIZER];
    case PLX_TIME_BUBBLE:
    case PLX_N_TIME:
    default:
      return style->idle;
    }
}

static const char *const time_names[PLX_N_TIME] = {
  N_("compute"), N_("recompute"), N_("TP/CP/EP comm"), N_("pipeline comm"), N_("DP comm"), N_("bubble"),
  N_("optimizer"),
};

static void
format_seconds (double s, char *buf, gsize len)
{
  double a = fabs (s);
  if (a >= 1.0)
    snprintf (buf, len, "%.2f s", s);
  else if (a >= 1e-3)
    snprintf (buf, len, "%.1f ms", s * 1e3);
  else
    snprintf (buf, len, "%.0f µs", s * 1e6);
}

void
plx_compare_layout_free (PlxCompareLayout *l)
{
  if (l == NULL)
    return;
  plx_timeline_layout_free (l->timeline[0]);
  plx_timeline_layout_free (l->timeline[1]);
  g_free (l);
}

PlxCompareLayout *
plx_compare_layout_new (const PlxCompareSide *a,
                        const PlxCompareSide *b,
                        double                width_px,
                        double                height_px)
{
  PlxCompareLayout *l = g_new0 (PlxCompareLayout, 1);
  const PlxCompareSide *side[2] = { a, b };
  double w = MAX (width_px, 100.0), h = MAX (height_px, 100.0);
  double t_max = MAX (a->report->step_time_s, b->report->step_time_s);
  double top = 0.58;
  double step_max = t_max > 0.0 ? t_max : 1.0;

  l->width_px = w;
  l->height_px = h;
  l->font_size = 12.0;
  g_strlcpy (l->name[0], a->name ? a->name : "A", sizeof l->name[0]);
  g_strlcpy (l->name[1], b->name ? b->name : "B", sizeof l->name[1]);
  {
    /* The title is the verdict; each timeline's own title names its side. */
    double ta = a->report->step_time_s, tb = b->report->step_time_s;
    if (fabs (tb - ta) < 1e-4 * ta)
      snprintf (l->title, sizeof l->title, "%s", _("A and B take the same time per step"));
    else if (tb < ta)
      snprintf (l->title, sizeof l->title, _("B is %.1f %% faster than A per step"), (ta - tb) / ta * 100.0);
    else
      snprintf (l->title, sizeof l->title, _("B is %.1f %% slower than A per step"), (tb - ta) / ta * 100.0);
  }

  /* Both timelines on one time scale, A above B. */
  for (guint i = 0; i < 2; i++)
    {
      PlxTimelineOptions o;
      char title[200];

      plx_timeline_options_init (&o, w, h);
      o.t0_s = 0.0;
      o.t1_s = t_max;
      o.region_y0 = 0.05 + i * (top - 0.05) / 2.0;
      o.region_y1 = 0.05 + (i + 1) * (top - 0.05) / 2.0;
      o.legend = i == 1;
      snprintf (title, sizeof title, "%s: %s", i == 0 ? "A" : "B", l->name[i]);
      o.title = title;
      l->timeline[i] = plx_timeline_layout_new (side[i]->timeline, &o);
    }

  /* Breakdown: two horizontal bars on the step-time scale. */
  l->bd_x0 = LEFT_PX / w;
  l->bd_x1 = 0.62;
  l->bd_y0 = top + 0.06;
  l->bd_y1 = l->bd_y0 + 0.10;
  for (guint i = 0; i < 2; i++)
    {
      double x = l->bd_x0;
      PlxBreakdownBar *bar = &l->breakdown[i];
      bar->y0 = l->bd_y0 + i * (l->bd_y1 - l->bd_y0) / 2.0;
      bar->y1 = bar->y0 + (l->bd_y1 - l->bd_y0) / 2.0 * 0.8;
      format_seconds (side[i]->report->step_time_s, l->step_label[i], sizeof l->step_label[i]);
      for (guint c = 0; c < PLX_N_TIME; c++)
        {
          double len = side[i]->report->time_s[c] / step_max * (l->bd_x1 - l->bd_x0);
          bar->x0[c] = x;
          bar->x1[c] = x + len;
          x += len;
        }
    }
  for (guint c = 0; c < PLX_N_TIME; c++)
    {
      double ta = a->report->time_s[c], tb = b->report->time_s[c];
      char sa[24], sb[24], sd[24];
      if (ta <= 0.0 && tb <= 0.0)
        {
          l->diff[c][0] = '\0';
          continue;
        }
      format_seconds (ta, sa, sizeof sa);
      format_seconds (tb, sb, sizeof sb);
      format_seconds (tb - ta, sd, sizeof sd);
      if (fabs (tb - ta) <= 1e-6 * MAX (ta, tb))
        snprintf (l->diff[c], sizeof l->diff[c], _("%s: %s in both"), _(time_names[c]), sa);
      else
        snprintf (l->diff[c], sizeof l->diff[c], "%s: %s → %s (%s%s)", _(time_names[c]), sa, sb, tb - ta >= 0 ? "+" : "", sd);
    }

  /* Memory of each side's fullest GPU against its usable capacity. */
  l->mem_x0 = 0.72;
  l->mem_x1 = 1.0 - RIGHT_PX / w;
  l->mem_y0 = top + 0.06;
  l->mem_y1 = 1.0 - 40.0 / h;
  l->max_bytes = MAX (MAX ((double) a->report->peak_memory_bytes, (double) b->report->peak_memory_bytes),
                      (double) MAX (a->report->hbm_bytes, b->report->hbm_bytes)) * 1.08;
  if (!(l->max_bytes > 0.0))
    l->max_bytes = 1.0;
  l->capacity_y = l->mem_y1 - (double) a->report->hbm_usable_bytes / l->max_bytes * (l->mem_y1 - l->mem_y0);
  for (guint i = 0; i < 2; i++)
    {
      PlxCompareMemoryBar *bar = &l->memory[i];
      double slot = (l->mem_x1 - l->mem_x0) / 2.0, y = l->mem_y1;
      bar->x0 = l->mem_x0 + i * slot + slot * 0.2;
      bar->x1 = bar->x0 + slot * 0.6;
      for (guint c = 0; c < PLX_N_MEM; c++)
        {
          double hgt = side[i]->report->memory_bytes[c] / l->max_bytes * (l->mem_y1 - l->mem_y0);
          bar->seg_y1[c] = y;
          bar->seg_y0[c] = y - hgt;
          y -= hgt;
        }
      snprintf (l->memory_label[i], sizeof l->memory_label[i], "%.1f GiB", side[i]->report->peak_memory_bytes / 1073741824.0);
      if (side[i]->report->peak_memory_bytes > side[i]->report->hbm_usable_bytes)
        {
          bar->over_y0 = y;
          bar->over_y1 = l->mem_y1 - (double) side[i]->report->hbm_usable_bytes / l->max_bytes * (l->mem_y1 - l->mem_y0);
        }
    }
  return l;
}

void
plx_compare_chart_render (const PlxCompareLayout *l,
                          const PlxRenderStyle   *style,
                          cairo_t                *cr,
                          double                  width,
                          double                  height)
{
  double fs = l->font_size;
  static const char *const ab[2] = { "A", "B" };

  cairo_save (cr);
  plx_render_text (cr, style, l->title, 12.0, 8.0, style->title_size, style->foreground, 0.0, 0.0, PLX_TEXT_BOLD);
  plx_timeline_chart_render (l->timeline[0], style, cr, width, height);
  plx_timeline_chart_render (l->timeline[1], style, cr, width, height);

  plx_render_text (cr, style, _("Step time on the fullest GPU"), 12.0, l->bd_y0 * height - 24.0, style->title_size * 0.9,
                   style->foreground, 0.0, 0.0, PLX_TEXT_BOLD);
  for (guint i = 0; i < 2; i++)
    {
      const PlxBreakdownBar *bar = &l->breakdown[i];
      plx_render_text (cr, style, ab[i], l->bd_x0 * width - 8.0, (bar->y0 + bar->y1) / 2.0 * height, fs,
                       style->foreground, 1.0, 0.5, PLX_TEXT_BOLD);
      for (guint c = 0; c < PLX_N_TIME; c++)
        {
          if (bar->x1[c] <= bar->x0[c])
            continue;
          plx_render_set_color (cr, plx_render_style_time_color (style, c));
          cairo_rectangle (cr, bar->x0[c] * width, bar->y0 * height, (bar->x1[c] - bar->x0[c]) * width,
                           (bar->y1 - bar->y0) * height);
          cairo_fill (cr);
        }
      plx_render_text (cr, style, l->step_label[i], bar->x1[PLX_N_TIME - 1] * width + 8.0,
                       (bar->y0 + bar->y1) / 2.0 * height, fs, style->foreground, 0.0, 0.5, PLX_TEXT_BOLD);
    }
  {
    /* The differences, one line each, in two columns, with the category's colour. */
    double y = l->bd_y1 * height + 10.0, x = l->bd_x0 * width;
    guint n = 0;
    for (guint c = 0; c < PLX_N_TIME; c++)
      {
        double cx, cy;
        if (l->diff[c][0] == '\0')
          continue;
        cx = x + (n % 2) * (l->bd_x1 - l->bd_x0) * width / 2.0;
        cy = y + (n / 2) * (fs + 8.0);
        plx_render_set_color (cr, plx_render_style_time_color (style, c));
        cairo_rectangle (cr, cx, cy + 1.0, 12.0, 12.0);
        cairo_fill (cr);
        plx_render_set_color (cr, style->muted);
        cairo_set_line_width (cr, 1.0);
        cairo_rectangle (cr, cx + 0.5, cy + 1.5, 11.0, 11.0);
        cairo_stroke (cr);
        plx_render_text (cr, style, l->diff[c], cx + 18.0, cy + 7.0, fs, style->foreground, 0.0, 0.5, PLX_TEXT_NORMAL);
        n++;
      }
  }

  plx_render_text (cr, style, _("Memory, fullest GPU"), l->mem_x0 * width, l->mem_y0 * height - 24.0,
                   style->title_size * 0.9, style->foreground, 0.0, 0.0, PLX_TEXT_BOLD);
  for (guint i = 0; i < 2; i++)
    {
      const PlxCompareMemoryBar *bar = &l->memory[i];
      for (guint c = 0; c < PLX_N_MEM; c++)
        {
          if (bar->seg_y1[c] <= bar->seg_y0[c])
            continue;
          plx_render_set_color (cr, style->memory[c]);
          cairo_rectangle (cr, bar->x0 * width, bar->seg_y0[c] * height, (bar->x1 - bar->x0) * width,
                           (bar->seg_y1[c] - bar->seg_y0[c]) * height);
          cairo_fill (cr);
        }
      if (bar->over_y1 > bar->over_y0)
        {
          plx_render_set_color (cr, style->over);
          cairo_set_line_width (cr, 3.0);
          cairo_rectangle (cr, bar->x0 * width, bar->over_y0 * height, (bar->x1 - bar->x0) * width,
                           (bar->over_y1 - bar->over_y0) * height);
          cairo_stroke (cr);
        }
      plx_render_text (cr, style, ab[i], (bar->x0 + bar->x1) / 2.0 * width, l->mem_y1 * height + 4.0, fs,
                       style->foreground, 0.5, 0.0, PLX_TEXT_BOLD);
      plx_render_text (cr, style, l->memory_label[i], (bar->x0 + bar->x1) / 2.0 * width,
                       bar->seg_y0[PLX_N_MEM - 1] * height - 4.0, fs, style->foreground, 0.5, 1.0, PLX_TEXT_NORMAL);
    }
  cairo_set_line_width (cr, 2.0);
  plx_render_set_color (cr, style->capacity);
  cairo_move_to (cr, l->mem_x0 * width, round (l->capacity_y * height) + 0.5);
  cairo_line_to (cr, l->mem_x1 * width, round (l->capacity_y * height) + 0.5);
  cairo_stroke (cr);
  plx_render_text (cr, style, _("usable HBM per GPU"), l->mem_x0 * width, l->capacity_y * height - 3.0, fs * 0.9,
                   style->foreground, 0.0, 1.0, PLX_TEXT_NORMAL);
  cairo_restore (cr);
}
