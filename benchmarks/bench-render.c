/* Benchmark: laying out and rendering the megatron-1t timeline (3072 A100, 670,000
 * events) to a 1920x1080 image. Target: under 30 ms. */
#include <stdio.h>

#include "parallax/parallax.h"

#include "plx-timeline-chart.h"

#include "bench-util.h"

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScenario) sc = bench_scenario (BENCH_MEGATRON_1T_3072);
  g_autoptr (PlxTimeline) tl = NULL;
  PlxReport report;
  PlxRenderStyle style;
  double best = G_MAXDOUBLE, best_layout = G_MAXDOUBLE;
  guint bars = 0;

  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &report, NULL, &tl, NULL, &error));
  plx_render_style_init (&style, FALSE, 1.0);

  for (guint round = 0; round < 7; round++)
    {
      cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1920, 1080);
      cairo_t *cr = cairo_create (s);
      PlxTimelineOptions o;
      PlxTimelineLayout *l;
      gint64 t0 = g_get_monotonic_time (), t1;

      plx_timeline_options_init (&o, 1920, 1080);
      o.title = "megatron-1t on 3072 A100";
      l = plx_timeline_layout_new (tl, &o);
      t1 = g_get_monotonic_time ();
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_paint (cr);
      plx_timeline_chart_render (l, &style, cr, 1920, 1080);
      cairo_surface_flush (s);
      best = MIN (best, (g_get_monotonic_time () - t0) / 1e6);
      best_layout = MIN (best_layout, (t1 - t0) / 1e6);
      bars = l->bars->len;
      plx_timeline_layout_free (l);
      cairo_destroy (cr);
      cairo_surface_destroy (s);
    }
  printf ("timeline chart, megatron-1t on 3072 A100 (%" G_GUINT64_FORMAT " events), 1920x1080 image:\n",
          plx_timeline_n_events (tl));
  printf ("  layout + render   %.1f ms (best of 7; target < 30 ms)\n", best * 1e3);
  printf ("  layout alone      %.1f ms, %u bars drawn\n", best_layout * 1e3, bars);
  return 0;
}
