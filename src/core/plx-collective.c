/* Collective costs: the latency-bandwidth ("alpha-beta") model of Thakur, Rabenseifner
 * and Gropp 2005, "Optimization of Collective Communication Operations in MPICH",
 * §3-4: a ring all-reduce of n bytes over p ranks takes 2(p-1) steps of n/p bytes,
 * t = 2(p-1) alpha + 2 (p-1)/p n / B; all-gather and reduce-scatter take half.
 * B is the achieved bus bandwidth, the link's peak times the measured efficiency at
 * that message size (the nccl-tests "busbw" definition, NVIDIA nccl-tests
 * doc/PERFORMANCE.md), so the published busbw curves plug in unchanged.
 *
 * Those curves are measured end to end, so small messages already pay their latency
 * in them; the alpha term is therefore a floor, max(steps * alpha, bytes term),
 * which matters only for groups much larger than the ones measured. */
#include <math.h>

#include "parallax/plx-collective.h"

PlxGroup
plx_group_place (const PlxCluster *cluster,
                 guint             size,
                 guint             stride)
{
  PlxGroup g;
  guint per_node = cluster->gpus_per_node;

  g.size = MAX (size, 1);
  if (stride == 0)
    stride = 1;
  if (stride >= per_node)
    g.ranks_per_node = 1;
  else
    g.ranks_per_node = MIN (g.size, MAX (per_node / stride, 1));
  g.nodes = (g.size + g.ranks_per_node - 1) / g.ranks_per_node;
  return g;
}

static double
link_busbw (const PlxLink *link,
            double         bytes)
{
  /* Evaluated once: MIN would evaluate its arguments twice. */
  double eff = plx_curve_eval (link->efficiency, bytes) * link->scale;
  return link->bw_Bps * MIN (1.0, eff);
}

/* The bandwidth a flat ring over the group sustains. NCCL runs one ring per NIC, so a
 * ring that leaves the node gets the node's members' NICs together, unless NVLink is
 * the narrower path (NCCL docs, "NCCL_CROSS_NIC"; Jeaugey, GTC 2020 "NCCL 2.x"). */
static double
ring_bandwidth (const PlxCluster *c,
                const PlxGroup   *g,
                double            bytes)
{
  double intra = link_busbw (&c->intra_node, bytes);
  double inter;

  if (g->nodes <= 1)
    return intra;
  inter = link_busbw (&c->inter_node, bytes) * g->ranks_per_node;
  return g->ranks_per_node > 1 ? MIN (intra, inter) : inter;
}

static double
ring_latency (const PlxCluster *c,
              const PlxGroup   *g)
{
  return g->nodes > 1 ? c->inter_node.latency_s : c->intra_node.latency_s;
}

double
plx_collective_ring_all_reduce_time (const PlxCluster *c,
                                     const PlxGroup   *g,
                                     double            bytes)
{
  double p = g->size;

  if (g->size <= 1 || bytes <= 0.0)
    return 0.0;
  return MAX (2.0 * (p - 1.0) * ring_latency (c, g),
              2.0 * (p - 1.0) / p * bytes / ring_bandwidth (c, g, bytes));
}

/* Reduce-scatter inside each node, all-reduce of each 1/k shard across nodes (every
 * GPU on its own NIC), all-gather inside the node: fewer latency steps than the flat
 * ring (Jia et al. 2018, "Highly Scalable Deep Learning Training System with
 * Mixed-Precision", §3.3 hierarchical all-reduce). */
double
plx_collective_hierarchical_all_reduce_time (const PlxCluster *c,
                                             const PlxGroup   *g,
                                             double            bytes)
{
  double k = g->ranks_per_node, n = g->nodes;
  double shard = bytes / k;
  double t = 0.0;

  if (g->size <= 1 || bytes <= 0.0)
    return 0.0;
  if (k > 1.0)
    t += 2.0 * MAX ((k - 1.0) * c->intra_node.latency_s,
                    (k - 1.0) / k * bytes / link_busbw (&c->intra_node, bytes));
  if (n > 1.0)
    t += MAX (2.0 * (n - 1.0) * c->inter_node.latency_s,
              2.0 * (n - 1.0) / n * shard / link_busbw (&c->inter_node, shard));
  return t;
}

static double
half_ring_time (const PlxCluster *c,
                const PlxGroup   *g,
                double            bytes)
{
  double p = g->size;

  return MAX ((p - 1.0) * ring_latency (c, g), (p - 1.0) / p * bytes / ring_bandwidth (c, g, bytes));
}

/* Every rank sends 1/p of its buffer to each other rank at once: the part for ranks
 * in the node goes over NVLink, the rest over the rank's own NIC, concurrently. */
static double
all_to_all_time (const PlxCluster *c,
                 const PlxGroup   *g,
                 double            bytes)
{
  double p = g->size, k = g->ranks_per_node;
  double intra = (k - 1.0) / p * bytes / link_busbw (&c->intra_node, bytes / p);
  double inter = (p - k) / p * bytes / link_busbw (&c->inter_node, bytes / p);

  return MAX ((p - 1.0) * (g->nodes > 1 ? c->inter_node.latency_s : c->intra_node.latency_s),
              MAX (intra, inter));
}

double
plx_collective_time (const PlxCluster  *cluster,
                     PlxCollectiveKind  kind,
                     const PlxGroup    *group,
                     double             bytes)
{
  const PlxLink *link;

  if (group->size <= 1 || bytes <= 0.0)
    return 0.0;

  switch (kind)
    {
    case PLX_COLLECTIVE_ALL_REDUCE:
      /* NCCL's tuner picks the faster algorithm; so do we. */
      return MIN (plx_collective_ring_all_reduce_time (cluster, group, bytes),
                  plx_collective_hierarchical_all_reduce_time (cluster, group, bytes));
    case PLX_COLLECTIVE_ALL_GATHER:
    case PLX_COLLECTIVE_REDUCE_SCATTER:
      return half_ring_time (cluster, group, bytes);
    case PLX_COLLECTIVE_ALL_TO_ALL:
      return all_to_all_time (cluster, group, bytes);
    case PLX_COLLECTIVE_SEND_RECV:
      link = group->nodes > 1 ? &cluster->inter_node : &cluster->intra_node;
      return MAX (link->latency_s, bytes / link_busbw (link, bytes));
    default:
      g_return_val_if_reached (0.0);
    }
}
