/* The event engine's ring of end times (src/core/engine/plx-sim-window.c): the window for
 * built-in schedules, worked out by hand, and checked against a brute-force reading
 * of its promise: on every stage, a forward of (chunk, mb) comes after the last pass
 * of every earlier micro-batch of that chunk with the same residue modulo W. */
#include "parallax/parallax.h"
#include "../../src/core/scenario/plx-schedule-cursor.h"
#include "../../src/core/engine/plx-sim-window.h"

static gboolean
brute_force_holds (const PlxScheduleOrder *o, guint w)
{
  PlxPass last = o->split_backward ? PLX_PASS_WEIGHT_GRAD : PLX_PASS_BACKWARD;

  for (guint s = 0; s < o->pp; s++)
    {
      GArray *a = plx_schedule_order_get_stages (o)[s];

      for (guint i = 0; i < a->len; i++)
        {
          const PlxScheduleEntry *f = &g_array_index (a, PlxScheduleEntry, i);

          if (f->pass != PLX_PASS_FORWARD)
            continue;
          for (guint j = 0; j < i; j++)
            {
              const PlxScheduleEntry *g = &g_array_index (a, PlxScheduleEntry, j);
              gboolean finished = FALSE;

              if (g->pass != PLX_PASS_FORWARD || g->chunk != f->chunk || g->micro_batch % w != f->micro_batch % w)
                continue;
              for (guint l = j + 1; l < i; l++)
                {
                  const PlxScheduleEntry *h = &g_array_index (a, PlxScheduleEntry, l);
                  if (h->pass == last && h->chunk == g->chunk && h->micro_batch == g->micro_batch)
                    finished = TRUE;
                }
              if (!finished)
                return FALSE;
            }
        }
    }
  return TRUE;
}

static guint
assert_window (const PlxScheduleOrder *o)
{
  guint w = plx_sim_window (o);

  /* A power of two that holds, and the next smaller one does not. */
  g_assert_cmpuint (w & (w - 1), ==, 0);
  g_assert_true (brute_force_holds (o, w));
  if (w > 1)
    g_assert_false (brute_force_holds (o, w / 2));
  return w;
}

static void
test_builtins (void)
{
  struct { PlxSchedule schedule; guint p, v; guint64 m; guint want; } cases[] = {
    /* 1F1B: stage 0 has p micro-batches open (p - 1 warm-up forwards, then one
     * more before B0), and F(mb + p) follows B(mb): p = 4 gives 4. */
    { PLX_SCHEDULE_1F1B, 4, 1, 16, 4 },
    /* p = 3: three open, so the ring is the next power of two, 4. */
    { PLX_SCHEDULE_1F1B, 3, 1, 16, 4 },
    /* GPipe: all 5 forwards open at once: 8 slots, more than m. */
    { PLX_SCHEDULE_GPIPE, 2, 1, 5, 8 },
    /* Interleaved and ZB-H1: the brute force decides. */
    { PLX_SCHEDULE_INTERLEAVED_1F1B, 4, 2, 16, 0 },
    { PLX_SCHEDULE_INTERLEAVED_1F1B, 2, 3, 12, 0 },
    { PLX_SCHEDULE_ZERO_BUBBLE_H1, 4, 1, 16, 0 },
    { PLX_SCHEDULE_ZERO_BUBBLE_H1, 3, 1, 7, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (PlxScheduleOrder) o =
        plx_schedule_order_new (cases[i].schedule, cases[i].p, cases[i].v, cases[i].m);
      guint w = assert_window (o);

      if (cases[i].want != 0)
        g_assert_cmpuint (w, ==, cases[i].want);
    }
}

/* A built-in order's computed entries and window (what the event engine reads) are
 * those of its stored arrays, entry for entry, over many shapes. */
static void
assert_computed_is_stored (PlxSchedule schedule, guint p, guint v, guint64 m)
{
  g_autoptr (PlxScheduleOrder) o = plx_schedule_order_new (schedule, p, v, m);
  g_autofree PlxScheduleCursor *c = g_new (PlxScheduleCursor, p);
  guint computed_window = plx_sim_window (o);

  g_assert_true (plx_schedule_order_is_computed (o));
  for (guint s = 0; s < p; s++)
    plx_schedule_cursor_init (&c[s], o, s);
  for (guint s = 0; s < p; s++)
    {
      GArray *a = plx_schedule_order_get_stages (o)[s];

      g_assert_cmpuint (c[s].len, ==, a->len);
      for (guint i = 0; i < a->len; i++)
        {
          PlxScheduleEntry x = plx_schedule_cursor_at (&c[s], i), *y = &g_array_index (a, PlxScheduleEntry, i);
          g_assert_cmpuint (x.pass, ==, y->pass);
          g_assert_cmpuint (x.chunk, ==, y->chunk);
          g_assert_cmpuint (x.micro_batch, ==, y->micro_batch);
        }
    }
  g_assert_false (plx_schedule_order_is_computed (o));
  g_assert_cmpuint (plx_sim_window (o), ==, computed_window);
}

static void
test_computed_orders (void)
{
  for (guint p = 1; p <= 9; p++)
    for (guint64 m = 1; m <= 40; m++)
      {
        assert_computed_is_stored (PLX_SCHEDULE_GPIPE, p, 1, m);
        assert_computed_is_stored (PLX_SCHEDULE_1F1B, p, 1, m);
        for (guint v = 1; v <= 4; v++)
          assert_computed_is_stored (PLX_SCHEDULE_INTERLEAVED_1F1B, p, v, m);
      }
  assert_computed_is_stored (PLX_SCHEDULE_ZERO_BUBBLE_H1, 1, 1, 7);
}

static void
test_colliding_order (void)
{
  /* One stage, four micro-batches, "F0 F2 B0 B2 F1 F3 B1 B3": at most two open,
   * but 0 and 2 are open together and share a slot of a 2-ring, so the ring is 4. */
  static const guint8 pass[] = { 0, 0, 1, 1, 0, 0, 1, 1 };
  static const guint32 mb[] = { 0, 2, 0, 2, 1, 3, 1, 3 };
  PlxScheduleOrder o = { 1, 1, 4, FALSE, NULL };
  GArray *stage = g_array_new (FALSE, FALSE, sizeof (PlxScheduleEntry));

  for (guint i = 0; i < G_N_ELEMENTS (pass); i++)
    {
      PlxScheduleEntry e = { pass[i], 0, mb[i] };
      g_array_append_val (stage, e);
    }
  o.stages = &stage;
  g_assert_true (plx_schedule_order_check (&o, "test", NULL));
  g_assert_cmpuint (assert_window (&o), ==, 4);
  g_array_unref (stage);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sim-window/builtins", test_builtins);
  g_test_add_func ("/sim-window/colliding-order", test_colliding_order);
  g_test_add_func ("/sim-window/computed-orders", test_computed_orders);
  return g_test_run ();
}
