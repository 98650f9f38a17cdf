/* plx-calibration-chart.h: one fitted curve of a calibration (plx-measurement.h) -
 * the measured points as markers, the calibrated curve over them, the base cluster's
 * curve dashed - on a log size axis (bytes or FLOPs) against link bandwidth or
 * efficiency. Pure cairo: the GUI's Calibration page draws it, an export writes it. */
#pragma once

#include <cairo.h>

#include "calibrate/plx-measurement.h"
#include "plx-render-style.h"

G_BEGIN_DECLS

/* Where things go, in pixels of the width and height it was made for. */
typedef struct
{
  gboolean empty;              /* no finite point or curve: the empty state is drawn */
  double   plot_x0, plot_x1;   /* the plot's left and right edges */
  double   plot_y0, plot_y1;   /* its top and bottom */
  int      decade_lo, decade_hi;  /* the x axis spans 10^decade_lo .. 10^decade_hi */
  double   y_max;              /* the y axis spans 0 .. y_max (B/s or a fraction) */
  double   y_step;             /* between y ticks */
  guint    legend_rows;        /* the legend's lines under the title */
} PlxCalChartLayout;

/* The plot starts under the title and the legend (its lines from estimated text
 * widths at `style`'s sizes), MARGIN px from the other edges. */
void   plx_calibration_chart_layout (const PlxCalCurve    *curve,
                                     const PlxRenderStyle *style,
                                     double                width,
                                     double                height,
                                     PlxCalChartLayout    *layout);
/* A value's pixel: log10 for x, linear for y (top is y_max). */
double plx_calibration_chart_x (const PlxCalChartLayout *layout,
                                double                   x);
double plx_calibration_chart_y (const PlxCalChartLayout *layout,
                                double                   y);
/* The series' marker colours, by index. */
PlxColor plx_calibration_series_color (const PlxRenderStyle *style,
                                       guint                 index);
/* `curve` may be NULL: the empty state with `empty_text` (or a default) is drawn.
 * `title` heads the chart. */
void   plx_calibration_chart_render (const PlxCalCurve    *curve,
                                     const char           *title,
                                     const char           *empty_text,
                                     const PlxRenderStyle *style,
                                     cairo_t              *cr,
                                     double                width,
                                     double                height);

G_END_DECLS
