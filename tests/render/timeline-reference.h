/* timeline-reference.h: the timeline chart laid out and drawn the plain way, for
 * test-timeline-sizes to hold the chart's shortcuts to, bit for bit: every event read
 * through plx_timeline_iter_next and placed by its own divisions (not passes taken
 * whole, columns found through their edges), every row's sums at once, and the
 * column shares painted as one raster onto an image too (not in strips), their edges
 * by round (). Rendering the layout (plx_timeline_chart_render) paints it so. */
#pragma once

#include "plx-timeline-chart.h"

PlxTimelineLayout *timeline_reference_layout (const PlxTimeline        *timeline,
                                              const PlxTimelineOptions *options);
