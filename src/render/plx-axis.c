/* Ticks at 1, 2, 5 x 10^k: the "nice numbers" of Heckbert, "Nice numbers for graph
 * labels", Graphics Gems (1990). */
#include <math.h>
#include <stdio.h>

#include "plx-axis.h"

double
plx_axis_nice_step (double span,
                    guint  target)
{
  double raw, mag, f;

  if (!(span > 0.0) || target == 0)
    return 1.0;
  raw = span / target;
  mag = pow (10.0, floor (log10 (raw)));
  f = raw / mag;
  if (f <= 1.0)
    return mag;
  if (f <= 2.0)
    return 2.0 * mag;
  if (f <= 5.0)
    return 5.0 * mag;
  return 10.0 * mag;
}

void
plx_axis_format_time (double seconds,
                      double step,
                      char  *buf,
                      gsize  len)
{
  const char *unit;
  double scale, scaled_step;
  int decimals;

  /* The unit follows the step: ticks 0.1 s apart or more read in seconds ("1.5 s", not
   * "1500 ms"), down to 0.1 ms in milliseconds, below that in microseconds. */
  if (step >= 0.1 - 1e-12)
    unit = "s", scale = 1.0;
  else if (step >= 1e-4 - 1e-16)
    unit = "ms", scale = 1e3;
  else
    unit = "µs", scale = 1e6;
  scaled_step = step * scale;
  /* Enough decimals to tell neighbouring ticks apart. */
  decimals = scaled_step >= 1.0 ? 0 : (int) ceil (-log10 (scaled_step) - 1e-9);
  if (fabs (seconds) < step * 1e-9)
    seconds = 0.0;
  snprintf (buf, len, "%.*f %s", decimals, seconds * scale, unit);
}

typedef void (*TickLabel) (double value, double step, char *buf, gsize len);

static void
label_gib (double value, double step, char *buf, gsize len)
{
  snprintf (buf, len, "%g GiB", value / 1073741824.0);
}

static void
label_count (double value, double step, char *buf, gsize len)
{
  snprintf (buf, len, "%.0f", value);
}

/* The multiples of `step` in [lo, hi] (at most about a thousand), positioned 0..1 and
 * labelled. */
static void
fill_ticks (double lo, double hi, double step, TickLabel label, GArray *out)
{
  double first = ceil (lo / step - 1e-9) * step;

  g_array_set_size (out, 0);
  for (double v = first; v <= hi + step * 1e-9; v += step)
    {
      PlxAxisTick t;
      /* Multiples of the step, not sums of it, so values stay round; + 0.0 turns a
       * negative zero into zero. */
      double value = round (v / step) * step + 0.0;

      t.value = value;
      t.position = (value - lo) / (hi - lo);
      label (value, step, t.label, sizeof t.label);
      g_array_append_val (out, t);
      if (out->len > 1000)
        break;
    }
}

double
plx_axis_time_ticks (double  lo,
                     double  hi,
                     guint   target,
                     GArray *out)
{
  double step;

  if (!(hi > lo))
    hi = lo + 1.0;
  step = plx_axis_nice_step (hi - lo, target);
  fill_ticks (lo, hi, step, plx_axis_format_time, out);
  return step;
}

double
plx_axis_bytes_ticks (double  lo,
                      double  hi,
                      guint   target,
                      GArray *out)
{
  /* Round in GiB. */
  double step = plx_axis_nice_step ((hi - lo) / 1073741824.0, target) * 1073741824.0;

  g_array_set_size (out, 0);
  if (hi > lo)
    fill_ticks (lo, hi, step, label_gib, out);
  return step;
}

double
plx_axis_count_ticks (double  lo,
                      double  hi,
                      guint   target,
                      GArray *out)
{
  /* Whole numbers only: a step below 1 would label fractions of a GPU. */
  double step = MAX (plx_axis_nice_step (hi - lo, target), 1.0);

  g_array_set_size (out, 0);
  if (hi > lo)
    fill_ticks (lo, hi, step, label_count, out);
  return step;
}
