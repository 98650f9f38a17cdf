#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "plx-compare-chart.h"
#include "plx-render-text.h"
#include "../core/base/plx-minmax.h"

#define LEFT_PX 118.0
#define RIGHT_PX 16.0
#define DIFF_SWATCH_PX 18.0
#define DIFF_GAP_PX 20.0
#define LEGEND_SWATCH_PX 18.0
#define MEM_SLOT_MIN_PX 80.0
#define DIFF_X_PX 12.0

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

/* The title is the verdict. A strategy that does not fit is never called faster
 * without saying so: the speed of a run that cannot start is hypothetical ("would"). */
static void
step_verdict (const PlxReport *a,
              const PlxReport *b,
              char            *buf,
              gsize            len)
{
  double ta = a->step_time_s, tb = b->step_time_s;
  double pct = ta > 0.0 ? fabs (tb - ta) / ta * 100.0 : 0.0;
  gboolean same = fabs (tb - ta) < 1e-4 * ta, faster = tb < ta;
  gboolean fa = a->fits_in_memory, fb = b->fits_in_memory;

  if (fa && fb)
    {
      if (same)
        snprintf (buf, len, "%s", _("A and B take the same time per step"));
      else
        snprintf (buf, len, faster ? _("B is %.1f %% faster than A per step") : _("B is %.1f %% slower than A per step"),
                  pct);
    }
  else if (!fa && !fb)
    {
      if (same)
        snprintf (buf, len, "%s", _("Neither A nor B fits in memory; they would take the same time per step"));
      else
        snprintf (buf, len,
                  faster ? _("Neither A nor B fits in memory; B would be %.1f %% faster than A per step")
                         : _("Neither A nor B fits in memory; B would be %.1f %% slower than A per step"),
                  pct);
    }
  else if (!fb)
    {
      if (same)
        snprintf (buf, len, "%s", _("B would take the same time per step as A, but B does not fit in memory"));
      else
        snprintf (buf, len,
                  faster ? _("B would be %.1f %% faster than A per step, but B does not fit in memory")
                         : _("B is %.1f %% slower than A per step and does not fit in memory"),
                  pct);
    }
  else
    {
      if (same)
        snprintf (buf, len, "%s", _("A and B take the same time per step, but A does not fit in memory"));
      else
        snprintf (buf, len,
                  faster ? _("B is %.1f %% faster than A per step, and A does not fit in memory")
                         : _("B is %.1f %% slower than A per step, but A does not fit in memory"),
                  pct);
    }
}

/* Tokens trained in one step. */
static double
step_tokens (const PlxReport *r)
{
  return r->tokens_per_s * r->step_time_s;
}

/* Two runs of different models, GPU counts or step sizes: "B is 431 % slower per
 * step" would read as a like-for-like comparison. The same model compares by
 * throughput, whole and per GPU (the cost of the GPUs used); different models by MFU,
 * the share of peak each reaches, which does not depend on the model's size. Short:
 * the title is one line. */
static void
unlike_verdict (const PlxCompareSide *a,
                const PlxCompareSide *b,
                char                 *buf,
                gsize                 len)
{
  const PlxReport *ra = a->report, *rb = b->report;
  gboolean fa = ra->fits_in_memory, fb = rb->fits_in_memory;
  const char *fit = fa && fb ? "" : !fa && !fb ? _("; neither fits in memory")
                                  : !fb       ? _("; B does not fit in memory")
                                              : _("; A does not fit in memory");
  char main[240];

  if (a->model != NULL && b->model != NULL && !g_str_equal (a->model, b->model))
    snprintf (main, sizeof main, _("A (%s, %u GPUs) vs B (%s, %u GPUs): MFU %.1f %% vs %.1f %%"),
              a->model, ra->n_gpus, b->model, rb->n_gpus, ra->mfu * 100.0, rb->mfu * 100.0);
  else
    {
      double ratio = ra->tokens_per_s > 0.0 ? rb->tokens_per_s / ra->tokens_per_s : 0.0;
      if (ra->n_gpus != rb->n_gpus)
        snprintf (main, sizeof main, _("B on %u GPUs: %.2f× A's tokens/s on %u GPUs, %.2f× per GPU"),
                  rb->n_gpus, ratio, ra->n_gpus, ratio * ra->n_gpus / MAX (rb->n_gpus, 1u));
      else
        snprintf (main, sizeof main, _("B: %.2f× A's tokens/s (steps of different sizes)"),
                  ratio);
    }
  snprintf (buf, len, "%s%s", main, fit);
}

void
plx_compare_verdict (const PlxCompareSide *a,
                     const PlxCompareSide *b,
                     char                 *buf,
                     gsize                 len)
{
  const PlxReport *ra = a->report, *rb = b->report;
  double ta = step_tokens (ra), tb = step_tokens (rb);
  gboolean same_model = a->model == NULL || b->model == NULL || g_str_equal (a->model, b->model);

  if (same_model && ra->n_gpus == rb->n_gpus && fabs (ta - tb) <= 1e-9 * MAX (ta, tb))
    step_verdict (ra, rb, buf, len);
  else
    unlike_verdict (a, b, buf, len);
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

/* The memory legend's width: swatch and the longest category name or capacity label
 * ("usable 77.0 of 80 GiB"; the widest the format makes below 1000 GiB is measured). */
static double
memory_legend_width (double font_size)
{
  char widest[64];
  double w;

  snprintf (widest, sizeof widest, _("usable %.1f of %.0f GiB"), 999.9, 999.0);
  w = plx_render_text_estimate (widest, font_size);

  for (guint c = 0; c < PLX_N_MEM; c++)
    w = plx_max (w, plx_render_text_estimate (plx_mem_category_display_name (c), font_size));
  return LEGEND_SWATCH_PX + w;
}

/* One difference line: "compute: 9.64 s → 9.46 s (-183.2 ms)", or in brief, for narrow
 * charts where the bars above already show the sizes, "compute -183.2 ms". */
static void
format_difference (char            *buf,
                   gsize            len,
                   PlxTimeCategory  c,
                   const PlxReport *a,
                   const PlxReport *b,
                   gboolean         brief)
{
  double ta = a->time_s[c], tb = b->time_s[c];
  char sa[24], sb[24], sd[24];

  buf[0] = '\0';
  if (ta <= 0.0 && tb <= 0.0)
    return;
  format_seconds (ta, sa, sizeof sa);
  format_seconds (tb, sb, sizeof sb);
  format_seconds (tb - ta, sd, sizeof sd);
  if (fabs (tb - ta) <= 1e-6 * MAX (ta, tb))
    snprintf (buf, len, brief ? _("%s: same") : _("%s: %s in both"), _(time_names[c]), sa);
  else if (brief)
    snprintf (buf, len, "%s %s%s", _(time_names[c]), tb - ta >= 0 ? "+" : "", sd);
  else
    snprintf (buf, len, "%s: %s → %s (%s%s)", _(time_names[c]), sa, sb, tb - ta >= 0 ? "+" : "", sd);
}

/* Largest change first: the reader looks for where the time went. */
static void
sort_differences (PlxCompareLayout *l,
                  const PlxReport  *a,
                  const PlxReport  *b)
{
  l->n_diff = 0;
  for (guint c = 0; c < PLX_N_TIME; c++)
    if (l->diff[c][0] != '\0')
      l->diff_order[l->n_diff++] = c;
  for (guint i = 1; i < l->n_diff; i++)
    for (guint j = i; j > 0; j--)
      {
        PlxTimeCategory p = l->diff_order[j - 1], q = l->diff_order[j];
        if (fabs (b->time_s[q] - a->time_s[q]) <= fabs (b->time_s[p] - a->time_s[p]))
          break;
        l->diff_order[j - 1] = q;
        l->diff_order[j] = p;
      }
}

/* The lines go in two columns only when the longest fits twice between the chart's
 * left margin and the memory panel: the width is Pango's upper-bound estimate, so columns
 * never overlap in any font the style names. */
static void
place_differences (PlxCompareLayout *l,
                   const PlxReport  *a,
                   const PlxReport  *b)
{
  double w = l->width_px, h = l->height_px, fs = l->font_size;
  double x0 = DIFF_X_PX, avail = l->mem_x0 * w - 24.0 - x0, longest = 0.0, col;
  guint columns;

  for (guint brief = 0; brief < 2; brief++)
    {
      longest = 0.0;
      for (PlxTimeCategory c = 0; c < PLX_N_TIME; c++)
        {
          format_difference (l->diff[c], sizeof l->diff[c], c, a, b, brief);
          longest = plx_max (longest, plx_render_text_estimate (l->diff[c], fs));
        }
      if (DIFF_SWATCH_PX + longest <= avail)
        break;
    }
  sort_differences (l, a, b);
  col = DIFF_SWATCH_PX + longest + DIFF_GAP_PX;
  columns = 2.0 * col <= avail ? 2 : 1;
  l->diff_column_width_px = col;
  for (guint i = 0; i < l->n_diff; i++)
    {
      PlxTimeCategory c = l->diff_order[i];
      l->diff_x[c] = (x0 + (i % columns) * col) / w;
      l->diff_y[c] = (l->bd_y1 * h + 10.0 + (i / columns) * (fs + 8.0)) / h;
    }
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
  plx_compare_verdict (a, b, l->title, sizeof l->title);
  l->fits[0] = a->report->fits_in_memory;
  l->fits[1] = b->report->fits_in_memory;

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
  l->mem_x1 = 1.0 - RIGHT_PX / w;
  /* The memory panel takes the right third, or more when that leaves its two bars less
   * than MEM_SLOT_MIN_PX each beside the legend. */
  l->mem_x0 = plx_min (0.68, l->mem_x1 - (memory_legend_width (l->font_size) + 16.0 + 2.0 * MEM_SLOT_MIN_PX) / w);
  l->bd_x0 = LEFT_PX / w;
  /* The bars end where their step-time label still fits before the memory panel. */
  l->bd_x1 = plx_max (l->bd_x0 + 0.1, l->mem_x0 - (plx_render_text_estimate ("000.00 s", l->font_size) + 32.0) / w);
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
  place_differences (l, a->report, b->report);

  /* Memory of each side's fullest GPU against its usable capacity. Bars on the left of
   * the panel, their legend on the right; the top keeps room for two label lines. */
  {
    double legend_w = 0.0, area_h, reserve = 2.0 * (l->font_size + 6.0), peak_max, usable[2];
    double slot;
    gboolean same_capacity = a->report->hbm_usable_bytes == b->report->hbm_usable_bytes
                             && a->report->hbm_bytes == b->report->hbm_bytes;

    l->mem_y0 = top + 0.06;
    l->mem_y1 = 1.0 - 40.0 / h;
    if (same_capacity)
      snprintf (l->capacity_label, sizeof l->capacity_label, _("usable %.1f of %.0f GiB"),
                a->report->hbm_usable_bytes / 1073741824.0, a->report->hbm_bytes / 1073741824.0);
    else
      snprintf (l->capacity_label, sizeof l->capacity_label, "%s", _("usable HBM"));
    legend_w = plx_max (memory_legend_width (l->font_size),
                        LEGEND_SWATCH_PX + plx_render_text_estimate (l->capacity_label, l->font_size));
    l->mem_legend_x = l->mem_x1 - legend_w / w;
    for (guint i = 0; i < PLX_N_MEM; i++)
      l->mem_legend_y[PLX_N_MEM - 1 - i] = l->mem_y0 + i * (l->font_size + 8.0) / h;

    area_h = (l->mem_y1 - l->mem_y0) * h;
    peak_max = MAX (MAX ((double) a->report->peak_memory_bytes, (double) b->report->peak_memory_bytes),
                    (double) MAX (a->report->hbm_usable_bytes, b->report->hbm_usable_bytes));
    l->max_bytes = peak_max / MAX (0.5, 1.0 - reserve / MAX (area_h, 1.0));
    if (!(l->max_bytes > 0.0))
      l->max_bytes = 1.0;
    usable[0] = (double) a->report->hbm_usable_bytes;
    usable[1] = (double) b->report->hbm_usable_bytes;
    slot = (l->mem_legend_x - 16.0 / w - l->mem_x0) / 2.0;
    for (guint i = 0; i < 2; i++)
      {
        PlxCompareMemoryBar *bar = &l->memory[i];
        double y = l->mem_y1;
        bar->x0 = l->mem_x0 + i * slot + slot * 0.2;
        bar->x1 = bar->x0 + slot * 0.6;
        l->capacity_y_side[i] = l->mem_y1 - usable[i] / l->max_bytes * (l->mem_y1 - l->mem_y0);
        for (guint c = 0; c < PLX_N_MEM; c++)
          {
            double hgt = side[i]->report->memory_bytes[c] / l->max_bytes * (l->mem_y1 - l->mem_y0);
            bar->seg_y1[c] = y;
            bar->seg_y0[c] = y - hgt;
            y -= hgt;
          }
        snprintf (l->memory_label[i], sizeof l->memory_label[i], "%.1f GiB",
                  side[i]->report->peak_memory_bytes / 1073741824.0);
        bar->over_y0 = bar->over_y1 = 0.0;
        if (!l->fits[i])
          {
            bar->over_y0 = y;
            bar->over_y1 = l->capacity_y_side[i];
          }
      }
    l->capacity_y = l->capacity_y_side[0];
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
  for (guint i = 0; i < l->n_diff; i++)
    {
      PlxTimeCategory c = l->diff_order[i];
      double cx = l->diff_x[c] * width, cy = l->diff_y[c] * height;
      plx_render_set_color (cr, plx_render_style_time_color (style, c));
      cairo_rectangle (cr, cx, cy + 1.0, 12.0, 12.0);
      cairo_fill (cr);
      plx_render_set_color (cr, style->muted);
      cairo_set_line_width (cr, 1.0);
      cairo_rectangle (cr, cx + 0.5, cy + 1.5, 11.0, 11.0);
      cairo_stroke (cr);
      plx_render_text (cr, style, l->diff[c], cx + DIFF_SWATCH_PX, cy + 7.0, fs, style->foreground, 0.0, 0.5,
                       PLX_TEXT_NORMAL);
    }

  plx_render_text (cr, style, _("Memory, fullest GPU"), l->mem_x0 * width, l->mem_y0 * height - 24.0,
                   style->title_size * 0.9, style->foreground, 0.0, 0.0, PLX_TEXT_BOLD);
  for (guint i = 0; i < 2; i++)
    {
      const PlxCompareMemoryBar *bar = &l->memory[i];
      double cx = (bar->x0 + bar->x1) / 2.0 * width, top_y = bar->seg_y0[PLX_N_MEM - 1] * height - 4.0;
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
          /* Outline the part above the usable capacity; the colours inside stay. */
          plx_render_set_color (cr, style->over);
          cairo_set_line_width (cr, 3.0);
          cairo_rectangle (cr, bar->x0 * width, bar->over_y0 * height, (bar->x1 - bar->x0) * width,
                           (bar->over_y1 - bar->over_y0) * height);
          cairo_stroke (cr);
        }
      /* Each side's own usable capacity across its slot: the clusters may differ. */
      cairo_set_line_width (cr, 2.0);
      plx_render_set_color (cr, style->capacity);
      cairo_move_to (cr, bar->x0 * width - 10.0, round (l->capacity_y_side[i] * height) + 0.5);
      cairo_line_to (cr, bar->x1 * width + 10.0, round (l->capacity_y_side[i] * height) + 0.5);
      cairo_stroke (cr);

      plx_render_text (cr, style, ab[i], cx, l->mem_y1 * height + 4.0, fs, style->foreground, 0.5, 0.0, PLX_TEXT_BOLD);
      plx_render_text (cr, style, l->memory_label[i], cx, top_y, fs, style->foreground, 0.5, 1.0, PLX_TEXT_NORMAL);
      if (!l->fits[i])
        plx_render_text (cr, style, _("does not fit"), cx, top_y - fs - 4.0, fs, style->over, 0.5, 1.0,
                         PLX_TEXT_BOLD);
    }

  /* Legend, top to bottom in the bars' stacking order (weights at the bottom), then
   * the capacity line. */
  for (guint c = 0; c < PLX_N_MEM; c++)
    {
      double lx = l->mem_legend_x * width, ly = l->mem_legend_y[c] * height;
      plx_render_set_color (cr, style->memory[c]);
      cairo_rectangle (cr, lx, ly + 1.0, 12.0, 12.0);
      cairo_fill (cr);
      plx_render_text (cr, style, plx_mem_category_display_name (c), lx + LEGEND_SWATCH_PX, ly + 7.0, fs,
                       style->foreground, 0.0, 0.5, PLX_TEXT_NORMAL);
    }
  {
    double lx = l->mem_legend_x * width;
    double ly = l->mem_legend_y[0] * height + fs + 8.0;
    cairo_set_line_width (cr, 2.0);
    plx_render_set_color (cr, style->capacity);
    cairo_move_to (cr, lx, round (ly + 7.0) + 0.5);
    cairo_line_to (cr, lx + 12.0, round (ly + 7.0) + 0.5);
    cairo_stroke (cr);
    plx_render_text (cr, style, l->capacity_label, lx + LEGEND_SWATCH_PX, ly + 7.0, fs, style->foreground, 0.0, 0.5,
                     PLX_TEXT_NORMAL);
  }
  cairo_restore (cr);
}
