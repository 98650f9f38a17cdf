/* parallax.h: the core library's umbrella header. */
#pragma once

#include "plx-analytic.h"
#include "plx-cluster.h"
#include "plx-collective.h"
#include "plx-curve.h"
#include "plx-error.h"
#include "plx-json.h"
#include "plx-model.h"
#include "plx-op-cost.h"
#include "plx-pipeline.h"
#include "plx-presets.h"
#include "plx-report.h"
#include "plx-scenario.h"
#include "plx-strategy.h"
#include "plx-types.h"
#include "plx-validation.h"
