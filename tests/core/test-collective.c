/* Group placement and collective costs against the alpha-beta formulas, on an ideal
 * cluster (efficiency 1, no latency) where they hold exactly. */
#include "parallax/parallax.h"
#include "test-home.h"

#include "test-util.h"
#include "hardware/plx-collective.h"

static PlxCluster *
ideal_cluster (const char *json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data (json, -1, "test", &error);
  PlxCluster *c;

  g_assert_no_error (error);
  c = plx_cluster_new_from_json (node, "test", &error);
  g_assert_no_error (error);
  return c;
}

static void
test_placement (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (TEST_IDEAL_CLUSTER (16, 100e9, 25e9));
  PlxGroup g;

  /* TP 8 innermost: one node. */
  g = plx_group_place (c, 8, 1);
  g_assert_cmpuint (g.ranks_per_node, ==, 8);
  g_assert_cmpuint (g.nodes, ==, 1);
  /* DP 4 over TP 8: one rank per node, four nodes. */
  g = plx_group_place (c, 4, 8);
  g_assert_cmpuint (g.ranks_per_node, ==, 1);
  g_assert_cmpuint (g.nodes, ==, 4);
  /* DP 8 over TP 2: four members share a node, two nodes. */
  g = plx_group_place (c, 8, 2);
  g_assert_cmpuint (g.ranks_per_node, ==, 4);
  g_assert_cmpuint (g.nodes, ==, 2);
  /* 16 consecutive ranks: two full nodes. */
  g = plx_group_place (c, 16, 1);
  g_assert_cmpuint (g.ranks_per_node, ==, 8);
  g_assert_cmpuint (g.nodes, ==, 2);
}

static void
test_own_curve (void)
{
  /* The ideal cluster with an all-gather curve of 0.5 on NVLink (100 GB/s) and an
   * all-to-all curve of 0.25 on the network (25 GB/s), the link scale 0.8 on top. */
  g_autoptr (JsonNode) node = plx_json_parse_data (TEST_IDEAL_CLUSTER (2, 100e9, 25e9), -1, "test", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxCluster) c = NULL;
  JsonObject *o = json_node_get_object (node);
  JsonObject *intra = json_object_new (), *inter = json_object_new ();
  PlxGroup node8, two;

  json_object_set_member (intra, "all_gather", plx_json_parse_data ("[[1, 0.5]]", -1, "test", NULL));
  json_object_set_member (inter, "all_to_all", plx_json_parse_data ("[[1, 0.25]]", -1, "test", NULL));
  json_object_set_object_member (json_object_get_object_member (o, "intra_node"), "efficiency_by_collective", intra);
  json_object_set_object_member (json_object_get_object_member (o, "inter_node"), "efficiency_by_collective", inter);
  c = plx_cluster_new_from_json (node, "test", &error);
  g_assert_no_error (error);
  c->intra_node.scale = c->inter_node.scale = 0.8;
  node8 = plx_group_place (c, 8, 1);
  two = plx_group_place (c, 16, 1);

  /* One node, Thakur et al. 2005: all-gather 7/8 x 1e9 / (100e9 x 0.5 x 0.8) =
   * 21.875 ms on its own curve; reduce-scatter on the link's, 7/8 x 1e9 / 80e9 =
   * 10.9375 ms; all-reduce twice that. */
  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_ALL_GATHER, &node8, 1e9), 0.021875, 1e-15);
  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_REDUCE_SCATTER, &node8, 1e9), 0.0109375,
                                  1e-15);
  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_ALL_REDUCE, &node8, 1e9), 0.021875, 1e-15);
  /* All-to-all over two nodes of 8: 8/16 of the buffer leaves on the NIC at
   * 25e9 x 0.25 x 0.8 = 5 GB/s: 0.5e9 / 5e9 = 100 ms; the 7/16 over NVLink at 80 GB/s
   * is faster. */
  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_ALL_TO_ALL, &two, 1e9), 0.1, 1e-15);
  /* The ring all-gather over two nodes: NVLink at 40 GB/s (its own curve) against
   * 8 NICs x 20 GB/s = 160 (the network's link curve): 15/16 x 1e9 / 40e9. */
  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_ALL_GATHER, &two, 1e9), 15.0 / 16.0 / 40.0,
                                  1e-15);
}

static void
test_ring_all_reduce_intra (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (TEST_IDEAL_CLUSTER (1, 100e9, 25e9));
  PlxGroup g = plx_group_place (c, 8, 1);

  /* Thakur et al. 2005: 2 (p-1)/p n / B = 2 * 7/8 * 1e9 / 100e9 = 17.5 ms. */
  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_ALL_REDUCE, &g, 1e9), 0.0175, 1e-15);
  /* All-gather and reduce-scatter: half of it. */
  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_ALL_GATHER, &g, 1e9), 0.00875, 1e-15);
  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_REDUCE_SCATTER, &g, 1e9), 0.00875, 1e-15);
  /* All-to-all: 7/8 of the buffer leaves each rank: 8.75 ms. */
  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_ALL_TO_ALL, &g, 1e9), 0.00875, 1e-15);
  /* A group of one does not communicate. */
  g = plx_group_place (c, 1, 1);
  g_assert_cmpfloat (plx_collective_time (c, PLX_COLLECTIVE_ALL_REDUCE, &g, 1e9), ==, 0.0);
}

static void
test_ring_all_reduce_inter (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (TEST_IDEAL_CLUSTER (4, 100e9, 25e9));
  PlxGroup g = plx_group_place (c, 4, 8);

  /* One rank per node: the ring runs on the NICs, 2 * 3/4 * 1e9 / 25e9 = 60 ms; the
   * hierarchical form has no intra-node part and equals it. */
  g_assert_cmpfloat_with_epsilon (plx_collective_ring_all_reduce_time (c, &g, 1e9), 0.06, 1e-15);
  g_assert_cmpfloat_with_epsilon (plx_collective_hierarchical_all_reduce_time (c, &g, 1e9), 0.06, 1e-15);
  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_ALL_REDUCE, &g, 1e9), 0.06, 1e-15);
  /* Send/recv between nodes: 1e9 / 25e9 = 40 ms. */
  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_SEND_RECV, &g, 1e9), 0.04, 1e-15);
}

static void
test_spanning_ring_vs_hierarchical (void)
{
  g_autoptr (PlxCluster) c = ideal_cluster (TEST_IDEAL_CLUSTER (2, 100e9, 25e9));
  PlxGroup g = plx_group_place (c, 16, 1);
  double ring, hier;

  /* Flat ring over 2 nodes of 8: eight NICs per node give 200 GB/s, NVLink 100 GB/s
   * is narrower: 2 * 15/16 * 1e9 / 100e9 = 18.75 ms. */
  ring = plx_collective_ring_all_reduce_time (c, &g, 1e9);
  g_assert_cmpfloat_with_epsilon (ring, 0.01875, 1e-15);
  /* Hierarchical: reduce-scatter + all-gather in the node 2 * 7/8 * 1e9/100e9 =
   * 17.5 ms, plus the 1/8 shard all-reduced over 2 nodes 2 * 1/2 * 1.25e8/25e9 =
   * 5 ms: 22.5 ms. */
  hier = plx_collective_hierarchical_all_reduce_time (c, &g, 1e9);
  g_assert_cmpfloat_with_epsilon (hier, 0.0225, 1e-15);
  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_ALL_REDUCE, &g, 1e9), 0.01875, 1e-15);
}

/* The ideal cluster `ideal_json` with a latency per ring step inside a node
 * and another between nodes. */
static PlxCluster *
cluster_with_latency (const char *ideal_json,
                      const char *intra,
                      const char *inter)
{
  g_auto (GStrv) parts = g_strsplit (ideal_json, "\"latency_s\": 0", -1);
  g_autofree char *json = NULL;

  g_assert_cmpuint (g_strv_length (parts), ==, 3);
  json = g_strconcat (parts[0], "\"latency_s\": ", intra, parts[1], "\"latency_s\": ", inter, parts[2], NULL);
  return ideal_cluster (json);
}

static void
test_latency_floor (void)
{
  g_autoptr (PlxCluster) c = cluster_with_latency (TEST_IDEAL_CLUSTER (1, 100e9, 25e9), "1e-3", "1e-3");
  PlxGroup g;

  /* 1 ms per step: a 1-byte all-reduce on 8 ranks takes 2(p-1) = 14 steps. */
  g = plx_group_place (c, 8, 1);
  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_ALL_REDUCE, &g, 1.0), 0.014, 1e-15);
  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_ALL_GATHER, &g, 1.0), 0.007, 1e-15);
  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_SEND_RECV, &g, 1.0), 0.001, 1e-15);
}

static void
test_ring_steps_latency (void)
{
  /* 1 us a step over NVLink, 3 us over the network (the A100 preset's). A ring over
   * 1536 ranks on 192 nodes has 1535 steps, 191 of them between nodes:
   * 1344 x 1 + 191 x 3 = 1917 us (NCCL's tuning model, src/graph/tuning.cc). */
  g_autoptr (PlxCluster) c = cluster_with_latency (TEST_IDEAL_CLUSTER (192, 100e9, 25e9), "1e-6", "3e-6");
  PlxGroup g;

  g = plx_group_place (c, 1536, 1);
  g_assert_cmpuint (g.nodes, ==, 192);
  g_assert_cmpfloat_with_epsilon (plx_collective_ring_steps_latency (c, &g), 1917e-6, 1e-15);
  /* Inside one node: 7 NVLink steps; one rank: none. */
  g = plx_group_place (c, 8, 1);
  g_assert_cmpfloat_with_epsilon (plx_collective_ring_steps_latency (c, &g), 7e-6, 1e-15);
  g = plx_group_place (c, 1, 1);
  g_assert_cmpfloat (plx_collective_ring_steps_latency (c, &g), ==, 0.0);
  /* The A100 preset's steps for large messages, NCCL's Simple protocol (tuning.cc
   * hwLat ring Simple: NVLink 3.4 us, network 9.6 us): 1344 x 3.4 + 191 x 9.6 =
   * 6403.2 us over 1536 ranks, on top of the bytes. */
  {
    g_autoptr (PlxCluster) a100 = plx_cluster_new_preset ("dgx-a100-80gb", NULL);
    a100->num_nodes = 192;
    g = plx_group_place (a100, 1536, 1);
    g_assert_cmpfloat_with_epsilon (plx_collective_ring_steps_latency (a100, &g), 6403.2e-6, 1e-12);
    g_assert_cmpfloat (a100->inter_node.latency_s, ==, 3e-6);
  }
}

static void
test_measured_busbw (void)
{
  /* The stock A100 preset: an 8-GPU all-reduce of 1 GB runs at the measured bus
   * bandwidth, 2 * 7/8 * 1e9 / (300e9 * eff(1e9)). */
  g_autoptr (PlxCluster) c = plx_cluster_new_preset ("dgx-a100-80gb", NULL);
  PlxGroup g = plx_group_place (c, 8, 1);
  double eff = plx_curve_eval (c->intra_node.efficiency, 1e9);

  g_assert_cmpfloat_with_epsilon (plx_collective_time (c, PLX_COLLECTIVE_ALL_REDUCE, &g, 1e9),
                                  1.75e9 / (300e9 * eff), 1e-12);
  /* nccl-tests on DGX A100 reach about 230 GB/s bus bandwidth at 1 GB. */
  g_assert_cmpfloat (300e9 * eff, >, 200e9);
  g_assert_cmpfloat (300e9 * eff, <, 250e9);
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/core/collective/placement", test_placement);
  g_test_add_func ("/core/collective/own-curve", test_own_curve);
  g_test_add_func ("/core/collective/ring-allreduce", test_ring_all_reduce_intra);
  g_test_add_func ("/core/collective/ring-allreduce-inter-node", test_ring_all_reduce_inter);
  g_test_add_func ("/core/collective/hierarchical-allreduce", test_spanning_ring_vs_hierarchical);
  g_test_add_func ("/core/collective/latency-floor", test_latency_floor);
  g_test_add_func ("/core/collective/ring-steps-latency", test_ring_steps_latency);
  g_test_add_func ("/core/collective/measured-busbw", test_measured_busbw);
  return g_test_run ();
}
