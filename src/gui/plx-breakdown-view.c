/* The Time breakdown page's table (plx-breakdown-view.h). */
#include <glib/gi18n-lib.h>

#include "plx-breakdown-view.h"
#include "plx-compare-chart.h"
#include "plx-format.h"
#include "plx-render-style.h"

struct _PlxBreakdownView
{
  GtkGrid    parent_instance;

  GtkLabel  *value[PLX_N_TIME];
  GtkLabel  *share[PLX_N_TIME];
  GtkWidget *bar[PLX_N_TIME];  /* drawn in the category's timeline colour */
  double     fraction[PLX_N_TIME];
  GtkLabel  *total;
  gboolean   dark;
};

G_DEFINE_FINAL_TYPE (PlxBreakdownView, plx_breakdown_view, GTK_TYPE_GRID)

/* A share of the step as a bar in the category's timeline colour: a level bar would
 * turn green past 75 % and red below 25 %, meanings these shares do not have. */
static void
draw_share_bar (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  PlxBreakdownView *self = data;
  guint i = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (area), "category"));
  PlxRenderStyle style;
  PlxColor c;
  double share = CLAMP (self->fraction[i], 0.0, 1.0);

  plx_render_style_init (&style, self->dark, 1.0);
  c = plx_render_style_time_color (&style, (PlxTimeCategory) i);
  cairo_set_source_rgba (cr, 0.5, 0.5, 0.5, 0.15);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
  cairo_rectangle (cr, 0, 0, width * share, height);
  cairo_fill (cr);
}

double
plx_breakdown_view_get_share (PlxBreakdownView *self,
                              guint             category)
{
  return category < PLX_N_TIME ? self->fraction[category] : 0.0;
}

void
plx_breakdown_view_set_dark (PlxBreakdownView *self,
                             gboolean          dark)
{
  self->dark = dark;
}

void
plx_breakdown_view_set_report (PlxBreakdownView *self,
                               const PlxReport  *r)
{
  for (guint i = 0; i < PLX_N_TIME; i++)
    {
      g_autofree char *t = plx_format_time (r->time_s[i]);
      g_autofree char *pct = g_strdup_printf ("%.1f %%", 100.0 * r->time_s[i] / r->step_time_s);
      gtk_label_set_text (self->value[i], t);
      gtk_label_set_text (self->share[i], pct);
      self->fraction[i] = r->time_s[i] / r->step_time_s;
      gtk_widget_queue_draw (self->bar[i]);
    }
  {
    g_autofree char *t = plx_format_time (r->step_time_s);
    g_autofree char *text = g_strdup_printf (_("Step time on stage %u, the GPU with the highest memory peak: %s"),
                                             r->reported_stage, t);
    gtk_label_set_text (self->total, text);
  }
}

static void
plx_breakdown_view_class_init (PlxBreakdownViewClass *klass)
{
}

/* The widgets are made once and only relabelled, so a new result does not rebuild
 * (and re-measure) them. */
static void
plx_breakdown_view_init (PlxBreakdownView *self)
{
  static const char *const names[PLX_N_TIME] = {
    N_("Compute"), N_("Recompute"), N_("TP / CP / EP communication"), N_("Pipeline communication"),
    N_("Data-parallel communication"), N_("Bubble (idle)"), N_("Optimizer"),
  };
  GtkGrid *grid = GTK_GRID (self);

  gtk_grid_set_row_spacing (grid, 10);
  gtk_grid_set_column_spacing (grid, 18);
  gtk_widget_set_margin_start (GTK_WIDGET (self), 24);
  gtk_widget_set_margin_end (GTK_WIDGET (self), 24);
  gtk_widget_set_margin_top (GTK_WIDGET (self), 24);
  for (guint i = 0; i < PLX_N_TIME; i++)
    {
      GtkWidget *name = gtk_label_new (_(names[i]));
      GtkWidget *value = gtk_label_new ("");
      GtkWidget *share = gtk_label_new ("");
      GtkWidget *bar = gtk_drawing_area_new ();

      gtk_label_set_xalign (GTK_LABEL (name), 0);
      gtk_label_set_xalign (GTK_LABEL (value), 1);
      gtk_label_set_xalign (GTK_LABEL (share), 1);
      gtk_label_set_width_chars (GTK_LABEL (value), 11);
      gtk_label_set_width_chars (GTK_LABEL (share), 7);
      gtk_widget_add_css_class (value, "numeric");
      gtk_widget_set_hexpand (bar, TRUE);
      gtk_widget_set_valign (bar, GTK_ALIGN_CENTER);
      gtk_grid_attach (grid, name, 0, i, 1, 1);
      gtk_grid_attach (grid, value, 1, i, 1, 1);
      gtk_grid_attach (grid, share, 2, i, 1, 1);
      gtk_grid_attach (grid, bar, 3, i, 1, 1);
      self->value[i] = GTK_LABEL (value);
      self->share[i] = GTK_LABEL (share);
      gtk_widget_set_size_request (bar, 60, 10);
      g_object_set_data (G_OBJECT (bar), "category", GUINT_TO_POINTER (i));
      gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (bar), draw_share_bar, self, NULL);
      self->bar[i] = bar;
    }
  self->total = GTK_LABEL (gtk_label_new (""));
  gtk_label_set_xalign (self->total, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->total), "dim-label");
  gtk_grid_attach (grid, GTK_WIDGET (self->total), 0, PLX_N_TIME, 4, 1);
}

GtkWidget *
plx_breakdown_view_new (void)
{
  return g_object_new (PLX_TYPE_BREAKDOWN_VIEW, NULL);
}
