/* The backward pass and the optimizer of a forward graph (docs/ir.md, "Training").
 *
 * Reverse-mode differentiation, op by op in reverse order, each op's gradient
 * written as the ops a framework's autograd launches for it (DistIR builds its MLP's
 * backward the same way, Santhanam et al. 2021 §3: MatMulGrad, ReluGrad, LossGrad):
 * a matmul's two gradients are matmuls with an operand transposed (Y = AB gives
 * dA = dY B^T and dB = A^T dY), an elementwise op's a kernel reading dY and what it
 * saved, a sum's a reduction over the broadcast dimensions. A tensor read by several
 * ops gets the sum of their gradients. */
#include <math.h>
#include <string.h>

#include "parallax/plx-error.h"
#include "ir/plx-ir.h"

typedef struct
{
  const PlxIrGraph *fwd;
  PlxIrGraph       *g;
  GHashTable       *names;   /* every tensor and op name in g */
  gint             *grad;    /* per forward tensor: its gradient in g, or -1 */
  gboolean         *needs;   /* per forward tensor: a weight reaches the loss through it */
  guint             origin;  /* the forward op whose gradient is being written */
  const char       *source;
} Diff;

static const PlxIrTensor *
tensor (const PlxIrGraph *g, guint i)
{
  return g->tensors->pdata[i];
}

static guint
new_tensor (Diff *d, const char *base, guint rank, const gint64 *shape, PlxDtype dtype, PlxIrRole role)
{
  const char *name = plx_ir_unique_name (d->names, base);

  return plx_ir_graph_add_tensor (d->g, name, rank, shape, dtype, role);
}

/* A tensor shaped like `like`. */
static guint
tensor_like (Diff *d, const char *base, guint like)
{
  const PlxIrTensor *t = tensor (d->g, like);
  gint64 shape[PLX_IR_MAX_RANK];

  memcpy (shape, t->shape, sizeof shape);
  return new_tensor (d, base, t->rank, shape, t->dtype, PLX_IR_ROLE_DATA);
}

static PlxIrOp *
emit (Diff *d, const char *base, PlxIrKind kind, const guint *in, guint n_in, const guint *out, guint n_out,
      PlxIrPhase phase)
{
  static const guint device0 = 0;
  const char *name = plx_ir_unique_name (d->names, base);
  PlxIrOp *op = plx_ir_graph_add_op (d->g, name, kind, in, n_in, out, n_out, &device0, 1);

  op->phase = phase;
  op->origin = (gint) d->origin;
  return op;
}

/* One op, one output: the gradient-pass op `kind` on `in`, its output named
 * "d:" + the forward tensor it is the gradient of, shaped like `like`. */
static guint
grad_op (Diff *d, PlxIrKind kind, const guint *in, guint n_in, guint like, const char *of)
{
  g_autofree char *tname = g_strdup_printf ("d:%s", of);
  g_autofree char *oname = g_strdup_printf ("%s:%s", plx_ir_kind_to_string (kind), of);
  guint out = tensor_like (d, tname, like);

  emit (d, oname, kind, in, n_in, &out, 1, PLX_IR_PHASE_BACKWARD);
  return out;
}

/* Adds `g` to the gradient of forward tensor `t`. */
static void
accumulate (Diff *d, guint t, guint g)
{
  if (d->grad[t] < 0)
    {
      d->grad[t] = (gint) g;
      return;
    }
  {
    guint in[2] = { (guint) d->grad[t], g };
    d->grad[t] = (gint) grad_op (d, PLX_IR_ADD, in, 2, g, tensor (d->fwd, t)->name);
  }
}

/* The gradient `g` (shaped like the op's output) reduced to tensor t's shape where t
 * was broadcast, then added to t's gradient. */
static void
accumulate_broadcast (Diff *d, guint t, guint g)
{
  const PlxIrTensor *have = tensor (d->g, g), *want = tensor (d->fwd, t);

  if (plx_ir_tensor_elements (have) != plx_ir_tensor_elements (want))
    g = grad_op (d, PLX_IR_REDUCE_SUM, &g, 1, t, want->name);
  else if (have->rank != want->rank || memcmp (have->shape, want->shape, want->rank * sizeof want->shape[0]) != 0)
    g = grad_op (d, PLX_IR_RESHAPE, &g, 1, t, want->name);   /* [1, h] to [h]: a view */
  accumulate (d, t, g);
}

/* A view of tensor `t` in g as a 2-D [rows, last] matrix (free: a reshape). */
static guint
flatten (Diff *d, guint t)
{
  const PlxIrTensor *x = tensor (d->g, t);
  gint64 shape[2] = { plx_ir_tensor_elements (x) / x->shape[x->rank - 1], x->shape[x->rank - 1] };
  g_autofree char *name = g_strdup_printf ("%s:2d", x->name);
  g_autofree char *oname = g_strdup_printf ("reshape:%s", x->name);
  guint out;

  if (x->rank == 2)
    return t;
  out = new_tensor (d, name, 2, shape, x->dtype, PLX_IR_ROLE_DATA);
  emit (d, oname, PLX_IR_RESHAPE, &t, 1, &out, 1, PLX_IR_PHASE_BACKWARD);
  return out;
}

static PlxIrOp *
matmul (Diff *d, guint a, guint b, gboolean ta, gboolean tb, guint like, const char *of)
{
  guint in[2] = { a, b };
  guint out = grad_op (d, PLX_IR_MATMUL, in, 2, like, of);
  PlxIrOp *op = d->g->ops->pdata[tensor (d->g, out)->producer];

  op->transpose_a = ta;
  op->transpose_b = tb;
  return op;
}

static gboolean
unsupported (Diff *d, const PlxIrOp *op, const char *why, GError **error)
{
  g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "%s: op \"%s\" (%s): %s", d->source, op->name,
               plx_ir_kind_to_string (op->kind), why);
  return FALSE;
}

/* Y = op(A) op(B), op() a transpose where the flag is set: dA = dY op(B)^T, dB =
 * op(A)^T dY, each stored as its operand is. A weight shared by a batch of rows
 * ([..., m, k] x [k, n]) gets its gradient summed over them: the rows flattened. */
static gboolean
matmul_grad (Diff *d, const PlxIrOp *op, guint dy, GError **error)
{
  guint a = op->inputs[0], b = op->inputs[1];
  gboolean ta = op->transpose_a, tb = op->transpose_b;
  const PlxIrTensor *ta_t = tensor (d->fwd, a), *tb_t = tensor (d->fwd, b);

  if (d->needs[a])
    {
      if (!ta)
        matmul (d, dy, b, FALSE, !tb, a, ta_t->name);
      else if (tb_t->rank == 2 && ta_t->rank > 2)
        return unsupported (d, op, "the gradient of a transposed batch of rows times one matrix is not modelled",
                            error);
      else
        matmul (d, b, dy, tb, TRUE, a, ta_t->name);
      accumulate (d, a, d->g->tensors->len - 1);
    }
  if (d->needs[b])
    {
      guint aa = a, gy = dy, db;
      if (tb_t->rank == 2 && ta_t->rank > 2)
        {
          if (ta)
            return unsupported (d, op, "the gradient of one matrix times a transposed batch is not modelled", error);
          aa = flatten (d, a);
          gy = flatten (d, dy);
        }
      if (!tb)
        matmul (d, aa, gy, !ta, FALSE, b, tb_t->name);
      else
        matmul (d, gy, aa, TRUE, ta, b, tb_t->name);
      db = d->g->tensors->len - 1;
      accumulate (d, b, db);
    }
  return TRUE;
}

static gboolean
op_grad (Diff *d, const PlxIrOp *op, GError **error)
{
  guint x = op->inputs[0], y = op->outputs[0];
  const char *xn = tensor (d->fwd, x)->name;
  gint dy = d->grad[y];

  if (op->kind == PLX_IR_LOSS)
    {
      /* The seed: d(loss)/d(logits), from the logits and the labels. */
      if (d->needs[x])
        accumulate (d, x, grad_op (d, PLX_IR_LOSS_GRAD, op->inputs, 2, x, xn));
      return TRUE;
    }
  if (op->kind == PLX_IR_SPLIT && !d->needs[x])
    return TRUE;
  if (op->kind == PLX_IR_SPLIT)
    {
      g_autofree guint *parts = g_new (guint, op->n_outputs);
      for (guint j = 0; j < op->n_outputs; j++)
        {
          if (d->grad[op->outputs[j]] < 0)
            return unsupported (d, op, "a part of the split does not reach the loss; its gradient would be zeros, "
                                "which Parallax does not write", error);
          parts[j] = (guint) d->grad[op->outputs[j]];
        }
      if (d->needs[x])
        {
          PlxIrOp *cat;
          accumulate (d, x, grad_op (d, PLX_IR_CONCAT, parts, op->n_outputs, x, xn));
          cat = d->g->ops->pdata[d->g->ops->len - 1];
          cat->axis = op->axis;
        }
      return TRUE;
    }
  if (dy < 0)
    return TRUE;   /* nothing downstream reaches the loss */

  switch (op->kind)
    {
    case PLX_IR_MATMUL:
      return matmul_grad (d, op, (guint) dy, error);
    case PLX_IR_ADD:
      if (d->needs[x])
        accumulate (d, x, (guint) dy);
      if (d->needs[op->inputs[1]])
        accumulate_broadcast (d, op->inputs[1], (guint) dy);
      return TRUE;
    case PLX_IR_MUL:
      for (guint j = 0; j < 2; j++)
        if (d->needs[op->inputs[j]])
          {
            /* d(a b)/da = dY b; the product is shaped like the output. */
            guint in[2] = { (guint) dy, op->inputs[1 - j] };
            guint g = grad_op (d, PLX_IR_MUL, in, 2, (guint) dy, tensor (d->fwd, op->inputs[j])->name);
            accumulate_broadcast (d, op->inputs[j], g);
          }
      return TRUE;
    case PLX_IR_RELU:
    case PLX_IR_GELU:
    case PLX_IR_TANH:
    case PLX_IR_SOFTMAX:
      if (d->needs[x])
        {
          /* ReLU, GELU and tanh read what they were given; softmax what it gave. */
          PlxIrKind k = op->kind == PLX_IR_RELU ? PLX_IR_RELU_GRAD : op->kind == PLX_IR_GELU ? PLX_IR_GELU_GRAD
                        : op->kind == PLX_IR_TANH ? PLX_IR_TANH_GRAD : PLX_IR_SOFTMAX_GRAD;
          guint in[2] = { (guint) dy, op->kind == PLX_IR_SOFTMAX ? y : x };
          accumulate (d, x, grad_op (d, k, in, 2, x, xn));
        }
      return TRUE;
    case PLX_IR_MAX_POOL:
      if (d->needs[x])
        {
          /* Each window's gradient goes back to where its maximum was: the kernel
           * reads dY and finds the maxima in X again (cuDNN's pooling backward). */
          guint in[2] = { (guint) dy, x };
          accumulate (d, x, grad_op (d, PLX_IR_MAX_POOL_GRAD, in, 2, x, xn));
        }
      return TRUE;
    case PLX_IR_LAYER_NORM:
    case PLX_IR_RMS_NORM:
    case PLX_IR_BATCH_NORM:
      {
        /* One kernel: dX, and the weight's and bias's gradients (summed over rows, or
         * for a batch norm over the images and positions of each channel). */
        guint in[3] = { (guint) dy, x, op->n_inputs > 1 ? op->inputs[1] : 0 };
        guint out[3];
        g_autofree char *oname = g_strdup_printf ("%s_grad:%s", plx_ir_kind_to_string (op->kind), op->name);
        for (guint j = 0; j < op->n_inputs; j++)
          {
            g_autofree char *tname = g_strdup_printf ("d:%s", tensor (d->fwd, op->inputs[j])->name);
            out[j] = tensor_like (d, tname, op->inputs[j]);
          }
        emit (d, oname, op->kind == PLX_IR_LAYER_NORM ? PLX_IR_LAYER_NORM_GRAD
                        : op->kind == PLX_IR_RMS_NORM ? PLX_IR_RMS_NORM_GRAD : PLX_IR_BATCH_NORM_GRAD, in,
              op->n_inputs > 1 ? 3 : 2, out, op->n_inputs, PLX_IR_PHASE_BACKWARD);
        for (guint j = 0; j < op->n_inputs; j++)
          if (d->needs[op->inputs[j]])
            accumulate (d, op->inputs[j], out[j]);
        return TRUE;
      }
    case PLX_IR_REDUCE_MEAN:
    case PLX_IR_REDUCE_SUM:
      if (d->needs[x])
        accumulate (d, x, grad_op (d, PLX_IR_EXPAND, (guint *) &dy, 1, x, xn));
      return TRUE;
    case PLX_IR_CONV:
      {
        /* One kernel pair: the input's and the weight's (and bias's) gradients. */
        guint in[3] = { (guint) dy, x, op->inputs[1] };
        guint out[3];
        g_autofree char *oname = g_strdup_printf ("conv_grad:%s", op->name);
        for (guint j = 0; j < op->n_inputs; j++)
          {
            g_autofree char *tname = g_strdup_printf ("d:%s", tensor (d->fwd, op->inputs[j])->name);
            out[j] = tensor_like (d, tname, op->inputs[j]);
          }
        emit (d, oname, PLX_IR_CONV_GRAD, in, 3, out, op->n_inputs, PLX_IR_PHASE_BACKWARD);
        for (guint j = 0; j < op->n_inputs; j++)
          if (d->needs[op->inputs[j]])
            accumulate (d, op->inputs[j], out[j]);
        return TRUE;
      }
    case PLX_IR_EXPAND:
      if (d->needs[x])
        accumulate (d, x, grad_op (d, PLX_IR_REDUCE_SUM, (guint *) &dy, 1, x, xn));
      return TRUE;
    case PLX_IR_RESHAPE:
    case PLX_IR_TRANSPOSE:
      if (d->needs[x])
        {
          guint g = grad_op (d, op->kind, (guint *) &dy, 1, x, xn);
          PlxIrOp *back = d->g->ops->pdata[d->g->ops->len - 1];
          /* A permutation's gradient is the inverse permutation. */
          back->n_perm = op->n_perm;
          for (guint i = 0; i < op->n_perm; i++)
            back->perm[op->perm[i]] = (guint8) i;
          accumulate (d, x, g);
        }
      return TRUE;
    case PLX_IR_GATHER:
      if (d->needs[x])
        {
          /* The rows looked up get the gradient added back: a scatter-add. */
          guint in[2] = { (guint) dy, op->inputs[1] };
          accumulate (d, x, grad_op (d, PLX_IR_GATHER_GRAD, in, 2, x, xn));
        }
      return TRUE;
    case PLX_IR_CONCAT:
      {
        g_autofree guint *parts = g_new (guint, op->n_inputs);
        g_autofree char *oname = g_strdup_printf ("split:%s", op->name);
        PlxIrOp *split;
        for (guint j = 0; j < op->n_inputs; j++)
          {
            g_autofree char *tname = g_strdup_printf ("d:%s", tensor (d->fwd, op->inputs[j])->name);
            parts[j] = tensor_like (d, tname, op->inputs[j]);
          }
        split = emit (d, oname, PLX_IR_SPLIT, (guint *) &dy, 1, parts, op->n_inputs, PLX_IR_PHASE_BACKWARD);
        split->axis = op->axis;
        for (guint j = 0; j < op->n_inputs; j++)
          if (d->needs[op->inputs[j]])
            accumulate (d, op->inputs[j], parts[j]);
        return TRUE;
      }
    case PLX_IR_KERNEL:     /* refused before differentiating */
    case PLX_IR_SPLIT:
    case PLX_IR_LOSS:
    case PLX_IR_OPTIMIZER:
    case PLX_IR_RELU_GRAD:
    case PLX_IR_GELU_GRAD:
    case PLX_IR_TANH_GRAD:
    case PLX_IR_SOFTMAX_GRAD:
    case PLX_IR_LAYER_NORM_GRAD:
    case PLX_IR_RMS_NORM_GRAD:
    case PLX_IR_GATHER_GRAD:
    case PLX_IR_LOSS_GRAD:
    case PLX_IR_CONV_GRAD:
    case PLX_IR_BATCH_NORM_GRAD:
    case PLX_IR_MAX_POOL_GRAD:
    case PLX_IR_ALL_REDUCE:
    case PLX_IR_ALL_GATHER:
    case PLX_IR_REDUCE_SCATTER:
    case PLX_IR_ALL_TO_ALL:
    case PLX_IR_BROADCAST:
    case PLX_IR_SEND:
    case PLX_N_IR_KINDS:
    default:
      break;
    }
  return unsupported (d, op, "a forward graph has no communication, gradient or optimizer ops", error);
}

/* One update per weight: SGD reads the weight and its gradient; Adam also its two
 * fp32 moments and, for a 16-bit weight, its fp32 master copy (mixed precision,
 * Micikevicius et al. 2018 §3.1), and writes each back. */
static void
add_update (Diff *d, guint w, guint dw, PlxIrOptimizerKind kind, guint first_reader)
{
  const PlxIrTensor *t = tensor (d->g, w);
  gint64 shape[PLX_IR_MAX_RANK];
  guint in[5] = { w, dw }, out[4];
  guint n_in = 2, n_out = 0;
  g_autofree char *oname = g_strdup_printf ("update:%s", t->name);
  static const char *const state_names[] = { "master", "adam_m", "adam_v" };

  memcpy (shape, t->shape, sizeof shape);
  if (kind == PLX_IR_OPTIMIZER_ADAM)
    for (guint s = plx_dtype_bytes (t->dtype) < 4 ? 0 : 1; s < 3; s++)
      {
        g_autofree char *sname = g_strdup_printf ("%s:%s", t->name, state_names[s]);
        in[n_in++] = new_tensor (d, sname, t->rank, shape, PLX_DTYPE_FP32, PLX_IR_ROLE_STATE);
      }
  for (guint j = 0; j < n_in; j++)
    if (j != 1)
      {
        const PlxIrTensor *src = tensor (d->g, in[j]);
        g_autofree char *nname = g_strdup_printf ("%s:new", src->name);
        out[n_out++] = new_tensor (d, nname, src->rank, shape, src->dtype, PLX_IR_ROLE_DATA);
      }
  d->origin = first_reader;
  emit (d, oname, PLX_IR_OPTIMIZER, in, n_in, out, n_out, PLX_IR_PHASE_OPTIMIZER);
}

static gint
by_gradient (gconstpointer a, gconstpointer b, gpointer grad)
{
  const gint *g = grad;
  return g[*(const guint *) a] - g[*(const guint *) b];
}

PlxIrGraph *
plx_ir_training_graph (const PlxIrGraph  *forward,
                       PlxIrOptimizerKind optimizer,
                       const char        *source,
                       GError           **error)
{
  g_autoptr (GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (PlxIrGraph) g = plx_ir_graph_new (1);
  guint n_t = forward->tensors->len, loss = G_MAXUINT;
  g_autofree gint *grad = g_new (gint, MAX (n_t, 1));
  g_autofree gboolean *needs = g_new0 (gboolean, MAX (n_t, 1));
  g_autofree gint *first_reader = g_new (gint, MAX (n_t, 1));
  Diff d = { forward, g, names, grad, needs, 0, source };

  for (guint t = 0; t < n_t; t++)
    {
      const PlxIrTensor *x = tensor (forward, t);
      grad[t] = -1;
      first_reader[t] = -1;
      needs[t] = x->producer == -1 && x->role == PLX_IR_ROLE_WEIGHT;
      plx_ir_graph_add_tensor (g, x->name, x->rank, x->shape, x->dtype, x->role);
      g_hash_table_insert (names, g_strdup (x->name), NULL);
    }
  for (guint i = 0; i < forward->ops->len; i++)
    {
      const PlxIrOp *op = forward->ops->pdata[i];
      PlxIrOp *copy;

      if (op->kind == PLX_IR_LOSS)
        {
          if (loss != G_MAXUINT)
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: ops \"%s\" and \"%s\" are both losses; a "
                           "forward graph has one", source, ((PlxIrOp *) forward->ops->pdata[loss])->name, op->name);
              return NULL;
            }
          loss = i;
        }
      if (!isnan (op->time_s) || op->stream >= 0)
        {
          d.origin = i;
          unsupported (&d, op, "time_s and stream are for a program run as written (simulate --program); a model's "
                       "ops are costed by the model", error);
          return NULL;
        }
      if (op->kind >= PLX_IR_RELU_GRAD || op->kind == PLX_IR_OPTIMIZER)
        {
          d.origin = i;
          unsupported (&d, op, op->kind == PLX_IR_KERNEL ? "a kernel is ops costed as one, whose gradient is not "
                                                           "known: write out its ops"
                                                         : "a forward graph has no communication, gradient or "
                                                           "optimizer ops", error);
          return NULL;
        }
      for (guint j = 0; j < op->n_inputs; j++)
        {
          needs[op->outputs[0]] |= needs[op->inputs[j]];
          if (first_reader[op->inputs[j]] < 0)
            first_reader[op->inputs[j]] = (gint) i;
        }
      for (guint j = 1; j < op->n_outputs; j++)
        needs[op->outputs[j]] = needs[op->outputs[0]];
      copy = plx_ir_graph_add_op (g, op->name, op->kind, op->inputs, op->n_inputs, op->outputs, op->n_outputs,
                                  op->devices, 1);
      copy->devices[0] = 0;
      copy->axis = op->axis;
      copy->transpose_a = op->transpose_a;
      copy->transpose_b = op->transpose_b;
      copy->n_perm = op->n_perm;
      memcpy (copy->perm, op->perm, sizeof copy->perm);
      g_hash_table_insert (names, g_strdup (copy->name), NULL);
    }
  if (loss == G_MAXUINT)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY, "%s: no op is a loss; training needs one (op \"loss\")",
                   source);
      return NULL;
    }
  if (!needs[((PlxIrOp *) forward->ops->pdata[loss])->outputs[0]])
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: the loss \"%s\" depends on no weight (tensors with "
                   "\"role\": \"weight\"); there is nothing to train", source,
                   ((PlxIrOp *) forward->ops->pdata[loss])->name);
      return NULL;
    }

  for (guint i = forward->ops->len; i-- > 0;)
    {
      d.origin = i;
      if (!op_grad (&d, forward->ops->pdata[i], error))
        return NULL;
    }
  /* Updates in the order the gradients became final, as DDP orders its buckets
   * (Li et al. 2020 §3.2.3, reverse parameter order): a communication stream that
   * runs them in program order then starts each reduction as soon as it can. */
  {
    g_autoptr (GArray) order = g_array_new (FALSE, FALSE, sizeof (guint));
    for (guint t = 0; t < n_t; t++)
      if (needs[t] && tensor (forward, t)->producer == -1 && grad[t] >= 0)
        g_array_append_val (order, t);
    g_array_sort_with_data (order, by_gradient, grad);
    for (guint j = 0; j < order->len; j++)
      {
        guint t = g_array_index (order, guint, j);
        add_update (&d, t, (guint) grad[t], optimizer, (guint) first_reader[t]);
      }
  }
  return g_steal_pointer (&g);
}
