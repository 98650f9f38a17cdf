/* The Cluster group of the side panel (plx-scenario-panel-private.h): the presets, the
 * node count, the GPU's and network's figures (a change makes the cluster custom:
 * its preset plus overrides), and saving the cluster as the user's own preset. */
#include <glib/gi18n-lib.h>
#include <math.h>

#include "plx-key-names.h"
#include "plx-scenario-panel-private.h"
#include "base/plx-json.h"
#include "base/plx-presets.h"
#include "hardware/plx-cluster-inputs.h"

/* ---- controls from JSON --------------------------------------------------------- */

/* The number the cluster's JSON gives at `cs`'s path, if it gives one (the peak as
 * {"bf16": ...}). */
static gboolean
cluster_json_value (PlxScenarioPanel *self, const ClusterSpin *cs, double *value)
{
  JsonObject *o = obj (self->cluster);
  JsonNode *n;

  if (cs->path[1] != NULL)
    {
      n = json_object_get_member (o, cs->path[0]);
      o = n != NULL && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
    }
  n = o != NULL ? json_object_get_member (o, cs->path[1] != NULL ? cs->path[1] : cs->path[0]) : NULL;
  if (n != NULL && JSON_NODE_HOLDS_OBJECT (n))
    n = json_object_get_member (json_node_get_object (n), "bf16");
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) == G_TYPE_STRING ||
      json_node_get_value_type (n) == G_TYPE_BOOLEAN)
    return FALSE;
  *value = json_node_get_double (n) / cs->unit;
  return TRUE;
}

double
plx_panel_cluster_value (PlxScenarioPanel *self, const ClusterSpin *cs)
{
  /* From the resolved cluster (preset plus overrides). A cluster that does not
   * resolve (HBM capacity below the reserved memory) shows the value its JSON gives
   * and, for the rest, the last cluster that did: one bad field is not shown as a
   * cluster wiped to every field's minimum. */
  const PlxCluster *c = self->resolved_cluster != NULL ? self->resolved_cluster : self->shown_cluster;
  double given;

  if (self->resolved_cluster == NULL && cluster_json_value (self, cs, &given))
    return given;
  if (c == NULL)
    return 0;
  if (cs == &self->cluster_spins[SPIN_NODES]) return c->num_nodes;
  if (cs == &self->cluster_spins[SPIN_GPUS_PER_NODE]) return c->gpus_per_node;
  if (cs == &self->cluster_spins[SPIN_PEAK]) return c->peak_flops[PLX_DTYPE_BF16] / cs->unit;
  if (cs == &self->cluster_spins[SPIN_HBM]) return c->hbm_bytes / cs->unit;
  if (cs == &self->cluster_spins[SPIN_HBM_BW]) return c->hbm_bw_Bps / cs->unit;
  if (cs == &self->cluster_spins[SPIN_INTRA_BW]) return c->intra_node.bw_Bps / cs->unit;
  if (cs == &self->cluster_spins[SPIN_INTRA_LAT]) return c->intra_node.latency_s / cs->unit;
  if (cs == &self->cluster_spins[SPIN_INTER_BW]) return c->inter_node.bw_Bps / cs->unit;
  /* Uncapped, the board runs at its full power. */
  if (cs == &self->cluster_spins[SPIN_POWER]) return c->power_limit_w > 0.0 ? c->power_limit_w : c->tdp_w;
  return c->inter_node.latency_s / cs->unit;
}

/* The cluster input (plx-uncertainty.h) a spin shows: "gpu.peak_flops.bf16" for the
 * BF16 peak, else its JSON path. */
static char *
cluster_spin_input_path (PlxScenarioPanel *self, const ClusterSpin *cs)
{
  if (cs == &self->cluster_spins[SPIN_PEAK])
    return g_strdup ("gpu.peak_flops.bf16");
  return cs->path[1] != NULL ? g_strconcat (cs->path[0], ".", cs->path[1], NULL) : g_strdup (cs->path[0]);
}

/* A spin whose input the cluster file gives as a range or distribution shows its
 * nominal value (the midpoint or mean, what every command uses); the subtitle says so,
 * since typing a value there replaces the range with that one number. */
void
plx_panel_refresh_range_subtitles (PlxScenarioPanel *self)
{
  const PlxCluster *rc = self->resolved_cluster;

  for (guint i = 0; i < N_CLUSTER_SPINS; i++)
    {
      const ClusterSpin *cs = &self->cluster_spins[i];
      AdwActionRow *row = ADW_ACTION_ROW (gtk_widget_get_ancestor (GTK_WIDGET (cs->spin), ADW_TYPE_ACTION_ROW));
      g_autofree char *path = cluster_spin_input_path (self, cs);
      gint input = plx_cluster_input_find (path);
      const PlxUncertainInput *found = NULL;
      g_autofree char *text = NULL;
      int d = (int) cs->digits;

      /* The power row's subtitle is the clock's; power inputs cannot be ranges. */
      if (i == SPIN_POWER)
        continue;
      for (guint k = 0; rc != NULL && rc->uncertain != NULL && input >= 0 && k < rc->uncertain->len; k++)
        if (((const PlxUncertainInput *) g_ptr_array_index (rc->uncertain, k))->input == (guint) input)
          found = g_ptr_array_index (rc->uncertain, k);
      if (found == NULL)
        {
          plx_panel_set_subtitle (row, cs->subtitle != NULL ? cs->subtitle : "");
          gtk_widget_set_tooltip_text (GTK_WIDGET (row), NULL);
          continue;
        }
      if (found->kind == PLX_DIST_UNIFORM)
        /* TRANSLATORS: a cluster input given as a range; the spin shows its midpoint. */
        text = g_strdup_printf (_("%s; range %.*f – %.*f, midpoint shown"), cs->subtitle != NULL ? cs->subtitle : "",
                                d, found->a / cs->unit, d, found->b / cs->unit);
      else
        /* TRANSLATORS: a cluster input given as a normal distribution; the spin shows its mean. */
        text = g_strdup_printf (_("%s; mean %.*f, sd %.*f"), cs->subtitle != NULL ? cs->subtitle : "", d,
                                found->a / cs->unit, d + 1, found->b / cs->unit);
      plx_panel_set_subtitle (row, text);
      gtk_widget_set_tooltip_text (GTK_WIDGET (row),
                                   _("The cluster file gives this input as a range or distribution: the sampled "
                                     "band and the sensitivity use it, every single prediction its nominal value. "
                                     "Typing a value here replaces it with that one number."));
    }
}

/* A cluster that does not resolve: the rows its error names are marked, and say it
 * under their title ("HBM capacity=... is less than Reserved memory=..."). */
void
plx_panel_mark_cluster_fault (PlxScenarioPanel *self)
{
  const char *body = self->cluster_error != NULL ? strstr (self->cluster_error, ": cluster") : NULL;
  g_autofree char *human = body != NULL ? plx_key_names_humanize (body + 2) : NULL;

  for (guint i = 0; i < N_CLUSTER_SPINS; i++)
    {
      const ClusterSpin *cs = &self->cluster_spins[i];
      GtkWidget *row = gtk_widget_get_ancestor (GTK_WIDGET (cs->spin), ADW_TYPE_ACTION_ROW);
      g_autofree char *key = g_strconcat ("cluster.", cs->path[0], cs->path[1] != NULL ? "." : NULL, cs->path[1], NULL);
      const char *at = body != NULL ? strstr (body, key) : NULL;
      gboolean fault = at != NULL && !g_ascii_isalnum (at[strlen (key)]) && at[strlen (key)] != '_';

      if (fault)
        {
          gtk_widget_add_css_class (row, "fault");
          plx_panel_set_subtitle (ADW_ACTION_ROW (row), human);
          /* A row at fault is never folded away. */
          if (gtk_widget_get_ancestor (row, ADW_TYPE_EXPANDER_ROW) != NULL)
            adw_expander_row_set_expanded (ADW_EXPANDER_ROW (gtk_widget_get_ancestor (row, ADW_TYPE_EXPANDER_ROW)), TRUE);
        }
      else
        gtk_widget_remove_css_class (row, "fault");
    }
}

static void
build_cluster_list (PlxScenarioPanel *self)
{
  g_auto (GStrv) ids = plx_presets_list (PLX_PRESET_CLUSTER);

  for (guint i = 0; ids[i] != NULL; i++)
    {
      g_autoptr (PlxCluster) c = plx_cluster_new_preset (ids[i], NULL);
      gboolean mine = !plx_presets_is_builtin (PLX_PRESET_CLUSTER, ids[i]);
      g_autofree char *label = c ? g_strdup_printf (mine ? _("%s · %u× %s, %.0f GiB (yours)") : _("%s · %u× %s, %.0f GiB"),
                                                     ids[i], c->gpus_per_node, c->gpu_name, c->hbm_bytes / 1073741824.0)
                                 : g_strdup (ids[i]);
      gtk_string_list_append (self->cluster_names, label);
      g_ptr_array_add (self->cluster_ids, g_strdup (ids[i]));
    }
}

static void
on_cluster_selected (AdwComboRow *row, GParamSpec *pspec, PlxScenarioPanel *self)
{
  guint sel = adw_combo_row_get_selected (row);
  JsonObject *c;
  gint64 nodes;

  if (self->updating || sel >= self->cluster_ids->len)
    return;
  nodes = (gint64) gtk_spin_button_get_value (self->cluster_spins[SPIN_NODES].spin);
  json_node_unref (self->cluster);
  self->cluster = json_node_new (JSON_NODE_OBJECT);
  c = json_object_new ();
  json_object_set_string_member (c, "preset", g_ptr_array_index (self->cluster_ids, sel));
  json_object_set_int_member (c, "num_nodes", MAX (nodes, 1));
  json_node_take_object (self->cluster, c);
  plx_panel_resolve (self);
  plx_panel_adapt_strategy (self);
  plx_panel_emit_changed (self);
  plx_panel_queue_resync (self);
}

static void
on_cluster_spin_changed (GtkSpinButton *spin, PlxScenarioPanel *self)
{
  ClusterSpin *cs = g_object_get_data (G_OBJECT (spin), "cluster-spin");
  JsonObject *target = obj (self->cluster);
  double v = gtk_spin_button_get_value (spin) * cs->unit;

  if (self->updating)
    return;
  /* Leaving a field commits the text it shows: 2.039 TB/s shown as "2.04" became
   * 2.04 when Tab passed through, and the scenario changed under the user. A value
   * within half a shown digit of the cluster's is what was shown, not an edit. */
  if (fabs (gtk_spin_button_get_value (spin) - plx_panel_cluster_value (self, cs)) <=
      0.5 * pow (10.0, -(double) gtk_spin_button_get_digits (spin)) * (1.0 + 1e-9))
    return;
  if (cs->path[1] != NULL)
    {
      /* Nested override: {"gpu": {"hbm_bytes": ...}}, keeping other overrides. */
      JsonObject *child = json_object_has_member (target, cs->path[0]) ? json_object_get_object_member (target, cs->path[0]) : NULL;
      if (child == NULL)
        {
          child = json_object_new ();
          json_object_set_object_member (target, cs->path[0], child);
        }
      if (g_str_equal (cs->path[1], "peak_flops"))
        {
          JsonObject *flops = json_object_new ();
          json_object_set_double_member (flops, "bf16", v);
          json_object_set_double_member (flops, "fp16", v);
          json_object_set_object_member (child, "peak_flops", flops);
        }
      else if (g_str_equal (cs->path[1], "hbm_bytes"))
        json_object_set_int_member (child, cs->path[1], (gint64) v);
      else
        json_object_set_double_member (child, cs->path[1], v);
    }
  else
    json_object_set_int_member (target, cs->path[0], (gint64) v);
  /* The old data-parallel degree belonged to the old GPU count. */
  json_object_remove_member (obj (self->strategy), "dp");
  plx_panel_sync_controls (self);
  plx_panel_emit_changed (self);
}

/* ---- saving the cluster as the user's own preset ---------------------------------- */

static void
show_save_error (PlxScenarioPanel *self, const char *message)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))),
                                              _("Could Not Save the Cluster"), message);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

/* The name typed so far decides what Save does: nothing for an invalid or built-in
 * name (the body says why), replacing for one of the user's own. */
static void
on_save_name_changed (GtkEditable *entry, AdwMessageDialog *dialog)
{
  const char *name = gtk_editable_get_text (entry);
  gboolean valid = plx_presets_name_is_valid (name), builtin = valid && plx_presets_is_builtin (PLX_PRESET_CLUSTER, name);
  g_auto (GStrv) known = plx_presets_list (PLX_PRESET_CLUSTER);
  gboolean exists = valid && g_strv_contains ((const char *const *) known, name);

  adw_message_dialog_set_response_enabled (dialog, "save", valid && !builtin);
  adw_message_dialog_set_response_label (dialog, "save", exists && !builtin ? _("_Replace") : _("_Save"));
  if (*name != '\0' && !valid)
    adw_message_dialog_set_body (dialog, _("Use letters, digits, “.”, “_” and “-”, starting with a letter or digit."));
  else if (builtin)
    adw_message_dialog_set_body (dialog, _("A built-in cluster has that name."));
  else if (exists)
    adw_message_dialog_set_body (dialog, _("Your cluster of that name will be replaced."));
  else
    adw_message_dialog_set_body (dialog, _("The cluster as it is now, listed with the built-in ones from now on."));
}

static void
rebuild_cluster_list (PlxScenarioPanel *self)
{
  gboolean was = self->updating;

  self->updating = TRUE;
  gtk_string_list_splice (self->cluster_names, 0, g_list_model_get_n_items (G_LIST_MODEL (self->cluster_names)), NULL);
  g_ptr_array_set_size (self->cluster_ids, 0);
  build_cluster_list (self);
  self->updating = was;
}

static void
on_save_response (AdwMessageDialog *dialog, const char *response, PlxScenarioPanel *self)
{
  GtkEditable *entry = g_object_get_data (G_OBJECT (dialog), "entry");
  g_autofree char *name = g_strdup (gtk_editable_get_text (entry));
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) expanded = NULL;
  gboolean had_preset = FALSE;
  gint64 nodes;
  JsonObject *c;

  if (!g_str_equal (response, "save"))
    return;
  expanded = plx_presets_expand (PLX_PRESET_CLUSTER, self->cluster, _("scenario"), "cluster", &had_preset, &error);
  if (expanded == NULL || !plx_presets_save (PLX_PRESET_CLUSTER, name, expanded, &error))
    {
      show_save_error (self, error->message);
      return;
    }
  /* The scenario now names the preset; the node count stays the scenario's. */
  nodes = (gint64) gtk_spin_button_get_value (self->cluster_spins[SPIN_NODES].spin);
  rebuild_cluster_list (self);
  json_node_unref (self->cluster);
  self->cluster = json_node_new (JSON_NODE_OBJECT);
  c = json_object_new ();
  json_object_set_string_member (c, "preset", name);
  json_object_set_int_member (c, "num_nodes", MAX (nodes, 1));
  json_node_take_object (self->cluster, c);
  plx_panel_sync_controls (self);
  plx_panel_emit_changed (self);
}

static void
on_save_cluster_clicked (GtkButton *button, PlxScenarioPanel *self)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))),
                                              _("Save Cluster As"), NULL);
  GtkWidget *entry = gtk_entry_new ();
  const char *preset = json_object_has_member (obj (self->cluster), "preset")
                         ? json_object_get_string_member (obj (self->cluster), "preset") : NULL;

  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), _("Name, e.g. my-lab-h100"));
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  if (preset != NULL && !plx_presets_is_builtin (PLX_PRESET_CLUSTER, preset))
    gtk_editable_set_text (GTK_EDITABLE (entry), preset);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), entry);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"), "save", _("_Save"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data (G_OBJECT (dialog), "entry", entry);
  g_signal_connect (entry, "changed", G_CALLBACK (on_save_name_changed), dialog);
  on_save_name_changed (GTK_EDITABLE (entry), ADW_MESSAGE_DIALOG (dialog));
  g_signal_connect (dialog, "response", G_CALLBACK (on_save_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
  gtk_widget_grab_focus (entry);
}

/* The Cluster group: the preset list, the node count, and the GPU's and network's
 * figures folded away with "Your own cluster". */
void
plx_panel_build_cluster_group (PlxScenarioPanel *self)
{
  AdwPreferencesGroup *g;

  g = plx_panel_group (self, _("Cluster"));
  self->cluster_names = gtk_string_list_new (NULL);
  self->cluster_ids = g_ptr_array_new_with_free_func (g_free);
  build_cluster_list (self);
  self->cluster_combo = plx_panel_combo (g, _("Cluster"), self->cluster_names);
  g_signal_connect (self->cluster_combo, "notify::selected", G_CALLBACK (on_cluster_selected), self);
  self->hardware = adw_expander_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->hardware), _("GPU and network"));
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (self->hardware),
                                 _("Peak, memory, bandwidths, latencies, power"));
  {
    struct { const char *title, *subtitle; const char *p0, *p1; double unit, lo, hi, step; guint digits; } spec[N_CLUSTER_SPINS] = {
      { N_("Nodes"), NULL, "num_nodes", NULL, 1, 1, 100000, 1, 0 },
      { N_("GPUs per node"), NULL, "gpus_per_node", NULL, 1, 1, 64, 1, 0 },
      { N_("Peak BF16"), N_("TFLOP/s per GPU, dense"), "gpu", "peak_flops", 1e12, 1, 100000, 1, 0 },
      { N_("HBM capacity"), N_("GiB per GPU"), "gpu", "hbm_bytes", 1073741824.0, 1, 4096, 1, 0 },
      { N_("HBM bandwidth"), N_("TB/s per GPU"), "gpu", "hbm_bw_Bps", 1e12, 0.1, 100, 0.1, 2 },
      { N_("Intra-node bandwidth"), N_("GB/s per GPU, each way"), "intra_node", "bw_Bps", 1e9, 1, 100000, 1, 0 },
      { N_("Intra-node latency"), N_("µs"), "intra_node", "latency_s", 1e-6, 0, 1000, 0.1, 1 },
      { N_("Inter-node bandwidth"), N_("GB/s per GPU, each way"), "inter_node", "bw_Bps", 1e9, 0.1, 100000, 0.5, 1 },
      { N_("Inter-node latency"), N_("µs"), "inter_node", "latency_s", 1e-6, 0, 1000, 0.1, 1 },
      { N_("Power limit"), N_("W per GPU"), "gpu", "power_limit_w", 1, 1, 2000, 10, 0 },
    };
    for (guint i = 0; i < N_CLUSTER_SPINS; i++)
      {
        ClusterSpin *cs = &self->cluster_spins[i];
        cs->path[0] = spec[i].p0;
        cs->path[1] = spec[i].p1;
        cs->unit = spec[i].unit;
        cs->subtitle = spec[i].subtitle ? _(spec[i].subtitle) : NULL;
        cs->digits = spec[i].digits;
        cs->spin = plx_panel_spin_row (i == SPIN_NODES || i == SPIN_GPUS_PER_NODE ? GTK_WIDGET (g) : self->hardware, _(spec[i].title), spec[i].subtitle ? _(spec[i].subtitle) : NULL, spec[i].lo, spec[i].hi,
                                       spec[i].step, spec[i].digits);
        g_object_set_data (G_OBJECT (cs->spin), "cluster-spin", cs);
        g_signal_connect (cs->spin, "value-changed", G_CALLBACK (on_cluster_spin_changed), self);
      }
    adw_preferences_group_add (g, self->hardware);
    gtk_widget_set_tooltip_text (gtk_widget_get_ancestor (GTK_WIDGET (self->cluster_spins[SPIN_POWER].spin),
                                                          ADW_TYPE_ACTION_ROW),
                                 _("A cap on each GPU's board power (nvidia-smi -pl): the clock drops until the "
                                   "power fits, and the matrix multiplications slow with it; memory-bound work "
                                   "keeps its pace"));
  }
  {
    GtkWidget *row = adw_action_row_new ();
    GtkWidget *button = gtk_button_new_with_mnemonic (_("Save _As…"));
    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Your own cluster"));
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("Save these values under a name"));
    gtk_widget_set_tooltip_text (row, _("Save the cluster as it is now as a preset of your own, listed with the "
                                        "built-in ones in the window and by parallax-cli"));
    gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
    g_signal_connect (button, "clicked", G_CALLBACK (on_save_cluster_clicked), self);
    adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
    adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), button);
    adw_expander_row_add_row (ADW_EXPANDER_ROW (self->hardware), row);
  }
}

void
plx_scenario_panel_set_cluster (PlxScenarioPanel *self,
                                JsonNode         *cluster)
{
  g_return_if_fail (cluster != NULL && JSON_NODE_HOLDS_OBJECT (cluster));
  /* As choosing a cluster in the list: the strategy keeps what is still valid. */
  json_node_unref (self->cluster);
  self->cluster = plx_json_deep_copy (cluster);
  plx_panel_resolve (self);
  plx_panel_adapt_strategy (self);
  plx_panel_emit_changed (self);
  plx_panel_queue_resync (self);
}

/* The Cluster group as the JSON says, over the resolved cluster. Called with
 * `updating` set (plx_panel_sync_controls). */
void
plx_panel_sync_cluster (PlxScenarioPanel *self)
{
  JsonObject *c = obj (self->cluster);
  const char *preset = json_object_has_member (c, "preset") ? json_object_get_string_member (c, "preset") : NULL;
  g_autofree char *inline_label = g_strdup_printf (_("%s (inline)"),
                                                   self->resolved_cluster ? self->resolved_cluster->name : "?");

  plx_panel_show_preset (self->cluster_combo, self->cluster_names, self->cluster_ids, preset, inline_label);
  /* The node count is the scenario's, not a change to the cluster. */
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->cluster_combo),
                               preset == NULL || plx_panel_has_overrides (c, "num_nodes") ? _("custom: values changed") : "");
  {
    /* A cap is between the power drawn whatever the clock and the board's full power;
     * a cluster that does not state them cannot be capped. */
    const PlxCluster *rc = self->resolved_cluster != NULL ? self->resolved_cluster : self->shown_cluster;
    GtkSpinButton *power = self->cluster_spins[SPIN_POWER].spin;
    GtkWidget *row = gtk_widget_get_ancestor (GTK_WIDGET (power), ADW_TYPE_ACTION_ROW);
    gboolean cappable = rc != NULL && rc->tdp_w > 0.0;

    gtk_widget_set_sensitive (row, cappable);
    if (cappable)
      {
        g_autofree char *speed = g_strdup_printf (_("W per GPU; tensor cores at %.0f %% of full speed"),
                                                  100.0 * rc->compute_clock_factor);

        gtk_spin_button_set_range (power, floor (rc->static_power_w) + 1.0, rc->tdp_w);
        adw_action_row_set_subtitle (ADW_ACTION_ROW (row), speed);
      }
    else
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("W per GPU"));
  }
  for (guint i = 0; i < N_CLUSTER_SPINS; i++)
    gtk_spin_button_set_value (self->cluster_spins[i].spin, plx_panel_cluster_value (self, &self->cluster_spins[i]));
  plx_panel_refresh_range_subtitles (self);
  plx_panel_mark_cluster_fault (self);
}
