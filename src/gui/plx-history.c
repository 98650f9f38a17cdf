#include "plx-history.h"

struct _PlxHistory
{
  GPtrArray *states;    /* char *, oldest first */
  GPtrArray *documents; /* the document of each state, beside it */
  PlxHistoryRef ref;
  guint      current;   /* index of the state shown */
  char      *last_key;  /* the control of the last recorded edit */
  gint64     last_us;
};

PlxHistory *
plx_history_new_full (PlxHistoryRef ref,
                      GDestroyNotify unref)
{
  PlxHistory *h = g_new0 (PlxHistory, 1);

  h->states = g_ptr_array_new_with_free_func (g_free);
  h->documents = g_ptr_array_new_with_free_func (unref);
  h->ref = ref;
  return h;
}

PlxHistory *
plx_history_new (void)
{
  return plx_history_new_full (NULL, NULL);
}

void
plx_history_free (PlxHistory *h)
{
  if (h == NULL)
    return;
  g_ptr_array_unref (h->states);
  g_ptr_array_unref (h->documents);
  g_free (h->last_key);
  g_free (h);
}

static gpointer
ref_document (PlxHistory *h, gpointer document)
{
  return document != NULL && h->ref != NULL ? h->ref (document) : document;
}

void
plx_history_amend (PlxHistory *h,
                   const char *state)
{
  if (h->states->len == 0)
    return;
  g_free (h->states->pdata[h->current]);
  h->states->pdata[h->current] = g_strdup (state);
}

gpointer
plx_history_get_document (const PlxHistory *h)
{
  return h->documents->len > h->current ? g_ptr_array_index (h->documents, h->current) : NULL;
}

/* Drops the states after the current one (what could have been redone), appends
 * `state` of `document` (taken) and makes it current. */
static void
push (PlxHistory *h, const char *state, gpointer document)
{
  g_ptr_array_set_size (h->states, h->current + 1);
  g_ptr_array_set_size (h->documents, h->current + 1);
  g_ptr_array_add (h->states, g_strdup (state));
  g_ptr_array_add (h->documents, document);
  if (h->states->len > PLX_HISTORY_MAX)
    {
      g_ptr_array_remove_index (h->states, 0);
      g_ptr_array_remove_index (h->documents, 0);
    }
  h->current = h->states->len - 1;
}

void
plx_history_reset (PlxHistory *h,
                   const char *state)
{
  gpointer document = ref_document (h, plx_history_get_document (h));

  g_ptr_array_set_size (h->states, 0);
  g_ptr_array_set_size (h->documents, 0);
  g_ptr_array_add (h->states, g_strdup (state));
  g_ptr_array_add (h->documents, document);
  h->current = 0;
  g_clear_pointer (&h->last_key, g_free);
}

gboolean
plx_history_record_document (PlxHistory *h,
                             const char *state,
                             gpointer    document)
{
  if (h->states->len == 0)
    {
      g_ptr_array_add (h->states, g_strdup (state));
      g_ptr_array_add (h->documents, ref_document (h, document));
      h->current = 0;
      return TRUE;
    }
  /* The same text in another document is still a step: undo gives the file back. */
  if (g_strcmp0 (g_ptr_array_index (h->states, h->current), state) == 0 &&
      plx_history_get_document (h) == document)
    return FALSE;
  g_clear_pointer (&h->last_key, g_free);
  push (h, state, ref_document (h, document));
  return TRUE;
}

gboolean
plx_history_record (PlxHistory *h,
                    const char *state,
                    const char *key,
                    gint64      now_us)
{
  gboolean merge;

  if (h->states->len == 0)
    return plx_history_record_document (h, state, NULL);
  if (g_strcmp0 (g_ptr_array_index (h->states, h->current), state) == 0)
    return FALSE;
  /* Merge only into a step that is the newest and not the base: undo always gets
   * back to where the drag started. */
  merge = key != NULL && g_strcmp0 (key, h->last_key) == 0 && now_us - h->last_us < PLX_HISTORY_MERGE_US &&
          h->current > 0 && h->current == h->states->len - 1;
  h->last_us = now_us;
  g_free (h->last_key);
  h->last_key = g_strdup (key);
  if (merge)
    {
      g_free (h->states->pdata[h->current]);
      h->states->pdata[h->current] = g_strdup (state);
      return TRUE;
    }
  /* A new edit after undo drops the steps that could have been redone; the edit
   * belongs to the document it was made in. */
  push (h, state, ref_document (h, plx_history_get_document (h)));
  return TRUE;
}

gboolean
plx_history_can_undo (const PlxHistory *h)
{
  return h->current > 0;
}

gboolean
plx_history_can_redo (const PlxHistory *h)
{
  return h->current + 1 < h->states->len;
}

const char *
plx_history_undo (PlxHistory *h)
{
  if (!plx_history_can_undo (h))
    return NULL;
  g_clear_pointer (&h->last_key, g_free);
  return g_ptr_array_index (h->states, --h->current);
}

const char *
plx_history_redo (PlxHistory *h)
{
  if (!plx_history_can_redo (h))
    return NULL;
  g_clear_pointer (&h->last_key, g_free);
  return g_ptr_array_index (h->states, ++h->current);
}
