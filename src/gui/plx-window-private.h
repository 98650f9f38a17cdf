/* plx-window-private.h: what the parts of the window share (src/gui/plx-window*.c).
 *
 *   plx-window.c           construction, the pages, chart style, getters
 *   plx-window-actions.c   every action of the window and its keyboard shortcut
 *   plx-window-document.c  the scenario as a document: file, history, title, pin/swap
 *   plx-window-results.c   a result (or error) shown: cards, breakdown, fit advice
 *   plx-window-files.c     opening, saving and exporting to a path; recent files
 *   plx-window-dialogs.c   file choosers and "Save Changes?"
 */
#pragma once

#include "plx-breakdown-view.h"
#include "plx-calibration-page.h"
#include "plx-chart-view.h"
#include "plx-engine.h"
#include "plx-graph-page.h"
#include "plx-history.h"
#include "plx-reshard-page.h"
#include "plx-scenario-panel.h"
#include "plx-search-page.h"
#include "plx-sensitivity-page.h"
#include "plx-summary-card.h"
#include "plx-timeline-pane.h"
#include "plx-window.h"

G_BEGIN_DECLS

enum { CARD_STEP, CARD_THROUGHPUT, CARD_MFU, CARD_MEMORY, CARD_BUBBLE, N_CARDS };

/* The file a scenario belongs to and its text as last opened or saved there. Each
 * step of the history names its document, so undoing an Open (or New) gives back
 * the scenario and its file; Save As renames the document for all its steps. */
typedef struct
{
  GFile *file;        /* NULL: untitled */
  char  *clean_text;  /* undo back to this text is clean */
} Document;

/* What waits for the answer to "Save Changes?": closing, or replacing the scenario
 * by a file (or by New, `file` NULL). */
typedef enum { THEN_NOTHING, THEN_CLOSE, THEN_REPLACE } Then;

struct _PlxWindow
{
  AdwApplicationWindow parent_instance;

  /* Template children. */
  AdwToastOverlay *toasts;
  AdwWindowTitle  *window_title;
  GtkToggleButton *compare_button;
  GtkScrolledWindow *panel_scroller;
  GtkRevealer     *error_revealer;
  GtkLabel        *error_label;
  GtkBox          *fix_box;
  GtkRevealer     *file_revealer;
  GtkLabel        *file_label;
  GtkWidget       *fit_bar;
  GtkLabel        *fit_label;
  GtkFlowBox      *fit_box;
  GtkFlowBox      *cards;
  PlxSummaryCard  *card[N_CARDS];
  AdwViewStack    *stack;
  /* The panel and the pages, from the template too. */
  PlxScenarioPanel *panel;
  PlxTimelinePane *timeline_pane;
  PlxSearchPage   *search_page;
  PlxReshardPage  *reshard_page;
  PlxSensitivityPage *sensitivity_page;
  PlxCalibrationPage *calibration_page;
  GtkWidget       *charts[3];      /* timeline (the pane's), memory, compare */
  PlxBreakdownView *breakdown;
  AdwViewStackPage *compare_page;
  PlxGraphPage    *graph_page;     /* a graph or ONNX model opened (hidden until one is) */
  AdwViewStackPage *graph_stack_page;

  char            *graph_cluster;  /* the cluster the graph page runs on, as JSON text */
  gboolean         graph_shown;    /* the Graph page is up: the header and panel show its model */
  gboolean         fit_shown;      /* the scenario's "does not fit" bar is wanted */
  int              timeline_width; /* the timeline chart's size as last seen, its height */
  int              timeline_height[2]; /* with the fit bar hidden [0] and shown [1]; 0: not seen */
  PlxEngine       *engine;
  PlxResult       *result;
  PlxResult       *pinned;
  char            *error;
  Document        *doc;            /* where the scenario was opened from or saved to */
  gboolean         dirty;
  GFile           *replace_with;   /* the file to open once "Save Changes?" is answered; */
  gboolean         replace_new;    /* or New */
  gboolean         loading;
  gboolean         dark_charts;
  GSettings       *settings;
  GMenu           *recent_section;
  PlxHistory      *history;
  gboolean         applying_history;
  JsonNode        *before_choice;  /* the scenario a search result replaced, for Undo */
  gboolean         before_choice_dirty;
};


/* The charts by name ("timeline", "memory", "compare"): 0 to 2, or -1. */
int        plx_window_chart_index (const char *which);

/* plx-window-actions.c */
void       plx_window_actions_install (GtkWidgetClass *widget_class);
void       plx_window_actions_update_history (PlxWindow *self);
void       plx_window_actions_update_pin (PlxWindow *self);
void       plx_window_actions_update_scatter (GListModel *rows,
                                              guint       position,
                                              guint       removed,
                                              guint       added,
                                              PlxWindow  *self);

/* plx-window-document.c */
Document  *plx_window_document_new (GFile *file);
gpointer   plx_window_document_ref (gpointer d);
void       plx_window_document_unref (gpointer d);
void       plx_window_update_title (PlxWindow *self);
char      *plx_window_name_of_file (GFile *file);
void       plx_window_set_dirty (PlxWindow *self,
                                 gboolean   dirty);
gboolean   plx_window_replace_scenario (PlxWindow  *self,
                                        JsonNode   *scenario,
                                        const char *dir,
                                        const char *source,
                                        GFile      *file,
                                        GError    **error);
void       plx_window_edited_by_load (PlxWindow *self);
void       plx_window_undo (PlxWindow *self);
void       plx_window_redo (PlxWindow *self);
void       plx_window_on_panel_changed (PlxScenarioPanel *panel,
                                        PlxWindow        *self);
void       plx_window_on_use_cluster (PlxCalibrationPage *page,
                                      JsonNode           *cluster,
                                      PlxWindow          *self);
void       plx_window_on_strategy_chosen (PlxSearchPage *page,
                                          JsonNode      *scenario,
                                          guint          rank,
                                          PlxWindow     *self);

/* plx-window-results.c */
void       plx_window_recompute (PlxWindow *self);
void       plx_window_on_computed (PlxEngine *engine,
                                   PlxResult *r,
                                   PlxWindow *self);
void       plx_window_on_sampled (PlxEngine *engine,
                                  PlxResult *r,
                                  PlxWindow *self);
void       plx_window_on_failed (PlxEngine  *engine,
                                 const char *message,
                                 PlxWindow  *self);

/* plx-window-files.c */
void       plx_window_rebuild_recent_menu (PlxWindow *self);
void       plx_window_toast (PlxWindow  *self,
                             const char *message);
void       plx_window_report_error (PlxWindow  *self,
                                    const char *message);

/* plx-window-dialogs.c */
void       plx_window_choose_file_to_open (PlxWindow *self);
void       plx_window_save (PlxWindow *self);
void       plx_window_save_as (PlxWindow *self,
                               Then       what);
void       plx_window_choose_export (PlxWindow  *self,
                                     const char *which);
void       plx_window_ask_then_replace (PlxWindow *self,
                                        GFile     *file);
void       plx_window_ask_before_closing (PlxWindow *self);

G_END_DECLS
