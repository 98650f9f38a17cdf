/* plx-sweep-fit.h: efficiency curves fitted to GEMM and memory-bandwidth sweeps,
 * written into a cluster file (docs/calibration.md "From GEMM and bandwidth
 * sweeps"). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "parallax/plx-cluster.h"
#include "plx-sweep.h"

G_BEGIN_DECLS

/* eff(x) = e_max · x / (x + x_half): Hockney's r_inf and n_1/2 (Hockney and
 * Jesshope 1988, "Parallel Computers 2" §1.3.3), the same as a fixed time
 * x_half / (e_max · peak) plus x / (e_max · peak) per kernel. */
typedef struct
{
  char       *name;          /* "bf16", "fp8", "tf32", ..., "memory" */
  const char *key;           /* the gpu.efficiency key it is written to, NULL: reported only */
  guint       n_left_out;    /* memory rows that ran in cache */
  double      e_max, e_max_se;
  double      x_half, x_half_se;    /* NAN standard errors with two distinct sizes */
  double      rms_residual_pct;     /* measured / fitted - 1, over the rows fitted */
  double      max_residual_pct;     /* the largest |measured / fitted - 1| */
  guint       max_residual_line;
  GArray     *x, *measured, *fitted;  /* double: the rows fitted, in file order */
  GArray     *lines;                  /* guint: their lines in the file */
  GArray     *curve_x, *curve_y;      /* double: the curve written */
} PlxSweepFit;

/* Fits eff(x) to `n` points (x, measured efficiency; lines for messages, may be
 * NULL) with gsl_multifit_nlinear on log residuals. At least two distinct sizes
 * (with two the curve passes through both and has no standard errors). */
PlxSweepFit *plx_sweep_fit_efficiency (const double *x,
                                       const double *eff,
                                       const guint  *lines,
                                       gsize         n,
                                       const char   *name,
                                       GError      **error);
double       plx_sweep_fit_eval (const PlxSweepFit *fit,
                                 double             x);
void         plx_sweep_fit_free (PlxSweepFit *fit);

/* One fit per dtype in the sweep (PlxDtype order), against the cluster's peak for
 * that dtype: efficiency = 2·b·m·n·k / (time · peak). bf16 (else fp16) is written as
 * gpu.efficiency.matmul, fp8 as matmul_fp8, tf32 and fp32 as matmul_tf32 and
 * matmul_fp32; fp16 beside bf16 is reported only. A row
 * faster than the peak is an error (the dtype or the peak is wrong). */
GPtrArray   *plx_gemm_sweep_fit (const PlxGemmSweep *sweep,
                                 const PlxCluster   *cluster,
                                 GError            **error);
/* Efficiency = bytes / (time · hbm_bw_Bps), written as gpu.efficiency.memory. Rows
 * faster than the HBM peak ran in cache, and so did every row no larger than one of
 * them: they are left out (n_left_out). */
PlxSweepFit *plx_membw_sweep_fit (const PlxMembwSweep *sweep,
                                  const PlxCluster    *cluster,
                                  GError             **error);

/* Sets the fitted curves (those with a key) in `cluster` (a cluster object), each
 * with a line under "sources" naming `what` (the sweep file). */
void         plx_sweep_fit_apply (JsonNode          *cluster,
                                  const PlxSweepFit *fit,
                                  const char        *what);
/* Sets calibration.matmul_scale (the curve written as gpu.efficiency.matmul) or
 * calibration.memory_scale (gpu.efficiency.memory) in `cluster` to {"mean": m,
 * "sd": m x e_max_se / e_max}, m the scale there before (1 if none); FALSE
 * (nothing set) when the fit has no standard error or writes no such curve. */
gboolean     plx_sweep_fit_apply_uncertainty (JsonNode          *cluster,
                                              const PlxSweepFit *fit);

/* Both steps of `calibrate --gemm/--membw` (either sweep may be NULL): the fits
 * against `cluster_json`'s peaks, every curve with a key set in it naming its sweep's
 * file (with `with_uncertainty` also e_max's standard error as a distribution,
 * plx_sweep_fit_apply_uncertainty), and the result checked to load as a cluster
 * called `name`.
 * Returns the fits (PlxSweepFit *): the GEMM dtypes, then memory. */
GPtrArray   *plx_sweep_calibrate (JsonNode            *cluster_json,
                                  const char          *name,
                                  const PlxGemmSweep  *gemm,
                                  const PlxMembwSweep *membw,
                                  gboolean             with_uncertainty,
                                  GError             **error);

char        *plx_sweep_fit_to_text (const PlxSweepFit *fit,
                                    const char        *unit);
JsonNode    *plx_sweep_fit_to_json (const PlxSweepFit *fit);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxSweepFit, plx_sweep_fit_free)

G_END_DECLS
