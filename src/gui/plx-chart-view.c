/* A chart of src/render/ in the window (plx-chart-view.h): the object, the result and
 * the visible window it shows, and its public setters and getters. Its parts are
 * listed in plx-chart-view-private.h. */
#include <glib/gi18n-lib.h>
#include <math.h>

#include "plx-chart-view-private.h"
#include "plx-compare-chart.h"
#include "plx-engine.h"
#include "plx-format.h"
#include "plx-memory-chart.h"
#include "plx-render-export.h"
#include "plx-render-text.h"
#include "plx-timeline-band.h"

enum { SIGNAL_CHANGED, SIGNAL_DETAILS_CHANGED, N_SIGNALS };

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (PlxChartView, plx_chart_view, GTK_TYPE_DRAWING_AREA)

G_DEFINE_ENUM_TYPE (PlxChartKind, plx_chart_kind,
                    G_DEFINE_ENUM_VALUE (PLX_CHART_TIMELINE, "timeline"),
                    G_DEFINE_ENUM_VALUE (PLX_CHART_MEMORY, "memory"),
                    G_DEFINE_ENUM_VALUE (PLX_CHART_COMPARE, "compare"))

enum { PROP_0, PROP_KIND, N_PROPS };

void
plx_chart_view_emit_details_changed (PlxChartView *self)
{
  g_signal_emit (self, signals[SIGNAL_DETAILS_CHANGED], 0);
}

static void
invalidate (PlxChartView *self)
{
  g_clear_pointer (&self->layout, plx_timeline_layout_free);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

double
plx_chart_view_step_time (PlxChartView *self)
{
  return self->result != NULL && self->result->timeline != NULL ? self->result->timeline->step_time_s : 1.0;
}

void
plx_chart_view_effective_window (PlxChartView *self, double *t0, double *t1)
{
  if (self->t1 > self->t0)
    {
      *t0 = self->t0;
      *t1 = self->t1;
    }
  else
    {
      *t0 = 0.0;
      *t1 = plx_chart_view_step_time (self);
      /* The whole step reaches to the sampled band's end, so all of it shows. */
      if (self->result != NULL && self->result->sampled && self->kind == PLX_CHART_TIMELINE)
        *t1 = MAX (*t1, self->result->uncertainty.step_p95_s);
    }
}

PlxTimelineLayout *
plx_chart_view_build_layout (PlxChartView *self, double width, double height)
{
  PlxTimelineOptions o;
  PlxTimelineLayout *l;

  plx_timeline_options_init (&o, width, height);
  if (self->export_title != NULL)
    o.title = self->export_title;
  plx_chart_view_effective_window (self, &o.t0_s, &o.t1_s);
  /* The window's worker may have built this one already (plx-engine.c). */
  if (self->export_title == NULL &&
      (l = plx_result_take_layout (self->result, width, height, o.t0_s, o.t1_s)) != NULL)
    return l;
  return plx_timeline_layout_new (self->result->timeline, &o);
}

/* The layout of the widget as it is (drawn or about to be), for keys and hit tests
 * that come before the first frame. */
const PlxTimelineLayout *
plx_chart_view_ensure_layout (PlxChartView *self)
{
  int w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));

  if (self->layout == NULL && self->kind == PLX_CHART_TIMELINE && self->result != NULL && w > 0 && h > 0)
    self->layout = plx_chart_view_build_layout (self, w, h);
  return self->layout;
}

/* ---- the object ------------------------------------------------------------------ */

static void
plx_chart_view_dispose (GObject *object)
{
  PlxChartView *self = PLX_CHART_VIEW (object);

  g_clear_pointer (&self->result, plx_result_unref);
  g_clear_pointer (&self->pinned, plx_result_unref);
  g_clear_pointer (&self->layout, plx_timeline_layout_free);
  g_clear_pointer (&self->error, g_free);
  g_clear_pointer (&self->range_busy, g_free);
  g_clear_pointer (&self->details, g_free);
  G_OBJECT_CLASS (plx_chart_view_parent_class)->dispose (object);
}

static void
plx_chart_view_set_property (GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
  PlxChartView *self = PLX_CHART_VIEW (object);

  if (id == PROP_KIND)
    self->kind = g_value_get_enum (value);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
}

static void
plx_chart_view_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  PlxChartView *self = PLX_CHART_VIEW (object);

  if (id == PROP_KIND)
    g_value_set_enum (value, self->kind);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, id, pspec);
}

static void
plx_chart_view_constructed (GObject *object)
{
  PlxChartView *self = PLX_CHART_VIEW (object);

  G_OBJECT_CLASS (plx_chart_view_parent_class)->constructed (object);
  if (self->kind == PLX_CHART_TIMELINE)
    {
      /* The timeline is worked with the keyboard too: it takes focus. */
      gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
      plx_chart_view_add_timeline_controllers (self);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Timeline"), -1);
    }
  plx_chart_view_update_details (self);
}

static void
plx_chart_view_class_init (PlxChartViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = plx_chart_view_dispose;
  object_class->set_property = plx_chart_view_set_property;
  object_class->get_property = plx_chart_view_get_property;
  object_class->constructed = plx_chart_view_constructed;
  g_object_class_install_property (object_class, PROP_KIND,
                                   g_param_spec_enum ("kind", NULL, NULL, PLX_TYPE_CHART_KIND, PLX_CHART_TIMELINE,
                                                      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                          NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_DETAILS_CHANGED] = g_signal_new ("details-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
plx_chart_view_init (PlxChartView *self)
{
  self->selected = -1;
  self->export_dark = -1;
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self), plx_chart_view_draw_func, NULL, NULL);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (plx_chart_view_on_query_tooltip), self);
  plx_chart_view_add_pointer_controllers (self);
}

GtkWidget *
plx_chart_view_new (PlxChartKind kind)
{
  return g_object_new (PLX_TYPE_CHART_VIEW, "kind", kind, NULL);
}

void
plx_chart_view_set_result (PlxChartView *self,
                           PlxResult    *result)
{
  if (result != NULL)
    plx_result_ref (result);
  g_clear_pointer (&self->result, plx_result_unref);
  self->result = result;
  /* A new step: keep the zoom only if it still fits. */
  if (self->t1 > plx_chart_view_step_time (self))
    self->t0 = self->t1 = 0.0;
  /* Event numbers are the old timeline's; a range is kept while it fits the step. */
  self->selected = -1;
  if (self->have_range && MAX (self->range_t0, self->range_t1) > plx_chart_view_step_time (self))
    self->have_range = FALSE;
  invalidate (self);
  plx_chart_view_update_details (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
plx_chart_view_set_error (PlxChartView *self,
                          const char   *message)
{
  if (g_strcmp0 (self->error, message) == 0)
    return;
  g_free (self->error);
  self->error = g_strdup (message);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

const char *
plx_chart_view_get_error (PlxChartView *self)
{
  return self->error;
}

void
plx_chart_view_set_pinned (PlxChartView *self,
                           PlxResult    *pinned)
{
  if (pinned != NULL)
    plx_result_ref (pinned);
  g_clear_pointer (&self->pinned, plx_result_unref);
  self->pinned = pinned;
  invalidate (self);
}

void
plx_chart_view_set_dark (PlxChartView *self,
                         gboolean      dark)
{
  self->dark = dark;
  invalidate (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
plx_chart_view_set_window (PlxChartView *self,
                           double        t0_s,
                           double        t1_s)
{
  self->t0 = t0_s;
  self->t1 = t1_s;
  invalidate (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
plx_chart_view_get_window (PlxChartView *self,
                           double       *t0_s,
                           double       *t1_s)
{
  plx_chart_view_effective_window (self, t0_s, t1_s);
}

gboolean
plx_chart_view_shows_whole_step (PlxChartView *self)
{
  return self->t1 <= self->t0;
}

PlxResult *
plx_chart_view_get_result (PlxChartView *self)
{
  return self->result;
}

gboolean
plx_chart_view_get_dark (PlxChartView *self)
{
  return self->dark;
}

void
plx_chart_view_zoom_in (PlxChartView *self)
{
  plx_chart_view_zoom_step (self, TRUE, 0.5);
}

void
plx_chart_view_zoom_out (PlxChartView *self)
{
  plx_chart_view_zoom_step (self, FALSE, 0.5);
}

void
plx_chart_view_reset_zoom (PlxChartView *self)
{
  plx_chart_view_set_window (self, 0.0, 0.0);
}

void
plx_chart_view_center_on (PlxChartView *self,
                          double        t_s)
{
  double t0, t1;

  plx_chart_view_effective_window (self, &t0, &t1);
  plx_chart_view_pan_by (self, t_s - (t0 + t1) / 2);
}

void
plx_chart_view_get_plot_bounds (PlxChartView *self,
                                double       *x0,
                                double       *x1)
{
  const PlxTimelineLayout *l = plx_chart_view_ensure_layout (self);
  double w = gtk_widget_get_width (GTK_WIDGET (self));

  *x0 = l != NULL ? l->plot_x0 * w : 0.0;
  *x1 = l != NULL ? l->plot_x1 * w : w;
}

gint
plx_chart_view_get_selected (PlxChartView *self)
{
  return self->selected;
}

gboolean
plx_chart_view_get_range (PlxChartView *self,
                          double       *t0_s,
                          double       *t1_s)
{
  if (t0_s != NULL)
    *t0_s = MIN (self->range_t0, self->range_t1);
  if (t1_s != NULL)
    *t1_s = MAX (self->range_t0, self->range_t1);
  return self->have_range;
}

const char *
plx_chart_view_get_details (PlxChartView *self)
{
  return self->details;
}

guint
plx_chart_view_get_n_draws (PlxChartView *self)
{
  return self->n_draws;
}

double
plx_chart_view_get_last_draw_ms (PlxChartView *self)
{
  return self->last_draw_ms;
}


