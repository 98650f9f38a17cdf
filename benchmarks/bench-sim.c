/* Benchmark: the event engine end to end (lower, schedule, simulate, timeline and
 * memory trace) for megatron-1t on 3072 A100 (TP 8, PP 64, DP 6, global batch 3072,
 * micro-batch 1), and at PP 128 with 8192 micro-batches. Targets (issue 17): the
 * first with timeline and trace under 20 ms from a cold process and under 8 MB of
 * timeline; the second under 100 ms and 20 MB; >= 10 million events per second.
 * The first round of a process is the cold one: its memory is touched for the first
 * time. Prints its figures; run with meson test --benchmark. */
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

typedef struct
{
  double      first, best, best_sim, best_bare;
  PlxReport   report;
  PlxSimStats stats, stats_bare;
  gsize       timeline_bytes, trace_bytes;
  guint64     micro_batches;
} Figures;

static void
measure (const char *json, guint rounds, Figures *fig)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScenario) sc = bench_scenario (json);

  fig->best = fig->best_sim = fig->best_bare = G_MAXDOUBLE;
  for (guint round = 0; round < rounds; round++)
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
      g_assert_true (plx_sim_run (plan, order, &fig->report, &timeline, &trace, &fig->stats, &error));
      t2 = g_get_monotonic_time ();
      if (round == 0)
        fig->first = (t2 - t0) / 1e6;
      fig->best = MIN (fig->best, (t2 - t0) / 1e6);
      fig->best_sim = MIN (fig->best_sim, (t2 - t1) / 1e6);
      fig->timeline_bytes = plx_timeline_get_size (timeline);
      fig->trace_bytes = plx_memory_trace_get_size (trace);
      fig->micro_batches = plan->micro_batches;
    }

  /* The schedule alone, without recording the timeline or the memory trace. */
  {
    g_autoptr (PlxPlan) plan = plx_plan_lower (sc->model, sc->cluster, sc->strategy, &error);
    g_autoptr (PlxScheduleOrder) order = plx_schedule_order_new (sc->strategy->schedule, sc->strategy->pp,
                                                                 sc->strategy->virtual_stages, plan->micro_batches);
    for (guint round = 0; round < rounds; round++)
      {
        gint64 t0 = g_get_monotonic_time ();
        g_assert_true (plx_sim_run (plan, order, &fig->report, NULL, NULL, &fig->stats_bare, &error));
        fig->best_bare = MIN (fig->best_bare, (g_get_monotonic_time () - t0) / 1e6);
      }
  }
}

int
main (int argc, char **argv)
{
  Figures a = { 0 }, b = { 0 };
  double rss_before = max_rss_mb (), rss_a;

  measure (BENCH_MEGATRON_1T_3072, 5, &a);
  rss_a = max_rss_mb ();
  printf ("event engine, megatron-1t on 3072 A100 (TP 8, PP 64, DP 6, %" G_GUINT64_FORMAT " micro-batches):\n",
          a.micro_batches);
  printf ("  predicted step time    %.3f s, MFU %.1f %%, bubble %.1f %%\n", a.report.step_time_s,
          a.report.mfu * 100.0, a.report.bubble_fraction * 100.0);
  printf ("  end to end, cold       %.1f ms (first run in this process; target < 20 ms)\n", a.first * 1e3);
  printf ("  end to end             %.1f ms (lower + schedule + simulate; best of 5)\n", a.best * 1e3);
  printf ("  simulation alone       %.1f ms\n", a.best_sim * 1e3);
  printf ("  scheduled events       %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " passes, sends, buckets, optimizer)\n",
          a.stats.events, a.stats.passes);
  printf ("  without timeline/trace %.1f ms: %.1f million scheduled events per second\n", a.best_bare * 1e3,
          a.stats_bare.events / a.best_bare / 1e6);
  printf ("  with timeline and trace %" G_GUINT64_FORMAT " timeline events: %.1f million per second (target >= 10)\n",
          a.stats.timeline_events, a.stats.timeline_events / a.best_sim / 1e6);
  printf ("  memory                 timeline %.2f MB (target < 8 MB) + memory trace %.2f MB; process peak %.1f MB "
          "(%.1f MB before)\n",
          a.timeline_bytes / 1e6, a.trace_bytes / 1e6, rss_a, rss_before);

  measure (BENCH_MEGATRON_1T_PP128, 3, &b);
  printf ("event engine, megatron-1t on 3072 A100 (TP 8, PP 128, DP 3, %" G_GUINT64_FORMAT " micro-batches):\n",
          b.micro_batches);
  printf ("  end to end, first run  %.1f ms (target < 100 ms)\n", b.first * 1e3);
  printf ("  end to end             %.1f ms (best of 3); simulation alone %.1f ms; without timeline/trace %.1f ms\n",
          b.best * 1e3, b.best_sim * 1e3, b.best_bare * 1e3);
  printf ("  timeline events        %" G_GUINT64_FORMAT " recorded of %" G_GUINT64_FORMAT " passes\n",
          b.stats.timeline_events, b.stats.passes);
  printf ("  memory                 timeline %.2f MB (target < 20 MB) + memory trace %.2f MB; process peak %.1f MB\n",
          b.timeline_bytes / 1e6, b.trace_bytes / 1e6, max_rss_mb ());
  return 0;
}
