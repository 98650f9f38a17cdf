/* `parallax-cli reshard`: one array's redistribution from a layout to another
 * (issue 14, docs/reshard.md): the synthesised steps, their times and the peak
 * memory, beside the XLA-style baseline. */
#include <stdio.h>
#include <string.h>

#include "parallax/parallax.h"

#include "plx-cli-options.h"
#include "plx-cli-reshard.h"
#include "plx-cli-util.h"
#include "base/plx-json.h"
#include "ir/plx-ir.h"
#include "reshard/plx-reshard-ir.h"

/* What the help says beyond the flag list (plx_cli_options_new). */
static const char *const reshard_summary =
  "Redistribute one sharded array (docs/reshard.md): the cheapest sequence of\n"
  "collectives whose every layout holds at most the larger of the source and target\n"
  "shards per GPU, and XLA's way (gather everything, then slice) beside it. Give\n"
  "--shape, --mesh, --from and --to, e.g.\n"
  "  parallax-cli reshard --shape 12288x49152 --mesh 8x8 --from \"[x,y]\" --to \"[y,-]\"\n"
  "\n"
  "Or reshard a checkpoint: parallax-cli reshard [SCENARIO.json] --to-strategy tp=N,pp=N\n"
  "[--no-optimizer] [--json]. The scenario's model (the built-in default without a file)\n"
  "from its TP x PP to another with as many GPUs a copy: every block weight, and its fp32\n"
  "master copy and Adam moments unless --no-optimizer, planned one array after another on\n"
  "the scenario's cluster.";

static const char *const reshard_description =
  "A LAYOUT names per dimension the mesh axes it is split over, in order: \"[x,y]\",\n"
  "\"[y,-]\" ('-' not split), \"[xy,-]\" (dimension 0 over x then y), \"[x,-]+y\" (and\n"
  "partial sums over y, summed by the plan). The mesh's axes x, y (and z) are laid onto\n"
  "the cluster's GPUs row-major (the last axis varies fastest).\n";

static int
parse_shape (const char *text, PlxArrayShape *shape)
{
  g_auto (GStrv) parts = g_strsplit (text, "x", -1);
  guint n = g_strv_length (parts);

  if (n < 1 || n > PLX_RESHARD_MAX_RANK)
    return usage_error ("--shape: \"%s\" is not 1 to %u dimensions like 12288x49152", text, PLX_RESHARD_MAX_RANK);
  shape->rank = n;
  for (guint i = 0; i < n; i++)
    {
      char *end = NULL;
      guint64 v = g_ascii_strtoull (parts[i], &end, 10);
      if (end == parts[i] || *end != '\0' || parts[i][0] == '-' || v < 1 || v > (G_GUINT64_CONSTANT (1) << 40))
        return usage_error ("--shape: dimension %u of \"%s\" (\"%s\") is not a whole number from 1 to 2^40", i, text,
                            parts[i]);
      shape->dim[i] = v;
    }
  return -1;
}

static void
add_plan_json (JsonBuilder *b, const PlxReshardPlan *plan, gboolean steps)
{
  json_builder_set_member_name (b, "time_s");
  json_builder_add_double_value (b, plan->time_s);
  json_builder_set_member_name (b, "peak_bytes_per_device");
  json_builder_add_int_value (b, (gint64) plan->peak_bytes);
  if (!steps)
    return;
  json_builder_set_member_name (b, "steps");
  json_builder_begin_array (b);
  for (guint i = 0; i < plan->steps->len; i++)
    {
      const PlxReshardStep *st = &g_array_index (plan->steps, PlxReshardStep, i);
      g_autofree char *after = plx_sharding_format (&st->after);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "collective");
      json_builder_add_string_value (b, plx_reshard_op_name (st->op));
      json_builder_set_member_name (b, "layout");
      json_builder_add_string_value (b, after);
      json_builder_set_member_name (b, "time_s");
      json_builder_add_double_value (b, st->time_s);
      json_builder_set_member_name (b, "peak_bytes_per_device");
      json_builder_add_int_value (b, (gint64) (st->in_bytes + st->out_bytes));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/* The plan as a standalone program (plx_reshard_plan_to_graph), its tensors of the
 * array's dtype, written where `simulate --program` reads it. */
static gboolean
write_program (const PlxReshardPlan *plan, PlxDtype dtype, const char *path, GError **error)
{
  g_autoptr (PlxIrGraph) graph = plx_reshard_plan_to_graph (plan, error);
  g_autoptr (JsonNode) node = NULL;

  if (graph == NULL)
    return FALSE;
  /* fp16 and bf16 are the same two bytes to the planner; the file says which. */
  for (guint t = 0; t < graph->tensors->len; t++)
    ((PlxIrTensor *) graph->tensors->pdata[t])->dtype = dtype;
  node = plx_ir_graph_to_json (graph);
  if (!plx_json_write_file (node, path, error))
    {
      g_prefix_error (error, "--ir: ");
      return FALSE;
    }
  return TRUE;
}

static void
print_plan (const char *title, const PlxReshardPlan *plan)
{
  printf ("%s: %.3f ms, peak %.1f MiB per GPU\n", title, plan->time_s * 1e3, plan->peak_bytes / 1048576.0);
  for (guint i = 0; i < plan->steps->len; i++)
    {
      const PlxReshardStep *st = &g_array_index (plan->steps, PlxReshardStep, i);
      g_autofree char *after = plx_sharding_format (&st->after);
      printf ("  %2u  %-13s -> %-14s %10.3f ms %10.1f MiB\n", i + 1, plx_reshard_op_name (st->op), after,
              st->time_s * 1e3, (st->in_bytes + st->out_bytes) / 1048576.0);
    }
}

/* `reshard [SCENARIO] --to-strategy tp=N,pp=N`: a checkpoint's block weights. */
static int
reshard_scenario (const char *path, const char *to_strategy, gboolean optimizer, gboolean json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScenario) sc = NULL;
  g_autoptr (PlxReshardModel) r = NULL;
  g_auto (GStrv) parts = g_strsplit (to_strategy, ",", -1);
  guint tp, pp;

  if (path != NULL)
    sc = plx_scenario_new_from_file (path, &error);
  else
    {
      g_autoptr (JsonNode) node = plx_scenario_default_json ();
      sc = plx_scenario_new_from_json (node, ".", "built-in default scenario", &error);
    }
  if (sc == NULL)
    return user_error (error);
  tp = sc->strategy->tp;
  pp = sc->strategy->pp;
  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_auto (GStrv) kv = g_strsplit (g_strstrip (parts[i]), "=", 2);
      char *end = NULL;
      guint64 v = kv[1] != NULL ? g_ascii_strtoull (kv[1], &end, 10) : 0;
      if (kv[1] == NULL || end == kv[1] || *end != '\0' || kv[1][0] == '-' || v < 1 || v > 65536 ||
          (!g_str_equal (kv[0], "tp") && !g_str_equal (kv[0], "pp")))
        return usage_error ("--to-strategy: \"%s\" is not tp=N or pp=N with N from 1 to 65536", parts[i]);
      if (g_str_equal (kv[0], "tp"))
        tp = (guint) v;
      else
        pp = (guint) v;
    }
  r = plx_reshard_scenario (sc, tp, pp, optimizer, &error);
  if (r == NULL)
    {
      g_prefix_error (&error, "%s: ", sc->source);
      return user_error (error);
    }
  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      g_autoptr (JsonNode) root = NULL;
      g_autofree char *mesh = plx_mesh_format (&r->mesh);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "mesh");
      json_builder_add_string_value (b, mesh);
      json_builder_set_member_name (b, "time_s");
      json_builder_add_double_value (b, r->time_s);
      json_builder_set_member_name (b, "peak_bytes_per_device");
      json_builder_add_int_value (b, (gint64) r->peak_bytes);
      json_builder_set_member_name (b, "optimizer_shards");
      json_builder_add_int_value (b, r->optimizer_shards);
      json_builder_set_member_name (b, "weight_shards");
      json_builder_add_int_value (b, r->weight_shards);
      json_builder_set_member_name (b, "arrays");
      json_builder_begin_array (b);
      for (guint i = 0; i < r->arrays->len; i++)
        {
          const PlxReshardArray *a = &g_array_index (r->arrays, PlxReshardArray, i);
          g_autofree char *from = plx_sharding_format (&a->from);
          g_autofree char *to = plx_sharding_format (&a->to);
          g_autofree char *array_mesh = plx_mesh_format (&a->plan->mesh);
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "name");
          json_builder_add_string_value (b, a->name);
          json_builder_set_member_name (b, "where");
          json_builder_add_string_value (b, a->where);
          json_builder_set_member_name (b, "mesh");
          json_builder_add_string_value (b, array_mesh);
          json_builder_set_member_name (b, "shape");
          json_builder_begin_array (b);
          for (guint d = 0; d < a->shape.rank; d++)
            json_builder_add_int_value (b, (gint64) a->shape.dim[d]);
          json_builder_end_array (b);
          json_builder_set_member_name (b, "element_bytes");
          json_builder_add_int_value (b, a->shape.elem_bytes);
          json_builder_set_member_name (b, "count");
          json_builder_add_int_value (b, a->count);
          json_builder_set_member_name (b, "from");
          json_builder_add_string_value (b, from);
          json_builder_set_member_name (b, "to");
          json_builder_add_string_value (b, to);
          add_plan_json (b, a->plan, TRUE);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      print_json (root);
      return 0;
    }
  {
    g_autofree char *mesh = plx_mesh_format (&r->mesh);
    printf ("%s: TP %u x PP %u -> TP %u x PP %u, a %s mesh per model copy (an end stage's own parameters on "
            "a %ux%u mesh of its GPUs), %u arrays: %.1f ms, peak %.1f MiB per GPU\n\n",
            sc->name, sc->strategy->tp, sc->strategy->pp, tp, pp, mesh, r->mesh.size[1], r->mesh.size[2],
            r->moved_arrays, r->time_s * 1e3,
            r->peak_bytes / 1048576.0);
    if (r->optimizer_shards > 1)
      printf ("ZeRO-%u: each %s shared by %u data-parallel ranks, each moving its slice\n\n", sc->strategy->zero_stage,
              r->weight_shards > 1 ? "weight and optimizer array" : "optimizer array", r->optimizer_shards);
    printf ("%-20s %-12s %-22s %5s %-12s %-12s %10s %10s\n", "array", "where", "shape", "count", "from", "to",
            "ms each", "peak MiB");
    for (guint i = 0; i < r->arrays->len; i++)
      {
        const PlxReshardArray *a = &g_array_index (r->arrays, PlxReshardArray, i);
        g_autofree char *from = plx_sharding_format (&a->from);
        g_autofree char *to = plx_sharding_format (&a->to);
        GString *shape = g_string_new (NULL);

        for (guint d = 0; d < a->shape.rank; d++)
          g_string_append_printf (shape, "%s%" G_GUINT64_FORMAT, d ? "x" : "", a->shape.dim[d]);
        g_string_append (shape, a->shape.elem_bytes == 2 ? " bf16" : " fp32");
        printf ("%-20s %-12s %-22s %5u %-12s %-12s %10.3f %10.1f\n", a->name, a->where, shape->str, a->count, from, to,
                a->plan->time_s * 1e3, a->plan->peak_bytes / 1048576.0);
        g_string_free (shape, TRUE);
      }
  }
  return 0;
}

int
plx_cli_reshard (int argc, char **argv)
{
  g_autofree char *shape_text = NULL, *mesh_text = NULL, *from = NULL, *to = NULL, *dtype_arg = NULL;
  g_autofree char *cluster_name = NULL, *to_strategy = NULL, *ir_path = NULL, *nodes_text = NULL;
  const char *scenario = NULL, *dtype_text = "bf16";
  char **positionals;
  guint nodes = 0;
  gboolean json = FALSE, no_optimizer = FALSE;
  PlxArrayShape shape = { 0 };
  PlxMesh mesh = { 0 };
  PlxSharding src, dst;
  PlxDtype dtype;
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxCluster) cluster = NULL;
  g_autoptr (PlxReshardPlan) plan = NULL;
  g_autoptr (PlxReshardPlan) base = NULL;
  const GOptionEntry entries[] = {
    { "shape", 0, 0, G_OPTION_ARG_STRING, &shape_text, "the array's dimensions (1 to 4), e.g. 12288x49152", "D0xD1[x..]" },
    { "mesh", 0, 0, G_OPTION_ARG_STRING, &mesh_text, "the device mesh: axes x, y (and z), e.g. 8x8", "AxB[xC]" },
    { "from", 0, 0, G_OPTION_ARG_STRING, &from, "the source layout, e.g. \"[x,y]\"", "LAYOUT" },
    { "to", 0, 0, G_OPTION_ARG_STRING, &to, "the target layout, e.g. \"[y,-]\"", "LAYOUT" },
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &dtype_arg, "bf16 (default), fp16, fp8, fp32", "NAME" },
    { "cluster", 0, 0, G_OPTION_ARG_FILENAME, &cluster_name, "the cluster (default: the default scenario's)",
      "PRESET|FILE" },
    { "nodes", 0, 0, G_OPTION_ARG_STRING, &nodes_text, "that many nodes of it", "N" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "JSON output", NULL },
    { "ir", 0, 0, G_OPTION_ARG_FILENAME, &ir_path,
      "also write the plan as a distributed program (docs/ir.md) that `simulate --program` runs to the plan's time",
      "PROGRAM.json" },
    { "to-strategy", 0, 0, G_OPTION_ARG_STRING, &to_strategy, "a checkpoint of the scenario's model to this TP x PP",
      "tp=N,pp=N" },
    { "no-optimizer", 0, 0, G_OPTION_ARG_NONE, &no_optimizer,
      "with --to-strategy: the weights only, not their fp32 master copy and Adam moments", NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (PlxCliOptions) options = plx_cli_options_new ("reshard", "[SCENARIO.json]", reshard_summary,
                                                           reshard_description);
  int status;

  plx_cli_options_add_entries (options, entries);
  status = plx_cli_options_parse (options, argc, argv);
  if (status != PLX_CLI_OPTIONS_CONTINUE)
    return status;
  positionals = plx_cli_options_positionals (options);
  if (positionals[0] != NULL && positionals[1] != NULL)
    return usage_error ("reshard: unexpected argument \"%s\"", positionals[1]);
  scenario = positionals[0];
  if (dtype_arg != NULL)
    dtype_text = dtype_arg;
  if (nodes_text != NULL)
    {
      char *end = NULL;
      guint64 v = g_ascii_strtoull (nodes_text, &end, 10);
      if (end == nodes_text || *end != '\0' || nodes_text[0] == '-' || v < 1 || v > 100000)
        return usage_error ("--nodes: \"%s\" is not a whole number from 1 to 100000", nodes_text);
      nodes = (guint) v;
    }
  if (to_strategy != NULL || scenario != NULL)
    {
      if (to_strategy == NULL || shape_text != NULL || mesh_text != NULL || from != NULL || to != NULL ||
          ir_path != NULL)
        return usage_error ("reshard: a scenario takes --to-strategy tp=N,pp=N, and no --shape, --mesh, --from, "
                            "--to or --ir (reshard --help)");
      return reshard_scenario (scenario, to_strategy, !no_optimizer, json);
    }
  if (shape_text == NULL || mesh_text == NULL || from == NULL || to == NULL)
    return usage_error ("reshard: give --shape, --mesh, --from and --to (reshard --help)");
  status = parse_shape (shape_text, &shape);
  if (status >= 0)
    return status;
  if (!plx_dtype_from_string (dtype_text, &dtype))
    return usage_error ("--dtype: \"%s\" is not bf16, fp16, fp8 or fp32", dtype_text);
  shape.elem_bytes = (guint) plx_dtype_bytes (dtype);
  {
    /* Byte counts are reported as whole numbers (JSON integers): past 2^53 bytes
     * (8 PiB, far beyond any array) a double no longer counts every byte, and past
     * 2^63 the count wrapped to INT64_MIN (issue 34). */
    double bytes = shape.elem_bytes;
    for (guint i = 0; i < shape.rank; i++)
      bytes *= (double) shape.dim[i];
    if (bytes > 9007199254740992.0)
      return usage_error ("--shape: \"%s\" of %s is %.3g bytes, more than 2^53 (8 PiB)", shape_text, dtype_text,
                          bytes);
  }
  if (!plx_mesh_parse (mesh_text, &mesh, &error) || !plx_sharding_parse (from, &mesh, shape.rank, &src, &error) ||
      !plx_sharding_parse (to, &mesh, shape.rank, &dst, &error))
    return usage_error ("%s", error->message);
  cluster = plx_cli_load_cluster (cluster_name, nodes, &error);
  if (cluster == NULL)
    return user_error (error);
  plan = plx_reshard_plan (cluster, &mesh, &shape, &src, &dst, &error);
  if (plan == NULL)
    return user_error (error);
  base = plx_reshard_plan_baseline (cluster, &mesh, &shape, &src, &dst, &error);
  if (base == NULL)
    return user_error (error);
  if (ir_path != NULL && !write_program (plan, dtype, ir_path, &error))
    return user_error (error);

  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      g_autoptr (JsonNode) root = NULL;
      json_builder_begin_object (b);
      add_plan_json (b, plan, TRUE);
      json_builder_set_member_name (b, "source_shard_bytes");
      json_builder_add_int_value (b, (gint64) plx_reshard_shard_bytes (plan, &plan->source));
      json_builder_set_member_name (b, "target_shard_bytes");
      json_builder_add_int_value (b, (gint64) plx_reshard_shard_bytes (plan, &plan->target));
      json_builder_set_member_name (b, "bound_bytes_per_device");
      json_builder_add_int_value (b, (gint64) plan->bound_bytes);
      json_builder_set_member_name (b, "baseline");
      json_builder_begin_object (b);
      add_plan_json (b, base, TRUE);
      json_builder_end_object (b);
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      print_json (root);
      return 0;
    }
  {
    g_autofree char *m = plx_mesh_format (&mesh);
    g_autofree char *a = plx_sharding_format (&src);
    g_autofree char *z = plx_sharding_format (&dst);
    printf ("%s %s array on a %s mesh of %s: %s -> %s; shards %.1f MiB -> %.1f MiB per GPU\n\n", shape_text, dtype_text,
            m, cluster->name, a, z, plx_reshard_shard_bytes (plan, &plan->source) / 1048576.0,
            plx_reshard_shard_bytes (plan, &plan->target) / 1048576.0);
  }
  print_plan ("Plan (within the larger shard per GPU)", plan);
  print_plan ("XLA-style (gather, then slice)", base);
  if (plan->time_s > 0.0)
    printf ("\nSpeed-up %.2fx, peak memory %.2fx smaller\n", base->time_s / plan->time_s,
            plan->peak_bytes > 0.0 ? base->peak_bytes / plan->peak_bytes : 1.0);
  if (ir_path != NULL)
    printf ("\nThe plan as a program on %u GPUs: %s (parallax-cli simulate --program %s)\n",
            plx_mesh_n_devices (&mesh), plx_cli_shown (ir_path), plx_cli_shown (ir_path));
  return 0;
}
