#include <errno.h>
#include <math.h>
#include <string.h>

#include "parallax/parallax.h"

#include "plx-cli-overrides.h"
#include "plx-cli-util.h"
#include "base/plx-input.h"
#include "base/plx-json.h"
#include "scenario/plx-hf-cache.h"
#include "optimize/plx-advice.h"

typedef enum { FLAG_INT, FLAG_NUMBER, FLAG_STRING, FLAG_BOOL_ON, FLAG_BOOL_OFF, FLAG_LAYERS } FlagType;

typedef struct
{
  const char *flag;
  const char *key;  /* strategy key */
  FlagType    type;
  const char *help;
} StrategyFlag;

static const StrategyFlag strategy_flags[] = {
  { "--tp", "tp", FLAG_INT, "tensor-parallel degree" },
  { "--pp", "pp", FLAG_INT, "pipeline-parallel degree" },
  { "--dp", "dp", FLAG_INT, "data-parallel degree (default: GPUs / (tp*pp*cp))" },
  { "--cp", "cp", FLAG_INT, "context-parallel degree" },
  { "--ep", "ep", FLAG_INT, "expert-parallel degree" },
  { "--etp", "etp", FLAG_INT, "expert tensor-parallel degree (default: tp)" },
  { "--moe-dispatcher", "moe_dispatcher", FLAG_STRING, "experts' token exchange: alltoall (Megatron-Core's)\n                           or deepep (once a node over the network, then NVLink)" },
  { "--micro-batch-size", "micro_batch_size", FLAG_INT, "sequences per micro-batch" },
  { "--global-batch-size", "global_batch_size", FLAG_INT, "sequences per optimizer step" },
  { "--seq-length", "seq_length", FLAG_INT, "tokens per sequence" },
  { "--virtual-stages", "virtual_stages", FLAG_INT, "model chunks per pipeline rank" },
  { "--layers-per-stage", "layers_per_stage", FLAG_LAYERS, "layers per stage, comma-separated (per model chunk\n                           with interleaving), or auto: balanced" },
  { "--pipeline-layout", "pipeline_layout", FLAG_STRING, "Megatron-LM's layout: E embedding, t layer, L loss, |\n                           between model chunks, (...)*n to repeat: \"Et|(tt|)*30L\"" },
  { "--first-stage-layers", "first_stage_layers", FLAG_INT, "layers on the first stage, the rest even (Megatron)" },
  { "--last-stage-layers", "last_stage_layers", FLAG_INT, "layers on the last stage, the rest even (Megatron)" },
  { "--zero-stage", "zero_stage", FLAG_INT, "ZeRO stage 0-3" },
  { "--shard-group-size", "shard_group_size", FLAG_INT, "hybrid sharding: ZeRO over groups of N data-parallel\n                           ranks, replicated across them" },
  { "--grad-bucket-bytes", "grad_bucket_bytes", FLAG_INT, "data-parallel gradient bucket size" },
  { "--moe-capacity-factor", "moe_capacity_factor", FLAG_NUMBER, "expert buffers padded to X times the even share\n                           (tokens beyond dropped); default dropless" },
  { "--moe-load-imbalance", "moe_load_imbalance", FLAG_NUMBER, "dropless: the busiest expert-parallel rank's tokens\n                           over the mean (default: random routing's)" },
  { "--schedule", "schedule", FLAG_STRING, "gpipe, 1f1b, interleaved-1f1b, zero-bubble-h1" },
  { "--recompute", "recompute", FLAG_STRING, "none, selective, full or save-dots-except-mlp-input" },
  { "--dtype", "dtype", FLAG_STRING, "bf16, fp16, fp8, fp32" },
  { "--workload", "workload", FLAG_STRING, "training or inference" },
  { "--prompt-length", "prompt_length", FLAG_INT, "inference: tokens of each prompt (512)" },
  { "--decode-tokens", "decode_tokens", FLAG_INT, "inference: tokens generated for each (128)" },
  { "--grad-dtype", "grad_dtype", FLAG_STRING, "gradient buffers and their reduction: auto (fp32 under bf16\n                           and fp8), fp32 or bf16" },
  { "--cross-entropy-fusion", "cross_entropy_fusion", FLAG_STRING, "the loss: none (op by op, fp32), native\n                           (Megatron-Core's jit-fused) or te (Transformer Engine's kernel)" },
  { "--implementation", "implementation", FLAG_STRING, "auto, megatron (fused kernels), pytorch or pytorch-eager (eager, FSDP), pytorch-compile (element-wise fused), deepspeed (Megatron-DeepSpeed) or jax-xla (XLA-fused, FSDP)" },
  { "--sequence-parallel", "sequence_parallel", FLAG_BOOL_ON, "Megatron sequence parallelism" },
  { "--no-sequence-parallel", "sequence_parallel", FLAG_BOOL_OFF, NULL },
  { "--flash-attention", "flash_attention", FLAG_BOOL_ON, "fused attention core (FlashAttention)" },
  { "--attention-kernel", "attention_kernel", FLAG_STRING, "the fused attention kernel: auto (the implementation's),\n                           cudnn, flash-attention-2, flash-attention-1 or triton" },
  { "--no-flash-attention", "flash_attention", FLAG_BOOL_OFF, NULL },
  { "--overlap-dp-comm", "overlap_dp_comm", FLAG_BOOL_ON, "overlap gradient reduction with backward" },
  { "--no-overlap-dp-comm", "overlap_dp_comm", FLAG_BOOL_OFF, NULL },
  { "--overlap-tp-comm", "overlap_tp_comm", FLAG_BOOL_ON, "hide TP collectives under the GEMMs" },
  { "--no-overlap-tp-comm", "overlap_tp_comm", FLAG_BOOL_OFF, NULL },
  { "--fp8-param-gather", "fp8_param_gather", FLAG_BOOL_ON, "fp8: gather the fp8 layers' sharded weights in fp8\n                           (default: with PyTorch code under ZeRO-3)" },
  { "--no-fp8-param-gather", "fp8_param_gather", FLAG_BOOL_OFF, NULL },
  { "--reshard-after-forward", "reshard_after_forward", FLAG_BOOL_ON, "ZeRO-3: free gathered weights after forward, gather\n                           again for backward (default: but for PyTorch with PP)" },
  { "--no-reshard-after-forward", "reshard_after_forward", FLAG_BOOL_OFF, NULL },
};

/* Flags beside the strategy's, each taking a value. */
static const char *const other_flags[] = { "--model", "--cluster", "--nodes", "--power-limit", "--gpu-clock" };

struct _PlxCliOverrides
{
  JsonObject *strategy;
  char       *model;
  char       *cluster;
  gint64      nodes;   /* 0 = not given */
  double      power_limit_w;  /* cluster.gpu.power_limit_w; 0 = not given */
  double      clock_mhz;      /* cluster.gpu.clock_mhz; 0 = not given */
  GPtrArray  *help_texts;     /* the option entries' descriptions, one line each */
  GOptionEntry *entries;
  GOptionEntry *some_entries; /* plx_cli_overrides_some_entries' */
};

gboolean
plx_cli_overrides_model_only (const PlxCliOverrides *o)
{
  return o->model != NULL && o->cluster == NULL && o->nodes == 0 && o->power_limit_w <= 0.0 && o->clock_mhz <= 0.0 &&
         json_object_get_size (o->strategy) == 0;
}

PlxCliOverrides *
plx_cli_overrides_new (void)
{
  PlxCliOverrides *o = g_new0 (PlxCliOverrides, 1);

  o->strategy = json_object_new ();
  return o;
}

void
plx_cli_overrides_free (PlxCliOverrides *o)
{
  if (o == NULL)
    return;
  json_object_unref (o->strategy);
  g_clear_pointer (&o->help_texts, g_ptr_array_unref);
  g_free (o->entries);
  g_free (o->some_entries);
  g_free (o->model);
  g_free (o->cluster);
  g_free (o);
}

static gboolean
parse_int (const char *flag,
           const char *text,
           gint64     *out,
           GError    **error)
{
  char *end = NULL;
  gint64 v;

  errno = 0;
  v = g_ascii_strtoll (text, &end, 10);
  /* A whole number past 64 bits is still one: it is out of range, and says so. */
  if (text[0] != '\0' && end != NULL && *end == '\0' && errno == ERANGE)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s: %s is out of range (past the 64-bit integers Parallax reads)", flag, text);
      return FALSE;
    }
  if (text[0] == '\0' || end == NULL || *end != '\0' || errno != 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s: \"%s\" is not a whole number", flag, text);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

/* A finite number; with a unit, also above zero ("... is not a positive number of
 * watts"). */
static gboolean
parse_number (const char *flag,
              const char *text,
              const char *unit,
              double     *out,
              GError    **error)
{
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);

  if (text[0] == '\0' || end == NULL || *end != '\0' || !isfinite (v) || (unit != NULL && v <= 0.0))
    {
      if (unit != NULL)
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: \"%s\" is not a positive number of %s",
                     flag, text, unit);
      else
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: \"%s\" is not a number", flag, text);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

/* Sets flag number `f` (strategy_flags, then other_flags) to `value` (NULL for the
 * flags that take none). */
static gboolean
set_flag (PlxCliOverrides *o,
          guint            f,
          const char      *value,
          GError         **error)
{
  const char *name = f < G_N_ELEMENTS (strategy_flags) ? strategy_flags[f].flag
                                                       : other_flags[f - G_N_ELEMENTS (strategy_flags)];

  if (f < G_N_ELEMENTS (strategy_flags))
    {
      const StrategyFlag *sf = &strategy_flags[f];
      gint64 v;

      switch (sf->type)
        {
        case FLAG_INT:
          if (!parse_int (name, value, &v, error))
            return FALSE;
          json_object_set_int_member (o->strategy, sf->key, v);
          break;
        case FLAG_NUMBER:
          {
            double d;
            if (!parse_number (name, value, NULL, &d, error))
              return FALSE;
            json_object_set_double_member (o->strategy, sf->key, d);
            break;
          }
        case FLAG_STRING:
          json_object_set_string_member (o->strategy, sf->key, value);
          break;
        case FLAG_LAYERS:
          /* "auto", or counts separated by commas: 5,6,6,6,6,6,6,6,6,6,6,5 */
          if (g_str_equal (value, "auto"))
            json_object_set_string_member (o->strategy, sf->key, value);
          else
            {
              g_auto (GStrv) parts = g_strsplit (value, ",", -1);
              JsonArray *counts = json_array_new ();
              for (guint k = 0; parts[k] != NULL; k++)
                {
                  if (!parse_int (name, g_strstrip (parts[k]), &v, error))
                    {
                      json_array_unref (counts);
                      return FALSE;
                    }
                  json_array_add_int_element (counts, v);
                }
              json_object_set_array_member (o->strategy, sf->key, counts);
            }
          break;
        case FLAG_BOOL_ON:
        case FLAG_BOOL_OFF:
        default:
          json_object_set_boolean_member (o->strategy, sf->key, sf->type == FLAG_BOOL_ON);
          break;
        }
    }
  else if (g_str_equal (name, "--model"))
    {
      g_free (o->model);
      o->model = g_strdup (value);
    }
  else if (g_str_equal (name, "--cluster"))
    {
      g_free (o->cluster);
      o->cluster = g_strdup (value);
    }
  else if (g_str_equal (name, "--power-limit"))
    {
      if (!parse_number (name, value, "watts", &o->power_limit_w, error))
        return FALSE;
    }
  else if (g_str_equal (name, "--gpu-clock"))
    {
      if (!parse_number (name, value, "MHz", &o->clock_mhz, error))
        return FALSE;
    }
  else
    {
      if (!parse_int (name, value, &o->nodes, error))
        return FALSE;
      if (o->nodes < 1)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--nodes: %s is not a positive number of nodes", value);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
takes_value (guint f)
{
  return f >= G_N_ELEMENTS (strategy_flags) || strategy_flags[f].type == FLAG_INT ||
         strategy_flags[f].type == FLAG_NUMBER || strategy_flags[f].type == FLAG_STRING ||
         strategy_flags[f].type == FLAG_LAYERS;
}

static const char *
flag_name (guint f)
{
  return f < G_N_ELEMENTS (strategy_flags) ? strategy_flags[f].flag : other_flags[f - G_N_ELEMENTS (strategy_flags)];
}

/* A GOptionArgFunc: `name` is "--flag" as the tables spell it. */
static gboolean
override_option (const char *name,
                 const char *value,
                 gpointer    data,
                 GError    **error)
{
  for (guint f = 0; f < G_N_ELEMENTS (strategy_flags) + G_N_ELEMENTS (other_flags); f++)
    if (g_str_equal (name, flag_name (f)))
      return set_flag (data, f, value, error);
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION, "%s: not an override", name);
  return FALSE;
}

static const char *const other_help[][2] = {
  { "PRESET|PATH|ORG/NAME", "a model preset, a Hugging Face config.json or model folder, or a hub id in the local Hugging Face cache" },
  { "PRESET|PATH", "a cluster preset or cluster JSON file" },
  { "N", "number of nodes of the cluster" },
  { "W", "cap each GPU's board power (nvidia-smi -pl)" },
  { "MHZ", "lock each GPU's SM clock (nvidia-smi -lgc)" },
};

const GOptionEntry *
plx_cli_overrides_option_entries (PlxCliOverrides *o)
{
  const guint n = G_N_ELEMENTS (strategy_flags) + G_N_ELEMENTS (other_flags);
  GOptionEntry *entries = g_new0 (GOptionEntry, n + 1);

  G_STATIC_ASSERT (G_N_ELEMENTS (other_help) == G_N_ELEMENTS (other_flags));
  if (o->help_texts == NULL)
    o->help_texts = g_ptr_array_new_with_free_func (g_free);
  for (guint f = 0; f < n; f++)
    {
      const StrategyFlag *sf = f < G_N_ELEMENTS (strategy_flags) ? &strategy_flags[f] : NULL;
      char *help;

      if (sf != NULL)
        {
          /* The table's help wraps for the old layout; GLib's wants one line. */
          g_auto (GStrv) words = g_strsplit_set (sf->help != NULL ? sf->help : "", " \n", -1);
          g_autofree char *joined = NULL;
          GString *line = g_string_new (NULL);
          for (guint w = 0; words[w] != NULL; w++)
            if (words[w][0] != '\0')
              g_string_append_printf (line, "%s%s", line->len > 0 ? " " : "", words[w]);
          if (sf->type == FLAG_BOOL_ON)
            g_string_append (line, " (--no-... turns it off)");
          joined = g_string_free (line, FALSE);
          help = g_steal_pointer (&joined);
        }
      else
        help = g_strdup (other_help[f - G_N_ELEMENTS (strategy_flags)][1]);
      g_ptr_array_add (o->help_texts, help);
      entries[f].long_name = flag_name (f) + 2;
      entries[f].arg = G_OPTION_ARG_CALLBACK;
      entries[f].arg_data = (gpointer) override_option;
      entries[f].description = help;
      if (!takes_value (f))
        entries[f].flags = G_OPTION_FLAG_NO_ARG | (sf->help == NULL ? G_OPTION_FLAG_HIDDEN : 0);
      else if (sf == NULL)
        entries[f].arg_description = other_help[f - G_N_ELEMENTS (strategy_flags)][0];
      else
        entries[f].arg_description = sf->type == FLAG_INT ? "N" : sf->type == FLAG_STRING ? "NAME"
                                     : sf->type == FLAG_LAYERS ? "L,L,.." : "X";
    }
  g_free (o->entries);
  o->entries = entries;
  return entries;
}

const char *
plx_cli_overrides_get_model (PlxCliOverrides *o)
{
  return o->model;
}

gboolean
plx_cli_overrides_sets_cluster (PlxCliOverrides *o)
{
  return o->cluster != NULL || o->nodes > 0;
}

const GOptionEntry *
plx_cli_overrides_some_entries (PlxCliOverrides   *o,
                                const char *const *flags)
{
  const GOptionEntry *all = plx_cli_overrides_option_entries (o);
  guint n = 0;

  g_free (o->some_entries);
  o->some_entries = g_new0 (GOptionEntry, g_strv_length ((char **) flags) + 1);
  for (guint i = 0; all[i].long_name != NULL; i++)
    for (guint k = 0; flags[k] != NULL; k++)
      if (g_str_equal (all[i].long_name, flags[k] + 2))
        o->some_entries[n++] = all[i];
  return o->some_entries;
}

static gboolean
looks_like_path (const char *s)
{
  /* --model and --cluster also take an existing file by any name. */
  return plx_cli_names_file (s) || g_file_test (s, G_FILE_TEST_EXISTS);
}

static JsonNode *
object_node (JsonObject *obj)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, obj);
  return node;
}

JsonNode *
plx_cli_overrides_apply (PlxCliOverrides *o,
                         JsonNode        *scenario,
                         GError         **error)
{
  g_autoptr (JsonNode) out = plx_json_deep_copy (scenario);
  JsonObject *root;
  JsonObject *strategy;
  gboolean resize = FALSE;

  if (!JSON_NODE_HOLDS_OBJECT (out))
    return g_steal_pointer (&out);
  root = json_node_get_object (out);

  if (!json_object_has_member (root, "strategy") ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (root, "strategy")))
    json_object_set_object_member (root, "strategy", json_object_new ());
  strategy = json_node_get_object (json_object_get_member (root, "strategy"));

  if (o->model != NULL && plx_input_is_stdin (o->model))
    {
      /* A config.json (or model object) piped in: the model itself, as a file's
       * "model" key would hold it. */
      JsonNode *m = plx_json_parse_file (o->model, error);
      if (m == NULL)
        {
          g_prefix_error (error, "--model: ");
          return NULL;
        }
      json_object_set_member (root, "model", m);
    }
  else if (o->model != NULL)
    {
      JsonObject *m = json_object_new ();
      /* "org/name", not a file: a Hugging Face hub id, found in the local cache by the
       * scenario loader (model.hf_config). */
      if (strchr (o->model, '/') != NULL && plx_hf_is_repo_id (o->model))
        json_object_set_string_member (m, "hf_config", o->model);
      else if (looks_like_path (o->model))
        {
          g_autofree char *abs = g_canonicalize_filename (o->model, NULL);
          json_object_set_string_member (m, "hf_config", abs);
        }
      else
        json_object_set_string_member (m, "preset", o->model);
      json_object_set_member (root, "model", object_node (m));
    }

  if (o->cluster != NULL)
    {
      if (looks_like_path (o->cluster))
        {
          JsonNode *c = plx_json_parse_file (o->cluster, error);
          if (c == NULL)
            {
              g_prefix_error (error, "--cluster: ");
              return NULL;
            }
          json_object_set_member (root, "cluster", c);
        }
      else
        {
          JsonObject *c = json_object_new ();
          json_object_set_string_member (c, "preset", o->cluster);
          json_object_set_member (root, "cluster", object_node (c));
        }
      resize = TRUE;
    }

  if (o->nodes > 0)
    {
      JsonNode *cnode = json_object_get_member (root, "cluster");
      if (cnode != NULL && JSON_NODE_HOLDS_OBJECT (cnode))
        {
          json_object_set_int_member (json_node_get_object (cnode), "num_nodes", o->nodes);
        }
      resize = TRUE;
    }

  if (o->power_limit_w > 0.0 || o->clock_mhz > 0.0)
    {
      JsonNode *cnode = json_object_get_member (root, "cluster");
      if (cnode != NULL && JSON_NODE_HOLDS_OBJECT (cnode))
        {
          JsonObject *c = json_node_get_object (cnode);
          JsonNode *gnode = json_object_get_member (c, "gpu");
          JsonObject *gpu;

          if (gnode == NULL || !JSON_NODE_HOLDS_OBJECT (gnode))
            json_object_set_object_member (c, "gpu", json_object_new ());
          gpu = json_object_get_object_member (c, "gpu");
          if (o->power_limit_w > 0.0)
            json_object_set_double_member (gpu, "power_limit_w", o->power_limit_w);
          if (o->clock_mhz > 0.0)
            json_object_set_double_member (gpu, "clock_mhz", o->clock_mhz);
        }
    }

  /* Changing the degrees or the GPU count re-derives dp unless --dp was given too;
   * a new pipeline drops the file's per-stage layer counts (core's rules). */
  plx_strategy_json_apply_changes (strategy, o->strategy, resize);

  return g_steal_pointer (&out);
}

void
plx_cli_overrides_adapt (PlxCliOverrides *o,
                         JsonNode        *applied,
                         const char      *dir,
                         const char      *source)
{
  g_autoptr (PlxScenario) raw = NULL;
  g_autoptr (JsonNode) adapted = NULL;
  JsonObject *root, *strategy;
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  if ((o->model == NULL && o->cluster == NULL) || !JSON_NODE_HOLDS_OBJECT (applied))
    return;
  root = json_node_get_object (applied);
  raw = plx_scenario_new_unresolved (applied, dir, source, NULL);
  if (raw == NULL)
    return;
  adapted = plx_advice_adapt_strategy (raw->model, raw->cluster, json_object_get_member (root, "strategy"));
  if (adapted == NULL || !JSON_NODE_HOLDS_OBJECT (adapted))
    return;
  strategy = json_node_get_object (adapted);
  json_object_iter_init (&iter, o->strategy);
  while (json_object_iter_next (&iter, &key, &value))
    json_object_set_member (strategy, key, json_node_copy (value));
  json_object_set_member (root, "strategy", g_steal_pointer (&adapted));
}
