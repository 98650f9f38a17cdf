/* A summary card of the window (plx-summary-card.h). */
#include "plx-summary-card.h"
#include "plx-tooltip.h"

struct _PlxSummaryCard
{
  GtkBox    parent_instance;

  GtkLabel *title_label;
  GtkLabel *value_label;
  GtkLabel *detail_label;
  char     *text;
};

G_DEFINE_FINAL_TYPE (PlxSummaryCard, plx_summary_card, GTK_TYPE_BOX)

enum { PROP_0, PROP_TITLE, N_PROPS };
static GParamSpec *props[N_PROPS];

void
plx_summary_card_set (PlxSummaryCard *self,
                      const char     *value,
                      const char     *detail)
{
  /* Unchanged text: no relayout of the window. */
  if (g_strcmp0 (gtk_label_get_text (self->value_label), value) != 0)
    gtk_label_set_text (self->value_label, value);
  if (g_strcmp0 (gtk_label_get_text (self->detail_label), detail) != 0)
    gtk_label_set_text (self->detail_label, detail);
  g_free (self->text);
  self->text = g_strdup_printf ("%s %s", value, detail);
  plx_tooltip_set (GTK_WIDGET (self), detail[0] ? self->text : NULL, FALSE);
}

const char *
plx_summary_card_get_text (PlxSummaryCard *self)
{
  return self->text;
}

void
plx_summary_card_set_detail_error (PlxSummaryCard *self,
                                   gboolean        error)
{
  if (error)
    gtk_widget_add_css_class (GTK_WIDGET (self->detail_label), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->detail_label), "error");
}

static void
plx_summary_card_set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  PlxSummaryCard *self = PLX_SUMMARY_CARD (object);

  if (id == PROP_TITLE)
    gtk_label_set_text (self->title_label, g_value_get_string (value));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
}

static void
plx_summary_card_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  PlxSummaryCard *self = PLX_SUMMARY_CARD (object);

  if (id == PROP_TITLE)
    g_value_set_string (value, gtk_label_get_text (self->title_label));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
}

static void
plx_summary_card_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), PLX_TYPE_SUMMARY_CARD);
  G_OBJECT_CLASS (plx_summary_card_parent_class)->dispose (object);
}

static void
plx_summary_card_finalize (GObject *object)
{
  g_free (PLX_SUMMARY_CARD (object)->text);
  G_OBJECT_CLASS (plx_summary_card_parent_class)->finalize (object);
}

static void
plx_summary_card_class_init (PlxSummaryCardClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->set_property = plx_summary_card_set_property;
  object_class->get_property = plx_summary_card_get_property;
  object_class->dispose = plx_summary_card_dispose;
  object_class->finalize = plx_summary_card_finalize;
  props[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/parallax/Parallax/ui/plx-summary-card.ui");
  gtk_widget_class_bind_template_child (widget_class, PlxSummaryCard, title_label);
  gtk_widget_class_bind_template_child (widget_class, PlxSummaryCard, value_label);
  gtk_widget_class_bind_template_child (widget_class, PlxSummaryCard, detail_label);
}

static void
plx_summary_card_init (PlxSummaryCard *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
