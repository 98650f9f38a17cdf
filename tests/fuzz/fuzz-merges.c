/* A sweep's merge list (DIR/merges.txt, plx-merge-list.h), as `sweep merge` reads it.
 * Whatever reads must name only results/NAME and parts/NAME with a plain name: the
 * names become paths written in the sweep folder (a name shorter than "results/" was
 * read past its end, results/../../x wrote outside: issue 34). */
#include <string.h>

#include "fuzz-common.h"
#include "optimize/plx-merge-list.h"

static void
check_name (const char *field, const char *prefix)
{
  const char *name = field + strlen (prefix);

  if (!g_str_has_prefix (field, prefix) || name[0] == '\0' || strchr (name, '/') != NULL ||
      g_str_equal (name, "..") || g_str_equal (name, "."))
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  GPtrArray *entries;

  if (size > 1 << 20)
    return 0;
  entries = plx_merge_list_parse ((const char *) data, (gssize) size, "fuzz", &error);
  fuzz_check_error (error);
  if (entries == NULL)
    return 0;
  for (guint i = 0; i < entries->len; i++)
    {
      const PlxMergeEntry *e = entries->pdata[i];
      check_name (e->result, "results/");
      if (e->parts[0] == NULL)
        abort ();
      for (guint k = 0; e->parts[k] != NULL; k++)
        check_name (e->parts[k], "parts/");
    }
  g_ptr_array_unref (entries);
  return 0;
}
