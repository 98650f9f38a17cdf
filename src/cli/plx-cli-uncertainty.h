/* plx-cli-uncertainty.h: simulate's --samples, --seed, --sensitivity, --tornado and --tornado-of
 * (docs/uncertainty.md). */
#pragma once

#include <json-glib/json-glib.h>

#include "parallax/parallax.h"
#include "plx-sensitivity-chart.h"

G_BEGIN_DECLS

typedef struct
{
  guint                samples;      /* 0: no sampling */
  guint64              seed;
  gboolean             sensitivity;
  const char          *tornado;      /* chart path, or NULL */
  PlxSensitivityOutput tornado_of;   /* the output the chart shows */
  PlxUncertaintyResult result;
  GArray              *sensitivities; /* PlxSensitivity, after plx_cli_uncertainty_run */
} PlxCliUncertainty;

/* No sampling, no sensitivity, the default seed. */
void     plx_cli_uncertainty_init (PlxCliUncertainty *uq);
/* One of --samples, --seed (a value), --sensitivity (NULL), --tornado (a chart path,
 * which must outlive `uq`), --tornado-of (step or memory); FALSE with a message naming the flag on a bad value. */
gboolean plx_cli_uncertainty_set_option (PlxCliUncertainty *uq,
                                         const char        *flag,
                                         const char        *value,
                                         GError           **error);
gboolean plx_cli_uncertainty_wanted (const PlxCliUncertainty *uq);
gboolean plx_cli_uncertainty_run (PlxCliUncertainty *uq,
                                  const PlxScenario *scenario,
                                  GError           **error);
void     plx_cli_uncertainty_add_json (const PlxCliUncertainty *uq,
                                       const PlxScenario       *scenario,
                                       JsonObject              *out);
void     plx_cli_uncertainty_print (const PlxCliUncertainty *uq,
                                    const PlxScenario       *scenario);
void     plx_cli_uncertainty_clear (PlxCliUncertainty *uq);

G_END_DECLS
