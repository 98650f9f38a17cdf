/* plx-import-megatron.c: a Megatron-LM launch script or argument list (its examples/
 * scripts: GPT_MODEL_ARGS=( --num-layers 96 ... ), torchrun ... pretrain_gpt.py ...)
 * as a scenario. Flags, their defaults and meanings are Megatron-LM's (NVIDIA/Megatron-LM
 * at d98e8a6): megatron/training/arguments.py, and the dataclasses whose fields it
 * turns into flags (--field-name for field_name, megatron/training/argument_utils.py):
 * TransformerConfig (megatron/core/transformer/transformer_config.py),
 * ModelParallelConfig (megatron/core/model_parallel_config.py), TrainingConfig and
 * TokenizerConfig (megatron/training/config/training_config.py). argparse takes a
 * flag's last occurrence; so does this reader. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "parallax/plx-error.h"
#include "plx-import-shell.h"
#include "plx-import.h"

typedef struct
{
  char        *flag;    /* "--num-layers" */
  GPtrArray   *values;  /* PlxShellWord, borrowed from the word list */
  PlxShellWord *inline_value;  /* the value of --flag=value, owned */
  guint        line;
  gboolean     used;
} Arg;

static void
arg_free (Arg *a)
{
  g_free (a->flag);
  g_ptr_array_unref (a->values);
  plx_shell_word_free (a->inline_value);
  g_free (a);
}

typedef struct
{
  PlxImport *imp;
  GPtrArray *args;   /* Arg, in order */
  GError   **error;
  gboolean   failed;
} Flags;

/* Words into flags and their values; a word before any flag is not mapped, but for
 * a launcher's own name and module ("torchrun", "python -m torch.distributed.run"). */
static GPtrArray *
group_flags (PlxImport *imp, GPtrArray *words, gboolean launcher)
{
  GPtrArray *args = g_ptr_array_new_with_free_func ((GDestroyNotify) arg_free);
  Arg *cur = NULL;

  for (guint i = 0; i < words->len; i++)
    {
      PlxShellWord *w = g_ptr_array_index (words, i);
      if (g_str_has_prefix (w->text, "--") && w->text[2] != '\0' && w->unresolved == NULL)
        {
          const char *eq = strchr (w->text, '=');
          cur = g_new0 (Arg, 1);
          cur->values = g_ptr_array_new ();
          cur->line = w->line;
          if (eq != NULL)
            {
              cur->flag = g_strndup (w->text, eq - w->text);
              cur->inline_value = g_new0 (PlxShellWord, 1);
              cur->inline_value->text = g_strdup (eq + 1);
              cur->inline_value->line = w->line;
              g_ptr_array_add (cur->values, cur->inline_value);
            }
          else
            cur->flag = g_strdup (w->text);
          g_ptr_array_add (args, cur);
        }
      else if (cur != NULL)
        g_ptr_array_add (cur->values, w);
      else if (!launcher)
        plx_import_lost (imp, w->line, w->text, NULL, "%s",
                         w->unresolved != NULL ? "not set in the script" : "an argument before any flag");
    }
  return args;
}

/* The flag's last occurrence, every occurrence marked as read; NULL when absent. */
static Arg *
find (Flags *f, const char *flag)
{
  Arg *last = NULL;

  for (guint i = 0; i < f->args->len; i++)
    {
      Arg *a = g_ptr_array_index (f->args, i);
      if (g_str_equal (a->flag, flag))
        {
          a->used = TRUE;
          last = a;
        }
    }
  return last;
}

static char *
values_text (Arg *a)
{
  g_autoptr (GString) s = g_string_new (NULL);

  for (guint i = 0; i < a->values->len; i++)
    g_string_append_printf (s, "%s%s", i ? " " : "", ((PlxShellWord *) g_ptr_array_index (a->values, i))->text);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* The flag's one value: NULL when absent or not set in the script (then reported),
 * and an error (f->failed) for a flag without a value. */
static const char *
value_of (Flags *f, const char *flag)
{
  Arg *a = find (f, flag);
  PlxShellWord *w;

  if (a == NULL || f->failed)
    return NULL;
  if (a->values->len == 0)
    {
      g_set_error (f->error, PLX_ERROR, PLX_ERROR_MISSING_KEY, "%s:%u: %s: needs a value", f->imp->source, a->line,
                   flag);
      f->failed = TRUE;
      return NULL;
    }
  w = g_ptr_array_index (a->values, 0);
  if (w->unresolved != NULL)
    {
      plx_import_lost (f->imp, w->line, flag, w->text, "%s is not set in the script", w->unresolved);
      return NULL;
    }
  if (a->values->len > 1)
    {
      g_autofree char *all = values_text (a);
      plx_import_lost (f->imp, a->line, flag, all, "takes one value; the first is used");
    }
  return w->text;
}

/* A whole number of at least `min`: TRUE when given (in *out). */
static gboolean
int_of (Flags *f, const char *flag, gint64 min, gint64 *out)
{
  const char *text = value_of (f, flag);
  char *end = NULL;
  gint64 v;

  if (text == NULL)
    return FALSE;
  errno = 0;
  v = g_ascii_strtoll (text, &end, 10);
  if (text[0] == '\0' || *end != '\0' || errno != 0 || v < min)
    {
      g_set_error (f->error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s:%u: %s: \"%s\" is not a whole number%s",
                   f->imp->source, find (f, flag)->line, flag, text, min > 0 ? " of at least 1" : "");
      f->failed = TRUE;
      return FALSE;
    }
  *out = v;
  return TRUE;
}

static gboolean
number_of (Flags *f, const char *flag, double *out)
{
  const char *text = value_of (f, flag);
  char *end = NULL;
  double v;

  if (text == NULL)
    return FALSE;
  v = g_ascii_strtod (text, &end);
  if (text[0] == '\0' || *end != '\0' || !isfinite (v))
    {
      g_set_error (f->error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s:%u: %s: \"%s\" is not a number",
                   f->imp->source, find (f, flag)->line, flag, text);
      f->failed = TRUE;
      return FALSE;
    }
  *out = v;
  return TRUE;
}

/* A switch (store_true): given or not. Words after it are not its value. */
static gboolean
switch_of (Flags *f, const char *flag)
{
  Arg *a = find (f, flag);

  if (a != NULL && a->values->len > 0)
    {
      g_autofree char *stray = values_text (a);
      plx_import_lost (f->imp, a->line, stray, NULL, "a word after %s, which takes no value", flag);
    }
  return a != NULL;
}

/* A setting the scenario cannot hold, when the flag was given. */
static void
lost_if (Flags *f, const char *flag, const char *why)
{
  Arg *a = find (f, flag);

  if (a != NULL)
    {
      g_autofree char *v = values_text (a);
      plx_import_lost (f->imp, a->line, flag, v[0] != '\0' ? v : NULL, "%s", why);
    }
}

/* Why a flag read by no rule below is not mapped, by its name's start. */
static const PlxImportReason flag_reasons[] = {
  { "--lr", "the learning rate and its schedule do not change a step's time or memory" },
  { "--min-lr", "the learning rate and its schedule do not change a step's time or memory" },
  { "--weight-decay", "an optimizer hyperparameter: no change to a step's time or memory" },
  { "--adam-", "an optimizer hyperparameter: no change to a step's time or memory" },
  { "--clip-grad", "an optimizer hyperparameter: no change to a step's time or memory" },
  { "--init-method", "weight initialisation: no change to a step's time or memory" },
  { "--seed", "randomness: no change to a step's time or memory" },
  { "--train-iters", "the length of the run, not of a step" },
  { "--train-samples", "the length of the run, not of a step" },
  { "--step-batch-size-schedule", "a batch size that changes during the run: the scenario holds the final one" },
  { "--rampup-batch-size", "a batch size that changes during the run: the scenario holds the final one" },
  { "--data-", "the data set: no change to a step's time or memory" },
  { "--split", "the data set: no change to a step's time or memory" },
  { "--save", "checkpointing: outside the training step" },
  { "--load", "checkpointing: outside the training step" },
  { "--ckpt", "checkpointing: outside the training step" },
  { "--log", "logging: outside the training step" },
  { "--tensorboard", "logging: outside the training step" },
  { "--wandb", "logging: outside the training step" },
  { "--eval", "evaluation: outside the training step" },
  { "--exit", "the length of the run, not of a step" },
  { "--distributed-backend", "Parallax models NCCL's collectives" },
  { "--nproc", "torchrun: only --nproc_per_node x --nnodes (the GPU count) is read" },
  { "--nnodes", "torchrun: only --nproc_per_node x --nnodes (the GPU count) is read" },
  { "--node", "torchrun's rendezvous: not a setting of the training step" },
  { "--master", "torchrun's rendezvous: not a setting of the training step" },
  { "--rdzv", "torchrun's rendezvous: not a setting of the training step" },
  { NULL, NULL },
};

static const char *
flag_reason (const char *flag)
{
  for (guint i = 0; flag_reasons[i].prefix != NULL; i++)
    if (g_str_has_prefix (flag, flag_reasons[i].prefix))
      return flag_reasons[i].why;
  return "not a setting Parallax models";
}

/* torchrun's --nproc_per_node x --nnodes (torch.distributed.run; --nproc-per-node is
 * its other spelling). */
static void
read_launcher (PlxImport *imp, GPtrArray *launcher, GError **error)
{
  g_autoptr (GPtrArray) args = group_flags (imp, launcher, TRUE);
  Flags f = { imp, args, error, FALSE };
  gint64 per_node = 0, nodes = 1;
  gboolean have = FALSE;

  if (int_of (&f, "--nproc_per_node", 1, &per_node) || int_of (&f, "--nproc-per-node", 1, &per_node))
    have = TRUE;
  if (!f.failed)
    int_of (&f, "--nnodes", 1, &nodes);
  if (have && !f.failed)
    {
      imp->world = (guint64) per_node * (guint64) nodes;
      imp->world_from = "--nproc_per_node x --nnodes";
    }
  for (guint i = 0; i < args->len && !f.failed; i++)
    {
      Arg *a = g_ptr_array_index (args, i);
      g_autofree char *v = values_text (a);
      if (!a->used)
        plx_import_lost (imp, a->line, a->flag, v[0] != '\0' ? v : NULL, "%s", flag_reason (a->flag));
    }
}

static void
set_int (JsonObject *o, const char *key, gint64 v)
{
  json_object_set_int_member (o, key, v);
}

/* The model from the network-size flags, or NULL (reported) without them. */
static JsonObject *
read_model (Flags *f, gint64 tp, gint64 *layers_out)
{
  PlxImport *imp = f->imp;
  gint64 layers = 0, hidden = 0, heads = 0, ffn = 0, kv_channels = 0, groups = 0, vocab = 0, divisible = 128;
  gint64 max_pos = 0, seq = 0, experts = 0, topk = 2, moe_ffn = 0;
  gboolean gated = switch_of (f, "--swiglu");
  gboolean untie = switch_of (f, "--untie-embeddings-and-output-weights");
  gboolean gqa = switch_of (f, "--group-query-attention");
  gboolean no_bias = switch_of (f, "--disable-bias-linear");
  const char *norm = value_of (f, "--normalization");
  const char *pos = value_of (f, "--position-embedding-type");
  const char *tokenizer = value_of (f, "--tokenizer-type");
  double attn_dropout = -1;
  JsonObject *m;

  int_of (f, "--num-layers", 1, &layers);
  int_of (f, "--hidden-size", 1, &hidden);
  int_of (f, "--num-attention-heads", 1, &heads);
  int_of (f, "--ffn-hidden-size", 1, &ffn);
  int_of (f, "--kv-channels", 1, &kv_channels);
  int_of (f, "--num-query-groups", 1, &groups);
  int_of (f, "--vocab-size", 1, &vocab);
  int_of (f, "--make-vocab-size-divisible-by", 1, &divisible);
  int_of (f, "--max-position-embeddings", 1, &max_pos);
  int_of (f, "--seq-length", 1, &seq);
  int_of (f, "--num-experts", 1, &experts);
  int_of (f, "--moe-router-topk", 1, &topk);
  int_of (f, "--moe-ffn-hidden-size", 1, &moe_ffn);
  number_of (f, "--attention-dropout", &attn_dropout);
  if (switch_of (f, "--use-rotary-position-embeddings"))
    pos = "rope";
  /* The tokenizer's files name its vocabulary; read only for the message below. */
  find (f, "--vocab-file");
  find (f, "--merge-file");
  find (f, "--tokenizer-model");
  *layers_out = layers;
  if (f->failed)
    return NULL;
  if (layers == 0 || hidden == 0 || heads == 0)
    {
      if (!imp->model_given)
        plx_import_lost (imp, 0, "--num-layers, --hidden-size, --num-attention-heads", NULL,
                       "not all given, so the scenario has no model (add one, or pass --model)");
      return NULL;
    }
  if (max_pos == 0)
    max_pos = seq;
  if (norm == NULL)
    norm = "LayerNorm";
  if (pos == NULL)
    pos = "learned_absolute";

  /* The vocabulary: --vocab-size, or GPT2BPETokenizer's, the tokenizer pretrain_gpt.py
   * defaults to (its args_defaults); padded as Megatron-LM pads it. */
  if (vocab == 0 && (tokenizer == NULL || g_str_equal (tokenizer, "GPT2BPETokenizer")))
    vocab = PLX_IMPORT_GPT2_VOCAB;
  else if (vocab == 0)
    plx_import_lost (imp, find (f, "--tokenizer-type")->line, "--tokenizer-type", tokenizer,
                     "its vocabulary's size is in the tokenizer's files, not in the script: the model has no "
                     "vocab_size (add the tokenizer's size padded to a multiple of %" G_GINT64_FORMAT ")",
                     divisible * tp);

  {
    PlxImportNetwork n = {
      layers, hidden, heads, ffn,
      /* Megatron-LM's SwiGLU width when not given: int((4h x 2/3) / 64) x 64
       * (arguments.py, validate_args). */
      (gint64) ((4 * hidden * 2 / 3) / 64) * 64,
      gqa ? (groups > 0 ? groups : 1) : 0, kv_channels,
      vocab > 0 ? (gint64) plx_import_padded_vocab ((guint64) vocab, (guint64) divisible, (guint64) tp) : 0,
      max_pos, experts, topk, moe_ffn,
      gated, g_str_equal (norm, "RMSNorm"), g_str_equal (pos, "rope"),
      /* Megatron ties the output layer to the embedding unless told not to. */
      !untie, !no_bias, attn_dropout, norm, pos,
      "--normalization", "--position-embedding-type", "--untie-embeddings-and-output-weights", NULL,
      "--disable-bias-linear", "(not given)", NULL, "--group-query-attention", "--kv-channels", "--num-experts",
    };
    m = plx_import_network_model (imp, &n);
  }
  lost_if (f, "--moe-shared-expert-intermediate-size", "shared experts beside routed ones are not modelled here");
  lost_if (f, "--moe-layer-freq", "every block is read as a mixture-of-experts block");
  lost_if (f, "--qk-layernorm", "not modelled for Megatron-LM's blocks");
  lost_if (f, "--add-qkv-bias", "not modelled for Megatron-LM's blocks");
  lost_if (f, "--squared-relu", "the MLP is read as GELU or SwiGLU");
  lost_if (f, "--hidden-dropout", "Parallax's dropout follows attn_pdrop (--attention-dropout)");
  return m;
}

/* --recompute-granularity, --recompute-method, --recompute-num-layers and the
 * deprecated --recompute-activations (selective; arguments.py). */
static void
read_recompute (Flags *f, gint64 layers, gint64 pp, gint64 v)
{
  const char *granularity = value_of (f, "--recompute-granularity");
  const char *method = value_of (f, "--recompute-method");
  gint64 n = 0;
  gboolean has_n = int_of (f, "--recompute-num-layers", 0, &n);

  if (switch_of (f, "--recompute-activations") && granularity == NULL)
    granularity = "selective";
  if (granularity == NULL)
    return;
  if (!g_str_equal (granularity, "full") && !g_str_equal (granularity, "selective"))
    {
      plx_import_lost (f->imp, find (f, "--recompute-granularity")->line, "--recompute-granularity", granularity,
                       "not full or selective");
      return;
    }
  json_object_set_string_member (f->imp->strategy, "recompute", granularity);
  /* Selective: the attention core (--recompute-modules core_attn, the default). */
  lost_if (f, "--recompute-modules", "selective recompute is read as the attention core (core_attn) only");
  if (g_str_equal (granularity, "full") && method != NULL)
    {
      /* uniform with 1 layer a unit, or block over every layer of a chunk: every
       * layer recomputed, as Parallax's "full" does. */
      gint64 per_chunk = pp * v > 0 && layers > 0 ? layers / (pp * v) : 0;
      gboolean all = (g_str_equal (method, "uniform") && (!has_n || n == 1)) ||
                     (g_str_equal (method, "block") && has_n && n >= per_chunk && per_chunk > 0);
      if (!all)
        plx_import_lost (f->imp, find (f, "--recompute-method")->line, "--recompute-method", method,
                         "only some layers recomputed (--recompute-num-layers); read as every layer");
    }
}

static void
read_pipeline (Flags *f, gint64 layers, gint64 pp, gint64 *v_out)
{
  PlxImport *imp = f->imp;
  gint64 per_chunk = 0, v = 0, first = 0, last = 0;
  const char *layout = value_of (f, "--pipeline-model-parallel-layout");
  gboolean embedding = switch_of (f, "--account-for-embedding-in-pipeline-split");
  gboolean loss = switch_of (f, "--account-for-loss-in-pipeline-split");

  if (int_of (f, "--num-layers-per-virtual-pipeline-stage", 1, &per_chunk) && layers > 0)
    {
      if (layers % (pp * per_chunk) != 0)
        plx_import_lost (imp, find (f, "--num-layers-per-virtual-pipeline-stage")->line,
                         "--num-layers-per-virtual-pipeline-stage", NULL,
                         "%" G_GINT64_FORMAT " layers do not split into %" G_GINT64_FORMAT " stages of chunks of that",
                         layers, pp);
      else
        v = layers / (pp * per_chunk);
    }
  int_of (f, "--num-virtual-stages-per-pipeline-rank", 1, &v);
  if (v > 1)
    {
      set_int (imp->strategy, "virtual_stages", v);
      json_object_set_string_member (imp->strategy, "schedule", "interleaved-1f1b");
    }
  else if (pp > 1)
    json_object_set_string_member (imp->strategy, "schedule", "1f1b");
  *v_out = MAX (v, 1);
  if (layout != NULL)
    json_object_set_string_member (imp->strategy, "pipeline_layout", layout);
  if (int_of (f, "--decoder-first-pipeline-num-layers", 1, &first))
    set_int (imp->strategy, "first_stage_layers", first);
  if (int_of (f, "--decoder-last-pipeline-num-layers", 1, &last))
    set_int (imp->strategy, "last_stage_layers", last);
  if ((embedding || loss) && layers > 0)
    {
      /* The embedding and/or the loss count as a layer of the split, and the chunk
       * holding it builds one transformer layer fewer (transformer_block.py,
       * get_num_layers_to_build). */
      gint64 chunks = pp * *v_out, total = layers + embedding + loss;
      if (total % chunks != 0)
        plx_import_lost (imp, find (f, embedding ? "--account-for-embedding-in-pipeline-split"
                                                 : "--account-for-loss-in-pipeline-split")->line,
                         embedding ? "--account-for-embedding-in-pipeline-split" : "--account-for-loss-in-pipeline-split",
                         NULL, "%" G_GINT64_FORMAT " layers do not split over %" G_GINT64_FORMAT " model chunks",
                         total, chunks);
      else
        {
          JsonArray *counts = json_array_new ();
          for (gint64 c = 0; c < chunks; c++)
            json_array_add_int_element (counts, total / chunks - (c == 0 && embedding) - (c == chunks - 1 && loss));
          json_object_set_array_member (imp->strategy, "layers_per_stage", counts);
        }
    }
}

/* --attention-backend (AttnBackend: flash, fused, unfused, local, auto; auto lets
 * Transformer Engine choose its fused kernels) and the older --use-flash-attn. */
static void
read_attention (Flags *f)
{
  const char *backend = value_of (f, "--attention-backend");
  const char *impl = value_of (f, "--transformer-impl");
  JsonObject *s = f->imp->strategy;

  if (impl != NULL && !g_str_equal (impl, "transformer_engine"))
    plx_import_lost (f->imp, find (f, "--transformer-impl")->line, "--transformer-impl", impl,
                     "costed as Transformer Engine's fused kernels (implementation megatron)");
  if (switch_of (f, "--use-flash-attn"))
    backend = backend != NULL ? backend : "flash";
  if (backend == NULL || g_str_equal (backend, "auto"))
    json_object_set_boolean_member (s, "flash_attention", TRUE);
  else if (g_str_equal (backend, "flash"))
    json_object_set_string_member (s, "attention_kernel", "flash-attention-2");
  else if (g_str_equal (backend, "fused"))
    json_object_set_string_member (s, "attention_kernel", "cudnn");
  else if (g_str_equal (backend, "unfused") || g_str_equal (backend, "local"))
    json_object_set_boolean_member (s, "flash_attention", FALSE);
  else
    plx_import_lost (f->imp, find (f, "--attention-backend")->line, "--attention-backend", backend,
                     "not flash, fused, unfused, local or auto");
}

/* Precision, optimizer sharding and communication overlap. */
static void
read_training (Flags *f, gint64 grad_bytes_default)
{
  PlxImport *imp = f->imp;
  JsonObject *s = imp->strategy;
  const char *fp8 = value_of (f, "--fp8-format");
  const char *sharding = value_of (f, "--data-parallel-sharding-strategy");
  const char *ce_impl = value_of (f, "--cross-entropy-fusion-impl");
  const char *dispatcher = value_of (f, "--moe-token-dispatcher-type");
  gboolean bf16 = switch_of (f, "--bf16"), fp16 = switch_of (f, "--fp16");
  gboolean reduce_bf16 = switch_of (f, "--grad-reduce-in-bf16");
  gboolean fsdp = switch_of (f, "--use-torch-fsdp2") || switch_of (f, "--use-megatron-fsdp");
  gint64 bucket = 0;
  double capacity = 0;

  /* Megatron-LM trains in fp32 unless --bf16 or --fp16; fp8 (Transformer Engine's
   * GEMMs) goes with one of them. */
  json_object_set_string_member (s, "dtype", fp8 != NULL ? "fp8" : bf16 ? "bf16" : fp16 ? "fp16" : "fp32");
  if (fp8 != NULL && !bf16 && !fp16)
    plx_import_lost (imp, find (f, "--fp8-format")->line, "--fp8-format", fp8,
                     "fp8 is costed with bf16 for what is not a GEMM; the script gives neither --bf16 nor --fp16");
  lost_if (f, "--fp8-recipe", "fp8 is costed as one recipe (per-tensor scaling)");
  if (switch_of (f, "--fp8-param-gather"))
    json_object_set_boolean_member (s, "fp8_param_gather", TRUE);
  /* The distributed optimizer shards the optimizer states over the data-parallel
   * ranks: ZeRO-1. Megatron's FSDP shards what --data-parallel-sharding-strategy says
   * (optim_grads_params by default: ZeRO-3). */
  if (fsdp)
    set_int (s, "zero_stage", sharding == NULL || g_str_equal (sharding, "optim_grads_params") ? 3
                              : g_str_equal (sharding, "optim_grads") ? 2 : g_str_equal (sharding, "optim") ? 1 : 0);
  else if (switch_of (f, "--use-distributed-optimizer"))
    set_int (s, "zero_stage", 1);
  /* Gradient reduction overlaps the backward pass only with --overlap-grad-reduce
   * (default False); Parallax's overlap_dp_comm also hides the distributed
   * optimizer's parameter all-gather (--overlap-param-gather). */
  json_object_set_boolean_member (s, "overlap_dp_comm", switch_of (f, "--overlap-grad-reduce"));
  if (switch_of (f, "--overlap-param-gather") && !json_object_get_boolean_member (s, "overlap_dp_comm"))
    plx_import_lost (imp, find (f, "--overlap-param-gather")->line, "--overlap-param-gather", NULL,
                     "Megatron-LM needs --overlap-grad-reduce with it; both read as overlap_dp_comm");
  if (switch_of (f, "--tp-comm-overlap"))
    json_object_set_boolean_member (s, "overlap_tp_comm", TRUE);
  if (switch_of (f, "--cross-entropy-loss-fusion"))
    json_object_set_string_member (s, "cross_entropy_fusion", ce_impl != NULL && g_str_equal (ce_impl, "te")
                                                                ? "te" : "native");
  if (reduce_bf16)
    json_object_set_string_member (s, "grad_dtype", "bf16");
  /* --ddp-bucket-size counts gradient elements (DistributedDataParallelConfig
   * bucket_size); Parallax's key is bytes. */
  if (int_of (f, "--ddp-bucket-size", 1, &bucket))
    set_int (s, "grad_bucket_bytes", MAX (bucket * (reduce_bf16 ? 2 : grad_bytes_default), 1000000));
  if (dispatcher != NULL && g_str_equal (dispatcher, "alltoall"))
    json_object_set_string_member (s, "moe_dispatcher", "alltoall");
  else if (dispatcher != NULL && g_str_equal (dispatcher, "flex") && switch_of (f, "--moe-enable-deepep"))
    json_object_set_string_member (s, "moe_dispatcher", "deepep");
  else if (dispatcher != NULL)
    plx_import_lost (imp, find (f, "--moe-token-dispatcher-type")->line, "--moe-token-dispatcher-type", dispatcher,
                     "costed as the all-to-all dispatcher");
  if (number_of (f, "--moe-expert-capacity-factor", &capacity))
    json_object_set_double_member (s, "moe_capacity_factor", capacity);
}

gboolean
plx_import_megatron (PlxImport  *imp,
                     const char *text,
                     GError    **error)
{
  g_autoptr (GPtrArray) launcher = NULL;
  g_autoptr (GPtrArray) words = plx_shell_words (text, imp->source, &launcher, error);
  g_autoptr (GPtrArray) args = NULL;
  Flags f = { imp, NULL, error, FALSE };
  gint64 tp = 1, pp = 1, cp = 1, ep = 1, etp = 0, micro = 1, global = 0, layers = 0, v = 1;
  JsonObject *s = imp->strategy;

  if (words == NULL)
    return FALSE;
  imp->framework = "Megatron-LM";
  read_launcher (imp, launcher, error);
  if (error != NULL && *error != NULL)
    return FALSE;
  args = group_flags (imp, words, FALSE);
  f.args = args;
  int_of (&f, "--tensor-model-parallel-size", 1, &tp);
  int_of (&f, "--pipeline-model-parallel-size", 1, &pp);
  int_of (&f, "--context-parallel-size", 1, &cp);
  int_of (&f, "--expert-model-parallel-size", 1, &ep);
  int_of (&f, "--expert-tensor-parallel-size", 1, &etp);
  if (f.failed)
    return FALSE;
  set_int (s, "tp", tp);
  set_int (s, "pp", pp);
  set_int (s, "cp", cp);
  imp->model = read_model (&f, tp, &layers);
  if (f.failed)
    return FALSE;
  if (ep > 1 || etp > 0)
    {
      JsonNode *type = imp->model != NULL ? json_object_get_member (imp->model, "model_type") : NULL;
      gboolean dense = imp->model != NULL && !json_object_has_member (imp->model, "preset") &&
                       (type == NULL || !g_str_equal (json_node_get_string (type), "mixtral"));
      if (dense)
        plx_import_lost (imp, 0, "--expert-model-parallel-size", NULL, "the model is dense");
      else
        {
          set_int (s, "ep", ep);
          if (etp > 0)
            set_int (s, "etp", etp);
        }
    }
  if (switch_of (&f, "--sequence-parallel"))
    json_object_set_boolean_member (s, "sequence_parallel", TRUE);
  int_of (&f, "--micro-batch-size", 1, &micro);
  set_int (s, "micro_batch_size", micro);
  /* Without --global-batch-size Megatron-LM runs micro-batch x dp (TrainingConfig). */
  if (int_of (&f, "--global-batch-size", 1, &global))
    set_int (s, "global_batch_size", global);
  else if (!f.failed)
    imp->batch_per_dp = (guint64) micro;
  {
    gint64 seq = 0;
    if (int_of (&f, "--seq-length", 1, &seq))
      set_int (s, "seq_length", seq);
  }
  read_pipeline (&f, layers, pp, &v);
  read_recompute (&f, layers, pp, v);
  read_attention (&f);
  /* Gradients are reduced in fp32 (main_grad) unless fp16 or --grad-reduce-in-bf16. */
  read_training (&f, switch_of (&f, "--fp16") ? 2 : 4);
  if (f.failed)
    return FALSE;
  json_object_set_string_member (s, "implementation", "megatron");
  for (guint i = 0; i < args->len; i++)
    {
      Arg *a = g_ptr_array_index (args, i);
      g_autofree char *val = values_text (a);
      if (!a->used)
        plx_import_lost (imp, a->line, a->flag, val[0] != '\0' ? val : NULL, "%s", flag_reason (a->flag));
    }
  return TRUE;
}
