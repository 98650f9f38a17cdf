/* Benchmark: the event engine end to end (lower, schedule, simulate, timeline and
 * memory trace) for megatron-1t on 3072 A100 (TP 8, PP 64, DP 6, global batch 3072,
 * micro-batch 1). Targets: under 50 ms on one core, >= 10 million events per second,
 * under 200 MB. Prints its figures; run with meson test --benchmark. */
#include <stdio.h>
#include <sys/resource.h>

#include "parallax/parallax.h"

#include "bench-util.h"

static double
max_rss_mb (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScenario) sc = bench_scenario (BENCH_MEGATRON_1T_3072);
  double best = G_MAXDOUBLE, best_sim = G_MAXDOUBLE, best_bare = G_MAXDOUBLE, rss_before;
  PlxSimStats stats_bare = { 0 };
  PlxReport report;
  PlxSimStats stats = { 0 };
  gsize timeline_bytes = 0, trace_bytes = 0;

  rss_before = max_rss_mb ();

  for (guint round = 0; round < 5; round++)
    {
      g_autoptr (PlxPlan) plan = NULL;
      g_autoptr (PlxScheduleOrder) order = NULL;
      g_autoptr (PlxTimeline) timeline = NULL;
      g_autoptr (PlxMemoryTrace) trace = NULL;
      gint64 t0 = g_get_monotonic_time (), t1, t2;

      plan = plx_plan_lower (sc->model, sc->cluster, sc->strategy, &error);
      order = plx_schedule_order_new (sc->strategy->schedule, sc->strategy->pp, sc->strategy->virtual_stages,
                                      plan->micro_batches);
      t1 = g_get_monotonic_time ();
      g_assert_true (plx_sim_run (plan, order, &report, &timeline, &trace, &stats, &error));
      t2 = g_get_monotonic_time ();
      best = MIN (best, (t2 - t0) / 1e6);
      best_sim = MIN (best_sim, (t2 - t1) / 1e6);
      timeline_bytes = timeline->events->len * sizeof (PlxTimelineEvent);
      trace_bytes = 0;
      for (guint s = 0; s < trace->n_ranks; s++)
        trace_bytes += trace->samples[s]->len * sizeof (PlxMemorySample);
    }

  /* The schedule alone, without recording the timeline or the memory trace. */
  {
    g_autoptr (PlxPlan) plan = plx_plan_lower (sc->model, sc->cluster, sc->strategy, &error);
    g_autoptr (PlxScheduleOrder) order = plx_schedule_order_new (sc->strategy->schedule, sc->strategy->pp,
                                                                 sc->strategy->virtual_stages, plan->micro_batches);
    for (guint round = 0; round < 5; round++)
      {
        gint64 t0 = g_get_monotonic_time ();
        g_assert_true (plx_sim_run (plan, order, &report, NULL, NULL, &stats_bare, &error));
        best_bare = MIN (best_bare, (g_get_monotonic_time () - t0) / 1e6);
      }
  }

  printf ("event engine, megatron-1t on 3072 A100 (TP 8, PP 64, DP 6, 512 micro-batches):\n");
  printf ("  predicted step time    %.3f s, MFU %.1f %%, bubble %.1f %%\n", report.step_time_s,
          report.mfu * 100.0, report.bubble_fraction * 100.0);
  printf ("  end to end             %.1f ms (lower + schedule + simulate; best of 5; target < 50 ms)\n", best * 1e3);
  printf ("  simulation alone       %.1f ms\n", best_sim * 1e3);
  printf ("  scheduled events       %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " passes, sends, buckets, optimizer)\n",
          stats.events, stats.passes);
  printf ("  without timeline/trace %.1f ms: %.1f million scheduled events per second\n", best_bare * 1e3,
          stats_bare.events / best_bare / 1e6);
  printf ("  with timeline and trace %" G_GUINT64_FORMAT " timeline events: %.1f million per second (target >= 10)\n",
          stats.timeline_events, stats.timeline_events / best_sim / 1e6);
  printf ("  memory                 timeline %.1f MB + memory trace %.1f MB; process peak %.1f MB (%.1f MB before) (target < 200 MB)\n",
          timeline_bytes / 1e6, trace_bytes / 1e6, max_rss_mb (), rss_before);
  return 0;
}
