/* test-diff-cards.c: the window's path of the differential test (docs/differential.md).
 * A handful of scenario files - the examples and two published cases - opened as a
 * person opens them (Ctrl+O, the path typed into the file chooser, Enter; XTest input
 * through the X server, tests/gui/gui-input.h), and the step time, MFU and peak
 * memory cards' text read off the window and held to `parallax-cli simulate --json`
 * (the window runs the event engine) at the digits the cards print. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "plx-window.h"
#include "../gui/gui-env.h"
#include "../gui/gui-input.h"
#include "../test-files.h"
#include "diff-figures.h"

static gboolean
computed (gpointer data)
{
  PlxWindow *w = data;
  return !plx_window_is_busy (w) && (plx_window_get_result (w) != NULL || plx_window_get_error (w) != NULL);
}

static gboolean
toplevels_mapped (gpointer data)
{
  GListModel *tops = gtk_window_get_toplevels ();
  guint mapped = 0;

  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr (GtkWidget) top = g_list_model_get_item (tops, i);
      mapped += gtk_widget_get_mapped (top);
    }
  return mapped == GPOINTER_TO_UINT (data);
}

/* Ctrl+O; in the file chooser Ctrl+L, the path, Enter (a second Enter if a
 * completion popup took the first). */
static void
open_by_keyboard (PlxWindow *w, const char *path)
{
  GListModel *tops = gtk_window_get_toplevels ();
  GtkWidget *dialog = NULL;

  gi_focus_window (GTK_WINDOW (w));
  gi_key ("ctrl", XK_o);
  g_assert_true (gi_wait (toplevels_mapped, GUINT_TO_POINTER (2), 5000));
  gi_pump (300);
  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr (GtkWindow) top = g_list_model_get_item (tops, i);
      if (top != GTK_WINDOW (w) && gtk_widget_get_mapped (GTK_WIDGET (top)))
        dialog = GTK_WIDGET (top);
    }
  g_assert_nonnull (dialog);
  /* No window manager under Xvfb: the dialog gets the keyboard as a click would give it. */
  gi_focus_window (GTK_WINDOW (dialog));
  gi_key ("ctrl", XK_l);
  gi_type (path);
  gi_pump (300);
  gi_key (NULL, XK_Return);
  if (!gi_wait (toplevels_mapped, GUINT_TO_POINTER (1), 1000))
    gi_key (NULL, XK_Return);
  g_assert_true (gi_wait (toplevels_mapped, GUINT_TO_POINTER (1), 5000));
  gi_pump (300);
  g_assert_true (gi_wait (computed, w, 20000));
  gi_pump (200);
}

/* A card's title: a label of that text in a box styled "card" (other pages have
 * labels and column headings of the same words). */
static gboolean
match_card_title (GtkWidget *w, gconstpointer title)
{
  return gi_match_label (w, title) && gtk_widget_has_css_class (gtk_widget_get_parent (w), "card");
}

/* The big number of the card titled `title`: the label after the title's. */
static const char *
card_value (PlxWindow *w, const char *title)
{
  GtkWidget *t = gi_find (GTK_WIDGET (w), match_card_title, title);

  g_assert_nonnull (t);
  g_assert_true (GTK_IS_LABEL (gtk_widget_get_next_sibling (t)));
  return gtk_label_get_text (GTK_LABEL (gtk_widget_get_next_sibling (t)));
}

static JsonObject *
cli_json (const char *path)
{
  const char *argv[] = { g_getenv ("PLX_CLI"), "simulate", "--json", "--engine", "event", path, NULL };
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  return json_object_ref (json_node_get_object (json_parser_get_root (parser)));
}

static void
assert_card (PlxWindow *w, const char *file, const char *title, double json)
{
  const char *text = card_value (w, title);
  double value = 0.0, half = 0.0;

  if (!diff_read_figure (text, &value, &half))
    g_error ("%s: the %s card shows \"%s\", not a figure with a unit", file, title, text);
  if (!diff_within_print (value, half, json))
    g_error ("%s: the %s card shows \"%s\", the CLI's JSON says %.17g", file, title, text, json);
}

/* A published case's scenario (tests/data), written where the test can type its path. */
static char *
validation_scenario (const char *dir, const char *table, guint index)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "data", table, NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL, *name = g_strdup_printf ("case-%u-%s", index, table);
  JsonArray *list;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  list = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "cases");
  text = json_to_string (json_object_get_member (json_array_get_object_element (list, index), "scenario"), TRUE);
  return test_write_file (dir, name, text, -1);
}

static void
test_cards (void)
{
  static const char *const examples[] = {
    "gpt3-1f1b-full.json", "gpt3-interleaved-selective.json", "megatron-1t-3072.json",
  };
  /* The GUI tests type paths under /tmp, which stays short (docs/gui-testing.md). */
  g_autofree char *dir = g_dir_make_tmp ("plx-cards-XXXXXX", NULL);
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  PlxWindow *w = plx_window_new (NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (examples); i++)
    {
      g_autofree char *src = g_test_build_filename (G_TEST_DIST, "..", "..", "examples", examples[i], NULL);
      g_autofree char *text = NULL;

      g_assert_true (g_file_get_contents (src, &text, NULL, NULL));
      g_ptr_array_add (files, test_write_file (dir, examples[i], text, -1));
    }
  g_ptr_array_add (files, validation_scenario (dir, "korthikanti2022.json", 0));
  g_ptr_array_add (files, validation_scenario (dir, "torchtitan-a100.json", 0));

  gtk_window_set_default_size (GTK_WINDOW (w), 1400, 900);
  gtk_window_present (GTK_WINDOW (w));
  g_assert_true (gi_wait (computed, w, 20000));
  for (guint i = 0; i < files->len; i++)
    {
      const char *file = files->pdata[i];
      g_autoptr (JsonObject) cli = cli_json (file);

      open_by_keyboard (w, file);
      g_assert_null (plx_window_get_error (w));
      g_assert_null (plx_window_get_file_error (w));
      assert_card (w, file, "Step time", json_object_get_double_member (cli, "step_time_s"));
      assert_card (w, file, "MFU", json_object_get_double_member (cli, "mfu"));
      assert_card (w, file, "Peak memory", (double) json_object_get_int_member (cli, "peak_memory_bytes"));
      g_test_message ("%s: cards %s, %s, %s", file, card_value (w, "Step time"), card_value (w, "MFU"),
                      card_value (w, "Peak memory"));
    }
  gtk_window_destroy (GTK_WINDOW (w));
  gi_pump (50);
  test_rm_rf (dir);
}

int
main (int argc, char **argv)
{
  char *home = gui_env_init (&argc, &argv);

  g_test_add_func ("/diff/window-cards", test_cards);
  return gui_env_finish (home, g_test_run ());
}
