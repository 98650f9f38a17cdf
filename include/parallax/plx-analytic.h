/* plx-analytic.h: closed-form step time and memory (the fast engine used by search). */
#pragma once

#include <glib.h>

#include "plx-cluster.h"
#include "plx-model.h"
#include "plx-report.h"
#include "plx-strategy.h"

G_BEGIN_DECLS

/* The strategy must have been resolved (plx_strategy_resolve) against the same model
 * and cluster. No allocation: safe to call millions of times from worker threads. */
gboolean plx_analytic_run (const PlxModel    *model,
                           const PlxCluster  *cluster,
                           const PlxStrategy *strategy,
                           PlxReport         *report,
                           GError           **error);

G_END_DECLS
