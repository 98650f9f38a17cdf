/* Transformer scenarios as distributed programs (docs/ir.md, "Transformer
 * scenarios"): the IR simulator runs the program the event engine's plan becomes and
 * agrees with the event engine within 1 % on every published case in tests/data;
 * the program's shape is counted by hand; the streams and the contention rule are
 * checked on a program whose times are worked out by hand. */
#include <math.h>
#include <string.h>

#include "parallax/parallax.h"

#include "test-sanitizer.h"
#include "test-util.h"
#include "cost/plx-cost-memo.h"
#include "cost/plx-op-cost.h"
#include "ir/plx-ir-lower.h"
#include "ir/plx-ir-timeline.h"
#include "ir/plx-ir.h"

/* Under AddressSanitizer (-O0, tens of times slower, and CI's two cores shared with
 * the property test) the programs of more than 20,000 passes - Korthikanti's 530B and
 * 1T, 200,000 to 680,000 ops - are left to the optimised build, which checks every
 * case. */
#if defined(PLX_TEST_ASAN)
#define MAX_PASSES 20000.0
#define CHECK_PASSES 20.0
#else
#define MAX_PASSES G_MAXDOUBLE
#define CHECK_PASSES 500.0
#endif

static void
test_validation_cases (void)
{
  /* Every case of every validation table: step time and peak memory per GPU. */
  static const char *const tables[] = { "bloom176b.json", "fms-fsdp-a100-h100.json", "korthikanti2022.json",
                                        "megatron-lm-readme-h100.json", "nemo-perf-h100-fp8.json",
                                        "torchtitan-a100.json" };
  guint n_cases = 0;
  double worst = 0.0;

  for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
    {
      g_autofree char *path = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", tables[t], NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxValidationTable) table = plx_validation_table_load (path, &error);

      g_assert_no_error (error);
      for (guint i = 0; i < table->cases->len; i++)
        {
          const PlxValidationCase *c = table->cases->pdata[i];
          const PlxScenario *sc = c->scenario;
          PlxReport event = { 0 }, ir = { 0 };
          double dt, dm;

          if ((double) plx_strategy_get_n_micro_batches (sc->strategy) * sc->strategy->pp *
                sc->strategy->virtual_stages > MAX_PASSES)
            {
              n_cases++;
              continue;
            }
          g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &event, NULL, NULL, NULL, &error));
          g_assert_true (plx_ir_run_scenario (sc->model, sc->cluster, sc->strategy, &ir, NULL, NULL, &error));
          g_assert_no_error (error);
          /* What `plan --json` prints, `simulate --program` reads: the programs of up to
           * 500 passes (ZeRO 0, 1 and 3, one stage and several: FSDP, torchtitan,
           * Megatron 1.7B to 70B, NeMo 5B, Korthikanti 22B; under AddressSanitizer
           * up to 20, all of those but NeMo's), the larger ones made of the same ops
           * (a JSON round trip of a 680,000-op program takes a minute). */
          if ((double) plx_strategy_get_n_micro_batches (sc->strategy) * sc->strategy->pp *
                sc->strategy->virtual_stages <= CHECK_PASSES)
            {
              g_autoptr (PlxIrGraph) g = plx_ir_lower_scenario (sc->model, sc->cluster, sc->strategy, NULL, NULL,
                                                                &error);
              g_assert_no_error (error);
              if (!plx_ir_graph_check (g, c->name, &error))
                g_error ("%s, %s: %s", tables[t], c->name, error->message);
            }
          g_assert_cmpstr (ir.engine, ==, "ir");
          dt = fabs (ir.step_time_s / event.step_time_s - 1.0);
          dm = fabs ((double) ir.peak_memory_bytes / (double) event.peak_memory_bytes - 1.0);
          if (dt >= 0.01 || dm >= 0.01)
            g_error ("%s, %s: the IR simulator's step %.6g s, peak %.6g B; the event engine's %.6g s, %.6g B",
                     tables[t], c->name, ir.step_time_s, (double) ir.peak_memory_bytes, event.step_time_s,
                     (double) event.peak_memory_bytes);
          /* Same static memory, same stage reported. */
          g_assert_cmpuint (ir.reported_stage, ==, event.reported_stage);
          g_assert_cmpuint (ir.memory_bytes[PLX_MEM_WEIGHTS], ==, event.memory_bytes[PLX_MEM_WEIGHTS]);
          worst = MAX (worst, dt);
          n_cases++;
        }
    }
  g_assert_cmpuint (n_cases, >=, 45);
  g_test_message ("%u cases, largest step-time difference %.3f %%", n_cases, worst * 100.0);
}

/* Two stages, four micro-batches of one sequence, 1F1B, data parallel 2: small
 * enough to count by hand. */
#define SMALL_SCENARIO \
  "{ \"model\": { \"model_type\": \"gpt2\", \"n_layer\": 4, \"n_embd\": 1024, \"n_head\": 16," \
  "              \"vocab_size\": 51200, \"n_positions\": 1024 }," \
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 }," \
  "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 8, \"micro_batch_size\": 1, \"tp\": 2, \"pp\": 2," \
  "                \"dp\": 2, \"schedule\": \"1f1b\", \"recompute\": \"selective\" } }"

static guint
count_ops (const PlxIrGraph *g, PlxIrKind kind)
{
  guint n = 0;

  for (guint i = 0; i < g->ops->len; i++)
    n += ((const PlxIrOp *) g->ops->pdata[i])->kind == kind;
  return n;
}

static void
test_program_shape (void)
{
  g_autoptr (PlxScenario) sc = test_scenario_from_string (SMALL_SCENARIO);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxPlan) plan = NULL;
  g_autoptr (PlxIrGraph) g = plx_ir_lower_scenario (sc->model, sc->cluster, sc->strategy, &plan, NULL, &error);
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (PlxIrGraph) back = NULL;
  PlxIrRun run, run_back;
  PlxReport event;
  guint activations = 0, kernels = 0, tasks = 0;

  g_assert_no_error (error);
  g_assert_cmpuint (g->n_devices, ==, 2);
  /* dp 2 leaves 8 / 2 = 4 micro-batches per rank; each forward pass but the last
   * stage's sends its activations on, each backward pass but the first stage's its
   * gradients back: 2 x 4 x (2 - 1) sends. */
  g_assert_cmpuint (plan->micro_batches, ==, 4);
  g_assert_cmpuint (count_ops (g, PLX_IR_SEND), ==, 8);
  /* One tensor of kept activations per stage and micro-batch, of the plan's size. */
  for (guint i = 0; i < g->tensors->len; i++)
    {
      const PlxIrTensor *t = g->tensors->pdata[i];
      if (g_str_has_suffix (t->name, " activations"))
        {
          guint s = t->name[3] - '0';
          activations++;
          g_assert_cmpfloat (fabs (plx_ir_tensor_bytes (t) - plan->chunks[s].saved_bytes), <=, 0.5);
        }
    }
  g_assert_cmpuint (activations, ==, 2 * 4);
  /* Every compute task is a kernel with the plan's time and FLOPs; every pass
   * starts with one (embedding, layer 2 attention, LM head backward, layer 1 MLP
   * backward), so needs no marker to begin; stage 1's backward passes end with a TP
   * all-reduce, so each of its 4 has a marker op after it that releases its
   * activations; and each stage has one "passes done", "gradients ready" and
   * optimizer step. */
  for (guint k = 0; k < 2; k++)
    for (guint p = 0; p < 2; p++)
      for (guint j = 0; j < plan->chunks[k].pass[p].n_tasks; j++)
        tasks += plan->chunks[k].pass[p].tasks[j].stream == PLX_STREAM_COMPUTE;
  for (guint i = 0; i < g->ops->len; i++)
    kernels += ((const PlxIrOp *) g->ops->pdata[i])->kind == PLX_IR_KERNEL;
  g_assert_cmpuint (kernels, ==, tasks * 4 + 4 + 3 * 2);
  /* The gradient buckets reduce on a stream of their own, and the tied embedding's
   * gradients between the two stages. */
  g_assert_cmpint (plx_ir_graph_stream (g, "dp"), >=, 2);

  /* It runs to the event engine's step, and reads back from its JSON to the same. */
  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &event, NULL, NULL, NULL, &error));
  g_assert_true (plx_ir_simulate (g, sc->cluster, &run, &error));
  g_assert_cmpfloat (fabs (run.makespan_s / event.step_time_s - 1.0), <, 0.01);
  node = plx_ir_graph_to_json (g);
  back = plx_ir_graph_new_from_json (node, "program", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->ops->len, ==, g->ops->len);
  g_assert_true (plx_ir_simulate (back, sc->cluster, &run_back, &error));
  g_assert_cmpfloat (run_back.makespan_s, ==, run.makespan_s);
  g_assert_cmpfloat (run_back.peak_bytes, ==, run.peak_bytes);
  plx_ir_run_clear (&run);
  plx_ir_run_clear (&run_back);
}

/* Times worked out by hand: device 0 computes a (4 s) while a gradient all-reduce r
 * (2 s) runs beside it on the "dp" stream; b reads both. With overlap_slowdown 0.1
 * the compute beside r lost 0.1 x 2 s, so b starts at 4 + 0.2 s, ends 5.2. The send
 * s (3 s) holds device 0's compute stream (5.2 to 8.2), so c, whose input was ready
 * at 4 s, starts at 8.2. On device 1, d (1 s on "comm") is not held up by the
 * receive, which runs on "recv"; e reads what s sent: 8.2 to 9.2. */
#define STREAMS_PROGRAM(slowdown) \
  "{ \"format\": \"parallax-ir\", \"devices\": 2, \"overlap_slowdown\": " slowdown "," \
  "  \"tensors\": [ { \"name\": \"x\", \"shape\": [] }, { \"name\": \"ta\", \"shape\": [] }," \
  "    { \"name\": \"tr\", \"shape\": [] }, { \"name\": \"tb\", \"shape\": [] }, { \"name\": \"ts\", \"shape\": [] }," \
  "    { \"name\": \"tc\", \"shape\": [] }, { \"name\": \"td\", \"shape\": [] }, { \"name\": \"te\", \"shape\": [] } ]," \
  "  \"ops\": [" \
  "    { \"name\": \"a\", \"op\": \"kernel\", \"inputs\": [], \"outputs\": [\"ta\"], \"time_s\": 4 }," \
  "    { \"name\": \"r\", \"op\": \"all_reduce\", \"inputs\": [\"x\"], \"outputs\": [\"tr\"], \"time_s\": 2," \
  "      \"stream\": \"dp\" }," \
  "    { \"name\": \"b\", \"op\": \"kernel\", \"inputs\": [\"ta\", \"tr\"], \"outputs\": [\"tb\"], \"time_s\": 1 }," \
  "    { \"name\": \"s\", \"op\": \"send\", \"inputs\": [\"tb\"], \"outputs\": [\"ts\"], \"peer\": 1, \"time_s\": 3," \
  "      \"stream\": \"compute\", \"peer_stream\": \"recv\" }," \
  "    { \"name\": \"c\", \"op\": \"kernel\", \"inputs\": [\"ta\"], \"outputs\": [\"tc\"], \"time_s\": 1 }," \
  "    { \"name\": \"d\", \"op\": \"all_reduce\", \"inputs\": [\"x\"], \"outputs\": [\"td\"], \"devices\": [1]," \
  "      \"time_s\": 1 }," \
  "    { \"name\": \"e\", \"op\": \"kernel\", \"inputs\": [\"ts\"], \"outputs\": [\"te\"], \"devices\": [1]," \
  "      \"time_s\": 1 } ] }"

static PlxIrGraph *
parse_program (const char *text, GError **error)
{
  g_autoptr (JsonNode) node = plx_json_parse_data (text, -1, "streams.json", error);

  return node != NULL ? plx_ir_graph_new_from_json (node, "streams.json", error) : NULL;
}

static void
test_streams_and_contention (void)
{
  g_autoptr (PlxScenario) sc = test_scenario_from_string (SMALL_SCENARIO);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = parse_program (STREAMS_PROGRAM ("0.1"), &error);
  g_autoptr (PlxIrGraph) none = NULL;
  static const double start[] = { 0, 0, 4.2, 5.2, 8.2, 0, 8.2 }, end[] = { 4, 2, 5.2, 8.2, 9.2, 1, 9.2 };
  PlxIrRun run;

  g_assert_no_error (error);
  g_assert_true (plx_ir_simulate (g, sc->cluster, &run, &error));
  for (guint i = 0; i < G_N_ELEMENTS (start); i++)
    {
      g_assert_cmpfloat_with_epsilon (run.op_start_s[i], start[i], 1e-12);
      g_assert_cmpfloat_with_epsilon (run.op_end_s[i], end[i], 1e-12);
    }
  g_assert_cmpfloat_with_epsilon (run.makespan_s, 9.2, 1e-12);
  /* Device 0 computed a, b and c (6 s) and communicated r and the send (5 s; the
   * send held the compute stream, but it is communication). */
  g_assert_cmpfloat_with_epsilon (run.device_compute_s[0], 6.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (run.device_comm_s[0], 5.0, 1e-12);
  plx_ir_run_clear (&run);

  /* No slowdown: b starts when a ends. */
  none = parse_program (STREAMS_PROGRAM ("0"), &error);
  g_assert_no_error (error);
  g_assert_true (plx_ir_simulate (none, sc->cluster, &run, &error));
  g_assert_cmpfloat_with_epsilon (run.op_start_s[2], 4.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (run.makespan_s, 9.0, 1e-12);
  plx_ir_run_clear (&run);
}

static void
test_run_charts (void)
{
  /* The streams program's run as the charts see it: one event per op and device, at
   * the times worked out above; the all-reduce on "dp" is data-parallel
   * communication, the send a pipeline send. */
  g_autoptr (PlxScenario) sc = test_scenario_from_string (SMALL_SCENARIO);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = parse_program (STREAMS_PROGRAM ("0.1"), &error);
  g_autoptr (PlxTimeline) timeline = NULL;
  g_autoptr (PlxMemoryTrace) trace = NULL;
  PlxReport report;
  PlxIrRun run;

  g_assert_no_error (error);
  g_assert_true (plx_ir_simulate (g, sc->cluster, &run, &error));
  plx_ir_run_charts (g, &run, NULL, &timeline, &trace);
  g_assert_true (timeline->per_device);
  g_assert_cmpuint (timeline->n_ranks, ==, 2);
  g_assert_cmpuint (plx_timeline_n_events (timeline), ==, 7);
  {
    PlxTimelineEvent r_event, send_event, e_event;
    const PlxTimelineEvent *r = &r_event, *send = &send_event, *e = &e_event;
    g_assert_true (plx_timeline_get_event (timeline, 1, &r_event));
    g_assert_true (plx_timeline_get_event (timeline, 3, &send_event));
    g_assert_true (plx_timeline_get_event (timeline, 6, &e_event));
    g_assert_cmpstr (r->label, ==, "r");
    g_assert_cmpuint (r->kind, ==, PLX_KIND_DP_COMM);
    g_assert_cmpuint (r->stream, ==, PLX_STREAM_DP);
    g_assert_cmpuint (send->kind, ==, PLX_KIND_PP_SEND);
    g_assert_cmpfloat_with_epsilon (send->start_s, 5.2, 1e-12);
    g_assert_cmpuint (e->rank, ==, 1);
    g_assert_cmpfloat_with_epsilon (e->end_s, 9.2, 1e-12);
  }
  /* Device 0 holds x (a bf16 scalar, 2 bytes) as "other" (a data input). */
  g_assert_cmpfloat (trace->static_bytes[PLX_MEM_OTHER], ==, 2.0);
  g_assert_cmpfloat (trace->peak_activation_bytes[0], >, 0.0);
  plx_ir_run_report (g, &run, sc->cluster, &report);
  g_assert_cmpstr (report.engine, ==, "ir");
  g_assert_cmpfloat_with_epsilon (report.step_time_s, 9.2, 1e-12);
  /* The fullest device is device 0 (x and four outputs, bf16 scalars, against
   * device 1's x and three). Its time by kind: compute a, b and c 6 s, the send 3 s,
   * the reduction 2 s; 11 s in a 9.2 s step (the reduction ran beside a), so no
   * bubble. */
  g_assert_cmpuint (report.reported_stage, ==, 0);
  g_assert_cmpfloat_with_epsilon (report.time_s[PLX_TIME_COMPUTE], 6.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (report.time_s[PLX_TIME_PP_COMM], 3.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (report.time_s[PLX_TIME_DP_COMM], 2.0, 1e-12);
  g_assert_cmpfloat (report.time_s[PLX_TIME_BUBBLE], ==, 0.0);
  plx_ir_run_clear (&run);
}

static void
test_bad_programs (void)
{
  static const struct
  {
    const char *op;
    const char *message;
  } cases[] = {
    { "{ \"name\": \"m\", \"op\": \"relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"flops\": 5 }",
      "ops[0].flops: op \"m\" is a relu; only a kernel is given its FLOPs and bytes" },
    { "{ \"name\": \"m\", \"op\": \"relu\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"peer_stream\": \"r\" }",
      "ops[0].peer_stream: op \"m\" is a relu; only a send has a receiving end" },
    { "{ \"name\": \"m\", \"op\": \"kernel\", \"inputs\": [], \"outputs\": [\"y\"], \"time_s\": -1 }",
      "ops[0].time_s" },
    { "{ \"name\": \"m\", \"op\": \"kernel\", \"inputs\": [], \"outputs\": [\"y\"], \"time_s\": \"soon\" }",
      "ops[0].time_s" },
    { "{ \"name\": \"m\", \"op\": \"kernel\", \"inputs\": [], \"outputs\": [\"y\"], \"stream\": 3 }",
      "ops[0].stream" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf ("{ \"devices\": 1, \"tensors\": [ { \"name\": \"x\", \"shape\": [4] },"
                                               " { \"name\": \"y\", \"shape\": [4] } ], \"ops\": [ %s ] }",
                                               cases[i].op);
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxIrGraph) g = parse_program (text, &error);

      g_assert_null (g);
      g_assert_nonnull (error);
      if (strstr (error->message, cases[i].message) == NULL)
        g_error ("case %u: \"%s\" does not say \"%s\"", i, error->message, cases[i].message);
      g_assert_nonnull (strstr (error->message, "streams.json"));
    }

  /* Seventeen streams: one more than a program may name. */
  {
    g_autoptr (GString) text = g_string_new ("{ \"devices\": 1, \"tensors\": [");
    g_autoptr (GError) error = NULL;
    g_autoptr (PlxIrGraph) g = NULL;
    for (guint i = 0; i < 16; i++)
      g_string_append_printf (text, "%s{ \"name\": \"t%u\", \"shape\": [] }", i ? ", " : "", i);
    g_string_append (text, " ], \"ops\": [");
    for (guint i = 0; i < 16; i++)
      g_string_append_printf (text, "%s{ \"name\": \"o%u\", \"op\": \"kernel\", \"inputs\": [], \"outputs\": "
                              "[\"t%u\"], \"stream\": \"s%u\" }", i ? ", " : "", i, i, i);
    g_string_append (text, " ] }");
    g = parse_program (text->str, &error);
    g_assert_null (g);
    g_assert_nonnull (strstr (error->message, "ops[14].stream: op \"o14\": stream \"s14\" is one more than the 16 streams a program may have"));
  }
}

static void
test_kernel_times (void)
{
  /* A kernel given its bytes and no FLOPs moves them through HBM; with FLOPs, the
   * GEMM roofline; with time_s, that. */
  g_autoptr (PlxScenario) sc = test_scenario_from_string (SMALL_SCENARIO);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) g = parse_program (
    "{ \"tensors\": [ { \"name\": \"x\", \"shape\": [4] }, { \"name\": \"y\", \"shape\": [4] },"
    "  { \"name\": \"z\", \"shape\": [4] }, { \"name\": \"w\", \"shape\": [4] } ],"
    "  \"ops\": [ { \"name\": \"copy\", \"op\": \"kernel\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"bytes\": 8e9 },"
    "    { \"name\": \"gemm\", \"op\": \"kernel\", \"inputs\": [\"y\"], \"outputs\": [\"z\"], \"flops\": 1e12,"
    "      \"bytes\": 1e6 },"
    "    { \"name\": \"given\", \"op\": \"kernel\", \"inputs\": [\"z\"], \"outputs\": [\"w\"], \"flops\": 1e12,"
    "      \"time_s\": 0.5 } ] }", &error);

  g_assert_no_error (error);
  g_assert_cmpfloat (plx_ir_op_time (g, g->ops->pdata[0], sc->cluster), ==, plx_memory_time (sc->cluster, 8e9));
  g_assert_cmpfloat (plx_memory_time (sc->cluster, 8e9), >, 0.0);
  g_assert_cmpfloat (plx_ir_op_time (g, g->ops->pdata[1], sc->cluster), ==,
                     plx_gemm_time (sc->cluster, plx_gemm_dtype (sc->cluster, PLX_DTYPE_BF16, FALSE), 1e12, 1e6));
  g_assert_cmpfloat (plx_ir_op_time (g, g->ops->pdata[2], sc->cluster), ==, 0.5);
}

static void
test_model_graph_refuses_times (void)
{
  /* A model graph's ops are costed by the model: a time_s or stream on one is a
   * program's, and refused by name rather than dropped. */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) fwd = parse_program (
    "{ \"tensors\": [ { \"name\": \"x\", \"shape\": [4, 4] }, { \"name\": \"w\", \"shape\": [4, 4], \"role\": \"weight\" },"
    "  { \"name\": \"h\", \"shape\": [4, 4] }, { \"name\": \"l\", \"shape\": [] } ],"
    "  \"ops\": [ { \"name\": \"mm\", \"op\": \"matmul\", \"inputs\": [\"x\", \"w\"], \"outputs\": [\"h\"], \"time_s\": 1 },"
    "    { \"name\": \"loss\", \"op\": \"loss\", \"inputs\": [\"h\", \"x\"], \"outputs\": [\"l\"] } ] }", &error);
  g_autoptr (PlxIrGraph) training = NULL;

  g_assert_no_error (error);
  training = plx_ir_training_graph (fwd, PLX_IR_OPTIMIZER_SGD, "timed.json", &error);
  g_assert_null (training);
  if (strstr (error->message, "timed.json: op \"mm\" (matmul): time_s and stream are for a program run as written") ==
      NULL)
    g_error ("%s", error->message);
}

static void
test_kernel_has_no_gradient (void)
{
  /* A forward graph with a kernel in it: the backward pass cannot be written. */
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) fwd = parse_program (
    "{ \"tensors\": [ { \"name\": \"x\", \"shape\": [4, 4] }, { \"name\": \"w\", \"shape\": [4, 4], \"role\": \"weight\" },"
    "  { \"name\": \"h\", \"shape\": [4, 4] }, { \"name\": \"k\", \"shape\": [4, 4] }, { \"name\": \"l\", \"shape\": [] } ],"
    "  \"ops\": [ { \"name\": \"mm\", \"op\": \"matmul\", \"inputs\": [\"x\", \"w\"], \"outputs\": [\"h\"] },"
    "    { \"name\": \"fused\", \"op\": \"kernel\", \"inputs\": [\"h\"], \"outputs\": [\"k\"], \"flops\": 64 },"
    "    { \"name\": \"loss\", \"op\": \"loss\", \"inputs\": [\"k\", \"x\"], \"outputs\": [\"l\"] } ] }", &error);
  g_autoptr (PlxIrGraph) training = NULL;

  g_assert_no_error (error);
  training = plx_ir_training_graph (fwd, PLX_IR_OPTIMIZER_SGD, "fused.json", &error);
  g_assert_null (training);
  if (strstr (error->message, "fused.json: op \"fused\" (kernel): a kernel is ops costed as one") == NULL)
    g_error ("%s", error->message);
}

/* A deep pipeline through the IR engine: 20,000 stages of one tiny layer, 1F1B, one
 * micro-batch (2,000 under AddressSanitizer). Lowering swept every stage each round
 * (a round per stage the backward walks back) and the memory pass cleared an inputs
 * x devices map: quadratic, a minute at 40,000 stages (bench-deep times it). The
 * program runs as the event engine runs the plan: the same step and peak (but for
 * the rounding of its buffers to whole bytes). */
static void
test_deep_pipeline (void)
{
#if defined(PLX_TEST_ASAN)
  const guint p = 2000;
#else
  const guint p = 20000;
#endif
  g_autofree char *json = g_strdup_printf (
    "{ \"model\": { \"model_type\": \"gpt2\", \"n_layer\": %u, \"n_embd\": 64, \"n_head\": 1,"
    "             \"vocab_size\": 64, \"n_positions\": 64 },"
    "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": %u },"
    "  \"strategy\": { \"seq_length\": 64, \"global_batch_size\": 1, \"pp\": %u, \"dp\": 1 } }", p, p / 8, p);
  g_autoptr (PlxScenario) sc = test_scenario_from_string (json);
  g_autoptr (GError) error = NULL;
  PlxReport ir, event;

  g_assert_true (plx_ir_run_scenario (sc->model, sc->cluster, sc->strategy, &ir, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &event, NULL, NULL, NULL, &error));
  g_assert_cmpfloat (fabs (ir.step_time_s - event.step_time_s), <=, 1e-9 * event.step_time_s);
  /* The program's buffers are whole bytes: a few bytes apart at most. */
  g_assert_cmpfloat (fabs ((double) ir.peak_memory_bytes - (double) event.peak_memory_bytes), <=, 8.0);
}

/* ZB-H1 splits W off B (Qi et al. 2023, "Zero Bubble Pipeline Parallelism", §2), so a
 * chunk's gradients come out during its last W pass, one linear layer's dL/dW after
 * another, about evenly over the pass (each GEMM's time goes with its weights). With
 * DDP's buckets (Li et al. 2020 §3.2.3) bucket j of n is ready (j+1)/n of the way
 * through that pass, as the event engine has it. The plan makes stage 0's last W
 * one task (layer 0's weight gradients), and the program read it whole: all 5
 * buckets waited for its end, and the step came out 0.93 % past the event engine's
 * (the differential test's "found ir-zb-h1": IR 148.32 ms, event 146.95 ms). Here
 * the DP stream is idle when the pass starts, so bucket 0 starts at exactly
 * start + duration / n, and bucket j at the later of its ready time and the end of
 * bucket j - 1; the step is then the event engine's. */
static void
test_zero_bubble_buckets (void)
{
  static const char json[] =
    "{ \"model\": { \"model_type\": \"gpt2\", \"n_layer\": 4, \"n_embd\": 4096, \"n_head\": 32,"
    "             \"vocab_size\": 34257, \"n_positions\": 4096 },"
    "  \"cluster\": { \"preset\": \"dgx-a100-40gb\", \"num_nodes\": 2 },"
    "  \"strategy\": { \"tp\": 2, \"pp\": 4, \"dp\": 2, \"micro_batch_size\": 4, \"global_batch_size\": 56,"
    "    \"seq_length\": 512, \"recompute\": \"selective\", \"zero_stage\": 0,"
    "    \"schedule\": \"zero-bubble-h1\", \"sequence_parallel\": false, \"flash_attention\": false,"
    "    \"dtype\": \"bf16\" } }";
  g_autoptr (PlxScenario) sc = test_scenario_from_string (json);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxPlan) plan = NULL;
  g_autoptr (PlxIrGraph) g = plx_ir_lower_scenario (sc->model, sc->cluster, sc->strategy, &plan, NULL, &error);
  double w_start = G_MAXDOUBLE, w_end = 0.0, dp_free = 0.0, nb;
  guint buckets = 0;
  PlxIrRun run;
  PlxReport ir, event;

  g_assert_no_error (error);
  /* 56 / (4 x 2) = 7 micro-batches: the last is mb6. */
  g_assert_cmpuint (plan->micro_batches, ==, 7);
  nb = MAX (1.0, round (plan->chunks[0].grad_bytes / plan->stages[0].grad_bucket_bytes));
  g_assert_cmpfloat (nb, >=, 2.0);
  g_assert_true (plx_ir_simulate (g, sc->cluster, &run, &error));
  for (guint i = 0; i < g->ops->len; i++)
    if (g_str_has_prefix (((const PlxIrOp *) g->ops->pdata[i])->name, "W s0 c0 mb6 "))
      {
        w_start = MIN (w_start, run.op_start_s[i]);
        w_end = MAX (w_end, run.op_end_s[i]);
      }
  g_assert_cmpfloat (w_end, >, w_start);
  for (guint i = 0; i < g->ops->len; i++)
    if (g_str_has_prefix (((const PlxIrOp *) g->ops->pdata[i])->name, "s0 c0 gradient buckets "))
      {
        double ready = w_start + (w_end - w_start) * (double) (buckets + 1) / nb;
        g_assert_cmpfloat_with_epsilon (run.op_start_s[i], MAX (dp_free, ready), 1e-12);
        dp_free = run.op_end_s[i];
        buckets++;
      }
  g_assert_cmpfloat (buckets, ==, nb);
  plx_ir_run_clear (&run);

  g_assert_true (plx_ir_run_scenario (sc->model, sc->cluster, sc->strategy, &ir, NULL, NULL, &error));
  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &event, NULL, NULL, NULL, &error));
  g_assert_cmpfloat (fabs (ir.step_time_s - event.step_time_s), <=, 1e-9 * event.step_time_s);
}

/* GPT-2 (12 layers) on one stage, dp 8, no recompute, tp 1 (no TP tasks): a forward
 * pass is the embedding, attention and MLP of each layer and the LM head, 26 tasks;
 * a backward pass the same 26 in reverse. */
static PlxScenario *
gpt2_one_stage (guint64 micro_batches)
{
  g_autofree char *json = g_strdup_printf (
    "{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 },"
    "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": %" G_GUINT64_FORMAT ", \"dp\": 8 } }",
    8 * micro_batches);
  return test_scenario_from_string (json);
}

/* The IR engine's op limit is asked before the program is built (issue 34: 4 million
 * micro-batches on one stage passed the event engine's pass limit and took 7 GB).
 * 20,000 micro-batches: 52 tasks each, plus at most 3 markers and sends a pass, 58
 * ops, 1.16 million in all with the step's few. The event engine still answers. */
static void
test_op_limit (void)
{
  g_autoptr (PlxScenario) sc = gpt2_one_stage (20000);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) program = plx_ir_lower_scenario (sc->model, sc->cluster, sc->strategy, NULL, NULL, &error);
  PlxReport r;

  g_assert_null (program);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED);
  g_assert_cmpstr (error->message, ==, "strategy: 20000 micro-batches x 1 stages x 1 chunks is 1.16 million ops, "
                                       "more than the IR engine's 1 million ops; use the event engine");
  g_clear_error (&error);
  g_assert_false (plx_ir_run_scenario (sc->model, sc->cluster, sc->strategy, &r, NULL, NULL, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED);
  g_clear_error (&error);
  g_assert_true (plx_sim_run_scenario (sc->model, sc->cluster, sc->strategy, &r, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
}

/* `plan --json` prints at most 200,000 ops: each micro-batch more adds its 52 tasks
 * (above), so 4,000 micro-batches are one micro-batch's program and 3,999 x 52 =
 * 207,948 ops more. */
static void
test_printable_limit (void)
{
  g_autoptr (PlxScenario) one = gpt2_one_stage (1), many = gpt2_one_stage (4000);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxIrGraph) small = plx_ir_lower_scenario (one->model, one->cluster, one->strategy, NULL, NULL, &error);
  g_autoptr (PlxIrGraph) big = plx_ir_lower_scenario (many->model, many->cluster, many->strategy, NULL, NULL, &error);
  g_autofree char *want = NULL;

  g_assert_no_error (error);
  g_assert_true (plx_ir_program_check_printable (small, &error));
  g_assert_cmpuint (big->ops->len, ==, small->ops->len + 3999 * 52);
  g_assert_false (plx_ir_program_check_printable (big, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED);
  want = g_strdup_printf ("plan --json: the program has %u ops, more than the 200000 a printed program holds "
                          "(about 90 MB of JSON); use fewer micro-batches or layers, or plan without --json "
                          "(each task once, for one micro-batch)", small->ops->len + 3999 * 52);
  g_assert_cmpstr (error->message, ==, want);
}

/* Any program past the simulator's limit, however it was made, is refused by it:
 * PLX_IR_MAX_OPS + 1 ops of no time on one device. */
static void
test_simulator_limit (void)
{
  g_autoptr (PlxIrGraph) g = plx_ir_graph_new (1);
  g_autoptr (PlxCluster) cluster = plx_cluster_new_preset ("dgx-a100-80gb", NULL);
  g_autoptr (GError) error = NULL;
  const gint64 one = 1;
  guint t = plx_ir_graph_add_tensor (g, "x", 1, &one, PLX_DTYPE_FP8, PLX_IR_ROLE_DATA), dev = 0;
  PlxIrRun run;

  for (guint i = 0; i <= PLX_IR_MAX_OPS; i++)
    plx_ir_graph_add_op (g, "op", PLX_IR_RESHAPE, &t, 1, NULL, 0, &dev, 1);
  g_assert_false (plx_ir_simulate (g, cluster, &run, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED);
  g_assert_cmpstr (error->message, ==, "program: 1000001 ops is more than the IR engine's 1 million ops");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ir-lower/validation-cases", test_validation_cases);
  g_test_add_func ("/ir-lower/program-shape", test_program_shape);
  g_test_add_func ("/ir-lower/streams-and-contention", test_streams_and_contention);
  g_test_add_func ("/ir-lower/run-charts", test_run_charts);
  g_test_add_func ("/ir-lower/bad-programs", test_bad_programs);
  g_test_add_func ("/ir-lower/kernel-has-no-gradient", test_kernel_has_no_gradient);
  g_test_add_func ("/ir-lower/kernel-times", test_kernel_times);
  g_test_add_func ("/ir-lower/model-graph-refuses-times", test_model_graph_refuses_times);
  g_test_add_func ("/ir-lower/deep-pipeline", test_deep_pipeline);
  g_test_add_func ("/ir-lower/zero-bubble-buckets", test_zero_bubble_buckets);
  g_test_add_func ("/ir-lower/op-limit", test_op_limit);
  g_test_add_func ("/ir-lower/printable-limit", test_printable_limit);
  g_test_add_func ("/ir-lower/simulator-limit", test_simulator_limit);
  return g_test_run ();
}
