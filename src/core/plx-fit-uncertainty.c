/* Calibration fits' standard errors written as distributions (docs/calibration.md
 * "The fits' own uncertainty").
 *
 * Each becomes a normal {"mean", "sd"} on an input the uncertainty engine already
 * samples (plx-cluster-inputs.c), so a fitted cluster can go straight into
 * simulate --samples. The mean is the value written without the flag (a scale
 * already in the file stays the mean), so a nominal run is unchanged. Why these inputs:
 * - latency_s: its standard error is the line fit's (plx-nccl-fit.c), sqrt(cov00)
 *   over the ring steps.
 * - a GEMM or bandwidth curve: e_max scales the whole saturating curve
 *   e_max x / (x + x_half), so its relative standard error is a scale on the
 *   curve, which matmul_scale and memory_scale are (x_half's error matters only
 *   below the knee and is not carried).
 * - an nccl-tests curve interpolates its sizes (as many knots as sizes, so no
 *   degrees of freedom are left for a residual variance); the repeatability of the
 *   measurement is what is uncertain, and nccl-tests measures each size twice (out
 *   of place and in place): for pairs d = ln t_oop - ln t_ip, var d = 2 s^2, so the
 *   relative spread of one run is s = sqrt(sum d^2 / 2n). */
#include <math.h>

#include "parallax/plx-fit-uncertainty.h"
#include "parallax/plx-json.h"

static void
set_normal (JsonObject *o, const char *key, double mean, double sd)
{
  JsonObject *d = json_object_new ();

  json_object_set_double_member (d, "mean", mean);
  json_object_set_double_member (d, "sd", sd);
  json_object_set_object_member (o, key, d);
}

static JsonObject *
calibration_of (JsonObject *cluster)
{
  if (!json_object_has_member (cluster, "calibration") ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (cluster, "calibration")))
    json_object_set_object_member (cluster, "calibration", json_object_new ());
  return json_object_get_object_member (cluster, "calibration");
}

JsonNode *
plx_nccl_fit_uncertain_cluster (const PlxNcclFit *fit)
{
  JsonNode *node = plx_json_deep_copy (fit->cluster);
  JsonObject *o = json_node_get_object (node);
  JsonObject *link = json_object_get_object_member (o, fit->inter_node ? "inter_node" : "intra_node");

  if (fit->latency_fitted && isfinite (fit->latency_std_error_s) && fit->latency_std_error_s > 0.0)
    set_normal (link, "latency_s", fit->latency_s, fit->latency_std_error_s);
  if (fit->repeat_pairs > 0 && fit->repeat_spread > 0.0)
    {
      if (fit->inter_node)
        set_normal (calibration_of (o), "network_scale", 1.0, fit->repeat_spread);
      else
        set_normal (link, "bw_Bps", fit->bw_Bps, fit->bw_Bps * fit->repeat_spread);
    }
  return node;
}

gboolean
plx_sweep_fit_apply_uncertainty (JsonNode          *cluster,
                                 const PlxSweepFit *fit)
{
  const char *scale;
  JsonObject *cal;
  JsonNode *node;
  double mean = 1.0;

  if (fit->key == NULL || !(isfinite (fit->e_max_se) && fit->e_max_se > 0.0 && fit->e_max > 0.0))
    return FALSE;
  if (g_str_equal (fit->key, "matmul"))
    scale = "matmul_scale";
  else if (g_str_equal (fit->key, "memory"))
    scale = "memory_scale";
  else
    return FALSE;
  cal = calibration_of (json_node_get_object (cluster));
  /* Around the scale already there (a fit to published runs may have set one),
   * so the nominal cluster is the one written without the flag. */
  node = json_object_get_member (cal, scale);
  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) != G_TYPE_STRING &&
      json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    mean = json_node_get_double (node);
  set_normal (cal, scale, mean, mean * fit->e_max_se / fit->e_max);
  return TRUE;
}
