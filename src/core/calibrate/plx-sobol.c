/* Saltelli's design: two independent sample matrices A and B of the unit cube, and
 * for each input i the matrix A_B^(i), A with its column i taken from B. Rows are
 * drawn one at a time and the sums kept, so memory is O(k m) whatever n is. The m
 * outputs share every row: one model run gives all of them, and each output's
 * indices are those a run of that output alone would give. */
#include <math.h>

#include <gsl/gsl_rng.h>

#include "calibrate/plx-sobol.h"

typedef struct
{
  double mean, m2;  /* Welford's running mean and squared deviations of f(A), f(B) */
  double *v_first;  /* per input: sum f(B) (f(A_B^i) - f(A)) */
  double *d_sum;    /* per input: sum (f(A_B^i) - f(A)) */
  double *v_total;  /* per input: sum (f(A) - f(A_B^i))^2 */
} OutputSums;

void
plx_sobol_indices (guint         k,
                   guint         m,
                   guint         n,
                   guint64       seed,
                   PlxSobolModel model,
                   gpointer      data,
                   double       *first,
                   double       *total)
{
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  double *a = g_new (double, k), *b = g_new (double, k), *ab = g_new (double, k);
  double *fa = g_new (double, m), *fb = g_new (double, m), *fab = g_new (double, m);
  double *sums = g_new0 (double, (gsize) 3 * k * m);
  OutputSums *out = g_new0 (OutputSums, m);
  guint count = 0;

  for (guint o = 0; o < m; o++)
    {
      out[o].v_first = sums + (gsize) 3 * k * o;
      out[o].d_sum = out[o].v_first + k;
      out[o].v_total = out[o].d_sum + k;
    }
  gsl_rng_set (rng, (unsigned long) seed);
  for (guint j = 0; j < n; j++)
    {
      for (guint i = 0; i < k; i++)
        a[i] = gsl_rng_uniform_pos (rng);
      for (guint i = 0; i < k; i++)
        b[i] = gsl_rng_uniform_pos (rng);
      model (a, fa, data);
      model (b, fb, data);
      /* Welford's running variance of all 2n outputs of A and B: V(Y). */
      for (guint s = 0; s < 2; s++)
        {
          count++;
          for (guint o = 0; o < m; o++)
            {
              double y = s == 0 ? fa[o] : fb[o], delta = y - out[o].mean;
              out[o].mean += delta / count;
              out[o].m2 += delta * (y - out[o].mean);
            }
        }
      for (guint i = 0; i < k; i++)
        {
          for (guint c = 0; c < k; c++)
            ab[c] = c == i ? b[c] : a[c];
          model (ab, fab, data);
          for (guint o = 0; o < m; o++)
            {
              /* Saltelli et al. 2010, Table 2 (b): V_i ~ 1/N sum f(B)_j (f(A_B^i)_j - f(A)_j),
               * with f(B) centred on the mean output (subtracted at the end through
               * sum (f(A_B^i) - f(A))): the same expectation, but a step of 100 s that
               * varies by 3 s no longer multiplies the noise by 100 / 3. */
              out[o].v_first[i] += fb[o] * (fab[o] - fa[o]);
              out[o].d_sum[i] += fab[o] - fa[o];
              /* Table 2 (f), Jansen's: V_Ti ~ 1/(2N) sum (f(A)_j - f(A_B^i)_j)^2. */
              out[o].v_total[i] += (fa[o] - fab[o]) * (fa[o] - fab[o]);
            }
        }
    }
  for (guint o = 0; o < m; o++)
    {
      double variance = count > 1 ? out[o].m2 / (count - 1) : 0.0;
      /* A constant output has no variance to apportion: no input explains any. */
      gboolean varies = variance > 0.0 && n > 0;

      for (guint i = 0; i < k; i++)
        {
          first[(gsize) o * k + i] = varies ? (out[o].v_first[i] - out[o].mean * out[o].d_sum[i]) / n / variance : 0.0;
          total[(gsize) o * k + i] = varies ? out[o].v_total[i] / (2.0 * n) / variance : 0.0;
        }
    }
  g_free (a);
  g_free (b);
  g_free (ab);
  g_free (fa);
  g_free (fb);
  g_free (fab);
  g_free (sums);
  g_free (out);
  gsl_rng_free (rng);
}
