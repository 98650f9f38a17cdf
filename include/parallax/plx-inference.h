/* plx-inference.h: serving a transformer - the prompt's prefill and the token-by-token
 * decode with a KV cache, over tensor, pipeline and data parallelism (docs/inference.md). */
#pragma once

#include <json-glib/json-glib.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-strategy.h"

G_BEGIN_DECLS

typedef struct
{
  guint64  batch_per_replica;        /* sequences each data-parallel replica serves at once */
  double   prefill_time_s;           /* every prompt through every stage: time to first token */
  double   decode_time_per_token_s;  /* one decode step, the mean over the steps */
  double   decode_time_s;            /* all decode_tokens steps */
  double   request_time_s;           /* prefill + decode: a request from prompt to last token */
  double   tokens_per_s;             /* tokens generated a second by all replicas */
  double   decode_flops;             /* matmul FLOPs of one decode step, one replica */
  double   mfu_decode;               /* decode's model FLOPs utilisation */
  /* Per GPU, on the fullest pipeline stage. */
  double   weights_bytes;
  double   kv_cache_bytes;           /* prompt + decode tokens of every sequence served */
  double   activation_bytes;         /* the largest prefill op's working set, and the logits */
  double   total_bytes;              /* the three, plus the cluster's reserved bytes */
  gboolean fits_in_memory;
} PlxInferenceReport;

/* The strategy's workload is inference (plx_strategy_resolve checked it): its
 * global_batch_size sequences of prompt_length tokens, decode_tokens generated each. */
gboolean plx_inference_run (const PlxModel      *model,
                            const PlxCluster    *cluster,
                            const PlxStrategy   *strategy,
                            PlxInferenceReport  *report,
                            GError             **error);

/* The report as simulate prints it (docs/formats.md, "Inference"). */
JsonNode *plx_inference_report_to_json (const PlxInferenceReport *report);
char     *plx_inference_report_to_text (const PlxInferenceReport *report,
                                        const PlxStrategy        *strategy);

G_END_DECLS
