#include "plx-tooltip.h"

#define TEXT_KEY   "plx-tooltip-text"
#define MARKUP_KEY "plx-tooltip-markup"

static gboolean
on_query_tooltip (GtkWidget  *widget,
                  int         x,
                  int         y,
                  gboolean    keyboard,
                  GtkTooltip *tooltip,
                  gpointer    data)
{
  const char *text = g_object_get_data (G_OBJECT (widget), TEXT_KEY);

  if (text == NULL || text[0] == '\0')
    return FALSE;
  if (GPOINTER_TO_INT (g_object_get_data (G_OBJECT (widget), MARKUP_KEY)))
    gtk_tooltip_set_markup (tooltip, text);
  else
    gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

void
plx_tooltip_set (GtkWidget  *widget,
                 const char *text,
                 gboolean    markup)
{
  g_return_if_fail (GTK_IS_WIDGET (widget));

  if (g_object_get_data (G_OBJECT (widget), "plx-tooltip-connected") == NULL)
    {
      g_signal_connect (widget, "query-tooltip", G_CALLBACK (on_query_tooltip), NULL);
      g_object_set_data (G_OBJECT (widget), "plx-tooltip-connected", GINT_TO_POINTER (1));
    }
  g_object_set_data_full (G_OBJECT (widget), TEXT_KEY, g_strdup (text), g_free);
  g_object_set_data (G_OBJECT (widget), MARKUP_KEY, GINT_TO_POINTER (markup != FALSE));
  /* Changes only when a text appears or goes, not with each new text. */
  if (gtk_widget_get_has_tooltip (widget) != (text != NULL && text[0] != '\0'))
    gtk_widget_set_has_tooltip (widget, text != NULL && text[0] != '\0');
}
