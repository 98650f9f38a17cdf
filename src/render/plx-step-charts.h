/* plx-step-charts.h: the timeline and memory charts of one simulated step, as
 * PlxDrawFunc's for plx_render_export - what `parallax-cli simulate --timeline
 * --memory` and the library's plx_scenario_export_chart draw. */
#pragma once

#include <cairo.h>

#include "parallax/parallax.h"
#include "plx-render-style.h"

G_BEGIN_DECLS

typedef struct
{
  const PlxTimeline    *timeline;
  const PlxMemoryTrace *trace;
  const PlxReport      *report;
  const PlxRenderStyle *style;
  const char           *title;
  double                t0_s, t1_s;  /* the timeline's window; t1 <= t0: the whole step */
} PlxStepCharts;

/* `data` is a PlxStepCharts. */
void plx_step_charts_draw_timeline (cairo_t *cr,
                                    double   width,
                                    double   height,
                                    gpointer data);
void plx_step_charts_draw_memory (cairo_t *cr,
                                  double   width,
                                  double   height,
                                  gpointer data);

G_END_DECLS
