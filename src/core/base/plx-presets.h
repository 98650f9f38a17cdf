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

/* Sorted names, NULL-terminated: the built-in presets and the user's own, saved in
 * plx_presets_user_dir under names no built-in takes. */
char    **plx_presets_list (PlxPresetKind kind);
/* Where the user's presets live: $XDG_DATA_HOME/parallax/{models,clusters,scenarios}. */
char     *plx_presets_user_dir (PlxPresetKind kind);
/* Letters, digits, '.', '_', '-', starting with a letter or digit, at most 64. */
gboolean  plx_presets_name_is_valid (const char *name);
gboolean  plx_presets_is_builtin (PlxPresetKind kind,
                                  const char   *name);
/* Saves `json` (an object) as the user's preset `name`, atomically; refuses invalid
 * names and the names of built-in presets (PLX_ERROR_INVALID_VALUE). */
gboolean  plx_presets_save (PlxPresetKind kind,
                            const char   *name,
                            JsonNode     *json,
                            GError      **error);
/* The preset's JSON, or NULL with PLX_ERROR_NOT_FOUND naming the known presets. */
JsonNode *plx_presets_lookup (PlxPresetKind kind,
                              const char   *name,
                              GError      **error);

/* `node` is an object that may name a preset ({"preset": NAME, ...overrides}): the
 * preset's JSON with the other keys merged over it and "name" defaulting to NAME.
 * Without "preset", a copy of `node`. `key` ("model", "cluster") names it in errors.
 * *had_preset tells which (`had_preset` may be NULL). */
JsonNode *plx_presets_expand (PlxPresetKind kind,
                              JsonNode     *node,
                              const char   *source,
                              const char   *key,
                              gboolean     *had_preset,
                              GError      **error);

G_END_DECLS
