/* plx-pipeline.h: closed forms of the pipeline schedules (time and micro-batches in
 * flight), shared by the analytical engine and its tests. */
#pragma once

#include <glib.h>

#include "parallax/plx-strategy.h"

G_BEGIN_DECLS

/* Time of m micro-batches through p stages of v chunks each: the bottleneck stage
 * runs m micro-batches (t_max each, all chunks, forward and backward) and the fill
 * and drain add (p - 1)/v average stage times (t_fill); each micro-batch crosses v
 * stage boundaries forward and v backward, `send_s` each. */
double plx_pipeline_time (guint64 m,
                          guint   p,
                          guint   v,
                          double  t_max,
                          double  t_fill,
                          double  send_s);
/* The same with the stages' own sends: a stage's compute waits for its sends, and
 * the first and last stage send 2v - 1 times per micro-batch (nothing enters the
 * first chunk backward, nothing leaves the last one forward), the others 2v; the
 * steady state runs at the slowest of them (t_mid: the slowest middle stage, unused
 * for p <= 2). */
double plx_pipeline_time_stages (guint64 m,
                                 guint   p,
                                 guint   v,
                                 double  t_first,
                                 double  t_mid,
                                 double  t_last,
                                 double  t_fill,
                                 double  send_s);

/* Ideal bubble share of a balanced pipeline with free communication:
 * (p - 1)/(v m + p - 1). */
double plx_pipeline_bubble_fraction (guint64 m,
                                     guint   p,
                                     guint   v);

/* Model chunks whose activations stage `stage` (0-based) holds at its peak. */
double plx_pipeline_chunks_in_flight (PlxSchedule schedule,
                                      guint       p,
                                      guint       v,
                                      guint       stage,
                                      guint64     m);

/* Micro-batches whose backward pass has run on stage `stage` and whose weight-
 * gradient pass still waits, at the same moment as that peak: 0 but for a schedule
 * that splits the backward (plx_schedule_splits_backward). They keep only what the
 * W pass reads (wgrad_saved_bytes). */
double plx_pipeline_wgrad_pending (PlxSchedule schedule,
                                   guint       p,
                                   guint       stage,
                                   guint64     m);

G_END_DECLS
