/* plx-kineto-classify.h: what a profiled kernel is (GEMM, attention, memory-bound,
 * collective) and the work its CPU op's recorded shapes imply. Private to the core. */
#pragma once

#include <json-glib/json-glib.h>

#include "calibrate/plx-kineto.h"

PlxKernelClass plx_kineto_classify (const char *kernel,
                                    const char *op);
/* Fills op->flops (GEMMs) or op->bytes (elementwise ops) and op->dtype from the op's
 * "Input Dims" and "Input type" (record_shapes=True); leaves 0 when absent. */
void           plx_kineto_op_work (PlxKinetoOp *op,
                                   JsonObject  *args,
                                   const char  *kernel);
/* NCCL kernels of newer PyTorch carry "Collective name", "In msg nelems", "dtype". */
void           plx_kineto_read_collective (JsonObject *args,
                                           char      **collective,
                                           double     *bytes);
