/* plx-csv.c: reading CSV records by RFC 4180 (§2: fields separated by commas, a field
 * with commas, quotes or line breaks enclosed in double quotes, a quote inside one
 * written twice). Sweep tools write such fields for notes and kernel names. */
#include <string.h>

#include "parallax/plx-error.h"
#include "plx-csv.h"

/* Whether the line from `p` holds only spaces, or starts with '#' (a comment). */
static gboolean
skip_line (const char *p)
{
  p += strspn (p, " \t");
  return *p == '\0' || *p == '\n' || *p == '\r' || *p == '#';
}

char **
plx_csv_next_record (const char  *text,
                     gsize       *pos,
                     guint       *line,
                     guint       *record_line,
                     const char  *source,
                     GError     **error)
{
  const char *p = text + *pos;
  g_autoptr (GPtrArray) fields = NULL;
  g_autoptr (GString) field = NULL;

  /* Whole lines to skip, each counted. */
  while (*p != '\0' && skip_line (p))
    {
      const char *nl = strchr (p, '\n');
      (*line)++;
      p = nl != NULL ? nl + 1 : p + strlen (p);
    }
  if (*p == '\0')
    {
      *pos = (gsize) (p - text);
      return NULL;
    }
  *record_line = ++(*line);
  fields = g_ptr_array_new_with_free_func (g_free);
  field = g_string_new (NULL);
  for (;;)
    {
      const char *start = p + strspn (p, " \t");

      g_string_truncate (field, 0);
      if (*start == '"')
        {
          guint opened = *line;
          for (p = start + 1;; p++)
            {
              if (*p == '\0')
                {
                  g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s:%u: a quoted field that never closes",
                               source, opened);
                  return NULL;
                }
              if (*p == '"' && p[1] == '"')
                {
                  g_string_append_c (field, '"');
                  p++;
                }
              else if (*p == '"')
                break;
              else
                {
                  if (*p == '\n')
                    (*line)++;
                  g_string_append_c (field, *p);
                }
            }
          p++;
          p += strspn (p, " \t");
          if (*p != ',' && *p != '\n' && *p != '\0' && !(*p == '\r' && (p[1] == '\n' || p[1] == '\0')))
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s:%u: text after a quoted field's closing quote "
                           "(a quote inside a quoted field is written twice: \"\")", source, *line);
              return NULL;
            }
          g_ptr_array_add (fields, g_strdup (field->str));
        }
      else
        {
          gsize n = strcspn (p, ",\n");
          g_ptr_array_add (fields, g_strstrip (g_strndup (p, n)));
          p += n;
        }
      if (*p == ',')
        {
          p++;
          continue;
        }
      /* The record's end: a line break (after any \r, which the strip above or the
       * check after a quote took) or the text's. */
      if (*p == '\r')
        p++;
      if (*p == '\n')
        p++;
      break;
    }
  *pos = (gsize) (p - text);
  g_ptr_array_add (fields, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&fields), FALSE);
}
