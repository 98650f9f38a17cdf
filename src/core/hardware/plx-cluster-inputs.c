/* The numeric inputs of a cluster file by name, and the ranges and distributions
 * that may stand in for them (docs/uncertainty.md). One table serves the loader (what
 * may be uncertain, within which bounds), the sampler (which field a draw sets) and
 * the sensitivity (every input it perturbs). */
#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "hardware/plx-cluster-inputs.h"
#include "base/plx-minmax.h"


typedef struct
{
  const char *path;
  double      lo, hi;       /* what plx_cluster_new_from_json admits */
  gboolean    whole_bytes;  /* read as an integer: the nominal value is rounded */
  gboolean    fixed;        /* no distribution: its draws would break the checks
                             * that tie it to other inputs (docs/uncertainty.md) */
} InputInfo;

static const InputInfo inputs[PLX_N_CLUSTER_INPUTS] = {
  [PLX_CLUSTER_IN_PEAK_BF16] = { "gpu.peak_flops.bf16", 1.0, 1e18, FALSE, FALSE },
  [PLX_CLUSTER_IN_PEAK_FP16] = { "gpu.peak_flops.fp16", 1.0, 1e18, FALSE, FALSE },
  [PLX_CLUSTER_IN_PEAK_FP8] = { "gpu.peak_flops.fp8", 1.0, 1e18, FALSE, FALSE },
  [PLX_CLUSTER_IN_PEAK_FP32] = { "gpu.peak_flops.fp32", 1.0, 1e18, FALSE, FALSE },
  [PLX_CLUSTER_IN_PEAK_TF32] = { "gpu.peak_flops.tf32", 1.0, 1e18, FALSE, FALSE },
  [PLX_CLUSTER_IN_HBM_BYTES] = { "gpu.hbm_bytes", 1.0, 1125899906842624.0, TRUE, FALSE },
  [PLX_CLUSTER_IN_HBM_BW] = { "gpu.hbm_bw_Bps", 1.0, 1e18, FALSE, FALSE },
  [PLX_CLUSTER_IN_RESERVED] = { "gpu.reserved_bytes", 0.0, 1125899906842624.0, TRUE, FALSE },
  [PLX_CLUSTER_IN_KERNEL_LAUNCH] = { "gpu.efficiency.kernel_launch_s", 0.0, 1.0, FALSE, FALSE },
  [PLX_CLUSTER_IN_ATTENTION] = { "gpu.efficiency.attention", 0.01, 1.0, FALSE, FALSE },
  [PLX_CLUSTER_IN_ATTENTION_PYTORCH] = { "gpu.efficiency.attention_pytorch", 0.01, 1.0, FALSE, FALSE },
  [PLX_CLUSTER_IN_TDP] = { "gpu.tdp_w", 1.0, 100000.0, FALSE, TRUE },
  [PLX_CLUSTER_IN_STATIC_POWER] = { "gpu.static_power_w", 0.0, 100000.0, FALSE, TRUE },
  [PLX_CLUSTER_IN_POWER_LIMIT] = { "gpu.power_limit_w", 1.0, 100000.0, FALSE, TRUE },
  [PLX_CLUSTER_IN_BOOST_CLOCK] = { "gpu.boost_clock_mhz", 1.0, 100000.0, FALSE, TRUE },
  [PLX_CLUSTER_IN_CLOCK] = { "gpu.clock_mhz", 1.0, 100000.0, FALSE, TRUE },
  [PLX_CLUSTER_IN_INTRA_BW] = { "intra_node.bw_Bps", 1.0, 1e18, FALSE, FALSE },
  [PLX_CLUSTER_IN_INTRA_LATENCY] = { "intra_node.latency_s", 0.0, 1.0, FALSE, FALSE },
  [PLX_CLUSTER_IN_INTER_BW] = { "inter_node.bw_Bps", 1.0, 1e18, FALSE, FALSE },
  [PLX_CLUSTER_IN_INTER_LATENCY] = { "inter_node.latency_s", 0.0, 1.0, FALSE, FALSE },
  [PLX_CLUSTER_IN_MATMUL_SCALE] = { "calibration.matmul_scale", 0.1, 10.0, FALSE, FALSE },
  [PLX_CLUSTER_IN_MEMORY_SCALE] = { "calibration.memory_scale", 0.1, 10.0, FALSE, FALSE },
  [PLX_CLUSTER_IN_NETWORK_SCALE] = { "calibration.network_scale", 0.1, 10.0, FALSE, FALSE },
  [PLX_CLUSTER_IN_LAYER_OVERHEAD] = { "calibration.layer_overhead_s", 0.0, 1.0, FALSE, FALSE },
  [PLX_CLUSTER_IN_OVERLAP_SLOWDOWN] = { "calibration.overlap_slowdown", 0.0, 0.9, FALSE, FALSE },
};

guint
plx_cluster_input_count (void)
{
  return PLX_N_CLUSTER_INPUTS;
}

double
plx_cluster_input_max (guint input)
{
  g_return_val_if_fail (input < PLX_N_CLUSTER_INPUTS, NAN);
  return inputs[input].hi;
}

const char *
plx_cluster_input_path (guint input)
{
  g_return_val_if_fail (input < PLX_N_CLUSTER_INPUTS, NULL);
  return inputs[input].path;
}

gint
plx_cluster_input_find (const char *path)
{
  for (guint i = 0; i < PLX_N_CLUSTER_INPUTS; i++)
    if (g_str_equal (inputs[i].path, path))
      return (gint) i;
  return -1;
}

double
plx_uncertain_input_nominal (const PlxUncertainInput *in)
{
  return in->kind == PLX_DIST_UNIFORM ? 0.5 * (in->a + in->b) : in->a;
}

double
plx_uncertain_input_quantile (const PlxUncertainInput *in,
                              double                   u)
{
  double p_lo, p_hi, x;

  if (in->kind == PLX_DIST_UNIFORM)
    return in->a + u * (in->b - in->a);
  if (in->b == 0.0)
    return in->a;
  /* A normal truncated to [lo, hi] (bandwidths and FLOP/s at 0 from below): its
   * inverse CDF is the normal's at u mapped into [Phi(lo), Phi(hi)] - exact, and
   * with no rejection loop to hang on a far tail. */
  p_lo = gsl_cdf_gaussian_P (in->lo - in->a, in->b);
  p_hi = gsl_cdf_gaussian_P (in->hi - in->a, in->b);
  x = in->a + gsl_cdf_gaussian_Pinv (p_lo + u * (p_hi - p_lo), in->b);
  /* Pinv rounds at the ends; the draw stays inside what the loader admits. */
  return CLAMP (x, in->lo, in->hi);
}

static gboolean
is_distribution (JsonNode *node)
{
  JsonObject *o;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return FALSE;
  o = json_node_get_object (node);
  return json_object_has_member (o, "min") || json_object_has_member (o, "max") ||
         json_object_has_member (o, "mean") || json_object_has_member (o, "sd");
}

static gboolean
read_bound (JsonObject *o, const char *key, const char *source, const char *path, double *out, GError **error)
{
  JsonNode *v = json_object_get_member (o, key);

  if (v == NULL || !JSON_NODE_HOLDS_VALUE (v) ||
      (json_node_get_value_type (v) != G_TYPE_DOUBLE && json_node_get_value_type (v) != G_TYPE_INT64) ||
      !isfinite (json_node_get_double (v)))
    {
      g_autofree char *text = plx_json_value_to_string (v);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: cluster.%s.%s: %s is not a finite number",
                   source, path, key, v == NULL ? "(missing)" : text);
      return FALSE;
    }
  *out = json_node_get_double (v);
  return TRUE;
}

static gboolean
parse_distribution (JsonObject *o, const char *source, const char *path, guint input, PlxUncertainInput *in,
                    GError **error)
{
  const InputInfo *info = &inputs[input];
  gboolean uniform = json_object_has_member (o, "min") || json_object_has_member (o, "max");
  GList *members = json_object_get_members (o);
  gboolean ok = TRUE;

  for (GList *l = members; l != NULL && ok; l = l->next)
    if (!(uniform ? (g_str_equal (l->data, "min") || g_str_equal (l->data, "max"))
                  : (g_str_equal (l->data, "mean") || g_str_equal (l->data, "sd"))))
      {
        g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                     "%s: cluster.%s: \"%s\" does not belong in a distribution: give {\"min\": a, \"max\": b} "
                     "(uniform) or {\"mean\": m, \"sd\": s} (normal)", source, path, (const char *) l->data);
        ok = FALSE;
      }
  g_list_free (members);
  if (!ok)
    return FALSE;
  in->input = input;
  in->kind = uniform ? PLX_DIST_UNIFORM : PLX_DIST_NORMAL;
  in->lo = info->lo;
  in->hi = info->hi;
  if (!read_bound (o, uniform ? "min" : "mean", source, path, &in->a, error) ||
      !read_bound (o, uniform ? "max" : "sd", source, path, &in->b, error))
    return FALSE;
  if (uniform && in->a > in->b)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: cluster.%s: min %g is above max %g", source,
                   path, in->a, in->b);
      return FALSE;
    }
  if (!uniform && in->b < 0.0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: cluster.%s: sd %g is negative", source, path,
                   in->b);
      return FALSE;
    }
  /* A uniform's whole range, a normal's mean, must be a value the file could give. */
  if (in->a < info->lo || (uniform ? in->b : in->a) > info->hi)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: cluster.%s: %s %g .. %g is outside %g .. %g",
                   source, path, uniform ? "the range" : "the mean", in->a, uniform ? in->b : in->a, info->lo,
                   info->hi);
      return FALSE;
    }
  return TRUE;
}

/* Walks the objects that hold numeric inputs; `prefix` is "" or "gpu." and so on. */
static gboolean
extract_in (JsonObject *obj, const char *prefix, const char *source, GPtrArray *out, GError **error)
{
  static const char *const containers[] = { "gpu", "peak_flops", "efficiency", "intra_node", "inter_node",
                                             "calibration", NULL };
  GList *members = json_object_get_members (obj);
  gboolean ok = TRUE;

  for (GList *l = members; l != NULL && ok; l = l->next)
    {
      const char *key = l->data;
      JsonNode *v = json_object_get_member (obj, key);
      g_autofree char *path = g_strconcat (prefix, key, NULL);

      if (is_distribution (v))
        {
          gint input = plx_cluster_input_find (path);
          PlxUncertainInput in;

          if (g_str_equal (path, "num_nodes") || g_str_equal (path, "gpus_per_node"))
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                           "%s: cluster.%s: takes a whole number; a range or distribution is refused (run one "
                           "scenario per size instead)", source, path);
              ok = FALSE;
            }
          else if (input < 0)
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                           "%s: cluster.%s: is not a numeric cluster input that may be a range or distribution "
                           "(docs/uncertainty.md lists them)", source, path);
              ok = FALSE;
            }
          else if (inputs[input].fixed)
            {
              g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                           "%s: cluster.%s: a range or distribution is refused here: its draws would break the "
                           "checks that tie power and clock inputs to each other", source, path);
              ok = FALSE;
            }
          else if (!parse_distribution (json_node_get_object (v), source, path, (guint) input, &in, error))
            ok = FALSE;
          else
            {
              double nominal = plx_uncertain_input_nominal (&in);
              if (inputs[input].whole_bytes)
                json_object_set_int_member (obj, key, (gint64) round (nominal));
              else
                json_object_set_double_member (obj, key, nominal);
              g_ptr_array_add (out, g_memdup2 (&in, sizeof in));
            }
        }
      else if (JSON_NODE_HOLDS_OBJECT (v) && g_strv_contains (containers, key))
        {
          g_autofree char *inner = g_strconcat (path, ".", NULL);
          ok = extract_in (json_node_get_object (v), inner, source, out, error);
        }
    }
  g_list_free (members);
  return ok;
}

static gint
by_input (gconstpointer pa, gconstpointer pb)
{
  const PlxUncertainInput *a = *(PlxUncertainInput *const *) pa, *b = *(PlxUncertainInput *const *) pb;
  return a->input < b->input ? -1 : a->input > b->input;
}

JsonNode *
plx_uncertainty_extract (JsonNode   *cluster,
                         const char *source,
                         GPtrArray  *out,
                         GError    **error)
{
  g_autoptr (JsonNode) copy = plx_json_deep_copy (cluster);

  if (JSON_NODE_HOLDS_OBJECT (copy) && !extract_in (json_node_get_object (copy), "", source, out, error))
    return NULL;
  /* The sampler draws in this order; the table's, not the JSON object's (which a
   * preset merge reorders), so a seed gives the same draws however the file is written. */
  g_ptr_array_sort (out, by_input);
  return g_steal_pointer (&copy);
}
