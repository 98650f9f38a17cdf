/**
 * SECTION:plx-curve
 * @title: plx-curve.h
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
#pragma once

#include <glib.h>

G_BEGIN_DECLS

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

G_END_DECLS
