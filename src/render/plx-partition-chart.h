/* plx-partition-chart.h: a graph's forward ops as a left-to-right DAG, each op a box
 * in the column of its depth (the longest path to it from the graph's inputs),
 * coloured by the pipeline stage it runs on; an edge whose producer and consumer
 * are on different stages (a cut: activations sent forward, gradients back) drawn
 * in the warning colour. Thousands of ops draw as small boxes without names. */
#pragma once

#include <cairo.h>

#include "plx-render-style.h"

G_BEGIN_DECLS

/* The graph to draw: ops in topological order, each edge from < to. */
typedef struct
{
  guint              n_ops;
  const char *const *names;       /* per op */
  const guint       *stage;       /* per op */
  guint              n_stages;
  guint              n_edges;
  const guint       *edge_from;   /* producer op */
  const guint       *edge_to;     /* consumer op */
} PlxPartitionGraph;

typedef struct
{
  double   x0, y0, x1, y1;        /* 0..1 of the chart */
  guint    op;
  guint    stage;
  guint    layer;
  gboolean named;                 /* its name fits inside */
} PlxPartitionBox;

typedef struct
{
  guint    from, to;              /* ops (= boxes: box i is op i) */
  gboolean cut;
} PlxPartitionEdge;

typedef struct
{
  double  width_px, height_px, font_size;
  double  plot_x0, plot_x1, plot_y0, plot_y1;   /* 0..1 of the chart */
  GArray *boxes;                  /* PlxPartitionBox, one per op, in op order */
  GArray *edges;                  /* PlxPartitionEdge */
  guint   n_layers, n_rows, n_stages, n_cut;
  const char *const *names;       /* the graph's, not owned */
  char    summary[200];           /* "306 ops on 2 stages · 3 cut edges" */
} PlxPartitionLayout;

PlxPartitionLayout *plx_partition_layout_new (const PlxPartitionGraph *graph,
                                              double                   width_px,
                                              double                   height_px);
void                plx_partition_layout_free (PlxPartitionLayout *layout);
void                plx_partition_chart_render (const PlxPartitionLayout *layout,
                                                const PlxRenderStyle     *style,
                                                cairo_t                  *cr,
                                                double                    width,
                                                double                    height);
/* The op whose box is under (x, y) (0..1 of the chart), or within 3 px of it when
 * boxes are small; -1 if none. */
gint                plx_partition_layout_hit (const PlxPartitionLayout *layout,
                                              double                    x,
                                              double                    y);
/* Stage s's colour: the style's palette without its warning colour and the orange
 * beside it, in turn (six colours). */
PlxColor            plx_partition_stage_color (const PlxRenderStyle *style,
                                               guint                 stage);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxPartitionLayout, plx_partition_layout_free)

G_END_DECLS
