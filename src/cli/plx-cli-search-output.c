/* The scenario header of every report, and a search's ranking as text, JSON and CSV:
 * one writer for search and merge (docs/sweeps.md), so a merged run prints what one
 * process would. */
#include <math.h>
#include <stdio.h>

#include "parallax/parallax.h"

#include "plx-cli-search-output.h"
#include "plx-cli-util.h"
#include "base/plx-output.h"
#include "optimize/plx-advice.h"

void
print_scenario_header (const PlxScenario *sc)
{
  const PlxStrategy *s = sc->strategy;
  g_autofree char *running = plx_scenario_describe (sc);
  g_autofree char *zero_note = plx_advice_zero_note (s);
  g_autofree char *params = plx_model_format_params (plx_model_get_n_params (sc->model));
  g_autofree char *chunks = s->schedule == PLX_SCHEDULE_INTERLEAVED_1F1B
                              ? g_strdup_printf (" (%u chunks)", s->virtual_stages) : g_strdup ("");

  /* Inside the line: "ZeRO 1 (no effect at ...)". */
  if (zero_note != NULL)
    zero_note[0] = g_ascii_tolower (zero_note[0]);

  printf ("Scenario          %s\n", sc->name);
  /* The stored name says what the file held; overrides may have changed it. A search
   * may run on a strategy that does not resolve (load_scenario, any_strategy). */
  if (s->dp == 0)
    printf ("Running           %s on %u GPUs: the strategy given does not resolve; every strategy is searched\n",
            sc->model->name, plx_cluster_get_n_gpus (sc->cluster));
  else
    printf ("Running           %s\n", running);
  printf ("Model             %s (%s parameters, %u layers)\n", sc->model->name, params, sc->model->n_layers);
  /* Blocks that differ (experts after dense blocks, sliding windows): said. */
  if (sc->model->experts > 0 || sc->model->arch.sliding_window > 0 || sc->model->arch.kv_lora_rank > 0)
    {
      g_autofree char *blocks = plx_model_describe_blocks (sc->model);
      printf ("                  %s\n", blocks);
    }
  /* Keys the config left out, given transformers' defaults: said, not hidden. */
  if (sc->model->assumed != NULL)
    printf ("                  assumed as transformers does for %s: %s\n", sc->model->model_type, sc->model->assumed);
  /* The checkpoint beside the config, where there is one, confirms the count. */
  if (sc->model->checkpoint_params > 0.0)
    {
      double counted = (double) plx_model_get_n_params (sc->model);
      double off = (counted - sc->model->checkpoint_params) / sc->model->checkpoint_params * 100.0;
      g_autofree char *held = plx_model_format_params ((guint64) llround (sc->model->checkpoint_params));
      printf ("                  its checkpoint holds %s parameters (model.safetensors.index.json): %s\n", held,
              fabs (off) < 0.05 ? "the same count"
                                : off > 0.0 ? "Parallax counts more" : "Parallax counts fewer");
      if (fabs (off) >= 0.05)
        printf ("                  (%+.1f %%: weights the config does not describe, or ones Parallax does not count)\n", off);
    }
  printf ("Cluster           %s: %u x %u %s\n", sc->cluster->name, sc->cluster->num_nodes,
          sc->cluster->gpus_per_node, sc->cluster->gpu_name);
  if (sc->cluster->compute_clock_factor < 1.0)
    {
      const PlxCluster *c = sc->cluster;
      g_autofree char *cap = c->power_limit_w > 0.0 && c->power_limit_w < c->tdp_w
                               ? g_strdup_printf ("capped at %.0f W of %.0f W", c->power_limit_w, c->tdp_w)
                               : g_strdup ("");
      g_autofree char *lock = c->clock_mhz > 0.0 && c->clock_mhz < c->boost_clock_mhz
                                ? g_strdup_printf ("clock locked at %.0f MHz of %.0f MHz", c->clock_mhz,
                                                   c->boost_clock_mhz)
                                : g_strdup ("");

      printf ("                  %s%s%s: tensor cores at %.1f %% of full speed\n", cap,
              cap[0] != '\0' && lock[0] != '\0' ? ", " : "", lock, 100.0 * c->compute_clock_factor);
    }
  if (s->dp == 0)
    {
      printf ("Strategy          global batch %" G_GUINT64_FORMAT ", sequence %" G_GUINT64_FORMAT
              " (the rest searched)\n", s->global_batch_size, s->seq_length);
      return;
    }
  {
    g_autofree char *etp = s->etp != 0 ? g_strdup_printf (", etp %u", s->etp) : g_strdup ("");
    printf ("Strategy          dp %u, tp %u, pp %u, cp %u, ep %u%s; micro-batch %" G_GUINT64_FORMAT
            ", global batch %" G_GUINT64_FORMAT ", sequence %" G_GUINT64_FORMAT "\n",
            s->dp, s->tp, s->pp, s->cp, s->ep, etp, s->micro_batch_size, s->global_batch_size, s->seq_length);
  }
  printf ("                  %s%s, recompute %s, ZeRO %u%s%s%s%s, %s%s%s\n", plx_schedule_to_string (s->schedule),
          chunks,
          plx_recompute_to_string (s->recompute), s->zero_stage,
          plx_strategy_zero3_once_per_step (s)      ? " (gathered once per step)"
          : s->zero_stage >= 3 && !plx_strategy_reshard_after_forward (s) ? " (kept gathered from forward to backward)"
                                                    : "",
          zero_note != NULL ? " (" : "", zero_note != NULL ? zero_note : "", zero_note != NULL ? ")" : "",
          plx_dtype_to_string (s->dtype),
          plx_strategy_fp8_param_gather (s) ? " (weights gathered in fp8)" : "",
          s->sequence_parallel ? ", sequence parallel" : "");
  if (sc->model->experts > 0)
    {
      double routed = (double) s->micro_batch_size * s->seq_length / s->cp * MAX (sc->model->experts_per_token, 1);
      double load = plx_strategy_moe_load (s, routed);
      const char *why = s->moe_capacity_factor > 0.0 ? "capacity factor, tokens beyond it dropped"
                        : s->ep <= 1                  ? "one rank holds every expert"
                        : s->moe_load_imbalance > 0.0 ? "stated imbalance"
                                                      : "random routing, dropless";

      printf ("Experts           top-%u of %u; the busiest rank computes %.3f x its even share (%s)\n",
              sc->model->experts_per_token, sc->model->experts, load, why);
    }
}

/* The layers of each model chunk the result runs with (its split is "auto" when the
 * search found uneven stages faster: search --uneven-stages). */
static guint *
result_layers (const PlxScenario *sc, const PlxSearchResult *r)
{
  return plx_analytic_layer_split (sc->model, sc->cluster, &r->strategy, NULL);
}

static void
result_to_json (JsonBuilder *b, const PlxScenario *sc, const PlxSearchResult *r)
{
  const PlxStrategy *s = &r->strategy;
  g_autofree guint *layers = result_layers (sc, r);

#define INT(k, v) json_builder_set_member_name (b, k); json_builder_add_int_value (b, (gint64) (v))
#define STR(k, v) json_builder_set_member_name (b, k); json_builder_add_string_value (b, v)
#define DBL(k, v) json_builder_set_member_name (b, k); json_builder_add_double_value (b, v)
#define BOOL(k, v) json_builder_set_member_name (b, k); json_builder_add_boolean_value (b, v)
  json_builder_begin_object (b);
  INT ("n_gpus", r->n_gpus);
  INT ("dp", s->dp);
  INT ("tp", s->tp);
  INT ("pp", s->pp);
  INT ("cp", s->cp);
  INT ("ep", s->ep);
  INT ("micro_batch_size", s->micro_batch_size);
  INT ("global_batch_size", s->global_batch_size);
  INT ("seq_length", s->seq_length);
  STR ("schedule", plx_schedule_to_string (s->schedule));
  INT ("virtual_stages", s->virtual_stages);
  STR ("recompute", plx_recompute_to_string (s->recompute));
  INT ("zero_stage", s->zero_stage);
  STR ("dtype", plx_dtype_to_string (s->dtype));
  BOOL ("sequence_parallel", s->sequence_parallel);
  BOOL ("flash_attention", s->flash_attention);
  DBL ("step_time_s", r->step_time_s);
  DBL ("analytical_step_time_s", r->analytical_step_time_s);
  STR ("engine", r->event ? "event" : "analytical");
  DBL ("mfu", r->mfu);
  DBL ("tokens_per_s", r->tokens_per_s);
  INT ("peak_memory_bytes", r->peak_memory_bytes);
  BOOL ("fits_in_memory", r->fits_in_memory);
  BOOL ("pareto", r->pareto);
  BOOL ("pareto_gpus", r->pareto_gpus);
  json_builder_set_member_name (b, "layers_per_stage");
  json_builder_begin_array (b);
  for (guint k = 0; layers != NULL && k < s->pp * s->virtual_stages; k++)
    json_builder_add_int_value (b, layers[k]);
  json_builder_end_array (b);
  BOOL ("layers_per_stage_auto", s->layers_per_stage_auto);
  json_builder_end_object (b);
#undef INT
#undef STR
#undef DBL
#undef BOOL
}

static char *
results_to_csv (const PlxSearch *search)
{
  GString *out = g_string_new ("n_gpus,dp,tp,pp,cp,ep,micro_batch_size,global_batch_size,seq_length,schedule,"
                               "virtual_stages,recompute,zero_stage,dtype,sequence_parallel,flash_attention,"
                               "step_time_s,engine,mfu,tokens_per_s,peak_memory_bytes,fits_in_memory,pareto,"
                               "analytical_step_time_s,pareto_gpus\n");

  for (guint i = 0; i < search->results->len; i++)
    {
      const PlxSearchResult *r = &g_array_index (search->results, PlxSearchResult, i);
      const PlxStrategy *s = &r->strategy;
      g_string_append_printf (out, "%u,%u,%u,%u,%u,%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                              ",%s,%u,%s,%u,%s,%s,%s,%.9g,%s,%.6g,%.6g,%" G_GUINT64_FORMAT ",true,%s,%.9g,%s\n",
                              r->n_gpus, s->dp, s->tp, s->pp, s->cp, s->ep, s->micro_batch_size, s->global_batch_size,
                              s->seq_length, plx_schedule_to_string (s->schedule), s->virtual_stages,
                              plx_recompute_to_string (s->recompute), s->zero_stage, plx_dtype_to_string (s->dtype),
                              s->sequence_parallel ? "true" : "false", s->flash_attention ? "true" : "false",
                              r->step_time_s, r->event ? "event" : "analytical", r->mfu, r->tokens_per_s,
                              r->peak_memory_bytes, r->pareto ? "true" : "false", r->analytical_step_time_s,
                              r->pareto_gpus ? "true" : "false");
    }
  return g_string_free (out, FALSE);
}

int
plx_cli_search_report (const PlxScenario *sc,
                       const PlxSearch   *search,
                       guint              top,
                       gboolean           json,
                       const char        *csv)
{
  g_autoptr (GError) error = NULL;

  if (csv != NULL)
    {
      g_autofree char *text = results_to_csv (search);
      if (!plx_output_write_file (csv, text, -1, &error))
        return user_error (error);
    }

  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      g_autoptr (JsonNode) root = NULL;
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "configs_evaluated");
      json_builder_add_int_value (b, (gint64) search->configs_evaluated);
      json_builder_set_member_name (b, "configs_valid");
      json_builder_add_int_value (b, (gint64) search->configs_valid);
      json_builder_set_member_name (b, "configs_fit");
      json_builder_add_int_value (b, (gint64) search->configs_fit);
      json_builder_set_member_name (b, "pruned_model_states");
      json_builder_add_int_value (b, (gint64) search->pruned_model_states);
      json_builder_set_member_name (b, "pruned_activations");
      json_builder_add_int_value (b, (gint64) search->pruned_activations);
      json_builder_set_member_name (b, "elapsed_s");
      json_builder_add_double_value (b, search->elapsed_s);
      json_builder_set_member_name (b, "results");
      json_builder_begin_array (b);
      for (guint i = 0; i < MIN (top, search->results->len); i++)
        result_to_json (b, sc, &g_array_index (search->results, PlxSearchResult, i));
      json_builder_end_array (b);
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      print_json (root);
      return 0;
    }

  print_scenario_header (sc);
  printf ("Searched          %" G_GUINT64_FORMAT " configurations, %" G_GUINT64_FORMAT " valid, %" G_GUINT64_FORMAT
          " fit in memory, in %.3f s on %u threads\n", search->configs_evaluated, search->configs_valid,
          search->configs_fit, search->elapsed_s, search->n_threads);
  printf ("Pruned            %" G_GUINT64_FORMAT " whose weights, gradients and optimizer state alone exceed memory, %"
          G_GUINT64_FORMAT " whose activations do\n", search->pruned_model_states, search->pruned_activations);
  if (search->results->len == 0)
    {
      printf ("No strategy fits in memory.\n");
      return 0;
    }
  printf ("\n%4s %6s %4s %4s %4s %4s %5s %4s  %-20s %-9s %4s %3s %10s %6s %10s %s\n", "rank", "GPUs", "TP", "PP", "CP",
          "EP", "DP", "mbs", "schedule", "recompute", "ZeRO", "SP", "step", "MFU", "memory", "");
  for (guint i = 0; i < MIN (top, search->results->len); i++)
    {
      const PlxSearchResult *r = &g_array_index (search->results, PlxSearchResult, i);
      const PlxStrategy *s = &r->strategy;
      g_autofree char *sched = s->virtual_stages > 1 ? g_strdup_printf ("%s x%u", plx_schedule_to_string (s->schedule), s->virtual_stages)
                                                     : g_strdup (plx_schedule_to_string (s->schedule));
      printf ("%4u %6u %4u %4u %4u %4u %5u %4" G_GUINT64_FORMAT "  %-20s %-9s %4u %3s %8.3f s %5.1f%% %6.2f GiB %s%s\n", i + 1,
              r->n_gpus, s->tp, s->pp, s->cp, s->ep, s->dp, s->micro_batch_size, sched, plx_recompute_to_string (s->recompute),
              s->zero_stage, s->sequence_parallel ? "yes" : "no", r->step_time_s, r->mfu * 100.0,
              r->peak_memory_bytes / 1073741824.0, r->event ? "" : "(closed form) ", r->pareto ? "pareto" : "");
      if (s->layers_per_stage_auto)
        {
          g_autofree guint *layers = result_layers (sc, r);
          printf ("%4s layers per stage (auto):", "");
          for (guint k = 0; layers != NULL && k < s->pp * s->virtual_stages; k++)
            printf ("%s%u", k > 0 ? "," : " ", layers[k]);
          printf ("\n");
        }
    }
  return 0;
}
