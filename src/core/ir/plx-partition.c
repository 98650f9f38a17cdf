/* Chains: min-max contiguous partition by dynamic programming (bounded: see the
 * inner loop). With a cost on each
 * cut, paid by both parts beside it, a part's time depends on both its ends, so the
 * greedy "fill each part up to a bound" test is not exact (the cheapest place to cut
 * may come before the furthest one); the DP over (parts, prefix) is. */
#include "ir/plx-partition.h"

double
plx_partition_part_time (const double *node_s,
                         const double *cut_s,
                         guint         n,
                         guint         a,
                         guint         b)
{
  double t = 0.0;

  for (guint i = a; i <= b; i++)
    t += node_s[i];
  if (a > 0)
    t += cut_s[a - 1];
  if (b + 1 < n)
    t += cut_s[b];
  return t;
}

double
plx_partition_chain (const double *node_s,
                     const double *cut_s,
                     guint         n,
                     guint         parts,
                     guint        *first)
{
  g_autofree double *prefix = NULL;
  g_autofree double *best = NULL;   /* best[p * (n + 1) + j]: nodes 0..j-1 in p + 1 parts */
  g_autofree guint *from = NULL;    /* where that split's last part starts */
  double result;

  g_return_val_if_fail (n > 0 && parts >= 1 && parts <= n, 0.0);
  prefix = g_new (double, n + 1);
  prefix[0] = 0.0;
  for (guint i = 0; i < n; i++)
    prefix[i + 1] = prefix[i] + node_s[i];
  best = g_new (double, (gsize) parts * (n + 1));
  from = g_new0 (guint, (gsize) parts * (n + 1));

#define PART(a, b) (prefix[(b) + 1] - prefix[a] + ((a) > 0 ? cut_s[(a) - 1] : 0.0) + ((b) + 1 < n ? cut_s[b] : 0.0))
  for (guint j = 1; j <= n; j++)
    {
      best[j] = PART (0u, j - 1);
      from[j] = 0;
    }
  for (guint p = 1; p < parts; p++)
    for (guint j = p + 1; j <= n; j++)
      {
        double *cell = &best[(gsize) p * (n + 1) + j];
        *cell = G_MAXDOUBLE;
        /* The last part is nodes i..j-1, after p parts over nodes 0..i-1. From the
         * shortest last part back: its nodes alone (times >= 0) only grow, so once
         * they outweigh the best so far no earlier start can do better - the DP
         * stays exact and costs about n^2 ln(parts) / 2 instead of parts n^2 / 2.
         * `<=` keeps, of equal splits, the one with the earliest start, as a scan
         * from the front with `<` would. */
        for (guint i = j; i-- > p;)
          {
            double t;
            if (prefix[j] - prefix[i] > *cell)
              break;
            t = MAX (best[(gsize) (p - 1) * (n + 1) + i], PART (i, j - 1));
            if (t <= *cell)
              {
                *cell = t;
                from[(gsize) p * (n + 1) + j] = i;
              }
          }
      }
#undef PART
  result = best[(gsize) (parts - 1) * (n + 1) + n];
  {
    guint j = n;
    for (guint p = parts; p-- > 0;)
      {
        first[p] = p == 0 ? 0 : from[(gsize) p * (n + 1) + j];
        j = first[p];
      }
  }
  return result;
}
