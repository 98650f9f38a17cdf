/* test-cli-options.c: the commands parsed by GOptionContext (docs/cli.md) take
 * `--key=value` as they take `--key value`. The reference is the CLI's own other
 * spelling of the same request: what is asserted is that the two agree, that the value
 * took effect (a text the default would not print), and the specific errors. */
#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "test-cli-run.h"

static char *
data_path (const char *name)
{
  return g_build_filename (g_getenv ("G_TEST_SRCDIR"), "data", name, NULL);
}

/* Both spellings succeed with the same output, which shows `effect`. */
static void
assert_spellings_agree (const char *const *spaced, const char *const *joined, const char *effect)
{
  g_autofree char *out_spaced = NULL, *err_spaced = NULL, *out_joined = NULL, *err_joined = NULL;

  g_assert_cmpint (run (spaced, &out_spaced, &err_spaced), ==, 0);
  g_assert_cmpstr (err_spaced, ==, "");
  g_assert_cmpint (run (joined, &out_joined, &err_joined), ==, 0);
  g_assert_cmpstr (err_joined, ==, "");
  g_assert_cmpstr (out_joined, ==, out_spaced);
  g_assert_nonnull (strstr (out_joined, effect));
}

/* Exits 2 with a message naming `needle`. */
static void
assert_usage_error (const char *const *args, const char *needle)
{
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run (args, &out, &err), ==, 2);
  g_assert_cmpstr (out, ==, "");
  g_assert_nonnull (strstr (err, needle));
}

static void
test_validate_engine_joined (void)
{
  g_autofree char *table = data_path ("korthikanti2022.json");
  const char *const spaced[] = { "validate", table, "--engine", "analytical", NULL };
  const char *const joined[] = { "validate", table, "--engine=analytical", NULL };

  /* The default engine is event: "analytical" in the header is the flag's doing. */
  assert_spellings_agree (spaced, joined, "Engine: analytical\n");
}

static void
test_validate_errors (void)
{
  g_autofree char *table = data_path ("korthikanti2022.json");
  const char *const missing[] = { "validate", table, "--engine", NULL };
  const char *const bad[] = { "validate", table, "--engine=magic", NULL };
  const char *const unknown[] = { "validate", table, "--jsn", NULL };

  assert_usage_error (missing, "--engine");
  assert_usage_error (bad, "\"magic\" is not analytical, event or ir");
  assert_usage_error (unknown, "\"--jsn\"");
}

static void
test_reshard_joined (void)
{
  const char *const spaced[] = { "reshard", "--shape", "4096x12288", "--mesh", "8", "--from", "[-,-]+x", "--to", "[x,-]",
                                 "--dtype", "fp32", NULL };
  const char *const joined[] = { "reshard", "--shape=4096x12288", "--mesh=8", "--from=[-,-]+x", "--to=[x,-]",
                                 "--dtype=fp32", NULL };

  /* The first line restates the request: the default dtype is bf16. */
  assert_spellings_agree (spaced, joined, "4096x12288 fp32 array on a 8 mesh");
}

static void
test_reshard_errors (void)
{
  const char *const nodes[] = { "reshard", "--to-strategy=tp=4,pp=16", "--nodes=0", NULL };
  const char *const two[] = { "reshard", "a.json", "b.json", "--to-strategy", "tp=4,pp=16", NULL };

  assert_usage_error (nodes, "--nodes: \"0\" is not a whole number from 1 to 100000");
  assert_usage_error (two, "unexpected argument \"b.json\"");
}

/* The graph commands (simulate/plan/search/partition --model, fuse) share one table. */
static void
test_graph_joined (void)
{
  g_autofree char *graph = data_path ("graphs/mlp-2layer.json");
  g_autofree char *model_joined = g_strconcat ("--model=", graph, NULL);
  const char *const spaced[] = { "simulate", "--model", graph, "--dp", "2", "--tp", "2", "--optimizer", "sgd", NULL };
  const char *const joined[] = { "simulate", model_joined, "--dp=2", "--tp=2", "--optimizer=sgd", NULL };
  const char *const fuse[] = { "fuse", graph, "--dp=2", "--max-simulations=50", NULL };
  g_autofree char *out = NULL, *err = NULL, *expected = NULL;

  /* Defaults are dp 1, tp 1 and Adam: each of these is a flag's doing. */
  assert_spellings_agree (spaced, joined, "dp 2, tp 2, pp 1, 1 micro-batch, 1F1B, SGD\n");
  /* fuse's output carries its search time, so it is checked for the flag's effect. */
  g_assert_cmpint (run (fuse, &out, &err), ==, 0);
  expected = g_strdup_printf ("%s, data parallel over 2 GPUs of ", graph);
  g_assert_true (g_str_has_prefix (out, expected));
}

static void
test_graph_errors (void)
{
  g_autofree char *graph = data_path ("graphs/mlp-2layer.json");
  const char *const zero[] = { "plan", "--model", graph, "--dp=0", NULL };
  const char *const missing[] = { "plan", "--model", graph, "--tp", NULL };
  const char *const stray[] = { "plan", "--model", graph, "extra", NULL };

  assert_usage_error (zero, "--dp: \"0\" is not a whole number from 1 to 1048576");
  assert_usage_error (missing, "--tp");
  assert_usage_error (stray, "unexpected argument \"extra\" (the graph comes with --model or --program)");
}

/* The rank table of a search's text output: from its header to the end. */
static const char *
rank_table (const char *out)
{
  const char *table = strstr (out, "\nrank ");
  g_assert_nonnull (table);
  return table;
}

static void
test_merge_joined (void)
{
  g_autofree char *scenario = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "..", "examples", "gpt3-1f1b-full.json",
                                                NULL);
  g_autofree char *dir = g_dir_make_tmp ("plx-cli-options-XXXXXX", NULL);
  g_autofree char *part = g_build_filename (dir, "part.jsonl", NULL);
  const char *const search[] = { "search", scenario, "--gpus", "64:64", "--shard", "1/1", "--out", part, NULL };
  const char *const spaced[] = { "merge", part, "--top", "3", NULL };
  const char *const joined[] = { "merge", part, "--top=3", NULL };
  g_autofree char *out = NULL, *err = NULL, *out_spaced = NULL, *out_joined = NULL, *err_spaced = NULL,
                  *err_joined = NULL;
  g_auto (GStrv) rows = NULL;

  g_assert_cmpint (run (search, &out, &err), ==, 0);
  /* The first line carries the merge's time: the ranking below it is compared. */
  g_assert_cmpint (run (spaced, &out_spaced, &err_spaced), ==, 0);
  g_assert_cmpint (run (joined, &out_joined, &err_joined), ==, 0);
  g_assert_cmpstr (rank_table (out_joined), ==, rank_table (out_spaced));
  /* The header and three ranks (the search's default top is 10), then the end. */
  rows = g_strsplit (rank_table (out_joined) + 1, "\n", -1);
  g_assert_cmpuint (g_strv_length (rows), ==, 5);
  g_assert_true (g_str_has_prefix (rows[3], "   3 "));
  g_assert_cmpstr (rows[4], ==, "");
  g_assert_cmpint (g_remove (part), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
test_search_joined (void)
{
  const char *const spaced[] = { "search", "--top", "3", "--gpus", "64:64", "--fix", "tp=8", NULL };
  const char *const joined[] = { "search", "--top=3", "--gpus=64:64", "--fix=tp=8", NULL };
  const char *const shard[] = { "search", "--shard=1/2", NULL };
  g_autofree char *out_spaced = NULL, *out_joined = NULL, *err_spaced = NULL, *err_joined = NULL;
  g_auto (GStrv) rows = NULL;

  g_assert_cmpint (run (spaced, &out_spaced, &err_spaced), ==, 0);
  g_assert_cmpint (run (joined, &out_joined, &err_joined), ==, 0);
  /* The search's time is above the table. */
  g_assert_cmpstr (rank_table (out_joined), ==, rank_table (out_spaced));
  /* The header, three ranks (the default is 10), the end; every one at TP 8 (--fix)
   * on 64 GPUs (--gpus), the second and third columns. */
  rows = g_strsplit (rank_table (out_joined) + 1, "\n", -1);
  g_assert_cmpuint (g_strv_length (rows), ==, 5);
  for (guint i = 1; i <= 3; i++)
    {
      g_auto (GStrv) cells = g_strsplit_set (rows[i], " ", -1);
      g_autoptr (GPtrArray) words = g_ptr_array_new ();
      for (guint c = 0; cells[c] != NULL; c++)
        if (cells[c][0] != '\0')
          g_ptr_array_add (words, cells[c]);
      g_assert_cmpuint (words->len, >=, 3);
      g_assert_cmpstr (words->pdata[1], ==, "64");
      g_assert_cmpstr (words->pdata[2], ==, "8");
    }
  assert_usage_error (shard, "search: --shard and --out go together");
}

static void
test_merge_errors (void)
{
  const char *const top[] = { "merge", "part.jsonl", "--top=0", NULL };
  const char *const none[] = { "merge", "--json", NULL };

  assert_usage_error (top, "--top: \"0\" is not a whole number from 1 to 100000");
  assert_usage_error (none, "merge: no part given");
}

static void
remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir == NULL)
    {
      g_assert_cmpint (g_remove (path), ==, 0);
      return;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      remove_tree (child);
    }
  g_dir_close (dir);
  g_assert_cmpint (g_rmdir (path), ==, 0);
}

/* The task list a sweep expands to, with `args` after the sweep file. */
static char *
expanded_tasks (const char *const *args, const char *dir)
{
  g_autofree char *sweep = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "..", "examples", "slurm", "sweep.json",
                                             NULL);
  g_autofree char *tasks = g_build_filename (dir, "tasks.txt", NULL);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *out = NULL, *err = NULL, *text = NULL;

  g_ptr_array_add (argv, (gpointer) "sweep");
  g_ptr_array_add (argv, (gpointer) "expand");
  g_ptr_array_add (argv, sweep);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_cmpint (run ((const char *const *) argv->pdata, &out, &err), ==, 0);
  g_assert_true (g_file_get_contents (tasks, &text, NULL, NULL));
  return g_steal_pointer (&text);
}

static void
test_sweep_joined (void)
{
  g_autofree char *dir_spaced = g_dir_make_tmp ("plx-cli-options-XXXXXX", NULL);
  g_autofree char *dir_joined = g_dir_make_tmp ("plx-cli-options-XXXXXX", NULL);
  g_autofree char *dir_flag = g_strconcat ("--dir=", dir_joined, NULL);
  const char *const spaced[] = { "--shards", "2", "--dir", dir_spaced, NULL };
  const char *const joined[] = { "--shards=2", dir_flag, NULL };
  g_autofree char *a = expanded_tasks (spaced, dir_spaced);
  g_autofree char *b = expanded_tasks (joined, dir_joined);
  g_auto (GStrv) lines = g_strsplit (b, "\n", -1);

  /* Paths in the list are relative to its directory, so the two lists are equal. */
  g_assert_cmpstr (b, ==, a);
  /* The example sweep: 2 models x 1 cluster x 1 GPU count x 2 batch sizes = 4
   * scenarios, 2 shards each: 8 lines (and the empty string after the last newline). */
  g_assert_cmpuint (g_strv_length (lines), ==, 9);
  g_assert_nonnull (strstr (lines[1], "\t--shard\t2/2\t"));
  remove_tree (dir_spaced);
  remove_tree (dir_joined);
}

static void
test_sweep_errors (void)
{
  const char *const shards[] = { "sweep", "expand", "s.json", "--dir=d", "--shards=0", NULL };
  const char *const flag[] = { "sweep", "run-task", "--bogus", NULL };
  const char *const count[] = { "sweep", "merge", NULL };

  assert_usage_error (shards, "--shards: \"0\" is not a whole number from 1 to 100000");
  assert_usage_error (flag, "sweep run-task: unknown option \"--bogus\"");
  assert_usage_error (count, "sweep merge needs DIR");
}

static void
test_calibrate_joined (void)
{
  g_autofree char *table = data_path ("korthikanti2022.json");
  const char *const spaced[] = { "calibrate", table, "--cluster", "dgx-a100-80gb", "--fit", "matmul", NULL };
  const char *const joined[] = { "calibrate", table, "--cluster=dgx-a100-80gb", "--fit=matmul", NULL };

  /* By default all four parameters are fitted: "not fitted" is --fit's doing. */
  assert_spellings_agree (spaced, joined, "memory_scale                  1   not fitted\n");
}

static void
test_calibrate_errors (void)
{
  g_autofree char *table = data_path ("korthikanti2022.json");
  const char *const missing[] = { "calibrate", table, "--cluster", NULL };
  const char *const none[] = { "calibrate", table, NULL };

  assert_usage_error (missing, "--cluster");
  assert_usage_error (none, "calibrate: --cluster PRESET is required");
}

static void
test_calibrate_nccl_joined (void)
{
  g_autofree char *file = data_path ("nccl-tests/h100-1x8-nvlink-five-ops.txt");
  g_autofree char *file_joined = g_strconcat ("--nccl-tests=", file, NULL);
  const char *const spaced[] = { "calibrate", "--nccl-tests", file, "--gpus-per-node", "8", "--nodes", "1",
                                 "--cluster", "dgx-h100-80gb", NULL };
  const char *const joined[] = { "calibrate", file_joined, "--gpus-per-node=8", "--nodes=1", "--cluster=dgx-h100-80gb",
                                 NULL };
  const char *const stray[] = { "calibrate", file_joined, "--gpus-per-node=8", "--nodes=1", "extra.json", NULL };

  /* The first line restates the group the flags name. */
  assert_spellings_agree (spaced, joined, "Group: 8 GPUs per node x 1 nodes;");
  assert_usage_error (stray, "calibrate --nccl-tests: unexpected \"extra.json\"");
}

static void
test_calibrate_gemm_joined (void)
{
  g_autofree char *sweep = data_path ("sweeps/xla-h100-gemm.csv");
  g_autofree char *sweep_joined = g_strconcat ("--gemm=", sweep, NULL);
  const char *const spaced[] = { "calibrate", "--gemm", sweep, "--cluster", "dgx-h100-80gb", NULL };
  const char *const joined[] = { "calibrate", sweep_joined, "--cluster=dgx-h100-80gb", NULL };

  /* The default cluster is dgx-a100-80gb: the first line names the one given. */
  assert_spellings_agree (spaced, joined, "Sweeps fitted against dgx-h100-80gb ");
}

static void
test_calibrate_kineto_joined (void)
{
  g_autofree char *trace = data_path ("kineto/hta-sampled-rank0.json");
  g_autofree char *trace_joined = g_strconcat ("--kineto=", trace, NULL);
  const char *const spaced[] = { "calibrate", "--kineto", trace, "--cluster", "dgx-a100-80gb", NULL };
  const char *const joined[] = { "calibrate", trace_joined, "--cluster=dgx-a100-80gb", NULL };

  /* Measured efficiency points are reported only with a cluster to fold them into. */
  assert_spellings_agree (spaced, joined, "\nMeasured points: ");
}

static char *
example_path (const char *name)
{
  return g_build_filename (g_getenv ("G_TEST_SRCDIR"), "..", "examples", name, NULL);
}

/* compare's chart flags: the same stdout, and the SVG as large as asked (the
 * default is 1600 x 1100). */
static void
test_compare_joined (void)
{
  g_autofree char *a = example_path ("gpt3-1f1b-full.json");
  g_autofree char *b = example_path ("gpt3-interleaved-selective.json");
  g_autofree char *dir = g_dir_make_tmp ("plx-cli-options-XXXXXX", NULL);
  g_autofree char *chart = g_build_filename (dir, "c.svg", NULL);
  g_autofree char *out_joined = g_strconcat ("--out=", chart, NULL);
  const char *const spaced[] = { "compare", a, b, "--out", chart, "--width", "800", "--height", "600", NULL };
  const char *const joined[] = { "compare", a, b, out_joined, "--width=800", "--height=600", NULL };
  const char *const bad[] = { "compare", a, b, out_joined, "--width=8", NULL };
  g_autofree char *svg = NULL;

  assert_spellings_agree (spaced, joined, "Chart ");
  g_assert_true (g_file_get_contents (chart, &svg, NULL, NULL));
  g_assert_nonnull (strstr (svg, "width=\"800px\" height=\"600px\""));
  assert_usage_error (bad, "--width: \"8\" is not a size from 16 to 16384 pixels");
  g_assert_cmpint (g_remove (chart), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* The scenario commands: their own flags and the overrides. The built-in default
 * scenario is GPT-3 175B on 64 GPUs at TP 8 x PP 8 with the event engine. */
static void
test_scenario_joined (void)
{
  const char *const simulate_spaced[] = { "simulate", "--tp", "4", "--pp", "16", "--engine", "analytical", NULL };
  const char *const simulate_joined[] = { "simulate", "--tp=4", "--pp=16", "--engine=analytical", NULL };
  const char *const plan_spaced[] = { "plan", "--pp", "4", NULL };
  const char *const plan_joined[] = { "plan", "--pp=4", NULL };
  const char *const partition_spaced[] = { "partition", "--pp", "4", NULL };
  const char *const partition_joined[] = { "partition", "--pp=4", NULL };

  /* 64 GPUs / (TP 4 x PP 16) = DP 1. */
  assert_spellings_agree (simulate_spaced, simulate_joined, "TP 4 × PP 16 × DP 1");
  /* 64 GPUs / (TP 8 x PP 4) = DP 2. */
  assert_spellings_agree (plan_spaced, plan_joined, "TP 8 × PP 4 × DP 2");
  assert_spellings_agree (partition_spaced, partition_joined, "gpt3-175b over 4 pipeline stages");
}

static void
test_uncertainty_joined (void)
{
  const char *const spaced[] = { "simulate", "--samples", "200", "--seed", "7", NULL };
  const char *const joined[] = { "simulate", "--samples=200", "--seed=7", NULL };
  const char *const zero[] = { "simulate", "--samples=0", NULL };

  /* Without --samples there is no uncertainty section; its header restates both flags. */
  assert_spellings_agree (spaced, joined, "200 draws, seed 7)");
  assert_usage_error (zero, "--samples: 0 draws; give 1 to 10000000");
}

static void
test_scenario_errors (void)
{
  const char *const switch_value[] = { "simulate", "--sequence-parallel=0", NULL };
  const char *const width[] = { "simulate", "--timeline=t.png", "--width=8", NULL };
  const char *const two[] = { "plan", "a.json", "b.json", NULL };
  const char *const missing[] = { "simulate", "--tp", NULL };

  /* GLib alone would read --switch=0 as --switch: turning it on. */
  assert_usage_error (switch_value, "--sequence-parallel takes no value");
  assert_usage_error (width, "--width: \"8\" is not a size from 16 to 16384 pixels");
  assert_usage_error (two, "plan: more than one scenario given (\"a.json\", \"b.json\")");
  assert_usage_error (missing, "--tp");
}

/* The generated help: usage first (what the man pages' SYNOPSIS is made of), every flag
 * of the table, and the hand-written help's prose kept in the summary. */
static void
test_generated_help (void)
{
  const char *const presets[] = { "presets", "--help", NULL };
  const char *const validate[] = { "validate", "-h", NULL };
  g_autofree char *p = NULL, *v = NULL, *err_p = NULL, *err_v = NULL;

  g_assert_cmpint (run (presets, &p, &err_p), ==, 0);
  g_assert_true (g_str_has_prefix (p, "Usage: parallax-cli presets [OPTION"));
  g_assert_nonnull (strstr (p, "  --json "));
  g_assert_cmpint (run (validate, &v, &err_v), ==, 0);
  g_assert_true (g_str_has_prefix (v, "Usage: parallax-cli validate [OPTION"));
  g_assert_nonnull (strstr (v, "TABLE.json..."));
  g_assert_nonnull (strstr (v, "  --engine=ENGINE "));
  g_assert_nonnull (strstr (v, "pooled\nsummary"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli-options/validate/engine-joined", test_validate_engine_joined);
  g_test_add_func ("/cli-options/validate/errors", test_validate_errors);
  g_test_add_func ("/cli-options/reshard/joined", test_reshard_joined);
  g_test_add_func ("/cli-options/reshard/errors", test_reshard_errors);
  g_test_add_func ("/cli-options/graph/joined", test_graph_joined);
  g_test_add_func ("/cli-options/graph/errors", test_graph_errors);
  g_test_add_func ("/cli-options/merge/joined", test_merge_joined);
  g_test_add_func ("/cli-options/merge/errors", test_merge_errors);
  g_test_add_func ("/cli-options/search/joined", test_search_joined);
  g_test_add_func ("/cli-options/sweep/joined", test_sweep_joined);
  g_test_add_func ("/cli-options/sweep/errors", test_sweep_errors);
  g_test_add_func ("/cli-options/calibrate/joined", test_calibrate_joined);
  g_test_add_func ("/cli-options/calibrate/errors", test_calibrate_errors);
  g_test_add_func ("/cli-options/calibrate/nccl-joined", test_calibrate_nccl_joined);
  g_test_add_func ("/cli-options/calibrate/gemm-joined", test_calibrate_gemm_joined);
  g_test_add_func ("/cli-options/calibrate/kineto-joined", test_calibrate_kineto_joined);
  g_test_add_func ("/cli-options/compare/joined", test_compare_joined);
  g_test_add_func ("/cli-options/scenario/joined", test_scenario_joined);
  g_test_add_func ("/cli-options/scenario/errors", test_scenario_errors);
  g_test_add_func ("/cli-options/scenario/uncertainty-joined", test_uncertainty_joined);
  g_test_add_func ("/cli-options/generated-help", test_generated_help);
  return g_test_run ();
}
