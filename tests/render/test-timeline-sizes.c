/* The timeline chart at many sizes and windows: the layout's shortcuts (passes taken
 * whole, tasks put in their pixel column through the column edges) give the very
 * rows, bars and shares of placing every event by its own divisions, and rendering
 * onto an image in strips gives the pixels of the whole raster. Run under ASan (the
 * build-sanitize tests) and valgrind, it looks for writes outside the layout's and the
 * render's buffers, whose sizes come from the widths, heights and windows swept here.
 * PLX_SIZES_FULL=1 sweeps every width from 1 to 2600 px and adds megatron-1T's
 * timelines (minutes), PLX_SIZES_STEP=n every n-th width; the default is a sample
 * that runs in seconds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plx-timeline-chart.h"

#include "render-util.h"
#include "test-home.h"
#include "base/plx-json.h"
#include "timeline-reference.h"

static gboolean full_sweep;
static guint step_override;   /* PLX_SIZES_STEP: every n-th width */

static PlxTimeline *
simulated (const char *json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data (json, -1, "test", &error);
  g_autoptr (PlxScenario) sc = NULL;
  PlxTimeline *tl = NULL;
  PlxReport report;

  g_assert_no_error (error);
  sc = plx_scenario_new_from_json (node, ".", "test", &error);
  g_assert_no_error (error);
  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &report, NULL, &tl, NULL, &error));
  g_assert_no_error (error);
  return tl;
}

/* Where two layouts differ, or NULL: rows, bars and shares, field by field. */
static const char *
layout_difference (const PlxTimelineLayout *a, const PlxTimelineLayout *b)
{
  if (a->rows->len != b->rows->len || a->bars->len != b->bars->len || a->shares->len != b->shares->len)
    return "counts of rows, bars or shares";
  for (guint i = 0; i < a->rows->len; i++)
    {
      const PlxChartRow *x = &g_array_index (a->rows, PlxChartRow, i), *y = &g_array_index (b->rows, PlxChartRow, i);
      if (x->y0 != y->y0 || x->y1 != y->y1 || x->busy_x1 != y->busy_x1 || x->rank != y->rank ||
          x->stream != y->stream || strcmp (x->label, y->label) != 0)
        return "a row";
    }
  for (guint i = 0; i < a->bars->len; i++)
    {
      const PlxChartBar *x = &g_array_index (a->bars, PlxChartBar, i), *y = &g_array_index (b->bars, PlxChartBar, i);
      /* The texts are interned in each layout's own chunk. */
      if (x->x0 != y->x0 || x->x1 != y->x1 || x->y0 != y->y0 || x->y1 != y->y1 || x->kind != y->kind ||
          x->show_label != y->show_label || x->aggregate != y->aggregate || x->micro_batch != y->micro_batch ||
          x->event != y->event || x->n_events != y->n_events || g_strcmp0 (x->text, y->text) != 0)
        return "a bar";
    }
  for (guint i = 0; i < a->shares->len; i++)
    {
      const PlxChartShare *x = &g_array_index (a->shares, PlxChartShare, i);
      const PlxChartShare *y = &g_array_index (b->shares, PlxChartShare, i);
      if (x->y0 != y->y0 || x->column != y->column || x->event != y->event || x->n_events != y->n_events ||
          x->row != y->row || x->kind != y->kind)
        return "a share";
    }
  return NULL;
}

/* The chart drawn onto an image: through strips by `l`, through one raster by `ref`
 * (the same layout made the plain way, timeline-reference.h): the same pixels. */
static void
assert_render (const PlxTimelineLayout *l, const PlxTimelineLayout *ref, int w, int h, double scale)
{
  PlxRenderStyle style;
  cairo_surface_t *s[2];
  int pw = (int) ceil (w * scale), ph = (int) ceil (h * scale);

  plx_render_style_init (&style, FALSE, 1.0);
  for (guint i = 0; i < 2; i++)
    {
      cairo_t *cr;
      s[i] = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, pw, ph);
      cairo_surface_set_device_scale (s[i], scale, scale);
      cr = cairo_create (s[i]);
      plx_timeline_chart_render (i == 0 ? l : ref, &style, cr, w, h);
      cairo_destroy (cr);
      cairo_surface_flush (s[i]);
      g_assert_cmpint (cairo_surface_status (s[i]), ==, CAIRO_STATUS_SUCCESS);
    }
  for (int y = 0; y < ph; y++)
    g_assert_cmpint (memcmp (cairo_image_surface_get_data (s[0]) + (gsize) y * cairo_image_surface_get_stride (s[0]),
                             cairo_image_surface_get_data (s[1]) + (gsize) y * cairo_image_surface_get_stride (s[1]),
                             (gsize) pw * 4), ==, 0);
  cairo_surface_destroy (s[0]);
  cairo_surface_destroy (s[1]);
}

/* Lays `tl` out at w x h over t0..t1 both ways, compares, and sometimes renders. */
static void
check (const PlxTimeline *tl, double w, double h, double t0, double t1, gboolean render)
{
  PlxTimelineOptions o;
  g_autoptr (PlxTimelineLayout) fast = NULL;
  g_autoptr (PlxTimelineLayout) slow = NULL;

  plx_timeline_options_init (&o, w, h);
  o.t0_s = t0;
  o.t1_s = t1;
  fast = plx_timeline_layout_new (tl, &o);
  slow = timeline_reference_layout (tl, &o);
  if (layout_difference (fast, slow) != NULL)
    g_error ("%s differs at %.17g x %.17g px, %.17g..%.17g s", layout_difference (fast, slow), w, h, t0, t1);
  if (render)
    {
      assert_render (fast, slow, (int) w, (int) h, 1.0);
      assert_render (fast, slow, (int) w, (int) h, 2.0);
    }
}

/* Windows as fractions of the step: the whole step, zooms, ones partly or wholly
 * outside it, and ones narrower than a time's resolution allows columns to be. */
static void
sweep (const PlxTimeline *tl, guint width_step, const double *heights, guint n_heights)
{
  const double s = MAX (tl->step_time_s, 1e-9);
  const double windows[][2] = {
    { 0.0, 0.0 }, { 0.0, 0.1 }, { 0.3, 0.31 }, { 0.5, 0.5007 }, { -0.2, 0.4 }, { 0.9, 1.5 },
    { 1.2, 2.0 }, { -1.0, -0.5 }, { 0.123456, 0.123457 },
  };
  guint n = 0;

  for (guint w = 1; w <= 2600; w += width_step)
    {
      double hgt = heights[n % n_heights];
      const double *win = windows[n % G_N_ELEMENTS (windows)];
      /* The costly renders at a sample of the sizes. */
      gboolean render = n % 5 == 0 && w * hgt <= 4e6;

      check (tl, w, hgt, win[0] * s, win[1] * s, render);
      n++;
    }
  /* Every height and window at a few widths. */
  for (guint i = 0; i < n_heights; i++)
    for (guint j = 0; j < G_N_ELEMENTS (windows); j++)
      {
        const guint widths[] = { 1, 51, 333, 1920 };
        for (guint k = 0; k < G_N_ELEMENTS (widths); k++)
          check (tl, widths[k], heights[i], windows[j][0] * s, windows[j][1] * s,
                 widths[k] * heights[i] <= 4e6 && (i + j + k) % 4 == 0);
      }
  /* Absurd zooms: a window of a few ulps, where times are coarser than columns. */
  {
    double a = s / 3.0, b = a;
    for (guint i = 0; i < 5; i++)
      b = nextafter (b, INFINITY);
    check (tl, 1920, 1080, a, b, TRUE);
    check (tl, 700, 300, 1e6, 1e6 + 1e-9, TRUE);
  }
}

static const double heights[] = { 1, 17, 50, 90, 300, 1080, 2000, 5000, 31 };

static void
test_simulated (gconstpointer data)
{
  g_autoptr (PlxTimeline) tl = simulated (data);

  /* Every width of the small ones, every 11th of the large. */
  sweep (tl, step_override ? step_override : !full_sweep ? 151 : plx_timeline_n_events (tl) > 100000 ? 11 : 1,
         heights, G_N_ELEMENTS (heights));
}

static void
test_hand_made (void)
{
  /* No events; one rank with none; events outside the step, of no length, backwards;
   * many ranks with random events (every n-th stage shown). */
  g_autoptr (PlxTimeline) empty = timeline_new (0, 0.0);
  g_autoptr (PlxTimeline) one = timeline_new (1, 5.0);
  g_autoptr (PlxTimeline) odd = timeline_new (3, 10.0);
  g_autoptr (PlxTimeline) many = timeline_new (5000, 100.0);
  g_autoptr (GRand) rand = g_rand_new_with_seed (17);
  guint step = step_override ? step_override : full_sweep ? 1 : 53;

  add_event (odd, 0, PLX_STREAM_COMPUTE, PLX_KIND_FORWARD, 0, -5.0, -1.0);
  add_event (odd, 0, PLX_STREAM_COMPUTE, PLX_KIND_FORWARD, 0, 3.0, 3.0);
  add_event (odd, 1, PLX_STREAM_TP, PLX_KIND_TP_COMM, 0, 4.0, 3.5);
  add_event (odd, 2, PLX_STREAM_DP, PLX_KIND_DP_COMM, 0, 9.0, 40.0);
  add_event (odd, 7, PLX_STREAM_DP, PLX_KIND_DP_COMM, 0, 1.0, 2.0);
  for (guint i = 0; i < 20000; i++)
    {
      double a = g_rand_double_range (rand, -5.0, 105.0);
      add_event (many, g_rand_int_range (rand, 0, 5000), g_rand_int_range (rand, 0, PLX_N_STREAMS),
                 g_rand_int_range (rand, 0, PLX_N_KINDS), i, a, a + g_rand_double_range (rand, 0.0, 0.5));
    }
  sweep (empty, step, heights, G_N_ELEMENTS (heights));
  sweep (one, step, heights, G_N_ELEMENTS (heights));
  sweep (odd, step, heights, G_N_ELEMENTS (heights));
  sweep (many, step * 3, heights, G_N_ELEMENTS (heights));
}

/* A window starting before the step: columns near 0 start within t0's rounding of
 * the time their own division says, where times are far finer than that rounding.
 * At some widths (-0.1..0.2 s at 329 px is one) the column holding 0 starts a hair
 * after it by t0 + c * col_s, and the events starting at 0 must still go to it, as
 * their own divisions put them. */
static void
test_before_zero (void)
{
  g_autoptr (PlxTimeline) tl = timeline_new (2, 10.0);

  for (guint r = 0; r < 2; r++)
    for (guint i = 0; i < 50; i++)
      add_event (tl, r, PLX_STREAM_COMPUTE, PLX_KIND_FORWARD, i, i * 1e-3, (i + 1) * 1e-3);
  for (guint w = 200; w <= 1000; w++)
    {
      check (tl, w, 200, -0.1, 0.2, FALSE);
      check (tl, w, 200, -0.7, 0.7, FALSE);
      check (tl, w, 200, -3.0, 3.0, FALSE);
    }
}

#define SCENARIO(model, nodes, strategy) \
  "{ \"model\": { \"preset\": \"" model "\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": " \
  #nodes " }, \"strategy\": { \"seq_length\": 2048, " strategy " } }"

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  full_sweep = g_getenv ("PLX_SIZES_FULL") != NULL;
  step_override = g_getenv ("PLX_SIZES_STEP") != NULL ? (guint) atoi (g_getenv ("PLX_SIZES_STEP")) : 0;
  g_test_add_data_func ("/render/timeline-sizes/1f1b",
                        SCENARIO ("gpt3-175b", 8, "\"global_batch_size\": 32, \"tp\": 8, \"pp\": 8"),
                        test_simulated);
  g_test_add_data_func ("/render/timeline-sizes/interleaved",
                        SCENARIO ("gpt3-175b", 8, "\"global_batch_size\": 64, \"tp\": 8, \"pp\": 8, "
                                  "\"schedule\": \"interleaved-1f1b\", \"virtual_stages\": 3, \"recompute\": \"selective\""),
                        test_simulated);
  g_test_add_data_func ("/render/timeline-sizes/zero-bubble",
                        SCENARIO ("llama-2-7b", 1, "\"global_batch_size\": 16, \"tp\": 2, \"pp\": 4, "
                                  "\"schedule\": \"zero-bubble-h1\""),
                        test_simulated);
  g_test_add_data_func ("/render/timeline-sizes/pp1-zero3",
                        SCENARIO ("llama-2-7b", 2, "\"global_batch_size\": 64, \"tp\": 1, \"pp\": 1, \"zero_stage\": 3"),
                        test_simulated);
  g_test_add_data_func ("/render/timeline-sizes/gpipe",
                        SCENARIO ("megatron-22b", 1, "\"global_batch_size\": 64, \"tp\": 4, \"pp\": 2, \"schedule\": \"gpipe\""),
                        test_simulated);
  if (full_sweep)
    {
      /* 661,195 events; and 2.1 million passes, past PLX_TIMELINE_MAX_EVENTS (dropped). */
      g_test_add_data_func ("/render/timeline-sizes/megatron-1t",
                            SCENARIO ("megatron-1t", 384, "\"global_batch_size\": 3072, \"micro_batch_size\": 1, "
                                      "\"tp\": 8, \"pp\": 64, \"dp\": 6, \"sequence_parallel\": true, "
                                      "\"recompute\": \"selective\""),
                            test_simulated);
      g_test_add_data_func ("/render/timeline-sizes/dropped",
                            SCENARIO ("megatron-1t", 384, "\"global_batch_size\": 24576, \"micro_batch_size\": 1, "
                                      "\"tp\": 8, \"pp\": 128, \"dp\": 3, \"sequence_parallel\": true, "
                                      "\"recompute\": \"selective\""),
                            test_simulated);
    }
  g_test_add_func ("/render/timeline-sizes/hand-made", test_hand_made);
  g_test_add_func ("/render/timeline-sizes/before-zero", test_before_zero);
  return g_test_run ();
}
