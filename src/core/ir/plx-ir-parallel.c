/* A training graph spread over devices (docs/ir.md, "Parallel programs").
 *
 * Three mesh axes: micro-batches (sequential), data parallel, tensor parallel. On
 * each, a tensor is replicated, split along one dimension, or a partial sum (GSPMD,
 * Xu et al. 2021 §3.2, for the notation; DistIR's transforms, Santhanam et al. 2021
 * §3.3, for what each strategy does to an MLP). Data is split along its first
 * dimension over micro-batches and data-parallel ranks; a weight is replicated over
 * both, and its sharding over the tensor axis is chosen where a matmul first reads
 * it: split by column when the matmul's other operand is replicated, by row when
 * that operand is split along the contracted dimension (Megatron, Shoeybi et al.
 * 2019 §3). Each op's rule gives its outputs' shardings from its inputs', or asks
 * for an input replicated first: an all-reduce of a partial sum, an all-gather of a
 * split, and over micro-batches an accumulation - which is how the gradient
 * all-reduce of data parallelism and the activation all-reduces of tensor
 * parallelism arise, from the same rules. */
#include <math.h>
#include <string.h>

#include "hardware/plx-collective.h"
#include "parallax/plx-error.h"
#include "ir/plx-ir.h"
#include "ir/plx-partition.h"
#include "ir/plx-partition-dag.h"
#include "parallax/plx-strategy.h"

enum { AX_MB, AX_DP, AX_TP, N_AX };
#define REPL      (-1)
#define PARTIAL   (-2)
#define UNDECIDED (-3)
#define ACCUMULATE PLX_N_IR_KINDS   /* a sharded op's kind: sum over micro-batches */

static const char *const axis_names[N_AX] = { "mb", "dp", "tp" };

typedef struct
{
  const char *name;                 /* owned by the table of names */
  guint    rank;
  gint64   shape[PLX_IR_MAX_RANK];  /* global */
  PlxDtype dtype;
  PlxIrRole role;
  gint     producer;                /* sharded op, or -1 */
  gint     st[N_AX];
  gint     converted[N_AX];         /* its replicated copy on the axis, once made */
} STensor;

typedef struct
{
  const char *name;                 /* owned by the table of names */
  guint      kind;                  /* PlxIrKind or ACCUMULATE */
  GArray    *in, *out;              /* guint */
  gint       axis;
  gboolean   ta, tb;
  guint      n_perm;
  guint8     perm[PLX_IR_MAX_RANK];
  PlxIrPhase phase;
  gint       origin;
  guint      source;                /* the training op it was made for */
  gboolean   conversion;            /* a copy in another sharding, shared by every op reading it */
  gint       comm_axis;             /* collectives: the axis the group spans */
} SOp;

typedef struct
{
  const PlxIrGraph    *t;
  const PlxIrParallel *par;
  const char          *source;
  guint                size[N_AX];
  GArray              *tensors;     /* STensor */
  GPtrArray           *ops;         /* SOp* */
  GHashTable          *names;
  guint               *map;         /* training tensor -> sharded tensor */
  guint                cur;         /* the training op being sharded */
} Shard;

static void
sop_free (gpointer data)
{
  SOp *op = data;

  g_array_unref (op->in);
  g_array_unref (op->out);
  g_free (op);
}

static STensor *
st_at (Shard *s, guint i)
{
  return &g_array_index (s->tensors, STensor, i);
}

/* A training-graph tensor's shape, dtype and role, as a sharded tensor to fill in. */
static STensor
stensor_of (const PlxIrTensor *tt)
{
  STensor t = { 0 };

  t.rank = tt->rank;
  memcpy (t.shape, tt->shape, sizeof t.shape);
  t.dtype = tt->dtype;
  t.role = tt->role;
  return t;
}

static guint
add_tensor (Shard *s, const STensor *like, const char *name)
{
  STensor t = *like;

  t.name = plx_ir_unique_name (s->names, name);
  t.producer = -1;
  for (guint a = 0; a < N_AX; a++)
    t.converted[a] = -1;
  g_array_append_val (s->tensors, t);
  return s->tensors->len - 1;
}

static SOp *
add_op (Shard *s, const char *name, guint kind, const PlxIrOp *from)
{
  SOp *op = g_new0 (SOp, 1);

  op->name = plx_ir_unique_name (s->names, name);
  op->kind = kind;
  op->in = g_array_new (FALSE, FALSE, sizeof (guint));
  op->out = g_array_new (FALSE, FALSE, sizeof (guint));
  op->axis = -1;
  op->phase = from->phase;
  op->origin = from->origin;
  op->source = s->cur;
  op->comm_axis = -1;
  g_ptr_array_add (s->ops, op);
  return op;
}

/* A copy of tensor i whose sharding over axis a is `state`, made by a new op of
 * `kind` (acting along `dim`, or -1) for the op `from`; its index. */
static guint
add_conversion (Shard *s, guint i, guint a, gint state, guint kind, gint dim, const char *suffix,
                const PlxIrOp *from)
{
  g_autofree char *name = g_strdup_printf ("%s:%s.%s", st_at (s, i)->name, suffix, axis_names[a]);
  guint out = add_tensor (s, st_at (s, i), name);
  SOp *op;

  st_at (s, out)->st[a] = state;
  op = add_op (s, st_at (s, out)->name, kind, from);
  op->axis = dim;
  op->conversion = TRUE;
  g_array_append_val (op->in, i);
  g_array_append_val (op->out, out);
  st_at (s, out)->producer = (gint) s->ops->len - 1;
  return out;
}

/* Tensor i made replicated over axis a, by the op `from` needs it for: an
 * all-reduce of a partial sum, an all-gather of a split, an accumulation over
 * micro-batches; one copy however many ops need it. */
static gboolean
replicate (Shard *s, guint *i, guint a, const PlxIrOp *from, GError **error)
{
  STensor *t = st_at (s, *i);
  gint state = t->st[a];
  guint out;

  if (state == REPL || state == UNDECIDED)
    {
      t->st[a] = REPL;
      return TRUE;
    }
  if (t->converted[a] >= 0)
    {
      *i = (guint) t->converted[a];
      return TRUE;
    }
  /* A sum over micro-batches exists after the last one: an op inside the loop (one
   * that reads a micro-batch's own data too) cannot wait for it. */
  if (a == AX_MB && state == PARTIAL)
    for (guint j = 0; j < from->n_inputs; j++)
      {
        const STensor *other = st_at (s, s->map[from->inputs[j]]);
        if (other->st[AX_MB] >= 0)
          {
            g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "%s: op \"%s\" (%s) needs tensor \"%s\" summed "
                         "over the whole batch inside each micro-batch; use micro_batches 1", s->source, from->name,
                         plx_ir_kind_to_string (from->kind), t->name);
            return FALSE;
          }
      }
  if (a == AX_MB && state != PARTIAL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "%s: op \"%s\" (%s) needs all of tensor \"%s\" at once, "
                   "which micro-batches split; use micro_batches 1", s->source, from->name,
                   plx_ir_kind_to_string (from->kind), t->name);
      return FALSE;
    }
  out = add_conversion (s, *i, a, REPL,
                        a == AX_MB ? ACCUMULATE : state == PARTIAL ? PLX_IR_ALL_REDUCE : PLX_IR_ALL_GATHER,
                        state >= 0 ? state : -1, state == PARTIAL ? (a == AX_MB ? "acc" : "ar") : "ag", from);
  ((SOp *) s->ops->pdata[s->ops->len - 1])->comm_axis = (gint) a;
  st_at (s, *i)->converted[a] = (gint) out;
  *i = out;
  return TRUE;
}

/* Tensor i, whole over axis a, cut to each device's part along dimension `dim`:
 * a view (PLX_IR_SLICE), no communication. */
static void
take_part (Shard *s, guint *i, guint a, gint dim, const PlxIrOp *from)
{
  *i = add_conversion (s, *i, a, dim, PLX_IR_SLICE, dim, "part", from);
}

/* Where each of the small tensor's dimensions is among the big one's, matching
 * sizes in order (a 1 found nowhere is a dimension kept after summing it: -1);
 * FALSE if they are not all found. */
static gboolean
match_dims (guint small_rank, const gint64 *small, guint big_rank, const gint64 *big, gint *map)
{
  guint j = 0;

  for (guint i = 0; i < small_rank; i++)
    {
      guint k = j;
      while (k < big_rank && big[k] != small[i])
        k++;
      if (k == big_rank && small[i] == 1)
        {
          map[i] = -1;
          continue;
        }
      if (k == big_rank)
        return FALSE;
      map[i] = (gint) k;
      j = k + 1;
    }
  return TRUE;
}

static gint
decide (Shard *s, guint i, guint a, gint want)
{
  STensor *t = st_at (s, i);

  /* A weight is split only where the axis divides it (a 10-wide head stays whole
   * over 4 ranks). */
  if (t->st[a] == UNDECIDED)
    t->st[a] = want >= 0 && t->shape[want] % s->size[a] != 0 ? REPL : want;
  return t->st[a];
}

static gboolean
is_last_dim_op (PlxIrKind kind)
{
  return kind == PLX_IR_SOFTMAX || kind == PLX_IR_LAYER_NORM || kind == PLX_IR_RMS_NORM || kind == PLX_IR_LOSS ||
         kind == PLX_IR_SOFTMAX_GRAD || kind == PLX_IR_LAYER_NORM_GRAD || kind == PLX_IR_RMS_NORM_GRAD ||
         kind == PLX_IR_LOSS_GRAD;
}

/* The output shardings of one op over axis a from its inputs' (in[]), or the index
 * of an input to replicate first (*redo). With every input replicated, every rule
 * gives replicated outputs. */
static void
rule (Shard *s, const PlxIrOp *op, const guint *in, guint a, gint *out, gint *redo, gint *slice)
{
  const PlxIrTensor *o = s->t->tensors->pdata[op->outputs[0]];
  const STensor *x = st_at (s, in[0]);
  const STensor *y = op->n_inputs > 1 ? st_at (s, in[1]) : NULL;
  gint sx = x->st[a], sy = y != NULL ? y->st[a] : REPL, r = (gint) x->rank;
  gint map[PLX_IR_MAX_RANK];

  *redo = -1;
  *slice = -1;
#define SLICE(j, d) \
  do { *redo = (j); *slice = (d); return; } while (0)
  for (guint j = 0; j < op->n_outputs; j++)
    out[j] = REPL;
  if (op->kind != PLX_IR_MATMUL && op->kind != PLX_IR_ADD && op->kind != PLX_IR_MUL &&
      op->kind != PLX_IR_OPTIMIZER)
    for (guint j = 0; j < op->n_inputs; j++)
      decide (s, in[j], a, REPL);
  sx = x->st[a];
  sy = y != NULL ? y->st[a] : REPL;

  switch (op->kind)
    {
    case PLX_IR_MATMUL:
      {
        /* [..., m, k] x [k, n]: A split along m or a batch dimension keeps it; B
         * split along n likewise; both along k give partial sums (Megatron's row
         * split); a partial sum times a replicated matrix stays one. */
        gint rb = (gint) y->rank;
        gint ma = r - (op->transpose_a ? 1 : 2), ka = r - (op->transpose_a ? 2 : 1);
        gint kb = rb - (op->transpose_b ? 1 : 2), nb = rb - (op->transpose_b ? 2 : 1);

        sx = decide (s, in[0], a, REPL);
        sy = decide (s, in[1], a, sx == ka ? kb : sx == REPL ? nb : REPL);
        if (sx == REPL && sy == REPL)
          out[0] = REPL;
        else if ((sx == PARTIAL && sy == REPL) || (sx == REPL && sy == PARTIAL))
          out[0] = PARTIAL;
        else if (sx >= 0 && sx < r - 2)
          {
            if (rb > 2 && sy == REPL)
              SLICE (1, sx);   /* a whole operand is sliced where it lies, for free */
            if (rb == 2 ? sy == REPL : sy == sx)
              out[0] = sx;
            else
              *redo = 1;
          }
        else if (sx == ma)
          {
            if (sy == REPL)
              out[0] = r - 2;
            else
              *redo = 1;
          }
        else if (sx == ka)
          {
            if (sy == REPL)
              SLICE (1, kb);
            if (sy == kb)
              out[0] = PARTIAL;
            else
              *redo = 1;
          }
        else if (sx == REPL)
          {
            if (sy == nb)
              out[0] = r - 1;
            else if (sy == kb)
              SLICE (0, ka);
            else if (rb > 2 && sy >= 0 && sy < rb - 2)
              SLICE (0, sy);
            else
              *redo = 1;
          }
        else
          *redo = 0;
        return;
      }
    case PLX_IR_ADD:
    case PLX_IR_MUL:
      {
        /* b broadcasts over a's leading dimensions: aligned from the right. */
        gint off = r - (gint) y->rank, mapped;

        sx = decide (s, in[0], a, REPL);
        sy = decide (s, in[1], a, sx >= off && y->shape[sx - off] == x->shape[sx] ? sx - off : REPL);
        if (sx == PARTIAL || sy == PARTIAL)
          {
            /* A sum of partial sums is one; a product is linear in one factor. */
            if (op->kind == PLX_IR_ADD)
              {
                if (sx == PARTIAL && sy == PARTIAL && off == 0)
                  out[0] = PARTIAL;
                else
                  *redo = sx == PARTIAL ? 0 : 1;
              }
            else if (sx == PARTIAL && sy == REPL)
              out[0] = PARTIAL;
            else if (sy == PARTIAL && sx == REPL)
              out[0] = PARTIAL;
            else
              *redo = 1;
            return;
          }
        mapped = sy >= 0 ? sy + off : REPL;
        if (sy == REPL && sx >= off && y->shape[sx - off] == x->shape[sx] && x->shape[sx] > 1)
          SLICE (1, sx - off);
        if (sx == mapped || sy == REPL)
          out[0] = sx;
        else if (sx == REPL && y->shape[sy] == x->shape[mapped])
          SLICE (0, mapped);
        else
          *redo = 1;
        return;
      }
    case PLX_IR_RELU:
    case PLX_IR_GELU:
    case PLX_IR_TANH:
    case PLX_IR_SOFTMAX:
    case PLX_IR_LAYER_NORM:
    case PLX_IR_RMS_NORM:
    case PLX_IR_LOSS:
      /* Not linear: a partial sum is summed first; a row-wise op needs its rows. */
      if (sx == PARTIAL || (is_last_dim_op (op->kind) && r > 0 && sx == r - 1))
        *redo = 0;
      else if (op->kind == PLX_IR_LOSS && (sy == PARTIAL || (sy >= 0 && sy != sx)))
        *redo = 1;
      else if (op->kind != PLX_IR_LOSS && op->n_inputs > 1 && sy != REPL)
        *redo = 1;
      else if (op->kind != PLX_IR_LOSS && op->n_inputs > 2 && st_at (s, in[2])->st[a] != REPL)
        *redo = 2;
      else
        out[0] = op->kind == PLX_IR_LOSS && sx >= 0 ? PARTIAL : sx;
      return;
    case PLX_IR_RELU_GRAD:
    case PLX_IR_GELU_GRAD:
    case PLX_IR_TANH_GRAD:
    case PLX_IR_SOFTMAX_GRAD:
    case PLX_IR_LOSS_GRAD:
    case PLX_IR_LAYER_NORM_GRAD:
    case PLX_IR_RMS_NORM_GRAD:
      if (sx == PARTIAL || (is_last_dim_op (op->kind) && r > 0 && sx == r - 1))
        *redo = 0;
      else if (sy == PARTIAL || (is_last_dim_op (op->kind) && r > 0 && sy == r - 1))
        *redo = 1;
      else if (op->n_inputs > 2 && st_at (s, in[2])->st[a] != REPL)
        *redo = 2;
      else if (op->kind == PLX_IR_LOSS_GRAD)
        {
          if (sy >= 0 && sy != sx)
            *redo = 1;
          else
            out[0] = sx;
        }
      else if (sx == sy)
        out[0] = sx;
      else if (sy == REPL)
        SLICE (1, sx);
      else if (sx == REPL)
        SLICE (0, sy);
      else
        *redo = 1;
      /* A norm's weight gradients sum over the rows: partial where rows are split. */
      for (guint j = 1; *redo < 0 && j < op->n_outputs; j++)
        out[j] = out[0] >= 0 ? PARTIAL : REPL;
      return;
    case PLX_IR_REDUCE_MEAN:
    case PLX_IR_REDUCE_SUM:
      if (sx == PARTIAL || sx == REPL)
        out[0] = sx;
      else if (!match_dims (o->rank, o->shape, x->rank, x->shape, map))
        *redo = 0;
      else
        {
          out[0] = PARTIAL;    /* the split dimension summed away */
          for (guint j = 0; j < o->rank; j++)
            if (map[j] == sx)
              out[0] = (gint) j;
        }
      return;
    case PLX_IR_CONV:
    case PLX_IR_CONV_GRAD:
    case PLX_IR_BATCH_NORM:
    case PLX_IR_BATCH_NORM_GRAD:
    case PLX_IR_MAX_POOL:
    case PLX_IR_MAX_POOL_GRAD:
      {
        /* Images split along the batch stay split; anything else whole. A weight's
         * gradient over split images is a partial sum. A batch norm of split images
         * takes each device's own statistics, as PyTorch's BatchNorm2d does under
         * DistributedDataParallel (SyncBatchNorm would all-reduce them). */
        gboolean grad = op->kind == PLX_IR_CONV_GRAD || op->kind == PLX_IR_BATCH_NORM_GRAD ||
                        op->kind == PLX_IR_MAX_POOL_GRAD;
        if (sx != REPL && sx != 0)
          *redo = 0;
        else if (grad && sy == REPL && sx == 0)
          SLICE (1, 0);
        else if (grad && sy != sx)
          *redo = 1;
        else
          for (guint j = 1; j < op->n_inputs; j++)
            if (st_at (s, in[j])->st[a] != REPL && !(grad && j == 1))
              {
                *redo = (gint) j;
                return;
              }
        if (*redo >= 0)
          return;
        out[0] = sx;
        for (guint j = 1; j < op->n_outputs; j++)
          out[j] = grad && sx == 0 ? PARTIAL : REPL;
        return;
      }
    case PLX_IR_EXPAND:
      if (sx == PARTIAL || sx == REPL)
        out[0] = sx;
      else if (!match_dims (x->rank, x->shape, o->rank, o->shape, map))
        *redo = 0;
      else
        out[0] = map[sx];
      return;
    case PLX_IR_GATHER:
      /* The table whole on every device; the lookups split as the indices are. */
      if (sx != REPL)
        *redo = 0;
      else if (sy == PARTIAL)
        *redo = 1;
      else
        out[0] = sy;
      return;
    case PLX_IR_GATHER_GRAD:
      /* dY and the indices must be split alike: the rows each device scatters. */
      if (sx == r - 1 || sx == PARTIAL)
        *redo = 0;
      else if (sy == PARTIAL)
        *redo = 1;
      else if (sx >= 0 && sy == REPL)
        SLICE (1, sx);
      else if (sx == REPL && sy >= 0)
        SLICE (0, sy);
      else if (sx != sy)
        *redo = 1;
      else
        out[0] = sx == REPL ? REPL : PARTIAL;
      return;
    case PLX_IR_RESHAPE:
      if (sx == PARTIAL || sx == REPL)
        out[0] = sx;
      else if (sx == 0 && o->rank > 0 && (o->shape[0] % x->shape[0] == 0 || x->shape[0] % o->shape[0] == 0))
        out[0] = 0;
      else if (sx == r - 1 && o->rank > 0 && o->shape[o->rank - 1] == x->shape[r - 1])
        out[0] = (gint) o->rank - 1;
      else
        *redo = 0;
      return;
    case PLX_IR_TRANSPOSE:
      /* A split dimension moves where the permutation puts it. */
      if (sx == PARTIAL || sx == REPL)
        out[0] = sx;
      else
        {
          *redo = 0;
          for (guint d = 0; d < op->n_perm; d++)
            if (op->perm[d] == sx)
              {
                out[0] = (gint) d;
                *redo = -1;
              }
        }
      return;
    case PLX_IR_CONCAT:
    case PLX_IR_SPLIT:
      for (guint j = 0; j < op->n_inputs; j++)
        if (st_at (s, in[j])->st[a] != sx || sx == (op->axis < 0 ? 0 : op->axis))
          {
            *redo = (gint) j;
            return;
          }
      for (guint j = 0; j < op->n_outputs; j++)
        out[j] = sx;
      return;
    case PLX_IR_OPTIMIZER:
      {
        /* The update where the weight lives: its gradient summed and split as the
         * weight is, its optimizer state split alike. */
        gint sw = decide (s, in[0], a, REPL);
        if (sy == REPL && sw >= 0)
          SLICE (1, sw);
        if (sy != sw)
          {
            *redo = 1;
            return;
          }
        for (guint j = 2; j < op->n_inputs; j++)
          if (decide (s, in[j], a, sw) != sw)
            {
              *redo = (gint) j;
              return;
            }
        for (guint j = 0; j < op->n_outputs; j++)
          out[j] = sw;
        return;
      }
    case PLX_IR_ALL_REDUCE:
    case PLX_IR_ALL_GATHER:
    case PLX_IR_REDUCE_SCATTER:
    case PLX_IR_ALL_TO_ALL:
    case PLX_IR_BROADCAST:
    case PLX_IR_SEND:
    case PLX_N_IR_KINDS:
    default:
      *redo = 0;
      return;
    }
}

/* The training graph's op i, sharded: inputs made what the rule needs on every
 * axis, outputs with the shardings it gives. */
static gboolean
shard_op (Shard *s, guint i, GError **error)
{
  const PlxIrOp *op = s->t->ops->pdata[i];
  g_autofree guint *in = g_new (guint, MAX (op->n_inputs, 1));
  g_autofree gint *out = g_new (gint, MAX (op->n_outputs, 1) * N_AX);
  SOp *sop;

  s->cur = i;
  for (guint j = 0; j < op->n_inputs; j++)
    in[j] = s->map[op->inputs[j]];
  for (guint a = 0; a < N_AX; a++)
    {
      gint *o = out + a * op->n_outputs;
      guint tries = 0;

      if (s->size[a] == 1)
        {
          for (guint j = 0; j < op->n_outputs; j++)
            o[j] = REPL;
          continue;
        }
      for (;;)
        {
          gint redo, slice;
          rule (s, op, in, a, o, &redo, &slice);
          if (redo < 0)
            break;
          if (++tries > 3 * op->n_inputs + 2)
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "%s: op \"%s\": no sharding over %s settles",
                           s->source, op->name, axis_names[a]);
              return FALSE;
            }
          if (slice >= 0)
            take_part (s, &in[redo], a, slice, op);
          else if (st_at (s, in[redo])->st[a] == REPL)
            {
              /* The rule wants more than this input replicated: replicate them all. */
              for (guint j = 0; j < op->n_inputs; j++)
                if (!replicate (s, &in[j], a, op, error))
                  return FALSE;
            }
          else if (!replicate (s, &in[redo], a, op, error))
            return FALSE;
        }
    }
  sop = add_op (s, op->name, op->kind, op);
  sop->axis = op->axis;
  sop->ta = op->transpose_a;
  sop->tb = op->transpose_b;
  sop->n_perm = op->n_perm;
  memcpy (sop->perm, op->perm, sizeof sop->perm);
  g_array_append_vals (sop->in, in, op->n_inputs);
  for (guint j = 0; j < op->n_outputs; j++)
    {
      const PlxIrTensor *tt = s->t->tensors->pdata[op->outputs[j]];
      STensor like = stensor_of (tt);
      guint t;

      for (guint a = 0; a < N_AX; a++)
        like.st[a] = out[a * op->n_outputs + j];
      t = add_tensor (s, &like, tt->name);
      st_at (s, t)->producer = (gint) s->ops->len - 1;
      g_array_append_val (sop->out, t);
      s->map[op->outputs[j]] = t;
    }
  return TRUE;
}

/* Each dimension divided by the axes that split it; FALSE (naming the tensor) if
 * one does not divide. */
static gboolean
local_shape (Shard *s, const STensor *t, gint64 *shape, GError **error)
{
  for (guint d = 0; d < t->rank; d++)
    {
      guint64 parts = 1;   /* micro-batches x data parallel may pass 2^32 */
      GString *by = g_string_new (NULL);

      for (guint a = 0; a < N_AX; a++)
        if (t->st[a] == (gint) d)
          {
            parts *= s->size[a];
            g_string_append_printf (by, "%s%s %u", by->len ? " x " : "",
                                    a == AX_MB ? "micro-batches" : a == AX_DP ? "data parallel" : "tensor parallel",
                                    s->size[a]);
          }
      if (parts > (guint64) t->shape[d] || t->shape[d] % (gint64) parts != 0)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: tensor \"%s\": dimension %u (%" G_GINT64_FORMAT
                       ") does not split into %" G_GUINT64_FORMAT " (%s)", s->source, t->name, d, t->shape[d], parts,
                       by->str);
          g_string_free (by, TRUE);
          return FALSE;
        }
      g_string_free (by, TRUE);
      shape[d] = t->shape[d] / (gint64) parts;
    }
  return TRUE;
}

/* ---- the program: stages, micro-batches, sends, the schedule ------------------- */

enum { TASK_PRE, TASK_F, TASK_B, TASK_POST };

typedef struct
{
  Shard       *s;
  PlxIrGraph  *p;
  guint        m, pp, per_stage;
  guint       *stage;        /* per sharded op: its pipeline stage (chunk % pp) */
  guint       *chunk;        /* per sharded op: its virtual stage (model chunk) */
  guint8      *task;         /* per sharded op: TASK_* */
  gboolean    *per_mb;       /* per sharded op */
  GArray     **consumers;    /* per sharded tensor: the stages that read it (guint, unique) */
  GHashTable  *where;        /* (tensor, instance, stage) -> program tensor + 1 */
  GHashTable  *names;
  gint        *acc;          /* per sharded op (ACCUMULATE): the running sum, or -1 */
  gint         recv_fwd, recv_bwd; /* the receiving streams of activations and of gradients */
  const PlxCluster *cluster;
  GArray      *made_at;      /* per program tensor: when it is estimated to be made (double) */
  double       clock;        /* the emitting stage's estimated time */
  GError     **error;
} Emit;

static gboolean
tensor_per_mb (const STensor *t)
{
  return t->st[AX_MB] != REPL && t->st[AX_MB] != UNDECIDED;
}

/* Keys live in the pointers of the table (64-bit hosts). */
G_STATIC_ASSERT (sizeof (gsize) >= sizeof (gint64));

static gint64
where_key (Emit *e, guint t, guint k, guint stage)
{
  return ((gint64) t * (e->m + 1) + k) * e->pp + stage;
}

static gint
where_get (Emit *e, guint t, guint k, guint stage)
{
  /* the key in the pointer itself: no allocation per entry */
  return GPOINTER_TO_INT (g_hash_table_lookup (e->where, GSIZE_TO_POINTER ((gsize) where_key (e, t, k, stage)))) - 1;
}

static void
where_set (Emit *e, guint t, guint k, guint stage, guint p)
{
  g_hash_table_insert (e->where, GSIZE_TO_POINTER ((gsize) where_key (e, t, k, stage)),
                       GINT_TO_POINTER ((gint) p + 1));
}

/* When program tensor p is estimated to be made: 0 for a graph input. */
static double
made_at (Emit *e, guint p)
{
  return p < e->made_at->len ? g_array_index (e->made_at, double, p) : 0.0;
}

/* The op just added, run on the emitting stage's clock: after its inputs and what the
 * stage ran before, for its cost-model time, one op at a time (an estimate of the
 * order ops start in; the simulator times them for real). */
static void
advance (Emit *e, const PlxIrOp *op)
{
  for (guint j = 0; j < op->n_inputs; j++)
    e->clock = MAX (e->clock, made_at (e, op->inputs[j]));
  e->clock += plx_ir_op_time (e->p, op, e->cluster);
  if (e->made_at->len < e->p->tensors->len)
    g_array_set_size (e->made_at, e->p->tensors->len);
  for (guint j = 0; j < op->n_outputs; j++)
    g_array_index (e->made_at, double, op->outputs[j]) = e->clock;
}

/* A program tensor for instance k of sharded tensor t: named after it, "#k" for a
 * micro-batch's own (always with `numbered`), then `suffix`. */
static guint
p_tensor (Emit *e, guint t, guint k, gboolean numbered, const char *suffix)
{
  const STensor *st = st_at (e->s, t);
  gint64 shape[PLX_IR_MAX_RANK];
  g_autofree char *base = tensor_per_mb (st) || numbered ? g_strdup_printf ("%s#%u%s", st->name, k, suffix)
                                                         : g_strdup_printf ("%s%s", st->name, suffix);

  local_shape (e->s, st, shape, NULL);   /* checked for every tensor before emitting */
  return plx_ir_graph_add_tensor (e->p, plx_ir_unique_name (e->names, base), st->rank, shape, st->dtype,
                                  st->producer < 0 ? st->role : PLX_IR_ROLE_DATA);
}

/* The program tensor for sharded tensor t, instance k, on `stage`; graph inputs are
 * made on first use (one tensor, held by each device that reads it). -1: not yet. */
static gint
lookup (Emit *e, guint t, guint k, guint stage)
{
  const STensor *st = st_at (e->s, t);
  guint kk = tensor_per_mb (st) ? k : e->m;
  gint p = where_get (e, t, kk, stage);

  if (p >= 0 || st->producer >= 0)
    return p;
  p = (gint) p_tensor (e, t, k, FALSE, "");
  for (guint s = 0; s < e->pp; s++)
    where_set (e, t, kk, s, (guint) p);
  return p;
}

/* The devices of `stage`, in the order a collective over axis `comm` lists its
 * groups: tensor-parallel groups are neighbours, data-parallel ones strided. */
static void
stage_devices (Emit *e, guint stage, gint comm, guint *devices)
{
  guint dp = e->s->size[AX_DP], tp = e->s->size[AX_TP], base = stage * e->per_stage, n = 0;

  if (comm == AX_DP)
    {
      for (guint t = 0; t < tp; t++)
        for (guint d = 0; d < dp; d++)
          devices[n++] = base + d * tp + t;
      return;
    }
  for (guint i = 0; i < e->per_stage; i++)
    devices[i] = base + i;
}

/* Whether sharded op i's instance k can run on its stage now: each input made by
 * an earlier task is there (ops of one task run in order, so their own outputs are).
 * If not, *missing is the input it waits for; if so, *at is raised to when the
 * last of them is estimated to be made. */
static gboolean
ready (Emit *e, guint i, guint k, guint *missing, double *at)
{
  const SOp *op = e->s->ops->pdata[i];

  for (guint j = 0; j < op->in->len; j++)
    {
      guint t = g_array_index (op->in, guint, j);
      gint producer = st_at (e->s, t)->producer;

      /* made earlier in this task - but a sum over micro-batches only after the last */
      if (producer >= 0 && e->chunk[producer] == e->chunk[i] && e->task[producer] == e->task[i] &&
          ((const SOp *) e->s->ops->pdata[producer])->kind != ACCUMULATE)
        continue;
      if (producer >= 0)
        {
          gint p = lookup (e, t, k, e->stage[i]);
          if (p < 0)
            {
              *missing = t;
              return FALSE;
            }
          *at = MAX (*at, made_at (e, (guint) p));
        }
    }
  return TRUE;
}

static void
register_output (Emit *e, guint i, guint t, guint k, guint p)
{
  const STensor *st = st_at (e->s, t);
  guint kk = tensor_per_mb (st) ? k : e->m, s = e->stage[i];
  GArray *readers = e->consumers[t];

  where_set (e, t, kk, s, p);
  for (guint r = 0; r < readers->len; r++)
    {
      guint to = g_array_index (readers, guint, r);
      g_autofree char *suffix = g_strdup_printf ("@%u", to);
      g_autofree guint *from_dev = g_new (guint, e->per_stage);
      guint copy;
      PlxIrOp *send;
      g_autofree char *oname = NULL;

      if (to == s)
        continue;
      copy = p_tensor (e, t, k, FALSE, suffix);
      oname = g_strdup_printf ("send:%s", ((PlxIrTensor *) e->p->tensors->pdata[copy])->name);
      stage_devices (e, s, -1, from_dev);
      send = plx_ir_graph_add_op (e->p, plx_ir_unique_name (e->names, oname), PLX_IR_SEND, &p, 1, &copy, 1, from_dev, e->per_stage);
      send->phase = ((const SOp *) e->s->ops->pdata[i])->phase;
      /* Megatron's p2p holds the sender's compute (as plx-ir-lower.c's sends); the
       * receiver takes it on a stream of its own per direction, so a receive never
       * waits behind the receiver's own tensor-parallel collectives on "comm", nor
       * they behind a receive that the sender makes later in the schedule. */
      send->stream = PLX_IR_STREAM_COMPUTE;
      send->peer_stream = send->phase == PLX_IR_PHASE_FORWARD ? e->recv_fwd : e->recv_bwd;
      send->peers = g_new (guint, e->per_stage);
      stage_devices (e, to, -1, send->peers);
      advance (e, send);
      where_set (e, t, kk, to, copy);
    }
}

static void
emit_op (Emit *e, guint i, guint k)
{
  const SOp *op = e->s->ops->pdata[i];
  guint s = e->stage[i];
  g_autofree guint *in = g_new (guint, MAX (op->in->len, 1));
  g_autofree guint *out = g_new (guint, MAX (op->out->len, 1));
  g_autofree guint *devices = g_new (guint, e->per_stage);
  g_autofree char *oname = e->per_mb[i] ? g_strdup_printf ("%s#%u", op->name, k) : g_strdup (op->name);
  PlxIrOp *pop;

  for (guint j = 0; j < op->in->len; j++)
    in[j] = (guint) lookup (e, g_array_index (op->in, guint, j), k, s);
  stage_devices (e, s, op->comm_axis, devices);
  if (op->kind == ACCUMULATE)
    {
      /* Micro-batch k's gradient added to the sum of those before it. */
      guint t = g_array_index (op->out, guint, 0);
      if (k == 0)
        e->acc[i] = (gint) in[0];
      else
        {
          guint both[2] = { (guint) e->acc[i], in[0] };
          guint sum = p_tensor (e, t, k, TRUE, "");
          PlxIrOp *add = plx_ir_graph_add_op (e->p, plx_ir_unique_name (e->names, oname), PLX_IR_ADD, both, 2, &sum, 1, devices,
                                              e->per_stage);
          add->phase = PLX_IR_PHASE_BACKWARD;
          advance (e, add);
          e->acc[i] = (gint) sum;
        }
      if (k + 1 == e->m)
        register_output (e, i, t, k, (guint) e->acc[i]);
      return;
    }
  for (guint j = 0; j < op->out->len; j++)
    out[j] = p_tensor (e, g_array_index (op->out, guint, j), k, FALSE, "");
  pop = plx_ir_graph_add_op (e->p, plx_ir_unique_name (e->names, oname), (PlxIrKind) op->kind, in, op->in->len, out, op->out->len,
                             devices, e->per_stage);
  pop->axis = op->axis;
  pop->transpose_a = op->ta;
  pop->transpose_b = op->tb;
  pop->n_perm = op->n_perm;
  memcpy (pop->perm, op->perm, sizeof pop->perm);
  pop->phase = op->phase;
  if (op->comm_axis >= 0)
    pop->groups = e->per_stage / e->s->size[op->comm_axis];
  advance (e, pop);
  for (guint j = 0; j < op->out->len; j++)
    register_output (e, i, g_array_index (op->out, guint, j), k, out[j]);
}

/* The forward ops cut into pp runs (`what` they are, for the error) of about equal time: each cut at the boundary
 * whose running time is nearest to its share of the whole. */
static gboolean
split_stages (const PlxIrGraph *t, guint pp, const char *what, const PlxCluster *cluster, guint *fwd_stage,
              guint n_fwd, const char *source, GError **error)
{
  g_autofree double *cum = g_new0 (double, n_fwd + 1);
  guint start = 0;

  if (pp > n_fwd)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: %u %s, but the model has %u forward ops", source, pp,
                   what, n_fwd);
      return FALSE;
    }
  for (guint i = 0; i < n_fwd; i++)
    cum[i + 1] = cum[i] + plx_ir_op_time (t, t->ops->pdata[i], cluster);
  for (guint st = 0; st < pp; st++)
    {
      guint end = n_fwd;
      if (st + 1 < pp)
        {
          double target = cum[n_fwd] * (st + 1) / pp;
          /* at least one op here, and one left for each later stage */
          guint lo = start + 1, hi = n_fwd - (pp - st - 1);
          end = lo;
          for (guint b = lo; b <= hi; b++)
            if (fabs (cum[b] - target) < fabs (cum[end] - target))
              end = b;
        }
      for (guint i = start; i < end; i++)
        fwd_stage[i] = st;
      start = end;
    }
  return TRUE;
}

/* A task: its kind, the stage's model chunk, the micro-batch. */
#define TASK(kind, c, k) ((guint) (kind) | ((guint) (c) << 2) | ((guint) (k) << 10))
#define TASK_KIND(t) ((t) & 3u)
#define TASK_CHUNK(t) (((t) >> 2) & 0xffu)
#define TASK_MB(t) ((t) >> 10)
#define MAX_CHUNKS_PER_STAGE 64

/* Each stage's tasks in the schedule's order (plx_schedule_order_new's GPipe, 1F1B or
 * interleaved 1F1B, or a schedule file): PRE of each of its chunks, the micro-batches'
 * forwards (F) and backwards (B) as the order lists them, POST of each chunk. */
static GArray *
stage_tasks (guint stage, guint v, const PlxScheduleOrder *order)
{
  GArray *tasks = g_array_new (FALSE, FALSE, sizeof (guint));
  GArray *entries = plx_schedule_order_get_stages (order)[stage];
  guint task;

#define PUSH(kind, c, k) (task = TASK (kind, c, k), g_array_append_val (tasks, task))
  for (guint c = 0; c < v; c++)
    PUSH (TASK_PRE, c, 0);
  for (guint i = 0; i < entries->len; i++)
    {
      const PlxScheduleEntry *en = &g_array_index (entries, PlxScheduleEntry, i);
      PUSH (en->pass == PLX_PASS_FORWARD ? TASK_F : TASK_B, en->chunk, en->micro_batch);
    }
  for (guint c = 0; c < v; c++)
    PUSH (TASK_POST, c, 0);
#undef PUSH
  return tasks;
}

/* How many forward ops a training graph has: they are its first ops, each its own
 * origin. */
static guint
forward_ops (const PlxIrGraph *training)
{
  guint n = 0;

  for (guint i = 0; i < training->ops->len; i++)
    {
      const PlxIrOp *op = training->ops->pdata[i];
      if (op->phase == PLX_IR_PHASE_FORWARD)
        n = MAX (n, (guint) op->origin + 1);
    }
  return n;
}

guint
plx_ir_chain_costs (const PlxIrGraph *training,
                    const PlxCluster *cluster,
                    guint             micro_batches,
                    double          **node_s,
                    double          **cut_s,
                    double          **cut_bytes)
{
  PlxGroup pair = plx_group_place (cluster, 2, 1);
  guint n = forward_ops (training), m = MAX (micro_batches, 1u);
  g_autofree gint *last_reader = NULL;   /* per tensor: the last forward op reading it */

  *node_s = g_new0 (double, MAX (n, 1));
  *cut_s = g_new0 (double, MAX (n, 1));
  *cut_bytes = g_new0 (double, MAX (n, 1));
  last_reader = g_new (gint, MAX (training->tensors->len, 1));
  for (guint t = 0; t < training->tensors->len; t++)
    last_reader[t] = -1;
  for (guint i = 0; i < training->ops->len; i++)
    {
      const PlxIrOp *op = training->ops->pdata[i];
      if (op->origin < 0 || (guint) op->origin >= n || op->phase == PLX_IR_PHASE_OPTIMIZER)
        continue;
      /* Forward and backward run once per micro-batch: the step's time is the whole
       * batch's (the optimizer's update runs once, beside the pipeline). */
      (*node_s)[op->origin] += plx_ir_op_time (training, op, cluster);
      if (op->phase == PLX_IR_PHASE_FORWARD)
        for (guint j = 0; j < op->n_inputs; j++)
          last_reader[op->inputs[j]] = MAX (last_reader[op->inputs[j]], op->origin);
    }
  /* An activation made by forward op p and last read by forward op q crosses every
   * boundary from p to q - 1. */
  for (guint t = 0; t < training->tensors->len; t++)
    {
      const PlxIrTensor *x = training->tensors->pdata[t];
      gint p = x->producer >= 0 ? ((const PlxIrOp *) training->ops->pdata[x->producer])->origin : -1;
      if (x->producer < 0 || p < 0 || last_reader[t] <= p)
        continue;
      for (gint b = p; b < last_reader[t] && (guint) b + 1 < n; b++)
        (*cut_bytes)[b] += plx_ir_tensor_bytes (x);
    }
  for (guint b = 0; b + 1 < n; b++)
    if ((*cut_bytes)[b] > 0.0)
      (*cut_s)[b] = 2.0 * m * plx_collective_time (cluster, PLX_COLLECTIVE_SEND_RECV, &pair, (*cut_bytes)[b] / m);
  return n;
}

/* Each forward op's chunk, from each chunk's first op. */
static void
chunks_from_firsts (const guint *first, guint n_chunks, guint n_fwd, guint *fwd_chunk)
{
  for (guint k = 0; k < n_chunks; k++)
    for (guint i = first[k]; i < (k + 1 < n_chunks ? first[k + 1] : n_fwd); i++)
      fwd_chunk[i] = k;
}

/* The chain optimum's first op of each of n_chunks chunks (plx_partition_chain on
 * plx_ir_chain_costs); returns the number of forward ops, or 0 (nothing written) when
 * there are fewer than n_chunks. */
static guint
optimal_firsts (const PlxIrGraph *training, const PlxCluster *cluster, guint micro_batches, guint n_chunks,
                guint *first)
{
  g_autofree double *node_s = NULL, *cut_s = NULL, *cut_bytes = NULL;
  guint n = plx_ir_chain_costs (training, cluster, micro_batches, &node_s, &cut_s, &cut_bytes);

  if (n_chunks > n)
    return 0;
  plx_partition_chain (node_s, cut_s, n, n_chunks, first);
  return n;
}

/* Each forward op's chunk from the DAG partitioner (plx_partition_dag, ORDERED: every
 * tensor goes to the same or a later chunk): nodes are the forward ops with their
 * backward ops' time (plx_ir_chain_costs), an edge per tensor one forward op makes
 * and another reads, costing what the chain charges a cut: sent on and its gradient
 * sent back, once per micro-batch, between neighbouring GPUs. Loads within 5 % of an
 * even share: the pipeline runs at its slowest stage's pace. */
PlxDagPartition *
plx_ir_dag_partition (const PlxIrGraph *training,
                      const PlxCluster *cluster,
                      guint             micro_batches,
                      guint             n_chunks,
                      PlxDagMode        mode,
                      const char       *source,
                      GError          **error)
{
  g_autofree double *node_s = NULL, *cut_s = NULL, *cut_bytes = NULL;
  g_autoptr (GArray) src = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) dst = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) cost = g_array_new (FALSE, FALSE, sizeof (double));
  PlxDagPartition *part;
  PlxGroup pair = plx_group_place (cluster, 2, 1);
  guint n = plx_ir_chain_costs (training, cluster, micro_batches, &node_s, &cut_s, &cut_bytes);
  guint m = MAX (micro_batches, 1u);
  PlxDag dag;

  g_autofree gint *last_reader = g_new (gint, MAX (training->tensors->len, 1u));

  /* A tensor read by several forward ops is sent once however many read it: its cost
   * goes on the edge to its last reader, the others only keep the order (a DAG edge
   * cannot say "once per receiving part"; the last reader is the likeliest to be
   * furthest on). */
  for (guint t = 0; t < training->tensors->len; t++)
    last_reader[t] = -1;
  for (guint i = 0; i < training->ops->len; i++)
    {
      const PlxIrOp *op = training->ops->pdata[i];
      if (op->phase == PLX_IR_PHASE_FORWARD && op->origin >= 0 && (guint) op->origin < n)
        for (guint j = 0; j < op->n_inputs; j++)
          last_reader[op->inputs[j]] = MAX (last_reader[op->inputs[j]], op->origin);
    }
  for (guint i = 0; i < training->ops->len; i++)
    {
      const PlxIrOp *op = training->ops->pdata[i];
      if (op->phase != PLX_IR_PHASE_FORWARD || op->origin < 0 || (guint) op->origin >= n)
        continue;
      for (guint j = 0; j < op->n_inputs; j++)
        {
          const PlxIrTensor *x = training->tensors->pdata[op->inputs[j]];
          const PlxIrOp *from = x->producer >= 0 ? training->ops->pdata[x->producer] : NULL;
          guint a, b = (guint) op->origin;
          double c = 0.0;
          if (from == NULL || from->phase != PLX_IR_PHASE_FORWARD || from->origin < 0 || (guint) from->origin >= b)
            continue;
          a = (guint) from->origin;
          if (last_reader[op->inputs[j]] == op->origin)
            c = 2.0 * m * plx_collective_time (cluster, PLX_COLLECTIVE_SEND_RECV, &pair, plx_ir_tensor_bytes (x) / m);
          g_array_append_val (src, a);
          g_array_append_val (dst, b);
          g_array_append_val (cost, c);
        }
    }
  dag = (PlxDag) { n, node_s, NULL, src->len, (const guint *) (const void *) src->data,
                   (const guint *) (const void *) dst->data, (const double *) (const void *) cost->data };
  part = plx_partition_dag (&dag, n_chunks, mode, 0.05, error);
  if (part == NULL)
    g_prefix_error (error, "%s: ", source);
  return part;
}

/* Each forward op's chunk under the split `parallel` asks for (split_stages's
 * nearest, the chain optimum, the DAG partitioner's, or the first ops given). */
static gboolean
assign_chunks (const PlxIrGraph *training, const PlxIrParallel *parallel, guint n_chunks, const PlxCluster *cluster,
               guint *fwd_chunk, guint n_fwd, const char *source, GError **error)
{
  if (!split_stages (training, n_chunks, n_chunks > parallel->pp ? "model chunks (pp x virtual stages)"
                                                                 : "pipeline stages", cluster,
                     fwd_chunk, n_fwd, source, error))
    return FALSE;
  /* The chain DP and the DAG partitioner keep a table of chunks x ops: a few
   * thousand chunks is far past any pipeline, and bounds that table. */
  if ((parallel->split == PLX_IR_SPLIT_OPTIMAL || parallel->split == PLX_IR_SPLIT_DAG) && n_chunks > 4096)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %u pipeline chunks (pp x virtual stages): the "
                   "optimal and DAG splits take at most 4096", source, n_chunks);
      return FALSE;
    }
  if (parallel->split == PLX_IR_SPLIT_DAG && n_chunks > 1)
    {
      g_autoptr (PlxDagPartition) part = plx_ir_dag_partition (training, cluster, parallel->micro_batches, n_chunks,
                                                               PLX_DAG_ORDERED, source, error);
      if (part == NULL)
        return FALSE;
      for (guint i = 0; i < n_fwd && i < part->n_nodes; i++)
        fwd_chunk[i] = part->part[i];
    }
  if (parallel->split == PLX_IR_SPLIT_GIVEN && n_chunks > 1)
    {
      const guint *f = parallel->chunk_first;
      gboolean valid = f != NULL && f[0] == 0;
      for (guint k = 1; valid && k < n_chunks; k++)
        valid = f[k] > f[k - 1] && f[k] < n_fwd;
      if (!valid)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: a given split needs %u chunks' first ops, "
                       "increasing from 0 and below the %u forward ops", source, n_chunks, n_fwd);
          return FALSE;
        }
      chunks_from_firsts (f, n_chunks, n_fwd, fwd_chunk);
    }
  if (parallel->split == PLX_IR_SPLIT_OPTIMAL && n_chunks > 1)
    {
      g_autofree guint *first = g_new (guint, n_chunks);

      optimal_firsts (training, cluster, parallel->micro_batches, n_chunks, first);
      chunks_from_firsts (first, n_chunks, n_fwd, fwd_chunk);
    }
  return TRUE;
}

gboolean
plx_ir_split_firsts (const PlxIrGraph    *training,
                     const PlxIrParallel *parallel,
                     const PlxCluster    *cluster,
                     guint               *first,
                     const char          *source,
                     GError             **error)
{
  guint n_fwd = forward_ops (training), v = MAX (parallel->virtual_stages, 1u), n_chunks;
  g_autofree guint *fwd_chunk = NULL;

  if (parallel->pp == 0 || parallel->pp > 1u << 20 || v > MAX_CHUNKS_PER_STAGE)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: pp %u with %u model chunks per stage: pp must be "
                   "1 to 1048576, chunks 1 to %u", source, parallel->pp, v, MAX_CHUNKS_PER_STAGE);
      return FALSE;
    }
  if (parallel->split == PLX_IR_SPLIT_DAG)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "%s: a DAG split's chunks are not runs of ops, so they "
                   "have no first ops", source);
      return FALSE;
    }
  n_chunks = parallel->pp * v;
  fwd_chunk = g_new0 (guint, MAX (n_fwd, 1));
  if (!assign_chunks (training, parallel, n_chunks, cluster, fwd_chunk, n_fwd, source, error))
    return FALSE;
  first[0] = 0;
  for (guint i = 1, k = 1; i < n_fwd; i++)
    if (fwd_chunk[i] != fwd_chunk[i - 1])
      first[k++] = i;
  return TRUE;
}

/* Each training op's model chunk: its forward op's, except where a gradient is summed
 * or used. A tensor read on several chunks gets one gradient from each, added up in
 * the reverse of program order (plx-ir-autodiff.c); when the chunks are runs of ops,
 * that order takes the chunks from the last back, as the backward pass does. A DAG
 * split's chunks are not runs: a reader on chunk 1 may come before one on chunk 0,
 * and a sum kept on the reader's chunk would send a partial sum from chunk 0 to
 * chunk 1 inside one micro-batch's backward, which no pipeline schedule runs (chunk
 * 1's backward comes first). So each partial sum is made on the earliest chunk it
 * has a part from, every part travels backward, and a weight's update runs where its
 * gradient ends. */
static guint *
training_chunks (const PlxIrGraph *training, const guint *fwd_chunk, guint n_fwd)
{
  guint *chunk = g_new0 (guint, MAX (training->ops->len, 1));

  for (guint i = 0; i < training->ops->len; i++)
    {
      const PlxIrOp *op = training->ops->pdata[i];
      gboolean sum = op->kind == PLX_IR_ADD && op->phase == PLX_IR_PHASE_BACKWARD;
      gboolean update = op->kind == PLX_IR_OPTIMIZER;

      chunk[i] = fwd_chunk[MIN ((guint) op->origin, n_fwd - 1)];
      for (guint j = 0; (sum || update) && j < op->n_inputs; j++)
        {
          gint producer = ((const PlxIrTensor *) training->tensors->pdata[op->inputs[j]])->producer;
          if (producer < 0 || ((const PlxIrOp *) training->ops->pdata[producer])->phase != PLX_IR_PHASE_BACKWARD)
            continue;
          /* only backward ops come before either (training graphs list them so) */
          chunk[i] = sum ? MIN (chunk[i], chunk[producer]) : chunk[producer];
        }
    }
  return chunk;
}

PlxIrGraph *
plx_ir_parallelize (const PlxIrGraph    *training,
                    const PlxIrParallel *parallel,
                    const PlxCluster    *cluster,
                    const char          *source,
                    GError             **error)
{
  g_autoptr (GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) ops = g_ptr_array_new_with_free_func (sop_free);
  g_autoptr (GArray) tensors = g_array_new (FALSE, FALSE, sizeof (STensor));
  g_autofree guint *map = g_new0 (guint, MAX (training->tensors->len, 1));
  Shard s = { training, parallel, source, { parallel->micro_batches, parallel->dp, parallel->tp }, tensors, ops,
              names, map };
  guint n_fwd = 0, pp = parallel->pp, n_dev, v = MAX (parallel->virtual_stages, 1u), n_chunks;
  g_autofree guint *fwd_chunk = NULL, *op_chunk = NULL;
  g_autoptr (PlxIrGraph) p = NULL;
  Emit e = { 0 };
  g_autoptr (GHashTable) where = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) p_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) tasks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr (GPtrArray) by_task = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autofree guint *pos = NULL;
  g_autofree double *stage_free = NULL, *ready_at = NULL;
  g_autoptr (GArray) made = g_array_new (FALSE, TRUE, sizeof (double));
  g_autoptr (PlxScheduleOrder) order = NULL;
  g_autofree gboolean *data_dep = NULL;
  guint remaining = 0, missing = 0, stuck_op = 0, stuck_stage = 0;
  gboolean ok = TRUE;

  if (parallel->dp == 0 || parallel->tp == 0 || pp == 0 || parallel->micro_batches == 0 ||
      (guint64) parallel->dp * parallel->tp * pp > 1u << 20)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: dp %u, tp %u, pp %u, micro-batches %u: each must "
                   "be at least 1, and dp x tp x pp at most 1048576", source, parallel->dp, parallel->tp, pp,
                   parallel->micro_batches);
      return NULL;
    }
  n_dev = parallel->dp * parallel->tp * pp;
  /* Interleaving (Narayanan et al. 2021 §2.2.2): pp x v chunks, each stage running
   * v of them, the micro-batches in groups of pp (Megatron-LM's requirement). */
  if (v > MAX_CHUNKS_PER_STAGE ||
      (parallel->schedule == PLX_IR_SCHEDULE_INTERLEAVED && (v < 2 || pp < 2 || parallel->micro_batches % pp != 0)) ||
      (v > 1 && parallel->schedule != PLX_IR_SCHEDULE_INTERLEAVED && parallel->schedule != PLX_IR_SCHEDULE_FILE))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: %u model chunks per stage: interleaving needs "
                   "2 to %u chunks on each of at least 2 stages, micro-batches (%u) a multiple of pp (%u), and the "
                   "interleaved schedule or a schedule file", source, v, MAX_CHUNKS_PER_STAGE,
                   parallel->micro_batches, pp);
      return NULL;
    }
  n_chunks = pp * v;

  /* Shardings, op by op. */
  for (guint t = 0; t < training->tensors->len; t++)
    {
      const PlxIrTensor *tt = training->tensors->pdata[t];
      STensor like;

      if (tt->producer >= 0)
        continue;   /* named when its op is sharded */
      like = stensor_of (tt);
      like.st[AX_MB] = like.st[AX_DP] = like.st[AX_TP] = REPL;
      /* Data with a first dimension of 1 (position ids broadcast over the batch)
       * or none carries no batch: every device reads all of it. */
      if (tt->producer < 0 && tt->role == PLX_IR_ROLE_DATA && tt->rank > 0 && tt->shape[0] > 1)
        {
          like.st[AX_MB] = s.size[AX_MB] > 1 ? 0 : REPL;
          like.st[AX_DP] = s.size[AX_DP] > 1 ? 0 : REPL;
        }
      else if (tt->producer < 0 && (tt->role == PLX_IR_ROLE_WEIGHT || tt->role == PLX_IR_ROLE_STATE) &&
               s.size[AX_TP] > 1)
        like.st[AX_TP] = UNDECIDED;
      map[t] = add_tensor (&s, &like, tt->name);
    }
  n_fwd = forward_ops (training);
  for (guint i = 0; i < training->ops->len; i++)
    if (!shard_op (&s, i, error))
      return NULL;
  for (guint t = 0; t < tensors->len; t++)
    {
      gint64 shape[PLX_IR_MAX_RANK];
      STensor *st = st_at (&s, t);
      for (guint a = 0; a < N_AX; a++)
        if (st->st[a] == UNDECIDED)
          st->st[a] = REPL;
      if (!local_shape (&s, st, shape, error))
        return NULL;
    }

  if (s.size[AX_MB] > 1)
    {
      gboolean split = FALSE;
      for (guint t = 0; t < tensors->len && !split; t++)
        split = st_at (&s, t)->st[AX_MB] >= 0;
      if (!split)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: %u micro-batches, but no data tensor has a "
                       "batch (a first dimension over 1) to split", source, s.size[AX_MB]);
          return NULL;
        }
    }

  /* Stages, tasks. */
  fwd_chunk = g_new0 (guint, MAX (n_fwd, 1));
  if (!assign_chunks (training, parallel, n_chunks, cluster, fwd_chunk, n_fwd, source, error))
    return NULL;
  op_chunk = training_chunks (training, fwd_chunk, n_fwd);
  p = plx_ir_graph_new (n_dev);
  e.s = &s;
  e.p = p;
  e.m = parallel->micro_batches;
  e.pp = pp;
  e.per_stage = parallel->dp * parallel->tp;
  e.stage = g_new0 (guint, MAX (ops->len, 1));
  e.chunk = g_new0 (guint, MAX (ops->len, 1));
  e.task = g_new0 (guint8, MAX (ops->len, 1));
  e.per_mb = g_new0 (gboolean, MAX (ops->len, 1));
  e.acc = g_new (gint, MAX (ops->len, 1));
  data_dep = g_new0 (gboolean, MAX (ops->len, 1));
  e.consumers = g_new0 (GArray *, MAX (tensors->len, 1));
  e.where = where;
  e.names = p_names;
  e.cluster = cluster;
  e.made_at = made;
  e.error = error;
  if (pp > 1)
    {
      e.recv_fwd = plx_ir_graph_stream (p, "recv-activations");
      e.recv_bwd = plx_ir_graph_stream (p, "recv-gradients");
    }
  for (guint t = 0; t < tensors->len; t++)
    e.consumers[t] = g_array_new (FALSE, FALSE, sizeof (guint));
  {
    /* A conversion is made for the first op that needs it and shared by the later
     * ones; under a DAG split a later one can sit on an earlier chunk (two readers
     * of one tensor, in either order), so it runs on the earliest chunk that reads
     * it - never before its input's, which every reader follows. */
    g_autofree guint *first_reader = g_new (guint, MAX (tensors->len, 1));
    for (guint t = 0; t < tensors->len; t++)
      first_reader[t] = G_MAXUINT;
    for (guint i = 0; i < ops->len; i++)
      e.chunk[i] = op_chunk[((const SOp *) ops->pdata[i])->source];
    for (guint i = ops->len; i-- > 0;)
      {
        const SOp *op = ops->pdata[i];
        if (op->conversion && first_reader[g_array_index (op->out, guint, 0)] != G_MAXUINT)
          e.chunk[i] = first_reader[g_array_index (op->out, guint, 0)];
        for (guint j = 0; j < op->in->len; j++)
          {
            guint *f = &first_reader[g_array_index (op->in, guint, j)];
            *f = MIN (*f, e.chunk[i]);
          }
      }
  }
  for (guint i = 0; i < ops->len; i++)
    {
      const SOp *op = ops->pdata[i];
      gboolean mb = op->kind == ACCUMULATE;

      e.acc[i] = -1;
      e.stage[i] = e.chunk[i] % pp;
      for (guint j = 0; j < op->out->len; j++)
        mb |= tensor_per_mb (st_at (&s, g_array_index (op->out, guint, j)));
      e.per_mb[i] = mb;
      /* Outside the micro-batch loop: a backward or update op that depends on the
       * data runs after it (POST: a summed gradient's all-reduce, the update); the
       * rest before it (PRE: a weight gathered once for every micro-batch). */
      for (guint j = 0; j < op->in->len; j++)
        {
          guint t = g_array_index (op->in, guint, j);
          gint producer = st_at (&s, t)->producer;
          /* weights, constants and state alone (a weight gathered once) run before the
           * loop; anything computed from the data or the forward pass, after it */
          data_dep[i] |= producer >= 0 ? (data_dep[producer] || e.per_mb[producer])
                                       : st_at (&s, t)->role == PLX_IR_ROLE_DATA;
        }
      /* the forward pass's own computations (not a weight's gather or slice) */
      data_dep[i] |= op->phase == PLX_IR_PHASE_FORWARD && op->kind != PLX_IR_SLICE && op->kind != ACCUMULATE &&
                     !plx_ir_kind_is_collective ((PlxIrKind) op->kind);
      e.task[i] = mb ? (op->phase == PLX_IR_PHASE_FORWARD ? TASK_F : TASK_B)
                     : (op->phase != PLX_IR_PHASE_FORWARD && data_dep[i] ? TASK_POST : TASK_PRE);
      for (guint j = 0; j < op->in->len; j++)
        {
          GArray *c = e.consumers[g_array_index (op->in, guint, j)];
          gboolean seen = FALSE;
          for (guint r = 0; r < c->len; r++)
            seen |= g_array_index (c, guint, r) == e.stage[i];
          if (!seen)
            g_array_append_val (c, e.stage[i]);
        }
    }

  {
    /* A program the reader could not take back (10 million ops) is refused up front. */
    double n_ops = 0.0;
    for (guint i = 0; i < ops->len; i++)
      n_ops += e.per_mb[i] ? e.m : 1.0;
    if (n_ops > 1e7)
      {
        g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %u micro-batches make a program of %.3g ops, "
                     "more than 10 million; use fewer micro-batches", source, e.m, n_ops);
        ok = FALSE;
        remaining = 0;
      }
  }
  /* Each stage's ops of each task kind, in program order. */
  for (guint i = 0; i < n_chunks * 4; i++)
    g_ptr_array_add (by_task, g_array_new (FALSE, FALSE, sizeof (guint)));
  for (guint i = 0; i < ops->len; i++)
    g_array_append_val ((GArray *) by_task->pdata[e.chunk[i] * 4 + e.task[i]], i);

  /* The built-in schedules are the ones every engine uses (plx-schedule.c); a schedule
   * file is read against this pipeline: pp stages of v chunks, m micro-batches; its
   * weight-gradient passes have no ops of their own here. */
  if (ok && parallel->schedule != PLX_IR_SCHEDULE_FILE)
    order = plx_schedule_order_new (parallel->schedule == PLX_IR_SCHEDULE_GPIPE         ? PLX_SCHEDULE_GPIPE
                                    : parallel->schedule == PLX_IR_SCHEDULE_INTERLEAVED ? PLX_SCHEDULE_INTERLEAVED_1F1B
                                                                                        : PLX_SCHEDULE_1F1B,
                                    pp, v, e.m);
  if (ok && parallel->schedule == PLX_IR_SCHEDULE_FILE)
    {
      order = plx_schedule_order_load (parallel->schedule_path, pp, v, e.m, error);
      if (order == NULL)
        ok = FALSE;
      else if (order->split_backward)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "%s: schedule file %s splits weight gradients (W) "
                       "off the backward passes; a graph model's backward runs as one pass (use F and B only)",
                       source, parallel->schedule_path);
          ok = FALSE;
        }
    }
  /* Emit the stages' tasks one at a time, each stage's in its schedule's order: of
   * the stages whose next task has what it reads, the one estimated to start it
   * first (advance). So the program lists tasks about as they run, and a stream two
   * stages share (a stage receiving from two others, as a skip connection across
   * stages makes it) takes them in that order, not one stage's whole schedule
   * ahead of another's. */
  pos = g_new0 (guint, pp);
  stage_free = g_new0 (double, pp);
  ready_at = g_new (double, pp);
  for (guint st = 0; st < pp; st++)
    ready_at[st] = NAN;
  for (guint st = 0; st < pp && ok; st++)
    {
      g_ptr_array_add (tasks, stage_tasks (st, v, order));
      remaining += ((GArray *) tasks->pdata[st])->len;
    }
  while (remaining > 0 && ok)
    {
      gint best = -1;
      double best_start = 0.0;

      for (guint st = 0; st < pp; st++)
        {
          GArray *list = tasks->pdata[st], *members;
          guint task;
          gboolean can = TRUE;
          double at = stage_free[st];

          if (pos[st] == list->len)
            continue;
          /* a stage found ready stays so, at the same estimate, until it emits */
          if (!isnan (ready_at[st]))
            {
              if (best < 0 || ready_at[st] < best_start)
                {
                  best = (gint) st;
                  best_start = ready_at[st];
                }
              continue;
            }
          task = g_array_index (list, guint, pos[st]);
          /* chunk c of stage st is virtual stage c x pp + st */
          members = by_task->pdata[(TASK_CHUNK (task) * pp + st) * 4 + TASK_KIND (task)];
          for (guint x = 0; x < members->len && can; x++)
            {
              guint i = g_array_index (members, guint, x);
              can = ready (&e, i, TASK_MB (task), &missing, &at);
              if (!can)
                {
                  stuck_op = i;
                  stuck_stage = st;
                }
            }
          if (can)
            ready_at[st] = at;
          if (can && (best < 0 || at < best_start))
            {
              best = (gint) st;
              best_start = at;
            }
        }
      if (best < 0)
        {
          const SOp *op = ops->pdata[stuck_op];
          const STensor *t = st_at (&s, missing);
          g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "%s: the pipeline schedule cannot go on: op \"%s\" "
                       "on stage %u waits for tensor \"%s\" from stage %u, which the schedule runs later", source,
                       op->name, stuck_stage, t->name, t->producer >= 0 ? e.stage[t->producer] : 0);
          ok = FALSE;
          break;
        }
      {
        guint task = g_array_index ((GArray *) tasks->pdata[best], guint, pos[best]);
        GArray *members = by_task->pdata[(TASK_CHUNK (task) * pp + (guint) best) * 4 + TASK_KIND (task)];

        e.clock = best_start;
        for (guint x = 0; x < members->len; x++)
          emit_op (&e, g_array_index (members, guint, x), TASK_MB (task));
        stage_free[best] = e.clock;
        ready_at[best] = NAN;
        pos[best]++;
        remaining--;
      }
    }
  for (guint t = 0; t < tensors->len; t++)
    g_array_unref (e.consumers[t]);
  g_free (e.consumers);
  g_free (e.stage);
  g_free (e.chunk);
  g_free (e.task);
  g_free (e.per_mb);
  g_free (e.acc);
  if (!ok)
    return NULL;
  return g_steal_pointer (&p);
}

/* The step of `parallel` with the split `first`, or a negative number. */
static double
run_split (const PlxIrGraph *training, const PlxIrParallel *parallel, const PlxCluster *cluster, const guint *first,
           const char *source, GError **error)
{
  PlxIrParallel par = *parallel;
  g_autoptr (PlxIrGraph) program = NULL;
  PlxIrRun run;
  double step;

  par.split = PLX_IR_SPLIT_GIVEN;
  par.chunk_first = first;
  program = plx_ir_parallelize (training, &par, cluster, source, error);
  if (program == NULL || !plx_ir_simulate (program, cluster, &run, error))
    return -1.0;
  step = run.makespan_s;
  plx_ir_run_clear (&run);
  return step;
}

/* The chunks' first ops of the split `split` (plx_ir_parallelize's own). */
static gboolean
split_firsts (const PlxIrGraph *training, const PlxIrParallel *parallel, const PlxCluster *cluster, guint split,
              guint *first, guint n_chunks, const char *source, GError **error)
{
  guint n = forward_ops (training);
  g_autofree guint *fwd = g_new0 (guint, MAX (n, 1));

  if (split == PLX_IR_SPLIT_OPTIMAL)
    {
      if (optimal_firsts (training, cluster, parallel->micro_batches, n_chunks, first) > 0)
        return TRUE;
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: %u pipeline stages (model chunks), but the model "
                   "has %u forward ops", source, n_chunks, n);
      return FALSE;
    }
  if (!split_stages (training, n_chunks, "pipeline stages", cluster, fwd, n, source, error))
    return FALSE;
  for (guint i = 0, k = 0; i < n; i++)
    if (i == 0 || fwd[i] != fwd[i - 1])
      first[k++] = i;
  return TRUE;
}

double
plx_ir_refine_split (const PlxIrGraph    *training,
                     const PlxIrParallel *parallel,
                     const PlxCluster    *cluster,
                     guint                max_runs,
                     guint               *first,
                     const char          *source,
                     GError             **error)
{
  guint k = parallel->pp * MAX (parallel->virtual_stages, 1u), runs = 0;
  g_autofree guint *other = g_new (guint, k);
  g_autofree guint *trial = g_new (guint, k);
  double best, step;
  gboolean better = TRUE;

  if (!split_firsts (training, parallel, cluster, PLX_IR_SPLIT_OPTIMAL, first, k, source, error) ||
      !split_firsts (training, parallel, cluster, PLX_IR_SPLIT_NEAREST, other, k, source, error))
    return -1.0;
  best = run_split (training, parallel, cluster, first, source, error);
  if (best < 0.0)
    return -1.0;
  step = run_split (training, parallel, cluster, other, source, NULL);
  runs = 2;
  if (step >= 0.0 && step < best)
    {
      best = step;
      memcpy (first, other, k * sizeof (guint));
    }
  /* Hill climbing: one boundary, one op, while the step shortens. */
  while (better && runs < max_runs)
    {
      better = FALSE;
      for (guint b = 1; b < k && runs < max_runs; b++)
        for (gint d = -1; d <= 1 && runs < max_runs; d += 2)
          {
            guint lo = first[b - 1] + 1, hi = b + 1 < k ? first[b + 1] - 1 : G_MAXUINT;
            gint64 to = (gint64) first[b] + d;

            if (to < (gint64) lo || to > (gint64) hi)
              continue;
            memcpy (trial, first, k * sizeof (guint));
            trial[b] = (guint) to;
            step = run_split (training, parallel, cluster, trial, source, NULL);
            runs++;
            if (step >= 0.0 && step < best)
              {
                best = step;
                memcpy (first, trial, k * sizeof (guint));
                better = TRUE;
              }
          }
    }
  return best;
}
