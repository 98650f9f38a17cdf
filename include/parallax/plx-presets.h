/* plx-presets.h: the built-in models, clusters and scenarios, compiled in as GResources. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum
{
  PLX_PRESET_MODEL,
  PLX_PRESET_CLUSTER,
  PLX_PRESET_SCENARIO,
} PlxPresetKind;

/* Sorted names, NULL-terminated. */
char    **plx_presets_list (PlxPresetKind kind);
/* The preset's JSON, or NULL with PLX_ERROR_NOT_FOUND naming the known presets. */
JsonNode *plx_presets_lookup (PlxPresetKind kind,
                              const char   *name,
                              GError      **error);

/* `node` is an object that may name a preset ({"preset": NAME, ...overrides}): the
 * preset's JSON with the other keys merged over it and "name" defaulting to NAME.
 * Without "preset", a copy of `node`. `key` ("model", "cluster") names it in errors.
 * *had_preset tells which. */
JsonNode *plx_presets_expand (PlxPresetKind kind,
                              JsonNode     *node,
                              const char   *source,
                              const char   *key,
                              gboolean     *had_preset,
                              GError      **error);

G_END_DECLS
