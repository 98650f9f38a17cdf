/* Built-in schedules: the order of passes on each stage for small cases, written out
 * by hand from the papers' descriptions. */
#include <string.h>

#include "parallax/parallax.h"
#include "test-home.h"

static char *
stage_string (const PlxScheduleOrder *o, guint stage)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < plx_schedule_order_get_stages (o)[stage]->len; i++)
    {
      g_autofree char *e = plx_schedule_entry_to_string (&g_array_index (plx_schedule_order_get_stages (o)[stage], PlxScheduleEntry, i));
      g_string_append_printf (out, "%s%s", i ? " " : "", e);
    }
  return g_string_free (out, FALSE);
}

static void
assert_order (PlxSchedule schedule, guint p, guint v, guint64 m, const char *const *expected)
{
  g_autoptr (PlxScheduleOrder) o = plx_schedule_order_new (schedule, p, v, m);
  g_autoptr (GError) error = NULL;

  for (guint s = 0; s < p; s++)
    {
      g_autofree char *got = stage_string (o, s);
      g_assert_cmpstr (got, ==, expected[s]);
    }
  g_assert_true (plx_schedule_order_check (o, "test", &error));
  g_assert_no_error (error);
}

static void
test_gpipe (void)
{
  /* All forwards, then all backwards (Huang et al. 2019). */
  const char *const want[] = { "F0 F1 F2 B0 B1 B2", "F0 F1 F2 B0 B1 B2" };
  assert_order (PLX_SCHEDULE_GPIPE, 2, 1, 3, want);
}

static void
test_1f1b (void)
{
  /* p = 3, m = 4: stage s warms up with p - s - 1 forwards, alternates, drains
   * (Narayanan et al. 2021 Fig. 4 top). */
  const char *const want[] = {
    "F0 F1 F2 B0 F3 B1 B2 B3",
    "F0 F1 B0 F2 B1 F3 B2 B3",
    "F0 B0 F1 B1 F2 B2 F3 B3",
  };
  assert_order (PLX_SCHEDULE_1F1B, 3, 1, 4, want);
}

static void
test_1f1b_few_micro_batches (void)
{
  /* Fewer micro-batches (2) than the warm-up wants: stages 0 and 1 (warm-up 3 and
   * 2, capped at 2) and stage 2 (warm-up 1, then F1 B0, then B1) all end up running
   * both forwards first; only the last stage alternates. */
  const char *const want[] = { "F0 F1 B0 B1", "F0 F1 B0 B1", "F0 F1 B0 B1", "F0 B0 F1 B1" };
  assert_order (PLX_SCHEDULE_1F1B, 4, 1, 2, want);
}

static void
test_interleaved (void)
{
  /* Megatron-LM's interleaved schedule, p = 2, v = 2, m = 4. The k-th forward runs
   * chunk (k / p) mod v of micro-batch (k / pv) p + k mod p; backwards walk the
   * chunks in reverse; stage s warms up with 2 (p - s - 1) + (v - 1) p forwards:
   * 4 on stage 0, 2 on stage 1. "F2.1" is micro-batch 2 of chunk 1. */
  const char *const want[] = {
    "F0 F1 F0.1 F1.1 F2 B0.1 F3 B1.1 F2.1 B0 F3.1 B1 B2.1 B3.1 B2 B3",
    "F0 F1 F0.1 B0.1 F1.1 B1.1 F2 B0 F3 B1 F2.1 B2.1 F3.1 B3.1 B2 B3",
  };
  assert_order (PLX_SCHEDULE_INTERLEAVED_1F1B, 2, 2, 4, want);
}

static void
test_zero_bubble_h1 (void)
{
  /* p = 2, m = 2, F = B = W = 1 unit: the first stage fills the wait for B1 with W0;
   * the last runs its Ws after its Bs. 7 units in all: m (F + B + W) + (p - 1)(F + B
   * - W) (Qi et al. 2023 §3.1), against 9 for 1F1B. */
  const char *const want[] = { "F0 F1 B0 W0 B1 W1", "F0 B0 F1 B1 W0 W1" };
  g_autoptr (PlxScheduleOrder) o = plx_schedule_order_new (PLX_SCHEDULE_ZERO_BUBBLE_H1, 2, 1, 2);

  g_assert_true (o->split_backward);
  assert_order (PLX_SCHEDULE_ZERO_BUBBLE_H1, 2, 1, 2, want);
}

static void
test_check_all_builtins (void)
{
  /* Every built-in order passes the completeness and deadlock checks. */
  for (guint p = 1; p <= 8; p *= 2)
    for (guint64 m = 1; m <= 24; m += 7)
      {
        PlxSchedule kinds[] = { PLX_SCHEDULE_GPIPE, PLX_SCHEDULE_1F1B, PLX_SCHEDULE_ZERO_BUBBLE_H1 };
        for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
          {
            g_autoptr (PlxScheduleOrder) o = plx_schedule_order_new (kinds[i], p, 1, m);
            g_autoptr (GError) error = NULL;
            g_assert_true (plx_schedule_order_check (o, "built-in", &error));
          }
        if (p >= 2 && m % p == 0)
          for (guint v = 2; v <= 4; v++)
            {
              g_autoptr (PlxScheduleOrder) o = plx_schedule_order_new (PLX_SCHEDULE_INTERLEAVED_1F1B, p, v, m);
              g_autoptr (GError) error = NULL;
              g_assert_true (plx_schedule_order_check (o, "built-in", &error));
            }
      }
}

/* The deadlock check on a pipeline of 40,000 stages, one micro-batch: a backward
 * walks back one stage a sweep, so sweeping every stage until none moved took 40,000
 * sweeps of 40,000 stages (22 s through a schedule file); it now looks again only at
 * the stages beside one that ran. 1F1B passes; with the last stage's two entries
 * swapped (B0 before F0) nothing before its forward can wait on it, but its B0 waits
 * on its own F0, and every other stage's B0 waits on that stage's B0. */
static void
test_check_deep (void)
{
  const guint p = 40000;
  g_autoptr (PlxScheduleOrder) o = plx_schedule_order_new (PLX_SCHEDULE_1F1B, p, 1, 1);
  g_autoptr (GError) error = NULL;
  GArray *last = plx_schedule_order_get_stages (o)[p - 1];
  PlxScheduleEntry f0 = g_array_index (last, PlxScheduleEntry, 0);

  g_assert_true (plx_schedule_order_check (o, "deep", &error));
  g_assert_no_error (error);
  g_array_index (last, PlxScheduleEntry, 0) = g_array_index (last, PlxScheduleEntry, 1);
  g_array_index (last, PlxScheduleEntry, 1) = f0;
  g_assert_false (plx_schedule_order_check (o, "deep", &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
  g_assert_cmpstr (error->message, ==, "deep: stage 0, entry 1 (B0) deadlocks: it waits for B0 on stage 1, which "
                                       "never runs before it");
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/schedule/gpipe", test_gpipe);
  g_test_add_func ("/schedule/1f1b", test_1f1b);
  g_test_add_func ("/schedule/1f1b-few-micro-batches", test_1f1b_few_micro_batches);
  g_test_add_func ("/schedule/interleaved", test_interleaved);
  g_test_add_func ("/schedule/zero-bubble-h1", test_zero_bubble_h1);
  g_test_add_func ("/schedule/check-all-builtins", test_check_all_builtins);
  g_test_add_func ("/schedule/check-deep", test_check_deep);
  return g_test_run ();
}
