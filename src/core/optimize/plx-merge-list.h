/* plx-merge-list.h: a sweep's merge list (DIR/merges.txt, docs/sweeps.md): one line per
 * scenario, tab-separated: results/NAME, then its parts, parts/NAME. `sweep expand`
 * writes it; `sweep merge` reads it and writes DIR/results/NAME.json and NAME.csv. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  char  *result;  /* "results/NAME" */
  GStrv  parts;   /* "parts/NAME", at least one */
  guint  line;    /* 1-based, for messages */
} PlxMergeEntry;

/* The entries of `text` (`length` bytes, -1: up to the NUL), blank lines skipped; a
 * GPtrArray of PlxMergeEntry that frees them. Every name is its prefix then 1 to 255
 * letters, digits, '.', '_' or '-' (not "." or ".."): a hand-edited list cannot
 * write outside DIR (results/../../x). */
GPtrArray *plx_merge_list_parse (const char *text,
                                 gssize      length,
                                 const char *source,
                                 GError    **error);

G_END_DECLS
