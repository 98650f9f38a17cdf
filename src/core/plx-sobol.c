/* Saltelli's design: two independent sample matrices A and B of the unit cube, and
 * for each input i the matrix A_B^(i), A with its column i taken from B. Rows are
 * drawn one at a time and the sums kept, so memory is O(k) whatever n is. */
#include <math.h>

#include <gsl/gsl_rng.h>

#include "parallax/plx-sobol.h"

void
plx_sobol_indices (guint         k,
                   guint         n,
                   guint64       seed,
                   PlxSobolModel model,
                   gpointer      data,
                   double       *first,
                   double       *total)
{
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  double *a = g_new (double, k), *b = g_new (double, k), *ab = g_new (double, k);
  double *v_first = g_new0 (double, k), *v_total = g_new0 (double, k), *d_sum = g_new0 (double, k);
  double mean = 0.0, m2 = 0.0, variance;
  guint count = 0;

  gsl_rng_set (rng, (unsigned long) seed);
  for (guint j = 0; j < n; j++)
    {
      double fa, fb;

      for (guint i = 0; i < k; i++)
        a[i] = gsl_rng_uniform_pos (rng);
      for (guint i = 0; i < k; i++)
        b[i] = gsl_rng_uniform_pos (rng);
      fa = model (a, data);
      fb = model (b, data);
      /* Welford's running variance of all 2n outputs of A and B: V(Y). */
      for (guint s = 0; s < 2; s++)
        {
          double y = s == 0 ? fa : fb, delta = y - mean;
          count++;
          mean += delta / count;
          m2 += delta * (y - mean);
        }
      for (guint i = 0; i < k; i++)
        {
          double fab;

          for (guint c = 0; c < k; c++)
            ab[c] = c == i ? b[c] : a[c];
          fab = model (ab, data);
          /* Saltelli et al. 2010, Table 2 (b): V_i ~ 1/N sum f(B)_j (f(A_B^i)_j - f(A)_j),
           * with f(B) centred on the mean output (subtracted at the end through
           * sum (f(A_B^i) - f(A))): the same expectation, but a step of 100 s that
           * varies by 3 s no longer multiplies the noise by 100 / 3. */
          v_first[i] += fb * (fab - fa);
          d_sum[i] += fab - fa;
          /* Table 2 (f), Jansen's: V_Ti ~ 1/(2N) sum (f(A)_j - f(A_B^i)_j)^2. */
          v_total[i] += (fa - fab) * (fa - fab);
        }
    }
  variance = count > 1 ? m2 / (count - 1) : 0.0;
  for (guint i = 0; i < k; i++)
    {
      /* A constant output has no variance to apportion: no input explains any. */
      gboolean varies = variance > 0.0 && n > 0;
      first[i] = varies ? (v_first[i] - mean * d_sum[i]) / n / variance : 0.0;
      total[i] = varies ? v_total[i] / (2.0 * n) / variance : 0.0;
    }
  g_free (a);
  g_free (b);
  g_free (ab);
  g_free (v_first);
  g_free (v_total);
  g_free (d_sum);
  gsl_rng_free (rng);
}
