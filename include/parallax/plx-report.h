/* plx-report.h: what an engine predicts for one step (FORMATS.md §3, simulate --json). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum
{
  PLX_MEM_WEIGHTS,
  PLX_MEM_GRADIENTS,
  PLX_MEM_OPTIMIZER,
  PLX_MEM_ACTIVATIONS,
  PLX_MEM_OTHER,
  PLX_N_MEM
} PlxMemCategory;

typedef enum
{
  PLX_TIME_COMPUTE,
  PLX_TIME_RECOMPUTE,
  PLX_TIME_TP_COMM,
  PLX_TIME_PP_COMM,
  PLX_TIME_DP_COMM,
  PLX_TIME_BUBBLE,
  PLX_TIME_OPTIMIZER,
  PLX_N_TIME
} PlxTimeCategory;

typedef struct _PlxReport
{
  const char *engine;
  double   step_time_s;
  double   tokens_per_s;
  double   model_flops_per_step;
  double   hardware_flops_per_step;
  double   mfu;
  double   hfu;
  double   bubble_fraction;
  gboolean fits_in_memory;
  guint64  peak_memory_bytes;
  guint64  memory_bytes[PLX_N_MEM];
  double   time_s[PLX_N_TIME];

  /* Context for readers of the report. */
  guint    n_gpus;
  guint    reported_stage;   /* the pipeline stage whose GPU has the highest peak */
  guint64  hbm_bytes;        /* capacity of one GPU */
  guint64  hbm_usable_bytes; /* capacity less the cluster's reserved bytes */
  double   stage_forward_s;  /* one micro-batch, slowest stage, forward incl. TP comm */
  double   stage_backward_s; /* same, backward incl. recompute */
  double   layer_forward_s;  /* one transformer block, one micro-batch */
  double   layer_backward_s;
} PlxReport;

/* A report holds no pointers but to static strings: a copy is a copy of its bytes. */
PlxReport  *plx_report_copy (const PlxReport *report);
void        plx_report_free (PlxReport *report);

const char *plx_mem_category_to_string (PlxMemCategory category);
const char *plx_time_category_to_string (PlxTimeCategory category);

/* The FORMATS.md simulate --json object. */
JsonNode   *plx_report_to_json (const PlxReport *report);
/* Human-readable text with units. */
char       *plx_report_to_text (const PlxReport *report);
/* Whether every number of the report is one a user can be shown: finite, not
 * negative, memory below PLX_REPORT_MAX_BYTES. Otherwise an error that says which
 * figure ran past what the arithmetic holds and names the strategy's sizes
 * (sequence length, micro-batch size) that drive it. */
#define PLX_REPORT_MAX_BYTES 4.6e18 /* 4 EiB: well inside 64-bit integers */
gboolean    plx_report_check (const PlxReport *report,
                              guint64          seq_length,
                              guint64          micro_batch_size,
                              GError         **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxReport, plx_report_free)

G_END_DECLS
