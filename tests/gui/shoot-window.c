/* Not a test: puts the window into a state worth a screenshot, for the README and
 * the AppStream metainfo. `shoot-window main` shows the default scenario;
 * `shoot-window compare` pins it as A, moves to TP 4 x PP 16 with 1F1B as B and
 * shows the comparison; `shoot-window open FILE PAGE` opens a scenario and shows the
 * page (e.g. "sensitivity"); `shoot-window search` runs
 * the search and selects its third result. It then waits to be killed (after `import -window root`). */
#include <adwaita.h>
#include <glib/gi18n.h>
#include <locale.h>

#include "plx-scenario-panel.h"
#include "plx-search-page.h"
#include "plx-window.h"

static void
pump (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;
  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

int
main (int argc, char **argv)
{
  PlxWindow *w;
  const char *mode = argc > 1 ? argv[1] : "main";

  /* As the application does (src/gui/main.c). */
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, g_getenv ("PARALLAX_LOCALEDIR") ? g_getenv ("PARALLAX_LOCALEDIR") : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  gtk_init ();
  adw_init ();
  w = plx_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (w), 1600, 1000);
  gtk_window_maximize (GTK_WINDOW (w));
  gtk_window_present (GTK_WINDOW (w));
  pump (1500);
  if (g_str_equal (mode, "compare"))
    {
      PlxScenarioPanel *panel = PLX_SCENARIO_PANEL (plx_window_get_panel (w));
      plx_window_pin (w);
      plx_scenario_panel_set_strategy_int (panel, "tp", 4);
      pump (500);
      plx_window_show_page (w, "compare");
    }
  else if (g_str_equal (mode, "open") && argc > 3)
    {
      g_autoptr (GFile) file = g_file_new_for_commandline_arg (argv[2]);
      g_autoptr (GError) error = NULL;
      if (!plx_window_open_file (w, file, &error))
        g_printerr ("%s\n", error->message);
      pump (500);
      plx_window_show_page (w, argv[3]);
    }
  else if (g_str_equal (mode, "memory"))
    plx_window_show_page (w, "memory");
  else if (g_str_equal (mode, "search"))
    {
      PlxSearchPage *page = PLX_SEARCH_PAGE (plx_window_get_search_page (w));
      plx_window_show_page (w, "search");
      plx_search_page_start (page);
      while (plx_search_page_is_running (page))
        g_main_context_iteration (NULL, TRUE);
      plx_search_page_select (page, 2);
    }
  else if (g_str_equal (mode, "search-range"))
    {
      PlxSearchPage *page = PLX_SEARCH_PAGE (plx_window_get_search_page (w));
      plx_window_show_page (w, "search");
      plx_search_page_set_gpus (page, 64, 512);
      plx_search_page_start (page);
      while (plx_search_page_is_running (page))
        g_main_context_iteration (NULL, TRUE);
      plx_search_page_set_plot_by_gpus (page, TRUE);
    }
  pump (1500);
  g_print ("ready\n");
  while (TRUE)
    g_main_context_iteration (NULL, TRUE);
  return 0;
}
