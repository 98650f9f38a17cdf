/* plx-kineto-match.h: a profiler trace's GEMMs matched by shape to the GEMMs a
 * scenario's matmul ops run on one GPU, and the matches written into a cluster as
 * gpu.measured_gemms (issue 15; DistSim, Lu et al. 2023, §4; docs/calibration.md
 * "Measured GEMMs in place of the roofline"). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "parallax/plx-cluster.h"
#include "plx-kineto.h"
#include "parallax/plx-model.h"
#include "cost/plx-op-cost.h"
#include "parallax/plx-strategy.h"

G_BEGIN_DECLS

/* One product of one GEMM of a scenario's matmul op. */
typedef struct
{
  const char     *op;          /* the model's op ("qkv_proj"); static */
  const char     *part;        /* "block", "before blocks", "after blocks"; static */
  PlxGemmProduct  product;
  double          m, k, n;     /* m x k by k x n, k contracted, on one GPU */
  PlxDtype        dtype;
  double          per_op;      /* GEMMs of this shape per op and micro-batch (kernels x count) */
  double          roofline_s;  /* one GEMM by the cluster's curves, as the op cost charges it */
  double          measured_s;  /* the median of the matching trace GEMMs; 0: none matched */
  guint           instances;   /* trace GEMMs of that shape */
} PlxGemmMatchRow;

/* A distinct GEMM shape of the trace. */
typedef struct
{
  char     *op;          /* the first instance's op ("aten::mm") */
  double    m, k, n;     /* m <= n */
  double    batch;       /* > 1: a batched GEMM (bmm), never matched */
  PlxDtype  dtype;       /* the tensors' type */
  guint     instances;
  double    median_s;
  double    total_s;
  gboolean  matched;
} PlxTraceGemm;

typedef struct
{
  GArray *rows;               /* PlxGemmMatchRow, in the model's op order */
  GArray *trace;              /* PlxTraceGemm, the longest total time first */
  guint   gemms_without_dims; /* trace GEMM ops without usable "Input Dims" */
} PlxGemmMatch;

/* The scenario (training) lists its GEMMs with the cluster's op-cost context; each
 * takes the median time of the trace's GEMMs of its shape and dtype. */
PlxGemmMatch *plx_gemm_match (const PlxKinetoTrace *trace,
                              const PlxModel       *model,
                              const PlxCluster     *cluster,
                              const PlxStrategy    *strategy,
                              GError              **error);
void          plx_gemm_match_free (PlxGemmMatch *match);
/* The scenario's GEMM products (PlxGemmMatchRow) with the time the cluster's
 * gpu.measured_gemms gives each (0: none, the roofline), as the op cost uses them;
 * NULL when the cluster has no table or the workload is not training. */
GArray       *plx_gemm_match_cluster_table (const PlxModel    *model,
                                            const PlxCluster  *cluster,
                                            const PlxStrategy *strategy);
/* The distinct matched shapes as cluster.gpu.measured_gemms entries. */
JsonNode     *plx_gemm_match_table_json (const PlxGemmMatch *match);
/* `cluster_json` (complete: no preset left to expand) with gpu.measured_gemms set to
 * the matches and a line under sources; checked to read back. */
gboolean      plx_gemm_match_write_cluster (JsonNode           *cluster_json,
                                            const PlxGemmMatch *match,
                                            const char         *trace_name,
                                            GError            **error);
const char   *plx_gemm_product_to_string (PlxGemmProduct product);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxGemmMatch, plx_gemm_match_free)

G_END_DECLS
