/* fuzz-common.h: what every libFuzzer harness shares. A harness gets arbitrary bytes;
 * whatever they are, the loader must answer with a value or a PLX_ERROR - never a
 * crash, a hang, a leak, undefined behaviour or a GError from another domain. */
#pragma once

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "parallax/parallax.h"
#include "base/plx-json.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* A refusal must come as a PLX_ERROR with a message; anything else is a finding. */
static inline void
fuzz_check_error (GError *error)
{
  if (error == NULL)
    return;
  if (error->domain != PLX_ERROR || error->message == NULL || error->message[0] == '\0')
    abort ();
  g_error_free (error);
}

/* The bytes as a JSON document, or NULL (with the parse error checked). */
static inline JsonNode *
fuzz_parse (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  JsonNode *node;

  if (size > 1 << 20)
    return NULL;
  node = plx_json_parse_data ((const char *) data, (gssize) size, "fuzz", &error);
  fuzz_check_error (error);
  return node;
}

/* The bytes in a file, for loaders that read paths; NULL when it cannot be written. */
static inline char *
fuzz_write_temp (const uint8_t *data, size_t size)
{
  char *path = g_build_filename (g_get_tmp_dir (), "plx-fuzz-XXXXXX.json", NULL);
  int fd = g_mkstemp (path);

  if (fd < 0 || write (fd, data, size) != (ssize_t) size)
    {
      if (fd >= 0)
        close (fd);
      g_free (path);
      return NULL;
    }
  close (fd);
  return path;
}
