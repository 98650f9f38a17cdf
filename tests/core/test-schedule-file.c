/* test-schedule-file.c: schedule files (strategy.schedule given as a path) and the
 * checks every schedule order must pass (plx_schedule_order_load and
 * plx_schedule_order_check).
 *
 * A schedule file is {"stages": [[entries of stage 0], [entries of stage 1], ...]}
 * with entries "F3" (forward of micro-batch 3, chunk 0), "B3", "W3", "F3.1" (chunk 1).
 * Dependencies (src/core/scenario/plx-schedule.c): chunk c of stage s is virtual stage
 * k = c * pp + s; F of k needs F of k - 1; B of k needs F of k and B of k + 1; W of
 * k needs B of k. */
#include <string.h>

#include <glib/gstdio.h>

#include "parallax/parallax.h"
#include "test-home.h"
#include "test-files.h"

/* ---- fixture: a fresh directory per test ------------------------------------------ */

typedef struct
{
  char *dir;
} Fixture;

static void
fixture_setup (Fixture      *fx,
               gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  (void) data;
  fx->dir = g_dir_make_tmp ("plx-test-sched-XXXXXX", &error);
  g_assert_no_error (error);
  g_assert_nonnull (fx->dir);
}

static void
fixture_teardown (Fixture      *fx,
                  gconstpointer data)
{
  (void) data;
  test_rm_rf (fx->dir);
  g_free (fx->dir);
}

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

/* Writes `json` as sched.json and loads it; `path_out` gets the file's path. */
static PlxScheduleOrder *
load (const Fixture *fx,
      const char    *json,
      guint          pp,
      guint          v,
      guint64        m,
      char         **path_out,
      GError       **error)
{
  g_autofree char *path = test_write_file (fx->dir, "sched.json", json, -1);
  PlxScheduleOrder *o = plx_schedule_order_load (path, pp, v, m, error);

  if (path_out != NULL)
    *path_out = g_steal_pointer (&path);
  return o;
}

/* Asserts `error` is PLX_ERROR/`code`, one line, shorter than 400 bytes, and holds
 * each needle. */
static void
check_error (const GError      *error,
             PlxError       code,
             const char *const *needles)
{
  g_assert_error (error, PLX_ERROR, (gint) code);
  if (error == NULL)
    return;
  g_test_message ("message: %.500s", error->message);
  g_assert_null (strchr (error->message, '\n'));
  g_assert_cmpuint (strlen (error->message), <, 400);
  for (guint i = 0; needles[i] != NULL; i++)
    {
      if (strstr (error->message, needles[i]) == NULL)
        g_test_message ("\"%s\" not found in the message", needles[i]);
      g_assert_nonnull (strstr (error->message, needles[i]));
    }
}

#define CHECK_ERROR(error, code, ...) \
  G_STMT_START { \
    const char *const needles_[] = { __VA_ARGS__, NULL }; \
    check_error (error, code, needles_); \
  } G_STMT_END

/* Loading `json` fails with `code`; the message names the file and each needle. */
#define LOAD_ERROR(fx, json, pp, v, m, code, ...) \
  G_STMT_START { \
    g_autoptr (GError) error_ = NULL; \
    g_autofree char *path_ = NULL; \
    g_autoptr (PlxScheduleOrder) o_ = load (fx, json, pp, v, m, &path_, &error_); \
    g_assert_null (o_); \
    CHECK_ERROR (error_, code, path_, __VA_ARGS__); \
  } G_STMT_END

static void
assert_entry (const PlxScheduleOrder *o,
              guint                   stage,
              guint                   i,
              PlxPass                 pass,
              guint                   chunk,
              guint                   mb)
{
  const PlxScheduleEntry *e;

  g_assert_cmpuint (stage, <, o->pp);
  if (stage >= o->pp)
    return;
  g_assert_cmpuint (i, <, plx_schedule_order_get_stages (o)[stage]->len);
  if (i >= plx_schedule_order_get_stages (o)[stage]->len)
    return;
  e = &g_array_index (plx_schedule_order_get_stages (o)[stage], PlxScheduleEntry, i);
  g_assert_cmpuint (e->pass, ==, pass);
  g_assert_cmpuint (e->chunk, ==, chunk);
  g_assert_cmpuint (e->micro_batch, ==, mb);
}

static void
assert_orders_equal (const PlxScheduleOrder *a,
                     const PlxScheduleOrder *b)
{
  g_assert_cmpuint (a->pp, ==, b->pp);
  g_assert_cmpuint (a->virtual_stages, ==, b->virtual_stages);
  g_assert_cmpuint (a->micro_batches, ==, b->micro_batches);
  g_assert_cmpint (a->split_backward, ==, b->split_backward);
  for (guint s = 0; s < a->pp; s++)
    {
      g_assert_cmpuint (plx_schedule_order_get_stages (a)[s]->len, ==, plx_schedule_order_get_stages (b)[s]->len);
      for (guint i = 0; i < plx_schedule_order_get_stages (a)[s]->len && i < plx_schedule_order_get_stages (b)[s]->len; i++)
        {
          const PlxScheduleEntry *x = &g_array_index (plx_schedule_order_get_stages (a)[s], PlxScheduleEntry, i);
          const PlxScheduleEntry *y = &g_array_index (plx_schedule_order_get_stages (b)[s], PlxScheduleEntry, i);
          g_assert_cmpuint (x->pass, ==, y->pass);
          g_assert_cmpuint (x->chunk, ==, y->chunk);
          g_assert_cmpuint (x->micro_batch, ==, y->micro_batch);
        }
    }
}

/* The schedule file for an order, with plx_schedule_entry_to_string. */
static char *
order_to_json (const PlxScheduleOrder *o)
{
  GString *out = g_string_new ("{\"stages\": [");

  for (guint s = 0; s < o->pp; s++)
    {
      g_string_append (out, s ? ", [" : "[");
      for (guint i = 0; i < plx_schedule_order_get_stages (o)[s]->len; i++)
        {
          g_autofree char *name = plx_schedule_entry_to_string (&g_array_index (plx_schedule_order_get_stages (o)[s], PlxScheduleEntry, i));
          g_string_append_printf (out, "%s\"%s\"", i ? ", " : "", name);
        }
      g_string_append (out, "]");
    }
  g_string_append (out, "]}");
  return g_string_free (out, FALSE);
}

/* ---- valid files ---------------------------------------------------------------- */

/* 1F1B for pp 2, m 2 (Narayanan et al. 2021 §2.2.1): stage 0 warms up with one
 * forward, stage 1 alternates. */
#define HAND_1F1B_PP2_M2 "{\"stages\": [[\"F0\", \"F1\", \"B0\", \"B1\"], [\"F0\", \"B0\", \"F1\", \"B1\"]]}"

static void
test_valid_1f1b (Fixture      *fx,
                 gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScheduleOrder) o = load (fx, HAND_1F1B_PP2_M2, 2, 1, 2, NULL, &error);
  g_autoptr (PlxScheduleOrder) builtin = plx_schedule_order_new (PLX_SCHEDULE_1F1B, 2, 1, 2);

  (void) data;
  g_assert_no_error (error);
  g_assert_nonnull (o);
  if (o == NULL)
    return;
  g_assert_cmpuint (o->pp, ==, 2);
  g_assert_cmpuint (o->virtual_stages, ==, 1);
  g_assert_cmpuint (o->micro_batches, ==, 2);
  g_assert_false (o->split_backward);
  g_assert_cmpuint (plx_schedule_order_get_stages (o)[0]->len, ==, 4);
  g_assert_cmpuint (plx_schedule_order_get_stages (o)[1]->len, ==, 4);
  assert_entry (o, 0, 0, PLX_PASS_FORWARD, 0, 0);
  assert_entry (o, 0, 1, PLX_PASS_FORWARD, 0, 1);
  assert_entry (o, 0, 2, PLX_PASS_BACKWARD, 0, 0);
  assert_entry (o, 0, 3, PLX_PASS_BACKWARD, 0, 1);
  assert_entry (o, 1, 0, PLX_PASS_FORWARD, 0, 0);
  assert_entry (o, 1, 1, PLX_PASS_BACKWARD, 0, 0);
  assert_entry (o, 1, 2, PLX_PASS_FORWARD, 0, 1);
  assert_entry (o, 1, 3, PLX_PASS_BACKWARD, 0, 1);
  assert_orders_equal (o, builtin);
}

static void
test_valid_split (Fixture      *fx,
                  gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScheduleOrder) o =
    load (fx,
          "{\"stages\": [[\"F0\", \"F1\", \"B0\", \"W0\", \"B1\", \"W1\"],"
          "              [\"F0\", \"B0\", \"F1\", \"B1\", \"W0\", \"W1\"]]}",
          2, 1, 2, NULL, &error);

  (void) data;
  g_assert_no_error (error);
  g_assert_nonnull (o);
  if (o == NULL)
    return;
  g_assert_true (o->split_backward);
  g_assert_cmpuint (plx_schedule_order_get_stages (o)[0]->len, ==, 6);
  g_assert_cmpuint (plx_schedule_order_get_stages (o)[1]->len, ==, 6);
  assert_entry (o, 0, 3, PLX_PASS_WEIGHT_GRAD, 0, 0);
  assert_entry (o, 0, 5, PLX_PASS_WEIGHT_GRAD, 0, 1);
  assert_entry (o, 1, 3, PLX_PASS_BACKWARD, 0, 1);
  assert_entry (o, 1, 4, PLX_PASS_WEIGHT_GRAD, 0, 0);
  assert_entry (o, 1, 5, PLX_PASS_WEIGHT_GRAD, 0, 1);
}

/* Backwards need not run in micro-batch order: stage 0 runs B1 before B0, and stage 1
 * runs B1 early enough for it. */
static void
test_valid_backward_out_of_order (Fixture      *fx,
                                  gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScheduleOrder) o =
    load (fx, "{\"stages\": [[\"F0\", \"F1\", \"B1\", \"B0\"], [\"F0\", \"B0\", \"F1\", \"B1\"]]}", 2, 1, 2,
          NULL, &error);

  (void) data;
  g_assert_no_error (error);
  g_assert_nonnull (o);
  if (o != NULL)
    {
      assert_entry (o, 0, 2, PLX_PASS_BACKWARD, 0, 1);
      assert_entry (o, 0, 3, PLX_PASS_BACKWARD, 0, 0);
    }
}

/* Two chunks per stage (pp 2, v 2, m 2): virtual stages 0, 1 are chunk 0 of stages 0,
 * 1; virtual stages 2, 3 are chunk 1 of stages 0, 1. */
static void
test_valid_chunks (Fixture      *fx,
                   gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScheduleOrder) o =
    load (fx,
          "{\"stages\": [[\"F0\", \"F1\", \"F0.1\", \"F1.1\", \"B0.1\", \"B1.1\", \"B0\", \"B1\"],"
          "              [\"F0\", \"F1\", \"F0.1\", \"B0.1\", \"F1.1\", \"B1.1\", \"B0\", \"B1\"]]}",
          2, 2, 2, NULL, &error);

  (void) data;
  g_assert_no_error (error);
  g_assert_nonnull (o);
  if (o == NULL)
    return;
  g_assert_cmpuint (o->virtual_stages, ==, 2);
  g_assert_false (o->split_backward);
  assert_entry (o, 0, 2, PLX_PASS_FORWARD, 1, 0);
  assert_entry (o, 0, 5, PLX_PASS_BACKWARD, 1, 1);
  assert_entry (o, 1, 3, PLX_PASS_BACKWARD, 1, 0);
  assert_entry (o, 1, 7, PLX_PASS_BACKWARD, 0, 1);
}

/* Every built-in order, written out as a file, loads back entry for entry. */
typedef struct
{
  PlxSchedule schedule;
  guint       pp;
  guint       v;
  guint64     m;
} RoundTrip;

static const RoundTrip round_trips[] = {
  { PLX_SCHEDULE_GPIPE, 4, 1, 6 },
  { PLX_SCHEDULE_1F1B, 4, 1, 6 },
  { PLX_SCHEDULE_1F1B, 4, 1, 2 },      /* fewer micro-batches than stages */
  { PLX_SCHEDULE_INTERLEAVED_1F1B, 4, 3, 8 },
  { PLX_SCHEDULE_ZERO_BUBBLE_H1, 4, 1, 8 },
};

static const char *const round_trip_names[] = {
  "gpipe", "1f1b", "1f1b-short", "interleaved-1f1b", "zero-bubble-h1",
};

G_STATIC_ASSERT (G_N_ELEMENTS (round_trips) == G_N_ELEMENTS (round_trip_names));

static void
test_round_trip (Fixture      *fx,
                 gconstpointer data)
{
  const RoundTrip *rt = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScheduleOrder) builtin = plx_schedule_order_new (rt->schedule, rt->pp, rt->v, rt->m);
  g_autofree char *json = order_to_json (builtin);
  g_autoptr (PlxScheduleOrder) o = load (fx, json, rt->pp, rt->v, rt->m, NULL, &error);

  g_assert_true (plx_schedule_order_check (builtin, "built-in", &error));
  g_assert_no_error (error);
  g_assert_nonnull (o);
  if (o == NULL)
    return;
  g_assert_cmpint (o->split_backward, ==, rt->schedule == PLX_SCHEDULE_ZERO_BUBBLE_H1);
  assert_orders_equal (o, builtin);
}

/* ---- errors: the file ------------------------------------------------------------ */

static void
test_error_missing_file (Fixture      *fx,
                         gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (fx->dir, "absent.json", NULL);
  g_autoptr (PlxScheduleOrder) o = plx_schedule_order_load (path, 2, 1, 2, &error);

  (void) data;
  g_assert_null (o);
  CHECK_ERROR (error, PLX_ERROR_NOT_FOUND, path);
}

static void
test_error_not_json (Fixture      *fx,
                     gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", ", 2, 1, 2, PLX_ERROR_PARSE, "sched.json");
}

static void
test_error_missing_stages (Fixture      *fx,
                           gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stage\": [[\"F0\", \"B0\"], [\"F0\", \"B0\"]]}", 2, 1, 1, PLX_ERROR_MISSING_KEY, "stages");
}

static void
test_error_stages_not_list (Fixture      *fx,
                            gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stages\": {\"0\": [\"F0\", \"B0\"]}}", 1, 1, 1, PLX_ERROR_PARSE, "stages");
}

static void
test_error_stage_not_list (Fixture      *fx,
                           gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"B0\"], \"F0 B0\"]}", 2, 1, 1, PLX_ERROR_PARSE, "stages[1]");
}

/* The same, when an earlier stage already has W entries. Run in a child process: a
 * loader that reads the string as a list trips a critical (fatal under the test
 * environment's G_DEBUG), which must fail this test alone. */
static void
test_error_stage_not_list_split (Fixture      *fx,
                                 gconstpointer data)
{
  (void) data;
  if (g_test_subprocess ())
    {
      LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"B0\", \"W0\"], \"F0 B0 W0\"]}", 2, 1, 1, PLX_ERROR_PARSE, "stages[1]");
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

static void
test_error_stage_count (Fixture      *fx,
                        gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"B0\"], [\"F0\", \"B0\"], [\"F0\", \"B0\"]]}", 2, 1, 1,
              PLX_ERROR_INCONSISTENT, "3 lists", "pp=2");
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"B0\"]]}", 2, 1, 1, PLX_ERROR_INCONSISTENT, "1 lists", "pp=2");
}

/* ---- errors: entries that are not entries ------------------------------------------ */

static void
test_error_entry_letter (Fixture      *fx,
                         gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"F1\", \"B0\", \"B1\"], [\"F0\", \"X3\", \"F1\", \"B1\"]]}", 2, 1, 2,
              PLX_ERROR_PARSE, "stages[1][1]", "X3");
}

static void
test_error_entry_no_number (Fixture      *fx,
                            gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"F\", \"B0\", \"B1\"], [\"F0\", \"B0\", \"F1\", \"B1\"]]}", 2, 1, 2,
              PLX_ERROR_PARSE, "stages[0][1]", "\"F\"");
}

static void
test_error_entry_bad_chunk (Fixture      *fx,
                            gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"F1\", \"B0\", \"B1\"], [\"F0\", \"B0\", \"F1\", \"B1\", \"F3.x\"]]}", 2, 1, 2,
              PLX_ERROR_PARSE, "stages[1][4]", "F3.x");
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"F1\", \"B0\", \"B1.\"], [\"F0\", \"B0\", \"F1\", \"B1\"]]}", 2, 1, 2,
              PLX_ERROR_PARSE, "stages[0][3]", "B1.");
}

static void
test_error_entry_number (Fixture      *fx,
                         gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"F1\", 3, \"B1\"], [\"F0\", \"B0\", \"F1\", \"B1\"]]}", 2, 1, 2,
              PLX_ERROR_PARSE, "stages[0][2]", "3 is not an entry");
}

static void
test_error_entry_trailing (Fixture      *fx,
                           gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"F1\", \"B0 \", \"B1\"], [\"F0\", \"B0\", \"F1\", \"B1\"]]}", 2, 1, 2,
              PLX_ERROR_PARSE, "stages[0][2]");
}

/* A micro-batch beyond 32 bits is not silently truncated to F0. */
static void
test_error_entry_overflow (Fixture      *fx,
                           gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"F4294967296\", \"B0\", \"B1\"], [\"F0\", \"B0\", \"F1\", \"B1\"]]}", 2, 1, 2,
              PLX_ERROR_PARSE, "stages[0][1]", "F4294967296");
}

/* ---- errors: entries out of range ---------------------------------------------------- */

static void
test_error_micro_batch_range (Fixture      *fx,
                              gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"F7\", \"B0\", \"B1\"], [\"F0\", \"B0\", \"F1\", \"B1\"]]}", 2, 1, 2,
              PLX_ERROR_INVALID_VALUE, "stage 0", "entry 1", "F7", "2 micro-batches");
}

static void
test_error_chunk_range (Fixture      *fx,
                        gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"F1\", \"B0\", \"B1\"], [\"F0\", \"B0\", \"F0.3\", \"F1\", \"B1\"]]}", 2, 1, 2,
              PLX_ERROR_INVALID_VALUE, "stage 1", "entry 2", "F0.3", "1 chunks");
}

/* ---- errors: orders that do not run every pass once ------------------------------------- */

static void
test_error_repeat (Fixture      *fx,
                   gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"F1\", \"F0\", \"B0\", \"B1\"], [\"F0\", \"B0\", \"F1\", \"B1\"]]}", 2, 1, 2,
              PLX_ERROR_INCONSISTENT, "stage 0", "entry 2", "(F0)", "repeats");
}

static void
test_error_skip (Fixture      *fx,
                 gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"F1\", \"B0\", \"B1\"], [\"F0\", \"B0\", \"F1\"]]}", 2, 1, 2,
              PLX_ERROR_INCONSISTENT, "stage 1", "skips B1");
}

/* A W entry makes the schedule split: every B then needs its W. */
static void
test_error_w_missing (Fixture      *fx,
                      gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx,
              "{\"stages\": [[\"F0\", \"F1\", \"B0\", \"W0\", \"B1\", \"W1\"], [\"F0\", \"B0\", \"F1\", \"B1\", \"W1\"]]}",
              2, 1, 2, PLX_ERROR_INCONSISTENT, "stage 1", "skips W0");
}

/* A hand-built order that is not split has no room for W entries. */
static void
test_error_w_not_split (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScheduleOrder) o = plx_schedule_order_new (PLX_SCHEDULE_1F1B, 2, 1, 2);
  PlxScheduleEntry w = { PLX_PASS_WEIGHT_GRAD, 0, 1 };

  g_assert_true (plx_schedule_order_check (o, "hand-built", &error));
  g_assert_no_error (error);
  g_array_append_val (plx_schedule_order_get_stages (o)[1], w);
  g_assert_false (plx_schedule_order_check (o, "hand-built", &error));
  CHECK_ERROR (error, PLX_ERROR_INVALID_VALUE, "hand-built", "stage 1", "entry 4", "W1");
}

/* ---- errors: deadlocks --------------------------------------------------------------- */

/* Stage 0 starts with B0, which needs its own F0, which comes later. */
static void
test_error_deadlock (Fixture      *fx,
                     gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx, "{\"stages\": [[\"B0\", \"F0\", \"F1\", \"B1\"], [\"F0\", \"B0\", \"F1\", \"B1\"]]}", 2, 1, 2,
              PLX_ERROR_INCONSISTENT, "stage 0, entry 0 (B0) deadlocks", "waits for F0 on stage 0");
}

/* W before its B on the same stage. */
static void
test_error_deadlock_w_before_b (Fixture      *fx,
                                gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx,
              "{\"stages\": [[\"F0\", \"F1\", \"W0\", \"B0\", \"B1\", \"W1\"], [\"F0\", \"B0\", \"W0\", \"F1\", \"B1\", \"W1\"]]}",
              2, 1, 2, PLX_ERROR_INCONSISTENT, "stage 0, entry 2 (W0) deadlocks", "waits for B0 on stage 0");
}

/* Each stage's list is fine on its own; together they wait on each other. Stage 0 runs
 * F0, then B0 needs stage 1's B0; stage 1 first wants F1, which stage 0 only runs
 * after B0. */
static void
test_error_deadlock_cross_stage (Fixture      *fx,
                                 gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScheduleOrder) ok = NULL;

  (void) data;
  LOAD_ERROR (fx, "{\"stages\": [[\"F0\", \"B0\", \"F1\", \"B1\"], [\"F1\", \"F0\", \"B0\", \"B1\"]]}", 2, 1, 2,
              PLX_ERROR_INCONSISTENT, "stage 0, entry 1 (B0) deadlocks", "waits for B0 on stage 1");
  /* The same stage 0 with stage 1 in micro-batch order runs. */
  ok = load (fx, "{\"stages\": [[\"F0\", \"B0\", \"F1\", \"B1\"], [\"F0\", \"B0\", \"F1\", \"B1\"]]}", 2, 1, 2, NULL,
             &error);
  g_assert_no_error (error);
  g_assert_nonnull (ok);
}

/* Across chunks: stage 1's chunk 1 (virtual stage 3) is the last; stage 0 wants its
 * chunk 1 backward (needs virtual stage 3's B0) before stage 1 runs chunk 1 at all,
 * and stage 1 wants chunk 0's backward (needs virtual stage 2's B0) first. */
static void
test_error_deadlock_chunks (Fixture      *fx,
                            gconstpointer data)
{
  (void) data;
  LOAD_ERROR (fx,
              "{\"stages\": [[\"F0\", \"F0.1\", \"B0.1\", \"B0\"], [\"F0\", \"B0\", \"F0.1\", \"B0.1\"]]}",
              2, 2, 1, PLX_ERROR_INCONSISTENT, "stage 0, entry 2 (B0.1) deadlocks", "waits for B0.1 on stage 1");
}

/* A path near PATH_MAX: the message stays short, as every loader's does. */
static void
test_error_long_path (Fixture      *fx,
                      gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) dir = g_string_new (fx->dir);
  g_autofree char *component = g_strnfill (200, 'd');
  g_autofree char *path = NULL;
  g_autoptr (PlxScheduleOrder) o = NULL;

  (void) data;
  for (guint i = 0; i < 5; i++)
    g_string_append_printf (dir, "/%s", component);
  g_assert_cmpint (g_mkdir_with_parents (dir->str, 0700), ==, 0);
  path = g_build_filename (dir->str, "sched.json", NULL);
  g_file_set_contents (path, "{\"stages\": [[\"B0\", \"F0\"]]}", -1, &error);
  g_assert_no_error (error);
  o = plx_schedule_order_load (path, 1, 1, 1, &error);
  g_assert_null (o);
  CHECK_ERROR (error, PLX_ERROR_INCONSISTENT, fx->dir, "deadlocks");
}

/* ---- the built-in orders pass the checks ------------------------------------------------ */

static void
test_check_builtins (void)
{
  static const PlxSchedule schedules[] = {
    PLX_SCHEDULE_GPIPE, PLX_SCHEDULE_1F1B, PLX_SCHEDULE_INTERLEAVED_1F1B, PLX_SCHEDULE_ZERO_BUBBLE_H1,
  };

  for (guint i = 0; i < G_N_ELEMENTS (schedules); i++)
    for (guint pp = 2; pp <= 8; pp *= 2)
      for (guint64 m = pp; m <= 4 * pp; m += pp)
        {
          g_autoptr (GError) error = NULL;
          guint v = schedules[i] == PLX_SCHEDULE_INTERLEAVED_1F1B ? 2 : 1;
          g_autoptr (PlxScheduleOrder) o = plx_schedule_order_new (schedules[i], pp, v, m);

          g_assert_true (plx_schedule_order_check (o, "built-in", &error));
          g_assert_no_error (error);
        }
}

/* ---- end to end: a scenario naming a schedule file ---------------------------------- */

/* gpt2 (12 layers) on one DGX A100 node: pp 2, dp 4, m = 8 / (4 * 1) = 2. */
#define SCENARIO_FMT \
  "{\"model\": {\"preset\": \"gpt2\"}, \"cluster\": {\"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1}," \
  " \"strategy\": {\"pp\": 2, \"dp\": 4, \"global_batch_size\": 8, \"micro_batch_size\": 1," \
  " \"seq_length\": 1024, \"schedule\": \"%s\"}}"

static PlxScenario *
scenario_with_schedule (const Fixture *fx,
                        const char    *schedule)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *text = g_strdup_printf (SCENARIO_FMT, schedule);
  g_autofree char *path = test_write_file (fx->dir, "scenario.json", text, -1);
  PlxScenario *sc = plx_scenario_new_from_file (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (sc);
  return sc;
}

static PlxReport
run_event (const PlxScenario *sc)
{
  g_autoptr (GError) error = NULL;
  PlxReport r = { 0 };

  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &r, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  return r;
}

static void
assert_same_report (const PlxReport *a,
                    const PlxReport *b)
{
  g_assert_cmpfloat (a->step_time_s, >, 0.0);
  g_assert_cmpfloat (a->step_time_s, ==, b->step_time_s);
  g_assert_cmpfloat (a->bubble_fraction, ==, b->bubble_fraction);
  g_assert_cmpuint (a->peak_memory_bytes, ==, b->peak_memory_bytes);
  for (guint i = 0; i < PLX_N_TIME; i++)
    g_assert_cmpfloat (a->time_s[i], ==, b->time_s[i]);
}

static void
test_scenario_1f1b (Fixture      *fx,
                    gconstpointer data)
{
  g_autofree char *sched = test_write_file (fx->dir, "sched.json", HAND_1F1B_PP2_M2, -1);
  g_autoptr (PlxScenario) file = scenario_with_schedule (fx, "sched.json");
  g_autoptr (PlxScenario) builtin = scenario_with_schedule (fx, "1f1b");
  PlxReport a, b;

  (void) data;
  if (file == NULL || builtin == NULL)
    return;
  /* Relative to the scenario's folder, not the working directory. */
  g_assert_cmpint (file->strategy->schedule, ==, PLX_SCHEDULE_FILE);
  g_assert_cmpstr (file->strategy->schedule_path, ==, sched);
  g_assert_cmpuint (plx_strategy_get_n_micro_batches (file->strategy), ==, 2);
  a = run_event (file);
  b = run_event (builtin);
  assert_same_report (&a, &b);
}

/* A file holding ZB-H1's order splits the weight gradients as the built-in does. */
static void
test_scenario_zero_bubble (Fixture      *fx,
                           gconstpointer data)
{
  g_autoptr (PlxScheduleOrder) zb = plx_schedule_order_new (PLX_SCHEDULE_ZERO_BUBBLE_H1, 2, 1, 2);
  g_autofree char *json = order_to_json (zb);
  g_autofree char *sched = test_write_file (fx->dir, "zb.json", json, -1);
  g_autoptr (PlxScenario) file = scenario_with_schedule (fx, "zb.json");
  g_autoptr (PlxScenario) builtin = scenario_with_schedule (fx, "zero-bubble-h1");
  g_autoptr (PlxScenario) one_f_one_b = scenario_with_schedule (fx, "1f1b");
  PlxReport a, b, c;

  (void) data;
  if (file == NULL || builtin == NULL || one_f_one_b == NULL)
    return;
  g_assert_cmpstr (file->strategy->schedule_path, ==, sched);
  a = run_event (file);
  b = run_event (builtin);
  c = run_event (one_f_one_b);
  assert_same_report (&a, &b);
  /* And it is a different schedule from 1F1B. */
  g_assert_cmpfloat (a.step_time_s, !=, c.step_time_s);
}

static void
test_scenario_analytical_refuses (Fixture      *fx,
                                  gconstpointer data)
{
  g_autofree char *sched = test_write_file (fx->dir, "sched.json", HAND_1F1B_PP2_M2, -1);
  g_autoptr (PlxScenario) sc = scenario_with_schedule (fx, "sched.json");
  g_autoptr (GError) error = NULL;
  PlxReport r = { 0 };

  (void) data;
  if (sc == NULL)
    return;
  g_assert_false (plx_analytic_run (sc->model, sc->cluster, sc->strategy, &r, &error));
  CHECK_ERROR (error, PLX_ERROR_UNSUPPORTED, "strategy.schedule", sched);
}

static void
test_scenario_missing_file (Fixture      *fx,
                            gconstpointer data)
{
  g_autoptr (PlxScenario) sc = scenario_with_schedule (fx, "plans/absent.json");
  g_autofree char *expected = g_build_filename (fx->dir, "plans", "absent.json", NULL);
  g_autoptr (GError) error = NULL;
  PlxReport r = { 0 };

  (void) data;
  if (sc == NULL)
    return;
  g_assert_false (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &r, NULL, NULL, NULL, &error));
  CHECK_ERROR (error, PLX_ERROR_NOT_FOUND, expected);
}

/* The file must match the scenario's pp and micro-batch count. */
static void
test_scenario_mismatch (Fixture      *fx,
                        gconstpointer data)
{
  g_autofree char *three
      = test_write_file (fx->dir, "three.json",
                         "{\"stages\": [[\"F0\", \"F1\", \"B0\", \"B1\"], [\"F0\", \"B0\", \"F1\", \"B1\"],"
                         " [\"F0\", \"B0\", \"F1\", \"B1\"]]}",
                         -1);
  g_autofree char *short_
      = test_write_file (fx->dir, "short.json", "{\"stages\": [[\"F0\", \"B0\"], [\"F0\", \"B0\"]]}", -1);
  g_autoptr (PlxScenario) a = scenario_with_schedule (fx, "three.json");
  g_autoptr (PlxScenario) b = scenario_with_schedule (fx, "short.json");
  g_autoptr (GError) error_a = NULL;
  g_autoptr (GError) error_b = NULL;
  PlxReport r = { 0 };

  (void) data;
  if (a == NULL || b == NULL)
    return;
  g_assert_false (plx_sim_run_scenario (a->model, a->cluster, a->strategy, &r, NULL, NULL, NULL, &error_a));
  CHECK_ERROR (error_a, PLX_ERROR_INCONSISTENT, three, "3 lists", "pp=2");
  g_assert_false (plx_sim_run_scenario (b->model, b->cluster, b->strategy, &r, NULL, NULL, NULL, &error_b));
  CHECK_ERROR (error_b, PLX_ERROR_INCONSISTENT, short_, "stage 0", "skips F1");
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  /* A failed check marks its test failed and lets the others run. */
  g_test_set_nonfatal_assertions ();

  ADD ("/schedule-file/valid/1f1b", test_valid_1f1b);
  ADD ("/schedule-file/valid/split", test_valid_split);
  ADD ("/schedule-file/valid/backward-out-of-order", test_valid_backward_out_of_order);
  ADD ("/schedule-file/valid/chunks", test_valid_chunks);
  for (guint i = 0; i < G_N_ELEMENTS (round_trips); i++)
    {
      g_autofree char *path = g_strdup_printf ("/schedule-file/round-trip/%s", round_trip_names[i]);
      g_test_add (path, Fixture, &round_trips[i], fixture_setup, test_round_trip, fixture_teardown);
    }
  g_test_add_func ("/schedule-file/check/built-ins", test_check_builtins);

  ADD ("/schedule-file/error/missing-file", test_error_missing_file);
  ADD ("/schedule-file/error/not-json", test_error_not_json);
  ADD ("/schedule-file/error/missing-stages", test_error_missing_stages);
  ADD ("/schedule-file/error/stages-not-list", test_error_stages_not_list);
  ADD ("/schedule-file/error/stage-not-list", test_error_stage_not_list);
  ADD ("/schedule-file/error/stage-not-list-split", test_error_stage_not_list_split);
  ADD ("/schedule-file/error/stage-count", test_error_stage_count);
  ADD ("/schedule-file/error/entry-letter", test_error_entry_letter);
  ADD ("/schedule-file/error/entry-no-number", test_error_entry_no_number);
  ADD ("/schedule-file/error/entry-bad-chunk", test_error_entry_bad_chunk);
  ADD ("/schedule-file/error/entry-number", test_error_entry_number);
  ADD ("/schedule-file/error/entry-trailing", test_error_entry_trailing);
  ADD ("/schedule-file/error/entry-overflow", test_error_entry_overflow);
  ADD ("/schedule-file/error/micro-batch-range", test_error_micro_batch_range);
  ADD ("/schedule-file/error/chunk-range", test_error_chunk_range);
  ADD ("/schedule-file/error/repeat", test_error_repeat);
  ADD ("/schedule-file/error/skip", test_error_skip);
  ADD ("/schedule-file/error/w-missing", test_error_w_missing);
  g_test_add_func ("/schedule-file/error/w-not-split", test_error_w_not_split);
  ADD ("/schedule-file/error/deadlock", test_error_deadlock);
  ADD ("/schedule-file/error/deadlock-w-before-b", test_error_deadlock_w_before_b);
  ADD ("/schedule-file/error/deadlock-cross-stage", test_error_deadlock_cross_stage);
  ADD ("/schedule-file/error/deadlock-chunks", test_error_deadlock_chunks);
  ADD ("/schedule-file/error/long-path", test_error_long_path);

  ADD ("/schedule-file/scenario/1f1b-equivalent", test_scenario_1f1b);
  ADD ("/schedule-file/scenario/zero-bubble-equivalent", test_scenario_zero_bubble);
  ADD ("/schedule-file/scenario/analytical-refuses", test_scenario_analytical_refuses);
  ADD ("/schedule-file/scenario/missing-file", test_scenario_missing_file);
  ADD ("/schedule-file/scenario/mismatch", test_scenario_mismatch);

  return g_test_run ();
}
