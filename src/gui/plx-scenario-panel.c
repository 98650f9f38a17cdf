/* The side panel. Degree sliders move over valid values only (divisors of the head
 * count that fit a node for TP, of the layer count for PP, ...), the data-parallel
 * degree is derived and shown, and changing any cluster value marks the cluster as
 * custom (its preset plus overrides, as FORMATS.md writes it). */
#include <glib/gi18n-lib.h>
#include <math.h>

#include "plx-scenario-panel.h"

typedef struct
{
  const char *key;          /* strategy key */
  GtkScale   *scale;
  GArray     *values;       /* guint64 */
} Choice;

typedef struct
{
  const char *path[2];      /* cluster JSON path: {"gpu", "hbm_bytes"} or {"num_nodes", NULL} */
  double      unit;         /* JSON value = shown value * unit */
  GtkSpinButton *spin;
} ClusterSpin;

enum { CHOICE_TP, CHOICE_PP, CHOICE_CP, CHOICE_EP, N_CHOICES };
enum
{
  SPIN_NODES, SPIN_GPUS_PER_NODE, SPIN_PEAK, SPIN_HBM, SPIN_HBM_BW, SPIN_INTRA_BW, SPIN_INTRA_LAT,
  SPIN_INTER_BW, SPIN_INTER_LAT, N_CLUSTER_SPINS
};
enum { INT_MICRO_BATCH, INT_GLOBAL_BATCH, INT_SEQ, INT_VIRTUAL, N_INT_SPINS };

struct _PlxScenarioPanel
{
  GtkBox       parent_instance;

  JsonNode    *model;        /* object */
  JsonNode    *cluster;      /* object */
  JsonNode    *strategy;     /* object */
  char        *name;
  char        *base_dir;
  char        *model_file;   /* set when the model came from a file */
  PlxModel    *resolved_model;
  PlxCluster  *resolved_cluster;
  gboolean     updating;

  AdwComboRow *model_combo;
  GtkStringList *model_names;
  AdwActionRow *fact_rows[4];
  AdwComboRow *cluster_combo;
  GtkStringList *cluster_names;
  ClusterSpin  cluster_spins[N_CLUSTER_SPINS];
  Choice       choices[N_CHOICES];
  GtkSpinButton *int_spins[N_INT_SPINS];
  AdwActionRow *dp_row;
  AdwComboRow *schedule_combo, *recompute_combo, *zero_combo, *dtype_combo;
  GtkSwitch   *sp_switch, *flash_switch;
};

G_DEFINE_FINAL_TYPE (PlxScenarioPanel, plx_scenario_panel, GTK_TYPE_BOX)

enum { CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static const char *const schedules[] = { "1f1b", "interleaved-1f1b", "gpipe", "zero-bubble-h1", NULL };
static const char *const recomputes[] = { "none", "selective", "full", NULL };
static const char *const zeros[] = { "0", "1", "2", "3", NULL };
static const char *const dtypes[] = { "bf16", "fp16", "fp8", "fp32", NULL };
static const char *const int_keys[N_INT_SPINS] = { "micro_batch_size", "global_batch_size", "seq_length", "virtual_stages" };

static void emit_changed (PlxScenarioPanel *self);

/* ---- JSON helpers -------------------------------------------------------------- */

static JsonObject *
obj (JsonNode *node)
{
  return json_node_get_object (node);
}

static gint64
strategy_int (PlxScenarioPanel *self, const char *key, gint64 fallback)
{
  JsonNode *n = json_object_get_member (obj (self->strategy), key);
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return fallback;
  if (json_node_get_value_type (n) == G_TYPE_INT64)
    return json_node_get_int (n);
  if (json_node_get_value_type (n) == G_TYPE_DOUBLE)
    return (gint64) json_node_get_double (n);
  return fallback;
}

static const char *
strategy_string (PlxScenarioPanel *self, const char *key, const char *fallback)
{
  JsonNode *n = json_object_get_member (obj (self->strategy), key);
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return fallback;
  return json_node_get_string (n);
}

static guint
index_of (const char *const *list, const char *value)
{
  for (guint i = 0; list[i]; i++)
    if (g_strcmp0 (list[i], value) == 0)
      return i;
  return 0;
}

/* ---- resolving the model and cluster for facts and choices --------------------- */

static void
resolve (PlxScenarioPanel *self)
{
  g_autoptr (JsonNode) model = NULL;
  JsonObject *m = obj (self->model);

  g_clear_pointer (&self->resolved_model, plx_model_free);
  g_clear_pointer (&self->resolved_cluster, plx_cluster_free);
  if (json_object_has_member (m, "hf_config"))
    {
      const char *path = json_object_get_string_member (m, "hf_config");
      g_autofree char *full = g_path_is_absolute (path) ? g_strdup (path) : g_build_filename (self->base_dir, path, NULL);
      g_autoptr (JsonNode) config = plx_json_parse_file (full, NULL);
      if (config != NULL)
        model = plx_json_merge (config, NULL);
    }
  else
    model = plx_json_deep_copy (self->model);
  if (model != NULL)
    self->resolved_model = plx_model_new_from_json (model, "model", NULL);
  self->resolved_cluster = plx_cluster_new_from_json (self->cluster, "cluster", NULL);
}

static GArray *
compute_choices (PlxScenarioPanel *self, guint which)
{
  GArray *v = g_array_new (FALSE, FALSE, sizeof (guint64));
  const PlxModel *m = self->resolved_model;
  const PlxCluster *c = self->resolved_cluster;
  guint64 seq = (guint64) strategy_int (self, "seq_length", m ? (gint64) m->max_positions : 2048);

  if (m == NULL || c == NULL)
    {
      guint64 one = 1;
      g_array_append_val (v, one);
      return v;
    }
  switch (which)
    {
    case CHOICE_TP:
      /* Divisors of the heads that also divide KV heads and MLP width, inside a node. */
      for (guint64 d = 1; d <= m->heads && d <= c->gpus_per_node; d++)
        if (m->heads % d == 0 && m->kv_heads % d == 0 && m->ffn % d == 0)
          g_array_append_val (v, d);
      break;
    case CHOICE_PP:
      for (guint64 d = 1; d <= m->n_layers && d <= plx_cluster_get_n_gpus (c); d++)
        if (m->n_layers % d == 0)
          g_array_append_val (v, d);
      break;
    case CHOICE_CP:
      for (guint64 d = 1; d <= 64 && d <= plx_cluster_get_n_gpus (c); d *= 2)
        if (seq % d == 0)
          g_array_append_val (v, d);
      break;
    case CHOICE_EP:
    default:
      for (guint64 d = 1; d <= MAX (m->experts, 1); d++)
        if (MAX (m->experts, 1) % d == 0)
          g_array_append_val (v, d);
      break;
    }
  if (v->len == 0)
    {
      guint64 one = 1;
      g_array_append_val (v, one);
    }
  return v;
}

static char *
choice_format (GtkScale *scale, double value, gpointer data)
{
  Choice *ch = data;
  guint i;

  if (ch->values == NULL || ch->values->len == 0)
    return g_strdup ("1");
  i = (guint) CLAMP (round (value), 0, ch->values->len - 1);
  return g_strdup_printf ("%" G_GUINT64_FORMAT, g_array_index (ch->values, guint64, i));
}

static void
refresh_choice (PlxScenarioPanel *self, guint which)
{
  Choice *ch = &self->choices[which];
  guint64 current = (guint64) strategy_int (self, ch->key, 1);
  guint best = 0;
  GtkAdjustment *adj;

  if (ch->values != NULL)
    g_array_unref (ch->values);
  ch->values = compute_choices (self, which);
  for (guint i = 0; i < ch->values->len; i++)
    if (g_array_index (ch->values, guint64, i) <= current)
      best = i;
  adj = gtk_range_get_adjustment (GTK_RANGE (ch->scale));
  gtk_adjustment_configure (adj, best, 0, MAX (ch->values->len - 1, 0.0), 1, 1, 0);
  gtk_scale_clear_marks (ch->scale);
  if (ch->values->len <= 12)
    for (guint i = 0; i < ch->values->len; i++)
      gtk_scale_add_mark (ch->scale, i, GTK_POS_BOTTOM, NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (ch->scale), ch->values->len > 1);
  gtk_widget_queue_draw (GTK_WIDGET (ch->scale));
}

/* ---- controls from JSON --------------------------------------------------------- */

static double
cluster_value (PlxScenarioPanel *self, const ClusterSpin *cs)
{
  /* From the resolved cluster (preset plus overrides). */
  const PlxCluster *c = self->resolved_cluster;
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
  return c->inter_node.latency_s / cs->unit;
}

static void
sync_controls (PlxScenarioPanel *self)
{
  JsonObject *m = obj (self->model), *c = obj (self->cluster);
  g_auto (GStrv) models = plx_presets_list (PLX_PRESET_MODEL);
  g_auto (GStrv) clusters = plx_presets_list (PLX_PRESET_CLUSTER);
  const char *preset;
  guint sel = 0;

  self->updating = TRUE;
  resolve (self);

  /* Model. */
  gtk_string_list_splice (self->model_names, 0, g_list_model_get_n_items (G_LIST_MODEL (self->model_names)),
                          (const char *const *) models);
  preset = json_object_has_member (m, "preset") ? json_object_get_string_member (m, "preset") : NULL;
  if (preset != NULL)
    sel = index_of ((const char *const *) models, preset);
  else
    {
      g_autofree char *label = g_strdup_printf (_("%s (file)"), self->model_file ? self->model_file : _("inline config"));
      gtk_string_list_append (self->model_names, label);
      sel = g_list_model_get_n_items (G_LIST_MODEL (self->model_names)) - 1;
    }
  adw_combo_row_set_selected (self->model_combo, sel);
  if (self->resolved_model != NULL)
    {
      g_autofree char *params = g_strdup_printf ("%.2f B", plx_model_get_n_params (self->resolved_model) / 1e9);
      g_autofree char *layers = g_strdup_printf ("%u", self->resolved_model->n_layers);
      g_autofree char *hidden = g_strdup_printf ("%" G_GUINT64_FORMAT, self->resolved_model->hidden);
      g_autofree char *heads = g_strdup_printf ("%u (%u key-value)", self->resolved_model->heads, self->resolved_model->kv_heads);
      adw_action_row_set_subtitle (self->fact_rows[0], params);
      adw_action_row_set_subtitle (self->fact_rows[1], layers);
      adw_action_row_set_subtitle (self->fact_rows[2], hidden);
      adw_action_row_set_subtitle (self->fact_rows[3], heads);
    }

  /* Cluster. */
  gtk_string_list_splice (self->cluster_names, 0, g_list_model_get_n_items (G_LIST_MODEL (self->cluster_names)),
                          (const char *const *) clusters);
  preset = json_object_has_member (c, "preset") ? json_object_get_string_member (c, "preset") : NULL;
  adw_combo_row_set_selected (self->cluster_combo, preset ? index_of ((const char *const *) clusters, preset) : 0);
  {
    /* Anything beside "preset" (and the node count) makes it custom. */
    gboolean custom = preset == NULL;
    JsonObjectIter iter;
    const char *key;
    JsonNode *value;
    json_object_iter_init (&iter, c);
    while (json_object_iter_next (&iter, &key, &value))
      if (!g_str_equal (key, "preset") && !g_str_equal (key, "num_nodes"))
        custom = TRUE;
    adw_action_row_set_subtitle (ADW_ACTION_ROW (self->cluster_combo), custom ? _("custom: values changed") : "");
  }
  for (guint i = 0; i < N_CLUSTER_SPINS; i++)
    gtk_spin_button_set_value (self->cluster_spins[i].spin, cluster_value (self, &self->cluster_spins[i]));

  /* Strategy. */
  for (guint i = 0; i < N_CHOICES; i++)
    refresh_choice (self, i);
  for (guint i = 0; i < N_INT_SPINS; i++)
    {
      gint64 fallback = i == INT_SEQ && self->resolved_model ? (gint64) self->resolved_model->max_positions : 1;
      gtk_spin_button_set_value (self->int_spins[i], (double) strategy_int (self, int_keys[i], fallback));
    }
  adw_combo_row_set_selected (self->schedule_combo, index_of (schedules, strategy_string (self, "schedule", "1f1b")));
  adw_combo_row_set_selected (self->recompute_combo, index_of (recomputes, strategy_string (self, "recompute", "none")));
  adw_combo_row_set_selected (self->zero_combo, (guint) CLAMP (strategy_int (self, "zero_stage", 0), 0, 3));
  adw_combo_row_set_selected (self->dtype_combo, index_of (dtypes, strategy_string (self, "dtype", "bf16")));
  {
    JsonNode *sp = json_object_get_member (obj (self->strategy), "sequence_parallel");
    JsonNode *fa = json_object_get_member (obj (self->strategy), "flash_attention");
    gtk_switch_set_active (self->sp_switch, sp && JSON_NODE_HOLDS_VALUE (sp) && json_node_get_boolean (sp));
    gtk_switch_set_active (self->flash_switch, fa && JSON_NODE_HOLDS_VALUE (fa) && json_node_get_boolean (fa));
  }
  self->updating = FALSE;
}

/* ---- controls to JSON ----------------------------------------------------------- */

static void
on_choice_changed (GtkRange *range, PlxScenarioPanel *self)
{
  Choice *ch = g_object_get_data (G_OBJECT (range), "choice");
  guint i;

  if (self->updating || ch->values == NULL)
    return;
  i = (guint) CLAMP (round (gtk_range_get_value (range)), 0, ch->values->len - 1);
  plx_scenario_panel_set_strategy_int (self, ch->key, (gint64) g_array_index (ch->values, guint64, i));
}

static void
on_int_spin_changed (GtkSpinButton *spin, PlxScenarioPanel *self)
{
  const char *key = g_object_get_data (G_OBJECT (spin), "key");

  if (self->updating)
    return;
  plx_scenario_panel_set_strategy_int (self, key, (gint64) gtk_spin_button_get_value (spin));
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
                                    g_str_equal (values[sel], "interleaved-1f1b") ? MAX (strategy_int (self, "virtual_stages", 2), 2) : 1);
    }
  sync_controls (self);
  emit_changed (self);
}

static void
on_switch_changed (GtkSwitch *sw, GParamSpec *pspec, PlxScenarioPanel *self)
{
  const char *key = g_object_get_data (G_OBJECT (sw), "key");

  if (self->updating)
    return;
  json_object_set_boolean_member (obj (self->strategy), key, gtk_switch_get_active (sw));
  emit_changed (self);
}

static void
on_model_selected (AdwComboRow *row, GParamSpec *pspec, PlxScenarioPanel *self)
{
  guint sel = adw_combo_row_get_selected (row);
  g_auto (GStrv) models = plx_presets_list (PLX_PRESET_MODEL);
  JsonObject *m;

  if (self->updating || sel >= g_strv_length (models))
    return;
  json_node_unref (self->model);
  self->model = json_node_new (JSON_NODE_OBJECT);
  m = json_object_new ();
  json_object_set_string_member (m, "preset", models[sel]);
  json_node_take_object (self->model, m);
  g_clear_pointer (&self->model_file, g_free);
  /* The old sequence length and degrees may not suit the new model: let them follow. */
  json_object_remove_member (obj (self->strategy), "seq_length");
  sync_controls (self);
  for (guint i = 0; i < N_CHOICES; i++)
    on_choice_changed (GTK_RANGE (self->choices[i].scale), self);
  emit_changed (self);
}

static void
on_cluster_selected (AdwComboRow *row, GParamSpec *pspec, PlxScenarioPanel *self)
{
  guint sel = adw_combo_row_get_selected (row);
  g_auto (GStrv) clusters = plx_presets_list (PLX_PRESET_CLUSTER);
  JsonObject *c;
  gint64 nodes;

  if (self->updating || sel >= g_strv_length (clusters))
    return;
  nodes = (gint64) gtk_spin_button_get_value (self->cluster_spins[SPIN_NODES].spin);
  json_node_unref (self->cluster);
  self->cluster = json_node_new (JSON_NODE_OBJECT);
  c = json_object_new ();
  json_object_set_string_member (c, "preset", clusters[sel]);
  json_object_set_int_member (c, "num_nodes", MAX (nodes, 1));
  json_node_take_object (self->cluster, c);
  sync_controls (self);
  emit_changed (self);
}

static void
on_cluster_spin_changed (GtkSpinButton *spin, PlxScenarioPanel *self)
{
  ClusterSpin *cs = g_object_get_data (G_OBJECT (spin), "cluster-spin");
  JsonObject *target = obj (self->cluster);
  double v = gtk_spin_button_get_value (spin) * cs->unit;

  if (self->updating)
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
  sync_controls (self);
  emit_changed (self);
}

/* Shows a strategy key's new value in its control without touching the others. */
static void
sync_strategy_value (PlxScenarioPanel *self,
                     const char       *key)
{
  self->updating = TRUE;
  for (guint i = 0; i < N_CHOICES; i++)
    if (g_str_equal (self->choices[i].key, key))
      {
        guint64 v = (guint64) strategy_int (self, key, 1);
        for (guint j = 0; j < self->choices[i].values->len; j++)
          if (g_array_index (self->choices[i].values, guint64, j) == v)
            gtk_range_set_value (GTK_RANGE (self->choices[i].scale), j);
      }
  for (guint i = 0; i < N_INT_SPINS; i++)
    if (g_str_equal (int_keys[i], key))
      gtk_spin_button_set_value (self->int_spins[i], (double) strategy_int (self, key, 1));
  self->updating = FALSE;
}

void
plx_scenario_panel_set_strategy_int (PlxScenarioPanel *self,
                                     const char       *key,
                                     gint64            value)
{
  json_object_set_int_member (obj (self->strategy), key, value);
  /* Degrees re-derive dp, as on the command line. */
  if (g_str_equal (key, "tp") || g_str_equal (key, "pp") || g_str_equal (key, "cp"))
    json_object_remove_member (obj (self->strategy), "dp");
  if (!self->updating)
    {
      /* Only the sequence length changes what other controls offer (CP); the rest
       * needs no resync, which keeps a slider drag cheap. */
      if (g_str_equal (key, "seq_length"))
        sync_controls (self);
      else
        sync_strategy_value (self, key);
      emit_changed (self);
    }
}

static void
emit_changed (PlxScenarioPanel *self)
{
  g_signal_emit (self, signals[CHANGED], 0);
}

/* ---- building the panel --------------------------------------------------------- */

static AdwPreferencesGroup *
group (PlxScenarioPanel *self, const char *title)
{
  GtkWidget *g = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (g), title);
  gtk_box_append (GTK_BOX (self), g);
  return ADW_PREFERENCES_GROUP (g);
}

static AdwComboRow *
combo (AdwPreferencesGroup *g, const char *title, GtkStringList *model)
{
  GtkWidget *row = adw_combo_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_combo_row_set_model (ADW_COMBO_ROW (row), G_LIST_MODEL (model));
  adw_preferences_group_add (g, row);
  return ADW_COMBO_ROW (row);
}

static AdwComboRow *
enum_combo (PlxScenarioPanel *self, AdwPreferencesGroup *g, const char *title, const char *key,
            const char *const *values, const char *const *labels)
{
  g_autoptr (GtkStringList) list = gtk_string_list_new ((const char *const *) labels);
  AdwComboRow *row = combo (g, title, list);
  g_object_set_data (G_OBJECT (row), "key", (gpointer) key);
  g_object_set_data (G_OBJECT (row), "values", (gpointer) values);
  g_signal_connect (row, "notify::selected", G_CALLBACK (on_combo_changed), self);
  return row;
}

static GtkSpinButton *
spin_row (AdwPreferencesGroup *g, const char *title, const char *subtitle, double lo, double hi, double step,
          guint digits)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (lo, hi, step);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), digits);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), spin);
  adw_preferences_group_add (g, row);
  return GTK_SPIN_BUTTON (spin);
}

static void
choice_row (PlxScenarioPanel *self, AdwPreferencesGroup *g, guint which, const char *key, const char *title)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *scale = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, 0, 1, 1);
  Choice *ch = &self->choices[which];

  ch->key = key;
  ch->scale = GTK_SCALE (scale);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_scale_set_draw_value (GTK_SCALE (scale), TRUE);
  gtk_scale_set_value_pos (GTK_SCALE (scale), GTK_POS_RIGHT);
  gtk_scale_set_format_value_func (GTK_SCALE (scale), choice_format, ch, NULL);
  gtk_range_set_round_digits (GTK_RANGE (scale), 0);
  gtk_widget_set_size_request (scale, 170, -1);
  gtk_widget_set_valign (scale, GTK_ALIGN_CENTER);
  g_object_set_data (G_OBJECT (scale), "choice", ch);
  g_signal_connect (scale, "value-changed", G_CALLBACK (on_choice_changed), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), scale);
  adw_preferences_group_add (g, row);
}

static void
plx_scenario_panel_dispose (GObject *object)
{
  PlxScenarioPanel *self = PLX_SCENARIO_PANEL (object);

  g_clear_pointer (&self->model, json_node_unref);
  g_clear_pointer (&self->cluster, json_node_unref);
  g_clear_pointer (&self->strategy, json_node_unref);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->base_dir, g_free);
  g_clear_pointer (&self->model_file, g_free);
  g_clear_pointer (&self->resolved_model, plx_model_free);
  g_clear_pointer (&self->resolved_cluster, plx_cluster_free);
  for (guint i = 0; i < N_CHOICES; i++)
    g_clear_pointer (&self->choices[i].values, g_array_unref);
  G_OBJECT_CLASS (plx_scenario_panel_parent_class)->dispose (object);
}

static void
plx_scenario_panel_class_init (PlxScenarioPanelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = plx_scenario_panel_dispose;
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
}

static void
plx_scenario_panel_init (PlxScenarioPanel *self)
{
  static const char *const schedule_labels[] = { N_("1F1B"), N_("Interleaved 1F1B"), N_("GPipe"), N_("Zero bubble (H1)"), NULL };
  static const char *const recompute_labels[] = { N_("None"), N_("Selective"), N_("Full"), NULL };
  static const char *const zero_labels[] = { N_("Off"), N_("1: optimizer"), N_("2: + gradients"), N_("3: + weights"), NULL };
  static const char *const dtype_labels[] = { "BF16", "FP16", "FP8", "FP32", NULL };
  static const char *const fact_titles[] = { N_("Parameters"), N_("Layers"), N_("Hidden size"), N_("Attention heads") };
  AdwPreferencesGroup *g;
  const char *translated[8];

  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 18);
  gtk_widget_set_margin_start (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self), 12);

  self->model = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (self->model, json_object_new ());
  self->cluster = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (self->cluster, json_object_new ());
  self->strategy = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (self->strategy, json_object_new ());
  self->base_dir = g_get_current_dir ();

  g = group (self, _("Model"));
  self->model_names = gtk_string_list_new (NULL);
  self->model_combo = combo (g, _("Model"), self->model_names);
  g_signal_connect (self->model_combo, "notify::selected", G_CALLBACK (on_model_selected), self);
  for (guint i = 0; i < 4; i++)
    {
      GtkWidget *row = adw_action_row_new ();
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _(fact_titles[i]));
      gtk_widget_add_css_class (row, "property");
      adw_preferences_group_add (g, row);
      self->fact_rows[i] = ADW_ACTION_ROW (row);
    }

  g = group (self, _("Cluster"));
  self->cluster_names = gtk_string_list_new (NULL);
  self->cluster_combo = combo (g, _("Cluster"), self->cluster_names);
  g_signal_connect (self->cluster_combo, "notify::selected", G_CALLBACK (on_cluster_selected), self);
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
    };
    for (guint i = 0; i < N_CLUSTER_SPINS; i++)
      {
        ClusterSpin *cs = &self->cluster_spins[i];
        cs->path[0] = spec[i].p0;
        cs->path[1] = spec[i].p1;
        cs->unit = spec[i].unit;
        cs->spin = spin_row (g, _(spec[i].title), spec[i].subtitle ? _(spec[i].subtitle) : NULL, spec[i].lo, spec[i].hi,
                             spec[i].step, spec[i].digits);
        g_object_set_data (G_OBJECT (cs->spin), "cluster-spin", cs);
        g_signal_connect (cs->spin, "value-changed", G_CALLBACK (on_cluster_spin_changed), self);
      }
  }

  g = group (self, _("Strategy"));
  choice_row (self, g, CHOICE_TP, "tp", _("Tensor parallel"));
  choice_row (self, g, CHOICE_PP, "pp", _("Pipeline parallel"));
  choice_row (self, g, CHOICE_CP, "cp", _("Context parallel"));
  choice_row (self, g, CHOICE_EP, "ep", _("Expert parallel"));
  {
    GtkWidget *row = adw_action_row_new ();
    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Data parallel"));
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), "-");
    gtk_widget_add_css_class (row, "property");
    adw_preferences_group_add (g, row);
    self->dp_row = ADW_ACTION_ROW (row);
  }
  {
    struct { const char *title; double lo, hi; } spec[N_INT_SPINS] = {
      { N_("Micro-batch size"), 1, 65536 },
      { N_("Global batch size"), 1, 1e8 },
      { N_("Sequence length"), 1, 1 << 24 },
      { N_("Model chunks per stage"), 1, 128 },
    };
    for (guint i = 0; i < N_INT_SPINS; i++)
      {
        self->int_spins[i] = spin_row (g, _(spec[i].title), NULL, spec[i].lo, spec[i].hi, 1, 0);
        g_object_set_data (G_OBJECT (self->int_spins[i]), "key", (gpointer) int_keys[i]);
        g_signal_connect (self->int_spins[i], "value-changed", G_CALLBACK (on_int_spin_changed), self);
      }
  }
#define TRANSLATE(labels) (({ guint n_ = 0; for (; labels[n_]; n_++) translated[n_] = _(labels[n_]); translated[n_] = NULL; }), translated)
  self->schedule_combo = enum_combo (self, g, _("Pipeline schedule"), "schedule", schedules, TRANSLATE (schedule_labels));
  self->recompute_combo = enum_combo (self, g, _("Recompute"), "recompute", recomputes, TRANSLATE (recompute_labels));
  self->zero_combo = enum_combo (self, g, _("ZeRO"), "zero_stage", zeros, TRANSLATE (zero_labels));
  self->dtype_combo = enum_combo (self, g, _("Precision"), "dtype", dtypes, TRANSLATE (dtype_labels));
#undef TRANSLATE
  {
    struct { const char *title, *key; GtkSwitch **out; } sw[] = {
      { N_("Sequence parallelism"), "sequence_parallel", &self->sp_switch },
      { N_("FlashAttention"), "flash_attention", &self->flash_switch },
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
      }
  }
}

GtkWidget *
plx_scenario_panel_new (void)
{
  return g_object_new (PLX_TYPE_SCENARIO_PANEL, NULL);
}

gboolean
plx_scenario_panel_load (PlxScenarioPanel *self,
                         JsonNode         *scenario,
                         const char       *base_dir,
                         const char       *source,
                         GError          **error)
{
  JsonObject *root;
  JsonNode *m, *c, *s;
  const char *name = NULL;

  /* Check it first: a broken file must not replace the current scenario. */
  {
    g_autoptr (PlxScenario) check = plx_scenario_new_from_json (scenario, base_dir, source, error);
    if (check == NULL && !g_error_matches (*error, PLX_ERROR, PLX_ERROR_INCONSISTENT))
      return FALSE;
    /* An inconsistent strategy loads: the panel shows its error, the user fixes it. */
    g_clear_error (error);
  }
  root = json_node_get_object (scenario);
  m = json_object_get_member (root, "model");
  c = json_object_get_member (root, "cluster");
  s = json_object_get_member (root, "strategy");
  if (!plx_json_get_string (root, source, "", "name", FALSE, &name, error))
    return FALSE;

  g_clear_pointer (&self->model, json_node_unref);
  g_clear_pointer (&self->cluster, json_node_unref);
  g_clear_pointer (&self->strategy, json_node_unref);
  self->model = plx_json_deep_copy (m);
  self->cluster = plx_json_deep_copy (c);
  self->strategy = s ? plx_json_deep_copy (s) : json_node_new (JSON_NODE_OBJECT);
  if (JSON_NODE_HOLDS_NULL (self->strategy))
    json_node_take_object (self->strategy, json_object_new ());
  {
    /* Copies first: the caller may pass the panel's own name or directory. */
    char *new_name = g_strdup (name), *new_dir = g_strdup (base_dir ? base_dir : ".");
    g_free (self->name);
    self->name = new_name;
    g_free (self->base_dir);
    self->base_dir = new_dir;
  }
  g_clear_pointer (&self->model_file, g_free);
  if (json_object_has_member (obj (self->model), "hf_config"))
    self->model_file = g_path_get_basename (json_object_get_string_member (obj (self->model), "hf_config"));
  sync_controls (self);
  emit_changed (self);
  return TRUE;
}

JsonNode *
plx_scenario_panel_get_json (PlxScenarioPanel *self)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *root = json_object_new ();

  if (self->name != NULL)
    json_object_set_string_member (root, "name", self->name);
  json_object_set_member (root, "model", plx_json_deep_copy (self->model));
  json_object_set_member (root, "cluster", plx_json_deep_copy (self->cluster));
  json_object_set_member (root, "strategy", plx_json_deep_copy (self->strategy));
  json_node_take_object (node, root);
  return node;
}

const char *
plx_scenario_panel_get_base_dir (PlxScenarioPanel *self)
{
  return self->base_dir;
}

void
plx_scenario_panel_show_resolved (PlxScenarioPanel  *self,
                                  const PlxScenario *scenario)
{
  g_autofree char *dp = scenario ? g_strdup_printf ("%u", scenario->strategy->dp) : g_strdup ("-");

  if (g_strcmp0 (adw_action_row_get_subtitle (self->dp_row), dp) != 0)
    adw_action_row_set_subtitle (self->dp_row, dp);
}

GArray *
plx_scenario_panel_get_choices (PlxScenarioPanel *self,
                                const char       *key)
{
  for (guint i = 0; i < N_CHOICES; i++)
    if (g_str_equal (self->choices[i].key, key))
      return self->choices[i].values;
  return NULL;
}
