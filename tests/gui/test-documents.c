/* The scenario as a document, used as a person uses it (XTest clicks and keys): what
 * a user typed never vanishes without a question or an Undo (opening a file over it,
 * New, closing), the window closes cleanly after "Discard", and the scenario's name
 * follows the file it is opened from and saved to. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "plx-search-page.h"
#include "plx-window.h"
#include "gui-env.h"
#include "gui-input.h"
#include "gui-window.h"
#include "test-files.h"

/* Llama 2 7B on one DGX A100, TP 8: a scenario other than the built-in default. */
static const char *other_scenario =
  "{ \"name\": \"Llama plan\", \"model\": { \"preset\": \"llama-2-7b\" },\n"
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 },\n"
  "  \"strategy\": { \"tp\": 8, \"pp\": 1, \"global_batch_size\": 64, \"micro_batch_size\": 1,\n"
  "                \"seq_length\": 4096 } }\n";

/* The "Save Changes?" dialog on screen, or NULL. */
static GtkWidget *
message_dialog (void)
{
  GListModel *tops = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr (GtkWidget) top = g_list_model_get_item (tops, i);
      if (ADW_IS_MESSAGE_DIALOG (top) && gtk_widget_get_mapped (top))
        return top;
    }
  return NULL;
}

static gboolean
dialog_shown (gpointer data)
{
  return message_dialog () != NULL;
}

static gboolean
dialog_gone (gpointer data)
{
  return message_dialog () == NULL;
}

/* Waits for "Save Changes?" and clicks the button labelled `answer_label`; then gives
 * `w` the keyboard again (NULL: the window is closing). */
static void
answer (PlxWindow *w, const char *answer_label)
{
  GtkWidget *dialog, *button;

  g_assert_true (gi_wait (dialog_shown, NULL, 5000));
  dialog = message_dialog ();
  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog)), ==, "Save Changes?");
  gi_pump (200);
  gi_focus_window (GTK_WINDOW (dialog));
  button = gi_find_label (dialog, answer_label);
  g_assert_nonnull (button);
  gi_click (button);
  g_assert_true (gi_wait (dialog_gone, NULL, 5000));
  gi_pump (200);
  /* No window manager: the keyboard goes back to the window as a click would give it. */
  if (w != NULL)
    gi_focus_window (GTK_WINDOW (w));
}

static guint64
global_batch (PlxWindow *w)
{
  g_assert_nonnull (plx_window_get_result (w));
  return plx_window_get_result (w)->scenario->strategy->global_batch_size;
}

static guint
n_layers (PlxWindow *w)
{
  g_assert_nonnull (plx_window_get_result (w));
  return plx_window_get_result (w)->scenario->model->n_layers;
}

static void
undo (PlxWindow *w, gboolean redo)
{
  gi_focus_window (GTK_WINDOW (w));
  gi_key (redo ? "ctrl+shift" : "ctrl", XK_z);
  settle (w);
}

/* ---- 7. opening a file or New over an edited scenario asks, and Undo takes it back -- */

static void
test_open_over_edit (void)
{
  PlxWindow *w = open_window (1400, 900);
  g_autofree char *dir = test_make_tmp_dir ("plx-doc");
  g_autofree char *path = write_scenario (dir, "other.json", other_scenario);

  /* The default is GPT-3 175B (96 layers, Brown et al. 2020, Table 2.1); typed: a
   * global batch of 1024. */
  g_assert_cmpuint (n_layers (w), ==, 96);
  type_into_spin (w, "Global batch size", "1024");
  g_assert_cmpuint (global_batch (w), ==, 1024);
  g_assert_cmpstr (title (w), ==, "• Untitled scenario");

  /* Ctrl+O over it asks; Cancel keeps the edit. */
  open_by_keyboard (w, path);
  answer (w, "Cancel");
  settle (w);
  g_assert_cmpuint (n_layers (w), ==, 96);
  g_assert_cmpuint (global_batch (w), ==, 1024);
  g_assert_cmpstr (title (w), ==, "• Untitled scenario");

  /* Asked again, Discard: the file's scenario, Llama 2 7B (32 layers, Touvron et al.
   * 2023, Table 1), batch 64, clean. */
  open_by_keyboard (w, path);
  answer (w, "Discard");
  settle (w);
  g_assert_cmpuint (n_layers (w), ==, 32);
  g_assert_cmpuint (global_batch (w), ==, 64);
  g_assert_cmpstr (title (w), ==, "other.json");
  g_assert_false (plx_window_is_dirty (w));

  /* Undo: the edit is back, unsaved as it was; Redo: the file again, clean. */
  undo (w, FALSE);
  g_assert_cmpuint (n_layers (w), ==, 96);
  g_assert_cmpuint (global_batch (w), ==, 1024);
  g_assert_cmpstr (title (w), ==, "• Untitled scenario");
  g_assert_true (plx_window_is_dirty (w));
  undo (w, TRUE);
  g_assert_cmpuint (n_layers (w), ==, 32);
  g_assert_cmpstr (title (w), ==, "other.json");
  g_assert_false (plx_window_is_dirty (w));

  /* An edit of the file, then New (Ctrl+N): asked; Discard gives the default; Undo
   * the edited file, still unsaved. */
  type_into_spin (w, "Global batch size", "128");
  g_assert_cmpstr (title (w), ==, "• other.json");
  gi_focus_window (GTK_WINDOW (w));
  gi_key ("ctrl", XK_n);
  answer (w, "Discard");
  settle (w);
  g_assert_cmpuint (n_layers (w), ==, 96);
  g_assert_cmpstr (title (w), !=, "• other.json");
  g_assert_false (plx_window_is_dirty (w));
  undo (w, FALSE);
  g_assert_cmpuint (n_layers (w), ==, 32);
  g_assert_cmpuint (global_batch (w), ==, 128);
  g_assert_cmpstr (title (w), ==, "• other.json");

  /* Nothing edited since the last step: opening asks nothing. */
  undo (w, FALSE);
  g_assert_false (plx_window_is_dirty (w));
  open_by_keyboard (w, path);
  gi_pump (300);
  g_assert_null (message_dialog ());
  g_assert_cmpstr (title (w), ==, "other.json");

  close_window (w);
  test_rm_rf (dir);
}

/* ---- 8. Close, then Discard --------------------------------------------------------- */

/* The window behind the weak pointer at `data` is finalized. */
static gboolean
window_gone (gpointer data)
{
  return *(PlxWindow **) data == NULL;
}

static gboolean
is_close_button (GtkWidget *w, gconstpointer data)
{
  return GTK_IS_BUTTON (w) && gtk_widget_has_css_class (w, "close");
}

static void
test_close_discard (void)
{
  PlxWindow *w = open_window (1024, 700);
  GtkWidget *close;

  type_into_spin (w, "Global batch size", "1024");
  g_assert_true (plx_window_is_dirty (w));
  /* Not held: as in the application, the window's last reference goes with it. */
  g_object_add_weak_pointer (G_OBJECT (w), (gpointer *) &w);
  /* The title bar's close button, as a person clicks it. */
  close = gi_find (GTK_WIDGET (w), is_close_button, NULL);
  g_assert_nonnull (close);
  gi_click (close);
  /* Asked; Discard. Any GLib critical on the way ends the test (g_test makes them
   * fatal): destroyed inside the dialog's response, the window took the dialog with
   * it while it still handled the click. */
  answer (NULL, "Discard");
  g_assert_true (gi_wait (window_gone, &w, 5000));
  gi_pump (300);
}

/* ---- 15. the scenario's name follows its file -------------------------------------- */

static char *
cli_scenario_line (const char *path)
{
  const char *cli = g_getenv ("PLX_CLI");
  const char *argv[] = { cli, "simulate", path, NULL };
  g_autofree char *out = NULL;
  g_auto (GStrv) lines = NULL;
  int status = 0;

  g_assert_nonnull (cli);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                               &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "Scenario "))
      return g_strdup (g_strstrip (lines[i] + strlen ("Scenario ")));
  return NULL;
}

static void
test_name_follows_file (void)
{
  PlxWindow *w = open_window (1400, 900);
  g_autofree char *dir = test_make_tmp_dir ("plx-doc");
  g_autofree char *path = write_scenario (dir, "plan.json", other_scenario);
  g_autofree char *saved = g_build_filename (dir, "renamed.json", NULL);
  g_autofree char *line = NULL;
  g_autoptr (JsonNode) node = NULL;

  /* Opened: the file's own name. */
  open_by_keyboard (w, path);
  g_assert_cmpstr (plx_window_get_result (w)->scenario->name, ==, "Llama plan");
  /* Edited (TP 8 -> a batch of 32): "Llama plan" named what was opened; now it is
   * the file's scenario, named after the file. */
  type_into_spin (w, "Global batch size", "32");
  g_assert_cmpstr (plx_window_get_result (w)->scenario->name, ==, "plan");
  /* New, edited, saved (Ctrl+S asks where): named after the new file, in the window,
   * in the file and in the CLI's "Scenario" line. */
  gi_focus_window (GTK_WINDOW (w));
  gi_key ("ctrl", XK_n);
  answer (w, "Discard");
  settle (w);
  type_into_spin (w, "Global batch size", "1024");
  /* The default's name described the default; edited and untitled, the model's. */
  g_assert_cmpstr (plx_window_get_result (w)->scenario->name, ==, plx_window_get_result (w)->scenario->model->name);
  gi_focus_window (GTK_WINDOW (w));
  gi_key ("ctrl", XK_s);
  type_into_save_dialog (w, saved);
  g_assert_true (g_file_test (saved, G_FILE_TEST_IS_REGULAR));
  settle (w);
  g_assert_cmpstr (plx_window_get_result (w)->scenario->name, ==, "renamed");
  g_assert_cmpstr (title (w), ==, "renamed.json");
  {
    g_autofree char *text = NULL;
    g_assert_true (g_file_get_contents (saved, &text, NULL, NULL));
    node = json_from_string (text, NULL);
    g_assert_nonnull (node);
    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "name"), ==, "renamed");
  }
  line = cli_scenario_line (saved);
  g_assert_cmpstr (line, ==, "renamed");
  close_window (w);
  test_rm_rf (dir);
}

int
main (int argc, char **argv)
{
  char *home = gui_env_init (&argc, &argv);

  g_test_add_func ("/gui/documents/open-over-edit", test_open_over_edit);
  g_test_add_func ("/gui/documents/close-discard", test_close_discard);
  g_test_add_func ("/gui/documents/name-follows-file", test_name_follows_file);
  return gui_env_finish (home, g_test_run ());
}
