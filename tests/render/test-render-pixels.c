/* Rendering on image surfaces: the right colour in the right place. */
#include <math.h>

#include "plx-memory-chart.h"
#include "plx-render-style.h"
#include "plx-render-text.h"
#include "plx-timeline-band.h"
#include "plx-timeline-chart.h"

#include "render-util.h"
#include "test-home.h"

static void
pixel (cairo_surface_t *s, double x, double y, PlxColor *out)
{
  guint32 *data;
  int stride;
  guint32 v;

  cairo_surface_flush (s);
  data = (guint32 *) (void *) cairo_image_surface_get_data (s);
  stride = cairo_image_surface_get_stride (s) / 4;
  v = data[(int) y * stride + (int) x];
  out->r = ((v >> 16) & 0xff) / 255.0;
  out->g = ((v >> 8) & 0xff) / 255.0;
  out->b = (v & 0xff) / 255.0;
}

static gboolean
same_color (PlxColor a, PlxColor b)
{
  return fabs (a.r - b.r) < 1.5 / 255 && fabs (a.g - b.g) < 1.5 / 255 && fabs (a.b - b.b) < 1.5 / 255;
}

static cairo_surface_t *
render_timeline (PlxTimeline *tl, const PlxRenderStyle *style, PlxTimelineLayout **layout_out)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1000, 400);
  cairo_t *cr = cairo_create (s);
  PlxTimelineOptions o;

  plx_timeline_options_init (&o, 1000, 400);
  o.title = "test";
  *layout_out = plx_timeline_layout_new (tl, &o);
  cairo_set_source_rgb (cr, style->background.r, style->background.g, style->background.b);
  cairo_paint (cr);
  plx_timeline_chart_render (*layout_out, style, cr, 1000, 400);
  cairo_destroy (cr);
  return s;
}

static void
test_timeline_colours (void)
{
  g_autoptr (PlxTimeline) tl = small_timeline ();
  PlxTimelineLayout *l = NULL;
  PlxRenderStyle style;
  cairo_surface_t *s;
  PlxColor c;
  const PlxChartRow *row0;
  double y;

  plx_render_style_init (&style, FALSE, 1.0);
  s = render_timeline (tl, &style, &l);
  row0 = &g_array_index (l->rows, PlxChartRow, 0);
  y = (row0->y0 + row0->y1) / 2.0 * 400 + 3.0; /* below the micro-batch label */
  /* Stage 0 at 1 s: forward. At 5 s: backward. At 2.7 s: idle (the bubble). */
  pixel (s, (l->plot_x0 + 0.1 * (l->plot_x1 - l->plot_x0)) * 1000 + 8.0, y, &c);
  g_assert_true (same_color (c, style.kind[PLX_KIND_FORWARD]));
  pixel (s, (l->plot_x0 + 0.55 * (l->plot_x1 - l->plot_x0)) * 1000 + 8.0, y, &c);
  g_assert_true (same_color (c, style.kind[PLX_KIND_BACKWARD]));
  pixel (s, (l->plot_x0 + 0.27 * (l->plot_x1 - l->plot_x0)) * 1000, y, &c);
  g_assert_true (same_color (c, style.idle));
  /* Background outside the plot. */
  pixel (s, 999, 399, &c);
  g_assert_true (same_color (c, style.background));
  cairo_surface_destroy (s);
  plx_timeline_layout_free (l);
}

static void
test_dark_style (void)
{
  g_autoptr (PlxTimeline) tl = small_timeline ();
  PlxTimelineLayout *l = NULL;
  PlxRenderStyle style;
  cairo_surface_t *s;
  PlxColor c;

  plx_render_style_init (&style, TRUE, 1.0);
  s = render_timeline (tl, &style, &l);
  pixel (s, 999, 399, &c);
  g_assert_true (same_color (c, style.background));
  g_assert_cmpfloat (c.r + c.g + c.b, <, 0.5);
  cairo_surface_destroy (s);
  plx_timeline_layout_free (l);
}

static cairo_surface_t *
render_memory (PlxMemoryTrace *t, const PlxRenderStyle *style, PlxMemoryLayout **layout_out)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1000, 700);
  cairo_t *cr = cairo_create (s);
  PlxMemoryOptions o;

  plx_memory_options_init (&o, 1000, 700);
  o.capacity_bytes = 80.0 * 1073741824.0;
  o.usable_bytes = 77.0 * 1073741824.0;
  o.step_time_s = 10.0;
  *layout_out = plx_memory_layout_new (t, &o);
  cairo_set_source_rgb (cr, style->background.r, style->background.g, style->background.b);
  cairo_paint (cr);
  plx_memory_chart_render (*layout_out, style, cr, 1000, 700);
  cairo_destroy (cr);
  return s;
}

static void
test_memory_capacity_and_over (void)
{
  g_autoptr (PlxMemoryTrace) t = memory_trace_new (4, 20.0);
  PlxMemoryLayout *l = NULL;
  PlxRenderStyle style;
  cairo_surface_t *s;
  PlxColor c;
  const PlxMemoryBar *b0, *b3;
  guint over_pixels = 0;

  plx_render_style_init (&style, FALSE, 1.0);
  s = render_memory (t, &style, &l);
  b0 = &g_array_index (l->bars, PlxMemoryBar, 0);
  b3 = &g_array_index (l->bars, PlxMemoryBar, 3);
  /* The line crosses the gap between bars 2 and 3 at usable memory (77 GiB), where the
   * fit check and the hatching start, not at the 80 GiB of HBM. */
  pixel (s, (g_array_index (l->bars, PlxMemoryBar, 2).x1 + b3->x0) / 2.0 * 1000, round (l->usable_y * 700), &c);
  g_assert_true (same_color (c, style.capacity));
  pixel (s, (g_array_index (l->bars, PlxMemoryBar, 2).x1 + b3->x0) / 2.0 * 1000, round (l->capacity_y * 700), &c);
  g_assert_false (same_color (c, style.capacity));
  /* The weights segment of stage 3 is drawn in the weights colour. */
  pixel (s, (b3->x0 + b3->x1) / 2.0 * 1000, (b3->seg_y0[PLX_MEM_WEIGHTS] + b3->seg_y1[PLX_MEM_WEIGHTS]) / 2.0 * 700, &c);
  g_assert_true (same_color (c, style.memory[PLX_MEM_WEIGHTS]));
  /* Stage 0's part above usable memory is hatched in the warning colour, thinly: the
   * activations' colour stays visible. A line 1.5 px wide at 45 degrees is
   * 1.5 x sqrt 2 = 2.1 px wide along a pixel row; antialiased it touches 4 pixels, at
   * most 5, of every 10 (the spacing), so at least half the pixels keep the pure
   * colour. The old hatching, 2 px every 6 px (2.8 px along a row), left at most
   * 2 of every 6 (33 %). */
  {
    guint clean = 0, total = 0;
    for (double y = b0->over_y0 * 700 + 4; y < b0->over_y1 * 700 - 4; y += 1.0)
      for (double x = b0->x0 * 1000 + 4; x < b0->x1 * 1000 - 4; x += 1.0)
        {
          pixel (s, x, y, &c);
          clean += same_color (c, style.memory[PLX_MEM_ACTIVATIONS]);
          over_pixels += fabs (c.r - style.memory[PLX_MEM_ACTIVATIONS].r) > 0.2;
          total++;
        }
    g_assert_cmpuint (total, >, 1000);
    g_assert_cmpfloat ((double) clean / total, >=, 0.5);
    g_assert_cmpfloat ((double) over_pixels / total, >, 0.1);
  }
  cairo_surface_destroy (s);
  plx_memory_layout_free (l);
}

/* A large overflow: stage 0 needs 10 + 4 x 60 = 250 GiB of 77 usable, so most of its
 * bar is over. The hatching stays above the usable line: the weights, gradients and
 * optimizer segments (4, 2 and 3 GiB at the bottom) and the activations below the
 * line keep their colours, and between the hatching's lines the activations show. */
static void
test_memory_large_overflow (void)
{
  g_autoptr (PlxMemoryTrace) t = memory_trace_new (4, 60.0);
  PlxMemoryLayout *l = NULL;
  PlxRenderStyle style;
  cairo_surface_t *s;
  PlxColor c;
  const PlxMemoryBar *b0;
  const PlxMemCategory cats[] = { PLX_MEM_WEIGHTS, PLX_MEM_GRADIENTS, PLX_MEM_OPTIMIZER };
  double x;
  guint clean = 0, total = 0;

  plx_render_style_init (&style, FALSE, 1.0);
  s = render_memory (t, &style, &l);
  b0 = &g_array_index (l->bars, PlxMemoryBar, 0);
  x = (b0->x0 + b0->x1) / 2.0 * 1000;
  g_assert_cmpfloat (b0->total_bytes, ==, 250.0 * 1073741824.0);
  /* Over from the usable line (77 GiB) to the top (250 GiB): 173 / 250 of the bar. */
  g_assert_cmpfloat (fabs ((b0->over_y1 - b0->over_y0) / (l->bars_y1 - b0->over_y0) - 173.0 / 250.0), <, 1e-9);
  for (guint i = 0; i < G_N_ELEMENTS (cats); i++)
    {
      pixel (s, x, (b0->seg_y0[cats[i]] + b0->seg_y1[cats[i]]) / 2.0 * 700, &c);
      g_assert_true (same_color (c, style.memory[cats[i]]));
    }
  /* Activations just below the usable line: their own colour. */
  pixel (s, x, b0->over_y1 * 700 + 4, &c);
  g_assert_true (same_color (c, style.memory[PLX_MEM_ACTIVATIONS]));
  /* Above it, at least half the pixels between the outline's edges are still the
   * activations' colour (the hatching: 1.5 px lines 10 px apart). */
  for (double y = b0->over_y0 * 700 + 4; y < b0->over_y1 * 700 - 4; y += 1.0)
    for (double xx = b0->x0 * 1000 + 4; xx < b0->x1 * 1000 - 4; xx += 1.0)
      {
        pixel (s, xx, y, &c);
        clean += same_color (c, style.memory[PLX_MEM_ACTIVATIONS]);
        total++;
      }
  g_assert_cmpfloat ((double) clean / total, >=, 0.5);
  cairo_surface_destroy (s);
  plx_memory_layout_free (l);
}

/* The uncertainty band's "p5 – p95" over bars of the step's last events: the text
 * stands on the chart's background, not on the bars (a pixel of its backdrop left
 * of the first glyph is nearer the background than the bar's colour). */
static void
test_band_label_backdrop (void)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1000, 400);
  cairo_t *cr = cairo_create (s);
  PlxTimelineLayout l = { 0 };
  PlxRenderStyle style;
  PlxColor bar, c;
  double tw, cx, y0;

  plx_render_style_init (&style, FALSE, 1.0);
  bar = style.kind[PLX_KIND_BACKWARD];
  /* The plot 100..900 px by 40..360 px over 0..10 s; the band 8..9 s: 740..820 px. */
  l.plot_x0 = 0.1;
  l.plot_x1 = 0.9;
  l.plot_y0 = 0.1;
  l.plot_y1 = 0.9;
  l.t0_s = 0.0;
  l.t1_s = 10.0;
  cairo_set_source_rgb (cr, bar.r, bar.g, bar.b);
  cairo_paint (cr);
  plx_timeline_band_render (&l, &style, cr, 1000, 400, 8.0, 9.0);
  tw = plx_render_text_width (cr, &style, "p5 – p95", style.font_size * 0.85, PLX_TEXT_NORMAL);
  cairo_destroy (cr);
  cx = 780.0;
  y0 = 40.0;
  /* 1.5 px left of the text, half a line down. */
  pixel (s, cx - 0.5 * tw - 1.5, y0 + 2.0 + 0.5 * style.font_size * 0.85, &c);
  g_assert_cmpfloat (fabs (c.r - style.background.r) + fabs (c.g - style.background.g) +
                       fabs (c.b - style.background.b),
                     <, fabs (c.r - bar.r) + fabs (c.g - bar.g) + fabs (c.b - bar.b));
  cairo_surface_destroy (s);
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/render/pixels/timeline-colours", test_timeline_colours);
  g_test_add_func ("/render/pixels/dark-style", test_dark_style);
  g_test_add_func ("/render/pixels/memory-capacity-and-over", test_memory_capacity_and_over);
  g_test_add_func ("/render/pixels/memory-large-overflow", test_memory_large_overflow);
  g_test_add_func ("/render/pixels/band-label-backdrop", test_band_label_backdrop);
  return g_test_run ();
}
