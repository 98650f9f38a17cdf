/* The window's scenario as a document (plx-window-private.h): the file it belongs to,
 * the undo history of its edits, its title and unsaved mark; and the loads that are
 * edits of it (a model file, a search result, Swap). */
#include <glib/gi18n-lib.h>

#include "plx-window-private.h"

/* ---- the document ------------------------------------------------------------------- */

static void
document_clear (gpointer data)
{
  Document *d = data;

  g_clear_object (&d->file);
  g_clear_pointer (&d->clean_text, g_free);
}

Document *
plx_window_document_new (GFile *file)
{
  Document *d = g_atomic_rc_box_new0 (Document);

  d->file = file != NULL ? g_object_ref (file) : NULL;
  return d;
}

gpointer
plx_window_document_ref (gpointer d)
{
  return g_atomic_rc_box_acquire (d);
}

void
plx_window_document_unref (gpointer d)
{
  g_atomic_rc_box_release_full (d, document_clear);
}

/* The title names the document (its file, or the scenario's name), with a dot while
 * it has unsaved changes; the subtitle says what runs now, from the resolved
 * scenario, so it follows every edit. */
void
plx_window_update_title (PlxWindow *self)
{
  const char *stored = plx_scenario_panel_get_name (self->panel);
  /* A stored name describes the scenario as it was loaded: once edited without a
   * file, it would name another scenario, so the document is untitled until saved. */
  g_autofree char *name = self->doc->file                  ? g_file_get_basename (self->doc->file)
                          : stored != NULL && !self->dirty ? g_strdup (stored)
                                                           : g_strdup (_("Untitled scenario"));
  g_autofree char *title = self->dirty ? g_strdup_printf ("• %s", name) : g_strdup (name);
  /* No result yet and the worker on it: not "not valid" before it has said so. */
  g_autofree char *subtitle = self->result != NULL ? plx_scenario_describe (self->result->scenario)
                              : self->engine != NULL && plx_engine_is_busy (self->engine) ? g_strdup (_("Computing…"))
                                                                                           : g_strdup (_("The strategy is not valid"));

  if (g_strcmp0 (adw_window_title_get_title (self->window_title), title) != 0)
    adw_window_title_set_title (self->window_title, title);
  if (g_strcmp0 (adw_window_title_get_subtitle (self->window_title), subtitle) != 0)
    adw_window_title_set_subtitle (self->window_title, subtitle);
}

/* A file's name without its folder and ".json": the scenario's name once saved there. */
char *
plx_window_name_of_file (GFile *file)
{
  g_autofree char *base = g_file_get_basename (file);

  if (g_str_has_suffix (base, ".json") && strlen (base) > 5)
    base[strlen (base) - 5] = '\0';
  return g_steal_pointer (&base);
}

/* A stored name describes the scenario as it was opened ("GPT-3 175B, TP 4 on 1024
 * A100"): once edited it would name another scenario in the Sensitivity chart's
 * title, in the saved file and in the CLI's "Scenario" line. An edited scenario is
 * named after its file, or has no name (the model's is used) while untitled. */
static gboolean
rename_after_edit (PlxWindow *self)
{
  g_autofree char *name = self->doc->file != NULL ? plx_window_name_of_file (self->doc->file) : NULL;

  if (g_strcmp0 (plx_scenario_panel_get_name (self->panel), name) == 0)
    return FALSE;
  plx_scenario_panel_set_name (self->panel, name);
  return TRUE;
}

static char *
scenario_text (PlxWindow *self)
{
  g_autoptr (JsonNode) json = plx_scenario_panel_get_json (self->panel);
  return json_to_string (json, FALSE);
}

void
plx_window_set_dirty (PlxWindow *self, gboolean dirty)
{
  self->dirty = dirty;
  if (!dirty && self->panel != NULL)
    {
      g_free (self->doc->clean_text);
      self->doc->clean_text = scenario_text (self);
    }
  plx_window_update_title (self);
}

/* Every edit is a step of the history, except one that undo or redo itself made. */
static void
record_history (PlxWindow *self)
{
  g_autofree char *text = NULL;

  if (self->applying_history || self->history == NULL)
    return;
  text = scenario_text (self);
  plx_history_record (self->history, text, plx_scenario_panel_get_last_key (self->panel), g_get_monotonic_time ());
  plx_window_actions_update_history (self);
}

/* `scenario` (NULL: the built-in default) replaces the panel's as the start of a
 * new document, `file` (NULL: untitled): one step of the history, so Undo brings
 * back what was there, with its file. */
gboolean
plx_window_replace_scenario (PlxWindow *self, JsonNode *scenario, const char *dir, const char *source, GFile *file,
                             GError **error)
{
  g_autoptr (JsonNode) def = scenario == NULL ? plx_scenario_default_json () : NULL;
  g_autofree char *text = NULL;
  gboolean ok;

  /* The load's own change is recorded below, as the new document's first step. */
  self->loading = TRUE;
  self->applying_history = TRUE;
  ok = plx_scenario_panel_load (self->panel, scenario != NULL ? scenario : def, dir, source, error);
  self->applying_history = FALSE;
  self->loading = FALSE;
  if (!ok)
    return FALSE;
  g_clear_pointer (&self->doc, plx_window_document_unref);
  self->doc = plx_window_document_new (file);
  plx_window_set_dirty (self, FALSE);
  text = scenario_text (self);
  plx_history_record_document (self->history, text, self->doc);
  plx_window_actions_update_history (self);
  return TRUE;
}

void
plx_window_on_panel_changed (PlxScenarioPanel *panel, PlxWindow *self)
{
  if (!self->loading)
    {
      plx_window_set_dirty (self, TRUE);
      rename_after_edit (self);
    }
  record_history (self);
  plx_window_recompute (self);
}

/* A load that is an edit (a model file, a search result, Swap): the step it recorded
 * carries the name it is renamed to. */
void
plx_window_edited_by_load (PlxWindow *self)
{
  plx_window_set_dirty (self, TRUE);
  if (rename_after_edit (self))
    {
      g_autofree char *text = scenario_text (self);
      plx_history_amend (self->history, text);
      plx_window_recompute (self);
    }
}

/* The Calibration page's cluster, put into the scenario as a user's edit of the
 * cluster would be: one step of the history. */
void
plx_window_on_use_cluster (PlxCalibrationPage *page, JsonNode *cluster, PlxWindow *self)
{
  plx_scenario_panel_set_cluster (self->panel, cluster);
  adw_toast_overlay_add_toast (self->toasts, adw_toast_new (_("The calibrated cluster is the scenario's now (Ctrl+Z undoes it)")));
}

static void
apply_history (PlxWindow *self, const char *text)
{
  g_autoptr (JsonNode) json = NULL;

  if (text == NULL)
    return;
  json = json_from_string (text, NULL);
  self->applying_history = TRUE;
  self->loading = TRUE;
  plx_scenario_panel_load (self->panel, json, plx_scenario_panel_get_base_dir (self->panel), _("scenario"), NULL);
  self->loading = FALSE;
  self->applying_history = FALSE;
  /* The step's own file: undoing an Open gives back the file it replaced. */
  g_clear_pointer (&self->doc, plx_window_document_unref);
  self->doc = plx_window_document_ref (plx_history_get_document (self->history));
  /* Undoing every edit since the file was opened or saved gives that file back: no
   * "•", and closing does not ask to save. */
  self->dirty = g_strcmp0 (text, self->doc->clean_text) != 0;
  plx_window_update_title (self);
  plx_window_actions_update_history (self);
}

void
plx_window_undo (PlxWindow *self)
{
  apply_history (self, plx_history_undo (self->history));
}

void
plx_window_redo (PlxWindow *self)
{
  apply_history (self, plx_history_redo (self->history));
}

/* ---- pinning, swapping, a search result chosen ---------------------------------------- */

void
plx_window_pin (PlxWindow *self)
{
  if (self->result == NULL)
    {
      plx_window_toast (self, _("Nothing to pin: the scenario is not valid"));
      return;
    }
  g_clear_pointer (&self->pinned, plx_result_unref);
  self->pinned = plx_result_ref (self->result);
  plx_chart_view_set_pinned (PLX_CHART_VIEW (self->charts[2]), self->pinned);
  adw_view_stack_page_set_visible (self->compare_page, TRUE);
  plx_window_actions_update_pin (self);
  {
    g_autofree char *msg = g_strdup_printf (_("Pinned as A: %s. Changes from now on are B."), self->result->scenario->name);
    plx_window_toast (self, msg);
  }
}

void
plx_window_swap (PlxWindow *self)
{
  g_autoptr (PlxResult) a = NULL;

  if (self->pinned == NULL || self->result == NULL)
    {
      plx_window_toast (self, _("Pin a scenario as A first (Ctrl+P)"));
      return;
    }
  /* A becomes current, the current one becomes A. */
  a = plx_result_ref (self->pinned);
  g_clear_pointer (&self->pinned, plx_result_unref);
  self->pinned = plx_result_ref (self->result);
  plx_chart_view_set_pinned (PLX_CHART_VIEW (self->charts[2]), self->pinned);
  self->loading = TRUE;
  plx_scenario_panel_load (self->panel, a->json, a->scenario_dir, a->scenario->source, NULL);
  self->loading = FALSE;
  plx_window_edited_by_load (self);
}

/* A search result becomes the scenario: its strategy (and GPU count) on the model,
 * cluster and batch it was searched for; shown on the timeline. */
void
plx_window_on_strategy_chosen (PlxSearchPage *page, JsonNode *scenario, guint rank, PlxWindow *self)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) before = plx_scenario_panel_get_json (self->panel);
  const char *source = self->result != NULL ? self->result->scenario->source : _("search result");
  gboolean was_dirty = self->dirty;

  self->loading = TRUE;
  if (!plx_scenario_panel_load (self->panel, scenario, plx_scenario_panel_get_base_dir (self->panel), source, &error))
    {
      self->loading = FALSE;
      plx_window_report_error (self, error->message);
      return;
    }
  self->loading = FALSE;
  plx_window_edited_by_load (self);
  g_clear_pointer (&self->before_choice, json_node_unref);
  self->before_choice = g_steal_pointer (&before);
  self->before_choice_dirty = was_dirty;
  adw_view_stack_set_visible_child_name (self->stack, "timeline");
  {
    /* Undo: the scenario as it was, for a choice made by a stray double-click. */
    g_autofree char *msg = g_strdup_printf (_("Loaded rank %u of the search"), rank);
    AdwToast *t = adw_toast_new (msg);
    adw_toast_set_timeout (t, 8);
    adw_toast_set_button_label (t, _("_Undo"));
    adw_toast_set_action_name (t, "win.undo-choice");
    adw_toast_overlay_add_toast (self->toasts, t);
  }
}

void
plx_window_undo_choice (PlxWindow *self)
{
  g_autoptr (JsonNode) before = g_steal_pointer (&self->before_choice);

  if (before == NULL)
    return;
  self->loading = TRUE;
  plx_scenario_panel_load (self->panel, before, plx_scenario_panel_get_base_dir (self->panel),
                           self->result != NULL ? self->result->scenario->source : _("scenario"), NULL);
  self->loading = FALSE;
  plx_window_set_dirty (self, self->before_choice_dirty);
}
