/* Measurements a user brings (issue 15, docs/calibration.md): the same bytes as
 * nccl-tests output, as a GEMM sweep and a bandwidth sweep CSV, and as a profiler
 * trace; whatever reads is fitted on a stock cluster (the nccl fit on one node of 8
 * and on 2 x 4, the sweeps, the trace's points). A refusal is a PLX_ERROR, never a
 * crash, a hang or NaN in a written curve. */
#include <math.h>

#include "fuzz-common.h"
#include "calibrate/plx-kineto-match.h"
#include "../../src/core/base/plx-gunzip.h"
#include "base/plx-json.h"
#include "base/plx-presets.h"
#include "calibrate/plx-kineto.h"
#include "calibrate/plx-nccl-tests.h"
#include "calibrate/plx-sweep-fit.h"
#include "calibrate/plx-sweep.h"

static PlxCluster *cluster;
static JsonNode   *cluster_json;
static PlxScenario *scenario;   /* whose GEMMs a trace is matched to */

static const char scenario_text[] =
  "{\"model\": {\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_embd\": 1024, \"n_head\": 16, \"n_inner\": 2048,"
  " \"vocab_size\": 1000, \"n_positions\": 512}, \"cluster\": {\"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1,"
  " \"gpus_per_node\": 1}, \"strategy\": {\"seq_length\": 512, \"global_batch_size\": 2, \"micro_batch_size\": 2,"
  " \"dtype\": \"fp32\"}}";

/* The trace's GEMMs matched to the scenario's and written into the cluster: what is
 * written must read back, every time measured finite and positive. */
static void
match_gemms (const PlxKinetoTrace *trace)
{
  GError *error = NULL;
  PlxGemmMatch *m = plx_gemm_match (trace, scenario->model, cluster, scenario->strategy, &error);
  JsonNode *out;

  if (m == NULL)
    abort ();
  for (guint i = 0; i < m->rows->len; i++)
    {
      double t = g_array_index (m->rows, PlxGemmMatchRow, i).measured_s;
      if (!isfinite (t) || t < 0.0)
        abort ();
    }
  out = plx_json_deep_copy (cluster_json);
  if (!plx_gemm_match_write_cluster (out, m, "fuzz", &error))
    abort ();
  json_node_unref (out);
  plx_gemm_match_free (m);
}

static void
fit_nccl (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  PlxNcclFile *file = plx_nccl_file_parse ((const char *) data, size, "fuzz", &error);
  static const guint groups[][2] = { { 8, 1 }, { 4, 2 } };

  fuzz_check_error (error);
  if (file == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (groups); i++)
    {
      PlxNcclFit *fit = plx_nccl_fit (cluster_json, "fuzz", &file, 1, groups[i][0], groups[i][1], &error);

      fuzz_check_error (error);
      error = NULL;
      if (fit != NULL)
        {
          if (!isfinite (fit->latency_s) || fit->latency_s < 0.0)
            abort ();
          plx_nccl_fit_free (fit);
        }
    }
  plx_nccl_file_free (file);
}

static void
fit_sweeps (const char *text)
{
  GError *error = NULL;
  PlxGemmSweep *gemm = plx_gemm_sweep_parse (text, "fuzz", &error);
  PlxMembwSweep *membw;

  fuzz_check_error (error);
  error = NULL;
  if (gemm != NULL)
    {
      GPtrArray *fits = plx_gemm_sweep_fit (gemm, cluster, &error);

      fuzz_check_error (error);
      error = NULL;
      if (fits != NULL)
        g_ptr_array_unref (fits);
      plx_gemm_sweep_free (gemm);
    }
  membw = plx_membw_sweep_parse (text, "fuzz", &error);
  fuzz_check_error (error);
  error = NULL;
  if (membw != NULL)
    {
      PlxSweepFit *fit = plx_membw_sweep_fit (membw, cluster, &error);

      fuzz_check_error (error);
      if (fit != NULL)
        {
          for (guint i = 0; i < fit->curve_y->len; i++)
            if (!isfinite (g_array_index (fit->curve_y, double, i)))
              abort ();
          plx_sweep_fit_free (fit);
        }
      plx_membw_sweep_free (membw);
    }
}

static void
read_trace (const uint8_t *data, size_t size)
{
  JsonNode *node = fuzz_parse (data, size);
  GError *error = NULL;
  PlxKinetoTrace *trace;

  if (node == NULL)
    return;
  trace = plx_kineto_parse (node, "fuzz", &error);
  fuzz_check_error (error);
  if (trace != NULL)
    {
      PlxKinetoPoints *points = plx_kineto_points (trace, cluster);

      match_gemms (trace);
      plx_kineto_points_free (points);
      plx_kineto_trace_free (trace);
    }
  json_node_unref (node);
}

/* A trace saved gzipped (.json.gz): decompressed under a cap, as plx_kineto_load
 * does, then read. */
static void
read_gzip_trace (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  gsize length = 0;
  char *plain;

  if (!plx_is_gzip ((const char *) data, size))
    return;
  plain = plx_gunzip ((const char *) data, size, 1 << 20, "fuzz", &length, &error);
  fuzz_check_error (error);
  if (plain == NULL)
    return;
  if (length <= 1 << 20)
    read_trace ((const uint8_t *) plain, length);
  else
    abort ();
  g_free (plain);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *text;

  if (size > 1 << 16)
    return 0;
  if (cluster == NULL)
    {
      cluster_json = plx_presets_lookup (PLX_PRESET_CLUSTER, "dgx-a100-80gb", NULL);
      cluster = plx_cluster_new_from_json (cluster_json, "fuzz", NULL);
      {
        JsonNode *node = json_from_string (scenario_text, NULL);
        scenario = plx_scenario_new_from_json (node, ".", "fuzz", NULL);
        json_node_unref (node);
      }
    }
  fit_nccl (data, size);
  text = g_strndup ((const char *) data, size);
  fit_sweeps (text);
  g_free (text);
  read_trace (data, size);
  read_gzip_trace (data, size);
  return 0;
}
