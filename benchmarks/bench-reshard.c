/* Benchmark: redistribution synthesis (issue 14). First the search time for 3-D
 * arrays on a 3-axis mesh of 512 GPUs (target < 1 ms each; mean of 200 runs, the
 * slowest pair printed). Then, over a fixed set of layout pairs on 8x8 (64 GPUs)
 * and 8x8x8 (512 GPUs) meshes of DGX A100 nodes, the synthesised plan against the
 * XLA-style baseline: predicted time, peak bytes per GPU, and the geometric-mean and
 * largest speed-up. */
#include <math.h>
#include <stdio.h>

#include "parallax/parallax.h"

#define RUNS 200

typedef struct
{
  const char *mesh;
  guint       rank;
  guint64     dim[3];
  const char *from;
  const char *to;
} Case;

/* bf16 weights and activations. Ranks fill a node of 8 GPUs first and the last mesh
 * axis varies fastest, so on 8x8 x spans 8 nodes and y a node; on 8x8x8 x and y span
 * nodes and z a node. */
static const Case cases[] = {
  /* 2-D weights on 8x8: transposed TP/FSDP layouts, merges and splits. */
  { "8x8", 2, { 8192, 28672 }, "[x,y]", "[y,x]" },
  { "8x8", 2, { 8192, 28672 }, "[x,y]", "[-,xy]" },
  { "8x8", 2, { 8192, 28672 }, "[xy,-]", "[yx,-]" },
  { "8x8", 2, { 8192, 28672 }, "[x,-]", "[-,x]" },
  { "8x8", 2, { 8192, 28672 }, "[x,-]", "[y,-]" },
  { "8x8", 2, { 8192, 28672 }, "[x,y]", "[y,-]" },
  { "8x8", 2, { 8192, 28672 }, "[xy,-]", "[-,-]" },
  { "8x8", 2, { 50257, 8192 }, "[x,-]", "[-,y]" },
  /* 3-D activations [batch, sequence, hidden] and stacked weights on 8x8x8. */
  { "8x8x8", 3, { 64, 8192, 8192 }, "[x,y,z]", "[z,y,x]" },
  { "8x8x8", 3, { 64, 8192, 8192 }, "[x,y,z]", "[x,-,yz]" },
  { "8x8x8", 3, { 64, 8192, 8192 }, "[xy,-,z]", "[x,z,y]" },
  { "8x8x8", 3, { 64, 8192, 8192 }, "[x,-,z]", "[z,-,x]" },
  { "8x8x8", 3, { 64, 8192, 8192 }, "[xyz,-,-]", "[-,-,zyx]" },
  { "8x8x8", 3, { 64, 8192, 8192 }, "[x,yz,-]", "[x,-,yz]" },
  { "8x8x8", 3, { 96, 4096, 12288 }, "[x,y,-]", "[-,-,y]" },
  { "8x8x8", 3, { 96, 4096, 12288 }, "[-,z,y]", "[-,y,z]" },
  /* Partial sums: a row-parallel output to sequence parallelism, and over two axes. */
  { "8x8", 2, { 8192, 12288 }, "[x,-]+y", "[xy,-]" },
  { "8x8x8", 3, { 16, 4096, 12288 }, "[x,-,-]+yz", "[x,zy,-]" },
};

static void
parse_case (const Case *c, PlxMesh *m, PlxArrayShape *shape, PlxSharding *src, PlxSharding *tgt)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (plx_mesh_parse (c->mesh, m, &error));
  *shape = (PlxArrayShape) { .rank = c->rank, .elem_bytes = 2 };
  for (guint d = 0; d < c->rank; d++)
    shape->dim[d] = c->dim[d];
  g_assert_true (plx_sharding_parse (c->from, m, c->rank, src, &error));
  g_assert_true (plx_sharding_parse (c->to, m, c->rank, tgt, &error));
}

static char *
steps_text (const PlxReshardPlan *p)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < p->steps->len; i++)
    {
      const PlxReshardStep *st = &g_array_index (p->steps, PlxReshardStep, i);
      g_autofree char *after = plx_sharding_format (&st->after);

      g_string_append_printf (s, "%s%s->%s", i ? ", " : "", plx_reshard_op_name (st->op), after);
    }
  return g_string_free (s, FALSE);
}

int
main (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxCluster) cluster = plx_cluster_new_preset ("dgx-a100-80gb", &error);
  double slowest_us = 0.0, log_sum = 0.0, max_speedup = 0.0;
  const char *slowest = NULL;
  guint n_timed = 0, n_compared = 0;

  g_assert_no_error (error);
  cluster->num_nodes = 64;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      PlxMesh m;
      PlxArrayShape shape;
      PlxSharding src, tgt;
      gint64 start;
      double us;

      if (cases[i].rank != 3 || g_strcmp0 (cases[i].mesh, "8x8x8") != 0)
        continue;
      parse_case (&cases[i], &m, &shape, &src, &tgt);
      start = g_get_monotonic_time ();
      for (guint r = 0; r < RUNS; r++)
        plx_reshard_plan_free (plx_reshard_plan (cluster, &m, &shape, &src, &tgt, NULL));
      us = (double) (g_get_monotonic_time () - start) / RUNS;
      n_timed++;
      if (us > slowest_us)
        {
          slowest_us = us;
          slowest = cases[i].from;
        }
    }
  printf ("Synthesis, 3-D arrays on an 8x8x8 mesh (512 A100), mean of %u runs:\n"
          "  slowest of %u pairs: %.1f us (from %s; target < 1000 us)\n\n",
          RUNS, n_timed, slowest_us, slowest);

  printf ("%-6s %-20s %-10s %-10s %9s %9s %8s %10s %10s  plan\n", "mesh", "shape", "from", "to",
          "plan ms", "XLA ms", "speed-up", "plan MiB", "XLA MiB");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      PlxMesh m;
      PlxArrayShape shape;
      PlxSharding src, tgt;
      g_autoptr (PlxReshardPlan) p = NULL;
      g_autoptr (PlxReshardPlan) b = NULL;
      g_autofree char *shape_text = NULL;
      g_autofree char *steps = NULL;
      double speedup;

      parse_case (&cases[i], &m, &shape, &src, &tgt);
      p = plx_reshard_plan (cluster, &m, &shape, &src, &tgt, &error);
      g_assert_no_error (error);
      b = plx_reshard_plan_baseline (cluster, &m, &shape, &src, &tgt, &error);
      g_assert_no_error (error);
      shape_text = shape.rank == 2
        ? g_strdup_printf ("%" G_GUINT64_FORMAT "x%" G_GUINT64_FORMAT, shape.dim[0], shape.dim[1])
        : g_strdup_printf ("%" G_GUINT64_FORMAT "x%" G_GUINT64_FORMAT "x%" G_GUINT64_FORMAT,
                           shape.dim[0], shape.dim[1], shape.dim[2]);
      steps = steps_text (p);
      speedup = p->time_s > 0.0 ? b->time_s / p->time_s : INFINITY;
      printf ("%-6s %-20s %-10s %-10s %9.3f %9.3f %8.2f %10.1f %10.1f  %s\n", cases[i].mesh, shape_text,
              cases[i].from, cases[i].to, p->time_s * 1e3, b->time_s * 1e3, speedup,
              p->peak_bytes / 1048576.0, b->peak_bytes / 1048576.0, steps);
      if (isfinite (speedup))
        {
          log_sum += log (speedup);
          max_speedup = MAX (max_speedup, speedup);
          n_compared++;
        }
    }
  printf ("\nSpeed-up over the baseline, %u pairs: geometric mean %.2f, largest %.2f\n"
          "(peak = the largest input + output of one step per GPU; the plan's layouts never exceed "
          "max(source, target) shard)\n",
          n_compared, exp (log_sum / n_compared), max_speedup);
  /* Issue 14's whole-model target: GPT-3 175B's checkpoint, TP 8 x PP 8 to TP 4 x PP
   * 16, every block weight and its optimizer state planned: < 100 ms. */
  {
    g_autoptr (GError) err = NULL;
    g_autoptr (PlxModel) gpt3 = plx_model_new_preset ("gpt3-175b", &err);
    g_autoptr (PlxCluster) a100 = plx_cluster_new_preset ("dgx-a100-80gb", &err);
    double best = G_MAXDOUBLE, step = 0.0;
    guint arrays = 0;

    g_assert_no_error (err);
    a100->num_nodes = 8;
    for (guint round = 0; round < 5; round++)
      {
        gint64 t0 = g_get_monotonic_time ();
        g_autoptr (PlxReshardModel) r = plx_reshard_model (gpt3, a100, 8, 8, 4, 16, TRUE, &err);
        g_assert_no_error (err);
        best = MIN (best, (g_get_monotonic_time () - t0) / 1e3);
        step = r->time_s;
        arrays = r->moved_arrays;
      }
    printf ("\nWhole model, GPT-3 175B TP 8 x PP 8 -> TP 4 x PP 16, %u arrays (weights, fp32 copies, Adam "
            "moments): planned in %.2f ms (best of 5; target < 100 ms), the redistribution %.1f ms\n", arrays, best,
            step * 1e3);
  }
  return 0;
}
