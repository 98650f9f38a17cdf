/* plx-scatter-view.h: the search's scatter plot in the window. A click selects the
 * strategy under the pointer, a double click uses it; the tooltip names it. */
#pragma once

#include <gtk/gtk.h>

#include "parallax/parallax.h"

G_BEGIN_DECLS

#define PLX_TYPE_SCATTER_VIEW (plx_scatter_view_get_type ())
G_DECLARE_FINAL_TYPE (PlxScatterView, plx_scatter_view, PLX, SCATTER_VIEW, GtkDrawingArea)

GtkWidget *plx_scatter_view_new (void);
/* `results`: PlxSearchResult, best first (the view keeps a reference); NULL clears.
 * `subject` begins the title ("gpt3-175b, global batch 64"). */
void       plx_scatter_view_set_results (PlxScatterView *self,
                                         GArray         *results,
                                         double          usable_bytes,
                                         const char     *subject);
/* Step time against GPU count (and that front) rather than against memory. */
void       plx_scatter_view_set_by_gpus (PlxScatterView *self,
                                         gboolean        by_gpus);
/* Rings the result at `index` of the array, or none for -1. */
void       plx_scatter_view_set_selected (PlxScatterView *self,
                                          gint            index);
gint       plx_scatter_view_get_selected (PlxScatterView *self);
void       plx_scatter_view_set_dark (PlxScatterView *self,
                                      gboolean        dark);
/* The result under (x, y) in widget pixels, or -1. */
gint       plx_scatter_view_hit (PlxScatterView *self,
                                 double          x,
                                 double          y);
char      *plx_scatter_view_describe_at (PlxScatterView *self,
                                         double          x,
                                         double          y);
/* The widget's position of a result, for tests. */
gboolean   plx_scatter_view_get_point (PlxScatterView *self,
                                       guint           index,
                                       double         *x,
                                       double         *y);
gboolean   plx_scatter_view_export (PlxScatterView *self,
                                    const char     *path,
                                    GError        **error);

G_END_DECLS
