/* plx-partition-view.h: a graph's forward ops as a DAG coloured by pipeline stage,
 * cut edges marked (plx-partition-chart.h); hovering an op names it, its kind and
 * its stage. */
#pragma once

#include <gtk/gtk.h>

#include "parallax/parallax.h"
#include "ir/plx-ir.h"

G_BEGIN_DECLS

#define PLX_TYPE_PARTITION_VIEW (plx_partition_view_get_type ())
G_DECLARE_FINAL_TYPE (PlxPartitionView, plx_partition_view, PLX, PARTITION_VIEW, GtkWidget)

GtkWidget *plx_partition_view_new (void);
/* Draws `forward`'s ops (a forward graph: ops in topological order), op i on stage
 * stage[i] of n_stages; copied. NULL clears it. */
void       plx_partition_view_set (PlxPartitionView *self,
                                   const PlxIrGraph *forward,
                                   const guint      *stage,
                                   guint             n_stages);
void       plx_partition_view_set_dark (PlxPartitionView *self,
                                        gboolean          dark);
/* What it shows: the stage of the op named `op` (-1: none such), the stages, the
 * edges between stages. */
gint       plx_partition_view_get_stage (PlxPartitionView *self,
                                         const char       *op);
guint      plx_partition_view_get_n_stages (PlxPartitionView *self);
guint      plx_partition_view_get_n_cut (PlxPartitionView *self);

G_END_DECLS
