/* What a user can change next; the rules are in docs/advice.md. Everything here asks
 * plx_strategy_resolve whether a strategy is valid and plx_analytic_run what it costs,
 * so the advice never disagrees with the engines. */
#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "parallax/plx-analytic.h"
#include "parallax/plx-strategy-advice.h"

/* Bounds on the candidates tried; each is stated in docs/advice.md. */
#define MAX_MICRO_BATCH 1024
#define MAX_CP 64
#define MAX_CHUNKS 128
#define MAX_NODE_FACTOR 16
#define BATCH_SEARCH 4096

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

/* A copy with `key` set to `v`; a degree that changes the model-parallel size lets
 * dp follow (0 = derive), as the window and the CLI do. */
static PlxStrategy *
with_value (const PlxStrategy *base, const char *key, guint64 v)
{
  PlxStrategy *s = plx_strategy_copy (base);

  if (g_str_equal (key, "tp"))
    s->tp = (guint) v, s->dp = 0;
  else if (g_str_equal (key, "pp"))
    s->pp = (guint) v, s->dp = 0;
  else if (g_str_equal (key, "cp"))
    s->cp = (guint) v, s->dp = 0;
  else if (g_str_equal (key, "ep"))
    s->ep = (guint) v;
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
  return s;
}

static guint64
get_value (const PlxStrategy *s, const char *key)
{
  if (g_str_equal (key, "tp")) return s->tp;
  if (g_str_equal (key, "pp")) return s->pp;
  if (g_str_equal (key, "cp")) return s->cp;
  if (g_str_equal (key, "ep")) return s->ep;
  if (g_str_equal (key, "virtual_stages")) return s->virtual_stages;
  if (g_str_equal (key, "micro_batch_size")) return s->micro_batch_size;
  if (g_str_equal (key, "global_batch_size")) return s->global_batch_size;
  if (g_str_equal (key, "seq_length")) return s->seq_length;
  if (g_str_equal (key, "zero_stage")) return s->zero_stage;
  return 0;
}

static void
candidates (const PlxModel *model, const PlxCluster *cluster, const PlxStrategy *s, const char *key, GArray *out)
{
  guint64 gpus = plx_cluster_get_n_gpus (cluster);
  guint64 top = 0;

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
  if (g_str_equal (key, "cp"))
    {
      for (guint64 d = 1; d <= MAX_CP && d <= gpus; d *= 2)
        g_array_append_val (out, d);
      return;
    }
  for (guint64 d = 1; d <= top; d++)
    g_array_append_val (out, d);
}

GArray *
plx_advice_valid_values (const PlxModel    *model,
                         const PlxCluster  *cluster,
                         const PlxStrategy *strategy,
                         const char        *key)
{
  g_autoptr (GArray) cand = g_array_new (FALSE, FALSE, sizeof (guint64));
  GArray *v = g_array_new (FALSE, FALSE, sizeof (guint64));

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
  return fabs (log ((double) a) - log ((double) b));
}

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
    { "tp", N_("TP") }, { "pp", N_("PP") }, { "cp", N_("CP") }, { "ep", N_("EP") },
    { "virtual_stages", N_("Model chunks") }, { "micro_batch_size", N_("Micro-batch") },
    { "global_batch_size", N_("Global batch") }, { "seq_length", N_("Sequence") },
    { "zero_stage", N_("ZeRO") }, { "num_nodes", N_("Nodes") },
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

/* The nearest valid global batch or sequence length: the closest value up or down
 * (within BATCH_SEARCH steps) with which the strategy resolves. */
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

GPtrArray *
plx_advice_nearest_fixes (const PlxModel    *model,
                          const PlxCluster  *cluster,
                          const PlxStrategy *strategy,
                          guint              max)
{
  static const char *const keys[] = { "tp", "pp", "virtual_stages", "cp", "ep", "micro_batch_size",
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
        {
          g_autoptr (PlxStrategy) s = with_value (strategy, key, best);
          Ranked r;
          resolves (model, cluster, s);
          r.fix = make_fix (model, cluster, s, key, int_node (best),
                            g_strdup_printf ("%s %" G_GUINT64_FORMAT, key_label (key), best));
          r.named = plx_advice_message_names (error->message, key) ? 0 : 1;
          r.distance = distance (best, MAX (cur, 1));
          g_array_append_val (ranked, r);
        }
    }
  /* Another schedule: interleaving is what needs chunks and a micro-batch count
   * that is a multiple of PP; plain 1F1B has neither rule. */
  if (strategy->schedule == PLX_SCHEDULE_INTERLEAVED_1F1B)
    {
      g_autoptr (PlxStrategy) s = plx_strategy_copy (strategy);
      s->schedule = PLX_SCHEDULE_1F1B;
      s->virtual_stages = 1;
      if (resolves (model, cluster, s))
        {
          Ranked r = { make_fix (model, cluster, s, "schedule", string_node ("1f1b"), g_strdup (_("Schedule 1F1B"))),
                       plx_advice_message_names (error->message, "schedule") ? 0 : 1, 1.0 };
          g_array_append_val (ranked, r);
        }
    }
  if (strategy->sequence_parallel)
    {
      g_autoptr (PlxStrategy) s = plx_strategy_copy (strategy);
      s->sequence_parallel = FALSE;
      if (resolves (model, cluster, s))
        {
          JsonNode *off = json_node_new (JSON_NODE_VALUE);
          Ranked r;
          json_node_set_boolean (off, FALSE);
          r.fix = make_fix (model, cluster, s, "sequence_parallel", off, g_strdup (_("Sequence parallelism off")));
          r.named = plx_advice_message_names (error->message, "sequence_parallel") ? 0 : 1;
          r.distance = 1.0;
          g_array_append_val (ranked, r);
        }
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

/* Keeps `s` as a fix if it resolves and fits. */
static void
consider (GPtrArray *out, const PlxModel *model, const PlxCluster *cluster, PlxStrategy *s, const char *key,
          JsonNode *value, char *label)
{
  PlxAdviceFix *fix;

  if (!resolves (model, cluster, s))
    {
      json_node_unref (value);
      g_free (label);
      return;
    }
  fix = make_fix (model, cluster, s, key, value, label);
  if (fix->fits)
    g_ptr_array_add (out, fix);
  else
    plx_advice_fix_free (fix);
}

GPtrArray *
plx_advice_fit_fixes (const PlxModel    *model,
                      const PlxCluster  *cluster,
                      const PlxStrategy *strategy,
                      guint              max)
{
  static const char *const recompute_labels[] = { N_("Recompute none"), N_("Recompute selective"), N_("Recompute full") };
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_advice_fix_free);

  /* ZeRO shards model states over the data-parallel ranks (Rajbhandari et al. 2020). */
  for (guint z = strategy->zero_stage + 1; z <= 3 && strategy->dp > 1; z++)
    {
      g_autoptr (PlxStrategy) s = with_value (strategy, "zero_stage", z);
      consider (out, model, cluster, s, "zero_stage", int_node (z), g_strdup_printf ("%s %u", key_label ("zero_stage"), z));
    }
  for (guint r = strategy->recompute + 1; r <= PLX_RECOMPUTE_FULL; r++)
    {
      g_autoptr (PlxStrategy) s = plx_strategy_copy (strategy);
      s->recompute = (PlxRecompute) r;
      consider (out, model, cluster, s, "recompute", string_node (plx_recompute_to_string (s->recompute)),
                g_strdup (_(recompute_labels[r])));
    }
  {
    /* The largest smaller micro-batch that fits, and larger degrees: each the
     * nearest that fits, since more splitting costs communication. */
    static const struct { const char *key; gboolean down; } keys[] = {
      { "micro_batch_size", TRUE }, { "tp", FALSE }, { "pp", FALSE }, { "cp", FALSE },
    };
    for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
      {
        g_autoptr (GArray) v = plx_advice_valid_values (model, cluster, strategy, keys[k].key);
        guint64 cur = get_value (strategy, keys[k].key);
        guint n = v->len;
        for (guint i = 0; i < n; i++)
          {
            guint64 c = g_array_index (v, guint64, keys[k].down ? n - 1 - i : i);
            g_autoptr (PlxStrategy) s = NULL;
            guint before = out->len;
            if (keys[k].down ? c >= cur : c <= cur)
              continue;
            s = with_value (strategy, keys[k].key, c);
            consider (out, model, cluster, s, keys[k].key, int_node (c),
                      g_strdup_printf ("%s %" G_GUINT64_FORMAT, key_label (keys[k].key), c));
            if (out->len > before)
              break;
          }
      }
  }
  {
    /* More nodes, same degrees: DP grows, which helps with ZeRO's sharding. */
    g_autoptr (PlxCluster) bigger = plx_cluster_copy (cluster);
    for (guint f = 2; f <= MAX_NODE_FACTOR; f++)
      {
        g_autoptr (PlxStrategy) s = plx_strategy_copy (strategy);
        PlxAdviceFix *fix;
        bigger->num_nodes = cluster->num_nodes * f;
        s->dp = 0;
        if (!resolves (model, bigger, s))
          continue;
        fix = make_fix (model, bigger, s, "num_nodes", int_node (bigger->num_nodes),
                        g_strdup_printf (_("%u nodes (%u GPUs)"), bigger->num_nodes, plx_cluster_get_n_gpus (bigger)));
        if (fix->fits)
          {
            g_ptr_array_add (out, fix);
            break;
          }
        plx_advice_fix_free (fix);
      }
  }
  g_ptr_array_sort (out, by_step_time);
  if (out->len > max)
    g_ptr_array_set_size (out, max);
  return out;
}

/* Moves `key` of `s` to its nearest valid value if the strategy does not resolve with
 * the value it has, judged by the rules that concern that key alone and the keys
 * before it in the order of adaptation (the later ones may still be wrong). */
static void
adapt_key (const PlxModel *model, const PlxCluster *cluster, PlxStrategy *s, const char *key)
{
  g_autoptr (GArray) v = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 gpus = plx_cluster_get_n_gpus (cluster), cur = get_value (s, key), best;

  if (g_str_equal (key, "tp"))
    {
      for (guint64 d = 1; d <= cluster->gpus_per_node; d++)
        if (model->heads % d == 0 && model->kv_heads % d == 0 && model->ffn % d == 0 && gpus % d == 0)
          g_array_append_val (v, d);
    }
  else if (g_str_equal (key, "pp"))
    {
      guint64 lo = s->schedule == PLX_SCHEDULE_INTERLEAVED_1F1B ? 2 : 1;
      for (guint64 d = lo; d <= model->n_layers; d++)
        if (model->n_layers % d == 0 && gpus % ((guint64) s->tp * d) == 0)
          g_array_append_val (v, d);
    }
  else
    {
      g_autoptr (GArray) full = plx_advice_valid_values (model, cluster, s, key);
      g_array_append_vals (v, full->data, full->len);
    }
  for (guint i = 0; i < v->len; i++)
    if (g_array_index (v, guint64, i) == cur)
      return;
  if (nearest (v, MAX (cur, 1), FALSE, &best))
    {
      PlxStrategy *t = with_value (s, key, best);
      memcpy (s, t, sizeof *s);
      g_free (t);
    }
}

JsonNode *
plx_advice_adapt_strategy (const PlxModel   *model,
                           const PlxCluster *cluster,
                           JsonNode         *strategy)
{
  static const char *const order[] = { "tp", "pp", "virtual_stages", "cp", "ep", "micro_batch_size" };
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
  before = plx_strategy_copy (s);
  /* A model with learned positions cannot run longer sequences than it learned. */
  if (model->learned_positions && s->seq_length > model->max_positions)
    s->seq_length = model->max_positions;
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    {
      g_autoptr (PlxStrategy) probe = plx_strategy_copy (s);
      if (resolves (model, cluster, probe))
        break;
      adapt_key (model, cluster, s, order[i]);
    }
  out = json_node_copy (strategy);
  o = json_node_get_object (out);
  json_object_remove_member (o, "dp");
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    if (get_value (s, order[i]) != get_value (before, order[i]))
      json_object_set_int_member (o, order[i], (gint64) get_value (s, order[i]));
  if (s->seq_length != before->seq_length)
    json_object_set_int_member (o, "seq_length", (gint64) s->seq_length);
  return out;
}

static const char *
schedule_display (const PlxStrategy *s)
{
  switch (s->schedule)
    {
    case PLX_SCHEDULE_GPIPE:
      return _("GPipe");
    case PLX_SCHEDULE_INTERLEAVED_1F1B:
      return _("interleaved 1F1B");
    case PLX_SCHEDULE_ZERO_BUBBLE_H1:
      return _("zero bubble H1");
    case PLX_SCHEDULE_FILE:
      return _("schedule file");
    case PLX_SCHEDULE_1F1B:
    default:
      return _("1F1B");
    }
}

char *
plx_scenario_describe (const PlxScenario *sc)
{
  const PlxStrategy *s = sc->strategy;
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, _("%s on %u %s"), sc->model->name, plx_cluster_get_n_gpus (sc->cluster),
                          sc->cluster->gpu_name);
  g_string_append_printf (out, ", TP %u × PP %u × DP %u", s->tp, s->pp, s->dp);
  if (s->cp > 1)
    g_string_append_printf (out, " × CP %u", s->cp);
  if (s->ep > 1)
    g_string_append_printf (out, ", EP %u", s->ep);
  g_string_append_printf (out, ", %s", schedule_display (s));
  if (s->virtual_stages > 1)
    g_string_append_printf (out, " ×%u", s->virtual_stages);
  return g_string_free (out, FALSE);
}
