/* plx-collective.h: where a process group sits on the topology, and what its
 * collectives cost (latency-bandwidth model with measured bus-bandwidth efficiency). */
#pragma once

#include <glib.h>

#include "parallax/plx-cluster.h"

G_BEGIN_DECLS

/* The bus bandwidth a link sustains at `bytes` on one of its efficiency curves (its
 * own `efficiency` or a collective's in efficiency_by_collective): the peak times the
 * curve's efficiency there and the link's calibration scale, capped at the peak (the
 * nccl-tests busbw definition, docs/cost-model.md). Inline: the collective model reads
 * it a few times per configuration in the search. */
static inline double
plx_link_bandwidth (const PlxLink  *link,
                    const PlxCurve *curve,
                    double          bytes)
{
  /* Evaluated once: MIN would evaluate its arguments twice. */
  double eff = plx_curve_eval (curve, bytes) * link->scale;
  return link->bw_Bps * MIN (1.0, eff);
}

typedef struct
{
  guint size;           /* ranks in the group */
  guint ranks_per_node; /* members of the group inside one node */
  guint nodes;          /* nodes the group spans */
} PlxGroup;

/* A group of `size` ranks whose consecutive members are `stride` ranks apart, on a
 * cluster that numbers ranks node by node. */
PlxGroup plx_group_place (const PlxCluster *cluster,
                          guint             size,
                          guint             stride);

/* The group of these ranks (any order, any spacing) on a cluster that numbers ranks
 * node by node: the nodes they touch and the most of them in one node. */
PlxGroup plx_group_of_ranks (const PlxCluster *cluster,
                             const guint      *ranks,
                             guint             n);

/* Time of one collective over `bytes`: the whole buffer for all-reduce and
 * reduce-scatter input, the gathered output for all-gather, each rank's send buffer
 * for all-to-all, the message for send/recv. */
double plx_collective_time (const PlxCluster  *cluster,
                            PlxCollectiveKind  kind,
                            const PlxGroup    *group,
                            double             bytes);

/* The latency of an all-gather's or reduce-scatter's ring steps alone, the part a
 * call pays again whenever calls cannot pipeline into one another. */
double plx_collective_ring_steps_latency (const PlxCluster *cluster,
                                          const PlxGroup   *group);

/* An all-to-all in two levels, as DeepEP runs it: each rank sends `inter_bytes` over
 * its own NIC to the other nodes and `intra_bytes` over NVLink, concurrently, each at
 * the all-to-all busbw of its link for the message to one peer. */
double plx_collective_two_level_all_to_all_time (const PlxCluster *cluster,
                                                 const PlxGroup   *group,
                                                 double            inter_bytes,
                                                 double            intra_bytes);

double plx_collective_ring_all_reduce_time (const PlxCluster *cluster,
                                            const PlxGroup   *group,
                                            double            bytes);
double plx_collective_hierarchical_all_reduce_time (const PlxCluster *cluster,
                                                    const PlxGroup   *group,
                                                    double            bytes);

G_END_DECLS
