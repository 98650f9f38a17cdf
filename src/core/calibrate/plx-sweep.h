/* plx-sweep.h: GEMM and memory-bandwidth sweeps read from CSV (issue 15;
 * docs/calibration.md "From GEMM and bandwidth sweeps", docs/formats.md).
 *
 * A sweep is what a user measures on their own GPU: one row per kernel size. The
 * header's spelling is read leniently (the tools that write these files disagree);
 * the values strictly: an error names the file, line, column and value. */
#pragma once

#include <glib.h>

#include "parallax/plx-types.h"

G_BEGIN_DECLS

typedef struct
{
  double   batch;   /* 1 without a batch column */
  double   m, n, k;
  PlxDtype dtype;
  double   time_s;  /* one GEMM; from a time column or from 2·batch·m·n·k / throughput */
  guint    line;    /* 1-based line of the file */
} PlxGemmRow;

typedef struct
{
  double bytes;     /* bytes the kernel reads plus writes */
  double time_s;    /* one kernel; from a time column or from bytes / bandwidth */
  guint  line;
} PlxMembwRow;

typedef struct
{
  char   *source;   /* the file, for messages */
  GArray *rows;     /* PlxGemmRow */
} PlxGemmSweep;

typedef struct
{
  char   *source;
  GArray *rows;     /* PlxMembwRow */
} PlxMembwSweep;

/* 2·batch·m·n·k (Narayanan et al. 2021 §5.1: a multiply and an add per MAC). */
double         plx_gemm_row_flops (const PlxGemmRow *row);

PlxGemmSweep  *plx_gemm_sweep_parse (const char *text,
                                     const char *source,
                                     GError    **error);
PlxGemmSweep  *plx_gemm_sweep_load (const char *path,
                                    GError    **error);
void           plx_gemm_sweep_free (PlxGemmSweep *sweep);

PlxMembwSweep *plx_membw_sweep_parse (const char *text,
                                      const char *source,
                                      GError    **error);
PlxMembwSweep *plx_membw_sweep_load (const char *path,
                                     GError    **error);
void           plx_membw_sweep_free (PlxMembwSweep *sweep);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxGemmSweep, plx_gemm_sweep_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxMembwSweep, plx_membw_sweep_free)

G_END_DECLS
