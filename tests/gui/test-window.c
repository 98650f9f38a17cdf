/* The desktop window under Xvfb: it opens on the default scenario with the numbers
 * parallax-cli prints; a slider change recomputes and redraws; an invalid strategy
 * shows its error and no stale chart; a broken file keeps the previous scenario;
 * exports write valid files; pin and compare show both scenarios. */
#include <adwaita.h>
#include <glib/gi18n.h>
#include <locale.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plx-chart-view.h"
#include "plx-engine.h"
#include "plx-render-style.h"
#include "plx-scenario-panel.h"
#include "plx-search-page.h"
#include "plx-window.h"
#include "gui-env.h"
#include "base/plx-json.h"

/* Spins the main loop until `done` or `seconds`. A whole search of the default scenario (170,000 strategies) takes about 0.1 s
 * optimised and 80 times that under AddressSanitizer at -O0, more beside the other
 * tests on CI's 2 cores: searches get a minute, everything else 10 s. */
static gboolean
wait_up_to (gboolean (*done) (PlxWindow *w), PlxWindow *w, gint64 seconds)
{
  gint64 end = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;

  while (!done (w) && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
  return done (w);
}

static gboolean
wait_for (gboolean (*done) (PlxWindow *w), PlxWindow *w)
{
  return wait_up_to (done, w, 10);
}

static gboolean
idle (PlxWindow *w)
{
  return !plx_window_is_busy (w) && (plx_window_get_result (w) != NULL || plx_window_get_error (w) != NULL);
}

static gboolean
quit_loop (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the main loop for `ms` milliseconds, blocking between events. */
static void
pump (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, quit_loop, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

static void
settle (PlxWindow *w)
{
  g_assert_true (wait_for (idle, w));
  /* Let the frame clock draw the new charts. */
  pump (250);
}

static PlxWindow *
new_window (void)
{
  PlxWindow *w = plx_window_new (NULL);

  gtk_window_present (GTK_WINDOW (w));
  settle (w);
  return w;
}

static void
destroy (PlxWindow *w)
{
  gtk_window_destroy (GTK_WINDOW (w));
  pump (50);
}

static double
cli_step_time (const char *extra_json_path)
{
  const char *cli = g_getenv ("PLX_CLI");
  g_autofree char *out = NULL;
  int status = 0;
  g_autoptr (JsonNode) root = NULL;
  const char *argv[] = { cli, "simulate", "--json", extra_json_path, NULL };

  if (extra_json_path == NULL)
    argv[3] = NULL;
  g_assert_nonnull (cli);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  root = plx_json_parse_data (out, -1, "cli", NULL);
  return json_object_get_double_member (json_node_get_object (root), "step_time_s");
}

static void
test_opens_on_default (void)
{
  PlxWindow *w = new_window ();
  PlxResult *r = plx_window_get_result (w);

  g_assert_nonnull (r);
  /* The same scenario and engine as `parallax-cli simulate`: the same number. */
  g_assert_cmpfloat (r->report.step_time_s, ==, cli_step_time (NULL));
  g_assert_cmpuint (r->scenario->strategy->tp, ==, 8);
  g_assert_cmpuint (r->scenario->strategy->pp, ==, 8);
  g_assert_nonnull (strstr (plx_window_get_card_text (w, 0), " s "));
  g_assert_nonnull (strstr (plx_window_get_card_text (w, 3), "GiB"));
  g_assert_false (plx_window_is_dirty (w));
  g_assert_cmpuint (plx_chart_view_get_n_draws (PLX_CHART_VIEW (plx_window_get_chart (w, "timeline"))), >, 0);
  destroy (w);
}

static void
test_slider_updates (void)
{
  PlxWindow *w = new_window ();
  PlxChartView *tl = PLX_CHART_VIEW (plx_window_get_chart (w, "timeline"));
  double before = plx_window_get_result (w)->report.step_time_s;
  guint draws = plx_chart_view_get_n_draws (tl);
  GArray *tp_values = plx_scenario_panel_get_choices (PLX_SCENARIO_PANEL (plx_window_get_panel (w)), "tp");

  /* GPT-3's 96 heads on 8-GPU nodes with PP 8 on 64 GPUs: TP over 1, 2, 4, 8 only
   * (3 and 6 divide 96 but not 64 / 8 = 8 GPUs per pipeline replica). */
  g_assert_cmpuint (tp_values->len, ==, 4);
  g_assert_cmpuint (g_array_index (tp_values, guint64, 2), ==, 4);
  g_assert_cmpuint (g_array_index (tp_values, guint64, 3), ==, 8);

  plx_scenario_panel_set_strategy_int (PLX_SCENARIO_PANEL (plx_window_get_panel (w)), "tp", 4);
  settle (w);
  g_assert_null (plx_window_get_error (w));
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->tp, ==, 4);
  /* dp re-derived: 64 / (4 x 8). */
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->dp, ==, 2);
  g_assert_cmpfloat (plx_window_get_result (w)->report.step_time_s, !=, before);
  g_assert_cmpuint (plx_chart_view_get_n_draws (tl), >, draws);
  g_assert_true (plx_window_is_dirty (w));
  destroy (w);
}

static void
test_invalid_shows_error (void)
{
  PlxWindow *w = new_window ();
  GtkWidget *chart = plx_window_get_chart (w, "timeline");

  /* 8 stages of 13 chunks are 104 chunks, more than the 96 layers. */
  plx_scenario_panel_set_strategy_int (PLX_SCENARIO_PANEL (plx_window_get_panel (w)), "virtual_stages", 13);
  settle (w);
  g_assert_nonnull (plx_window_get_error (w));
  g_assert_nonnull (strstr (plx_window_get_error (w), "96 layers"));
  g_assert_null (plx_window_get_result (w));
  /* The chart stays where it is, greyed, with the error over it. */
  g_assert_true (gtk_widget_get_visible (chart));
  g_assert_cmpstr (plx_chart_view_get_error (PLX_CHART_VIEW (chart)), ==, plx_window_get_error (w));
  /* Back to a valid value: the charts return. */
  plx_scenario_panel_set_strategy_int (PLX_SCENARIO_PANEL (plx_window_get_panel (w)), "virtual_stages", 3);
  settle (w);
  g_assert_null (plx_window_get_error (w));
  g_assert_null (plx_chart_view_get_error (PLX_CHART_VIEW (chart)));
  destroy (w);
}

static void
test_broken_file_keeps_scenario (void)
{
  PlxWindow *w = new_window ();
  g_autofree char *dir = test_make_tmp_dir ("plx-gui");
  g_autofree char *path = g_build_filename (dir, "broken.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  double before = plx_window_get_result (w)->report.step_time_s;

  g_assert_true (g_file_set_contents (path, "{ \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": ", -1, NULL));
  g_assert_false (plx_window_open_file (w, file, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "broken.json"));
  settle (w);
  g_assert_nonnull (plx_window_get_result (w));
  g_assert_cmpfloat (plx_window_get_result (w)->report.step_time_s, ==, before);
  g_clear_error (&error);
  /* An unsupported model type: the same. */
  g_assert_true (g_file_set_contents (path, "{ \"model_type\": \"bert\", \"num_hidden_layers\": 12 }", -1, NULL));
  g_assert_false (plx_window_open_file (w, file, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED);
  settle (w);
  g_assert_cmpfloat (plx_window_get_result (w)->report.step_time_s, ==, before);
  g_remove (path);
  g_rmdir (dir);
  destroy (w);
}

static void
test_open_hf_config (void)
{
  /* A Llama config.json replaces the model, keeping cluster and strategy. */
  PlxWindow *w = new_window ();
  g_autofree char *dir = test_make_tmp_dir ("plx-gui");
  g_autofree char *path = g_build_filename (dir, "config.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  PlxResult *r;

  g_assert_true (g_file_set_contents (path,
    "{ \"model_type\": \"llama\", \"num_hidden_layers\": 48, \"hidden_size\": 4096, \"num_attention_heads\": 32,"
    "  \"num_key_value_heads\": 8, \"intermediate_size\": 14336, \"vocab_size\": 128256,"
    "  \"max_position_embeddings\": 4096, \"torch_dtype\": \"bfloat16\" }", -1, NULL));
  g_assert_true (plx_window_open_file (w, file, &error));
  g_assert_no_error (error);
  settle (w);
  r = plx_window_get_result (w);
  g_assert_null (plx_window_get_error (w));
  g_assert_nonnull (r);
  g_assert_cmpuint (r->scenario->model->n_layers, ==, 48);
  g_assert_cmpuint (r->scenario->model->kv_heads, ==, 8);
  /* The scenario's sequence length stays: the model takes 2048 (4096 positions). */
  g_assert_cmpuint (r->scenario->strategy->seq_length, ==, 2048);
  g_remove (path);
  g_rmdir (dir);
  destroy (w);
}

static void
test_export_and_save (void)
{
  PlxWindow *w = new_window ();
  g_autofree char *dir = test_make_tmp_dir ("plx-gui");
  g_autofree char *png = g_build_filename (dir, "timeline.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "memory.svg", NULL);
  g_autofree char *trace = g_build_filename (dir, "trace.json", NULL);
  g_autofree char *saved = g_build_filename (dir, "scenario.json", NULL);
  g_autoptr (GFile) saved_file = g_file_new_for_path (saved);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) trace_json = NULL;
  cairo_surface_t *img;

  g_assert_true (plx_window_export_chart (w, "timeline", png, &error));
  img = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (img), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (img), >=, 800);
  cairo_surface_destroy (img);
  g_assert_true (plx_window_export_chart (w, "memory", svg, &error));
  g_assert_true (g_file_test (svg, G_FILE_TEST_IS_REGULAR));
  g_assert_true (plx_window_export_chart (w, "trace", trace, &error));
  trace_json = plx_json_parse_file (trace, &error);
  g_assert_no_error (error);
  g_assert_true (json_object_has_member (json_node_get_object (trace_json), "traceEvents"));
  /* Compare needs a pinned scenario first. */
  g_assert_false (plx_window_export_chart (w, "compare", png, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
  g_clear_error (&error);
  /* An unwritable path: an error naming it, the window keeps its work. */
  g_assert_false (plx_window_export_chart (w, "timeline", "/nonexistent-dir/t.png", &error));
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir/t.png"));
  g_clear_error (&error);
  g_assert_nonnull (plx_window_get_result (w));

  /* Save and read back: the scenario, loadable by the CLI with the same result. */
  plx_scenario_panel_set_strategy_int (PLX_SCENARIO_PANEL (plx_window_get_panel (w)), "micro_batch_size", 2);
  settle (w);
  g_assert_true (plx_window_is_dirty (w));
  g_assert_true (plx_window_save_to (w, saved_file, &error));
  g_assert_no_error (error);
  g_assert_false (plx_window_is_dirty (w));
  g_assert_cmpfloat (cli_step_time (saved), ==, plx_window_get_result (w)->report.step_time_s);
  destroy (w);
  /* Nothing left in the temporary folder: the GUI tests' file chooser lists it. */
  g_remove (png);
  g_remove (svg);
  g_remove (trace);
  g_remove (saved);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  {
    /* The next tests start from the built-in default again. */
    g_autoptr (GSettings) settings = g_settings_new ("org.parallax.Parallax");
    g_settings_reset (settings, "last-scenario");
  }
}

static void
test_pin_and_compare (void)
{
  PlxWindow *w = new_window ();
  double a;

  plx_window_pin (w);
  g_assert_nonnull (plx_window_get_pinned (w));
  a = plx_window_get_pinned (w)->report.step_time_s;
  plx_scenario_panel_set_strategy_int (PLX_SCENARIO_PANEL (plx_window_get_panel (w)), "tp", 4);
  settle (w);
  /* A stays, B is the edited scenario. */
  g_assert_cmpfloat (plx_window_get_pinned (w)->report.step_time_s, ==, a);
  g_assert_cmpfloat (plx_window_get_result (w)->report.step_time_s, !=, a);
  plx_window_show_page (w, "compare");
  settle (w);
  g_assert_cmpuint (plx_chart_view_get_n_draws (PLX_CHART_VIEW (plx_window_get_chart (w, "compare"))), >, 0);
  destroy (w);
}

static void
test_swap (void)
{
  /* Either side can be made current again: swapping makes A current and the edited
   * scenario A. */
  PlxWindow *w = new_window ();

  plx_window_pin (w);
  plx_scenario_panel_set_strategy_int (PLX_SCENARIO_PANEL (plx_window_get_panel (w)), "tp", 4);
  settle (w);
  plx_window_swap (w);
  settle (w);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->tp, ==, 8);
  g_assert_cmpuint (plx_window_get_pinned (w)->scenario->strategy->tp, ==, 4);
  destroy (w);
}

static void
test_reopens_last_scenario (void)
{
  /* A saved scenario is remembered (GSettings) and a new window opens it. */
  g_autofree char *dir = test_make_tmp_dir ("plx-gui");
  g_autofree char *path = g_build_filename (dir, "mine.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GSettings) settings = g_settings_new ("org.parallax.Parallax");
  g_auto (GStrv) recent = NULL;
  PlxWindow *w = new_window ();

  plx_scenario_panel_set_strategy_int (PLX_SCENARIO_PANEL (plx_window_get_panel (w)), "micro_batch_size", 2);
  settle (w);
  g_assert_true (plx_window_save_to (w, file, NULL));
  destroy (w);
  recent = g_settings_get_strv (settings, "recent-files");
  g_assert_cmpstr (recent[0], ==, path);
  w = new_window ();
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->micro_batch_size, ==, 2);
  g_assert_false (plx_window_is_dirty (w));
  destroy (w);
  /* Gone: the next window falls back to the built-in default. */
  g_remove (path);
  g_rmdir (dir);
  w = new_window ();
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->micro_batch_size, ==, 1);
  destroy (w);
  g_settings_reset (settings, "last-scenario");
}

static void
test_german (void)
{
  /* LANGUAGE=de with the build's catalogues (set by meson for this run). */
  PlxWindow *w;

  if (!g_str_has_prefix (g_getenv ("LANGUAGE") ? g_getenv ("LANGUAGE") : "", "de"))
    {
      g_test_skip ("runs with LANGUAGE=de only");
      return;
    }
  g_assert_cmpstr (g_dgettext (GETTEXT_PACKAGE, "Step time"), ==, "Schrittzeit");
  g_assert_cmpstr (g_dgettext (GETTEXT_PACKAGE, "Pin as A (Ctrl+P)"), !=, "Pin as A (Ctrl+P)");
  w = new_window ();
  /* The card's detail line comes from a translated format string. */
  g_assert_nonnull (strstr (plx_window_get_card_text (w, 0), "pro Schritt auf 64 GPUs"));
  destroy (w);
}

/* ---- the search page ---------------------------------------------------------------- */

static PlxSearchPage *
search_page (PlxWindow *w)
{
  return PLX_SEARCH_PAGE (plx_window_get_search_page (w));
}

static gboolean
search_idle (PlxWindow *w)
{
  return !plx_search_page_is_running (search_page (w));
}

static PlxSearch *
direct_search (PlxWindow *w, const PlxSearchOptions *o)
{
  PlxScenario *sc = plx_window_get_result (w)->scenario;
  PlxSearch *s = plx_search_run (sc->model, sc->cluster, sc->strategy, o, NULL, NULL, NULL, NULL);

  g_assert_nonnull (s);
  return s;
}

static void
run_search (PlxWindow *w)
{
  plx_search_page_start (search_page (w));
  g_assert_true (plx_search_page_is_running (search_page (w)));
  g_assert_true (wait_up_to (search_idle, w, 60));
  pump (100);
  /* The results replace the empty state: wait for the plot to get its size (slow
   * under the sanitizers). */
  {
    PlxSearchPage *page = search_page (w);
    GtkWidget *scatter = GTK_WIDGET (plx_search_page_get_scatter (page));
    gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
    while (plx_search_page_get_search (page) != NULL && plx_search_page_get_search (page)->results->len > 0 &&
           gtk_widget_get_width (scatter) <= 0 && g_get_monotonic_time () < deadline)
      pump (50);
  }
}

static void
test_search_runs_and_sorts (void)
{
  /* The page's search is the library's search of the scenario shown: the same counts,
   * the same rows in the same order; the status reports them; columns sort. */
  PlxWindow *w = new_window ();
  PlxSearchPage *page = search_page (w);
  GListModel *rows = plx_search_page_get_rows (page);
  PlxSearchOptions o;
  g_autoptr (PlxSearch) direct = NULL;
  g_autofree char *evaluated = NULL;
  guint n, rank;
  guint64 min_memory = G_MAXUINT64;

  plx_search_options_init (&o);
  direct = direct_search (w, &o);
  plx_window_show_page (w, "search");
  g_assert_null (plx_search_page_get_search (page));
  run_search (w);
  g_assert_nonnull (plx_search_page_get_search (page));
  g_assert_cmpuint (plx_search_page_get_search (page)->configs_evaluated, ==, direct->configs_evaluated);
  g_assert_cmpuint (plx_search_page_get_search (page)->configs_fit, ==, direct->configs_fit);
  n = g_list_model_get_n_items (rows);
  g_assert_cmpuint (n, ==, direct->results->len);
  g_assert_cmpuint (n, >, 100);
  for (guint i = 0; i < n; i++)
    {
      const PlxSearchResult *r = plx_search_page_get_row (page, i, &rank);
      const PlxSearchResult *d = &g_array_index (direct->results, PlxSearchResult, i);
      g_assert_cmpuint (rank, ==, i + 1);
      g_assert_cmpfloat (r->step_time_s, ==, d->step_time_s);
      g_assert_cmpuint (r->strategy.tp, ==, d->strategy.tp);
      g_assert_cmpuint (r->strategy.pp, ==, d->strategy.pp);
      min_memory = MIN (min_memory, d->peak_memory_bytes);
    }
  evaluated = g_strdup_printf ("%" G_GUINT64_FORMAT " strategies evaluated", direct->configs_evaluated);
  g_assert_nonnull (strstr (plx_search_page_get_status (page), evaluated));

  /* By memory, ascending: the smallest first and never decreasing. */
  g_assert_true (plx_search_page_sort_by (page, "memory", FALSE));
  g_assert_cmpuint (plx_search_page_get_row (page, 0, NULL)->peak_memory_bytes, ==, min_memory);
  for (guint i = 1; i < n; i++)
    g_assert_cmpuint (plx_search_page_get_row (page, i, NULL)->peak_memory_bytes, >=,
                      plx_search_page_get_row (page, i - 1, NULL)->peak_memory_bytes);
  /* By MFU, descending. */
  g_assert_true (plx_search_page_sort_by (page, "mfu", TRUE));
  for (guint i = 1; i < n; i++)
    g_assert_cmpfloat (plx_search_page_get_row (page, i, NULL)->mfu, <=, plx_search_page_get_row (page, i - 1, NULL)->mfu);
  g_assert_false (plx_search_page_sort_by (page, "no-such-column", FALSE));

  /* The plot has a point per row, and the front it highlights is the search's. */
  {
    PlxScatterView *scatter = plx_search_page_get_scatter (page);
    guint pareto = 0;
    double x, y;
    for (guint i = 0; i < direct->results->len; i++)
      pareto += g_array_index (direct->results, PlxSearchResult, i).pareto;
    g_assert_cmpuint (pareto, >, 1);
    g_assert_true (plx_scatter_view_get_point (scatter, n - 1, &x, &y));
    g_assert_false (plx_scatter_view_get_point (scatter, n, &x, &y));
    /* Selecting a row rings its point; clicking a point selects its row. */
    plx_search_page_select (page, 0);
    plx_search_page_get_row (page, 0, &rank);
    g_assert_cmpint (plx_scatter_view_get_selected (scatter), ==, (gint) rank - 1);
    g_signal_emit_by_name (scatter, "point-clicked", 4u);
    plx_search_page_get_row (page, plx_search_page_get_selected (page), &rank);
    g_assert_cmpuint (rank, ==, 5);
  }
  destroy (w);
}

static void
on_chosen (PlxSearchPage *page, JsonNode *scenario, guint rank, guint *out)
{
  *out = rank;
}

static void
test_search_choose_loads (void)
{
  /* Using a row loads its strategy (and GPU count) into the main view, which then
   * shows the step time the search gave it: the top rows are re-simulated with the
   * event engine, the window's engine. The scenario is marked edited. */
  PlxWindow *w = new_window ();
  PlxSearchPage *page = search_page (w);
  guint chosen = 0, rank;
  const PlxSearchResult *r;
  PlxResult *now;

  g_signal_connect (page, "strategy-chosen", G_CALLBACK (on_chosen), &chosen);
  plx_window_show_page (w, "search");
  run_search (w);
  r = plx_search_page_get_row (page, 2, &rank);
  g_assert_true (r->event);
  plx_search_page_choose (page, 2);
  g_assert_cmpuint (chosen, ==, 3);
  settle (w);
  now = plx_window_get_result (w);
  g_assert_nonnull (now);
  g_assert_cmpuint (now->scenario->strategy->tp, ==, r->strategy.tp);
  g_assert_cmpuint (now->scenario->strategy->pp, ==, r->strategy.pp);
  g_assert_cmpuint (now->scenario->strategy->dp, ==, r->strategy.dp);
  g_assert_cmpuint (now->scenario->strategy->micro_batch_size, ==, r->strategy.micro_batch_size);
  g_assert_cmpuint (now->scenario->strategy->virtual_stages, ==, r->strategy.virtual_stages);
  g_assert_cmpuint (now->scenario->strategy->zero_stage, ==, r->strategy.zero_stage);
  g_assert_cmpfloat (now->report.step_time_s, ==, r->step_time_s);
  g_assert_cmpuint (now->report.peak_memory_bytes, ==, r->peak_memory_bytes);
  g_assert_true (plx_window_is_dirty (w));
  /* Undo brings back the default scenario, unedited. */
  plx_window_undo_choice (w);
  settle (w);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->tp, ==, 8);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->pp, ==, 8);
  g_assert_cmpfloat (plx_window_get_result (w)->report.step_time_s, ==, cli_step_time (NULL));
  g_assert_false (plx_window_is_dirty (w));
  plx_search_page_choose (page, 2);
  settle (w);
  now = plx_window_get_result (w);

  /* A range of GPU counts: a row on another count than the cluster's resizes it. */
  plx_search_page_set_gpus (page, 64, 128);
  run_search (w);
  {
    /* Plotted against GPU count, 64 GPUs sit left of 128 whatever their memory. */
    PlxScatterView *scatter = plx_search_page_get_scatter (page);
    gint i64 = -1, i128 = -1;
    double x64, y64, x128, y128;
    for (guint i = 0; i < g_list_model_get_n_items (plx_search_page_get_rows (page)); i++)
      {
        r = plx_search_page_get_row (page, i, &rank);
        if (r->n_gpus == 64 && i64 < 0)
          i64 = (gint) rank - 1;
        if (r->n_gpus == 128 && i128 < 0)
          i128 = (gint) rank - 1;
      }
    g_assert_cmpint (i64, >=, 0);
    g_assert_cmpint (i128, >=, 0);
    {
      double s64 = plx_search_page_get_row (page, plx_search_page_position_of_rank (page, i64 + 1), NULL)->step_time_s;
      double s128 = plx_search_page_get_row (page, plx_search_page_position_of_rank (page, i128 + 1), NULL)->step_time_s;
      plx_search_page_set_plot_by_gpus (page, TRUE);
      g_assert_true (plx_scatter_view_get_point (scatter, i64, &x64, &y64));
      g_assert_true (plx_scatter_view_get_point (scatter, i128, &x128, &y128));
      g_assert_cmpfloat (x128, >, x64);
      /* Slower is higher up (a smaller y). */
      g_assert_cmpint (s64 > s128, ==, y64 < y128);
    }
    plx_search_page_set_plot_by_gpus (page, FALSE);
  }
  chosen = 0;
  for (guint i = 0; i < g_list_model_get_n_items (plx_search_page_get_rows (page)); i++)
    {
      r = plx_search_page_get_row (page, i, &rank);
      if (r->n_gpus != plx_cluster_get_n_gpus (now->scenario->cluster) && r->event)
        {
          guint want = r->n_gpus;
          double step = r->step_time_s;
          plx_search_page_choose (page, i);
          settle (w);
          now = plx_window_get_result (w);
          g_assert_cmpuint (plx_cluster_get_n_gpus (now->scenario->cluster), ==, want);
          g_assert_cmpfloat (now->report.step_time_s, ==, step);
          g_assert_cmpuint (chosen, ==, rank);
          break;
        }
      g_assert_cmpuint (i, <, 40);
    }
  g_assert_cmpuint (chosen, >, 0);
  destroy (w);
}

static void
test_search_fixed_cancel_invalid (void)
{
  /* Held-fixed degrees restrict every row; a value the controls do not offer is an
   * error naming it; a cancelled search keeps the results before it; with an
   * invalid scenario there is nothing to search. */
  PlxWindow *w = new_window ();
  PlxSearchPage *page = search_page (w);
  GListModel *rows = plx_search_page_get_rows (page);
  g_autoptr (GError) error = NULL;
  guint n;

  plx_window_show_page (w, "search");
  g_assert_true (plx_search_page_set_fix (page, "tp=8,schedule=1f1b", &error));
  g_assert_no_error (error);
  run_search (w);
  n = g_list_model_get_n_items (rows);
  g_assert_cmpuint (n, >, 0);
  for (guint i = 0; i < n; i++)
    {
      const PlxSearchResult *r = plx_search_page_get_row (page, i, NULL);
      g_assert_cmpuint (r->strategy.tp, ==, 8);
      g_assert_cmpint (r->strategy.schedule, ==, PLX_SCHEDULE_1F1B);
    }
  g_assert_false (plx_search_page_set_fix (page, "tp=3", &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "tp=3"));
  g_clear_error (&error);

  /* 8 to 8192 GPUs: a thousand GPU counts, cancelled at once. */
  g_assert_true (plx_search_page_set_fix (page, "", NULL));
  plx_search_page_set_gpus (page, 8, 8192);
  plx_search_page_start (page);
  plx_search_page_cancel (page);
  g_assert_true (wait_up_to (search_idle, w, 60));
  g_assert_nonnull (strstr (plx_search_page_get_status (page), "cancelled"));
  g_assert_cmpuint (g_list_model_get_n_items (rows), ==, n);
  g_assert_cmpuint (plx_search_page_get_row (page, 0, NULL)->strategy.tp, ==, 8);

  /* GPUs from more than to: an error, no search. */
  plx_search_page_set_gpus (page, 128, 64);
  plx_search_page_start (page);
  g_assert_false (plx_search_page_is_running (page));
  g_assert_nonnull (strstr (plx_search_page_get_status (page), "128"));

  /* TP 3 does not divide 96 heads: the scenario is invalid, the search idle. */
  plx_search_page_set_gpus (page, 64, 64);
  plx_scenario_panel_set_strategy_int (PLX_SCENARIO_PANEL (plx_window_get_panel (w)), "tp", 3);
  settle (w);
  g_assert_nonnull (plx_window_get_error (w));
  plx_search_page_start (page);
  g_assert_false (plx_search_page_is_running (page));
  destroy (w);
}

static void
test_search_export (void)
{
  /* The scatter plot exports like the other charts, and not before a search. */
  PlxWindow *w = new_window ();
  g_autofree char *dir = test_make_tmp_dir ("plx-gui");
  g_autofree char *png = g_build_filename (dir, "search.png", NULL);
  g_autofree char *svg = g_build_filename (dir, "search.svg", NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  cairo_surface_t *img;

  g_assert_false (plx_window_export_chart (w, "scatter", png, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
  g_assert_nonnull (strstr (error->message, png));
  g_clear_error (&error);
  g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));

  plx_window_show_page (w, "search");
  run_search (w);
  g_assert_true (plx_window_export_chart (w, "scatter", png, &error));
  g_assert_no_error (error);
  img = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_surface_status (img), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (img), >=, 800);
  g_assert_cmpint (cairo_image_surface_get_height (img), >=, 500);
  cairo_surface_destroy (img);
  g_assert_true (plx_window_export_chart (w, "scatter", svg, &error));
  g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "<svg"));
  g_remove (png);
  g_remove (svg);
  g_rmdir (dir);
  destroy (w);
}

static void
count_computed (PlxEngine *engine, PlxResult *r, guint *n)
{
  (*n)++;
  g_object_set_data_full (G_OBJECT (engine), "last", plx_result_ref (r), (GDestroyNotify) plx_result_unref);
}

static void
test_engine_delivers_within (void)
{
  /* Waiting for a computation in flight delivers it at once, exactly once; of two in
   * flight only the newer is delivered. */
  g_autoptr (PlxEngine) engine = plx_engine_new ();
  g_autoptr (JsonNode) def = plx_scenario_default_json ();
  g_autoptr (JsonNode) mbs2 = json_node_copy (def);
  guint n = 0;
  PlxResult *last;

  g_signal_connect (engine, "computed", G_CALLBACK (count_computed), &n);
  g_assert_false (plx_engine_deliver_within (engine, 1000));
  plx_engine_compute (engine, def, ".", "default");
  g_assert_true (plx_engine_deliver_within (engine, 10 * G_USEC_PER_SEC));
  g_assert_cmpuint (n, ==, 1);
  last = g_object_get_data (G_OBJECT (engine), "last");
  g_assert_cmpfloat (last->report.step_time_s, ==, cli_step_time (NULL));
  /* The GTask's own callback finds it delivered. */
  pump (200);
  g_assert_cmpuint (n, ==, 1);
  g_assert_false (plx_engine_is_busy (engine));

  json_object_set_int_member (json_object_get_object_member (json_node_get_object (mbs2), "strategy"), "micro_batch_size", 2);
  plx_engine_compute (engine, def, ".", "default");
  plx_engine_compute (engine, mbs2, ".", "mbs2");
  g_assert_true (plx_engine_deliver_within (engine, 10 * G_USEC_PER_SEC));
  pump (300);
  g_assert_cmpuint (n, ==, 2);
  last = g_object_get_data (G_OBJECT (engine), "last");
  g_assert_cmpuint (last->scenario->strategy->micro_batch_size, ==, 2);
}

/* The layout as drawn: an image of the chart. */
static cairo_surface_t *
draw_layout (const PlxTimelineLayout *l, int width, int height)
{
  cairo_surface_t *s = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cairo_t *cr = cairo_create (s);
  PlxRenderStyle style;

  plx_render_style_init (&style, FALSE, 1.0);
  plx_timeline_chart_render (l, &style, cr, width, height);
  cairo_destroy (cr);
  cairo_surface_flush (s);
  return s;
}

static PlxResult *
compute_last (PlxEngine *engine, JsonNode *scenario)
{
  plx_engine_compute (engine, scenario, ".", "default");
  g_assert_true (plx_engine_deliver_within (engine, 10 * G_USEC_PER_SEC));
  return g_object_get_data (G_OBJECT (engine), "last");
}

/* Given the timeline chart's size, the worker lays the timeline out for the whole
 * step at that size: the layout the chart would build (drawn, the same pixels),
 * taken once, and only for exactly that size and window. */
static void
test_engine_builds_layout (void)
{
  g_autoptr (PlxEngine) engine = plx_engine_new ();
  g_autoptr (JsonNode) def = plx_scenario_default_json ();
  PlxTimelineOptions o;
  PlxTimelineLayout *taken, *own;
  cairo_surface_t *a, *b;
  PlxResult *r;
  guint n = 0;

  g_signal_connect (engine, "computed", G_CALLBACK (count_computed), &n);
  plx_engine_set_timeline_size (engine, 900, 500, 500);
  r = compute_last (engine, def);
  g_assert_null (plx_result_take_layout (r, 901, 500, 0.0, r->timeline->step_time_s));
  g_assert_null (plx_result_take_layout (r, 900, 500, 0.0, r->timeline->step_time_s / 2));
  taken = plx_result_take_layout (r, 900, 500, 0.0, r->timeline->step_time_s);
  g_assert_nonnull (taken);
  g_assert_null (plx_result_take_layout (r, 900, 500, 0.0, r->timeline->step_time_s));
  plx_timeline_options_init (&o, 900, 500);
  o.t0_s = 0.0;
  o.t1_s = r->timeline->step_time_s;
  own = plx_timeline_layout_new (r->timeline, &o);
  a = draw_layout (taken, 900, 500);
  b = draw_layout (own, 900, 500);
  g_assert_cmpint (memcmp (cairo_image_surface_get_data (a), cairo_image_surface_get_data (b),
                           (gsize) cairo_image_surface_get_stride (a) * 500), ==, 0);
  cairo_surface_destroy (a);
  cairo_surface_destroy (b);
  plx_timeline_layout_free (taken);
  plx_timeline_layout_free (own);

  /* A result that does not fit is drawn under the fit advice: the other height. */
  {
    g_autoptr (JsonNode) big = json_node_copy (def);
    JsonObject *st = json_object_get_object_member (json_node_get_object (big), "strategy");
    json_object_set_int_member (st, "tp", 4);
    json_object_set_int_member (st, "pp", 8);
    json_object_remove_member (st, "dp");
    json_object_set_int_member (st, "zero_stage", 0);
    plx_engine_set_timeline_size (engine, 900, 500, 420);
    r = compute_last (engine, big);
    g_assert_false (r->report.fits_in_memory);
    g_assert_null (plx_result_take_layout (r, 900, 500, 0.0, r->timeline->step_time_s));
    taken = plx_result_take_layout (r, 900, 420, 0.0, r->timeline->step_time_s);
    g_assert_nonnull (taken);
    g_assert_cmpfloat (taken->height_px, ==, 420);
    plx_timeline_layout_free (taken);
  }

  /* No size: none built. */
  plx_engine_set_timeline_size (engine, 0, 0, 0);
  r = compute_last (engine, def);
  g_assert_null (plx_result_take_layout (r, 900, 500, 0.0, r->timeline->step_time_s));
  g_assert_cmpuint (n, ==, 3);
}

int
main (int argc, char **argv)
{
  char *home = gui_env_init (&argc, &argv);

  g_test_add_func ("/gui/window/opens-on-default", test_opens_on_default);
  g_test_add_func ("/gui/window/slider-updates", test_slider_updates);
  g_test_add_func ("/gui/window/invalid-shows-error", test_invalid_shows_error);
  g_test_add_func ("/gui/window/broken-file-keeps-scenario", test_broken_file_keeps_scenario);
  g_test_add_func ("/gui/window/open-hf-config", test_open_hf_config);
  g_test_add_func ("/gui/window/export-and-save", test_export_and_save);
  g_test_add_func ("/gui/window/pin-and-compare", test_pin_and_compare);
  g_test_add_func ("/gui/window/swap", test_swap);
  g_test_add_func ("/gui/window/reopens-last-scenario", test_reopens_last_scenario);
  g_test_add_func ("/gui/window/german", test_german);
  g_test_add_func ("/gui/engine/delivers-within", test_engine_delivers_within);
  g_test_add_func ("/gui/engine/builds-layout", test_engine_builds_layout);
  g_test_add_func ("/gui/search/runs-and-sorts", test_search_runs_and_sorts);
  g_test_add_func ("/gui/search/choose-loads", test_search_choose_loads);
  g_test_add_func ("/gui/search/fixed-cancel-invalid", test_search_fixed_cancel_invalid);
  g_test_add_func ("/gui/search/export", test_search_export);
  return gui_env_finish (home, g_test_run ());
}
