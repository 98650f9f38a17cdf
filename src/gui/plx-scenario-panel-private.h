/* plx-scenario-panel-private.h: what the parts of the side panel share
 * (src/gui/plx-scenario-panel*.c).
 *
 *   plx-scenario-panel.c           the object: load and save its JSON, bring every control in line
 *   plx-scenario-panel-rows.c      the kinds of row the panel is made of, and reading the strategy
 *   plx-scenario-panel-model.c     the Model group: presets, dimensions
 *   plx-scenario-panel-cluster.c   the Cluster group: presets, GPU and network, "Save As"
 *   plx-scenario-panel-strategy.c  the Strategy group: schedule, batch, options
 *   plx-scenario-panel-choices.c   the degree sliders, over the valid values only
 */
#pragma once

#include "plx-scenario-panel.h"

G_BEGIN_DECLS

typedef struct
{
  const char *key;          /* strategy key */
  GtkScale   *scale;
  GtkWidget  *row;
  GArray     *values;       /* guint64 */
  guint       n_marks;      /* the scale's marks: one at each of 0 .. n_marks - 1 */
  GtkLabel   *only;         /* shown instead of the scale when one value is valid */
  char       *reason;       /* why that value is the only one, or NULL */
} Choice;

typedef struct
{
  const char *path[2];      /* cluster JSON path: {"gpu", "hbm_bytes"} or {"num_nodes", NULL} */
  double      unit;         /* JSON value = shown value * unit */
  const char *subtitle;     /* the unit line, translated; NULL: none */
  guint       digits;
  GtkSpinButton *spin;
} ClusterSpin;

enum { CHOICE_TP, CHOICE_PP, CHOICE_CP, CHOICE_EP, CHOICE_ETP, CHOICE_MB, CHOICE_VS, N_CHOICES };
enum
{
  SPIN_NODES, SPIN_GPUS_PER_NODE, SPIN_PEAK, SPIN_HBM, SPIN_HBM_BW, SPIN_INTRA_BW, SPIN_INTRA_LAT,
  SPIN_INTER_BW, SPIN_INTER_LAT, SPIN_POWER, N_CLUSTER_SPINS
};
enum { INT_GLOBAL_BATCH, INT_SEQ, N_INT_SPINS };

/* A model dimension the user can edit. GPT-2 configs and the Hugging Face configs of
 * Llama, Mistral, Qwen2 and Mixtral name the same dimension differently; a NULL key
 * means the family has no such setting (GPT-2 has no grouped-query attention). */
enum { MSPIN_LAYERS, MSPIN_HIDDEN, MSPIN_HEADS, MSPIN_KV_HEADS, MSPIN_FFN, MSPIN_VOCAB, MSPIN_EXPERTS,
       MSPIN_EXPERTS_PER_TOKEN, N_MODEL_SPINS };

typedef struct
{
  GtkSpinButton *spin;
  GtkWidget     *row;
  const char    *gpt2_key;
  const char    *hf_key;
} ModelSpin;

struct _PlxScenarioPanel
{
  GtkBox       parent_instance;

  JsonNode    *model;        /* object */
  JsonNode    *cluster;      /* object */
  JsonNode    *strategy;     /* object */
  char        *name;
  char        *base_dir;
  char        *model_file;   /* set when the model came from a file */
  PlxModel    *resolved_model;
  PlxCluster  *resolved_cluster;
  PlxCluster  *shown_cluster;  /* the last cluster that resolved: what the spins show of it */
  char        *cluster_error;  /* why the cluster does not resolve, or NULL */
  gboolean     updating;

  AdwComboRow *model_combo;
  GtkStringList *model_names;   /* the presets' labels, then "(file)" while one is loaded */
  GPtrArray   *model_ids;       /* preset ids, in the list's order */
  guint        resync_idle;     /* a resync waiting for the dropdown to finish its choice */
  AdwActionRow *params_row;    /* the parameter count, derived */
  AdwActionRow *blocks_row;    /* the blocks' mix (plx_model_describe_blocks) */
  AdwActionRow *assumed_row;   /* keys the config left out, given transformers' defaults */
  ModelSpin    model_spins[N_MODEL_SPINS];
  gboolean     model_gpt2;   /* the family of the last model that resolved: its keys */
  AdwComboRow *cluster_combo;
  GtkStringList *cluster_names;
  GPtrArray   *cluster_ids;
  ClusterSpin  cluster_spins[N_CLUSTER_SPINS];
  Choice       choices[N_CHOICES];
  GtkSpinButton *int_spins[N_INT_SPINS];
  AdwActionRow *dp_row;
  AdwComboRow *schedule_combo, *recompute_combo, *zero_combo, *dtype_combo, *implementation_combo;
  AdwComboRow *attention_kernel_combo, *grad_dtype_combo, *cross_entropy_fusion_combo, *moe_dispatcher_combo;
  GtkSwitch   *sp_switch, *flash_switch, *overlap_dp_switch, *overlap_tp_switch;
  GtkSpinButton *bucket_spin;
  AdwEntryRow *layout_row;   /* strategy.pipeline_layout, Megatron-LM's layout string */
  GHashTable  *rows;         /* strategy key -> its row, to mark the one at fault */
  /* The Graph page's model shown in place of the Model and Strategy groups, which
   * it does not use (plx_scenario_panel_show_graph). */
  GtkWidget   *model_group, *strategy_group, *graph_group;
  GtkWidget   *dimensions, *hardware;  /* AdwExpanderRow: the model's and the cluster's details */
  GPtrArray   *graph_rows;
  char        *fits_text;    /* the micro-batch row's "Largest that fits" */
  char        *last_key;     /* the strategy key of the last edit, for undo's merging */
};

/* The strategy's choices as the file writes them, in their dropdowns' order. */
static const char *const schedules[] = { "1f1b", "interleaved-1f1b", "gpipe", "zero-bubble-h1", NULL };
static const char *const recomputes[] = { "none", "selective", "full", "save-dots-except-mlp-input", NULL };
static const char *const zeros[] = { "0", "1", "2", "3", NULL };
static const char *const dtypes[] = { "bf16", "fp16", "fp8", "fp32", NULL };
static const char *const implementations[] = { "auto", "megatron", "pytorch", "deepspeed", "jax-xla", "pytorch-compile", NULL };
static const char *const attention_kernels[] = { "auto", "cudnn", "flash-attention-2", "flash-attention-1", "triton", NULL };
static const char *const grad_dtypes[] = { "auto", "fp32", "bf16", NULL };
static const char *const cross_entropy_fusions[] = { "none", "native", "te", NULL };
static const char *const moe_dispatchers[] = { "alltoall", "deepep", NULL };
static const char *const int_keys[N_INT_SPINS] = { "global_batch_size", "seq_length" };

static inline JsonObject *
obj (JsonNode *node)
{
  return json_node_get_object (node);
}

/* plx-scenario-panel.c */
void plx_panel_resolve (PlxScenarioPanel *self);
void plx_panel_sync_controls (PlxScenarioPanel *self);
void plx_panel_adapt_strategy (PlxScenarioPanel *self);
void plx_panel_queue_resync (PlxScenarioPanel *self);
void plx_panel_emit_changed (PlxScenarioPanel *self);

/* plx-scenario-panel-rows.c */
gint64 plx_panel_strategy_int (PlxScenarioPanel *self, const char *key, gint64 fallback);
const char *plx_panel_strategy_string (PlxScenarioPanel *self, const char *key, const char *fallback);
guint plx_panel_index_of (const char *const *list, const char *value);
JsonNode *plx_panel_read_hf_config (PlxScenarioPanel *self);
gboolean plx_panel_has_overrides (JsonObject *o, const char *also);
void plx_panel_set_subtitle (AdwActionRow *row, const char *text);
void plx_panel_show_preset (AdwComboRow *combo, GtkStringList *names, GPtrArray *ids, const char *preset, const char *other_label);
AdwPreferencesGroup *plx_panel_group (PlxScenarioPanel *self, const char *title);
AdwComboRow *plx_panel_combo (AdwPreferencesGroup *g, const char *title, GtkStringList *model);
GtkSpinButton *plx_panel_spin_row (GtkWidget *into, const char *title, const char *subtitle, double lo, double hi, double step, guint digits);
void plx_panel_remember_row (PlxScenarioPanel *self, const char *key, GtkWidget *control, const char *tooltip);

/* plx-scenario-panel-choices.c */
void plx_panel_refresh_other_choices (PlxScenarioPanel *self, const char *key);
void plx_panel_refresh_choice (PlxScenarioPanel *self, guint which);
gint64 plx_panel_choice_default (PlxScenarioPanel *self, guint which);
void plx_panel_sync_strategy_value (PlxScenarioPanel *self, const char *key);
void plx_panel_choice_row (PlxScenarioPanel *self, AdwPreferencesGroup *g, guint which, const char *key, const char *title, const char *tooltip);

/* plx-scenario-panel-cluster.c */
double plx_panel_cluster_value (PlxScenarioPanel *self, const ClusterSpin *cs);
void plx_panel_refresh_range_subtitles (PlxScenarioPanel *self);
void plx_panel_mark_cluster_fault (PlxScenarioPanel *self);
void plx_panel_build_cluster_group (PlxScenarioPanel *self);
void plx_panel_sync_cluster (PlxScenarioPanel *self);

/* plx-scenario-panel-model.c */
void plx_panel_sync_model_spins (PlxScenarioPanel *self);
void plx_panel_build_model_group (PlxScenarioPanel *self);
void plx_panel_sync_model (PlxScenarioPanel *self);

/* plx-scenario-panel-strategy.c */
void plx_panel_sync_sp (PlxScenarioPanel *self);
void plx_panel_build_strategy_group (PlxScenarioPanel *self);
void plx_panel_sync_strategy (PlxScenarioPanel *self);

G_END_DECLS
