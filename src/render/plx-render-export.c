#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <glib/gstdio.h>

#include "parallax/plx-error.h"
#include "base/plx-output.h"

#include "plx-render-export.h"

gboolean
plx_export_format_for_path (const char      *path,
                            PlxExportFormat *format,
                            GError         **error)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  if (g_str_has_suffix (lower, ".png"))
    *format = PLX_EXPORT_PNG;
  else if (g_str_has_suffix (lower, ".svg"))
    *format = PLX_EXPORT_SVG;
  else if (g_str_has_suffix (lower, ".pdf"))
    *format = PLX_EXPORT_PDF;
  else
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%.200s: unknown image type; the name must end in .png, .svg or .pdf", path);
      return FALSE;
    }
  return TRUE;
}

/* cairo's stream callback: every write checked (a full disk is an error, not a
 * shorter file). */
static cairo_status_t
write_stream (void *closure, const unsigned char *data, unsigned int length)
{
  return fwrite (data, 1, length, closure) == length ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

gboolean
plx_render_export (const char           *path,
                   double                width,
                   double                height,
                   double                scale,
                   const PlxRenderStyle *style,
                   PlxDrawFunc           draw,
                   gpointer              data,
                   GError              **error)
{
  PlxOutput *out;
  FILE *f;
  PlxExportFormat format;
  cairo_surface_t *surface;
  cairo_t *cr;
  cairo_status_t status;

  if (!plx_export_format_for_path (path, &format, error))
    return FALSE;
  if (!(width >= 16.0 && width <= 16384.0 && height >= 16.0 && height <= 16384.0))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%.200s: a chart of %g x %g is outside 16 to 16384 pixels a side", path, width, height);
      return FALSE;
    }
  if (!(scale >= 1.0 && scale <= 4.0))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%.200s: scale %g is not between 1 and 4", path, scale);
      return FALSE;
    }
  /* cairo's image surfaces stop at 32767 pixels a side. */
  if (format == PLX_EXPORT_PNG && (ceil (width * scale) > 32767.0 || ceil (height * scale) > 32767.0))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%.200s: %g x %g at scale %g is more than 32767 pixels a side", path, width, height, scale);
      return FALSE;
    }

  /* Written through plx_output: never half a file, never a device replaced. */
  out = plx_output_open (path, error);
  if (out == NULL)
    return FALSE;
  f = plx_output_stream (out);

  switch (format)
    {
    case PLX_EXPORT_SVG:
      surface = cairo_svg_surface_create_for_stream (write_stream, f, width, height);
      cairo_svg_surface_set_document_unit (surface, CAIRO_SVG_UNIT_PX);
      break;
    case PLX_EXPORT_PDF:
      surface = cairo_pdf_surface_create_for_stream (write_stream, f, width, height);
      break;
    case PLX_EXPORT_PNG:
    default:
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, (int) ceil (width * scale), (int) ceil (height * scale));
      break;
    }
  cr = cairo_create (surface);
  if (format == PLX_EXPORT_PNG)
    cairo_scale (cr, scale, scale);
  cairo_set_source_rgb (cr, style->background.r, style->background.g, style->background.b);
  cairo_paint (cr);
  draw (cr, width, height, data);
  status = cairo_status (cr);
  cairo_destroy (cr);
  if (status == CAIRO_STATUS_SUCCESS && format == PLX_EXPORT_PNG)
    status = cairo_surface_write_to_png_stream (surface, write_stream, f);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      plx_output_discard (out);
      g_set_error (error, PLX_ERROR, PLX_ERROR_IO, "%.200s: cannot write: %s", path, cairo_status_to_string (status));
      return FALSE;
    }
  return plx_output_close (out, error);
}
