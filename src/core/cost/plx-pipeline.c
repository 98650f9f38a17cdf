/* Pipeline schedules in closed form. */
#include "cost/plx-pipeline.h"

/* For balanced stages of time t and free sends this is (m + (p - 1)/v) t, the
 * 1F1B / interleaved time of Narayanan et al. 2021 §2.2.1-2.2.2 (bubble (p-1)/(v m)
 * of the ideal m t); GPipe has the same bubble (Huang et al. 2019 §2.2). */
double
plx_pipeline_time (guint64 m,
                   guint   p,
                   guint   v,
                   double  t_max,
                   double  t_fill,
                   double  send_s)
{
  double fill = p > 1 ? (double) (p - 1) / v : 0.0;
  double hop = p > 1 ? 2.0 * v * send_s : 0.0;

  return (double) m * (t_max + hop) + fill * (t_fill + hop);
}

double
plx_pipeline_time_stages (guint64 m,
                          guint   p,
                          guint   v,
                          double  t_first,
                          double  t_mid,
                          double  t_last,
                          double  t_fill,
                          double  send_s)
{
  double ends, steady;

  if (p <= 1)
    return (double) m * t_first;
  ends = (2.0 * v - 1.0) * send_s;
  steady = MAX (t_first + ends, t_last + ends);
  if (p > 2)
    steady = MAX (steady, t_mid + 2.0 * v * send_s);
  return (double) m * steady + (double) (p - 1) / v * (t_fill + 2.0 * v * send_s);
}

double
plx_pipeline_bubble_fraction (guint64 m,
                              guint   p,
                              guint   v)
{
  return (double) (p - 1) / ((double) v * m + p - 1);
}

/* GPipe runs all m forwards first (Huang et al. 2019); 1F1B keeps p - i
 * (Narayanan et al. 2021 §2.2.1); Megatron's interleaved schedule warms up with
 * 2(p - i - 1) + (v - 1)p chunks and holds one more in steady state, so the first
 * stage holds L(1 + (p - 1)/(p v)) layers (Korthikanti et al. 2022 §4.2.3, eq. 5).
 * Zero-bubble H1 keeps 1F1B's p - i whole (Qi et al. 2023 §3.1), and more whose W
 * pass waits (plx_pipeline_wgrad_pending). */
double
plx_pipeline_chunks_in_flight (PlxSchedule schedule,
                               guint       p,
                               guint       v,
                               guint       stage,
                               guint64     m)
{
  double dp = p, dv = v, i = stage;

  switch (schedule)
    {
    case PLX_SCHEDULE_GPIPE:
      return (double) m * dv;
    case PLX_SCHEDULE_INTERLEAVED_1F1B:
      return MIN (2.0 * (dp - i - 1.0) + (dv - 1.0) * dp + 1.0, (double) m * dv);
    case PLX_SCHEDULE_1F1B:
    case PLX_SCHEDULE_ZERO_BUBBLE_H1:
    case PLX_SCHEDULE_FILE:
    default:
      return MIN (dp - i, (double) m) * dv;
    }
}

/* Zero-bubble H1 as plx-schedule.c orders it (Qi et al. 2023 §3.1: B > F > W, at
 * most p - i micro-batches between F and B and 2p - i - 1 between F and W on stage
 * i). Its activation peak on stage i is right after a forward starts with
 * A = min(p - i, m) micro-batches between F and B (1F1B's) and
 * min(p - 1, m - A) more between B and W: W passes fill the bubbles, so by the
 * time stage i is full every micro-batch already past its B but the last p - 1 has
 * had its W. Checked against the list schedule for every p from 2 to 12 and m
 * from 1 to 39 on every stage (no prefix of a stage's order holds more of either
 * kind, and a B runs at that very point, so a recompute's transient adds on top).
 * The closed form counted 1F1B's A only: up to 42 % below the event engine. */
double
plx_pipeline_wgrad_pending (PlxSchedule schedule,
                            guint       p,
                            guint       stage,
                            guint64     m)
{
  double whole;

  if (schedule != PLX_SCHEDULE_ZERO_BUBBLE_H1 || p <= 1 || stage >= p)
    return 0.0;
  whole = MIN ((double) (p - stage), (double) m);
  return MIN ((double) p - 1.0, (double) m - whole);
}
