/* test-util.h: helpers shared by the core tests. */
#pragma once

#include "parallax/parallax.h"

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
