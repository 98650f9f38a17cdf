/* plx-ir-inference.h: serving a graph or ONNX model with a KV cache (docs/inference.md,
 * "Graph and ONNX models"): prefill of the prompt and token-by-token decode, each a
 * forward program of the model at the sizes it runs at, simulated. The model takes
 * its cache as inputs with a symbolic "past" dimension (as Hugging Face exports
 * decoder_with_past_model.onnx): the graph at sequence 1 and past L is one decode
 * step with L cached tokens. */
#pragma once

#include "parallax/plx-cluster.h"
#include "plx-ir.h"

G_BEGIN_DECLS

typedef struct
{
  const char        *path;         /* .onnx, or a graph JSON with those dimensions */
  const char *const *dim_names;    /* the model's other symbolic sizes */
  const gint64      *dim_values;
  guint              n_dims;
  const char        *batch_dim;    /* NULL: "batch" */
  const char        *sequence_dim; /* NULL: "sequence" */
  const char        *past_dim;     /* NULL: "past" */
  guint64            batch;        /* sequences served at once, over all replicas */
  guint64            prompt_length;
  guint64            decode_tokens;
  guint              dp, tp, pp;   /* replicas; tensor and pipeline parallel in each */
  gboolean           cast_floats;  /* floating-point tensors in float_dtype (PlxOnnxOptions) */
  PlxDtype           float_dtype;
} PlxIrInferenceOptions;

typedef struct
{
  guint   n_devices;
  double  prefill_s;           /* the prompt through the model: time to first token */
  double  decode_first_s;      /* one token with the prompt cached */
  double  decode_last_s;       /* the last token, the cache at its longest */
  double  decode_per_token_s;  /* mean over the tokens generated */
  double  decode_s;
  double  step_s;              /* prefill and decode */
  double  tokens_per_s;        /* generated, all replicas */
  double  mfu;
  /* Per GPU: weights and the cache at its longest split over tp x pp, and the
   * fullest GPU's peak in the last decode step (everything it holds). */
  double  weight_bytes;
  double  kv_cache_bytes;
  double  peak_bytes;
  double  usable_bytes;
  gboolean fits_in_memory;
} PlxIrInferenceReport;

gboolean plx_ir_inference_run (const PlxIrInferenceOptions *options,
                               const PlxCluster            *cluster,
                               PlxIrInferenceReport        *report,
                               GError                     **error);

G_END_DECLS
