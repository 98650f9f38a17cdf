/* test-cli-inputs.c: inputs users have that parallax-cli used to refuse (issue 34):
 * an ONNX model run forward only and at a chosen dtype, --help where a value was due,
 * a long search's progress and Ctrl+C, "-" as standard output for an output file. Each expected number is
 * derived by hand in its comment. */
#include <math.h>
#include <signal.h>
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "test-cli-run.h"
#include "test-files.h"
#include "test-onnx-models.h"
#include "test-tools.h"

static char *models_dir;

/* One GPU of 1e14 FLOP/s in bf16 and fp16, 1e13 in fp32, 1e12 B/s of HBM; every
 * efficiency 1, no launch cost: each op takes its FLOPs or its bytes, whichever is
 * slower (plx_gemm_time, plx_memory_time). */
static const char ideal_cluster[] =
  "{ \"name\": \"ideal\", \"num_nodes\": 1, \"gpus_per_node\": 8,"
  "  \"gpu\": { \"name\": \"ideal\", \"peak_flops\": { \"bf16\": 1e14, \"fp16\": 1e14, \"fp32\": 1e13 },"
  "           \"hbm_bytes\": 85899345920, \"hbm_bw_Bps\": 1e12,"
  "           \"efficiency\": { \"matmul\": [[1, 1.0]], \"memory\": [[1, 1.0]], \"kernel_launch_s\": 0,"
  "                           \"attention\": 1.0 } },"
  "  \"intra_node\": { \"bw_Bps\": 1e11, \"latency_s\": 0, \"efficiency\": [[1, 1.0]] },"
  "  \"inter_node\": { \"bw_Bps\": 1e10, \"latency_s\": 0, \"efficiency\": [[1, 1.0]] } }";

static char *
in_models (const char *name)
{
  return g_build_filename (models_dir, name, NULL);
}

static JsonObject *
parse_object (JsonParser *parser, const char *text)
{
  g_autoptr (GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_node_get_object (json_parser_get_root (parser));
}

/* tests/onnx/make-models.py's MLP: x [32, 256] -> Gemm 256 x 512 with bias -> Relu ->
 * MatMul 512 x 10, fp32, run once forward on the ideal GPU (--workload inference: the
 * model has no KV cache input). Each op in turn:
 *   fc1 matmul: 2 x 32 x 256 x 512 = 8,388,608 FLOPs; x, w1, product: 8,192 + 131,072
 *     + 16,384 elements
 *   bias add: product, b1, h: 16,384 + 512 + 16,384 elements
 *   relu: h, a: 2 x 16,384
 *   fc2 matmul: 2 x 32 x 512 x 10 = 327,680 FLOPs; a, w2, y: 16,384 + 5,120 + 320
 * fp32 (4 B, 1e13 FLOP/s): 838.8608 (compute) + 133.12 + 131.072 + 87.296 (bytes)
 *   = 1,190.3488 ns;
 * --dtype bf16 (2 B, 1e14): 311.296 + 66.56 + 65.536 + 43.648, all bytes, = 487.04 ns.
 * No loss, no backward pass, no optimizer: 4 ops. Peak memory: the inputs x, w1, b1,
 * w2 (8,192 + 131,072 + 512 + 5,120 elements) and, at the bias add, the product and
 * h (2 x 16,384): 177,664 elements, 710,656 B in fp32 and 355,328 B in bf16. */
static void
test_onnx_forward_dtype (void)
{
  g_autofree char *model = in_models ("mlp.onnx");
  g_autofree char *cluster = in_models ("ideal.json");
  const char *dtypes[] = { NULL, "bf16" };
  const double step_s[] = { 1190.3488e-9, 487.04e-9 };
  const double bytes_per_element[] = { 4.0, 2.0 };

  g_assert_true (g_file_set_contents (cluster, ideal_cluster, -1, NULL));
  for (guint k = 0; k < G_N_ELEMENTS (dtypes); k++)
    {
      const char *args[] = { "simulate", "--model", model, "--cluster", cluster, "--workload", "inference", "--json",
                             dtypes[k] != NULL ? "--dtype" : NULL, dtypes[k], NULL };
      g_autofree char *out = NULL, *err = NULL;
      g_autoptr (JsonParser) parser = json_parser_new ();
      JsonObject *o;

      g_assert_cmpint (run (args, &out, &err), ==, 0);
      o = parse_object (parser, out);
      g_assert_cmpstr (json_object_get_string_member (o, "workload"), ==, "inference");
      g_assert_true (json_object_get_boolean_member (o, "forward_only"));
      g_assert_cmpint (json_object_get_int_member (o, "n_ops"), ==, 4);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "step_time_s"), step_s[k],
                                      1e-9 * step_s[k]);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o, "samples_per_s"), 32.0 / step_s[k],
                                      1e-6 * 32.0 / step_s[k]);
      g_assert_cmpint (json_object_get_int_member (o, "peak_memory_bytes"), ==, 177664 * bytes_per_element[k]);
    }
  g_unlink (cluster);
}

/* --dtype takes bf16, fp16 or fp32, and only for an ONNX model: a graph file gives
 * each tensor's own. */
static void
test_dtype_refusals (void)
{
  g_autofree char *model = in_models ("mlp.onnx");
  g_autofree char *graph = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "data", "graphs", "mlp-2layer.json", NULL);
  const char *const bad[] = { "simulate", "--model", model, "--dtype", "int8", NULL };
  const char *const on_graph[] = { "simulate", "--model", graph, "--dtype", "bf16", NULL };
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;

  g_assert_cmpint (run (bad, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "--dtype: \"int8\" is not bf16, fp16 or fp32"));
  g_assert_cmpint (run (on_graph, &out2, &err2), ==, 2);
  g_assert_nonnull (strstr (err2, "--dtype casts an ONNX model's tensors"));
}

/* --help where a flag's value was due is help, not a file named "--help": the
 * command's usage on stdout, exit 0, nothing on stderr, no file written. */
static void
test_help_anywhere (void)
{
  static const char *const lines[][5] = {
    { "calibrate", "--nccl-tests", "--help", NULL, "Usage: parallax-cli calibrate [OPTION…] --nccl-tests" },
    { "calibrate", "--kineto", "--help", NULL, "Usage: parallax-cli calibrate [OPTION…] --kineto" },
    { "calibrate", "--gemm", "--help", NULL, "Usage: parallax-cli calibrate [OPTION…] --gemm" },
    { "calibrate", "--membw", "-h", NULL, "Usage: parallax-cli calibrate [OPTION…] --gemm" },
    { "simulate", "--model", "--help", NULL, "Usage: parallax-cli simulate [OPTION…] [SCENARIO.json]" },
    { "simulate", "--program", "--help", NULL, "Usage: parallax-cli simulate [OPTION…] --model GRAPH.json" },
    { "search", "--csv", "--help", NULL, "Usage: parallax-cli search [OPTION…]" },
    { "simulate", "--trace", "--help", NULL, "Usage: parallax-cli simulate [OPTION…]" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autofree char *out = NULL, *err = NULL;

      g_assert_cmpint (run (lines[i], &out, &err), ==, 0);
      g_assert_cmpstr (err, ==, "");
      g_assert_true (g_str_has_prefix (out, lines[i][4]));
      g_assert_false (g_file_test ("--help", G_FILE_TEST_EXISTS));
    }
}

static char *
example (const char *name)
{
  return g_build_filename (g_getenv ("G_TEST_SRCDIR"), "..", "examples", name, NULL);
}

/* search --progress with stderr not a terminal: a line a second, and the end once;
 * stdout is what it is without. A 0.1 s search draws only its end, then says once
 * that the best are re-simulated. */
static void
test_search_progress (void)
{
  g_autofree char *scenario = example ("gpt3-1f1b-full.json");
  const char *const plain[] = { "search", scenario, "--threads", "2", NULL };
  const char *const shown[] = { "search", scenario, "--threads", "2", "--progress", NULL };
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;

  g_assert_cmpint (run (plain, &out, &err), ==, 0);
  g_assert_cmpstr (err, ==, "");
  g_assert_cmpint (run (shown, &out2, &err2), ==, 0);
  g_assert_true (g_str_has_prefix (err2, "search: 100 %, "));
  {
    const char *second = err2 + strcspn (err2, "\n") + 1;
    g_assert_true (g_str_has_prefix (second, "search: re-simulating the best with the event engine, "));
    g_assert_cmpuint (strlen (second), ==, strcspn (second, "\n") + 1);
  }
  /* The header carries the search's own time: the ranking is compared. */
  g_assert_nonnull (strstr (out, "\nrank "));
  g_assert_cmpstr (strstr (out2, "\nrank "), ==, strstr (out, "\nrank "));
}

/* With stderr a terminal (util-linux's script(1) gives the command a pty), progress
 * is one line redrawn in place ("\r... \033[K") and erased before the summary, with
 * no --progress needed. */
static void
test_search_progress_terminal (void)
{
  g_autofree char *scenario = example ("gpt3-1f1b-full.json");
  g_autofree char *cli = g_shell_quote (g_getenv ("PLX_CLI"));
  g_autofree char *quoted = g_shell_quote (scenario);
  g_autofree char *command = g_strdup_printf ("%s search %s --threads 2", cli, quoted);
  const char *const argv[] = { "script", "-qec", command, "/dev/null", NULL };
  g_autofree char *out = NULL;

  if (!test_have_tool ("script"))
    return;
  g_assert_cmpint (test_run_tool (argv, &out), ==, 0);
  /* Redrawn while it runs (a slow build draws a few), 100 %, then the re-simulation
   * in the same line. */
  g_assert_true (g_str_has_prefix (out, "\rsearch: "));
  g_assert_nonnull (strstr (out, "\rsearch: 100 %, "));
  g_assert_nonnull (strstr (out, " s\033[K\rsearch: re-simulating the best with the event engine, "));
  g_assert_nonnull (strstr (out, " s\033[K\r\033[KScenario "));
}

/* Runs `argv`, sends SIGINT after its first progress line (a second in: the search
 * is under way), and asserts the clean stop: exit 130 soon after, the message,
 * nothing on stdout. */
static void
assert_interrupted (const char *const *argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                          G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_autoptr (GDataInputStream) err = NULL;
  g_autoptr (GString) rest = g_string_new (NULL);
  g_autofree char *first = NULL;
  g_autofree char *out = NULL;
  char *line;
  gint64 signalled_us;

  g_assert_no_error (error);
  err = g_data_input_stream_new (g_subprocess_get_stderr_pipe (proc));
  first = g_data_input_stream_read_line (err, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (first);
  g_assert_true (g_str_has_prefix (first, "search: "));
  g_subprocess_send_signal (proc, SIGINT);
  signalled_us = g_get_monotonic_time ();
  while ((line = g_data_input_stream_read_line (err, NULL, NULL, &error)) != NULL)
    {
      g_string_append_printf (rest, "%s\n", line);
      g_free (line);
    }
  g_assert_true (g_subprocess_wait (proc, NULL, &error));
  g_assert_true (g_subprocess_get_if_exited (proc));
  g_assert_cmpint (g_subprocess_get_exit_status (proc), ==, 130);
  g_assert_cmpint (g_get_monotonic_time () - signalled_us, <, 10 * G_USEC_PER_SEC);
  g_assert_nonnull (strstr (rest->str, "parallax-cli: search: interrupted (Ctrl+C); no results written\n"));
  g_assert_true (g_input_stream_read_all (g_subprocess_get_stdout_pipe (proc), (out = g_malloc0 (16)), 15, NULL,
                                          NULL, &error));
  g_assert_cmpstr (out, ==, "");
}

/* Ctrl+C during a long search (GPT-3 on every node count from 8 to 4,096 GPUs: about
 * 19 s on two cores): stopped cleanly, no CSV written. The graph search (DistIR's
 * grid, GPT-2 on 16 GPUs: 75 simulations, about 35 s) likewise. */
static void
test_search_interrupt (void)
{
  g_autofree char *scenario = example ("gpt3-1f1b-full.json");
  g_autofree char *csv = in_models ("interrupted.csv");
  g_autofree char *graph = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "data", "graphs", "gpt2-b256.json", NULL);
  const char *const argv[] = { g_getenv ("PLX_CLI"), "search", scenario, "--gpus", "8:4096", "--progress", "--csv",
                               csv, NULL };
  const char *const graph_argv[] = { g_getenv ("PLX_CLI"), "search", "--model", graph, "--devices", "16",
                                     "--progress", NULL };

  assert_interrupted (argv);
  g_assert_false (g_file_test (csv, G_FILE_TEST_EXISTS));
  assert_interrupted (graph_argv);
}

/* "-" as an output file is standard output, and then stdout carries that output
 * alone: the text summary goes to stderr. search --csv -: the CSV a file would get,
 * byte for byte, its header naming the columns of docs/formats.md; no file named
 * "-". Two outputs cannot both have stdout (exit 2). */
static void
test_stdout_csv (void)
{
  g_autofree char *scenario = example ("gpt3-1f1b-full.json");
  g_autofree char *file = in_models ("search.csv");
  const char *const to_file[] = { "search", scenario, "--threads", "2", "--csv", file, NULL };
  const char *const to_stdout[] = { "search", scenario, "--threads", "2", "--csv", "-", NULL };
  const char *const twice[] = { "search", scenario, "--csv", "-", "--shard", "1/2", "--out", "-", NULL };
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL, *out3 = NULL, *err3 = NULL;
  g_autofree char *expected = NULL;

  g_assert_cmpint (run (to_file, &out, &err), ==, 0);
  g_assert_true (g_file_get_contents (file, &expected, NULL, NULL));
  g_assert_cmpint (run (to_stdout, &out2, &err2), ==, 0);
  g_assert_true (g_str_has_prefix (out2, "n_gpus,dp,tp,pp,cp,ep,micro_batch_size,global_batch_size,"));
  g_assert_cmpstr (out2, ==, expected);
  g_assert_nonnull (strstr (err2, "\nrank   GPUs"));
  g_assert_false (g_file_test ("-", G_FILE_TEST_EXISTS));
  g_assert_cmpint (run (twice, &out3, &err3), ==, 2);
  g_assert_cmpstr (out3, ==, "");
  g_assert_nonnull (strstr (err3, "--out -: standard output is already --csv's"));
  g_unlink (file);
}

/* simulate --trace -: the Chrome trace on stdout (a JSON object with traceEvents),
 * the summary naming <stdout> on stderr. calibrate --nccl-tests ... --out -: the
 * fitted cluster on stdout; a run that fails (a file that is not there) writes
 * nothing to stdout. */
static void
test_stdout_trace_and_cluster (void)
{
  g_autofree char *scenario = example ("gpt3-1f1b-full.json");
  g_autofree char *nccl = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "data", "nccl-tests",
                                            "h100-1x8-nvlink-five-ops.txt", NULL);
  const char *const trace[] = { "simulate", scenario, "--trace", "-", NULL };
  const char *const cal[] = { "calibrate", "--nccl-tests", nccl, "--gpus-per-node", "8", "--nodes", "1", "--out", "-",
                              NULL };
  const char *const missing[] = { "calibrate", "--nccl-tests", "absent.txt", "--gpus-per-node", "8", "--nodes", "1",
                                  "--out", "-", NULL };
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL, *out3 = NULL, *err3 = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (JsonParser) parser2 = json_parser_new ();
  JsonObject *o;

  g_assert_cmpint (run (trace, &out, &err), ==, 0);
  o = parse_object (parser, out);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "traceEvents")), >, 0);
  g_assert_nonnull (strstr (err, "Trace             <stdout> (open in Perfetto"));
  g_assert_cmpint (run (cal, &out2, &err2), ==, 0);
  o = parse_object (parser2, out2);
  g_assert_true (json_object_has_member (o, "intra_node"));
  g_assert_nonnull (strstr (err2, "Wrote <stdout>"));
  g_assert_cmpint (run (missing, &out3, &err3), ==, 1);
  g_assert_cmpstr (out3, ==, "");
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  models_dir = test_onnx_models_make ();
  g_test_add_func ("/cli-inputs/onnx/forward-dtype", test_onnx_forward_dtype);
  g_test_add_func ("/cli-inputs/onnx/dtype-refusals", test_dtype_refusals);
  g_test_add_func ("/cli-inputs/help-anywhere", test_help_anywhere);
  g_test_add_func ("/cli-inputs/search/progress", test_search_progress);
  g_test_add_func ("/cli-inputs/search/progress-terminal", test_search_progress_terminal);
  g_test_add_func ("/cli-inputs/search/interrupt", test_search_interrupt);
  g_test_add_func ("/cli-inputs/stdout/csv", test_stdout_csv);
  g_test_add_func ("/cli-inputs/stdout/trace-and-cluster", test_stdout_trace_and_cluster);
  status = g_test_run ();
  test_rm_rf (models_dir);
  g_free (models_dir);
  return status;
}
