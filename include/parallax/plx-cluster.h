/* plx-cluster.h: GPUs, how fast they really run, and the links between them. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "plx-curve.h"
#include "plx-measured-gemm.h"
#include "plx-types.h"

G_BEGIN_DECLS

/* The collectives a link may carry a curve of its own for (a cluster file's
 * efficiency_by_collective); plx-collective.h costs them. */
#define PLX_N_COLLECTIVE_KINDS 5

typedef enum
{
  PLX_COLLECTIVE_ALL_REDUCE,
  PLX_COLLECTIVE_ALL_GATHER,
  PLX_COLLECTIVE_REDUCE_SCATTER,
  PLX_COLLECTIVE_ALL_TO_ALL,
  PLX_COLLECTIVE_SEND_RECV,
} PlxCollectiveKind;

/* Each kind's name as files spell it ("all_reduce", ... "send_recv"), by kind; NULL
 * after the last. */
extern const char *const plx_collective_kind_names[PLX_N_COLLECTIVE_KINDS + 1];


typedef struct
{
  char     *name;
  double    bw_Bps;      /* per GPU, per direction */
  double    latency_s;   /* per message / per ring step */
  PlxCurve *efficiency;  /* achieved bus bandwidth / bw_Bps against collective size in bytes */
  /* A collective's own curve (efficiency_by_collective; on H100 NVSwitch all-reduce
   * runs NVLink SHARP, faster than the ring all-gather), indexed by
   * PlxCollectiveKind; NULL: `efficiency`. */
  PlxCurve *efficiency_by_collective[PLX_N_COLLECTIVE_KINDS];
  double    scale;       /* calibration factor on every curve of the link (1: as measured) */
} PlxLink;

typedef struct _PlxCluster
{
  char    *name;
  guint    num_nodes;
  guint    gpus_per_node;

  char    *gpu_name;
  double   peak_flops[PLX_N_DTYPES]; /* dense FLOP/s; 0 where the GPU lacks the dtype */
  guint64  hbm_bytes;
  double   hbm_bw_Bps;
  guint64  reserved_bytes;           /* CUDA context, workspaces, fragmentation */
  PlxCurve *matmul_efficiency;       /* achieved / peak FLOP/s against GEMM FLOPs */
  PlxCurve *memory_efficiency;       /* achieved / peak HBM bandwidth against bytes moved */
  PlxCurve *matmul_fp8_efficiency;   /* the same for fp8 GEMMs, against fp8 peak; NULL: derived
                                      * from the 16-bit curve (plx-op-cost.c) */
  /* TF32 and FP32 GEMMs against their own peaks, where a sweep or trace measured
   * them (never scaled by matmul_scale); NULL: the 16-bit curve's shape. */
  PlxCurve *matmul_tf32_efficiency;
  PlxCurve *matmul_fp32_efficiency;
  double   kernel_launch_s;
  /* Fused attention kernels (FlashAttention): the fraction of the dense 16-bit peak
   * they reach at long sequences, forward and backward together - Transformer
   * Engine's (cuDNN) for Megatron code, PyTorch's scaled_dot_product_attention for
   * PyTorch code; 0: no cap beyond the matmul curve. */
  double   attention_efficiency;
  double   attention_efficiency_pytorch;
  /* The file gave no attention_pytorch: it is attention's value, and a draw or a
   * perturbation of attention moves it too (docs/uncertainty.md). */
  gboolean attention_pytorch_follows;
  /* Power and clock (docs/cost-model.md, "Power caps and locked clocks"): the board
   * power the curves were measured at, the cap it runs under, the power it draws
   * whatever the clock (leakage, HBM, board), the boost clock the curves ran at and a
   * locked clock; 0 where not given. compute_clock_factor: the tensor cores' clock
   * under these, over the clock the curves ran at (1: as measured). */
  double   tdp_w;
  double   power_limit_w;
  double   static_power_w;
  double   boost_clock_mhz;
  double   clock_mhz;
  double   compute_clock_factor;
  /* Calibration (parallax-cli calibrate, docs/calibration.md): factors on the
   * measured matmul and memory curves (capped at 1), and a fixed time per block and
   * forward pass (twice that in backward); 1, 1 and 0 unless fitted. overlap_slowdown:
   * the fraction by which compute slows while a collective it overlaps runs beside it
   * (the collective's kernels hold SMs and HBM bandwidth); 0 unless fitted. */
  double   matmul_scale;
  double   memory_scale;
  double   layer_overhead_s;
  double   overlap_slowdown;
  /* GEMM times measured on this cluster (gpu.measured_gemms), sorted: an op's GEMM of
   * a listed shape takes the measured time instead of the roofline's (plx-op-cost.c);
   * NULL, 0: none, the roofline everywhere. */
  PlxMeasuredGemm *measured_gemms;
  guint            n_measured_gemms;

  PlxLink  intra_node;
  PlxLink  inter_node;

  /* Inputs the file gave as a range or distribution (PlxUncertainInput,
   * plx-uncertainty.h), each set above to its midpoint or mean; NULL if none.
   * Shared, read-only, between copies. */
  GPtrArray *uncertain;
} PlxCluster;

PlxCluster *plx_cluster_new_from_json (JsonNode   *node,
                                       const char *source,
                                       GError    **error);
PlxCluster *plx_cluster_new_preset (const char *name,
                                    GError    **error);
PlxCluster *plx_cluster_copy (const PlxCluster *cluster);
void        plx_cluster_free (PlxCluster *cluster);
/* The most nodes, and GPUs, a cluster file may give: what the reader accepts, and so
 * the most a node count that advice proposes may have. */
#define PLX_CLUSTER_MAX_NODES 1000000
#define PLX_CLUSTER_MAX_GPUS 10000000

guint       plx_cluster_get_n_gpus (const PlxCluster *cluster);
/* The tensor cores' clock under a power cap and a locked clock, over the clock at the
 * board's full power and boost clock, at which the efficiency curves were measured. */
double      plx_cluster_clock_factor (double tdp_w,
                                      double power_limit_w,
                                      double static_power_w,
                                      double boost_clock_mhz,
                                      double clock_mhz);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxCluster, plx_cluster_free)

/* One numeric input of the cluster by its index (plx-cluster-inputs.h). */
double      plx_cluster_input_get (const PlxCluster *cluster,
                                   guint             input);
/* Sets one input and whatever the cluster derives from it (the clock factor). */
void        plx_cluster_input_set (PlxCluster *cluster,
                                   guint       input,
                                   double      value);

G_END_DECLS
