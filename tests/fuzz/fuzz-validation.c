/* A validation table: loaded; its cases are not run (each is a scenario, which
 * fuzz-scenario covers). */
#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *path = size <= 1 << 20 ? fuzz_write_temp (data, size) : NULL;
  GError *error = NULL;
  PlxValidationTable *t;

  if (path == NULL)
    return 0;
  t = plx_validation_table_load (path, &error);
  fuzz_check_error (error);
  if (t != NULL)
    plx_validation_table_free (t);
  g_unlink (path);
  g_free (path);
  return 0;
}
