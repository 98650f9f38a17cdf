/**
 * SECTION:plx-reshard
 * @title: plx-reshard.h
 * @short_description: redistribution of a sharded array from one layout to another
 *   as a sequence of collectives
 *
 * Redistribution of a sharded array from one layout to another as a sequence of
 * collectives (docs/reshard.md; issue 14; Rink et al. 2021, "Memory-efficient array
 * redistribution through portable collective communication", arXiv 2112.01075),
 * its cost on a cluster, the XLA-style baseline, and an SPMD executor that checks a
 * plan by running it on real buffers.
 */
#pragma once

#include <glib.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-scenario.h"

G_BEGIN_DECLS

/**
 * PLX_MESH_MAX_AXES:
 *
 * The most axes a device mesh has.
 */
#define PLX_MESH_MAX_AXES 3
/**
 * PLX_RESHARD_MAX_RANK:
 *
 * The most dimensions a redistributed array has.
 */
#define PLX_RESHARD_MAX_RANK 4

/**
 * PlxMesh:
 * @n_axes: 1 to %PLX_MESH_MAX_AXES
 * @size: each axis's devices
 *
 * A device mesh: axes named x, y, z, mapped onto the cluster's ranks in row-major
 * order (the last axis varies fastest: device = sum coord[a] * stride[a]).
 */
typedef struct
{
  guint n_axes;
  guint size[PLX_MESH_MAX_AXES];
} PlxMesh;

/**
 * PlxArrayShape:
 * @rank: its dimensions, 1 to %PLX_RESHARD_MAX_RANK
 * @dim: each dimension's size
 * @elem_bytes: the size of one element
 *
 * An array's logical shape and element size.
 */
typedef struct
{
  guint   rank;
  guint64 dim[PLX_RESHARD_MAX_RANK];
  guint   elem_bytes;
} PlxArrayShape;

/**
 * PlxSharding:
 * @rank: the array's dimensions
 * @n_axes: per dimension, the mesh axes it is split over
 * @axes: per dimension, those axes, outermost first
 * @partial: bit a: axis a holds partial sums
 *
 * An array's layout on a mesh: per array dimension, the mesh axes it is split over,
 * outermost first; the axes in @partial hold partial sums, the value being their sum
 * over the axis (a row-parallel matmul's output); the array is replicated over the
 * axes neither names.
 */
typedef struct
{
  guint rank;
  guint n_axes[PLX_RESHARD_MAX_RANK];
  guint axes[PLX_RESHARD_MAX_RANK][PLX_MESH_MAX_AXES];
  guint partial;
} PlxSharding;

/**
 * plx_mesh_parse:
 * @text: "8x8" -> axes x (8) and y (8); one to three axes, each 1 to 65536
 * @mesh: (out caller-allocates): the mesh
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE on success; %FALSE with an error naming @text
 */
gboolean plx_mesh_parse (const char *text,
                         PlxMesh    *mesh,
                         GError    **error);
/**
 * plx_mesh_format:
 * @mesh: a mesh
 *
 * Returns: (transfer full): the mesh as plx_mesh_parse() reads it: "8x8"
 */
char    *plx_mesh_format (const PlxMesh *mesh);
/**
 * plx_mesh_n_devices:
 * @mesh: a mesh
 *
 * Returns: its devices: the product of the axes' sizes
 */
guint    plx_mesh_n_devices (const PlxMesh *mesh);
/**
 * plx_mesh_stride:
 * @mesh: a mesh
 * @axis: an axis
 *
 * Returns: devices between neighbours along @axis
 */
guint    plx_mesh_stride (const PlxMesh *mesh,
                          guint          axis);
/**
 * plx_mesh_coord:
 * @mesh: a mesh
 * @device: a device
 * @axis: an axis
 *
 * Returns: the device's coordinate on @axis
 */
guint    plx_mesh_coord (const PlxMesh *mesh,
                         guint          device,
                         guint          axis);

/**
 * plx_sharding_parse:
 * @text: "[x,y]", "[y,-]", "[xy,-]": one entry per dimension of an array of @rank;
 *   "[x,-]+y": and a partial sum over y
 * @mesh: the mesh whose axes it names
 * @rank: the array's dimensions
 * @sharding: (out caller-allocates): the layout
 * @error: return location for a #GError, or %NULL
 *
 * Returns: %TRUE on success; %FALSE with an error naming @text
 */
gboolean plx_sharding_parse (const char    *text,
                             const PlxMesh *mesh,
                             guint          rank,
                             PlxSharding   *sharding,
                             GError       **error);
/**
 * plx_sharding_format:
 * @sharding: a layout
 *
 * Returns: (transfer full): the layout as plx_sharding_parse() reads it
 */
char    *plx_sharding_format (const PlxSharding *sharding);
/**
 * plx_sharding_equal:
 * @a: a layout
 * @b: another
 *
 * Returns: whether the two are the same layout
 */
gboolean plx_sharding_equal (const PlxSharding *a,
                             const PlxSharding *b);
/**
 * plx_sharding_dim_shards:
 * @sharding: a layout
 * @mesh: its mesh
 * @dim: an array dimension
 *
 * Returns: devices the dimension is split over (1 when not split)
 */
guint    plx_sharding_dim_shards (const PlxSharding *sharding,
                                  const PlxMesh     *mesh,
                                  guint              dim);

/**
 * PlxReshardOp:
 * @PLX_RESHARD_ALL_GATHER: remove the last axis of `dim`: concatenate along it
 * @PLX_RESHARD_ALL_TO_ALL: move the last axis of `dim` to the end of `to_dim`
 * @PLX_RESHARD_SLICE: split `dim` further over the unused `axis`: local
 * @PLX_RESHARD_PERMUTE: same shards, other devices: each sends its shard on
 * @PLX_RESHARD_REDUCE_SCATTER: sum over the partial `axis`, scattered: it becomes the
 *   last axis of `dim`
 * @PLX_RESHARD_ALL_REDUCE: sum over the partial `axis`: replicated over it
 * @PLX_RESHARD_N_OPS: the number of ops, not an op
 *
 * One step's collective; `dim`, `to_dim` and `axis` are the #PlxReshardStep's.
 */
typedef enum
{
  PLX_RESHARD_ALL_GATHER,
  PLX_RESHARD_ALL_TO_ALL,
  PLX_RESHARD_SLICE,
  PLX_RESHARD_PERMUTE,
  PLX_RESHARD_REDUCE_SCATTER,
  PLX_RESHARD_ALL_REDUCE,
  PLX_RESHARD_N_OPS
} PlxReshardOp;

/**
 * PlxReshardStep:
 * @op: the collective
 * @axis: the mesh axis it works on
 * @dim: the array dimension it works on
 * @to_dim: all-to-all: the dimension the axis moves to
 * @after: the layout this step leaves
 * @in_bytes: per device, before
 * @out_bytes: per device, after
 * @time_s: its time on the cluster
 *
 * One step of a plan.
 */
typedef struct
{
  PlxReshardOp op;
  guint        axis;
  guint        dim;
  guint        to_dim;
  PlxSharding  after;
  double       in_bytes;
  double       out_bytes;
  double       time_s;
} PlxReshardStep;

/**
 * PlxReshardPlan:
 * @mesh: the mesh
 * @shape: the array
 * @padded: each dim rounded up, see docs/reshard.md
 * @source: the layout it starts from
 * @target: the layout it ends in
 * @steps: #PlxReshardStep
 * @time_s: the steps' time
 * @peak_bytes: largest in_bytes + out_bytes of a step, or the source shard
 * @bound_bytes: max(source shard, target shard); no layout of the plan exceeds it
 *
 * A redistribution as a sequence of collectives.
 */
typedef struct
{
  PlxMesh       mesh;
  PlxArrayShape shape;
  guint64       padded[PLX_RESHARD_MAX_RANK];
  PlxSharding   source;
  PlxSharding   target;
  GArray       *steps;
  double        time_s;
  double        peak_bytes;
  double        bound_bytes;
} PlxReshardPlan;

/**
 * plx_reshard_plan:
 * @cluster: the cluster that prices the collectives
 * @mesh: the mesh
 * @shape: the array
 * @source: its layout now
 * @target: the layout wanted
 * @error: return location for a #GError, or %NULL
 *
 * Finds the cheapest plan whose every layout holds at most bound_bytes per device.
 *
 * Returns: (transfer full) (nullable): the plan; %NULL with an error naming a shape,
 *   layout or mesh that does not fit the others, or %PLX_ERROR_UNSUPPORTED when no
 *   plan within bound_bytes is found
 */
PlxReshardPlan *plx_reshard_plan (const PlxCluster    *cluster,
                                  const PlxMesh       *mesh,
                                  const PlxArrayShape *shape,
                                  const PlxSharding   *source,
                                  const PlxSharding   *target,
                                  GError             **error);
/**
 * plx_reshard_plan_baseline:
 * @cluster: the cluster that prices the collectives
 * @mesh: the mesh
 * @shape: the array
 * @source: its layout now
 * @target: the layout wanted
 * @error: return location for a #GError, or %NULL
 *
 * Plans as XLA's SPMD partitioner does: one all-to-all when the layouts differ by one
 * axis moved between two dims, else all-gather to replicated and slice.
 *
 * Returns: (transfer full) (nullable): the plan; %NULL with an error naming a shape,
 *   layout or mesh that does not fit the others
 */
PlxReshardPlan *plx_reshard_plan_baseline (const PlxCluster    *cluster,
                                           const PlxMesh       *mesh,
                                           const PlxArrayShape *shape,
                                           const PlxSharding   *source,
                                           const PlxSharding   *target,
                                           GError             **error);
/**
 * plx_reshard_plan_free:
 * @plan: (transfer full) (nullable): a plan
 *
 * Frees @plan.
 */
void            plx_reshard_plan_free (PlxReshardPlan *plan);
/**
 * plx_reshard_shard_bytes:
 * @plan: a plan
 * @sharding: a layout of its array
 *
 * Returns: bytes one device holds under @sharding, padding included
 */
double          plx_reshard_shard_bytes (const PlxReshardPlan *plan,
                                         const PlxSharding    *sharding);
/**
 * plx_reshard_op_name:
 * @op: an op
 *
 * Returns: (transfer none): its name: "all-gather", "all-to-all", "dynamic-slice",
 *   "collective-permute", "reduce-scatter" or "all-reduce"
 */
const char     *plx_reshard_op_name (PlxReshardOp op);
/**
 * plx_reshard_permute_sender:
 * @mesh: the mesh
 * @before: the layout before
 * @after: the layout after
 * @dim: the dimension permuted
 * @receiver: a device
 *
 * Returns: in a collective-permute of dimension @dim from @before to @after: the
 *   device that sends @receiver its new shard (itself when its block stays)
 */
guint           plx_reshard_permute_sender (const PlxMesh     *mesh,
                                            const PlxSharding *before,
                                            const PlxSharding *after,
                                            guint              dim,
                                            guint              receiver);

/**
 * plx_reshard_verify:
 * @plan: a plan
 * @error: return location for a #GError, or %NULL
 *
 * Runs the plan on one buffer per device, element = its global linear index, and
 * checks each device ends with exactly its target shard and every buffer has the
 * size the plan says. Arrays over 2^22 padded elements are refused.
 *
 * Returns: %TRUE when the plan is right; %FALSE with an error saying where it is not,
 *   or that the array is too large
 */
gboolean plx_reshard_verify (const PlxReshardPlan *plan,
                             GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxReshardPlan, plx_reshard_plan_free)

/**
 * PlxReshardArray:
 * @name: the model op's, static
 * @where: "blocks", "first stage" or "last stage", static
 * @shape: blocks: [layers, k, n] or [layers, size]; a stage's: its own
 * @from: the layout before, on plan->mesh
 * @to: the layout after, on plan->mesh
 * @count: the arrays alike
 * @plan: their plan
 *
 * One array kind of a checkpoint and its plan: @count arrays alike (a weight; or its
 * fp32 master copy and Adam moments, 3).
 */
typedef struct
{
  const char     *name;
  const char     *where;
  PlxArrayShape   shape;
  PlxSharding     from, to;
  guint           count;
  PlxReshardPlan *plan;
} PlxReshardArray;

/**
 * PlxReshardModel:
 * @mesh: the mesh, (stages, k, TP ranks): both block layouts on it
 * @arrays: #PlxReshardArray
 * @time_s: every array one after another
 * @peak_bytes: the largest plan's peak per GPU (one array at a time)
 * @moved_arrays: the arrays moved (each kind's count summed)
 * @optimizer_shards: data-parallel ranks sharing each optimizer array (ZeRO >= 1)
 * @weight_shards: ... each weight (ZeRO-3)
 *
 * A checkpoint's weights redistributed from TP x PP to TP x PP within one model copy
 * (docs/reshard.md, "Whole models").
 */
typedef struct
{
  PlxMesh mesh;
  GArray *arrays;
  double  time_s;
  double  peak_bytes;
  guint   moved_arrays;
  guint   optimizer_shards;
  guint   weight_shards;
} PlxReshardModel;

/**
 * plx_reshard_model:
 * @model: the model
 * @cluster: the cluster
 * @tp_from: the checkpoint's tensor-parallel degree
 * @pp_from: its pipeline-parallel degree
 * @tp_to: the tensor-parallel degree wanted
 * @pp_to: the pipeline-parallel degree wanted
 * @optimizer: move the optimizer state too
 * @error: return location for a #GError, or %NULL
 *
 * Plans each block's parameters stacked over the blocks that hold them - a matmul's
 * k x n weight and its bias, norm gains - with the layer dimension over PP @pp_from
 * and the tensor-parallel dimension over @tp_from, to the same over the _to
 * degrees; and the first and last stage's own parameters (embeddings, final norm,
 * the LM head or the tied embedding's copy) from the old end stage's GPUs to the new
 * one's. With @optimizer, every one's fp32 master copy and Adam moments too. A MoE
 * model's experts, all in each copy.
 *
 * Returns: (transfer full) (nullable): the plans; %NULL with an error naming them
 *   unless the GPUs of a copy stay as many (tp x pp) and one PP degree divides the
 *   other
 */
PlxReshardModel *plx_reshard_model (const PlxModel   *model,
                                    const PlxCluster *cluster,
                                    guint             tp_from,
                                    guint             pp_from,
                                    guint             tp_to,
                                    guint             pp_to,
                                    gboolean          optimizer,
                                    GError          **error);
/**
 * plx_reshard_scenario:
 * @scenario: a scenario
 * @tp_to: the tensor-parallel degree wanted
 * @pp_to: the pipeline-parallel degree wanted
 * @optimizer: move the optimizer state too
 * @error: return location for a #GError, or %NULL
 *
 * The same for a scenario's checkpoint, from its strategy's TP x PP: with ZeRO
 * stage 1 or more each optimizer array is shared by the data-parallel ranks of a
 * shard group (dp, or shard_group_size), each moving its slice; with stage 3 each
 * weight too; with expert parallelism each rank moves its own experts
 * (docs/reshard.md, "Whole models").
 *
 * Returns: (transfer full) (nullable): the plans, or %NULL with @error set as for
 *   plx_reshard_model()
 */
PlxReshardModel *plx_reshard_scenario (const PlxScenario *scenario,
                                       guint              tp_to,
                                       guint              pp_to,
                                       gboolean           optimizer,
                                       GError           **error);
/**
 * plx_reshard_array_clear:
 * @array: an array kind
 *
 * Frees its plan (the clear function of #PlxReshardModel.arrays).
 */
void             plx_reshard_array_clear (PlxReshardArray *array);
/**
 * plx_reshard_model_free:
 * @r: (transfer full) (nullable): a model's plans
 *
 * Frees @r.
 */
void             plx_reshard_model_free (PlxReshardModel *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxReshardModel, plx_reshard_model_free)

G_END_DECLS
