/* The timeline and memory charts of simulate (plx-cli-charts.h), drawn by
 * src/render/plx-step-charts.c as the library's exports are. */
#include "plx-cli-charts.h"
#include "plx-step-charts.h"

static PlxStepCharts
step_charts (const ChartData *d)
{
  return (PlxStepCharts) { d->timeline, d->trace, d->report, d->style, d->title, d->t0, d->t1 };
}

void
draw_timeline (cairo_t *cr, double width, double height, gpointer data)
{
  PlxStepCharts c = step_charts (data);
  plx_step_charts_draw_timeline (cr, width, height, &c);
}

void
draw_memory (cairo_t *cr, double width, double height, gpointer data)
{
  PlxStepCharts c = step_charts (data);
  plx_step_charts_draw_memory (cr, width, height, &c);
}
