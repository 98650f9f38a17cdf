/* plx-measured-gemm.h: a cluster's table of measured GEMM times (cluster key
 * gpu.measured_gemms, written by `calibrate --kineto TRACE --scenario S`), which the
 * op cost uses in place of the roofline for GEMMs of a measured shape (DistSim, Lu et
 * al. 2023, §4: profile each op, compose the step from the profiles;
 * docs/calibration.md "Measured GEMMs in place of the roofline"). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "plx-types.h"

G_BEGIN_DECLS

/* One GEMM shape: an m x k by k x n product, k the contracted size. m and n are
 * stored as min and max: a transposed output is the same GEMM. */
typedef struct
{
  guint64  k;
  guint64  m;
  guint64  n;
  PlxDtype dtype;     /* the tensors' type (a float GEMM on TF32 tensor cores is fp32) */
  double   time_s;    /* one GEMM's kernels: the median of the measured instances */
  guint64  count;     /* how many instances the median is of (provenance) */
} PlxMeasuredGemm;

/* The table under gpu.measured_gemms, sorted for lookup; NULL with *n_out = 0 when
 * the key is absent or the list empty. Every entry is checked: a bad one is an error
 * naming the source, the entry, the key and the value. */
gboolean plx_measured_gemms_parse (JsonObject       *gpu,
                                   const char       *source,
                                   PlxMeasuredGemm **out,
                                   guint            *n_out,
                                   GError          **error);
/* The measured time of one m x k by k x n GEMM (k contracted) in `dtype`; 0 when the
 * table has no such shape or a size is not a whole number. Binary search. */
double   plx_measured_gemm_time (const PlxMeasuredGemm *table,
                                 guint                  n,
                                 PlxDtype               dtype,
                                 double                 m,
                                 double                 k,
                                 double                 n_cols);
/* The one order of GEMM shapes: by dtype, then k, m and n (m <= n). The table is
 * sorted by it; calibrate's trace GEMMs are grouped by it (plx-kineto-match.c). */
int      plx_gemm_shape_compare (PlxDtype dtype_a,
                                 double   k_a,
                                 double   m_a,
                                 double   n_a,
                                 PlxDtype dtype_b,
                                 double   k_b,
                                 double   m_b,
                                 double   n_b);
/* The dtypes a table may name: the tensors' types of training (not tf32). */
gboolean plx_measured_gemm_dtype_from_string (const char *name,
                                              PlxDtype   *dtype);

G_END_DECLS
