/* The merge list of a sweep (plx-merge-list.h). Its names are the ones `sweep expand`
 * makes (plx-cli-sweep.c, label()): letters, digits, '.', '_' and '-'. Anything else
 * is refused rather than used as a path: a result name is written to, and a result
 * name shorter than its "results/" prefix was read past its end (issue 34). */
#include <string.h>

#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "optimize/plx-merge-list.h"

#define MAX_NAME 255

static gboolean
name_ok (const char *field, const char *prefix)
{
  const char *name = field + strlen (prefix);
  gsize n;

  if (!g_str_has_prefix (field, prefix))
    return FALSE;
  n = strlen (name);
  if (n == 0 || n > MAX_NAME || g_str_equal (name, ".") || g_str_equal (name, ".."))
    return FALSE;
  return strspn (name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static void
entry_free (PlxMergeEntry *e)
{
  g_free (e->result);
  g_strfreev (e->parts);
  g_free (e);
}

GPtrArray *
plx_merge_list_parse (const char *text,
                      gssize      length,
                      const char *source,
                      GError    **error)
{
  g_autoptr (GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  gsize n = length < 0 ? strlen (text) : (gsize) length;
  g_auto (GStrv) lines = NULL;

  if (memchr (text, '\0', n) != NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%.200s: holds a NUL byte, not a merge list", source);
      return NULL;
    }
  {
    g_autofree char *copy = g_strndup (text, n);
    lines = g_strsplit (copy, "\n", -1);
  }
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) fields = NULL;
      PlxMergeEntry *e;
      guint n_fields;

      if (lines[i][strspn (lines[i], " \t\r")] == '\0')
        continue;
      fields = g_strsplit (lines[i], "\t", -1);
      n_fields = g_strv_length (fields);
      if (n_fields < 2)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%.200s:%u: not a results name and its parts", source,
                       i + 1);
          return NULL;
        }
      for (guint k = 0; k < n_fields; k++)
        if (!name_ok (fields[k], k == 0 ? "results/" : "parts/"))
          {
            g_autofree char *head = g_strndup (fields[k], 80);
            g_autofree char *shown = plx_printable (head);
            g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                         "%.200s:%u: \"%s\" is not %sNAME (NAME: 1 to %d letters, digits, '.', '_' or '-')", source,
                         i + 1, shown, k == 0 ? "results/" : "parts/", MAX_NAME);
            return NULL;
          }
      e = g_new0 (PlxMergeEntry, 1);
      e->result = g_strdup (fields[0]);
      e->parts = g_strdupv (fields + 1);
      e->line = i + 1;
      g_ptr_array_add (entries, e);
    }
  return g_steal_pointer (&entries);
}
