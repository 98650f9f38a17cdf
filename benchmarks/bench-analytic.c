/* Benchmark: the analytical engine's time per configuration for megatron-1t on 3072
 * A100 (TP 8, PP 64, DP 6, global batch 3072, micro-batch 1). Target: at most 0.4 us
 * (Calculon, Python: 1.35 ms). Also the same engine over a round of different
 * strategies of that model and cluster, so that what one strategy's lookups leave in
 * the curves' per-thread memo (plx-curve.c) helps the next no more than in a sweep.
 * Prints its figures; run with meson test --benchmark. */
#include <stdio.h>

#include "parallax/parallax.h"

#include "bench-util.h"

int
main (int argc, char **argv)
{
  g_autoptr (PlxScenario) sc = bench_scenario (BENCH_MEGATRON_1T_3072);
  PlxReport report;
  const guint iterations = 200000;
  double best = G_MAXDOUBLE, sink = 0.0;

  /* Five rounds; the fastest is the machine's undisturbed figure. */
  for (guint round = 0; round < 5; round++)
    {
      gint64 start = g_get_monotonic_time ();
      double per;

      for (guint i = 0; i < iterations; i++)
        {
          plx_analytic_run (sc->model, sc->cluster, sc->strategy, &report, NULL);
          sink += report.step_time_s;
        }
      per = (double) (g_get_monotonic_time () - start) / iterations;
      best = MIN (best, per);
    }

  /* TP 1-8 x PP 16-128 x micro-batch 1, 2 with DP filling the 3072 GPUs: every one
   * the engine accepts (all divide the 128 layers and the batch of 3072). */
  {
    g_autoptr (GPtrArray) varied = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_strategy_free);
    double best_varied = G_MAXDOUBLE;
    guint n_runs = 0;

    for (guint tp = 1; tp <= 8; tp *= 2)
      for (guint pp = 16; pp <= 128; pp *= 2)
        for (guint mbs = 1; mbs <= 2; mbs++)
          {
            PlxStrategy *v = plx_strategy_copy (sc->strategy);

            v->tp = tp;
            v->pp = pp;
            v->dp = 3072 / (tp * pp);
            v->micro_batch_size = mbs;
            if (plx_analytic_run (sc->model, sc->cluster, v, &report, NULL))
              g_ptr_array_add (varied, v);
            else
              plx_strategy_free (v);
          }
    g_assert_cmpuint (varied->len, >, 1);
    for (guint round = 0; round < 5; round++)
      {
        gint64 start = g_get_monotonic_time ();
        double per;

        n_runs = 0;
        while (n_runs < iterations)
          for (guint j = 0; j < varied->len; j++, n_runs++)
            {
              plx_analytic_run (sc->model, sc->cluster, g_ptr_array_index (varied, j), &report, NULL);
              sink += report.step_time_s;
            }
        per = (double) (g_get_monotonic_time () - start) / n_runs;
        best_varied = MIN (best_varied, per);
      }
    printf ("analytical engine, megatron-1t on 3072 A100, %u strategies in turn (TP 1-8, PP 16-128, micro-batch 1-2):\n",
            varied->len);
    printf ("  time per configuration  %.3f us (best of 5 rounds of %u)\n", best_varied, n_runs);
  }

  plx_analytic_run (sc->model, sc->cluster, sc->strategy, &report, NULL);
  printf ("analytical engine, megatron-1t on 3072 A100 (TP 8, PP 64, DP 6):\n");
  printf ("  predicted step time   %.3f s, MFU %.1f %%\n", report.step_time_s, report.mfu * 100.0);
  printf ("  time per configuration  %.3f us (best of 5 rounds of %u; target <= 0.4 us, issue 17)\n", best, iterations);
  printf ("  configurations per second per core  %.0f\n", 1e6 / best);
  return sink > 0.0 ? 0 : 1;
}
