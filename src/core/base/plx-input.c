#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "parallax/plx-error.h"
#include "base/plx-input.h"

/* No input Parallax reads (a trace, a table, a search part) comes near this; a pipe
 * from /dev/zero must still end. */
#define STDIN_LIMIT_BYTES ((gsize) 1024 * 1024 * 1024)

static gboolean stdin_consumed;
/* What a command that looked at standard input first gave back (plx_input_unread_stdin),
 * for the one reader after it. */
static char *stdin_given_back;
static gsize stdin_given_back_length;

const char *
plx_input_name (const char *path)
{
  return plx_input_is_stdin (path) ? "<stdin>" : path;
}

gboolean
plx_input_is_stdin (const char *path)
{
  return path != NULL && path[0] == '-' && path[1] == '\0';
}

char *
plx_input_read_stdin (gsize    limit,
                      gsize   *length,
                      GError **error)
{
  g_autoptr (GByteArray) data = NULL;
  guint8 chunk[65536];

  if (stdin_given_back != NULL)
    {
      if (stdin_given_back_length > limit)
        {
          g_clear_pointer (&stdin_given_back, g_free);
          g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "<stdin>: more than %" G_GSIZE_FORMAT " MiB is too large",
                       limit / (1024 * 1024));
          return NULL;
        }
      *length = stdin_given_back_length;
      return g_steal_pointer (&stdin_given_back);
    }
  if (stdin_consumed)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_IO,
                   "<stdin>: standard input (\"-\") was already read; give it for one file only");
      return NULL;
    }
  stdin_consumed = TRUE;
  data = g_byte_array_new ();
  for (;;)
    {
      gssize n = read (STDIN_FILENO, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_IO, "<stdin>: cannot be read: %s", g_strerror (errno));
          return NULL;
        }
      if (n == 0)
        break;
      if (data->len + (gsize) n > limit)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "<stdin>: more than %" G_GSIZE_FORMAT " MiB is too large",
                       limit / (1024 * 1024));
          return NULL;
        }
      g_byte_array_append (data, chunk, (guint) n);
    }
  *length = data->len;
  g_byte_array_append (data, (const guint8 *) "", 1);
  return (char *) g_byte_array_free (g_steal_pointer (&data), FALSE);
}

gboolean
plx_input_get_contents (const char *path,
                        char      **contents,
                        gsize      *length,
                        GError    **error)
{
  gsize n = 0;

  if (!plx_input_is_stdin (path))
    return g_file_get_contents (path, contents, length, error);
  *contents = plx_input_read_stdin (STDIN_LIMIT_BYTES, &n, error);
  if (length != NULL)
    *length = n;
  return *contents != NULL;
}

void
plx_input_unread_stdin (char *contents,
                        gsize length)
{
  g_free (stdin_given_back);
  stdin_given_back = contents;
  stdin_given_back_length = length;
}
