/* plx-search-split.h: the Search page's table beside its plot, the divider between
 * them following the page's width (every column of the table in view while the plot
 * keeps its minimum) until the user drags it. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PLX_TYPE_SEARCH_SPLIT (plx_search_split_get_type ())
G_DECLARE_FINAL_TYPE (PlxSearchSplit, plx_search_split, PLX, SEARCH_SPLIT, GtkWidget)

/* `table_side` (holding `table`, whose natural width it is given) left of `plot_side`. */
GtkWidget *plx_search_split_new (GtkWidget *table_side,
                                 GtkWidget *plot_side,
                                 GtkWidget *table);

G_END_DECLS
