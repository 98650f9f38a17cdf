/* plx-kineto-match.c: the trace's GEMMs by shape, matched to the scenario's
 * (docs/calibration.md "Measured GEMMs in place of the roofline"). */
#include <math.h>
#include <stdlib.h>

#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "calibrate/plx-kineto-match.h"

#include "cost/plx-costing.h"

static const char *const product_names[PLX_N_GEMM_PRODUCTS] = { "forward", "data grad", "weight grad" };

const char *
plx_gemm_product_to_string (PlxGemmProduct product)
{
  return product < PLX_N_GEMM_PRODUCTS ? product_names[product] : "?";
}

/* One trace GEMM instance, keyed for grouping. */
typedef struct
{
  double    k, m, n, batch;   /* m <= n */
  PlxDtype  dtype;
  double    seconds;
  guint     op;               /* index into the trace's ops */
} Instance;

/* The measured table's order of shapes, the batch after the dtype. */
static int
compare_key (const Instance *a, const Instance *b)
{
  if (a->dtype == b->dtype && a->batch != b->batch)
    return a->batch < b->batch ? -1 : 1;
  return plx_gemm_shape_compare (a->dtype, a->k, a->m, a->n, b->dtype, b->k, b->m, b->n);
}

static int
compare_instances (const void *pa, const void *pb)
{
  const Instance *a = pa, *b = pb;
  int c = compare_key (a, b);

  if (c != 0)
    return c;
  return a->seconds < b->seconds ? -1 : a->seconds > b->seconds ? 1 : 0;
}

static gint
by_total_time (gconstpointer pa, gconstpointer pb)
{
  const PlxTraceGemm *a = pa, *b = pb;
  return a->total_s > b->total_s ? -1 : a->total_s < b->total_s ? 1 : 0;
}

static void
trace_gemm_clear (gpointer p)
{
  g_free (((PlxTraceGemm *) p)->op);
}

void
plx_gemm_match_free (PlxGemmMatch *match)
{
  if (match == NULL)
    return;
  g_array_unref (match->rows);
  g_array_unref (match->trace);
  g_free (match);
}

/* The trace's GEMM ops grouped by shape and dtype: instances, median and total time.
 * The median, as for the curve points (plx-kineto-fold.c): a kernel slowed by a
 * collective running beside it does not move it. */
static GArray *
trace_gemms (const PlxKinetoTrace *trace, guint *without_dims)
{
  g_autoptr (GArray) inst = g_array_new (FALSE, FALSE, sizeof (Instance));
  GArray *out = g_array_new (FALSE, FALSE, sizeof (PlxTraceGemm));

  g_array_set_clear_func (out, trace_gemm_clear);
  *without_dims = 0;
  for (guint i = 0; i < trace->ops->len; i++)
    {
      const PlxKinetoOp *op = &g_array_index (trace->ops, PlxKinetoOp, i);
      Instance x;

      if (op->kclass != PLX_KERNEL_GEMM)
        continue;
      if (op->gemm_m <= 0.0 || op->kernel_us <= 0.0)
        {
          (*without_dims)++;
          continue;
        }
      x.k = op->gemm_k;
      x.m = MIN (op->gemm_m, op->gemm_n);
      x.n = MAX (op->gemm_m, op->gemm_n);
      x.batch = op->gemm_batch;
      /* A time is what ran with these tensors, whichever math mode the library
       * chose: a float GEMM on TF32 tensor cores is an fp32 GEMM of the scenario. */
      x.dtype = op->dtype == PLX_DTYPE_TF32 ? PLX_DTYPE_FP32 : op->dtype;
      x.seconds = op->kernel_us * 1e-6;
      x.op = i;
      g_array_append_val (inst, x);
    }
  g_array_sort (inst, (GCompareFunc) compare_instances);
  for (guint lo = 0, hi; lo < inst->len; lo = hi)
    {
      const Instance *a = &g_array_index (inst, Instance, lo);
      PlxTraceGemm g = { 0 };
      guint n;

      for (hi = lo + 1; hi < inst->len && compare_key (a, &g_array_index (inst, Instance, hi)) == 0; hi++)
        ;
      n = hi - lo;
      g.op = g_strdup (g_array_index (trace->ops, PlxKinetoOp, a->op).name);
      g.k = a->k;
      g.m = a->m;
      g.n = a->n;
      g.batch = a->batch;
      g.dtype = a->dtype;
      g.instances = n;
      g.median_s = n % 2 == 1 ? g_array_index (inst, Instance, lo + n / 2).seconds
                              : 0.5 * (g_array_index (inst, Instance, lo + n / 2 - 1).seconds +
                                       g_array_index (inst, Instance, lo + n / 2).seconds);
      for (guint j = lo; j < hi; j++)
        g.total_s += g_array_index (inst, Instance, j).seconds;
      g_array_append_val (out, g);
    }
  return out;
}

static PlxTraceGemm *
find_trace_gemm (GArray *trace, PlxDtype dtype, const double shape[3])
{
  Instance key = { shape[1], MIN (shape[0], shape[2]), MAX (shape[0], shape[2]), 1.0, dtype, 0.0, 0 };

  for (guint i = 0; i < trace->len; i++)
    {
      PlxTraceGemm *g = &g_array_index (trace, PlxTraceGemm, i);
      Instance have = { g->k, g->m, g->n, g->batch, g->dtype, 0.0, 0 };
      if (compare_key (&key, &have) == 0)
        return g;
    }
  return NULL;
}

static void
match_ops (const PlxOp *ops, guint n_ops, const char *part, const PlxShardContext *ctx, const PlxCluster *cluster,
           GArray *trace, GArray *rows)
{
  for (guint i = 0; i < n_ops; i++)
    {
      PlxMatmulGemms g;

      if (ops[i].kind != PLX_OP_MATMUL)
        continue;
      plx_matmul_gemms (&ops[i], ctx, cluster, &g);
      for (guint p = 0; p < g.n_pieces; p++)
        for (guint j = 0; j < PLX_N_GEMM_PRODUCTS; j++)
          {
            PlxGemmMatchRow r = { ops[i].name, part, (PlxGemmProduct) j, 0, 0, 0, g.dtype,
                                  g.kernels * g.piece[p].count, g.piece[p].time_s, 0.0, 0 };
            double shape[3];
            PlxTraceGemm *t;

            plx_gemm_product_shape (&g.piece[p], r.product, shape);
            r.m = shape[0];
            r.k = shape[1];
            r.n = shape[2];
            /* The trace's sizes are whole numbers; an expert's average share of the
             * tokens seldom is, and then nothing ran at that size. */
            if (trace == NULL)
              {
                /* What the op cost will use: the cluster's table. */
                r.measured_s = plx_measured_gemm_time (cluster->measured_gemms, cluster->n_measured_gemms, g.dtype,
                                                       shape[0], shape[1], shape[2]);
                g_array_append_val (rows, r);
                continue;
              }
            t = find_trace_gemm (trace, g.dtype, shape);
            if (t != NULL)
              {
                r.measured_s = t->median_s;
                r.instances = t->instances;
                t->matched = TRUE;
              }
            g_array_append_val (rows, r);
          }
    }
}

PlxGemmMatch *
plx_gemm_match (const PlxKinetoTrace *trace,
                const PlxModel       *model,
                const PlxCluster     *cluster,
                const PlxStrategy    *strategy,
                GError              **error)
{
  PlxGemmMatch *match;
  PlxCosting cx;

  if (strategy->workload != PLX_WORKLOAD_TRAINING)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                   "--scenario: strategy.workload is \"%s\": GEMMs are matched for a training step",
                   plx_workload_to_string (strategy->workload));
      return NULL;
    }
  /* The same shard context the engines cost ops with (plx-costing.c). */
  plx_costing_init (&cx, model, cluster, strategy, (double) strategy->micro_batch_size);
  match = g_new0 (PlxGemmMatch, 1);
  match->trace = trace_gemms (trace, &match->gemms_without_dims);
  match->rows = g_array_new (FALSE, FALSE, sizeof (PlxGemmMatchRow));
  match_ops (model->pre_ops, model->n_pre_ops, "before blocks", &cx.ctx, cluster, match->trace, match->rows);
  match_ops (model->layer_ops, model->n_layer_ops, "block", &cx.ctx, cluster, match->trace, match->rows);
  match_ops (model->post_ops, model->n_post_ops, "after blocks", &cx.ctx, cluster, match->trace, match->rows);
  g_array_sort (match->trace, by_total_time);
  return match;
}

GArray *
plx_gemm_match_cluster_table (const PlxModel    *model,
                              const PlxCluster  *cluster,
                              const PlxStrategy *strategy)
{
  GArray *rows;
  PlxCosting cx;

  if (cluster->n_measured_gemms == 0 || strategy->workload != PLX_WORKLOAD_TRAINING)
    return NULL;
  plx_costing_init (&cx, model, cluster, strategy, (double) strategy->micro_batch_size);
  rows = g_array_new (FALSE, FALSE, sizeof (PlxGemmMatchRow));
  match_ops (model->pre_ops, model->n_pre_ops, "before blocks", &cx.ctx, cluster, NULL, rows);
  match_ops (model->layer_ops, model->n_layer_ops, "block", &cx.ctx, cluster, NULL, rows);
  match_ops (model->post_ops, model->n_post_ops, "after blocks", &cx.ctx, cluster, NULL, rows);
  return rows;
}

JsonNode *
plx_gemm_match_table_json (const PlxGemmMatch *match)
{
  JsonArray *a = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; i < match->trace->len; i++)
    {
      const PlxTraceGemm *g = &g_array_index (match->trace, PlxTraceGemm, i);
      JsonObject *o;

      if (!g->matched)
        continue;
      o = json_object_new ();
      json_object_set_int_member (o, "m", (gint64) g->m);
      json_object_set_int_member (o, "k", (gint64) g->k);
      json_object_set_int_member (o, "n", (gint64) g->n);
      json_object_set_string_member (o, "dtype", plx_dtype_to_string (g->dtype));
      json_object_set_double_member (o, "time_s", g->median_s);
      json_object_set_int_member (o, "count", g->instances);
      json_array_add_object_element (a, o);
    }
  json_node_take_array (node, a);
  return node;
}

gboolean
plx_gemm_match_write_cluster (JsonNode           *cluster_json,
                              const PlxGemmMatch *match,
                              const char         *trace_name,
                              GError            **error)
{
  JsonObject *root = json_node_get_object (cluster_json), *gpu, *sources;
  JsonNode *table = plx_gemm_match_table_json (match);
  guint shapes = json_array_get_length (json_node_get_array (table)), products = 0;
  g_autofree char *note = NULL;

  for (guint i = 0; i < match->rows->len; i++)
    products += g_array_index (match->rows, PlxGemmMatchRow, i).measured_s > 0.0;
  if (!json_object_has_member (root, "gpu"))
    json_object_set_object_member (root, "gpu", json_object_new ());
  gpu = json_object_get_object_member (root, "gpu");
  json_object_set_member (gpu, "measured_gemms", table);
  if (!json_object_has_member (root, "sources"))
    json_object_set_object_member (root, "sources", json_object_new ());
  sources = json_object_get_object_member (root, "sources");
  note = g_strdup_printf ("%s: %u GEMM shapes measured, timing %u of the scenario's %u GEMM products in place of "
                          "the roofline (parallax-cli calibrate --kineto --scenario; docs/calibration.md)",
                          trace_name, shapes, products, match->rows->len);
  json_object_set_string_member (sources, "kineto_gemms", note);
  {
    g_autoptr (PlxCluster) check = plx_cluster_new_from_json (cluster_json, "the written cluster", error);
    return check != NULL;
  }
}
