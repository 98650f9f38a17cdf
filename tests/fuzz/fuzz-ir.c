/* A distributed program (docs/ir.md): any input is read or refused with an error;
 * what is read is written back and read again (the round trip must hold), every
 * op's FLOPs and bytes are counted, and a small program is simulated (streams,
 * contention) to a finite step time. */
#include <math.h>
#include <stdlib.h>

#include "fuzz-common.h"
#include "ir/plx-ir.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  JsonNode *node = fuzz_parse (data, size);
  GError *error = NULL;
  PlxIrGraph *g;

  if (node == NULL)
    return 0;
  g = plx_ir_graph_new_from_json (node, "fuzz", &error);
  fuzz_check_error (error);
  if (g != NULL)
    {
      JsonNode *written = plx_ir_graph_to_json (g);
      PlxIrGraph *again = plx_ir_graph_new_from_json (written, "written", &error);

      static PlxCluster *cluster = NULL;

      if (again == NULL)
        abort ();   /* what the IR writes it must read */
      if (cluster == NULL)
        {
          cluster = plx_cluster_new_preset ("dgx-a100-80gb", NULL);
          cluster->num_nodes = 64;
          cluster->overlap_slowdown = 0.1;
        }
      if (g->ops->len <= 4096 && g->n_devices <= 512)
        {
          PlxIrRun run;
          if (!plx_ir_simulate (g, cluster, &run, NULL) || !isfinite (run.makespan_s) || run.makespan_s < 0.0 ||
              !(run.peak_bytes >= 0.0))
            abort ();
          plx_ir_run_clear (&run);
        }
      for (guint i = 0; i < g->ops->len; i++)
        if (!(plx_ir_op_flops (g, g->ops->pdata[i]) >= 0.0) || !(plx_ir_op_bytes (g, g->ops->pdata[i]) >= 0.0))
          abort ();
      plx_ir_graph_free (again);
      json_node_unref (written);
      plx_ir_graph_free (g);
    }
  json_node_unref (node);
  return 0;
}
