/* plx-import-nemo.c: a NeMo Megatron GPT training config (NeMo-Framework-Launcher's
 * launcher_scripts/conf/training/gpt3/ YAML files, NeMo's megatron_gpt_config.yaml) as a
 * scenario. Keys are NeMo's model config, which passes them on to Megatron-Core
 * under the same names (model.tensor_model_parallel_size, model.num_layers, ...);
 * trainer.* is PyTorch Lightning's Trainer. OmegaConf interpolations are resolved
 * where the file itself holds the value: ${.key} and ${..key} relative to the
 * mapping, ${a.b} from the top (the launcher composes this file as "training", so
 * ${training.model.x} is ${model.x}), and ${multiply:a, b}, the resolver the
 * launcher registers (launcher_scripts/main.py: lambda x, y: x * y). */
#include <string.h>

#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "plx-import.h"

#define MAX_RESOLVE_DEPTH 16

static JsonNode *resolve_text (JsonNode *root, GPtrArray *where, const char *text, guint depth);

/* The node at a dotted path from `base` (an object), or NULL. */
static JsonNode *
lookup (JsonNode *base, const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, ".", -1);
  JsonNode *node = base;

  for (guint i = 0; parts[i] != NULL && node != NULL; i++)
    node = JSON_NODE_HOLDS_OBJECT (node) && parts[i][0] != '\0'
             ? json_object_get_member (json_node_get_object (node), parts[i]) : NULL;
  return node;
}

/* A reference's value: `where` holds the mappings from the top down to the one the
 * string is in. A copy, or NULL. */
static JsonNode *
resolve_ref (JsonNode *root, GPtrArray *where, const char *ref, guint depth)
{
  JsonNode *target;
  g_autoptr (GPtrArray) target_where = g_ptr_array_new ();

  if (ref[0] == '.')
    {
      guint dots = 0;
      while (ref[dots] == '.')
        dots++;
      if (dots > where->len)
        return NULL;
      for (guint i = 0; i <= where->len - dots; i++)
        g_ptr_array_add (target_where, g_ptr_array_index (where, i));
      target = lookup (g_ptr_array_index (where, where->len - dots), ref + dots);
    }
  else
    {
      target = lookup (root, ref);
      if (target == NULL && g_str_has_prefix (ref, "training."))
        target = lookup (root, ref + strlen ("training."));
      g_ptr_array_add (target_where, root);
    }
  if (target == NULL || !JSON_NODE_HOLDS_VALUE (target))
    return NULL;
  if (json_node_get_value_type (target) == G_TYPE_STRING && strstr (json_node_get_string (target), "${") != NULL)
    return resolve_text (root, target_where, json_node_get_string (target), depth + 1);
  return json_node_copy (target);
}

/* ${multiply:a, b}: a and b numbers or references. */
static JsonNode *
resolve_multiply (JsonNode *root, GPtrArray *where, const char *args, guint depth)
{
  g_autoptr (GString) arg = g_string_new (NULL);
  g_autoptr (GPtrArray) values = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  int braces = 0;
  JsonNode *a, *b, *out;

  /* Split at the comma outside any ${...}. */
  for (const char *c = args;; c++)
    {
      if (*c == '\0' || (*c == ',' && braces == 0))
        {
          JsonNode *v = NULL;
          char *end = NULL;
          double number;
          g_strstrip (arg->str);
          if (strstr (arg->str, "${") != NULL)
            v = resolve_text (root, where, arg->str, depth + 1);
          else if (number = g_ascii_strtod (arg->str, &end), arg->str[0] != '\0' && *end == '\0')
            v = json_node_init_double (json_node_alloc (), number);
          if (v == NULL)
            return NULL;
          g_ptr_array_add (values, v);
          g_string_truncate (arg, 0);
          if (*c == '\0')
            break;
          continue;
        }
      braces += *c == '{' ? 1 : *c == '}' ? -1 : 0;
      g_string_append_c (arg, *c);
    }
  if (values->len != 2)
    return NULL;
  a = g_ptr_array_index (values, 0);
  b = g_ptr_array_index (values, 1);
  if (!JSON_NODE_HOLDS_VALUE (a) || !JSON_NODE_HOLDS_VALUE (b) ||
      json_node_get_value_type (a) == G_TYPE_STRING || json_node_get_value_type (b) == G_TYPE_STRING)
    return NULL;
  out = json_node_new (JSON_NODE_VALUE);
  {
    double product = json_node_get_double (a) * json_node_get_double (b);
    if (product == (double) (gint64) product)
      json_node_set_int (out, (gint64) product);
    else
      json_node_set_double (out, product);
  }
  return out;
}

/* A string holding ${...}: its value (a copy), or NULL when the file does not hold
 * it. A string that is one interpolation takes the referenced value's type. */
static JsonNode *
resolve_text (JsonNode *root, GPtrArray *where, const char *text, guint depth)
{
  g_autoptr (GString) out = g_string_new (NULL);
  const char *c = text;

  if (depth > MAX_RESOLVE_DEPTH)
    return NULL;
  while (*c != '\0')
    {
      const char *open = strstr (c, "${"), *end;
      int braces = 0;
      g_autofree char *inner = NULL;
      g_autoptr (JsonNode) value = NULL;

      if (open == NULL)
        {
          g_string_append (out, c);
          break;
        }
      g_string_append_len (out, c, open - c);
      for (end = open + 1; *end != '\0'; end++)
        {
          if (*end == '{')
            braces++;
          else if (*end == '}' && --braces == 0)
            break;
        }
      if (*end != '}')
        return NULL;
      inner = g_strndup (open + 2, end - open - 2);
      value = g_str_has_prefix (inner, "multiply:") ? resolve_multiply (root, where, inner + 9, depth)
              : strchr (inner, ':') != NULL ? NULL : resolve_ref (root, where, inner, depth);
      if (value == NULL)
        return NULL;
      if (open == text && end[1] == '\0')
        return g_steal_pointer (&value);
      {
        g_autofree char *s = json_node_get_value_type (value) == G_TYPE_STRING ? g_strdup (json_node_get_string (value))
                                                                               : plx_json_value_to_string (value);
        g_string_append (out, s);
      }
      c = end + 1;
    }
  return json_node_init_string (json_node_alloc (), out->str);
}

/* Every string of the tree that holds ${...} and can be resolved, replaced by its
 * value, in place. */
static void
resolve_all (JsonNode *root, JsonNode *node, GPtrArray *where)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;
  g_autoptr (GPtrArray) keys = g_ptr_array_new ();

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return;
  g_ptr_array_add (where, node);
  json_object_iter_init (&iter, json_node_get_object (node));
  while (json_object_iter_next (&iter, &key, &value))
    g_ptr_array_add (keys, (gpointer) key);
  for (guint i = 0; i < keys->len; i++)
    {
      JsonObject *o = json_node_get_object (node);
      value = json_object_get_member (o, keys->pdata[i]);
      if (JSON_NODE_HOLDS_OBJECT (value))
        resolve_all (root, value, where);
      else if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING &&
               strstr (json_node_get_string (value), "${") != NULL)
        {
          JsonNode *resolved = resolve_text (root, where, json_node_get_string (value), 0);
          if (resolved != NULL)
            json_object_set_member (o, keys->pdata[i], resolved);
        }
    }
  g_ptr_array_remove_index (where, where->len - 1);
}

typedef struct
{
  PlxImport     *imp;
  PlxImportTree *tree;
  GError       **error;
  gboolean       failed;
} Nemo;

/* An interpolation the file does not resolve: reported, and read as absent. */
static gboolean
unresolved (Nemo *n, const char *path)
{
  JsonNode *node = lookup (n->tree->root, path);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING ||
      strstr (json_node_get_string (node), "${") == NULL)
    return FALSE;
  plx_import_tree_take (n->tree, path);
  plx_import_lost (n->imp, 0, path, json_node_get_string (node), "an interpolation the file does not resolve");
  return TRUE;
}

static gboolean
int_at (Nemo *n, const char *path, gint64 min, gint64 *out)
{
  gboolean have = FALSE;

  if (n->failed || unresolved (n, path))
    return FALSE;
  if (!plx_import_tree_int (n->imp, n->tree, path, min, out, &have, n->error))
    n->failed = TRUE;
  return have;
}

static gboolean
bool_at (Nemo *n, const char *path, gboolean fallback)
{
  gboolean have = FALSE, v = fallback;

  if (n->failed || unresolved (n, path))
    return fallback;
  if (!plx_import_tree_bool (n->imp, n->tree, path, &v, &have, n->error))
    n->failed = TRUE;
  return have ? v : fallback;
}

static const char *
string_at (Nemo *n, const char *path)
{
  if (n->failed || unresolved (n, path))
    return NULL;
  return plx_import_tree_string (n->tree, path);
}

/* trainer.precision: Lightning's "bf16", "bf16-mixed", 16, "16-mixed", 32. */
static const char *
precision (Nemo *n)
{
  JsonNode *node = plx_import_tree_take (n->tree, "trainer.precision");
  g_autofree char *text = node != NULL ? plx_json_value_to_string (node) : g_strdup ("32");
  const char *bare = text[0] == '"' ? text + 1 : text;

  if (g_str_has_prefix (bare, "bf16"))
    return "bf16";
  if (g_str_has_prefix (bare, "16"))
    return "fp16";
  if (!g_str_has_prefix (bare, "32"))
    plx_import_lost (n->imp, 0, "trainer.precision", text, "not bf16, 16 or 32; read as 32");
  return "fp32";
}

static JsonObject *
read_model (Nemo *n, gint64 tp, gint64 seq)
{
  PlxImport *imp = n->imp;
  gint64 layers = 0, hidden = 0, heads = 0, ffn = 0, groups = 0, kv = 0, max_pos = 0, divisible = 128;
  gint64 experts = 0, topk = 2;
  const char *activation = string_at (n, "model.activation");
  const char *norm = string_at (n, "model.normalization");
  const char *pos = string_at (n, "model.position_embedding_type");
  const char *tokenizer = string_at (n, "model.tokenizer.type");
  const char *library = string_at (n, "model.tokenizer.library");
  gboolean shared = bool_at (n, "model.share_embeddings_and_output_weights", TRUE);
  gboolean bias = bool_at (n, "model.bias", TRUE);
  gboolean gated;
  gint64 vocab = 0;

  int_at (n, "model.num_layers", 1, &layers);
  int_at (n, "model.hidden_size", 1, &hidden);
  int_at (n, "model.num_attention_heads", 1, &heads);
  int_at (n, "model.ffn_hidden_size", 1, &ffn);
  int_at (n, "model.num_query_groups", 1, &groups);
  int_at (n, "model.kv_channels", 1, &kv);
  int_at (n, "model.max_position_embeddings", 1, &max_pos);
  int_at (n, "model.make_vocab_size_divisible_by", 1, &divisible);
  int_at (n, "model.num_moe_experts", 1, &experts);
  int_at (n, "model.moe_router_topk", 1, &topk);
  if (n->failed)
    return NULL;
  if (layers == 0 || hidden == 0 || heads == 0)
    {
      if (!imp->model_given)
        plx_import_lost (imp, 0, "model.num_layers, model.hidden_size, model.num_attention_heads", NULL,
                       "not all given, so the scenario has no model (pass --model)");
      return NULL;
    }
  /* NeMo's defaults: GELU, LayerNorm, learned positions, biases, tied embeddings. */
  activation = activation != NULL ? activation : "gelu";
  norm = norm != NULL ? norm : "layernorm";
  pos = pos != NULL ? pos : "learned_absolute";
  gated = strstr (activation, "swiglu") != NULL;
  if (max_pos == 0)
    max_pos = seq;
  /* The vocabulary: Megatron's GPT-2 BPE tokenizer's, padded as Megatron-LM pads it;
   * another tokenizer's size is in its files. */
  if (tokenizer != NULL && g_str_equal (tokenizer, "GPT2BPETokenizer") &&
      (library == NULL || g_str_equal (library, "megatron")))
    vocab = (gint64) plx_import_padded_vocab (PLX_IMPORT_GPT2_VOCAB, (guint64) divisible, (guint64) tp);
  else
    plx_import_lost (imp, 0, "model.tokenizer.type", tokenizer != NULL ? tokenizer : "(not given)",
                     "its vocabulary's size is in the tokenizer's files: the model has no vocab_size (add the "
                     "tokenizer's size padded to a multiple of %" G_GINT64_FORMAT ")", divisible * tp);
  plx_import_tree_take (n->tree, "model.tokenizer.vocab_file");
  plx_import_tree_take (n->tree, "model.tokenizer.merge_file");
  if (!gated && !g_str_equal (activation, "gelu"))
    plx_import_lost (imp, 0, "model.activation", activation, "the MLP is read as GELU (or SwiGLU)");
  {
    PlxImportNetwork net = {
      layers, hidden, heads, ffn,
      /* TransformerConfig's default width, gated or not (transformer_config.py). */
      4 * hidden,
      groups != heads ? groups : 0, kv, vocab, max_pos, experts, topk, 0,
      gated, g_str_equal (norm, "rmsnorm"), g_str_equal (pos, "rope"), shared, bias, -1, norm, pos,
      "model.normalization", "model.position_embedding_type", "model.share_embeddings_and_output_weights", "false",
      "model.bias", "true (NeMo's default)", "false", "model.num_query_groups", "model.kv_channels",
      "model.num_moe_experts",
    };
    return plx_import_network_model (imp, &net);
  }
}

static void
read_strategy (Nemo *n, gint64 layers)
{
  JsonObject *s = n->imp->strategy;
  const char *granularity = string_at (n, "model.activations_checkpoint_granularity");
  const char *method = string_at (n, "model.activations_checkpoint_method");
  const char *optim = string_at (n, "model.optim.name");
  const char *grad_dtype = string_at (n, "model.optim.grad_sync_dtype");
  const char *fsdp_strategy = string_at (n, "model.fsdp_sharding_strategy");
  gint64 ckpt_layers = 0;
  gboolean te = bool_at (n, "model.transformer_engine", FALSE);
  gboolean flash = bool_at (n, "model.use_flash_attention", FALSE);

  if (granularity != NULL && (g_str_equal (granularity, "full") || g_str_equal (granularity, "selective")))
    {
      json_object_set_string_member (s, "recompute", granularity);
      if (int_at (n, "model.activations_checkpoint_num_layers", 0, &ckpt_layers) && g_str_equal (granularity, "full") &&
          method != NULL && !(g_str_equal (method, "uniform") && ckpt_layers == 1))
        plx_import_lost (n->imp, 0, "model.activations_checkpoint_method", method,
                         "only some layers recomputed; read as every layer");
    }
  else if (granularity != NULL)
    plx_import_lost (n->imp, 0, "model.activations_checkpoint_granularity", granularity, "not full or selective");
  (void) layers;
  if (bool_at (n, "model.sequence_parallel", FALSE))
    json_object_set_boolean_member (s, "sequence_parallel", TRUE);
  if (bool_at (n, "model.ub_tp_comm_overlap", FALSE))
    json_object_set_boolean_member (s, "overlap_tp_comm", TRUE);
  /* Transformer Engine's fused attention (or flash-attn): a fused attention core. */
  json_object_set_boolean_member (s, "flash_attention", te || flash);
  /* distributed_fused_adam shards the optimizer states over the data-parallel ranks
   * (ZeRO-1, as the project's NeMo tables read it); PyTorch FSDP: 'full' is ZeRO-3,
   * 'grad' ZeRO-2. */
  if (bool_at (n, "model.fsdp", FALSE))
    json_object_set_int_member (s, "zero_stage", fsdp_strategy != NULL && g_str_equal (fsdp_strategy, "grad") ? 2 : 3);
  else if (optim != NULL && g_str_has_prefix (optim, "distributed_fused_adam"))
    json_object_set_int_member (s, "zero_stage", 1);
  json_object_set_boolean_member (s, "overlap_dp_comm", bool_at (n, "model.optim.overlap_grad_sync", FALSE));
  bool_at (n, "model.optim.overlap_param_sync", FALSE);
  if (grad_dtype != NULL && (g_str_equal (grad_dtype, "bf16") || g_str_equal (grad_dtype, "bfloat16")))
    json_object_set_string_member (s, "grad_dtype", "bf16");
  if (bool_at (n, "model.fp8", FALSE))
    {
      json_object_set_string_member (s, "dtype", "fp8");
      if (bool_at (n, "model.fp8_params", FALSE))
        json_object_set_boolean_member (s, "fp8_param_gather", TRUE);
    }
  if (bool_at (n, "model.cross_entropy_loss_fusion", FALSE))
    json_object_set_string_member (s, "cross_entropy_fusion", "native");
  /* Mixed precision with fp32 master weights, as Parallax costs it. */
  bool_at (n, "model.megatron_amp_O2", FALSE);
  bool_at (n, "model.mcore_gpt", FALSE);
}

static const PlxImportReason reasons[] = {
  { "defaults", "Hydra's config composition" },
  { "hydra.", "Hydra's settings" },
  { "run.", "the launcher's job settings" },
  { "exp_manager.", "logging and checkpointing: outside the training step" },
  { "trainer.max_", "the length of the run, not of a step" },
  { "trainer.log", "logging: outside the training step" },
  { "trainer.val", "validation: outside the training step" },
  { "trainer.limit", "validation: outside the training step" },
  { "trainer.gradient_clip", "gradient clipping: not costed" },
  { "model.optim.", "an optimizer hyperparameter: no change to a step's time or memory" },
  { "model.data.", "the data set: no change to a step's time or memory" },
  { "model.init_method", "weight initialisation: no change to a step's time or memory" },
  { "model.nsys_profile", "profiling: outside the training step" },
  { "model.seed", "randomness: no change to a step's time or memory" },
  { "model.resume", "checkpointing: outside the training step" },
  { "model.fp8_", "fp8 is costed as one recipe (per-tensor scaling)" },
  { "model.native_amp", "fp16 loss scaling: not costed" },
  { "model.hysteresis", "fp16 loss scaling: not costed" },
  { "model.", "not a setting Parallax models (a fusion or kernel option is costed as Megatron-Core's default)" },
  { NULL, NULL },
};

gboolean
plx_import_nemo (PlxImport *imp,
                 JsonNode  *config,
                 GError   **error)
{
  g_autoptr (JsonNode) copy = NULL;
  g_autoptr (GPtrArray) where = g_ptr_array_new ();
  PlxImportTree tree;
  Nemo n = { imp, &tree, error, FALSE };
  JsonObject *s = imp->strategy;
  gint64 nodes = 1, devices = 0, tp = 1, pp = 1, cp = 1, vp = 0, ep = 1, micro = 1, global = 0, seq = 0, data_seq = 0;
  gint64 accumulate = 1;

  if (!JSON_NODE_HOLDS_OBJECT (config) || lookup (config, "model") == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: not a NeMo training config (no \"model\" mapping)",
                   imp->source);
      return FALSE;
    }
  imp->framework = "NeMo";
  copy = plx_json_deep_copy (config);
  resolve_all (copy, copy, where);
  plx_import_tree_init (&tree, copy);
  int_at (&n, "trainer.num_nodes", 1, &nodes);
  if (int_at (&n, "trainer.devices", 1, &devices))
    {
      imp->world = (guint64) (nodes * devices);
      imp->world_from = "trainer.num_nodes x trainer.devices";
    }
  int_at (&n, "trainer.accumulate_grad_batches", 1, &accumulate);
  if (accumulate != 1)
    plx_import_lost (imp, 0, "trainer.accumulate_grad_batches", NULL,
                     "NeMo's Megatron models take accumulation from global_batch_size instead");
  int_at (&n, "model.tensor_model_parallel_size", 1, &tp);
  int_at (&n, "model.pipeline_model_parallel_size", 1, &pp);
  int_at (&n, "model.context_parallel_size", 1, &cp);
  int_at (&n, "model.virtual_pipeline_model_parallel_size", 1, &vp);
  int_at (&n, "model.expert_model_parallel_size", 1, &ep);
  int_at (&n, "model.micro_batch_size", 1, &micro);
  int_at (&n, "model.global_batch_size", 1, &global);
  int_at (&n, "model.encoder_seq_length", 1, &seq);
  int_at (&n, "model.data.seq_length", 1, &data_seq);
  if (!n.failed)
    {
      const char *dtype = precision (&n);
      json_object_set_string_member (s, "dtype", dtype);
      if (seq == 0)
        seq = data_seq;
      else if (data_seq > 0 && data_seq != seq)
        plx_import_lost (imp, 0, "model.data.seq_length", NULL,
                         "differs from model.encoder_seq_length, which is used");
      json_object_set_int_member (s, "tp", tp);
      json_object_set_int_member (s, "pp", pp);
      json_object_set_int_member (s, "cp", cp);
      if (ep > 1)
        json_object_set_int_member (s, "ep", ep);
      json_object_set_int_member (s, "micro_batch_size", micro);
      if (global > 0)
        json_object_set_int_member (s, "global_batch_size", global);
      else
        imp->batch_per_dp = (guint64) micro;
      if (seq > 0)
        json_object_set_int_member (s, "seq_length", seq);
      if (vp > 1)
        {
          json_object_set_int_member (s, "virtual_stages", vp);
          json_object_set_string_member (s, "schedule", "interleaved-1f1b");
        }
      else if (pp > 1)
        json_object_set_string_member (s, "schedule", "1f1b");
      imp->model = read_model (&n, tp, seq);
    }
  if (!n.failed)
    read_strategy (&n, 0);
  if (!n.failed)
    {
      json_object_set_string_member (s, "implementation", "megatron");
      plx_import_tree_report (imp, &tree, reasons);
    }
  plx_import_tree_clear (&tree);
  return !n.failed;
}
