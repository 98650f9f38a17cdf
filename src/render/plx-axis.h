/* plx-axis.h: round tick values and their labels with units. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  double value;     /* in the axis's base unit (seconds, bytes) */
  double position;  /* 0..1 along the axis */
  char   label[32];
} PlxAxisTick;

/* Ticks at multiples of 1, 2 or 5 x 10^k covering [lo, hi], about `target` of them,
 * labelled in s, ms or µs for times (see plx_axis_format_time). Returns the step. */
double plx_axis_time_ticks (double  lo,
                            double  hi,
                            guint   target,
                            GArray *ticks);
/* The same for byte counts, labelled in GiB (binary multiples of 1, 2, 5 x 2^k GiB
 * would look odd; round decimal GiB values are used). */
double plx_axis_bytes_ticks (double  lo,
                             double  hi,
                             guint   target,
                             GArray *ticks);
/* The same for counts (GPUs), labelled as whole numbers. */
double plx_axis_count_ticks (double  lo,
                             double  hi,
                             guint   target,
                             GArray *ticks);
/* A log axis from 10^lo_exp to 10^hi_exp: a tick at every power of ten (every
 * second or third when more than `max_ticks` would crowd), labelled with an SI
 * prefix and `unit`: "10 MB", "1 TFLOP". */
void   plx_axis_decade_ticks (int         lo_exp,
                              int         hi_exp,
                              guint       max_ticks,
                              const char *unit,
                              GArray     *ticks);
/* 1, 2 or 5 x 10^k just above span / target. */
double plx_axis_nice_step (double span,
                           guint  target);
/* "12.5 ms", "3 s", "250 µs": the unit from the step and `magnitude` (the largest
 * absolute value on the axis, so every tick of an axis shares one unit), with the
 * decimals the step needs. */
void   plx_axis_format_time (double seconds,
                             double step,
                             double magnitude,
                             char  *buf,
                             gsize  len);

G_END_DECLS
