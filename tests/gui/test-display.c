/* What the window shows, used as a person uses it (XTest clicks and keys): a bad
 * cluster field is marked and the others keep their values, errors and labels say the
 * window's words, "Computing…" until the worker has answered, exports offered only
 * when there is something to export, a slider with one valid value says why, a new
 * ONNX file shows nothing of the graph before it, and the pages fit 1024 x 700 to
 * 1920 x 1080: the comparison scrolls, the search table shows what tells results
 * apart at 1400 px, and the strategy's sliders are in view at 1920 x 1080. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "plx-graph-page.h"
#include "plx-partition-view.h"
#include "plx-search-page.h"
#include "plx-window.h"
#include "gui-env.h"
#include "gui-input.h"
#include "gui-window.h"
#include "test-files.h"

static GtkSpinButton *
row_spin (PlxWindow *w, const char *title)
{
  GtkWidget *row = panel_row (w, title);

  g_assert_nonnull (row);
  return GTK_SPIN_BUTTON (gi_find_type (row, GTK_TYPE_SPIN_BUTTON));
}

/* ---- 15. HBM capacity 0 ---------------------------------------------------------- */

static void
test_hbm_zero (void)
{
  PlxWindow *w = open_window (1400, 900);
  GtkWidget *hbm;
  const char *sub;

  /* The default cluster: 8 nodes of 8 A100-SXM4-80GB (NVIDIA's datasheet: 312 TFLOP/s
   * dense BF16, 2039 GB/s HBM, 300 GB/s NVLink each way). */
  g_assert_cmpfloat (gtk_spin_button_get_value (row_spin (w, "Nodes")), ==, 8.0);
  /* 0 GiB: the field's least is 1 GiB, below the 3 GiB the preset reserves. */
  type_into_spin (w, "HBM capacity", "0");
  g_assert_nonnull (plx_window_get_error (w));
  /* The other fields keep the cluster's values; they are not all at their least. */
  g_assert_cmpfloat (gtk_spin_button_get_value (row_spin (w, "Nodes")), ==, 8.0);
  g_assert_cmpfloat (gtk_spin_button_get_value (row_spin (w, "GPUs per node")), ==, 8.0);
  g_assert_cmpfloat (gtk_spin_button_get_value (row_spin (w, "Peak BF16")), ==, 312.0);
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (row_spin (w, "HBM bandwidth")), 2.039, 1e-9);
  g_assert_cmpfloat (gtk_spin_button_get_value (row_spin (w, "Intra-node bandwidth")), ==, 300.0);
  g_assert_cmpfloat (gtk_spin_button_get_value (row_spin (w, "HBM capacity")), ==, 1.0);
  /* The field at fault is marked and says why: 3 GiB = 3221225472 bytes reserved,
   * 1 GiB = 1073741824 capacity. */
  hbm = panel_row (w, "HBM capacity");
  g_assert_true (gtk_widget_has_css_class (hbm, "fault"));
  sub = adw_action_row_get_subtitle (ADW_ACTION_ROW (hbm));
  g_assert_nonnull (strstr (sub, "HBM capacity=1073741824 (1.0 GiB) is less than Reserved memory=3221225472 (3.0 GiB)"));
  /* 80 again: valid, unmarked, its unit line back. */
  type_into_spin (w, "HBM capacity", "80");
  g_assert_null (plx_window_get_error (w));
  g_assert_false (gtk_widget_has_css_class (hbm, "fault"));
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (hbm)), ==, "GiB per GPU");
  close_window (w);
}

/* ---- 15. errors in the window's words -------------------------------------------- */

static void
test_error_names (void)
{
  PlxWindow *w = open_window (1400, 900);
  const char *error;

  /* 1001 sequences at DP 1 and micro-batch 1 are 1001 micro-batches, not a multiple
   * of PP 8 (interleaved 1F1B); the core names global_batch_size, dp,
   * micro_batch_size and pp as a file has them. */
  type_into_spin (w, "Global batch size", "1001");
  error = plx_window_get_error (w);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error, "(Global batch size/(DP*Micro-batch size))"));
  g_assert_nonnull (strstr (error, "multiple of PP=8"));
  g_assert_null (strstr (error, "global_batch_size"));
  g_assert_null (strstr (error, "micro_batch_size"));
  /* The bar says it as the getter does. */
  g_assert_nonnull (gi_find_label (GTK_WIDGET (w), error));
  close_window (w);
}

/* ---- 15. "Computing…", not "not valid", while the worker runs --------------------- */

static void
on_subtitle (GObject *title, GParamSpec *pspec, GPtrArray *seen)
{
  g_ptr_array_add (seen, g_strdup (adw_window_title_get_subtitle (ADW_WINDOW_TITLE (title))));
}

static void
test_computing (void)
{
  PlxWindow *w = open_window (1400, 900);
  GtkWidget *t = gi_find_type (GTK_WIDGET (w), ADW_TYPE_WINDOW_TITLE);
  g_autoptr (GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  gulong id;

  type_into_spin (w, "Global batch size", "1001");
  g_assert_cmpstr (subtitle (w), ==, "The strategy is not valid");
  /* Mended: from the key press on, the subtitle says it is computing, until the
   * result says what runs; it never says "not valid" of a valid strategy. */
  id = g_signal_connect (t, "notify::subtitle", G_CALLBACK (on_subtitle), seen);
  type_into_spin (w, "Global batch size", "1000");
  g_signal_handler_disconnect (t, id);
  g_assert_null (plx_window_get_error (w));
  g_assert_cmpuint (seen->len, >=, 2);
  g_assert_cmpstr (seen->pdata[0], ==, "Computing…");
  g_assert_nonnull (strstr (seen->pdata[seen->len - 1], "TP 8"));
  for (guint i = 0; i < seen->len; i++)
    g_assert_cmpstr (seen->pdata[i], !=, "The strategy is not valid");
  close_window (w);
}

/* ---- 15. Export Search Scatter Plot only with a search's results ------------------ */

/* Opens the header bar's Export menu and says whether its scatter plot item can be
 * used; closes the menu again. */
static gboolean
scatter_item_sensitive (PlxWindow *w)
{
  GtkWidget *button = gi_find_tooltip (GTK_WIDGET (w), "Export"), *item;
  gboolean sensitive;

  g_assert_nonnull (button);
  gi_click (button);
  g_assert_true (gi_wait (gi_popover_is_open, NULL, 3000));
  gi_pump (200);
  item = gi_find_label (gi_open_popover (), "Export Search Scatter Plot…");
  g_assert_nonnull (item);
  sensitive = gtk_widget_is_sensitive (item);
  gi_key (NULL, XK_Escape);
  g_assert_true (gi_wait (gi_popover_is_closed, NULL, 3000));
  return sensitive;
}

static void
test_scatter_export (void)
{
  PlxWindow *w = open_window (1920, 1040);
  GtkWidget *page = plx_window_get_search_page (w), *start;

  g_assert_false (scatter_item_sensitive (w));
  gi_focus_window (GTK_WINDOW (w));
  gi_key ("ctrl", XK_f);
  gi_pump (200);
  start = gi_find_label (gi_find_type (page, ADW_TYPE_STATUS_PAGE), "Search");
  gi_click (start);
  g_assert_true (gi_wait (search_done, page, 60000));
  g_assert_true (gi_wait (results_shown, page, 10000));
  g_assert_true (scatter_item_sensitive (w));
  close_window (w);
}

/* ---- 14. a slider with one valid value says why ------------------------------------ */

static void
test_one_value_slider (void)
{
  PlxWindow *w = open_window (1400, 900);
  g_autofree char *dir = test_make_tmp_dir ("plx-display");
  /* GPT-3 175B on 8 nodes of one GPU each: TP cannot leave a node, so 1 is its only
   * value; PP 8 x TP 1 on 8 GPUs. */
  g_autofree char *path = write_scenario (dir, "one-gpu-nodes.json",
                                          "{ \"model\": { \"preset\": \"gpt3-175b\" },\n"
                                          "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 8,\n"
                                          "               \"gpus_per_node\": 1 },\n"
                                          "  \"strategy\": { \"tp\": 1, \"pp\": 8, \"global_batch_size\": 64,\n"
                                          "                \"seq_length\": 2048, \"recompute\": \"full\" } }\n");
  GtkWidget *row, *scale, *value;

  open_by_keyboard (w, path);
  g_assert_null (plx_window_get_error (w));
  row = panel_row (w, "Tensor parallel");
  scale = gi_find_type (row, GTK_TYPE_SCALE);
  /* No slider that goes nowhere: the value as text, and why it is the only one. */
  g_assert_null (scale);
  value = gi_find_label (row, "1");
  g_assert_nonnull (value);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==,
                   "The only value that divides the model's 96 attention heads and 8 GPUs with PP 8 × CP 1, "
                   "within a node of 1 GPU");
  /* PP still has several (1, 2, 4, 8 divide 96 layers and 8 GPUs): a slider. */
  g_assert_nonnull (gi_find_type (panel_row (w, "Pipeline parallel"), GTK_TYPE_SCALE));
  close_window (w);
  test_rm_rf (dir);
}

/* ---- 15. a new ONNX file shows nothing of the graph before ------------------------- */

static gboolean
graph_computed (gpointer data)
{
  PlxGraphPage *page = data;
  return !plx_graph_page_is_busy (page) &&
         (plx_graph_page_get_result (page) != NULL || plx_graph_page_get_error (page) != NULL);
}

static void
test_graph_resets (void)
{
  PlxWindow *w = open_window (1400, 900);
  g_autofree char *graph = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "graphs", "mlp-2layer.json", NULL);
  g_autofree char *script = g_build_filename (g_test_get_dir (G_TEST_DIST), "onnx", "make-models.py", NULL);
  g_autofree char *dir = test_make_tmp_dir ("plx-display-onnx");
  g_autofree char *model = g_build_filename (dir, "gpt2.onnx", NULL);
  const char *argv[] = { "/usr/bin/python3", script, dir, NULL };
  PlxGraphPage *page = PLX_GRAPH_PAGE (plx_window_get_graph_page (w));
  PlxPartitionView *partition = PLX_PARTITION_VIEW (plx_graph_page_get_partition_view (page));
  GtkWidget *ops;
  int wait = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &wait,
                               NULL));
  g_assert_true (g_spawn_check_wait_status (wait, NULL));
  /* The 2-layer MLP: 5 ops, drawn on its partition view. */
  open_by_keyboard (w, graph);
  g_assert_true (gi_wait (graph_computed, page, 10000));
  gi_pump (200);
  ops = gi_find_row (GTK_WIDGET (w), "Operations");
  g_assert_nonnull (ops);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (ops)), ==, "5");
  g_assert_cmpint (plx_partition_view_get_stage (partition, "fc1"), ==, 0);
  g_assert_nonnull (plx_graph_page_get_result (page));
  /* GPT-2 as ONNX with a symbolic batch: it asks for the size; until given, nothing
   * of the MLP stays - not its facts in the panel, its run or its partition. */
  open_by_keyboard (w, model);
  gi_pump (300);
  g_assert_cmpstr (plx_window_get_page (w), ==, "graph");
  g_assert_nonnull (strstr (plx_graph_page_get_error (page), "Type it under Sizes"));
  g_assert_null (gi_find_row (GTK_WIDGET (w), "Operations"));
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (gi_find_row (GTK_WIDGET (w), "Graph"))), ==,
                   "gpt2.onnx");
  g_assert_null (plx_graph_page_get_result (page));
  g_assert_cmpint (plx_partition_view_get_stage (partition, "fc1"), ==, -1);
  close_window (w);
  test_rm_rf (dir);
}

/* ---- 14. Compare at 1024 x 700 ---------------------------------------------------- */

static void
test_compare_small (void)
{
  PlxWindow *w = open_window (1024, 700);
  GtkWidget *chart = plx_window_get_chart (w, "compare"), *scroller, *scale;
  GtkAdjustment *adj;

  /* A pinned, then TP 1 (the slider's left end: 1, 2, 4, 8 divide 96 heads). The
   * toast that says so is closed first: it lies over the panel's foot. */
  gi_key ("ctrl", XK_p);
  settle (w);
  {
    GType toast_type = g_type_from_name ("AdwToastWidget");
    GtkWidget *toast = toast_type != 0 ? gi_find_type (GTK_WIDGET (w), toast_type) : NULL;
    GtkWidget *dismiss = toast != NULL ? gi_find_type (toast, GTK_TYPE_BUTTON) : NULL;
    if (dismiss != NULL)
      gi_click (dismiss);
    gi_pump (600);
  }
  scale = gi_find_type (panel_row (w, "Tensor parallel"), GTK_TYPE_SCALE);
  gi_click_at (scale, 10.0, gtk_widget_get_height (scale) / 2.0);
  settle (w);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->tp, ==, 1);
  click_tab (w, "Compare", "compare");
  gi_pump (300);
  /* The chart keeps the height its two timelines, breakdown and list of differences
   * need (640 px: 0.74 x 640 + 10 + 7 x 20 = 624 px to the list's last line,
   * plx-compare-chart.c) and scrolls in the 1024 x 700 window, which has less. */
  g_assert_cmpint (gtk_widget_get_height (chart), >=, 640);
  scroller = gtk_widget_get_ancestor (chart, GTK_TYPE_SCROLLED_WINDOW);
  g_assert_nonnull (scroller);
  adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  g_assert_cmpfloat (gtk_adjustment_get_upper (adj), >, gtk_adjustment_get_page_size (adj));
  /* The wheel takes it to the end, where the list is. */
  gi_scroll (scroller, gtk_widget_get_width (scroller) / 2.0, gtk_widget_get_height (scroller) / 2.0, FALSE, 20);
  gi_pump (200);
  g_assert_cmpfloat (gtk_adjustment_get_value (adj), ==, gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj));
  close_window (w);
}

/* ---- 14. the search table at 1400 px ---------------------------------------------- */

static void
test_search_columns (void)
{
  PlxWindow *w = open_window (1400, 900);
  GtkWidget *page = plx_window_get_search_page (w), *table, *paned;
  static const char *const apart[] = { "TP", "PP", "DP", "MBS", "ZeRO" };
  int pos;

  gi_key ("ctrl", XK_f);
  gi_pump (200);
  gi_click (gi_find_label (gi_find_type (page, ADW_TYPE_STATUS_PAGE), "Search"));
  g_assert_true (gi_wait (search_done, page, 60000));
  g_assert_true (gi_wait (results_shown, page, 10000));
  gi_pump (200);
  table = gi_find_type (page, GTK_TYPE_COLUMN_VIEW);
  paned = gi_find_type (page, GTK_TYPE_PANED);
  pos = gtk_paned_get_position (GTK_PANED (paned));
  /* The degrees, micro-batch and ZeRO stage, which tell the results apart, are left
   * of the divider. */
  for (guint i = 0; i < G_N_ELEMENTS (apart); i++)
    if (column_right_edge (GTK_COLUMN_VIEW (table), apart[i]) > pos)
      g_error ("column %s ends at %d px, right of the divider at %d px", apart[i],
               column_right_edge (GTK_COLUMN_VIEW (table), apart[i]), pos);
  /* A search at 64 GPUs only, of a dense model (GPT-3 has no experts: EP 1): what
   * is the same on every row is said once, not given a column. */
  g_assert_nonnull (strstr (plx_search_page_get_status (PLX_SEARCH_PAGE (page)), "Same in every result: EP 1, GPUs 64."));
  close_window (w);
}

/* ---- 14. the strategy's sliders in view at 1920 x 1080 ---------------------------- */

static void
test_sliders_in_view (void)
{
  PlxWindow *w = open_window (1920, 1080);
  GtkWidget *scroller = gtk_widget_get_ancestor (panel (w), GTK_TYPE_SCROLLED_WINDOW);
  static const char *const sliders[] = { "Tensor parallel", "Pipeline parallel", "Model chunks per stage",
                                         "Context parallel", "Micro-batch size" };

  g_assert_nonnull (scroller);
  g_assert_cmpfloat (gtk_adjustment_get_value (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller))),
                     ==, 0.0);
  for (guint i = 0; i < G_N_ELEMENTS (sliders); i++)
    {
      GtkWidget *row = gi_find_row (panel (w), sliders[i]);
      graphene_rect_t b;

      g_assert_nonnull (row);
      g_assert_true (gtk_widget_compute_bounds (row, scroller, &b));
      if (b.origin.y + b.size.height > gtk_widget_get_height (scroller))
        g_error ("%s ends at %.0f px, below the panel's %d px", sliders[i], b.origin.y + b.size.height,
                 gtk_widget_get_height (scroller));
    }
  close_window (w);
}

int
main (int argc, char **argv)
{
  char *home = gui_env_init (&argc, &argv);

  g_test_add_func ("/gui/display/hbm-zero", test_hbm_zero);
  g_test_add_func ("/gui/display/error-names", test_error_names);
  g_test_add_func ("/gui/display/computing", test_computing);
  g_test_add_func ("/gui/display/scatter-export", test_scatter_export);
  g_test_add_func ("/gui/display/one-value-slider", test_one_value_slider);
  g_test_add_func ("/gui/display/graph-resets", test_graph_resets);
  g_test_add_func ("/gui/display/compare-small", test_compare_small);
  g_test_add_func ("/gui/display/search-columns", test_search_columns);
  g_test_add_func ("/gui/display/sliders-in-view", test_sliders_in_view);
  return gui_env_finish (home, g_test_run ());
}
