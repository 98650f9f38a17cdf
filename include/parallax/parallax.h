/**
 * SECTION:parallax
 * @title: parallax.h
 * @short_description: the core library's umbrella header
 *
 * The core library's umbrella header: it includes every public header of
 * include/parallax/.
 */
#pragma once

#include "plx-analytic.h"
#include "plx-calibrate.h"
#include "plx-cluster.h"
#include "plx-error.h"
#include "plx-gi.h"
#include "plx-inference.h"
#include "plx-model.h"
#include "plx-plan.h"
#include "plx-report.h"
#include "plx-reshard.h"
#include "plx-strategy.h"
#include "plx-search.h"
#include "plx-sim.h"
#include "plx-scenario.h"
#include "plx-types.h"
