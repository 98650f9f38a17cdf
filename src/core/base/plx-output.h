/* plx-output.h: every file Parallax writes goes through here (docs/formats.md,
 * "Output files"). What the path names decides how it is written:
 * - a regular file, or nothing yet: a temporary file beside it, renamed over it once
 *   complete, so a failure or a signal never leaves half a file;
 * - a symbolic link: followed; its target is written by these same rules (a link to a
 *   missing file is refused);
 * - a character device or a FIFO (/dev/null, /dev/stdout on a pipe, a named pipe):
 *   opened and written through - never replaced by a regular file;
 * - a directory, a block device or a socket: refused. */
#pragma once

#include <stdio.h>

#include <glib.h>

G_BEGIN_DECLS

typedef struct _PlxOutput PlxOutput;

PlxOutput *plx_output_open (const char *path,
                            GError    **error);
/* Where to write; every write is checked when the output is closed. */
FILE      *plx_output_stream (PlxOutput *out);
/* Flushes and checks every write, then puts the file in place. Frees `out`. */
gboolean   plx_output_close (PlxOutput *out,
                             GError   **error);
/* Drops what was written (the temporary file is removed). Frees `out`. */
void       plx_output_discard (PlxOutput *out);

/* `length` bytes (-1: up to the NUL) as the whole content of `path`. */
gboolean   plx_output_write_file (const char *path,
                                  const char *data,
                                  gssize      length,
                                  GError    **error);

/* From now on SIGINT, SIGTERM, SIGHUP and SIGPIPE remove the temporary files of the
 * outputs still open before the process dies of them (a program's main calls it). */
void       plx_output_remove_temporaries_on_signal (void);
/* `path` (a file, or a folder empty once the files are gone) is removed too by those
 * signals and by plx_output_remove_now, until plx_output_keep_on_signal (the slot
 * returned; -1: none was free). */
int        plx_output_remove_on_signal (const char *path);
void       plx_output_keep_on_signal (int slot);
/* A new private folder (0700) TMPDIR/<prefix>XXXXXX, removed by those signals from
 * before it exists until plx_output_keep_on_signal (*slot): a signal never leaves
 * it behind. NULL and `error` (PLX_ERROR_IO, naming it) when it cannot be made. */
char      *plx_output_make_dir_removed_on_signal (const char *prefix,
                                                  int        *slot,
                                                  GError    **error);
/* Removes now what a signal would (async-signal-safe): for a process about to end
 * with _exit. */
void       plx_output_remove_now (void);

G_END_DECLS
