#include <pango/pangocairo.h>

#include "plx-render-text.h"

static PangoLayout *
make_layout (cairo_t              *cr,
             const PlxRenderStyle *style,
             const char           *text,
             double                size,
             PlxTextWeight         weight)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *desc = pango_font_description_from_string (style->font_family);

  pango_font_description_set_absolute_size (desc, size * PANGO_SCALE);
  pango_font_description_set_weight (desc, weight == PLX_TEXT_BOLD ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
  pango_layout_set_font_description (layout, desc);
  pango_font_description_free (desc);
  pango_layout_set_text (layout, text, -1);
  return layout;
}

void
plx_render_text_prepare (void)
{
  static gsize started = 0;

  /* Pango's default font map is one per thread; fontconfig's initialisation is once
   * a process. Only the process's first call starts it: a later one on another
   * thread (the window's worker lays timelines out) would make that thread a font
   * map it never draws with. */
  if (g_once_init_enter (&started))
    {
      pango_cairo_font_map_get_default ();
      g_once_init_leave (&started, 1);
    }
}

void
plx_render_set_color (cairo_t *cr,
                      PlxColor color)
{
  cairo_set_source_rgb (cr, color.r, color.g, color.b);
}

double
plx_render_text (cairo_t              *cr,
                 const PlxRenderStyle *style,
                 const char           *text,
                 double                x,
                 double                y,
                 double                size,
                 PlxColor              color,
                 double                align_x,
                 double                align_y,
                 PlxTextWeight         weight)
{
  g_autoptr (PangoLayout) layout = make_layout (cr, style, text, size, weight);
  PangoRectangle logical;

  pango_layout_get_pixel_extents (layout, NULL, &logical);
  plx_render_set_color (cr, color);
  cairo_move_to (cr, x - align_x * logical.width, y - align_y * logical.height);
  pango_cairo_show_layout (cr, layout);
  return logical.width;
}

double
plx_render_text_width (cairo_t              *cr,
                       const PlxRenderStyle *style,
                       const char           *text,
                       double                size,
                       PlxTextWeight         weight)
{
  g_autoptr (PangoLayout) layout = make_layout (cr, style, text, size, weight);
  PangoRectangle logical;

  pango_layout_get_pixel_extents (layout, NULL, &logical);
  return logical.width;
}

double
plx_render_text_estimate (const char *text,
                          double      size)
{
  return g_utf8_strlen (text, -1) * 0.62 * size;
}
