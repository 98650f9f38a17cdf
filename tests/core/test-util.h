/* test-util.h: helpers shared by the core tests. */
#pragma once

#include "parallax/parallax.h"
#include "base/plx-json.h"

/* A scenario from a JSON text; aborts the test with the error if it fails. */
static inline PlxScenario *
test_scenario_from_string (const char *json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data (json, -1, "test", &error);
  PlxScenario *sc;

  g_assert_no_error (error);
  sc = plx_scenario_new_from_json (node, ".", "test", &error);
  g_assert_no_error (error);
  return sc;
}

static inline PlxReport
test_run (const PlxScenario *sc)
{
  g_autoptr (GError) error = NULL;
  PlxReport r = { 0 };

  g_assert_true (plx_analytic_run (sc->model, sc->cluster, sc->strategy, &r, &error));
  g_assert_no_error (error);
  return r;
}

/* An idealised cluster: constant efficiencies of 1, no latency, given bandwidths.
 * Formulas then hold exactly. */
#define TEST_IDEAL_CLUSTER(nodes, intra_bw, inter_bw) \
  "{ \"name\": \"ideal\", \"num_nodes\": " #nodes ", \"gpus_per_node\": 8," \
  "  \"gpu\": { \"name\": \"ideal\", \"peak_flops\": { \"bf16\": 1e14 }," \
  "           \"hbm_bytes\": 85899345920, \"hbm_bw_Bps\": 1e12," \
  "           \"efficiency\": { \"matmul\": [[1, 1.0]], \"memory\": [[1, 1.0]], \"kernel_launch_s\": 0," \
  "                           \"attention\": 1.0 } }," \
  "  \"intra_node\": { \"bw_Bps\": " #intra_bw ", \"latency_s\": 0, \"efficiency\": [[1, 1.0]] }," \
  "  \"inter_node\": { \"bw_Bps\": " #inter_bw ", \"latency_s\": 0, \"efficiency\": [[1, 1.0]] } }"

/* A random layout on `mesh` for an array of `rank` (test-reshard, test-reshard-ir):
 * the axes in a random order, each on a random dimension, on none, or - if in
 * `partial_ok` - holding partial sums (a target's must be the source's). */
static inline PlxSharding
test_random_sharding (GRand *rand, const PlxMesh *mesh, guint rank, guint partial_ok)
{
  PlxSharding s = { .rank = rank };
  guint order[PLX_MESH_MAX_AXES] = { 0, 1, 2 };

  /* Axes in a random order, each on a random dim or on none. */
  for (guint i = mesh->n_axes; i > 1; i--)
    {
      guint j = g_rand_int_range (rand, 0, (gint32) i), t = order[i - 1];

      order[i - 1] = order[j];
      order[j] = t;
    }
  for (guint i = 0; i < mesh->n_axes; i++)
    {
      guint d = g_rand_int_range (rand, 0, (gint32) rank + 2);

      if (d < rank)
        s.axes[d][s.n_axes[d]++] = order[i];
      else if (d == rank + 1 && (partial_ok & (1u << order[i])))
        s.partial |= 1u << order[i];
    }
  return s;
}
