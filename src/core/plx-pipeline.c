/* Pipeline schedules in closed form. */
#include "parallax/plx-pipeline.h"

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
 * Zero-bubble H1 keeps 1F1B's peak (Qi et al. 2023 §3.1). */
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
