/* plx-result.h: one computed scenario as the window shows it, shared read-only
 * between the worker that made it and the widgets that draw it. */
#pragma once

#include "parallax/parallax.h"

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
} PlxResult;

PlxResult *plx_result_ref (PlxResult *result);
void       plx_result_unref (PlxResult *result);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxResult, plx_result_unref)

G_END_DECLS
