/**
 * SECTION:plx-inference
 * @title: plx-inference.h
 * @short_description: serving a transformer
 *
 * Serving a transformer - the prompt's prefill and the token-by-token decode with a
 * KV cache, over tensor, pipeline and data parallelism (docs/inference.md).
 */
#pragma once

#include <json-glib/json-glib.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-strategy.h"

G_BEGIN_DECLS

/**
 * PlxInferenceReport:
 * @batch_per_replica: sequences each data-parallel replica serves at once
 * @prefill_time_s: every prompt through every stage: time to first token
 * @decode_time_per_token_s: one decode step, the mean over the steps
 * @decode_time_s: all decode_tokens steps
 * @request_time_s: prefill + decode: a request from prompt to last token
 * @tokens_per_s: tokens generated a second by all replicas
 * @decode_flops: matmul FLOPs of one decode step, one replica
 * @mfu_decode: decode's model FLOPs utilisation
 * @weights_bytes: the stage's weights
 * @kv_cache_bytes: prompt + decode tokens of every sequence served
 * @activation_bytes: the largest prefill op's working set, and the logits
 * @total_bytes: the three, plus the cluster's reserved bytes
 * @fits_in_memory: whether @total_bytes is within one GPU's HBM
 *
 * What plx_inference_run() predicts. The memory figures are per GPU, on the fullest
 * pipeline stage.
 */
typedef struct
{
  guint64  batch_per_replica;
  double   prefill_time_s;
  double   decode_time_per_token_s;
  double   decode_time_s;
  double   request_time_s;
  double   tokens_per_s;
  double   decode_flops;
  double   mfu_decode;
  double   weights_bytes;
  double   kv_cache_bytes;
  double   activation_bytes;
  double   total_bytes;
  gboolean fits_in_memory;
} PlxInferenceReport;

/**
 * plx_inference_run:
 * @model: the model
 * @cluster: the cluster
 * @strategy: a resolved strategy whose workload is inference
 * @report: (out caller-allocates): the prediction; zeroed first
 * @error: return location for a #GError, or %NULL
 *
 * Predicts serving: the strategy's workload is inference (plx_strategy_resolve()
 * checked it): its global_batch_size sequences of prompt_length tokens,
 * decode_tokens generated each.
 *
 * Returns: %TRUE on success; %FALSE with a %PLX_ERROR_INCONSISTENT error when the
 *   strategy is not a resolved inference strategy
 */
gboolean plx_inference_run (const PlxModel      *model,
                            const PlxCluster    *cluster,
                            const PlxStrategy   *strategy,
                            PlxInferenceReport  *report,
                            GError             **error);

/**
 * plx_inference_report_to_json:
 * @report: a report
 *
 * Returns: (transfer full): the report as simulate --json prints it
 *   (docs/formats.md, "Inference")
 */
JsonNode *plx_inference_report_to_json (const PlxInferenceReport *report);
/**
 * plx_inference_report_to_text:
 * @report: a report
 * @strategy: the strategy it was run with, for the workload's sizes
 *
 * Returns: (transfer full): the report as simulate prints it, with units
 *   (docs/formats.md, "Inference")
 */
char     *plx_inference_report_to_text (const PlxInferenceReport *report,
                                        const PlxStrategy        *strategy);

G_END_DECLS
