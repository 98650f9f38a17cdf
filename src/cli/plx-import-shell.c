/* plx-import-shell.c: enough of bash to read a launch script's arguments (bash(1),
 * "QUOTING", "Arrays", "EXPANSION": parameter expansion, arithmetic expansion, word
 * splitting). The script is read once, top to bottom, as bash runs it: a variable
 * has the value its latest assignment gave it. Nothing is run: command substitution
 * and the script's positional parameters stay unresolved. */
#include <string.h>

#include "parallax/plx-error.h"
#include "plx-import-shell.h"

typedef struct
{
  const char *p;
  guint       line;
  const char *source;
  GHashTable *vars;     /* name -> GPtrArray of PlxShellWord (a scalar: one element) */
  GError    **error;
} Shell;

/* A word being built: the fields it has split into so far and the one open. */
typedef struct
{
  GPtrArray *fields;      /* PlxShellWord */
  GString   *cur;
  gboolean   cur_exists;  /* "" makes a word though it is empty */
  char      *cur_unresolved;
  guint      line;
} Builder;

void
plx_shell_word_free (PlxShellWord *word)
{
  if (word == NULL)
    return;
  g_free (word->text);
  g_free (word->unresolved);
  g_free (word);
}

static void
builder_finish_field (Builder *b)
{
  PlxShellWord *w;

  if (!b->cur_exists)
    return;
  w = g_new0 (PlxShellWord, 1);
  w->text = g_strdup (b->cur->str);
  w->line = b->line;
  w->unresolved = g_steal_pointer (&b->cur_unresolved);
  g_ptr_array_add (b->fields, w);
  g_string_truncate (b->cur, 0);
  b->cur_exists = FALSE;
}

/* An expansion's text: appended as is when quoted, split at blanks when not
 * (bash(1), "Word Splitting", with the default IFS). */
static void
builder_add (Builder *b, const char *value, gboolean split)
{
  for (const char *c = value; *c != '\0'; c++)
    {
      if (split && (*c == ' ' || *c == '\t' || *c == '\n'))
        builder_finish_field (b);
      else
        {
          g_string_append_c (b->cur, *c);
          b->cur_exists = TRUE;
        }
    }
}

static void builder_add_unresolved (Builder *b, const char *as_written);

/* A variable's value: its text, or when it was itself unresolved, the expansion as
 * written here (--save $CHECKPOINT_PATH, with CHECKPOINT_PATH=$1), or for an array's
 * element (as_written NULL) as the array wrote it. */
static void
builder_add_value (Builder *b, const PlxShellWord *value, const char *as_written, gboolean split)
{
  if (value->unresolved != NULL)
    builder_add_unresolved (b, as_written != NULL ? as_written : value->text);
  else
    builder_add (b, value->text, split);
}

static void
builder_add_unresolved (Builder *b, const char *as_written)
{
  g_string_append (b->cur, as_written);
  b->cur_exists = TRUE;
  if (b->cur_unresolved == NULL)
    b->cur_unresolved = g_strdup (as_written);
}

static gboolean G_GNUC_PRINTF (2, 3)
fail (Shell *s, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *what = NULL;

  va_start (ap, fmt);
  what = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (s->error, PLX_ERROR, PLX_ERROR_PARSE, "%s:%u: %s", s->source, s->line, what);
  return FALSE;
}

/* From `p` at an opening character, the position after its balanced closing one
 * (line breaks counted); NULL when it never closes. */
static const char *
balanced (Shell *s, const char *p, char open, char close)
{
  int depth = 0;

  for (; *p != '\0'; p++)
    {
      if (*p == '\n')
        s->line++;
      if (*p == open)
        depth++;
      else if (*p == close && --depth == 0)
        return p + 1;
    }
  return NULL;
}

static GPtrArray *
lookup (Shell *s, const char *name)
{
  return g_hash_table_lookup (s->vars, name);
}

/* Integer arithmetic as $((...)) has it: + - * / %, unary minus, parentheses,
 * numbers and the script's variables. */
typedef struct
{
  const char *p;
  Shell      *s;
  gboolean    ok;
} Arith;

static gint64 arith_sum (Arith *a);

static void
arith_blank (Arith *a)
{
  while (*a->p == ' ' || *a->p == '\t')
    a->p++;
}

static gint64
arith_atom (Arith *a)
{
  arith_blank (a);
  if (*a->p == '(')
    {
      gint64 v;
      a->p++;
      v = arith_sum (a);
      arith_blank (a);
      if (*a->p != ')')
        a->ok = FALSE;
      else
        a->p++;
      return v;
    }
  if (*a->p == '-')
    {
      a->p++;
      return -arith_atom (a);
    }
  if (*a->p == '$')
    a->p++;
  if (*a->p == '{')
    a->p++;
  if (g_ascii_isdigit (*a->p))
    {
      char *end = NULL;
      gint64 v = g_ascii_strtoll (a->p, &end, 10);
      a->p = end;
      return v;
    }
  if (g_ascii_isalpha (*a->p) || *a->p == '_')
    {
      const char *start = a->p;
      g_autofree char *name = NULL;
      GPtrArray *value;
      char *end = NULL;
      gint64 v;
      while (g_ascii_isalnum (*a->p) || *a->p == '_')
        a->p++;
      name = g_strndup (start, a->p - start);
      if (*a->p == '}')
        a->p++;
      value = lookup (a->s, name);
      if (value == NULL || value->len == 0 || ((PlxShellWord *) g_ptr_array_index (value, 0))->unresolved != NULL)
        {
          a->ok = FALSE;
          return 0;
        }
      {
        const char *text = ((PlxShellWord *) g_ptr_array_index (value, 0))->text;
        v = g_ascii_strtoll (text, &end, 10);
        if (end == text || *end != '\0')
          a->ok = FALSE;
      }
      return v;
    }
  a->ok = FALSE;
  return 0;
}

static gint64
arith_product (Arith *a)
{
  gint64 v = arith_atom (a);

  for (;;)
    {
      char op;
      gint64 r;
      arith_blank (a);
      op = *a->p;
      if (op != '*' && op != '/' && op != '%')
        return v;
      a->p++;
      r = arith_atom (a);
      if (op == '*')
        v *= r;
      else if (r == 0)
        a->ok = FALSE;
      else
        v = op == '/' ? v / r : v % r;
    }
}

static gint64
arith_sum (Arith *a)
{
  gint64 v = arith_product (a);

  for (;;)
    {
      char op;
      arith_blank (a);
      op = *a->p;
      if (op != '+' && op != '-')
        return v;
      a->p++;
      v = op == '+' ? v + arith_product (a) : v - arith_product (a);
    }
}

/* A "$..." at s->p: its value added to `b`, or the text as written, unresolved. */
static gboolean
expand (Shell *s, Builder *b, gboolean split)
{
  const char *start = s->p;
  const char *q = s->p + 1;

  if (q[0] == '(' && q[1] == '(')
    {
      const char *end = balanced (s, q, '(', ')');
      g_autofree char *as_written = NULL, *expr = NULL;
      Arith a = { NULL, s, TRUE };
      gint64 v;
      if (end == NULL)
        return fail (s, "$(( that never closes");
      as_written = g_strndup (start, end - start);
      expr = g_strndup (q + 2, end - q - 4);
      a.p = expr;
      v = arith_sum (&a);
      arith_blank (&a);
      s->p = end;
      if (!a.ok || *a.p != '\0')
        builder_add_unresolved (b, as_written);
      else
        {
          g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, v);
          builder_add (b, text, FALSE);
        }
      return TRUE;
    }
  if (q[0] == '(')
    {
      const char *end = balanced (s, q, '(', ')');
      g_autofree char *as_written = NULL;
      if (end == NULL)
        return fail (s, "$( that never closes");
      as_written = g_strndup (start, end - start);
      builder_add_unresolved (b, as_written);
      s->p = end;
      return TRUE;
    }
  if (q[0] == '{')
    {
      const char *end = balanced (s, q, '{', '}');
      g_autofree char *as_written = NULL, *inner = NULL;
      GPtrArray *value;
      char *bracket, *dash;
      if (end == NULL)
        return fail (s, "${ that never closes");
      as_written = g_strndup (start, end - start);
      inner = g_strndup (q + 1, end - q - 2);
      s->p = end;
      bracket = strchr (inner, '[');
      if (bracket != NULL && (g_str_equal (bracket, "[@]") || g_str_equal (bracket, "[*]")))
        {
          *bracket = '\0';
          value = lookup (s, inner);
          if (value == NULL)
            {
              builder_add_unresolved (b, as_written);
              return TRUE;
            }
          /* Each element its own word ("${A[@]}"), split further when unquoted; a word
           * is where the array wrote it. */
          for (guint i = 0; i < value->len; i++)
            {
              const PlxShellWord *e = g_ptr_array_index (value, i);
              if (i > 0)
                builder_finish_field (b);
              if (!b->cur_exists)
                b->line = e->line;
              builder_add_value (b, e, NULL, split);
            }
          return TRUE;
        }
      dash = strstr (inner, ":-");
      if (dash != NULL)
        *dash = '\0';
      if (!g_regex_match_simple ("^[A-Za-z_][A-Za-z0-9_]*$", inner, 0, 0))
        {
          builder_add_unresolved (b, as_written);
          return TRUE;
        }
      value = lookup (s, inner);
      if (value != NULL && value->len > 0 &&
          (dash == NULL || ((PlxShellWord *) g_ptr_array_index (value, 0))->text[0] != '\0'))
        builder_add_value (b, g_ptr_array_index (value, 0), as_written, split);
      else if (dash != NULL)
        builder_add (b, dash + 2, split);
      else
        builder_add_unresolved (b, as_written);
      return TRUE;
    }
  if (g_ascii_isalpha (q[0]) || q[0] == '_')
    {
      g_autofree char *name = NULL, *as_written = NULL;
      GPtrArray *value;
      while (g_ascii_isalnum (*q) || *q == '_')
        q++;
      name = g_strndup (s->p + 1, q - s->p - 1);
      as_written = g_strconcat ("$", name, NULL);
      s->p = q;
      value = lookup (s, name);
      if (value != NULL && value->len > 0)
        builder_add_value (b, g_ptr_array_index (value, 0), as_written, split);
      else
        builder_add_unresolved (b, as_written);
      return TRUE;
    }
  if (g_ascii_isdigit (q[0]) || (q[0] != '\0' && strchr ("@*#?$!-", q[0]) != NULL))
    {
      /* The script's arguments and the shell's specials: known only when it runs. */
      g_autofree char *as_written = g_strndup (s->p, 2);
      builder_add_unresolved (b, as_written);
      s->p += 2;
      return TRUE;
    }
  builder_add (b, "$", FALSE);
  s->p++;
  return TRUE;
}

static gboolean
ends_word (char c)
{
  return c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '&' || c == '|' ||
         c == '(' || c == ')' || c == '<' || c == '>';
}

/* One word from s->p into `b` (split: unquoted expansions split into words). */
static gboolean
lex_word (Shell *s, Builder *b, gboolean split)
{
  b->line = s->line;
  while (!ends_word (*s->p))
    {
      char c = *s->p;
      if (c == '\\')
        {
          if (s->p[1] == '\n')
            {
              s->line++;
              s->p += 2;
              continue;
            }
          if (s->p[1] != '\0')
            {
              g_string_append_c (b->cur, s->p[1]);
              b->cur_exists = TRUE;
              s->p += 2;
              continue;
            }
          s->p++;
          continue;
        }
      if (c == '\'')
        {
          const char *close = strchr (s->p + 1, '\'');
          if (close == NULL)
            return fail (s, "a quote (') that never closes");
          for (const char *k = s->p + 1; k < close; k++)
            if (*k == '\n')
              s->line++;
          g_string_append_len (b->cur, s->p + 1, close - s->p - 1);
          b->cur_exists = TRUE;
          s->p = close + 1;
          continue;
        }
      if (c == '"')
        {
          guint opened = s->line;
          b->cur_exists = TRUE;
          for (s->p++; *s->p != '"'; )
            {
              if (*s->p == '\0')
                {
                  s->line = opened;
                  return fail (s, "a quote (\") that never closes");
                }
              if (*s->p == '\\' && s->p[1] != '\0' && strchr ("$`\"\\\n", s->p[1]) != NULL)
                {
                  if (s->p[1] == '\n')
                    s->line++;
                  else
                    g_string_append_c (b->cur, s->p[1]);
                  s->p += 2;
                  continue;
                }
              if (*s->p == '$')
                {
                  if (!expand (s, b, FALSE))
                    return FALSE;
                  continue;
                }
              if (*s->p == '\n')
                s->line++;
              g_string_append_c (b->cur, *s->p);
              s->p++;
            }
          s->p++;
          continue;
        }
      if (c == '$')
        {
          if (!expand (s, b, split))
            return FALSE;
          continue;
        }
      g_string_append_c (b->cur, c);
      b->cur_exists = TRUE;
      s->p++;
    }
  builder_finish_field (b);
  return TRUE;
}

static void
skip_blanks (Shell *s)
{
  for (;;)
    {
      if (*s->p == ' ' || *s->p == '\t' || *s->p == '\r')
        s->p++;
      else if (*s->p == '\\' && s->p[1] == '\n')
        {
          s->p += 2;
          s->line++;
        }
      else
        return;
    }
}

static void
builder_init (Builder *b)
{
  b->fields = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_shell_word_free);
  b->cur = g_string_new (NULL);
  b->cur_exists = FALSE;
  b->cur_unresolved = NULL;
}

static void
builder_clear (Builder *b)
{
  g_clear_pointer (&b->fields, g_ptr_array_unref);
  if (b->cur != NULL)
    g_string_free (b->cur, TRUE);
  b->cur = NULL;
  g_clear_pointer (&b->cur_unresolved, g_free);
}

/* NAME=( words ... ): the elements, over several lines, comments allowed. */
static gboolean
lex_array (Shell *s, const char *name)
{
  Builder b;
  guint opened = s->line;

  builder_init (&b);
  s->p++;
  for (;;)
    {
      skip_blanks (s);
      if (*s->p == '\n')
        {
          s->line++;
          s->p++;
          continue;
        }
      if (*s->p == '#')
        {
          s->p += strcspn (s->p, "\n");
          continue;
        }
      if (*s->p == ')')
        {
          s->p++;
          break;
        }
      if (*s->p == '\0' || ends_word (*s->p))
        {
          builder_clear (&b);
          s->line = opened;
          return fail (s, "the array %s=( never closes", name);
        }
      if (!lex_word (s, &b, TRUE))
        {
          builder_clear (&b);
          return FALSE;
        }
    }
  g_hash_table_replace (s->vars, g_strdup (name), g_steal_pointer (&b.fields));
  builder_clear (&b);
  return TRUE;
}

/* The name of an assignment "NAME=..." at s->p (s->p moved after "="), or NULL. */
static char *
assignment_name (Shell *s)
{
  const char *q = s->p;
  char *name;

  if (!g_ascii_isalpha (*q) && *q != '_')
    return NULL;
  while (g_ascii_isalnum (*q) || *q == '_')
    q++;
  if (*q == '+' && q[1] == '=')
    return NULL;
  if (*q != '=')
    return NULL;
  name = g_strndup (s->p, q - s->p);
  s->p = q + 1;
  return name;
}

/* One command's words into `b`, its assignments made; FALSE on an error. *more is
 * FALSE at the end of the text. */
static gboolean
lex_command (Shell *s, Builder *b, gboolean *more)
{
  gboolean prefix = TRUE;   /* still in the assignments before the command name */

  for (;;)
    {
      g_autofree char *name = NULL;

      skip_blanks (s);
      switch (*s->p)
        {
        case '\0':
          *more = FALSE;
          return TRUE;
        case '\n':
          s->line++;
          s->p++;
          return TRUE;
        case ';':
        case '&':
        case '|':
        case '(':
        case ')':
          /* Lists, pipelines, subshells: each side a command of its own. */
          s->p++;
          return TRUE;
        case '#':
          s->p += strcspn (s->p, "\n");
          continue;
        default:
          break;
        }
      if (prefix && (name = assignment_name (s)) != NULL)
        {
          Builder v;
          GPtrArray *value;
          if (*s->p == '(')
            {
              if (!lex_array (s, name))
                return FALSE;
              continue;
            }
          /* An assignment's value is not split into words. */
          builder_init (&v);
          if (!lex_word (s, &v, FALSE))
            {
              builder_clear (&v);
              return FALSE;
            }
          if (v.fields->len == 0)
            {
              /* NAME= : the empty string. */
              PlxShellWord *empty = g_new0 (PlxShellWord, 1);
              empty->text = g_strdup ("");
              empty->line = s->line;
              g_ptr_array_add (v.fields, empty);
            }
          value = g_steal_pointer (&v.fields);
          g_hash_table_replace (s->vars, g_steal_pointer (&name), value);
          builder_clear (&v);
          continue;
        }
      {
        guint before = b->fields->len;
        if (!lex_word (s, b, TRUE))
          return FALSE;
        if (prefix && b->fields->len == before + 1)
          {
            const char *w = ((PlxShellWord *) b->fields->pdata[before])->text;
            /* Builtins that assign: their NAME=value words are assignments too. */
            if (g_str_equal (w, "export") || g_str_equal (w, "declare") || g_str_equal (w, "local") ||
                g_str_equal (w, "readonly") || g_str_equal (w, "typeset"))
              {
                g_ptr_array_remove_index (b->fields, before);
                skip_blanks (s);
                while (*s->p == '-')
                  {
                    while (!ends_word (*s->p))
                      s->p++;
                    skip_blanks (s);
                  }
                continue;
              }
          }
        prefix = FALSE;
      }
    }
}

GPtrArray *
plx_shell_words (const char *text,
                 const char *source,
                 GPtrArray **launcher,
                 GError    **error)
{
  g_autoptr (GHashTable) vars = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                       (GDestroyNotify) g_ptr_array_unref);
  g_autoptr (GPtrArray) commands = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  Shell s = { text, 1, source, vars, error };
  gboolean more = TRUE;
  GPtrArray *words = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_shell_word_free);

  *launcher = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_shell_word_free);
  while (more)
    {
      Builder b;
      builder_init (&b);
      if (!lex_command (&s, &b, &more))
        {
          builder_clear (&b);
          g_clear_pointer (launcher, g_ptr_array_unref);
          g_ptr_array_unref (words);
          return NULL;
        }
      if (b.fields->len > 0)
        g_ptr_array_add (commands, g_steal_pointer (&b.fields));
      builder_clear (&b);
    }
  /* The last command that runs a Python script: its arguments after the script. */
  for (guint c = commands->len; c-- > 0;)
    {
      GPtrArray *cmd = g_ptr_array_index (commands, c);
      for (guint i = 0; i < cmd->len; i++)
        {
          PlxShellWord *w = g_ptr_array_index (cmd, i);
          if (w->unresolved == NULL && g_str_has_suffix (w->text, ".py"))
            {
              for (guint k = 0; k < cmd->len; k++)
                if (k != i)
                  g_ptr_array_add (k < i ? *launcher : words, g_ptr_array_index (cmd, k));
              g_ptr_array_set_free_func (cmd, NULL);
              plx_shell_word_free (w);
              return words;
            }
        }
    }
  /* A list of arguments: every word of the file. */
  for (guint c = 0; c < commands->len; c++)
    {
      GPtrArray *cmd = g_ptr_array_index (commands, c);
      for (guint i = 0; i < cmd->len; i++)
        g_ptr_array_add (words, g_ptr_array_index (cmd, i));
      g_ptr_array_set_free_func (cmd, NULL);
    }
  return words;
}
