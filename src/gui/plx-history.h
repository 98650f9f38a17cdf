/* plx-history.h: undo and redo of scenario edits. A state is the scenario's JSON
 * text; a drag of one control makes many changes in a row, which are kept as one
 * step so Ctrl+Z undoes the drag, not its last pixel. Each state may carry a
 * document (the window's file and its saved text): opening a file or New is a step
 * like any edit, and undoing it gives back the scenario and the file it belonged to. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _PlxHistory PlxHistory;
/* Takes a reference to a document; returns it. */
typedef gpointer (*PlxHistoryRef) (gpointer document);

/* Changes of the same control closer together than this are one step. */
#define PLX_HISTORY_MERGE_US (400 * G_TIME_SPAN_MILLISECOND)
/* Steps kept; the oldest go first. */
#define PLX_HISTORY_MAX 200

PlxHistory *plx_history_new (void);
/* With documents: `ref` and `unref` keep a state's document alive (NULL: plain
 * pointers the caller owns). */
PlxHistory *plx_history_new_full (PlxHistoryRef ref,
                                  GDestroyNotify unref);
void        plx_history_free (PlxHistory *history);
/* Forgets everything; `state` is where undo stops. */
void        plx_history_reset (PlxHistory *history,
                               const char *state);
/* A new state that belongs to a new document (opened, or New); never merged into
 * the step before it. The states recorded after it belong to it too. */
gboolean    plx_history_record_document (PlxHistory *history,
                                         const char *state,
                                         gpointer    document);
/* Replaces the text of the state shown, as a rename on saving does: no step. */
void        plx_history_amend (PlxHistory *history,
                               const char *state);
/* The document of the state shown (NULL: none given). */
gpointer    plx_history_get_document (const PlxHistory *history);
/* A new state after an edit of `key` (NULL: not mergeable) at `now_us`. Returns
 * FALSE if it is the state already current. */
gboolean    plx_history_record (PlxHistory *history,
                                const char *state,
                                const char *key,
                                gint64      now_us);
gboolean    plx_history_can_undo (const PlxHistory *history);
gboolean    plx_history_can_redo (const PlxHistory *history);
/* The state to show after undoing (redoing) one step, or NULL. */
const char *plx_history_undo (PlxHistory *history);
const char *plx_history_redo (PlxHistory *history);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PlxHistory, plx_history_free)

G_END_DECLS
