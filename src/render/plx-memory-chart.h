/* plx-memory-chart.h: memory per GPU. Top: one stacked bar per pipeline stage by
 * category, with the HBM capacity as a line and anything above it marked. Bottom:
 * memory over the step for one stage, from the simulator's MemoryTrace. */
#pragma once

#include <cairo.h>

#include "parallax/plx-sim.h"

#include "plx-axis.h"
#include "plx-render-style.h"

G_BEGIN_DECLS

#define PLX_N_LEGEND (PLX_N_MEM + 2)

typedef struct
{
  double      width_px;
  double      height_px;
  double      capacity_bytes;   /* HBM of one GPU */
  double      usable_bytes;     /* capacity less reserved; 0 = same as capacity */
  double      step_time_s;
  gint        rank;             /* the stage drawn over time; -1: the one with the highest peak */
  const char *title;
  gboolean    over_time;        /* draw the bottom panel */
} PlxMemoryOptions;

typedef struct
{
  double x0, x1;                /* 0..1 */
  double seg_y0[PLX_N_MEM];     /* 0..1, y grows downwards */
  double seg_y1[PLX_N_MEM];
  double total_bytes;
  double over_y0, over_y1;      /* the part above usable capacity (empty if it fits) */
  guint  stage;
} PlxMemoryBar;

typedef struct
{
  double x, y;                  /* 0..1 */
} PlxChartPoint;

typedef struct
{
  double x, y, width, height;   /* pixels */
} PlxMemoryBox;

typedef struct
{
  double  width_px, height_px, font_size;
  /* Stacked bars. */
  double  bars_x0, bars_x1, bars_y0, bars_y1;
  double  max_bytes;            /* the top of the bars' axis */
  double  capacity_y;           /* the capacity line */
  double  usable_y;             /* the usable-memory line, drawn and hatched from */
  char    capacity_label[96];   /* "usable memory, 77 of 80 GiB HBM", in the legend */
  /* Legend entries: the categories, the usable line, the hatching (when any_over). */
  double  legend_x[PLX_N_MEM + 2];   /* left edge, pixels */
  guint   legend_row[PLX_N_MEM + 2];
  /* Each entry's swatch and text (Pango's upper-bound width, the text's line height),
   * where the renderer draws it; zero size for an entry not shown. */
  PlxMemoryBox legend_box[PLX_N_MEM + 2];
  guint   legend_rows;
  double  legend_px;            /* the height the legend takes at the bottom */
  GArray *bars;                 /* PlxMemoryBar */
  GArray *bar_ticks;            /* PlxAxisTick, position 0..1 down the bars' axis */
  guint   label_every;          /* stage labels under every n-th bar */
  /* Over time. */
  gboolean over_time;
  guint   rank;
  double  time_x0, time_x1, time_y0, time_y1;
  double  time_max_bytes;
  double  time_capacity_y;
  double  time_usable_y;
  double  time_static_y;        /* model states and buffers: constant over the step */
  GArray *points;               /* PlxChartPoint: the stage's total memory as a step line */
  GArray *time_ticks;           /* PlxAxisTick along x */
  GArray *time_byte_ticks;      /* PlxAxisTick along y */
  char    title[200];
  char    time_title[120];
  gboolean per_device;          /* bars are a program's devices, not pipeline stages */
  gboolean any_over;
} PlxMemoryLayout;

void             plx_memory_options_init (PlxMemoryOptions *options,
                                          double            width_px,
                                          double            height_px);
PlxMemoryLayout *plx_memory_layout_new (const PlxMemoryTrace   *trace,
                                        const PlxMemoryOptions *options);
void             plx_memory_layout_free (PlxMemoryLayout *layout);
void             plx_memory_chart_render (const PlxMemoryLayout *layout,
                                          const PlxRenderStyle  *style,
                                          cairo_t               *cr,
                                          double                 width,
                                          double                 height);
/* The stage with the highest total peak. */
guint            plx_memory_trace_peak_rank (const PlxMemoryTrace *trace);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxMemoryLayout, plx_memory_layout_free)

G_END_DECLS
