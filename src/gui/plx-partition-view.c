/* The partition view (plx-partition-view.h): the graph copied once per run, laid
 * out again only when the size changes. */
#include <adwaita.h>
#include <glib/gi18n.h>

#include "plx-partition-chart.h"
#include "plx-partition-view.h"
#include "ir/plx-ir.h"

struct _PlxPartitionView
{
  GtkWidget           parent_instance;
  GStrv               names;
  const char        **kinds;      /* plx_ir_kind_to_string's, static */
  guint              *stage;
  guint               n_ops, n_stages;
  GArray             *edge_from, *edge_to;
  PlxPartitionLayout *layout;     /* for the size it was made at */
  gboolean            dark;
};

G_DEFINE_FINAL_TYPE (PlxPartitionView, plx_partition_view, GTK_TYPE_WIDGET)

static void
clear_layout (PlxPartitionView *self)
{
  g_clear_pointer (&self->layout, plx_partition_layout_free);
}

static PlxPartitionLayout *
layout_for (PlxPartitionView *self, int width, int height)
{
  if (self->layout != NULL && self->layout->width_px == MAX (width, 40) && self->layout->height_px == MAX (height, 40))
    return self->layout;
  clear_layout (self);
  if (self->n_ops > 0)
    {
      PlxPartitionGraph g = { self->n_ops, (const char *const *) self->names, self->stage, self->n_stages,
                              self->edge_from->len, (const guint *) (const void *) self->edge_from->data,
                              (const guint *) (const void *) self->edge_to->data };
      self->layout = plx_partition_layout_new (&g, width, height);
    }
  return self->layout;
}

static void
plx_partition_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  PlxPartitionView *self = PLX_PARTITION_VIEW (widget);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  PlxPartitionLayout *l = layout_for (self, w, h);
  PlxRenderStyle style;
  cairo_t *cr;

  if (l == NULL || w <= 0 || h <= 0)
    return;
  plx_render_style_init (&style, self->dark, 1.0);
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  plx_partition_chart_render (l, &style, cr, w, h);
  cairo_destroy (cr);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip, gpointer data)
{
  PlxPartitionView *self = PLX_PARTITION_VIEW (widget);
  PlxPartitionLayout *l = self->layout;
  g_autofree char *name = NULL;
  guint in_cut = 0, out_cut = 0;
  gint op;

  (void) keyboard;
  (void) data;
  if (l == NULL)
    return FALSE;
  op = plx_partition_layout_hit (l, x / l->width_px, y / l->height_px);
  if (op < 0)
    return FALSE;
  for (guint e = 0; e < l->edges->len; e++)
    {
      const PlxPartitionEdge *edge = &g_array_index (l->edges, PlxPartitionEdge, e);
      in_cut += edge->cut && edge->to == (guint) op;
      out_cut += edge->cut && edge->from == (guint) op;
    }
  name = g_markup_escape_text (self->names[op], -1);
  {
    /* TRANSLATORS: op name, its kind, its index among the forward ops, its stage;
     * then the edges into and out of it that cross stages. */
    g_autofree char *text = g_strdup_printf (_("<b>%s</b> (%s, op %d)\nStage %u · cut edges: %u in, %u out"), name,
                                             self->kinds[op], op, self->stage[op], in_cut, out_cut);
    gtk_tooltip_set_markup (tooltip, text);
  }
  return TRUE;
}

static void
redraw (PlxPartitionView *self)
{
  clear_layout (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
plx_partition_view_finalize (GObject *object)
{
  PlxPartitionView *self = PLX_PARTITION_VIEW (object);

  clear_layout (self);
  g_strfreev (self->names);
  g_free (self->kinds);
  g_free (self->stage);
  g_array_unref (self->edge_from);
  g_array_unref (self->edge_to);
  G_OBJECT_CLASS (plx_partition_view_parent_class)->finalize (object);
}

static void
plx_partition_view_class_init (PlxPartitionViewClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = plx_partition_view_finalize;
  GTK_WIDGET_CLASS (klass)->snapshot = plx_partition_view_snapshot;
}

static void
plx_partition_view_init (PlxPartitionView *self)
{
  self->edge_from = g_array_new (FALSE, FALSE, sizeof (guint));
  self->edge_to = g_array_new (FALSE, FALSE, sizeof (guint));
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (on_query_tooltip), NULL);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
}

GtkWidget *
plx_partition_view_new (void)
{
  return g_object_new (PLX_TYPE_PARTITION_VIEW, NULL);
}

void
plx_partition_view_set (PlxPartitionView *self,
                        const PlxIrGraph *forward,
                        const guint      *stage,
                        guint             n_stages)
{
  g_clear_pointer (&self->names, g_strfreev);
  g_clear_pointer (&self->kinds, g_free);
  g_clear_pointer (&self->stage, g_free);
  g_array_set_size (self->edge_from, 0);
  g_array_set_size (self->edge_to, 0);
  self->n_ops = 0;
  self->n_stages = MAX (n_stages, 1u);
  if (forward != NULL)
    {
      guint n = forward->ops->len;
      self->n_ops = n;
      self->names = g_new0 (char *, n + 1);
      self->kinds = g_new (const char *, MAX (n, 1));
      self->stage = g_memdup2 (stage, MAX (n, 1) * sizeof (guint));
      for (guint i = 0; i < n; i++)
        {
          const PlxIrOp *op = forward->ops->pdata[i];
          self->names[i] = g_strdup (op->name);
          self->kinds[i] = plx_ir_kind_to_string (op->kind);
          for (guint j = 0; j < op->n_inputs; j++)
            {
              gint p = ((const PlxIrTensor *) forward->tensors->pdata[op->inputs[j]])->producer;
              gboolean seen = FALSE;
              /* an op reading two outputs of one producer is one edge */
              for (guint k = 0; k < j && !seen; k++)
                seen = ((const PlxIrTensor *) forward->tensors->pdata[op->inputs[k]])->producer == p;
              if (p >= 0 && !seen)
                {
                  guint from = (guint) p;
                  g_array_append_val (self->edge_from, from);
                  g_array_append_val (self->edge_to, i);
                }
            }
        }
    }
  redraw (self);
}

void
plx_partition_view_set_dark (PlxPartitionView *self,
                             gboolean          dark)
{
  self->dark = dark;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gint
plx_partition_view_get_stage (PlxPartitionView *self,
                              const char       *op)
{
  for (guint i = 0; i < self->n_ops; i++)
    if (g_str_equal (self->names[i], op))
      return (gint) self->stage[i];
  return -1;
}

guint
plx_partition_view_get_n_stages (PlxPartitionView *self)
{
  return self->n_stages;
}

guint
plx_partition_view_get_n_cut (PlxPartitionView *self)
{
  guint n = 0;

  for (guint e = 0; e < self->edge_from->len; e++)
    n += self->stage[g_array_index (self->edge_from, guint, e)] != self->stage[g_array_index (self->edge_to, guint, e)];
  return n;
}
