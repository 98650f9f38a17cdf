/* A memo of collective and HBM times for the analytical engine's cache.
 *
 * The search evaluates hundreds of thousands of strategies whose data-parallel and
 * pipeline terms repeat: the same bucket over the same group, the same optimizer
 * sweep. Each of those times is a pure function of the cluster, the collective, the
 * group's placement and the bytes, so remembering the last value per key gives the
 * same double bit for bit, and costs a hash and a compare instead of curve lookups. */
#pragma once

#include "parallax/plx-cluster.h"
#include "hardware/plx-collective.h"

G_BEGIN_DECLS

typedef struct _PlxCostMemo PlxCostMemo;

PlxCostMemo *plx_cost_memo_new (void);
void         plx_cost_memo_free (PlxCostMemo *memo);
/* plx_collective_time (cluster, kind, group, bytes), remembered. */
double       plx_cost_memo_collective (PlxCostMemo       *memo,
                                       const PlxCluster  *cluster,
                                       PlxCollectiveKind  kind,
                                       const PlxGroup    *group,
                                       double             bytes);
/* plx_memory_time (cluster, bytes), remembered. */
double       plx_cost_memo_memory (PlxCostMemo      *memo,
                                   const PlxCluster *cluster,
                                   double            bytes);

G_END_DECLS
