/* An ONNX model (docs/graph-format.md, "ONNX"): any bytes are read or refused with
 * an error; what is read passes the IR's checks, is trained (or refused), and every
 * op's FLOPs and bytes are counted. */
#include <stdlib.h>

#include "fuzz-common.h"
#include "ir/plx-ir.h"
#include "ir/plx-onnx.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const char *const names[] = { "batch", "sequence" };
  static const gint64 values[] = { 4, 16 };
  PlxOnnxOptions opts = { names, values, 2, TRUE };
  GError *error = NULL;
  PlxIrGraph *g = plx_onnx_import_data (data, size, "fuzz", &opts, &error);

  fuzz_check_error (error);
  if (g != NULL)
    {
      PlxIrGraph *t = plx_ir_training_graph (g, PLX_IR_OPTIMIZER_ADAM, "fuzz", &error);
      fuzz_check_error (error);
      for (guint i = 0; i < g->ops->len; i++)
        if (!(plx_ir_op_flops (g, g->ops->pdata[i]) >= 0.0) || !(plx_ir_op_bytes (g, g->ops->pdata[i]) >= 0.0))
          abort ();
      if (t != NULL && !plx_ir_graph_check (t, "training", NULL))
        abort ();   /* the backward pass of a graph that reads must read */
      if (t != NULL)
        plx_ir_graph_free (t);
      plx_ir_graph_free (g);
    }
  return 0;
}
