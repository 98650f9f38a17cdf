/* Output files written so that nothing but a regular file is ever replaced, nothing
 * half-written is left in place, and every write is checked (issue 34: `--trace
 * /dev/full` as root replaced /dev/full with a regular file; a signal during --trace
 * left a hidden 102 MB temporary file). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "parallax/plx-error.h"
#include "base/plx-output.h"

/* The temporary files a signal must remove: fixed slots of fixed size, so the
 * handler reads them without allocating or locking. A slot is filled before it is
 * marked used and unmarked before it is reused. */
#define N_SLOTS 16
static char temp_paths[N_SLOTS][PATH_MAX];
static volatile sig_atomic_t temp_used[N_SLOTS];
static GMutex slots_lock;

struct _PlxOutput
{
  char    *path;    /* as the user named it, for messages */
  char    *target;  /* what is replaced (a link's target), or NULL when written through */
  char    *temp;    /* the temporary file beside target */
  int      slot;    /* its signal slot, or -1 */
  FILE    *stream;
};

/* The first free slot of a table (`n` paths and their flags), `path` copied into it;
 * -1 when the table is full or the path too long (that output is then simply not
 * removed on a signal). */
static int
table_take (char (*paths)[PATH_MAX], volatile sig_atomic_t *used, int n, const char *path)
{
  int found = -1;

  if (strlen (path) >= PATH_MAX)
    return -1;
  g_mutex_lock (&slots_lock);
  for (int i = 0; i < n && found < 0; i++)
    if (!used[i])
      {
        strcpy (paths[i], path);
        used[i] = 1;
        found = i;
      }
  g_mutex_unlock (&slots_lock);
  return found;
}

static int
slot_take (const char *path)
{
  return table_take (temp_paths, temp_used, N_SLOTS, path);
}

static void
slot_release (int slot)
{
  if (slot >= 0)
    temp_used[slot] = 0;
}

/* Other paths a signal removes (a command's private folder and the file in it):
 * fixed slots as above. */
#define N_EXTRA 4
static char extra_paths[N_EXTRA][PATH_MAX];
static volatile sig_atomic_t extra_used[N_EXTRA];

int
plx_output_remove_on_signal (const char *path)
{
  return table_take (extra_paths, extra_used, N_EXTRA, path);
}

void
plx_output_keep_on_signal (int slot)
{
  if (slot >= 0 && slot < N_EXTRA)
    extra_used[slot] = 0;
}

/* Six random letters or digits, as mkstemp's XXXXXX: for a path that is registered
 * for removal before it is created. */
static void
random_suffix (char suffix[7])
{
  static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

  for (guint i = 0; i < 6; i++)
    suffix[i] = letters[g_random_int_range (0, (gint32) sizeof letters - 1)];
  suffix[6] = '\0';
}

char *
plx_output_make_dir_removed_on_signal (const char *prefix,
                                       int        *slot,
                                       GError    **error)
{
  /* Registered before it exists (mkdtemp's way, by hand): a signal between the
   * folder appearing and its slot being filled left it behind. */
  for (guint attempt = 0;; attempt++)
    {
      char suffix[7];
      char *dir;

      random_suffix (suffix);
      dir = g_strdup_printf ("%s/%s%s", g_get_tmp_dir (), prefix, suffix);
      *slot = plx_output_remove_on_signal (dir);
      if (g_mkdir (dir, 0700) == 0)
        return dir;
      {
        int saved = errno;
        plx_output_keep_on_signal (*slot);
        *slot = -1;
        if (saved != EEXIST || attempt >= 100)
          {
            g_set_error (error, PLX_ERROR, PLX_ERROR_IO, "%.200s: cannot make a folder: %s", dir, g_strerror (saved));
            g_free (dir);
            return NULL;
          }
        g_free (dir);
      }
    }
}

/* Only async-signal-safe calls: unlink and rmdir. Files first, then folders (rmdir
 * of a file and unlink of a folder fail harmlessly). */
void
plx_output_remove_now (void)
{
  for (int i = 0; i < N_SLOTS; i++)
    if (temp_used[i])
      unlink (temp_paths[i]);
  for (int i = 0; i < N_EXTRA; i++)
    if (extra_used[i])
      unlink (extra_paths[i]);
  for (int i = 0; i < N_EXTRA; i++)
    if (extra_used[i])
      rmdir (extra_paths[i]);
}

/* Only async-signal-safe calls: those above, sigaction, raise. */
static void
remove_temporaries (int sig)
{
  struct sigaction dfl = { 0 };

  plx_output_remove_now ();
  dfl.sa_handler = SIG_DFL;
  sigemptyset (&dfl.sa_mask);
  sigaction (sig, &dfl, NULL);
  raise (sig);
}

void
plx_output_remove_temporaries_on_signal (void)
{
  static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
  struct sigaction sa = { 0 };

  sa.sa_handler = remove_temporaries;
  sigemptyset (&sa.sa_mask);
  for (guint i = 0; i < G_N_ELEMENTS (signals); i++)
    {
      struct sigaction old;
      /* A signal the caller ignores (nohup, a shell's background job) stays ignored. */
      if (sigaction (signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        continue;
      sigaction (signals[i], &sa, NULL);
    }
}

static gboolean
fail (GError **error, const char *path, const char *why)
{
  g_set_error (error, PLX_ERROR, PLX_ERROR_IO, "%.200s: cannot write: %s", path, why);
  return FALSE;
}

/* The mode a new file gets (0666 less the umask); umask can only be read by setting it. */
static mode_t
new_file_mode (void)
{
  mode_t mask = umask (0);

  umask (mask);
  return 0666 & ~mask;
}

static gboolean
open_temporary (PlxOutput *out, const char *target, mode_t mode, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (target);
  g_autofree char *base = g_path_get_basename (target);
  int fd;

  /* Beside the target, so the rename stays on one file system. Its path goes into a
   * signal slot before the file exists (O_EXCL, mkstemp's way): a signal between the
   * file appearing and its slot being filled left it behind (a signal handler may
   * run on any thread, so blocking signals here would not close that window). */
  for (guint attempt = 0;; attempt++)
    {
      char suffix[7];

      random_suffix (suffix);
      g_free (out->temp);
      out->temp = g_strdup_printf ("%s/.%s.%s", dir, base, suffix);
      out->slot = slot_take (out->temp);
      fd = g_open (out->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (fd >= 0)
        break;
      {
        int saved = errno;
        slot_release (out->slot);
        out->slot = -1;
        if (saved != EEXIST || attempt >= 100)
          {
            g_clear_pointer (&out->temp, g_free);
            return fail (error, out->path, g_strerror (saved));
          }
      }
    }
  /* Made private (0600); it gets the mode of the file it replaces. */
  fchmod (fd, mode);
  out->target = g_strdup (target);
  out->stream = fdopen (fd, "w");
  if (out->stream == NULL)
    {
      int saved = errno;
      close (fd);
      return fail (error, out->path, g_strerror (saved));
    }
  return TRUE;
}

static gboolean
open_through (PlxOutput *out, const char *target, GError **error)
{
  /* No O_TRUNC: a device has nothing to truncate, and a FIFO waits for its reader. */
  int fd = g_open (target, O_WRONLY | O_CLOEXEC | O_NOCTTY, 0);

  if (fd < 0)
    {
      int saved = errno;
      return fail (error, out->path, g_strerror (saved));
    }
  out->stream = fdopen (fd, "w");
  if (out->stream == NULL)
    {
      int saved = errno;
      close (fd);
      return fail (error, out->path, g_strerror (saved));
    }
  return TRUE;
}

static gboolean
open_target (PlxOutput *out, const char *target, GError **error)
{
  GStatBuf st;

  if (g_lstat (target, &st) != 0)
    {
      int saved = errno;
      if (saved == ENOENT)
        return open_temporary (out, target, new_file_mode (), error);
      return fail (error, out->path, g_strerror (saved));
    }
  if (S_ISLNK (st.st_mode))
    {
      g_autofree char *resolved = realpath (target, NULL);
      if (resolved == NULL)
        {
          int saved = errno;
          return fail (error, out->path, saved == ENOENT ? "a symbolic link to a file that does not exist (not followed)"
                                                         : g_strerror (saved));
        }
      return open_target (out, resolved, error);
    }
  if (S_ISREG (st.st_mode))
    return open_temporary (out, target, st.st_mode & 07777, error);
  if (S_ISCHR (st.st_mode) || S_ISFIFO (st.st_mode))
    return open_through (out, target, error);
  return fail (error, out->path,
               S_ISDIR (st.st_mode)   ? "is a directory"
               : S_ISBLK (st.st_mode) ? "is a block device (a disk is never written over)"
                                      : "is not a regular file, character device or pipe");
}

PlxOutput *
plx_output_open (const char *path,
                 GError    **error)
{
  PlxOutput *out = g_new0 (PlxOutput, 1);

  out->path = g_strdup (path);
  out->slot = -1;
  if (!open_target (out, path, error))
    {
      plx_output_discard (out);
      return NULL;
    }
  return out;
}

FILE *
plx_output_stream (PlxOutput *out)
{
  return out->stream;
}

void
plx_output_discard (PlxOutput *out)
{
  if (out == NULL)
    return;
  if (out->stream != NULL)
    fclose (out->stream);
  if (out->temp != NULL)
    g_unlink (out->temp);
  slot_release (out->slot);
  g_free (out->path);
  g_free (out->target);
  g_free (out->temp);
  g_free (out);
}

gboolean
plx_output_close (PlxOutput *out,
                  GError   **error)
{
  FILE *f = out->stream;
  int saved = 0;

  out->stream = NULL;
  errno = 0;
  if (fflush (f) != 0 || ferror (f))
    saved = errno != 0 ? errno : EIO;
  /* A replaced file is on disk before it replaces the old one. */
  else if (out->temp != NULL && fsync (fileno (f)) != 0)
    saved = errno;
  if (fclose (f) != 0 && saved == 0)
    saved = errno;
  if (saved == 0 && out->temp != NULL && g_rename (out->temp, out->target) != 0)
    saved = errno;
  if (saved != 0)
    {
      fail (error, out->path, g_strerror (saved));
      plx_output_discard (out);
      return FALSE;
    }
  g_clear_pointer (&out->temp, g_free);
  plx_output_discard (out);
  return TRUE;
}

gboolean
plx_output_write_file (const char *path,
                       const char *data,
                       gssize      length,
                       GError    **error)
{
  PlxOutput *out = plx_output_open (path, error);

  if (out == NULL)
    return FALSE;
  fwrite (data, 1, length < 0 ? strlen (data) : (gsize) length, out->stream);
  return plx_output_close (out, error);
}
