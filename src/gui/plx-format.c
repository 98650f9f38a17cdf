#include <math.h>
#include <string.h>

#include "plx-format.h"

char *
plx_format_time (double s)
{
  if (s >= 1.0)
    return g_strdup_printf ("%.3f s", s);
  if (s >= 1e-3)
    return g_strdup_printf ("%.2f ms", s * 1e3);
  return g_strdup_printf ("%.0f µs", s * 1e6);
}

char *
plx_format_count (double n)
{
  /* Groups of three digits with a narrow no-break space (U+202F), as SI writes
   * numbers, whatever the locale: "10 137". Counts past 2^53 are not exact anyway. */
  g_autofree char *digits = NULL;
  GString *out = g_string_new (NULL);
  gsize len;

  if (!(n >= 0 && n < 9e15))
    return g_strdup_printf ("%.3g", n);
  digits = g_strdup_printf ("%.0f", n);
  len = strlen (digits);
  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append (out, "\u202f");
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

/* `value` in `units[i]` = value / base^i, with three significant digits, in the
 * largest unit that keeps the number below 1000 (so "945 MiB", never "1e+03").
 * The base unit is a count (a FLOP, a byte): it is written whole. */
static char *
format_engineering (double value, double base, const char *const *units, guint n_units)
{
  double v = fabs (value), m;
  const char *sign = value < 0 ? "-" : "";
  guint i = 0;
  int decimals;

  if (!isfinite (value))
    return g_strdup_printf ("%g %s", value, units[0]);
  if (v < 999.5)
    return g_strdup_printf ("%s%.0f %s", sign, v, units[0]);
  while (i + 1 < n_units && v >= 1000.0)
    {
      v /= base;
      i++;
    }
  /* Rounding to three digits can carry into a fourth (999.7 k -> "1000 k"): then
   * the next unit up. Binary units also leave 1000..1023 to move up from. */
  for (;;)
    {
      decimals = v >= 99.95 ? 0 : v >= 9.995 ? 1 : v >= 0.9995 ? 2 : 3;
      m = round (v * pow (10, decimals)) / pow (10, decimals);
      if (m < 1000.0 || i + 1 >= n_units)
        break;
      v /= base;
      i++;
    }
  return g_strdup_printf ("%s%.*f %s", sign, decimals, m, units[i]);
}

char *
plx_format_flops (double flops)
{
  /* SI prefixes: FLOP counts are decimal quantities (312 TFLOP/s is 312e12). */
  static const char *const units[] = { "FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP", "ZFLOP" };

  return format_engineering (flops, 1000.0, units, G_N_ELEMENTS (units));
}

char *
plx_format_bytes (double bytes)
{
  /* Binary prefixes (IEC 80000-13), as GPU memory is sized: 80 GiB of HBM. */
  static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

  return format_engineering (bytes, 1024.0, units, G_N_ELEMENTS (units));
}

char *
plx_format_time_short (double s)
{
  /* Three significant digits, for a span beside exact times ("12.9 s shown"). */
  static const char *const units[] = { "s", "ms", "µs", "ns" };
  double v = fabs (s);
  guint i = 0;
  int decimals;

  if (!isfinite (s) || v == 0.0)
    return g_strdup_printf ("%g s", s);
  while (i + 1 < G_N_ELEMENTS (units) && v < 0.9995)
    {
      v *= 1000.0;
      i++;
    }
  decimals = v >= 99.95 ? 0 : v >= 9.995 ? 1 : 2;
  return g_strdup_printf ("%s%.*f %s", s < 0 ? "-" : "", decimals, v, units[i]);
}

char *
plx_format_time_range (double t0, double t1)
{
  /* Both ends in seconds, with enough decimals to tell them apart at the span's
   * scale (two digits past its first), at least milliseconds. */
  double span = fabs (t1 - t0);
  int decimals = span > 0 ? (int) ceil (-log10 (span)) + 2 : 3;

  decimals = CLAMP (decimals, 3, 9);
  return g_strdup_printf ("%.*f s – %.*f s", decimals, t0, decimals, t1);
}
