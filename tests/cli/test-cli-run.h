/* test-cli-run.h: running parallax-cli (the path in PLX_CLI, set by meson), or another
 * program, from a test with its output captured. The one way the CLI tests start a
 * process and wait for it; each test file's own spelling (RUN_CLI, run, run_argv...)
 * is a few lines over cli_run. */
#pragma once

#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>

#include <gio/gio.h>

#include "test-tools.h"

typedef struct
{
  char    *out;
  char    *err;
  int      status;     /* the exit status, or 128 + the signal that killed it */
  gboolean signalled;  /* killed by a signal */
} CliRun;

static inline void
cli_run_clear (CliRun *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CliRun, cli_run_clear)

/* Runs argv (NULL-terminated; argv[0] NULL: parallax-cli, else a program looked up
 * in PATH) in `cwd` (NULL: the test's own) with `input` on standard input (NULL:
 * none). stdout and stderr are captured whole (never NULL), and the child's lines stay
 * out of the TAP stream. */
static inline void
cli_run (CliRun            *r,
         const char        *cwd,
         const char        *input,
         const char *const *argv)
{
  g_autoptr (GPtrArray) full = g_ptr_array_new ();
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *cmdline = NULL;
  int wait_status;

  g_ptr_array_add (full, (gpointer) (argv[0] != NULL ? argv[0] : test_cli_path ()));
  for (guint i = 1; argv[i] != NULL; i++)
    g_ptr_array_add (full, (gpointer) argv[i]);
  g_ptr_array_add (full, NULL);
  cmdline = g_strjoinv (" ", (char **) full->pdata);
  g_test_message ("running: %.300s", cmdline);

  memset (r, 0, sizeof *r);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  if (cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, cwd);
  proc = g_subprocess_launcher_spawnv (launcher, (const char *const *) full->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, input, NULL, &r->out, &r->err, &error);
  g_assert_no_error (error);
  if (r->out == NULL)
    r->out = g_strdup ("");
  if (r->err == NULL)
    r->err = g_strdup ("");
  wait_status = g_subprocess_get_status (proc);
  r->signalled = WIFSIGNALED (wait_status);
  r->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : 128 + WTERMSIG (wait_status);
  g_test_message ("exit %d%s; stderr: %.500s", r->status, r->signalled ? " (killed by a signal)" : "", r->err);
}

/* parallax-cli with the arguments given, in the test's folder or in `cwd`. */
#define RUN_CLI(r, ...) \
  G_STMT_START { \
    const char *const args_[] = { NULL, __VA_ARGS__, NULL }; \
    cli_run (r, NULL, NULL, args_); \
  } G_STMT_END

#define RUN_CLI_IN(r, cwd, ...) \
  G_STMT_START { \
    const char *const args_[] = { NULL, __VA_ARGS__, NULL }; \
    cli_run (r, cwd, NULL, args_); \
  } G_STMT_END

/* cli_run of parallax-cli with `argv` (argv[0] NULL), which must not die of a signal;
 * returns its exit status, with stdout and stderr in *out and *err (each may be NULL:
 * dropped). */
static inline int
run_steal (const char        *cwd,
           const char        *input,
           const char *const *argv,
           char             **out,
           char             **err)
{
  g_auto (CliRun) r = { 0 };

  cli_run (&r, cwd, input, argv);
  g_assert_false (r.signalled);
  if (out != NULL)
    *out = g_steal_pointer (&r.out);
  if (err != NULL)
    *err = g_steal_pointer (&r.err);
  return r.status;
}

/* run_steal with the arguments as an array (NULL-terminated, without the program). */
static inline int
run (const char *const *args,
     char             **out,
     char             **err)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, NULL);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  return run_steal (NULL, NULL, (const char *const *) argv->pdata, out, err);
}

/* run_steal with the arguments as a NULL-terminated list. */
static inline int
run_va (const char *cwd,
        const char *input,
        char      **out,
        char      **err,
        const char *first,
        va_list     ap)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, NULL);
  for (const char *a = first; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  g_ptr_array_add (argv, NULL);
  return run_steal (cwd, input, (const char *const *) argv->pdata, out, err);
}
