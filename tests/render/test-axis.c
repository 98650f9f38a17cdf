/* Axis labels: the unit follows the tick step, with the decimals that tell
 * neighbouring ticks apart (Heckbert's nice steps of 1, 2, 5 x 10^k). */
#include "plx-axis.h"

static void
check_ticks (double lo, double hi, guint target, const char *const *expected, guint n)
{
  g_autoptr (GArray) ticks = g_array_new (FALSE, FALSE, sizeof (PlxAxisTick));

  plx_axis_time_ticks (lo, hi, target, ticks);
  g_assert_cmpuint (ticks->len, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (g_array_index (ticks, PlxAxisTick, i).label, ==, expected[i]);
}

/* 0-2 s over 4 ticks: a span of 2 / 4 = 0.5 s per step, labelled in seconds (the
 * issue saw "1500 ms"). */
static void
test_half_seconds (void)
{
  static const char *const e[] = { "0.0 s", "0.5 s", "1.0 s", "1.5 s", "2.0 s" };
  check_ticks (0.0, 2.0, 4, e, G_N_ELEMENTS (e));
}

/* 0-40 ms over 4 ticks: 10 ms steps, whole milliseconds. */
static void
test_milliseconds (void)
{
  static const char *const e[] = { "0 ms", "10 ms", "20 ms", "30 ms", "40 ms" };
  check_ticks (0.0, 0.040, 4, e, G_N_ELEMENTS (e));
}

/* 0-3 µs over 6 ticks: 0.5 µs steps, one decimal. */
static void
test_microseconds (void)
{
  static const char *const e[] = { "0.0 µs", "0.5 µs", "1.0 µs", "1.5 µs", "2.0 µs", "2.5 µs", "3.0 µs" };
  check_ticks (0.0, 3e-6, 6, e, G_N_ELEMENTS (e));
}

/* 10-60 s over 5 ticks: 10 s steps, whole seconds. */
static void
test_tens_of_seconds (void)
{
  static const char *const e[] = { "10 s", "20 s", "30 s", "40 s", "50 s", "60 s" };
  check_ticks (10.0, 60.0, 5, e, G_N_ELEMENTS (e));
}

/* 0-0.8 s over 5 ticks: 0.8 / 5 = 0.16 s, rounded up to a 0.2 s step. The range
 * stays under a second, so it reads in milliseconds ("200 ms", not "0.2 s"). */
static void
test_sub_second (void)
{
  static const char *const e[] = { "0 ms", "200 ms", "400 ms", "600 ms", "800 ms" };
  check_ticks (0.0, 0.8, 5, e, G_N_ELEMENTS (e));
}

/* A zoom on 2.0-2.4 s over 10 ticks: 0.4 / 10 = 0.04 s, rounded up to a 0.05 s step.
 * The values pass a second, so seconds with the two decimals 0.05 needs ("2.05 s",
 * not "2050 ms"). */
static void
test_zoomed_seconds (void)
{
  static const char *const e[] = { "2.00 s", "2.05 s", "2.10 s", "2.15 s", "2.20 s",
                                   "2.25 s", "2.30 s", "2.35 s", "2.40 s" };
  check_ticks (2.0, 2.4, 10, e, G_N_ELEMENTS (e));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/axis/half-seconds", test_half_seconds);
  g_test_add_func ("/axis/milliseconds", test_milliseconds);
  g_test_add_func ("/axis/microseconds", test_microseconds);
  g_test_add_func ("/axis/tens-of-seconds", test_tens_of_seconds);
  g_test_add_func ("/axis/sub-second", test_sub_second);
  g_test_add_func ("/axis/zoomed-seconds", test_zoomed_seconds);
  return g_test_run ();
}
