/* plx-cli-conventions.h: what every parallax-cli command accepts alike (docs/cli.md):
 * --version, `help COMMAND`, the list of command names. */
#pragma once

#include <glib.h>

/* The commands main() dispatches, NULL-terminated, in the order the help lists them. */
extern const char *const plx_cli_commands[];

gboolean plx_cli_is_command (const char *name);
/* TRUE if a command's arguments hold --version (before any "--"). */
gboolean plx_cli_version_wanted (int argc, char **argv);
void     plx_cli_print_version (void);
