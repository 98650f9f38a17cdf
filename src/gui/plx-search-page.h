/* plx-search-page.h: the window's search page: constraints, a search running off the
 * UI thread with progress and cancel, the results as a sortable table and a scatter
 * plot. Using a result emits "strategy-chosen" with the scenario to load. */
#pragma once

#include <adwaita.h>

#include "plx-result.h"
#include "plx-scatter-view.h"

G_BEGIN_DECLS

#define PLX_TYPE_SEARCH_PAGE (plx_search_page_get_type ())
G_DECLARE_FINAL_TYPE (PlxSearchPage, plx_search_page, PLX, SEARCH_PAGE, GtkBox)

GtkWidget      *plx_search_page_new (void);
/* The scenario the next search starts from (model, cluster, batch); NULL while the
 * scenario has an error. */
void            plx_search_page_set_scenario (PlxSearchPage *self,
                                              PlxResult     *result);
void            plx_search_page_start (PlxSearchPage *self);
void            plx_search_page_cancel (PlxSearchPage *self);
gboolean        plx_search_page_is_running (PlxSearchPage *self);
/* Constraints, as the controls would set them. `fix` is parallax-cli's --fix syntax
 * ("tp=8,schedule=1f1b"); the controls show it. */
gboolean        plx_search_page_set_fix (PlxSearchPage *self,
                                         const char    *fix,
                                         GError       **error);
void            plx_search_page_set_gpus (PlxSearchPage *self,
                                          guint          gpus_min,
                                          guint          gpus_max);
/* The last finished search, or NULL. */
const PlxSearch *plx_search_page_get_search (PlxSearchPage *self);
/* The table's rows in their current order. */
GListModel     *plx_search_page_get_rows (PlxSearchPage *self);
const PlxSearchResult *plx_search_page_get_row (PlxSearchPage *self,
                                                guint          position,
                                                guint         *rank);
/* Where the result ranked `rank` (1 = fastest) stands in the table's current order,
 * or GTK_INVALID_LIST_POSITION. */
guint           plx_search_page_position_of_rank (PlxSearchPage *self,
                                                  guint          rank);
/* Sorts the table by a column ("step", "memory", "mfu", "gpus", ...). */
gboolean        plx_search_page_sort_by (PlxSearchPage *self,
                                         const char    *column,
                                         gboolean       descending);
void            plx_search_page_select (PlxSearchPage *self,
                                        guint          position);
/* The selected row's position, or GTK_INVALID_LIST_POSITION. */
guint           plx_search_page_get_selected (PlxSearchPage *self);
/* Emits "strategy-chosen" for the row at `position`. */
void            plx_search_page_choose (PlxSearchPage *self,
                                        guint          position);
const char     *plx_search_page_get_status (PlxSearchPage *self);
PlxScatterView *plx_search_page_get_scatter (PlxSearchPage *self);
/* The plot's x axis: GPU count (offered after a search over a range) or memory. */
void            plx_search_page_set_plot_by_gpus (PlxSearchPage *self,
                                                  gboolean       by_gpus);

G_END_DECLS
