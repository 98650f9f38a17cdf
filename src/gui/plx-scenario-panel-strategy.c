/* The Strategy group of the side panel (plx-scenario-panel-private.h): the degrees'
 * sliders (plx-scenario-panel-choices.c), the schedule, the batch and the options,
 * each written into the strategy's JSON as the user changes it. */
#include <glib/gi18n-lib.h>

#include "plx-scenario-panel-private.h"
#include "optimize/plx-advice.h"

/* Sequence parallelism splits over the TP ranks: at TP 1 there is nothing to split,
 * so the switch shows off and waits (the file's value is kept for a later TP > 1). */
void
plx_panel_sync_sp (PlxScenarioPanel *self)
{
  JsonNode *sp = json_object_get_member (obj (self->strategy), "sequence_parallel");
  guint64 tp = (guint64) plx_panel_strategy_int (self, "tp", 1);
  gboolean was = self->updating;
  AdwActionRow *row = ADW_ACTION_ROW (g_hash_table_lookup (self->rows, "sequence_parallel"));
  const char *hint = tp > 1 ? "" : _("Needs tensor parallelism (TP > 1)");

  self->updating = TRUE;
  gtk_switch_set_active (self->sp_switch, tp > 1 && sp && JSON_NODE_HOLDS_VALUE (sp) && json_node_get_boolean (sp));
  gtk_widget_set_sensitive (GTK_WIDGET (self->sp_switch), tp > 1);
  plx_panel_set_subtitle (row, hint);
  self->updating = was;
}

static void
on_int_spin_changed (GtkSpinButton *spin, PlxScenarioPanel *self)
{
  const char *key = g_object_get_data (G_OBJECT (spin), "key");

  if (self->updating)
    return;
  plx_scenario_panel_set_strategy_int (self, key, (gint64) gtk_spin_button_get_value (spin));
}

/* The layout string as typed, applied with Enter or the row's apply button; an
 * empty one goes back to the split by counts or the balanced one. A layout says every
 * chunk's layers, so counts given beside it go (resolve refuses both at once). */
static void
on_layout_apply (AdwEntryRow *row, PlxScenarioPanel *self)
{
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (row))));
  JsonObject *s = obj (self->strategy);

  if (self->updating)
    return;
  if (text[0] == '\0')
    json_object_remove_member (s, "pipeline_layout");
  else
    {
      json_object_set_string_member (s, "pipeline_layout", text);
      json_object_remove_member (s, "layers_per_stage");
      json_object_remove_member (s, "first_stage_layers");
      json_object_remove_member (s, "last_stage_layers");
    }
  plx_panel_emit_changed (self);
  plx_panel_queue_resync (self);
}

static void
on_combo_changed (AdwComboRow *row, GParamSpec *pspec, PlxScenarioPanel *self)
{
  const char *key = g_object_get_data (G_OBJECT (row), "key");
  const char *const *values = g_object_get_data (G_OBJECT (row), "values");
  guint sel = adw_combo_row_get_selected (row);

  if (self->updating || sel == GTK_INVALID_LIST_POSITION)
    return;
  if (g_str_equal (key, "zero_stage"))
    json_object_set_int_member (obj (self->strategy), key, sel);
  else
    {
      json_object_set_string_member (obj (self->strategy), key, values[sel]);
      /* Interleaving needs model chunks; other schedules must not have them. */
      if (g_str_equal (key, "schedule"))
        json_object_set_int_member (obj (self->strategy), "virtual_stages",
                                    g_str_equal (values[sel], "interleaved-1f1b") ? MAX (plx_panel_strategy_int (self, "virtual_stages", 2), 2) : 1);
      /* Choosing a fused kernel turns the fused attention on. */
      if (g_str_equal (key, "attention_kernel") && !g_str_equal (values[sel], "auto"))
        json_object_set_boolean_member (obj (self->strategy), "flash_attention", TRUE);
    }
  plx_panel_emit_changed (self);
  plx_panel_queue_resync (self);
}

static void
on_switch_changed (GtkSwitch *sw, GParamSpec *pspec, PlxScenarioPanel *self)
{
  const char *key = g_object_get_data (G_OBJECT (sw), "key");

  if (self->updating)
    return;
  json_object_set_boolean_member (obj (self->strategy), key, gtk_switch_get_active (sw));
  /* A named attention kernel is a fused one: unfused attention has none. */
  if (g_str_equal (key, "flash_attention") && !gtk_switch_get_active (sw))
    json_object_remove_member (obj (self->strategy), "attention_kernel");
  plx_panel_emit_changed (self);
  plx_panel_queue_resync (self);
}

static void
on_bucket_changed (GtkSpinButton *spin, PlxScenarioPanel *self)
{
  if (self->updating)
    return;
  json_object_set_int_member (obj (self->strategy), "grad_bucket_bytes", (gint64) (gtk_spin_button_get_value (spin) * 1e6));
  plx_panel_emit_changed (self);
}

void
plx_scenario_panel_set_strategy_int (PlxScenarioPanel *self,
                                     const char       *key,
                                     gint64            value)
{
  g_autoptr (JsonNode) node = json_node_init_int (json_node_alloc (), value);
  PlxAdviceFix change = { (char *) key, node, NULL, 0.0, 0.0, FALSE };

  /* The core's rule for a change of one key, as the CLI and the fit advice apply it:
   * a degree (TP, PP, CP) lets dp be derived again. */
  plx_advice_fix_apply (&change, obj (self->strategy), obj (self->cluster));
  if (g_strcmp0 (self->last_key, key) != 0)
    {
      g_free (self->last_key);
      self->last_key = g_strdup (key);
    }
  /* Another pipeline gets the balanced split of layers, not counts or a layout
   * written for the old one (plx_advice_fix_apply dropped them): the layout row
   * empties with it. */
  if (g_str_equal (key, "pp") || g_str_equal (key, "virtual_stages"))
    {
      if (!g_str_equal (gtk_editable_get_text (GTK_EDITABLE (self->layout_row)), ""))
        {
          gboolean was = self->updating;
          self->updating = TRUE;
          gtk_editable_set_text (GTK_EDITABLE (self->layout_row), "");
          self->updating = was;
        }
    }
  if (!self->updating)
    {
      /* Only the sequence length changes what other controls offer (CP); the rest
       * needs no resync, which keeps a slider drag cheap. */
      if (g_str_equal (key, "seq_length"))
        plx_panel_sync_controls (self);
      else
        {
          plx_panel_sync_strategy_value (self, key);
          plx_panel_sync_sp (self);
          /* The new strategy goes to the worker first; what the other sliders offer
           * (tens of strategy resolutions each) is worked out here meanwhile, so it
           * lands in the same frame as the new charts, not a frame of its own after. */
          plx_panel_emit_changed (self);
          plx_panel_refresh_other_choices (self, key);
          return;
        }
      plx_panel_emit_changed (self);
    }
}

static AdwComboRow *
enum_combo (PlxScenarioPanel *self, AdwPreferencesGroup *g, const char *title, const char *key,
            const char *const *values, const char *const *labels)
{
  g_autoptr (GtkStringList) list = gtk_string_list_new ((const char *const *) labels);
  AdwComboRow *row = plx_panel_combo (g, title, list);
  g_object_set_data (G_OBJECT (row), "key", (gpointer) key);
  g_object_set_data (G_OBJECT (row), "values", (gpointer) values);
  g_signal_connect (row, "notify::selected", G_CALLBACK (on_combo_changed), self);
  return row;
}

/* The Strategy group: the degrees' sliders, the schedule, the batch, the options. */
void
plx_panel_build_strategy_group (PlxScenarioPanel *self)
{
  static const char *const schedule_labels[] = { N_("1F1B"), N_("Interleaved 1F1B"), N_("GPipe"), N_("Zero bubble (H1)"), NULL };
  static const char *const recompute_labels[] = { N_("None"), N_("Selective"), N_("Full"), N_("Matmul outputs but the MLP input"), NULL };
  static const char *const zero_labels[] = { N_("Off"), N_("1: optimizer"), N_("2: + gradients"), N_("3: + weights"), NULL };
  static const char *const dtype_labels[] = { "BF16", "FP16", "FP8", "FP32", NULL };
  static const char *const implementation_labels[] = { N_("Automatic"), N_("Megatron-LM"), N_("PyTorch"), N_("Megatron-DeepSpeed"), N_("JAX/XLA"), N_("PyTorch, compiled"), NULL };
  static const char *const attention_kernel_labels[] = { N_("Automatic"), N_("cuDNN"), N_("FlashAttention-2"), N_("FlashAttention 1"), N_("FlashAttention in Triton"), NULL };
  static const char *const grad_dtype_labels[] = { N_("Automatic"), "FP32", "BF16", NULL };
  static const char *const cross_entropy_fusion_labels[] = { N_("Unfused"), N_("Fused (Megatron)"), N_("Fused (TE)"), NULL };
  static const char *const moe_dispatcher_labels[] = { N_("All-to-all"), N_("DeepEP"), NULL };
  AdwPreferencesGroup *g;
  const char *translated[12];

  g = plx_panel_group (self, _("Strategy"));
  self->strategy_group = GTK_WIDGET (g);
#define TRANSLATE(labels) (({ guint n_ = 0; for (; labels[n_]; n_++) translated[n_] = _(labels[n_]); translated[n_] = NULL; }), translated)
  plx_panel_choice_row (self, g, CHOICE_TP, "tp", _("Tensor parallel"),
                        _("Tensor parallelism (Megatron-LM): each layer's matrices split over this many GPUs of a node; "
                          "two all-reduces per layer in forward and two in backward"));
  plx_panel_choice_row (self, g, CHOICE_PP, "pp", _("Pipeline parallel"),
                        _("Pipeline parallelism: the layers split into this many stages, micro-batches flow through them"));
  /* The schedule and its chunks beside the pipeline's degree, which they go with. */
  self->schedule_combo = enum_combo (self, g, _("Pipeline schedule"), "schedule", schedules, TRANSLATE (schedule_labels));
  plx_panel_remember_row (self, "schedule", GTK_WIDGET (self->schedule_combo),
                          _("1F1B (Narayanan et al. 2021): one forward, one backward, at most PP micro-batches in flight. "
                            "Interleaved 1F1B: several model chunks per stage, a smaller bubble for more pipeline traffic. "
                            "GPipe: all forwards, then all backwards. Zero bubble H1 (Qi et al. 2023): backward split in "
                            "two to fill the bubble"));
  plx_panel_choice_row (self, g, CHOICE_VS, "virtual_stages", _("Model chunks per stage"),
                        _("Interleaved 1F1B only: each stage holds this many non-adjacent chunks of layers (Megatron's "
                          "virtual pipeline stages); the bubble shrinks by this factor"));
  self->layout_row = ADW_ENTRY_ROW (adw_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->layout_row), _("Pipeline layout"));
  adw_entry_row_set_show_apply_button (self->layout_row, TRUE);
  g_signal_connect (self->layout_row, "apply", G_CALLBACK (on_layout_apply), self);
  g_signal_connect (self->layout_row, "entry-activated", G_CALLBACK (on_layout_apply), self);
  adw_preferences_group_add (g, GTK_WIDGET (self->layout_row));
  plx_panel_remember_row (self, "pipeline_layout", GTK_WIDGET (self->layout_row),
                          _("Megatron-LM's pipeline layout (--pipeline-model-parallel-layout): the chunks in order, "
                            "split by |; E the embedding, t a transformer layer, L the loss; t*4 four layers, "
                            "(t*4|)*2 that twice. Empty: layers split evenly, or balanced"));
  plx_panel_choice_row (self, g, CHOICE_CP, "cp", _("Context parallel"),
                        _("Context parallelism: each sequence split over this many GPUs; attention exchanges keys and values"));
  plx_panel_choice_row (self, g, CHOICE_EP, "ep", _("Expert parallel"),
                        _("Expert parallelism: a mixture-of-experts model's experts spread over this many data-parallel ranks"));
  plx_panel_choice_row (self, g, CHOICE_ETP, "etp", _("Expert tensor parallel"),
                        _("Expert tensor parallelism (Megatron-Core): each expert's weights split over this many GPUs, "
                          "TP's degree unless set. Below TP, the experts spread over the tensor-parallel GPUs too "
                          "(EP × expert TP divides TP × DP × CP) and need no gather of their tokens over TP"));
  self->moe_dispatcher_combo = enum_combo (self, g, _("Token exchange"), "moe_dispatcher", moe_dispatchers,
                                           TRANSLATE (moe_dispatcher_labels));
  plx_panel_remember_row (self, "moe_dispatcher", GTK_WIDGET (self->moe_dispatcher_combo),
                          _("How the experts' tokens travel. All-to-all (Megatron-Core's dispatcher): each token once "
                            "for each of its experts. DeepEP: once over the network for each other node holding one of "
                            "its experts, then over NVLink"));
  {
    GtkWidget *row = adw_action_row_new ();
    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Data parallel"));
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), "-");
    gtk_widget_set_tooltip_text (row, _("Data parallelism: the GPUs left after TP × PP × CP, each with a share of the "
                                        "global batch; derived, not set"));
    gtk_widget_add_css_class (row, "property");
    adw_preferences_group_add (g, row);
    self->dp_row = ADW_ACTION_ROW (row);
  }
  plx_panel_choice_row (self, g, CHOICE_MB, "micro_batch_size", _("Micro-batch size"),
                        _("Sequences per micro-batch on one data-parallel rank; the slider offers the divisors of the batch "
                          "per rank"));
  {
    struct { const char *title, *tip; double lo, hi; } spec[N_INT_SPINS] = {
      { N_("Global batch size"), N_("Sequences per optimizer step, over all data-parallel ranks"), 1, 1 << 30 },
      { N_("Sequence length"), N_("Tokens per sequence"), 1, 1 << 30 },
    };
    for (guint i = 0; i < N_INT_SPINS; i++)
      {
        self->int_spins[i] = plx_panel_spin_row (GTK_WIDGET (g), _(spec[i].title), NULL, spec[i].lo, spec[i].hi, 1, 0);
        g_object_set_data (G_OBJECT (self->int_spins[i]), "key", (gpointer) int_keys[i]);
        g_signal_connect (self->int_spins[i], "value-changed", G_CALLBACK (on_int_spin_changed), self);
        plx_panel_remember_row (self, int_keys[i], GTK_WIDGET (self->int_spins[i]), _(spec[i].tip));
      }
  }
  self->recompute_combo = enum_combo (self, g, _("Recompute"), "recompute", recomputes, TRANSLATE (recompute_labels));
  plx_panel_remember_row (self, "recompute", GTK_WIDGET (self->recompute_combo),
                          _("Activation recomputation (Korthikanti et al. 2022): None keeps every activation; Selective "
                            "recomputes attention's softmax and dropout (little time, much memory); Full keeps only each "
                            "layer's input and recomputes the layer in backward; Matmul outputs but the MLP input (MaxText's "
                            "save_dot_except_mlpwi) recomputes the norms, the attention core and the MLP's gate and up"));
  self->zero_combo = enum_combo (self, g, _("ZeRO"), "zero_stage", zeros, TRANSLATE (zero_labels));
  plx_panel_remember_row (self, "zero_stage", GTK_WIDGET (self->zero_combo),
                          _("ZeRO (Rajbhandari et al. 2020) shards over the data- and context-parallel ranks (DP × CP): "
                            "1 the optimizer states, 2 also the gradients, 3 also the weights (gathered before use)"));
  self->dtype_combo = enum_combo (self, g, _("Precision"), "dtype", dtypes, TRANSLATE (dtype_labels));
  plx_panel_remember_row (self, "dtype", GTK_WIDGET (self->dtype_combo), _("The number format of the matrix multiplications"));
  self->implementation_combo = enum_combo (self, g, _("Training code"), "implementation", implementations,
                                           TRANSLATE (implementation_labels));
  plx_panel_remember_row (self, "implementation", GTK_WIDGET (self->implementation_combo),
                          _("Megatron-LM: fused kernels, selective recompute of the attention core. PyTorch (torchtitan, "
                            "FSDP recipes): one kernel per tensor operation, selective recompute of every other block. "
                            "Megatron-DeepSpeed (BLOOM): Megatron's kernels; bf16 gradients added into an fp32 copy after "
                            "every micro-batch and reduced after the last one. JAX/XLA (MaxText): fused as Megatron-LM, "
                            "weights sharded as ZeRO 3. PyTorch, compiled (torch.compile): PyTorch with its element-wise "
                            "operations fused. "
                            "Automatic: PyTorch with ZeRO 3, Megatron-LM otherwise"));
  self->attention_kernel_combo = enum_combo (self, g, _("Attention kernel"), "attention_kernel", attention_kernels,
                                             TRANSLATE (attention_kernel_labels));
  plx_panel_remember_row (self, "attention_kernel", GTK_WIDGET (self->attention_kernel_combo),
                          _("Which fused attention kernel runs: cuDNN, as Transformer Engine calls it (the fastest on "
                            "H100); FlashAttention-2, as the flash-attn package and PyTorch's scaled dot-product "
                            "attention run it; FlashAttention 1, about 2.3 times slower than FlashAttention-2; the "
                            "Triton kernel (MosaicML's attn_impl triton), about 1.8 times slower (Dao 2023). "
                            "Automatic: FlashAttention-2 in PyTorch code, cuDNN otherwise. Choosing one turns "
                            "FlashAttention on"));
  self->grad_dtype_combo = enum_combo (self, g, _("Gradients"), "grad_dtype", grad_dtypes, TRANSLATE (grad_dtype_labels));
  plx_panel_remember_row (self, "grad_dtype", GTK_WIDGET (self->grad_dtype_combo),
                          _("Gradient buffers and their reduction: FP32 as Megatron-LM keeps main_grad, BF16 as NeMo's "
                            "distributed optimizer with grad_sync_dtype bf16 (half the gradient memory and reduction "
                            "bytes). Automatic: FP32 under BF16 and FP8 training, 16-bit under FP16"));
  self->cross_entropy_fusion_combo = enum_combo (self, g, _("Loss"), "cross_entropy_fusion", cross_entropy_fusions,
                                                 TRANSLATE (cross_entropy_fusion_labels));
  plx_panel_remember_row (self, "cross_entropy_fusion", GTK_WIDGET (self->cross_entropy_fusion_combo),
                          _("How the cross-entropy loss runs: unfused, op by op on fp32 logits; fused as Megatron-Core's "
                            "--cross-entropy-loss-fusion; or Transformer Engine's one-pass kernel (TE), the fastest"));
#undef TRANSLATE
  {
    struct { const char *title, *key, *tip; GtkSwitch **out; } sw[] = {
      { N_("Sequence parallelism"), "sequence_parallel",
        N_("Sequence parallelism (Korthikanti et al. 2022): the parts of a layer outside the matrices split over "
           "the tensor-parallel ranks too; needs TP > 1"), &self->sp_switch },
      { N_("FlashAttention"), "flash_attention",
        N_("Fused attention (Dao et al. 2022): no attention matrix kept for backward"), &self->flash_switch },
      { N_("Overlap data-parallel communication"), "overlap_dp_comm",
        N_("Gradient reduction runs during the backward pass, bucket by bucket, as PyTorch DDP and Megatron do"),
        &self->overlap_dp_switch },
      { N_("Overlap tensor-parallel communication"), "overlap_tp_comm",
        N_("TP collectives hidden under the next matrix multiplication (Megatron's --tp-comm-overlap)"),
        &self->overlap_tp_switch },
    };
    for (guint i = 0; i < G_N_ELEMENTS (sw); i++)
      {
        GtkWidget *row = adw_action_row_new ();
        GtkWidget *s = gtk_switch_new ();
        adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _(sw[i].title));
        gtk_widget_set_valign (s, GTK_ALIGN_CENTER);
        adw_action_row_add_suffix (ADW_ACTION_ROW (row), s);
        adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), s);
        adw_preferences_group_add (g, row);
        g_object_set_data (G_OBJECT (s), "key", (gpointer) sw[i].key);
        g_signal_connect (s, "notify::active", G_CALLBACK (on_switch_changed), self);
        *sw[i].out = GTK_SWITCH (s);
        plx_panel_remember_row (self, sw[i].key, row, _(sw[i].tip));
      }
  }
  self->bucket_spin = plx_panel_spin_row (GTK_WIDGET (g), _("Gradient bucket"), _("MB per data-parallel all-reduce"), 1, 16384, 1, 0);
  g_signal_connect (self->bucket_spin, "value-changed", G_CALLBACK (on_bucket_changed), self);
  plx_panel_remember_row (self, "grad_bucket_bytes", GTK_WIDGET (self->bucket_spin),
                          _("Gradients are reduced in buckets of this size (PyTorch DDP, Megatron): larger buckets use the "
                            "network better, smaller ones start overlapping sooner"));
}

/* The Strategy group as the JSON says. Called with `updating` set
 * (plx_panel_sync_controls). */
void
plx_panel_sync_strategy (PlxScenarioPanel *self)
{

  for (guint i = 0; i < N_CHOICES; i++)
    plx_panel_refresh_choice (self, i);
  for (guint i = 0; i < N_INT_SPINS; i++)
    {
      gint64 fallback = i == INT_SEQ && self->resolved_model ? (gint64) self->resolved_model->max_positions : 1;
      gtk_spin_button_set_value (self->int_spins[i], (double) plx_panel_strategy_int (self, int_keys[i], fallback));
    }
  adw_combo_row_set_selected (self->schedule_combo, plx_panel_index_of (schedules, plx_panel_strategy_string (self, "schedule", "1f1b")));
  adw_combo_row_set_selected (self->recompute_combo, plx_panel_index_of (recomputes, plx_panel_strategy_string (self, "recompute", "none")));
  adw_combo_row_set_selected (self->zero_combo, (guint) CLAMP (plx_panel_strategy_int (self, "zero_stage", 0), 0, 3));
  adw_combo_row_set_selected (self->dtype_combo, plx_panel_index_of (dtypes, plx_panel_strategy_string (self, "dtype", "bf16")));
  adw_combo_row_set_selected (self->implementation_combo,
                              plx_panel_index_of (implementations, plx_panel_strategy_string (self, "implementation", "auto")));
  adw_combo_row_set_selected (self->attention_kernel_combo,
                              plx_panel_index_of (attention_kernels, plx_panel_strategy_string (self, "attention_kernel", "auto")));
  adw_combo_row_set_selected (self->grad_dtype_combo,
                              plx_panel_index_of (grad_dtypes, plx_panel_strategy_string (self, "grad_dtype", "auto")));
  adw_combo_row_set_selected (self->cross_entropy_fusion_combo,
                              plx_panel_index_of (cross_entropy_fusions,
                                                  plx_panel_strategy_string (self, "cross_entropy_fusion", "none")));
  {
    const char *layout = plx_panel_strategy_string (self, "pipeline_layout", "");
    if (!g_str_equal (gtk_editable_get_text (GTK_EDITABLE (self->layout_row)), layout))
      gtk_editable_set_text (GTK_EDITABLE (self->layout_row), layout);
  }
  adw_combo_row_set_selected (self->moe_dispatcher_combo,
                              plx_panel_index_of (moe_dispatchers,
                                                  plx_panel_strategy_string (self, "moe_dispatcher", "alltoall")));
  {
    JsonNode *fa = json_object_get_member (obj (self->strategy), "flash_attention");
    JsonNode *odp = json_object_get_member (obj (self->strategy), "overlap_dp_comm");
    JsonNode *otp = json_object_get_member (obj (self->strategy), "overlap_tp_comm");
    /* Overlapping DP communication is on unless the file turns it off, or DeepSpeed
     * runs the model and the file does not turn it on (FORMATS.md). */
    gboolean overlap_default = !g_str_equal (plx_panel_strategy_string (self, "implementation", "auto"), "deepspeed");

    plx_panel_sync_sp (self);
    gtk_switch_set_active (self->flash_switch, fa && JSON_NODE_HOLDS_VALUE (fa) && json_node_get_boolean (fa));
    gtk_switch_set_active (self->overlap_dp_switch,
                           odp && JSON_NODE_HOLDS_VALUE (odp) ? json_node_get_boolean (odp) : overlap_default);
    gtk_switch_set_active (self->overlap_tp_switch, otp && JSON_NODE_HOLDS_VALUE (otp) && json_node_get_boolean (otp));
    {
      /* Not given: Megatron-LM's size for this data-parallel degree and precision. */
      g_autoptr (PlxStrategy) probe = plx_strategy_new ();
      guint64 gpus = self->resolved_cluster != NULL ? plx_cluster_get_n_gpus (self->resolved_cluster) : 1;
      guint64 mp = (guint64) MAX (plx_panel_strategy_int (self, "tp", 1), 1) * MAX (plx_panel_strategy_int (self, "pp", 1), 1) *
                   MAX (plx_panel_strategy_int (self, "cp", 1), 1);
      probe->dp = (guint) CLAMP (plx_panel_strategy_int (self, "dp", (gint64) (gpus / mp)), 1, G_MAXUINT);
      probe->dtype = g_str_equal (plx_panel_strategy_string (self, "dtype", "bf16"), "fp16") ? PLX_DTYPE_FP16 : PLX_DTYPE_BF16;
      gtk_spin_button_set_value (self->bucket_spin,
                                 plx_panel_strategy_int (self, "grad_bucket_bytes",
                                                         (gint64) plx_strategy_get_grad_bucket_bytes (probe)) / 1e6);
    }
    gtk_widget_set_sensitive (self->choices[CHOICE_VS].row, g_str_equal (plx_panel_strategy_string (self, "schedule", "1f1b"), "interleaved-1f1b"));
    {
      gboolean moe = self->resolved_model != NULL && self->resolved_model->experts > 0;
      gtk_widget_set_visible (self->choices[CHOICE_EP].row, moe);
      gtk_widget_set_visible (self->choices[CHOICE_ETP].row, moe);
      gtk_widget_set_visible (GTK_WIDGET (self->moe_dispatcher_combo), moe);
    }
  }
}
