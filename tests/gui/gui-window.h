/* gui-window.h: the window as the GUI tests open, wait for, type into and close it;
 * shared by test-use.c and the tests beside it. Needs gui-input.h first. */
#pragma once

#include <adwaita.h>
#include <stdlib.h>

#include "plx-scenario-panel.h"
#include "plx-search-page.h"
#include "plx-window.h"
#include "gui-input.h"
#include "test-files.h"

/* ---- the window ------------------------------------------------------------------- */

G_GNUC_UNUSED static gboolean
computed (gpointer data)
{
  PlxWindow *w = data;
  return !plx_window_is_busy (w) && (plx_window_get_result (w) != NULL || plx_window_get_error (w) != NULL);
}

G_GNUC_UNUSED static void
settle (PlxWindow *w)
{
  g_assert_true (gi_wait (computed, w, 10000));
  gi_pump (200);
}

G_GNUC_UNUSED static PlxWindow *
open_window (int width, int height)
{
  PlxWindow *w = plx_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (w), width, height);
  gtk_window_present (GTK_WINDOW (w));
  settle (w);
  gi_focus_window (GTK_WINDOW (w));
  return w;
}

G_GNUC_UNUSED static void
close_window (PlxWindow *w)
{
  gtk_window_destroy (GTK_WINDOW (w));
  gi_pump (50);
}

G_GNUC_UNUSED static GtkWidget *
panel (PlxWindow *w)
{
  return plx_window_get_panel (w);
}

/* A folded-away row (inside "Dimensions" or "GPU and network"): clicked open. */
G_GNUC_UNUSED static gboolean
gi_match_folded (GtkWidget *w, gconstpointer data)
{
  return ADW_IS_EXPANDER_ROW (w) && !adw_expander_row_get_expanded (ADW_EXPANDER_ROW (w));
}

/* The panel's row titled `title`, as a person finds it: if it is not in sight, the
 * folded groups are clicked open one by one until it is. NULL if there is none. */
G_GNUC_UNUSED static GtkWidget *
panel_row (PlxWindow *w, const char *title)
{
  GtkWidget *row = gi_find_row (panel (w), title), *folded;

  while (row == NULL && (folded = gi_find (panel (w), gi_match_folded, NULL)) != NULL)
    {
      /* The header, not the middle of a list that opens under it. */
      gi_click_at (folded, gtk_widget_get_width (folded) / 2.0, 20.0);
      gi_pump (300);
      g_assert_true (adw_expander_row_get_expanded (ADW_EXPANDER_ROW (folded)));
      row = gi_find_row (panel (w), title);
    }
  return row;
}

/* The text a degree slider shows beside it. */
G_GNUC_UNUSED static const char *
slider_text (PlxWindow *w, const char *title)
{
  GtkWidget *row = panel_row (w, title);
  GtkWidget *scale = gi_find_type (row, GTK_TYPE_SCALE);
  GtkWidget *label = gi_find_type (scale, GTK_TYPE_LABEL);

  g_assert_nonnull (label);
  return gtk_label_get_text (GTK_LABEL (label));
}

G_GNUC_UNUSED static const char *
row_subtitle (PlxWindow *w, const char *title)
{
  GtkWidget *row = panel_row (w, title);

  g_assert_nonnull (row);
  return adw_action_row_get_subtitle (ADW_ACTION_ROW (row));
}

G_GNUC_UNUSED static char *
write_scenario (const char *dir, const char *name, const char *json)
{
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  return path;
}

G_GNUC_UNUSED static const char *
title (PlxWindow *w)
{
  GtkWidget *t = gi_find_type (GTK_WIDGET (w), ADW_TYPE_WINDOW_TITLE);
  return adw_window_title_get_title (ADW_WINDOW_TITLE (t));
}

G_GNUC_UNUSED static const char *
subtitle (PlxWindow *w)
{
  GtkWidget *title = gi_find_type (GTK_WIDGET (w), ADW_TYPE_WINDOW_TITLE);
  return adw_window_title_get_subtitle (ADW_WINDOW_TITLE (title));
}

/* Clicks the view switcher's tab labelled `label`; asserts it shows `page`. */
G_GNUC_UNUSED static void
click_tab (PlxWindow *w, const char *label, const char *page)
{
  GtkWidget *tab = gtk_widget_get_ancestor (gi_find_label (GTK_WIDGET (w), label), GTK_TYPE_TOGGLE_BUTTON);

  g_assert_nonnull (tab);
  gi_click (tab);
  gi_pump (200);
  g_assert_cmpstr (plx_window_get_page (w), ==, page);
}

/* ---- typing into a spin row ------------------------------------------------------ */

G_GNUC_UNUSED static gboolean
has_focus (gpointer widget)
{
  return gtk_widget_has_focus (GTK_WIDGET (widget));
}

/* Clicks a text field and waits for its cursor, as a person does before typing:
 * GTK 4.8 under Xvfb may swallow the first click after a list closed, and under load
 * focus can still be on its way back to a dropdown whose list just closed, where the
 * keys would go (/gui/use/graph-partition typed 6 into nothing on a loaded CI box). */
G_GNUC_UNUSED static void
click_until_focused (GtkWidget *field)
{
  gi_click (field);
  if (!gi_wait (has_focus, field, 3000))
    {
      gi_click (field);
      g_assert_true (gi_wait (has_focus, field, 3000));
    }
  gi_pump (50);
  g_assert_true (gtk_widget_has_focus (field));
}

/* Clicks into a spin button's text, selects all, types `text` and presses Return. */
G_GNUC_UNUSED static void
type_into_spin_button (GtkWidget *spin, const char *text)
{
  GtkWidget *entry = gi_find_type (spin, GTK_TYPE_TEXT);

  g_assert_nonnull (entry);
  click_until_focused (entry);
  gi_key ("ctrl", XK_a);
  gi_type (text);
  gi_key (NULL, XK_Return);
}

G_GNUC_UNUSED static void
type_into_spin (PlxWindow *w, const char *row_title, const char *text)
{
  GtkWidget *row = panel_row (w, row_title);

  type_into_spin_button (gi_find_type (row, GTK_TYPE_SPIN_BUTTON), text);
  settle (w);
}

/* ---- the file chooser ------------------------------------------------------------- */

/* A second window on screen: the file chooser. */
G_GNUC_UNUSED static gboolean
file_dialog_open (gpointer data)
{
  GListModel *tops = gtk_window_get_toplevels ();
  guint mapped = 0;

  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr (GtkWidget) top = g_list_model_get_item (tops, i);
      mapped += gtk_widget_get_mapped (top);
    }
  return mapped > 1;
}

G_GNUC_UNUSED static gboolean
file_dialog_closed (gpointer data)
{
  return !file_dialog_open (data);
}

G_GNUC_UNUSED static gboolean
widget_unmapped (gpointer widget)
{
  return !gtk_widget_get_mapped (GTK_WIDGET (widget));
}

/* The file chooser the window just opened, with the keyboard. */
/* (GTK 4.8's file chooser may warn of a snapshot before allocation: tests/gui/gui-env.h
 * tolerates that one warning.) */
G_GNUC_UNUSED static GtkWidget *
focus_file_dialog (PlxWindow *w)
{
  GtkWidget *dialog = NULL;

  g_assert_true (gi_wait (file_dialog_open, NULL, 5000));
  gi_pump (300);
  {
    /* No window manager under Xvfb: the dialog gets the keyboard as a click on it
     * would give it. */
    GListModel *tops = gtk_window_get_toplevels ();
    for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
      {
        g_autoptr (GtkWindow) top = g_list_model_get_item (tops, i);
        if (top != GTK_WINDOW (w) && gtk_widget_get_mapped (GTK_WIDGET (top)))
          dialog = GTK_WIDGET (top);
      }
  }
  g_assert_nonnull (dialog);
  gi_focus_window (GTK_WINDOW (dialog));
  return dialog;
}

/* Enter in the file chooser, and the window's answer. */
G_GNUC_UNUSED static void
accept_file_dialog (PlxWindow *w, GtkWidget *dialog)
{
  gi_pump (300);
  /* Enter; a second one if a completion popup took the first. The chooser itself
   * is watched: the window may answer with a dialog of its own ("Save Changes?"). */
  g_object_ref (dialog);
  gi_key (NULL, XK_Return);
  if (!gi_wait (widget_unmapped, dialog, 1000))
    gi_key (NULL, XK_Return);
  if (!gi_wait (widget_unmapped, dialog, 5000))
    {
      /* The screen as it was, for the log: in a folder of its own, never a fixed path. */
      g_autofree char *dir = test_make_tmp_dir ("plx-gui-shot");
      g_autofree char *cmd = g_strdup_printf ("import -window root '%s/file-chooser.png'", dir);
      if (system (cmd) == 0)
        g_printerr ("screen: %s/file-chooser.png\n", dir);
      g_error ("the file chooser did not close");
    }
  g_object_unref (dialog);
  gi_pump (300);
  settle (w);
}

/* The file chooser the window just opened (to open): `path` typed into its location
 * bar (Ctrl+L), then Enter. */
G_GNUC_UNUSED static void
type_into_file_dialog (PlxWindow *w, const char *path)
{
  GtkWidget *dialog = focus_file_dialog (w);

  gi_key ("ctrl", XK_l);
  gi_type (path);
  accept_file_dialog (w, dialog);
}

/* The file chooser the window just opened to save: `path` typed over the name it
 * offers, then Enter. */
G_GNUC_UNUSED static void
type_into_save_dialog (PlxWindow *w, const char *path)
{
  GtkWidget *dialog = focus_file_dialog (w);

  gi_key ("ctrl", XK_a);
  gi_type (path);
  accept_file_dialog (w, dialog);
}

G_GNUC_UNUSED static void
open_by_keyboard (PlxWindow *w, const char *path)
{
  gi_focus_window (GTK_WINDOW (w));
  gi_key ("ctrl", XK_o);
  type_into_file_dialog (w, path);
}

/* ---- the search page -------------------------------------------------------------- */

G_GNUC_UNUSED static gboolean
search_done (gpointer data)
{
  return plx_search_page_get_search (PLX_SEARCH_PAGE (data)) != NULL;
}

/* The results page on screen, its plot sized. */
G_GNUC_UNUSED static gboolean
results_shown (gpointer data)
{
  GtkWidget *scatter = GTK_WIDGET (plx_search_page_get_scatter (PLX_SEARCH_PAGE (data)));
  return gi_find_type (GTK_WIDGET (data), GTK_TYPE_COLUMN_VIEW) != NULL && gtk_widget_get_width (scatter) > 0;
}

/* The right edge of the column titled `title` in the table, from the shown columns'
 * widths; the column must be shown. */
G_GNUC_UNUSED static int
column_right_edge (GtkColumnView *table, const char *title)
{
  GListModel *cols = gtk_column_view_get_columns (table);
  int x = 0;

  for (guint i = 0; i < g_list_model_get_n_items (cols); i++)
    {
      g_autoptr (GtkColumnViewColumn) c = g_list_model_get_item (cols, i);
      if (!gtk_column_view_column_get_visible (c))
        continue;
      x += gtk_column_view_column_get_fixed_width (c);
      if (g_str_equal (gtk_column_view_column_get_title (c), title))
        return x;
    }
  g_error ("no column \"%s\" shown", title);
  return -1;
}
