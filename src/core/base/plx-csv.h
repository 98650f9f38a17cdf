/* plx-csv.h: CSV records as RFC 4180 writes them - a field in double quotes may hold
 * commas, line breaks and doubled quotes ("a ""b"", c" is: a "b", c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The next record of `text` from byte *pos on: its fields (NULL-terminated; each
 * unquoted, and an unquoted field stripped of surrounding spaces), *record_line the
 * line it starts on (1-based); *lines counts the lines read so far (0 at the start;
 * a record with quoted line breaks spans several). Blank lines and lines
 * whose first character is '#' are skipped; "\r\n" ends a line as "\n" does. NULL at
 * the end of the text (no error), or with an error naming `source` and the line for
 * a quoted field that never closes or has text after its closing quote. */
char **plx_csv_next_record (const char  *text,
                            gsize       *pos,
                            guint       *lines,
                            guint       *record_line,
                            const char  *source,
                            GError     **error);

G_END_DECLS
