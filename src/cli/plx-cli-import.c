/* parallax-cli import: a training framework's configuration as a scenario file
 * (docs/cli.md, "import"). The format is told by the file's name and content, or by
 * --from; each format's reader (plx-import-*.c) maps what it can and lists the rest,
 * which goes to stderr one line each. The cluster comes from --cluster and --nodes
 * (simulate's overrides, applied by the same code) or is the built-in default
 * scenario's preset sized to the GPUs the configuration states. */
#include <stdio.h>
#include <string.h>

#include "parallax/parallax.h"
#include "base/plx-input.h"
#include "base/plx-json.h"
#include "base/plx-presets.h"
#include "base/plx-toml.h"
#include "base/plx-yaml.h"

#include "plx-cli-import.h"
#include "plx-cli-options.h"
#include "plx-cli-overrides.h"
#include "plx-cli-stdout.h"
#include "plx-cli-util.h"
#include "plx-import.h"

typedef enum { FORMAT_UNKNOWN, FORMAT_MEGATRON, FORMAT_TORCHTITAN, FORMAT_NEMO, FORMAT_DEEPSPEED, FORMAT_HF } Format;

static const char *const format_names[] = { NULL, "megatron", "torchtitan", "nemo", "deepspeed", NULL };

typedef struct
{
  const char *path;
  char       *text;
  Format      format;
  JsonNode   *json;   /* a .json file's document */
} Input;

static void
input_clear (Input *in)
{
  g_free (in->text);
  g_clear_pointer (&in->json, json_node_unref);
}

/* What a file is, by its name, then its content. */
static Format
detect (Input *in, GError **error)
{
  const char *t = in->text;

  if (g_str_has_suffix (in->path, ".toml"))
    return FORMAT_TORCHTITAN;
  if (g_str_has_suffix (in->path, ".yaml") || g_str_has_suffix (in->path, ".yml"))
    return FORMAT_NEMO;
  if (g_str_has_suffix (in->path, ".sh"))
    return FORMAT_MEGATRON;
  t += strspn (t, " \t\r\n");
  if (g_str_has_suffix (in->path, ".json") || t[0] == '{')
    {
      JsonObject *o;
      in->json = plx_json_parse_data (in->text, -1, plx_input_name (in->path), error);
      if (in->json == NULL)
        return FORMAT_UNKNOWN;
      if (!JSON_NODE_HOLDS_OBJECT (in->json))
        return FORMAT_UNKNOWN;
      o = json_node_get_object (in->json);
      if (json_object_has_member (o, "model_type") || json_object_has_member (o, "architectures"))
        return FORMAT_HF;
      if (json_object_has_member (o, "zero_optimization") || json_object_has_member (o, "train_batch_size") ||
          json_object_has_member (o, "train_micro_batch_size_per_gpu"))
        return FORMAT_DEEPSPEED;
      return FORMAT_UNKNOWN;
    }
  if (strstr (in->text, "--num-layers") != NULL || strstr (in->text, "pretrain_") != NULL ||
      strstr (in->text, "--tensor-model-parallel-size") != NULL)
    return FORMAT_MEGATRON;
  if (g_regex_match_simple ("^\\[[A-Za-z_.]+\\][ \\t]*$", in->text, G_REGEX_MULTILINE, 0))
    return FORMAT_TORCHTITAN;
  if (g_regex_match_simple ("^(trainer|model):[ \\t]*$", in->text, G_REGEX_MULTILINE, 0))
    return FORMAT_NEMO;
  return FORMAT_UNKNOWN;
}

static JsonNode *
object_node (JsonObject *o)
{
  JsonNode *n = json_node_new (JSON_NODE_OBJECT);
  /* Takes the caller's reference (set_object would add one, and leak it). */
  json_node_take_object (n, o);
  return n;
}

static gint64
strategy_int (JsonObject *s, const char *key, gint64 fallback)
{
  JsonNode *n = json_object_get_member (s, key);
  return n != NULL && JSON_NODE_HOLDS_VALUE (n) ? json_node_get_int (n) : fallback;
}

/* The default scenario's cluster preset, sized to hold `world` GPUs (0: as it is), a
 * whole number of nodes: nodes of the preset's size where they divide, else of the
 * largest size dividing both. */
static JsonObject *
default_cluster (PlxImport *imp, guint64 model_parallel, gboolean overridden)
{
  g_autoptr (JsonNode) sc = plx_scenario_default_json ();
  JsonObject *cluster = json_object_ref (json_object_get_object_member (json_node_get_object (sc), "cluster"));
  const char *preset = json_object_get_string_member (cluster, "preset");
  g_autoptr (JsonNode) preset_json = plx_presets_lookup (PLX_PRESET_CLUSTER, preset, NULL);
  guint64 per_node = preset_json != NULL ? (guint64) json_object_get_int_member (json_node_get_object (preset_json),
                                                                                 "gpus_per_node") : 8;
  guint64 world = imp->world, gpus, a, b;

  if (world == 0)
    {
      world = (guint64) json_object_get_int_member (cluster, "num_nodes") * per_node;
      if (world % model_parallel == 0)
        {
          if (!overridden)
            plx_import_lost (imp, 0, "GPUs", "(not stated)",
                             "the configuration does not say how many; the cluster is the default scenario's, %"
                             G_GUINT64_FORMAT " GPUs (--cluster, --nodes)", world);
          return cluster;
        }
      world = 0;
    }
  if (world == 0 || world % model_parallel != 0)
    {
      g_autofree char *stated = world > 0 ? g_strdup_printf ("%" G_GUINT64_FORMAT, world) : g_strdup ("(not stated)");
      gpus = (MAX (world, 1) + model_parallel - 1) / model_parallel * model_parallel;
      plx_import_lost (imp, 0, imp->world_from != NULL && world > 0 ? imp->world_from : "GPUs", stated,
                       "tp x pp x cp = %" G_GUINT64_FORMAT " GPUs a model copy do not divide them; the cluster has "
                       "%" G_GUINT64_FORMAT, model_parallel, gpus);
      world = gpus;
    }
  for (a = world, b = per_node; b != 0;)
    {
      guint64 r = a % b;
      a = b;
      b = r;
    }
  json_object_set_int_member (cluster, "num_nodes", (gint64) (world / a));
  if (a != per_node)
    json_object_set_int_member (cluster, "gpus_per_node", (gint64) a);
  return cluster;
}

/* What follows from dp once the cluster is known: the batch and the shard groups. */
static void
finish_strategy (PlxImport *imp, JsonObject *strategy, guint64 gpus)
{
  guint64 model_parallel = (guint64) (strategy_int (strategy, "tp", 1) * strategy_int (strategy, "pp", 1) *
                                      strategy_int (strategy, "cp", 1));
  guint64 dp = json_object_has_member (strategy, "dp") ? (guint64) strategy_int (strategy, "dp", 1)
                                                       : gpus / MAX (model_parallel, 1);

  if (dp == 0)
    return;
  if (imp->batch_per_dp > 0)
    json_object_set_int_member (strategy, "global_batch_size", (gint64) (imp->batch_per_dp * dp));
  if (imp->micro_of_batch > 0)
    {
      guint64 batch = (guint64) strategy_int (strategy, "global_batch_size", 0);
      if (batch % (dp * imp->micro_of_batch) == 0 && batch > 0)
        json_object_set_int_member (strategy, "micro_batch_size", (gint64) (batch / (dp * imp->micro_of_batch)));
      else
        plx_import_lost (imp, 0, "train_micro_batch_size_per_gpu", "(not given)",
                         "train_batch_size does not split over %" G_GUINT64_FORMAT " GPUs", dp);
    }
  if (imp->shard_replicas > 0)
    {
      if (dp % imp->shard_replicas == 0 && dp > imp->shard_replicas)
        json_object_set_int_member (strategy, "shard_group_size", (gint64) (dp / imp->shard_replicas));
      else
        plx_import_lost (imp, 0, "parallelism.data_parallel_replicate_degree", NULL,
                         "does not divide the %" G_GUINT64_FORMAT " data-parallel ranks", dp);
    }
}

/* `o`'s members, those of `order` first in that order, then the rest: a scenario
 * that reads top-down (the overrides' copy does not keep the order). */
static JsonObject *
ordered (JsonObject *o, const char *const *order)
{
  JsonObject *out = json_object_new ();
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  for (guint i = 0; order[i] != NULL; i++)
    if (json_object_has_member (o, order[i]))
      json_object_set_member (out, order[i], json_node_copy (json_object_get_member (o, order[i])));
  json_object_iter_init (&iter, o);
  while (json_object_iter_next (&iter, &key, &value))
    if (!json_object_has_member (out, key))
      json_object_set_member (out, key, json_node_copy (value));
  return out;
}

static const char *const scenario_order[] = { "name", "description", "model", "cluster", "strategy", NULL };
/* docs/formats.md's order: the batch, the degrees, the pipeline, recompute, ZeRO, the
 * precision, then what Parallax adds. */
static const char *const strategy_order[] = {
  "seq_length", "global_batch_size", "micro_batch_size", "dp", "tp", "pp", "cp", "ep", "etp", "sequence_parallel",
  "schedule", "virtual_stages", "layers_per_stage", "pipeline_layout", "first_stage_layers", "last_stage_layers",
  "recompute", "zero_stage", "shard_group_size", "dtype", "overlap_dp_comm", "overlap_tp_comm", "implementation",
  NULL,
};
static const char *const model_order[] = { "preset", "name", "model_type", NULL };
static const char *const cluster_order[] = { "preset", "num_nodes", "gpus_per_node", NULL };

static gboolean
read_input (Input *in, const char *path, GError **error)
{
  gsize length = 0;

  in->path = path;
  in->text = plx_json_read_text_file (path, &length, error);
  if (in->text == NULL)
    return FALSE;
  if (memchr (in->text, '\0', length) != NULL || !g_utf8_validate (in->text, (gssize) length, NULL))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: not a text file (a NUL byte or not UTF-8)",
                   plx_input_name (path));
      return FALSE;
    }
  return TRUE;
}

static gboolean
run_format (PlxImport *imp, Input *in, Input *hf, GError **error)
{
  g_autoptr (JsonNode) tree = NULL;

  switch (in->format)
    {
    case FORMAT_MEGATRON:
      return plx_import_megatron (imp, in->text, error);
    case FORMAT_TORCHTITAN:
      tree = plx_toml_parse (in->text, imp->source, error);
      return tree != NULL && plx_import_torchtitan (imp, tree, error);
    case FORMAT_NEMO:
      tree = plx_yaml_parse (in->text, imp->source, error);
      return tree != NULL && plx_import_nemo (imp, tree, error);
    case FORMAT_DEEPSPEED:
      if (in->json == NULL && (in->json = plx_json_parse_data (in->text, -1, imp->source, error)) == NULL)
        return FALSE;
      return plx_import_deepspeed (imp, in->json, hf != NULL ? hf->json : NULL,
                                   hf != NULL ? plx_input_name (hf->path) : NULL, error);
    case FORMAT_HF:
    case FORMAT_UNKNOWN:
    default:
      break;
    }
  g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "%s: not a training configuration", imp->source);
  return FALSE;
}

static const char *const import_summary =
  "Turn a training framework's configuration into a Parallax scenario (JSON on stdout, or\n"
  "--out). Every setting it cannot map is listed on stderr: the flag or key, its value, why.\n"
  "FILE is a Megatron-LM launch script or argument list (.sh, or text with --num-layers ...),\n"
  "a torchtitan job config (.toml), a NeMo training config (.yaml: the launcher's\n"
  "conf/training/gpt3/5b.yaml) or a DeepSpeed config (.json) with the model's Hugging Face\n"
  "config.json as a second FILE or --model.";

static const char *const import_description =
  "The cluster is the default scenario's preset with the GPUs the configuration states\n"
  "(torchrun's --nproc_per_node x --nnodes, trainer.num_nodes x devices, train_batch_size\n"
  "over the micro-batch and accumulation), or --cluster and --nodes as simulate reads them.\n";

int
plx_cli_import (int    argc,
                char **argv)
{
  g_autoptr (PlxCliOverrides) overrides = plx_cli_overrides_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxImport) imp = NULL;
  g_autoptr (JsonObject) scenario = json_object_new ();
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (JsonNode) applied = NULL;
  g_autofree char *from = NULL, *out = NULL;
  static const char *const override_flags[] = { "--model", "--cluster", "--nodes", NULL };
  const char *model;
  const GOptionEntry entries[] = {
    { "from", 0, 0, G_OPTION_ARG_STRING, &from, "the format: megatron, torchtitan, nemo or deepspeed (default: told by "
      "the file)", "FORMAT" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "write the scenario there (atomically) instead of stdout", "OUT.json" },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (PlxCliOptions) options = plx_cli_options_new ("import", "FILE...", import_summary, import_description);
  Input inputs[2] = { { NULL, NULL, FORMAT_UNKNOWN, NULL }, { NULL, NULL, FORMAT_UNKNOWN, NULL } };
  Input *config = NULL, *hf = NULL;
  Format forced = FORMAT_UNKNOWN;
  g_autoptr (PlxCluster) cluster = NULL;
  char **paths;
  guint n_paths;
  int status;

  plx_cli_options_add_entries (options, entries);
  plx_cli_options_add_group (options, "overrides", "Model and cluster (as simulate's overrides):",
                             plx_cli_overrides_some_entries (overrides, override_flags), overrides);
  status = plx_cli_options_parse (options, argc, argv);
  if (status != PLX_CLI_OPTIONS_CONTINUE)
    return status;
  model = plx_cli_overrides_get_model (overrides);
  paths = plx_cli_options_positionals (options);
  n_paths = plx_cli_options_n_positionals (options);
  if (from != NULL)
    {
      for (guint f = FORMAT_MEGATRON; f <= FORMAT_DEEPSPEED; f++)
        if (g_str_equal (from, format_names[f]))
          forced = (Format) f;
      if (forced == FORMAT_UNKNOWN)
        return usage_error ("--from: \"%s\" is not megatron, torchtitan, nemo or deepspeed", from);
    }
  if (n_paths == 0)
    return usage_error ("import: no file given");
  if (n_paths > 2)
    return usage_error ("import: one configuration (and for DeepSpeed its model's config.json), not %u files", n_paths);
  if (out != NULL && !plx_cli_output_take ("--out", &out, &error))
    return usage_error ("import: %s", error->message);

  for (guint i = 0; i < n_paths; i++)
    {
      if (!read_input (&inputs[i], paths[i], &error))
        {
          input_clear (&inputs[0]);
          input_clear (&inputs[1]);
          return user_error (error);
        }
      inputs[i].format = detect (&inputs[i], &error);
      if (error != NULL)
        break;
      if (forced != FORMAT_UNKNOWN && inputs[i].format != FORMAT_HF && config == NULL)
        inputs[i].format = forced;
      if (inputs[i].format == FORMAT_HF)
        hf = &inputs[i];
      else if (config == NULL)
        config = &inputs[i];
      else
        g_set_error (&error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                     "%s: a second configuration (after %s); the second file is a DeepSpeed config's model "
                     "(a Hugging Face config.json)", plx_input_name (paths[i]), plx_input_name (config->path));
      if (error != NULL)
        break;
    }
  if (error == NULL && config == NULL)
    g_set_error (&error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: a model's config.json, not a training "
                 "configuration (give it with a DeepSpeed config)", plx_input_name (hf->path));
  if (error == NULL && config->format == FORMAT_UNKNOWN)
    g_set_error (&error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                 "%s: not a configuration this command knows (Megatron-LM arguments, torchtitan TOML, NeMo YAML, "
                 "DeepSpeed JSON); name its format with --from", plx_input_name (config->path));
  if (error == NULL && hf != NULL && config->format != FORMAT_DEEPSPEED)
    g_set_error (&error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: a model's config.json goes with a DeepSpeed "
                 "config, not with %s's", plx_input_name (hf->path), format_names[config->format]);
  if (error == NULL && hf != NULL && model != NULL)
    g_set_error (&error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "--model: the model is already %s",
                 plx_input_name (hf->path));
  if (error != NULL)
    {
      input_clear (&inputs[0]);
      input_clear (&inputs[1]);
      return user_error (error);
    }

  imp = plx_import_new (plx_input_name (config->path));
  imp->model_given = model != NULL;
  if (!run_format (imp, config, hf, &error))
    {
      input_clear (&inputs[0]);
      input_clear (&inputs[1]);
      return user_error (error);
    }

  /* The scenario, its cluster sized for the configuration, then the command line's. */
  {
    g_autofree char *base = g_path_get_basename (config->path);
    json_object_set_string_member (scenario, "name", imp->name != NULL ? imp->name
                                   : plx_input_is_stdin (config->path) ? imp->framework : base);
  }
  if (imp->model != NULL)
    {
      /* An inline model is named for the configuration it came from. */
      if (!json_object_has_member (imp->model, "preset") && !json_object_has_member (imp->model, "name") &&
          !json_object_has_member (imp->model, "_name_or_path"))
        json_object_set_string_member (imp->model, "name", json_object_get_string_member (scenario, "name"));
      json_object_set_object_member (scenario, "model", json_object_ref (imp->model));
    }
  json_object_set_object_member (scenario, "cluster",
                                 default_cluster (imp, (guint64) (strategy_int (imp->strategy, "tp", 1) *
                                                                  strategy_int (imp->strategy, "pp", 1) *
                                                                  strategy_int (imp->strategy, "cp", 1)),
                                                 plx_cli_overrides_sets_cluster (overrides)));
  json_object_set_object_member (scenario, "strategy", json_object_ref (imp->strategy));
  node = object_node (json_object_ref (scenario));
  applied = plx_cli_overrides_apply (overrides, node, &error);
  input_clear (&inputs[0]);
  input_clear (&inputs[1]);
  if (applied == NULL)
    return user_error (error);
  {
    JsonObject *root = json_node_get_object (applied);
    JsonObject *strategy = json_object_get_object_member (root, "strategy");
    g_autofree char *description = NULL;
    cluster = plx_cluster_new_from_json (json_object_get_member (root, "cluster"), imp->source, &error);
    if (cluster == NULL)
      return user_error (error);
    finish_strategy (imp, strategy, plx_cluster_get_n_gpus (cluster));
    description = g_strdup_printf ("Imported from %s (%s) by parallax-cli import %s; %u settings not mapped (listed "
                                   "on stderr when imported)", imp->source, imp->framework, PACKAGE_VERSION,
                                   imp->lost->len);
    json_object_set_string_member (root, "description", description);
  }
  {
    /* Top-down: the scenario's name, its model, cluster and strategy in the
     * documented order. */
    JsonObject *root = json_node_get_object (applied);
    const char *const members[] = { "model", "cluster", "strategy" };
    const char *const *orders[] = { model_order, cluster_order, strategy_order };
    JsonObject *top;
    for (guint i = 0; i < G_N_ELEMENTS (members); i++)
      if (json_object_has_member (root, members[i]) &&
          JSON_NODE_HOLDS_OBJECT (json_object_get_member (root, members[i])))
        json_object_set_object_member (root, members[i],
                                       ordered (json_object_get_object_member (root, members[i]), orders[i]));
    top = ordered (root, scenario_order);
    json_node_unref (applied);
    applied = object_node (top);
  }
  for (guint i = 0; i < imp->lost->len; i++)
    fprintf (stderr, "%s\n", plx_cli_shown (g_ptr_array_index (imp->lost, i)));
  fprintf (stderr, "parallax-cli: import: %s read as %s; %u settings not mapped%s\n", plx_cli_shown (imp->source),
           imp->framework, imp->lost->len, imp->lost->len > 0 ? " (above)" : "");
  if (out == NULL)
    {
      print_json (applied);
      return 0;
    }
  if (!plx_json_write_file (applied, out, &error))
    return user_error (error);
  fprintf (stderr, "Wrote %s\n", plx_cli_shown (plx_cli_output_name (out)));
  return 0;
}
