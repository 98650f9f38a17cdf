/* plx-graph-run.c: one run of the Graph page (plx-graph-run.h). */
#include "plx-graph-run.h"
#include "ir/plx-ir-fuse.h"
#include "ir/plx-ir-timeline.h"
#include "ir/plx-ir.h"
#include "ir/plx-partition-dag.h"

#define MIB 1048576.0
/* plx_fuse_search's budget, as `parallax-cli fuse` spends it: a few seconds on GPT-2. */
#define FUSE_SIMULATIONS 2000

static void
forward_clear (PlxGraphForward *f)
{
  plx_ir_graph_free (f->graph);
}

void
plx_graph_forward_unref (PlxGraphForward *f)
{
  g_atomic_rc_box_release_full (f, (GDestroyNotify) forward_clear);
}

void
plx_graph_job_free (PlxGraphJob *job)
{
  g_free (job->chunk_first);
  plx_graph_forward_unref (job->forward);
  plx_cluster_free (job->cluster);
  g_free (job->source);
  g_free (job);
}

void
plx_graph_run_free (PlxGraphRun *c)
{
  g_free (c->firsts);
  g_free (c->chunk_of);
  g_clear_pointer (&c->result, plx_result_unref);
  g_free (c);
}

gboolean
plx_graph_fusion_applies (const PlxIrParallel *par)
{
  return par->tp == 1 && par->pp == 1 && par->micro_batches == 1;
}

/* `program` with the job's fusion applied (a new program), and what it did in `c`;
 * NULL with `error` set if the unfused program does not run. */
static PlxIrGraph *
fuse (const PlxGraphJob *job, const PlxIrGraph *program, PlxGraphRun *c, GError **error)
{
  g_autoptr (PlxFuseSpace) space = plx_fuse_space_new (program);
  g_autoptr (PlxFusePlan) plan = NULL;
  PlxIrGraph *fused;

  if (job->fusion == PLX_GRAPH_FUSION_SEARCHED)
    {
      PlxFuseResult found;
      if (!plx_fuse_search (program, job->cluster, FUSE_SIMULATIONS, &found, error))
        return NULL;
      plan = plx_fuse_plan_copy (found.plan);
      c->unfused_s = found.none_s;
      plx_fuse_result_clear (&found);
    }
  else
    {
      PlxIrRun run;
      if (!plx_ir_simulate_timing (program, job->cluster, &run, error))
        return NULL;
      c->unfused_s = run.makespan_s;
      plx_ir_run_clear (&run);
      plan = plx_fuse_plan_new (space);
      if (job->fusion == PLX_GRAPH_FUSION_DDP)
        plx_fuse_plan_buckets_by_size (space, plan, MIB, 25.0 * MIB);
      else
        plx_fuse_plan_fuse_all (plan);
    }
  fused = plx_fuse_apply (space, plan, &c->kernels, NULL);
  if (fused == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "the fused program could not be ordered");
      return NULL;
    }
  c->gradients = space->n_grads;
  for (guint i = 0; i < plan->n_grads; i++)
    c->all_reduces += plan->cut[i] ? 1 : 0;
  return fused;
}

void
plx_graph_job_run (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  PlxGraphJob *job = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) training = plx_ir_training_graph (job->forward->graph, job->optimizer, job->source, &error);
  g_autoptr (PlxIrGraph) program = NULL;
  g_autoptr (PlxGraphRun) c = g_new0 (PlxGraphRun, 1);
  PlxResult *r;
  PlxIrRun run;

  (void) source;
  (void) cancellable;
  if (training != NULL)
    program = plx_ir_parallelize (training, &job->par, job->cluster, job->source, &error);
  if (program != NULL)
    {
      /* Where the forward ops were cut, for the partition view. */
      c->pp = job->par.pp;
      c->n_chunks = job->par.pp * MAX (job->par.virtual_stages, 1u);
      c->firsts = g_new (guint, c->n_chunks);
      if (!plx_ir_split_firsts (training, &job->par, job->cluster, c->firsts, job->source, NULL))
        g_clear_pointer (&c->firsts, g_free);
      /* A DAG split's chunks are not runs of ops: each op's chunk, as the run had it. */
      if (job->par.split == PLX_IR_SPLIT_DAG && c->n_chunks > 1)
        {
          g_autoptr (PlxDagPartition) part = plx_ir_dag_partition (training, job->cluster, job->par.micro_batches,
                                                                   c->n_chunks, PLX_DAG_ORDERED, job->source, NULL);
          if (part != NULL)
            {
              c->n_fwd = part->n_nodes;
              c->chunk_of = g_memdup2 (part->part, sizeof (guint) * MAX (part->n_nodes, 1u));
            }
        }
    }
  c->fusion = program != NULL && plx_graph_fusion_applies (&job->par) ? job->fusion : PLX_GRAPH_FUSION_NONE;
  if (c->fusion != PLX_GRAPH_FUSION_NONE)
    {
      PlxIrGraph *fused = fuse (job, program, c, &error);
      g_clear_pointer (&program, plx_ir_graph_free);
      program = fused;
    }
  if (program == NULL || !plx_ir_simulate (program, job->cluster, &run, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  r = g_atomic_rc_box_new0 (PlxResult);
  r->scenario_dir = g_strdup (".");
  r->max_micro_batch = G_MAXUINT64;
  plx_ir_run_charts (program, &run, NULL, &r->timeline, &r->trace);
  plx_ir_run_report (program, &run, job->cluster, &r->report);
  plx_ir_run_clear (&run);
  c->result = r;
  g_task_return_pointer (task, g_steal_pointer (&c), (GDestroyNotify) plx_graph_run_free);
}
