/* The tornado chart's bars from a sensitivity run (plx-sensitivity-chart.h). The CLI
 * and the Sensitivity page call this one builder, so a chart exported from either
 * shows the same bars. */
#include <glib/gi18n-lib.h>
#include <math.h>

#include "plx-sensitivity-chart.h"

gboolean
plx_sensitivity_output_from_name (const char           *name,
                                  PlxSensitivityOutput *out)
{
  if (g_strcmp0 (name, "step") == 0)
    *out = PLX_SENSITIVITY_STEP;
  else if (g_strcmp0 (name, "memory") == 0)
    *out = PLX_SENSITIVITY_HBM_USE;
  else
    return FALSE;
  return TRUE;
}

PlxTornadoLayout *
plx_sensitivity_chart_layout (const GArray        *sensitivities,
                              const PlxReport     *nominal,
                              PlxSensitivityOutput output,
                              const char          *scenario_name,
                              guint                max_rows)
{
  g_autofree PlxTornadoBar *bars = g_new0 (PlxTornadoBar, MAX (sensitivities->len, 1));
  g_autofree char *title = NULL;
  double base = output == PLX_SENSITIVITY_STEP ? nominal->step_time_s : plx_report_hbm_use (nominal);
  guint n = 0;

  for (guint i = 0; i < sensitivities->len; i++)
    {
      const PlxSensitivity *e = &g_array_index (sensitivities, PlxSensitivity, i);
      double low = output == PLX_SENSITIVITY_STEP ? e->step_low_s : e->hbm_use_low;
      double high = output == PLX_SENSITIVITY_STEP ? e->step_high_s : e->hbm_use_high;

      low = 100.0 * (low / base - 1.0);
      high = 100.0 * (high / base - 1.0);
      /* Rows of nothing (fp32 FLOP/s in a bf16 run) would crowd out the few that
       * matter. */
      if (fabs (low) < 1e-6 && fabs (high) < 1e-6)
        continue;
      bars[n].label = plx_cluster_input_path (e->input);
      bars[n].low = low;
      bars[n].high = high;
      n++;
    }
  if (output == PLX_SENSITIVITY_STEP)
    title = g_strdup_printf (_("Step time against each cluster input ±1 %% - %s"), scenario_name);
  else
    title = g_strdup_printf (_("HBM use (peak over usable) against each cluster input ±1 %% - %s"), scenario_name);
  return plx_tornado_layout_new (bars, n, max_rows, title,
                                 output == PLX_SENSITIVITY_STEP ? _("step time change, %") : _("HBM use change, %"));
}
