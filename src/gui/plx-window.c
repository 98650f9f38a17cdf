/* The main window (plx-window.h): the scenario panel beside the numbers and the pages
 * of charts. This file makes the window and its pages; its other parts are listed in
 * plx-window-private.h. Its fixed structure (header bar, panel, message bars, cards,
 * pages, menus) is ui/plx-window.ui. */
#include <glib/gi18n-lib.h>

#include "plx-timeline-pane.h"
#include "plx-window-private.h"

G_DEFINE_FINAL_TYPE (PlxWindow, plx_window, ADW_TYPE_APPLICATION_WINDOW)

int
plx_window_chart_index (const char *which)
{
  static const char *const chart_names[] = { "timeline", "memory", "compare" };

  for (int i = 0; i < (int) G_N_ELEMENTS (chart_names); i++)
    if (g_str_equal (which, chart_names[i]))
      return i;
  return -1;
}

/* Keeps the control that has the keyboard focus in view in the panel (Tab through
 * the settings), as GtkViewport would, but not for a dropdown's open list. */
static void
on_focus_widget (GtkWindow *window, GParamSpec *pspec, PlxWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->panel_scroller);
  graphene_rect_t b;

  if (focus == NULL || !gtk_widget_is_ancestor (focus, GTK_WIDGET (self->panel)) ||
      gtk_widget_get_ancestor (focus, GTK_TYPE_POPOVER) != NULL ||
      !gtk_widget_compute_bounds (focus, GTK_WIDGET (self->panel), &b))
    return;
  gtk_adjustment_clamp_page (adj, b.origin.y, b.origin.y + b.size.height);
}

/* On the Graph page the scenario's numbers and its model and strategy would describe
 * what is not shown: the summary cards and the "does not fit" bar step aside (the
 * page has its own figures) and the panel shows the graph's facts above the cluster
 * it runs on. Any other page shows the scenario again. */
static void
update_page_mode (PlxWindow *self)
{
  const char *page = adw_view_stack_get_visible_child_name (self->stack);
  const char *const *facts = plx_graph_page_get_fact_rows (self->graph_page);
  gboolean graph = page != NULL && g_str_equal (page, "graph") && facts != NULL;

  self->graph_shown = graph;
  plx_scenario_panel_show_graph (self->panel, graph ? facts : NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->cards), !graph);
  gtk_widget_set_visible (self->fit_bar, self->fit_shown && !graph);
}

/* Charts follow the window's style (light or dark) unless the preference "chart-style"
 * pins them to one; the setting is read each time, so a change applies at once. */
static void
apply_chart_style (PlxWindow *self)
{
  g_autofree char *style = self->settings ? g_settings_get_string (self->settings, "chart-style") : g_strdup ("follow");
  gboolean dark = g_str_equal (style, "dark") ||
                  (g_str_equal (style, "follow") && adw_style_manager_get_dark (adw_style_manager_get_default ()));

  self->dark_charts = dark;
  plx_breakdown_view_set_dark (self->breakdown, dark);
  for (guint i = 0; i < 3; i++)
    plx_chart_view_set_dark (PLX_CHART_VIEW (self->charts[i]), dark);
  plx_scatter_view_set_dark (plx_search_page_get_scatter (self->search_page), dark);
  plx_reshard_page_set_dark (self->reshard_page, dark);
  plx_sensitivity_page_set_dark (self->sensitivity_page, dark);
  plx_calibration_page_set_dark (self->calibration_page, dark);
  if (self->graph_page != NULL)
    plx_graph_page_set_dark (self->graph_page, dark);
}

gboolean
plx_window_charts_are_dark (PlxWindow *self)
{
  return self->dark_charts;
}

/* ---- drag and drop -------------------------------------------------------------- */

static gboolean
on_drop (GtkDropTarget *target, const GValue *value, double x, double y, PlxWindow *self)
{
  GSList *files;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;
  files = g_value_get_boxed (value);
  if (files == NULL)
    return FALSE;
  plx_window_ask_then_replace (self, G_FILE (files->data));
  return TRUE;
}

/* ---- latency --------------------------------------------------------------------- */

/* How long a frame may wait for a computation in flight. A slider change paints a
 * frame at once; without waiting, the new charts come a whole frame (16.7 ms at
 * 60 Hz) later even when the simulation takes 2 ms. Waiting up to 4 ms puts them in
 * that frame and still leaves most of the frame's budget for drawing. */
#define FRAME_WAIT_US 4000

static void
on_before_paint (GdkFrameClock *clock, PlxWindow *self)
{
  if (plx_engine_is_busy (self->engine))
    plx_engine_deliver_within (self->engine, FRAME_WAIT_US);
}

static gboolean
plx_window_close_request (GtkWindow *window)
{
  PlxWindow *self = PLX_WINDOW (window);

  if (self->settings != NULL)
    {
      int w, h;
      gtk_window_get_default_size (window, &w, &h);
      g_settings_set_int (self->settings, "window-width", w);
      g_settings_set_int (self->settings, "window-height", h);
      g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
    }
  if (!self->dirty)
    return GTK_WINDOW_CLASS (plx_window_parent_class)->close_request (window);
  plx_window_ask_before_closing (self);
  return TRUE;
}

static void
plx_window_realize (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (plx_window_parent_class)->realize (widget);
  g_signal_connect_object (gtk_widget_get_frame_clock (widget), "before-paint", G_CALLBACK (on_before_paint), widget, 0);
}

/* ---- construction --------------------------------------------------------------- */

static void
plx_window_dispose (GObject *object)
{
  PlxWindow *self = PLX_WINDOW (object);

  if (self->engine != NULL)
    g_signal_handlers_disconnect_by_data (self->engine, self);
  /* The stack and the graph page go with the template, the panel perhaps first. */
  if (self->stack != NULL)
    g_signal_handlers_disconnect_by_func (self->stack, update_page_mode, self);
  if (self->graph_page != NULL)
    g_signal_handlers_disconnect_by_func (self->graph_page, update_page_mode, self);
  g_clear_object (&self->engine);
  g_clear_pointer (&self->result, plx_result_unref);
  g_clear_pointer (&self->pinned, plx_result_unref);
  g_clear_pointer (&self->error, g_free);
  g_clear_pointer (&self->graph_cluster, g_free);
  g_clear_pointer (&self->doc, plx_window_document_unref);
  g_clear_object (&self->replace_with);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->before_choice, json_node_unref);
  g_clear_pointer (&self->history, plx_history_free);
  gtk_widget_dispose_template (GTK_WIDGET (self), PLX_TYPE_WINDOW);
  G_OBJECT_CLASS (plx_window_parent_class)->dispose (object);
}

static void
plx_window_class_init (PlxWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = plx_window_dispose;
  widget_class->realize = plx_window_realize;
  GTK_WINDOW_CLASS (klass)->close_request = plx_window_close_request;

  g_type_ensure (PLX_TYPE_SUMMARY_CARD);
  g_type_ensure (PLX_TYPE_SCENARIO_PANEL);
  g_type_ensure (PLX_TYPE_TIMELINE_PANE);
  g_type_ensure (PLX_TYPE_CHART_VIEW);
  g_type_ensure (PLX_TYPE_BREAKDOWN_VIEW);
  g_type_ensure (PLX_TYPE_SENSITIVITY_PAGE);
  g_type_ensure (PLX_TYPE_CALIBRATION_PAGE);
  g_type_ensure (PLX_TYPE_SEARCH_PAGE);
  g_type_ensure (PLX_TYPE_RESHARD_PAGE);
  g_type_ensure (PLX_TYPE_GRAPH_PAGE);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/parallax/Parallax/ui/plx-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, toasts);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, compare_button);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, panel_scroller);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, error_revealer);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, error_label);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, fix_box);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, file_revealer);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, file_label);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, fit_bar);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, fit_label);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, fit_box);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, cards);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, recent_section);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, panel);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, timeline_pane);
  gtk_widget_class_bind_template_child_full (widget_class, "memory_chart", FALSE,
                                             G_STRUCT_OFFSET (PlxWindow, charts) + 1 * sizeof (GtkWidget *));
  gtk_widget_class_bind_template_child_full (widget_class, "compare_chart", FALSE,
                                             G_STRUCT_OFFSET (PlxWindow, charts) + 2 * sizeof (GtkWidget *));
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, breakdown);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, sensitivity_page);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, calibration_page);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, search_page);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, compare_page);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, reshard_page);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, graph_page);
  gtk_widget_class_bind_template_child (widget_class, PlxWindow, graph_stack_page);

  for (guint i = 0; i < N_CARDS; i++)
    {
      static const char *const ids[N_CARDS] = { "card_step", "card_throughput", "card_mfu", "card_memory", "card_bubble" };
      gtk_widget_class_bind_template_child_full (widget_class, ids[i], FALSE,
                                                 G_STRUCT_OFFSET (PlxWindow, card) + i * sizeof (PlxSummaryCard *));
    }
  /* The window's own shortcuts, so they work in any window, with or without the
   * application (which sets the same ones as accelerators for its menus). */
  plx_window_actions_install (widget_class);
}

static void
plx_window_init (PlxWindow *self)
{
  GtkDropTarget *drop;
  GSettingsSchema *schema;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->doc = plx_window_document_new (NULL);
  /* The app icon from the resources, for About when nothing is installed (the
   * application adds the same path; a window made without one needs it too). */
  {
    static gsize icons_added;
    if (g_once_init_enter (&icons_added))
      {
        gtk_icon_theme_add_resource_path (gtk_icon_theme_get_for_display (gtk_widget_get_display (GTK_WIDGET (self))),
                                          "/org/parallax/Parallax/icons");
        g_once_init_leave (&icons_added, 1);
      }
  }

  /* The cards are numbers to read, not choices: Tab passes them by. */
  for (guint i = 0; i < N_CARDS; i++)
    gtk_widget_set_focusable (GTK_WIDGET (gtk_flow_box_get_child_at_index (self->cards, (int) i)), FALSE);

  {
    /* GtkViewport scrolls to whatever takes the focus inside it - including an item
     * of a dropdown's popover, which is the row's child: pressing "PyTorch" in the
     * Training code list scrolled the panel 40 px, the list moved with it and the
     * release chose the item below. The panel follows the keyboard focus itself,
     * except into popovers. */
    GtkWidget *viewport = gtk_scrolled_window_get_child (self->panel_scroller);
    if (GTK_IS_VIEWPORT (viewport))
      gtk_viewport_set_scroll_to_focus (GTK_VIEWPORT (viewport), FALSE);
    g_signal_connect (self, "notify::focus-widget", G_CALLBACK (on_focus_widget), self);
  }
  g_signal_connect (self->panel, "changed", G_CALLBACK (plx_window_on_panel_changed), self);

  self->charts[0] = GTK_WIDGET (plx_timeline_pane_get_chart (self->timeline_pane));
  g_signal_connect (self->calibration_page, "use-cluster", G_CALLBACK (plx_window_on_use_cluster), self);
  g_signal_connect (self->search_page, "strategy-chosen", G_CALLBACK (plx_window_on_strategy_chosen), self);
  g_signal_connect_object (plx_search_page_get_rows (self->search_page), "items-changed",
                           G_CALLBACK (plx_window_actions_update_scatter), self, 0);
  plx_window_actions_update_scatter (plx_search_page_get_rows (self->search_page), 0, 0, 0, self);
  g_signal_connect_swapped (self->graph_page, "loaded", G_CALLBACK (update_page_mode), self);
  g_signal_connect_swapped (self->stack, "notify::visible-child-name", G_CALLBACK (update_page_mode), self);

  self->history = plx_history_new_full (plx_window_document_ref, plx_window_document_unref);
  self->engine = plx_engine_new ();
  g_signal_connect (self->engine, "computed", G_CALLBACK (plx_window_on_computed), self);
  g_signal_connect (self->engine, "sampled", G_CALLBACK (plx_window_on_sampled), self);
  g_signal_connect (self->engine, "failed", G_CALLBACK (plx_window_on_failed), self);

  plx_window_actions_update_pin (self);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark", G_CALLBACK (apply_chart_style), self,
                           G_CONNECT_SWAPPED);
  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  /* GSettings only when the schema is installed (or GSETTINGS_SCHEMA_DIR names it). */
  schema = g_settings_schema_source_get_default () != NULL
             ? g_settings_schema_source_lookup (g_settings_schema_source_get_default (), "org.parallax.Parallax", TRUE)
             : NULL;
  if (schema != NULL)
    {
      self->settings = g_settings_new ("org.parallax.Parallax");
      gtk_window_set_default_size (GTK_WINDOW (self), g_settings_get_int (self->settings, "window-width"),
                                   g_settings_get_int (self->settings, "window-height"));
      if (g_settings_get_boolean (self->settings, "window-maximized"))
        gtk_window_maximize (GTK_WINDOW (self));
      g_settings_schema_unref (schema);
    }

  /* The built-in default scenario, then the last one if it still opens. */
  {
    g_autoptr (JsonNode) def = plx_scenario_default_json ();
    g_autofree char *cwd = g_get_current_dir ();
    plx_window_replace_scenario (self, def, cwd, _("built-in default scenario"), NULL, NULL);
  }
  if (self->settings != NULL)
    {
      g_autofree char *last = g_settings_get_string (self->settings, "last-scenario");
      if (last[0] != '\0' && g_file_test (last, G_FILE_TEST_IS_REGULAR))
        {
          g_autoptr (GFile) file = g_file_new_for_path (last);
          plx_window_open_file (self, file, NULL);
        }
      plx_window_rebuild_recent_menu (self);
      g_signal_connect_swapped (self->settings, "changed::chart-style", G_CALLBACK (apply_chart_style), self);
    }
  apply_chart_style (self);
}

PlxWindow *
plx_window_new (AdwApplication *app)
{
  /* The application loads style.css from its resources; a window made without one
   * (tests, benchmarks) loads it itself, once, so they see what a user sees. */
  static gboolean styled;

  if (app == NULL && !styled)
    {
      GtkCssProvider *css = gtk_css_provider_new ();
      gtk_css_provider_load_from_resource (css, "/org/parallax/Parallax/style.css");
      gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                                  GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
      g_object_unref (css);
      styled = TRUE;
    }
  return g_object_new (PLX_TYPE_WINDOW, "application", app, NULL);
}

PlxResult *
plx_window_get_result (PlxWindow *self)
{
  return self->result;
}

PlxResult *
plx_window_get_pinned (PlxWindow *self)
{
  return self->pinned;
}

const char *
plx_window_get_error (PlxWindow *self)
{
  return self->error;
}

gboolean
plx_window_is_busy (PlxWindow *self)
{
  return plx_engine_is_busy (self->engine) || plx_engine_is_sampling (self->engine);
}

gboolean
plx_window_is_dirty (PlxWindow *self)
{
  return self->dirty;
}

GtkWidget *
plx_window_get_search_page (PlxWindow *self)
{
  return GTK_WIDGET (self->search_page);
}

GtkWidget *
plx_window_get_panel (PlxWindow *self)
{
  return GTK_WIDGET (self->panel);
}

GtkWidget *
plx_window_get_chart (PlxWindow  *self,
                      const char *which)
{
  int i = plx_window_chart_index (which);

  return i >= 0 ? self->charts[i] : NULL;
}

const char *
plx_window_get_card_text (PlxWindow *self,
                          guint      card)
{
  return card < N_CARDS ? plx_summary_card_get_text (self->card[card]) : NULL;
}

void
plx_window_show_page (PlxWindow  *self,
                      const char *page)
{
  adw_view_stack_set_visible_child_name (self->stack, page);
}

GtkWidget *
plx_window_get_reshard_page (PlxWindow *self)
{
  return GTK_WIDGET (self->reshard_page);
}

GtkWidget *
plx_window_get_sensitivity_page (PlxWindow *self)
{
  return GTK_WIDGET (self->sensitivity_page);
}

GtkWidget *
plx_window_get_calibration_page (PlxWindow *self)
{
  return GTK_WIDGET (self->calibration_page);
}

GtkWidget *
plx_window_get_graph_page (PlxWindow *self)
{
  return GTK_WIDGET (self->graph_page);
}

const char *
plx_window_get_page (PlxWindow *self)
{
  return adw_view_stack_get_visible_child_name (self->stack);
}



double
plx_window_get_breakdown_share (PlxWindow *self,
                                guint      category)
{
  return plx_breakdown_view_get_share (self->breakdown, category);
}
