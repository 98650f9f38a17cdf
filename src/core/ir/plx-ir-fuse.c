/* Operator and tensor fusion of a program (docs/fusion.md): the plan's ops grouped
 * into kernels, its gradients into buckets, and the program rebuilt in an order
 * every stream can run. The search is in plx-ir-fuse-search.c. */
#include <math.h>
#include <string.h>

#include "ir/plx-ir-fuse.h"

/* Memory-bound ops, which a fused kernel runs from registers instead of HBM (Chen et
 * al. 2018, TVM §3: "injective" and "reduction" ops fuse into one kernel; XLA's
 * loop and input fusion do the same). Matmuls and convolutions keep their library
 * kernels; a reshape is a view with nothing to save; collectives and sends are not
 * compute. */
static gboolean
fusible_kind (PlxIrKind kind)
{
  switch (kind)
    {
    case PLX_IR_ADD:
    case PLX_IR_MUL:
    case PLX_IR_RELU:
    case PLX_IR_GELU:
    case PLX_IR_TANH:
    case PLX_IR_SOFTMAX:
    case PLX_IR_LAYER_NORM:
    case PLX_IR_RMS_NORM:
    case PLX_IR_REDUCE_MEAN:
    case PLX_IR_REDUCE_SUM:
    case PLX_IR_EXPAND:
    case PLX_IR_LOSS:
    case PLX_IR_RELU_GRAD:
    case PLX_IR_GELU_GRAD:
    case PLX_IR_TANH_GRAD:
    case PLX_IR_SOFTMAX_GRAD:
    case PLX_IR_LAYER_NORM_GRAD:
    case PLX_IR_RMS_NORM_GRAD:
    case PLX_IR_LOSS_GRAD:
    case PLX_IR_BATCH_NORM:
    case PLX_IR_BATCH_NORM_GRAD:
    case PLX_IR_MAX_POOL:
    case PLX_IR_MAX_POOL_GRAD:
      return TRUE;
    default:
      return FALSE;
    }
}

/* An op a fused kernel can hold: memory-bound, on the compute stream, costed by the
 * model (an op carrying a finer model's time keeps it). */
static gboolean
fusible (const PlxIrOp *op)
{
  return fusible_kind (op->kind) && plx_ir_op_stream (op) == PLX_IR_STREAM_COMPUTE && isnan (op->time_s);
}

static gboolean
same_devices (const PlxIrOp *a, const PlxIrOp *b)
{
  return a->n_devices == b->n_devices && a->groups == b->groups &&
         memcmp (a->devices, b->devices, a->n_devices * sizeof (guint)) == 0;
}

PlxFuseSpace *
plx_fuse_space_new (const PlxIrGraph *program)
{
  PlxFuseSpace *s = g_new0 (PlxFuseSpace, 1);
  g_autoptr (GArray) prod = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) cons = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) grads = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autofree gboolean *read_by_update = g_new0 (gboolean, program->tensors->len);
  g_autofree guint *last = g_new (guint, program->tensors->len + 1);
  guint n_ops = program->ops->len;

  s->program = program;
  s->reader_start = g_new0 (guint, program->tensors->len + 1);
  for (guint t = 0; t < program->tensors->len; t++)
    last[t] = G_MAXUINT;
  s->names = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint t = 0; t < program->tensors->len; t++)
    g_hash_table_add (s->names, ((PlxIrTensor *) program->tensors->pdata[t])->name);
  for (guint i = 0; i < n_ops; i++)
    {
      const PlxIrOp *op = program->ops->pdata[i];
      g_hash_table_add (s->names, op->name);
      for (guint j = 0; j < op->n_inputs; j++)
        if (last[op->inputs[j]] != i)
          last[op->inputs[j]] = i, s->reader_start[op->inputs[j] + 1]++;
    }
  for (guint t = 0; t < program->tensors->len; t++)
    s->reader_start[t + 1] += s->reader_start[t];
  s->reader_op = g_new (guint, MAX (s->reader_start[program->tensors->len], 1u));
  {
    g_autofree guint *fill = g_memdup2 (s->reader_start, sizeof (guint) * MAX (program->tensors->len, 1u));
    for (guint t = 0; t < program->tensors->len; t++)
      last[t] = G_MAXUINT;
    for (guint i = 0; i < n_ops; i++)
      {
        const PlxIrOp *op = program->ops->pdata[i];
        for (guint j = 0; j < op->n_inputs; j++)
          if (last[op->inputs[j]] != i)
            last[op->inputs[j]] = i, s->reader_op[fill[op->inputs[j]]++] = i;
      }
  }
  for (guint i = 0; i < n_ops; i++)
    {
      const PlxIrOp *op = program->ops->pdata[i];
      if (op->kind == PLX_IR_OPTIMIZER)
        for (guint j = 0; j < op->n_inputs; j++)
          read_by_update[op->inputs[j]] = TRUE;
    }
  for (guint c = 0; c < n_ops; c++)
    {
      const PlxIrOp *op = program->ops->pdata[c];

      if (op->kind == PLX_IR_ALL_REDUCE && op->n_inputs == 1 && op->n_outputs == 1 &&
          read_by_update[op->outputs[0]])
        g_array_append_val (grads, c);
      if (!fusible (op))
        continue;
      for (guint j = 0; j < op->n_inputs; j++)
        {
          gint p = ((const PlxIrTensor *) program->tensors->pdata[op->inputs[j]])->producer;
          const PlxIrOp *from;
          gint64 key;

          if (p < 0)
            continue;
          from = program->ops->pdata[p];
          /* Within one pass: a forward op and the backward op that reads what it
           * saved have the rest of the network between them. */
          /* A reduction's result is whole only when the reduction is done: what
           * reads it starts a new kernel (Chen et al. 2018 §3: injective ops fuse
           * into a reduction's input, not its output). */
          if (!fusible (from) || from->phase != op->phase || !same_devices (from, op) ||
              from->kind == PLX_IR_REDUCE_MEAN || from->kind == PLX_IR_REDUCE_SUM)
            continue;
          key = (gint64) p * n_ops + c;
          if (g_hash_table_contains (seen, &key))
            continue;
          g_hash_table_add (seen, g_memdup2 (&key, sizeof key));
          g_array_append_val (prod, p);
          g_array_append_val (cons, c);
        }
    }
  s->n_edges = prod->len;
  s->edge_producer = (guint *) (void *) g_array_free (g_steal_pointer (&prod), FALSE);
  s->edge_consumer = (guint *) (void *) g_array_free (g_steal_pointer (&cons), FALSE);
  s->n_grads = grads->len;
  s->grad_op = (guint *) (void *) g_array_free (g_steal_pointer (&grads), FALSE);
  s->grad_bytes = g_new (double, MAX (s->n_grads, 1u));
  s->grad_break = g_new (gboolean, MAX (s->n_grads, 1u));
  for (guint i = 0; i < s->n_grads; i++)
    {
      const PlxIrOp *op = program->ops->pdata[s->grad_op[i]];
      const PlxIrTensor *t = program->tensors->pdata[op->inputs[0]];
      const PlxIrOp *before = i > 0 ? program->ops->pdata[s->grad_op[i - 1]] : NULL;

      s->grad_bytes[i] = plx_ir_tensor_bytes (t);
      s->grad_break[i] = before == NULL || !same_devices (before, op) || plx_ir_op_stream (before) != plx_ir_op_stream (op) ||
                         ((const PlxIrTensor *) program->tensors->pdata[before->inputs[0]])->dtype != t->dtype;
    }
  return s;
}

void
plx_fuse_space_free (PlxFuseSpace *space)
{
  if (space == NULL)
    return;
  g_free (space->edge_producer);
  g_free (space->edge_consumer);
  g_free (space->grad_op);
  g_free (space->grad_bytes);
  g_free (space->grad_break);
  g_free (space->reader_start);
  g_free (space->reader_op);
  g_hash_table_unref (space->names);
  g_free (space);
}

PlxFusePlan *
plx_fuse_plan_new (const PlxFuseSpace *space)
{
  PlxFusePlan *p = g_new0 (PlxFusePlan, 1);

  p->n_edges = space->n_edges;
  p->n_grads = space->n_grads;
  p->fuse = g_new0 (gboolean, MAX (p->n_edges, 1u));
  p->cut = g_new (gboolean, MAX (p->n_grads, 1u));
  for (guint i = 0; i < p->n_grads; i++)
    p->cut[i] = TRUE;
  return p;
}

PlxFusePlan *
plx_fuse_plan_copy (const PlxFusePlan *plan)
{
  PlxFusePlan *p = g_new0 (PlxFusePlan, 1);

  *p = *plan;
  p->fuse = g_memdup2 (plan->fuse, sizeof (gboolean) * MAX (plan->n_edges, 1u));
  p->cut = g_memdup2 (plan->cut, sizeof (gboolean) * MAX (plan->n_grads, 1u));
  return p;
}

void
plx_fuse_plan_free (PlxFusePlan *plan)
{
  if (plan == NULL)
    return;
  g_free (plan->fuse);
  g_free (plan->cut);
  g_free (plan);
}

void
plx_fuse_plan_buckets_by_size (const PlxFuseSpace *space,
                               PlxFusePlan        *plan,
                               double              first_bytes,
                               double              bucket_bytes)
{
  double held = 0.0;
  gboolean first = TRUE;

  for (guint i = 0; i < space->n_grads; i++)
    {
      if (i > 0 && space->grad_break[i])
        plan->cut[i - 1] = TRUE, held = 0.0;
      held += space->grad_bytes[i];
      plan->cut[i] = held >= (first ? first_bytes : bucket_bytes) || i + 1 == space->n_grads;
      if (plan->cut[i])
        held = 0.0, first = FALSE;
    }
}

void
plx_fuse_plan_fuse_all (PlxFusePlan *plan)
{
  for (guint e = 0; e < plan->n_edges; e++)
    plan->fuse[e] = TRUE;
}

/* ---- grouping ----------------------------------------------------------------- */

typedef struct
{
  const PlxIrGraph *g;
  guint  *parent;     /* union-find */
  guint  *next;       /* each group's members as a circular list */
  guint  *lo, *hi;    /* a root's first and last member (program order) */
  guint  *stamp;      /* visited marks of the convexity search */
  guint   visit;
  GArray *queue;
  const guint *reader_start, *reader_op;   /* the space's */
} Groups;

static guint
find (Groups *gr, guint i)
{
  while (gr->parent[i] != i)
    {
      gr->parent[i] = gr->parent[gr->parent[i]];
      i = gr->parent[i];
    }
  return i;
}

/* Queues every op of x's group, once: a fused group runs as one kernel, so all its
 * outputs appear when all its inputs are in - reaching one op reaches them all. A
 * group wholly after `hi` cannot lead back to an op at or before it (program order
 * is topological). */
static void
reach (Groups *gr, guint x, guint hi)
{
  guint r = find (gr, x), m = r;

  if (gr->lo[r] > hi || gr->stamp[r] == gr->visit)
    return;
  gr->stamp[r] = gr->visit;
  do
    {
      g_array_append_val (gr->queue, m);
      m = gr->next[m];
    }
  while (m != r);
}

/* Whether groups a and b together would be convex in the program of kernels: no
 * path leaves them and comes back, through single ops or through other fused groups
 * (two convex groups that each read the other would wait on each other). Such a
 * path can only run through ops before the union's last member. */
static gboolean
convex_union (Groups *gr, guint a, guint b)
{
  guint hi = MAX (gr->hi[a], gr->hi[b]);

  gr->visit++;
  g_array_set_size (gr->queue, 0);
  for (guint root = a, pass = 0; pass < 2; pass++, root = b)
    {
      guint m = root;
      do
        {
          const PlxIrOp *op = gr->g->ops->pdata[m];
          for (guint j = 0; j < op->n_outputs; j++)
            {
              guint t = op->outputs[j];
              for (guint k = gr->reader_start[t]; k < gr->reader_start[t + 1]; k++)
                {
                  guint rx = find (gr, gr->reader_op[k]);
                  if (rx != a && rx != b)
                    reach (gr, gr->reader_op[k], hi);
                }
            }
          m = gr->next[m];
        }
      while (m != root);
    }
  for (guint q = 0; q < gr->queue->len; q++)
    {
      const PlxIrOp *op = gr->g->ops->pdata[g_array_index (gr->queue, guint, q)];
      for (guint j = 0; j < op->n_outputs; j++)
        {
          guint t = op->outputs[j];
          for (guint k = gr->reader_start[t]; k < gr->reader_start[t + 1]; k++)
            {
              guint rx = find (gr, gr->reader_op[k]);
              if (rx == a || rx == b)
                return FALSE;
              reach (gr, gr->reader_op[k], hi);
            }
        }
    }
  return TRUE;
}

static void
merge (Groups *gr, guint a, guint b)
{
  guint t = gr->next[a];

  gr->next[a] = gr->next[b];
  gr->next[b] = t;
  gr->parent[b] = a;
  gr->lo[a] = MIN (gr->lo[a], gr->lo[b]);
  gr->hi[a] = MAX (gr->hi[a], gr->hi[b]);
}

/* ---- rebuilding --------------------------------------------------------------- */

typedef enum { U_OP, U_GROUP, U_PACK, U_REDUCE, U_UNPACK } UnitKind;

typedef struct
{
  UnitKind kind;
  guint    op;      /* U_OP: the op; U_GROUP: its root; buckets: the bucket */
  double   key;     /* where in program order it would like to go */
  guint    pending; /* units it waits for, not yet emitted */
  GArray  *after;   /* units waiting for it */
} Unit;

typedef struct
{
  guint first, last;   /* gradients first..last of the space */
  double elements;
  guint  tensor, reduced;
} Bucket;

/* A min-heap of unit indices by key. */
static void
heap_push (GArray *h, const Unit *units, guint u)
{
  guint i = h->len;

  g_array_append_val (h, u);
  while (i > 0)
    {
      guint p = (i - 1) / 2;
      guint *a = &g_array_index (h, guint, 0);
      if (units[a[p]].key <= units[a[i]].key)
        break;
      a[p] ^= a[i], a[i] ^= a[p], a[p] ^= a[i];
      i = p;
    }
}

static guint
heap_pop (GArray *h, const Unit *units)
{
  guint *a = &g_array_index (h, guint, 0);
  guint top = a[0], i = 0;

  a[0] = a[h->len - 1];
  g_array_set_size (h, h->len - 1);
  a = &g_array_index (h, guint, 0);
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i;
      if (l < h->len && units[a[l]].key < units[a[m]].key)
        m = l;
      if (r < h->len && units[a[r]].key < units[a[m]].key)
        m = r;
      if (m == i)
        break;
      a[m] ^= a[i], a[i] ^= a[m], a[m] ^= a[i];
      i = m;
    }
  return top;
}

typedef struct
{
  const PlxIrGraph *g;
  PlxIrGraph       *out;
  guint            *tmap;   /* old tensor -> new, G_MAXUINT: not yet */
  GHashTable       *taken;  /* the program's names (the space's) */
  GHashTable       *fresh;  /* names made here, owned */
} Build;

/* `base`, or `base~2`, `base~3`.. if the program or this build has it already. */
static const char *
fresh_name (Build *b, const char *base)
{
  char *name = g_strdup (base);

  for (guint k = 2; g_hash_table_contains (b->taken, name) || g_hash_table_contains (b->fresh, name); k++)
    {
      g_free (name);
      name = g_strdup_printf ("%s~%u", base, k);
    }
  g_hash_table_add (b->fresh, name);
  return name;
}

static guint
map_tensor (Build *b, guint t)
{
  if (b->tmap[t] == G_MAXUINT)
    {
      const PlxIrTensor *x = b->g->tensors->pdata[t];
      b->tmap[t] = plx_ir_graph_add_tensor (b->out, x->name, x->rank, x->shape, x->dtype, x->role);
    }
  return b->tmap[t];
}

static void
copy_op (Build *b, const PlxIrOp *op)
{
  g_autofree guint *in = g_new (guint, op->n_inputs + 1);
  g_autofree guint *out = g_new (guint, op->n_outputs + 1);

  for (guint j = 0; j < op->n_inputs; j++)
    in[j] = map_tensor (b, op->inputs[j]);
  for (guint j = 0; j < op->n_outputs; j++)
    out[j] = map_tensor (b, op->outputs[j]);
  plx_ir_graph_add_op_like (b->out, op, in, out, op->devices, op->n_devices);
}

/* A fused group as one kernel: what its ops read from outside, and what they write
 * that is read outside or by nobody (an output of the program). */
static void
emit_group (Build *b, Groups *gr, guint root)
{
  g_autoptr (GArray) in = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (guint));
  const PlxIrOp *first = b->g->ops->pdata[gr->lo[root]];
  g_autofree char *base = g_strdup_printf ("fused:%s", first->name);
  PlxIrOp *k;
  guint m = root;
  double extra = 0.0;

  do
    {
      const PlxIrOp *op = b->g->ops->pdata[m];
      if (op->kind == PLX_IR_BATCH_NORM || op->kind == PLX_IR_BATCH_NORM_GRAD)
        extra += plx_ir_tensor_bytes (b->g->tensors->pdata[op->inputs[0]]) +
                 (op->kind == PLX_IR_BATCH_NORM_GRAD ? plx_ir_tensor_bytes (b->g->tensors->pdata[op->inputs[1]]) : 0.0);
      for (guint j = 0; j < op->n_inputs; j++)
        {
          const PlxIrTensor *x = b->g->tensors->pdata[op->inputs[j]];
          gboolean dup = FALSE;
          if (x->producer >= 0 && find (gr, (guint) x->producer) == root)
            continue;
          for (guint q = 0; q < in->len; q++)
            dup |= g_array_index (in, guint, q) == op->inputs[j];
          if (!dup)
            g_array_append_val (in, op->inputs[j]);
        }
      for (guint j = 0; j < op->n_outputs; j++)
        {
          guint t = op->outputs[j];
          gboolean outside = gr->reader_start[t] == gr->reader_start[t + 1];
          for (guint q = gr->reader_start[t]; q < gr->reader_start[t + 1]; q++)
            outside |= find (gr, gr->reader_op[q]) != root;
          if (outside)
            g_array_append_val (out, op->outputs[j]);
        }
      m = gr->next[m];
    }
  while (m != root);
  for (guint q = 0; q < in->len; q++)
    g_array_index (in, guint, q) = map_tensor (b, g_array_index (in, guint, q));
  for (guint q = 0; q < out->len; q++)
    g_array_index (out, guint, q) = map_tensor (b, g_array_index (out, guint, q));
  k = plx_ir_graph_add_op (b->out, fresh_name (b, base), PLX_IR_KERNEL, (guint *) (void *) in->data,
                           in->len, (guint *) (void *) out->data, out->len, first->devices, first->n_devices);
  /* Memory-bound: flops 0 times it by its bytes through HBM (plx_ir_op_time): what
   * it reads and writes outside, and again what a batch norm sweeps a second time -
   * its statistics span the whole batch, so x (and dY backward) come back from HBM
   * however the kernel is fused (Jung et al. 2019, as plx_ir_op_time charges it). */
  k->bytes = plx_ir_op_bytes (b->out, k) + extra;
  k->phase = first->phase;
  k->origin = first->origin;
  k->stream = first->stream;
}

static void
emit_bucket (Build *b, const PlxFuseSpace *s, Bucket *bk, guint index, UnitKind kind)
{
  const PlxIrOp *ar = b->g->ops->pdata[s->grad_op[bk->first]];
  const PlxIrTensor *g0 = b->g->tensors->pdata[ar->inputs[0]];
  guint n = bk->last - bk->first + 1;
  g_autofree guint *list = g_new (guint, n);
  g_autofree char *name = NULL;
  gint64 shape[1] = { (gint64) bk->elements };
  PlxIrOp *op;

  if (kind == U_PACK)
    {
      name = g_strdup_printf ("bucket%u", index);
      bk->tensor = plx_ir_graph_add_tensor (b->out, fresh_name (b, name), 1, shape, g0->dtype,
                                            PLX_IR_ROLE_DATA);
      for (guint i = 0; i < n; i++)
        list[i] = map_tensor (b, ((const PlxIrOp *) b->g->ops->pdata[s->grad_op[bk->first + i]])->inputs[0]);
      g_free (name);
      name = g_strdup_printf ("pack:bucket%u", index);
      op = plx_ir_graph_add_op (b->out, fresh_name (b, name), PLX_IR_KERNEL, list, n, &bk->tensor, 1,
                                ar->devices, ar->n_devices);
      op->phase = PLX_IR_PHASE_BACKWARD;
    }
  else if (kind == U_REDUCE)
    {
      name = g_strdup_printf ("bucket%u:ar", index);
      bk->reduced = plx_ir_graph_add_tensor (b->out, fresh_name (b, name), 1, shape, g0->dtype,
                                             PLX_IR_ROLE_DATA);
      g_free (name);
      /* Named by what it carries, so that a timeline labels the bucket by its tensors. */
      {
        const PlxIrOp *z = b->g->ops->pdata[s->grad_op[bk->last]];
        const char *first = ((const PlxIrTensor *) b->g->tensors->pdata[ar->inputs[0]])->name;
        const char *last = ((const PlxIrTensor *) b->g->tensors->pdata[z->inputs[0]])->name;
        if (n == 2)
          name = g_strdup_printf ("allreduce bucket%u: %s, %s", index, first, last);
        else
          name = g_strdup_printf ("allreduce bucket%u: %s ... %s (%u tensors)", index, first, last, n);
      }
      op = plx_ir_graph_add_op (b->out, fresh_name (b, name), PLX_IR_ALL_REDUCE, &bk->tensor, 1,
                                &bk->reduced, 1, ar->devices, ar->n_devices);
      op->groups = ar->groups;
      op->stream = ar->stream;
      op->phase = ar->phase;
      op->origin = ar->origin;
    }
  else
    {
      for (guint i = 0; i < n; i++)
        list[i] = map_tensor (b, ((const PlxIrOp *) b->g->ops->pdata[s->grad_op[bk->first + i]])->outputs[0]);
      name = g_strdup_printf ("unpack:bucket%u", index);
      op = plx_ir_graph_add_op (b->out, fresh_name (b, name), PLX_IR_KERNEL, &bk->reduced, 1, list, n,
                                ar->devices, ar->n_devices);
      op->phase = ar->phase;
    }
}

PlxIrGraph *
plx_fuse_apply (const PlxFuseSpace *space,
                PlxFusePlan        *plan,
                guint              *n_kernels,
                guint              *group)
{
  const PlxIrGraph *g = space->program;
  guint n_ops = g->ops->len, n_t = g->tensors->len;
  Groups gr = { g };
  g_autoptr (GArray) buckets = g_array_new (FALSE, FALSE, sizeof (Bucket));
  g_autoptr (GArray) units = g_array_new (FALSE, FALSE, sizeof (Unit));
  g_autoptr (GArray) heap = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree guint *unit_of = g_new (guint, n_ops);
  g_autofree guint *made_by = g_new (guint, n_t);   /* tensor -> unit writing it */
  Build b = { g, NULL, NULL, NULL, NULL };
  guint kernels = 0, emitted = 0;
  Unit *u;

  gr.parent = g_new (guint, n_ops);
  gr.next = g_new (guint, n_ops);
  gr.lo = g_new (guint, n_ops);
  gr.hi = g_new (guint, n_ops);
  gr.stamp = g_new0 (guint, n_ops);
  gr.queue = g_array_new (FALSE, FALSE, sizeof (guint));
  gr.reader_start = space->reader_start;
  gr.reader_op = space->reader_op;
  for (guint i = 0; i < n_ops; i++)
    gr.parent[i] = gr.next[i] = gr.lo[i] = gr.hi[i] = i;

  /* The plan's fusions in edge order, each kept only if the group stays convex. */
  for (guint e = 0; e < space->n_edges; e++)
    if (plan->fuse[e])
      {
        guint a = find (&gr, space->edge_producer[e]), c = find (&gr, space->edge_consumer[e]);
        if (a == c)
          continue;
        if (convex_union (&gr, a, c))
          merge (&gr, a, c);
        else
          plan->fuse[e] = FALSE;
      }

  /* The plan as applied: an edge is fused when its ops share a kernel. */
  for (guint e = 0; e < space->n_edges; e++)
    plan->fuse[e] = find (&gr, space->edge_producer[e]) == find (&gr, space->edge_consumer[e]);

  /* Units: each group, each op outside one, and each bucket of two or more
   * gradients as its pack, its all-reduce and its unpack. */
  for (guint i = 0; i < n_ops; i++)
    unit_of[i] = G_MAXUINT;
  for (guint i = 0; i < space->n_grads;)
    {
      Bucket bk = { i, i, 0.0, 0, 0 };
      while (!plan->cut[bk.last] && bk.last + 1 < space->n_grads && !space->grad_break[bk.last + 1])
        bk.last++;
      plan->cut[bk.last] = TRUE;
      for (guint k = bk.first; k < bk.last; k++)
        plan->cut[k] = FALSE;
      if (bk.last > bk.first)
        {
          guint index = buckets->len;
          double last_producer = 0.0;
          for (guint k = bk.first; k <= bk.last; k++)
            {
              const PlxIrOp *ar = g->ops->pdata[space->grad_op[k]];
              const PlxIrTensor *x = g->tensors->pdata[ar->inputs[0]];
              bk.elements += (double) plx_ir_tensor_elements (x);
              last_producer = MAX (last_producer, (double) x->producer);
              unit_of[space->grad_op[k]] = units->len + 2;   /* its output comes from the unpack */
            }
          g_array_append_val (buckets, bk);
          /* The pack right after the last gradient's op; the all-reduce and unpack
           * where the bucket's last all-reduce was. */
          g_array_append_val (units, ((Unit) { U_PACK, index, last_producer + 0.5, 0, NULL }));
          g_array_append_val (units, ((Unit) { U_REDUCE, index, space->grad_op[bk.last], 0, NULL }));
          g_array_append_val (units, ((Unit) { U_UNPACK, index, space->grad_op[bk.last] + 0.25, 0, NULL }));
        }
      i = bk.last + 1;
    }
  for (guint i = 0; i < n_ops; i++)
    {
      guint r = find (&gr, i);
      if (unit_of[i] != G_MAXUINT)
        continue;
      if (r != i && unit_of[r] != G_MAXUINT)
        unit_of[i] = unit_of[r];
      else if (r != i || gr.next[i] != i)
        {
          unit_of[i] = unit_of[r] = units->len;
          g_array_append_val (units, ((Unit) { U_GROUP, r, gr.lo[r], 0, NULL }));
          kernels++;
        }
      else
        {
          unit_of[i] = units->len;
          g_array_append_val (units, ((Unit) { U_OP, i, i, 0, NULL }));
        }
    }
  u = &g_array_index (units, Unit, 0);
  for (guint t = 0; t < n_t; t++)
    {
      gint p = ((const PlxIrTensor *) g->tensors->pdata[t])->producer;
      made_by[t] = p >= 0 ? unit_of[p] : G_MAXUINT;
    }

  /* Dependencies: a unit waits for the units that write what it reads. */
  {
    g_autofree guint *last_dep = g_new (guint, units->len);
    for (guint k = 0; k < units->len; k++)
      {
        u[k].after = g_array_new (FALSE, FALSE, sizeof (guint));
        last_dep[k] = G_MAXUINT;
      }
    for (guint k = 0; k < units->len; k++)
      {
        g_autoptr (GArray) reads = g_array_new (FALSE, FALSE, sizeof (guint));
        if (u[k].kind == U_OP)
          for (guint j = 0; j < ((const PlxIrOp *) g->ops->pdata[u[k].op])->n_inputs; j++)
            g_array_append_val (reads, ((const PlxIrOp *) g->ops->pdata[u[k].op])->inputs[j]);
        else if (u[k].kind == U_GROUP)
          {
            guint m = u[k].op;
            do
              {
                const PlxIrOp *op = g->ops->pdata[m];
                for (guint j = 0; j < op->n_inputs; j++)
                  g_array_append_val (reads, op->inputs[j]);
                m = gr.next[m];
              }
            while (m != u[k].op);
          }
        else if (u[k].kind == U_PACK)
          {
            const Bucket *bk = &g_array_index (buckets, Bucket, u[k].op);
            for (guint q = bk->first; q <= bk->last; q++)
              g_array_append_val (reads, ((const PlxIrOp *) g->ops->pdata[space->grad_op[q]])->inputs[0]);
          }
        for (guint q = 0; q < reads->len; q++)
          {
            guint w = made_by[g_array_index (reads, guint, q)];
            if (w == G_MAXUINT || w == k || last_dep[w] == k)
              continue;
            last_dep[w] = k;
            u[k].pending++;
            g_array_append_val (u[w].after, k);
          }
        if (u[k].kind == U_REDUCE || u[k].kind == U_UNPACK)
          {
            u[k].pending++;
            g_array_append_val (u[k - 1].after, k);
          }
      }
  }

  b.out = plx_ir_graph_new (g->n_devices);
  b.out->overlap_slowdown = g->overlap_slowdown;
  for (guint i = 2; i < g->streams->len; i++)
    plx_ir_graph_stream (b.out, g->streams->pdata[i]);
  b.tmap = g_new (guint, n_t);
  for (guint t = 0; t < n_t; t++)
    b.tmap[t] = G_MAXUINT;
  b.taken = space->names;
  b.fresh = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint k = 0; k < units->len; k++)
    if (u[k].pending == 0)
      heap_push (heap, u, k);
  while (heap->len > 0)
    {
      guint k = heap_pop (heap, u);
      if (u[k].kind == U_OP)
        copy_op (&b, g->ops->pdata[u[k].op]);
      else if (u[k].kind == U_GROUP)
        emit_group (&b, &gr, u[k].op);
      else
        emit_bucket (&b, space, &g_array_index (buckets, Bucket, u[k].op), u[k].op, u[k].kind);
      emitted++;
      for (guint q = 0; q < u[k].after->len; q++)
        {
          guint w = g_array_index (u[k].after, guint, q);
          if (--u[w].pending == 0)
            heap_push (heap, u, w);
        }
    }
  for (guint i = 0; group != NULL && i < n_ops; i++)
    group[i] = find (&gr, i);
  /* Convex groups leave the units acyclic; if not, no program (never a half one). */
  if (emitted != units->len)
    g_clear_pointer (&b.out, plx_ir_graph_free);

  for (guint k = 0; k < units->len; k++)
    g_array_unref (u[k].after);
  g_array_unref (gr.queue);
  g_free (gr.parent);
  g_free (gr.next);
  g_free (gr.lo);
  g_free (gr.hi);
  g_free (gr.stamp);
  g_free (b.tmap);
  g_hash_table_unref (b.fresh);
  if (n_kernels != NULL)
    *n_kernels = kernels;
  return b.out;
}
