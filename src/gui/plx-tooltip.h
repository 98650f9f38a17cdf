/* plx-tooltip.h: tooltips whose text follows every result.
 *
 * gtk_widget_set_tooltip_text() asks the X server where the pointer is (a round trip)
 * each time, to refresh a tooltip that may be open; a window that sets five card
 * tooltips and six button tooltips per slider step pays that on every frame of a drag.
 * These keep the text with the widget and hand it over when GTK asks
 * (::query-tooltip), so changing it costs nothing. */
#pragma once

#include <gtk/gtk.h>

/* Sets (or with NULL removes) the widget's tooltip; `markup` selects Pango markup. */
void plx_tooltip_set (GtkWidget  *widget,
                      const char *text,
                      gboolean    markup);
