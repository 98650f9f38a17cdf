/* The distributed-program IR: reading, checking and writing (docs/ir.md). */
#include <math.h>
#include <string.h>

#include "parallax/plx-error.h"
#include "ir/plx-ir.h"
#include "base/plx-json.h"

#define MAX_DIM G_GINT64_CONSTANT (1099511627776) /* 2^40 elements along one dimension */
#define MAX_ITEMS 10000000u                        /* tensors, ops, devices */

/* Name, and the inputs and outputs each kind takes (max 0: any number). FLOPs per
 * element of the first output (per input element for reductions and the loss): what
 * the op's arithmetic does, counted as kernels count it, not as MFU does. */
static const struct
{
  const char *name;
  guint       min_in, max_in, min_out, max_out;
  double      flops_per_element;
} kinds[PLX_N_IR_KINDS] = {
  [PLX_IR_MATMUL] = { "matmul", 2, 2, 1, 1, 0.0 },
  [PLX_IR_ADD] = { "add", 2, 2, 1, 1, 1.0 },
  [PLX_IR_MUL] = { "mul", 2, 2, 1, 1, 1.0 },
  [PLX_IR_RELU] = { "relu", 1, 1, 1, 1, 1.0 },
  [PLX_IR_GELU] = { "gelu", 1, 1, 1, 1, 8.0 },
  [PLX_IR_TANH] = { "tanh", 1, 1, 1, 1, 4.0 },
  [PLX_IR_SOFTMAX] = { "softmax", 1, 1, 1, 1, 5.0 },
  [PLX_IR_LAYER_NORM] = { "layer_norm", 1, 3, 1, 1, 8.0 },
  [PLX_IR_RMS_NORM] = { "rms_norm", 1, 2, 1, 1, 4.0 },
  [PLX_IR_REDUCE_MEAN] = { "reduce_mean", 1, 1, 1, 1, 1.0 },
  [PLX_IR_GATHER] = { "gather", 2, 2, 1, 1, 0.0 },
  [PLX_IR_RESHAPE] = { "reshape", 1, 1, 1, 1, 0.0 },
  [PLX_IR_TRANSPOSE] = { "transpose", 1, 1, 1, 1, 0.0 },
  [PLX_IR_CONCAT] = { "concat", 1, 0, 1, 1, 0.0 },
  [PLX_IR_SPLIT] = { "split", 1, 1, 1, 0, 0.0 },
  [PLX_IR_LOSS] = { "loss", 2, 2, 1, 1, 5.0 },
  [PLX_IR_OPTIMIZER] = { "optimizer", 1, 0, 1, 0, 10.0 },
  [PLX_IR_REDUCE_SUM] = { "reduce_sum", 1, 1, 1, 1, 1.0 },
  [PLX_IR_EXPAND] = { "expand", 1, 1, 1, 1, 0.0 },
  [PLX_IR_CONV] = { "conv", 2, 3, 1, 1, 0.0 },
  [PLX_IR_SLICE] = { "slice", 1, 1, 1, 1, 0.0 },
  [PLX_IR_BATCH_NORM] = { "batch_norm", 1, 3, 1, 1, 8.0 },
  [PLX_IR_MAX_POOL] = { "max_pool", 1, 1, 1, 1, 1.0 },
  [PLX_IR_RELU_GRAD] = { "relu_grad", 2, 2, 1, 1, 1.0 },
  [PLX_IR_GELU_GRAD] = { "gelu_grad", 2, 2, 1, 1, 16.0 },
  [PLX_IR_TANH_GRAD] = { "tanh_grad", 2, 2, 1, 1, 3.0 },
  [PLX_IR_SOFTMAX_GRAD] = { "softmax_grad", 2, 2, 1, 1, 4.0 },
  [PLX_IR_LAYER_NORM_GRAD] = { "layer_norm_grad", 2, 3, 1, 3, 12.0 },
  [PLX_IR_RMS_NORM_GRAD] = { "rms_norm_grad", 2, 3, 1, 2, 8.0 },
  [PLX_IR_GATHER_GRAD] = { "gather_grad", 2, 2, 1, 1, 1.0 },
  [PLX_IR_LOSS_GRAD] = { "loss_grad", 2, 2, 1, 1, 4.0 },
  [PLX_IR_CONV_GRAD] = { "conv_grad", 3, 3, 2, 3, 0.0 },
  [PLX_IR_BATCH_NORM_GRAD] = { "batch_norm_grad", 2, 3, 1, 3, 12.0 },
  [PLX_IR_MAX_POOL_GRAD] = { "max_pool_grad", 2, 2, 1, 1, 1.0 },
  [PLX_IR_KERNEL] = { "kernel", 0, 0, 1, 0, 0.0 },
  [PLX_IR_ALL_REDUCE] = { "all_reduce", 1, 0, 1, 0, 0.0 },
  [PLX_IR_ALL_GATHER] = { "all_gather", 1, 0, 1, 0, 0.0 },
  [PLX_IR_REDUCE_SCATTER] = { "reduce_scatter", 1, 0, 1, 0, 0.0 },
  [PLX_IR_ALL_TO_ALL] = { "all_to_all", 1, 0, 1, 0, 0.0 },
  [PLX_IR_BROADCAST] = { "broadcast", 1, 0, 1, 0, 0.0 },
  [PLX_IR_SEND] = { "send", 1, 1, 1, 1, 0.0 },
};

const char *
plx_ir_role_to_string (PlxIrRole role)
{
  static const char *const names[] = { "data", "weight", "constant", "state" };
  return (guint) role < G_N_ELEMENTS (names) ? names[role] : "?";
}

const char *
plx_ir_kind_to_string (PlxIrKind kind)
{
  return kind < PLX_N_IR_KINDS ? kinds[kind].name : "?";
}

gboolean
plx_ir_kind_is_collective (PlxIrKind kind)
{
  return kind >= PLX_IR_ALL_REDUCE && kind <= PLX_IR_SEND;
}

gint
plx_ir_op_stream (const PlxIrOp *op)
{
  if (op->stream >= 0)
    return op->stream;
  return plx_ir_kind_is_collective (op->kind) ? PLX_IR_STREAM_COMM : PLX_IR_STREAM_COMPUTE;
}

static void
tensor_free (gpointer data)
{
  PlxIrTensor *t = data;

  g_free (t);
}

static void
op_free (gpointer data)
{
  PlxIrOp *op = data;

  g_free (op->inputs);
  if (!op->packed)
    {
      g_free (op->outputs);
      g_free (op->devices);
    }
  g_free (op->peers);
  g_free (op);
}

void
plx_ir_graph_free (PlxIrGraph *graph)
{
  if (graph == NULL)
    return;
  g_ptr_array_unref (graph->tensors);
  g_ptr_array_unref (graph->ops);
  if (graph->streams != NULL)
    g_ptr_array_unref (graph->streams);
  if (graph->names != NULL)
    g_string_chunk_free (graph->names);
  g_free (graph);
}

gint64
plx_ir_tensor_elements (const PlxIrTensor *tensor)
{
  gint64 n = 1;

  for (guint i = 0; i < tensor->rank; i++)
    n *= tensor->shape[i];
  return n;
}

gint64
plx_ir_graph_batch (const PlxIrGraph *graph)
{
  for (guint t = 0; t < graph->tensors->len; t++)
    {
      const PlxIrTensor *x = graph->tensors->pdata[t];
      if (x->producer < 0 && x->role == PLX_IR_ROLE_DATA && x->rank > 0)
        return x->shape[0];
    }
  return 0;
}

double
plx_ir_tensor_bytes (const PlxIrTensor *tensor)
{
  return (double) plx_ir_tensor_elements (tensor) * plx_dtype_bytes (tensor->dtype);
}

static const PlxIrTensor *
tensor_at (const PlxIrGraph *g, guint index)
{
  return g->tensors->pdata[index];
}

double
plx_ir_op_flops (const PlxIrGraph *graph,
                 const PlxIrOp    *op)
{
  const PlxIrTensor *out = tensor_at (graph, op->outputs[0]);

  if (op->kind == PLX_IR_KERNEL)
    return op->flops;
  if (op->kind == PLX_IR_MATMUL)
    {
      /* Each output element is a dot product of length k: k multiplies, k adds. */
      const PlxIrTensor *a = tensor_at (graph, op->inputs[0]);
      return 2.0 * (double) plx_ir_tensor_elements (out) * (double) a->shape[a->rank - (op->transpose_a ? 2 : 1)];
    }
  if (op->kind == PLX_IR_CONV || op->kind == PLX_IR_CONV_GRAD)
    {
      /* Each output element a dot product over C/groups x R x S (Chetlur et al. 2014
       * §3, convolution as a matrix product); the backward pass two such products,
       * for the input and for the weight. */
      const PlxIrTensor *w = tensor_at (graph, op->inputs[op->kind == PLX_IR_CONV ? 1 : 2]);
      const PlxIrTensor *y = op->kind == PLX_IR_CONV ? out : tensor_at (graph, op->inputs[0]);
      double fwd = 2.0 * (double) plx_ir_tensor_elements (y) * (double) (w->shape[1] * w->shape[2] * w->shape[3]);
      return op->kind == PLX_IR_CONV ? fwd : 2.0 * fwd;
    }
  /* A max pool compares each input element once per window holding it; the window is
   * not in the IR (the shapes imply it), so one comparison an input element. */
  if (op->kind == PLX_IR_REDUCE_MEAN || op->kind == PLX_IR_REDUCE_SUM || op->kind == PLX_IR_LOSS ||
      op->kind == PLX_IR_OPTIMIZER || op->kind == PLX_IR_GATHER_GRAD || op->kind == PLX_IR_MAX_POOL)
    return kinds[op->kind].flops_per_element * (double) plx_ir_tensor_elements (tensor_at (graph, op->inputs[0]));
  return kinds[op->kind].flops_per_element * (double) plx_ir_tensor_elements (out);
}

double
plx_ir_op_bytes (const PlxIrGraph *graph,
                 const PlxIrOp    *op)
{
  double bytes = 0.0;

  if (op->kind == PLX_IR_KERNEL && !isnan (op->bytes))
    return op->bytes;
  for (guint i = 0; i < op->n_inputs; i++)
    bytes += plx_ir_tensor_bytes (tensor_at (graph, op->inputs[i]));
  for (guint i = 0; i < op->n_outputs; i++)
    bytes += plx_ir_tensor_bytes (tensor_at (graph, op->outputs[i]));
  return bytes;
}

/* ---- building ----------------------------------------------------------------- */

static void
init_streams (PlxIrGraph *g)
{
  /* Names live as long as the graph: one chunk, not an allocation each (a
   * transformer program has a million of them). */
  g->names = g_string_chunk_new (1 << 16);
  g->streams = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (g->streams, g_strdup ("compute"));
  g_ptr_array_add (g->streams, g_strdup ("comm"));
  g->overlap_slowdown = NAN;
}

static void
init_op_costs (PlxIrOp *op)
{
  op->time_s = NAN;
  op->flops = 0.0;
  op->bytes = NAN;
  op->stream = op->peer_stream = -1;
}

PlxIrGraph *
plx_ir_graph_new (guint n_devices)
{
  PlxIrGraph *g = g_new0 (PlxIrGraph, 1);

  g->n_devices = n_devices;
  g->tensors = g_ptr_array_new_with_free_func (tensor_free);
  g->ops = g_ptr_array_new_with_free_func (op_free);
  init_streams (g);
  return g;
}

gint
plx_ir_graph_stream (PlxIrGraph *graph,
                     const char *name)
{
  for (guint i = 0; i < graph->streams->len; i++)
    if (g_str_equal (graph->streams->pdata[i], name))
      return (gint) i;
  if (graph->streams->len >= PLX_IR_MAX_STREAMS)
    return -1;
  g_ptr_array_add (graph->streams, g_strdup (name));
  return (gint) graph->streams->len - 1;
}

guint
plx_ir_graph_add_tensor (PlxIrGraph   *graph,
                         const char   *name,
                         guint         rank,
                         const gint64 *shape,
                         PlxDtype      dtype,
                         PlxIrRole     role)
{
  PlxIrTensor *t = g_new0 (PlxIrTensor, 1);

  g_return_val_if_fail (rank <= PLX_IR_MAX_RANK, 0);
  t->name = g_string_chunk_insert (graph->names, name);
  t->rank = rank;
  if (rank > 0)
    memcpy (t->shape, shape, rank * sizeof shape[0]);
  t->dtype = dtype;
  t->role = role;
  t->producer = -1;
  g_ptr_array_add (graph->tensors, t);
  return graph->tensors->len - 1;
}

PlxIrOp *
plx_ir_graph_add_op (PlxIrGraph  *graph,
                     const char  *name,
                     PlxIrKind    kind,
                     const guint *inputs,
                     guint        n_inputs,
                     const guint *outputs,
                     guint        n_outputs,
                     const guint *devices,
                     guint        n_devices)
{
  PlxIrOp *op = g_new0 (PlxIrOp, 1);

  op->name = g_string_chunk_insert (graph->names, name);
  op->kind = kind;
  /* One allocation for the three lists; never an empty one: code that looks at a
   * first input finds tensor 0. */
  op->packed = TRUE;
  op->inputs = g_new0 (guint, MAX (n_inputs, 1) + MAX (n_outputs, 1) + MAX (n_devices, 1));
  op->outputs = op->inputs + MAX (n_inputs, 1);
  op->devices = op->outputs + MAX (n_outputs, 1);
  if (n_inputs > 0)
    memcpy (op->inputs, inputs, n_inputs * sizeof (guint));
  if (n_outputs > 0)
    memcpy (op->outputs, outputs, n_outputs * sizeof (guint));
  if (n_devices > 0)
    memcpy (op->devices, devices, n_devices * sizeof (guint));
  op->n_inputs = n_inputs;
  op->n_outputs = n_outputs;
  op->n_devices = n_devices;
  op->axis = -1;
  op->groups = 1;
  op->origin = (gint) graph->ops->len;
  init_op_costs (op);
  for (guint j = 0; j < n_outputs; j++)
    ((PlxIrTensor *) graph->tensors->pdata[outputs[j]])->producer = (gint) graph->ops->len;
  g_ptr_array_add (graph->ops, op);
  return op;
}

PlxIrOp *
plx_ir_graph_add_op_like (PlxIrGraph    *graph,
                          const PlxIrOp *like,
                          const guint   *inputs,
                          const guint   *outputs,
                          const guint   *devices,
                          guint          n_devices)
{
  PlxIrOp *n = plx_ir_graph_add_op (graph, like->name, like->kind, inputs, like->n_inputs, outputs, like->n_outputs,
                                    devices, n_devices);

  n->axis = like->axis;
  if (like->peers != NULL && n_devices == like->n_devices)
    n->peers = g_memdup2 (like->peers, n_devices * sizeof (guint));
  n->transpose_a = like->transpose_a;
  n->transpose_b = like->transpose_b;
  n->n_perm = like->n_perm;
  memcpy (n->perm, like->perm, sizeof n->perm);
  n->groups = like->groups;
  n->phase = like->phase;
  n->origin = like->origin;
  n->time_s = like->time_s;
  n->flops = like->flops;
  n->bytes = like->bytes;
  n->stream = like->stream;
  n->peer_stream = like->peer_stream;
  return n;
}

const char *
plx_ir_unique_name (GHashTable *names,
                    const char *base)
{
  gpointer orig = NULL, next = NULL;
  guint k;
  char *name;

  if (!g_hash_table_lookup_extended (names, base, &orig, &next))
    {
      name = g_strdup (base);
      g_hash_table_insert (names, name, GUINT_TO_POINTER (2));
      return name;
    }
  /* Each name remembers the next suffix to try, so n ops of one base cost n tries,
   * not n^2 (a hostile model of 200,000 unnamed nodes). */
  k = MAX (GPOINTER_TO_UINT (next), 2u);
  name = g_strdup_printf ("%s~%u", base, k);
  while (g_hash_table_contains (names, name))
    {
      g_free (name);
      name = g_strdup_printf ("%s~%u", base, ++k);
    }
  g_hash_table_insert (names, g_strdup (orig), GUINT_TO_POINTER (k + 1));
  g_hash_table_insert (names, name, GUINT_TO_POINTER (2));
  return name;
}

gboolean
plx_ir_graph_check (const PlxIrGraph *graph,
                    const char       *source,
                    GError          **error)
{
  g_autoptr (JsonNode) node = plx_ir_graph_to_json (graph);
  g_autoptr (PlxIrGraph) back = plx_ir_graph_new_from_json (node, source, error);

  return back != NULL;
}

/* ---- reading ------------------------------------------------------------------ */

static JsonArray *
get_array (JsonObject *obj, const char *source, const char *path, const char *key, gboolean required,
           GError **error)
{
  JsonNode *n = json_object_get_member (obj, key);

  if (n == NULL)
    {
      if (required)
        g_set_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY, "%s: %s.%s is missing", source, path, key);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_ARRAY (n))
    {
      g_autofree char *value = plx_json_value_to_string (n);
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: %s.%s: %s is not an array", source, path, key, value);
      return NULL;
    }
  if (json_array_get_length (json_node_get_array (n)) > MAX_ITEMS)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %s.%s: more than %u entries", source, path, key,
                   MAX_ITEMS);
      return NULL;
    }
  return json_node_get_array (n);
}

static JsonObject *
element_object (JsonArray *array, guint i, const char *source, const char *path, GError **error)
{
  JsonNode *n = json_array_get_element (array, i);

  if (!JSON_NODE_HOLDS_OBJECT (n))
    {
      g_autofree char *value = plx_json_value_to_string (n);
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: %s[%u]: %s is not an object", source, path, i, value);
      return NULL;
    }
  return json_node_get_object (n);
}

static gboolean
parse_tensor (JsonObject *obj, const char *source, const char *path, GHashTable *names, GStringChunk *chunk,
              PlxIrTensor *t, GError **error)
{
  static const char *const keys[] = { "name", "shape", "dtype", "role", NULL };
  const char *name = NULL, *dtype = "bf16", *role = "data";
  JsonArray *shape;
  guint r;

  if (!plx_json_check_keys (obj, source, path, keys, error) ||
      !plx_json_get_string (obj, source, path, "name", TRUE, &name, error) ||
      !plx_json_get_string (obj, source, path, "dtype", FALSE, &dtype, error) ||
      !plx_json_get_string (obj, source, path, "role", FALSE, &role, error) ||
      (shape = get_array (obj, source, path, "shape", TRUE, error)) == NULL)
    return FALSE;
  if (g_hash_table_contains (names, name))
    {
      g_autofree char *p = plx_printable (name);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: %s.name: tensor \"%s\" is defined twice", source,
                   path, p);
      return FALSE;
    }
  if (!plx_dtype_from_string (dtype, &t->dtype))
    {
      g_autofree char *p = plx_printable (dtype);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %s.dtype: \"%s\" is not a dtype (bf16, fp16, "
                   "fp8, fp32, tf32)", source, path, p);
      return FALSE;
    }
  for (r = 0; r <= PLX_IR_ROLE_STATE && !g_str_equal (plx_ir_role_to_string ((PlxIrRole) r), role); r++)
    ;
  t->role = (PlxIrRole) r;
  if (r > PLX_IR_ROLE_STATE)
    {
      g_autofree char *p = plx_printable (role);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %s.role: \"%s\" is not a role (data, weight, "
                   "constant, state)", source, path, p);
      return FALSE;
    }
  if (json_array_get_length (shape) > PLX_IR_MAX_RANK)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %s.shape: %u dimensions, at most %d", source,
                   path, json_array_get_length (shape), PLX_IR_MAX_RANK);
      return FALSE;
    }
  t->rank = json_array_get_length (shape);
  {
    double elements = 1.0;
    for (guint d = 0; d < t->rank; d++)
      {
        JsonNode *n = json_array_get_element (shape, d);
        gint64 v = JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64 ? json_node_get_int (n)
                                                                                                : 0;
        if (v < 1 || v > MAX_DIM)
          {
            g_autofree char *value = plx_json_value_to_string (n);
            g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                         "%s: %s.shape[%u]: %s is not a whole number from 1 to 2^40", source, path, d, value);
            return FALSE;
          }
        t->shape[d] = v;
        elements *= (double) v;
      }
    if (elements > 1e15)
      {
        g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %s.shape: %.3g elements, at most 1e15", source,
                     path, elements);
        return FALSE;
      }
  }
  t->name = g_string_chunk_insert (chunk, name);
  t->producer = -1;
  return TRUE;
}

/* A list of tensor names, each defined, as indices. */
static gboolean
parse_refs (JsonObject *obj, const char *source, const char *path, const char *key, GHashTable *names,
            guint **out, guint *n_out, GError **error)
{
  JsonArray *array = get_array (obj, source, path, key, TRUE, error);
  guint n;

  if (array == NULL)
    return FALSE;
  n = json_array_get_length (array);
  *out = g_new0 (guint, MAX (n, 1));
  *n_out = n;
  for (guint i = 0; i < n; i++)
    {
      JsonNode *e = json_array_get_element (array, i);
      const char *name = JSON_NODE_HOLDS_VALUE (e) && json_node_get_value_type (e) == G_TYPE_STRING
                           ? json_node_get_string (e) : NULL;
      gpointer index;

      if (name == NULL || !g_hash_table_lookup_extended (names, name, NULL, &index))
        {
          g_autofree char *value = plx_json_value_to_string (e);
          g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: %s.%s[%u]: %s is not a tensor of the program",
                       source, path, key, i, value);
          return FALSE;
        }
      (*out)[i] = GPOINTER_TO_UINT (index);
    }
  return TRUE;
}

/* A list of devices (`key`), each in range; absent: device 0. */
static gboolean
parse_devices (JsonObject *obj, const char *source, const char *path, const char *key, guint n_devices,
               guint **out, guint *n_out, GError **error)
{
  JsonArray *array = get_array (obj, source, path, key, FALSE, error);

  if (array == NULL)
    {
      if (error != NULL && *error != NULL)
        return FALSE;
      *out = g_new0 (guint, 1);
      *n_out = 1;
      return TRUE;
    }
  *n_out = json_array_get_length (array);
  *out = g_new0 (guint, MAX (*n_out, 1));
  if (*n_out == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %s.%s: an op runs on at least one device",
                   source, path, key);
      return FALSE;
    }
  for (guint i = 0; i < *n_out; i++)
    {
      JsonNode *n = json_array_get_element (array, i);
      gint64 v = JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64 ? json_node_get_int (n) : -1;

      if (v < 0 || v >= n_devices)
        {
          g_autofree char *value = plx_json_value_to_string (n);
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %s.%s[%u]: %s is not a device (0 to %u)",
                       source, path, key, i, value, n_devices - 1);
          return FALSE;
        }
      (*out)[i] = (guint) v;
    }
  return TRUE;
}

/* A transpose's permutation: each input dimension once. */
static gboolean
parse_perm (JsonObject *obj, const char *source, const char *path, PlxIrOp *op, GError **error)
{
  JsonArray *array = get_array (obj, source, path, "perm", FALSE, error);
  guint seen = 0;

  if (array == NULL)
    return error == NULL || *error == NULL;
  op->n_perm = json_array_get_length (array);
  for (guint i = 0; i < op->n_perm; i++)
    {
      JsonNode *n = json_array_get_element (array, i);
      gint64 v = JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64 ? json_node_get_int (n) : -1;
      if (op->kind != PLX_IR_TRANSPOSE || op->n_perm > PLX_IR_MAX_RANK || v < 0 || v >= (gint64) op->n_perm ||
          (seen & (1u << v)) != 0)
        {
          g_autofree char *n_ = plx_printable (op->name);
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %s.perm: op \"%s\": not a permutation of a "
                       "transpose's dimensions", source, path, n_);
          return FALSE;
        }
      seen |= 1u << v;
      op->perm[i] = (guint8) v;
    }
  return TRUE;
}

/* A send's receivers: `peer` for one sending device, `peers` (one per device) for
 * several sending at once; neither for any other op. */
static gboolean
parse_peers (JsonObject *obj, const char *source, const char *path, guint n_devices, guint64 peer, PlxIrOp *op,
             GError **error)
{
  gboolean has_peers = json_object_has_member (obj, "peers"), has_peer = peer != G_MAXUINT64;
  g_autofree char *n = plx_printable (op->name);
  guint n_peers = 0;

  if (op->kind != PLX_IR_SEND)
    {
      if (!has_peer && !has_peers)
        return TRUE;
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: %s.%s: op \"%s\" is a %s; only a send has one",
                   source, path, has_peer ? "peer" : "peers", n, kinds[op->kind].name);
      return FALSE;
    }
  if (has_peer == has_peers || (has_peer && op->n_devices != 1))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY, "%s: %s: send \"%s\" needs \"peer\" (from one device) "
                   "or \"peers\" (one per device), not %s", source, path, n,
                   has_peer && has_peers ? "both" : has_peer ? "\"peer\" from several devices" : "neither");
      return FALSE;
    }
  if (has_peer)
    {
      op->peers = g_new (guint, 1);
      op->peers[0] = (guint) peer;
      return TRUE;
    }
  if (!parse_devices (obj, source, path, "peers", n_devices, &op->peers, &n_peers, error))
    return FALSE;
  if (n_peers != op->n_devices)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: %s.peers: send \"%s\" has %u devices and %u peers",
                   source, path, n, op->n_devices, n_peers);
      return FALSE;
    }
  return TRUE;
}

static gboolean
same_shape (const PlxIrTensor *a, const PlxIrTensor *b)
{
  return a->rank == b->rank && memcmp (a->shape, b->shape, a->rank * sizeof a->shape[0]) == 0;
}

/* b is a over all but the last `rank` dimensions of a, which b matches. */
static gboolean
broadcasts (const PlxIrTensor *b, const PlxIrTensor *a)
{
  if (b->rank > a->rank)
    return FALSE;
  for (guint i = 0; i < b->rank; i++)
    {
      gint64 bd = b->shape[b->rank - 1 - i], ad = a->shape[a->rank - 1 - i];
      if (bd != ad && bd != 1)
        return FALSE;
    }
  return TRUE;
}

static char *
shape_string (const PlxIrTensor *t)
{
  GString *s = g_string_new ("[");

  for (guint i = 0; i < t->rank; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", t->shape[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* Whether the op's shapes agree with its kind; the error names the op. */
static gboolean
check_shapes (const PlxIrGraph *g, const PlxIrOp *op, const char *source, const char *path, GError **error)
{
  const PlxIrTensor *in = tensor_at (g, op->inputs[0]), *out = tensor_at (g, op->outputs[0]);
  const PlxIrTensor *in2 = op->n_inputs > 1 ? tensor_at (g, op->inputs[1]) : NULL;
  const char *why = NULL;
  gint64 group = op->n_devices / MAX (op->groups, 1);

  switch (op->kind)
    {
    case PLX_IR_MATMUL:
      if (in->rank < 2 || in2->rank < 2)
        why = "an input has fewer than two dimensions";
      else
        {
          /* The operands as multiplied: [..., m, k] x [k, n], each maybe stored swapped. */
          gint64 m = in->shape[in->rank - (op->transpose_a ? 1 : 2)], ka = in->shape[in->rank - (op->transpose_a ? 2 : 1)];
          gint64 kb = in2->shape[in2->rank - (op->transpose_b ? 1 : 2)], n = in2->shape[in2->rank - (op->transpose_b ? 2 : 1)];
          if (ka != kb)
            why = "the inner dimensions of the operands (as multiplied) differ";
          else if (in2->rank > 2 && (in2->rank != in->rank ||
                                     memcmp (in->shape, in2->shape, (in->rank - 2) * sizeof in->shape[0]) != 0))
            why = "the batch dimensions of the inputs differ";
          else if (out->rank != in->rank || memcmp (out->shape, in->shape, (in->rank - 2) * sizeof in->shape[0]) != 0 ||
                   out->shape[out->rank - 2] != m || out->shape[out->rank - 1] != n)
            why = "the output is not [..., m, n]";
        }
      break;
    case PLX_IR_ADD:
    case PLX_IR_MUL:
      if (!same_shape (out, in) || !broadcasts (in2, in))
        why = "the output is not the first input's shape, or the second does not broadcast to it";
      break;
    case PLX_IR_RELU:
    case PLX_IR_GELU:
    case PLX_IR_TANH:
    case PLX_IR_SOFTMAX:
    case PLX_IR_LAYER_NORM:
    case PLX_IR_RMS_NORM:
    case PLX_IR_ALL_REDUCE:
    case PLX_IR_BROADCAST:
    case PLX_IR_SEND:
      if (!same_shape (out, in))
        why = "the output is not the input's shape";
      break;
    case PLX_IR_RELU_GRAD:
    case PLX_IR_GELU_GRAD:
    case PLX_IR_TANH_GRAD:
    case PLX_IR_SOFTMAX_GRAD:
    case PLX_IR_LOSS_GRAD:
    case PLX_IR_LAYER_NORM_GRAD:
    case PLX_IR_RMS_NORM_GRAD:
      if (op->kind == PLX_IR_LOSS_GRAD ? !same_shape (out, in) : (!same_shape (out, in2) || !same_shape (in, in2)))
        why = "the gradient is not the shape of the input it is taken for";
      /* A norm's weight and bias gradients are the weight's shape; without a weight
       * there are none. */
      if (why == NULL && op->n_outputs > 1 && op->n_inputs < 3)
        why = "weight gradients without the weight";
      for (guint i = 1; why == NULL && i < op->n_outputs; i++)
        if (!same_shape (tensor_at (g, op->outputs[i]), tensor_at (g, op->inputs[2])))
          why = "a weight's gradient is not the weight's shape";
      break;
    case PLX_IR_BATCH_NORM:
      if (!same_shape (out, in) || in->rank < 2)
        why = "the output is not the input's shape, or the input is not [N, C, ...]";
      for (guint j = 1; why == NULL && j < op->n_inputs; j++)
        if (plx_ir_tensor_elements (tensor_at (g, op->inputs[j])) != in->shape[1])
          why = "the scale or bias is not one value per channel";
      break;
    case PLX_IR_BATCH_NORM_GRAD:
      if (!same_shape (out, in2) || !same_shape (in, in2) || in->rank < 2)
        why = "the gradient is not the shape of the input it is taken for";
      else if (op->n_outputs > 1 && op->n_inputs < 3)
        why = "scale gradients without the scale";
      else if (op->n_inputs == 3 && plx_ir_tensor_elements (tensor_at (g, op->inputs[2])) != in->shape[1])
        why = "the scale is not one value per channel";
      for (guint i = 1; why == NULL && i < op->n_outputs; i++)
        if (!same_shape (tensor_at (g, op->outputs[i]), tensor_at (g, op->inputs[2])))
          why = "a scale's or bias's gradient is not the scale's shape";
      break;
    case PLX_IR_MAX_POOL:
      if (in->rank != 4 || out->rank != 4 || out->shape[0] != in->shape[0] || out->shape[1] != in->shape[1] ||
          out->shape[2] > in->shape[2] || out->shape[3] > in->shape[3])
        why = "not x [N, C, H, W] -> [N, C, P, Q] with P <= H, Q <= W";
      break;
    case PLX_IR_MAX_POOL_GRAD:
      if (in->rank != 4 || in2->rank != 4 || !same_shape (out, in2) || in->shape[0] != in2->shape[0] ||
          in->shape[1] != in2->shape[1] || in->shape[2] > in2->shape[2] || in->shape[3] > in2->shape[3])
        why = "not (dy [N, C, P, Q], x [N, C, H, W]) -> dx (x's shape)";
      break;
    case PLX_IR_CONV:
      if (in->rank != 4 || in2->rank != 4 || out->rank != 4 || out->shape[0] != in->shape[0] ||
          out->shape[1] != in2->shape[0] || in->shape[1] % in2->shape[1] != 0)
        why = "not x [N, C, H, W], w [K, C/groups, R, S] -> [N, K, P, Q]";
      else if (op->n_inputs == 3 && plx_ir_tensor_elements (tensor_at (g, op->inputs[2])) != in2->shape[0])
        why = "the bias is not one value per output channel";
      break;
    case PLX_IR_CONV_GRAD:
      {
        const PlxIrTensor *w = tensor_at (g, op->inputs[2]);
        if (in->rank != 4 || in2->rank != 4 || w->rank != 4 || !same_shape (out, in2) ||
            !same_shape (tensor_at (g, op->outputs[1]), w) || in->shape[0] != in2->shape[0] || in->shape[1] != w->shape[0])
          why = "not (dy, x, w) -> dx (x's shape), dw (w's shape)";
        break;
      }
    case PLX_IR_GATHER_GRAD:
      if (in->rank != in2->rank + 1 || memcmp (in->shape, in2->shape, in2->rank * sizeof in2->shape[0]) != 0 ||
          out->rank != 2 || out->shape[1] != in->shape[in->rank - 1])
        why = "the gradient is not the indices' shape and the table's width, or the table is not [V, h]";
      break;
    case PLX_IR_EXPAND:
      if (plx_ir_tensor_elements (out) % plx_ir_tensor_elements (in) != 0)
        why = "the output is not a whole number of copies of the input";
      break;
    case PLX_IR_RESHAPE:
    case PLX_IR_TRANSPOSE:
    case PLX_IR_ALL_TO_ALL:
      if (plx_ir_tensor_elements (out) != plx_ir_tensor_elements (in))
        why = "the output does not hold the input's elements";
      else if (op->n_perm > 0 && (op->n_perm != in->rank || out->rank != in->rank))
        why = "the permutation is not of the input's dimensions";
      for (guint d = 0; why == NULL && d < op->n_perm; d++)
        if (out->shape[d] != in->shape[op->perm[d]])
          why = "the output is not the input with its dimensions permuted";
      break;
    case PLX_IR_ALL_GATHER:
    case PLX_IR_REDUCE_SCATTER:
      {
        const PlxIrTensor *part = op->kind == PLX_IR_ALL_GATHER ? in : out, *whole = op->kind == PLX_IR_ALL_GATHER ? out : in;
        guint axis = op->axis < 0 ? 0 : (guint) op->axis;
        if (axis >= part->rank || part->rank != whole->rank || whole->shape[axis] % group != 0 ||
            whole->shape[axis] / group != part->shape[axis])
          why = "the whole is not the part times the group along the axis";
        else
          for (guint d = 0; d < part->rank; d++)
            if (d != axis && part->shape[d] != whole->shape[d])
              why = "the part and the whole differ off the axis";
        break;
      }
    case PLX_IR_GATHER:
      if (in->rank != 2 || out->rank != in2->rank + 1 || memcmp (out->shape, in2->shape, in2->rank * sizeof in2->shape[0]) != 0 ||
          out->shape[out->rank - 1] != in->shape[in->rank - 1])
        why = "the table is not [rows, width], or the output is not the indices' shape and its width";
      break;
    case PLX_IR_SLICE:
      {
        guint axis = op->axis < 0 ? 0 : (guint) op->axis;
        if (axis >= in->rank || out->rank != in->rank || in->shape[axis] % out->shape[axis] != 0)
          why = "the output is not a part of the input along the axis";
        for (guint d = 0; why == NULL && d < in->rank; d++)
          if (d != axis && in->shape[d] != out->shape[d])
            why = "the part differs from the whole off the axis";
        break;
      }
    case PLX_IR_CONCAT:
    case PLX_IR_SPLIT:
      {
        guint axis = op->axis < 0 ? 0 : (guint) op->axis;
        const PlxIrTensor *whole = op->kind == PLX_IR_CONCAT ? out : in;
        guint n_parts = op->kind == PLX_IR_CONCAT ? op->n_inputs : op->n_outputs;
        gint64 sum = 0;
        for (guint i = 0; i < n_parts && why == NULL; i++)
          {
            const PlxIrTensor *p = tensor_at (g, op->kind == PLX_IR_CONCAT ? op->inputs[i] : op->outputs[i]);
            if (axis >= whole->rank || p->rank != whole->rank)
              why = "a part's rank is not the whole's, or the axis is past it";
            else
              for (guint d = 0; d < p->rank; d++)
                if (d != axis && p->shape[d] != whole->shape[d])
                  why = "a part differs from the whole off the axis";
            if (why == NULL)
              sum += p->shape[axis];
            if (why == NULL && sum > whole->shape[axis])
              why = "the parts do not add up to the whole along the axis";
          }
        if (why == NULL && sum != whole->shape[axis])
          why = "the parts do not add up to the whole along the axis";
        break;
      }
    case PLX_IR_REDUCE_MEAN:
    case PLX_IR_REDUCE_SUM:
      if (plx_ir_tensor_elements (out) > plx_ir_tensor_elements (in) ||
          plx_ir_tensor_elements (in) % plx_ir_tensor_elements (out) != 0)
        why = "the output is not a reduction of the input";
      break;
    case PLX_IR_LOSS:
    case PLX_IR_OPTIMIZER:
    case PLX_N_IR_KINDS:
    default:
      break;
    }
  for (guint d = 0; op->kind == PLX_IR_SEND && d < op->n_devices; d++)
    if (op->peers[d] == op->devices[d])
      why = "a device sends to itself";
  if (plx_ir_kind_is_collective (op->kind) && op->kind != PLX_IR_SEND)
    {
      /* One tensor a device of the group, in the group's order, or one standing for
       * each device's own (the SPMD shorthand); all of one shape. */
      if ((op->n_inputs != 1 && (op->n_inputs != op->n_devices || op->groups > 1)) ||
          (op->n_outputs != 1 && (op->n_outputs != op->n_devices || op->groups > 1)))
        why = "a collective takes one input (and output) or one per device of its group";
      for (guint i = 1; why == NULL && i < op->n_inputs; i++)
        if (!same_shape (tensor_at (g, op->inputs[i]), in))
          why = "the group's inputs differ in shape";
      for (guint i = 1; why == NULL && i < op->n_outputs; i++)
        if (!same_shape (tensor_at (g, op->outputs[i]), out))
          why = "the group's outputs differ in shape";
    }
  if (why != NULL)
    {
      g_autofree char *p = plx_printable (op->name);
      g_autofree char *s_in = shape_string (in), *s_out = shape_string (out);
      g_autofree char *s_in2 = in2 != NULL ? shape_string (in2) : NULL;
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: %s: %s \"%s\" (%s%s%s -> %s): %s", source, path,
                   kinds[op->kind].name, p, s_in, s_in2 != NULL ? ", " : "", s_in2 != NULL ? s_in2 : "", s_out, why);
      return FALSE;
    }
  return TRUE;
}

/* "2", "1 to 3", "1 or more" (max 0: no bound). */
static char *
arity (guint min, guint max)
{
  if (max == 0)
    return g_strdup_printf ("%u or more", min);
  if (max == min)
    return g_strdup_printf ("%u", min);
  return g_strdup_printf ("%u to %u", min, max);
}

static gboolean
parse_op (JsonObject *obj, const char *source, const char *path, PlxIrGraph *g, GHashTable *tensor_names,
          GHashTable *op_names, PlxIrOp *op, GError **error)
{
  static const char *const keys[] = { "name", "op", "inputs", "outputs", "devices", "axis", "peer", "peers",
                                      "transpose_a", "transpose_b", "groups", "perm", "time_s", "flops", "bytes",
                                      "stream", "peer_stream", NULL };
  const char *name = NULL, *kind = NULL, *stream = NULL, *peer_stream = NULL;
  guint64 axis = G_MAXUINT64, peer = G_MAXUINT64, groups = 1;
  guint k;

  if (!plx_json_check_keys (obj, source, path, keys, error) ||
      !plx_json_get_string (obj, source, path, "name", TRUE, &name, error) ||
      !plx_json_get_string (obj, source, path, "op", TRUE, &kind, error) ||
      !plx_json_get_uint (obj, source, path, "axis", FALSE, 0, PLX_IR_MAX_RANK - 1, &axis, error) ||
      !plx_json_get_uint (obj, source, path, "peer", FALSE, 0, g->n_devices - 1, &peer, error) ||
      !plx_json_get_bool (obj, source, path, "transpose_a", &op->transpose_a, error) ||
      !plx_json_get_bool (obj, source, path, "transpose_b", &op->transpose_b, error) ||
      !plx_json_get_uint (obj, source, path, "groups", FALSE, 1, MAX_ITEMS, &groups, error))
    return FALSE;
  /* A year per op, 10^24 FLOPs, a petabyte: past any real kernel, short of overflow. */
  init_op_costs (op);
  if (!plx_json_get_double (obj, source, path, "time_s", FALSE, 0.0, 3.2e7, &op->time_s, error) ||
      !plx_json_get_double (obj, source, path, "flops", FALSE, 0.0, 1e24, &op->flops, error) ||
      !plx_json_get_double (obj, source, path, "bytes", FALSE, 0.0, 1e15, &op->bytes, error) ||
      !plx_json_get_string (obj, source, path, "stream", FALSE, &stream, error) ||
      !plx_json_get_string (obj, source, path, "peer_stream", FALSE, &peer_stream, error))
    return FALSE;
  if (g_hash_table_contains (op_names, name))
    {
      g_autofree char *p = plx_printable (name);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: %s.name: op \"%s\" is defined twice", source, path,
                   p);
      return FALSE;
    }
  for (k = 0; k < PLX_N_IR_KINDS && !g_str_equal (kinds[k].name, kind); k++)
    ;
  if (k == PLX_N_IR_KINDS)
    {
      g_autofree char *p = plx_printable (kind), *n = plx_printable (name);
      g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "%s: %s.op: \"%s\" (op \"%s\") is not an op Parallax can "
                   "cost (docs/ir.md lists them)", source, path, p, n);
      return FALSE;
    }
  op->name = g_string_chunk_insert (g->names, name);
  op->kind = (PlxIrKind) k;
  op->axis = axis == G_MAXUINT64 ? -1 : (gint) axis;
  if (!parse_refs (obj, source, path, "inputs", tensor_names, &op->inputs, &op->n_inputs, error) ||
      !parse_refs (obj, source, path, "outputs", tensor_names, &op->outputs, &op->n_outputs, error) ||
      !parse_devices (obj, source, path, "devices", g->n_devices, &op->devices, &op->n_devices, error) ||
      !parse_peers (obj, source, path, g->n_devices, peer, op, error))
    return FALSE;
  if (!parse_perm (obj, source, path, op, error))
    return FALSE;
  op->groups = (guint) groups;
  if ((json_object_has_member (obj, "flops") || json_object_has_member (obj, "bytes")) && op->kind != PLX_IR_KERNEL)
    {
      g_autofree char *n = plx_printable (name);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: %s.%s: op \"%s\" is a %s; only a kernel is given "
                   "its FLOPs and bytes", source, path, json_object_has_member (obj, "flops") ? "flops" : "bytes", n,
                   kinds[k].name);
      return FALSE;
    }
  if (peer_stream != NULL && op->kind != PLX_IR_SEND)
    {
      g_autofree char *n = plx_printable (name);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: %s.peer_stream: op \"%s\" is a %s; only a send has "
                   "a receiving end", source, path, n, kinds[k].name);
      return FALSE;
    }
  if ((stream != NULL && (op->stream = plx_ir_graph_stream (g, stream)) < 0) ||
      (peer_stream != NULL && (op->peer_stream = plx_ir_graph_stream (g, peer_stream)) < 0))
    {
      g_autofree char *n = plx_printable (name);
      gboolean first = stream != NULL && op->stream < 0;
      g_autofree char *sn = plx_printable (first ? stream : peer_stream);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %s.%s: op \"%s\": stream \"%s\" is one more than "
                   "the %d streams a program may have", source, path, first ? "stream" : "peer_stream", n, sn,
                   PLX_IR_MAX_STREAMS);
      return FALSE;
    }
  if (groups > 1 && (!plx_ir_kind_is_collective (op->kind) || op->kind == PLX_IR_SEND ||
                     op->n_devices % groups != 0))
    {
      g_autofree char *n = plx_printable (name);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: %s.groups: %s \"%s\" on %u devices cannot be %u "
                   "groups (a collective's devices, in groups of equal size)", source, path, kinds[k].name, n,
                   op->n_devices, (guint) groups);
      return FALSE;
    }
  if ((op->transpose_a || op->transpose_b) && op->kind != PLX_IR_MATMUL)
    {
      g_autofree char *n = plx_printable (name);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: %s.transpose_%c: op \"%s\" is a %s, not a matmul",
                   source, path, op->transpose_a ? 'a' : 'b', n, kinds[k].name);
      return FALSE;
    }
  if (op->n_inputs < kinds[k].min_in || (kinds[k].max_in > 0 && op->n_inputs > kinds[k].max_in) ||
      op->n_outputs < kinds[k].min_out || (kinds[k].max_out > 0 && op->n_outputs > kinds[k].max_out))
    {
      g_autofree char *n = plx_printable (name);
      g_autofree char *want_in = arity (kinds[k].min_in, kinds[k].max_in);
      g_autofree char *want_out = arity (kinds[k].min_out, kinds[k].max_out);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT, "%s: %s: %s \"%s\" takes inputs: %s, outputs: %s; it has "
                   "%u and %u", source, path, kinds[k].name, n, want_in, want_out, op->n_inputs, op->n_outputs);
      return FALSE;
    }
  return TRUE;
}

PlxIrGraph *
plx_ir_graph_new_from_json (JsonNode   *node,
                            const char *source,
                            GError    **error)
{
  static const char *const keys[] = { "format", "version", "devices", "tensors", "ops", "overlap_slowdown", NULL };
  g_autoptr (PlxIrGraph) g = g_new0 (PlxIrGraph, 1);
  g_autoptr (GHashTable) tensor_names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) op_names = g_hash_table_new (g_str_hash, g_str_equal);
  JsonObject *obj;
  JsonArray *tensors, *ops;
  const char *format = "parallax-ir";
  guint64 version = 1, devices = 1;

  g->tensors = g_ptr_array_new_with_free_func (tensor_free);
  g->ops = g_ptr_array_new_with_free_func (op_free);
  init_streams (g);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: a program is a JSON object", source);
      return NULL;
    }
  obj = json_node_get_object (node);
  if (!plx_json_check_keys (obj, source, "program", keys, error) ||
      !plx_json_get_string (obj, source, "program", "format", FALSE, &format, error) ||
      !plx_json_get_uint (obj, source, "program", "version", FALSE, 1, 1, &version, error) ||
      !plx_json_get_uint (obj, source, "program", "devices", FALSE, 1, MAX_ITEMS, &devices, error) ||
      !plx_json_get_double (obj, source, "program", "overlap_slowdown", FALSE, 0.0, 0.9, &g->overlap_slowdown, error))
    return NULL;
  if (!g_str_equal (format, "parallax-ir"))
    {
      g_autofree char *p = plx_printable (format);
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: program.format: \"%s\" is not \"parallax-ir\"",
                   source, p);
      return NULL;
    }
  g->n_devices = (guint) devices;
  if ((tensors = get_array (obj, source, "program", "tensors", TRUE, error)) == NULL ||
      (ops = get_array (obj, source, "program", "ops", TRUE, error)) == NULL)
    return NULL;

  for (guint i = 0; i < json_array_get_length (tensors); i++)
    {
      g_autofree char *path = g_strdup_printf ("tensors[%u]", i);
      JsonObject *t_obj = element_object (tensors, i, source, path, error);
      PlxIrTensor *t = g_new0 (PlxIrTensor, 1);

      if (t_obj == NULL || !parse_tensor (t_obj, source, path, tensor_names, g->names, t, error))
        {
          tensor_free (t);
          return NULL;
        }
      g_ptr_array_add (g->tensors, t);
      g_hash_table_insert (tensor_names, t->name, GUINT_TO_POINTER (i));
    }

  for (guint i = 0; i < json_array_get_length (ops); i++)
    {
      g_autofree char *path = g_strdup_printf ("ops[%u]", i);
      JsonObject *o_obj = element_object (ops, i, source, path, error);
      PlxIrOp *op = g_new0 (PlxIrOp, 1);

      if (o_obj == NULL || !parse_op (o_obj, source, path, g, tensor_names, op_names, op, error))
        {
          op_free (op);
          return NULL;
        }
      op->origin = (gint) i;
      g_ptr_array_add (g->ops, op);
      g_hash_table_insert (op_names, op->name, op);
      /* Topological order, one writer per tensor: an op reads graph inputs and what
       * ops before it wrote, and writes tensors nothing has read or written yet. */
      for (guint j = 0; j < op->n_outputs; j++)
        {
          PlxIrTensor *t = g->tensors->pdata[op->outputs[j]];
          if (t->producer != -1)
            {
              g_autofree char *tn = plx_printable (t->name), *on = plx_printable (op->name);
              const PlxIrOp *first = g->ops->pdata[t->producer];
              g_autofree char *fn = plx_printable (first->name);
              g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                           "%s: %s.outputs: tensor \"%s\" is written by op \"%s\" and again by op \"%s\"", source,
                           path, tn, fn, on);
              return NULL;
            }
          t->producer = (gint) i;
        }
      if (!check_shapes (g, op, source, path, error))
        return NULL;
    }
  /* A tensor read before the op that writes it: the ops are out of order. */
  for (guint i = 0; i < g->ops->len; i++)
    {
      const PlxIrOp *op = g->ops->pdata[i];
      for (guint j = 0; j < op->n_inputs; j++)
        {
          const PlxIrTensor *t = g->tensors->pdata[op->inputs[j]];
          if (t->producer >= (gint) i)
            {
              g_autofree char *tn = plx_printable (t->name), *on = plx_printable (op->name);
              const PlxIrOp *w = g->ops->pdata[t->producer];
              g_autofree char *wn = plx_printable (w->name);
              g_set_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT,
                           "%s: ops[%u].inputs: op \"%s\" reads tensor \"%s\" before op \"%s\" writes it (ops are "
                           "listed in the order they run)", source, i, on, tn, wn);
              return NULL;
            }
        }
    }
  return g_steal_pointer (&g);
}

PlxIrGraph *
plx_ir_graph_new_from_file (const char *path,
                            GError    **error)
{
  g_autoptr (JsonNode) node = plx_json_parse_file (path, error);

  if (node == NULL)
    return NULL;
  return plx_ir_graph_new_from_json (node, path, error);
}

/* ---- writing ------------------------------------------------------------------ */

static void
add_names (JsonBuilder *b, const PlxIrGraph *g, const guint *refs, guint n)
{
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    json_builder_add_string_value (b, tensor_at (g, refs[i])->name);
  json_builder_end_array (b);
}

JsonNode *
plx_ir_graph_to_json (const PlxIrGraph *graph)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, "parallax-ir");
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, 1);
  json_builder_set_member_name (b, "devices");
  json_builder_add_int_value (b, graph->n_devices);
  if (!isnan (graph->overlap_slowdown))
    {
      json_builder_set_member_name (b, "overlap_slowdown");
      json_builder_add_double_value (b, graph->overlap_slowdown);
    }
  json_builder_set_member_name (b, "tensors");
  json_builder_begin_array (b);
  for (guint i = 0; i < graph->tensors->len; i++)
    {
      const PlxIrTensor *t = graph->tensors->pdata[i];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, t->name);
      json_builder_set_member_name (b, "shape");
      json_builder_begin_array (b);
      for (guint d = 0; d < t->rank; d++)
        json_builder_add_int_value (b, t->shape[d]);
      json_builder_end_array (b);
      json_builder_set_member_name (b, "dtype");
      json_builder_add_string_value (b, plx_dtype_to_string (t->dtype));
      if (t->role != PLX_IR_ROLE_DATA)
        {
          json_builder_set_member_name (b, "role");
          json_builder_add_string_value (b, plx_ir_role_to_string (t->role));
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "ops");
  json_builder_begin_array (b);
  for (guint i = 0; i < graph->ops->len; i++)
    {
      const PlxIrOp *op = graph->ops->pdata[i];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, op->name);
      json_builder_set_member_name (b, "op");
      json_builder_add_string_value (b, kinds[op->kind].name);
      json_builder_set_member_name (b, "inputs");
      add_names (b, graph, op->inputs, op->n_inputs);
      json_builder_set_member_name (b, "outputs");
      add_names (b, graph, op->outputs, op->n_outputs);
      json_builder_set_member_name (b, "devices");
      json_builder_begin_array (b);
      for (guint d = 0; d < op->n_devices; d++)
        json_builder_add_int_value (b, op->devices[d]);
      json_builder_end_array (b);
      if (op->axis >= 0)
        {
          json_builder_set_member_name (b, "axis");
          json_builder_add_int_value (b, op->axis);
        }
      if (op->kind == PLX_IR_SEND && op->n_devices == 1)
        {
          json_builder_set_member_name (b, "peer");
          json_builder_add_int_value (b, op->peers[0]);
        }
      else if (op->kind == PLX_IR_SEND)
        {
          json_builder_set_member_name (b, "peers");
          json_builder_begin_array (b);
          for (guint d = 0; d < op->n_devices; d++)
            json_builder_add_int_value (b, op->peers[d]);
          json_builder_end_array (b);
        }
      if (op->n_perm > 0)
        {
          json_builder_set_member_name (b, "perm");
          json_builder_begin_array (b);
          for (guint d = 0; d < op->n_perm; d++)
            json_builder_add_int_value (b, op->perm[d]);
          json_builder_end_array (b);
        }
      if (op->groups > 1)
        {
          json_builder_set_member_name (b, "groups");
          json_builder_add_int_value (b, op->groups);
        }
      if (op->kind == PLX_IR_KERNEL)
        {
          json_builder_set_member_name (b, "flops");
          json_builder_add_double_value (b, op->flops);
          if (!isnan (op->bytes))
            {
              json_builder_set_member_name (b, "bytes");
              json_builder_add_double_value (b, op->bytes);
            }
        }
      if (!isnan (op->time_s))
        {
          json_builder_set_member_name (b, "time_s");
          json_builder_add_double_value (b, op->time_s);
        }
      if (op->stream >= 0)
        {
          json_builder_set_member_name (b, "stream");
          json_builder_add_string_value (b, graph->streams->pdata[op->stream]);
        }
      if (op->peer_stream >= 0)
        {
          json_builder_set_member_name (b, "peer_stream");
          json_builder_add_string_value (b, graph->streams->pdata[op->peer_stream]);
        }
      if (op->transpose_a || op->transpose_b)
        {
          json_builder_set_member_name (b, op->transpose_a ? "transpose_a" : "transpose_b");
          json_builder_add_boolean_value (b, TRUE);
          if (op->transpose_a && op->transpose_b)
            {
              json_builder_set_member_name (b, "transpose_b");
              json_builder_add_boolean_value (b, TRUE);
            }
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}
