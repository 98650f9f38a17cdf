/* A redistribution plan drawn (plx-reshard-chart.h). The rows and the memory plot
 * share one time axis, so a step's bar stands over the bytes it holds while it runs;
 * a local step (dynamic-slice, 0 s) is a hairline bar and a spike in the memory line. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "plx-reshard-chart.h"
#include "plx-render-text.h"

#define MARGIN_PX 12.0
#define LEFT_PX 100.0        /* row names and the memory axis's labels */
#define RIGHT_PX 20.0
#define LEGEND_Y_PX 40.0
#define ROWS_TOP_PX 60.0
#define NAMES_PX 18.0        /* the array names above the plan row */
#define ROW_PX 34.0
#define ROW_GAP_PX 8.0
#define AXIS_PX 22.0
#define MEM_HEADER_PX 40.0   /* the memory panel's title and legend */
#define MIN_MEM_PX 60.0
#define HAIRLINE_PX 2.0      /* the width a 0 s step is drawn at */
/* How many times the plan's time or peak the baseline's may be and still be drawn
 * whole: the one-array example's 4.5x peak is; a checkpoint's 100x time is not. */
#define OFF_SCALE 8.0
#define MIB 1048576.0
#define GIB 1073741824.0

void
plx_reshard_layout_free (PlxReshardLayout *l)
{
  if (l == NULL)
    return;
  g_array_unref (l->bars);
  g_array_unref (l->marks);
  g_array_unref (l->time_ticks);
  g_array_unref (l->mem_ticks);
  for (guint r = 0; r < PLX_RESHARD_N_ROWS; r++)
    g_array_unref (l->mem_line[r]);
  g_array_unref (l->bound_line);
  g_free (l);
}

PlxColor
plx_reshard_op_color (const PlxRenderStyle *style,
                      PlxReshardOp          op)
{
  /* Okabe-Ito hues, as the timeline's (plx-render-style.c); a new collective gets a
   * line here, and until then one of the spare hues. Vermillion is kept for the
   * warning colour, grey for the baseline's memory line. */
  static const guint32 rgb[] = {
    [PLX_RESHARD_ALL_GATHER] = 0x0072b2, /* blue */
    [PLX_RESHARD_ALL_TO_ALL] = 0xe69f00, /* orange */
    [PLX_RESHARD_SLICE] = 0x009e73,      /* bluish green */
    [PLX_RESHARD_PERMUTE] = 0xcc79a7,    /* reddish purple */
    [PLX_RESHARD_REDUCE_SCATTER] = 0x56b4e9, /* sky blue */
    [PLX_RESHARD_ALL_REDUCE] = 0x882255,     /* wine (Tol's muted scheme) */
  };
  static const guint32 spare[] = { 0xf0e442, 0x332288 };
  guint32 c = (guint) op < G_N_ELEMENTS (rgb) ? rgb[op] : spare[((guint) op - G_N_ELEMENTS (rgb)) % G_N_ELEMENTS (spare)];
  PlxColor color = { ((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0, (c & 0xff) / 255.0 };

  (void) style;
  return color;
}

void
plx_reshard_format_bytes (double bytes,
                          char  *buf,
                          gsize  len)
{
  if (!isfinite (bytes) || bytes < 0.0)
    bytes = 0.0;
  if (bytes >= 10.0 * GIB)
    snprintf (buf, len, "%.1f GiB", bytes / GIB);
  else
    snprintf (buf, len, "%.1f MiB", bytes / MIB);
}

static void
format_ms (double seconds, char *buf, gsize len)
{
  if (seconds >= 1.0)
    snprintf (buf, len, "%.2f s", seconds);
  else
    snprintf (buf, len, seconds < 0.1 ? "%.3f ms" : "%.1f ms", seconds * 1e3);
}

static guint
copies (const PlxReshardChartArray *a)
{
  return MAX (a->count, 1u);
}

static double
row_total_s (const PlxReshardChartArray *arrays, guint n, guint row)
{
  double t = 0.0;

  for (guint i = 0; i < n; i++)
    {
      const PlxReshardPlan *p = row == PLX_RESHARD_ROW_PLAN ? arrays[i].plan : arrays[i].baseline;
      if (arrays[i].plan != NULL && p != NULL)
        t += copies (&arrays[i]) * MAX (p->time_s, 0.0);
    }
  return t;
}

/* Ticks for bytes at 1, 2 or 5 x 10^k MiB (or GiB above 2 GiB), so a 288 MiB peak
 * reads "100 MiB, 200 MiB" rather than "0.1 GiB". */
static void
bytes_ticks (double top, guint target, GArray *out)
{
  double unit = top >= 2.0 * GIB ? GIB : MIB;
  const char *name = unit == GIB ? "GiB" : "MiB";
  double step = plx_axis_nice_step (top / unit, target);

  g_array_set_size (out, 0);
  for (guint k = 0; k * step <= top / unit * (1.0 + 1e-9) && k < 100; k++)
    {
      PlxAxisTick t;
      t.value = k * step * unit;
      t.position = t.value / top;
      snprintf (t.label, sizeof t.label, "%g %s", k * step, name);
      g_array_append_val (out, t);
    }
}

static void
add_point (GArray *line, double x, double y)
{
  PlxReshardPoint p = { x, y };
  g_array_append_val (line, p);
}

/* The bars of one row and its memory step line. */
static void
lay_row (PlxReshardLayout *l, const PlxReshardChartArray *arrays, guint n, guint row, double w)
{
  double t = 0.0, plot_w = (l->plot_x1 - l->plot_x0) * w;
  GArray *line = l->mem_line[row];

#define X_OF(secs) (l->plot_x0 + (secs) / l->t_end_s * (l->plot_x1 - l->plot_x0))
#define Y_OF(bytes) (l->mem_y1 - (bytes) / l->mem_max_bytes * (l->mem_y1 - l->mem_y0))
  for (guint i = 0; i < n; i++)
    {
      const PlxReshardPlan *p = row == PLX_RESHARD_ROW_PLAN ? arrays[i].plan : arrays[i].baseline;
      double start = t;
      if (arrays[i].plan == NULL || p == NULL)
        continue;
      for (guint c = 0; c < copies (&arrays[i]); c++)
        {
          double level = plx_reshard_shard_bytes (p, &p->source);
          if (line->len > 0)
            add_point (line, X_OF (t), g_array_index (line, PlxReshardPoint, line->len - 1).y);
          add_point (line, X_OF (t), Y_OF (level));
          for (guint s = 0; s < p->steps->len; s++)
            {
              const PlxReshardStep *st = &g_array_index (p->steps, PlxReshardStep, s);
              PlxReshardBar b = { 0 };
              double dt = MAX (st->time_s, 0.0), peak = st->in_bytes + st->out_bytes;
              const char *name = plx_reshard_op_name (st->op);
              g_autofree char *after = plx_sharding_format (&st->after);
              double bar_px;

              b.op = st->op;
              b.row = row;
              b.array = i;
              b.copy = c;
              b.step = s;
              b.start_s = t;
              b.end_s = t + dt;
              b.peak_bytes = peak;
              b.x0 = X_OF (b.start_s);
              b.x1 = MIN (X_OF (b.end_s), l->plot_x1);
              b.y0 = l->row_y0[row];
              b.y1 = l->row_y1[row];
              bar_px = (b.x1 - b.x0) * w;
              snprintf (b.label, sizeof b.label, "%s → %s", name, after);
              if (plx_render_text_estimate (b.label, l->font_size * 0.9) + 8.0 > bar_px)
                snprintf (b.label, sizeof b.label, "%s",
                          plx_render_text_estimate (name, l->font_size * 0.9) + 8.0 <= bar_px ? name : "");
              /* past the end of a clipped axis: its memory is drawn (clipped), no bar */
              if (b.x0 < l->plot_x1)
                {
                  if ((guint) st->op < 32)
                    l->ops_used |= 1u << st->op;
                  g_array_append_val (l->bars, b);
                }

              add_point (line, X_OF (b.start_s), Y_OF (level));
              add_point (line, X_OF (b.start_s), Y_OF (peak));
              add_point (line, X_OF (b.end_s), Y_OF (peak));
              level = st->out_bytes;
              add_point (line, X_OF (b.end_s), Y_OF (level));
              t += dt;
            }
        }
      if (row == PLX_RESHARD_ROW_PLAN)
        {
          PlxReshardMark m = { X_OF (start), X_OF (t), "" };
          if (arrays[i].name != NULL)
            {
              g_autofree char *text = copies (&arrays[i]) > 1 ? g_strdup_printf ("%s ×%u", arrays[i].name, copies (&arrays[i]))
                                                              : g_strdup (arrays[i].name);
              if (plx_render_text_estimate (text, l->font_size * 0.85) + 4.0 <= (m.x1 - m.x0) * w)
                g_strlcpy (m.label, text, sizeof m.label);
              else if (plx_render_text_estimate (arrays[i].name, l->font_size * 0.85) + 4.0 <= (m.x1 - m.x0) * w)
                g_strlcpy (m.label, arrays[i].name, sizeof m.label);
            }
          g_array_append_val (l->marks, m);
          /* The bound is per array; a lone array's spans the whole axis. */
          add_point (l->bound_line, X_OF (start), Y_OF (arrays[i].plan->bound_bytes));
          add_point (l->bound_line, n == 1 ? l->plot_x1 : X_OF (t), Y_OF (arrays[i].plan->bound_bytes));
        }
    }
  if (line->len > 0 && X_OF (t) < l->plot_x1)
    add_point (line, l->plot_x1, g_array_index (line, PlxReshardPoint, line->len - 1).y);
  if (l->bound_line->len > 0 && row == PLX_RESHARD_ROW_PLAN)
    add_point (l->bound_line, l->plot_x1, g_array_index (l->bound_line, PlxReshardPoint, l->bound_line->len - 1).y);
  (void) plot_w;
#undef X_OF
#undef Y_OF
}

PlxReshardLayout *
plx_reshard_layout_new (const PlxReshardChartArray *arrays,
                        guint                       n_arrays,
                        double                      width_px,
                        double                      height_px)
{
  PlxReshardLayout *l = g_new0 (PlxReshardLayout, 1);
  double w = MAX (width_px, 200.0), h = MAX (height_px, 200.0), y;
  gboolean named = FALSE;
  guint n_plans = 0;

  l->width_px = w;
  l->height_px = h;
  l->font_size = 12.0;
  l->bars = g_array_new (FALSE, FALSE, sizeof (PlxReshardBar));
  l->marks = g_array_new (FALSE, FALSE, sizeof (PlxReshardMark));
  l->time_ticks = g_array_new (FALSE, FALSE, sizeof (PlxAxisTick));
  l->mem_ticks = g_array_new (FALSE, FALSE, sizeof (PlxAxisTick));
  for (guint r = 0; r < PLX_RESHARD_N_ROWS; r++)
    l->mem_line[r] = g_array_new (FALSE, FALSE, sizeof (PlxReshardPoint));
  l->bound_line = g_array_new (FALSE, FALSE, sizeof (PlxReshardPoint));

  l->has_baseline = n_arrays > 0;
  for (guint i = 0; i < n_arrays; i++)
    {
      const PlxReshardPlan *p = arrays[i].plan, *b = arrays[i].baseline;
      if (p == NULL)
        continue;
      n_plans++;
      named |= arrays[i].name != NULL;
      l->has_baseline &= b != NULL;
      l->plan_peak_bytes = MAX (l->plan_peak_bytes, p->peak_bytes);
      l->bound_bytes = MAX (l->bound_bytes, p->bound_bytes);
      if (b != NULL)
        l->base_peak_bytes = MAX (l->base_peak_bytes, b->peak_bytes);
    }
  l->empty = n_plans == 0;
  l->has_baseline &= !l->empty;
  l->plan_time_s = row_total_s (arrays, n_arrays, PLX_RESHARD_ROW_PLAN);
  l->base_time_s = l->has_baseline ? row_total_s (arrays, n_arrays, PLX_RESHARD_ROW_BASELINE) : 0.0;
  /* Equal layouts move nothing: a nominal 1 ms axis rather than a zero span. */
  /* A baseline far slower or larger than the plan (a checkpoint gathered whole) would
   * squeeze the plan to a sliver: the axes follow the plan, the baseline runs off
   * them, clipped, its total in the summary and at the edge. */
  l->t_end_s = MAX (l->plan_time_s, l->base_time_s);
  if (l->base_time_s > OFF_SCALE * l->plan_time_s && l->plan_time_s > 0.0)
    l->t_end_s = l->plan_time_s, l->base_time_clipped = TRUE;
  if (!(l->t_end_s > 0.0) || !isfinite (l->t_end_s))
    l->t_end_s = 1e-3;
  l->mem_max_bytes = MAX (l->plan_peak_bytes, l->bound_bytes) * 1.12;
  if (l->base_peak_bytes * 1.12 > OFF_SCALE * l->mem_max_bytes)
    l->base_peak_clipped = TRUE;
  else
    l->mem_max_bytes = MAX (l->mem_max_bytes, l->base_peak_bytes * 1.12);
  if (!(l->mem_max_bytes > 0.0) || !isfinite (l->mem_max_bytes))
    l->mem_max_bytes = MIB;

  l->plot_x0 = LEFT_PX / w;
  l->plot_x1 = 1.0 - RIGHT_PX / w;
  y = ROWS_TOP_PX + (named ? NAMES_PX : 0.0);
  for (guint r = 0; r < PLX_RESHARD_N_ROWS; r++)
    {
      l->row_y0[r] = y / h;
      l->row_y1[r] = (y + ROW_PX) / h;
      y += ROW_PX + ROW_GAP_PX;
    }
  l->time_axis_y = (y - ROW_GAP_PX + 4.0) / h;
  y += AXIS_PX + MEM_HEADER_PX;
  l->mem_y0 = MIN (y, h - AXIS_PX - MIN_MEM_PX) / h;
  l->mem_y1 = (h - AXIS_PX) / h;

  if (l->empty)
    {
      g_strlcpy (l->message, _("Nothing to draw: no valid plan"), sizeof l->message);
      return l;
    }
  lay_row (l, arrays, n_arrays, PLX_RESHARD_ROW_PLAN, w);
  if (l->has_baseline)
    lay_row (l, arrays, n_arrays, PLX_RESHARD_ROW_BASELINE, w);

  plx_axis_time_ticks (0.0, l->t_end_s, MAX ((guint) ((l->plot_x1 - l->plot_x0) * w / 110.0), 2u), l->time_ticks);
  for (guint i = 0; i < l->time_ticks->len; i++)
    {
      PlxAxisTick *tk = &g_array_index (l->time_ticks, PlxAxisTick, i);
      tk->position = l->plot_x0 + tk->position * (l->plot_x1 - l->plot_x0);
    }
  bytes_ticks (l->mem_max_bytes, MAX ((guint) ((l->mem_y1 - l->mem_y0) * h / 40.0), 2u), l->mem_ticks);
  for (guint i = 0; i < l->mem_ticks->len; i++)
    {
      PlxAxisTick *tk = &g_array_index (l->mem_ticks, PlxAxisTick, i);
      tk->position = l->mem_y1 - tk->position * (l->mem_y1 - l->mem_y0);
    }

  {
    char pt[32], pp[32], bt[32], bp[32];
    format_ms (l->plan_time_s, pt, sizeof pt);
    plx_reshard_format_bytes (l->plan_peak_bytes, pp, sizeof pp);
    format_ms (l->base_time_s, bt, sizeof bt);
    plx_reshard_format_bytes (l->base_peak_bytes, bp, sizeof bp);
    if (l->has_baseline)
      /* TRANSLATORS: the plan's time and peak bytes per GPU, then the XLA-style
       * baseline's. */
      snprintf (l->summary, sizeof l->summary, _("Plan %s, peak %s per GPU · XLA-style %s, peak %s"), pt, pp, bt, bp);
    else
      snprintf (l->summary, sizeof l->summary, _("Plan %s, peak %s per GPU"), pt, pp);
  }
  return l;
}

static void
stroke_line (cairo_t *cr, const GArray *line, double width, double height)
{
  for (guint i = 0; i < line->len; i++)
    {
      const PlxReshardPoint *p = &g_array_index (line, PlxReshardPoint, i);
      if (i == 0)
        cairo_move_to (cr, p->x * width, p->y * height);
      else
        cairo_line_to (cr, p->x * width, p->y * height);
    }
}

/* A legend entry: a swatch (a box, or a line, dashed or not) and its text; returns
 * the x after it. */
static double
legend_entry (cairo_t *cr, const PlxRenderStyle *style, double x, double y, PlxColor color, int swatch,
              const char *text)
{
  if (swatch == 0)
    {
      cairo_rectangle (cr, x, y - 6.0, 12.0, 12.0);
      plx_render_set_color (cr, color);
      cairo_fill (cr);
    }
  else
    {
      static const double dash[] = { 5.0, 3.0 };
      cairo_save (cr);
      cairo_set_line_width (cr, 2.0);
      if (swatch == 2)
        cairo_set_dash (cr, dash, 2, 0.0);
      cairo_move_to (cr, x - 2.0, y);
      cairo_line_to (cr, x + 14.0, y);
      plx_render_set_color (cr, color);
      cairo_stroke (cr);
      cairo_restore (cr);
    }
  return x + 18.0 + plx_render_text (cr, style, text, x + 18.0, y, style->font_size, style->foreground, 0.0, 0.5,
                                     PLX_TEXT_NORMAL) + 16.0;
}

void
plx_reshard_chart_render (const PlxReshardLayout *l,
                          const PlxRenderStyle   *style,
                          cairo_t                *cr,
                          double                  width,
                          double                  height)
{
  double fs = style->font_size, x, x0 = l->plot_x0 * width, x1 = l->plot_x1 * width;
  PlxColor plan_color = style->memory[PLX_MEM_WEIGHTS], base_color = style->muted;
  static const double dash[] = { 5.0, 3.0 };

  cairo_save (cr);
  plx_render_set_color (cr, style->background);
  cairo_paint (cr);
  if (l->empty)
    {
      plx_render_text (cr, style, l->message, width / 2.0, height / 2.0, fs, style->muted, 0.5, 0.5, PLX_TEXT_NORMAL);
      cairo_restore (cr);
      return;
    }
  plx_render_text (cr, style, l->summary, MARGIN_PX, 8.0, fs * 1.1, style->foreground, 0.0, 0.0, PLX_TEXT_BOLD);

  /* The collectives that occur, in the order of PlxReshardOp. */
  x = MARGIN_PX;
  for (guint op = 0; op < 32; op++)
    if (l->ops_used & (1u << op))
      x = legend_entry (cr, style, x, LEGEND_Y_PX, plx_reshard_op_color (style, (PlxReshardOp) op), 0,
                        plx_reshard_op_name ((PlxReshardOp) op));

  /* Rows: a track, the bars, their labels; the row's name in the margin. */
  for (guint r = 0; r < (l->has_baseline ? 2u : 1u); r++)
    {
      double ry0 = l->row_y0[r] * height, ry1 = l->row_y1[r] * height;
      plx_render_set_color (cr, style->idle);
      cairo_rectangle (cr, x0, ry0, x1 - x0, ry1 - ry0);
      cairo_fill (cr);
      plx_render_text (cr, style, r == PLX_RESHARD_ROW_PLAN ? _("Plan") : _("XLA-style"), x0 - 8.0,
                       (ry0 + ry1) / 2.0, fs, style->foreground, 1.0, 0.5, PLX_TEXT_NORMAL);
    }
  cairo_set_line_width (cr, 1.0);
  for (guint i = 0; i < l->bars->len; i++)
    {
      const PlxReshardBar *b = &g_array_index (l->bars, PlxReshardBar, i);
      double bx = b->x0 * width, bw = MAX ((b->x1 - b->x0) * width, HAIRLINE_PX);
      cairo_rectangle (cr, bx, b->y0 * height, bw, (b->y1 - b->y0) * height);
      plx_render_set_color (cr, plx_reshard_op_color (style, b->op));
      cairo_fill_preserve (cr);
      /* A background edge between neighbours, so steps of one kind stay apart. */
      if (bw > 4.0)
        {
          plx_render_set_color (cr, style->background);
          cairo_stroke (cr);
        }
      else
        cairo_new_path (cr);
      if (b->label[0] != '\0')
        plx_render_text (cr, style, b->label, bx + bw / 2.0, (b->y0 + b->y1) / 2.0 * height, fs * 0.9,
                         plx_render_style_text_on (style, plx_reshard_op_color (style, b->op)), 0.5, 0.5,
                         PLX_TEXT_NORMAL);
    }
  /* Array names above the plan row, a tick between arrays. */
  for (guint i = 0; i < l->marks->len; i++)
    {
      const PlxReshardMark *m = &g_array_index (l->marks, PlxReshardMark, i);
      double top = l->row_y0[0] * height;
      if (m->label[0] != '\0')
        plx_render_text (cr, style, m->label, (m->x0 + m->x1) / 2.0 * width, top - 3.0, fs * 0.85, style->muted,
                         0.5, 1.0, PLX_TEXT_NORMAL);
      if (i > 0 && l->marks->len > 1)
        {
          plx_render_set_color (cr, style->muted);
          cairo_move_to (cr, round (m->x0 * width) + 0.5, top - NAMES_PX + 2.0);
          cairo_line_to (cr, round (m->x0 * width) + 0.5, top);
          cairo_stroke (cr);
        }
    }
  if (l->base_time_clipped)
    {
      char t[32], text[96];
      const double ry0 = l->row_y0[PLX_RESHARD_ROW_BASELINE] * height, ry1 = l->row_y1[PLX_RESHARD_ROW_BASELINE] * height;
      double tw;
      format_ms (l->base_time_s, t, sizeof t);
      /* TRANSLATORS: the baseline's total time, past the end of the time axis. */
      snprintf (text, sizeof text, _("continues to %s →"), t);
      tw = plx_render_text_width (cr, style, text, fs * 0.9, PLX_TEXT_BOLD);
      cairo_rectangle (cr, x1 - tw - 12.0, ry0 + 6.0, tw + 10.0, ry1 - ry0 - 12.0);
      plx_render_set_color (cr, style->background);
      cairo_fill (cr);
      plx_render_text (cr, style, text, x1 - 7.0, (ry0 + ry1) / 2.0, fs * 0.9, style->foreground, 1.0, 0.5,
                       PLX_TEXT_BOLD);
    }
  for (guint i = 0; i < l->time_ticks->len; i++)
    {
      const PlxAxisTick *tk = &g_array_index (l->time_ticks, PlxAxisTick, i);
      plx_render_text (cr, style, tk->label, tk->position * width, l->time_axis_y * height, fs * 0.95, style->muted,
                       tk->position * width > x1 - 30.0 ? 1.0 : 0.5, 0.0, PLX_TEXT_NORMAL);
    }

  /* Memory: title and legend, grid, then the lines. */
  {
    double ty = l->mem_y0 * height - MEM_HEADER_PX + 6.0, ly = l->mem_y0 * height - 12.0;
    plx_render_text (cr, style, _("Memory per GPU over the steps"), MARGIN_PX, ty, fs, style->foreground, 0.0, 0.0,
                     PLX_TEXT_BOLD);
    x = legend_entry (cr, style, MARGIN_PX, ly, plan_color, 1, _("Plan"));
    if (l->has_baseline)
      x = legend_entry (cr, style, x, ly, base_color, 1, _("XLA-style"));
    legend_entry (cr, style, x, ly, style->foreground, 2,
                  _("bound: the larger of the source and target shards"));
  }
  cairo_set_line_width (cr, 1.0);
  for (guint i = 0; i < l->mem_ticks->len; i++)
    {
      const PlxAxisTick *tk = &g_array_index (l->mem_ticks, PlxAxisTick, i);
      double ty = round (tk->position * height) + 0.5;
      plx_render_set_color (cr, style->grid);
      cairo_move_to (cr, x0, ty);
      cairo_line_to (cr, x1, ty);
      cairo_stroke (cr);
      plx_render_text (cr, style, tk->label, x0 - 6.0, ty, fs * 0.95, style->muted, 1.0, 0.5, PLX_TEXT_NORMAL);
    }
  for (guint i = 0; i < l->time_ticks->len; i++)
    {
      const PlxAxisTick *tk = &g_array_index (l->time_ticks, PlxAxisTick, i);
      double tx = round (tk->position * width) + 0.5;
      plx_render_set_color (cr, style->grid);
      cairo_move_to (cr, tx, l->mem_y0 * height);
      cairo_line_to (cr, tx, l->mem_y1 * height);
      cairo_stroke (cr);
      plx_render_text (cr, style, tk->label, tk->position * width, l->mem_y1 * height + 4.0, fs * 0.95, style->muted,
                       tk->position * width > x1 - 30.0 ? 1.0 : 0.5, 0.0, PLX_TEXT_NORMAL);
    }
  cairo_save (cr);
  /* 1 px above the top, so a line at the top stays whole */
  cairo_rectangle (cr, x0, l->mem_y0 * height - 1.0, x1 - x0 + 1.0, (l->mem_y1 - l->mem_y0) * height + 2.0);
  cairo_clip (cr);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_MITER);
  if (l->has_baseline)
    {
      cairo_set_line_width (cr, 1.5);
      stroke_line (cr, l->mem_line[PLX_RESHARD_ROW_BASELINE], width, height);
      plx_render_set_color (cr, base_color);
      cairo_stroke (cr);
    }
  cairo_set_line_width (cr, 2.0);
  stroke_line (cr, l->mem_line[PLX_RESHARD_ROW_PLAN], width, height);
  plx_render_set_color (cr, plan_color);
  cairo_stroke (cr);
  cairo_save (cr);
  cairo_set_dash (cr, dash, 2, 0.0);
  cairo_set_line_width (cr, 1.5);
  stroke_line (cr, l->bound_line, width, height);
  plx_render_set_color (cr, style->foreground);
  cairo_stroke (cr);
  cairo_restore (cr);
  cairo_restore (cr);
  if (l->base_peak_clipped)
    {
      char b[32], text[96];
      plx_reshard_format_bytes (l->base_peak_bytes, b, sizeof b);
      /* TRANSLATORS: the baseline's peak bytes per GPU, above the memory axis's top. */
      snprintf (text, sizeof text, _("XLA-style peaks at %s, off the scale ↑"), b);
      /* On the title's line, right-aligned: inside the plot it would sit on the lines. */
      plx_render_text (cr, style, text, x1, l->mem_y0 * height - MEM_HEADER_PX + 6.0, fs * 0.9, style->muted, 1.0,
                       0.0, PLX_TEXT_NORMAL);
    }
  if (l->bound_line->len > 0)
    {
      const PlxReshardPoint *end = &g_array_index (l->bound_line, PlxReshardPoint, l->bound_line->len - 1);
      plx_render_text (cr, style, _("bound"), end->x * width - 4.0, end->y * height - 3.0, fs * 0.9,
                       style->foreground, 1.0, 1.0, PLX_TEXT_NORMAL);
    }
  /* The axes' base lines over the grid. */
  plx_render_set_color (cr, style->muted);
  cairo_set_line_width (cr, 1.0);
  cairo_move_to (cr, x0, round (l->mem_y1 * height) + 0.5);
  cairo_line_to (cr, x1, round (l->mem_y1 * height) + 0.5);
  cairo_stroke (cr);
  cairo_restore (cr);
}

gint
plx_reshard_layout_hit (const PlxReshardLayout *l,
                        double                  x,
                        double                  y)
{
  double slop = 3.0 / l->width_px;

  for (guint i = 0; i < l->bars->len; i++)
    {
      const PlxReshardBar *b = &g_array_index (l->bars, PlxReshardBar, i);
      gboolean hairline = (b->x1 - b->x0) * l->width_px < HAIRLINE_PX;
      if (y < b->y0 || y > b->y1)
        continue;
      if (hairline ? fabs (x - b->x0) <= slop : x >= b->x0 && x < b->x1)
        return (gint) i;
    }
  return -1;
}
