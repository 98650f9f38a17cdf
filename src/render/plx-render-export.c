#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <glib/gstdio.h>

#include "parallax/plx-error.h"

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

static gboolean
fail (GError **error, const char *path, const char *tmp, const char *reason)
{
  if (tmp != NULL)
    g_remove (tmp);
  g_set_error (error, PLX_ERROR, PLX_ERROR_IO, "%.200s: cannot write: %s", path, reason);
  return FALSE;
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
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *tmp = NULL;
  PlxExportFormat format;
  cairo_surface_t *surface;
  cairo_t *cr;
  cairo_status_t status;
  int fd;

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

  /* The temporary file sits beside the target, so the rename cannot cross devices. */
  tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  fd = g_mkstemp (tmp);
  if (fd < 0)
    {
      int saved = errno;
      g_clear_pointer (&tmp, g_free);
      return fail (error, path, NULL, g_strerror (saved));
    }
  /* mkstemp makes the file private; give it the mode a new file would have, or the
   * one of the file it replaces. */
  {
    GStatBuf st;
    mode_t mode;
    if (g_stat (path, &st) == 0 && S_ISREG (st.st_mode))
      mode = st.st_mode & 0777;
    else
      {
        mode_t mask = umask (0);
        umask (mask);
        mode = 0666 & ~mask;
      }
    fchmod (fd, mode);
  }
  close (fd);

  switch (format)
    {
    case PLX_EXPORT_SVG:
      surface = cairo_svg_surface_create (tmp, width, height);
      cairo_svg_surface_set_document_unit (surface, CAIRO_SVG_UNIT_PX);
      break;
    case PLX_EXPORT_PDF:
      surface = cairo_pdf_surface_create (tmp, width, height);
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
    status = cairo_surface_write_to_png (surface, tmp);
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    return fail (error, path, tmp, cairo_status_to_string (status));

  if (g_rename (tmp, path) != 0)
    {
      int saved = errno;
      return fail (error, path, tmp, g_strerror (saved));
    }
  return TRUE;
}
