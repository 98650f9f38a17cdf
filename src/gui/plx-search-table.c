/* plx-search-table.c: the Search page's results table (plx-search-table.h). */
#include <glib/gi18n-lib.h>

#include "plx-format.h"
#include "plx-search-table.h"

/* ---- one row of the table --------------------------------------------------------- */

G_DEFINE_FINAL_TYPE (PlxSearchRow, plx_search_row, G_TYPE_OBJECT)

static void
plx_search_row_class_init (PlxSearchRowClass *klass)
{
}

static void
plx_search_row_init (PlxSearchRow *self)
{
}

/* ---- columns ---------------------------------------------------------------------- */

static double key_rank (const PlxSearchRow *w) { return w->rank; }
static double key_gpus (const PlxSearchRow *w) { return w->r.n_gpus; }
static double key_tp (const PlxSearchRow *w) { return w->r.strategy.tp; }
static double key_pp (const PlxSearchRow *w) { return w->r.strategy.pp; }
static double key_cp (const PlxSearchRow *w) { return w->r.strategy.cp; }
static double key_ep (const PlxSearchRow *w) { return w->r.strategy.ep; }
static double key_dp (const PlxSearchRow *w) { return w->r.strategy.dp; }
static double key_mbs (const PlxSearchRow *w) { return (double) w->r.strategy.micro_batch_size; }
static double key_schedule (const PlxSearchRow *w) { return w->r.strategy.schedule * 1000.0 + w->r.strategy.virtual_stages; }
static double key_recompute (const PlxSearchRow *w) { return w->r.strategy.recompute; }
static double key_zero (const PlxSearchRow *w) { return w->r.strategy.zero_stage; }
static double key_sp (const PlxSearchRow *w) { return w->r.strategy.sequence_parallel; }
static double key_step (const PlxSearchRow *w) { return w->r.step_time_s; }
static double key_mfu (const PlxSearchRow *w) { return w->r.mfu; }
static double key_tokens (const PlxSearchRow *w) { return w->r.tokens_per_s; }
static double key_memory (const PlxSearchRow *w) { return (double) w->r.peak_memory_bytes; }
static double key_engine (const PlxSearchRow *w) { return w->r.event; }
static double key_pareto (const PlxSearchRow *w) { return w->r.pareto * 2 + (w->range && w->r.pareto_gpus); }

static char *text_rank (const PlxSearchRow *w) { return g_strdup_printf ("%u", w->rank); }
static char *text_gpus (const PlxSearchRow *w) { return g_strdup_printf ("%u", w->r.n_gpus); }
static char *text_tp (const PlxSearchRow *w) { return g_strdup_printf ("%u", w->r.strategy.tp); }
static char *text_pp (const PlxSearchRow *w) { return g_strdup_printf ("%u", w->r.strategy.pp); }
static char *text_cp (const PlxSearchRow *w) { return g_strdup_printf ("%u", w->r.strategy.cp); }
static char *text_ep (const PlxSearchRow *w) { return g_strdup_printf ("%u", w->r.strategy.ep); }
static char *text_dp (const PlxSearchRow *w) { return g_strdup_printf ("%u", w->r.strategy.dp); }
static char *text_mbs (const PlxSearchRow *w) { return g_strdup_printf ("%" G_GUINT64_FORMAT, w->r.strategy.micro_batch_size); }
static char *text_recompute (const PlxSearchRow *w) { return g_strdup (plx_recompute_to_string (w->r.strategy.recompute)); }
static char *text_zero (const PlxSearchRow *w) { return g_strdup_printf ("%u", w->r.strategy.zero_stage); }
static char *text_sp (const PlxSearchRow *w) { return g_strdup (w->r.strategy.sequence_parallel ? _("yes") : _("no")); }
static char *text_mfu (const PlxSearchRow *w) { return g_strdup_printf ("%.1f %%", w->r.mfu * 100.0); }
static char *text_tokens (const PlxSearchRow *w) { return g_strdup_printf ("%.0f", w->r.tokens_per_s); }
static char *text_memory (const PlxSearchRow *w) { return g_strdup_printf ("%.1f GiB", w->r.peak_memory_bytes / 1073741824.0); }
static char *text_engine (const PlxSearchRow *w) { return g_strdup (w->r.event ? _("event") : _("analytical")); }

static char *
text_schedule (const PlxSearchRow *w)
{
  if (w->r.strategy.schedule == PLX_SCHEDULE_INTERLEAVED_1F1B)
    return g_strdup_printf ("%s ×%u", plx_schedule_to_string (w->r.strategy.schedule), w->r.strategy.virtual_stages);
  return g_strdup (plx_schedule_to_string (w->r.strategy.schedule));
}

static char *
text_step (const PlxSearchRow *w)
{
  return plx_format_time (w->r.step_time_s);
}

static char *
text_pareto (const PlxSearchRow *w)
{
  gboolean gpus = w->range && w->r.pareto_gpus;
  if (w->r.pareto && gpus)
    return g_strdup (_("memory, GPUs"));
  if (w->r.pareto)
    return g_strdup (_("memory"));
  return g_strdup (gpus ? _("GPUs") : "");
}

/* What tells the results apart first: the step time, then how each runs, the narrow
 * columns before the wide schedule so more of them show beside the plot (at 1400 px
 * some 580 px); then MFU (the step time again, at one GPU count) and memory (the
 * plot's x axis). */
const PlxSearchColumn plx_search_columns[PLX_SEARCH_N_COLUMNS] = {
  { "rank", N_("Rank"), N_("Order by predicted step time"), key_rank, text_rank, "9999" },
  { "step", N_("Step time"), NULL, key_step, text_step, "100.000 s" },
  { "tp", "TP", N_("Tensor-parallel degree"), key_tp, text_tp, "16" },
  { "pp", "PP", N_("Pipeline-parallel degree"), key_pp, text_pp, "128" },
  { "dp", "DP", N_("Data-parallel degree"), key_dp, text_dp, "1024" },
  { "cp", "CP", N_("Context-parallel degree"), key_cp, text_cp, "16" },
  { "ep", "EP", N_("Expert-parallel degree"), key_ep, text_ep, "64" },
  { "mbs", "MBS", N_("Micro-batch size: sequences per micro-batch (the CLI's mbs)"), key_mbs, text_mbs, "16" },
  { "zero", N_("ZeRO"), NULL, key_zero, text_zero, "3" },
  { "sp", "SP", N_("Sequence parallelism"), key_sp, text_sp, N_("yes") },
  { "schedule", N_("Schedule"), NULL, key_schedule, text_schedule, "interleaved-1f1b ×12" },
  { "recompute", N_("Recompute"), NULL, key_recompute, text_recompute, "selective" },
  { "mfu", N_("MFU"), N_("Model FLOPs utilisation"), key_mfu, text_mfu, "100.0 %" },
  { "memory", N_("Peak memory"), N_("Peak memory of the fullest GPU"), key_memory, text_memory, "100.0 GiB" },
  { "gpus", N_("GPUs"), NULL, key_gpus, text_gpus, "16384" },
  { "tokens", N_("Tokens/s"), NULL, key_tokens, text_tokens, "1234567" },
  { "engine", N_("Engine"), N_("The best are re-simulated with the event engine"), key_engine, text_engine, N_("analytical") },
  { "pareto", N_("Pareto"), N_("On the Pareto front of step time against memory (and against GPUs in a range)"),
    key_pareto, text_pareto, N_("memory, GPUs") },
};

static void
setup_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  GtkWidget *label = gtk_label_new (NULL);
  const PlxSearchColumn *col = data;

  gtk_label_set_xalign (GTK_LABEL (label), g_str_equal (col->id, "schedule") || g_str_equal (col->id, "recompute") ||
                                               g_str_equal (col->id, "engine") || g_str_equal (col->id, "pareto")
                                             ? 0.0 : 1.0);
  gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
bind_cell (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  const PlxSearchColumn *col = data;
  PlxSearchRow *row = gtk_list_item_get_item (item);
  g_autofree char *text = col->text (row);

  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), text);
}

static int
compare_rows (gconstpointer a, gconstpointer b, gpointer data)
{
  const PlxSearchColumn *col = data;
  const PlxSearchRow *ra = a, *rb = b;
  double ka = col->key (ra), kb = col->key (rb);

  if (ka != kb)
    return ka < kb ? GTK_ORDERING_SMALLER : GTK_ORDERING_LARGER;
  /* Ties in rank order, so a sort is stable and the same on every run. */
  return ra->rank < rb->rank ? GTK_ORDERING_SMALLER : ra->rank > rb->rank ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

/* Column widths from the widest text each commonly holds (or its title, with room for
 * the sort arrow), measured in the table's font: fixed, so the table's width is known
 * before the first search and the divider can give it every column. */
#define CELL_PADDING_PX 16
#define SORT_ARROW_PX 20

static void
on_table_realize (GtkWidget *table, GtkWidget *resize)
{
  GtkColumnViewColumn **columns = g_object_get_data (G_OBJECT (table), "plx-search-columns");

  for (guint i = 0; i < PLX_SEARCH_N_COLUMNS; i++)
    {
      g_autoptr (PangoLayout) head = gtk_widget_create_pango_layout (table, _(plx_search_columns[i].title));
      g_autoptr (PangoLayout) cell = gtk_widget_create_pango_layout (table, _(plx_search_columns[i].widest));
      PangoAttrList *bold = pango_attr_list_new ();
      int hw, cw;

      pango_attr_list_insert (bold, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
      pango_layout_set_attributes (head, bold);
      pango_attr_list_unref (bold);
      pango_layout_get_pixel_size (head, &hw, NULL);
      pango_layout_get_pixel_size (cell, &cw, NULL);
      gtk_column_view_column_set_fixed_width (columns[i],
                                              MAX (hw + SORT_ARROW_PX, cw) + CELL_PADDING_PX);
    }
  gtk_widget_queue_resize (resize);
}

GtkColumnView *
plx_search_table_new (GtkColumnViewColumn **columns,
                      GtkWidget            *resize)
{
  GtkColumnView *table = GTK_COLUMN_VIEW (gtk_column_view_new (NULL));

  gtk_column_view_set_show_column_separators (table, TRUE);
  gtk_column_view_set_reorderable (table, FALSE);
  g_object_set_data (G_OBJECT (table), "plx-search-columns", columns);
  g_signal_connect (table, "realize", G_CALLBACK (on_table_realize), resize);
  for (guint i = 0; i < PLX_SEARCH_N_COLUMNS; i++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      GtkColumnViewColumn *column;
      GtkSorter *col_sorter = GTK_SORTER (gtk_custom_sorter_new (compare_rows, (gpointer) &plx_search_columns[i], NULL));

      g_signal_connect (factory, "setup", G_CALLBACK (setup_cell), (gpointer) &plx_search_columns[i]);
      g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), (gpointer) &plx_search_columns[i]);
      column = gtk_column_view_column_new (_(plx_search_columns[i].title), factory);
      gtk_column_view_column_set_sorter (column, col_sorter);
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_append_column (table, column);
      columns[i] = column;
      g_object_unref (col_sorter);
      g_object_unref (column);
    }
  return table;
}
