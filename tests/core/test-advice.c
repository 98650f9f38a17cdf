/* Advice for the user's next change: valid values of one key, nearest fixes of an
 * invalid strategy, changes that make it fit, a strategy adapted to another model.
 * Every expected value is derived by hand from the rules of plx_strategy_resolve. */
#include <string.h>

#include "parallax/parallax.h"

#include "test-util.h"
#include "optimize/plx-advice.h"

/* GPT-3 175B (96 layers, 96 heads) on 8 DGX A100 nodes (64 GPUs), the defaults'
 * strategy with one key changed through `extra` (JSON members, may be empty). */
static PlxScenario *
gpt3 (const char *strategy)
{
  g_autofree char *json = g_strdup_printf (
    "{ \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 8 },"
    "  \"strategy\": { %s } }", strategy);
  return test_scenario_from_string (json);
}

static PlxStrategy *
unresolved (const char *strategy)
{
  g_autofree char *json = g_strdup_printf ("{ %s }", strategy);
  g_autoptr (JsonNode) node = plx_json_parse_data (json, -1, "test", NULL);
  return plx_strategy_new_from_json (node, "test", NULL);
}

#define DEFAULT_STRATEGY \
  "\"tp\": 8, \"pp\": 8, \"schedule\": \"interleaved-1f1b\", \"virtual_stages\": 3, \"micro_batch_size\": 1," \
  " \"global_batch_size\": 1536, \"seq_length\": 2048"

static void
assert_values (GArray *v, const guint64 *expected, guint n)
{
  g_assert_cmpuint (v->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint (g_array_index (v, guint64, i), ==, expected[i]);
}

static void
test_valid_values (void)
{
  g_autoptr (PlxScenario) sc = gpt3 (DEFAULT_STRATEGY);
  /* TP: divisors of 96 heads inside an 8-GPU node are 1, 2, 3, 4, 6, 8; with PP 8 on 64
   * GPUs TP x 8 must divide 64, so TP divides 8: 1, 2, 4, 8. */
  static const guint64 tp[] = { 1, 2, 4, 8 };
  /* PP with TP 8 and 3 chunks: 8 PP | 64 needs PP | 8, interleaving needs PP >= 2:
   * 2, 4, 8 (the micro-batch counts 1536 / (8 / PP) = 384, 768, 1536 are multiples
   * of PP; 3 PP chunks of 96 layers need not divide evenly, only hold one each). */
  static const guint64 pp[] = { 2, 4, 8 };
  /* Chunks with PP 8: each of the 8 v chunks needs a layer of the 96, so v <= 12;
   * interleaving needs v >= 2. Uneven ones (v = 5: 40 chunks) are split, balanced. */
  static const guint64 vs[] = { 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
  g_autoptr (GArray) v_tp = plx_advice_valid_values (sc->model, sc->cluster, sc->strategy, "tp");
  g_autoptr (GArray) v_pp = plx_advice_valid_values (sc->model, sc->cluster, sc->strategy, "pp");
  g_autoptr (GArray) v_vs = plx_advice_valid_values (sc->model, sc->cluster, sc->strategy, "virtual_stages");
  g_autoptr (GArray) v_ep = plx_advice_valid_values (sc->model, sc->cluster, sc->strategy, "ep");

  assert_values (v_tp, tp, G_N_ELEMENTS (tp));
  assert_values (v_pp, pp, G_N_ELEMENTS (pp));
  assert_values (v_vs, vs, G_N_ELEMENTS (vs));
  /* No experts: EP 1 only. */
  g_assert_cmpuint (v_ep->len, ==, 1);
  g_assert_cmpuint (g_array_index (v_ep, guint64, 0), ==, 1);
}

/* A layout string (or layer counts) belongs to its pipeline: another PP or chunk count
 * drops it, so it pins neither slider, and applying such a change removes it from the
 * file. The layout for PP 8 x 3 chunks: 3 + 22 x 4 + 5 = 96 layers in 24 chunks. Expert
 * TP offers what divides with EP: no experts, none. */
static void
test_valid_values_with_layout (void)
{
  g_autoptr (PlxScenario) sc = gpt3 (DEFAULT_STRATEGY ", \"pipeline_layout\": \"Et*3|(t*4|)*22t*5L\"");
  static const guint64 pp[] = { 2, 4, 8 };
  g_autoptr (GArray) v_pp = plx_advice_valid_values (sc->model, sc->cluster, sc->strategy, "pp");
  g_autoptr (GArray) v_etp = plx_advice_valid_values (sc->model, sc->cluster, sc->strategy, "etp");
  g_autoptr (JsonNode) node = plx_json_parse_data ("{\"pp\": 8, \"pipeline_layout\": \"Et*3|(t*4|)*22t*5L\","
                                                   " \"first_stage_layers\": 3}", -1, "test", NULL);
  g_autoptr (JsonNode) four = json_node_init_int (json_node_alloc (), 4);
  PlxAdviceFix fix = { (char *) "pp", four, NULL, 0.0, 0.0, FALSE };

  g_assert_cmpuint (sc->strategy->n_layers_per_stage, ==, 24);
  assert_values (v_pp, pp, G_N_ELEMENTS (pp));
  g_assert_cmpuint (v_etp->len, ==, 0);
  g_assert_true (plx_advice_fix_apply (&fix, json_node_get_object (node), NULL));
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (node), "pp"), ==, 4);
  g_assert_false (json_object_has_member (json_node_get_object (node), "pipeline_layout"));
  g_assert_false (json_object_has_member (json_node_get_object (node), "first_stage_layers"));
}

static PlxAdviceFix *
fix_at (GPtrArray *fixes, guint i)
{
  g_assert_cmpuint (i, <, fixes->len);
  return g_ptr_array_index (fixes, i);
}

/* The fix applied to a scenario's JSON as the window and the CLI apply it, read back
 * as a file would be: it must pass the reader's ranges and resolve. */
static void
assert_fix_leads_somewhere (const PlxModel *model, const char *strategy_json, guint nodes, const PlxAdviceFix *fix)
{
  g_autofree char *json = g_strdup_printf ("{ %s }", strategy_json);
  g_autoptr (JsonNode) strategy = plx_json_parse_data (json, -1, "test", NULL);
  g_autoptr (JsonNode) cluster = plx_json_parse_data ("{ \"preset\": \"dgx-a100-80gb\" }", -1, "test", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxStrategy) s = NULL;
  g_autoptr (PlxCluster) c = NULL;

  json_object_set_int_member (json_node_get_object (cluster), "num_nodes", nodes);
  g_assert_true (plx_advice_fix_apply (fix, json_node_get_object (strategy), json_node_get_object (cluster)));
  s = plx_strategy_new_from_json (strategy, "test", &error);
  g_assert_no_error (error);
  c = plx_cluster_new_from_json (cluster, "test", &error);
  g_assert_no_error (error);
  g_assert_true (plx_strategy_resolve (s, model, c, "test", &error));
  g_assert_no_error (error);
}

/* The nearest fixes of `strategy` with GPT-3 on `nodes` DGX A100 nodes; each is
 * checked to lead somewhere. */
static GPtrArray *
gpt3_fixes_on (guint nodes, const char *strategy)
{
  g_autoptr (PlxScenario) sc = gpt3 (DEFAULT_STRATEGY);
  g_autoptr (PlxCluster) c = plx_cluster_copy (sc->cluster);
  g_autoptr (PlxStrategy) s = unresolved (strategy);
  GPtrArray *fixes;

  c->num_nodes = nodes;
  fixes = plx_advice_nearest_fixes (sc->model, c, s, 5);
  for (guint i = 0; i < fixes->len; i++)
    {
      g_assert_true (fix_at (fixes, i)->step_time_s > 0);
      assert_fix_leads_somewhere (sc->model, strategy, nodes, fix_at (fixes, i));
    }
  return fixes;
}

/* Issue 34: "Nearest valid: Global batch 1073741832", past the 2^30 a strategy file may
 * hold. TP 8 x PP 1 on 24 nodes is DP 24; 2^30 = 8 x 2^27 and 2^27 = 2 (mod 3), so
 * 2^30 = 16 (mod 24): the multiples of 24 around it are 2^30 - 16 = 1073741808 and
 * 2^30 + 8 = 1073741832. The nearer is out of range, so the fix is the lower one. */
static void
test_nearest_in_range (void)
{
  g_autoptr (GPtrArray) fixes =
    gpt3_fixes_on (24, "\"tp\": 8, \"pp\": 1, \"schedule\": \"1f1b\", \"global_batch_size\": 1073741824");

  g_assert_cmpstr (fix_at (fixes, 0)->label, ==, "Global batch 1073741808");
}

/* Issue 34: a node count that TP x PP x CP does not divide got no suggestion. The
 * built-in default's strategy (TP 8, PP 8, 3 chunks, global batch 64, SP) on 12 nodes
 * (96 GPUs): 64 does not divide 96, and no one key mends it - TP must divide 96 / 8
 * = 12 and, with SP, 2048: TP 1, 2, 4 give DP 12, 6, 3, none dividing 64; PP must
 * divide 12 (2, 3, 4, 6, 12: DP 6, 4, 3, 2, 1), and only PP 3 (DP 4, 16 micro-batches)
 * and PP 6 (DP 2, 32) have DP | 64, but interleaving needs micro-batches a multiple of
 * PP; CP 2 would need 128 | 96. The node counts that work: 8 (64 GPUs, DP 1) below
 * and 16 (128 GPUs, DP 2, 32 micro-batches, a multiple of 8) above (13 to 15 nodes are
 * 104, 112, 120 GPUs, no multiples of 64). 16 is nearer: ln (16/12) = 0.29 < ln
 * (12/8) = 0.41. */
static void
test_node_count_fixes (void)
{
  g_autoptr (GPtrArray) fixes = gpt3_fixes_on (
    12, "\"tp\": 8, \"pp\": 8, \"schedule\": \"interleaved-1f1b\", \"virtual_stages\": 3, \"global_batch_size\": 64,"
        " \"seq_length\": 2048, \"sequence_parallel\": true");

  g_assert_cmpuint (fixes->len, ==, 2);
  g_assert_cmpstr (fix_at (fixes, 0)->key, ==, "num_nodes");
  g_assert_cmpint (json_node_get_int (fix_at (fixes, 0)->value), ==, 16);
  g_assert_cmpstr (fix_at (fixes, 0)->label, ==, "16 nodes (128 GPUs)");
  g_assert_cmpstr (fix_at (fixes, 1)->label, ==, "8 nodes (64 GPUs)");
}

/* Issue 34: "No effect at DP 1" on ZeRO where ZeRO cut peak memory at CP 4. ZeRO
 * shards over DP x CP (Megatron-LM's distributed optimizer includes the context-
 * parallel ranks): GPT-3 with TP 8 x PP 2 x CP 4 on 64 GPUs is DP 1, and ZeRO 1 keeps a
 * quarter of the optimizer state of ZeRO 0 (no experts: dense bytes / (1 x 4)). The
 * note says nothing there, and speaks only where DP x CP is 1 (TP 8 x PP 8). */
static void
test_zero_note (void)
{
  g_autoptr (PlxScenario) cp4 = gpt3 ("\"tp\": 8, \"pp\": 2, \"cp\": 4, \"global_batch_size\": 64, \"zero_stage\": 1");
  g_autoptr (PlxScenario) cp4_z0 = gpt3 ("\"tp\": 8, \"pp\": 2, \"cp\": 4, \"global_batch_size\": 64, \"zero_stage\": 0");
  g_autoptr (PlxScenario) dp1 = gpt3 ("\"tp\": 8, \"pp\": 8, \"global_batch_size\": 64, \"zero_stage\": 1");
  g_autoptr (PlxScenario) dp1_z0 = gpt3 ("\"tp\": 8, \"pp\": 8, \"global_batch_size\": 64, \"zero_stage\": 0");
  g_autofree char *note_cp4 = plx_advice_zero_note (cp4->strategy);
  g_autofree char *note_dp1 = plx_advice_zero_note (dp1->strategy);
  g_autofree char *note_z0 = plx_advice_zero_note (dp1_z0->strategy);
  PlxReport z1 = test_run (cp4), z0 = test_run (cp4_z0);

  g_assert_cmpuint (cp4->strategy->dp, ==, 1);
  g_assert_cmpfloat_with_epsilon ((double) z1.memory_bytes[PLX_MEM_OPTIMIZER] * 4.0,
                                  (double) z0.memory_bytes[PLX_MEM_OPTIMIZER], 4.0);
  g_assert_cmpuint (z1.peak_memory_bytes, <, z0.peak_memory_bytes);
  g_assert_null (note_cp4);
  g_assert_cmpstr (note_dp1, ==, "No effect at DP × CP = 1: ZeRO shards over the data- and context-parallel ranks");
  g_assert_null (note_z0);
}

static void
test_nearest_fixes (void)
{
  g_autoptr (PlxScenario) sc = gpt3 (DEFAULT_STRATEGY);
  g_autoptr (PlxStrategy) thirteen = unresolved (
    "\"tp\": 8, \"pp\": 8, \"schedule\": \"interleaved-1f1b\", \"virtual_stages\": 13, \"global_batch_size\": 1536");
  g_autoptr (PlxStrategy) odd = unresolved (
    "\"tp\": 8, \"pp\": 8, \"schedule\": \"interleaved-1f1b\", \"virtual_stages\": 3, \"global_batch_size\": 1001");
  g_autoptr (GPtrArray) f13 = plx_advice_nearest_fixes (sc->model, sc->cluster, thirteen, 5);
  g_autoptr (GPtrArray) f1001 = plx_advice_nearest_fixes (sc->model, sc->cluster, odd, 5);
  g_autoptr (GPtrArray) none = plx_advice_nearest_fixes (sc->model, sc->cluster, sc->strategy, 5);

  /* 13 chunks per stage: 104 chunks for 96 layers. The nearest count that holds a
   * layer each is 12 (ln 13/12 = 0.08); PP 4 (52 chunks, DP 2) fixes it too, further
   * away (ln 2 = 0.69), so it comes later. */
  g_assert_cmpstr (fix_at (f13, 0)->label, ==, "Model chunks 12");
  g_assert_cmpstr (fix_at (f13, 0)->key, ==, "virtual_stages");
  g_assert_cmpint (json_node_get_int (fix_at (f13, 0)->value), ==, 12);
  {
    gboolean pp4 = FALSE;
    for (guint i = 1; i < f13->len; i++)
      pp4 |= g_str_equal (fix_at (f13, i)->key, "pp") && json_node_get_int (fix_at (f13, i)->value) == 4;
    g_assert_true (pp4);
  }
  /* 1001 micro-batches on DP 1 are not a multiple of PP 8: 1000 and 1008 are, and
   * 1000 is nearer. The error names the global batch, so it comes first. */
  g_assert_cmpstr (fix_at (f1001, 0)->label, ==, "Global batch 1000");
  g_assert_true (fix_at (f1001, 0)->step_time_s > 0);
  /* Dropping interleaving (1F1B has no multiple-of-PP rule) also fixes it. */
  {
    gboolean schedule = FALSE;
    for (guint i = 0; i < f1001->len; i++)
      schedule |= g_str_equal (fix_at (f1001, i)->key, "schedule");
    g_assert_true (schedule);
  }
  /* A valid strategy needs no fix. */
  g_assert_cmpuint (none->len, ==, 0);
}

static void
test_fit_fixes (void)
{
  /* The built-in default with TP 4 (so DP 2): selective recompute, ZeRO 1, SP; its
   * peak is 87.6 GiB of 77 GiB usable (the README's comparison). ZeRO 3 shards the
   * weights too and fits; ZeRO 2 stops 0.17 GiB short (77.17 GiB). Megatron-LM's
   * implementation is kept explicitly: by default ZeRO 3 would mean PyTorch FSDP,
   * whose "selective" recompute keeps more. */
  g_autoptr (PlxScenario) sc = gpt3 ("\"tp\": 4, \"pp\": 8, \"schedule\": \"interleaved-1f1b\", \"virtual_stages\": 3,"
                                     " \"global_batch_size\": 64, \"sequence_parallel\": true,"
                                     " \"recompute\": \"selective\", \"zero_stage\": 1, \"implementation\": \"megatron\"");
  gboolean zero3 = FALSE, zero2 = FALSE, full = FALSE;
  PlxReport r = test_run (sc);
  g_autoptr (GPtrArray) fixes = NULL;

  g_assert_false (r.fits_in_memory);
  fixes = plx_advice_fit_fixes (sc->model, sc->cluster, sc->strategy, 10);
  g_assert_cmpuint (fixes->len, >, 0);
  for (guint i = 0; i < fixes->len; i++)
    {
      PlxAdviceFix *f = fix_at (fixes, i);
      g_autoptr (PlxStrategy) s = plx_strategy_copy (sc->strategy);
      g_autoptr (PlxCluster) c = plx_cluster_copy (sc->cluster);
      PlxReport fr;

      /* Applied independently of the advice code, each one fits. */
      if (g_str_equal (f->key, "zero_stage"))
        s->zero_stage = (guint) json_node_get_int (f->value);
      else if (g_str_equal (f->key, "recompute"))
        s->recompute = g_str_equal (json_node_get_string (f->value), "full") ? PLX_RECOMPUTE_FULL : PLX_RECOMPUTE_SELECTIVE;
      else if (g_str_equal (f->key, "micro_batch_size"))
        s->micro_batch_size = (guint64) json_node_get_int (f->value);
      else if (g_str_equal (f->key, "tp"))
        s->tp = (guint) json_node_get_int (f->value), s->dp = 0;
      else if (g_str_equal (f->key, "pp"))
        s->pp = (guint) json_node_get_int (f->value), s->dp = 0;
      else if (g_str_equal (f->key, "cp"))
        s->cp = (guint) json_node_get_int (f->value), s->dp = 0;
      else if (g_str_equal (f->key, "num_nodes"))
        c->num_nodes = (guint) json_node_get_int (f->value), s->dp = 0;
      else
        g_error ("unexpected fix key %s", f->key);
      g_assert_true (plx_strategy_resolve (s, sc->model, c, "test", NULL));
      g_assert_true (plx_analytic_run (sc->model, c, s, &fr, NULL));
      g_assert_true (fr.fits_in_memory);
      g_assert_cmpfloat (fr.step_time_s, ==, f->step_time_s);
      zero3 |= g_str_equal (f->label, "ZeRO 3");
      zero2 |= g_str_equal (f->label, "ZeRO 2");
      full |= g_str_equal (f->label, "Recompute full");
      /* Fastest first. */
      if (i > 0)
        g_assert_cmpfloat (fix_at (fixes, i - 1)->step_time_s, <=, f->step_time_s);
    }
  g_assert_true (zero3);
  g_assert_true (full);
  g_assert_false (zero2);
}

static PlxStrategy *
adapted (const char *preset, gint64 *seq)
{
  g_autoptr (PlxModel) m = plx_model_new_preset (preset, NULL);
  g_autoptr (PlxCluster) c = plx_cluster_new_preset ("dgx-a100-80gb", NULL);
  g_autofree char *json = g_strdup_printf ("{ %s }", DEFAULT_STRATEGY);
  g_autoptr (JsonNode) node = plx_json_parse_data (json, -1, "test", NULL);
  g_autoptr (JsonNode) out = NULL;
  PlxStrategy *s;

  g_autofree char *before = json_to_string (node, FALSE);
  g_autofree char *after = NULL;

  c->num_nodes = 8;
  out = plx_advice_adapt_strategy (m, c, node);
  g_assert_nonnull (out);
  /* The strategy given is as it was (a shallow copy lost its "dp"). */
  after = json_to_string (node, FALSE);
  g_assert_cmpstr (after, ==, before);
  g_assert_false (json_object_has_member (json_node_get_object (out), "dp"));
  *seq = json_object_get_int_member (json_node_get_object (out), "seq_length");
  s = plx_strategy_new_from_json (out, "test", NULL);
  g_assert_true (plx_strategy_resolve (s, m, c, "test", NULL));
  return s;
}

static void
test_adapt (void)
{
  gint64 seq;
  g_autoptr (PlxStrategy) llama = adapted ("llama-2-7b", &seq);
  g_autoptr (PlxStrategy) gpt2 = NULL;

  /* Llama 2 7B: 32 heads and 32 layers keep TP 8 and PP 8; 3 chunks per stage are
   * 24 chunks of 32 layers, uneven but a layer each, so they stay (split balanced).
   * Rotary positions: the sequence length 2048 stays. */
  g_assert_cmpuint (llama->tp, ==, 8);
  g_assert_cmpuint (llama->pp, ==, 8);
  g_assert_cmpuint (llama->virtual_stages, ==, 3);
  g_assert_cmpint (seq, ==, 2048);
  /* GPT-2 small: 1024 learned positions cap the sequence; 12 heads allow TP 1, 2, 4
   * (3 and 6 do not divide 64 GPUs) and 4 is nearest to 8; PP must be >= 2 for
   * interleaving with two chunks of a layer each (2 PP <= 12) and keep 4 PP | 64:
   * 2 or 4, nearest to 8 is 4; then 3 chunks give 12 / (4 x 3) = 1 layer each and
   * stay. */
  gpt2 = adapted ("gpt2", &seq);
  g_assert_cmpint (seq, ==, 1024);
  g_assert_cmpuint (gpt2->tp, ==, 4);
  g_assert_cmpuint (gpt2->pp, ==, 4);
  g_assert_cmpuint (gpt2->virtual_stages, ==, 3);
}

static void
test_describe (void)
{
  g_autoptr (PlxScenario) sc = gpt3 (DEFAULT_STRATEGY);
  g_autofree char *d = plx_scenario_describe (sc);

  g_assert_cmpstr (d, ==, "gpt3-175b on 64 A100-SXM4-80GB, TP 8 × PP 8 × DP 1, interleaved 1F1B ×3");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/advice/valid-values", test_valid_values);
  g_test_add_func ("/core/advice/valid-values-with-layout", test_valid_values_with_layout);
  g_test_add_func ("/core/advice/nearest-fixes", test_nearest_fixes);
  g_test_add_func ("/core/advice/fit-fixes", test_fit_fixes);
  g_test_add_func ("/core/advice/nearest-in-range", test_nearest_in_range);
  g_test_add_func ("/core/advice/node-count-fixes", test_node_count_fixes);
  g_test_add_func ("/core/advice/zero-note", test_zero_note);
  g_test_add_func ("/core/advice/adapt", test_adapt);
  g_test_add_func ("/core/advice/describe", test_describe);
  return g_test_run ();
}
