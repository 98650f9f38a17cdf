/* Ticks at 1, 2, 5 x 10^k: the "nice numbers" of Heckbert, "Nice numbers for graph
 * labels", Graphics Gems (1990). */
#include <math.h>
#include <stdio.h>

#include "plx-axis.h"
#include "../core/base/plx-minmax.h"

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

/* The decimals that print `v` (a tick step in the label's unit) exactly: 0 for 10,
 * 1 for 0.5, 2 for 0.05 or 0.25. */
static int
step_decimals (double v)
{
  for (int d = 0; d < 9; d++)
    {
      double t = v * pow (10.0, d);
      if (fabs (t - round (t)) <= 1e-6 * t)
        return d;
    }
  return 9;
}

void
plx_axis_format_time (double seconds,
                      double step,
                      double magnitude,
                      char  *buf,
                      gsize  len)
{
  static const struct
  {
    const char *name;
    double      scale;
  } units[] = { { "s", 1.0 }, { "ms", 1e3 }, { "µs", 1e6 } };
  guint u = 0;
  int decimals;

  /* One unit for the whole axis, the largest in which the axis's largest value is at
   * least 1 and its step needs at most 3 decimals: 0-2 s in 0.5 s steps reads "1.5 s"
   * (not "1500 ms"), a zoom on 2.0-2.4 s "2.05 s", a sub-second range 0-0.8 s
   * "200 ms" (not "0.2 s"), 0-40 ms "10 ms", 0-3 µs "0.5 µs". Past 3 decimals the
   * next unit down reads better ("2000.1 ms", not "2.0001 s"). The 1e-9 lets an axis
   * ending at 1 ms read in ms although 1e-3 x 1e3 comes out a hair under 1. */
  for (; u + 1 < G_N_ELEMENTS (units); u++)
    if (magnitude * units[u].scale >= 1.0 - 1e-9 && step_decimals (step * units[u].scale) <= 3)
      break;
  /* The decimals that tell neighbouring ticks apart, the same on every tick of the
   * axis so the labels line up ("0.0 s", "0.5 s", "1.0 s"). */
  decimals = step > 0.0 ? step_decimals (step * units[u].scale) : 0;
  if (fabs (seconds) < step * 1e-9)
    seconds = 0.0;
  snprintf (buf, len, "%.*f %s", decimals, seconds * units[u].scale, units[u].name);
}

/* `magnitude`: the largest absolute value on the axis, for a unit shared by all its
 * ticks. */
typedef void (*TickLabel) (double value, double step, double magnitude, char *buf, gsize len);

static void
label_gib (double value, double step, double magnitude, char *buf, gsize len)
{
  snprintf (buf, len, "%g GiB", value / 1073741824.0);
}

static void
label_count (double value, double step, double magnitude, char *buf, gsize len)
{
  snprintf (buf, len, "%.0f", value);
}

/* The multiples of `step` in [lo, hi] (at most about a thousand), positioned 0..1 and
 * labelled. */
static void
fill_ticks (double lo, double hi, double step, TickLabel label, GArray *out)
{
  double first = ceil (lo / step - 1e-9) * step;
  double magnitude = plx_max (fabs (lo), fabs (hi));

  g_array_set_size (out, 0);
  for (double v = first; v <= hi + step * 1e-9; v += step)
    {
      PlxAxisTick t;
      /* Multiples of the step, not sums of it, so values stay round; + 0.0 turns a
       * negative zero into zero. */
      double value = round (v / step) * step + 0.0;

      t.value = value;
      t.position = (value - lo) / (hi - lo);
      label (value, step, magnitude, t.label, sizeof t.label);
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
  double step = plx_max (plx_axis_nice_step (hi - lo, target), 1.0);

  g_array_set_size (out, 0);
  if (hi > lo)
    fill_ticks (lo, hi, step, label_count, out);
  return step;
}

void
plx_axis_decade_ticks (int         lo_exp,
                       int         hi_exp,
                       guint       max_ticks,
                       const char *unit,
                       GArray     *ticks)
{
  static const char *const prefixes[] = { "", "k", "M", "G", "T", "P", "E" };
  int every = 1;

  if (hi_exp <= lo_exp)
    return;
  while (max_ticks > 0 && (guint) ((hi_exp - lo_exp) / every + 1) > max_ticks)
    every++;
  for (int e = lo_exp; e <= hi_exp; e++)
    {
      PlxAxisTick t = { 0 };
      int group = e >= 0 ? MIN (e / 3, (int) G_N_ELEMENTS (prefixes) - 1) : 0;

      /* Multiples of the step from the axis's start, so the first decade is labelled. */
      if ((e - lo_exp) % every != 0)
        continue;
      t.value = pow (10.0, e);
      t.position = (double) (e - lo_exp) / (hi_exp - lo_exp);
      if (e < 0)
        snprintf (t.label, sizeof t.label, "%g %s", t.value, unit);
      else
        snprintf (t.label, sizeof t.label, "%.0f %s%s", pow (10.0, e - 3 * group), prefixes[group], unit);
      g_array_append_val (ticks, t);
    }
}
