/* Charts through the bindable API (plx-gi.h): the event engine's timeline and
 * memory of one step drawn by src/render, as `parallax-cli simulate --timeline
 * PATH --memory PATH` draws them. */
#include "parallax/parallax.h"

#include "plx-render-export.h"
#include "plx-step-charts.h"
#include "base/plx-json.h"

static gboolean
check_size (const char *what,
            guint       size,
            GError    **error)
{
  /* The CLI's bounds for --width and --height; 0 asks for the default. */
  if (size == 0 || (size >= 16 && size <= 16384))
    return TRUE;
  g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "chart %s: %u is not a size from 16 to 16384 pixels", what,
               size);
  return FALSE;
}

static gboolean
simulate_recorded (const PlxScenario *sc,
                   PlxReport         *report,
                   PlxTimeline      **timeline,
                   PlxMemoryTrace   **trace,
                   GError           **error)
{
  if (sc->strategy->workload == PLX_WORKLOAD_INFERENCE)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                   "%s: an inference scenario; charts and traces are of a training step", sc->source);
      return FALSE;
    }
  return plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, report, NULL, timeline, trace, error);
}

/**
 * plx_scenario_export_chart:
 * @scenario: a #PlxScenario
 * @kind: "timeline" (every stage's compute and communication over one step) or
 *   "memory" (memory by category over the step)
 * @path: (type filename): the file to write; .png, .svg or .pdf chooses the format
 * @width: the chart's width in pixels, 16 to 16384; 0 for the CLI's default
 *   (1600 for the timeline, 1200 for memory)
 * @height: its height in pixels, 16 to 16384; 0 for the CLI's default (900, 800)
 * @error: return location for a #GError
 *
 * Simulates a step with the event engine and draws it as
 * `parallax-cli simulate --timeline PATH` (or `--memory PATH`) does.
 *
 * Returns: %TRUE if the file was written, %FALSE with @error (no partial file is left)
 */
gboolean
plx_scenario_export_chart (const PlxScenario *scenario,
                           const char        *kind,
                           const char        *path,
                           guint              width,
                           guint              height,
                           GError           **error)
{
  g_autoptr (PlxTimeline) timeline = NULL;
  g_autoptr (PlxMemoryTrace) trace = NULL;
  PlxReport report = { 0 };
  PlxRenderStyle style;
  PlxExportFormat format;
  gboolean is_timeline;
  PlxStepCharts chart;

  g_return_val_if_fail (scenario != NULL && kind != NULL && path != NULL, FALSE);
  is_timeline = g_str_equal (kind, "timeline");
  if (!is_timeline && !g_str_equal (kind, "memory"))
    {
      g_autofree char *shown = plx_printable (kind);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "chart \"%s\" is not timeline or memory", shown);
      return FALSE;
    }
  if (!check_size ("width", width, error) || !check_size ("height", height, error) ||
      !plx_export_format_for_path (path, &format, error) ||
      !simulate_recorded (scenario, &report, &timeline, &trace, error))
    return FALSE;

  plx_render_style_init (&style, FALSE, 1.0);
  chart = (PlxStepCharts) { timeline, trace, &report, &style, scenario->name, 0.0, 0.0 };
  if (width == 0)
    width = is_timeline ? 1600 : 1200;
  if (height == 0)
    height = is_timeline ? 900 : 800;
  return plx_render_export (path, width, height, 1.0, &style, is_timeline ? plx_step_charts_draw_timeline : plx_step_charts_draw_memory, &chart,
                            error);
}

/**
 * plx_scenario_export_trace:
 * @scenario: a #PlxScenario
 * @path: (type filename): the file to write
 * @error: return location for a #GError
 *
 * Simulates a step with the event engine and writes its timeline as a Chrome
 * trace (open it in Perfetto or chrome://tracing), as `parallax-cli simulate
 * --trace PATH` does.
 *
 * Returns: %TRUE if the file was written, %FALSE with @error
 */
gboolean
plx_scenario_export_trace (const PlxScenario *scenario,
                           const char        *path,
                           GError           **error)
{
  g_autoptr (PlxTimeline) timeline = NULL;
  g_autoptr (PlxMemoryTrace) trace = NULL;
  PlxReport report = { 0 };

  g_return_val_if_fail (scenario != NULL && path != NULL, FALSE);
  if (!simulate_recorded (scenario, &report, &timeline, &trace, error))
    return FALSE;
  return plx_timeline_write_chrome_trace (timeline, trace, path, error);
}
