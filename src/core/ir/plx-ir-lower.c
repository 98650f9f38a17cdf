/* Transformer scenarios as distributed programs (docs/ir.md, "Transformer
 * scenarios"). The plan (plx-plan.c) holds what one micro-batch's passes do on each
 * stage and what each stage does once per step, costed by the transformer model
 * (plx-costing.c); the schedule order says when. Written out pass by pass in an
 * order the schedule's dependencies allow, that is a program the IR simulator runs
 * as the event engine runs the plan (plx-sim.c): the same dependencies expressed as
 * tensors, the same streams expressed as op streams. */
#include <math.h>
#include <string.h>

#include "parallax/plx-error.h"
#include "ir/plx-ir-lower.h"
#include "ir/plx-ir-timeline.h"
#include "parallax/plx-sim.h"
#include "base/plx-minmax.h"

#define NONE G_MAXUINT
#define NO_KIND G_MAXUINT8

typedef struct
{
  guint  tensor;  /* the op's chain output */
  double end_s;   /* when it ends, from the pass's start */
} PassPoint;

typedef struct
{
  const PlxPlan          *plan;
  const PlxScheduleOrder *order;
  PlxIrGraph             *g;
  GArray                 *kinds;       /* guint8 per op */
  guint                   K;
  guint64                 m;
  /* Per chunk k and micro-batch: the tensor a forward pass hands on (the send's copy
   * on the next stage, or the last chunk's own output, which its backward reads), a
   * backward pass's gradient likewise, and the activations kept between them. */
  guint                  *fwd_out, *bwd_out, *saved_b, *saved_w;
  guint                  *last;        /* per stage: its last pass's last output */
  guint                  *grad_entry;  /* per chunk: index of its last B (or W) entry */
  guint                  *last_bucket; /* per stage: its last gradient bucket's output */
  GArray                 *grad_chunks; /* per stage, chunks in the order their gradients end */
  gint                    stream_tp, stream_dp, stream_recv_fwd, stream_recv_bwd;
  GString                *name;
  GArray                 *points;
} Lower;

static guint
scalar (Lower *l, const char *name)
{
  /* What passes between ops of a pass is a dependency, not memory worth counting:
   * one byte (the activations a pass keeps are tensors of their own); one
   * dimension, so that a gather or reduce-scatter of a group of one reads as one. */
  const gint64 one = 1;
  return plx_ir_graph_add_tensor (l->g, name, 1, &one, PLX_DTYPE_FP8, PLX_IR_ROLE_DATA);
}

/* A buffer of `bytes` as one-byte elements, or NONE if under a byte. Past 2^40
 * bytes (a dimension's limit) it is MiB rows, rounded to the nearest MiB. */
static guint
buffer (Lower *l, const char *name, double bytes, PlxIrRole role)
{
  gint64 shape[2] = { (gint64) llround (bytes), 0 };

  if (shape[0] < 1)
    return NONE;
  if (shape[0] <= G_GINT64_CONSTANT (1) << 40)
    return plx_ir_graph_add_tensor (l->g, name, 1, shape, PLX_DTYPE_FP8, role);
  shape[0] = (gint64) llround (bytes / 1048576.0);
  shape[1] = 1048576;
  return plx_ir_graph_add_tensor (l->g, name, 2, shape, PLX_DTYPE_FP8, role);
}

static PlxIrOp *
add_op (Lower *l, const char *name, PlxIrKind kind, const guint *in, guint n_in, const guint *out, guint n_out,
        const guint *devices, guint n_devices, guint8 task_kind, double time_s)
{
  PlxIrOp *op = plx_ir_graph_add_op (l->g, name, kind, in, n_in, out, n_out, devices, n_devices);

  op->time_s = time_s;
  g_array_append_val (l->kinds, task_kind);
  return op;
}

/* A comm task's collective: the plan names its collectives in the label. */
static PlxIrKind
comm_kind (const char *label)
{
  if (strstr (label, "reduce-scatter") != NULL)
    return PLX_IR_REDUCE_SCATTER;
  if (strstr (label, "gather") != NULL)
    return PLX_IR_ALL_GATHER;
  return PLX_IR_ALL_REDUCE;
}

/* Appends `extra` (n, NONE entries skipped) to `list`. */
static guint
append_refs (guint *list, guint n, const guint *extra, guint n_extra)
{
  for (guint i = 0; i < n_extra; i++)
    if (extra[i] != NONE)
      list[n++] = extra[i];
  return n;
}

static const char pass_letter[] = { 'F', 'B', 'W' };

/* One scheduled pass: its tasks chained on the stage's device, the first reading
 * the stage's previous output and the pass's input, the first allocating what the
 * pass keeps (a forward pass's activations, a backward pass's transient), the last
 * releasing it; then the send to the neighbouring stage. */
static void
emit_pass (Lower *l, guint s, guint entry_index, const PlxScheduleEntry *e)
{
  const PlxPlan *plan = l->plan;
  guint pp = plan->pp, k = e->chunk * pp + s;
  gsize i = (gsize) k * l->m + e->micro_batch;
  const PlxPlanChunk *chunk = &plan->chunks[k];
  const PlxPlanPass *pass = &chunk->pass[e->pass];
  gboolean grads = l->grad_entry[k] == entry_index;
  guint begin_in[2], begin_out[2] = { NONE, NONE }, end_in[2] = { NONE, NONE }, n_begin_in = 0;
  guint chain, dev = s;
  double t = 0.0, total = 0.0;
  guint64 nb = 0, jb = 0;
  g_autofree char *prefix = g_strdup_printf ("%c s%u c%u mb%u", pass_letter[e->pass], s, e->chunk, e->micro_batch);

  if (l->last[s] != NONE)
    begin_in[n_begin_in++] = l->last[s];
  if (e->pass == PLX_PASS_FORWARD && k > 0)
    begin_in[n_begin_in++] = l->fwd_out[i - l->m];
  else if (e->pass == PLX_PASS_BACKWARD)
    begin_in[n_begin_in++] = k + 1 < l->K ? l->bwd_out[i + l->m] : l->fwd_out[i];

  /* Memory as the event engine books it: a forward pass's activations from its
   * start to the end of the backward (less what a split-off W still needs, kept to
   * its end); what recompute re-creates (plx_costing_recompute_transient_bytes)
   * during the backward. */
  if (e->pass == PLX_PASS_FORWARD)
    {
      g_string_printf (l->name, "%s activations", prefix);
      begin_out[0] = l->saved_b[i] = buffer (l, l->name->str, chunk->saved_bytes - chunk->wgrad_saved_bytes,
                                             PLX_IR_ROLE_DATA);
      g_string_printf (l->name, "%s activations for W", prefix);
      begin_out[1] = l->saved_w[i] = buffer (l, l->name->str, chunk->wgrad_saved_bytes, PLX_IR_ROLE_DATA);
    }
  else if (e->pass == PLX_PASS_BACKWARD)
    {
      g_string_printf (l->name, "%s recomputed layer", prefix);
      begin_out[0] = end_in[1] = buffer (l, l->name->str, chunk->transient_bytes, PLX_IR_ROLE_DATA);
      end_in[0] = l->saved_b[i];
    }
  else
    end_in[0] = l->saved_w[i];

  g_array_set_size (l->points, 0);
  chain = NONE;
  /* The pass begins on the compute stream, after whatever the stage did last: a
   * marker op of no time when its first task is a collective. */
  if (pass->n_tasks == 0 || pass->tasks[0].stream != PLX_STREAM_COMPUTE)
    {
      guint out[3];
      guint n_out;
      g_string_printf (l->name, "%s", prefix);
      out[0] = chain = scalar (l, l->name->str);
      n_out = append_refs (out, 1, begin_out, 2);
      g_string_printf (l->name, "%s begin", prefix);
      add_op (l, l->name->str, PLX_IR_KERNEL, begin_in, n_begin_in, out, n_out, &dev, 1, NO_KIND, 0.0);
    }
  /* The chunk's gradient buckets, when they overlap its last pass: bucket j of nb is
   * ready once (j+1)/nb of the pass has run (plx-sim.c). */
  if (grads && plan->overlap_dp_comm && plan->zero_stage < 3 && plan->stages[s].grad_bucket_s > 0.0)
    {
      nb = (guint64) plx_max (1.0, round (chunk->grad_bytes / plan->stages[s].grad_bucket_bytes));
      for (guint j = 0; j < pass->n_tasks; j++)
        total += pass->tasks[j].duration_s;
    }
  for (guint j = 0; j < pass->n_tasks; j++)
    {
      const PlxPlanTask *task = &pass->tasks[j];
      gboolean first = chain == NONE, last = j + 1 == pass->n_tasks && task->stream == PLX_STREAM_COMPUTE;
      guint in[6], out[3], n_in = 0, n_out;
      PlxIrOp *op;

      if (first)
        n_in = append_refs (in, 0, begin_in, n_begin_in);
      else
        in[n_in++] = chain;
      if (task->stream == PLX_STREAM_COMPUTE && nb > 0)
        {
          /* A compute task a bucket point falls inside runs in pieces ending at those
           * points, so the bucket reads the gradients made by then: the weight
           * gradients come out GEMM by GEMM (Qi et al. 2023, "Zero Bubble Pipeline
           * Parallelism", §2: W is each linear layer's dL/dW = dL/dY X^T, computed
           * apart from B), about evenly over the pass since each GEMM's time goes
           * with its weights' size, as the event engine has them. The plan lumps a
           * layer's W into one task; read whole, all of a ZB-H1 layer's buckets
           * waited for its end (found ir-zb-h1: 0.93 %, docs/ir.md "Agreement"). */
          double from = t, end = t + task->duration_s;
          guint piece = 0;

          while (jb < nb && total * (double) (jb + 1) / (double) nb <= from * (1.0 + 1e-12))
            jb++;
          while (jb < nb && total * (double) (jb + 1) / (double) nb < end * (1.0 - 1e-12))
            {
              double cut = total * (double) (jb + 1) / (double) nb, share = (cut - from) / task->duration_s;
              guint piece_out[3], n_piece_out;

              g_string_printf (l->name, "%s #%u.%u", prefix, j, piece);
              piece_out[0] = scalar (l, l->name->str);
              n_piece_out = first && piece == 0 ? append_refs (piece_out, 1, begin_out, 2) : 1;
              g_string_printf (l->name, "%s #%u %s (to bucket %" G_GUINT64_FORMAT ")", prefix, j, task->label, jb);
              op = add_op (l, l->name->str, PLX_IR_KERNEL, in, n_in, piece_out, n_piece_out, &dev, 1,
                           (guint8) task->kind, cut - from);
              op->flops = task->flops * share;
              op->bytes = task->bytes * share;
              g_array_append_val (l->points, ((PassPoint) { piece_out[0], cut }));
              in[0] = piece_out[0];
              n_in = 1;
              from = cut;
              piece++;
              jb++;
            }
          if (piece > 0)
            {
              /* The rest of the task, ending where the whole one would. */
              double share = (end - from) / task->duration_s;
              if (last)
                n_in = append_refs (in, n_in, end_in, 2);
              g_string_printf (l->name, "%s #%u", prefix, j);
              out[0] = scalar (l, l->name->str);
              g_string_printf (l->name, "%s #%u %s (rest)", prefix, j, task->label);
              op = add_op (l, l->name->str, PLX_IR_KERNEL, in, n_in, out, 1, &dev, 1, (guint8) task->kind, end - from);
              op->flops = task->flops * share;
              op->bytes = task->bytes * share;
              chain = out[0];
              t += task->duration_s;
              g_array_append_val (l->points, ((PassPoint) { chain, t }));
              continue;
            }
        }
      if (last)
        n_in = append_refs (in, n_in, end_in, 2);
      g_string_printf (l->name, "%s #%u", prefix, j);
      out[0] = scalar (l, l->name->str);
      n_out = first ? append_refs (out, 1, begin_out, 2) : 1;
      g_string_printf (l->name, "%s #%u %s", prefix, j, task->label);
      if (task->stream == PLX_STREAM_COMPUTE)
        {
          op = add_op (l, l->name->str, PLX_IR_KERNEL, in, n_in, out, n_out, &dev, 1, (guint8) task->kind,
                       task->duration_s);
          op->flops = task->flops;
          op->bytes = task->bytes;
        }
      else
        {
          op = add_op (l, l->name->str, comm_kind (task->label), in, n_in, out, 1, &dev, 1, (guint8) task->kind,
                       task->duration_s);
          op->stream = task->stream == PLX_STREAM_DP ? l->stream_dp : l->stream_tp;
        }
      chain = out[0];
      t += task->duration_s;
      if (grads)
        {
          PassPoint p = { chain, t };
          g_array_append_val (l->points, p);
        }
    }
  if (pass->n_tasks == 0 || pass->tasks[pass->n_tasks - 1].stream != PLX_STREAM_COMPUTE)
    {
      guint in[3] = { chain }, n_in = append_refs (in, 1, end_in, 2), out;
      if (n_in > 1)
        {
          g_string_printf (l->name, "%s done", prefix);
          out = scalar (l, l->name->str);
          g_string_printf (l->name, "%s end", prefix);
          add_op (l, l->name->str, PLX_IR_KERNEL, in, n_in, &out, 1, &dev, 1, NO_KIND, 0.0);
          chain = out;
        }
    }
  l->last[s] = chain;

  /* The gradient buckets of the chunk's last backward (or W) pass, ready as the pass
   * goes (bucket j of n once (j+1)/n of it has run, plx-sim.c): each reads the output
   * of the op that ends at that point (a compute task was cut there above; a
   * collective is not, so a point inside one waits for its end); the buckets read
   * from one op reduce as one op. */
  if (nb > 0 && l->points->len > 0)
    {
      const PlxPlanStage *st = &plan->stages[s];
      guint p = 0;
      guint64 first_j = 0;

      for (guint64 j = 0; j < nb; j++)
        {
          double point = t * (double) (j + 1) / (double) nb;
          while (p + 1 < l->points->len && g_array_index (l->points, PassPoint, p).end_s < point * (1.0 - 1e-12))
            p++;
          if (j + 1 == nb ||
              g_array_index (l->points, PassPoint, p).end_s < t * (double) (j + 2) / (double) nb * (1.0 - 1e-12))
            {
              guint in = g_array_index (l->points, PassPoint, p).tensor, out;
              PlxIrOp *op;
              g_string_printf (l->name, "s%u c%u gradient buckets %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT, s,
                               e->chunk, first_j, j);
              out = scalar (l, l->name->str);
              op = add_op (l, l->name->str, plan->zero_stage > 0 ? PLX_IR_REDUCE_SCATTER : PLX_IR_ALL_REDUCE, &in, 1,
                           &out, 1, &dev, 1, NO_KIND, st->grad_bucket_s * (double) (j - first_j + 1));
              op->stream = l->stream_dp;
              l->last_bucket[s] = out;
              first_j = j + 1;
            }
        }
    }
  if (grads)
    g_array_append_val (g_array_index (l->grad_chunks, GArray *, s), k);

  /* Stage-to-stage sends hold the sender, as Megatron's p2p does (plx-sim.c). */
  if ((e->pass == PLX_PASS_FORWARD && k + 1 < l->K) || (e->pass == PLX_PASS_BACKWARD && k > 0))
    {
      gboolean fwd = e->pass == PLX_PASS_FORWARD;
      guint peer = (fwd ? k + 1 : k - 1) % pp, out;
      guint *slot = fwd ? &l->fwd_out[i] : &l->bwd_out[i];

      if (peer == s)
        *slot = chain;
      else
        {
          PlxIrOp *op;
          g_string_printf (l->name, "%s %s to s%u", prefix, fwd ? "activations" : "gradients", peer);
          out = scalar (l, l->name->str);
          op = add_op (l, l->name->str, PLX_IR_SEND, &chain, 1, &out, 1, &dev, 1, PLX_KIND_PP_SEND, plan->send_s);
          op->peers = g_new (guint, 1);
          op->peers[0] = peer;
          op->stream = PLX_IR_STREAM_COMPUTE;
          op->peer_stream = fwd ? l->stream_recv_fwd : l->stream_recv_bwd;
          *slot = out;
        }
    }
  else if (e->pass == PLX_PASS_FORWARD)
    l->fwd_out[i] = chain;
}

/* Whether the entry's input has been written: the neighbouring stage's pass. */
static gboolean
input_emitted (const Lower *l, guint s, const PlxScheduleEntry *e)
{
  guint k = e->chunk * l->plan->pp + s;
  gsize i = (gsize) k * l->m + e->micro_batch;

  switch (e->pass)
    {
    case PLX_PASS_FORWARD:
      return k == 0 || l->fwd_out[i - l->m] != NONE;
    case PLX_PASS_BACKWARD:
      return k + 1 == l->K ? l->fwd_out[i] != NONE : l->bwd_out[i + l->m] != NONE;
    default:
      return TRUE;   /* W follows its B on the same stage */
    }
}

/* Once per step on each stage: the gradients reduced (after the compute, when not
 * overlapped), the tied embedding summed between first and last stage, the
 * optimizer step, ZeRO-1/2's weight gather. */
static void
emit_step (Lower *l, guint **done_op, guint **ready_op)
{
  const PlxPlan *plan = l->plan;
  guint pp = plan->pp;
  g_autofree guint *ready = g_new (guint, pp), *tied_out = g_new (guint, pp);

  *done_op = g_new (guint, pp);
  *ready_op = g_new (guint, pp);
  for (guint s = 0; s < pp; s++)
    {
      const PlxPlanStage *st = &plan->stages[s];
      guint done, in[2], n_in = 0, dev = s;

      g_string_printf (l->name, "s%u passes done", s);
      done = scalar (l, l->name->str);
      (*done_op)[s] = l->g->ops->len;
      add_op (l, l->name->str, PLX_IR_KERNEL, &l->last[s], 1, &done, 1, &dev, 1, NO_KIND, 0.0);
      if (!plan->overlap_dp_comm && plan->zero_stage < 3 && st->grad_bucket_s > 0.0)
        {
          GArray *chunks = g_array_index (l->grad_chunks, GArray *, s);
          for (guint c = 0; c < chunks->len; c++)
            {
              const PlxPlanChunk *chunk = &plan->chunks[g_array_index (chunks, guint, c)];
              double nb = plx_max (1.0, round (chunk->grad_bytes / st->grad_bucket_bytes));
              guint out;
              PlxIrOp *op;
              g_string_printf (l->name, "s%u c%u gradient buckets", s, chunk->chunk);
              out = scalar (l, l->name->str);
              op = add_op (l, l->name->str, plan->zero_stage > 0 ? PLX_IR_REDUCE_SCATTER : PLX_IR_ALL_REDUCE, &done, 1,
                           &out, 1, &dev, 1, NO_KIND, st->grad_bucket_s * nb);
              op->stream = l->stream_dp;
              l->last_bucket[s] = out;
            }
        }
      in[n_in++] = done;
      if (l->last_bucket[s] != NONE)
        in[n_in++] = l->last_bucket[s];
      g_string_printf (l->name, "s%u gradients ready", s);
      ready[s] = scalar (l, l->name->str);
      (*ready_op)[s] = l->g->ops->len;
      add_op (l, l->name->str, PLX_IR_KERNEL, in, n_in, &ready[s], 1, &dev, 1, NO_KIND, 0.0);
      tied_out[s] = ready[s];
    }
  if (plan->stages[0].tied_embedding_s > 0.0)
    {
      guint devs[2] = { 0, pp - 1 }, in[2] = { ready[0], ready[pp - 1] }, out[2], n = pp > 1 ? 2 : 1;
      PlxIrOp *op;
      for (guint j = 0; j < n; j++)
        {
          g_string_printf (l->name, "s%u tied embedding gradients", devs[j]);
          out[j] = tied_out[devs[j]] = scalar (l, l->name->str);
        }
      op = add_op (l, "tied embedding all-reduce", PLX_IR_ALL_REDUCE, in, n, out, n, devs, n, PLX_KIND_DP_COMM,
                   plan->stages[0].tied_embedding_s);
      op->stream = l->stream_dp;
    }
  for (guint s = 0; s < pp; s++)
    {
      const PlxPlanStage *st = &plan->stages[s];
      static const char *const what[] = { "weights", "gradients", "optimizer state", NULL, "other" };
      static const PlxIrRole roles[] = { PLX_IR_ROLE_WEIGHT, PLX_IR_ROLE_STATE, PLX_IR_ROLE_STATE, PLX_IR_ROLE_DATA,
                                         PLX_IR_ROLE_CONSTANT };
      guint in[6], n_in = 0, updated, dev = s;

      /* What a stage holds all step, as graph inputs its optimizer step reads. */
      for (guint c = 0; c < 5; c++)
        if (what[c] != NULL)
          {
            g_string_printf (l->name, "s%u %s", s, what[c]);
            in[n_in] = buffer (l, l->name->str, st->static_bytes[c], roles[c]);
            n_in += in[n_in] != NONE;
          }
      in[n_in++] = tied_out[s];
      g_string_printf (l->name, "s%u updated weights", s);
      updated = scalar (l, l->name->str);
      g_string_printf (l->name, "s%u optimizer step", s);
      add_op (l, l->name->str, PLX_IR_KERNEL, in, n_in, &updated, 1, &dev, 1, PLX_KIND_OPTIMIZER, st->optimizer_s);
      if (plan->zero_stage >= 1 && plan->zero_stage <= 2 && st->zero_gather_s > 0.0)
        {
          guint out;
          PlxIrOp *op;
          g_string_printf (l->name, "s%u gathered weights", s);
          out = scalar (l, l->name->str);
          g_string_printf (l->name, "s%u ZeRO weight all-gather", s);
          op = add_op (l, l->name->str, PLX_IR_ALL_GATHER, &updated, 1, &out, 1, &dev, 1, PLX_KIND_DP_COMM,
                       st->zero_gather_s);
          op->stream = l->stream_dp;
        }
    }
}

static gboolean check_program_size (const PlxPlan *plan, GError **error);

/* A min-heap of stage numbers. */
static void
heap_push (guint *heap, gsize *len, guint s)
{
  gsize i = (*len)++;

  while (i > 0 && heap[(i - 1) / 2] > s)
    {
      heap[i] = heap[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  heap[i] = s;
}

static guint
heap_pop (guint *heap, gsize *len)
{
  guint top = heap[0], last = heap[--(*len)];
  gsize i = 0;

  for (;;)
    {
      gsize c = 2 * i + 1;
      if (c >= *len)
        break;
      if (c + 1 < *len && heap[c + 1] < heap[c])
        c++;
      if (heap[c] >= last)
        break;
      heap[i] = heap[c];
      i = c;
    }
  if (*len > 0)
    heap[i] = last;
  return top;
}

/* Round after round, each stage in increasing order runs its entries as far as
 * their inputs are written. A pass's input comes from the stage before or after it
 * (chunk k's neighbours k - 1 and k + 1), so a stage none of whose neighbours wrote
 * since its last turn would stop where it stopped: it is skipped. A neighbour
 * further on in the round puts it in this round, one already passed in the next. */
static void
emit_order (Lower *l, GArray **stages, guint *next)
{
  guint pp = l->plan->pp;
  g_autofree guint *now = g_new (guint, pp), *later = g_new (guint, pp);
  g_autofree guint64 *queued = g_new (guint64, pp); /* round + 1 it is queued for */
  gsize n_now = pp, n_later = 0;

  for (guint s = 0; s < pp; s++)
    {
      now[s] = s;       /* sorted: a heap */
      queued[s] = 1;
    }
  for (guint64 round = 0; n_now > 0; round++)
    {
      while (n_now > 0)
        {
          guint s = heap_pop (now, &n_now), wake[2] = { (s + 1) % pp, (s + pp - 1) % pp };
          gboolean wrote = FALSE;

          while (next[s] < stages[s]->len)
            {
              const PlxScheduleEntry *e = &g_array_index (stages[s], PlxScheduleEntry, next[s]);
              if (!input_emitted (l, s, e))
                break;
              emit_pass (l, s, next[s], e);
              next[s]++;
              wrote = TRUE;
            }
          for (guint j = 0; wrote && j < 2; j++)
            {
              guint n = wake[j];
              if (n > s && queued[n] != round + 1)
                {
                  queued[n] = round + 1;
                  heap_push (now, &n_now, n);
                }
              else if (n < s && queued[n] != round + 2)
                {
                  queued[n] = round + 2;
                  later[n_later++] = n;
                }
            }
        }
      /* The next round's stages, in increasing order (a sorted array is a heap). */
      for (gsize i = 0; i < n_later; i++)
        heap_push (now, &n_now, later[i]);
      n_later = 0;
    }
}

static PlxIrGraph *
lower (const PlxPlan *plan, const PlxScheduleOrder *order, guint8 **op_kinds, guint **done_op, guint **ready_op,
       GError **error)
{
  Lower l = { 0 };
  guint pp = plan->pp;
  g_autofree guint *next = g_new0 (guint, pp);
  gsize n;
  gboolean complete = TRUE;
  PlxIrGraph *graph;
  GArray **stages;

  g_return_val_if_fail (order->pp == pp && order->virtual_stages == plan->virtual_stages &&
                        order->micro_batches == plan->micro_batches, NULL);
  if (!check_program_size (plan, error))
    return NULL;
  stages = plx_schedule_order_get_stages (order);
  l.plan = plan;
  l.order = order;
  l.K = pp * plan->virtual_stages;
  l.m = plan->micro_batches;
  n = (gsize) l.K * l.m;
  l.g = plx_ir_graph_new (pp);
  l.g->overlap_slowdown = plan->overlap_slowdown;
  l.kinds = g_array_new (FALSE, FALSE, sizeof (guint8));
  l.fwd_out = g_new (guint, n);
  l.bwd_out = g_new (guint, n);
  l.saved_b = g_new (guint, n);
  l.saved_w = g_new (guint, n);
  for (gsize i = 0; i < n; i++)
    l.fwd_out[i] = l.bwd_out[i] = l.saved_b[i] = l.saved_w[i] = NONE;
  l.last = g_new (guint, pp);
  l.last_bucket = g_new (guint, pp);
  l.grad_chunks = g_array_new (FALSE, FALSE, sizeof (GArray *));
  for (guint s = 0; s < pp; s++)
    {
      GArray *a = g_array_new (FALSE, FALSE, sizeof (guint));
      l.last[s] = l.last_bucket[s] = NONE;
      g_array_append_val (l.grad_chunks, a);
    }
  /* A chunk's gradients are final after its last backward pass, or its last W pass
   * when the schedule splits them off (plx-sim.c). */
  l.grad_entry = g_new (guint, l.K);
  for (guint k = 0; k < l.K; k++)
    l.grad_entry[k] = NONE;
  for (guint s = 0; s < pp; s++)
    for (guint j = 0; j < stages[s]->len; j++)
      {
        const PlxScheduleEntry *e = &g_array_index (stages[s], PlxScheduleEntry, j);
        if (e->pass == (order->split_backward ? PLX_PASS_WEIGHT_GRAD : PLX_PASS_BACKWARD))
          l.grad_entry[e->chunk * pp + s] = j;
      }
  l.stream_tp = plx_ir_graph_stream (l.g, "tp");
  l.stream_dp = plx_ir_graph_stream (l.g, "dp");
  l.stream_recv_fwd = plx_ir_graph_stream (l.g, "recv-activations");
  l.stream_recv_bwd = plx_ir_graph_stream (l.g, "recv-gradients");
  l.name = g_string_new (NULL);
  l.points = g_array_new (FALSE, FALSE, sizeof (PassPoint));

  /* Each stage as far as its inputs have been written, until none can go on: an
   * order in which every op reads what ops before it wrote. In rounds, stages in
   * increasing order; only a stage whose neighbour wrote something since it was last
   * looked at can go on (emit_order), which keeps the order of sweeping all stages
   * each round without the p rounds x p stages that took a minute at 40,000 stages. */
  emit_order (&l, stages, next);
  for (guint s = 0; s < pp && complete; s++)
    if (next[s] < stages[s]->len)
      {
        const PlxScheduleEntry *e = &g_array_index (stages[s], PlxScheduleEntry, next[s]);
        g_autofree char *name = plx_schedule_entry_to_string (e);
        g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                     "schedule: stage %u, entry %u (%s) never gets its input: the order deadlocks", s, next[s], name);
        complete = FALSE;
      }
  if (complete)
    emit_step (&l, done_op, ready_op);

  g_free (l.fwd_out);
  g_free (l.bwd_out);
  g_free (l.saved_b);
  g_free (l.saved_w);
  g_free (l.last);
  g_free (l.last_bucket);
  g_free (l.grad_entry);
  for (guint s = 0; s < pp; s++)
    g_array_unref (g_array_index (l.grad_chunks, GArray *, s));
  g_array_unref (l.grad_chunks);
  g_string_free (l.name, TRUE);
  g_array_unref (l.points);
  graph = l.g;
  if (!complete)
    {
      plx_ir_graph_free (graph);
      g_array_unref (l.kinds);
      return NULL;
    }
  if (op_kinds != NULL)
    *op_kinds = (guint8 *) (void *) g_array_free (l.kinds, FALSE);
  else
    g_array_unref (l.kinds);
  return graph;
}

PlxIrGraph *
plx_ir_lower_plan (const PlxPlan          *plan,
                   const PlxScheduleOrder *order,
                   guint8                **op_kinds,
                   GError                **error)
{
  g_autofree guint *done_op = NULL, *ready_op = NULL;

  return lower (plan, order, op_kinds, &done_op, &ready_op, error);
}

/* At least as many ops as the lowering writes: each task of each pass of each
 * micro-batch, a pass's begin and end markers and its send; per chunk the gradient
 * buckets (one op per task of its last pass at most, or one) and, when they overlap
 * that pass, the pieces its tasks are cut into and a bucket op for each (n buckets
 * cut at most n - 1 times); per stage six step ops. */
static double
program_ops (const PlxPlan *plan)
{
  guint K = plan->pp * plan->virtual_stages, passes = plan->split_backward ? 3 : 2;
  double per_micro_batch = 0.0, once = 6.0 * plan->pp;

  for (guint k = 0; k < K; k++)
    {
      for (guint p = 0; p < passes; p++)
        per_micro_batch += plan->chunks[k].pass[p].n_tasks + 3.0;
      once += plan->chunks[k].pass[passes - 1].n_tasks + 1.0;
      if (plan->overlap_dp_comm && plan->zero_stage < 3 && plan->stages[k % plan->pp].grad_bucket_s > 0.0)
        once += 2.0 * plx_max (1.0, round (plan->chunks[k].grad_bytes / plan->stages[k % plan->pp].grad_bucket_bytes));
    }
  return per_micro_batch * (double) plan->micro_batches + once;
}

/* The IR simulator's limit, asked before millions of ops are built: a step of 4
 * million micro-batches passes the event engine's pass limit on one stage, and took
 * 7 GB and minutes to lower. */
static gboolean
check_program_size (const PlxPlan *plan, GError **error)
{
  double ops = program_ops (plan);

  if (ops <= PLX_IR_MAX_OPS)
    return TRUE;
  g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
               "strategy: %" G_GUINT64_FORMAT " micro-batches x %u stages x %u chunks is %.3g million ops, more than "
               "the IR engine's %d million ops; use the event engine",
               plan->micro_batches, plan->pp, plan->virtual_stages, ops / 1e6, PLX_IR_MAX_OPS / 1000000);
  return FALSE;
}

gboolean
plx_ir_plan_check_printable (const PlxPlan *plan,
                             GError       **error)
{
  double ops = program_ops (plan);

  /* Counted from the plan, before the program is built: building 200,000 ops only
   * to refuse them took 4 s and 760 MB, and past the IR engine's limit the lowering
   * refuses with "use the event engine", which `plan` has no use for. The count is
   * an upper bound (gpt2 at PP 2: 127 ops a micro-batch counted, 118 built). */
  if (ops <= PLX_IR_JSON_MAX_OPS)
    return TRUE;
  g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
               "plan --json: strategy: %" G_GUINT64_FORMAT " micro-batches x %u stages x %u chunks come to about %.0f "
               "ops, more than the %d a printed program holds; use fewer micro-batches or stages, or plan without "
               "--json (each task once, for one micro-batch)",
               plan->micro_batches, plan->pp, plan->virtual_stages, ops, PLX_IR_JSON_MAX_OPS);
  return FALSE;
}

gboolean
plx_ir_program_check_printable (const PlxIrGraph *program,
                                GError          **error)
{
  if (program->ops->len <= PLX_IR_JSON_MAX_OPS)
    return TRUE;
  g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
               "plan --json: the program has %u ops, more than the %d a printed program holds (about %d MB of "
               "JSON); use fewer micro-batches or layers, or plan without --json (each task once, for one micro-batch)",
               program->ops->len, PLX_IR_JSON_MAX_OPS, PLX_IR_JSON_MAX_OPS * 450 / 1000000);
  return FALSE;
}

static PlxIrGraph *
lower_scenario (const PlxModel *model, const PlxCluster *cluster, const PlxStrategy *s, PlxPlan **plan_out,
                guint8 **op_kinds, guint **done_op, guint **ready_op, GError **error)
{
  g_autoptr (PlxPlan) plan = NULL;
  g_autoptr (PlxScheduleOrder) order = NULL;
  PlxIrGraph *graph;

  if (s->workload == PLX_WORKLOAD_INFERENCE)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "strategy.workload: inference is reported by "
                   "plx_inference_run (parallax-cli simulate), not by the training engines");
      return NULL;
    }
  if (!plx_sim_prepare (model, cluster, s, &plan, &order, error))
    return NULL;
  graph = lower (plan, order, op_kinds, done_op, ready_op, error);
  if (graph != NULL && plan_out != NULL)
    *plan_out = g_steal_pointer (&plan);
  return graph;
}

PlxIrGraph *
plx_ir_lower_scenario (const PlxModel    *model,
                       const PlxCluster  *cluster,
                       const PlxStrategy *strategy,
                       PlxPlan          **plan_out,
                       guint8           **op_kinds,
                       GError           **error)
{
  g_autofree guint *done_op = NULL, *ready_op = NULL;

  return lower_scenario (model, cluster, strategy, plan_out, op_kinds, &done_op, &ready_op, error);
}

gboolean
plx_ir_run_scenario (const PlxModel    *model,
                     const PlxCluster  *cluster,
                     const PlxStrategy *s,
                     PlxReport         *report,
                     PlxTimeline      **timeline,
                     PlxMemoryTrace   **trace,
                     GError           **error)
{
  g_autoptr (PlxPlan) plan = NULL;
  g_autofree guint8 *kinds = NULL;
  g_autofree guint *done_op = NULL, *ready_op = NULL;
  g_autoptr (PlxIrGraph) graph = lower_scenario (model, cluster, s, &plan, &kinds, &done_op, &ready_op, error);
  PlxIrRun run;
  guint peak = 0;
  double kind_time[PLX_N_KINDS] = { 0 };

  if (graph == NULL || !plx_ir_simulate (graph, cluster, &run, error))
    return FALSE;
  /* The report describes the GPU with the highest memory peak, as the event
   * engine's does. */
  for (guint d = 1; d < run.n_devices; d++)
    if (run.device_peak_bytes[d] > run.device_peak_bytes[peak] * (1.0 + 1e-12))
      peak = d;
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PlxIrOp *op = graph->ops->pdata[i];
      if (kinds[i] == NO_KIND || kinds[i] == PLX_KIND_OPTIMIZER)
        continue;
      for (guint d = 0; d < op->n_devices; d++)
        if (op->devices[d] == peak)
          kind_time[kinds[i]] += run.op_end_s[i] - run.op_start_s[i];
    }
  /* The gradient reduction beyond the compute (with the contention it caused): from
   * the stage's last pass to its gradients ready; the tied all-reduce and ZeRO's
   * gathers are in kind_time. */
  plx_plan_report (plan, "ir", run.makespan_s, peak, run.device_peak_bytes[peak] - run.device_input_bytes[peak],
                   kind_time, run.op_start_s[ready_op[peak]] - run.op_start_s[done_op[peak]], report);
  if (timeline != NULL || trace != NULL)
    {
      /* Ranks are the plan's stages; the static memory by the plan's categories
       * (the program holds gradients as optimizer-step inputs of role state). */
      plx_ir_run_charts (graph, &run, kinds, timeline, trace);
      if (timeline != NULL)
        (*timeline)->per_device = FALSE;
      if (trace != NULL)
        {
          (*trace)->per_device = FALSE;
          for (guint st = 0; st < plan->pp; st++)
            for (guint c = 0; c < PLX_N_MEM; c++)
              (*trace)->static_bytes[(gsize) st * PLX_N_MEM + c] = c == PLX_MEM_ACTIVATIONS ? 0.0
                                                                    : plan->stages[st].static_bytes[c];
        }
    }
  plx_ir_run_clear (&run);
  return plx_sim_check_report (report, s, timeline, trace, error);
}
