/* plx-kineto-classify.c: kernel classes by the launching op first (it says what was
 * asked for), by the kernel's name second (unlinked kernels, library internals). */
#include <string.h>

#include "plx-kineto-classify.h"
#include "base/plx-minmax.h"

static gboolean
contains_ci (const char *haystack, const char *needle)
{
  g_autofree char *h = g_ascii_strdown (haystack, -1);
  return strstr (h, needle) != NULL;
}

static gboolean
in_list (const char *name, const char *const *list)
{
  for (guint i = 0; list[i] != NULL; i++)
    if (g_str_equal (name, list[i]))
      return TRUE;
  return FALSE;
}

static const char *const gemm_ops[] = { "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul",
                                        "aten::linear", NULL };
static const char *const conv_ops[] = { "aten::cudnn_convolution", "aten::convolution", "aten::_convolution",
                                        "aten::convolution_backward", "aten::cudnn_convolution_backward", NULL };
/* Ops that read their inputs once and write one output the size of the largest:
 * their bytes are the rule of plx_kineto_op_work. Reductions and concatenations are
 * memory-bound too but move other amounts; they are classed, not measured. */
static const char *const elementwise_ops[] = {
  "aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::mul", "aten::mul_", "aten::div", "aten::div_",
  "aten::relu", "aten::relu_", "aten::gelu", "aten::silu", "aten::silu_", "aten::sigmoid", "aten::tanh",
  "aten::exp", "aten::exp_", "aten::log", "aten::log_", "aten::clamp", "aten::clamp_", "aten::where",
  "aten::copy_", "aten::neg", "aten::pow", "aten::nan_to_num", "aten::native_layer_norm", "aten::_softmax",
  "aten::native_dropout", "aten::eq", "aten::logical_and", NULL
};

PlxKernelClass
plx_kineto_classify (const char *kernel,
                     const char *op)
{
  if (g_str_has_prefix (kernel, "nccl"))
    return PLX_KERNEL_COLLECTIVE;
  if (op != NULL && in_list (op, gemm_ops))
    return PLX_KERNEL_GEMM;
  if ((op != NULL && (g_str_has_prefix (op, "aten::_scaled_dot_product") || g_str_has_prefix (op, "aten::_flash_attention") ||
                      g_str_has_prefix (op, "aten::_efficient_attention") || g_str_equal (op, "aten::scaled_dot_product_attention"))) ||
      contains_ci (kernel, "flash") || contains_ci (kernel, "fmha"))
    return PLX_KERNEL_ATTENTION;
  if (op != NULL && (in_list (op, conv_ops) || contains_ci (kernel, "conv") || contains_ci (kernel, "fprop") ||
                     contains_ci (kernel, "dgrad") || contains_ci (kernel, "wgrad")))
    return PLX_KERNEL_OTHER;
  if (contains_ci (kernel, "gemm") || contains_ci (kernel, "cublas") || strstr (kernel, "cutlass::Kernel") != NULL)
    return PLX_KERNEL_GEMM;
  if ((op != NULL && (in_list (op, elementwise_ops) || strstr (op, "norm") != NULL || strstr (op, "softmax") != NULL)) || contains_ci (kernel, "elementwise") ||
      contains_ci (kernel, "reduce_kernel") || contains_ci (kernel, "norm") || contains_ci (kernel, "softmax") ||
      contains_ci (kernel, "catarray") || contains_ci (kernel, "multi_tensor_apply") || contains_ci (kernel, "dropout"))
    return PLX_KERNEL_MEMORY;
  return PLX_KERNEL_OTHER;
}

/* Bytes per element of PyTorch's type names ("Input type") and NCCL's ("dtype");
 * 0: not a tensor (Scalar, lists) or unknown. */
static double
element_bytes (const char *type)
{
  static const struct { const char *name; double bytes; } sizes[] = {
    { "float", 4 }, { "Float", 4 }, { "double", 8 }, { "Double", 8 }, { "c10::Half", 2 }, { "Half", 2 },
    { "c10::BFloat16", 2 }, { "BFloat16", 2 }, { "long int", 8 }, { "Long", 8 }, { "int", 4 }, { "Int", 4 },
    { "bool", 1 }, { "Bool", 1 }, { "unsigned char", 1 }, { "Byte", 1 }, { "signed char", 1 }, { "Char", 1 },
    { "short int", 2 }, { "c10::Float8_e4m3fn", 1 }, { "c10::Float8_e5m2", 1 },
  };

  for (guint i = 0; type != NULL && i < G_N_ELEMENTS (sizes); i++)
    if (g_str_equal (type, sizes[i].name))
      return sizes[i].bytes;
  return 0.0;
}

/* The dims of input `i` as positive sizes; FALSE when absent or not all positive. */
static gboolean
dims_of (JsonArray *dims, guint i, double *out, guint *rank)
{
  JsonNode *n = i < json_array_get_length (dims) ? json_array_get_element (dims, i) : NULL;
  JsonArray *d;

  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    return FALSE;
  d = json_node_get_array (n);
  *rank = json_array_get_length (d);
  if (*rank > 8)
    return FALSE;
  for (guint j = 0; j < *rank; j++)
    {
      JsonNode *v = json_array_get_element (d, j);
      if (!JSON_NODE_HOLDS_VALUE (v) || json_node_get_value_type (v) != G_TYPE_INT64 || json_node_get_int (v) <= 0)
        return FALSE;
      out[j] = (double) json_node_get_int (v);
    }
  return TRUE;
}

static const char *
type_of (JsonArray *types, guint i)
{
  JsonNode *n = types != NULL && i < json_array_get_length (types) ? json_array_get_element (types, i) : NULL;
  return n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING ? json_node_get_string (n) : NULL;
}

static double
product (const double *d, guint from, guint to)
{
  double p = 1.0;
  for (guint j = from; j < to; j++)
    p *= d[j];
  return p;
}

/* A GEMM's FLOPs, 2 m n k per product (multiply and add; the bias add of addmm, m n,
 * is left out as cuBLAS folds it into the epilogue). */
static double
gemm_flops (const char *op, JsonArray *dims, guint *a_input)
{
  double a[8], b[8];
  guint ra, rb, first = g_str_equal (op, "aten::addmm") || g_str_equal (op, "aten::baddbmm") ? 1 : 0;

  *a_input = first;
  if (!dims_of (dims, first, a, &ra) || !dims_of (dims, first + 1, b, &rb))
    return 0.0;
  if (g_str_equal (op, "aten::linear"))
    /* weight [n, k]: y = x W^T */
    return ra >= 1 && rb == 2 && a[ra - 1] == b[1] ? 2.0 * product (a, 0, ra) * b[0] : 0.0;
  if (ra < 2 || rb < 2 || a[ra - 1] != b[rb - 2])
    return 0.0;
  /* mm, addmm: [m,k] x [k,n]; bmm, baddbmm: [b,m,k] x [b,k,n]; matmul: batch dims of
   * either side broadcast. */
  return 2.0 * product (a, 0, ra) * b[rb - 1] * plx_max (1.0, product (b, 0, rb - 2) / product (a, 0, ra - 2));
}

/* The same dims as gemm_flops reads, as a shape: batch x (m x k by k x n). */
static void
gemm_shape (const char *op, JsonArray *dims, PlxKinetoOp *out)
{
  double a[8], b[8];
  guint ra, rb, first = g_str_equal (op, "aten::addmm") || g_str_equal (op, "aten::baddbmm") ? 1 : 0;

  if (!dims_of (dims, first, a, &ra) || !dims_of (dims, first + 1, b, &rb) || ra < 1)
    return;
  if (g_str_equal (op, "aten::linear"))
    {
      /* x [..., k] W^T, W [n, k]: every leading dim of x is a row. */
      if (rb != 2 || a[ra - 1] != b[1])
        return;
      out->gemm_m = product (a, 0, ra - 1);
      out->gemm_k = b[1];
      out->gemm_n = b[0];
      out->gemm_batch = 1.0;
      return;
    }
  if (ra < 2 || rb < 2 || a[ra - 1] != b[rb - 2])
    return;
  out->gemm_k = a[ra - 1];
  out->gemm_n = b[rb - 1];
  if (rb == 2)
    {
      /* mm, addmm, and matmul of a batch by one matrix: one GEMM over all rows. */
      out->gemm_m = product (a, 0, ra - 1);
      out->gemm_batch = 1.0;
    }
  else
    {
      out->gemm_m = a[ra - 2];
      out->gemm_batch = plx_max (product (a, 0, ra - 2), product (b, 0, rb - 2));
    }
}

static PlxDtype
gemm_dtype (const char *type, const char *kernel)
{
  if (type == NULL)
    return PLX_DTYPE_BF16;
  if (g_str_equal (type, "c10::Half"))
    return PLX_DTYPE_FP16;
  if (g_str_has_prefix (type, "c10::Float8"))
    return PLX_DTYPE_FP8;
  if (g_str_equal (type, "float"))
    /* fp32 tensors run on the tensor cores as TF32 when allowed: cuBLAS/CUTLASS name
     * those kernels tf32 or s1688 (the 16x8x8 TF32 MMA); sgemm runs on the FP32 units. */
    return strstr (kernel, "tf32") != NULL || strstr (kernel, "s1688") != NULL ? PLX_DTYPE_TF32 : PLX_DTYPE_FP32;
  return PLX_DTYPE_BF16;
}

void
plx_kineto_op_work (PlxKinetoOp *op,
                    JsonObject  *args,
                    const char  *kernel)
{
  JsonNode *dn = args != NULL ? json_object_get_member (args, "Input Dims") : NULL;
  JsonNode *tn = args != NULL ? json_object_get_member (args, "Input type") : NULL;
  JsonArray *dims, *types;

  if (dn == NULL || !JSON_NODE_HOLDS_ARRAY (dn) || op->name == NULL)
    return;
  dims = json_node_get_array (dn);
  types = tn != NULL && JSON_NODE_HOLDS_ARRAY (tn) ? json_node_get_array (tn) : NULL;
  if (in_list (op->name, gemm_ops))
    {
      guint a_input;
      op->flops = gemm_flops (op->name, dims, &a_input);
      gemm_shape (op->name, dims, op);
      op->dtype = gemm_dtype (type_of (types, a_input), kernel);
    }
  else if (in_list (op->name, elementwise_ops))
    {
      /* Every tensor input read once, one output the size of the largest written. */
      double total = 0.0, largest = 0.0;
      for (guint i = 0; i < json_array_get_length (dims); i++)
        {
          double d[8], bytes;
          guint rank;
          const char *type = type_of (types, i);
          if (type == NULL || g_str_equal (type, "Scalar") || g_str_equal (type, ""))
            continue;
          if (!dims_of (dims, i, d, &rank) || element_bytes (type) == 0.0)
            return;
          bytes = product (d, 0, rank) * element_bytes (type);
          total += bytes;
          largest = MAX (largest, bytes);
        }
      op->bytes = total + largest;
    }
}

void
plx_kineto_read_collective (JsonObject *args,
                            char      **collective,
                            double     *bytes)
{
  JsonNode *name = args != NULL ? json_object_get_member (args, "Collective name") : NULL;
  JsonNode *n = args != NULL ? json_object_get_member (args, "In msg nelems") : NULL;
  JsonNode *type = args != NULL ? json_object_get_member (args, "dtype") : NULL;

  *collective = NULL;
  *bytes = 0.0;
  if (name != NULL && JSON_NODE_HOLDS_VALUE (name) && json_node_get_value_type (name) == G_TYPE_STRING)
    *collective = g_strdup (json_node_get_string (name));
  if (n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64 && json_node_get_int (n) > 0 &&
      type != NULL && JSON_NODE_HOLDS_VALUE (type) && json_node_get_value_type (type) == G_TYPE_STRING)
    *bytes = (double) json_node_get_int (n) * element_bytes (json_node_get_string (type));
}
