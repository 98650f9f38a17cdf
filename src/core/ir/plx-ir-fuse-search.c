/* DisCo's search (Yi et al. 2022, arXiv 2209.12769 §4: a backtracking search over
 * op- and tensor-fusion decisions, driven by an estimator of the training step; the
 * estimator here is the IR simulator), its seeds and its baselines. docs/fusion.md. */
#include <math.h>
#include <string.h>

#include "parallax/plx-error.h"
#include "ir/plx-ir-fuse.h"
#include "cost/plx-op-cost.h"
#include "base/plx-minmax.h"

#define MIB 1048576.0

typedef struct
{
  const PlxFuseSpace *space;
  const PlxCluster   *cluster;
  guint               sims, max_sims;
  GHashTable         *seen;      /* plan key -> its step (double *) */
  GError             *error;     /* the first failure */
} Search;

static char *
plan_key (const PlxFusePlan *p)
{
  char *k = g_malloc (p->n_edges + p->n_grads + 2);
  guint n = 0;

  for (guint e = 0; e < p->n_edges; e++)
    k[n++] = p->fuse[e] ? '1' : '0';
  k[n++] = '|';
  for (guint i = 0; i < p->n_grads; i++)
    k[n++] = p->cut[i] ? '1' : '0';
  k[n] = '\0';
  return k;
}

/* The gradient all-reduces of a built program made free: what the step would take
 * with every reduction hidden. */
static void
free_reductions (PlxIrGraph *program)
{
  g_autoptr (PlxFuseSpace) s = plx_fuse_space_new (program);

  for (guint i = 0; i < s->n_grads; i++)
    ((PlxIrOp *) program->ops->pdata[s->grad_op[i]])->time_s = 0.0;
}

/* The plan's step, simulated (once per distinct plan). `ready` (optional, n_grads)
 * gets when each gradient is made. Negative if the program does not run. */
static double
evaluate (Search *s, PlxFusePlan *plan, double *ready, gboolean comm_free)
{
  g_autofree char *key = NULL;
  g_autoptr (PlxIrGraph) program = NULL;
  PlxIrRun run;
  double *known, step;

  if (!comm_free && ready == NULL)
    {
      key = plan_key (plan);
      known = g_hash_table_lookup (s->seen, key);
      if (known != NULL)
        return *known;
    }
  program = plx_fuse_apply (s->space, plan, NULL, NULL);
  if (program == NULL)
    return -1.0;
  if (!comm_free && ready == NULL)
    {
      g_free (key);
      key = plan_key (plan);   /* as applied: fusions that were not legal dropped */
      known = g_hash_table_lookup (s->seen, key);
      if (known != NULL)
        return *known;
    }
  if (comm_free)
    free_reductions (program);
  s->sims++;
  if (!plx_ir_simulate_timing (program, s->cluster, &run, s->error == NULL ? &s->error : NULL))
    return -1.0;
  step = run.makespan_s;
  if (ready != NULL)
    {
      /* Gradients by name: each keeps its tensor's name in the built program. */
      g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint t = 0; t < program->tensors->len; t++)
        g_hash_table_insert (by_name, ((PlxIrTensor *) program->tensors->pdata[t])->name, GUINT_TO_POINTER (t + 1));
      for (guint i = 0; i < s->space->n_grads; i++)
        {
          const PlxIrOp *ar = s->space->program->ops->pdata[s->space->grad_op[i]];
          const PlxIrTensor *g = s->space->program->tensors->pdata[ar->inputs[0]];
          guint t = GPOINTER_TO_UINT (g_hash_table_lookup (by_name, g->name));
          gint p = t > 0 ? ((PlxIrTensor *) program->tensors->pdata[t - 1])->producer : -1;
          ready[i] = p >= 0 ? run.op_end_s[p] : 0.0;
        }
    }
  plx_ir_run_clear (&run);
  if (key == NULL)
    key = plan_key (plan);
  if (!comm_free)
    g_hash_table_insert (s->seen, g_steal_pointer (&key), g_memdup2 (&step, sizeof step));
  return step;
}

/* One all-reduce of `bytes` on gradient i's devices, as the simulator costs it. */
typedef struct
{
  PlxIrGraph *g;
  guint       x;
  PlxIrOp    *op;
} Probe;

static void
probe_init (Probe *p, const PlxFuseSpace *s, guint i)
{
  const PlxIrOp *ar = s->program->ops->pdata[s->grad_op[i]];
  const PlxIrTensor *t = s->program->tensors->pdata[ar->inputs[0]];
  gint64 one = 1;
  guint y;

  p->g = plx_ir_graph_new (s->program->n_devices);
  p->x = plx_ir_graph_add_tensor (p->g, "x", 1, &one, t->dtype, PLX_IR_ROLE_DATA);
  y = plx_ir_graph_add_tensor (p->g, "y", 1, &one, t->dtype, PLX_IR_ROLE_DATA);
  p->op = plx_ir_graph_add_op (p->g, "ar", PLX_IR_ALL_REDUCE, &p->x, 1, &y, 1, ar->devices, ar->n_devices);
  p->op->groups = ar->groups;
}

static double
probe_time (Probe *p, const PlxCluster *cluster, double bytes, double bytes_per_element)
{
  ((PlxIrTensor *) p->g->tensors->pdata[p->x])->shape[0] = (gint64) plx_max (1.0, round (bytes / bytes_per_element));
  return plx_ir_op_time (p->g, p->op, cluster);
}

/* Buckets proposed from the gradients' ready times: one communication stream takes
 * the buckets in order, bucket b starting once the stream is free and its last
 * gradient is made and packed, so the time the stream finishes bucket ending at i is
 * F(i) = min over j of max(F(j), ready(j+1..i) + pack) + allreduce(j+1..i) + unpack,
 * a dynamic program over the last cut (exact for this model of the stream; the
 * simulator then judges it with the compute the copies delay). */
static void
buckets_from_ready (const Search *s, const double *ready, PlxFusePlan *plan)
{
  const PlxFuseSpace *sp = s->space;
  guint n = sp->n_grads;
  g_autofree double *f = g_new (double, n + 1);
  g_autofree guint *from = g_new (guint, n + 1);
  Probe probe = { NULL };
  guint segment = 0;

  f[0] = 0.0;
  for (guint i = 1; i <= n; i++)
    {
      const PlxIrOp *ar = sp->program->ops->pdata[sp->grad_op[i - 1]];
      double per_el = plx_ir_tensor_bytes (sp->program->tensors->pdata[ar->inputs[0]]) /
                      plx_max (1.0, (double) plx_ir_tensor_elements (sp->program->tensors->pdata[ar->inputs[0]]));
      double bytes = 0.0, last = 0.0;

      if (sp->grad_break[i - 1])
        {
          segment = i - 1;
          g_clear_pointer (&probe.g, plx_ir_graph_free);
          probe_init (&probe, sp, i - 1);
        }
      f[i] = G_MAXDOUBLE;
      from[i] = i - 1;
      for (guint j = i; j-- > segment;)
        {
          double copy, t;
          bytes += sp->grad_bytes[j];
          last = MAX (last, ready[j]);
          copy = j + 1 < i ? plx_memory_time (s->cluster, 2.0 * bytes) : 0.0;
          t = MAX (f[j], last + copy) + probe_time (&probe, s->cluster, bytes, per_el) + copy;
          if (t < f[i])
            f[i] = t, from[i] = j;
        }
    }
  g_clear_pointer (&probe.g, plx_ir_graph_free);
  for (guint i = 0; i < n; i++)
    plan->cut[i] = FALSE;
  for (guint i = n; i > 0; i = from[i])
    plan->cut[i - 1] = TRUE;
}

/* Horovod's tensor fusion (Sergeev & Del Balso 2018 §4; docs/tensor-fusion.rst): every
 * cycle it reduces the tensors made since the last, packed into a fusion buffer of
 * at most `threshold` bytes (a larger tensor alone). The 64 MB buffer and 5 ms cycle
 * were its defaults until 0.21. The wait for the next cycle is not charged. */
static void
horovod_buckets (const PlxFuseSpace *sp, const double *ready, double threshold, double cycle, PlxFusePlan *plan)
{
  double held = 0.0;

  for (guint i = 0; i < sp->n_grads; i++)
    {
      gboolean next_cycle = i + 1 < sp->n_grads && ceil (ready[i + 1] / cycle) != ceil (ready[i] / cycle);
      gboolean full = i + 1 < sp->n_grads && held + sp->grad_bytes[i] + sp->grad_bytes[i + 1] > threshold;
      held += sp->grad_bytes[i];
      plan->cut[i] = i + 1 == sp->n_grads || sp->grad_break[i + 1] || next_cycle || full;
      if (plan->cut[i])
        held = 0.0;
    }
}

typedef struct
{
  PlxFusePlan *plan;
  double       step;
  guint        next;   /* the next change to try */
} Frame;

static void
keep_best (PlxFusePlan **best, double *best_s, const PlxFusePlan *plan, double step)
{
  if (step >= 0.0 && step < *best_s)
    {
      plx_fuse_plan_free (*best);
      *best = plx_fuse_plan_copy (plan);
      *best_s = step;
    }
}

gboolean
plx_fuse_search (const PlxIrGraph *program,
                 const PlxCluster *cluster,
                 guint             max_simulations,
                 PlxFuseResult    *result,
                 GError          **error)
{
  g_autoptr (PlxFuseSpace) space = plx_fuse_space_new (program);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (Frame));
  g_autofree double *ready = g_new0 (double, MAX (space->n_grads, 1u));
  g_autoptr (PlxFusePlan) none = plx_fuse_plan_new (space);
  g_autoptr (PlxFusePlan) all = plx_fuse_plan_new (space);
  PlxFusePlan *best = NULL;
  double best_s = G_MAXDOUBLE;
  gint64 t0 = g_get_monotonic_time ();
  Search s = { space, cluster, 0, MAX (max_simulations, 1u), seen, NULL };
  guint n_moves = 1 + space->n_grads + space->n_edges, seeds;

  memset (result, 0, sizeof *result);
  /* The baselines, each also a seed of the search. */
  result->none_s = evaluate (&s, none, ready, FALSE);
  if (result->none_s < 0.0)
    {
      g_propagate_error (error, s.error);
      return FALSE;
    }
  keep_best (&best, &best_s, none, result->none_s);
  {
    g_autoptr (PlxFusePlan) p = plx_fuse_plan_copy (none);
    horovod_buckets (space, ready, 64.0 * MIB, 5e-3, p);
    result->horovod_s = evaluate (&s, p, NULL, FALSE);
    keep_best (&best, &best_s, p, result->horovod_s);
    buckets_from_ready (&s, ready, p);
    keep_best (&best, &best_s, p, evaluate (&s, p, NULL, FALSE));
    plx_fuse_plan_buckets_by_size (space, p, MIB, 25.0 * MIB);
    result->ddp_s = evaluate (&s, p, NULL, FALSE);
    keep_best (&best, &best_s, p, result->ddp_s);
  }
  plx_fuse_plan_fuse_all (all);
  result->elementwise_s = evaluate (&s, all, ready, FALSE);
  keep_best (&best, &best_s, all, result->elementwise_s);
  {
    g_autoptr (PlxFusePlan) p = plx_fuse_plan_copy (all);
    buckets_from_ready (&s, ready, p);
    keep_best (&best, &best_s, p, evaluate (&s, p, NULL, FALSE));
    plx_fuse_plan_buckets_by_size (space, p, MIB, 25.0 * MIB);
    keep_best (&best, &best_s, p, evaluate (&s, p, NULL, FALSE));
  }

  /* Backtracking from the best seed: a frame's changes in turn (0: buckets
   * re-proposed from this op fusion's ready times; then each bucket boundary
   * toggled; then each fusion edge); the first that shortens the step becomes a
   * frame of its own; a frame with none left is dropped, back to the one before. */
  g_array_append_val (stack, ((Frame) { plx_fuse_plan_copy (best), best_s, 0 }));
  seeds = s.sims;
  while (stack->len > 0 && s.sims - seeds < s.max_sims)
    {
      Frame *top = &g_array_index (stack, Frame, stack->len - 1);
      g_autoptr (PlxFusePlan) p = NULL;
      guint m;
      double step;

      if (top->next >= n_moves)
        {
          plx_fuse_plan_free (top->plan);
          g_array_set_size (stack, stack->len - 1);
          continue;
        }
      m = top->next++;
      p = plx_fuse_plan_copy (top->plan);
      if (m == 0)
        {
          g_autoptr (PlxFusePlan) alone = plx_fuse_plan_copy (p);
          for (guint i = 0; i < space->n_grads; i++)
            alone->cut[i] = TRUE;
          if (evaluate (&s, alone, ready, FALSE) < 0.0)
            continue;
          buckets_from_ready (&s, ready, p);
        }
      else if (m <= space->n_grads)
        {
          guint i = m - 1;
          /* A boundary where a bucket may end: not the last gradient, not before a
           * gradient that cannot join it. */
          if (i + 1 >= space->n_grads || space->grad_break[i + 1])
            continue;
          p->cut[i] = !p->cut[i];
        }
      else
        {
          guint e = m - 1 - space->n_grads;
          p->fuse[e] = !p->fuse[e];
        }
      step = evaluate (&s, p, NULL, FALSE);
      if (step >= 0.0 && step < top->step * (1.0 - 1e-9))
        {
          keep_best (&best, &best_s, p, step);
          g_array_append_val (stack, ((Frame) { g_steal_pointer (&p), step, 0 }));
        }
    }
  for (guint k = 0; k < stack->len; k++)
    plx_fuse_plan_free (g_array_index (stack, Frame, k).plan);

  /* The ideal bound: the op fusions seen (none, all, the one found) with every
   * gradient reduction free; any plan with one of them takes at least that. */
  {
    g_autoptr (PlxFusePlan) p = plx_fuse_plan_copy (best);
    double ideal = G_MAXDOUBLE;
    for (guint i = 0; i < space->n_grads; i++)
      p->cut[i] = none->cut[i];
    for (guint k = 0; k < 3; k++)
      {
        double t = evaluate (&s, k == 0 ? none : k == 1 ? all : p, NULL, TRUE);
        if (t >= 0.0)
          ideal = MIN (ideal, t);
      }
    result->ideal_s = ideal;
  }
  g_clear_error (&s.error);
  result->step_s = best_s;
  result->plan = best;
  result->simulations = s.sims;
  result->search_s = (g_get_monotonic_time () - t0) / 1e6;
  return TRUE;
}

void
plx_fuse_result_clear (PlxFuseResult *result)
{
  g_clear_pointer (&result->plan, plx_fuse_plan_free);
}
