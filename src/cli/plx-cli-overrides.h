/* plx-cli-overrides.h: command-line strategy/model/cluster overrides applied to a
 * scenario's JSON before it is parsed, so they pass the same validation. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _PlxCliOverrides PlxCliOverrides;

PlxCliOverrides *plx_cli_overrides_new (void);
/* After plx_cli_overrides_apply: with another --model or --cluster, the scenario's
 * strategy is adapted to them as the window does on a preset change (every value
 * still valid kept, each invalid one moved to its nearest valid value), then the
 * strategy flags given are put back on top. In place; nothing if the model or the
 * cluster does not load (the scenario's own error will say why). */
void             plx_cli_overrides_adapt (PlxCliOverrides *o,
                                          JsonNode        *applied,
                                          const char      *dir,
                                          const char      *source);
void             plx_cli_overrides_free (PlxCliOverrides *o);
/* TRUE when --model was given and no cluster, node count, GPU cap or strategy flag:
 * the model alone is the question. */
gboolean         plx_cli_overrides_model_only (const PlxCliOverrides *o);

/* Returns a new scenario node with the overrides applied, or NULL if a file named
 * by an override (--cluster FILE) cannot be read. A scenario that is not an object
 * is returned unchanged, for the scenario loader to report. */
JsonNode *plx_cli_overrides_apply (PlxCliOverrides *o,
                                   JsonNode        *scenario,
                                   GError         **error);
/* The override flags as GOptionEntry callbacks (their checks and messages are
 * plx_cli_overrides_parse's), owned by `o`, which they set: their user data. */
const GOptionEntry *plx_cli_overrides_option_entries (PlxCliOverrides *o);
/* The entries of the flags named ("--cluster", "--nodes", NULL-terminated) only, with
 * the same checks and help: for a command that takes some of simulate's overrides. */
/* What --model named (a preset or a path), or NULL. */
const char         *plx_cli_overrides_get_model (PlxCliOverrides *o);
/* Whether --cluster or --nodes was given. */
gboolean            plx_cli_overrides_sets_cluster (PlxCliOverrides *o);
const GOptionEntry *plx_cli_overrides_some_entries (PlxCliOverrides   *o,
                                                    const char *const *flags);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxCliOverrides, plx_cli_overrides_free)

G_END_DECLS
