/* plx-cli-util.h: what every parallax-cli command reports with (FORMATS.md §3).
 * Exit status: 0 success, 1 user error (bad file, inconsistent strategy), 2 usage. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#define EXIT_USER 1
#define EXIT_USAGE 2

/* "parallax-cli: MESSAGE (see parallax-cli --help)" on stderr; returns EXIT_USAGE. */
int  usage_error (const char *fmt, ...) G_GNUC_PRINTF (1, 2);
/* The error's message on one line on stderr; returns EXIT_USER. */
int  user_error (const GError *error);
void print_json (JsonNode *node);
