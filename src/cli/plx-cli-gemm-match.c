/* The table `calibrate --kineto --scenario` prints: each GEMM product of the
 * scenario's matmul ops with the trace's time of its shape against the roofline's,
 * and what matched nothing on either side (docs/calibration.md). */
#include <stdio.h>

#include "plx-cli-gemm-match.h"
#include "base/plx-json.h"

static char *
shape_text (double m, double k, double n)
{
  return g_strdup_printf ("%.0fx%.0f*%.0fx%.0f", m, k, k, n);
}

void
plx_cli_gemm_match_print (const PlxGemmMatch *match)
{
  guint unmatched = 0, trace_left = 0;

  printf ("\nScenario GEMMs (one GPU, one micro-batch) matched by shape to the trace:\n");
  printf ("%-14s %-12s %-11s %-26s %-5s %5s %11s %12s %7s\n", "op", "part", "product", "shape (m x k * k x n)",
          "dtype", "per op", "measured us", "roofline us", "ratio");
  for (guint i = 0; i < match->rows->len; i++)
    {
      const PlxGemmMatchRow *r = &g_array_index (match->rows, PlxGemmMatchRow, i);
      g_autofree char *shape = NULL;

      if (r->measured_s <= 0.0)
        {
          unmatched++;
          continue;
        }
      shape = shape_text (r->m, r->k, r->n);
      printf ("%-14.14s %-12s %-11s %-26s %-5s %5g %11.2f %12.2f %7.3f\n", r->op, r->part,
              plx_gemm_product_to_string (r->product), shape, plx_dtype_to_string (r->dtype), r->per_op,
              r->measured_s * 1e6, r->roofline_s * 1e6, r->measured_s / r->roofline_s);
    }
  printf ("Not in the trace (%u; these keep the curves' time):\n", unmatched);
  for (guint i = 0; i < match->rows->len; i++)
    {
      const PlxGemmMatchRow *r = &g_array_index (match->rows, PlxGemmMatchRow, i);
      g_autofree char *shape = NULL;

      if (r->measured_s > 0.0)
        continue;
      shape = shape_text (r->m, r->k, r->n);
      printf ("  %-14.14s %-12s %-11s %-26s %-5s roofline %.2f us\n", r->op, r->part,
              plx_gemm_product_to_string (r->product), shape, plx_dtype_to_string (r->dtype), r->roofline_s * 1e6);
    }
  for (guint i = 0; i < match->trace->len; i++)
    trace_left += !g_array_index (match->trace, PlxTraceGemm, i).matched;
  printf ("Trace GEMM shapes no scenario GEMM has (%u, the longest total time first):\n", trace_left);
  for (guint i = 0; i < match->trace->len; i++)
    {
      const PlxTraceGemm *g = &g_array_index (match->trace, PlxTraceGemm, i);
      g_autofree char *shape = NULL;
      g_autofree char *op = NULL;

      if (g->matched)
        continue;
      shape = shape_text (g->m, g->k, g->n);
      op = plx_printable (g->op != NULL ? g->op : "");
      printf ("  %-16.16s %s%-26s %-5s %4u x %10.2f us\n", op, g->batch > 1.0 ? "batched " : "", shape,
              plx_dtype_to_string (g->dtype), g->instances, g->median_s * 1e6);
    }
  if (match->gemms_without_dims > 0)
    printf ("Trace GEMM ops without shapes (record_shapes=True records them): %u\n", match->gemms_without_dims);
}

static void
add_row (JsonBuilder *b, const PlxGemmMatchRow *r)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "op");
  json_builder_add_string_value (b, r->op);
  json_builder_set_member_name (b, "part");
  json_builder_add_string_value (b, r->part);
  json_builder_set_member_name (b, "product");
  json_builder_add_string_value (b, plx_gemm_product_to_string (r->product));
  json_builder_set_member_name (b, "m");
  json_builder_add_double_value (b, r->m);
  json_builder_set_member_name (b, "k");
  json_builder_add_double_value (b, r->k);
  json_builder_set_member_name (b, "n");
  json_builder_add_double_value (b, r->n);
  json_builder_set_member_name (b, "dtype");
  json_builder_add_string_value (b, plx_dtype_to_string (r->dtype));
  json_builder_set_member_name (b, "per_op");
  json_builder_add_double_value (b, r->per_op);
  json_builder_set_member_name (b, "roofline_s");
  json_builder_add_double_value (b, r->roofline_s);
  json_builder_set_member_name (b, "measured_s");
  if (r->measured_s > 0.0)
    json_builder_add_double_value (b, r->measured_s);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "ratio");
  if (r->measured_s > 0.0)
    json_builder_add_double_value (b, r->measured_s / r->roofline_s);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "instances");
  json_builder_add_int_value (b, r->instances);
  json_builder_end_object (b);
}

JsonNode *
plx_cli_gemm_match_to_json (const PlxGemmMatch *match)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "scenario_gemms");
  json_builder_begin_array (b);
  for (guint i = 0; i < match->rows->len; i++)
    add_row (b, &g_array_index (match->rows, PlxGemmMatchRow, i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "trace_gemms_unmatched");
  json_builder_begin_array (b);
  for (guint i = 0; i < match->trace->len; i++)
    {
      const PlxTraceGemm *g = &g_array_index (match->trace, PlxTraceGemm, i);
      if (g->matched)
        continue;
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "op");
      json_builder_add_string_value (b, g->op != NULL ? g->op : "");
      json_builder_set_member_name (b, "m");
      json_builder_add_double_value (b, g->m);
      json_builder_set_member_name (b, "k");
      json_builder_add_double_value (b, g->k);
      json_builder_set_member_name (b, "n");
      json_builder_add_double_value (b, g->n);
      json_builder_set_member_name (b, "batch");
      json_builder_add_double_value (b, g->batch);
      json_builder_set_member_name (b, "dtype");
      json_builder_add_string_value (b, plx_dtype_to_string (g->dtype));
      json_builder_set_member_name (b, "instances");
      json_builder_add_int_value (b, g->instances);
      json_builder_set_member_name (b, "median_s");
      json_builder_add_double_value (b, g->median_s);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "trace_gemms_without_dims");
  json_builder_add_int_value (b, match->gemms_without_dims);
  json_builder_set_member_name (b, "measured_gemms");
  json_builder_add_value (b, plx_gemm_match_table_json (match));
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

void
plx_cli_measured_gemms_print (const PlxScenario *sc)
{
  g_autoptr (GArray) rows = plx_gemm_match_cluster_table (sc->model, sc->cluster, sc->strategy);
  guint used = 0;

  if (rows == NULL)
    return;
  for (guint i = 0; i < rows->len; i++)
    used += g_array_index (rows, PlxGemmMatchRow, i).measured_s > 0.0;
  printf ("Measured GEMMs    %u of the model's %u GEMM products take the cluster's measured time "
          "(gpu.measured_gemms), the rest the curves':\n", used, rows->len);
  for (guint i = 0; i < rows->len; i++)
    {
      const PlxGemmMatchRow *r = &g_array_index (rows, PlxGemmMatchRow, i);
      g_autofree char *shape = NULL;

      if (r->measured_s <= 0.0)
        continue;
      shape = shape_text (r->m, r->k, r->n);
      printf ("  %-14.14s %-11s %-24s %-5s %10.2f us measured, %10.2f us by the curves\n", r->op,
              plx_gemm_product_to_string (r->product), shape, plx_dtype_to_string (r->dtype), r->measured_s * 1e6,
              r->roofline_s * 1e6);
    }
}

void
plx_cli_measured_gemms_add_json (const PlxScenario *sc,
                                 JsonObject        *out)
{
  g_autoptr (GArray) rows = plx_gemm_match_cluster_table (sc->model, sc->cluster, sc->strategy);
  g_autoptr (JsonBuilder) b = NULL;

  if (rows == NULL)
    return;
  b = json_builder_new ();
  json_builder_begin_array (b);
  for (guint i = 0; i < rows->len; i++)
    if (g_array_index (rows, PlxGemmMatchRow, i).measured_s > 0.0)
      add_row (b, &g_array_index (rows, PlxGemmMatchRow, i));
  json_builder_end_array (b);
  json_object_set_member (out, "measured_gemms", json_builder_get_root (b));
}
