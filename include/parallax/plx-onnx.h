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

G_END_DECLS
