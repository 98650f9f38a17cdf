/* plx-cli-stdout.c: "-" for an output file. The writers (atomic files, charts,
 * traces) are left as they are: the output is written to a file in a private
 * directory and copied to the real standard output when the command has succeeded,
 * so a failed command writes nothing there. Meanwhile file descriptor 1 points at
 * stderr, so every printf of the command lands there and stdout holds the one output. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "parallax/plx-error.h"
#include "base/plx-output.h"
#include "plx-cli-stdout.h"

static struct
{
  char *flag;     /* the output that has standard output */
  char *dir;
  char *path;
  int   saved_fd; /* the real standard output */
  int   dir_slot; /* their slots for a signal (plx_output_remove_on_signal) */
  int   path_slot;
} claim = { NULL, NULL, NULL, -1, -1, -1 };

const char *
plx_cli_output_path (const char *flag,
                     const char *value,
                     GError    **error)
{
  g_autoptr (GError) local = NULL;

  if (value == NULL || !g_str_equal (value, "-"))
    return value;
  if (claim.flag != NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s -: standard output is already %s's", flag,
                   claim.flag);
      return NULL;
    }
  /* A signal, or a second Ctrl+C in a search (which ends with _exit), leaves no
   * private folder behind: its slot is taken before it exists. */
  claim.dir = plx_output_make_dir_removed_on_signal ("parallax-stdout-", &claim.dir_slot, &local);
  if (claim.dir == NULL)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, "%s -: %s", flag, local->message);
      return NULL;
    }
  fflush (stdout);
  claim.saved_fd = dup (STDOUT_FILENO);
  if (claim.saved_fd < 0 || dup2 (STDERR_FILENO, STDOUT_FILENO) < 0)
    {
      int saved = errno;
      g_rmdir (claim.dir);
      plx_output_keep_on_signal (claim.dir_slot);
      claim.dir_slot = -1;
      g_clear_pointer (&claim.dir, g_free);
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, "%s -: %s", flag, g_strerror (saved));
      return NULL;
    }
  claim.flag = g_strdup (flag);
  claim.path = g_build_filename (claim.dir, "stdout", NULL);
  claim.path_slot = plx_output_remove_on_signal (claim.path);
  return claim.path;
}

gboolean
plx_cli_output_take (const char *flag,
                     char      **path,
                     GError    **error)
{
  const char *p = plx_cli_output_path (flag, *path, error);

  if (p == NULL && *path != NULL)
    return FALSE;
  if (p != *path)
    {
      g_free (*path);
      *path = g_strdup (p);
    }
  return TRUE;
}

const char *
plx_cli_output_name (const char *path)
{
  return claim.path != NULL && path != NULL && g_str_equal (path, claim.path) ? "<stdout>" : path;
}

/* `length` bytes to `fd`, every write checked (a full disk, a closed pipe). */
static gboolean
write_all (int fd, const char *data, gsize length, GError **error)
{
  gsize done = 0;

  while (done < length)
    {
      ssize_t n = write (fd, data + done, length - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_IO, "<stdout>: cannot write: %s",
                       g_strerror (n < 0 ? errno : ENOSPC));
          return FALSE;
        }
      done += (gsize) n;
    }
  return TRUE;
}

int
plx_cli_stdout_finish (int status)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *data = NULL;
  gsize length = 0;
  int out;

  if (claim.flag == NULL)
    return status;
  fflush (stdout);
  /* A command that failed leaves its output unwritten, as with a file; one that
   * wrote nothing has none. The file and its directory go before the copy, so a
   * reader that closes the pipe early (SIGPIPE) leaves nothing behind. */
  if (status == 0 && g_file_test (claim.path, G_FILE_TEST_EXISTS) &&
      !g_file_get_contents (claim.path, &data, &length, &error))
    {
      fprintf (stderr, "parallax-cli: %s\n", error->message);
      g_clear_error (&error);
      status = 1;
    }
  g_remove (claim.path);
  g_rmdir (claim.dir);
  plx_output_keep_on_signal (claim.path_slot);
  plx_output_keep_on_signal (claim.dir_slot);
  claim.path_slot = claim.dir_slot = -1;
  out = claim.saved_fd;
  dup2 (out, STDOUT_FILENO);
  close (out);
  g_clear_pointer (&claim.flag, g_free);
  g_clear_pointer (&claim.path, g_free);
  g_clear_pointer (&claim.dir, g_free);
  claim.saved_fd = -1;
  if (data != NULL && !write_all (STDOUT_FILENO, data, length, &error))
    {
      fprintf (stderr, "parallax-cli: %s\n", error->message);
      status = 1;
    }
  return status;
}
