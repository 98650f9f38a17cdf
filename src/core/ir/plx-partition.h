/* plx-partition.h: splitting a model over devices (Tavarageri et al. 2019, "Automatic
 * Model Parallelism for Deep Neural Networks with Compiler and Hardware Support":
 * nodes weighted by their compute, edges by what a cut makes them send). This part:
 * chains - every transformer and any graph taken in program order - split into
 * contiguous parts. docs/partition.md. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The optimal contiguous split of a chain of n nodes into `parts` non-empty parts:
 * node i takes node_s[i] (forward and backward); cutting after node i costs cut_s[i]
 * (i < n - 1: the activations sent on and the gradients sent back) to both parts
 * beside the cut. A part's time is its nodes' plus its cuts'; the split minimises the
 * largest, by dynamic programming over (parts, prefix), exact (bounded: about
 * n^2 ln(parts) / 2 steps).
 * `first` (parts entries) gets each part's first node; returns the largest part time.
 * Needs 1 <= parts <= n; times >= 0. */
double plx_partition_chain (const double *node_s,
                            const double *cut_s,
                            guint         n,
                            guint         parts,
                            guint        *first);

/* The time of part [a, b] (inclusive) of the chain, as plx_partition_chain counts it. */
double plx_partition_part_time (const double *node_s,
                                const double *cut_s,
                                guint         n,
                                guint         a,
                                guint         b);

G_END_DECLS
