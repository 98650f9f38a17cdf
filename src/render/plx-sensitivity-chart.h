/* plx-sensitivity-chart.h: the tornado chart of a sensitivity run, for one output -
 * the step time or the HBM use - as `simulate --tornado` and the Sensitivity page
 * draw it. */
#pragma once

#include "calibrate/plx-uncertainty.h"
#include "plx-tornado-chart.h"

G_BEGIN_DECLS

typedef enum
{
  PLX_SENSITIVITY_STEP,    /* step time */
  PLX_SENSITIVITY_HBM_USE, /* peak memory over usable HBM */
} PlxSensitivityOutput;

/* "step" or "memory" (the CLI's --tornado-of); FALSE for anything else. */
gboolean plx_sensitivity_output_from_name (const char           *name,
                                           PlxSensitivityOutput *out);

/* One bar per input that moves the output: its change in % with the input at -1 %
 * and +1 % of `nominal`'s value; inputs that move it by less than 1e-6 % are left
 * off (the CLI's table lists them). The title ends with `scenario_name`. */
PlxTornadoLayout *plx_sensitivity_chart_layout (const GArray        *sensitivities,
                                                const PlxReport     *nominal,
                                                PlxSensitivityOutput output,
                                                const char          *scenario_name,
                                                guint                max_rows);

G_END_DECLS
