/* The window's dialogs (plx-window-private.h): the file choosers that ask where to
 * open, save or export (GtkFileChooserNative: GTK 4.8 has no GtkFileDialog), and
 * "Save Changes?" before unsaved changes would be lost (closing, opening a scenario
 * over them, New). */
#include <glib/gi18n-lib.h>

#include "plx-window-private.h"
#include "base/plx-json.h"

/* ---- file choosers: open, save, export --------------------------------------------- */

static void
on_open_response (GtkNativeDialog *dialog, int response, PlxWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      plx_window_ask_then_replace (self, file);
    }
  g_object_unref (dialog);
}

typedef enum
{
  FILES_SCENARIO,     /* what Save writes */
  FILES_OPEN,         /* what Open reads: scenarios, models, configs, graphs */
  FILES_IMAGES,
} FileKinds;

static void replace_now (PlxWindow *self);

static void
add_filters (GtkFileChooser *chooser, FileKinds kinds)
{
  g_autoptr (GtkFileFilter) f = gtk_file_filter_new ();

  if (kinds == FILES_IMAGES)
    {
      gtk_file_filter_set_name (f, _("PNG, SVG or PDF"));
      gtk_file_filter_add_suffix (f, "png");
      gtk_file_filter_add_suffix (f, "svg");
      gtk_file_filter_add_suffix (f, "pdf");
    }
  else if (kinds == FILES_OPEN)
    {
      gtk_file_filter_set_name (f, _("Scenarios, models and graphs (JSON, ONNX)"));
      gtk_file_filter_add_suffix (f, "json");
      gtk_file_filter_add_suffix (f, "onnx");
    }
  else
    {
      gtk_file_filter_set_name (f, _("JSON files"));
      gtk_file_filter_add_suffix (f, "json");
    }
  gtk_file_chooser_add_filter (chooser, f);
}

void
plx_window_choose_file_to_open (PlxWindow *self)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Open a Scenario, Model or Config"), GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));

  add_filters (GTK_FILE_CHOOSER (dialog), FILES_OPEN);
  {
    /* Start where the current scenario lives (or the working directory), rather than
     * in the recent files, where a typed path is not taken. */
    g_autoptr (GFile) dir = g_file_new_for_path (plx_scenario_panel_get_base_dir (self->panel));
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (dialog), dir, NULL);
  }
  g_signal_connect (dialog, "response", G_CALLBACK (on_open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static gboolean
destroy_idle (gpointer window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  return G_SOURCE_REMOVE;
}

/* Closes the window once the dialog that asked has finished with the click: destroyed
 * inside the dialog's "response", the window took the dialog with it while the
 * dialog was still handling the click (GLib criticals). */
static void
destroy_later (PlxWindow *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
  g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, destroy_idle, g_object_ref (self), g_object_unref);
}

/* Saved (or not) as "Save Changes?" asked: now what waited for it. */
static void
go_on (PlxWindow *self, Then what)
{
  if (what == THEN_CLOSE)
    destroy_later (self);
  else if (what == THEN_REPLACE)
    replace_now (self);
}

static void
on_save_response (GtkNativeDialog *dialog, int response, PlxWindow *self)
{
  Then what = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (dialog), "then"));

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autoptr (GError) error = NULL;
      if (!plx_window_save_to (self, file, &error))
        plx_window_report_error (self, error->message);
      else
        go_on (self, what);
    }
  g_object_unref (dialog);
}

void
plx_window_save_as (PlxWindow *self, Then what)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Save Scenario"), GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));

  add_filters (GTK_FILE_CHOOSER (dialog), FILES_SCENARIO);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), "scenario.json");
  g_object_set_data (G_OBJECT (dialog), "then", GINT_TO_POINTER (what));
  g_signal_connect (dialog, "response", G_CALLBACK (on_save_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* Save: to the scenario's file, or asking where if it has none. */
void
plx_window_save (PlxWindow *self)
{
  g_autoptr (GError) error = NULL;

  if (self->doc->file == NULL)
    plx_window_save_as (self, THEN_NOTHING);
  else if (!plx_window_save_to (self, self->doc->file, &error))
    plx_window_report_error (self, error->message);
}

static void
on_export_response (GtkNativeDialog *dialog, int response, PlxWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);
      g_autoptr (GError) error = NULL;
      const char *which = g_object_get_data (G_OBJECT (dialog), "which");
      PlxExportOptions o = { 0, 0, 1.0, -1, FALSE };
      const char *size = gtk_file_chooser_get_choice (GTK_FILE_CHOOSER (dialog), "size");
      const char *theme = gtk_file_chooser_get_choice (GTK_FILE_CHOOSER (dialog), "theme");
      const char *title = gtk_file_chooser_get_choice (GTK_FILE_CHOOSER (dialog), "title");

      if (size != NULL && sscanf (size, "%lfx%lf@%lf", &o.width, &o.height, &o.scale) != 3)
        o.width = o.height = 0, o.scale = 1.0;
      if (theme != NULL)
        o.dark = g_str_equal (theme, "dark") ? 1 : g_str_equal (theme, "light") ? 0 : -1;
      o.with_title = g_strcmp0 (title, "scenario") == 0;
      if (path == NULL || !plx_window_export_chart_with (self, which, path, &o, &error))
        plx_window_report_error (self, error ? error->message : _("Only local files can be written"));
      else
        {
          g_autofree char *msg = g_strdup_printf (_("Exported %s"), path);
          plx_window_toast (self, msg);
        }
    }
  g_object_unref (dialog);
}

/* The export dialog for the chart `which` (NULL or "": the one on screen). */
void
plx_window_choose_export (PlxWindow  *self,
                          const char *which)
{
  GtkFileChooserNative *dialog;
  gboolean trace;

  /* Ctrl+E exports what is on screen. */
  if (which == NULL || *which == '\0')
    {
      const char *page = adw_view_stack_get_visible_child_name (self->stack);
      which = g_strcmp0 (page, "memory") == 0    ? "memory"
              : g_strcmp0 (page, "compare") == 0 ? "compare"
              : g_strcmp0 (page, "search") == 0  ? "scatter"
              : g_strcmp0 (page, "reshard") == 0 ? "reshard"
              : g_strcmp0 (page, "sensitivity") == 0 ? "sensitivity"
              : g_strcmp0 (page, "calibration") == 0 ? "calibration"
                                                 : "timeline";
    }
  trace = g_str_equal (which, "trace");
  dialog = gtk_file_chooser_native_new (trace ? _("Export Chrome Trace") : _("Export Chart"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  add_filters (GTK_FILE_CHOOSER (dialog), trace ? FILES_SCENARIO : FILES_IMAGES);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), trace                             ? "trace.json"
                                                                 : g_str_equal (which, "memory")  ? "memory.png"
                                                                 : g_str_equal (which, "compare") ? "compare.png"
                                                                 : g_str_equal (which, "scatter") ? "search.png"
                                                                 : g_str_equal (which, "reshard") ? "reshard.png"
                                                                 : g_str_equal (which, "sensitivity") ? "sensitivity.png"
                                                                 : g_str_equal (which, "calibration") ? "calibration.png"
                                                                                                  : "timeline.png");
  if (!trace && !g_str_equal (which, "scatter"))
    {
      gboolean titled = !g_str_equal (which, "reshard") && !g_str_equal (which, "sensitivity") &&
                        !g_str_equal (which, "calibration");
      /* The options the CLI has (--width, --height, --scale, --dark, a title), as the
       * file chooser's choices, so an export is one dialog. */
      static const char *const size_ids[] = { "0x0@1", "1600x900@1", "1920x1080@1", "1920x1080@2", NULL };
      const char *size_labels[] = { _("As on screen"), "1600 × 900", "1920 × 1080", _("1920 × 1080 at 2× (HiDPI)"), NULL };
      static const char *const theme_ids[] = { "screen", "light", "dark", NULL };
      const char *theme_labels[] = { _("As on screen"), _("Light"), _("Dark"), NULL };
      static const char *const title_ids[] = { "scenario", "chart", NULL };
      const char *title_labels[] = { _("The scenario"), _("The chart's own"), NULL };
      gtk_file_chooser_add_choice (GTK_FILE_CHOOSER (dialog), "size", _("Size"), (const char **) size_ids, size_labels);
      gtk_file_chooser_set_choice (GTK_FILE_CHOOSER (dialog), "size", "0x0@1");
      gtk_file_chooser_add_choice (GTK_FILE_CHOOSER (dialog), "theme", _("Background"), (const char **) theme_ids,
                                   theme_labels);
      gtk_file_chooser_set_choice (GTK_FILE_CHOOSER (dialog), "theme", "screen");
      /* The Reshard chart's title is its own summary: no choice to offer. */
      if (titled)
        {
          gtk_file_chooser_add_choice (GTK_FILE_CHOOSER (dialog), "title", _("Title"), (const char **) title_ids,
                                       title_labels);
          gtk_file_chooser_set_choice (GTK_FILE_CHOOSER (dialog), "title", "scenario");
        }
    }
  g_object_set_data_full (G_OBJECT (dialog), "which", g_strdup (which), g_free);
  g_signal_connect (dialog, "response", G_CALLBACK (on_export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* ---- unsaved changes: closing, opening over them, New ------------------------------ */

/* "Save Changes?" with Cancel, Discard and Save; `body` says what Discard loses to. */
static GtkWidget *
save_changes_dialog (PlxWindow *self, const char *body)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Save Changes?"), body);

  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"), "discard", _("_Discard"),
                                    "save", _("_Save"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "discard", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  return dialog;
}

/* Discard goes on with `what`; Save saves first (asking where, if the scenario has
 * no file yet) and goes on once saved. */
static void
answer_save_changes (PlxWindow *self, const char *response, Then what)
{
  g_autoptr (GError) error = NULL;

  if (g_str_equal (response, "discard"))
    {
      if (what == THEN_CLOSE)
        plx_window_set_dirty (self, FALSE);
      go_on (self, what);
    }
  else if (g_str_equal (response, "save"))
    {
      if (self->doc->file == NULL)
        plx_window_save_as (self, what);
      else if (plx_window_save_to (self, self->doc->file, &error))
        go_on (self, what);
      else
        plx_window_report_error (self, error->message);
    }
  else
    g_clear_object (&self->replace_with);
}

static void
on_close_response (AdwMessageDialog *dialog, const char *response, PlxWindow *self)
{
  answer_save_changes (self, response, THEN_CLOSE);
}

static void
on_replace_response (AdwMessageDialog *dialog, const char *response, PlxWindow *self)
{
  answer_save_changes (self, response, THEN_REPLACE);
}

/* Opens the file waiting for "Save Changes?" (or New). */
static void
replace_now (PlxWindow *self)
{
  g_autoptr (GFile) file = g_steal_pointer (&self->replace_with);
  g_autoptr (GError) error = NULL;

  if (self->replace_new)
    {
      g_autofree char *cwd = g_get_current_dir ();
      self->replace_new = FALSE;
      plx_window_replace_scenario (self, NULL, cwd, _("built-in default scenario"), NULL, NULL);
      gtk_revealer_set_reveal_child (self->file_revealer, FALSE);
    }
  else if (file != NULL && !plx_window_open_file (self, file, &error))
    plx_window_report_error (self, error->message);
}

/* Whether opening `file` would replace the scenario: a scenario file does; a model or
 * config changes only the model (an edit), a graph opens its own page, and a file
 * that cannot be read changes nothing (its error says why). */
static gboolean
replaces_scenario (GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autoptr (JsonNode) node = NULL;

  if (path == NULL || g_str_has_suffix (path, ".onnx"))
    return FALSE;
  node = plx_json_parse_file (path, NULL);
  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) &&
         json_object_has_member (json_node_get_object (node), "model") &&
         json_object_has_member (json_node_get_object (node), "cluster");
}

/* Opening a scenario file (Ctrl+O, Open Recent, a drop) or New over unsaved changes
 * asks first, as closing does; either way the replacement is a step that Undo takes
 * back. `file` NULL: New. */
void
plx_window_ask_then_replace (PlxWindow *self, GFile *file)
{
  GtkWidget *dialog;
  g_autofree char *body = NULL;

  g_clear_object (&self->replace_with);
  self->replace_with = file != NULL ? g_object_ref (file) : NULL;
  self->replace_new = file == NULL;
  if (!self->dirty || (file != NULL && !replaces_scenario (file)))
    {
      replace_now (self);
      return;
    }
  if (file != NULL)
    {
      g_autofree char *base = g_file_get_basename (file);
      /* TRANSLATORS: %s is the file about to be opened. */
      body = g_strdup_printf (_("The scenario has changes that are not saved. Opening %s replaces it; Undo "
                                "(Ctrl+Z) brings it back until the window is closed."),
                              base);
    }
  else
    body = g_strdup (_("The scenario has changes that are not saved. New replaces it with the default scenario; "
                       "Undo (Ctrl+Z) brings it back until the window is closed."));
  dialog = save_changes_dialog (self, body);
  g_signal_connect (dialog, "response", G_CALLBACK (on_replace_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* Closing with unsaved changes: asked first. */
void
plx_window_ask_before_closing (PlxWindow *self)
{
  GtkWidget *dialog = save_changes_dialog (self, _("The scenario has changes that are not saved. Unsaved changes are lost."));

  g_signal_connect (dialog, "response", G_CALLBACK (on_close_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
}
