/* plx-search-table.h: the Search page's results table - a row object per result,
 * the columns (what each shows, sorts by and is measured for), and the column view
 * made from them (plx-search-page.c fills and filters it). */
#pragma once

#include <gtk/gtk.h>

#include "parallax/parallax.h"

G_BEGIN_DECLS

#define PLX_TYPE_SEARCH_ROW (plx_search_row_get_type ())
G_DECLARE_FINAL_TYPE (PlxSearchRow, plx_search_row, PLX, SEARCH_ROW, GObject)

struct _PlxSearchRow
{
  GObject         parent_instance;
  PlxSearchResult r;      /* a copy: rows outlive a new search while the table re-sorts */
  guint           rank;   /* 1 = fastest */
  gboolean        range;  /* the search spanned GPU counts */
};

typedef struct
{
  const char *id;
  const char *title;
  const char *tooltip;
  double    (*key) (const PlxSearchRow *row);
  char     *(*text) (const PlxSearchRow *row);
  const char *widest;   /* the widest text the column commonly holds, for its width */
} PlxSearchColumn;

#define PLX_SEARCH_N_COLUMNS 18
extern const PlxSearchColumn plx_search_columns[PLX_SEARCH_N_COLUMNS];

/* A column view with a column per plx_search_columns entry (stored in `columns`),
 * each sorted by its key (ties by rank); when realized the columns get fixed widths
 * from their texts in the table's font and `resize` is queued for a new size. */
GtkColumnView *plx_search_table_new (GtkColumnViewColumn **columns,
                                     GtkWidget            *resize);

G_END_DECLS
