/**
 * SECTION:plx-cluster
 * @title: plx-cluster.h
 * @short_description: GPUs, how fast they really run, and the links between them
 *
 * GPUs, how fast they really run, and the links between them.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "plx-types.h"

G_BEGIN_DECLS

/**
 * SECTION:plx-curve
 * @title: A measured efficiency curve y(x)
 * @include: parallax/plx-cluster.h
 * @short_description: a measured efficiency curve y(x), interpolated in log2(x)
 *
 * A measured efficiency curve y(x), interpolated in log2(x).
 *
 * Kernel and collective efficiencies are published as tables against a size that
 * spans many decades (FLOPs, bytes); interpolating in log(x) with a monotone
 * Steffen spline (GSL) keeps the curve between its measured points. Outside the
 * table the end values hold. A curve is immutable once made and may be shared
 * between threads: plx_curve_eval keeps its memo of recent lookups per thread
 * (docs/performance.md).
 */
/**
 * PlxCurve:
 *
 * An efficiency curve: its measured points and their interpolation. Opaque.
 */
typedef struct _PlxCurve PlxCurve;

/**
 * plx_curve_new:
 * @x: (array length=n): the sizes, positive, finite and strictly increasing
 * @y: (array length=n): the efficiency at each size, in (0, 1]
 * @n: the number of points, at least 1
 * @error: return location for a #GError, or %NULL
 *
 * Makes a curve through the points (copied). With one point the curve is that
 * constant; with two or more it is a Steffen spline in log2(x) (linear when GSL
 * needs more points for Steffen).
 *
 * Returns: (transfer full) (nullable): the curve, or %NULL with a
 *   %PLX_ERROR_INVALID_VALUE error naming the first bad point
 */
PlxCurve *plx_curve_new (const double *x,
                         const double *y,
                         gsize         n,
                         GError      **error);
/**
 * plx_curve_copy:
 * @curve: (nullable): a curve
 *
 * Returns: (transfer full) (nullable): a new curve through the same points; %NULL
 *   for %NULL
 */
PlxCurve *plx_curve_copy (const PlxCurve *curve);
/**
 * plx_curve_free:
 * @curve: (transfer full) (nullable): a curve
 *
 * Frees @curve.
 */
void      plx_curve_free (PlxCurve *curve);
/**
 * plx_curve_eval:
 * @curve: a curve
 * @x: a size
 *
 * Returns: the efficiency at @x: interpolated in log2(@x) inside the table, the
 *   first or last point's value outside it
 */
double    plx_curve_eval (const PlxCurve *curve,
                          double          x);
/**
 * plx_curve_get_n_points:
 * @curve: a curve
 *
 * Returns: the number of measured points
 */
gsize     plx_curve_get_n_points (const PlxCurve *curve);
/**
 * plx_curve_get_point:
 * @curve: a curve
 * @i: the point's index, below plx_curve_get_n_points()
 * @x: (out): the point's size
 * @y: (out): the point's efficiency
 *
 * Reads the @i-th measured point.
 */
void      plx_curve_get_point (const PlxCurve *curve,
                               gsize           i,
                               double         *x,
                               double         *y);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxCurve, plx_curve_free)

/**
 * SECTION:plx-measured-gemm
 * @title: A cluster's table of measured GEMM times
 * @include: parallax/plx-cluster.h
 * @short_description: a cluster's table of measured GEMM times
 *
 * A cluster's table of measured GEMM times (cluster key gpu.measured_gemms, written
 * by `calibrate --kineto TRACE --scenario S`), which the op cost uses in place of the
 * roofline for GEMMs of a measured shape (DistSim, Lu et al. 2023, §4: profile each
 * op, compose the step from the profiles; docs/calibration.md "Measured GEMMs in
 * place of the roofline").
 */
/**
 * PlxMeasuredGemm:
 * @k: the contracted size
 * @m: the smaller of the two other sizes
 * @n: the larger of the two other sizes
 * @dtype: the tensors' type (a float GEMM on TF32 tensor cores is fp32)
 * @time_s: one GEMM's kernels, in seconds: the median of the measured instances
 * @count: how many instances the median is of (provenance)
 *
 * One GEMM shape: an m x k by k x n product, k the contracted size. m and n are
 * stored as min and max: a transposed output is the same GEMM.
 */
typedef struct
{
  guint64  k;
  guint64  m;
  guint64  n;
  PlxDtype dtype;
  double   time_s;
  guint64  count;
} PlxMeasuredGemm;

/**
 * plx_measured_gemms_parse:
 * @gpu: the cluster's gpu object
 * @source: the file named in errors
 * @out: (out) (transfer full) (array length=n_out) (nullable): the table, sorted
 *   for lookup; free with g_free()
 * @n_out: (out): the number of entries
 * @error: return location for a #GError, or %NULL
 *
 * Reads the table under gpu.measured_gemms: %NULL with *@n_out = 0 when the key is
 * absent or the list empty. Every entry is checked: a bad one is an error naming
 * the source, the entry, the key and the value; a shape listed twice is a
 * %PLX_ERROR_INCONSISTENT error.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 */
gboolean plx_measured_gemms_parse (JsonObject       *gpu,
                                   const char       *source,
                                   PlxMeasuredGemm **out,
                                   guint            *n_out,
                                   GError          **error);
/**
 * plx_measured_gemm_time:
 * @table: (array length=n): a table from plx_measured_gemms_parse()
 * @n: the number of entries of @table
 * @dtype: the tensors' type
 * @m: the rows of the first operand
 * @k: the contracted size
 * @n_cols: the columns of the second operand
 *
 * Looks up one m x k by k x n GEMM (k contracted) in @dtype, by binary search.
 *
 * Returns: the measured time in seconds; 0 when the table has no such shape or a
 *   size is not a whole number
 */
double   plx_measured_gemm_time (const PlxMeasuredGemm *table,
                                 guint                  n,
                                 PlxDtype               dtype,
                                 double                 m,
                                 double                 k,
                                 double                 n_cols);

/**
 * plx_gemm_shape_compare:
 * @dtype_a: the first shape's dtype
 * @k_a: its inner dimension
 * @m_a: its smaller outer dimension
 * @n_a: its larger outer dimension
 * @dtype_b: the second shape's dtype
 * @k_b: its inner dimension
 * @m_b: its smaller outer dimension
 * @n_b: its larger outer dimension
 *
 * The one order of GEMM shapes: by dtype, then k, m and n (m <= n). The table is
 * sorted by it; calibrate's trace GEMMs are grouped by it (plx-kineto-match.c).
 *
 * Returns: negative, zero or positive as the first shape sorts before, with or after
 *   the second
 */
int      plx_gemm_shape_compare (PlxDtype dtype_a,
                                 double   k_a,
                                 double   m_a,
                                 double   n_a,
                                 PlxDtype dtype_b,
                                 double   k_b,
                                 double   m_b,
                                 double   n_b);

/**
 * plx_measured_gemm_dtype_from_string:
 * @name: a dtype's name
 * @dtype: (out): the dtype, set when @name is a dtype's name
 *
 * Reads the dtypes a table may name: the tensors' types of training (not tf32).
 *
 * Returns: whether @name names one of them
 */
gboolean plx_measured_gemm_dtype_from_string (const char *name,
                                              PlxDtype   *dtype);

/**
 * PLX_N_COLLECTIVE_KINDS:
 *
 * The number of #PlxCollectiveKind values.
 */
#define PLX_N_COLLECTIVE_KINDS 5

/**
 * PlxCollectiveKind:
 * @PLX_COLLECTIVE_ALL_REDUCE: all-reduce, "all_reduce"
 * @PLX_COLLECTIVE_ALL_GATHER: all-gather, "all_gather"
 * @PLX_COLLECTIVE_REDUCE_SCATTER: reduce-scatter, "reduce_scatter"
 * @PLX_COLLECTIVE_ALL_TO_ALL: all-to-all, "all_to_all"
 * @PLX_COLLECTIVE_SEND_RECV: point-to-point send and receive, "send_recv"
 *
 * The collectives a link may carry a curve of its own for (a cluster file's
 * efficiency_by_collective); plx-collective.h costs them.
 */
typedef enum
{
  PLX_COLLECTIVE_ALL_REDUCE,
  PLX_COLLECTIVE_ALL_GATHER,
  PLX_COLLECTIVE_REDUCE_SCATTER,
  PLX_COLLECTIVE_ALL_TO_ALL,
  PLX_COLLECTIVE_SEND_RECV,
} PlxCollectiveKind;

/**
 * plx_collective_kind_names:
 *
 * Each kind's name as files spell it ("all_reduce", ... "send_recv"), by kind; %NULL
 * after the last.
 */
extern const char *const plx_collective_kind_names[PLX_N_COLLECTIVE_KINDS + 1];

/**
 * PlxLink:
 * @name: the link's name, as the cluster file gives it
 * @bw_Bps: bandwidth in bytes a second, per GPU, per direction
 * @latency_s: per message / per ring step
 * @bulk_latency_s: per ring step of a large message, in the protocol NCCL picks for
 *   those (Simple); @latency_s where the file does not give it
 * @efficiency: achieved bus bandwidth / @bw_Bps against collective size in bytes
 * @efficiency_by_collective: a collective's own curve (efficiency_by_collective; on
 *   H100 NVSwitch all-reduce runs NVLink SHARP, faster than the ring all-gather),
 *   indexed by #PlxCollectiveKind; %NULL: @efficiency
 * @scale: calibration factor on every curve of the link (1: as measured)
 *
 * The link between GPUs of one node, or between nodes.
 */
typedef struct
{
  char     *name;
  double    bw_Bps;
  double    latency_s;
  double    bulk_latency_s;
  PlxCurve *efficiency;
  PlxCurve *efficiency_by_collective[PLX_N_COLLECTIVE_KINDS];
  double    scale;
} PlxLink;

/**
 * PlxCluster:
 * @name: the cluster's name, "custom cluster" when the file gives none
 * @num_nodes: the nodes
 * @gpus_per_node: the GPUs of each node
 * @gpu_name: the GPU's name
 * @peak_flops: dense FLOP/s by #PlxDtype; 0 where the GPU lacks the dtype
 * @hbm_bytes: one GPU's HBM capacity
 * @hbm_bw_Bps: one GPU's HBM bandwidth in bytes a second
 * @reserved_bytes: CUDA context, workspaces, fragmentation
 * @matmul_efficiency: achieved / peak FLOP/s against GEMM FLOPs
 * @memory_efficiency: achieved / peak HBM bandwidth against bytes moved
 * @matmul_fp8_efficiency: the same for fp8 GEMMs, against fp8 peak; %NULL: derived
 *   from the 16-bit curve (plx-op-cost.c)
 * @matmul_tf32_efficiency: TF32 GEMMs against their own peak, where a sweep or trace
 *   measured them (never scaled by @matmul_scale); %NULL: the 16-bit curve's shape
 * @matmul_fp32_efficiency: the same for FP32 GEMMs
 * @kernel_launch_s: the time to launch one kernel
 * @attention_efficiency: fused attention kernels (FlashAttention): the fraction of
 *   the dense 16-bit peak they reach at long sequences, forward and backward
 *   together - Transformer Engine's (cuDNN) for Megatron code; 0: no cap beyond the
 *   matmul curve
 * @attention_efficiency_pytorch: the same for PyTorch's
 *   scaled_dot_product_attention, for PyTorch code
 * @attention_pytorch_follows: the file gave no attention_pytorch: it is attention's
 *   value, and a draw or a perturbation of attention moves it too
 *   (docs/uncertainty.md)
 * @tdp_w: the board power the curves were measured at
 * @power_limit_w: the cap it runs under
 * @static_power_w: the power it draws whatever the clock (leakage, HBM, board)
 * @boost_clock_mhz: the boost clock the curves ran at
 * @clock_mhz: a locked clock
 * @compute_clock_factor: the tensor cores' clock under these, over the clock the
 *   curves ran at (1: as measured)
 * @matmul_scale: calibration factor on the measured matmul curves (capped at 1)
 * @memory_scale: calibration factor on the measured memory curve (capped at 1)
 * @layer_overhead_s: a fixed time per block and forward pass (twice that in
 *   backward)
 * @overlap_slowdown: the fraction by which compute slows while a collective it
 *   overlaps runs beside it (the collective's kernels hold SMs and HBM bandwidth)
 * @measured_gemms: (array length=n_measured_gemms): GEMM times measured on this
 *   cluster (gpu.measured_gemms), sorted: an op's GEMM of a listed shape takes the
 *   measured time instead of the roofline's (plx-op-cost.c); %NULL, 0: none, the
 *   roofline everywhere
 * @n_measured_gemms: the entries of @measured_gemms
 * @intra_node: the link between GPUs of one node
 * @inter_node: the link between nodes
 * @uncertain: inputs the file gave as a range or distribution (PlxUncertainInput,
 *   plx-uncertainty.h), each set above to its midpoint or mean; %NULL if none.
 *   Shared, read-only, between copies.
 *
 * GPUs, how fast they really run, and the links between them. Power and clock
 * (@tdp_w to @clock_mhz; docs/cost-model.md, "Power caps and locked clocks") are 0
 * where not given. Calibration (parallax-cli calibrate, docs/calibration.md): the
 * scales, the overhead and the slowdown are 1, 1, 0 and 0 unless fitted.
 */
typedef struct _PlxCluster
{
  char    *name;
  guint    num_nodes;
  guint    gpus_per_node;

  char    *gpu_name;
  double   peak_flops[PLX_N_DTYPES];
  guint64  hbm_bytes;
  double   hbm_bw_Bps;
  guint64  reserved_bytes;
  PlxCurve *matmul_efficiency;
  PlxCurve *memory_efficiency;
  PlxCurve *matmul_fp8_efficiency;
  PlxCurve *matmul_tf32_efficiency;
  PlxCurve *matmul_fp32_efficiency;
  double   kernel_launch_s;
  double   attention_efficiency;
  double   attention_efficiency_pytorch;
  gboolean attention_pytorch_follows;
  double   tdp_w;
  double   power_limit_w;
  double   static_power_w;
  double   boost_clock_mhz;
  double   clock_mhz;
  double   compute_clock_factor;
  double   matmul_scale;
  double   memory_scale;
  double   layer_overhead_s;
  double   overlap_slowdown;
  PlxMeasuredGemm *measured_gemms;
  guint            n_measured_gemms;

  PlxLink  intra_node;
  PlxLink  inter_node;

  GPtrArray *uncertain;
} PlxCluster;

/**
 * plx_cluster_new_from_json:
 * @node: a cluster object: a "preset" and keys over it, or every key
 * @source: the name of the file in errors
 * @error: return location for a #GError, or %NULL
 *
 * Builds a cluster from its JSON (FORMATS.md §1, cluster). Ranges and distributions
 * become their nominal values (docs/uncertainty.md).
 *
 * Returns: (transfer full) (nullable): the cluster, or %NULL with @error set naming
 *   the file, key and value
 */
PlxCluster *plx_cluster_new_from_json (JsonNode   *node,
                                       const char *source,
                                       GError    **error);
/**
 * plx_cluster_new_preset:
 * @name: a cluster preset's name
 * @error: return location for a #GError, or %NULL
 *
 * Returns: (transfer full) (nullable): the preset's cluster, or %NULL with @error set
 *   (%PLX_ERROR_NOT_FOUND for an unknown preset)
 */
PlxCluster *plx_cluster_new_preset (const char *name,
                                    GError    **error);
/**
 * plx_cluster_copy:
 * @cluster: a cluster
 *
 * Returns: (transfer full): an independent copy of @cluster (the uncertain inputs
 *   shared)
 */
PlxCluster *plx_cluster_copy (const PlxCluster *cluster);
/**
 * plx_cluster_free:
 * @cluster: (transfer full) (nullable): a cluster
 *
 * Frees @cluster.
 */
void        plx_cluster_free (PlxCluster *cluster);
/**
 * PLX_CLUSTER_MAX_NODES:
 *
 * The most nodes a cluster file may give: what the reader accepts, and so the most a
 * node count that advice proposes may have.
 */
#define PLX_CLUSTER_MAX_NODES 1000000
/**
 * PLX_CLUSTER_MAX_GPUS:
 *
 * The most GPUs a cluster file may give, as %PLX_CLUSTER_MAX_NODES.
 */
#define PLX_CLUSTER_MAX_GPUS 10000000

/**
 * plx_cluster_get_n_gpus:
 * @cluster: a cluster
 *
 * Returns: its GPUs: nodes times GPUs per node
 */
guint       plx_cluster_get_n_gpus (const PlxCluster *cluster);
/**
 * plx_cluster_clock_factor:
 * @tdp_w: the board power the curves were measured at; 0 if not given
 * @power_limit_w: the cap; 0 if none
 * @static_power_w: the power drawn whatever the clock; 0 if not given
 * @boost_clock_mhz: the boost clock the curves ran at; 0 if not given
 * @clock_mhz: a locked clock; 0 if none
 *
 * Returns: the tensor cores' clock under a power cap and a locked clock, over the
 *   clock at the board's full power and boost clock, at which the efficiency curves
 *   were measured
 */
double      plx_cluster_clock_factor (double tdp_w,
                                      double power_limit_w,
                                      double static_power_w,
                                      double boost_clock_mhz,
                                      double clock_mhz);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxCluster, plx_cluster_free)

/**
 * plx_cluster_input_get:
 * @cluster: a cluster
 * @input: an input's index (plx-cluster-inputs.h)
 *
 * Returns: one numeric input of the cluster by its index
 */
double      plx_cluster_input_get (const PlxCluster *cluster,
                                   guint             input);
/**
 * plx_cluster_input_set:
 * @cluster: a cluster
 * @input: an input's index (plx-cluster-inputs.h)
 * @value: its new value
 *
 * Sets one input and whatever the cluster derives from it (the clock factor).
 */
void        plx_cluster_input_set (PlxCluster *cluster,
                                   guint       input,
                                   double      value);

G_END_DECLS
