/* The search's scatter plot: points where their memory and step time put them, the
 * Pareto staircase through the front, hit tests, colours on an image surface, and no
 * NaN for empty or broken input. */
#include <math.h>

#include "plx-render-style.h"
#include "plx-render-text.h"
#include "plx-scatter-chart.h"

static const double gib = 1073741824.0;

/* Two strategies on the front, (10 GiB, 2 s) and (20 GiB, 1 s), and one behind it,
 * (15 GiB, 3 s); 40 GiB usable per GPU. */
static const PlxScatterPoint three[3] = {
  { 10.0 * 1073741824.0, 2.0, TRUE },
  { 20.0 * 1073741824.0, 1.0, TRUE },
  { 15.0 * 1073741824.0, 3.0, FALSE },
};

static PlxScatterLayout *
layout_three (gint selected)
{
  PlxScatterOptions o;

  plx_scatter_options_init (&o, 1000, 600);
  o.usable_bytes = 40.0 * gib;
  o.selected = selected;
  return plx_scatter_layout_new (three, 3, &o);
}

static void
test_positions (void)
{
  g_autoptr (PlxScatterLayout) l = layout_three (-1);
  double pw, ph;
  const PlxChartPoint *p;

  /* Margins of 84 px left, 24 right, 84 top, 58 bottom. */
  g_assert_cmpfloat_with_epsilon (l->plot_x0, 0.084, 1e-12);
  g_assert_cmpfloat_with_epsilon (l->plot_x1, 0.976, 1e-12);
  g_assert_cmpfloat_with_epsilon (l->plot_y0, 84.0 / 600.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (l->plot_y1, 1.0 - 58.0 / 600.0, 1e-12);
  pw = l->plot_x1 - l->plot_x0;
  ph = l->plot_y1 - l->plot_y0;
  /* Points at 10-20 GiB, usable 40: the span 10..40 GiB with 5 % of its 30 GiB to
   * spare each side is 8.5..41.5 GiB; 8.5 is within a third of 41.5, so the axis
   * starts at zero. */
  g_assert_cmpfloat_with_epsilon (l->x_min, 0.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (l->x_max, 41.5 * gib, 1.0);
  /* Step times 1..3 s: the nice step for a span of 2 over 5 ticks is 0.5 s, so the
   * axis runs from 1 s to 3 s. */
  g_assert_cmpfloat_with_epsilon (l->y_lo_s, 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (l->y_hi_s, 3.0, 1e-12);
  g_assert_cmpuint (l->positions->len, ==, 3);
  p = &g_array_index (l->positions, PlxChartPoint, 0);
  g_assert_cmpfloat_with_epsilon (p->x, l->plot_x0 + 10.0 / 41.5 * pw, 1e-12);
  g_assert_cmpfloat_with_epsilon (p->y, l->plot_y1 - 0.5 * ph, 1e-12);
  p = &g_array_index (l->positions, PlxChartPoint, 1);
  g_assert_cmpfloat_with_epsilon (p->y, l->plot_y1, 1e-12);   /* fastest: at the bottom */
  p = &g_array_index (l->positions, PlxChartPoint, 2);
  g_assert_cmpfloat_with_epsilon (p->x, l->plot_x0 + 15.0 / 41.5 * pw, 1e-12);
  g_assert_cmpfloat_with_epsilon (p->y, l->plot_y0, 1e-12);   /* slowest: at the top */
  g_assert_cmpfloat_with_epsilon (l->usable_x, l->plot_x0 + 40.0 / 41.5 * pw, 1e-12);
  g_assert_cmpuint (l->n_points, ==, 3);
  g_assert_cmpuint (l->n_pareto, ==, 2);
  g_assert_cmpstr (l->summary, ==, "3 strategies, 2 on the Pareto front");
  /* Ticks: y at 1, 1.5, 2, 2.5, 3 s from the bottom up; a 0.5 s step reads in seconds
   * with the one decimal that tells neighbours apart. */
  g_assert_cmpuint (l->y_ticks->len, ==, 5);
  g_assert_cmpstr (g_array_index (l->y_ticks, PlxAxisTick, 0).label, ==, "1.0 s");
  g_assert_cmpfloat_with_epsilon (g_array_index (l->y_ticks, PlxAxisTick, 0).position, l->plot_y1, 1e-12);
  g_assert_cmpstr (g_array_index (l->y_ticks, PlxAxisTick, 4).label, ==, "3.0 s");
}

static void
test_staircase (void)
{
  g_autoptr (PlxScatterLayout) l = layout_three (-1);
  const PlxChartPoint *a = &g_array_index (l->positions, PlxChartPoint, 0);
  const PlxChartPoint *b = &g_array_index (l->positions, PlxChartPoint, 1);
  const PlxChartPoint *f;

  /* (10 GiB, 2 s) -> right to 20 GiB at 2 s -> down to (20 GiB, 1 s). */
  g_assert_cmpuint (l->front->len, ==, 3);
  f = &g_array_index (l->front, PlxChartPoint, 0);
  g_assert_cmpfloat (f->x, ==, a->x);
  g_assert_cmpfloat (f->y, ==, a->y);
  f = &g_array_index (l->front, PlxChartPoint, 1);
  g_assert_cmpfloat (f->x, ==, b->x);
  g_assert_cmpfloat (f->y, ==, a->y);
  f = &g_array_index (l->front, PlxChartPoint, 2);
  g_assert_cmpfloat (f->x, ==, b->x);
  g_assert_cmpfloat (f->y, ==, b->y);
}

static void
test_hit (void)
{
  g_autoptr (PlxScatterLayout) l = layout_three (-1);
  const PlxChartPoint *c = &g_array_index (l->positions, PlxChartPoint, 2);

  /* 3 px right of the third point: it; 20 px away: nothing within 8 px. */
  g_assert_cmpint (plx_scatter_layout_hit (l, c->x + 3.0 / 1000.0, c->y, 8.0), ==, 2);
  g_assert_cmpint (plx_scatter_layout_hit (l, c->x + 20.0 / 1000.0, c->y, 8.0), ==, -1);
  g_assert_cmpint (plx_scatter_layout_hit (l, 0.0, 0.0, 8.0), ==, -1);
}

static void
test_by_gpus (void)
{
  /* Against GPU count: (64 GPUs, 2 s) and (128, 1 s) on that front, (128, 3 s) not.
   * The GPU counts span 64..128; 5 % of 64 each side gives 60.8..131.2, which starts
   * above a third of its end, so the axis starts at a tick: about 9 ticks over 892 px
   * ask for a step of 70.4 / 9 = 7.8, rounded up to 10, so 60..131.2 with ticks 60,
   * 70, ..., 130. No memory line. */
  const PlxScatterPoint pts[3] = {
    { 10.0 * 1073741824.0, 2.0, FALSE, 64.0, TRUE },
    { 20.0 * 1073741824.0, 1.0, FALSE, 128.0, TRUE },
    { 15.0 * 1073741824.0, 3.0, TRUE, 128.0, FALSE },
  };
  PlxScatterOptions o;
  g_autoptr (PlxScatterLayout) l = NULL;
  double pw;

  plx_scatter_options_init (&o, 1000, 600);
  o.usable_bytes = 40.0 * gib;
  o.by_gpus = TRUE;
  l = plx_scatter_layout_new (pts, 3, &o);
  pw = l->plot_x1 - l->plot_x0;
  g_assert_cmpfloat_with_epsilon (l->x_min, 60.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (l->x_max, 131.2, 1e-9);
  g_assert_cmpfloat_with_epsilon (g_array_index (l->positions, PlxChartPoint, 0).x,
                                  l->plot_x0 + (64.0 - 60.0) / (131.2 - 60.0) * pw, 1e-12);
  g_assert_cmpfloat (l->usable_x, <, 0.0);
  g_assert_cmpuint (l->x_ticks->len, ==, 8);
  g_assert_cmpstr (g_array_index (l->x_ticks, PlxAxisTick, 0).label, ==, "60");
  g_assert_cmpfloat_with_epsilon (g_array_index (l->x_ticks, PlxAxisTick, 0).position, l->plot_x0, 1e-12);
  g_assert_cmpstr (g_array_index (l->x_ticks, PlxAxisTick, 7).label, ==, "130");
  g_assert_cmpuint (l->n_pareto, ==, 2);
  g_assert_cmpuint (l->front->len, ==, 3);
  g_assert_cmpfloat (g_array_index (l->front, PlxChartPoint, 1).x, ==, g_array_index (l->positions, PlxChartPoint, 1).x);
  g_assert_cmpfloat (g_array_index (l->front, PlxChartPoint, 1).y, ==, g_array_index (l->positions, PlxChartPoint, 0).y);
  g_assert_cmpstr (l->title, ==, "Step time against GPU count");
}

static void
test_outliers_on_top_edge (void)
{
  /* 1 s, 2 s (the front) and 10 s: the axis stops at the larger of 4 x 1 s and
   * 1.2 x 2 s. A span of 3 s over 5 ticks asks for 0.6, rounded up to 1 s: 1 to 4 s.
   * The 10 s point sits on the top edge. */
  const PlxScatterPoint pts[3] = {
    { 10.0 * 1073741824.0, 1.0, TRUE }, { 5.0 * 1073741824.0, 2.0, TRUE }, { 5.0 * 1073741824.0, 10.0, FALSE },
  };
  PlxScatterOptions o;
  g_autoptr (PlxScatterLayout) l = NULL;

  plx_scatter_options_init (&o, 1000, 600);
  l = plx_scatter_layout_new (pts, 3, &o);
  g_assert_cmpfloat_with_epsilon (l->y_lo_s, 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (l->y_hi_s, 4.0, 1e-12);
  g_assert_cmpuint (l->n_above, ==, 1);
  g_assert_true (l->above[2] && !l->above[0] && !l->above[1]);
  g_assert_cmpfloat_with_epsilon (g_array_index (l->positions, PlxChartPoint, 2).y, l->plot_y0, 1e-12);
  g_assert_cmpstr (l->summary, ==, "3 strategies, 2 on the Pareto front; 1 slower than the axis shows, on the top edge");

  /* A front reaching 6 s keeps its slowest point in view: the top is 1.2 x 6 = 7.2 s
   * rather than 4 s; a span of 6.2 s over 5 ticks asks for 1.24, rounded up to 2 s:
   * 0 to 8 s. The 20 s point is on the top edge. */
  {
    const PlxScatterPoint wide[3] = {
      { 10.0 * 1073741824.0, 1.0, TRUE }, { 2.0 * 1073741824.0, 6.0, TRUE }, { 5.0 * 1073741824.0, 20.0, FALSE },
    };
    g_autoptr (PlxScatterLayout) w = plx_scatter_layout_new (wide, 3, &o);
    g_assert_cmpfloat_with_epsilon (w->y_lo_s, 0.0, 1e-12);
    g_assert_cmpfloat_with_epsilon (w->y_hi_s, 8.0, 1e-12);
    g_assert_cmpuint (w->n_above, ==, 1);
    g_assert_false (w->above[1]);
  }
}

static PlxColor
pixel (cairo_surface_t *s, double x, double y)
{
  guint32 v;
  int stride = cairo_image_surface_get_stride (s) / 4;
  PlxColor c;

  cairo_surface_flush (s);
  v = ((guint32 *) (void *) cairo_image_surface_get_data (s))[(int) y * stride + (int) x];
  c.r = ((v >> 16) & 0xff) / 255.0;
  c.g = ((v >> 8) & 0xff) / 255.0;
  c.b = (v & 0xff) / 255.0;
  return c;
}

static void
assert_color (PlxColor a, PlxColor b)
{
  g_assert_cmpfloat (fabs (a.r - b.r), <, 1.5 / 255);
  g_assert_cmpfloat (fabs (a.g - b.g), <, 1.5 / 255);
  g_assert_cmpfloat (fabs (a.b - b.b), <, 1.5 / 255);
}

static void
test_colours (void)
{
  g_autoptr (PlxScatterLayout) l = layout_three (2);
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1000, 600);
  cairo_t *cr = cairo_create (s);
  PlxRenderStyle style;
  const PlxChartPoint *front = &g_array_index (l->positions, PlxChartPoint, 0);
  const PlxChartPoint *sel = &g_array_index (l->positions, PlxChartPoint, 2);

  plx_render_style_init (&style, FALSE, 1.0);
  plx_render_set_color (cr, style.background);
  cairo_paint (cr);
  plx_scatter_chart_render (l, &style, cr, 1000, 600);
  cairo_destroy (cr);
  if (g_getenv ("PLX_DUMP")) cairo_surface_write_to_png (s, g_getenv ("PLX_DUMP"));
  /* A front point is filled in the front's colour (the forward blue). */
  assert_color (pixel (s, front->x * 1000, front->y * 600), style.kind[PLX_KIND_FORWARD]);
  /* The selected point is ringed at 9 px in vermillion; the ring crosses (x + 9, y). */
  assert_color (pixel (s, sel->x * 1000 + 9.0, sel->y * 600), style.kind[PLX_KIND_PP_SEND]);
  /* Well away from every point, inside the plot but off the grid: background. */
  assert_color (pixel (s, 0.9 * 1000 - 3, 0.5 * 600 + 20), style.background);
  cairo_surface_destroy (s);
}

static void
test_empty_and_broken (void)
{
  PlxScatterOptions o;
  const PlxScatterPoint broken[2] = { { NAN, INFINITY, TRUE }, { -1.0, 0.0, FALSE } };
  g_autoptr (PlxScatterLayout) empty = NULL;
  g_autoptr (PlxScatterLayout) l = NULL;

  plx_scatter_options_init (&o, 10, 10);   /* smaller than the minimum: clamped */
  empty = plx_scatter_layout_new (NULL, 0, &o);
  g_assert_cmpuint (empty->positions->len, ==, 0);
  g_assert_cmpstr (empty->summary, ==, "0 strategies, 0 on the Pareto front");
  g_assert_true (empty->y_hi_s > empty->y_lo_s);
  g_assert_true (empty->x_max > 0.0);
  o.usable_bytes = NAN;
  l = plx_scatter_layout_new (broken, 2, &o);
  for (guint i = 0; i < l->positions->len; i++)
    {
      const PlxChartPoint *p = &g_array_index (l->positions, PlxChartPoint, i);
      g_assert_true (isfinite (p->x) && isfinite (p->y));
    }
  g_assert_cmpfloat (l->usable_x, <, 0.0);
  g_assert_true (isfinite (l->y_lo_s) && isfinite (l->y_hi_s) && l->y_hi_s > l->y_lo_s);
}

/* Strategies that all need 48-77 GiB on 77 GiB usable (the search): the span
 * 48..77 with 5 % of 29 GiB each side is 46.55..78.45 GiB; 46.55 is above a third of
 * 78.45, so the axis starts at a tick below it: 9 ticks over 892 px ask for a step of
 * 31.9 / 9 = 3.5 GiB, rounded up to 5, so the axis starts at 45 GiB. The points then
 * spread over the plot instead of its right third. */
static void
test_x_axis_not_from_zero (void)
{
  const PlxScatterPoint pts[3] = {
    { 48.0 * 1073741824.0, 2.0, TRUE, 64.0, TRUE },
    { 60.0 * 1073741824.0, 1.5, TRUE, 64.0, TRUE },
    { 77.0 * 1073741824.0, 1.0, TRUE, 64.0, TRUE },
  };
  PlxScatterOptions o;
  g_autoptr (PlxScatterLayout) l = NULL;
  double pw;

  plx_scatter_options_init (&o, 1000, 600);
  o.usable_bytes = 77.0 * gib;
  l = plx_scatter_layout_new (pts, 3, &o);
  pw = l->plot_x1 - l->plot_x0;
  g_assert_cmpfloat_with_epsilon (l->x_min, 45.0 * gib, 1.0);
  g_assert_cmpfloat_with_epsilon (l->x_max, 78.45 * gib, 1.0);
  g_assert_cmpstr (g_array_index (l->x_ticks, PlxAxisTick, 0).label, ==, "45 GiB");
  g_assert_cmpfloat_with_epsilon (g_array_index (l->positions, PlxChartPoint, 0).x,
                                  l->plot_x0 + 3.0 / 33.45 * pw, 1e-9);
  g_assert_cmpfloat_with_epsilon (l->usable_x, l->plot_x0 + 32.0 / 33.45 * pw, 1e-9);
}

/* A title too wide for the chart keeps its subject: "gpt3-175b, global batch 64:
 * step time against peak memory" is about 0.62 x 15 x 57 = 530 px, more than a
 * 400 px chart less its 24 px of margins; the axes' titles still say what is plotted. */
static void
test_title_fits (void)
{
  const PlxScatterPoint pts[1] = { { 10.0 * 1073741824.0, 2.0, TRUE, 64.0, TRUE } };
  const char *title = "gpt3-175b, global batch 64: step time against peak memory";
  PlxScatterOptions o;
  g_autoptr (PlxScatterLayout) narrow = NULL;
  g_autoptr (PlxScatterLayout) wide = NULL;

  plx_scatter_options_init (&o, 400, 400);
  o.title = title;
  narrow = plx_scatter_layout_new (pts, 1, &o);
  g_assert_cmpstr (narrow->title, ==, "gpt3-175b, global batch 64");
  plx_scatter_options_init (&o, 1000, 600);
  o.title = title;
  wide = plx_scatter_layout_new (pts, 1, &o);
  g_assert_cmpstr (wide->title, ==, title);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scatter/positions", test_positions);
  g_test_add_func ("/scatter/staircase", test_staircase);
  g_test_add_func ("/scatter/hit", test_hit);
  g_test_add_func ("/scatter/by-gpus", test_by_gpus);
  g_test_add_func ("/scatter/outliers-on-top-edge", test_outliers_on_top_edge);
  g_test_add_func ("/scatter/colours", test_colours);
  g_test_add_func ("/scatter/empty-and-broken", test_empty_and_broken);
  g_test_add_func ("/scatter/x-axis-not-from-zero", test_x_axis_not_from_zero);
  g_test_add_func ("/scatter/title-fits", test_title_fits);
  return g_test_run ();
}
