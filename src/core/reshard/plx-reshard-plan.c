/* Redistribution synthesis: Dijkstra over layouts, one collective per edge, each
 * edge costed by the collective model on the group its mesh axis spans, keeping only
 * layouts whose per-device shard fits the bound max(source shard, target shard).
 * Rink et al. 2021 (arXiv 2112.01075) ask for redistributions whose memory stays
 * bounded; this bound is our choice (the paper's own was not checked), and why a
 * path always exists within it is in docs/reshard.md. The XLA-style baseline is
 * built here too. */
#include <string.h>

#include "hardware/plx-collective.h"
#include "parallax/plx-error.h"
#include "parallax/plx-reshard.h"
#include "base/plx-minmax.h"

#define MAX_DIM_EXTENT (G_GUINT64_CONSTANT (1) << 40)
#define MAX_ELEM_BYTES 64u

/* ---------- checks and padding ---------- */

static gboolean
check_sharding (const PlxSharding *s, const PlxMesh *mesh, guint rank,
                const char *what, GError **error)
{
  gboolean used[PLX_MESH_MAX_AXES] = { FALSE };

  if (s->rank != rank)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%s sharding has rank %u, the array %u", what, s->rank, rank);
      return FALSE;
    }
  for (guint d = 0; d < rank; d++)
    {
      if (s->n_axes[d] > mesh->n_axes)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "%s sharding: dimension %u split over %u axes, the mesh has %u",
                       what, d, s->n_axes[d], mesh->n_axes);
          return FALSE;
        }
      for (guint i = 0; i < s->n_axes[d]; i++)
        {
          guint a = s->axes[d][i];

          if (a >= mesh->n_axes || used[a])
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                           "%s sharding: axis %u in dimension %u is %s", what, a, d,
                           a >= mesh->n_axes ? "not in the mesh" : "used twice");
              return FALSE;
            }
          used[a] = TRUE;
        }
    }
  if (s->partial >> mesh->n_axes != 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%s sharding: a partial-sum axis is not in the %u-axis mesh", what, mesh->n_axes);
      return FALSE;
    }
  for (guint a = 0; a < mesh->n_axes; a++)
    if ((s->partial & (1u << a)) && used[a])
      {
        g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                     "%s sharding: axis %u both splits a dimension and holds partial sums", what, a);
        return FALSE;
      }
  return TRUE;
}

static gboolean
check_inputs (const PlxCluster *cluster, const PlxMesh *mesh, const PlxArrayShape *shape,
              const PlxSharding *source, const PlxSharding *target, GError **error)
{
  guint n_dev;

  if (mesh->n_axes == 0 || mesh->n_axes > PLX_MESH_MAX_AXES)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "mesh has %u axes, expected 1 to %u", mesh->n_axes, PLX_MESH_MAX_AXES);
      return FALSE;
    }
  for (guint a = 0; a < mesh->n_axes; a++)
    if (mesh->size[a] == 0 || mesh->size[a] > 65536)
      {
        g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                     "mesh axis %u has size %u, expected 1 to 65536", a, mesh->size[a]);
        return FALSE;
      }
  n_dev = plx_mesh_n_devices (mesh);
  if (cluster != NULL && n_dev > plx_cluster_get_n_gpus (cluster))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "mesh of %u devices on a cluster of %u GPUs", n_dev, plx_cluster_get_n_gpus (cluster));
      return FALSE;
    }
  if (shape->rank == 0 || shape->rank > PLX_RESHARD_MAX_RANK)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "array rank %u, expected 1 to %u", shape->rank, PLX_RESHARD_MAX_RANK);
      return FALSE;
    }
  if (shape->elem_bytes == 0 || shape->elem_bytes > MAX_ELEM_BYTES)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "element size %u bytes, expected 1 to %u", shape->elem_bytes, MAX_ELEM_BYTES);
      return FALSE;
    }
  for (guint d = 0; d < shape->rank; d++)
    if (shape->dim[d] == 0 || shape->dim[d] > MAX_DIM_EXTENT)
      {
        g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                     "array dimension %u has extent %" G_GUINT64_FORMAT ", expected 1 to 2^40",
                     d, shape->dim[d]);
        return FALSE;
      }
  if (!check_sharding (source, mesh, shape->rank, "source", error) ||
      !check_sharding (target, mesh, shape->rank, "target", error))
    return FALSE;
  if ((target->partial & ~source->partial) != 0)
    {
      g_autofree char *src = plx_sharding_format (source);
      g_autofree char *tgt = plx_sharding_format (target);

      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "target %s holds partial sums over an axis the source %s does not: a "
                   "redistribution sums partial values, it does not split whole ones into parts",
                   tgt, src);
      return FALSE;
    }
  return TRUE;
}

/* Each dim is padded to a multiple of the product of the axes the source or the
 * target splits it over: every layout on the way splits it over a subset of those
 * (the search keeps to layouts that divide), so every shard is whole. */
static void
pad_dims (PlxReshardPlan *plan)
{
  for (guint d = 0; d < plan->shape.rank; d++)
    {
      gboolean on[PLX_MESH_MAX_AXES] = { FALSE };
      guint64 m = 1, n = plan->shape.dim[d];

      for (guint i = 0; i < plan->source.n_axes[d]; i++)
        on[plan->source.axes[d][i]] = TRUE;
      for (guint i = 0; i < plan->target.n_axes[d]; i++)
        on[plan->target.axes[d][i]] = TRUE;
      for (guint a = 0; a < plan->mesh.n_axes; a++)
        if (on[a])
          m *= plan->mesh.size[a];
      plan->padded[d] = (n + m - 1) / m * m;
    }
}

static PlxReshardPlan *
plan_new (const PlxCluster *cluster, const PlxMesh *mesh, const PlxArrayShape *shape,
          const PlxSharding *source, const PlxSharding *target, GError **error)
{
  PlxReshardPlan *plan;

  if (!check_inputs (cluster, mesh, shape, source, target, error))
    return NULL;
  plan = g_new0 (PlxReshardPlan, 1);
  plan->mesh = *mesh;
  plan->shape = *shape;
  plan->source = *source;
  plan->target = *target;
  plan->steps = g_array_new (FALSE, FALSE, sizeof (PlxReshardStep));
  pad_dims (plan);
  plan->bound_bytes = plx_max (plx_reshard_shard_bytes (plan, source), plx_reshard_shard_bytes (plan, target));
  plan->peak_bytes = plx_reshard_shard_bytes (plan, source);
  return plan;
}

void
plx_reshard_plan_free (PlxReshardPlan *plan)
{
  if (plan == NULL)
    return;
  g_array_unref (plan->steps);
  g_free (plan);
}

/* ---------- one step: its layout and its cost ---------- */

/* Where the steps run, worked out once a plan: for each mesh axis the distinct
 * placements of its groups on the cluster (an axis of 3 on 8-GPU nodes has groups
 * inside a node and groups across two: {0,1,2} and {6,7,8}); a collective over the
 * axis takes as long as its slowest group, as the IR's simulator times it. */
typedef struct
{
  const PlxCluster *cluster;
  const PlxMesh    *mesh;
  GArray           *placements[PLX_MESH_MAX_AXES]; /* PlxGroup, distinct */
  /* Whether a permute's pairs stay in a node, cross nodes, or both: it depends only
   * on the reordered dimension's axes before and after (permute_key), so each is
   * worked out once. */
  GHashTable       *permute_pairs;
} Pricing;

enum { PAIRS_INSIDE = 1, PAIRS_ACROSS = 2 };

static void
pricing_init (Pricing *pr, const PlxCluster *cluster, const PlxMesh *mesh)
{
  guint n = plx_mesh_n_devices (mesh);
  g_autofree guint *ranks = NULL;

  memset (pr, 0, sizeof *pr);
  pr->cluster = cluster;
  pr->mesh = mesh;
  if (cluster == NULL)
    return;
  pr->permute_pairs = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint a = 0; a < mesh->n_axes; a++)
    {
      guint size = mesh->size[a], stride = plx_mesh_stride (mesh, a);

      ranks = g_renew (guint, ranks, size);
      pr->placements[a] = g_array_new (FALSE, FALSE, sizeof (PlxGroup));
      for (guint dev = 0; dev < n; dev++)
        {
          PlxGroup g;
          gboolean seen = FALSE;

          if (plx_mesh_coord (mesh, dev, a) != 0)
            continue;
          for (guint j = 0; j < size; j++)
            ranks[j] = dev + j * stride;
          g = plx_group_of_ranks (cluster, ranks, size);
          for (guint k = 0; k < pr->placements[a]->len && !seen; k++)
            {
              const PlxGroup *h = &g_array_index (pr->placements[a], PlxGroup, k);
              seen = h->nodes == g.nodes && h->ranks_per_node == g.ranks_per_node;
            }
          if (!seen)
            g_array_append_val (pr->placements[a], g);
        }
    }
}

static void
pricing_clear (Pricing *pr)
{
  for (guint a = 0; a < PLX_MESH_MAX_AXES; a++)
    if (pr->placements[a] != NULL)
      g_array_unref (pr->placements[a]);
  if (pr->permute_pairs != NULL)
    g_hash_table_unref (pr->permute_pairs);
}

/* The dimension's axes before and after, two bits an axis (coded 1 to 3), in 16 bits. */
static guint
permute_key (const PlxSharding *before, const PlxSharding *after, guint dim)
{
  guint k = 0;

  for (guint i = 0; i < before->n_axes[dim]; i++)
    k = (k << 2) | (before->axes[dim][i] + 1);
  for (guint i = 0; i < after->n_axes[dim]; i++)
    k = (k << 2) | (after->axes[dim][i] + 1);
  return k + 1;
}

static double
axis_time (const Pricing *pr, PlxCollectiveKind kind, guint axis, double bytes)
{
  double t = 0.0;

  for (guint k = 0; k < pr->placements[axis]->len; k++)
    t = plx_max (t, plx_collective_time (pr->cluster, kind, &g_array_index (pr->placements[axis], PlxGroup, k), bytes));
  return t;
}

/* A permute: each device whose block changes receives its new shard whole from the
 * sender plx_reshard_permute_sender names; all at once, so the slowest pair - one
 * that crosses nodes, if any does - sets the time. */
/* The place value of each of dimension `dim`'s axes in its block index under
 * `s` (mixed radix, the first axis most significant). */
static guint64
place_value (const PlxMesh *mesh, const PlxSharding *s, guint dim, guint axis)
{
  guint64 w = 1;

  for (gint i = (gint) s->n_axes[dim] - 1; i >= 0 && s->axes[dim][i] != axis; i--)
    w *= mesh->size[s->axes[dim][i]];
  return w;
}

/* Which pairs a permute has, by the digits that move: a device's sender differs from
 * it on axis a for some device exactly when a's place value in the block index
 * changes (else its digit is the same for every block). On a mesh whose axes each
 * either stay inside nodes (their groups tile a node) or step across them (stride a
 * multiple of a node), a pair crosses nodes when it differs on an axis of the second
 * kind. Otherwise every device's sender is worked out. */
static guint
permute_pairs (const Pricing *pr, const PlxSharding *before, const PlxSharding *after, guint dim)
{
  guint gpn = pr->cluster->gpus_per_node, pairs = 0, n;
  gboolean clean = TRUE;

  for (guint i = 0; i < before->n_axes[dim]; i++)
    {
      guint a = before->axes[dim][i], size = pr->mesh->size[a];
      guint64 stride = plx_mesh_stride (pr->mesh, a), span = stride * size;
      gboolean inside = span <= gpn && gpn % span == 0, across = stride % gpn == 0;

      if (size == 1 || place_value (pr->mesh, before, dim, a) == place_value (pr->mesh, after, dim, a))
        continue;
      clean &= inside || across;
      pairs |= across ? PAIRS_ACROSS : PAIRS_INSIDE;
    }
  if (clean)
    return pairs;
  pairs = 0;
  n = plx_mesh_n_devices (pr->mesh);
  for (guint r = 0; r < n && pairs != (PAIRS_INSIDE | PAIRS_ACROSS); r++)
    {
      guint s = plx_reshard_permute_sender (pr->mesh, before, after, dim, r);

      if (s != r)
        pairs |= s / gpn == r / gpn ? PAIRS_INSIDE : PAIRS_ACROSS;
    }
  return pairs;
}

/* A permute: each device whose block changes receives its new shard whole from the
 * sender plx_reshard_permute_sender names; all at once, so the slowest pair sets
 * the time. */
static double
permute_time (const Pricing *pr, const PlxSharding *before, const PlxReshardStep *st)
{
  guint key = permute_key (before, &st->after, st->dim);
  gpointer found = g_hash_table_lookup (pr->permute_pairs, GUINT_TO_POINTER (key));
  guint pairs;
  double t = 0.0;

  if (found == NULL)
    {
      pairs = permute_pairs (pr, before, &st->after, st->dim);
      /* Stored plus 4, so that "no pair" is not the missing NULL. */
      g_hash_table_insert (pr->permute_pairs, GUINT_TO_POINTER (key), GUINT_TO_POINTER (pairs + 4));
    }
  else
    pairs = GPOINTER_TO_UINT (found) - 4;
  for (guint k = 0; k < 2; k++)
    if (pairs & (k == 0 ? PAIRS_INSIDE : PAIRS_ACROSS))
      {
        guint pair[2] = { 0, k == 0 ? 1 : pr->cluster->gpus_per_node };
        PlxGroup g = plx_group_of_ranks (pr->cluster, pair, 2);

        t = plx_max (t, plx_collective_time (pr->cluster, PLX_COLLECTIVE_SEND_RECV, &g, st->in_bytes));
      }
  return t;
}

static double
step_time (const Pricing *pr, const PlxReshardStep *st, const PlxSharding *before)
{
  if (pr->cluster == NULL)
    return 0.0;
  switch (st->op)
    {
    case PLX_RESHARD_ALL_GATHER:
      return axis_time (pr, PLX_COLLECTIVE_ALL_GATHER, st->axis, st->out_bytes);
    case PLX_RESHARD_ALL_TO_ALL:
      return axis_time (pr, PLX_COLLECTIVE_ALL_TO_ALL, st->axis, st->in_bytes);
    case PLX_RESHARD_SLICE:
      return 0.0;
    case PLX_RESHARD_REDUCE_SCATTER:
      return axis_time (pr, PLX_COLLECTIVE_REDUCE_SCATTER, st->axis, st->in_bytes);
    case PLX_RESHARD_ALL_REDUCE:
      return axis_time (pr, PLX_COLLECTIVE_ALL_REDUCE, st->axis, st->in_bytes);
    case PLX_RESHARD_PERMUTE:
      return permute_time (pr, before, st);
    case PLX_RESHARD_N_OPS:
    default:
      g_return_val_if_reached (0.0);
    }
}

static void
finish_step (const Pricing *pr, const PlxReshardPlan *plan, const PlxSharding *before,
             PlxReshardStep *st)
{
  st->in_bytes = plx_reshard_shard_bytes (plan, before);
  st->out_bytes = plx_reshard_shard_bytes (plan, &st->after);
  st->time_s = step_time (pr, st, before);
}

static void
append_step (const Pricing *pr, PlxReshardPlan *plan, PlxSharding *cur, PlxReshardStep st)
{
  finish_step (pr, plan, cur, &st);
  g_array_append_val (plan->steps, st);
  plan->time_s += st.time_s;
  plan->peak_bytes = MAX (plan->peak_bytes, st.in_bytes + st.out_bytes);
  *cur = st.after;
}

static PlxReshardStep
make_gather (const PlxSharding *s, guint dim)
{
  PlxReshardStep st = { .op = PLX_RESHARD_ALL_GATHER, .dim = dim, .to_dim = dim };

  st.after = *s;
  st.axis = st.after.axes[dim][--st.after.n_axes[dim]];
  return st;
}

static PlxReshardStep
make_all_to_all (const PlxSharding *s, guint dim, guint to_dim)
{
  PlxReshardStep st = { .op = PLX_RESHARD_ALL_TO_ALL, .dim = dim, .to_dim = to_dim };

  st.after = *s;
  st.axis = st.after.axes[dim][--st.after.n_axes[dim]];
  st.after.axes[to_dim][st.after.n_axes[to_dim]++] = st.axis;
  return st;
}

static PlxReshardStep
make_slice (const PlxSharding *s, guint axis, guint dim)
{
  PlxReshardStep st = { .op = PLX_RESHARD_SLICE, .axis = axis, .dim = dim, .to_dim = dim };

  st.after = *s;
  st.after.axes[dim][st.after.n_axes[dim]++] = axis;
  return st;
}

static PlxReshardStep
make_reduce_scatter (const PlxSharding *s, guint axis, guint dim)
{
  PlxReshardStep st = { .op = PLX_RESHARD_REDUCE_SCATTER, .axis = axis, .dim = dim, .to_dim = dim };

  st.after = *s;
  st.after.partial &= ~(1u << axis);
  st.after.axes[dim][st.after.n_axes[dim]++] = axis;
  return st;
}

static PlxReshardStep
make_all_reduce (const PlxSharding *s, guint axis)
{
  PlxReshardStep st = { .op = PLX_RESHARD_ALL_REDUCE, .axis = axis, .dim = 0, .to_dim = 0 };

  st.after = *s;
  st.after.partial &= ~(1u << axis);
  return st;
}

/* ---------- the search ---------- */

static guint64
sharding_key (const PlxSharding *s)
{
  guint64 k = 0;

  for (guint d = 0; d < s->rank; d++)
    {
      for (guint i = 0; i < s->n_axes[d]; i++)
        k = (k << 2) | (s->axes[d][i] + 1);
      k = (k << 2) | 0; /* separator: axes are coded 1 to 3 */
    }
  return (k << PLX_MESH_MAX_AXES) | s->partial;
}

static gboolean
divides_padding (const PlxReshardPlan *plan, const PlxSharding *s)
{
  for (guint d = 0; d < s->rank; d++)
    if (plan->padded[d] % plx_sharding_dim_shards (s, &plan->mesh, d) != 0)
      return FALSE;
  return TRUE;
}

typedef struct
{
  PlxSharding    layout;
  double         time_s;
  guint          n_steps;
  gint           prev;
  PlxReshardStep via;
  gboolean       done;
} Node;

typedef struct
{
  double time_s;
  guint  n_steps;
  guint  node;
} HeapItem;

static gboolean
heap_less (const HeapItem *a, const HeapItem *b)
{
  return a->time_s < b->time_s || (a->time_s == b->time_s && a->n_steps < b->n_steps);
}

static void
heap_push (GArray *heap, HeapItem item)
{
  guint i = heap->len;

  g_array_append_val (heap, item);
  while (i > 0)
    {
      guint parent = (i - 1) / 2;
      HeapItem *h = (HeapItem *) (void *) heap->data;

      if (!heap_less (&h[i], &h[parent]))
        break;
      item = h[i];
      h[i] = h[parent];
      h[parent] = item;
      i = parent;
    }
}

static HeapItem
heap_pop (GArray *heap)
{
  HeapItem *h = (HeapItem *) (void *) heap->data;
  HeapItem top = h[0];
  guint i = 0, n;

  h[0] = h[heap->len - 1];
  g_array_set_size (heap, heap->len - 1);
  n = heap->len;
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i;
      HeapItem t;

      if (l < n && heap_less (&h[l], &h[m]))
        m = l;
      if (r < n && heap_less (&h[r], &h[m]))
        m = r;
      if (m == i)
        break;
      t = h[i];
      h[i] = h[m];
      h[m] = t;
      i = m;
    }
  return top;
}

typedef struct
{
  Pricing               pricing;
  const PlxReshardPlan *plan;
  GArray               *nodes; /* Node */
  GHashTable           *index; /* key -> node + 1 */
  GArray               *heap;  /* HeapItem */
} Search;

static void
relax (Search *s, guint from, PlxReshardStep st)
{
  Node *src = &g_array_index (s->nodes, Node, from);
  guint64 key;
  gpointer found;
  double t;
  guint n_steps;
  Node *dst;

  if (!divides_padding (s->plan, &st.after) ||
      plx_reshard_shard_bytes (s->plan, &st.after) > s->plan->bound_bytes)
    return;
  finish_step (&s->pricing, s->plan, &src->layout, &st);
  t = src->time_s + st.time_s;
  n_steps = src->n_steps + 1;
  key = sharding_key (&st.after);
  found = g_hash_table_lookup (s->index, &key);
  if (found == NULL)
    {
      Node fresh = { .layout = st.after, .time_s = G_MAXDOUBLE, .n_steps = G_MAXUINT };
      guint64 *k = g_new (guint64, 1);

      *k = key;
      g_array_append_val (s->nodes, fresh);
      found = GUINT_TO_POINTER (s->nodes->len);
      g_hash_table_insert (s->index, k, found);
    }
  dst = &g_array_index (s->nodes, Node, GPOINTER_TO_UINT (found) - 1);
  if (dst->done || t > dst->time_s || (t == dst->time_s && n_steps >= dst->n_steps))
    return;
  dst->time_s = t;
  dst->n_steps = n_steps;
  dst->prev = (gint) from;
  dst->via = st;
  heap_push (s->heap, (HeapItem) { t, n_steps, GPOINTER_TO_UINT (found) - 1 });
}

/* Orderings of up to three axes, as index lists. */
static const guint perm2[][2] = { { 1, 0 } };
static const guint perm3[][3] = { { 0, 2, 1 }, { 1, 0, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };

static void
relax_permutes (Search *s, guint from)
{
  PlxSharding cur = g_array_index (s->nodes, Node, from).layout;

  /* Reorder one dim's axes: the per-dim shard counts stay, so every target shard is
   * some device's current shard. */
  for (guint d = 0; d < cur.rank; d++)
    {
      guint n = cur.n_axes[d], count = n == 2 ? 1 : n == 3 ? 5 : 0;

      for (guint p = 0; p < count; p++)
        {
          PlxReshardStep st = { .op = PLX_RESHARD_PERMUTE, .dim = d, .to_dim = d, .axis = 0 };

          st.after = cur;
          for (guint i = 0; i < n; i++)
            st.after.axes[d][i] = cur.axes[d][n == 2 ? perm2[p][i] : perm3[p][i]];
          relax (s, from, st);
        }
    }
}

static void
expand (Search *s, guint from)
{
  PlxSharding cur = g_array_index (s->nodes, Node, from).layout;
  gboolean used[PLX_MESH_MAX_AXES] = { FALSE };

  for (guint d = 0; d < cur.rank; d++)
    for (guint i = 0; i < cur.n_axes[d]; i++)
      used[cur.axes[d][i]] = TRUE;
  /* A partial sum the target no longer has is reduced, scattered onto a dimension or
   * everywhere; one it keeps stays on its axis untouched (sliced, its parts would no
   * longer add up to the value). */
  for (guint a = 0; a < s->plan->mesh.n_axes; a++)
    if (cur.partial & (1u << a))
      {
        used[a] = TRUE;
        if (s->plan->target.partial & (1u << a))
          continue;
        relax (s, from, make_all_reduce (&cur, a));
        for (guint d = 0; d < cur.rank; d++)
          relax (s, from, make_reduce_scatter (&cur, a, d));
      }
  for (guint d = 0; d < cur.rank; d++)
    {
      if (cur.n_axes[d] == 0)
        continue;
      relax (s, from, make_gather (&cur, d));
      for (guint j = 0; j < cur.rank; j++)
        if (j != d)
          relax (s, from, make_all_to_all (&cur, d, j));
    }
  for (guint a = 0; a < s->plan->mesh.n_axes; a++)
    if (!used[a])
      for (guint d = 0; d < cur.rank; d++)
        relax (s, from, make_slice (&cur, a, d));
  relax_permutes (s, from);
}

PlxReshardPlan *
plx_reshard_plan (const PlxCluster    *cluster,
                  const PlxMesh       *mesh,
                  const PlxArrayShape *shape,
                  const PlxSharding   *source,
                  const PlxSharding   *target,
                  GError             **error)
{
  g_autoptr (PlxReshardPlan) plan = plan_new (cluster, mesh, shape, source, target, error);
  Search s;
  Node start = { .layout = *source, .prev = -1 };
  guint64 *k;
  gint goal = -1;

  if (plan == NULL)
    return NULL;
  pricing_init (&s.pricing, cluster, &plan->mesh);
  s.plan = plan;
  s.nodes = g_array_new (FALSE, FALSE, sizeof (Node));
  s.index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  s.heap = g_array_new (FALSE, FALSE, sizeof (HeapItem));
  g_array_append_val (s.nodes, start);
  k = g_new (guint64, 1);
  *k = sharding_key (source);
  g_hash_table_insert (s.index, k, GUINT_TO_POINTER (1));
  heap_push (s.heap, (HeapItem) { 0.0, 0, 0 });
  while (s.heap->len > 0)
    {
      HeapItem top = heap_pop (s.heap);
      Node *n = &g_array_index (s.nodes, Node, top.node);

      if (n->done || top.time_s > n->time_s || top.n_steps > n->n_steps)
        continue;
      n->done = TRUE;
      if (plx_sharding_equal (&n->layout, target))
        {
          goal = (gint) top.node;
          break;
        }
      expand (&s, top.node);
    }
  if (goal >= 0)
    {
      GArray *rev = g_array_new (FALSE, FALSE, sizeof (PlxReshardStep));
      PlxSharding cur = *source;

      for (gint i = goal; g_array_index (s.nodes, Node, i).prev >= 0; i = g_array_index (s.nodes, Node, i).prev)
        g_array_prepend_val (rev, g_array_index (s.nodes, Node, i).via);
      for (guint i = 0; i < rev->len; i++)
        append_step (&s.pricing, plan, &cur, g_array_index (rev, PlxReshardStep, i));
      g_array_unref (rev);
    }
  g_array_unref (s.nodes);
  g_array_unref (s.heap);
  g_hash_table_unref (s.index);
  pricing_clear (&s.pricing);
  if (goal < 0)
    {
      /* Unreachable by the argument in docs/reshard.md; kept as an error, not an abort. */
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                   "no redistribution within %.0f bytes per device was found", plan->bound_bytes);
      return NULL;
    }
  return g_steal_pointer (&plan);
}

/* ---------- the baseline ---------- */

static gboolean
one_axis_moved (const PlxSharding *src, const PlxSharding *tgt, guint *from, guint *to)
{
  for (guint i = 0; i < src->rank; i++)
    for (guint j = 0; j < src->rank; j++)
      if (i != j && src->n_axes[i] > 0)
        {
          PlxReshardStep st = make_all_to_all (src, i, j);

          if (plx_sharding_equal (&st.after, tgt))
            {
              *from = i;
              *to = j;
              return TRUE;
            }
        }
  return FALSE;
}

/* XLA's reduce-scatter creator: an all-reduce followed by this device's slice of the
 * reduced axis becomes one reduce-scatter. */
static gboolean
one_sum_scattered (const PlxSharding *src, const PlxSharding *tgt, guint *axis, guint *dim)
{
  for (guint a = 0; a < PLX_MESH_MAX_AXES; a++)
    if (src->partial & (1u << a))
      for (guint d = 0; d < src->rank; d++)
        {
          PlxReshardStep st = make_reduce_scatter (src, a, d);

          if (plx_sharding_equal (&st.after, tgt))
            {
              *axis = a;
              *dim = d;
              return TRUE;
            }
        }
  return FALSE;
}

/* Everything gathered, then sliced to the target. */
static void
xla_path (const Pricing *pricing, PlxReshardPlan *plan, PlxSharding *cur, const PlxSharding *target)
{
  /* XLA all-reduces a partial sum it has to resolve, then reshards the whole values. */
  for (guint a = 0; a < plan->mesh.n_axes; a++)
    if ((cur->partial & (1u << a)) && !(target->partial & (1u << a)))
      append_step (pricing, plan, cur, make_all_reduce (cur, a));
  for (guint d = 0; d < cur->rank; d++)
    while (cur->n_axes[d] > 0)
      append_step (pricing, plan, cur, make_gather (cur, d));
  for (guint d = 0; d < target->rank; d++)
    for (guint i = 0; i < target->n_axes[d]; i++)
      append_step (pricing, plan, cur, make_slice (cur, target->axes[d][i], d));
}

PlxReshardPlan *
plx_reshard_plan_baseline (const PlxCluster    *cluster,
                           const PlxMesh       *mesh,
                           const PlxArrayShape *shape,
                           const PlxSharding   *source,
                           const PlxSharding   *target,
                           GError             **error)
{
  PlxReshardPlan *plan = plan_new (cluster, mesh, shape, source, target, error);
  PlxSharding cur;
  Pricing pricing;
  guint from, to;

  if (plan == NULL)
    return NULL;
  cur = *source;
  pricing_init (&pricing, cluster, &plan->mesh);
  if (plx_sharding_equal (source, target))
    ;
  else if (one_axis_moved (source, target, &from, &to))
    append_step (&pricing, plan, &cur, make_all_to_all (&cur, from, to));
  else if (one_sum_scattered (source, target, &from, &to))
    append_step (&pricing, plan, &cur, make_reduce_scatter (&cur, from, to));
  else
    xla_path (&pricing, plan, &cur, target);
  pricing_clear (&pricing);
  return plan;
}


