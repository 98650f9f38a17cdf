/* plx-cluster-inputs.h: the numeric inputs of a cluster file by name, and the ranges
 * and distributions that may stand in for them (docs/uncertainty.md). JSON-level: the
 * loader (plx-cluster.c) strips the distributions with plx_uncertainty_extract before
 * it reads the cluster; plx_cluster_input_get/set (plx-cluster.h) read and write one
 * input of a PlxCluster. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* By the table's index: plx_cluster_input_path gives each one's path. */
typedef enum
{
  PLX_CLUSTER_IN_PEAK_BF16, PLX_CLUSTER_IN_PEAK_FP16, PLX_CLUSTER_IN_PEAK_FP8, PLX_CLUSTER_IN_PEAK_FP32, PLX_CLUSTER_IN_PEAK_TF32,
  PLX_CLUSTER_IN_HBM_BYTES, PLX_CLUSTER_IN_HBM_BW, PLX_CLUSTER_IN_RESERVED,
  PLX_CLUSTER_IN_KERNEL_LAUNCH, PLX_CLUSTER_IN_ATTENTION, PLX_CLUSTER_IN_ATTENTION_PYTORCH,
  PLX_CLUSTER_IN_TDP, PLX_CLUSTER_IN_STATIC_POWER, PLX_CLUSTER_IN_POWER_LIMIT, PLX_CLUSTER_IN_BOOST_CLOCK, PLX_CLUSTER_IN_CLOCK,
  PLX_CLUSTER_IN_INTRA_BW, PLX_CLUSTER_IN_INTRA_LATENCY, PLX_CLUSTER_IN_INTER_BW, PLX_CLUSTER_IN_INTER_LATENCY,
  PLX_CLUSTER_IN_MATMUL_SCALE, PLX_CLUSTER_IN_MEMORY_SCALE, PLX_CLUSTER_IN_NETWORK_SCALE, PLX_CLUSTER_IN_LAYER_OVERHEAD, PLX_CLUSTER_IN_OVERLAP_SLOWDOWN,
  PLX_N_CLUSTER_INPUTS
} PlxClusterInputId;

/* The numeric cluster inputs by their path in the cluster file ("inter_node.bw_Bps",
 * "calibration.matmul_scale"): a fixed table, indexed 0 .. plx_cluster_input_count () - 1. */
guint       plx_cluster_input_count (void);
const char *plx_cluster_input_path (guint input);
/* -1 if the path (without "cluster.") names no numeric input. */
gint        plx_cluster_input_find (const char *path);
/* The largest value the loader admits for an input. */
double      plx_cluster_input_max (guint input);

typedef enum
{
  PLX_DIST_UNIFORM, /* {"min": a, "max": b} */
  PLX_DIST_NORMAL,  /* {"mean": m, "sd": s}, truncated to the input's admissible range */
} PlxDistKind;

typedef struct
{
  guint       input;  /* index into the table above */
  PlxDistKind kind;
  double      a, b;   /* min and max, or mean and sd */
  double      lo, hi; /* the range the loader admits for the input */
} PlxUncertainInput;

/* The value every deterministic command uses: the midpoint or the mean. */
double plx_uncertain_input_nominal (const PlxUncertainInput *in);
/* The inverse CDF at u in (0, 1): a draw from the distribution for a uniform u. */
double plx_uncertain_input_quantile (const PlxUncertainInput *in,
                                     double                   u);

/* A copy of the (preset-merged) cluster object with every distribution replaced by
 * its nominal value; the distributions are appended to `inputs` (PlxUncertainInput,
 * g_free). Refuses by name: a distribution on a whole-number key or on a key that is
 * not a numeric input, min > max, sd < 0, non-finite bounds, bounds outside what the
 * loader admits. */
JsonNode *plx_uncertainty_extract (JsonNode   *cluster,
                                   const char *source,
                                   GPtrArray  *inputs,
                                   GError    **error);

G_END_DECLS
