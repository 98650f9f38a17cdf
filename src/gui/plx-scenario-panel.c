/* The side panel (plx-scenario-panel.h). Degree sliders move over valid values only
 * (divisors of the head count that fit a node for TP, of the layer count for PP, ...),
 * the data-parallel degree is derived and shown, and changing any cluster value marks
 * the cluster as custom (its preset plus overrides, as FORMATS.md writes it). This
 * file holds the object, its JSON and the sync of every control from it; its groups
 * are listed in plx-scenario-panel-private.h. */
#include <glib/gi18n-lib.h>
#include <math.h>

#include "plx-key-names.h"
#include "plx-scenario-panel-private.h"
#include "base/plx-json.h"
#include "optimize/plx-advice.h"

G_DEFINE_FINAL_TYPE (PlxScenarioPanel, plx_scenario_panel, GTK_TYPE_BOX)

enum { CHANGED, N_SIGNALS };

static guint signals[N_SIGNALS];

/* ---- resolving the model and cluster for facts and choices --------------------- */

/* The model and cluster the JSON describes, for the facts and the valid choices; a
 * cluster that does not resolve keeps the last one that did, for its other fields. */
void
plx_panel_resolve (PlxScenarioPanel *self)
{
  g_autoptr (JsonNode) model = NULL;
  JsonObject *m = obj (self->model);

  g_clear_pointer (&self->resolved_model, plx_model_free);
  g_clear_pointer (&self->resolved_cluster, plx_cluster_free);
  if (json_object_has_member (m, "hf_config"))
    {
      g_autoptr (JsonNode) config = plx_panel_read_hf_config (self);
      if (config != NULL)
        model = plx_json_merge (config, NULL);
    }
  else
    model = plx_json_deep_copy (self->model);
  if (model != NULL)
    self->resolved_model = plx_model_new_from_json (model, "model", NULL);
  g_clear_pointer (&self->cluster_error, g_free);
  {
    g_autoptr (GError) error = NULL;
    self->resolved_cluster = plx_cluster_new_from_json (self->cluster, "cluster", &error);
    if (error != NULL)
      self->cluster_error = g_strdup (error->message);
  }
  if (self->resolved_cluster != NULL)
    {
      g_clear_pointer (&self->shown_cluster, plx_cluster_free);
      self->shown_cluster = plx_cluster_copy (self->resolved_cluster);
    }
}

void
plx_panel_sync_controls (PlxScenarioPanel *self)
{
  self->updating = TRUE;
  plx_panel_resolve (self);
  plx_panel_sync_model (self);
  plx_panel_sync_cluster (self);
  plx_panel_sync_strategy (self);
  self->updating = FALSE;
}

/* A new model or cluster keeps every strategy value still valid with it and moves
 * the others to the nearest valid value (plx-advice). */
void
plx_panel_adapt_strategy (PlxScenarioPanel *self)
{
  JsonNode *adapted = NULL;

  if (self->resolved_model != NULL && self->resolved_cluster != NULL)
    adapted = plx_advice_adapt_strategy (self->resolved_model, self->resolved_cluster, self->strategy);
  if (adapted != NULL)
    {
      json_node_unref (self->strategy);
      self->strategy = adapted;
    }
  else
    json_object_remove_member (obj (self->strategy), "dp");
}

/* The dropdown is still handling its own choice when it notifies: the controls (and
 * that dropdown's list) are brought in line once it has finished, from an idle. */
static gboolean
resync_idle (gpointer data)
{
  PlxScenarioPanel *self = data;

  self->resync_idle = 0;
  plx_panel_sync_controls (self);
  return G_SOURCE_REMOVE;
}

void
plx_panel_queue_resync (PlxScenarioPanel *self)
{
  if (self->resync_idle == 0)
    self->resync_idle = g_idle_add_full (G_PRIORITY_HIGH_IDLE, resync_idle, self, NULL);
}

void
plx_panel_emit_changed (PlxScenarioPanel *self)
{
  g_signal_emit (self, signals[CHANGED], 0);
  /* Only a slider's edits merge; anything else is a step of its own. */
  g_clear_pointer (&self->last_key, g_free);
}

const char *
plx_scenario_panel_get_last_key (PlxScenarioPanel *self)
{
  return self->last_key;
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
  g_clear_handle_id (&self->resync_idle, g_source_remove);
  g_clear_pointer (&self->model_ids, g_ptr_array_unref);
  g_clear_pointer (&self->graph_rows, g_ptr_array_unref);
  g_clear_object (&self->model_names);
  g_clear_pointer (&self->rows, g_hash_table_unref);
  g_clear_pointer (&self->last_key, g_free);
  g_clear_object (&self->cluster_names);
  g_clear_pointer (&self->cluster_ids, g_ptr_array_unref);
  g_clear_pointer (&self->resolved_model, plx_model_free);
  g_clear_pointer (&self->resolved_cluster, plx_cluster_free);
  g_clear_pointer (&self->shown_cluster, plx_cluster_free);
  g_clear_pointer (&self->cluster_error, g_free);
  g_clear_pointer (&self->fits_text, g_free);
  for (guint i = 0; i < N_CHOICES; i++)
    {
      g_clear_pointer (&self->choices[i].values, g_array_unref);
      g_clear_pointer (&self->choices[i].reason, g_free);
    }
  G_OBJECT_CLASS (plx_scenario_panel_parent_class)->dispose (object);
}

static void
plx_scenario_panel_class_init (PlxScenarioPanelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = plx_scenario_panel_dispose;
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
}

/* The mouse wheel over the panel scrolls the panel. Without this, a slider or a spin
 * button that passes under the pointer takes the wheel and changes its value: a user
 * scrolling down to the strategy would change the pipeline degree and the sequence
 * length on the way. Caught before the controls see it (capture phase). */
static gboolean
on_panel_scroll (GtkEventControllerScroll *controller, double dx, double dy, PlxScenarioPanel *self)
{
  GtkWidget *sw = gtk_widget_get_ancestor (GTK_WIDGET (self), GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *adj;
  double step;

  if (sw == NULL)
    return FALSE;
  adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (sw));
  /* GTK's own wheel step for a scrolled window: the page size to the power 2/3. */
  step = pow (gtk_adjustment_get_page_size (adj), 2.0 / 3.0);
  gtk_adjustment_set_value (adj, gtk_adjustment_get_value (adj) + dy * step);
  return TRUE;
}

static void
plx_scenario_panel_init (PlxScenarioPanel *self)
{
  AdwPreferencesGroup *g;

  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  {
    GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
    gtk_event_controller_set_propagation_phase (scroll, GTK_PHASE_CAPTURE);
    g_signal_connect (scroll, "scroll", G_CALLBACK (on_panel_scroll), self);
    gtk_widget_add_controller (GTK_WIDGET (self), scroll);
  }
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
  self->rows = g_hash_table_new (g_str_hash, g_str_equal);

  g = plx_panel_group (self, _("Graph model"));
  adw_preferences_group_set_description (g, _("The model on the Graph page; it runs on the cluster below"));
  self->graph_group = GTK_WIDGET (g);
  gtk_widget_set_visible (self->graph_group, FALSE);
  self->graph_rows = g_ptr_array_new ();

  plx_panel_build_model_group (self);
  plx_panel_build_cluster_group (self);
  plx_panel_build_strategy_group (self);
}

void
plx_scenario_panel_show_graph (PlxScenarioPanel   *self,
                               const char *const *facts)
{
  AdwPreferencesGroup *g = ADW_PREFERENCES_GROUP (self->graph_group);

  for (guint i = 0; i < self->graph_rows->len; i++)
    adw_preferences_group_remove (g, self->graph_rows->pdata[i]);
  g_ptr_array_set_size (self->graph_rows, 0);
  for (guint i = 0; facts != NULL && facts[i] != NULL && facts[i + 1] != NULL; i += 2)
    {
      GtkWidget *row = adw_action_row_new ();

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), facts[i]);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), facts[i + 1]);
      adw_preferences_group_add (g, row);
      g_ptr_array_add (self->graph_rows, row);
    }
  gtk_widget_set_visible (self->graph_group, facts != NULL);
  gtk_widget_set_visible (self->model_group, facts == NULL);
  gtk_widget_set_visible (self->strategy_group, facts == NULL);
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
    g_autoptr (GError) local = NULL;
    g_autoptr (PlxScenario) check = plx_scenario_new_from_json (scenario, base_dir, source, &local);
    /* `error` may be NULL (undo and redo load what the panel itself produced). */
    if (check == NULL && !g_error_matches (local, PLX_ERROR, PLX_ERROR_INCONSISTENT))
      {
        g_propagate_error (error, g_steal_pointer (&local));
        return FALSE;
      }
    /* An inconsistent strategy loads: the panel shows its error, the user fixes it. */
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
  plx_panel_sync_controls (self);
  plx_panel_emit_changed (self);
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

  /* The core says when ZeRO has no effect, as the cost model shards (DP x CP). */
  g_autofree char *zero_hint = scenario != NULL ? plx_advice_zero_note (scenario->strategy) : NULL;

  plx_panel_set_subtitle (self->dp_row, dp);
  plx_panel_set_subtitle (ADW_ACTION_ROW (self->zero_combo), zero_hint != NULL ? zero_hint : "");
}

const char *
plx_scenario_panel_get_name (PlxScenarioPanel *self)
{
  return self->name;
}

void
plx_scenario_panel_set_name (PlxScenarioPanel *self,
                             const char       *name)
{
  char *copy = g_strdup (name);

  g_free (self->name);
  self->name = copy;
}

void
plx_scenario_panel_mark_faults (PlxScenarioPanel *self,
                                const char       *message)
{
  GHashTableIter iter;
  gpointer key, row;
  /* Past the "file: " prefix, which may itself hold a key-like word. */
  const char *body = message ? strstr (message, ": strategy") : NULL;

  g_hash_table_iter_init (&iter, self->rows);
  while (g_hash_table_iter_next (&iter, &key, &row))
    {
      gboolean fault = body != NULL && plx_advice_message_names (body, key);
      if (fault)
        gtk_widget_add_css_class (row, "fault");
      else
        gtk_widget_remove_css_class (row, "fault");
    }
}

gboolean
plx_scenario_panel_is_fault (PlxScenarioPanel *self,
                             const char       *key)
{
  GtkWidget *row = g_hash_table_lookup (self->rows, key);
  return row != NULL && gtk_widget_has_css_class (row, "fault");
}

GPtrArray *
plx_scenario_panel_nearest_fixes (PlxScenarioPanel *self)
{
  g_autoptr (PlxStrategy) s = NULL;

  if (self->resolved_model == NULL || self->resolved_cluster == NULL)
    return NULL;
  s = plx_strategy_new_from_json (self->strategy, "scenario", NULL);
  if (s == NULL)
    return NULL;
  return plx_advice_nearest_fixes (self->resolved_model, self->resolved_cluster, s, 5);
}

void
plx_scenario_panel_apply_fix (PlxScenarioPanel *self,
                              const char       *key,
                              JsonNode         *value)
{
  /* The core's apply knows what goes with each change: num_nodes into the cluster,
   * dp dropped after a degree or node count, one chunk without interleaving. */
  PlxAdviceFix fix = { (char *) key, value, NULL, 0.0, 0.0, FALSE };

  if (!plx_advice_fix_apply (&fix, obj (self->strategy), obj (self->cluster)))
    return;
  plx_panel_sync_controls (self);
  plx_panel_emit_changed (self);
}


