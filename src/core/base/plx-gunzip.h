/* plx-gunzip.h: a gzip file's contents, decompressed in memory up to a cap (a
 * profiler trace saved as .json.gz). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Whether `data` starts with gzip's magic bytes (RFC 1952 §2.3.1: 0x1f 0x8b). */
gboolean plx_is_gzip (const char *data,
                      gsize       length);

/* The one gzip member in `data`, decompressed and NUL-terminated; NULL with an
 * error naming `source` when it is corrupt or truncated, has data after it, or would
 * decompress to more than `cap` bytes (checked as it grows: a gzip bomb is refused
 * before it fills memory). */
char *plx_gunzip (const char *data,
                  gsize       length,
                  gsize       cap,
                  const char *source,
                  gsize      *out_length,
                  GError    **error);

G_END_DECLS
