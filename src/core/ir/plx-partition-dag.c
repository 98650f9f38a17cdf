/* DAG partitioning, multilevel (Karypis and Kumar 1998, "A fast and high quality
 * multilevel scheme for partitioning irregular graphs", SIAM J. Sci. Comput. 20(1)):
 * coarsen by heavy-edge matching, split the coarsest graph, project back and refine
 * each level with Fiduccia-Mattheyses moves (Fiduccia and Mattheyses 1982, "A
 * linear-time heuristic for improving network partitions", DAC) taken k-way, each
 * node to the neighbouring part that gains most. For pipeline stages (ORDERED) the
 * coarse graphs stay acyclic and the moves keep every edge going forward, as in
 * Herrmann, Ozkaya, Ucar, Kaya and Catalyurek 2019, "Multilevel algorithms for
 * acyclic partitioning of directed acyclic graphs", SIAM J. Sci. Comput. 41(4). */
#include <math.h>
#include <string.h>

#include "parallax/plx-error.h"
#include "ir/plx-partition-dag.h"

/* Every level's graph is an adjacency list in which each entry is a neighbour, whether
 * it is a successor (the edge goes to it) or a predecessor, and the summed cost of
 * the edges to it in that direction. Nodes are numbered in a topological order in
 * ORDERED mode, by their first fine node otherwise. */
typedef struct
{
  guint   n;
  double *w;
  guint  *xadj;   /* n + 1 */
  guint  *adj;
  double *cost;
  guint8 *succ;
  guint  *cmap;   /* n: the node of the next coarser level, NULL on the coarsest */
} Level;

static void
level_clear (Level *g)
{
  g_free (g->w);
  g_free (g->xadj);
  g_free (g->adj);
  g_free (g->cost);
  g_free (g->succ);
  g_free (g->cmap);
}

/* The adjacency of n nodes from m edges src -> dst (src != dst), parallel edges merged. */
static void
level_build (Level *g, guint n, const guint *src, const guint *dst, const double *c, guint m)
{
  g_autofree guint *fill = NULL;
  g_autofree guint *mark_succ = NULL;
  g_autofree guint *mark_pred = NULL;
  guint out = 0;

  g->n = n;
  g->xadj = g_new0 (guint, n + 1);
  for (guint e = 0; e < m; e++)
    {
      g->xadj[src[e] + 1]++;
      g->xadj[dst[e] + 1]++;
    }
  for (guint v = 0; v < n; v++)
    g->xadj[v + 1] += g->xadj[v];
  g->adj = g_new (guint, 2 * (gsize) m + 1);
  g->cost = g_new (double, 2 * (gsize) m + 1);
  g->succ = g_new (guint8, 2 * (gsize) m + 1);
  fill = g_memdup2 (g->xadj, n * sizeof (guint));
  for (guint e = 0; e < m; e++)
    {
      guint a = fill[src[e]]++, b = fill[dst[e]]++;

      g->adj[a] = dst[e], g->cost[a] = c[e], g->succ[a] = 1;
      g->adj[b] = src[e], g->cost[b] = c[e], g->succ[b] = 0;
    }
  /* Merge in place: a mark below the node's new start is left from an earlier node. */
  mark_succ = g_new (guint, n);
  mark_pred = g_new (guint, n);
  for (guint v = 0; v < n; v++)
    mark_succ[v] = mark_pred[v] = G_MAXUINT;
  for (guint v = 0; v < n; v++)
    {
      guint start = g->xadj[v], end = g->xadj[v + 1];

      g->xadj[v] = out;
      for (guint j = start; j < end; j++)
        {
          guint u = g->adj[j];
          guint *mark = g->succ[j] ? mark_succ : mark_pred;

          if (mark[u] != G_MAXUINT && mark[u] >= g->xadj[v])
            {
              g->cost[mark[u]] += g->cost[j];
              continue;
            }
          mark[u] = out;
          g->adj[out] = u, g->cost[out] = g->cost[j], g->succ[out] = g->succ[j];
          out++;
        }
    }
  g->xadj[n] = out;
}

/* A max-heap of (key, node, stamp); an entry whose stamp is no longer its node's is
 * stale and skipped when popped (cheaper than updating keys in place). */
typedef struct
{
  double key;
  guint  node;
  guint  stamp;
} HeapEntry;

static gboolean
heap_above (const HeapEntry *a, const HeapEntry *b)
{
  return a->key > b->key || (a->key == b->key && a->node < b->node);
}

static void
heap_push (GArray *heap, double key, guint node, guint stamp)
{
  HeapEntry e = { key, node, stamp };
  HeapEntry *h;
  guint i = heap->len;

  g_array_append_val (heap, e);
  h = (HeapEntry *) (void *) heap->data;
  while (i > 0 && heap_above (&e, &h[(i - 1) / 2]))
    {
      h[i] = h[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  h[i] = e;
}

static gboolean
heap_pop (GArray *heap, HeapEntry *top)
{
  HeapEntry *h = (HeapEntry *) (void *) heap->data;
  HeapEntry last;
  guint i = 0, n;

  if (heap->len == 0)
    return FALSE;
  *top = h[0];
  last = h[heap->len - 1];
  g_array_set_size (heap, heap->len - 1);
  n = heap->len;
  if (n == 0)
    return TRUE;
  for (;;)
    {
      guint child = 2 * i + 1;

      if (child >= n)
        break;
      if (child + 1 < n && heap_above (&h[child + 1], &h[child]))
        child++;
      if (!heap_above (&h[child], &last))
        break;
      h[i] = h[child];
      i = child;
    }
  h[i] = last;
  return TRUE;
}

/* Renumbers the n nodes of edges src -> dst topologically (Kahn's algorithm, the
 * ready node of least `key` first, or of least old number without keys, so the
 * order stays close to the one given); FALSE if they hold a cycle. */
static gboolean
topological_numbers (guint n, const guint *src, const guint *dst, guint m, const double *key, guint *number)
{
  g_autofree guint *indeg = g_new0 (guint, n);
  g_autofree guint *first = g_new0 (guint, n + 1);
  g_autofree guint *next = g_new (guint, m + 1);
  g_autoptr (GArray) ready = g_array_new (FALSE, FALSE, sizeof (HeapEntry));
  HeapEntry top;
  guint done = 0;

  for (guint e = 0; e < m; e++)
    {
      indeg[dst[e]]++;
      first[src[e] + 1]++;
    }
  for (guint v = 0; v < n; v++)
    first[v + 1] += first[v];
  {
    g_autofree guint *fill = g_memdup2 (first, n * sizeof (guint));
    for (guint e = 0; e < m; e++)
      next[fill[src[e]]++] = dst[e];
  }
  for (guint v = 0; v < n; v++)
    if (indeg[v] == 0)
      heap_push (ready, key != NULL ? -key[v] : -(double) v, v, 0);
  while (heap_pop (ready, &top))
    {
      guint v = top.node;

      number[v] = done++;
      for (guint j = first[v]; j < first[v + 1]; j++)
        if (--indeg[next[j]] == 0)
          heap_push (ready, key != NULL ? -key[next[j]] : -(double) next[j], next[j], 0);
    }
  return done == n;
}

/* Pairs nodes by heavy-edge matching and builds the coarser level; FALSE (and nothing
 * built) if too few pairs form. `cap` bounds a pair's weight so that the coarsest
 * graph can still be split under the balance bound (plx_partition_dag_bound: the
 * bound is at least W/k + cap, and a contiguous split exists once no node outweighs
 * bound - W/k; see split_order).
 *
 * ORDERED mode must keep the coarse graph acyclic. After Herrmann et al. 2019 (Sec.
 * 4), who cluster nodes whose top levels (longest path from a source) differ by at
 * most one, a pair is an edge u -> v with top(v) = top(u) + 1, and, our addition for
 * a matching done all at once, u's only successor is v or v's only predecessor is u.
 * Proof: let m(C) be the least top level in cluster C. An edge a -> b from C to D
 * has top(b) >= top(a) + 1 >= m(C) + 1, and m(D) >= top(b) - 1, so m never falls
 * along a path of clusters; around a cycle it stays equal, which forces every
 * cluster on the cycle to be a pair and every step to go from the lower node of one
 * pair to the upper node of the next. Then each lower node has two successors (its
 * mate and the next upper node) and each upper node two predecessors, which the
 * rule forbids. */
static gboolean
coarsen (Level *fine, Level *coarse, PlxDagMode mode, double cap, guint target)
{
  guint n = fine->n, pairs = 0, nc = 0, m = 0;
  g_autofree guint *mate = g_new (guint, n);
  g_autofree guint *top = NULL;
  g_autofree guint *outdeg = NULL;
  g_autofree guint *indeg = NULL;
  g_autofree guint *src = NULL;
  g_autofree guint *dst = NULL;
  g_autofree double *c = NULL;
  g_autofree guint *cmap = g_new (guint, n);

  if (mode == PLX_DAG_ORDERED)
    {
      top = g_new0 (guint, n);
      outdeg = g_new0 (guint, n);
      indeg = g_new0 (guint, n);
      for (guint v = 0; v < n; v++)
        for (guint j = fine->xadj[v]; j < fine->xadj[v + 1]; j++)
          if (fine->succ[j])
            {
              top[fine->adj[j]] = MAX (top[fine->adj[j]], top[v] + 1);
              outdeg[v]++;
              indeg[fine->adj[j]]++;
            }
    }
  for (guint v = 0; v < n; v++)
    mate[v] = G_MAXUINT;
  for (guint v = 0; v < n && n - pairs > target; v++)
    {
      guint best = G_MAXUINT;
      double best_cost = -1.0;

      if (mate[v] != G_MAXUINT)
        continue;
      for (guint j = fine->xadj[v]; j < fine->xadj[v + 1]; j++)
        {
          guint u = fine->adj[j];

          if (mate[u] != G_MAXUINT || fine->w[v] + fine->w[u] > cap || fine->cost[j] <= best_cost)
            continue;
          if (mode == PLX_DAG_ORDERED)
            {
              guint lo = fine->succ[j] ? v : u, hi = fine->succ[j] ? u : v;
              if (top[hi] != top[lo] + 1 || (outdeg[lo] != 1 && indeg[hi] != 1))
                continue;
            }
          best = u;
          best_cost = fine->cost[j];
        }
      if (best != G_MAXUINT)
        {
          mate[v] = best;
          mate[best] = v;
          pairs++;
        }
    }
  if (pairs < n / 20 + 1)
    return FALSE;

  for (guint v = 0; v < n; v++)
    cmap[v] = G_MAXUINT;
  for (guint v = 0; v < n; v++)
    if (cmap[v] == G_MAXUINT)
      {
        cmap[v] = nc;
        if (mate[v] != G_MAXUINT)
          cmap[mate[v]] = nc;
        nc++;
      }
  src = g_new (guint, fine->xadj[n] + 1);
  dst = g_new (guint, fine->xadj[n] + 1);
  c = g_new (double, fine->xadj[n] + 1);
  for (guint v = 0; v < n; v++)
    for (guint j = fine->xadj[v]; j < fine->xadj[v + 1]; j++)
      if (fine->succ[j] && cmap[v] != cmap[fine->adj[j]])
        {
          src[m] = cmap[v];
          dst[m] = cmap[fine->adj[j]];
          c[m] = fine->cost[j];
          m++;
        }
  if (mode == PLX_DAG_ORDERED)
    {
      g_autofree guint *number = g_new (guint, nc);

      /* Cannot fail by the proof above; if it ever did, stop coarsening here. */
      if (!topological_numbers (nc, src, dst, m, NULL, number))
        return FALSE;
      for (guint v = 0; v < n; v++)
        cmap[v] = number[cmap[v]];
      for (guint e = 0; e < m; e++)
        {
          src[e] = number[src[e]];
          dst[e] = number[dst[e]];
        }
    }
  level_build (coarse, nc, src, dst, c, m);
  coarse->w = g_new0 (double, nc);
  for (guint v = 0; v < n; v++)
    coarse->w[cmap[v]] += fine->w[v];
  fine->cmap = g_steal_pointer (&cmap);
  return TRUE;
}

/* The least-cut split of the nodes, taken in `order`, into k contiguous non-empty
 * blocks of load <= bound, where a boundary costs the edges crossing it (an edge
 * across several boundaries counts at each: an upper estimate of the cut, exact when
 * edges join only neighbouring blocks). Dynamic programming over (blocks, prefix):
 *   cost[p][j] = min over i of cost[p-1][i] + across(i), nodes i..j-1 weighing <= bound,
 * the minimum over the window of admissible i kept by a monotone queue: O(k n + m).
 * A split always exists when bound >= W/k + the heaviest node: filling each block
 * until the next node would overflow it leaves every closed block above W/k, so at
 * most k blocks; blocks of two or more nodes can then be split until there are k.
 * FALSE if none exists. */
static gboolean
split_order (const Level *g, const guint *order, guint k, double bound, guint *part)
{
  guint n = g->n;
  g_autofree guint *pos = g_new (guint, n);
  g_autofree double *across = g_new0 (double, n + 1);
  g_autofree double *prefix = g_new (double, n + 1);
  g_autofree double *prev = g_new (double, n + 1);
  g_autofree double *cur = g_new (double, n + 1);
  g_autofree guint *from = g_new (guint, (gsize) k * (n + 1));
  g_autofree guint *queue = g_new (guint, n + 1);

  for (guint i = 0; i < n; i++)
    pos[order[i]] = i;
  prefix[0] = 0.0;
  for (guint i = 0; i < n; i++)
    prefix[i + 1] = prefix[i] + g->w[order[i]];
  /* across[i]: the edges with one end before position i and the other at or after */
  for (guint v = 0; v < n; v++)
    for (guint j = g->xadj[v]; j < g->xadj[v + 1]; j++)
      if (g->succ[j])
        {
          guint a = MIN (pos[v], pos[g->adj[j]]), b = MAX (pos[v], pos[g->adj[j]]);
          across[a + 1] += g->cost[j];
          across[b + 1] -= g->cost[j];
        }
  for (guint i = 1; i <= n; i++)
    across[i] += across[i - 1];

  prev[0] = INFINITY;
  for (guint j = 1; j <= n; j++)
    prev[j] = prefix[j] <= bound ? 0.0 : INFINITY;
  for (guint p = 1; p < k; p++)
    {
      guint head = 0, tail = 0, lo = p, next_i = p;

      for (guint j = 0; j <= n; j++)
        cur[j] = INFINITY;
      for (guint j = p + 1; j <= n; j++)
        {
          /* admit i = j - 1, then drop the i whose block i..j-1 is too heavy */
          for (; next_i < j; next_i++)
            {
              double value = prev[next_i] + across[next_i];

              if (!isfinite (value))
                continue;
              while (tail > head && prev[queue[tail - 1]] + across[queue[tail - 1]] >= value)
                tail--;
              queue[tail++] = next_i;
            }
          while (lo < j && prefix[j] - prefix[lo] > bound)
            lo++;
          while (tail > head && queue[head] < lo)
            head++;
          if (tail > head)
            {
              cur[j] = prev[queue[head]] + across[queue[head]];
              from[(gsize) p * (n + 1) + j] = queue[head];
            }
        }
      {
        double *swap = prev;
        prev = cur;
        cur = swap;
      }
    }
  if (!isfinite (prev[n]))
    return FALSE;
  {
    guint j = n;

    for (guint p = k; p-- > 1;)
      {
        guint i = from[(gsize) p * (n + 1) + j];
        for (guint q = i; q < j; q++)
          part[order[q]] = p;
        j = i;
      }
    for (guint q = 0; q < j; q++)
      part[order[q]] = 0;
  }
  return TRUE;
}

typedef struct
{
  const Level *g;
  guint        k;
  PlxDagMode   mode;
  double       bound;
  double       tiny;    /* a gain below this is rounding */
  guint       *part;
  double      *load;
  guint       *count;
  double      *conn;    /* k: scratch, the cost from a node to each part */
  guint       *seen;    /* k: scratch, the node conn was last filled for + 1 */
  guint       *touched; /* k: scratch */
  guint        lightest;
} Refiner;

/* The best move of v: to a part it has an edge to (or, for the balance, one it has
 * none to, see below), keeping the load bound, a node in
 * its own part, and in ORDERED mode every edge forward (its part at least its
 * predecessors' and at most its successors'). Gain: the cost to the new part less the
 * cost to the old one (edges to other parts stay cut). */
static gboolean
best_move (Refiner *r, guint v, guint *target, double *gain)
{
  const Level *g = r->g;
  guint p = r->part[v], lo = 0, hi = r->k - 1, n_touched = 0, best = G_MAXUINT;
  double internal, best_gain = -INFINITY;

  if (r->count[p] <= 1)
    return FALSE;
  for (guint j = g->xadj[v]; j < g->xadj[v + 1]; j++)
    {
      guint q = r->part[g->adj[j]];

      if (r->seen[q] != v + 1)
        {
          r->seen[q] = v + 1;
          r->conn[q] = 0.0;
          r->touched[n_touched++] = q;
        }
      r->conn[q] += g->cost[j];
      if (r->mode == PLX_DAG_ORDERED)
        {
          if (g->succ[j])
            hi = MIN (hi, q);
          else
            lo = MAX (lo, q);
        }
    }
  internal = r->seen[p] == v + 1 ? r->conn[p] : 0.0;
  /* the parts it has edges to, then one it has none to, a move only for the balance:
   * in ORDERED mode the ends of its range, in FREE mode the lightest part */
  for (guint t = 0; t <= n_touched + 1; t++)
    {
      guint q;
      double gq;

      if (t < n_touched)
        q = r->touched[t];
      else if (r->mode == PLX_DAG_ORDERED)
        q = t == n_touched ? lo : hi;
      else if (t == n_touched)
        q = r->lightest;
      else
        continue;
      gq = r->seen[q] == v + 1 ? r->conn[q] - internal : -internal;
      if (q == p || q < lo || q > hi || r->load[q] + g->w[v] > r->bound)
        continue;
      if (gq > best_gain || (gq == best_gain && r->load[q] < r->load[best]))
        {
          best = q;
          best_gain = gq;
        }
    }
  /* clear the marks: the next call for the same v must start afresh */
  for (guint t = 0; t < n_touched; t++)
    r->seen[r->touched[t]] = 0;
  if (best == G_MAXUINT)
    return FALSE;
  *target = best;
  *gain = best_gain;
  return TRUE;
}

static void
move_node (Refiner *r, guint v, guint to)
{
  guint from = r->part[v];

  r->load[from] -= r->g->w[v];
  r->count[from]--;
  r->load[to] += r->g->w[v];
  r->count[to]++;
  r->part[v] = to;
  if (r->load[from] < r->load[r->lightest])
    r->lightest = from;
  else if (to == r->lightest)
    for (guint p = 0; p < r->k; p++)
      if (r->load[p] < r->load[r->lightest])
        r->lightest = p;
}

/* One FM pass: moves each node at most once, best gain first, through losses too,
 * then goes back to the best prefix of the moves. Returns the cut it saved. */
static double
fm_pass (Refiner *r)
{
  const Level *g = r->g;
  guint n = g->n, n_moves = 0, best_len = 0, since_best = 0;
  guint limit = 50 + n / 100;
  g_autofree guint8 *locked = g_new0 (guint8, n);
  g_autofree guint *stamp = g_new0 (guint, n);
  g_autofree guint *moved = g_new (guint, n);
  g_autofree guint *moved_from = g_new (guint, n);
  g_autoptr (GArray) heap = g_array_new (FALSE, FALSE, sizeof (HeapEntry));
  double total = 0.0, best_total = 0.0;
  HeapEntry top;

  for (guint v = 0; v < n; v++)
    {
      guint t;
      double gain;

      if (best_move (r, v, &t, &gain))
        heap_push (heap, gain, v, 0);
    }
  while (heap_pop (heap, &top))
    {
      guint v = top.node, t;
      double gain;

      if (locked[v] || top.stamp != stamp[v] || !best_move (r, v, &t, &gain))
        continue;
      if (gain < top.key)
        {
          /* the loads changed since it was queued: queue it at its true gain */
          heap_push (heap, gain, v, ++stamp[v]);
          continue;
        }
      moved[n_moves] = v;
      moved_from[n_moves] = r->part[v];
      n_moves++;
      move_node (r, v, t);
      locked[v] = 1;
      total += gain;
      if (total > best_total + r->tiny)
        {
          best_total = total;
          best_len = n_moves;
          since_best = 0;
        }
      else if (++since_best > limit)
        break;
      for (guint j = g->xadj[v]; j < g->xadj[v + 1]; j++)
        {
          guint u = g->adj[j];

          if (locked[u])
            continue;
          stamp[u]++;
          if (best_move (r, u, &t, &gain))
            heap_push (heap, gain, u, stamp[u]);
        }
    }
  while (n_moves > best_len)
    {
      n_moves--;
      move_node (r, moved[n_moves], moved_from[n_moves]);
    }
  return best_total;
}

static void
refine (Refiner *r)
{
  for (guint pass = 0; pass < 10; pass++)
    if (fm_pass (r) <= r->tiny)
      break;
}

static void
count_loads (Refiner *r)
{
  for (guint p = 0; p < r->k; p++)
    {
      r->load[p] = 0.0;
      r->count[p] = 0;
    }
  for (guint v = 0; v < r->g->n; v++)
    {
      r->load[r->part[v]] += r->g->w[v];
      r->count[r->part[v]]++;
    }
  r->lightest = 0;
  for (guint p = 1; p < r->k; p++)
    if (r->load[p] < r->load[r->lightest])
      r->lightest = p;
}

static double
level_cut (const Level *g, const guint *part)
{
  double cut = 0.0;

  for (guint v = 0; v < g->n; v++)
    for (guint j = g->xadj[v]; j < g->xadj[v + 1]; j++)
      if (g->succ[j] && part[v] != part[g->adj[j]])
        cut += g->cost[j];
  return cut;
}

/* A depth-first order of the nodes, roots and neighbours taken from a random offset:
 * in ORDERED mode the reverse postorder along the edges (a topological order), in
 * FREE mode the preorder over all neighbours. Either keeps what is connected close
 * together, so its contiguous blocks grow like regions (the graph growing of Karypis
 * and Kumar 1998, Sec. 4.2), and every seed grows them differently. */
static void
depth_first_order (const Level *g, PlxDagMode mode, GRand *rand, guint *order)
{
  guint n = g->n, filled = 0, root_offset = (guint) g_rand_int_range (rand, 0, (gint) n);
  g_autofree guint8 *visited = g_new0 (guint8, n);
  g_autofree guint *stack = g_new (guint, n);
  g_autofree guint *offset = g_new (guint, n);
  g_autofree guint *scanned = g_new0 (guint, n);

  for (guint v = 0; v < n; v++)
    {
      guint degree = g->xadj[v + 1] - g->xadj[v];
      offset[v] = degree > 0 ? (guint) g_rand_int_range (rand, 0, (gint) degree) : 0;
    }
  for (guint i = 0; i < n; i++)
    {
      guint root = (i + root_offset) % n, depth = 0;

      if (visited[root])
        continue;
      visited[root] = 1;
      stack[depth++] = root;
      if (mode == PLX_DAG_FREE)
        order[filled++] = root;
      while (depth > 0)
        {
          guint v = stack[depth - 1], degree = g->xadj[v + 1] - g->xadj[v];
          gboolean pushed = FALSE;

          while (scanned[v] < degree && !pushed)
            {
              guint j = g->xadj[v] + (offset[v] + scanned[v]++) % degree, u = g->adj[j];

              if (visited[u] || (mode == PLX_DAG_ORDERED && !g->succ[j]))
                continue;
              visited[u] = 1;
              stack[depth++] = u;
              if (mode == PLX_DAG_FREE)
                order[filled++] = u;
              pushed = TRUE;
            }
          if (!pushed)
            {
              depth--;
              /* postorder, written from the end: the reverse postorder */
              if (mode == PLX_DAG_ORDERED)
                order[n - 1 - filled++] = v;
            }
        }
    }
}

/* A topological order drawn at random (Kahn's algorithm, ready nodes in a random
 * priority): other interleavings of independent branches than depth-first gives. */
static void
random_topological_order (const Level *g, GRand *rand, guint *order)
{
  guint m = 0;
  g_autofree guint *src = g_new (guint, g->xadj[g->n] + 1);
  g_autofree guint *dst = g_new (guint, g->xadj[g->n] + 1);
  g_autofree double *key = g_new (double, g->n);
  g_autofree guint *number = g_new (guint, g->n);

  for (guint v = 0; v < g->n; v++)
    {
      key[v] = g_rand_double (rand);
      for (guint j = g->xadj[v]; j < g->xadj[v + 1]; j++)
        if (g->succ[j])
          {
            src[m] = v;
            dst[m] = g->adj[j];
            m++;
          }
    }
  if (!topological_numbers (g->n, src, dst, m, key, number))
    {
      /* not reached: the levels of ORDERED mode are acyclic */
      for (guint v = 0; v < g->n; v++)
        number[v] = v;
    }
  for (guint v = 0; v < g->n; v++)
    order[number[v]] = v;
}

/* The split of the coarsest graph: contiguous blocks of several orders (the nodes'
 * own, then depth-first ones and, in ORDERED mode, random topological ones, from a
 * fixed seed), each refined, the least cut kept. */
static void
initial_partition (Refiner *r)
{
  const Level *g = r->g;
  guint tries = 1 + CLAMP (20000 / (g->n + 1), 3, 31);
  g_autoptr (GRand) rand = g_rand_new_with_seed (1906);
  g_autofree guint *order = g_new (guint, g->n);
  g_autofree guint *best = g_new (guint, g->n);
  double best_cut = INFINITY;

  for (guint t = 0; t < tries; t++)
    {
      double cut;

      if (t == 0)
        for (guint v = 0; v < g->n; v++)
          order[v] = v;
      else if (t % 2 == 0 && r->mode == PLX_DAG_ORDERED)
        random_topological_order (g, rand, order);
      else
        depth_first_order (g, r->mode, rand, order);
      if (!split_order (g, order, r->k, r->bound, r->part))
        {
          /* Not reached: the coarse nodes weigh at most bound - W/k (see coarsen). */
          for (guint i = 0; i < g->n; i++)
            r->part[order[i]] = (guint) ((guint64) i * r->k / g->n);
        }
      count_loads (r);
      refine (r);
      cut = level_cut (g, r->part);
      if (cut < best_cut)
        {
          best_cut = cut;
          memcpy (best, r->part, g->n * sizeof (guint));
        }
    }
  memcpy (r->part, best, g->n * sizeof (guint));
  count_loads (r);
}

static gboolean
check_dag (const PlxDag *dag, guint parts, GError **error)
{
  double total = 0.0;

  if (parts == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "DAG partition: parts is 0; it takes at least one part");
      return FALSE;
    }
  if (parts > dag->n_nodes)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "DAG partition: %u parts for %u nodes; every part needs a node, so parts <= nodes",
                   parts, dag->n_nodes);
      return FALSE;
    }
  for (guint v = 0; v < dag->n_nodes; v++)
    {
      if (!isfinite (dag->node_s[v]) || dag->node_s[v] < 0.0)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "DAG partition: node %u takes %g s; a node's time must be finite and >= 0",
                       v, dag->node_s[v]);
          return FALSE;
        }
      total += dag->node_s[v];
    }
  if (!isfinite (total))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "DAG partition: the nodes' times add up to %g s, beyond a double", total);
      return FALSE;
    }
  for (guint e = 0; e < dag->n_edges; e++)
    {
      guint a = dag->edge_src[e], b = dag->edge_dst[e];

      if (a >= dag->n_nodes || b >= dag->n_nodes)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "DAG partition: edge %u joins node %u to node %u, but the nodes are 0 .. %u",
                       e, a, b, dag->n_nodes - 1);
          return FALSE;
        }
      if (a >= b)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "DAG partition: edge %u goes from node %u to node %u; the nodes must come in a "
                       "topological order, every edge from a lower number to a higher one",
                       e, a, b);
          return FALSE;
        }
      if (!isfinite (dag->edge_cut_s[e]) || dag->edge_cut_s[e] < 0.0)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "DAG partition: edge %u (node %u to %u) costs %g s to cut; a cost must be finite and >= 0",
                       e, a, b, dag->edge_cut_s[e]);
          return FALSE;
        }
    }
  return TRUE;
}

double
plx_partition_dag_bound (const PlxDag *dag, guint parts, double epsilon)
{
  double total = 0.0, heaviest = 0.0;

  g_return_val_if_fail (dag != NULL && parts > 0, 0.0);
  for (guint v = 0; v < dag->n_nodes; v++)
    {
      total += dag->node_s[v];
      heaviest = MAX (heaviest, dag->node_s[v]);
    }
  return MAX ((1.0 + epsilon) * total / parts, total / parts + heaviest);
}

void
plx_dag_partition_free (PlxDagPartition *partition)
{
  if (partition == NULL)
    return;
  g_free (partition->part);
  g_free (partition->load_s);
  g_free (partition->time_s);
  g_free (partition->bytes);
  g_free (partition);
}

/* The costs of a checked assignment; takes `part`. */
static PlxDagPartition *
evaluate (const PlxDag *dag, guint *part, guint parts)
{
  PlxDagPartition *r = g_new0 (PlxDagPartition, 1);
  double total = 0.0;

  r->n_nodes = dag->n_nodes;
  r->parts = parts;
  r->part = part;
  r->load_s = g_new0 (double, parts);
  r->time_s = g_new0 (double, parts);
  r->bytes = g_new0 (guint64, parts);
  for (guint v = 0; v < dag->n_nodes; v++)
    {
      r->load_s[part[v]] += dag->node_s[v];
      total += dag->node_s[v];
      if (dag->node_bytes != NULL)
        r->bytes[part[v]] += dag->node_bytes[v];
    }
  for (guint p = 0; p < parts; p++)
    r->time_s[p] = r->load_s[p];
  for (guint e = 0; e < dag->n_edges; e++)
    {
      guint a = part[dag->edge_src[e]], b = part[dag->edge_dst[e]];

      if (a == b)
        continue;
      r->cut_s += dag->edge_cut_s[e];
      r->time_s[a] += dag->edge_cut_s[e];
      r->time_s[b] += dag->edge_cut_s[e];
    }
  for (guint p = 0; p < parts; p++)
    {
      r->largest_part_s = MAX (r->largest_part_s, r->time_s[p]);
      r->max_load_s = MAX (r->max_load_s, r->load_s[p]);
    }
  r->imbalance = total > 0.0 ? r->max_load_s / (total / parts) - 1.0 : 0.0;
  return r;
}

PlxDagPartition *
plx_partition_dag_evaluate (const PlxDag *dag, const guint *part, guint parts, GError **error)
{
  g_return_val_if_fail (dag != NULL && part != NULL, NULL);
  if (!check_dag (dag, parts, error))
    return NULL;
  for (guint v = 0; v < dag->n_nodes; v++)
    if (part[v] >= parts)
      {
        g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                     "DAG partition: node %u is in part %u, but the parts are 0 .. %u", v, part[v], parts - 1);
        return NULL;
      }
  return evaluate (dag, g_memdup2 (part, dag->n_nodes * sizeof (guint)), parts);
}

/* One multilevel run: coarsen (in `mode`), split the coarsest graph, project and
 * refine each level; on the finest, refine again in `finest_mode` if it differs
 * (an ORDERED partition set free). Returns the cut; `part` gets the assignment. */
static double
multilevel (const PlxDag *dag, guint parts, PlxDagMode mode, PlxDagMode finest_mode, double bound, guint *part)
{
  g_autoptr (GArray) levels = g_array_new (FALSE, TRUE, sizeof (Level));
  g_autofree double *load = g_new (double, parts);
  g_autofree guint *count = g_new (guint, parts);
  g_autofree double *conn = g_new (double, parts);
  g_autofree guint *seen = g_new0 (guint, parts);
  g_autofree guint *touched = g_new (guint, parts);
  double total = 0.0, cost_sum = 0.0, cut;
  guint target;
  Level *g;
  Refiner r;

  for (guint v = 0; v < dag->n_nodes; v++)
    total += dag->node_s[v];
  for (guint e = 0; e < dag->n_edges; e++)
    cost_sum += dag->edge_cut_s[e];
  {
    Level finest = { 0 };

    level_build (&finest, dag->n_nodes, dag->edge_src, dag->edge_dst, dag->edge_cut_s, dag->n_edges);
    finest.w = g_memdup2 (dag->node_s, dag->n_nodes * sizeof (double));
    g_array_append_val (levels, finest);
  }
  /* Coarsen to about 8 nodes a part: enough room for the split to balance. */
  target = MAX (8 * parts, 64u);
  for (;;)
    {
      Level coarse = { 0 };

      g = &g_array_index (levels, Level, levels->len - 1);
      if (g->n <= target || !coarsen (g, &coarse, mode, bound - total / parts, target))
        break;
      g_array_append_val (levels, coarse);
    }

  r = (Refiner) { &g_array_index (levels, Level, levels->len - 1), parts, mode, bound, 1e-12 * cost_sum,
                  part, load, count, conn, seen, touched, 0 };
  initial_partition (&r);
  for (guint l = levels->len - 1; l-- > 0;)
    {
      /* project: each node takes its coarse node's part */
      g_autofree guint *coarse_part = g_memdup2 (part, g_array_index (levels, Level, l + 1).n * sizeof (guint));

      g = &g_array_index (levels, Level, l);
      for (guint v = 0; v < g->n; v++)
        part[v] = coarse_part[g->cmap[v]];
      r.g = g;
      count_loads (&r);
      refine (&r);
    }
  if (finest_mode != mode)
    {
      r.mode = finest_mode;
      refine (&r);
    }
  cut = level_cut (r.g, part);
  for (guint l = 0; l < levels->len; l++)
    level_clear (&g_array_index (levels, Level, l));
  return cut;
}

PlxDagPartition *
plx_partition_dag (const PlxDag *dag, guint parts, PlxDagMode mode, double epsilon, GError **error)
{
  g_autofree guint *part = NULL;
  double bound, cut;

  g_return_val_if_fail (dag != NULL, NULL);
  g_return_val_if_fail (mode == PLX_DAG_ORDERED || mode == PLX_DAG_FREE, NULL);
  if (!check_dag (dag, parts, error))
    return NULL;
  if (!isfinite (epsilon) || epsilon < 0.0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "DAG partition: epsilon (the load imbalance allowed) is %g; it must be finite and >= 0",
                   epsilon);
      return NULL;
    }
  part = g_new0 (guint, dag->n_nodes);
  if (parts == 1)
    return evaluate (dag, g_steal_pointer (&part), 1);

  bound = plx_partition_dag_bound (dag, parts, epsilon);
  /* the split and the moves compare loads summed in other orders: leave room for rounding */
  bound += 1e-12 * bound;
  cut = multilevel (dag, parts, mode, mode, bound, part);
  if (mode == PLX_DAG_FREE)
    {
      /* Every ORDERED partition is a FREE one: also start from the ORDERED result and
       * refine it freely, so FREE never cuts more than ORDERED. It pays where the
       * undirected coarsening loses the program's order (skip edges, costs drawn at
       * random): measured in docs/partition.md. */
      g_autofree guint *from_ordered = g_new0 (guint, dag->n_nodes);

      if (multilevel (dag, parts, PLX_DAG_ORDERED, PLX_DAG_FREE, bound, from_ordered) < cut)
        {
          g_free (part);
          part = g_steal_pointer (&from_ordered);
        }
    }
  return evaluate (dag, g_steal_pointer (&part), parts);
}
