/* Benchmark: one closed-form evaluation of the case benchmarks/compare-peers gives
 * Calculon and llm-analysis as well - GPT-3 175B on 1024 A100-SXM4-80GB (128 DGX
 * nodes), TP 8, PP 8, DP 16, global batch 1536, micro-batch 1, 1F1B, sequence
 * parallel, selective recompute, ZeRO-1, bf16. Times it as the peers are timed: the
 * process's CPU time (Python's time.process_time) over many evaluations of objects
 * already in memory, best of five rounds; model and cluster are built once, as the
 * peers' model and system objects are. Prints the predicted step time so the tools'
 * answers can be set side by side. */
#include <stdio.h>
#include <time.h>

#include "parallax/parallax.h"

#include "bench-util.h"

static const char *peer_case =
  "{ \"model\": { \"preset\": \"gpt3-175b\" },"
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 128 },"
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 1536, \"micro_batch_size\": 1,"
  "                \"tp\": 8, \"pp\": 8, \"dp\": 16, \"sequence_parallel\": true,"
  "                \"recompute\": \"selective\", \"schedule\": \"1f1b\", \"zero_stage\": 1,"
  "                \"dtype\": \"bf16\" } }";

static double
process_cpu_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScenario) sc = bench_scenario (peer_case);
  PlxReport report;
  const guint iterations = 100000;
  double best = G_MAXDOUBLE, sink = 0.0;

  if (!plx_analytic_run (sc->model, sc->cluster, sc->strategy, &report, &error))
    g_error ("the peer case does not evaluate: %s", error->message);

  for (guint round = 0; round < 5; round++)
    {
      double start = process_cpu_seconds ();

      for (guint i = 0; i < iterations; i++)
        {
          plx_analytic_run (sc->model, sc->cluster, sc->strategy, &report, NULL);
          sink += report.step_time_s;
        }
      best = MIN (best, (process_cpu_seconds () - start) / iterations);
    }

  printf ("analytical engine, GPT-3 175B on 1024 A100-80GB (TP 8, PP 8, DP 16, batch 1536, micro-batch 1):\n");
  printf ("  predicted step time  %.4f s, MFU %.1f %%, peak memory %.1f GiB\n", report.step_time_s,
          report.mfu * 100.0, (double) report.peak_memory_bytes / (1024.0 * 1024.0 * 1024.0));
  printf ("  CPU time per evaluation  %.3f us (process CPU time, best of 5 rounds of %u)\n", best * 1e6,
          iterations);
  return sink > 0.0 ? 0 : 1;
}
