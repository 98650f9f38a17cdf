/* A checkpoint's redistribution from one TP x PP layout to another (issue 14,
 * docs/reshard.md "Whole models"): each block weight as an array stacked over the
 * layers - the layer dimension split over the pipeline stages, the weight's
 * tensor-parallel dimension over the TP ranks - planned by plx_reshard_plan on one
 * mesh that expresses both layouts. */
#include <string.h>

#include "parallax/plx-error.h"
#include "parallax/plx-reshard.h"

static void
sharding_of (PlxSharding *s, guint rank, guint layer_axes, guint first_axis, guint tp_dim, guint tp_axes)
{
  memset (s, 0, sizeof *s);
  s->rank = rank;
  for (guint a = 0; a < layer_axes; a++)
    s->axes[0][s->n_axes[0]++] = first_axis + a;
  for (guint a = 0; tp_dim > 0 && a < tp_axes; a++)
    s->axes[tp_dim][s->n_axes[tp_dim]++] = first_axis + layer_axes + a;
}

PlxReshardModel *
plx_reshard_model (const PlxModel   *model,
                   const PlxCluster *cluster,
                   guint             tp_from,
                   guint             pp_from,
                   guint             tp_to,
                   guint             pp_to,
                   gboolean          optimizer,
                   GError          **error)
{
  g_autoptr (PlxReshardModel) r = g_new0 (PlxReshardModel, 1);
  guint k;
  gboolean finer;

  if (tp_from == 0 || pp_from == 0 || tp_to == 0 || pp_to == 0 || (guint64) tp_from * pp_from != (guint64) tp_to * pp_to)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "TP %u x PP %u to TP %u x PP %u: the GPUs of a model copy "
                   "must stay as many (a change of data parallelism is not a redistribution)", tp_from, pp_from,
                   tp_to, pp_to);
      return NULL;
    }
  /* One mesh for both: with PP p -> p k (TP t k -> t), axes (p, k, t): the source's
   * stages are x and its TP ranks y, z; the target's stages x, y and its TP ranks z.
   * Row-major with TP innermost, as Megatron-LM numbers its ranks within a copy. */
  finer = pp_to % pp_from == 0;
  if (!finer && pp_from % pp_to != 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "PP %u to PP %u: one must divide the other (the stages "
                   "then nest and one mesh holds both layouts)", pp_from, pp_to);
      return NULL;
    }
  k = finer ? pp_to / pp_from : pp_from / pp_to;
  r->mesh.n_axes = 3;
  r->mesh.size[0] = finer ? pp_from : pp_to;
  r->mesh.size[1] = k;
  r->mesh.size[2] = finer ? tp_to : tp_from;
  r->arrays = g_array_new (FALSE, TRUE, sizeof (PlxReshardArray));
  g_array_set_clear_func (r->arrays, (GDestroyNotify) plx_reshard_array_clear);
  for (guint i = 0; i < model->n_layer_ops; i++)
    {
      const PlxOp *op = &model->layer_ops[i];
      guint layers = plx_model_op_layers (model, op);
      PlxReshardArray a = { 0 };
      /* The tensor-parallel dimension: a row-parallel weight's k, else its n. */
      guint tp_dim = op->split == PLX_SPLIT_TP ? (op->row_parallel ? 1u : 2u) : 0u;

      if (op->kind != PLX_OP_MATMUL || op->k * op->n == 0 || layers == 0 || op->expert)
        continue;
      a.name = op->name;
      a.shape.rank = 3;
      a.shape.dim[0] = layers;
      a.shape.dim[1] = op->k;
      a.shape.dim[2] = op->n;
      sharding_of (&a.from, 3, finer ? 1 : 2, 0, tp_dim, finer ? 2 : 1);
      sharding_of (&a.to, 3, finer ? 2 : 1, 0, tp_dim, finer ? 1 : 2);
      for (guint copy = 0; copy < (optimizer ? 2u : 1u); copy++)
        {
          /* The bf16 weight; with the optimizer, its fp32 master copy and two Adam
           * moments (one plan, three arrays). */
          a.shape.elem_bytes = copy == 0 ? 2 : 4;
          a.count = copy == 0 ? 1 : 3;
          a.plan = plx_reshard_plan (cluster, &r->mesh, &a.shape, &a.from, &a.to, error);
          if (a.plan == NULL)
            {
              g_prefix_error (error, "%s: ", op->name);
              return NULL;
            }
          r->time_s += a.count * a.plan->time_s;
          r->peak_bytes = MAX (r->peak_bytes, a.plan->peak_bytes);
          r->moved_arrays += a.count;
          g_array_append_val (r->arrays, a);
          a.plan = NULL;
        }
    }
  return g_steal_pointer (&r);
}

void
plx_reshard_array_clear (PlxReshardArray *array)
{
  g_clear_pointer (&array->plan, plx_reshard_plan_free);
}

void
plx_reshard_model_free (PlxReshardModel *r)
{
  if (r == NULL)
    return;
  if (r->arrays != NULL)
    g_array_unref (r->arrays);
  g_free (r);
}
