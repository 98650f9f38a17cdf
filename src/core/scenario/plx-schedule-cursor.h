/* plx-schedule-cursor.h: a stage's schedule entries by index, computed for a built-in
 * schedule, read from the stored array otherwise. GPipe, 1F1B and interleaved 1F1B run
 * on each stage a warm-up of forwards, a steady state of one forward and one backward
 * in turn, and a cool-down of backwards (Huang et al. 2019 §2.2; Narayanan et al. 2021
 * §2.2), so entry i follows from the stage's warm-up length alone: the event engine
 * reads them without the 8 bytes an entry the stored order writes and reads back. */
#pragma once

#include "parallax/plx-strategy.h"

G_BEGIN_DECLS

typedef struct
{
  const GArray *stored;  /* the stage's entries, or NULL: computed */
  guint64       len;     /* entries on the stage */
  guint64       warmup;  /* forwards before the first backward */
  guint64       total;   /* forwards, and backwards: micro-batches x chunks */
  guint         p, v;
} PlxScheduleCursor;

/* A generated order whose arrays nobody asked for: its entries are computed. */
gboolean plx_schedule_order_is_computed (const PlxScheduleOrder *order);
void     plx_schedule_cursor_init (PlxScheduleCursor      *cursor,
                                   const PlxScheduleOrder *order,
                                   guint                   stage);

/* The stage's k-th forward or backward: with v chunks, forwards sweep the chunks a
 * group of p micro-batches at a time and backwards walk them in reverse (Megatron-LM's
 * interleaved order, Narayanan et al. 2021 §2.2.2); with one chunk, micro-batch k. */
static inline PlxScheduleEntry
plx_schedule_cursor_pass (const PlxScheduleCursor *c, PlxPass pass, guint64 k)
{
  PlxScheduleEntry e = { (guint8) pass, 0, (guint32) k };
  guint chunk;

  if (c->v == 1)
    return e;
  chunk = (guint) ((k / c->p) % c->v);
  e.chunk = (guint16) (pass == PLX_PASS_FORWARD ? chunk : c->v - 1 - chunk);
  e.micro_batch = (guint32) ((k / ((guint64) c->p * c->v)) * c->p + k % c->p);
  return e;
}

/* Entry i of the stage: warm-up forwards, then F and B in turn, then backwards. */
static inline PlxScheduleEntry
plx_schedule_cursor_at (const PlxScheduleCursor *c, guint64 i)
{
  guint64 j;

  if (c->stored != NULL)
    return g_array_index (c->stored, PlxScheduleEntry, i);
  if (i < c->warmup)
    return plx_schedule_cursor_pass (c, PLX_PASS_FORWARD, i);
  if (i >= 2 * c->total - c->warmup)
    return plx_schedule_cursor_pass (c, PLX_PASS_BACKWARD, i - c->total);
  j = i - c->warmup;
  if (j & 1)
    return plx_schedule_cursor_pass (c, PLX_PASS_BACKWARD, j >> 1);
  return plx_schedule_cursor_pass (c, PLX_PASS_FORWARD, c->warmup + (j >> 1));
}

G_END_DECLS
