/* plx-layer-split.h: how many layers each model chunk holds.
 *
 * K = pp * virtual_stages chunks; chunk k runs on stage k % pp and holds the layers
 * after chunk k-1's (Narayanan et al. 2021 §2.2: with interleaving, stage i holds
 * chunks i, i + pp, ...). The first chunk also runs the embedding and the last the LM
 * head and loss, each worth `first_extra` and `last_extra` layers of time. */
#pragma once

#include "parallax/plx-strategy.h"

G_BEGIN_DECLS

/* Whether the split is anything but n_layers / K each. */
gboolean plx_layer_split_is_uneven (const PlxStrategy *s,
                                    guint              n_layers);

/* Fills `out` (K entries): the strategy's own counts when it gives K of them; else
 * n_layers / K each when they divide and "auto" was not asked for; else the balanced
 * split, the one with the smallest largest chunk time (in layers, counting the
 * extras), exact for a chain of equal layers. The extras are relative to a middle
 * chunk's and may be negative: plx_costing_layer_split counts each chunk's sends by
 * passing the embedding and head less one send (the ends have one neighbour, the
 * middle chunks two). Of the balanced splits with that
 * largest time, the layers left over go to the last middle chunks, so the early
 * stages - which hold the most micro-batches in flight under 1F1B - hold fewer. */
void     plx_layer_split (const PlxStrategy *s,
                          guint              n_layers,
                          double             first_extra,
                          double             last_extra,
                          guint             *out);

/* The split a framework makes without looking at the costs, for comparison: n / K
 * each when that divides ("even"), else DeepSpeed's partition_uniform, the first
 * n mod K chunks one layer more ("uniform"). Returns that name. */
const char *plx_layer_split_uniform (guint  n_layers,
                                     guint  k,
                                     guint *out);

typedef enum
{
  PLX_CHUNK_FIRST,   /* chunk 0: with the embedding */
  PLX_CHUNK_LAST,    /* chunk K-1: with the LM head and loss */
  PLX_CHUNK_MIDDLE,
} PlxChunkKind;

/* A chunk's time (any unit) with n_layers layers; must not fall as n_layers grows. */
typedef double (*PlxChunkCostFunc) (PlxChunkKind kind,
                                    guint        n_layers,
                                    gpointer     data);

/* As plx_layer_split when the time of a chunk is not linear in its layers (ZeRO-3's
 * gathers hide behind compute only partly): the split with the smallest largest
 * chunk time under `cost`, exact for a chain of equal layers. */
void     plx_layer_split_by_cost (const PlxStrategy *s,
                                  guint              n_layers,
                                  PlxChunkCostFunc   cost,
                                  gpointer           data,
                                  guint             *out);

G_END_DECLS
