/* Kineto traces: kernels counted and timed by class, linked to their CPU op, FLOPs
 * from recorded shapes, the fold rule, and errors that name the file and event.
 * tests/data/kineto/README.md says where the two real traces come from. */
#include <math.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "parallax/parallax.h"

#include "test-files.h"
#include "test-home.h"
#include "base/plx-json.h"
#include "calibrate/plx-kineto.h"
#include "cost/plx-cost-memo.h"
#include "cost/plx-op-cost.h"

static PlxKinetoTrace *
load (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "kineto", name, NULL);
  g_autoptr (GError) error = NULL;
  PlxKinetoTrace *t = plx_kineto_load (path, &error);

  g_assert_no_error (error);
  return t;
}

static const PlxKernel *
kernel_by_correlation (const PlxKinetoTrace *t, gint64 correlation)
{
  for (guint i = 0; i < t->kernels->len; i++)
    if (g_array_index (t->kernels, PlxKernel, i).correlation == correlation)
      return &g_array_index (t->kernels, PlxKernel, i);
  return NULL;
}

static void
test_classes (void)
{
  g_autoptr (PlxKinetoTrace) t = load ("hta-sampled-rank0.json");
  PlxKernelClassSummary sum[PLX_N_KERNEL_CLASSES];

  plx_kineto_summarize (t, sum);
  /* jq '[.traceEvents[]|select(.cat=="kernel")]|length' -> 191, and
   * '[...|.dur]|add' -> 33847 us in all. */
  g_assert_cmpuint (t->kernels->len, ==, 191);
  /* One NCCL kernel (select(.name|startswith("nccl"))): 11727 us. */
  g_assert_cmpuint (sum[PLX_KERNEL_COLLECTIVE].count, ==, 1);
  g_assert_cmpfloat_with_epsilon (sum[PLX_KERNEL_COLLECTIVE].total_us, 11727.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (sum[PLX_KERNEL_COLLECTIVE].share, 11727.0 / 33847.0, 1e-12);
  /* GEMMs: by brute force (a Python loop over every kernel: its cudaLaunchKernel by
   * correlation, then every cpu_op on that pid/tid whose span holds the launch, the
   * latest-starting one), the kernels launched by aten::mm, aten::addmm or
   * aten::bmm: 90, 19946 us. No other kernel has a GEMM name. */
  g_assert_cmpuint (sum[PLX_KERNEL_GEMM].count, ==, 90);
  g_assert_cmpfloat_with_epsilon (sum[PLX_KERNEL_GEMM].total_us, 19946.0, 1e-9);
  g_assert_cmpuint (sum[PLX_KERNEL_ATTENTION].count, ==, 0);
  /* Every kernel's launch is in the trimmed file (trim.py keeps launches and their
   * kernels together): all linked. */
  for (guint i = 0; i < t->kernels->len; i++)
    g_assert_cmpint (g_array_index (t->kernels, PlxKernel, i).op, >=, 0);
}

static void
test_link_and_flops (void)
{
  g_autoptr (PlxKinetoTrace) t = load ("hta-sampled-rank0.json");
  const PlxKernel *k = kernel_by_correlation (t, 6986101);
  const PlxKinetoOp *op;

  /* Correlation 6986101: cudaLaunchKernel at ts 1682725898260362 on tid 23695, inside
   * "autograd::engine::evaluate_function: BmmBackward0" (ts ...256), "BmmBackward0"
   * (...258) and "aten::bmm" (...266, dur 113), the innermost. Its kernel is
   * cutlass_80_tensorop_s1688gemm_64x64_32x..., 169 us. */
  g_assert_nonnull (k);
  g_assert_cmpfloat (k->dur_us, ==, 169.0);
  g_assert_true (g_str_has_prefix (k->name, "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x"));
  g_assert_cmpint (k->kclass, ==, PLX_KERNEL_GEMM);
  op = &g_array_index (t->ops, PlxKinetoOp, k->op);
  g_assert_cmpstr (op->name, ==, "aten::bmm");
  /* Input Dims [[2048,160,45],[2048,45,20]]: 2 b m k n = 2 * 2048 * 160 * 45 * 20
   * = 589,824,000 FLOPs; float inputs on a s1688 (TF32 MMA) kernel: TF32. */
  g_assert_cmpfloat (op->flops, ==, 589824000.0);
  g_assert_cmpint (op->dtype, ==, PLX_DTYPE_TF32);
  g_assert_cmpuint (op->n_kernels, ==, 1);
}

static void
test_nccl_sizes (void)
{
  g_autoptr (PlxKinetoTrace) t = load ("hta-nccl-rank0.json");
  guint n = 0;

  /* jq: the two ncclKernel_AllReduce kernels carry "Collective name" allreduce,
   * "In msg nelems" 7875584 and 6563840, dtype Float: 4 bytes each. */
  for (guint i = 0; i < t->kernels->len; i++)
    {
      const PlxKernel *k = &g_array_index (t->kernels, PlxKernel, i);
      if (k->kclass != PLX_KERNEL_COLLECTIVE)
        continue;
      g_assert_cmpstr (k->collective, ==, "allreduce");
      g_assert_true (k->message_bytes == 7875584.0 * 4 || k->message_bytes == 6563840.0 * 4);
      n++;
    }
  g_assert_cmpuint (n, ==, 2);
}

static void
test_fold (void)
{
  const double cx[] = { 1e6, 1e8, 1e10 }, cy[] = { 0.1, 0.5, 0.8 };
  g_autoptr (PlxCurve) curve = plx_curve_new (cx, cy, 3, NULL);
  const PlxCurvePoint near[] = { { 1.2e8, 0.3, 1 }, { 1.5e8, 0.5, 1 } };
  const PlxCurvePoint above[] = { { 1e9, 0.9, 1 } };
  g_autoptr (GArray) a = plx_curve_fold (curve, near, 2);
  g_autoptr (GArray) b = plx_curve_fold (curve, above, 1);

  /* 1.2e8 and 1.5e8 are within a factor 2: one point at sqrt(1.2e8 * 1.5e8) =
   * 1.3416e8 with the median 0.4; the curve's 1e8 is within a factor 2 of it and
   * goes. Left: (1e6, 0.1), (1.3416e8, 0.4), (1e10, 0.8), already rising. */
  g_assert_cmpuint (a->len, ==, 3);
  g_assert_cmpfloat_with_epsilon (g_array_index (a, PlxCurvePoint, 1).x, sqrt (1.2e8 * 1.5e8), 1.0);
  g_assert_cmpfloat_with_epsilon (g_array_index (a, PlxCurvePoint, 1).y, 0.4, 1e-12);
  g_assert_cmpfloat (g_array_index (a, PlxCurvePoint, 2).x, ==, 1e10);
  /* 1e9 at 0.9 is 10x from every curve point: all four stay, but 0.9 > 0.8 at 1e10
   * breaks the order; the pair pools to their mean (weights 1 and 1), 0.85. */
  g_assert_cmpuint (b->len, ==, 4);
  g_assert_cmpfloat_with_epsilon (g_array_index (b, PlxCurvePoint, 2).y, 0.85, 1e-12);
  g_assert_cmpfloat_with_epsilon (g_array_index (b, PlxCurvePoint, 3).y, 0.85, 1e-12);
  g_assert_cmpfloat (g_array_index (b, PlxCurvePoint, 1).y, ==, 0.5);
}

static void
test_fold_effective (void)
{
  /* A cluster whose 16-bit curve is 0.5 at 1e9 and 0.8 at 1e12 FLOPs under a
   * matmul_scale of 0.5 (effective 0.25 and 0.4), attention ceiling 0.6 (effective
   * 0.3), and one measured GEMM of 1e9 FLOPs at 0.4 of the peak. Folded in effective
   * terms: the scale becomes 1, the measured size runs at 0.4 as measured (not
   * 0.4 x 0.5), 1e12 - 1000x away - at the 0.4 it ran at before, and attention's
   * ceiling stays 0.3. The memory curve, with no memory point, keeps its scale. */
  const char *json =
    "{ \"name\": \"ideal\", \"num_nodes\": 1, \"gpus_per_node\": 8,"
    "  \"gpu\": { \"name\": \"ideal\", \"peak_flops\": { \"bf16\": 1e14 },"
    "           \"hbm_bytes\": 85899345920, \"hbm_bw_Bps\": 1e12,"
    "           \"efficiency\": { \"matmul\": [[1e9, 0.5], [1e12, 0.8]], \"memory\": [[1, 1.0]],"
    "                            \"attention\": 0.6, \"kernel_launch_s\": 0 } },"
    "  \"calibration\": { \"matmul_scale\": 0.5, \"memory_scale\": 0.7 },"
    "  \"intra_node\": { \"bw_Bps\": 1e11, \"latency_s\": 0, \"efficiency\": [[1, 1.0]] },"
    "  \"inter_node\": { \"bw_Bps\": 1e10, \"latency_s\": 0, \"efficiency\": [[1, 1.0]] } }";
  g_autoptr (JsonNode) node = plx_json_parse_data (json, -1, "test", NULL);
  g_autoptr (PlxCluster) before = plx_cluster_new_from_json (node, "test", NULL);
  g_autoptr (PlxKinetoPoints) pts = plx_kineto_points_new ();
  const PlxCurvePoint gemm = { 1e9, 0.4, 1.0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) folded = NULL;
  g_autoptr (PlxCluster) after = NULL;

  g_array_append_val (pts->matmul, gemm);
  folded = plx_kineto_cluster_json (node, pts, "synthetic", &error);
  g_assert_no_error (error);
  after = plx_cluster_new_from_json (folded, "folded", &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (after->matmul_scale, ==, 1.0);
  g_assert_cmpfloat (after->memory_scale, ==, 0.7);
  g_assert_cmpfloat_with_epsilon (plx_gemm_time (after, PLX_DTYPE_BF16, 1e9, 0.0), 1e9 / (1e14 * 0.4), 1e-18);
  g_assert_cmpfloat_with_epsilon (plx_gemm_time (before, PLX_DTYPE_BF16, 1e12, 0.0), 1e12 / (1e14 * 0.4), 1e-15);
  g_assert_cmpfloat_with_epsilon (plx_gemm_time (after, PLX_DTYPE_BF16, 1e12, 0.0), 1e12 / (1e14 * 0.4), 1e-15);
  g_assert_cmpfloat_with_epsilon (after->attention_efficiency, 0.3, 1e-15);
  g_assert_cmpfloat (plx_memory_time (after, 1e9), ==, plx_memory_time (before, 1e9));
}

static void
expect_error (const char *dir, const char *name, const char *text, const char *needle)
{
  g_autofree char *path = test_write_file (dir, name, text, -1);
  g_autoptr (GError) error = NULL;
  PlxKinetoTrace *t = plx_kineto_load (path, &error);

  g_assert_null (t);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, name));
  if (strstr (error->message, needle) == NULL)
    g_error ("\"%s\" lacks \"%s\"", error->message, needle);
  g_remove (path);
}

static void
test_errors (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-kineto");
  g_autofree char *big = g_build_filename (dir, "huge.json", NULL);
  g_autoptr (GError) error = NULL;
  int fd;

  expect_error (dir, "notrace.json", "{\"events\": []}", "traceEvents");
  expect_error (dir, "notjson.json", "{\"traceEvents\": [", "notjson.json");
  expect_error (dir, "nodur.json",
                "{\"traceEvents\": [{\"ph\": \"M\"}, {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\"},"
                " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 5}]}",
                "traceEvents[2]: kernel \"k\" has no \"dur\"");
  expect_error (dir, "negdur.json", "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 5, \"dur\": -1}]}",
                "traceEvents[0]");
  expect_error (dir, "number.json", "{\"traceEvents\": [3]}", "traceEvents[0]: not an object");
  /* A sparse file of 101 MB: refused by its size before it is read. */
  fd = g_open (big, O_CREAT | O_WRONLY, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, 101 * 1024 * 1024), ==, 0);
  close (fd);
  g_assert_null (plx_kineto_load (big, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "over 100 MB"));
  g_remove (big);
  g_rmdir (dir);
}

/* `path` written as gzip (GIO's zlib, as torch.profiler's use_gzip writes it): `data`,
 * then `zeros` zero bytes. */
static void
write_gzip (const char *path, const char *data, gsize length, gsize zeros)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  g_autoptr (GFileOutputStream) raw = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_NONE, NULL, &error);
  g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 1);
  g_autoptr (GOutputStream) out = NULL;
  g_autofree char *block = g_malloc0 (1024 * 1024);

  g_assert_no_error (error);
  out = g_converter_output_stream_new (G_OUTPUT_STREAM (raw), G_CONVERTER (z));
  g_assert_true (g_output_stream_write_all (out, data, length, NULL, NULL, &error));
  for (gsize done = 0; done < zeros; done += 1024 * 1024)
    g_assert_true (g_output_stream_write_all (out, block, MIN (zeros - done, 1024 * 1024), NULL, NULL, &error));
  g_assert_true (g_output_stream_close (out, NULL, &error));
  g_assert_no_error (error);
}

/* A trace saved as .json.gz reads as the plain file: 191 kernels, 90 GEMMs of 19,946
 * us (counted by hand in /kineto/classes). A truncated file, one with data after
 * the stream, and a bomb - 101 MB of zeros in about 100 KB - are refused with the
 * file's name, the bomb by the plain reader's 100 MB cap before it fills memory. */
static void
test_gzip (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-test-kineto-gz");
  g_autofree char *plain = g_test_build_filename (G_TEST_DIST, "data", "kineto", "hta-sampled-rank0.json", NULL);
  g_autofree char *gz = g_build_filename (dir, "trace.json.gz", NULL);
  g_autofree char *bomb = g_build_filename (dir, "bomb.json.gz", NULL);
  g_autofree char *cut = g_build_filename (dir, "cut.json.gz", NULL);
  g_autofree char *text = NULL, *packed = NULL;
  gsize length = 0, packed_length = 0;
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxKinetoTrace) t = NULL;
  PlxKernelClassSummary sum[PLX_N_KERNEL_CLASSES];

  g_assert_true (g_file_get_contents (plain, &text, &length, NULL));
  write_gzip (gz, text, length, 0);
  t = plx_kineto_load (gz, &error);
  g_assert_no_error (error);
  plx_kineto_summarize (t, sum);
  g_assert_cmpuint (t->kernels->len, ==, 191);
  g_assert_cmpuint (sum[PLX_KERNEL_GEMM].count, ==, 90);
  g_assert_cmpfloat_with_epsilon (sum[PLX_KERNEL_GEMM].total_us, 19946.0, 1e-9);

  g_assert_true (g_file_get_contents (gz, &packed, &packed_length, NULL));
  g_assert_true (g_file_set_contents (cut, packed, (gssize) (packed_length / 2), NULL));
  g_assert_null (plx_kineto_load (cut, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "cut.json.gz: not a whole gzip file"));
  g_clear_error (&error);
  {
    g_autofree char *twice = g_malloc (2 * packed_length);
    memcpy (twice, packed, packed_length);
    memcpy (twice + packed_length, packed, packed_length);
    g_assert_true (g_file_set_contents (cut, twice, (gssize) (2 * packed_length), NULL));
    g_assert_null (plx_kineto_load (cut, &error));
    g_assert_error (error, PLX_ERROR, PLX_ERROR_PARSE);
    g_assert_nonnull (strstr (error->message, "bytes after the gzip stream's end"));
    g_clear_error (&error);
  }

  write_gzip (bomb, "{\"traceEvents\": [", 17, (gsize) 101 * 1024 * 1024);
  g_assert_null (plx_kineto_load (bomb, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "bomb.json.gz: decompresses to more than 100 MB"));
  g_remove (gz);
  g_remove (bomb);
  g_remove (cut);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/kineto/classes", test_classes);
  g_test_add_func ("/kineto/link-and-flops", test_link_and_flops);
  g_test_add_func ("/kineto/nccl-sizes", test_nccl_sizes);
  g_test_add_func ("/kineto/fold", test_fold);
  g_test_add_func ("/kineto/fold-effective", test_fold_effective);
  g_test_add_func ("/kineto/errors", test_errors);
  g_test_add_func ("/kineto/gzip", test_gzip);
  return g_test_run ();
}
