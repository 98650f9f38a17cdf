/* plx-cli-charts.h: the timeline and memory charts simulate draws (--timeline,
 * --memory), for a scenario's step or a program's run. */
#pragma once

#include <cairo.h>

#include "parallax/parallax.h"
#include "plx-compare-chart.h"
#include "plx-render-style.h"

typedef struct
{
  const PlxTimeline    *timeline;
  const PlxMemoryTrace *trace;
  const PlxReport      *report;
  const PlxRenderStyle *style;
  const char           *title;
  const PlxCompareSide *sides;
  double                t0, t1;
} ChartData;

/* PlxDrawFunc's for plx_render_export; `data` is a ChartData. */
void draw_timeline (cairo_t *cr, double width, double height, gpointer data);
void draw_memory (cairo_t *cr, double width, double height, gpointer data);
