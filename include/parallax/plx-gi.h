/* plx-gi.h: libparallax's public API, the part that is safe to bind (GObject
 * introspection, Python through PyGObject) and the only header installed: the
 * core's structs as opaque boxed types, read through getters, changed through
 * functions that check and report with GError (docs/library.md). */
#pragma once

#include <glib-object.h>

#include "plx-error.h"

#if defined(PLX_COMPILATION) && !defined(__GI_SCANNER__)
/* Inside the project (meson.build defines PLX_COMPILATION): the core's headers give
 * the structs their fields and declare their copy, free and autoptr cleanup. */
#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-report.h"
#include "plx-scenario.h"
#include "plx-search.h"
#include "plx-strategy.h"
#else
/* Installed, and to g-ir-scanner: the structs are opaque, reached only through the
 * functions below, whose ownership is annotated. */
typedef struct _PlxScenario     PlxScenario;
typedef struct _PlxModel        PlxModel;
typedef struct _PlxCluster      PlxCluster;
typedef struct _PlxStrategy     PlxStrategy;
typedef struct _PlxReport       PlxReport;
typedef struct _PlxSearchResult PlxSearchResult;
#define PLX_GI_OPAQUE 1
#endif

G_BEGIN_DECLS

#define PLX_TYPE_SCENARIO      (plx_scenario_get_type ())
#define PLX_TYPE_MODEL         (plx_model_get_type ())
#define PLX_TYPE_CLUSTER       (plx_cluster_get_type ())
#define PLX_TYPE_STRATEGY      (plx_strategy_get_type ())
#define PLX_TYPE_REPORT        (plx_report_get_type ())
#define PLX_TYPE_SEARCH_RESULT (plx_search_result_get_type ())

GType plx_scenario_get_type (void) G_GNUC_CONST;
GType plx_model_get_type (void) G_GNUC_CONST;
GType plx_cluster_get_type (void) G_GNUC_CONST;
GType plx_strategy_get_type (void) G_GNUC_CONST;
GType plx_report_get_type (void) G_GNUC_CONST;
GType plx_search_result_get_type (void) G_GNUC_CONST;

#ifdef PLX_GI_OPAQUE
/* Copy and free of each type (the core declares them inside the project). Bindings
 * copy and free through the boxed type; C callers call them or use g_autoptr. */
/**
 * plx_scenario_copy:
 * @scenario: a scenario
 *
 * Returns: (transfer full): an independent copy of @scenario
 */
PlxScenario     *plx_scenario_copy (const PlxScenario *scenario);
/**
 * plx_scenario_free: (skip)
 * @scenario: (transfer full) (nullable): a scenario
 *
 * Frees @scenario.
 */
void             plx_scenario_free (PlxScenario *scenario);
/**
 * plx_model_copy:
 * @model: a model
 *
 * Returns: (transfer full): an independent copy of @model
 */
PlxModel        *plx_model_copy (const PlxModel *model);
/**
 * plx_model_free: (skip)
 * @model: (transfer full) (nullable): a model
 *
 * Frees @model.
 */
void             plx_model_free (PlxModel *model);
/**
 * plx_cluster_copy:
 * @cluster: a cluster
 *
 * Returns: (transfer full): an independent copy of @cluster
 */
PlxCluster      *plx_cluster_copy (const PlxCluster *cluster);
/**
 * plx_cluster_free: (skip)
 * @cluster: (transfer full) (nullable): a cluster
 *
 * Frees @cluster.
 */
void             plx_cluster_free (PlxCluster *cluster);
/**
 * plx_strategy_copy:
 * @strategy: a strategy
 *
 * Returns: (transfer full): an independent copy of @strategy
 */
PlxStrategy     *plx_strategy_copy (const PlxStrategy *strategy);
/**
 * plx_strategy_free: (skip)
 * @strategy: (transfer full) (nullable): a strategy
 *
 * Frees @strategy.
 */
void             plx_strategy_free (PlxStrategy *strategy);
/**
 * plx_report_copy:
 * @report: a report
 *
 * Returns: (transfer full): an independent copy of @report
 */
PlxReport       *plx_report_copy (const PlxReport *report);
/**
 * plx_report_free: (skip)
 * @report: (transfer full) (nullable): a report
 *
 * Frees @report.
 */
void             plx_report_free (PlxReport *report);
/**
 * plx_search_result_copy:
 * @result: a search result
 *
 * Returns: (transfer full): an independent copy of @result
 */
PlxSearchResult *plx_search_result_copy (const PlxSearchResult *result);
/**
 * plx_search_result_free: (skip)
 * @result: (transfer full) (nullable): a search result
 *
 * Frees @result.
 */
void             plx_search_result_free (PlxSearchResult *result);

#ifndef __GI_SCANNER__
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxScenario, plx_scenario_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxModel, plx_model_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxCluster, plx_cluster_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxStrategy, plx_strategy_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxReport, plx_report_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxSearchResult, plx_search_result_free)
#endif
#endif

/* The core functions that belong to this API as they are, declared again so that
 * g-ir-scanner, which reads this header alone, sees them (the compiler checks the
 * two declarations agree). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wredundant-decls"
/**
 * plx_scenario_new_from_file: (constructor)
 * @path: (type filename): a scenario file (docs/formats.md §1)
 * @error: return location for a #GError
 *
 * Reads and resolves a scenario file; relative paths in it (hf_config, schedule
 * files) start from the file's folder.
 *
 * Returns: (transfer full): the scenario, or %NULL with @error naming the file
 */
PlxScenario *plx_scenario_new_from_file (const char *path,
                                         GError    **error);
/**
 * plx_scenario_describe:
 * @scenario: a #PlxScenario
 *
 * Returns: (transfer full): what the scenario runs, for titles:
 *   "gpt3-175b on 64 A100-SXM4-80GB, TP 8 × PP 8 × DP 1, interleaved 1F1B ×3"
 */
char        *plx_scenario_describe (const PlxScenario *scenario);
/**
 * plx_strategy_describe:
 * @strategy: a #PlxStrategy
 *
 * Returns: (transfer full): a short label: "TP 8 · PP 8 · DP 1 · interleaved-1f1b x3 · selective"
 */
char        *plx_strategy_describe (const PlxStrategy *strategy);
/**
 * plx_model_get_n_params:
 * @model: a #PlxModel
 *
 * Returns: the unique parameters (tied embeddings counted once)
 */
guint64      plx_model_get_n_params (const PlxModel *model);
/**
 * plx_cluster_get_n_gpus:
 * @cluster: a #PlxCluster
 *
 * Returns: the GPUs of all nodes
 */
guint        plx_cluster_get_n_gpus (const PlxCluster *cluster);
#pragma GCC diagnostic pop

/* Scenario (plx-gi-scenario.c) */
PlxScenario       *plx_scenario_new_default (void);
PlxScenario       *plx_scenario_new_from_string (const char *json,
                                                 const char *base_dir,
                                                 GError    **error);
const char        *plx_scenario_get_name (const PlxScenario *scenario);
const char        *plx_scenario_get_source (const PlxScenario *scenario);
const PlxModel    *plx_scenario_get_model (const PlxScenario *scenario);
const PlxCluster  *plx_scenario_get_cluster (const PlxScenario *scenario);
const PlxStrategy *plx_scenario_get_strategy (const PlxScenario *scenario);
char              *plx_scenario_to_string (const PlxScenario *scenario);
gboolean           plx_scenario_update_strategy (PlxScenario *scenario,
                                                 const char  *changes,
                                                 GError     **error);
gboolean           plx_scenario_set_strategy_int (PlxScenario *scenario,
                                                  const char  *key,
                                                  gint64       value,
                                                  GError     **error);
gboolean           plx_scenario_set_strategy_double (PlxScenario *scenario,
                                                     const char  *key,
                                                     double       value,
                                                     GError     **error);
gboolean           plx_scenario_set_strategy_bool (PlxScenario *scenario,
                                                   const char  *key,
                                                   gboolean     value,
                                                   GError     **error);
gboolean           plx_scenario_set_strategy_string (PlxScenario *scenario,
                                                     const char  *key,
                                                     const char  *value,
                                                     GError     **error);
PlxReport         *plx_scenario_simulate (const PlxScenario *scenario,
                                          GError           **error);
PlxReport         *plx_scenario_simulate_with_engine (const PlxScenario *scenario,
                                                      const char        *engine,
                                                      GError           **error);

/* Search (plx-gi-search.c) */
GList             *plx_scenario_search (const PlxScenario *scenario,
                                        const char        *fix,
                                        guint              top,
                                        GError           **error);
gboolean           plx_scenario_apply_search_result (PlxScenario           *scenario,
                                                     const PlxSearchResult *result,
                                                     GError               **error);
guint              plx_search_result_get_n_gpus (const PlxSearchResult *result);
double             plx_search_result_get_step_time_s (const PlxSearchResult *result);
double             plx_search_result_get_analytical_step_time_s (const PlxSearchResult *result);
double             plx_search_result_get_mfu (const PlxSearchResult *result);
double             plx_search_result_get_tokens_per_s (const PlxSearchResult *result);
guint64            plx_search_result_get_peak_memory_bytes (const PlxSearchResult *result);
gboolean           plx_search_result_get_fits_in_memory (const PlxSearchResult *result);
gboolean           plx_search_result_get_event_simulated (const PlxSearchResult *result);
gboolean           plx_search_result_get_pareto (const PlxSearchResult *result);
gboolean           plx_search_result_get_pareto_gpus (const PlxSearchResult *result);
const PlxStrategy *plx_search_result_get_strategy (const PlxSearchResult *result);

/* Charts (plx-gi-chart.c) */
gboolean           plx_scenario_export_chart (const PlxScenario *scenario,
                                              const char        *kind,
                                              const char        *path,
                                              guint              width,
                                              guint              height,
                                              GError           **error);
gboolean           plx_scenario_export_trace (const PlxScenario *scenario,
                                              const char        *path,
                                              GError           **error);

/* Report (plx-gi-report.c) */
const char        *plx_report_get_engine (const PlxReport *report);
double             plx_report_get_step_time_s (const PlxReport *report);
double             plx_report_get_tokens_per_s (const PlxReport *report);
double             plx_report_get_model_flops_per_step (const PlxReport *report);
double             plx_report_get_hardware_flops_per_step (const PlxReport *report);
double             plx_report_get_mfu (const PlxReport *report);
double             plx_report_get_hfu (const PlxReport *report);
double             plx_report_get_bubble_fraction (const PlxReport *report);
gboolean           plx_report_get_fits_in_memory (const PlxReport *report);
guint64            plx_report_get_peak_memory_bytes (const PlxReport *report);
guint64            plx_report_get_hbm_bytes (const PlxReport *report);
guint64            plx_report_get_hbm_usable_bytes (const PlxReport *report);
guint              plx_report_get_n_gpus (const PlxReport *report);
guint              plx_report_get_reported_stage (const PlxReport *report);
double             plx_report_get_stage_forward_s (const PlxReport *report);
double             plx_report_get_stage_backward_s (const PlxReport *report);
double             plx_report_get_layer_forward_s (const PlxReport *report);
double             plx_report_get_layer_backward_s (const PlxReport *report);
const char *const *plx_report_memory_categories (void);
const char *const *plx_report_time_categories (void);
gboolean           plx_report_get_memory_bytes (const PlxReport *report,
                                                const char      *category,
                                                guint64         *bytes,
                                                GError         **error);
gboolean           plx_report_get_time_s (const PlxReport *report,
                                          const char      *category,
                                          double          *seconds,
                                          GError         **error);
char              *plx_report_to_string (const PlxReport *report);

/* Model, cluster and strategy (plx-gi-parts.c) */
const char        *plx_model_get_name (const PlxModel *model);
guint              plx_model_get_n_layers (const PlxModel *model);
guint64            plx_model_get_hidden (const PlxModel *model);
guint              plx_model_get_heads (const PlxModel *model);
guint64            plx_model_get_max_positions (const PlxModel *model);
guint              plx_model_get_experts (const PlxModel *model);
const char        *plx_cluster_get_name (const PlxCluster *cluster);
const char        *plx_cluster_get_gpu_name (const PlxCluster *cluster);
guint              plx_cluster_get_num_nodes (const PlxCluster *cluster);
guint              plx_cluster_get_gpus_per_node (const PlxCluster *cluster);
guint64            plx_cluster_get_hbm_bytes (const PlxCluster *cluster);
double             plx_cluster_get_peak_flops (const PlxCluster *cluster,
                                               const char       *dtype,
                                               GError          **error);
guint              plx_strategy_get_dp (const PlxStrategy *strategy);
guint              plx_strategy_get_tp (const PlxStrategy *strategy);
guint              plx_strategy_get_pp (const PlxStrategy *strategy);
guint              plx_strategy_get_cp (const PlxStrategy *strategy);
guint              plx_strategy_get_ep (const PlxStrategy *strategy);
guint64            plx_strategy_get_micro_batch_size (const PlxStrategy *strategy);
guint64            plx_strategy_get_global_batch_size (const PlxStrategy *strategy);
guint64            plx_strategy_get_seq_length (const PlxStrategy *strategy);
guint              plx_strategy_get_virtual_stages (const PlxStrategy *strategy);
guint              plx_strategy_get_zero_stage (const PlxStrategy *strategy);
gboolean           plx_strategy_get_sequence_parallel (const PlxStrategy *strategy);
const char        *plx_strategy_get_schedule (const PlxStrategy *strategy);
const char        *plx_strategy_get_recompute (const PlxStrategy *strategy);
const char        *plx_strategy_get_dtype (const PlxStrategy *strategy);
char              *plx_strategy_to_string (const PlxStrategy *strategy);

G_END_DECLS
