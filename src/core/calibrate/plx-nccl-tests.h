/* plx-nccl-tests.h: the text NVIDIA nccl-tests print (all_reduce_perf, all_gather_perf,
 * reduce_scatter_perf, alltoall_perf, sendrecv_perf), and the collective curves of a
 * cluster fitted to it (issue 15; docs/calibration.md "From nccl-tests"). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "hardware/plx-collective.h"

G_BEGIN_DECLS

typedef struct
{
  double  bytes;          /* the "size" column */
  double  oop_time_s;     /* out-of-place time; NAN where the file says N/A */
  double  oop_busbw_Bps;
  double  ip_time_s;      /* in-place */
  double  ip_busbw_Bps;
  guint   line;           /* in the file, for messages */
} PlxNcclRow;

typedef struct
{
  char              *test;          /* "all_reduce_perf", ... */
  PlxCollectiveKind  kind;
  guint              n_ranks;       /* "#  Rank" lines listed; 0 if none */
  guint              n_hosts;       /* distinct hosts they name; 0 if none */
  GArray            *rows;          /* PlxNcclRow, in file order */
  double             avg_busbw_Bps; /* "# Avg bus bandwidth"; NAN if absent */
} PlxNcclTable;

typedef struct
{
  char      *source;  /* the file name, for messages */
  GPtrArray *tables;  /* PlxNcclTable *: one per test in the file */
} PlxNcclFile;

/* Parses nccl-tests stdout. The test comes from "# Collective test starting: NAME"
 * or, for versions that do not print it, from the file name. Bad input: a
 * PLX_ERROR naming `source`, the line and the value. */
PlxNcclFile *plx_nccl_file_parse (const char  *text,
                                  gsize        length,
                                  const char  *source,
                                  GError     **error);
PlxNcclFile *plx_nccl_file_load (const char  *path,
                                 GError     **error);
void         plx_nccl_file_free (PlxNcclFile *file);
/* The time the fit uses: the smaller of the in-place and out-of-place times. */
double       plx_nccl_row_time_s (const PlxNcclRow *row);

typedef struct
{
  double bytes;
  double measured_time_s;
  double measured_busbw_Bps;  /* of the chosen (faster) column */
  double efficiency;          /* that makes the model reproduce the time, on the fitted link */
  double curve_bytes;         /* where on the link's curve the model reads it (the message, bytes/p for
                               * all-to-all, the shard for a hierarchical all-reduce) */
  double model_time_s;        /* plx_collective_time with the written cluster's link curve (its
                               * collectives' own curves left out) */
  double residual_pct;        /* (model - measured) / measured * 100 */
  double own_model_time_s;    /* with the op's own curve (efficiency_by_collective), as written;
                               * NAN where the op has none */
  double own_residual_pct;
} PlxNcclPoint;

typedef struct
{
  char              *source;
  char              *test;
  PlxCollectiveKind  kind;
  GArray            *points;             /* PlxNcclPoint */
  guint              latency_rows;       /* rows in the line fit; 0: not fitted */
  double             latency_s;          /* per ring step: intercept / steps */
  double             latency_std_error_s;
  gboolean           own_curve;          /* its kind has its own curve in the written cluster */
} PlxNcclOpFit;

typedef struct
{
  gboolean   inter_node;     /* the link fitted: inter_node if the group spans nodes */
  PlxGroup   group;
  double     bw_Bps;         /* the link's peak as written (raised to the best measured busbw if that is higher) */
  gboolean   latency_fitted;
  double     latency_s;      /* as written */
  double     latency_std_error_s;
  GPtrArray *ops;            /* PlxNcclOpFit * */
  double     max_abs_residual_pct;          /* against the link curve */
  double     max_abs_residual_written_pct;  /* with each op's own curve where it has one */
  guint      joint_iterations;
  guint      repeat_pairs;   /* curve sizes timed both out of place and in place */
  double     repeat_spread;  /* sqrt(sum (ln t_oop / t_ip)^2 / 2 pairs): one run's relative spread */  /* of the joint refinement (docs/calibration.md) */
  JsonNode  *cluster;        /* the cluster file to write */
} PlxNcclFit;

/* Fits the link the files measured (intra-node for one node, inter-node for
 * several) on the cluster `base` (a cluster JSON object): per size the efficiency that
 * makes plx_collective_time reproduce the measured time, the per-step latency from a
 * least-squares line over the sizes up to 64 KiB; then every knot and that latency
 * refined together against every measured time. */
PlxNcclFit *plx_nccl_fit (JsonNode           *base,
                          const char         *base_source,
                          PlxNcclFile *const *files,
                          guint               n_files,
                          guint               gpus_per_node,
                          guint               nodes,
                          GError            **error);
void        plx_nccl_fit_free (PlxNcclFit *fit);
char       *plx_nccl_fit_to_text (const PlxNcclFit *fit);
JsonNode   *plx_nccl_fit_to_json (const PlxNcclFit *fit);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxNcclFile, plx_nccl_file_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxNcclFit, plx_nccl_fit_free)

/* A copy of fit->cluster with the fitted link's latency_s as {"mean": latency,
 * "sd": its standard error} (when fitted) and, when the files repeat each size
 * (in place and out of place), the link's curve scale as {"mean": 1, "sd": the
 * repeats' relative spread}: calibration.network_scale for the inter-node link,
 * intra_node.bw_Bps {"mean": peak, "sd": peak x spread} for NVLink (it has no
 * scale of its own). */
JsonNode *plx_nccl_fit_uncertain_cluster (const PlxNcclFit *fit);

G_END_DECLS
