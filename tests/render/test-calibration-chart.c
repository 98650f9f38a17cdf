/* test-calibration-chart.c: the calibration chart's axes (whole decades on a log x,
 * 0-100 % or a round bandwidth on y), a measured point drawn at the pixel the axis
 * mapping gives by hand, the decade labels, and empty or NaN input drawing the
 * empty state without a plot. */
#include <math.h>
#include <string.h>

#include <cairo.h>

#include "plx-axis.h"
#include "plx-calibration-chart.h"
#include "plx-render-style.h"

static PlxCalCurve *
curve_new (PlxCalYUnit y_unit)
{
  PlxCalCurve *c = g_new0 (PlxCalCurve, 1);
  PlxCalSeries *s = g_new0 (PlxCalSeries, 1);

  c->role = PLX_CAL_CURVE_MATMUL;
  c->x_unit = PLX_CAL_X_FLOPS;
  c->y_unit = y_unit;
  c->fitted = g_array_new (FALSE, FALSE, sizeof (PlxCalXY));
  c->before = g_array_new (FALSE, FALSE, sizeof (PlxCalXY));
  c->residuals = g_array_new (FALSE, FALSE, sizeof (PlxCalResidual));
  c->series = g_ptr_array_new ();
  s->label = g_strdup ("s");
  s->points = g_array_new (FALSE, FALSE, sizeof (PlxCalXY));
  g_ptr_array_add (c->series, s);
  return c;
}

static void
curve_free (PlxCalCurve *c)
{
  PlxCalSeries *s = c->series->pdata[0];

  g_free (s->label);
  g_array_unref (s->points);
  g_free (s);
  g_ptr_array_unref (c->series);
  g_array_unref (c->fitted);
  g_array_unref (c->before);
  g_array_unref (c->residuals);
  g_free (c);
}

static void
add (GArray *a, double x, double y)
{
  PlxCalXY p = { x, y };
  g_array_append_val (a, p);
}

static GArray *
points (PlxCalCurve *c)
{
  return ((PlxCalSeries *) c->series->pdata[0])->points;
}

static guint32
pixel (cairo_surface_t *s, int x, int y)
{
  const guint8 *data = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);

  cairo_surface_flush (s);
  return *(const guint32 *) (const void *) (data + (gsize) y * stride + (gsize) x * 4) & 0xffffff;
}

static guint32
rgb (PlxColor c)
{
  return ((guint32) lround (c.r * 255) << 16) | ((guint32) lround (c.g * 255) << 8) | (guint32) lround (c.b * 255);
}

static cairo_surface_t *
render (const PlxCalCurve *c, const PlxRenderStyle *style, int w, int h)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  cairo_t *cr = cairo_create (s);

  plx_calibration_chart_render (c, "t", NULL, style, cr, w, h);
  cairo_destroy (cr);
  return s;
}

static void
test_point_pixel (void)
{
  PlxCalCurve *c = curve_new (PLX_CAL_Y_EFFICIENCY);
  PlxRenderStyle style;
  PlxCalChartLayout l;
  cairo_surface_t *s;
  double px, py;

  plx_render_style_init (&style, FALSE, 1.0);
  /* Points at 1e3 and 1e6 FLOPs, the fitted curve flat at 90 % between them. */
  add (points (c), 1e3, 0.2);
  add (points (c), 1e4, 0.5);
  add (points (c), 1e6, 0.8);
  add (c->fitted, 1e3, 0.9);
  add (c->fitted, 1e6, 0.9);
  plx_calibration_chart_layout (c, &style, 800, 500, &l);
  g_assert_false (l.empty);
  /* x: whole decades around the data, 10^3 .. 10^6; the plot from 64 px to
   * 800 - 24 = 776 px. */
  g_assert_cmpint (l.decade_lo, ==, 3);
  g_assert_cmpint (l.decade_hi, ==, 6);
  g_assert_cmpfloat (l.plot_x0, ==, 64.0);
  g_assert_cmpfloat (l.plot_x1, ==, 776.0);
  /* y: efficiencies on 0-100 %. The legend (calibrated and "s", estimated at
   * 0.62 em a character of 10.8 px: 12 + 26 + 67 + 16 + 26 + 7 < 788) is one line,
   * centred at 10 + 15 + 10 + 5.4 = 40.4 px; the plot starts a line (10.8 + 8) below
   * it plus the axis title's 26 px less the font's 10.8: 40.4 + 18.8 + 15.2 = 74.4;
   * it ends 56 px above the bottom, at 444. */
  g_assert_cmpuint (l.legend_rows, ==, 1);
  g_assert_cmpfloat (l.y_max, ==, 1.0);
  g_assert_cmpfloat_with_epsilon (l.plot_y0, 74.4, 1e-9);
  g_assert_cmpfloat (l.plot_y1, ==, 444.0);
  /* (1e4, 50 %): a third of the way along x, 64 + 712 / 3 = 301.33; half way up,
   * 444 - 0.5 x (444 - 74.4) = 259.2. */
  px = plx_calibration_chart_x (&l, 1e4);
  py = plx_calibration_chart_y (&l, 0.5);
  g_assert_cmpfloat_with_epsilon (px, 64.0 + 712.0 / 3.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (py, 259.2, 1e-9);
  /* And the marker is drawn there, in the first series' colour. */
  s = render (c, &style, 800, 500);
  g_assert_cmpuint (pixel (s, (int) px, (int) py), ==, rgb (plx_calibration_series_color (&style, 0)));
  /* The fitted line at 90 %: 444 - 0.9 x 369.6 = 111.36, between two grid lines. */
  g_assert_cmpuint (pixel (s, 500, (int) round (444.0 - 0.9 * 369.6)), ==, rgb (style.kind[PLX_KIND_FORWARD]));
  cairo_surface_destroy (s);
  curve_free (c);
}

static void
test_bandwidth_axis (void)
{
  PlxCalCurve *c = curve_new (PLX_CAL_Y_BANDWIDTH);
  PlxRenderStyle style;
  PlxCalChartLayout l;

  plx_render_style_init (&style, FALSE, 1.0);
  /* Up to 430 GB/s: the step is 1, 2 or 5 x 10^k just above 430e9 / 5 = 86e9, so
   * 100 GB/s, and the axis ends at the step above 430 x 1.02 = 438.6: 500 GB/s. */
  add (points (c), 32.0 * 1048576, 3.2e11);
  add (points (c), 1073741824.0, 4.3e11);
  plx_calibration_chart_layout (c, &style, 800, 500, &l);
  g_assert_cmpfloat (l.y_step, ==, 1e11);
  g_assert_cmpfloat (l.y_max, ==, 5e11);
  /* 32 MiB = 3.4e7 and 1 GiB = 1.07e9 lie in 10^7 .. 10^10. */
  g_assert_cmpint (l.decade_lo, ==, 7);
  g_assert_cmpint (l.decade_hi, ==, 10);
  curve_free (c);
}

static void
test_decade_labels (void)
{
  g_autoptr (GArray) ticks = g_array_new (FALSE, FALSE, sizeof (PlxAxisTick));
  g_autoptr (GArray) few = g_array_new (FALSE, FALSE, sizeof (PlxAxisTick));

  plx_axis_decade_ticks (3, 6, 10, "B", ticks);
  g_assert_cmpuint (ticks->len, ==, 4);
  g_assert_cmpstr (g_array_index (ticks, PlxAxisTick, 0).label, ==, "1 kB");
  g_assert_cmpstr (g_array_index (ticks, PlxAxisTick, 1).label, ==, "10 kB");
  g_assert_cmpstr (g_array_index (ticks, PlxAxisTick, 2).label, ==, "100 kB");
  g_assert_cmpstr (g_array_index (ticks, PlxAxisTick, 3).label, ==, "1 MB");
  g_assert_cmpfloat_with_epsilon (g_array_index (ticks, PlxAxisTick, 1).position, 1.0 / 3.0, 1e-12);
  /* 10^0 .. 10^12 FLOP with room for 5 labels: 13 decades every third, 0, 3, 6, 9, 12. */
  plx_axis_decade_ticks (0, 12, 5, "FLOP", few);
  g_assert_cmpuint (few->len, ==, 5);
  g_assert_cmpstr (g_array_index (few, PlxAxisTick, 0).label, ==, "1 FLOP");
  g_assert_cmpstr (g_array_index (few, PlxAxisTick, 4).label, ==, "1 TFLOP");
}

/* The last decade's label is centred on the plot's right edge, 24 px from the
 * chart's: "100 GFLOP" (about 60 px at 10.8 px) is drawn whole, its right end
 * inside the image, not cut at the edge. */
static void
test_last_label_inside (void)
{
  PlxCalCurve *c = curve_new (PLX_CAL_Y_EFFICIENCY);
  PlxRenderStyle style;
  PlxCalChartLayout l;
  cairo_surface_t *s;
  guint32 bg;
  guint ink = 0;

  plx_render_style_init (&style, FALSE, 1.0);
  add (points (c), 2e9, 0.3);
  add (points (c), 5e10, 0.6);
  plx_calibration_chart_layout (c, &style, 800, 500, &l);
  g_assert_cmpint (l.decade_hi, ==, 11);
  s = render (c, &style, 800, 500);
  bg = rgb (style.background);
  /* The label's rows; the last four pixel columns are the chart's background. */
  for (int y = (int) l.plot_y1 + 4; y < (int) l.plot_y1 + 24; y++)
    for (int x = 796; x < 800; x++)
      ink += pixel (s, x, y) != bg;
  g_assert_cmpuint (ink, ==, 0);
  /* And the label is there, left of the edge. */
  for (int y = (int) l.plot_y1 + 4; y < (int) l.plot_y1 + 24; y++)
    for (int x = 740; x < 796; x++)
      ink += pixel (s, x, y) != bg;
  g_assert_cmpuint (ink, >, 0);
  cairo_surface_destroy (s);
  curve_free (c);
}

/* No curve, or only NaN and non-positive sizes: the empty state, no plot frame. */
static void
test_empty (void)
{
  PlxCalCurve *c = curve_new (PLX_CAL_Y_EFFICIENCY);
  PlxRenderStyle style;
  PlxCalChartLayout l;
  cairo_surface_t *s;

  plx_render_style_init (&style, FALSE, 1.0);
  plx_calibration_chart_layout (NULL, &style, 800, 500, &l);
  g_assert_true (l.empty);
  s = render (NULL, &style, 800, 500);
  g_assert_cmpuint (pixel (s, 64, 300), ==, rgb (style.background));
  cairo_surface_destroy (s);

  add (points (c), NAN, 0.5);
  add (points (c), 0.0, 0.5);
  add (points (c), -5.0, 0.5);
  add (c->fitted, 1e3, NAN);
  add (c->fitted, INFINITY, 0.5);
  plx_calibration_chart_layout (c, &style, 800, 500, &l);
  g_assert_true (l.empty);
  s = render (c, &style, 800, 500);
  g_assert_cmpuint (pixel (s, 64, 300), ==, rgb (style.background));
  cairo_surface_destroy (s);
  /* A window too small for the margins still lays out without dividing by zero. */
  add (points (c), 1e3, 0.5);
  plx_calibration_chart_layout (c, &style, 10, 10, &l);
  g_assert_false (l.empty);
  g_assert_true (isfinite (plx_calibration_chart_x (&l, 1e3)));
  g_assert_true (isfinite (plx_calibration_chart_y (&l, 0.5)));
  s = render (c, &style, 10, 10);
  cairo_surface_destroy (s);
  curve_free (c);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/calibration/point-pixel", test_point_pixel);
  g_test_add_func ("/render/calibration/bandwidth-axis", test_bandwidth_axis);
  g_test_add_func ("/render/calibration/decade-labels", test_decade_labels);
  g_test_add_func ("/render/calibration/last-label-inside", test_last_label_inside);
  g_test_add_func ("/render/calibration/empty", test_empty);
  return g_test_run ();
}
