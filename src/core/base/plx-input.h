/* plx-input.h: "-" as a file name means standard input, as command-line tools do. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The name messages give for `path`: "<stdin>" for "-", else `path` itself. */
const char *plx_input_name (const char *path);
gboolean    plx_input_is_stdin (const char *path);
/* All of standard input, at most `limit` bytes (a larger input is an error, never
 * read on forever), NUL-terminated. Standard input is read once per process: a second
 * "-" is an error naming it, rather than an empty file. */
char       *plx_input_read_stdin (gsize    limit,
                                  gsize   *length,
                                  GError **error);
/* Gives back (and takes) what plx_input_read_stdin returned, so that the next
 * reader of "-" gets it: for a command that must look at the input to decide what it
 * is (simulate --model -: a graph or a transformer). */
void        plx_input_unread_stdin (char *contents,
                                    gsize length);
/* As g_file_get_contents, but "-" reads standard input (up to 1 GiB). */
gboolean    plx_input_get_contents (const char *path,
                                    char      **contents,
                                    gsize      *length,
                                    GError    **error);

G_END_DECLS
