/* A schedule file, checked against a 4-stage, 2-chunk pipeline of 8 micro-batches
 * and against one stage of one micro-batch. */
#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *path = size <= 1 << 20 ? fuzz_write_temp (data, size) : NULL;
  static const guint shapes[][3] = { { 4, 2, 8 }, { 1, 1, 1 } };

  if (path == NULL)
    return 0;
  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      GError *error = NULL;
      PlxScheduleOrder *o = plx_schedule_order_load (path, shapes[i][0], shapes[i][1], shapes[i][2], &error);
      fuzz_check_error (error);
      if (o != NULL)
        plx_schedule_order_free (o);
    }
  g_unlink (path);
  g_free (path);
  return 0;
}
