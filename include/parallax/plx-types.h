/**
 * SECTION:plx-types
 * @title: plx-types.h
 * @short_description: small enumerations shared by the model, the strategy and the report
 *
 * Small enumerations shared by the model, the strategy and the report.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * PlxDtype:
 * @PLX_DTYPE_BF16: bfloat16, "bf16": 2 bytes an element
 * @PLX_DTYPE_FP16: IEEE half precision, "fp16": 2 bytes an element
 * @PLX_DTYPE_FP8: 8-bit floating point, "fp8": 1 byte an element
 * @PLX_DTYPE_FP32: IEEE single precision, "fp32": 4 bytes an element
 * @PLX_DTYPE_TF32: TF32, "tf32": tensor-core math on fp32 tensors, 4 bytes an element
 * @PLX_N_DTYPES: the number of dtypes, not a dtype
 *
 * The number format of a tensor or of a GPU's math; the quoted names are those of
 * plx_dtype_to_string().
 */
typedef enum
{
  PLX_DTYPE_BF16,
  PLX_DTYPE_FP16,
  PLX_DTYPE_FP8,
  PLX_DTYPE_FP32,
  PLX_DTYPE_TF32,
  PLX_N_DTYPES
} PlxDtype;

/**
 * plx_dtype_to_string:
 * @dtype: a dtype
 *
 * Returns: (transfer none): the dtype's name: "bf16", "fp16", "fp8", "fp32" or
 *   "tf32"; "?" (after a critical warning) for a value that is not a dtype
 */
const char *plx_dtype_to_string (PlxDtype dtype);
/**
 * plx_dtype_from_string:
 * @str: (nullable): a dtype's name, as plx_dtype_to_string() writes it
 * @dtype: (out): the dtype, set only when @str names one
 *
 * Returns: whether @str names a dtype
 */
gboolean    plx_dtype_from_string (const char *str,
                                   PlxDtype   *dtype);
/**
 * plx_dtype_bytes:
 * @dtype: a dtype
 *
 * Returns: the bytes of one activation/weight element stored in @dtype
 */
double      plx_dtype_bytes (PlxDtype dtype);

G_END_DECLS
