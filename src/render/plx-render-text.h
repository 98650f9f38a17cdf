/* plx-render-text.h: text on a cairo_t through Pango, in the chart style. */
#pragma once

#include <cairo.h>

#include "plx-render-style.h"

G_BEGIN_DECLS

typedef enum
{
  PLX_TEXT_NORMAL,
  PLX_TEXT_BOLD,
} PlxTextWeight;

/* Draws `text` with its anchor at (x, y); align_x/align_y 0 = left/top, 0.5 centre,
 * 1 = right/bottom. Returns the text's width in user units. */
double plx_render_text (cairo_t              *cr,
                        const PlxRenderStyle *style,
                        const char           *text,
                        double                x,
                        double                y,
                        double                size,
                        PlxColor              color,
                        double                align_x,
                        double                align_y,
                        PlxTextWeight         weight);
double plx_render_text_width (cairo_t              *cr,
                              const PlxRenderStyle *style,
                              const char           *text,
                              double                size,
                              PlxTextWeight         weight);
/* Estimate used by layouts, which have no cairo_t: Pango's average advance for
 * Cantarell and DejaVu Sans is below 0.62 em. */
double plx_render_text_estimate (const char *text,
                                 double      size);
void   plx_render_set_color (cairo_t *cr,
                             PlxColor color);
/* Starts fontconfig's first initialisation, which Pango runs in a thread of its own
 * once the thread's font map exists, so that a layout made before the first text is
 * drawn overlaps it instead of waiting for it at that text. Does nothing after the
 * process's first call, on any thread. */
void   plx_render_text_prepare (void);

G_END_DECLS
