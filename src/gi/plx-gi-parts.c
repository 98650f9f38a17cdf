/* The model, cluster and strategy of a scenario through the bindable API
 * (plx-gi.h): what a notebook shows of them. */
#include "parallax/parallax.h"
#include "base/plx-json.h"

/**
 * plx_model_get_name:
 * @model: a #PlxModel
 *
 * Returns: (transfer none): the model's name
 */
const char *
plx_model_get_name (const PlxModel *model)
{
  return model->name;
}

/**
 * plx_model_get_n_layers:
 * @model: a #PlxModel
 *
 * Returns: the transformer blocks
 */
guint
plx_model_get_n_layers (const PlxModel *model)
{
  return model->n_layers;
}

/**
 * plx_model_get_hidden:
 * @model: a #PlxModel
 *
 * Returns: the hidden size
 */
guint64
plx_model_get_hidden (const PlxModel *model)
{
  return model->hidden;
}

/**
 * plx_model_get_heads:
 * @model: a #PlxModel
 *
 * Returns: the attention heads
 */
guint
plx_model_get_heads (const PlxModel *model)
{
  return model->heads;
}

/**
 * plx_model_get_max_positions:
 * @model: a #PlxModel
 *
 * Returns: the longest sequence it was built for
 */
guint64
plx_model_get_max_positions (const PlxModel *model)
{
  return model->max_positions;
}

/**
 * plx_model_get_experts:
 * @model: a #PlxModel
 *
 * Returns: the experts of each mixture-of-experts layer; 0 for a dense model
 */
guint
plx_model_get_experts (const PlxModel *model)
{
  return model->experts;
}

/**
 * plx_cluster_get_name:
 * @cluster: a #PlxCluster
 *
 * Returns: (transfer none): the cluster's name
 */
const char *
plx_cluster_get_name (const PlxCluster *cluster)
{
  return cluster->name;
}

/**
 * plx_cluster_get_gpu_name:
 * @cluster: a #PlxCluster
 *
 * Returns: (transfer none): the GPU's name
 */
const char *
plx_cluster_get_gpu_name (const PlxCluster *cluster)
{
  return cluster->gpu_name;
}

/**
 * plx_cluster_get_num_nodes:
 * @cluster: a #PlxCluster
 *
 * Returns: the nodes
 */
guint
plx_cluster_get_num_nodes (const PlxCluster *cluster)
{
  return cluster->num_nodes;
}

/**
 * plx_cluster_get_gpus_per_node:
 * @cluster: a #PlxCluster
 *
 * Returns: the GPUs of one node
 */
guint
plx_cluster_get_gpus_per_node (const PlxCluster *cluster)
{
  return cluster->gpus_per_node;
}

/**
 * plx_cluster_get_hbm_bytes:
 * @cluster: a #PlxCluster
 *
 * Returns: the memory of one GPU, in bytes
 */
guint64
plx_cluster_get_hbm_bytes (const PlxCluster *cluster)
{
  return cluster->hbm_bytes;
}

/**
 * plx_cluster_get_peak_flops:
 * @cluster: a #PlxCluster
 * @dtype: "bf16", "fp16", "fp8", "fp32" or "tf32"
 * @error: return location for a #GError
 *
 * Returns: the dense peak FLOP/s of one GPU in @dtype (0 where the GPU lacks it),
 *   or 0 with @error naming an unknown dtype
 */
double
plx_cluster_get_peak_flops (const PlxCluster *cluster,
                            const char       *dtype,
                            GError          **error)
{
  PlxDtype d;

  g_return_val_if_fail (cluster != NULL && dtype != NULL, 0.0);
  if (!plx_dtype_from_string (dtype, &d))
    {
      g_autofree char *shown = plx_printable (dtype);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "dtype \"%s\" is not bf16, fp16, fp8, fp32 or tf32",
                   shown);
      return 0.0;
    }
  return cluster->peak_flops[d];
}

/**
 * plx_strategy_get_dp:
 * @strategy: a #PlxStrategy
 *
 * Returns: the data-parallel degree
 */
guint
plx_strategy_get_dp (const PlxStrategy *strategy)
{
  return strategy->dp;
}

/**
 * plx_strategy_get_tp:
 * @strategy: a #PlxStrategy
 *
 * Returns: the tensor-parallel degree
 */
guint
plx_strategy_get_tp (const PlxStrategy *strategy)
{
  return strategy->tp;
}

/**
 * plx_strategy_get_pp:
 * @strategy: a #PlxStrategy
 *
 * Returns: the pipeline-parallel degree
 */
guint
plx_strategy_get_pp (const PlxStrategy *strategy)
{
  return strategy->pp;
}

/**
 * plx_strategy_get_cp:
 * @strategy: a #PlxStrategy
 *
 * Returns: the context-parallel degree
 */
guint
plx_strategy_get_cp (const PlxStrategy *strategy)
{
  return strategy->cp;
}

/**
 * plx_strategy_get_ep:
 * @strategy: a #PlxStrategy
 *
 * Returns: the expert-parallel degree
 */
guint
plx_strategy_get_ep (const PlxStrategy *strategy)
{
  return strategy->ep;
}

/**
 * plx_strategy_get_micro_batch_size:
 * @strategy: a #PlxStrategy
 *
 * Returns: sequences per micro-batch
 */
guint64
plx_strategy_get_micro_batch_size (const PlxStrategy *strategy)
{
  return strategy->micro_batch_size;
}

/**
 * plx_strategy_get_global_batch_size:
 * @strategy: a #PlxStrategy
 *
 * Returns: sequences per optimizer step (0: not given)
 */
guint64
plx_strategy_get_global_batch_size (const PlxStrategy *strategy)
{
  return strategy->global_batch_size;
}

/**
 * plx_strategy_get_seq_length:
 * @strategy: a #PlxStrategy
 *
 * Returns: tokens per sequence
 */
guint64
plx_strategy_get_seq_length (const PlxStrategy *strategy)
{
  return strategy->seq_length;
}

/**
 * plx_strategy_get_virtual_stages:
 * @strategy: a #PlxStrategy
 *
 * Returns: model chunks per pipeline rank (interleaving)
 */
guint
plx_strategy_get_virtual_stages (const PlxStrategy *strategy)
{
  return strategy->virtual_stages;
}

/**
 * plx_strategy_get_zero_stage:
 * @strategy: a #PlxStrategy
 *
 * Returns: the ZeRO stage, 0 to 3
 */
guint
plx_strategy_get_zero_stage (const PlxStrategy *strategy)
{
  return strategy->zero_stage;
}

/**
 * plx_strategy_get_sequence_parallel:
 * @strategy: a #PlxStrategy
 *
 * Returns: whether Megatron sequence parallelism is on
 */
gboolean
plx_strategy_get_sequence_parallel (const PlxStrategy *strategy)
{
  return strategy->sequence_parallel;
}

/**
 * plx_strategy_get_schedule:
 * @strategy: a #PlxStrategy
 *
 * Returns: (transfer none): the pipeline schedule: "gpipe", "1f1b", "interleaved-1f1b", "zero-bubble-h1" or "file"
 */
const char *
plx_strategy_get_schedule (const PlxStrategy *strategy)
{
  return plx_schedule_to_string (strategy->schedule);
}

/**
 * plx_strategy_get_recompute:
 * @strategy: a #PlxStrategy
 *
 * Returns: (transfer none): the activation recomputation: "none", "selective" or "full"
 */
const char *
plx_strategy_get_recompute (const PlxStrategy *strategy)
{
  return plx_recompute_to_string (strategy->recompute);
}

/**
 * plx_strategy_get_dtype:
 * @strategy: a #PlxStrategy
 *
 * Returns: (transfer none): the compute dtype: "bf16", "fp16", "fp8" or "fp32"
 */
const char *
plx_strategy_get_dtype (const PlxStrategy *strategy)
{
  return plx_dtype_to_string (strategy->dtype);
}

/**
 * plx_strategy_to_string:
 * @strategy: a #PlxStrategy
 *
 * Returns: (transfer full): the strategy as the "strategy" object of a scenario file,
 *   every key written as it stands (docs/formats.md §1)
 */
char *
plx_strategy_to_string (const PlxStrategy *strategy)
{
  g_autoptr (JsonNode) node = plx_strategy_to_json (strategy);

  return json_to_string (node, TRUE);
}
