/* plx-import.h: a training framework's configuration turned into a Parallax scenario
 * (parallax-cli import; docs/cli.md, "import"). Each format's reader fills a
 * PlxImport: the model, the strategy keys it could map, what the configuration says of
 * the GPUs, and one line for every setting it could not map. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

typedef struct
{
  const char *source;          /* the configuration, as messages name it */
  char       *name;            /* the scenario's name */
  JsonObject *model;           /* {"preset": NAME} or an inline Hugging Face style config;
                                * NULL: the configuration does not say */
  JsonObject *strategy;
  const char *framework;       /* "Megatron-LM", ... for the scenario's description */
  gboolean    model_given;     /* the command line names the model (--model): a
                                * configuration without one is not reported */
  guint64     world;           /* GPUs the configuration states; 0: it does not */
  const char *world_from;      /* the keys that state it ("trainer.num_nodes x trainer.devices") */
  /* Settings that follow from the data-parallel degree, which is known once the
   * cluster is (dp = GPUs / (tp x pp x cp)); 0 when not used: */
  guint64     batch_per_dp;    /* global_batch_size = batch_per_dp x dp */
  guint64     micro_of_batch;  /* micro_batch_size = global_batch_size / (dp x this) */
  guint64     shard_replicas;  /* HSDP: shard_group_size = dp / shard_replicas */
  GPtrArray  *lost;            /* one line each: "WHERE: KEY VALUE: not mapped: WHY" */
} PlxImport;

PlxImport *plx_import_new (const char *source);
void       plx_import_free (PlxImport *imp);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxImport, plx_import_free)

/* A setting not mapped: `key` and `value` as the configuration writes them (value may
 * be NULL for a switch), `line` 0 when unknown, then why. */
void plx_import_lost (PlxImport  *imp,
                      guint       line,
                      const char *key,
                      const char *value,
                      const char *fmt,
                      ...) G_GNUC_PRINTF (5, 6);

/* `model` (an inline config; taken) or the built-in preset it equals key for key
 * ("source" and "name" aside), so a scenario reads {"preset": "gpt3-175b"} where it
 * can. */
JsonObject *plx_import_model_or_preset (JsonObject *model);

/* Megatron-LM's padded vocabulary (megatron/training/vocab_utils.py,
 * _calculate_padded_vocab_size_cached): the tokenizer's size rounded up to a multiple
 * of make_vocab_size_divisible_by x tensor_model_parallel_size. */
guint64 plx_import_padded_vocab (guint64 vocab,
                                 guint64 divisible_by,
                                 guint64 tp);
/* The GPT-2 BPE vocabulary's size: 50257 tokens (openai-community/gpt2 config.json
 * vocab_size; GPT2BPETokenizer, the tokenizer pretrain_gpt.py and NeMo's GPT recipes
 * default to, reads that vocabulary). */
#define PLX_IMPORT_GPT2_VOCAB 50257

/* A Megatron-Core network as Megatron-LM's flags and NeMo's model config both describe
 * it (NeMo hands its keys to Megatron-Core), with the names each gives the settings,
 * for the lines of what is not mapped. */
typedef struct
{
  gint64      layers, hidden, heads;
  gint64      ffn;              /* 0: the default */
  gint64      gated_ffn;        /* the SwiGLU width when ffn is 0 */
  gint64      groups;           /* query groups; 0: full multi-head attention */
  gint64      kv_channels;      /* 0: hidden / heads */
  gint64      vocab;            /* padded; 0: unknown */
  gint64      max_positions;
  gint64      experts, topk, moe_ffn;
  gboolean    gated, rmsnorm, rope, tied, bias;
  double      attn_dropout;     /* < 0: not given */
  const char *norm, *pos;       /* as the file writes them */
  const char *norm_key, *pos_key, *tie_key, *untied_text, *bias_key, *bias_on_text, *bias_off_text,
             *groups_key, *kv_key, *experts_key;
} PlxImportNetwork;

/* The network as a model: llama-style (mixtral-style with experts) when gated, else
 * GPT-2 style; what neither holds is reported. The preset it equals, where one does. */
JsonObject *plx_import_network_model (PlxImport              *imp,
                                      const PlxImportNetwork *n);

/* Reading a tree (TOML, YAML, JSON): members are taken by dotted path, each taken one
 * remembered, and plx_import_tree_report lists the rest as not mapped. */
typedef struct
{
  JsonNode   *root;
  GHashTable *taken;   /* dotted paths */
} PlxImportTree;

void      plx_import_tree_init (PlxImportTree *tree,
                                JsonNode      *root);
void      plx_import_tree_clear (PlxImportTree *tree);
/* The value at `path` ("model.micro_batch_size"), marked as taken; NULL when absent
 * or null. */
JsonNode *plx_import_tree_take (PlxImportTree *tree,
                                const char    *path);
/* Typed takes: FALSE with an error naming the file, the key and the value when the
 * value is of another type or out of range; TRUE with *present FALSE when absent. */
gboolean  plx_import_tree_int (PlxImport     *imp,
                               PlxImportTree *tree,
                               const char    *path,
                               gint64         min,
                               gint64        *out,
                               gboolean      *present,
                               GError       **error);
gboolean  plx_import_tree_bool (PlxImport     *imp,
                                PlxImportTree *tree,
                                const char    *path,
                                gboolean      *out,
                                gboolean      *present,
                                GError       **error);
gboolean  plx_import_tree_number (PlxImport     *imp,
                                  PlxImportTree *tree,
                                  const char    *path,
                                  double        *out,
                                  gboolean      *present,
                                  GError       **error);
/* A string, or a number or boolean as text; NULL when absent. Owned by the tree. */
const char *plx_import_tree_string (PlxImportTree *tree,
                                    const char    *path);

typedef struct
{
  const char *prefix;   /* a dotted path or its start ("optim.", "exp_manager") */
  const char *why;
} PlxImportReason;

/* Every value of the tree not taken, one line each with the reason of the first
 * entry of `reasons` (ended by a NULL prefix) whose prefix it starts with, else that
 * Parallax does not model it. */
void plx_import_tree_report (PlxImport             *imp,
                             PlxImportTree         *tree,
                             const PlxImportReason *reasons);

/* The formats (plx-import-megatron.c, plx-import-torchtitan.c, plx-import-nemo.c,
 * plx-import-deepspeed.c). FALSE with an error for a file that cannot be read as the
 * format or holds a value of the wrong kind where a setting needs one. */
gboolean plx_import_megatron (PlxImport  *imp,
                              const char *text,
                              GError    **error);
gboolean plx_import_torchtitan (PlxImport *imp,
                                JsonNode  *config,
                                GError   **error);
gboolean plx_import_nemo (PlxImport *imp,
                          JsonNode  *config,
                          GError   **error);
/* `hf_config` (may be NULL: the model is then unknown) is a Hugging Face config.json,
 * copied into the scenario as its model; `hf_source` names it. */
gboolean plx_import_deepspeed (PlxImport  *imp,
                               JsonNode   *config,
                               JsonNode   *hf_config,
                               const char *hf_source,
                               GError    **error);
