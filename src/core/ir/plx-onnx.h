/* plx-onnx.h: an ONNX model read as a forward graph of the IR (docs/graph-format.md,
 * "ONNX"). Shapes come from the initializers, the inputs and each op's own shape
 * rule; weights' values are never read, so external data may be absent. */
#pragma once

#include "plx-ir.h"

G_BEGIN_DECLS

typedef struct
{
  /* Values for symbolic dimensions ("batch", "sequence"): names and values. */
  const char *const *dim_names;
  const gint64      *dim_values;
  guint              n_dims;
  /* Append a softmax cross-entropy loss on the first output, against a labels input
   * of its shape: an inference graph made trainable. */
  gboolean           add_loss;
  /* With `cast_floats`, every floating-point tensor (weights, activations, float
   * inputs) is held and computed in `float_dtype` - its element size and the GPU's
   * peak for it - as a framework runs an fp32 export under bf16 or fp16 (--dtype);
   * integer tensors stay 4 bytes. Without, each tensor keeps the file's type. */
  gboolean           cast_floats;
  PlxDtype           float_dtype;
} PlxOnnxOptions;

/* Errors name `source`, the node and its op type (an op Parallax cannot cost), or
 * the value and the dimension. */
PlxIrGraph *plx_onnx_import_data (const guint8         *data,
                                  gsize                 length,
                                  const char           *source,
                                  const PlxOnnxOptions *options,
                                  GError              **error);
PlxIrGraph *plx_onnx_import (const char           *path,
                             const PlxOnnxOptions *options,
                             GError              **error);
/* Whether any graph input of the model has the symbolic dimension `name` (a decoder
 * taking its KV cache as inputs has "past"): sets `has`; FALSE with an error when
 * the file cannot be read as a model. */
gboolean    plx_onnx_has_dimension (const char *path,
                                    const char *name,
                                    gboolean   *has,
                                    GError    **error);

G_END_DECLS
