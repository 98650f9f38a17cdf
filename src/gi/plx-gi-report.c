/* A report through the bindable API (plx-gi.h): every number of
 * `parallax-cli simulate --json` (docs/formats.md §3) through a getter. */
#include "parallax/parallax.h"
#include "base/plx-json.h"

/**
 * plx_report_get_engine:
 * @report: a #PlxReport
 *
 * Returns: (transfer none): the engine that predicted it: "event", "analytical" or "ir"
 */
const char *
plx_report_get_engine (const PlxReport *report)
{
  return report->engine;
}

/**
 * plx_report_get_step_time_s:
 * @report: a #PlxReport
 *
 * Returns: seconds per training step
 */
double
plx_report_get_step_time_s (const PlxReport *report)
{
  return report->step_time_s;
}

/**
 * plx_report_get_tokens_per_s:
 * @report: a #PlxReport
 *
 * Returns: tokens trained per second, all GPUs together
 */
double
plx_report_get_tokens_per_s (const PlxReport *report)
{
  return report->tokens_per_s;
}

/**
 * plx_report_get_model_flops_per_step:
 * @report: a #PlxReport
 *
 * Returns: the model's FLOPs of one step without recomputation (what MFU counts)
 */
double
plx_report_get_model_flops_per_step (const PlxReport *report)
{
  return report->model_flops_per_step;
}

/**
 * plx_report_get_hardware_flops_per_step:
 * @report: a #PlxReport
 *
 * Returns: the FLOPs the GPUs execute in one step, recomputation included
 */
double
plx_report_get_hardware_flops_per_step (const PlxReport *report)
{
  return report->hardware_flops_per_step;
}

/**
 * plx_report_get_mfu:
 * @report: a #PlxReport
 *
 * Returns: model FLOPs utilisation: model FLOPs per second over the GPUs' peak, 0 to 1
 */
double
plx_report_get_mfu (const PlxReport *report)
{
  return report->mfu;
}

/**
 * plx_report_get_hfu:
 * @report: a #PlxReport
 *
 * Returns: hardware FLOPs utilisation: executed FLOPs per second over the GPUs' peak, 0 to 1
 */
double
plx_report_get_hfu (const PlxReport *report)
{
  return report->hfu;
}

/**
 * plx_report_get_bubble_fraction:
 * @report: a #PlxReport
 *
 * Returns: the share of the step the pipeline stands idle
 */
double
plx_report_get_bubble_fraction (const PlxReport *report)
{
  return report->bubble_fraction;
}

/**
 * plx_report_get_fits_in_memory:
 * @report: a #PlxReport
 *
 * Returns: whether the peak fits in the GPU's usable memory
 */
gboolean
plx_report_get_fits_in_memory (const PlxReport *report)
{
  return report->fits_in_memory;
}

/**
 * plx_report_get_peak_memory_bytes:
 * @report: a #PlxReport
 *
 * Returns: the peak memory of the fullest GPU, in bytes
 */
guint64
plx_report_get_peak_memory_bytes (const PlxReport *report)
{
  return report->peak_memory_bytes;
}

/**
 * plx_report_get_hbm_bytes:
 * @report: a #PlxReport
 *
 * Returns: the memory of one GPU, in bytes
 */
guint64
plx_report_get_hbm_bytes (const PlxReport *report)
{
  return report->hbm_bytes;
}

/**
 * plx_report_get_hbm_usable_bytes:
 * @report: a #PlxReport
 *
 * Returns: the memory of one GPU less what the cluster reserves, in bytes
 */
guint64
plx_report_get_hbm_usable_bytes (const PlxReport *report)
{
  return report->hbm_usable_bytes;
}

/**
 * plx_report_get_n_gpus:
 * @report: a #PlxReport
 *
 * Returns: the GPUs of the run
 */
guint
plx_report_get_n_gpus (const PlxReport *report)
{
  return report->n_gpus;
}

/**
 * plx_report_get_reported_stage:
 * @report: a #PlxReport
 *
 * Returns: the pipeline stage whose GPU has the highest peak (the memory figures are its)
 */
guint
plx_report_get_reported_stage (const PlxReport *report)
{
  return report->reported_stage;
}

/**
 * plx_report_get_stage_forward_s:
 * @report: a #PlxReport
 *
 * Returns: seconds of one micro-batch's forward on the slowest stage, TP communication included
 */
double
plx_report_get_stage_forward_s (const PlxReport *report)
{
  return report->stage_forward_s;
}

/**
 * plx_report_get_stage_backward_s:
 * @report: a #PlxReport
 *
 * Returns: seconds of one micro-batch's backward on the slowest stage, recomputation included
 */
double
plx_report_get_stage_backward_s (const PlxReport *report)
{
  return report->stage_backward_s;
}

/**
 * plx_report_get_layer_forward_s:
 * @report: a #PlxReport
 *
 * Returns: seconds of one transformer block's forward, one micro-batch
 */
double
plx_report_get_layer_forward_s (const PlxReport *report)
{
  return report->layer_forward_s;
}

/**
 * plx_report_get_layer_backward_s:
 * @report: a #PlxReport
 *
 * Returns: seconds of one transformer block's backward, one micro-batch
 */
double
plx_report_get_layer_backward_s (const PlxReport *report)
{
  return report->layer_backward_s;
}

/* NULL-terminated lists of the category names, built once from the core's. */
static const char *mem_names[PLX_N_MEM + 1];
static const char *time_names[PLX_N_TIME + 1];

static void
init_names (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      for (guint i = 0; i < PLX_N_MEM; i++)
        mem_names[i] = plx_mem_category_to_string (i);
      for (guint i = 0; i < PLX_N_TIME; i++)
        time_names[i] = plx_time_category_to_string (i);
      g_once_init_leave (&done, 1);
    }
}

/**
 * plx_report_memory_categories:
 *
 * Returns: (transfer none) (array zero-terminated=1): the names of the memory
 *   categories, the keys of "memory_bytes" in the JSON report: "weights",
 *   "gradients", "optimizer", "activations", "other"
 */
const char *const *
plx_report_memory_categories (void)
{
  init_names ();
  return mem_names;
}

/**
 * plx_report_time_categories:
 *
 * Returns: (transfer none) (array zero-terminated=1): the names of the parts of the
 *   step, the keys of "time_s" in the JSON report: "compute", "recompute",
 *   "tp_comm", "pp_comm", "dp_comm", "bubble", "optimizer"
 */
const char *const *
plx_report_time_categories (void)
{
  init_names ();
  return time_names;
}

static gboolean
find_category (const char *const *names,
               const char        *kind,
               const char        *category,
               guint             *index,
               GError           **error)
{
  g_autofree char *known = g_strjoinv (", ", (char **) names);
  g_autofree char *shown = NULL;

  for (guint i = 0; names[i] != NULL; i++)
    if (g_str_equal (names[i], category))
      {
        *index = i;
        return TRUE;
      }
  shown = plx_printable (category);
  g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s category \"%s\" is not one of %s", kind, shown, known);
  return FALSE;
}

/**
 * plx_report_get_memory_bytes:
 * @report: a #PlxReport
 * @category: one of plx_report_memory_categories()
 * @bytes: (out): the bytes of that category on the fullest GPU at its peak
 * @error: return location for a #GError
 *
 * Returns: (skip): %TRUE, or %FALSE with @error naming an unknown category
 */
gboolean
plx_report_get_memory_bytes (const PlxReport *report,
                             const char      *category,
                             guint64         *bytes,
                             GError         **error)
{
  guint i;

  g_return_val_if_fail (report != NULL && category != NULL && bytes != NULL, FALSE);
  if (!find_category (plx_report_memory_categories (), "memory", category, &i, error))
    return FALSE;
  *bytes = report->memory_bytes[i];
  return TRUE;
}

/**
 * plx_report_get_time_s:
 * @report: a #PlxReport
 * @category: one of plx_report_time_categories()
 * @seconds: (out): the seconds of the step spent on it
 * @error: return location for a #GError
 *
 * Returns: (skip): %TRUE, or %FALSE with @error naming an unknown category
 */
gboolean
plx_report_get_time_s (const PlxReport *report,
                       const char      *category,
                       double          *seconds,
                       GError         **error)
{
  guint i;

  g_return_val_if_fail (report != NULL && category != NULL && seconds != NULL, FALSE);
  if (!find_category (plx_report_time_categories (), "time", category, &i, error))
    return FALSE;
  *seconds = report->time_s[i];
  return TRUE;
}

/**
 * plx_report_to_string:
 * @report: a #PlxReport
 *
 * Returns: (transfer full): the report as the JSON object of `parallax-cli simulate
 *   --json` without its description of the scenario (docs/formats.md §3)
 */
char *
plx_report_to_string (const PlxReport *report)
{
  g_autoptr (JsonNode) node = plx_report_to_json (report);

  return json_to_string (node, TRUE);
}
