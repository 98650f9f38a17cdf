/* Timeline layout and rendering. Rows are a stage's streams (compute, TP, pipeline,
 * DP); when they would be thinner than a line of text, a stage's communication
 * streams share one row, then only compute rows remain, then only every n-th stage:
 * all stages of a representative-rank simulation look alike, so the sample shows the
 * pipeline's shape. Events narrower than two pixels are not drawn one by one: each
 * pixel column shows how much of its time each kind took, so a timeline of hundreds
 * of thousands of events draws as fast as a small one and still reads truthfully. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "plx-timeline-chart-private.h"
#include "plx-render-text.h"
#include "plx-timeline-chart.h"
#include "../core/base/plx-minmax.h"

/* 24 bytes a share; 24 bits of row index hold any row count a cairo surface (at most
 * 32,767 pixels high) can show. */
G_STATIC_ASSERT (sizeof (PlxChartShare) == 24);

typedef PlxTimelineColumns Columns;
typedef PlxTimelineScratch SmoothScratch;
typedef PlxTimelineSurvey Survey;
typedef PlxTimelineColumnEdges ColumnEdges;
typedef PlxTimelinePlacer Placer;

#define MARGIN_LEFT_PX 118.0
#define MARGIN_RIGHT_PX 16.0
#define TITLE_PX 34.0
/* PlxRenderStyle's title size; bold runs some 10 % wider than the estimate's regular. */
#define TITLE_FONT_PX 15.0
#define BOLD_WIDTH 1.1
#define AXIS_PX 26.0

void
plx_timeline_options_init (PlxTimelineOptions *o,
                           double              width_px,
                           double              height_px)
{
  memset (o, 0, sizeof *o);
  o->width_px = width_px;
  o->height_px = height_px;
  o->region_y0 = 0.0;
  o->region_y1 = 1.0;
  o->legend = TRUE;
}

void
plx_timeline_layout_free (PlxTimelineLayout *layout)
{
  if (layout == NULL)
    return;
  g_array_unref (layout->rows);
  g_array_unref (layout->bars);
  g_array_unref (layout->shares);
  g_array_unref (layout->ticks);
  g_array_unref (layout->legend);
  if (layout->texts != NULL)
    g_string_chunk_free (layout->texts);
  g_free (layout);
}

/* Which streams a stage shows as rows: all four, compute plus one for communication,
 * or compute only. */
typedef enum
{
  ROWS_ALL_STREAMS,
  ROWS_COMPUTE_AND_COMM,
  ROWS_COMPUTE_ONLY,
} RowMode;

/* What a bar of a program's op says inside: the op's name if it fits, else the part
 * before ": " ("allreduce bucket3" of "allreduce bucket3: d:w9 ... d:w1 (6 tensors)"),
 * else that part's last word ("bucket3"), else nothing; the tooltip has the whole. */
static const char *
bar_text (PlxTimelineLayout *l, const PlxTimelineEvent *ev, double width_px, double size)
{
  const char *colon;

  if (ev->label == NULL || ev->label[0] == '\0')
    return NULL;
  if (plx_render_text_estimate (ev->label, size) + 6.0 <= width_px)
    return g_string_chunk_insert_const (l->texts, ev->label);
  colon = strstr (ev->label, ": ");
  if (colon != NULL)
    {
      g_autofree char *head = g_strndup (ev->label, colon - ev->label);
      const char *word = strrchr (head, ' ');
      if (plx_render_text_estimate (head, size) + 6.0 <= width_px)
        return g_string_chunk_insert_const (l->texts, head);
      if (word != NULL && word[1] != '\0' && plx_render_text_estimate (word + 1, size) + 6.0 <= width_px)
        return g_string_chunk_insert_const (l->texts, word + 1);
    }
  return NULL;
}

static void
emit_event (PlxTimelineLayout *l, const PlxChartRow *row, const PlxTimelineEvent *ev, guint index,
            double x0, double x1, gboolean name_ops)
{
  PlxChartBar bar;
  char text[16];
  gboolean tall = (row->y1 - row->y0) * l->height_px >= l->font_size * 0.85 + 2.0;

  bar.x0 = x0 / l->width_px;
  bar.x1 = x1 / l->width_px;
  bar.y0 = row->y0;
  bar.y1 = row->y1;
  bar.kind = ev->kind;
  bar.aggregate = FALSE;
  bar.micro_batch = ev->micro_batch;
  bar.event = index;
  bar.n_events = 1;
  snprintf (text, sizeof text, "%u", ev->micro_batch);
  bar.show_label = ev->micro_batch != PLX_NO_MICRO_BATCH &&
                   (x1 - x0) >= plx_render_text_estimate (text, l->font_size * 0.85) + 4.0 && tall;
  bar.text = name_ops && tall && ev->micro_batch == PLX_NO_MICRO_BATCH
               ? bar_text (l, ev, x1 - x0, l->font_size * 0.85) : NULL;
  g_array_append_val (l->bars, bar);
}

/* Aliasing: kernels a few milliseconds apart drawn in columns of 10-20 ms put two or
 * three of the gaps between kernels in one column and one or four in its neighbour,
 * so busy shares jump by a gap's width from column to column and a busy row's top
 * reads as a comb, a moire at PP 1 (issue 9, defect 14); the same happens to a minor
 * kind interleaved with a major one (recompute within backward). A column's busy
 * share, and how it splits between kinds, are taken over a binomial window of five
 * columns instead (weights 1 4 6 4 1): still the share of time busy, measured around
 * the column rather than inside it. The window spans only neighbours that hold events
 * and whose largest kind is the column's own, and a kind the column lacks comes in
 * only when it is on both sides (interleaved here, not starting or ending here), so
 * the edges of a busy stretch and the change from forward to backward stay square
 * and in the one column where they happen. */
#define SMOOTH_TAPS 2
static const double *
smooth_columns (const Columns *cols, guint n_cols, SmoothScratch *scratch)
{
  static const double w[SMOOTH_TAPS + 1] = { 6.0, 4.0, 1.0 };
  const guint nk = cols->n_kinds;
  guint8 *major = scratch->major;
  double *total = scratch->total;
  double *out = scratch->out;

  for (guint c = 0; c < n_cols; c++)
    {
      major[c] = 0;
      total[c] = 0.0;
      for (guint k = 0; k < nk; k++)
        {
          total[c] += cols->busy[(gsize) c * nk + k];
          if (cols->busy[(gsize) c * nk + k] > cols->busy[(gsize) c * nk + major[c]])
            major[c] = (guint8) k;
        }
    }
  for (guint c = 0; c < n_cols; c++)
    {
      const double *own = &cols->busy[(gsize) c * nk];
      double sum_w = 0.0, busy = 0.0, mix[PLX_N_KINDS] = { 0 }, mix_sum = 0.0;
      gboolean left[PLX_N_KINDS] = { 0 }, right[PLX_N_KINDS] = { 0 };

      memcpy (&out[(gsize) c * nk], own, nk * sizeof mix[0]);
      if (cols->n[c] == 0 || total[c] <= 0.0)
        continue;
      for (gint d = -SMOOTH_TAPS; d <= SMOOTH_TAPS; d++)
        {
          gint64 j = (gint64) c + d;
          if (j < 0 || j >= n_cols || cols->n[j] == 0 || total[j] <= 0.0 || major[j] != major[c])
            continue;
          sum_w += w[ABS (d)];
          busy += w[ABS (d)] * total[j];
          for (guint k = 0; k < nk; k++)
            {
              double b = cols->busy[(gsize) j * nk + k];
              mix[k] += w[ABS (d)] * b / total[j];
              if (b > 0.0 && d < 0)
                left[k] = TRUE;
              if (b > 0.0 && d > 0)
                right[k] = TRUE;
            }
        }
      for (guint k = 0; k < nk; k++)
        {
          if (own[k] <= 0.0 && !(left[k] && right[k]))
            mix[k] = 0.0;
          mix_sum += mix[k];
        }
      for (guint k = 0; k < nk; k++)
        out[(gsize) c * nk + k] = busy / sum_w * mix[k] / mix_sum;
    }
  return out;
}

/* Stacks each kind's share of the column from the row's bottom. */
static void
emit_columns (PlxTimelineLayout *l, guint row_index, const Columns *cols, const double *busy,
              guint n_cols, double col_s, gsize reserved)
{
  const guint nk = cols->n_kinds;
  const PlxChartRow *row = &g_array_index (l->rows, PlxChartRow, row_index);
  /* Written in place: the array is reserved for every share (one call of
   * g_array_append_val a share cost more than the share). */
  PlxChartShare *out = (PlxChartShare *) (void *) l->shares->data;
  guint n = l->shares->len;

  for (guint c = 0; c < n_cols; c++)
    {
      double y = row->y1, hgt = row->y1 - row->y0, total = 0.0;

      if (cols->n[c] == 0)
        continue;
      for (guint k = 0; k < nk; k++)
        total += busy[(gsize) c * nk + k];
      for (guint k = 0; k < nk; k++)
        {
          double share = busy[(gsize) c * nk + k] / col_s;
          PlxChartShare bar;

          if (share <= 0.0)
            continue;
          /* Overlapping streams merged into one row can exceed the column. */
          if (total > col_s)
            share *= col_s / total;
          g_assert (n < reserved);
          bar.column = c;
          bar.row = row_index;
          bar.y0 = y - share * hgt;
          y = bar.y0;
          bar.kind = cols->kind[k];
          bar.event = cols->first_event[c];
          bar.n_events = cols->n[c];
          /* Stored whole: setting the bit fields in place would read the fresh page
           * first (a second fault per page, the zero page's then the write's). */
          out[n++] = bar;
        }
    }
  g_array_set_size (l->shares, n);
}

static inline void
survey_event (Survey *sv, guint rank, guint stream, guint kind, double end_s)
{
  if (rank >= sv->n_ranks)
    return;
  sv->stream_used[(gsize) rank * PLX_N_STREAMS + stream] = TRUE;
  sv->stream_kinds[(gsize) rank * PLX_N_STREAMS + stream] |= (guint8) (1u << kind);
  sv->rank_end[rank] = MAX (sv->rank_end[rank], end_s);
  /* The legend lists every kind of the step, so it stays put while zooming. */
  sv->kinds_present |= 1u << kind;
}

/* A pass's tasks as the events they expand to, with their end times computed as
 * the timeline computes them (plx-sim.h), without making each an event. The rank's
 * end is taken through the same MAX in the same order, held in a register for the
 * pass rather than stored and loaded again for every task. */
static void
survey_pass (Survey *sv, const PlxTimelinePass *pass)
{
  double t = pass->start_s, rank_end;
  gsize at = (gsize) pass->rank * PLX_N_STREAMS;

  if (pass->rank >= sv->n_ranks)
    return;
  rank_end = sv->rank_end[pass->rank];
  for (guint j = 0; j < pass->n_tasks; j++)
    {
      const PlxPlanTask *task = &pass->tasks[j];
      sv->stream_used[at + task->stream] = TRUE;
      sv->stream_kinds[at + task->stream] |= (guint8) (1u << task->kind);
      sv->kinds_present |= 1u << task->kind;
      rank_end = MAX (rank_end, t + task->duration_s);
      t += task->duration_s;
    }
  sv->rank_end[pass->rank] = rank_end;
}

static inline void
column_add (Columns *col, guint c, guint event, guint kind, double overlap)
{
  if (col->n[c] == 0)
    col->first_event[c] = event;
  col->n[c]++;
  if (overlap > 0.0)
    col->busy[(gsize) c * col->n_kinds + col->slot[kind]] += overlap;
}

/* The least time place_event puts in column c or later (for c >= 1), or NaN when it
 * is more than a few steps of nextafter from t0 + c * col_s. Down from there to the
 * first time before the column, then up to the first in it: the least only if the
 * way down reached a time before the column. Near 0 with t0 < 0 it may not, times
 * being much finer there than x - t0's rounding (every time within half an ulp of
 * t0 from 0 has the column of 0): a window starting before the step once put the
 * events starting at 0 a column early. */
static double
column_lo (double t0, double col_s, guint c)
{
  double x = t0 + c * col_s;
  guint steps = 0;

  while (floor ((x - t0) / col_s) >= c)
    {
      if (++steps > 64)
        return NAN;
      x = nextafter (x, -INFINITY);
    }
  while (floor ((x - t0) / col_s) < c)
    {
      if (++steps > 128)
        return NAN;
      x = nextafter (x, INFINITY);
    }
  return x;
}

static void
column_edges_clear (ColumnEdges *e)
{
  g_clear_pointer (&e->lo, g_free);
  g_clear_pointer (&e->c0, g_free);
  g_clear_pointer (&e->fast_end, g_free);
}

/* The column edges, or FALSE (freeing them) when some could not be found. */
static gboolean
column_edges_init (Placer *p)
{
  ColumnEdges *e = &p->edges;
  const guint n = p->n_cols;

  e->lo = g_new (double, n + 1);
  e->c0 = g_new (double, n + 1);
  e->fast_end = g_new (double, n);
  e->lo[0] = p->t0;   /* s - t0 is negative exactly when s < t0 */
  for (guint c = 0; c <= n; c++)
    {
      e->c0[c] = p->t0 + c * p->col_s;
      if (c > 0)
        e->lo[c] = column_lo (p->t0, p->col_s, c);
      if (isnan (e->lo[c]))
        {
          column_edges_clear (e);
          return FALSE;
        }
    }
  for (guint c = 0; c < n; c++)
    {
      /* The widest event kept in c, from lo[c] to its end or t1: narrower than a bar? */
      double end = c + 1 < n ? e->c0[c + 1] : INFINITY;
      double x0 = p->col0_px + (e->lo[c] - p->t0) / p->col_s;
      double x1 = p->col0_px + (MIN (end, p->t1) - p->t0) / p->col_s;
      e->fast_end[c] = x1 - x0 < PLX_TIMELINE_MIN_BAR_PX ? end : -INFINITY;
    }
  return TRUE;
}

/* place_event's column of a time s from t0 to t1, or n_cols where it places nothing. */
static inline guint
column_of (const Placer *p, double s)
{
  const double *lo = p->edges.lo;
  guint c = (guint) CLAMP ((s - p->t0) * p->per_s, 0.0, (double) (p->n_cols - 1));

  while (c > 0 && s < lo[c])
    c--;
  while (c < p->n_cols && s >= lo[c + 1])
    c++;
  return c;
}

/* An event (or task) of row ri from start to end lying in one column: its count and
 * busy time go there as place_event would add them (the same additions, so the same
 * sums), without place_event's divisions. FALSE, adding nothing, otherwise. */
static inline gboolean
place_in_column (Placer *p, gint ri, double start, double end, guint kind, guint event)
{
  double s0 = MAX (start, p->t0), s1 = MIN (end, p->t1), c0;
  guint c;

  if (p->edges.lo == NULL)
    return FALSE;
  c = column_of (p, s0);
  if (c >= p->n_cols || !(s1 <= p->edges.fast_end[c]))
    return FALSE;
  c0 = p->edges.c0[c];
  column_add (&p->cols[ri], c, event, kind, MIN (s1, c0 + p->col_s) - MAX (s0, c0));
  return TRUE;
}

/* One event: a bar of its own when at least MIN_BAR_PX wide, else its time spread
 * over the columns it touches. */
static void
place_event (Placer *p, const PlxTimelineEvent *ev, guint i)
{
  const double t0 = p->t0, col_s = p->col_s;
  gint ri;
  guint first;
  double s0, s1, x0, x1;

  if (ev->rank >= p->n_ranks || ev->end_s < t0 || ev->start_s > p->t1)
    return;
  ri = p->row_of[(gsize) ev->rank * PLX_N_STREAMS + ev->stream];
  if (ri < 0 || place_in_column (p, ri, ev->start_s, ev->end_s, ev->kind, i))
    return;
  s0 = MAX (ev->start_s, t0);
  s1 = MIN (ev->end_s, p->t1);
  x0 = p->col0_px + (s0 - t0) / col_s;
  x1 = p->col0_px + (s1 - t0) / col_s;
  if (x1 - x0 >= PLX_TIMELINE_MIN_BAR_PX)
    {
      emit_event (p->l, &g_array_index (p->l->rows, PlxChartRow, ri), ev, i, x0, x1, p->l->name_ops);
      return;
    }
  /* The column edges give the first column without a division. */
  first = p->edges.lo != NULL ? column_of (p, s0) : (guint) plx_max (floor ((s0 - t0) / col_s), 0.0);
  for (guint c = first; c < p->n_cols; c++)
    {
      double c0 = t0 + c * col_s, c1 = c0 + col_s;
      double overlap = MIN (s1, c1) - MAX (s0, c0);
      if (c0 >= s1 && c > first)
        break;
      column_add (&p->cols[ri], c, i, ev->kind, overlap);
    }
}

/* Task j of a pass, from start to end, in row ri: added to its column, or, when it
 * lies in more than one or is a bar of its own, placed as an event. */
static void
place_task (Placer *p, const PlxTimelinePass *pass, guint j, gint ri, double start, double end)
{
  PlxTimelineEvent ev;

  if (place_in_column (p, ri, start, end, pass->tasks[j].kind, (guint) (pass->first_event + j)))
    return;
  plx_timeline_pass_event (pass, j, start, &ev);
  place_event (p, &ev, (guint) (pass->first_event + j));
}

/* A pass's tasks, placed one by one with their times computed as the timeline
 * computes them (plx-sim.h), without making each an event. */
static void
place_pass (Placer *p, const PlxTimelinePass *pass)
{
  double t = pass->start_s;

  if (pass->rank >= p->n_ranks)
    return;
  for (guint j = 0; j < pass->n_tasks; j++)
    {
      const PlxPlanTask *task = &pass->tasks[j];
      double end = t + task->duration_s;
      gint ri = p->row_of[(gsize) pass->rank * PLX_N_STREAMS + task->stream];

      /* place_event's tests, in an order that gives the same answer. */
      if (ri >= 0 && !(end < p->t0 || t > p->t1))
        place_task (p, pass, j, ri, t, end);
      t += task->duration_s;
    }
}

static int
compare_bar_events (gconstpointer a, gconstpointer b)
{
  guint x = ((const PlxChartBar *) a)->event, y = ((const PlxChartBar *) b)->event;
  return (x > y) - (x < y);
}

/* The same, a rank at a time: a rank's events (passes taken whole, tasks put in their
 * column through the column edges) into the sums of its rows only, which are then
 * smoothed and emitted before the next rank's. A row's sums get the same additions
 * in the same order (its events are its rank's, in the timeline's order), rows come
 * out in the same order (rank by rank), and the bars, made rank by rank, are put back
 * in the timeline's order (one bar at most an event). The sums are one rank's rows,
 * 4 of them at most, used again for every rank, instead of every row's: for
 * megatron-1T at 1920 px, 60 KB written again and again instead of 4.6 MB of fresh
 * pages (1,120 faults). The shares' array is reserved for a share per kind of every
 * column, address space only until written. */
static void
layout_by_rank (PlxTimelineLayout *l, const PlxTimeline *tl, Columns *cols, SmoothScratch *scratch,
                const gint *row_of, guint n_ranks, guint n_cols, double t0, double t1, double col0_px,
                double col_s, gsize busy_len)
{
  Placer pl = { l, cols, row_of, n_ranks, n_cols, t0, t1, col0_px, col_s, { NULL, NULL, NULL }, 1.0 / col_s };
  PlxTimelineByRank *by_rank = plx_timeline_by_rank_new (tl, n_ranks);
  gsize block_busy = 0, block_rows = 0;
  double *busy;
  guint *counts;

  column_edges_init (&pl);
  /* The largest rank's rows. */
  for (guint g0 = 0, g1; g0 < l->rows->len; g0 = g1)
    {
      gsize at = 0;
      for (g1 = g0; g1 < l->rows->len && g_array_index (l->rows, PlxChartRow, g1).rank ==
                                           g_array_index (l->rows, PlxChartRow, g0).rank; g1++)
        at += (gsize) n_cols * cols[g1].n_kinds;
      block_busy = MAX (block_busy, at);
      block_rows = MAX (block_rows, g1 - g0);
    }
  busy = g_new (double, MAX (block_busy, 1));
  counts = g_new (guint, (gsize) n_cols * 2 * MAX (block_rows, 1));
  g_array_set_size (l->shares, busy_len);
  g_array_set_size (l->shares, 0);
  for (guint g0 = 0, g1; g0 < l->rows->len; g0 = g1)
    {
      guint rank = g_array_index (l->rows, PlxChartRow, g0).rank;
      gsize at = 0;

      for (g1 = g0; g1 < l->rows->len && g_array_index (l->rows, PlxChartRow, g1).rank == rank; g1++)
        {
          cols[g1].busy = busy + at;
          at += (gsize) n_cols * cols[g1].n_kinds;
          cols[g1].first_event = counts + (gsize) (g1 - g0) * 2 * n_cols;
          cols[g1].n = cols[g1].first_event + n_cols;
        }
      memset (busy, 0, at * sizeof (double));
      memset (counts, 0, (gsize) n_cols * 2 * (g1 - g0) * sizeof (guint));
      for (guint j = 0; j < plx_timeline_by_rank_n_items (by_rank, rank); j++)
        {
          PlxTimelinePass pass;
          PlxTimelineEvent event;
          gboolean has_send = FALSE;
          guint64 index;

          if (!plx_timeline_by_rank_item (by_rank, rank, j, &pass, &has_send, &event, &index))
            place_event (&pl, &event, (guint) index);
          else
            {
              place_pass (&pl, &pass);
              if (has_send)
                place_event (&pl, &event, (guint) index);
            }
        }
      for (guint ri = g0; ri < g1; ri++)
        emit_columns (l, ri, &cols[ri], smooth_columns (&cols[ri], n_cols, scratch), n_cols, col_s, busy_len);
    }
  g_array_sort (l->bars, compare_bar_events);
  column_edges_clear (&pl.edges);
  plx_timeline_by_rank_free (by_rank);
  g_free (busy);
  g_free (counts);
}

static double
legend_item_width (PlxTaskKind kind, double font_size)
{
  return 14.0 + 6.0 + plx_render_text_estimate (plx_task_kind_display_name (kind), font_size) + 18.0;
}

/* Lines the legend wraps to in `w` pixels. */
static guint
legend_lines (guint kinds, double w, double font_size)
{
  double x = MARGIN_LEFT_PX;
  guint lines = 1;

  for (guint k = 0; k < PLX_N_KINDS; k++)
    {
      double item_w;
      if (!(kinds & (1u << k)))
        continue;
      item_w = legend_item_width (k, font_size);
      if (x + item_w > w - MARGIN_RIGHT_PX && x > MARGIN_LEFT_PX)
        {
          x = MARGIN_LEFT_PX;
          lines++;
        }
      x += item_w;
    }
  return lines;
}

/* The title and the note ("every 4. stage shown") share the line above the plot, the
 * title from the left, the note from the right: a title too long for what the note
 * leaves is cut short with "…" (the Compare page's strategy names at 1024 px ran past
 * the window's edge and under the note). */
static void
fit_title (PlxTimelineLayout *l, double w)
{
  double note = l->note[0] ? plx_render_text_estimate (l->note, l->font_size * 0.9) + 16.0 : 0.0;
  double room = w - 12.0 - MARGIN_RIGHT_PX - note;
  gsize len = strlen (l->title);

  if (plx_render_text_estimate (l->title, TITLE_FONT_PX) * BOLD_WIDTH <= room)
    return;
  while (len > 0)
    {
      char *prev = g_utf8_find_prev_char (l->title, l->title + len);
      len = prev != NULL ? (gsize) (prev - l->title) : 0;
      l->title[len] = '\0';
      /* Room for the "…" (three bytes) and what stays. */
      if (len + 4 <= sizeof l->title &&
          (plx_render_text_estimate (l->title, TITLE_FONT_PX) + 0.62 * TITLE_FONT_PX) * BOLD_WIDTH <= room)
        break;
    }
  g_strlcat (l->title, "…", sizeof l->title);
}

/* The streams, kinds and ends, passes taken whole. */
static void
survey_passes (Survey *sv, const PlxTimeline *tl)
{
  PlxTimelineIter iter;
  PlxTimelineEvent event;
  PlxTimelinePass pass;

  plx_timeline_iter_init (&iter, tl);
  for (;;)
    {
      if (plx_timeline_iter_peek_pass (&iter, &pass))
        {
          survey_pass (sv, &pass);
          plx_timeline_iter_skip_pass (&iter, &pass);
          continue;
        }
      if (!plx_timeline_iter_next (&iter, &event))
        break;
      survey_event (sv, event.rank, event.stream, event.kind, event.end_s);
    }
}

PlxTimelineLayout *
plx_timeline_layout_new (const PlxTimeline        *tl,
                         const PlxTimelineOptions *o)
{
  return plx_timeline_layout_new_with_steps (tl, o, NULL);
}

PlxTimelineLayout *
plx_timeline_layout_new_with_steps (const PlxTimeline        *tl,
                                    const PlxTimelineOptions *o,
                                    const PlxTimelineSteps   *steps)
{
  PlxTimelineLayout *l = g_new0 (PlxTimelineLayout, 1);
  double w = MAX (o->width_px, 50.0), h = MAX (o->height_px, 50.0);
  double ry0 = o->region_y0, ry1 = o->region_y1 > o->region_y0 ? o->region_y1 : 1.0;
  double region_px = (ry1 - ry0) * h;
  double top_px, bottom_px, plot_px, row_px;
  guint n_ranks = MAX (tl->n_ranks, 1), shown, rows_per_rank = 4;
  RowMode mode = ROWS_ALL_STREAMS;
  g_autofree gint *row_of = NULL;     /* [rank * PLX_N_STREAMS + stream] -> row, or -1 */
  g_autofree gboolean *stream_used = g_new0 (gboolean, (gsize) n_ranks * PLX_N_STREAMS);
  g_autofree double *rank_end = g_new0 (double, n_ranks);
  g_autofree guint8 *stream_kinds = g_new0 (guint8, (gsize) n_ranks * PLX_N_STREAMS); /* kind bits */
  guint kinds_present = 0;
  double t0, t1, plot_w_px;

  /* The first chart of a process spends some 30 M instructions in fontconfig's
   * initialisation before its first text; begun now, it runs beside the layout. */
  plx_render_text_prepare ();
  l->rows = g_array_new (FALSE, FALSE, sizeof (PlxChartRow));
  l->bars = g_array_new (FALSE, FALSE, sizeof (PlxChartBar));
  l->shares = g_array_new (FALSE, FALSE, sizeof (PlxChartShare));
  l->ticks = g_array_new (FALSE, FALSE, sizeof (PlxAxisTick));
  l->legend = g_array_new (FALSE, FALSE, sizeof (PlxLegendItem));
  l->texts = g_string_chunk_new (256);
  l->name_ops = tl->per_device;
  l->steps = steps;
  l->width_px = w;
  l->height_px = h;
  l->font_size = 12.0;
  g_strlcpy (l->title, o->title ? o->title : "", sizeof l->title);

  t0 = o->t1_s > o->t0_s ? o->t0_s : 0.0;
  t1 = o->t1_s > o->t0_s ? o->t1_s : MAX (tl->step_time_s, 1e-12);
  l->t0_s = t0;
  l->t1_s = t1;

  {
    Survey sv = { stream_used, stream_kinds, rank_end, 0, n_ranks };

    (steps != NULL ? steps->survey : survey_passes) (&sv, tl);
    kinds_present = sv.kinds_present;
  }

  /* Vertical space: title, rows, axis, and the legend's lines. */
  top_px = (l->title[0] ? TITLE_PX : 8.0);
  bottom_px = AXIS_PX + (o->legend ? 8.0 + 18.0 * legend_lines (kinds_present, w, l->font_size) : 0.0);
  plot_px = MAX (region_px - top_px - bottom_px, 10.0);
  l->plot_x0 = MIN (MARGIN_LEFT_PX / w, 0.45);
  l->plot_x1 = MAX (1.0 - MARGIN_RIGHT_PX / w, l->plot_x0 + 0.1);
  l->plot_y0 = ry0 + top_px / h;
  l->plot_y1 = ry0 + (top_px + plot_px) / h;
  plot_w_px = (l->plot_x1 - l->plot_x0) * w;

  /* Fewer, taller rows until each is at least this high. */
  l->rank_stride = 1;
  {
    guint used_streams = 0;
    for (guint st = 0; st < PLX_N_STREAMS; st++)
      for (guint r = 0; r < n_ranks; r++)
        if (stream_used[(gsize) r * PLX_N_STREAMS + st])
          {
            used_streams++;
            break;
          }
    rows_per_rank = MAX (used_streams, 1);
  }
  if (plot_px / (n_ranks * rows_per_rank) < 14.0)
    {
      mode = ROWS_COMPUTE_AND_COMM;
      rows_per_rank = 2;
    }
  if (plot_px / (n_ranks * rows_per_rank) < 10.0)
    {
      mode = ROWS_COMPUTE_ONLY;
      rows_per_rank = 1;
    }
  while (plot_px / ((n_ranks + l->rank_stride - 1) / l->rank_stride) < 4.0)
    l->rank_stride++;
  shown = (n_ranks + l->rank_stride - 1) / l->rank_stride;
  if (l->rank_stride > 1)
    snprintf (l->note, sizeof l->note, tl->per_device ? _("every %u. GPU shown (%u of %u)")
                                                      : _("every %u. stage shown (%u of %u)"),
              l->rank_stride, shown, n_ranks);
  fit_title (l, w);

  /* Rows, top to bottom: stage 0 first. */
  row_of = g_new (gint, (gsize) n_ranks * PLX_N_STREAMS);
  for (gsize i = 0; i < (gsize) n_ranks * PLX_N_STREAMS; i++)
    row_of[i] = -1;
  {
    guint total_rows = 0;
    for (guint r = 0; r < n_ranks; r += l->rank_stride)
      for (guint st = 0; st < PLX_N_STREAMS; st++)
        {
          gboolean any_comm = FALSE;
          if (mode == ROWS_ALL_STREAMS && st != PLX_STREAM_COMPUTE && !stream_used[(gsize) r * PLX_N_STREAMS + st])
            continue;
          if (mode == ROWS_COMPUTE_ONLY && st != PLX_STREAM_COMPUTE)
            continue;
          if (mode == ROWS_COMPUTE_AND_COMM && st != PLX_STREAM_COMPUTE)
            {
              if (st != PLX_STREAM_TP)
                continue;
              for (guint c = PLX_STREAM_TP; c < PLX_N_STREAMS; c++)
                any_comm |= stream_used[(gsize) r * PLX_N_STREAMS + c];
              if (!any_comm)
                continue;
            }
          total_rows++;
        }
    row_px = plot_px / MAX (total_rows, 1);
  }
  for (guint r = 0; r < n_ranks; r += l->rank_stride)
    for (guint st = 0; st < PLX_N_STREAMS; st++)
      {
        PlxChartRow row;
        gboolean merged_comm = mode == ROWS_COMPUTE_AND_COMM && st != PLX_STREAM_COMPUTE;
        gboolean any_comm = FALSE;

        if (mode == ROWS_ALL_STREAMS && st != PLX_STREAM_COMPUTE && !stream_used[(gsize) r * PLX_N_STREAMS + st])
          continue;
        if (mode == ROWS_COMPUTE_ONLY && st != PLX_STREAM_COMPUTE)
          continue;
        if (merged_comm)
          {
            if (st != PLX_STREAM_TP)
              continue;
            for (guint c = PLX_STREAM_TP; c < PLX_N_STREAMS; c++)
              any_comm |= stream_used[(gsize) r * PLX_N_STREAMS + c];
            if (!any_comm)
              continue;
          }
        row.rank = r;
        row.stream = merged_comm ? -1 : (gint) st;
        row.y0 = l->plot_y0 + l->rows->len * row_px / h;
        row.y1 = row.y0 + row_px / h * (row_px >= 6.0 ? 0.86 : 1.0);
        row.busy_x1 = l->plot_x0 + CLAMP ((rank_end[r] - t0) / (t1 - t0), 0.0, 1.0) * (l->plot_x1 - l->plot_x0);
        if (st == PLX_STREAM_COMPUTE)
          snprintf (row.label, sizeof row.label, tl->per_device ? _("GPU %u") : _("stage %u"), r);
        else
          snprintf (row.label, sizeof row.label, "%s", merged_comm ? _("comm") : plx_stream_to_string (st));
        if (merged_comm)
          for (guint c = PLX_STREAM_TP; c < PLX_N_STREAMS; c++)
            row_of[(gsize) r * PLX_N_STREAMS + c] = (gint) l->rows->len;
        else
          row_of[(gsize) r * PLX_N_STREAMS + st] = (gint) l->rows->len;
        g_array_append_val (l->rows, row);
      }

  /* Bars: events at least MIN_BAR_PX wide as they are; narrower ones as each pixel
   * column's busy share per kind. */
  {
    guint n_cols = (guint) ceil (plot_w_px) + 1;
    double col0_px = l->plot_x0 * w, col_s = (t1 - t0) / plot_w_px;
    Columns *cols = g_new0 (Columns, MAX (l->rows->len, 1));
    guint8 *row_kinds = g_new0 (guint8, MAX (l->rows->len, 1));
    gsize busy_len = 0, max_kinds = 1;
    SmoothScratch scratch;

    G_STATIC_ASSERT (PLX_N_KINDS <= 8);
    for (gsize i = 0; i < (gsize) n_ranks * PLX_N_STREAMS; i++)
      if (row_of[i] >= 0)
        row_kinds[row_of[i]] |= stream_kinds[i];
    for (guint ri = 0; ri < l->rows->len; ri++)
      {
        memset (cols[ri].slot, -1, sizeof cols[ri].slot);
        for (guint k = 0; k < PLX_N_KINDS; k++)
          if (row_kinds[ri] & (1u << k))
            {
              cols[ri].slot[k] = (gint8) cols[ri].n_kinds;
              cols[ri].kind[cols[ri].n_kinds++] = (guint8) k;
            }
        busy_len += (gsize) n_cols * cols[ri].n_kinds;
        max_kinds = MAX (max_kinds, cols[ri].n_kinds);
      }
    scratch.out = g_new (double, (gsize) n_cols * max_kinds);
    scratch.total = g_new (double, n_cols);
    scratch.major = g_new (guint8, n_cols);
    (steps != NULL ? steps->place : layout_by_rank) (l, tl, cols, &scratch, row_of, n_ranks, n_cols, t0, t1, col0_px,
                                                     col_s, busy_len);
    g_free (scratch.out);
    g_free (scratch.total);
    g_free (scratch.major);
    g_free (row_kinds);
    g_free (cols);
  }

  /* Time axis: round ticks across the window, about one per 110 px. */
  plx_axis_time_ticks (t0, t1, MAX ((guint) (plot_w_px / 110.0), 2), l->ticks);
  for (guint i = 0; i < l->ticks->len; i++)
    {
      PlxAxisTick *t = &g_array_index (l->ticks, PlxAxisTick, i);
      t->position = l->plot_x0 + t->position * (l->plot_x1 - l->plot_x0);
    }

  /* Legend: the kinds that appear, left to right, wrapping. */
  if (o->legend)
    {
      double x = l->plot_x0 * w, y = (l->plot_y1 * h) + AXIS_PX + 4.0;
      for (guint k = 0; k < PLX_N_KINDS; k++)
        {
          PlxLegendItem item;
          double item_w;
          if (!(kinds_present & (1u << k)))
            continue;
          g_strlcpy (item.label, plx_task_kind_display_name (k), sizeof item.label);
          item_w = legend_item_width (k, l->font_size);
          if (x + item_w > w - MARGIN_RIGHT_PX && x > l->plot_x0 * w)
            {
              x = l->plot_x0 * w;
              y += 18.0;
            }
          item.x = x / w;
          item.y = y / h;
          item.kind = (guint8) k;
          g_array_append_val (l->legend, item);
          x += item_w;
        }
    }
  return l;
}

void
plx_timeline_layout_share_bar (const PlxTimelineLayout *l,
                               guint                    index,
                               PlxChartBar             *bar)
{
  const PlxChartShare *share = &g_array_index (l->shares, PlxChartShare, index);
  const PlxChartShare *below = index > 0 ? share - 1 : NULL;
  double col0_px = l->plot_x0 * l->width_px;

  bar->x0 = (col0_px + share->column) / l->width_px;
  bar->x1 = (col0_px + share->column + 1.0) / l->width_px;
  bar->y0 = share->y0;
  /* Shares stack from the row's bottom, one on the other, as emit_columns made them. */
  bar->y1 = below != NULL && below->row == share->row && below->column == share->column
              ? below->y0 : g_array_index (l->rows, PlxChartRow, share->row).y1;
  bar->kind = share->kind;
  bar->show_label = FALSE;
  bar->aggregate = TRUE;
  bar->micro_batch = PLX_NO_MICRO_BATCH;
  bar->event = share->event;
  bar->n_events = share->n_events;
  bar->text = NULL;
}

gint
plx_timeline_layout_hit (const PlxTimelineLayout *l,
                         double                   x,
                         double                   y)
{
  double slop = 1.5 / l->width_px;

  /* The shares were the last bars laid out, so they are looked at first. */
  for (guint i = l->shares->len; i-- > 0;)
    {
      PlxChartBar b;
      plx_timeline_layout_share_bar (l, i, &b);
      if (y >= b.y0 && y <= b.y1 && x >= b.x0 - slop && x <= b.x1 + slop)
        return (gint) b.event;
    }
  for (guint i = l->bars->len; i-- > 0;)
    {
      const PlxChartBar *b = &g_array_index (l->bars, PlxChartBar, i);
      if (y >= b->y0 && y <= b->y1 && x >= b->x0 - slop && x <= b->x1 + slop)
        return (gint) b->event;
    }
  return -1;
}

/* (int) round (v), without round's call where it is exact (the build targets
 * baseline x86-64, which has no rounding instruction, and a quarter of a million
 * shares take two each): half away from zero, from the truncation and the remainder
 * v - trunc (v), which is exact (|v| < 2^52, here within int's range). */
static inline int
round_int (double v)
{
  double t;

  if (!(fabs (v) < 2147483647.0))
    return (int) round (v);
  t = (double) (gint64) v;
  if (v - t >= 0.5)
    t += 1.0;
  else if (v - t <= -0.5)
    t -= 1.0;
  return (int) t;
}

/* The pixel columns of pixel column `column` of the layout, unclamped. */
static inline void
column_x_pixels (const PlxTimelineLayout *l, guint column, double width, double ox, double sx, int *x0, int *x1)
{
  double col0_px = l->plot_x0 * l->width_px;
  double bx0 = (col0_px + column) / l->width_px, bx1 = (col0_px + column + 1.0) / l->width_px;

  *x0 = (int) floor ((bx0 * width - ox) * sx);
  *x1 = MAX ((int) floor ((bx1 * width - ox) * sx), *x0 + 1);
}

/* column_pixels for the shares in turn, with less arithmetic: a share's x extent
 * depends on its column only, so it comes from a table made once a render, and its
 * bottom edge is the share below's top (the same double, so the same rounding) or
 * its row's bottom, rounded once a row. The same expressions give the same pixels
 * (tests/render/timeline-reference.c finds each share's edges on its own). */
typedef struct
{
  int   *x0, *x1;          /* per column, unclamped */
  guint  n_cols;
  guint  row;              /* the row whose bottom is rounded in row_y1 */
  int    row_y1;
  int    top;              /* the previous share's top, rounded, unclamped */
} SharePixels;

static void
share_pixels_init (SharePixels *sp, const PlxTimelineLayout *l, double width, double ox, double sx)
{
  sp->n_cols = (guint) ceil ((l->plot_x1 - l->plot_x0) * l->width_px) + 1;
  sp->x0 = g_new (int, 2 * (gsize) sp->n_cols);
  sp->x1 = sp->x0 + sp->n_cols;
  for (guint c = 0; c < sp->n_cols; c++)
    column_x_pixels (l, c, width, ox, sx, &sp->x0[c], &sp->x1[c]);
  sp->row = G_MAXUINT;
  sp->row_y1 = 0;
  sp->top = 0;
}

static inline void
share_pixels (SharePixels *sp, const PlxTimelineLayout *l, guint i, double width, double height, double ox,
              double oy, double sx, double sy, int rw, int rh, int *x0, int *x1, int *y0, int *y1)
{
  const PlxChartShare *share = &g_array_index (l->shares, PlxChartShare, i);
  const PlxChartShare *below = i > 0 ? share - 1 : NULL;
  int top = round_int ((share->y0 * height - oy) * sy), bottom;

  if (share->column < sp->n_cols)
    {
      *x0 = sp->x0[share->column];
      *x1 = sp->x1[share->column];
    }
  else
    column_x_pixels (l, share->column, width, ox, sx, x0, x1);
  if (below != NULL && below->row == share->row && below->column == share->column)
    bottom = sp->top;
  else
    {
      if (share->row != sp->row)
        {
          sp->row = share->row;
          sp->row_y1 = round_int ((g_array_index (l->rows, PlxChartRow, share->row).y1 * height - oy) * sy);
        }
      bottom = sp->row_y1;
    }
  sp->top = top;
  *x0 = CLAMP (*x0, 0, rw);
  *x1 = CLAMP (*x1, 0, rw);
  *y0 = CLAMP (top, 0, rh);
  *y1 = CLAMP (bottom, 0, rh);
}

void
plx_timeline_paint_raster (cairo_t *cr, cairo_surface_t *raster, double ox, double oy, double sx, double sy, int y)
{
  cairo_save (cr);
  cairo_translate (cr, ox, oy);
  cairo_scale (cr, 1.0 / sx, 1.0 / sy);
  cairo_set_source_surface (cr, raster, 0, y);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_paint (cr);
  cairo_restore (cr);
}

gboolean
plx_timeline_raster_size (const PlxTimelineLayout *l, cairo_t *cr, double width, double height, double *sx,
                          double *sy, int *rw, int *rh)
{
  *sx = *sy = 1.0;
  if (l->shares->len == 0)
    return FALSE;
  cairo_user_to_device_distance (cr, sx, sy);
  *sx = fabs (*sx);
  *sy = fabs (*sy);
  *rw = (int) ceil ((l->plot_x1 - l->plot_x0) * width * *sx) + 2;
  *rh = (int) ceil ((l->plot_y1 - l->plot_y0) * height * *sy) + 2;
  return !(*rw <= 0 || *rh <= 0 || (gint64) *rw * *rh > 256 * 1024 * 1024 / 4);
}

void
plx_timeline_kind_pixels (const PlxRenderStyle *style, guint32 colors[PLX_N_KINDS])
{
  for (guint k = 0; k < PLX_N_KINDS; k++)
    colors[k] = 0xff000000u | ((guint32) round (style->kind[k].r * 255) << 16) |
                ((guint32) round (style->kind[k].g * 255) << 8) | (guint32) round (style->kind[k].b * 255);
}

/* Paints rows first..end of the strip, whose row 0 is the plot raster's row `origin`,
 * and clears them for the next strip. */
static void
paint_strip (cairo_t *cr, guint32 *pixels, int stride, int rw, int origin, int first, int end,
             double ox, double oy, double sx, double sy)
{
  cairo_surface_t *part;

  if (end <= first)
    return;
  part = cairo_image_surface_create_for_data ((unsigned char *) (pixels + (gsize) first * stride), CAIRO_FORMAT_ARGB32,
                                              rw, end - first, stride * 4);
  plx_timeline_paint_raster (cr, part, ox, oy, sx, sy, origin + first);
  cairo_surface_finish (part);
  cairo_surface_destroy (part);
  memset (pixels + (gsize) first * stride, 0, (gsize) (end - first) * stride * 4);
}

/* Strips as high as the highest row (at `px` pixels per unit of height), so that
 * each share fits in one: a share lies within its row (it is stacked from the row's
 * bottom, the row's shares adding up to at most the row), and its rounded pixel edges
 * are at most a pixel further apart than the row's. The strips' height decides only
 * where the raster is cut, not a pixel of the image. */
static int
strip_height (const PlxTimelineLayout *l, double px)
{
  double highest = 0.0;

  for (guint i = 0; i < l->rows->len; i++)
    {
      const PlxChartRow *row = &g_array_index (l->rows, PlxChartRow, i);
      highest = MAX (highest, (row->y1 - row->y0) * px);
    }
  return MAX ((int) ceil (highest) + 2, 64);
}

/* The column shares as one raster at the device's resolution. Into a vector file it
 * goes whole, as one embedded image. Onto an image (the PNG export, the widget) it
 * goes in strips a few rows of bars high, through one small buffer: the shares are
 * laid out row by row, each bar's pixels are opaque and the rest transparent, so
 * painting strip after strip sets every pixel as the whole raster would, without
 * first touching a plot-sized buffer (7 MB at 1920x1080, which costs more than the
 * drawing where first touching a page is slow; docs/performance.md). */
static void
render_columns (const PlxTimelineLayout *l,
                const PlxRenderStyle    *style,
                cairo_t                 *cr,
                double                   width,
                double                   height)
{
  double sx, sy, ox = l->plot_x0 * width, oy = l->plot_y0 * height;
  int rw, rh, stride, strip_h, origin = 0, dirty0, dirty1 = 0;
  guint32 colors[PLX_N_KINDS];
  cairo_surface_t *raster;
  guint32 *pixels;
  gboolean whole;
  SharePixels sp;

  if (l->steps != NULL)
    {
      l->steps->paint_columns (l, style, cr, width, height);
      return;
    }
  if (!plx_timeline_raster_size (l, cr, width, height, &sx, &sy, &rw, &rh))
    return;
  whole = cairo_surface_get_type (cairo_get_target (cr)) != CAIRO_SURFACE_TYPE_IMAGE;
  strip_h = whole ? rh : MIN (strip_height (l, height * sy), rh);
  dirty0 = strip_h;
  plx_timeline_kind_pixels (style, colors);
  raster = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, rw, strip_h);
  pixels = (guint32 *) (void *) cairo_image_surface_get_data (raster);
  stride = cairo_image_surface_get_stride (raster) / 4;
  cairo_surface_flush (raster);
  share_pixels_init (&sp, l, width, ox, sx);
  for (guint i = 0; i < l->shares->len; i++)
    {
      const PlxChartShare *b = &g_array_index (l->shares, PlxChartShare, i);
      int x0, x1, y0, y1;

      share_pixels (&sp, l, i, width, height, ox, oy, sx, sy, rw, rh, &x0, &x1, &y0, &y1);
      if (!whole && (y0 < origin || y1 > origin + strip_h))
        {
          paint_strip (cr, pixels, stride, rw, origin, dirty0, dirty1, ox, oy, sx, sy);
          if (y1 - y0 > strip_h)
            {
              /* Taller than strip_height allowed for (not seen): a taller strip. */
              cairo_surface_destroy (raster);
              strip_h = y1 - y0;
              raster = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, rw, strip_h);
              pixels = (guint32 *) (void *) cairo_image_surface_get_data (raster);
              stride = cairo_image_surface_get_stride (raster) / 4;
              cairo_surface_flush (raster);
            }
          origin = MAX (y1 - strip_h, 0);
          dirty0 = strip_h;
          dirty1 = 0;
        }
      for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
          pixels[(y - origin) * stride + x] = colors[b->kind];
      if (y1 > y0)
        {
          dirty0 = MIN (dirty0, y0 - origin);
          dirty1 = MAX (dirty1, y1 - origin);
        }
    }
  if (whole)
    {
      cairo_surface_mark_dirty (raster);
      plx_timeline_paint_raster (cr, raster, ox, oy, sx, sy, 0);
    }
  else
    paint_strip (cr, pixels, stride, rw, origin, dirty0, dirty1, ox, oy, sx, sy);
  cairo_surface_destroy (raster);
  g_free (sp.x0);
}

void
plx_timeline_chart_render (const PlxTimelineLayout *l,
                           const PlxRenderStyle    *style,
                           cairo_t                 *cr,
                           double                   width,
                           double                   height)
{
  double px = l->plot_x0 * width, px1 = l->plot_x1 * width;
  double py0 = l->plot_y0 * height, py1 = l->plot_y1 * height;
  double fs = l->font_size;

  cairo_save (cr);

  if (l->title[0])
    plx_render_text (cr, style, l->title, 12.0, py0 - TITLE_PX + 8.0, style->title_size, style->foreground,
                     0.0, 0.0, PLX_TEXT_BOLD);
  if (l->note[0])
    plx_render_text (cr, style, l->note, width - MARGIN_RIGHT_PX, py0 - 6.0, fs * 0.9, style->muted, 1.0, 1.0,
                     PLX_TEXT_NORMAL);

  /* Each row's idle time (the bubble) as its background, up to the rank's end. A
   * label that would run into the one above it is left out (a line of text is some
   * 1.2 em tall, a row may be less): overprinted, neither could be read. */
  {
    double label_bottom = -G_MAXDOUBLE;

    for (guint i = 0; i < l->rows->len; i++)
      {
        const PlxChartRow *row = &g_array_index (l->rows, PlxChartRow, i);
        double y0 = row->y0 * height, y1 = row->y1 * height, size = MIN (fs, (y1 - y0) * 1.1);

        plx_render_set_color (cr, style->idle);
        cairo_rectangle (cr, px, y0, MAX (row->busy_x1 * width - px, 0.0), y1 - y0);
        cairo_fill (cr);
        if (y1 - y0 >= fs * 0.7 && (y0 + y1) / 2.0 - 0.6 * size >= label_bottom)
          {
            plx_render_text (cr, style, row->label, px - 8.0, (y0 + y1) / 2.0, size,
                             row->stream == PLX_STREAM_COMPUTE ? style->foreground : style->muted, 1.0, 0.5,
                             PLX_TEXT_NORMAL);
            label_bottom = (y0 + y1) / 2.0 + 0.6 * size;
          }
      }
  }
  if (l->rows->len > 0 && (g_array_index (l->rows, PlxChartRow, 0).y1 - g_array_index (l->rows, PlxChartRow, 0).y0) * height < fs * 0.7)
    {
      /* Rows too thin to label: name the first and the last, the last only where it
       * clears the first. */
      const PlxChartRow *first = &g_array_index (l->rows, PlxChartRow, 0);
      const PlxChartRow *last = &g_array_index (l->rows, PlxChartRow, l->rows->len - 1);
      plx_render_text (cr, style, first->label, px - 8.0, first->y0 * height, fs, style->foreground, 1.0, 0.0, PLX_TEXT_NORMAL);
      if (last != first && last->y1 * height - first->y0 * height >= 2.4 * fs)
        plx_render_text (cr, style, last->label, px - 8.0, last->y1 * height, fs, style->foreground, 1.0, 1.0,
                         PLX_TEXT_NORMAL);
    }

  /* Grid at the ticks, under the bars. */
  cairo_set_line_width (cr, 1.0);
  plx_render_set_color (cr, style->grid);
  for (guint i = 0; i < l->ticks->len; i++)
    {
      double x = round (g_array_index (l->ticks, PlxAxisTick, i).position * width) + 0.5;
      cairo_move_to (cr, x, py0);
      cairo_line_to (cr, x, py1);
    }
  cairo_stroke (cr);

  /* Single-event bars, one fill per kind. */
  for (guint k = 0; k < PLX_N_KINDS; k++)
    {
      gboolean any = FALSE;
      for (guint i = 0; i < l->bars->len; i++)
        {
          const PlxChartBar *b = &g_array_index (l->bars, PlxChartBar, i);
          double x0, x1;
          if (b->kind != k || b->aggregate)
            continue;
          x0 = b->x0 * width;
          x1 = MAX (b->x1 * width, x0 + 0.6);
          cairo_rectangle (cr, x0, b->y0 * height, x1 - x0, (b->y1 - b->y0) * height);
          any = TRUE;
        }
      if (any)
        {
          plx_render_set_color (cr, style->kind[k]);
          cairo_fill (cr);
        }
    }
  /* Column shares: hundreds of thousands of one-pixel rectangles are drawn as one
   * raster at the device's resolution, painted once (in SVG and PDF, an embedded
   * image), which keeps a dense timeline as fast to draw as a sparse one. */
  render_columns (l, style, cr, width, height);

  /* A program's ops run back to back: a hairline of the background where one ends
   * and the next begins keeps each (an all-reduce bucket, a kernel) a bar of its own. */
  if (l->name_ops)
    {
      for (guint i = 0; i < l->bars->len; i++)
        {
          const PlxChartBar *b = &g_array_index (l->bars, PlxChartBar, i);
          double x = round (b->x0 * width);
          if (b->aggregate || (b->x1 - b->x0) * width < 4.0)
            continue;
          cairo_move_to (cr, x + 0.5, b->y0 * height);
          cairo_line_to (cr, x + 0.5, b->y1 * height);
        }
      plx_render_set_color (cr, style->background);
      cairo_stroke (cr);
    }

  for (guint i = 0; i < l->bars->len; i++)
    {
      const PlxChartBar *b = &g_array_index (l->bars, PlxChartBar, i);
      char text[16];
      if (!b->show_label && b->text == NULL)
        continue;
      snprintf (text, sizeof text, "%u", b->micro_batch);
      plx_render_text (cr, style, b->text != NULL ? b->text : text, (b->x0 + b->x1) / 2.0 * width,
                       (b->y0 + b->y1) / 2.0 * height, fs * 0.85,
                       plx_render_style_text_on (style, style->kind[b->kind]), 0.5, 0.5, PLX_TEXT_NORMAL);
    }

  /* Axis. */
  plx_render_set_color (cr, style->muted);
  cairo_move_to (cr, px, round (py1) + 0.5);
  cairo_line_to (cr, px1, round (py1) + 0.5);
  cairo_stroke (cr);
  for (guint i = 0; i < l->ticks->len; i++)
    {
      const PlxAxisTick *t = &g_array_index (l->ticks, PlxAxisTick, i);
      double x = t->position * width;
      double align = i == 0 && t->position <= l->plot_x0 + 1e-9 ? 0.0 : 0.5;
      if (i == l->ticks->len - 1 && x + 30.0 > width)
        align = 1.0;
      plx_render_text (cr, style, t->label, x, py1 + 5.0, fs * 0.95, style->muted, align, 0.0, PLX_TEXT_NORMAL);
    }

  /* Legend. */
  for (guint i = 0; i < l->legend->len; i++)
    {
      const PlxLegendItem *item = &g_array_index (l->legend, PlxLegendItem, i);
      double x = item->x * width, y = item->y * height;
      plx_render_set_color (cr, style->kind[item->kind]);
      cairo_rectangle (cr, x, y + 2.0, 14.0, 12.0);
      cairo_fill (cr);
      plx_render_text (cr, style, item->label, x + 20.0, y + 8.0, fs, style->foreground, 0.0, 0.5, PLX_TEXT_NORMAL);
    }
  cairo_restore (cr);
}

/* ---- the steps' parts, for a test's plain steps (plx-timeline-chart-private.h) ---- */

void
plx_timeline_survey_event (PlxTimelineSurvey *sv, guint rank, guint stream, guint kind, double end_s)
{
  survey_event (sv, rank, stream, kind, end_s);
}

void
plx_timeline_place_event (PlxTimelinePlacer *p, const PlxTimelineEvent *ev, guint i)
{
  place_event (p, ev, i);
}

const double *
plx_timeline_smooth_columns (const PlxTimelineColumns *cols, guint n_cols, PlxTimelineScratch *scratch)
{
  return smooth_columns (cols, n_cols, scratch);
}

void
plx_timeline_emit_columns (PlxTimelineLayout *l, guint row_index, const PlxTimelineColumns *cols,
                           const double *busy, guint n_cols, double col_s, gsize reserved)
{
  emit_columns (l, row_index, cols, busy, n_cols, col_s, reserved);
}

void
plx_timeline_column_x_pixels (const PlxTimelineLayout *l, guint column, double width, double ox, double sx, int *x0,
                              int *x1)
{
  column_x_pixels (l, column, width, ox, sx, x0, x1);
}
