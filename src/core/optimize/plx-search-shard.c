/* Search part files: a header line, one line per closed-form result, a footer line
 * with the counts (docs/sweeps.md). Doubles are written with 17 significant digits
 * (json-glib's g_ascii_dtostr), so a merged ranking sees exactly the numbers the
 * shard computed and ties break as they would in one process. */
#include <math.h>
#include <string.h>

#include "base/plx-input.h"
#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "base/plx-output.h"
#include "optimize/plx-search-shard.h"

#define PART_KEY "parallax_search_part"

static JsonObject *
options_to_json (const PlxSearchOptions *o)
{
  JsonObject *j = json_object_new ();

  /* What decides the space and what fits; not the threads (results do not depend on
   * them) nor top_k (the merge re-simulates). */
  json_object_set_int_member (j, "gpus_min", o->gpus_min);
  json_object_set_int_member (j, "gpus_max", o->gpus_max);
  json_object_set_int_member (j, "fix_tp", o->fix_tp);
  json_object_set_int_member (j, "fix_pp", o->fix_pp);
  json_object_set_int_member (j, "fix_cp", o->fix_cp);
  json_object_set_int_member (j, "fix_ep", o->fix_ep);
  json_object_set_int_member (j, "fix_dp", o->fix_dp);
  json_object_set_int_member (j, "fix_micro_batch", o->fix_micro_batch);
  json_object_set_int_member (j, "fix_virtual_stages", o->fix_virtual_stages);
  json_object_set_int_member (j, "fix_zero_stage", o->fix_zero_stage);
  json_object_set_int_member (j, "fix_recompute", o->fix_recompute);
  json_object_set_int_member (j, "fix_schedule", o->fix_schedule);
  json_object_set_int_member (j, "fix_sequence_parallel", o->fix_sequence_parallel);
  json_object_set_double_member (j, "memory_headroom", o->memory_headroom);
  json_object_set_int_member (j, "max_micro_batch", o->max_micro_batch);
  json_object_set_boolean_member (j, "uneven_stages", o->uneven_stages);
  return j;
}

/* A member that must be there with the right type, else an error naming file and line. */
static gboolean
get_int (JsonObject *o, const char *key, gint64 lo, gint64 hi, gint64 *out, const char *path, guint line,
         GError **error)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s:%u: \"%s\" is missing or not a whole number", path, line,
                   key);
      return FALSE;
    }
  *out = json_node_get_int (n);
  if (*out < lo || *out > hi)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s:%u: \"%s\" is %" G_GINT64_FORMAT ", not %"
                   G_GINT64_FORMAT " to %" G_GINT64_FORMAT, path, line, key, *out, lo, hi);
      return FALSE;
    }
  return TRUE;
}

static gboolean
get_double (JsonObject *o, const char *key, double *out, const char *path, guint line, GError **error)
{
  JsonNode *n = json_object_get_member (o, key);
  GType t = n != NULL && JSON_NODE_HOLDS_VALUE (n) ? json_node_get_value_type (n) : G_TYPE_INVALID;

  if (t != G_TYPE_DOUBLE && t != G_TYPE_INT64)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s:%u: \"%s\" is missing or not a number", path, line, key);
      return FALSE;
    }
  *out = json_node_get_double (n);
  if (!isfinite (*out) || *out < 0.0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s:%u: \"%s\" is %g, not a finite number >= 0", path,
                   line, key, *out);
      return FALSE;
    }
  return TRUE;
}

static gboolean
get_bool (JsonObject *o, const char *key, gboolean *out, const char *path, guint line, GError **error)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s:%u: \"%s\" is missing or not true/false", path, line, key);
      return FALSE;
    }
  *out = json_node_get_boolean (n);
  return TRUE;
}

/* An enum written by its name: the value whose to_string gives it. */
static gboolean
get_enum (JsonObject *o, const char *key, const char *(*to_string) (int), int n_values, int *out, const char *path,
          guint line, GError **error)
{
  const char *name = json_object_has_member (o, key) ? json_node_get_string (json_object_get_member (o, key)) : NULL;

  for (int v = 0; name != NULL && v < n_values; v++)
    if (g_str_equal (name, to_string (v)))
      {
        *out = v;
        return TRUE;
      }
  g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s:%u: \"%s\" is missing or not a known name (\"%.40s\")",
               path, line, key, name ? name : "");
  return FALSE;
}

static const char *
schedule_name (int v)
{
  return plx_schedule_to_string ((PlxSchedule) v);
}

static const char *
recompute_name (int v)
{
  return plx_recompute_to_string ((PlxRecompute) v);
}

static void
append_line (GString *out, JsonObject *object)
{
  g_autoptr (JsonNode) node = json_node_init_object (json_node_alloc (), object);
  g_autofree char *text = plx_json_to_text (node, FALSE, NULL);

  /* A part holds finite figures only (the search keeps no NaN), so nothing is refused. */
  g_string_append (out, text != NULL ? text : "null");
  g_string_append_c (out, '\n');
}

gboolean
plx_search_part_write (const char             *path,
                       JsonObject             *context,
                       const PlxSearchOptions *options,
                       const PlxSearch        *search,
                       GError                **error)
{
  g_autoptr (GString) out = g_string_new (NULL);
  g_autoptr (JsonObject) header = json_object_new ();
  g_autoptr (JsonObject) footer = json_object_new ();

  if (options->n_shards == 0 || options->shard >= options->n_shards)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: shard %u of %u is not a shard", path,
                   options->shard + 1, options->n_shards);
      return FALSE;
    }
  json_object_set_int_member (header, PART_KEY, PLX_SEARCH_PART_VERSION);
  json_object_set_int_member (header, "shard", options->shard + 1);
  json_object_set_int_member (header, "n_shards", options->n_shards);
  json_object_set_object_member (header, "options", options_to_json (options));
  if (context != NULL)
    json_object_set_object_member (header, "context", json_object_ref (context));
  append_line (out, header);

  for (guint i = 0; i < search->results->len; i++)
    {
      const PlxSearchResult *r = &g_array_index (search->results, PlxSearchResult, i);
      const PlxStrategy *s = &r->strategy;
      g_autoptr (JsonObject) row = json_object_new ();

      json_object_set_int_member (row, "n_gpus", r->n_gpus);
      json_object_set_int_member (row, "dp", s->dp);
      json_object_set_int_member (row, "tp", s->tp);
      json_object_set_int_member (row, "pp", s->pp);
      json_object_set_int_member (row, "cp", s->cp);
      json_object_set_int_member (row, "ep", s->ep);
      json_object_set_int_member (row, "micro_batch_size", (gint64) s->micro_batch_size);
      json_object_set_string_member (row, "schedule", plx_schedule_to_string (s->schedule));
      json_object_set_int_member (row, "virtual_stages", s->virtual_stages);
      json_object_set_string_member (row, "recompute", plx_recompute_to_string (s->recompute));
      json_object_set_int_member (row, "zero_stage", s->zero_stage);
      json_object_set_boolean_member (row, "sequence_parallel", s->sequence_parallel);
      json_object_set_boolean_member (row, "layers_per_stage_auto", s->layers_per_stage_auto);
      json_object_set_double_member (row, "analytical_step_time_s", r->analytical_step_time_s);
      json_object_set_double_member (row, "mfu", r->mfu);
      json_object_set_double_member (row, "tokens_per_s", r->tokens_per_s);
      json_object_set_int_member (row, "peak_memory_bytes", (gint64) r->peak_memory_bytes);
      json_object_set_boolean_member (row, "fits_in_memory", r->fits_in_memory);
      append_line (out, row);
    }

  /* The footer says the shard finished, and what the merge adds up. */
  json_object_set_boolean_member (footer, "end", TRUE);
  json_object_set_int_member (footer, "shard", options->shard + 1);
  json_object_set_int_member (footer, "n_results", search->results->len);
  json_object_set_int_member (footer, "configs_evaluated", (gint64) search->configs_evaluated);
  json_object_set_int_member (footer, "configs_valid", (gint64) search->configs_valid);
  json_object_set_int_member (footer, "configs_fit", (gint64) search->configs_fit);
  json_object_set_int_member (footer, "pruned_model_states", (gint64) search->pruned_model_states);
  json_object_set_int_member (footer, "pruned_activations", (gint64) search->pruned_activations);
  json_object_set_double_member (footer, "elapsed_s", search->elapsed_s);
  append_line (out, footer);

  return plx_output_write_file (path, out->str, (gssize) out->len, error);
}

static gboolean
read_options (JsonObject *header, PlxSearchOptions *o, const char *path, GError **error)
{
  JsonNode *node = json_object_get_member (header, "options");
  JsonObject *j;
  gint64 v;
  double h;

  plx_search_options_init (o);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s:1: \"options\" is missing or not an object", path);
      return FALSE;
    }
  j = json_node_get_object (node);
#define FIX(key)                                                        \
  if (!get_int (j, #key, -1, 1048576, &v, path, 1, error))             \
    return FALSE;                                                        \
  o->key = (gint) v
  FIX (fix_tp);
  FIX (fix_pp);
  FIX (fix_cp);
  FIX (fix_ep);
  FIX (fix_dp);
  FIX (fix_micro_batch);
  FIX (fix_virtual_stages);
  FIX (fix_zero_stage);
  FIX (fix_recompute);
  FIX (fix_schedule);
  FIX (fix_sequence_parallel);
#undef FIX
  if (!get_int (j, "gpus_min", 0, G_MAXUINT, &v, path, 1, error))
    return FALSE;
  o->gpus_min = (guint) v;
  if (!get_int (j, "gpus_max", 0, G_MAXUINT, &v, path, 1, error))
    return FALSE;
  o->gpus_max = (guint) v;
  if (!get_int (j, "max_micro_batch", 0, G_MAXUINT, &v, path, 1, error))
    return FALSE;
  o->max_micro_batch = (guint) v;
  if (!get_double (j, "memory_headroom", &h, path, 1, error))
    return FALSE;
  if (h > 0.9)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s:1: \"memory_headroom\" is %g, not 0 to 0.9", path, h);
      return FALSE;
    }
  o->memory_headroom = h;
  return get_bool (j, "uneven_stages", &o->uneven_stages, path, 1, error);
}

static gboolean
read_row (JsonObject *j, PlxSearchPartRow *row, const char *path, guint line, GError **error)
{
  PlxSearchCandidate *c = &row->candidate;
  gint64 v[8];
  static const char *const keys[] = { "n_gpus", "dp", "tp", "pp", "cp", "ep", "virtual_stages", "zero_stage" };
  gint64 mbs, peak;
  int sched, rc;
  gboolean fits;

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    if (!get_int (j, keys[k], k == 7 ? 0 : 1, k == 7 ? 3 : 10000000, &v[k], path, line, error))
      return FALSE;
  if (!get_int (j, "micro_batch_size", 1, G_MAXINT64, &mbs, path, line, error) ||
      !get_int (j, "peak_memory_bytes", 0, G_MAXINT64, &peak, path, line, error) ||
      !get_enum (j, "schedule", schedule_name, PLX_SCHEDULE_FILE, &sched, path, line, error) ||
      !get_enum (j, "recompute", recompute_name, PLX_RECOMPUTE_FULL + 1, &rc, path, line, error) ||
      !get_bool (j, "sequence_parallel", &c->sequence_parallel, path, line, error) ||
      !get_bool (j, "layers_per_stage_auto", &c->layers_per_stage_auto, path, line, error) ||
      !get_bool (j, "fits_in_memory", &fits, path, line, error) ||
      !get_double (j, "analytical_step_time_s", &row->step_time_s, path, line, error) ||
      !get_double (j, "mfu", &row->mfu, path, line, error) ||
      !get_double (j, "tokens_per_s", &row->tokens_per_s, path, line, error))
    return FALSE;
  if (!fits)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s:%u: a result that does not fit in memory", path, line);
      return FALSE;
    }
  row->n_gpus = (guint) v[0];
  c->dp = (guint) v[1];
  c->tp = (guint) v[2];
  c->pp = (guint) v[3];
  c->cp = (guint) v[4];
  c->ep = (guint) v[5];
  c->virtual_stages = (guint) v[6];
  c->zero_stage = (guint) v[7];
  c->micro_batch_size = (guint64) mbs;
  c->schedule = (PlxSchedule) sched;
  c->recompute = (PlxRecompute) rc;
  row->peak_memory_bytes = (guint64) peak;
  return TRUE;
}

static gboolean
read_footer (JsonObject *j, PlxSearchPart *part, guint line, GError **error)
{
  guint64 *const slots[] = { &part->configs_evaluated, &part->configs_valid, &part->configs_fit,
                             &part->pruned_model_states, &part->pruned_activations };
  static const char *const keys[] = { "configs_evaluated", "configs_valid", "configs_fit", "pruned_model_states",
                                      "pruned_activations" };
  gint64 v;

  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      if (!get_int (j, keys[k], 0, G_MAXINT64, &v, part->path, line, error))
        return FALSE;
      *slots[k] = (guint64) v;
    }
  if (!get_double (j, "elapsed_s", &part->elapsed_s, part->path, line, error) ||
      !get_int (j, "n_results", 0, G_MAXINT64, &v, part->path, line, error))
    return FALSE;
  /* Not configs_fit: an "auto" split that fits but is no faster than the even one
   * counts there without a line of its own (plx-search.c). */
  if ((guint64) v != part->rows->len)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%s:%u: the footer counts %" G_GINT64_FORMAT " results, the file holds %u", part->path, line, v,
                   part->rows->len);
      return FALSE;
    }
  return TRUE;
}

PlxSearchPart *
plx_search_part_read (const char *path,
                      GError    **error)
{
  g_autoptr (PlxSearchPart) part = g_new0 (PlxSearchPart, 1);
  g_autofree char *text = NULL;
  gsize length = 0;
  g_auto (GStrv) lines = NULL;
  gboolean ended = FALSE;
  guint n_lines;
  gint64 v;

  part->path = g_strdup (plx_input_name (path));
  part->rows = g_array_new (FALSE, FALSE, sizeof (PlxSearchPartRow));
  /* As the JSON loaders read: a FIFO or /dev/zero as a part was read forever. */
  text = plx_json_read_text_file (path, &length, error);
  if (text == NULL)
    return NULL;
  if (memchr (text, '\0', length) != NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: holds a NUL byte, not a search part", path);
      return NULL;
    }
  lines = g_strsplit (text, "\n", -1);
  n_lines = g_strv_length (lines);
  for (guint i = 0; i < n_lines; i++)
    {
      g_autoptr (JsonNode) root = NULL;
      g_autofree char *where = NULL;
      JsonObject *j;

      /* Blank lines (a trailing newline, an editor's extra one) carry nothing. */
      if (g_strstrip (lines[i])[0] == '\0')
        continue;
      if (ended)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s:%u: a line after the footer", path, i + 1);
          return NULL;
        }
      /* The loaders' own parser: its nesting limit keeps a line of 100,000 brackets
       * from exhausting json-glib's recursion (issue 34). */
      where = g_strdup_printf ("%s:%u", path, i + 1);
      root = plx_json_parse_data (lines[i], -1, where, error);
      if (root == NULL)
        return NULL;
      if (!JSON_NODE_HOLDS_OBJECT (root))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: not a JSON object", where);
          return NULL;
        }
      j = json_node_get_object (root);
      if (part->header == NULL)
        {
          if (!json_object_has_member (j, PART_KEY))
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                           "%s: not a search part (written by parallax-cli search --shard I/N --out)", where);
              return NULL;
            }
          if (!get_int (j, PART_KEY, PLX_SEARCH_PART_VERSION, PLX_SEARCH_PART_VERSION, &v, path, i + 1, error) ||
              !get_int (j, "n_shards", 1, 1000000, &v, path, i + 1, error))
            return NULL;
          part->n_shards = (guint) v;
          if (!get_int (j, "shard", 1, part->n_shards, &v, path, i + 1, error) ||
              !read_options (j, &part->options, path, error))
            return NULL;
          part->shard = (guint) v - 1;
          part->options.shard = part->shard;
          part->options.n_shards = part->n_shards;
          part->header = json_object_ref (j);
        }
      else if (json_object_has_member (j, "end"))
        {
          if (!read_footer (j, part, i + 1, error))
            return NULL;
          ended = TRUE;
        }
      else
        {
          PlxSearchPartRow row = { 0 };
          if (!read_row (j, &row, path, i + 1, error))
            return NULL;
          g_array_append_val (part->rows, row);
        }
    }
  if (part->header == NULL || !ended)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: %s", path,
                   part->header == NULL ? "empty, not a search part"
                                        : "no footer line: the shard did not finish (or the file was cut)");
      return NULL;
    }
  return g_steal_pointer (&part);
}

void
plx_search_part_free (PlxSearchPart *part)
{
  if (part == NULL)
    return;
  g_free (part->path);
  g_clear_pointer (&part->header, json_object_unref);
  g_clear_pointer (&part->rows, g_array_unref);
  g_free (part);
}

JsonNode *
plx_search_part_get_context (const PlxSearchPart *part,
                             const char          *name)
{
  JsonNode *context = json_object_get_member (part->header, "context");

  if (context == NULL || !JSON_NODE_HOLDS_OBJECT (context))
    return NULL;
  return json_object_get_member (json_node_get_object (context), name);
}

/* The first header member in which two parts differ (the shard aside), or NULL. */
static const char *
header_difference (JsonObject *a, JsonObject *b)
{
  g_autoptr (GList) names = json_object_get_members (a);
  g_autoptr (GList) others = json_object_get_members (b);

  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonNode *y = json_object_get_member (b, l->data);
      if (g_str_equal (l->data, "shard"))
        continue;
      if (y == NULL || !json_node_equal (json_object_get_member (a, l->data), y))
        return l->data;
    }
  for (GList *l = others; l != NULL; l = l->next)
    if (!json_object_has_member (a, l->data))
      return l->data;
  return NULL;
}

PlxSearch *
plx_search_merge (PlxSearchPart *const *parts,
                  guint                 n_parts,
                  const PlxModel       *model,
                  const PlxCluster     *cluster,
                  const PlxStrategy    *base,
                  guint                 top_k,
                  GError              **error)
{
  g_autofree const PlxSearchPart **by_shard = NULL;
  PlxSearchOptions options;
  PlxSearch *out;
  guint n_shards;
  gint64 t0 = g_get_monotonic_time ();
  double shards_s = 0.0;

  if (n_parts == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "merge: no search part given");
      return NULL;
    }
  n_shards = parts[0]->n_shards;
  by_shard = g_new0 (const PlxSearchPart *, n_shards);
  for (guint i = 0; i < n_parts; i++)
    {
      const PlxSearchPart *p = parts[i];
      const char *diff = header_difference (parts[0]->header, p->header);

      if (diff != NULL)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                       "%s: not a part of the same search as %s (its \"%s\" differs: another scenario, options, "
                       "shard count or version)", p->path, parts[0]->path, diff);
          return NULL;
        }
      if (by_shard[p->shard] != NULL)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: shard %u/%u again (already in %s)", p->path,
                       p->shard + 1, n_shards, by_shard[p->shard]->path);
          return NULL;
        }
      by_shard[p->shard] = p;
    }
  for (guint s = 0; s < n_shards; s++)
    if (by_shard[s] == NULL)
      {
        g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                     "merge: shard %u/%u is missing (%u of %u parts given, the first %s)", s + 1, n_shards, n_parts,
                     n_shards, parts[0]->path);
        return NULL;
      }

  options = parts[0]->options;
  options.top_k = top_k;
  options.n_shards = 0;
  options.shard = 0;
  out = g_new0 (PlxSearch, 1);
  out->results = g_array_new (FALSE, FALSE, sizeof (PlxSearchResult));
  /* Shard order: the union is sorted by a total order, so it does not matter. */
  for (guint s = 0; s < n_shards; s++)
    {
      const PlxSearchPart *p = by_shard[s];
      out->configs_evaluated += p->configs_evaluated;
      out->configs_valid += p->configs_valid;
      out->configs_fit += p->configs_fit;
      out->pruned_model_states += p->pruned_model_states;
      out->pruned_activations += p->pruned_activations;
      shards_s += p->elapsed_s;
      for (guint i = 0; i < p->rows->len; i++)
        {
          const PlxSearchPartRow *row = &g_array_index (p->rows, PlxSearchPartRow, i);
          PlxSearchResult r = { 0 };

          if (cluster->gpus_per_node == 0 || row->n_gpus % cluster->gpus_per_node != 0)
            {
              plx_search_free (out);
              g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                           "%s: a result on %u GPUs, not a whole number of the cluster's %u-GPU nodes", p->path,
                           row->n_gpus, cluster->gpus_per_node);
              return NULL;
            }
          plx_search_strategy_for (base, &row->candidate, &r.strategy);
          r.n_gpus = row->n_gpus;
          r.step_time_s = r.analytical_step_time_s = row->step_time_s;
          r.mfu = row->mfu;
          r.tokens_per_s = row->tokens_per_s;
          r.peak_memory_bytes = row->peak_memory_bytes;
          r.fits_in_memory = TRUE;
          g_array_append_val (out->results, r);
        }
    }
  plx_search_rank (out, model, cluster, &options);
  out->n_threads = 1;
  /* The work of the whole search: every shard's, and the merge's own. */
  out->elapsed_s = shards_s + (g_get_monotonic_time () - t0) / 1e6;
  return out;
}
