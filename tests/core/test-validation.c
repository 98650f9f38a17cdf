/* The accuracy bar of issue 2, held against Korthikanti et al. 2022 (Table 5 step
 * times, Fig. 1 memory) with the stock dgx-a100-80gb preset and no per-case tuning. */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "parallax/parallax.h"
#include "test-home.h"
#include "test-util.h"

static void
test_korthikanti2022 (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "korthikanti2022.json", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxValidation) v = plx_validation_run_file (path, "analytical", &error);
  const PlxValidationSummary *step, *states, *act;

  g_assert_no_error (error);
  step = &v->summary[PLX_METRIC_STEP_TIME];
  states = &v->summary[PLX_METRIC_MODEL_STATES_BYTES];
  act = &v->summary[PLX_METRIC_ACTIVATION_BYTES];
  g_test_message ("step time: mean %.2f %%, largest %.2f %%", step->mean_abs_error_pct, step->max_abs_error_pct);

  /* Eight end-to-end runs: mean absolute error <= 4 % (issue 10: "stays <= 4 %"), none
   * above 10 %. */
  g_assert_cmpuint (step->n, ==, 8);
  g_assert_cmpfloat (step->mean_abs_error_pct, <=, 4.0);
  g_assert_cmpfloat (step->max_abs_error_pct, <=, 10.0);
  /* Two memory cases: model states within 5 %, activations within 10 %. */
  g_assert_cmpuint (states->n, ==, 2);
  g_assert_cmpfloat (states->max_abs_error_pct, <=, 5.0);
  g_assert_cmpuint (act->n, ==, 2);
  g_assert_cmpfloat (act->max_abs_error_pct, <=, 10.0);
}

/* BLOOM-176B: 70 layers over 12 stages. Once refused (they do not divide), now split
 * (balanced, issue 10); the two engines model the same uneven pipeline and must agree
 * within 3 %. */
static void
test_bloom_uneven_stages (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "bloom176b.json", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxValidation) event = plx_validation_run_file (path, "event", &error);
  g_autoptr (PlxValidation) closed = NULL;
  const PlxValidationRow *a, *b;

  g_assert_no_error (error);
  closed = plx_validation_run_file (path, "analytical", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (event->rows->len, ==, 1);
  g_assert_cmpuint (closed->rows->len, ==, 1);
  a = &g_array_index (event->rows, PlxValidationRow, 0);
  b = &g_array_index (closed->rows, PlxValidationRow, 0);
  g_assert_cmpint (a->metric, ==, PLX_METRIC_STEP_TIME);
  g_test_message ("BLOOM: measured %.1f s, event %.1f s, analytical %.1f s", a->measured, a->predicted, b->predicted);
  g_assert_cmpfloat (fabs (a->predicted / b->predicted - 1.0), <, 0.03);
}

/* The ten visible sources (issue 36) and how many values each measures. */
static const struct { const char *file; guint n; } sources[] = {
  { "korthikanti2022.json", 16 }, { "megatron-lm-readme-h100.json", 18 }, { "torchtitan-a100.json", 8 },
  { "fms-fsdp-a100-h100.json", 8 }, { "nemo-perf-h100-fp8.json", 9 }, { "bloom176b.json", 1 },
  { "narayanan2021-table2.json", 12 }, { "mosaicml-mpt.json", 72 },
  { "dgxc-benchmarking-maxtext-h100.json", 3 }, { "nemo-long-context-h100-fp8.json", 4 },
};

/* Every visible source runs whole in both engines: no case refused, one prediction per
 * measured value (issues 10 and 36). Every run with a measured time, MFU or throughput
 * ran on real GPUs, so each is predicted to fit (issue 36). The accuracy bars per
 * source are issue 10's to meet; docs/accuracy.md has the figures this prints. */
static void
test_every_source_runs (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    for (guint e = 0; e < 2; e++)
      {
        const char *engine = e == 0 ? "event" : "analytical";
        g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", sources[i].file, NULL);
        g_autoptr (GError) error = NULL;
        g_autoptr (PlxValidation) v = plx_validation_run_file (path, engine, &error);

        g_assert_no_error (error);
        g_assert_cmpuint (v->rows->len, ==, sources[i].n);
        g_assert_cmpuint (v->fits->len, >, 0);
        g_assert_cmpuint (plx_validation_count_fits (v), ==, v->fits->len);
        for (guint r = 0; r < v->rows->len; r++)
          g_assert_true (isfinite (g_array_index (v->rows, PlxValidationRow, r).predicted));
        for (guint m = 0; m < PLX_N_METRICS; m++)
          if (v->summary[m].n > 0)
            g_test_message ("%s, %s engine, %s: %u, mean %.1f %%, largest %.1f %%", sources[i].file, engine,
                            plx_metric_to_string ((PlxMetric) m), v->summary[m].n, v->summary[m].mean_abs_error_pct,
                            v->summary[m].max_abs_error_pct);
      }
}

static void
test_engines_agree (void)
{
  /* Issues 10 and 36: the closed form and the event simulator agree within 3 % on
   * every visible case of the ten sources, ZeRO-3 and interleaved pipelines included
   * (they share the costs of ZeRO-3's passes and of the gradient buckets). */
  double worst = 0.0;

  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", sources[i].file, NULL);
      g_autoptr (PlxValidation) ev = plx_validation_run_file (path, "event", NULL);
      g_autoptr (PlxValidation) an = plx_validation_run_file (path, "analytical", NULL);

      g_assert_nonnull (ev);
      g_assert_nonnull (an);
      g_assert_cmpuint (ev->rows->len, ==, an->rows->len);
      for (guint r = 0; r < ev->rows->len; r++)
        {
          const PlxValidationRow *a = &g_array_index (an->rows, PlxValidationRow, r);
          const PlxValidationRow *e = &g_array_index (ev->rows, PlxValidationRow, r);
          double gap = fabs (a->predicted - e->predicted) / e->predicted * 100.0;

          worst = MAX (worst, gap);
          if (gap > 3.0)
            g_error ("%s, %s, %s: analytical %g against event %g, %.1f %% apart", sources[i].file, e->case_name,
                     plx_metric_to_string (e->metric), a->predicted, e->predicted, gap);
        }
    }
  g_test_message ("largest gap between the engines: %.2f %%", worst);
}

/* Issue 10's bars on the visible set, event engine: pooled mean |error| of step time,
 * MFU and throughput <= 6 %, no comparison beyond 20 %, each source's mean <= 10 %. */
static void
test_issue10_bars (void)
{
  static const char *const files[] = {
    "korthikanti2022.json", "megatron-lm-readme-h100.json", "torchtitan-a100.json",
    "fms-fsdp-a100-h100.json", "nemo-perf-h100-fp8.json", "bloom176b.json",
  };
  PlxValidation *runs[G_N_ELEMENTS (files)];
  g_autoptr (PlxValidation) pooled = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", files[i], NULL);
      runs[i] = plx_validation_run_file (path, "event", NULL);
      g_assert_nonnull (runs[i]);
      g_test_message ("%s: mean %.2f %%, worst %.2f %%", files[i], runs[i]->performance.mean_abs_error_pct,
                      runs[i]->performance.max_abs_error_pct);
      g_assert_cmpfloat (runs[i]->performance.mean_abs_error_pct, <=, 10.0);
    }
  pooled = plx_validation_pool (runs, G_N_ELEMENTS (files));
  g_test_message ("pooled: %u comparisons, mean %.2f %%, worst %.2f %%", pooled->performance.n,
                  pooled->performance.mean_abs_error_pct, pooled->performance.max_abs_error_pct);
  g_assert_cmpuint (pooled->performance.n, ==, 56);
  g_assert_cmpfloat (pooled->performance.mean_abs_error_pct, <=, 6.0);
  g_assert_cmpfloat (pooled->performance.max_abs_error_pct, <=, 20.0);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    plx_validation_free (runs[i]);
}

static void
test_summary_statistics (void)
{
  /* The summary is the mean and maximum of the rows' absolute errors. */
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "korthikanti2022.json", NULL);
  g_autoptr (PlxValidation) v = plx_validation_run_file (path, NULL, NULL);
  double sum = 0.0, max = 0.0;
  guint n = 0;

  for (guint i = 0; i < v->rows->len; i++)
    {
      const PlxValidationRow *row = &g_array_index (v->rows, PlxValidationRow, i);
      if (row->metric != PLX_METRIC_STEP_TIME)
        continue;
      g_assert_cmpfloat (fabs (row->error_pct - (row->predicted - row->measured) / row->measured * 100.0), <, 1e-9);
      sum += fabs (row->error_pct);
      max = MAX (max, fabs (row->error_pct));
      n++;
    }
  g_assert_cmpfloat (fabs (v->summary[PLX_METRIC_STEP_TIME].mean_abs_error_pct - sum / n), <, 1e-9);
  g_assert_cmpfloat (v->summary[PLX_METRIC_STEP_TIME].max_abs_error_pct, ==, max);
}

/* validate --memory (issue 36): each timed case - a measured step time, MFU or
 * throughput means the configuration ran - with whether it is predicted to fit. By
 * hand: GPT-3 175B unsharded keeps every parameter's mixed-precision Adam states on
 * each GPU, 16 bytes a parameter (ZeRO, Rajbhandari et al. 2020, §3.1: 2 + 2 + 12),
 * 16 x 174.6e9 = 2.79 TB against 80 GiB less the preset's 3 GiB reserve; GPT-2 small's
 * states are 16 x 124e6 = 2.0 GB and its activations at 1,024 tokens about 1 GB
 * (Korthikanti et al. 2022, eq. 1: sbh(34 + 5as/h) a layer, 12 layers). A case with only
 * a memory figure was not timed and is not listed. */
static void
test_memory_fits (void)
{
  static const char table[] =
    "{ \"source\": \"hand-derived\", \"cases\": ["
    "  { \"name\": \"175B unsharded\", \"measured\": { \"step_time_s\": 100.0 },"
    "    \"scenario\": { \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\" },"
    "                  \"strategy\": { \"global_batch_size\": 8 } } },"
    "  { \"name\": \"GPT-2\", \"measured\": { \"tokens_per_s_per_gpu\": 1000.0 },"
    "    \"scenario\": { \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\" },"
    "                  \"strategy\": { \"global_batch_size\": 8 } } },"
    "  { \"name\": \"GPT-2, states only\", \"measured\": { \"model_states_bytes\": 1984000000 },"
    "    \"scenario\": { \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\" },"
    "                  \"strategy\": { \"global_batch_size\": 8 } } } ] }";
  g_autofree char *dir = g_dir_make_tmp ("plx-validation-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "table.json", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxValidation) v = NULL;
  g_autoptr (PlxValidation) pooled = NULL;
  g_autofree char *text = NULL;
  const PlxValidationFit *big, *small;
  const guint64 usable = (80ull - 3ull) << 30;

  g_assert_true (g_file_set_contents (path, table, -1, NULL));
  v = plx_validation_run_file (path, "event", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (v->fits->len, ==, 2);
  big = &g_array_index (v->fits, PlxValidationFit, 0);
  small = &g_array_index (v->fits, PlxValidationFit, 1);
  g_assert_cmpstr (big->case_name, ==, "175B unsharded");
  g_assert_false (big->fits);
  g_assert_cmpuint (big->peak_memory_bytes, >=, (guint64) (16.0 * 174.6e9));
  g_assert_cmpuint (big->usable_bytes, ==, usable);
  g_assert_cmpstr (small->case_name, ==, "GPT-2");
  g_assert_true (small->fits);
  g_assert_cmpuint (small->peak_memory_bytes, >=, (guint64) (16.0 * 124e6));
  g_assert_cmpuint (small->peak_memory_bytes, <, 8ull << 30);
  g_assert_cmpuint (plx_validation_count_fits (v), ==, 1);

  pooled = plx_validation_pool (&v, 1);
  g_assert_cmpuint (pooled->fits->len, ==, 2);
  g_assert_cmpuint (plx_validation_count_fits (pooled), ==, 1);
  text = plx_validation_memory_to_text (&v, 1);
  g_assert_nonnull (strstr (text, "175B unsharded"));
  g_assert_nonnull (strstr (text, "does not fit"));
  g_assert_null (strstr (text, "states only"));
  g_remove (path);
  g_rmdir (dir);
}

static void
test_bad_table (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("plx-validation-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "table.json", NULL);

  g_assert_true (g_file_set_contents (path, "{ \"source\": \"x\", \"cases\": 3 }", -1, NULL));
  g_assert_null (plx_validation_run_file (path, NULL, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "cases"));
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (path,
    "{ \"cases\": [ { \"name\": \"x\", \"measured\": { \"step_time_s\": -1 },"
    "  \"scenario\": { \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\" },"
    "                \"strategy\": { \"global_batch_size\": 8 } } } ] }", -1, NULL));
  g_assert_null (plx_validation_run_file (path, NULL, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "measured.step_time_s"));
  g_clear_error (&error);

  /* A misspelt metric would silently compare nothing: refused, with the nearest. */
  g_assert_true (g_file_set_contents (path,
    "{ \"cases\": [ { \"name\": \"x\", \"measured\": { \"step_time\": 1.0 },"
    "  \"scenario\": { \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\" },"
    "                \"strategy\": { \"global_batch_size\": 8 } } } ] }", -1, NULL));
  g_assert_null (plx_validation_run_file (path, NULL, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_UNKNOWN_KEY);
  g_assert_nonnull (strstr (error->message, "cases[0]: measured.step_time: unknown key; did you mean \"step_time_s\"?"));
  g_remove (path);
  g_rmdir (dir);
}

/* A visible table of tests/data, parsed: its cases (a reference of their own), its
 * path and the folder its scenarios' relative paths start from. */
static JsonArray *
load_table (const char *file,
            char      **path,
            char      **dir)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root = NULL;

  *path = g_test_build_filename (G_TEST_DIST, "data", file, NULL);
  *dir = g_path_get_dirname (*path);
  root = plx_json_parse_file (*path, &error);
  g_assert_no_error (error);
  return json_array_ref (json_object_get_array_member (json_node_get_object (root), "cases"));
}

/* Narayanan et al. 2021 ran ZeRO-3 "via the DeepSpeed library" (§5.2), and the table
 * says so (issue 36 item 1): its six ZeRO-3 rows are costed as DeepSpeed, whose 2021
 * ZeRO-3 waits for its collectives - v0.3.14 (April 2021, the paper's month) calls
 * torch.cuda.synchronize() before each parameter's all_gather
 * (partition_parameters.py, _allgather_param; DeepSpeed PR #1188: "the async version
 * is not async at all") and its stage-3 optimizer leaves overlap_comm off, so the
 * gradients' reduce_scatter runs on the compute stream. Each row's gathers and
 * reduce-scatters are therefore added to its compute: the prediction exceeds the same
 * run with them overlapped, in both engines; the PTD-P rows stay as they were. */
static void
test_narayanan_zero3_deepspeed (void)
{
  g_autofree char *path = NULL, *dir = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) cases = load_table ("narayanan2021-table2.json", &path, &dir);
  guint zero3 = 0, others = 0;

  for (guint i = 0; i < json_array_get_length (cases); i++)
    {
      JsonNode *scenario = json_object_get_member (json_array_get_object_element (cases, i), "scenario");
      g_autoptr (JsonNode) overlapped = plx_json_deep_copy (scenario);
      g_autoptr (PlxScenario) sc = plx_scenario_new_from_json (scenario, dir, "narayanan", &error);
      g_autoptr (PlxScenario) ov = NULL;
      PlxReport serial, hidden, event;

      g_assert_no_error (error);
      if (sc->strategy->zero_stage < 3)
        {
          g_assert_cmpint (sc->strategy->implementation, !=, PLX_IMPLEMENTATION_DEEPSPEED);
          others++;
          continue;
        }
      g_assert_cmpint (sc->strategy->implementation, ==, PLX_IMPLEMENTATION_DEEPSPEED);
      g_assert_false (sc->strategy->overlap_dp_comm);
      json_object_set_boolean_member (json_object_get_object_member (json_node_get_object (overlapped), "strategy"),
                                      "overlap_dp_comm", TRUE);
      ov = plx_scenario_new_from_json (overlapped, dir, "narayanan", &error);
      g_assert_no_error (error);
      serial = test_run (sc);
      hidden = test_run (ov);
      g_assert_cmpfloat (serial.step_time_s, >, hidden.step_time_s);
      g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &event, NULL, NULL, NULL, NULL));
      g_assert_cmpfloat (fabs (event.step_time_s - serial.step_time_s) / event.step_time_s, <, 0.03);
      zero3++;
    }
  g_assert_cmpuint (zero3, ==, 6);
  g_assert_cmpuint (others, ==, 6);
}

/* Issue 36: the MosaicML runs used llm-foundry's FlashAttention in Triton (attn_impl
 * triton), which the table says. At 8k tokens and more, where attention is much of
 * the work, each of the six rows' step time is within 10 % with that kernel's ceiling
 * (FlashAttention-2's over 1.8, Dao 2023 §4.1), their mean error under half of what
 * FlashAttention-2's ceiling gives, which predicts the 16k and 32k rows over 20 % too
 * fast; the source's mean over step time, MFU and throughput is within issue 36's 8 %. */
static void
test_mosaicml_triton_attention (void)
{
  g_autofree char *path = NULL, *dir = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) cases = load_table ("mosaicml-mpt.json", &path, &dir);
  g_autoptr (PlxValidation) v = NULL;
  guint long_rows = 0;
  double sum_triton = 0.0, sum_fa2 = 0.0;

  for (guint i = 0; i < json_array_get_length (cases); i++)
    {
      JsonObject *c = json_array_get_object_element (cases, i);
      JsonNode *scenario = json_object_get_member (c, "scenario");
      double measured = json_object_get_double_member (json_object_get_object_member (c, "measured"), "step_time_s");
      g_autoptr (PlxScenario) sc = plx_scenario_new_from_json (scenario, dir, "mpt", &error);
      PlxReport triton, fa2;

      g_assert_no_error (error);
      g_assert_cmpint (sc->strategy->attention_kernel, ==, PLX_ATTENTION_KERNEL_TRITON);
      g_assert_true (sc->strategy->flash_attention);
      if (sc->strategy->seq_length < 8192)
        continue;
      triton = test_run (sc);
      sc->strategy->attention_kernel = PLX_ATTENTION_KERNEL_AUTO;
      fa2 = test_run (sc);
      g_test_message ("%s: measured %.2f s, Triton kernel %.2f s, FlashAttention-2 %.2f s",
                      json_object_get_string_member (c, "name"), measured, triton.step_time_s, fa2.step_time_s);
      g_assert_cmpfloat (fabs (triton.step_time_s / measured - 1.0), <=, 0.10);
      if (sc->strategy->seq_length >= 16384)
        g_assert_cmpfloat (fa2.step_time_s / measured - 1.0, <, -0.20);
      sum_triton += fabs (triton.step_time_s / measured - 1.0);
      sum_fa2 += fabs (fa2.step_time_s / measured - 1.0);
      long_rows++;
    }
  g_assert_cmpuint (long_rows, ==, 6);
  g_assert_cmpfloat (sum_triton, <, 0.5 * sum_fa2);
  v = plx_validation_run_file (path, "event", &error);
  g_assert_no_error (error);
  g_test_message ("mosaicml-mpt: mean %.2f %%", v->performance.mean_abs_error_pct);
  g_assert_cmpfloat (v->performance.mean_abs_error_pct, <=, 8.0);
}

/* Issue 36: every NeMo 24.07 fp8 run ran, so each must be predicted to fit. NVIDIA's
 * recipes of the period keep 16-bit gradients (distributed_fused_adam with
 * grad_sync_dtype bf16) and fp8 parameters (fp8_params), which the table says. With
 * Megatron-LM's fp32 gradients and an fp8 copy beside the bf16 weights, GPT-3 20B on
 * TP 2 does not fit: of its 20.3 B parameters 10.15 B are on each GPU, 9.97 B of them
 * in the fp8 linears (44 x 12 x 6144^2 / 2), so bf16 weights 20.3 GB + fp8 copies and
 * transposes 19.9 GB + fp32 gradients 40.6 GB = 80.8 GB before any activation. */
static void
test_nemo_fp8_memory (void)
{
  g_autofree char *path = NULL, *dir = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) cases = load_table ("nemo-perf-h100-fp8.json", &path, &dir);
  g_autoptr (PlxValidation) v = plx_validation_run_file (path, "event", &error);
  guint checked = 0;

  g_assert_no_error (error);
  g_assert_cmpuint (v->fits->len, ==, 9);
  g_assert_cmpuint (plx_validation_count_fits (v), ==, 9);
  for (guint i = 0; i < json_array_get_length (cases); i++)
    {
      JsonObject *c = json_array_get_object_element (cases, i);
      JsonNode *scenario = json_object_get_member (c, "scenario");
      g_autoptr (PlxScenario) sc = plx_scenario_new_from_json (scenario, dir, "nemo", &error);
      PlxReport r;

      g_assert_no_error (error);
      g_assert_cmpint (sc->strategy->grad_dtype, ==, PLX_GRAD_DTYPE_BF16);
      g_assert_true (plx_strategy_fp8_param_gather (sc->strategy));
      if (strstr (json_object_get_string_member (c, "name"), "GPT3-20B") == NULL)
        continue;
      sc->strategy->grad_dtype = PLX_GRAD_DTYPE_AUTO;
      sc->strategy->fp8_param_gather = FALSE;
      r = test_run (sc);
      g_assert_false (r.fits_in_memory);
      g_assert_cmpfloat (fabs ((double) (r.memory_bytes[PLX_MEM_WEIGHTS] + r.memory_bytes[PLX_MEM_GRADIENTS]) / 80.8e9 - 1.0),
                         <, 0.01);
      checked++;
    }
  g_assert_cmpuint (checked, ==, 1);
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/core/validation/korthikanti2022", test_korthikanti2022);
  g_test_add_func ("/core/validation/bloom-uneven-stages", test_bloom_uneven_stages);
  g_test_add_func ("/core/validation/every-source-runs", test_every_source_runs);
  g_test_add_func ("/core/validation/engines-agree", test_engines_agree);
  g_test_add_func ("/core/validation/issue10-bars", test_issue10_bars);
  g_test_add_func ("/core/validation/summary-statistics", test_summary_statistics);
  g_test_add_func ("/core/validation/memory-fits", test_memory_fits);
  g_test_add_func ("/core/validation/bad-table", test_bad_table);
  g_test_add_func ("/core/validation/narayanan-zero3-deepspeed", test_narayanan_zero3_deepspeed);
  g_test_add_func ("/core/validation/mosaicml-triton-attention", test_mosaicml_triton_attention);
  g_test_add_func ("/core/validation/nemo-fp8-memory", test_nemo_fp8_memory);
  return g_test_run ();
}
