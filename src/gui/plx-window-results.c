/* A result shown in the window (plx-window-private.h): the summary cards, the charts,
 * the breakdown and the pages follow each result the engine computes; an invalid
 * strategy greys them under its error, with the nearest valid values as buttons. */
#include <glib/gi18n-lib.h>

#include "plx-format.h"
#include "plx-key-names.h"
#include "plx-tooltip.h"
#include "plx-window-private.h"
#include "base/plx-json.h"
#include "optimize/plx-advice.h"

/* ---- a strategy that does not fit, or is not valid: the changes that would help ---- */

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

/* ---- the numbers ------------------------------------------------------------------- */

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

  plx_summary_card_set (self->card[CARD_STEP], step, step_d);
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
  plx_summary_card_set (self->card[CARD_MEMORY], mem, mem_d);
}

void
plx_window_on_sampled (PlxEngine *engine, PlxResult *r, PlxWindow *self)
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
  gtk_widget_set_sensitive (GTK_WIDGET (self->breakdown), TRUE);

  plx_summary_card_set (self->card[CARD_THROUGHPUT], tps, tps_d);
  plx_summary_card_set (self->card[CARD_MFU], mfu, mfu_d);
  show_band (self, r);
  plx_summary_card_set (self->card[CARD_BUBBLE], bubble, _("pipeline bubble"));
  plx_summary_card_set_detail_error (self->card[CARD_MEMORY], !rep->fits_in_memory);

  for (guint i = 0; i < 3; i++)
    {
      plx_chart_view_set_error (PLX_CHART_VIEW (self->charts[i]), NULL);
      plx_chart_view_set_result (PLX_CHART_VIEW (self->charts[i]), r);
    }
  plx_breakdown_view_set_report (self->breakdown, &r->report);
  offer_fit (self, r);
  plx_search_page_set_scenario (self->search_page, r);
  plx_reshard_page_set_scenario (self->reshard_page, r);
  plx_sensitivity_page_set_scenario (self->sensitivity_page, r);
  plx_calibration_page_set_scenario (self->calibration_page, r);
  plx_scenario_panel_show_resolved (self->panel, r->scenario);
  plx_window_update_title (self);
}

void
plx_window_on_computed (PlxEngine *engine, PlxResult *r, PlxWindow *self)
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
void
plx_window_on_failed (PlxEngine *engine, const char *message, PlxWindow *self)
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
  gtk_widget_set_sensitive (GTK_WIDGET (self->breakdown), FALSE);
  for (guint c = 0; c < N_CARDS; c++)
    plx_summary_card_set (self->card[c], "–", "");
  self->fit_shown = FALSE;
  gtk_widget_set_visible (self->fit_bar, FALSE);
  plx_search_page_set_scenario (self->search_page, NULL);
  plx_reshard_page_set_scenario (self->reshard_page, NULL);
  plx_sensitivity_page_set_scenario (self->sensitivity_page, NULL);
  plx_calibration_page_set_scenario (self->calibration_page, NULL);
  plx_scenario_panel_show_resolved (self->panel, NULL);
  plx_scenario_panel_mark_faults (self->panel, message);
  offer_fixes (self);
  plx_window_update_title (self);
}

void
plx_window_recompute (PlxWindow *self)
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
  plx_window_update_title (self);
}
