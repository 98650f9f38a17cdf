/* A model object / Hugging Face config.json. */
#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  JsonNode *node = fuzz_parse (data, size);
  GError *error = NULL;
  PlxModel *m;

  if (node == NULL)
    return 0;
  m = plx_model_new_from_json (node, "fuzz", &error);
  fuzz_check_error (error);
  if (m != NULL)
    {
      /* The counts a loaded model promises to keep inside 64 bits. */
      if (!(plx_model_get_n_params (m) >= 0.0))
        abort ();
      plx_model_free (m);
    }
  json_node_unref (node);
  return 0;
}
