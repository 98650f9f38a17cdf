#include <math.h>
#include <string.h>

#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "parallax/plx-strategy.h"
#include "base/plx-minmax.h"
#include "scenario/plx-pipeline-layout.h"

static const char *const schedule_names[] = {
  "gpipe", "1f1b", "interleaved-1f1b", "zero-bubble-h1", "file",
};
static const char *const recompute_names[] = { "none", "selective", "full", "save-dots-except-mlp-input" };
static const char *const workload_names[] = { "training", "inference" };
static const char *const implementation_names[] = { "auto", "megatron", "pytorch", "deepspeed", "jax-xla",
                                                     "pytorch-compile" };
/* What the key implementation accepts: the names above, then aliases, each read as
 * the value implementation_aliases[] gives ("pytorch-eager" is "pytorch"). */
static const char *const implementation_spellings[] = { "auto", "megatron", "pytorch", "deepspeed", "jax-xla",
                                                         "pytorch-compile", "pytorch-eager" };
static const PlxImplementation implementation_aliases[] = { PLX_IMPLEMENTATION_PYTORCH };
static const char *const attention_kernel_names[] = { "auto", "cudnn", "flash-attention-2", "flash-attention-1",
                                                      "triton" };
G_STATIC_ASSERT (G_N_ELEMENTS (implementation_names) == PLX_IMPLEMENTATION_PYTORCH_COMPILE + 1);
G_STATIC_ASSERT (G_N_ELEMENTS (attention_kernel_names) == PLX_ATTENTION_KERNEL_TRITON + 1);
static const char *const grad_dtype_names[] = { "auto", "fp32", "bf16" };
static const char *const cross_entropy_fusion_names[] = { "none", "native", "te" };
G_STATIC_ASSERT (G_N_ELEMENTS (cross_entropy_fusion_names) == PLX_CROSS_ENTROPY_TE + 1);
static const char *const moe_dispatcher_names[] = { "alltoall", "deepep" };
G_STATIC_ASSERT (G_N_ELEMENTS (moe_dispatcher_names) == PLX_MOE_DISPATCHER_DEEPEP + 1);
G_STATIC_ASSERT (G_N_ELEMENTS (grad_dtype_names) == PLX_GRAD_DTYPE_BF16 + 1);
G_STATIC_ASSERT (G_N_ELEMENTS (recompute_names) == PLX_RECOMPUTE_SAVE_DOTS_EXCEPT_MLP_INPUT + 1);
G_STATIC_ASSERT (G_N_ELEMENTS (implementation_spellings) ==
                 G_N_ELEMENTS (implementation_names) + G_N_ELEMENTS (implementation_aliases));

const char *
plx_schedule_to_string (PlxSchedule schedule)
{
  return schedule_names[schedule];
}

const char *
plx_recompute_to_string (PlxRecompute recompute)
{
  return recompute_names[recompute];
}

const char *
plx_workload_to_string (PlxWorkload workload)
{
  return workload_names[workload];
}

PlxStrategy *
plx_strategy_new (void)
{
  PlxStrategy *s = g_new0 (PlxStrategy, 1);

  s->workload = PLX_WORKLOAD_TRAINING;
  s->micro_batch_size = 1;
  s->tp = s->pp = s->cp = s->ep = 1;
  s->virtual_stages = 1;
  s->schedule = PLX_SCHEDULE_1F1B;
  s->recompute = PLX_RECOMPUTE_NONE;
  s->dtype = PLX_DTYPE_BF16;
  s->overlap_dp_comm = TRUE;
  s->grad_bucket_bytes = PLX_GRAD_BUCKET_AUTO;
  s->fp8_param_gather = PLX_FP8_PARAM_GATHER_AUTO;
  s->reshard_after_forward = PLX_RESHARD_AUTO;
  return s;
}

PlxStrategy *
plx_strategy_copy (const PlxStrategy *strategy)
{
  PlxStrategy *s = g_memdup2 (strategy, sizeof *strategy);

  s->schedule_path = g_strdup (strategy->schedule_path);
  s->layers_per_stage = g_memdup2 (strategy->layers_per_stage, sizeof (guint) * strategy->n_layers_per_stage);
  s->pipeline_layout = g_strdup (strategy->pipeline_layout);
  return s;
}

void
plx_strategy_free (PlxStrategy *strategy)
{
  if (strategy == NULL)
    return;
  g_free (strategy->schedule_path);
  g_free (strategy->layers_per_stage);
  g_free (strategy->pipeline_layout);
  g_free (strategy);
}

static gboolean
get_enum (JsonObject         *obj,
          const char         *source,
          const char         *key,
          const char *const  *names,
          guint               n_names,
          guint              *out,
          GError            **error)
{
  const char *value = NULL;
  g_autoptr (GString) allowed = g_string_new (NULL);

  if (!plx_json_get_string (obj, source, "strategy", key, FALSE, &value, error))
    return FALSE;
  if (value == NULL)
    return TRUE;
  for (guint i = 0; i < n_names; i++)
    if (g_str_equal (value, names[i]))
      {
        *out = i;
        return TRUE;
      }
  for (guint i = 0; i < n_names; i++)
    g_string_append_printf (allowed, "%s%s", i ? ", " : "", names[i]);
  g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
               "%s: strategy.%s: \"%.60s\" is not one of %s", source, key, value, allowed->str);
  return FALSE;
}

#define MAX_DEGREE 1048576

static gboolean
get_degree (JsonObject *obj, const char *source, const char *key, guint *out, GError **error)
{
  guint64 v = *out;

  if (!plx_json_get_uint (obj, source, "strategy", key, FALSE, 1, MAX_DEGREE, &v, error))
    return FALSE;
  *out = (guint) v;
  return TRUE;
}

#define MAX_LAYERS_PER_STAGE 65536

/* docs/formats.md §1 strategy and §4. */
static const char *const strategy_keys[] = {
  "workload", "seq_length", "global_batch_size", "micro_batch_size", "dp", "tp", "pp", "cp", "ep", "etp",
  "virtual_stages", "layers_per_stage", "first_stage_layers", "last_stage_layers", "sequence_parallel", "schedule", "recompute", "zero_stage", "dtype",
  "overlap_dp_comm", "overlap_tp_comm", "flash_attention", "grad_bucket_bytes", "implementation", "shard_group_size",
  "moe_capacity_factor", "moe_load_imbalance", "prompt_length", "decode_tokens", "fp8_param_gather", "reshard_after_forward",
  "attention_kernel", "grad_dtype", "pipeline_layout", "cross_entropy_fusion", "moe_dispatcher", NULL,
};

/* "layers_per_stage": [5, 6, ..., 5] or "auto". */
static gboolean
get_layers_per_stage (JsonObject *obj, const char *source, PlxStrategy *s, GError **error)
{
  JsonNode *node = json_object_get_member (obj, "layers_per_stage");
  JsonArray *array;

  if (node == NULL)
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING &&
      g_str_equal (json_node_get_string (node), "auto"))
    {
      s->layers_per_stage_auto = TRUE;
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_ARRAY (node) || json_array_get_length (json_node_get_array (node)) == 0 ||
      json_array_get_length (json_node_get_array (node)) > MAX_DEGREE)
    {
      g_autofree char *value = plx_json_value_to_string (node);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%s: strategy.layers_per_stage: %s is neither \"auto\" nor a list of layer counts, one per "
                   "pipeline stage", source, value);
      return FALSE;
    }
  array = json_node_get_array (node);
  s->n_layers_per_stage = json_array_get_length (array);
  s->layers_per_stage = g_new (guint, s->n_layers_per_stage);
  for (guint i = 0; i < s->n_layers_per_stage; i++)
    {
      JsonNode *e = json_array_get_element (array, i);
      gboolean whole = JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_INT64;
      gint64 v = whole ? json_node_get_int (e) : 0;

      /* 0: a chunk without transformer layers (Llama 3 405B's embedding-only first and
       * head-only last chunk; Megatron-LM's layouts). */
      if (!whole || v < 0 || v > MAX_LAYERS_PER_STAGE)
        {
          g_autofree char *value = plx_json_value_to_string (e);
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "%s: strategy.layers_per_stage[%u]: %s is not a layer count (a whole number from 0 to %u)",
                       source, i, value, MAX_LAYERS_PER_STAGE);
          return FALSE;
        }
      s->layers_per_stage[i] = (guint) v;
    }
  return TRUE;
}

/* "pipeline_layout": Megatron-LM's layout string, read into layers_per_stage (one
 * count per model chunk) and virtual_stages (chunks over pp); interleaved 1F1B when a
 * stage holds several chunks and the file names no schedule. */
static gboolean
get_pipeline_layout (JsonObject *obj, const char *source, PlxStrategy *s, GError **error)
{
  const char *text = NULL;
  guint n = 0;

  if (!plx_json_get_string (obj, source, "strategy", "pipeline_layout", FALSE, &text, error))
    return FALSE;
  if (text == NULL)
    return TRUE;
  for (guint i = 0; i < 3; i++)
    {
      static const char *const others[] = { "layers_per_stage", "first_stage_layers", "last_stage_layers" };
      if (json_object_has_member (obj, others[i]))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                       "%s: strategy.pipeline_layout: give either it or strategy.%s, not both", source, others[i]);
          return FALSE;
        }
    }
  s->layers_per_stage = plx_pipeline_layout_parse (text, source, &n, error);
  if (s->layers_per_stage == NULL)
    return FALSE;
  s->n_layers_per_stage = n;
  s->pipeline_layout = g_strdup (text);
  if (n % s->pp != 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%s: strategy.pipeline_layout: %u model chunks do not divide over pp=%u stages", source, n, s->pp);
      return FALSE;
    }
  if (json_object_has_member (obj, "virtual_stages") && s->virtual_stages != n / s->pp)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%s: strategy.virtual_stages: %u, but pipeline_layout's %u chunks over pp=%u stages make %u",
                   source, s->virtual_stages, n, s->pp, n / s->pp);
      return FALSE;
    }
  s->virtual_stages = n / s->pp;
  if (s->virtual_stages > 1 && !json_object_has_member (obj, "schedule"))
    s->schedule = PLX_SCHEDULE_INTERLEAVED_1F1B;
  return TRUE;
}

PlxStrategy *
plx_strategy_new_from_json (JsonNode   *node,
                            const char *source,
                            GError    **error)
{
  g_autoptr (PlxStrategy) s = plx_strategy_new ();
  JsonObject *obj;
  const char *schedule = NULL, *dtype = NULL;
  guint workload = s->workload, recompute = s->recompute, implementation = s->implementation;
  guint attention_kernel = s->attention_kernel, grad_dtype = s->grad_dtype, loss_fusion = s->cross_entropy_fusion;
  guint dispatcher = s->moe_dispatcher;
  guint64 zero = 0;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_autofree char *value = plx_json_value_to_string (node);
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: strategy: %s is not an object", source, value);
      return NULL;
    }
  obj = json_node_get_object (node);

  if (!plx_json_check_keys (obj, source, "strategy", strategy_keys, error))
    return NULL;
  if (!get_enum (obj, source, "workload", workload_names, G_N_ELEMENTS (workload_names), &workload, error) ||
      !get_enum (obj, source, "implementation", implementation_spellings, G_N_ELEMENTS (implementation_spellings),
                 &implementation, error) ||
      !get_enum (obj, source, "recompute", recompute_names, G_N_ELEMENTS (recompute_names), &recompute, error) ||
      !get_enum (obj, source, "attention_kernel", attention_kernel_names, G_N_ELEMENTS (attention_kernel_names),
                 &attention_kernel, error) ||
      !get_enum (obj, source, "grad_dtype", grad_dtype_names, G_N_ELEMENTS (grad_dtype_names), &grad_dtype, error) ||
      !get_enum (obj, source, "cross_entropy_fusion", cross_entropy_fusion_names,
                 G_N_ELEMENTS (cross_entropy_fusion_names), &loss_fusion, error) ||
      !get_enum (obj, source, "moe_dispatcher", moe_dispatcher_names, G_N_ELEMENTS (moe_dispatcher_names),
                 &dispatcher, error) ||
      !plx_json_get_uint (obj, source, "strategy", "seq_length", FALSE, 1, PLX_STRATEGY_MAX_COUNT, &s->seq_length, error) ||
      !plx_json_get_uint (obj, source, "strategy", "prompt_length", FALSE, 1, 1u << 24, &s->prompt_length, error) ||
      !plx_json_get_uint (obj, source, "strategy", "decode_tokens", FALSE, 1, 1u << 20, &s->decode_tokens, error) ||
      !plx_json_get_uint (obj, source, "strategy", "global_batch_size", FALSE, 1, PLX_STRATEGY_MAX_COUNT, &s->global_batch_size, error) ||
      !plx_json_get_uint (obj, source, "strategy", "micro_batch_size", FALSE, 1, PLX_STRATEGY_MAX_COUNT, &s->micro_batch_size, error) ||
      !get_degree (obj, source, "dp", &s->dp, error) ||
      !get_degree (obj, source, "tp", &s->tp, error) ||
      !get_degree (obj, source, "pp", &s->pp, error) ||
      !get_degree (obj, source, "cp", &s->cp, error) ||
      !get_degree (obj, source, "ep", &s->ep, error) ||
      !get_degree (obj, source, "etp", &s->etp, error) ||
      !get_degree (obj, source, "virtual_stages", &s->virtual_stages, error) ||
      !plx_json_get_bool (obj, source, "strategy", "sequence_parallel", &s->sequence_parallel, error) ||
      !plx_json_get_bool (obj, source, "strategy", "overlap_dp_comm", &s->overlap_dp_comm, error) ||
      !plx_json_get_bool (obj, source, "strategy", "overlap_tp_comm", &s->overlap_tp_comm, error) ||
      !plx_json_get_bool (obj, source, "strategy", "flash_attention", &s->flash_attention, error) ||
      !plx_json_get_uint (obj, source, "strategy", "zero_stage", FALSE, 0, 3, &zero, error) ||
      /* At least 1 MB: PyTorch DDP's and Megatron's buckets are tens of MB, and a
       * 1-byte bucket would make a 175B model's reduction billions of collectives. */
      !plx_json_get_uint (obj, source, "strategy", "grad_bucket_bytes", FALSE, 1000000, G_GUINT64_CONSTANT (1) << 44,
                          &s->grad_bucket_bytes, error) ||
      !plx_json_get_string (obj, source, "strategy", "schedule", FALSE, &schedule, error) ||
      !plx_json_get_string (obj, source, "strategy", "dtype", FALSE, &dtype, error) ||
      !get_layers_per_stage (obj, source, s, error) ||
      !get_pipeline_layout (obj, source, s, error))
    return NULL;
  {
    guint64 shard = 0;
    if (!plx_json_get_uint (obj, source, "strategy", "shard_group_size", FALSE, 1, 1u << 24, &shard, error))
      return NULL;
    s->shard_group_size = (guint) shard;
  }
  if (json_object_has_member (obj, "fp8_param_gather"))
    {
      gboolean on = FALSE;
      if (!plx_json_get_bool (obj, source, "strategy", "fp8_param_gather", &on, error))
        return NULL;
      s->fp8_param_gather = on;
    }
  if (json_object_has_member (obj, "reshard_after_forward"))
    {
      gboolean on = FALSE;
      if (!plx_json_get_bool (obj, source, "strategy", "reshard_after_forward", &on, error))
        return NULL;
      s->reshard_after_forward = on;
    }
  /* 0 says dropless, as leaving the key out does (so a command line can undo a
   * file's factor); a capacity below 1 drops most tokens by design; above 64 no
   * router runs. */
  if (!plx_json_get_double (obj, source, "strategy", "moe_capacity_factor", FALSE, 0.0, 64.0,
                            &s->moe_capacity_factor, error))
    return NULL;
  if (s->moe_capacity_factor > 0.0 && s->moe_capacity_factor < 1.0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%s: strategy.moe_capacity_factor: %g is below 1, which drops most tokens (allowed 1 to 64, "
                   "or 0 for dropless)", source, s->moe_capacity_factor);
      return NULL;
    }
  if (!plx_json_get_double (obj, source, "strategy", "moe_load_imbalance", FALSE, 1.0, 64.0,
                            &s->moe_load_imbalance, error))
    return NULL;
  if (s->moe_capacity_factor > 0.0 && s->moe_load_imbalance > 0.0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%s: strategy.moe_load_imbalance: %g is for dropless routing, but moe_capacity_factor is %g",
                   source, s->moe_load_imbalance, s->moe_capacity_factor);
      return NULL;
    }
  {
    guint64 first = 0, last = 0;
    if (!plx_json_get_uint (obj, source, "strategy", "first_stage_layers", FALSE, 1, MAX_LAYERS_PER_STAGE, &first, error) ||
        !plx_json_get_uint (obj, source, "strategy", "last_stage_layers", FALSE, 1, MAX_LAYERS_PER_STAGE, &last, error))
      return NULL;
    s->first_stage_layers = (guint) first;
    s->last_stage_layers = (guint) last;
  }

  s->workload = workload;
  if (implementation >= G_N_ELEMENTS (implementation_names))
    implementation = implementation_aliases[implementation - G_N_ELEMENTS (implementation_names)];
  s->implementation = (PlxImplementation) implementation;
  /* DeepSpeed reduces gradients after the last backward pass: its pipeline engine's
   * schedule ends with ReduceTiedGrads, ReduceGrads, OptimizerStep, and its ZeRO
   * optimizers leave overlap_comm off unless configured. A file may still say. */
  if (s->implementation == PLX_IMPLEMENTATION_DEEPSPEED && !json_object_has_member (obj, "overlap_dp_comm"))
    s->overlap_dp_comm = FALSE;
  s->recompute = recompute;
  s->zero_stage = (guint) zero;
  /* A named kernel is a fused one: it turns flash_attention on unless the file says
   * otherwise, which contradicts it. */
  s->attention_kernel = (PlxAttentionKernel) attention_kernel;
  s->grad_dtype = (PlxGradDtype) grad_dtype;
  s->cross_entropy_fusion = (PlxCrossEntropyFusion) loss_fusion;
  s->moe_dispatcher = (PlxMoeDispatcher) dispatcher;
  if (s->attention_kernel != PLX_ATTENTION_KERNEL_AUTO)
    {
      if (json_object_has_member (obj, "flash_attention") && !s->flash_attention)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                       "%s: strategy.attention_kernel: \"%s\" is a fused attention kernel, but flash_attention is "
                       "false (leave attention_kernel out, or set it to \"auto\", for the unfused attention)",
                       source, attention_kernel_names[s->attention_kernel]);
          return NULL;
        }
      s->flash_attention = TRUE;
    }

  if (dtype != NULL && (!plx_dtype_from_string (dtype, &s->dtype) || s->dtype == PLX_DTYPE_TF32))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%s: strategy.dtype: \"%.60s\" is not one of bf16, fp16, fp8, fp32", source, dtype);
      return NULL;
    }

  if (schedule != NULL)
    {
      guint i;

      for (i = 0; i < PLX_SCHEDULE_FILE; i++)
        if (g_str_equal (schedule, schedule_names[i]))
          break;
      if (i < PLX_SCHEDULE_FILE)
        s->schedule = (PlxSchedule) i;
      else if (g_str_has_suffix (schedule, ".json") || strchr (schedule, '/') != NULL)
        {
          s->schedule = PLX_SCHEDULE_FILE;
          s->schedule_path = g_strdup (schedule);
        }
      else
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "%s: strategy.schedule: \"%.60s\" is not one of gpipe, 1f1b, interleaved-1f1b, zero-bubble-h1, or a schedule file path",
                       source, schedule);
          return NULL;
        }
    }

  return g_steal_pointer (&s);
}

guint64
plx_strategy_get_n_micro_batches (const PlxStrategy *s)
{
  if (s->dp == 0 || s->micro_batch_size == 0)
    return 0;
  return s->global_batch_size / ((guint64) s->dp * s->micro_batch_size);
}

#define FAIL(code, ...) \
  G_STMT_START { g_set_error (error, PLX_ERROR, code, __VA_ARGS__); return FALSE; } G_STMT_END

gboolean
plx_strategy_resolve (PlxStrategy      *s,
                      const PlxModel   *model,
                      const PlxCluster *cluster,
                      const char       *source,
                      GError          **error)
{
  guint64 gpus = plx_cluster_get_n_gpus (cluster);
  guint64 model_par = (guint64) s->tp * s->pp;
  guint64 chunks = (guint64) s->pp * s->virtual_stages;
  guint64 all = 0;
  guint64 m;

  /* Each degree is at most 2^20, so tp*pp fits; the rest may not. */
  if (!g_uint64_checked_mul (&model_par, model_par, s->cp) ||
      (s->dp != 0 && !g_uint64_checked_mul (&all, model_par, s->dp)))
    FAIL (PLX_ERROR_INCONSISTENT,
          "%s: strategy: dp*tp*pp*cp = %u*%u*%u*%u is far more than the cluster's %" G_GUINT64_FORMAT " GPUs",
          source, s->dp, s->tp, s->pp, s->cp, gpus);

  if (s->workload == PLX_WORKLOAD_INFERENCE)
    {
      /* Serving (plx-inference.c): tensor, pipeline and data parallelism. Training's
       * settings (ZeRO, recomputation, the schedule) do not apply and are set aside. */
      if (s->cp > 1 || s->ep > 1)
        FAIL (PLX_ERROR_UNSUPPORTED, "%s: strategy.%s: inference models tp, pp and dp; not %s", source,
              s->cp > 1 ? "cp" : "ep", s->cp > 1 ? "context parallelism" : "expert parallelism");
      s->zero_stage = 0;
      s->shard_group_size = 0;
      s->virtual_stages = 1;
      s->recompute = PLX_RECOMPUTE_NONE;
      g_clear_pointer (&s->layers_per_stage, g_free);
      g_clear_pointer (&s->pipeline_layout, g_free);
      s->n_layers_per_stage = 0;
      s->layers_per_stage_auto = FALSE;
      s->first_stage_layers = s->last_stage_layers = 0;
      if (s->prompt_length == 0)
        s->prompt_length = 512;
      if (s->decode_tokens == 0)
        s->decode_tokens = 128;
      s->seq_length = s->prompt_length + s->decode_tokens;
      s->schedule = PLX_SCHEDULE_1F1B;
      g_clear_pointer (&s->schedule_path, g_free);
      s->sequence_parallel = FALSE;
    }
  else if (s->prompt_length > 0 || s->decode_tokens > 0)
    FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.%s: applies to workload \"inference\", not \"training\"", source,
          s->prompt_length > 0 ? "prompt_length" : "decode_tokens");

  if (s->dp == 0)
    {
      if (gpus % model_par != 0)
        FAIL (PLX_ERROR_INCONSISTENT,
              "%s: strategy: tp*pp*cp = %u*%u*%u = %" G_GUINT64_FORMAT " does not divide the cluster's %" G_GUINT64_FORMAT " GPUs",
              source, s->tp, s->pp, s->cp, model_par, gpus);
      s->dp = (guint) (gpus / model_par);
    }
  else if (all != gpus)
    FAIL (PLX_ERROR_INCONSISTENT,
          "%s: strategy: dp*tp*pp*cp = %u*%u*%u*%u = %" G_GUINT64_FORMAT " is not the cluster's %" G_GUINT64_FORMAT " GPUs",
          source, s->dp, s->tp, s->pp, s->cp, all, gpus);

  if (model->heads % s->tp != 0)
    FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.tp: %u does not divide the model's %u attention heads",
          source, s->tp, model->heads);
  if (model->kv_heads % s->tp != 0)
    FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.tp: %u does not divide the model's %u key-value heads",
          source, s->tp, model->kv_heads);
  if (model->ffn % s->tp != 0)
    FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.tp: %u does not divide the model's MLP width %" G_GUINT64_FORMAT,
          source, s->tp, model->ffn);

  if (s->pp > model->n_layers)
    FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.pp: %u stages is more than the model's %u layers",
          source, s->pp, model->n_layers);
  if (s->schedule == PLX_SCHEDULE_INTERLEAVED_1F1B)
    {
      if (s->virtual_stages < 2)
        FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.virtual_stages: interleaved-1f1b needs at least 2 model chunks per stage, not %u",
              source, s->virtual_stages);
      if (s->pp < 2)
        FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.schedule: interleaved-1f1b needs pp of at least 2, not %u", source, s->pp);
    }
  else if (s->virtual_stages != 1 && s->schedule != PLX_SCHEDULE_FILE)
    FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.virtual_stages: %u model chunks need schedule \"interleaved-1f1b\", not \"%s\"",
          source, s->virtual_stages, plx_schedule_to_string (s->schedule));
  /* Layers that do not divide evenly are split by plx-layer-split.c (balanced); one
   * given by hand must name every stage (every model chunk with interleaving). */
  if (chunks > model->n_layers)
    FAIL (PLX_ERROR_INCONSISTENT,
          "%s: strategy: pp*virtual_stages = %u*%u = %" G_GUINT64_FORMAT " model chunks is more than the model's %u layers",
          source, s->pp, s->virtual_stages, chunks, model->n_layers);
  if (s->shard_group_size != 0)
    {
      if (s->zero_stage == 0)
        FAIL (PLX_ERROR_INCONSISTENT,
              "%s: strategy.shard_group_size: %u shards ZeRO's states, but zero_stage is 0", source,
              s->shard_group_size);
      if (s->dp % s->shard_group_size != 0)
        FAIL (PLX_ERROR_INCONSISTENT,
              "%s: strategy.shard_group_size: %u does not divide dp = %u", source, s->shard_group_size, s->dp);
    }
  if (s->fp8_param_gather == TRUE && s->dtype != PLX_DTYPE_FP8)
    FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.fp8_param_gather: true gathers fp8 weights, but dtype is %s", source,
          plx_dtype_to_string (s->dtype));
  if (s->reshard_after_forward != PLX_RESHARD_AUTO && s->zero_stage < 3)
    FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.reshard_after_forward: %s is about ZeRO-3's gathered weights, but "
          "zero_stage is %u", source, s->reshard_after_forward ? "true" : "false", s->zero_stage);
  if (s->fp8_param_gather == TRUE && s->zero_stage == 0)
    FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.fp8_param_gather: true gathers sharded weights, but zero_stage is 0",
          source);
  if (s->first_stage_layers != 0 || s->last_stage_layers != 0)
    {
      guint ends = (s->first_stage_layers != 0) + (s->last_stage_layers != 0);
      guint64 rest = (guint64) model->n_layers - s->first_stage_layers - s->last_stage_layers;
      const char *key = s->first_stage_layers != 0 ? "first_stage_layers" : "last_stage_layers";
      if (s->layers_per_stage != NULL || s->layers_per_stage_auto)
        FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.%s: give either it or strategy.layers_per_stage, not both",
              source, key);
      if (s->virtual_stages != 1)
        FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.%s: needs one model chunk per stage, not virtual_stages=%u",
              source, key, s->virtual_stages);
      if (s->pp < ends + 1 || (guint64) s->first_stage_layers + s->last_stage_layers >= model->n_layers)
        FAIL (PLX_ERROR_INCONSISTENT,
              "%s: strategy.%s: pp=%u stages with %u and %u layers on the first and last leave none for the others of "
              "the model's %u layers",
              source, key, s->pp, s->first_stage_layers, s->last_stage_layers, model->n_layers);
      /* As Megatron-LM requires: the stages between take equal shares. */
      if (rest % (s->pp - ends) != 0)
        FAIL (PLX_ERROR_INCONSISTENT,
              "%s: strategy.%s: the %" G_GUINT64_FORMAT " other layers do not split evenly over the other %u stages",
              source, key, rest, s->pp - ends);
    }
  if (s->layers_per_stage != NULL)
    {
      guint64 sum = 0;
      if (s->n_layers_per_stage != chunks)
        FAIL (PLX_ERROR_INCONSISTENT,
              s->virtual_stages > 1
                ? "%s: strategy.%s: %u counts given, but pp*virtual_stages = %" G_GUINT64_FORMAT
                  " model chunks need one each"
                : "%s: strategy.%s: %u counts given, but pp = %" G_GUINT64_FORMAT " stages need one each",
              source, s->pipeline_layout != NULL ? "pipeline_layout" : "layers_per_stage", s->n_layers_per_stage,
              chunks);
      for (guint i = 0; i < s->n_layers_per_stage; i++)
        sum += s->layers_per_stage[i];
      if (sum != model->n_layers)
        FAIL (PLX_ERROR_INCONSISTENT,
              "%s: strategy.%s: the counts add up to %" G_GUINT64_FORMAT " layers, not the model's %u",
              source, s->pipeline_layout != NULL ? "pipeline_layout" : "layers_per_stage", sum, model->n_layers);
    }

  if (s->seq_length == 0)
    s->seq_length = model->max_positions;
  if (model->learned_positions && s->seq_length > model->max_positions)
    FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.seq_length: %" G_GUINT64_FORMAT " exceeds the model's %" G_GUINT64_FORMAT " learned positions",
          source, s->seq_length, model->max_positions);
  if (s->seq_length % s->cp != 0)
    FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.cp: %u does not divide strategy.seq_length=%" G_GUINT64_FORMAT,
          source, s->cp, s->seq_length);
  /* Context parallelism splits attention's keys and values over a ring; a scan runs
   * along the whole sequence, whose split Parallax does not model. */
  if (s->cp > 1 && model->arch.ssm_version > 0)
    FAIL (PLX_ERROR_UNSUPPORTED, "%s: strategy.cp: %u splits the sequence of a state-space model (%s), which is not "
          "modelled: context parallelism is for attention", source, s->cp, model->model_type);
  if (s->sequence_parallel && (s->seq_length / s->cp) % s->tp != 0)
    FAIL (PLX_ERROR_INCONSISTENT,
          "%s: strategy.sequence_parallel: seq_length/cp = %" G_GUINT64_FORMAT " tokens do not split over tp=%u ranks",
          source, s->seq_length / s->cp, s->tp);

  if (s->moe_dispatcher != PLX_MOE_DISPATCHER_ALLTOALL && model->experts == 0)
    FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.moe_dispatcher: \"%s\" needs a mixture-of-experts model; %s has no experts",
          source, moe_dispatcher_names[s->moe_dispatcher], model->name);
  if (s->etp != 0 && model->experts == 0)
    FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.etp: %u needs a mixture-of-experts model; %s has no experts",
          source, s->etp, model->name);
  if (s->ep > 1)
    {
      if (model->experts == 0)
        FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.ep: %u needs a mixture-of-experts model; %s has no experts",
              source, s->ep, model->name);
      if (model->experts % s->ep != 0)
        FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.ep: %u does not divide the model's %u experts",
              source, s->ep, model->experts);
    }
  /* Megatron-Core's expert layout (its --expert-tensor-parallel-size, tp by default). */
  if (!plx_strategy_expert_layout_fits (s->tp, s->dp, s->cp, s->ep, s->etp))
    {
      if (s->etp == 0)
        FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.ep: %u does not divide dp x cp = %u x %u (experts are spread over "
              "the data- and context-parallel ranks; set etp to spread them over the tensor-parallel ones too)",
              source, s->ep, s->dp, s->cp);
      FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.etp: ep x etp = %u x %u does not divide tp x dp x cp = %u x %u x %u "
            "(the expert layout re-divides a stage's ranks)", source, s->ep, s->etp, s->tp, s->dp, s->cp);
    }

  if (s->global_batch_size == 0)
    FAIL (PLX_ERROR_MISSING_KEY, "%s: strategy.global_batch_size: required for %s", source,
          s->workload == PLX_WORKLOAD_INFERENCE ? "inference (the sequences served at once)" : "training");
  if (s->workload == PLX_WORKLOAD_INFERENCE)
    {
      /* Each replica serves its share of the sequences as one batch. */
      if (s->global_batch_size % s->dp != 0)
        FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.global_batch_size: %" G_GUINT64_FORMAT " sequences do not split "
              "over dp = %u replicas", source, s->global_batch_size, s->dp);
      s->micro_batch_size = s->global_batch_size / s->dp;
    }
  if (s->global_batch_size % ((guint64) s->dp * s->micro_batch_size) != 0)
    FAIL (PLX_ERROR_INCONSISTENT,
          "%s: strategy.global_batch_size: %" G_GUINT64_FORMAT " is not a multiple of dp*micro_batch_size = %u*%" G_GUINT64_FORMAT,
          source, s->global_batch_size, s->dp, s->micro_batch_size);
  m = plx_strategy_get_n_micro_batches (s);
  if (s->schedule == PLX_SCHEDULE_INTERLEAVED_1F1B && m % s->pp != 0)
    FAIL (PLX_ERROR_INCONSISTENT,
          "%s: strategy: interleaved-1f1b needs the %" G_GUINT64_FORMAT " micro-batches per step (global_batch_size/(dp*micro_batch_size)) to be a multiple of pp=%u",
          source, m, s->pp);

  if (cluster->peak_flops[s->dtype] <= 0.0)
    FAIL (PLX_ERROR_INCONSISTENT, "%s: strategy.dtype: the cluster's %s has no %s peak (cluster.gpu.peak_flops.%s)",
          source, cluster->gpu_name, plx_dtype_to_string (s->dtype), plx_dtype_to_string (s->dtype));

  return TRUE;
}

char *
plx_strategy_describe (const PlxStrategy *s)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "TP %u · PP %u · DP %u", s->tp, s->pp, s->dp);
  if (s->cp > 1)
    g_string_append_printf (out, " · CP %u", s->cp);
  if (s->ep > 1)
    g_string_append_printf (out, " · EP %u", s->ep);
  if (s->etp != 0 && s->etp != s->tp)
    g_string_append_printf (out, " · expert TP %u", s->etp);
  g_string_append_printf (out, " · micro-batch %" G_GUINT64_FORMAT " · %s", s->micro_batch_size,
                          plx_schedule_to_string (s->schedule));
  if (s->virtual_stages > 1)
    g_string_append_printf (out, " x%u", s->virtual_stages);
  if (s->recompute != PLX_RECOMPUTE_NONE)
    g_string_append_printf (out, " · %s recompute", plx_recompute_to_string (s->recompute));
  if (s->zero_stage > 0)
    g_string_append_printf (out, " · ZeRO %u", s->zero_stage);
  if (s->sequence_parallel && s->tp > 1)
    g_string_append (out, " · SP");
  return g_string_free (out, FALSE);
}

/* Megatron-core's DistributedDataParallel (megatron/core/distributed/
 * distributed_data_parallel.py, r0.8): bucket_size = max(40000000, 1000000 * dp)
 * elements, so that each rank's share of a reduce-scatter stays large; gradients are
 * fp32 (main_grad) except under fp16 (plx_costing_state_bytes). */
guint64
plx_strategy_get_grad_bucket_bytes (const PlxStrategy *s)
{
  guint64 elements;

  if (s->grad_bucket_bytes != PLX_GRAD_BUCKET_AUTO)
    return s->grad_bucket_bytes;
  elements = plx_max_u64 (G_GUINT64_CONSTANT (40000000), G_GUINT64_CONSTANT (1000000) * plx_strategy_get_grad_group_size (s));
  return elements * (s->dtype == PLX_DTYPE_FP16 ? 2 : 4);
}

/* ZeRO-3 is what PyTorch FSDP and DeepSpeed run, on models written as eager
 * PyTorch modules (torchtitan, Hugging Face, fms-fsdp); Megatron-LM and NeMo, which
 * do not shard weights, run Transformer Engine's fused kernels. */
gboolean
plx_strategy_is_pytorch (const PlxStrategy *s)
{
  if (s->implementation == PLX_IMPLEMENTATION_AUTO)
    return s->zero_stage >= 3;
  return s->implementation == PLX_IMPLEMENTATION_PYTORCH || s->implementation == PLX_IMPLEMENTATION_PYTORCH_COMPILE;
}

gboolean
plx_strategy_accumulates_fp32_copy (const PlxStrategy *s)
{
  return s->implementation == PLX_IMPLEMENTATION_DEEPSPEED && s->dtype == PLX_DTYPE_BF16 && s->zero_stage <= 1;
}

const char *
plx_implementation_to_string (PlxImplementation implementation)
{
  return implementation_names[implementation];
}

const char *
plx_attention_kernel_to_string (PlxAttentionKernel kernel)
{
  return attention_kernel_names[kernel];
}

double
plx_strategy_moe_load (const PlxStrategy *s,
                       double             routed)
{
  double ep = s->ep;

  /* With capacity every expert's buffer is padded to it, on any number of ranks. */
  if (s->moe_capacity_factor > 0.0)
    return s->moe_capacity_factor;
  /* Dropless, one rank holds all experts: its grouped GEMM takes all routed tokens
   * however they spread. */
  if (ep <= 1.0 || routed <= 0.0)
    return 1.0;
  if (s->moe_load_imbalance > 0.0)
    return s->moe_load_imbalance;
  /* Each of the ep * routed routed tokens goes to one rank's experts with chance 1/ep:
   * a rank's load is binomial, mean routed, variance routed (1 - 1/ep); the busiest of
   * ep such loads is about sqrt(2 ln ep) standard deviations above the mean (the
   * maximum of n normal variables, Cramer 1946, Mathematical Methods of Statistics,
   * §28.6). Routers trained with a balancing loss (Fedus et al. 2021, Switch
   * Transformer §2.2) balance in expectation, not batch by batch, so this is the floor;
   * expert-choice routing balances by construction (moe_load_imbalance 1). */
  return 1.0 + sqrt (2.0 * log (ep)) * sqrt ((1.0 - 1.0 / ep) / routed);
}

guint
plx_strategy_get_expert_tp (const PlxStrategy *s)
{
  return s->etp != 0 ? s->etp : MAX (s->tp, 1);
}

guint
plx_strategy_get_grad_group_size (const PlxStrategy *s)
{
  return MAX (s->dp, 1) * MAX (s->cp, 1);
}

guint
plx_strategy_get_shard_size (const PlxStrategy *s)
{
  guint dp_ranks = s->shard_group_size != 0 && s->shard_group_size <= s->dp ? s->shard_group_size : MAX (s->dp, 1);

  return dp_ranks * MAX (s->cp, 1);
}

gboolean
plx_strategy_zero3_once_per_step (const PlxStrategy *s)
{
  return s->zero_stage >= 3 && s->pp > 1 && plx_strategy_is_pytorch (s);
}

gboolean
plx_strategy_zero3_per_tensor (const PlxStrategy *s)
{
  return s->implementation == PLX_IMPLEMENTATION_DEEPSPEED && s->zero_stage >= 3;
}

gboolean
plx_strategy_expert_layout_fits (guint tp,
                                 guint dp,
                                 guint cp,
                                 guint ep,
                                 guint etp)
{
  if (etp == 0)
    return ((guint64) dp * cp) % ep == 0;
  return ((guint64) tp * dp * cp) % ((guint64) ep * etp) == 0;
}

gboolean
plx_strategy_reshard_after_forward (const PlxStrategy *s)
{
  if (s->zero_stage < 3)
    return FALSE;
  if (s->reshard_after_forward == PLX_RESHARD_AUTO)
    return !(s->pp > 1 && plx_strategy_is_pytorch (s));
  return s->reshard_after_forward != FALSE;
}

gboolean
plx_strategy_fp8_param_gather (const PlxStrategy *s)
{
  if (s->dtype != PLX_DTYPE_FP8 || s->zero_stage == 0)
    return FALSE;
  if (s->fp8_param_gather == PLX_FP8_PARAM_GATHER_AUTO)
    return s->zero_stage >= 3 && plx_strategy_is_pytorch (s);
  return s->fp8_param_gather != FALSE;
}

JsonNode *
plx_strategy_to_json (const PlxStrategy *s)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

#define INT(k, v) G_STMT_START { json_builder_set_member_name (b, k); json_builder_add_int_value (b, (gint64) (v)); } G_STMT_END
#define STR(k, v) G_STMT_START { json_builder_set_member_name (b, k); json_builder_add_string_value (b, v); } G_STMT_END
#define BOOL(k, v) G_STMT_START { json_builder_set_member_name (b, k); json_builder_add_boolean_value (b, v); } G_STMT_END
  json_builder_begin_object (b);
  STR ("workload", plx_workload_to_string (s->workload));
  if (s->prompt_length > 0)
    INT ("prompt_length", s->prompt_length);
  if (s->decode_tokens > 0)
    INT ("decode_tokens", s->decode_tokens);
  if (s->seq_length > 0)
    INT ("seq_length", s->seq_length);
  if (s->global_batch_size > 0)
    INT ("global_batch_size", s->global_batch_size);
  INT ("micro_batch_size", s->micro_batch_size);
  if (s->dp > 0)
    INT ("dp", s->dp);
  INT ("tp", s->tp);
  INT ("pp", s->pp);
  INT ("cp", s->cp);
  INT ("ep", s->ep);
  if (s->etp != 0)
    INT ("etp", s->etp);
  INT ("virtual_stages", s->virtual_stages);
  if (s->layers_per_stage_auto)
    STR ("layers_per_stage", "auto");
  else if (s->pipeline_layout != NULL)
    STR ("pipeline_layout", s->pipeline_layout);
  else if (s->layers_per_stage != NULL)
    {
      json_builder_set_member_name (b, "layers_per_stage");
      json_builder_begin_array (b);
      for (guint i = 0; i < s->n_layers_per_stage; i++)
        json_builder_add_int_value (b, s->layers_per_stage[i]);
      json_builder_end_array (b);
    }
  if (s->first_stage_layers > 0)
    INT ("first_stage_layers", s->first_stage_layers);
  if (s->last_stage_layers > 0)
    INT ("last_stage_layers", s->last_stage_layers);
  BOOL ("sequence_parallel", s->sequence_parallel);
  STR ("schedule", s->schedule == PLX_SCHEDULE_FILE && s->schedule_path != NULL ? s->schedule_path
                                                                                 : plx_schedule_to_string (s->schedule));
  STR ("recompute", plx_recompute_to_string (s->recompute));
  INT ("zero_stage", s->zero_stage);
  STR ("dtype", plx_dtype_to_string (s->dtype));
  BOOL ("overlap_dp_comm", s->overlap_dp_comm);
  BOOL ("overlap_tp_comm", s->overlap_tp_comm);
  BOOL ("flash_attention", s->flash_attention);
  if (s->attention_kernel != PLX_ATTENTION_KERNEL_AUTO)
    STR ("attention_kernel", plx_attention_kernel_to_string (s->attention_kernel));
  if (s->grad_dtype != PLX_GRAD_DTYPE_AUTO)
    STR ("grad_dtype", grad_dtype_names[s->grad_dtype]);
  if (s->cross_entropy_fusion != PLX_CROSS_ENTROPY_UNFUSED)
    STR ("cross_entropy_fusion", cross_entropy_fusion_names[s->cross_entropy_fusion]);
  if (s->moe_dispatcher != PLX_MOE_DISPATCHER_ALLTOALL)
    STR ("moe_dispatcher", moe_dispatcher_names[s->moe_dispatcher]);
  if (s->dp > 0)
    INT ("grad_bucket_bytes", plx_strategy_get_grad_bucket_bytes (s));
  else if (s->grad_bucket_bytes != PLX_GRAD_BUCKET_AUTO)
    INT ("grad_bucket_bytes", s->grad_bucket_bytes);
  STR ("implementation", plx_implementation_to_string (s->implementation));
  if (s->shard_group_size > 0)
    INT ("shard_group_size", s->shard_group_size);
  if (s->fp8_param_gather != PLX_FP8_PARAM_GATHER_AUTO)
    BOOL ("fp8_param_gather", s->fp8_param_gather != FALSE);
  if (s->reshard_after_forward != PLX_RESHARD_AUTO)
    BOOL ("reshard_after_forward", s->reshard_after_forward != FALSE);
  if (s->moe_capacity_factor > 0.0)
    {
      json_builder_set_member_name (b, "moe_capacity_factor");
      json_builder_add_double_value (b, s->moe_capacity_factor);
    }
  if (s->moe_load_imbalance > 0.0)
    {
      json_builder_set_member_name (b, "moe_load_imbalance");
      json_builder_add_double_value (b, s->moe_load_imbalance);
    }
  json_builder_end_object (b);
#undef INT
#undef STR
#undef BOOL
  return json_builder_get_root (b);
}
