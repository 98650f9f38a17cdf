/* Memory per GPU against Korthikanti et al. 2022 (Table 2 activations per layer,
 * eq. 5 for the interleaved schedule, Fig. 1 model states) and Rajbhandari et al.
 * 2020 (ZeRO stages). */
#include <math.h>

#include "parallax/parallax.h"
#include "test-home.h"

#include "test-util.h"
#include "cost/plx-pipeline.h"
#include "../../src/core/cost/plx-costing.h"

/* The 22B model of Korthikanti Table 3 on one DGX node. */
#define SCENARIO_22B(tp, sp, recompute) \
  "{ \"model\": { \"preset\": \"megatron-22b\" }," \
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 }," \
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 32, \"micro_batch_size\": 4," \
  "                \"tp\": " #tp ", \"sequence_parallel\": " #sp ", \"recompute\": \"" recompute "\" } }"

static double
layer_saved (const char *json)
{
  g_autoptr (PlxScenario) sc = test_scenario_from_string (json);
  g_autoptr (GError) error = NULL;
  PlxLayerCost cost;

  g_assert_true (plx_analytic_layer_cost (sc->model, sc->cluster, sc->strategy, &cost, &error));
  return cost.saved_bytes;
}

static void
assert_close (double got, double want)
{
  g_assert_cmpfloat (fabs (got - want) / want, <, 1e-12);
}

static const double s = 2048, b = 4, h = 6144, a = 64;

static void
test_table2_no_parallelism (void)
{
  /* sbh (34 + 5as/h) */
  assert_close (layer_saved (SCENARIO_22B (1, false, "none")), s * b * h * (34.0 + 5.0 * a * s / h));
}

static void
test_table2_tensor_parallel (void)
{
  /* sbh (10 + 24/t + 5as/(ht)) */
  double t = 8;
  assert_close (layer_saved (SCENARIO_22B (8, false, "none")), s * b * h * (10.0 + 24.0 / t + 5.0 * a * s / (h * t)));
}

static void
test_table2_sequence_parallel (void)
{
  /* sbh/t (34 + 5as/h) */
  double t = 8;
  assert_close (layer_saved (SCENARIO_22B (8, true, "none")), s * b * h / t * (34.0 + 5.0 * a * s / h));
}

static void
test_table2_selective (void)
{
  /* Tensor parallel + selective: sbh (10 + 24/t); with sequence parallelism 34 sbh/t. */
  double t = 8;
  assert_close (layer_saved (SCENARIO_22B (8, false, "selective")), s * b * h * (10.0 + 24.0 / t));
  assert_close (layer_saved (SCENARIO_22B (8, true, "selective")), 34.0 * s * b * h / t);
}

static void
test_table2_full (void)
{
  /* Full recompute keeps the layer input: 2sbh, split by t with sequence parallelism. */
  assert_close (layer_saved (SCENARIO_22B (8, false, "full")), 2.0 * s * b * h);
  assert_close (layer_saved (SCENARIO_22B (8, true, "full")), 2.0 * s * b * h / 8.0);
}

/* Full recompute holds every layer's 2sbh/t input checkpoint and, while one layer's
 * backward runs, that layer's full Table 2 set re-created from its own checkpoint
 * (which the set contains as its first norm's input). On one stage with one
 * micro-batch in flight, full less none is therefore (L - 1)(2sbh/t - A): L - 1
 * layers keep only their checkpoint instead of A; the one being recomputed holds A
 * either way. The embedding, head and buffers are the same on both sides. */
static void
test_full_recompute_peak (void)
{
  g_autoptr (PlxScenario) full = test_scenario_from_string (SCENARIO_22B (8, true, "full"));
  g_autoptr (PlxScenario) none = test_scenario_from_string (SCENARIO_22B (8, true, "none"));
  double t = 8, L = 48;
  double A = s * b * h / t * (34.0 + 5.0 * a * s / h), ckpt = 2.0 * s * b * h / t;
  PlxReport rf = test_run (full), rn = test_run (none);

  g_assert_cmpfloat (fabs (((double) rf.memory_bytes[PLX_MEM_ACTIVATIONS] - (double) rn.memory_bytes[PLX_MEM_ACTIVATIONS]) -
                           (L - 1.0) * (ckpt - A)), <=, 1.0);
}

/* Selective recompute keeps each layer's Table 2 set less its attention core
 * (34 sbh/t with sequence parallelism) and re-creates one layer's core, 5as^2b/t,
 * while that layer's backward runs (Korthikanti §5); full keeps each layer's 2sbh/t
 * checkpoint and re-creates one whole layer less it. On one stage with one
 * micro-batch in flight, of A = sbh/t (34 + 5as/h) a layer:
 *   none      L A
 *   selective L (A - core) + core     none - selective = (L - 1) core
 *   full      L ckpt + (A - ckpt)     selective - full = (L - 1)(A - core - ckpt)
 *                                                       = (L - 1) 32 sbh/t
 * so full <= selective <= none for every L, equal at L = 1. Selective once added
 * no core, and full then held a core more than it with one layer on a stage. */
static void
test_recompute_order (void)
{
  g_autoptr (PlxScenario) none = test_scenario_from_string (SCENARIO_22B (8, true, "none"));
  g_autoptr (PlxScenario) sel = test_scenario_from_string (SCENARIO_22B (8, true, "selective"));
  g_autoptr (PlxScenario) full = test_scenario_from_string (SCENARIO_22B (8, true, "full"));
  double t = 8, L = 48, core = 5.0 * a * s * s * b / t;
  double rn = (double) test_run (none).memory_bytes[PLX_MEM_ACTIVATIONS];
  double rs = (double) test_run (sel).memory_bytes[PLX_MEM_ACTIVATIONS];
  double rf = (double) test_run (full).memory_bytes[PLX_MEM_ACTIVATIONS];

  g_assert_cmpfloat (fabs ((rn - rs) - (L - 1.0) * core), <=, 2.0);
  g_assert_cmpfloat (fabs ((rs - rf) - (L - 1.0) * 32.0 * s * b * h / t), <=, 2.0);
}

/* The case where recompute looks as if it could cost memory: one layer on the
 * stage. Then the re-created layer is the whole layer (full) or the core it lacks
 * (selective), and all three keep the same bytes (L = 1 above): equal, never more. */
#define ONE_LAYER(recompute) \
  "{ \"model\": { \"model_type\": \"gpt2\", \"n_layer\": 1, \"n_embd\": 6144, \"n_head\": 64," \
  "             \"vocab_size\": 51200, \"n_positions\": 2048 }," \
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 }," \
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 4, \"micro_batch_size\": 4, \"tp\": 8," \
  "                \"sequence_parallel\": true, \"recompute\": \"" recompute "\" } }"

static void
test_recompute_one_layer (void)
{
  g_autoptr (PlxScenario) none = test_scenario_from_string (ONE_LAYER ("none"));
  g_autoptr (PlxScenario) sel = test_scenario_from_string (ONE_LAYER ("selective"));
  g_autoptr (PlxScenario) full = test_scenario_from_string (ONE_LAYER ("full"));
  double rn = (double) test_run (none).memory_bytes[PLX_MEM_ACTIVATIONS];

  g_assert_cmpfloat (fabs ((double) test_run (sel).memory_bytes[PLX_MEM_ACTIVATIONS] - rn), <=, 1.0);
  g_assert_cmpfloat (fabs ((double) test_run (full).memory_bytes[PLX_MEM_ACTIVATIONS] - rn), <=, 1.0);
}

/* Zero-bubble H1 with p = 2 stages and m = 3 micro-batches, as plx-schedule.c lists
 * it (B > F > W; on stage s at most 2 - s micro-batches between F and B, 3 - s
 * between F and W), in unit steps:
 *   t0  s0 F0
 *   t1  s0 F1                 s1 F0
 *   t2  s0 -  (F2: 2 between F and B)   s1 B0
 *   t3  s0 B0                 s1 F1  <- F1 whole, B0 waiting for W0: 1 + 1
 *   t4  s0 F2  <- F1, F2 whole, B0 waiting for W0: 2 + 1
 * and no later point holds more of either kind. So stage 0 peaks at 2 micro-batches'
 * activations and 1 micro-batch's weight-gradient inputs, stage 1 at 1 and 1, plus
 * the selective core re-created in a B (a B runs at that very count). 1F1B's count
 * alone (2 and 1) was up to 42 % below the event engine. */
#define ZB_SCENARIO \
  "{ \"model\": { \"model_type\": \"gpt2\", \"n_layer\": 8, \"n_embd\": 4096, \"n_head\": 32," \
  "             \"vocab_size\": 51200, \"n_positions\": 2048, \"attn_pdrop\": 0 }," \
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 2 }," \
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 3, \"tp\": 8, \"pp\": 2," \
  "                \"sequence_parallel\": true, \"recompute\": \"selective\"," \
  "                \"schedule\": \"zero-bubble-h1\" } }"

static void
test_zero_bubble_peak (void)
{
  g_autoptr (PlxScenario) sc = test_scenario_from_string (ZB_SCENARIO);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxPlan) plan = plx_plan_lower (sc->model, sc->cluster, sc->strategy, &error);
  g_autoptr (PlxMemoryTrace) trace = NULL;
  PlxReport r = test_run (sc), e;
  double want[2];

  g_assert_no_error (error);
  for (guint st = 0; st < 2; st++)
    {
      const PlxPlanChunk *c = &plan->chunks[st];
      double whole = st == 0 ? 2.0 : 1.0;

      want[st] = whole * c->saved_bytes + 1.0 * c->wgrad_saved_bytes + c->transient_bytes;
    }
  g_assert_cmpuint (r.reported_stage, ==, want[1] > want[0] ? 1 : 0);
  g_assert_cmpfloat (fabs ((double) r.memory_bytes[PLX_MEM_ACTIVATIONS] - MAX (want[0], want[1])), <=, 1.0);
  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &e, NULL, NULL, &trace, &error));
  g_assert_no_error (error);
  for (guint st = 0; st < 2; st++)
    g_assert_cmpfloat (fabs (trace->peak_activation_bytes[st] - want[st]), <=, 1.0);
  /* The count itself, for a deeper pipeline: p = 6, m = 7 has stage 0 full with
   * 6 and one waiting, the last stage 1 and five (p - 1) waiting. */
  g_assert_cmpfloat (plx_pipeline_wgrad_pending (PLX_SCHEDULE_ZERO_BUBBLE_H1, 6, 0, 7), ==, 1.0);
  g_assert_cmpfloat (plx_pipeline_wgrad_pending (PLX_SCHEDULE_ZERO_BUBBLE_H1, 6, 5, 7), ==, 5.0);
  g_assert_cmpfloat (plx_pipeline_wgrad_pending (PLX_SCHEDULE_1F1B, 6, 5, 7), ==, 0.0);
}

/* A GPT-style model without dropout: the embedding keeps nothing, so the first
 * stage's activations are exactly its layers'. */
#define PIPE_SCENARIO(schedule, v, gbs) \
  "{ \"model\": { \"model_type\": \"gpt2\", \"n_layer\": 48, \"n_embd\": 4096, \"n_head\": 32," \
  "             \"vocab_size\": 51200, \"n_positions\": 2048, \"attn_pdrop\": 0 }," \
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 4 }," \
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": " #gbs ", \"tp\": 8, \"pp\": 4," \
  "                \"sequence_parallel\": true, \"recompute\": \"selective\"," \
  "                \"schedule\": \"" schedule "\", \"virtual_stages\": " #v " } }"

static void
test_pipeline_activations (void)
{
  double layer = layer_saved (PIPE_SCENARIO ("1f1b", 1, 64));
  g_autoptr (PlxScenario) one = test_scenario_from_string (PIPE_SCENARIO ("1f1b", 1, 64));
  g_autoptr (PlxScenario) inter = test_scenario_from_string (PIPE_SCENARIO ("interleaved-1f1b", 3, 64));
  g_autoptr (PlxScenario) gpipe = test_scenario_from_string (PIPE_SCENARIO ("gpipe", 1, 64));
  g_autoptr (PlxScenario) few = test_scenario_from_string (PIPE_SCENARIO ("1f1b", 1, 2));
  PlxReport r;
  double L = 48, p = 4, v = 3;
  /* Selective recompute re-creates one layer's attention core while that layer's
   * backward runs (Korthikanti §5): its softmax output, 2 bytes x a s^2 b / t with
   * no dropout mask (attn_pdrop 0) = 2 * 32 * 2048^2 / 8 = 33,554,432 bytes on top
   * of the Table 2 sets the formulas below count. */
  double core = 2.0 * 32 * 2048.0 * 2048.0 / 8;

  /* 1F1B: the first stage holds p micro-batches of L/p layers, L layers in all
   * (Korthikanti §4.2.3). */
  r = test_run (one);
  g_assert_cmpuint (r.reported_stage, ==, 0);
  g_assert_cmpfloat (fabs (r.memory_bytes[PLX_MEM_ACTIVATIONS] - (L * layer + core)), <=, 1.0);
  /* Interleaved: L (1 + (p - 1)/(p v)) layers (Korthikanti eq. 5). */
  r = test_run (inter);
  g_assert_cmpfloat (fabs (r.memory_bytes[PLX_MEM_ACTIVATIONS] - (L * (1.0 + (p - 1.0) / (p * v)) * layer + core)), <=,
                     1.0);
  /* GPipe: every stage holds all m = 64 micro-batches of L/p layers; the last also
   * keeps each one's LM-head input and final-norm input (2 bytes x s h / t each with
   * sequence parallelism) and the fp32 softmax of the loss (4 bytes x s V / t), so it
   * is the peak: 2*2048*4096/8*2 + 2048*51200/8*4 = 56,623,104 bytes a micro-batch. */
  r = test_run (gpipe);
  g_assert_cmpuint (r.reported_stage, ==, 3);
  g_assert_cmpfloat (fabs (r.memory_bytes[PLX_MEM_ACTIVATIONS] - (64.0 * (L / p * layer + 56623104.0) + core)), <=, 1.0);
  /* 1F1B with fewer micro-batches (2) than stages holds only those. */
  r = test_run (few);
  g_assert_cmpfloat (fabs (r.memory_bytes[PLX_MEM_ACTIVATIONS] - (2.0 * L / p * layer + core)), <=, 1.0);
}

static void
test_pipeline_chunks_in_flight (void)
{
  /* 1F1B stage i of p holds p - i micro-batches (Narayanan et al. 2021 §2.2.1). */
  for (guint i = 0; i < 8; i++)
    g_assert_cmpfloat (plx_pipeline_chunks_in_flight (PLX_SCHEDULE_1F1B, 8, 1, i, 64), ==, 8 - i);
  /* Megatron interleaved, p = 8, v = 3: 2(p - i - 1) + (v - 1)p + 1 chunks. */
  g_assert_cmpfloat (plx_pipeline_chunks_in_flight (PLX_SCHEDULE_INTERLEAVED_1F1B, 8, 3, 0, 64), ==, 31);
  g_assert_cmpfloat (plx_pipeline_chunks_in_flight (PLX_SCHEDULE_INTERLEAVED_1F1B, 8, 3, 7, 64), ==, 17);
  g_assert_cmpfloat (plx_pipeline_chunks_in_flight (PLX_SCHEDULE_GPIPE, 8, 1, 3, 64), ==, 64);
}

#define STATES_SCENARIO(zero, dtype) \
  "{ \"model\": { \"preset\": \"gpt2\" }," \
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1, \"gpus_per_node\": 4 }," \
  "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 16, \"dp\": 4," \
  "                \"zero_stage\": " #zero ", \"dtype\": \"" dtype "\" } }"

#define STATES_CP_SCENARIO(zero, extra) \
  "{ \"model\": { \"preset\": \"gpt2\" }," \
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1, \"gpus_per_node\": 4 }," \
  "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 16, \"dp\": 2, \"cp\": 2," \
  "                \"zero_stage\": " #zero extra " } }"

static void
test_model_states_zero (void)
{
  /* GPT-2 small, 124,439,808 parameters on each of 4 data-parallel GPUs. Megatron
   * mixed precision: 2-byte weights, 4-byte gradients, 12-byte Adam state (18 per
   * parameter, Korthikanti Fig. 1); ZeRO-1/2/3 divide the optimizer, then gradients,
   * then weights by dp (Rajbhandari et al. 2020 §5.1). fp16 keeps 2-byte grads. */
  const double n = 124439808;
  struct { const char *json; double w, g, o; } cases[] = {
    { STATES_SCENARIO (0, "bf16"), 2 * n, 4 * n, 12 * n },
    { STATES_SCENARIO (1, "bf16"), 2 * n, 4 * n, 12 * n / 4 },
    { STATES_SCENARIO (2, "bf16"), 2 * n, 4 * n / 4, 12 * n / 4 },
    { STATES_SCENARIO (3, "bf16"), 2 * n / 4, 4 * n / 4, 12 * n / 4 },
    { STATES_SCENARIO (0, "fp16"), 2 * n, 2 * n, 12 * n },
    { STATES_SCENARIO (0, "fp32"), 4 * n, 4 * n, 8 * n },
    /* Context-parallel ranks hold the same weights and shard with the data-parallel
     * ones (Megatron-Core's data-parallel group with context parallel; torchtitan's
     * FSDP over dp_shard x cp): dp 2 x cp 2 divides by 4; hybrid over groups of one
     * data-parallel rank still shards over its two context-parallel ranks. */
    { STATES_CP_SCENARIO (1, ""), 2 * n, 4 * n, 12 * n / 4 },
    { STATES_CP_SCENARIO (3, ""), 2 * n / 4, 4 * n / 4, 12 * n / 4 },
    { STATES_CP_SCENARIO (3, ", \"shard_group_size\": 1"), 2 * n / 2, 4 * n / 2, 12 * n / 2 },
    /* grad_dtype: bf16 keeps 2-byte gradients (NeMo's distributed_fused_adam with
     * grad_sync_dtype bf16), sharded as before; fp32 keeps 4 bytes even under fp16. */
    { STATES_CP_SCENARIO (1, ", \"grad_dtype\": \"bf16\""), 2 * n, 2 * n, 12 * n / 4 },
    { STATES_CP_SCENARIO (2, ", \"grad_dtype\": \"bf16\""), 2 * n, 2 * n / 4, 12 * n / 4 },
    { STATES_CP_SCENARIO (0, ", \"grad_dtype\": \"fp32\", \"dtype\": \"fp16\""), 2 * n, 4 * n, 12 * n },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (PlxScenario) sc = test_scenario_from_string (cases[i].json);
      PlxReport r = test_run (sc);

      g_assert_cmpfloat (fabs (r.memory_bytes[PLX_MEM_WEIGHTS] - cases[i].w), <=, 1.0);
      g_assert_cmpfloat (fabs (r.memory_bytes[PLX_MEM_GRADIENTS] - cases[i].g), <=, 1.0);
      g_assert_cmpfloat (fabs (r.memory_bytes[PLX_MEM_OPTIMIZER] - cases[i].o), <=, 1.0);
    }
}

static void
test_peak_and_fit (void)
{
  /* 22B without recompute on one node: 59.25 GiB of activations plus 45.6 GiB of
   * model states do not fit 80 GB (Korthikanti Fig. 1); with selective recompute
   * and sequence parallelism they do. */
  g_autoptr (PlxScenario) none = test_scenario_from_string (SCENARIO_22B (8, false, "none"));
  g_autoptr (PlxScenario) sel = test_scenario_from_string (SCENARIO_22B (8, true, "selective"));
  PlxReport r = test_run (none);
  guint64 sum = 0;

  for (guint i = 0; i < PLX_N_MEM; i++)
    sum += r.memory_bytes[i];
  g_assert_cmpuint (sum, ==, r.peak_memory_bytes);
  g_assert_false (r.fits_in_memory);
  r = test_run (sel);
  g_assert_true (r.fits_in_memory);
  g_assert_cmpuint (r.peak_memory_bytes, <=, r.hbm_usable_bytes);
}

static void
test_max_micro_batch (void)
{
  /* The largest micro-batch that fits, found by GSL's Brent solver, is the whole
   * number b with peak(b) <= usable < peak(b + 1). */
  g_autoptr (PlxScenario) sc = test_scenario_from_string (SCENARIO_22B (8, true, "selective"));
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxStrategy) probe = NULL;
  guint64 best = 0;
  PlxReport r;

  g_assert_true (plx_analytic_max_micro_batch_size (sc->model, sc->cluster, sc->strategy, &best, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (best, >=, 4);
  probe = plx_strategy_copy (sc->strategy);
  probe->micro_batch_size = best;
  probe->global_batch_size = best;
  g_assert_true (plx_analytic_run (sc->model, sc->cluster, probe, &r, NULL));
  g_assert_true (r.fits_in_memory);
  probe->micro_batch_size = best + 1;
  probe->global_batch_size = best + 1;
  g_assert_true (plx_analytic_run (sc->model, sc->cluster, probe, &r, NULL));
  g_assert_false (r.fits_in_memory);
}

/* One layer's costs on one GPU for one micro-batch (plx-costing.c). */
static PlxBlockCost
layer_costs (const PlxScenario *sc)
{
  PlxCosting cx;
  PlxStageCosts costs;

  plx_costing_init (&cx, sc->model, sc->cluster, sc->strategy, (double) sc->strategy->micro_batch_size);
  plx_costing_compute (&cx, &costs);
  return costs.layer;
}

/* recompute "save-dots-except-mlp-input" (MaxText's save_dot_except_mlpwi) on the
 * 22B GPT of Korthikanti Table 3 (unfused attention with dropout, ffn 4h). A layer
 * keeps its input (2sbh, /t with sequence parallelism), the Q, K and V projections'
 * output the attention core reads (3 h values a token, 2 bytes, split by t: 6sbh/t)
 * and the out projection's output that the MLP half's norm reads with the input
 * (2sbh, /t with sequence parallelism): 10 sbh/t, or 4sbh + 6sbh/t without
 * sequence parallelism - between full's 2sbh/t and selective's 34sbh/t. Recomputed
 * in backward: the fc1 GEMM (2 s b h 4h / t FLOPs), the attention core's two
 * matmuls (2 s b s h / t each) and the memory-bound ops (no FLOPs). */
static void
test_save_dots_gpt (void)
{
  g_autoptr (PlxScenario) sp = test_scenario_from_string (SCENARIO_22B (8, true, "save-dots-except-mlp-input"));
  g_autoptr (PlxScenario) nosp = test_scenario_from_string (SCENARIO_22B (8, false, "save-dots-except-mlp-input"));
  double t = 8;
  PlxBlockCost l = layer_costs (sp);

  g_assert_false (sp->strategy->flash_attention);
  assert_close (layer_saved (SCENARIO_22B (8, true, "save-dots-except-mlp-input")), 10.0 * s * b * h / t);
  assert_close (layer_saved (SCENARIO_22B (8, false, "save-dots-except-mlp-input")), 4.0 * s * b * h + 6.0 * s * b * h / t);
  assert_close (l.saved_bytes, 10.0 * s * b * h / t);
  assert_close (l.recompute_flops, (2.0 * s * b * h * 4.0 * h + 4.0 * s * s * b * h) / t);
  assert_close (layer_costs (nosp).recompute_flops, (2.0 * s * b * h * 4.0 * h + 4.0 * s * s * b * h) / t);
  /* Each block's backward rebuilds what it did not keep. */
  assert_close (plx_costing_recompute_transient_bytes (sp->strategy, &l), l.full_saved_bytes - 10.0 * s * b * h / t);
  g_assert_cmpfloat (l.recompute_s, >, 0.0);
  g_assert_cmpfloat (l.wgrad_saved_bytes, ==, 0.0);
}

/* A small Llama (SwiGLU, grouped-query attention, RMSNorm) under jax-xla with flash
 * attention. h 1024, 16 heads of 64, 4 KV heads (kv = 256), ffn 2816; s 2048, b 2;
 * no tensor parallelism. Kept a layer: its input (2 s b h bytes), the flash kernel's
 * Q, K, V (2 s b (h + 2 kv)) and its fp32 log-sum-exp (4 s b heads), the out
 * projection's output (2 s b h). Recomputed: gate and up (2 s b h 2 ffn FLOPs) and
 * the flash forward (4 s b s h FLOPs as counted, the full matrix). */
#define SMALL_LLAMA(impl, recompute, zero, tp, pp, dp, sp) \
  "{ \"model\": { \"model_type\": \"llama\", \"hidden_size\": 1024, \"intermediate_size\": 2816," \
  "               \"num_hidden_layers\": 8, \"num_attention_heads\": 16, \"num_key_value_heads\": 4," \
  "               \"vocab_size\": 32000, \"max_position_embeddings\": 4096 }," \
  "  \"cluster\": { \"preset\": \"dgx-h100-80gb\", \"num_nodes\": 1 }," \
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 16, \"micro_batch_size\": 2, \"tp\": " #tp "," \
  "                \"pp\": " #pp ", \"dp\": " #dp ", \"sequence_parallel\": " #sp ", \"recompute\": \"" recompute "\"," \
  "                \"zero_stage\": " #zero ", \"flash_attention\": true, \"implementation\": \"" impl "\" } }"

static void
test_save_dots_llama (void)
{
  g_autoptr (PlxScenario) sc = test_scenario_from_string (SMALL_LLAMA ("jax-xla", "save-dots-except-mlp-input", 3, 1, 1, 8, false));
  const double ls = 2048, lb = 2, lh = 1024, kv = 256, ffn = 2816, heads = 16;
  PlxBlockCost l = layer_costs (sc);

  assert_close (l.saved_bytes, ls * lb * (2.0 * lh + 2.0 * (lh + 2.0 * kv) + 4.0 * heads + 2.0 * lh));
  assert_close (l.recompute_flops, 2.0 * ls * lb * lh * 2.0 * ffn + 4.0 * ls * lb * ls * lh);
}

/* jax-xla runs the fused costs: under ZeRO-3, where "auto" means eager PyTorch, it
 * gives what "megatron" gives, not what "pytorch" (or "pytorch-eager") does. */
static void
test_jax_xla_fused (void)
{
  g_autoptr (PlxScenario) jax = test_scenario_from_string (SMALL_LLAMA ("jax-xla", "save-dots-except-mlp-input", 3, 1, 1, 8, false));
  g_autoptr (PlxScenario) meg = test_scenario_from_string (SMALL_LLAMA ("megatron", "save-dots-except-mlp-input", 3, 1, 1, 8, false));
  g_autoptr (PlxScenario) eager = test_scenario_from_string (SMALL_LLAMA ("pytorch-eager", "save-dots-except-mlp-input", 3, 1, 1, 8, false));
  g_autoptr (PlxScenario) pt = test_scenario_from_string (SMALL_LLAMA ("pytorch", "save-dots-except-mlp-input", 3, 1, 1, 8, false));
  PlxReport rj = test_run (jax), rm = test_run (meg), re = test_run (eager), rp = test_run (pt);

  g_assert_cmpfloat (rj.step_time_s, ==, rm.step_time_s);
  g_assert_cmpuint (rj.peak_memory_bytes, ==, rm.peak_memory_bytes);
  g_assert_cmpfloat (re.step_time_s, ==, rp.step_time_s);
  g_assert_cmpfloat (re.step_time_s, >, rj.step_time_s);
}

/* pytorch-compile: PyTorch with its element-wise ops fused. Against eager PyTorch a
 * layer's forward moves, per token, 16 h fewer elements in each RMSNorm (18 h eager,
 * 2 h fused: two norms), 9 (q + kv) fewer in rotary (11 against 2, over Q and K:
 * q 1024, kv 256) and 2 ffn fewer in SwiGLU (5 against 3): x s b tokens x 2 bytes.
 * The GEMMs (still separate nn.Linear ones), the attention and what is kept stay. */
static void
test_pytorch_compile (void)
{
  g_autoptr (PlxScenario) compiled = test_scenario_from_string (SMALL_LLAMA ("pytorch-compile", "selective", 3, 1, 1, 8, false));
  g_autoptr (PlxScenario) eager = test_scenario_from_string (SMALL_LLAMA ("pytorch", "selective", 3, 1, 1, 8, false));
  const double ls = 2048, lb = 2, lh = 1024, q = 1024, kv = 256, ffn = 2816;
  PlxBlockCost c = layer_costs (compiled), e = layer_costs (eager);

  g_assert_true (plx_strategy_is_pytorch (compiled->strategy));
  g_assert_cmpstr (plx_implementation_to_string (compiled->strategy->implementation), ==, "pytorch-compile");
  assert_close (e.fwd_bytes - c.fwd_bytes, ls * lb * 2.0 * (2.0 * 16.0 * lh + 9.0 * (q + kv) + 2.0 * ffn));
  g_assert_cmpfloat (c.fwd_flops, ==, e.fwd_flops);
  g_assert_cmpfloat (c.saved_bytes, ==, e.saved_bytes);
  g_assert_cmpfloat (c.recompute_flops, ==, e.recompute_flops);
  g_assert_cmpfloat (test_run (compiled).step_time_s, <, test_run (eager).step_time_s);
}

/* Both engines on the new names, with tensor, pipeline and data parallelism and
 * ZeRO-3 and -1: within 3 % (as on every published case). */
static void
test_save_dots_engines_agree (void)
{
  static const char *const scenarios[] = {
    SMALL_LLAMA ("jax-xla", "save-dots-except-mlp-input", 3, 1, 1, 8, false),
    SMALL_LLAMA ("jax-xla", "save-dots-except-mlp-input", 1, 2, 2, 2, true),
    SMALL_LLAMA ("pytorch-eager", "save-dots-except-mlp-input", 3, 2, 1, 4, true),
    SMALL_LLAMA ("jax-xla", "selective", 3, 1, 2, 4, false),
    SMALL_LLAMA ("pytorch-compile", "selective", 3, 2, 2, 2, true),
  };

  for (guint i = 0; i < G_N_ELEMENTS (scenarios); i++)
    {
      g_autoptr (PlxScenario) sc = test_scenario_from_string (scenarios[i]);
      g_autoptr (GError) error = NULL;
      PlxReport an = test_run (sc), ev;

      g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &ev, NULL, NULL, NULL, &error));
      g_assert_no_error (error);
      g_test_message ("scenario %u: analytical %.4f s, event %.4f s", i, an.step_time_s, ev.step_time_s);
      g_assert_cmpfloat (fabs (ev.step_time_s - an.step_time_s) / an.step_time_s, <, 0.03);
      g_assert_cmpfloat (fabs (ev.hardware_flops_per_step - an.hardware_flops_per_step) / an.hardware_flops_per_step, <, 1e-9);
    }
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/core/memory/table2/no-parallelism", test_table2_no_parallelism);
  g_test_add_func ("/core/memory/table2/tensor-parallel", test_table2_tensor_parallel);
  g_test_add_func ("/core/memory/table2/sequence-parallel", test_table2_sequence_parallel);
  g_test_add_func ("/core/memory/table2/selective", test_table2_selective);
  g_test_add_func ("/core/memory/table2/full", test_table2_full);
  g_test_add_func ("/core/memory/full-recompute-peak", test_full_recompute_peak);
  g_test_add_func ("/core/memory/recompute-order", test_recompute_order);
  g_test_add_func ("/core/memory/recompute-one-layer", test_recompute_one_layer);
  g_test_add_func ("/core/memory/zero-bubble-peak", test_zero_bubble_peak);
  g_test_add_func ("/core/memory/pipeline-activations", test_pipeline_activations);
  g_test_add_func ("/core/memory/chunks-in-flight", test_pipeline_chunks_in_flight);
  g_test_add_func ("/core/memory/model-states-zero", test_model_states_zero);
  g_test_add_func ("/core/memory/peak-and-fit", test_peak_and_fit);
  g_test_add_func ("/core/memory/max-micro-batch", test_max_micro_batch);
  g_test_add_func ("/core/memory/save-dots/gpt", test_save_dots_gpt);
  g_test_add_func ("/core/memory/save-dots/llama", test_save_dots_llama);
  g_test_add_func ("/core/memory/save-dots/engines-agree", test_save_dots_engines_agree);
  g_test_add_func ("/core/memory/jax-xla-fused", test_jax_xla_fused);
  g_test_add_func ("/core/memory/pytorch-compile", test_pytorch_compile);
  return g_test_run ();
}
