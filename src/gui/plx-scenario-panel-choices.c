/* The degree sliders of the side panel (plx-scenario-panel-private.h): TP, PP, CP, EP,
 * micro-batch and model chunks move over the values valid with the rest of the
 * strategy only, and a degree with one valid value shows it with the reason. */
#include <glib/gi18n-lib.h>
#include <math.h>

#include "plx-scenario-panel-private.h"
#include "optimize/plx-advice.h"

static void
insert_sorted (GArray *v, guint64 value)
{
  guint i = 0;

  while (i < v->len && g_array_index (v, guint64, i) < value)
    i++;
  if (i == v->len || g_array_index (v, guint64, i) != value)
    g_array_insert_val (v, i, value);
}

/* The values valid together with the rest of the strategy (plx-advice), so a drag
 * never passes through one that the engine would refuse; plus the current value if
 * it is not one of them, so the slider shows what the scenario holds (the error
 * banner says what is wrong with it). */
static GArray *
compute_choices (PlxScenarioPanel *self, guint which)
{
  const char *key = self->choices[which].key;
  guint64 current = (guint64) MAX (plx_panel_strategy_int (self, key, plx_panel_choice_default (self, which)), 1);
  g_autoptr (PlxStrategy) s = NULL;
  GArray *v = NULL;

  if (self->resolved_model != NULL && self->resolved_cluster != NULL)
    s = plx_strategy_new_from_json (self->strategy, "scenario", NULL);
  if (s != NULL)
    v = plx_advice_valid_values (self->resolved_model, self->resolved_cluster, s, key);
  if (v == NULL)
    v = g_array_new (FALSE, FALSE, sizeof (guint64));
  insert_sorted (v, current);
  return v;
}

/* What a choice left out of the file stands for: expert TP follows TP; the others
 * are 1. */
gint64
plx_panel_choice_default (PlxScenarioPanel *self, guint which)
{
  return which == CHOICE_ETP ? MAX (plx_panel_strategy_int (self, "tp", 1), 1) : 1;
}

static char *
choice_format (GtkScale *scale, double value, gpointer data)
{
  Choice *ch = data;
  guint i;

  if (ch->values == NULL || ch->values->len == 0)
    return g_strdup ("1");
  i = (guint) CLAMP (round (value), 0, ch->values->len - 1);
  return g_strdup_printf ("%" G_GUINT64_FORMAT, g_array_index (ch->values, guint64, i));
}

/* After `key` changed, the other sliders offer what is valid with its new value; the
 * slider being dragged keeps its own list (its values do not depend on itself). */
void
plx_panel_refresh_other_choices (PlxScenarioPanel *self, const char *key)
{
  gboolean was = self->updating;

  self->updating = TRUE;
  for (guint i = 0; i < N_CHOICES; i++)
    if (key == NULL || !g_str_equal (self->choices[i].key, key))
      plx_panel_refresh_choice (self, i);
  self->updating = was;
}

/* A mark at each position 0 .. n - 1. Each mark is a widget of its own, made, styled
 * and mapped: a longer list only adds the marks it lacks (a drag between TP 4 and 8
 * moves the CP and micro-batch lists between 5 and 6, 10 and 12 values); GtkScale
 * can take marks away only all at once. */
static void
set_marks (Choice *ch, guint n)
{
  if (n < ch->n_marks)
    {
      gtk_scale_clear_marks (ch->scale);
      ch->n_marks = 0;
    }
  for (; ch->n_marks < n; ch->n_marks++)
    gtk_scale_add_mark (ch->scale, ch->n_marks, GTK_POS_BOTTOM, NULL);
}

/* The micro-batch row's subtitle: why its value is the only one, and the largest
 * that fits. */
static void
update_mb_subtitle (PlxScenarioPanel *self)
{
  const char *reason = self->choices[CHOICE_MB].reason, *fits = self->fits_text;
  g_autofree char *text = reason != NULL && fits != NULL && fits[0] != '\0' ? g_strdup_printf ("%s. %s", reason, fits)
                          : g_strdup (reason != NULL ? reason : fits != NULL ? fits : "");

  plx_panel_set_subtitle (ADW_ACTION_ROW (self->choices[CHOICE_MB].row), text);
}

/* Why `which` has one valid value, from what constrains it (plx-advice's rules for
 * that key), in the panel's words; NULL if the model or cluster does not resolve. */
static char *
only_value_reason (PlxScenarioPanel *self, guint which)
{
  const PlxModel *m = self->resolved_model;
  const PlxCluster *c = self->resolved_cluster;
  guint tp = (guint) MAX (plx_panel_strategy_int (self, "tp", 1), 1), pp = (guint) MAX (plx_panel_strategy_int (self, "pp", 1), 1);
  guint cp = (guint) MAX (plx_panel_strategy_int (self, "cp", 1), 1);
  guint64 gpus, dp;
  g_autofree char *gpus_text = NULL, *n_text = NULL;

  if (m == NULL || c == NULL)
    return NULL;
  gpus = plx_cluster_get_n_gpus (c);
  dp = (guint64) MAX (plx_panel_strategy_int (self, "dp", (gint64) (gpus / ((guint64) tp * pp * cp))), 1);
  /* Counts as strings: xgettext cannot read G_GUINT64_FORMAT inside a message. */
  gpus_text = g_strdup_printf ("%" G_GUINT64_FORMAT, gpus);
  switch (which)
    {
    case CHOICE_TP:
      /* TRANSLATORS: the GPUs of one node, as in "within a node of 8 GPUs". */
      n_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u GPU", "%u GPUs", c->gpus_per_node),
                                c->gpus_per_node);
      return g_strdup_printf (_("The only value that divides the model's %u attention heads and %s GPUs with "
                                "PP %u × CP %u, within a node of %s"),
                              m->heads, gpus_text, pp, cp, n_text);
    case CHOICE_PP:
      return g_strdup_printf (_("The only value that divides the model's %u layers and %s GPUs with TP %u × CP %u"),
                              m->n_layers, gpus_text, tp, cp);
    case CHOICE_CP:
      n_text = g_strdup_printf ("%" G_GINT64_FORMAT, plx_panel_strategy_int (self, "seq_length", (gint64) m->max_positions));
      return g_strdup_printf (_("The only value that divides the sequence of %s tokens and %s GPUs with TP %u × PP %u"),
                              n_text, gpus_text, tp, pp);
    case CHOICE_EP:
      n_text = g_strdup_printf ("%" G_GUINT64_FORMAT, dp);
      return g_strdup_printf (_("The only value that divides the model's %u experts and DP %s × CP %u"), m->experts,
                              n_text, cp);
    case CHOICE_ETP:
      n_text = g_strdup_printf ("%" G_GUINT64_FORMAT, dp);
      return g_strdup_printf (_("The only value that, times EP %u, divides TP %u × DP %s × CP %u"),
                              (guint) MAX (plx_panel_strategy_int (self, "ep", 1), 1), tp, n_text, cp);
    case CHOICE_MB:
      n_text = g_strdup_printf ("%" G_GUINT64_FORMAT, (guint64) MAX (plx_panel_strategy_int (self, "global_batch_size", 1), 1) / dp);
      return g_strdup_printf (_("The only value that divides the %s sequences per data-parallel rank (DP %u)"), n_text,
                              (guint) dp);
    case CHOICE_VS:
      if (!g_str_equal (plx_panel_strategy_string (self, "schedule", "1f1b"), "interleaved-1f1b"))
        return g_strdup (_("Used by the interleaved 1F1B schedule only"));
      return g_strdup_printf (_("The only value that splits the model's %u layers over PP %u"), m->n_layers, pp);
    default:
      return NULL;
    }
}

/* One valid value: a slider with nowhere to go is a stub that says nothing. The
 * value is shown as text instead, and the row says why it is the only one. */
static void
show_only_value (PlxScenarioPanel *self, guint which)
{
  Choice *ch = &self->choices[which];
  gboolean one = ch->values->len == 1;
  g_autofree char *value = one ? g_strdup_printf ("%" G_GUINT64_FORMAT, g_array_index (ch->values, guint64, 0)) : NULL;

  g_clear_pointer (&ch->reason, g_free);
  if (one)
    ch->reason = only_value_reason (self, which);
  gtk_widget_set_visible (GTK_WIDGET (ch->scale), !one);
  gtk_widget_set_visible (GTK_WIDGET (ch->only), one);
  if (one && g_strcmp0 (gtk_label_get_text (ch->only), value) != 0)
    gtk_label_set_text (ch->only, value);
  if (which == CHOICE_MB)
    update_mb_subtitle (self);
  else
    plx_panel_set_subtitle (ADW_ACTION_ROW (ch->row), ch->reason != NULL ? ch->reason : "");
}

void
plx_panel_refresh_choice (PlxScenarioPanel *self, guint which)
{
  Choice *ch = &self->choices[which];
  guint64 current = (guint64) plx_panel_strategy_int (self, ch->key, plx_panel_choice_default (self, which));
  guint best = 0;
  GtkAdjustment *adj;
  g_autoptr (GArray) values = compute_choices (self, which);

  for (guint i = 0; i < values->len; i++)
    if (g_array_index (values, guint64, i) <= current)
      best = i;
  adj = gtk_range_get_adjustment (GTK_RANGE (ch->scale));
  /* The same list at the same position: nothing to redo (each redo re-lays out the
   * panel). */
  if (ch->values != NULL && ch->values->len == values->len &&
      memcmp (ch->values->data, values->data, values->len * sizeof (guint64)) == 0 &&
      gtk_adjustment_get_value (adj) == best)
    return;
  if (ch->values != NULL)
    g_array_unref (ch->values);
  ch->values = g_steal_pointer (&values);
  gtk_adjustment_configure (adj, best, 0, MAX (ch->values->len - 1, 0.0), 1, 1, 0);
  /* The label follows the value, not the position: the same position may now stand
   * for another value (TP 4 at position 3 before, TP 8 at position 3 now). Setting
   * the format function again makes the scale relabel itself. */
  gtk_scale_set_format_value_func (ch->scale, choice_format, ch, NULL);
  set_marks (ch, ch->values->len <= 12 ? ch->values->len : 0);
  show_only_value (self, which);
  gtk_widget_queue_draw (GTK_WIDGET (ch->scale));
}

/* ---- controls to JSON ----------------------------------------------------------- */

static void
on_choice_changed (GtkRange *range, PlxScenarioPanel *self)
{
  Choice *ch = g_object_get_data (G_OBJECT (range), "choice");
  guint i;

  if (self->updating || ch->values == NULL)
    return;
  i = (guint) CLAMP (round (gtk_range_get_value (range)), 0, ch->values->len - 1);
  plx_scenario_panel_set_strategy_int (self, ch->key, (gint64) g_array_index (ch->values, guint64, i));
}

/* Shows a strategy key's new value in its control without touching the others. */
void
plx_panel_sync_strategy_value (PlxScenarioPanel *self,
                               const char       *key)
{
  self->updating = TRUE;
  for (guint i = 0; i < N_CHOICES; i++)
    if (g_str_equal (self->choices[i].key, key))
      {
        /* A drag's own value is already in the list: only the position moves. A
         * value set from outside (a fix, a test) may not be: then the list is made
         * again with it. */
        guint64 v = (guint64) plx_panel_strategy_int (self, key, plx_panel_choice_default (self, i));
        gboolean found = FALSE;
        for (guint j = 0; j < self->choices[i].values->len; j++)
          if (g_array_index (self->choices[i].values, guint64, j) == v)
            {
              gtk_range_set_value (GTK_RANGE (self->choices[i].scale), j);
              found = TRUE;
            }
        if (!found)
          plx_panel_refresh_choice (self, i);
      }
  for (guint i = 0; i < N_INT_SPINS; i++)
    if (g_str_equal (int_keys[i], key))
      gtk_spin_button_set_value (self->int_spins[i], (double) plx_panel_strategy_int (self, key, 1));
  self->updating = FALSE;
}

void
plx_panel_choice_row (PlxScenarioPanel *self, AdwPreferencesGroup *g, guint which, const char *key, const char *title,
                      const char *tooltip)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *scale = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, 0, 1, 1);
  Choice *ch = &self->choices[which];

  ch->key = key;
  ch->scale = GTK_SCALE (scale);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_scale_set_draw_value (GTK_SCALE (scale), TRUE);
  gtk_scale_set_value_pos (GTK_SCALE (scale), GTK_POS_RIGHT);
  gtk_scale_set_format_value_func (GTK_SCALE (scale), choice_format, ch, NULL);
  gtk_range_set_round_digits (GTK_RANGE (scale), 0);
  gtk_widget_set_size_request (scale, 170, -1);
  gtk_widget_set_valign (scale, GTK_ALIGN_CENTER);
  g_object_set_data (G_OBJECT (scale), "choice", ch);
  g_signal_connect (scale, "value-changed", G_CALLBACK (on_choice_changed), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), scale);
  ch->only = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (ch->only), "numeric");
  gtk_widget_set_visible (GTK_WIDGET (ch->only), FALSE);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), GTK_WIDGET (ch->only));
  adw_preferences_group_add (g, row);
  ch->row = row;
  plx_panel_remember_row (self, key, row, tooltip);
}

GArray *
plx_scenario_panel_get_choices (PlxScenarioPanel *self,
                                const char       *key)
{
  for (guint i = 0; i < N_CHOICES; i++)
    if (g_str_equal (self->choices[i].key, key))
      return self->choices[i].values;
  return NULL;
}

void
plx_scenario_panel_show_max_micro_batch (PlxScenarioPanel *self,
                                         guint64           max_mb)
{
  /* The count as a string: xgettext cannot read G_GUINT64_FORMAT inside a message. */
  g_autofree char *count_text = g_strdup_printf ("%" G_GUINT64_FORMAT, max_mb);
  char *text = max_mb == G_MAXUINT64 ? g_strdup ("")
               : max_mb == 0         ? g_strdup (_("None fits, not even 1"))
                                     : g_strdup_printf (_("Largest that fits: %s"), count_text);

  g_free (self->fits_text);
  self->fits_text = text;
  update_mb_subtitle (self);
}
