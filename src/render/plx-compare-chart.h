/* plx-compare-chart.h: two scenarios side by side: their timelines on one time scale,
 * one above the other; the step-time breakdown of each with the differences labelled;
 * memory of each one's fullest GPU against capacity. */
#pragma once

#include <cairo.h>

#include "parallax/plx-report.h"
#include "parallax/plx-sim.h"

#include "plx-render-style.h"
#include "plx-timeline-chart.h"

G_BEGIN_DECLS

typedef struct
{
  const char        *name;
  const PlxReport   *report;
  const PlxTimeline *timeline;
  const char        *model;    /* the model's name; NULL: not known (taken as the other's) */
} PlxCompareSide;

typedef struct
{
  double y0, y1;                     /* 0..1 */
  double x0[PLX_N_TIME], x1[PLX_N_TIME];
} PlxBreakdownBar;

typedef struct
{
  double x0, x1;
  double seg_y0[PLX_N_MEM], seg_y1[PLX_N_MEM];
  double over_y0, over_y1;
} PlxCompareMemoryBar;

typedef struct
{
  double             width_px, height_px, font_size;
  PlxTimelineLayout *timeline[2];
  double             bd_x0, bd_x1, bd_y0, bd_y1;
  PlxBreakdownBar    breakdown[2];
  char               diff[PLX_N_TIME][160];    /* "" where both are zero */
  /* The differences to list, largest change first, and where each line starts (0..1;
   * y is the line's top): two columns when the longest line fits twice, else one. */
  guint              n_diff;
  PlxTimeCategory    diff_order[PLX_N_TIME];
  double             diff_x[PLX_N_TIME], diff_y[PLX_N_TIME];
  double             diff_column_width_px;
  double             mem_x0, mem_x1, mem_y0, mem_y1;
  PlxCompareMemoryBar memory[2];
  double             capacity_y;               /* A's usable HBM */
  double             capacity_y_side[2];       /* each side's usable HBM (clusters may differ) */
  char               capacity_label[64];       /* "usable 77 GiB of 80 GiB" */
  gboolean           fits[2];
  /* Memory legend, right of the bars: swatch column x and each entry's top (0..1). */
  double             mem_legend_x, mem_legend_y[PLX_N_MEM];
  double             max_bytes;
  char               name[2][160];
  char               title[300];               /* the verdict: "B is 4.1 % faster than A per step",
                                                * and which side does not fit in memory */
  char               step_label[2][32];
  char               memory_label[2][32];
} PlxCompareLayout;

PlxCompareLayout *plx_compare_layout_new (const PlxCompareSide *a,
                                          const PlxCompareSide *b,
                                          double                width_px,
                                          double                height_px);
void              plx_compare_layout_free (PlxCompareLayout *layout);
/* The verdict, the chart's title (the CLI prints it too): B's step time against A's
 * when both train the same model on as many GPUs with as many tokens a step; else
 * throughput and per-GPU throughput (same model), or MFU (different models), naming
 * what differs. Which side does not fit in memory either way. */
void              plx_compare_verdict (const PlxCompareSide *a,
                                       const PlxCompareSide *b,
                                       char                 *buf,
                                       gsize                 len);
void              plx_compare_chart_render (const PlxCompareLayout *layout,
                                            const PlxRenderStyle   *style,
                                            cairo_t                *cr,
                                            double                  width,
                                            double                  height);
/* The colour of a step-time category, matching the timeline's kinds. */
PlxColor          plx_render_style_time_color (const PlxRenderStyle *style,
                                               PlxTimeCategory       category);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxCompareLayout, plx_compare_layout_free)

G_END_DECLS
