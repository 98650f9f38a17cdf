/* The side panel. Degree sliders move over valid values only (divisors of the head
 * count that fit a node for TP, of the layer count for PP, ...), the data-parallel
 * degree is derived and shown, and changing any cluster value marks the cluster as
 * custom (its preset plus overrides, as FORMATS.md writes it). */
#include <glib/gi18n-lib.h>
#include <math.h>

#include "plx-key-names.h"
#include "plx-scenario-panel.h"
#include "base/plx-json.h"
#include "base/plx-presets.h"
#include "hardware/plx-cluster-inputs.h"
#include "optimize/plx-advice.h"

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

enum { CHOICE_TP, CHOICE_PP, CHOICE_CP, CHOICE_EP, CHOICE_MB, CHOICE_VS, N_CHOICES };
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
  GtkSwitch   *sp_switch, *flash_switch, *overlap_dp_switch, *overlap_tp_switch;
  GtkSpinButton *bucket_spin;
  GHashTable  *rows;         /* strategy key -> its row, to mark the one at fault */
  /* The Graph page's model shown in place of the Model and Strategy groups, which
   * it does not use (plx_scenario_panel_show_graph). */
  GtkWidget   *model_group, *strategy_group, *graph_group;
  GtkWidget   *dimensions, *hardware;  /* AdwExpanderRow: the model's and the cluster's details */
  GPtrArray   *graph_rows;
  char        *fits_text;    /* the micro-batch row's "Largest that fits" */
  char        *last_key;     /* the strategy key of the last edit, for undo's merging */
};

G_DEFINE_FINAL_TYPE (PlxScenarioPanel, plx_scenario_panel, GTK_TYPE_BOX)

enum { CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static const char *const schedules[] = { "1f1b", "interleaved-1f1b", "gpipe", "zero-bubble-h1", NULL };
static const char *const recomputes[] = { "none", "selective", "full", NULL };
static const char *const zeros[] = { "0", "1", "2", "3", NULL };
static const char *const dtypes[] = { "bf16", "fp16", "fp8", "fp32", NULL };
static const char *const implementations[] = { "auto", "megatron", "pytorch", "deepspeed", NULL };
static const char *const int_keys[N_INT_SPINS] = { "global_batch_size", "seq_length" };

static void emit_changed (PlxScenarioPanel *self);
static void queue_resync (PlxScenarioPanel *self);

/* ---- JSON helpers -------------------------------------------------------------- */

static JsonObject *
obj (JsonNode *node)
{
  return json_node_get_object (node);
}

static gint64
strategy_int (PlxScenarioPanel *self, const char *key, gint64 fallback)
{
  JsonNode *n = json_object_get_member (obj (self->strategy), key);
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return fallback;
  if (json_node_get_value_type (n) == G_TYPE_INT64)
    return json_node_get_int (n);
  if (json_node_get_value_type (n) == G_TYPE_DOUBLE)
    return (gint64) json_node_get_double (n);
  return fallback;
}

static const char *
strategy_string (PlxScenarioPanel *self, const char *key, const char *fallback)
{
  JsonNode *n = json_object_get_member (obj (self->strategy), key);
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    return fallback;
  return json_node_get_string (n);
}

static guint
index_of (const char *const *list, const char *value)
{
  for (guint i = 0; list[i]; i++)
    if (g_strcmp0 (list[i], value) == 0)
      return i;
  return 0;
}

/* ---- resolving the model and cluster for facts and choices --------------------- */

/* The Hugging Face config file the model names (relative to the scenario), parsed;
 * NULL if it cannot be read. */
static JsonNode *
read_hf_config (PlxScenarioPanel *self)
{
  const char *path = json_object_get_string_member (obj (self->model), "hf_config");
  g_autofree char *full = g_path_is_absolute (path) ? g_strdup (path) : g_build_filename (self->base_dir, path, NULL);

  return plx_json_parse_file (full, NULL);
}

/* Whether a preset object carries values of its own: any key beside "preset" and the
 * key `also` (NULL: none) that a preset choice itself sets. */
static gboolean
has_overrides (JsonObject *o, const char *also)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  json_object_iter_init (&iter, o);
  while (json_object_iter_next (&iter, &key, &value))
    if (!g_str_equal (key, "preset") && g_strcmp0 (key, also) != 0)
      return TRUE;
  return FALSE;
}

/* A row's subtitle, set only when it changes: each set re-lays out the panel. */
static void
set_subtitle (AdwActionRow *row, const char *text)
{
  if (g_strcmp0 (adw_action_row_get_subtitle (row), text) != 0)
    adw_action_row_set_subtitle (row, text);
}

static void
resolve (PlxScenarioPanel *self)
{
  g_autoptr (JsonNode) model = NULL;
  JsonObject *m = obj (self->model);

  g_clear_pointer (&self->resolved_model, plx_model_free);
  g_clear_pointer (&self->resolved_cluster, plx_cluster_free);
  if (json_object_has_member (m, "hf_config"))
    {
      g_autoptr (JsonNode) config = read_hf_config (self);
      if (config != NULL)
        model = plx_json_merge (config, NULL);
    }
  else
    model = plx_json_deep_copy (self->model);
  if (model != NULL)
    self->resolved_model = plx_model_new_from_json (model, "model", NULL);
  g_clear_pointer (&self->cluster_error, g_free);
  {
    g_autoptr (GError) error = NULL;
    self->resolved_cluster = plx_cluster_new_from_json (self->cluster, "cluster", &error);
    if (error != NULL)
      self->cluster_error = g_strdup (error->message);
  }
  if (self->resolved_cluster != NULL)
    {
      g_clear_pointer (&self->shown_cluster, plx_cluster_free);
      self->shown_cluster = plx_cluster_copy (self->resolved_cluster);
    }
}

static void
insert_sorted (GArray *v, guint64 value)
{
  guint i = 0;

  while (i < v->len && g_array_index (v, guint64, i) < value)
    i++;
  if (i == v->len || g_array_index (v, guint64, i) != value)
    g_array_insert_val (v, i, value);
}

/* The values valid together with the rest of the strategy (plx-advice), so a drag
 * never passes through one that the engine would refuse; plus the current value if
 * it is not one of them, so the slider shows what the scenario holds (the error
 * banner says what is wrong with it). */
static GArray *
compute_choices (PlxScenarioPanel *self, guint which)
{
  const char *key = self->choices[which].key;
  guint64 current = (guint64) MAX (strategy_int (self, key, 1), 1);
  g_autoptr (PlxStrategy) s = NULL;
  GArray *v = NULL;

  if (self->resolved_model != NULL && self->resolved_cluster != NULL)
    s = plx_strategy_new_from_json (self->strategy, "scenario", NULL);
  if (s != NULL)
    v = plx_advice_valid_values (self->resolved_model, self->resolved_cluster, s, key);
  if (v == NULL)
    v = g_array_new (FALSE, FALSE, sizeof (guint64));
  insert_sorted (v, current);
  return v;
}

static char *
choice_format (GtkScale *scale, double value, gpointer data)
{
  Choice *ch = data;
  guint i;

  if (ch->values == NULL || ch->values->len == 0)
    return g_strdup ("1");
  i = (guint) CLAMP (round (value), 0, ch->values->len - 1);
  return g_strdup_printf ("%" G_GUINT64_FORMAT, g_array_index (ch->values, guint64, i));
}

static void refresh_choice (PlxScenarioPanel *self, guint which);

/* After `key` changed, the other sliders offer what is valid with its new value; the
 * slider being dragged keeps its own list (its values do not depend on itself). */
static void
refresh_other_choices (PlxScenarioPanel *self, const char *key)
{
  gboolean was = self->updating;

  self->updating = TRUE;
  for (guint i = 0; i < N_CHOICES; i++)
    if (key == NULL || !g_str_equal (self->choices[i].key, key))
      refresh_choice (self, i);
  self->updating = was;
}

/* A mark at each position 0 .. n - 1. Each mark is a widget of its own, made, styled
 * and mapped: a longer list only adds the marks it lacks (a drag between TP 4 and 8
 * moves the CP and micro-batch lists between 5 and 6, 10 and 12 values); GtkScale
 * can take marks away only all at once. */
static void
set_marks (Choice *ch, guint n)
{
  if (n < ch->n_marks)
    {
      gtk_scale_clear_marks (ch->scale);
      ch->n_marks = 0;
    }
  for (; ch->n_marks < n; ch->n_marks++)
    gtk_scale_add_mark (ch->scale, ch->n_marks, GTK_POS_BOTTOM, NULL);
}

/* The micro-batch row's subtitle: why its value is the only one, and the largest
 * that fits. */
static void
update_mb_subtitle (PlxScenarioPanel *self)
{
  const char *reason = self->choices[CHOICE_MB].reason, *fits = self->fits_text;
  g_autofree char *text = reason != NULL && fits != NULL && fits[0] != '\0' ? g_strdup_printf ("%s. %s", reason, fits)
                          : g_strdup (reason != NULL ? reason : fits != NULL ? fits : "");

  set_subtitle (ADW_ACTION_ROW (self->choices[CHOICE_MB].row), text);
}

/* Why `which` has one valid value, from what constrains it (plx-advice's rules for
 * that key), in the panel's words; NULL if the model or cluster does not resolve. */
static char *
only_value_reason (PlxScenarioPanel *self, guint which)
{
  const PlxModel *m = self->resolved_model;
  const PlxCluster *c = self->resolved_cluster;
  guint tp = (guint) MAX (strategy_int (self, "tp", 1), 1), pp = (guint) MAX (strategy_int (self, "pp", 1), 1);
  guint cp = (guint) MAX (strategy_int (self, "cp", 1), 1);
  guint64 gpus, dp;
  g_autofree char *gpus_text = NULL, *n_text = NULL;

  if (m == NULL || c == NULL)
    return NULL;
  gpus = plx_cluster_get_n_gpus (c);
  dp = (guint64) MAX (strategy_int (self, "dp", (gint64) (gpus / ((guint64) tp * pp * cp))), 1);
  /* Counts as strings: xgettext cannot read G_GUINT64_FORMAT inside a message. */
  gpus_text = g_strdup_printf ("%" G_GUINT64_FORMAT, gpus);
  switch (which)
    {
    case CHOICE_TP:
      /* TRANSLATORS: the GPUs of one node, as in "within a node of 8 GPUs". */
      n_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u GPU", "%u GPUs", c->gpus_per_node),
                                c->gpus_per_node);
      return g_strdup_printf (_("The only value that divides the model's %u attention heads and %s GPUs with "
                                "PP %u × CP %u, within a node of %s"),
                              m->heads, gpus_text, pp, cp, n_text);
    case CHOICE_PP:
      return g_strdup_printf (_("The only value that divides the model's %u layers and %s GPUs with TP %u × CP %u"),
                              m->n_layers, gpus_text, tp, cp);
    case CHOICE_CP:
      n_text = g_strdup_printf ("%" G_GINT64_FORMAT, strategy_int (self, "seq_length", (gint64) m->max_positions));
      return g_strdup_printf (_("The only value that divides the sequence of %s tokens and %s GPUs with TP %u × PP %u"),
                              n_text, gpus_text, tp, pp);
    case CHOICE_EP:
      n_text = g_strdup_printf ("%" G_GUINT64_FORMAT, dp);
      return g_strdup_printf (_("The only value that divides the model's %u experts and DP %s × CP %u"), m->experts,
                              n_text, cp);
    case CHOICE_MB:
      n_text = g_strdup_printf ("%" G_GUINT64_FORMAT, (guint64) MAX (strategy_int (self, "global_batch_size", 1), 1) / dp);
      return g_strdup_printf (_("The only value that divides the %s sequences per data-parallel rank (DP %u)"), n_text,
                              (guint) dp);
    case CHOICE_VS:
      if (!g_str_equal (strategy_string (self, "schedule", "1f1b"), "interleaved-1f1b"))
        return g_strdup (_("Used by the interleaved 1F1B schedule only"));
      return g_strdup_printf (_("The only value that splits the model's %u layers over PP %u"), m->n_layers, pp);
    default:
      return NULL;
    }
}

/* One valid value: a slider with nowhere to go is a stub that says nothing. The
 * value is shown as text instead, and the row says why it is the only one. */
static void
show_only_value (PlxScenarioPanel *self, guint which)
{
  Choice *ch = &self->choices[which];
  gboolean one = ch->values->len == 1;
  g_autofree char *value = one ? g_strdup_printf ("%" G_GUINT64_FORMAT, g_array_index (ch->values, guint64, 0)) : NULL;

  g_clear_pointer (&ch->reason, g_free);
  if (one)
    ch->reason = only_value_reason (self, which);
  gtk_widget_set_visible (GTK_WIDGET (ch->scale), !one);
  gtk_widget_set_visible (GTK_WIDGET (ch->only), one);
  if (one && g_strcmp0 (gtk_label_get_text (ch->only), value) != 0)
    gtk_label_set_text (ch->only, value);
  if (which == CHOICE_MB)
    update_mb_subtitle (self);
  else
    set_subtitle (ADW_ACTION_ROW (ch->row), ch->reason != NULL ? ch->reason : "");
}

static void
refresh_choice (PlxScenarioPanel *self, guint which)
{
  Choice *ch = &self->choices[which];
  guint64 current = (guint64) strategy_int (self, ch->key, 1);
  guint best = 0;
  GtkAdjustment *adj;
  g_autoptr (GArray) values = compute_choices (self, which);

  for (guint i = 0; i < values->len; i++)
    if (g_array_index (values, guint64, i) <= current)
      best = i;
  adj = gtk_range_get_adjustment (GTK_RANGE (ch->scale));
  /* The same list at the same position: nothing to redo (each redo re-lays out the
   * panel). */
  if (ch->values != NULL && ch->values->len == values->len &&
      memcmp (ch->values->data, values->data, values->len * sizeof (guint64)) == 0 &&
      gtk_adjustment_get_value (adj) == best)
    return;
  if (ch->values != NULL)
    g_array_unref (ch->values);
  ch->values = g_steal_pointer (&values);
  gtk_adjustment_configure (adj, best, 0, MAX (ch->values->len - 1, 0.0), 1, 1, 0);
  /* The label follows the value, not the position: the same position may now stand
   * for another value (TP 4 at position 3 before, TP 8 at position 3 now). Setting
   * the format function again makes the scale relabel itself. */
  gtk_scale_set_format_value_func (ch->scale, choice_format, ch, NULL);
  set_marks (ch, ch->values->len <= 12 ? ch->values->len : 0);
  show_only_value (self, which);
  gtk_widget_queue_draw (GTK_WIDGET (ch->scale));
}

/* ---- controls from JSON --------------------------------------------------------- */

/* The number the cluster's JSON gives at `cs`'s path, if it gives one (the peak as
 * {"bf16": ...}). */
static gboolean
cluster_json_value (PlxScenarioPanel *self, const ClusterSpin *cs, double *value)
{
  JsonObject *o = obj (self->cluster);
  JsonNode *n;

  if (cs->path[1] != NULL)
    {
      n = json_object_get_member (o, cs->path[0]);
      o = n != NULL && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
    }
  n = o != NULL ? json_object_get_member (o, cs->path[1] != NULL ? cs->path[1] : cs->path[0]) : NULL;
  if (n != NULL && JSON_NODE_HOLDS_OBJECT (n))
    n = json_object_get_member (json_node_get_object (n), "bf16");
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) == G_TYPE_STRING ||
      json_node_get_value_type (n) == G_TYPE_BOOLEAN)
    return FALSE;
  *value = json_node_get_double (n) / cs->unit;
  return TRUE;
}

static double
cluster_value (PlxScenarioPanel *self, const ClusterSpin *cs)
{
  /* From the resolved cluster (preset plus overrides). A cluster that does not
   * resolve (HBM capacity below the reserved memory) shows the value its JSON gives
   * and, for the rest, the last cluster that did: one bad field is not shown as a
   * cluster wiped to every field's minimum. */
  const PlxCluster *c = self->resolved_cluster != NULL ? self->resolved_cluster : self->shown_cluster;
  double given;

  if (self->resolved_cluster == NULL && cluster_json_value (self, cs, &given))
    return given;
  if (c == NULL)
    return 0;
  if (cs == &self->cluster_spins[SPIN_NODES]) return c->num_nodes;
  if (cs == &self->cluster_spins[SPIN_GPUS_PER_NODE]) return c->gpus_per_node;
  if (cs == &self->cluster_spins[SPIN_PEAK]) return c->peak_flops[PLX_DTYPE_BF16] / cs->unit;
  if (cs == &self->cluster_spins[SPIN_HBM]) return c->hbm_bytes / cs->unit;
  if (cs == &self->cluster_spins[SPIN_HBM_BW]) return c->hbm_bw_Bps / cs->unit;
  if (cs == &self->cluster_spins[SPIN_INTRA_BW]) return c->intra_node.bw_Bps / cs->unit;
  if (cs == &self->cluster_spins[SPIN_INTRA_LAT]) return c->intra_node.latency_s / cs->unit;
  if (cs == &self->cluster_spins[SPIN_INTER_BW]) return c->inter_node.bw_Bps / cs->unit;
  /* Uncapped, the board runs at its full power. */
  if (cs == &self->cluster_spins[SPIN_POWER]) return c->power_limit_w > 0.0 ? c->power_limit_w : c->tdp_w;
  return c->inter_node.latency_s / cs->unit;
}

/* The cluster input (plx-uncertainty.h) a spin shows: "gpu.peak_flops.bf16" for the
 * BF16 peak, else its JSON path. */
static char *
cluster_spin_input_path (PlxScenarioPanel *self, const ClusterSpin *cs)
{
  if (cs == &self->cluster_spins[SPIN_PEAK])
    return g_strdup ("gpu.peak_flops.bf16");
  return cs->path[1] != NULL ? g_strconcat (cs->path[0], ".", cs->path[1], NULL) : g_strdup (cs->path[0]);
}

/* A spin whose input the cluster file gives as a range or distribution shows its
 * nominal value (the midpoint or mean, what every command uses); the subtitle says so,
 * since typing a value there replaces the range with that one number. */
static void
refresh_range_subtitles (PlxScenarioPanel *self)
{
  const PlxCluster *rc = self->resolved_cluster;

  for (guint i = 0; i < N_CLUSTER_SPINS; i++)
    {
      const ClusterSpin *cs = &self->cluster_spins[i];
      AdwActionRow *row = ADW_ACTION_ROW (gtk_widget_get_ancestor (GTK_WIDGET (cs->spin), ADW_TYPE_ACTION_ROW));
      g_autofree char *path = cluster_spin_input_path (self, cs);
      gint input = plx_cluster_input_find (path);
      const PlxUncertainInput *found = NULL;
      g_autofree char *text = NULL;
      int d = (int) cs->digits;

      /* The power row's subtitle is the clock's; power inputs cannot be ranges. */
      if (i == SPIN_POWER)
        continue;
      for (guint k = 0; rc != NULL && rc->uncertain != NULL && input >= 0 && k < rc->uncertain->len; k++)
        if (((const PlxUncertainInput *) g_ptr_array_index (rc->uncertain, k))->input == (guint) input)
          found = g_ptr_array_index (rc->uncertain, k);
      if (found == NULL)
        {
          set_subtitle (row, cs->subtitle != NULL ? cs->subtitle : "");
          gtk_widget_set_tooltip_text (GTK_WIDGET (row), NULL);
          continue;
        }
      if (found->kind == PLX_DIST_UNIFORM)
        /* TRANSLATORS: a cluster input given as a range; the spin shows its midpoint. */
        text = g_strdup_printf (_("%s; range %.*f – %.*f, midpoint shown"), cs->subtitle != NULL ? cs->subtitle : "",
                                d, found->a / cs->unit, d, found->b / cs->unit);
      else
        /* TRANSLATORS: a cluster input given as a normal distribution; the spin shows its mean. */
        text = g_strdup_printf (_("%s; mean %.*f, sd %.*f"), cs->subtitle != NULL ? cs->subtitle : "", d,
                                found->a / cs->unit, d + 1, found->b / cs->unit);
      set_subtitle (row, text);
      gtk_widget_set_tooltip_text (GTK_WIDGET (row),
                                   _("The cluster file gives this input as a range or distribution: the sampled "
                                     "band and the sensitivity use it, every single prediction its nominal value. "
                                     "Typing a value here replaces it with that one number."));
    }
}

/* A cluster that does not resolve: the rows its error names are marked, and say it
 * under their title ("HBM capacity=... is less than Reserved memory=..."). */
static void
mark_cluster_fault (PlxScenarioPanel *self)
{
  const char *body = self->cluster_error != NULL ? strstr (self->cluster_error, ": cluster") : NULL;
  g_autofree char *human = body != NULL ? plx_key_names_humanize (body + 2) : NULL;

  for (guint i = 0; i < N_CLUSTER_SPINS; i++)
    {
      const ClusterSpin *cs = &self->cluster_spins[i];
      GtkWidget *row = gtk_widget_get_ancestor (GTK_WIDGET (cs->spin), ADW_TYPE_ACTION_ROW);
      g_autofree char *key = g_strconcat ("cluster.", cs->path[0], cs->path[1] != NULL ? "." : NULL, cs->path[1], NULL);
      const char *at = body != NULL ? strstr (body, key) : NULL;
      gboolean fault = at != NULL && !g_ascii_isalnum (at[strlen (key)]) && at[strlen (key)] != '_';

      if (fault)
        {
          gtk_widget_add_css_class (row, "fault");
          set_subtitle (ADW_ACTION_ROW (row), human);
          /* A row at fault is never folded away. */
          if (gtk_widget_get_ancestor (row, ADW_TYPE_EXPANDER_ROW) != NULL)
            adw_expander_row_set_expanded (ADW_EXPANDER_ROW (gtk_widget_get_ancestor (row, ADW_TYPE_EXPANDER_ROW)), TRUE);
        }
      else
        gtk_widget_remove_css_class (row, "fault");
    }
}

typedef struct
{
  char  *id;
  double params;
} PresetEntry;

static int
by_params (gconstpointer a, gconstpointer b)
{
  const PresetEntry *x = a, *y = b;
  return x->params < y->params ? -1 : x->params > y->params ? 1 : g_strcmp0 (x->id, y->id);
}

/* The model presets, smallest first, each with its size; built once, so choosing from
 * the dropdown never rebuilds the list it is choosing from. */
static void
build_model_list (PlxScenarioPanel *self)
{
  g_auto (GStrv) ids = plx_presets_list (PLX_PRESET_MODEL);
  g_autoptr (GArray) entries = g_array_new (FALSE, FALSE, sizeof (PresetEntry));

  for (guint i = 0; ids[i] != NULL; i++)
    {
      g_autoptr (PlxModel) m = plx_model_new_preset (ids[i], NULL);
      PresetEntry e = { ids[i], m ? plx_model_get_n_params (m) : 0 };
      g_array_append_val (entries, e);
    }
  g_array_sort (entries, by_params);
  for (guint i = 0; i < entries->len; i++)
    {
      PresetEntry *e = &g_array_index (entries, PresetEntry, i);
      g_autofree char *size = plx_model_format_params ((guint64) e->params);
      g_autofree char *label = g_strdup_printf ("%s · %s", e->id, size);
      gtk_string_list_append (self->model_names, label);
      g_ptr_array_add (self->model_ids, g_strdup (e->id));
    }
}

static void
build_cluster_list (PlxScenarioPanel *self)
{
  g_auto (GStrv) ids = plx_presets_list (PLX_PRESET_CLUSTER);

  for (guint i = 0; ids[i] != NULL; i++)
    {
      g_autoptr (PlxCluster) c = plx_cluster_new_preset (ids[i], NULL);
      gboolean mine = !plx_presets_is_builtin (PLX_PRESET_CLUSTER, ids[i]);
      g_autofree char *label = c ? g_strdup_printf (mine ? _("%s · %u× %s, %.0f GiB (yours)") : _("%s · %u× %s, %.0f GiB"),
                                                     ids[i], c->gpus_per_node, c->gpu_name, c->hbm_bytes / 1073741824.0)
                                 : g_strdup (ids[i]);
      gtk_string_list_append (self->cluster_names, label);
      g_ptr_array_add (self->cluster_ids, g_strdup (ids[i]));
    }
}

static guint
index_of_id (GPtrArray *ids, const char *id)
{
  for (guint i = 0; id != NULL && i < ids->len; i++)
    if (g_str_equal (g_ptr_array_index (ids, i), id))
      return i;
  return GTK_INVALID_LIST_POSITION;
}

/* Shows `label` as the last, extra item of a preset list (a model from a file, a
 * custom cluster), or removes that item when `label` is NULL. Only touches the list
 * when it changes. */
static void
set_extra_item (GtkStringList *list, guint n_presets, const char *label)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (list));

  if (label == NULL)
    {
      if (n > n_presets)
        gtk_string_list_remove (list, n_presets);
      return;
    }
  if (n > n_presets && g_strcmp0 (gtk_string_list_get_string (list, n_presets), label) == 0)
    return;
  if (n > n_presets)
    gtk_string_list_splice (list, n_presets, 1, (const char *const[]) { label, NULL });
  else
    gtk_string_list_append (list, label);
}

static void
select_row (AdwComboRow *row, guint position)
{
  if (adw_combo_row_get_selected (row) != position)
    adw_combo_row_set_selected (row, position);
}

/* Sequence parallelism splits over the TP ranks: at TP 1 there is nothing to split,
 * so the switch shows off and waits (the file's value is kept for a later TP > 1). */
static void
sync_sp (PlxScenarioPanel *self)
{
  JsonNode *sp = json_object_get_member (obj (self->strategy), "sequence_parallel");
  guint64 tp = (guint64) strategy_int (self, "tp", 1);
  gboolean was = self->updating;
  AdwActionRow *row = ADW_ACTION_ROW (g_hash_table_lookup (self->rows, "sequence_parallel"));
  const char *hint = tp > 1 ? "" : _("Needs tensor parallelism (TP > 1)");

  self->updating = TRUE;
  gtk_switch_set_active (self->sp_switch, tp > 1 && sp && JSON_NODE_HOLDS_VALUE (sp) && json_node_get_boolean (sp));
  gtk_widget_set_sensitive (GTK_WIDGET (self->sp_switch), tp > 1);
  set_subtitle (row, hint);
  self->updating = was;
}

static void sync_controls (PlxScenarioPanel *self);

static gboolean
model_is_gpt2 (const PlxModel *m)
{
  return m != NULL && g_strcmp0 (m->model_type, "gpt2") == 0;
}

static guint64
model_value (const PlxModel *m, guint which)
{
  switch (which)
    {
    case MSPIN_LAYERS: return m->n_layers;
    case MSPIN_HIDDEN: return m->hidden;
    case MSPIN_HEADS: return m->heads;
    case MSPIN_KV_HEADS: return m->kv_heads;
    case MSPIN_FFN: return m->ffn;
    case MSPIN_VOCAB: return m->vocab;
    case MSPIN_EXPERTS: return m->experts;
    case MSPIN_EXPERTS_PER_TOKEN: return m->experts_per_token;
    default: return 0;
    }
}

/* The editor shows the resolved model's dimensions; a family's missing settings and a
 * dense model's expert rows are hidden. Called with `updating` set. */
static void
sync_model_spins (PlxScenarioPanel *self)
{
  const PlxModel *m = self->resolved_model;
  gboolean gpt2 = model_is_gpt2 (m);

  self->model_gpt2 = gpt2;
  for (guint i = 0; i < N_MODEL_SPINS; i++)
    {
      ModelSpin *ms = &self->model_spins[i];
      gboolean shown = (gpt2 ? ms->gpt2_key : ms->hf_key) != NULL;
      if (i == MSPIN_EXPERTS || i == MSPIN_EXPERTS_PER_TOKEN)
        shown = shown && m->experts > 0;
      gtk_widget_set_visible (ms->row, shown);
      gtk_spin_button_set_value (ms->spin, (double) model_value (m, i));
    }
}

/* A model edit: the key of the model's family set in the scenario's model object, over
 * a preset (as an override) or in an inline config. A Hugging Face config file is
 * inlined first, so the edit never writes to the user's file. */
static void
on_model_spin_changed (GtkSpinButton *spin, PlxScenarioPanel *self)
{
  ModelSpin *ms = g_object_get_data (G_OBJECT (spin), "model-spin");
  JsonObject *m = obj (self->model);
  const char *key;

  if (self->updating)
    return;
  /* While an edit leaves the model invalid, the family is the last valid one's, so
   * the user can type the value that mends it. */
  key = self->model_gpt2 ? ms->gpt2_key : ms->hf_key;
  if (key == NULL)
    return;
  if (json_object_has_member (m, "hf_config"))
    {
      g_autoptr (JsonNode) config = read_hf_config (self);
      if (config == NULL || !JSON_NODE_HOLDS_OBJECT (config))
        return;
      json_node_unref (self->model);
      self->model = plx_json_deep_copy (config);
      m = obj (self->model);
    }
  json_object_set_int_member (m, key, (gint64) gtk_spin_button_get_value (spin));
  sync_controls (self);
  emit_changed (self);
}

static void
sync_controls (PlxScenarioPanel *self)
{
  JsonObject *m = obj (self->model), *c = obj (self->cluster);
  const char *preset;
  guint sel = 0;

  self->updating = TRUE;
  resolve (self);

  /* Model. */
  preset = json_object_has_member (m, "preset") ? json_object_get_string_member (m, "preset") : NULL;
  sel = index_of_id (self->model_ids, preset);
  if (sel == GTK_INVALID_LIST_POSITION)
    {
      g_autofree char *label = g_strdup_printf (_("%s (file)"), self->model_file ? self->model_file : _("inline config"));
      set_extra_item (self->model_names, self->model_ids->len, label);
      sel = self->model_ids->len;
    }
  else
    set_extra_item (self->model_names, self->model_ids->len, NULL);
  select_row (self->model_combo, sel);
  if (self->resolved_model != NULL)
    {
      g_autofree char *params = plx_model_format_params (plx_model_get_n_params (self->resolved_model));
      adw_action_row_set_subtitle (self->params_row, params);
      sync_model_spins (self);
    }
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->model_combo),
                               preset != NULL && has_overrides (m, NULL) ? _("custom: values changed") : "");

  /* Cluster. */
  preset = json_object_has_member (c, "preset") ? json_object_get_string_member (c, "preset") : NULL;
  sel = index_of_id (self->cluster_ids, preset);
  if (sel == GTK_INVALID_LIST_POSITION)
    {
      g_autofree char *label = g_strdup_printf (_("%s (inline)"), self->resolved_cluster ? self->resolved_cluster->name : "?");
      set_extra_item (self->cluster_names, self->cluster_ids->len, label);
      sel = self->cluster_ids->len;
    }
  else
    set_extra_item (self->cluster_names, self->cluster_ids->len, NULL);
  select_row (self->cluster_combo, sel);
  /* The node count is the scenario's, not a change to the cluster. */
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->cluster_combo),
                               preset == NULL || has_overrides (c, "num_nodes") ? _("custom: values changed") : "");
  {
    /* A cap is between the power drawn whatever the clock and the board's full power;
     * a cluster that does not state them cannot be capped. */
    const PlxCluster *rc = self->resolved_cluster != NULL ? self->resolved_cluster : self->shown_cluster;
    GtkSpinButton *power = self->cluster_spins[SPIN_POWER].spin;
    GtkWidget *row = gtk_widget_get_ancestor (GTK_WIDGET (power), ADW_TYPE_ACTION_ROW);
    gboolean cappable = rc != NULL && rc->tdp_w > 0.0;

    gtk_widget_set_sensitive (row, cappable);
    if (cappable)
      {
        g_autofree char *speed = g_strdup_printf (_("W per GPU; tensor cores at %.0f %% of full speed"),
                                                  100.0 * rc->compute_clock_factor);

        gtk_spin_button_set_range (power, floor (rc->static_power_w) + 1.0, rc->tdp_w);
        adw_action_row_set_subtitle (ADW_ACTION_ROW (row), speed);
      }
    else
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("W per GPU"));
  }
  for (guint i = 0; i < N_CLUSTER_SPINS; i++)
    gtk_spin_button_set_value (self->cluster_spins[i].spin, cluster_value (self, &self->cluster_spins[i]));
  refresh_range_subtitles (self);
  mark_cluster_fault (self);

  /* Strategy. */
  for (guint i = 0; i < N_CHOICES; i++)
    refresh_choice (self, i);
  for (guint i = 0; i < N_INT_SPINS; i++)
    {
      gint64 fallback = i == INT_SEQ && self->resolved_model ? (gint64) self->resolved_model->max_positions : 1;
      gtk_spin_button_set_value (self->int_spins[i], (double) strategy_int (self, int_keys[i], fallback));
    }
  adw_combo_row_set_selected (self->schedule_combo, index_of (schedules, strategy_string (self, "schedule", "1f1b")));
  adw_combo_row_set_selected (self->recompute_combo, index_of (recomputes, strategy_string (self, "recompute", "none")));
  adw_combo_row_set_selected (self->zero_combo, (guint) CLAMP (strategy_int (self, "zero_stage", 0), 0, 3));
  adw_combo_row_set_selected (self->dtype_combo, index_of (dtypes, strategy_string (self, "dtype", "bf16")));
  adw_combo_row_set_selected (self->implementation_combo,
                              index_of (implementations, strategy_string (self, "implementation", "auto")));
  {
    JsonNode *fa = json_object_get_member (obj (self->strategy), "flash_attention");
    JsonNode *odp = json_object_get_member (obj (self->strategy), "overlap_dp_comm");
    JsonNode *otp = json_object_get_member (obj (self->strategy), "overlap_tp_comm");
    /* Overlapping DP communication is on unless the file turns it off, or DeepSpeed
     * runs the model and the file does not turn it on (FORMATS.md). */
    gboolean overlap_default = !g_str_equal (strategy_string (self, "implementation", "auto"), "deepspeed");

    sync_sp (self);
    gtk_switch_set_active (self->flash_switch, fa && JSON_NODE_HOLDS_VALUE (fa) && json_node_get_boolean (fa));
    gtk_switch_set_active (self->overlap_dp_switch,
                           odp && JSON_NODE_HOLDS_VALUE (odp) ? json_node_get_boolean (odp) : overlap_default);
    gtk_switch_set_active (self->overlap_tp_switch, otp && JSON_NODE_HOLDS_VALUE (otp) && json_node_get_boolean (otp));
    {
      /* Not given: Megatron-LM's size for this data-parallel degree and precision. */
      g_autoptr (PlxStrategy) probe = plx_strategy_new ();
      guint64 gpus = self->resolved_cluster != NULL ? plx_cluster_get_n_gpus (self->resolved_cluster) : 1;
      guint64 mp = (guint64) MAX (strategy_int (self, "tp", 1), 1) * MAX (strategy_int (self, "pp", 1), 1) *
                   MAX (strategy_int (self, "cp", 1), 1);
      probe->dp = (guint) CLAMP (strategy_int (self, "dp", (gint64) (gpus / mp)), 1, G_MAXUINT);
      probe->dtype = g_str_equal (strategy_string (self, "dtype", "bf16"), "fp16") ? PLX_DTYPE_FP16 : PLX_DTYPE_BF16;
      gtk_spin_button_set_value (self->bucket_spin,
                                 strategy_int (self, "grad_bucket_bytes",
                                               (gint64) plx_strategy_get_grad_bucket_bytes (probe)) / 1e6);
    }
    gtk_widget_set_sensitive (self->choices[CHOICE_VS].row, g_str_equal (strategy_string (self, "schedule", "1f1b"), "interleaved-1f1b"));
    gtk_widget_set_visible (self->choices[CHOICE_EP].row, self->resolved_model != NULL && self->resolved_model->experts > 0);
  }
  self->updating = FALSE;
}

/* ---- controls to JSON ----------------------------------------------------------- */

static void
on_choice_changed (GtkRange *range, PlxScenarioPanel *self)
{
  Choice *ch = g_object_get_data (G_OBJECT (range), "choice");
  guint i;

  if (self->updating || ch->values == NULL)
    return;
  i = (guint) CLAMP (round (gtk_range_get_value (range)), 0, ch->values->len - 1);
  plx_scenario_panel_set_strategy_int (self, ch->key, (gint64) g_array_index (ch->values, guint64, i));
}

static void
on_int_spin_changed (GtkSpinButton *spin, PlxScenarioPanel *self)
{
  const char *key = g_object_get_data (G_OBJECT (spin), "key");

  if (self->updating)
    return;
  plx_scenario_panel_set_strategy_int (self, key, (gint64) gtk_spin_button_get_value (spin));
}

static void
on_combo_changed (AdwComboRow *row, GParamSpec *pspec, PlxScenarioPanel *self)
{
  const char *key = g_object_get_data (G_OBJECT (row), "key");
  const char *const *values = g_object_get_data (G_OBJECT (row), "values");
  guint sel = adw_combo_row_get_selected (row);

  if (self->updating || sel == GTK_INVALID_LIST_POSITION)
    return;
  if (g_str_equal (key, "zero_stage"))
    json_object_set_int_member (obj (self->strategy), key, sel);
  else
    {
      json_object_set_string_member (obj (self->strategy), key, values[sel]);
      /* Interleaving needs model chunks; other schedules must not have them. */
      if (g_str_equal (key, "schedule"))
        json_object_set_int_member (obj (self->strategy), "virtual_stages",
                                    g_str_equal (values[sel], "interleaved-1f1b") ? MAX (strategy_int (self, "virtual_stages", 2), 2) : 1);
    }
  emit_changed (self);
  queue_resync (self);
}

static void
on_switch_changed (GtkSwitch *sw, GParamSpec *pspec, PlxScenarioPanel *self)
{
  const char *key = g_object_get_data (G_OBJECT (sw), "key");

  if (self->updating)
    return;
  json_object_set_boolean_member (obj (self->strategy), key, gtk_switch_get_active (sw));
  emit_changed (self);
  queue_resync (self);
}

static void
on_bucket_changed (GtkSpinButton *spin, PlxScenarioPanel *self)
{
  if (self->updating)
    return;
  json_object_set_int_member (obj (self->strategy), "grad_bucket_bytes", (gint64) (gtk_spin_button_get_value (spin) * 1e6));
  emit_changed (self);
}

/* A new model or cluster keeps every strategy value still valid with it and moves
 * the others to the nearest valid value (plx-advice). */
static void
adapt_strategy (PlxScenarioPanel *self)
{
  JsonNode *adapted = NULL;

  if (self->resolved_model != NULL && self->resolved_cluster != NULL)
    adapted = plx_advice_adapt_strategy (self->resolved_model, self->resolved_cluster, self->strategy);
  if (adapted != NULL)
    {
      json_node_unref (self->strategy);
      self->strategy = adapted;
    }
  else
    json_object_remove_member (obj (self->strategy), "dp");
}

/* The dropdown is still handling its own choice when it notifies: the controls (and
 * that dropdown's list) are brought in line once it has finished, from an idle. */
static gboolean
resync_idle (gpointer data)
{
  PlxScenarioPanel *self = data;

  self->resync_idle = 0;
  sync_controls (self);
  return G_SOURCE_REMOVE;
}

static void
queue_resync (PlxScenarioPanel *self)
{
  if (self->resync_idle == 0)
    self->resync_idle = g_idle_add_full (G_PRIORITY_HIGH_IDLE, resync_idle, self, NULL);
}

static void
on_model_selected (AdwComboRow *row, GParamSpec *pspec, PlxScenarioPanel *self)
{
  guint sel = adw_combo_row_get_selected (row);
  JsonObject *m;

  if (self->updating || sel >= self->model_ids->len)
    return;
  json_node_unref (self->model);
  self->model = json_node_new (JSON_NODE_OBJECT);
  m = json_object_new ();
  json_object_set_string_member (m, "preset", g_ptr_array_index (self->model_ids, sel));
  json_node_take_object (self->model, m);
  g_clear_pointer (&self->model_file, g_free);
  resolve (self);
  adapt_strategy (self);
  emit_changed (self);
  queue_resync (self);
}

static void
on_cluster_selected (AdwComboRow *row, GParamSpec *pspec, PlxScenarioPanel *self)
{
  guint sel = adw_combo_row_get_selected (row);
  JsonObject *c;
  gint64 nodes;

  if (self->updating || sel >= self->cluster_ids->len)
    return;
  nodes = (gint64) gtk_spin_button_get_value (self->cluster_spins[SPIN_NODES].spin);
  json_node_unref (self->cluster);
  self->cluster = json_node_new (JSON_NODE_OBJECT);
  c = json_object_new ();
  json_object_set_string_member (c, "preset", g_ptr_array_index (self->cluster_ids, sel));
  json_object_set_int_member (c, "num_nodes", MAX (nodes, 1));
  json_node_take_object (self->cluster, c);
  resolve (self);
  adapt_strategy (self);
  emit_changed (self);
  queue_resync (self);
}

static void
on_cluster_spin_changed (GtkSpinButton *spin, PlxScenarioPanel *self)
{
  ClusterSpin *cs = g_object_get_data (G_OBJECT (spin), "cluster-spin");
  JsonObject *target = obj (self->cluster);
  double v = gtk_spin_button_get_value (spin) * cs->unit;

  if (self->updating)
    return;
  /* Leaving a field commits the text it shows: 2.039 TB/s shown as "2.04" became
   * 2.04 when Tab passed through, and the scenario changed under the user. A value
   * within half a shown digit of the cluster's is what was shown, not an edit. */
  if (fabs (gtk_spin_button_get_value (spin) - cluster_value (self, cs)) <=
      0.5 * pow (10.0, -(double) gtk_spin_button_get_digits (spin)) * (1.0 + 1e-9))
    return;
  if (cs->path[1] != NULL)
    {
      /* Nested override: {"gpu": {"hbm_bytes": ...}}, keeping other overrides. */
      JsonObject *child = json_object_has_member (target, cs->path[0]) ? json_object_get_object_member (target, cs->path[0]) : NULL;
      if (child == NULL)
        {
          child = json_object_new ();
          json_object_set_object_member (target, cs->path[0], child);
        }
      if (g_str_equal (cs->path[1], "peak_flops"))
        {
          JsonObject *flops = json_object_new ();
          json_object_set_double_member (flops, "bf16", v);
          json_object_set_double_member (flops, "fp16", v);
          json_object_set_object_member (child, "peak_flops", flops);
        }
      else if (g_str_equal (cs->path[1], "hbm_bytes"))
        json_object_set_int_member (child, cs->path[1], (gint64) v);
      else
        json_object_set_double_member (child, cs->path[1], v);
    }
  else
    json_object_set_int_member (target, cs->path[0], (gint64) v);
  /* The old data-parallel degree belonged to the old GPU count. */
  json_object_remove_member (obj (self->strategy), "dp");
  sync_controls (self);
  emit_changed (self);
}

/* Shows a strategy key's new value in its control without touching the others. */
static void
sync_strategy_value (PlxScenarioPanel *self,
                     const char       *key)
{
  self->updating = TRUE;
  for (guint i = 0; i < N_CHOICES; i++)
    if (g_str_equal (self->choices[i].key, key))
      {
        /* A drag's own value is already in the list: only the position moves. A
         * value set from outside (a fix, a test) may not be: then the list is made
         * again with it. */
        guint64 v = (guint64) strategy_int (self, key, 1);
        gboolean found = FALSE;
        for (guint j = 0; j < self->choices[i].values->len; j++)
          if (g_array_index (self->choices[i].values, guint64, j) == v)
            {
              gtk_range_set_value (GTK_RANGE (self->choices[i].scale), j);
              found = TRUE;
            }
        if (!found)
          refresh_choice (self, i);
      }
  for (guint i = 0; i < N_INT_SPINS; i++)
    if (g_str_equal (int_keys[i], key))
      gtk_spin_button_set_value (self->int_spins[i], (double) strategy_int (self, key, 1));
  self->updating = FALSE;
}

void
plx_scenario_panel_set_strategy_int (PlxScenarioPanel *self,
                                     const char       *key,
                                     gint64            value)
{
  json_object_set_int_member (obj (self->strategy), key, value);
  if (g_strcmp0 (self->last_key, key) != 0)
    {
      g_free (self->last_key);
      self->last_key = g_strdup (key);
    }
  /* Degrees re-derive dp, as on the command line; another pipeline gets the balanced
   * split of layers, not counts written for the old one. */
  if (g_str_equal (key, "tp") || g_str_equal (key, "pp") || g_str_equal (key, "cp"))
    json_object_remove_member (obj (self->strategy), "dp");
  if (g_str_equal (key, "pp") || g_str_equal (key, "virtual_stages"))
    {
      if (json_object_has_member (obj (self->strategy), "layers_per_stage") &&
          JSON_NODE_HOLDS_ARRAY (json_object_get_member (obj (self->strategy), "layers_per_stage")))
        json_object_remove_member (obj (self->strategy), "layers_per_stage");
      json_object_remove_member (obj (self->strategy), "first_stage_layers");
      json_object_remove_member (obj (self->strategy), "last_stage_layers");
    }
  if (!self->updating)
    {
      /* Only the sequence length changes what other controls offer (CP); the rest
       * needs no resync, which keeps a slider drag cheap. */
      if (g_str_equal (key, "seq_length"))
        sync_controls (self);
      else
        {
          sync_strategy_value (self, key);
          sync_sp (self);
          /* The new strategy goes to the worker first; what the other sliders offer
           * (tens of strategy resolutions each) is worked out here meanwhile, so it
           * lands in the same frame as the new charts, not a frame of its own after. */
          emit_changed (self);
          refresh_other_choices (self, key);
          return;
        }
      emit_changed (self);
    }
}

static void
emit_changed (PlxScenarioPanel *self)
{
  g_signal_emit (self, signals[CHANGED], 0);
  /* Only a slider's edits merge; anything else is a step of its own. */
  g_clear_pointer (&self->last_key, g_free);
}

const char *
plx_scenario_panel_get_last_key (PlxScenarioPanel *self)
{
  return self->last_key;
}

/* ---- building the panel --------------------------------------------------------- */

static AdwPreferencesGroup *
group (PlxScenarioPanel *self, const char *title)
{
  GtkWidget *g = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (g), title);
  gtk_box_append (GTK_BOX (self), g);
  return ADW_PREFERENCES_GROUP (g);
}

static AdwComboRow *
combo (AdwPreferencesGroup *g, const char *title, GtkStringList *model)
{
  GtkWidget *row = adw_combo_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_combo_row_set_model (ADW_COMBO_ROW (row), G_LIST_MODEL (model));
  adw_preferences_group_add (g, row);
  return ADW_COMBO_ROW (row);
}

static AdwComboRow *
enum_combo (PlxScenarioPanel *self, AdwPreferencesGroup *g, const char *title, const char *key,
            const char *const *values, const char *const *labels)
{
  g_autoptr (GtkStringList) list = gtk_string_list_new ((const char *const *) labels);
  AdwComboRow *row = combo (g, title, list);
  g_object_set_data (G_OBJECT (row), "key", (gpointer) key);
  g_object_set_data (G_OBJECT (row), "values", (gpointer) values);
  g_signal_connect (row, "notify::selected", G_CALLBACK (on_combo_changed), self);
  return row;
}

static GtkSpinButton *
spin_row (GtkWidget *into, const char *title, const char *subtitle, double lo, double hi, double step,
          guint digits)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (lo, hi, step);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), digits);
  /* Ctrl+Z after typing a value undoes the scenario edit (the window's history), not
   * the digits in the entry: the spin button takes the keys before its text does. */
  gtk_editable_set_enable_undo (GTK_EDITABLE (spin), FALSE);
  {
    GtkEventController *keys = gtk_shortcut_controller_new ();
    gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
    gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                          gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_z, GDK_CONTROL_MASK),
                                                            gtk_named_action_new ("win.undo")));
    gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                          gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_z, GDK_CONTROL_MASK
                                                                                                 | GDK_SHIFT_MASK),
                                                            gtk_named_action_new ("win.redo")));
    gtk_widget_add_controller (spin, keys);
  }
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), spin);
  if (ADW_IS_EXPANDER_ROW (into))
    adw_expander_row_add_row (ADW_EXPANDER_ROW (into), row);
  else
    adw_preferences_group_add (ADW_PREFERENCES_GROUP (into), row);
  return GTK_SPIN_BUTTON (spin);
}

/* The row of a control (the control itself, or its row), by strategy key; carries
 * the tooltip. */
static void
remember_row (PlxScenarioPanel *self, const char *key, GtkWidget *control, const char *tooltip)
{
  GtkWidget *row = ADW_IS_PREFERENCES_ROW (control) ? control : gtk_widget_get_ancestor (control, ADW_TYPE_PREFERENCES_ROW);

  g_hash_table_insert (self->rows, (gpointer) key, row);
  if (tooltip != NULL)
    gtk_widget_set_tooltip_text (row, tooltip);
}

static void
choice_row (PlxScenarioPanel *self, AdwPreferencesGroup *g, guint which, const char *key, const char *title,
            const char *tooltip)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *scale = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, 0, 1, 1);
  Choice *ch = &self->choices[which];

  ch->key = key;
  ch->scale = GTK_SCALE (scale);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_scale_set_draw_value (GTK_SCALE (scale), TRUE);
  gtk_scale_set_value_pos (GTK_SCALE (scale), GTK_POS_RIGHT);
  gtk_scale_set_format_value_func (GTK_SCALE (scale), choice_format, ch, NULL);
  gtk_range_set_round_digits (GTK_RANGE (scale), 0);
  gtk_widget_set_size_request (scale, 170, -1);
  gtk_widget_set_valign (scale, GTK_ALIGN_CENTER);
  g_object_set_data (G_OBJECT (scale), "choice", ch);
  g_signal_connect (scale, "value-changed", G_CALLBACK (on_choice_changed), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), scale);
  ch->only = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (ch->only), "numeric");
  gtk_widget_set_visible (GTK_WIDGET (ch->only), FALSE);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), GTK_WIDGET (ch->only));
  adw_preferences_group_add (g, row);
  ch->row = row;
  remember_row (self, key, row, tooltip);
}

static void
plx_scenario_panel_dispose (GObject *object)
{
  PlxScenarioPanel *self = PLX_SCENARIO_PANEL (object);

  g_clear_pointer (&self->model, json_node_unref);
  g_clear_pointer (&self->cluster, json_node_unref);
  g_clear_pointer (&self->strategy, json_node_unref);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->base_dir, g_free);
  g_clear_pointer (&self->model_file, g_free);
  g_clear_handle_id (&self->resync_idle, g_source_remove);
  g_clear_pointer (&self->model_ids, g_ptr_array_unref);
  g_clear_pointer (&self->graph_rows, g_ptr_array_unref);
  g_clear_object (&self->model_names);
  g_clear_pointer (&self->rows, g_hash_table_unref);
  g_clear_pointer (&self->last_key, g_free);
  g_clear_object (&self->cluster_names);
  g_clear_pointer (&self->cluster_ids, g_ptr_array_unref);
  g_clear_pointer (&self->resolved_model, plx_model_free);
  g_clear_pointer (&self->resolved_cluster, plx_cluster_free);
  g_clear_pointer (&self->shown_cluster, plx_cluster_free);
  g_clear_pointer (&self->cluster_error, g_free);
  g_clear_pointer (&self->fits_text, g_free);
  for (guint i = 0; i < N_CHOICES; i++)
    {
      g_clear_pointer (&self->choices[i].values, g_array_unref);
      g_clear_pointer (&self->choices[i].reason, g_free);
    }
  G_OBJECT_CLASS (plx_scenario_panel_parent_class)->dispose (object);
}

static void
plx_scenario_panel_class_init (PlxScenarioPanelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = plx_scenario_panel_dispose;
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
}

/* The mouse wheel over the panel scrolls the panel. Without this, a slider or a spin
 * button that passes under the pointer takes the wheel and changes its value: a user
 * scrolling down to the strategy would change the pipeline degree and the sequence
 * length on the way. Caught before the controls see it (capture phase). */
static gboolean
on_panel_scroll (GtkEventControllerScroll *controller, double dx, double dy, PlxScenarioPanel *self)
{
  GtkWidget *sw = gtk_widget_get_ancestor (GTK_WIDGET (self), GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *adj;
  double step;

  if (sw == NULL)
    return FALSE;
  adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (sw));
  /* GTK's own wheel step for a scrolled window: the page size to the power 2/3. */
  step = pow (gtk_adjustment_get_page_size (adj), 2.0 / 3.0);
  gtk_adjustment_set_value (adj, gtk_adjustment_get_value (adj) + dy * step);
  return TRUE;
}

/* ---- saving the cluster as the user's own preset ---------------------------------- */

static void
show_save_error (PlxScenarioPanel *self, const char *message)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))),
                                              _("Could Not Save the Cluster"), message);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

/* The name typed so far decides what Save does: nothing for an invalid or built-in
 * name (the body says why), replacing for one of the user's own. */
static void
on_save_name_changed (GtkEditable *entry, AdwMessageDialog *dialog)
{
  const char *name = gtk_editable_get_text (entry);
  gboolean valid = plx_presets_name_is_valid (name), builtin = valid && plx_presets_is_builtin (PLX_PRESET_CLUSTER, name);
  g_auto (GStrv) known = plx_presets_list (PLX_PRESET_CLUSTER);
  gboolean exists = valid && g_strv_contains ((const char *const *) known, name);

  adw_message_dialog_set_response_enabled (dialog, "save", valid && !builtin);
  adw_message_dialog_set_response_label (dialog, "save", exists && !builtin ? _("_Replace") : _("_Save"));
  if (*name != '\0' && !valid)
    adw_message_dialog_set_body (dialog, _("Use letters, digits, “.”, “_” and “-”, starting with a letter or digit."));
  else if (builtin)
    adw_message_dialog_set_body (dialog, _("A built-in cluster has that name."));
  else if (exists)
    adw_message_dialog_set_body (dialog, _("Your cluster of that name will be replaced."));
  else
    adw_message_dialog_set_body (dialog, _("The cluster as it is now, listed with the built-in ones from now on."));
}

static void
rebuild_cluster_list (PlxScenarioPanel *self)
{
  gboolean was = self->updating;

  self->updating = TRUE;
  gtk_string_list_splice (self->cluster_names, 0, g_list_model_get_n_items (G_LIST_MODEL (self->cluster_names)), NULL);
  g_ptr_array_set_size (self->cluster_ids, 0);
  build_cluster_list (self);
  self->updating = was;
}

static void
on_save_response (AdwMessageDialog *dialog, const char *response, PlxScenarioPanel *self)
{
  GtkEditable *entry = g_object_get_data (G_OBJECT (dialog), "entry");
  g_autofree char *name = g_strdup (gtk_editable_get_text (entry));
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) expanded = NULL;
  gboolean had_preset = FALSE;
  gint64 nodes;
  JsonObject *c;

  if (!g_str_equal (response, "save"))
    return;
  expanded = plx_presets_expand (PLX_PRESET_CLUSTER, self->cluster, _("scenario"), "cluster", &had_preset, &error);
  if (expanded == NULL || !plx_presets_save (PLX_PRESET_CLUSTER, name, expanded, &error))
    {
      show_save_error (self, error->message);
      return;
    }
  /* The scenario now names the preset; the node count stays the scenario's. */
  nodes = (gint64) gtk_spin_button_get_value (self->cluster_spins[SPIN_NODES].spin);
  rebuild_cluster_list (self);
  json_node_unref (self->cluster);
  self->cluster = json_node_new (JSON_NODE_OBJECT);
  c = json_object_new ();
  json_object_set_string_member (c, "preset", name);
  json_object_set_int_member (c, "num_nodes", MAX (nodes, 1));
  json_node_take_object (self->cluster, c);
  sync_controls (self);
  emit_changed (self);
}

static void
on_save_cluster_clicked (GtkButton *button, PlxScenarioPanel *self)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))),
                                              _("Save Cluster As"), NULL);
  GtkWidget *entry = gtk_entry_new ();
  const char *preset = json_object_has_member (obj (self->cluster), "preset")
                         ? json_object_get_string_member (obj (self->cluster), "preset") : NULL;

  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), _("Name, e.g. my-lab-h100"));
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  if (preset != NULL && !plx_presets_is_builtin (PLX_PRESET_CLUSTER, preset))
    gtk_editable_set_text (GTK_EDITABLE (entry), preset);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), entry);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"), "save", _("_Save"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data (G_OBJECT (dialog), "entry", entry);
  g_signal_connect (entry, "changed", G_CALLBACK (on_save_name_changed), dialog);
  on_save_name_changed (GTK_EDITABLE (entry), ADW_MESSAGE_DIALOG (dialog));
  g_signal_connect (dialog, "response", G_CALLBACK (on_save_response), self);
  gtk_window_present (GTK_WINDOW (dialog));
  gtk_widget_grab_focus (entry);
}

static void
plx_scenario_panel_init (PlxScenarioPanel *self)
{
  static const char *const schedule_labels[] = { N_("1F1B"), N_("Interleaved 1F1B"), N_("GPipe"), N_("Zero bubble (H1)"), NULL };
  static const char *const recompute_labels[] = { N_("None"), N_("Selective"), N_("Full"), NULL };
  static const char *const zero_labels[] = { N_("Off"), N_("1: optimizer"), N_("2: + gradients"), N_("3: + weights"), NULL };
  static const char *const dtype_labels[] = { "BF16", "FP16", "FP8", "FP32", NULL };
  static const char *const implementation_labels[] = { N_("Automatic"), N_("Megatron-LM"), N_("PyTorch"), N_("Megatron-DeepSpeed"), NULL };
  AdwPreferencesGroup *g;
  const char *translated[8];

  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  {
    GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
    gtk_event_controller_set_propagation_phase (scroll, GTK_PHASE_CAPTURE);
    g_signal_connect (scroll, "scroll", G_CALLBACK (on_panel_scroll), self);
    gtk_widget_add_controller (GTK_WIDGET (self), scroll);
  }
  gtk_box_set_spacing (GTK_BOX (self), 18);
  gtk_widget_set_margin_start (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (self), 12);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self), 12);

  self->model = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (self->model, json_object_new ());
  self->cluster = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (self->cluster, json_object_new ());
  self->strategy = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (self->strategy, json_object_new ());
  self->base_dir = g_get_current_dir ();
  self->rows = g_hash_table_new (g_str_hash, g_str_equal);

  g = group (self, _("Graph model"));
  adw_preferences_group_set_description (g, _("The model on the Graph page; it runs on the cluster below"));
  self->graph_group = GTK_WIDGET (g);
  gtk_widget_set_visible (self->graph_group, FALSE);
  self->graph_rows = g_ptr_array_new ();

  g = group (self, _("Model"));
  self->model_group = GTK_WIDGET (g);
  self->model_names = gtk_string_list_new (NULL);
  self->model_ids = g_ptr_array_new_with_free_func (g_free);
  build_model_list (self);
  self->model_combo = combo (g, _("Model"), self->model_names);
  g_signal_connect (self->model_combo, "notify::selected", G_CALLBACK (on_model_selected), self);
  {
    GtkWidget *row = adw_action_row_new ();
    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Parameters"));
    gtk_widget_add_css_class (row, "property");
    gtk_widget_set_tooltip_text (row, _("Derived from the dimensions below"));
    adw_preferences_group_add (g, row);
    self->params_row = ADW_ACTION_ROW (row);
  }
  /* The dimensions and the GPU's and network's figures fold away, so that the
   * strategy's sliders, what a user drags most, are in view without scrolling in a
   * 1920 x 1080 window (they began below 1300 px). */
  self->dimensions = adw_expander_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->dimensions), _("Dimensions"));
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (self->dimensions),
                                 _("Layers, widths, heads, vocabulary, experts"));
  adw_preferences_group_add (g, self->dimensions);
  {
    struct { const char *title, *tooltip, *gpt2_key, *hf_key; double lo, hi; } spec[N_MODEL_SPINS] = {
      { N_("Layers"), N_("Transformer blocks"), "n_layer", "num_hidden_layers", 1, 100000 },
      { N_("Hidden size"), N_("Width of the residual stream (d_model)"), "n_embd", "hidden_size", 1, 10000000 },
      { N_("Attention heads"), N_("Query heads per layer; the hidden size must be a multiple"), "n_head",
        "num_attention_heads", 1, 100000 },
      { N_("Key-value heads"), N_("Grouped-query attention: heads of keys and values, dividing the query heads"), NULL,
        "num_key_value_heads", 1, 100000 },
      { N_("FFN hidden size"), N_("Width of the feed-forward layer (GPT-2: 4 × hidden unless set)"), "n_inner",
        "intermediate_size", 1, 100000000 },
      { N_("Vocabulary"), N_("Tokens in the vocabulary: the embedding and output layer sizes"), "vocab_size",
        "vocab_size", 1, 100000000 },
      { N_("Experts"), N_("Mixture of experts: feed-forward experts per layer"), NULL, "num_local_experts", 1, 100000 },
      { N_("Experts per token"), N_("Experts each token is routed to (top-k)"), NULL, "num_experts_per_tok", 1, 100000 },
    };
    for (guint i = 0; i < N_MODEL_SPINS; i++)
      {
        ModelSpin *ms = &self->model_spins[i];
        ms->gpt2_key = spec[i].gpt2_key;
        ms->hf_key = spec[i].hf_key;
        ms->spin = spin_row (self->dimensions, _(spec[i].title), NULL, spec[i].lo, spec[i].hi, 1, 0);
        ms->row = gtk_widget_get_ancestor (GTK_WIDGET (ms->spin), ADW_TYPE_ACTION_ROW);
        gtk_widget_set_tooltip_text (ms->row, _(spec[i].tooltip));
        g_object_set_data (G_OBJECT (ms->spin), "model-spin", ms);
        g_signal_connect (ms->spin, "value-changed", G_CALLBACK (on_model_spin_changed), self);
      }
  }

  g = group (self, _("Cluster"));
  self->cluster_names = gtk_string_list_new (NULL);
  self->cluster_ids = g_ptr_array_new_with_free_func (g_free);
  build_cluster_list (self);
  self->cluster_combo = combo (g, _("Cluster"), self->cluster_names);
  g_signal_connect (self->cluster_combo, "notify::selected", G_CALLBACK (on_cluster_selected), self);
  self->hardware = adw_expander_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->hardware), _("GPU and network"));
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (self->hardware),
                                 _("Peak, memory, bandwidths, latencies, power"));
  {
    struct { const char *title, *subtitle; const char *p0, *p1; double unit, lo, hi, step; guint digits; } spec[N_CLUSTER_SPINS] = {
      { N_("Nodes"), NULL, "num_nodes", NULL, 1, 1, 100000, 1, 0 },
      { N_("GPUs per node"), NULL, "gpus_per_node", NULL, 1, 1, 64, 1, 0 },
      { N_("Peak BF16"), N_("TFLOP/s per GPU, dense"), "gpu", "peak_flops", 1e12, 1, 100000, 1, 0 },
      { N_("HBM capacity"), N_("GiB per GPU"), "gpu", "hbm_bytes", 1073741824.0, 1, 4096, 1, 0 },
      { N_("HBM bandwidth"), N_("TB/s per GPU"), "gpu", "hbm_bw_Bps", 1e12, 0.1, 100, 0.1, 2 },
      { N_("Intra-node bandwidth"), N_("GB/s per GPU, each way"), "intra_node", "bw_Bps", 1e9, 1, 100000, 1, 0 },
      { N_("Intra-node latency"), N_("µs"), "intra_node", "latency_s", 1e-6, 0, 1000, 0.1, 1 },
      { N_("Inter-node bandwidth"), N_("GB/s per GPU, each way"), "inter_node", "bw_Bps", 1e9, 0.1, 100000, 0.5, 1 },
      { N_("Inter-node latency"), N_("µs"), "inter_node", "latency_s", 1e-6, 0, 1000, 0.1, 1 },
      { N_("Power limit"), N_("W per GPU"), "gpu", "power_limit_w", 1, 1, 2000, 10, 0 },
    };
    for (guint i = 0; i < N_CLUSTER_SPINS; i++)
      {
        ClusterSpin *cs = &self->cluster_spins[i];
        cs->path[0] = spec[i].p0;
        cs->path[1] = spec[i].p1;
        cs->unit = spec[i].unit;
        cs->subtitle = spec[i].subtitle ? _(spec[i].subtitle) : NULL;
        cs->digits = spec[i].digits;
        cs->spin = spin_row (i == SPIN_NODES || i == SPIN_GPUS_PER_NODE ? GTK_WIDGET (g) : self->hardware, _(spec[i].title), spec[i].subtitle ? _(spec[i].subtitle) : NULL, spec[i].lo, spec[i].hi,
                             spec[i].step, spec[i].digits);
        g_object_set_data (G_OBJECT (cs->spin), "cluster-spin", cs);
        g_signal_connect (cs->spin, "value-changed", G_CALLBACK (on_cluster_spin_changed), self);
      }
    adw_preferences_group_add (g, self->hardware);
    gtk_widget_set_tooltip_text (gtk_widget_get_ancestor (GTK_WIDGET (self->cluster_spins[SPIN_POWER].spin),
                                                          ADW_TYPE_ACTION_ROW),
                                 _("A cap on each GPU's board power (nvidia-smi -pl): the clock drops until the "
                                   "power fits, and the matrix multiplications slow with it; memory-bound work "
                                   "keeps its pace"));
  }
  {
    GtkWidget *row = adw_action_row_new ();
    GtkWidget *button = gtk_button_new_with_mnemonic (_("Save _As…"));
    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Your own cluster"));
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("Save these values under a name"));
    gtk_widget_set_tooltip_text (row, _("Save the cluster as it is now as a preset of your own, listed with the "
                                        "built-in ones in the window and by parallax-cli"));
    gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
    g_signal_connect (button, "clicked", G_CALLBACK (on_save_cluster_clicked), self);
    adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
    adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), button);
    adw_expander_row_add_row (ADW_EXPANDER_ROW (self->hardware), row);
  }

  g = group (self, _("Strategy"));
  self->strategy_group = GTK_WIDGET (g);
#define TRANSLATE(labels) (({ guint n_ = 0; for (; labels[n_]; n_++) translated[n_] = _(labels[n_]); translated[n_] = NULL; }), translated)
  choice_row (self, g, CHOICE_TP, "tp", _("Tensor parallel"),
              _("Tensor parallelism (Megatron-LM): each layer's matrices split over this many GPUs of a node; "
                "two all-reduces per layer in forward and two in backward"));
  choice_row (self, g, CHOICE_PP, "pp", _("Pipeline parallel"),
              _("Pipeline parallelism: the layers split into this many stages, micro-batches flow through them"));
  /* The schedule and its chunks beside the pipeline's degree, which they go with. */
  self->schedule_combo = enum_combo (self, g, _("Pipeline schedule"), "schedule", schedules, TRANSLATE (schedule_labels));
  remember_row (self, "schedule", GTK_WIDGET (self->schedule_combo),
                _("1F1B (Narayanan et al. 2021): one forward, one backward, at most PP micro-batches in flight. "
                  "Interleaved 1F1B: several model chunks per stage, a smaller bubble for more pipeline traffic. "
                  "GPipe: all forwards, then all backwards. Zero bubble H1 (Qi et al. 2023): backward split in "
                  "two to fill the bubble"));
  choice_row (self, g, CHOICE_VS, "virtual_stages", _("Model chunks per stage"),
              _("Interleaved 1F1B only: each stage holds this many non-adjacent chunks of layers (Megatron's "
                "virtual pipeline stages); the bubble shrinks by this factor"));
  choice_row (self, g, CHOICE_CP, "cp", _("Context parallel"),
              _("Context parallelism: each sequence split over this many GPUs; attention exchanges keys and values"));
  choice_row (self, g, CHOICE_EP, "ep", _("Expert parallel"),
              _("Expert parallelism: a mixture-of-experts model's experts spread over this many data-parallel ranks"));
  {
    GtkWidget *row = adw_action_row_new ();
    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Data parallel"));
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), "-");
    gtk_widget_set_tooltip_text (row, _("Data parallelism: the GPUs left after TP × PP × CP, each with a share of the "
                                        "global batch; derived, not set"));
    gtk_widget_add_css_class (row, "property");
    adw_preferences_group_add (g, row);
    self->dp_row = ADW_ACTION_ROW (row);
  }
  choice_row (self, g, CHOICE_MB, "micro_batch_size", _("Micro-batch size"),
              _("Sequences per micro-batch on one data-parallel rank; the slider offers the divisors of the batch "
                "per rank"));
  {
    struct { const char *title, *tip; double lo, hi; } spec[N_INT_SPINS] = {
      { N_("Global batch size"), N_("Sequences per optimizer step, over all data-parallel ranks"), 1, 1 << 30 },
      { N_("Sequence length"), N_("Tokens per sequence"), 1, 1 << 30 },
    };
    for (guint i = 0; i < N_INT_SPINS; i++)
      {
        self->int_spins[i] = spin_row (GTK_WIDGET (g), _(spec[i].title), NULL, spec[i].lo, spec[i].hi, 1, 0);
        g_object_set_data (G_OBJECT (self->int_spins[i]), "key", (gpointer) int_keys[i]);
        g_signal_connect (self->int_spins[i], "value-changed", G_CALLBACK (on_int_spin_changed), self);
        remember_row (self, int_keys[i], GTK_WIDGET (self->int_spins[i]), _(spec[i].tip));
      }
  }
  self->recompute_combo = enum_combo (self, g, _("Recompute"), "recompute", recomputes, TRANSLATE (recompute_labels));
  remember_row (self, "recompute", GTK_WIDGET (self->recompute_combo),
                _("Activation recomputation (Korthikanti et al. 2022): None keeps every activation; Selective "
                  "recomputes attention's softmax and dropout (little time, much memory); Full keeps only each "
                  "layer's input and recomputes the layer in backward"));
  self->zero_combo = enum_combo (self, g, _("ZeRO"), "zero_stage", zeros, TRANSLATE (zero_labels));
  remember_row (self, "zero_stage", GTK_WIDGET (self->zero_combo),
                _("ZeRO (Rajbhandari et al. 2020) shards over the data- and context-parallel ranks (DP × CP): "
                  "1 the optimizer states, 2 also the gradients, 3 also the weights (gathered before use)"));
  self->dtype_combo = enum_combo (self, g, _("Precision"), "dtype", dtypes, TRANSLATE (dtype_labels));
  remember_row (self, "dtype", GTK_WIDGET (self->dtype_combo), _("The number format of the matrix multiplications"));
  self->implementation_combo = enum_combo (self, g, _("Training code"), "implementation", implementations,
                                           TRANSLATE (implementation_labels));
  remember_row (self, "implementation", GTK_WIDGET (self->implementation_combo),
                _("Megatron-LM: fused kernels, selective recompute of the attention core. PyTorch (torchtitan, "
                  "FSDP recipes): one kernel per tensor operation, selective recompute of every other block. "
                  "Megatron-DeepSpeed (BLOOM): Megatron's kernels; bf16 gradients added into an fp32 copy after "
                  "every micro-batch and reduced after the last one. "
                  "Automatic: PyTorch with ZeRO 3, Megatron-LM otherwise"));
#undef TRANSLATE
  {
    struct { const char *title, *key, *tip; GtkSwitch **out; } sw[] = {
      { N_("Sequence parallelism"), "sequence_parallel",
        N_("Sequence parallelism (Korthikanti et al. 2022): the parts of a layer outside the matrices split over "
           "the tensor-parallel ranks too; needs TP > 1"), &self->sp_switch },
      { N_("FlashAttention"), "flash_attention",
        N_("Fused attention (Dao et al. 2022): no attention matrix kept for backward"), &self->flash_switch },
      { N_("Overlap data-parallel communication"), "overlap_dp_comm",
        N_("Gradient reduction runs during the backward pass, bucket by bucket, as PyTorch DDP and Megatron do"),
        &self->overlap_dp_switch },
      { N_("Overlap tensor-parallel communication"), "overlap_tp_comm",
        N_("TP collectives hidden under the next matrix multiplication (Megatron's --tp-comm-overlap)"),
        &self->overlap_tp_switch },
    };
    for (guint i = 0; i < G_N_ELEMENTS (sw); i++)
      {
        GtkWidget *row = adw_action_row_new ();
        GtkWidget *s = gtk_switch_new ();
        adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _(sw[i].title));
        gtk_widget_set_valign (s, GTK_ALIGN_CENTER);
        adw_action_row_add_suffix (ADW_ACTION_ROW (row), s);
        adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), s);
        adw_preferences_group_add (g, row);
        g_object_set_data (G_OBJECT (s), "key", (gpointer) sw[i].key);
        g_signal_connect (s, "notify::active", G_CALLBACK (on_switch_changed), self);
        *sw[i].out = GTK_SWITCH (s);
        remember_row (self, sw[i].key, row, _(sw[i].tip));
      }
  }
  self->bucket_spin = spin_row (GTK_WIDGET (g), _("Gradient bucket"), _("MB per data-parallel all-reduce"), 1, 16384, 1, 0);
  g_signal_connect (self->bucket_spin, "value-changed", G_CALLBACK (on_bucket_changed), self);
  remember_row (self, "grad_bucket_bytes", GTK_WIDGET (self->bucket_spin),
                _("Gradients are reduced in buckets of this size (PyTorch DDP, Megatron): larger buckets use the "
                  "network better, smaller ones start overlapping sooner"));
}

void
plx_scenario_panel_show_graph (PlxScenarioPanel   *self,
                               const char *const *facts)
{
  AdwPreferencesGroup *g = ADW_PREFERENCES_GROUP (self->graph_group);

  for (guint i = 0; i < self->graph_rows->len; i++)
    adw_preferences_group_remove (g, self->graph_rows->pdata[i]);
  g_ptr_array_set_size (self->graph_rows, 0);
  for (guint i = 0; facts != NULL && facts[i] != NULL && facts[i + 1] != NULL; i += 2)
    {
      GtkWidget *row = adw_action_row_new ();

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), facts[i]);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), facts[i + 1]);
      adw_preferences_group_add (g, row);
      g_ptr_array_add (self->graph_rows, row);
    }
  gtk_widget_set_visible (self->graph_group, facts != NULL);
  gtk_widget_set_visible (self->model_group, facts == NULL);
  gtk_widget_set_visible (self->strategy_group, facts == NULL);
}

GtkWidget *
plx_scenario_panel_new (void)
{
  return g_object_new (PLX_TYPE_SCENARIO_PANEL, NULL);
}

gboolean
plx_scenario_panel_load (PlxScenarioPanel *self,
                         JsonNode         *scenario,
                         const char       *base_dir,
                         const char       *source,
                         GError          **error)
{
  JsonObject *root;
  JsonNode *m, *c, *s;
  const char *name = NULL;

  /* Check it first: a broken file must not replace the current scenario. */
  {
    g_autoptr (GError) local = NULL;
    g_autoptr (PlxScenario) check = plx_scenario_new_from_json (scenario, base_dir, source, &local);
    /* `error` may be NULL (undo and redo load what the panel itself produced). */
    if (check == NULL && !g_error_matches (local, PLX_ERROR, PLX_ERROR_INCONSISTENT))
      {
        g_propagate_error (error, g_steal_pointer (&local));
        return FALSE;
      }
    /* An inconsistent strategy loads: the panel shows its error, the user fixes it. */
  }
  root = json_node_get_object (scenario);
  m = json_object_get_member (root, "model");
  c = json_object_get_member (root, "cluster");
  s = json_object_get_member (root, "strategy");
  if (!plx_json_get_string (root, source, "", "name", FALSE, &name, error))
    return FALSE;

  g_clear_pointer (&self->model, json_node_unref);
  g_clear_pointer (&self->cluster, json_node_unref);
  g_clear_pointer (&self->strategy, json_node_unref);
  self->model = plx_json_deep_copy (m);
  self->cluster = plx_json_deep_copy (c);
  self->strategy = s ? plx_json_deep_copy (s) : json_node_new (JSON_NODE_OBJECT);
  if (JSON_NODE_HOLDS_NULL (self->strategy))
    json_node_take_object (self->strategy, json_object_new ());
  {
    /* Copies first: the caller may pass the panel's own name or directory. */
    char *new_name = g_strdup (name), *new_dir = g_strdup (base_dir ? base_dir : ".");
    g_free (self->name);
    self->name = new_name;
    g_free (self->base_dir);
    self->base_dir = new_dir;
  }
  g_clear_pointer (&self->model_file, g_free);
  if (json_object_has_member (obj (self->model), "hf_config"))
    self->model_file = g_path_get_basename (json_object_get_string_member (obj (self->model), "hf_config"));
  sync_controls (self);
  emit_changed (self);
  return TRUE;
}

JsonNode *
plx_scenario_panel_get_json (PlxScenarioPanel *self)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *root = json_object_new ();

  if (self->name != NULL)
    json_object_set_string_member (root, "name", self->name);
  json_object_set_member (root, "model", plx_json_deep_copy (self->model));
  json_object_set_member (root, "cluster", plx_json_deep_copy (self->cluster));
  json_object_set_member (root, "strategy", plx_json_deep_copy (self->strategy));
  json_node_take_object (node, root);
  return node;
}

const char *
plx_scenario_panel_get_base_dir (PlxScenarioPanel *self)
{
  return self->base_dir;
}

void
plx_scenario_panel_show_resolved (PlxScenarioPanel  *self,
                                  const PlxScenario *scenario)
{
  g_autofree char *dp = scenario ? g_strdup_printf ("%u", scenario->strategy->dp) : g_strdup ("-");

  /* The core says when ZeRO has no effect, as the cost model shards (DP x CP). */
  g_autofree char *zero_hint = scenario != NULL ? plx_advice_zero_note (scenario->strategy) : NULL;

  set_subtitle (self->dp_row, dp);
  set_subtitle (ADW_ACTION_ROW (self->zero_combo), zero_hint != NULL ? zero_hint : "");
}

const char *
plx_scenario_panel_get_name (PlxScenarioPanel *self)
{
  return self->name;
}

void
plx_scenario_panel_set_name (PlxScenarioPanel *self,
                             const char       *name)
{
  char *copy = g_strdup (name);

  g_free (self->name);
  self->name = copy;
}

void
plx_scenario_panel_mark_faults (PlxScenarioPanel *self,
                                const char       *message)
{
  GHashTableIter iter;
  gpointer key, row;
  /* Past the "file: " prefix, which may itself hold a key-like word. */
  const char *body = message ? strstr (message, ": strategy") : NULL;

  g_hash_table_iter_init (&iter, self->rows);
  while (g_hash_table_iter_next (&iter, &key, &row))
    {
      gboolean fault = body != NULL && plx_advice_message_names (body, key);
      if (fault)
        gtk_widget_add_css_class (row, "fault");
      else
        gtk_widget_remove_css_class (row, "fault");
    }
}

gboolean
plx_scenario_panel_is_fault (PlxScenarioPanel *self,
                             const char       *key)
{
  GtkWidget *row = g_hash_table_lookup (self->rows, key);
  return row != NULL && gtk_widget_has_css_class (row, "fault");
}

GPtrArray *
plx_scenario_panel_nearest_fixes (PlxScenarioPanel *self)
{
  g_autoptr (PlxStrategy) s = NULL;

  if (self->resolved_model == NULL || self->resolved_cluster == NULL)
    return NULL;
  s = plx_strategy_new_from_json (self->strategy, "scenario", NULL);
  if (s == NULL)
    return NULL;
  return plx_advice_nearest_fixes (self->resolved_model, self->resolved_cluster, s, 5);
}

void
plx_scenario_panel_apply_fix (PlxScenarioPanel *self,
                              const char       *key,
                              JsonNode         *value)
{
  /* The core's apply knows what goes with each change: num_nodes into the cluster,
   * dp dropped after a degree or node count, one chunk without interleaving. */
  PlxAdviceFix fix = { (char *) key, value, NULL, 0.0, 0.0, FALSE };

  if (!plx_advice_fix_apply (&fix, obj (self->strategy), obj (self->cluster)))
    return;
  sync_controls (self);
  emit_changed (self);
}

GArray *
plx_scenario_panel_get_choices (PlxScenarioPanel *self,
                                const char       *key)
{
  for (guint i = 0; i < N_CHOICES; i++)
    if (g_str_equal (self->choices[i].key, key))
      return self->choices[i].values;
  return NULL;
}

void
plx_scenario_panel_show_max_micro_batch (PlxScenarioPanel *self,
                                         guint64           max_mb)
{
  /* The count as a string: xgettext cannot read G_GUINT64_FORMAT inside a message. */
  g_autofree char *count_text = g_strdup_printf ("%" G_GUINT64_FORMAT, max_mb);
  char *text = max_mb == G_MAXUINT64 ? g_strdup ("")
               : max_mb == 0         ? g_strdup (_("None fits, not even 1"))
                                     : g_strdup_printf (_("Largest that fits: %s"), count_text);

  g_free (self->fits_text);
  self->fits_text = text;
  update_mb_subtitle (self);
}

void
plx_scenario_panel_set_cluster (PlxScenarioPanel *self,
                                JsonNode         *cluster)
{
  g_return_if_fail (cluster != NULL && JSON_NODE_HOLDS_OBJECT (cluster));
  /* As choosing a cluster in the list: the strategy keeps what is still valid. */
  json_node_unref (self->cluster);
  self->cluster = plx_json_deep_copy (cluster);
  resolve (self);
  adapt_strategy (self);
  emit_changed (self);
  queue_resync (self);
}
