/* plx-schedule.h: the order in which each pipeline stage runs its passes. */
#pragma once

#include <glib.h>

#include "plx-strategy.h"

G_BEGIN_DECLS

typedef enum
{
  PLX_PASS_FORWARD,       /* F */
  PLX_PASS_BACKWARD,      /* B: input gradients (and weight gradients unless split) */
  PLX_PASS_WEIGHT_GRAD,   /* W: weight gradients, when the schedule splits them off */
  PLX_N_PASSES
} PlxPass;

typedef struct
{
  guint8  pass;        /* PlxPass */
  guint16 chunk;       /* model chunk on this stage, 0 .. virtual_stages - 1 */
  guint32 micro_batch;
} PlxScheduleEntry;

typedef struct
{
  guint     pp;
  guint     virtual_stages;
  guint64   micro_batches;
  gboolean  split_backward; /* W passes are separate entries */
  /* pp arrays of PlxScheduleEntry, in execution order. NULL in a built-in order until
   * plx_schedule_order_get_stages asks for them: the event engine computes a built-in
   * schedule's entries instead (plx-schedule-cursor.h), so it never writes 16.8 MB of
   * them for 8192 micro-batches on 128 stages. Read through the getter. */
  GArray  **stages;
  gboolean  generated;      /* entries follow from `schedule` and the shape */
  PlxSchedule schedule;     /* when generated: GPipe, 1F1B or interleaved 1F1B */
} PlxScheduleOrder;

/* Whether the schedule runs weight gradients as passes of their own (W): zero-bubble
 * H1 on more than one stage. */
gboolean plx_schedule_splits_backward (PlxSchedule schedule,
                                       guint       pp);

/* The built-in schedules: GPipe (Huang et al. 2019), 1F1B (Narayanan et al. 2021
 * §2.2.1, PipeDream-Flush), Megatron's interleaved 1F1B (§2.2.2) and zero-bubble H1
 * (Qi et al. 2023 §3.1). Not PLX_SCHEDULE_FILE. */
PlxScheduleOrder *plx_schedule_order_new (PlxSchedule schedule,
                                          guint       pp,
                                          guint       virtual_stages,
                                          guint64     micro_batches);
/* A schedule file (FORMATS.md §4), checked like any other order. */
PlxScheduleOrder *plx_schedule_order_load (const char *path,
                                           guint       pp,
                                           guint       virtual_stages,
                                           guint64     micro_batches,
                                           GError    **error);
/* Every stage runs each pass of each (micro-batch, chunk) exactly once and the
 * order can run to the end without deadlock; the error names stage and entry. */
gboolean          plx_schedule_order_check (const PlxScheduleOrder *order,
                                            const char             *source,
                                            GError                **error);
void              plx_schedule_order_free (PlxScheduleOrder *order);
/* The per-stage arrays, built on the first call for a built-in order (thread-safe). */
GArray          **plx_schedule_order_get_stages (const PlxScheduleOrder *order);
/* "F3", "B0.1", "W2": pass letter, micro-batch, optional ".chunk". */
char             *plx_schedule_entry_to_string (const PlxScheduleEntry *entry);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxScheduleOrder, plx_schedule_order_free)

G_END_DECLS
