/* plx-cli-options.h: a command's flags parsed by GOptionContext (docs/cli.md), so every
 * command takes `--key value` and `--key=value` alike and its --help is generated from
 * the same option table that parses. */
#pragma once

#include <glib.h>

typedef struct _PlxCliOptions PlxCliOptions;

/* What plx_cli_options_parse returns when the command should go on (0 and up are exit
 * statuses). */
#define PLX_CLI_OPTIONS_CONTINUE (-1)

/* A parser for `parallax-cli COMMAND`: `parameters` follows "[OPTION…]" in the usage
 * line (the positional arguments), `summary` and `description` go before and after the
 * flag list. --help and -h are added. */
PlxCliOptions *plx_cli_options_new (const char *command,
                                    const char *parameters,
                                    const char *summary,
                                    const char *description);
/* The same, with `user_data` passed to the entries' G_OPTION_ARG_CALLBACK functions. */
PlxCliOptions *plx_cli_options_new_with_data (const char *command,
                                              const char *parameters,
                                              const char *summary,
                                              const char *description,
                                              gpointer    user_data);
void           plx_cli_options_free (PlxCliOptions *options);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxCliOptions, plx_cli_options_free)

void plx_cli_options_add_entries (PlxCliOptions      *options,
                                  const GOptionEntry *entries);
/* Flags listed under their own heading in the help; `user_data` goes to their
 * callbacks. `entries` must outlive `options`. */
void plx_cli_options_add_group (PlxCliOptions      *options,
                                const char         *name,
                                const char         *heading,
                                const GOptionEntry *entries,
                                gpointer            user_data);

/* Parses argv[2..] (argv[1] is the command). --help prints the help and returns 0; a
 * flag GOptionContext rejects (a missing value, an unknown flag) is a usage error naming
 * it (returns 2); otherwise PLX_CLI_OPTIONS_CONTINUE, the entries' variables are set and
 * plx_cli_options_positionals holds what is left. */
int plx_cli_options_parse (PlxCliOptions *options,
                           int            argc,
                           char         **argv);

/* The arguments that are not flags, in order (a "--" separator dropped), NULL-terminated;
 * owned by `options`. */
char **plx_cli_options_positionals (PlxCliOptions *options);
guint  plx_cli_options_n_positionals (PlxCliOptions *options);

/* The generated help, with the usage on its first line ("Usage: parallax-cli COMMAND
 * [OPTION…] ..."), as the man page generator and the conventions tests read it. */
char *plx_cli_options_help (PlxCliOptions *options);
