/* parallax-cli calibrate --kineto TRACE.json [--scenario S.json] [--cluster PRESET|FILE] [--out FILE] [--json]:
 * a PyTorch profiler trace's kernels by class and by op, and the measured GEMM and
 * elementwise efficiencies folded into the cluster's curves (docs/calibration.md). */
#include <stdio.h>
#include <string.h>

#include "parallax/parallax.h"

#include "plx-cli-calibrate-kineto.h"
#include "plx-cli-gemm-match.h"
#include "plx-cli-options.h"
#include "plx-cli-stdout.h"
#include "plx-cli-util.h"
#include "base/plx-json.h"
#include "base/plx-presets.h"

static const char summary[] =
  "Read a PyTorch profiler (Kineto) trace: every GPU kernel linked to the CPU op that\n"
  "launched it, the kernels' time by class (gemm, attention, memory, collective,\n"
  "other) and by op. With --cluster, the GEMMs and elementwise ops whose shapes were\n"
  "recorded (record_shapes=True) give measured efficiency points, folded into the\n"
  "cluster's matmul and memory curves. With --scenario, the trace's GEMMs are matched\n"
  "by shape and dtype to the GEMMs the scenario's matmul ops run on one GPU (forward,\n"
  "data and weight gradient), and the matched times are written as the cluster's\n"
  "gpu.measured_gemms, which the cost model uses in place of the roofline.";

typedef struct
{
  const char     *name;
  guint           instances;
  double          kernel_us;
  PlxKernelClass  kclass;
} OpTotal;

static gint
by_time (gconstpointer a, gconstpointer b)
{
  double x = ((const OpTotal *) a)->kernel_us, y = ((const OpTotal *) b)->kernel_us;
  return x > y ? -1 : x < y ? 1 : strcmp (((const OpTotal *) a)->name, ((const OpTotal *) b)->name);
}

static GArray *
op_totals (const PlxKinetoTrace *t)
{
  g_autoptr (GHashTable) slot = g_hash_table_new (g_str_hash, g_str_equal);
  GArray *totals = g_array_new (FALSE, FALSE, sizeof (OpTotal));

  for (guint i = 0; i < t->ops->len; i++)
    {
      const PlxKinetoOp *op = &g_array_index (t->ops, PlxKinetoOp, i);
      const char *name = op->name != NULL ? op->name : "(unnamed)";
      gpointer s;
      OpTotal *o;

      if (!g_hash_table_lookup_extended (slot, name, NULL, &s))
        {
          OpTotal fresh = { name, 0, 0.0, op->kclass };
          s = GUINT_TO_POINTER (totals->len);
          g_array_append_val (totals, fresh);
          g_hash_table_insert (slot, (gpointer) name, s);
        }
      o = &g_array_index (totals, OpTotal, GPOINTER_TO_UINT (s));
      o->instances++;
      o->kernel_us += op->kernel_us;
    }
  g_array_sort (totals, by_time);
  return totals;
}

static double
unlinked_us (const PlxKinetoTrace *t, guint *count)
{
  double us = 0.0;

  *count = 0;
  for (guint i = 0; i < t->kernels->len; i++)
    if (g_array_index (t->kernels, PlxKernel, i).op < 0)
      {
        (*count)++;
        us += g_array_index (t->kernels, PlxKernel, i).dur_us;
      }
  return us;
}

static void
add_points (JsonBuilder *b, const char *key, GArray *pts)
{
  json_builder_set_member_name (b, key);
  json_builder_begin_array (b);
  for (guint i = 0; pts != NULL && i < pts->len; i++)
    {
      json_builder_begin_array (b);
      json_builder_add_double_value (b, g_array_index (pts, PlxCurvePoint, i).x);
      json_builder_add_double_value (b, g_array_index (pts, PlxCurvePoint, i).y);
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
}

static JsonNode *
to_json (const PlxKinetoTrace *t, const PlxKernelClassSummary *sum, GArray *ops, const PlxKinetoPoints *pts)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  guint n_unlinked;
  double un_us = unlinked_us (t, &n_unlinked);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "trace");
  json_builder_add_string_value (b, t->source);
  json_builder_set_member_name (b, "events");
  json_builder_add_int_value (b, t->n_events);
  json_builder_set_member_name (b, "kernels");
  json_builder_add_int_value (b, t->kernels->len);
  json_builder_set_member_name (b, "span_us");
  json_builder_add_double_value (b, t->last_us - t->first_us);
  json_builder_set_member_name (b, "unlinked_kernels");
  json_builder_add_int_value (b, n_unlinked);
  json_builder_set_member_name (b, "unlinked_us");
  json_builder_add_double_value (b, un_us);
  json_builder_set_member_name (b, "classes");
  json_builder_begin_object (b);
  for (guint c = 0; c < PLX_N_KERNEL_CLASSES; c++)
    {
      json_builder_set_member_name (b, plx_kernel_class_to_string (c));
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "count");
      json_builder_add_int_value (b, sum[c].count);
      json_builder_set_member_name (b, "total_us");
      json_builder_add_double_value (b, sum[c].total_us);
      json_builder_set_member_name (b, "share");
      json_builder_add_double_value (b, sum[c].share);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "ops");
  json_builder_begin_array (b);
  for (guint i = 0; i < ops->len; i++)
    {
      const OpTotal *o = &g_array_index (ops, OpTotal, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "op");
      json_builder_add_string_value (b, o->name);
      json_builder_set_member_name (b, "class");
      json_builder_add_string_value (b, plx_kernel_class_to_string (o->kclass));
      json_builder_set_member_name (b, "instances");
      json_builder_add_int_value (b, o->instances);
      json_builder_set_member_name (b, "kernel_us");
      json_builder_add_double_value (b, o->kernel_us);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "collectives");
  json_builder_begin_array (b);
  for (guint i = 0; i < t->kernels->len; i++)
    {
      const PlxKernel *k = &g_array_index (t->kernels, PlxKernel, i);
      if (k->kclass != PLX_KERNEL_COLLECTIVE)
        continue;
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "collective");
      json_builder_add_string_value (b, k->collective != NULL ? k->collective : "");
      json_builder_set_member_name (b, "bytes");
      json_builder_add_double_value (b, k->message_bytes);
      json_builder_set_member_name (b, "dur_us");
      json_builder_add_double_value (b, k->dur_us);
      json_builder_set_member_name (b, "kernel");
      json_builder_add_string_value (b, k->name);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  if (pts != NULL)
    {
      add_points (b, "matmul_points", pts->matmul);
      add_points (b, "matmul_fp8_points", pts->matmul_fp8);
      add_points (b, "matmul_tf32_points", pts->matmul_tf32);
      add_points (b, "matmul_fp32_points", pts->matmul_fp32);
      add_points (b, "memory_points", pts->memory);
      json_builder_set_member_name (b, "rejected_points");
      json_builder_add_int_value (b, pts->n_rejected);
    }
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
print_text (const PlxKinetoTrace *t, const PlxKernelClassSummary *sum, GArray *ops, const PlxKinetoPoints *pts)
{
  guint n_unlinked, shown = 0;
  double un_us = unlinked_us (t, &n_unlinked);

  printf ("%s: %u events, %u kernels over %.3f ms (the first's start to the last's end)\n", t->source,
          t->n_events, t->kernels->len, (t->last_us - t->first_us) * 1e-3);
  printf ("%-11s %8s %12s %7s\n", "class", "kernels", "time (ms)", "share");
  for (guint c = 0; c < PLX_N_KERNEL_CLASSES; c++)
    printf ("%-11s %8u %12.3f %6.1f%%\n", plx_kernel_class_to_string (c), sum[c].count, sum[c].total_us * 1e-3,
            100.0 * sum[c].share);
  printf ("Kernels without a launching op: %u (%.3f ms)\n\n", n_unlinked, un_us * 1e-3);
  printf ("%-40s %-10s %9s %12s\n", "op", "class", "instances", "time (ms)");
  for (guint i = 0; i < ops->len && shown < 15; i++, shown++)
    {
      const OpTotal *o = &g_array_index (ops, OpTotal, i);
      g_autofree char *safe = plx_printable (o->name);
      printf ("%-40.40s %-10s %9u %12.3f\n", safe, plx_kernel_class_to_string (o->kclass), o->instances,
              o->kernel_us * 1e-3);
    }
  if (ops->len > shown)
    printf ("(%u more ops)\n", ops->len - shown);
  for (guint i = 0; i < t->kernels->len; i++)
    {
      const PlxKernel *k = &g_array_index (t->kernels, PlxKernel, i);
      if (k->kclass == PLX_KERNEL_COLLECTIVE && k->collective != NULL)
        printf ("NCCL %s of %.0f bytes: %.3f ms\n", k->collective, k->message_bytes, k->dur_us * 1e-3);
    }
  if (pts != NULL)
    printf ("\nMeasured points: %u matmul (16-bit), %u matmul_fp8, %u matmul_tf32, %u matmul_fp32, %u memory "
            "(%u above the peak left out)\n",
            pts->matmul->len, pts->matmul_fp8->len, pts->matmul_tf32->len, pts->matmul_fp32->len, pts->memory->len,
            pts->n_rejected);
}

static JsonNode *
cluster_json_of (const char *name, GError **error)
{
  if (plx_cli_names_file (name))
    return plx_json_parse_file (name, error);
  return plx_presets_lookup (PLX_PRESET_CLUSTER, name, error);
}

/* The scenario, and its cluster's JSON with any preset expanded (the written
 * cluster must stand alone). */
static PlxScenario *
load_scenario (const char *path, JsonNode **cluster_json, GError **error)
{
  g_autoptr (JsonNode) node = plx_scenario_read_json (path, error);
  g_autofree char *dir = g_path_get_dirname (path);
  PlxScenario *sc;
  gboolean had_preset;

  if (node == NULL)
    return NULL;
  sc = plx_scenario_new_from_json (node, dir, path, error);
  if (sc == NULL)
    return NULL;
  if (cluster_json != NULL)
    {
      *cluster_json = plx_presets_expand (PLX_PRESET_CLUSTER, json_object_get_member (json_node_get_object (node), "cluster"),
                                          path, "cluster", &had_preset, error);
      if (*cluster_json == NULL)
        {
          plx_scenario_free (sc);
          return NULL;
        }
    }
  return sc;
}

int
plx_cli_calibrate_kineto (int argc, char **argv)
{
  g_autoptr (PlxKinetoTrace) trace = NULL;
  g_autoptr (PlxKinetoPoints) pts = NULL;
  g_autoptr (JsonNode) cluster_json = NULL;
  g_autoptr (PlxCluster) cluster = NULL;
  g_autoptr (GArray) ops = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScenario) sc = NULL;
  g_autoptr (PlxGemmMatch) match = NULL;
  PlxKernelClassSummary sum[PLX_N_KERNEL_CLASSES];
  g_autofree char *path = NULL, *cluster_name = NULL, *out = NULL, *scenario = NULL;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "kineto", 0, 0, G_OPTION_ARG_FILENAME, &path, "the trace", "TRACE.json" },
    { "scenario", 0, 0, G_OPTION_ARG_FILENAME, &scenario,
      "a training scenario whose GEMMs to match; its cluster is the default for --cluster", "FILE" },
    { "cluster", 0, 0, G_OPTION_ARG_FILENAME, &cluster_name, "a built-in cluster preset or a cluster JSON file: its peaks",
      "NAME" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out,
      "write the cluster with the folded curves (and the measured GEMMs) to FILE (needs --cluster or --scenario)",
      "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "print the result as JSON", NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (PlxCliOptions) options = plx_cli_options_new ("calibrate", "--kineto TRACE.json", summary, NULL);
  char **positionals;
  int status;

  plx_cli_options_add_entries (options, entries);
  status = plx_cli_options_parse (options, argc, argv);
  if (status != PLX_CLI_OPTIONS_CONTINUE)
    return status;
  if (!plx_cli_output_take ("--out", &out, &error))
    return usage_error ("calibrate: %s", error->message);
  positionals = plx_cli_options_positionals (options);
  if (positionals[0] != NULL)
    return usage_error ("calibrate --kineto: unexpected \"%s\"", positionals[0]);
  if (path == NULL)
    return usage_error ("calibrate: --kineto needs a trace file");
  if (out != NULL && cluster_name == NULL && scenario == NULL)
    return usage_error ("calibrate --kineto: --out needs --cluster (or --scenario), the cluster to fold the "
                        "measurements into");

  trace = plx_kineto_load (path, &error);
  if (trace == NULL)
    return user_error (error);
  if (scenario != NULL)
    {
      sc = load_scenario (scenario, cluster_name == NULL ? &cluster_json : NULL, &error);
      if (sc == NULL)
        {
          g_prefix_error (&error, "--scenario: ");
          return user_error (error);
        }
      if (cluster_name == NULL)
        cluster_name = g_strdup (scenario);
    }
  if (cluster_name != NULL)
    {
      if (cluster_json == NULL)
        cluster_json = cluster_json_of (cluster_name, &error);
      if (cluster_json != NULL)
        cluster = plx_cluster_new_from_json (cluster_json, cluster_name, &error);
      if (cluster == NULL)
        {
          g_prefix_error (&error, "--cluster: ");
          return user_error (error);
        }
      pts = plx_kineto_points (trace, cluster);
    }
  if (sc != NULL)
    {
      match = plx_gemm_match (trace, sc->model, cluster, sc->strategy, &error);
      if (match == NULL)
        return user_error (error);
    }
  if (out != NULL)
    {
      g_autofree char *base = g_path_get_basename (path);
      g_autoptr (JsonNode) folded = plx_kineto_cluster_json (cluster_json, pts, base, &error);

      if (folded == NULL || (match != NULL && !plx_gemm_match_write_cluster (folded, match, base, &error)))
        return user_error (error);
      if (!plx_json_write_file (folded, out, &error))
        {
          g_prefix_error (&error, "--out: ");
          return user_error (error);
        }
    }

  plx_kineto_summarize (trace, sum);
  ops = op_totals (trace);
  if (json)
    {
      g_autoptr (JsonNode) node = to_json (trace, sum, ops, pts);
      if (match != NULL)
        json_object_set_member (json_node_get_object (node), "gemm_match", plx_cli_gemm_match_to_json (match));
      print_json (node);
    }
  else
    {
      print_text (trace, sum, ops, pts);
      if (match != NULL)
        plx_cli_gemm_match_print (match);
      if (out != NULL)
        printf ("Wrote %s\n", plx_cli_shown (plx_cli_output_name (out)));
    }
  return 0;
}
