/* A cluster object (inline or a file given with --cluster). */
#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  JsonNode *node = fuzz_parse (data, size);
  GError *error = NULL;
  PlxCluster *c;

  if (node == NULL)
    return 0;
  c = plx_cluster_new_from_json (node, "fuzz", &error);
  fuzz_check_error (error);
  if (c != NULL)
    {
      /* Every measured GEMM the reader kept is found again, transposed too, and
       * survives a copy (the sampler's). */
      PlxCluster *copy = plx_cluster_copy (c);
      for (guint i = 0; i < c->n_measured_gemms; i++)
        {
          const PlxMeasuredGemm *g = &c->measured_gemms[i];
          if (plx_measured_gemm_time (copy->measured_gemms, copy->n_measured_gemms, g->dtype, (double) g->n,
                                      (double) g->k, (double) g->m) != g->time_s ||
              !(g->time_s > 0.0))
            abort ();
        }
      plx_cluster_free (copy);
      plx_cluster_free (c);
    }
  json_node_unref (node);
  return 0;
}
