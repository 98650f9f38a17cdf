/* plx-sim-window.h: how many micro-batches the event engine (plx-sim.c) keeps end
 * times for, per virtual stage. Not installed. */
#pragma once

#include "parallax/plx-strategy.h"

/* A power of two W such that, on every stage, a pass of (chunk, micro-batch mb) never
 * starts while the micro-batch mb' = mb mod W of the same chunk that last started
 * there still has a pass to run: then mb's end times can take mb''s place in a ring
 * of W slots (plx-sim.c explains why its neighbours have read them by then). At most
 * the smallest power of two >= the order's micro-batches, which always qualifies. */
guint plx_sim_window (const PlxScheduleOrder *order);
