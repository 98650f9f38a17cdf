/* Serving a graph or ONNX model with a KV cache (plx-ir-inference.h,
 * docs/inference.md). Autoregressive decoding with a key-value cache (Pope et al.
 * 2022, "Efficiently Scaling Transformer Inference", §2): the prompt's P tokens go
 * through the model once (prefill), then each new token once, attending over the
 * keys and values cached for all tokens before it. With the cache as the model's
 * inputs ([batch, heads, past, head_dim], what decoder_with_past exports take),
 * a decode step with L cached tokens is the model's forward graph at sequence 1 and
 * past L: imported at those sizes, spread over tp x pp GPUs by the same transform as
 * training (plx_ir_parallelize, forward ops only), and simulated. Replicas (dp)
 * serve batch / dp sequences each. */
#include <math.h>
#include <string.h>

#include "parallax/plx-error.h"
#include "ir/plx-ir-inference.h"
#include "ir/plx-onnx.h"

typedef struct
{
  double time_s;
  double flops;       /* matmuls and convolutions of one replica */
  double peak_bytes;  /* the fullest GPU's */
  double weight_bytes;
  double kv_bytes;    /* the cache inputs, one replica */
} Point;

static PlxIrGraph *
import_at (const PlxIrInferenceOptions *o, guint64 batch, guint64 seq, guint64 past, GError **error)
{
  guint n = o->n_dims + 3;
  g_autofree const char **names = g_new (const char *, n);
  g_autofree gint64 *values = g_new (gint64, n);
  PlxOnnxOptions opts;

  /* The sizes this step runs at first: the importer takes a name's first value. */
  names[0] = o->batch_dim != NULL ? o->batch_dim : "batch";
  names[1] = o->sequence_dim != NULL ? o->sequence_dim : "sequence";
  names[2] = o->past_dim != NULL ? o->past_dim : "past";
  values[0] = (gint64) batch;
  values[1] = (gint64) seq;
  values[2] = (gint64) past;
  for (guint i = 0; i < o->n_dims; i++)
    {
      names[i + 3] = o->dim_names[i];
      values[i + 3] = o->dim_values[i];
    }
  opts = (PlxOnnxOptions) { names, values, n, FALSE, o->cast_floats, o->float_dtype };
  return plx_onnx_import (o->path, &opts, error);
}

/* The graph inputs that hold the cache: data whose size follows the past dimension
 * (found by importing at two lengths). Returns a set of their names. */
static GHashTable *
cache_inputs (const PlxIrInferenceOptions *o, guint64 batch, GError **error)
{
  g_autoptr (PlxIrGraph) a = import_at (o, batch, 1, 1, error);
  g_autoptr (PlxIrGraph) b = a != NULL ? import_at (o, batch, 1, 2, error) : NULL;
  GHashTable *set;

  if (b == NULL)
    return NULL;
  set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint t = 0; t < a->tensors->len && t < b->tensors->len; t++)
    {
      const PlxIrTensor *x = a->tensors->pdata[t], *y = b->tensors->pdata[t];
      if (x->producer < 0 && y->producer < 0 && g_str_equal (x->name, y->name) &&
          plx_ir_tensor_elements (x) != plx_ir_tensor_elements (y))
        g_hash_table_add (set, g_strdup (x->name));
    }
  if (g_hash_table_size (set) == 0)
    {
      g_hash_table_unref (set);
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                   "%s: no input has the dimension \"%s\": decoding with a KV cache needs the model that takes "
                   "the cache as inputs (Hugging Face: decoder_with_past_model.onnx), or name its dimension "
                   "with --past-dim", o->path, o->past_dim != NULL ? o->past_dim : "past");
      return NULL;
    }
  return set;
}

static gboolean
run_point (const PlxIrInferenceOptions *o, const PlxCluster *cluster, GHashTable *cache, guint64 batch, guint64 seq,
           guint64 past, Point *pt, GError **error)
{
  g_autoptr (PlxIrGraph) g = import_at (o, batch, seq, past, error);
  g_autoptr (PlxIrGraph) spread = NULL;
  const PlxIrGraph *program;
  PlxIrRun run;

  if (g == NULL)
    return FALSE;
  *pt = (Point) { 0 };
  for (guint i = 0; i < g->ops->len; i++)
    {
      const PlxIrOp *op = g->ops->pdata[i];
      if (op->kind == PLX_IR_MATMUL || op->kind == PLX_IR_CONV)
        pt->flops += plx_ir_op_flops (g, op);
    }
  for (guint t = 0; t < g->tensors->len; t++)
    {
      const PlxIrTensor *x = g->tensors->pdata[t];
      if (x->producer >= 0)
        continue;
      if (x->role == PLX_IR_ROLE_WEIGHT)
        pt->weight_bytes += plx_ir_tensor_bytes (x);
      else if (g_hash_table_contains (cache, x->name))
        pt->kv_bytes += plx_ir_tensor_bytes (x);
    }
  program = g;
  if (o->tp > 1 || o->pp > 1)
    {
      PlxIrParallel par = { 1, o->tp, o->pp, 1, PLX_IR_SCHEDULE_1F1B };
      spread = plx_ir_parallelize (g, &par, cluster, o->path, error);
      if (spread == NULL)
        return FALSE;
      program = spread;
    }
  if (!plx_ir_simulate (program, cluster, &run, error))
    return FALSE;
  pt->time_s = run.makespan_s;
  pt->peak_bytes = run.peak_bytes;
  plx_ir_run_clear (&run);
  return TRUE;
}

gboolean
plx_ir_inference_run (const PlxIrInferenceOptions *o,
                      const PlxCluster            *cluster,
                      PlxIrInferenceReport        *r,
                      GError                     **error)
{
  guint dp = MAX (o->dp, 1), tp = MAX (o->tp, 1), pp = MAX (o->pp, 1);
  guint64 per_replica, last_past;
  g_autoptr (GHashTable) cache = NULL;
  Point prefill, first, middle, last;

  memset (r, 0, sizeof *r);
  if (!g_str_has_suffix (o->path, ".onnx"))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                   "%s: a graph JSON has fixed sizes; serving needs an ONNX model whose sequence and past (KV "
                   "cache) dimensions are symbolic", o->path);
      return FALSE;
    }
  if (o->batch == 0 || o->batch % dp != 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: batch %" G_GUINT64_FORMAT " does not split over "
                   "%u replicas (dp)", o->path, o->batch, dp);
      return FALSE;
    }
  if (o->prompt_length == 0 || o->decode_tokens == 0 || o->prompt_length > (1u << 24) ||
      o->decode_tokens > (1u << 24))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: prompt length %" G_GUINT64_FORMAT " and decode "
                   "tokens %" G_GUINT64_FORMAT ": each from 1 to 16777216", o->path, o->prompt_length,
                   o->decode_tokens);
      return FALSE;
    }
  if ((guint64) dp * tp * pp > plx_cluster_get_n_gpus (cluster))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: dp %u x tp %u x pp %u is %" G_GUINT64_FORMAT
                   " GPUs; the cluster \"%s\" has %u", o->path, dp, tp, pp, (guint64) dp * tp * pp, cluster->name,
                   plx_cluster_get_n_gpus (cluster));
      return FALSE;
    }
  per_replica = o->batch / dp;
  cache = cache_inputs (o, per_replica, error);
  if (cache == NULL)
    return FALSE;
  /* Prefill with one cached token: the graph's sizes start at 1 (what a prompt
   * costs beyond a cache of nothing is one token's attention in P + 1). Decode step
   * t (0 to D-1) has the prompt and t generated tokens cached: past P + t. */
  last_past = o->prompt_length + o->decode_tokens - 1;
  if (!run_point (o, cluster, cache, per_replica, o->prompt_length, 1, &prefill, error) ||
      !run_point (o, cluster, cache, per_replica, 1, o->prompt_length, &first, error) ||
      !run_point (o, cluster, cache, per_replica, 1, (o->prompt_length + last_past) / 2, &middle, error) ||
      !run_point (o, cluster, cache, per_replica, 1, last_past, &last, error))
    return FALSE;
  /* Up to three steps: each is simulated, and the mean is theirs. */
  if (o->decode_tokens == 2)
    {
      /* Two steps: Simpson's weights over their mean are the mean. */
      middle.time_s = (first.time_s + last.time_s) / 2.0;
      middle.flops = (first.flops + last.flops) / 2.0;
    }
  r->n_devices = dp * tp * pp;
  r->prefill_s = prefill.time_s;
  r->decode_first_s = first.time_s;
  r->decode_last_s = last.time_s;
  /* A step's time grows with the cache about linearly (the attention's two matmuls
   * and softmax over L; the rest does not change): Simpson's rule over the first,
   * middle and last step is exact for it, and for a bend where the attention turns
   * from memory- to compute-bound close enough. */
  r->decode_per_token_s = o->decode_tokens == 1   ? first.time_s
                          : o->decode_tokens == 3 ? (first.time_s + middle.time_s + last.time_s) / 3.0
                                                  : (first.time_s + 4.0 * middle.time_s + last.time_s) / 6.0;
  r->decode_s = r->decode_per_token_s * (double) o->decode_tokens;
  r->step_s = r->prefill_s + r->decode_s;
  r->tokens_per_s = (double) o->batch * (double) o->decode_tokens / r->decode_s;
  if (cluster->peak_flops[PLX_DTYPE_BF16] > 0.0)
    r->mfu = (prefill.flops + (first.flops + 4.0 * middle.flops + last.flops) / 6.0 * (double) o->decode_tokens) *
             dp / (r->step_s * r->n_devices * cluster->peak_flops[PLX_DTYPE_BF16]);
  r->weight_bytes = last.weight_bytes / (tp * pp);
  r->kv_cache_bytes = last.kv_bytes / (tp * pp);
  r->peak_bytes = MAX (prefill.peak_bytes, last.peak_bytes);
  r->usable_bytes = (double) (cluster->hbm_bytes - cluster->reserved_bytes);
  r->fits_in_memory = r->peak_bytes <= r->usable_bytes;
  return TRUE;
}
