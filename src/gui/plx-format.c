#include "plx-format.h"

char *
plx_format_time (double s)
{
  if (s >= 1.0)
    return g_strdup_printf ("%.3f s", s);
  if (s >= 1e-3)
    return g_strdup_printf ("%.2f ms", s * 1e3);
  return g_strdup_printf ("%.0f µs", s * 1e6);
}
