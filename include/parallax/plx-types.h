/* plx-types.h: small enumerations shared by the model, the strategy and the report. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  PLX_DTYPE_BF16,
  PLX_DTYPE_FP16,
  PLX_DTYPE_FP8,
  PLX_DTYPE_FP32,
  PLX_DTYPE_TF32,
  PLX_N_DTYPES
} PlxDtype;

const char *plx_dtype_to_string (PlxDtype dtype);
gboolean    plx_dtype_from_string (const char *str,
                                   PlxDtype   *dtype);
/* Bytes of one activation/weight element stored in this dtype. */
double      plx_dtype_bytes (PlxDtype dtype);

G_END_DECLS
