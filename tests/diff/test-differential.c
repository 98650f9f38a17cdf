/* test-differential.c: every path to a number gives the same number (issue 34,
 * docs/differential.md). The same scenario files - the examples, every published case
 * of tests/data, and random strategies drawn from a fixed seed - go through
 *   - parallax-cli simulate --json and its text output,
 *   - libparallax.so dlopen()ed in a fresh process (diff-first-answer), whose first
 *     simulate() takes each engine in turn,
 *   - the Python binding (gi-numbers.py, where the typelib is built),
 * with each of the analytical, event and IR engines. Paths running the same code must
 * agree to the last bit (text: within the digits it prints); the engines must agree
 * within the tolerances docs/differential.md takes from the pages that state them. */
#include <json-glib/json-glib.h>
#include <math.h>
#include <parallax/parallax.h>
#include <string.h>

#include "../test-files.h"
#include "diff-figures.h"
#include "../test-sanitizer.h"

/* 200 random strategies optimised; under AddressSanitizer (every process about ten
 * times slower) 20, the examples and the first case of each table. */
#ifdef PLX_TEST_ASAN
#define N_RANDOM 20
#define VALIDATION_PER_TABLE 1
#else
#define N_RANDOM 200
#define VALIDATION_PER_TABLE G_MAXUINT
#endif
#define SEED 20261207

/* Tolerances (docs/differential.md says where each is documented). */
/* docs/accuracy.md: on every published case the two engines agree within 0.3 %. */
#define VALIDATION_ANALYTICAL_EVENT 0.003
/* docs/ir.md, "Agreement": on the published cases the IR's step time is within 0.61 %
 * of the event engine's, peak memory per GPU within 0.01 %. DESIGN.md holds the IR to
 * the event engine at that figure everywhere. */
#define IR_EVENT_STEP 0.0061
#define IR_EVENT_MEMORY 0.0001
/* docs/robustness.md, law 7: on random strategies the analytical and event engines
 * are within 25 % on every one and within 5 % on all but 0.5 % of them. */
#define RANDOM_ANALYTICAL_EVENT_BOUND 0.25
#define RANDOM_ANALYTICAL_EVENT_USUAL 0.05
#define RANDOM_ANALYTICAL_EVENT_SHARE 0.005

typedef enum { ENGINE_EVENT, ENGINE_ANALYTICAL, ENGINE_IR, N_ENGINES } Engine;
static const char *const engine_names[N_ENGINES] = { "event", "analytical", "ir" };

typedef enum { PATH_CLI_JSON, PATH_CLI_TEXT, PATH_DLOPEN, PATH_GI, N_PATHS } Path;
static const char *const path_names[N_PATHS] = { "CLI --json", "CLI text", "dlopen, fresh process", "Python GI" };

typedef enum { KIND_EXAMPLE, KIND_VALIDATION, KIND_RANDOM } Kind;

/* One path's answer for one scenario and engine. */
typedef struct
{
  gboolean ran;      /* FALSE: the path was not taken (GI without a typelib) */
  gboolean ok;       /* FALSE: refused, `error` says why */
  char    *error;
  double   step_time_s;
  double   mfu;
  double   peak_memory_bytes;
  /* The text path: half a unit of the last digit printed, in the same units. */
  double   step_half, mfu_half, memory_half;
} Answer;

typedef struct
{
  char  *name;
  char  *path;
  Kind   kind;
  guint  index;   /* the engine of the fresh process's first call goes round with it */
  Answer a[N_ENGINES][N_PATHS];
} Case;

static GPtrArray *cases;   /* Case */
static char      *tmp_dir;

/* ---- the scenarios ------------------------------------------------------------- */

static void
case_add (const char *name, char *path, Kind kind)
{
  Case *c = g_new0 (Case, 1);

  c->name = g_strdup (name);
  c->path = path;
  c->kind = kind;
  c->index = cases->len;
  g_ptr_array_add (cases, c);
}

static void
case_free (gpointer data)
{
  Case *c = data;

  for (guint e = 0; e < N_ENGINES; e++)
    for (guint p = 0; p < N_PATHS; p++)
      g_free (c->a[e][p].error);
  g_free (c->name);
  g_free (c->path);
  g_free (c);
}

static void
add_examples (void)
{
  static const char *const files[] = {
    "gpt3-1f1b-full.json", "gpt3-interleaved-selective.json", "megatron-1t-3072.json",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    case_add (files[i], g_test_build_filename (G_TEST_DIST, "..", "..", "examples", files[i], NULL), KIND_EXAMPLE);
}

/* Every published case (docs/accuracy.md), its scenario object written as a file. */
static void
add_validation_cases (void)
{
  static const char *const tables[] = {
    "korthikanti2022.json", "megatron-lm-readme-h100.json", "torchtitan-a100.json",
    "fms-fsdp-a100-h100.json", "nemo-perf-h100-fp8.json", "bloom176b.json",
  };

  for (gsize t = 0; t < G_N_ELEMENTS (tables); t++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "data", tables[t], NULL);
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_autoptr (GError) error = NULL;
      JsonArray *list;

      json_parser_load_from_file (parser, path, &error);
      g_assert_no_error (error);
      list = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "cases");
      for (guint i = 0; i < json_array_get_length (list) && i < VALIDATION_PER_TABLE; i++)
        {
          JsonObject *entry = json_array_get_object_element (list, i);
          g_autofree char *text = json_to_string (json_object_get_member (entry, "scenario"), TRUE);
          g_autofree char *file = g_strdup_printf ("validation-%zu-%02u.json", t, i);
          g_autofree char *name = g_strdup_printf ("%s: %s", tables[t], json_object_get_string_member (entry, "name"));

          case_add (name, test_write_file (tmp_dir, file, text, -1), KIND_VALIDATION);
        }
    }
}

static guint
pick (GRand *rand, const guint *values, guint n)
{
  return values[g_rand_int_range (rand, 0, (gint32) n)];
}

/* A strategy drawn as tests/core/test-properties.c draws them, kept to sizes every
 * engine runs in milliseconds: up to 8 nodes, 32 micro-batches per pipeline. */
static char *
random_scenario (GRand *rand, guint index, const guint *gpus_per_node)
{
  static const char *const models[] = {
    "gpt2", "gpt2-medium", "gpt2-xl", "llama-2-7b", "llama-3-8b", "megatron-22b", "mixtral-8x7b",
    "gpt3-175b", "llama-2-70b", "deepseek-v3",
  };
  static const char *const clusters[] = { "dgx-a100-80gb", "dgx-a100-40gb", "dgx-h100-80gb", "dgx-h200", "gh200-96gb" };
  static const gboolean has_fp8[] = { FALSE, FALSE, TRUE, TRUE, TRUE };
  static const guint heads[] = { 4, 8, 12, 16, 32 };
  static const guint head_dims[] = { 64, 80, 128 };
  static const guint positions[] = { 1024, 2048, 4096 };
  static const guint degrees[] = { 1, 2, 4, 8 };
  static const guint seqs[] = { 512, 1024, 2048, 4096 };
  static const char *const recomputes[] = { "none", "selective", "full" };
  static const char *const schedules[] = { "1f1b", "gpipe", "interleaved-1f1b", "zero-bubble-h1" };
  GString *s = g_string_new (NULL);
  guint cluster, nodes, gpus, tp, pp, dp, mbs, k;
  const char *schedule;

  g_string_append_printf (s, "{ \"name\": \"random %u\",\n  \"model\": ", index);
  if (g_rand_boolean (rand))
    g_string_append_printf (s, "{ \"preset\": \"%s\" }", models[g_rand_int_range (rand, 0, G_N_ELEMENTS (models))]);
  else
    {
      guint n_head = pick (rand, heads, G_N_ELEMENTS (heads));

      g_string_append_printf (s, "{ \"model_type\": \"gpt2\", \"n_layer\": %d, \"n_embd\": %u, \"n_head\": %u,"
                              " \"vocab_size\": %d, \"n_positions\": %u }",
                              g_rand_int_range (rand, 1, 33), n_head * pick (rand, head_dims, G_N_ELEMENTS (head_dims)),
                              n_head, g_rand_int_range (rand, 1000, 60001),
                              pick (rand, positions, G_N_ELEMENTS (positions)));
    }

  cluster = g_rand_int_range (rand, 0, G_N_ELEMENTS (clusters));
  nodes = 1u << g_rand_int_range (rand, 0, 4);
  gpus = nodes * gpus_per_node[cluster];
  g_string_append_printf (s, ",\n  \"cluster\": { \"preset\": \"%s\", \"num_nodes\": %u }", clusters[cluster], nodes);

  /* Degrees that divide the GPUs: dp is what is left. */
  do
    tp = pick (rand, degrees, G_N_ELEMENTS (degrees));
  while (gpus % tp != 0);
  do
    pp = pick (rand, degrees, G_N_ELEMENTS (degrees));
  while (gpus % (tp * pp) != 0);
  dp = gpus / (tp * pp);
  mbs = g_rand_int_range (rand, 1, 5);
  k = g_rand_int_range (rand, 1, 33);
  schedule = schedules[g_rand_int_range (rand, 0, G_N_ELEMENTS (schedules))];
  g_string_append_printf (s, ",\n  \"strategy\": { \"tp\": %u, \"pp\": %u, \"dp\": %u, \"micro_batch_size\": %u,"
                          " \"global_batch_size\": %u, \"seq_length\": %u, \"recompute\": \"%s\","
                          " \"zero_stage\": %d, \"schedule\": \"%s\"",
                          tp, pp, dp, mbs, dp * mbs * k, pick (rand, seqs, G_N_ELEMENTS (seqs)),
                          recomputes[g_rand_int_range (rand, 0, 3)], g_rand_int_range (rand, 0, 4), schedule);
  if (g_str_equal (schedule, "interleaved-1f1b"))
    g_string_append_printf (s, ", \"virtual_stages\": %d", g_rand_int_range (rand, 2, 5));
  g_string_append_printf (s, ", \"sequence_parallel\": %s, \"flash_attention\": %s, \"dtype\": \"%s\" } }\n",
                          g_rand_boolean (rand) ? "true" : "false", g_rand_boolean (rand) ? "true" : "false",
                          has_fp8[cluster] && g_rand_double (rand) < 0.25 ? "fp8" : "bf16");
  return g_string_free (s, FALSE);
}

/* The GPUs a node of each preset has, from the library. */
static void
gpus_per_node_of_presets (guint *out)
{
  static const char *const clusters[] = { "dgx-a100-80gb", "dgx-a100-40gb", "dgx-h100-80gb", "dgx-h200", "gh200-96gb" };

  for (gsize i = 0; i < G_N_ELEMENTS (clusters); i++)
    {
      g_autofree char *text = g_strdup_printf ("{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"%s\" },"
                                               " \"strategy\": { \"tp\": 1, \"pp\": 1, \"global_batch_size\": 8 } }",
                                               clusters[i]);
      g_autoptr (JsonNode) node = json_from_string (text, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxScenario) sc = plx_scenario_new_from_json (node, ".", "preset probe", &error);

      g_assert_no_error (error);
      out[i] = sc->cluster->gpus_per_node;
    }
}

/* Random strategies that the loader accepts (a draw it refuses, e.g. heads that TP
 * does not divide, is drawn again: refusals are the loaders' tests' business). Each
 * case draws from a generator seeded with its own index and attempt, so that a change
 * of what the loader takes changes only the cases it touches, not every later one. */
static void
add_random_cases (void)
{
  guint gpus_per_node[5];
  guint redrawn = 0;

  gpus_per_node_of_presets (gpus_per_node);
  for (guint i = 0; i < N_RANDOM; i++)
    for (guint attempt = 0;; attempt++)
      {
        const guint32 seed[] = { SEED, i, attempt };
        g_autoptr (GRand) rand = g_rand_new_with_seed_array (seed, G_N_ELEMENTS (seed));
        g_autofree char *text = random_scenario (rand, i, gpus_per_node);
        g_autoptr (JsonNode) node = json_from_string (text, NULL);
        g_autoptr (GError) error = NULL;
        g_autoptr (PlxScenario) sc = plx_scenario_new_from_json (node, tmp_dir, "random", &error);
        g_autofree char *file = NULL, *name = NULL;

        if (sc == NULL)
          {
            g_assert_true (error != NULL && error->domain == PLX_ERROR);
            g_assert_cmpuint (++redrawn, <, 20 * N_RANDOM);
            continue;
          }
        file = g_strdup_printf ("random-%03u.json", i);
        name = g_strdup_printf ("random %u", i);
        case_add (name, test_write_file (tmp_dir, file, text, -1), KIND_RANDOM);
        break;
      }
  g_test_message ("%u random strategies (seed %u), %u draws refused by the loader and drawn again", N_RANDOM, SEED,
                  redrawn);
}

/* A scenario an earlier draw found past a documented tolerance (issue 34), kept
 * whatever the draws become: IR 0.93 % from the event engine until the program cut
 * ZB-H1's W tasks at the gradient buckets' ready points (docs/ir.md, "Agreement"). */
static void
add_found_cases (void)
{
  static const char zb_h1[] =
    "{ \"name\": \"found ir-zb-h1\",\n"
    "  \"model\": { \"model_type\": \"gpt2\", \"n_layer\": 4, \"n_embd\": 4096, \"n_head\": 32,"
    " \"vocab_size\": 34257, \"n_positions\": 4096 },\n"
    "  \"cluster\": { \"preset\": \"dgx-a100-40gb\", \"num_nodes\": 2 },\n"
    "  \"strategy\": { \"tp\": 2, \"pp\": 4, \"dp\": 2, \"micro_batch_size\": 4, \"global_batch_size\": 56,"
    " \"seq_length\": 512, \"recompute\": \"selective\", \"zero_stage\": 0, \"schedule\": \"zero-bubble-h1\","
    " \"sequence_parallel\": false, \"flash_attention\": false, \"dtype\": \"bf16\" } }\n";

  case_add ("found ir-zb-h1", test_write_file (tmp_dir, "found-ir-zb-h1.json", zb_h1, -1), KIND_RANDOM);
}

/* ---- the paths ------------------------------------------------------------------ */

static gboolean
run (const char *const *argv, char **out, char **err)
{
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, &status, &error);
  g_assert_no_error (error);
  return g_spawn_check_wait_status (status, NULL);
}

static void
refused (Answer *a, const char *message)
{
  a->ran = TRUE;
  a->ok = FALSE;
  a->error = g_strstrip (g_strdup (message != NULL && message[0] ? message : "(no message)"));
}

static void
cli_json (Case *c, Engine e)
{
  const char *argv[] = { g_getenv ("PLX_CLI"), "simulate", "--json", "--engine", engine_names[e], c->path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  Answer *a = &c->a[e][PATH_CLI_JSON];
  JsonObject *o;

  if (!run (argv, &out, &err))
    {
      refused (a, err);
      return;
    }
  a->ran = a->ok = TRUE;
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  o = json_node_get_object (json_parser_get_root (parser));
  a->step_time_s = json_object_get_double_member (o, "step_time_s");
  a->mfu = json_object_get_double_member (o, "mfu");
  a->peak_memory_bytes = (double) json_object_get_int_member (o, "peak_memory_bytes");
}

/* A figure of the text report: the line that starts with `label`. */
static gboolean
text_figure (const char *text, const char *label, double *value, double *half)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], label))
      return diff_read_figure (g_strchug (lines[i] + strlen (label)), value, half);
  return FALSE;
}

static void
cli_text (Case *c, Engine e)
{
  const char *argv[] = { g_getenv ("PLX_CLI"), "simulate", "--engine", engine_names[e], c->path, NULL };
  g_autofree char *out = NULL, *err = NULL;
  Answer *a = &c->a[e][PATH_CLI_TEXT];

  if (!run (argv, &out, &err))
    {
      refused (a, err);
      return;
    }
  if (!text_figure (out, "Step time", &a->step_time_s, &a->step_half) ||
      !text_figure (out, "MFU", &a->mfu, &a->mfu_half) ||
      !text_figure (out, "Peak memory", &a->peak_memory_bytes, &a->memory_half))
    {
      g_autofree char *why = g_strdup_printf ("the text lacks a step time, MFU or peak memory line:\n%s", out);
      refused (a, why);
      return;
    }
  a->ran = a->ok = TRUE;
}

/* A fresh process per scenario; the engine of its first simulate() goes round. */
static void
dlopen_fresh (Case *c, guint index)
{
  const char *argv[4 + N_ENGINES + 1] = { g_getenv ("PLX_DIFF_FIRST_ANSWER"), g_getenv ("PLX_LIBPARALLAX"), c->path };
  g_autofree char *out = NULL, *err = NULL;
  g_auto (GStrv) lines = NULL;

  for (guint k = 0; k < N_ENGINES; k++)
    argv[3 + k] = engine_names[(index + k) % N_ENGINES];
  if (!run (argv, &out, &err))
    g_error ("%s: diff-first-answer failed: %s%s", c->name, out, err);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0]; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], " ", 3);
      Engine e = N_ENGINES;
      Answer *a;

      for (guint k = 0; k < N_ENGINES; k++)
        if (g_str_equal (f[0], engine_names[k]))
          e = k;
      g_assert_cmpuint (e, <, N_ENGINES);
      a = &c->a[e][PATH_DLOPEN];
      if (g_str_equal (f[1], "refused"))
        {
          refused (a, f[2]);
          continue;
        }
      g_assert_cmpstr (f[1], ==, "ok");
      g_strfreev (f);
      f = g_strsplit (lines[i], " ", 5);
      a->ran = a->ok = TRUE;
      a->step_time_s = g_ascii_strtod (f[2], NULL);
      a->mfu = g_ascii_strtod (f[3], NULL);
      a->peak_memory_bytes = (double) g_ascii_strtoull (f[4], NULL, 10);
    }
}

/* One Python process for every scenario (its start costs a third of a second). */
static void
python_gi (void)
{
  const char *python = g_getenv ("PLX_PYTHON");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "gi-numbers.py", NULL);
  g_autofree char *engines = g_strjoinv (",", (char **) engine_names);
  g_autofree char *out = NULL, *err = NULL;
  g_auto (GStrv) lines = NULL;

  if (python == NULL)
    return;
  g_ptr_array_add (argv, (gpointer) python);
  g_ptr_array_add (argv, script);
  g_ptr_array_add (argv, engines);
  for (guint i = 0; i < cases->len; i++)
    g_ptr_array_add (argv, ((Case *) cases->pdata[i])->path);
  g_ptr_array_add (argv, NULL);
  if (!run ((const char *const *) argv->pdata, &out, &err))
    g_error ("gi-numbers.py failed: %s", err);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0]; i++)
    {
      g_autoptr (JsonNode) node = json_from_string (lines[i], NULL);
      JsonObject *o = json_node_get_object (node);
      const char *file = json_object_get_string_member (o, "file");
      const char *engine = json_object_get_string_member (o, "engine");
      Answer *a = NULL;

      for (guint k = 0; k < cases->len && a == NULL; k++)
        for (guint e = 0; e < N_ENGINES; e++)
          if (g_str_equal (((Case *) cases->pdata[k])->path, file) && g_str_equal (engine_names[e], engine))
            a = &((Case *) cases->pdata[k])->a[e][PATH_GI];
      g_assert_nonnull (a);
      if (json_object_has_member (o, "error"))
        {
          refused (a, json_object_get_string_member (o, "error"));
          continue;
        }
      a->ran = a->ok = TRUE;
      a->step_time_s = json_object_get_double_member (o, "step_time_s");
      a->mfu = json_object_get_double_member (o, "mfu");
      a->peak_memory_bytes = (double) json_object_get_int_member (o, "peak_memory_bytes");
    }
}

static void
run_case (gpointer data, gpointer user_data)
{
  Case *c = data;

  for (guint e = 0; e < N_ENGINES; e++)
    {
      cli_json (c, e);
      cli_text (c, e);
    }
  dlopen_fresh (c, c->index);
}

static void
run_every_path (void)
{
  g_autoptr (GError) error = NULL;
  gint64 t0 = g_get_monotonic_time ();
  GThreadPool *pool;

  /* Each case in a worker of its own: the paths are processes, two at a time. */
  pool = g_thread_pool_new ((GFunc) run_case, NULL, 2, TRUE, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < cases->len; i++)
    {
      g_thread_pool_push (pool, cases->pdata[i], &error);
      g_assert_no_error (error);
    }
  g_thread_pool_free (pool, FALSE, TRUE);
  python_gi ();
  g_test_message ("%u scenarios through every path in %.1f s", cases->len, (g_get_monotonic_time () - t0) / 1e6);
}

/* ---- the checks ----------------------------------------------------------------- */

static GString *
problems_new (void)
{
  return g_string_new (NULL);
}

/* Fails the test with every problem found, not only the first. */
static void
problems_end (GString *p, const char *what)
{
  if (p->len > 0)
    {
      g_test_message ("%s", p->str);
      g_test_fail_printf ("%s: disagreements above", what);
    }
  g_string_free (p, TRUE);
}

/* Refused by one path and answered by another is a disagreement too. */
static gboolean
same_verdict (GString *p, const Case *c, Engine e, Path path)
{
  const Answer *ref = &c->a[e][PATH_CLI_JSON], *a = &c->a[e][path];

  if (!a->ran)
    return FALSE;
  if (ref->ok != a->ok)
    {
      g_string_append_printf (p, "%s, %s engine: %s %s, %s %s\n", c->name, engine_names[e], path_names[PATH_CLI_JSON],
                              ref->ok ? "answers" : ref->error, path_names[path], a->ok ? "answers" : a->error);
      return FALSE;
    }
  return a->ok;
}

/* Same code, same inputs: the same doubles. */
static void
check_bit_equal (Path path)
{
  GString *p = problems_new ();
  guint compared = 0;

  if (path == PATH_GI && g_getenv ("PLX_PYTHON") == NULL)
    {
      g_test_skip ("no Python with PyGObject and the typelib (not built in sanitized builds)");
      g_string_free (p, TRUE);
      return;
    }
  for (guint i = 0; i < cases->len; i++)
    for (guint e = 0; e < N_ENGINES; e++)
      {
        const Case *c = cases->pdata[i];
        const Answer *ref = &c->a[e][PATH_CLI_JSON], *a = &c->a[e][path];

        if (!same_verdict (p, c, e, path))
          continue;
        compared++;
        if (a->step_time_s != ref->step_time_s || a->mfu != ref->mfu || a->peak_memory_bytes != ref->peak_memory_bytes)
          g_string_append_printf (p, "%s, %s engine: %s step %.17g s, MFU %.17g, peak %.17g B; %s %.17g s, %.17g, %.17g B\n",
                                  c->name, engine_names[e], path_names[PATH_CLI_JSON], ref->step_time_s, ref->mfu,
                                  ref->peak_memory_bytes, path_names[path], a->step_time_s, a->mfu, a->peak_memory_bytes);
      }
  g_test_message ("%u answers of %s compared with the CLI's JSON", compared, path_names[path]);
  problems_end (p, path_names[path]);
}

static void
test_dlopen (void)
{
  check_bit_equal (PATH_DLOPEN);
}

static void
test_gi (void)
{
  check_bit_equal (PATH_GI);
}

static void
test_text (void)
{
  GString *p = problems_new ();
  guint compared = 0;

  for (guint i = 0; i < cases->len; i++)
    for (guint e = 0; e < N_ENGINES; e++)
      {
        const Case *c = cases->pdata[i];
        const Answer *ref = &c->a[e][PATH_CLI_JSON], *a = &c->a[e][PATH_CLI_TEXT];

        if (!same_verdict (p, c, e, PATH_CLI_TEXT))
          continue;
        compared++;
        if (!diff_within_print (a->step_time_s, a->step_half, ref->step_time_s) ||
            !diff_within_print (a->mfu, a->mfu_half, ref->mfu) ||
            !diff_within_print (a->peak_memory_bytes, a->memory_half, ref->peak_memory_bytes))
          g_string_append_printf (p, "%s, %s engine: text step %g s, MFU %g, peak %g B; JSON %.17g s, %.17g, %.17g B\n",
                                  c->name, engine_names[e], a->step_time_s, a->mfu, a->peak_memory_bytes,
                                  ref->step_time_s, ref->mfu, ref->peak_memory_bytes);
      }
  g_test_message ("%u text answers compared with the CLI's JSON", compared);
  problems_end (p, "CLI text");
}

/* A random case's scenario, for the report of a disagreement: its file is gone
 * after the test. */
static void
append_scenario (GString *p, const Case *c)
{
  g_autofree char *text = NULL;

  if (c->kind == KIND_RANDOM && g_file_get_contents (c->path, &text, NULL, NULL))
    g_string_append_printf (p, "  %s", text);
}

static double
gap (double a, double b)
{
  return fabs (a - b) / MAX (fabs (b), 1e-300);
}

/* Disagreements past a documented tolerance that this test found (issue 34) and that
 * are reported to the engines' owners rather than hidden by a wider tolerance: while
 * they hold the test is marked TODO with them printed; another one fails it, and so
 * does one of these that no longer breaks (remove it here then). */
static const char *const known_breaks[] = {
  /* None now. "found ir-zb-h1 ir-event" (IR 148.32 ms, event 146.95 ms: 0.93 %) was
   * the IR reading a ZB-H1 layer's W task whole for its gradient buckets; the
   * program now cuts the task at the bucket points (plx-ir-lower.c). */
  NULL, /* ends the list (and keeps it non-empty in ISO C) */
};

typedef struct
{
  GString *problems;
  GString *known;
  gboolean found[G_N_ELEMENTS (known_breaks)];
} Breaks;

/* Whether `c` breaking the agreement of `engines` is a known break (marked found). */
static gboolean
breaks_known (Breaks *b, const Case *c, const char *engines)
{
  g_autofree char *key = g_strdup_printf ("%s %s", c->name, engines);

  for (gsize k = 0; known_breaks[k] != NULL; k++)
    if (g_str_equal (key, known_breaks[k]))
      return b->found[k] = TRUE;
  return FALSE;
}

/* Files a break under the known ones or the problems. */
static void G_GNUC_PRINTF (4, 5)
breaks_add (Breaks *b, const Case *c, const char *engines, const char *format, ...)
{
  GString *to = breaks_known (b, c, engines) ? b->known : b->problems;
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_string_append_printf (to, "%s: %s\n", c->name, text);
  append_scenario (to, c);
}

/* Whether a known break is about a published case (it is checked with those). */
static gboolean
known_break_is_validation (const char *key)
{
  for (guint i = 0; i < cases->len; i++)
    {
      const Case *c = cases->pdata[i];

      if (g_str_has_prefix (key, c->name) && key[strlen (c->name)] == ' ')
        return c->kind == KIND_VALIDATION;
    }
  return FALSE;
}

static void
breaks_end (Breaks *b, gboolean validation)
{
  for (gsize k = 0; known_breaks[k] != NULL; k++)
    if (!b->found[k] && known_break_is_validation (known_breaks[k]) == validation)
      g_string_append_printf (b->problems, "%s: a known break no longer breaks; remove it from known_breaks[]\n",
                              known_breaks[k]);
  if (b->problems->len > 0)
    g_test_message ("%s", b->problems->str);
  if (b->known->len > 0)
    g_test_message ("known breaks (docs/differential.md):\n%s", b->known->str);
  if (b->problems->len > 0)
    g_test_fail_printf ("engines: disagreements above");
  else if (b->known->len > 0)
    g_test_incomplete ("engines: the known breaks above");
  g_string_free (b->problems, TRUE);
  g_string_free (b->known, TRUE);
}

/* The engines on the same scenario, from the CLI's JSON (which the paths above hold
 * to every other path). */
static void
check_engines (gboolean validation)
{
  Breaks b = { g_string_new (NULL), g_string_new (NULL), { FALSE } };
  guint compared = 0, usual_exceeded = 0, compared_ae = 0;
  double worst_ae = 0.0, worst_ir = 0.0, worst_ir_mem = 0.0, worst_ae_mem = 0.0;
  const char *worst_ae_case = "-", *worst_ir_case = "-";
  const Case *worst_ae_mem_case = NULL;

  for (guint i = 0; i < cases->len; i++)
    {
      const Case *c = cases->pdata[i];
      const Answer *ev = &c->a[ENGINE_EVENT][PATH_CLI_JSON];
      const Answer *an = &c->a[ENGINE_ANALYTICAL][PATH_CLI_JSON];
      const Answer *ir = &c->a[ENGINE_IR][PATH_CLI_JSON];
      double g, bound = validation ? VALIDATION_ANALYTICAL_EVENT : RANDOM_ANALYTICAL_EVENT_BOUND;

      if ((c->kind == KIND_VALIDATION) != validation)
        continue;
      if (!ev->ok)
        {
          /* The event engine is the reference: a scenario the loader takes, it runs. */
          breaks_add (&b, c, "event", "the event engine refused: %s", ev->error);
          continue;
        }
      compared++;
      if (!an->ok)
        breaks_add (&b, c, "analytical-event", "the analytical engine refused (event answered): %s", an->error);
      else
        {
          compared_ae++;
          g = gap (an->step_time_s, ev->step_time_s);
          if (g > worst_ae)
            worst_ae = g, worst_ae_case = c->name;
          /* Not held: no page states a tolerance (docs/differential.md). */
          if (gap (an->peak_memory_bytes, ev->peak_memory_bytes) > worst_ae_mem)
            worst_ae_mem = gap (an->peak_memory_bytes, ev->peak_memory_bytes), worst_ae_mem_case = c;
          if (g > bound || (!validation && g > RANDOM_ANALYTICAL_EVENT_USUAL && breaks_known (&b, c, "analytical-event")))
            breaks_add (&b, c, "analytical-event", "analytical step %.6g s, event %.6g s: %.2f %% apart (documented: %.1f %%)",
                        an->step_time_s, ev->step_time_s, 100 * g, 100 * (g > bound ? bound : RANDOM_ANALYTICAL_EVENT_USUAL));
          else if (!validation && g > RANDOM_ANALYTICAL_EVENT_USUAL)
            {
              /* Past 5 % but within 25 %: allowed on a few random strategies. */
              g_autoptr (GString) m = g_string_new (NULL);

              usual_exceeded++;
              g_string_append_printf (m, "%s: analytical step %.6g s, event %.6g s: %.2f %% apart\n", c->name,
                                      an->step_time_s, ev->step_time_s, 100 * g);
              append_scenario (m, c);
              g_test_message ("%s", m->str);
            }
        }
      if (!ir->ok)
        breaks_add (&b, c, "ir-event", "the IR engine refused (event answered): %s", ir->error);
      else
        {
          double gm = gap (ir->peak_memory_bytes, ev->peak_memory_bytes);

          g = gap (ir->step_time_s, ev->step_time_s);
          if (g > worst_ir)
            worst_ir = g, worst_ir_case = c->name;
          worst_ir_mem = MAX (worst_ir_mem, gm);
          if (g > IR_EVENT_STEP || gm > IR_EVENT_MEMORY)
            breaks_add (&b, c, "ir-event", "IR step %.6g s and peak %.6g B, event %.6g s and %.6g B: %.3f %% and %.4f %% "
                        "apart (documented: %.2f %% and %.2f %%)", ir->step_time_s, ir->peak_memory_bytes,
                        ev->step_time_s, ev->peak_memory_bytes, 100 * g, 100 * gm, 100 * IR_EVENT_STEP,
                        100 * IR_EVENT_MEMORY);
        }
    }
  g_test_message ("%u scenarios; step time analytical-event worst %.3f %% (%s), IR-event worst %.3f %% (%s); "
                  "peak memory IR-event worst %.4f %%, analytical-event (not held) %.2f %% (%s)", compared,
                  100 * worst_ae, worst_ae_case, 100 * worst_ir, worst_ir_case, 100 * worst_ir_mem, 100 * worst_ae_mem,
                  worst_ae_mem_case ? worst_ae_mem_case->name : "-");
  if (worst_ae_mem_case != NULL && worst_ae_mem_case->kind == KIND_RANDOM)
    {
      /* For whoever holds the two memory models together next (issue 34, item 6). */
      g_autoptr (GString) m = g_string_new ("the analytical and event peak memory furthest apart:\n");

      append_scenario (m, worst_ae_mem_case);
      g_test_message ("%s", m->str);
    }
  if (usual_exceeded > RANDOM_ANALYTICAL_EVENT_SHARE * compared_ae)
    g_string_append_printf (b.problems, "analytical and event engines more than %.0f %% apart on %u of %u strategies"
                            " (documented: at most %.1f %% of them)\n", 100 * RANDOM_ANALYTICAL_EVENT_USUAL,
                            usual_exceeded, compared_ae, 100 * RANDOM_ANALYTICAL_EVENT_SHARE);
  breaks_end (&b, validation);
}

static void
test_engines_validation (void)
{
  check_engines (TRUE);
}

static void
test_engines_examples_and_random (void)
{
  check_engines (FALSE);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (g_getenv ("PLX_CLI"));
  g_assert_nonnull (g_getenv ("PLX_LIBPARALLAX"));
  g_assert_nonnull (g_getenv ("PLX_DIFF_FIRST_ANSWER"));
  tmp_dir = test_make_tmp_dir ("plx-differential");
  cases = g_ptr_array_new_with_free_func (case_free);
  add_examples ();
  add_validation_cases ();
  add_random_cases ();
  add_found_cases ();
  run_every_path ();

  g_test_add_func ("/diff/paths/dlopen-first-answer", test_dlopen);
  g_test_add_func ("/diff/paths/python-gi", test_gi);
  g_test_add_func ("/diff/paths/cli-text", test_text);
  g_test_add_func ("/diff/engines/validation-cases", test_engines_validation);
  g_test_add_func ("/diff/engines/examples-and-random", test_engines_examples_and_random);
  status = g_test_run ();
  test_rm_rf (tmp_dir);
  g_free (tmp_dir);
  g_ptr_array_unref (cases);
  return status;
}
