/* The analytical engine over draws of a cluster's uncertain inputs, and the
 * sensitivity of the step and the peak memory to each input (docs/uncertainty.md).
 *
 * One copy of the cluster is made and its fields overwritten per draw: the scenario
 * (model, resolved strategy, layer split) is built once, and the engine is the
 * closed form the search uses, so a draw costs one plx_analytic_run. No analytical
 * cache is used: its memo is keyed on the cluster's address, which stays the same
 * while the values under it change. */
#include <math.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "parallax/plx-analytic.h"
#include "parallax/plx-error.h"
#include "calibrate/plx-sobol.h"
#include "calibrate/plx-uncertainty.h"

#define MAX_SAMPLES 10000000u
/* The relative step of the central differences: small enough that the curves are
 * locally smooth across it, large enough that a byte count rounds to a change. */
#define REL_STEP 0.01

static gboolean
check_samples (guint samples, GError **error)
{
  if (samples == 0 || samples > MAX_SAMPLES)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "samples: %u is not between 1 and %u", samples,
                   MAX_SAMPLES);
      return FALSE;
    }
  return TRUE;
}

static guint
n_uncertain (const PlxCluster *cluster)
{
  return cluster->uncertain != NULL ? cluster->uncertain->len : 0;
}

static void
set_draw (PlxCluster *draw, const PlxCluster *cluster, const double *u)
{
  for (guint i = 0; i < n_uncertain (cluster); i++)
    {
      const PlxUncertainInput *in = g_ptr_array_index (cluster->uncertain, i);
      plx_cluster_input_set (draw, in->input, plx_uncertain_input_quantile (in, u[i]));
    }
}

gboolean
plx_uncertainty_sample (const PlxModel       *model,
                        const PlxCluster     *cluster,
                        const PlxStrategy    *strategy,
                        guint                 samples,
                        guint64               seed,
                        PlxUncertaintyResult *result,
                        GError              **error)
{
  g_autoptr (PlxCluster) draw = NULL;
  g_autofree double *step = NULL, *mfu = NULL, *u = NULL;
  gsl_rng *rng;
  PlxReport report;
  guint k = n_uncertain (cluster), oom = 0;
  gboolean ok = TRUE;

  if (!check_samples (samples, error) || !plx_analytic_run (model, cluster, strategy, &report, error))
    return FALSE;
  draw = plx_cluster_copy (cluster);
  step = g_new (double, samples);
  mfu = g_new (double, samples);
  u = g_new (double, MAX (k, 1));
  rng = gsl_rng_alloc (gsl_rng_mt19937);
  gsl_rng_set (rng, (unsigned long) seed);
  for (guint j = 0; j < samples && ok; j++)
    {
      for (guint i = 0; i < k; i++)
        u[i] = gsl_rng_uniform_pos (rng);
      set_draw (draw, cluster, u);
      ok = plx_analytic_run (model, draw, strategy, &report, error);
      step[j] = report.step_time_s;
      mfu[j] = report.mfu;
      oom += report.fits_in_memory ? 0 : 1;
    }
  gsl_rng_free (rng);
  if (!ok)
    return FALSE;

  result->samples = samples;
  result->seed = seed;
  result->n_uncertain = k;
  result->step_mean_s = gsl_stats_mean (step, 1, samples);
  result->step_sd_s = samples > 1 ? gsl_stats_sd_m (step, 1, samples, result->step_mean_s) : 0.0;
  gsl_sort (step, 1, samples);
  gsl_sort (mfu, 1, samples);
  /* GSL's quantile interpolates between order statistics (type 7 of Hyndman and Fan
   * 1996, "Sample quantiles in statistical packages", Am. Stat. 50(4)). */
  result->step_p5_s = gsl_stats_quantile_from_sorted_data (step, 1, samples, 0.05);
  result->step_p50_s = gsl_stats_quantile_from_sorted_data (step, 1, samples, 0.50);
  result->step_p95_s = gsl_stats_quantile_from_sorted_data (step, 1, samples, 0.95);
  result->mfu_p5 = gsl_stats_quantile_from_sorted_data (mfu, 1, samples, 0.05);
  result->mfu_p50 = gsl_stats_quantile_from_sorted_data (mfu, 1, samples, 0.50);
  result->mfu_p95 = gsl_stats_quantile_from_sorted_data (mfu, 1, samples, 0.95);
  result->oom_probability = (double) oom / samples;
  return TRUE;
}

typedef struct
{
  const PlxModel    *model;
  const PlxCluster  *cluster;
  const PlxStrategy *strategy;
  PlxCluster        *draw;
} SobolData;

double
plx_report_hbm_use (const PlxReport *report)
{
  return (double) report->peak_memory_bytes / (double) MAX (report->hbm_usable_bytes, 1);
}

enum { OUT_STEP, OUT_HBM_USE, N_OUTPUTS };

static void
sobol_outputs (const double *u, double *y, gpointer data)
{
  SobolData *d = data;
  PlxReport report;

  set_draw (d->draw, d->cluster, u);
  /* The nominal run succeeded; a draw inside the admitted ranges runs the same code. */
  plx_analytic_run_cached (d->model, d->draw, d->strategy, NULL, &report, NULL);
  y[OUT_STEP] = report.step_time_s;
  y[OUT_HBM_USE] = plx_report_hbm_use (&report);
}

static gint
by_step_elasticity (gconstpointer pa, gconstpointer pb)
{
  const PlxSensitivity *a = pa, *b = pb;
  double ea = fabs (a->step_elasticity), eb = fabs (b->step_elasticity);

  if (ea != eb)
    return ea < eb ? 1 : -1;
  return a->input < b->input ? -1 : a->input > b->input;
}

GArray *
plx_sensitivity_run (const PlxModel    *model,
                     const PlxCluster  *cluster,
                     const PlxStrategy *strategy,
                     guint              samples,
                     guint64            seed,
                     GError           **error)
{
  g_autoptr (PlxCluster) work = NULL;
  g_autoptr (GArray) out = g_array_new (FALSE, TRUE, sizeof (PlxSensitivity));
  PlxReport report;
  const double dlnx = log1p (REL_STEP) - log1p (-REL_STEP);
  guint k = n_uncertain (cluster);

  if (!plx_analytic_run (model, cluster, strategy, &report, error))
    return NULL;
  work = plx_cluster_copy (cluster);
  for (guint i = 0; i < plx_cluster_input_count (); i++)
    {
      PlxSensitivity s = { 0 };
      double x = plx_cluster_input_get (cluster, i), step[2], mem[2], use[2];
      gboolean uncertain = FALSE;

      for (guint j = 0; j < k; j++)
        uncertain |= ((const PlxUncertainInput *) g_ptr_array_index (cluster->uncertain, j))->input == i;
      if (x == 0.0 && !uncertain)
        continue;
      for (guint side = 0; side < 2; side++)
        {
          plx_cluster_input_set (work, i, x * (side == 0 ? 1.0 - REL_STEP : 1.0 + REL_STEP));
          if (!plx_analytic_run (model, work, strategy, &report, error))
            return NULL;
          step[side] = report.step_time_s;
          mem[side] = (double) report.peak_memory_bytes;
          use[side] = plx_report_hbm_use (&report);
        }
      plx_cluster_input_set (work, i, x);
      s.input = i;
      s.value = x;
      s.step_low_s = step[0];
      s.step_high_s = step[1];
      /* d ln y / d ln x by central differences in ln x; at x = 0 it is x y'/y = 0. */
      s.step_elasticity = x == 0.0 ? 0.0 : (log (step[1]) - log (step[0])) / dlnx;
      s.memory_elasticity = x == 0.0 || mem[0] <= 0.0 ? 0.0 : (log (mem[1]) - log (mem[0])) / dlnx;
      s.hbm_use_low = use[0];
      s.hbm_use_high = use[1];
      s.hbm_use_elasticity = x == 0.0 || use[0] <= 0.0 ? 0.0 : (log (use[1]) - log (use[0])) / dlnx;
      s.sobol_first = s.sobol_total = NAN;
      s.sobol_first_hbm_use = s.sobol_total_hbm_use = NAN;
      g_array_append_val (out, s);
    }

  if (k > 0 && samples > 0)
    {
      SobolData d = { model, cluster, strategy, work };
      g_autofree double *first = g_new (double, (gsize) N_OUTPUTS * k), *total = g_new (double, (gsize) N_OUTPUTS * k);

      plx_sobol_indices (k, N_OUTPUTS, samples, seed, sobol_outputs, &d, first, total);
      for (guint j = 0; j < k; j++)
        {
          const PlxUncertainInput *in = g_ptr_array_index (cluster->uncertain, j);
          for (guint e = 0; e < out->len; e++)
            if (g_array_index (out, PlxSensitivity, e).input == in->input)
              {
                PlxSensitivity *s = &g_array_index (out, PlxSensitivity, e);
                s->sobol_first = first[OUT_STEP * k + j];
                s->sobol_total = total[OUT_STEP * k + j];
                s->sobol_first_hbm_use = first[OUT_HBM_USE * k + j];
                s->sobol_total_hbm_use = total[OUT_HBM_USE * k + j];
              }
        }
    }
  g_array_sort (out, by_step_elasticity);
  return g_steal_pointer (&out);
}
