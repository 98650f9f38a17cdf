/* plx-cli-stdout.h: "-" as an output file means standard output (docs/cli.md,
 * "Standard output as a file"). */
#pragma once

#include <glib.h>

/* The path the output of `flag` is to be written to: `value` itself, or for "-" a
 * file in a private temporary directory whose contents go to standard output when
 * the command ends (plx_cli_stdout_finish). From then on what the command prints on
 * stdout (its text summary, --json) goes to stderr, so stdout carries that output
 * alone. NULL with an error if another output already has standard output. The path
 * stays valid until plx_cli_stdout_finish. */
const char *plx_cli_output_path (const char *flag,
                                 const char *value,
                                 GError    **error);
/* The same for a path the caller owns (G_OPTION_ARG_FILENAME): *path replaced by a
 * copy of the temporary one when it is "-". */
gboolean    plx_cli_output_take (const char *flag,
                                 char      **path,
                                 GError    **error);
/* How messages name `path`: "<stdout>" for the temporary file standing for it. */
const char *plx_cli_output_name (const char *path);
/* At the command's end: a successful command's output copied to standard output
 * (a write that fails is an error, exit 1), the temporary file removed either way,
 * stdout given back. Returns the exit status. */
int         plx_cli_stdout_finish (int status);
