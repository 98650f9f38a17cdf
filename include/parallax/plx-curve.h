/* plx-curve.h: a measured efficiency curve y(x), interpolated in log2(x).
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

typedef struct _PlxCurve PlxCurve;

PlxCurve *plx_curve_new (const double *x,
                         const double *y,
                         gsize         n,
                         GError      **error);
PlxCurve *plx_curve_copy (const PlxCurve *curve);
void      plx_curve_free (PlxCurve *curve);
double    plx_curve_eval (const PlxCurve *curve,
                          double          x);
gsize     plx_curve_get_n_points (const PlxCurve *curve);
void      plx_curve_get_point (const PlxCurve *curve,
                               gsize           i,
                               double         *x,
                               double         *y);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxCurve, plx_curve_free)

G_END_DECLS
