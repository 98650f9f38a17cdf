/* Benchmark: the full strategy space of GPT-3 175B on 1024 A100 with global batch
 * 1536. Prints configurations evaluated per second per core on one thread (target:
 * 4 million, issue 17; Calculon: 740 in Python) and the wall time of the whole search
 * on two threads (target: under 60 ms). docs/performance.md has the figures. */
#include <stdio.h>

#include "parallax/parallax.h"

#include "bench-util.h"

static const char *scenario =
  "{ \"model\": { \"preset\": \"gpt3-175b\" },"
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 128 },"
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 1536, \"tp\": 8, \"pp\": 8 } }";

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScenario) sc = bench_scenario (scenario);
  PlxSearchOptions o;
  double best_one = G_MAXDOUBLE, best_two = G_MAXDOUBLE, best_uneven = G_MAXDOUBLE;
  guint64 valid = 0, evaluated = 0, fit = 0, valid_uneven = 0;

  for (guint round = 0; round < 5; round++)
    {
      g_autoptr (PlxSearch) one = NULL;
      g_autoptr (PlxSearch) two = NULL;

      /* One thread, and no re-simulation: the rate of the closed form over the space. */
      plx_search_options_init (&o);
      o.n_threads = 1;
      o.top_k = 0;
      one = plx_search_run (sc->model, sc->cluster, sc->strategy, &o, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      best_one = MIN (best_one, one->elapsed_s);
      valid = one->configs_valid;
      evaluated = one->configs_evaluated;
      fit = one->configs_fit;

      /* The whole search as a user runs it: two threads, top 10 re-simulated. */
      plx_search_options_init (&o);
      o.n_threads = 2;
      two = plx_search_run (sc->model, sc->cluster, sc->strategy, &o, NULL, NULL, NULL, &error);
      best_two = MIN (best_two, two->elapsed_s);

      /* One thread with --uneven-stages: every pipeline whose layers divide twice. */
      {
        g_autoptr (PlxSearch) uneven = NULL;
        plx_search_options_init (&o);
        o.n_threads = 1;
        o.top_k = 0;
        o.uneven_stages = TRUE;
        uneven = plx_search_run (sc->model, sc->cluster, sc->strategy, &o, NULL, NULL, NULL, &error);
        g_assert_no_error (error);
        best_uneven = MIN (best_uneven, uneven->elapsed_s);
        valid_uneven = uneven->configs_valid;
      }
    }
  printf ("strategy search, GPT-3 175B on 1024 A100, global batch 1536, full space:\n");
  printf ("  %" G_GUINT64_FORMAT " configurations evaluated, %" G_GUINT64_FORMAT " valid and predicted, %" G_GUINT64_FORMAT
          " fit in memory\n", evaluated, valid, fit);
  printf ("  one thread: %.1f ms, %.2f million predicted configurations per second per core (target >= 4)\n",
          best_one * 1e3, valid / best_one / 1e6);
  printf ("  whole search on 2 threads, top 10 re-simulated: %.1f ms (target < 60 ms)\n", best_two * 1e3);
  printf ("  one thread with uneven stages: %" G_GUINT64_FORMAT " predicted in %.1f ms, %.2f million per second\n",
          valid_uneven, best_uneven * 1e3, valid_uneven / best_uneven / 1e6);
  return 0;
}
