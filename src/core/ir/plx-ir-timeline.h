/* plx-ir-timeline.h: a program's run (plx_ir_simulate) as the charts draw a step
 * and as simulate reports one: a timeline row per device, a memory line per device,
 * and a PlxReport of the fullest device. */
#pragma once

#include "plx-ir.h"
#include "parallax/plx-report.h"
#include "parallax/plx-sim.h"

G_BEGIN_DECLS

/* One timeline event per op and device (rank = device; streams and kinds from the
 * op: a send on the pipeline stream, a collective on "dp" as data-parallel
 * communication, other collectives as tensor-parallel, gradient ops as backward,
 * updates as the optimizer), and each device's memory over the run: graph inputs
 * as static memory by role (weights; optimizer state; data and constants as
 * other), what its ops made as activations. `op_kinds` (optional, PlxTaskKind per
 * op, G_MAXUINT8: a marker of no time, left out) overrides the kinds. Either output
 * may be NULL. */
void plx_ir_run_charts (const PlxIrGraph *graph,
                        const PlxIrRun   *run,
                        const guint8     *op_kinds,
                        PlxTimeline     **timeline,
                        PlxMemoryTrace  **trace);
/* The run as a report ("engine": "ir"): the step, FLOPs of matmuls, convolutions
 * and kernels over the devices' bf16 peak (MFU), the fullest device's memory by
 * category and its time by kind, the rest bubble. */
void plx_ir_run_report (const PlxIrGraph *graph,
                        const PlxIrRun   *run,
                        const PlxCluster *cluster,
                        PlxReport        *report);

G_END_DECLS
