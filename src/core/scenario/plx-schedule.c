/* Pipeline schedules as per-stage orders of passes, and the checks every order must
 * pass before the simulator runs it. Model chunk c of stage s is virtual stage
 * k = c * pp + s (Megatron-LM's interleaved assignment, Narayanan et al. 2021 §2.2.2):
 * F of virtual stage k needs F of k - 1; B of k needs F of k and B of k + 1; W of k
 * needs B of k. */
#include <string.h>

#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "parallax/plx-strategy.h"

#include "plx-schedule-cursor.h"

static const char pass_letters[PLX_N_PASSES] = { 'F', 'B', 'W' };

static GArray **
stages_new (guint pp, guint v, guint64 m, gboolean split)
{
  GArray **stages = g_new0 (GArray *, pp);

  for (guint s = 0; s < pp; s++)
    stages[s] = g_array_sized_new (FALSE, FALSE, sizeof (PlxScheduleEntry), (guint) (m * v * (split ? 3 : 2)));
  return stages;
}

/* The order's shape, without entries. */
static PlxScheduleOrder *
order_shape (guint pp, guint v, guint64 m, gboolean split)
{
  PlxScheduleOrder *o = g_new0 (PlxScheduleOrder, 1);

  o->pp = pp;
  o->virtual_stages = v;
  o->micro_batches = m;
  o->split_backward = split;
  return o;
}

static PlxScheduleOrder *
order_new (guint pp, guint v, guint64 m, gboolean split)
{
  PlxScheduleOrder *o = order_shape (pp, v, m, split);

  o->stages = stages_new (pp, v, m, split);
  return o;
}

/* A built-in order without its arrays: plx_schedule_order_get_stages builds them. */
static PlxScheduleOrder *
order_generated (PlxSchedule schedule, guint pp, guint v, guint64 m)
{
  PlxScheduleOrder *o = order_shape (pp, v, m, FALSE);

  o->generated = TRUE;
  o->schedule = schedule;
  return o;
}

static void
push (PlxScheduleOrder *o, guint stage, PlxPass pass, guint chunk, guint64 mb)
{
  PlxScheduleEntry e = { (guint8) pass, (guint16) chunk, (guint32) mb };
  g_array_append_val (o->stages[stage], e);
}

void
plx_schedule_order_free (PlxScheduleOrder *o)
{
  if (o == NULL)
    return;
  for (guint s = 0; s < o->pp && o->stages != NULL; s++)
    g_array_unref (o->stages[s]);
  g_free (o->stages);
  g_free (o);
}

char *
plx_schedule_entry_to_string (const PlxScheduleEntry *e)
{
  if (e->chunk == 0)
    return g_strdup_printf ("%c%u", pass_letters[e->pass], e->micro_batch);
  return g_strdup_printf ("%c%u.%u", pass_letters[e->pass], e->micro_batch, e->chunk);
}

/* GPipe: all forwards, then all backwards (Huang et al. 2019 §2.2). */
static void
build_gpipe (PlxScheduleOrder *o)
{
  for (guint s = 0; s < o->pp; s++)
    {
      for (guint64 i = 0; i < o->micro_batches; i++)
        push (o, s, PLX_PASS_FORWARD, 0, i);
      for (guint64 i = 0; i < o->micro_batches; i++)
        push (o, s, PLX_PASS_BACKWARD, 0, i);
    }
}

/* 1F1B: p - s - 1 warm-up forwards, then one forward and one backward in turn, then
 * the remaining backwards (Narayanan et al. 2021 §2.2.1). */
static void
build_1f1b (PlxScheduleOrder *o)
{
  for (guint s = 0; s < o->pp; s++)
    {
      guint64 m = o->micro_batches;
      guint64 warmup = MIN ((guint64) (o->pp - s - 1), m);

      for (guint64 i = 0; i < warmup; i++)
        push (o, s, PLX_PASS_FORWARD, 0, i);
      for (guint64 i = 0; i < m - warmup; i++)
        {
          push (o, s, PLX_PASS_FORWARD, 0, warmup + i);
          push (o, s, PLX_PASS_BACKWARD, 0, i);
        }
      for (guint64 i = m - warmup; i < m; i++)
        push (o, s, PLX_PASS_BACKWARD, 0, i);
    }
}

/* Megatron-LM's interleaved 1F1B (schedules.py, forward_backward_pipelining_with_
 * interleaving): the k-th forward of a stage runs chunk (k / p) mod v on
 * micro-batch (k / (p v)) p + k mod p; backwards walk the chunks in reverse. Stage s
 * warms up with 2 (p - s - 1) + (v - 1) p forwards. */
static void
build_interleaved (PlxScheduleOrder *o)
{
  guint p = o->pp, v = o->virtual_stages;
  guint64 total = o->micro_batches * v;

  for (guint s = 0; s < p; s++)
    {
      guint64 warmup = MIN ((guint64) (p - s - 1) * 2 + (guint64) (v - 1) * p, total);

#define FWD_CHUNK(k) ((guint) (((k) / p) % v))
#define BWD_CHUNK(k) (v - 1 - (guint) (((k) / p) % v))
#define MB(k) (((k) / ((guint64) p * v)) * p + (k) % p)
      for (guint64 k = 0; k < warmup; k++)
        push (o, s, PLX_PASS_FORWARD, FWD_CHUNK (k), MB (k));
      for (guint64 i = 0; i < total - warmup; i++)
        {
          guint64 kf = warmup + i;
          push (o, s, PLX_PASS_FORWARD, FWD_CHUNK (kf), MB (kf));
          push (o, s, PLX_PASS_BACKWARD, BWD_CHUNK (i), MB (i));
        }
      for (guint64 k = total - warmup; k < total; k++)
        push (o, s, PLX_PASS_BACKWARD, BWD_CHUNK (k), MB (k));
#undef FWD_CHUNK
#undef BWD_CHUNK
#undef MB
    }
}

/* Zero-bubble H1 (Qi et al. 2023 §3.1): 1F1B's order and memory limit (at most
 * p - s micro-batches past their forward and before their backward on stage s), with
 * the weight-gradient pass W split from B and run only when neither a B nor an F can,
 * so that it fills what would be bubbles. A W that waits keeps its layer inputs: at
 * most p - 1 more micro-batches than 1F1B's may wait for theirs (F is held back
 * otherwise), so the activation peak is bounded by the pipeline depth, not by the
 * number of micro-batches - without that bound a W could wait to the end of the step
 * and the peak grew with every micro-batch. The order is found by list-scheduling with
 * F = B = W = 1 time unit, the paper's setting, with priority B > F > W.
 * At step t a stage's choice reads only its own counters and passes done by step t,
 * so a stage that did nothing at t, beside neighbours that did nothing, does nothing
 * at t + 1: only the stages next to one that ran are looked at again. A step visits
 * the few stages a wave of passes has reached, not all p of them: the work grows with
 * the passes (3 m p), not with p times the steps (about 2 p + 3 m), which made a
 * 100,000-stage pipeline take minutes. The order in which a step visits its stages
 * does not matter (nothing done at t is seen before t + 1). */
static void
build_zero_bubble_h1 (PlxScheduleOrder *o)
{
  guint p = o->pp;
  guint64 m = o->micro_batches;
  g_autofree guint64 *f_next = g_new0 (guint64, p);
  g_autofree guint64 *b_next = g_new0 (guint64, p);
  g_autofree guint64 *w_next = g_new0 (guint64, p);
  /* Completion step of each pass, G_MAXUINT64 until done. */
  g_autofree guint64 *f_done = g_new (guint64, (gsize) p * m);
  g_autofree guint64 *b_done = g_new (guint64, (gsize) p * m);
  /* The stages to look at in this step and the next; a stage is in `later` once,
   * while its `queued` is the next step + 1. */
  g_autofree guint *now = g_new (guint, p);
  g_autofree guint *later = g_new (guint, p);
  g_autofree guint64 *queued = g_new0 (guint64, p);
  gsize n_now = p;
  guint finished = 0;

  for (gsize i = 0; i < (gsize) p * m; i++)
    f_done[i] = b_done[i] = G_MAXUINT64;
  for (guint s = 0; s < p; s++)
    now[s] = s;

  for (guint64 t = 0; finished < p && n_now > 0; t++)
    {
      gsize n_later = 0;

#define WAKE(stage)                                  \
  G_STMT_START {                                     \
    guint w_ = (stage);                              \
    if (queued[w_] != t + 2)                         \
      {                                              \
        queued[w_] = t + 2;                          \
        later[n_later++] = w_;                       \
      }                                              \
  } G_STMT_END

      for (gsize i = 0; i < n_now; i++)
        {
          guint s = now[i];
          guint64 f = f_next[s], b = b_next[s], w = w_next[s];
          gboolean b_ready = b < m && f_done[(gsize) s * m + b] <= t &&
                             (s == p - 1 || b_done[(gsize) (s + 1) * m + b] <= t);
          gboolean f_ready = f < m && f - b < p - s && f - w < 2 * p - s - 1 &&
                             (s == 0 || f_done[(gsize) (s - 1) * m + f] <= t);
          /* W of a B done before this step: b counts those (only s moves it). */
          gboolean w_ready = w < b && b_done[(gsize) s * m + w] <= t;

          if (b_ready)
            {
              push (o, s, PLX_PASS_BACKWARD, 0, b);
              b_done[(gsize) s * m + b] = t + 1;
              b_next[s]++;
            }
          else if (f_ready)
            {
              push (o, s, PLX_PASS_FORWARD, 0, f);
              f_done[(gsize) s * m + f] = t + 1;
              f_next[s]++;
            }
          else if (w_ready)
            {
              push (o, s, PLX_PASS_WEIGHT_GRAD, 0, w);
              w_next[s]++;
              if (w_next[s] == m)
                finished++;
            }
          else
            continue;
          /* What s ran may let it, or a neighbour, run at t + 1. */
          WAKE (s);
          if (s > 0)
            WAKE (s - 1);
          if (s + 1 < p)
            WAKE (s + 1);
        }
#undef WAKE
      memcpy (now, later, n_later * sizeof (guint));
      n_now = n_later;
    }
}

gboolean
plx_schedule_splits_backward (PlxSchedule schedule,
                              guint       pp)
{
  return schedule == PLX_SCHEDULE_ZERO_BUBBLE_H1 && pp > 1;
}

PlxScheduleOrder *
plx_schedule_order_new (PlxSchedule schedule,
                        guint       pp,
                        guint       virtual_stages,
                        guint64     micro_batches)
{
  PlxScheduleOrder *o;

  g_return_val_if_fail (pp > 0 && virtual_stages > 0 && micro_batches > 0, NULL);
  switch (schedule)
    {
    case PLX_SCHEDULE_GPIPE:
      return order_generated (PLX_SCHEDULE_GPIPE, pp, 1, micro_batches);
    case PLX_SCHEDULE_INTERLEAVED_1F1B:
      return order_generated (PLX_SCHEDULE_INTERLEAVED_1F1B, pp, virtual_stages, micro_batches);
    case PLX_SCHEDULE_ZERO_BUBBLE_H1:
      /* One stage has no bubble to fill: its backward stays whole (as 1F1B), so the
       * gradients reach the data-parallel reduction during all of it, not only
       * during a W pass run after it (plx_schedule_splits_backward). The split order
       * comes out of list scheduling, not a formula: it is stored. */
      if (!plx_schedule_splits_backward (schedule, pp))
        return order_generated (PLX_SCHEDULE_1F1B, pp, 1, micro_batches);
      o = order_new (pp, 1, micro_batches, TRUE);
      build_zero_bubble_h1 (o);
      return o;
    case PLX_SCHEDULE_1F1B:
    case PLX_SCHEDULE_FILE:
    default:
      return order_generated (PLX_SCHEDULE_1F1B, pp, 1, micro_batches);
    }
}

/* The stored arrays of a generated order, written by the loops above. */
static GArray **
build_stages (const PlxScheduleOrder *o)
{
  PlxScheduleOrder built = *o;

  built.stages = stages_new (o->pp, o->virtual_stages, o->micro_batches, o->split_backward);
  switch (o->schedule)
    {
    case PLX_SCHEDULE_GPIPE:
      build_gpipe (&built);
      break;
    case PLX_SCHEDULE_INTERLEAVED_1F1B:
      build_interleaved (&built);
      break;
    case PLX_SCHEDULE_1F1B:
    default:
      build_1f1b (&built);
      break;
    }
  return built.stages;
}

GArray **
plx_schedule_order_get_stages (const PlxScheduleOrder *o)
{
  /* Built once even when threads ask together; the order is otherwise read-only. */
  GArray ***stages = (GArray ***) &o->stages;

  if (g_once_init_enter (stages))
    g_once_init_leave (stages, build_stages (o));
  return *stages;
}

/* Forwards stage s runs before its first backward (the loops above): GPipe all of
 * them (Huang et al. 2019 §2.2); 1F1B p - s - 1 (Narayanan et al. 2021 §2.2.1);
 * interleaved 2 (p - s - 1) + (v - 1) p (§2.2.2, Megatron-LM's schedules.py). */
static guint64
stage_warmup (const PlxScheduleOrder *o, guint s)
{
  guint64 total = o->micro_batches * o->virtual_stages;

  switch (o->schedule)
    {
    case PLX_SCHEDULE_GPIPE:
      return total;
    case PLX_SCHEDULE_INTERLEAVED_1F1B:
      return MIN ((guint64) (o->pp - s - 1) * 2 + (guint64) (o->virtual_stages - 1) * o->pp, total);
    case PLX_SCHEDULE_1F1B:
    default:
      return MIN ((guint64) (o->pp - s - 1), total);
    }
}

gboolean
plx_schedule_order_is_computed (const PlxScheduleOrder *o)
{
  /* Arrays someone asked for (and may have changed, as a test does) are the order. */
  return o->generated && g_atomic_pointer_get ((GArray ***) &o->stages) == NULL;
}

void
plx_schedule_cursor_init (PlxScheduleCursor      *c,
                          const PlxScheduleOrder *o,
                          guint                   stage)
{
  memset (c, 0, sizeof *c);
  c->p = o->pp;
  c->v = o->virtual_stages;
  c->total = o->micro_batches * o->virtual_stages;
  if (!plx_schedule_order_is_computed (o))
    {
      c->stored = plx_schedule_order_get_stages (o)[stage];
      c->len = c->stored->len;
      return;
    }
  c->len = 2 * c->total;
  c->warmup = stage_warmup (o, stage);
}

/* ---- checks ------------------------------------------------------------------ */

typedef struct
{
  const PlxScheduleOrder *o;
  guint8 *done[PLX_N_PASSES]; /* [virtual stage * m + micro-batch] */
} Progress;

static gsize
slot (const PlxScheduleOrder *o, guint stage, guint chunk, guint64 mb)
{
  return ((gsize) chunk * o->pp + stage) * o->micro_batches + mb;
}

/* The pass this entry waits for on another stage (or the same), if not yet done. */
static gboolean
missing_dependency (const Progress *pr,
                    guint stage,
                    const PlxScheduleEntry *e,
                    PlxScheduleEntry *need,
                    guint *need_stage)
{
  const PlxScheduleOrder *o = pr->o;
  guint k = e->chunk * o->pp + stage, K = o->pp * o->virtual_stages;
  guint64 mb = e->micro_batch;

#define REQUIRE(pass_, kk)                                                          \
  G_STMT_START {                                                                    \
    guint kk_ = (kk);                                                               \
    if (!pr->done[pass_][(gsize) kk_ * o->micro_batches + mb])                      \
      {                                                                             \
        need->pass = pass_;                                                         \
        need->chunk = (guint16) (kk_ / o->pp);                                      \
        need->micro_batch = (guint32) mb;                                           \
        *need_stage = kk_ % o->pp;                                                  \
        return TRUE;                                                                \
      }                                                                             \
  } G_STMT_END

  switch (e->pass)
    {
    case PLX_PASS_FORWARD:
      if (k > 0)
        REQUIRE (PLX_PASS_FORWARD, k - 1);
      break;
    case PLX_PASS_BACKWARD:
      REQUIRE (PLX_PASS_FORWARD, k);
      if (k + 1 < K)
        REQUIRE (PLX_PASS_BACKWARD, k + 1);
      break;
    case PLX_PASS_WEIGHT_GRAD:
    default:
      REQUIRE (PLX_PASS_BACKWARD, k);
      break;
    }
#undef REQUIRE
  return FALSE;
}

gboolean
plx_schedule_order_check (const PlxScheduleOrder *o,
                          const char             *source,
                          GError                **error)
{
  gsize n = (gsize) o->pp * o->virtual_stages * o->micro_batches;
  Progress pr = { o, { NULL } };
  g_autofree guint *next = g_new0 (guint, o->pp);
  gboolean ok = FALSE;
  g_autofree guint *todo = g_new (guint, o->pp);   /* stages to run, each once at most */
  g_autofree gboolean *queued = g_new0 (gboolean, o->pp);
  gsize n_todo = 0;
  guint passes = o->split_backward ? 3 : 2;
  g_autofree guint8 *seen = g_new0 (guint8, n * PLX_N_PASSES);

  /* Each pass of each (micro-batch, chunk) exactly once on its stage. */
  GArray **stages = plx_schedule_order_get_stages (o);

  for (guint s = 0; s < o->pp; s++)
    {
      GArray *a = stages[s];

      for (guint i = 0; i < a->len; i++)
        {
          const PlxScheduleEntry *e = &g_array_index (a, PlxScheduleEntry, i);
          g_autofree char *name = plx_schedule_entry_to_string (e);

          if (e->pass >= passes)
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                           "%.200s: stage %u, entry %u (%s): W entries need every B split off (a W for each B)",
                           source, s, i, name);
              return FALSE;
            }
          if (e->micro_batch >= o->micro_batches || e->chunk >= o->virtual_stages)
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                           "%.200s: stage %u, entry %u (%s): there are %" G_GUINT64_FORMAT " micro-batches and %u chunks per stage",
                           source, s, i, name, o->micro_batches, o->virtual_stages);
              return FALSE;
            }
          if (seen[slot (o, s, e->chunk, e->micro_batch) * PLX_N_PASSES + e->pass]++)
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                           "%.200s: stage %u, entry %u (%s): repeats a pass the stage already ran", source, s, i, name);
              return FALSE;
            }
        }
      for (guint c = 0; c < o->virtual_stages; c++)
        for (guint64 mb = 0; mb < o->micro_batches; mb++)
          for (guint p = 0; p < passes; p++)
            if (!seen[slot (o, s, c, mb) * PLX_N_PASSES + p])
              {
                PlxScheduleEntry e = { (guint8) p, (guint16) c, (guint32) mb };
                g_autofree char *name = plx_schedule_entry_to_string (&e);
                g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                             "%.200s: stage %u: skips %s (micro-batch %" G_GUINT64_FORMAT ", chunk %u)",
                             source, s, name, mb, c);
                return FALSE;
              }
    }

  /* Run it in dependency order; if every stage is stuck before its end, it deadlocks.
   * A stage stuck on a pass of its neighbour is looked at again only when that
   * neighbour has run something: sweeping every stage until none moves took as many
   * sweeps as stages (a backward walks back one a sweep). Where each stage stops does
   * not depend on the order stages are run in. */
  for (guint p = 0; p < PLX_N_PASSES; p++)
    pr.done[p] = g_new0 (guint8, n);
  for (guint s = o->pp; s-- > 0;)
    {
      todo[n_todo++] = s;
      queued[s] = TRUE;
    }
  while (n_todo > 0)
    {
      guint s = todo[--n_todo], wake[2] = { (s + 1) % o->pp, (s + o->pp - 1) % o->pp };
      gboolean ran = FALSE;

      queued[s] = FALSE;
      while (next[s] < stages[s]->len)
        {
          const PlxScheduleEntry *e = &g_array_index (stages[s], PlxScheduleEntry, next[s]);
          PlxScheduleEntry need;
          guint need_stage;

          if (missing_dependency (&pr, s, e, &need, &need_stage))
            break;
          pr.done[e->pass][slot (o, s, e->chunk, e->micro_batch)] = 1;
          next[s]++;
          ran = TRUE;
        }
      for (guint j = 0; ran && j < 2; j++)
        if (!queued[wake[j]])
          {
            queued[wake[j]] = TRUE;
            todo[n_todo++] = wake[j];
          }
    }
  ok = TRUE;
  for (guint s = 0; s < o->pp && ok; s++)
    if (next[s] < stages[s]->len)
      {
        const PlxScheduleEntry *e = &g_array_index (stages[s], PlxScheduleEntry, next[s]);
        /* Initialised: GCC 12 at -O3 cannot see that a stalled entry always has a
         * missing dependency (the loop above stopped on it). */
        PlxScheduleEntry need = { 0 };
        guint need_stage = 0;
        g_autofree char *name = plx_schedule_entry_to_string (e);
        g_autofree char *need_name = NULL;

        missing_dependency (&pr, s, e, &need, &need_stage);
        need_name = plx_schedule_entry_to_string (&need);
        g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                     "%.200s: stage %u, entry %u (%s) deadlocks: it waits for %s on stage %u, which never runs before it",
                     source, s, next[s], name, need_name, need_stage);
        ok = FALSE;
      }
  for (guint p = 0; p < PLX_N_PASSES; p++)
    g_free (pr.done[p]);
  return ok;
}

/* ---- schedule files ---------------------------------------------------------- */

static gboolean
parse_entry (const char       *text,
             PlxScheduleEntry *e)
{
  const char *letters = "FBW";
  const char *p = strchr (letters, text[0]);
  char *end = NULL;
  guint64 mb, chunk = 0;

  if (text[0] == '\0' || p == NULL || !g_ascii_isdigit (text[1]))
    return FALSE;
  mb = g_ascii_strtoull (text + 1, &end, 10);
  if (*end == '.')
    {
      if (!g_ascii_isdigit (end[1]))
        return FALSE;
      chunk = g_ascii_strtoull (end + 1, &end, 10);
    }
  if (*end != '\0' || mb > G_MAXUINT32 || chunk > G_MAXUINT16)
    return FALSE;
  e->pass = (guint8) (p - letters);
  e->micro_batch = (guint32) mb;
  e->chunk = (guint16) chunk;
  return TRUE;
}

PlxScheduleOrder *
plx_schedule_order_load (const char *path,
                         guint       pp,
                         guint       virtual_stages,
                         guint64     micro_batches,
                         GError    **error)
{
  g_autoptr (JsonNode) root = plx_json_parse_file (path, error);
  g_autoptr (PlxScheduleOrder) o = NULL;
  JsonNode *stages;
  JsonArray *array;
  gboolean split = FALSE;

  if (root == NULL)
    return NULL;
  stages = JSON_NODE_HOLDS_OBJECT (root) ? json_object_get_member (json_node_get_object (root), "stages") : NULL;
  if (stages == NULL || !JSON_NODE_HOLDS_ARRAY (stages))
    {
      g_set_error (error, PLX_ERROR, stages ? PLX_ERROR_PARSE : PLX_ERROR_MISSING_KEY,
                   "%.200s: stages: %s", path,
                   stages ? "is not a list of per-stage lists" : "required key is missing");
      return NULL;
    }
  array = json_node_get_array (stages);
  if (json_array_get_length (array) != pp)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%.200s: stages: %u lists, but the strategy has pp=%u stages", path,
                   json_array_get_length (array), pp);
      return NULL;
    }

  /* One pass to check the lists and see whether W entries are present (B then means
   * input gradients). */
  for (guint s = 0; s < pp; s++)
    {
      JsonNode *list = json_array_get_element (array, s);
      if (!JSON_NODE_HOLDS_ARRAY (list))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%.200s: stages[%u]: is not a list of entries", path, s);
          return NULL;
        }
      for (guint i = 0; i < json_array_get_length (json_node_get_array (list)) && !split; i++)
        {
          JsonNode *item = json_array_get_element (json_node_get_array (list), i);
          if (JSON_NODE_HOLDS_VALUE (item) && json_node_get_value_type (item) == G_TYPE_STRING &&
              json_node_get_string (item)[0] == 'W')
            split = TRUE;
        }
    }

  o = order_new (pp, virtual_stages, micro_batches, split);
  for (guint s = 0; s < pp; s++)
    {
      JsonArray *list = json_node_get_array (json_array_get_element (array, s));

      for (guint i = 0; i < json_array_get_length (list); i++)
        {
          JsonNode *item = json_array_get_element (list, i);
          PlxScheduleEntry e;

          if (!JSON_NODE_HOLDS_VALUE (item) || json_node_get_value_type (item) != G_TYPE_STRING ||
              !parse_entry (json_node_get_string (item), &e))
            {
              g_autofree char *value = plx_json_value_to_string (item);
              g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                           "%.200s: stages[%u][%u]: %s is not an entry like \"F3\", \"B3\", \"W3\" or \"F3.1\" (micro-batch 3, chunk 1)",
                           path, s, i, value);
              return NULL;
            }
          g_array_append_val (o->stages[s], e);
        }
    }

  if (!plx_schedule_order_check (o, path, error))
    return NULL;
  return g_steal_pointer (&o);
}
