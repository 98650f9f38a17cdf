/* Layers per pipeline stage: as given, even, or the balanced split (issue 10). Every
 * expected split is worked out by hand in the comment beside it. */
#include "parallax/parallax.h"
#include "cost/plx-layer-split.h"

static void
assert_split (const guint *got, const guint *want, guint n)
{
  for (guint i = 0; i < n; i++)
    if (got[i] != want[i])
      g_error ("chunk %u holds %u layers, not %u", i, got[i], want[i]);
}

static PlxStrategy *
strategy (guint pp, guint v)
{
  PlxStrategy *s = plx_strategy_new ();
  s->pp = pp;
  s->virtual_stages = v;
  return s;
}

static void
test_bloom (void)
{
  /* BLOOM-176B: 70 layers over 12 stages; the embedding is worth 0.1 layer of time,
   * the LM head and loss 1.3 (a 250,880-word vocabulary). Largest chunk time T:
   *   T = 6   : 5 + 4 + 10 x 6 = 69 layers, too few;
   *   T = 6.1 : floor(6.1 - 0.1) = 6 + floor(6.1 - 1.3) = 4 + 10 x 6 = 70, all of them;
   *   no T between holds more (the next steps are at 6.3 and 7).
   * So 6, 6 x 10, 4 (largest 6.1), better than BLOOM's own 5, 6 x 10, 5 (largest 6.3). */
  g_autoptr (PlxStrategy) s = strategy (12, 1);
  static const guint want[] = { 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 4 };
  guint got[12];

  g_assert_true (plx_layer_split_is_uneven (s, 70));
  plx_layer_split (s, 70, 0.1, 1.3, got);
  assert_split (got, want, 12);
}

static void
test_leftover_from_early_stages (void)
{
  /* 12 layers over 8 stages, no extras: T = 1 holds 8, T = 2 holds 16; four too many
   * come off the first middle stages, which hold the most micro-batches in flight. */
  g_autoptr (PlxStrategy) s = strategy (8, 1);
  static const guint want[] = { 2, 1, 1, 1, 1, 2, 2, 2 };
  guint got[8];

  plx_layer_split (s, 12, 0.0, 0.0, got);
  assert_split (got, want, 8);
}

static void
test_even_and_given (void)
{
  /* 96 layers over 8 stages divide: 12 each, whatever the extras, unless "auto". */
  g_autoptr (PlxStrategy) s = strategy (8, 1);
  static const guint even[] = { 12, 12, 12, 12, 12, 12, 12, 12 };
  /* Auto with a head worth 2.5 layers: T = 12 holds 12 + 9 + 72 = 93; T = 12.5 holds
   * 12 + 10 + 72 = 94; T = 13 holds 13 + 10 + 78 = 101, five over: the first five
   * middle stages give one each. */
  static const guint balanced[] = { 13, 12, 12, 12, 12, 12, 13, 10 };
  static const guint given[] = { 11, 13, 12, 12, 12, 12, 12, 12 };
  guint got[8];

  g_assert_false (plx_layer_split_is_uneven (s, 96));
  plx_layer_split (s, 96, 0.0, 2.5, got);
  assert_split (got, even, 8);
  s->layers_per_stage_auto = TRUE;
  g_assert_true (plx_layer_split_is_uneven (s, 96));
  plx_layer_split (s, 96, 0.0, 2.5, got);
  assert_split (got, balanced, 8);
  s->layers_per_stage_auto = FALSE;
  s->layers_per_stage = g_memdup2 (given, sizeof given);
  s->n_layers_per_stage = 8;
  g_assert_true (plx_layer_split_is_uneven (s, 96));
  plx_layer_split (s, 96, 0.0, 2.5, got);
  assert_split (got, given, 8);
}

static void
test_megatron_ends (void)
{
  /* Megatron-LM's first/last-stage counts: BLOOM's 70 layers over 12 stages with 4 on
   * the last leave 66 for the other 11, six each; with 4 on the first as well, 62 over
   * the ten between do not divide (refused when resolved, test-strategy.c). */
  g_autoptr (PlxStrategy) s = strategy (12, 1);
  static const guint last4[] = { 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 4 };
  static const guint both[] = { 5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 5 };
  static const guint even[] = { 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 };
  guint got[12];

  s->last_stage_layers = 4;
  g_assert_true (plx_layer_split_is_uneven (s, 70));
  plx_layer_split (s, 70, 0.1, 1.3, got);
  assert_split (got, last4, 12);
  /* BLOOM's own: 5 on each end, 60 over ten. */
  s->first_stage_layers = 5;
  s->last_stage_layers = 5;
  plx_layer_split (s, 70, 0.1, 1.3, got);
  assert_split (got, both, 12);
  /* Ends equal to the even share are no split at all: 24 layers, 2 each. */
  s->first_stage_layers = 2;
  s->last_stage_layers = 0;
  g_assert_false (plx_layer_split_is_uneven (s, 24));
  plx_layer_split (s, 24, 0.0, 0.0, got);
  assert_split (got, even, 12);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/layer-split/bloom", test_bloom);
  g_test_add_func ("/layer-split/leftover-from-early-stages", test_leftover_from_early_stages);
  g_test_add_func ("/layer-split/even-and-given", test_even_and_given);
  g_test_add_func ("/layer-split/megatron-ends", test_megatron_ends);
  return g_test_run ();
}
