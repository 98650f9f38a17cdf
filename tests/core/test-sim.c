/* The event simulator: pipeline bubbles and activation peaks against the schedules'
 * theory on synthetic balanced plans, agreement with the analytical engine, the
 * timeline's consistency, the Chrome trace, and the accuracy bar. */
#include <locale.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "parallax/parallax.h"
#include "test-home.h"

#include "test-util.h"
#include "base/plx-json.h"
#include "cost/plx-pipeline.h"

/* A plan with identical stages: every chunk's forward takes f/v, backward b/v (and a
 * separate weight-gradient pass w/v when split), keeps 1 byte of activations, and
 * sends take `send` seconds. No data parallelism, no optimizer. */
static PlxPlan *
synthetic_plan (guint p, guint v, guint64 m, double f, double b, double w, double send, gboolean split)
{
  PlxPlan *plan = g_new0 (PlxPlan, 1);
  const double times[3] = { f / v, b / v, w / v };
  const PlxTaskKind kinds[3] = { PLX_KIND_FORWARD, PLX_KIND_BACKWARD, PLX_KIND_WEIGHT_GRAD };

  plan->pp = p;
  plan->virtual_stages = v;
  plan->micro_batches = m;
  plan->split_backward = split;
  plan->send_s = send;
  plan->n_gpus = p;
  plan->peak_flops = 1.0;
  plan->tokens_per_step = 1.0;
  plan->chunks = g_new0 (PlxPlanChunk, p * v);
  plan->stages = g_new0 (PlxPlanStage, p);
  for (guint k = 0; k < p * v; k++)
    {
      PlxPlanChunk *c = &plan->chunks[k];
      c->stage = k % p;
      c->chunk = k / p;
      c->saved_bytes = 1.0;
      for (guint i = 0; i < (split ? 3u : 2u); i++)
        {
          c->pass[i].n_tasks = 1;
          c->pass[i].tasks = g_new0 (PlxPlanTask, 1);
          c->pass[i].tasks[0].stream = PLX_STREAM_COMPUTE;
          c->pass[i].tasks[0].kind = kinds[i];
          c->pass[i].tasks[0].label = g_intern_static_string ("pass");
          c->pass[i].tasks[0].duration_s = times[i];
          c->pass[i].duration_s = times[i];
        }
    }
  return plan;
}

static void
run_synthetic (PlxSchedule schedule, guint p, guint v, guint64 m, double f, double b, double w,
               PlxReport *r, PlxMemoryTrace **trace, PlxTimeline **timeline)
{
  gboolean split = schedule == PLX_SCHEDULE_ZERO_BUBBLE_H1;
  g_autoptr (PlxPlan) plan = synthetic_plan (p, v, m, f, b, w, 0.0, split);
  g_autoptr (PlxScheduleOrder) order = plx_schedule_order_new (schedule, p, v, m);
  g_autoptr (GError) error = NULL;

  g_assert_true (plx_sim_run (plan, order, r, timeline, trace, NULL, &error));
  g_assert_no_error (error);
}

/* The samples a stage's passes make, replayed from the timeline's compute events in
 * the order the stage ran them, with the engine's arithmetic. */
static GArray *
replay_samples (const PlxPlan *plan, const PlxTimeline *tl, guint stage)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (PlxMemorySample));
  PlxTimelineIter iter;
  PlxTimelineEvent ev;
  double act = 0.0;

  for (plx_timeline_iter_init (&iter, tl); plx_timeline_iter_next (&iter, &ev);)
    {
      const PlxPlanChunk *c = &plan->chunks[ev.chunk * plan->pp + stage];
      PlxMemorySample sm;

      if (ev.rank != stage || ev.stream != PLX_STREAM_COMPUTE || ev.micro_batch == PLX_NO_MICRO_BATCH)
        continue;
      if (ev.kind == PLX_KIND_FORWARD)
        {
          sm = (PlxMemorySample) { ev.start_s, act += c->saved_bytes };
          g_array_append_val (out, sm);
          continue;
        }
      if (ev.kind == PLX_KIND_BACKWARD && c->transient_bytes > 0.0)
        {
          sm = (PlxMemorySample) { ev.start_s, act += c->transient_bytes };
          g_array_append_val (out, sm);
          sm = (PlxMemorySample) { ev.end_s, act += -c->transient_bytes };
          g_array_append_val (out, sm);
        }
      if (ev.kind == PLX_KIND_BACKWARD)
        sm = (PlxMemorySample) { ev.end_s, act += plan->split_backward ? -(c->saved_bytes - c->wgrad_saved_bytes)
                                                                       : -c->saved_bytes };
      else
        sm = (PlxMemorySample) { ev.end_s, act += -c->wgrad_saved_bytes };
      g_array_append_val (out, sm);
    }
  return out;
}

/* A trace kept as pass codes (or whole, past 42 chunks) reads back bit for bit what
 * the engine's passes did to memory: starts recomputed from the stage's free time
 * (with sends), B's transients, W's share. Times and bytes that are not round. */
static void
test_memory_trace_replay (void)
{
  const struct
  {
    PlxSchedule schedule;
    guint       p, v;
    guint64     m;
  } cases[] = {
    { PLX_SCHEDULE_GPIPE, 4, 1, 16 },
    { PLX_SCHEDULE_1F1B, 4, 1, 16 },
    { PLX_SCHEDULE_ZERO_BUBBLE_H1, 4, 1, 16 },
    { PLX_SCHEDULE_INTERLEAVED_1F1B, 4, 3, 16 },
    { PLX_SCHEDULE_INTERLEAVED_1F1B, 2, 43, 4 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gboolean split = cases[i].schedule == PLX_SCHEDULE_ZERO_BUBBLE_H1;
      guint p = cases[i].p, v = cases[i].v;
      g_autoptr (PlxPlan) plan = synthetic_plan (p, v, cases[i].m, 1.3, 2.7, split ? 0.9 : 0.0, 0.1, split);
      g_autoptr (PlxScheduleOrder) order = plx_schedule_order_new (cases[i].schedule, p, v, cases[i].m);
      g_autoptr (PlxTimeline) tl = NULL;
      g_autoptr (PlxMemoryTrace) trace = NULL;
      g_autoptr (GError) error = NULL;
      PlxReport r;
      guint64 total = 0;

      for (guint k = 0; k < p * v; k++)
        {
          plan->chunks[k].saved_bytes = 1.1 + 0.01 * k;
          plan->chunks[k].transient_bytes = k % 2 ? 0.3 : 0.0;
          plan->chunks[k].wgrad_saved_bytes = split ? 0.7 : 0.0;
        }
      g_assert_true (plx_sim_run (plan, order, &r, &tl, &trace, NULL, &error));
      g_assert_no_error (error);
      for (guint s = 0; s < p; s++)
        {
          g_autoptr (GArray) want = replay_samples (plan, tl, s);
          PlxMemoryTraceIter it;
          PlxMemorySample got;
          guint n = 0;

          g_assert_cmpuint (plx_memory_trace_n_samples (trace, s), ==, want->len);
          plx_memory_trace_iter_init (&it, trace, s);
          while (plx_memory_trace_iter_next (&it, &got))
            {
              g_assert_cmpuint (n, <, want->len);
              g_assert_cmpmem (&got, sizeof got, &g_array_index (want, PlxMemorySample, n), sizeof got);
              n++;
            }
          g_assert_cmpuint (n, ==, want->len);
          total += n;
        }
      /* Pass codes: at most 9 bytes a pass, against 16 a sample kept whole. */
      if (v * 3 <= 128)
        g_assert_cmpuint (plx_memory_trace_get_size (trace), <, total * sizeof (PlxMemorySample));
    }
}

static void
test_bubble_exact (void)
{
  /* Free communication, balanced stages: bubble (p - 1)/(m + p - 1) for GPipe and
   * 1F1B, (p - 1)/(v m + p - 1) interleaved (Narayanan et al. 2021 §2.2), to 1e-9. */
  const guint ps[] = { 2, 4, 8 };
  const guint64 ms[] = { 8, 16, 64 };

  for (guint i = 0; i < G_N_ELEMENTS (ps); i++)
    for (guint j = 0; j < G_N_ELEMENTS (ms); j++)
      {
        guint p = ps[i];
        guint64 m = ms[j];
        PlxReport r;

        run_synthetic (PLX_SCHEDULE_GPIPE, p, 1, m, 1.0, 2.0, 0.0, &r, NULL, NULL);
        g_assert_cmpfloat (fabs (r.bubble_fraction - plx_pipeline_bubble_fraction (m, p, 1)), <, 1e-9);
        g_assert_cmpfloat (fabs (r.step_time_s - (m + p - 1) * 3.0), <, 1e-9);
        run_synthetic (PLX_SCHEDULE_1F1B, p, 1, m, 1.0, 2.0, 0.0, &r, NULL, NULL);
        g_assert_cmpfloat (fabs (r.bubble_fraction - (p - 1.0) / (m + p - 1.0)), <, 1e-9);
        for (guint v = 2; v <= 4; v++)
          {
            if (m % p != 0)
              continue;
            run_synthetic (PLX_SCHEDULE_INTERLEAVED_1F1B, p, v, m, 1.0, 2.0, 0.0, &r, NULL, NULL);
            g_test_message ("interleaved p=%u v=%u m=%" G_GUINT64_FORMAT ": bubble %.12f, theory %.12f",
                            p, v, m, r.bubble_fraction, (p - 1.0) / (v * m + p - 1.0));
            g_assert_cmpfloat (fabs (r.bubble_fraction - (p - 1.0) / (v * m + p - 1.0)), <, 1e-9);
          }
      }
}

static void
test_zero_bubble_h1_time (void)
{
  /* F = B = W = 1 per stage: m (F + B + W) + (p - 1)(F + B - W) (Qi et al. 2023 §3.1);
   * 1F1B with the same work takes (m + p - 1)(F + B + W). */
  struct { guint p; guint64 m; } cases[] = { { 2, 2 }, { 4, 8 }, { 4, 16 } };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      PlxReport r;
      guint p = cases[i].p;
      guint64 m = cases[i].m;

      run_synthetic (PLX_SCHEDULE_ZERO_BUBBLE_H1, p, 1, m, 1.0, 1.0, 1.0, &r, NULL, NULL);
      g_test_message ("ZB-H1 p=%u m=%" G_GUINT64_FORMAT ": %.3f units", p, m, r.step_time_s);
      g_assert_cmpfloat (fabs (r.step_time_s - (3.0 * m + (p - 1.0))), <, 1e-9);
    }
}

/* A pipeline of 100,000 stages (issue 34: minutes, when the ZB-H1 order was found by
 * looking at every stage at every time step). F = B = W = 1 and m = 8 <= p: the
 * last micro-batch's forward reaches the last stage at m - 1 + p; there B and F
 * alternate (B first), so its last B ends at p + 2m - 1; that B walks back through
 * p - 1 stages, each idle by then (Ws fill only gaps), ending on stage 0 at
 * 2p + 2m - 2, and stage 0's last W follows: (m + p - 1)(F + B) + W = 2(m + p - 1) + 1
 * units, 1F1B's step less (m + p - 2) W, as test-analytic derives for m <= p. The
 * last stage's activations peak at its one micro-batch in flight, stage 0's at
 * min(m, p) = m (1 byte a micro-batch). */
static void
test_zero_bubble_h1_deep (void)
{
  guint p = 100000;
  guint64 m = 8;
  PlxReport r;
  g_autoptr (PlxMemoryTrace) trace = NULL;

  run_synthetic (PLX_SCHEDULE_ZERO_BUBBLE_H1, p, 1, m, 1.0, 1.0, 1.0, &r, &trace, NULL);
  g_test_message ("ZB-H1 p=%u m=%" G_GUINT64_FORMAT ": %.3f units", p, m, r.step_time_s);
  g_assert_cmpfloat (r.step_time_s, ==, 2.0 * (m + p - 1.0) + 1.0);
  g_assert_cmpfloat (trace->peak_activation_bytes[0], ==, (double) m);
  g_assert_cmpfloat (trace->peak_activation_bytes[p - 1], ==, 1.0);
}

static void
test_activation_peaks (void)
{
  /* 1 byte a micro-batch and chunk: the peak on stage i is the number in flight:
   * 1F1B p - i, GPipe m, interleaved 2(p - i - 1) + (v - 1) p + 1 chunks. */
  guint p = 4, v = 2;
  guint64 m = 8;
  PlxReport r;

  {
    g_autoptr (PlxMemoryTrace) trace = NULL;
    run_synthetic (PLX_SCHEDULE_1F1B, p, 1, m, 1.0, 2.0, 0.0, &r, &trace, NULL);
    for (guint i = 0; i < p; i++)
      g_assert_cmpfloat (trace->peak_activation_bytes[i], ==, p - i);
  }
  {
    g_autoptr (PlxMemoryTrace) trace = NULL;
    run_synthetic (PLX_SCHEDULE_GPIPE, p, 1, m, 1.0, 2.0, 0.0, &r, &trace, NULL);
    for (guint i = 0; i < p; i++)
      g_assert_cmpfloat (trace->peak_activation_bytes[i], ==, m);
  }
  {
    g_autoptr (PlxMemoryTrace) trace = NULL;
    run_synthetic (PLX_SCHEDULE_INTERLEAVED_1F1B, p, v, m, 1.0, 2.0, 0.0, &r, &trace, NULL);
    for (guint i = 0; i < p; i++)
      g_assert_cmpfloat (trace->peak_activation_bytes[i], ==, 2.0 * (p - i - 1) + (v - 1.0) * p + 1.0);
  }
  {
    /* ZB-H1 keeps 1F1B's peak (Qi et al. 2023 §3.1) when W needs nothing kept; and
     * the trace ends where it started: every byte allocated is freed. */
    g_autoptr (PlxMemoryTrace) trace = NULL;
    run_synthetic (PLX_SCHEDULE_ZERO_BUBBLE_H1, p, 1, m, 1.0, 1.0, 1.0, &r, &trace, NULL);
    for (guint i = 0; i < p; i++)
      {
        PlxMemoryTraceIter it;
        PlxMemorySample sm = { 0, -1.0 };

        plx_memory_trace_iter_init (&it, trace, i);
        while (plx_memory_trace_iter_next (&it, &sm))
          ;
        g_assert_cmpfloat (sm.activation_bytes, ==, 0.0);
        g_assert_cmpfloat (trace->peak_activation_bytes[i], ==, p - i);
      }
  }
}

static void
test_timeline_consistent (void)
{
  PlxTimelineIter ev_iter;
  PlxTimelineEvent ev_buf;
  /* On the default scenario: no two tasks overlap on a stage's compute stream; each
   * forward of stage s > 0 starts after the matching send from stage s - 1 ends. */
  g_autoptr (JsonNode) node = plx_scenario_default_json ();
  g_autoptr (PlxScenario) sc = plx_scenario_new_from_json (node, ".", "default", NULL);
  g_autoptr (PlxTimeline) tl = NULL;
  g_autoptr (PlxMemoryTrace) trace = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree double *last_end = NULL;
  PlxReport r;
  guint checked = 0;

  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &r, NULL, &tl, &trace, &error));
  last_end = g_new0 (double, tl->n_ranks);
  for (plx_timeline_iter_init (&ev_iter, tl); plx_timeline_iter_next (&ev_iter, &ev_buf);)
    {
      const PlxTimelineEvent *ev = &ev_buf;
      g_assert_cmpfloat (ev->end_s, >=, ev->start_s);
      g_assert_cmpfloat (ev->end_s, <=, r.step_time_s + 1e-9);
      if (ev->stream != PLX_STREAM_COMPUTE && ev->stream != PLX_STREAM_TP)
        continue;
      /* Compute and TP collectives alternate on the critical path, in order. */
      g_assert_cmpfloat (ev->start_s, >=, last_end[ev->rank] - 1e-12);
      last_end[ev->rank] = ev->end_s;
      checked++;
    }
  g_assert_cmpuint (checked, >, 1000);
  g_assert_cmpfloat (fabs (tl->step_time_s - r.step_time_s), <, 1e-12);
}

static void
test_agrees_with_analytic (void)
{
  /* Where the closed form is exact (stages alike but for the embedding and head),
   * the two engines agree within 3 %. */
  const char *scenarios[] = {
    "{ \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 8 },"
    "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 64, \"tp\": 8, \"pp\": 8, \"sequence_parallel\": true,"
    "                \"schedule\": \"interleaved-1f1b\", \"virtual_stages\": 3, \"recompute\": \"selective\" } }",
    "{ \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 16 },"
    "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 128, \"tp\": 8, \"pp\": 8, \"dp\": 2,"
    "                \"schedule\": \"1f1b\", \"recompute\": \"full\", \"zero_stage\": 1 } }",
    "{ \"model\": { \"preset\": \"megatron-22b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 2 },"
    "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 32, \"tp\": 8, \"pp\": 2, \"schedule\": \"gpipe\","
    "                \"recompute\": \"full\" } }",
    "{ \"model\": { \"preset\": \"llama-2-70b\" }, \"cluster\": { \"preset\": \"dgx-h100-80gb\", \"num_nodes\": 8 },"
    "  \"strategy\": { \"seq_length\": 4096, \"global_batch_size\": 256, \"tp\": 8, \"pp\": 4, \"dp\": 2,"
    "                \"flash_attention\": true, \"sequence_parallel\": true, \"zero_stage\": 1 } }",
    "{ \"model\": { \"preset\": \"llama-3-8b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 2 },"
    "  \"strategy\": { \"seq_length\": 8192, \"global_batch_size\": 64, \"tp\": 4, \"pp\": 2, \"dp\": 2,"
    "                \"schedule\": \"zero-bubble-h1\", \"flash_attention\": true } }",
    /* FSDP as torchtitan runs it: ZeRO-3 over 64 GPUs, two micro-batches. */
    "{ \"model\": { \"preset\": \"llama-2-13b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 8 },"
    "  \"strategy\": { \"seq_length\": 4096, \"global_batch_size\": 128, \"micro_batch_size\": 1, \"dp\": 64,"
    "                \"zero_stage\": 3, \"flash_attention\": true, \"recompute\": \"full\" } }",
  };

  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    {
      g_autoptr (PlxScenario) sc = test_scenario_from_string (scenarios[i]);
      g_autoptr (GError) error = NULL;
      PlxReport a = test_run (sc), e;

      g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &e, NULL, NULL, NULL, &error));
      g_test_message ("scenario %u: analytical %.4f s, event %.4f s", i, a.step_time_s, e.step_time_s);
      g_assert_cmpfloat (fabs (e.step_time_s - a.step_time_s) / a.step_time_s, <, 0.03);
      /* Same model, same batch: the same FLOPs. */
      g_assert_cmpfloat (e.model_flops_per_step, ==, a.model_flops_per_step);
    }
}

/* A small GPT-2 (4 layers, h = 1024, vocabulary and positions 1024) on one ideal node
 * of 8 GPUs, ZeRO-3 over all 8, one micro-batch of 1024 tokens. */
#define ZERO3_SCENARIO(intra_bw, overlap) \
  "{ \"model\": { \"model_type\": \"gpt2\", \"n_layer\": 4, \"n_embd\": 1024, \"n_head\": 16," \
  "              \"vocab_size\": 1024, \"n_positions\": 1024 }," \
  "  \"cluster\": " TEST_IDEAL_CLUSTER (1, intra_bw, 1e9) "," \
  "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 8, \"micro_batch_size\": 1, \"dp\": 8," \
  "                \"zero_stage\": 3, \"overlap_dp_comm\": " overlap " } }"

/* The small GPT-2's units below: a block 12h^2 + 13h = 12,596,224 parameters, the
 * embedding (words and positions) 2 x 1024 x 1024 = 2,097,152, the head only its
 * final norm (tied words), 2h = 2048. */
#define BLOCK_PARAMS 12596224.0
#define EMBED_PARAMS 2097152.0
#define HEAD_PARAMS 2048.0

/* All of a pass's 2-byte weight gathers over a ring of 8 GPUs at 1 GB/s: 7/8 x bytes / B
 * each (22.04 ms per block, 3.67 ms for the embedding, 3.6 us for the head). */
static double
gpt2_small_gathers (void)
{
  return 7.0 / 8.0 * (EMBED_PARAMS + 4.0 * BLOCK_PARAMS + HEAD_PARAMS) * 2.0 / 1e9;
}

static void
test_zero3_flow_shop (void)
{
  /* Per unit (embedding, each block, the head with its norm) FSDP gathers 2-byte
   * weights before its forward and backward and reduce-scatters 4-byte gradients
   * after its backward; a ring all-gather over 8 GPUs at B bytes/s takes 7/8 x
   * bytes / B (gpt2_small_gathers); compute is far shorter (a
   * block's forward is 3e10 FLOPs at 1e14 FLOP/s, 0.3 ms, with its memory-bound
   * ops under 0.6 ms), so a pass is its collectives back to back, plus the compute
   * of the last block (the head's gather hides under it) and of the head. */
  const double gathers = gpt2_small_gathers ();
  const char *bound[] = { ZERO3_SCENARIO (1e9, "true"), ZERO3_SCENARIO (1e9, "false") };

  for (guint i = 0; i < G_N_ELEMENTS (bound); i++)
    {
      g_autoptr (PlxScenario) sc = test_scenario_from_string (bound[i]);
      PlxReport a = test_run (sc), e;

      g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &e, NULL, NULL, NULL, NULL));
      g_test_message ("overlap %s: forward %.4f ms (gathers %.4f ms), backward %.4f ms",
                      i == 0 ? "on" : "off", e.stage_forward_s * 1e3, gathers * 1e3, e.stage_backward_s * 1e3);
      /* Forward: the gathers, then with overlap one block's and the head's compute
       * (under 1 ms); without, every unit's (four blocks, under 3 ms). */
      g_assert_cmpfloat (e.stage_forward_s, >=, gathers);
      g_assert_cmpfloat (e.stage_forward_s, <, gathers + (i == 0 ? 1e-3 : 3e-3));
      /* Backward: each unit gathered again and its gradients scattered at twice the
       * bytes: three times the gathers, plus one unit's backward (twice the forward)
       * with overlap, all of them without. */
      g_assert_cmpfloat (e.stage_backward_s, >=, 3.0 * gathers);
      g_assert_cmpfloat (e.stage_backward_s, <, 3.0 * gathers + (i == 0 ? 2e-3 : 6e-3));
      /* The closed form runs the same flow shop: the engines agree. */
      g_assert_cmpfloat (fabs (a.step_time_s - e.step_time_s) / e.step_time_s, <, 1e-6);
      g_assert_cmpfloat (fabs (a.time_s[PLX_TIME_DP_COMM] - e.time_s[PLX_TIME_DP_COMM]) / e.step_time_s, <, 1e-6);
    }

  {
    /* At 1e13 B/s the collectives hide under compute but for the first gather of
     * each pass (the embedding's, 0.37 us, and in backward the head's with its
     * scatter) and the last scatter. What ZeRO-3 still adds is FSDP2's copies (the
     * model runs as PyTorch code under ZeRO-3): the gathered 2-byte weights copied
     * out in each pass (read and write, 4 bytes per parameter) and the gradients
     * copied into the 4-byte reduce-scatter buffer (6 bytes): 14 bytes per
     * parameter per step at the HBM's 1e12 B/s. */
    const double copies = 14.0 * (4.0 * BLOCK_PARAMS + EMBED_PARAMS + HEAD_PARAMS) / 1e12;
    g_autoptr (PlxScenario) fast = test_scenario_from_string (ZERO3_SCENARIO (1e13, "true"));
    PlxReport a = test_run (fast), e;

    g_assert_true (plx_sim_run_scenario (fast->model, fast->cluster, fast->strategy, &e, NULL, NULL, NULL, NULL));
    g_assert_cmpfloat (e.time_s[PLX_TIME_DP_COMM], >=, copies);
    g_assert_cmpfloat (e.time_s[PLX_TIME_DP_COMM], <, copies + 1e-5);

    g_assert_cmpfloat (fabs (a.step_time_s - e.step_time_s) / e.step_time_s, <, 1e-6);
    /* Megatron's ZeRO-3 gathers into the parameters' own buffer: no copies. */
    fast->strategy->implementation = PLX_IMPLEMENTATION_MEGATRON;
    a = test_run (fast);
    g_assert_cmpfloat (a.time_s[PLX_TIME_DP_COMM], >, 0.0);
    g_assert_cmpfloat (a.time_s[PLX_TIME_DP_COMM], <, 1e-5);
  }
}

/* The small GPT-2 above trained in fp8 on the ideal node with an fp8 peak of twice
 * the 16-bit one, its fp8 layers' weights gathered in fp8 or in 16 bits. */
#define ZERO3_FP8_SCENARIO(intra_bw, fp8_gather) \
  "{ \"model\": { \"model_type\": \"gpt2\", \"n_layer\": 4, \"n_embd\": 1024, \"n_head\": 16," \
  "              \"vocab_size\": 1024, \"n_positions\": 1024 }," \
  "  \"cluster\": { \"name\": \"ideal\", \"num_nodes\": 1, \"gpus_per_node\": 8," \
  "    \"gpu\": { \"name\": \"ideal\", \"peak_flops\": { \"bf16\": 1e14, \"fp8\": 2e14 }," \
  "             \"hbm_bytes\": 85899345920, \"hbm_bw_Bps\": 1e12," \
  "             \"efficiency\": { \"matmul\": [[1, 1.0]], \"memory\": [[1, 1.0]], \"kernel_launch_s\": 0," \
  "                             \"attention\": 1.0 } }," \
  "    \"intra_node\": { \"bw_Bps\": " #intra_bw ", \"latency_s\": 0, \"efficiency\": [[1, 1.0]] }," \
  "    \"inter_node\": { \"bw_Bps\": 1e9, \"latency_s\": 0, \"efficiency\": [[1, 1.0]] } }," \
  "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 8, \"micro_batch_size\": 1, \"dp\": 8," \
  "                \"zero_stage\": 3, \"dtype\": \"fp8\", \"fp8_param_gather\": " fp8_gather " } }"

/* A block's fp8 weights: its four linear layers' matrices, 12h^2 = 12,582,912; the
 * rest of its parameters (biases, norms: 13h) stay 16-bit. */
#define BLOCK_FP8_PARAMS 12582912.0

static void
test_zero3_fp8_gather (void)
{
  /* Network-bound (1 GB/s): with fp8_param_gather a block's gather moves its fp8
   * weights at 1 byte (12,582,912 B) and the rest at 2 (2 x 13,312 B); embedding and
   * head stay 2 bytes: the forward pass is those gathers (7/8 x bytes / B over the
   * ring) plus under 1 ms of compute. Gathered in 16 bits it is the bf16 gathers. */
  const double fp8_gathers = 7.0 / 8.0 *
                             (2.0 * (EMBED_PARAMS + HEAD_PARAMS) +
                              4.0 * (BLOCK_FP8_PARAMS + 2.0 * (BLOCK_PARAMS - BLOCK_FP8_PARAMS))) / 1e9;
  const double gathers = gpt2_small_gathers ();

  {
    g_autoptr (PlxScenario) on = test_scenario_from_string (ZERO3_FP8_SCENARIO (1e9, "true"));
    g_autoptr (PlxScenario) off = test_scenario_from_string (ZERO3_FP8_SCENARIO (1e9, "false"));
    PlxReport a = test_run (on), e, b = test_run (off);

    g_assert_true (plx_sim_run_scenario (on->model, on->cluster, on->strategy, &e, NULL, NULL, NULL, NULL));
    g_test_message ("forward %.4f ms, fp8 gathers %.4f ms, 16-bit %.4f ms", e.stage_forward_s * 1e3,
                    fp8_gathers * 1e3, gathers * 1e3);
    g_assert_cmpfloat (e.stage_forward_s, >=, fp8_gathers);
    g_assert_cmpfloat (e.stage_forward_s, <, fp8_gathers + 1e-3);
    g_assert_cmpfloat (fabs (a.step_time_s - e.step_time_s) / e.step_time_s, <, 1e-6);
    g_assert_cmpfloat (b.stage_forward_s, >=, gathers);
    g_assert_cmpfloat (b.stage_forward_s, <, gathers + 1e-3);
  }
  {
    /* Collectives hidden (1e13 B/s): what ZeRO-3 adds is FSDP2's copies (14 bytes per
     * parameter per step, test above) and, gathered in 16 bits, the fp8 weights' cast
     * each time they are gathered: read 2, write 1 + 1 bytes, forward and backward,
     * 8 bytes per fp8 parameter per micro-batch at 1e12 B/s. Gathered in fp8 the
     * cast is the optimizer's, on this rank's eighth: 4 bytes per fp8 parameter / 8. */
    const double copies = 14.0 * (4.0 * BLOCK_PARAMS + EMBED_PARAMS + HEAD_PARAMS) / 1e12;
    const double casts = 8.0 * 4.0 * BLOCK_FP8_PARAMS / 1e12;
    g_autoptr (PlxScenario) on = test_scenario_from_string (ZERO3_FP8_SCENARIO (1e13, "true"));
    g_autoptr (PlxScenario) off = test_scenario_from_string (ZERO3_FP8_SCENARIO (1e13, "false"));
    PlxReport a_on = test_run (on), a_off = test_run (off), e_off;

    g_assert_true (plx_sim_run_scenario (off->model, off->cluster, off->strategy, &e_off, NULL, NULL, NULL, NULL));
    g_assert_cmpfloat (a_off.time_s[PLX_TIME_DP_COMM], >=, copies + casts);
    g_assert_cmpfloat (a_off.time_s[PLX_TIME_DP_COMM], <, copies + casts + 1e-5);
    g_assert_cmpfloat (fabs (a_off.step_time_s - e_off.step_time_s) / e_off.step_time_s, <, 1e-6);
    g_assert_cmpfloat (a_on.time_s[PLX_TIME_DP_COMM], >=, copies);
    g_assert_cmpfloat (a_on.time_s[PLX_TIME_DP_COMM], <, copies + 1e-5);
    g_assert_cmpfloat (fabs (a_on.time_s[PLX_TIME_OPTIMIZER] - a_off.time_s[PLX_TIME_OPTIMIZER] -
                             4.0 * 4.0 * BLOCK_FP8_PARAMS / 8.0 / 1e12), <, 1e-12);
  }
  {
    /* Left out, it follows the code: on for PyTorch code under ZeRO-3, off for
     * Megatron's; asked for without fp8 or without ZeRO, an error naming the key. */
    g_autoptr (PlxScenario) sc = test_scenario_from_string (ZERO3_FP8_SCENARIO (1e9, "true"));
    g_autoptr (GError) error = NULL;
    g_autoptr (PlxScenario) bad = NULL;
    g_autoptr (JsonNode) node = plx_json_parse_data (
      "{\"model\": {\"preset\": \"gpt2\"}, \"cluster\": {\"preset\": \"dgx-h100-80gb\", \"num_nodes\": 1},"
      " \"strategy\": {\"global_batch_size\": 8, \"zero_stage\": 3, \"fp8_param_gather\": true}}", -1, "bad.json", NULL);

    sc->strategy->fp8_param_gather = PLX_FP8_PARAM_GATHER_AUTO;
    g_assert_true (plx_strategy_fp8_param_gather (sc->strategy));
    sc->strategy->implementation = PLX_IMPLEMENTATION_MEGATRON;
    g_assert_false (plx_strategy_fp8_param_gather (sc->strategy));
    bad = plx_scenario_new_from_json (node, ".", "bad.json", &error);
    g_assert_null (bad);
    g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
    g_assert_nonnull (strstr (error->message, "bad.json: strategy.fp8_param_gather: true gathers fp8 weights, but dtype is bf16"));
  }
}

/* The small GPT-2 under ZeRO-3 on one ideal node at 1 GB/s, with strategy keys. */
#define ZERO3_KEYS_SCENARIO(keys) \
  "{ \"model\": { \"model_type\": \"gpt2\", \"n_layer\": 4, \"n_embd\": 1024, \"n_head\": 16," \
  "              \"vocab_size\": 1024, \"n_positions\": 1024 }," \
  "  \"cluster\": " TEST_IDEAL_CLUSTER (1, 1e9, 1e9) "," \
  "  \"strategy\": { \"seq_length\": 1024, \"micro_batch_size\": 1, \"zero_stage\": 3, " keys " } }"

static void
test_zero3_reshard (void)
{
  const double gathers = gpt2_small_gathers ();
  const double n = 4.0 * BLOCK_PARAMS + EMBED_PARAMS + HEAD_PARAMS;

  {
    /* Kept gathered from forward to backward (reshard_after_forward false, dp 8):
     * the backward only reduce-scatters, 4-byte gradients at twice the gathers'
     * bytes, so it is 2x the gathers instead of 3x; the stage holds its 2-byte
     * weights whole, not an eighth of them. */
    g_autoptr (PlxScenario) kept = test_scenario_from_string (
      ZERO3_KEYS_SCENARIO ("\"global_batch_size\": 8, \"dp\": 8, \"reshard_after_forward\": false"));
    g_autoptr (PlxScenario) freed = test_scenario_from_string (
      ZERO3_KEYS_SCENARIO ("\"global_batch_size\": 8, \"dp\": 8, \"reshard_after_forward\": true"));
    PlxReport a = test_run (kept), f = test_run (freed), e;

    g_assert_true (plx_sim_run_scenario (kept->model, kept->cluster, kept->strategy, &e, NULL, NULL, NULL, NULL));
    g_assert_cmpfloat (e.stage_backward_s, >=, 2.0 * gathers);
    g_assert_cmpfloat (e.stage_backward_s, <, 2.0 * gathers + 2e-3);
    g_assert_cmpfloat (fabs (a.step_time_s - e.step_time_s) / e.step_time_s, <, 1e-6);
    g_assert_cmpfloat (f.stage_backward_s, >=, 3.0 * gathers);
    g_assert_cmpfloat (fabs ((double) a.memory_bytes[PLX_MEM_WEIGHTS] - 2.0 * n), <=, 1.0);
    g_assert_cmpfloat (fabs ((double) f.memory_bytes[PLX_MEM_WEIGHTS] - 2.0 * n / 8.0), <=, 1.0);
  }
  {
    /* PyTorch code with pp 2 (torchtitan's FSDP with pipelining): each unit is
     * gathered by the first micro-batch and reduce-scattered after the last, weights
     * and gradients held whole in between. dp 4, 8 micro-batches: each micro-batch's
     * forward carries an eighth of the stage's gathers (over 4 ranks: 3/4 x bytes / B)
     * and the stage holds 2 + 4 bytes per parameter of its units. Stage 0 has the
     * embedding and two blocks, stage 1 two blocks and the head. */
    g_autoptr (PlxScenario) sc = test_scenario_from_string (
      ZERO3_KEYS_SCENARIO ("\"global_batch_size\": 32, \"dp\": 4, \"pp\": 2"));
    PlxReport a = test_run (sc), e;
    guint st = a.reported_stage;
    double units = 2.0 * BLOCK_PARAMS + (st == 0 ? EMBED_PARAMS : HEAD_PARAMS);
    double stage_gathers = 3.0 / 4.0 * units * 2.0 / 1e9;

    g_assert_true (plx_strategy_zero3_once_per_step (sc->strategy));
    g_assert_false (plx_strategy_reshard_after_forward (sc->strategy));
    g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &e, NULL, NULL, NULL, NULL));
    g_test_message ("stage %u: forward %.4f ms, its gathers / 8 %.4f ms", st, a.stage_forward_s * 1e3,
                    stage_gathers / 8.0 * 1e3);
    g_assert_cmpfloat (a.stage_forward_s, >=, stage_gathers / 8.0);
    g_assert_cmpfloat (a.stage_forward_s, <, stage_gathers / 8.0 + 1e-3);
    g_assert_cmpfloat (fabs ((double) a.memory_bytes[PLX_MEM_WEIGHTS] - 2.0 * units), <=, 1.0);
    g_assert_cmpfloat (fabs ((double) a.memory_bytes[PLX_MEM_GRADIENTS] - 4.0 * units), <=, 1.0);
    g_assert_cmpfloat (fabs (a.step_time_s - e.step_time_s) / e.step_time_s, <, 0.03);
    /* Megatron's code under the same strategy gathers per micro-batch, resharding. */
    sc->strategy->implementation = PLX_IMPLEMENTATION_MEGATRON;
    g_assert_false (plx_strategy_zero3_once_per_step (sc->strategy));
    g_assert_true (plx_strategy_reshard_after_forward (sc->strategy));
  }
}

static void
test_context_parallel_gradients (void)
{
  /* Context-parallel ranks compute the same layers on other parts of the sequences,
   * so their gradients are reduced with the data-parallel ones: dp 4 x cp 2 on one
   * ideal node all-reduce over all 8 GPUs (it was over the 4 data-parallel ranks).
   * The small GPT-2's 52,484,096 parameters give 4-byte gradients of 209,936,384 B in
   * two buckets (Megatron's max(40M, 1M x 8) elements = 160 MB); without overlap both
   * are exposed, each a ring all-reduce of 2 (7/8) x bytes / B at B = 1 GB/s. */
  const double params = 4.0 * BLOCK_PARAMS + EMBED_PARAMS + HEAD_PARAMS;
  const double expected = 2.0 * 7.0 / 8.0 * 4.0 * params / 1e9;
  g_autoptr (PlxScenario) sc = test_scenario_from_string (
    "{ \"model\": { \"model_type\": \"gpt2\", \"n_layer\": 4, \"n_embd\": 1024, \"n_head\": 16,"
    "              \"vocab_size\": 1024, \"n_positions\": 1024 },"
    "  \"cluster\": " TEST_IDEAL_CLUSTER (1, 1e9, 1e9) ","
    "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 4, \"dp\": 4, \"cp\": 2,"
    "                \"overlap_dp_comm\": false } }");
  PlxReport a = test_run (sc), e;

  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &e, NULL, NULL, NULL, NULL));
  g_test_message ("DP time %.6f s, expected %.6f s", a.time_s[PLX_TIME_DP_COMM], expected);
  g_assert_cmpfloat (fabs (a.time_s[PLX_TIME_DP_COMM] - expected), <, 1e-9);
  g_assert_cmpfloat (fabs (e.time_s[PLX_TIME_DP_COMM] - expected), <, 1e-6);
}

static void
test_overlap_slowdown (void)
{
  /* Overlapped collectives slow the compute beside them by the cluster's
   * overlap_slowdown k for as long as they run together (cost-model.md). At 1e11 B/s
   * each block's gather (0.22 ms) is shorter than its compute, so of a pass's
   * collectives all but what is exposed anyway ran beside compute: the step's DP time
   * becomes x + k (C - (x - f)), where x is the DP time without slowdown, f of it
   * FSDP2's copies (14 bytes per parameter at 1e12 B/s, test above) and C every
   * collective of the step: the forward gathers, and in backward the gathers again
   * and the reduce-scatters of 4-byte gradients, 4 x the gathers in all. */
  const double all = 4.0 * gpt2_small_gathers () / 100.0, k = 0.3;
  const double f = 14.0 * (4.0 * BLOCK_PARAMS + EMBED_PARAMS + HEAD_PARAMS) / 1e12;
  g_autoptr (PlxScenario) sc = test_scenario_from_string (ZERO3_SCENARIO (1e11, "true"));
  PlxReport a0, e0, a, e;

  sc->cluster->overlap_slowdown = 0.0;
  a0 = test_run (sc);
  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &e0, NULL, NULL, NULL, NULL));
  sc->cluster->overlap_slowdown = k;
  a = test_run (sc);
  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &e, NULL, NULL, NULL, NULL));
  g_test_message ("exposed %.4f ms of %.4f ms; with k = %.1f %.4f ms", a0.time_s[PLX_TIME_DP_COMM] * 1e3, all * 1e3,
                  k, a.time_s[PLX_TIME_DP_COMM] * 1e3);
  g_assert_cmpfloat (a0.time_s[PLX_TIME_DP_COMM], <, 0.5 * all);
  g_assert_cmpfloat (fabs (a.time_s[PLX_TIME_DP_COMM] -
                           (a0.time_s[PLX_TIME_DP_COMM] + k * (all - (a0.time_s[PLX_TIME_DP_COMM] - f)))),
                     <, 1e-9);
  g_assert_cmpfloat (fabs (e.time_s[PLX_TIME_DP_COMM] -
                           (e0.time_s[PLX_TIME_DP_COMM] + k * (all - (e0.time_s[PLX_TIME_DP_COMM] - f)))),
                     <, 1e-9);
  /* Compute itself is untouched: the slowdown is the communication's cost. */
  g_assert_cmpfloat (a.time_s[PLX_TIME_COMPUTE], ==, a0.time_s[PLX_TIME_COMPUTE]);
}

static void
test_hybrid_sharding (void)
{
  /* The same GPT-2 on two ideal nodes (16 GPUs, dp 16), ZeRO-3 sharded over groups of
   * 8 (one node each) and replicated across the two: the weights take twice the
   * memory of sharding over all 16, the forward gathers stay inside the node (the
   * same 91.85 ms as on one node, test above), and backward adds an all-reduce of each
   * unit's 4-byte gradient shards (1/8 of them) between the two nodes at 1 GB/s: a ring
   * of two moves the whole buffer once, params x 4 / 8 / 1e9. */
  const double gathers = gpt2_small_gathers ();
  const double replicas = (4.0 * BLOCK_PARAMS + EMBED_PARAMS + HEAD_PARAMS) * 4.0 / 8.0 / 1e9;
#define HYBRID(shard) \
  "{ \"model\": { \"model_type\": \"gpt2\", \"n_layer\": 4, \"n_embd\": 1024, \"n_head\": 16," \
  "              \"vocab_size\": 1024, \"n_positions\": 1024 }," \
  "  \"cluster\": " TEST_IDEAL_CLUSTER (2, 1e9, 1e9) "," \
  "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 16, \"micro_batch_size\": 1, \"dp\": 16," \
  "                \"zero_stage\": 3" shard " } }"
  g_autoptr (PlxScenario) hybrid = test_scenario_from_string (HYBRID (", \"shard_group_size\": 8"));
  g_autoptr (PlxScenario) full = test_scenario_from_string (HYBRID (""));
  PlxReport rh = test_run (hybrid), rf = test_run (full), e;

  g_assert_cmpuint (rh.memory_bytes[PLX_MEM_WEIGHTS], ==, 2 * rf.memory_bytes[PLX_MEM_WEIGHTS]);
  g_assert_cmpuint (rh.memory_bytes[PLX_MEM_OPTIMIZER], ==, 2 * rf.memory_bytes[PLX_MEM_OPTIMIZER]);
  g_assert_true (plx_sim_run_scenario (hybrid->model, hybrid->cluster, hybrid->strategy, &e, NULL, NULL, NULL, NULL));
  g_test_message ("hybrid: forward %.4f ms (gathers %.4f), backward %.4f ms (3 x gathers + replicas %.4f)",
                  e.stage_forward_s * 1e3, gathers * 1e3, e.stage_backward_s * 1e3, (3 * gathers + replicas) * 1e3);
  g_assert_cmpfloat (e.stage_forward_s, >=, gathers);
  g_assert_cmpfloat (e.stage_forward_s, <, gathers + 1e-3);
  g_assert_cmpfloat (e.stage_backward_s, >=, 3.0 * gathers + replicas);
  g_assert_cmpfloat (e.stage_backward_s, <, 3.0 * gathers + replicas + 2e-3);
  g_assert_cmpfloat (fabs (rh.step_time_s - e.step_time_s) / e.step_time_s, <, 1e-6);
  /* A group that does not divide dp, or hybrid sharding without ZeRO, is refused. */
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (JsonNode) node = plx_json_parse_data (HYBRID (", \"shard_group_size\": 6"), -1, "test", NULL);
    g_autoptr (PlxScenario) bad = plx_scenario_new_from_json (node, ".", "test", &error);
    g_assert_null (bad);
    g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
    g_assert_nonnull (strstr (error->message, "shard_group_size: 6 does not divide dp = 16"));
  }
#undef HYBRID
}

#define ZERO1_GPT2(overlap) \
  "{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": " TEST_IDEAL_CLUSTER (1, 1e9, 1e9) "," \
  "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 8, \"micro_batch_size\": 1, \"dp\": 8," \
  "                \"zero_stage\": 1, \"overlap_dp_comm\": " overlap " } }"

static void
test_zero1_param_gather (void)
{
  /* GPT-2's 124,439,808 fp32 gradients fill four of Megatron-LM's 40M-element
   * buckets, 31,109,952 each; after the step each bucket's 2-byte weights are
   * all-gathered over 8 GPUs at 1 GB/s: a = 7/8 x 62,219,904 B / 1e9 = 54.44 ms.
   * Without overlap all four gathers are exposed. With it the next step's first
   * forward (f, a few ms here) runs a quarter at a time as each bucket arrives, so
   * only its last quarter follows the last gather: exposed 4a - 3f/4. */
  const double a = 7.0 / 8.0 * 31109952.0 * 2.0 / 1e9;
  g_autoptr (PlxScenario) off = test_scenario_from_string (ZERO1_GPT2 ("false"));
  g_autoptr (PlxScenario) on = test_scenario_from_string (ZERO1_GPT2 ("true"));
  g_autoptr (PlxPlan) plan_off = plx_plan_lower (off->model, off->cluster, off->strategy, NULL);
  g_autoptr (PlxPlan) plan_on = plx_plan_lower (on->model, on->cluster, on->strategy, NULL);
  PlxReport e_on, a_on = test_run (on);
  double f;

  g_assert_nonnull (plan_off);
  g_assert_cmpfloat (fabs (plan_off->stages[0].zero_gather_s - 4.0 * a) / a, <, 1e-9);
  g_assert_true (plx_sim_run_scenario (on->model, on->cluster, on->strategy, &e_on, NULL, NULL, NULL, NULL));
  f = e_on.stage_forward_s;
  g_assert_cmpfloat (f, >, 0.0);
  g_assert_cmpfloat (fabs (plan_on->stages[0].zero_gather_s - (4.0 * a - 0.75 * f)) / a, <, 1e-9);
  /* Both engines charge the same. */
  g_assert_cmpfloat (fabs (a_on.step_time_s - e_on.step_time_s) / e_on.step_time_s, <, 1e-9);
}

static void
test_breakdown_sums (void)
{
  g_autoptr (JsonNode) node = plx_scenario_default_json ();
  g_autoptr (PlxScenario) sc = plx_scenario_new_from_json (node, ".", "default", NULL);
  PlxReport r;
  double sum = 0.0;
  guint64 mem = 0;

  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &r, NULL, NULL, NULL, NULL));
  for (guint i = 0; i < PLX_N_TIME; i++)
    sum += r.time_s[i];
  for (guint i = 0; i < PLX_N_MEM; i++)
    mem += r.memory_bytes[i];
  g_assert_cmpstr (r.engine, ==, "event");
  g_assert_cmpfloat (fabs (sum - r.step_time_s) / r.step_time_s, <, 1e-12);
  g_assert_cmpuint (mem, ==, r.peak_memory_bytes);
}

/* GPT-2 on one node, 4 stages, 8 micro-batches: a small trace to write. */
#define SMALL_PIPELINE \
  "{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 }," \
  "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 16, \"pp\": 4, \"dp\": 2 } }"

static void
test_chrome_trace (void)
{
  /* A small run written as a Chrome trace: valid JSON; one process per stage, four
   * named threads each; every timeline event as an "X" event; memory counters. */
  g_autoptr (PlxScenario) sc = test_scenario_from_string (SMALL_PIPELINE);
  g_autoptr (PlxTimeline) tl = NULL;
  g_autoptr (PlxMemoryTrace) trace = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("plx-trace-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "trace.json", NULL);
  g_autoptr (JsonNode) root = NULL;
  JsonArray *events;
  guint x = 0, processes = 0, threads = 0, counters = 0;
  PlxReport r;

  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &r, NULL, &tl, &trace, &error));
  g_assert_true (plx_timeline_write_chrome_trace (tl, trace, path, &error));
  g_assert_no_error (error);
  root = plx_json_parse_file (path, &error);
  g_assert_no_error (error);
  events = json_object_get_array_member (json_node_get_object (root), "traceEvents");
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *ev = json_array_get_object_element (events, i);
      const char *ph = json_object_get_string_member (ev, "ph");
      if (g_str_equal (ph, "X"))
        {
          x++;
          g_assert_cmpfloat (json_object_get_double_member (ev, "dur"), >=, 0.0);
        }
      else if (g_str_equal (ph, "C"))
        counters++;
      else if (g_str_equal (json_object_get_string_member (ev, "name"), "process_name"))
        processes++;
      else if (g_str_equal (json_object_get_string_member (ev, "name"), "thread_name"))
        threads++;
    }
  g_assert_cmpuint (x, ==, plx_timeline_n_events (tl));
  g_assert_cmpuint (processes, ==, 4);
  g_assert_cmpuint (threads, ==, 4 * PLX_N_STREAMS);
  g_assert_cmpuint (counters, >, 4);
  /* An unwritable path fails cleanly and leaves nothing behind. */
  g_assert_false (plx_timeline_write_chrome_trace (tl, trace, "/nonexistent-dir/trace.json", &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir/trace.json"));
  g_remove (path);
  g_rmdir (dir);
}

/* A trace past PLX_TRACE_MAX_EVENTS is refused before anything is written (issue 34:
 * 9 million events, 1.3 GB). 2 stages, 300,000 micro-batches, 1F1B, one task a
 * pass: 1,200,000 passes, of which the timeline keeps its 1,000,000; each pass makes
 * one memory sample (F allocates, B frees), 600,000 a stage, and each stage's trace
 * starts with its static bytes: 1,200,002 samples; six track names a stage, 12. */
static void
test_chrome_trace_bounded (void)
{
  g_autoptr (PlxTimeline) tl = NULL;
  g_autoptr (PlxMemoryTrace) trace = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("plx-trace-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "trace.json", NULL);
  g_autoptr (GDir) listing = NULL;
  PlxReport r;

  run_synthetic (PLX_SCHEDULE_1F1B, 2, 1, 300000, 1.0, 2.0, 0.0, &r, &trace, &tl);
  g_assert_cmpuint (plx_timeline_n_events (tl), ==, 1000000);
  g_assert_false (plx_timeline_write_chrome_trace (tl, trace, path, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED);
  g_assert_true (g_str_has_suffix (error->message, "trace.json: 1000000 timeline events, 1200002 memory samples and "
                                                   "12 track names of 2 stages are more than a trace's 2 million "
                                                   "events; simulate fewer micro-batches or stages"));
  /* Nothing written, no temporary file left. */
  listing = g_dir_open (dir, 0, NULL);
  g_assert_null (g_dir_read_name (listing));
  g_rmdir (dir);
}

static void
test_chrome_trace_comma_locale (void)
{
  /* The window does not force LC_NUMERIC: under de_DE.UTF-8 printf writes "1,5".
   * The trace written there is still JSON, with the same numbers as under C. */
  g_autoptr (PlxScenario) sc = test_scenario_from_string (SMALL_PIPELINE);
  g_autoptr (PlxTimeline) tl = NULL;
  g_autoptr (PlxMemoryTrace) trace = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("plx-trace-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "trace.json", NULL);
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *old = g_strdup (setlocale (LC_NUMERIC, NULL));
  char probe[32];
  JsonArray *events;
  PlxTimelineEvent last_event;
  const PlxTimelineEvent *last = &last_event;
  PlxReport r;

  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &r, NULL, &tl, &trace, &error));
  if (setlocale (LC_NUMERIC, "de_DE.UTF-8") == NULL)
    {
      /* tools/install-deps generates it; without it this test would prove nothing. */
      g_test_message ("the de_DE.UTF-8 locale is not installed (tools/install-deps generates it)");
      g_test_fail ();
      return;
    }
  g_snprintf (probe, sizeof probe, "%.1f", 1.5);
  g_assert_cmpstr (probe, ==, "1,5");
  g_assert_true (plx_timeline_write_chrome_trace (tl, trace, path, &error));
  setlocale (LC_NUMERIC, old);
  g_assert_no_error (error);
  root = plx_json_parse_file (path, &error);
  g_assert_no_error (error);
  events = json_object_get_array_member (json_node_get_object (root), "traceEvents");
  g_assert_true (plx_timeline_get_event (tl, plx_timeline_n_events (tl) - 1, &last_event));
  for (guint i = json_array_get_length (events); i-- > 0;)
    {
      JsonObject *ev = json_array_get_object_element (events, i);
      if (g_str_equal (json_object_get_string_member (ev, "ph"), "X"))
        {
          /* The last event's start, in microseconds to the nanosecond. */
          g_assert_cmpfloat (fabs (json_object_get_double_member (ev, "ts") - last->start_s * 1e6), <=, 0.0005);
          break;
        }
    }
  g_remove (path);
  g_rmdir (dir);
}

static void
test_validation_event (void)
{
  /* The event engine meets the same accuracy bar as the analytical one. */
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "korthikanti2022.json", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxValidation) v = plx_validation_run_file (path, "event", &error);

  g_assert_no_error (error);
  g_assert_cmpstr (v->engine, ==, "event");
  g_test_message ("event engine: mean %.2f %%, largest %.2f %%", v->summary[PLX_METRIC_STEP_TIME].mean_abs_error_pct,
                  v->summary[PLX_METRIC_STEP_TIME].max_abs_error_pct);
  g_assert_cmpuint (v->summary[PLX_METRIC_STEP_TIME].n, ==, 8);
  g_assert_cmpfloat (v->summary[PLX_METRIC_STEP_TIME].mean_abs_error_pct, <=, 5.0);
  g_assert_cmpfloat (v->summary[PLX_METRIC_STEP_TIME].max_abs_error_pct, <=, 10.0);
  g_assert_cmpfloat (v->summary[PLX_METRIC_MODEL_STATES_BYTES].max_abs_error_pct, <=, 5.0);
  g_assert_cmpfloat (v->summary[PLX_METRIC_ACTIVATION_BYTES].max_abs_error_pct, <=, 10.0);
}

static void
test_too_many_passes (void)
{
  /* 2^21 micro-batches on 4 stages: a clear error, not an allocation failure. */
  g_autoptr (PlxScenario) sc = test_scenario_from_string (
    "{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 },"
    "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 4194304, \"pp\": 4, \"dp\": 2 } }");
  g_autoptr (GError) error = NULL;
  PlxReport r;

  g_assert_false (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &r, NULL, NULL, NULL, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "2097152 micro-batches"));
  /* What the strategy can change; no engine, which the window does not offer
   * (issue 34; the CLI adds its --engine analytical). */
  g_assert_nonnull (strstr (error->message, "a larger micro-batch size or a smaller global batch size"));
  g_assert_null (strstr (error->message, "analytical"));
  /* The closed form still answers. */
  g_assert_true (plx_analytic_run (sc->model, sc->cluster, sc->strategy, &r, NULL));
}

/* Task labels belong to the plan (and the timelines made from it), not to GLib's
 * process-wide quark table: a 100,000-layer model names over a million tasks, which
 * stayed for the life of the process (1.25 GB reported by LeakSanitizer, issue 34).
 * The timeline still reads them after its plan is gone. */
static void
test_labels_owned (void)
{
  g_autoptr (PlxScenario) sc = test_scenario_from_string (
    "{ \"model\": { \"model_type\": \"gpt2\", \"n_layer\": 37, \"n_embd\": 256, \"n_head\": 8,"
    "             \"vocab_size\": 64, \"n_positions\": 128 },"
    "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 },"
    "  \"strategy\": { \"seq_length\": 128, \"global_batch_size\": 2, \"pp\": 1, \"dp\": 1, \"tp\": 8 } }");
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxTimeline) tl = NULL;
  PlxPlan *plan = NULL;
  PlxTimelineIter iter;
  PlxTimelineEvent ev;
  gboolean seen = FALSE;
  PlxReport r;

  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &r, &plan, &tl, NULL, &error));
  g_assert_no_error (error);
  /* The last layer's MLP backward is the first task of the backward pass after its
   * recompute and TP steps; whichever it is, its name is the plan's, not a quark. */
  for (guint i = 0; i < plan->chunks[0].pass[PLX_PASS_BACKWARD].n_tasks; i++)
    if (g_str_equal (plan->chunks[0].pass[PLX_PASS_BACKWARD].tasks[i].label, "layer 36 MLP backward"))
      seen = TRUE;
  g_assert_true (seen);
  g_assert_cmpuint (g_quark_try_string ("layer 36 MLP backward"), ==, 0);
  plx_plan_free (plan);
  seen = FALSE;
  for (plx_timeline_iter_init (&iter, tl); plx_timeline_iter_next (&iter, &ev);)
    seen = seen || g_str_equal (ev.label, "layer 36 MLP backward");
  g_assert_true (seen);
}

static void
test_timeline_bounded (void)
{
  /* GPT-2 for 24000 micro-batches on one stage: about 1.25 million tasks. The timeline
   * stops at PLX_TIMELINE_MAX_EVENTS and says where; the step is the same as without
   * a timeline. (A 4-million-sequence batch used to abort allocating 34 GB.) */
  g_autoptr (PlxScenario) sc = test_scenario_from_string (
    "{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 },"
    "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 192000, \"dp\": 8 } }");
  g_autoptr (GError) error = NULL;
  PlxTimeline *tl = NULL;
  PlxReport with, without;

  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &with, NULL, &tl, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &without, NULL, NULL, NULL, &error));
  g_assert_cmpuint (plx_timeline_n_events (tl), ==, PLX_TIMELINE_MAX_EVENTS);
  g_assert_cmpuint (tl->dropped, >, 0);
  g_assert_cmpfloat (tl->recorded_until_s, >, 0.0);
  g_assert_cmpfloat (tl->recorded_until_s, <, with.step_time_s);
  /* Every recorded event starts before the first one dropped. */
  for (guint i = 0; i < plx_timeline_n_events (tl); i += 997)
    {
      PlxTimelineEvent ev;
      g_assert_true (plx_timeline_get_event (tl, i, &ev));
      g_assert_cmpfloat (ev.start_s, <=, tl->recorded_until_s);
    }
  g_assert_cmpfloat (with.step_time_s, ==, without.step_time_s);
  plx_timeline_free (tl);
}

static void
test_bucket_bars (void)
{
  PlxTimelineIter ev_iter;
  PlxTimelineEvent ev_buf;
  /* GPT-3 175B at TP 8 on one stage in 1 MB buckets: 87 GB of fp32 gradients, about
   * 87,000 reduce-scatters. They are timed one by one but drawn as at most 256 bars,
   * which together carry all the gradient bytes. */
  g_autoptr (PlxScenario) sc = test_scenario_from_string (
    "{ \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 16 },"
    "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 32, \"tp\": 8, \"zero_stage\": 1,"
    "                \"grad_bucket_bytes\": 1000000 } }");
  g_autoptr (GError) error = NULL;
  PlxTimeline *tl = NULL;
  PlxPlan *plan = NULL;
  PlxReport r;
  guint bars = 0;
  double bytes = 0.0;

  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &r, &plan, &tl, NULL, &error));
  g_assert_no_error (error);
  for (plx_timeline_iter_init (&ev_iter, tl); plx_timeline_iter_next (&ev_iter, &ev_buf);)
    {
      const PlxTimelineEvent *e = &ev_buf;
      if (g_strcmp0 (e->label, "gradient reduce-scatter") == 0)
        {
          bars++;
          bytes += e->bytes;
        }
    }
  g_assert_cmpuint (bars, >, 200);
  g_assert_cmpuint (bars, <=, 256);
  g_assert_cmpfloat (plan->chunks[0].grad_bytes, >, 8.6e10);
  g_assert_cmpfloat (fabs (bytes / plan->chunks[0].grad_bytes - 1.0), <, 1e-4);
  plx_timeline_free (tl);
  plx_plan_free (plan);
}

static void
test_past_arithmetic (void)
{
  /* A sequence of 2^30 tokens: activations beyond 2^64 bytes used to print as -1 in
   * the JSON. Both engines refuse it by name; no figure is ever NaN or negative. */
  g_autoptr (PlxScenario) sc = test_scenario_from_string (
    "{ \"model\": { \"preset\": \"llama-3-8b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 },"
    "  \"strategy\": { \"seq_length\": 1073741824, \"global_batch_size\": 8 } }");
  PlxReport r;
  PlxTimeline *tl = NULL;

  for (guint engine = 0; engine < 2; engine++)
    {
      g_autoptr (GError) error = NULL;
      gboolean ok = engine == 0 ? plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &r, NULL, &tl, NULL, &error)
                                : plx_analytic_run (sc->model, sc->cluster, sc->strategy, &r, &error);
      g_assert_false (ok);
      g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
      g_assert_nonnull (strstr (error->message, "activations would come to"));
      g_assert_nonnull (strstr (error->message, "seq_length 1073741824"));
      g_assert_null (tl);
    }
  {
    PlxReport bad = { 0 };
    g_autoptr (GError) error = NULL;

    bad.step_time_s = 1.0;
    bad.mfu = NAN;
    g_assert_false (plx_report_check (&bad, 2048, 1, &error));
    g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
    bad.mfu = 0.5;
    g_clear_error (&error);
    g_assert_true (plx_report_check (&bad, 2048, 1, &error));
    bad.time_s[0] = -1.0;
    g_assert_false (plx_report_check (&bad, 2048, 1, &error));
  }
}

static void
test_waiting_is_bubble (void)
{
  /* GPipe, dp 1: the only data-parallel communication is the tied-embedding
   * all-reduce between the first and last stage. Its transfer is dp_comm; the first
   * stage waiting for the last one's gradients is bubble (it was counted as dp_comm:
   * 9.5 ms instead of 6.2 ms here). */
  g_autoptr (PlxScenario) sc = test_scenario_from_string (
    "{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 },"
    "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 16, \"pp\": 4, \"tp\": 2, \"dp\": 1,"
    "                \"schedule\": \"gpipe\" } }");
  g_autoptr (GError) error = NULL;
  PlxPlan *plan = NULL;
  PlxReport ev, an;

  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &ev, &plan, NULL, NULL, &error));
  g_assert_true (plx_analytic_run (sc->model, sc->cluster, sc->strategy, &an, &error));
  g_assert_cmpfloat (plan->stages[ev.reported_stage].tied_embedding_s, >, 0.0);
  g_assert_cmpfloat_with_epsilon (ev.time_s[PLX_TIME_DP_COMM], plan->stages[ev.reported_stage].tied_embedding_s, 1e-12);
  g_assert_cmpfloat (fabs (ev.time_s[PLX_TIME_DP_COMM] / an.time_s[PLX_TIME_DP_COMM] - 1.0), <, 1e-9);
  plx_plan_free (plan);
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/sim/bubble-exact", test_bubble_exact);
  g_test_add_func ("/sim/zero-bubble-h1-time", test_zero_bubble_h1_time);
  g_test_add_func ("/sim/zero-bubble-h1-deep", test_zero_bubble_h1_deep);
  g_test_add_func ("/sim/zero3-flow-shop", test_zero3_flow_shop);
  g_test_add_func ("/sim/zero3-fp8-gather", test_zero3_fp8_gather);
  g_test_add_func ("/sim/zero3-reshard", test_zero3_reshard);
  g_test_add_func ("/sim/context-parallel-gradients", test_context_parallel_gradients);
  g_test_add_func ("/sim/overlap-slowdown", test_overlap_slowdown);
  g_test_add_func ("/sim/zero1-param-gather", test_zero1_param_gather);
  g_test_add_func ("/sim/hybrid-sharding", test_hybrid_sharding);
  g_test_add_func ("/sim/activation-peaks", test_activation_peaks);
  g_test_add_func ("/sim/memory-trace-replay", test_memory_trace_replay);
  g_test_add_func ("/sim/timeline-consistent", test_timeline_consistent);
  g_test_add_func ("/sim/agrees-with-analytic", test_agrees_with_analytic);
  g_test_add_func ("/sim/breakdown-sums", test_breakdown_sums);
  g_test_add_func ("/sim/chrome-trace", test_chrome_trace);
  g_test_add_func ("/sim/chrome-trace-comma-locale", test_chrome_trace_comma_locale);
  g_test_add_func ("/sim/chrome-trace-bounded", test_chrome_trace_bounded);
  g_test_add_func ("/sim/validation-event", test_validation_event);
  g_test_add_func ("/sim/too-many-passes", test_too_many_passes);
  g_test_add_func ("/sim/timeline-bounded", test_timeline_bounded);
  g_test_add_func ("/sim/labels-owned", test_labels_owned);
  g_test_add_func ("/sim/bucket-bars", test_bucket_bars);
  g_test_add_func ("/sim/past-arithmetic", test_past_arithmetic);
  g_test_add_func ("/sim/waiting-is-bubble", test_waiting_is_bubble);
  return g_test_run ();
}
