/* plx-format.h: how the window writes durations, so cards, table and tooltips agree. */
#pragma once

#include <glib.h>

/* "12.931 s", "5.48 ms", "312 µs". */
char *plx_format_time (double seconds);
