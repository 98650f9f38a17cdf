/* test-tornado-chart.c: the tornado chart's layout (order, proportions), the colour
 * of each side read back from the pixels, the figures kept inside the chart, the
 * export formats, and empty or degenerate input. */
#include <math.h>
#include <string.h>

#include <cairo.h>
#include <glib/gstdio.h>

#include "plx-render-export.h"
#include "plx-render-style.h"
#include "plx-tornado-chart.h"

/* Changes in % at input -1 % and +1 %: b is the widest (5), then a (2), then c (1);
 * d is not finite and dropped. */
static const PlxTornadoBar bars[] = {
  { "a", -1.0, 1.0 },
  { "b", 2.0, -3.0 },
  { "c", 0.5, -0.5 },
  { "d", NAN, 1.0 },
};

static void
test_order_and_widths (void)
{
  g_autoptr (PlxTornadoLayout) l = plx_tornado_layout_new (bars, G_N_ELEMENTS (bars), 16, "t", "x");
  const PlxTornadoRow *rows;
  /* The plot spans 0.34..0.95 of the width, zero in its middle (0.645); the largest
   * |change| (3, b's high end) reaches the plot's edge: k = 0.305 / 3 per %. */
  double k = 0.305 / 3.0;

  g_assert_cmpuint (l->rows->len, ==, 3);
  rows = (const PlxTornadoRow *) (const void *) l->rows->data;
  g_assert_cmpuint (rows[0].index, ==, 1);
  g_assert_cmpuint (rows[1].index, ==, 0);
  g_assert_cmpuint (rows[2].index, ==, 2);
  g_assert_cmpfloat_with_epsilon (l->span, 3.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (l->zero_x, 0.645, 1e-12);
  /* b: from -3 % (0.645 - 3k = 0.34) to +2 % (0.645 + 2k); width 5k. */
  g_assert_cmpfloat_with_epsilon (rows[0].x0, 0.34, 1e-12);
  g_assert_cmpfloat_with_epsilon (rows[0].x1, 0.645 + 2.0 * k, 1e-12);
  g_assert_cmpfloat_with_epsilon (rows[0].low_x, 0.645 + 2.0 * k, 1e-12);
  g_assert_cmpfloat_with_epsilon (rows[0].high_x, 0.34, 1e-12);
  /* Widths in the ratio of the bars' spans: 5 : 2 : 1. */
  g_assert_cmpfloat_with_epsilon ((rows[0].x1 - rows[0].x0) / (rows[1].x1 - rows[1].x0), 2.5, 1e-12);
  g_assert_cmpfloat_with_epsilon ((rows[1].x1 - rows[1].x0) / (rows[2].x1 - rows[2].x0), 2.0, 1e-12);
  /* Rows top to bottom in that order. */
  g_assert_cmpfloat (rows[0].y1, <, rows[1].y0);
  g_assert_cmpfloat (rows[1].y1, <, rows[2].y0);
}

static guint32
pixel (cairo_surface_t *s, double x, double y)
{
  const guint8 *data = cairo_image_surface_get_data (s);
  int stride = cairo_image_surface_get_stride (s);

  return *(const guint32 *) (const void *) (data + (gsize) y * stride + (gsize) x * 4) & 0xffffff;
}

static guint32
rgb (PlxColor c)
{
  return ((guint32) lround (c.r * 255) << 16) | ((guint32) lround (c.g * 255) << 8) | (guint32) lround (c.b * 255);
}

static cairo_surface_t *
render (const PlxTornadoLayout *l, int w, int h, PlxRenderStyle *style)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  cairo_t *cr = cairo_create (s);

  plx_render_style_init (style, FALSE, 1.0);
  plx_tornado_chart_render (l, style, cr, w, h);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  return s;
}

static void
test_side_colours (void)
{
  g_autoptr (PlxTornadoLayout) l = plx_tornado_layout_new (bars, G_N_ELEMENTS (bars), 16, "t", "x");
  PlxRenderStyle style;
  cairo_surface_t *s = render (l, 1100, 400, &style);
  const PlxTornadoRow *b = &g_array_index (l->rows, PlxTornadoRow, 0);
  double top, bottom, mid;

  plx_tornado_chart_row_pixels (l, &style, 400, 0, &top, &bottom);
  mid = 0.5 * (top + bottom);
  /* Three rows of at most 5 font sizes (12 px) each under the title's room: the first
   * from 0.15 to 0.85 of 60 px below 0.14 of 400 px. */
  g_assert_cmpfloat_with_epsilon (top, 56.0 + 0.15 * 60.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (bottom, 56.0 + 0.85 * 60.0, 1e-9);

  /* The light blue is the input at -1 %: b's step grows 2 % there, right of zero;
   * the dark blue its +1 %, the step 3 % shorter, left of zero. */
  g_assert_cmphex (rgb (plx_tornado_low_color (&style)), ==, 0x56b4e9);
  g_assert_cmphex (rgb (plx_tornado_high_color (&style)), ==, 0x0072b2);
  g_assert_cmphex (pixel (s, 0.5 * (b->low_x + l->zero_x) * 1100, mid), ==, 0x56b4e9);
  g_assert_cmphex (pixel (s, 0.5 * (b->high_x + l->zero_x) * 1100, mid), ==, 0x0072b2);
  cairo_surface_destroy (s);
}

/* Nothing is drawn in the chart's last 4 pixels: the figures beside the widest bar
 * (which ends at the plot's edge, 0.95 of the width) used to run out of the chart. */
static void
assert_right_strip_blank (const PlxTornadoLayout *l, int w, int h)
{
  PlxRenderStyle style;
  cairo_surface_t *s = render (l, w, h, &style);
  guint32 bg = rgb (style.background);

  for (int y = (int) (l->plot_y0 * h); y < (int) (l->plot_y1 * h); y++)
    for (int x = w - 4; x < w; x++)
      if (pixel (s, x, y) != bg)
        g_error ("%dx%d: pixel (%d, %d) is %06x, not the background", w, h, x, y, pixel (s, x, y));
  cairo_surface_destroy (s);
}

static void
test_figures_inside (void)
{
  PlxTornadoBar many[16];
  g_autoptr (PlxTornadoLayout) few = NULL, tall = NULL;
  PlxTornadoBar right[] = { { "network", -3.0, 3.0 }, { "matmul", -1.0, 1.0 } };

  for (guint i = 0; i < G_N_ELEMENTS (many); i++)
    many[i] = (PlxTornadoBar) { "input", -(i + 1.0), i + 1.0 };
  /* Two lines a row (the figures under the name) and one line (16 rows of 14 px). */
  few = plx_tornado_layout_new (right, G_N_ELEMENTS (right), 16, "t", "x");
  assert_right_strip_blank (few, 1100, 400);
  tall = plx_tornado_layout_new (many, G_N_ELEMENTS (many), 16, "t", "x");
  assert_right_strip_blank (tall, 1100, 300);
}

static void
test_short_chart (void)
{
  /* Two bars in a 1100 x 188 chart (what `simulate --tornado-of memory` writes for the
   * HBM size and the reserved bytes). Below the plot come the tick figures and the
   * axis label, 22 px + 2.4 font sizes (12 px) = 50.8 px kept for them: the bars end
   * above 188 - 50.8, and in the strip of columns around the zero line the "0" and
   * the label's middle letters are two runs of ink with background between them (at
   * 12 % of 188 px the label was drawn over the "0"). */
  PlxTornadoBar two[] = { { "gpu.hbm_bytes", 1.07, -1.05 }, { "gpu.reserved_bytes", -0.06, 0.06 } };
  g_autoptr (PlxTornadoLayout) l = plx_tornado_layout_new (two, G_N_ELEMENTS (two), 16, "t", "HBM use change, %");
  PlxRenderStyle style;
  const int w = 1100, h = 188;
  cairo_surface_t *s = render (l, w, h, &style);
  guint32 bg = rgb (style.background), low = rgb (plx_tornado_low_color (&style));
  guint32 high = rgb (plx_tornado_high_color (&style));
  int zx = (int) round (l->zero_x * w), last_bar = -1, runs = 0, y = 0;
  gboolean in_ink = FALSE;

  /* Both bars reach 3 px right of zero (the narrower one 0.06 / 1.07 of 335 px). */
  for (y = 0; y < h; y++)
    if (pixel (s, zx + 3, y) == low || pixel (s, zx + 3, y) == high)
      last_bar = y;
  g_assert_cmpint (last_bar, >=, 0);
  g_assert_cmpfloat (last_bar, <, h - 50.8);
  /* Below the zero line's end (one pixel past the last bar's row), the ink in the
   * columns zx - 2 .. zx + 2. */
  for (y = (int) (h - 50.8) + 1; y < h; y++)
    {
      gboolean ink = FALSE;
      for (int x = zx - 2; x <= zx + 2; x++)
        ink |= pixel (s, x, y) != bg;
      runs += ink && !in_ink ? 1 : 0;
      in_ink = ink;
    }
  g_assert_cmpint (runs, ==, 2);
  cairo_surface_destroy (s);
}

static void
test_long_title (void)
{
  /* A title wider than the chart (a long scenario name at 600 px) ends in "…" inside
   * it: the title's line (8 px down, 15 px type) is background in the last 12 px. */
  g_autoptr (PlxTornadoLayout) l = plx_tornado_layout_new (
    bars, G_N_ELEMENTS (bars), 16,
    "Step time against each cluster input ±1 % - GPT-3 175B on 64 A100-80GB, TP 8 x PP 8, interleaved 1F1B", "x");
  PlxRenderStyle style;
  const int w = 600, h = 300;
  cairo_surface_t *s = render (l, w, h, &style);
  guint32 bg = rgb (style.background);

  for (int y = 8; y < 8 + 20; y++)
    for (int x = w - 12; x < w; x++)
      if (pixel (s, x, y) != bg)
        g_error ("pixel (%d, %d) is %06x, not the background", x, y, pixel (s, x, y));
  cairo_surface_destroy (s);
}

static void
draw_export (cairo_t *cr, double width, double height, gpointer data)
{
  plx_tornado_chart_render (((gpointer *) data)[0], ((gpointer *) data)[1], cr, width, height);
}

static void
test_export_signatures (void)
{
  g_autoptr (PlxTornadoLayout) l = plx_tornado_layout_new (bars, G_N_ELEMENTS (bars), 16, "t", "x");
  g_autofree char *dir = g_dir_make_tmp ("plx-tornado-XXXXXX", NULL);
  static const struct { const char *name, *magic; } kinds[] = {
    { "t.png", "\x89PNG" }, { "t.svg", "<?xml" }, { "t.pdf", "%PDF" },
  };
  PlxRenderStyle style;

  plx_render_style_init (&style, FALSE, 1.0);
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      g_autofree char *path = g_build_filename (dir, kinds[i].name, NULL);
      g_autofree char *text = NULL;
      g_autoptr (GError) error = NULL;
      gsize len;
      gpointer data[2] = { l, &style };

      g_assert_true (plx_render_export (path, 800, 300, 1.0, &style, draw_export, data, &error));
      g_assert_no_error (error);
      g_assert_true (g_file_get_contents (path, &text, &len, NULL));
      g_assert_cmpuint (len, >, strlen (kinds[i].magic));
      g_assert_cmpmem (text, strlen (kinds[i].magic), kinds[i].magic, strlen (kinds[i].magic));
      g_remove (path);
    }
  g_rmdir (dir);
}

static void
test_empty_and_flat (void)
{
  PlxTornadoBar flat[] = { { "a", 0.0, 0.0 }, { "b", 0.0, -0.0 } };
  PlxTornadoBar nan_only[] = { { NULL, NAN, INFINITY } };
  g_autoptr (PlxTornadoLayout) empty = plx_tornado_layout_new (NULL, 0, 16, NULL, NULL);
  g_autoptr (PlxTornadoLayout) zero = plx_tornado_layout_new (flat, 2, 16, "t", "x");
  g_autoptr (PlxTornadoLayout) none = plx_tornado_layout_new (nan_only, 1, 16, "t", "x");
  PlxRenderStyle style;

  g_assert_cmpuint (empty->rows->len, ==, 0);
  g_assert_cmpuint (none->rows->len, ==, 0);
  g_assert_cmpfloat (empty->span, ==, 0.0);
  /* No change anywhere: every bar a line on zero, never 0 / 0. */
  g_assert_cmpuint (zero->rows->len, ==, 2);
  for (guint i = 0; i < zero->rows->len; i++)
    {
      const PlxTornadoRow *r = &g_array_index (zero->rows, PlxTornadoRow, i);
      g_assert_cmpfloat (r->x0, ==, zero->zero_x);
      g_assert_cmpfloat (r->x1, ==, zero->zero_x);
    }
  cairo_surface_destroy (render (empty, 400, 200, &style));
  cairo_surface_destroy (render (zero, 400, 200, &style));
  cairo_surface_destroy (render (none, 400, 200, &style));
  /* Fewer rows than asked for: at most max_rows, the widest. */
  {
    g_autoptr (PlxTornadoLayout) two = plx_tornado_layout_new (bars, G_N_ELEMENTS (bars), 2, "t", "x");
    g_assert_cmpuint (two->rows->len, ==, 2);
    g_assert_cmpuint (g_array_index (two->rows, PlxTornadoRow, 1).index, ==, 0);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/tornado/order-and-widths", test_order_and_widths);
  g_test_add_func ("/render/tornado/side-colours", test_side_colours);
  g_test_add_func ("/render/tornado/figures-inside", test_figures_inside);
  g_test_add_func ("/render/tornado/short-chart", test_short_chart);
  g_test_add_func ("/render/tornado/long-title", test_long_title);
  g_test_add_func ("/render/tornado/export-signatures", test_export_signatures);
  g_test_add_func ("/render/tornado/empty-and-flat", test_empty_and_flat);
  return g_test_run ();
}
