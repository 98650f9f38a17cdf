/**
 * SECTION:plx-report
 * @title: plx-report.h
 * @short_description: what an engine predicts for one step
 *
 * What an engine predicts for one step (FORMATS.md §3, simulate --json).
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * PlxMemCategory:
 * @PLX_MEM_WEIGHTS: the parameters, "weights"
 * @PLX_MEM_GRADIENTS: their gradients, "gradients"
 * @PLX_MEM_OPTIMIZER: the optimizer's state, "optimizer"
 * @PLX_MEM_ACTIVATIONS: activations kept for backward, "activations"
 * @PLX_MEM_OTHER: communication buffers (pipeline sends and receives, the tensor-parallel
 *   gather, ZeRO-3's prefetched weights), "other"
 * @PLX_N_MEM: the number of categories, not a category
 *
 * The parts of a GPU's memory in a report; the quoted names are the keys of
 * simulate --json's memory_bytes (plx_mem_category_to_string()).
 */
typedef enum
{
  PLX_MEM_WEIGHTS,
  PLX_MEM_GRADIENTS,
  PLX_MEM_OPTIMIZER,
  PLX_MEM_ACTIVATIONS,
  PLX_MEM_OTHER,
  PLX_N_MEM
} PlxMemCategory;

/**
 * PlxTimeCategory:
 * @PLX_TIME_COMPUTE: forward and backward compute, "compute"
 * @PLX_TIME_RECOMPUTE: compute repeated in backward by the recompute mode, "recompute"
 * @PLX_TIME_TP_COMM: TP/SP, CP and EP collectives on the critical path, "tp_comm"
 * @PLX_TIME_PP_COMM: stage-to-stage sends, "pp_comm"
 * @PLX_TIME_DP_COMM: data-parallel collectives (ZeRO's included) not hidden behind
 *   compute, "dp_comm"
 * @PLX_TIME_BUBBLE: the pipeline's idle time, "bubble"
 * @PLX_TIME_OPTIMIZER: the optimizer step, "optimizer"
 * @PLX_N_TIME: the number of categories, not a category
 *
 * The parts of one step of the reported GPU's critical path; they sum to the step
 * time. The quoted names are the keys of simulate --json's time_s
 * (plx_time_category_to_string()).
 */
typedef enum
{
  PLX_TIME_COMPUTE,
  PLX_TIME_RECOMPUTE,
  PLX_TIME_TP_COMM,
  PLX_TIME_PP_COMM,
  PLX_TIME_DP_COMM,
  PLX_TIME_BUBBLE,
  PLX_TIME_OPTIMIZER,
  PLX_N_TIME
} PlxTimeCategory;

/**
 * PlxReport:
 * @engine: the engine that answered: "analytical", "event" or "ir" (a static string)
 * @step_time_s: one training step, in seconds
 * @tokens_per_s: tokens trained a second: global batch times sequence length over
 *   the step time
 * @model_flops_per_step: the model's FLOPs in one step
 * @hardware_flops_per_step: the FLOPs the GPUs run in one step, recompute included
 * @mfu: model FLOPs utilisation: @model_flops_per_step over the step time, the GPU
 *   count and one GPU's peak
 * @hfu: hardware FLOPs utilisation: the same with @hardware_flops_per_step
 * @bubble_fraction: the bubble's share of the step time
 * @fits_in_memory: whether @peak_memory_bytes is within @hbm_usable_bytes
 * @peak_memory_bytes: the highest peak of any GPU
 * @memory_bytes: that GPU's memory by #PlxMemCategory
 * @time_s: one step of that GPU's critical path by #PlxTimeCategory, in seconds
 * @n_gpus: the GPUs the strategy uses
 * @reported_stage: the pipeline stage whose GPU has the highest peak
 * @hbm_bytes: capacity of one GPU
 * @hbm_usable_bytes: capacity less the cluster's reserved bytes
 * @stage_forward_s: one micro-batch, slowest stage, forward incl. TP comm
 * @stage_backward_s: same, backward incl. recompute
 * @layer_forward_s: one transformer block, one micro-batch, forward
 * @layer_backward_s: one transformer block, one micro-batch, backward
 *
 * What an engine predicts for one step (FORMATS.md §3). The fields from @n_gpus on
 * are context for readers of the report.
 */
typedef struct _PlxReport
{
  const char *engine;
  double   step_time_s;
  double   tokens_per_s;
  double   model_flops_per_step;
  double   hardware_flops_per_step;
  double   mfu;
  double   hfu;
  double   bubble_fraction;
  gboolean fits_in_memory;
  guint64  peak_memory_bytes;
  guint64  memory_bytes[PLX_N_MEM];
  double   time_s[PLX_N_TIME];

  guint    n_gpus;
  guint    reported_stage;
  guint64  hbm_bytes;
  guint64  hbm_usable_bytes;
  double   stage_forward_s;
  double   stage_backward_s;
  double   layer_forward_s;
  double   layer_backward_s;
} PlxReport;

/**
 * plx_report_copy:
 * @report: a report
 *
 * Copies @report. A report holds no pointers but to static strings: a copy is a
 * copy of its bytes.
 *
 * Returns: (transfer full): the copy
 */
PlxReport  *plx_report_copy (const PlxReport *report);
/**
 * plx_report_free:
 * @report: (transfer full) (nullable): a report
 *
 * Frees @report.
 */
void        plx_report_free (PlxReport *report);

/**
 * plx_mem_category_to_string:
 * @category: a memory category
 *
 * Returns: (transfer none): its key in simulate --json: "weights", "gradients",
 *   "optimizer", "activations" or "other"
 */
const char *plx_mem_category_to_string (PlxMemCategory category);
/**
 * plx_time_category_to_string:
 * @category: a time category
 *
 * Returns: (transfer none): its key in simulate --json: "compute", "recompute",
 *   "tp_comm", "pp_comm", "dp_comm", "bubble" or "optimizer"
 */
const char *plx_time_category_to_string (PlxTimeCategory category);

/**
 * plx_report_to_json:
 * @report: a report
 *
 * Returns: (transfer full): the FORMATS.md simulate --json object
 */
JsonNode   *plx_report_to_json (const PlxReport *report);
/**
 * plx_report_to_text:
 * @report: a report
 *
 * Returns: (transfer full): human-readable text with units
 */
char       *plx_report_to_text (const PlxReport *report);
/**
 * PLX_REPORT_MAX_BYTES:
 *
 * The most memory a report may show: 4 EiB, well inside 64-bit integers.
 */
#define PLX_REPORT_MAX_BYTES 4.6e18
/**
 * plx_report_check:
 * @report: a report
 * @seq_length: the strategy's sequence length, named in the error
 * @micro_batch_size: the strategy's micro-batch size, named in the error
 * @error: return location for a #GError, or %NULL
 *
 * Checks whether every number of the report is one a user can be shown: finite,
 * not negative, memory below %PLX_REPORT_MAX_BYTES.
 *
 * Returns: %TRUE if so; otherwise %FALSE with an error that says which figure ran
 *   past what the arithmetic holds and names the strategy's sizes (sequence length,
 *   micro-batch size) that drive it
 */
gboolean    plx_report_check (const PlxReport *report,
                              guint64          seq_length,
                              guint64          micro_batch_size,
                              GError         **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxReport, plx_report_free)

G_END_DECLS
