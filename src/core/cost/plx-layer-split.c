#include <math.h>

#include "cost/plx-layer-split.h"
#include "base/plx-minmax.h"

/* Megatron's first/last-stage counts apply: given, one chunk per stage, and the
 * stages between can take equal shares (plx_strategy_resolve checks it). */
static gboolean
megatron_ends (const PlxStrategy *s, guint n_layers)
{
  guint ends = (s->first_stage_layers != 0) + (s->last_stage_layers != 0);
  guint64 rest;

  if (ends == 0 || s->virtual_stages != 1 || s->pp < ends + 1 ||
      (guint64) s->first_stage_layers + s->last_stage_layers >= n_layers)
    return FALSE;
  rest = (guint64) n_layers - s->first_stage_layers - s->last_stage_layers;
  return rest % (s->pp - ends) == 0;
}

gboolean
plx_layer_split_is_uneven (const PlxStrategy *s,
                           guint              n_layers)
{
  guint64 k = (guint64) s->pp * s->virtual_stages;

  if (s->layers_per_stage != NULL && s->n_layers_per_stage == k)
    {
      for (guint i = 0; i < s->n_layers_per_stage; i++)
        if ((guint64) s->layers_per_stage[i] * k != n_layers)
          return TRUE;
      return FALSE;
    }
  if (megatron_ends (s, n_layers))
    return (guint64) s->first_stage_layers * k != (s->first_stage_layers ? n_layers : 0) ||
           (guint64) s->last_stage_layers * k != (s->last_stage_layers ? n_layers : 0);
  return k > 1 && (s->layers_per_stage_auto || n_layers % k != 0);
}

/* The strategy's own counts, Megatron's ends, or equal shares: TRUE when one of
 * these decides the split, so that no balancing is needed. */
static gboolean
fixed_split (const PlxStrategy *s,
             guint              n_layers,
             guint             *out)
{
  guint k = s->pp * s->virtual_stages;

  if (s->layers_per_stage != NULL && s->n_layers_per_stage == k)
    {
      for (guint i = 0; i < k; i++)
        out[i] = s->layers_per_stage[i];
      return TRUE;
    }
  if (megatron_ends (s, n_layers))
    {
      guint ends = (s->first_stage_layers != 0) + (s->last_stage_layers != 0);
      guint mid = (n_layers - s->first_stage_layers - s->last_stage_layers) / (k - ends);
      for (guint i = 0; i < k; i++)
        out[i] = mid;
      if (s->first_stage_layers != 0)
        out[0] = s->first_stage_layers;
      if (s->last_stage_layers != 0)
        out[k - 1] = s->last_stage_layers;
      return TRUE;
    }
  if (k == 1 || (!s->layers_per_stage_auto && n_layers % k == 0))
    {
      for (guint i = 0; i < k; i++)
        out[i] = n_layers / k;
      return TRUE;
    }
  return FALSE;
}

/* The chunks filled to the largest time hold at least n_layers; what is left over
 * comes off, one layer each, from the first middle chunks on, then from the ends;
 * every chunk keeps at least one layer. */
static void
trim_surplus (guint  k,
              guint  n_layers,
              guint *out)
{
  guint64 total = 0;
  guint surplus;

  for (guint i = 0; i < k; i++)
    total += out[i];
  surplus = total > n_layers ? (guint) (total - n_layers) : 0u;
  for (guint i = 1; surplus > 0 && i + 1 < k; i++)
    if (out[i] > 1)
      out[i]--, surplus--;
  for (guint i = 0; surplus > 0 && i < k; i = i == 0 ? k - 1 : k)
    while (surplus > 0 && out[i] > 1)
      out[i]--, surplus--;
}

/* Layers chunk k holds when no chunk may take longer than `t` layers of time. */
static guint
fits (double t, double extra)
{
  double n = floor (t - extra + 1e-9);
  return n < 1.0 ? 1u : (guint) n;
}

/* Layers K chunks hold with none longer than `t`. */
static guint64
holds (double t, guint k, double first_extra, double last_extra)
{
  return (guint64) fits (t, first_extra) + fits (t, last_extra) + (guint64) (k - 2) * fits (t, 0.0);
}

void
plx_layer_split (const PlxStrategy *s,
                 guint              n_layers,
                 double             first_extra,
                 double             last_extra,
                 guint             *out)
{
  guint k = s->pp * s->virtual_stages;
  guint t, lo, hi;
  double best;

  if (fixed_split (s, n_layers, out))
    return;

  /* Equal layers and two extras (k >= 2 here): with no chunk longer than T (in
   * layers of time), chunk i takes floor(T - extra_i) layers, at least one, and the
   * chunks hold total(T) layers, a step function of T. The optimum is the smallest T
   * with total(T) >= n_layers: any split with a smaller largest time holds fewer.
   * total only steps up at T = j (middle chunks), j + first_extra or j + last_extra
   * for whole j, so each of the three sequences is searched for its first T that
   * holds all the layers, and the smallest of the three is taken. */
  best = G_MAXDOUBLE;
  for (guint seq = 0; seq < 3; seq++)
    {
      double offset = seq == 0 ? 0.0 : seq == 1 ? first_extra : last_extra;
      lo = 1;
      hi = n_layers + 1;
      while (lo < hi)
        {
          t = lo + (hi - lo) / 2;
          if (holds (t + offset, k, first_extra, last_extra) >= n_layers)
            hi = t;
          else
            lo = t + 1;
        }
      if (lo <= n_layers && lo + offset < best)
        best = lo + offset;
    }
  /* T = n_layers + first_extra lets the first chunk alone take every layer, so one
   * sequence always sets best (extras may be negative: the sends, below). */
  out[0] = fits (best, first_extra);
  out[k - 1] = fits (best, last_extra);
  for (guint i = 1; i + 1 < k; i++)
    out[i] = fits (best, 0.0);
  trim_surplus (k, n_layers, out);
}

const char *
plx_layer_split_uniform (guint  n_layers,
                         guint  k,
                         guint *out)
{
  /* DeepSpeed's partition_uniform (deepspeed/runtime/utils.py, the "uniform"
   * partition_method of its PipelineModule): floor(n/k) each, the first n mod k parts
   * one more. Megatron-LM itself only takes counts that divide (or are given). */
  g_return_val_if_fail (k > 0, "even");
  for (guint i = 0; i < k; i++)
    out[i] = n_layers / k + (i < n_layers % k ? 1u : 0u);
  return n_layers % k == 0 ? "even" : "uniform";
}

/* The bisections below probe the same (kind, layers) pairs again and again, and a
 * ZeRO-3 chunk's cost is a flow shop: each is computed once per split. Looked up
 * inline, not through a second function pointer: the lookups were half of a split's
 * instructions, a split 6 % of a search. */
typedef struct
{
  PlxChunkCostFunc cost;
  gpointer         data;
  guint            n_layers;
  double          *known;   /* [kind * n_layers + n - 1]; NAN: not yet */
} CostMemo;

static inline double
cost_memo (CostMemo    *m,
           PlxChunkKind kind,
           guint        n)
{
  double *slot = &m->known[(gsize) kind * m->n_layers + n - 1];

  if (isnan (*slot))
    *slot = m->cost (kind, n, m->data);
  return *slot;
}

/* Layers a chunk of kind `kind` holds when none may take longer than `t`: the most
 * n with cost(n) <= t (cost grows with n), at least one, at most all. */
static guint
cost_fits (CostMemo *m, PlxChunkKind kind, guint n_layers, double t)
{
  guint lo = 1, hi = n_layers;

  if (cost_memo (m, kind, 1) > t)
    return 1;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo + 1) / 2;
      if (cost_memo (m, kind, mid) <= t)
        lo = mid;
      else
        hi = mid - 1;
    }
  return lo;
}

static guint64
cost_holds (CostMemo *m, guint k, guint n_layers, double t)
{
  return (guint64) cost_fits (m, PLX_CHUNK_FIRST, n_layers, t) +
         cost_fits (m, PLX_CHUNK_LAST, n_layers, t) +
         (guint64) (k - 2) * (k > 2 ? cost_fits (m, PLX_CHUNK_MIDDLE, n_layers, t) : 0u);
}

void
plx_layer_split_by_cost (const PlxStrategy *s,
                         guint              n_layers,
                         PlxChunkCostFunc   chunk_cost,
                         gpointer           chunk_data,
                         guint             *out)
{
  guint k = s->pp * s->virtual_stages;
  double best = G_MAXDOUBLE;
  CostMemo memo = { chunk_cost, chunk_data, n_layers, NULL };

  if (fixed_split (s, n_layers, out))
    return;
  memo.known = g_new (double, (gsize) 3 * MAX (n_layers, 1u));
  for (gsize i = 0; i < (gsize) 3 * MAX (n_layers, 1u); i++)
    memo.known[i] = NAN;
  /* As in plx_layer_split with any cost that grows with the layers: the optimum
   * largest time is one of the chunk times cost(kind, n), and for each kind the
   * first n whose time holds all the layers is found by bisection (the layers held
   * grow with the time allowed). */
  for (guint kind = PLX_CHUNK_FIRST; kind <= PLX_CHUNK_MIDDLE; kind++)
    {
      guint lo = 1, hi = n_layers + 1;

      if (kind == PLX_CHUNK_MIDDLE && k <= 2)
        continue;
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;
          if (cost_holds (&memo, k, n_layers, cost_memo (&memo, (PlxChunkKind) kind, mid)) >= n_layers)
            hi = mid;
          else
            lo = mid + 1;
        }
      if (lo <= n_layers)
        best = plx_min (best, cost_memo (&memo, (PlxChunkKind) kind, lo));
    }
  out[0] = cost_fits (&memo, PLX_CHUNK_FIRST, n_layers, best);
  out[k - 1] = cost_fits (&memo, PLX_CHUNK_LAST, n_layers, best);
  if (k > 2)
    {
      guint middle = cost_fits (&memo, PLX_CHUNK_MIDDLE, n_layers, best);  /* the same for each */
      for (guint i = 1; i + 1 < k; i++)
        out[i] = middle;
    }
  trim_surplus (k, n_layers, out);
  g_free (memo.known);
}
