/* plx-import-shell.h: the words a launch script passes to its training program, as
 * bash would pass them (parallax-cli import of Megatron-LM's examples/ scripts). */
#pragma once

#include <glib.h>

typedef struct
{
  char  *text;        /* the word after expansion */
  guint  line;        /* where it was written (1-based) */
  char  *unresolved;  /* the expansion with no value in the script ("$1", "${DATA_PATH}"),
                       * left as written in `text`; NULL when every one was resolved */
} PlxShellWord;

void plx_shell_word_free (PlxShellWord *word);

/* Reads `text` as a bash script: comments, "\" line continuations, quotes,
 * NAME=value and NAME=( ... ) assignments (export, declare, local and readonly too),
 * $NAME, ${NAME}, ${NAME:-default}, ${NAME[@]} and $((arithmetic)) expanded from the
 * script's own assignments in order, unquoted expansions split into words; $1, $(...)
 * and names the script does not set stay as written, marked unresolved. Returns the
 * words of the command that runs a Python script (the last such: "torchrun ...
 * pretrain_gpt.py ARGS"), from the script on, with *launcher the words before it
 * (torchrun's own flags); for a file that runs no Python script (a list of
 * arguments), every word of the file and *launcher empty. NULL with an error naming
 * `source` and the line for a quote or an array that never closes. */
GPtrArray *plx_shell_words (const char *text,
                            const char *source,
                            GPtrArray **launcher,
                            GError    **error);
