/* test-cli-files.c: the files parallax-cli reads and writes (issue 34, "Files, paths
 * and outputs"; docs/formats.md "Output files"): part files and merge lists read
 * safely, outputs that never replace what is not a regular file, every write
 * checked, JSON that reads back, nothing a terminal would obey echoed, and the
 * bounds on work refused at the command line. Each case
 * failed on the code before it (see the commit messages). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "test-files.h"
#include "test-tools.h"
#include "test-cli-run.h"

static char *
source_path (const char *first, ...)
{
  va_list ap;
  g_autoptr (GPtrArray) parts = g_ptr_array_new ();

  g_ptr_array_add (parts, (gpointer) g_getenv ("G_TEST_SRCDIR"));
  g_ptr_array_add (parts, (gpointer) "..");
  va_start (ap, first);
  for (const char *p = first; p != NULL; p = va_arg (ap, const char *))
    g_ptr_array_add (parts, (gpointer) p);
  va_end (ap);
  g_ptr_array_add (parts, NULL);
  return g_build_filenamev ((char **) parts->pdata);
}

static void
assert_error (const CliRun *r, int status, const char *needle)
{
  g_assert_cmpint (r->status, ==, status);
  if (strstr (r->err, needle) == NULL)
    g_test_message ("\"%s\" not on stderr", needle);
  g_assert_nonnull (strstr (r->err, needle));
  /* Exactly one line, as scripts read it. */
  g_assert_true (g_str_has_suffix (r->err, "\n"));
  g_assert_true (strchr (r->err, '\n') == r->err + strlen (r->err) - 1);
}

static char *
read_text (const char *path)
{
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* A search part of 1,961 results (gpt3-1f1b-full, one shard). */
static char *
make_part (const char *dir)
{
  g_autofree char *scenario = source_path ("examples", "gpt3-1f1b-full.json", NULL);
  g_auto (CliRun) r = { 0 };

  RUN_CLI_IN (&r, dir, "search", scenario, "--shard", "1/1", "--out", "part.jsonl");
  g_assert_cmpint (r.status, ==, 0);
  return g_build_filename (dir, "part.jsonl", NULL);
}

/* A part line of 100,000 nested brackets overflowed json-glib's recursion (merge died
 * of SIGSEGV): the loaders' nesting limit, 256, applies to part lines too. */
static void
test_part_deep_line (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-files");
  g_autofree char *deep = g_strnfill (100000, '[');
  g_autofree char *text = g_strconcat (deep, "\n", NULL);
  g_auto (CliRun) r = { 0 };

  g_free (test_write_file (dir, "deep.jsonl", text, -1));
  RUN_CLI_IN (&r, dir, "merge", "deep.jsonl");
  assert_error (&r, 1, "deep.jsonl:1: nested more than 256 levels deep");
  test_rm_rf (dir);
}

/* Blank lines (an editor's, a concatenation's) carry nothing: the part with blank
 * lines after its header and at its end merges to the same ranking. Before, each
 * raised a Json-CRITICAL (fatal under the tests' G_DEBUG). */
static void
test_part_blank_lines (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-files");
  g_autofree char *part = make_part (dir);
  g_autofree char *text = read_text (part);
  /* The header line with its newline (an index: GCC 12 at -O3 took a pointer into
   * the g_autofree text for a dangling one). */
  gsize head_len = strcspn (text, "\n") + 1;
  g_autofree char *head = g_strndup (text, head_len);
  g_autofree char *spaced = g_strconcat (head, "\n   \n", text + head_len, "\n\n", NULL);
  g_auto (CliRun) a = { 0 };
  g_auto (CliRun) b = { 0 };

  g_assert_cmpint (text[head_len - 1], ==, '\n');
  g_free (test_write_file (dir, "spaced.jsonl", spaced, -1));
  RUN_CLI_IN (&a, dir, "merge", "part.jsonl");
  RUN_CLI_IN (&b, dir, "merge", "spaced.jsonl");
  g_assert_cmpint (a.status, ==, 0);
  g_assert_cmpint (b.status, ==, 0);
  g_assert_cmpstr (b.err, ==, "");
  /* The ranking below the first line (which carries the merge's own time). */
  g_assert_nonnull (strstr (a.out, "\n\nrank"));
  g_assert_cmpstr (strstr (a.out, "\n\nrank"), ==, strstr (b.out, "\n\nrank"));
  test_rm_rf (dir);
}

/* A part or a merge list that is a FIFO (or /dev/zero) was read forever: they are read
 * as the JSON loaders read, regular files of at most 64 MiB. `timeout` bounds the
 * run that hung. */
static void
test_part_fifo (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-files");
  g_autofree char *fifo = g_build_filename (dir, "part.jsonl", NULL);
  g_autofree char *list = g_build_filename (dir, "merges.txt", NULL);
  g_auto (CliRun) part = { 0 };
  g_auto (CliRun) sweep = { 0 };
  const char *const merge_args[] = { "timeout", "20", test_cli_path (), "merge", "part.jsonl", NULL };
  const char *const sweep_args[] = { "timeout", "20", test_cli_path (), "sweep", "merge", dir, NULL };

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (mkfifo (list, 0600), ==, 0);
  cli_run (&part, dir, NULL, merge_args);
  assert_error (&part, 1, "part.jsonl: is not a regular file (a device, pipe or socket)");
  cli_run (&sweep, dir, NULL, sweep_args);
  assert_error (&sweep, 1, "merges.txt: is not a regular file (a device, pipe or socket)");
  test_rm_rf (dir);
}

/* A merge list names what sweep merge writes: a name shorter than "results/" was read
 * past its end, and results/../../x wrote outside the sweep folder. Both refused,
 * naming the line, before anything runs. */
static void
test_sweep_merge_names (void)
{
  static const struct { const char *line; const char *needle; } cases[] = {
    { "x\tparts/a.jsonl\n", "merges.txt:1: \"x\" is not results/NAME" },
    { "results/../../x\tparts/a.jsonl\n", "merges.txt:1: \"results/../../x\" is not results/NAME" },
    { "results/ok\tparts/../../etc/passwd\n", "\"parts/../../etc/passwd\" is not parts/NAME" },
    { "results/\tparts/a.jsonl\n", "\"results/\" is not results/NAME" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *dir = test_make_tmp_dir ("plx-files");
      g_autofree char *parent = g_path_get_dirname (dir);
      g_autofree char *outside = g_build_filename (parent, "x.json", NULL);
      g_auto (CliRun) r = { 0 };

      g_free (test_write_file (dir, "merges.txt", cases[i].line, -1));
      g_unlink (outside);
      RUN_CLI_IN (&r, NULL, "sweep", "merge", dir);
      assert_error (&r, 1, cases[i].needle);
      g_assert_false (g_file_test (outside, G_FILE_TEST_EXISTS));
      test_rm_rf (dir);
    }
}

/* --trace through a symbolic link writes the link's target; the link stays a link
 * (it was replaced by a regular file). A link to nothing is refused. */
static void
test_output_symlink (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-files");
  g_autofree char *target = test_write_file (dir, "real.json", "old", -1);
  g_autofree char *link = g_build_filename (dir, "link.json", NULL);
  g_autofree char *dangling = g_build_filename (dir, "dangling.json", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.json", NULL);
  g_autofree char *text = NULL;
  GStatBuf st;
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) d = { 0 };

  g_assert_cmpint (symlink ("real.json", link), ==, 0);
  g_assert_cmpint (symlink ("missing.json", dangling), ==, 0);
  RUN_CLI_IN (&r, dir, "simulate", "--trace", "link.json");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (g_lstat (link, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  text = read_text (target);
  g_assert_true (g_str_has_prefix (text, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": ["));

  RUN_CLI_IN (&d, dir, "simulate", "--trace", "dangling.json");
  assert_error (&d, 1, "dangling.json: cannot write: a symbolic link to a file that does not exist");
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
  g_assert_cmpint (g_lstat (dangling, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  test_rm_rf (dir);
}

typedef struct
{
  char    *path;
  GString *read;
} FifoReader;

static gpointer
read_fifo (gpointer data)
{
  FifoReader *fr = data;
  int fd = g_open (fr->path, O_RDONLY, 0);
  char buf[65536];
  gssize n;

  g_assert_cmpint (fd, >=, 0);
  while ((n = read (fd, buf, sizeof buf)) > 0)
    g_string_append_len (fr->read, buf, n);
  close (fd);
  return NULL;
}

/* A named pipe as --trace is written through (it was replaced by a regular file, as
 * /dev/full was as root): the reader gets the whole trace, the FIFO stays a FIFO. */
static void
test_output_fifo (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-files");
  g_autofree char *fifo = g_build_filename (dir, "trace.fifo", NULL);
  g_autofree char *alias = g_build_filename (dir, "alias.fifo", NULL);
  FifoReader fr = { NULL, g_string_new (NULL) };
  GThread *reader;
  GStatBuf st;
  g_auto (CliRun) r = { 0 };

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  /* The reader opens the FIFO by a second name, so that it can be released below
   * even if the first name was replaced. */
  g_assert_cmpint (link (fifo, alias), ==, 0);
  fr.path = alias;
  reader = g_thread_new ("fifo", read_fifo, &fr);
  RUN_CLI_IN (&r, dir, "simulate", "--trace", "trace.fifo");
  {
    int release = g_open (alias, O_WRONLY | O_NONBLOCK, 0);
    if (release >= 0)
      close (release);
  }
  g_thread_join (reader);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (g_lstat (fifo, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));
  g_assert_true (g_str_has_prefix (fr.read->str, "{\"displayTimeUnit\": \"ms\", \"traceEvents\": ["));
  g_assert_true (g_str_has_suffix (fr.read->str, "\n]}\n"));
  g_string_free (fr.read, TRUE);
  test_rm_rf (dir);
}

/* Standard output on a full disk: the JSON is lost, so the command fails and says so
 * (it exited 0 with nothing written). */
static void
test_stdout_full (void)
{
  g_auto (CliRun) r = { 0 };
  const char *const args[] = { "sh", "-c", "exec \"$0\" simulate --json > /dev/full", test_cli_path (), NULL };

  cli_run (&r, NULL, NULL, args);
  assert_error (&r, 1, "parallax-cli: writing to standard output: No space left on device");
}

/* SIGTERM while a large trace is being written removes its temporary file (a 102 MB
 * hidden file stayed): the folder is empty after the process dies of the signal. */
static void
test_signal_removes_temporary (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-files");
  g_autoptr (GError) error = NULL;
  const char *argv[] = { test_cli_path (), "simulate", "--global-batch-size", "256", "--trace", "trace.json", NULL };
  GPid pid;
  gboolean seen = FALSE;
  int wait_status = 0;

  g_assert_true (g_spawn_async (dir, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL,
                                NULL, NULL, &pid, &error));
  g_assert_no_error (error);
  /* The temporary file (hidden, beside the trace) appears once simulation is done. */
  for (guint i = 0; i < 60000 && !seen; i++)
    {
      g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
      const char *name;
      while (d != NULL && (name = g_dir_read_name (d)) != NULL)
        if (name[0] == '.')
          seen = TRUE;
      if (!seen)
        {
          if (waitpid (pid, &wait_status, WNOHANG) == pid)
            break;
          g_usleep (1000);
        }
    }
  if (!seen)
    {
      g_test_skip ("the trace was written before its temporary file was seen");
      test_rm_rf (dir);
      return;
    }
  kill (pid, SIGTERM);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  g_spawn_close_pid (pid);
  g_assert_true (WIFSIGNALED (wait_status));
  g_assert_cmpint (WTERMSIG (wait_status), ==, SIGTERM);
  {
    g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
    const char *left = g_dir_read_name (d);
    g_assert_cmpstr (left, ==, NULL);
  }
  test_rm_rf (dir);
}

/* A cluster whose matmul curve reaches 1e17 FLOPs, recalibrated with a bandwidth sweep
 * and written out: json-glib wrote `1e+17.0`, which no JSON reader accepts. The file
 * now says 1e+17 and reads back. */
static void
test_json_round_double (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-files");
  g_autofree char *preset = source_path ("resources", "presets", "clusters", "dgx-a100-40gb.json", NULL);
  g_autofree char *sweep = source_path ("tests", "data", "sweeps", "a100-40gb-stream.csv", NULL);
  g_autofree char *text = read_text (preset);
  g_autofree char *out_path = g_build_filename (dir, "out.json", NULL);
  g_autofree char *written = NULL;
  g_auto (GStrv) halves = g_strsplit (text, "[1e13, 0.81]", 2);
  g_autofree char *big = NULL;
  g_autofree char *big_path = NULL;
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) back = { 0 };

  g_assert_cmpuint (g_strv_length (halves), ==, 2);
  big = g_strconcat (halves[0], "[1e13, 0.81], [1e17, 0.82]", halves[1], NULL);
  big_path = test_write_file (dir, "big.json", big, -1);
  RUN_CLI_IN (&r, dir, "calibrate", "--membw", sweep, "--cluster", "big.json", "--out", "out.json");
  g_assert_cmpint (r.status, ==, 0);
  written = read_text (out_path);
  g_assert_nonnull (strstr (written, "1e+17,"));
  g_assert_null (strstr (written, "e+17.0"));
  RUN_CLI_IN (&back, dir, "simulate", "--cluster", "out.json", "--json");
  g_assert_cmpint (back.status, ==, 0);
  test_rm_rf (dir);
}

/* nccl-tests prints N/A where a column was not measured. An out-of-place busbw of N/A
 * beside its time reached the fit as NaN: "nan" in the table, `nan.0` in the cluster
 * file. That side is now unused: the row is fitted from its in-place side. */
static void
test_nccl_na_column (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-files");
  g_autofree char *source = source_path ("tests", "data", "nccl-tests", "h100-1x8-nvlink-five-ops.txt", NULL);
  g_autofree char *text = read_text (source);
  /* The first all_reduce row, 32 MiB: out-of-place 182.87 us, 183.49 GB/s algbw,
   * 321.10 GB/s busbw; its busbw made N/A. */
  g_auto (GStrv) halves = g_strsplit (text, "182.87  183.49  321.10", 2);
  g_autofree char *na = NULL;
  g_autofree char *na_path = NULL;
  g_autofree char *written = NULL;
  g_autofree char *out_path = g_build_filename (dir, "out.json", NULL);
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) back = { 0 };

  g_assert_cmpuint (g_strv_length (halves), ==, 2);
  na = g_strconcat (halves[0], "182.87  183.49     N/A", halves[1], NULL);
  na_path = test_write_file (dir, "na.txt", na, -1);
  RUN_CLI_IN (&r, dir, "calibrate", "--nccl-tests", "na.txt", "--cluster", "dgx-h100-80gb", "--gpus-per-node", "8",
          "--nodes", "1", "--out", "out.json");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "nan"));
  written = read_text (out_path);
  g_assert_null (strstr (written, "nan"));
  RUN_CLI_IN (&back, dir, "simulate", "--cluster", "out.json", "--json");
  g_assert_cmpint (back.status, ==, 0);
  test_rm_rf (dir);
}

/* An array of 2^64 elements: its byte count wrapped to INT64_MIN in the JSON. Past
 * 2^53 bytes (8 PiB) a shape is refused: 2^32 x 2^32 elements x 2 bytes = 2^65. */
static void
test_reshard_huge_shape (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI_IN (&r, NULL, "reshard", "--shape", "4294967296x4294967296", "--mesh", "8", "--from", "[x,-]", "--to", "[-,x]",
          "--json");
  assert_error (&r, 2, "--shape: \"4294967296x4294967296\" of bf16 is 3.69e+19 bytes, more than 2^53 (8 PiB)");
  g_assert_cmpstr (r.out, ==, "");
}

/* Escape sequences in a command-line value and in an output name are shown, not
 * obeyed: ESC (0x1b) never reaches the terminal. */
static void
test_terminal_escapes (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-files");
  g_auto (CliRun) usage = { 0 };
  g_auto (CliRun) wrote = { 0 };
  g_auto (CliRun) trace = { 0 };

  RUN_CLI_IN (&usage, dir, "simulate", "--engine", "\033[2J");
  assert_error (&usage, 2, "--engine: \"\\u001b[2J\"");
  g_assert_null (strchr (usage.err, '\033'));

  RUN_CLI_IN (&wrote, dir, "simulate", "--timeline", "t\033[2J.svg");
  g_assert_cmpint (wrote.status, ==, 0);
  g_assert_nonnull (strstr (wrote.out, "Timeline chart    t\\u001b[2J.svg\n"));
  g_assert_null (strchr (wrote.out, '\033'));
  /* The trace's line (and calibrate's and merge's "Wrote"/"written to") likewise. */
  RUN_CLI_IN (&trace, dir, "simulate", "--trace", "t\033[2J.json");
  g_assert_cmpint (trace.status, ==, 0);
  g_assert_nonnull (strstr (trace.out, "Trace             t\\u001b[2J.json "));
  g_assert_null (strchr (trace.out, '\033'));
  test_rm_rf (dir);
}

/* "\u0000" inside a JSON string: json-glib's C string ended there, and what followed
 * (here an escape sequence) passed every check unseen. Refused with its byte offset. */
static void
test_json_nul_escape (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-files");
  g_auto (CliRun) r = { 0 };

  g_free (test_write_file (dir, "nul.json", "{\"name\": \"ok\\u0000\\u001b[2J\", \"model\": {\"preset\": "
                                            "\"gpt2\"}, \"cluster\": {\"preset\": \"dgx-a100-80gb\"}}", -1));
  RUN_CLI_IN (&r, dir, "simulate", "nul.json");
  /* The backslash of \u0000 is byte 12: {"name": "ok is 12 bytes (0-11). */
  assert_error (&r, 1, "nul.json: a string holds \\u0000 (NUL), which no name or value may contain (byte 12)");
  test_rm_rf (dir);
}

/* A file named as hf_config that is not JSON at all (here shaped like /etc/shadow):
 * the error says where it stopped, and quotes none of it (it printed `root'). */
static void
test_hf_config_not_json (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-files");
  g_auto (CliRun) r = { 0 };

  g_free (test_write_file (dir, "shadow", "rootsecret:$6$salt$hash:19000:0:99999:7:::\n", -1));
  g_free (test_write_file (dir, "s.json",
                           "{\"model\": {\"hf_config\": \"shadow\"}, \"cluster\": {\"preset\": \"dgx-a100-80gb\"}}", -1));
  RUN_CLI_IN (&r, dir, "simulate", "s.json");
  assert_error (&r, 1, "shadow: not valid JSON at line 1, column");
  g_assert_null (strstr (r.err, "rootsecret"));
  g_assert_null (strstr (r.err, "salt"));
  test_rm_rf (dir);
}

/* ---- Bounds on work (docs/formats.md "Limits and refusals"): each refusal at the
 * command line, with its key, its value and the limit, in a fraction of a second. */

/* gpt2 (12 layers) at TP 4 x PP 2 on one 8-GPU node: DP 1, so the global batch is
 * the number of micro-batches. */
#define GPT2_PP2 "--model", "gpt2", "--nodes", "1", "--tp", "4", "--pp", "2", "--schedule", "1f1b", \
                 "--virtual-stages", "1"

/* The IR engine's 1,000,000 ops. `plan` lists a micro-batch's tasks per stage: 26
 * forward and 31 backward on stage 0, 26 and 32 on stage 1, 115; with a begin, an end
 * and a send for each of the 4 passes, 127 ops a micro-batch; 8000 micro-batches are
 * 127 x 8000 = 1,016,000 ops, and once a step 6 a stage and a bucket per backward
 * task and chunk, 12 + 32 + 33 = 77: 1,016,077, past the limit (7870 micro-batches
 * would be 999,567). */
static void
test_ir_engine_limit (void)
{
  g_auto (CliRun) r = { 0 };

  RUN_CLI_IN (&r, NULL, "simulate", GPT2_PP2, "--global-batch-size", "8000", "--engine", "ir");
  assert_error (&r, 1, "parallax-cli: strategy: 8000 micro-batches x 2 stages x 1 chunks is 1.02 million ops, "
                       "more than the IR engine's 1 million ops; use the event engine");
}

/* `plan --json` prints at most 200,000 ops, counted from the plan: 1600
 * micro-batches are past them. Its refusal names what a plan user can change;
 * it said "use the event engine" (meaningless to `plan`) past the IR engine's limit,
 * and took 4 s and 760 MB to build the program it then refused. */
static void
test_plan_json_limit (void)
{
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) far = { 0 };
  g_auto (CliRun) text = { 0 };

  RUN_CLI_IN (&r, NULL, "plan", GPT2_PP2, "--global-batch-size", "1600", "--json");
  /* 127 x 1600 + 77 = 203,277, counted as the IR engine counts (above). */
  assert_error (&r, 1, "parallax-cli: plan --json: strategy: 1600 micro-batches x 2 stages x 1 chunks come to about "
                       "203277 ops, more than the 200000 a printed program holds; use fewer micro-batches or stages, "
                       "or plan without --json");
  g_assert_cmpstr (r.out, ==, "");
  /* Past the IR engine's limit too: the same words, no engine named. */
  RUN_CLI_IN (&far, NULL, "plan", GPT2_PP2, "--global-batch-size", "8000", "--json");
  assert_error (&far, 1, "plan --json: strategy: 8000 micro-batches x 2 stages x 1 chunks come to about ");
  g_assert_nonnull (strstr (far.err, "use fewer micro-batches or stages, or plan without --json"));
  g_assert_null (strstr (far.err, "engine"));
  /* What the message offers works: the plan as text. */
  RUN_CLI_IN (&text, NULL, "plan", GPT2_PP2, "--global-batch-size", "8000");
  g_assert_cmpint (text.status, ==, 0);
  g_assert_nonnull (strstr (text.out, "8000 micro-batches per step"));
}

/* A trace holds 2,000,000 events. 125,000 micro-batches on 2 stages: the timeline
 * keeps its 1,000,000 events; a (micro-batch, stage) makes 4 memory samples (F
 * allocates, B re-creates one layer's attention core and frees it, B frees the rest),
 * 8 x 125,000 = 1,000,000, and each stage's static bytes 1: 1,000,002; six track
 * names a stage, 12. 2,000,014 events: refused, and no file (not even a temporary
 * one) is left. */
static void
test_trace_limit (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-files");
  g_auto (CliRun) r = { 0 };
  g_autoptr (GDir) listing = NULL;

  RUN_CLI_IN (&r, dir, "simulate", GPT2_PP2, "--global-batch-size", "125000", "--trace", "t.json");
  assert_error (&r, 1, "parallax-cli: t.json: 1000000 timeline events, 1000002 memory samples and 12 track names "
                       "of 2 stages are more than a trace's 2 million events; simulate fewer micro-batches or stages");
  listing = g_dir_open (dir, 0, NULL);
  g_assert_cmpstr (g_dir_read_name (listing), ==, NULL);
  test_rm_rf (dir);
}

/* Starts the search of a 20,000-layer model on 20,000 GPUs at PP 20,000 in `dir`
 * (TMPDIR dir/tmp, stdout to dir/out, stderr to dir/err) and returns once the best
 * are being re-simulated ("search: re-simulating the best"), each in about 0.3 s at
 * a global batch of 256 (1.6 s under the sanitizers). Waiting for "search: 100 %"
 * was not enough: a SIGINT between it and the re-simulation ends the search at once. */
static GPid
spawn_deep_search (const char *dir, const char *global_batch, const char *err_path)
{
  g_autofree char *tmp = g_build_filename (dir, "tmp", NULL);
  g_autofree char *model = g_build_filename (dir, "deep.json", NULL);
  g_autofree char *command = g_strdup_printf ("exec \"$0\" search --model deep.json --nodes 2500 --seq-length 128 "
                                              "--global-batch-size %s --fix pp=20000,tp=1,cp=1 --threads 1 "
                                              "--progress --csv - > out 2> err", global_batch);
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "TMPDIR", tmp, TRUE);
  g_autoptr (GError) error = NULL;
  const char *argv[] = { "sh", "-c", command, test_cli_path (), NULL };
  gboolean started = FALSE;
  GPid pid;

  g_assert_cmpint (g_mkdir (tmp, 0700), ==, 0);
  g_assert_true (g_file_set_contents (model, "{ \"model_type\": \"gpt2\", \"n_layer\": 20000, \"n_embd\": 64, "
                                             "\"n_head\": 1, \"vocab_size\": 1000, \"n_positions\": 128 }", -1, NULL));
  g_assert_true (g_spawn_async (dir, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH, NULL, NULL,
                                &pid, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < 30000 && !started; i++)
    {
      g_autofree char *text = NULL;
      started = g_file_get_contents (err_path, &text, NULL, NULL) &&
                strstr (text, "search: re-simulating the best with the event engine, ") != NULL;
      if (!started)
        g_usleep (1000);
    }
  g_assert_true (started);
  return pid;
}

/* A second Ctrl+C ends a search at once (_exit): with `--csv -` it left the private
 * folder the CSV waits in (TMPDIR/parallax-stdout-XXXXXX). Both land while the
 * first of the best is re-simulated. */
static void
test_second_ctrl_c_cleans (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-files");
  g_autofree char *tmp = g_build_filename (dir, "tmp", NULL);
  g_autofree char *err_path = g_build_filename (dir, "err", NULL);
  g_autofree char *err = NULL;
  int wait_status = 0;
  gboolean seen = FALSE;
  /* At a global batch of 1,024 a run takes four times as long as at 256: the second
   * SIGINT has seconds to land in (the test ends with it). */
  GPid pid = spawn_deep_search (dir, "1024", err_path);

  kill (pid, SIGINT);
  /* The second only once the first was taken: two SIGINTs that arrive before GLib's
   * signal source dispatches are one (under load, 0.1 s apart was not enough). */
  for (guint i = 0; i < 30000 && !seen; i++)
    {
      g_autofree char *text = NULL;
      seen = g_file_get_contents (err_path, &text, NULL, NULL) && strstr (text, "(Ctrl+C again to stop at once)\n");
      if (!seen)
        g_usleep (1000);
    }
  g_assert_true (seen);
  kill (pid, SIGINT);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  g_spawn_close_pid (pid);
  err = read_text (err_path);
  g_test_message ("stderr: %s", err);
  g_assert_true (WIFEXITED (wait_status));
  g_assert_cmpint (WEXITSTATUS (wait_status), ==, 130);
  g_assert_nonnull (strstr (err, "parallax-cli: interrupted\n"));
  {
    g_autoptr (GDir) d = g_dir_open (tmp, 0, NULL);
    g_assert_cmpstr (g_dir_read_name (d), ==, NULL);
  }
  test_rm_rf (dir);
}

/* One Ctrl+C while the best are re-simulated (after "search: 100 %") was ignored:
 * the search ended with exit 0 and its CSV written. It stops the search as one during
 * the screening does: exit 130, nothing on stdout. The model of the case above at a
 * global batch of 64: about 2 s of re-simulation. */
static void
test_ctrl_c_while_resimulating (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-files");
  g_autofree char *err_path = g_build_filename (dir, "err", NULL);
  g_autofree char *out_path = g_build_filename (dir, "out", NULL);
  g_autofree char *err = NULL;
  g_autofree char *out = NULL;
  int wait_status = 0;
  GPid pid = spawn_deep_search (dir, "64", err_path);

  kill (pid, SIGINT);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  g_spawn_close_pid (pid);
  err = read_text (err_path);
  out = read_text (out_path);
  g_assert_true (WIFEXITED (wait_status));
  g_assert_cmpint (WEXITSTATUS (wait_status), ==, 130);
  g_assert_nonnull (strstr (err, "parallax-cli: search: interrupted (Ctrl+C); no results written\n"));
  g_assert_cmpstr (out, ==, "");
  {
    g_autofree char *tmp = g_build_filename (dir, "tmp", NULL);
    g_autoptr (GDir) d = g_dir_open (tmp, 0, NULL);
    g_assert_cmpstr (g_dir_read_name (d), ==, NULL);
  }
  test_rm_rf (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli-files/part/deep-line", test_part_deep_line);
  g_test_add_func ("/cli-files/part/blank-lines", test_part_blank_lines);
  g_test_add_func ("/cli-files/part/fifo", test_part_fifo);
  g_test_add_func ("/cli-files/sweep/merge-names", test_sweep_merge_names);
  g_test_add_func ("/cli-files/output/symlink", test_output_symlink);
  g_test_add_func ("/cli-files/output/fifo", test_output_fifo);
  g_test_add_func ("/cli-files/output/stdout-full", test_stdout_full);
  g_test_add_func ("/cli-files/output/signal", test_signal_removes_temporary);
  g_test_add_func ("/cli-files/json/round-double", test_json_round_double);
  g_test_add_func ("/cli-files/json/nccl-na", test_nccl_na_column);
  g_test_add_func ("/cli-files/json/nul-escape", test_json_nul_escape);
  g_test_add_func ("/cli-files/reshard/huge-shape", test_reshard_huge_shape);
  g_test_add_func ("/cli-files/terminal-escapes", test_terminal_escapes);
  g_test_add_func ("/cli-files/hf-config-not-json", test_hf_config_not_json);
  g_test_add_func ("/cli-files/limits/ir-engine", test_ir_engine_limit);
  g_test_add_func ("/cli-files/limits/plan-json", test_plan_json_limit);
  g_test_add_func ("/cli-files/limits/trace", test_trace_limit);
  g_test_add_func ("/cli-files/search/second-ctrl-c", test_second_ctrl_c_cleans);
  g_test_add_func ("/cli-files/search/ctrl-c-resimulating", test_ctrl_c_while_resimulating);
  return g_test_run ();
}
