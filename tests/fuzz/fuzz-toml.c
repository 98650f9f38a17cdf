/* The TOML subset reader (plx-toml.c), which parallax-cli import reads framework
 * configurations with: any bytes give JSON or a PLX_ERROR naming the line. */
#include <string.h>

#include "fuzz-common.h"
#include "base/plx-toml.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  JsonNode *node;
  char *text;

  if (size > 1 << 20)
    return 0;
  /* The reader takes NUL-terminated text: a NUL inside ends it early, as a C string. */
  text = g_malloc (size + 1);
  memcpy (text, data, size);
  text[size] = '\0';
  node = plx_toml_parse (text, "fuzz", &error);
  fuzz_check_error (error);
  if (node != NULL)
    json_node_unref (node);
  g_free (text);
  return 0;
}
