/* The palette is Okabe and Ito's colour-blind-safe set ("Color Universal Design",
 * 2008): eight colours distinguishable under protanopia, deuteranopia and tritanopia.
 * Each kind of work gets its own; the bubble is the row's background. */
#include <glib/gi18n-lib.h>

#include "plx-render-style.h"

static PlxColor
hex (guint32 rgb)
{
  PlxColor c = { ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0, (rgb & 0xff) / 255.0 };
  return c;
}

void
plx_render_style_init (PlxRenderStyle *s,
                       gboolean        dark,
                       double          scale)
{
  s->dark = dark;
  s->scale = scale > 0.0 ? scale : 1.0;
  s->background = dark ? hex (0x1e1e1e) : hex (0xffffff);
  s->foreground = dark ? hex (0xeeeeee) : hex (0x1e1e1e);
  s->muted = dark ? hex (0xaaaaaa) : hex (0x5e5c64);
  s->grid = dark ? hex (0x3a3a3a) : hex (0xdeddda);
  s->idle = dark ? hex (0x2c2c2c) : hex (0xf2f2f2);

  /* Forward and backward, the bulk of any timeline, get the two most distinct hues;
   * TP collectives, interleaved with both, a third that differs from each. */
  s->kind[PLX_KIND_FORWARD] = hex (0x0072b2);     /* blue */
  s->kind[PLX_KIND_BACKWARD] = hex (0xe69f00);    /* orange */
  s->kind[PLX_KIND_WEIGHT_GRAD] = hex (0x009e73); /* bluish green */
  s->kind[PLX_KIND_RECOMPUTE] = hex (0xf0e442);   /* yellow */
  s->kind[PLX_KIND_TP_COMM] = hex (0xcc79a7);     /* reddish purple */
  s->kind[PLX_KIND_PP_SEND] = hex (0xd55e00);     /* vermillion */
  s->kind[PLX_KIND_DP_COMM] = hex (0x56b4e9);     /* sky blue */
  s->kind[PLX_KIND_OPTIMIZER] = dark ? hex (0xbbbbbb) : hex (0x555555);

  /* Memory has its own colours, so no memory category looks like a kind of work when a
   * chart shows both (the comparison does). The model states - weights, gradients,
   * optimizer state, all proportional to the parameters - are three lightness steps of
   * one indigo, told apart by lightness under any colour-vision deficiency;
   * activations are wine; "other" is neutral. Indigo and wine are in none of the
   * timeline's hues. Lighter steps in dark style keep contrast with the background. */
  s->memory[PLX_MEM_WEIGHTS] = dark ? hex (0x7b6fd6) : hex (0x332288);
  s->memory[PLX_MEM_GRADIENTS] = dark ? hex (0xa69cf0) : hex (0x6a5acd);
  s->memory[PLX_MEM_OPTIMIZER] = dark ? hex (0xd4cef8) : hex (0xb3a9e8);
  s->memory[PLX_MEM_ACTIVATIONS] = dark ? hex (0xc9487f) : hex (0x882255);
  s->memory[PLX_MEM_OTHER] = dark ? hex (0x888888) : hex (0xaaaaaa);
  s->capacity = dark ? hex (0xffffff) : hex (0x000000);
  s->over = hex (0xd55e00);

  s->font_family = "Cantarell, DejaVu Sans, sans-serif";
  s->font_size = 12.0;
  s->title_size = 15.0;
}

PlxColor
plx_render_style_text_on (const PlxRenderStyle *style,
                          PlxColor              fill)
{
  /* Relative luminance, ITU-R BT.709 weights. */
  double y = 0.2126 * fill.r + 0.7152 * fill.g + 0.0722 * fill.b;
  PlxColor black = { 0, 0, 0 }, white = { 1, 1, 1 };

  return y > 0.5 ? black : white;
}

const char *
plx_task_kind_display_name (PlxTaskKind kind)
{
  static const char *const names[PLX_N_KINDS] = {
    N_("Forward"), N_("Backward"), N_("Weight gradients"), N_("Recompute"), N_("TP / CP / EP comm"),
    N_("Pipeline send"), N_("DP comm"), N_("Optimizer"),
  };
  return _(names[kind]);
}

const char *
plx_mem_category_display_name (PlxMemCategory category)
{
  static const char *const names[PLX_N_MEM] = {
    N_("Weights"), N_("Gradients"), N_("Optimizer state"), N_("Activations"), N_("Other"),
  };
  return _(names[category]);
}
