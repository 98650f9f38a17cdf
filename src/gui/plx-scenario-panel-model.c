/* The Model group of the side panel (plx-scenario-panel-private.h): the presets,
 * smallest first, the parameter count, and the dimensions, which edit the model
 * (over a preset, or inlined from a Hugging Face config). */
#include <glib/gi18n-lib.h>

#include "plx-scenario-panel-private.h"
#include "base/plx-json.h"
#include "base/plx-presets.h"

typedef struct
{
  char  *id;
  double params;
} PresetEntry;

static int
by_params (gconstpointer a, gconstpointer b)
{
  const PresetEntry *x = a, *y = b;
  return x->params < y->params ? -1 : x->params > y->params ? 1 : g_strcmp0 (x->id, y->id);
}

/* The model presets, smallest first, each with its size; built once, so choosing from
 * the dropdown never rebuilds the list it is choosing from. */
static void
build_model_list (PlxScenarioPanel *self)
{
  g_auto (GStrv) ids = plx_presets_list (PLX_PRESET_MODEL);
  g_autoptr (GArray) entries = g_array_new (FALSE, FALSE, sizeof (PresetEntry));

  for (guint i = 0; ids[i] != NULL; i++)
    {
      g_autoptr (PlxModel) m = plx_model_new_preset (ids[i], NULL);
      PresetEntry e = { ids[i], m ? plx_model_get_n_params (m) : 0 };
      g_array_append_val (entries, e);
    }
  g_array_sort (entries, by_params);
  for (guint i = 0; i < entries->len; i++)
    {
      PresetEntry *e = &g_array_index (entries, PresetEntry, i);
      g_autofree char *size = plx_model_format_params ((guint64) e->params);
      g_autofree char *label = g_strdup_printf ("%s · %s", e->id, size);
      gtk_string_list_append (self->model_names, label);
      g_ptr_array_add (self->model_ids, g_strdup (e->id));
    }
}

static gboolean
model_is_gpt2 (const PlxModel *m)
{
  return m != NULL && g_strcmp0 (m->model_type, "gpt2") == 0;
}

static guint64
model_value (const PlxModel *m, guint which)
{
  switch (which)
    {
    case MSPIN_LAYERS: return m->n_layers;
    case MSPIN_HIDDEN: return m->hidden;
    case MSPIN_HEADS: return m->heads;
    case MSPIN_KV_HEADS: return m->kv_heads;
    case MSPIN_FFN: return m->ffn;
    case MSPIN_VOCAB: return m->vocab;
    case MSPIN_EXPERTS: return m->experts;
    case MSPIN_EXPERTS_PER_TOKEN: return m->experts_per_token;
    default: return 0;
    }
}

/* The editor shows the resolved model's dimensions; a family's missing settings, a
 * dense model's expert rows and a Mamba model's attention and MLP rows are hidden.
 * Called with `updating` set. */
void
plx_panel_sync_model_spins (PlxScenarioPanel *self)
{
  const PlxModel *m = self->resolved_model;
  gboolean gpt2 = model_is_gpt2 (m);

  self->model_gpt2 = gpt2;
  for (guint i = 0; i < N_MODEL_SPINS; i++)
    {
      ModelSpin *ms = &self->model_spins[i];
      gboolean shown = (gpt2 ? ms->gpt2_key : ms->hf_key) != NULL;
      if (i == MSPIN_EXPERTS || i == MSPIN_EXPERTS_PER_TOKEN)
        shown = shown && m->experts > 0;
      /* A Mamba model has no attention heads or MLP: its config's own keys
       * (num_heads, expand) are not these. */
      if (i == MSPIN_HEADS || i == MSPIN_KV_HEADS || i == MSPIN_FFN)
        shown = shown && m->arch.ssm_version == 0;
      gtk_widget_set_visible (ms->row, shown);
      gtk_spin_button_set_value (ms->spin, (double) model_value (m, i));
    }
}

/* A model edit: the key of the model's family set in the scenario's model object, over
 * a preset (as an override) or in an inline config. A Hugging Face config file is
 * inlined first, so the edit never writes to the user's file. */
static void
on_model_spin_changed (GtkSpinButton *spin, PlxScenarioPanel *self)
{
  ModelSpin *ms = g_object_get_data (G_OBJECT (spin), "model-spin");
  JsonObject *m = obj (self->model);
  const char *key;

  if (self->updating)
    return;
  /* While an edit leaves the model invalid, the family is the last valid one's, so
   * the user can type the value that mends it. */
  key = self->model_gpt2 ? ms->gpt2_key : ms->hf_key;
  if (key == NULL)
    return;
  if (json_object_has_member (m, "hf_config"))
    {
      g_autoptr (JsonNode) config = plx_panel_read_hf_config (self);
      if (config == NULL || !JSON_NODE_HOLDS_OBJECT (config))
        return;
      json_node_unref (self->model);
      self->model = plx_json_deep_copy (config);
      m = obj (self->model);
    }
  json_object_set_int_member (m, key, (gint64) gtk_spin_button_get_value (spin));
  plx_panel_sync_controls (self);
  plx_panel_emit_changed (self);
}

static void
on_model_selected (AdwComboRow *row, GParamSpec *pspec, PlxScenarioPanel *self)
{
  guint sel = adw_combo_row_get_selected (row);
  JsonObject *m;

  if (self->updating || sel >= self->model_ids->len)
    return;
  json_node_unref (self->model);
  self->model = json_node_new (JSON_NODE_OBJECT);
  m = json_object_new ();
  json_object_set_string_member (m, "preset", g_ptr_array_index (self->model_ids, sel));
  json_node_take_object (self->model, m);
  g_clear_pointer (&self->model_file, g_free);
  plx_panel_resolve (self);
  plx_panel_adapt_strategy (self);
  plx_panel_emit_changed (self);
  plx_panel_queue_resync (self);
}

/* A row that shows a derived fact as its subtitle. */
static AdwActionRow *
property_row (AdwPreferencesGroup *g,
              const char          *title,
              const char          *tooltip)
{
  GtkWidget *row = adw_action_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_widget_add_css_class (row, "property");
  gtk_widget_set_tooltip_text (row, tooltip);
  adw_preferences_group_add (g, row);
  return ADW_ACTION_ROW (row);
}

/* The Model group: the preset list, the parameter count, the blocks' mix, what the
 * config left to transformers' defaults, and the dimensions. */
void
plx_panel_build_model_group (PlxScenarioPanel *self)
{
  AdwPreferencesGroup *g;

  g = plx_panel_group (self, _("Model"));
  self->model_group = GTK_WIDGET (g);
  self->model_names = gtk_string_list_new (NULL);
  self->model_ids = g_ptr_array_new_with_free_func (g_free);
  build_model_list (self);
  self->model_combo = plx_panel_combo (g, _("Model"), self->model_names);
  g_signal_connect (self->model_combo, "notify::selected", G_CALLBACK (on_model_selected), self);
  self->params_row = property_row (g, _("Parameters"), _("Derived from the dimensions below"));
  self->blocks_row = property_row (g, _("Blocks"), _("The transformer blocks and how they differ: experts, sliding windows"));
  self->assumed_row = property_row (g, _("Assumed"), _("Keys the config leaves out, given the defaults Hugging Face "
                                                       "transformers gives them for this model type"));
  gtk_widget_set_visible (GTK_WIDGET (self->blocks_row), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->assumed_row), FALSE);
  /* The dimensions and the GPU's and network's figures fold away, so that the
   * strategy's sliders, what a user drags most, are in view without scrolling in a
   * 1920 x 1080 window (they began below 1300 px). */
  self->dimensions = adw_expander_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->dimensions), _("Dimensions"));
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (self->dimensions),
                                 _("Layers, widths, heads, vocabulary, experts"));
  adw_preferences_group_add (g, self->dimensions);
  {
    struct { const char *title, *tooltip, *gpt2_key, *hf_key; double lo, hi; } spec[N_MODEL_SPINS] = {
      { N_("Layers"), N_("Transformer blocks"), "n_layer", "num_hidden_layers", 1, 100000 },
      { N_("Hidden size"), N_("Width of the residual stream (d_model)"), "n_embd", "hidden_size", 1, 10000000 },
      { N_("Attention heads"), N_("Query heads per layer; the hidden size must be a multiple"), "n_head",
        "num_attention_heads", 1, 100000 },
      { N_("Key-value heads"), N_("Grouped-query attention: heads of keys and values, dividing the query heads"), NULL,
        "num_key_value_heads", 1, 100000 },
      { N_("FFN hidden size"), N_("Width of the feed-forward layer (GPT-2: 4 × hidden unless set)"), "n_inner",
        "intermediate_size", 1, 100000000 },
      { N_("Vocabulary"), N_("Tokens in the vocabulary: the embedding and output layer sizes"), "vocab_size",
        "vocab_size", 1, 100000000 },
      { N_("Experts"), N_("Mixture of experts: feed-forward experts per layer"), NULL, "num_local_experts", 1, 100000 },
      { N_("Experts per token"), N_("Experts each token is routed to (top-k)"), NULL, "num_experts_per_tok", 1, 100000 },
    };
    for (guint i = 0; i < N_MODEL_SPINS; i++)
      {
        ModelSpin *ms = &self->model_spins[i];
        ms->gpt2_key = spec[i].gpt2_key;
        ms->hf_key = spec[i].hf_key;
        ms->spin = plx_panel_spin_row (self->dimensions, _(spec[i].title), NULL, spec[i].lo, spec[i].hi, 1, 0);
        ms->row = gtk_widget_get_ancestor (GTK_WIDGET (ms->spin), ADW_TYPE_ACTION_ROW);
        gtk_widget_set_tooltip_text (ms->row, _(spec[i].tooltip));
        g_object_set_data (G_OBJECT (ms->spin), "model-spin", ms);
        g_signal_connect (ms->spin, "value-changed", G_CALLBACK (on_model_spin_changed), self);
      }
  }
}

/* The Model group as the JSON says, over the resolved model. Called with `updating`
 * set (plx_panel_sync_controls). */
void
plx_panel_sync_model (PlxScenarioPanel *self)
{
  JsonObject *m = obj (self->model);
  const char *preset = json_object_has_member (m, "preset") ? json_object_get_string_member (m, "preset") : NULL;
  g_autofree char *file_label = g_strdup_printf (_("%s (file)"), self->model_file ? self->model_file : _("inline config"));

  plx_panel_show_preset (self->model_combo, self->model_names, self->model_ids, preset, file_label);
  if (self->resolved_model != NULL)
    {
      g_autofree char *params = plx_model_format_params (plx_model_get_n_params (self->resolved_model));
      g_autofree char *blocks = plx_model_describe_blocks (self->resolved_model);
      const PlxModelArch *a = &self->resolved_model->arch;
      /* Shown where the blocks differ or are not attention blocks: for a model of one
       * block repeated it would only repeat the layer count, and cost the strategy's
       * rows their place in view. */
      gboolean mixed = self->resolved_model->experts > 0 || a->sliding_window > 0 || a->kv_lora_rank > 0 ||
                       a->ssm_version > 0;

      adw_action_row_set_subtitle (self->params_row, params);
      adw_action_row_set_subtitle (self->blocks_row, blocks);
      gtk_widget_set_visible (GTK_WIDGET (self->blocks_row), mixed);
      gtk_widget_set_visible (GTK_WIDGET (self->assumed_row), self->resolved_model->assumed != NULL);
      adw_action_row_set_subtitle (self->assumed_row,
                                   self->resolved_model->assumed != NULL ? self->resolved_model->assumed : "");
      plx_panel_sync_model_spins (self);
    }
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->model_combo),
                               preset != NULL && plx_panel_has_overrides (m, NULL) ? _("custom: values changed") : "");
}
