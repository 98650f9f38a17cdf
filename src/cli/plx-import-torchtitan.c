/* plx-import-torchtitan.c: a torchtitan TOML job config as a scenario. Keys, defaults
 * and meanings are torchtitan's JobConfig (pytorch/torchtitan at 238fa99, the last
 * commit with TOML configs: torchtitan/config/job_config.py); model flavors are
 * torchtitan/models/llama3/__init__.py's llama3_args with TransformerModelArgs'
 * defaults (models/llama3/model/args.py: vocab_size 128256, multiple_of 256,
 * n_kv_heads = n_heads, max_seq_len set to training.seq_len). */
#include <string.h>

#include "parallax/plx-error.h"
#include "plx-import.h"

/* A published flavor: the preset of the same shape, or the shape itself. */
typedef struct
{
  const char *flavor;
  const char *preset;      /* NULL: written inline from the numbers below */
  gint64      dim, n_layers, n_heads, n_kv_heads, vocab, multiple_of;
  double      ffn_dim_multiplier;  /* 0: none */
} Flavor;

/* The presets were checked against the same numbers: FFN width by FeedForward's rule
 * (models/llama3/model/model.py): hidden = int(2 x 4 x dim / 3), times the multiplier
 * when given, rounded up to multiple_of: 8B -> 14336, 70B -> 28672, 405B -> 53248. */
static const Flavor llama3_flavors[] = {
  { "debugmodel", NULL, 256, 6, 16, 16, 2048, 256, 0 },
  { "debugmodel_flex_attn", NULL, 256, 6, 16, 16, 2048, 256, 0 },
  { "debugmodel_varlen_attn", NULL, 256, 6, 16, 16, 2048, 256, 0 },
  { "8B", "llama-3-8b", 4096, 32, 32, 8, 128256, 1024, 1.3 },
  { "8B_flex", "llama-3-8b", 4096, 32, 32, 8, 128256, 1024, 1.3 },
  { "8B_varlen", "llama-3-8b", 4096, 32, 32, 8, 128256, 1024, 1.3 },
  { "70B", "llama-3-70b", 8192, 80, 64, 8, 128256, 4096, 1.3 },
  { "405B", "llama-3.1-405b", 16384, 126, 128, 8, 128256, 4096, 1.2 },
};

static JsonObject *
flavor_model (PlxImport *imp, const char *name, const char *flavor, gint64 seq)
{
  JsonObject *m = json_object_new ();

  /* JobConfig's defaults: model.name "llama3", model.flavor "debugmodel". */
  if (name == NULL)
    name = "llama3";
  if (g_strcmp0 (name, "llama3") != 0)
    {
      plx_import_lost (imp, 0, "model.name", name,
                       "only torchtitan's llama3 flavors are known; the scenario has no model (pass --model)");
      json_object_unref (m);
      return NULL;
    }
  if (flavor == NULL)
    flavor = "debugmodel";
  for (guint i = 0; i < G_N_ELEMENTS (llama3_flavors); i++)
    {
      const Flavor *fl = &llama3_flavors[i];
      gint64 ffn;
      if (!g_str_equal (fl->flavor, flavor))
        continue;
      if (strstr (flavor, "flex") != NULL || strstr (flavor, "varlen") != NULL)
        plx_import_lost (imp, 0, "model.flavor", flavor,
                         "FlexAttention and variable-length attention are costed as SDPA's fused attention");
      if (fl->preset != NULL)
        {
          json_object_set_string_member (m, "preset", fl->preset);
          return m;
        }
      ffn = (gint64) (2 * 4 * fl->dim / 3);
      if (fl->ffn_dim_multiplier > 0)
        ffn = (gint64) (fl->ffn_dim_multiplier * (double) ffn);
      ffn = fl->multiple_of * ((ffn + fl->multiple_of - 1) / fl->multiple_of);
      json_object_set_string_member (m, "model_type", "llama");
      json_object_set_int_member (m, "num_hidden_layers", fl->n_layers);
      json_object_set_int_member (m, "hidden_size", fl->dim);
      json_object_set_int_member (m, "num_attention_heads", fl->n_heads);
      json_object_set_int_member (m, "num_key_value_heads", fl->n_kv_heads);
      json_object_set_int_member (m, "intermediate_size", ffn);
      json_object_set_int_member (m, "vocab_size", fl->vocab);
      json_object_set_int_member (m, "max_position_embeddings", seq);
      json_object_set_boolean_member (m, "tie_word_embeddings", FALSE);
      return m;
    }
  plx_import_lost (imp, 0, "model.flavor", flavor,
                   "not one of torchtitan's llama3 flavors; the scenario has no model (pass --model)");
  json_object_unref (m);
  return NULL;
}

static const PlxImportReason reasons[] = {
  { "job.", "output folders and the job's description" },
  { "profiling.", "profiling: outside the training step" },
  { "metrics.", "logging: outside the training step" },
  { "optimizer.", "an optimizer hyperparameter: no change to a step's time or memory" },
  { "lr_scheduler.", "the learning rate schedule: no change to a step's time or memory" },
  { "training.max_norm", "gradient clipping: not costed" },
  { "training.steps", "the length of the run, not of a step" },
  { "training.dataset", "the data set: no change to a step's time or memory" },
  { "checkpoint.", "checkpointing: outside the training step" },
  { "validation.", "validation: outside the training step" },
  { "model.hf_assets_path", "the tokenizer's and weights' folder: the flavor gives the shape" },
  { "model.tokenizer_path", "the tokenizer's folder: the flavor gives the shape" },
  { "quantize.", "takes effect only when model.converters names it" },
  { "compile.components", "the compiled parts: read as the whole model" },
  { NULL, NULL },
};

gboolean
plx_import_torchtitan (PlxImport *imp,
                       JsonNode  *config,
                       GError   **error)
{
  PlxImportTree tree;
  JsonObject *s = imp->strategy;
  gint64 local = 8, global = -1, seq = 2048, replicate = 1, shard = -1, tp = 1, pp = 1, cp = 1, ep = 1;
  gint64 pp_micro = 1;
  gboolean have, compile = FALSE, async_tp = FALSE, ok = TRUE;
  const char *mode, *option, *param_dtype, *training_dtype, *reshard, *schedule;
  JsonNode *converters;
  gboolean float8 = FALSE;

  if (!JSON_NODE_HOLDS_OBJECT (config))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: not a torchtitan job config (no tables)", imp->source);
      return FALSE;
    }
  imp->framework = "torchtitan";
  plx_import_tree_init (&tree, config);
  if (!plx_import_tree_int (imp, &tree, "training.local_batch_size", 1, &local, &have, error) ||
      !plx_import_tree_int (imp, &tree, "training.global_batch_size", -1, &global, &have, error) ||
      !plx_import_tree_int (imp, &tree, "training.seq_len", 1, &seq, &have, error) ||
      !plx_import_tree_int (imp, &tree, "parallelism.data_parallel_replicate_degree", 1, &replicate, &have, error) ||
      !plx_import_tree_int (imp, &tree, "parallelism.data_parallel_shard_degree", -1, &shard, &have, error) ||
      !plx_import_tree_int (imp, &tree, "parallelism.tensor_parallel_degree", 1, &tp, &have, error) ||
      !plx_import_tree_int (imp, &tree, "parallelism.pipeline_parallel_degree", 1, &pp, &have, error) ||
      !plx_import_tree_int (imp, &tree, "parallelism.context_parallel_degree", 1, &cp, &have, error) ||
      !plx_import_tree_int (imp, &tree, "parallelism.expert_parallel_degree", 1, &ep, &have, error) ||
      !plx_import_tree_int (imp, &tree, "parallelism.pipeline_parallel_microbatch_size", 1, &pp_micro, &have, error) ||
      !plx_import_tree_bool (imp, &tree, "compile.enable", &compile, &have, error) ||
      !plx_import_tree_bool (imp, &tree, "parallelism.enable_async_tensor_parallel", &async_tp, &have, error))
    ok = FALSE;
  if (ok)
    {
      if (imp->model_given)
        {
          /* --model names it; the flavor is not read. */
          plx_import_tree_take (&tree, "model.name");
          plx_import_tree_take (&tree, "model.flavor");
        }
      else
        imp->model = flavor_model (imp, plx_import_tree_string (&tree, "model.name"),
                                   plx_import_tree_string (&tree, "model.flavor"), seq);
      json_object_set_int_member (s, "seq_length", seq);
      json_object_set_int_member (s, "tp", tp);
      json_object_set_int_member (s, "pp", pp);
      json_object_set_int_member (s, "cp", cp);
      if (ep > 1)
        json_object_set_int_member (s, "ep", ep);
      /* Sharding (FSDP2's fully_shard) when the shard degree is not 1: ZeRO-3 over the
       * shard group, replicated across data_parallel_replicate_degree groups (HSDP). */
      if (shard != 1)
        {
          json_object_set_int_member (s, "zero_stage", 3);
          if (replicate > 1 && shard > 1)
            json_object_set_int_member (s, "shard_group_size", shard);
          else if (replicate > 1)
            imp->shard_replicas = (guint64) replicate;
        }
      if (shard > 0)
        {
          imp->world = (guint64) (shard * replicate * tp * pp * cp);
          imp->world_from = "the parallelism degrees";
          json_object_set_int_member (s, "dp", shard * replicate);
        }
      /* local_batch_size is each data-parallel rank's share of the step; under PP it
       * runs as micro-batches of pipeline_parallel_microbatch_size. */
      json_object_set_int_member (s, "micro_batch_size", pp > 1 ? pp_micro : local);
      if (global > 0)
        json_object_set_int_member (s, "global_batch_size", global);
      else
        imp->batch_per_dp = (guint64) local;
      if (pp > 1)
        {
          schedule = plx_import_tree_string (&tree, "parallelism.pipeline_parallel_schedule");
          if (schedule == NULL || g_str_equal (schedule, "1F1B"))
            json_object_set_string_member (s, "schedule", "1f1b");
          else if (g_str_equal (schedule, "GPipe"))
            json_object_set_string_member (s, "schedule", "gpipe");
          else
            plx_import_lost (imp, 0, "parallelism.pipeline_parallel_schedule", schedule,
                             "costed as 1F1B (Parallax's schedules: gpipe, 1f1b, interleaved-1f1b, "
                             "zero-bubble-h1)");
        }
      /* FSDP's mixed precision: parameters in mixed_precision_param (bf16 by default),
       * unless training.dtype makes everything that dtype. */
      param_dtype = plx_import_tree_string (&tree, "training.mixed_precision_param");
      training_dtype = plx_import_tree_string (&tree, "training.dtype");
      json_object_set_string_member (s, "dtype",
                                     (training_dtype != NULL && g_str_equal (training_dtype, "bfloat16")) ||
                                         param_dtype == NULL || g_str_equal (param_dtype, "bfloat16")
                                       ? "bf16" : "fp32");
      if (training_dtype != NULL && g_str_equal (training_dtype, "bfloat16"))
        plx_import_lost (imp, 0, "training.dtype", training_dtype,
                         "pure bf16 training (no fp32 master weights) is costed as mixed precision");
      converters = plx_import_tree_take (&tree, "model.converters");
      if (converters != NULL && JSON_NODE_HOLDS_ARRAY (converters))
        {
          JsonArray *a = json_node_get_array (converters);
          for (guint i = 0; i < json_array_get_length (a); i++)
            {
              const char *c = json_array_get_string_element (a, i);
              if (c != NULL && (g_str_equal (c, "float8") || g_str_equal (c, "quantize.linear.float8")))
                float8 = TRUE;
              else
                plx_import_lost (imp, 0, "model.converters", c != NULL ? c : "?", "a converter Parallax does not model");
            }
        }
      if (float8)
        {
          gboolean gather = FALSE;
          json_object_set_string_member (s, "dtype", "fp8");
          if (!plx_import_tree_bool (imp, &tree, "quantize.linear.float8.enable_fsdp_float8_all_gather", &gather,
                                     &have, error) ||
              !plx_import_tree_bool (imp, &tree, "float8.enable_fsdp_float8_all_gather", &gather, &have, error))
            ok = FALSE;
          else if (shard != 1)
            json_object_set_boolean_member (s, "fp8_param_gather", gather);
        }
      reshard = plx_import_tree_string (&tree, "parallelism.fsdp_reshard_after_forward");
      if (reshard != NULL && g_str_equal (reshard, "never") && shard != 1)
        json_object_set_boolean_member (s, "reshard_after_forward", FALSE);
      else if (reshard != NULL && g_str_equal (reshard, "always") && shard != 1)
        json_object_set_boolean_member (s, "reshard_after_forward", TRUE);
      /* activation_checkpoint.mode (selective by default; selective_ac_option "2":
       * every second block; "op": op-level policy). */
      mode = plx_import_tree_string (&tree, "activation_checkpoint.mode");
      option = plx_import_tree_string (&tree, "activation_checkpoint.selective_ac_option");
      if (mode == NULL)
        mode = "selective";
      if (g_str_equal (mode, "full") || g_str_equal (mode, "none"))
        json_object_set_string_member (s, "recompute", mode);
      else if (g_str_equal (mode, "selective"))
        {
          json_object_set_string_member (s, "recompute", "selective");
          if (option != NULL && !g_str_equal (option, "2"))
            plx_import_lost (imp, 0, "activation_checkpoint.selective_ac_option", option,
                             "read as \"2\": Parallax's selective recompute under PyTorch checkpoints every "
                             "other block%s", g_str_equal (option, "op")
                                                ? " (the op policy saves the matmul outputs, recomputing the rest: "
                                                  "between that and full)" : "");
        }
      else
        plx_import_lost (imp, 0, "activation_checkpoint.mode", mode, "not none, selective or full");
      /* torch.compile fuses element-wise ops and norms (implementation
       * pytorch-compile); SDPA runs the attention fused (FlashAttention-2). */
      json_object_set_string_member (s, "implementation", compile ? "pytorch-compile" : "pytorch");
      json_object_set_boolean_member (s, "flash_attention", TRUE);
      if (async_tp)
        json_object_set_boolean_member (s, "overlap_tp_comm", TRUE);
    }
  if (ok)
    plx_import_tree_report (imp, &tree, reasons);
  plx_import_tree_clear (&tree);
  return ok;
}
