/* Navigating the timeline as in Perfetto, driven through the X server (gui-input.h):
 * keys zoom and pan by fixed steps, the toolbar's buttons do the same, the overview
 * moves the window, Shift+drag measures a range, [ and ] step through a row's events
 * with the details below the chart; the tooltip writes work in engineering units and
 * explains what a dense column's height means. The expected numbers follow from the
 * step time T of the built-in default scenario and the pixels clicked. */
#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "plx-chart-view.h"
#include "plx-engine.h"
#include "plx-format.h"
#include "plx-timeline-chart.h"
#include "plx-timeline-pane.h"
#include "gui-env.h"
#include "gui-input.h"

/* ---- engineering units, no display needed ---------------------------------------- */

static void
check_format (char *(*format) (double), double value, const char *expected)
{
  g_autofree char *text = format (value);

  g_assert_cmpstr (text, ==, expected);
}

static void
test_format_flops (void)
{
  /* SI prefixes, three significant digits: 3.35e11 = 335 x 10^9. */
  check_format (plx_format_flops, 3.35e11, "335 GFLOP");
  check_format (plx_format_flops, 0, "0 FLOP");
  check_format (plx_format_flops, 512, "512 FLOP");
  check_format (plx_format_flops, 1.5e3, "1.50 kFLOP");
  check_format (plx_format_flops, 2.5e15, "2.50 PFLOP");
  /* 999.6 rounds to 1000 at three digits: the next prefix, not "1000 FLOP". */
  check_format (plx_format_flops, 999.6, "1.00 kFLOP");
  check_format (plx_format_flops, 4.56e7, "45.6 MFLOP");
}

static void
test_format_bytes (void)
{
  /* Binary prefixes: 9.91e8 / 2^20 = 945.09. */
  check_format (plx_format_bytes, 9.91e8, "945 MiB");
  check_format (plx_format_bytes, 512, "512 B");
  check_format (plx_format_bytes, 0, "0 B");
  check_format (plx_format_bytes, 1536, "1.50 KiB");
  /* 2^20 - 1 bytes = 1023.999 KiB: four digits, so 0.99999905 MiB, which rounds to 1.00. */
  check_format (plx_format_bytes, 1048575, "1.00 MiB");
  /* 80 x 2^30: an A100's HBM. */
  check_format (plx_format_bytes, 85899345920.0, "80.0 GiB");
}

/* ---- the pane in a window --------------------------------------------------------- */

static PlxResult *the_result;

/* The built-in default scenario, computed as the window's worker computes it. */
static PlxResult *
default_result (void)
{
  if (the_result == NULL)
    {
      g_autoptr (JsonNode) def = plx_scenario_default_json ();
      g_autofree char *cwd = g_get_current_dir ();
      GError *error = NULL;
      the_result = plx_engine_compute_sync (def, cwd, "built-in default scenario", &error);
      g_assert_no_error (error);
      g_assert_nonnull (the_result);
    }
  return the_result;
}

typedef struct
{
  GtkWindow       *window;
  PlxTimelinePane *pane;
  PlxChartView    *chart;
  double           T;          /* the step time */
  double           px0, px1;   /* the plot's time axis in chart pixels */
} Pane;

static gboolean
drawn (gpointer data)
{
  Pane *p = data;
  return plx_chart_view_get_n_draws (p->chart) > 0 && gtk_widget_get_width (GTK_WIDGET (p->chart)) > 0;
}

static void
open_pane (Pane *p)
{
  p->window = GTK_WINDOW (gtk_window_new ());
  p->pane = PLX_TIMELINE_PANE (plx_timeline_pane_new ());
  p->chart = plx_timeline_pane_get_chart (p->pane);
  gtk_window_set_default_size (p->window, 1600, 900);
  gtk_window_set_child (p->window, GTK_WIDGET (p->pane));
  plx_chart_view_set_result (p->chart, default_result ());
  gtk_window_present (p->window);
  g_assert_true (gi_wait (drawn, p, 10000));
  gi_pump (200);
  gi_focus_window (p->window);
  p->T = default_result ()->timeline->step_time_s;
  plx_chart_view_get_plot_bounds (p->chart, &p->px0, &p->px1);
  /* The default scenario's step (GPT-3 175B on 64 A100s) is about 12.9 s. */
  g_assert_cmpfloat (p->T, >, 10.0);
  g_assert_cmpfloat (p->T, <, 100.0);
  g_assert_cmpfloat (p->px1 - p->px0, >, 1000.0);
}

static void
close_pane (Pane *p)
{
  gtk_window_destroy (p->window);
  gi_pump (50);
}

static void
assert_window (Pane *p, double t0, double t1)
{
  double a, b;

  gi_pump (30);
  plx_chart_view_get_window (p->chart, &a, &b);
  g_assert_cmpfloat_with_epsilon (a, t0, p->T * 1e-9);
  g_assert_cmpfloat_with_epsilon (b, t1, p->T * 1e-9);
}

/* A click left of the plot (on the row labels): it focuses the chart and selects
 * nothing. */
static void
focus_chart (Pane *p)
{
  GtkWidget *chart = GTK_WIDGET (p->chart);

  gi_click_at (chart, 20, gtk_widget_get_height (chart) / 2);
  g_assert_true (gtk_widget_has_focus (chart));
}

/* ---- 1. keys zoom and pan ------------------------------------------------------------ */

static void
test_keys (void)
{
  Pane p;
  double T, a, b, span;

  open_pane (&p);
  T = p.T;
  focus_chart (&p);
  /* The pointer rests on the row labels, outside the plot: keys zoom around the
   * centre. One step in multiplies the span by 2/3: [T/2 - T/3, T/2 + T/3]. */
  assert_window (&p, 0, T);
  gi_key (NULL, XK_plus);
  assert_window (&p, T / 6, 5 * T / 6);
  /* D and Right pan by a tenth of the span, 2T/30 = T/15. */
  gi_key (NULL, XK_d);
  assert_window (&p, T / 6 + T / 15, 5 * T / 6 + T / 15);
  gi_key (NULL, XK_Right);
  assert_window (&p, 0.3 * T, 29 * T / 30);
  /* Only T/30 is left to the step's end: the window stops there. */
  gi_key (NULL, XK_d);
  assert_window (&p, T / 3, T);
  gi_key (NULL, XK_a);
  assert_window (&p, T / 3 - T / 15, T - T / 15);
  gi_key (NULL, XK_Left);
  assert_window (&p, T / 3 - 2 * T / 15, T - 2 * T / 15);
  /* S zooms out by 3/2 around the centre 0.6T: [0.1T, 1.1T], pushed back into the step. */
  gi_key (NULL, XK_s);
  assert_window (&p, 0, T);
  /* W twice: (2/3)^2 T = 4T/9 around T/2; 0 and Home show the whole step again. */
  gi_key (NULL, XK_w);
  gi_key (NULL, XK_w);
  assert_window (&p, T / 2 - 2 * T / 9, T / 2 + 2 * T / 9);
  gi_key (NULL, XK_0);
  assert_window (&p, 0, T);
  gi_key (NULL, XK_w);
  gi_key (NULL, XK_minus);
  assert_window (&p, 0, T);
  gi_key ("ctrl", XK_equal);
  assert_window (&p, T / 6, 5 * T / 6);
  gi_key (NULL, XK_Home);
  assert_window (&p, 0, T);
  gi_key ("ctrl", XK_equal);
  gi_key ("ctrl", XK_minus);
  assert_window (&p, 0, T);

  /* With the pointer over the plot, the time under it stays put: at pixel x of the
   * plot (fraction f), the new window is [a - f s', a + (1 - f) s'] with a = f T and
   * s' = 2T/3. */
  {
    GtkWidget *chart = GTK_WIDGET (p.chart);
    double x = round (p.px0 + 0.25 * (p.px1 - p.px0)), f = (x - p.px0) / (p.px1 - p.px0);
    gi_move_to (chart, x, gtk_widget_get_height (chart) / 3.0);
    gi_key (NULL, XK_w);
    span = 2 * T / 3;
    assert_window (&p, f * T - f * span, f * T + (1 - f) * span);
    plx_chart_view_get_window (p.chart, &a, &b);
    g_assert_cmpfloat (a, >, 0.0);
  }
  close_pane (&p);
}

/* ---- 2. the toolbar ------------------------------------------------------------------ */

static void
test_buttons (void)
{
  Pane p;
  GtkWidget *in, *out, *reset;
  g_autofree char *whole = NULL, *zoomed = NULL;
  double T;

  open_pane (&p);
  T = p.T;
  in = gi_find_tooltip (GTK_WIDGET (p.pane), "Zoom in (W or +)");
  out = gi_find_tooltip (GTK_WIDGET (p.pane), "Zoom out (S or -)");
  reset = gi_find_tooltip (GTK_WIDGET (p.pane), "Show the whole step (0 or Home)");
  g_assert_nonnull (in);
  g_assert_nonnull (out);
  g_assert_nonnull (reset);
  /* The label: both ends in seconds to the millisecond (the span is over 1 s), then
   * the span with three significant digits, trailing zeros kept ("14.0 s"; T and
   * 2T/3 are between 1 and 100 s). */
  whole = g_strdup_printf ("0.000 s – %.3f s, %#.3g s shown", T, T);
  g_assert_cmpstr (plx_timeline_pane_get_window_text (p.pane), ==, whole);
  gi_click (in);
  assert_window (&p, T / 6, 5 * T / 6);
  zoomed = g_strdup_printf ("%.3f s – %.3f s, %#.3g s shown", T / 6, 5 * T / 6, 2 * T / 3);
  g_assert_cmpstr (plx_timeline_pane_get_window_text (p.pane), ==, zoomed);
  gi_click (out);
  assert_window (&p, 0, T);
  g_assert_cmpstr (plx_timeline_pane_get_window_text (p.pane), ==, whole);
  gi_click (in);
  gi_click (in);
  assert_window (&p, T / 2 - 2 * T / 9, T / 2 + 2 * T / 9);
  gi_click (reset);
  assert_window (&p, 0, T);
  close_pane (&p);
}

/* ---- 3. the overview ----------------------------------------------------------------- */

static void
test_overview (void)
{
  Pane p;
  GtkWidget *strip;
  double T, x0, x1, span, a, b, x, f, pixel_s;

  open_pane (&p);
  T = p.T;
  strip = plx_timeline_pane_get_overview (p.pane);
  g_assert_true (gi_is_shown (strip));
  plx_timeline_pane_get_overview_bounds (p.pane, &x0, &x1);
  g_assert_cmpfloat (x1 - x0, >, 1000.0);
  pixel_s = T / (x1 - x0);
  focus_chart (&p);
  gi_key (NULL, XK_w);
  gi_key (NULL, XK_w);
  span = 4 * T / 9;
  assert_window (&p, T / 2 - span / 2, T / 2 + span / 2);
  /* A click at fraction f of the strip centres the window on f T, span kept. */
  x = round (x0 + 0.4 * (x1 - x0));
  f = (x - x0) / (x1 - x0);
  gi_click_at (strip, x, gtk_widget_get_height (strip) / 2.0);
  plx_chart_view_get_window (p.chart, &a, &b);
  g_assert_cmpfloat_with_epsilon ((a + b) / 2, f * T, pixel_s);
  g_assert_cmpfloat_with_epsilon (b - a, span, T * 1e-9);
  /* A drag carries it along: released at fraction 0.6. */
  {
    double xe = round (x0 + 0.6 * (x1 - x0)), fe = (xe - x0) / (x1 - x0);
    gi_drag (strip, x, gtk_widget_get_height (strip) / 2.0, xe, gtk_widget_get_height (strip) / 2.0, 6, NULL,
             NULL);
    plx_chart_view_get_window (p.chart, &a, &b);
    g_assert_cmpfloat_with_epsilon ((a + b) / 2, fe * T, pixel_s);
  }
  /* Near the start the window stops at 0. */
  gi_click_at (strip, round (x0 + 0.05 * (x1 - x0)), gtk_widget_get_height (strip) / 2.0);
  assert_window (&p, 0, span);
  close_pane (&p);
}

/* ---- 4. measuring a range ------------------------------------------------------------ */

/* Stage `rank`'s compute stream: the share of [a, b] it is busy (its events do not
 * overlap, so their overlaps with the range add up). */
static double
compute_busy (const PlxTimeline *tl, guint rank, double a, double b)
{
  PlxTimelineIter ev_iter;
  PlxTimelineEvent ev_buf;
  double busy = 0;

  for (plx_timeline_iter_init (&ev_iter, tl); plx_timeline_iter_next (&ev_iter, &ev_buf);)
    {
      const PlxTimelineEvent *ev = &ev_buf;
      double o = MIN (ev->end_s, b) - MAX (ev->start_s, a);
      if (ev->rank == rank && ev->stream == PLX_STREAM_COMPUTE && o > 0)
        busy += o;
    }
  return busy / (b - a);
}

static void
test_measure (void)
{
  Pane p;
  GtkWidget *chart;
  double T, pw, xa, xb, ya, a, b, want_a, want_b;
  const char *details;
  g_autofree char *busy0 = NULL;

  open_pane (&p);
  T = p.T;
  chart = GTK_WIDGET (p.chart);
  pw = p.px1 - p.px0;
  xa = round (p.px0 + 0.25 * pw);
  xb = round (p.px0 + 0.55 * pw);
  ya = round (gtk_widget_get_height (chart) * 0.4);
  g_assert_false (plx_chart_view_get_range (p.chart, NULL, NULL));
  gi_keysym (XK_Shift_L, TRUE);
  gi_drag (chart, xa, ya, xb, ya, 8, NULL, NULL);
  gi_keysym (XK_Shift_L, FALSE);
  gi_flush (60);
  /* The whole step is shown: pixel x is time (x - px0) / pw * T. */
  want_a = (xa - p.px0) / pw * T;
  want_b = (xb - p.px0) / pw * T;
  g_assert_true (plx_chart_view_get_range (p.chart, &a, &b));
  g_assert_cmpfloat_with_epsilon (a, want_a, 0.5 * T / pw);
  g_assert_cmpfloat_with_epsilon (b - a, (xb - xa) / pw * T, 0.5 * T / pw);
  /* The window did not move: Shift+drag measures, it does not pan. */
  assert_window (&p, 0, T);
  /* The details name the duration and stage 0's compute busy share in it. */
  details = plx_chart_view_get_details (p.chart);
  busy0 = g_strdup_printf ("stage 0 %.0f %%", 100 * compute_busy (default_result ()->timeline, 0, a, b));
  g_assert_nonnull (strstr (details, "Range "));
  {
    g_autofree char *dur = g_strdup_printf ("<b>%#.3g s</b>", b - a);
    g_assert_nonnull (strstr (details, dur));
  }
  g_assert_nonnull (strstr (details, busy0));
  /* Escape clears it. */
  gi_key (NULL, XK_Escape);
  g_assert_false (plx_chart_view_get_range (p.chart, NULL, NULL));
  g_assert_null (strstr (plx_chart_view_get_details (p.chart), "Range "));
  (void) want_b;
  close_pane (&p);
}

/* ---- 5. stepping through events with the keyboard ------------------------------------ */

/* The timeline's event `index`, which must exist. */
static PlxTimelineEvent
timeline_event (const PlxTimeline *tl, guint64 index)
{
  PlxTimelineEvent ev;

  g_assert_true (plx_timeline_get_event (tl, index, &ev));
  return ev;
}

/* Stage 0's compute events in the order of their start (ties: timeline order). */
static gint
compare_start (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const PlxTimeline *tl = data;
  guint ia = *(const guint *) pa, ib = *(const guint *) pb;
  double sa = timeline_event (tl, ia).start_s;
  double sb = timeline_event (tl, ib).start_s;

  return sa < sb ? -1 : sa > sb ? 1 : (ia < ib ? -1 : ia > ib);
}

static GArray *
row_events (const PlxTimeline *tl, guint rank, gint stream)
{
  PlxTimelineIter ev_iter;
  PlxTimelineEvent ev_buf;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint));

  for (plx_timeline_iter_init (&ev_iter, tl); plx_timeline_iter_next (&ev_iter, &ev_buf);)
    {
      const PlxTimelineEvent *ev = &ev_buf;
      guint i = (guint) (ev_iter.index - 1);
      if (ev->rank == rank && (gint) ev->stream == stream)
        g_array_append_val (out, i);
    }
  g_array_sort_with_data (out, compare_start, (gpointer) tl);
  return out;
}

static const char *
details_line (Pane *p, guint line)
{
  g_auto (GStrv) lines = g_strsplit (plx_chart_view_get_details (p->chart), "\n", -1);
  static char buf[1024];

  g_assert_cmpuint (g_strv_length (lines), ==, 2);
  g_strlcpy (buf, lines[line], sizeof buf);
  return buf;
}

static gboolean
match_label_containing (GtkWidget *w, gconstpointer text)
{
  return GTK_IS_LABEL (w) && strstr (gtk_label_get_text (GTK_LABEL (w)), text) != NULL &&
         strstr (gtk_label_get_text (GTK_LABEL (w)), "Stage 0, compute stream") != NULL;
}

static void
test_keyboard_selection (void)
{
  PlxTimelineIter ev_iter;
  PlxTimelineEvent ev_buf;
  Pane p;
  const PlxTimeline *tl;
  g_autoptr (GArray) row0 = NULL;
  PlxTimelineEvent first_event, second_event;
  const PlxTimelineEvent *first = &first_event, *second = &second_event;
  double a, b;

  open_pane (&p);
  tl = default_result ()->timeline;
  row0 = row_events (tl, 0, PLX_STREAM_COMPUTE);
  g_assert_cmpuint (row0->len, >, 2);
  first_event = timeline_event (tl, g_array_index (row0, guint, 0));
  second_event = timeline_event (tl, g_array_index (row0, guint, 1));
  focus_chart (&p);
  g_assert_cmpint (plx_chart_view_get_selected (p.chart), ==, -1);
  /* The marked row starts as the first: stage 0's compute stream. ] selects its
   * first event, ] again the one with the next larger start, [ goes back. */
  gi_key (NULL, XK_bracketright);
  g_assert_cmpint (plx_chart_view_get_selected (p.chart), ==, (gint) g_array_index (row0, guint, 0));
  gi_key (NULL, XK_bracketright);
  g_assert_cmpint (plx_chart_view_get_selected (p.chart), ==, (gint) g_array_index (row0, guint, 1));
  g_assert_cmpfloat (second->start_s, >=, first->start_s);
  gi_key (NULL, XK_bracketleft);
  g_assert_cmpint (plx_chart_view_get_selected (p.chart), ==, (gint) g_array_index (row0, guint, 0));
  gi_key ("alt", XK_Right);
  g_assert_cmpint (plx_chart_view_get_selected (p.chart), ==, (gint) g_array_index (row0, guint, 1));

  /* What the tooltip tells is in the details line below the chart. */
  {
    g_autofree char *start = plx_format_time (second->start_s);
    g_autofree char *label = g_markup_escape_text (second->label, -1);
    const char *line = details_line (&p, 0);
    g_assert_nonnull (strstr (line, label));
    g_assert_nonnull (strstr (line, "Stage 0, compute stream"));
    g_assert_nonnull (strstr (line, start));
    /* Shown as a label in the pane, for the eye and for a screen reader. */
    g_assert_nonnull (gi_find (GTK_WIDGET (p.pane), match_label_containing, label));
  }

  /* Zoomed in to (2/3)^8 T = 0.039 T around T/2, far from the row's first events:
   * [ selects the first again and the window pans (span kept) to show it. */
  for (guint i = 0; i < 8; i++)
    gi_key (NULL, XK_w);
  plx_chart_view_get_window (p.chart, &a, &b);
  g_assert_cmpfloat (a, >, first->end_s);
  gi_key (NULL, XK_bracketleft);
  g_assert_cmpint (plx_chart_view_get_selected (p.chart), ==, (gint) g_array_index (row0, guint, 0));
  {
    double a2, b2;
    plx_chart_view_get_window (p.chart, &a2, &b2);
    g_assert_cmpfloat_with_epsilon (b2 - a2, b - a, p.T * 1e-9);
    g_assert_cmpfloat (first->start_s, >=, a2);
    g_assert_cmpfloat (first->end_s, <=, b2);
  }

  /* Down: the next row of the chart as drawn; the selection follows to its event
   * nearest in time to the selected one's middle. */
  {
    PlxTimelineOptions o;
    g_autoptr (PlxTimelineLayout) l = NULL;
    const PlxChartRow *row1;
    PlxTimelineEvent sel;
    double mid = (first->start_s + first->end_s) / 2, best_d = G_MAXDOUBLE;
    gint best = -1;

    plx_timeline_options_init (&o, gtk_widget_get_width (GTK_WIDGET (p.chart)),
                               gtk_widget_get_height (GTK_WIDGET (p.chart)));
    plx_chart_view_get_window (p.chart, &o.t0_s, &o.t1_s);
    l = plx_timeline_layout_new (tl, &o);
    g_assert_cmpuint (l->rows->len, >, 1);
    row1 = &g_array_index (l->rows, PlxChartRow, 1);
    for (plx_timeline_iter_init (&ev_iter, tl); plx_timeline_iter_next (&ev_iter, &ev_buf);)
      {
        const PlxTimelineEvent *ev = &ev_buf;
        guint i = (guint) (ev_iter.index - 1);
        double d;
        if (ev->rank != row1->rank ||
            !(row1->stream == (gint) ev->stream || (row1->stream < 0 && ev->stream != PLX_STREAM_COMPUTE)))
          continue;
        d = mid < ev->start_s ? ev->start_s - mid : mid > ev->end_s ? mid - ev->end_s : 0.0;
        if (d < best_d)
          best_d = d, best = (gint) i;
      }
    g_assert_cmpint (best, >=, 0);
    gi_key (NULL, XK_Down);
    g_assert_cmpint (plx_chart_view_get_selected (p.chart), ==, best);
    sel = timeline_event (tl, (guint64) best);
    g_assert_cmpuint (sel.rank, ==, row1->rank);
    /* Up goes back to stage 0's compute row. */
    gi_key (NULL, XK_Up);
    g_assert_cmpuint (timeline_event (tl, plx_chart_view_get_selected (p.chart)).stream,
                      ==, PLX_STREAM_COMPUTE);
    g_assert_cmpuint (timeline_event (tl, plx_chart_view_get_selected (p.chart)).rank, ==,
                      0);
  }
  /* Escape clears the selection. */
  gi_key (NULL, XK_Escape);
  g_assert_cmpint (plx_chart_view_get_selected (p.chart), ==, -1);
  close_pane (&p);
}

/* The default step's ops last about 0.6 ms against 9 ms per pixel of the whole
 * step: 50 ms of the steady state shows them one by one (34 us per pixel). */
static void
zoom_to_ops (Pane *p)
{
  plx_chart_view_set_window (p->chart, 0.4 * p->T, 0.4 * p->T + 0.05);
  gi_pump (100);
}

/* A click on an event selects it (and its details show below). */
static void
test_click_selects (void)
{
  Pane p;
  PlxTimelineOptions o;
  g_autoptr (PlxTimelineLayout) l = NULL;
  double w, h;
  const PlxChartBar *bar = NULL;

  open_pane (&p);
  zoom_to_ops (&p);
  w = gtk_widget_get_width (GTK_WIDGET (p.chart));
  h = gtk_widget_get_height (GTK_WIDGET (p.chart));
  plx_timeline_options_init (&o, w, h);
  plx_chart_view_get_window (p.chart, &o.t0_s, &o.t1_s);
  l = plx_timeline_layout_new (default_result ()->timeline, &o);
  /* A single-event bar at least 10 px wide and tall. */
  for (guint i = 0; i < l->bars->len && bar == NULL; i++)
    {
      const PlxChartBar *b = &g_array_index (l->bars, PlxChartBar, i);
      if (!b->aggregate && (b->x1 - b->x0) * w >= 10 && (b->y1 - b->y0) * h >= 10)
        bar = b;
    }
  g_assert_nonnull (bar);
  gi_click_at (GTK_WIDGET (p.chart), round ((bar->x0 + bar->x1) / 2 * w), round ((bar->y0 + bar->y1) / 2 * h));
  g_assert_true (gtk_widget_has_focus (GTK_WIDGET (p.chart)));
  g_assert_cmpint (plx_chart_view_get_selected (p.chart), ==, (gint) bar->event);
  close_pane (&p);
}

/* ---- 6. the tooltip ------------------------------------------------------------------ */

static PlxTimelineLayout *
pane_layout (Pane *p)
{
  PlxTimelineOptions o;

  plx_timeline_options_init (&o, gtk_widget_get_width (GTK_WIDGET (p->chart)),
                             gtk_widget_get_height (GTK_WIDGET (p->chart)));
  plx_chart_view_get_window (p->chart, &o.t0_s, &o.t1_s);
  return plx_timeline_layout_new (default_result ()->timeline, &o);
}

static void
test_tooltip_units (void)
{
  Pane p;
  g_autoptr (PlxTimelineLayout) l = NULL;
  const PlxTimeline *tl = default_result ()->timeline;
  double w, h;
  guint checked = 0;

  open_pane (&p);
  zoom_to_ops (&p);
  w = gtk_widget_get_width (GTK_WIDGET (p.chart));
  h = gtk_widget_get_height (GTK_WIDGET (p.chart));
  l = pane_layout (&p);
  /* A compute event (FLOP and bytes) and a communication event (bytes). */
  for (guint i = 0; i < l->bars->len && checked < 2; i++)
    {
      const PlxChartBar *b = &g_array_index (l->bars, PlxChartBar, i);
      PlxTimelineEvent bar_event = timeline_event (tl, b->event);
      const PlxTimelineEvent *ev = &bar_event;
      g_autofree char *text = NULL, *flops = NULL, *bytes = NULL;
      if (b->aggregate || (b->x1 - b->x0) * w < 6 || ev->bytes <= 0 ||
          (checked == 0 ? ev->flops <= 0 : ev->stream == PLX_STREAM_COMPUTE))
        continue;
      text = plx_chart_view_describe_at (p.chart, (b->x0 + b->x1) / 2 * w, (b->y0 + b->y1) / 2 * h);
      g_assert_nonnull (text);
      /* Engineering units, never "3.35e+11 FLOP" or "9.91e+08 bytes". */
      g_assert_null (strstr (text, "e+"));
      bytes = plx_format_bytes (ev->bytes);
      g_assert_nonnull (strstr (text, bytes));
      if (ev->flops > 0)
        {
          flops = plx_format_flops (ev->flops);
          g_assert_nonnull (strstr (text, flops));
        }
      checked++;
    }
  g_assert_cmpuint (checked, ==, 2);
  close_pane (&p);
}

/* A column of events narrower than a pixel: the tooltip says the bar's height is the
 * share of time the stream is busy, smoothed over five columns, and gives the
 * column's own share. That is summed here from the timeline's events (their overlaps
 * with the column's time), for 25 columns. */
static void
test_dense_tooltip (void)
{
  PlxTimelineIter ev_iter;
  PlxTimelineEvent ev_buf;
  Pane p;
  g_autoptr (PlxTimelineLayout) l = NULL;
  const PlxTimeline *tl = default_result ()->timeline;
  double w, h, span, pw, col_s;
  guint checked = 0;

  open_pane (&p);
  w = gtk_widget_get_width (GTK_WIDGET (p.chart));
  h = gtk_widget_get_height (GTK_WIDGET (p.chart));
  l = pane_layout (&p);
  span = l->t1_s - l->t0_s;
  pw = (l->plot_x1 - l->plot_x0) * w;
  col_s = span / pw;
  for (guint i = 0; i < l->shares->len && checked < 25; i++)
    {
      PlxChartBar bar;
      const PlxChartBar *b = &bar;
      const PlxChartRow *row = NULL;
      double c0, c1, busy = 0.0, shown;
      gboolean all_narrow = TRUE;
      g_autofree char *text = NULL;
      const char *here;

      plx_timeline_layout_share_bar (l, i, &bar);
      if (!b->aggregate || b->n_events < 2)
        continue;
      for (guint r = 0; r < l->rows->len; r++)
        if (b->y0 >= g_array_index (l->rows, PlxChartRow, r).y0 - 1e-9 &&
            b->y1 <= g_array_index (l->rows, PlxChartRow, r).y1 + 1e-9)
          row = &g_array_index (l->rows, PlxChartRow, r);
      g_assert_nonnull (row);
      if (row->stream < 0)
        continue;
      c0 = l->t0_s + (b->x0 * w - l->plot_x0 * w) * col_s;
      c1 = c0 + col_s;
      for (plx_timeline_iter_init (&ev_iter, tl); plx_timeline_iter_next (&ev_iter, &ev_buf);)
        {
          const PlxTimelineEvent *ev = &ev_buf;
          double o = MIN (ev->end_s, c1) - MAX (ev->start_s, c0);
          if (ev->rank != row->rank || (gint) ev->stream != row->stream || o <= 0)
            continue;
          /* Only columns where every event is drawn as a share (under 2 px). */
          if ((ev->end_s - ev->start_s) / col_s >= PLX_TIMELINE_MIN_BAR_PX)
            all_narrow = FALSE;
          busy += o;
        }
      if (!all_narrow || busy <= 0)
        continue;
      text = plx_chart_view_describe_at (p.chart, (b->x0 + b->x1) / 2 * w, (b->y0 + b->y1) / 2 * h);
      g_assert_nonnull (text);
      g_assert_nonnull (strstr (text, "averaged with the two columns on each side; in this column alone"));
      here = strstr (text, "column alone ");
      g_assert_nonnull (here);
      shown = g_ascii_strtod (here + strlen ("column alone "), NULL);
      g_assert_cmpfloat_with_epsilon (shown, 100 * busy / col_s, 0.51);
      checked++;
    }
  g_assert_cmpuint (checked, ==, 25);
  close_pane (&p);
}

int
main (int argc, char **argv)
{
  char *home = gui_env_init (&argc, &argv);
  int status;

  g_test_add_func ("/gui/format/flops", test_format_flops);
  g_test_add_func ("/gui/format/bytes", test_format_bytes);
  g_test_add_func ("/gui/timeline-nav/keys", test_keys);
  g_test_add_func ("/gui/timeline-nav/buttons", test_buttons);
  g_test_add_func ("/gui/timeline-nav/overview", test_overview);
  g_test_add_func ("/gui/timeline-nav/measure", test_measure);
  g_test_add_func ("/gui/timeline-nav/keyboard-selection", test_keyboard_selection);
  g_test_add_func ("/gui/timeline-nav/click-selects", test_click_selects);
  g_test_add_func ("/gui/timeline-nav/tooltip-units", test_tooltip_units);
  g_test_add_func ("/gui/timeline-nav/dense-tooltip", test_dense_tooltip);
  status = g_test_run ();
  g_clear_pointer (&the_result, plx_result_unref);
  return gui_env_finish (home, status);
}
