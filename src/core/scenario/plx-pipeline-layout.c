#include <string.h>

#include "parallax/plx-error.h"
#include "scenario/plx-pipeline-layout.h"

#define MAX_DEPTH 16
#define MAX_REPEAT (1u << 20)

typedef struct
{
  const char *text;    /* the whole string, for positions in errors */
  const char *source;
  const char *p;
  GError    **error;
} Reader;

static gboolean
fail (Reader *r, const char *what)
{
  g_autofree char *where = *r->p == '\0' ? g_strdup ("at the end")
                                          : g_strdup_printf ("at character %u", (guint) (r->p - r->text) + 1);

  g_set_error (r->error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
               "%s: strategy.pipeline_layout: \"%.80s\": %s %s (Megatron-LM's layout: E the embedding, t a "
               "transformer layer, L the loss, | between model chunks, (...)*n and x*n to repeat)",
               r->source, r->text, what, where);
  return FALSE;
}

/* "*n" after an item: its repeat count, 1 without. */
static gboolean
read_repeat (Reader *r, guint *n)
{
  guint64 v = 0;

  *n = 1;
  if (*r->p != '*')
    return TRUE;
  r->p++;
  if (!g_ascii_isdigit (*r->p))
    return fail (r, "a count must follow '*'");
  while (g_ascii_isdigit (*r->p))
    {
      v = v * 10 + (guint64) (*r->p - '0');
      if (v > MAX_REPEAT)
        return fail (r, "the repeat count is too large");
      r->p++;
    }
  *n = (guint) v;
  return TRUE;
}

static gboolean
append_times (Reader *r, GString *out, const char *item, gsize len, guint n)
{
  if ((guint64) out->len + (guint64) len * n > PLX_PIPELINE_LAYOUT_MAX_EXPANDED)
    return fail (r, "the layout expands past a million layers");
  for (guint i = 0; i < n; i++)
    g_string_append_len (out, item, (gssize) len);
  return TRUE;
}

/* Expands a sequence up to the end or an unmatched ')' into out. */
static gboolean
expand (Reader *r, GString *out, guint depth)
{
  if (depth > MAX_DEPTH)
    return fail (r, "parentheses nest too deep");
  while (*r->p != '\0' && *r->p != ')')
    {
      char c = *r->p;
      guint n;

      if (c == ',' || c == ' ')
        {
          r->p++;
          continue;
        }
      if (c == '(')
        {
          g_autoptr (GString) group = g_string_new (NULL);
          r->p++;
          if (!expand (r, group, depth + 1))
            return FALSE;
          if (*r->p != ')')
            return fail (r, "'(' is not closed");
          r->p++;
          if (!read_repeat (r, &n) || !append_times (r, out, group->str, group->len, n))
            return FALSE;
          continue;
        }
      if (c == 'm')
        {
          g_set_error (r->error, PLX_ERROR, PLX_ERROR_UNSUPPORTED,
                       "%s: strategy.pipeline_layout: \"%.80s\": multi-token prediction layers (m) are not modelled",
                       r->source, r->text);
          return FALSE;
        }
      if (c != 'E' && c != 't' && c != 'L' && c != '|')
        return fail (r, "not a layer (E, t, L) or '|'");
      r->p++;
      if (!read_repeat (r, &n) || !append_times (r, out, &c, 1, n))
        return FALSE;
    }
  return TRUE;
}

guint *
plx_pipeline_layout_parse (const char *text,
                           const char *source,
                           guint      *n_chunks,
                           GError    **error)
{
  Reader r = { text, source, text, error };
  g_autoptr (GString) flat = g_string_new (NULL);
  g_autoptr (GArray) counts = g_array_new (FALSE, TRUE, sizeof (guint));
  guint layers = 0, embeddings = 0, losses = 0;

  if (!expand (&r, flat, 0))
    return NULL;
  if (*r.p == ')')
    {
      fail (&r, "')' closes nothing");
      return NULL;
    }
  for (gsize i = 0; i <= flat->len; i++)
    {
      char c = flat->str[i];

      if (c == '|' || c == '\0')
        {
          g_array_append_val (counts, layers);
          layers = 0;
          continue;
        }
      layers += c == 't';
      embeddings += c == 'E';
      losses += c == 'L';
    }
  /* Megatron-LM's validate_layer_layout: the embedding first, the loss last, once each. */
  if (embeddings != 1 || losses != 1 || flat->str[0] != 'E' || flat->str[flat->len - 1] != 'L')
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                   "%s: strategy.pipeline_layout: \"%.80s\": the embedding (E) must come first and the loss (L) last, "
                   "once each", source, text);
      return NULL;
    }
  *n_chunks = counts->len;
  return g_memdup2 (counts->data, sizeof (guint) * counts->len);
}
