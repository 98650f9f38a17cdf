/* diff-figures.h: a figure as Parallax prints it ("13.914 s", "850.12 ms", "45.3 %",
 * "12.34 GiB"), read back into the JSON's units with half a unit of its last digit,
 * so that a test can hold printed text to the JSON at the precision it was printed. */
#pragma once

#include <glib.h>
#include <math.h>
#include <string.h>

/* Reads the number at `p` and the unit after one space. Returns FALSE if `p` does not
 * start with a number and a known unit. */
static inline gboolean
diff_read_figure (const char *p,
                  double     *value,
                  double     *half)
{
  static const struct { const char *unit; double scale; } units[] = {
    { "s", 1.0 }, { "ms", 1e-3 }, { "µs", 1e-6 }, { "%", 0.01 }, { "GiB", 1073741824.0 },
  };
  const char *dot, *end;
  char *number_end;
  g_autofree char *unit = NULL;
  int decimals;

  *value = g_ascii_strtod (p, &number_end);
  if (number_end == p || *number_end != ' ')
    return FALSE;
  dot = memchr (p, '.', (gsize) (number_end - p));
  decimals = dot != NULL ? (int) (number_end - dot - 1) : 0;
  end = strchr (number_end + 1, ' ');
  unit = end != NULL ? g_strndup (number_end + 1, (gsize) (end - number_end - 1)) : g_strdup (number_end + 1);
  for (gsize u = 0; u < G_N_ELEMENTS (units); u++)
    if (g_str_equal (unit, units[u].unit))
      {
        *value *= units[u].scale;
        *half = 0.5 * pow (10.0, -decimals) * units[u].scale;
        return TRUE;
      }
  return FALSE;
}

/* Whether a printed figure is the JSON's double rounded: within half a unit of its
 * last digit (and a relative 1e-9 more for the scaling by 1e3 or 2^-30 before
 * printing). */
static inline gboolean
diff_within_print (double printed,
                   double half,
                   double json)
{
  return fabs (printed - json) <= half * (1.0 + 1e-9) + fabs (json) * 1e-12;
}
