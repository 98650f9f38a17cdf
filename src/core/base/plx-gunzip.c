/* plx-gunzip.c: gzip decompression with a cap on the output, through GIO's
 * GZlibDecompressor (zlib). */
#include <gio/gio.h>

#include "parallax/plx-error.h"
#include "plx-gunzip.h"

gboolean
plx_is_gzip (const char *data,
             gsize       length)
{
  return length >= 2 && (guchar) data[0] == 0x1f && (guchar) data[1] == 0x8b;
}

char *
plx_gunzip (const char *data,
            gsize       length,
            gsize       cap,
            const char *source,
            gsize      *out_length,
            GError    **error)
{
  g_autoptr (GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr (GByteArray) out = g_byte_array_new ();
  gsize used = 0;
  guint8 chunk[64 * 1024];

  for (;;)
    {
      g_autoptr (GError) local = NULL;
      gsize read = 0, written = 0;
      GConverterResult r = g_converter_convert (G_CONVERTER (z), data + used, length - used, chunk, sizeof chunk,
                                                G_CONVERTER_INPUT_AT_END, &read, &written, &local);

      if (r == G_CONVERTER_ERROR)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: not a whole gzip file: %s", source, local->message);
          return NULL;
        }
      used += read;
      if (written > cap - out->len)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: decompresses to more than %" G_GSIZE_FORMAT
                       " MB, the most this file may hold; refused", source, cap / (1024 * 1024));
          return NULL;
        }
      g_byte_array_append (out, chunk, (guint) written);
      if (r == G_CONVERTER_FINISHED)
        break;
    }
  if (used < length)
    {
      /* A second member (`cat a.gz b.gz`) would be decompressed by gzip(1); read
       * alone it would be dropped without a word. */
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: %" G_GSIZE_FORMAT " bytes after the gzip stream's end "
                   "(more than one gzip member, or trailing data)", source, length - used);
      return NULL;
    }
  *out_length = out->len;
  g_byte_array_append (out, (const guint8 *) "", 1);
  return (char *) g_byte_array_free (g_steal_pointer (&out), FALSE);
}
