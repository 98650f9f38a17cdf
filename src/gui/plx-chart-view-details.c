/* What the chart view says in words (plx-chart-view-private.h): the tooltip of the
 * event or column under the pointer, and the details line of the selection and the
 * measured range, so they are reachable without a pointer. */
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

/* ---- what the tooltip and the details line say -------------------------------- */

/* Whether the timeline's ranks are a program's GPUs rather than pipeline stages. */
static gboolean
per_device (PlxChartView *self)
{
  return self->result != NULL && self->result->timeline != NULL && self->result->timeline->per_device;
}

/* An event in four parts: what, where, when, how much work. */
static char *
describe_event (const PlxTimelineEvent *ev, gboolean per_device, const char *separator)
{
  g_autofree char *label = g_markup_escape_text (ev->label != NULL ? ev->label : "", -1);
  g_autofree char *start = plx_format_time (ev->start_s);
  g_autofree char *dur = plx_format_time (ev->end_s - ev->start_s);
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "<b>%s</b>: %s%s", plx_task_kind_display_name (ev->kind), label, separator);
  g_string_append_printf (text, per_device ? _("GPU %u, %s stream") : _("Stage %u, %s stream"), ev->rank,
                          plx_stream_to_string (ev->stream));
  if (ev->micro_batch != PLX_NO_MICRO_BATCH)
    g_string_append_printf (text, _(", micro-batch %u"), ev->micro_batch);
  g_string_append (text, separator);
  g_string_append_printf (text, _("Starts at %s, takes %s"), start, dur);
  if (ev->flops > 0 || ev->bytes > 0)
    {
      g_autofree char *flops = plx_format_flops (ev->flops);
      g_autofree char *bytes = plx_format_bytes (ev->bytes);
      g_string_append (text, separator);
      if (ev->flops > 0 && ev->bytes > 0)
        g_string_append_printf (text, "%s, %s", flops, bytes);
      else
        g_string_append (text, ev->flops > 0 ? flops : bytes);
    }
  return g_string_free (text, FALSE);
}

/* The bar under (x, y) (0..1 of the chart). As plx_timeline_layout_hit, a thin bar
 * is found a pixel and a half beside it, but only where no bar is under the pointer
 * itself: in a dense stretch the neighbouring column would otherwise answer. */
gboolean
plx_chart_view_bar_at (const PlxTimelineLayout *l, double x, double y, PlxChartBar *bar)
{
  for (guint pass = 0; pass < 2; pass++)
    {
      double slop = pass == 0 ? 0.0 : 1.5 / l->width_px;
      /* The column shares lie over the bars, as they are drawn after them. */
      for (guint i = l->shares->len; i-- > 0;)
        {
          plx_timeline_layout_share_bar (l, i, bar);
          if (y >= bar->y0 && y <= bar->y1 && x >= bar->x0 - slop && x < bar->x1 + slop)
            return TRUE;
        }
      for (guint i = l->bars->len; i-- > 0;)
        {
          const PlxChartBar *b = &g_array_index (l->bars, PlxChartBar, i);
          if (y >= b->y0 && y <= b->y1 && x >= b->x0 - slop && x < b->x1 + slop)
            {
              *bar = *b;
              return TRUE;
            }
        }
    }
  return FALSE;
}

/* A pixel column of events narrower than a pixel: how busy it is. The bar's height is
 * that share averaged with the columns beside it (plx-timeline-chart.c, against
 * aliasing); the tooltip gives the column's own, from the events themselves. */
static char *
describe_column (const PlxTimeline *tl, const PlxTimelineLayout *l, const PlxChartBar *bar)
{
  PlxTimelineIter ev_iter;
  PlxTimelineEvent ev_buf;
  gint ri = plx_chart_view_row_at_y (l, (bar->y0 + bar->y1) / 2);
  double busy = 0.0, col_t0, col_t1, span = l->t1_s - l->t0_s, plot = l->plot_x1 - l->plot_x0;
  g_autofree char *from = NULL, *width = NULL;
  GString *text = g_string_new (NULL);

  col_t0 = l->t0_s + (bar->x0 - l->plot_x0) / plot * span;
  col_t1 = l->t0_s + (bar->x1 - l->plot_x0) / plot * span;
  if (ri >= 0)
    {
      const PlxChartRow *row = &g_array_index (l->rows, PlxChartRow, ri);
      for (plx_timeline_iter_init (&ev_iter, tl); plx_timeline_iter_next (&ev_iter, &ev_buf);)
        {
          const PlxTimelineEvent *ev = &ev_buf;
          double o = MIN (ev->end_s, col_t1) - MAX (ev->start_s, col_t0);
          /* A merged row (stream -1) holds every communication stream. */
          if (o > 0.0 && ev->rank == row->rank &&
              (row->stream >= 0 ? ev->stream == (guint8) row->stream : ev->stream != PLX_STREAM_COMPUTE))
            busy += o;
        }
      busy = MIN (busy / (col_t1 - col_t0), 1.0);
    }
  from = plx_format_time (MAX (col_t0, 0.0));
  width = plx_format_time_short (col_t1 - col_t0);
  g_string_append_printf (text,
                          g_dngettext (GETTEXT_PACKAGE, "<b>%u event</b> in this pixel column (%s from %s)",
                                       "<b>%u events</b> in this pixel column (%s from %s)", bar->n_events),
                          bar->n_events, width, from);
  g_string_append_c (text, '\n');
  g_string_append_printf (text, _("Too dense to draw one by one: the bar's height is the share of the time "
                                  "the stream is busy, averaged with the two columns on each side; in this "
                                  "column alone %.0f %%."),
                          100.0 * busy);
  return g_string_free (text, FALSE);
}

char *
plx_chart_view_describe_at (PlxChartView *self,
                            double        x,
                            double        y)
{
  double w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));
  const PlxTimelineLayout *l;
  PlxChartBar bar_buf;
  const PlxChartBar *bar = &bar_buf;
  PlxTimelineEvent bar_event;
  g_autofree char *event = NULL;

  if (self->kind != PLX_CHART_TIMELINE || self->result == NULL || w <= 0 || h <= 0)
    return NULL;
  l = plx_chart_view_ensure_layout (self);
  if (l == NULL)
    return NULL;
  if (!plx_chart_view_bar_at (l, x / w, y / h, &bar_buf) || plx_chart_view_event_at (self, (gint) bar->event, &bar_event) == NULL)
    return NULL;
  event = describe_event (&bar_event, per_device (self), "\n");
  if (bar->aggregate)
    {
      g_autofree char *column = describe_column (self->result->timeline, l, bar);
      return g_strdup_printf ("%s\n\n%s\n%s", column, _("The first of them:"), event);
    }
  return g_steal_pointer (&event);
}

gboolean
plx_chart_view_on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip, PlxChartView *self)
{
  g_autofree char *text = NULL;
  PlxTimelineEvent selected;

  /* Asked for from the keyboard, the tooltip tells the selected event. */
  if (keyboard && plx_chart_view_event_at (self, self->selected, &selected) != NULL)
    text = describe_event (&selected, per_device (self), "\n");
  else
    text = plx_chart_view_describe_at (self, x, y);
  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_markup (tooltip, text);
  return TRUE;
}

/* Each stage's compute stream: the share of [a, b] it is busy. Events of one stream
 * do not overlap, so their overlaps with the range add up. */
static void
compute_range_busy (PlxChartView *self)
{
  PlxTimelineIter ev_iter;
  PlxTimelineEvent ev_buf;
  const PlxTimeline *tl = self->result->timeline;
  double a = MIN (self->range_t0, self->range_t1), b = MAX (self->range_t0, self->range_t1);

  g_clear_pointer (&self->range_busy, g_free);
  self->range_n = tl->n_ranks;
  self->range_busy = g_new0 (double, MAX (tl->n_ranks, 1));
  for (plx_timeline_iter_init (&ev_iter, tl); plx_timeline_iter_next (&ev_iter, &ev_buf);)
    {
      const PlxTimelineEvent *ev = &ev_buf;
      double o = MIN (ev->end_s, b) - MAX (ev->start_s, a);
      if (ev->stream == PLX_STREAM_COMPUTE && ev->rank < tl->n_ranks && o > 0.0)
        self->range_busy[ev->rank] += o;
    }
  for (guint r = 0; r < tl->n_ranks; r++)
    self->range_busy[r] = b > a ? MIN (self->range_busy[r] / (b - a), 1.0) : 0.0;
}

static char *
describe_range (PlxChartView *self)
{
  double a = MIN (self->range_t0, self->range_t1), b = MAX (self->range_t0, self->range_t1);
  g_autofree char *range = plx_format_time_range (a, b);
  g_autofree char *dur = plx_format_time_short (b - a);
  GString *text = g_string_new (NULL);
  guint n = self->range_n;

  g_string_append_printf (text, _("Range %s: <b>%s</b>"), range, dur);
  if (n == 0)
    return g_string_free (text, FALSE);
  g_string_append (text, "  ·  ");
  if (n <= 8)
    {
      g_string_append (text, _("compute busy:"));
      for (guint r = 0; r < n; r++)
        {
          g_string_append (text, r == 0 ? " " : ", ");
          g_string_append_printf (text, per_device (self) ? _("GPU %u %.0f %%") : _("stage %u %.0f %%"), r,
                                  100.0 * self->range_busy[r]);
        }
    }
  else
    {
      double lo = 1.0, hi = 0.0, sum = 0.0;
      for (guint r = 0; r < n; r++)
        {
          lo = MIN (lo, self->range_busy[r]);
          hi = MAX (hi, self->range_busy[r]);
          sum += self->range_busy[r];
        }
      g_string_append_printf (text, _("compute busy %.0f–%.0f %% (mean %.0f %%) over %u stages"), 100.0 * lo,
                              100.0 * hi, 100.0 * sum / n, n);
    }
  return g_string_free (text, FALSE);
}

/* Two lines, always, so the chart above does not jump when they change: the selected
 * event and the measured range, or how to get them. */
void
plx_chart_view_update_details (PlxChartView *self)
{
  PlxTimelineEvent ev_event;
  const PlxTimelineEvent *ev = plx_chart_view_event_at (self, self->selected, &ev_event);
  g_autofree char *line1 = NULL, *line2 = NULL;
  char *details;

  if (self->have_range && self->result != NULL)
    compute_range_busy (self);
  line1 = ev != NULL ? describe_event (ev, per_device (self), "  ·  ")
                     : g_markup_escape_text (_("No event selected: click one, or step through the marked row "
                                               "with ] and [ (Up and Down change the row)."),
                                             -1);
  line2 = self->have_range && self->result != NULL
            ? describe_range (self)
            : g_markup_escape_text (_("Shift+drag across the chart to measure a time range; Escape clears it."), -1);
  details = g_strconcat (line1, "\n", line2, NULL);
  if (g_strcmp0 (details, self->details) == 0)
    {
      g_free (details);
      return;
    }
  g_free (self->details);
  self->details = details;
  plx_chart_view_emit_details_changed (self);
}
