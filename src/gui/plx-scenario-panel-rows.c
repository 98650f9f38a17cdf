/* The kinds of row the side panel is made of (a group, a dropdown, a spin button),
 * and reading the scenario's JSON (plx-scenario-panel-private.h). */
#include "plx-scenario-panel-private.h"
#include "base/plx-json.h"

/* ---- reading the scenario's JSON ------------------------------------------------- */

gint64
plx_panel_strategy_int (PlxScenarioPanel *self, const char *key, gint64 fallback)
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

const char *
plx_panel_strategy_string (PlxScenarioPanel *self, const char *key, const char *fallback)
{
  JsonNode *n = json_object_get_member (obj (self->strategy), key);
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return fallback;
  return json_node_get_string (n);
}

guint
plx_panel_index_of (const char *const *list, const char *value)
{
  for (guint i = 0; list[i]; i++)
    if (g_strcmp0 (list[i], value) == 0)
      return i;
  return 0;
}

/* The Hugging Face config file the model names (relative to the scenario), parsed;
 * NULL if it cannot be read. */
JsonNode *
plx_panel_read_hf_config (PlxScenarioPanel *self)
{
  const char *path = json_object_get_string_member (obj (self->model), "hf_config");
  g_autofree char *full = g_path_is_absolute (path) ? g_strdup (path) : g_build_filename (self->base_dir, path, NULL);

  return plx_json_parse_file (full, NULL);
}

/* Whether a preset object carries values of its own: any key beside "preset" and the
 * key `also` (NULL: none) that a preset choice itself sets. */
gboolean
plx_panel_has_overrides (JsonObject *o, const char *also)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  json_object_iter_init (&iter, o);
  while (json_object_iter_next (&iter, &key, &value))
    if (!g_str_equal (key, "preset") && g_strcmp0 (key, also) != 0)
      return TRUE;
  return FALSE;
}

/* A row's subtitle, set only when it changes: each set re-lays out the panel. */
void
plx_panel_set_subtitle (AdwActionRow *row, const char *text)
{
  if (g_strcmp0 (adw_action_row_get_subtitle (row), text) != 0)
    adw_action_row_set_subtitle (row, text);
}

static guint
index_of_id (GPtrArray *ids, const char *id)
{
  for (guint i = 0; id != NULL && i < ids->len; i++)
    if (g_str_equal (g_ptr_array_index (ids, i), id))
      return i;
  return GTK_INVALID_LIST_POSITION;
}

/* Shows `label` as the last, extra item of a preset list (a model from a file, a
 * custom cluster), or removes that item when `label` is NULL. Only touches the list
 * when it changes. */
static void
set_extra_item (GtkStringList *list, guint n_presets, const char *label)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (list));

  if (label == NULL)
    {
      if (n > n_presets)
        gtk_string_list_remove (list, n_presets);
      return;
    }
  if (n > n_presets && g_strcmp0 (gtk_string_list_get_string (list, n_presets), label) == 0)
    return;
  if (n > n_presets)
    gtk_string_list_splice (list, n_presets, 1, (const char *const[]) { label, NULL });
  else
    gtk_string_list_append (list, label);
}

static void
select_row (AdwComboRow *row, guint position)
{
  if (adw_combo_row_get_selected (row) != position)
    adw_combo_row_set_selected (row, position);
}

/* A preset dropdown shows `preset`, or, for a model or cluster that is none of the
 * presets, `other_label` as the list's extra last item. */
void
plx_panel_show_preset (AdwComboRow   *combo,
                       GtkStringList *names,
                       GPtrArray     *ids,
                       const char    *preset,
                       const char    *other_label)
{
  guint sel = index_of_id (ids, preset);

  if (sel == GTK_INVALID_LIST_POSITION)
    {
      set_extra_item (names, ids->len, other_label);
      sel = ids->len;
    }
  else
    set_extra_item (names, ids->len, NULL);
  select_row (combo, sel);
}

/* ---- building the panel --------------------------------------------------------- */

AdwPreferencesGroup *
plx_panel_group (PlxScenarioPanel *self, const char *title)
{
  GtkWidget *g = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (g), title);
  gtk_box_append (GTK_BOX (self), g);
  return ADW_PREFERENCES_GROUP (g);
}

AdwComboRow *
plx_panel_combo (AdwPreferencesGroup *g, const char *title, GtkStringList *model)
{
  GtkWidget *row = adw_combo_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_combo_row_set_model (ADW_COMBO_ROW (row), G_LIST_MODEL (model));
  adw_preferences_group_add (g, row);
  return ADW_COMBO_ROW (row);
}

GtkSpinButton *
plx_panel_spin_row (GtkWidget *into, const char *title, const char *subtitle, double lo, double hi, double step,
                    guint digits)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (lo, hi, step);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), digits);
  /* Ctrl+Z after typing a value undoes the scenario edit (the window's history), not
   * the digits in the entry: the spin button takes the keys before its text does. */
  gtk_editable_set_enable_undo (GTK_EDITABLE (spin), FALSE);
  {
    GtkEventController *keys = gtk_shortcut_controller_new ();
    gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
    gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                          gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_z, GDK_CONTROL_MASK),
                                                            gtk_named_action_new ("win.undo")));
    gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                          gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_z, GDK_CONTROL_MASK
                                                                                                 | GDK_SHIFT_MASK),
                                                            gtk_named_action_new ("win.redo")));
    gtk_widget_add_controller (spin, keys);
  }
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), spin);
  if (ADW_IS_EXPANDER_ROW (into))
    adw_expander_row_add_row (ADW_EXPANDER_ROW (into), row);
  else
    adw_preferences_group_add (ADW_PREFERENCES_GROUP (into), row);
  return GTK_SPIN_BUTTON (spin);
}

/* The row of a control (the control itself, or its row), by strategy key; carries
 * the tooltip. */
void
plx_panel_remember_row (PlxScenarioPanel *self, const char *key, GtkWidget *control, const char *tooltip)
{
  GtkWidget *row = ADW_IS_PREFERENCES_ROW (control) ? control : gtk_widget_get_ancestor (control, ADW_TYPE_PREFERENCES_ROW);

  g_hash_table_insert (self->rows, (gpointer) key, row);
  if (tooltip != NULL)
    gtk_widget_set_tooltip_text (row, tooltip);
}
