/* The timeline and memory charts of simulate (plx-cli-charts.h). */
#include "plx-cli-charts.h"
#include "plx-memory-chart.h"
#include "plx-timeline-chart.h"

void
draw_timeline (cairo_t *cr, double width, double height, gpointer data)
{
  ChartData *d = data;
  PlxTimelineOptions o;
  g_autoptr (PlxTimelineLayout) layout = NULL;

  plx_timeline_options_init (&o, width, height);
  o.title = d->title;
  o.t0_s = d->t0;
  o.t1_s = d->t1;
  layout = plx_timeline_layout_new (d->timeline, &o);
  plx_timeline_chart_render (layout, d->style, cr, width, height);
}

void
draw_memory (cairo_t *cr, double width, double height, gpointer data)
{
  ChartData *d = data;
  PlxMemoryOptions o;
  g_autoptr (PlxMemoryLayout) layout = NULL;

  plx_memory_options_init (&o, width, height);
  o.capacity_bytes = (double) d->report->hbm_bytes;
  o.usable_bytes = (double) d->report->hbm_usable_bytes;
  o.step_time_s = d->report->step_time_s;
  o.title = d->title;
  layout = plx_memory_layout_new (d->trace, &o);
  plx_memory_chart_render (layout, d->style, cr, width, height);
}
