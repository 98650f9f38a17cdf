/* plx-summary-card.h: one of the window's summary cards (step time, throughput, ...):
 * a title, a number and a detail line; the tooltip has both lines whole. Its
 * structure is ui/plx-summary-card.ui. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PLX_TYPE_SUMMARY_CARD (plx_summary_card_get_type ())
G_DECLARE_FINAL_TYPE (PlxSummaryCard, plx_summary_card, PLX, SUMMARY_CARD, GtkBox)

/* The number and its detail line; a label is only set when its text changes. */
void        plx_summary_card_set (PlxSummaryCard *self,
                                  const char     *value,
                                  const char     *detail);
/* "value detail", as last set; NULL before the first plx_summary_card_set. */
const char *plx_summary_card_get_text (PlxSummaryCard *self);
/* The detail line in the error style (a strategy that does not fit). */
void        plx_summary_card_set_detail_error (PlxSummaryCard *self,
                                               gboolean        error);

G_END_DECLS
