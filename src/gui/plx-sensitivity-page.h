/* plx-sensitivity-page.h: the window's Sensitivity page (issue 15): the tornado chart
 * of the step time against every cluster input at -1 % and +1 % (plx_sensitivity_run),
 * computed off the UI thread while the page is shown. */
#pragma once

#include <adwaita.h>

#include "plx-result.h"
#include "plx-tornado-chart.h"

G_BEGIN_DECLS

#define PLX_TYPE_SENSITIVITY_PAGE (plx_sensitivity_page_get_type ())
G_DECLARE_FINAL_TYPE (PlxSensitivityPage, plx_sensitivity_page, PLX, SENSITIVITY_PAGE, GtkBox)

GtkWidget *plx_sensitivity_page_new (void);
/* The scenario to analyse (NULL while it has an error); computed when the page is
 * mapped, at once if it is. */
void       plx_sensitivity_page_set_scenario (PlxSensitivityPage *self,
                                              PlxResult          *result);
void       plx_sensitivity_page_set_dark (PlxSensitivityPage *self,
                                          gboolean            dark);
/* A computation is running (the spinner turns). */
gboolean   plx_sensitivity_page_is_busy (PlxSensitivityPage *self);
/* The chart's layout, NULL until computed: rows widest first, `labels` by input. */
const PlxTornadoLayout *plx_sensitivity_page_get_layout (PlxSensitivityPage *self);
/* The chart as PNG, SVG or PDF, as plx_reshard_page_export. */
gboolean   plx_sensitivity_page_export (PlxSensitivityPage *self,
                                        const char         *path,
                                        double              width,
                                        double              height,
                                        double              scale,
                                        int                 dark,
                                        GError            **error);

G_END_DECLS
