/* parallax-cli simulate/plan on any model: a graph file (--model GRAPH.json) spread
 * by dp/tp/pp/micro-batches, or a distributed program run as written (--program);
 * docs/ir.md, docs/graph-format.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "parallax/parallax.h"

#include "plx-cli-charts.h"
#include "plx-cli-graph.h"
#include "plx-cli-options.h"
#include "plx-cli-progress.h"
#include "plx-cli-util.h"
#include "plx-render-export.h"
#include "../core/base/plx-minmax.h"
#include "base/plx-input.h"
#include "base/plx-json.h"
#include "ir/plx-ir-fuse.h"
#include "ir/plx-ir-inference.h"
#include "ir/plx-ir-lower.h"
#include "ir/plx-ir-timeline.h"
#include "ir/plx-ir.h"
#include "ir/plx-onnx.h"
#include "ir/plx-partition-dag.h"
#include "ir/plx-partition.h"

/* What the graph commands' help says beyond the flag list (plx_cli_options_new). */
static const char *const graph_summary =
  "Any model as a graph of ops (docs/graph-format.md) or an ONNX file (a loss put on\n"
  "its first output): its backward pass and optimizer are written, it is spread over\n"
  "dp x tp x pp GPUs, and the program is simulated (each GPU a compute and a\n"
  "communication stream). `plan --json` prints the program, which `simulate --program`\n"
  "runs as written.\n"
  "\n"
  "The graph commands:\n"
  "  parallax-cli simulate --model GRAPH.json [OPTION…]\n"
  "  parallax-cli simulate --program PROGRAM.json [--cluster C] [--json]\n"
  "  parallax-cli plan --model GRAPH.json [OPTION…] [--json]\n"
  "  parallax-cli search --model GRAPH.json --devices N [--json]\n"
  "  parallax-cli partition --model GRAPH.json --devices N [--json]\n"
  "  parallax-cli fuse GRAPH.json --dp N [OPTION…] [--json]";

static const char *const graph_description =
  "--schedule FILE takes a schedule file's order (docs/schedule-files.md; F and B\n"
  "entries). --split: stage boundaries each nearest its share of the forward time\n"
  "(nearest), the chain split with the smallest largest stage, sends counted\n"
  "(optimal), or the DAG partitioner's least cut within 5 % (docs/partition.md).\n"
  "\n"
  "--workload inference serves an ONNX decoder with a KV cache (docs/inference.md):\n"
  "--prompt-length N (512) --decode-tokens N (128), the batch as --dim batch=N; dp\n"
  "replicas, tp and pp in each; the dimensions' names with --batch-dim,\n"
  "--sequence-dim, --past-dim; --batches 1,8,64: latency and throughput per batch size.\n"
  "A model without a KV cache input (a CNN, an encoder, a graph file) runs one forward\n"
  "pass of its batch instead: no loss, backward pass or optimizer.\n"
  "--dtype bf16|fp16|fp32 holds and computes an ONNX model's floating-point tensors in\n"
  "that type (its element size, the GPU's peak for it); integer tensors stay 4 bytes.\n"
  "\n"
  "--devices N: for search, every dp x tp x pp of N (a power of two) GPUs,\n"
  "micro-batches 2 to 128 with pipelining (DistIR's grid); for partition, N pipeline\n"
  "stages, the chain split with the smallest largest stage (micro-batches: 2N unless\n"
  "given, or the most below that the batch splits into).\n";

typedef struct
{
  const char   *model, *program, *cluster, *timeline, *memory;
  const char   *batch_dim, *sequence_dim, *past_dim, *batches;
  gboolean      inference;
  gboolean      forward_only; /* inference of a model without a KV cache: one forward pass */
  gboolean      cast_floats;  /* --dtype: an ONNX model's floating-point tensors in float_dtype */
  PlxDtype      float_dtype;
  guint         prompt_length, decode_tokens;
  guint         nodes, devices, max_simulations;
  PlxIrParallel par;
  PlxIrOptimizerKind optimizer;
  gboolean      json;
  gboolean      progress;     /* search: progress lines on stderr, terminal or not */
  GPtrArray    *dim_names;    /* --dim NAME=N, for an ONNX model's symbolic sizes */
  GArray       *dim_values;   /* gint64 */
  GPtrArray    *values;       /* the strings the pointers above point into */
} GraphOptions;

static void
graph_options_clear (GraphOptions *o)
{
  g_clear_pointer (&o->dim_names, g_ptr_array_unref);
  g_clear_pointer (&o->dim_values, g_array_unref);
  g_clear_pointer (&o->values, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (GraphOptions, graph_options_clear)

gboolean
plx_cli_graph_wanted (int argc, char **argv)
{
  for (int i = 2; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--program") || g_str_has_prefix (argv[i], "--program="))
        return TRUE;
      if ((g_str_equal (argv[i], "--model") && i + 1 < argc) || g_str_has_prefix (argv[i], "--model="))
        {
          const char *path = g_str_has_prefix (argv[i], "--model=") ? argv[i] + 8 : argv[i + 1];
          g_autoptr (JsonNode) node = NULL;

          if (g_str_has_suffix (path, ".onnx"))
            return TRUE;
          if (plx_input_is_stdin (path))
            {
              /* Read, looked at, and given back for whichever reader follows (which
               * applies its own size limit and says what is wrong). */
              gsize length = 0;
              char *text = plx_input_read_stdin ((gsize) 1024 * 1024 * 1024, &length, NULL);
              gboolean graph;

              if (text == NULL)
                return FALSE;
              node = plx_json_parse_data (text, (gssize) length, "<stdin>", NULL);
              graph = node != NULL && JSON_NODE_HOLDS_OBJECT (node) &&
                      json_object_has_member (json_node_get_object (node), "ops");
              plx_input_unread_stdin (text, length);
              return graph;
            }
          if (!g_str_has_suffix (path, ".json") || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
            return FALSE;
          node = plx_json_parse_file (path, NULL);
          /* A graph has ops; a Hugging Face config or a model file does not. */
          return node != NULL && JSON_NODE_HOLDS_OBJECT (node) &&
                 json_object_has_member (json_node_get_object (node), "ops");
        }
    }
  return FALSE;
}

static gboolean
parse_count (const char *flag, const char *value, guint max, guint *out, GError **error)
{
  char *end = NULL;
  guint64 v = g_ascii_strtoull (value, &end, 10);

  if (end == value || *end != '\0' || v < 1 || v > max || value[0] == '-')
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: \"%s\" is not a whole number from 1 to %u",
                   flag, value, max);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

static gboolean bad_value (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
bad_value (GError **error, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, message);
  return FALSE;
}

/* One valued flag of the graph commands (a GOptionArgFunc; `flag` is "--name"). */
static gboolean
graph_option (const char *flag, const char *given, gpointer data, GError **error)
{
  GraphOptions *o = data;
  const char *value = given;

  /* GLib frees `given` on return; the options keep what they point to. */
  g_ptr_array_add (o->values, g_strdup (given));
  value = g_ptr_array_index (o->values, o->values->len - 1);
  if (g_str_equal (flag, "--model"))
    o->model = value;
  else if (g_str_equal (flag, "--program"))
    o->program = value;
  else if (g_str_equal (flag, "--cluster"))
    o->cluster = value;
  else if (g_str_equal (flag, "--timeline") || g_str_equal (flag, "--memory"))
    {
      PlxExportFormat format;
      if (!plx_export_format_for_path (value, &format, error))
        {
          g_prefix_error (error, "%s: ", flag);
          return FALSE;
        }
      if (g_str_equal (flag, "--timeline"))
        o->timeline = value;
      else
        o->memory = value;
    }
  else if (g_str_equal (flag, "--nodes"))
    return parse_count (flag, value, 100000, &o->nodes, error);
  else if (g_str_equal (flag, "--dim"))
    {
      const char *eqv = strchr (value, '=');
      char *end = NULL;
      gint64 n = eqv != NULL ? g_ascii_strtoll (eqv + 1, &end, 10) : 0;
      if (eqv == NULL || eqv == value || end == eqv + 1 || *end != '\0' || n < 1 || n > (G_GINT64_CONSTANT (1) << 40))
        return bad_value (error, "%s: \"%s\" is not NAME=N with N a whole number from 1 to 2^40", flag, value);
      g_ptr_array_add (o->dim_names, g_strndup (value, eqv - value));
      g_array_append_val (o->dim_values, n);
    }
  else if (g_str_equal (flag, "--devices"))
    return parse_count (flag, value, 1u << 20, &o->devices, error);
  else if (g_str_equal (flag, "--max-simulations"))
    return parse_count (flag, value, 1000000, &o->max_simulations, error);
  else if (g_str_equal (flag, "--workload"))
    {
      if (!g_str_equal (value, "training") && !g_str_equal (value, "inference"))
        return bad_value (error, "%s: \"%s\" is not training or inference", flag, value);
      o->inference = g_str_equal (value, "inference");
    }
  else if (g_str_equal (flag, "--dtype"))
    {
      if ((!g_str_equal (value, "bf16") && !g_str_equal (value, "fp16") && !g_str_equal (value, "fp32")) ||
          !plx_dtype_from_string (value, &o->float_dtype))
        return bad_value (error, "%s: \"%s\" is not bf16, fp16 or fp32", flag, value);
      o->cast_floats = TRUE;
    }
  else if (g_str_equal (flag, "--prompt-length"))
    return parse_count (flag, value, 1u << 24, &o->prompt_length, error);
  else if (g_str_equal (flag, "--decode-tokens"))
    return parse_count (flag, value, 1u << 24, &o->decode_tokens, error);
  else if (g_str_equal (flag, "--batch-dim"))
    o->batch_dim = value;
  else if (g_str_equal (flag, "--batches"))
    o->batches = value;
  else if (g_str_equal (flag, "--sequence-dim"))
    o->sequence_dim = value;
  else if (g_str_equal (flag, "--past-dim"))
    o->past_dim = value;
  else if (g_str_equal (flag, "--dp"))
    return parse_count (flag, value, 1u << 20, &o->par.dp, error);
  else if (g_str_equal (flag, "--tp"))
    return parse_count (flag, value, 1u << 20, &o->par.tp, error);
  else if (g_str_equal (flag, "--pp"))
    return parse_count (flag, value, 1u << 20, &o->par.pp, error);
  else if (g_str_equal (flag, "--micro-batches"))
    return parse_count (flag, value, 1u << 20, &o->par.micro_batches, error);
  else if (g_str_equal (flag, "--virtual-stages"))
    return parse_count (flag, value, 64, &o->par.virtual_stages, error);
  else if (g_str_equal (flag, "--split"))
    {
      if (g_str_equal (value, "nearest"))
        o->par.split = PLX_IR_SPLIT_NEAREST;
      else if (g_str_equal (value, "optimal"))
        o->par.split = PLX_IR_SPLIT_OPTIMAL;
      else if (g_str_equal (value, "dag"))
        o->par.split = PLX_IR_SPLIT_DAG;
      else
        return bad_value (error, "%s: \"%s\" is not nearest, optimal or dag", flag, value);
    }
  else if (g_str_equal (flag, "--schedule"))
    {
      if (g_str_equal (value, "1f1b"))
        o->par.schedule = PLX_IR_SCHEDULE_1F1B;
      else if (g_str_equal (value, "gpipe"))
        o->par.schedule = PLX_IR_SCHEDULE_GPIPE;
      else if (g_str_equal (value, "interleaved-1f1b"))
        o->par.schedule = PLX_IR_SCHEDULE_INTERLEAVED;
      else
        {
          /* Anything else names a schedule file, read against the pipeline. */
          o->par.schedule = PLX_IR_SCHEDULE_FILE;
          o->par.schedule_path = value;
        }
    }
  else if (g_str_equal (flag, "--optimizer"))
    {
      if (g_str_equal (value, "adam"))
        o->optimizer = PLX_IR_OPTIMIZER_ADAM;
      else if (g_str_equal (value, "sgd"))
        o->optimizer = PLX_IR_OPTIMIZER_SGD;
      else
        return bad_value (error, "%s: \"%s\" is not adam or sgd", flag, value);
    }
  return TRUE;
}

#define GRAPH_FLAG(name, help, arg) { name, 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) graph_option, help, arg }

static int
parse_options (int argc, char **argv, GraphOptions *o)
{
  const GOptionEntry entries[] = {
    GRAPH_FLAG ("model", "the graph (GRAPH.json, docs/graph-format.md) or an ONNX model (.onnx)", "FILE"),
    GRAPH_FLAG ("program", "simulate: a distributed program (plan --model G --json) as written", "PROGRAM.json"),
    GRAPH_FLAG ("cluster", "the cluster (default: the default scenario's)", "PRESET|FILE"),
    GRAPH_FLAG ("nodes", "that many nodes of it", "N"),
    GRAPH_FLAG ("dp", "data parallel degree (1)", "N"),
    GRAPH_FLAG ("tp", "tensor parallel degree (1)", "N"),
    GRAPH_FLAG ("pp", "pipeline parallel degree (1)", "N"),
    GRAPH_FLAG ("micro-batches", "the batch in N micro-batches (1)", "N"),
    GRAPH_FLAG ("schedule", "the pipeline schedule: 1f1b (default), gpipe, interleaved-1f1b, or a file", "NAME"),
    GRAPH_FLAG ("virtual-stages", "model chunks per stage, with interleaved-1f1b or a file", "N"),
    GRAPH_FLAG ("split", "stage boundaries: nearest, optimal or dag (below)", "HOW"),
    GRAPH_FLAG ("optimizer", "the update each weight gets: adam (default) or sgd", "NAME"),
    GRAPH_FLAG ("dim", "an ONNX model's symbolic dimension (repeatable)", "NAME=N"),
    GRAPH_FLAG ("dtype", "an ONNX model's floating-point tensors held and computed in bf16, fp16 or fp32 "
                "(default: as the file's)", "TYPE"),
    GRAPH_FLAG ("timeline", "simulate: draw the run, a row per GPU (.png, .svg, .pdf)", "CHART"),
    GRAPH_FLAG ("memory", "simulate: draw memory per GPU and over the step", "CHART"),
    GRAPH_FLAG ("workload", "training (default) or inference (below)", "KIND"),
    GRAPH_FLAG ("prompt-length", "inference: the prompt's tokens (512)", "N"),
    GRAPH_FLAG ("decode-tokens", "inference: the tokens generated (128)", "N"),
    GRAPH_FLAG ("batch-dim", "inference: the name of the batch dimension", "NAME"),
    GRAPH_FLAG ("sequence-dim", "inference: the name of the sequence dimension", "NAME"),
    GRAPH_FLAG ("past-dim", "inference: the name of the KV cache's past dimension", "NAME"),
    GRAPH_FLAG ("batches", "inference: latency and throughput per batch size, e.g. 1,8,64", "N,N.."),
    GRAPH_FLAG ("devices", "search: the GPUs to try every dp x tp x pp of; partition: the stages", "N"),
    GRAPH_FLAG ("max-simulations", "fuse: simulations the search may run (2000)", "N"),
    { "json", 0, 0, G_OPTION_ARG_NONE, &o->json, "JSON output", NULL },
    { "progress", 0, 0, G_OPTION_ARG_NONE, &o->progress,
      "search: progress on stderr even when it is not a terminal (a line a second)", NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (PlxCliOptions) options = NULL;
  char **positionals;
  int status;

  o->par = (PlxIrParallel) { 1, 1, 1, 1, PLX_IR_SCHEDULE_1F1B };
  o->dim_names = g_ptr_array_new_with_free_func (g_free);
  o->dim_values = g_array_new (FALSE, FALSE, sizeof (gint64));
  o->values = g_ptr_array_new_with_free_func (g_free);
  o->optimizer = PLX_IR_OPTIMIZER_ADAM;
  options = plx_cli_options_new_with_data (argv[1],
                                           g_str_equal (argv[1], "fuse") ? "GRAPH.json|MODEL.onnx"
                                           : g_str_equal (argv[1], "simulate")
                                             ? "--model GRAPH.json|MODEL.onnx | --program PROGRAM.json"
                                             : "--model GRAPH.json|MODEL.onnx",
                                           graph_summary, graph_description, o);
  plx_cli_options_add_entries (options, entries);
  status = plx_cli_options_parse (options, argc, argv);
  if (status != PLX_CLI_OPTIONS_CONTINUE)
    return status;
  positionals = plx_cli_options_positionals (options);
  if (positionals[0] != NULL)
    return usage_error ("%s: unexpected argument \"%s\" (the graph comes with --model or --program)", argv[1],
                        positionals[0]);
  if ((o->model == NULL) == (o->program == NULL))
    return usage_error ("%s: give a graph (--model) or a program (--program), not %s", argv[1],
                        o->model == NULL ? "neither" : "both");
  if (o->cast_floats && (o->model == NULL || !g_str_has_suffix (o->model, ".onnx")))
    return usage_error ("%s: --dtype casts an ONNX model's tensors; a graph file or a program gives each tensor's "
                        "(its \"dtype\" key, docs/graph-format.md)", argv[1]);
  if (o->program != NULL && (o->par.dp > 1 || o->par.tp > 1 || o->par.pp > 1 || o->par.micro_batches > 1))
    return usage_error ("%s: --program runs a program as written; --dp, --tp, --pp and --micro-batches apply to "
                        "--model", argv[1]);
  return -1;
}

static PlxCluster *
load_cluster (const GraphOptions *o, GError **error)
{
  return plx_cli_load_cluster (o->cluster, o->nodes, error);
}

/* The forward graph: an ONNX model (with a loss put on its first output) or a
 * graph file. */
static PlxIrGraph *
load_model (const GraphOptions *o, GError **error)
{
  if (g_str_has_suffix (o->model, ".onnx"))
    {
      PlxOnnxOptions opts = { (const char *const *) o->dim_names->pdata, (const gint64 *) (const void *) o->dim_values->data,
                              o->dim_names->len, !o->forward_only, o->cast_floats, o->float_dtype };
      return plx_onnx_import (o->model, &opts, error);
    }
  return plx_ir_graph_new_from_file (o->model, error);
}


static double
matmul_flops (const PlxIrGraph *p)
{
  double f = 0.0;

  for (guint i = 0; i < p->ops->len; i++)
    {
      const PlxIrOp *op = p->ops->pdata[i];
      /* A kernel (a transformer program's fused block) is matmuls in the main; a
       * convolution is one too (implicit GEMM), as plx_ir_run_report counts it. */
      if (op->kind == PLX_IR_MATMUL || op->kind == PLX_IR_KERNEL || op->kind == PLX_IR_CONV ||
          op->kind == PLX_IR_CONV_GRAD)
        f += plx_ir_op_flops (p, op) * op->n_devices;
    }
  return f;
}

static void
print_text (const GraphOptions *o, const PlxIrGraph *p, const PlxCluster *c, const PlxIrRun *run, gint64 batch,
            double mfu)
{
  guint busiest = 0, fullest = 0;

  for (guint d = 1; d < run->n_devices; d++)
    {
      if (run->device_compute_s[d] > run->device_compute_s[busiest])
        busiest = d;
      if (run->device_peak_bytes[d] > run->device_peak_bytes[fullest])
        fullest = d;
    }
  if (o->model != NULL)
    printf ("Model             %s: dp %u, tp %u, pp %u, %u micro-batch%s, %s%s, %s\n", plx_input_name (o->model), o->par.dp, o->par.tp,
            o->par.pp, o->par.micro_batches, o->par.micro_batches == 1 ? "" : "es",
            o->par.schedule == PLX_IR_SCHEDULE_FILE ? "schedule file " : "",
            o->par.schedule == PLX_IR_SCHEDULE_GPIPE         ? "GPipe"
            : o->par.schedule == PLX_IR_SCHEDULE_FILE        ? o->par.schedule_path
            : o->par.schedule == PLX_IR_SCHEDULE_INTERLEAVED ? "interleaved 1F1B"
                                                             : "1F1B",
            o->forward_only ? "forward pass only (inference)" : o->optimizer == PLX_IR_OPTIMIZER_ADAM ? "Adam" : "SGD");
  else
    printf ("Program           %s\n", o->program);
  printf ("Cluster           %s: %u GPUs used of %u\n", c->name, p->n_devices, plx_cluster_get_n_gpus (c));
  printf ("Program size      %u ops, %u tensors\n", p->ops->len, p->tensors->len);
  printf ("Step time         %.3f ms\n", run->makespan_s * 1e3);
  if (batch > 0)
    printf ("Throughput        %.1f samples/s (batch %" G_GINT64_FORMAT ")\n", batch / run->makespan_s, batch);
  printf ("MFU               %.1f %%\n", mfu * 100.0);
  printf ("Busiest GPU       %u: compute %.3f ms, communication %.3f ms\n", busiest,
          run->device_compute_s[busiest] * 1e3, run->device_comm_s[busiest] * 1e3);
  printf ("Peak memory       %.3f GiB on GPU %u, the fullest (of which weights, data and optimizer state %.3f GiB)\n",
          run->peak_bytes / 1073741824.0, fullest, run->device_input_bytes[fullest] / 1073741824.0);
}

static void
print_json_report (const GraphOptions *o, const PlxIrGraph *p, const PlxIrRun *run, gint64 batch, double mfu)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "workload");
  json_builder_add_string_value (b, o->forward_only ? "inference" : "training");
  json_builder_set_member_name (b, "forward_only");
  json_builder_add_boolean_value (b, o->forward_only);
  json_builder_set_member_name (b, "step_time_s");
  json_builder_add_double_value (b, run->makespan_s);
  if (batch > 0)
    {
      json_builder_set_member_name (b, "samples_per_s");
      json_builder_add_double_value (b, batch / run->makespan_s);
    }
  json_builder_set_member_name (b, "mfu");
  json_builder_add_double_value (b, mfu);
  json_builder_set_member_name (b, "matmul_flops");
  json_builder_add_double_value (b, matmul_flops (p));
  json_builder_set_member_name (b, "peak_memory_bytes");
  json_builder_add_int_value (b, (gint64) run->peak_bytes);
  json_builder_set_member_name (b, "n_devices");
  json_builder_add_int_value (b, p->n_devices);
  json_builder_set_member_name (b, "n_ops");
  json_builder_add_int_value (b, p->ops->len);
  json_builder_set_member_name (b, "devices");
  json_builder_begin_array (b);
  for (guint d = 0; d < run->n_devices; d++)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "compute_s");
      json_builder_add_double_value (b, run->device_compute_s[d]);
      json_builder_set_member_name (b, "communication_s");
      json_builder_add_double_value (b, run->device_comm_s[d]);
      json_builder_set_member_name (b, "finish_s");
      json_builder_add_double_value (b, run->device_free_s[d]);
      json_builder_set_member_name (b, "peak_memory_bytes");
      json_builder_add_int_value (b, (gint64) run->device_peak_bytes[d]);
      json_builder_set_member_name (b, "input_bytes");
      json_builder_add_int_value (b, (gint64) run->device_input_bytes[d]);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  print_json (root);
}

/* --batches: the same serving at each batch size, one line (or JSON object) each:
 * latency against throughput, as DistIR's GPT-2 study sweeps it. */
static int
sweep (const GraphOptions *o, PlxIrInferenceOptions *opts, const PlxCluster *cluster)
{
  g_auto (GStrv) parts = g_strsplit (o->batches, ",", -1);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  guint n = g_strv_length (parts);

  if (n == 0 || n > 64)
    return usage_error ("--batches: \"%s\" is not a list of 1 to 64 batch sizes", o->batches);
  for (guint i = 0; i < n; i++)
    {
      char *end = NULL;
      gint64 v = g_ascii_strtoll (parts[i], &end, 10);
      if (end == parts[i] || *end != '\0' || v < 1 || v > (G_GINT64_CONSTANT (1) << 30))
        return usage_error ("--batches: \"%s\" is not a whole number from 1 to 2^30", parts[i]);
    }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "workload");
  json_builder_add_string_value (b, "inference");
  json_builder_set_member_name (b, "engine");
  json_builder_add_string_value (b, "ir");
  json_builder_set_member_name (b, "sweep");
  json_builder_begin_array (b);
  if (!o->json)
    printf ("%8s %14s %18s %16s %14s  %s\n", "batch", "prefill (ms)", "decode (ms/token)", "tokens/s", "peak (GiB)",
            "fits");
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GError) error = NULL;
      PlxIrInferenceReport r;

      opts->batch = (guint64) g_ascii_strtoll (parts[i], NULL, 10);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "batch");
      json_builder_add_int_value (b, (gint64) opts->batch);
      if (!plx_ir_inference_run (opts, cluster, &r, &error))
        {
          /* A batch that does not split over the replicas, say: its row says why. */
          if (!g_error_matches (error, PLX_ERROR, PLX_ERROR_INCONSISTENT))
            return user_error (error);
          json_builder_set_member_name (b, "error");
          json_builder_add_string_value (b, error->message);
          json_builder_end_object (b);
          if (!o->json)
            printf ("%8" G_GUINT64_FORMAT "  %s\n", opts->batch, error->message);
          continue;
        }
      json_builder_set_member_name (b, "prefill_time_s");
      json_builder_add_double_value (b, r.prefill_s);
      json_builder_set_member_name (b, "decode_time_per_token_s");
      json_builder_add_double_value (b, r.decode_per_token_s);
      json_builder_set_member_name (b, "tokens_per_s");
      json_builder_add_double_value (b, r.tokens_per_s);
      json_builder_set_member_name (b, "peak_memory_bytes");
      json_builder_add_int_value (b, (gint64) ceil (r.peak_bytes));
      json_builder_set_member_name (b, "fits_in_memory");
      json_builder_add_boolean_value (b, r.fits_in_memory);
      json_builder_end_object (b);
      if (!o->json)
        printf ("%8" G_GUINT64_FORMAT " %14.3f %18.3f %16.1f %14.3f  %s\n", opts->batch, r.prefill_s * 1e3,
                r.decode_per_token_s * 1e3, r.tokens_per_s, r.peak_bytes / 1073741824.0,
                r.fits_in_memory ? "yes" : "no");
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  if (o->json)
    print_json (root);
  return 0;
}

/* --workload inference: prefill and decode with a KV cache (plx-ir-inference.h). */
static int
serve (const GraphOptions *o, const PlxCluster *cluster)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (gint64));
  const char *batch_dim = o->batch_dim != NULL ? o->batch_dim : "batch";
  PlxIrInferenceOptions opts = { 0 };
  PlxIrInferenceReport r;
  g_autofree char *base = g_path_get_basename (o->model);

  /* The batch is the batch dimension's size; the other dimensions pass through,
   * but the sequence and past are the steps' own. */
  for (guint i = 0; i < o->dim_names->len; i++)
    if (g_str_equal (o->dim_names->pdata[i], o->sequence_dim != NULL ? o->sequence_dim : "sequence") ||
        g_str_equal (o->dim_names->pdata[i], o->past_dim != NULL ? o->past_dim : "past"))
      return usage_error ("simulate: --dim %s: serving sets the sequence (the prompt, then 1) and the past (the "
                          "tokens cached); give --prompt-length and --decode-tokens", (char *) o->dim_names->pdata[i]);
  for (guint i = 0; i < o->dim_names->len; i++)
    if (g_str_equal (o->dim_names->pdata[i], batch_dim))
      opts.batch = (guint64) g_array_index (o->dim_values, gint64, i);
    else
      {
        g_ptr_array_add (names, o->dim_names->pdata[i]);
        g_array_append_val (values, g_array_index (o->dim_values, gint64, i));
      }
  if (opts.batch == 0 && o->batches == NULL)
    return usage_error ("simulate: --workload inference needs the batch: --dim %s=N (or --batches LIST)",
                        batch_dim);
  opts.path = o->model;
  opts.dim_names = (const char *const *) names->pdata;
  opts.dim_values = (const gint64 *) (const void *) values->data;
  opts.n_dims = names->len;
  opts.batch_dim = batch_dim;
  opts.sequence_dim = o->sequence_dim;
  opts.past_dim = o->past_dim;
  opts.prompt_length = o->prompt_length ? o->prompt_length : 512;
  opts.decode_tokens = o->decode_tokens ? o->decode_tokens : 128;
  opts.dp = MAX (o->par.dp, 1);
  opts.tp = MAX (o->par.tp, 1);
  opts.pp = MAX (o->par.pp, 1);
  opts.cast_floats = o->cast_floats;
  opts.float_dtype = o->float_dtype;
  if (o->batches != NULL)
    return sweep (o, &opts, cluster);
  if (!plx_ir_inference_run (&opts, cluster, &r, &error))
    return user_error (error);
  if (o->json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      g_autoptr (JsonNode) root = NULL;
      const struct { const char *key; double value; } numbers[] = {
        { "prefill_time_s", r.prefill_s }, { "time_to_first_token_s", r.prefill_s },
        { "decode_time_per_token_s", r.decode_per_token_s }, { "decode_first_token_s", r.decode_first_s },
        { "decode_last_token_s", r.decode_last_s }, { "decode_time_s", r.decode_s }, { "step_time_s", r.step_s },
        { "tokens_per_s", r.tokens_per_s }, { "mfu", r.mfu },
      };
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "workload");
      json_builder_add_string_value (b, "inference");
      json_builder_set_member_name (b, "engine");
      json_builder_add_string_value (b, "ir");
      json_builder_set_member_name (b, "batch");
      json_builder_add_int_value (b, (gint64) opts.batch);
      json_builder_set_member_name (b, "prompt_length");
      json_builder_add_int_value (b, (gint64) opts.prompt_length);
      json_builder_set_member_name (b, "decode_tokens");
      json_builder_add_int_value (b, (gint64) opts.decode_tokens);
      json_builder_set_member_name (b, "n_devices");
      json_builder_add_int_value (b, r.n_devices);
      for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
        {
          json_builder_set_member_name (b, numbers[i].key);
          json_builder_add_double_value (b, numbers[i].value);
        }
      json_builder_set_member_name (b, "memory_bytes");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "weights");
      json_builder_add_int_value (b, (gint64) ceil (r.weight_bytes));
      json_builder_set_member_name (b, "kv_cache");
      json_builder_add_int_value (b, (gint64) ceil (r.kv_cache_bytes));
      json_builder_set_member_name (b, "total");
      json_builder_add_int_value (b, (gint64) ceil (r.peak_bytes));
      json_builder_end_object (b);
      json_builder_set_member_name (b, "peak_memory_bytes");
      json_builder_add_int_value (b, (gint64) ceil (r.peak_bytes));
      json_builder_set_member_name (b, "fits_in_memory");
      json_builder_add_boolean_value (b, r.fits_in_memory);
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      print_json (root);
      return 0;
    }
  printf ("Model             %s: serving %" G_GUINT64_FORMAT " sequences, prompt %" G_GUINT64_FORMAT
          " tokens, %" G_GUINT64_FORMAT " generated; dp %u, tp %u, pp %u\n", base, opts.batch, opts.prompt_length,
          opts.decode_tokens, opts.dp, opts.tp, opts.pp);
  printf ("Cluster           %s: %u GPUs used of %u\n", cluster->name, r.n_devices, plx_cluster_get_n_gpus (cluster));
  printf ("Prefill           %.3f ms (time to first token)\n", r.prefill_s * 1e3);
  printf ("Decode            %.3f ms per token (%.3f ms with the prompt cached, %.3f ms for the last), %.3f s "
          "in all\n", r.decode_per_token_s * 1e3, r.decode_first_s * 1e3, r.decode_last_s * 1e3, r.decode_s);
  printf ("Throughput        %.1f tokens/s generated\n", r.tokens_per_s);
  printf ("Memory per GPU    weights %.3f GiB, KV cache %.3f GiB at its longest; peak %.3f GiB of %.1f GiB "
          "usable: %s\n", r.weight_bytes / 1073741824.0, r.kv_cache_bytes / 1073741824.0,
          r.peak_bytes / 1073741824.0, r.usable_bytes / 1073741824.0, r.fits_in_memory ? "fits" : "does not fit");
  return 0;
}

/* --timeline and --memory: the run drawn as simulate draws a scenario's step. */
static gboolean
export_charts (const GraphOptions *o, const PlxIrGraph *program, const PlxCluster *cluster, const PlxIrRun *run,
               GError **error)
{
  g_autoptr (PlxTimeline) timeline = NULL;
  g_autoptr (PlxMemoryTrace) trace = NULL;
  g_autofree char *title = g_path_get_basename (o->model != NULL ? o->model : o->program);
  PlxReport report;
  PlxRenderStyle style;
  ChartData data;

  plx_ir_run_charts (program, run, NULL, &timeline, &trace);
  plx_ir_run_report (program, run, cluster, &report);
  plx_render_style_init (&style, FALSE, 1.0);
  data = (ChartData) { timeline, trace, &report, &style, title, NULL, 0.0, 0.0 };
  if (o->timeline != NULL && !plx_render_export (o->timeline, 1600, 900, 1.0, &style, draw_timeline, &data, error))
    return FALSE;
  if (o->memory != NULL && !plx_render_export (o->memory, 1200, 800, 1.0, &style, draw_memory, &data, error))
    return FALSE;
  return TRUE;
}

int
plx_cli_graph (int argc, char **argv, gboolean plan)
{
  g_auto (GraphOptions) o = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxCluster) cluster = NULL;
  g_autoptr (PlxIrGraph) fwd = NULL;
  g_autoptr (PlxIrGraph) program = NULL;
  gint64 batch = 0;
  int status = parse_options (argc, argv, &o);
  PlxIrRun run;
  double mfu;

  if (status >= 0)
    return status;
  cluster = load_cluster (&o, &error);
  if (cluster == NULL)
    return user_error (error);
  if (o.inference)
    {
      gboolean cache = FALSE;
      if (plan || o.program != NULL)
        return usage_error ("%s: --workload inference is simulate --model MODEL", argv[1]);
      /* A decoder taking its KV cache as inputs is served token by token; any other
       * model (a CNN, an encoder, a graph file) runs one forward pass of its batch. */
      if (g_str_has_suffix (o.model, ".onnx") &&
          !plx_onnx_has_dimension (o.model, o.past_dim != NULL ? o.past_dim : "past", &cache, &error))
        return user_error (error);
      if (cache || o.batches != NULL || o.prompt_length > 0 || o.decode_tokens > 0)
        {
          if (o.timeline != NULL || o.memory != NULL)
            return usage_error ("%s: serving a decoder (--workload inference with a KV cache) draws no charts",
                                argv[1]);
          return serve (&o, cluster);
        }
      o.forward_only = TRUE;
    }
  if (o.program != NULL)
    program = plx_ir_graph_new_from_file (o.program, &error);
  else
    {
      g_autoptr (PlxIrGraph) training = NULL;
      fwd = load_model (&o, &error);
      if (fwd != NULL && !o.forward_only)
        training = plx_ir_training_graph (fwd, o.optimizer, o.model, &error);
      if (training != NULL || (fwd != NULL && o.forward_only))
        program = plx_ir_parallelize (o.forward_only ? fwd : training, &o.par, cluster, o.model, &error);
      if (fwd != NULL)
        batch = plx_ir_graph_batch (fwd);
    }
  if (program == NULL)
    return user_error (error);
  if (plan)
    {
      if (o.json)
        {
          g_autoptr (JsonNode) node = NULL;
          if (!plx_ir_program_check_printable (program, &error))
            return user_error (error);
          node = plx_ir_graph_to_json (program);
          print_json (node);
          return 0;
        }
      printf ("%-6s %-28s %-15s %-12s %s\n", "op", "name", "kind", "devices", "time (us)");
      for (guint i = 0; i < program->ops->len; i++)
        {
          const PlxIrOp *op = program->ops->pdata[i];
          g_autofree char *devs = op->n_devices == 1 ? g_strdup_printf ("%u", op->devices[0])
                                                     : g_strdup_printf ("%u (%u GPUs)", op->devices[0], op->n_devices);
          printf ("%-6u %-28s %-15s %-12s %10.3f\n", i, op->name, plx_ir_kind_to_string (op->kind), devs,
                  plx_ir_op_time (program, op, cluster) * 1e6);
        }
      return 0;
    }
  if (!plx_ir_simulate (program, cluster, &run, &error))
    {
      g_prefix_error (&error, "%s: ", o.program != NULL ? o.program : o.model);
      return user_error (error);
    }
  mfu = run.makespan_s > 0.0 && cluster->peak_flops[PLX_DTYPE_BF16] > 0.0 ? matmul_flops (program) /
                                 (program->n_devices * cluster->peak_flops[PLX_DTYPE_BF16] * run.makespan_s)
                             : 0.0;
  if ((o.timeline != NULL || o.memory != NULL) && !export_charts (&o, program, cluster, &run, &error))
    {
      plx_ir_run_clear (&run);
      return user_error (error);
    }
  if (o.json)
    print_json_report (&o, program, &run, batch, mfu);
  else
    print_text (&o, program, cluster, &run, batch, mfu);
  if (!o.json && o.timeline != NULL)
    printf ("Timeline chart    %s\n", o.timeline);
  if (!o.json && o.memory != NULL)
    printf ("Memory chart      %s\n", o.memory);
  plx_ir_run_clear (&run);
  return 0;
}

typedef struct
{
  PlxIrParallel par;
  double        step_s, peak_bytes;
} Candidate;

static gint
by_step (gconstpointer a, gconstpointer b)
{
  const Candidate *x = a, *y = b;
  return (x->step_s > y->step_s) - (x->step_s < y->step_s);
}

/* The cluster, the forward graph and its training graph (backward pass and
 * optimizer written), for the commands that spread a graph themselves. */
static gboolean
load_training (GraphOptions *o, PlxCluster **cluster, PlxIrGraph **fwd, PlxIrGraph **training, GError **error)
{
  *cluster = load_cluster (o, error);
  if (*cluster == NULL)
    return FALSE;
  *fwd = load_model (o, error);
  if (*fwd != NULL)
    *training = plx_ir_training_graph (*fwd, o->optimizer, o->model, error);
  return *training != NULL;
}

/* DistIR's grid (Santhanam et al. 2021 §5.1, examples/mlp_grid_search.py): every
 * power-of-two dp x tp x pp of the devices, micro-batches 1 without pipelining and
 * 2 to 128 with it; a configuration whose batch does not split is skipped. */
int
plx_cli_graph_search (int argc, char **argv)
{
  g_auto (GraphOptions) o = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxCluster) cluster = NULL;
  g_autoptr (PlxIrGraph) fwd = NULL;
  g_autoptr (PlxIrGraph) training = NULL;
  g_autoptr (GArray) found = g_array_new (FALSE, FALSE, sizeof (Candidate));
  guint skipped = 0;
  gint64 batch;
  int status = parse_options (argc, argv, &o);

  if (status >= 0)
    return status;
  if (o.model == NULL || o.devices == 0 || (o.devices & (o.devices - 1)) != 0)
    return usage_error ("search: give --model GRAPH.json and --devices N, N a power of two");
  if (o.par.schedule == PLX_IR_SCHEDULE_FILE)
    return usage_error ("search: --schedule %s: a schedule file is written for one pipeline depth and micro-batch "
                        "count, and the search tries many; use 1f1b or gpipe", o.par.schedule_path);
  if (!load_training (&o, &cluster, &fwd, &training, &error))
    return user_error (error);
  batch = plx_ir_graph_batch (fwd);
  {
    /* Each configuration is a whole simulation (GPT-2 at 16 GPUs: 75 of them, half a
     * minute): progress as search shows it, and Ctrl+C between two (docs/cli.md). */
    g_autoptr (PlxCliProgress) progress = plx_cli_progress_new ("search", o.progress);
    guint total = 0, done = 0;

    for (guint pass = 0; pass < 2; pass++)
      for (guint dp = 1; dp <= o.devices; dp *= 2)
        for (guint tp = 1; dp * tp <= o.devices; tp *= 2)
          {
            guint pp = o.devices / (dp * tp);
            for (guint m = pp == 1 ? 1 : 2; m <= (pp == 1 ? 1u : 128u); m *= 2)
              {
                Candidate c = { { dp, tp, pp, m, o.par.schedule }, 0, 0 };
                g_autoptr (PlxIrGraph) program = NULL;
                PlxIrRun run;

                if (pass == 0)
                  {
                    total++;
                    continue;
                  }
                if (g_cancellable_is_cancelled (plx_cli_progress_cancellable (progress)))
                  {
                    g_clear_pointer (&progress, plx_cli_progress_free);
                    fprintf (stderr, "parallax-cli: search: interrupted (Ctrl+C); no results written\n");
                    return 130;
                  }
                plx_cli_progress_update ((double) done++ / total, progress);
                program = plx_ir_parallelize (training, &c.par, cluster, o.model, NULL);
                if (program == NULL || !plx_ir_simulate (program, cluster, &run, NULL))
                  {
                    skipped++;
                    continue;
                  }
                c.step_s = run.makespan_s;
                c.peak_bytes = run.peak_bytes;
                plx_ir_run_clear (&run);
                g_array_append_val (found, c);
              }
          }
    plx_cli_progress_update (1.0, progress);
  }
  g_array_sort (found, by_step);
  if (o.json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      g_autoptr (JsonNode) root = NULL;
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "configurations");
      json_builder_add_int_value (b, found->len);
      json_builder_set_member_name (b, "skipped");
      json_builder_add_int_value (b, skipped);
      json_builder_set_member_name (b, "results");
      json_builder_begin_array (b);
      for (guint i = 0; i < found->len; i++)
        {
          const Candidate *c = &g_array_index (found, Candidate, i);
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "dp");
          json_builder_add_int_value (b, c->par.dp);
          json_builder_set_member_name (b, "tp");
          json_builder_add_int_value (b, c->par.tp);
          json_builder_set_member_name (b, "pp");
          json_builder_add_int_value (b, c->par.pp);
          json_builder_set_member_name (b, "micro_batches");
          json_builder_add_int_value (b, c->par.micro_batches);
          json_builder_set_member_name (b, "step_time_s");
          json_builder_add_double_value (b, c->step_s);
          json_builder_set_member_name (b, "samples_per_s");
          json_builder_add_double_value (b, batch / c->step_s);
          json_builder_set_member_name (b, "peak_memory_bytes");
          json_builder_add_int_value (b, (gint64) c->peak_bytes);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      print_json (root);
      return 0;
    }
  printf ("%s on %u GPUs of %s: %u configurations simulated", o.model, o.devices, cluster->name, found->len);
  if (skipped > 0)
    printf (", %u skipped (the batch of %" G_GINT64_FORMAT " does not split)", skipped, batch);
  printf ("\n\n");
  printf ("%4s %4s %4s %6s %12s %14s %12s\n", "dp", "tp", "pp", "micro", "step (ms)", "samples/s", "peak (GiB)");
  for (guint i = 0; i < MIN (found->len, 15u); i++)
    {
      const Candidate *c = &g_array_index (found, Candidate, i);
      printf ("%4u %4u %4u %6u %12.3f %14.1f %12.3f\n", c->par.dp, c->par.tp, c->par.pp, c->par.micro_batches,
              c->step_s * 1e3, batch / c->step_s, c->peak_bytes / 1073741824.0);
    }
  return 0;
}

/* `partition --model GRAPH --devices N`: the graph's forward ops as a chain split
 * into N pipeline stages (docs/partition.md), each part's compute, weights and cut,
 * and the step simulated with that split, with the nearest-time split and with data
 * parallelism over the N GPUs instead. */
static gboolean
simulate_with (const PlxIrGraph *training, const PlxIrParallel *par, const PlxCluster *cluster, const char *source,
               double *step_s, char **why)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) program = plx_ir_parallelize (training, par, cluster, source, &error);
  PlxIrRun run;

  if (program == NULL || !plx_ir_simulate (program, cluster, &run, &error))
    {
      *why = g_strdup (error != NULL ? error->message : "not simulated");
      return FALSE;
    }
  *step_s = run.makespan_s;
  plx_ir_run_clear (&run);
  return TRUE;
}

int
plx_cli_graph_partition (int argc, char **argv)
{
  g_auto (GraphOptions) o = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxCluster) cluster = NULL;
  g_autoptr (PlxIrGraph) fwd = NULL;
  g_autoptr (PlxIrGraph) training = NULL;
  g_autofree double *node_s = NULL, *cut_s = NULL, *cut_bytes = NULL;
  g_autofree guint *first = NULL;
  g_autofree double *weights = NULL;
  guint n, parts, m;
  double largest;
  PlxIrParallel opt, near, data, dagp;
  double step[6] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
  char *why[6] = { NULL, NULL, NULL, NULL, NULL, NULL };
  gboolean ran[6];
  g_autoptr (PlxDagPartition) dag = NULL;
  int status = parse_options (argc, argv, &o);

  if (status >= 0)
    return status;
  if (o.model == NULL || o.devices == 0)
    return usage_error ("partition: give --model GRAPH.json|MODEL.onnx and --devices N (a transformer "
                        "scenario: partition SCENARIO.json, without --devices)");
  if (!load_training (&o, &cluster, &fwd, &training, &error))
    return user_error (error);
  parts = o.devices;
  m = o.par.micro_batches > 1 ? o.par.micro_batches : 2 * parts;
  /* Unless given: two micro-batches a stage, or the most up to that the batch splits
   * into (a batch of 64 over 3 stages: 4). */
  if (o.par.micro_batches <= 1)
    {
      gint64 batch = plx_ir_graph_batch (fwd);
      while (m > 1 && batch > 0 && batch % m != 0)
        m--;
    }
  n = plx_ir_chain_costs (training, cluster, m, &node_s, &cut_s, &cut_bytes);
  if (parts > 4096)
    return usage_error ("partition: --devices %u: at most 4096 pipeline stages", parts);
  if (parts > n)
    {
      g_printerr ("parallax-cli: %s: %u devices, but the model has %u forward ops to split\n", o.model, parts, n);
      return 1;
    }
  first = g_new (guint, parts);
  /* The weights each forward op reads, for each part's memory. */
  weights = g_new0 (double, n);
  for (guint i = 0; i < n; i++)
    {
      const PlxIrOp *op = training->ops->pdata[i];
      for (guint j = 0; j < op->n_inputs; j++)
        {
          const PlxIrTensor *x = training->tensors->pdata[op->inputs[j]];
          if (x->producer < 0 && x->role == PLX_IR_ROLE_WEIGHT)
            weights[i] += plx_ir_tensor_bytes (x);
        }
    }
  opt = (PlxIrParallel) { 1, 1, parts, m, o.par.schedule, o.par.schedule_path, 0, PLX_IR_SPLIT_OPTIMAL, NULL };
  near = opt;
  near.split = PLX_IR_SPLIT_NEAREST;
  data = (PlxIrParallel) { parts, 1, 1, 1, PLX_IR_SCHEDULE_1F1B, NULL, 0, PLX_IR_SPLIT_NEAREST, NULL };
  /* The split proposed: the chain optimum or the nearest split, whichever simulates
   * faster, improved one boundary at a time by the simulator (docs/partition.md). */
  step[0] = plx_ir_refine_split (training, &opt, cluster, 200, first, o.model, &error);
  if (step[0] < 0.0)
    return user_error (error);
  ran[0] = TRUE;
  ran[1] = simulate_with (training, &opt, cluster, o.model, &step[1], &why[1]);
  ran[2] = simulate_with (training, &near, cluster, o.model, &step[2], &why[2]);
  ran[3] = simulate_with (training, &data, cluster, o.model, &step[3], &why[3]);
  /* The DAG partitioner's split: least cut within 5 %, stages not runs of ops. */
  dagp = opt;
  dagp.split = PLX_IR_SPLIT_DAG;
  ran[4] = simulate_with (training, &dagp, cluster, o.model, &step[4], &why[4]);
  dag = plx_ir_dag_partition (training, cluster, m, parts, PLX_DAG_ORDERED, o.model, NULL);
  /* Model parallelism without a pipeline: the FREE split's parts on the GPUs, the
   * whole batch at once (plx_ir_place). */
  {
    g_autoptr (GError) e = NULL;
    g_autoptr (PlxDagPartition) free_part = plx_ir_dag_partition (training, cluster, 1, parts, PLX_DAG_FREE, o.model,
                                                                  &e);
    g_autoptr (PlxIrGraph) placed = free_part != NULL ? plx_ir_place (training, free_part->part, parts, o.model, &e)
                                                      : NULL;
    PlxIrRun run;
    ran[5] = placed != NULL && plx_ir_simulate (placed, cluster, &run, &e);
    if (ran[5])
      {
        step[5] = run.makespan_s;
        plx_ir_run_clear (&run);
      }
    else
      why[5] = g_strdup (e != NULL ? e->message : "not simulated");
  }
  largest = 0.0;
  for (guint p = 0; p < parts; p++)
    largest = plx_max (largest, plx_partition_part_time (node_s, cut_s, n, first[p],
                                                         p + 1 < parts ? first[p + 1] - 1 : n - 1));

  if (o.json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      g_autoptr (JsonNode) root = NULL;
      static const char *const keys[] = { "step_time_s", "chain_optimum_step_time_s", "nearest_split_step_time_s",
                                          "data_parallel_step_time_s", "dag_split_step_time_s",
                                          "free_split_step_time_s" };

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "devices");
      json_builder_add_int_value (b, parts);
      json_builder_set_member_name (b, "micro_batches");
      json_builder_add_int_value (b, m);
      json_builder_set_member_name (b, "largest_part_s");
      json_builder_add_double_value (b, largest);
      json_builder_set_member_name (b, "parts");
      json_builder_begin_array (b);
      for (guint p = 0; p < parts; p++)
        {
          guint a = first[p], z = p + 1 < parts ? first[p + 1] - 1 : n - 1;
          double w = 0.0;
          for (guint i = a; i <= z; i++)
            w += weights[i];
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "first_op");
          json_builder_add_string_value (b, ((PlxIrOp *) training->ops->pdata[a])->name);
          json_builder_set_member_name (b, "last_op");
          json_builder_add_string_value (b, ((PlxIrOp *) training->ops->pdata[z])->name);
          json_builder_set_member_name (b, "ops");
          json_builder_add_int_value (b, z - a + 1);
          json_builder_set_member_name (b, "time_s");
          json_builder_add_double_value (b, plx_partition_part_time (node_s, cut_s, n, a, z));
          json_builder_set_member_name (b, "weight_bytes");
          json_builder_add_int_value (b, (gint64) w);
          json_builder_set_member_name (b, "cut_bytes");
          json_builder_add_int_value (b, (gint64) (z + 1 < n ? cut_bytes[z] : 0.0));
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      for (guint k = 0; k < 6; k++)
        {
          json_builder_set_member_name (b, keys[k]);
          if (ran[k])
            json_builder_add_double_value (b, step[k]);
          else
            json_builder_add_null_value (b);
        }
      json_builder_set_member_name (b, "dag_split");
      if (dag == NULL)
        json_builder_add_null_value (b);
      else
        {
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "cut_s");
          json_builder_add_double_value (b, dag->cut_s);
          json_builder_set_member_name (b, "largest_part_s");
          json_builder_add_double_value (b, dag->largest_part_s);
          json_builder_set_member_name (b, "parts");
          json_builder_begin_array (b);
          for (guint p = 0; p < parts; p++)
            {
              guint count = 0;
              for (guint i = 0; i < dag->n_nodes; i++)
                count += dag->part[i] == p;
              json_builder_begin_object (b);
              json_builder_set_member_name (b, "ops");
              json_builder_add_int_value (b, count);
              json_builder_set_member_name (b, "load_s");
              json_builder_add_double_value (b, dag->load_s[p]);
              json_builder_set_member_name (b, "time_s");
              json_builder_add_double_value (b, dag->time_s[p]);
              json_builder_end_object (b);
            }
          json_builder_end_array (b);
          json_builder_end_object (b);
        }
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      print_json (root);
      for (guint k = 0; k < 6; k++)
        g_free (why[k]);
      return 0;
    }
  printf ("%s over %u pipeline stages of %s, %u micro-batches: the largest part %.3f ms of compute and sends per "
          "step\n\n", o.model, parts, cluster->name, m, largest * 1e3);
  printf ("%5s  %-28s %5s %12s %12s %12s\n", "part", "ops", "count", "time (ms)", "weights", "cut after");
  for (guint p = 0; p < parts; p++)
    {
      guint a = first[p], z = p + 1 < parts ? first[p + 1] - 1 : n - 1;
      double w = 0.0;
      g_autofree char *range = NULL;
      for (guint i = a; i <= z; i++)
        w += weights[i];
      range = a == z ? g_strdup (((PlxIrOp *) training->ops->pdata[a])->name)
                     : g_strdup_printf ("%s .. %s", ((PlxIrOp *) training->ops->pdata[a])->name,
                                        ((PlxIrOp *) training->ops->pdata[z])->name);
      printf ("%5u  %-28.28s %5u %12.3f %9.1f MiB %8.1f MiB\n", p, range, z - a + 1,
              plx_partition_part_time (node_s, cut_s, n, a, z) * 1e3, w / 1048576.0,
              (z + 1 < n ? cut_bytes[z] : 0.0) / 1048576.0);
    }
  {
    static const char *const what[] = { "with this split", "with the chain optimum (slowest part smallest)",
                                        "with each cut nearest its share of the forward time",
                                        "as data parallel over all the GPUs",
                                        "with the DAG partitioner's stages (least cut within 5 %)",
                                        "as model parallelism: its free split, the whole batch, no pipeline" };
    for (guint k = 0; k < 6; k++)
      {
        printf ("%s", k == 0 ? "\nStep time         " : "                  ");
        if (ran[k])
          printf ("%.3f ms %s\n", step[k] * 1e3, what[k]);
        else
          printf ("not simulated %s: %s\n", what[k], why[k]);
        g_free (why[k]);
      }
  }
  return 0;
}

/* `fuse GRAPH --dp N`: DisCo's joint op and tensor fusion of the data-parallel
 * program (docs/fusion.md), against the baselines. */
int
plx_cli_graph_fuse (int argc, char **argv)
{
  g_auto (GraphOptions) o = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxCluster) cluster = NULL;
  g_autoptr (PlxIrGraph) fwd = NULL;
  g_autoptr (PlxIrGraph) training = NULL;
  g_autoptr (PlxIrGraph) program = NULL;
  g_autoptr (PlxFuseSpace) space = NULL;
  g_autofree guint *root = NULL;
  g_autofree guint *size = NULL;
  g_autofree char **args = g_new0 (char *, argc + 2);
  g_autofree char *model_flag = g_strdup ("--model");
  PlxFuseResult r;
  guint n_args = 0, kernels = 0, fused_ops = 0, buckets = 0;
  int status;

  if (argc < 3)
    return usage_error ("fuse: give the graph (fuse GRAPH.json|MODEL.onnx --dp N)");
  /* The graph may come first, as a scenario does: `fuse GRAPH.json --dp 8`. */
  for (int i = 0; i < argc; i++)
    {
      if (i == 2 && argv[i][0] != '-')
        args[n_args++] = model_flag;
      args[n_args++] = argv[i];
    }
  status = parse_options ((int) n_args, args, &o);
  if (status >= 0)
    return status;
  if (o.model == NULL)
    return usage_error ("fuse: give the graph (fuse GRAPH.json|MODEL.onnx --dp N)");
  if (o.par.tp > 1 || o.par.pp > 1 || o.par.micro_batches > 1)
    return usage_error ("fuse: fusion is searched for data-parallel programs (DisCo's setting); give --dp only, not "
                        "--tp, --pp or --micro-batches");
  if (!load_training (&o, &cluster, &fwd, &training, &error))
    return user_error (error);
  program = plx_ir_parallelize (training, &o.par, cluster, o.model, &error);
  if (program == NULL)
    return user_error (error);
  if (!plx_fuse_search (program, cluster, o.max_simulations > 0 ? o.max_simulations : 2000, &r, &error))
    return user_error (error);
  space = plx_fuse_space_new (program);
  root = g_new (guint, program->ops->len);
  size = g_new0 (guint, program->ops->len);
  {
    g_autoptr (PlxIrGraph) fused = plx_fuse_apply (space, r.plan, NULL, root);
    if (fused == NULL)
      {
        plx_fuse_result_clear (&r);
        g_printerr ("parallax-cli: %s: the fused program could not be ordered\n", o.model);
        return 1;
      }
  }
  for (guint i = 0; i < program->ops->len; i++)
    size[root[i]]++;
  for (guint i = 0; i < program->ops->len; i++)
    if (root[i] == i && size[i] > 1)
      kernels++, fused_ops += size[i];
  for (guint i = 0; i < space->n_grads; i++)
    buckets += r.plan->cut[i];

  if (o.json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      g_autoptr (JsonNode) node = NULL;
      static const char *const names[] = { "none", "ddp_25mb", "horovod_64mb", "fuse_elementwise", "ideal_overlap" };
      double values[] = { r.none_s, r.ddp_s, r.horovod_s, r.elementwise_s, r.ideal_s };

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "devices");
      json_builder_add_int_value (b, o.par.dp);
      json_builder_set_member_name (b, "step_time_s");
      json_builder_add_double_value (b, r.step_s);
      json_builder_set_member_name (b, "baselines");
      json_builder_begin_object (b);
      for (guint k = 0; k < G_N_ELEMENTS (names); k++)
        {
          json_builder_set_member_name (b, names[k]);
          json_builder_add_double_value (b, values[k]);
        }
      json_builder_end_object (b);
      json_builder_set_member_name (b, "buckets");
      json_builder_begin_array (b);
      for (guint i = 0; i < space->n_grads;)
        {
          guint j = i;
          double bytes = 0.0;
          while (!r.plan->cut[j])
            j++;
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "tensors");
          json_builder_begin_array (b);
          for (guint k = i; k <= j; k++)
            {
              const PlxIrOp *ar = program->ops->pdata[space->grad_op[k]];
              json_builder_add_string_value (b, ((PlxIrTensor *) program->tensors->pdata[ar->inputs[0]])->name);
              bytes += space->grad_bytes[k];
            }
          json_builder_end_array (b);
          json_builder_set_member_name (b, "bytes");
          json_builder_add_int_value (b, (gint64) bytes);
          json_builder_end_object (b);
          i = j + 1;
        }
      json_builder_end_array (b);
      json_builder_set_member_name (b, "fused_groups");
      json_builder_begin_array (b);
      for (guint i = 0; i < program->ops->len; i++)
        if (root[i] == i && size[i] > 1)
          {
            json_builder_begin_object (b);
            json_builder_set_member_name (b, "ops");
            json_builder_begin_array (b);
            for (guint k = 0; k < program->ops->len; k++)
              if (root[k] == i)
                json_builder_add_string_value (b, ((PlxIrOp *) program->ops->pdata[k])->name);
            json_builder_end_array (b);
            json_builder_end_object (b);
          }
      json_builder_end_array (b);
      json_builder_set_member_name (b, "simulations");
      json_builder_add_int_value (b, r.simulations);
      json_builder_set_member_name (b, "search_time_s");
      json_builder_add_double_value (b, r.search_s);
      json_builder_end_object (b);
      node = json_builder_get_root (b);
      print_json (node);
      plx_fuse_result_clear (&r);
      return 0;
    }
  printf ("%s, data parallel over %u GPUs of %s: %u simulations in %.2f s\n\n", o.model, o.par.dp, cluster->name,
          r.simulations, r.search_s);
  {
    static const char *const what[] = { "nothing fused", "DDP's 25 MiB buckets", "Horovod's 64 MiB buffer, 5 ms cycle",
                                        "every elementwise chain fused", "found: ops and buckets jointly",
                                        "ideal: communication all hidden" };
    double values[] = { r.none_s, r.ddp_s, r.horovod_s, r.elementwise_s, r.step_s, r.ideal_s };
    printf ("%-36s %12s %9s\n", "Step time", "ms", "speed-up");
    for (guint k = 0; k < G_N_ELEMENTS (what); k++)
      printf ("%-36s %12.3f %8.2fx\n", what[k], values[k] * 1e3, r.none_s / values[k]);
  }
  printf ("\nFound: %u kernels fusing %u ops; %u gradients in %u all-reduce buckets\n", kernels, fused_ops,
          space->n_grads, buckets);
  plx_fuse_result_clear (&r);
  return 0;
}
