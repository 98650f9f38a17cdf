/* plx-cli-search-output.h: what search and merge print (FORMATS.md §3, "search"). */
#pragma once

#include "parallax/plx-scenario.h"
#include "parallax/plx-search.h"

/* The lines every text report starts with: scenario, model, cluster, strategy. */
void print_scenario_header (const PlxScenario *sc);
/* The best `top` results as text (or JSON), all of them to `csv` when not NULL;
 * returns the exit status. */
int  plx_cli_search_report (const PlxScenario *sc,
                            const PlxSearch   *search,
                            guint              top,
                            gboolean           json,
                            const char        *csv);
