/* Benchmark: the DAG partitioner (issue 13) on a 10 000-op graph shaped like a
 * transformer's training graph, into 64 parts, as pipeline stages (ORDERED) and as
 * devices (FREE); target under 1 s each. Prints the best of 5 wall times, the cut,
 * the largest part, the imbalance. Then the chain DP (plx_partition_chain) on the
 * same ops as a chain, 2 500, 5 000 and 10 000 of them (about n^2 ln(k) / 2 steps). */
#include <stdio.h>

#include "parallax/parallax.h"
#include "ir/plx-partition-dag.h"
#include "ir/plx-partition.h"

#define N_PARTS 64
#define BLOCK_OPS 12
#define N_BLOCKS 833 /* 833 x 12 + 4 = 10 000 ops */

typedef struct
{
  GArray *node_s;
  GArray *src;
  GArray *dst;
  GArray *cut_s;
} Graph;

static guint
add_op (Graph *g, double seconds)
{
  g_array_append_val (g->node_s, seconds);
  return g->node_s->len - 1;
}

static void
add_edge (Graph *g, guint a, guint b, double seconds)
{
  g_array_append_val (g->src, a);
  g_array_append_val (g->dst, b);
  g_array_append_val (g->cut_s, seconds);
}

/* Embedding, then N_BLOCKS pre-norm blocks, then norm, head and loss. A block:
 *   x -> norm -> q, k, v (three matmuls) -> attention (reads q, k, v) -> proj
 *     -> add (with the skip from x) -> norm -> up -> activation -> down -> add (skip)
 * Matmuls 1 to 3 ms (the MLP's 4x wider: 4 to 6), element-wise ops 0.05 to 0.1 ms,
 * drawn from a fixed seed; a hidden-sized activation costs 0.2 ms to send both ways,
 * the MLP's 4x wider one 0.8 ms. */
static void
build_training_graph (Graph *g)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (13);
  guint x = add_op (g, 0.5e-3);

  for (guint b = 0; b < N_BLOCKS; b++)
    {
      guint n1 = add_op (g, g_rand_double_range (rand, 0.05e-3, 0.1e-3));
      guint q = add_op (g, g_rand_double_range (rand, 1e-3, 3e-3));
      guint k = add_op (g, g_rand_double_range (rand, 1e-3, 3e-3));
      guint v = add_op (g, g_rand_double_range (rand, 1e-3, 3e-3));
      guint att = add_op (g, g_rand_double_range (rand, 2e-3, 3e-3));
      guint proj = add_op (g, g_rand_double_range (rand, 1e-3, 3e-3));
      guint add1 = add_op (g, g_rand_double_range (rand, 0.05e-3, 0.1e-3));
      guint n2 = add_op (g, g_rand_double_range (rand, 0.05e-3, 0.1e-3));
      guint up = add_op (g, g_rand_double_range (rand, 4e-3, 6e-3));
      guint act = add_op (g, g_rand_double_range (rand, 0.05e-3, 0.1e-3));
      guint down = add_op (g, g_rand_double_range (rand, 4e-3, 6e-3));
      guint add2 = add_op (g, g_rand_double_range (rand, 0.05e-3, 0.1e-3));

      add_edge (g, x, n1, 0.2e-3);
      add_edge (g, n1, q, 0.2e-3);
      add_edge (g, n1, k, 0.2e-3);
      add_edge (g, n1, v, 0.2e-3);
      add_edge (g, q, att, 0.2e-3);
      add_edge (g, k, att, 0.2e-3);
      add_edge (g, v, att, 0.2e-3);
      add_edge (g, att, proj, 0.2e-3);
      add_edge (g, proj, add1, 0.2e-3);
      add_edge (g, x, add1, 0.2e-3);
      add_edge (g, add1, n2, 0.2e-3);
      add_edge (g, n2, up, 0.2e-3);
      add_edge (g, up, act, 0.8e-3);
      add_edge (g, act, down, 0.8e-3);
      add_edge (g, down, add2, 0.2e-3);
      add_edge (g, add1, add2, 0.2e-3);
      x = add2;
    }
  {
    guint norm = add_op (g, 0.1e-3), head = add_op (g, 8e-3), loss = add_op (g, 0.2e-3);

    add_edge (g, x, norm, 0.2e-3);
    add_edge (g, norm, head, 0.2e-3);
    add_edge (g, head, loss, 1.6e-3);
  }
}

static void
run (const PlxDag *dag, PlxDagMode mode, const char *name)
{
  g_autoptr (PlxDagPartition) kept = NULL;
  double best = G_MAXDOUBLE;

  for (guint round = 0; round < 5; round++)
    {
      g_autoptr (GError) error = NULL;
      gint64 start = g_get_monotonic_time ();
      PlxDagPartition *p = plx_partition_dag (dag, N_PARTS, mode, 0.03, &error);

      g_assert_no_error (error);
      best = MIN (best, (g_get_monotonic_time () - start) / 1e6);
      g_clear_pointer (&kept, plx_dag_partition_free);
      kept = p;
    }
  printf ("  %-8s %7.1f ms (target < 1000)   cut %.1f ms, largest part %.1f ms, "
          "heaviest load %.1f ms, imbalance %.2f %%\n",
          name, best * 1e3, kept->cut_s * 1e3, kept->largest_part_s * 1e3, kept->max_load_s * 1e3,
          kept->imbalance * 100);
}

int
main (int argc, char **argv)
{
  Graph g = {
    g_array_new (FALSE, FALSE, sizeof (double)), g_array_new (FALSE, FALSE, sizeof (guint)),
    g_array_new (FALSE, FALSE, sizeof (guint)), g_array_new (FALSE, FALSE, sizeof (double)),
  };
  PlxDag dag;

  build_training_graph (&g);
  dag = (PlxDag) { g.node_s->len, (double *) (void *) g.node_s->data, NULL,
                   g.src->len, (guint *) (void *) g.src->data, (guint *) (void *) g.dst->data, (double *) (void *) g.cut_s->data };
  printf ("DAG partition: %u ops, %u edges (%u residual blocks), into %u parts, epsilon 3 %%, best of 5:\n",
          dag.n_nodes, dag.n_edges, N_BLOCKS, N_PARTS);
  run (&dag, PLX_DAG_ORDERED, "ordered");
  run (&dag, PLX_DAG_FREE, "free");

  /* The chain DP, bounded (docs/partition.md), on the same ops taken in program order, each cut costing
   * what crosses it; one run. */
  for (guint n = 2500; n <= 10000; n *= 2)
    {
      g_autofree double *cut = g_new0 (double, n);
      guint first[N_PARTS];
      gint64 start;
      double largest;

      for (guint e = 0; e < dag.n_edges; e++)
        for (guint i = dag.edge_src[e]; i < dag.edge_dst[e] && i + 1 < n; i++)
          cut[i] += dag.edge_cut_s[e];
      start = g_get_monotonic_time ();
      largest = plx_partition_chain (dag.node_s, cut, n, N_PARTS, first);
      printf ("chain DP, first %u ops into %u parts: %.1f ms, largest part %.1f ms\n", n, N_PARTS,
              (g_get_monotonic_time () - start) / 1e3, largest * 1e3);
    }

  g_array_unref (g.node_s);
  g_array_unref (g.src);
  g_array_unref (g.dst);
  g_array_unref (g.cut_s);
  return 0;
}
