/* plx-reshard-ir.h: a redistribution plan (plx-reshard.h) as ops of the distributed
 * program IR (plx-ir.h), so the IR simulator runs it inside a step where a layer
 * changes layout (issue 14; docs/reshard.md, "In the IR"). */
#pragma once

#include <glib.h>

#include "ir/plx-ir.h"
#include "parallax/plx-reshard.h"

G_BEGIN_DECLS

/* Appends to `graph` the ops that carry `plan` out on tensor `input`, each device's
 * shard under plan->source (its shape the padded source shard, its dtype
 * plan->shape.elem_bytes wide): per step, an all-gather or all-to-all over every
 * group of the step's mesh axis at once (`groups` groups, devices group after
 * group), a slice on every device, or a collective-permute as one send from each
 * device whose shard another needs to that device. `mesh_devices[m]` is the graph
 * device of mesh device m (NULL: m itself); names start with `prefix` (NULL:
 * "reshard") and are made unique in the graph. `*output` is the tensor holding each
 * device's target shard (`input` when the plan has no step). FALSE with an error
 * naming the tensor, device or size that does not fit. */
gboolean    plx_reshard_lower (const PlxReshardPlan *plan,
                               PlxIrGraph           *graph,
                               guint                 input,
                               const guint          *mesh_devices,
                               const char           *prefix,
                               guint                *output,
                               GError              **error);

/* The plan as a program of its own on the mesh's devices: the source shard a graph
 * input "array[LAYOUT]" (dtype fp8, bf16 or fp32 by plan->shape.elem_bytes), then
 * the steps. NULL with an error for an element size the IR has no dtype for. */
PlxIrGraph *plx_reshard_plan_to_graph (const PlxReshardPlan *plan,
                                       GError              **error);

/* The IR dtype of `elem_bytes`-byte elements: fp8 (1), bf16 (2), fp32 (4); else
 * FALSE with an error naming the size. */
gboolean    plx_reshard_ir_dtype (guint     elem_bytes,
                                  PlxDtype *dtype,
                                  GError  **error);

G_END_DECLS
