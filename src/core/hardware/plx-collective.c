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
 * which matters only for groups much larger than the ones measured.
 *
 * nccl-tests define busbw per collective (the same doc: its factor per op makes the
 * ops comparable against the hardware peak), but an op's achieved busbw still
 * depends on the algorithm NCCL runs for it: on H100 NVSwitch systems all-reduce
 * runs NVLink SHARP (NCCL 2.17 release notes, "NVLS") at 470 GB/s busbw where the
 * ring all-gather reaches 348 (tests/data/nccl-tests/h100-1x8-nvlink-five-ops.txt).
 * So a link may carry a curve per collective (efficiency_by_collective), read
 * instead of its own curve for that collective alone. */
#include <math.h>

#include "hardware/plx-collective.h"

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

PlxGroup
plx_group_of_ranks (const PlxCluster *cluster,
                    const guint      *devices,
                    guint             n)
{
  g_autoptr (GHashTable) per_node = NULL;
  PlxGroup g = { n, 0, 0 };

  if (n <= 64)
    {
      /* Small groups (every tensor- and most data-parallel ones): count in place,
       * no table to allocate per collective. */
      guint nodes[64], counts[64], n_nodes = 0;
      for (guint i = 0; i < n; i++)
        {
          guint node = devices[i] / cluster->gpus_per_node, k;
          for (k = 0; k < n_nodes && nodes[k] != node; k++)
            ;
          if (k == n_nodes)
            {
              nodes[n_nodes] = node;
              counts[n_nodes++] = 0;
            }
          /* Counted apart: MAX evaluates its arguments twice. */
          counts[k]++;
          g.ranks_per_node = MAX (g.ranks_per_node, counts[k]);
        }
      g.nodes = n_nodes;
      return g;
    }
  per_node = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < n; i++)
    {
      guint node = devices[i] / cluster->gpus_per_node;
      guint count = GPOINTER_TO_UINT (g_hash_table_lookup (per_node, GUINT_TO_POINTER (node))) + 1;
      g_hash_table_insert (per_node, GUINT_TO_POINTER (node), GUINT_TO_POINTER (count));
      g.ranks_per_node = MAX (g.ranks_per_node, count);
    }
  g.nodes = g_hash_table_size (per_node);
  return g;
}

/* The link's busbw for `kind`: the collective's own curve where the link has one,
 * the link's otherwise; the calibration factor applies to either. */
static double
link_busbw (const PlxLink     *link,
            PlxCollectiveKind  kind,
            double             bytes)
{
  const PlxCurve *own = link->efficiency_by_collective[kind];
  return plx_link_bandwidth (link, own != NULL ? own : link->efficiency, bytes);
}

/* The bandwidth a flat ring over the group sustains. NCCL runs one ring per NIC, so a
 * ring that leaves the node gets the node's members' NICs together, unless NVLink is
 * the narrower path (NCCL docs, "NCCL_CROSS_NIC"; Jeaugey, GTC 2020 "NCCL 2.x"). */
static double
ring_bandwidth (const PlxCluster  *c,
                PlxCollectiveKind  kind,
                const PlxGroup    *g,
                double             bytes)
{
  double intra, inter;

  if (g->nodes <= 1)
    return link_busbw (&c->intra_node, kind, bytes);
  inter = link_busbw (&c->inter_node, kind, bytes) * g->ranks_per_node;
  if (g->ranks_per_node <= 1)
    return inter;   /* one rank a node: NVLink is not on the ring */
  intra = link_busbw (&c->intra_node, kind, bytes);
  return MIN (intra, inter);
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
  double p = g->size, transfer;

  if (g->size <= 1 || bytes <= 0.0)
    return 0.0;
  /* The curve lookup in a variable, as MAX evaluates the larger term twice; the inlined
   * ring_latency's second evaluation is folded away, and plx_max here cost more
   * instructions than it saved (docs/performance.md). */
  transfer = 2.0 * (p - 1.0) / p * bytes / ring_bandwidth (c, PLX_COLLECTIVE_ALL_REDUCE, g, bytes);
  return MAX (2.0 * (p - 1.0) * ring_latency (c, g), transfer);
}

/* Reduce-scatter inside each node, all-reduce of each 1/k shard across nodes (every
 * GPU on its own NIC), all-gather inside the node: fewer latency steps than the flat
 * ring (Jia et al. 2018, "Highly Scalable Deep Learning Training System with
 * Mixed-Precision", §3.3 hierarchical all-reduce). Every phase reads the all-reduce
 * curve, the intra-node ones too: they run inside NCCL's all-reduce kernel, and
 * nccl-tests time that all-reduce as one op, never its phases apart. */
double
plx_collective_hierarchical_all_reduce_time (const PlxCluster *c,
                                             const PlxGroup   *g,
                                             double            bytes)
{
  double k = g->ranks_per_node, n = g->nodes;
  double shard = bytes / k;
  double t = 0.0, transfer;

  if (g->size <= 1 || bytes <= 0.0)
    return 0.0;
  if (k > 1.0)
    {
      transfer = (k - 1.0) / k * bytes / link_busbw (&c->intra_node, PLX_COLLECTIVE_ALL_REDUCE, bytes);
      t += 2.0 * MAX ((k - 1.0) * c->intra_node.latency_s, transfer);
    }
  if (n > 1.0)
    {
      transfer = 2.0 * (n - 1.0) / n * shard / link_busbw (&c->inter_node, PLX_COLLECTIVE_ALL_REDUCE, shard);
      t += MAX (2.0 * (n - 1.0) * c->inter_node.latency_s, transfer);
    }
  return t;
}

/* NCCL's own cost model (src/graph/tuning.cc, ncclTopoTuneModel: a ring all-gather
 * or reduce-scatter has nRanks-1 steps, nNodes-1 of them between nodes, each at its
 * link's latency for the protocol, added to the bytes' time): the steps inside a node
 * at the NVLink latency, those between nodes at the network's. The calls that pay it
 * again move large messages, which NCCL sends with its Simple protocol: the links'
 * bulk_latency_s. */
double
plx_collective_ring_steps_latency (const PlxCluster *c,
                                   const PlxGroup   *g)
{
  double p = g->size, n = MAX (g->nodes, 1);

  if (g->size <= 1)
    return 0.0;
  return (p - n) * c->intra_node.bulk_latency_s + (n - 1.0) * c->inter_node.bulk_latency_s;
}

/* All-gather or reduce-scatter: half the ring all-reduce's steps (Thakur et al. 2005,
 * §3). */
static double
half_ring_time (const PlxCluster  *c,
                PlxCollectiveKind  kind,
                const PlxGroup    *g,
                double             bytes)
{
  double p = g->size;
  double transfer = (p - 1.0) / p * bytes / ring_bandwidth (c, kind, g, bytes);

  return MAX ((p - 1.0) * ring_latency (c, g), transfer);
}

/* Every rank sends 1/p of its buffer to each other rank at once: the part for ranks
 * in the node goes over NVLink, the rest over the rank's own NIC, concurrently
 * (Thakur et al. 2005, pairwise exchange: p-1 steps of bytes/p each). */
static double
all_to_all_time (const PlxCluster *c,
                 const PlxGroup   *g,
                 double            bytes)
{
  double p = g->size, k = g->ranks_per_node;
  double intra = (k - 1.0) / p * bytes / link_busbw (&c->intra_node, PLX_COLLECTIVE_ALL_TO_ALL, bytes / p);
  double inter = (p - k) / p * bytes / link_busbw (&c->inter_node, PLX_COLLECTIVE_ALL_TO_ALL, bytes / p);

  return MAX ((p - 1.0) * (g->nodes > 1 ? c->inter_node.latency_s : c->intra_node.latency_s),
              MAX (intra, inter));
}

double
plx_collective_two_level_all_to_all_time (const PlxCluster *c,
                                          const PlxGroup   *g,
                                          double            inter_bytes,
                                          double            intra_bytes)
{
  double k = g->ranks_per_node, n = MAX (g->nodes, 1), intra = 0.0, inter = 0.0;

  if (g->size <= 1)
    return 0.0;
  if (intra_bytes > 0.0 && k > 1.0)
    intra = intra_bytes / link_busbw (&c->intra_node, PLX_COLLECTIVE_ALL_TO_ALL, intra_bytes / (k - 1.0));
  if (inter_bytes > 0.0 && n > 1.0)
    inter = inter_bytes / link_busbw (&c->inter_node, PLX_COLLECTIVE_ALL_TO_ALL, inter_bytes / (n - 1.0));
  return MAX ((k - 1.0) * c->intra_node.latency_s + (n - 1.0) * c->inter_node.latency_s, MAX (intra, inter));
}

double
plx_collective_time (const PlxCluster  *cluster,
                     PlxCollectiveKind  kind,
                     const PlxGroup    *group,
                     double             bytes)
{
  const PlxLink *link;
  double ring, hierarchical, transfer;

  if (group->size <= 1 || bytes <= 0.0)
    return 0.0;

  switch (kind)
    {
    case PLX_COLLECTIVE_ALL_REDUCE:
      /* NCCL's tuner picks the faster algorithm; so do we. */
      ring = plx_collective_ring_all_reduce_time (cluster, group, bytes);
      hierarchical = plx_collective_hierarchical_all_reduce_time (cluster, group, bytes);
      return MIN (ring, hierarchical);
    case PLX_COLLECTIVE_ALL_GATHER:
    case PLX_COLLECTIVE_REDUCE_SCATTER:
      return half_ring_time (cluster, kind, group, bytes);
    case PLX_COLLECTIVE_ALL_TO_ALL:
      return all_to_all_time (cluster, group, bytes);
    case PLX_COLLECTIVE_SEND_RECV:
      link = group->nodes > 1 ? &cluster->inter_node : &cluster->intra_node;
      /* One message, busbw = algbw (nccl-tests doc/PERFORMANCE.md, SendRecv). */
      transfer = bytes / link_busbw (link, kind, bytes);
      return MAX (link->latency_s, transfer);
    default:
      g_return_val_if_reached (0.0);
    }
}
