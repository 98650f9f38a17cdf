/* Benchmark: deep pipelines (issue 34). A zero-bubble-H1 pipeline of 20,000, 40,000
 * and 100,000 stages, one tiny layer each, 8 micro-batches, through the event engine
 * with its timeline and memory trace (what `parallax-cli simulate` runs), against the
 * closed form; and the IR engine on 40,000 stages of 1F1B with one micro-batch. The
 * work must grow linearly with the depth: 100,000 stages took 327 s and 640 MB in the
 * event engine before, 40,000 a minute and 900 MB in the IR engine. Prints the time
 * and the process's peak memory after each size (sizes go up, so the peak is that
 * size's); run with meson test --benchmark. */
#include <stdio.h>
#include <sys/resource.h>

#include "parallax/parallax.h"

#include "bench-util.h"
#include "ir/plx-ir-lower.h"

static double
max_rss_mb (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;
}

static char *
deep_json (guint stages, guint micro_batches, const char *schedule)
{
  return g_strdup_printf (
    "{ \"model\": { \"model_type\": \"gpt2\", \"n_layer\": %u, \"n_embd\": 64, \"n_head\": 1,"
    "             \"vocab_size\": 64, \"n_positions\": 64 },"
    "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": %u },"
    "  \"strategy\": { \"seq_length\": 64, \"global_batch_size\": %u, \"micro_batch_size\": 1,"
    "                \"pp\": %u, \"dp\": 1, \"schedule\": \"%s\" } }",
    stages, stages / 8, micro_batches, stages, schedule);
}

int
main (void)
{
  static const guint depths[] = { 20000, 40000, 100000 };

  printf ("zero-bubble-H1, 8 micro-batches, one layer a stage: event engine with timeline and memory trace\n");
  printf ("%8s %12s %14s %14s %12s %12s\n", "stages", "event (s)", "closed form (s)", "step (s)", "analytic (s)",
          "peak RSS (MB)");
  for (guint i = 0; i < G_N_ELEMENTS (depths); i++)
    {
      g_autofree char *json = deep_json (depths[i], 8, "zero-bubble-h1");
      g_autoptr (PlxScenario) sc = bench_scenario (json);
      g_autoptr (PlxTimeline) timeline = NULL;
      g_autoptr (PlxMemoryTrace) trace = NULL;
      g_autoptr (GError) error = NULL;
      PlxReport event, closed;
      gint64 t0 = g_get_monotonic_time (), t1, t2;

      g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &event, NULL, &timeline, &trace,
                                           &error));
      t1 = g_get_monotonic_time ();
      g_assert_true (plx_analytic_run (sc->model, sc->cluster, sc->strategy, &closed, &error));
      t2 = g_get_monotonic_time ();
      printf ("%8u %12.3f %14.4f %14.3f %12.3f %12.0f\n", depths[i], (t1 - t0) / 1e6, (t2 - t1) / 1e6,
              event.step_time_s, closed.step_time_s, max_rss_mb ());
    }

  {
    g_autofree char *json = deep_json (40000, 1, "1f1b");
    g_autoptr (PlxScenario) sc = bench_scenario (json);
    g_autoptr (GError) error = NULL;
    PlxReport ir, event;
    gint64 t0 = g_get_monotonic_time (), t1;

    g_assert_true (plx_ir_run_scenario (sc->model, sc->cluster, sc->strategy, &ir, NULL, NULL, &error));
    t1 = g_get_monotonic_time ();
    g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &event, NULL, NULL, NULL, &error));
    printf ("\nIR engine, 40000 stages of 1F1B, 1 micro-batch: %.3f s, step %.3f s (event engine %.3f s), "
            "peak RSS %.0f MB\n", (t1 - t0) / 1e6, ir.step_time_s, event.step_time_s, max_rss_mb ());
  }
  return 0;
}
