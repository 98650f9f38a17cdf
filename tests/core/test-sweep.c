/* GEMM and memory-bandwidth sweeps: the CSV readers, the efficiency fits and the
 * cluster file written from them (docs/calibration.md "From GEMM and bandwidth
 * sweeps"). Real sweeps: tests/data/sweeps/README.md. */
#include <math.h>
#include <string.h>

#include "parallax/parallax.h"

#include "../test-home.h"
#include "base/plx-presets.h"
#include "calibrate/plx-sweep-fit.h"
#include "calibrate/plx-sweep.h"
#include "cost/plx-op-cost.h"

static char *
sweep_path (const char *name)
{
  return g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "sweeps", name, NULL);
}

static gboolean
close_rel (double a, double b, double tol)
{
  return fabs (a - b) <= tol * fabs (b);
}

static void
test_parse_gemm (void)
{
  /* Headers spelled as tools print them; a comment, a blank line and CRLF endings. */
  const char *text = "# sweep of my GPU\r\n"
                     "M, N, K, Batch, DType, Time (us), notes\r\n"
                     "\r\n"
                     "1024, 2048, 256, 2, bfloat16, 12.5, first\r\n"
                     "\"8\",16,32,1,torch.float16,0.75,\r\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxGemmSweep) s = plx_gemm_sweep_parse (text, "my.csv", &error);
  const PlxGemmRow *r;

  g_assert_no_error (error);
  g_assert_cmpuint (s->rows->len, ==, 2);
  r = &g_array_index (s->rows, PlxGemmRow, 0);
  g_assert_cmpfloat (r->m, ==, 1024);
  g_assert_cmpfloat (r->n, ==, 2048);
  g_assert_cmpfloat (r->k, ==, 256);
  g_assert_cmpfloat (r->batch, ==, 2);
  g_assert_cmpint (r->dtype, ==, PLX_DTYPE_BF16);
  g_assert_true (close_rel (r->time_s, 12.5e-6, 1e-15));
  g_assert_cmpuint (r->line, ==, 4);
  /* 2 · 2 · 1024 · 2048 · 256 */
  g_assert_cmpfloat (plx_gemm_row_flops (r), ==, 2147483648.0);
  r = &g_array_index (s->rows, PlxGemmRow, 1);
  g_assert_cmpfloat (r->m, ==, 8);
  g_assert_cmpint (r->dtype, ==, PLX_DTYPE_FP16);
  g_assert_true (close_rel (r->time_s, 0.75e-6, 1e-15));
  g_assert_cmpuint (r->line, ==, 5);
}

/* RFC 4180 quoting: a quoted field holds commas, doubled quotes and a line break; a
 * quoted header name a comma. Rows: 1024 x 2048 x 256 bf16 in 12.5 us on line 3,
 * 8 x 16 x 32 fp16 in 0.75 us on line 4 (its note runs onto line 5). A quote that
 * never closes, or text after a closing quote, is an error naming the line. */
static void
test_parse_quoted (void)
{
  const char *text = "# kernels as the tool names them\n"
                     "m,n,k,dtype,time (us),\"kernel, as profiled\"\n"
                     "1024,2048,256,bf16,12.5,\"sm90_xmma_gemm_bf16bf16, \"\"nt\"\"\"\n"
                     "8,16,32,fp16,\" 0.75 \",\"split\r\nover two lines\"\r\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxGemmSweep) s = plx_gemm_sweep_parse (text, "quoted.csv", &error);
  const PlxGemmRow *r;

  g_assert_no_error (error);
  g_assert_cmpuint (s->rows->len, ==, 2);
  r = &g_array_index (s->rows, PlxGemmRow, 0);
  g_assert_cmpfloat (r->m, ==, 1024);
  g_assert_cmpfloat (r->k, ==, 256);
  g_assert_true (close_rel (r->time_s, 12.5e-6, 1e-15));
  g_assert_cmpuint (r->line, ==, 3);
  r = &g_array_index (s->rows, PlxGemmRow, 1);
  g_assert_cmpfloat (r->n, ==, 16);
  g_assert_cmpint (r->dtype, ==, PLX_DTYPE_FP16);
  g_assert_true (close_rel (r->time_s, 0.75e-6, 1e-15));
  g_assert_cmpuint (r->line, ==, 4);

  {
    g_autoptr (PlxGemmSweep) open_quote =
      plx_gemm_sweep_parse ("m,n,k,dtype,time_us\n8,16,32,fp16,\"0.75\n9,16,32,fp16,1\n", "open.csv", &error);
    g_assert_null (open_quote);
    g_assert_error (error, PLX_ERROR, PLX_ERROR_PARSE);
    g_assert_cmpstr (error->message, ==, "open.csv:2: a quoted field that never closes");
    g_clear_error (&error);
  }
  {
    g_autoptr (PlxMembwSweep) after =
      plx_membw_sweep_parse ("bytes,time_us\n1024,\"2\"x\n", "after.csv", &error);
    g_assert_null (after);
    g_assert_error (error, PLX_ERROR, PLX_ERROR_PARSE);
    g_assert_nonnull (strstr (error->message, "after.csv:2: text after a quoted field's closing quote"));
  }
}

static void
test_parse_gemm_throughput (void)
{
  /* 2 · 4096^3 = 137,438,953,472 FLOPs at 100 TFLOP/s: 1.37438953472 ms. */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxGemmSweep) s = plx_gemm_sweep_parse ("m,n,k,dtype,TFLOP/s\n4096,4096,4096,bf16,100\n", "t.csv", &error);

  g_assert_no_error (error);
  g_assert_cmpfloat (g_array_index (s->rows, PlxGemmRow, 0).batch, ==, 1);
  g_assert_true (close_rel (g_array_index (s->rows, PlxGemmRow, 0).time_s, 1.37438953472e-3, 1e-14));
}

static void
test_parse_real (void)
{
  g_autofree char *gpath = sweep_path ("xla-h100-gemm.csv");
  g_autofree char *mpath = sweep_path ("a100-40gb-stream.csv");
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxGemmSweep) g = plx_gemm_sweep_load (gpath, &error);
  g_autoptr (PlxMembwSweep) m = NULL;
  const PlxGemmRow *r;

  g_assert_no_error (error);
  /* 31 entries of XLA's table, a bf16 and a tf32 row each. */
  g_assert_cmpuint (g->rows->len, ==, 62);
  /* Line 2: b 1, 1024 x 2048 x 256, bf16 at 139.519467775467 TFLOP/s:
   * 2 · 1024 · 2048 · 256 = 1,073,741,824 FLOPs / 139.519467775467e12 = 7.696 us. */
  r = &g_array_index (g->rows, PlxGemmRow, 0);
  g_assert_cmpuint (r->line, ==, 2);
  g_assert_cmpint (r->dtype, ==, PLX_DTYPE_BF16);
  g_assert_true (close_rel (r->time_s, 1073741824.0 / 139.519467775467e12, 1e-14));
  g_assert_true (close_rel (r->time_s, 7.696e-6, 1e-4));
  /* Line 4: b 2, 256 x 2048 x 2048, bf16 at 332.24779887058 TFLOP/s. */
  r = &g_array_index (g->rows, PlxGemmRow, 2);
  g_assert_cmpfloat (r->batch, ==, 2);
  g_assert_true (close_rel (r->time_s, 2.0 * 2 * 256 * 2048 * 2048 / 332.247798870580e12, 1e-14));

  m = plx_membw_sweep_load (mpath, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (m->rows->len, ==, 104);
  /* Line 2: 64 bytes at 0.008 GB/s: 8 us (the launch). */
  g_assert_cmpfloat (g_array_index (m->rows, PlxMembwRow, 0).bytes, ==, 64);
  g_assert_true (close_rel (g_array_index (m->rows, PlxMembwRow, 0).time_s, 8e-6, 1e-14));
}

typedef struct
{
  const char *text;
  const char *message;
} BadCase;

static void
test_parse_errors (void)
{
  static const BadCase gemm[] = {
    { "n,k,dtype,time_s\n1,1,bf16,1\n", "bad.csv:1: no m column" },
    { "m,n,k,dtype,time_s\n1,1,abc,bf16,1\n", "bad.csv:2: column \"k\": \"abc\" is not a positive number" },
    { "m,n,k,dtype,time_s\n1.5,1,1,bf16,1\n", "bad.csv:2: column \"m\": \"1.5\" is not a whole number" },
    { "m,n,k,dtype,time_s\n1e300,1,1,bf16,1\n", "column \"m\": \"1e300\" is not a whole number from 1 to 2147483647" },
    { "m,n,k,dtype,time_s\n0,1,1,bf16,1\n", "column \"m\": \"0\" is not a positive number" },
    { "m,n,k,dtype,time_s\n1,1,1,bf16,-2\n", "column \"time_s\": \"-2\" is not a positive number" },
    { "m,n,k,dtype,time_s\n1,1,1,bf16,nan\n", "column \"time_s\": \"nan\" is not a positive number" },
    { "m,n,k,dtype,time_s\n1,1,1,bf16,inf\n", "column \"time_s\": \"inf\" is not a positive number" },
    { "m,n,k,dtype,time_s\n1,1,1,int8,1\n", "bad.csv:2: column \"dtype\": \"int8\" is not a dtype" },
    { "m,n,k,dtype,time\n1,1,1,bf16,1\n", "bad.csv:1: column \"time\" has no unit" },
    { "m,n,k,dtype\n1,1,1,bf16\n", "bad.csv:1: no time column" },
    { "m,n,k,dtype,time_s,time_ms\n1,1,1,bf16,1,1\n", "columns \"time_s\" and \"time_ms\" both give the time" },
    { "m,n,k,dtype,time_s\n1,1,1,bf16\n", "bad.csv:2: 4 fields where the header has 5" },
    { "m,n,k,dtype,time_s\n", "bad.csv: a header and no rows" },
    { "# nothing\n\n", "bad.csv: no header line" },
  };
  static const BadCase membw[] = {
    { "bytes,GB/s\n0,5\n", "bad.csv:2: column \"bytes\": \"0\" is not a positive number" },
    { "size,time_us\n100,\n", "bad.csv:2: column \"time_us\": \"\" is not a positive number" },
    { "GB/s\n5\n", "bad.csv:1: no bytes column" },
    { "bytes,count\n5,1\n", "no time column (time_s, time_ms, time_us) and no bandwidth" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (gemm); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxGemmSweep) s = plx_gemm_sweep_parse (gemm[i].text, "bad.csv", &error);
      g_assert_null (s);
      g_assert_nonnull (error);
      if (strstr (error->message, gemm[i].message) == NULL)
        g_error ("case %zu: \"%s\" lacks \"%s\"", i, error->message, gemm[i].message);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (membw); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxMembwSweep) s = plx_membw_sweep_parse (membw[i].text, "bad.csv", &error);
      g_assert_null (s);
      g_assert_nonnull (error);
      if (strstr (error->message, membw[i].message) == NULL)
        g_error ("membw case %zu: \"%s\" lacks \"%s\"", i, error->message, membw[i].message);
    }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (PlxGemmSweep) s = plx_gemm_sweep_load ("/nonexistent/sweep.csv", &error);
    g_assert_null (s);
    g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  }
}

static void
test_fit_exact (void)
{
  /* Rows on eff = 0.8 x / (x + 1e9): at 1e8 0.8/11, 1e9 0.4, 1e10 8/11, 1e11 80/101.
   * The fit finds the two parameters and no residual. */
  const double x[] = { 1e8, 1e9, 1e10, 1e11 };
  const double eff[] = { 0.8 / 11.0, 0.4, 8.0 / 11.0, 80.0 / 101.0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxSweepFit) fit = plx_sweep_fit_efficiency (x, eff, NULL, 4, "exact", &error);

  g_assert_no_error (error);
  g_assert_true (close_rel (fit->e_max, 0.8, 1e-8));
  g_assert_true (close_rel (fit->x_half, 1e9, 1e-7));
  g_assert_cmpfloat (fit->rms_residual_pct, <, 1e-6);
  g_assert_true (close_rel (plx_sweep_fit_eval (fit, 3e9), 0.6, 1e-8));
}

static void
test_fit_two_real_rows (void)
{
  /* Two bf16 rows of XLA's H100 table against the dgx-h100-80gb peak 989.4 TFLOP/s:
   *   b 1, 512 x 256 x 256:  x1 = 67,108,864 FLOPs at 11.459846994535 TF, e1 = 0.0115826
   *   b 1, 4096^3:           x2 = 137,438,953,472 FLOPs at 783.328793548203 TF, e2 = 0.791721
   * eff = e_max x / (x + h) is 1/eff = 1/e_max + (h/e_max) / x, a line in 1/x through
   * both rows: slope s = (1/e1 - 1/e2) / (1/x1 - 1/x2) = (86.3361 - 1.26307) /
   * (1.49012e-8 - 7.27596e-12) = 5.71195e9, 1/e_max = 1/e2 - s/x2 = 1.26307 - 0.04156 =
   * 1.22151, e_max = 0.818658, h = s · e_max = 4.67614e9 FLOPs; at 1e9 FLOPs
   * eff = 0.818658 / (1 + 4.67614) = 0.144228. */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxGemmSweep) s = plx_gemm_sweep_parse ("batch,m,n,k,dtype,tflops\n"
                                                     "1,512,256,256,bf16,11.459846994535\n"
                                                     "1,4096,4096,4096,bf16,783.328793548203\n",
                                                     "two-rows.csv", &error);
  g_autoptr (PlxCluster) h100 = plx_cluster_new_preset ("dgx-h100-80gb", &error);
  g_autoptr (GPtrArray) fits = NULL;
  const PlxSweepFit *fit;

  g_assert_no_error (error);
  fits = plx_gemm_sweep_fit (s, h100, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fits->len, ==, 1);
  fit = fits->pdata[0];
  g_assert_cmpstr (fit->key, ==, "matmul");
  g_assert_true (close_rel (fit->e_max, 0.818658, 1e-5));
  g_assert_true (close_rel (fit->x_half, 4.67614e9, 1e-5));
  g_assert_true (close_rel (plx_sweep_fit_eval (fit, 1e9), 0.144228, 1e-5));
  /* No degrees of freedom: no standard errors. */
  g_assert_true (isnan (fit->e_max_se));
}

static void
assert_monotone (const PlxSweepFit *fit)
{
  for (guint i = 0; i < fit->curve_x->len; i++)
    {
      double y = g_array_index (fit->curve_y, double, i);
      g_assert_cmpfloat (y, >, 0.0);
      g_assert_cmpfloat (y, <=, 1.0);
      if (i > 0)
        {
          g_assert_cmpfloat (g_array_index (fit->curve_x, double, i), >, g_array_index (fit->curve_x, double, i - 1));
          g_assert_cmpfloat (y, >=, g_array_index (fit->curve_y, double, i - 1));
        }
    }
}

static void
test_fit_real_reloads (void)
{
  /* The XLA H100 sweep fitted into dgx-h100-80gb: bf16 becomes the matmul curve,
   * tf32 the matmul_tf32 curve; the file written loads, and the op cost of the sweep's
   * largest GEMM (b 1, 4096^3, bf16: 137,438,953,472 FLOPs at 783.328793548203
   * TFLOP/s = 175.455 us) comes within the fit's own rms residual of the measured
   * time. The calibration factor is set to 1: it stands for sustained-load clocks
   * and shapes no sweep covers (docs/calibration.md), not for this kernel. */
  g_autofree char *path = sweep_path ("xla-h100-gemm.csv");
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxGemmSweep) s = plx_gemm_sweep_load (path, &error);
  g_autoptr (JsonNode) json = plx_presets_lookup (PLX_PRESET_CLUSTER, "dgx-h100-80gb", &error);
  g_autoptr (PlxCluster) h100 = plx_cluster_new_preset ("dgx-h100-80gb", &error);
  g_autoptr (PlxCluster) written = NULL;
  g_autoptr (GPtrArray) fits = NULL;
  g_autofree char *text = NULL;
  g_autoptr (JsonNode) reparsed = NULL;
  const PlxSweepFit *bf16, *tf32;
  double measured = 137438953472.0 / 783.328793548203e12, predicted;

  g_assert_no_error (error);
  fits = plx_gemm_sweep_fit (s, h100, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fits->len, ==, 2);
  bf16 = fits->pdata[0];
  tf32 = fits->pdata[1];
  g_assert_cmpstr (bf16->name, ==, "bf16");
  g_assert_cmpstr (bf16->key, ==, "matmul");
  g_assert_cmpstr (tf32->name, ==, "tf32");
  g_assert_cmpstr (tf32->key, ==, "matmul_tf32");
  g_assert_cmpuint (bf16->x->len, ==, 31);
  g_assert_true (isfinite (bf16->e_max_se) && bf16->e_max_se > 0.0);
  assert_monotone (bf16);
  assert_monotone (tf32);

  plx_sweep_fit_apply (json, bf16, path);
  plx_sweep_fit_apply (json, tf32, path);
  text = json_to_string (json, FALSE);
  reparsed = json_from_string (text, &error);
  g_assert_no_error (error);
  written = plx_cluster_new_from_json (reparsed, "written", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (plx_curve_get_n_points (written->matmul_efficiency), ==, bf16->curve_x->len);
  for (guint i = 0; i < bf16->curve_x->len; i++)
    {
      double cx, cy;
      plx_curve_get_point (written->matmul_efficiency, i, &cx, &cy);
      g_assert_cmpfloat (cx, ==, g_array_index (bf16->curve_x, double, i));
      g_assert_cmpfloat (cy, ==, g_array_index (bf16->curve_y, double, i));
    }
  /* A TF32 GEMM on its own curve: at the curve's last point x, FLOPs x run at
   * y x 494.7 TFLOP/s (H100 SXM dense TF32), whatever matmul_scale says - a fit to
   * published 16-bit runs does not rescale a measured TF32 curve. Bytes: A, B and C
   * of 4096^2 fp32 elements, far below the roofline's ridge at this size. */
  g_assert_nonnull (written->matmul_tf32_efficiency);
  g_assert_null (written->matmul_fp32_efficiency);
  g_assert_cmpuint (plx_curve_get_n_points (written->matmul_tf32_efficiency), ==, tf32->curve_x->len);
  {
    guint last = tf32->curve_x->len - 1;
    double x = g_array_index (tf32->curve_x, double, last), y = g_array_index (tf32->curve_y, double, last);
    double bytes = 3.0 * 4096 * 4096 * 4;

    written->matmul_scale = 0.5;
    g_assert_cmpfloat_with_epsilon (plx_gemm_time (written, PLX_DTYPE_TF32, x, bytes), x / (4.947e14 * y),
                                    1e-9 * x / (4.947e14 * y));
  }
  written->matmul_scale = 1.0;
  /* Bytes: A, B and C of 4096^2 bf16 elements (2 bytes). */
  predicted = plx_gemm_time (written, PLX_DTYPE_BF16, 137438953472.0, 3.0 * 4096 * 4096 * 2);
  g_test_message ("4096^3 bf16: measured %.2f us, predicted %.2f us, fit rms residual %.1f %%", measured * 1e6,
                  predicted * 1e6, bf16->rms_residual_pct);
  g_assert_cmpfloat (fabs (predicted / measured - 1.0) * 100.0, <=, bf16->rms_residual_pct);
}

static void
test_fit_errors (void)
{
  /* XLA's "f32xf32->f32" rows, labelled fp32: 401.59 TFLOP/s is 6.0 times H100's
   * 66.9 TFLOP/s fp32 peak - they ran on tensor cores, as tf32. */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxCluster) h100 = plx_cluster_new_preset ("dgx-h100-80gb", NULL);
  g_autoptr (PlxCluster) a100 = plx_cluster_new_preset ("dgx-a100-80gb", NULL);
  g_autoptr (PlxGemmSweep) fp32 = plx_gemm_sweep_parse ("m,n,k,dtype,tflops\n4096,4096,4096,fp32,401.589990188086\n",
                                                        "f32.csv", NULL);
  g_autoptr (PlxGemmSweep) fp8 = plx_gemm_sweep_parse ("m,n,k,dtype,time_ms\n4096,4096,4096,fp8,1\n", "fp8.csv", NULL);
  g_autoptr (PlxGemmSweep) one = plx_gemm_sweep_parse ("m,n,k,dtype,time_ms\n4096,4096,4096,bf16,1\n"
                                                       "4096,4096,4096,bf16,1.1\n", "one.csv", NULL);
  GPtrArray *fits;

  fits = plx_gemm_sweep_fit (fp32, h100, &error);
  g_assert_null (fits);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
  g_assert_nonnull (strstr (error->message, "f32.csv:2: 401.6 TFLOP/s is 6 times the fp32 peak"));
  g_assert_nonnull (strstr (error->message, "is tf32)?"));
  g_clear_error (&error);
  /* An H100's bf16 row on an A100: 2 x 4096^3 FLOPs in 0.2 ms = 687.2 TFLOP/s, 2.2 times
   * the A100's 312 - the sweep ran on another GPU, not in another dtype. */
  {
    g_autoptr (PlxGemmSweep) h100_row = plx_gemm_sweep_parse ("m,n,k,dtype,time_ms\n4096,4096,4096,bf16,0.2\n",
                                                              "h100.csv", NULL);
    fits = plx_gemm_sweep_fit (h100_row, a100, &error);
    g_assert_null (fits);
    g_assert_nonnull (strstr (error->message, "h100.csv:2: 687.2 TFLOP/s is 2.2 times the bf16 peak of A100-SXM4-80GB"));
    g_assert_nonnull (strstr (error->message, "was the sweep run on this GPU"));
    g_clear_error (&error);
  }
  fits = plx_gemm_sweep_fit (fp8, a100, &error);
  g_assert_null (fits);
  g_assert_nonnull (strstr (error->message, "fp8.csv:2: a fp8 GEMM, but the cluster's GPU A100-SXM4-80GB has no fp8"));
  g_clear_error (&error);
  fits = plx_gemm_sweep_fit (one, h100, &error);
  g_assert_null (fits);
  g_assert_nonnull (strstr (error->message, "2 rows at 1 distinct sizes; the fit needs at least 2"));
}

static void
test_membw_cache (void)
{
  /* HBM at 1e12 B/s. 1e7 bytes in 6.667 us is 1.5e12 B/s: faster than HBM, in cache,
   * and so was the 1e6-byte row (5 us, 0.2 of HBM); both left out. The three left
   * lie on eff = 0.9 x / (x + 1e7): 1e8 0.818182, 1e9 0.891089, 1e10 0.899101. */
  const char *text = "bytes,time_us\n"
                     "1e6,5\n"
                     "1e7,6.666666666667\n"
                     "1e8,122.2222222222222\n"
                     "1e9,1122.222222222222\n"
                     "1e10,11122.22222222222\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxMembwSweep) s = plx_membw_sweep_parse (text, "bw.csv", &error);
  g_autoptr (PlxCluster) c = plx_cluster_new_preset ("dgx-a100-80gb", &error);
  g_autoptr (PlxSweepFit) fit = NULL;

  g_assert_no_error (error);
  c->hbm_bw_Bps = 1e12;
  fit = plx_membw_sweep_fit (s, c, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fit->n_left_out, ==, 2);
  g_assert_cmpuint (fit->x->len, ==, 3);
  g_assert_cmpstr (fit->key, ==, "memory");
  g_assert_true (close_rel (fit->e_max, 0.9, 1e-6));
  g_assert_true (close_rel (fit->x_half, 1e7, 1e-5));
}

static void
test_membw_real (void)
{
  /* The A100 40GB sweep against 1555 GB/s: every row up to 49.8 MB of traffic (24.9
   * MB arrays) is in the 40 MB L2 - the largest of them ran at 2388 GB/s - so the
   * 29 rows from 59.7 MB up are fitted; their plateau is 1297-1301 GB/s = 0.834-0.836
   * of the peak, which the fitted curve reaches within 1 % at 4.9 GB (the largest row). */
  g_autofree char *path = sweep_path ("a100-40gb-stream.csv");
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxMembwSweep) s = plx_membw_sweep_load (path, &error);
  g_autoptr (PlxCluster) c = plx_cluster_new_preset ("dgx-a100-40gb", &error);
  g_autoptr (PlxSweepFit) fit = NULL;

  g_assert_no_error (error);
  fit = plx_membw_sweep_fit (s, c, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fit->n_left_out, ==, 75);
  g_assert_cmpuint (fit->x->len, ==, 29);
  g_assert_true (close_rel (plx_sweep_fit_eval (fit, 9845511728.0), 1297.813 / 1555.0, 0.01));
  assert_monotone (fit);
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/sweep/parse-gemm", test_parse_gemm);
  g_test_add_func ("/sweep/parse-quoted", test_parse_quoted);
  g_test_add_func ("/sweep/parse-gemm-throughput", test_parse_gemm_throughput);
  g_test_add_func ("/sweep/parse-real", test_parse_real);
  g_test_add_func ("/sweep/parse-errors", test_parse_errors);
  g_test_add_func ("/sweep/fit-exact", test_fit_exact);
  g_test_add_func ("/sweep/fit-two-real-rows", test_fit_two_real_rows);
  g_test_add_func ("/sweep/fit-real-reloads", test_fit_real_reloads);
  g_test_add_func ("/sweep/fit-errors", test_fit_errors);
  g_test_add_func ("/sweep/membw-cache", test_membw_cache);
  g_test_add_func ("/sweep/membw-real", test_membw_real);
  return g_test_run ();
}
