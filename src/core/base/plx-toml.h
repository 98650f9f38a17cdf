/* plx-toml.h: the part of TOML 1.0 (toml.io/en/v1.0.0) that training configurations
 * use (torchtitan's train_configs/ TOML files), read into JSON: tables ([a], [a.b]) and
 * arrays of tables ([[a]]) as objects and arrays of objects, dotted keys, basic and
 * literal strings, integers, floats, booleans, arrays (over several lines, trailing
 * comma allowed) and one-line inline tables. Multi-line strings and dates are refused
 * by name rather than misread. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* `text` (NUL-terminated) as a JSON object. NULL with PLX_ERROR_PARSE naming `source`,
 * the line and its text ("f.toml:3: expected \"=\" after the key: \"seq_len 8192\"")
 * for anything not in the subset, and for a key given twice. */
JsonNode *plx_toml_parse (const char *text,
                          const char *source,
                          GError    **error);

G_END_DECLS
