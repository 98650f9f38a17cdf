/* plx-cli-import.h: parallax-cli import FILE... (docs/cli.md, "import"). */
#pragma once

/* parallax-cli import [--from FORMAT] [--out OUT.json] [--model M] [--cluster C]
 * [--nodes N] FILE... Returns the exit status. */
int plx_cli_import (int    argc,
                    char **argv);
