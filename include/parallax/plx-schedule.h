/**
 * SECTION:plx-schedule
 * @title: plx-schedule.h
 * @short_description: the order in which each pipeline stage runs its passes
 *
 * The order in which each pipeline stage runs its passes.
 */
#pragma once

#include <glib.h>

#include "plx-strategy.h"

G_BEGIN_DECLS

/**
 * PlxPass:
 * @PLX_PASS_FORWARD: F
 * @PLX_PASS_BACKWARD: B: input gradients (and weight gradients unless split)
 * @PLX_PASS_WEIGHT_GRAD: W: weight gradients, when the schedule splits them off
 * @PLX_N_PASSES: the number of passes, not a pass
 *
 * What a stage runs of one micro-batch on one model chunk.
 */
typedef enum
{
  PLX_PASS_FORWARD,
  PLX_PASS_BACKWARD,
  PLX_PASS_WEIGHT_GRAD,
  PLX_N_PASSES
} PlxPass;

/**
 * PlxScheduleEntry:
 * @pass: a #PlxPass
 * @chunk: model chunk on this stage, 0 .. virtual_stages - 1
 * @micro_batch: the micro-batch, from 0
 *
 * One pass in a stage's order.
 */
typedef struct
{
  guint8  pass;
  guint16 chunk;
  guint32 micro_batch;
} PlxScheduleEntry;

/**
 * PlxScheduleOrder:
 * @pp: the pipeline stages
 * @virtual_stages: the model chunks on each stage
 * @micro_batches: the micro-batches of one step
 * @split_backward: W passes are separate entries
 * @stages: pp arrays of #PlxScheduleEntry, in execution order. %NULL in a built-in
 *   order until plx_schedule_order_get_stages() asks for them: the event engine
 *   computes a built-in schedule's entries instead (plx-schedule-cursor.h), so it
 *   never writes 16.8 MB of them for 8192 micro-batches on 128 stages. Read through
 *   the getter.
 * @generated: entries follow from @schedule and the shape
 * @schedule: when generated: GPipe, 1F1B or interleaved 1F1B
 *
 * The order in which each pipeline stage runs its passes.
 */
typedef struct
{
  guint     pp;
  guint     virtual_stages;
  guint64   micro_batches;
  gboolean  split_backward;
  GArray  **stages;
  gboolean  generated;
  PlxSchedule schedule;
} PlxScheduleOrder;

/**
 * plx_schedule_splits_backward:
 * @schedule: a schedule
 * @pp: the pipeline stages
 *
 * Returns: whether the schedule runs weight gradients as passes of their own (W):
 *   zero-bubble H1 on more than one stage
 */
gboolean plx_schedule_splits_backward (PlxSchedule schedule,
                                       guint       pp);

/**
 * plx_schedule_order_new:
 * @schedule: a built-in schedule, not %PLX_SCHEDULE_FILE
 * @pp: the pipeline stages, at least 1
 * @virtual_stages: the model chunks on each stage, at least 1; only interleaved
 *   1F1B uses more than one
 * @micro_batches: the micro-batches of one step, at least 1
 *
 * Makes the order of one of the built-in schedules: GPipe (Huang et al. 2019), 1F1B
 * (Narayanan et al. 2021 §2.2.1, PipeDream-Flush), Megatron's interleaved 1F1B
 * (§2.2.2) and zero-bubble H1 (Qi et al. 2023 §3.1). Not %PLX_SCHEDULE_FILE.
 *
 * Returns: (transfer full): the order
 */
PlxScheduleOrder *plx_schedule_order_new (PlxSchedule schedule,
                                          guint       pp,
                                          guint       virtual_stages,
                                          guint64     micro_batches);
/**
 * plx_schedule_order_load:
 * @path: a schedule file (FORMATS.md §4)
 * @pp: the pipeline stages the file must have
 * @virtual_stages: the model chunks on each stage
 * @micro_batches: the micro-batches of one step
 * @error: return location for a #GError, or %NULL
 *
 * Reads a schedule file, checked like any other order
 * (plx_schedule_order_check()).
 *
 * Returns: (transfer full) (nullable): the order, or %NULL with @error set
 */
PlxScheduleOrder *plx_schedule_order_load (const char *path,
                                           guint       pp,
                                           guint       virtual_stages,
                                           guint64     micro_batches,
                                           GError    **error);
/**
 * plx_schedule_order_check:
 * @order: an order
 * @source: the name of the order in errors
 * @error: return location for a #GError, or %NULL
 *
 * Checks that every stage runs each pass of each (micro-batch, chunk) exactly once
 * and the order can run to the end without deadlock.
 *
 * Returns: %TRUE if so; otherwise %FALSE with an error that names stage and entry
 */
gboolean          plx_schedule_order_check (const PlxScheduleOrder *order,
                                            const char             *source,
                                            GError                **error);
/**
 * plx_schedule_order_free:
 * @order: (transfer full) (nullable): an order
 *
 * Frees @order.
 */
void              plx_schedule_order_free (PlxScheduleOrder *order);
/**
 * plx_schedule_order_get_stages:
 * @order: an order
 *
 * Returns: (transfer none): the per-stage arrays (@order's pp of them), built on the
 *   first call for a built-in order (thread-safe)
 */
GArray          **plx_schedule_order_get_stages (const PlxScheduleOrder *order);
/**
 * plx_schedule_entry_to_string:
 * @entry: an entry
 *
 * Returns: (transfer full): "F3", "B0.1", "W2": pass letter, micro-batch, optional
 *   ".chunk" (none for chunk 0)
 */
char             *plx_schedule_entry_to_string (const PlxScheduleEntry *entry);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxScheduleOrder, plx_schedule_order_free)

G_END_DECLS
