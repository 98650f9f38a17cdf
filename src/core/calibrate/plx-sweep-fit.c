/* Efficiency curves from sweeps. Many GEMM shapes share a FLOP count and run at
 * different speeds (tile and wave quantisation); the cluster's curve is a function
 * of FLOPs alone, so the rows are reduced to the saturating curve
 * eff(x) = e_max · x / (x + x_half) - Hockney's r_inf, n_1/2 model (Hockney and
 * Jesshope 1988, "Parallel Computers 2" §1.3.3): a kernel costs a fixed time plus
 * its work at the sustained rate. It is monotone by construction, its two
 * parameters mean something (the large-size ceiling, the size at half of it) and
 * have standard errors, and below the sweep it extrapolates as a fixed cost rather
 * than holding the smallest row's value. The fit minimises squared log residuals
 * (a row 10 % fast and one 10 % slow weigh alike, small kernels as much as large)
 * with gsl_multifit_nlinear (trust region, Levenberg-Marquardt), the parameters
 * as logs (positive). */
#include <math.h>

#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit_nlinear.h>

#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "calibrate/plx-sweep-fit.h"
#include "base/plx-minmax.h"

typedef struct
{
  const double *x, *eff;
  gsize         n;
} FitData;

/* r_i = ln(e_max · x_i / (x_i + x_half)) - ln(eff_i), p = (ln e_max, ln x_half). */
static int
residuals (const gsl_vector *p, void *data, gsl_vector *f)
{
  const FitData *d = data;
  double e_max = exp (gsl_vector_get (p, 0)), x_half = exp (gsl_vector_get (p, 1));

  for (gsize i = 0; i < d->n; i++)
    gsl_vector_set (f, i, log (e_max * d->x[i] / (d->x[i] + x_half)) - log (d->eff[i]));
  return GSL_SUCCESS;
}

static int
jacobian (const gsl_vector *p, void *data, gsl_matrix *J)
{
  const FitData *d = data;
  double x_half = exp (gsl_vector_get (p, 1));

  for (gsize i = 0; i < d->n; i++)
    {
      gsl_matrix_set (J, i, 0, 1.0);
      gsl_matrix_set (J, i, 1, -x_half / (d->x[i] + x_half));
    }
  return GSL_SUCCESS;
}

/* A start from the linear form 1/eff = 1/e_max + (x_half/e_max) · (1/x); the
 * largest efficiency and the middle size if that gives no positive parameters. */
static void
initial_guess (const FitData *d, double *e_max, double *x_half)
{
  g_autofree double *u = g_new (double, d->n);
  g_autofree double *v = g_new (double, d->n);
  double c0, c1, cov00, cov01, cov11, sumsq, log_mid = 0.0;

  *e_max = 0.0;
  for (gsize i = 0; i < d->n; i++)
    {
      u[i] = 1.0 / d->x[i];
      v[i] = 1.0 / d->eff[i];
      *e_max = MAX (*e_max, d->eff[i]);
      log_mid += log (d->x[i]) / d->n;
    }
  if (gsl_fit_linear (u, 1, v, 1, d->n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq) == GSL_SUCCESS && c0 > 0.0 &&
      c1 > 0.0)
    {
      *e_max = 1.0 / c0;
      *x_half = c1 / c0;
    }
  else
    *x_half = exp (log_mid);
}

static void
sample_curve (PlxSweepFit *fit)
{
  double lo = INFINITY, hi = 0.0;
  int d0, d1;

  for (guint i = 0; i < fit->x->len; i++)
    {
      lo = MIN (lo, g_array_index (fit->x, double, i));
      hi = MAX (hi, g_array_index (fit->x, double, i));
    }
  /* From a decade below the sweep (the fixed cost extrapolated) to the decade
   * above it, at 1 and 3 of each decade as the built-in presets' curves are. */
  d0 = (int) floor (log10 (lo)) - 1;
  d1 = (int) ceil (log10 (hi));
  for (int d = d0; d <= d1; d++)
    for (int j = 0; j < 2; j++)
      {
        double x = (j == 0 ? 1.0 : 3.0) * pow (10.0, d);
        double y = plx_min (plx_sweep_fit_eval (fit, x), 1.0);
        if (d == d1 && j == 1)
          break;
        g_array_append_val (fit->curve_x, x);
        g_array_append_val (fit->curve_y, y);
      }
}

static PlxSweepFit *
fit_new (const char *name)
{
  PlxSweepFit *fit = g_new0 (PlxSweepFit, 1);

  fit->name = g_strdup (name);
  fit->x = g_array_new (FALSE, FALSE, sizeof (double));
  fit->measured = g_array_new (FALSE, FALSE, sizeof (double));
  fit->fitted = g_array_new (FALSE, FALSE, sizeof (double));
  fit->lines = g_array_new (FALSE, FALSE, sizeof (guint));
  fit->curve_x = g_array_new (FALSE, FALSE, sizeof (double));
  fit->curve_y = g_array_new (FALSE, FALSE, sizeof (double));
  return fit;
}

PlxSweepFit *
plx_sweep_fit_efficiency (const double *x,
                          const double *eff,
                          const guint  *lines,
                          gsize         n,
                          const char   *name,
                          GError      **error)
{
  g_autoptr (PlxSweepFit) fit = fit_new (name);
  FitData d = { x, eff, n };
  gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters ();
  gsl_multifit_nlinear_fdf fdf = { 0 };
  gsl_multifit_nlinear_workspace *w;
  gsl_matrix *covar;
  gsl_vector *p0;
  double e_max, x_half, chi2 = 0.0, sum_sq = 0.0;
  g_autoptr (GHashTable) sizes = g_hash_table_new (g_double_hash, g_double_equal);
  int status, info;

  for (gsize i = 0; i < n; i++)
    {
      if (!(isfinite (x[i]) && x[i] > 0.0 && isfinite (eff[i]) && eff[i] > 0.0))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: row %zu: size %g and efficiency %g must be positive",
                       name, i + 1, x[i], eff[i]);
          return NULL;
        }
      g_hash_table_add (sizes, (gpointer) &x[i]);
    }
  if (g_hash_table_size (sizes) < 2)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%s: %zu rows at %u distinct sizes; the fit needs at least 2 distinct sizes", name, n,
                   g_hash_table_size (sizes));
      return NULL;
    }

  initial_guess (&d, &e_max, &x_half);
  fdf.f = residuals;
  fdf.df = jacobian;
  fdf.n = n;
  fdf.p = 2;
  fdf.params = &d;
  p0 = gsl_vector_alloc (2);
  gsl_vector_set (p0, 0, log (e_max));
  gsl_vector_set (p0, 1, log (x_half));
  w = gsl_multifit_nlinear_alloc (gsl_multifit_nlinear_trust, &params, n, 2);
  gsl_multifit_nlinear_init (p0, &fdf, w);
  status = gsl_multifit_nlinear_driver (200, 1e-10, 1e-10, 0.0, NULL, NULL, &info, w);
  covar = gsl_matrix_alloc (2, 2);
  gsl_multifit_nlinear_covar (gsl_multifit_nlinear_jac (w), 0.0, covar);
  fit->e_max = exp (gsl_vector_get (gsl_multifit_nlinear_position (w), 0));
  fit->x_half = exp (gsl_vector_get (gsl_multifit_nlinear_position (w), 1));
  for (gsize i = 0; i < n; i++)
    chi2 += pow (gsl_vector_get (gsl_multifit_nlinear_residual (w), i), 2);
  /* Standard errors: the covariance at the optimum scaled by chi^2/dof, through
   * the logs to the parameters (delta method). Two sizes leave no dof. */
  if (n > 2)
    {
      double s = sqrt (chi2 / (double) (n - 2));
      fit->e_max_se = fit->e_max * s * sqrt (gsl_matrix_get (covar, 0, 0));
      fit->x_half_se = fit->x_half * s * sqrt (gsl_matrix_get (covar, 1, 1));
    }
  else
    fit->e_max_se = fit->x_half_se = NAN;
  gsl_matrix_free (covar);
  gsl_vector_free (p0);
  gsl_multifit_nlinear_free (w);
  if ((status != GSL_SUCCESS && status != GSL_EMAXITER) || !isfinite (fit->e_max) || !isfinite (fit->x_half))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: the fit did not converge (%s)", name,
                   gsl_strerror (status));
      return NULL;
    }

  for (gsize i = 0; i < n; i++)
    {
      double fitted = plx_sweep_fit_eval (fit, x[i]);
      double rel = eff[i] / fitted - 1.0;
      guint line = lines != NULL ? lines[i] : (guint) i + 1;

      g_array_append_val (fit->x, x[i]);
      g_array_append_val (fit->measured, eff[i]);
      g_array_append_val (fit->fitted, fitted);
      g_array_append_val (fit->lines, line);
      sum_sq += rel * rel;
      if (fabs (rel) * 100.0 > fit->max_residual_pct)
        {
          fit->max_residual_pct = fabs (rel) * 100.0;
          fit->max_residual_line = line;
        }
    }
  fit->rms_residual_pct = 100.0 * sqrt (sum_sq / n);
  sample_curve (fit);
  return g_steal_pointer (&fit);
}

double
plx_sweep_fit_eval (const PlxSweepFit *fit,
                    double             x)
{
  return fit->e_max * x / (x + fit->x_half);
}

void
plx_sweep_fit_free (PlxSweepFit *fit)
{
  if (fit == NULL)
    return;
  g_free (fit->name);
  g_array_unref (fit->x);
  g_array_unref (fit->measured);
  g_array_unref (fit->fitted);
  g_array_unref (fit->lines);
  g_array_unref (fit->curve_x);
  g_array_unref (fit->curve_y);
  g_free (fit);
}

GPtrArray *
plx_gemm_sweep_fit (const PlxGemmSweep *sweep,
                    const PlxCluster   *cluster,
                    GError            **error)
{
  g_autoptr (GPtrArray) fits = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_sweep_fit_free);
  gboolean have_bf16 = FALSE;

  for (guint dt = 0; dt < PLX_N_DTYPES; dt++)
    {
      g_autoptr (GArray) x = g_array_new (FALSE, FALSE, sizeof (double));
      g_autoptr (GArray) eff = g_array_new (FALSE, FALSE, sizeof (double));
      g_autoptr (GArray) lines = g_array_new (FALSE, FALSE, sizeof (guint));
      const char *name = plx_dtype_to_string ((PlxDtype) dt);
      double peak = cluster->peak_flops[dt];
      PlxSweepFit *fit;

      for (guint i = 0; i < sweep->rows->len; i++)
        {
          const PlxGemmRow *row = &g_array_index (sweep->rows, PlxGemmRow, i);
          double flops = plx_gemm_row_flops (row), e;

          if (row->dtype != (PlxDtype) dt)
            continue;
          if (peak <= 0.0)
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                           "%s:%u: a %s GEMM, but the cluster's GPU %s has no %s peak_flops", sweep->source, row->line,
                           name, cluster->gpu_name, name);
              return NULL;
            }
          e = flops / (row->time_s * peak);
          if (e > 1.0)
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                           "%s:%u: %.4g TFLOP/s is %.3g times the %s peak of %s (%.4g TFLOP/s): %s",
                           sweep->source, row->line, flops / row->time_s / 1e12, e, name, cluster->gpu_name,
                           peak / 1e12,
                           dt == PLX_DTYPE_FP32 ? "is the dtype right (an fp32 GEMM on tensor cores is tf32)?"
                                                : "was the sweep run on this GPU? Calibrate the cluster it ran on.");
              return NULL;
            }
          g_array_append_val (x, flops);
          g_array_append_val (eff, e);
          g_array_append_val (lines, row->line);
        }
      if (x->len == 0)
        continue;
      {
        g_autofree char *what = g_strdup_printf ("%s: %s GEMMs", sweep->source, name);
        fit = plx_sweep_fit_efficiency ((double *) (void *) x->data, (double *) (void *) eff->data, (guint *) (void *) lines->data, x->len, what,
                                        error);
      }
      if (fit == NULL)
        return NULL;
      g_free (fit->name);
      fit->name = g_strdup (name);
      if (dt == PLX_DTYPE_BF16)
        {
          fit->key = "matmul";
          have_bf16 = TRUE;
        }
      else if (dt == PLX_DTYPE_FP16 && !have_bf16)
        fit->key = "matmul";
      else if (dt == PLX_DTYPE_FP8)
        fit->key = "matmul_fp8";
      else if (dt == PLX_DTYPE_TF32)
        fit->key = "matmul_tf32";
      else if (dt == PLX_DTYPE_FP32)
        fit->key = "matmul_fp32";
      g_ptr_array_add (fits, fit);
    }
  return g_steal_pointer (&fits);
}

PlxSweepFit *
plx_membw_sweep_fit (const PlxMembwSweep *sweep,
                     const PlxCluster    *cluster,
                     GError             **error)
{
  g_autoptr (GArray) x = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) eff = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) lines = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree char *what = g_strdup_printf ("%s: memory", sweep->source);
  PlxSweepFit *fit;
  guint left_out = 0;
  double cached_bytes = 0.0;

  /* A row faster than HBM can go kept its working set in the L2 cache, and so did
   * every smaller one, however fast it looks: the cluster's curve is HBM traffic. */
  for (guint i = 0; i < sweep->rows->len; i++)
    {
      const PlxMembwRow *row = &g_array_index (sweep->rows, PlxMembwRow, i);
      if (row->bytes / (row->time_s * cluster->hbm_bw_Bps) > 1.0)
        cached_bytes = MAX (cached_bytes, row->bytes);
    }
  for (guint i = 0; i < sweep->rows->len; i++)
    {
      const PlxMembwRow *row = &g_array_index (sweep->rows, PlxMembwRow, i);
      double e = row->bytes / (row->time_s * cluster->hbm_bw_Bps);

      if (row->bytes <= cached_bytes)
        {
          left_out++;
          continue;
        }
      g_array_append_val (x, row->bytes);
      g_array_append_val (eff, e);
      g_array_append_val (lines, row->line);
    }
  fit = plx_sweep_fit_efficiency ((double *) (void *) x->data, (double *) (void *) eff->data, (guint *) (void *) lines->data, x->len, what, error);
  if (fit == NULL)
    return NULL;
  g_free (fit->name);
  fit->name = g_strdup ("memory");
  fit->key = "memory";
  fit->n_left_out = left_out;
  return fit;
}

static JsonObject *
member_object (JsonObject *o,
               const char *name)
{
  if (!json_object_has_member (o, name) || !JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, name)))
    json_object_set_object_member (o, name, json_object_new ());
  return json_object_get_object_member (o, name);
}

void
plx_sweep_fit_apply (JsonNode          *cluster,
                     const PlxSweepFit *fit,
                     const char        *what)
{
  JsonObject *root = json_node_get_object (cluster);
  JsonObject *efficiency;
  JsonArray *curve;
  g_autofree char *source_key = NULL;
  g_autofree char *note = NULL;

  if (fit->key == NULL)
    return;
  efficiency = member_object (member_object (root, "gpu"), "efficiency");
  curve = json_array_new ();
  source_key = g_strdup_printf ("%s_efficiency", fit->key);
  for (guint i = 0; i < fit->curve_x->len; i++)
    {
      JsonArray *point = json_array_new ();
      json_array_add_double_element (point, g_array_index (fit->curve_x, double, i));
      json_array_add_double_element (point, g_array_index (fit->curve_y, double, i));
      json_array_add_array_element (curve, point);
    }
  json_object_set_array_member (efficiency, fit->key, curve);
  /* A measured curve is what the kernels reach: a calibration scale fitted against
   * the preset's curves (to published runs) would scale it a second time. Reset as
   * calibrate --nccl-tests resets network_scale. matmul_scale also scales an fp8
   * curve, so a bf16 sweep alone leaves an unmeasured fp8 curve unscaled. */
  if (g_str_equal (fit->key, "matmul") || g_str_equal (fit->key, "memory"))
    {
      JsonNode *cal = json_object_get_member (root, "calibration");
      g_autofree char *scale = g_strdup_printf ("%s_scale", fit->key);

      if (cal != NULL && JSON_NODE_HOLDS_OBJECT (cal) && json_object_has_member (json_node_get_object (cal), scale))
        json_object_set_double_member (json_node_get_object (cal), scale, 1.0);
    }
  note = g_strdup_printf ("parallax-cli calibrate: %s, %u rows (%s), fitted e_max %.4f, half at %.3g; rms residual "
                          "%.1f %%",
                          what, fit->x->len, fit->name, fit->e_max, fit->x_half, fit->rms_residual_pct);
  json_object_set_string_member (member_object (root, "sources"), source_key, note);
}

char *
plx_sweep_fit_to_text (const PlxSweepFit *fit,
                       const char        *unit)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "%s: %u rows%s", fit->name, fit->x->len, fit->key != NULL ? " -> gpu.efficiency." : "");
  if (fit->key != NULL)
    g_string_append (out, fit->key);
  else
    g_string_append (out, " (reported only: fp16 runs on the bf16 curve, measured here too)");
  if (fit->n_left_out > 0)
    g_string_append_printf (out, "; %u rows left out (in cache: no larger than a row faster than HBM)", fit->n_left_out);
  g_string_append_printf (out, "\n  eff(x) = e_max x / (x + x_half): e_max %.4f", fit->e_max);
  if (isfinite (fit->e_max_se))
    g_string_append_printf (out, " +- %.4f", fit->e_max_se);
  g_string_append_printf (out, ", x_half %.4g", fit->x_half);
  if (isfinite (fit->x_half_se))
    g_string_append_printf (out, " +- %.2g", fit->x_half_se);
  g_string_append_printf (out, " %s\n  residuals (measured / fitted - 1): rms %.1f %%, largest %.1f %% (line %u)\n",
                          unit, fit->rms_residual_pct, fit->max_residual_pct, fit->max_residual_line);
  g_string_append_printf (out, "  %12s  %10s\n", unit, "efficiency");
  for (guint i = 0; i < fit->curve_x->len; i++)
    g_string_append_printf (out, "  %12.3g  %10.4f\n", g_array_index (fit->curve_x, double, i),
                            g_array_index (fit->curve_y, double, i));
  return g_string_free (out, FALSE);
}

JsonNode *
plx_sweep_fit_to_json (const PlxSweepFit *fit)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, fit->name);
  json_builder_set_member_name (b, "key");
  if (fit->key != NULL)
    json_builder_add_string_value (b, fit->key);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "rows");
  json_builder_add_int_value (b, fit->x->len);
  json_builder_set_member_name (b, "rows_left_out");
  json_builder_add_int_value (b, fit->n_left_out);
  json_builder_set_member_name (b, "e_max");
  json_builder_add_double_value (b, fit->e_max);
  json_builder_set_member_name (b, "x_half");
  json_builder_add_double_value (b, fit->x_half);
  if (isfinite (fit->e_max_se))
    {
      json_builder_set_member_name (b, "e_max_std_error");
      json_builder_add_double_value (b, fit->e_max_se);
      json_builder_set_member_name (b, "x_half_std_error");
      json_builder_add_double_value (b, fit->x_half_se);
    }
  json_builder_set_member_name (b, "rms_residual_pct");
  json_builder_add_double_value (b, fit->rms_residual_pct);
  json_builder_set_member_name (b, "max_residual_pct");
  json_builder_add_double_value (b, fit->max_residual_pct);
  json_builder_set_member_name (b, "curve");
  json_builder_begin_array (b);
  for (guint i = 0; i < fit->curve_x->len; i++)
    {
      json_builder_begin_array (b);
      json_builder_add_double_value (b, g_array_index (fit->curve_x, double, i));
      json_builder_add_double_value (b, g_array_index (fit->curve_y, double, i));
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "points");
  json_builder_begin_array (b);
  for (guint i = 0; i < fit->x->len; i++)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "line");
      json_builder_add_int_value (b, g_array_index (fit->lines, guint, i));
      json_builder_set_member_name (b, "x");
      json_builder_add_double_value (b, g_array_index (fit->x, double, i));
      json_builder_set_member_name (b, "measured");
      json_builder_add_double_value (b, g_array_index (fit->measured, double, i));
      json_builder_set_member_name (b, "fitted");
      json_builder_add_double_value (b, g_array_index (fit->fitted, double, i));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* e_max's standard error as a distribution (calibrate --with-uncertainty;
 * docs/calibration.md "The fits' own uncertainty"): e_max scales the whole saturating
 * curve e_max x / (x + x_half), so its relative standard error is a scale on the
 * curve, which matmul_scale and memory_scale are (x_half's error matters only below
 * the knee and is not carried). The mean is the scale already in the file, so a
 * nominal run is unchanged. */
gboolean
plx_sweep_fit_apply_uncertainty (JsonNode          *cluster,
                                 const PlxSweepFit *fit)
{
  const char *scale;
  JsonObject *cal;
  JsonNode *node;
  double mean = 1.0;

  if (fit->key == NULL || !(isfinite (fit->e_max_se) && fit->e_max_se > 0.0 && fit->e_max > 0.0))
    return FALSE;
  if (g_str_equal (fit->key, "matmul"))
    scale = "matmul_scale";
  else if (g_str_equal (fit->key, "memory"))
    scale = "memory_scale";
  else
    return FALSE;
  cal = plx_json_object_member_made (json_node_get_object (cluster), "calibration");
  /* Around the scale already there (a fit to published runs may have set one),
   * so the nominal cluster is the one written without the flag. */
  node = json_object_get_member (cal, scale);
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) != G_TYPE_STRING &&
      json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    mean = json_node_get_double (node);
  plx_json_set_normal (cal, scale, mean, mean * fit->e_max_se / fit->e_max);
  return TRUE;
}

GPtrArray *
plx_sweep_calibrate (JsonNode            *cluster_json,
                     const char          *name,
                     const PlxGemmSweep  *gemm,
                     const PlxMembwSweep *membw,
                     gboolean             with_uncertainty,
                     GError             **error)
{
  g_autoptr (GPtrArray) fits = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_sweep_fit_free);
  g_autoptr (PlxCluster) cluster = plx_cluster_new_from_json (cluster_json, name, error);
  g_autoptr (PlxCluster) written = NULL;

  if (cluster == NULL)
    return NULL;
  if (gemm != NULL)
    {
      GPtrArray *g = plx_gemm_sweep_fit (gemm, cluster, error);
      if (g == NULL)
        return NULL;
      g_ptr_array_extend_and_steal (fits, g);
    }
  if (membw != NULL)
    {
      PlxSweepFit *m = plx_membw_sweep_fit (membw, cluster, error);
      if (m == NULL)
        return NULL;
      g_ptr_array_add (fits, m);
    }
  for (guint i = 0; i < fits->len; i++)
    {
      const PlxSweepFit *f = fits->pdata[i];
      plx_sweep_fit_apply (cluster_json, f, g_str_equal (f->name, "memory") ? membw->source : gemm->source);
      if (with_uncertainty)
        plx_sweep_fit_apply_uncertainty (cluster_json, f);
    }
  /* What is written must load: the same checks every command makes. */
  written = plx_cluster_new_from_json (cluster_json, name, error);
  if (written == NULL)
    return NULL;
  return g_steal_pointer (&fits);
}
