/* plx-breakdown-view.h: the Time breakdown page's table: for each time category its
 * time, its share of the step and a bar of that share in the timeline's colour,
 * and below them the step time of the stage reported. */
#pragma once

#include <gtk/gtk.h>

#include "plx-result.h"

G_BEGIN_DECLS

#define PLX_TYPE_BREAKDOWN_VIEW (plx_breakdown_view_get_type ())
G_DECLARE_FINAL_TYPE (PlxBreakdownView, plx_breakdown_view, PLX, BREAKDOWN_VIEW, GtkGrid)

GtkWidget *plx_breakdown_view_new (void);
void       plx_breakdown_view_set_report (PlxBreakdownView *self,
                                          const PlxReport  *report);
/* The bars' colours: the timeline's in the dark or the light style. */
void       plx_breakdown_view_set_dark (PlxBreakdownView *self,
                                        gboolean          dark);
/* The share of the step the bar of `category` shows. */
double     plx_breakdown_view_get_share (PlxBreakdownView *self,
                                         guint             category);

G_END_DECLS
