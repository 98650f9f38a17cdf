/* Benchmark: the real window under Xvfb. GPT-3 175B on 1024 A100 (TP 8, PP 8, DP 16,
 * global batch 1536); a slider moves 100 times (tensor parallelism between 4 and 8)
 * and each time the clock runs from the change to the end of the frame that shows
 * the new charts. Prints the median, the 95th percentile and the slowest, and where
 * the time of that frame went; targets: issue 17's median at most 12 ms, 95th
 * percentile at most 20 ms and none over 33 ms (two frames at 60 Hz); with sampling
 * on (--uncertain), issue 15's median at most 16 ms and 95th percentile at most 33 ms. TP 4 does not fit in memory and TP 8 does, so every
 * change also shows or hides the fit advice. Two series: changes spaced as a user's
 * moves are (the targets' case), and changes fired right after each frame, where the
 * frame clock's pacing alone costs most of a frame interval. */
#include <adwaita.h>
#include <stdio.h>
#include <stdlib.h>

#include <glib/gstdio.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "plx-chart-view.h"
#include "plx-scenario-panel.h"
#include "plx-window.h"

static const char *scenario =
  "{ \"name\": \"GPT-3 175B on 1024 A100\", \"model\": { \"preset\": \"gpt3-175b\" },"
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 128 },"
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 1536, \"micro_batch_size\": 1,"
  "                \"tp\": 8, \"pp\": 8, \"sequence_parallel\": true, \"recompute\": \"selective\" } }";

/* The same with the inter-node bandwidth and the matmul calibration as ranges, so
 * every result also samples them (PLX_GUI_UNCERTAINTY_SAMPLES draws): `--uncertain`. */
static const char *uncertain_scenario =
  "{ \"name\": \"GPT-3 175B on 1024 A100, uncertain network\", \"model\": { \"preset\": \"gpt3-175b\" },"
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 128,"
  "                 \"inter_node\": { \"bw_Bps\": { \"min\": 10e9, \"max\": 25e9 } },"
  "                 \"calibration\": { \"matmul_scale\": { \"mean\": 1.0, \"sd\": 0.05 } } },"
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 1536, \"micro_batch_size\": 1,"
  "                \"tp\": 8, \"pp\": 8, \"sequence_parallel\": true, \"recompute\": \"selective\" } }";

typedef struct
{
  PlxWindow    *window;
  PlxChartView *chart;
  PlxResult    *waiting_for_change_from;
  guint         draws_at_result;
  gint64        started;
  double        elapsed_ms;
  gboolean      done;
  /* The phases of the frame being drawn: when it began, when its layout and its
   * paint (snapshot and render) ended. */
  gint64        frame_start, layout_end, paint_end;
  double        wait_ms, layout_ms, paint_ms;
} Probe;

static void
before_paint (GdkFrameClock *clock, Probe *p)
{
  p->frame_start = g_get_monotonic_time ();
}

/* Connected after GTK's own handlers, so these mark the ends of its work. */
static void
after_layout (GdkFrameClock *clock, Probe *p)
{
  p->layout_end = g_get_monotonic_time ();
}

static void
after_paint_phase (GdkFrameClock *clock, Probe *p)
{
  p->paint_end = g_get_monotonic_time ();
}

static void
after_paint (GdkFrameClock *clock, Probe *p)
{
  PlxResult *r = plx_window_get_result (p->window);

  if (p->done || p->started == 0)
    return;
  /* The frame after the new result arrived that drew the chart. */
  if (r != NULL && r != p->waiting_for_change_from)
    {
      if (p->draws_at_result == G_MAXUINT)
        p->draws_at_result = plx_chart_view_get_n_draws (p->chart) - 1;
      if (plx_chart_view_get_n_draws (p->chart) > p->draws_at_result)
        {
          p->elapsed_ms = (g_get_monotonic_time () - p->started) / 1000.0;
          p->wait_ms = (p->frame_start - p->started) / 1000.0;
          p->layout_ms = (p->layout_end - p->frame_start) / 1000.0;
          p->paint_ms = (p->paint_end - p->layout_end) / 1000.0;
          p->done = TRUE;
        }
    }
}

static void
set_flag (gpointer flag)
{
  *(gboolean *) flag = TRUE;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("plx-bench-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "scenario.json", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  double samples[100], worker[100], drawing[100], wait[100], layout[100], paint[100];
  Probe p = { 0 };
  PlxScenarioPanel *panel;
  GdkFrameClock *clock;
  gint64 deadline;

  gboolean uncertain = argc > 1 && g_str_equal (argv[1], "--uncertain");

  gtk_init ();
  adw_init ();
  g_file_set_contents (path, uncertain ? uncertain_scenario : scenario, -1, NULL);
  p.window = plx_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (p.window), 1600, 1000);
  gtk_window_present (GTK_WINDOW (p.window));
  if (!plx_window_open_file (p.window, file, &error))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  p.chart = PLX_CHART_VIEW (plx_window_get_chart (p.window, "timeline"));
  panel = PLX_SCENARIO_PANEL (plx_window_get_panel (p.window));
  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while ((plx_window_get_result (p.window) == NULL || plx_window_is_busy (p.window) ||
          plx_chart_view_get_n_draws (p.chart) == 0) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (p.window));
  g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint), &p);
  g_signal_connect (clock, "before-paint", G_CALLBACK (before_paint), &p);
  g_signal_connect_after (clock, "layout", G_CALLBACK (after_layout), &p);
  g_signal_connect_after (clock, "paint", G_CALLBACK (after_paint_phase), &p);

  printf ("desktop window under Xvfb, GPT-3 175B on 1024 A100%s, 100 slider changes (TP 4 <-> 8) per series:\n",
          uncertain ? ", 2 uncertain inputs sampled (" G_STRINGIFY (PLX_GUI_UNCERTAINTY_SAMPLES) " draws) per change" : "");
  for (guint series = 0; series < 2; series++)
    {
      for (guint i = 0; i < 100; i++)
        {
          /* Series 0: 20-50 ms idle before each change, as between a user's moves, so
           * changes land at any point of the 60 Hz frame cycle. Series 1: each change
           * straight after the frame before, the worst point: the frame clock then
           * waits out the rest of the frame interval whatever the work. The idle time
           * is spent asleep in the main loop, as the application's is, not spinning
           * (which took one of two cores from the worker). */
          gboolean waited = series != 0;
          if (!waited)
            g_timeout_add_once (20 + (i * 7919) % 31, set_flag, &waited);
          while (!waited)
            g_main_context_iteration (NULL, TRUE);
          p.done = FALSE;
          p.waiting_for_change_from = plx_window_get_result (p.window);
          p.draws_at_result = G_MAXUINT;
          p.started = g_get_monotonic_time ();
          plx_scenario_panel_set_strategy_int (panel, "tp", i % 2 == 0 ? 4 : 8);
          deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
          while (!p.done && g_get_monotonic_time () < deadline)
            g_main_context_iteration (NULL, TRUE);
          samples[i] = p.done ? p.elapsed_ms : 5000.0;
          worker[i] = plx_window_get_result (p.window) ? plx_window_get_result (p.window)->compute_s * 1e3 : 0.0;
          drawing[i] = plx_chart_view_get_last_draw_ms (p.chart);
          wait[i] = p.wait_ms;
          layout[i] = p.layout_ms;
          paint[i] = p.paint_ms;
        }
      gsl_sort (samples, 1, 100);
      gsl_sort (worker, 1, 100);
      gsl_sort (drawing, 1, 100);
      gsl_sort (wait, 1, 100);
      gsl_sort (layout, 1, 100);
      gsl_sort (paint, 1, 100);
      printf ("  %s\n", series == 0 ? (uncertain ? "changes 20-50 ms apart, as a user's moves (targets, issue 15: median <= 16 ms, 95th percentile <= 33 ms):"
                                               : "changes 20-50 ms apart, as a user's moves (targets, issue 17: median <= 12 ms, 95th percentile <= 20 ms, slowest <= 33 ms):")
                                    : "changes straight after the previous frame (bound by the 16.7 ms frame interval):");
      printf ("    change to frame with new charts: median %.1f ms, 95th percentile %.1f ms, slowest %.1f ms\n",
              gsl_stats_median_from_sorted_data (samples, 1, 100),
              gsl_stats_quantile_from_sorted_data (samples, 1, 100, 0.95), samples[99]);
      printf ("    of which the worker's simulation: median %.1f ms; drawing the timeline: median %.1f ms\n",
              gsl_stats_median_from_sorted_data (worker, 1, 100), gsl_stats_median_from_sorted_data (drawing, 1, 100));
      printf ("    the frame that shows them: starts after a median %.1f ms, layout %.1f ms, paint %.1f ms\n",
              gsl_stats_median_from_sorted_data (wait, 1, 100), gsl_stats_median_from_sorted_data (layout, 1, 100),
              gsl_stats_median_from_sorted_data (paint, 1, 100));
    }
  plx_window_get_result (p.window);
  gtk_window_destroy (GTK_WINDOW (p.window));
  g_remove (path);
  g_rmdir (dir);
  return 0;
}
