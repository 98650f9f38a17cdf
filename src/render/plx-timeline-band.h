/* plx-timeline-band.h: the sampled range of the step's end (p5 to p95 of the step
 * time over draws of uncertain cluster inputs) over a timeline chart. */
#pragma once

#include "plx-timeline-chart.h"

G_BEGIN_DECLS

/* Where the band falls, 0..1 of the chart's width, clipped to the plot; FALSE when
 * none of it is in the layout's time window (or the ends are not finite). */
gboolean plx_timeline_band_extent (const PlxTimelineLayout *layout,
                                   double                   lo_s,
                                   double                   hi_s,
                                   double                  *x0,
                                   double                  *x1);
/* Draws it over an already rendered chart: a translucent range across the plot's
 * height, its ends marked, "p5 – p95" above it. */
void     plx_timeline_band_render (const PlxTimelineLayout *layout,
                                   const PlxRenderStyle    *style,
                                   cairo_t                 *cr,
                                   double                   width,
                                   double                   height,
                                   double                   lo_s,
                                   double                   hi_s);

G_END_DECLS
