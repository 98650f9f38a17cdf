/* plx-partition-dag.h: splitting a training graph that is not a chain (issue 13,
 * after Tavarageri et al. 2019): a weighted DAG into k parts, least total cut under a
 * balance bound, by multilevel coarsening and Fiduccia-Mattheyses refinement.
 * Pipeline stages (ORDERED) or devices (FREE). docs/partition.md, "DAGs". */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  /* Pipeline stages: every edge goes from a part to the same or a later one, so the
   * parts run in order 0 .. k-1 (the quotient graph is acyclic). */
  PLX_DAG_ORDERED,
  /* Model parallelism across devices: any assignment. */
  PLX_DAG_FREE,
} PlxDagMode;

/* A weighted DAG, borrowed (nothing is copied or freed). From a graph of IR ops:
 * nodes are the forward ops in program order, node_s their forward and backward
 * time; an edge per tensor one op makes and another reads, edge_cut_s the time to
 * send it forward and its gradient back. */
typedef struct
{
  guint          n_nodes;
  const double  *node_s;      /* n_nodes: compute time, finite, >= 0 */
  const guint64 *node_bytes;  /* n_nodes or NULL: memory, only summed per part */
  guint          n_edges;
  const guint   *edge_src;    /* n_edges: edge_src[e] < edge_dst[e] (a topological order) */
  const guint   *edge_dst;
  const double  *edge_cut_s;  /* n_edges: what cutting the edge costs each side, >= 0 */
} PlxDag;

/* An assignment of the nodes to parts and what it costs. A part's load is its nodes'
 * time; its time adds every cut edge touching it, once per edge (the chain's
 * convention, plx_partition_part_time: both sides of a cut pay it). */
typedef struct
{
  guint    n_nodes;
  guint    parts;
  guint   *part;            /* n_nodes: the part of each node */
  double  *load_s;          /* parts */
  double  *time_s;          /* parts: load plus the cut edges touching the part */
  guint64 *bytes;           /* parts: node_bytes summed (zeros without them) */
  double   cut_s;           /* the cut edges' costs, each counted once */
  double   largest_part_s;  /* the largest time_s */
  double   max_load_s;      /* the largest load_s */
  double   imbalance;       /* max_load_s / (total / parts) - 1 (0 when total is 0) */
} PlxDagPartition;

/* The bound every part's load keeps: max((1 + epsilon) W / k, W / k + the heaviest
 * node), W the total node time. The second term makes every graph feasible (see
 * docs/partition.md); it matters only when one node outweighs epsilon W / k. */
double plx_partition_dag_bound (const PlxDag *dag,
                                guint         parts,
                                double        epsilon);

/* Splits `dag` into `parts` non-empty parts with every load <= plx_partition_dag_bound
 * (up to rounding, relative 1e-12), heuristically minimising cut_s; in ORDERED mode
 * part[src] <= part[dst] on every edge, and FREE never cuts more than ORDERED.
 * Deterministic. NULL with a PLX_ERROR_INVALID_VALUE
 * naming the value for parts 0 or above n_nodes, an edge not going forward, a node
 * out of range, a weight or cost negative or not finite, epsilon negative or not
 * finite. */
PlxDagPartition *plx_partition_dag (const PlxDag *dag,
                                    guint         parts,
                                    PlxDagMode    mode,
                                    double        epsilon,
                                    GError      **error);

/* The costs of a given assignment (part[i] < parts), with the same checks of `dag`. */
PlxDagPartition *plx_partition_dag_evaluate (const PlxDag *dag,
                                             const guint  *part,
                                             guint         parts,
                                             GError      **error);

void plx_dag_partition_free (PlxDagPartition *partition);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxDagPartition, plx_dag_partition_free)

G_END_DECLS
