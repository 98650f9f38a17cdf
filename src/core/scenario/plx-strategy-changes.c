/* Changing a scenario's strategy the way every front end does: parallax-cli's flags
 * (plx-cli-overrides.c) and the library's set_strategy_* (src/gi) share these rules,
 * so the same change gives the same scenario and the same numbers everywhere. */
#include "base/plx-json.h"
#include "parallax/plx-strategy.h"

void
plx_strategy_json_apply_changes (JsonObject *strategy,
                                 JsonObject *changes,
                                 gboolean    gpus_changed)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;
  gboolean resize = gpus_changed;

  json_object_iter_init (&iter, changes);
  while (json_object_iter_next (&iter, &key, &value))
    {
      json_object_set_member (strategy, key, plx_json_deep_copy (value));
      if (g_str_equal (key, "tp") || g_str_equal (key, "pp") || g_str_equal (key, "cp"))
        resize = TRUE;
    }
  /* New model-parallel degrees or a new GPU count derive dp again unless dp is among
   * the changes: the old dp belonged to the old degrees and cluster. */
  if (resize && !json_object_has_member (changes, "dp"))
    json_object_remove_member (strategy, "dp");
  /* A layout and layer counts say the same thing: the one given now replaces the other. */
  if (json_object_has_member (changes, "layers_per_stage") || json_object_has_member (changes, "first_stage_layers") ||
      json_object_has_member (changes, "last_stage_layers"))
    json_object_remove_member (strategy, "pipeline_layout");
  if (json_object_has_member (changes, "pipeline_layout"))
    {
      json_object_remove_member (strategy, "layers_per_stage");
      json_object_remove_member (strategy, "first_stage_layers");
      json_object_remove_member (strategy, "last_stage_layers");
      if (!json_object_has_member (changes, "virtual_stages"))
        json_object_remove_member (strategy, "virtual_stages");
    }
  /* Per-stage layer counts were one per stage (or chunk) of the old pipeline: other
   * stages get the balanced split unless counts are given anew. */
  if ((json_object_has_member (changes, "pp") || json_object_has_member (changes, "virtual_stages")) &&
      !json_object_has_member (changes, "layers_per_stage") && !json_object_has_member (changes, "pipeline_layout"))
    {
      if (json_object_has_member (strategy, "layers_per_stage") &&
          JSON_NODE_HOLDS_ARRAY (json_object_get_member (strategy, "layers_per_stage")))
        json_object_remove_member (strategy, "layers_per_stage");
      json_object_remove_member (strategy, "pipeline_layout");
      if (!json_object_has_member (changes, "first_stage_layers"))
        json_object_remove_member (strategy, "first_stage_layers");
      if (!json_object_has_member (changes, "last_stage_layers"))
        json_object_remove_member (strategy, "last_stage_layers");
    }
}
