/* plx-calibration-page.h: the window's Calibration page (issue 15): measurement files
 * (nccl-tests output, GEMM and bandwidth sweeps, a Kineto trace) opened, fitted off
 * the UI thread with the CLI's core calls (plx_measured_fit), the fitted curves drawn
 * over the measured points (plx-calibration-chart.h) with a residual table, and the
 * calibrated cluster put into the scenario ("use-cluster") or saved. */
#pragma once

#include <adwaita.h>

#include "parallax/parallax.h"
#include "plx-result.h"
#include "calibrate/plx-measurement.h"

G_BEGIN_DECLS

#define PLX_TYPE_CALIBRATION_PAGE (plx_calibration_page_get_type ())
G_DECLARE_FINAL_TYPE (PlxCalibrationPage, plx_calibration_page, PLX, CALIBRATION_PAGE, GtkBox)

/* Signal "use-cluster" (JsonNode *cluster): "Use This Cluster" was pressed. */
GtkWidget *plx_calibration_page_new (void);
/* The scenario whose cluster the fit starts from and whose group layout the spin
 * buttons default to (NULL while it has an error: Use This Cluster is off). */
void       plx_calibration_page_set_scenario (PlxCalibrationPage *self,
                                              PlxResult          *result);
void       plx_calibration_page_set_dark (PlxCalibrationPage *self,
                                          gboolean            dark);
/* A fit is running. */
gboolean   plx_calibration_page_is_busy (PlxCalibrationPage *self);
/* The newest fit, NULL before one succeeded; the curve on screen. */
const PlxMeasuredFit *plx_calibration_page_get_fit (PlxCalibrationPage *self);
const PlxCalCurve    *plx_calibration_page_get_curve (PlxCalibrationPage *self);
/* The chart as PNG, SVG or PDF, as plx_sensitivity_page_export. */
gboolean   plx_calibration_page_export (PlxCalibrationPage *self,
                                        const char         *path,
                                        double              width,
                                        double              height,
                                        double              scale,
                                        int                 dark,
                                        GError            **error);

G_END_DECLS
