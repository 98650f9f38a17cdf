#include "parallax/plx-types.h"

static const char *const dtype_names[PLX_N_DTYPES] = { "bf16", "fp16", "fp8", "fp32", "tf32" };

const char *
plx_dtype_to_string (PlxDtype dtype)
{
  g_return_val_if_fail (dtype < PLX_N_DTYPES, "?");
  return dtype_names[dtype];
}

gboolean
plx_dtype_from_string (const char *str,
                       PlxDtype   *dtype)
{
  for (guint i = 0; i < PLX_N_DTYPES; i++)
    if (g_strcmp0 (str, dtype_names[i]) == 0)
      {
        *dtype = (PlxDtype) i;
        return TRUE;
      }
  return FALSE;
}

double
plx_dtype_bytes (PlxDtype dtype)
{
  switch (dtype)
    {
    case PLX_DTYPE_FP8:
      return 1.0;
    case PLX_DTYPE_FP32:
    case PLX_DTYPE_TF32:
      return 4.0;
    case PLX_DTYPE_BF16:
    case PLX_DTYPE_FP16:
    case PLX_N_DTYPES:
    default:
      return 2.0;
    }
}
