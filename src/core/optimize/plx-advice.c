/* What a user can change next; the rules are in docs/advice.md. Everything here asks
 * plx_strategy_resolve whether a strategy is valid and plx_analytic_run what it costs,
 * so the advice never disagrees with the engines. */
#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "optimize/plx-advice.h"
#include "base/plx-json.h"
#include "parallax/plx-analytic.h"

/* Bounds on the candidates tried; each is stated in docs/advice.md. */
#define MAX_MICRO_BATCH 1024
#define MAX_CP 64
#define MAX_CHUNKS 128
#define MAX_NODE_FACTOR 16
#define BATCH_SEARCH 4096
/* The most nodes the window's Nodes field and the CLI's --nodes take (a cluster file
 * may give more, PLX_CLUSTER_MAX_NODES): a node count offered can be typed. */
#define MAX_NODES_OFFERED 100000

/* A change of schedule or of sequence parallelism has no numeric distance; it ranks
 * with a value changed by a factor of e (ln e = 1), after a neighbouring divisor. */
#define NON_NUMERIC_DISTANCE 1.0

void
plx_advice_fix_free (PlxAdviceFix *fix)
{
  if (fix == NULL)
    return;
  g_free (fix->key);
  g_clear_pointer (&fix->value, json_node_unref);
  g_free (fix->label);
  g_free (fix);
}

static gboolean
resolves (const PlxModel *model, const PlxCluster *cluster, PlxStrategy *s)
{
  return plx_strategy_resolve (s, model, cluster, "advice", NULL);
}

static gboolean
is_degree (const char *key)
{
  return g_str_equal (key, "tp") || g_str_equal (key, "pp") || g_str_equal (key, "cp");
}

/* Sets `key` to `v`; a degree that changes the model-parallel size lets dp follow
 * (0 = derive), as the window and the CLI do. */
static void
set_value (PlxStrategy *s, const char *key, guint64 v)
{
  if (g_str_equal (key, "tp"))
    s->tp = (guint) v;
  else if (g_str_equal (key, "pp"))
    s->pp = (guint) v;
  else if (g_str_equal (key, "cp"))
    s->cp = (guint) v;
  else if (g_str_equal (key, "ep"))
    s->ep = (guint) v;
  else if (g_str_equal (key, "etp"))
    s->etp = (guint) v;
  else if (g_str_equal (key, "virtual_stages"))
    s->virtual_stages = (guint) v;
  else if (g_str_equal (key, "micro_batch_size"))
    s->micro_batch_size = v;
  else if (g_str_equal (key, "global_batch_size"))
    s->global_batch_size = v;
  else if (g_str_equal (key, "seq_length"))
    s->seq_length = v;
  else if (g_str_equal (key, "zero_stage"))
    s->zero_stage = (guint) v;
  else if (g_str_equal (key, "dp"))
    s->dp = (guint) v;
  if (is_degree (key))
    s->dp = 0;
  /* Layer counts and layouts belong to the pipeline they were written for: another
   * one gets the balanced split (plx_strategy_json_apply_changes' rule, here on the
   * strategy the candidate is judged as). */
  if (g_str_equal (key, "pp") || g_str_equal (key, "virtual_stages"))
    {
      if (!s->layers_per_stage_auto)
        {
          g_clear_pointer (&s->layers_per_stage, g_free);
          s->n_layers_per_stage = 0;
        }
      s->first_stage_layers = s->last_stage_layers = 0;
      g_clear_pointer (&s->pipeline_layout, g_free);
    }
}

static PlxStrategy *
with_value (const PlxStrategy *base, const char *key, guint64 v)
{
  PlxStrategy *s = plx_strategy_copy (base);

  set_value (s, key, v);
  return s;
}

static guint64
get_value (const PlxStrategy *s, const char *key)
{
  if (g_str_equal (key, "tp")) return s->tp;
  if (g_str_equal (key, "pp")) return s->pp;
  if (g_str_equal (key, "cp")) return s->cp;
  if (g_str_equal (key, "ep")) return s->ep;
  if (g_str_equal (key, "etp")) return plx_strategy_get_expert_tp (s);
  if (g_str_equal (key, "virtual_stages")) return s->virtual_stages;
  if (g_str_equal (key, "micro_batch_size")) return s->micro_batch_size;
  if (g_str_equal (key, "global_batch_size")) return s->global_batch_size;
  if (g_str_equal (key, "seq_length")) return s->seq_length;
  if (g_str_equal (key, "zero_stage")) return s->zero_stage;
  if (g_str_equal (key, "dp")) return s->dp;
  return 0;
}

static const char *const choice_keys[] = { "tp", "pp", "cp", "ep", "etp", "virtual_stages", "micro_batch_size" };

static gboolean
is_choice_key (const char *key)
{
  for (guint i = 0; i < G_N_ELEMENTS (choice_keys); i++)
    if (g_str_equal (key, choice_keys[i]))
      return TRUE;
  return FALSE;
}

static void
candidates (const PlxModel *model, const PlxCluster *cluster, const PlxStrategy *s, const char *key, GArray *out)
{
  guint64 gpus = plx_cluster_get_n_gpus (cluster);
  guint64 top = 0;

  if (g_str_equal (key, "cp"))
    {
      for (guint64 d = 1; d <= MAX_CP && d <= gpus; d *= 2)
        g_array_append_val (out, d);
      return;
    }
  if (g_str_equal (key, "tp"))
    top = cluster->gpus_per_node; /* TP inside a node, as Megatron-LM places it */
  else if (g_str_equal (key, "pp"))
    top = MIN (model->n_layers, gpus);
  else if (g_str_equal (key, "virtual_stages"))
    top = MIN (MAX_CHUNKS, model->n_layers / MAX (s->pp, 1));
  else if (g_str_equal (key, "micro_batch_size"))
    top = MIN (MAX_MICRO_BATCH, MAX (s->global_batch_size, 1));
  else if (g_str_equal (key, "ep"))
    top = MAX (model->experts, 1);
  else if (g_str_equal (key, "etp"))
    top = model->experts > 0 ? cluster->gpus_per_node : 0; /* expert TP inside a node, as TP */
  for (guint64 d = 1; d <= top; d++)
    g_array_append_val (out, d);
}

GArray *
plx_advice_valid_values (const PlxModel    *model,
                         const PlxCluster  *cluster,
                         const PlxStrategy *strategy,
                         const char        *key)
{
  g_autoptr (GArray) cand = NULL;
  GArray *v;

  g_return_val_if_fail (is_choice_key (key), NULL);

  cand = g_array_new (FALSE, FALSE, sizeof (guint64));
  v = g_array_new (FALSE, FALSE, sizeof (guint64));
  candidates (model, cluster, strategy, key, cand);
  for (guint i = 0; i < cand->len; i++)
    {
      guint64 c = g_array_index (cand, guint64, i);
      g_autoptr (PlxStrategy) s = with_value (strategy, key, c);
      if (resolves (model, cluster, s))
        g_array_append_val (v, c);
    }
  return v;
}

/* Nearness on a log scale, so 6 is as far from 3 as 3 from 1.5; ties go to the
 * smaller value (cheaper in memory, never past a limit the larger would cross). */
static double
distance (guint64 a, guint64 b)
{
  return fabs (log ((double) MAX (a, 1)) - log ((double) MAX (b, 1)));
}

/* `values` ascending, so the first of two at equal distance is the smaller. */
static gboolean
nearest (GArray *values, guint64 current, gboolean skip_current, guint64 *out)
{
  gboolean found = FALSE;

  for (guint i = 0; i < values->len; i++)
    {
      guint64 v = g_array_index (values, guint64, i);
      if (skip_current && v == current)
        continue;
      if (!found || distance (v, current) < distance (*out, current) - 1e-12)
        *out = v, found = TRUE;
    }
  return found;
}

static const char *
key_label (const char *key)
{
  static const struct { const char *key, *label; } labels[] = {
    { "tp", N_("TP") }, { "pp", N_("PP") }, { "cp", N_("CP") }, { "ep", N_("EP") }, { "etp", N_("Expert TP") },
    { "dp", N_("DP") },
    { "virtual_stages", N_("Model chunks") }, { "micro_batch_size", N_("Micro-batch") },
    { "global_batch_size", N_("Global batch") }, { "seq_length", N_("Sequence") },
    { "zero_stage", N_("ZeRO") },
  };
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    if (g_str_equal (labels[i].key, key))
      return _(labels[i].label);
  return key;
}

/* Costs `s` (resolved) with the closed form; a fix carries its step time and fit. */
static PlxAdviceFix *
make_fix (const PlxModel *model, const PlxCluster *cluster, const PlxStrategy *s, const char *key, JsonNode *value,
          char *label)
{
  PlxAdviceFix *fix = g_new0 (PlxAdviceFix, 1);
  PlxReport r;

  fix->key = g_strdup (key);
  fix->value = value;
  fix->label = label;
  if (plx_analytic_run (model, cluster, s, &r, NULL))
    {
      fix->step_time_s = r.step_time_s;
      fix->peak_memory_bytes = (double) r.peak_memory_bytes;
      fix->fits = r.fits_in_memory;
    }
  return fix;
}

static JsonNode *
int_node (guint64 v)
{
  JsonNode *n = json_node_new (JSON_NODE_VALUE);
  json_node_set_int (n, (gint64) v);
  return n;
}

static JsonNode *
string_node (const char *v)
{
  JsonNode *n = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (n, v);
  return n;
}

static char *
number_label (const char *key, guint64 v)
{
  return g_strdup_printf ("%s %" G_GUINT64_FORMAT, key_label (key), v);
}

/* The nearest valid global batch or sequence length: the closest value up or down
 * (within BATCH_SEARCH steps, the smaller first) with which the strategy resolves and
 * that a strategy file may hold (at most PLX_STRATEGY_MAX_COUNT): a fix the user
 * cannot type, or that the reader would refuse, leads nowhere. */
static gboolean
nearest_by_search (const PlxModel *model, const PlxCluster *cluster, const PlxStrategy *strategy, const char *key,
                   guint64 *out)
{
  guint64 cur = get_value (strategy, key);

  for (guint64 d = 1; d <= BATCH_SEARCH; d++)
    for (int sign = -1; sign <= 1; sign += 2)
      {
        guint64 c;
        if (sign < 0 && cur <= d)
          continue;
        c = sign < 0 ? cur - d : cur + d;
        if (c > PLX_STRATEGY_MAX_COUNT)
          continue;
        {
          g_autoptr (PlxStrategy) s = with_value (strategy, key, c);
          if (resolves (model, cluster, s))
            {
              *out = c;
              return TRUE;
            }
        }
      }
  return FALSE;
}

gboolean
plx_advice_message_names (const char *message, const char *key)
{
  gsize n = strlen (key);

  if (message == NULL)
    return FALSE;
  for (const char *p = strstr (message, key); p != NULL; p = strstr (p + 1, key))
    if ((p == message || !(g_ascii_isalnum (p[-1]) || p[-1] == '_')) && !(g_ascii_isalnum (p[n]) || p[n] == '_'))
      return TRUE;
  return FALSE;
}

typedef struct
{
  PlxAdviceFix *fix;
  int           named;    /* 0 if the error names the key: those come first */
  double        distance;
} Ranked;

static int
by_rank (gconstpointer a, gconstpointer b)
{
  const Ranked *x = a, *y = b;
  if (x->named != y->named)
    return x->named - y->named;
  return x->distance < y->distance ? -1 : x->distance > y->distance ? 1 : 0;
}

/* Ranks `s` as a fix if it resolves; takes `s`, `value` and `label`. */
static void
rank_fix (GArray *ranked, const PlxModel *model, const PlxCluster *cluster, PlxStrategy *s, const char *message,
          const char *key, JsonNode *value, char *label, double dist)
{
  g_autoptr (PlxStrategy) owned G_GNUC_UNUSED = s;
  Ranked r;

  if (!resolves (model, cluster, s))
    {
      json_node_unref (value);
      g_free (label);
      return;
    }
  r.fix = make_fix (model, cluster, s, key, value, label);
  r.named = plx_advice_message_names (message, key) ? 0 : 1;
  r.distance = dist;
  g_array_append_val (ranked, r);
}

/* Whether `n` nodes of this cluster's size can be asked for, in a file, the window
 * and the CLI. */
static gboolean
node_count_ok (const PlxCluster *cluster, guint64 n)
{
  return n >= 1 && n <= MIN (PLX_CLUSTER_MAX_NODES, MAX_NODES_OFFERED) &&
         n * cluster->gpus_per_node <= PLX_CLUSTER_MAX_GPUS;
}

static char *
nodes_label (const PlxCluster *cluster)
{
  return g_strdup_printf (_("%u nodes (%u GPUs)"), cluster->num_nodes, plx_cluster_get_n_gpus (cluster));
}

/* A GPU count that TP x PP x CP does not divide: the nearest node counts below and
 * above (up to MAX_NODE_FACTOR times as many) with which the strategy resolves, dp
 * derived. The error is about the count, so they rank with the keys it names. */
static void
rank_node_fixes (GArray *ranked, const PlxModel *model, const PlxCluster *cluster, const PlxStrategy *strategy)
{
  guint64 now = cluster->num_nodes;
  g_autoptr (PlxCluster) other = plx_cluster_copy (cluster);

  for (int sign = -1; sign <= 1; sign += 2)
    for (guint64 d = 1; d <= now * (MAX_NODE_FACTOR - 1); d++)
      {
        guint64 n = sign < 0 ? now - d : now + d;
        g_autoptr (PlxStrategy) s = NULL;

        if ((sign < 0 && d >= now) || !node_count_ok (cluster, n))
          break;
        other->num_nodes = (guint) n;
        s = with_value (strategy, "dp", 0);
        if (resolves (model, other, s))
          {
            Ranked r = { make_fix (model, other, s, "num_nodes", int_node (n), nodes_label (other)), 0,
                         distance (n, now) };
            g_array_append_val (ranked, r);
            break;
          }
      }
}

GPtrArray *
plx_advice_nearest_fixes (const PlxModel    *model,
                          const PlxCluster  *cluster,
                          const PlxStrategy *strategy,
                          guint              max)
{
  static const char *const keys[] = { "tp", "pp", "virtual_stages", "cp", "ep", "etp", "micro_batch_size",
                                      "global_batch_size", "seq_length" };
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) ranked = g_array_new (FALSE, FALSE, sizeof (Ranked));
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_advice_fix_free);
  g_autoptr (PlxStrategy) probe = plx_strategy_copy (strategy);

  if (plx_strategy_resolve (probe, model, cluster, "advice", &error))
    return out;
  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      const char *key = keys[k];
      guint64 cur = get_value (strategy, key), best = 0;
      gboolean found;

      if (g_str_equal (key, "seq_length") && cur == 0)
        continue;
      if (g_str_equal (key, "global_batch_size") || g_str_equal (key, "seq_length"))
        found = nearest_by_search (model, cluster, strategy, key, &best);
      else
        {
          g_autoptr (GArray) v = plx_advice_valid_values (model, cluster, strategy, key);
          found = nearest (v, cur, TRUE, &best);
        }
      if (found)
        rank_fix (ranked, model, cluster, with_value (strategy, key, best), error->message, key, int_node (best),
                  number_label (key, best), distance (best, cur));
    }
  /* A dp given with the strategy that does not match the GPUs: the derived one. It
   * ranks nearest (distance 0): dp is the one key the others already determine, and
   * no other key moves. */
  if (strategy->dp != 0)
    {
      g_autoptr (PlxStrategy) s = with_value (strategy, "dp", 0);
      if (resolves (model, cluster, s))
        rank_fix (ranked, model, cluster, plx_strategy_copy (s), error->message, "dp", int_node (s->dp),
                  number_label ("dp", s->dp), 0.0);
    }
  {
    guint64 mp = (guint64) MAX (strategy->tp, 1) * MAX (strategy->pp, 1) * MAX (strategy->cp, 1);
    if (plx_cluster_get_n_gpus (cluster) % mp != 0)
      rank_node_fixes (ranked, model, cluster, strategy);
  }
  /* Another schedule. Interleaving is what needs two or more chunks and a micro-batch
   * count that is a multiple of PP: plain 1F1B (one chunk) has neither rule. The
   * other way, chunks above 1 need interleaving. */
  if (strategy->schedule == PLX_SCHEDULE_INTERLEAVED_1F1B)
    {
      PlxStrategy *s = plx_strategy_copy (strategy);
      s->schedule = PLX_SCHEDULE_1F1B;
      s->virtual_stages = 1;
      rank_fix (ranked, model, cluster, s, error->message, "schedule", string_node ("1f1b"),
                g_strdup (_("Schedule 1F1B")), NON_NUMERIC_DISTANCE);
    }
  else if (strategy->schedule != PLX_SCHEDULE_FILE && strategy->virtual_stages > 1)
    {
      PlxStrategy *s = plx_strategy_copy (strategy);
      s->schedule = PLX_SCHEDULE_INTERLEAVED_1F1B;
      rank_fix (ranked, model, cluster, s, error->message, "schedule", string_node ("interleaved-1f1b"),
                g_strdup (_("Schedule interleaved 1F1B")), NON_NUMERIC_DISTANCE);
    }
  if (strategy->sequence_parallel)
    {
      PlxStrategy *s = plx_strategy_copy (strategy);
      JsonNode *off = json_node_new (JSON_NODE_VALUE);
      json_node_set_boolean (off, FALSE);
      s->sequence_parallel = FALSE;
      rank_fix (ranked, model, cluster, s, error->message, "sequence_parallel", off,
                g_strdup (_("Sequence parallelism off")), NON_NUMERIC_DISTANCE);
    }
  g_array_sort (ranked, by_rank);
  for (guint i = 0; i < ranked->len; i++)
    {
      Ranked *r = &g_array_index (ranked, Ranked, i);
      if (out->len < max)
        g_ptr_array_add (out, r->fix);
      else
        plx_advice_fix_free (r->fix);
    }
  return out;
}

static int
by_step_time (gconstpointer a, gconstpointer b)
{
  const PlxAdviceFix *x = *(PlxAdviceFix *const *) a, *y = *(PlxAdviceFix *const *) b;
  return x->step_time_s < y->step_time_s ? -1 : x->step_time_s > y->step_time_s ? 1 : g_strcmp0 (x->label, y->label);
}

/* Keeps `s` as a fix if it resolves and fits; takes `s`, `value` and `label`. */
static gboolean
consider (GPtrArray *out, const PlxModel *model, const PlxCluster *cluster, PlxStrategy *s, const char *key,
          JsonNode *value, char *label)
{
  g_autoptr (PlxStrategy) owned G_GNUC_UNUSED = s;
  PlxAdviceFix *fix;

  if (!resolves (model, cluster, s))
    {
      json_node_unref (value);
      g_free (label);
      return FALSE;
    }
  fix = make_fix (model, cluster, s, key, value, label);
  if (!fix->fits)
    {
      plx_advice_fix_free (fix);
      return FALSE;
    }
  g_ptr_array_add (out, fix);
  return TRUE;
}

GPtrArray *
plx_advice_fit_fixes (const PlxModel    *model,
                      const PlxCluster  *cluster,
                      const PlxStrategy *strategy,
                      guint              max)
{
  static const char *const recompute_labels[] = { N_("Recompute none"), N_("Recompute selective"), N_("Recompute full") };
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_advice_fix_free);
  g_autoptr (PlxStrategy) base = plx_strategy_copy (strategy);
  PlxReport now;

  if (!resolves (model, cluster, base) || !plx_analytic_run (model, cluster, base, &now, NULL) || now.fits_in_memory)
    return out;

  /* Of each key, the smallest change that fits: a higher ZeRO stage or more recompute
   * than needed only costs time. ZeRO shards model states over the ranks that hold
   * the same weights, DP x CP (plx_advice_zero_note), so it does nothing where those are 1. */
  for (guint z = base->zero_stage + 1; z <= 3 && plx_strategy_get_shard_size (base) > 1; z++)
    if (consider (out, model, cluster, with_value (base, "zero_stage", z), "zero_stage", int_node (z),
                  number_label ("zero_stage", z)))
      break;
  for (guint r = base->recompute + 1; r <= PLX_RECOMPUTE_FULL; r++)
    {
      PlxStrategy *s = plx_strategy_copy (base);
      s->recompute = (PlxRecompute) r;
      if (consider (out, model, cluster, s, "recompute", string_node (plx_recompute_to_string (s->recompute)),
                    g_strdup (_(recompute_labels[r]))))
        break;
    }
  {
    /* The largest smaller micro-batch that fits, and the smallest larger degrees: more
     * splitting costs communication. */
    static const struct { const char *key; gboolean down; } keys[] = {
      { "micro_batch_size", TRUE }, { "tp", FALSE }, { "pp", FALSE }, { "cp", FALSE }, { "ep", FALSE },
    };
    for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
      {
        g_autoptr (GArray) v = plx_advice_valid_values (model, cluster, base, keys[k].key);
        guint64 cur = get_value (base, keys[k].key);
        guint n = v->len;
        for (guint i = 0; i < n; i++)
          {
            guint64 c = g_array_index (v, guint64, keys[k].down ? n - 1 - i : i);
            if (keys[k].down ? c >= cur : c <= cur)
              continue;
            if (consider (out, model, cluster, with_value (base, keys[k].key, c), keys[k].key, int_node (c),
                          number_label (keys[k].key, c)))
              break;
          }
      }
  }
  {
    /* More nodes, same degrees: DP grows, which helps through ZeRO's sharding. Every
     * node count is tried, not only multiples: the smallest that resolves and fits. */
    g_autoptr (PlxCluster) bigger = plx_cluster_copy (cluster);
    for (guint n = cluster->num_nodes + 1; n <= cluster->num_nodes * MAX_NODE_FACTOR && node_count_ok (cluster, n); n++)
      {
        bigger->num_nodes = n;
        if (consider (out, model, bigger, with_value (base, "dp", 0), "num_nodes", int_node (n), nodes_label (bigger)))
          break;
      }
  }
  g_ptr_array_sort (out, by_step_time);
  if (out->len > max)
    g_ptr_array_set_size (out, max);
  return out;
}

gboolean
plx_advice_fix_apply (const PlxAdviceFix *fix,
                      JsonObject         *strategy,
                      JsonObject         *cluster)
{
  if (g_str_equal (fix->key, "num_nodes"))
    {
      if (cluster == NULL)
        return FALSE;
      json_object_set_member (cluster, "num_nodes", plx_json_deep_copy (fix->value));
      json_object_remove_member (strategy, "dp");
      return TRUE;
    }
  {
    /* A change of one key by the rules every front end shares: a new degree derives
     * dp again, a new pipeline drops the old one's layer counts and layout. */
    g_autoptr (JsonObject) change = json_object_new ();
    json_object_set_member (change, fix->key, plx_json_deep_copy (fix->value));
    plx_strategy_json_apply_changes (strategy, change, FALSE);
  }
  /* Chunks belong to interleaving; the fix was judged with one chunk. */
  if (g_str_equal (fix->key, "schedule") && !g_str_equal (json_node_get_string (fix->value), "interleaved-1f1b"))
    json_object_set_int_member (strategy, "virtual_stages", 1);
  return TRUE;
}

/* ---- adapting to another model or cluster ---------------------------------------- */

/* How strictly adapt_key judges a value: the rules that concern the key and the keys
 * adapted before it, plus the batch rules (dp * micro-batch, and dp * PP for
 * interleaving, must divide the global batch) and the later degree CP; with no value
 * kept by all of them the later ones are dropped, and what they concern moves after. */
typedef enum
{
  JUDGE_BATCH,
  JUDGE_DEGREES,
  JUDGE_OWN,
} Judge;

/* The rules of plx_strategy_resolve that concern `key` set to `v`, given the keys
 * adapted before it (tp, pp, chunks, cp, ep, micro-batch in this order). */
static gboolean
key_ok (const PlxModel *model, const PlxCluster *cluster, const PlxStrategy *s, const char *key, guint64 v,
        Judge judge)
{
  guint64 gpus = plx_cluster_get_n_gpus (cluster);
  guint64 seq = s->seq_length != 0 ? s->seq_length : model->max_positions;
  guint64 pp = s->pp, cp = s->cp, mp, dp;
  gboolean interleaved = s->schedule == PLX_SCHEDULE_INTERLEAVED_1F1B;

  if (g_str_equal (key, "tp"))
    return v <= cluster->gpus_per_node && model->heads % v == 0 && model->kv_heads % v == 0 &&
           model->ffn % v == 0 && gpus % v == 0 && (!s->sequence_parallel || (seq / MAX (cp, 1)) % v == 0);
  /* Layers need not divide evenly (plx-layer-split.c); every chunk needs one. */
  if (g_str_equal (key, "virtual_stages"))
    return interleaved                           ? v >= 2 && s->pp * v <= model->n_layers
           : s->schedule == PLX_SCHEDULE_FILE ? s->pp * v <= model->n_layers
                                               : v == 1;
  if (g_str_equal (key, "pp"))
    {
      if (v > model->n_layers || (interleaved && (v < 2 || 2 * v > model->n_layers)))
        return FALSE;
      pp = v;
      if (judge == JUDGE_OWN)
        cp = 1;
    }
  else if (g_str_equal (key, "cp"))
    {
      if (seq % v != 0 || (s->sequence_parallel && (seq / v) % s->tp != 0))
        return FALSE;
      cp = v;
    }

  mp = (guint64) s->tp * pp * cp;
  if (gpus % mp != 0)
    return FALSE;
  dp = gpus / mp;
  if (g_str_equal (key, "ep"))
    return v == 1 || (model->experts % v == 0 &&
                      plx_strategy_expert_layout_fits (s->tp, (guint) dp, (guint) cp, (guint) v, s->etp));
  if (g_str_equal (key, "micro_batch_size"))
    return s->global_batch_size % (dp * v) == 0 && (!interleaved || (s->global_batch_size / (dp * v)) % pp == 0);
  /* Some micro-batch size keeps the batch rules iff micro-batch 1 does. */
  if (judge == JUDGE_BATCH && s->global_batch_size != 0)
    return s->global_batch_size % (dp * (interleaved ? pp : 1)) == 0;
  return TRUE;
}

/* The values of `key` that key_ok accepts, from the same candidates as the sliders. */
static GArray *
key_values (const PlxModel *model, const PlxCluster *cluster, const PlxStrategy *s, const char *key, Judge judge)
{
  g_autoptr (GArray) cand = g_array_new (FALSE, FALSE, sizeof (guint64));
  GArray *v = g_array_new (FALSE, FALSE, sizeof (guint64));

  candidates (model, cluster, s, key, cand);
  for (guint i = 0; i < cand->len; i++)
    if (key_ok (model, cluster, s, key, g_array_index (cand, guint64, i), judge))
      g_array_append_val (v, g_array_index (cand, guint64, i));
  return v;
}

/* Moves `key` of `s` to its nearest value that key_ok accepts, if the current one is
 * not accepted, judging as strictly as some value allows. With interleaving and no PP
 * for it, PP is judged for plain 1F1B (one chunk), which then replaces it: a change of
 * schedule is nearer to what the user had than another global batch. */
static void
adapt_key (const PlxModel *model, const PlxCluster *cluster, PlxStrategy *s, const char *key)
{
  guint64 cur = get_value (s, key), best;

  for (Judge judge = JUDGE_BATCH; judge <= JUDGE_OWN; judge++)
    {
      g_autoptr (GArray) v = NULL;

      if (key_ok (model, cluster, s, key, cur, judge))
        return;
      v = key_values (model, cluster, s, key, judge);
      if (v->len == 0 && g_str_equal (key, "pp") && s->schedule == PLX_SCHEDULE_INTERLEAVED_1F1B)
        {
          g_autoptr (PlxStrategy) plain = plx_strategy_copy (s);
          plain->schedule = PLX_SCHEDULE_1F1B;
          plain->virtual_stages = 1;
          g_array_unref (v);
          v = key_values (model, cluster, plain, key, judge);
          if (v->len > 0)
            s->schedule = PLX_SCHEDULE_1F1B, s->virtual_stages = 1;
        }
      if (nearest (v, cur, FALSE, &best))
        {
          set_value (s, key, best);
          return;
        }
    }
}

static void
set_if_changed (JsonObject *o, const PlxStrategy *s, const PlxStrategy *before, const char *key)
{
  if (get_value (s, key) != get_value (before, key))
    json_object_set_int_member (o, key, (gint64) get_value (s, key));
}

JsonNode *
plx_advice_adapt_strategy (const PlxModel   *model,
                           const PlxCluster *cluster,
                           JsonNode         *strategy)
{
  static const char *const order[] = { "tp", "pp", "virtual_stages", "cp", "ep", "micro_batch_size" };
  static const char *const written[] = { "tp", "pp", "virtual_stages", "cp", "ep", "micro_batch_size",
                                         "global_batch_size", "seq_length" };
  g_autoptr (PlxStrategy) s = NULL;
  g_autoptr (PlxStrategy) before = NULL;
  JsonNode *out;
  JsonObject *o;

  if (strategy == NULL || !JSON_NODE_HOLDS_OBJECT (strategy))
    return NULL;
  s = plx_strategy_new_from_json (strategy, "strategy", NULL);
  if (s == NULL)
    return NULL;
  s->dp = 0;
  /* Counts of layers per stage, and layout strings, belong to the model and pipeline
   * they were written for: after a preset change the layers are split again
   * (balanced). */
  g_clear_pointer (&s->layers_per_stage, g_free);
  s->n_layers_per_stage = 0;
  s->first_stage_layers = s->last_stage_layers = 0;
  g_clear_pointer (&s->pipeline_layout, g_free);
  /* Expert settings belong to models with experts. */
  if (model->experts == 0)
    {
      s->etp = 0;
      s->moe_dispatcher = PLX_MOE_DISPATCHER_ALLTOALL;
    }
  before = plx_strategy_copy (s);
  /* A model with learned positions cannot run longer sequences than it learned; any
   * other keeps the sequence length it was given. */
  if (model->learned_positions && s->seq_length > model->max_positions)
    s->seq_length = model->max_positions;
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    {
      g_autoptr (PlxStrategy) probe = plx_strategy_copy (s);
      if (resolves (model, cluster, probe))
        break;
      adapt_key (model, cluster, s, order[i]);
    }
  /* A precision the new GPU lacks: bf16, as mixed-precision training defaults to. */
  if (cluster->peak_flops[s->dtype] <= 0.0 && cluster->peak_flops[PLX_DTYPE_BF16] > 0.0)
    s->dtype = PLX_DTYPE_BF16;
  {
    g_autoptr (PlxStrategy) probe = plx_strategy_copy (s);
    guint64 gbs;
    if (!resolves (model, cluster, probe) && s->global_batch_size != 0 &&
        nearest_by_search (model, cluster, s, "global_batch_size", &gbs))
      s->global_batch_size = gbs;
  }
  {
    /* Still invalid: the nearest single change, if there is one. */
    g_autoptr (GPtrArray) fixes = plx_advice_nearest_fixes (model, cluster, s, 1);
    if (fixes->len > 0)
      {
        PlxAdviceFix *fix = g_ptr_array_index (fixes, 0);
        if (g_str_equal (fix->key, "schedule"))
          {
            s->schedule = g_str_equal (json_node_get_string (fix->value), "1f1b") ? PLX_SCHEDULE_1F1B
                                                                                : PLX_SCHEDULE_INTERLEAVED_1F1B;
            if (s->schedule == PLX_SCHEDULE_1F1B)
              s->virtual_stages = 1;
          }
        else if (g_str_equal (fix->key, "sequence_parallel"))
          s->sequence_parallel = FALSE;
        else if (!g_str_equal (fix->key, "dp"))
          set_value (s, fix->key, (guint64) json_node_get_int (fix->value));
      }
  }

  /* A tree of its own: json_node_copy would share the object, and the removals
   * below would change the caller's strategy too. */
  out = plx_json_deep_copy (strategy);
  o = json_node_get_object (out);
  json_object_remove_member (o, "dp");
  if (json_object_has_member (o, "layers_per_stage") && JSON_NODE_HOLDS_ARRAY (json_object_get_member (o, "layers_per_stage")))
    json_object_remove_member (o, "layers_per_stage");
  json_object_remove_member (o, "first_stage_layers");
  json_object_remove_member (o, "last_stage_layers");
  json_object_remove_member (o, "pipeline_layout");
  if (model->experts == 0)
    {
      json_object_remove_member (o, "etp");
      json_object_remove_member (o, "moe_dispatcher");
    }
  for (guint i = 0; i < G_N_ELEMENTS (written); i++)
    set_if_changed (o, s, before, written[i]);
  if (s->schedule != before->schedule)
    json_object_set_string_member (o, "schedule", plx_schedule_to_string (s->schedule));
  if (s->dtype != before->dtype)
    json_object_set_string_member (o, "dtype", plx_dtype_to_string (s->dtype));
  if (s->sequence_parallel != before->sequence_parallel)
    json_object_set_boolean_member (o, "sequence_parallel", s->sequence_parallel);
  return out;
}

/* ---- notes beside a setting ------------------------------------------------------- */

/* ZeRO (Rajbhandari et al. 2020 §5) shards optimizer states, gradients and weights
 * over the ranks that hold the same weights. With context parallelism those are the
 * data-parallel ranks times the context-parallel ones: Megatron-LM's distributed
 * optimizer shards over its data-parallel group with context parallelism included
 * (megatron/core: get_data_parallel_group (with_context_parallel=True); context
 * parallelism splits activations, not weights), and so does the cost model
 * (plx_strategy_get_shard_size, plx-costing.c). A stage has no effect only where that
 * group is one rank. */
char *
plx_advice_zero_note (const PlxStrategy *strategy)
{
  const PlxStrategy *s = strategy;

  if (s->zero_stage == 0 || s->dp == 0 || plx_strategy_get_shard_size (s) > 1)
    return NULL;
  if (s->dp > 1)
    return g_strdup (_("No effect with shard groups of 1 rank and CP 1: ZeRO shards within a group"));
  return g_strdup (_("No effect at DP × CP = 1: ZeRO shards over the data- and context-parallel ranks"));
}
