/* plx-cli-util.h: what every parallax-cli command reports with (FORMATS.md §3).
 * Exit status: 0 success, 1 user error (bad file, inconsistent strategy), 2 usage. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "parallax/plx-cluster.h"

#define EXIT_USER 1
#define EXIT_USAGE 2

/* `text` as a terminal shows it (plx_printable: escape sequences in a file name or a
 * command-line value are printed, not obeyed). Valid until eight more calls: for
 * the arguments of one printf. */
const char *plx_cli_shown (const char *text);
/* "parallax-cli: MESSAGE (see parallax-cli --help)" on stderr; returns EXIT_USAGE. */
int  usage_error (const char *fmt, ...) G_GNUC_PRINTF (1, 2);
/* The error's message on one line on stderr; returns EXIT_USER. */
int  user_error (const GError *error);
/* The document on stdout; one that cannot be written as JSON (a NaN) is an error on
 * stderr, and plx_cli_finish_output makes the command fail. */
void print_json (JsonNode *node);
/* What main returns: `status`, or EXIT_USER when standard output could not be written
 * (every write is checked here, by flushing it) or a document could not be printed. */
int  plx_cli_finish_output (int status);

/* Whether a --cluster argument names a file (a path, a name ending in .json, or "-"
 * for standard input) rather than a preset. */
gboolean plx_cli_names_file (const char *name);

/* A --cluster argument's JSON - a preset's, or a file's - with any "preset" the file
 * names expanded (the cluster a calibration starts from and writes back). */
JsonNode *plx_cli_cluster_json (const char *name,
                                GError    **error);

/* The cluster a command runs on: a preset, a cluster JSON file (a path or a name
 * ending in .json), or the built-in default scenario's (NULL); `nodes` (0: as given)
 * overrides its node count. */
PlxCluster *plx_cli_load_cluster (const char *name,
                                  guint       nodes,
                                  GError    **error);
