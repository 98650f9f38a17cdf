/* The timeline page. The overview is a miniature of the whole step drawn from the
 * timeline directly: each stage's compute stream as one band, each pixel column
 * coloured by the kinds it runs, mixed in proportion to their share of the column's
 * time over the background, so the pipeline's shape and its bubble read at a glance.
 * It is computed once per result and size, and the visible window is drawn over it. */
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "plx-format.h"
#include "plx-render-style.h"
#include "plx-render-text.h"
#include "plx-timeline-pane.h"
#include "plx-tooltip.h"

#define OVERVIEW_HEIGHT_PX 40

struct _PlxTimelinePane
{
  GtkBox           parent_instance;
  PlxChartView    *chart;
  GtkWidget       *overview;
  GtkWidget       *zoom_in, *zoom_out, *reset;
  GtkLabel        *window_label;
  GtkLabel        *details[2];
  /* The miniature, and what it was drawn for. */
  cairo_surface_t *mini;
  PlxResult       *mini_result;    /* not a reference: compared, never read */
  int              mini_w, mini_h;
  gboolean         mini_dark;
  double           drag_x;
};

G_DEFINE_FINAL_TYPE (PlxTimelinePane, plx_timeline_pane, GTK_TYPE_BOX)

static double
step_time (PlxTimelinePane *self)
{
  PlxResult *r = plx_chart_view_get_result (self->chart);

  return r != NULL && r->timeline != NULL ? r->timeline->step_time_s : 0.0;
}

void
plx_timeline_pane_get_overview_bounds (PlxTimelinePane *self,
                                       double          *x0,
                                       double          *x1)
{
  /* Under the chart's time axis, so the whole-step window spans both alike. */
  graphene_point_t a, b;
  double cx0, cx1, w = gtk_widget_get_width (self->overview);

  plx_chart_view_get_plot_bounds (self->chart, &cx0, &cx1);
  if (cx1 > cx0 && gtk_widget_compute_point (GTK_WIDGET (self->chart), self->overview,
                                             &GRAPHENE_POINT_INIT ((float) cx0, 0), &a) &&
      gtk_widget_compute_point (GTK_WIDGET (self->chart), self->overview, &GRAPHENE_POINT_INIT ((float) cx1, 0), &b) &&
      a.x >= 0 && b.x <= w && b.x > a.x)
    {
      *x0 = a.x;
      *x1 = b.x;
      return;
    }
  *x0 = 0.0;
  *x1 = MAX (w, 1.0);
}

/* Adds a compute event's time to the busy time of each column it overlaps. */
static inline void
add_busy (double *busy, int pw, guint band, guint kind, double start_s, double end_s, double col_s)
{
  int c0 = CLAMP ((int) floor (start_s / col_s), 0, pw - 1);
  int c1 = CLAMP ((int) floor (end_s / col_s), 0, pw - 1);

  for (int c = c0; c <= c1; c++)
    {
      double o = MIN (end_s, (c + 1) * col_s) - MAX (start_s, c * col_s);
      if (o > 0)
        busy[((gsize) band * pw + c) * PLX_N_KINDS + kind] += o;
    }
}

/* The band a rank is drawn in, when it is the band's first (the one that stands for
 * it); FALSE for the others. */
static inline gboolean
rank_band (guint64 rank, guint64 n_ranks, guint bands, guint *band)
{
  *band = (guint) (rank * bands / n_ranks);
  return rank < n_ranks && (guint64) *band * n_ranks / bands == rank;
}

/* Per stage band and pixel column, each kind's busy time on the compute stream;
 * then one pixel each, the kinds' colours mixed by their shares over the background.
 * A pass of the event engine is read whole (plx_timeline_iter_peek_pass): its tasks
 * get the times plx_timeline_iter_next would give them, by the same additions in the
 * same order, without each being made an event first (most of the events are such
 * tasks; making each cost a third of the miniature). */
static cairo_surface_t *
draw_miniature (const PlxTimeline *tl, const PlxRenderStyle *style, int pw, int ph)
{
  PlxTimelineIter ev_iter;
  PlxTimelineEvent ev_buf;
  PlxTimelinePass pass;
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, pw, ph);
  guint32 *pixels = (guint32 *) cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface) / 4;
  guint n_ranks = MAX (tl->n_ranks, 1), bands = MIN (n_ranks, (guint) ph);
  double col_s = tl->step_time_s / pw;
  g_autofree double *busy = g_new0 (double, (gsize) bands * pw * PLX_N_KINDS);
  g_autofree guint32 *colour = g_new (guint32, (gsize) bands * pw);
  guint32 background = ((guint32) round (style->background.r * 255) << 16) |
                       ((guint32) round (style->background.g * 255) << 8) | (guint32) round (style->background.b * 255);

  /* More stages than pixel rows: the first stage of each band stands for it, as the
   * chart samples every n-th stage. */
  for (plx_timeline_iter_init (&ev_iter, tl); col_s > 0;)
    {
      const PlxTimelineEvent *ev = &ev_buf;
      guint band;

      if (plx_timeline_iter_peek_pass (&ev_iter, &pass))
        {
          if (rank_band (pass.rank, n_ranks, bands, &band))
            {
              double t = pass.start_s;
              for (guint j = 0; j < pass.n_tasks; j++)
                {
                  const PlxPlanTask *task = &pass.tasks[j];
                  if (task->stream == PLX_STREAM_COMPUTE)
                    add_busy (busy, pw, band, task->kind, t, t + task->duration_s, col_s);
                  t += task->duration_s;
                }
            }
          plx_timeline_iter_skip_pass (&ev_iter, &pass);
          continue;
        }
      if (!plx_timeline_iter_next (&ev_iter, &ev_buf))
        break;
      if (ev->stream != PLX_STREAM_COMPUTE || !rank_band (ev->rank, n_ranks, bands, &band))
        continue;
      add_busy (busy, pw, band, ev->kind, ev->start_s, ev->end_s, col_s);
    }
  /* One colour per band and column, then copied to the band's pixel rows. */
  for (guint band = 0; band < bands; band++)
    for (int x = 0; x < pw; x++)
      {
        const double *b = &busy[((gsize) band * pw + x) * PLX_N_KINDS];
        double total = 0.0, r = 0.0, g = 0.0, bl = 0.0;
        for (guint k = 0; k < PLX_N_KINDS; k++)
          total += b[k];
        for (guint k = 0; k < PLX_N_KINDS; k++)
          {
            double share = total > col_s ? b[k] / total : b[k] / col_s;
            r += share * style->kind[k].r;
            g += share * style->kind[k].g;
            bl += share * style->kind[k].b;
          }
        total = MIN (total / col_s, 1.0);
        r += (1.0 - total) * style->background.r;
        g += (1.0 - total) * style->background.g;
        bl += (1.0 - total) * style->background.b;
        colour[(gsize) band * pw + x] = ((guint32) round (CLAMP (r, 0, 1) * 255) << 16) |
                                        ((guint32) round (CLAMP (g, 0, 1) * 255) << 8) |
                                        (guint32) round (CLAMP (bl, 0, 1) * 255);
      }
  for (int y = 0; y < ph; y++)
    {
      guint band = (guint) ((guint64) y * bands / ph);
      /* A gap between bands when they are tall enough to afford one. */
      gboolean gap = ph / (int) bands >= 4 && (guint64) (y + 1) * bands / ph != band;
      if (!gap)
        memcpy (&pixels[(gsize) y * stride], &colour[(gsize) band * pw], sizeof (guint32) * pw);
      else
        for (int x = 0; x < pw; x++)
          pixels[(gsize) y * stride + x] = background;
    }
  cairo_surface_mark_dirty (surface);
  return surface;
}

static void
overview_draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  PlxTimelinePane *self = data;
  PlxResult *r = plx_chart_view_get_result (self->chart);
  gboolean dark = plx_chart_view_get_dark (self->chart);
  PlxRenderStyle style;
  double x0, x1, t0, t1, step = step_time (self), wx0, wx1, y0 = 2.0, y1 = height - 2.0;
  int pw, ph;
  GdkRGBA accent = { 0.21, 0.52, 0.89, 1.0 };

  plx_render_style_init (&style, dark, 1.0);
  plx_render_set_color (cr, style.background);
  cairo_paint (cr);
  if (r == NULL || step <= 0.0)
    return;
  plx_timeline_pane_get_overview_bounds (self, &x0, &x1);
  pw = MAX ((int) round (x1 - x0), 1);
  ph = MAX ((int) (y1 - y0), 1);
  if (self->mini == NULL || self->mini_result != r || self->mini_w != pw || self->mini_h != ph ||
      self->mini_dark != dark)
    {
      g_clear_pointer (&self->mini, cairo_surface_destroy);
      self->mini = draw_miniature (r->timeline, &style, pw, ph);
      self->mini_result = r;
      self->mini_w = pw;
      self->mini_h = ph;
      self->mini_dark = dark;
    }
  cairo_set_source_surface (cr, self->mini, round (x0), y0);
  cairo_paint (cr);
  if (x0 > 60)
    plx_render_text (cr, &style, _("whole step"), x0 - 8, height / 2.0, 11.0, style.muted, 1.0, 0.5,
                     PLX_TEXT_NORMAL);

  /* The visible window: the rest washed out, the window outlined. */
  plx_chart_view_get_window (self->chart, &t0, &t1);
  wx0 = x0 + t0 / step * (x1 - x0);
  wx1 = x0 + t1 / step * (x1 - x0);
  if (wx1 - wx0 < 3.0)
    {
      double c = (wx0 + wx1) / 2;
      wx0 = c - 1.5;
      wx1 = c + 1.5;
    }
  cairo_set_source_rgba (cr, style.background.r, style.background.g, style.background.b, 0.65);
  cairo_rectangle (cr, x0, y0, MAX (wx0 - x0, 0), y1 - y0);
  cairo_rectangle (cr, wx1, y0, MAX (x1 - wx1, 0), y1 - y0);
  cairo_fill (cr);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_lookup_color (gtk_widget_get_style_context (GTK_WIDGET (area)), "accent_color", &accent);
  G_GNUC_END_IGNORE_DEPRECATIONS
  gdk_cairo_set_source_rgba (cr, &accent);
  cairo_set_line_width (cr, 2.0);
  cairo_rectangle (cr, wx0, y0, wx1 - wx0, y1 - y0);
  cairo_stroke (cr);
  /* An invalid strategy greys the chart; the overview follows. */
  if (plx_chart_view_get_error (self->chart) != NULL)
    {
      cairo_set_source_rgba (cr, style.background.r, style.background.g, style.background.b, 0.78);
      cairo_paint (cr);
    }
}

/* A press or drag on the overview centres the window on the time under it. */
static void
overview_center (PlxTimelinePane *self, double x)
{
  double x0, x1;

  plx_timeline_pane_get_overview_bounds (self, &x0, &x1);
  plx_chart_view_center_on (self->chart, CLAMP ((x - x0) / (x1 - x0), 0.0, 1.0) * step_time (self));
}

static void
on_overview_drag_begin (GtkGestureDrag *gesture, double x, double y, PlxTimelinePane *self)
{
  self->drag_x = x;
  overview_center (self, x);
}

static void
on_overview_drag_update (GtkGestureDrag *gesture, double dx, double dy, PlxTimelinePane *self)
{
  overview_center (self, self->drag_x + dx);
}

static void
on_chart_changed (PlxChartView *chart, PlxTimelinePane *self)
{
  double t0, t1, step = step_time (self);

  if (plx_chart_view_get_result (chart) == NULL || step <= 0.0)
    gtk_label_set_text (self->window_label, "");
  else
    {
      g_autofree char *range = NULL, *span = NULL, *text = NULL;
      const PlxResult *r = plx_chart_view_get_result (chart);

      plx_chart_view_get_window (chart, &t0, &t1);
      range = plx_format_time_range (t0, t1);
      span = plx_format_time_short (t1 - t0);
      if (r->timeline != NULL && r->timeline->dropped > 0)
        {
          /* PLX_TIMELINE_MAX_EVENTS: the bars end there, the figures do not. */
          g_autofree char *until = plx_format_time_short (r->timeline->recorded_until_s);
          text = g_strdup_printf (_("%s, %s shown; too many events: bars recorded up to %s only"), range, span, until);
        }
      else
        text = g_strdup_printf (_("%s, %s shown"), range, span);
      gtk_label_set_text (self->window_label, text);
      /* What a press would not change is greyed out. */
      gtk_widget_set_sensitive (self->zoom_in, t1 - t0 > step * 1e-6 * 1.001);
      gtk_widget_set_sensitive (self->zoom_out, t1 - t0 < step * (1.0 - 1e-9));
      gtk_widget_set_sensitive (self->reset, t1 - t0 < step * (1.0 - 1e-9));
    }
  gtk_widget_queue_draw (self->overview);
}

static void
on_details_changed (PlxChartView *chart, PlxTimelinePane *self)
{
  g_auto (GStrv) lines = g_strsplit (plx_chart_view_get_details (chart), "\n", 2);

  for (guint i = 0; i < 2; i++)
    {
      const char *line = lines[0] != NULL && (i == 0 || lines[1] != NULL) ? lines[i] : "";
      gtk_label_set_markup (self->details[i], line);
      /* The whole line when it is cut short. */
      plx_tooltip_set (GTK_WIDGET (self->details[i]), line, TRUE);
    }
}

static GtkWidget *
icon_button (const char *icon, const char *tooltip, GCallback clicked, gpointer chart)
{
  GtkWidget *b = gtk_button_new_from_icon_name (icon);

  gtk_widget_set_tooltip_text (b, tooltip);
  gtk_widget_add_css_class (b, "flat");
  g_signal_connect_swapped (b, "clicked", clicked, chart);
  return b;
}

static void
plx_timeline_pane_dispose (GObject *object)
{
  PlxTimelinePane *self = PLX_TIMELINE_PANE (object);

  g_clear_pointer (&self->mini, cairo_surface_destroy);
  G_OBJECT_CLASS (plx_timeline_pane_parent_class)->dispose (object);
}

static void
plx_timeline_pane_class_init (PlxTimelinePaneClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = plx_timeline_pane_dispose;
}

static void
plx_timeline_pane_init (PlxTimelinePane *self)
{
  GtkWidget *toolbar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 2);
  GtkWidget *details = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkGesture *drag = gtk_gesture_drag_new ();

  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  self->chart = PLX_CHART_VIEW (plx_chart_view_new (PLX_CHART_TIMELINE));

  gtk_widget_set_margin_start (toolbar, 6);
  gtk_widget_set_margin_end (toolbar, 12);
  gtk_widget_set_margin_top (toolbar, 4);
  gtk_widget_set_margin_bottom (toolbar, 2);
  self->zoom_out = icon_button ("zoom-out-symbolic", _("Zoom out (S or -)"), G_CALLBACK (plx_chart_view_zoom_out),
                                self->chart);
  self->zoom_in = icon_button ("zoom-in-symbolic", _("Zoom in (W or +)"), G_CALLBACK (plx_chart_view_zoom_in),
                               self->chart);
  self->reset = icon_button ("zoom-fit-best-symbolic", _("Show the whole step (0 or Home)"),
                             G_CALLBACK (plx_chart_view_reset_zoom), self->chart);
  self->window_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (self->window_label), "numeric");
  gtk_widget_set_margin_start (GTK_WIDGET (self->window_label), 8);
  gtk_label_set_xalign (self->window_label, 0.0);
  gtk_widget_set_hexpand (GTK_WIDGET (self->window_label), TRUE);
  gtk_box_append (GTK_BOX (toolbar), self->zoom_out);
  gtk_box_append (GTK_BOX (toolbar), self->zoom_in);
  gtk_box_append (GTK_BOX (toolbar), self->reset);
  gtk_box_append (GTK_BOX (toolbar), GTK_WIDGET (self->window_label));

  self->overview = gtk_drawing_area_new ();
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->overview), OVERVIEW_HEIGHT_PX);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->overview), overview_draw, self, NULL);
  gtk_widget_set_hexpand (self->overview, TRUE);
  gtk_widget_set_tooltip_text (self->overview, _("The whole step: click or drag to move the visible window"));
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_overview_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_overview_drag_update), self);
  gtk_widget_add_controller (self->overview, GTK_EVENT_CONTROLLER (drag));

  gtk_widget_set_margin_start (details, 12);
  gtk_widget_set_margin_end (details, 12);
  gtk_widget_set_margin_top (details, 6);
  gtk_widget_set_margin_bottom (details, 8);
  for (guint i = 0; i < 2; i++)
    {
      self->details[i] = GTK_LABEL (gtk_label_new (NULL));
      gtk_label_set_xalign (self->details[i], 0.0);
      gtk_label_set_ellipsize (self->details[i], PANGO_ELLIPSIZE_END);
      gtk_label_set_single_line_mode (self->details[i], TRUE);
      gtk_widget_add_css_class (GTK_WIDGET (self->details[i]), "numeric");
      gtk_box_append (GTK_BOX (details), GTK_WIDGET (self->details[i]));
    }

  gtk_box_append (GTK_BOX (self), toolbar);
  gtk_box_append (GTK_BOX (self), self->overview);
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->chart));
  gtk_box_append (GTK_BOX (self), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
  gtk_box_append (GTK_BOX (self), details);

  g_signal_connect (self->chart, "changed", G_CALLBACK (on_chart_changed), self);
  g_signal_connect (self->chart, "details-changed", G_CALLBACK (on_details_changed), self);
  on_chart_changed (self->chart, self);
  on_details_changed (self->chart, self);
}

GtkWidget *
plx_timeline_pane_new (void)
{
  return g_object_new (PLX_TYPE_TIMELINE_PANE, NULL);
}

PlxChartView *
plx_timeline_pane_get_chart (PlxTimelinePane *self)
{
  return self->chart;
}

GtkWidget *
plx_timeline_pane_get_overview (PlxTimelinePane *self)
{
  return self->overview;
}

const char *
plx_timeline_pane_get_window_text (PlxTimelinePane *self)
{
  return gtk_label_get_text (self->window_label);
}
