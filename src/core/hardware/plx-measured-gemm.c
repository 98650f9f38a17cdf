/* plx-measured-gemm.c: the cluster's measured GEMM table, read and looked up
 * (docs/calibration.md "Measured GEMMs in place of the roofline"). */
#include <math.h>
#include <stdlib.h>

#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "parallax/plx-cluster.h"

/* A step's trace has tens of distinct GEMM shapes; a table thousands long is not a
 * table of one model's GEMMs. */
#define MAX_MEASURED_GEMMS 4096
/* The GEMM sweep's bound on a dimension (docs/formats.md, --gemm). */
#define MAX_DIM G_GUINT64_CONSTANT (2147483647)

gboolean
plx_measured_gemm_dtype_from_string (const char *name,
                                     PlxDtype   *dtype)
{
  /* tf32 is a kernel's mode, not a tensor type a scenario can name. */
  return plx_dtype_from_string (name, dtype) && *dtype != PLX_DTYPE_TF32;
}

int
plx_gemm_shape_compare (PlxDtype dtype_a, double k_a, double m_a, double n_a,
                        PlxDtype dtype_b, double k_b, double m_b, double n_b)
{
  if (dtype_a != dtype_b)
    return dtype_a < dtype_b ? -1 : 1;
  if (k_a != k_b)
    return k_a < k_b ? -1 : 1;
  if (m_a != m_b)
    return m_a < m_b ? -1 : 1;
  if (n_a != n_b)
    return n_a < n_b ? -1 : 1;
  return 0;
}

/* Sizes up to MAX_DIM are exact as doubles. */
static int
compare_gemms (const void *pa, const void *pb)
{
  const PlxMeasuredGemm *a = pa, *b = pb;

  return plx_gemm_shape_compare (a->dtype, (double) a->k, (double) a->m, (double) a->n, b->dtype, (double) b->k,
                                 (double) b->m, (double) b->n);
}

static gboolean
parse_entry (JsonNode *node, const char *source, const char *path, PlxMeasuredGemm *g, GError **error)
{
  static const char *const keys[] = { "m", "k", "n", "dtype", "time_s", "count", NULL };
  JsonObject *o;
  const char *dtype = NULL;
  guint64 m = 0, n = 0;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_autofree char *value = plx_json_value_to_string (node);
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                   "%s: %s: %s is not an object {\"m\", \"k\", \"n\", \"dtype\", \"time_s\", \"count\"}", source, path,
                   value);
      return FALSE;
    }
  o = json_node_get_object (node);
  g->count = 1;
  if (!plx_json_check_keys (o, source, path, keys, error) ||
      !plx_json_get_uint (o, source, path, "m", TRUE, 1, MAX_DIM, &m, error) ||
      !plx_json_get_uint (o, source, path, "k", TRUE, 1, MAX_DIM, &g->k, error) ||
      !plx_json_get_uint (o, source, path, "n", TRUE, 1, MAX_DIM, &n, error) ||
      !plx_json_get_string (o, source, path, "dtype", TRUE, &dtype, error) ||
      /* A kernel takes at least a microsecond's fraction and no GEMM of a step a
       * minute; outside that the trace's clock or units were misread. */
      !plx_json_get_double (o, source, path, "time_s", TRUE, 1e-9, 60.0, &g->time_s, error) ||
      !plx_json_get_uint (o, source, path, "count", FALSE, 1, G_MAXUINT32, &g->count, error))
    return FALSE;
  if (!plx_measured_gemm_dtype_from_string (dtype, &g->dtype))
    {
      g_autofree char *safe = plx_printable (dtype);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%s: %s.dtype: \"%.40s\" is not one of bf16, fp16, fp8, fp32 (the tensors' type; a TF32 "
                   "kernel on fp32 tensors is fp32)", source, path, safe);
      return FALSE;
    }
  g->m = MIN (m, n);
  g->n = MAX (m, n);
  return TRUE;
}

gboolean
plx_measured_gemms_parse (JsonObject       *gpu,
                          const char       *source,
                          PlxMeasuredGemm **out,
                          guint            *n_out,
                          GError          **error)
{
  JsonNode *node = json_object_get_member (gpu, "measured_gemms");
  g_autofree PlxMeasuredGemm *table = NULL;
  JsonArray *array;
  guint n;

  *out = NULL;
  *n_out = 0;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node) || json_array_get_length (json_node_get_array (node)) > MAX_MEASURED_GEMMS)
    {
      g_autofree char *value = plx_json_value_to_string (node);
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                   "%s: cluster.gpu.measured_gemms: %.200s is not a list of at most %d measured GEMMs", source, value,
                   MAX_MEASURED_GEMMS);
      return FALSE;
    }
  array = json_node_get_array (node);
  n = json_array_get_length (array);
  if (n == 0)
    return TRUE;
  table = g_new0 (PlxMeasuredGemm, n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *path = g_strdup_printf ("cluster.gpu.measured_gemms[%u]", i);
      if (!parse_entry (json_array_get_element (array, i), source, path, &table[i], error))
        return FALSE;
    }
  qsort (table, n, sizeof *table, compare_gemms);
  for (guint i = 1; i < n; i++)
    if (compare_gemms (&table[i - 1], &table[i]) == 0)
      {
        /* Two times for one GEMM: which one holds is not for the reader to guess. */
        g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                     "%s: cluster.gpu.measured_gemms: the %s GEMM %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT
                     " by %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT " is listed twice (%g s and %g s)",
                     source, plx_dtype_to_string (table[i].dtype), table[i].m, table[i].k, table[i].k, table[i].n,
                     table[i - 1].time_s, table[i].time_s);
        return FALSE;
      }
  *out = g_steal_pointer (&table);
  *n_out = n;
  return TRUE;
}

/* A size the op model gives as a double (an expert's share of tokens may be
 * fractional): the whole number it is, or 0. */
static guint64
whole (double x)
{
  double r = nearbyint (x);

  if (!(r >= 1.0 && r <= (double) MAX_DIM) || fabs (x - r) > 1e-9 * r)
    return 0;
  return (guint64) r;
}

double
plx_measured_gemm_time (const PlxMeasuredGemm *table,
                        guint                  n,
                        PlxDtype               dtype,
                        double                 m,
                        double                 k,
                        double                 n_cols)
{
  guint64 a = whole (m), b = whole (n_cols);
  PlxMeasuredGemm key = { whole (k), MIN (a, b), MAX (a, b), dtype, 0.0, 0 };
  const PlxMeasuredGemm *hit;

  if (n == 0 || key.k == 0 || key.m == 0)
    return 0.0;
  hit = bsearch (&key, table, n, sizeof *table, compare_gemms);
  return hit != NULL ? hit->time_s : 0.0;
}
