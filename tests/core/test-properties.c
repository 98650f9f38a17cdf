/* Property test: random (model, cluster, strategy) triples through both engines,
 * held against physical laws that must hold whatever the cost model's details:
 *
 *   1. every figure of every report is finite and not negative, the step longer
 *      than 0, bytes below PLX_REPORT_MAX_BYTES;
 *   2. full recompute is never faster than none (analytical step time), and never
 *      keeps more activations;
 *   3. twice the intra- and inter-node bandwidth is never slower (analytical);
 *   4. a micro-batch twice as large never keeps fewer activations (the global batch
 *      kept where it still divides, else doubled);
 *   5. ZeRO stage k+1 never keeps more weights + gradients + optimizer state than
 *      stage k, where dp > 1;
 *   6. 1F1B and ZB-H1 keep the same activations with twice the global batch (twice
 *      the micro-batches) once there are at least pp micro-batches;
 *   7. the analytical and event engines agree within 5 % on step time;
 *   and two the contract adds: 8. MFU <= HFU <= 1 and the bubble fraction <= 1;
 *   9. time_s adds up to step_time_s (FORMATS.md §3, cost-model.md);
 *   and issue 34's: 10. twice every GPU's FLOP/s is never slower, 11. nor twice its
 *   HBM bandwidth (both written as GPU keys over the preset's); 12. full recompute
 *   never keeps more activations than selective; 13. on zero-bubble H1 the two
 *   engines' peak memory agree within 5 % (every check: the closed form counts the
 *   schedule's own micro-batches, plx_pipeline_wgrad_pending). Laws 2, 10 and 11 are
 *   held on the base's layer split and, where the layers do not divide, again with
 *   each strategy on its own split (known_broken[] below).
 * Nothing is tolerated beyond 1e-9 relative on times; bytes compare exactly.
 *
 * The memory laws hold for each GPU. A report's memory figures are those of its
 * pipeline stage with the highest peak, which may differ between the two scenarios
 * compared: then the event engine's memory trace gives every stage's figures and
 * every stage is compared; the analytical engine gives no other stage's, and such
 * pairs are counted and reported as not compared.
 *
 * Each law counts its checks and violations; the first violations of each (lowest
 * case numbers) are printed with the scenario JSON, ready for parallax-cli simulate,
 * and the values compared. Scenarios that do not resolve and runs an engine refuses
 * are counted; each must come with a PLX_ERROR that says something.
 *
 * Reproducible: case i draws from its own generator seeded with (seed, i), so the
 * cases and the output do not depend on the number of threads. Environment:
 * PLX_PROPERTY_SEED (default 20261125), PLX_PROPERTY_CASES (default 100000),
 * PLX_PROPERTY_FIRST (the first case's number, default 0: PLX_PROPERTY_FIRST=N
 * PLX_PROPERTY_CASES=1 runs case N alone), PLX_PROPERTY_THREADS (default: the
 * processors, at most 8), PLX_PROPERTY_PRINT (violations printed per law, default 10).
 *
 * Loading: parsing a scenario (its presets' JSON, the model's op lists) costs more
 * than both engines together, so each worker keeps the models and clusters it built,
 * keyed by their JSON text, and each scenario parses only its strategy and resolves
 * it against them - the steps plx_scenario_new_from_json takes (plx-scenario.c).
 * Every VERIFY_EVERY-th case's scenario is also loaded whole with
 * plx_scenario_new_from_json, and must be rejected with the same message or give
 * the same analytical report. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "parallax/parallax.h"
#include "test-home.h"
#include "test-sanitizer.h"
#include "base/plx-json.h"
#include "cost/plx-layer-split.h"

#define DEFAULT_SEED 20261125u
/* 100,000 cases take 30-45 s in an optimised build (95 s in a loaded CI run); the
 * sanitizer build (-O0 with AddressSanitizer and UBSan: 5,000 cases in 12 s since the
 * fast unwinder, 124 s before) runs the first 20,000 of the same sequence: the paths
 * are the same, and the whole suite stays well under 15 minutes. */
#if defined(PLX_TEST_ASAN)
#define DEFAULT_CASES 20000u
#else
#define DEFAULT_CASES 100000u
#endif
#define MAX_THREADS 8u
/* pp x virtual_stages at most (pps[] and the virtual stages drawn below). */
#define MAX_CHUNKS 64u

/* The event engine runs where micro-batches x pp x virtual_stages is at most this. */
#define EVENT_MAX_PASSES 4000u
/* Violations printed per law (one a case); env PLX_PROPERTY_PRINT overrides. */
#define DEFAULT_PRINTED 10u
#define VERIFY_EVERY 10u
#define TIME_REL_TOL 1e-9
#define AGREE_REL_TOL 0.05
/* Law 7's exceptions (docs/robustness.md): the share of checks past 5 % may not
 * exceed this, and none may pass the bound. */
#define AGREE_MAX_SHARE 0.005
#define AGREE_BOUND_REL_TOL 0.25
#define SOURCE "prop"

static const char *const model_presets[] = {
  "gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl", "gpt3-175b", "llama-2-7b",
  "llama-2-13b", "llama-2-70b", "llama-3-8b", "llama-3-70b", "megatron-22b", "mixtral-8x7b",
  "deepseek-v3",
};
static const char *const cluster_presets[] = {
  "dgx-a100-80gb", "dgx-a100-40gb", "dgx-h100-80gb", "dgx-h200", "gh200-96gb",
};
#define N_CLUSTERS G_N_ELEMENTS (cluster_presets)
/* Whether the preset's GPU has fp8 tensor cores (Hopper). */
static const gboolean cluster_has_fp8[N_CLUSTERS] = { FALSE, FALSE, TRUE, TRUE, TRUE };

typedef enum
{
  LAW_FINITE_ANALYTIC,
  LAW_FINITE_EVENT,
  LAW_RECOMPUTE_TIME,
  LAW_RECOMPUTE_ACT_ANALYTIC,
  LAW_RECOMPUTE_ACT_EVENT,
  LAW_BANDWIDTH,
  LAW_FLOPS,
  LAW_FLOPS_OWN_SPLIT,
  LAW_HBM,
  LAW_HBM_OWN_SPLIT,
  LAW_RECOMPUTE_TIME_OWN_SPLIT,
  LAW_RECOMPUTE_SEL_ACT_ANALYTIC,
  LAW_RECOMPUTE_SEL_ACT_EVENT,
  LAW_ZB_PEAK_AGREE,
  LAW_MBS_ACT_ANALYTIC,
  LAW_MBS_ACT_EVENT,
  LAW_ZERO_STATES_ANALYTIC,
  LAW_ZERO_STATES_EVENT,
  LAW_PIPELINE_ACT_ANALYTIC,
  LAW_PIPELINE_ACT_EVENT,
  LAW_AGREE,
  LAW_AGREE_BOUND,
  LAW_FRACTIONS_ANALYTIC,
  LAW_FRACTIONS_EVENT,
  LAW_BREAKDOWN_ANALYTIC,
  LAW_BREAKDOWN_EVENT,
  N_LAWS
} Law;

static const char *const law_names[N_LAWS] = {
  "law 1 finite, >= 0 (analytical)",
  "law 1 finite, >= 0 (event)",
  "law 2 full recompute not faster than none (analytical step time)",
  "law 2 full recompute not more activations than none (analytical)",
  "law 2 full recompute not more activations than none (event)",
  "law 3 twice the bandwidth not slower (analytical step time)",
  "law 10 twice every FLOP/s not slower (analytical step time)",
  "law 10 twice every FLOP/s not slower, each on its own layer split (analytical)",
  "law 11 twice the HBM bandwidth not slower (analytical step time)",
  "law 11 twice the HBM bandwidth not slower, each on its own layer split (analytical)",
  "law 2 full recompute not faster than none, each on its own layer split (analytical)",
  "law 12 full recompute not more activations than selective (analytical)",
  "law 12 full recompute not more activations than selective (event)",
  "law 13 ZB-H1 peak memory: analytical and event within 5 %",
  "law 4 micro-batch 2m not fewer activations than m (analytical)",
  "law 4 micro-batch 2m not fewer activations than m (event)",
  "law 5 ZeRO k+1 not more weights+gradients+optimizer than k, dp > 1 (analytical)",
  "law 5 ZeRO k+1 not more weights+gradients+optimizer than k, dp > 1 (event)",
  "law 6 1F1B/ZB-H1 activations unchanged by 2x micro-batches when >= pp (analytical)",
  "law 6 1F1B/ZB-H1 activations unchanged by 2x micro-batches when >= pp (event)",
  "law 7 analytical and event step time within 5 % (|e - a| / a), 99.5 % of checks",
  "law 7 analytical and event step time within 25 %, every check",
  "law 8 mfu <= hfu <= 1, bubble_fraction <= 1 (analytical)",
  "law 8 mfu <= hfu <= 1, bubble_fraction <= 1 (event)",
  "law 9 time_s[] adds up to step_time_s, 1e-9 relative (analytical)",
  "law 9 time_s[] adds up to step_time_s, 1e-9 relative (event)",
};

/* One scenario as the generator draws it; case_json writes it out. */
typedef struct
{
  int          model;        /* index into model_presets; -1: the inline GPT-2 below */
  guint        n_layer, n_embd, n_head, vocab_size, n_positions;
  guint        cluster;      /* index into cluster_presets */
  guint        num_nodes;
  double       inter_bw_Bps; /* 0: the preset's */
  double       intra_bw_Bps;
  guint        tp, pp, cp;
  gboolean     overlap_tp_comm;
  double       flops_scale;  /* every dtype's peak FLOP/s times this (1: the preset's) */
  double       hbm_scale;    /* HBM bandwidth times this */
  guint        dp;           /* 0: not given (derived) */
  guint64      mbs, gbs;
  guint        seq_length;
  PlxRecompute recompute;
  guint        zero_stage;
  PlxSchedule  schedule;
  guint        virtual_stages; /* 0: not given */
  gboolean     sequence_parallel;
  gboolean     flash_attention;
  gboolean     fp8;
  guint        n_split;      /* 0: the engines' own split; else layers_per_stage */
  guint        split[MAX_CHUNKS];
} Case;

/* A case loaded and run. */
typedef struct
{
  char        *json;         /* the whole scenario */
  char        *rejection;    /* the loader's message, if it did not resolve */
  PlxModel    *model;        /* the worker's */
  PlxCluster  *cluster;      /* the worker's */
  PlxStrategy *strategy;     /* resolved; NULL: rejected */
  gboolean     a_ok;
  gboolean     e_ok;
  PlxReport    a;
  PlxReport    e;
} Eval;

typedef struct
{
  guint64 case_index;
  guint   seq;
  char   *text;
} Found;

typedef struct
{
  guint64 checks[N_LAWS];
  guint64 violations[N_LAWS];
  guint64 per_stage[N_LAWS];   /* of the checks, compared stage by stage (event trace) */
  guint64 other_stage[N_LAWS]; /* pairs not compared: reports about different stages */
  double  worst[N_LAWS];       /* the largest violation, relative */
  guint64 worst_case[N_LAWS];
  guint64 cases;
  guint64 evaluations;
  guint64 verified;
  guint64 rejected_base;     /* the drawn scenario does not resolve */
  guint64 rejected_variant;  /* a variant of a valid one does not */
  guint64 rejected_by_code[16];
  guint64 analytic_runs, analytic_refused;
  guint64 event_runs, event_refused, event_skipped;
  gint64  load_us, analytic_us, event_us;
} Counts;

typedef struct
{
  guint64 seed;
  guint64 first_case;
  guint64 n_cases;
  guint   max_printed;
  gint    next_case;         /* atomic */
  guint   gpus_per_node[N_CLUSTERS];
  double  peak_flops[N_CLUSTERS][PLX_N_DTYPES];
  double  hbm_bw_Bps[N_CLUSTERS];
} Shared;

typedef struct
{
  Shared     *shared;
  Counts      n;
  GPtrArray  *found[N_LAWS]; /* Found, at most max_printed each, lowest cases first */
  GHashTable *models;        /* model JSON -> PlxModel, presets only */
  GHashTable *clusters;      /* cluster JSON -> PlxCluster */
  char       *case_model_json; /* the current case's inline model */
  PlxModel   *case_model;
  GString    *model_json, *cluster_json, *strategy_json;
  guint64     case_index;
  guint       seq;
} Worker;

static void
found_free (gpointer data)
{
  Found *f = data;

  g_free (f->text);
  g_free (f);
}

static void
case_json (const Shared *shared,
           const Case *c,
           GString    *model,
           GString    *cluster,
           GString    *strategy)
{
  g_string_truncate (model, 0);
  if (c->model >= 0)
    g_string_append_printf (model, "{ \"preset\": \"%s\" }", model_presets[c->model]);
  else
    g_string_append_printf (model, "{ \"model_type\": \"gpt2\", \"n_layer\": %u, \"n_embd\": %u, \"n_head\": %u,"
                            " \"vocab_size\": %u, \"n_positions\": %u }",
                            c->n_layer, c->n_embd, c->n_head, c->vocab_size, c->n_positions);

  g_string_truncate (cluster, 0);
  g_string_append_printf (cluster, "{ \"preset\": \"%s\", \"num_nodes\": %u", cluster_presets[c->cluster],
                          c->num_nodes);
  if (c->inter_bw_Bps > 0)
    g_string_append_printf (cluster, ", \"inter_node\": { \"bw_Bps\": %.17g }", c->inter_bw_Bps);
  if (c->intra_bw_Bps > 0)
    g_string_append_printf (cluster, ", \"intra_node\": { \"bw_Bps\": %.17g }", c->intra_bw_Bps);
  if (c->flops_scale != 1.0 || c->hbm_scale != 1.0)
    {
      gboolean first = TRUE;

      g_string_append (cluster, ", \"gpu\": { \"peak_flops\": {");
      for (guint d = 0; d < PLX_N_DTYPES; d++)
        if (shared->peak_flops[c->cluster][d] > 0)
          {
            g_string_append_printf (cluster, "%s \"%s\": %.17g", first ? "" : ",", plx_dtype_to_string ((PlxDtype) d),
                                    c->flops_scale * shared->peak_flops[c->cluster][d]);
            first = FALSE;
          }
      g_string_append_printf (cluster, " }, \"hbm_bw_Bps\": %.17g }", c->hbm_scale * shared->hbm_bw_Bps[c->cluster]);
    }
  g_string_append (cluster, " }");

  g_string_truncate (strategy, 0);
  g_string_append_printf (strategy, "{ \"tp\": %u, \"pp\": %u", c->tp, c->pp);
  if (c->cp > 1)
    g_string_append_printf (strategy, ", \"cp\": %u", c->cp);
  if (c->overlap_tp_comm)
    g_string_append (strategy, ", \"overlap_tp_comm\": true");
  if (c->dp > 0)
    g_string_append_printf (strategy, ", \"dp\": %u", c->dp);
  g_string_append_printf (strategy, ", \"micro_batch_size\": %" G_GUINT64_FORMAT ", \"global_batch_size\": %"
                          G_GUINT64_FORMAT ", \"seq_length\": %u, \"recompute\": \"%s\", \"zero_stage\": %u,"
                          " \"schedule\": \"%s\"",
                          c->mbs, c->gbs, c->seq_length, plx_recompute_to_string (c->recompute), c->zero_stage,
                          plx_schedule_to_string (c->schedule));
  if (c->virtual_stages > 0)
    g_string_append_printf (strategy, ", \"virtual_stages\": %u", c->virtual_stages);
  if (c->n_split > 0)
    {
      g_string_append (strategy, ", \"layers_per_stage\": [");
      for (guint i = 0; i < c->n_split; i++)
        g_string_append_printf (strategy, "%s%u", i ? ", " : "", c->split[i]);
      g_string_append (strategy, "]");
    }
  g_string_append_printf (strategy, ", \"sequence_parallel\": %s, \"flash_attention\": %s, \"dtype\": \"%s\" }",
                          c->sequence_parallel ? "true" : "false", c->flash_attention ? "true" : "false",
                          c->fp8 ? "fp8" : "bf16");
}

static guint
pick (GRand       *rand,
      const guint *values,
      guint        n)
{
  return values[g_rand_int_range (rand, 0, (gint32) n)];
}

static void
case_random (GRand        *rand,
             const Shared *shared,
             Case         *c)
{
  static const guint heads[] = { 4, 8, 12, 16, 16, 24, 32, 32, 40, 48, 64, 96 };
  static const guint head_dims[] = { 32, 64, 64, 80, 96, 128, 128 };
  static const guint positions[] = { 1024, 2048, 4096, 8192 };
  static const guint vocabs[] = { 32000, 50257, 51200, 128256 };
  static const guint tps[] = { 1, 2, 4, 8 };
  static const guint pps[] = { 1, 2, 4, 8, 16 };
  static const guint cps[] = { 1, 1, 1, 1, 1, 2, 2, 4 };
  static const guint seqs[] = { 512, 1024, 2048, 4096 };
  static const PlxSchedule schedules[] = {
    PLX_SCHEDULE_1F1B, PLX_SCHEDULE_GPIPE, PLX_SCHEDULE_INTERLEAVED_1F1B, PLX_SCHEDULE_ZERO_BUBBLE_H1,
  };
  guint gpus, derived_dp, k;
  double u;

  memset (c, 0, sizeof *c);
  if (g_rand_double (rand) < 0.6)
    c->model = g_rand_int_range (rand, 0, G_N_ELEMENTS (model_presets));
  else
    {
      c->model = -1;
      c->n_layer = g_rand_double (rand) < 0.8 ? (guint) g_rand_int_range (rand, 1, 49)
                                               : (guint) g_rand_int_range (rand, 49, 129);
      c->n_head = pick (rand, heads, G_N_ELEMENTS (heads));
      c->n_embd = c->n_head * pick (rand, head_dims, G_N_ELEMENTS (head_dims));
      c->vocab_size = g_rand_double (rand) < 0.5 ? pick (rand, vocabs, G_N_ELEMENTS (vocabs))
                                                 : (guint) g_rand_int_range (rand, 1000, 100001);
      c->n_positions = pick (rand, positions, G_N_ELEMENTS (positions));
    }

  c->cluster = g_rand_int_range (rand, 0, N_CLUSTERS);
  c->num_nodes = g_rand_double (rand) < 0.85 ? 1u << g_rand_int_range (rand, 0, 7)
                                             : (guint) g_rand_int_range (rand, 1, 65);
  gpus = c->num_nodes * shared->gpus_per_node[c->cluster];

  c->tp = pick (rand, tps, G_N_ELEMENTS (tps));
  c->pp = pick (rand, pps, G_N_ELEMENTS (pps));
  c->cp = pick (rand, cps, G_N_ELEMENTS (cps));
  derived_dp = gpus % (c->tp * c->pp * c->cp) == 0 ? gpus / (c->tp * c->pp * c->cp) : 1;
  u = g_rand_double (rand);
  if (u < 0.2)
    c->dp = derived_dp;     /* stated */
  else if (u < 0.22)
    c->dp = derived_dp + 1; /* stated wrong: must be rejected */
  c->mbs = g_rand_int_range (rand, 1, 9);
  /* Micro-batches per step: mostly few, sometimes hundreds. */
  u = g_rand_double (rand);
  k = u < 0.5 ? (guint) g_rand_int_range (rand, 1, 17)
    : u < 0.8 ? (guint) g_rand_int_range (rand, 17, 65)
              : (guint) g_rand_int_range (rand, 65, 513);
  c->gbs = (guint64) derived_dp * c->mbs * k;
  c->seq_length = pick (rand, seqs, G_N_ELEMENTS (seqs));
  c->recompute = (PlxRecompute) g_rand_int_range (rand, 0, 3);
  c->zero_stage = g_rand_int_range (rand, 0, 4);
  c->schedule = schedules[g_rand_int_range (rand, 0, G_N_ELEMENTS (schedules))];
  if (c->schedule == PLX_SCHEDULE_INTERLEAVED_1F1B)
    c->virtual_stages = g_rand_int_range (rand, 2, 5);
  c->sequence_parallel = g_rand_boolean (rand);
  c->flash_attention = g_rand_boolean (rand);
  c->fp8 = cluster_has_fp8[c->cluster] && g_rand_double (rand) < 0.2;
  c->overlap_tp_comm = c->tp > 1 && g_rand_double (rand) < 0.3;
  c->flops_scale = c->hbm_scale = 1.0;
}

/* The loader or an engine refused: allowed, but it must say why. */
static void
check_refusal (const GError *error,
               const char   *what,
               const char   *json)
{
  if (error != NULL && error->domain == PLX_ERROR && error->message != NULL && strlen (error->message) > 0)
    return;
  g_printerr ("%s without a PLX_ERROR with a message: %s\n", what, json);
  g_assert_nonnull (error);
  g_assert_true (error->domain == PLX_ERROR);
  g_assert_nonnull (error->message);
  g_assert_cmpuint (strlen (error->message), >, 0);
}

/* By how much `bad` passes `good`, relative to `good`. */
static double
excess (double bad,
        double good)
{
  return good != 0 ? fabs (bad - good) / fabs (good) : bad != 0 ? INFINITY : 0;
}

/* `by`: how far past the law, relative (0 where that means nothing). */
static void G_GNUC_PRINTF (4, 5)
violation (Worker     *w,
           Law         law,
           double      by,
           const char *format,
           ...)
{
  va_list args;
  Found *f;

  w->n.violations[law]++;
  if (by > w->n.worst[law] || (by == w->n.worst[law] && w->n.violations[law] == 1))
    {
      w->n.worst[law] = by;
      w->n.worst_case[law] = w->case_index;
    }
  /* Printed: the first violation of a law in each of its first max_printed cases. */
  if (w->found[law]->len >= w->shared->max_printed ||
      (w->found[law]->len > 0 &&
       ((Found *) w->found[law]->pdata[w->found[law]->len - 1])->case_index == w->case_index))
    return;
  f = g_new0 (Found, 1);
  f->case_index = w->case_index;
  f->seq = w->seq++;
  va_start (args, format);
  f->text = g_strdup_vprintf (format, args);
  va_end (args);
  g_ptr_array_add (w->found[law], f);
}

/* Law 1: every number finite and not negative, the step longer than 0, bytes below
 * PLX_REPORT_MAX_BYTES. Names the first figure that is not. */
static const char *
report_bad_figure (const PlxReport *r,
                   double          *value)
{
#define CHECK_D(name, x) \
  G_STMT_START { if (!isfinite (x) || (x) < 0) { *value = (x); return name; } } G_STMT_END
#define CHECK_B(name, x) \
  G_STMT_START { if ((double) (x) >= PLX_REPORT_MAX_BYTES) { *value = (double) (x); return name; } } G_STMT_END
  static const char *const time_names[PLX_N_TIME] = {
    "time_s.compute", "time_s.recompute", "time_s.tp_comm", "time_s.pp_comm",
    "time_s.dp_comm", "time_s.bubble", "time_s.optimizer",
  };
  static const char *const mem_names[PLX_N_MEM] = {
    "memory_bytes.weights", "memory_bytes.gradients", "memory_bytes.optimizer",
    "memory_bytes.activations", "memory_bytes.other",
  };

  CHECK_D ("step_time_s", r->step_time_s);
  if (!(r->step_time_s > 0))
    {
      *value = r->step_time_s;
      return "step_time_s (not > 0)";
    }
  CHECK_D ("tokens_per_s", r->tokens_per_s);
  CHECK_D ("model_flops_per_step", r->model_flops_per_step);
  CHECK_D ("hardware_flops_per_step", r->hardware_flops_per_step);
  CHECK_D ("mfu", r->mfu);
  CHECK_D ("hfu", r->hfu);
  CHECK_D ("bubble_fraction", r->bubble_fraction);
  for (guint i = 0; i < PLX_N_TIME; i++)
    CHECK_D (time_names[i], r->time_s[i]);
  CHECK_D ("stage_forward_s", r->stage_forward_s);
  CHECK_D ("stage_backward_s", r->stage_backward_s);
  CHECK_D ("layer_forward_s", r->layer_forward_s);
  CHECK_D ("layer_backward_s", r->layer_backward_s);
  CHECK_B ("peak_memory_bytes", r->peak_memory_bytes);
  for (guint i = 0; i < PLX_N_MEM; i++)
    CHECK_B (mem_names[i], r->memory_bytes[i]);
  CHECK_B ("hbm_bytes", r->hbm_bytes);
  CHECK_B ("hbm_usable_bytes", r->hbm_usable_bytes);
  return NULL;
#undef CHECK_D
#undef CHECK_B
}

/* Laws 1, 8 and 9 on one report. */
static void
check_report (Worker          *w,
              const PlxReport *r,
              gboolean         event,
              const char      *json)
{
  Law finite = event ? LAW_FINITE_EVENT : LAW_FINITE_ANALYTIC;
  Law fractions = event ? LAW_FRACTIONS_EVENT : LAW_FRACTIONS_ANALYTIC;
  Law breakdown = event ? LAW_BREAKDOWN_EVENT : LAW_BREAKDOWN_ANALYTIC;
  double value = 0, sum = 0;
  const char *bad;

  w->n.checks[finite]++;
  bad = report_bad_figure (r, &value);
  if (bad != NULL)
    {
      violation (w, finite, 0, "%s = %.17g in %s", bad, value, json);
      return; /* the other laws compare figures that are not numbers */
    }

  w->n.checks[fractions]++;
  if (r->mfu > 1.0 || r->hfu > 1.0 || r->bubble_fraction > 1.0 || r->mfu > r->hfu * (1 + TIME_REL_TOL))
    violation (w, fractions, MAX (MAX (r->mfu, r->hfu), r->bubble_fraction) - 1.0,
               "mfu %.17g, hfu %.17g, bubble_fraction %.17g in %s", r->mfu, r->hfu, r->bubble_fraction, json);

  w->n.checks[breakdown]++;
  for (guint i = 0; i < PLX_N_TIME; i++)
    sum += r->time_s[i];
  if (fabs (sum - r->step_time_s) > TIME_REL_TOL * r->step_time_s)
    violation (w, breakdown, excess (sum, r->step_time_s),
               "time_s adds up to %.17g s, step_time_s %.17g s (compute %.9g, recompute %.9g, tp_comm %.9g,"
               " pp_comm %.9g, dp_comm %.9g, bubble %.9g, optimizer %.9g) in %s",
               sum, r->step_time_s, r->time_s[PLX_TIME_COMPUTE], r->time_s[PLX_TIME_RECOMPUTE],
               r->time_s[PLX_TIME_TP_COMM], r->time_s[PLX_TIME_PP_COMM], r->time_s[PLX_TIME_DP_COMM],
               r->time_s[PLX_TIME_BUBBLE], r->time_s[PLX_TIME_OPTIMIZER], json);
}

static guint64
event_passes (const PlxStrategy *s)
{
  return plx_strategy_get_n_micro_batches (s) * s->pp * MAX (s->virtual_stages, 1u);
}

static void
eval_clear (Eval *ev)
{
  g_clear_pointer (&ev->json, g_free);
  g_clear_pointer (&ev->rejection, g_free);
  g_clear_pointer (&ev->strategy, plx_strategy_free);
  ev->model = NULL;
  ev->cluster = NULL;
  ev->a_ok = ev->e_ok = FALSE;
}

/* The model of `json` (the current case's model object), built once per worker for
 * presets and once per case for inline models. */
static PlxModel *
worker_model (Worker     *w,
              gboolean    preset,
              const char *json,
              GError    **error)
{
  g_autoptr (JsonNode) node = NULL;
  PlxModel *model;

  model = preset ? g_hash_table_lookup (w->models, json) : NULL;
  if (model != NULL)
    return model;
  if (!preset && w->case_model != NULL && strcmp (w->case_model_json, json) == 0)
    return w->case_model;
  node = plx_json_parse_data (json, -1, SOURCE, error);
  g_assert_no_error (*error); /* the generator writes valid JSON */
  model = plx_model_new_from_json (node, SOURCE, error);
  if (model == NULL)
    return NULL;
  if (preset)
    g_hash_table_insert (w->models, g_strdup (json), model);
  else
    {
      g_clear_pointer (&w->case_model, plx_model_free);
      g_free (w->case_model_json);
      w->case_model_json = g_strdup (json);
      w->case_model = model;
    }
  return model;
}

static PlxCluster *
worker_cluster (Worker     *w,
                const char *json,
                GError    **error)
{
  g_autoptr (JsonNode) node = NULL;
  PlxCluster *cluster = g_hash_table_lookup (w->clusters, json);

  if (cluster != NULL)
    return cluster;
  node = plx_json_parse_data (json, -1, SOURCE, error);
  g_assert_no_error (*error);
  cluster = plx_cluster_new_from_json (node, SOURCE, error);
  if (cluster != NULL)
    g_hash_table_insert (w->clusters, g_strdup (json), cluster);
  return cluster;
}

/* What plx_scenario_new_from_json does for this JSON, with the model and cluster
 * from the worker's caches. */
static gboolean
load (Worker     *w,
      const Case *c,
      Eval       *ev,
      GError    **error)
{
  g_autoptr (JsonNode) node = NULL;

  ev->model = worker_model (w, c->model >= 0, w->model_json->str, error);
  if (ev->model == NULL)
    return FALSE;
  ev->cluster = worker_cluster (w, w->cluster_json->str, error);
  if (ev->cluster == NULL)
    return FALSE;
  node = plx_json_parse_data (w->strategy_json->str, -1, SOURCE, error);
  g_assert_no_error (*error);
  ev->strategy = plx_strategy_new_from_json (node, SOURCE, error);
  if (ev->strategy == NULL)
    return FALSE;
  if (!plx_strategy_resolve (ev->strategy, ev->model, ev->cluster, SOURCE, error))
    {
      g_clear_pointer (&ev->strategy, plx_strategy_free);
      return FALSE;
    }
  return TRUE;
}

/* The same scenario through plx_scenario_new_from_json: rejected with the same
 * message, or the same analytical report. */
static void
verify_load (Worker     *w,
             const Eval *ev)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = plx_json_parse_data (ev->json, -1, SOURCE, &error);
  g_autoptr (PlxScenario) sc = NULL;
  PlxReport r = { 0 };
  gboolean ok;

  g_assert_no_error (error);
  sc = plx_scenario_new_from_json (node, ".", SOURCE, &error);
  w->n.verified++;
  if (ev->strategy == NULL)
    {
      if (sc != NULL)
        g_printerr ("plx_scenario_new_from_json accepts what the cached loader rejected (%s): %s\n",
                    ev->rejection, ev->json);
      g_assert_null (sc);
      g_assert_nonnull (error);
      g_assert_cmpstr (error->message, ==, ev->rejection);
      return;
    }
  if (sc == NULL)
    g_printerr ("plx_scenario_new_from_json rejects what the cached loader accepted: %s\n", ev->json);
  g_assert_no_error (error);
  g_assert_nonnull (sc);
  ok = plx_analytic_run (sc->model, sc->cluster, sc->strategy, &r, &error);
  g_assert_cmpint (ok, ==, ev->a_ok);
  if (!ok)
    return;
  if (r.step_time_s != ev->a.step_time_s || r.peak_memory_bytes != ev->a.peak_memory_bytes ||
      memcmp (r.memory_bytes, ev->a.memory_bytes, sizeof r.memory_bytes) != 0 ||
      memcmp (r.time_s, ev->a.time_s, sizeof r.time_s) != 0 || r.mfu != ev->a.mfu)
    {
      g_printerr ("plx_scenario_new_from_json and the cached loader give different reports"
                  " (step %.17g s, peak %" G_GUINT64_FORMAT " B against %.17g s, %" G_GUINT64_FORMAT " B): %s\n",
                  r.step_time_s, r.peak_memory_bytes, ev->a.step_time_s, ev->a.peak_memory_bytes, ev->json);
      g_assert_not_reached ();
    }
}

/* Loads and runs `c`: the analytical engine always, the event engine if `event` and
 * it is affordable. Laws 1, 7, 8 and 9 on what ran. */
static void
eval_case (Worker     *w,
           const Case *c,
           gboolean    variant,
           gboolean    event,
           Eval       *ev)
{
  g_autoptr (GError) error = NULL;
  gint64 t0;

  memset (ev, 0, sizeof *ev);
  case_json (w->shared, c, w->model_json, w->cluster_json, w->strategy_json);
  ev->json = g_strdup_printf ("{ \"model\": %s, \"cluster\": %s, \"strategy\": %s }", w->model_json->str,
                              w->cluster_json->str, w->strategy_json->str);
  w->n.evaluations++;

  t0 = g_get_monotonic_time ();
  if (!load (w, c, ev, &error))
    {
      w->n.load_us += g_get_monotonic_time () - t0;
      check_refusal (error, "rejected scenario", ev->json);
      ev->rejection = g_strdup (error->message);
      if (variant)
        w->n.rejected_variant++;
      else
        w->n.rejected_base++;
      if (error->code >= 0 && error->code < (gint) G_N_ELEMENTS (w->n.rejected_by_code))
        w->n.rejected_by_code[error->code]++;
      return;
    }
  w->n.load_us += g_get_monotonic_time () - t0;

  t0 = g_get_monotonic_time ();
  w->n.analytic_runs++;
  ev->a_ok = plx_analytic_run (ev->model, ev->cluster, ev->strategy, &ev->a, &error);
  w->n.analytic_us += g_get_monotonic_time () - t0;
  if (!ev->a_ok)
    {
      check_refusal (error, "analytical engine refused", ev->json);
      w->n.analytic_refused++;
      g_clear_error (&error);
    }
  else
    check_report (w, &ev->a, FALSE, ev->json);

  if (!event)
    return;
  if (event_passes (ev->strategy) > EVENT_MAX_PASSES)
    {
      w->n.event_skipped++;
      return;
    }
  t0 = g_get_monotonic_time ();
  w->n.event_runs++;
  ev->e_ok = plx_sim_run_scenario (ev->model, ev->cluster, ev->strategy, &ev->e, NULL, NULL, NULL, &error);
  w->n.event_us += g_get_monotonic_time () - t0;
  if (!ev->e_ok)
    {
      check_refusal (error, "event engine refused", ev->json);
      w->n.event_refused++;
      return;
    }
  check_report (w, &ev->e, TRUE, ev->json);

  if (ev->a_ok)
    {
      double rel = fabs (ev->e.step_time_s - ev->a.step_time_s) / ev->a.step_time_s;

      w->n.checks[LAW_AGREE]++;
      w->n.checks[LAW_AGREE_BOUND]++;
      if (!(rel <= AGREE_REL_TOL))
        violation (w, LAW_AGREE, rel, "analytical %.9g s, event %.9g s (%+.2f %%) in %s", ev->a.step_time_s,
                   ev->e.step_time_s, 100.0 * (ev->e.step_time_s - ev->a.step_time_s) / ev->a.step_time_s,
                   ev->json);
      if (!(rel <= AGREE_BOUND_REL_TOL))
        violation (w, LAW_AGREE_BOUND, rel, "analytical %.9g s, event %.9g s (%+.2f %%) in %s", ev->a.step_time_s,
                   ev->e.step_time_s, 100.0 * (ev->e.step_time_s - ev->a.step_time_s) / ev->a.step_time_s,
                   ev->json);
    }
}

typedef enum
{
  FIGURE_ACTIVATIONS,
  FIGURE_MODEL_STATES, /* weights + gradients + optimizer */
} Figure;

static const char *const figure_names[] = { "activations", "weights+gradients+optimizer" };

static guint64
report_figure (const PlxReport *r,
               Figure           figure)
{
  if (figure == FIGURE_ACTIVATIONS)
    return r->memory_bytes[PLX_MEM_ACTIVATIONS];
  return r->memory_bytes[PLX_MEM_WEIGHTS] + r->memory_bytes[PLX_MEM_GRADIENTS] + r->memory_bytes[PLX_MEM_OPTIMIZER];
}

/* A stage's figure from the event engine's trace, rounded as its report rounds. */
static guint64
trace_bytes (double x)
{
  return x >= 1.8e19 ? G_MAXUINT64 : (guint64) ceil (MAX (x, 0.0));
}

static guint64
trace_figure (const PlxMemoryTrace *t,
              guint                 stage,
              Figure                figure)
{
  const double *st = &t->static_bytes[(gsize) stage * PLX_N_MEM];

  if (figure == FIGURE_ACTIVATIONS)
    return trace_bytes (t->peak_activation_bytes[stage]);
  return trace_bytes (st[PLX_MEM_WEIGHTS]) + trace_bytes (st[PLX_MEM_GRADIENTS]) + trace_bytes (st[PLX_MEM_OPTIMIZER]);
}

static PlxMemoryTrace *
event_trace (const Eval *ev)
{
  g_autoptr (GError) error = NULL;
  PlxMemoryTrace *trace = NULL;
  PlxReport r;

  g_assert_true (plx_sim_run_scenario (ev->model, ev->cluster, ev->strategy, &r, NULL, NULL, &trace, &error));
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

/* Whether `lo` breaks a memory law against `hi`: more than it (with `equal`, not the
 * same). The figures are sums of doubles over every pass (the event engine adds and
 * takes each micro-batch's activations), so they may differ in the last bits: within
 * 1e-9 relative, the tolerance law 9 has, is the same figure. */
static gboolean
memory_breaks (gboolean equal,
               guint64  lo,
               guint64  hi)
{
  double slack = 1e-9 * (double) MAX (lo, hi);

  if (equal)
    return fabs ((double) lo - (double) hi) > slack;
  return (double) lo - (double) hi > slack;
}

/* Laws 2, 4, 5 and 6: at each GPU, `lo` must not have more of a memory figure than
 * `hi` (with `equal`, the same), on each engine that ran both. A report's figures are
 * those of its GPU with the highest peak: where the two reports are about different
 * pipeline stages, the event engine's trace gives every stage's, and each stage is
 * compared; the analytical engine gives no other stage's, and the pair is counted
 * as not comparable. */
static void
compare_memory (Worker     *w,
                Law         law_a,
                Law         law_e,
                gboolean    equal,
                Figure      figure,
                const char *what,
                const Eval *lo,
                const Eval *hi)
{
  if (lo->strategy == NULL || hi->strategy == NULL)
    return;
  for (guint engine = 0; engine < 2; engine++)
    {
      gboolean ok = engine == 0 ? lo->a_ok && hi->a_ok : lo->e_ok && hi->e_ok;
      const PlxReport *rl = engine == 0 ? &lo->a : &lo->e;
      const PlxReport *rh = engine == 0 ? &hi->a : &hi->e;
      Law law = engine == 0 ? law_a : law_e;

      if (!ok)
        continue;
      if (rl->reported_stage == rh->reported_stage)
        {
          guint64 vl = report_figure (rl, figure), vh = report_figure (rh, figure);

          w->n.checks[law]++;
          if (memory_breaks (equal, vl, vh))
            violation (w, law, excess ((double) vl, (double) vh),
                       "%s %s %" G_GUINT64_FORMAT " B (stage %u) in %s ; %s %" G_GUINT64_FORMAT " B (stage %u) in %s",
                       what, figure_names[figure], vl, rl->reported_stage, lo->json,
                       equal ? "but" : "more than", vh, rh->reported_stage, hi->json);
        }
      else if (engine == 0)
        w->n.other_stage[law]++;
      else
        {
          g_autoptr (PlxMemoryTrace) tl = event_trace (lo);
          g_autoptr (PlxMemoryTrace) th = event_trace (hi);

          g_assert_cmpuint (tl->n_ranks, ==, th->n_ranks);
          w->n.checks[law]++;
          w->n.per_stage[law]++;
          for (guint st = 0; st < tl->n_ranks; st++)
            {
              guint64 vl = trace_figure (tl, st, figure), vh = trace_figure (th, st, figure);

              if (memory_breaks (equal, vl, vh))
                {
                  violation (w, law, excess ((double) vl, (double) vh),
                             "%s %s %" G_GUINT64_FORMAT " B on stage %u (reported: stage %u) in %s ; %s %"
                             G_GUINT64_FORMAT " B on stage %u (reported: stage %u) in %s",
                             what, figure_names[figure], vl, st, rl->reported_stage, lo->json,
                             equal ? "but" : "more than", vh, st, rh->reported_stage, hi->json);
                  break;
                }
            }
        }
    }
}

/* The memory laws compare one GPU's figure under two strategies, so both must put
 * the same layers on it: where the layers do not divide evenly, the balanced split
 * follows the stage times, and a change of recompute, micro-batch or ZeRO stage can
 * move a layer onto the compared stage (law 5 once saw +37 % that way, all of it
 * one more layer). `pinned` is `c` with the split the base ran with written out as
 * its layers_per_stage, or `c` itself where the layers divide evenly. */
static void
pin_split (const Case *c,
           const Eval *base,
           Case       *pinned)
{
  g_autoptr (GError) error = NULL;
  PlxPlan *plan;
  guint k;

  *pinned = *c;
  if (!plx_layer_split_is_uneven (base->strategy, base->model->n_layers))
    return;
  k = base->strategy->pp * base->strategy->virtual_stages;
  g_assert_cmpuint (k, <=, MAX_CHUNKS);
  plan = plx_plan_lower (base->model, base->cluster, base->strategy, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < k; i++)
    pinned->split[i] = plan->chunks[i].n_layers;
  pinned->n_split = k;
  plx_plan_free (plan);
}

/* `pinned` with recompute `mode`, evaluated into `out`: or the base itself where the
 * drawn case `c` already has that mode. */
static const Eval *
recompute_variant (Worker       *w,
                   const Case   *c,
                   const Case   *pinned,
                   PlxRecompute  mode,
                   const Eval   *base,
                   Eval         *out)
{
  Case v = *pinned;

  if (c->recompute == mode)
    return base;
  v.recompute = mode;
  eval_case (w, &v, TRUE, TRUE, out);
  return out;
}

/* Laws 2, 3, 10 and 11: `faster` (the better hardware or the lighter strategy)
 * takes no longer than `slower`, within TIME_REL_TOL, analytically. */
static void
check_not_slower (Worker     *w,
                  Law         law,
                  const char *what,
                  const Eval *slower,
                  const Eval *faster)
{
  if (!slower->a_ok || !faster->a_ok)
    return;
  w->n.checks[law]++;
  if (faster->a.step_time_s > slower->a.step_time_s * (1 + TIME_REL_TOL))
    violation (w, law, excess (faster->a.step_time_s, slower->a.step_time_s),
               "%s: %.12g s in %s ; slower than %.12g s in %s", what, faster->a.step_time_s, faster->json,
               slower->a.step_time_s, slower->json);
}

static void
check_case (Worker *w,
            guint64 index)
{
  guint32 seeds[3] = { (guint32) w->shared->seed, (guint32) index, (guint32) (index >> 32) };
  g_autoptr (GRand) rand = g_rand_new_with_seed_array (seeds, G_N_ELEMENTS (seeds));
  Case c, v, p;
  Eval base, var, var2;
  const PlxStrategy *s;
  guint64 m;

  w->case_index = index;
  w->seq = 0;
  w->n.cases++;
  case_random (rand, w->shared, &c);
  eval_case (w, &c, FALSE, TRUE, &base);
  if (index % VERIFY_EVERY == 0)
    verify_load (w, &base);
  if (base.strategy == NULL)
    {
      eval_clear (&base);
      return;
    }
  s = base.strategy;
  m = plx_strategy_get_n_micro_batches (s);
  memset (&var, 0, sizeof var);
  memset (&var2, 0, sizeof var2);
  pin_split (&c, &base, &p);

  /* Law 2: recompute full against none, everything else equal, on the base's layer
   * split (pin_split): the balanced split minimises the largest stage time, not the
   * step, so a split chosen for full recompute can be faster than the one chosen for
   * none - a property of the split's objective (docs/robustness.md), checked apart
   * below. */
  {
    const Eval *none = recompute_variant (w, &c, &p, PLX_RECOMPUTE_NONE, &base, &var);
    const Eval *full = recompute_variant (w, &c, &p, PLX_RECOMPUTE_FULL, &base, &var2);

    if (none->a_ok && full->a_ok)
      {
        w->n.checks[LAW_RECOMPUTE_TIME]++;
        if (full->a.step_time_s < none->a.step_time_s * (1 - TIME_REL_TOL))
          violation (w, LAW_RECOMPUTE_TIME, excess (full->a.step_time_s, none->a.step_time_s),
                     "full %.12g s in %s ; faster than none %.12g s in %s",
                     full->a.step_time_s, full->json, none->a.step_time_s, none->json);
      }
    compare_memory (w, LAW_RECOMPUTE_ACT_ANALYTIC, LAW_RECOMPUTE_ACT_EVENT, FALSE, FIGURE_ACTIVATIONS,
                    "full recompute:", full, none);

    /* Law 12: selective recompute keeps everything but the attention cores and
     * re-creates one; full keeps the layers' inputs and re-creates one whole layer
     * (Korthikanti et al. 2022 §5; plx_costing_recompute_transient_bytes), so it
     * never keeps more. */
    {
      Eval sel_var = { 0 };
      const Eval *sel = recompute_variant (w, &c, &p, PLX_RECOMPUTE_SELECTIVE, &base, &sel_var);

      compare_memory (w, LAW_RECOMPUTE_SEL_ACT_ANALYTIC, LAW_RECOMPUTE_SEL_ACT_EVENT, FALSE, FIGURE_ACTIVATIONS,
                      "full recompute:", full, sel);
      eval_clear (&sel_var);
    }
    eval_clear (&var);
    eval_clear (&var2);

    /* Law 2 again, each strategy on the layer split it chooses for itself. */
    if (p.n_split > c.n_split)
      {
        v = c;
        v.recompute = PLX_RECOMPUTE_NONE;
        eval_case (w, &v, TRUE, FALSE, &var);
        v.recompute = PLX_RECOMPUTE_FULL;
        eval_case (w, &v, TRUE, FALSE, &var2);
        check_not_slower (w, LAW_RECOMPUTE_TIME_OWN_SPLIT, "no recompute", &var2, &var);
        eval_clear (&var);
        eval_clear (&var2);
      }
  }

  /* Law 3: both links twice as fast, on the base's layer split (as law 2: faster
   * links change ZeRO-3's stage times and so the balanced split, whose objective -
   * the largest chunk time - is not GPipe's pace, max f + max b). */
  if (base.a_ok)
    {
      v = p;
      v.inter_bw_Bps = 2.0 * base.cluster->inter_node.bw_Bps;
      v.intra_bw_Bps = 2.0 * base.cluster->intra_node.bw_Bps;
      eval_case (w, &v, TRUE, FALSE, &var);
      if (var.a_ok)
        {
          w->n.checks[LAW_BANDWIDTH]++;
          if (var.a.step_time_s > base.a.step_time_s * (1 + TIME_REL_TOL))
            violation (w, LAW_BANDWIDTH, excess (var.a.step_time_s, base.a.step_time_s),
                       "doubled bandwidth %.12g s in %s ; slower than %.12g s in %s",
                       var.a.step_time_s, var.json, base.a.step_time_s, base.json);
        }
      eval_clear (&var);
    }

  /* Laws 10 and 11: every GPU's FLOP/s, then its HBM bandwidth, doubled; on the
   * base's layer split, and where the layers do not divide, each on its own. */
  if (base.a_ok)
    for (guint k = 0; k < 2; k++)
      {
        Law law = k == 0 ? LAW_FLOPS : LAW_HBM;

        v = p;
        if (k == 0)
          v.flops_scale = 2.0;
        else
          v.hbm_scale = 2.0;
        eval_case (w, &v, TRUE, FALSE, &var);
        check_not_slower (w, law, k == 0 ? "doubled FLOP/s" : "doubled HBM bandwidth", &base, &var);
        eval_clear (&var);
        if (p.n_split > c.n_split)
          {
            Case own = c;

            own.flops_scale = v.flops_scale;
            own.hbm_scale = v.hbm_scale;
            eval_case (w, &own, TRUE, FALSE, &var);
            check_not_slower (w, law + 1, k == 0 ? "doubled FLOP/s" : "doubled HBM bandwidth", &base, &var);
            eval_clear (&var);
          }
      }

  /* Law 13: the two engines' peak memory on zero-bubble H1. */
  if (s->schedule == PLX_SCHEDULE_ZERO_BUBBLE_H1 && base.a_ok && base.e_ok)
    {
      double rel = excess ((double) base.e.peak_memory_bytes, (double) base.a.peak_memory_bytes);

      w->n.checks[LAW_ZB_PEAK_AGREE]++;
      if (!(rel <= AGREE_REL_TOL))
        violation (w, LAW_ZB_PEAK_AGREE, rel, "analytical %" G_GUINT64_FORMAT " B, event %" G_GUINT64_FORMAT
                   " B (%+.2f %%) in %s", base.a.peak_memory_bytes, base.e.peak_memory_bytes, 100.0 * rel, base.json);
    }

  /* Law 4: micro-batch 2m against m; the global batch kept where dp x 2m divides it,
   * else doubled (the same number of micro-batches). */
  v = p;
  v.mbs = 2 * c.mbs;
  if (c.gbs % ((guint64) s->dp * v.mbs) != 0)
    v.gbs = 2 * c.gbs;
  eval_case (w, &v, TRUE, TRUE, &var);
  compare_memory (w, LAW_MBS_ACT_ANALYTIC, LAW_MBS_ACT_EVENT, FALSE, FIGURE_ACTIVATIONS, "micro-batch m:",
                  &base, &var);
  eval_clear (&var);

  /* Law 5: ZeRO stages 0..3 in turn, where there are data-parallel ranks to shard over. */
  if (s->dp > 1)
    {
      Eval stages[4];

      memset (stages, 0, sizeof stages);
      for (guint k = 0; k < 4; k++)
        if (k != c.zero_stage)
          {
            v = p;
            v.zero_stage = k;
            eval_case (w, &v, TRUE, TRUE, &stages[k]);
          }
      for (guint k = 0; k < 3; k++)
        {
          const Eval *upper = k + 1 == c.zero_stage ? &base : &stages[k + 1];
          guint lower = k;
          g_autofree char *what = NULL;

          /* Pipelined PyTorch FSDP gathers each unit once per step and holds its
           * weights and gradients whole until the last micro-batch (cost-model.md,
           * "Resharding"): more than ZeRO-2, which shards gradients, by design; what
           * still holds is no more than ZeRO-1. */
          if (k == 2 && upper->strategy != NULL && plx_strategy_zero3_once_per_step (upper->strategy))
            lower = 1;
          what = g_strdup_printf ("ZeRO stage %u (against %u):", k + 1, lower);
          compare_memory (w, LAW_ZERO_STATES_ANALYTIC, LAW_ZERO_STATES_EVENT, FALSE, FIGURE_MODEL_STATES, what,
                          upper, lower == c.zero_stage ? &base : &stages[lower]);
        }
      for (guint k = 0; k < 4; k++)
        eval_clear (&stages[k]);
    }

  /* Law 6: 1F1B keeps at most pp micro-batches in flight; ZB-H1 as many, plus up to
   * pp - 1 whose weight-gradient pass waits to fill the cool-down bubble (Qi et al.
   * 2023 §3.1): past 2 pp - 1 micro-batches the peak no longer grows. */
  if ((s->schedule == PLX_SCHEDULE_1F1B && m >= s->pp) ||
      (s->schedule == PLX_SCHEDULE_ZERO_BUBBLE_H1 && m >= 2 * (guint64) s->pp - 1))
    {
      /* On the base's split (pin_split): pipelined FSDP spreads a step's gathers over
       * its micro-batches, so their count moves the balanced split. */
      v = p;
      v.gbs = 2 * c.gbs;
      eval_case (w, &v, TRUE, TRUE, &var);
      compare_memory (w, LAW_PIPELINE_ACT_ANALYTIC, LAW_PIPELINE_ACT_EVENT, TRUE, FIGURE_ACTIVATIONS,
                      "micro-batches m:", &base, &var);
      eval_clear (&var);
    }

  eval_clear (&base);
}

static gpointer
worker_run (gpointer data)
{
  Worker *w = data;
  gint i;

  while ((guint64) (i = g_atomic_int_add (&w->shared->next_case, 1)) < w->shared->n_cases)
    check_case (w, w->shared->first_case + (guint64) i);
  return NULL;
}

static Worker *
worker_new (Shared *shared)
{
  Worker *w = g_new0 (Worker, 1);

  w->shared = shared;
  for (guint law = 0; law < N_LAWS; law++)
    w->found[law] = g_ptr_array_new ();
  w->models = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) plx_model_free);
  w->clusters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) plx_cluster_free);
  w->model_json = g_string_new (NULL);
  w->cluster_json = g_string_new (NULL);
  w->strategy_json = g_string_new (NULL);
  return w;
}

/* Frees the worker but for its Found records, which the caller has taken. */
static void
worker_free (Worker *w)
{
  for (guint law = 0; law < N_LAWS; law++)
    g_ptr_array_unref (w->found[law]);
  g_hash_table_unref (w->models);
  g_hash_table_unref (w->clusters);
  g_clear_pointer (&w->case_model, plx_model_free);
  g_free (w->case_model_json);
  g_string_free (w->model_json, TRUE);
  g_string_free (w->cluster_json, TRUE);
  g_string_free (w->strategy_json, TRUE);
  g_free (w);
}

static void
counts_add (Counts       *sum,
            const Counts *n)
{
  for (guint law = 0; law < N_LAWS; law++)
    {
      sum->checks[law] += n->checks[law];
      sum->violations[law] += n->violations[law];
      sum->per_stage[law] += n->per_stage[law];
      sum->other_stage[law] += n->other_stage[law];
      if (n->violations[law] > 0 &&
          (sum->violations[law] == n->violations[law] || n->worst[law] > sum->worst[law] ||
           (n->worst[law] == sum->worst[law] && n->worst_case[law] < sum->worst_case[law])))
        {
          sum->worst[law] = n->worst[law];
          sum->worst_case[law] = n->worst_case[law];
        }
    }
  for (guint i = 0; i < G_N_ELEMENTS (sum->rejected_by_code); i++)
    sum->rejected_by_code[i] += n->rejected_by_code[i];
  sum->cases += n->cases;
  sum->evaluations += n->evaluations;
  sum->verified += n->verified;
  sum->rejected_base += n->rejected_base;
  sum->rejected_variant += n->rejected_variant;
  sum->analytic_runs += n->analytic_runs;
  sum->analytic_refused += n->analytic_refused;
  sum->event_runs += n->event_runs;
  sum->event_refused += n->event_refused;
  sum->event_skipped += n->event_skipped;
  sum->load_us += n->load_us;
  sum->analytic_us += n->analytic_us;
  sum->event_us += n->event_us;
}

static int
found_compare (gconstpointer a,
               gconstpointer b)
{
  const Found *fa = *(const Found *const *) a, *fb = *(const Found *const *) b;

  if (fa->case_index != fb->case_index)
    return fa->case_index < fb->case_index ? -1 : 1;
  return fa->seq < fb->seq ? -1 : fa->seq > fb->seq;
}

static guint64
env_uint (const char *name,
          guint64     fallback,
          guint64     max)
{
  const char *text = g_getenv (name);
  guint64 value;

  if (text == NULL || *text == '\0')
    return fallback;
  if (!g_ascii_string_to_unsigned (text, 10, 0, max, &value, NULL))
    g_error ("%s: \"%s\" is not a whole number from 0 to %" G_GUINT64_FORMAT, name, text, max);
  return value;
}

/* Laws the cost model breaks today (issue 11; docs/robustness.md says how and why):
 * reported and counted, not failed on - but the test fails if one of them holds, so
 * the list only shrinks. Every law not here fails the test on its first violation. */
static const Law known_broken[] = {
  /* The balanced split minimises the largest chunk time; GPipe's pace (max f +
   * max b), the zero-bubble and interleaved fills and the data-parallel tail
   * (which stage ends the step) are not that objective, so where faster hardware
   * or full recompute moves a layer the step can grow or shrink against the law
   * (robustness.md gives the counts). Held on one split, each of these laws holds. */
  LAW_FLOPS_OWN_SPLIT,
  LAW_HBM_OWN_SPLIT,
  LAW_RECOMPUTE_TIME_OWN_SPLIT,
};

static gboolean
law_known_broken (guint law)
{
  for (guint i = 0; i < G_N_ELEMENTS (known_broken); i++)
    if ((guint) known_broken[i] == law)
      return TRUE;
  return FALSE;
}

static void
test_random (void)
{
  Shared shared = { 0 };
  Counts n = { 0 };
  guint n_threads = (guint) env_uint ("PLX_PROPERTY_THREADS", MIN (g_get_num_processors (), MAX_THREADS), 256);
  g_autoptr (GPtrArray) workers = g_ptr_array_new ();
  gint64 t0 = g_get_monotonic_time ();
  guint failed_laws = 0, known_violated = 0;

  shared.seed = env_uint ("PLX_PROPERTY_SEED", DEFAULT_SEED, G_MAXUINT32);
  shared.n_cases = env_uint ("PLX_PROPERTY_CASES", DEFAULT_CASES, G_MAXINT32 - MAX_THREADS);
  shared.first_case = env_uint ("PLX_PROPERTY_FIRST", 0, G_MAXUINT32);
  shared.max_printed = (guint) env_uint ("PLX_PROPERTY_PRINT", DEFAULT_PRINTED, G_MAXUINT32);
  n_threads = MAX (n_threads, 1u);
  g_test_message ("seed %" G_GUINT64_FORMAT " (PLX_PROPERTY_SEED), %" G_GUINT64_FORMAT
                  " cases (PLX_PROPERTY_CASES) from case %" G_GUINT64_FORMAT " (PLX_PROPERTY_FIRST),"
                  " %u threads (PLX_PROPERTY_THREADS)",
                  shared.seed, shared.n_cases, shared.first_case, n_threads);
  for (guint i = 0; i < N_CLUSTERS; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxCluster) cl = plx_cluster_new_preset (cluster_presets[i], &error);

      g_assert_no_error (error);
      shared.gpus_per_node[i] = cl->gpus_per_node;
      memcpy (shared.peak_flops[i], cl->peak_flops, sizeof shared.peak_flops[i]);
      shared.hbm_bw_Bps[i] = cl->hbm_bw_Bps;
    }

  for (guint i = 0; i < n_threads; i++)
    g_ptr_array_add (workers, worker_new (&shared));
  if (n_threads == 1)
    worker_run (workers->pdata[0]);
  else
    {
      g_autoptr (GPtrArray) threads = g_ptr_array_new ();

      for (guint i = 0; i < n_threads; i++)
        g_ptr_array_add (threads, g_thread_new ("property", worker_run, workers->pdata[i]));
      for (guint i = 0; i < n_threads; i++)
        g_thread_join (threads->pdata[i]);
    }

  for (guint i = 0; i < n_threads; i++)
    counts_add (&n, &((Worker *) workers->pdata[i])->n);
  g_test_message ("%" G_GUINT64_FORMAT " cases in %.1f s wall: %" G_GUINT64_FORMAT " scenarios loaded (%.1f s),"
                  " %" G_GUINT64_FORMAT " checked against plx_scenario_new_from_json; %" G_GUINT64_FORMAT
                  " drawn scenarios rejected, %" G_GUINT64_FORMAT " variants of valid ones rejected",
                  n.cases, (g_get_monotonic_time () - t0) / 1e6, n.evaluations, n.load_us / 1e6, n.verified,
                  n.rejected_base, n.rejected_variant);
  for (guint i = 0; i < G_N_ELEMENTS (n.rejected_by_code); i++)
    if (n.rejected_by_code[i] > 0)
      g_test_message ("  rejected with PlxError %u: %" G_GUINT64_FORMAT, i, n.rejected_by_code[i]);
  g_test_message ("analytical engine: %" G_GUINT64_FORMAT " runs (%.1f s), %" G_GUINT64_FORMAT " refused",
                  n.analytic_runs, n.analytic_us / 1e6, n.analytic_refused);
  g_test_message ("event engine: %" G_GUINT64_FORMAT " runs (%.1f s), %" G_GUINT64_FORMAT " refused, %"
                  G_GUINT64_FORMAT " not run (micro-batches x pp x virtual_stages > %u)",
                  n.event_runs, n.event_us / 1e6, n.event_refused, n.event_skipped, EVENT_MAX_PASSES);

  for (guint law = 0; law < N_LAWS; law++)
    {
      g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func (found_free);

      for (guint i = 0; i < n_threads; i++)
        {
          GPtrArray *mine = ((Worker *) workers->pdata[i])->found[law];

          for (guint j = 0; j < mine->len; j++)
            g_ptr_array_add (found, mine->pdata[j]);
        }
      g_ptr_array_sort (found, found_compare);
      for (guint j = 0; j < found->len && j < shared.max_printed; j++)
        {
          const Found *f = found->pdata[j];

          g_test_message ("VIOLATION %s, case %" G_GUINT64_FORMAT ": %s", law_names[law], f->case_index, f->text);
        }
    }
  for (guint i = 0; i < n_threads; i++)
    worker_free (workers->pdata[i]);

  for (guint law = 0; law < N_LAWS; law++)
    {
      g_autofree char *stages = NULL;
      g_autofree char *worst = NULL;
      g_autofree char *share = NULL;
      gboolean broken;

      if (n.per_stage[law] > 0 || n.other_stage[law] > 0)
        stages = g_strdup_printf ("  (%" G_GUINT64_FORMAT " of the checks stage by stage; %" G_GUINT64_FORMAT
                                  " pairs not compared: reports about different stages)",
                                  n.per_stage[law], n.other_stage[law]);
      if (n.violations[law] > 0 && n.worst[law] > 0)
        worst = g_strdup_printf ("  worst %.3g %% off (case %" G_GUINT64_FORMAT ")", 100.0 * n.worst[law],
                                 n.worst_case[law]);
      /* Law 7 at 5 % allows its listed exceptions up to a share of the checks. */
      broken = law == LAW_AGREE ? n.violations[law] > AGREE_MAX_SHARE * (double) n.checks[law] : n.violations[law] > 0;
      if (law == LAW_AGREE && n.checks[law] > 0)
        share = g_strdup_printf ("  (%.2f %% of the checks; at most %.1f %% may be)",
                                 100.0 * (double) n.violations[law] / (double) n.checks[law], 100.0 * AGREE_MAX_SHARE);
      g_test_message ("%-86s checks %8" G_GUINT64_FORMAT "  violations %6" G_GUINT64_FORMAT "%s%s%s%s", law_names[law],
                      n.checks[law], n.violations[law], broken ? "  FAIL" : "",
                      worst != NULL ? worst : "", stages != NULL ? stages : "", share != NULL ? share : "");
      if (broken && !law_known_broken (law))
        failed_laws++;
      /* A law on the known list that now holds must come off it, so that it is
       * held from then on; only the whole optimised run (the sanitized build runs a
       * fifth of it) sees the few cases such a law breaks in. */
      if (n.violations[law] == 0 && law_known_broken (law) && n.cases >= 100000)
        {
          g_test_message ("%s holds now: take it off the known-broken list", law_names[law]);
          failed_laws++;
        }
      if (broken && law_known_broken (law))
        known_violated++;
    }
  if (failed_laws > 0)
    {
      g_test_message ("%u of the %u laws violated", failed_laws, N_LAWS);
      g_test_fail ();
    }
  else if (known_violated > 0)
    g_test_incomplete ("laws still broken in the cost model, listed in known_broken[] and docs/robustness.md");
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/core/properties/random", test_random);
  return g_test_run ();
}
