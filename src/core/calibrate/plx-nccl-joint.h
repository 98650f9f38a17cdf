/* plx-nccl-joint.h: the nccl-tests link curve and latency refined jointly against
 * every measured time (internal to plx-nccl-fit.c; docs/calibration.md "From
 * nccl-tests", "Joint refinement"). */
#pragma once

#include "parallax/plx-cluster.h"
#include "hardware/plx-collective.h"

typedef struct
{
  PlxCollectiveKind kind;
  double            bytes;
  double            time_s;  /* measured */
} PlxNcclSample;

typedef struct
{
  GArray  *knot_x;       /* double: the sizes the curve holds, increasing */
  GArray  *knot_bw_Bps;  /* double: the link's bandwidth at each (peak x efficiency) */
  gboolean latency_free; /* the latency was one of the parameters */
  double   latency_s;
  guint    iterations;
  double   rms_log_residual;  /* sqrt(mean (ln model/measured)^2) over the samples */
} PlxNcclJoint;

/* Starting from the per-size inversion (`knot_x`, `knot_bw_Bps`, `n_knots`), fits the
 * log bandwidth at every size the model reads for `samples` and, when
 * `latency_s` > 0, the log latency, by least squares on ln(model / measured).
 * `c` is the cluster with the other link as written; `link` is the fitted one (its
 * curve, peak, scale and latency are overwritten). */
gboolean plx_nccl_joint_fit (PlxCluster          *c,
                             PlxLink             *link,
                             const PlxGroup      *g,
                             const PlxNcclSample *samples,
                             guint                n_samples,
                             const double        *knot_x,
                             const double        *knot_bw_Bps,
                             guint                n_knots,
                             double               latency_s,
                             PlxNcclJoint        *out,
                             GError             **error);
void     plx_nccl_joint_clear (PlxNcclJoint *joint);
