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
    plx_cluster_free (c);
  json_node_unref (node);
  return 0;
}
