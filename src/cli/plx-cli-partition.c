/* `parallax-cli partition SCENARIO`: a transformer scenario's layers over its pipeline
 * stages (docs/partition.md, "Transformer scenarios"). The split proposed is the
 * strategy's with "layers_per_stage": "auto" (plx-layer-split.c: the smallest largest
 * chunk time, sends counted); it is set beside the split a framework makes without
 * costs (plx_layer_split_uniform) and beside pure data parallelism, all three run by
 * the event engine. */
#include <stdio.h>

#include "parallax/parallax.h"

#include "plx-cli-partition.h"
#include "plx-cli-util.h"
#include "cost/plx-layer-split.h"

typedef struct
{
  gboolean ran;
  double   step_s;
  char    *why;      /* when not ran */
} Outcome;

static void
outcome_clear (Outcome *o)
{
  g_clear_pointer (&o->why, g_free);
}

/* The event engine's step; a strategy that does not fit in memory has none. */
static void
run_step (const PlxScenario *sc, const PlxStrategy *s, Outcome *out)
{
  g_autoptr (GError) error = NULL;
  PlxReport r;

  if (!plx_sim_run_scenario (sc->model, sc->cluster, s, &r, NULL, NULL, NULL, &error))
    {
      out->why = g_strdup (error->message);
      return;
    }
  if (!r.fits_in_memory)
    {
      out->why = g_strdup_printf ("needs %.2f GiB per GPU, %.2f GiB usable", r.peak_memory_bytes / 1073741824.0,
                                  r.hbm_usable_bytes / 1073741824.0);
      return;
    }
  out->ran = TRUE;
  out->step_s = r.step_time_s;
}

static void
clear_split (PlxStrategy *s)
{
  g_clear_pointer (&s->layers_per_stage, g_free);
  s->n_layers_per_stage = 0;
  s->layers_per_stage_auto = FALSE;
  s->first_stage_layers = s->last_stage_layers = 0;
}

/* The same GPUs as data parallelism alone: pp 1, dp times pp, one chunk. */
static void
run_data_parallel (const PlxScenario *sc, Outcome *out)
{
  g_autoptr (PlxStrategy) s = plx_strategy_copy (sc->strategy);
  g_autoptr (GError) error = NULL;

  clear_split (s);
  s->dp *= s->pp;
  s->pp = 1;
  s->virtual_stages = 1;
  if (s->schedule == PLX_SCHEDULE_INTERLEAVED_1F1B || s->schedule == PLX_SCHEDULE_FILE)
    s->schedule = PLX_SCHEDULE_1F1B;
  g_clear_pointer (&s->schedule_path, g_free);
  if (!plx_strategy_resolve (s, sc->model, sc->cluster, sc->name, &error))
    {
      out->why = g_strdup (error->message);
      return;
    }
  run_step (sc, s, out);
}

static char *
counts_to_string (const guint *counts, guint k)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < k; i++)
    g_string_append_printf (out, "%s%u", i > 0 ? "," : "", counts[i]);
  return g_string_free (out, FALSE);
}

static void
add_counts (JsonBuilder *b, const char *key, const guint *counts, guint k)
{
  json_builder_set_member_name (b, key);
  json_builder_begin_array (b);
  for (guint i = 0; i < k; i++)
    json_builder_add_int_value (b, counts[i]);
  json_builder_end_array (b);
}

static void
add_step (JsonBuilder *b, const char *key, const Outcome *o)
{
  json_builder_set_member_name (b, key);
  if (o->ran)
    json_builder_add_double_value (b, o->step_s);
  else
    json_builder_add_null_value (b);
}

/* What one stage's GPU does per micro-batch, from the plan of the proposed split. */
typedef struct
{
  double layers;
  double compute_s;   /* its chunks' forward, backward (and W) passes, TP collectives included */
  double send_s;      /* its chunks' sends: activations on, gradients back */
  double send_bytes;  /* activations sent on to the next stage */
  double peak_bytes;  /* weights, gradients, optimizer, other and the activation peak */
} StageRow;

static void
stage_rows (const PlxPlan *plan, const PlxMemoryTrace *trace, StageRow *rows)
{
  guint K = plan->pp * plan->virtual_stages;

  for (guint st = 0; st < plan->pp; st++)
    {
      StageRow *r = &rows[st];

      *r = (StageRow) { 0 };
      for (guint c = 0; c < plan->virtual_stages; c++)
        {
          guint k = c * plan->pp + st;
          const PlxPlanChunk *chunk = &plan->chunks[k];

          r->layers += chunk->n_layers;
          for (guint p = 0; p < 3; p++)
            r->compute_s += chunk->pass[p].duration_s;
          r->send_s += plan->send_s * ((k + 1 < K) + (k > 0));
          r->send_bytes += k + 1 < K ? plan->send_bytes : 0.0;
        }
      r->peak_bytes = trace->peak_activation_bytes[st];
      for (guint c = 0; c < PLX_N_MEM; c++)
        r->peak_bytes += trace->static_bytes[(gsize) st * PLX_N_MEM + c];
    }
}

int
plx_cli_partition_scenario (const PlxScenario *sc,
                            gboolean           json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxStrategy) proposed = plx_strategy_copy (sc->strategy);
  g_autoptr (PlxStrategy) uniform = plx_strategy_copy (sc->strategy);
  g_autoptr (PlxPlan) plan = NULL;
  g_autoptr (PlxMemoryTrace) trace = NULL;
  g_autofree guint *auto_counts = NULL, *uniform_counts = NULL;
  g_autofree StageRow *rows = NULL;
  g_autofree char *auto_text = NULL, *uniform_text = NULL;
  Outcome step = { 0 }, even = { 0 }, data = { 0 };
  const PlxStrategy *s = sc->strategy;
  guint K = s->pp * s->virtual_stages;
  const char *rule;
  double largest = 0.0;
  PlxReport report;

  if (s->workload == PLX_WORKLOAD_INFERENCE)
    return usage_error ("partition: strategy.workload \"inference\": the split is of a training step's pipeline");
  if (s->schedule == PLX_SCHEDULE_FILE)
    return usage_error ("partition: strategy.schedule is a schedule file; the split is proposed for the built-in "
                        "schedules");

  clear_split (proposed);
  proposed->layers_per_stage_auto = TRUE;
  if (!plx_sim_run_scenario (sc->model, sc->cluster, proposed, &report, &plan, NULL, &trace, &error))
    return user_error (error);
  if (report.fits_in_memory)
    step = (Outcome) { TRUE, report.step_time_s, NULL };
  else
    step.why = g_strdup_printf ("needs %.2f GiB per GPU, %.2f GiB usable", report.peak_memory_bytes / 1073741824.0,
                                report.hbm_usable_bytes / 1073741824.0);

  auto_counts = g_new (guint, K);
  for (guint k = 0; k < K; k++)
    auto_counts[k] = plan->chunks[k].n_layers;
  uniform_counts = g_new (guint, K);
  rule = plx_layer_split_uniform (sc->model->n_layers, K, uniform_counts);
  clear_split (uniform);
  uniform->layers_per_stage = g_memdup2 (uniform_counts, sizeof (guint) * K);
  uniform->n_layers_per_stage = K;
  run_step (sc, uniform, &even);
  run_data_parallel (sc, &data);

  rows = g_new (StageRow, s->pp);
  stage_rows (plan, trace, rows);
  for (guint st = 0; st < s->pp; st++)
    largest = MAX (largest, rows[st].compute_s + rows[st].send_s);
  auto_text = counts_to_string (auto_counts, K);
  uniform_text = counts_to_string (uniform_counts, K);

  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      g_autoptr (JsonNode) root = NULL;

      json_builder_begin_object (b);
#define INT(k, v) G_STMT_START { json_builder_set_member_name (b, k); json_builder_add_int_value (b, (gint64) (v)); } G_STMT_END
#define DBL(k, v) G_STMT_START { json_builder_set_member_name (b, k); json_builder_add_double_value (b, v); } G_STMT_END
#define STR(k, v) G_STMT_START { json_builder_set_member_name (b, k); json_builder_add_string_value (b, v); } G_STMT_END
      STR ("model", sc->model->name);
      INT ("n_layers", sc->model->n_layers);
      INT ("pp", s->pp);
      INT ("virtual_stages", s->virtual_stages);
      INT ("tp", s->tp);
      INT ("dp", s->dp);
      INT ("micro_batches", plan->micro_batches);
      add_counts (b, "layers_per_stage", auto_counts, K);
      DBL ("largest_stage_s", largest);
      json_builder_set_member_name (b, "stages");
      json_builder_begin_array (b);
      for (guint st = 0; st < s->pp; st++)
        {
          json_builder_begin_object (b);
          INT ("stage", st);
          INT ("n_layers", rows[st].layers);
          json_builder_set_member_name (b, "chunks");
          json_builder_begin_array (b);
          for (guint c = 0; c < s->virtual_stages; c++)
            {
              const PlxPlanChunk *chunk = &plan->chunks[c * s->pp + st];
              json_builder_begin_object (b);
              INT ("chunk", c * s->pp + st);
              INT ("first_layer", chunk->first_layer);
              INT ("n_layers", chunk->n_layers);
              json_builder_end_object (b);
            }
          json_builder_end_array (b);
          DBL ("compute_s", rows[st].compute_s);
          DBL ("send_s", rows[st].send_s);
          INT ("send_bytes", rows[st].send_bytes);
          INT ("peak_memory_bytes", rows[st].peak_bytes);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      add_step (b, "step_time_s", &step);
      add_counts (b, "even_split", uniform_counts, K);
      STR ("even_split_rule", rule);
      add_step (b, "even_split_step_time_s", &even);
      add_step (b, "data_parallel_step_time_s", &data);
      json_builder_set_member_name (b, "not_run");
      json_builder_begin_object (b);
      if (!step.ran)
        STR ("step_time_s", step.why);
      if (!even.ran)
        STR ("even_split_step_time_s", even.why);
      if (!data.ran)
        STR ("data_parallel_step_time_s", data.why);
      json_builder_end_object (b);
#undef INT
#undef DBL
#undef STR
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      print_json (root);
    }
  else
    {
      g_autofree char *chunks = s->virtual_stages > 1 ? g_strdup_printf (" x %u chunks", s->virtual_stages)
                                                      : g_strdup ("");

      printf ("%s over %u pipeline stages%s (tp %u, dp %u), %" G_GUINT64_FORMAT " micro-batches of %" G_GUINT64_FORMAT
              " sequences\n", sc->model->name, s->pp, chunks, s->tp, s->dp, plan->micro_batches, s->micro_batch_size);
      printf ("Split \"auto\"      %s (the smallest largest chunk time, sends counted); the slowest stage %.3f ms "
              "per micro-batch\n\n", auto_text, largest * 1e3);
      printf ("%5s  %-24s %16s %14s %14s %16s\n", "stage", "layers", "compute (ms/mb)", "sends (ms/mb)",
              "sent on (MiB)", "peak (GiB/GPU)");
      for (guint st = 0; st < s->pp; st++)
        {
          g_autoptr (GString) layers = g_string_new (NULL);
          for (guint c = 0; c < s->virtual_stages; c++)
            {
              const PlxPlanChunk *chunk = &plan->chunks[c * s->pp + st];
              if (chunk->n_layers == 0)  /* only the embedding or the head */
                g_string_append_printf (layers, "%s-", c > 0 ? "," : "");
              else
                g_string_append_printf (layers, "%s%u-%u", c > 0 ? "," : "", chunk->first_layer,
                                        chunk->first_layer + chunk->n_layers - 1);
            }
          g_string_append_printf (layers, " (%.0f)", rows[st].layers);
          printf ("%5u  %-24s %16.3f %14.3f %14.2f %16.2f\n", st, layers->str, rows[st].compute_s * 1e3,
                  rows[st].send_s * 1e3, rows[st].send_bytes / 1048576.0, rows[st].peak_bytes / 1073741824.0);
        }
      printf ("\n");
      if (step.ran)
        printf ("Step time         %.3f s with this split\n", step.step_s);
      else
        printf ("Step time         none with this split: %s\n", step.why);
      if (even.ran)
        printf ("                  %.3f s with the %s split %s\n", even.step_s, rule, uniform_text);
      else
        printf ("                  none with the %s split %s: %s\n", rule, uniform_text, even.why);
      if (data.ran)
        printf ("                  %.3f s as data parallel (pp 1, dp %u)\n", data.step_s, s->dp * s->pp);
      else
        printf ("                  none as data parallel (pp 1, dp %u): %s\n", s->dp * s->pp, data.why);
    }
  outcome_clear (&step);
  outcome_clear (&even);
  outcome_clear (&data);
  return 0;
}
