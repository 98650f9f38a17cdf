/* plx-import-deepspeed.c: a DeepSpeed config JSON (with the model's Hugging Face
 * config.json beside it) as a scenario. Keys and defaults are DeepSpeed's
 * (microsoft/DeepSpeed at 38327e0): docs/_pages/config-json.md ("train_batch_size
 * must be equal to train_micro_batch_size_per_gpu * gradient_accumulation_steps *
 * number of GPUs"; two of the three may be given), deepspeed/runtime/zero/config.py
 * (DeepSpeedZeroConfig: stage 0 by default; overlap_comm, when not given, on for
 * stage 3 only: overlap_comm_valid) and deepspeed/runtime/activation_checkpointing/
 * config.py. */
#include <string.h>

#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "plx-import.h"

static const PlxImportReason reasons[] = {
  { "optimizer.", "an optimizer hyperparameter: no change to a step's time or memory" },
  { "scheduler.", "the learning rate schedule: no change to a step's time or memory" },
  { "steps_per_print", "logging: outside the training step" },
  { "wall_clock_breakdown", "logging: outside the training step" },
  { "tensorboard", "logging: outside the training step" },
  { "wandb", "logging: outside the training step" },
  { "gradient_clipping", "gradient clipping: not costed" },
  { "fp16.", "fp16 loss scaling: not costed" },
  { "bf16.", "not a setting Parallax models" },
  { "zero_optimization.offload", "offloading to the CPU or NVMe is not modelled" },
  { "zero_optimization.reduce_bucket_size", "DeepSpeed counts elements; set grad_bucket_bytes by hand if it matters" },
  { "zero_optimization.allgather_bucket_size", "bucket sizes of ZeRO's gathers are not modelled" },
  { "zero_optimization.stage3_", "ZeRO-3's prefetch and persistence thresholds are not modelled" },
  { "zero_optimization.", "not a setting Parallax models (ZeRO is costed by its stage)" },
  { "activation_checkpointing.", "configures deepspeed.checkpointing, which runs only where the model's code calls "
                                 "it: pass the recompute the model uses with simulate --recompute" },
  { NULL, NULL },
};

gboolean
plx_import_deepspeed (PlxImport  *imp,
                      JsonNode   *config,
                      JsonNode   *hf_config,
                      const char *hf_source,
                      GError    **error)
{
  PlxImportTree tree;
  JsonObject *s = imp->strategy;
  gint64 batch = 0, micro = 0, accumulation = 0, stage = 0;
  gboolean have_batch = FALSE, have_micro = FALSE, have_accumulation = FALSE, have, ok = TRUE;
  gboolean bf16 = FALSE, fp16 = FALSE, overlap = FALSE, have_overlap = FALSE;

  if (!JSON_NODE_HOLDS_OBJECT (config))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: not a DeepSpeed config (not a JSON object)", imp->source);
      return FALSE;
    }
  imp->framework = "DeepSpeed";
  plx_import_tree_init (&tree, config);
  if (!plx_import_tree_int (imp, &tree, "train_batch_size", 1, &batch, &have_batch, error) ||
      !plx_import_tree_int (imp, &tree, "train_micro_batch_size_per_gpu", 1, &micro, &have_micro, error) ||
      !plx_import_tree_int (imp, &tree, "gradient_accumulation_steps", 1, &accumulation, &have_accumulation, error) ||
      !plx_import_tree_int (imp, &tree, "zero_optimization.stage", 0, &stage, &have, error) ||
      !plx_import_tree_bool (imp, &tree, "bf16.enabled", &bf16, &have, error) ||
      !plx_import_tree_bool (imp, &tree, "fp16.enabled", &fp16, &have, error) ||
      !plx_import_tree_bool (imp, &tree, "zero_optimization.overlap_comm", &overlap, &have_overlap, error))
    ok = FALSE;
  if (ok && stage > 3)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: zero_optimization.stage: %" G_GINT64_FORMAT
                   " is not 0, 1, 2 or 3", imp->source, stage);
      ok = FALSE;
    }
  if (ok)
    {
      /* DeepSpeed's data parallelism spans every GPU (no tensor or pipeline
       * parallelism in its config): dp = GPUs. */
      if (have_batch && have_micro && have_accumulation)
        {
          if (batch % (micro * accumulation) != 0)
            plx_import_lost (imp, 0, "train_batch_size", NULL,
                             "%" G_GINT64_FORMAT " is not a multiple of train_micro_batch_size_per_gpu x "
                             "gradient_accumulation_steps = %" G_GINT64_FORMAT,
                             batch, micro * accumulation);
          else
            {
              imp->world = (guint64) (batch / (micro * accumulation));
              imp->world_from = "train_batch_size / (train_micro_batch_size_per_gpu x gradient_accumulation_steps)";
            }
        }
      if (have_batch)
        json_object_set_int_member (s, "global_batch_size", batch);
      if (have_micro)
        json_object_set_int_member (s, "micro_batch_size", micro);
      if (!have_batch && have_micro)
        imp->batch_per_dp = (guint64) (micro * (have_accumulation ? accumulation : 1));
      else if (have_batch && !have_micro)
        imp->micro_of_batch = (guint64) (have_accumulation ? accumulation : 1);
      else if (!have_batch && !have_micro)
        plx_import_lost (imp, 0, "train_batch_size", "(not given)",
                         "neither it nor train_micro_batch_size_per_gpu: the scenario has no batch");
      json_object_set_int_member (s, "zero_stage", stage);
      json_object_set_string_member (s, "dtype", bf16 ? "bf16" : fp16 ? "fp16" : "fp32");
      json_object_set_boolean_member (s, "overlap_dp_comm", have_overlap ? overlap : stage == 3);
      json_object_set_string_member (s, "implementation", "deepspeed");
      plx_import_lost (imp, 0, "seq_length", "(not in a DeepSpeed config)",
                       "the scenario runs the model's max_position_embeddings tokens a sequence");
      if (hf_config != NULL && JSON_NODE_HOLDS_OBJECT (hf_config))
        {
          g_autofree char *base = g_path_get_basename (hf_source);
          imp->model = json_object_ref (json_node_get_object (hf_config));
          imp->name = g_strdup_printf ("%s with DeepSpeed ZeRO-%" G_GINT64_FORMAT, base, stage);
        }
      else if (!imp->model_given)
        plx_import_lost (imp, 0, "model", "(not given)",
                         "a DeepSpeed config does not describe the model: give its Hugging Face config.json as a "
                         "second file or with --model");
      plx_import_tree_report (imp, &tree, reasons);
    }
  plx_import_tree_clear (&tree);
  return ok;
}
