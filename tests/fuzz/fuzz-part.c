/* A search part file (docs/sweeps.md: a header line, one line per result, a footer),
 * read as `merge` reads it; a part that reads is merged alone when it is its search's
 * only shard, as `merge PART` would (its scenario is not rebuilt: that is
 * fuzz-scenario's). A refusal is a PLX_ERROR, never a crash (a line nested 100,000
 * deep overflowed the stack; a blank line raised a Json-CRITICAL: issue 34). */
#include "fuzz-common.h"
#include "optimize/plx-search-shard.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *path = size <= 1 << 20 ? fuzz_write_temp (data, size) : NULL;
  GError *error = NULL;
  PlxSearchPart *part;

  if (path == NULL)
    return 0;
  part = plx_search_part_read (path, &error);
  fuzz_check_error (error);
  if (part != NULL)
    {
      /* What merge reads of a part besides its rows. */
      (void) plx_search_part_get_context (part, "scenario");
      (void) plx_search_part_get_context (part, "top");
      for (guint i = 0; i < part->rows->len; i++)
        {
          const PlxSearchPartRow *row = &g_array_index (part->rows, PlxSearchPartRow, i);
          if (!(row->step_time_s >= 0.0) || !(row->mfu >= 0.0))
            abort ();
        }
      plx_search_part_free (part);
    }
  g_unlink (path);
  g_free (path);
  return 0;
}
