/* plx-result.h: one computed scenario as the window shows it, shared read-only
 * between the worker that made it and the widgets that draw it. */
#pragma once

#include "parallax/parallax.h"
#include "calibrate/plx-uncertainty.h"

G_BEGIN_DECLS

typedef struct
{
  PlxScenario    *scenario;
  JsonNode       *json;          /* the scenario as edited (what Save writes) */
  char           *scenario_dir;  /* where relative paths in it resolve */
  PlxReport       report;
  PlxTimeline    *timeline;
  PlxMemoryTrace *trace;
  guint64         max_micro_batch; /* G_MAXUINT64: not known (a schedule file) */
  GPtrArray      *fit_fixes;     /* PlxAdviceFix: what would fit; NULL when it fits */
  double          compute_s;     /* how long the worker took */
  /* The cluster's uncertain inputs sampled (docs/uncertainty.md "GUI"); `sampled` is
   * FALSE when it has none (or the scenario is inference or a schedule file). */
  gboolean        sampled;
  PlxUncertaintyResult uncertainty;
  /* The window's worker delivers the nominal result first and samples after, so the
   * draws never delay the frame with the new charts: TRUE until the band arrives (or
   * a newer result replaces this one). Main thread only once delivered. */
  gboolean        band_pending;
  /* The timeline chart's layout, built by the window's worker after it handed this
   * result over (plx-engine.c); private: plx_result_take_layout. */
  struct _PlxPrebuilt *prebuilt;
} PlxResult;

/* Draws per result. The sample p-quantile's standard error is sqrt(p (1 - p) / n) / f
 * (its asymptotic normality: David and Nagaraja, "Order Statistics", 3rd ed., 10.2);
 * for a step uniform over its range (f = 1 / range) and p = 0.05 that is 1 % of the
 * range at n = 500, which take 1.4 ms for GPT-3 on 1 024 GPUs. They run after the
 * nominal result is handed over (plx-engine.c), so more draws would delay only the
 * band, not the frame with the new charts; 500 keep the band within a frame or so. */
#define PLX_GUI_UNCERTAINTY_SAMPLES 500

PlxResult *plx_result_ref (PlxResult *result);
void       plx_result_unref (PlxResult *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxResult, plx_result_unref)

G_END_DECLS
