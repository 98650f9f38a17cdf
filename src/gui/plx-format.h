/* plx-format.h: how the window writes durations, so cards, table and tooltips agree. */
#pragma once

#include <glib.h>

/* "12.931 s", "5.48 ms", "312 µs". */
char *plx_format_time (double seconds);
/* "10 137": digits grouped by three with a narrow space. */
char *plx_format_count (double n);
/* Engineering notation, three significant digits: "335 GFLOP" (SI prefixes),
 * "945 MiB" (binary prefixes), "512 B"; counts below 1000 whole. */
char *plx_format_flops (double flops);
char *plx_format_bytes (double bytes);
/* A duration with three significant digits: "12.9 s", "5.48 ms", "312 µs". */
char *plx_format_time_short (double seconds);
/* A time window in seconds, precise enough for its span: "0.000 s – 12.931 s". */
char *plx_format_time_range (double t0_s, double t1_s);
