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

G_END_DECLS
