/* The charts of one simulated step (plx-step-charts.h). */
#include "plx-step-charts.h"
#include "plx-memory-chart.h"
#include "plx-timeline-chart.h"

void
plx_step_charts_draw_timeline (cairo_t *cr,
                               double   width,
                               double   height,
                               gpointer data)
{
  const PlxStepCharts *c = data;
  PlxTimelineOptions o;
  g_autoptr (PlxTimelineLayout) layout = NULL;

  plx_timeline_options_init (&o, width, height);
  o.title = c->title;
  o.t0_s = c->t0_s;
  o.t1_s = c->t1_s;
  layout = plx_timeline_layout_new (c->timeline, &o);
  plx_timeline_chart_render (layout, c->style, cr, width, height);
}

void
plx_step_charts_draw_memory (cairo_t *cr,
                             double   width,
                             double   height,
                             gpointer data)
{
  const PlxStepCharts *c = data;
  PlxMemoryOptions o;
  g_autoptr (PlxMemoryLayout) layout = NULL;

  plx_memory_options_init (&o, width, height);
  o.capacity_bytes = (double) c->report->hbm_bytes;
  o.usable_bytes = (double) c->report->hbm_usable_bytes;
  o.step_time_s = c->report->step_time_s;
  o.title = c->title;
  layout = plx_memory_layout_new (c->trace, &o);
  plx_memory_chart_render (layout, c->style, cr, width, height);
}
