/* bench-util.h: the scenarios the benchmarks time, built once. */
#pragma once

#include "parallax/parallax.h"
#include "base/plx-json.h"

/* Megatron-LM's 1T run (Korthikanti et al. 2022, Table 5): 3072 A100, TP 8, PP 64,
 * DP 6, global batch 3072, micro-batch 1. */
#define BENCH_MEGATRON_1T_3072 \
  "{ \"model\": { \"preset\": \"megatron-1t\" }," \
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 384 }," \
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 3072, \"micro_batch_size\": 1," \
  "                \"tp\": 8, \"pp\": 64, \"dp\": 6, \"sequence_parallel\": true," \
  "                \"recompute\": \"selective\", \"schedule\": \"1f1b\" } }"

/* The same model and cluster at PP 128, DP 3 and 8192 micro-batches per step: 2.1
 * million passes, past the timeline's limit of PLX_TIMELINE_MAX_EVENTS. */
#define BENCH_MEGATRON_1T_PP128 \
  "{ \"model\": { \"preset\": \"megatron-1t\" }," \
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 384 }," \
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 24576, \"micro_batch_size\": 1," \
  "                \"tp\": 8, \"pp\": 128, \"dp\": 3, \"sequence_parallel\": true," \
  "                \"recompute\": \"selective\", \"schedule\": \"1f1b\" } }"

/* A scenario from JSON text; aborts on an error. */
static inline PlxScenario *
bench_scenario (const char *json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data (json, -1, "benchmark", &error);
  PlxScenario *sc;

  g_assert_no_error (error);
  sc = plx_scenario_new_from_json (node, ".", "benchmark", &error);
  g_assert_no_error (error);
  return sc;
}
