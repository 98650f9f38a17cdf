/* plx-window.h: the main window: the scenario panel, the numbers, the charts. */
#pragma once

#include <adwaita.h>

#include "plx-result.h"

G_BEGIN_DECLS

#define PLX_TYPE_WINDOW (plx_window_get_type ())
G_DECLARE_FINAL_TYPE (PlxWindow, plx_window, PLX, WINDOW, AdwApplicationWindow)

PlxWindow *plx_window_new (AdwApplication *app);
/* The window's keyboard shortcuts as the application's accelerators, which the
 * menus show (plx-window-actions.c lists them). */
void       plx_window_set_accels_for_app (GtkApplication *app);

/* How a chart is exported: size in px (0: as on screen), scale (1 to 4), background
 * (-1 as on screen, 0 light, 1 dark), and whether the scenario's description is the
 * chart's title. */
typedef struct
{
  double   width, height, scale;
  int      dark;
  gboolean with_title;
} PlxExportOptions;
/* Opens a scenario file, a model file or a Hugging Face config.json; on failure
 * shows the reason and keeps the current scenario. */
gboolean   plx_window_open_file (PlxWindow  *self,
                                 GFile      *file,
                                 GError    **error);
/* Writes the scenario atomically; clears the unsaved flag. */
gboolean   plx_window_save_to (PlxWindow  *self,
                               GFile      *file,
                               GError    **error);
gboolean   plx_window_export_chart (PlxWindow  *self,
                                    const char *which,
                                    const char *path,
                                    GError    **error);
void       plx_window_pin (PlxWindow *self);
/* The pinned scenario A becomes current; the current one becomes A. */
void       plx_window_swap (PlxWindow *self);

/* Back to the scenario before a search result was loaded. */
void       plx_window_undo_choice (PlxWindow *self);

/* For tests and the benchmark. */
PlxResult *plx_window_get_result (PlxWindow *self);
PlxResult *plx_window_get_pinned (PlxWindow *self);
const char *plx_window_get_error (PlxWindow *self);
gboolean   plx_window_is_busy (PlxWindow *self);
gboolean   plx_window_is_dirty (PlxWindow *self);
GtkWidget *plx_window_get_panel (PlxWindow *self);
GtkWidget *plx_window_get_search_page (PlxWindow *self);
GtkWidget *plx_window_get_chart (PlxWindow *self,
                                 const char *which);
const char *plx_window_get_card_text (PlxWindow *self,
                                      guint      card);
void       plx_window_show_page (PlxWindow  *self,
                                 const char *page);

/* The visible page's name ("timeline", "memory", "breakdown", "search", "compare"). */
const char *plx_window_get_page (PlxWindow *self);
/* The page of an opened graph or ONNX model ("graph", shown once one is opened). */
GtkWidget  *plx_window_get_graph_page (PlxWindow *self);
GtkWidget  *plx_window_get_reshard_page (PlxWindow *self);
/* The Sensitivity page (plx-sensitivity-page.h). */
GtkWidget  *plx_window_get_sensitivity_page (PlxWindow *self);
/* The Calibration page (plx-calibration-page.h). */
GtkWidget  *plx_window_get_calibration_page (PlxWindow *self);
/* The error of the last file that could not be opened, saved or exported, while it
 * is shown; NULL otherwise. */
const char *plx_window_get_file_error (PlxWindow *self);
gboolean   plx_window_charts_are_dark (PlxWindow *self);
/* The share of the step a time category's bar shows on the breakdown page. */
double     plx_window_get_breakdown_share (PlxWindow *self,
                                           guint      category);

gboolean   plx_window_export_chart_with (PlxWindow              *self,
                                         const char             *which,
                                         const char             *path,
                                         const PlxExportOptions *options,
                                         GError                **error);

G_END_DECLS
