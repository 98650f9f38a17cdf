/* plx-minmax.h: MAX, MIN and CLAMP for arguments that are calls. Not installed. */
#pragma once

#include <glib.h>

/* GLib's MAX/MIN/CLAMP evaluate the chosen argument twice (a call in it runs twice); these compare exactly as they do. */
static inline double
plx_max (double a, double b)
{
  return a > b ? a : b;
}

static inline double
plx_min (double a, double b)
{
  return a < b ? a : b;
}

static inline double
plx_clamp (double x, double low, double high)
{
  return x > high ? high : x < low ? low : x;
}

static inline guint64
plx_max_u64 (guint64 a, guint64 b)
{
  return a > b ? a : b;
}

static inline guint64
plx_min_u64 (guint64 a, guint64 b)
{
  return a < b ? a : b;
}
