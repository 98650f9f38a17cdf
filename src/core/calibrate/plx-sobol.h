/* plx-sobol.h: variance-based sensitivity of any model of k inputs (Saltelli et al.
 * 2010, "Variance based sensitivity analysis of model output. Design and estimator
 * for the total sensitivity index", Comput. Phys. Commun. 181(2)). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The model's m outputs y[0 .. m-1] at a point of the unit cube (0, 1)^k; the caller
 * maps each coordinate through its input's inverse CDF. */
typedef void (*PlxSobolModel) (const double *u,
                               double       *y,
                               gpointer      data);

/* First-order and total-effect indices of each of the k inputs on each of the m
 * outputs from n base samples (n * (k + 2) model runs, mt19937 seeded with `seed`):
 * first[o * k + i] and total[o * k + i] for output o and input i. When an output does
 * not vary, both are 0 for every input. */
void plx_sobol_indices (guint         k,
                        guint         m,
                        guint         n,
                        guint64       seed,
                        PlxSobolModel model,
                        gpointer      data,
                        double       *first,
                        double       *total);

G_END_DECLS
