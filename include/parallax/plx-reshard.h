/* plx-reshard.h: redistribution of a sharded array from one layout to another as a
 * sequence of collectives (issue 14; Rink et al. 2021, "Memory-efficient array
 * redistribution through portable collective communication", arXiv 2112.01075),
 * its cost on a cluster, the XLA-style baseline, and an SPMD executor that checks a
 * plan by running it on real buffers. */
#pragma once

#include <glib.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-scenario.h"

G_BEGIN_DECLS

#define PLX_MESH_MAX_AXES 3
#define PLX_RESHARD_MAX_RANK 4

/* A device mesh: axes named x, y, z, mapped onto the cluster's ranks in row-major
 * order (the last axis varies fastest: device = sum coord[a] * stride[a]). */
typedef struct
{
  guint n_axes;
  guint size[PLX_MESH_MAX_AXES];
} PlxMesh;

/* An array's logical shape and element size. */
typedef struct
{
  guint   rank;
  guint64 dim[PLX_RESHARD_MAX_RANK];
  guint   elem_bytes;
} PlxArrayShape;

/* Per array dimension, the mesh axes it is split over, outermost first; the axes in
 * `partial` (bit a: axis a) hold partial sums, the value being their sum over the
 * axis (a row-parallel matmul's output); the array is replicated over the axes
 * neither names. */
typedef struct
{
  guint rank;
  guint n_axes[PLX_RESHARD_MAX_RANK];
  guint axes[PLX_RESHARD_MAX_RANK][PLX_MESH_MAX_AXES];
  guint partial;
} PlxSharding;

/* "8x8" -> axes x (8) and y (8); one to three axes, each 1 to 65536. */
gboolean plx_mesh_parse (const char *text,
                         PlxMesh    *mesh,
                         GError    **error);
char    *plx_mesh_format (const PlxMesh *mesh);
guint    plx_mesh_n_devices (const PlxMesh *mesh);
/* Devices between neighbours along `axis`, and a device's coordinate on it. */
guint    plx_mesh_stride (const PlxMesh *mesh,
                          guint          axis);
guint    plx_mesh_coord (const PlxMesh *mesh,
                         guint          device,
                         guint          axis);

/* "[x,y]", "[y,-]", "[xy,-]": one entry per dimension of an array of `rank`;
 * "[x,-]+y": and a partial sum over y. */
gboolean plx_sharding_parse (const char    *text,
                             const PlxMesh *mesh,
                             guint          rank,
                             PlxSharding   *sharding,
                             GError       **error);
char    *plx_sharding_format (const PlxSharding *sharding);
gboolean plx_sharding_equal (const PlxSharding *a,
                             const PlxSharding *b);
/* Devices a dimension is split over (1 when not split). */
guint    plx_sharding_dim_shards (const PlxSharding *sharding,
                                  const PlxMesh     *mesh,
                                  guint              dim);

typedef enum
{
  PLX_RESHARD_ALL_GATHER, /* remove the last axis of `dim`: concatenate along it */
  PLX_RESHARD_ALL_TO_ALL, /* move the last axis of `dim` to the end of `to_dim` */
  PLX_RESHARD_SLICE,      /* split `dim` further over the unused `axis`: local */
  PLX_RESHARD_PERMUTE,    /* same shards, other devices: each sends its shard on */
  PLX_RESHARD_REDUCE_SCATTER, /* sum over the partial `axis`, scattered: it becomes
                               * the last axis of `dim` */
  PLX_RESHARD_ALL_REDUCE, /* sum over the partial `axis`: replicated over it */
  PLX_RESHARD_N_OPS
} PlxReshardOp;

typedef struct
{
  PlxReshardOp op;
  guint        axis;
  guint        dim;
  guint        to_dim;
  PlxSharding  after;     /* the layout this step leaves */
  double       in_bytes;  /* per device, before */
  double       out_bytes; /* per device, after */
  double       time_s;
} PlxReshardStep;

typedef struct
{
  PlxMesh       mesh;
  PlxArrayShape shape;
  guint64       padded[PLX_RESHARD_MAX_RANK]; /* each dim rounded up, see docs/reshard.md */
  PlxSharding   source;
  PlxSharding   target;
  GArray       *steps;       /* PlxReshardStep */
  double        time_s;
  double        peak_bytes;  /* largest in_bytes + out_bytes of a step, or the source shard */
  double        bound_bytes; /* max(source shard, target shard); no layout of the plan exceeds it */
} PlxReshardPlan;

/* The cheapest plan whose every layout holds at most bound_bytes per device. */
PlxReshardPlan *plx_reshard_plan (const PlxCluster    *cluster,
                                  const PlxMesh       *mesh,
                                  const PlxArrayShape *shape,
                                  const PlxSharding   *source,
                                  const PlxSharding   *target,
                                  GError             **error);
/* XLA's SPMD partitioner: one all-to-all when the layouts differ by one axis moved
 * between two dims, else all-gather to replicated and slice. */
PlxReshardPlan *plx_reshard_plan_baseline (const PlxCluster    *cluster,
                                           const PlxMesh       *mesh,
                                           const PlxArrayShape *shape,
                                           const PlxSharding   *source,
                                           const PlxSharding   *target,
                                           GError             **error);
void            plx_reshard_plan_free (PlxReshardPlan *plan);
/* Bytes one device holds under `sharding`, padding included. */
double          plx_reshard_shard_bytes (const PlxReshardPlan *plan,
                                         const PlxSharding    *sharding);
const char     *plx_reshard_op_name (PlxReshardOp op);
/* In a collective-permute of dimension `dim` from `before` to `after`: the device
 * that sends `receiver` its new shard (itself when its block stays). */
guint           plx_reshard_permute_sender (const PlxMesh     *mesh,
                                            const PlxSharding *before,
                                            const PlxSharding *after,
                                            guint              dim,
                                            guint              receiver);

/* Runs the plan on one buffer per device, element = its global linear index, and
 * checks each device ends with exactly its target shard and every buffer has the
 * size the plan says. Arrays over 2^22 padded elements are refused. */
gboolean plx_reshard_verify (const PlxReshardPlan *plan,
                             GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxReshardPlan, plx_reshard_plan_free)

/* One array kind of a checkpoint and its plan: `count` arrays alike (a weight; or its
 * fp32 master copy and Adam moments, 3). */
typedef struct
{
  const char     *name;     /* the model op's, static */
  const char     *where;    /* "blocks", "first stage" or "last stage", static */
  PlxArrayShape   shape;    /* blocks: [layers, k, n] or [layers, size]; a stage's: its own */
  PlxSharding     from, to; /* on plan->mesh */
  guint           count;
  PlxReshardPlan *plan;
} PlxReshardArray;

/* A checkpoint's weights redistributed from TP x PP to TP x PP within one model copy
 * (docs/reshard.md, "Whole models"). */
typedef struct
{
  PlxMesh mesh;          /* (stages, k, TP ranks): both block layouts on it */
  GArray *arrays;        /* PlxReshardArray */
  double  time_s;        /* every array one after another */
  double  peak_bytes;    /* the largest plan's peak per GPU (one array at a time) */
  guint   moved_arrays;
  guint   optimizer_shards; /* data-parallel ranks sharing each optimizer array (ZeRO >= 1) */
  guint   weight_shards;    /* ... each weight (ZeRO-3) */
} PlxReshardModel;

/* Each block's parameters stacked over the blocks that hold them - a matmul's k x n
 * weight and its bias, norm gains - with the layer dimension over PP `pp_from` and
 * the tensor-parallel dimension over `tp_from`, planned to the same over the `_to`
 * degrees; and the first and last stage's own parameters (embeddings, final norm,
 * the LM head or the tied embedding's copy) from the old end stage's GPUs to the new
 * one's. With `optimizer`, every one's fp32 master copy and Adam moments too. The
 * GPUs of a copy stay as many (tp x pp), and one PP degree must divide the other;
 * else an error naming them. A MoE model's experts, all in each copy. */
PlxReshardModel *plx_reshard_model (const PlxModel   *model,
                                    const PlxCluster *cluster,
                                    guint             tp_from,
                                    guint             pp_from,
                                    guint             tp_to,
                                    guint             pp_to,
                                    gboolean          optimizer,
                                    GError          **error);
/* The same for a scenario's checkpoint, from its strategy's TP x PP: with ZeRO
 * stage 1 or more each optimizer array is shared by the data-parallel ranks of a
 * shard group (dp, or shard_group_size), each moving its slice; with stage 3 each
 * weight too; with expert parallelism each rank moves its own experts
 * (docs/reshard.md, "Whole models"). */
PlxReshardModel *plx_reshard_scenario (const PlxScenario *scenario,
                                       guint              tp_to,
                                       guint              pp_to,
                                       gboolean           optimizer,
                                       GError           **error);
void             plx_reshard_array_clear (PlxReshardArray *array);
void             plx_reshard_model_free (PlxReshardModel *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxReshardModel, plx_reshard_model_free)

G_END_DECLS
