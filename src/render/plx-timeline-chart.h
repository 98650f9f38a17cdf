/* plx-timeline-chart.h: the Gantt chart of a simulated step. A pure layout step
 * (rectangles and labels in 0..1 coordinates of the chart) and a renderer on any
 * cairo_t, as sysprof's charts are built. */
#pragma once

#include <cairo.h>

#include "parallax/plx-sim.h"

#include "plx-axis.h"
#include "plx-render-style.h"

G_BEGIN_DECLS

typedef struct
{
  double      t0_s;        /* visible window; t1_s <= t0_s shows the whole step */
  double      t1_s;
  double      width_px;    /* the size it will be drawn at: bars narrower than a pixel */
  double      height_px;   /* are merged, rows grouped when they would be too thin */
  const char *title;
  /* The part of the chart to use, 0..1 (a comparison stacks two timelines). */
  double      region_y0;
  double      region_y1;
  gboolean    legend;
} PlxTimelineOptions;

/* A bar is one event at least MIN_BAR_PX wide, or, for events narrower than that, one
 * pixel column of a row: each kind's share of the column's time as a stacked
 * segment of the row's height, so dense stretches read as how busy they are. The
 * layout keeps the latter as PlxChartShare (plx_timeline_layout_share_bar gives
 * one as a bar); `aggregate` tells which a bar is. */
typedef struct
{
  double  x0, x1, y0, y1;  /* 0..1 of the chart */
  guint8  kind;            /* PlxTaskKind */
  guint8  show_label;      /* the micro-batch number fits inside */
  guint8  aggregate;       /* a column share, not a single event */
  guint32 micro_batch;     /* PLX_NO_MICRO_BATCH for aggregates */
  guint   event;           /* the (first) timeline event in it */
  guint   n_events;        /* events it stands for */
  const char *text;        /* a program's op named inside (its label, or the label's
                            * head before ": "), where it fits; else NULL */
} PlxChartBar;

/* One kind's share of a pixel column of a row, a stacked segment: what events
 * narrower than MIN_BAR_PX become. A step of 660,000 events makes a quarter of a
 * million, so they are kept apart from the bars and small (24 bytes): the x extent
 * is the pixel column, and the bottom edge is the top of the share before it in the
 * column, or the row's bottom (plx_timeline_layout_share_bar gives both). */
typedef struct
{
  double  y0;              /* top, 0..1 of the chart */
  guint32 column;          /* pixel column from the plot's left edge */
  guint32 event;           /* the first timeline event in the column */
  guint32 n_events;        /* events in the column */
  guint32 row : 24;        /* index into rows */
  guint32 kind : 8;        /* PlxTaskKind */
} PlxChartShare;

#define PLX_TIMELINE_MIN_BAR_PX 2.0

typedef struct
{
  double  y0, y1;
  guint   rank;
  gint    stream;          /* PlxStream, or -1 for all communication streams together */
  double  busy_x1;         /* where the rank's step ends (idle background up to here) */
  char    label[48];
} PlxChartRow;

typedef struct
{
  double  x;               /* 0..1 of the chart */
  double  y;
  guint8  kind;
  char    label[40];
} PlxLegendItem;

typedef struct
{
  double  plot_x0, plot_x1, plot_y0, plot_y1; /* 0..1 of the chart */
  double  t0_s, t1_s;
  double  width_px, height_px;
  double  font_size;
  GArray *rows;            /* PlxChartRow */
  GArray *bars;            /* PlxChartBar: events drawn one by one */
  GArray *shares;          /* PlxChartShare: the columns of narrower events, row by row */
  GArray *ticks;           /* PlxAxisTick, position 0..1 along the plot */
  GArray *legend;          /* PlxLegendItem */
  guint   rank_stride;     /* 1, or n when only every n-th stage is shown */
  char    title[200];
  char    note[120];       /* e.g. "every 4th stage shown" */
  GStringChunk *texts;     /* the bars' texts */
  gboolean name_ops;       /* a program's run (per device): bars named by their ops and
                            * parted by a hairline */
  /* NULL: the chart's own steps; a test's plain ones (plx-timeline-chart-private.h). */
  const struct _PlxTimelineSteps *steps;
} PlxTimelineLayout;

PlxTimelineLayout *plx_timeline_layout_new (const PlxTimeline        *timeline,
                                            const PlxTimelineOptions *options);
void               plx_timeline_layout_free (PlxTimelineLayout *layout);
void               plx_timeline_options_init (PlxTimelineOptions *options,
                                              double              width_px,
                                              double              height_px);
/* Share `index` of layout->shares as a bar (aggregate, no label). */
void               plx_timeline_layout_share_bar (const PlxTimelineLayout *layout,
                                                  guint                    index,
                                                  PlxChartBar             *bar);
/* The event under (x, y) in 0..1 chart coordinates, or -1. */
gint               plx_timeline_layout_hit (const PlxTimelineLayout *layout,
                                            double                   x,
                                            double                   y);

void plx_timeline_chart_render (const PlxTimelineLayout *layout,
                                const PlxRenderStyle    *style,
                                cairo_t                 *cr,
                                double                   width,
                                double                   height);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxTimelineLayout, plx_timeline_layout_free)

G_END_DECLS
