#include <stdio.h>
#include <string.h>

#include "plx-cli-options.h"
#include "plx-cli-util.h"

struct _PlxCliOptions
{
  char           *command;
  GOptionContext *context;
  gboolean        help;
  gboolean        has_groups;
  GHashTable     *switches;     /* "--name" of the flags that take no value */
  GPtrArray      *positionals;
};

PlxCliOptions *
plx_cli_options_new (const char *command,
                     const char *parameters,
                     const char *summary,
                     const char *description)
{
  return plx_cli_options_new_with_data (command, parameters, summary, description, NULL);
}

PlxCliOptions *
plx_cli_options_new_with_data (const char *command,
                               const char *parameters,
                               const char *summary,
                               const char *description,
                               gpointer    user_data)
{
  PlxCliOptions *options = g_new0 (PlxCliOptions, 1);
  const GOptionEntry help_entry[] = {
    { "help", 'h', 0, G_OPTION_ARG_NONE, &options->help, "Show this help", NULL },
    G_OPTION_ENTRY_NULL,
  };

  options->command = g_strdup (command);
  options->context = g_option_context_new (parameters);
  options->positionals = g_ptr_array_new_with_free_func (g_free);
  options->switches = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  /* GLib's own --help would exit() from inside the parse and list --help-all, which
   * means nothing here; ours prints the same generated text and returns. */
  g_option_context_set_help_enabled (options->context, FALSE);
  /* Unknown flags come back to us, to be reported as the command's usage error. */
  g_option_context_set_ignore_unknown_options (options->context, TRUE);
  g_option_context_set_summary (options->context, summary);
  g_option_context_set_description (options->context, description);
  /* The main group carries the callbacks' data; its flags are listed first. */
  g_option_context_set_main_group (options->context,
                                   g_option_group_new (command, summary, "Show the options", user_data, NULL));
  g_option_context_add_main_entries (options->context, help_entry, NULL);
  return options;
}

void
plx_cli_options_free (PlxCliOptions *options)
{
  if (options == NULL)
    return;
  g_option_context_free (options->context);
  g_ptr_array_unref (options->positionals);
  g_hash_table_unref (options->switches);
  g_free (options->command);
  g_free (options);
}

static void
note_switches (PlxCliOptions      *options,
               const GOptionEntry *entries)
{
  for (guint i = 0; entries[i].long_name != NULL; i++)
    if (entries[i].arg == G_OPTION_ARG_NONE ||
        (entries[i].arg == G_OPTION_ARG_CALLBACK && (entries[i].flags & G_OPTION_FLAG_NO_ARG)))
      g_hash_table_add (options->switches, g_strconcat ("--", entries[i].long_name, NULL));
}

void
plx_cli_options_add_entries (PlxCliOptions      *options,
                             const GOptionEntry *entries)
{
  note_switches (options, entries);
  g_option_context_add_main_entries (options->context, entries, NULL);
}

void
plx_cli_options_add_group (PlxCliOptions      *options,
                           const char         *name,
                           const char         *heading,
                           const GOptionEntry *entries,
                           gpointer            user_data)
{
  GOptionGroup *group = g_option_group_new (name, heading, heading, user_data, NULL);

  note_switches (options, entries);
  g_option_group_add_entries (group, entries);
  g_option_context_add_group (options->context, group);
  options->has_groups = TRUE;
}

char *
plx_cli_options_help (PlxCliOptions *options)
{
  g_autofree char *prgname = g_strdup_printf ("parallax-cli %s", options->command);
  g_autofree char *text = NULL;
  const char *usage = "Usage:\n  ";

  /* The usage line names the command: GLib puts the program name first. */
  g_set_prgname (prgname);
  /* Not only the main group's flags: every group's, under its heading. */
  text = g_option_context_get_help (options->context, !options->has_groups, NULL);
  if (g_str_has_prefix (text, usage))
    return g_strconcat ("Usage: ", text + strlen (usage), NULL);
  return g_steal_pointer (&text);
}

int
plx_cli_options_parse (PlxCliOptions *options,
                       int            argc,
                       char         **argv)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = g_new0 (char *, MAX (argc, 1) + 1);
  gboolean after_separator = FALSE;

  /* argv[0] stands for the program; the command's own arguments follow. */
  args[0] = g_strdup (argv[0]);
  for (int i = 2; i < argc; i++)
    {
      const char *eq = strchr (argv[i], '=');
      g_autofree char *flag = eq != NULL && g_str_has_prefix (argv[i], "--") ? g_strndup (argv[i], eq - argv[i]) : NULL;

      if (g_str_equal (argv[i], "--"))
        break;
      /* --help wherever it stands, even where a flag's value was due (`--model
       * --help`): a user asking for help never means a file named "--help". */
      if (g_str_equal (argv[i], "--help") || g_str_equal (argv[i], "-h"))
        options->help = TRUE;
      /* GLib would take --switch=0 as --switch: a value there is a mistake to report. */
      if (flag != NULL && g_hash_table_contains (options->switches, flag))
        return usage_error ("%s takes no value", flag);
    }
  /* Before the parse: a callback given "--help" as its value would refuse it. */
  if (options->help)
    {
      g_autofree char *help = plx_cli_options_help (options);
      fputs (help, stdout);
      return 0;
    }
  for (int i = 2; i < argc; i++)
    args[i - 1] = g_strdup (argv[i]);
  if (!g_option_context_parse_strv (options->context, &args, &error))
    return usage_error ("%s: %s", options->command, error->message);
  for (guint i = 1; args[i] != NULL; i++)
    {
      const char *arg = args[i];

      /* GLib keeps "--" when what follows looks like a flag: from there on, all are
       * arguments. */
      if (!after_separator && g_str_equal (arg, "--"))
        after_separator = TRUE;
      else if (!after_separator && arg[0] == '-' && arg[1] != '\0')
        return usage_error ("%s: unknown option \"%s\"", options->command, arg);
      else
        g_ptr_array_add (options->positionals, g_strdup (arg));
    }
  g_ptr_array_add (options->positionals, NULL);
  return PLX_CLI_OPTIONS_CONTINUE;
}

char **
plx_cli_options_positionals (PlxCliOptions *options)
{
  return (char **) options->positionals->pdata;
}

guint
plx_cli_options_n_positionals (PlxCliOptions *options)
{
  return options->positionals->len > 0 ? options->positionals->len - 1 : 0;
}
