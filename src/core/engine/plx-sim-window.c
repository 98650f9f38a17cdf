/* The event engine's window of micro-batches in flight. A 1F1B stage holds at most
 * pp - s micro-batches between a forward and its backward (Narayanan et al. 2021
 * §2.2.1), so keeping end times for those alone, not for all m, touches K x pp
 * slots instead of K x m: for PP 128 and 8192 micro-batches 0.4 MB, not 17 MB. */
#include <string.h>

#include "scenario/plx-schedule-cursor.h"
#include "plx-sim-window.h"
#include "base/plx-minmax.h"

/* Most micro-batches any chunk of any stage has started and not finished. */
static guint64
max_in_flight (const PlxScheduleOrder *o, guint last_pass)
{
  g_autofree guint64 *open = g_new0 (guint64, o->virtual_stages);
  guint64 most = 1;

  for (guint s = 0; s < o->pp; s++)
    {
      PlxScheduleCursor c;

      plx_schedule_cursor_init (&c, o, s);
      memset (open, 0, sizeof (guint64) * o->virtual_stages);
      for (guint64 i = 0; i < c.len; i++)
        {
          PlxScheduleEntry entry = plx_schedule_cursor_at (&c, i);
          const PlxScheduleEntry *e = &entry;

          if (e->pass == PLX_PASS_FORWARD)
            {
              open[e->chunk]++;
              most = MAX (most, open[e->chunk]);
            }
          else if (e->pass == last_pass && open[e->chunk] > 0)
            open[e->chunk]--;
        }
    }
  return most;
}

/* Whether a ring of `w` slots per chunk holds every micro-batch from its forward to
 * its last pass on each stage. */
static gboolean
window_holds (const PlxScheduleOrder *o, guint last_pass, guint w)
{
  g_autofree guint32 *slot = g_new (guint32, (gsize) o->virtual_stages * w);

  for (guint s = 0; s < o->pp; s++)
    {
      PlxScheduleCursor c;

      plx_schedule_cursor_init (&c, o, s);
      memset (slot, 0xff, sizeof (guint32) * o->virtual_stages * w);
      for (guint64 i = 0; i < c.len; i++)
        {
          PlxScheduleEntry entry = plx_schedule_cursor_at (&c, i);
          const PlxScheduleEntry *e = &entry;
          guint32 *held = &slot[(gsize) e->chunk * w + (e->micro_batch & (w - 1))];

          if (e->pass == PLX_PASS_FORWARD)
            {
              if (*held != G_MAXUINT32)
                return FALSE;
              *held = e->micro_batch;
            }
          else
            {
              if (*held != e->micro_batch)
                return FALSE;
              if (e->pass == last_pass)
                *held = G_MAXUINT32;
            }
        }
    }
  return TRUE;
}

/* The most micro-batches in flight of a generated GPipe or 1F1B order, 0 for others.
 * GPipe runs every forward before any backward: all m (Huang et al. 2019 §2.2). 1F1B's
 * stage 0 warms up with p - 1 forwards and runs one more before its first backward:
 * min (p, m) (Narayanan et al. 2021 §2.2.1). Both run forwards and backwards in
 * micro-batch order, so those in flight are consecutive and any ring at least as wide
 * holds them: window_holds has nothing to add. Interleaved orders take the pass. */
static guint64
known_in_flight (const PlxScheduleOrder *o)
{
  if (!plx_schedule_order_is_computed (o))
    return 0;
  if (o->schedule == PLX_SCHEDULE_GPIPE)
    return o->micro_batches;
  if (o->schedule == PLX_SCHEDULE_1F1B)
    return MIN ((guint64) o->pp, o->micro_batches);
  return 0;
}

guint
plx_sim_window (const PlxScheduleOrder *o)
{
  guint last_pass = o->split_backward ? PLX_PASS_WEIGHT_GRAD : PLX_PASS_BACKWARD;
  guint64 all = MAX (o->micro_batches, 1), w = 1;
  guint64 known = known_in_flight (o);
  guint64 most;

  if (known > 0)
    {
      while (w < known)
        w <<= 1;
      return (guint) w;
    }
  most = plx_min_u64 (max_in_flight (o, last_pass), all);

  while (w < most)
    w <<= 1;
  /* An order that reuses a slot early (micro-batches far apart with equal residues)
   * gets a wider ring; once W >= m every micro-batch has its own slot. */
  while (w < all && !window_holds (o, last_pass, (guint) w))
    w <<= 1;
  return (guint) w;
}
