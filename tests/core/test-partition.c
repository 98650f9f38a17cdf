/* Chain partitioning (issue 13): the DP split against splits worked out by hand and
 * against every split of small random chains. */
#include <math.h>

#include "parallax/parallax.h"
#include "ir/plx-partition.h"

/* The largest part time of the split given by `first`, recomputed from scratch. */
static double
split_time (const double *w, const double *c, guint n, const guint *first, guint parts)
{
  double worst = 0.0;

  for (guint p = 0; p < parts; p++)
    {
      guint a = first[p], b = p + 1 < parts ? first[p + 1] - 1 : n - 1;
      worst = MAX (worst, plx_partition_part_time (w, c, n, a, b));
    }
  return worst;
}

static void
test_heavy_last (void)
{
  /* Five light layers and a heavy head (1, 1, 1, 1, 1, 5), free cuts, 2 parts: the
   * even split 3 | 3 takes max(3, 1 + 1 + 5) = 7; putting the head alone, 5 | 1,
   * takes max(5, 5) = 5, the best (the head alone is 5). */
  const double w[] = { 1, 1, 1, 1, 1, 5 }, c[] = { 0, 0, 0, 0, 0 };
  guint first[2];
  double t = plx_partition_chain (w, c, 6, 2, first);

  g_assert_cmpfloat (t, ==, 5.0);
  g_assert_cmpuint (first[0], ==, 0);
  g_assert_cmpuint (first[1], ==, 5);
}

static void
test_cut_costs (void)
{
  /* Four equal nodes, 2 parts; cutting in the middle costs 3 to both sides, off
   * centre 0.5: 2 | 2 takes 2 + 3 = 5, 1 | 3 takes max(1 + 0.5, 3 + 0.5) = 3.5,
   * so the uneven split wins - the reason the greedy bound test is not enough. */
  const double w[] = { 1, 1, 1, 1 }, c[] = { 0.5, 3, 0.5 };
  guint first[2];
  double t = plx_partition_chain (w, c, 4, 2, first);

  g_assert_cmpfloat (t, ==, 3.5);
  g_assert_true (first[1] == 1 || first[1] == 3);
  g_assert_cmpfloat (split_time (w, c, 4, first, 2), ==, 3.5);
}

/* Every split of n nodes into `parts` (first[0] = 0, increasing), the best time. */
static double
brute (const double *w, const double *c, guint n, guint parts, guint *first, guint p)
{
  double best = G_MAXDOUBLE;

  if (p == parts)
    return split_time (w, c, n, first, parts);
  for (guint s = first[p - 1] + 1; s + (parts - p - 1) < n; s++)
    {
      first[p] = s;
      best = MIN (best, brute (w, c, n, parts, first, p + 1));
    }
  return best;
}

static void
test_brute_force (void)
{
  /* 2000 random chains of 1 to 10 nodes, 1 to n parts: the DP's time is the best of
   * every split, and the split it returns takes that time, each node in exactly one
   * part (the starts increase from 0). */
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261126);

  for (guint r = 0; r < 2000; r++)
    {
      guint n = (guint) g_rand_int_range (rand, 1, 11), parts = (guint) g_rand_int_range (rand, 1, (gint) n + 1);
      double w[10], c[9];
      guint first[10], trial[10] = { 0 };
      double t, expected;

      for (guint i = 0; i < n; i++)
        w[i] = g_rand_double_range (rand, 0.0, 10.0);
      for (guint i = 0; i + 1 < n; i++)
        c[i] = g_rand_boolean (rand) ? g_rand_double_range (rand, 0.0, 5.0) : 0.0;
      t = plx_partition_chain (w, c, n, parts, first);
      expected = parts == 1 ? split_time (w, c, n, trial, 1) : brute (w, c, n, parts, trial, 1);
      g_assert_cmpfloat (fabs (t - expected), <=, 1e-12 * MAX (1.0, expected));
      g_assert_cmpuint (first[0], ==, 0);
      for (guint p = 1; p < parts; p++)
        g_assert_cmpuint (first[p], >, first[p - 1]);
      g_assert_cmpuint (first[parts - 1], <, n);
      g_assert_cmpfloat (fabs (split_time (w, c, n, first, parts) - t), <=, 1e-12 * MAX (1.0, t));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/partition/heavy-last", test_heavy_last);
  g_test_add_func ("/partition/cut-costs", test_cut_costs);
  g_test_add_func ("/partition/brute-force", test_brute_force);
  return g_test_run ();
}
