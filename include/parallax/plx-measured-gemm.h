/**
 * SECTION:plx-measured-gemm
 * @title: plx-measured-gemm.h
 * @short_description: a cluster's table of measured GEMM times
 *
 * A cluster's table of measured GEMM times (cluster key gpu.measured_gemms, written
 * by `calibrate --kineto TRACE --scenario S`), which the op cost uses in place of the
 * roofline for GEMMs of a measured shape (DistSim, Lu et al. 2023, §4: profile each
 * op, compose the step from the profiles; docs/calibration.md "Measured GEMMs in
 * place of the roofline").
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "plx-types.h"

G_BEGIN_DECLS

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

G_END_DECLS
