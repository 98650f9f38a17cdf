/* A checkpoint's redistribution from one TP x PP layout to another (issue 14,
 * docs/reshard.md "Whole models"): each block parameter as an array stacked over the
 * layers - the layer dimension split over the pipeline stages, the parameter's
 * tensor-parallel dimension over the TP ranks - planned by plx_reshard_plan on one
 * mesh that expresses both layouts; the end stages' own parameters on the mesh of
 * one stage's GPUs. */
#include <string.h>

#include "parallax/plx-error.h"
#include "parallax/plx-reshard.h"

typedef struct
{
  PlxReshardModel  *r;
  const PlxCluster *cluster;
  gboolean          optimizer;
  gboolean          finer;   /* the target has more stages than the source */
  guint             weight_shards, optimizer_shards;
  guint             experts_per_rank; /* a MoE model's experts on each expert-parallel rank */
  guint             ep;
  gboolean          expert_now;       /* the array being added is an expert's */
  PlxMesh           stage;   /* one old or new end stage: (k, TP ranks of the smaller stage) */
} Builder;

/* Array names live as long as the program, as the ops' own do. */
static const char *
interned (const char *name, const char *suffix)
{
  g_autofree char *text = g_strconcat (name, suffix, NULL);

  return g_intern_string (text);
}

/* "[x,-,yz]": the layout of an array of `rank` with `first` on dim 0 (NULL: none)
 * and `tp` on dim `tp_dim` (rank: none), and "+partial" when given. */
static gboolean
layout (const PlxMesh *mesh, guint rank, const char *first, guint tp_dim, const char *tp, const char *partial,
        PlxSharding *s, GError **error)
{
  GString *text = g_string_new ("[");
  gboolean ok;

  for (guint d = 0; d < rank; d++)
    {
      const char *axes = d == 0 && first != NULL ? first : d == tp_dim ? tp : "-";

      g_string_append_printf (text, "%s%s", d ? "," : "", axes);
    }
  g_string_append_printf (text, "]%s%s", partial ? "+" : "", partial ? partial : "");
  ok = plx_sharding_parse (text->str, mesh, rank, s, error);
  g_string_free (text, TRUE);
  return ok;
}

/* The array, and with the optimizer its fp32 master copy and two Adam moments (one
 * plan, three arrays). */
static gboolean
add_array (Builder *b, const char *name, const char *where, const PlxMesh *mesh, PlxArrayShape shape,
           const PlxSharding *from, const PlxSharding *to, GError **error)
{
  for (guint copy = 0; copy < (b->optimizer ? 2u : 1u); copy++)
    {
      PlxReshardArray a = { .name = name, .where = where, .shape = shape, .from = *from, .to = *to };

      /* An expert's ZeRO group is the data-parallel ranks that hold the same
       * experts, ep times fewer (Megatron-LM's expert data parallelism). */
      guint shards = MAX ((copy == 0 ? b->weight_shards : b->optimizer_shards) / (b->expert_now ? b->ep : 1u), 1u);

      a.shape.elem_bytes = copy == 0 ? 2 : 4;
      a.count = copy == 0 ? 1 : 3;
      /* ZeRO: each data-parallel rank of a shard group keeps 1/shards of the array
       * and moves its own slice, the ranks at once; taken along the last
       * dimension (Megatron's distributed optimizer cuts a flat buffer instead,
       * which changes which elements, not how many). */
      a.shape.dim[a.shape.rank - 1] = (a.shape.dim[a.shape.rank - 1] + shards - 1) / shards;
      a.plan = plx_reshard_plan (b->cluster, mesh, &a.shape, &a.from, &a.to, error);
      if (a.plan == NULL)
        {
          g_prefix_error (error, "%s: ", name);
          return FALSE;
        }
      b->r->time_s += a.count * a.plan->time_s;
      b->r->peak_bytes = MAX (b->r->peak_bytes, a.plan->peak_bytes);
      b->r->moved_arrays += a.count;
      g_array_append_val (b->r->arrays, a);
    }
  return TRUE;
}

/* One block parameter over the copy's mesh (p, k, t): stages on x (and y), TP ranks
 * on y z (or z); `tp_dim` the dimension TP splits (rank: none). */
static gboolean
add_block_array (Builder *b, const char *name, guint rank, const guint64 *dims, guint tp_dim, GError **error)
{
  PlxArrayShape shape = { .rank = rank };
  PlxSharding from, to;

  memcpy (shape.dim, dims, rank * sizeof dims[0]);
  if (!layout (&b->r->mesh, rank, b->finer ? "x" : "xy", tp_dim, b->finer ? "yz" : "z", NULL, &from, error) ||
      !layout (&b->r->mesh, rank, b->finer ? "xy" : "x", tp_dim, b->finer ? "z" : "yz", NULL, &to, error))
    return FALSE;
  return add_array (b, name, "blocks", &b->r->mesh, shape, &from, &to, error);
}

/* An end stage's parameter on the mesh (k, t) of the larger of its old and new
 * stage, x the new axis: with more stages the new stage is the x = 0 row of the old
 * (TP over x y -> over y; the other rows drop their copy); with fewer, the old stage
 * is the x = 0 row of the new, whose other rows hold nothing yet - a partial sum
 * over x whose other parts are zero, so the plan's reduce-scatter or all-reduce
 * carries a scatter's or a broadcast's traffic (broadcast = scatter + all-gather as
 * all-reduce = reduce-scatter + all-gather: the long-vector algorithms of Chan, Heimlich,
 * Purkayastha and van de Geijn 2007, "Collective communication: theory, practice, and
 * experience"). */
static gboolean
add_stage_array (Builder *b, const char *name, const char *where, guint rank, const guint64 *dims, guint tp_dim,
                 GError **error)
{
  PlxArrayShape shape = { .rank = rank };
  PlxSharding from, to;

  memcpy (shape.dim, dims, rank * sizeof dims[0]);
  if (!layout (&b->stage, rank, NULL, tp_dim, b->finer ? "xy" : "y", b->finer ? NULL : "x", &from, error) ||
      !layout (&b->stage, rank, NULL, tp_dim, b->finer ? "y" : "xy", NULL, &to, error))
    return FALSE;
  return add_array (b, name, where, &b->stage, shape, &from, &to, error);
}

static gboolean
add_block_op (Builder *b, const PlxModel *model, const PlxOp *op, GError **error)
{
  guint64 layers = plx_model_op_layers (model, op);
  gboolean tp = op->split == PLX_SPLIT_TP;

  if (layers == 0 || op->params == 0)
    return TRUE;
  if (op->expert)
    {
      /* Experts: [L, experts, k, n] per expert-parallel rank - expert parallelism
       * comes out of data parallelism (Megatron-LM's --expert-model-parallel-size),
       * which stays, so each rank moves its own experts' weights as the layers
       * change stage and tensor parallelism changes; TP as for a dense layer. A
       * non-matmul expert parameter, [L, experts, size]. */
      gboolean ok;

      b->expert_now = TRUE;
      if (op->kind == PLX_OP_MATMUL && op->k * op->n > 0 && op->params == op->k * op->n)
        {
          guint64 w[4] = { layers, b->experts_per_rank, op->k, op->n };

          ok = add_block_array (b, op->name, 4, w, tp ? (op->row_parallel ? 2u : 3u) : 4u, error);
        }
      else
        {
          guint64 dims[3] = { layers, b->experts_per_rank, op->params };

          ok = add_block_array (b, op->name, 3, dims, tp ? 2u : 3u, error);
        }
      b->expert_now = FALSE;
      return ok;
    }
  if (op->kind == PLX_OP_MATMUL && op->k * op->n > 0 && op->params >= op->k * op->n)
    {
      /* The weight, TP over k when row-parallel, else over n; a column-parallel
       * layer's bias is split with its outputs, a row-parallel one's added after the
       * all-reduce, whole on every rank (Shoeybi et al. 2019 §3). */
      guint64 w[3] = { layers, op->k, op->n }, bias[2] = { layers, op->params - op->k * op->n };

      if (!add_block_array (b, op->name, 3, w, tp ? (op->row_parallel ? 1u : 2u) : 3u, error))
        return FALSE;
      return bias[1] == 0 || add_block_array (b, interned (op->name, ".bias"), 2, bias,
                                              tp && !op->row_parallel ? 1u : 2u, error);
    }
  /* Norm gains and other small parameters: whole on every TP rank unless the op
   * splits them. */
  {
    guint64 dims[2] = { layers, op->params };

    return add_block_array (b, op->name, 2, dims, tp ? 1u : 2u, error);
  }
}

static gboolean
add_stage_op (Builder *b, const PlxModel *model, const PlxOp *op, const char *where, GError **error)
{
  gboolean tp = op->split == PLX_SPLIT_TP;

  if (op->kind == PLX_OP_MATMUL && op->k * op->n > 0)
    {
      guint64 w[2] = { op->k, op->n }, table[2] = { op->n, op->k };

      if (op->params >= op->k * op->n)
        return add_stage_array (b, op->name, where, 2, w, tp ? (op->row_parallel ? 0u : 1u) : 2u, error);
      /* A tied LM head: the last stage keeps a copy of the embedding table [V, h],
       * split over the vocabulary (Shoeybi et al. 2019 §3; Narayanan et al. 2021 keep
       * the copy on the last stage); with one stage the first's table serves. */
      if (model->tied_embeddings && (b->finer || b->r->mesh.size[0] > 1))
        return add_stage_array (b, interned (op->name, " (tied copy)"), where, 2, table, tp ? 0u : 2u, error);
      return TRUE;
    }
  if (op->params == 0)
    return TRUE;
  if (op->kind == PLX_OP_EMBEDDING && model->vocab > 0 && op->params % model->vocab == 0)
    {
      /* [V, h], vocabulary-parallel. */
      guint64 table[2] = { model->vocab, op->params / model->vocab };

      return add_stage_array (b, op->name, where, 2, table, tp ? 0u : 2u, error);
    }
  {
    guint64 dims[1] = { op->params };

    return add_stage_array (b, op->name, where, 1, dims, tp ? 0u : 1u, error);
  }
}

static PlxReshardModel *
reshard_model (const PlxModel *model, const PlxCluster *cluster, guint tp_from, guint pp_from, guint tp_to,
               guint pp_to, gboolean optimizer, guint weight_shards, guint optimizer_shards, guint ep,
               GError **error)
{
  g_autoptr (PlxReshardModel) r = g_new0 (PlxReshardModel, 1);
  Builder b = { .r = r, .cluster = cluster, .optimizer = optimizer, .weight_shards = MAX (weight_shards, 1u),
                .optimizer_shards = MAX (optimizer_shards, 1u),
                .experts_per_rank = (MAX (model->experts, 1u) + MAX (ep, 1u) - 1) / MAX (ep, 1u),
                .ep = MAX (ep, 1u) };
  guint k;

  r->weight_shards = b.weight_shards;
  r->optimizer_shards = b.optimizer_shards;

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
  b.finer = pp_to % pp_from == 0;
  if (!b.finer && pp_from % pp_to != 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "PP %u to PP %u: one must divide the other (the stages "
                   "then nest and one mesh holds both layouts)", pp_from, pp_to);
      return NULL;
    }
  k = b.finer ? pp_to / pp_from : pp_from / pp_to;
  r->mesh.n_axes = 3;
  r->mesh.size[0] = b.finer ? pp_from : pp_to;
  r->mesh.size[1] = k;
  r->mesh.size[2] = b.finer ? tp_to : tp_from;
  b.stage.n_axes = 2;
  b.stage.size[0] = k;
  b.stage.size[1] = r->mesh.size[2];
  r->arrays = g_array_new (FALSE, TRUE, sizeof (PlxReshardArray));
  g_array_set_clear_func (r->arrays, (GDestroyNotify) plx_reshard_array_clear);
  for (guint i = 0; i < model->n_layer_ops; i++)
    if (!add_block_op (&b, model, &model->layer_ops[i], error))
      return NULL;
  for (guint i = 0; i < model->n_pre_ops; i++)
    if (!add_stage_op (&b, model, &model->pre_ops[i], "first stage", error))
      return NULL;
  for (guint i = 0; i < model->n_post_ops; i++)
    if (!add_stage_op (&b, model, &model->post_ops[i], "last stage", error))
      return NULL;
  return g_steal_pointer (&r);
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
  return reshard_model (model, cluster, tp_from, pp_from, tp_to, pp_to, optimizer, 1, 1, 1, error);
}

PlxReshardModel *
plx_reshard_scenario (const PlxScenario *scenario,
                      guint              tp_to,
                      guint              pp_to,
                      gboolean           optimizer,
                      GError           **error)
{
  const PlxStrategy *s = scenario->strategy;
  /* ZeRO shards over the whole data-parallel group, or over hybrid sharding's
   * groups (PlxStrategy.shard_group_size). */
  guint group = s->shard_group_size > 0 ? MIN (s->shard_group_size, MAX (s->dp, 1u)) : MAX (s->dp, 1u);

  return reshard_model (scenario->model, scenario->cluster, s->tp, s->pp, tp_to, pp_to, optimizer,
                        s->zero_stage >= 3 ? group : 1, s->zero_stage >= 1 ? group : 1, s->ep, error);
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
