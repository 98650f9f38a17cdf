/* plx-kineto.h: a PyTorch profiler (Kineto) Chrome trace read into kernels, each
 * linked to the CPU op that launched it and classed, and the measured GEMM and
 * memory-bound kernels folded into a cluster's efficiency curves (issue 15; DistSim,
 * Lu et al. 2023, §4: profile each op once, compose the step from the profiles;
 * docs/calibration.md "From a profiler trace"). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "parallax/plx-cluster.h"
#include "parallax/plx-types.h"

G_BEGIN_DECLS

typedef enum
{
  PLX_KERNEL_GEMM,
  PLX_KERNEL_ATTENTION,
  PLX_KERNEL_MEMORY,     /* elementwise, norms, softmax, reductions, copies */
  PLX_KERNEL_COLLECTIVE, /* NCCL */
  PLX_KERNEL_OTHER,
  PLX_N_KERNEL_CLASSES
} PlxKernelClass;

typedef struct
{
  char           *name;
  PlxKernelClass  kclass;
  guint           event_index;    /* in traceEvents */
  gint64          correlation;    /* -1: none */
  double          start_us;
  double          dur_us;
  gint            op;             /* index into PlxKinetoTrace.ops; -1: not linked */
  char           *collective;     /* NCCL's "Collective name" when the trace has it */
  double          message_bytes;  /* "In msg nelems" x the dtype's size; 0: unknown */
} PlxKernel;

/* One CPU op instance (aten::mm at one time) that launched at least one kernel. */
typedef struct
{
  char     *name;
  guint     event_index;
  double    flops;       /* from "Input Dims" for GEMMs; 0: unknown */
  double    bytes;       /* from "Input Dims" for elementwise ops; 0: unknown */
  PlxDtype  dtype;       /* of a GEMM: the tensor cores' mode */
  double    kernel_us;   /* its kernels' time, summed */
  guint     n_kernels;
  PlxKernelClass kclass; /* of its first kernel */
  /* A GEMM's shape from "Input Dims": batch products of m x k by k x n (k
   * contracted; leading dims of a linear's or matmul's input flattened into m); 0:
   * unknown. */
  double    gemm_m;
  double    gemm_k;
  double    gemm_n;
  double    gemm_batch;
} PlxKinetoOp;

typedef struct
{
  char   *source;
  guint   n_events;
  GArray *kernels;    /* PlxKernel */
  GArray *ops;        /* PlxKinetoOp */
  double  first_us;   /* first kernel's start */
  double  last_us;    /* last kernel's end */
} PlxKinetoTrace;

typedef struct
{
  guint  count;
  double total_us;
  double share;       /* of all kernels' time */
} PlxKernelClassSummary;

PlxKinetoTrace *plx_kineto_load (const char *path,
                                 GError    **error);
PlxKinetoTrace *plx_kineto_parse (JsonNode   *root,
                                  const char *source,
                                  GError    **error);
void            plx_kineto_trace_free (PlxKinetoTrace *trace);
const char     *plx_kernel_class_to_string (PlxKernelClass kclass);
void            plx_kineto_summarize (const PlxKinetoTrace  *trace,
                                      PlxKernelClassSummary  out[PLX_N_KERNEL_CLASSES]);

/* A measured point of an efficiency curve: size (FLOPs or bytes), achieved over peak,
 * and how many measurements it stands for. */
typedef struct
{
  double x;
  double y;
  double weight;
} PlxCurvePoint;

typedef struct
{
  GArray *matmul;          /* PlxCurvePoint: one per 16-bit GEMM op with known FLOPs */
  GArray *matmul_fp8;      /* the same for fp8, TF32 and FP32 GEMMs, each against its */
  GArray *matmul_tf32;     /* own peak and folded into its own curve */
  GArray *matmul_fp32;
  GArray *memory;          /* PlxCurvePoint: one per elementwise op with known bytes */
  guint   n_rejected;      /* points above the peak (wrong peak or dims): left out */
} PlxKinetoPoints;

/* No points yet (for points measured elsewhere). */
PlxKinetoPoints *plx_kineto_points_new (void);
PlxKinetoPoints *plx_kineto_points (const PlxKinetoTrace *trace,
                                    const PlxCluster     *cluster);
void             plx_kineto_points_free (PlxKinetoPoints *points);
/* The rule of docs/calibration.md: measured points grouped (within a factor of 2 in
 * size: geometric mean size, median efficiency), curve points within a factor of 2 of
 * a group dropped, the rest merged and made non-decreasing (weighted pool adjacent
 * violators). Returns PlxCurvePoint, sizes strictly increasing. */
GArray          *plx_curve_fold (const PlxCurve      *curve,
                                 const PlxCurvePoint *measured,
                                 gsize                n_measured);
/* `cluster_json` (a cluster file or preset) with gpu.efficiency.matmul (16-bit
 * GEMMs), matmul_fp8, matmul_tf32, matmul_fp32 and memory replaced by the folded
 * curves where the trace measured points for them, and a note in "sources". A curve
 * the cluster lacks (TF32, say) is made of the measured points alone. */
JsonNode        *plx_kineto_cluster_json (JsonNode              *cluster_json,
                                          const PlxKinetoPoints *points,
                                          const char            *trace_name,
                                          GError               **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxKinetoTrace, plx_kineto_trace_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxKinetoPoints, plx_kineto_points_free)

G_END_DECLS
