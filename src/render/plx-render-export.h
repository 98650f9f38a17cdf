/* plx-render-export.h: any chart to a PNG, SVG or PDF file, chosen by extension. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "plx-render-style.h"

G_BEGIN_DECLS

typedef enum
{
  PLX_EXPORT_PNG,
  PLX_EXPORT_SVG,
  PLX_EXPORT_PDF,
} PlxExportFormat;

/* Draws the chart in user units of width x height. */
typedef void (*PlxDrawFunc) (cairo_t *cr,
                             double   width,
                             double   height,
                             gpointer data);

gboolean plx_export_format_for_path (const char      *path,
                                     PlxExportFormat *format,
                                     GError         **error);

/* PNG: width x height logical pixels, times `scale` (2 for HiDPI) in the file.
 * SVG: pixel units (cairo_svg_surface_set_document_unit). PDF: one point per unit.
 * Written to a temporary file beside `path` and renamed over it: a failure leaves
 * no partial file and keeps an existing one. */
gboolean plx_render_export (const char           *path,
                            double                width,
                            double                height,
                            double                scale,
                            const PlxRenderStyle *style,
                            PlxDrawFunc           draw,
                            gpointer              data,
                            GError              **error);

G_END_DECLS
