/* The partition view's layout without a display: columns by depth, rows by the
 * producers' mean, cut edges where stages change, names only where they fit. */
#include <math.h>
#include <string.h>

#include "plx-partition-chart.h"

static void
test_diamond (void)
{
  /* a -> b, a -> c, b -> d, c -> d, stages 0 0 1 1. Depths: a 0, b and c 1, d 2, so
   * 3 columns of 976 / 3 = 325.3 px at 1000 px (12 px margins), 2 rows of
   * (400 - 56 - 12) / 2 = 166 px, brought to 2 x 26 = 52 px apart from the top (56 px,
   * under the summary and legend) down; boxes 0.72 of a
   * column up to 160 px wide, 0.62 of a row up to 26 px high. b and c share a's row as
   * their producers' mean; the tie goes to the lower index, b above c. a -> c and
   * b -> d cross from stage 0 to 1. */
  static const char *const names[] = { "a", "b", "c", "d" };
  static const guint stage[] = { 0, 0, 1, 1 };
  static const guint from[] = { 0, 0, 1, 2 }, to[] = { 1, 2, 3, 3 };
  PlxPartitionGraph g = { 4, names, stage, 2, 4, from, to };
  g_autoptr (PlxPartitionLayout) l = plx_partition_layout_new (&g, 1000, 400);
  g_autoptr (PlxPartitionLayout) tiny = NULL;
  const PlxPartitionBox *b = (const PlxPartitionBox *) (const void *) l->boxes->data;
  double col = 976.0 / 3.0;

  g_assert_cmpuint (l->n_layers, ==, 3);
  g_assert_cmpuint (l->n_rows, ==, 2);
  g_assert_cmpuint (l->n_cut, ==, 2);
  g_assert_false (g_array_index (l->edges, PlxPartitionEdge, 0).cut);
  g_assert_true (g_array_index (l->edges, PlxPartitionEdge, 1).cut);
  g_assert_true (g_array_index (l->edges, PlxPartitionEdge, 2).cut);
  g_assert_false (g_array_index (l->edges, PlxPartitionEdge, 3).cut);
  g_assert_cmpfloat_with_epsilon (b[0].x0 * 1000, 12 + col / 2 - 80, 1e-9);
  g_assert_cmpfloat_with_epsilon (b[1].x0 * 1000, 12 + 1.5 * col - 80, 1e-9);
  g_assert_cmpfloat_with_epsilon (b[3].x1 * 1000, 12 + 2.5 * col + 80, 1e-9);
  g_assert_cmpfloat (b[1].x0, ==, b[2].x0);
  /* a and d in the middle of the two rows (56 + 52 = 108 px); b half a row (26 px)
   * above, c half a row below. */
  g_assert_cmpfloat_with_epsilon ((b[0].y0 + b[0].y1) / 2 * 400, 108, 1e-9);
  g_assert_cmpfloat_with_epsilon ((b[1].y0 + b[1].y1) / 2 * 400, 108 - 26, 1e-9);
  g_assert_cmpfloat_with_epsilon ((b[2].y0 + b[2].y1) / 2 * 400, 108 + 26, 1e-9);
  g_assert_cmpfloat_with_epsilon ((b[0].y1 - b[0].y0) * 400, 26, 1e-9);
  g_assert_true (b[0].named);
  g_assert_cmpstr (l->summary, ==, "4 ops on 2 stages · 2 cut edges");
  g_assert_cmpint (plx_partition_layout_hit (l, (b[2].x0 + b[2].x1) / 2, (b[2].y0 + b[2].y1) / 2), ==, 2);
  g_assert_cmpint (plx_partition_layout_hit (l, 0.001, 0.001), ==, -1);

  /* 60 x 50 px: columns of 12 px, boxes 8.6 px wide: no name fits. */
  tiny = plx_partition_layout_new (&g, 60, 50);
  for (guint i = 0; i < 4; i++)
    g_assert_false (g_array_index (tiny->boxes, PlxPartitionBox, i).named);
}

static void
test_long_chain (void)
{
  /* 3000 ops in a chain, the first 1000 on stage 0: 3000 columns in 976 px, boxes
   * the 1 px minimum, no names, one cut edge (op 999 -> 1000), and the boxes in
   * order left to right. */
  enum { N = 3000 };
  g_autofree guint *stage = g_new (guint, N), *from = g_new (guint, N - 1), *to = g_new (guint, N - 1);
  g_autofree const char **names = g_new (const char *, N);
  PlxPartitionGraph g;
  g_autoptr (PlxPartitionLayout) l = NULL;

  for (guint i = 0; i < N; i++)
    {
      stage[i] = i < 1000 ? 0 : 1;
      names[i] = "matmul";
      if (i + 1 < N)
        from[i] = i, to[i] = i + 1;
    }
  g = (PlxPartitionGraph) { N, names, stage, 2, N - 1, from, to };
  l = plx_partition_layout_new (&g, 1000, 400);
  g_assert_cmpuint (l->n_layers, ==, N);
  g_assert_cmpuint (l->n_rows, ==, 1);
  g_assert_cmpuint (l->n_cut, ==, 1);
  g_assert_true (g_array_index (l->edges, PlxPartitionEdge, 999).cut);
  for (guint i = 0; i < N; i++)
    {
      const PlxPartitionBox *b = &g_array_index (l->boxes, PlxPartitionBox, i);
      g_assert_false (b->named);
      g_assert_cmpfloat_with_epsilon ((b->x1 - b->x0) * 1000, 1.0, 1e-9);
      if (i > 0)
        g_assert_cmpfloat (b->x0, >, g_array_index (l->boxes, PlxPartitionBox, i - 1).x0);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/partition/diamond", test_diamond);
  g_test_add_func ("/render/partition/long-chain", test_long_chain);
  return g_test_run ();
}
