/* plx-ir-lower.h: transformer scenarios as distributed programs (docs/ir.md,
 * "Transformer scenarios"): the plan the event engine runs (plx-plan.h), written as
 * IR ops in the schedule's order, so that the IR simulator runs what the event
 * engine runs and `parallax-cli plan --json` prints it. */
#pragma once

#include "plx-ir.h"
#include "parallax/plx-plan.h"
#include "parallax/plx-report.h"
#include "parallax/plx-strategy.h"
#include "parallax/plx-sim.h"

G_BEGIN_DECLS

/* The program of a plan run in `order`: one device per pipeline stage (the stage's
 * representative GPU, as in the plan: the others of its TP, CP and DP groups do the
 * same), each task an op carrying the time the transformer model costed (compute as
 * a kernel, collectives by kind on a stream of their own), stage-to-stage sends
 * that hold the sender, each chunk's gradient buckets on a "dp" stream as its last
 * backward pass produces them, the tied-embedding all-reduce, the optimizer step
 * and ZeRO's weight gather; activations as tensors alive from a forward pass to its
 * backward, weights, gradients and optimizer state as graph inputs.
 * `op_kinds` (optional) receives each op's PlxTaskKind (G_MAXUINT8: none). */
PlxIrGraph *plx_ir_lower_plan (const PlxPlan          *plan,
                               const PlxScheduleOrder *order,
                               guint8                **op_kinds,
                               GError                **error);
/* The most ops `parallax-cli plan --json` prints (about 450 bytes of JSON each, and
 * json-glib's tree of it ten times that while it is written: 90 MB and 10 s). */
#define PLX_IR_JSON_MAX_OPS 200000

/* The scenario's plan and schedule, lowered (plx_sim_run_scenario's, as the event
 * engine builds them). `plan_out` (optional) receives the plan. */
PlxIrGraph *plx_ir_lower_scenario (const PlxModel    *model,
                                   const PlxCluster  *cluster,
                                   const PlxStrategy *strategy,
                                   PlxPlan          **plan_out,
                                   guint8           **op_kinds,
                                   GError           **error);
/* An error when the program `plan` lowers to may pass PLX_IR_JSON_MAX_OPS (an upper
 * bound, counted before it is built): what `plan --json` asks before lowering it,
 * in words that name what a plan user can change. */
gboolean    plx_ir_plan_check_printable (const PlxPlan *plan,
                                         GError       **error);
/* An error unless `program` (lowered from `strategy`, or a graph's) has at most
 * PLX_IR_JSON_MAX_OPS ops: what `plan --json` asks before printing it. */
gboolean    plx_ir_program_check_printable (const PlxIrGraph *program,
                                            GError          **error);
/* The "ir" engine: the scenario lowered and run by plx_ir_simulate, reported as the
 * event engine reports (the stage with the highest memory peak); the timeline and
 * memory trace (optional) a rank per stage, as the event engine's. */
gboolean    plx_ir_run_scenario (const PlxModel    *model,
                                 const PlxCluster  *cluster,
                                 const PlxStrategy *strategy,
                                 PlxReport         *report,
                                 PlxTimeline      **timeline,
                                 PlxMemoryTrace   **trace,
                                 GError           **error);

G_END_DECLS
