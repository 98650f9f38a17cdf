/* timeline-reference.c: the timeline chart the plain way (timeline-reference.h),
 * through the chart's steps (plx-timeline-chart-private.h). */
#include <math.h>

#include "plx-timeline-chart-private.h"

#include "timeline-reference.h"

/* Every event read on its own. */
static void
survey_events (PlxTimelineSurvey *sv, const PlxTimeline *tl)
{
  PlxTimelineIter iter;
  PlxTimelineEvent event;

  plx_timeline_iter_init (&iter, tl);
  while (plx_timeline_iter_next (&iter, &event))
    plx_timeline_survey_event (sv, event.rank, event.stream, event.kind, event.end_s);
}

/* Every event placed in the order the timeline holds them, into sums for all rows at
 * once, then every row smoothed and emitted. */
static void
layout_all_rows (PlxTimelineLayout *l, const PlxTimeline *tl, PlxTimelineColumns *cols, PlxTimelineScratch *scratch,
                 const gint *row_of, guint n_ranks, guint n_cols, double t0, double t1, double col0_px,
                 double col_s, gsize busy_len)
{
  PlxTimelinePlacer pl = { l, cols, row_of, n_ranks, n_cols, t0, t1, col0_px, col_s, { NULL, NULL, NULL }, 1.0 / col_s };
  double *busy_arena = g_new0 (double, MAX (busy_len, 1));
  guint *count_arena = g_new0 (guint, (gsize) n_cols * 2 * MAX (l->rows->len, 1));
  gsize most_shares = 0, at = 0;
  PlxTimelineIter iter;
  PlxTimelineEvent event;

  for (guint ri = 0; ri < l->rows->len; ri++)
    {
      cols[ri].busy = busy_arena + at;
      at += (gsize) n_cols * cols[ri].n_kinds;
      cols[ri].first_event = count_arena + (gsize) ri * 2 * n_cols;
      cols[ri].n = cols[ri].first_event + n_cols;
    }
  plx_timeline_iter_init (&iter, tl);
  while (plx_timeline_iter_next (&iter, &event))
    plx_timeline_place_event (&pl, &event, (guint) iter.index - 1);
  for (guint ri = 0; ri < l->rows->len; ri++)
    for (guint c = 0; c < n_cols; c++)
      if (cols[ri].n[c] > 0)
        most_shares += cols[ri].n_kinds;
  g_array_set_size (l->shares, most_shares);
  g_array_set_size (l->shares, 0);
  for (guint ri = 0; ri < l->rows->len; ri++)
    plx_timeline_emit_columns (l, ri, &cols[ri], plx_timeline_smooth_columns (&cols[ri], n_cols, scratch), n_cols,
                               col_s, most_shares);
  g_free (busy_arena);
  g_free (count_arena);
}

/* A column share's pixels in the raster, clamped to it: its edges by round (). */
static void
column_pixels (const PlxTimelineLayout *l, guint share, double width, double height, double ox,
               double oy, double sx, double sy, int rw, int rh, int *x0, int *x1, int *y0, int *y1)
{
  PlxChartBar b;

  plx_timeline_layout_share_bar (l, share, &b);
  plx_timeline_column_x_pixels (l, g_array_index (l->shares, PlxChartShare, share).column, width, ox, sx, x0, x1);
  *y0 = (int) round ((b.y0 * height - oy) * sy);
  *y1 = (int) round ((b.y1 * height - oy) * sy);
  *x0 = CLAMP (*x0, 0, rw);
  *x1 = CLAMP (*x1, 0, rw);
  *y0 = CLAMP (*y0, 0, rh);
  *y1 = CLAMP (*y1, 0, rh);
}

/* The column shares as one raster at the device's resolution, painted once. */
static void
paint_columns (const PlxTimelineLayout *l, const PlxRenderStyle *style, cairo_t *cr, double width, double height)
{
  double sx, sy, ox = l->plot_x0 * width, oy = l->plot_y0 * height;
  guint32 colors[PLX_N_KINDS];
  cairo_surface_t *raster;
  guint32 *pixels;
  int rw, rh, stride;

  if (!plx_timeline_raster_size (l, cr, width, height, &sx, &sy, &rw, &rh))
    return;
  plx_timeline_kind_pixels (style, colors);
  raster = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, rw, rh);
  pixels = (guint32 *) (void *) cairo_image_surface_get_data (raster);
  stride = cairo_image_surface_get_stride (raster) / 4;
  cairo_surface_flush (raster);
  for (guint i = 0; i < l->shares->len; i++)
    {
      int x0, x1, y0, y1;

      column_pixels (l, i, width, height, ox, oy, sx, sy, rw, rh, &x0, &x1, &y0, &y1);
      for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
          pixels[y * stride + x] = colors[g_array_index (l->shares, PlxChartShare, i).kind];
    }
  cairo_surface_mark_dirty (raster);
  plx_timeline_paint_raster (cr, raster, ox, oy, sx, sy, 0);
  cairo_surface_destroy (raster);
}

static const PlxTimelineSteps plain = { survey_events, layout_all_rows, paint_columns };

PlxTimelineLayout *
timeline_reference_layout (const PlxTimeline        *timeline,
                           const PlxTimelineOptions *options)
{
  return plx_timeline_layout_new_with_steps (timeline, options, &plain);
}
