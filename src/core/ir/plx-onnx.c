/* ONNX models as forward graphs (docs/graph-format.md, "ONNX").
 *
 * The model is parsed with protobuf-c from Parallax's own subset of onnx.proto
 * (plx-onnx.proto); each node becomes the IR op that costs the same, its output
 * shape computed by the ONNX operator's own rule (onnx.ai/onnx/operators: MatMul's
 * numpy semantics, Gemm's transA/transB, Conv's output size
 * floor((H + pads - dilation (R - 1) - 1) / stride) + 1, Reshape's 0 and -1...). */
#include <string.h>

#include "parallax/plx-error.h"
#include "ir/plx-onnx.h"
#include "plx-onnx.pb-c.h"

#define MAX_DIM G_GINT64_CONSTANT (1099511627776)   /* as the IR reader: 2^40 */
#define MAX_FILE_BYTES (G_GUINT64_CONSTANT (4) << 30)

/* ONNX's TensorProto.DataType values used here. */
enum { ONNX_FLOAT = 1, ONNX_INT32 = 6, ONNX_INT64 = 7, ONNX_FLOAT16 = 10, ONNX_DOUBLE = 11, ONNX_BFLOAT16 = 16 };

typedef struct
{
  PlxIrGraph           *g;
  GHashTable           *names;     /* every IR tensor and op name (owned) */
  GHashTable           *values;    /* ONNX value name -> IR tensor index + 1 */
  GHashTable           *consts;    /* ONNX value name -> Onnx__TensorProto* (initializers, Constants) */
  const char           *source;
  const PlxOnnxOptions *opts;
  const Onnx__NodeProto *node;     /* the node being read, for errors */
} Import;

static gboolean
fail (Import *im, GError **error, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

/* An error about the current node: "SOURCE: node "N" (OpType): WHY". */
static gboolean
fail (Import *im, GError **error, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *why = NULL;

  va_start (ap, fmt);
  why = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (im->node != NULL)
    g_set_error (error, PLX_ERROR, PLX_ERROR_UNSUPPORTED, "%s: node \"%s\" (%s): %s", im->source,
                 im->node->name != NULL ? im->node->name : "", im->node->op_type != NULL ? im->node->op_type : "?",
                 why);
  else
    g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %s", im->source, why);
  return FALSE;
}

static gboolean
is_float (gint32 onnx_type)
{
  return onnx_type == ONNX_FLOAT || onnx_type == ONNX_FLOAT16 || onnx_type == ONNX_BFLOAT16 ||
         onnx_type == ONNX_DOUBLE;
}

static PlxDtype
dtype_of (const Import *im, gint32 onnx_type)
{
  /* Integer and boolean tensors (indices, masks) are counted at 4 bytes. */
  if (is_float (onnx_type) && im->opts->cast_floats)
    return im->opts->float_dtype;
  switch (onnx_type)
    {
    case ONNX_FLOAT16:
      return PLX_DTYPE_FP16;
    case ONNX_BFLOAT16:
      return PLX_DTYPE_BF16;
    default:
      return PLX_DTYPE_FP32;
    }
}

static const PlxIrTensor *
ir_tensor (Import *im, guint index)
{
  return im->g->tensors->pdata[index];
}

/* A new IR tensor for ONNX value `name`, its shape checked. */
static gboolean
add_value (Import *im, const char *name, guint rank, const gint64 *shape, PlxDtype dtype, PlxIrRole role,
           guint *index, GError **error)
{
  double elements = 1.0;

  if (name == NULL || *name == '\0')
    return fail (im, error, "a value without a name");
  if (rank > PLX_IR_MAX_RANK)
    return fail (im, error, "value \"%s\" has %u dimensions, at most %d", name, rank, PLX_IR_MAX_RANK);
  for (guint d = 0; d < rank; d++)
    {
      if (shape[d] < 1 || shape[d] > MAX_DIM)
        return fail (im, error, "value \"%s\": dimension %u is %" G_GINT64_FORMAT ", not a whole number from 1 "
                     "to 2^40", name, d, shape[d]);
      elements *= (double) shape[d];
    }
  if (elements > 1e15)
    return fail (im, error, "value \"%s\": %.3g elements, at most 1e15", name, elements);
  *index = plx_ir_graph_add_tensor (im->g, plx_ir_unique_name (im->names, name), rank, shape, dtype, role);
  g_hash_table_insert (im->values, g_strdup (name), GUINT_TO_POINTER (*index + 1));
  return TRUE;
}

static gboolean
get_value (Import *im, const char *name, guint *index, GError **error)
{
  gpointer v = name != NULL ? g_hash_table_lookup (im->values, name) : NULL;

  if (v == NULL)
    return fail (im, error, "input \"%s\" is not a graph input, an initializer or an earlier node's output",
                 name != NULL ? name : "");
  *index = GPOINTER_TO_UINT (v) - 1;
  return TRUE;
}

static const Onnx__AttributeProto *
attr (const Onnx__NodeProto *node, const char *name)
{
  for (size_t i = 0; i < node->n_attribute; i++)
    if (node->attribute[i]->name != NULL && g_str_equal (node->attribute[i]->name, name))
      return node->attribute[i];
  return NULL;
}

static gint64
attr_int (const Onnx__NodeProto *node, const char *name, gint64 fallback)
{
  const Onnx__AttributeProto *a = attr (node, name);
  return a != NULL && a->has_i ? a->i : fallback;
}

/* An int64 constant's values (Reshape's shape, Split's sizes), or NULL. */
static const gint64 *
const_ints (Import *im, const char *name, gsize *n)
{
  const Onnx__TensorProto *t = name != NULL ? g_hash_table_lookup (im->consts, name) : NULL;

  if (t == NULL || t->data_type != ONNX_INT64)
    return NULL;
  if (t->n_int64_data > 0)
    {
      *n = t->n_int64_data;
      return t->int64_data;
    }
  if (t->has_raw_data && t->raw_data.len % 8 == 0 && ((guintptr) t->raw_data.data % 8) == 0)
    {
      *n = t->raw_data.len / 8;
      return (const gint64 *) (const void *) t->raw_data.data;
    }
  return NULL;
}

static gboolean
emit (Import *im, PlxIrKind kind, const guint *in, guint n_in, const guint *out, guint n_out, PlxIrOp **op_out)
{
  static const guint device0 = 0;
  const char *base = im->node->name != NULL && *im->node->name ? im->node->name : im->node->op_type;
  PlxIrOp *op = plx_ir_graph_add_op (im->g, plx_ir_unique_name (im->names, base), kind, in, n_in, out, n_out,
                                     &device0, 1);

  if (op_out != NULL)
    *op_out = op;
  return TRUE;
}

/* The node's output j with the given shape. */
static gboolean
output (Import *im, guint j, guint rank, const gint64 *shape, PlxDtype dtype, guint *index, GError **error)
{
  if (j >= im->node->n_output)
    return fail (im, error, "has %zu outputs, expected at least %u", im->node->n_output, j + 1);
  return add_value (im, im->node->output[j], rank, shape, dtype, PLX_IR_ROLE_DATA, index, error);
}

static gboolean
need_inputs (Import *im, guint min, guint max, GError **error)
{
  if (im->node->n_input < min || im->node->n_input > max)
    return fail (im, error, "has %zu inputs, expected %u to %u", im->node->n_input, min, max);
  return TRUE;
}

/* b broadcasts to a as the IR's add and mul take it: over a's leading dimensions,
 * each trailing one equal or 1. */
static gboolean
broadcasts_to (const PlxIrTensor *b, const PlxIrTensor *a)
{
  if (b->rank > a->rank)
    return FALSE;
  for (guint i = 0; i < b->rank; i++)
    if (b->shape[b->rank - 1 - i] != a->shape[a->rank - 1 - i] && b->shape[b->rank - 1 - i] != 1)
      return FALSE;
  return TRUE;
}

/* An ONNX axis (negative: from the end) as an index; G_MAXUINT outside -rank..rank,
 * which every caller refuses. */
static guint
norm_axis (gint64 axis, guint rank)
{
  if (axis < -(gint64) rank || axis > (gint64) rank)
    return G_MAXUINT;
  return (guint) (axis < 0 ? axis + (gint64) rank : axis);
}

/* An optional input: present and not "" (ONNX's way of leaving one out). */
static gboolean
has_input (const Onnx__NodeProto *node, guint i)
{
  return i < node->n_input && node->input[i] != NULL && node->input[i][0] != '\0';
}

/* A convolution's or pool's output size along spatial dimension d (0: height, 1:
 * width) of an input of `size` by a kernel of `kernel`: ONNX's rule (Conv, MaxPool),
 * floor((size + pads - dilation (kernel - 1) - 1) / stride) + 1, or with `ceil_mode`
 * the ceiling, where a last window that would start in the right padding is
 * dropped (PyTorch's rule, which ONNX Runtime follows). */
static gboolean
window_size (Import *im, const Onnx__NodeProto *node, guint d, gint64 size, gint64 kernel, gboolean ceil_mode,
             gint64 *out, GError **error)
{
  const Onnx__AttributeProto *strides = attr (node, "strides"), *pads = attr (node, "pads");
  const Onnx__AttributeProto *dil = attr (node, "dilations"), *ap = attr (node, "auto_pad");
  gint64 stride = strides != NULL && strides->n_ints == 2 ? strides->ints[d] : 1;
  gint64 dl = dil != NULL && dil->n_ints == 2 ? dil->ints[d] : 1;
  gint64 p0 = pads != NULL && pads->n_ints == 4 ? pads->ints[d] : 0;
  gint64 p1 = pads != NULL && pads->n_ints == 4 ? pads->ints[d + 2] : 0;
  gint64 span;

  if (ap != NULL && ap->has_s && !(ap->s.len == 6 && memcmp (ap->s.data, "NOTSET", 6) == 0))
    return fail (im, error, "auto_pad is not modelled; give pads");
  if (stride < 1 || stride > MAX_DIM || dl < 1 || dl > MAX_DIM || p0 < 0 || p0 > MAX_DIM || p1 < 0 ||
      p1 > MAX_DIM || kernel < 1 || kernel > MAX_DIM)
    return fail (im, error, "kernel sizes, strides and dilations from 1, pads from 0, each at most 2^40");
  /* every term at most 2^40 (the product 2^80: in double, exact enough to compare) */
  if ((double) dl * (double) (kernel - 1) > (double) (size + p0 + p1))
    return fail (im, error, "a kernel wider than the padded input");
  span = size + p0 + p1 - dl * (kernel - 1) - 1;
  if (span < 0)
    return fail (im, error, "strides, dilations and pads that leave no output");
  *out = span / stride + 1;
  if (ceil_mode && span % stride != 0 && (*out) * stride < size + p0)
    (*out)++;
  return TRUE;
}

/* BatchNormalization (Ioffe and Szegedy 2015): Y from X and the per-channel scale
 * and bias, as the IR's batch_norm (statistics over the batch, then the
 * normalisation; plx-ir.c costs it). The running mean and variance are buffers,
 * not trained (PyTorch keeps them out of a BatchNorm2d's parameters): they become
 * constants, no gradient and no optimizer state. Exported for training
 * (training_mode=1) the node also outputs the updated running statistics: the
 * same buffers, so those names stand for the inputs. */
static gboolean
read_batch_norm (Import *im, guint x_index, GError **error)
{
  const Onnx__NodeProto *node = im->node;
  const PlxIrTensor *x = ir_tensor (im, x_index);
  gint64 shape[PLX_IR_MAX_RANK];
  guint in[5] = { x_index, 0, 0, 0, 0 }, rank = x->rank, out;
  PlxDtype dtype = x->dtype;

  if (!need_inputs (im, 5, 5, error))
    return FALSE;
  if (rank < 2)
    return fail (im, error, "the input has %u dimensions; a batch norm normalises [N, C, ...]", rank);
  memcpy (shape, x->shape, sizeof shape);
  for (guint j = 1; j < 5; j++)
    {
      PlxIrTensor *t;
      if (!get_value (im, node->input[j], &in[j], error))
        return FALSE;
      t = im->g->tensors->pdata[in[j]];
      if (plx_ir_tensor_elements (t) != shape[1])
        return fail (im, error, "input \"%s\" holds %" G_GINT64_FORMAT " values; a batch norm takes one a channel "
                     "(%" G_GINT64_FORMAT ")", node->input[j], plx_ir_tensor_elements (t), shape[1]);
      if (j >= 3 && t->producer < 0 && t->role == PLX_IR_ROLE_WEIGHT)
        t->role = PLX_IR_ROLE_CONSTANT;
    }
  if (!output (im, 0, rank, shape, dtype, &out, error))
    return FALSE;
  for (guint j = 1; j < node->n_output && j < 3; j++)
    if (node->output[j] != NULL && node->output[j][0] != '\0')
      g_hash_table_insert (im->values, g_strdup (node->output[j]), GUINT_TO_POINTER (in[2 + j] + 1));
  return emit (im, PLX_IR_BATCH_NORM, in, 3, &out, 1, NULL);
}

/* MaxPool over the two spatial dimensions of [N, C, H, W], kernel_shape, strides,
 * pads, dilations and ceil_mode read; the IR's max_pool implies its window by the
 * shapes. The Indices output (where each maximum was) is not modelled. */
static gboolean
read_max_pool (Import *im, guint x_index, GError **error)
{
  const Onnx__NodeProto *node = im->node;
  const Onnx__AttributeProto *kernel = attr (node, "kernel_shape");
  const PlxIrTensor *x = ir_tensor (im, x_index);
  gboolean ceil_mode = attr_int (node, "ceil_mode", 0) != 0;
  gint64 shape[PLX_IR_MAX_RANK];
  guint out;

  if (!need_inputs (im, 1, 1, error))
    return FALSE;
  if (x->rank != 4 || kernel == NULL || kernel->n_ints != 2)
    return fail (im, error, "only 2-D pooling of [N, C, H, W] with a kernel_shape of two sizes is modelled");
  if (node->n_output > 1 && node->output[1] != NULL && node->output[1][0] != '\0')
    return fail (im, error, "the Indices output is not modelled");
  memcpy (shape, x->shape, sizeof shape);
  for (guint d = 0; d < 2; d++)
    {
      if (!window_size (im, node, d, x->shape[2 + d], kernel->ints[d], ceil_mode, &shape[2 + d], error))
        return FALSE;
      /* Padding wider than the window would make the output larger than the input,
       * which no network does and the IR's max_pool refuses. */
      if (shape[2 + d] > x->shape[2 + d])
        return fail (im, error, "an output of %" G_GINT64_FORMAT " along a dimension of %" G_GINT64_FORMAT
                     " (pads wider than the window)", shape[2 + d], x->shape[2 + d]);
    }
  return output (im, 0, 4, shape, x->dtype, &out, error) && emit (im, PLX_IR_MAX_POOL, &x_index, 1, &out, 1, NULL);
}

static gboolean
read_node (Import *im, GError **error)
{
  const Onnx__NodeProto *node = im->node;
  const char *op = node->op_type != NULL ? node->op_type : "";
  guint in[3] = { 0, 0, 0 }, out = 0;
  gint64 shape[PLX_IR_MAX_RANK];
  const PlxIrTensor *x;

  if (node->n_output < 1)
    return fail (im, error, "has no output");
  /* Views and no-ops: the output is the input. */
  if (g_str_equal (op, "Identity") || g_str_equal (op, "Dropout"))
    {
      if (!need_inputs (im, 1, 3, error) || !get_value (im, node->input[0], &in[0], error))
        return FALSE;
      g_hash_table_insert (im->values, g_strdup (node->output[0]), GUINT_TO_POINTER (in[0] + 1));
      return TRUE;
    }
  if (g_str_equal (op, "Constant"))
    {
      const Onnx__AttributeProto *v = attr (node, "value");
      if (v == NULL || v->t == NULL)
        return fail (im, error, "only a tensor \"value\" is read");
      g_hash_table_insert (im->consts, g_strdup (node->output[0]), v->t);
      for (size_t d = 0; d < v->t->n_dims && d < PLX_IR_MAX_RANK; d++)
        shape[d] = v->t->dims[d];
      return add_value (im, node->output[0], (guint) v->t->n_dims, shape, dtype_of (im, v->t->data_type),
                        PLX_IR_ROLE_CONSTANT, &out, error);
    }

  if (node->n_input < 1)
    return fail (im, error, "has no inputs");
  if (!get_value (im, node->input[0], &in[0], error))
    return FALSE;
  x = ir_tensor (im, in[0]);
  memcpy (shape, x->shape, sizeof shape);

  if (g_str_equal (op, "MatMul"))
    {
      const PlxIrTensor *b;
      if (!need_inputs (im, 2, 2, error) || !get_value (im, node->input[1], &in[1], error))
        return FALSE;
      b = ir_tensor (im, in[1]);
      x = ir_tensor (im, in[0]);
      if (x->rank < 2 || b->rank < 2 || x->shape[x->rank - 1] != b->shape[b->rank - 2] ||
          (b->rank > 2 && (b->rank != x->rank || memcmp (x->shape, b->shape, (x->rank - 2) * sizeof shape[0]) != 0)))
        return fail (im, error, "operands that do not multiply as [..., m, k] x [k, n] or equal batches (numpy "
                     "broadcasting of batch dimensions is not modelled)");
      shape[x->rank - 1] = b->shape[b->rank - 1];
      return output (im, 0, x->rank, shape, x->dtype, &out, error) && emit (im, PLX_IR_MATMUL, in, 2, &out, 1, NULL);
    }
  if (g_str_equal (op, "Gemm"))
    {
      gboolean ta = attr_int (node, "transA", 0) != 0, tb = attr_int (node, "transB", 0) != 0;
      const PlxIrTensor *a, *b;
      PlxIrOp *mm;
      guint prod;
      if (!need_inputs (im, 2, 3, error) || !get_value (im, node->input[1], &in[1], error))
        return FALSE;
      a = ir_tensor (im, in[0]);
      b = ir_tensor (im, in[1]);
      if (a->rank != 2 || b->rank != 2 || a->shape[ta ? 0 : 1] != b->shape[tb ? 1 : 0])
        return fail (im, error, "operands that are not matrices that multiply");
      shape[0] = a->shape[ta ? 1 : 0];
      shape[1] = b->shape[tb ? 0 : 1];
      if (node->n_input < 3 || node->input[2] == NULL || *node->input[2] == '\0')
        {
          if (!output (im, 0, 2, shape, a->dtype, &out, error) || !emit (im, PLX_IR_MATMUL, in, 2, &out, 1, &mm))
            return FALSE;
          mm->transpose_a = ta;
          mm->transpose_b = tb;
          return TRUE;
        }
      {
        g_autofree char *tmp = g_strdup_printf ("%s:product", node->output[0]);
        guint sum_in[2];
        if (!add_value (im, tmp, 2, shape, a->dtype, PLX_IR_ROLE_DATA, &prod, error) ||
            !emit (im, PLX_IR_MATMUL, in, 2, &prod, 1, &mm) || !get_value (im, node->input[2], &sum_in[1], error))
          return FALSE;
        mm->transpose_a = ta;
        mm->transpose_b = tb;
        sum_in[0] = prod;
        if (!broadcasts_to (ir_tensor (im, sum_in[1]), ir_tensor (im, prod)))
          return fail (im, error, "a bias that does not broadcast to the product");
        return output (im, 0, 2, shape, a->dtype, &out, error) && emit (im, PLX_IR_ADD, sum_in, 2, &out, 1, NULL);
      }
    }
  if (g_str_equal (op, "Add") || g_str_equal (op, "Sub") || g_str_equal (op, "Mul") || g_str_equal (op, "Div"))
    {
      const PlxIrTensor *b;
      if (!need_inputs (im, 2, 2, error) || !get_value (im, node->input[1], &in[1], error))
        return FALSE;
      b = ir_tensor (im, in[1]);
      x = ir_tensor (im, in[0]);
      if (!broadcasts_to (b, x))
        {
          guint swap = in[0];
          if (!broadcasts_to (x, b))
            return fail (im, error, "operands that broadcast both ways (each has a 1 where the other does not) are "
                         "not modelled");
          in[0] = in[1];
          in[1] = swap;
          x = b;
        }
      memcpy (shape, x->shape, sizeof shape);
      return output (im, 0, x->rank, shape, x->dtype, &out, error) &&
             emit (im, g_str_equal (op, "Add") || g_str_equal (op, "Sub") ? PLX_IR_ADD : PLX_IR_MUL, in, 2, &out, 1,
                   NULL);
    }
  if (g_str_equal (op, "Relu") || g_str_equal (op, "Gelu") || g_str_equal (op, "Tanh") ||
      g_str_equal (op, "Sigmoid"))
    {
      /* A sigmoid costs what tanh does: one transcendental an element. */
      PlxIrKind kind = g_str_equal (op, "Relu") ? PLX_IR_RELU : g_str_equal (op, "Gelu") ? PLX_IR_GELU : PLX_IR_TANH;
      return output (im, 0, x->rank, shape, x->dtype, &out, error) && emit (im, kind, in, 1, &out, 1, NULL);
    }
  if (g_str_equal (op, "Softmax") || g_str_equal (op, "LayerNormalization"))
    {
      gboolean ln = g_str_equal (op, "LayerNormalization");
      guint n = ln ? (has_input (node, 2) ? 3 : has_input (node, 1) ? 2 : 1) : 1;
      if (x->rank == 0 || norm_axis (attr_int (node, "axis", -1), x->rank) != x->rank - 1)
        return fail (im, error, "only the last axis is modelled");
      for (guint j = 1; j < n; j++)
        if (!get_value (im, node->input[j], &in[j], error))
          return FALSE;
      return output (im, 0, x->rank, shape, x->dtype, &out, error) &&
             emit (im, ln ? PLX_IR_LAYER_NORM : PLX_IR_SOFTMAX, in, n, &out, 1, NULL);
    }
  if (g_str_equal (op, "Reshape") || g_str_equal (op, "Flatten"))
    {
      gsize n = 0;
      const gint64 *target = NULL;
      gint64 known = 1, total = plx_ir_tensor_elements (x);
      gint infer = -1;
      guint rank;

      if (g_str_equal (op, "Flatten"))
        {
          guint axis = norm_axis (attr_int (node, "axis", 1), x->rank);
          gint64 lead = 1;
          if (axis > x->rank)
            return fail (im, error, "axis past the input's %u dimensions", x->rank);
          for (guint d = 0; d < axis; d++)
            lead *= x->shape[d];
          shape[0] = lead;
          shape[1] = total / lead;
          return output (im, 0, 2, shape, x->dtype, &out, error) && emit (im, PLX_IR_RESHAPE, in, 1, &out, 1, NULL);
        }
      if (node->n_input < 2 || (target = const_ints (im, node->input[1], &n)) == NULL)
        return fail (im, error, "the target shape is not a constant int64 tensor (an initializer or a Constant)");
      if (n > PLX_IR_MAX_RANK)
        return fail (im, error, "a target of %zu dimensions, at most %d", n, PLX_IR_MAX_RANK);
      rank = (guint) n;
      for (guint d = 0; d < rank; d++)
        {
          shape[d] = target[d] == 0 && d < x->rank ? x->shape[d] : target[d];
          if (shape[d] == -1 && infer < 0)
            infer = (gint) d;
          else if (shape[d] < 1 || shape[d] > total / known)
            return fail (im, error, "target dimension %u is %" G_GINT64_FORMAT ", for %" G_GINT64_FORMAT
                         " elements", d, target[d], total);
          else
            known *= shape[d];
          if (known > total)
            return fail (im, error, "%" G_GINT64_FORMAT " elements do not reshape to the target", total);
        }
      if (infer >= 0)
        {
          if (known == 0 || total % known != 0)
            return fail (im, error, "%" G_GINT64_FORMAT " elements do not reshape to the target", total);
          shape[infer] = total / known;
          known *= shape[infer];
        }
      if (known != total)
        return fail (im, error, "%" G_GINT64_FORMAT " elements do not reshape to %" G_GINT64_FORMAT, total, known);
      return output (im, 0, rank, shape, x->dtype, &out, error) && emit (im, PLX_IR_RESHAPE, in, 1, &out, 1, NULL);
    }
  if (g_str_equal (op, "Transpose"))
    {
      const Onnx__AttributeProto *perm = attr (node, "perm");
      guint8 p[PLX_IR_MAX_RANK];
      guint seen = 0;
      PlxIrOp *tr;
      if (perm != NULL && perm->n_ints != x->rank)
        return fail (im, error, "perm has %zu entries for %u dimensions", perm->n_ints, x->rank);
      for (guint d = 0; d < x->rank; d++)
        {
          gint64 from = perm != NULL ? perm->ints[d] : (gint64) (x->rank - 1 - d);
          if (from < 0 || from >= (gint64) x->rank || (seen & (1u << from)) != 0)
            return fail (im, error, "perm is not a permutation of the %u dimensions", x->rank);
          seen |= 1u << from;
          shape[d] = x->shape[from];
          p[d] = (guint8) from;
        }
      if (!output (im, 0, x->rank, shape, x->dtype, &out, error) || !emit (im, PLX_IR_TRANSPOSE, in, 1, &out, 1, &tr))
        return FALSE;
      tr->n_perm = x->rank;
      memcpy (tr->perm, p, sizeof p);
      return TRUE;
    }
  if (g_str_equal (op, "Gather"))
    {
      const PlxIrTensor *idx;
      if (!need_inputs (im, 2, 2, error) || !get_value (im, node->input[1], &in[1], error))
        return FALSE;
      idx = ir_tensor (im, in[1]);
      x = ir_tensor (im, in[0]);
      if (attr_int (node, "axis", 0) != 0 || x->rank != 2 || idx->rank + 1 > PLX_IR_MAX_RANK)
        return fail (im, error, "only a lookup in a [rows, width] table along axis 0 is modelled");
      memcpy (shape, idx->shape, idx->rank * sizeof shape[0]);
      shape[idx->rank] = x->shape[1];
      return output (im, 0, idx->rank + 1, shape, x->dtype, &out, error) &&
             emit (im, PLX_IR_GATHER, in, 2, &out, 1, NULL);
    }
  if (g_str_equal (op, "Split"))
    {
      guint axis = norm_axis (attr_int (node, "axis", 0), x->rank), n_out = (guint) node->n_output;
      const Onnx__AttributeProto *sa = attr (node, "split");
      gsize n = 0;
      const gint64 *sizes = node->n_input > 1 ? const_ints (im, node->input[1], &n) : NULL;
      g_autofree guint *outs = g_new (guint, MAX (n_out, 1));
      gint64 sum = 0;

      if (sizes == NULL && sa != NULL)
        {
          sizes = sa->ints;
          n = sa->n_ints;
        }
      if (axis >= x->rank || n_out == 0 || (sizes != NULL && n != n_out) ||
          (sizes == NULL && x->shape[axis] % n_out != 0))
        return fail (im, error, "a split that does not divide the axis into its %u outputs", n_out);
      for (guint j = 0; j < n_out; j++)
        {
          gint64 part = sizes != NULL ? sizes[j] : x->shape[axis] / n_out;
          if (part < 1 || part > x->shape[axis])
            return fail (im, error, "part %u is %" G_GINT64_FORMAT " along an axis of %" G_GINT64_FORMAT, j, part,
                         x->shape[axis]);
          memcpy (shape, x->shape, sizeof shape);
          shape[axis] = part;
          sum += part;
          if (sum > x->shape[axis])
            return fail (im, error, "parts longer than the axis of %" G_GINT64_FORMAT, x->shape[axis]);
          if (!output (im, j, x->rank, shape, x->dtype, &outs[j], error))
            return FALSE;
        }
      if (sum != x->shape[axis])
        return fail (im, error, "parts of %" G_GINT64_FORMAT " along an axis of %" G_GINT64_FORMAT, sum,
                     x->shape[axis]);
      {
        PlxIrOp *sp;
        emit (im, PLX_IR_SPLIT, in, 1, outs, n_out, &sp);
        sp->axis = (gint) axis;
      }
      return TRUE;
    }
  if (g_str_equal (op, "Concat"))
    {
      guint axis = norm_axis (attr_int (node, "axis", 0), x->rank), n_in = (guint) node->n_input;
      g_autofree guint *ins = g_new (guint, n_in);
      PlxIrOp *cat;
      shape[axis < x->rank ? axis : 0] = 0;
      for (guint j = 0; j < n_in; j++)
        {
          const PlxIrTensor *p;
          if (!get_value (im, node->input[j], &ins[j], error))
            return FALSE;
          p = ir_tensor (im, ins[j]);
          if (axis >= x->rank || p->rank != x->rank)
            return fail (im, error, "parts of different ranks, or an axis past them");
          shape[axis] += p->shape[axis];
          if (shape[axis] > MAX_DIM)
            return fail (im, error, "parts longer than 2^40 along the axis");
        }
      if (!output (im, 0, x->rank, shape, x->dtype, &out, error))
        return FALSE;
      emit (im, PLX_IR_CONCAT, ins, n_in, &out, 1, &cat);
      cat->axis = (gint) axis;
      return TRUE;
    }
  if (g_str_equal (op, "ReduceMean") || g_str_equal (op, "GlobalAveragePool"))
    {
      const Onnx__AttributeProto *axes = attr (node, "axes");
      gboolean keep = attr_int (node, "keepdims", 1) != 0, global = g_str_equal (op, "GlobalAveragePool");
      guint rank = 0;
      gboolean reduced[PLX_IR_MAX_RANK] = { FALSE };
      gsize n_axes = axes != NULL ? axes->n_ints : 0;
      const gint64 *axis_list = axes != NULL ? axes->ints : NULL;

      /* Since opset 18 the axes are an input (a constant here). */
      if (axes == NULL && has_input (node, 1) && (axis_list = const_ints (im, node->input[1], &n_axes)) == NULL)
        return fail (im, error, "the axes are not a constant int64 tensor");
      if (global && x->rank < 3)
        return fail (im, error, "pools the spatial dimensions of [N, C, ...]; the input has %u dimensions", x->rank);
      for (guint d = 0; d < x->rank; d++)
        reduced[d] = global ? d >= 2 : axis_list == NULL;
      for (size_t k = 0; !global && axis_list != NULL && k < n_axes; k++)
        {
          guint d = norm_axis (axis_list[k], x->rank);
          if (d >= x->rank)
            return fail (im, error, "an axis past the input's %u dimensions", x->rank);
          reduced[d] = TRUE;
        }
      for (guint d = 0; d < x->rank; d++)
        if (!reduced[d] || keep || global)
          shape[rank++] = reduced[d] ? 1 : x->shape[d];
      if (rank == 0)
        shape[rank++] = 1;
      return output (im, 0, rank, shape, x->dtype, &out, error) &&
             emit (im, PLX_IR_REDUCE_MEAN, in, 1, &out, 1, NULL);
    }
  if (g_str_equal (op, "Conv"))
    {
      const PlxIrTensor *w;
      guint n = has_input (node, 2) ? 3 : (guint) MIN (node->n_input, 2);
      for (guint j = 1; j < n; j++)
        if (!get_value (im, node->input[j], &in[j], error))
          return FALSE;
      if (n < 2)
        return fail (im, error, "no weight");
      w = ir_tensor (im, in[1]);
      x = ir_tensor (im, in[0]);
      if (x->rank != 4 || w->rank != 4 || w->shape[1] < 1 || x->shape[1] % w->shape[1] != 0)
        return fail (im, error, "only 2-D convolutions of [N, C, H, W] by [K, C/groups, R, S] are modelled");
      shape[0] = x->shape[0];
      shape[1] = w->shape[0];
      for (guint d = 0; d < 2; d++)
        if (!window_size (im, node, d, x->shape[2 + d], w->shape[2 + d], FALSE, &shape[2 + d], error))
          return FALSE;
      return output (im, 0, 4, shape, x->dtype, &out, error) && emit (im, PLX_IR_CONV, in, n, &out, 1, NULL);
    }
  if (g_str_equal (op, "BatchNormalization"))
    return read_batch_norm (im, in[0], error);
  if (g_str_equal (op, "MaxPool"))
    return read_max_pool (im, in[0], error);
  return fail (im, error, "Parallax cannot cost this op (docs/graph-format.md lists those it can)");
}

/* A graph input's or output's shape from its type, symbolic dimensions from the
 * options. */
static gboolean
value_shape (Import *im, const Onnx__ValueInfoProto *v, guint *rank, gint64 *shape, PlxDtype *dtype,
             GError **error)
{
  const Onnx__TypeProto__Tensor *tt = v->type != NULL && v->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE
                                        ? v->type->tensor_type : NULL;

  if (tt == NULL || tt->shape == NULL)
    return fail (im, error, "input \"%s\" has no tensor shape", v->name != NULL ? v->name : "");
  if (tt->shape->n_dim > PLX_IR_MAX_RANK)
    return fail (im, error, "input \"%s\" has %zu dimensions, at most %d", v->name, tt->shape->n_dim,
                 PLX_IR_MAX_RANK);
  *rank = (guint) tt->shape->n_dim;
  *dtype = dtype_of (im, tt->elem_type);
  for (guint d = 0; d < *rank; d++)
    {
      const Onnx__TensorShapeProto__Dimension *dim = tt->shape->dim[d];
      if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
        shape[d] = dim->dim_value;
      else
        {
          const char *param = dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                                dim->dim_param != NULL ? dim->dim_param : "";
          guint k;
          for (k = 0; k < im->opts->n_dims && !g_str_equal (im->opts->dim_names[k], param); k++)
            ;
          if (k == im->opts->n_dims)
            {
              /* A size the caller has to give: its own code, so a window can ask for it. */
              fail (im, error, "input \"%s\": dimension %u is symbolic (\"%s\"); give its size (--dim %s=N)",
                    v->name, d, param, *param ? param : "NAME");
              if (error != NULL && *error != NULL)
                (*error)->code = PLX_ERROR_MISSING_KEY;
              return FALSE;
            }
          shape[d] = im->opts->dim_values[k];
        }
    }
  return TRUE;
}

PlxIrGraph *
plx_onnx_import_data (const guint8         *data,
                      gsize                 length,
                      const char           *source,
                      const PlxOnnxOptions *options,
                      GError              **error)
{
  static const PlxOnnxOptions none = { 0 };
  g_autoptr (GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) consts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (PlxIrGraph) g = plx_ir_graph_new (1);
  Import im = { g, names, values, consts, source, options != NULL ? options : &none, NULL };
  Onnx__ModelProto *model = onnx__model_proto__unpack (NULL, length, data);
  const Onnx__GraphProto *graph = model != NULL ? model->graph : NULL;
  gboolean ok = TRUE;

  if (graph == NULL || graph->n_node == 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: not an ONNX model (no graph of nodes could be read)",
                   source);
      if (model != NULL)
        onnx__model_proto__free_unpacked (model, NULL);
      return NULL;
    }
  /* Initializers are weights (floating point) or constants (integers); the rest of
   * the inputs are data. */
  for (size_t i = 0; ok && i < graph->n_initializer; i++)
    {
      const Onnx__TensorProto *t = graph->initializer[i];
      gint64 shape[PLX_IR_MAX_RANK];
      guint index;
      gboolean is_int = !is_float (t->data_type);

      if (t->n_dims > PLX_IR_MAX_RANK)
        ok = fail (&im, error, "initializer \"%s\" has %zu dimensions, at most %d", t->name ? t->name : "", t->n_dims,
                   PLX_IR_MAX_RANK);
      for (size_t d = 0; ok && d < t->n_dims; d++)
        shape[d] = t->dims[d];
      if (ok)
        ok = add_value (&im, t->name, (guint) t->n_dims, shape, dtype_of (&im, t->data_type),
                        is_int ? PLX_IR_ROLE_CONSTANT : PLX_IR_ROLE_WEIGHT, &index, error);
      if (ok)
        g_hash_table_insert (consts, g_strdup (t->name), (gpointer) t);
    }
  for (size_t i = 0; ok && i < graph->n_input; i++)
    {
      const Onnx__ValueInfoProto *v = graph->input[i];
      gint64 shape[PLX_IR_MAX_RANK];
      guint rank = 0, index;
      PlxDtype dtype = PLX_DTYPE_FP32;

      if (v->name == NULL || g_hash_table_contains (values, v->name))
        continue;   /* an initializer listed as an input too (older exporters) */
      ok = value_shape (&im, v, &rank, shape, &dtype, error) &&
           add_value (&im, v->name, rank, shape, dtype, PLX_IR_ROLE_DATA, &index, error);
    }
  for (size_t i = 0; ok && i < graph->n_node; i++)
    {
      im.node = graph->node[i];
      ok = read_node (&im, error);
    }
  im.node = NULL;
  if (ok && im.opts->add_loss)
    {
      /* Softmax cross-entropy on the first output against labels of its shape. */
      gpointer v = graph->n_output > 0 && graph->output[0]->name != NULL
                     ? g_hash_table_lookup (values, graph->output[0]->name) : NULL;
      if (v == NULL || ir_tensor (&im, GPOINTER_TO_UINT (v) - 1)->producer < 0)
        ok = fail (&im, error, "the first graph output is not made by any node; no loss can be put on it");
      else
        {
          const PlxIrTensor *logits = ir_tensor (&im, GPOINTER_TO_UINT (v) - 1);
          const gint64 one = 1;
          guint in[2] = { GPOINTER_TO_UINT (v) - 1, 0 }, loss;
          static const guint device0 = 0;
          ok = add_value (&im, "labels", logits->rank, logits->shape, logits->dtype, PLX_IR_ROLE_DATA, &in[1], error) &&
               add_value (&im, "loss", 1, &one, PLX_DTYPE_FP32, PLX_IR_ROLE_DATA, &loss, error);
          if (ok)
            plx_ir_graph_add_op (g, plx_ir_unique_name (names, "loss"), PLX_IR_LOSS, in, 2, &loss, 1, &device0, 1);
        }
    }
  onnx__model_proto__free_unpacked (model, NULL);
  if (!ok)
    return NULL;
  /* Every shape rule of the IR, as a file would be checked. */
  if (!plx_ir_graph_check (g, source, error))
    return NULL;
  return g_steal_pointer (&g);
}

/* The file mapped, its size checked. */
static GMappedFile *
map_model (const char *path, GError **error)
{
  g_autoptr (GMappedFile) file = NULL;
  GError *local = NULL;

  file = g_mapped_file_new (path, FALSE, &local);
  if (file == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_NOT_FOUND, "%s: %s", path, local->message);
      g_error_free (local);
      return NULL;
    }
  if (g_mapped_file_get_length (file) > MAX_FILE_BYTES)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %zu bytes, more than 4 GiB (weights belong in "
                   "external data, which Parallax does not need)", path, g_mapped_file_get_length (file));
      return NULL;
    }
  return g_steal_pointer (&file);
}

PlxIrGraph *
plx_onnx_import (const char           *path,
                 const PlxOnnxOptions *options,
                 GError              **error)
{
  g_autoptr (GMappedFile) file = map_model (path, error);

  if (file == NULL)
    return NULL;
  return plx_onnx_import_data ((const guint8 *) g_mapped_file_get_contents (file), g_mapped_file_get_length (file),
                               path, options, error);
}

gboolean
plx_onnx_has_dimension (const char *path,
                        const char *name,
                        gboolean   *has,
                        GError    **error)
{
  g_autoptr (GMappedFile) file = map_model (path, error);
  Onnx__ModelProto *model;

  *has = FALSE;
  if (file == NULL)
    return FALSE;
  model = onnx__model_proto__unpack (NULL, g_mapped_file_get_length (file),
                                     (const guint8 *) g_mapped_file_get_contents (file));
  if (model == NULL || model->graph == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: not an ONNX model (no graph of nodes could be read)", path);
      if (model != NULL)
        onnx__model_proto__free_unpacked (model, NULL);
      return FALSE;
    }
  for (size_t i = 0; !*has && i < model->graph->n_input; i++)
    {
      const Onnx__TypeProto *type = model->graph->input[i]->type;
      const Onnx__TensorShapeProto *shape = type != NULL && type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
                                            type->tensor_type != NULL ? type->tensor_type->shape : NULL;
      for (size_t d = 0; shape != NULL && d < shape->n_dim; d++)
        if (shape->dim[d]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
            shape->dim[d]->dim_param != NULL && g_str_equal (shape->dim[d]->dim_param, name))
          *has = TRUE;
    }
  onnx__model_proto__free_unpacked (model, NULL);
  return TRUE;
}
