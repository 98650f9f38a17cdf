/* Files to and from the window (plx-window-private.h): opening a scenario, a model,
 * a config or a graph, saving the scenario and exporting a chart, each to a path
 * given (the dialogs that ask for it are plx-window-dialogs.c); the recent files; and
 * where a file's error is shown. */
#include <glib/gi18n-lib.h>

#include "plx-window-private.h"
#include "base/plx-json.h"
#include "optimize/plx-advice.h"

/* ---- recent files and errors ------------------------------------------------------------ */

/* The "Open Recent" menu, from GSettings (newest first, at most eight). */
void
plx_window_rebuild_recent_menu (PlxWindow *self)
{
  g_auto (GStrv) files = NULL;

  if (self->recent_section == NULL)
    return;
  g_menu_remove_all (self->recent_section);
  if (self->settings == NULL)
    return;
  files = g_settings_get_strv (self->settings, "recent-files");
  for (guint i = 0; files[i] != NULL; i++)
    {
      g_autofree char *base = g_path_get_basename (files[i]);
      g_autoptr (GMenuItem) item = g_menu_item_new (base, NULL);
      g_menu_item_set_action_and_target_value (item, "win.open-recent", g_variant_new_string (files[i]));
      g_menu_append_item (self->recent_section, item);
    }
}

static void
remember_file (PlxWindow *self, const char *path)
{
  g_auto (GStrv) old = NULL;
  g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
  g_auto (GStrv) files = NULL;
  guint n = 1;

  gtk_recent_manager_add_item (gtk_recent_manager_get_default (), g_filename_to_uri (path, NULL, NULL));
  if (self->settings == NULL)
    return;
  old = g_settings_get_strv (self->settings, "recent-files");
  g_strv_builder_add (b, path);
  for (guint i = 0; old[i] != NULL && n < 8; i++)
    if (g_strcmp0 (old[i], path) != 0)
      {
        g_strv_builder_add (b, old[i]);
        n++;
      }
  files = g_strv_builder_end (b);
  g_settings_set_strv (self->settings, "recent-files", (const char *const *) files);
  g_settings_set_string (self->settings, "last-scenario", path);
  plx_window_rebuild_recent_menu (self);
}

/* A toast's title is Pango markup: a message with "<data>" or "&" in it would show
 * empty, so the text is escaped. Toasts are for what went well; errors use
 * report_error. */
void
plx_window_toast (PlxWindow *self, const char *message)
{
  g_autofree char *escaped = g_markup_escape_text (message, -1);
  AdwToast *t = adw_toast_new (escaped);
  adw_toast_set_timeout (t, 8);
  adw_toast_overlay_add_toast (self->toasts, t);
}

/* An error from a file (open, save, export): it may be long (an unknown preset lists
 * the known ones) and the user may need to read it twice, so it stays above the
 * cards until dismissed or until the next file succeeds. */
void
plx_window_report_error (PlxWindow *self, const char *message)
{
  gtk_label_set_text (self->file_label, message);
  gtk_revealer_set_reveal_child (self->file_revealer, TRUE);
}

const char *
plx_window_get_file_error (PlxWindow *self)
{
  return gtk_revealer_get_reveal_child (self->file_revealer) ? gtk_label_get_text (self->file_label) : NULL;
}

/* ---- opening, saving, exporting ------------------------------------------------------- */

/* The scenario's cluster, as the panel has it now, and as JSON text. */
static PlxCluster *
current_cluster (PlxWindow *self, char **text)
{
  g_autoptr (JsonNode) json = plx_scenario_panel_get_json (self->panel);
  JsonNode *cluster = json_object_get_member (json_node_get_object (json), "cluster");

  if (text != NULL)
    *text = cluster != NULL ? json_to_string (cluster, FALSE) : NULL;
  return cluster != NULL ? plx_cluster_new_from_json (cluster, "cluster", NULL) : NULL;
}

/* A graph or ONNX model: its own page, on the scenario's cluster; the scenario
 * stays as it was. */
static gboolean
open_graph (PlxWindow *self, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr (PlxCluster) cluster = current_cluster (self, &text);

  if (cluster == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   _("%s: the scenario's cluster has an error; fix it to run the graph on it"), path);
      return FALSE;
    }
  if (!plx_graph_page_open (self->graph_page, path, cluster, error))
    return FALSE;
  g_free (self->graph_cluster);
  self->graph_cluster = g_steal_pointer (&text);
  adw_view_stack_page_set_visible (self->graph_stack_page, TRUE);
  adw_view_stack_set_visible_child_name (self->stack, "graph");
  gtk_revealer_set_reveal_child (self->file_revealer, FALSE);
  return TRUE;
}

gboolean
plx_window_open_file (PlxWindow  *self,
                      GFile      *file,
                      GError    **error)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *dir = NULL;
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (JsonNode) scenario = NULL;
  JsonObject *root;
  gboolean ok;

  if (path == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_IO, _("%s: only local files can be opened"), g_file_peek_path (file));
      return FALSE;
    }
  if (g_str_has_suffix (path, ".onnx"))
    return open_graph (self, path, error);
  node = plx_json_parse_file (path, error);
  if (node == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, _("%s: not a scenario, model or config (not a JSON object)"), path);
      return FALSE;
    }
  dir = g_path_get_dirname (path);
  root = json_node_get_object (node);
  /* A graph of ops (docs/graph-format.md) has ops and no model. */
  if (json_object_has_member (root, "ops") && !json_object_has_member (root, "model"))
    return open_graph (self, path, error);
  if (json_object_has_member (root, "model") && json_object_has_member (root, "cluster"))
    scenario = json_node_ref (node);
  else
    {
      /* A Hugging Face config.json (or a model file): keep the cluster and strategy,
       * take the model from the file. */
      g_autoptr (JsonNode) current = plx_scenario_panel_get_json (self->panel);
      JsonObject *m = json_object_new ();
      g_autoptr (PlxModel) check = plx_model_new_from_json (node, path, error);
      JsonObject *root_obj = json_node_get_object (current);
      g_autoptr (PlxCluster) cluster = NULL;
      JsonNode *adapted = NULL;

      if (check == NULL)
        {
          json_object_unref (m);
          return FALSE;
        }

      json_object_set_string_member (m, "hf_config", path);
      json_object_set_object_member (root_obj, "model", m);
      /* The strategy is kept and adapted as for a preset: what is still valid stays
       * (the sequence length too, if the model takes it), the rest moves to the
       * nearest valid value. */
      cluster = plx_cluster_new_from_json (json_object_get_member (root_obj, "cluster"), "cluster", NULL);
      if (cluster != NULL)
        adapted = plx_advice_adapt_strategy (check, cluster, json_object_get_member (root_obj, "strategy"));
      if (adapted != NULL)
        json_object_set_member (root_obj, "strategy", adapted);
      else
        json_object_remove_member (json_object_get_object_member (root_obj, "strategy"), "dp");
      scenario = g_steal_pointer (&current);
    }

  if (scenario == node)
    {
      /* A scenario file: a document of its own, one step of the history. */
      if (!plx_window_replace_scenario (self, scenario, dir, path, file, error))
        return FALSE;
      remember_file (self, path);
    }
  else
    {
      /* A model: an edit of the scenario, as choosing a model is. */
      self->loading = TRUE;
      ok = plx_scenario_panel_load (self->panel, scenario, dir, path, error);
      self->loading = FALSE;
      if (!ok)
        return FALSE;
      plx_window_edited_by_load (self);
    }
  gtk_revealer_set_reveal_child (self->file_revealer, FALSE);
  plx_window_update_title (self);
  return TRUE;
}

gboolean
plx_window_save_to (PlxWindow  *self,
                    GFile      *file,
                    GError    **error)
{
  g_autoptr (JsonNode) json = NULL;
  g_autofree char *path = g_file_get_path (file);
  g_autoptr (GError) local = NULL;
  g_autofree char *old_name = g_strdup (plx_scenario_panel_get_name (self->panel));
  gboolean renamed = FALSE;

  /* Save As renames the scenario after its new file. */
  if (self->doc->file == NULL || !g_file_equal (file, self->doc->file))
    {
      g_autofree char *name = plx_window_name_of_file (file);
      renamed = g_strcmp0 (name, old_name) != 0;
      plx_scenario_panel_set_name (self->panel, name);
    }
  json = plx_scenario_panel_get_json (self->panel);
  /* As the CLI writes files (docs/formats.md, "Output files"): atomic for a regular
   * file, a symlink's target written, numbers JSON accepts (never 1e+17.0). */
  if (path == NULL || !plx_json_write_file (json, path, &local))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_IO, _("%s: cannot save: %s"), path ? path : "?",
                   local ? local->message : _("not a local file"));
      plx_scenario_panel_set_name (self->panel, old_name);
      return FALSE;
    }
  g_set_object (&self->doc->file, file);
  plx_window_set_dirty (self, FALSE);
  /* The step shown is the saved text, new name and all: Undo and Redo back to it
   * are clean. */
  plx_history_amend (self->history, self->doc->clean_text);
  remember_file (self, path);
  /* The result's scenario carries the name (the Sensitivity chart's title). */
  if (renamed)
    plx_window_recompute (self);
  return TRUE;
}

gboolean
plx_window_export_chart (PlxWindow  *self,
                         const char *which,
                         const char *path,
                         GError    **error)
{
  PlxExportOptions o = { 0, 0, 1.0, -1, FALSE };
  return plx_window_export_chart_with (self, which, path, &o, error);
}

gboolean
plx_window_export_chart_with (PlxWindow              *self,
                              const char             *which,
                              const char             *path,
                              const PlxExportOptions *options,
                              GError                **error)
{
  g_autofree char *title = NULL;

  /* The Reshard page's chart needs only its own plan (and draws its own summary). */
  if (g_str_equal (which, "reshard"))
    return plx_reshard_page_export (self->reshard_page, path, options->width, options->height, options->scale,
                                    options->dark, error);
  if (g_str_equal (which, "sensitivity"))
    return plx_sensitivity_page_export (self->sensitivity_page, path, options->width, options->height, options->scale,
                                        options->dark, error);
  if (g_str_equal (which, "calibration"))
    return plx_calibration_page_export (self->calibration_page, path, options->width, options->height, options->scale,
                                        options->dark, error);
  if (self->result == NULL && !g_str_equal (which, "scatter"))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, _("%s: nothing to export until the scenario is valid"), path);
      return FALSE;
    }
  if (g_str_equal (which, "scatter"))
    return plx_scatter_view_export (plx_search_page_get_scatter (self->search_page), path, error);
  if (g_str_equal (which, "trace"))
    return plx_timeline_write_chrome_trace (self->result->timeline, self->result->trace, path, error);
  for (guint i = 0; i < 3; i++)
    if (plx_window_chart_index (which) == (int) i)
      {
        if (i == 2 && self->pinned == NULL)
          {
            g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, _("%s: pin a scenario as A first (Ctrl+P)"), path);
            return FALSE;
          }
        if (options->with_title && i != 2)
          title = plx_scenario_describe (self->result->scenario);
        return plx_chart_view_export_with (PLX_CHART_VIEW (self->charts[i]), path, options->width, options->height,
                                           options->scale, options->dark, title, error);
      }
  g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "unknown chart \"%s\"", which);
  return FALSE;
}
