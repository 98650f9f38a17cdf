/* plx-pipeline-layout.h: Megatron-LM's --pipeline-model-parallel-layout strings
 * ("Et|(tt|)*30L") read into layer counts per model chunk. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The longest layout a string may expand to, in layer characters and separators. */
#define PLX_PIPELINE_LAYOUT_MAX_EXPANDED (1u << 20)

/* Reads `text` (strategy.pipeline_layout of `source`): E the embedding, t a
 * transformer layer, L the LM head and loss, '|' ends a model chunk, (...)*n and x*n
 * repeat, commas are cosmetic (megatron/core/transformer/
 * pipeline_parallel_layer_layout.py, parse_str_to_list). The embedding must open the
 * first chunk and the loss close the last, once each; MTP layers (m) are refused, as
 * Parallax does not model them. Returns the transformer layers of each chunk in
 * model order (chunk k runs on stage k mod pp), or NULL with `error` set. */
guint *plx_pipeline_layout_parse (const char *text,
                                  const char *source,
                                  guint      *n_chunks,
                                  GError    **error);

G_END_DECLS
