/* Sampling and sensitivity for simulate: the options, the runs, and their output as
 * text, JSON and a tornado chart. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "parallax/plx-error.h"
#include "plx-cli-uncertainty.h"
#include "plx-render-export.h"
#include "plx-sensitivity-chart.h"

/* Sobol indices for --sensitivity without --samples: 1024 base rows, (k + 2) runs
 * each - about 50 ms for four uncertain inputs. */
#define DEFAULT_SOBOL_SAMPLES 1024u

static gboolean
parse_count (const char *option, const char *text, guint64 max, guint64 *out, GError **error)
{
  char *end = NULL;
  guint64 v;

  errno = 0;
  v = g_ascii_strtoull (text, &end, 10);
  if (text[0] == '\0' || text[0] == '-' || *end != '\0' || errno != 0 || v > max)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: \"%s\" is not a whole number from 0 to %"
                   G_GUINT64_FORMAT, option, text, max);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

void
plx_cli_uncertainty_init (PlxCliUncertainty *uq)
{
  *uq = (PlxCliUncertainty) { 0 };
  uq->seed = PLX_UNCERTAINTY_DEFAULT_SEED;
}

gboolean
plx_cli_uncertainty_set_option (PlxCliUncertainty *uq,
                                const char        *flag,
                                const char        *value,
                                GError           **error)
{
  guint64 v;

  if (g_str_equal (flag, "--sensitivity"))
    {
      uq->sensitivity = TRUE;
      return TRUE;
    }
  if (g_str_equal (flag, "--tornado"))
    {
      PlxExportFormat format;
      if (!plx_export_format_for_path (value, &format, error))
        return FALSE;
      uq->tornado = value;
      uq->sensitivity = TRUE;
      return TRUE;
    }
  if (g_str_equal (flag, "--tornado-of"))
    {
      if (!plx_sensitivity_output_from_name (value, &uq->tornado_of))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "--tornado-of: \"%s\" is neither step nor memory", value);
          return FALSE;
        }
      uq->sensitivity = TRUE;
      return TRUE;
    }
  if (!parse_count (flag, value, g_str_equal (flag, "--seed") ? G_MAXUINT32 : 10000000, &v, error))
    return FALSE;
  if (g_str_equal (flag, "--samples"))
    {
      if (v == 0)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "--samples: 0 draws; give 1 to 10000000");
          return FALSE;
        }
      uq->samples = (guint) v;
    }
  else
    uq->seed = v;
  return TRUE;
}

gboolean
plx_cli_uncertainty_wanted (const PlxCliUncertainty *uq)
{
  return uq->samples > 0 || uq->sensitivity;
}

static void
draw_tornado (cairo_t *cr, double width, double height, gpointer data)
{
  const PlxTornadoLayout *layout = ((gpointer *) data)[0];
  const PlxRenderStyle *style = ((gpointer *) data)[1];

  plx_tornado_chart_render (layout, style, cr, width, height);
}

static gboolean
export_tornado (const PlxCliUncertainty *uq, const PlxScenario *sc, GError **error)
{
  g_autoptr (PlxTornadoLayout) layout = NULL;
  PlxRenderStyle style;
  gpointer data[2];
  PlxReport report;

  if (!plx_analytic_run (sc->model, sc->cluster, sc->strategy, &report, error))
    return FALSE;
  layout = plx_sensitivity_chart_layout (uq->sensitivities, &report, uq->tornado_of, sc->name, 16);
  plx_render_style_init (&style, FALSE, 1.0);
  data[0] = layout;
  data[1] = &style;
  return plx_render_export (uq->tornado, 1100, 120 + 34 * MAX (layout->rows->len, 1u), 1.0, &style, draw_tornado,
                            data, error);
}

gboolean
plx_cli_uncertainty_run (PlxCliUncertainty *uq,
                         const PlxScenario *sc,
                         GError           **error)
{
  if (uq->samples > 0 &&
      !plx_uncertainty_sample (sc->model, sc->cluster, sc->strategy, uq->samples, uq->seed, &uq->result, error))
    return FALSE;
  if (uq->sensitivity)
    {
      uq->sensitivities = plx_sensitivity_run (sc->model, sc->cluster, sc->strategy,
                                               uq->samples > 0 ? uq->samples : DEFAULT_SOBOL_SAMPLES, uq->seed,
                                               error);
      if (uq->sensitivities == NULL)
        return FALSE;
      if (uq->tornado != NULL && !export_tornado (uq, sc, error))
        return FALSE;
    }
  return TRUE;
}

static JsonObject *
quantiles (double p5, double p50, double p95)
{
  JsonObject *o = json_object_new ();
  json_object_set_double_member (o, "p5", p5);
  json_object_set_double_member (o, "p50", p50);
  json_object_set_double_member (o, "p95", p95);
  return o;
}

void
plx_cli_uncertainty_add_json (const PlxCliUncertainty *uq,
                              const PlxScenario       *sc,
                              JsonObject              *out)
{
  const PlxUncertaintyResult *r = &uq->result;
  guint n = sc->cluster->uncertain != NULL ? sc->cluster->uncertain->len : 0;

  if (uq->samples > 0)
    {
      json_object_set_int_member (out, "samples", r->samples);
      json_object_set_int_member (out, "seed", (gint64) r->seed);
      json_object_set_int_member (out, "uncertain_inputs", n);
      json_object_set_object_member (out, "step_time_quantiles_s", quantiles (r->step_p5_s, r->step_p50_s, r->step_p95_s));
      json_object_set_double_member (out, "step_time_mean_s", r->step_mean_s);
      json_object_set_double_member (out, "step_time_sd_s", r->step_sd_s);
      json_object_set_object_member (out, "mfu_quantiles", quantiles (r->mfu_p5, r->mfu_p50, r->mfu_p95));
      json_object_set_double_member (out, "oom_probability", r->oom_probability);
    }
  if (uq->sensitivities != NULL)
    {
      JsonArray *a = json_array_new ();
      for (guint i = 0; i < uq->sensitivities->len; i++)
        {
          const PlxSensitivity *e = &g_array_index (uq->sensitivities, PlxSensitivity, i);
          JsonObject *o = json_object_new ();
          json_object_set_string_member (o, "input", plx_cluster_input_path (e->input));
          json_object_set_double_member (o, "value", e->value);
          json_object_set_double_member (o, "step_time_elasticity", e->step_elasticity);
          json_object_set_double_member (o, "peak_memory_elasticity", e->memory_elasticity);
          json_object_set_double_member (o, "hbm_use_elasticity", e->hbm_use_elasticity);
          if (isfinite (e->sobol_first))
            {
              json_object_set_double_member (o, "sobol_first_order", e->sobol_first);
              json_object_set_double_member (o, "sobol_total", e->sobol_total);
              json_object_set_double_member (o, "sobol_first_order_hbm_use", e->sobol_first_hbm_use);
              json_object_set_double_member (o, "sobol_total_hbm_use", e->sobol_total_hbm_use);
            }
          json_array_add_object_element (a, o);
        }
      json_object_set_array_member (out, "sensitivity", a);
    }
}

void
plx_cli_uncertainty_print (const PlxCliUncertainty *uq,
                           const PlxScenario       *sc)
{
  const PlxUncertaintyResult *r = &uq->result;

  if (uq->samples > 0)
    {
      printf ("\nUncertainty (analytical engine, %u draws, seed %" G_GUINT64_FORMAT ")\n", r->samples, r->seed);
      if (r->n_uncertain == 0)
        printf ("  no input of the cluster is a range or distribution: every draw is the same\n");
      printf ("  step time p5 / p50 / p95   %.4f / %.4f / %.4f s  (mean %.4f s, sd %.4f s)\n", r->step_p5_s,
              r->step_p50_s, r->step_p95_s, r->step_mean_s, r->step_sd_s);
      printf ("  MFU p5 / p50 / p95         %.1f / %.1f / %.1f %%\n", 100.0 * r->mfu_p5, 100.0 * r->mfu_p50,
              100.0 * r->mfu_p95);
      printf ("  out-of-memory probability  %.4f\n", r->oom_probability);
    }
  if (uq->sensitivities != NULL)
    {
      printf ("\nSensitivity (analytical engine; elasticity = %% change of the output per 1 %% of the input;\n"
              "HBM use = peak memory over usable HBM; Sobol indices of the step, then of HBM use)\n");
      printf ("  %-34s %14s %9s %9s %9s %8s %8s %8s %8s\n", "input", "value", "step", "memory", "HBM use", "S1 step",
              "ST step", "S1 HBM", "ST HBM");
      for (guint i = 0; i < uq->sensitivities->len; i++)
        {
          const PlxSensitivity *e = &g_array_index (uq->sensitivities, PlxSensitivity, i);
          printf ("  %-34s %14.6g %9.4f %9.4f %9.4f", plx_cluster_input_path (e->input), e->value, e->step_elasticity,
                  e->memory_elasticity, e->hbm_use_elasticity);
          if (isfinite (e->sobol_first))
            printf (" %8.3f %8.3f %8.3f %8.3f", e->sobol_first, e->sobol_total, e->sobol_first_hbm_use,
                    e->sobol_total_hbm_use);
          printf ("\n");
        }
      if (uq->tornado != NULL)
        printf ("Tornado chart     %s\n", uq->tornado);
    }
}

void
plx_cli_uncertainty_clear (PlxCliUncertainty *uq)
{
  g_clear_pointer (&uq->sensitivities, g_array_unref);
}
