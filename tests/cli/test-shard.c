/* test-shard.c: a search split into shards (search --shard I/N --out), run as separate
 * processes and merged, equals the unsharded search: the union of the shards'
 * configurations is the unsharded set, and merge prints the same JSON and CSV. A sweep
 * file's task list, run task by task, merges to each scenario's unsharded search.
 * Reference values come from the unsharded run of the same build, not from a file:
 * what is asserted is the identity of the two paths (docs/sweeps.md). */
#include <string.h>
#include <sys/wait.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "parallax/parallax.h"
#include "optimize/plx-search-shard.h"
#include "test-files.h"
#include "test-tools.h"
#include "test-cli-run.h"

#define EXAMPLE "gpt3-1f1b-full.json"

static char *
example_path (const char *name)
{
  return g_build_filename (g_getenv ("G_TEST_SRCDIR"), "..", "examples", name, NULL);
}

/* Runs parallax-cli in `cwd`; returns its exit status, stdout and stderr in *out, *err. */
static int
run_in (const char *cwd, char **out, char **err, const char *first, ...)
{
  va_list ap;
  int status;

  va_start (ap, first);
  status = run_va (cwd, NULL, out, err, first, ap);
  va_end (ap);
  return status;
}

/* The JSON text without its "elapsed_s" line: the one field that is a timing. */
static char *
without_elapsed (const char *json)
{
  g_auto (GStrv) lines = g_strsplit (json, "\n", -1);
  GString *out = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], "\"elapsed_s\"") == NULL)
      g_string_append_printf (out, "%s\n", lines[i]);
  return g_string_free (out, FALSE);
}

static char *
read_text (const char *path)
{
  g_autoptr (GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

/* The four shards' closed-form results together are the unsharded search's, one for
 * one, with every field equal, and the counts add up; a shard does not depend on the
 * thread count. top_k 0 keeps the unsharded results closed-form too. */
static void
test_union (void)
{
  g_autofree char *path = example_path (EXAMPLE);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScenario) sc = plx_scenario_new_from_file (path, &error);
  g_autoptr (PlxSearch) whole = NULL;
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (PlxSearchResult));
  PlxSearchOptions o;
  guint64 evaluated = 0, valid = 0, fit = 0, pruned_states = 0, pruned_act = 0;

  g_assert_no_error (error);
  plx_search_options_init (&o);
  o.top_k = 0;
  o.n_threads = 2;
  whole = plx_search_run (sc->model, sc->cluster, sc->strategy, &o, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (whole->results->len, >, 100);

  for (guint s = 0; s < 4; s++)
    {
      g_autoptr (PlxSearch) part = NULL;
      g_autoptr (PlxSearch) again = NULL;

      o.shard = s;
      o.n_shards = 4;
      o.n_threads = 1;
      part = plx_search_run (sc->model, sc->cluster, sc->strategy, &o, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      o.n_threads = 3;
      again = plx_search_run (sc->model, sc->cluster, sc->strategy, &o, NULL, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (part->results->len, ==, again->results->len);
      g_assert_cmpmem (part->results->data, part->results->len * sizeof (PlxSearchResult), again->results->data,
                       again->results->len * sizeof (PlxSearchResult));
      /* Each shard holds a share: none is empty, none the whole. */
      g_assert_cmpuint (part->results->len, >, 0);
      g_assert_cmpuint (part->results->len, <, whole->results->len);
      g_array_append_vals (all, part->results->data, part->results->len);
      evaluated += part->configs_evaluated;
      valid += part->configs_valid;
      fit += part->configs_fit;
      pruned_states += part->pruned_model_states;
      pruned_act += part->pruned_activations;
    }
  g_assert_cmpuint (evaluated, ==, whole->configs_evaluated);
  g_assert_cmpuint (valid, ==, whole->configs_valid);
  g_assert_cmpuint (fit, ==, whole->configs_fit);
  g_assert_cmpuint (pruned_states, ==, whole->pruned_model_states);
  g_assert_cmpuint (pruned_act, ==, whole->pruned_activations);

  /* Identity: ranked the same way (plx_search_rank with top_k 0 only sorts and marks
   * the fronts), the union is the unsharded list, field by field. */
  {
    g_autoptr (PlxSearch) merged = g_new0 (PlxSearch, 1);
    merged->results = g_steal_pointer (&all);
    o.shard = o.n_shards = 0;
    plx_search_rank (merged, sc->model, sc->cluster, &o);
    g_assert_cmpuint (merged->results->len, ==, whole->results->len);
    for (guint i = 0; i < whole->results->len; i++)
      {
        const PlxSearchResult *a = &g_array_index (whole->results, PlxSearchResult, i);
        const PlxSearchResult *b = &g_array_index (merged->results, PlxSearchResult, i);
        g_assert_cmpmem (a, sizeof *a, b, sizeof *b);
      }
  }
}

/* Four shards as four processes at once, merged: JSON (but its elapsed time), CSV and
 * the text ranking as the unsharded search prints them. */
static void
test_merge_equals_unsharded (void)
{
  g_autofree char *scenario = example_path (EXAMPLE);
  g_autofree char *dir = g_dir_make_tmp ("plx-shard-XXXXXX", NULL);
  g_autofree char *whole_json = NULL, *merged_json = NULL, *whole_text = NULL, *merged_text = NULL;
  g_autofree char *whole_csv = NULL, *merged_csv = NULL, *a = NULL, *b = NULL;
  GPid pids[4];

  g_assert_nonnull (dir);
  for (guint s = 0; s < 4; s++)
    {
      g_autofree char *shard = g_strdup_printf ("%u/4", s + 1);
      g_autofree char *out = g_strdup_printf ("part-%u.jsonl", s + 1);
      const char *argv[] = { test_cli_path (), "search", scenario, "--top", "12", "--shard", shard, "--out", out, NULL };
      g_autoptr (GError) error = NULL;
      g_spawn_async (dir, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                     &pids[s], &error);
      g_assert_no_error (error);
    }
  for (guint s = 0; s < 4; s++)
    {
      int status = 0;
      g_assert_cmpint (waitpid (pids[s], &status, 0), ==, pids[s]);
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 0);
      g_spawn_close_pid (pids[s]);
    }

  g_assert_cmpint (run_in (dir, &whole_json, NULL, "search", scenario, "--top", "12", "--json", "--csv", "whole.csv", NULL),
                   ==, 0);
  g_assert_cmpint (run_in (dir, &merged_json, NULL, "merge", "part-3.jsonl", "part-1.jsonl", "part-4.jsonl", "part-2.jsonl",
                        "--json", "--csv", "merged.csv", NULL), ==, 0);
  a = without_elapsed (whole_json);
  b = without_elapsed (merged_json);
  g_assert_cmpstr (a, ==, b);
  g_assert_nonnull (strstr (a, "\"engine\" : \"event\""));
  {
    g_autofree char *w = g_build_filename (dir, "whole.csv", NULL);
    g_autofree char *m = g_build_filename (dir, "merged.csv", NULL);
    whole_csv = read_text (w);
    merged_csv = read_text (m);
  }
  g_assert_cmpstr (whole_csv, ==, merged_csv);

  /* The text, but the line with the time and threads. */
  g_assert_cmpint (run_in (dir, &whole_text, NULL, "search", scenario, "--top", "12", NULL), ==, 0);
  g_assert_cmpint (run_in (dir, &merged_text, NULL, "merge", "part-1.jsonl", "part-2.jsonl", "part-3.jsonl",
                        "part-4.jsonl", NULL), ==, 0);
  g_assert_cmpstr (strstr (whole_text, "\n\nrank"), ==, strstr (merged_text, "\n\nrank"));
  g_assert_nonnull (strstr (whole_text, "\n\nrank"));
  test_rm_rf (dir);
}

/* Parts that do not make one search: missing, twice, another search's, cut short.
 * Exit 1, one line naming the file. */
static void
test_merge_errors (void)
{
  g_autofree char *scenario = example_path (EXAMPLE);
  g_autofree char *dir = g_dir_make_tmp ("plx-shard-XXXXXX", NULL);
  g_autofree char *cut = NULL, *text = NULL;

  for (guint s = 1; s <= 2; s++)
    {
      g_autofree char *shard = g_strdup_printf ("%u/2", s);
      g_autofree char *out = g_strdup_printf ("part-%u.jsonl", s);
      g_assert_cmpint (run_in (dir, NULL, NULL, "search", scenario, "--shard", shard, "--out", out, NULL), ==, 0);
    }
  g_assert_cmpint (run_in (dir, NULL, NULL, "search", scenario, "--global-batch-size", "128", "--shard", "2/2", "--out", "other.jsonl",
                        NULL), ==, 0);

  {
    g_autofree char *err = NULL;
    g_assert_cmpint (run_in (dir, NULL, &err, "merge", "part-1.jsonl", NULL), ==, 1);
    g_assert_nonnull (strstr (err, "shard 2/2 is missing"));
  }
  {
    g_autofree char *err = NULL;
    g_assert_cmpint (run_in (dir, NULL, &err, "merge", "part-1.jsonl", "part-2.jsonl", "part-2.jsonl", NULL), ==, 1);
    g_assert_nonnull (strstr (err, "part-2.jsonl: shard 2/2 again"));
  }
  {
    g_autofree char *err = NULL;
    g_assert_cmpint (run_in (dir, NULL, &err, "merge", "part-1.jsonl", "other.jsonl", NULL), ==, 1);
    g_assert_nonnull (strstr (err, "other.jsonl: not a part of the same search as part-1.jsonl (its \"context\""));
  }
  {
    /* A part without its footer: the shard did not finish. */
    g_autofree char *err = NULL;
    g_autofree char *path = g_build_filename (dir, "part-2.jsonl", NULL);
    g_autofree char *cut_path = g_build_filename (dir, "cut.jsonl", NULL);
    char *last;
    text = read_text (path);
    last = strrchr (g_strchomp (text), '\n');
    cut = g_strndup (text, last - text + 1);
    g_assert_true (g_file_set_contents (cut_path, cut, -1, NULL));
    g_assert_cmpint (run_in (dir, NULL, &err, "merge", "part-1.jsonl", "cut.jsonl", NULL), ==, 1);
    g_assert_nonnull (strstr (err, "cut.jsonl: no footer line"));
  }
  {
    g_autofree char *err = NULL;
    g_assert_cmpint (run_in (dir, NULL, &err, "search", "--shard", "3/2", "--out", "x.jsonl", NULL), ==, 2);
    g_assert_nonnull (strstr (err, "--shard: \"3/2\" is not I/N"));
  }
  test_rm_rf (dir);
}

/* The example sweep (2 models x 1 cluster x 1 GPU count x 2 batch sizes) in 2 shards
 * each: its 8 tasks run one by one as a Slurm array would, merged, equal each
 * scenario's unsharded search. */
static void
test_sweep (void)
{
  g_autofree char *sweep = example_path ("slurm/sweep.json");
  g_autofree char *dir = g_dir_make_tmp ("plx-sweep-XXXXXX", NULL);
  g_autofree char *tasks = g_build_filename (dir, "tasks.txt", NULL);
  g_autofree char *merges_text = NULL;
  g_auto (GStrv) merges = NULL;

  g_assert_cmpint (run_in (NULL, NULL, NULL, "sweep", "expand", sweep, "--shards", "2", "--dir", dir, NULL), ==, 0);
  for (guint i = 0; i < 8; i++)
    {
      g_autofree char *index = g_strdup_printf ("%u", i);
      g_assert_cmpint (run_in (NULL, NULL, NULL, "sweep", "run-task", tasks, index, NULL), ==, 0);
    }
  {
    g_autofree char *err = NULL;
    g_assert_cmpint (run_in (NULL, NULL, &err, "sweep", "run-task", tasks, "8", NULL), ==, 2);
    g_assert_nonnull (strstr (err, "is not a task of"));
  }
  g_assert_cmpint (run_in (NULL, NULL, NULL, "sweep", "merge", dir, NULL), ==, 0);

  {
    g_autofree char *path = g_build_filename (dir, "merges.txt", NULL);
    merges_text = read_text (path);
  }
  merges = g_strsplit (g_strchomp (merges_text), "\n", -1);
  g_assert_cmpuint (g_strv_length (merges), ==, 4);
  for (guint i = 0; merges[i] != NULL; i++)
    {
      g_autofree char *name = g_strndup (merges[i] + strlen ("results/"), strcspn (merges[i], "\t") - strlen ("results/"));
      g_autofree char *scenario = g_strdup_printf ("scenarios/%s.json", name);
      g_autofree char *csv = g_strdup_printf ("%s.csv", name);
      g_autofree char *json = g_strdup_printf ("%s.json", name);
      g_autofree char *merged_json_path = g_build_filename (dir, "results", json, NULL);
      g_autofree char *whole_csv_path = g_build_filename (dir, csv, NULL);
      g_autofree char *merged_csv_path = g_build_filename (dir, "results", csv, NULL);
      g_autofree char *whole_json = NULL, *merged_json = NULL, *whole_csv = NULL, *merged_csv = NULL, *a = NULL,
                      *b = NULL;

      g_assert_cmpint (run_in (dir, &whole_json, NULL, "search", scenario, "--top", "5", "--json", "--csv", csv, NULL), ==,
                       0);
      merged_json = read_text (merged_json_path);
      a = without_elapsed (whole_json);
      b = without_elapsed (merged_json);
      g_assert_cmpstr (a, ==, b);
      whole_csv = read_text (whole_csv_path);
      merged_csv = read_text (merged_csv_path);
      g_assert_cmpstr (whole_csv, ==, merged_csv);
    }
  test_rm_rf (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/shard/union", test_union);
  g_test_add_func ("/shard/merge-equals-unsharded", test_merge_equals_unsharded);
  g_test_add_func ("/shard/merge-errors", test_merge_errors);
  g_test_add_func ("/shard/sweep", test_sweep);
  return g_test_run ();
}
