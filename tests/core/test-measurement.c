/* Measurement files told apart by content and fitted for the Calibration page
 * (plx-measurement.h), on the real files of tests/data: the kinds, the rule that one
 * kind makes a calibration, the group read from nccl-tests' rank lines, one chart per
 * GEMM dtype, and the trace's GEMMs matched to a scenario. */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "parallax/parallax.h"

#include "test-home.h"
#include "calibrate/plx-kineto-match.h"
#include "calibrate/plx-measurement.h"
#include "cost/plx-op-cost.h"

static char *
data (const char *dir, const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", dir, name, NULL);
}

static JsonNode *
preset (const char *name)
{
  JsonObject *o = json_object_new ();
  JsonNode *n = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (o, "preset", name);
  json_node_take_object (n, o);
  return n;
}

static PlxMeasuredFit *
fit_one (const char *dir, const char *name, const char *cluster, PlxMeasurementKind expect, GError **error)
{
  g_autofree char *path = data (dir, name);
  g_autoptr (JsonNode) base = preset (cluster);
  const char *paths[] = { path };
  PlxMeasurementKind kind;

  g_assert_true (plx_measurement_detect (path, &kind, NULL));
  g_assert_cmpint (kind, ==, expect);
  return plx_measured_fit (base, cluster, paths, &kind, 1, 8, 8, TRUE, NULL, NULL, error);
}

static const PlxCalCurve *
curve_of (const PlxMeasuredFit *fit, PlxCalCurveRole role, const char *dtype)
{
  for (guint i = 0; i < fit->curves->len; i++)
    {
      const PlxCalCurve *c = fit->curves->pdata[i];
      if (c->role == role && g_strcmp0 (c->dtype, dtype) == 0)
        return c;
    }
  return NULL;
}

static void
test_kinds (void)
{
  g_autofree char *dir = g_dir_make_tmp ("plx-measurement-XXXXXX", NULL);
  g_autofree char *notes = g_build_filename (dir, "notes.csv", NULL);
  g_autoptr (GError) error = NULL;
  PlxMeasurementKind kind;

  /* Two sweeps combine (calibrate --gemm F --membw F); anything else only with its own kind. */
  g_assert_true (plx_measurement_kinds_combine (PLX_MEASUREMENT_GEMM_SWEEP, PLX_MEASUREMENT_MEMBW_SWEEP));
  g_assert_false (plx_measurement_kinds_combine (PLX_MEASUREMENT_NCCL_TESTS, PLX_MEASUREMENT_GEMM_SWEEP));
  g_assert_false (plx_measurement_kinds_combine (PLX_MEASUREMENT_KINETO, PLX_MEASUREMENT_MEMBW_SWEEP));
  g_assert_true (plx_measurement_kinds_combine (PLX_MEASUREMENT_NCCL_TESTS, PLX_MEASUREMENT_NCCL_TESTS));

  g_assert_true (g_file_set_contents (notes, "when,what\n2024-01-01,hello\n", -1, NULL));
  g_assert_false (plx_measurement_detect (notes, &kind, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, notes));
  /* An empty file, and one of blank lines, say so rather than "not a measurement file". */
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (notes, "", -1, NULL));
  g_assert_false (plx_measurement_detect (notes, &kind, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, notes));
  g_assert_nonnull (strstr (error->message, ": the file is empty"));
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (notes, "\n  \r\n\n", -1, NULL));
  g_assert_false (plx_measurement_detect (notes, &kind, &error));
  g_assert_nonnull (strstr (error->message, ": the file is empty (only blank lines)"));
  g_remove (notes);
  g_rmdir (dir);
}

static void
test_nccl_group_from_file (void)
{
  /* The H100 file lists 8 ranks on one host: the group it measured is 8 x 1 whatever
   * the caller's 8 x 8; without reading the ranks, 8 x 8 is refused by the fit. Five
   * tests (all_reduce ... sendrecv) are five series of the intra-node link. */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxMeasuredFit) fit = fit_one ("nccl-tests", "h100-1x8-nvlink-five-ops.txt", "dgx-a100-80gb",
                                            PLX_MEASUREMENT_NCCL_TESTS, &error);
  g_autofree char *path = data ("nccl-tests", "h100-1x8-nvlink-five-ops.txt");
  g_autoptr (JsonNode) base = preset ("dgx-a100-80gb");
  const char *paths[] = { path };
  PlxMeasurementKind kind = PLX_MEASUREMENT_NCCL_TESTS;
  g_autoptr (PlxMeasuredFit) fixed = NULL;
  const PlxCalCurve *link;

  g_assert_no_error (error);
  g_assert_cmpuint (fit->gpus_per_node, ==, 8);
  g_assert_cmpuint (fit->nodes, ==, 1);
  link = curve_of (fit, PLX_CAL_CURVE_INTRA_NODE, NULL);
  g_assert_nonnull (link);
  g_assert_cmpuint (link->series->len, ==, 5);
  g_assert_true (link->residual_is_time);
  g_assert_null (fit->gemm_match);

  fixed = plx_measured_fit (base, "dgx-a100-80gb", paths, &kind, 1, 8, 8, FALSE, NULL, NULL, &error);
  g_assert_null (fixed);
  g_assert_nonnull (error);
}

/* The log-x interpolation of a sampled curve at x (NAN outside it). */
static double
curve_at (const GArray *xy, double x)
{
  for (guint i = 1; i < xy->len; i++)
    {
      const PlxCalXY *a = &g_array_index (xy, PlxCalXY, i - 1), *b = &g_array_index (xy, PlxCalXY, i);
      if (a->x <= x && x <= b->x)
        return a->y + (b->y - a->y) * (log (x) - log (a->x)) / (log (b->x) - log (a->x));
    }
  return NAN;
}

static void
test_nccl_own_curves (void)
{
  /* The H100 file's all-reduce defines the link curve; all-gather misses it by about
   * 25 % and gets its own curve (docs/calibration.md), which the chart draws through
   * its points: at 1 GiB the all-gather's point is the bandwidth that gives the
   * measured 2700.76 us, 7/8 x 2^30 B / 2700.76 us = 347.87 GB/s (a one-node ring,
   * Thakur et al. 2005), and the own curve passes within 1 % of it. The all-reduce
   * series has no curve of its own. */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxMeasuredFit) fit = fit_one ("nccl-tests", "h100-1x8-nvlink-five-ops.txt", "dgx-h100-80gb",
                                            PLX_MEASUREMENT_NCCL_TESTS, &error);
  const PlxCalCurve *link;
  const PlxCalSeries *all_reduce = NULL, *all_gather = NULL;
  double expected = 7.0 / 8.0 * 1073741824.0 / 2700.76e-6;

  g_assert_no_error (error);
  link = curve_of (fit, PLX_CAL_CURVE_INTRA_NODE, NULL);
  g_assert_nonnull (link);
  for (guint i = 0; i < link->series->len; i++)
    {
      const PlxCalSeries *s = link->series->pdata[i];
      if (g_str_equal (s->label, "all_reduce_perf"))
        all_reduce = s;
      else if (g_str_equal (s->label, "all_gather_perf"))
        all_gather = s;
    }
  g_assert_nonnull (all_reduce);
  g_assert_nonnull (all_gather);
  g_assert_cmpuint (all_reduce->own->len, ==, 0);
  g_assert_cmpuint (all_gather->own->len, >, 2);
  g_assert_cmpfloat_with_epsilon (curve_at (all_gather->own, 1073741824.0) / expected, 1.0, 0.01);
}

static void
test_gemm_sweep_per_dtype (void)
{
  /* XLA's H100 table: 31 bf16 and 31 tf32 GEMMs, one chart each, every row a
   * residual; the cluster written has the bf16 curve as matmul and the tf32 one as
   * matmul_tf32. A residual is measured / fitted - 1 (plx-sweep-fit.h). */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxMeasuredFit) fit = fit_one ("sweeps", "xla-h100-gemm.csv", "dgx-h100-80gb", PLX_MEASUREMENT_GEMM_SWEEP,
                                            &error);
  const PlxCalCurve *bf16, *tf32;
  JsonObject *eff;

  g_assert_no_error (error);
  bf16 = curve_of (fit, PLX_CAL_CURVE_MATMUL, "bf16");
  tf32 = curve_of (fit, PLX_CAL_CURVE_MATMUL, "tf32");
  g_assert_nonnull (bf16);
  g_assert_nonnull (tf32);
  g_assert_cmpuint (bf16->residuals->len, ==, 31);
  g_assert_cmpuint (tf32->residuals->len, ==, 31);
  for (guint i = 0; i < tf32->residuals->len; i++)
    {
      const PlxCalResidual *r = &g_array_index (tf32->residuals, PlxCalResidual, i);
      g_assert_cmpfloat_with_epsilon (r->residual_pct, (r->measured / r->fitted - 1.0) * 100.0, 1e-9);
    }
  eff = json_object_get_object_member (json_object_get_object_member (json_node_get_object (fit->cluster), "gpu"),
                                       "efficiency");
  g_assert_true (json_object_has_member (eff, "matmul"));
  g_assert_true (json_object_has_member (eff, "matmul_tf32"));
  g_assert_false (json_object_has_member (eff, "matmul_fp32"));
}

static void
test_trace_per_dtype (void)
{
  /* The HTA recommendation model ran fp32: 64 GEMM ops on TF32 (s1688) kernels, 25 on
   * the FP32 units, 39 elementwise ops with recorded shapes (tests/cli/test-cli.c
   * /cli/calibrate-kineto); no 16-bit GEMM, so no 16-bit chart. The two largest TF32
   * GEMMs (8.03e10 FLOPs) form one group of two: its efficiency is their median, the
   * mean of the two, and the curve passes through it. */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxMeasuredFit) fit = fit_one ("kineto", "hta-sampled-rank0.json", "dgx-a100-80gb", PLX_MEASUREMENT_KINETO,
                                            &error);
  const PlxCalCurve *tf32, *fp32, *memory;
  double big_x = 0.0, sum = 0.0, fitted = 0.0;
  guint n_big = 0;

  g_assert_no_error (error);
  g_assert_null (curve_of (fit, PLX_CAL_CURVE_MATMUL, "16-bit"));
  tf32 = curve_of (fit, PLX_CAL_CURVE_MATMUL, "tf32");
  fp32 = curve_of (fit, PLX_CAL_CURVE_MATMUL, "fp32");
  memory = curve_of (fit, PLX_CAL_CURVE_MEMORY, NULL);
  g_assert_nonnull (tf32);
  g_assert_nonnull (fp32);
  g_assert_nonnull (memory);
  g_assert_cmpuint (fit->curves->len, ==, 3);
  g_assert_cmpuint (tf32->residuals->len, ==, 64);
  g_assert_cmpuint (fp32->residuals->len, ==, 25);
  g_assert_cmpuint (memory->residuals->len, ==, 39);
  for (guint i = 0; i < tf32->residuals->len; i++)
    big_x = MAX (big_x, g_array_index (tf32->residuals, PlxCalResidual, i).size);
  for (guint i = 0; i < tf32->residuals->len; i++)
    {
      const PlxCalResidual *r = &g_array_index (tf32->residuals, PlxCalResidual, i);
      if (r->size > big_x / 2.0)
        {
          n_big++;
          sum += r->measured;
          fitted = r->fitted;
        }
    }
  g_assert_cmpuint (n_big, ==, 2);
  g_assert_cmpfloat (big_x, >, 8.0e10);
  g_assert_cmpfloat_with_epsilon (fitted, sum / 2.0, 1e-12);
}

static void
test_trace_matched_to_scenario (void)
{
  /* tests/data/kineto-gemm/README.md: with the scenario written for the real MLP trace,
   * six of its 15 GEMM products are measured (fc1 and fc2), fc1's forward at the
   * median of 60 and 63 us; the cluster carries the two shapes as measured_gemms. */
  g_autofree char *trace = data ("kineto-gemm", "hta-mlp-a100.json");
  g_autofree char *scenario_path = data ("kineto-gemm", "gpt2-mlp1024-a100.json");
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScenario) sc = plx_scenario_new_from_file (scenario_path, &error);
  g_autoptr (JsonNode) base = preset ("dgx-a100-40gb");
  g_autoptr (PlxMeasuredFit) fit = NULL;
  g_autoptr (PlxCluster) written = NULL;
  const char *paths[] = { trace };
  PlxMeasurementKind kind = PLX_MEASUREMENT_KINETO;
  guint measured = 0;

  g_assert_no_error (error);
  fit = plx_measured_fit (base, "dgx-a100-40gb", paths, &kind, 1, 1, 1, TRUE, sc->model, sc->strategy, &error);
  g_assert_no_error (error);
  g_assert_nonnull (fit->gemm_match);
  g_assert_cmpuint (fit->gemm_match->rows->len, ==, 15);
  for (guint i = 0; i < fit->gemm_match->rows->len; i++)
    {
      const PlxGemmMatchRow *r = &g_array_index (fit->gemm_match->rows, PlxGemmMatchRow, i);
      if (r->measured_s <= 0.0)
        continue;
      measured++;
      if (g_str_equal (r->op, "fc1") && r->product == PLX_GEMM_FORWARD)
        g_assert_cmpfloat_with_epsilon (r->measured_s, 61.5e-6, 1e-15);
    }
  g_assert_cmpuint (measured, ==, 6);
  written = plx_cluster_new_from_json (fit->cluster, "written", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (written->n_measured_gemms, ==, 2);
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/measurement/kinds", test_kinds);
  g_test_add_func ("/measurement/nccl-group-from-file", test_nccl_group_from_file);
  g_test_add_func ("/measurement/nccl-own-curves", test_nccl_own_curves);
  g_test_add_func ("/measurement/gemm-sweep-per-dtype", test_gemm_sweep_per_dtype);
  g_test_add_func ("/measurement/trace-per-dtype", test_trace_per_dtype);
  g_test_add_func ("/measurement/trace-matched-to-scenario", test_trace_matched_to_scenario);
  return g_test_run ();
}
