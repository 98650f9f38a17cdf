#include <math.h>

#include "parallax/plx-cluster.h"
#include "hardware/plx-cluster-inputs.h"
#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "base/plx-presets.h"
#include "base/plx-minmax.h"

G_STATIC_ASSERT (PLX_COLLECTIVE_SEND_RECV + 1 == PLX_N_COLLECTIVE_KINDS);

const char *const plx_collective_kind_names[PLX_N_COLLECTIVE_KINDS + 1] = {
  "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv", NULL
};

#define MAX_CURVE_POINTS 256

/* `bytes` in GiB for a message: one decimal, or three digits below 0.05 GiB (so a
 * byte is not "0.0 GiB"). */
static void
gib_text (char buf[32], guint64 bytes)
{
  double gib = (double) bytes / 1073741824.0;

  g_snprintf (buf, 32, gib >= 0.05 ? "%.1f GiB" : "%.3g GiB", gib);
}

static PlxCurve *
parse_curve (JsonObject *obj,
             const char *source,
             const char *path,
             const char *key,
             GError    **error)
{
  JsonNode *node = json_object_get_member (obj, key);
  JsonArray *array;
  double x[MAX_CURVE_POINTS], y[MAX_CURVE_POINTS];
  guint n;
  g_autoptr (GError) local_error = NULL;
  PlxCurve *curve;

  if (node == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY,
                   "%s: %s.%s: required key is missing", source, path, key);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_ARRAY (node))
    goto bad;
  array = json_node_get_array (node);
  n = json_array_get_length (array);
  if (n == 0 || n > MAX_CURVE_POINTS)
    goto bad;
  for (guint i = 0; i < n; i++)
    {
      JsonNode *pt = json_array_get_element (array, i);
      JsonArray *pair;

      if (!JSON_NODE_HOLDS_ARRAY (pt))
        goto bad;
      pair = json_node_get_array (pt);
      if (json_array_get_length (pair) != 2)
        goto bad;
      for (guint j = 0; j < 2; j++)
        {
          JsonNode *v = json_array_get_element (pair, j);
          if (!JSON_NODE_HOLDS_VALUE (v) ||
              (json_node_get_value_type (v) != G_TYPE_DOUBLE &&
               json_node_get_value_type (v) != G_TYPE_INT64))
            goto bad;
        }
      x[i] = json_array_get_double_element (pair, 0);
      y[i] = json_array_get_double_element (pair, 1);
    }
  curve = plx_curve_new (x, y, n, &local_error);
  if (curve == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %s.%s: %s",
                   source, path, key, local_error->message);
      return NULL;
    }
  return curve;

bad:
  {
    g_autofree char *value = plx_json_value_to_string (node);
    g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                 "%s: %s.%s: %s is not a list of 1 to %d [size, efficiency] pairs",
                 source, path, key, value, MAX_CURVE_POINTS);
    return NULL;
  }
}

/* The link's optional efficiency_by_collective: a curve, as its efficiency, for any
 * of the collectives named (docs/formats.md). */
static gboolean
parse_curves_by_collective (JsonObject *link_obj,
                            const char *source,
                            const char *path,
                            PlxLink    *link,
                            GError    **error)
{
  g_autofree char *by_path = g_strdup_printf ("%s.efficiency_by_collective", path);
  JsonNode *node = json_object_get_member (link_obj, "efficiency_by_collective");
  JsonObject *obj;

  /* Absent (or null, as for any optional object): every collective reads the link's. */
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  obj = plx_json_get_object (link_obj, source, path, "efficiency_by_collective", TRUE, error);
  if (obj == NULL || !plx_json_check_keys (obj, source, by_path, plx_collective_kind_names, error))
    return FALSE;
  for (guint k = 0; k < PLX_N_COLLECTIVE_KINDS; k++)
    if (json_object_has_member (obj, plx_collective_kind_names[k]))
      {
        link->efficiency_by_collective[k] = parse_curve (obj, source, by_path, plx_collective_kind_names[k], error);
        if (link->efficiency_by_collective[k] == NULL)
          return FALSE;
      }
  return TRUE;
}

static gboolean
parse_link (JsonObject *parent,
            const char *source,
            const char *key,
            PlxLink    *link,
            GError    **error)
{
  g_autofree char *path = g_strdup_printf ("cluster.%s", key);
  g_autoptr (GError) local_error = NULL;
  JsonObject *obj = plx_json_get_object (parent, source, "cluster", key, TRUE, &local_error);
  const char *name = key;

  if (obj == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  if (!plx_json_get_string (obj, source, path, "name", FALSE, &name, error) ||
      !plx_json_get_double (obj, source, path, "bw_Bps", TRUE, 1.0, 1e18, &link->bw_Bps, error) ||
      !plx_json_get_double (obj, source, path, "latency_s", TRUE, 0.0, 1.0, &link->latency_s, error))
    return FALSE;
  link->bulk_latency_s = link->latency_s;
  if (!plx_json_get_double (obj, source, path, "bulk_latency_s", FALSE, 0.0, 1.0, &link->bulk_latency_s, error))
    return FALSE;
  link->name = g_strdup (name);
  link->efficiency = parse_curve (obj, source, path, "efficiency", error);
  return link->efficiency != NULL && parse_curves_by_collective (obj, source, path, link, error);
}

/* A cluster written inline may leave out the measured efficiency curves (FORMATS.md's
 * example does): it then gets the DGX A100 measurements, the best-documented set
 * (docs/cluster-presets.md). Values it gives win. */
static JsonNode *
with_default_calibration (JsonNode *node)
{
  g_autoptr (JsonNode) a100 = plx_presets_lookup (PLX_PRESET_CLUSTER, "dgx-a100-80gb", NULL);
  JsonObject *src, *base = json_object_new ();
  JsonObject *gpu = json_object_new (), *intra = json_object_new (), *inter = json_object_new ();
  g_autoptr (JsonNode) base_node = json_node_new (JSON_NODE_OBJECT);

  g_assert (a100 != NULL);
  src = json_node_get_object (a100);
  json_object_set_member (gpu, "efficiency",
                          plx_json_deep_copy (json_object_get_member (json_object_get_object_member (src, "gpu"), "efficiency")));
  json_object_set_member (intra, "efficiency",
                          plx_json_deep_copy (json_object_get_member (json_object_get_object_member (src, "intra_node"), "efficiency")));
  json_object_set_member (inter, "efficiency",
                          plx_json_deep_copy (json_object_get_member (json_object_get_object_member (src, "inter_node"), "efficiency")));
  json_object_set_object_member (base, "gpu", gpu);
  json_object_set_object_member (base, "intra_node", intra);
  json_object_set_object_member (base, "inter_node", inter);
  json_node_take_object (base_node, base);
  return plx_json_merge (base_node, node);
}

static const char *const flops_keys[PLX_N_DTYPES] = { "bf16", "fp16", "fp8", "fp32", "tf32" };

/* docs/formats.md §1 cluster, docs/cluster-presets.md. Checked on the cluster as
 * merged with its preset, so a misspelt override ("num_node") is caught too. */
static gboolean
check_cluster_keys (JsonObject *obj, const char *source, GError **error)
{
  static const char *const top[] = { "preset", "name", "num_nodes", "gpus_per_node", "gpu", "intra_node",
                                     "inter_node", "sources", "calibration", NULL };
  static const char *const calibration[] = { "matmul_scale", "memory_scale", "network_scale", "layer_overhead_s",
                                             "overlap_slowdown", "fitted_on", "carried_over_from", "engine", "cases",
                                             NULL };
  static const char *const gpu[] = { "name", "peak_flops", "hbm_bytes", "hbm_bw_Bps", "reserved_bytes",
                                     "efficiency", "tdp_w", "power_limit_w", "static_power_w", "boost_clock_mhz",
                                     "clock_mhz", "measured_gemms", NULL };
  static const char *const flops[] = { "bf16", "fp16", "fp8", "fp32", "tf32", NULL };
  static const char *const eff[] = { "matmul", "matmul_fp8", "matmul_tf32", "matmul_fp32", "memory",
                                     "kernel_launch_s", "attention", "attention_pytorch", NULL };
  static const char *const link[] = { "name", "bw_Bps", "latency_s", "bulk_latency_s", "efficiency",
                                      "efficiency_by_collective", NULL };
  static const char *const link_names[] = { "intra_node", "inter_node" };
  JsonNode *n;

  if (!plx_json_check_keys (obj, source, "cluster", top, error))
    return FALSE;
  n = json_object_get_member (obj, "calibration");
  if (n != NULL && JSON_NODE_HOLDS_OBJECT (n) &&
      !plx_json_check_keys (json_node_get_object (n), source, "cluster.calibration", calibration, error))
    return FALSE;
  n = json_object_get_member (obj, "gpu");
  if (n != NULL && JSON_NODE_HOLDS_OBJECT (n))
    {
      JsonObject *g = json_node_get_object (n);
      JsonNode *f = json_object_get_member (g, "peak_flops"), *e = json_object_get_member (g, "efficiency");
      if (!plx_json_check_keys (g, source, "cluster.gpu", gpu, error) ||
          (f != NULL && JSON_NODE_HOLDS_OBJECT (f) &&
           !plx_json_check_keys (json_node_get_object (f), source, "cluster.gpu.peak_flops", flops, error)) ||
          (e != NULL && JSON_NODE_HOLDS_OBJECT (e) &&
           !plx_json_check_keys (json_node_get_object (e), source, "cluster.gpu.efficiency", eff, error)))
        return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (link_names); i++)
    {
      g_autofree char *path = g_strdup_printf ("cluster.%s", link_names[i]);
      n = json_object_get_member (obj, link_names[i]);
      if (n != NULL && JSON_NODE_HOLDS_OBJECT (n) && !plx_json_check_keys (json_node_get_object (n), source, path, link, error))
        return FALSE;
    }
  return TRUE;
}

double
plx_cluster_clock_factor (double tdp_w,
                          double power_limit_w,
                          double static_power_w,
                          double boost_clock_mhz,
                          double clock_mhz)
{
  double power = 1.0, clock = 1.0;

  /* CMOS dynamic power is activity x switched capacitance x V^2 x f, and DVFS lowers
   * the voltage with the clock, V ~ f, so the power above the static part goes as f^3
   * (Kim et al. 2003, "Leakage current: Moore's law meets static power", IEEE
   * Computer 36(12): dynamic and static power). A GEMM-bound kernel at the board's full power runs at
   * the clock the curves were measured at; under a cap the firmware lowers the clock
   * until dynamic power fits: f / f_full = ((cap - static) / (tdp - static))^(1/3).
   * Memory-bound kernels draw far less (H200 decode: 137-300 W of 700 W, Ma et al.
   * 2026, arXiv 2605.11999 §1) and keep their pace. */
  if (tdp_w > 0.0 && power_limit_w > 0.0 && power_limit_w < tdp_w)
    power = cbrt ((power_limit_w - static_power_w) / (tdp_w - static_power_w));
  /* A locked clock (nvidia-smi --lock-gpu-clocks) is the ceiling, whatever the power. */
  if (boost_clock_mhz > 0.0 && clock_mhz > 0.0 && clock_mhz < boost_clock_mhz)
    clock = clock_mhz / boost_clock_mhz;
  return MIN (power, clock);
}

/* gpu.tdp_w, power_limit_w, static_power_w, boost_clock_mhz, clock_mhz: each cap needs
 * the value it is a fraction of. */
static gboolean
parse_power (JsonObject *gpu,
             const char *source,
             PlxCluster *c,
             GError    **error)
{
  const char *const path = "cluster.gpu";

  c->tdp_w = c->power_limit_w = c->static_power_w = c->boost_clock_mhz = c->clock_mhz = 0.0;
  if (!plx_json_get_double (gpu, source, path, "tdp_w", FALSE, 1.0, 100000.0, &c->tdp_w, error) ||
      !plx_json_get_double (gpu, source, path, "static_power_w", FALSE, 0.0, 100000.0, &c->static_power_w, error) ||
      !plx_json_get_double (gpu, source, path, "power_limit_w", FALSE, 1.0, 100000.0, &c->power_limit_w, error) ||
      !plx_json_get_double (gpu, source, path, "boost_clock_mhz", FALSE, 1.0, 100000.0, &c->boost_clock_mhz, error) ||
      !plx_json_get_double (gpu, source, path, "clock_mhz", FALSE, 1.0, 100000.0, &c->clock_mhz, error))
    return FALSE;
  if (c->tdp_w > 0.0 && c->static_power_w >= c->tdp_w)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%s: %s.static_power_w: %g W is not below %s.tdp_w = %g W", source, path, c->static_power_w, path,
                   c->tdp_w);
      return FALSE;
    }
  if (c->power_limit_w > 0.0)
    {
      if (c->tdp_w <= 0.0)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY,
                       "%s: %s.power_limit_w: %g W needs %s.tdp_w, the board power the efficiency curves were measured at",
                       source, path, c->power_limit_w, path);
          return FALSE;
        }
      if (c->power_limit_w > c->tdp_w || c->power_limit_w <= c->static_power_w)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "%s: %s.power_limit_w: %g W is outside %g W (static_power_w) to %g W (tdp_w)", source, path,
                       c->power_limit_w, c->static_power_w, c->tdp_w);
          return FALSE;
        }
    }
  if (c->clock_mhz > 0.0)
    {
      if (c->boost_clock_mhz <= 0.0)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY,
                       "%s: %s.clock_mhz: %g MHz needs %s.boost_clock_mhz, the clock the efficiency curves ran at",
                       source, path, c->clock_mhz, path);
          return FALSE;
        }
      if (c->clock_mhz > c->boost_clock_mhz)
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                       "%s: %s.clock_mhz: %g MHz is above boost_clock_mhz = %g MHz", source, path, c->clock_mhz,
                       c->boost_clock_mhz);
          return FALSE;
        }
    }
  c->compute_clock_factor = plx_cluster_clock_factor (c->tdp_w, c->power_limit_w, c->static_power_w,
                                                      c->boost_clock_mhz, c->clock_mhz);
  return TRUE;
}

PlxCluster *
plx_cluster_new_from_json (JsonNode   *node,
                           const char *source,
                           GError    **error)
{
  g_autoptr (PlxCluster) c = NULL;
  g_autoptr (JsonNode) merged = NULL;
  g_autoptr (GPtrArray) uncertain = g_ptr_array_new_with_free_func (g_free);
  JsonNode *nominal;
  JsonObject *obj, *gpu, *flops, *eff;
  const char *name = NULL, *gpu_name = "GPU";
  gboolean had_preset;
  guint64 nodes = 1, per_node = 8, hbm = 0, reserved = 0;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_autofree char *value = plx_json_value_to_string (node);
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: cluster: %s is not an object", source, value);
      return NULL;
    }
  merged = plx_presets_expand (PLX_PRESET_CLUSTER, node, source, "cluster", &had_preset, error);
  if (merged == NULL)
    return NULL;
  if (!had_preset)
    {
      JsonNode *calibrated = with_default_calibration (merged);
      json_node_unref (merged);
      merged = calibrated;
    }
  if (!check_cluster_keys (json_node_get_object (merged), source, error))
    return NULL;
  /* Ranges and distributions become their nominal values here, so everything below
   * (and every command) reads plain numbers (docs/uncertainty.md). */
  nominal = plx_uncertainty_extract (merged, source, uncertain, error);
  if (nominal == NULL)
    return NULL;
  json_node_unref (merged);
  merged = nominal;
  obj = json_node_get_object (merged);

  c = g_new0 (PlxCluster, 1);
  if (!plx_json_get_string (obj, source, "cluster", "name", FALSE, &name, error) ||
      !plx_json_get_uint (obj, source, "cluster", "num_nodes", FALSE, 1, PLX_CLUSTER_MAX_NODES, &nodes, error) ||
      !plx_json_get_uint (obj, source, "cluster", "gpus_per_node", FALSE, 1, 1024, &per_node, error))
    return NULL;
  if (nodes * per_node > PLX_CLUSTER_MAX_GPUS)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%s: cluster.num_nodes: %" G_GUINT64_FORMAT " nodes of %" G_GUINT64_FORMAT " GPUs is more than 10 million GPUs",
                   source, nodes, per_node);
      return NULL;
    }
  c->name = g_strdup (name ? name : "custom cluster");
  c->num_nodes = (guint) nodes;
  c->gpus_per_node = (guint) per_node;

  gpu = plx_json_get_object (obj, source, "cluster", "gpu", TRUE, error);
  if (gpu == NULL)
    return NULL;
  if (!plx_json_get_string (gpu, source, "cluster.gpu", "name", FALSE, &gpu_name, error) ||
      !plx_json_get_uint (gpu, source, "cluster.gpu", "hbm_bytes", TRUE, 1, G_GUINT64_CONSTANT (1) << 50, &hbm, error) ||
      !plx_json_get_double (gpu, source, "cluster.gpu", "hbm_bw_Bps", TRUE, 1.0, 1e18, &c->hbm_bw_Bps, error) ||
      !plx_json_get_uint (gpu, source, "cluster.gpu", "reserved_bytes", FALSE, 0, G_GUINT64_CONSTANT (1) << 50, &reserved, error))
    return NULL;
  if (reserved >= hbm)
    {
      /* Both keys with their values as written (scripts read them) and in GiB (a
       * reader does not count ten digits). */
      char hbm_gib[32], reserved_gib[32];
      gib_text (hbm_gib, hbm);
      gib_text (reserved_gib, reserved);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                   "%s: cluster.gpu.hbm_bytes=%" G_GUINT64_FORMAT " (%s) is %s cluster.gpu.reserved_bytes=%"
                   G_GUINT64_FORMAT " (%s): nothing is left to train in",
                   source, hbm, hbm_gib, hbm < reserved ? "less than" : "no more than", reserved, reserved_gib);
      return NULL;
    }
  if (!parse_power (gpu, source, c, error))
    return NULL;
  c->gpu_name = g_strdup (gpu_name);
  c->hbm_bytes = hbm;
  c->reserved_bytes = reserved;

  flops = plx_json_get_object (gpu, source, "cluster.gpu", "peak_flops", TRUE, error);
  if (flops == NULL)
    return NULL;
  for (guint i = 0; i < PLX_N_DTYPES; i++)
    if (!plx_json_get_double (flops, source, "cluster.gpu.peak_flops", flops_keys[i], FALSE,
                              1.0, 1e18, &c->peak_flops[i], error))
      return NULL;
  if (c->peak_flops[PLX_DTYPE_BF16] == 0.0 && c->peak_flops[PLX_DTYPE_FP16] == 0.0 &&
      c->peak_flops[PLX_DTYPE_FP32] == 0.0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY,
                   "%s: cluster.gpu.peak_flops: needs at least one of bf16, fp16, fp32", source);
      return NULL;
    }

  eff = plx_json_get_object (gpu, source, "cluster.gpu", "efficiency", TRUE, error);
  if (eff == NULL)
    return NULL;
  c->kernel_launch_s = c->attention_efficiency = c->attention_efficiency_pytorch = 0.0;
  if (!plx_json_get_double (eff, source, "cluster.gpu.efficiency", "kernel_launch_s", FALSE, 0.0, 1.0,
                            &c->kernel_launch_s, error) ||
      !plx_json_get_double (eff, source, "cluster.gpu.efficiency", "attention", FALSE, 0.01, 1.0,
                            &c->attention_efficiency, error))
    return NULL;
  c->attention_efficiency_pytorch = c->attention_efficiency;
  c->attention_pytorch_follows = !json_object_has_member (eff, "attention_pytorch");
  if (!plx_json_get_double (eff, source, "cluster.gpu.efficiency", "attention_pytorch", FALSE, 0.01, 1.0,
                            &c->attention_efficiency_pytorch, error))
    return NULL;
  c->matmul_efficiency = parse_curve (eff, source, "cluster.gpu.efficiency", "matmul", error);
  if (c->matmul_efficiency == NULL)
    return NULL;
  c->memory_efficiency = parse_curve (eff, source, "cluster.gpu.efficiency", "memory", error);
  if (c->memory_efficiency == NULL)
    return NULL;
  {
    static const char *const keys[] = { "matmul_fp8", "matmul_tf32", "matmul_fp32" };
    PlxCurve **curves[] = { &c->matmul_fp8_efficiency, &c->matmul_tf32_efficiency, &c->matmul_fp32_efficiency };

    for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
      if (json_object_has_member (eff, keys[i]))
        {
          *curves[i] = parse_curve (eff, source, "cluster.gpu.efficiency", keys[i], error);
          if (*curves[i] == NULL)
            return NULL;
        }
  }
  if (!plx_measured_gemms_parse (gpu, source, &c->measured_gemms, &c->n_measured_gemms, error))
    return NULL;

  if (!parse_link (obj, source, "intra_node", &c->intra_node, error) ||
      !parse_link (obj, source, "inter_node", &c->inter_node, error))
    return NULL;

  c->matmul_scale = c->memory_scale = c->intra_node.scale = c->inter_node.scale = 1.0;
  c->layer_overhead_s = c->overlap_slowdown = 0.0;
  if (json_object_has_member (obj, "calibration"))
    {
      JsonObject *cal = plx_json_get_object (obj, source, "cluster", "calibration", TRUE, error);
      if (cal == NULL ||
          !plx_json_get_double (cal, source, "cluster.calibration", "matmul_scale", FALSE, 0.1, 10.0, &c->matmul_scale, error) ||
          !plx_json_get_double (cal, source, "cluster.calibration", "memory_scale", FALSE, 0.1, 10.0, &c->memory_scale, error) ||
          !plx_json_get_double (cal, source, "cluster.calibration", "network_scale", FALSE, 0.1, 10.0, &c->inter_node.scale, error) ||
          !plx_json_get_double (cal, source, "cluster.calibration", "layer_overhead_s", FALSE, 0.0, 1.0, &c->layer_overhead_s, error) ||
          !plx_json_get_double (cal, source, "cluster.calibration", "overlap_slowdown", FALSE, 0.0, 0.9, &c->overlap_slowdown, error))
        return NULL;
    }

  if (uncertain->len > 0)
    c->uncertain = g_steal_pointer (&uncertain);
  return g_steal_pointer (&c);
}

PlxCluster *
plx_cluster_new_preset (const char *name,
                        GError    **error)
{
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  JsonObject *obj = json_object_new ();

  json_object_set_string_member (obj, "preset", name);
  json_node_take_object (node, obj);
  return plx_cluster_new_from_json (node, "preset", error);
}

static void
link_copy (PlxLink *dst, const PlxLink *src)
{
  dst->name = g_strdup (src->name);
  dst->bw_Bps = src->bw_Bps;
  dst->latency_s = src->latency_s;
  dst->bulk_latency_s = src->bulk_latency_s;
  dst->scale = src->scale;
  dst->efficiency = plx_curve_copy (src->efficiency);
  for (guint k = 0; k < PLX_N_COLLECTIVE_KINDS; k++)
    dst->efficiency_by_collective[k] = plx_curve_copy (src->efficiency_by_collective[k]);
}

static void
link_clear (PlxLink *link)
{
  g_free (link->name);
  plx_curve_free (link->efficiency);
  for (guint k = 0; k < PLX_N_COLLECTIVE_KINDS; k++)
    plx_curve_free (link->efficiency_by_collective[k]);
}

PlxCluster *
plx_cluster_copy (const PlxCluster *cluster)
{
  PlxCluster *c = g_memdup2 (cluster, sizeof *cluster);

  c->name = g_strdup (cluster->name);
  c->gpu_name = g_strdup (cluster->gpu_name);
  c->matmul_efficiency = plx_curve_copy (cluster->matmul_efficiency);
  c->memory_efficiency = plx_curve_copy (cluster->memory_efficiency);
  c->matmul_fp8_efficiency = plx_curve_copy (cluster->matmul_fp8_efficiency);
  c->matmul_tf32_efficiency = plx_curve_copy (cluster->matmul_tf32_efficiency);
  c->matmul_fp32_efficiency = plx_curve_copy (cluster->matmul_fp32_efficiency);
  c->measured_gemms = g_memdup2 (cluster->measured_gemms, cluster->n_measured_gemms * sizeof (PlxMeasuredGemm));
  link_copy (&c->intra_node, &cluster->intra_node);
  link_copy (&c->inter_node, &cluster->inter_node);
  if (cluster->uncertain != NULL)
    c->uncertain = g_ptr_array_ref (cluster->uncertain);
  return c;
}

void
plx_cluster_free (PlxCluster *cluster)
{
  if (cluster == NULL)
    return;
  g_free (cluster->name);
  g_free (cluster->gpu_name);
  plx_curve_free (cluster->matmul_efficiency);
  plx_curve_free (cluster->memory_efficiency);
  plx_curve_free (cluster->matmul_fp8_efficiency);
  plx_curve_free (cluster->matmul_tf32_efficiency);
  plx_curve_free (cluster->matmul_fp32_efficiency);
  g_free (cluster->measured_gemms);
  link_clear (&cluster->intra_node);
  link_clear (&cluster->inter_node);
  if (cluster->uncertain != NULL)
    g_ptr_array_unref (cluster->uncertain);
  g_free (cluster);
}

guint
plx_cluster_get_n_gpus (const PlxCluster *cluster)
{
  return cluster->num_nodes * cluster->gpus_per_node;
}

/* The field an input sets (plx-cluster-inputs.h names them); NULL for the two held
 * as whole bytes. */
static double *
input_field (PlxCluster *c, guint input)
{
  switch ((PlxClusterInputId) input)
    {
    case PLX_CLUSTER_IN_PEAK_BF16: return &c->peak_flops[PLX_DTYPE_BF16];
    case PLX_CLUSTER_IN_PEAK_FP16: return &c->peak_flops[PLX_DTYPE_FP16];
    case PLX_CLUSTER_IN_PEAK_FP8: return &c->peak_flops[PLX_DTYPE_FP8];
    case PLX_CLUSTER_IN_PEAK_FP32: return &c->peak_flops[PLX_DTYPE_FP32];
    case PLX_CLUSTER_IN_PEAK_TF32: return &c->peak_flops[PLX_DTYPE_TF32];
    case PLX_CLUSTER_IN_HBM_BW: return &c->hbm_bw_Bps;
    case PLX_CLUSTER_IN_KERNEL_LAUNCH: return &c->kernel_launch_s;
    case PLX_CLUSTER_IN_ATTENTION: return &c->attention_efficiency;
    case PLX_CLUSTER_IN_ATTENTION_PYTORCH: return &c->attention_efficiency_pytorch;
    case PLX_CLUSTER_IN_TDP: return &c->tdp_w;
    case PLX_CLUSTER_IN_STATIC_POWER: return &c->static_power_w;
    case PLX_CLUSTER_IN_POWER_LIMIT: return &c->power_limit_w;
    case PLX_CLUSTER_IN_BOOST_CLOCK: return &c->boost_clock_mhz;
    case PLX_CLUSTER_IN_CLOCK: return &c->clock_mhz;
    case PLX_CLUSTER_IN_INTRA_BW: return &c->intra_node.bw_Bps;
    case PLX_CLUSTER_IN_INTRA_LATENCY: return &c->intra_node.latency_s;
    case PLX_CLUSTER_IN_INTER_BW: return &c->inter_node.bw_Bps;
    case PLX_CLUSTER_IN_INTER_LATENCY: return &c->inter_node.latency_s;
    case PLX_CLUSTER_IN_MATMUL_SCALE: return &c->matmul_scale;
    case PLX_CLUSTER_IN_MEMORY_SCALE: return &c->memory_scale;
    case PLX_CLUSTER_IN_NETWORK_SCALE: return &c->inter_node.scale;
    case PLX_CLUSTER_IN_LAYER_OVERHEAD: return &c->layer_overhead_s;
    case PLX_CLUSTER_IN_OVERLAP_SLOWDOWN: return &c->overlap_slowdown;
    case PLX_CLUSTER_IN_HBM_BYTES:
    case PLX_CLUSTER_IN_RESERVED:
    case PLX_N_CLUSTER_INPUTS:
    default:
      break;
    }
  return NULL;
}

double
plx_cluster_input_get (const PlxCluster *cluster,
                       guint             input)
{
  g_return_val_if_fail (input < PLX_N_CLUSTER_INPUTS, NAN);
  if (input == PLX_CLUSTER_IN_HBM_BYTES)
    return (double) cluster->hbm_bytes;
  if (input == PLX_CLUSTER_IN_RESERVED)
    return (double) cluster->reserved_bytes;
  return *input_field ((PlxCluster *) cluster, input);
}

void
plx_cluster_input_set (PlxCluster *cluster,
                       guint       input,
                       double      value)
{
  g_return_if_fail (input < PLX_N_CLUSTER_INPUTS);
  if (input == PLX_CLUSTER_IN_HBM_BYTES || input == PLX_CLUSTER_IN_RESERVED)
    {
      guint64 *slot = input == PLX_CLUSTER_IN_HBM_BYTES ? &cluster->hbm_bytes : &cluster->reserved_bytes;
      *slot = value <= 0.0 ? 0 : (guint64) plx_clamp (round (value), 0.0, plx_cluster_input_max (input));
      /* A draw that reserves all the HBM leaves one byte usable (so it does not fit),
       * not an unsigned wrap-around to 16 EiB. */
      if (cluster->reserved_bytes >= cluster->hbm_bytes)
        cluster->reserved_bytes = cluster->hbm_bytes > 0 ? cluster->hbm_bytes - 1 : 0;
      return;
    }
  *input_field (cluster, input) = value;
  if (input == PLX_CLUSTER_IN_ATTENTION && cluster->attention_pytorch_follows)
    cluster->attention_efficiency_pytorch = value;
  if (input >= PLX_CLUSTER_IN_TDP && input <= PLX_CLUSTER_IN_CLOCK)
    cluster->compute_clock_factor = plx_cluster_clock_factor (cluster->tdp_w, cluster->power_limit_w,
                                                              cluster->static_power_w, cluster->boost_clock_mhz,
                                                              cluster->clock_mhz);
}
