/* Benchmark: laying out and rendering the megatron-1t timeline (3072 A100, 660,000
 * events) to a 1920x1080 image. Target (issue 17): under 15 ms from a cold process.
 * The first round of a process is the cold one: the layout's memory is touched for
 * the first time, and on a machine where a page's first touch is slow that, not the
 * arithmetic, is the cost; the page faults of each part are printed for that reason.
 * Prints its figures; run with meson test --benchmark. */
#include <stdio.h>
#include <sys/resource.h>

#include "parallax/parallax.h"

#include "plx-timeline-chart.h"

#include "bench-util.h"

#define ROUNDS 7

static glong
minor_faults (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScenario) sc = bench_scenario (BENCH_MEGATRON_1T_3072);
  g_autoptr (PlxTimeline) tl = NULL;
  PlxReport report;
  PlxRenderStyle style;
  double total[ROUNDS], layout[ROUNDS], paint[ROUNDS], chart[ROUNDS], sorted[ROUNDS];
  glong layout_faults[ROUNDS], render_faults[ROUNDS];
  guint bars = 0, shares = 0;

  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &report, NULL, &tl, NULL, &error));
  plx_render_style_init (&style, FALSE, 1.0);

  for (guint round = 0; round < ROUNDS; round++)
    {
      cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1920, 1080);
      cairo_t *cr = cairo_create (s);
      PlxTimelineOptions o;
      PlxTimelineLayout *l;
      glong f0 = minor_faults (), f1;
      gint64 t0 = g_get_monotonic_time (), t1, t2;

      plx_timeline_options_init (&o, 1920, 1080);
      o.title = "megatron-1t on 3072 A100";
      l = plx_timeline_layout_new (tl, &o);
      t1 = g_get_monotonic_time ();
      f1 = minor_faults ();
      cairo_set_source_rgb (cr, 1, 1, 1);
      cairo_paint (cr);
      t2 = g_get_monotonic_time ();
      plx_timeline_chart_render (l, &style, cr, 1920, 1080);
      cairo_surface_flush (s);
      total[round] = (g_get_monotonic_time () - t0) / 1e6;
      layout[round] = (t1 - t0) / 1e6;
      paint[round] = (t2 - t1) / 1e6;
      chart[round] = total[round] - layout[round] - paint[round];
      layout_faults[round] = f1 - f0;
      render_faults[round] = minor_faults () - f1;
      bars = l->bars->len;
      shares = l->shares->len;
      plx_timeline_layout_free (l);
      cairo_destroy (cr);
      cairo_surface_destroy (s);
    }
  memcpy (sorted, total, sizeof sorted);
  qsort (sorted, ROUNDS, sizeof sorted[0], compare_doubles);
  printf ("timeline chart, megatron-1t on 3072 A100 (%" G_GUINT64_FORMAT " events), 1920x1080 image:\n",
          plx_timeline_n_events (tl));
  printf ("  layout + render   %.1f ms cold (first round; target < 15 ms), best %.1f ms, median %.1f ms of %d\n",
          total[0] * 1e3, sorted[0] * 1e3, sorted[ROUNDS / 2] * 1e3, ROUNDS);
  printf ("  layout alone      %.1f ms cold, %u bars and %u column shares drawn\n", layout[0] * 1e3, bars, shares);
  /* Where the cold round goes: the output image's first touch (its white paint) and,
   * in the chart's drawing, fontconfig's first initialisation are paid once a process. */
  printf ("  cold / last round: layout %.1f / %.1f ms, white paint of the fresh image %.1f / %.1f ms,\n"
          "                     drawing %.1f / %.1f ms (the cold one initialises fontconfig)\n",
          layout[0] * 1e3, layout[ROUNDS - 1] * 1e3, paint[0] * 1e3, paint[ROUNDS - 1] * 1e3,
          chart[0] * 1e3, chart[ROUNDS - 1] * 1e3);
  printf ("  page faults       layout %ld, render %ld cold; layout %ld, render %ld in the last round\n",
          layout_faults[0], render_faults[0], layout_faults[ROUNDS - 1], render_faults[ROUNDS - 1]);
  return 0;
}
