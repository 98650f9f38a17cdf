/* plx-scatter-chart.h: a strategy search as a scatter plot: one point per strategy
 * that fits, step time up, peak memory per GPU (or the GPU count) across, the Pareto
 * front (no other strategy is both faster and smaller) drawn as a staircase and
 * highlighted. */
#pragma once

#include <cairo.h>

#include "plx-axis.h"
#include "plx-memory-chart.h"
#include "plx-render-style.h"

G_BEGIN_DECLS

typedef struct
{
  double   memory_bytes;
  double   step_time_s;
  gboolean pareto;         /* on the front of step time against memory */
  double   gpus;
  gboolean pareto_gpus;    /* on the front of step time against GPU count */
} PlxScatterPoint;

typedef struct
{
  double      width_px;
  double      height_px;
  double      usable_bytes;   /* usable HBM per GPU, drawn as a line; 0: none */
  gint        selected;       /* index of the point to ring, or -1 */
  gboolean    by_gpus;        /* x is the GPU count, the front is against it */
  const char *title;
} PlxScatterOptions;

typedef struct
{
  double   width_px, height_px, font_size;
  double   plot_x0, plot_x1, plot_y0, plot_y1;   /* 0..1 of the chart; y grows downwards */
  gboolean by_gpus;
  double   x_min, x_max;                         /* the x axis's span (bytes or GPUs) */
  double   y_lo_s, y_hi_s;                       /* the y axis, bottom to top: up to 4x the
                                                  * fastest or 1.2x the front's slowest, so
                                                  * outliers do not squash the rest */
  GArray  *positions;                            /* PlxChartPoint, one per input point */
  GArray  *front;                                /* PlxChartPoint: the staircase, by memory */
  GArray  *x_ticks, *y_ticks;                    /* PlxAxisTick */
  double   usable_x;                             /* < 0: no line */
  gint     selected;
  guint8  *above;                                /* per point: slower than the axis's top */
  guint    n_points, n_pareto, n_above;
  char     title[200];
  char     summary[200];                         /* "1098 strategies, 9 on the Pareto front" */
} PlxScatterLayout;

void              plx_scatter_options_init (PlxScatterOptions *options,
                                            double             width_px,
                                            double             height_px);
PlxScatterLayout *plx_scatter_layout_new (const PlxScatterPoint   *points,
                                          guint                    n_points,
                                          const PlxScatterOptions *options);
void              plx_scatter_layout_free (PlxScatterLayout *layout);
void              plx_scatter_chart_render (const PlxScatterLayout *layout,
                                            const PlxRenderStyle   *style,
                                            cairo_t                *cr,
                                            double                  width,
                                            double                  height);
/* The point nearest to (x, y) (0..1 of the chart) within `radius_px`, or -1; of
 * points at the same distance, the first. */
gint              plx_scatter_layout_hit (const PlxScatterLayout *layout,
                                          double                  x,
                                          double                  y,
                                          double                  radius_px);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxScatterLayout, plx_scatter_layout_free)

G_END_DECLS
