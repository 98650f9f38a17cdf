/* Memory chart layout: stacked segments add up to each stage's total, the capacity
 * line sits at the capacity, over-capacity is marked, the over-time line follows the
 * trace. */
#include <math.h>

#include "plx-memory-chart.h"
#include "plx-render-text.h"

#include "render-util.h"
#include "test-home.h"

static const double gib = 1073741824.0;

static PlxMemoryLayout *
layout_for (PlxMemoryTrace *t, double capacity_gib, double usable_gib)
{
  PlxMemoryOptions o;

  plx_memory_options_init (&o, 1000, 700);
  o.capacity_bytes = capacity_gib * gib;
  o.usable_bytes = usable_gib * gib;
  o.step_time_s = 10.0;
  return plx_memory_layout_new (t, &o);
}

static void
test_stacks_sum (void)
{
  g_autoptr (PlxMemoryTrace) t = memory_trace_new (4, 5.0);
  g_autoptr (PlxMemoryLayout) l = layout_for (t, 80.0, 77.0);
  double scale = (l->bars_y1 - l->bars_y0) / l->max_bytes;

  g_assert_cmpuint (l->bars->len, ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      const PlxMemoryBar *b = &g_array_index (l->bars, PlxMemoryBar, i);
      double total = 10.0 * gib + (4 - i) * 5.0 * gib;
      /* Segments touch, start at the axis, and reach the stage's total. */
      g_assert_cmpfloat (b->seg_y1[0], ==, l->bars_y1);
      for (guint c = 1; c < PLX_N_MEM; c++)
        g_assert_cmpfloat (b->seg_y1[c], ==, b->seg_y0[c - 1]);
      g_assert_cmpfloat (fabs ((l->bars_y1 - b->seg_y0[PLX_N_MEM - 1]) - total * scale), <, 1e-12);
      g_assert_cmpfloat (b->total_bytes, ==, total);
      /* Activations, the fourth segment: (4 - i) x 5 GiB. */
      g_assert_cmpfloat (fabs ((b->seg_y1[PLX_MEM_ACTIVATIONS] - b->seg_y0[PLX_MEM_ACTIVATIONS]) - (4 - i) * 5.0 * gib * scale), <, 1e-12);
      g_assert_cmpfloat (b->over_y1, ==, b->over_y0);
    }
  /* The axis tops out above the larger of capacity (80 GiB) and the tallest bar. */
  g_assert_cmpfloat (l->max_bytes, ==, 80.0 * gib * 1.08);
  g_assert_cmpfloat (fabs (l->capacity_y - (l->bars_y1 - 80.0 * gib * scale)), <, 1e-12);
  g_assert_false (l->any_over);
}

static void
test_over_capacity (void)
{
  /* Stage 0 needs 10 + 4 x 20 = 90 GiB of 80: its part above the usable 77 GiB is
   * marked; stage 3 (30 GiB) is not. */
  g_autoptr (PlxMemoryTrace) t = memory_trace_new (4, 20.0);
  g_autoptr (PlxMemoryLayout) l = layout_for (t, 80.0, 77.0);
  const PlxMemoryBar *b0 = &g_array_index (l->bars, PlxMemoryBar, 0);
  const PlxMemoryBar *b3 = &g_array_index (l->bars, PlxMemoryBar, 3);
  double scale = (l->bars_y1 - l->bars_y0) / l->max_bytes;

  g_assert_true (l->any_over);
  g_assert_cmpfloat (fabs (b0->over_y1 - (l->bars_y1 - 77.0 * gib * scale)), <, 1e-12);
  g_assert_cmpfloat (fabs (b0->over_y0 - (l->bars_y1 - 90.0 * gib * scale)), <, 1e-12);
  g_assert_cmpfloat (b3->over_y1, ==, b3->over_y0);
  g_assert_cmpfloat (l->max_bytes, ==, 90.0 * gib * 1.08);
}

static void
test_over_time (void)
{
  /* Stage 0 by default (the highest peak): 10 GiB, then 30 GiB from 1 s to 9 s. */
  g_autoptr (PlxMemoryTrace) t = memory_trace_new (4, 5.0);
  g_autoptr (PlxMemoryLayout) l = layout_for (t, 80.0, 77.0);
  double yscale = (l->time_y1 - l->time_y0) / l->time_max_bytes;
  const PlxChartPoint *p;

  g_assert_cmpuint (l->rank, ==, 0);
  /* Start, step up at 1 s (two points), step down at 9 s (two points), end. */
  g_assert_cmpuint (l->points->len, ==, 6);
  p = &g_array_index (l->points, PlxChartPoint, 2);
  g_assert_cmpfloat (fabs (p->x - (l->time_x0 + 0.1 * (l->time_x1 - l->time_x0))), <, 1e-12);
  g_assert_cmpfloat (fabs (p->y - (l->time_y1 - 30.0 * gib * yscale)), <, 1e-12);
  p = &g_array_index (l->points, PlxChartPoint, 5);
  g_assert_cmpfloat (fabs (p->y - (l->time_y1 - 10.0 * gib * yscale)), <, 1e-12);
  g_assert_cmpfloat (fabs (l->time_static_y - (l->time_y1 - 10.0 * gib * yscale)), <, 1e-12);
}

static void
test_tiny (void)
{
  /* A 16 x 16 chart (the smallest export) lays out with a positive plot area: it
   * once looped for ever finding room for stage labels. */
  g_autoptr (PlxMemoryTrace) t = memory_trace_new (64, 1.0);
  PlxMemoryOptions o;
  g_autoptr (PlxMemoryLayout) l = NULL;

  plx_memory_options_init (&o, 16, 16);
  o.capacity_bytes = 80.0 * gib;
  l = plx_memory_layout_new (t, &o);
  g_assert_cmpfloat (l->bars_x1, >, l->bars_x0);
  g_assert_cmpfloat (l->bars_y1, >, l->bars_y0);
  g_assert_cmpuint (l->label_every, <=, 64);
  g_assert_cmpuint (l->bars->len, ==, 64);
}

/* The usable line and its label: 77 of 80 GiB, in the legend below every bar; at
 * 600 px the legend wraps into rows that stay inside the chart. */
static void
test_usable_line_and_legend (void)
{
  g_autoptr (PlxMemoryTrace) t = memory_trace_new (4, 20.0);
  g_autoptr (PlxMemoryLayout) l = layout_for (t, 80.0, 77.0);
  double scale = (l->bars_y1 - l->bars_y0) / l->max_bytes;
  PlxMemoryOptions o;
  g_autoptr (PlxMemoryLayout) narrow = NULL;

  g_assert_cmpstr (l->capacity_label, ==, "usable memory, 77 of 80 GiB HBM");
  g_assert_cmpfloat (fabs (l->usable_y - (l->bars_y1 - 77.0 * gib * scale)), <, 1e-12);
  g_assert_true (l->any_over);
  g_assert_cmpfloat (700.0 - l->legend_px, >, l->bars_y1 * 700.0);

  plx_memory_options_init (&o, 600, 700);
  o.capacity_bytes = 80.0 * gib;
  o.usable_bytes = 77.0 * gib;
  o.step_time_s = 10.0;
  narrow = plx_memory_layout_new (t, &o);
  g_assert_cmpuint (narrow->legend_rows, >=, 2);
  for (guint i = 0; i < PLX_N_LEGEND; i++)
    {
      const char *text = i < PLX_N_MEM ? plx_mem_category_display_name (i)
                         : i == PLX_N_MEM ? narrow->capacity_label : "over usable memory: does not fit";
      g_assert_cmpfloat (narrow->legend_x[i] + 20.0 + plx_render_text_estimate (text, narrow->font_size), <=, 600.0);
    }
  g_assert_cmpfloat (700.0 - narrow->legend_px, >, narrow->time_y1 * 700.0);
}

static gboolean
box_meets (const PlxMemoryBox *a, double x0, double y0, double x1, double y1)
{
  return a->x < x1 && x0 < a->x + a->width && a->y < y1 && y0 < a->y + a->height;
}

/* The chart's labels about memory, the usable line's ("usable memory, 77 of 80 GiB
 * HBM") and the verdict ("over usable memory: does not fit"), are legend entries:
 * their boxes never meet a bar (from its top, the last segment's, down to the axis),
 * each other, or the time axis's labels above the legend (4 px under the axis, 0.95 x
 * the font high, lines of 1.25 x that), and stay inside the chart. Checked for stage
 * 0 over by 13 GiB (90 of 77), by 173 GiB (250 of 77), 1000 and 600 px wide. */
static void
test_labels_clear_of_bars (void)
{
  const double acts[] = { 20.0, 60.0 }, widths[] = { 1000.0, 600.0 };

  for (guint a = 0; a < G_N_ELEMENTS (acts); a++)
    for (guint wi = 0; wi < G_N_ELEMENTS (widths); wi++)
      {
        g_autoptr (PlxMemoryTrace) t = memory_trace_new (4, acts[a]);
        g_autoptr (PlxMemoryLayout) l = NULL;
        PlxMemoryOptions o;
        double w = widths[wi], h = 700.0;

        plx_memory_options_init (&o, w, h);
        o.capacity_bytes = 80.0 * gib;
        o.usable_bytes = 77.0 * gib;
        o.step_time_s = 10.0;
        l = plx_memory_layout_new (t, &o);
        g_assert_true (l->any_over);
        for (guint i = 0; i < PLX_N_LEGEND; i++)
          {
            const PlxMemoryBox *box = &l->legend_box[i];

            g_assert_cmpfloat (box->width, >, 20.0);
            g_assert_cmpfloat (box->height, >=, 12.0);
            g_assert_cmpfloat (box->x, >=, 0.0);
            g_assert_cmpfloat (box->x + box->width, <=, w);
            g_assert_cmpfloat (box->y + box->height, <=, h);
            g_assert_cmpfloat (box->y, >=, l->time_y1 * h + 4.0 + 0.95 * l->font_size * 1.25);
            for (guint b = 0; b < l->bars->len; b++)
              {
                const PlxMemoryBar *bar = &g_array_index (l->bars, PlxMemoryBar, b);
                g_assert_false (box_meets (box, bar->x0 * w, bar->seg_y0[PLX_N_MEM - 1] * h, bar->x1 * w,
                                           l->bars_y1 * h));
              }
            for (guint j = 0; j < i; j++)
              g_assert_false (box_meets (box, l->legend_box[j].x, l->legend_box[j].y,
                                         l->legend_box[j].x + l->legend_box[j].width,
                                         l->legend_box[j].y + l->legend_box[j].height));
          }
        /* The usable line's entry says both figures, with the unit. */
        g_assert_cmpstr (l->capacity_label, ==, "usable memory, 77 of 80 GiB HBM");
      }
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/render/memory/stacks-sum", test_stacks_sum);
  g_test_add_func ("/render/memory/over-capacity", test_over_capacity);
  g_test_add_func ("/render/memory/over-time", test_over_time);
  g_test_add_func ("/render/memory/tiny", test_tiny);
  g_test_add_func ("/render/memory/usable-line-and-legend", test_usable_line_and_legend);
  g_test_add_func ("/render/memory/labels-clear-of-bars", test_labels_clear_of_bars);
  return g_test_run ();
}
