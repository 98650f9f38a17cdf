/* Direct-mapped: a miss overwrites the slot. The table is small enough to stay in
 * the L2 cache of the thread that owns it (each search work item has its own). */
#include <string.h>

#include "cost/plx-op-cost.h"

#include "plx-cost-memo.h"

#define MEMO_BITS 10
#define MEMO_SIZE (1u << MEMO_BITS)
/* Not a PlxCollectiveKind: the slot holds an HBM time. */
#define KIND_MEMORY 0xffu

typedef struct
{
  const PlxCluster *cluster;   /* NULL: empty */
  guint64           bytes;     /* the double's bits: equal keys are equal doubles */
  guint             kind, size, ranks_per_node, nodes;
  double            value;
} MemoSlot;

struct _PlxCostMemo
{
  MemoSlot slot[MEMO_SIZE];
};

PlxCostMemo *
plx_cost_memo_new (void)
{
  return g_new0 (PlxCostMemo, 1);
}

void
plx_cost_memo_free (PlxCostMemo *memo)
{
  g_free (memo);
}

static guint64
double_bits (double x)
{
  guint64 bits;

  memcpy (&bits, &x, sizeof bits);
  return bits;
}

static MemoSlot *
find (PlxCostMemo *memo, const PlxCluster *cluster, guint kind, guint size, guint rpn, guint nodes,
      guint64 bytes, gboolean *hit)
{
  /* A 64-bit multiplicative mix (Knuth, TAOCP vol. 3 §6.4) of every key field. */
  guint64 h = bytes ^ ((guint64) kind << 56) ^ ((guint64) size << 32) ^ ((guint64) rpn << 16) ^ nodes ^
              (guint64) (guintptr) cluster;
  MemoSlot *e;

  h *= G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  e = &memo->slot[h >> (64 - MEMO_BITS)];
  *hit = e->cluster == cluster && e->bytes == bytes && e->kind == kind && e->size == size &&
         e->ranks_per_node == rpn && e->nodes == nodes;
  return e;
}

static void
store (MemoSlot *e, const PlxCluster *cluster, guint kind, guint size, guint rpn, guint nodes,
       guint64 bytes, double value)
{
  e->cluster = cluster;
  e->kind = kind;
  e->size = size;
  e->ranks_per_node = rpn;
  e->nodes = nodes;
  e->bytes = bytes;
  e->value = value;
}

double
plx_cost_memo_collective (PlxCostMemo       *memo,
                          const PlxCluster  *cluster,
                          PlxCollectiveKind  kind,
                          const PlxGroup    *group,
                          double             bytes)
{
  guint64 bits = double_bits (bytes);
  gboolean hit;
  MemoSlot *e = find (memo, cluster, kind, group->size, group->ranks_per_node, group->nodes, bits, &hit);
  double t;

  if (hit)
    return e->value;
  t = plx_collective_time (cluster, kind, group, bytes);
  store (e, cluster, kind, group->size, group->ranks_per_node, group->nodes, bits, t);
  return t;
}

double
plx_cost_memo_memory (PlxCostMemo      *memo,
                      const PlxCluster *cluster,
                      double            bytes)
{
  guint64 bits = double_bits (bytes);
  gboolean hit;
  MemoSlot *e = find (memo, cluster, KIND_MEMORY, 0, 0, 0, bits, &hit);
  double t;

  if (hit)
    return e->value;
  t = plx_memory_time (cluster, bytes);
  store (e, cluster, KIND_MEMORY, 0, 0, 0, bits, t);
  return t;
}
