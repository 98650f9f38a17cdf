/* parallax-cli: the command line of Parallax (FORMATS.md §3).
 * Exit status: 0 success, 1 user error (bad file, inconsistent strategy), 2 usage. */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "parallax/parallax.h"

#include "plx-cli-calibrate.h"
#include "plx-cli-charts.h"
#include "plx-cli-conventions.h"
#include "plx-cli-gemm-match.h"
#include "plx-cli-graph.h"
#include "plx-cli-import.h"
#include "plx-cli-merge.h"
#include "plx-cli-options.h"
#include "plx-cli-progress.h"
#include "plx-cli-overrides.h"
#include "plx-cli-partition.h"
#include "plx-cli-reshard.h"
#include "plx-cli-search-output.h"
#include "plx-cli-smallest-fit.h"
#include "plx-cli-stdout.h"
#include "plx-cli-sweep.h"
#include "plx-cli-uncertainty.h"
#include "plx-cli-util.h"
#include "plx-compare-chart.h"
#include "plx-memory-chart.h"
#include "plx-render-export.h"
#include "plx-timeline-chart.h"
#include "base/plx-input.h"
#include "base/plx-output.h"
#include "base/plx-presets.h"
#include "ir/plx-ir-lower.h"
#include "ir/plx-ir.h"
#include "optimize/plx-advice.h"

/* The command-line flags that make the change `fix` stands for. */
static char *
fix_flags (const PlxAdviceFix *fix)
{
  g_autofree char *flag = g_strdup_printf ("--%s", fix->key);
  JsonNode *v = fix->value;

  if (g_str_equal (fix->key, "num_nodes"))
    return g_strdup_printf ("--nodes %" G_GINT64_FORMAT, json_node_get_int (v));
  g_strdelimit (flag, "_", '-');
  if (json_node_get_value_type (v) == G_TYPE_BOOLEAN)
    return json_node_get_boolean (v) ? g_strdup (flag) : g_strdup_printf ("--no-%s", flag + 2);
  if (json_node_get_value_type (v) == G_TYPE_STRING)
    /* Chunks belong to interleaving; the change was judged with one chunk. */
    return g_strdup_printf ("%s %s%s", flag, json_node_get_string (v),
                            g_str_equal (fix->key, "schedule") && !g_str_equal (json_node_get_string (v), "interleaved-1f1b")
                              ? " --virtual-stages 1" : "");
  return g_strdup_printf ("%s %" G_GINT64_FORMAT, flag, json_node_get_int (v));
}

/* A strategy that does not resolve: the error, then on the same line (scripts read
 * one) the nearest one-key changes that make it valid, with their flags. */
static int
user_error_with_advice (const GError *error,
                        JsonNode     *scenario,
                        const char   *dir,
                        const char   *source)
{
  g_autoptr (PlxScenario) raw = plx_scenario_new_unresolved (scenario, dir, source, NULL);
  g_autoptr (GPtrArray) fixes = NULL;
  g_autoptr (GString) line = NULL;
  g_autoptr (GError) with_advice = NULL;

  if (raw == NULL)
    return user_error (error);
  fixes = plx_advice_nearest_fixes (raw->model, raw->cluster, raw->strategy, 5);
  if (fixes->len == 0)
    return user_error (error);
  line = g_string_new (error->message);
  g_string_append (line, ". Nearest valid: ");
  for (guint i = 0; i < fixes->len; i++)
    {
      const PlxAdviceFix *fix = g_ptr_array_index (fixes, i);
      g_autofree char *flags = fix_flags (fix);
      g_string_append_printf (line, "%s%s (%s)", i > 0 ? ", " : "", fix->label, flags);
    }
  with_advice = g_error_new_literal (error->domain, error->code, line->str);
  return user_error (with_advice);
}

static const char *const main_help =
  "Usage: parallax-cli COMMAND [ARGS]\n"
  "\n"
  "Plan distributed training: predict step time, MFU and memory per GPU.\n"
  "\n"
  "Commands:\n"
  "  presets                     list the built-in models and clusters\n"
  "  simulate [SCENARIO] [...]   predict one scenario (default: the built-in GPT-3 175B scenario)\n"
  "  plan [SCENARIO] [...]       print the distributed program the simulator runs\n"
  "  simulate --model GRAPH.json [--dp N --tp N --pp N ...]\n"
  "                              any model as a graph of ops (simulate --model G --help)\n"
  "  simulate --program FILE     run a distributed program (plan --model G --json) as written\n"
  "  compare A B --out CHART     simulate two scenarios and draw them side by side\n"
  "  search [SCENARIO] [...]     the best strategies for the scenario's model, cluster and batch\n"
  "  search ... --shard I/N --out PART.jsonl\n"
  "                              one slice of a search, for merge (docs/sweeps.md)\n"
  "  merge PART.jsonl... [--csv OUT] [--json]\n"
  "                              a sharded search's parts ranked as one search\n"
  "  sweep expand SWEEP.json --shards N --dir DIR | run-task LIST I | merge DIR\n"
  "                              models x clusters x GPUs x batches as scheduler tasks (docs/sweeps.md)\n"
  "  partition [SCENARIO] [...]  a transformer's layers over its pipeline stages (docs/partition.md)\n"
  "  partition --model GRAPH.json --devices N [--json]\n"
  "                              split a graph's ops into N pipeline stages (docs/partition.md)\n"
  "  fuse GRAPH.json --dp N [--json]\n"
  "                              fuse ops into kernels and gradients into buckets (docs/fusion.md)\n"
  "  reshard --shape S --mesh M --from L --to L [--json]\n"
  "                              redistribute a sharded array (docs/reshard.md)\n"
  "  validate TABLE... [--json] [--memory]\n"
  "                              hold predictions against published measurements\n"
  "  calibrate TABLE... --cluster PRESET [--out FILE]\n"
  "                              fit a GPU type's global parameters to published runs\n"
  "  calibrate --gemm FILE.csv [--membw FILE.csv] [--cluster C] [--out FILE]\n"
  "                              fit the efficiency curves to your GEMM and bandwidth sweeps\n"
  "  calibrate --nccl-tests FILE... --gpus-per-node N --nodes N [--out FILE]\n"
  "                              fit a link's efficiency and latency to nccl-tests output\n"
  "  calibrate --kineto TRACE.json [--scenario S.json] [--cluster C] [--out FILE]\n"
  "                              a PyTorch profiler trace's kernels by class, its GEMM efficiencies\n"
  "  import FILE... [--from F] [--out OUT.json]\n"
  "                              a Megatron-LM, torchtitan, NeMo or DeepSpeed configuration as a scenario\n"
  "\n"
  "Run parallax-cli COMMAND --help (or parallax-cli help COMMAND) for a command's options;\n"
  "--version works after any command, and a file argument \"-\" reads standard input.\n";

static int
cmd_presets (int argc, char **argv)
{
  g_auto (GStrv) models = NULL;
  g_auto (GStrv) clusters = NULL;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "JSON output: the models with their parameter counts, the clusters", NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (PlxCliOptions) options = plx_cli_options_new ("presets", NULL, "List the built-in models and clusters.", NULL);
  int status;

  plx_cli_options_add_entries (options, entries);
  status = plx_cli_options_parse (options, argc, argv);
  if (status != PLX_CLI_OPTIONS_CONTINUE)
    return status;
  if (plx_cli_options_n_positionals (options) > 0)
    return usage_error ("presets: unexpected argument \"%s\"", plx_cli_options_positionals (options)[0]);

  models = plx_presets_list (PLX_PRESET_MODEL);
  clusters = plx_presets_list (PLX_PRESET_CLUSTER);

  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      g_autoptr (JsonNode) root = NULL;

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "models");
      json_builder_begin_array (b);
      for (guint i = 0; models[i]; i++)
        {
          g_autoptr (PlxModel) m = plx_model_new_preset (models[i], NULL);
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, models[i]);
          json_builder_set_member_name (b, "params");
          json_builder_add_int_value (b, m ? (gint64) plx_model_get_n_params (m) : 0);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_set_member_name (b, "clusters");
      json_builder_begin_array (b);
      for (guint i = 0; clusters[i]; i++)
        json_builder_add_string_value (b, clusters[i]);
      json_builder_end_array (b);
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      print_json (root);
      return 0;
    }

  printf ("Models:\n");
  for (guint i = 0; models[i]; i++)
    {
      g_autoptr (PlxModel) m = plx_model_new_preset (models[i], NULL);
      g_autofree char *params = NULL;
      if (m == NULL)
        continue;
      params = plx_model_format_params (plx_model_get_n_params (m));
      printf ("  %-16s %-11s %3u layers, hidden %6" G_GUINT64_FORMAT ", %3u heads, %8s parameters\n",
              models[i], m->model_type, m->n_layers, m->hidden, m->heads, params);
    }
  printf ("Clusters:\n");
  for (guint i = 0; clusters[i]; i++)
    {
      g_autoptr (PlxCluster) c = plx_cluster_new_preset (clusters[i], NULL);
      if (c == NULL)
        continue;
      printf ("  %-16s %s, %u GPUs per node, %.0f TFLOP/s bf16, %.0f GiB HBM\n",
              clusters[i], c->gpu_name, c->gpus_per_node, c->peak_flops[PLX_DTYPE_BF16] / 1e12,
              c->hbm_bytes / 1073741824.0);
    }
  return 0;
}

/* Which revision of the --json objects this is (docs/formats.md): 2 added the keys of
 * add_identity. */
#define JSON_FORMAT_VERSION 2

/* What a JSON report is about, so that a file of them stands on its own: the tool,
 * the scenario, the model, the cluster and the strategy as resolved. */
static void
add_identity (JsonObject *o, const PlxScenario *sc)
{
  JsonObject *model = json_object_new (), *cluster = json_object_new ();

  json_object_set_int_member (o, "format_version", JSON_FORMAT_VERSION);
  json_object_set_string_member (o, "tool_version", PACKAGE_VERSION);
  json_object_set_string_member (o, "scenario", sc->name);
  json_object_set_string_member (model, "name", sc->model->name);
  json_object_set_int_member (model, "n_params", (gint64) llround (plx_model_get_n_params (sc->model)));
  json_object_set_int_member (model, "n_layers", sc->model->n_layers);
  if (sc->model->assumed != NULL)
    json_object_set_string_member (model, "assumed", sc->model->assumed);
  if (sc->model->checkpoint_params > 0.0)
    json_object_set_int_member (model, "checkpoint_params", (gint64) llround (sc->model->checkpoint_params));
  json_object_set_object_member (o, "model", model);
  json_object_set_string_member (cluster, "name", sc->cluster->name);
  json_object_set_string_member (cluster, "gpu", sc->cluster->gpu_name);
  json_object_set_int_member (cluster, "num_nodes", sc->cluster->num_nodes);
  json_object_set_int_member (cluster, "gpus_per_node", sc->cluster->gpus_per_node);
  json_object_set_object_member (o, "cluster", cluster);
  json_object_set_member (o, "strategy", plx_strategy_to_json (sc->strategy));
}

/* search's own flags, set while its scenario is parsed. */
typedef struct
{
  PlxSearchOptions so;
  guint            top;
  const char      *csv;
  const char      *part_out;
  gboolean         progress;   /* --progress: progress lines on stderr, terminal or not */
} SearchFlags;

typedef struct
{
  const char *path;
  const char *engine;
  const char *trace;
  const char *timeline;
  const char *memory;
  gboolean    json;
  double      width;    /* 0: the chart's default */
  double      height;
  double      scale;
  gboolean    dark;
  double      window_t0;  /* --window START:END in seconds; END <= START: the whole step */
  double      window_t1;
  /* Not NULL: given the scenario JSON (overrides applied) and its directory, from
   * which a search part's merge rebuilds the scenario (plx-cli-merge.h). */
  JsonNode  **applied_out;
  char      **dir_out;
  GPtrArray  *values;   /* the strings given on the command line the pointers above use */
  PlxCliUncertainty *uq;  /* not NULL: simulate's --samples, --seed, --sensitivity, --tornado */
  SearchFlags       *search; /* not NULL: search's --top, --gpus, ... */
} SimulateOptions;

static void
simulate_options_clear (SimulateOptions *opts)
{
  g_clear_pointer (&opts->values, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (SimulateOptions, simulate_options_clear)

/* A copy of `value` that lives as long as `opts`. */
static const char *
keep_value (SimulateOptions *opts, const char *value)
{
  if (opts->values == NULL)
    opts->values = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (opts->values, g_strdup (value));
  return g_ptr_array_index (opts->values, opts->values->len - 1);
}

/* --window START:END, --width/--height/--scale N: checks `value` and sets it. */
static gboolean
set_chart_value (SimulateOptions *opts, const char *flag, const char *value, GError **error)
{
  double *target = NULL;
  char *end = NULL;
  double v;

  if (g_str_equal (flag, "--window"))
    {
      char *mid = NULL, *rest = NULL;
      double a = g_ascii_strtod (value, &mid);
      double b = (mid && *mid == ':') ? g_ascii_strtod (mid + 1, &rest) : 0.0;

      if (mid == value || !mid || *mid != ':' || rest == mid + 1 || *rest != '\0' || !(a >= 0.0) || !(b > a))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--window: \"%s\" is not START:END with 0 <= START < END seconds", value);
          return FALSE;
        }
      opts->window_t0 = a;
      opts->window_t1 = b;
      return TRUE;
    }
  target = g_str_equal (flag, "--width") ? &opts->width : g_str_equal (flag, "--height") ? &opts->height : &opts->scale;
  v = g_ascii_strtod (value, &end);
  if (end == value || *end != '\0' || !(v > 0.0) ||
      (target == &opts->scale ? (v < 1.0 || v > 4.0) : (v < 16.0 || v > 16384.0)))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: \"%s\" is not %s", flag, value,
                   target == &opts->scale ? "a scale from 1 to 4" : "a size from 16 to 16384 pixels");
      return FALSE;
    }
  *target = v;
  return TRUE;
}

/* A GOptionArgFunc for the chart flags; `data` is the SimulateOptions. */
static gboolean
chart_option (const char *flag, const char *value, gpointer data, GError **error)
{
  return set_chart_value (data, flag, value, error);
}

/* One of search's flags (`value` NULL for --uneven-stages). */
static gboolean
set_search_flag (SearchFlags *sf, const char *flag, const char *value, GError **error)
{
  char *end = NULL;
  g_autoptr (GError) fix_error = NULL;

  if (g_str_equal (flag, "--uneven-stages"))
    sf->so.uneven_stages = TRUE;
  else if (g_str_equal (flag, "--progress"))
    sf->progress = TRUE;
  else if (g_str_equal (flag, "--out"))
    return (sf->part_out = plx_cli_output_path (flag, value, error)) != NULL;
  else if (g_str_equal (flag, "--csv"))
    return (sf->csv = plx_cli_output_path (flag, value, error)) != NULL;
  else if (g_str_equal (flag, "--shard"))
    {
      if (!plx_cli_parse_shard (value, &sf->so.shard, &sf->so.n_shards))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--shard: \"%s\" is not I/N with 1 <= I <= N <= 1000000", value);
          return FALSE;
        }
    }
  else if (g_str_equal (flag, "--top") || g_str_equal (flag, "--threads"))
    {
      gint64 n = g_ascii_strtoll (value, &end, 10);
      if (*end != '\0' || n < 1 || n > 100000)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: \"%s\" is not a whole number from 1 to 100000",
                       flag, value);
          return FALSE;
        }
      if (g_str_equal (flag, "--top"))
        sf->top = (guint) n;
      else
        sf->so.n_threads = (guint) n;
    }
  else if (g_str_equal (flag, "--gpus"))
    {
      char *colon = NULL;
      gint64 lo = g_ascii_strtoll (value, &colon, 10), hi;
      if (colon == value || *colon != ':')
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--gpus: \"%s\" is not MIN:MAX", value);
          return FALSE;
        }
      hi = g_ascii_strtoll (colon + 1, &end, 10);
      if (end == colon + 1 || *end != '\0' || lo < 1 || hi < lo || hi > 10000000)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--gpus: \"%s\" is not MIN:MAX with 1 <= MIN <= MAX", value);
          return FALSE;
        }
      sf->so.gpus_min = (guint) lo;
      sf->so.gpus_max = (guint) hi;
    }
  else if (g_str_equal (flag, "--fix"))
    {
      if (!plx_search_options_parse_fix (&sf->so, value, &fix_error))
        {
          g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, fix_error->message);
          return FALSE;
        }
    }
  else
    {
      double h = g_ascii_strtod (value, &end);
      if (*end != '\0' || !(h >= 0.0 && h <= 0.9))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--headroom: \"%s\" is not a fraction from 0 to 0.9", value);
          return FALSE;
        }
      sf->so.memory_headroom = h;
    }
  return TRUE;
}

/* A GOptionArgFunc for search's flags; `data` is the SimulateOptions. */
static gboolean
search_option (const char *flag, const char *value, gpointer data, GError **error)
{
  SimulateOptions *opts = data;

  return set_search_flag (opts->search, flag, value != NULL ? keep_value (opts, value) : NULL, error);
}

/* A GOptionArgFunc for simulate's --engine, --trace, --timeline, --memory and the chart
 * flags; `data` is the SimulateOptions. */
static gboolean
scenario_option (const char *flag, const char *value, gpointer data, GError **error)
{
  SimulateOptions *opts = data;

  if (g_str_equal (flag, "--engine"))
    opts->engine = keep_value (opts, value);
  else if (g_str_equal (flag, "--trace"))
    return (opts->trace = plx_cli_output_path (flag, keep_value (opts, value), error)) != NULL;
  else if (g_str_equal (flag, "--timeline"))
    opts->timeline = keep_value (opts, value);
  else if (g_str_equal (flag, "--memory"))
    opts->memory = keep_value (opts, value);
  else if (g_str_equal (flag, "--samples") || g_str_equal (flag, "--seed") || g_str_equal (flag, "--sensitivity") ||
           g_str_equal (flag, "--tornado") || g_str_equal (flag, "--tornado-of"))
    return plx_cli_uncertainty_set_option (opts->uq, flag, value != NULL ? keep_value (opts, value) : NULL, error);
  else
    return set_chart_value (opts, flag, value, error);
  return TRUE;
}

static void
draw_compare (cairo_t *cr, double width, double height, gpointer data)
{
  ChartData *d = data;
  g_autoptr (PlxCompareLayout) layout = plx_compare_layout_new (&d->sides[0], &d->sides[1], width, height);

  plx_compare_chart_render (layout, d->style, cr, width, height);
}

/* What the scenario commands' help says beyond the flag list (plx_cli_options_new). */
static const char *const simulate_summary =
  "Predict step time, throughput, MFU and memory per GPU. Without a file, the\n"
  "built-in default scenario (GPT-3 175B on 64 A100-80GB) is used; --model alone runs\n"
  "that model on the fewest of its nodes where a strategy fits, the fastest there.";

static const char *const simulate_description =
  "--samples N draws give step-time and MFU quantiles and the OOM probability.\n"
  "--engine: the event simulator (event, the default), the closed form (analytical), or\n"
  "the event engine's program run by the IR simulator (ir). --trace, --timeline and\n"
  "--memory need a simulator.\n";

static const char *const search_summary =
  "Every valid strategy for the scenario's model, cluster and global batch, predicted by the\n"
  "analytical engine, those that do not fit in memory pruned, the best K re-simulated by the\n"
  "event engine and ranked by it. Takes the same overrides as simulate.";

static const char *const search_description =
  "--fix holds degrees or options: tp, pp, cp, ep, dp, mbs, v, zero, sp, schedule, recompute.\n"
  "--uneven-stages also tries each pipeline whose layers divide with the \"auto\" split\n"
  "(docs/layer-split.md) and keeps it where it is faster; its layers are shown.\n"
  "--shard I/N --out PART.jsonl: search the I-th of N slices only and write its results\n"
  "for parallax-cli merge (docs/sweeps.md).\n";

static const char *const partition_summary =
  "A transformer scenario's layers over its pipeline stages: the split \"auto\" (the\n"
  "smallest largest chunk time, the embedding, LM head and sends counted), each stage's\n"
  "layers, compute and sends per micro-batch, the activations it sends on and its peak\n"
  "memory per GPU, and the step (event engine) with this split, with the framework's\n"
  "uniform split and as pure data parallelism on the same GPUs. A graph model (--model\n"
  "GRAPH.json --devices N) is split as a chain of ops instead (partition --model G --help).\n"
  "Takes the same overrides as simulate.";

static const char *const plan_summary =
  "Print the plan that the event simulator runs: per stage and model chunk, the\n"
  "tasks of one micro-batch's forward (F), backward (B) and weight-gradient (W)\n"
  "passes with their stream, kind, FLOPs, bytes and duration, then what each stage\n"
  "does once per step. With --json, the same as a distributed program (docs/ir.md,\n"
  "one device per pipeline stage) that simulate --program runs.\n"
  "Takes the same overrides as simulate.";

/* Parses a scenario command's arguments and builds the scenario. Returns -1 on
 * success, else the exit status. */
static int
load_scenario (int              argc,
               char           **argv,
               gboolean         is_plan,
               gboolean         any_strategy,
               SimulateOptions *opts,
               PlxScenario    **scenario)
{
  g_autoptr (PlxCliOverrides) overrides = plx_cli_overrides_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (JsonNode) applied = NULL;
  g_autofree char *dir = NULL;
  const char *source;
  int status;

  const GOptionEntry json_entry[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &opts->json, is_plan ? "JSON output" : "print the report as JSON", NULL },
    G_OPTION_ENTRY_NULL,
  };
#define SCENARIO_FLAG(name, help, arg) { name, 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) scenario_option, help, arg }
  const GOptionEntry simulate_entries[] = {
    SCENARIO_FLAG ("engine", "event (default), analytical or ir", "ENGINE"),
    SCENARIO_FLAG ("trace", "write the timeline as a Chrome trace (event engine)", "OUT.json"),
    SCENARIO_FLAG ("timeline", "draw the timeline (.png, .svg or .pdf)", "CHART"),
    SCENARIO_FLAG ("memory", "draw memory per stage and over the step", "CHART"),
    SCENARIO_FLAG ("width", "chart width in pixels", "N"),
    SCENARIO_FLAG ("height", "chart height in pixels", "N"),
    SCENARIO_FLAG ("scale", "pixels per point, 2 for HiDPI PNG (1 to 4)", "N"),
    SCENARIO_FLAG ("window", "the timeline's time window in seconds (zoom)", "START:END"),
    { "dark", 0, 0, G_OPTION_ARG_NONE, &opts->dark, "the dark theme", NULL },
    G_OPTION_ENTRY_NULL,
  };
  const GOptionEntry uncertainty_entries[] = {
    SCENARIO_FLAG ("samples", "draws of the cluster's ranges/distributions through the closed form", "N"),
    SCENARIO_FLAG ("seed", "the draws' seed", "N"),
    { "sensitivity", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer) scenario_option,
      "elasticity of step time, peak memory and HBM use to every cluster input, Sobol indices of the uncertain ones", NULL },
    SCENARIO_FLAG ("tornado", "draw the sensitivities as a tornado chart (implies --sensitivity)", "CHART"),
    SCENARIO_FLAG ("tornado-of", "the output the tornado chart shows: step (default) or memory (HBM use)", "OUTPUT"),
    G_OPTION_ENTRY_NULL,
  };
#define SEARCH_FLAG(name, help, arg) { name, 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) search_option, help, arg }
  const GOptionEntry search_entries[] = {
    SEARCH_FLAG ("top", "how many to show, the best re-simulated (10)", "K"),
    SEARCH_FLAG ("gpus", "every whole number of nodes in the range", "MIN:MAX"),
    SEARCH_FLAG ("fix", "hold degrees or options (below)", "tp=8,..."),
    SEARCH_FLAG ("headroom", "memory kept free, a fraction from 0 to 0.9", "FRACTION"),
    SEARCH_FLAG ("threads", "threads to search on", "N"),
    { "uneven-stages", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer) search_option,
      "also try the \"auto\" split of layers (below)", NULL },
    { "progress", 0, G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer) search_option,
      "progress on stderr even when it is not a terminal (a line a second)", NULL },
    SEARCH_FLAG ("csv", "also write every configuration as CSV", "OUT.csv"),
    SEARCH_FLAG ("shard", "search the I-th of N slices only (with --out)", "I/N"),
    SEARCH_FLAG ("out", "the part --shard writes, for parallax-cli merge", "PART.jsonl"),
    G_OPTION_ENTRY_NULL,
  };
#undef SEARCH_FLAG
#undef SCENARIO_FLAG
  gboolean is_partition = g_str_equal (argv[1], "partition");
  g_autoptr (PlxCliOptions) options = plx_cli_options_new_with_data (
    argv[1], "[SCENARIO.json]",
    is_partition ? partition_summary : opts->search != NULL ? search_summary : is_plan ? plan_summary
                                                                                   : simulate_summary,
    opts->search != NULL ? search_description : is_plan ? NULL : simulate_description, opts);
  char **positionals;

  plx_cli_options_add_entries (options, json_entry);
  if (!is_plan)
    plx_cli_options_add_entries (options, simulate_entries);
  if (opts->search != NULL)
    plx_cli_options_add_group (options, "search", "Search options:", search_entries, opts);
  if (opts->uq != NULL)
    plx_cli_options_add_group (options, "uncertainty", "Uncertainty and sensitivity (docs/uncertainty.md):",
                               uncertainty_entries, opts);
  plx_cli_options_add_group (options, "overrides", "Strategy, model and cluster overrides:",
                             plx_cli_overrides_option_entries (overrides), overrides);
  status = plx_cli_options_parse (options, argc, argv);
  if (status != PLX_CLI_OPTIONS_CONTINUE)
    return status;
  positionals = plx_cli_options_positionals (options);
  if (positionals[0] != NULL && positionals[1] != NULL)
    return usage_error ("%s: more than one scenario given (\"%s\", \"%s\")", argv[1], positionals[0], positionals[1]);
  if (positionals[0] != NULL)
    opts->path = keep_value (opts, positionals[0]);
  if (!g_str_equal (opts->engine, "analytical") && !g_str_equal (opts->engine, "event") &&
      !g_str_equal (opts->engine, "ir"))
    return usage_error ("--engine: \"%s\" is not analytical, event or ir", opts->engine);
  if ((opts->trace != NULL || opts->timeline != NULL || opts->memory != NULL) &&
      g_str_equal (opts->engine, "analytical"))
    return usage_error ("%s needs a simulator (--engine event or ir), not --engine %s",
                        opts->trace ? "--trace" : opts->timeline ? "--timeline" : "--memory", opts->engine);
  {
    PlxExportFormat format;
    const char *const charts[] = { opts->timeline, opts->memory };
    for (guint c = 0; c < G_N_ELEMENTS (charts); c++)
      if (charts[c] != NULL && !plx_export_format_for_path (charts[c], &format, &error))
        return usage_error ("%s: %s", c == 0 ? "--timeline" : "--memory", error->message);
  }

  if (opts->path != NULL)
    {
      node = plx_scenario_read_json (opts->path, &error);
      if (node == NULL)
        return user_error (error);
      dir = g_path_get_dirname (opts->path);
      source = plx_input_name (opts->path);
    }
  else
    {
      node = plx_scenario_default_json ();
      dir = g_get_current_dir ();
      source = "built-in default scenario";
    }

  applied = plx_cli_overrides_apply (overrides, node, &error);
  if (applied == NULL)
    return user_error (error);
  plx_cli_overrides_adapt (overrides, applied, dir, source);
  /* A model and no scenario: the built-in scenario's 64 GPUs are GPT-3's, not its. */
  if (opts->path == NULL && opts->search == NULL && !is_plan && !any_strategy &&
      plx_cli_overrides_model_only (overrides))
    {
      JsonNode *fewest = plx_cli_smallest_fit (applied, dir, source);
      if (fewest != NULL)
        {
          json_node_unref (applied);
          applied = fewest;
        }
    }
  if (opts->applied_out != NULL)
    {
      *opts->applied_out = json_node_ref (applied);
      *opts->dir_out = g_strdup (dir);
    }
  *scenario = plx_scenario_new_from_json (applied, dir, source, &error);
  if (*scenario == NULL && any_strategy)
    {
      /* A search needs only the model, the cluster, the batch and the sequence: a
       * strategy that does not resolve is the question, not an error. */
      PlxScenario *raw = plx_scenario_new_unresolved (applied, dir, source, NULL);
      if (raw != NULL && raw->strategy->global_batch_size > 0)
        {
          if (raw->strategy->seq_length == 0)
            raw->strategy->seq_length = raw->model->max_positions;
          *scenario = raw;
          return -1;
        }
      g_clear_pointer (&raw, plx_scenario_free);
    }
  if (*scenario == NULL)
    return user_error_with_advice (error, applied, dir, source);
  return -1;
}

/* The one-key changes after which the strategy fits (closed form), fastest first;
 * NULL where the closed form does not apply (a schedule file). */
static GPtrArray *
fit_suggestions (const PlxScenario *sc)
{
  if (sc->strategy->schedule == PLX_SCHEDULE_FILE)
    return NULL;
  return plx_advice_fit_fixes (sc->model, sc->cluster, sc->strategy, G_MAXUINT);
}

static void
fit_suggestions_to_json (JsonObject *out,
                         GPtrArray  *fixes)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < fixes->len; i++)
    {
      const PlxAdviceFix *fix = g_ptr_array_index (fixes, i);
      JsonObject *o = json_object_new ();
      json_object_set_string_member (o, "key", fix->key);
      json_object_set_member (o, "value", json_node_copy (fix->value));
      json_object_set_string_member (o, "label", fix->label);
      json_object_set_double_member (o, "step_time_s", fix->step_time_s);
      json_object_set_int_member (o, "peak_memory_bytes", (gint64) fix->peak_memory_bytes);
      json_array_add_object_element (array, o);
    }
  json_object_set_array_member (out, "fit_suggestions", array);
}

static void
print_fit_suggestions (GPtrArray *fixes)
{
  if (fixes->len == 0)
    {
      printf ("To fit: no change of one setting makes it fit (try parallax-cli search)\n");
      return;
    }
  printf ("To fit, one change (closed-form step time and peak, fastest first):\n");
  for (guint i = 0; i < fixes->len; i++)
    {
      const PlxAdviceFix *fix = g_ptr_array_index (fixes, i);
      g_autofree char *flags = fix_flags (fix);
      printf ("  %-22s %9.3f s  %7.2f GiB   %s\n", fix->label, fix->step_time_s,
              fix->peak_memory_bytes / 1073741824.0, flags);
    }
}

/* The event engine's error; past its passes, with simulate's other way to an answer
 * (the core's message names only what the strategy can change: the window has no
 * engine to choose). */
static int
event_engine_error (const GError      *error,
                    const PlxStrategy *strategy)
{
  g_autoptr (GError) with_flag = NULL;

  if (!plx_sim_too_many_passes (strategy))
    return user_error (error);
  with_flag = g_error_new (error->domain, error->code, "%s; or --engine analytical answers in closed form",
                           error->message);
  return user_error (with_flag);
}

static int
cmd_simulate (int argc, char **argv)
{
  g_auto (SimulateOptions) opts = { NULL, "event", NULL, NULL, NULL, FALSE, 0, 0, 1.0, FALSE, 0, 0, NULL, NULL, NULL };
  g_autoptr (PlxScenario) sc = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxTimeline) timeline = NULL;
  g_autoptr (PlxMemoryTrace) trace = NULL;
  g_autoptr (GPtrArray) fixes = NULL;
  PlxReport report = { 0 };
  guint64 max_mb = 0;
  PlxCliUncertainty uq;
  gboolean record;
  int status;

  plx_cli_uncertainty_init (&uq);
  opts.uq = &uq;
  status = load_scenario (argc, argv, FALSE, FALSE, &opts, &sc);
  if (status >= 0)
    return status;
  record = opts.trace != NULL || opts.timeline != NULL || opts.memory != NULL;
  if (plx_cli_uncertainty_wanted (&uq) && sc->strategy->workload == PLX_WORKLOAD_INFERENCE)
    return usage_error ("--samples and --sensitivity run the training step's closed form; not inference");
  if (plx_cli_uncertainty_wanted (&uq) && sc->strategy->schedule == PLX_SCHEDULE_FILE)
    return usage_error ("--samples and --sensitivity need the closed form, which a schedule file has not");
  if (plx_cli_uncertainty_wanted (&uq) && !plx_cli_uncertainty_run (&uq, sc, &error))
    {
      plx_cli_uncertainty_clear (&uq);
      return user_error (error);
    }

  if (sc->strategy->workload == PLX_WORKLOAD_INFERENCE)
    {
      PlxInferenceReport inf;
      if (record)
        return usage_error ("--trace, --timeline and --memory chart training steps; not inference");
      if (!plx_inference_run (sc->model, sc->cluster, sc->strategy, &inf, &error))
        return user_error (error);
      if (opts.json)
        {
          g_autoptr (JsonNode) out = plx_inference_report_to_json (&inf);
          add_identity (json_node_get_object (out), sc);
          print_json (out);
        }
      else
        {
          g_autofree char *text = plx_inference_report_to_text (&inf, sc->strategy);
          print_scenario_header (sc);
          printf ("%s", text);
        }
      return 0;
    }

  if (g_str_equal (opts.engine, "event"))
    {
      if (!plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &report, NULL,
                                 record ? &timeline : NULL, record ? &trace : NULL, &error))
        return event_engine_error (error, sc->strategy);
    }
  else if (g_str_equal (opts.engine, "ir"))
    {
      if (!plx_ir_run_scenario (sc->model, sc->cluster, sc->strategy, &report, record ? &timeline : NULL,
                                record ? &trace : NULL, &error))
        return user_error (error);
    }
  else if (!plx_analytic_run (sc->model, sc->cluster, sc->strategy, &report, &error))
    return user_error (error);

  if (opts.trace != NULL && !plx_timeline_write_chrome_trace (timeline, trace, opts.trace, &error))
    return user_error (error);
  if (opts.timeline != NULL || opts.memory != NULL)
    {
      PlxRenderStyle style;
      ChartData data = { timeline, trace, &report, &style, sc->name, NULL, opts.window_t0, opts.window_t1 };

      plx_render_style_init (&style, opts.dark, opts.scale);
      if (opts.timeline != NULL &&
          !plx_render_export (opts.timeline, opts.width ? opts.width : 1600, opts.height ? opts.height : 900,
                              opts.scale, &style, draw_timeline, &data, &error))
        return user_error (error);
      if (opts.memory != NULL &&
          !plx_render_export (opts.memory, opts.width ? opts.width : 1200, opts.height ? opts.height : 800,
                              opts.scale, &style, draw_memory, &data, &error))
        return user_error (error);
    }

  /* The largest micro-batch that fits comes from the closed form, which has none
   * for a schedule file. */
  if (sc->strategy->schedule != PLX_SCHEDULE_FILE &&
      !plx_analytic_max_micro_batch_size (sc->model, sc->cluster, sc->strategy, &max_mb, &error))
    return user_error (error);

  if (!report.fits_in_memory)
    fixes = fit_suggestions (sc);

  if (opts.json)
    {
      g_autoptr (JsonNode) out = plx_report_to_json (&report);
      add_identity (json_node_get_object (out), sc);
      if (sc->strategy->schedule != PLX_SCHEDULE_FILE)
        json_object_set_int_member (json_node_get_object (out), "max_micro_batch_size", (gint64) max_mb);
      if (fixes != NULL)
        fit_suggestions_to_json (json_node_get_object (out), fixes);
      plx_cli_uncertainty_add_json (&uq, sc, json_node_get_object (out));
      plx_cli_measured_gemms_add_json (sc, json_node_get_object (out));
      if (timeline != NULL && timeline->dropped > 0)
        {
          json_object_set_int_member (json_node_get_object (out), "timeline_dropped_events", (gint64) timeline->dropped);
          json_object_set_double_member (json_node_get_object (out), "timeline_recorded_until_s",
                                         timeline->recorded_until_s);
        }
      print_json (out);
    }
  else
    {
      g_autofree char *text = plx_report_to_text (&report);
      print_scenario_header (sc);
      printf ("%s", text);
      if (sc->strategy->schedule == PLX_SCHEDULE_FILE)
        ;
      else if (max_mb == 0)
        printf ("Largest micro-batch that fits: none (even 1 sequence per micro-batch is too much)\n");
      else
        printf ("Largest micro-batch that fits: %" G_GUINT64_FORMAT " sequences (now %" G_GUINT64_FORMAT ")\n",
                max_mb, sc->strategy->micro_batch_size);
      if (fixes != NULL)
        print_fit_suggestions (fixes);
      if (opts.trace != NULL)
        printf ("Trace             %s (open in Perfetto or chrome://tracing)\n", plx_cli_shown (plx_cli_output_name (opts.trace)));
      if (opts.timeline != NULL)
        printf ("Timeline chart    %s\n", plx_cli_shown (opts.timeline));
      if (opts.memory != NULL)
        printf ("Memory chart      %s\n", plx_cli_shown (opts.memory));
      if (timeline != NULL && timeline->dropped > 0)
        printf ("Timeline          only the first %d events are recorded (up to %.3f s of the %.3f s step, "
                "%" G_GUINT64_FORMAT " more not); the figures above cover the whole step\n",
                PLX_TIMELINE_MAX_EVENTS, timeline->recorded_until_s, report.step_time_s, timeline->dropped);
      plx_cli_measured_gemms_print (sc);
      plx_cli_uncertainty_print (&uq, sc);
    }
  plx_cli_uncertainty_clear (&uq);
  return 0;
}

static int
cmd_compare (int argc, char **argv)
{
  g_auto (SimulateOptions) opts = { NULL, "event", NULL, NULL, NULL, FALSE, 0, 0, 1.0, FALSE, 0, 0, NULL, NULL, NULL };
  const char *paths[2] = { NULL, NULL };
  g_autofree char *out = NULL;
  char **given;
  const GOptionEntry entries[] = {
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out, "the chart (.png, .svg or .pdf)", "CHART" },
    { "width", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) chart_option, "chart width in pixels (1600)", "N" },
    { "height", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) chart_option, "chart height in pixels (1100)", "N" },
    { "scale", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) chart_option, "pixels per point, 2 for HiDPI PNG (1 to 4)", "N" },
    { "window", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_CALLBACK, (gpointer) chart_option, "accepted, as simulate's",
      "START:END" },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &opts.dark, "the dark theme", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &opts.json, "the two reports as JSON", NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (PlxCliOptions) options = plx_cli_options_new_with_data (
    "compare", "A.json B.json",
    "Simulate two scenarios and draw them side by side: both timelines on one\n"
    "time scale, the step-time breakdown with differences, memory against capacity.\n"
    "--out CHART.png|.svg|.pdf (or --json) is needed.",
    NULL, &opts);
  g_autoptr (GError) error = NULL;
  PlxScenario *sc[2] = { NULL, NULL };
  PlxTimeline *tl[2] = { NULL, NULL };
  PlxReport report[2];
  PlxCompareSide sides[2];
  PlxRenderStyle style;
  ChartData data;
  int status = -1;

  plx_cli_options_add_entries (options, entries);
  status = plx_cli_options_parse (options, argc, argv);
  if (status != PLX_CLI_OPTIONS_CONTINUE)
    return status;
  given = plx_cli_options_positionals (options);
  for (guint i = 0; given[i] != NULL; i++)
    {
      if (i >= 2)
        return usage_error ("compare: more than two scenarios given");
      paths[i] = given[i];
    }
  if (paths[1] == NULL)
    return usage_error ("compare: needs two scenario files");
  if (out == NULL && !opts.json)
    return usage_error ("compare: --out CHART.png|.svg|.pdf (or --json) is needed");
  if (out != NULL)
    {
      PlxExportFormat format;
      if (!plx_export_format_for_path (out, &format, &error))
        return usage_error ("--out: %s", error->message);
    }

  for (guint k = 0; k < 2 && status < 0; k++)
    {
      sc[k] = plx_scenario_new_from_file (paths[k], &error);
      if (sc[k] == NULL || !plx_sim_run_scenario (sc[k]->model, sc[k]->cluster, sc[k]->strategy, &report[k], NULL,
                                                  &tl[k], NULL, &error))
        status = user_error (error);
    }
  if (status < 0)
    {
      for (guint k = 0; k < 2; k++)
        {
          sides[k].name = sc[k]->name;
          sides[k].report = &report[k];
          sides[k].timeline = tl[k];
          sides[k].model = sc[k]->model->name;
        }
      plx_render_style_init (&style, opts.dark, opts.scale);
      data = (ChartData) { NULL, NULL, NULL, &style, NULL, sides, 0.0, 0.0 };
      if (out != NULL &&
          !plx_render_export (out, opts.width ? opts.width : 1600, opts.height ? opts.height : 1100, opts.scale,
                              &style, draw_compare, &data, &error))
        status = user_error (error);
    }
  if (status < 0)
    {
      if (opts.json)
        {
          g_autoptr (JsonBuilder) b = json_builder_new ();
          g_autoptr (JsonNode) root = NULL;
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "format_version");
          json_builder_add_int_value (b, JSON_FORMAT_VERSION);
          json_builder_set_member_name (b, "tool_version");
          json_builder_add_string_value (b, PACKAGE_VERSION);
          json_builder_set_member_name (b, "scenarios");
          json_builder_begin_array (b);
          json_builder_add_string_value (b, sc[0]->name);
          json_builder_add_string_value (b, sc[1]->name);
          json_builder_end_array (b);
          for (guint k = 0; k < 2; k++)
            {
              JsonNode *side = plx_report_to_json (&report[k]);
              add_identity (json_node_get_object (side), sc[k]);
              json_builder_set_member_name (b, k == 0 ? "a" : "b");
              json_builder_add_value (b, side);
            }
          json_builder_set_member_name (b, "step_time_ratio");
          json_builder_add_double_value (b, report[1].step_time_s / report[0].step_time_s);
          json_builder_end_object (b);
          root = json_builder_get_root (b);
          print_json (root);
        }
      else
        {
          char verdict[300];
          plx_compare_verdict (&sides[0], &sides[1], verdict, sizeof verdict);
          printf ("A  %-40.40s step %.3f s, MFU %.1f %%, peak %.2f GiB\n"
                  "B  %-40.40s step %.3f s, MFU %.1f %%, peak %.2f GiB\n"
                  "Verdict: %s\n"
                  "Chart %s\n",
                  sc[0]->name, report[0].step_time_s, report[0].mfu * 100.0, report[0].peak_memory_bytes / 1073741824.0,
                  sc[1]->name, report[1].step_time_s, report[1].mfu * 100.0, report[1].peak_memory_bytes / 1073741824.0,
                  verdict, out);
        }
      status = 0;
    }
  for (guint k = 0; k < 2; k++)
    {
      g_clear_pointer (&sc[k], plx_scenario_free);
      g_clear_pointer (&tl[k], plx_timeline_free);
    }
  return status;
}

static int
cmd_search (int argc, char **argv)
{
  g_auto (SimulateOptions) opts = { NULL, "event", NULL, NULL, NULL, FALSE, 0, 0, 1.0, FALSE, 0, 0, NULL, NULL, NULL };
  SearchFlags flags = { .top = 10 };
  PlxSearchOptions *so = &flags.so;
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScenario) sc = NULL;
  g_autoptr (PlxSearch) search = NULL;
  g_autoptr (JsonNode) applied = NULL;
  g_autofree char *dir = NULL;
  int status;

  plx_search_options_init (so);
  opts.search = &flags;
  opts.applied_out = &applied;
  opts.dir_out = &dir;
  status = load_scenario (argc, argv, TRUE, TRUE, &opts, &sc);
  if (status >= 0)
    return status;
  /* At least ten re-simulated, however few are shown: the closed form alone ranks less well. */
  so->top_k = CLAMP (flags.top, 10u, 50u);
  if ((so->n_shards > 0) != (flags.part_out != NULL))
    return usage_error ("search: --shard and --out go together");
  if (so->n_shards > 0 && (flags.csv != NULL || opts.json))
    return usage_error ("search --shard writes its part to --out; --csv and --json belong to merge");
  if (so->n_shards > 0)
    return plx_cli_search_part (sc, applied, dir, opts.path, so, flags.top, flags.part_out);

  {
    /* Progress on a terminal (or with --progress); Ctrl+C stops the search cleanly:
     * nothing is written, and the exit status is a shell's for SIGINT. */
    g_autoptr (PlxCliProgress) progress = plx_cli_progress_new ("search", flags.progress);
    search = plx_search_run (sc->model, sc->cluster, sc->strategy, so, plx_cli_progress_cancellable (progress),
                             plx_cli_progress_search, progress, &error);
    if (search == NULL && plx_cli_progress_interrupted (progress))
      {
        g_clear_pointer (&progress, plx_cli_progress_free);
        fprintf (stderr, "parallax-cli: search: interrupted (Ctrl+C); no results written\n");
        return 130;
      }
  }
  if (search == NULL)
    return user_error (error);
  return plx_cli_search_report (sc, search, flags.top, opts.json, flags.csv);
}

static int
cmd_plan (int argc, char **argv)
{
  g_auto (SimulateOptions) opts = { NULL, "event", NULL, NULL, NULL, FALSE, 0, 0, 1.0, FALSE, 0, 0, NULL, NULL, NULL };
  g_autoptr (PlxScenario) sc = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxPlan) plan = NULL;
  g_autofree char *text = NULL;
  int status = load_scenario (argc, argv, TRUE, FALSE, &opts, &sc);

  if (status >= 0)
    return status;
  if (opts.json)
    {
      g_autoptr (PlxIrGraph) program = NULL;
      g_autoptr (JsonNode) node = NULL;
      plan = plx_plan_lower (sc->model, sc->cluster, sc->strategy, &error);
      if (plan == NULL || !plx_ir_plan_check_printable (plan, &error))
        return user_error (error);
      program = plx_ir_lower_scenario (sc->model, sc->cluster, sc->strategy, NULL, NULL, &error);
      if (program == NULL || !plx_ir_program_check_printable (program, &error))
        return user_error (error);
      node = plx_ir_graph_to_json (program);
      print_json (node);
      return 0;
    }
  plan = plx_plan_lower (sc->model, sc->cluster, sc->strategy, &error);
  if (plan == NULL)
    return user_error (error);
  text = plx_plan_to_text (plan);
  print_scenario_header (sc);
  printf ("%s", text);
  return 0;
}

/* A graph model, or --devices (the graph form's flag, whose errors stay its own),
 * goes to the chain partitioner; anything else is a transformer scenario. */
static int
cmd_partition (int argc, char **argv)
{
  g_auto (SimulateOptions) opts = { NULL, "event", NULL, NULL, NULL, FALSE, 0, 0, 1.0, FALSE, 0, 0, NULL, NULL, NULL };
  g_autoptr (PlxScenario) sc = NULL;
  int status;

  for (int i = 2; i < argc; i++)
    if (g_str_equal (argv[i], "--devices") || g_str_has_prefix (argv[i], "--devices="))
      return plx_cli_graph_partition (argc, argv);
  if (plx_cli_graph_wanted (argc, argv))
    return plx_cli_graph_partition (argc, argv);
  status = load_scenario (argc, argv, TRUE, FALSE, &opts, &sc);
  if (status >= 0)
    return status;
  return plx_cli_partition_scenario (sc, opts.json);
}

static int
cmd_validate (int argc, char **argv)
{
  g_autoptr (GPtrArray) tables = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_validation_free);
  g_autofree char *engine_arg = NULL;
  const char *engine = "event";
  char **paths;
  gboolean json = FALSE, memory = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "JSON output", NULL },
    { "engine", 0, 0, G_OPTION_ARG_STRING, &engine_arg, "event (default), analytical or ir", "ENGINE" },
    { "memory", 0, 0, G_OPTION_ARG_NONE, &memory,
      "also list, for every case with a measured step time, MFU or throughput (a run that ran), whether it is predicted to fit in memory",
      NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (PlxCliOptions) options = plx_cli_options_new (
    "validate", "TABLE.json...",
    "Predict every case of the validation tables and report the error against the\n"
    "published measurements, per case and as mean, median, largest absolute error and\n"
    "bias per metric. With several tables, also one line per table and the pooled\n"
    "summary over step times, MFUs and throughputs (speed bias: + = predicted faster).\n"
    "With --memory, every timed case's predicted peak memory against the usable memory,\n"
    "and per table how many of its runs, which ran on real GPUs, are predicted to fit.",
    NULL);
  int status;

  plx_cli_options_add_entries (options, entries);
  status = plx_cli_options_parse (options, argc, argv);
  if (status != PLX_CLI_OPTIONS_CONTINUE)
    return status;
  if (engine_arg != NULL)
    {
      engine = engine_arg;
      if (!g_str_equal (engine, "analytical") && !g_str_equal (engine, "event") && !g_str_equal (engine, "ir"))
        return usage_error ("--engine: \"%s\" is not analytical, event or ir", engine);
    }
  paths = plx_cli_options_positionals (options);
  if (paths[0] == NULL)
    return usage_error ("validate: no table given");

  for (guint i = 0; paths[i] != NULL; i++)
    {
      g_autoptr (GError) error = NULL;
      PlxValidation *v = plx_validation_run_file (paths[i], engine, &error);
      if (v == NULL)
        return user_error (error);
      g_ptr_array_add (tables, v);
    }

  if (tables->len == 1)
    {
      /* One table: the object FORMATS.md describes. */
      if (json)
        {
          g_autoptr (JsonNode) out = plx_validation_to_json (tables->pdata[0]);
          if (memory)
            json_object_set_member (json_node_get_object (out), "memory",
                                    plx_validation_memory_to_json (tables->pdata[0], TRUE));
          print_json (out);
        }
      else
        {
          g_autofree char *text = plx_validation_to_text (tables->pdata[0]);
          printf ("%s", text);
          if (memory)
            {
              g_autofree char *fits = plx_validation_memory_to_text ((PlxValidation *const *) tables->pdata, 1);
              printf ("\n%s", fits);
            }
        }
      return 0;
    }
  {
    PlxValidation *const *all = (PlxValidation *const *) tables->pdata;
    g_autoptr (PlxValidation) pooled = plx_validation_pool (all, tables->len);

    if (json)
      {
        g_autoptr (JsonNode) out = plx_validation_pooled_to_json (all, tables->len, pooled);
        if (memory)
          {
            JsonObject *o = json_node_get_object (out);
            JsonArray *each = json_object_get_array_member (o, "tables");
            for (guint i = 0; i < tables->len; i++)
              json_object_set_member (json_array_get_object_element (each, i), "memory",
                                      plx_validation_memory_to_json (all[i], TRUE));
            json_object_set_member (json_object_get_object_member (o, "pooled"), "memory",
                                    plx_validation_memory_to_json (pooled, FALSE));
          }
        print_json (out);
      }
    else
      {
        g_autofree char *summary = plx_validation_pooled_to_text (all, tables->len, pooled);
        for (guint i = 0; i < tables->len; i++)
          {
            g_autofree char *text = plx_validation_to_text (all[i]);
            printf ("%s\n", text);
          }
        printf ("%s", summary);
        if (memory)
          {
            g_autofree char *fits = plx_validation_memory_to_text (all, tables->len);
            printf ("\n%s", fits);
          }
      }
  }
  return 0;
}

static int dispatch (int argc, char **argv);

static int
run_command (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  /* Numbers in JSON and text must use '.', whatever the user's locale. */
  setlocale (LC_NUMERIC, "C");

  if (argc < 2)
    return usage_error ("no command given");
  if (g_str_equal (argv[1], "help") && argc > 2)
    {
      /* help COMMAND is COMMAND --help. */
      static char help_flag[] = "--help";
      char *help_argv[] = { argv[0], argv[2], help_flag, NULL };

      if (argc > 3)
        return usage_error ("help: one command at a time, not \"%s\" too", argv[3]);
      if (!plx_cli_is_command (argv[2]))
        return usage_error ("help: unknown command \"%s\"", argv[2]);
      argc = 3;
      argv = help_argv;
      return plx_cli_stdout_finish (dispatch (argc, argv));
    }
  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h") || g_str_equal (argv[1], "help"))
    {
      printf ("%s", main_help);
      return 0;
    }
  if (g_str_equal (argv[1], "--version") || (plx_cli_is_command (argv[1]) && plx_cli_version_wanted (argc, argv)))
    {
      plx_cli_print_version ();
      return 0;
    }
  return plx_cli_stdout_finish (dispatch (argc, argv));
}

static int
dispatch (int argc, char **argv)
{
  if (g_str_equal (argv[1], "presets"))
    return cmd_presets (argc, argv);
  if ((g_str_equal (argv[1], "simulate") || g_str_equal (argv[1], "plan")) && plx_cli_graph_wanted (argc, argv))
    return plx_cli_graph (argc, argv, g_str_equal (argv[1], "plan"));
  if (g_str_equal (argv[1], "search") && plx_cli_graph_wanted (argc, argv))
    return plx_cli_graph_search (argc, argv);
  if (g_str_equal (argv[1], "partition"))
    return cmd_partition (argc, argv);
  if (g_str_equal (argv[1], "fuse"))
    return plx_cli_graph_fuse (argc, argv);
  if (g_str_equal (argv[1], "reshard"))
    return plx_cli_reshard (argc, argv);
  if (g_str_equal (argv[1], "simulate"))
    return cmd_simulate (argc, argv);
  if (g_str_equal (argv[1], "plan"))
    return cmd_plan (argc, argv);
  if (g_str_equal (argv[1], "compare"))
    return cmd_compare (argc, argv);
  if (g_str_equal (argv[1], "search"))
    return cmd_search (argc, argv);
  if (g_str_equal (argv[1], "merge"))
    return plx_cli_merge (argc, argv);
  if (g_str_equal (argv[1], "sweep"))
    return plx_cli_sweep (argc, argv);
  if (g_str_equal (argv[1], "validate"))
    return cmd_validate (argc, argv);
  if (g_str_equal (argv[1], "calibrate"))
    return plx_cli_calibrate (argc, argv);
  if (g_str_equal (argv[1], "import"))
    return plx_cli_import (argc, argv);
  return usage_error ("unknown command \"%s\"", argv[1]);
}

/* Every command's output checked, and no temporary file of an output left behind by
 * Ctrl+C or a kill (docs/formats.md, "Output files"). */
int
main (int argc, char **argv)
{
  plx_output_remove_temporaries_on_signal ();
  return plx_cli_finish_output (run_command (argc, argv));
}
