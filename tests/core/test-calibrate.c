/* Calibration: the fit recovers parameters that made the "measurements", reports
 * them and the errors per source, and writes a cluster file that loads. */
#include <math.h>

#include <string.h>

#include <glib/gstdio.h>

#include "parallax/parallax.h"
#include "base/plx-json.h"

/* Four GPT-3-like runs on 8-32 A100s, Megatron-style, different shapes so that GEMM
 * sizes and memory-bound shares differ between them. */
static const char *const scenarios[] = {
  "{ \"model\": { \"preset\": \"gpt2-xl\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 },"
  "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 64, \"micro_batch_size\": 4, \"dp\": 8 } }",
  "{ \"model\": { \"preset\": \"megatron-22b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 },"
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 4, \"tp\": 8, \"recompute\": \"full\" } }",
  "{ \"model\": { \"preset\": \"llama-2-7b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 2 },"
  "  \"strategy\": { \"seq_length\": 4096, \"global_batch_size\": 64, \"tp\": 2, \"dp\": 8, \"flash_attention\": true,"
  "                \"zero_stage\": 1 } }",
  "{ \"model\": { \"preset\": \"llama-2-13b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 4 },"
  "  \"strategy\": { \"seq_length\": 4096, \"global_batch_size\": 128, \"tp\": 4, \"pp\": 2, \"dp\": 4,"
  "                \"flash_attention\": true, \"sequence_parallel\": true } }",
};

/* A table whose measured step times are the model's own with the given matmul and
 * memory factors: a fit must find them again. */
static char *
synthetic_table (const char *dir, const char *file, guint first, guint n, double matmul, double memory)
{
  g_autoptr (GString) json = g_string_new ("{ \"source\": \"synthetic\", \"cases\": [");
  g_autofree char *path = g_build_filename (dir, file, NULL);

  for (guint i = first; i < first + n; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (JsonNode) node = plx_json_parse_data (scenarios[i], -1, "test", &error);
      g_autoptr (PlxScenario) sc = plx_scenario_new_from_json (node, ".", "test", &error);
      PlxReport r;

      g_assert_no_error (error);
      sc->cluster->matmul_scale = matmul;
      sc->cluster->memory_scale = memory;
      sc->cluster->inter_node.scale = 1.0;
      sc->cluster->layer_overhead_s = sc->cluster->overlap_slowdown = 0.0;
      g_assert_true (plx_analytic_run (sc->model, sc->cluster, sc->strategy, &r, NULL));
      g_string_append_printf (json, "%s{ \"name\": \"case %u\", \"scenario\": %s, \"measured\": { \"step_time_s\": %.17g } }",
                              i > first ? ", " : "", i, scenarios[i], r.step_time_s);
    }
  g_string_append (json, "] }");
  g_assert_true (g_file_set_contents (path, json->str, -1, NULL));
  return g_steal_pointer (&path);
}

static void
test_recovers_parameters (void)
{
  g_autofree char *dir = g_dir_make_tmp ("plx-calibrate-XXXXXX", NULL);
  g_autofree char *a = synthetic_table (dir, "a.json", 0, 2, 0.85, 0.7);
  g_autofree char *b = synthetic_table (dir, "b.json", 2, 2, 0.85, 0.7);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxValidationTable) ta = plx_validation_table_load (a, &error);
  g_autoptr (PlxValidationTable) tb = plx_validation_table_load (b, &error);
  PlxValidationTable *tables[2];
  gboolean fit[PLX_N_CAL];
  g_autoptr (PlxCalibration) cal = NULL;

  g_assert_no_error (error);
  tables[0] = ta;
  tables[1] = tb;
  g_assert_true (plx_cal_params_parse ("matmul,memory", fit, &error));
  cal = plx_calibrate (tables, 2, "dgx-a100-80gb", fit, &error);
  g_assert_no_error (error);
  g_test_message ("matmul %.4f +- %.4f, memory %.4f +- %.4f, after %.3f %%", cal->value[PLX_CAL_MATMUL_SCALE],
                  cal->std_error[PLX_CAL_MATMUL_SCALE], cal->value[PLX_CAL_MEMORY_SCALE],
                  cal->std_error[PLX_CAL_MEMORY_SCALE], cal->mean_after_pct);
  g_assert_cmpuint (cal->n_comparisons, ==, 4);
  /* Found again, but for the prior's pull towards 1 (a factor 10 % off weighs as
   * one comparison 1 % off): under half a percent for the matmul factor, which
   * moves most of each step; a few percent for the memory factor, which moves a
   * tenth of it, so the four comparisons hold it less firmly. */
  g_assert_cmpfloat (fabs (cal->value[PLX_CAL_MATMUL_SCALE] - 0.85) / 0.85, <, 5e-3);
  g_assert_cmpfloat (fabs (cal->value[PLX_CAL_MEMORY_SCALE] - 0.7) / 0.7, <, 3e-2);
  /* Not fitted: as uncalibrated. */
  g_assert_cmpfloat (cal->value[PLX_CAL_NETWORK_SCALE], ==, 1.0);
  g_assert_cmpfloat (cal->value[PLX_CAL_LAYER_OVERHEAD_S], ==, 0.0);
  g_assert_cmpfloat (cal->value[PLX_CAL_OVERLAP_SLOWDOWN], ==, 0.0);
  g_assert_cmpfloat (cal->mean_after_pct, <, 0.5);
  g_assert_cmpfloat (cal->mean_before_pct, >, 5.0);
  g_assert_cmpuint (cal->sources->len, ==, 2);

  {
    /* The calibrated cluster loads and predicts the "measured" step time. */
    g_autoptr (JsonNode) cluster = plx_calibration_cluster_json (cal, &error);
    g_autoptr (PlxCluster) c = NULL;
    g_assert_no_error (error);
    c = plx_cluster_new_from_json (cluster, "calibrated", &error);
    g_assert_no_error (error);
    g_assert_cmpfloat (fabs (c->matmul_scale - cal->value[PLX_CAL_MATMUL_SCALE]), <, 1e-12);
    g_assert_cmpfloat (fabs (c->memory_scale - cal->value[PLX_CAL_MEMORY_SCALE]), <, 1e-12);
  }
  g_remove (a);
  g_remove (b);
  g_rmdir (dir);
}

static void
test_leave_one_source_out (void)
{
  /* One factor behind both tables: fitted on either alone it is found, so each
   * table is predicted from the other's fit as well as from its own. */
  g_autofree char *dir = g_dir_make_tmp ("plx-calibrate-XXXXXX", NULL);
  g_autofree char *a = synthetic_table (dir, "a.json", 0, 2, 0.85, 1.0);
  g_autofree char *b = synthetic_table (dir, "b.json", 2, 2, 0.85, 1.0);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxValidationTable) ta = plx_validation_table_load (a, &error);
  g_autoptr (PlxValidationTable) tb = plx_validation_table_load (b, &error);
  PlxValidationTable *tables[2];
  gboolean fit[PLX_N_CAL];
  g_autoptr (PlxCalibration) cal = NULL;

  tables[0] = ta;
  tables[1] = tb;
  g_assert_true (plx_cal_params_parse ("matmul", fit, &error));
  cal = plx_calibrate (tables, 2, "dgx-a100-80gb", fit, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (fabs (cal->value[PLX_CAL_MATMUL_SCALE] - 0.85) / 0.85, <, 5e-3);
  g_assert_cmpfloat (cal->mean_after_pct, <, 0.5);
  for (guint s = 0; s < 2; s++)
    g_assert_cmpfloat (g_array_index (cal->source_loso_pct, double, s), <, 0.5);
  g_assert_cmpfloat (cal->loso_mean_pct, <, 0.5);
  g_remove (a);
  g_remove (b);
  g_rmdir (dir);
}

/* Issue 10: the built-in A100 and H100 presets carry a fit of matmul, memory, network
 * and overlap to the visible tables; refitted here, each source predicted by the
 * parameters fitted without it stays within 10 % on the mean, and the fit finds the
 * values the preset carries (docs/calibration.md). */
static void
test_presets_leave_one_source_out (void)
{
  static const char *const files[] = {
    "korthikanti2022.json", "megatron-lm-readme-h100.json", "torchtitan-a100.json",
    "fms-fsdp-a100-h100.json", "nemo-perf-h100-fp8.json", "bloom176b.json",
  };
  static const char *const presets[] = { "dgx-a100-80gb", "dgx-h100-80gb" };
  PlxValidationTable *tables[G_N_ELEMENTS (files)];
  gboolean fit[PLX_N_CAL];

  g_assert_true (plx_cal_params_parse ("matmul,memory,network,overlap", fit, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", files[i], NULL);
      tables[i] = plx_validation_table_load (path, NULL);
      g_assert_nonnull (tables[i]);
    }
  for (guint p = 0; p < G_N_ELEMENTS (presets); p++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxCalibration) cal = plx_calibrate (tables, G_N_ELEMENTS (files), presets[p], fit, &error);
      g_autoptr (PlxCluster) preset = plx_cluster_new_preset (presets[p], &error);

      g_assert_no_error (error);
      g_test_message ("%s: %u comparisons, %.2f %% -> %.2f %%, %.2f %% leaving each source out", presets[p],
                      cal->n_comparisons, cal->mean_before_pct, cal->mean_after_pct, cal->loso_mean_pct);
      g_assert_cmpfloat (cal->loso_mean_pct, <=, 10.0);
      g_assert_cmpfloat (cal->mean_after_pct, <=, 6.0);
      g_assert_cmpfloat (fabs (cal->value[PLX_CAL_MATMUL_SCALE] - preset->matmul_scale), <, 1e-3);
      g_assert_cmpfloat (fabs (cal->value[PLX_CAL_OVERLAP_SLOWDOWN] - preset->overlap_slowdown), <, 1e-3);
    }
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    plx_validation_table_free (tables[i]);
}

static void
test_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("plx-calibrate-XXXXXX", NULL);
  g_autofree char *a = synthetic_table (dir, "a.json", 0, 1, 1.0, 1.0);
  g_autoptr (PlxValidationTable) ta = plx_validation_table_load (a, &error);
  PlxValidationTable *tables[1] = { ta };
  gboolean fit[PLX_N_CAL];
  PlxCalibration *cal;

  g_assert_false (plx_cal_params_parse ("matmul,clock", fit, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "\"clock\""));
  g_clear_error (&error);
  g_assert_false (plx_cal_params_parse (" , ", fit, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "nothing to fit"));
  g_clear_error (&error);
  /* No case of the table runs on H100s. */
  g_assert_true (plx_cal_params_parse ("matmul", fit, &error));
  cal = plx_calibrate (tables, 1, "dgx-h100-80gb", fit, &error);
  g_assert_null (cal);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "dgx-h100-80gb"));
  g_remove (a);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/calibrate/recovers-parameters", test_recovers_parameters);
  g_test_add_func ("/calibrate/leave-one-source-out", test_leave_one_source_out);
  g_test_add_func ("/calibrate/presets-leave-one-source-out", test_presets_leave_one_source_out);
  g_test_add_func ("/calibrate/errors", test_errors);
  return g_test_run ();
}
