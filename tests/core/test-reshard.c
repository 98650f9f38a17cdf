/* Redistribution (issue 14): the layout notation, plans costed by hand on an ideal
 * cluster, padding, bad input, and 10,000 random redistributions run through the
 * SPMD executor with the memory bound checked at every step. */
#include <string.h>

#include "parallax/parallax.h"
#include "test-home.h"

#include "test-util.h"

/* About 1 s optimised: small enough to run whole under AddressSanitizer too. */
#define RANDOM_CASES 10000u

static PlxCluster *
ideal_cluster (guint nodes)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *json = NULL;
  g_autoptr (JsonNode) node = NULL;
  PlxCluster *c;

  /* 100 GB/s in a node, 25 GB/s between, no latency, efficiency 1. */
  json = g_strdup_printf (TEST_IDEAL_CLUSTER (%u, 100e9, 25e9), nodes);
  node = plx_json_parse_data (json, -1, "test", &error);
  g_assert_no_error (error);
  c = plx_cluster_new_from_json (node, "test", &error);
  g_assert_no_error (error);
  return c;
}

static PlxMesh
mesh_of (const char *text)
{
  g_autoptr (GError) error = NULL;
  PlxMesh m;

  g_assert_true (plx_mesh_parse (text, &m, &error));
  g_assert_no_error (error);
  return m;
}

static PlxSharding
sharding_of (const char *text, const PlxMesh *mesh, guint rank)
{
  g_autoptr (GError) error = NULL;
  PlxSharding s;

  g_assert_true (plx_sharding_parse (text, mesh, rank, &s, &error));
  g_assert_no_error (error);
  return s;
}

static void
test_notation (void)
{
  PlxMesh m = mesh_of ("8x4");
  PlxSharding s;
  g_autofree char *mesh_text = plx_mesh_format (&m);
  g_autofree char *text = NULL;

  g_assert_cmpuint (m.n_axes, ==, 2);
  g_assert_cmpuint (m.size[0], ==, 8);
  g_assert_cmpuint (m.size[1], ==, 4);
  g_assert_cmpuint (plx_mesh_n_devices (&m), ==, 32);
  g_assert_cmpstr (mesh_text, ==, "8x4");

  /* "[yx,-]": dim 0 over y then x (8 x 4 = 32 shards), dim 1 whole. */
  s = sharding_of ("[yx,-]", &m, 2);
  g_assert_cmpuint (s.n_axes[0], ==, 2);
  g_assert_cmpuint (s.axes[0][0], ==, 1);
  g_assert_cmpuint (s.axes[0][1], ==, 0);
  g_assert_cmpuint (s.n_axes[1], ==, 0);
  g_assert_cmpuint (plx_sharding_dim_shards (&s, &m, 0), ==, 32);
  g_assert_cmpuint (plx_sharding_dim_shards (&s, &m, 1), ==, 1);
  text = plx_sharding_format (&s);
  g_assert_cmpstr (text, ==, "[yx,-]");
}

static void
expect_mesh_error (const char *text, gint code, const char *fragment)
{
  g_autoptr (GError) error = NULL;
  PlxMesh m;

  g_assert_false (plx_mesh_parse (text, &m, &error));
  g_assert_error (error, PLX_ERROR, code);
  g_assert_nonnull (strstr (error->message, fragment));
}

static void
expect_sharding_error (const char *text, guint rank, gint code, const char *fragment)
{
  g_autoptr (GError) error = NULL;
  PlxMesh m = mesh_of ("2x2");
  PlxSharding s;

  g_assert_false (plx_sharding_parse (text, &m, rank, &s, &error));
  g_assert_error (error, PLX_ERROR, code);
  g_assert_nonnull (strstr (error->message, fragment));
}

static void
test_notation_errors (void)
{
  expect_mesh_error ("", PLX_ERROR_PARSE, "empty");
  expect_mesh_error ("8x0", PLX_ERROR_INVALID_VALUE, "'0'");
  expect_mesh_error ("8x-2", PLX_ERROR_INVALID_VALUE, "'-2'");
  expect_mesh_error ("2x2x2x2", PLX_ERROR_INVALID_VALUE, "4 axes");
  expect_mesh_error ("99999999999", PLX_ERROR_INVALID_VALUE, "'99999999999'");
  expect_sharding_error ("x,y", 2, PLX_ERROR_PARSE, "'x,y'");
  expect_sharding_error ("[x,x]", 2, PLX_ERROR_INCONSISTENT, "axis x is used twice");
  expect_sharding_error ("[z,-]", 2, PLX_ERROR_INVALID_VALUE, "'z' in dimension 0");
  expect_sharding_error ("[x]", 2, PLX_ERROR_INCONSISTENT, "1 entries for an array of rank 2");
  expect_sharding_error ("[x,]", 2, PLX_ERROR_PARSE, "dimension 1 is empty");
  expect_sharding_error ("[x]", 0, PLX_ERROR_INVALID_VALUE, "rank 0");
}

static PlxReshardPlan *
plan_of (const PlxCluster *c, const char *mesh_text, const PlxArrayShape *shape,
         const char *from, const char *to, gboolean baseline)
{
  g_autoptr (GError) error = NULL;
  PlxMesh m = mesh_of (mesh_text);
  PlxSharding src = sharding_of (from, &m, shape->rank);
  PlxSharding tgt = sharding_of (to, &m, shape->rank);
  PlxReshardPlan *p = baseline ? plx_reshard_plan_baseline (c, &m, shape, &src, &tgt, &error)
                               : plx_reshard_plan (c, &m, shape, &src, &tgt, &error);

  g_assert_no_error (error);
  g_assert_true (plx_reshard_verify (p, &error));
  g_assert_no_error (error);
  return p;
}

static void
test_all_to_all_by_hand (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (1);
  PlxArrayShape shape = { .rank = 2, .dim = { 1024, 1024 }, .elem_bytes = 4 };
  g_autoptr (PlxReshardPlan) p = plan_of (c, "8", &shape, "[x,-]", "[-,x]", FALSE);
  const PlxReshardStep *st;
  /* Each GPU holds 1024 x 128 x 4 B = 524288 B and sends 7/8 of it over NVLink at
   * 100 GB/s: 7/8 * 524288 / 100e9 s. Memory stays at one shard, so the bound is
   * 524288 and the peak is input plus output, 2 x 524288. */
  double want = 7.0 / 8.0 * 524288.0 / 100e9;

  g_assert_cmpuint (p->steps->len, ==, 1);
  st = &g_array_index (p->steps, PlxReshardStep, 0);
  g_assert_cmpint (st->op, ==, PLX_RESHARD_ALL_TO_ALL);
  g_assert_cmpfloat_with_epsilon (p->time_s, want, want * 1e-12);
  g_assert_cmpfloat (p->bound_bytes, ==, 524288.0);
  g_assert_cmpfloat (p->peak_bytes, ==, 2.0 * 524288.0);
}

static void
test_gather_by_hand (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (1);
  PlxArrayShape shape = { .rank = 1, .dim = { 1 << 20 }, .elem_bytes = 2 };
  /* One axis of 8 in a node: the one way is one all-gather of the 2 MiB output,
   * (p-1)/p * 2097152 / 100 GB/s. */
  g_autoptr (PlxReshardPlan) p = plan_of (c, "8", &shape, "[x]", "[-]", FALSE);
  double want = 7.0 / 8.0 * 2097152.0 / 100e9;

  g_assert_cmpuint (p->steps->len, ==, 1);
  g_assert_cmpint (g_array_index (p->steps, PlxReshardStep, 0).op, ==, PLX_RESHARD_ALL_GATHER);
  g_assert_cmpfloat_with_epsilon (p->time_s, want, want * 1e-12);
}

static void
test_gather_across_nodes_by_hand (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (2);
  PlxArrayShape shape = { .rank = 1, .dim = { 1 << 20 }, .elem_bytes = 2 };
  g_autoptr (PlxReshardPlan) p = plan_of (c, "2x8", &shape, "[x]", "[-]", FALSE);
  g_autoptr (PlxReshardPlan) b = plan_of (c, "2x8", &shape, "[x]", "[-]", TRUE);
  static const PlxReshardOp ops[] = { PLX_RESHARD_SLICE, PLX_RESHARD_PERMUTE,
                                      PLX_RESHARD_ALL_GATHER, PLX_RESHARD_ALL_GATHER };
  /* Mesh 2x8: x spans the two nodes (one GPU per node on it, 25 GB/s), y a node.
   * Gathering x at once moves half the 2 MiB array per GPU between nodes:
   *   0.5 * 2097152 / 25e9 = 41.94 us.
   * Cheaper: slice the local 1 MiB over y too ([xy], 128 KiB each, free), permute to
   * [yx] (each GPU sends its 131072 B, the pairs cross nodes: 131072 / 25e9),
   * gather x (output 262144 B over two nodes: 0.5 * 262144 / 25e9) and then y in the
   * node (output 2097152 B: 7/8 * 2097152 / 100e9). Total
   *   (131072 + 131072) / 25e9 + 1835008 / 100e9 = 28.84 us. */
  double want = 262144.0 / 25e9 + 1835008.0 / 100e9;
  double base = 0.5 * 2097152.0 / 25e9;

  g_assert_cmpuint (p->steps->len, ==, G_N_ELEMENTS (ops));
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    g_assert_cmpint (g_array_index (p->steps, PlxReshardStep, i).op, ==, ops[i]);
  g_assert_cmpfloat_with_epsilon (p->time_s, want, want * 1e-12);
  g_assert_cmpfloat_with_epsilon (b->time_s, base, base * 1e-12);
}

static void
test_groups_across_a_node_boundary (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (2);
  PlxArrayShape shape = { .rank = 1, .dim = { 1200 }, .elem_bytes = 2 };
  /* A 4x3 mesh on nodes of 8: y's groups are {0,1,2}, {3,4,5}, {6,7,8}, {9,10,11},
   * and {6,7,8} spans two nodes, two of it in the first. Gathering y (output 2400 B)
   * takes that group's time: a ring leaving the node gets its members' two NICs,
   * 2 x 25 GB/s, narrower than NVLink's 100 (plx-collective.c), so
   * 2/3 x 2400 / 50e9 s, twice the in-node group's 2/3 x 2400 / 100e9. */
  g_autoptr (PlxReshardPlan) p = plan_of (c, "4x3", &shape, "[y]", "[-]", FALSE);
  double want = 2.0 / 3.0 * 2400.0 / 50e9;

  g_assert_cmpuint (p->steps->len, ==, 1);
  g_assert_cmpfloat_with_epsilon (p->time_s, want, want * 1e-12);
}

static void
test_slice_is_free (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (1);
  PlxArrayShape shape = { .rank = 2, .dim = { 64, 64 }, .elem_bytes = 4 };
  g_autoptr (PlxReshardPlan) p = plan_of (c, "2x4", &shape, "[-,-]", "[y,x]", FALSE);

  /* Replicated to split: two local slices, no communication. */
  g_assert_cmpuint (p->steps->len, ==, 2);
  g_assert_cmpfloat (p->time_s, ==, 0.0);
  for (guint i = 0; i < p->steps->len; i++)
    g_assert_cmpint (g_array_index (p->steps, PlxReshardStep, i).op, ==, PLX_RESHARD_SLICE);
}

static void
test_swap_beats_baseline (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (1);
  PlxArrayShape shape = { .rank = 2, .dim = { 256, 256 }, .elem_bytes = 4 };
  g_autoptr (PlxReshardPlan) p = plan_of (c, "2x4", &shape, "[x,y]", "[y,x]", FALSE);
  g_autoptr (PlxReshardPlan) b = plan_of (c, "2x4", &shape, "[x,y]", "[y,x]", TRUE);

  /* The baseline gathers the whole 256 KiB array on every GPU: its peak is the last
   * gather's input (64 KiB) plus output (256 KiB); the synthesised plan never holds
   * more than one 32 KiB shard in and one out. */
  g_assert_cmpfloat (b->peak_bytes, ==, 65536.0 + 262144.0);
  g_assert_cmpfloat (p->bound_bytes, ==, 32768.0);
  g_assert_cmpfloat (p->peak_bytes, <=, 2.0 * 32768.0);
  g_assert_cmpfloat (p->time_s, <, b->time_s);
}

static void
test_padding (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (2);
  PlxArrayShape shape = { .rank = 2, .dim = { 5, 3 }, .elem_bytes = 4 };
  g_autoptr (PlxReshardPlan) p = plan_of (c, "4x3", &shape, "[x,-]", "[-,xy]", FALSE);

  /* Dim 0: split over x (4) at the source: 5 -> 8. Dim 1: over x and y (12) at the
   * target: 3 -> 12. Source shard 2 x 12 x 4 B = 96 B, target 8 x 1 x 4 B = 32 B. */
  g_assert_cmpuint (p->padded[0], ==, 8);
  g_assert_cmpuint (p->padded[1], ==, 12);
  g_assert_cmpfloat (plx_reshard_shard_bytes (p, &p->source), ==, 96.0);
  g_assert_cmpfloat (plx_reshard_shard_bytes (p, &p->target), ==, 32.0);
  g_assert_cmpfloat (p->bound_bytes, ==, 96.0);
}

static void
test_partial_notation (void)
{
  PlxMesh m = mesh_of ("2x4");
  PlxSharding s = sharding_of ("[x,-]+y", &m, 2);
  g_autofree char *text = plx_sharding_format (&s);

  g_assert_cmpuint (s.partial, ==, 1u << 1);
  g_assert_cmpstr (text, ==, "[x,-]+y");
  expect_sharding_error ("[x,-]+x", 2, PLX_ERROR_INCONSISTENT, "axis x is used twice");
  expect_sharding_error ("[x,-]+", 2, PLX_ERROR_PARSE, "names no axis");
  expect_sharding_error ("[x,-]+z", 2, PLX_ERROR_INVALID_VALUE, "'z' after +");
  expect_sharding_error ("[x,-]y", 2, PLX_ERROR_PARSE, "'[x,-]y'");
  expect_sharding_error ("[x,[-]]", 2, PLX_ERROR_PARSE, "one pair of brackets");
}

static void
test_reduce_scatter_by_hand (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (1);
  g_autoptr (GError) error = NULL;
  /* A row-parallel matmul's output on 8 GPUs, each a partial sum of the whole
   * [4096, 12288] bf16 activation (100,663,296 B), wanted split along the sequence
   * (Megatron's sequence parallelism, Korthikanti et al. 2022 §4.2.2): one
   * reduce-scatter, the ring's (p-1)/p of its input, 7/8 x 100663296 / 100 GB/s.
   * Peak: the whole input and its 1/8 out. */
  PlxArrayShape shape = { .rank = 2, .dim = { 4096, 12288 }, .elem_bytes = 2 };
  PlxArrayShape small = { .rank = 2, .dim = { 16, 12 }, .elem_bytes = 2 };
  g_autoptr (PlxReshardPlan) p = plan_of (c, "8", &small, "[-,-]+x", "[x,-]", FALSE);
  g_autoptr (PlxReshardPlan) b = plan_of (c, "8", &small, "[-,-]+x", "[x,-]", TRUE);
  g_autoptr (PlxReshardPlan) big = NULL;
  g_autoptr (PlxReshardPlan) ar = NULL;
  PlxMesh m = mesh_of ("8");
  PlxSharding src = sharding_of ("[-,-]+x", &m, 2), seq = sharding_of ("[x,-]", &m, 2);
  PlxSharding whole = sharding_of ("[-,-]", &m, 2), other = sharding_of ("[-,-]+x", &m, 2);
  double bytes = 4096.0 * 12288.0 * 2.0, want = 7.0 / 8.0 * bytes / 100e9;

  /* The executor ran both on a small array (plan_of); here the large one's cost. */
  g_assert_cmpuint (p->steps->len, ==, 1);
  g_assert_cmpint (g_array_index (p->steps, PlxReshardStep, 0).op, ==, PLX_RESHARD_REDUCE_SCATTER);
  g_assert_cmpuint (b->steps->len, ==, 1);
  g_assert_cmpint (g_array_index (b->steps, PlxReshardStep, 0).op, ==, PLX_RESHARD_REDUCE_SCATTER);
  big = plx_reshard_plan (c, &m, &shape, &src, &seq, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (big->time_s, want, want * 1e-12);
  g_assert_cmpfloat (big->peak_bytes, ==, bytes + bytes / 8);

  /* Summed everywhere instead: one all-reduce, twice the ring's traffic,
   * 2 x 7/8 x 100663296 / 100 GB/s. */
  ar = plx_reshard_plan (c, &m, &shape, &src, &whole, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ar->steps->len, ==, 1);
  g_assert_cmpint (g_array_index (ar->steps, PlxReshardStep, 0).op, ==, PLX_RESHARD_ALL_REDUCE);
  g_assert_cmpfloat_with_epsilon (ar->time_s, 2 * want, want * 1e-12);

  /* A partial sum cannot be made from whole values. */
  g_assert_null (plx_reshard_plan (c, &m, &shape, &whole, &other, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
  g_assert_nonnull (strstr (error->message, "target [-,-]+x holds partial sums"));
}

static void
test_partial_kept_and_reduced (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (1);
  PlxArrayShape shape = { .rank = 2, .dim = { 12, 10 }, .elem_bytes = 4 };
  /* y's partial sum stays while x moves from dim 0 to dim 1 (an all-to-all on x's
   * groups, the parts travelling with it); then the other way, a sum over y
   * scattered onto dim 0 after x. */
  g_autoptr (PlxReshardPlan) p = plan_of (c, "2x4", &shape, "[x,-]+y", "[-,x]+y", FALSE);
  g_autoptr (PlxReshardPlan) q = plan_of (c, "2x4", &shape, "[x,-]+y", "[xy,-]", FALSE);
  g_autoptr (PlxReshardPlan) b = plan_of (c, "2x4", &shape, "[x,-]+y", "[xy,-]", TRUE);

  g_assert_cmpuint (p->steps->len, ==, 1);
  g_assert_cmpint (g_array_index (p->steps, PlxReshardStep, 0).op, ==, PLX_RESHARD_ALL_TO_ALL);
  g_assert_cmpuint (q->steps->len, ==, 1);
  g_assert_cmpint (g_array_index (q->steps, PlxReshardStep, 0).op, ==, PLX_RESHARD_REDUCE_SCATTER);
  g_assert_cmpfloat (q->time_s, <=, b->time_s);
}

static void
test_bad_input (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (1);
  g_autoptr (GError) error = NULL;
  PlxMesh m = mesh_of ("4x4");
  PlxSharding s = sharding_of ("[x,y]", &m, 2);
  PlxArrayShape shape = { .rank = 2, .dim = { 8, 8 }, .elem_bytes = 4 };
  PlxArrayShape empty = { .rank = 2, .dim = { 8, 0 }, .elem_bytes = 4 };
  PlxReshardPlan *p;

  /* 16 devices on one node of 8 GPUs. */
  p = plx_reshard_plan (c, &m, &shape, &s, &s, &error);
  g_assert_null (p);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
  g_assert_nonnull (strstr (error->message, "16 devices on a cluster of 8"));
  g_clear_error (&error);

  m = mesh_of ("2x4");
  p = plx_reshard_plan (c, &m, &empty, &s, &s, &error);
  g_assert_null (p);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "dimension 1 has extent 0"));
  g_clear_error (&error);

  shape.elem_bytes = 0;
  p = plx_reshard_plan (c, &m, &shape, &s, &s, &error);
  g_assert_null (p);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "element size 0"));
  g_clear_error (&error);

  /* Four extents of 2^16: 2^64 elements, which wrap to 0 in 64 bits; the executor
   * refuses them rather than run a "0-element" array. */
  {
    PlxMesh one = mesh_of ("1");
    PlxArrayShape vast = { .rank = 4, .dim = { 65536, 65536, 65536, 65536 }, .elem_bytes = 2 };
    PlxSharding whole = sharding_of ("[-,-,-,-]", &one, 4);
    g_autoptr (PlxReshardPlan) q = plx_reshard_plan (c, &one, &vast, &whole, &whole, &error);

    g_assert_no_error (error);
    g_assert_false (plx_reshard_verify (q, &error));
    g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
    g_assert_nonnull (strstr (error->message, "18446744073709551616 padded elements"));
  }
}

static void
test_verifier_catches_a_wrong_plan (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (1);
  g_autoptr (GError) error = NULL;
  PlxArrayShape shape = { .rank = 2, .dim = { 6, 4 }, .elem_bytes = 4 };
  g_autoptr (PlxReshardPlan) p = plan_of (c, "2x2", &shape, "[x,y]", "[y,x]", FALSE);
  PlxReshardStep *st;

  /* The layouts say what a step leaves; the executor moves the data. A step that
   * claims a different result than its data movement gives is caught there. */
  g_assert_cmpuint (p->steps->len, >=, 1);
  st = &g_array_index (p->steps, PlxReshardStep, 0);
  st->after = p->source;
  g_assert_false (plx_reshard_verify (p, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
  g_assert_nonnull (strstr (error->message, "step 1"));
  g_clear_error (&error);

  /* Dropping every step leaves the source layout. */
  g_array_set_size (p->steps, 0);
  g_assert_false (plx_reshard_verify (p, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
  g_assert_nonnull (strstr (error->message, "the plan ends at [x,y], not [y,x]"));
}

static gboolean
layouts_within (const PlxReshardPlan *p, double bound)
{
  for (guint i = 0; i < p->steps->len; i++)
    if (plx_reshard_shard_bytes (p, &g_array_index (p->steps, PlxReshardStep, i).after) > bound)
      return FALSE;
  return TRUE;
}

static void
test_random_redistributions (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (8);
  g_autoptr (GRand) rand = g_rand_new_with_seed (14);
  guint beat_or_tied = 0, baseline_within = 0, n_partial = 0;

  for (guint n = 0; n < RANDOM_CASES; n++)
    {
      g_autoptr (GError) error = NULL;
      PlxMesh m = { .n_axes = g_rand_int_range (rand, 1, 4) };
      PlxArrayShape shape = { .rank = g_rand_int_range (rand, 1, 4), .elem_bytes = 4 };
      PlxSharding src, tgt;
      g_autoptr (PlxReshardPlan) p = NULL;
      g_autoptr (PlxReshardPlan) b = NULL;

      for (guint a = 0; a < m.n_axes; a++)
        m.size[a] = g_rand_int_range (rand, 1, 5);
      for (guint d = 0; d < shape.rank; d++)
        shape.dim[d] = g_rand_int_range (rand, 1, 8);
      src = test_random_sharding (rand, &m, shape.rank, 7);
      tgt = test_random_sharding (rand, &m, shape.rank, src.partial);
      n_partial += src.partial != 0;

      p = plx_reshard_plan (c, &m, &shape, &src, &tgt, &error);
      g_assert_no_error (error);
      if (!plx_reshard_verify (p, &error))
        {
          g_autofree char *a = plx_sharding_format (&src), *z = plx_sharding_format (&tgt);
          g_autofree char *mt = plx_mesh_format (&m);

          g_error ("case %u: mesh %s, %s -> %s: %s", n, mt, a, z, error->message);
        }
      /* The bound: no layout of the plan holds more than the larger end shard, so a
       * step's input and output together stay within twice that. */
      g_assert_true (layouts_within (p, p->bound_bytes));
      g_assert_cmpfloat (p->peak_bytes, <=, 2.0 * p->bound_bytes);
      g_assert_true (p->steps->len == 0 ? plx_sharding_equal (&src, &tgt)
                                        : plx_sharding_equal (&g_array_index (p->steps, PlxReshardStep, p->steps->len - 1).after, &tgt));

      b = plx_reshard_plan_baseline (c, &m, &shape, &src, &tgt, &error);
      g_assert_no_error (error);
      g_assert_true (plx_reshard_verify (b, &error));
      g_assert_no_error (error);
      /* Dijkstra is exact: when the baseline's own path stays within the bound it is
       * one of the paths searched, so the plan costs no more. */
      if (layouts_within (b, p->bound_bytes))
        {
          baseline_within++;
          g_assert_cmpfloat (p->time_s, <=, b->time_s);
        }
      beat_or_tied += p->time_s <= b->time_s;
    }
  g_test_message ("%u cases (%u from partial sums); baseline within the bound in %u; plan at most the "
                  "baseline's time in %u", RANDOM_CASES, n_partial, baseline_within, beat_or_tied);
  /* About a quarter of the sources have a partial sum (each axis 1 in rank + 2). */
  g_assert_cmpuint (n_partial, >, RANDOM_CASES / 8);
}

static const PlxReshardArray *
find_array (const PlxReshardModel *r, const char *name, guint elem_bytes)
{
  for (guint i = 0; i < r->arrays->len; i++)
    {
      const PlxReshardArray *a = &g_array_index (r->arrays, PlxReshardArray, i);

      if (g_str_equal (a->name, name) && a->shape.elem_bytes == elem_bytes)
        return a;
    }
  g_error ("no array %s of %u-byte elements", name, elem_bytes);
  return NULL;
}

static void
assert_layouts (const PlxReshardArray *a, const char *mesh, const char *from, const char *to)
{
  g_autofree char *m = plx_mesh_format (&a->plan->mesh);
  g_autofree char *f = plx_sharding_format (&a->from);
  g_autofree char *t = plx_sharding_format (&a->to);

  g_assert_cmpstr (m, ==, mesh);
  g_assert_cmpstr (f, ==, from);
  g_assert_cmpstr (t, ==, to);
}

/* Every parameter of the model is in exactly one planned array (with a tied LM head
 * the last stage's copy of the table once more), each array as bf16 and as fp32. */
static void
assert_every_parameter (const PlxModel *m, const PlxReshardModel *r, guint64 extra)
{
  guint64 bf16 = 0, fp32 = 0;

  for (guint i = 0; i < r->arrays->len; i++)
    {
      const PlxReshardArray *a = &g_array_index (r->arrays, PlxReshardArray, i);
      guint64 n = 1;

      for (guint d = 0; d < a->shape.rank; d++)
        n *= a->shape.dim[d];
      if (a->shape.elem_bytes == 2)
        bf16 += n * a->count;
      else
        fp32 += n * a->count;
    }
  g_assert_cmpuint (bf16, ==, plx_model_get_n_params (m) + extra);
  g_assert_cmpuint (fp32, ==, 3 * bf16);
}

static void
test_whole_model_gpt3 (void)
{
  /* GPT-3 175B's checkpoint, TP 8 x PP 8 to TP 4 x PP 16 (64 GPUs a copy): one mesh
   * 8 x 2 x 4 holds both block layouts - stages over x, TP over y z; then stages over
   * x y, TP over z. Its parameters: per block ln_1, qkv_proj and its bias, out_proj
   * (row-parallel: its bias whole on every rank) and its bias, ln_2, fc1 and its
   * bias, fc2 and its bias (10 arrays stacked over 96 layers); the first stage's
   * embedding and position table, the last stage's final norm and its copy of the
   * tied embedding (4): 14 arrays, each bf16 and, as fp32 master copy and two Adam
   * moments, 3 x fp32: 28 plans, 56 arrays. qkv_proj bf16 per GPU: 96/8 x 12288 x
   * 36864/8 x 2 B = 1,358,954,496 B before and 96/16 x 12288 x 36864/4 x 2 B, the
   * same, after; no step holds more than twice that. */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxModel) m = plx_model_new_preset ("gpt3-175b", &error);
  g_autoptr (PlxCluster) c = plx_cluster_new_preset ("dgx-a100-80gb", &error);
  g_autoptr (PlxReshardModel) r = NULL;
  g_autoptr (PlxReshardModel) fewer_stages = NULL;
  const PlxReshardArray *qkv, *emb;
  g_autofree char *mesh = NULL;

  g_assert_no_error (error);
  c->num_nodes = 8;
  r = plx_reshard_model (m, c, 8, 8, 4, 16, TRUE, &error);
  g_assert_no_error (error);
  mesh = plx_mesh_format (&r->mesh);
  g_assert_cmpstr (mesh, ==, "8x2x4");
  g_assert_cmpuint (r->arrays->len, ==, 28);
  g_assert_cmpuint (r->moved_arrays, ==, 56);
  assert_every_parameter (m, r, 51200 * 12288);
  qkv = find_array (r, "qkv_proj", 2);
  assert_layouts (qkv, "8x2x4", "[x,-,yz]", "[xy,-,z]");
  g_assert_cmpfloat (plx_reshard_shard_bytes (qkv->plan, &qkv->from), ==, 1358954496.0);
  g_assert_cmpfloat (plx_reshard_shard_bytes (qkv->plan, &qkv->to), ==, 1358954496.0);
  assert_layouts (find_array (r, "qkv_proj.bias", 2), "8x2x4", "[x,yz]", "[xy,z]");
  assert_layouts (find_array (r, "out_proj.bias", 2), "8x2x4", "[x,-]", "[xy,-]");
  assert_layouts (find_array (r, "ln_1", 4), "8x2x4", "[x,-]", "[xy,-]");
  /* The first stage (8 GPUs, TP over x y of a 2 x 4 mesh) becomes the x = 0 row (TP
   * 4 over y): the table [51200, 12288] gathered over x, 51200/4 x 12288 x 2 B =
   * 314,572,800 B per GPU after; norm gains and position table stay where they are.
   * New rank y needs old blocks 2y and 2y + 1 (old rank 4x + y held block 4x + y),
   * so the GPUs first exchange shards into the order [yx] (a permute), then gather
   * x. */
  emb = find_array (r, "embedding", 2);
  assert_layouts (emb, "2x4", "[xy,-]", "[y,-]");
  g_assert_cmpfloat (plx_reshard_shard_bytes (emb->plan, &emb->to), ==, 314572800.0);
  g_assert_cmpuint (emb->plan->steps->len, ==, 2);
  g_assert_cmpint (g_array_index (emb->plan->steps, PlxReshardStep, 0).op, ==, PLX_RESHARD_PERMUTE);
  g_assert_cmpint (g_array_index (emb->plan->steps, PlxReshardStep, 1).op, ==, PLX_RESHARD_ALL_GATHER);
  g_assert_cmpfloat (find_array (r, "position_embedding", 2)->plan->time_s, ==, 0.0);
  assert_layouts (find_array (r, "lm_head (tied copy)", 2), "2x4", "[xy,-]", "[y,-]");
  for (guint i = 0; i < r->arrays->len; i++)
    {
      const PlxReshardArray *a = &g_array_index (r->arrays, PlxReshardArray, i);
      g_assert_cmpfloat (a->plan->peak_bytes, <=, 2.0 * a->plan->bound_bytes);
    }

  /* The other way, TP 8 x PP 8 to TP 16 x PP 4: the old first stage (TP 8 over y) is
   * the x = 0 row of the new one (TP 16 over x y), whose x = 1 row holds nothing: a
   * partial sum over x, summed into 51200/16 x 12288 x 2 B = 78,643,200 B each. */
  fewer_stages = plx_reshard_model (m, c, 8, 8, 16, 4, TRUE, &error);
  g_assert_no_error (error);
  assert_every_parameter (m, fewer_stages, 51200 * 12288);
  emb = find_array (fewer_stages, "embedding", 2);
  assert_layouts (emb, "2x8", "[y,-]+x", "[xy,-]");
  g_assert_cmpfloat (plx_reshard_shard_bytes (emb->plan, &emb->to), ==, 78643200.0);
  g_assert_cmpfloat (emb->plan->time_s, >, 0.0);
  g_assert_cmpfloat (find_array (fewer_stages, "final_norm", 2)->plan->time_s, >, 0.0);

  /* As many GPUs a copy, and stages that nest, or a named refusal. */
  {
    g_autoptr (GError) e1 = NULL, e2 = NULL;
    g_autoptr (PlxReshardModel) fewer = plx_reshard_model (m, c, 8, 8, 4, 8, TRUE, &e1);
    g_autoptr (PlxReshardModel) odd = plx_reshard_model (m, c, 6, 4, 4, 6, TRUE, &e2);
    g_autoptr (PlxReshardModel) same = plx_reshard_model (m, c, 8, 8, 8, 8, TRUE, &error);

    g_assert_null (fewer);
    g_assert_error (e1, PLX_ERROR, PLX_ERROR_INCONSISTENT);
    g_assert_nonnull (strstr (e1->message, "TP 8 x PP 8 to TP 4 x PP 8: the GPUs of a model copy must stay as many"));
    g_assert_null (odd);
    g_assert_error (e2, PLX_ERROR, PLX_ERROR_UNSUPPORTED);
    g_assert_nonnull (strstr (e2->message, "PP 4 to PP 6: one must divide the other"));
    /* The same layout: the mesh's middle axis has one device, reordering it moves
     * nothing, so nothing costs anything. */
    g_assert_no_error (error);
    g_assert_cmpfloat (same->time_s, ==, 0.0);
  }
}

static PlxScenario *
scenario_of (const char *json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data (json, -1, "zero", &error);
  PlxScenario *sc;

  g_assert_no_error (error);
  sc = plx_scenario_new_from_json (node, ".", "zero", &error);
  g_assert_no_error (error);
  return sc;
}

/* The sum of elements of the planned arrays of one element size, counts included. */
static guint64
planned_elements (const PlxReshardModel *r, guint elem_bytes)
{
  guint64 total = 0;

  for (guint i = 0; i < r->arrays->len; i++)
    {
      const PlxReshardArray *a = &g_array_index (r->arrays, PlxReshardArray, i);
      guint64 n = a->count;

      for (guint d = 0; d < a->shape.rank; d++)
        n *= a->shape.dim[d];
      if (a->shape.elem_bytes == elem_bytes)
        total += n;
    }
  return total;
}

static void
test_whole_model_zero (void)
{
  /* GPT-3 175B on 16 nodes, TP 8 x PP 8 x DP 2. With ZeRO-1 each fp32 master copy and
   * Adam moment is shared by the 2 data-parallel ranks, each moving its half; the
   * bf16 weights whole. Every last dimension of GPT-3's arrays is even, so the fp32
   * arrays hold 3 x 174.6 B / 2 elements a rank, and qkv_proj's is [96, 12288,
   * 36864 / 2]. ZeRO-3 halves the weights too; hybrid sharding over groups of 1
   * (shard_group_size) shares nothing. */
  g_autoptr (PlxScenario) z1 = scenario_of (
    "{ \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 16 },"
    "  \"strategy\": { \"tp\": 8, \"pp\": 8, \"global_batch_size\": 64, \"zero_stage\": 1 } }");
  g_autoptr (PlxScenario) z3 = scenario_of (
    "{ \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 16 },"
    "  \"strategy\": { \"tp\": 8, \"pp\": 8, \"global_batch_size\": 64, \"zero_stage\": 3 } }");
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxReshardModel) r1 = plx_reshard_scenario (z1, 4, 16, TRUE, &error);
  g_autoptr (PlxReshardModel) r3 = NULL;
  g_autoptr (PlxReshardModel) whole = NULL;
  guint64 params = plx_model_get_n_params (z1->model) + 51200 * 12288;

  g_assert_no_error (error);
  g_assert_cmpuint (z1->strategy->dp, ==, 2);
  g_assert_cmpuint (r1->optimizer_shards, ==, 2);
  g_assert_cmpuint (r1->weight_shards, ==, 1);
  g_assert_cmpuint (planned_elements (r1, 2), ==, params);
  g_assert_cmpuint (planned_elements (r1, 4), ==, 3 * params / 2);
  g_assert_cmpuint (find_array (r1, "qkv_proj", 4)->shape.dim[2], ==, 36864 / 2);
  whole = plx_reshard_model (z1->model, z1->cluster, 8, 8, 4, 16, TRUE, &error);
  g_assert_no_error (error);
  /* Each rank moves half of every optimizer array, so the move takes less time. */
  g_assert_cmpfloat (r1->time_s, <, whole->time_s);

  r3 = plx_reshard_scenario (z3, 4, 16, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (r3->weight_shards, ==, 2);
  g_assert_cmpuint (planned_elements (r3, 2), ==, params / 2);
}

static void
test_whole_model_experts (void)
{
  /* Mixtral 8x7B, TP 2 x PP 4 x DP 2 with expert parallelism 2: each rank of a copy
   * holds 8 / 2 = 4 experts of its layers, [32, 4, k, n], and moves them; every other
   * parameter whole in each copy. So the bf16 arrays hold the model's parameters less
   * half of the experts'; with ZeRO-1 over DP 2 the experts' optimizer arrays are not
   * cut again (their data-parallel group is DP / EP = 1), the rest's are halved. */
  g_autoptr (PlxScenario) sc = scenario_of (
    "{ \"model\": { \"preset\": \"mixtral-8x7b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 2 },"
    "  \"strategy\": { \"tp\": 2, \"pp\": 4, \"ep\": 2, \"global_batch_size\": 64, \"seq_length\": 4096,"
    "                  \"zero_stage\": 1 } }");
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxReshardModel) r = plx_reshard_scenario (sc, 1, 8, TRUE, &error);
  guint64 experts = 0, params = plx_model_get_n_params (sc->model);
  const PlxReshardArray *gate_up;

  g_assert_no_error (error);
  for (guint i = 0; i < sc->model->n_layer_ops; i++)
    {
      const PlxOp *op = &sc->model->layer_ops[i];
      if (op->expert)
        experts += (guint64) plx_model_op_layers (sc->model, op) * sc->model->experts * op->params;
    }
  g_assert_cmpuint (experts, >, 0);
  g_assert_cmpuint (planned_elements (r, 2), ==, params - experts / 2);
  g_assert_cmpuint (planned_elements (r, 4), ==, 3 * ((params - experts) / 2 + experts / 2));
  gate_up = find_array (r, "expert_gate_up", 2);
  g_assert_cmpuint (gate_up->shape.rank, ==, 4);
  g_assert_cmpuint (gate_up->shape.dim[1], ==, 4);
  assert_layouts (gate_up, "4x2x1", "[x,-,-,yz]", "[xy,-,-,z]");
}

static void
test_whole_model_verified (void)
{
  /* A small GPT-2 (4 layers of 64, so every array fits the executor): its
   * parameters moved TP 2 x PP 2 to TP 1 x PP 4 and to TP 4 x PP 1, and back, each plan
   * run element by element by the verifier - the whole-model mapping ends with every
   * GPU holding exactly its shard of the new layout. */
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data ("{ \"model_type\": \"gpt2\", \"n_layer\": 4, \"n_embd\": 64, "
                                                   "\"n_head\": 4, \"vocab_size\": 128, \"n_positions\": 64 }",
                                                   -1, "small", &error);
  g_autoptr (PlxModel) m = plx_model_new_from_json (node, "small", &error);
  g_autoptr (PlxCluster) c = plx_cluster_new_preset ("dgx-a100-80gb", &error);
  static const guint moves[][4] = { { 2, 2, 1, 4 }, { 2, 2, 4, 1 }, { 1, 4, 2, 2 }, { 4, 1, 2, 2 } };
  /* 14 kinds of array (as GPT-3's), as bf16 and fp32; to one stage, no last-stage copy
   * of the tied table. */
  static const guint plans[] = { 28, 26, 28, 28 };

  g_assert_no_error (error);
  for (guint k = 0; k < G_N_ELEMENTS (moves); k++)
    {
      g_autoptr (PlxReshardModel) r = plx_reshard_model (m, c, moves[k][0], moves[k][1], moves[k][2], moves[k][3],
                                                         TRUE, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (r->arrays->len, ==, plans[k]);
      assert_every_parameter (m, r, plans[k] == 28 ? 128 * 64 : 0);
      for (guint i = 0; i < r->arrays->len; i++)
        {
          const PlxReshardArray *a = &g_array_index (r->arrays, PlxReshardArray, i);
          g_assert_true (plx_reshard_verify (a->plan, &error));
          g_assert_no_error (error);
        }
    }
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/core/reshard/notation", test_notation);
  g_test_add_func ("/core/reshard/notation-errors", test_notation_errors);
  g_test_add_func ("/core/reshard/all-to-all-by-hand", test_all_to_all_by_hand);
  g_test_add_func ("/core/reshard/gather-by-hand", test_gather_by_hand);
  g_test_add_func ("/core/reshard/gather-across-nodes-by-hand", test_gather_across_nodes_by_hand);
  g_test_add_func ("/core/reshard/groups-across-a-node-boundary", test_groups_across_a_node_boundary);
  g_test_add_func ("/core/reshard/slice-is-free", test_slice_is_free);
  g_test_add_func ("/core/reshard/swap-beats-baseline", test_swap_beats_baseline);
  g_test_add_func ("/core/reshard/padding", test_padding);
  g_test_add_func ("/core/reshard/bad-input", test_bad_input);
  g_test_add_func ("/core/reshard/partial-notation", test_partial_notation);
  g_test_add_func ("/core/reshard/reduce-scatter-by-hand", test_reduce_scatter_by_hand);
  g_test_add_func ("/core/reshard/partial-kept-and-reduced", test_partial_kept_and_reduced);
  g_test_add_func ("/core/reshard/verifier-catches-a-wrong-plan", test_verifier_catches_a_wrong_plan);
  g_test_add_func ("/core/reshard/random", test_random_redistributions);
  g_test_add_func ("/core/reshard/whole-model-gpt3", test_whole_model_gpt3);
  g_test_add_func ("/core/reshard/whole-model-verified", test_whole_model_verified);
  g_test_add_func ("/core/reshard/whole-model-zero", test_whole_model_zero);
  g_test_add_func ("/core/reshard/whole-model-experts", test_whole_model_experts);
  return g_test_run ();
}
