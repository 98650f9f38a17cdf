/* The partition of a graph drawn as a layered DAG (plx-partition-chart.h). Layers
 * are depths, so every edge points right; inside a layer ops sit in the order of
 * their producers' mean row (one barycentre sweep, Sugiyama et al. 1981's crossing
 * reduction in its simplest form), which keeps a residual branch beside its trunk. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "plx-partition-chart.h"
#include "plx-render-text.h"

#define MARGIN_PX 12.0
/* The summary and the legend above the graph, so both are in sight with its top. */
#define TOP_PX 56.0
#define BOTTOM_PX 12.0
#define LEGEND_Y_PX 40.0
#define MAX_BOX_W_PX 160.0
#define MAX_BOX_H_PX 26.0
/* Stages named in the legend; more are "…". */
#define LEGEND_STAGES 8

void
plx_partition_layout_free (PlxPartitionLayout *l)
{
  if (l == NULL)
    return;
  g_array_unref (l->boxes);
  g_array_unref (l->edges);
  g_free (l);
}

PlxColor
plx_partition_stage_color (const PlxRenderStyle *style,
                           guint                 stage)
{
  /* The timeline's kind colours are the Okabe-Ito palette; vermillion is left out
   * for cut edges, and orange, too near it to tell a cut across an orange stage. */
  const PlxColor palette[] = { style->kind[PLX_KIND_FORWARD], style->kind[PLX_KIND_WEIGHT_GRAD],
                               style->kind[PLX_KIND_RECOMPUTE], style->kind[PLX_KIND_TP_COMM],
                               style->kind[PLX_KIND_DP_COMM], style->kind[PLX_KIND_OPTIMIZER] };

  return palette[stage % G_N_ELEMENTS (palette)];
}

typedef struct
{
  double key;
  guint  op;
} Slot;

static int
compare_slots (const void *pa, const void *pb)
{
  const Slot *a = pa, *b = pb;

  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  return a->op < b->op ? -1 : a->op > b->op;
}

PlxPartitionLayout *
plx_partition_layout_new (const PlxPartitionGraph *g,
                          double                   width_px,
                          double                   height_px)
{
  PlxPartitionLayout *l = g_new0 (PlxPartitionLayout, 1);
  double w = MAX (width_px, 40.0), h = MAX (height_px, 40.0);
  guint n = g->n_ops;
  g_autofree guint *layer = g_new0 (guint, MAX (n, 1));
  g_autofree guint *in_start = g_new0 (guint, n + 1);
  g_autofree guint *in_from = g_new (guint, MAX (g->n_edges, 1));
  g_autofree guint *layer_size = NULL;
  g_autofree double *row = g_new0 (double, MAX (n, 1));   /* centred: 0 is the middle */
  g_autofree Slot *slots = g_new (Slot, MAX (n, 1));
  double plot_w, plot_h, col_w, row_h, box_w, box_h, fs;

  l->boxes = g_array_sized_new (FALSE, FALSE, sizeof (PlxPartitionBox), n);
  l->edges = g_array_sized_new (FALSE, FALSE, sizeof (PlxPartitionEdge), g->n_edges);
  l->width_px = w;
  l->height_px = h;
  l->font_size = fs = 12.0;
  l->names = g->names;
  l->n_stages = g->n_stages;
  l->plot_x0 = MARGIN_PX / w;
  l->plot_x1 = 1.0 - MARGIN_PX / w;
  l->plot_y0 = MIN (TOP_PX / h, 0.4);
  l->plot_y1 = MAX (1.0 - BOTTOM_PX / h, 0.6);

  /* Each op's producers (CSR by consumer), and its depth. */
  for (guint e = 0; e < g->n_edges; e++)
    in_start[g->edge_to[e] + 1]++;
  for (guint i = 0; i < n; i++)
    in_start[i + 1] += in_start[i];
  {
    g_autofree guint *fill = g_memdup2 (in_start, (n + 1) * sizeof (guint));
    for (guint e = 0; e < g->n_edges; e++)
      in_from[fill[g->edge_to[e]]++] = g->edge_from[e];
  }
  for (guint i = 0; i < n; i++)
    {
      for (guint k = in_start[i]; k < in_start[i + 1]; k++)
        layer[i] = MAX (layer[i], layer[in_from[k]] + 1);
      l->n_layers = MAX (l->n_layers, layer[i] + 1);
    }
  layer_size = g_new0 (guint, MAX (l->n_layers, 1));
  for (guint i = 0; i < n; i++)
    {
      layer_size[layer[i]]++;
      l->n_rows = MAX (l->n_rows, layer_size[layer[i]]);
    }

  /* Rows, layer by layer: by the producers' mean row; an op with none by its index. */
  {
    g_autofree guint *first = g_new0 (guint, l->n_layers + 1);
    g_autofree guint *members = g_new (guint, MAX (n, 1));
    g_autofree guint *fill = NULL;
    for (guint i = 0; i < n; i++)
      first[layer[i] + 1]++;
    for (guint c = 0; c < l->n_layers; c++)
      first[c + 1] += first[c];
    fill = g_memdup2 (first, (l->n_layers + 1) * sizeof (guint));
    for (guint i = 0; i < n; i++)
      members[fill[layer[i]]++] = i;
    for (guint c = 0; c < l->n_layers; c++)
      {
        guint k = first[c + 1] - first[c];
        for (guint j = 0; j < k; j++)
          {
            guint op = members[first[c] + j];
            double sum = 0.0;
            for (guint q = in_start[op]; q < in_start[op + 1]; q++)
              sum += row[in_from[q]];
            slots[j].op = op;
            slots[j].key = in_start[op + 1] > in_start[op] ? sum / (in_start[op + 1] - in_start[op])
                                                           : (double) j - (k - 1) / 2.0;
          }
        qsort (slots, k, sizeof (Slot), compare_slots);
        for (guint j = 0; j < k; j++)
          row[slots[j].op] = (double) j - (k - 1) / 2.0;
      }
  }

  plot_w = (l->plot_x1 - l->plot_x0) * w;
  plot_h = (l->plot_y1 - l->plot_y0) * h;
  col_w = plot_w / MAX (l->n_layers, 1);
  /* Rows no further apart than two boxes' height, so branches stay by their trunk. */
  row_h = MIN (plot_h / MAX (l->n_rows, 1), 2.0 * MAX_BOX_H_PX);
  box_w = CLAMP (col_w * 0.72, 1.0, MAX_BOX_W_PX);
  box_h = CLAMP (row_h * 0.62, 1.0, MAX_BOX_H_PX);
  for (guint i = 0; i < n; i++)
    {
      PlxPartitionBox b;
      double cx = l->plot_x0 * w + (layer[i] + 0.5) * col_w;
      /* from the top down: a tall view below a short graph stays empty under it */
      double cy = l->plot_y0 * h + l->n_rows * row_h / 2.0 + row[i] * row_h;
      b.x0 = (cx - box_w / 2.0) / w;
      b.x1 = (cx + box_w / 2.0) / w;
      b.y0 = (cy - box_h / 2.0) / h;
      b.y1 = (cy + box_h / 2.0) / h;
      b.op = i;
      b.stage = g->stage[i];
      b.layer = layer[i];
      b.named = g->names != NULL && box_h >= fs * 0.85 + 4.0 &&
                box_w >= plx_render_text_estimate (g->names[i], fs * 0.85) + 6.0;
      g_array_append_val (l->boxes, b);
    }
  for (guint e = 0; e < g->n_edges; e++)
    {
      PlxPartitionEdge edge = { g->edge_from[e], g->edge_to[e], g->stage[g->edge_from[e]] != g->stage[g->edge_to[e]] };
      l->n_cut += edge.cut;
      g_array_append_val (l->edges, edge);
    }
  /* TRANSLATORS: forward ops, pipeline stages, edges between stages. */
  g_snprintf (l->summary, sizeof l->summary, g_dngettext (GETTEXT_PACKAGE, "%u ops on %u stage · %u cut edges",
                                                          "%u ops on %u stages · %u cut edges", l->n_stages),
              n, l->n_stages, l->n_cut);
  return l;
}

static void
edge_path (cairo_t *cr, const PlxPartitionBox *a, const PlxPartitionBox *b, double width, double height)
{
  double x0 = a->x1 * width, y0 = (a->y0 + a->y1) / 2.0 * height;
  double x1 = b->x0 * width, y1 = (b->y0 + b->y1) / 2.0 * height;
  double bend = MAX ((x1 - x0) / 2.0, 4.0);

  cairo_move_to (cr, x0, y0);
  cairo_curve_to (cr, x0 + bend, y0, x1 - bend, y1, x1, y1);
}

void
plx_partition_chart_render (const PlxPartitionLayout *l,
                            const PlxRenderStyle     *style,
                            cairo_t                  *cr,
                            double                    width,
                            double                    height)
{
  double fs = style->font_size, x;
  const PlxPartitionBox *boxes = (const PlxPartitionBox *) (const void *) l->boxes->data;
  double thin = l->boxes->len > 500 ? 0.5 : 1.0;

  cairo_save (cr);
  plx_render_set_color (cr, style->background);
  cairo_paint (cr);
  plx_render_text (cr, style, l->summary, MARGIN_PX, 8.0, fs, style->muted, 0.0, 0.0, PLX_TEXT_NORMAL);

  /* Edges within a stage quietly, under the boxes; cut edges over everything. */
  cairo_set_line_width (cr, thin);
  for (guint e = 0; e < l->edges->len; e++)
    {
      const PlxPartitionEdge *edge = &g_array_index (l->edges, PlxPartitionEdge, e);
      if (!edge->cut)
        edge_path (cr, &boxes[edge->from], &boxes[edge->to], width, height);
    }
  plx_render_set_color (cr, style->muted);
  cairo_stroke (cr);

  for (guint s = 0; s < l->n_stages; s++)
    {
      gboolean any = FALSE;
      for (guint i = 0; i < l->boxes->len; i++)
        if (boxes[i].stage == s)
          {
            const PlxPartitionBox *b = &boxes[i];
            cairo_rectangle (cr, b->x0 * width, b->y0 * height, (b->x1 - b->x0) * width, (b->y1 - b->y0) * height);
            any = TRUE;
          }
      if (any)
        {
          plx_render_set_color (cr, plx_partition_stage_color (style, s));
          cairo_fill (cr);
        }
    }

  cairo_set_line_width (cr, l->boxes->len > 500 ? 1.0 : 2.0);
  for (guint e = 0; e < l->edges->len; e++)
    {
      const PlxPartitionEdge *edge = &g_array_index (l->edges, PlxPartitionEdge, e);
      if (edge->cut)
        edge_path (cr, &boxes[edge->from], &boxes[edge->to], width, height);
    }
  plx_render_set_color (cr, style->over);
  cairo_stroke (cr);
  /* A dot on each cut, which a short edge between neighbouring columns would hide. */
  for (guint e = 0; e < l->edges->len; e++)
    {
      const PlxPartitionEdge *edge = &g_array_index (l->edges, PlxPartitionEdge, e);
      const PlxPartitionBox *a = &boxes[edge->from], *b = &boxes[edge->to];
      if (!edge->cut)
        continue;
      cairo_new_sub_path (cr);
      cairo_arc (cr, (a->x1 + b->x0) / 2.0 * width, ((a->y0 + a->y1) / 2.0 + (b->y0 + b->y1) / 2.0) / 2.0 * height,
                 3.5, 0.0, 2.0 * G_PI);
    }
  cairo_fill_preserve (cr);
  /* ringed in the background colour, to stand out from any stage's boxes */
  cairo_set_line_width (cr, 1.0);
  plx_render_set_color (cr, style->background);
  cairo_stroke (cr);

  for (guint i = 0; i < l->boxes->len; i++)
    if (boxes[i].named)
      plx_render_text (cr, style, l->names[i], (boxes[i].x0 + boxes[i].x1) / 2.0 * width,
                       (boxes[i].y0 + boxes[i].y1) / 2.0 * height, fs * 0.85,
                       plx_render_style_text_on (style, plx_partition_stage_color (style, boxes[i].stage)), 0.5, 0.5,
                       PLX_TEXT_NORMAL);

  /* Legend: the stages' colours, then the cut edge. */
  x = MARGIN_PX;
  for (guint s = 0; s < MIN (l->n_stages, (guint) LEGEND_STAGES); s++)
    {
      char text[32];
      double y = LEGEND_Y_PX;
      g_snprintf (text, sizeof text, _("stage %u"), s);
      cairo_rectangle (cr, x, y - 6.0, 12.0, 12.0);
      plx_render_set_color (cr, plx_partition_stage_color (style, s));
      cairo_fill (cr);
      x += 18.0 + plx_render_text (cr, style, text, x + 18.0, y, fs, style->foreground, 0.0, 0.5, PLX_TEXT_NORMAL) +
           14.0;
    }
  if (l->n_stages > LEGEND_STAGES)
    x += plx_render_text (cr, style, "…", x, LEGEND_Y_PX, fs, style->foreground, 0.0, 0.5,
                          PLX_TEXT_NORMAL) + 14.0;
  cairo_set_line_width (cr, 2.0);
  cairo_move_to (cr, x, LEGEND_Y_PX);
  cairo_line_to (cr, x + 18.0, LEGEND_Y_PX);
  plx_render_set_color (cr, style->over);
  cairo_stroke (cr);
  plx_render_text (cr, style, _("cut edge (between stages)"), x + 24.0, LEGEND_Y_PX, fs,
                   style->foreground, 0.0, 0.5, PLX_TEXT_NORMAL);
  cairo_restore (cr);
}

gint
plx_partition_layout_hit (const PlxPartitionLayout *l,
                          double                    x,
                          double                    y)
{
  double slop_x = 3.0 / l->width_px, slop_y = 3.0 / l->height_px, best = G_MAXDOUBLE;
  gint hit = -1;

  for (guint i = 0; i < l->boxes->len; i++)
    {
      const PlxPartitionBox *b = &g_array_index (l->boxes, PlxPartitionBox, i);
      double dx, dy, d;
      if (x < b->x0 - slop_x || x > b->x1 + slop_x || y < b->y0 - slop_y || y > b->y1 + slop_y)
        continue;
      dx = (x - (b->x0 + b->x1) / 2.0) * l->width_px;
      dy = (y - (b->y0 + b->y1) / 2.0) * l->height_px;
      d = dx * dx + dy * dy;
      if (d < best)
        best = d, hit = (gint) i;
    }
  return hit;
}
