#include <glib/gi18n-lib.h>

#include "plx-format.h"
#include "plx-render-export.h"
#include "plx-scatter-chart.h"
#include "plx-scatter-view.h"

/* How close the pointer must be to a point to pick it, in pixels. */
#define PICK_RADIUS_PX 8.0

struct _PlxScatterView
{
  GtkDrawingArea    parent_instance;
  GArray           *results;      /* PlxSearchResult */
  PlxScatterPoint  *points;
  double            usable_bytes;
  char             *subject;
  gint              selected;
  gboolean          by_gpus;
  gboolean          dark;
  PlxScatterLayout *layout;       /* the last drawn, for hit tests */
};

G_DEFINE_FINAL_TYPE (PlxScatterView, plx_scatter_view, GTK_TYPE_DRAWING_AREA)

enum { POINT_CLICKED, POINT_ACTIVATED, N_SIGNALS };
static guint signals[N_SIGNALS];

static guint
n_points (PlxScatterView *self)
{
  return self->results != NULL ? self->results->len : 0;
}

static PlxScatterLayout *
make_layout (PlxScatterView *self, double width, double height)
{
  PlxScatterOptions o;
  g_autofree char *title = self->by_gpus ? g_strdup_printf (_("%s: step time against GPU count"), self->subject)
                                         : g_strdup_printf (_("%s: step time against peak memory"), self->subject);

  plx_scatter_options_init (&o, width, height);
  o.usable_bytes = self->usable_bytes;
  o.selected = self->selected;
  o.by_gpus = self->by_gpus;
  o.title = self->subject != NULL ? title : NULL;
  return plx_scatter_layout_new (self->points, n_points (self), &o);
}

static void
draw (PlxScatterView *self, cairo_t *cr, double width, double height, PlxScatterLayout *l)
{
  PlxRenderStyle style;

  plx_render_style_init (&style, self->dark, 1.0);
  cairo_set_source_rgb (cr, style.background.r, style.background.g, style.background.b);
  cairo_paint (cr);
  if (self->results == NULL)
    return;
  plx_scatter_chart_render (l, &style, cr, width, height);
}

static void
draw_func (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  PlxScatterView *self = PLX_SCATTER_VIEW (area);

  if (self->layout == NULL || self->layout->width_px != MAX (width, 200) || self->layout->height_px != MAX (height, 150))
    {
      g_clear_pointer (&self->layout, plx_scatter_layout_free);
      self->layout = make_layout (self, width, height);
    }
  draw (self, cr, width, height, self->layout);
}

static void
invalidate (PlxScatterView *self)
{
  g_clear_pointer (&self->layout, plx_scatter_layout_free);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gint
plx_scatter_view_hit (PlxScatterView *self,
                      double          x,
                      double          y)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));

  if (self->results == NULL || w <= 0 || h <= 0)
    return -1;
  if (self->layout == NULL)
    self->layout = make_layout (self, w, h);
  return plx_scatter_layout_hit (self->layout, x / self->layout->width_px, y / self->layout->height_px, PICK_RADIUS_PX);
}

gboolean
plx_scatter_view_get_point (PlxScatterView *self,
                            guint           index,
                            double         *x,
                            double         *y)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  const PlxChartPoint *p;

  if (index >= n_points (self) || w <= 0 || h <= 0)
    return FALSE;
  if (self->layout == NULL)
    self->layout = make_layout (self, w, h);
  p = &g_array_index (self->layout->positions, PlxChartPoint, index);
  *x = p->x * self->layout->width_px;
  *y = p->y * self->layout->height_px;
  return TRUE;
}

char *
plx_scatter_view_describe_at (PlxScatterView *self,
                              double          x,
                              double          y)
{
  gint i = plx_scatter_view_hit (self, x, y);
  const PlxSearchResult *r;
  g_autofree char *strategy = NULL, *step = NULL, *escaped = NULL;
  GString *text;

  if (i < 0)
    return NULL;
  r = &g_array_index (self->results, PlxSearchResult, i);
  strategy = plx_strategy_describe (&r->strategy);
  escaped = g_markup_escape_text (strategy, -1);
  step = plx_format_time (r->step_time_s);
  text = g_string_new (NULL);
  g_string_append_printf (text, _("<b>Rank %d</b> on %u GPUs"), i + 1, r->n_gpus);
  g_string_append_printf (text, "\n%s", escaped);
  g_string_append_printf (text, _("\nStep time %s (%s), MFU %.1f %%"), step,
                          r->event ? _("event simulation") : _("analytical"), r->mfu * 100.0);
  g_string_append_printf (text, _("\nPeak memory %.1f GiB per GPU"), r->peak_memory_bytes / 1073741824.0);
  if (self->by_gpus ? r->pareto_gpus : r->pareto)
    g_string_append_printf (text, "\n%s", self->by_gpus ? _("On the Pareto front: nothing else is both faster and on fewer GPUs")
                                                         : _("On the Pareto front: nothing else is both faster and smaller"));
  g_string_append_printf (text, "\n<i>%s</i>", _("Double-click to use this strategy"));
  return g_string_free (text, FALSE);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip, PlxScatterView *self)
{
  g_autofree char *text = plx_scatter_view_describe_at (self, x, y);

  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_markup (tooltip, text);
  return TRUE;
}

static void
on_pressed (GtkGestureClick *gesture, int n_press, double x, double y, PlxScatterView *self)
{
  gint i = plx_scatter_view_hit (self, x, y);

  if (i < 0)
    return;
  plx_scatter_view_set_selected (self, i);
  g_signal_emit (self, signals[POINT_CLICKED], 0, (guint) i);
  if (n_press == 2)
    g_signal_emit (self, signals[POINT_ACTIVATED], 0, (guint) i);
}

static void
plx_scatter_view_dispose (GObject *object)
{
  PlxScatterView *self = PLX_SCATTER_VIEW (object);

  g_clear_pointer (&self->results, g_array_unref);
  g_clear_pointer (&self->points, g_free);
  g_clear_pointer (&self->subject, g_free);
  g_clear_pointer (&self->layout, plx_scatter_layout_free);
  G_OBJECT_CLASS (plx_scatter_view_parent_class)->dispose (object);
}

static void
plx_scatter_view_class_init (PlxScatterViewClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = plx_scatter_view_dispose;
  signals[POINT_CLICKED] = g_signal_new ("point-clicked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                         NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
  signals[POINT_ACTIVATED] = g_signal_new ("point-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                           NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
plx_scatter_view_init (PlxScatterView *self)
{
  GtkGesture *click = gtk_gesture_click_new ();

  self->selected = -1;
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self), draw_func, NULL, NULL);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_size_request (GTK_WIDGET (self), 320, 240);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (on_query_tooltip), self);
  g_signal_connect (click, "pressed", G_CALLBACK (on_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
}

GtkWidget *
plx_scatter_view_new (void)
{
  return g_object_new (PLX_TYPE_SCATTER_VIEW, NULL);
}

void
plx_scatter_view_set_results (PlxScatterView *self,
                              GArray         *results,
                              double          usable_bytes,
                              const char     *subject)
{
  g_clear_pointer (&self->results, g_array_unref);
  g_clear_pointer (&self->points, g_free);
  g_free (self->subject);
  self->subject = g_strdup (subject);
  self->usable_bytes = usable_bytes;
  self->selected = -1;
  if (results != NULL)
    {
      self->results = g_array_ref (results);
      self->points = g_new0 (PlxScatterPoint, MAX (results->len, 1));
      for (guint i = 0; i < results->len; i++)
        {
          const PlxSearchResult *r = &g_array_index (results, PlxSearchResult, i);
          self->points[i].memory_bytes = (double) r->peak_memory_bytes;
          self->points[i].step_time_s = r->step_time_s;
          self->points[i].pareto = r->pareto;
          self->points[i].gpus = r->n_gpus;
          self->points[i].pareto_gpus = r->pareto_gpus;
        }
    }
  invalidate (self);
}

void
plx_scatter_view_set_selected (PlxScatterView *self,
                               gint            index)
{
  gint i = index >= 0 && (guint) index < n_points (self) ? index : -1;

  if (i == self->selected)
    return;
  self->selected = i;
  invalidate (self);
}

gint
plx_scatter_view_get_selected (PlxScatterView *self)
{
  return self->selected;
}

void
plx_scatter_view_set_by_gpus (PlxScatterView *self,
                              gboolean        by_gpus)
{
  self->by_gpus = by_gpus;
  invalidate (self);
}

void
plx_scatter_view_set_dark (PlxScatterView *self,
                           gboolean        dark)
{
  self->dark = dark;
  invalidate (self);
}

static void
export_draw (cairo_t *cr, double width, double height, gpointer data)
{
  PlxScatterView *self = data;
  g_autoptr (PlxScatterLayout) l = make_layout (self, width, height);

  draw (self, cr, width, height, l);
}

gboolean
plx_scatter_view_export (PlxScatterView *self,
                         const char     *path,
                         GError        **error)
{
  PlxRenderStyle style;
  double w = MAX (gtk_widget_get_width (GTK_WIDGET (self)), 800);
  double h = MAX (gtk_widget_get_height (GTK_WIDGET (self)), 500);

  if (self->results == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, _("%s: nothing to export: run a search first"), path);
      return FALSE;
    }
  plx_render_style_init (&style, self->dark, 1.0);
  return plx_render_export (path, w, h, 1.0, &style, export_draw, self, error);
}
