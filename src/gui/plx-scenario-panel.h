/* plx-scenario-panel.h: the side panel: model, cluster and strategy, edited as the
 * scenario's JSON (FORMATS.md §1), so what the panel shows is what Save writes. */
#pragma once

#include <adwaita.h>

#include "parallax/parallax.h"

G_BEGIN_DECLS

#define PLX_TYPE_SCENARIO_PANEL (plx_scenario_panel_get_type ())
G_DECLARE_FINAL_TYPE (PlxScenarioPanel, plx_scenario_panel, PLX, SCENARIO_PANEL, GtkBox)

GtkWidget *plx_scenario_panel_new (void);
/* Loads a scenario into the controls (emits "changed" once). */
gboolean   plx_scenario_panel_load (PlxScenarioPanel *self,
                                    JsonNode         *scenario,
                                    const char       *base_dir,
                                    const char       *source,
                                    GError          **error);
/* The scenario as the controls describe it now. */
JsonNode  *plx_scenario_panel_get_json (PlxScenarioPanel *self);
const char *plx_scenario_panel_get_base_dir (PlxScenarioPanel *self);
/* Sets one strategy key to an integer, as a slider would ("tp", "pp", ...), by the
 * core's rule for a one-key change (plx_advice_fix_apply: a degree re-derives dp). */
void       plx_scenario_panel_set_strategy_int (PlxScenarioPanel *self,
                                                const char       *key,
                                                gint64            value);
/* Shows the derived data-parallel degree and the model's facts. */
void       plx_scenario_panel_show_resolved (PlxScenarioPanel  *self,
                                             const PlxScenario *scenario);
/* The values a degree slider offers ("tp", "pp", "cp", "ep"). */
GArray    *plx_scenario_panel_get_choices (PlxScenarioPanel *self,
                                           const char       *key);

/* During "changed": the strategy key a slider edited, or NULL for other edits. */
const char *plx_scenario_panel_get_last_key (PlxScenarioPanel *self);
/* The scenario's name (from its file), or NULL. */
const char *plx_scenario_panel_get_name (PlxScenarioPanel *self);
/* Renames the scenario (NULL: no name, the model's is used); no "changed". */
void        plx_scenario_panel_set_name (PlxScenarioPanel *self,
                                         const char       *name);
/* Marks the rows of the keys `message` (an engine error) names; NULL clears. */
void       plx_scenario_panel_mark_faults (PlxScenarioPanel *self,
                                           const char       *message);
gboolean   plx_scenario_panel_is_fault (PlxScenarioPanel *self,
                                        const char       *key);
/* For an invalid strategy, the nearest one-key changes that make it valid
 * (PlxAdviceFix), nearest first; NULL if none. */
GPtrArray *plx_scenario_panel_nearest_fixes (PlxScenarioPanel *self);
/* Makes the change of a one-click fix (PlxAdviceFix key and value) as
 * plx_advice_fix_apply does: a node count goes into the cluster, dp is re-derived. */
void       plx_scenario_panel_apply_fix (PlxScenarioPanel *self,
                                         const char       *key,
                                         JsonNode         *value);
/* Replaces the scenario's cluster with `cluster` (a cluster object, copied), as
 * choosing one in the list does: one edit, which undo takes back. */
void       plx_scenario_panel_set_cluster (PlxScenarioPanel *self,
                                           JsonNode         *cluster);

/* The largest micro-batch that fits, under its slider (G_MAXUINT64: unknown). */
/* The Graph page's model (title, value pairs: plx_graph_page_get_fact_rows) in place
 * of the Model and Strategy groups; NULL shows the scenario's again. */
void       plx_scenario_panel_show_graph (PlxScenarioPanel   *self,
                                          const char *const *facts);
void       plx_scenario_panel_show_max_micro_batch (PlxScenarioPanel *self,
                                                    guint64           max_mb);

G_END_DECLS
