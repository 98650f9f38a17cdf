/* plx-import.c: what the four readers share: the lines of what was not mapped, the
 * preset an inline model equals, Megatron-LM's vocabulary padding, and taking
 * values from a configuration tree so that what was not taken can be listed. */
#include <math.h>
#include <string.h>

#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "base/plx-presets.h"

#include "plx-import.h"

PlxImport *
plx_import_new (const char *source)
{
  PlxImport *imp = g_new0 (PlxImport, 1);

  imp->source = source;
  imp->strategy = json_object_new ();
  imp->lost = g_ptr_array_new_with_free_func (g_free);
  return imp;
}

void
plx_import_free (PlxImport *imp)
{
  if (imp == NULL)
    return;
  g_free (imp->name);
  g_clear_pointer (&imp->model, json_object_unref);
  json_object_unref (imp->strategy);
  g_ptr_array_unref (imp->lost);
  g_free (imp);
}

void
plx_import_lost (PlxImport  *imp,
                 guint       line,
                 const char *key,
                 const char *value,
                 const char *fmt,
                 ...)
{
  va_list ap;
  g_autofree char *why = NULL;
  g_autofree char *where = line > 0 ? g_strdup_printf ("%s:%u", imp->source, line) : g_strdup (imp->source);

  va_start (ap, fmt);
  why = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_ptr_array_add (imp->lost, g_strdup_printf ("%s: %s%s%s: not mapped: %s", where, key, value != NULL ? " " : "",
                                               value != NULL ? value : "", why));
}

/* Whether two JSON scalars are the same number, string or boolean. */
static gboolean
same_value (JsonNode *a, JsonNode *b)
{
  GType ta, tb;

  if (!JSON_NODE_HOLDS_VALUE (a) || !JSON_NODE_HOLDS_VALUE (b))
    return FALSE;
  ta = json_node_get_value_type (a);
  tb = json_node_get_value_type (b);
  if ((ta == G_TYPE_INT64 || ta == G_TYPE_DOUBLE) && (tb == G_TYPE_INT64 || tb == G_TYPE_DOUBLE))
    return json_node_get_double (a) == json_node_get_double (b);
  if (ta != tb)
    return FALSE;
  if (ta == G_TYPE_STRING)
    return g_str_equal (json_node_get_string (a), json_node_get_string (b));
  return ta == G_TYPE_BOOLEAN && json_node_get_boolean (a) == json_node_get_boolean (b);
}

/* Every member of `a` but "source" and "name" is in `b` with the same value. */
static gboolean
members_in (JsonObject *a, JsonObject *b)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  json_object_iter_init (&iter, a);
  while (json_object_iter_next (&iter, &key, &value))
    if (!g_str_equal (key, "source") && !g_str_equal (key, "name") &&
        (!json_object_has_member (b, key) || !same_value (value, json_object_get_member (b, key))))
      return FALSE;
  return TRUE;
}

JsonObject *
plx_import_model_or_preset (JsonObject *model)
{
  g_auto (GStrv) names = plx_presets_list (PLX_PRESET_MODEL);

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr (JsonNode) preset = NULL;
      JsonObject *p;
      if (!plx_presets_is_builtin (PLX_PRESET_MODEL, names[i]))
        continue;
      preset = plx_presets_lookup (PLX_PRESET_MODEL, names[i], NULL);
      if (preset == NULL || !JSON_NODE_HOLDS_OBJECT (preset))
        continue;
      p = json_node_get_object (preset);
      if (members_in (p, model) && members_in (model, p))
        {
          JsonObject *named = json_object_new ();
          json_object_set_string_member (named, "preset", names[i]);
          json_object_unref (model);
          return named;
        }
    }
  return model;
}

JsonObject *
plx_import_network_model (PlxImport              *imp,
                          const PlxImportNetwork *n)
{
  JsonObject *m = json_object_new ();

  if (n->gated)
    {
      /* Llama-style blocks: RMSNorm, SwiGLU, rotary, grouped-query attention, no
       * biases. */
      json_object_set_string_member (m, "model_type", n->experts > 0 ? "mixtral" : "llama");
      json_object_set_int_member (m, "num_hidden_layers", n->layers);
      json_object_set_int_member (m, "hidden_size", n->hidden);
      json_object_set_int_member (m, "num_attention_heads", n->heads);
      json_object_set_int_member (m, "num_key_value_heads", n->groups > 0 ? n->groups : n->heads);
      json_object_set_int_member (m, "intermediate_size", n->experts > 0 && n->moe_ffn > 0 ? n->moe_ffn
                                                          : n->ffn > 0 ? n->ffn : n->gated_ffn);
      if (n->vocab > 0)
        json_object_set_int_member (m, "vocab_size", n->vocab);
      if (n->max_positions > 0)
        json_object_set_int_member (m, "max_position_embeddings", n->max_positions);
      json_object_set_boolean_member (m, "tie_word_embeddings", n->tied);
      if (n->kv_channels > 0 && n->kv_channels * n->heads != n->hidden)
        json_object_set_int_member (m, "head_dim", n->kv_channels);
      if (n->experts > 0)
        {
          json_object_set_int_member (m, "num_local_experts", n->experts);
          json_object_set_int_member (m, "num_experts_per_tok", n->topk);
        }
      if (!n->rmsnorm)
        plx_import_lost (imp, 0, n->norm_key, n->norm, "a SwiGLU model is read as llama-style, with RMSNorm");
      if (!n->rope)
        plx_import_lost (imp, 0, n->pos_key, n->pos, "a SwiGLU model is read as llama-style, with rotary embeddings");
      if (n->bias)
        plx_import_lost (imp, 0, n->bias_key, n->bias_on_text,
                         "Megatron-Core adds biases to the linear layers by default (add_bias_linear); a "
                         "llama-style model has none");
    }
  else
    {
      /* GPT-2 style blocks: LayerNorm, GELU MLP, learned positions, biases, tied
       * embeddings, Megatron-Core's defaults. */
      json_object_set_string_member (m, "model_type", "gpt2");
      json_object_set_int_member (m, "n_layer", n->layers);
      json_object_set_int_member (m, "n_embd", n->hidden);
      json_object_set_int_member (m, "n_head", n->heads);
      if (n->vocab > 0)
        json_object_set_int_member (m, "vocab_size", n->vocab);
      if (n->max_positions > 0)
        json_object_set_int_member (m, "n_positions", n->max_positions);
      if (n->ffn > 0 && n->ffn != 4 * n->hidden)
        json_object_set_int_member (m, "n_inner", n->ffn);
      if (n->attn_dropout >= 0)
        json_object_set_double_member (m, "attn_pdrop", n->attn_dropout);
      if (n->rmsnorm)
        plx_import_lost (imp, 0, n->norm_key, n->norm, "a GELU model is read as GPT-2 style, with LayerNorm");
      if (n->rope)
        plx_import_lost (imp, 0, n->pos_key, n->pos, "a GELU model is read as GPT-2 style, with learned positions");
      if (!n->tied)
        plx_import_lost (imp, 0, n->tie_key, n->untied_text, "a GPT-2 style model ties its output layer to the embedding");
      if (n->groups > 0 && n->groups != n->heads)
        plx_import_lost (imp, 0, n->groups_key, NULL, "a GPT-2 style model has full multi-head attention");
      if (!n->bias)
        plx_import_lost (imp, 0, n->bias_key, n->bias_off_text, "a GPT-2 style model has biases");
      if (n->kv_channels > 0 && n->kv_channels * n->heads != n->hidden)
        plx_import_lost (imp, 0, n->kv_key, NULL, "a GPT-2 style model's heads are hidden / heads wide");
      if (n->experts > 0)
        plx_import_lost (imp, 0, n->experts_key, NULL,
                         "experts are modelled with SwiGLU (mixtral-style) blocks only; the model is dense");
    }
  return plx_import_model_or_preset (m);
}

guint64
plx_import_padded_vocab (guint64 vocab,
                         guint64 divisible_by,
                         guint64 tp)
{
  guint64 multiple = MAX (divisible_by, 1) * MAX (tp, 1);

  return (vocab + multiple - 1) / multiple * multiple;
}

void
plx_import_tree_init (PlxImportTree *tree,
                      JsonNode      *root)
{
  tree->root = root;
  tree->taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

void
plx_import_tree_clear (PlxImportTree *tree)
{
  g_clear_pointer (&tree->taken, g_hash_table_unref);
}

static JsonNode *
at_path (JsonNode *root, const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, ".", -1);
  JsonNode *node = root;

  for (guint i = 0; parts[i] != NULL && node != NULL; i++)
    {
      if (!JSON_NODE_HOLDS_OBJECT (node))
        return NULL;
      node = json_object_get_member (json_node_get_object (node), parts[i]);
    }
  return node;
}

JsonNode *
plx_import_tree_take (PlxImportTree *tree,
                      const char    *path)
{
  JsonNode *node = at_path (tree->root, path);

  g_hash_table_add (tree->taken, g_strdup (path));
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;
  return node;
}

static gboolean
is_type (JsonNode *node, GType type)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == type;
}

static gboolean
wrong_kind (PlxImport *imp, const char *path, JsonNode *node, const char *kind, GError **error)
{
  g_autofree char *text = plx_json_value_to_string (node);

  g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %s: %s is not %s", imp->source, path, text, kind);
  return FALSE;
}

gboolean
plx_import_tree_int (PlxImport     *imp,
                     PlxImportTree *tree,
                     const char    *path,
                     gint64         min,
                     gint64        *out,
                     gboolean      *present,
                     GError       **error)
{
  JsonNode *node = plx_import_tree_take (tree, path);
  double d;

  *present = FALSE;
  if (node == NULL)
    return TRUE;
  d = is_type (node, G_TYPE_DOUBLE) ? json_node_get_double (node) : 0.5;
  if (is_type (node, G_TYPE_INT64))
    *out = json_node_get_int (node);
  else if (d == floor (d) && fabs (d) < 9e15)
    *out = (gint64) d;
  else
    {
      g_autofree char *kind = g_strdup_printf ("a whole number (at least %" G_GINT64_FORMAT ")", min);
      return wrong_kind (imp, path, node, kind, error);
    }
  if (*out < min)
    {
      g_autofree char *kind = g_strdup_printf ("a whole number of at least %" G_GINT64_FORMAT, min);
      return wrong_kind (imp, path, node, kind, error);
    }
  *present = TRUE;
  return TRUE;
}

gboolean
plx_import_tree_bool (PlxImport     *imp,
                      PlxImportTree *tree,
                      const char    *path,
                      gboolean      *out,
                      gboolean      *present,
                      GError       **error)
{
  JsonNode *node = plx_import_tree_take (tree, path);

  *present = FALSE;
  if (node == NULL)
    return TRUE;
  if (!is_type (node, G_TYPE_BOOLEAN))
    return wrong_kind (imp, path, node, "true or false", error);
  *out = json_node_get_boolean (node);
  *present = TRUE;
  return TRUE;
}

gboolean
plx_import_tree_number (PlxImport     *imp,
                        PlxImportTree *tree,
                        const char    *path,
                        double        *out,
                        gboolean      *present,
                        GError       **error)
{
  JsonNode *node = plx_import_tree_take (tree, path);

  *present = FALSE;
  if (node == NULL)
    return TRUE;
  if (!is_type (node, G_TYPE_INT64) && !is_type (node, G_TYPE_DOUBLE))
    return wrong_kind (imp, path, node, "a number", error);
  *out = json_node_get_double (node);
  *present = TRUE;
  return TRUE;
}

const char *
plx_import_tree_string (PlxImportTree *tree,
                        const char    *path)
{
  JsonNode *node = plx_import_tree_take (tree, path);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return NULL;
  if (json_node_get_value_type (node) == G_TYPE_STRING)
    return json_node_get_string (node);
  return NULL;
}

static const char *
reason_for (const char *path, const PlxImportReason *reasons)
{
  for (guint i = 0; reasons != NULL && reasons[i].prefix != NULL; i++)
    if (g_str_has_prefix (path, reasons[i].prefix))
      return reasons[i].why;
  return "not a setting Parallax models";
}

static void
report (PlxImport *imp, PlxImportTree *tree, JsonNode *node, const char *path, const PlxImportReason *reasons)
{
  if (path[0] != '\0' && g_hash_table_contains (tree->taken, path))
    return;
  if (path[0] == '\0' && !JSON_NODE_HOLDS_OBJECT (node))
    return;
  if (JSON_NODE_HOLDS_OBJECT (node) && (json_object_get_size (json_node_get_object (node)) > 0 || path[0] == '\0'))
    {
      JsonObjectIter iter;
      const char *key;
      JsonNode *value;
      json_object_iter_init (&iter, json_node_get_object (node));
      while (json_object_iter_next (&iter, &key, &value))
        {
          g_autofree char *sub = path[0] != '\0' ? g_strconcat (path, ".", key, NULL) : g_strdup (key);
          report (imp, tree, value, sub, reasons);
        }
      return;
    }
  {
    g_autofree char *text = plx_json_value_to_string (node);
    g_autofree char *value = g_strconcat ("= ", text, NULL);
    plx_import_lost (imp, 0, path, value, "%s", reason_for (path, reasons));
  }
}

void
plx_import_tree_report (PlxImport             *imp,
                        PlxImportTree         *tree,
                        const PlxImportReason *reasons)
{
  report (imp, tree, tree->root, "", reasons);
}
