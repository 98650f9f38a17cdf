/* plx-validation.h: predictions held against a table of published measurements. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "plx-report.h"
#include "plx-scenario.h"

G_BEGIN_DECLS

typedef enum
{
  PLX_METRIC_STEP_TIME,
  PLX_METRIC_MFU,
  PLX_METRIC_TOKENS_PER_S_PER_GPU,
  PLX_METRIC_MODEL_STATES_BYTES,
  PLX_METRIC_ACTIVATION_BYTES,
  PLX_METRIC_PEAK_MEMORY_BYTES,
  PLX_N_METRICS
} PlxMetric;

typedef struct
{
  char     *case_name;
  PlxMetric metric;
  double    measured;
  double    predicted;
  double    error_pct;   /* (predicted - measured) / measured * 100 */
} PlxValidationRow;

typedef struct
{
  PlxMetric metric;
  guint     n;
  double    mean_abs_error_pct;
  double    max_abs_error_pct;
  double    stddev_error_pct;
  double    median_abs_error_pct;
  double    bias_pct;    /* mean signed error; in `performance`, as speed: + = predicted faster */
} PlxValidationSummary;

typedef struct
{
  char                 *source;
  char                 *file;    /* the table's file name, without its directory */
  const char           *engine;  /* "analytical" or "event" (static string) */
  GArray               *rows;   /* PlxValidationRow */
  PlxValidationSummary  summary[PLX_N_METRICS];
  /* Step times, MFUs and throughputs together (what "accuracy" means in README). */
  PlxValidationSummary  performance;
} PlxValidation;

/* One case of a table: its scenario and what was measured (NAN where nothing). */
typedef struct
{
  PlxScenario *scenario;
  char        *name;
  char        *where;           /* "FILE: cases[i]", for messages */
  char        *cluster_preset;  /* the scenario's cluster.preset, or NULL */
  double       measured[PLX_N_METRICS];
} PlxValidationCase;

typedef struct
{
  char      *source;
  char      *file;   /* file name without its directory */
  GPtrArray *cases;  /* PlxValidationCase */
} PlxValidationTable;

PlxValidationTable *plx_validation_table_load (const char *path,
                                               GError    **error);
void                plx_validation_table_free (PlxValidationTable *table);
void                plx_validation_case_free (PlxValidationCase *c);
PlxValidation      *plx_validation_run_table (const PlxValidationTable *table,
                                               const char               *engine,
                                               GError                  **error);
/* What a report predicts for a measured key. */
double              plx_validation_predicted (PlxMetric        metric,
                                              const PlxReport *report);

/* `engine`: "event" (NULL: the default) or "analytical". */
PlxValidation *plx_validation_run_file (const char *path,
                                        const char *engine,
                                        GError    **error);
void           plx_validation_free (PlxValidation *validation);
/* All rows of several tables as one, with their summaries (source "pooled"). */
PlxValidation *plx_validation_pool (PlxValidation *const *tables,
                                    guint                 n_tables);
/* The pooled text and JSON: one line per table and the pooled summary. */
char          *plx_validation_pooled_to_text (PlxValidation *const *tables,
                                              guint                 n_tables,
                                              const PlxValidation  *pooled);
JsonNode      *plx_validation_pooled_to_json (PlxValidation *const *tables,
                                              guint                 n_tables,
                                              const PlxValidation  *pooled);
const char    *plx_metric_to_string (PlxMetric metric);
JsonNode      *plx_validation_to_json (const PlxValidation *validation);
char          *plx_validation_to_text (const PlxValidation *validation);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxValidation, plx_validation_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxValidationTable, plx_validation_table_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxValidationCase, plx_validation_case_free)

G_END_DECLS
