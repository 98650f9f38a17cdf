#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "plx-memory-chart.h"
#include "plx-render-text.h"
#include "../core/base/plx-minmax.h"

#define HATCH_SPACING_PX 10.0
#define LEFT_PX 72.0
#define RIGHT_PX 16.0
#define TITLE_PX 34.0
#define AXIS_PX 24.0
#define LEGEND_PX 26.0
#define LEGEND_ROW_PX 20.0
#define GAP_PX 40.0

void
plx_memory_options_init (PlxMemoryOptions *o,
                         double            width_px,
                         double            height_px)
{
  memset (o, 0, sizeof *o);
  o->width_px = width_px;
  o->height_px = height_px;
  o->rank = -1;
  o->over_time = TRUE;
}

void
plx_memory_layout_free (PlxMemoryLayout *l)
{
  if (l == NULL)
    return;
  g_array_unref (l->bars);
  g_array_unref (l->bar_ticks);
  g_array_unref (l->points);
  g_array_unref (l->time_ticks);
  g_array_unref (l->time_byte_ticks);
  g_free (l);
}

static double
static_total (const PlxMemoryTrace *t, guint r)
{
  double sum = 0.0;
  for (guint c = 0; c < PLX_N_MEM; c++)
    sum += t->static_bytes[(gsize) r * PLX_N_MEM + c];
  return sum;
}

guint
plx_memory_trace_peak_rank (const PlxMemoryTrace *t)
{
  guint best = 0;
  double best_total = -1.0;

  for (guint r = 0; r < t->n_ranks; r++)
    {
      double total = static_total (t, r) + t->peak_activation_bytes[r];
      if (total > best_total * (1.0 + 1e-12))
        {
          best = r;
          best_total = total;
        }
    }
  return best;
}

/* The legend's entries (the categories, the usable-memory line, the hatching when a
 * stage does not fit) in rows as wide as the chart: widths are Pango's upper-bound
 * estimate, so a row never runs off the edge in any font the style names. */
static void
place_legend (PlxMemoryLayout *l, double w, double h)
{
  double x0 = MIN (LEFT_PX / w, 0.45) * w, x = x0, xmax = w - 8.0;
  double text_w[PLX_N_LEGEND] = { 0 };
  guint row = 0;

  for (guint i = 0; i < PLX_N_LEGEND; i++)
    {
      const char *text = i < PLX_N_MEM ? plx_mem_category_display_name (i)
                         : i == PLX_N_MEM ? l->capacity_label : _("over usable memory: does not fit");
      /* The last entry is bold: about a tenth wider. */
      double wd;
      text_w[i] = plx_render_text_estimate (text, l->font_size) * (i == PLX_N_MEM + 1 ? 1.1 : 1.0);
      wd = 20.0 + text_w[i] + 18.0;
      if (i == PLX_N_MEM + 1 && !l->any_over)
        break;
      if (x + wd > xmax && x > x0)
        {
          row++;
          x = x0;
        }
      l->legend_x[i] = x;
      l->legend_row[i] = row;
      x += wd;
    }
  l->legend_rows = row + 1;
  l->legend_px = LEGEND_PX + row * LEGEND_ROW_PX;
  /* Rows from the legend's top; a box is the 14 x 12 swatch, the gap, and the text,
   * whose line (1.25 x the font size) is centred on the swatch. */
  for (guint i = 0; i < PLX_N_LEGEND; i++)
    {
      double y_mid = h - l->legend_px + 6.0 + l->legend_row[i] * LEGEND_ROW_PX + 6.0;
      double line = MAX (12.0, l->font_size * 1.25);
      if (i == PLX_N_MEM + 1 && !l->any_over)
        break;
      l->legend_box[i].x = l->legend_x[i];
      l->legend_box[i].y = y_mid - line / 2.0;
      l->legend_box[i].width = 20.0 + text_w[i];
      l->legend_box[i].height = line;
    }
}

PlxMemoryLayout *
plx_memory_layout_new (const PlxMemoryTrace   *t,
                       const PlxMemoryOptions *o)
{
  PlxMemoryLayout *l = g_new0 (PlxMemoryLayout, 1);
  double w = MAX (o->width_px, 50.0), h = MAX (o->height_px, 50.0);
  double usable = o->usable_bytes > 0.0 ? o->usable_bytes : o->capacity_bytes;
  double max_total = 0.0, top_px, bars_h_px, slot_px, bar_px;
  guint n = MAX (t->n_ranks, 1);

  l->per_device = t->per_device;
  l->bars = g_array_new (FALSE, FALSE, sizeof (PlxMemoryBar));
  l->bar_ticks = g_array_new (FALSE, FALSE, sizeof (PlxAxisTick));
  l->points = g_array_new (FALSE, FALSE, sizeof (PlxChartPoint));
  l->time_ticks = g_array_new (FALSE, FALSE, sizeof (PlxAxisTick));
  l->time_byte_ticks = g_array_new (FALSE, FALSE, sizeof (PlxAxisTick));
  l->width_px = w;
  l->height_px = h;
  l->font_size = 12.0;
  l->over_time = o->over_time;
  g_strlcpy (l->title, o->title ? o->title : _("Memory per GPU"), sizeof l->title);

  for (guint r = 0; r < t->n_ranks; r++)
    max_total = plx_max (max_total, static_total (t, r) + t->peak_activation_bytes[r]);
  /* Room above the larger of the tallest bar and the capacity line. */
  l->max_bytes = MAX (max_total, o->capacity_bytes) * 1.08;
  if (!(l->max_bytes > 0.0))
    l->max_bytes = 1.0;

  /* The line is where the fit check and the hatching start: usable memory, the HBM
   * less what the cluster reserves (CUDA context, allocator slack). Its label, with
   * both figures, goes in the legend, where no bar can cover it. */
  if (o->usable_bytes > 0.0 && o->usable_bytes < o->capacity_bytes)
    snprintf (l->capacity_label, sizeof l->capacity_label, _("usable memory, %.0f of %.0f GiB HBM"),
              usable / 1073741824.0, o->capacity_bytes / 1073741824.0);
  else
    snprintf (l->capacity_label, sizeof l->capacity_label, _("HBM capacity, %.0f GiB"), usable / 1073741824.0);
  l->any_over = max_total > usable;
  place_legend (l, w, h);

  top_px = TITLE_PX;
  bars_h_px = (h - top_px - l->legend_px - AXIS_PX - (o->over_time ? GAP_PX : 0.0)) * (o->over_time ? 0.55 : 1.0);
  /* Tiny charts still get a positive plot area (and never an endless loop below). */
  l->bars_x0 = MIN (LEFT_PX / w, 0.45);
  l->bars_x1 = MAX (1.0 - RIGHT_PX / w, l->bars_x0 + 0.1);
  bars_h_px = MAX (bars_h_px, 4.0);
  l->bars_y0 = top_px / h;
  l->bars_y1 = (top_px + bars_h_px) / h;
  l->capacity_y = l->bars_y1 - o->capacity_bytes / l->max_bytes * (l->bars_y1 - l->bars_y0);
  l->usable_y = l->bars_y1 - usable / l->max_bytes * (l->bars_y1 - l->bars_y0);

  /* One slot a stage; the bar fills most of it. */
  slot_px = (l->bars_x1 - l->bars_x0) * w / n;
  bar_px = slot_px >= 6.0 ? slot_px * 0.72 : slot_px;
  l->label_every = 1;
  while (slot_px * l->label_every < 34.0 && l->label_every < n)
    l->label_every = l->label_every < 5 ? l->label_every + 1 : l->label_every * 2;
  l->label_every = MIN (l->label_every, n);
  for (guint r = 0; r < t->n_ranks; r++)
    {
      PlxMemoryBar bar;
      double y = l->bars_y1, total = 0.0;

      bar.stage = r;
      bar.x0 = l->bars_x0 + (r * slot_px + (slot_px - bar_px) / 2.0) / w;
      bar.x1 = bar.x0 + bar_px / w;
      for (guint c = 0; c < PLX_N_MEM; c++)
        {
          double bytes = c == PLX_MEM_ACTIVATIONS ? t->peak_activation_bytes[r] : t->static_bytes[(gsize) r * PLX_N_MEM + c];
          double hgt = MAX (bytes, 0.0) / l->max_bytes * (l->bars_y1 - l->bars_y0);
          bar.seg_y1[c] = y;
          bar.seg_y0[c] = y - hgt;
          y -= hgt;
          total += MAX (bytes, 0.0);
        }
      bar.total_bytes = total;
      if (total > usable)
        {
          bar.over_y0 = y;
          bar.over_y1 = l->usable_y;
          l->any_over = TRUE;
        }
      else
        bar.over_y0 = bar.over_y1 = 0.0;
      g_array_append_val (l->bars, bar);
    }
  plx_axis_bytes_ticks (0.0, l->max_bytes, 5, l->bar_ticks);
  for (guint i = 0; i < l->bar_ticks->len; i++)
    {
      PlxAxisTick *tk = &g_array_index (l->bar_ticks, PlxAxisTick, i);
      tk->position = l->bars_y1 - tk->position * (l->bars_y1 - l->bars_y0);
    }

  if (o->over_time && t->n_ranks > 0)
    {
      guint r = o->rank >= 0 && (guint) o->rank < t->n_ranks ? (guint) o->rank : plx_memory_trace_peak_rank (t);
      PlxMemoryTraceIter it;
      PlxMemorySample sm;
      double base = static_total (t, r), t_end = o->step_time_s, prev_y;
      double top2 = l->bars_y1 * h + AXIS_PX + GAP_PX;

      l->rank = r;
      plx_memory_trace_iter_init (&it, t, r);
      while (plx_memory_trace_iter_next (&it, &sm))
        t_end = MAX (t_end, sm.time_s);
      if (!(t_end > 0.0))
        t_end = 1.0;
      l->time_x0 = l->bars_x0;
      l->time_x1 = l->bars_x1;
      l->time_y0 = top2 / h;
      l->time_y1 = (h - l->legend_px - AXIS_PX) / h;
      l->time_max_bytes = MAX (base + t->peak_activation_bytes[r], o->capacity_bytes) * 1.08;
      l->time_capacity_y = l->time_y1 - o->capacity_bytes / l->time_max_bytes * (l->time_y1 - l->time_y0);
      l->time_usable_y = l->time_y1 - usable / l->time_max_bytes * (l->time_y1 - l->time_y0);
      l->time_static_y = l->time_y1 - base / l->time_max_bytes * (l->time_y1 - l->time_y0);
      snprintf (l->time_title, sizeof l->time_title, t->per_device ? _("GPU %u over the step")
                                                                    : _("Stage %u over the step"), r);

#define Y_OF(bytes) (l->time_y1 - (bytes) / l->time_max_bytes * (l->time_y1 - l->time_y0))
#define X_OF(secs) (l->time_x0 + (secs) / t_end * (l->time_x1 - l->time_x0))
      /* A step line: memory holds its value until the next change. */
      prev_y = Y_OF (base);
      {
        PlxChartPoint p = { X_OF (0.0), prev_y };
        g_array_append_val (l->points, p);
      }
      plx_memory_trace_iter_init (&it, t, r);
      while (plx_memory_trace_iter_next (&it, &sm))
        {
          PlxChartPoint a = { X_OF (sm.time_s), prev_y };
          PlxChartPoint b = { X_OF (sm.time_s), Y_OF (base + MAX (sm.activation_bytes, 0.0)) };
          g_array_append_val (l->points, a);
          g_array_append_val (l->points, b);
          prev_y = b.y;
        }
      {
        PlxChartPoint p = { X_OF (t_end), prev_y };
        g_array_append_val (l->points, p);
      }
#undef Y_OF
#undef X_OF
      plx_axis_time_ticks (0.0, t_end, MAX ((guint) ((l->time_x1 - l->time_x0) * w / 110.0), 2), l->time_ticks);
      for (guint i = 0; i < l->time_ticks->len; i++)
        {
          PlxAxisTick *tk = &g_array_index (l->time_ticks, PlxAxisTick, i);
          tk->position = l->time_x0 + tk->position * (l->time_x1 - l->time_x0);
        }
      plx_axis_bytes_ticks (0.0, l->time_max_bytes, 5, l->time_byte_ticks);
      for (guint i = 0; i < l->time_byte_ticks->len; i++)
        {
          PlxAxisTick *tk = &g_array_index (l->time_byte_ticks, PlxAxisTick, i);
          tk->position = l->time_y1 - tk->position * (l->time_y1 - l->time_y0);
        }
    }
  return l;
}

static void
y_axis (cairo_t *cr, const PlxRenderStyle *style, GArray *ticks, double x0, double x1, double width,
        double height, double fs)
{
  cairo_set_line_width (cr, 1.0);
  for (guint i = 0; i < ticks->len; i++)
    {
      const PlxAxisTick *tk = &g_array_index (ticks, PlxAxisTick, i);
      double y = round (tk->position * height) + 0.5;
      plx_render_set_color (cr, style->grid);
      cairo_move_to (cr, x0 * width, y);
      cairo_line_to (cr, x1 * width, y);
      cairo_stroke (cr);
      plx_render_text (cr, style, tk->label, x0 * width - 6.0, y, fs * 0.95, style->muted, 1.0, 0.5, PLX_TEXT_NORMAL);
    }
}

/* Diagonal lines 1.5 px wide, `spacing` apart across, in the warning colour over the
 * rectangle, clipped to it. */
static void
hatch (cairo_t *cr, const PlxRenderStyle *style, double x, double y, double w, double h, double spacing)
{
  cairo_save (cr);
  cairo_rectangle (cr, x, y, w, h);
  cairo_clip (cr);
  cairo_set_source_rgba (cr, style->over.r, style->over.g, style->over.b, 0.85);
  cairo_set_line_width (cr, 1.5);
  for (double d = -h; d < w; d += spacing)
    {
      cairo_move_to (cr, x + d, y + h);
      cairo_line_to (cr, x + d + h, y);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

void
plx_memory_chart_render (const PlxMemoryLayout *l,
                         const PlxRenderStyle  *style,
                         cairo_t               *cr,
                         double                 width,
                         double                 height)
{
  double fs = l->font_size;
  double cap_y = round (l->usable_y * height) + 0.5;

  cairo_save (cr);
  plx_render_text (cr, style, l->title, 12.0, 8.0, style->title_size, style->foreground, 0.0, 0.0, PLX_TEXT_BOLD);
  y_axis (cr, style, l->bar_ticks, l->bars_x0, l->bars_x1, width, height, fs);

  for (guint i = 0; i < l->bars->len; i++)
    {
      const PlxMemoryBar *b = &g_array_index (l->bars, PlxMemoryBar, i);
      for (guint c = 0; c < PLX_N_MEM; c++)
        {
          if (b->seg_y1[c] - b->seg_y0[c] <= 0.0)
            continue;
          plx_render_set_color (cr, style->memory[c]);
          cairo_rectangle (cr, b->x0 * width, b->seg_y0[c] * height, (b->x1 - b->x0) * width,
                           (b->seg_y1[c] - b->seg_y0[c]) * height);
          cairo_fill (cr);
        }
      if (b->over_y1 > b->over_y0)
        {
          /* Above usable memory: thin, sparse hatching in the warning colour over the
           * categories' colours, which stay readable between the lines (a line of
           * 1.5 px every 10 px covers about a sixth of the area). */
          double x0 = b->x0 * width, x1 = b->x1 * width, y0 = b->over_y0 * height, y1 = b->over_y1 * height;
          hatch (cr, style, x0, y0, x1 - x0, y1 - y0, HATCH_SPACING_PX);
          plx_render_set_color (cr, style->over);
          cairo_set_line_width (cr, 2.0);
          cairo_rectangle (cr, x0 + 1.0, y0 + 1.0, x1 - x0 - 2.0, y1 - y0 - 2.0);
          cairo_stroke (cr);
        }
      if (i % l->label_every == 0)
        {
          char text[16];
          snprintf (text, sizeof text, "%u", b->stage);
          plx_render_text (cr, style, text, (b->x0 + b->x1) / 2.0 * width, l->bars_y1 * height + 4.0, fs * 0.9,
                           style->muted, 0.5, 0.0, PLX_TEXT_NORMAL);
        }
    }
  plx_render_text (cr, style, l->per_device ? _("GPU") : _("pipeline stage"), (l->bars_x0 + l->bars_x1) / 2.0 * width, l->bars_y1 * height + 6.0 + fs,
                   fs * 0.9, style->muted, 0.5, 0.0, PLX_TEXT_NORMAL);

  /* Usable memory: the line the fit check and the hatching use; labelled in the legend. */
  cairo_set_line_width (cr, 2.0);
  plx_render_set_color (cr, style->capacity);
  cairo_move_to (cr, l->bars_x0 * width, cap_y);
  cairo_line_to (cr, l->bars_x1 * width, cap_y);
  cairo_stroke (cr);

  if (l->over_time && l->points->len > 1)
    {
      double cy = round (l->time_usable_y * height) + 0.5;
      plx_render_text (cr, style, l->time_title, 12.0, l->time_y0 * height - 30.0, style->title_size * 0.9,
                       style->foreground, 0.0, 0.0, PLX_TEXT_BOLD);
      y_axis (cr, style, l->time_byte_ticks, l->time_x0, l->time_x1, width, height, fs);
      /* Model states and buffers: a band that does not change over the step. */
      cairo_set_source_rgba (cr, style->memory[PLX_MEM_OPTIMIZER].r, style->memory[PLX_MEM_OPTIMIZER].g,
                             style->memory[PLX_MEM_OPTIMIZER].b, 0.30);
      cairo_rectangle (cr, l->time_x0 * width, l->time_static_y * height, (l->time_x1 - l->time_x0) * width,
                       (l->time_y1 - l->time_static_y) * height);
      cairo_fill (cr);
      plx_render_text (cr, style, _("weights, gradients, optimizer, buffers"), l->time_x0 * width + 8.0,
                       (l->time_static_y + l->time_y1) / 2.0 * height, fs, style->foreground, 0.0, 0.5, PLX_TEXT_NORMAL);
      /* Activations above it, as the line moves. */
      cairo_move_to (cr, g_array_index (l->points, PlxChartPoint, 0).x * width, l->time_static_y * height);
      for (guint i = 0; i < l->points->len; i++)
        {
          const PlxChartPoint *p = &g_array_index (l->points, PlxChartPoint, i);
          cairo_line_to (cr, p->x * width, p->y * height);
        }
      cairo_line_to (cr, g_array_index (l->points, PlxChartPoint, l->points->len - 1).x * width, l->time_static_y * height);
      cairo_close_path (cr);
      cairo_set_source_rgba (cr, style->memory[PLX_MEM_ACTIVATIONS].r, style->memory[PLX_MEM_ACTIVATIONS].g,
                             style->memory[PLX_MEM_ACTIVATIONS].b, 0.35);
      cairo_fill (cr);
      cairo_set_line_width (cr, 1.5);
      plx_render_set_color (cr, style->memory[PLX_MEM_ACTIVATIONS]);
      for (guint i = 0; i < l->points->len; i++)
        {
          const PlxChartPoint *p = &g_array_index (l->points, PlxChartPoint, i);
          if (i == 0)
            cairo_move_to (cr, p->x * width, p->y * height);
          else
            cairo_line_to (cr, p->x * width, p->y * height);
        }
      cairo_stroke (cr);
      cairo_set_line_width (cr, 2.0);
      plx_render_set_color (cr, style->capacity);
      cairo_move_to (cr, l->time_x0 * width, cy);
      cairo_line_to (cr, l->time_x1 * width, cy);
      cairo_stroke (cr);
      for (guint i = 0; i < l->time_ticks->len; i++)
        {
          const PlxAxisTick *tk = &g_array_index (l->time_ticks, PlxAxisTick, i);
          plx_render_text (cr, style, tk->label, tk->position * width, l->time_y1 * height + 4.0, fs * 0.95,
                           style->muted, i == 0 ? 0.0 : 0.5, 0.0, PLX_TEXT_NORMAL);
        }
    }

  /* Legend along the bottom, in the boxes the layout chose (y: the swatch's top). */
  for (guint i = 0; i < PLX_N_LEGEND; i++)
    {
      double x = l->legend_box[i].x, y = l->legend_box[i].y + l->legend_box[i].height / 2.0 - 6.0;
      if (i < PLX_N_MEM)
        {
          plx_render_set_color (cr, style->memory[i]);
          cairo_rectangle (cr, x, y, 14.0, 12.0);
          cairo_fill (cr);
          plx_render_text (cr, style, plx_mem_category_display_name (i), x + 20.0, y + 6.0, fs, style->foreground, 0.0,
                           0.5, PLX_TEXT_NORMAL);
        }
      else if (i == PLX_N_MEM)
        {
          /* The usable-memory line. */
          cairo_set_line_width (cr, 2.0);
          plx_render_set_color (cr, style->capacity);
          cairo_move_to (cr, x, round (y + 6.0) + 0.5);
          cairo_line_to (cr, x + 14.0, round (y + 6.0) + 0.5);
          cairo_stroke (cr);
          plx_render_text (cr, style, l->capacity_label, x + 20.0, y + 6.0, fs, style->foreground, 0.0, 0.5,
                           PLX_TEXT_NORMAL);
        }
      else if (l->any_over)
        {
          /* The swatch: the same hatching, denser, so a few lines show in 14 px. */
          hatch (cr, style, x, y, 14.0, 12.0, 5.0);
          plx_render_text (cr, style, _("over usable memory: does not fit"), x + 20.0, y + 6.0, fs, style->over, 0.0,
                           0.5, PLX_TEXT_BOLD);
        }
    }
  cairo_restore (cr);
}
