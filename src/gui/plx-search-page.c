#include <adwaita.h>
#include <glib/gi18n-lib.h>
#include <string.h>

#include "plx-format.h"
#include "plx-latest-task.h"
#include "plx-search-page.h"
#include "plx-search-split.h"
#include "plx-search-table.h"

/* ---- fixed degrees and options ---------------------------------------------------- */

typedef struct
{
  const char        *key;        /* --fix key */
  const char        *label;
  const char *const *shown;      /* NULL-terminated */
  const char *const *fix;        /* the --fix values, or NULL: as shown */
} FixControl;

static const char *const degrees[] = { "1", "2", "4", "8", "16", "32", "64", "128", NULL };
static const char *const micro_batches[] = { "1", "2", "4", "8", "16", NULL };
static const char *const schedules[] = { "gpipe", "1f1b", "interleaved-1f1b", "zero-bubble-h1", NULL };
static const char *const recomputes[] = { "none", "selective", "full", NULL };
static const char *const zeros[] = { "0", "1", "2", "3", NULL };
static const char *const sp_shown[] = { N_("on"), N_("off"), NULL };
static const char *const sp_fix[] = { "1", "0", NULL };

static const FixControl fix_controls[] = {
  { "tp", "TP", degrees, NULL },
  { "pp", "PP", degrees, NULL },
  { "cp", "CP", degrees, NULL },
  { "ep", "EP", degrees, NULL },
  { "mbs", N_("Micro-batch"), micro_batches, NULL },
  { "schedule", N_("Schedule"), schedules, NULL },
  { "recompute", N_("Recompute"), recomputes, NULL },
  { "zero", N_("ZeRO"), zeros, NULL },
  { "sp", N_("Seq. parallel"), sp_shown, sp_fix },
};
#define N_FIX G_N_ELEMENTS (fix_controls)

/* ---- the page ----------------------------------------------------------------------- */

typedef struct
{
  PlxResult       *base;
  PlxSearchOptions options;
  gint             progress;   /* per mille, atomic */
  gint             phase;      /* PlxSearchPhase, atomic */
} SearchJob;

struct _PlxSearchPage
{
  GtkBox             parent_instance;
  GtkSpinButton     *gpus_min, *gpus_max, *headroom, *top_k;
  GtkDropDown       *fix[N_FIX];
  GtkButton         *search_button, *cancel_button, *use_button;
  GtkProgressBar    *progress;
  GtkLabel          *status;
  GtkLabel          *hint;
  GtkColumnView     *table;
  GtkScrolledWindow *table_scroller;
  GtkColumnViewColumn *column[PLX_SEARCH_N_COLUMNS];
  GListStore        *rows;
  GtkSortListModel  *sorted;
  GtkSingleSelection *selection;
  PlxScatterView    *scatter;
  GtkWidget         *plot_axis_box;  /* "Plot against", shown for a GPU range */
  GtkStack          *view_stack;
  GtkButton         *empty_start;    /* the empty state's Search button */     /* "empty" before the first search, "none-fit", "results" */
  AdwStatusPage     *none_fit;
  GtkDropDown       *plot_axis;

  PlxResult         *scenario;     /* what the next search starts from */
  PlxResult         *searched;     /* what the shown results were searched for */
  PlxSearch         *search;
  SearchJob         *job;          /* running, or NULL */
  PlxLatestTask      task;         /* a search may finish after the window closed */
  guint              progress_id;
  guint              cluster_gpus; /* the GPU count the spin buttons were set for */
  gboolean           gpus_touched;
  gboolean           setting;      /* programmatic change of a control */
  gboolean           syncing;      /* selection being mirrored between table and plot */
  char              *status_text;
};

G_DEFINE_FINAL_TYPE (PlxSearchPage, plx_search_page, GTK_TYPE_BOX)

enum { STRATEGY_CHOSEN, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
search_job_free (SearchJob *job)
{
  plx_result_unref (job->base);
  g_free (job);
}

static void
set_status (PlxSearchPage *self, const char *text)
{
  g_free (self->status_text);
  self->status_text = g_strdup (text);
  gtk_label_set_text (self->status, text);
}

static void
update_sensitivity (PlxSearchPage *self)
{
  gboolean running = self->job != NULL;

  gtk_widget_set_sensitive (GTK_WIDGET (self->search_button), !running && self->scenario != NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (self->empty_start), !running && self->scenario != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->cancel_button), running);
  gtk_widget_set_visible (GTK_WIDGET (self->progress), running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->use_button),
                            gtk_single_selection_get_selected_item (self->selection) != NULL);
  {
    const char *tip = self->scenario != NULL ? _("Search every strategy for this model, cluster and batch")
                                             : _("The scenario has an error: fix it first");
    /* Each call asks the X server where the pointer is (GTK 4.8 re-queries the
     * tooltip), and this runs for every new result: only when the text changes. */
    if (g_strcmp0 (gtk_widget_get_tooltip_text (GTK_WIDGET (self->search_button)), tip) != 0)
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->search_button), tip);
  }
}

/* The constraints as --fix text: what the table and the CLI would agree on. */
static char *
fix_text (PlxSearchPage *self)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < N_FIX; i++)
    {
      guint sel = gtk_drop_down_get_selected (self->fix[i]);
      const char *const *values = fix_controls[i].fix ? fix_controls[i].fix : fix_controls[i].shown;
      if (sel == 0 || sel == GTK_INVALID_LIST_POSITION)
        continue;
      g_string_append_printf (out, "%s%s=%s", out->len ? "," : "", fix_controls[i].key, values[sel - 1]);
    }
  return g_string_free (out, FALSE);
}

static gboolean
read_options (PlxSearchPage *self, PlxSearchOptions *o, GError **error)
{
  guint lo = (guint) gtk_spin_button_get_value (self->gpus_min), hi = (guint) gtk_spin_button_get_value (self->gpus_max);
  guint per_node = self->scenario->scenario->cluster->gpus_per_node;
  g_autofree char *fix = fix_text (self);

  plx_search_options_init (o);
  if (lo > hi)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, _("GPUs: from %u is more than to %u"), lo, hi);
      return FALSE;
    }
  if (hi < per_node)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, _("GPUs: %u to %u holds no whole %u-GPU node"), lo, hi,
                   per_node);
      return FALSE;
    }
  if (lo != self->cluster_gpus || hi != self->cluster_gpus)
    {
      o->gpus_min = lo;
      o->gpus_max = hi;
    }
  o->memory_headroom = gtk_spin_button_get_value (self->headroom) / 100.0;
  o->top_k = (guint) gtk_spin_button_get_value (self->top_k);
  return plx_search_options_parse_fix (o, fix, error);
}

static gboolean
update_progress (gpointer data)
{
  PlxSearchPage *self = data;

  if (self->job != NULL)
    {
      gboolean resimulating = g_atomic_int_get (&self->job->phase) == PLX_SEARCH_RESIMULATING;
      /* The event engine's runs can take seconds on a deep pipeline: said, so a full
       * bar is not taken for a hang. */
      gtk_progress_bar_set_text (self->progress, resimulating ? _("Re-simulating the best") : _("Screening"));
      gtk_progress_bar_set_fraction (self->progress, g_atomic_int_get (&self->job->progress) / 1000.0);
    }
  return G_SOURCE_CONTINUE;
}

static void
on_progress (PlxSearchPhase phase, double fraction, gpointer data)
{
  SearchJob *job = data;
  g_atomic_int_set (&job->phase, (gint) phase);
  g_atomic_int_set (&job->progress, (gint) CLAMP (fraction * 1000.0, 0.0, 1000.0));
}

static void
search_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  SearchJob *job = data;
  PlxScenario *sc = job->base->scenario;
  GError *error = NULL;
  PlxSearch *search = plx_search_run (sc->model, sc->cluster, sc->strategy, &job->options, cancellable, on_progress, job,
                                      &error);

  if (search == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, search, (GDestroyNotify) plx_search_free);
}

static char *
count (guint64 n)
{
  return g_strdup_printf ("%" G_GUINT64_FORMAT, n);
}

static char *
describe_search (const PlxSearch *s, const PlxResult *base)
{
  g_autofree char *time = s->elapsed_s >= 1.0 ? g_strdup_printf ("%.2f s", s->elapsed_s)
                                              : g_strdup_printf ("%.0f ms", s->elapsed_s * 1e3);
  g_autofree char *evaluated = count (s->configs_evaluated), *valid = count (s->configs_valid);
  g_autofree char *fit = count (s->configs_fit), *states = count (s->pruned_model_states);
  g_autofree char *acts = count (s->pruned_activations);

  /* Counts as strings: xgettext cannot read G_GUINT64_FORMAT inside a message. */
  return g_strdup_printf (_("%s: %s strategies evaluated, %s valid, %s fit in memory, in %s on %u threads. "
                            "Pruned: %s whose weights, gradients and optimizer state alone exceed memory, "
                            "%s whose activations do."),
                          base->scenario->model->name, evaluated, valid, fit, time, s->n_threads, states, acts);
}

/* The columns of how a result runs (the degrees, GPUs, micro-batch, ZeRO, schedule,
 * ...) show only where the results differ: at 1400 px the table has room for some
 * 580 px beside the plot, and a column that reads "64" or "1" on every row (the GPU
 * count of a search at one size, EP of a dense model) pushed the ones that tell the
 * results apart out of sight. Returns what they all share ("Same in every result:
 * GPUs 64, EP 1"), or NULL. */
static char *
show_varying_columns (PlxSearchPage *self, GPtrArray *rows)
{
  static const char *const how[] = { "gpus", "tp", "pp", "dp", "cp", "ep", "mbs", "zero", "sp", "schedule", "recompute" };
  g_autoptr (GString) same = g_string_new (NULL);

  for (guint i = 0; i < PLX_SEARCH_N_COLUMNS; i++)
    {
      gboolean varies = TRUE;
      g_autofree char *first = NULL;

      for (guint k = 0; k < G_N_ELEMENTS (how); k++)
        if (g_str_equal (plx_search_columns[i].id, how[k]) && rows->len > 1)
          {
            first = plx_search_columns[i].text (rows->pdata[0]);
            varies = FALSE;
            for (guint r = 1; r < rows->len && !varies; r++)
              {
                g_autofree char *t = plx_search_columns[i].text (rows->pdata[r]);
                varies = !g_str_equal (t, first);
              }
          }
      gtk_column_view_column_set_visible (self->column[i], varies);
      if (!varies)
        g_string_append_printf (same, "%s%s %s", same->len > 0 ? ", " : "", _(plx_search_columns[i].title), first);
    }
  /* TRANSLATORS: the columns hidden because every result has the same value, e.g.
   * "GPUs 64, EP 1". */
  return same->len > 0 ? g_strdup_printf (_("Same in every result: %s."), same->str) : NULL;
}

static void
show_search (PlxSearchPage *self, PlxSearch *search, PlxResult *base)
{
  const PlxCluster *c = base->scenario->cluster;
  gboolean range = FALSE;
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char *status = describe_search (search, base);
  g_autofree char *title = NULL, *batch = NULL;

  g_clear_pointer (&self->search, plx_search_free);
  g_clear_pointer (&self->searched, plx_result_unref);
  self->search = search;
  self->searched = plx_result_ref (base);
  for (guint i = 1; i < search->results->len; i++)
    if (g_array_index (search->results, PlxSearchResult, i).n_gpus != g_array_index (search->results, PlxSearchResult, 0).n_gpus)
      range = TRUE;
  for (guint i = 0; i < search->results->len; i++)
    {
      PlxSearchRow *row = g_object_new (PLX_TYPE_SEARCH_ROW, NULL);
      row->r = g_array_index (search->results, PlxSearchResult, i);
      row->rank = i + 1;
      row->range = range;
      g_ptr_array_add (items, row);
    }
  g_list_store_splice (self->rows, 0, g_list_model_get_n_items (G_LIST_MODEL (self->rows)), items->pdata, items->len);
  {
    g_autofree char *same = show_varying_columns (self, items);
    if (same != NULL)
      {
        char *both = g_strconcat (status, "\n", same, NULL);
        g_free (status);
        status = both;
      }
  }
  batch = count (base->scenario->strategy->global_batch_size);
  title = g_strdup_printf (_("%s, global batch %s"), base->scenario->model->name, batch);
  gtk_widget_set_visible (self->plot_axis_box, range);
  if (!range)
    gtk_drop_down_set_selected (self->plot_axis, 0);
  plx_scatter_view_set_results (self->scatter, search->results, (double) (c->hbm_bytes - c->reserved_bytes), title);
  set_status (self, status);
  if (search->results->len > 0)
    gtk_stack_set_visible_child_name (self->view_stack, "results");
  else
    {
      g_autofree char *valid = count (search->configs_valid);
      g_autofree char *desc = g_strdup_printf (_("None of the %s valid strategies fits in the usable memory of a GPU. "
                                                 "Try more GPUs, fewer fixed degrees or less headroom."),
                                               valid);
      adw_status_page_set_description (self->none_fit, desc);
      gtk_stack_set_visible_child_name (self->view_stack, "none-fit");
    }
  gtk_label_set_text (self->hint, search->results->len > 0
                                    ? _("Double-click a row or a point, or select one and press Use Strategy, to load it.")
                                    : _("Nothing fits: try more GPUs, fewer fixed degrees or less headroom."));
}

static void
on_search_done (GObject *source, GAsyncResult *res, gpointer data)
{
  PlxSearchPage *self = PLX_SEARCH_PAGE (source);
  SearchJob *job = g_task_get_task_data (G_TASK (res));
  g_autoptr (GError) error = NULL;
  PlxSearch *search;

  /* Not after the window closed: the search goes with its task. */
  if (!plx_latest_task_finish (&self->task, res))
    return;
  search = g_task_propagate_pointer (G_TASK (res), &error);
  if (self->job == job)
    {
      self->job = NULL;
      g_clear_handle_id (&self->progress_id, g_source_remove);
    }
  if (search != NULL)
    show_search (self, search, job->base);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    set_status (self, self->search != NULL ? _("Search cancelled: the results shown are from the search before.")
                                           : _("Search cancelled."));
  else
    set_status (self, error->message);
  update_sensitivity (self);
}

void
plx_search_page_start (PlxSearchPage *self)
{
  g_autoptr (GError) error = NULL;
  SearchJob *job;

  if (self->job != NULL || self->scenario == NULL)
    return;
  job = g_new0 (SearchJob, 1);
  if (!read_options (self, &job->options, &error))
    {
      g_free (job);
      set_status (self, error->message);
      return;
    }
  job->base = plx_result_ref (self->scenario);
  self->job = job;
  plx_latest_task_start (&self->task, self, "[parallax] search", job, (GDestroyNotify) search_job_free, search_thread,
                         on_search_done);
  gtk_progress_bar_set_fraction (self->progress, 0.0);
  self->progress_id = g_timeout_add (50, update_progress, self);
  set_status (self, _("Searching…"));
  update_sensitivity (self);
}

void
plx_search_page_cancel (PlxSearchPage *self)
{
  if (self->job != NULL)
    plx_latest_task_cancel (&self->task);
}

gboolean
plx_search_page_is_running (PlxSearchPage *self)
{
  return self->job != NULL;
}

/* ---- table and plot ----------------------------------------------------------------- */

static void
build_table (PlxSearchPage *self)
{
  GtkSorter *sorter;

  self->rows = g_list_store_new (PLX_TYPE_SEARCH_ROW);
  self->table = plx_search_table_new (self->column, GTK_WIDGET (self));
  sorter = gtk_column_view_get_sorter (self->table);
  self->sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->rows)), g_object_ref (sorter));
  self->selection = gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->sorted)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  gtk_column_view_set_model (self->table, GTK_SELECTION_MODEL (self->selection));
  /* Ranked by step time to begin with. */
  gtk_column_view_sort_by_column (self->table, self->column[0], GTK_SORT_ASCENDING);
}

static void
on_selection_changed (GtkSingleSelection *selection, GParamSpec *pspec, PlxSearchPage *self)
{
  PlxSearchRow *row = gtk_single_selection_get_selected_item (selection);

  update_sensitivity (self);
  if (self->syncing)
    return;
  self->syncing = TRUE;
  plx_scatter_view_set_selected (self->scatter, row != NULL ? (gint) row->rank - 1 : -1);
  self->syncing = FALSE;
}

guint
plx_search_page_position_of_rank (PlxSearchPage *self,
                                  guint          rank)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sorted));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (PlxSearchRow) row = g_list_model_get_item (G_LIST_MODEL (self->sorted), i);
      if (row->rank == rank)
        return i;
    }
  return GTK_INVALID_LIST_POSITION;
}

void
plx_search_page_select (PlxSearchPage *self,
                        guint          position)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sorted));
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->table_scroller);

  if (position >= n)
    return;
  gtk_single_selection_set_selected (self->selection, position);
  /* GTK 4.8 has no gtk_column_view_scroll_to (4.12): rows are of one height, so the
   * row's offset is its share of the scrolled height. */
  {
    double upper = gtk_adjustment_get_upper (adj), page = gtk_adjustment_get_page_size (adj);
    double y = (position + 0.5) / n * upper - page / 2.0;
    gtk_adjustment_set_value (adj, CLAMP (y, 0.0, MAX (upper - page, 0.0)));
  }
}

guint
plx_search_page_get_selected (PlxSearchPage *self)
{
  return gtk_single_selection_get_selected (self->selection);
}

static void
on_point_clicked (PlxScatterView *view, guint index, PlxSearchPage *self)
{
  guint pos;

  if (self->syncing)
    return;
  pos = plx_search_page_position_of_rank (self, index + 1);
  if (pos != GTK_INVALID_LIST_POSITION)
    {
      self->syncing = TRUE;
      plx_search_page_select (self, pos);
      self->syncing = FALSE;
    }
}

void
plx_search_page_choose (PlxSearchPage *self,
                        guint          position)
{
  g_autoptr (PlxSearchRow) row = g_list_model_get_item (G_LIST_MODEL (self->sorted), position);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) json = NULL;

  if (row == NULL || self->searched == NULL)
    return;
  json = plx_search_result_to_scenario (&row->r, self->searched->json, self->searched->scenario->cluster->gpus_per_node,
                                        &error);
  if (json == NULL)
    {
      set_status (self, error->message);
      return;
    }
  g_signal_emit (self, signals[STRATEGY_CHOSEN], 0, json, row->rank);
}

static void
on_row_activated (GtkColumnView *view, guint position, PlxSearchPage *self)
{
  plx_search_page_choose (self, position);
}

static void
on_point_activated (PlxScatterView *view, guint index, PlxSearchPage *self)
{
  guint pos = plx_search_page_position_of_rank (self, index + 1);

  if (pos != GTK_INVALID_LIST_POSITION)
    plx_search_page_choose (self, pos);
}

static void
on_plot_axis (GtkDropDown *dropdown, GParamSpec *pspec, PlxSearchPage *self)
{
  plx_scatter_view_set_by_gpus (self->scatter, gtk_drop_down_get_selected (dropdown) == 1);
}

static void
on_use_clicked (GtkButton *button, PlxSearchPage *self)
{
  guint pos = gtk_single_selection_get_selected (self->selection);

  if (pos != GTK_INVALID_LIST_POSITION)
    plx_search_page_choose (self, pos);
}

/* ---- constraints -------------------------------------------------------------------- */

static void
on_gpus_changed (GtkSpinButton *spin, PlxSearchPage *self)
{
  if (!self->setting)
    self->gpus_touched = TRUE;
}

static GtkWidget *
labelled (const char *label, GtkWidget *control, const char *tooltip)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *l = gtk_label_new (label);

  gtk_label_set_xalign (GTK_LABEL (l), 0.0);
  gtk_widget_add_css_class (l, "caption");
  gtk_widget_add_css_class (l, "dim-label");
  gtk_box_append (GTK_BOX (box), l);
  gtk_box_append (GTK_BOX (box), control);
  if (tooltip != NULL)
    gtk_widget_set_tooltip_text (box, tooltip);
  return box;
}

static GtkSpinButton *
spin (double lo, double hi, double step, double value)
{
  GtkWidget *s = gtk_spin_button_new_with_range (lo, hi, step);

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (s), value);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (s), TRUE);
  return GTK_SPIN_BUTTON (s);
}

/* Two rows: the search's extent, then what is held fixed. The second scrolls
 * sideways rather than making the window wider. */
static GtkWidget *
build_constraints (PlxSearchPage *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *extent = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *fixed = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *fixed_scroller = gtk_scrolled_window_new ();
  GtkWidget *range = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  GtkWidget *fixed_label = gtk_label_new (_("Held fixed"));

  self->gpus_min = spin (1, 10000000, 8, 64);
  self->gpus_max = spin (1, 10000000, 8, 64);
  g_signal_connect (self->gpus_min, "value-changed", G_CALLBACK (on_gpus_changed), self);
  g_signal_connect (self->gpus_max, "value-changed", G_CALLBACK (on_gpus_changed), self);
  gtk_box_append (GTK_BOX (range), GTK_WIDGET (self->gpus_min));
  gtk_box_append (GTK_BOX (range), gtk_label_new ("–"));
  gtk_box_append (GTK_BOX (range), GTK_WIDGET (self->gpus_max));
  gtk_box_append (GTK_BOX (extent),
                  labelled (_("GPUs"), range, _("The cluster's GPU count, or a range: every whole number of nodes in it")));
  self->headroom = spin (0, 90, 1, 0);
  gtk_box_append (GTK_BOX (extent), labelled (_("Memory headroom (%)"), GTK_WIDGET (self->headroom),
                                              _("Share of usable GPU memory to keep free")));
  self->top_k = spin (0, 1000, 1, 10);
  gtk_box_append (GTK_BOX (extent), labelled (_("Re-simulate best"), GTK_WIDGET (self->top_k),
                                              _("How many of the fastest to re-simulate with the event engine")));

  gtk_widget_add_css_class (fixed_label, "heading");
  gtk_widget_set_valign (fixed_label, GTK_ALIGN_END);
  gtk_widget_set_margin_bottom (fixed_label, 8);
  gtk_box_append (GTK_BOX (fixed), fixed_label);
  for (guint i = 0; i < N_FIX; i++)
    {
      g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
      g_auto (GStrv) items = NULL;

      g_strv_builder_add (b, _("Any"));
      for (guint v = 0; fix_controls[i].shown[v] != NULL; v++)
        g_strv_builder_add (b, fix_controls[i].fix ? _(fix_controls[i].shown[v]) : fix_controls[i].shown[v]);
      items = g_strv_builder_end (b);
      self->fix[i] = GTK_DROP_DOWN (gtk_drop_down_new_from_strings ((const char *const *) items));
      gtk_box_append (GTK_BOX (fixed), labelled (_(fix_controls[i].label), GTK_WIDGET (self->fix[i]), NULL));
    }
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (fixed_scroller), GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (fixed_scroller), fixed);
  gtk_box_append (GTK_BOX (box), extent);
  gtk_box_append (GTK_BOX (box), fixed_scroller);
  return box;
}

gboolean
plx_search_page_set_fix (PlxSearchPage *self,
                         const char    *fix,
                         GError       **error)
{
  g_auto (GStrv) parts = g_strsplit (fix, ",", -1);
  guint chosen[N_FIX] = { 0 };
  PlxSearchOptions check;

  plx_search_options_init (&check);
  if (!plx_search_options_parse_fix (&check, fix, error))
    return FALSE;
  for (guint p = 0; parts[p] != NULL; p++)
    {
      g_auto (GStrv) kv = g_strsplit (g_strstrip (parts[p]), "=", 2);
      gboolean found = FALSE;
      if (kv[0] == NULL || kv[0][0] == '\0')
        continue;
      for (guint i = 0; i < N_FIX && !found; i++)
        {
          const char *const *values = fix_controls[i].fix ? fix_controls[i].fix : fix_controls[i].shown;
          if (!g_str_equal (kv[0], fix_controls[i].key))
            continue;
          for (guint v = 0; values[v] != NULL && !found; v++)
            if (g_strcmp0 (kv[1], values[v]) == 0)
              {
                chosen[i] = v + 1;
                found = TRUE;
              }
        }
      if (!found)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, _("search page: \"%s\" is not one of the choices offered"),
                       parts[p]);
          return FALSE;
        }
    }
  for (guint i = 0; i < N_FIX; i++)
    gtk_drop_down_set_selected (self->fix[i], chosen[i]);
  return TRUE;
}

void
plx_search_page_set_gpus (PlxSearchPage *self,
                          guint          gpus_min,
                          guint          gpus_max)
{
  gtk_spin_button_set_value (self->gpus_min, gpus_min);
  gtk_spin_button_set_value (self->gpus_max, gpus_max);
}

void
plx_search_page_set_scenario (PlxSearchPage *self,
                              PlxResult     *result)
{
  if (result != NULL)
    plx_result_ref (result);
  g_clear_pointer (&self->scenario, plx_result_unref);
  self->scenario = result;
  if (result != NULL)
    {
      guint gpus = plx_cluster_get_n_gpus (result->scenario->cluster);
      guint per_node = result->scenario->cluster->gpus_per_node;
      /* The range follows the cluster until the user sets one. */
      if (!self->gpus_touched && gpus != self->cluster_gpus)
        {
          self->setting = TRUE;
          gtk_spin_button_set_increments (self->gpus_min, per_node, per_node * 8);
          gtk_spin_button_set_increments (self->gpus_max, per_node, per_node * 8);
          gtk_spin_button_set_value (self->gpus_min, gpus);
          gtk_spin_button_set_value (self->gpus_max, gpus);
          self->setting = FALSE;
        }
      self->cluster_gpus = gpus;
    }
  update_sensitivity (self);
}

/* ---- construction --------------------------------------------------------------------- */

static void
plx_search_page_dispose (GObject *object)
{
  PlxSearchPage *self = PLX_SEARCH_PAGE (object);

  plx_latest_task_clear (&self->task);
  g_clear_handle_id (&self->progress_id, g_source_remove);
  g_clear_pointer (&self->scenario, plx_result_unref);
  g_clear_pointer (&self->searched, plx_result_unref);
  g_clear_pointer (&self->search, plx_search_free);
  g_clear_pointer (&self->status_text, g_free);
  g_clear_object (&self->rows);
  g_clear_object (&self->sorted);
  g_clear_object (&self->selection);
  G_OBJECT_CLASS (plx_search_page_parent_class)->dispose (object);
}

static void
plx_search_page_class_init (PlxSearchPageClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = plx_search_page_dispose;
  /* (JsonNode *scenario, guint rank) */
  signals[STRATEGY_CHOSEN] = g_signal_new ("strategy-chosen", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                           NULL, NULL, G_TYPE_NONE, 2, JSON_TYPE_NODE, G_TYPE_UINT);
}

static void
plx_search_page_init (PlxSearchPage *self)
{
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *actions = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *plot = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  plx_latest_task_init (&self->task);
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (GTK_BOX (self), 6);
  gtk_widget_set_margin_start (header, 12);
  gtk_widget_set_margin_end (header, 12);
  gtk_widget_set_margin_top (header, 6);
  gtk_box_append (GTK_BOX (header), build_constraints (self));

  self->search_button = GTK_BUTTON (gtk_button_new_with_mnemonic (_("_Search")));
  gtk_widget_add_css_class (GTK_WIDGET (self->search_button), "suggested-action");
  g_signal_connect_swapped (self->search_button, "clicked", G_CALLBACK (plx_search_page_start), self);
  self->cancel_button = GTK_BUTTON (gtk_button_new_with_mnemonic (_("_Cancel")));
  g_signal_connect_swapped (self->cancel_button, "clicked", G_CALLBACK (plx_search_page_cancel), self);
  self->use_button = GTK_BUTTON (gtk_button_new_with_mnemonic (_("_Use Strategy")));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->use_button), _("Load the selected strategy into the main view"));
  g_signal_connect (self->use_button, "clicked", G_CALLBACK (on_use_clicked), self);
  self->progress = GTK_PROGRESS_BAR (gtk_progress_bar_new ());
  gtk_progress_bar_set_show_text (self->progress, TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->progress), TRUE);
  gtk_widget_set_valign (GTK_WIDGET (self->progress), GTK_ALIGN_CENTER);
  self->hint = GTK_LABEL (gtk_label_new (_("Search every valid strategy for the scenario's model, cluster and global batch.")));
  gtk_label_set_xalign (self->hint, 0.0);
  gtk_label_set_ellipsize (self->hint, PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (GTK_WIDGET (self->hint), TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->hint), "dim-label");
  gtk_box_append (GTK_BOX (actions), GTK_WIDGET (self->search_button));
  gtk_box_append (GTK_BOX (actions), GTK_WIDGET (self->cancel_button));
  gtk_box_append (GTK_BOX (actions), GTK_WIDGET (self->progress));
  gtk_box_append (GTK_BOX (actions), GTK_WIDGET (self->hint));
  gtk_box_append (GTK_BOX (actions), GTK_WIDGET (self->use_button));
  gtk_box_append (GTK_BOX (header), actions);
  self->status = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->status, 0.0);
  gtk_label_set_wrap (self->status, TRUE);
  gtk_label_set_selectable (self->status, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->status), "caption");
  gtk_box_append (GTK_BOX (header), GTK_WIDGET (self->status));
  gtk_box_append (GTK_BOX (self), header);

  build_table (self);
  g_signal_connect (self->selection, "notify::selected", G_CALLBACK (on_selection_changed), self);
  g_signal_connect (self->table, "activate", G_CALLBACK (on_row_activated), self);
  self->table_scroller = GTK_SCROLLED_WINDOW (gtk_scrolled_window_new ());
  gtk_scrolled_window_set_child (self->table_scroller, GTK_WIDGET (self->table));
  gtk_widget_set_size_request (GTK_WIDGET (self->table_scroller), 320, 200);
  self->scatter = PLX_SCATTER_VIEW (plx_scatter_view_new ());
  g_signal_connect (self->scatter, "point-clicked", G_CALLBACK (on_point_clicked), self);
  g_signal_connect (self->scatter, "point-activated", G_CALLBACK (on_point_activated), self);
  {
    /* The plot, with a choice of x axis when the search spanned GPU counts. */
    GtkWidget *label = gtk_label_new (_("Plot step time against"));
    const char *axes[] = { _("Peak memory"), _("GPU count"), NULL };
    self->plot_axis_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
    self->plot_axis = GTK_DROP_DOWN (gtk_drop_down_new_from_strings (axes));
    g_signal_connect (self->plot_axis, "notify::selected", G_CALLBACK (on_plot_axis), self);
    gtk_widget_set_margin_start (self->plot_axis_box, 12);
    gtk_widget_set_margin_top (self->plot_axis_box, 4);
    gtk_box_append (GTK_BOX (self->plot_axis_box), label);
    gtk_box_append (GTK_BOX (self->plot_axis_box), GTK_WIDGET (self->plot_axis));
    gtk_widget_set_visible (self->plot_axis_box, FALSE);
    gtk_box_append (GTK_BOX (plot), self->plot_axis_box);
    gtk_box_append (GTK_BOX (plot), GTK_WIDGET (self->scatter));
  }

  self->view_stack = GTK_STACK (gtk_stack_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->view_stack), TRUE);
  {
    GtkWidget *empty = adw_status_page_new ();
    GtkWidget *start = gtk_button_new_with_label (_("Search"));
    adw_status_page_set_icon_name (ADW_STATUS_PAGE (empty), "system-search-symbolic");
    adw_status_page_set_title (ADW_STATUS_PAGE (empty), _("Search the Strategy Space"));
    adw_status_page_set_description (ADW_STATUS_PAGE (empty),
                                     _("Every valid combination of data, tensor, pipeline, context and expert "
                                       "parallelism, micro-batch, schedule, recomputation and ZeRO stage for this "
                                       "model, cluster and global batch, ranked by predicted step time, with the "
                                       "fastest re-simulated. Set constraints above if you like, then search."));
    gtk_widget_set_halign (start, GTK_ALIGN_CENTER);
    gtk_widget_add_css_class (start, "pill");
    gtk_widget_add_css_class (start, "suggested-action");
    g_signal_connect_swapped (start, "clicked", G_CALLBACK (plx_search_page_start), self);
    adw_status_page_set_child (ADW_STATUS_PAGE (empty), start);
    self->empty_start = GTK_BUTTON (start);
    gtk_stack_add_named (self->view_stack, empty, "empty");
  }
  self->none_fit = ADW_STATUS_PAGE (adw_status_page_new ());
  adw_status_page_set_icon_name (self->none_fit, "dialog-warning-symbolic");
  adw_status_page_set_title (self->none_fit, _("No Strategy Fits"));
  gtk_stack_add_named (self->view_stack, GTK_WIDGET (self->none_fit), "none-fit");
  gtk_stack_add_named (self->view_stack,
                       plx_search_split_new (GTK_WIDGET (self->table_scroller), plot, GTK_WIDGET (self->table)),
                       "results");
  gtk_stack_set_visible_child_name (self->view_stack, "empty");
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->view_stack));
  update_sensitivity (self);
}

GtkWidget *
plx_search_page_new (void)
{
  return g_object_new (PLX_TYPE_SEARCH_PAGE, NULL);
}

const PlxSearch *
plx_search_page_get_search (PlxSearchPage *self)
{
  return self->search;
}

GListModel *
plx_search_page_get_rows (PlxSearchPage *self)
{
  return G_LIST_MODEL (self->sorted);
}

const PlxSearchResult *
plx_search_page_get_row (PlxSearchPage *self,
                         guint          position,
                         guint         *rank)
{
  g_autoptr (PlxSearchRow) row = g_list_model_get_item (G_LIST_MODEL (self->sorted), position);

  if (row == NULL)
    return NULL;
  if (rank != NULL)
    *rank = row->rank;
  /* The store keeps the row alive after the reference here is dropped. */
  return &row->r;
}

gboolean
plx_search_page_sort_by (PlxSearchPage *self,
                         const char    *column,
                         gboolean       descending)
{
  for (guint i = 0; i < PLX_SEARCH_N_COLUMNS; i++)
    if (g_str_equal (column, plx_search_columns[i].id))
      {
        gtk_column_view_sort_by_column (self->table, self->column[i], descending ? GTK_SORT_DESCENDING : GTK_SORT_ASCENDING);
        return TRUE;
      }
  return FALSE;
}

const char *
plx_search_page_get_status (PlxSearchPage *self)
{
  return self->status_text;
}

void
plx_search_page_set_plot_by_gpus (PlxSearchPage *self,
                                  gboolean       by_gpus)
{
  gtk_drop_down_set_selected (self->plot_axis, by_gpus ? 1 : 0);
}

PlxScatterView *
plx_search_page_get_scatter (PlxSearchPage *self)
{
  return self->scatter;
}
