/* plx-tornado-chart.h: a tornado chart of sensitivities - one horizontal bar per
 * input, from the output's change at the input's low value to its change at the high
 * value, the widest bar on top - for `simulate --sensitivity --tornado` and a GUI page. */
#pragma once

#include <cairo.h>

#include "plx-render-style.h"

G_BEGIN_DECLS

typedef struct
{
  const char *label;
  double      low;   /* the output's change (any unit, e.g. %) at the input's low value */
  double      high;  /* ... at its high value */
} PlxTornadoBar;

typedef struct
{
  double x0, x1;      /* the bar's ends, 0..1 of the chart's width, x0 <= x1 */
  double low_x, high_x; /* where the low and high ends fall */
  double y0, y1;      /* its top and bottom, 0..1 of the height */
  guint  index;       /* which input bar */
  double low, high;
} PlxTornadoRow;

typedef struct
{
  double   zero_x;            /* the no-change line, 0..1 of the width */
  double   plot_y0, plot_y1;
  double   plot_x0, plot_x1;
  double   span;              /* the largest |change| the axis reaches on either side */
  GArray  *rows;              /* PlxTornadoRow, widest (high - low) first */
  char     title[200];
  char     axis_label[120];
  char   **labels;            /* owned copies, by input index */
} PlxTornadoLayout;

/* At most max_rows bars (the widest); bars whose ends are not finite are dropped. */
PlxTornadoLayout *plx_tornado_layout_new (const PlxTornadoBar *bars,
                                          guint                n_bars,
                                          guint                max_rows,
                                          const char          *title,
                                          const char          *axis_label);
void              plx_tornado_layout_free (PlxTornadoLayout *layout);
/* The bars' two sides: the output's change with the input at -1 % (light) and +1 %. */
PlxColor          plx_tornado_low_color (const PlxRenderStyle *style);
PlxColor          plx_tornado_high_color (const PlxRenderStyle *style);
/* Where row `row` (of layout->rows) is drawn in a chart `height` pixels high: the
 * layout's height fractions, with the plot kept clear of the title and the axis text
 * and a row at most 5 font sizes. */
void              plx_tornado_chart_row_pixels (const PlxTornadoLayout *layout,
                                                const PlxRenderStyle   *style,
                                                double                  height,
                                                guint                   row,
                                                double                 *top,
                                                double                 *bottom);
void              plx_tornado_chart_render (const PlxTornadoLayout *layout,
                                            const PlxRenderStyle   *style,
                                            cairo_t                *cr,
                                            double                  width,
                                            double                  height);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxTornadoLayout, plx_tornado_layout_free)

G_END_DECLS
