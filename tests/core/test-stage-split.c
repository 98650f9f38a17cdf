/* Transformer scenarios split into pipeline stages by "layers_per_stage": "auto"
 * (docs/layer-split.md, docs/partition.md "Transformer scenarios"): the split both
 * engines use, against the uniform split a framework makes without costs, on
 * published scenarios; and the split itself against brute force. */
#include <math.h>

#include "parallax/parallax.h"

#include "test-util.h"
#include "base/plx-json.h"
#include "cost/plx-layer-split.h"

static PlxScenario *
scenario_from_file (const char *path, gboolean validation_case)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root = plx_json_parse_file (path, &error);
  g_autofree char *dir = g_path_get_dirname (path);
  JsonNode *node = root;
  PlxScenario *sc;

  g_assert_no_error (error);
  if (validation_case)
    node = json_array_get_element (json_object_get_array_member (json_node_get_object (root), "cases"), 0);
  if (validation_case)
    node = json_object_get_member (json_node_get_object (node), "scenario");
  sc = plx_scenario_new_from_json (node, dir, path, &error);
  g_assert_no_error (error);
  return sc;
}

static PlxStrategy *
with_auto (const PlxStrategy *base)
{
  PlxStrategy *s = plx_strategy_copy (base);

  g_clear_pointer (&s->layers_per_stage, g_free);
  s->n_layers_per_stage = 0;
  s->layers_per_stage_auto = TRUE;
  return s;
}

static PlxStrategy *
with_counts (const PlxStrategy *base, const guint *counts, guint k)
{
  PlxStrategy *s = plx_strategy_copy (base);

  s->layers_per_stage_auto = FALSE;
  g_free (s->layers_per_stage);
  s->layers_per_stage = g_memdup2 (counts, sizeof (guint) * k);
  s->n_layers_per_stage = k;
  return s;
}

/* Step time by each engine. */
static void
steps (const PlxScenario *sc, const PlxStrategy *s, double *analytical, double *event)
{
  g_autoptr (GError) error = NULL;
  PlxReport r;

  g_assert_true (plx_analytic_run (sc->model, sc->cluster, s, &r, &error));
  g_assert_no_error (error);
  *analytical = r.step_time_s;
  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, s, &r, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  *event = r.step_time_s;
}

static guint *
split_of (const PlxScenario *sc, const PlxStrategy *s)
{
  g_autoptr (GError) error = NULL;
  guint *split = plx_analytic_layer_split (sc->model, sc->cluster, s, &error);

  g_assert_no_error (error);
  return split;
}

/* BLOOM-176B (tests/data/bloom176b.json: TP 4, PP 12, full recompute): 70 layers over
 * 12 stages. Per token, a layer's forward is 24 h^2 + 4 s h = 24 * 14336^2 + 4 * 2048 *
 * 14336 = 5.05 GFLOP (Narayanan et al. 2021 §5.1 without the logits); the LM head's
 * is 2 h V = 2 * 14336 * 250880 = 7.19 GFLOP. Under full recomputation a layer runs
 * its forward twice and a backward of twice the forward (4 units), the head three
 * units (it is not recomputed): the head is 3 * 7.19 / (4 * 5.05) = 1.07 layers of
 * time, the embedding (a lookup) a small fraction of one.
 * The uniform split (DeepSpeed's partition_uniform: 70 = 12 * 5 + 10, the first ten
 * stages 6) puts 6 layers and the embedding on stage 0 and 5 layers and the head
 * (6.07 layers) on stage 11, so its slowest stage is stage 0 at 6 layers + the
 * embedding. Since 70 > 12 * 5 + 1.07 - 1, some middle stage must hold 6 layers; the
 * split "auto" gives the last stage 5 (5 + 1.07 is within one send of a middle 6 + two
 * sends: the send is b s h / t = 2 * 2048 * 14336 * 2 / 4 = 29 MB at 6.25 GB/s, 4.7
 * ms, plus its all-gather, against a layer's ~110 ms), no stage more than 6, and
 * takes stage 0's embedding out of the pacing: a shorter step in both engines. */
static void
test_bloom_auto_beats_uniform (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "bloom176b.json", NULL);
  g_autoptr (PlxScenario) sc = scenario_from_file (path, TRUE);
  g_autoptr (PlxStrategy) proposed = with_auto (sc->strategy);
  guint uniform_counts[12];
  g_autoptr (PlxStrategy) uniform = NULL;
  g_autofree guint *split = NULL;
  double a_auto, e_auto, a_uni, e_uni;
  guint sum = 0, most = 0;

  g_assert_cmpstr (plx_layer_split_uniform (70, 12, uniform_counts), ==, "uniform");
  g_assert_cmpuint (uniform_counts[0], ==, 6);
  g_assert_cmpuint (uniform_counts[9], ==, 6);
  g_assert_cmpuint (uniform_counts[10], ==, 5);
  g_assert_cmpuint (uniform_counts[11], ==, 5);
  uniform = with_counts (sc->strategy, uniform_counts, 12);

  split = split_of (sc, proposed);
  for (guint k = 0; k < 12; k++)
    {
      sum += split[k];
      most = MAX (most, split[k]);
    }
  g_assert_cmpuint (sum, ==, 70);
  g_assert_cmpuint (most, ==, 6);
  g_assert_cmpuint (split[11], ==, 5);
  g_assert_cmpuint (split[0], <=, 5);

  steps (sc, proposed, &a_auto, &e_auto);
  steps (sc, uniform, &a_uni, &e_uni);
  g_test_message ("BLOOM: auto %.3f / %.3f s, uniform %.3f / %.3f s (analytical / event)", a_auto, e_auto, a_uni,
                  e_uni);
  g_assert_cmpfloat (a_auto, <, a_uni);
  g_assert_cmpfloat (e_auto, <, e_uni);
}

/* Megatron 1T (examples/megatron-1t-3072.json): 128 layers over 64 stages, 2 each.
 * The LM head is 2 h V / (24 h^2 + 4 s h) = 2 * 25600 * 51200 / (24 * 25600^2 + 4 *
 * 2048 * 25600) = 0.16 of a layer (selective recompute repeats only the attention
 * core, so forward and backward weigh alike). An uneven split of whole layers puts 3
 * on some stage, and 3 > 2 + 0.16 + a send: no split beats the even one, and "auto"
 * must be it - the same split, the same step in both engines. */
static void
test_megatron_1t_ties (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "examples", "megatron-1t-3072.json", NULL);
  g_autoptr (PlxScenario) sc = scenario_from_file (path, FALSE);
  g_autoptr (PlxStrategy) proposed = with_auto (sc->strategy);
  g_autofree guint *split = NULL;
  double a_auto, e_auto, a_even, e_even;

  g_assert_cmpuint (sc->strategy->pp, ==, 64);
  split = split_of (sc, proposed);
  for (guint k = 0; k < 64; k++)
    g_assert_cmpuint (split[k], ==, 2);
  steps (sc, proposed, &a_auto, &e_auto);
  steps (sc, sc->strategy, &a_even, &e_even);
  g_assert_cmpfloat (a_auto, ==, a_even);
  g_assert_cmpfloat (e_auto, ==, e_even);
}

/* Where a heavy last stage wins with whole layers: its head is worth more than a
 * layer. 8 layers of h = 1024 with a 250,880-word vocabulary: the head is 2 h V /
 * (24 h^2 + 4 s h) = 5.14e8 / 3.36e7 = 15 layers of time. Over 4 stages the even split
 * (2 each) paces every micro-batch by the last stage's 2 layers + head; "auto" leaves
 * it 1 layer (it cannot hold fewer) and the 7 others on stages 0-2, none near the
 * head's stage. The pipeline takes (m - 1) max t_i + sum t_i (a flow shop of m equal
 * jobs; Narayanan et al. 2021 §2.2.1 with stage times of their own), and the sum does
 * not change: the step shortens by (m - 1) = 31 layers' forward and backward. */
static void
test_heavy_head_moves_a_layer (void)
{
  g_autoptr (PlxScenario) sc = test_scenario_from_string (
    "{ \"model\": { \"model_type\": \"gpt2\", \"n_layer\": 8, \"n_embd\": 1024, \"n_head\": 16,"
    "               \"vocab_size\": 250880, \"n_positions\": 2048 },"
    "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 },"
    "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 64, \"micro_batch_size\": 1,"
    "                 \"tp\": 1, \"pp\": 4, \"dp\": 2, \"zero_stage\": 0 } }");
  g_autoptr (PlxStrategy) proposed = with_auto (sc->strategy);
  g_autofree guint *split = split_of (sc, proposed);
  g_autoptr (GError) error = NULL;
  PlxReport r;
  double a_auto, e_auto, a_even, e_even, layer_s, m;

  g_assert_cmpuint (split[3], ==, 1);
  g_assert_cmpuint (split[0] + split[1] + split[2], ==, 7);
  g_assert_true (plx_analytic_run (sc->model, sc->cluster, sc->strategy, &r, &error));
  layer_s = r.layer_forward_s + r.layer_backward_s;
  m = (double) plx_strategy_get_n_micro_batches (sc->strategy);
  g_assert_cmpfloat (m, ==, 32.0);
  steps (sc, proposed, &a_auto, &e_auto);
  steps (sc, sc->strategy, &a_even, &e_even);
  g_test_message ("heavy head: auto %.4f / %.4f s, even %.4f / %.4f s; (m - 1) layers %.6f s, saved %.6f / %.6f s",
                  a_auto, e_auto, a_even, e_even, (m - 1.0) * layer_s, a_even - a_auto, e_even - e_auto);
  /* Nothing else differs between the two steps here (the gradient reduction and the
   * update after the pipeline end both alike), so the difference is the pipeline's,
   * to rounding. */
  g_assert_cmpfloat (fabs ((a_even - a_auto) / ((m - 1.0) * layer_s) - 1.0), <, 1e-6);
  g_assert_cmpfloat (fabs ((e_even - e_auto) / ((m - 1.0) * layer_s) - 1.0), <, 1e-6);
}

/* The largest chunk time of a split, in layers: n_i plus the first and last extras. */
static double
largest (const guint *n, guint k, double e0, double eL)
{
  double t = 0.0;

  for (guint i = 0; i < k; i++)
    t = MAX (t, n[i] + (i == 0 ? e0 : 0.0) + (i == k - 1 ? eL : 0.0));
  return t;
}

/* The smallest largest chunk time over every split of n layers into k non-empty
 * chunks (compositions, enumerated). */
static double
brute_force (guint n, guint k, double e0, double eL, guint *work, guint at, guint left)
{
  double best = G_MAXDOUBLE;

  if (at == k - 1)
    {
      work[at] = left;
      return largest (work, k, e0, eL);
    }
  for (guint c = 1; c + (k - at - 1) <= left; c++)
    {
      work[at] = c;
      best = MIN (best, brute_force (n, k, e0, eL, work, at + 1, left - c));
    }
  return best;
}

/* 3000 random chains of up to 14 layers over up to 6 chunks, extras from -0.5 (the
 * sends make an end chunk lighter than a middle one) to 4 layers: every layer held
 * once, every chunk at least one, the largest chunk time that of brute force, and
 * never above the uniform split's. */
static void
test_properties (void)
{
  GRand *rand = g_rand_new_with_seed (13);

  for (guint trial = 0; trial < 3000; trial++)
    {
      guint k = (guint) g_rand_int_range (rand, 2, 7);
      guint n = (guint) g_rand_int_range (rand, (gint32) k, 15);
      double e0 = g_rand_double_range (rand, -0.5, 4.0), eL = g_rand_double_range (rand, -0.5, 4.0);
      g_autoptr (PlxStrategy) s = plx_strategy_new ();
      guint got[8], uniform[8], work[8], sum = 0;
      double best;

      s->pp = k;
      s->virtual_stages = 1;
      s->layers_per_stage_auto = TRUE;
      plx_layer_split (s, n, e0, eL, got);
      plx_layer_split_uniform (n, k, uniform);
      for (guint i = 0; i < k; i++)
        {
          g_assert_cmpuint (got[i], >=, 1);
          sum += got[i];
        }
      g_assert_cmpuint (sum, ==, n);
      best = brute_force (n, k, e0, eL, work, 0, n);
      if (fabs (largest (got, k, e0, eL) - best) > 1e-9)
        g_error ("%u layers over %u chunks, extras %.3f and %.3f: largest %.4f, brute force %.4f", n, k, e0, eL,
                 largest (got, k, e0, eL), best);
      g_assert_cmpfloat (largest (got, k, e0, eL), <=, largest (uniform, k, e0, eL) + 1e-9);
    }
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stage-split/bloom-auto-beats-uniform", test_bloom_auto_beats_uniform);
  g_test_add_func ("/stage-split/megatron-1t-ties", test_megatron_1t_ties);
  g_test_add_func ("/stage-split/heavy-head-moves-a-layer", test_heavy_head_moves_a_layer);
  g_test_add_func ("/stage-split/properties", test_properties);
  return g_test_run ();
}
