#include <stdio.h>

#include "plx-cli-conventions.h"

const char *const plx_cli_commands[] = {
  "presets", "simulate", "plan", "compare", "search", "merge", "sweep", "partition",
  "fuse", "reshard", "validate", "calibrate", "import", NULL,
};

gboolean
plx_cli_is_command (const char *name)
{
  return name != NULL && g_strv_contains (plx_cli_commands, name);
}

gboolean
plx_cli_version_wanted (int argc, char **argv)
{
  for (int i = 2; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--"))
        return FALSE;
      if (g_str_equal (argv[i], "--version"))
        return TRUE;
    }
  return FALSE;
}

void
plx_cli_print_version (void)
{
  printf ("parallax-cli %s\n", PACKAGE_VERSION);
}
