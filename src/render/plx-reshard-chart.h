/* plx-reshard-chart.h: a redistribution plan (issue 14, plx-reshard.h) drawn as two
 * panels on one time axis: its steps as bars, one row for the plan and one beneath
 * for the XLA-style baseline, coloured by collective; and the bytes per GPU over
 * the same time, plan and baseline as step lines, the bound B = max(source shard,
 * target shard) dashed. A whole checkpoint (PlxReshardModel) is its arrays one
 * after another, each named above its steps. */
#pragma once

#include <cairo.h>

#include "parallax/plx-reshard.h"
#include "plx-axis.h"
#include "plx-render-style.h"

G_BEGIN_DECLS

/* One array kind moved `count` times in a row (a checkpoint's fp32 master copy and
 * its Adam moments share one plan: count 3). Plans are borrowed. */
typedef struct
{
  const char           *name;      /* shown above its steps; NULL for a lone array */
  guint                 count;     /* 0 is taken as 1 */
  const PlxReshardPlan *plan;      /* NULL: the array is left out */
  const PlxReshardPlan *baseline;  /* NULL: no baseline row for it */
} PlxReshardChartArray;

enum { PLX_RESHARD_ROW_PLAN, PLX_RESHARD_ROW_BASELINE, PLX_RESHARD_N_ROWS };

typedef struct
{
  double       x0, y0, x1, y1;    /* 0..1 of the chart; x1 == x0 for a local step (0 s) */
  PlxReshardOp op;
  guint        row;               /* PLX_RESHARD_ROW_* */
  guint        array, copy, step; /* which array, which of its `count`, which step */
  double       start_s, end_s;
  double       peak_bytes;        /* in + out per GPU while it runs */
  char         label[64];         /* "all-gather → [-,y]", or "" when nothing fits */
} PlxReshardBar;

typedef struct
{
  double x, y;                    /* 0..1 of the chart */
} PlxReshardPoint;

typedef struct
{
  double x0, x1;                  /* 0..1: the array's span in the plan row */
  char   label[64];               /* its name, or "" when it does not fit */
} PlxReshardMark;

typedef struct
{
  double   width_px, height_px, font_size;
  double   plot_x0, plot_x1;      /* the shared time axis, 0..1 of the width */
  double   row_y0[PLX_RESHARD_N_ROWS], row_y1[PLX_RESHARD_N_ROWS];
  double   time_axis_y;           /* under the rows, 0..1 of the height */
  double   mem_y0, mem_y1;        /* the memory plot */
  double   t_end_s;               /* the time axis's end */
  double   mem_max_bytes;         /* the memory axis's top */
  double   plan_time_s, plan_peak_bytes, base_time_s, base_peak_bytes, bound_bytes;
  gboolean has_baseline;
  gboolean base_time_clipped;     /* the baseline runs past the time axis's end */
  gboolean base_peak_clipped;     /* its peak is above the memory axis's top */
  gboolean empty;                 /* nothing to draw: a message instead */
  guint32  ops_used;              /* bit op: an op on some bar, for the legend */
  GArray  *bars;                  /* PlxReshardBar, plan row first */
  GArray  *marks;                 /* PlxReshardMark, one per array when named */
  GArray  *time_ticks;            /* PlxAxisTick, position 0..1 of the width */
  GArray  *mem_ticks;             /* PlxAxisTick, position 0..1 of the height */
  GArray  *mem_line[PLX_RESHARD_N_ROWS]; /* PlxReshardPoint: step lines */
  GArray  *bound_line;            /* PlxReshardPoint: B per array (a step line too) */
  char     summary[256];
  char     message[128];          /* shown when empty */
} PlxReshardLayout;

PlxReshardLayout *plx_reshard_layout_new (const PlxReshardChartArray *arrays,
                                          guint                       n_arrays,
                                          double                      width_px,
                                          double                      height_px);
void              plx_reshard_layout_free (PlxReshardLayout *layout);
void              plx_reshard_chart_render (const PlxReshardLayout *layout,
                                            const PlxRenderStyle   *style,
                                            cairo_t                *cr,
                                            double                  width,
                                            double                  height);
/* The bar under (x, y) (0..1 of the chart), a local step within 3 px; -1 if none. */
gint              plx_reshard_layout_hit (const PlxReshardLayout *layout,
                                          double                  x,
                                          double                  y);
/* A collective's colour, from a table indexed by PlxReshardOp. */
PlxColor          plx_reshard_op_color (const PlxRenderStyle *style,
                                        PlxReshardOp          op);
/* "18.0 MiB", "1.27 GiB": bytes in the binary unit that keeps them readable. */
void              plx_reshard_format_bytes (double bytes,
                                            char  *buf,
                                            gsize  len);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxReshardLayout, plx_reshard_layout_free)

G_END_DECLS
