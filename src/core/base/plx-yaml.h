/* plx-yaml.h: the part of YAML 1.2 (yaml.org/spec/1.2.2) that training recipes use
 * (NeMo and its launcher's conf/ YAML files), read into JSON: block mappings and block
 * sequences by indentation ("- key: value" items too), plain, single- and
 * double-quoted scalars, one-line flow sequences and mappings ([a, b], {a: 1}), and
 * comments. Plain scalars are typed by YAML 1.2's core schema (null, ~, true, false,
 * integers, floats; "1e-5" is a float, as OmegaConf reads it); everything else stays a
 * string, OmegaConf's ${...} interpolations included. Anchors, aliases, tags, block
 * scalars (| and >), multi-line flow collections and several documents are refused
 * by name rather than misread. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* `text` (NUL-terminated) as JSON: an object, an array, a scalar, or null for a
 * document with no content. NULL with PLX_ERROR_PARSE naming `source`, the line and its
 * text ("r.yaml:7: expected \"key: value\": \"trainer num_nodes 2\"") for anything not
 * in the subset, for indentation that fits no block and for a key given twice. */
JsonNode *plx_yaml_parse (const char *text,
                          const char *source,
                          GError    **error);

G_END_DECLS
