/* plx-search-split.c: the Search page's table beside its plot (plx-search-split.h). */
#include "plx-search-split.h"

/* The paned's parent: a box's layout manager would allocate the paned without asking
 * the page, so a one-child widget of its own sets the divider before each allocation. */
struct _PlxSearchSplit
{
  GtkWidget  parent_instance;
  GtkPaned  *paned;
  GtkWidget *table;
  int        paned_set;      /* the divider position last chosen here */
  gboolean   paned_moved;    /* the user dragged the divider: keep theirs */
};

G_DEFINE_FINAL_TYPE (PlxSearchSplit, plx_search_split, GTK_TYPE_WIDGET)

static void place_divider (PlxSearchSplit *self, int width);

static void
plx_search_split_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *min, int *nat,
                          int *min_baseline, int *nat_baseline)
{
  GtkWidget *child = gtk_widget_get_first_child (widget);

  *min = *nat = 0;
  if (child != NULL)
    gtk_widget_measure (child, orientation, for_size, min, nat, min_baseline, nat_baseline);
}

static void
plx_search_split_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  PlxSearchSplit *split = PLX_SEARCH_SPLIT (widget);
  GtkWidget *child = gtk_widget_get_first_child (widget);

  place_divider (split, width);
  if (child != NULL)
    gtk_widget_allocate (child, width, height, baseline, NULL);
}

static void
plx_search_split_dispose (GObject *object)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (plx_search_split_parent_class)->dispose (object);
}

static void
plx_search_split_class_init (PlxSearchSplitClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = plx_search_split_dispose;
  GTK_WIDGET_CLASS (klass)->measure = plx_search_split_measure;
  GTK_WIDGET_CLASS (klass)->size_allocate = plx_search_split_size_allocate;
}

static void
plx_search_split_init (PlxSearchSplit *self)
{
}

/* The divider follows the page's width until the user drags it: the table gets its
 * natural width (every column visible) when the plot keeps at least PLOT_MIN_PX, else
 * the width less the plot's minimum, and never less than TABLE_MIN_PX. */
#define PLOT_MIN_PX 460
#define TABLE_MIN_PX 320

static void
on_paned_position (GtkPaned *paned, GParamSpec *pspec, PlxSearchSplit *self)
{
  int lo = 0, hi = 0, pos = gtk_paned_get_position (paned);

  /* The paned clamps what the page asked for to its children's minimum sizes; any
   * other position is the user's. */
  g_object_get (paned, "min-position", &lo, "max-position", &hi, NULL);
  if (self->paned_set >= 0 && gtk_widget_get_width (GTK_WIDGET (paned)) > 0 && hi >= lo
      && pos != CLAMP (self->paned_set, lo, hi))
    self->paned_moved = TRUE;
}

static int
table_width_for (PlxSearchSplit *self,
                 int             width)
{
  int natural = 0;

  gtk_widget_measure (self->table, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
  /* Room for the overlay scrollbar and the divider's handle. */
  natural += 16;
  /* The paned's handle is one pixel wide (not a wide handle). */
  return MAX (TABLE_MIN_PX, MIN (natural, width - PLOT_MIN_PX - 1));
}

static void
place_divider (PlxSearchSplit *self,
               int             width)
{
  int want;

  if (self->paned_moved || width <= 0)
    return;
  want = table_width_for (self, width);
  if (want != self->paned_set)
    {
      self->paned_set = want;
      gtk_paned_set_position (self->paned, want);
    }
}

GtkWidget *
plx_search_split_new (GtkWidget *table_side,
                      GtkWidget *plot_side,
                      GtkWidget *table)
{
  PlxSearchSplit *self = g_object_new (PLX_TYPE_SEARCH_SPLIT, NULL);
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);

  gtk_paned_set_start_child (GTK_PANED (paned), table_side);
  gtk_paned_set_end_child (GTK_PANED (paned), plot_side);
  gtk_paned_set_shrink_start_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (paned), FALSE);
  self->paned = GTK_PANED (paned);
  self->table = table;
  self->paned_set = -1;
  g_signal_connect (paned, "notify::position", G_CALLBACK (on_paned_position), self);
  gtk_widget_set_parent (paned, GTK_WIDGET (self));
  return GTK_WIDGET (self);
}
