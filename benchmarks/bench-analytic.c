/* Benchmark: the analytical engine's time per configuration for megatron-1t on 3072
 * A100 (TP 8, PP 64, DP 6, global batch 3072, micro-batch 1). Target: under 2 us
 * (Calculon, Python: 1.35 ms). Prints its figures; run with meson test --benchmark. */
#include <stdio.h>

#include "parallax/parallax.h"

static const char *scenario =
  "{ \"model\": { \"preset\": \"megatron-1t\" },"
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 384 },"
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 3072, \"micro_batch_size\": 1,"
  "                \"tp\": 8, \"pp\": 64, \"dp\": 6, \"sequence_parallel\": true,"
  "                \"recompute\": \"selective\", \"schedule\": \"1f1b\" } }";

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data (scenario, -1, "benchmark", &error);
  g_autoptr (PlxScenario) sc = NULL;
  PlxReport report;
  const guint iterations = 200000;
  double best = G_MAXDOUBLE, sink = 0.0;

  g_assert_no_error (error);
  sc = plx_scenario_new_from_json (node, ".", "benchmark", &error);
  g_assert_no_error (error);

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

  printf ("analytical engine, megatron-1t on 3072 A100 (TP 8, PP 64, DP 6):\n");
  printf ("  predicted step time   %.3f s, MFU %.1f %%\n", report.step_time_s, report.mfu * 100.0);
  printf ("  time per configuration  %.3f us (best of 5 rounds of %u; target < 2 us)\n", best, iterations);
  printf ("  configurations per second per core  %.0f\n", 1e6 / best);
  return sink > 0.0 ? 0 : 1;
}
