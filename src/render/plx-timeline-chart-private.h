/* plx-timeline-chart-private.h: the timeline layout's and renderer's inner steps,
 * for tests/render/timeline-reference.c only. That test lays out and draws the charts
 * the plain way - every event read on its own and placed by its own divisions, all
 * rows' sums at once, the column shares painted as one raster with their edges by
 * round () - through plx_timeline_layout_new_with_steps, and holds the chart's own
 * shortcuts to it bit for bit. The plain steps live with the test, not here. */
#pragma once

#include "plx-timeline-chart.h"

G_BEGIN_DECLS

/* Busy time per pixel column and kind, for one row. Only the kinds the row's streams
 * carry have a slot (a compute row has no communication kinds): a kind without one
 * is zero in every column, and adding or comparing those zeros changes no sum, share
 * or largest kind, so the slots give the same figures in half the memory or less.
 * The memory, not the arithmetic, is what a cold layout pays for (docs/performance.md). */
typedef struct
{
  double *busy;            /* columns x n_kinds, seconds */
  guint  *first_event;     /* columns: an event in the column, for hover */
  guint  *n;               /* columns: events in the column */
  guint   n_kinds;
  guint8  kind[PLX_N_KINDS];   /* slot -> PlxTaskKind, ascending */
  gint8   slot[PLX_N_KINDS];   /* PlxTaskKind -> slot, or -1 */
} PlxTimelineColumns;

/* The scratch of smoothing one row, reused for every row. */
typedef struct
{
  double *out;             /* columns x n_kinds: the smoothed busy time */
  double *total;
  guint8 *major;           /* slot of the column's largest kind */
} PlxTimelineScratch;

/* What the layout learns of the events before laying out rows: the streams and kinds
 * each rank uses, where each rank's work ends, and the kinds of the whole step. */
typedef struct
{
  gboolean *stream_used;    /* [rank * PLX_N_STREAMS + stream] */
  guint8   *stream_kinds;   /* the same, kind bits */
  double   *rank_end;
  guint     kinds_present;
  guint     n_ranks;
} PlxTimelineSurvey;

/* Where each pixel column starts, for placing a task without place_event's
 * divisions. floor ((s - t0) / col_s), place_event's column of a time s at or after
 * t0, grows with s, so the times of column c are those from lo[c] (the least giving
 * c or more) to lo[c + 1]; c0[c] is the column's start as place_event computes it
 * (t0 + c * col_s), and an event starting in c stays in c when it ends at or before
 * c0[c + 1], where place_event stops. fast_end[c] is that end, or -inf where an
 * event of the column could be a bar of its own (only at absurd zooms, where times
 * are coarser than columns). */
typedef struct
{
  double *lo;        /* n_cols + 1 */
  double *c0;        /* n_cols + 1 */
  double *fast_end;  /* n_cols */
} PlxTimelineColumnEdges;

/* Where the events go: bars, or the columns' busy time. */
typedef struct
{
  PlxTimelineLayout *l;
  PlxTimelineColumns *cols;
  const gint        *row_of;  /* [rank * PLX_N_STREAMS + stream] -> row, or -1 */
  guint              n_ranks, n_cols;
  double             t0, t1, col0_px, col_s;
  PlxTimelineColumnEdges edges;   /* lo NULL when they could not be found */
  double             per_s;   /* 1 / col_s: a first guess at a column */
} PlxTimelinePlacer;

/* Lays the events out into the rows' bars and shares (the chart's own: rank by rank). */
typedef void (*PlxTimelinePlace) (PlxTimelineLayout  *l,
                                  const PlxTimeline  *tl,
                                  PlxTimelineColumns *cols,
                                  PlxTimelineScratch *scratch,
                                  const gint         *row_of,
                                  guint               n_ranks,
                                  guint               n_cols,
                                  double              t0,
                                  double              t1,
                                  double              col0_px,
                                  double              col_s,
                                  gsize               busy_len);

typedef struct _PlxTimelineSteps
{
  /* The streams, kinds and ends of every rank (the chart's own: passes taken whole). */
  void             (*survey) (PlxTimelineSurvey *sv, const PlxTimeline *tl);
  PlxTimelinePlace   place;
  /* Paints the column shares (the chart's own: in strips onto an image). */
  void             (*paint_columns) (const PlxTimelineLayout *l, const PlxRenderStyle *style, cairo_t *cr,
                                     double width, double height);
} PlxTimelineSteps;

PlxTimelineLayout *plx_timeline_layout_new_with_steps (const PlxTimeline        *timeline,
                                                       const PlxTimelineOptions *options,
                                                       const PlxTimelineSteps   *steps);
/* The steps' parts, as the chart's own steps use them. */
void          plx_timeline_survey_event (PlxTimelineSurvey *sv, guint rank, guint stream, guint kind, double end_s);
void          plx_timeline_place_event (PlxTimelinePlacer *p, const PlxTimelineEvent *ev, guint i);
const double *plx_timeline_smooth_columns (const PlxTimelineColumns *cols, guint n_cols, PlxTimelineScratch *scratch);
void          plx_timeline_emit_columns (PlxTimelineLayout *l, guint row_index, const PlxTimelineColumns *cols,
                                         const double *busy, guint n_cols, double col_s, gsize reserved);
/* The plot's raster at the device's resolution (sx x sy device pixels a unit), rw x
 * rh; FALSE when there is nothing to paint or it would be too large. */
gboolean      plx_timeline_raster_size (const PlxTimelineLayout *l, cairo_t *cr, double width, double height,
                                        double *sx, double *sy, int *rw, int *rh);
/* Each kind's opaque ARGB pixel. */
void          plx_timeline_kind_pixels (const PlxRenderStyle *style, guint32 colors[PLX_N_KINDS]);
/* `raster`, rows from device row y of the plot's raster, onto the plot at (ox, oy). */
void          plx_timeline_paint_raster (cairo_t *cr, cairo_surface_t *raster, double ox, double oy, double sx,
                                         double sy, int y);
/* Pixel column `column`'s pixels in a raster of the plot at (ox, oy), sx x sy device
 * pixels a unit, unclamped. */
void          plx_timeline_column_x_pixels (const PlxTimelineLayout *l, guint column, double width, double ox,
                                            double sx, int *x0, int *x1);

G_END_DECLS
