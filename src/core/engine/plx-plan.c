/* Lowering a scenario into the plan: tasks per chunk and pass, from the same costs
 * the analytical engine composes (plx-costing.c). Megatron-LM's order inside a block
 * (Shoeybi et al. 2019 §3, Korthikanti et al. 2022 §4.2.2): attention half, its TP
 * collective, MLP half, its TP collective; backward in reverse, with recompute first. */
#include <math.h>

#include "parallax/plx-error.h"
#include "parallax/plx-plan.h"
#include "parallax/plx-strategy.h"

#include "cost/plx-costing.h"

static const char *const stream_names[PLX_N_STREAMS] = { "compute", "tp", "pp", "dp" };
static const char *const kind_names[PLX_N_KINDS] = {
  "forward", "backward", "weight_grad", "recompute", "tp_comm", "pp_send", "dp_comm", "optimizer",
};

const char *
plx_stream_to_string (PlxStream stream)
{
  return stream_names[stream];
}

const char *
plx_task_kind_to_string (PlxTaskKind kind)
{
  return kind_names[kind];
}

/* Each label is written once into the plan's block: a 100,000-layer model names over
 * a million tasks, which interned strings kept for the life of the process (and the
 * quark table grew past a gigabyte over a few such plans). */
struct _PlxPlanLabels
{
  GStringChunk *text;
};

static PlxPlanLabels *
labels_new (void)
{
  PlxPlanLabels *labels = g_atomic_rc_box_new0 (PlxPlanLabels);

  labels->text = g_string_chunk_new (1 << 16);
  return labels;
}

static void
labels_clear (gpointer data)
{
  PlxPlanLabels *labels = data;

  g_string_chunk_free (labels->text);
}

PlxPlanLabels *
plx_plan_labels_ref (PlxPlanLabels *labels)
{
  return labels != NULL ? g_atomic_rc_box_acquire (labels) : NULL;
}

void
plx_plan_labels_unref (PlxPlanLabels *labels)
{
  if (labels != NULL)
    g_atomic_rc_box_release_full (labels, labels_clear);
}

typedef struct
{
  PlxPlan *plan;
  GArray  *tasks;
  GString *label;          /* the one being formatted */
} Builder;

static void
add (Builder     *b,
     PlxStream    stream,
     PlxTaskKind  kind,
     double       duration_s,
     double       flops,
     double       bytes,
     const char  *fmt,
     ...) G_GNUC_PRINTF (7, 8);

static void
add (Builder     *b,
     PlxStream    stream,
     PlxTaskKind  kind,
     double       duration_s,
     double       flops,
     double       bytes,
     const char  *fmt,
     ...)
{
  PlxPlanTask t;
  va_list args;

  if (duration_s <= 0.0)
    return;
  va_start (args, fmt);
  g_string_vprintf (b->label, fmt, args);
  va_end (args);
  t.stream = stream;
  t.kind = kind;
  t.label = g_string_chunk_insert_len (b->plan->labels->text, b->label->str, (gssize) b->label->len);
  t.duration_s = duration_s;
  t.flops = flops;
  t.bytes = bytes;
  g_array_append_val (b->tasks, t);
}

static void
finish_pass (Builder     *b,
             PlxPlanPass *pass)
{
  pass->n_tasks = b->tasks->len;
  pass->tasks = (PlxPlanTask *) (void *) g_array_free (b->tasks, FALSE);
  pass->duration_s = 0.0;
  for (guint i = 0; i < pass->n_tasks; i++)
    pass->duration_s += pass->tasks[i].duration_s;
  b->tasks = g_array_new (FALSE, FALSE, sizeof (PlxPlanTask));
}

static void
lower_chunk (Builder             *b,
             const PlxCosting    *cx,
             const PlxStageCosts *c,
             const PlxZero3Comm  *zero3,
             PlxPlanChunk        *chunk,
             gboolean             first,
             gboolean             last,
             gboolean             split)
{
  const PlxStrategy *s = cx->strategy;
  const PlxBlockCost *attn = &c->attn, *mlp = &c->mlp, *pre = &c->embedding, *post = &c->head;
  gboolean full = s->recompute == PLX_RECOMPUTE_FULL;
  double ws = split ? 1.0 : 0.0;   /* weight gradients move to W when split */
  double zero3_fwd, zero3_bwd;

  /* ZeRO-3's gathers and reduce-scatters, as far as they outlast the compute they
   * are prefetched under (plx_costing_zero3_pass): shown at the pass's start. */
  plx_costing_zero3_pass (cx, c, zero3, chunk->n_layers, first, last, &zero3_fwd, &zero3_bwd);
  add (b, PLX_STREAM_DP, PLX_KIND_DP_COMM, zero3_fwd, 0, 0, "ZeRO-3 weight gathers (exposed)");

  /* Forward. */
  if (first)
    {
      add (b, PLX_STREAM_COMPUTE, PLX_KIND_FORWARD, pre->fwd_s, pre->fwd_flops, pre->fwd_bytes, "embedding");
      add (b, PLX_STREAM_TP, PLX_KIND_TP_COMM, pre->comm_fwd_s, 0, pre->comm_bytes, "embedding TP");
    }
  for (guint l = chunk->first_layer; l < chunk->first_layer + chunk->n_layers; l++)
    {
      add (b, PLX_STREAM_COMPUTE, PLX_KIND_FORWARD, attn->fwd_s, attn->fwd_flops, attn->fwd_bytes, "layer %u attention", l);
      add (b, PLX_STREAM_TP, PLX_KIND_TP_COMM, attn->comm_fwd_s, 0, attn->comm_bytes, "layer %u attention TP", l);
      add (b, PLX_STREAM_COMPUTE, PLX_KIND_FORWARD, mlp->fwd_s, mlp->fwd_flops, mlp->fwd_bytes, "layer %u MLP", l);
      add (b, PLX_STREAM_TP, PLX_KIND_TP_COMM, mlp->comm_fwd_s, 0, mlp->comm_bytes, "layer %u MLP TP", l);
    }
  if (last)
    {
      add (b, PLX_STREAM_COMPUTE, PLX_KIND_FORWARD, post->fwd_s, post->fwd_flops, post->fwd_bytes, "LM head and loss");
      add (b, PLX_STREAM_TP, PLX_KIND_TP_COMM, post->comm_fwd_s, 0, post->comm_bytes, "LM head TP");
    }
  finish_pass (b, &chunk->pass[PLX_PASS_FORWARD]);

  /* Backward: input gradients (and weight gradients unless split), layers reversed. */
  add (b, PLX_STREAM_DP, PLX_KIND_DP_COMM, zero3_bwd, 0, 0, "ZeRO-3 gathers and gradient reduce-scatters (exposed)");
  if (last)
    {
      add (b, PLX_STREAM_COMPUTE, PLX_KIND_BACKWARD, post->bwd_s - ws * post->wgrad_s,
           post->bwd_flops * (split ? 0.5 : 1.0), post->bwd_bytes, "LM head and loss backward");
      add (b, PLX_STREAM_TP, PLX_KIND_TP_COMM, post->comm_bwd_s, 0, post->comm_bytes, "LM head TP backward");
    }
  for (guint l = chunk->first_layer + chunk->n_layers; l-- > chunk->first_layer;)
    {
      if (full)
        {
          add (b, PLX_STREAM_COMPUTE, PLX_KIND_RECOMPUTE, attn->recompute_s + mlp->recompute_s,
               attn->recompute_flops + mlp->recompute_flops, attn->fwd_bytes + mlp->fwd_bytes, "layer %u recompute", l);
          add (b, PLX_STREAM_TP, PLX_KIND_TP_COMM, attn->comm_recompute_s + mlp->comm_recompute_s, 0,
               attn->comm_bytes + mlp->comm_bytes, "layer %u recompute TP", l);
        }
      if (!full)
        {
          /* PyTorch's selective recompute re-runs part of every block (costing.c). */
          add (b, PLX_STREAM_COMPUTE, PLX_KIND_RECOMPUTE, mlp->recompute_s, mlp->recompute_flops, 0,
               "layer %u MLP recompute", l);
          add (b, PLX_STREAM_TP, PLX_KIND_TP_COMM, attn->comm_recompute_s + mlp->comm_recompute_s, 0,
               attn->comm_bytes + mlp->comm_bytes, "layer %u recompute TP", l);
        }
      add (b, PLX_STREAM_COMPUTE, PLX_KIND_BACKWARD, mlp->bwd_s - ws * mlp->wgrad_s,
           mlp->bwd_flops * (split ? 0.5 : 1.0), mlp->bwd_bytes, "layer %u MLP backward", l);
      add (b, PLX_STREAM_TP, PLX_KIND_TP_COMM, mlp->comm_bwd_s, 0, mlp->comm_bytes, "layer %u MLP TP backward", l);
      if (!full)
        add (b, PLX_STREAM_COMPUTE, PLX_KIND_RECOMPUTE, attn->recompute_s, attn->recompute_flops, 0,
             "layer %u attention core recompute", l);
      add (b, PLX_STREAM_COMPUTE, PLX_KIND_BACKWARD, attn->bwd_s - ws * attn->wgrad_s,
           attn->bwd_flops * (split ? 0.5 : 1.0), attn->bwd_bytes, "layer %u attention backward", l);
      add (b, PLX_STREAM_TP, PLX_KIND_TP_COMM, attn->comm_bwd_s, 0, attn->comm_bytes, "layer %u attention TP backward", l);
    }
  if (first)
    add (b, PLX_STREAM_COMPUTE, PLX_KIND_BACKWARD, pre->bwd_s, 0, pre->bwd_bytes, "embedding backward");
  finish_pass (b, &chunk->pass[PLX_PASS_BACKWARD]);

  /* Weight gradients, when split off (Qi et al. 2023 §2). */
  if (split)
    {
      if (last)
        add (b, PLX_STREAM_COMPUTE, PLX_KIND_WEIGHT_GRAD, post->wgrad_s, post->bwd_flops * 0.5, 0, "LM head weight gradients");
      for (guint l = chunk->first_layer + chunk->n_layers; l-- > chunk->first_layer;)
        add (b, PLX_STREAM_COMPUTE, PLX_KIND_WEIGHT_GRAD, attn->wgrad_s + mlp->wgrad_s,
             (attn->bwd_flops + mlp->bwd_flops) * 0.5, 0, "layer %u weight gradients", l);
    }
  finish_pass (b, &chunk->pass[PLX_PASS_WEIGHT_GRAD]);
}

PlxPlan *
plx_plan_lower (const PlxModel    *model,
                const PlxCluster  *cluster,
                const PlxStrategy *s,
                GError           **error)
{
  if (s->workload == PLX_WORKLOAD_INFERENCE)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "strategy.workload: inference is reported by "
                   "plx_inference_run (parallax-cli simulate), not by the training engines");
      return NULL;
    }
  return plx_plan_lower_split (model, cluster, s, plx_schedule_splits_backward (s->schedule, s->pp), error);
}

PlxPlan *
plx_plan_lower_split (const PlxModel    *model,
                      const PlxCluster  *cluster,
                      const PlxStrategy *s,
                      gboolean           split_backward,
                      GError           **error)
{
  g_autoptr (PlxPlan) plan = NULL;
  PlxCosting cx;
  PlxStageCosts c;
  Builder b;
  PlxZero3Comm zero3;
  guint K, first_layer = 0;
  g_autofree guint *split = NULL;
  double wb, gb, ob;

  if (s->dp == 0 || s->seq_length == 0 || plx_strategy_get_n_micro_batches (s) == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "strategy: not resolved against the model and cluster (no micro-batches per step)");
      return NULL;
    }

  plx_costing_init (&cx, model, cluster, s, (double) s->micro_batch_size);
  plx_costing_compute (&cx, &c);
  plx_costing_grad_accumulation (&cx, &c);
  plx_costing_strategy_state_bytes (s, &wb, &gb, &ob);
  plx_costing_zero3_comm (&cx, &c, &zero3);
  split = plx_costing_layer_split (&cx, &c, &zero3);
  cx.chunk_layers = split;

  plan = g_new0 (PlxPlan, 1);
  plan->pp = s->pp;
  plan->virtual_stages = s->virtual_stages;
  plan->micro_batches = plx_strategy_get_n_micro_batches (s);
  plan->schedule = s->schedule;
  plan->zero_stage = s->zero_stage;
  plan->overlap_dp_comm = s->overlap_dp_comm;
  plan->overlap_slowdown = cluster->overlap_slowdown;
  plan->split_backward = split_backward;
  plan->send_s = c.send_s;
  plan->send_bytes = s->pp > 1 ? cx.act_bytes / s->tp : 0.0;
  plan->n_gpus = plx_cluster_get_n_gpus (cluster);
  plan->peak_flops = cluster->peak_flops[s->dtype];
  plan->hbm_bytes = (double) cluster->hbm_bytes;
  plan->hbm_usable_bytes = (double) (cluster->hbm_bytes - cluster->reserved_bytes);
  plan->tokens_per_step = (double) s->global_batch_size * s->seq_length;
  plan->layer_forward_s = c.layer.fwd_s + c.layer.comm_fwd_s;
  plan->layer_backward_s = c.layer.bwd_s + c.layer.comm_bwd_s + c.layer.recompute_s + c.layer.comm_recompute_s;
  /* As the analytical engine: Narayanan et al. 2021 §5.1 and Korthikanti 2022 §6. */
  plan->model_flops_per_step = 3.0 * plx_model_get_forward_flops (model, s->seq_length) * s->global_batch_size;
  plan->hardware_flops_per_step = plan->model_flops_per_step +
                                  c.layer.recompute_flops * model->n_layers * (double) plan->micro_batches *
                                    s->tp * s->cp * s->dp;

  K = s->pp * s->virtual_stages;
  plan->chunks = g_new0 (PlxPlanChunk, K);
  plan->stages = g_new0 (PlxPlanStage, s->pp);
  plan->labels = labels_new ();
  b.plan = plan;
  b.tasks = g_array_new (FALSE, FALSE, sizeof (PlxPlanTask));
  b.label = g_string_new (NULL);

  for (guint k = 0; k < K; k++)
    {
      PlxPlanChunk *chunk = &plan->chunks[k];
      gboolean first = k == 0, last = k == K - 1;
      guint layers_per_chunk = split != NULL ? split[k] : model->n_layers / K;
      double params = plx_costing_chunk_params (&cx, &c, k);

      chunk->stage = k % s->pp;
      chunk->chunk = k / s->pp;
      chunk->first_layer = first_layer;
      chunk->n_layers = layers_per_chunk;
      first_layer += layers_per_chunk;
      chunk->saved_bytes = layers_per_chunk * c.layer.saved_bytes + (first ? c.embedding.saved_bytes : 0.0) +
                           (last ? c.head.saved_bytes : 0.0);
      chunk->wgrad_saved_bytes = split_backward ? layers_per_chunk * c.layer.wgrad_saved_bytes : 0.0;
      chunk->transient_bytes = plx_costing_recompute_transient_bytes (s, &c.layer);
      chunk->grad_bytes = params * plx_costing_strategy_grad_bytes (s);
      lower_chunk (&b, &cx, &c, &zero3, chunk, first, last, plan->split_backward);
    }
  g_array_unref (b.tasks);
  g_string_free (b.label, TRUE);

  for (guint st = 0; st < s->pp; st++)
    {
      PlxPlanStage *stage = &plan->stages[st];
      PlxStageMemory mem;

      plx_costing_stage_memory (&cx, &c, st, &mem);
      stage->static_bytes[0] = mem.weights;
      stage->static_bytes[1] = mem.gradients;
      stage->static_bytes[2] = mem.optimizer;
      stage->static_bytes[4] = mem.other;
      stage->params = plx_costing_stage_params (&cx, &c, st);
      stage->optimizer_s = plx_costing_optimizer_time (&cx, &c, st);
      stage->tied_embedding_s = (st == 0 || st == s->pp - 1) ? plx_costing_tied_embedding_time (&cx) : 0.0;
      if (cx.dp_group.size > 1 && s->zero_stage < 3)
        {
          /* Buckets as PyTorch DDP and Megatron build them (Li et al. 2020 §3.2.3):
           * all-reduced, or with ZeRO reduce-scattered (Rajbhandari et al. 2020 §7);
           * ZeRO-1/2's weight gather after the step, as far as the next step's first
           * forward does not hide it. ZeRO-3's collectives are part of each pass
           * (lower_chunk). */
          double n, fwd = 0.0;
          plx_costing_grad_buckets (&cx, &c, st, &stage->grad_bucket_bytes, &stage->grad_bucket_s, &n);
          for (guint v = 0; v < s->virtual_stages; v++)
            fwd += plan->chunks[v * s->pp + st].pass[PLX_PASS_FORWARD].duration_s;
          stage->zero_gather_s = plx_costing_param_gather_exposed (&cx, &c, st, stage->grad_bucket_bytes, n, fwd);
        }
    }
  return g_steal_pointer (&plan);
}

void
plx_plan_report (const PlxPlan *plan,
                 const char    *engine,
                 double         step_s,
                 guint          stage,
                 double         activation_bytes,
                 const double  *kt,
                 double         dp_exposed_s,
                 PlxReport     *report)
{
  const PlxPlanStage *st = &plan->stages[stage];
  double busy = 0.0;
  double bytes[PLX_N_MEM] = { st->static_bytes[0], st->static_bytes[1], st->static_bytes[2], activation_bytes,
                              st->static_bytes[4] };

  *report = (PlxReport) { 0 };
  report->engine = engine;
  report->step_time_s = step_s;
  report->n_gpus = plan->n_gpus;
  report->tokens_per_s = plan->tokens_per_step / step_s;
  report->model_flops_per_step = plan->model_flops_per_step;
  report->hardware_flops_per_step = plan->hardware_flops_per_step;
  report->mfu = plan->model_flops_per_step / (step_s * plan->n_gpus * plan->peak_flops);
  report->hfu = plan->hardware_flops_per_step / (step_s * plan->n_gpus * plan->peak_flops);
  report->reported_stage = stage;
  report->layer_forward_s = plan->layer_forward_s;
  report->layer_backward_s = plan->layer_backward_s;
  report->hbm_bytes = (guint64) plan->hbm_bytes;
  report->hbm_usable_bytes = (guint64) plan->hbm_usable_bytes;
  report->peak_memory_bytes = 0;
  for (guint c = 0; c < PLX_N_MEM; c++)
    {
      report->memory_bytes[c] = bytes[c] >= 1.8e19 ? G_MAXUINT64 : (guint64) ceil (MAX (bytes[c], 0.0));
      report->peak_memory_bytes = report->memory_bytes[c] > G_MAXUINT64 - report->peak_memory_bytes
                                    ? G_MAXUINT64 : report->peak_memory_bytes + report->memory_bytes[c];
    }
  report->fits_in_memory = report->peak_memory_bytes <= report->hbm_usable_bytes;
  report->time_s[PLX_TIME_COMPUTE] = kt[PLX_KIND_FORWARD] + kt[PLX_KIND_BACKWARD] + kt[PLX_KIND_WEIGHT_GRAD];
  report->time_s[PLX_TIME_RECOMPUTE] = kt[PLX_KIND_RECOMPUTE];
  report->time_s[PLX_TIME_TP_COMM] = kt[PLX_KIND_TP_COMM];
  report->time_s[PLX_TIME_PP_COMM] = kt[PLX_KIND_PP_SEND];
  /* Once per step, and ZeRO-3's exposed part of each pass. */
  report->time_s[PLX_TIME_DP_COMM] = dp_exposed_s + kt[PLX_KIND_DP_COMM];
  report->time_s[PLX_TIME_OPTIMIZER] = st->optimizer_s;
  for (guint i = 0; i < PLX_N_TIME; i++)
    if (i != PLX_TIME_BUBBLE)
      busy += report->time_s[i];
  report->time_s[PLX_TIME_BUBBLE] = MAX (0.0, step_s - busy);
  report->bubble_fraction = report->time_s[PLX_TIME_BUBBLE] / step_s;
  report->stage_forward_s = plan->chunks[0].pass[0].duration_s * plan->virtual_stages;
  report->stage_backward_s = (plan->chunks[0].pass[1].duration_s + plan->chunks[0].pass[2].duration_s) *
                             plan->virtual_stages;
}

void
plx_plan_free (PlxPlan *plan)
{
  if (plan == NULL)
    return;
  if (plan->chunks != NULL)
    for (guint k = 0; k < plan->pp * plan->virtual_stages; k++)
      for (guint p = 0; p < 3; p++)
        g_free (plan->chunks[k].pass[p].tasks);
  g_free (plan->chunks);
  g_free (plan->stages);
  plx_plan_labels_unref (plan->labels);
  g_free (plan);
}

const PlxPlanChunk *
plx_plan_get_chunk (const PlxPlan *plan,
                    guint          stage,
                    guint          chunk)
{
  g_return_val_if_fail (stage < plan->pp && chunk < plan->virtual_stages, NULL);
  return &plan->chunks[chunk * plan->pp + stage];
}

static void
append_time (GString *out, double s)
{
  if (s >= 1.0)
    g_string_append_printf (out, "%9.3f s ", s);
  else if (s >= 1e-3)
    g_string_append_printf (out, "%9.3f ms", s * 1e3);
  else
    g_string_append_printf (out, "%9.1f us", s * 1e6);
}

char *
plx_plan_to_text (const PlxPlan *plan)
{
  static const char pass_letter[] = "FBW";
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "# plan: %u stages x %u chunks, %" G_GUINT64_FORMAT " micro-batches per step, schedule %s\n",
                          plan->pp, plan->virtual_stages, plan->micro_batches, plx_schedule_to_string (plan->schedule));
  g_string_append_printf (out, "# one micro-batch; stage-to-stage send: %.3g bytes in ", plan->send_bytes);
  append_time (out, plan->send_s);
  g_string_append (out, "\n# stage chunk pass stream  kind         label                                  FLOPs      bytes   duration\n");
  for (guint st = 0; st < plan->pp; st++)
    {
      const PlxPlanStage *stage = &plan->stages[st];

      for (guint c = 0; c < plan->virtual_stages; c++)
        {
          const PlxPlanChunk *chunk = plx_plan_get_chunk (plan, st, c);

          /* A chunk may hold no layer (only the embedding or the head). */
          if (chunk->n_layers == 0)
            g_string_append_printf (out, "# stage %u chunk %u (no layers): F allocates %.4g GiB of activations, ", st,
                                    c, chunk->saved_bytes / 1073741824.0);
          else
            g_string_append_printf (out, "# stage %u chunk %u (layers %u-%u): F allocates %.4g GiB of activations, ",
                                    st, c, chunk->first_layer, chunk->first_layer + chunk->n_layers - 1,
                                    chunk->saved_bytes / 1073741824.0);
          if (plan->split_backward)
            g_string_append_printf (out, "B frees %.4g GiB, W frees %.4g GiB",
                                    (chunk->saved_bytes - chunk->wgrad_saved_bytes) / 1073741824.0,
                                    chunk->wgrad_saved_bytes / 1073741824.0);
          else
            g_string_append (out, "B frees them");
          if (chunk->transient_bytes > 0.0)
            g_string_append_printf (out, "; B re-creates %.4g GiB a layer at a time", chunk->transient_bytes / 1073741824.0);
          g_string_append_c (out, '\n');
          for (guint p = 0; p < 3; p++)
            for (guint i = 0; i < chunk->pass[p].n_tasks; i++)
              {
                const PlxPlanTask *t = &chunk->pass[p].tasks[i];
                g_string_append_printf (out, "%5u %5u %4c %-7s %-12s %-36s %9.3e %9.3e ", st, c, pass_letter[p],
                                        stream_names[t->stream], kind_names[t->kind], t->label, t->flops, t->bytes);
                append_time (out, t->duration_s);
                g_string_append_c (out, '\n');
              }
        }
      if (stage->grad_bucket_s > 0.0)
        {
          g_string_append_printf (out, "%5u %5s %4s %-7s %-12s %-36s %9s %9.3e ", st, "-", "step", "dp", "dp_comm",
                                  plan->zero_stage ? "gradient bucket reduce-scatter" : "gradient bucket all-reduce",
                                  "", stage->grad_bucket_bytes);
          append_time (out, stage->grad_bucket_s);
          g_string_append_c (out, '\n');
        }
      if (stage->zero_gather_s > 0.0)
        {
          g_string_append_printf (out, "%5u %5s %4s %-7s %-12s %-36s %9s %9s ", st, "-", "step",
                                  "dp", "dp_comm", "ZeRO weight all-gather", "", "");
          append_time (out, stage->zero_gather_s);
          g_string_append_c (out, '\n');
        }
      if (stage->tied_embedding_s > 0.0)
        {
          g_string_append_printf (out, "%5u %5s %4s %-7s %-12s %-36s %9s %9s ", st, "-", "step", "dp", "dp_comm",
                                  "tied embedding all-reduce", "", "");
          append_time (out, stage->tied_embedding_s);
          g_string_append_c (out, '\n');
        }
      g_string_append_printf (out, "%5u %5s %4s %-7s %-12s %-36s %9s %9s ", st, "-", "step", "compute", "optimizer",
                              "Adam step", "", "");
      append_time (out, stage->optimizer_s);
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}
