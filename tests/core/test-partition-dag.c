/* DAG partitioning (issue 13): cases worked out by hand, every assignment of small
 * random DAGs, properties of large ones, and the errors of bad input. */
#include <math.h>
#include <string.h>

#include "parallax/parallax.h"
#include "ir/plx-partition-dag.h"
#include "ir/plx-partition.h"

/* The cut of an assignment, from the definition: every edge whose ends are in
 * different parts, once. */
static double
cut_of (const PlxDag *dag, const guint *part)
{
  double cut = 0.0;

  for (guint e = 0; e < dag->n_edges; e++)
    if (part[dag->edge_src[e]] != part[dag->edge_dst[e]])
      cut += dag->edge_cut_s[e];
  return cut;
}

/* The balance bound as docs/partition.md states it: max((1 + eps) W / k, W / k + the
 * heaviest node). */
static double
bound_of (const PlxDag *dag, guint parts, double epsilon)
{
  double total = 0.0, heaviest = 0.0;

  for (guint v = 0; v < dag->n_nodes; v++)
    {
      total += dag->node_s[v];
      heaviest = MAX (heaviest, dag->node_s[v]);
    }
  return MAX ((1 + epsilon) * total / parts, total / parts + heaviest);
}

/* Whether `part` is a partition the partitioner may return: parts in range and
 * non-empty, loads within the bound (1e-9 relative: loads summed in another order
 * round differently), and in ORDERED mode no edge going back. */
static gboolean
admissible (const PlxDag *dag, const guint *part, guint parts, PlxDagMode mode, double bound)
{
  double load[64] = { 0 };
  guint count[64] = { 0 };

  g_assert_cmpuint (parts, <=, 64);
  for (guint v = 0; v < dag->n_nodes; v++)
    {
      if (part[v] >= parts)
        return FALSE;
      load[part[v]] += dag->node_s[v];
      count[part[v]]++;
    }
  for (guint p = 0; p < parts; p++)
    if (count[p] == 0 || load[p] > bound * (1 + 1e-9))
      return FALSE;
  if (mode == PLX_DAG_ORDERED)
    for (guint e = 0; e < dag->n_edges; e++)
      if (part[dag->edge_src[e]] > part[dag->edge_dst[e]])
        return FALSE;
  return TRUE;
}

static PlxDagPartition *
partition (const PlxDag *dag, guint parts, PlxDagMode mode, double epsilon)
{
  g_autoptr (GError) error = NULL;
  PlxDagPartition *p = plx_partition_dag (dag, parts, mode, epsilon, &error);

  g_assert_no_error (error);
  g_assert_nonnull (p);
  return p;
}

static void
test_two_clusters (void)
{
  /* Nodes 0-3 and 4-7 each joined all to all by edges costing 5, the clusters by one
   * edge 3 -> 4 costing 1; unit nodes, 2 parts. Bound: max(1.03 x 4, 4 + 1) = 5, so
   * {0-3} | {4-7} is admissible and cuts 1; any other split with both parts
   * non-empty separates two nodes of a cluster and cuts at least 5 x 3 (a node of a
   * 4-clique has 3 edges inside it). Each part's time: 4 + 1 = 5. The order 0..7 is
   * topological and the split monotone, so both modes find it. */
  double w[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
  guint src[13], dst[13];
  double c[13];
  guint m = 0;
  PlxDag dag;

  for (guint base = 0; base <= 4; base += 4)
    for (guint a = 0; a < 4; a++)
      for (guint b = a + 1; b < 4; b++)
        {
          src[m] = base + a, dst[m] = base + b, c[m] = 5;
          m++;
        }
  src[m] = 3, dst[m] = 4, c[m] = 1;
  m++;
  dag = (PlxDag) { 8, w, NULL, m, src, dst, c };
  for (PlxDagMode mode = PLX_DAG_ORDERED; mode <= PLX_DAG_FREE; mode++)
    {
      g_autoptr (PlxDagPartition) p = partition (&dag, 2, mode, 0.03);

      g_assert_cmpfloat (p->cut_s, ==, 1.0);
      g_assert_cmpfloat (p->largest_part_s, ==, 5.0);
      for (guint v = 1; v < 8; v++)
        g_assert_cmpuint (p->part[v] == p->part[0], ==, v < 4);
      if (mode == PLX_DAG_ORDERED)
        g_assert_cmpuint (p->part[0], ==, 0);
    }
}

static void
test_chain (void)
{
  /* A chain of six unit nodes whose cuts cost 5, 5, 1, 5, 5, into 2 parts. Bound:
   * max(1.03 x 3, 3 + 1) = 4. The least cut is 1, after node 2 (3 | 3); the chain DP
   * (least largest part) splits there too: 3 + 1 = 4 against 2 + 5 = 7 (or worse)
   * for every other split. So the DAG split equals plx_partition_chain's. */
  const double w[6] = { 1, 1, 1, 1, 1, 1 }, c[5] = { 5, 5, 1, 5, 5 };
  const guint src[5] = { 0, 1, 2, 3, 4 }, dst[5] = { 1, 2, 3, 4, 5 };
  PlxDag dag = { 6, w, NULL, 5, src, dst, c };
  guint first[2];
  double chain = plx_partition_chain (w, c, 6, 2, first);

  g_assert_cmpfloat (chain, ==, 4.0);
  g_assert_cmpuint (first[1], ==, 3);
  for (PlxDagMode mode = PLX_DAG_ORDERED; mode <= PLX_DAG_FREE; mode++)
    {
      g_autoptr (PlxDagPartition) p = partition (&dag, 2, mode, 0.03);

      g_assert_cmpfloat (p->cut_s, ==, 1.0);
      g_assert_cmpfloat (p->largest_part_s, ==, chain);
      for (guint v = 0; v < 6; v++)
        g_assert_cmpuint (p->part[v] == p->part[0], ==, v < first[1]);
    }
}

static void
test_chain_times (void)
{
  /* On a chain the time of each part of a contiguous split is the chain's
   * (plx_partition_part_time): 300 random chains and splits. */
  g_autoptr (GRand) rand = g_rand_new_with_seed (1906);

  for (guint r = 0; r < 300; r++)
    {
      guint n = (guint) g_rand_int_range (rand, 1, 30), parts = (guint) g_rand_int_range (rand, 1, (gint) n + 1);
      double w[30], c[29];
      guint src[29], dst[29], part[30], first[31];
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxDagPartition) p = NULL;
      PlxDag dag;

      for (guint i = 0; i < n; i++)
        w[i] = g_rand_double (rand);
      for (guint i = 0; i + 1 < n; i++)
        {
          c[i] = g_rand_double (rand);
          src[i] = i, dst[i] = i + 1;
        }
      /* parts distinct starts after 0, drawn by a partial shuffle of 1 .. n-1 */
      {
        guint pool[30], k = 0;
        for (guint i = 1; i < n; i++)
          pool[k++] = i;
        first[0] = 0;
        for (guint q = 1; q < parts; q++)
          {
            guint pick = (guint) g_rand_int_range (rand, (gint) q - 1, (gint) k);
            guint t = pool[q - 1];
            pool[q - 1] = pool[pick];
            pool[pick] = t;
          }
        for (guint q = 1; q < parts; q++)
          first[q] = pool[q - 1];
        for (guint a = 1; a < parts; a++)
          for (guint b = a + 1; b < parts; b++)
            if (first[b] < first[a])
              {
                guint t = first[a];
                first[a] = first[b];
                first[b] = t;
              }
        first[parts] = n;
      }
      for (guint q = 0; q < parts; q++)
        for (guint i = first[q]; i < first[q + 1]; i++)
          part[i] = q;
      dag = (PlxDag) { n, w, NULL, n - 1, src, dst, c };
      p = plx_partition_dag_evaluate (&dag, part, parts, &error);
      g_assert_no_error (error);
      for (guint q = 0; q < parts; q++)
        g_assert_cmpfloat_with_epsilon (p->time_s[q], plx_partition_part_time (w, c, n, first[q], first[q + 1] - 1),
                                        1e-12);
    }
}

static void
test_free_beats_ordered (void)
{
  /* The chain 0 -> 1 -> 2 -> 3 (edges 1, 10, 1) with an edge 0 -> 3 costing 10, unit
   * nodes, 2 parts, bound max(1.03 x 2, 2 + 1) = 3.
   * ORDERED: part 0 must be closed under predecessors, so a prefix of the chain:
   * {0} | {1,2,3} cuts 1 + 10 = 11, {0,1} | {2,3} cuts 10 + 10 = 20, {0,1,2} | {3}
   * cuts 1 + 10 = 11: the best is 11.
   * FREE: {0,3} | {1,2} cuts 1 + 1 = 2 and is the best (parting 0 from 3 or 1 from 2
   * costs 10 alone). */
  const double w[4] = { 1, 1, 1, 1 }, c[4] = { 1, 10, 1, 10 };
  const guint src[4] = { 0, 1, 2, 0 }, dst[4] = { 1, 2, 3, 3 };
  PlxDag dag = { 4, w, NULL, 4, src, dst, c };
  g_autoptr (PlxDagPartition) ordered = partition (&dag, 2, PLX_DAG_ORDERED, 0.03);
  g_autoptr (PlxDagPartition) free_ = partition (&dag, 2, PLX_DAG_FREE, 0.03);

  g_assert_cmpfloat (ordered->cut_s, ==, 11.0);
  g_assert_cmpfloat (free_->cut_s, ==, 2.0);
  g_assert_cmpuint (free_->part[0], ==, free_->part[3]);
  g_assert_cmpuint (free_->part[1], ==, free_->part[2]);
  g_assert_cmpuint (free_->part[0], !=, free_->part[1]);
}

static void
test_extremes (void)
{
  /* One part: everything in it, nothing cut, its time the total (1 + 2 + 3 = 6).
   * As many parts as nodes on a chain in ORDERED mode: node i in part i, every edge
   * cut (1 + 1 = 2); the middle part's time is 2 + 1 + 1 = 4. */
  const double w[3] = { 1, 2, 3 }, c[2] = { 1, 1 };
  const guint src[2] = { 0, 1 }, dst[2] = { 1, 2 };
  PlxDag dag = { 3, w, NULL, 2, src, dst, c };
  g_autoptr (PlxDagPartition) one = partition (&dag, 1, PLX_DAG_ORDERED, 0.0);
  g_autoptr (PlxDagPartition) all = partition (&dag, 3, PLX_DAG_ORDERED, 0.0);

  g_assert_cmpfloat (one->cut_s, ==, 0.0);
  g_assert_cmpfloat (one->largest_part_s, ==, 6.0);
  for (guint v = 0; v < 3; v++)
    {
      g_assert_cmpuint (one->part[v], ==, 0);
      g_assert_cmpuint (all->part[v], ==, v);
    }
  g_assert_cmpfloat (all->cut_s, ==, 2.0);
  g_assert_cmpfloat (all->time_s[1], ==, 4.0);
}

/* A random DAG: each node takes each earlier node as a predecessor with probability
 * `density`; times and costs uniform in (0.1, 1) and [0, 1). */
static PlxDag
random_dag (GRand *rand, guint n, double density, double *w, guint *src, guint *dst, double *c)
{
  guint m = 0;

  for (guint v = 0; v < n; v++)
    {
      w[v] = g_rand_double_range (rand, 0.1, 1.0);
      for (guint u = 0; u < v; u++)
        if (g_rand_double (rand) < density)
          {
            src[m] = u, dst[m] = v, c[m] = g_rand_double (rand);
            m++;
          }
    }
  return (PlxDag) { n, w, NULL, m, src, dst, c };
}

/* The least cut over every admissible assignment (k^n of them). */
static double
brute_force (const PlxDag *dag, guint parts, PlxDagMode mode, double bound)
{
  guint part[10] = { 0 };
  double best = INFINITY;

  for (;;)
    {
      guint i = 0;

      if (admissible (dag, part, parts, mode, bound))
        best = MIN (best, cut_of (dag, part));
      while (i < dag->n_nodes && ++part[i] == parts)
        part[i++] = 0;
      if (i == dag->n_nodes)
        return best;
    }
}

static void
test_brute_force (void)
{
  /* 1000 random DAGs of 2 to 10 nodes, 1 to 3 parts, both modes, epsilon 0.1: the
   * partition is admissible, its cut is what it says and no less than the least
   * over every assignment (k^n of them). What we hold the heuristic to: never more
   * than 25 % above the least cut (so exactly 0 when a zero cut exists), and the
   * least cut itself in at least 99 % of the runs. (When written: 1996 of 2000
   * runs found the least cut, every FREE run; the worst was 17 % above it, in
   * ORDERED mode, where single-node moves meet more walls.) */
  g_autoptr (GRand) rand = g_rand_new_with_seed (20190621);
  guint optimal = 0, runs = 0;

  for (guint r = 0; r < 1000; r++)
    {
      guint n = (guint) g_rand_int_range (rand, 2, 11);
      guint parts = (guint) g_rand_int_range (rand, 1, (gint) MIN (n, 3u) + 1);
      double w[10], c[45], density = g_rand_double_range (rand, 0.1, 0.6);
      guint src[45], dst[45];
      PlxDag dag = random_dag (rand, n, density, w, src, dst, c);
      double bound = bound_of (&dag, parts, 0.1);

      for (PlxDagMode mode = PLX_DAG_ORDERED; mode <= PLX_DAG_FREE; mode++)
        {
          g_autoptr (PlxDagPartition) p = partition (&dag, parts, mode, 0.1);
          double best = brute_force (&dag, parts, mode, bound);

          g_assert_true (admissible (&dag, p->part, parts, mode, bound));
          g_assert_cmpfloat_with_epsilon (p->cut_s, cut_of (&dag, p->part), 1e-12);
          g_assert_cmpfloat (p->cut_s, >=, best - 1e-12);
          g_assert_cmpfloat (p->cut_s, <=, 1.25 * best + 1e-12);
          runs++;
          if (p->cut_s <= best + 1e-12)
            optimal++;
          else
            g_test_message ("n %u, %u parts, mode %d: cut %g, least %g", n, parts, mode, p->cut_s, best);
        }
    }
  g_test_message ("the least cut in %u of %u runs", optimal, runs);
  g_assert_cmpuint (100 * optimal, >=, 99 * runs);
}

/* A DAG shaped like a long program: node v reads 1 to 3 of the 20 nodes before it
 * and, one time in ten, one anywhere earlier (a skip connection); one node in 50
 * reads nothing. Times in (0.1, 1), costs in [0, 1). */
static PlxDag
program_dag (GRand *rand, guint n, double *w, guint *src, guint *dst, double *c)
{
  guint m = 0;

  for (guint v = 0; v < n; v++)
    {
      guint reads = v == 0 || g_rand_int_range (rand, 0, 50) == 0 ? 0 : (guint) g_rand_int_range (rand, 1, 4);

      w[v] = g_rand_double_range (rand, 0.1, 1.0);
      for (guint r = 0; r < reads; r++)
        {
          guint u = g_rand_int_range (rand, 0, 10) == 0 ? (guint) g_rand_int_range (rand, 0, (gint) v)
                                                         : v - 1 - (guint) g_rand_int_range (rand, 0, (gint) MIN (v, 20u));
          src[m] = u, dst[m] = v, c[m] = g_rand_double (rand);
          m++;
        }
    }
  return (PlxDag) { n, w, NULL, m, src, dst, c };
}

static void
test_properties (void)
{
  /* Random program-like DAGs of 3000 nodes, 2 to 64 parts, both modes, epsilon 0.03
   * and 0: every node in one part in range, no part empty, every load within the
   * bound, no edge going back in ORDERED mode; the reported cut, loads and times are
   * the ones recomputed from the assignment; the same input gives the same
   * assignment; the cut is below that of the plain split into contiguous runs of
   * equal time (what the partitioner has to beat), and FREE cuts no more than
   * ORDERED (it starts from the ORDERED result too). */
  g_autoptr (GRand) rand = g_rand_new_with_seed (1998);
  const guint n = 3000, parts_of[] = { 2, 5, 16, 64 };
  g_autofree double *w = g_new (double, n);
  g_autofree double *c = g_new (double, 3 * n);
  g_autofree guint *src = g_new (guint, 3 * n);
  g_autofree guint *dst = g_new (guint, 3 * n);
  g_autofree guint *plain = g_new (guint, n);

  for (guint r = 0; r < 4; r++)
    {
      PlxDag dag = program_dag (rand, n, w, src, dst, c);
      guint parts = parts_of[r];
      double total = 0.0, before = 0.0, ordered_cut[2] = { 0 };

      for (guint v = 0; v < n; v++)
        total += w[v];
      for (guint v = 0; v < n; v++)
        {
          /* the part holding the middle of node v's time */
          plain[v] = MIN ((guint) ((before + w[v] / 2) / (total / parts)), parts - 1);
          before += w[v];
        }
      for (PlxDagMode mode = PLX_DAG_ORDERED; mode <= PLX_DAG_FREE; mode++)
        for (guint z = 0; z < 2; z++)
          {
            double epsilon = z == 0 ? 0.03 : 0.0, bound = bound_of (&dag, parts, epsilon);
            g_autoptr (PlxDagPartition) p = partition (&dag, parts, mode, epsilon);
            g_autoptr (PlxDagPartition) again = partition (&dag, parts, mode, epsilon);
            g_autofree double *load = g_new0 (double, parts);
            g_autofree double *time = g_new0 (double, parts);
            double largest = 0.0;

            g_assert_true (admissible (&dag, p->part, parts, mode, bound));
            g_assert_cmpmem (p->part, n * sizeof (guint), again->part, n * sizeof (guint));
            g_assert_cmpfloat_with_epsilon (p->cut_s, cut_of (&dag, p->part), 1e-9);
            g_assert_cmpfloat (p->cut_s, <, cut_of (&dag, plain));
            if (mode == PLX_DAG_ORDERED)
              ordered_cut[z] = p->cut_s;
            else
              g_assert_cmpfloat (p->cut_s, <=, ordered_cut[z]);
            for (guint v = 0; v < n; v++)
              load[p->part[v]] += w[v];
            for (guint q = 0; q < parts; q++)
              time[q] = load[q];
            for (guint e = 0; e < dag.n_edges; e++)
              if (p->part[src[e]] != p->part[dst[e]])
                {
                  time[p->part[src[e]]] += c[e];
                  time[p->part[dst[e]]] += c[e];
                }
            for (guint q = 0; q < parts; q++)
              {
                g_assert_cmpfloat_with_epsilon (p->load_s[q], load[q], 1e-9);
                g_assert_cmpfloat_with_epsilon (p->time_s[q], time[q], 1e-9);
                largest = MAX (largest, time[q]);
              }
            g_assert_cmpfloat_with_epsilon (p->largest_part_s, largest, 1e-9);
          }
    }
}

static void
expect_error (const PlxDag *dag, guint parts, double epsilon, const char *words)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxDagPartition) p = plx_partition_dag (dag, parts, PLX_DAG_ORDERED, epsilon, &error);

  g_assert_null (p);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  if (strstr (error->message, words) == NULL)
    g_error ("expected \"%s\" in: %s", words, error->message);
}

static void
test_bad_input (void)
{
  double w[3] = { 1, 1, 1 }, c[2] = { 1, 1 };
  guint src[2] = { 0, 1 }, dst[2] = { 1, 2 };
  PlxDag dag = { 3, w, NULL, 2, src, dst, c };
  guint part[3] = { 0, 0, 4 };

  expect_error (&dag, 0, 0.03, "parts is 0");
  expect_error (&dag, 5, 0.03, "5 parts for 3 nodes");
  expect_error (&dag, 2, -0.1, "epsilon (the load imbalance allowed) is -0.1");
  expect_error (&dag, 2, NAN, "epsilon (the load imbalance allowed) is nan");
  w[1] = -1;
  expect_error (&dag, 2, 0.03, "node 1 takes -1 s");
  w[1] = NAN;
  expect_error (&dag, 2, 0.03, "node 1 takes nan s");
  w[1] = 1;
  c[1] = INFINITY;
  expect_error (&dag, 2, 0.03, "edge 1 (node 1 to 2) costs inf s");
  c[1] = 1;
  src[1] = 2, dst[1] = 1;
  expect_error (&dag, 2, 0.03, "edge 1 goes from node 2 to node 1");
  src[1] = 1;
  expect_error (&dag, 2, 0.03, "edge 1 goes from node 1 to node 1");
  dst[1] = 7;
  expect_error (&dag, 2, 0.03, "edge 1 joins node 1 to node 7, but the nodes are 0 .. 2");
  dst[1] = 2;
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (PlxDagPartition) p = plx_partition_dag_evaluate (&dag, part, 2, &error);

    g_assert_null (p);
    g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
    g_assert_nonnull (strstr (error->message, "node 2 is in part 4, but the parts are 0 .. 1"));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/partition-dag/two-clusters", test_two_clusters);
  g_test_add_func ("/partition-dag/chain", test_chain);
  g_test_add_func ("/partition-dag/chain-times", test_chain_times);
  g_test_add_func ("/partition-dag/free-beats-ordered", test_free_beats_ordered);
  g_test_add_func ("/partition-dag/extremes", test_extremes);
  g_test_add_func ("/partition-dag/brute-force", test_brute_force);
  g_test_add_func ("/partition-dag/properties", test_properties);
  g_test_add_func ("/partition-dag/bad-input", test_bad_input);
  return g_test_run ();
}
