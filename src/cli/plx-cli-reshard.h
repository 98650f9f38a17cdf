/* plx-cli-reshard.h: `parallax-cli reshard` (issue 14, docs/reshard.md). */
#pragma once

/* reshard --shape S --mesh M --from L --to L [--json]: one array's redistribution. */
int plx_cli_reshard (int argc, char **argv);
