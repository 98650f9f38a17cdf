/* plx-render-style.h: colours, fonts and sizes shared by every chart. */
#pragma once

#include <glib.h>

#include "parallax/plx-plan.h"
#include "parallax/plx-report.h"

G_BEGIN_DECLS

typedef struct
{
  double r, g, b;
} PlxColor;

typedef struct
{
  gboolean    dark;
  double      scale;            /* 1 or 2 (HiDPI); sizes below are at scale 1, in px */
  PlxColor    background;
  PlxColor    foreground;
  PlxColor    muted;            /* axis labels, secondary text */
  PlxColor    grid;
  PlxColor    idle;             /* a row's time with nothing running: the bubble */
  PlxColor    kind[PLX_N_KINDS];
  PlxColor    memory[PLX_N_MEM];
  PlxColor    capacity;         /* the HBM capacity line */
  PlxColor    over;             /* memory above capacity */
  const char *font_family;
  double      font_size;        /* body text */
  double      title_size;
} PlxRenderStyle;

void plx_render_style_init (PlxRenderStyle *style,
                            gboolean        dark,
                            double          scale);
/* A readable text colour on `fill` (black or white by luminance). */
PlxColor plx_render_style_text_on (const PlxRenderStyle *style,
                                   PlxColor              fill);
const char *plx_task_kind_display_name (PlxTaskKind kind);
const char *plx_mem_category_display_name (PlxMemCategory category);

G_END_DECLS
