/* The comparison chart: an honest verdict, differences largest first in columns that
 * never overlap, and memory in its own colours with a legend. Reports are made by hand
 * so every expected value follows from the numbers below. */
#include <math.h>
#include <string.h>

#include "plx-compare-chart.h"
#include "plx-render-style.h"
#include "plx-render-text.h"

#include "render-util.h"

#define GIB 1073741824.0

/* A: 10 s per step (compute 6, TP comm 2, bubble 1, optimizer 1), peak 60 GiB.
 * B: 9.25 s (compute 6.5, recompute 0.1, TP comm 0.75, bubble 1.3, optimizer 0.6),
 * peak 90 GiB. Both on 80 GiB GPUs with 77 GiB usable. B is (10 - 9.25) / 10 = 7.5 %
 * faster. Changes: TP comm -1.25, compute +0.5, optimizer -0.4, bubble +0.3,
 * recompute +0.1; pipeline and DP comm are zero on both sides and not listed. */
static void
make_reports (PlxReport *a, PlxReport *b, gboolean a_fits, gboolean b_fits)
{
  memset (a, 0, sizeof *a);
  memset (b, 0, sizeof *b);
  a->step_time_s = 10.0;
  a->time_s[PLX_TIME_COMPUTE] = 6.0;
  a->time_s[PLX_TIME_TP_COMM] = 2.0;
  a->time_s[PLX_TIME_BUBBLE] = 1.0;
  a->time_s[PLX_TIME_OPTIMIZER] = 1.0;
  b->step_time_s = 9.25;
  b->time_s[PLX_TIME_COMPUTE] = 6.5;
  b->time_s[PLX_TIME_RECOMPUTE] = 0.1;
  b->time_s[PLX_TIME_TP_COMM] = 0.75;
  b->time_s[PLX_TIME_BUBBLE] = 1.3;
  b->time_s[PLX_TIME_OPTIMIZER] = 0.6;
  for (guint i = 0; i < 2; i++)
    {
      PlxReport *r = i == 0 ? a : b;
      double peak = i == 0 ? 60.0 : 90.0;
      r->hbm_bytes = (guint64) (80 * GIB);
      r->hbm_usable_bytes = (guint64) (77 * GIB);
      r->peak_memory_bytes = (guint64) (peak * GIB);
      r->memory_bytes[PLX_MEM_WEIGHTS] = (guint64) (10 * GIB);
      r->memory_bytes[PLX_MEM_GRADIENTS] = (guint64) (10 * GIB);
      r->memory_bytes[PLX_MEM_OPTIMIZER] = (guint64) (20 * GIB);
      r->memory_bytes[PLX_MEM_ACTIVATIONS] = (guint64) ((peak - 41.0) * GIB);
      r->memory_bytes[PLX_MEM_OTHER] = (guint64) (1 * GIB);
      r->fits_in_memory = i == 0 ? a_fits : b_fits;
    }
}

static PlxCompareLayout *
layout_for (const PlxReport *a, const PlxReport *b, PlxTimeline *tl, double w, double h)
{
  PlxCompareSide sa = { "A side", a, tl, NULL }, sb = { "B side", b, tl, NULL };

  return plx_compare_layout_new (&sa, &sb, w, h);
}

static void
test_verdict (void)
{
  static const struct
  {
    gboolean a_fits, b_fits;
    const char *title;
  } cases[] = {
    { TRUE, TRUE, "B is 7.5 % faster than A per step" },
    { TRUE, FALSE, "B would be 7.5 % faster than A per step, but B does not fit in memory" },
    { FALSE, TRUE, "B is 7.5 % faster than A per step, and A does not fit in memory" },
    { FALSE, FALSE, "Neither A nor B fits in memory; B would be 7.5 % faster than A per step" },
  };
  PlxTimeline *tl = small_timeline ();

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      PlxReport a, b;
      g_autoptr (PlxCompareLayout) l = NULL;

      make_reports (&a, &b, cases[i].a_fits, cases[i].b_fits);
      l = layout_for (&a, &b, tl, 1600, 1100);
      g_assert_cmpstr (l->title, ==, cases[i].title);
      g_assert_true (l->fits[0] == cases[i].a_fits && l->fits[1] == cases[i].b_fits);
    }
  {
    /* Swapped, A is the faster: 9.25 -> 10 s is (10 - 9.25) / 9.25 = 8.1 % slower. */
    PlxReport a, b;
    g_autoptr (PlxCompareLayout) l = NULL;

    make_reports (&a, &b, TRUE, FALSE);
    l = layout_for (&b, &a, tl, 1600, 1100);
    g_assert_cmpstr (l->title, ==, "B is 8.1 % slower than A per step, but A does not fit in memory");
  }
  plx_timeline_free (tl);
}

/* Issue 34: "B is 431 % slower" where A and B were different models on different GPU
 * counts. With A and B as made above (10 s and 9.25 s per step), A trains 64 GPUs at
 * 65,536 tokens a step (6553.6 tokens/s, MFU 50 %), and B: */
static void
test_verdict_unlike (void)
{
  PlxTimeline *tl = small_timeline ();
  PlxReport a, b;

  make_reports (&a, &b, TRUE, TRUE);
  a.n_gpus = 64;
  a.tokens_per_s = 65536.0 / 10.0;
  a.mfu = 0.5;
  {
    /* the same model on 128 GPUs, a step of twice the tokens: 131,072 / 9.25 s =
     * 14,169.7 tokens/s, 14,169.7 / 6553.6 = 2.16x A's; per GPU 2.16 x 64 / 128 = 1.08x. */
    PlxCompareSide sa = { "A side", &a, tl, "gpt3-175b" }, sb = { "B side", &b, tl, "gpt3-175b" };
    char title[300];
    b.n_gpus = 128;
    b.tokens_per_s = 131072.0 / 9.25;
    plx_compare_verdict (&sa, &sb, title, sizeof title);
    g_assert_cmpstr (title, ==, "B on 128 GPUs: 2.16× A's tokens/s on 64 GPUs, 1.08× per GPU");
  }
  {
    /* Another model on 128 GPUs that does not fit: no step-time verdict, MFU each. */
    PlxCompareSide sa = { "A side", &a, tl, "gpt3-175b" }, sb = { "B side", &b, tl, "llama-2-70b" };
    g_autoptr (PlxCompareLayout) l = NULL;
    b.mfu = 0.421;
    b.fits_in_memory = FALSE;
    l = plx_compare_layout_new (&sa, &sb, 1600, 1100);
    g_assert_cmpstr (l->title, ==,
                     "A (gpt3-175b, 64 GPUs) vs B (llama-2-70b, 128 GPUs): MFU 50.0 % vs 42.1 %; B does not fit in memory");
  }
  {
    /* The same model and GPUs, but B's steps hold 65,536 x 1.5 tokens: 98,304 /
     * 9.25 s = 10,627.5 tokens/s, 1.62x A's. */
    PlxCompareSide sa = { "A side", &a, tl, "gpt3-175b" }, sb = { "B side", &b, tl, "gpt3-175b" };
    char title[300];
    b.n_gpus = 64;
    b.fits_in_memory = TRUE;
    b.tokens_per_s = 98304.0 / 9.25;
    plx_compare_verdict (&sa, &sb, title, sizeof title);
    g_assert_cmpstr (title, ==, "B: 1.62× A's tokens/s (steps of different sizes)");
    /* The same steps: the step-time verdict stands, 7.5 % faster (test_verdict). */
    b.tokens_per_s = 65536.0 / 9.25;
    plx_compare_verdict (&sa, &sb, title, sizeof title);
    g_assert_cmpstr (title, ==, "B is 7.5 % faster than A per step");
  }
  plx_timeline_free (tl);
}

static void
test_differences_sorted (void)
{
  static const PlxTimeCategory expected[] = {
    PLX_TIME_TP_COMM, PLX_TIME_COMPUTE, PLX_TIME_OPTIMIZER, PLX_TIME_BUBBLE, PLX_TIME_RECOMPUTE,
  };
  PlxTimeline *tl = small_timeline ();
  PlxReport a, b;
  g_autoptr (PlxCompareLayout) l = NULL;

  make_reports (&a, &b, TRUE, TRUE);
  l = layout_for (&a, &b, tl, 1600, 1100);
  g_assert_cmpuint (l->n_diff, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpint (l->diff_order[i], ==, expected[i]);
  g_assert_cmpstr (l->diff[PLX_TIME_PP_COMM], ==, "");
  g_assert_cmpstr (l->diff[PLX_TIME_TP_COMM], ==, "TP/CP/EP comm: 2.00 s → 750.0 ms (-1.25 s)");
  plx_timeline_free (tl);
}

typedef struct
{
  double x0, y0, x1, y1;
} Box;

static gboolean
boxes_overlap (Box p, Box q)
{
  return p.x0 < q.x1 && q.x0 < p.x1 && p.y0 < q.y1 && q.y0 < p.y1;
}

/* At every width from 680 px (the comparison pane of a 1024 px window) to 2000 px, with the text measured by Pango as drawn, no two
 * difference lines overlap, none runs into the memory panel, and the memory legend
 * stays right of both bars. */
static void
test_no_overlap (void)
{
  PlxTimeline *tl = small_timeline ();
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 10, 10);
  cairo_t *cr = cairo_create (s);
  PlxRenderStyle style;
  PlxReport a, b;
  guint two_columns = 0;

  plx_render_style_init (&style, FALSE, 1.0);
  make_reports (&a, &b, TRUE, FALSE);
  for (double w = 680; w <= 2000; w += 40)
    {
      g_autoptr (PlxCompareLayout) l = layout_for (&a, &b, tl, w, 900);
      Box box[PLX_N_TIME];
      double legend_right = 0.0;

      for (guint i = 0; i < l->n_diff; i++)
        {
          PlxTimeCategory c = l->diff_order[i];
          double tw = plx_render_text_width (cr, &style, l->diff[c], l->font_size, PLX_TEXT_NORMAL);
          box[i].x0 = l->diff_x[c] * w;
          box[i].x1 = box[i].x0 + 18.0 + tw;
          box[i].y0 = l->diff_y[c] * 900;
          box[i].y1 = box[i].y0 + l->font_size + 4.0;
          g_assert_cmpfloat (box[i].x1, <, l->mem_x0 * w);
          for (guint j = 0; j < i; j++)
            g_assert_false (boxes_overlap (box[i], box[j]));
        }
      if (w == 680)
        g_assert_cmpstr (l->diff[PLX_TIME_TP_COMM], ==, "TP/CP/EP comm -1.25 s");
      if (l->diff_y[l->diff_order[0]] == l->diff_y[l->diff_order[1]])
        two_columns++;
      g_assert_cmpfloat (l->mem_legend_x, >, l->memory[1].x1);
      for (guint c = 0; c < PLX_N_MEM; c++)
        legend_right = MAX (legend_right, l->mem_legend_x * w + 18.0
                                              + plx_render_text_width (cr, &style, plx_mem_category_display_name (c),
                                                                       l->font_size, PLX_TEXT_NORMAL));
      legend_right = MAX (legend_right, l->mem_legend_x * w + 18.0
                                            + plx_render_text_width (cr, &style, l->capacity_label, l->font_size,
                                                                     PLX_TEXT_NORMAL));
      g_assert_cmpfloat (legend_right, <=, w);
    }
  /* The wide charts use both columns (the longest line is about 260 px). */
  g_assert_cmpuint (two_columns, >, 0);
  cairo_destroy (cr);
  cairo_surface_destroy (s);
  plx_timeline_free (tl);
}

/* B's bar: 90 GiB against 77 usable. The outline spans from the bar's top to the
 * usable line, the label says so, and each side's capacity line sits at 77 GiB. */
static void
test_memory_over (void)
{
  PlxTimeline *tl = small_timeline ();
  PlxReport a, b;
  g_autoptr (PlxCompareLayout) l = NULL;
  double span;

  make_reports (&a, &b, TRUE, FALSE);
  l = layout_for (&a, &b, tl, 1600, 1100);
  span = l->mem_y1 - l->mem_y0;
  g_assert_cmpfloat (fabs (l->capacity_y_side[1] - (l->mem_y1 - 77.0 * GIB / l->max_bytes * span)), <, 1e-12);
  g_assert_cmpfloat (fabs (l->memory[1].over_y1 - l->capacity_y_side[1]), <, 1e-12);
  g_assert_cmpfloat (fabs (l->memory[1].over_y0 - (l->mem_y1 - 90.0 * GIB / l->max_bytes * span)), <, 1e-9);
  g_assert_cmpfloat (l->memory[0].over_y1, ==, l->memory[0].over_y0);
  g_assert_cmpstr (l->memory_label[1], ==, "90.0 GiB");
  g_assert_cmpstr (l->capacity_label, ==, "usable 77.0 of 80 GiB");
  /* Room above the tallest bar for its two label lines ("does not fit", "90.0 GiB"). */
  g_assert_cmpfloat ((l->memory[1].over_y0 - l->mem_y0) * 1100, >=, 2.0 * (l->font_size + 4.0));
  plx_timeline_free (tl);
}

/* Memory categories never take a timeline kind's colour (the comparison shows both):
 * every pair differs by more than 0.15 in some RGB channel, in both styles. */
static void
test_memory_colours_distinct (void)
{
  for (guint dark = 0; dark < 2; dark++)
    {
      PlxRenderStyle st;
      plx_render_style_init (&st, dark, 1.0);
      for (guint m = 0; m < PLX_N_MEM; m++)
        for (guint k = 0; k < PLX_N_KINDS; k++)
          {
            PlxColor p = st.memory[m], q = st.kind[k];
            double d = MAX (fabs (p.r - q.r), MAX (fabs (p.g - q.g), fabs (p.b - q.b)));
            if (d <= 0.15)
              g_test_message ("memory %u looks like kind %u (dark %u)", m, k, dark);
            g_assert_cmpfloat (d, >, 0.15);
          }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compare-chart/verdict", test_verdict);
  g_test_add_func ("/compare-chart/verdict-unlike", test_verdict_unlike);
  g_test_add_func ("/compare-chart/differences-sorted", test_differences_sorted);
  g_test_add_func ("/compare-chart/no-overlap", test_no_overlap);
  g_test_add_func ("/compare-chart/memory-over", test_memory_over);
  g_test_add_func ("/compare-chart/memory-colours-distinct", test_memory_colours_distinct);
  return g_test_run ();
}
