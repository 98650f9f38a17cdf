#include <glib/gi18n-lib.h>

#include "plx-calibration-page.h"
#include "plx-chart-view.h"
#include "plx-compare-chart.h"
#include "plx-render-style.h"
#include "plx-engine.h"
#include "plx-format.h"
#include "plx-graph-page.h"
#include "plx-history.h"
#include "plx-key-names.h"
#include "plx-reshard-page.h"
#include "plx-scenario-panel.h"
#include "plx-search-page.h"
#include "plx-sensitivity-page.h"
#include "plx-timeline-pane.h"
#include "plx-tooltip.h"
#include "plx-window.h"
#include "base/plx-json.h"
#include "optimize/plx-advice.h"

enum { CARD_STEP, CARD_THROUGHPUT, CARD_MFU, CARD_MEMORY, CARD_BUBBLE, N_CARDS };

/* Two timelines of 8 stages with a row each, the breakdown and its 7 differences in
 * one column (0.74 h + 10 + 7 x 20 px, plx-compare-chart.c) fit from here on. */
#define COMPARE_MIN_HEIGHT_PX 640

/* The file a scenario belongs to and its text as last opened or saved there. Each
 * step of the history names its document, so undoing an Open (or New) gives back
 * the scenario and its file; Save As renames the document for all its steps. */
typedef struct
{
  GFile *file;        /* NULL: untitled */
  char  *clean_text;  /* undo back to this text is clean */
} Document;

static void
document_clear (gpointer data)
{
  Document *d = data;

  g_clear_object (&d->file);
  g_clear_pointer (&d->clean_text, g_free);
}

static Document *
document_new (GFile *file)
{
  Document *d = g_atomic_rc_box_new0 (Document);

  d->file = file != NULL ? g_object_ref (file) : NULL;
  return d;
}

static gpointer
document_ref (gpointer d)
{
  return g_atomic_rc_box_acquire (d);
}

static void
document_unref (gpointer d)
{
  g_atomic_rc_box_release_full (d, document_clear);
}

/* What waits for the answer to "Save Changes?": closing, or replacing the scenario
 * by a file (or by New, `file` NULL). */
typedef enum { THEN_NOTHING, THEN_CLOSE, THEN_REPLACE } Then;

struct _PlxWindow
{
  AdwApplicationWindow parent_instance;

  /* Template children. */
  AdwToastOverlay *toasts;
  AdwWindowTitle  *window_title;
  GtkToggleButton *compare_button;
  GtkScrolledWindow *panel_scroller;
  GtkRevealer     *error_revealer;
  GtkLabel        *error_label;
  GtkBox          *fix_box;
  GtkRevealer     *file_revealer;
  GtkLabel        *file_label;
  GtkWidget       *fit_bar;
  GtkLabel        *fit_label;
  GtkFlowBox      *fit_box;
  GtkFlowBox      *cards;
  AdwViewStack    *stack;

  PlxScenarioPanel *panel;
  PlxSearchPage   *search_page;
  PlxReshardPage  *reshard_page;
  PlxSensitivityPage *sensitivity_page;
  PlxCalibrationPage *calibration_page;
  GtkWidget       *charts[3];      /* timeline, memory, compare */
  GtkWidget       *breakdown;      /* GtkGrid */
  GtkLabel        *bd_value[PLX_N_TIME];
  GtkLabel        *bd_share[PLX_N_TIME];
  GtkWidget       *bd_bar[PLX_N_TIME];  /* drawn in the category's timeline colour */
  double           bd_fraction[PLX_N_TIME];
  GtkLabel        *bd_total;
  AdwViewStackPage *compare_page;
  PlxGraphPage    *graph_page;     /* a graph or ONNX model opened (hidden until one is) */
  AdwViewStackPage *graph_stack_page;
  char            *graph_cluster;  /* the cluster the graph page runs on, as JSON text */
  gboolean         graph_shown;    /* the Graph page is up: the header and panel show its model */
  gboolean         fit_shown;      /* the scenario's "does not fit" bar is wanted */
  int              timeline_width; /* the timeline chart's size as last seen, its height */
  int              timeline_height[2]; /* with the fit bar hidden [0] and shown [1]; 0: not seen */
  GtkLabel        *card_value[N_CARDS];
  GtkLabel        *card_detail[N_CARDS];
  GtkWidget       *card_box[N_CARDS];
  char            *card_text[N_CARDS];
  PlxEngine       *engine;
  PlxResult       *result;
  PlxResult       *pinned;
  char            *error;
  Document        *doc;            /* where the scenario was opened from or saved to */
  gboolean         dirty;
  GFile           *replace_with;   /* the file to open once "Save Changes?" is answered; */
  gboolean         replace_new;    /* or New */
  gboolean         loading;
  gboolean         dark_charts;
  GSettings       *settings;
  GMenu           *recent_section;
  PlxHistory      *history;
  gboolean         applying_history;
  JsonNode        *before_choice;  /* the scenario a search result replaced, for Undo */
  gboolean         before_choice_dirty;
};

G_DEFINE_FINAL_TYPE (PlxWindow, plx_window, ADW_TYPE_APPLICATION_WINDOW)

static const char *const chart_names[] = { "timeline", "memory", "compare" };

/* ---- numbers ------------------------------------------------------------------- */

static void
set_card (PlxWindow *self, guint card, const char *value, const char *detail)
{
  /* Unchanged text: no relayout of the window. */
  if (g_strcmp0 (gtk_label_get_text (self->card_value[card]), value) != 0)
    gtk_label_set_text (self->card_value[card], value);
  if (g_strcmp0 (gtk_label_get_text (self->card_detail[card]), detail) != 0)
    gtk_label_set_text (self->card_detail[card], detail);
  g_free (self->card_text[card]);
  self->card_text[card] = g_strdup_printf ("%s %s", value, detail);
  plx_tooltip_set (self->card_box[card], detail[0] ? self->card_text[card] : NULL, FALSE);
}

/* A share of the step as a bar in the category's timeline colour: a level bar would
 * turn green past 75 % and red below 25 %, meanings these shares do not have. */
static void
draw_share_bar (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  PlxWindow *self = data;
  guint i = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (area), "category"));
  PlxRenderStyle style;
  PlxColor c;
  double share = CLAMP (self->bd_fraction[i], 0.0, 1.0);

  plx_render_style_init (&style, self->dark_charts, 1.0);
  c = plx_render_style_time_color (&style, (PlxTimeCategory) i);
  cairo_set_source_rgba (cr, 0.5, 0.5, 0.5, 0.15);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
  cairo_rectangle (cr, 0, 0, width * share, height);
  cairo_fill (cr);
}

double
plx_window_get_breakdown_share (PlxWindow *self,
                                guint      category)
{
  return category < PLX_N_TIME ? self->bd_fraction[category] : 0.0;
}

/* The breakdown's widgets are made once and only relabelled, so a new result does
 * not rebuild (and re-measure) them. */
static void
build_breakdown (PlxWindow *self)
{
  static const char *const names[PLX_N_TIME] = {
    N_("Compute"), N_("Recompute"), N_("TP / CP / EP communication"), N_("Pipeline communication"),
    N_("Data-parallel communication"), N_("Bubble (idle)"), N_("Optimizer"),
  };
  GtkGrid *grid = GTK_GRID (self->breakdown);

  for (guint i = 0; i < PLX_N_TIME; i++)
    {
      GtkWidget *name = gtk_label_new (_(names[i]));
      GtkWidget *value = gtk_label_new ("");
      GtkWidget *share = gtk_label_new ("");
      GtkWidget *bar = gtk_drawing_area_new ();

      gtk_label_set_xalign (GTK_LABEL (name), 0);
      gtk_label_set_xalign (GTK_LABEL (value), 1);
      gtk_label_set_xalign (GTK_LABEL (share), 1);
      gtk_label_set_width_chars (GTK_LABEL (value), 11);
      gtk_label_set_width_chars (GTK_LABEL (share), 7);
      gtk_widget_add_css_class (value, "numeric");
      gtk_widget_set_hexpand (bar, TRUE);
      gtk_widget_set_valign (bar, GTK_ALIGN_CENTER);
      gtk_grid_attach (grid, name, 0, i, 1, 1);
      gtk_grid_attach (grid, value, 1, i, 1, 1);
      gtk_grid_attach (grid, share, 2, i, 1, 1);
      gtk_grid_attach (grid, bar, 3, i, 1, 1);
      self->bd_value[i] = GTK_LABEL (value);
      self->bd_share[i] = GTK_LABEL (share);
      gtk_widget_set_size_request (bar, 60, 10);
      g_object_set_data (G_OBJECT (bar), "category", GUINT_TO_POINTER (i));
      gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (bar), draw_share_bar, self, NULL);
      self->bd_bar[i] = bar;
    }
  self->bd_total = GTK_LABEL (gtk_label_new (""));
  gtk_label_set_xalign (self->bd_total, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->bd_total), "dim-label");
  gtk_grid_attach (grid, GTK_WIDGET (self->bd_total), 0, PLX_N_TIME, 4, 1);
}

static void
update_breakdown (PlxWindow *self)
{
  const PlxReport *r = &self->result->report;

  for (guint i = 0; i < PLX_N_TIME; i++)
    {
      g_autofree char *t = plx_format_time (r->time_s[i]);
      g_autofree char *pct = g_strdup_printf ("%.1f %%", 100.0 * r->time_s[i] / r->step_time_s);
      gtk_label_set_text (self->bd_value[i], t);
      gtk_label_set_text (self->bd_share[i], pct);
      self->bd_fraction[i] = r->time_s[i] / r->step_time_s;
      gtk_widget_queue_draw (self->bd_bar[i]);
    }
  {
    g_autofree char *t = plx_format_time (r->step_time_s);
    g_autofree char *text = g_strdup_printf (_("Step time on stage %u, the GPU with the highest memory peak: %s"),
                                             r->reported_stage, t);
    gtk_label_set_text (self->bd_total, text);
  }
}

/* The title names the document (its file, or the scenario's name), with a dot while
 * it has unsaved changes; the subtitle says what runs now, from the resolved
 * scenario, so it follows every edit. */
static void
update_title (PlxWindow *self)
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

static char *scenario_text (PlxWindow *self);

/* A file's name without its folder and ".json": the scenario's name once saved there. */
static char *
name_of_file (GFile *file)
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
  g_autofree char *name = self->doc->file != NULL ? name_of_file (self->doc->file) : NULL;

  if (g_strcmp0 (plx_scenario_panel_get_name (self->panel), name) == 0)
    return FALSE;
  plx_scenario_panel_set_name (self->panel, name);
  return TRUE;
}

static void
set_dirty (PlxWindow *self, gboolean dirty)
{
  self->dirty = dirty;
  if (!dirty && self->panel != NULL)
    {
      g_free (self->doc->clean_text);
      self->doc->clean_text = scenario_text (self);
    }
  update_title (self);
}

static void
on_fix_clicked (GtkButton *button, PlxWindow *self)
{
  const char *key = g_object_get_data (G_OBJECT (button), "key");
  JsonNode *value = g_object_get_data (G_OBJECT (button), "value");

  plx_scenario_panel_apply_fix (self->panel, key, value);
}

static void
clear_box (GtkWidget *box)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (box)) != NULL)
    {
      if (GTK_IS_FLOW_BOX (box))
        gtk_flow_box_remove (GTK_FLOW_BOX (box), child);
      else
        gtk_box_remove (GTK_BOX (box), child);
    }
}

static GtkWidget *
fix_button (PlxWindow *self, const PlxAdviceFix *fix)
{
  g_autofree char *t = plx_format_time (fix->step_time_s);
  g_autofree char *tip = g_strdup_printf (_("Step time with this change: %s"), t);
  GtkWidget *b = gtk_button_new_with_label (fix->label);

  plx_tooltip_set (b, tip, FALSE);
  g_object_set_data_full (G_OBJECT (b), "key", g_strdup (fix->key), g_free);
  g_object_set_data_full (G_OBJECT (b), "value", plx_json_deep_copy (fix->value), (GDestroyNotify) json_node_unref);
  g_object_set_data_full (G_OBJECT (b), "step-time", g_memdup2 (&fix->step_time_s, sizeof (double)), g_free);
  g_signal_connect (b, "clicked", G_CALLBACK (on_fix_clicked), self);
  return b;
}

/* Does the fit bar hold one button for each of `fixes`, in order, as fix_button()
 * would make them? */
static gboolean
shows_fixes (PlxWindow *self, GPtrArray *fixes)
{
  GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->fit_box));

  for (guint i = 0; fixes != NULL && i < fixes->len; i++, child = gtk_widget_get_next_sibling (child))
    {
      const PlxAdviceFix *fix = g_ptr_array_index (fixes, i);
      GtkWidget *b = child != NULL ? gtk_flow_box_child_get_child (GTK_FLOW_BOX_CHILD (child)) : NULL;
      const double *step = b != NULL ? g_object_get_data (G_OBJECT (b), "step-time") : NULL;
      JsonNode *value = b != NULL ? g_object_get_data (G_OBJECT (b), "value") : NULL;

      if (step == NULL || value == NULL || *step != fix->step_time_s ||
          g_strcmp0 (gtk_button_get_label (GTK_BUTTON (b)), fix->label) != 0 ||
          g_strcmp0 (g_object_get_data (G_OBJECT (b), "key"), fix->key) != 0 || !json_node_equal (value, fix->value))
        return FALSE;
    }
  return child == NULL;
}

/* The nearest valid values, one button each. */
static void
offer_fixes (PlxWindow *self)
{
  g_autoptr (GPtrArray) fixes = plx_scenario_panel_nearest_fixes (self->panel);

  clear_box (GTK_WIDGET (self->fix_box));
  if (fixes == NULL || fixes->len == 0)
    return;
  gtk_box_append (self->fix_box, gtk_label_new (_("Nearest valid:")));
  for (guint i = 0; i < fixes->len; i++)
    gtk_box_append (self->fix_box, fix_button (self, g_ptr_array_index (fixes, i)));
}

/* Does not fit: why (by how much, and which memory dominates) and the single changes
 * that would make it fit, fastest first, as buttons. The largest micro-batch that
 * fits goes beside the micro-batch slider either way.
 *
 * The buttons stay in the hidden bar when the strategy fits, and the same changes
 * keep their buttons: a drag back and forth across a strategy that does not fit
 * offers the same changes each time, and removing the buttons and making them anew
 * (widgets, their style, their flow-box children) was 30 % of the instructions a new
 * result cost the main thread before its frame. */
static void
offer_fit (PlxWindow *self, PlxResult *r)
{
  GPtrArray *fixes = r->fit_fixes;

  /* Both computed by the worker (plx-engine.c). */
  plx_scenario_panel_show_max_micro_batch (self->panel, r->max_micro_batch);
  if (r->report.fits_in_memory)
    {
      if (self->fit_shown)
        {
          self->fit_shown = FALSE;
          gtk_widget_set_visible (self->fit_bar, FALSE);
        }
      return;
    }
  {
    const PlxReport *rep = &r->report;
    guint biggest = 0;
    g_autofree char *text = NULL;
    for (guint i = 1; i < PLX_N_MEM; i++)
      if (rep->memory_bytes[i] > rep->memory_bytes[biggest])
        biggest = i;
    text = g_strdup_printf (_("Does not fit: %.1f GiB needed, %.1f GiB usable (%.1f GiB over); most of it is %s. "
                              "What would fit:"),
                            rep->peak_memory_bytes / 1073741824.0, rep->hbm_usable_bytes / 1073741824.0,
                            (rep->peak_memory_bytes - (double) rep->hbm_usable_bytes) / 1073741824.0,
                            plx_mem_category_display_name ((PlxMemCategory) biggest));
    gtk_label_set_text (self->fit_label, text);
  }
  if (fixes == NULL || fixes->len == 0)
    {
      gtk_label_set_text (self->fit_label, _("Does not fit, and no single change of one setting makes it fit: "
                                             "try a search (Ctrl+F)."));
    }
  if (!shows_fixes (self, fixes))
    {
      clear_box (GTK_WIDGET (self->fit_box));
      for (guint i = 0; fixes != NULL && i < fixes->len; i++)
        gtk_flow_box_append (self->fit_box, fix_button (self, g_ptr_array_index (fixes, i)));
    }
  self->fit_shown = TRUE;
  gtk_widget_set_visible (self->fit_bar, !self->graph_shown);
}

/* With uncertain cluster inputs the step card carries the sampled p5-p95 band (the
 * analytical engine's, over PLX_GUI_UNCERTAINTY_SAMPLES draws). */
static char *
step_detail (const PlxResult *r)
{
  g_autofree char *p5 = NULL, *p95 = NULL;

  if (!r->sampled)
    return g_strdup_printf (_("per step on %u GPUs"), r->report.n_gpus);
  p5 = plx_format_time_short (r->uncertainty.step_p5_s);
  p95 = plx_format_time_short (r->uncertainty.step_p95_s);
  /* The GPU count is in the window's subtitle; the band needs the room. */
  return g_strdup_printf (_("p5–p95 %s – %s"), p5, p95);
}

/* The step card's second line and the memory card's OOM risk, which the sampled band
 * sets; it may arrive after the result ("sampled"). */
static void
show_band (PlxWindow *self, const PlxResult *r)
{
  const PlxReport *rep = &r->report;
  g_autofree char *step = plx_format_time (rep->step_time_s);
  g_autofree char *step_d = step_detail (r);
  g_autofree char *mem = g_strdup_printf ("%.1f GiB", rep->peak_memory_bytes / 1073741824.0);
  g_autofree char *mem_d = rep->fits_in_memory
                             ? g_strdup_printf (_("fits: %.0f GiB usable"), rep->hbm_usable_bytes / 1073741824.0)
                             : g_strdup_printf (_("does not fit: %.0f GiB usable"), rep->hbm_usable_bytes / 1073741824.0);

  set_card (self, CARD_STEP, step, step_d);
  if (r->sampled && r->uncertainty.oom_probability > 0.0)
    {
      /* The risk beside the nominal verdict: the nominal peak may fit while some
       * draws of the cluster's uncertain inputs leave too little HBM. The risk
       * first: the line is cut short at 26 characters, and after the verdict the
       * risk was cut off even at 1400 px. */
      double pct = r->uncertainty.oom_probability * 100.0;
      char *with_risk = g_strdup_printf (_("OOM risk %.*f %%; %s"), pct >= 10.0 ? 0 : pct >= 1.0 ? 1 : 2, pct, mem_d);
      g_free (mem_d);
      mem_d = with_risk;
    }
  set_card (self, CARD_MEMORY, mem, mem_d);
}

static void
on_sampled (PlxEngine *engine, PlxResult *r, PlxWindow *self)
{
  if (r != self->result)
    return;
  show_band (self, r);
  /* The timeline's band and its whole-step view, which reaches to p95. */
  plx_chart_view_set_result (PLX_CHART_VIEW (self->charts[0]), r);
}

static void
show_result (PlxWindow *self, PlxResult *r)
{
  const PlxReport *rep = &r->report;
  g_autofree char *tps = plx_format_count (rep->tokens_per_s);
  g_autofree char *tps_gpu = plx_format_count (rep->tokens_per_s / rep->n_gpus);
  g_autofree char *tps_d = g_strdup_printf (_("tokens/s (%s per GPU)"), tps_gpu);
  g_autofree char *mfu = g_strdup_printf ("%.1f %%", rep->mfu * 100.0);
  g_autofree char *mfu_d = g_strdup_printf (_("MFU (HFU %.1f %%)"), rep->hfu * 100.0);
  g_autofree char *bubble = g_strdup_printf ("%.1f %%", rep->bubble_fraction * 100.0);

  g_clear_pointer (&self->result, plx_result_unref);
  self->result = plx_result_ref (r);
  g_clear_pointer (&self->error, g_free);
  gtk_revealer_set_reveal_child (self->error_revealer, FALSE);
  plx_scenario_panel_mark_faults (self->panel, NULL);
  gtk_widget_set_sensitive (self->breakdown, TRUE);

  set_card (self, CARD_THROUGHPUT, tps, tps_d);
  set_card (self, CARD_MFU, mfu, mfu_d);
  show_band (self, r);
  set_card (self, CARD_BUBBLE, bubble, _("pipeline bubble"));
  if (rep->fits_in_memory)
    gtk_widget_remove_css_class (GTK_WIDGET (self->card_detail[CARD_MEMORY]), "error");
  else
    gtk_widget_add_css_class (GTK_WIDGET (self->card_detail[CARD_MEMORY]), "error");

  for (guint i = 0; i < 3; i++)
    {
      plx_chart_view_set_error (PLX_CHART_VIEW (self->charts[i]), NULL);
      plx_chart_view_set_result (PLX_CHART_VIEW (self->charts[i]), r);
    }
  update_breakdown (self);
  offer_fit (self, r);
  plx_search_page_set_scenario (self->search_page, r);
  plx_reshard_page_set_scenario (self->reshard_page, r);
  plx_sensitivity_page_set_scenario (self->sensitivity_page, r);
  plx_calibration_page_set_scenario (self->calibration_page, r);
  plx_scenario_panel_show_resolved (self->panel, r->scenario);
  update_title (self);
}

static void
on_computed (PlxEngine *engine, PlxResult *r, PlxWindow *self)
{
  show_result (self, r);
  /* An open graph runs on the scenario's cluster: follow it when it changes. */
  if (adw_view_stack_page_get_visible (self->graph_stack_page) && r->json != NULL)
    {
      JsonNode *cluster = json_object_get_member (json_node_get_object (r->json), "cluster");
      g_autofree char *text = cluster != NULL ? json_to_string (cluster, FALSE) : NULL;
      if (text != NULL && g_strcmp0 (text, self->graph_cluster) != 0)
        {
          g_free (self->graph_cluster);
          self->graph_cluster = g_steal_pointer (&text);
          plx_graph_page_set_cluster (self->graph_page, r->scenario->cluster);
        }
    }
}

/* An inconsistent strategy: the page stays where the user is; its charts and numbers
 * stay, greyed, with the error over them, the control at fault is marked, and the
 * nearest valid values are offered as buttons. */
static void
on_failed (PlxEngine *engine, const char *message, PlxWindow *self)
{
  /* The message names keys as the file has them; the window says its labels. The
   * rows at fault are found from the keys. */
  g_free (self->error);
  self->error = plx_key_names_humanize (message);
  gtk_label_set_text (self->error_label, self->error);
  gtk_revealer_set_reveal_child (self->error_revealer, TRUE);
  g_clear_pointer (&self->result, plx_result_unref);
  for (guint i = 0; i < 3; i++)
    plx_chart_view_set_error (PLX_CHART_VIEW (self->charts[i]), self->error);
  gtk_widget_set_sensitive (self->breakdown, FALSE);
  for (guint c = 0; c < N_CARDS; c++)
    set_card (self, c, "–", "");
  self->fit_shown = FALSE;
  gtk_widget_set_visible (self->fit_bar, FALSE);
  plx_search_page_set_scenario (self->search_page, NULL);
  plx_reshard_page_set_scenario (self->reshard_page, NULL);
  plx_sensitivity_page_set_scenario (self->sensitivity_page, NULL);
  plx_calibration_page_set_scenario (self->calibration_page, NULL);
  plx_scenario_panel_show_resolved (self->panel, NULL);
  plx_scenario_panel_mark_faults (self->panel, message);
  offer_fixes (self);
  update_title (self);
}

static void
recompute (PlxWindow *self)
{
  g_autoptr (JsonNode) json = plx_scenario_panel_get_json (self->panel);
  g_autofree char *source = self->doc->file ? g_file_get_basename (self->doc->file) : g_strdup (_("scenario"));
  GtkWidget *timeline = self->charts[0];

  /* The worker lays the timeline out too when the chart is on screen at the whole
   * step, as it will most likely be drawn; otherwise the chart does when it draws.
   * Its height depends on whether the fit advice shows above it, which depends on
   * the result: the height last seen either way. */
  if (gtk_widget_get_mapped (timeline) && plx_chart_view_shows_whole_step (PLX_CHART_VIEW (timeline)))
    {
      if (gtk_widget_get_width (timeline) != self->timeline_width)
        self->timeline_height[0] = self->timeline_height[1] = 0;
      self->timeline_width = gtk_widget_get_width (timeline);
      self->timeline_height[self->fit_shown] = gtk_widget_get_height (timeline);
      plx_engine_set_timeline_size (self->engine, self->timeline_width, self->timeline_height[0],
                                    self->timeline_height[1]);
    }
  else
    plx_engine_set_timeline_size (self->engine, 0, 0, 0);
  plx_engine_compute (self->engine, json, plx_scenario_panel_get_base_dir (self->panel), source);
  update_title (self);
}

static char *
scenario_text (PlxWindow *self)
{
  g_autoptr (JsonNode) json = plx_scenario_panel_get_json (self->panel);
  return json_to_string (json, FALSE);
}

static void
update_history_actions (PlxWindow *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.undo", plx_history_can_undo (self->history));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.redo", plx_history_can_redo (self->history));
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
  update_history_actions (self);
}

/* `scenario` (NULL: the built-in default) replaces the panel's as the start of a
 * new document, `file` (NULL: untitled): one step of the history, so Undo brings
 * back what was there, with its file. */
static gboolean
replace_scenario (PlxWindow *self, JsonNode *scenario, const char *dir, const char *source, GFile *file,
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
  g_clear_pointer (&self->doc, document_unref);
  self->doc = document_new (file);
  set_dirty (self, FALSE);
  text = scenario_text (self);
  plx_history_record_document (self->history, text, self->doc);
  update_history_actions (self);
  return TRUE;
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

static void
on_panel_changed (PlxScenarioPanel *panel, PlxWindow *self)
{
  if (!self->loading)
    {
      set_dirty (self, TRUE);
      rename_after_edit (self);
    }
  record_history (self);
  recompute (self);
}

/* A load that is an edit (a model file, a search result, Swap): the step it recorded
 * carries the name it is renamed to. */
static void
edited_by_load (PlxWindow *self)
{
  set_dirty (self, TRUE);
  if (rename_after_edit (self))
    {
      g_autofree char *text = scenario_text (self);
      plx_history_amend (self->history, text);
      recompute (self);
    }
}

/* The Calibration page's cluster, put into the scenario as a user's edit of the
 * cluster would be: one step of the history. */
static void
on_use_cluster (PlxCalibrationPage *page, JsonNode *cluster, PlxWindow *self)
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
  g_clear_pointer (&self->doc, document_unref);
  self->doc = document_ref (plx_history_get_document (self->history));
  /* Undoing every edit since the file was opened or saved gives that file back: no
   * "•", and closing does not ask to save. */
  self->dirty = g_strcmp0 (text, self->doc->clean_text) != 0;
  update_title (self);
  update_history_actions (self);
}

static void
undo_action (GtkWidget *widget, const char *action, GVariant *param)
{
  PlxWindow *self = PLX_WINDOW (widget);
  apply_history (self, plx_history_undo (self->history));
}

static void
redo_action (GtkWidget *widget, const char *action, GVariant *param)
{
  PlxWindow *self = PLX_WINDOW (widget);
  apply_history (self, plx_history_redo (self->history));
}

static void ask_then_replace (PlxWindow *self, GFile *file);

/* New: the built-in default scenario, as a step that undo can take back; asks first
 * when the scenario has unsaved changes. */
static void
new_action (GtkWidget *widget, const char *action, GVariant *param)
{
  ask_then_replace (PLX_WINDOW (widget), NULL);
}

/* ---- files --------------------------------------------------------------------- */

/* The "Open Recent" menu, from GSettings (newest first, at most eight). */
static void
rebuild_recent_menu (PlxWindow *self)
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
  rebuild_recent_menu (self);
}

/* A toast's title is Pango markup: a message with "<data>" or "&" in it would show
 * empty, so the text is escaped. Toasts are for what went well; errors use
 * report_error. */
static void
toast (PlxWindow *self, const char *message)
{
  g_autofree char *escaped = g_markup_escape_text (message, -1);
  AdwToast *t = adw_toast_new (escaped);
  adw_toast_set_timeout (t, 8);
  adw_toast_overlay_add_toast (self->toasts, t);
}

/* An error from a file (open, save, export): it may be long (an unknown preset lists
 * the known ones) and the user may need to read it twice, so it stays above the
 * cards until dismissed or until the next file succeeds. */
static void
report_error (PlxWindow *self, const char *message)
{
  gtk_label_set_text (self->file_label, message);
  gtk_revealer_set_reveal_child (self->file_revealer, TRUE);
}

static void
dismiss_file_error_action (GtkWidget *widget, const char *action, GVariant *param)
{
  PlxWindow *self = PLX_WINDOW (widget);

  gtk_revealer_set_reveal_child (self->file_revealer, FALSE);
}

const char *
plx_window_get_file_error (PlxWindow *self)
{
  return gtk_revealer_get_reveal_child (self->file_revealer) ? gtk_label_get_text (self->file_label) : NULL;
}

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
      if (!replace_scenario (self, scenario, dir, path, file, error))
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
      edited_by_load (self);
    }
  gtk_revealer_set_reveal_child (self->file_revealer, FALSE);
  update_title (self);
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
      g_autofree char *name = name_of_file (file);
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
  set_dirty (self, FALSE);
  /* The step shown is the saved text, new name and all: Undo and Redo back to it
   * are clean. */
  plx_history_amend (self->history, self->doc->clean_text);
  remember_file (self, path);
  /* The result's scenario carries the name (the Sensitivity chart's title). */
  if (renamed)
    recompute (self);
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
    if (g_str_equal (which, chart_names[i]))
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

static void
on_open_response (GtkNativeDialog *dialog, int response, PlxWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      ask_then_replace (self, file);
    }
  g_object_unref (dialog);
}

typedef enum
{
  FILES_SCENARIO,     /* what Save writes */
  FILES_OPEN,         /* what Open reads: scenarios, models, configs, graphs */
  FILES_IMAGES,
} FileKinds;

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

static void
open_action (GtkWidget *widget, const char *action, GVariant *param)
{
  PlxWindow *self = PLX_WINDOW (widget);
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

static void replace_now (PlxWindow *self);

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
        report_error (self, error->message);
      else
        go_on (self, what);
    }
  g_object_unref (dialog);
}

static void
save_as (PlxWindow *self, Then what)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Save Scenario"), GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));

  add_filters (GTK_FILE_CHOOSER (dialog), FILES_SCENARIO);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), "scenario.json");
  g_object_set_data (G_OBJECT (dialog), "then", GINT_TO_POINTER (what));
  g_signal_connect (dialog, "response", G_CALLBACK (on_save_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
save_action (GtkWidget *widget, const char *action, GVariant *param)
{
  PlxWindow *self = PLX_WINDOW (widget);
  g_autoptr (GError) error = NULL;

  if (self->doc->file == NULL)
    save_as (self, THEN_NOTHING);
  else if (!plx_window_save_to (self, self->doc->file, &error))
    report_error (self, error->message);
}

static void
save_as_action (GtkWidget *widget, const char *action, GVariant *param)
{
  save_as (PLX_WINDOW (widget), THEN_NOTHING);
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
        report_error (self, error ? error->message : _("Only local files can be written"));
      else
        {
          g_autofree char *msg = g_strdup_printf (_("Exported %s"), path);
          toast (self, msg);
        }
    }
  g_object_unref (dialog);
}

static void
export_action (GtkWidget *widget, const char *action, GVariant *param)
{
  PlxWindow *self = PLX_WINDOW (widget);
  const char *which = param ? g_variant_get_string (param, NULL) : NULL;
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

static void
export_compare_action (GtkWidget *widget, const char *action, GVariant *param)
{
  gtk_widget_activate_action (widget, "win.export", "s", "compare");
}

static void
export_scatter_action (GtkWidget *widget, const char *action, GVariant *param)
{
  gtk_widget_activate_action (widget, "win.export", "s", "scatter");
}

/* The scatter plot exists once a search has results: before, its menu item would
 * open a file chooser only to say there is nothing to export. */
static void
update_scatter_action (GListModel *rows, guint position, guint removed, guint added, PlxWindow *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-scatter", g_list_model_get_n_items (rows) > 0);
}

/* Swap and exporting the comparison need a pinned scenario A. */
static void
update_pin_actions (PlxWindow *self)
{
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.swap", self->pinned != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-compare", self->pinned != NULL);
}

void
plx_window_pin (PlxWindow *self)
{
  if (self->result == NULL)
    {
      toast (self, _("Nothing to pin: the scenario is not valid"));
      return;
    }
  g_clear_pointer (&self->pinned, plx_result_unref);
  self->pinned = plx_result_ref (self->result);
  plx_chart_view_set_pinned (PLX_CHART_VIEW (self->charts[2]), self->pinned);
  adw_view_stack_page_set_visible (self->compare_page, TRUE);
  update_pin_actions (self);
  {
    g_autofree char *msg = g_strdup_printf (_("Pinned as A: %s. Changes from now on are B."), self->result->scenario->name);
    toast (self, msg);
  }
}

static void
pin_action (GtkWidget *widget, const char *action, GVariant *param)
{
  plx_window_pin (PLX_WINDOW (widget));
}

static void
compare_action (GtkWidget *widget, const char *action, GVariant *param)
{
  PlxWindow *self = PLX_WINDOW (widget);

  if (self->pinned == NULL)
    plx_window_pin (self);
  adw_view_stack_set_visible_child_name (self->stack, "compare");
}

static void
open_recent_action (GtkWidget *widget, const char *action, GVariant *param)
{
  PlxWindow *self = PLX_WINDOW (widget);
  g_autoptr (GFile) file = g_file_new_for_path (g_variant_get_string (param, NULL));

  ask_then_replace (self, file);
}

void
plx_window_swap (PlxWindow *self)
{
  g_autoptr (PlxResult) a = NULL;

  if (self->pinned == NULL || self->result == NULL)
    {
      toast (self, _("Pin a scenario as A first (Ctrl+P)"));
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
  edited_by_load (self);
}

static void
swap_action (GtkWidget *widget, const char *action, GVariant *param)
{
  plx_window_swap (PLX_WINDOW (widget));
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

/* A search result becomes the scenario: its strategy (and GPU count) on the model,
 * cluster and batch it was searched for; shown on the timeline. */
static void
on_strategy_chosen (PlxSearchPage *page, JsonNode *scenario, guint rank, PlxWindow *self)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) before = plx_scenario_panel_get_json (self->panel);
  const char *source = self->result != NULL ? self->result->scenario->source : _("search result");
  gboolean was_dirty = self->dirty;

  self->loading = TRUE;
  if (!plx_scenario_panel_load (self->panel, scenario, plx_scenario_panel_get_base_dir (self->panel), source, &error))
    {
      self->loading = FALSE;
      report_error (self, error->message);
      return;
    }
  self->loading = FALSE;
  edited_by_load (self);
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
  set_dirty (self, self->before_choice_dirty);
}

static void
undo_choice_action (GtkWidget *widget, const char *action, GVariant *param)
{
  plx_window_undo_choice (PLX_WINDOW (widget));
}

static void
search_action (GtkWidget *widget, const char *action, GVariant *param)
{
  PlxWindow *self = PLX_WINDOW (widget);

  adw_view_stack_set_visible_child_name (self->stack, "search");
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
        set_dirty (self, FALSE);
      go_on (self, what);
    }
  else if (g_str_equal (response, "save"))
    {
      if (self->doc->file == NULL)
        save_as (self, what);
      else if (plx_window_save_to (self, self->doc->file, &error))
        go_on (self, what);
      else
        report_error (self, error->message);
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
      replace_scenario (self, NULL, cwd, _("built-in default scenario"), NULL, NULL);
      gtk_revealer_set_reveal_child (self->file_revealer, FALSE);
    }
  else if (file != NULL && !plx_window_open_file (self, file, &error))
    report_error (self, error->message);
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
static void
ask_then_replace (PlxWindow *self, GFile *file)
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

static gboolean
plx_window_close_request (GtkWindow *window)
{
  PlxWindow *self = PLX_WINDOW (window);
  GtkWidget *dialog;

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

  dialog = save_changes_dialog (self, _("The scenario has changes that are not saved. Unsaved changes are lost."));
  g_signal_connect (dialog, "response", G_CALLBACK (on_close_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
  return TRUE;
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
  ask_then_replace (self, G_FILE (files->data));
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
  g_clear_pointer (&self->doc, document_unref);
  g_clear_object (&self->replace_with);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->before_choice, json_node_unref);
  g_clear_pointer (&self->history, plx_history_free);
  for (guint i = 0; i < N_CARDS; i++)
    g_clear_pointer (&self->card_text[i], g_free);
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

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "win.save-as", NULL, save_as_action);
  gtk_widget_class_install_action (widget_class, "win.export", "s", export_action);
  gtk_widget_class_install_action (widget_class, "win.pin", NULL, pin_action);
  gtk_widget_class_install_action (widget_class, "win.compare", NULL, compare_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.swap", NULL, swap_action);
  gtk_widget_class_install_action (widget_class, "win.search", NULL, search_action);
  gtk_widget_class_install_action (widget_class, "win.undo-choice", NULL, undo_choice_action);
  gtk_widget_class_install_action (widget_class, "win.dismiss-file-error", NULL, dismiss_file_error_action);
  gtk_widget_class_install_action (widget_class, "win.undo", NULL, undo_action);
  gtk_widget_class_install_action (widget_class, "win.redo", NULL, redo_action);
  gtk_widget_class_install_action (widget_class, "win.new", NULL, new_action);
  gtk_widget_class_install_action (widget_class, "win.export-compare", NULL, export_compare_action);
  gtk_widget_class_install_action (widget_class, "win.export-scatter", NULL, export_scatter_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_z, GDK_CONTROL_MASK, "win.undo", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_z, GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.redo", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Z, GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.redo", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_n, GDK_CONTROL_MASK, "win.new", NULL);
  /* The window's own shortcuts, so they work in any window, with or without the
   * application (which sets the same ones as accelerators for its menus). */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "win.open", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK, "win.save", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_p, GDK_CONTROL_MASK, "win.pin", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, "win.search", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK, "win.export", "s", "");
}

static GtkWidget *
make_card (PlxWindow *self, guint i, const char *title)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *t = gtk_label_new (title);
  GtkWidget *v = gtk_label_new ("…");
  GtkWidget *d = gtk_label_new ("");

  gtk_widget_add_css_class (box, "card");
  gtk_widget_add_css_class (t, "caption-heading");
  gtk_widget_add_css_class (t, "dim-label");
  gtk_widget_add_css_class (v, "title-2");
  gtk_widget_add_css_class (v, "numeric");
  gtk_widget_add_css_class (d, "caption");
  gtk_label_set_xalign (GTK_LABEL (t), 0);
  gtk_label_set_xalign (GTK_LABEL (v), 0);
  gtk_label_set_xalign (GTK_LABEL (d), 0);
  /* Fixed widths: new numbers do not make the window re-measure itself. The detail
   * may be cut short on a narrow window; the card's tooltip has all of it, and the
   * part that matters (the fit verdict) comes first. */
  gtk_label_set_width_chars (GTK_LABEL (v), 7);
  gtk_label_set_ellipsize (GTK_LABEL (d), PANGO_ELLIPSIZE_END);
  gtk_label_set_width_chars (GTK_LABEL (d), 6);
  gtk_label_set_max_width_chars (GTK_LABEL (d), 26);
  gtk_widget_set_has_tooltip (box, TRUE);
  self->card_box[i] = box;
  for (GtkWidget *w = t; w != NULL; w = w == t ? v : w == v ? d : NULL)
    {
      gtk_widget_set_margin_start (w, 10);
      gtk_widget_set_margin_end (w, 10);
    }
  gtk_widget_set_margin_top (t, 8);
  gtk_widget_set_margin_bottom (d, 8);
  gtk_box_append (GTK_BOX (box), t);
  gtk_box_append (GTK_BOX (box), v);
  gtk_box_append (GTK_BOX (box), d);
  self->card_value[i] = GTK_LABEL (v);
  self->card_detail[i] = GTK_LABEL (d);
  return box;
}

static void
plx_window_init (PlxWindow *self)
{
  static const char *const card_titles[N_CARDS] = { N_("Step time"), N_("Throughput"), N_("MFU"), N_("Peak memory"), N_("Bubble") };
  GtkDropTarget *drop;
  GtkWidget *page_box, *scroller, *timeline_pane;
  GSettingsSchema *schema;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->doc = document_new (NULL);
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

  for (guint i = 0; i < N_CARDS; i++)
    {
      gtk_flow_box_append (self->cards, make_card (self, i, _(card_titles[i])));
      gtk_widget_set_focusable (GTK_WIDGET (gtk_flow_box_get_child_at_index (self->cards, (int) i)), FALSE);
    }

  self->panel = PLX_SCENARIO_PANEL (plx_scenario_panel_new ());
  gtk_scrolled_window_set_child (self->panel_scroller, GTK_WIDGET (self->panel));
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
  g_signal_connect (self->panel, "changed", G_CALLBACK (on_panel_changed), self);

  timeline_pane = plx_timeline_pane_new ();
  self->charts[0] = GTK_WIDGET (plx_timeline_pane_get_chart (PLX_TIMELINE_PANE (timeline_pane)));
  self->charts[1] = plx_chart_view_new (PLX_CHART_MEMORY);
  self->charts[2] = plx_chart_view_new (PLX_CHART_COMPARE);
  adw_view_stack_page_set_icon_name (adw_view_stack_add_titled (self->stack, timeline_pane, "timeline", _("Timeline")),
                                     "view-continuous-symbolic");
  adw_view_stack_page_set_icon_name (adw_view_stack_add_titled (self->stack, self->charts[1], "memory", _("Memory")),
                                     "drive-harddisk-symbolic");
  self->breakdown = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (self->breakdown), 10);
  gtk_grid_set_column_spacing (GTK_GRID (self->breakdown), 18);
  gtk_widget_set_margin_start (self->breakdown, 24);
  gtk_widget_set_margin_end (self->breakdown, 24);
  gtk_widget_set_margin_top (self->breakdown, 24);
  build_breakdown (self);
  page_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_box_append (GTK_BOX (page_box), self->breakdown);
  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), page_box);
  adw_view_stack_page_set_icon_name (adw_view_stack_add_titled (self->stack, scroller, "breakdown", _("Time breakdown")),
                                     "preferences-system-time-symbolic");
  /* In a scroller, as the search page: the chart's minimum would otherwise set the
   * stack's, and a 1024x640 window would grow. */
  self->sensitivity_page = PLX_SENSITIVITY_PAGE (plx_sensitivity_page_new ());
  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (self->sensitivity_page));
  adw_view_stack_page_set_icon_name (adw_view_stack_add_titled (self->stack, scroller, "sensitivity", _("Sensitivity")),
                                     "view-sort-descending-symbolic");
  self->calibration_page = PLX_CALIBRATION_PAGE (plx_calibration_page_new ());
  g_signal_connect (self->calibration_page, "use-cluster", G_CALLBACK (on_use_cluster), self);
  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (self->calibration_page));
  adw_view_stack_page_set_icon_name (adw_view_stack_add_titled (self->stack, scroller, "calibration", _("Calibration")),
                                     "emblem-system-symbolic");
  self->search_page = PLX_SEARCH_PAGE (plx_search_page_new ());
  g_signal_connect (self->search_page, "strategy-chosen", G_CALLBACK (on_strategy_chosen), self);
  g_signal_connect_object (plx_search_page_get_rows (self->search_page), "items-changed",
                           G_CALLBACK (update_scatter_action), self, 0);
  update_scatter_action (plx_search_page_get_rows (self->search_page), 0, 0, 0, self);
  /* The stack is as tall as its tallest page needs: the search page's controls and
   * table (418 px) would push a 1024x640 window to 814 px once the fit advice shows.
   * It scrolls instead when the window is that short. */
  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (self->search_page));
  adw_view_stack_page_set_icon_name (adw_view_stack_add_titled (self->stack, scroller, "search", _("Search")),
                                     "system-search-symbolic");
  /* The comparison lays out two timelines, the breakdown, its list of differences and
   * memory in proportion to its height: below COMPARE_MIN_HEIGHT_PX (a 1024 x 700
   * window leaves some 390 px) labels ran into each other and the list was cut off.
   * It keeps that height and scrolls. */
  gtk_widget_set_size_request (self->charts[2], -1, COMPARE_MIN_HEIGHT_PX);
  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), self->charts[2]);
  self->compare_page = adw_view_stack_add_titled (self->stack, scroller, "compare", _("Compare"));
  adw_view_stack_page_set_icon_name (self->compare_page, "view-dual-symbolic");
  adw_view_stack_page_set_visible (self->compare_page, FALSE);
  self->reshard_page = PLX_RESHARD_PAGE (plx_reshard_page_new ());
  /* Scrolls, as the search page does, when the window is short. */
  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (self->reshard_page));
  adw_view_stack_page_set_icon_name (adw_view_stack_add_titled (self->stack, scroller, "reshard", _("Reshard")),
                                     "view-grid-symbolic");
  self->graph_page = PLX_GRAPH_PAGE (plx_graph_page_new ());
  /* Scrolls, as the search page does, when the window is short. */
  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (self->graph_page));
  self->graph_stack_page = adw_view_stack_add_titled (self->stack, scroller, "graph", _("Graph"));
  adw_view_stack_page_set_icon_name (self->graph_stack_page, "network-workgroup-symbolic");
  adw_view_stack_page_set_visible (self->graph_stack_page, FALSE);
  g_signal_connect_swapped (self->graph_page, "loaded", G_CALLBACK (update_page_mode), self);
  g_signal_connect_swapped (self->stack, "notify::visible-child-name", G_CALLBACK (update_page_mode), self);

  self->history = plx_history_new_full (document_ref, document_unref);
  self->engine = plx_engine_new ();
  g_signal_connect (self->engine, "computed", G_CALLBACK (on_computed), self);
  g_signal_connect (self->engine, "sampled", G_CALLBACK (on_sampled), self);
  g_signal_connect (self->engine, "failed", G_CALLBACK (on_failed), self);

  update_pin_actions (self);
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
    replace_scenario (self, def, cwd, _("built-in default scenario"), NULL, NULL);
  }
  if (self->settings != NULL)
    {
      g_autofree char *last = g_settings_get_string (self->settings, "last-scenario");
      if (last[0] != '\0' && g_file_test (last, G_FILE_TEST_IS_REGULAR))
        {
          g_autoptr (GFile) file = g_file_new_for_path (last);
          plx_window_open_file (self, file, NULL);
        }
      rebuild_recent_menu (self);
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
  for (guint i = 0; i < 3; i++)
    if (g_str_equal (which, chart_names[i]))
      return self->charts[i];
  return NULL;
}

const char *
plx_window_get_card_text (PlxWindow *self,
                          guint      card)
{
  return card < N_CARDS ? self->card_text[card] : NULL;
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
