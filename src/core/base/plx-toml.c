/* plx-toml.c: a TOML 1.0 subset reader (plx-toml.h). Rules from the specification
 * (toml.io/en/v1.0.0): keys are bare (A-Za-z0-9_-) or quoted and may be dotted; a
 * table header opens the table every later key goes to until the next header; no key
 * and no table may be defined twice; integers are 64-bit with "_" between digits and
 * no leading zeros; a float has a fraction or an exponent. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "parallax/plx-error.h"
#include "plx-json.h"
#include "plx-toml.h"

typedef struct
{
  const char *p;           /* the next character */
  const char *line_start;  /* of the line being read, for messages */
  guint       line;        /* 1-based */
  const char *source;
  GError    **error;
  GHashTable *headers;     /* the dotted names of the tables opened by a header */
} Toml;

/* The error for the current line: "SOURCE:LINE: WHAT: "LINE TEXT"". */
static gboolean G_GNUC_PRINTF (2, 3)
fail (Toml *t, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  plx_json_set_line_error (t->error, t->source, t->line, t->line_start, fmt, ap);
  va_end (ap);
  return FALSE;
}

static void
skip_blanks (Toml *t)
{
  while (*t->p == ' ' || *t->p == '\t')
    t->p++;
}

static void
new_line (Toml *t)
{
  t->line++;
  t->line_start = t->p;
}

/* Blanks, a comment, then the end of the line (consumed) or of the text. */
static gboolean
end_of_line (Toml *t, const char *after)
{
  skip_blanks (t);
  if (*t->p == '#')
    t->p += strcspn (t->p, "\n");
  if (*t->p == '\r' && t->p[1] == '\n')
    t->p++;
  if (*t->p == '\n')
    {
      t->p++;
      new_line (t);
      return TRUE;
    }
  if (*t->p == '\0')
    return TRUE;
  return fail (t, "text after %s", after);
}

/* Blanks, comments and line breaks: between the elements of an array. */
static void
skip_space_and_lines (Toml *t)
{
  for (;;)
    {
      skip_blanks (t);
      if (*t->p == '#')
        t->p += strcspn (t->p, "\n");
      if (*t->p == '\r' && t->p[1] == '\n')
        t->p++;
      if (*t->p != '\n')
        return;
      t->p++;
      new_line (t);
    }
}

static gboolean
is_bare (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '-';
}

static char *parse_string (Toml *t);

/* A dotted key: its parts, each bare or quoted ("a.\"b.c\".d"). */
static GPtrArray *
parse_key (Toml *t)
{
  g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);

  for (;;)
    {
      skip_blanks (t);
      if (*t->p == '"' || *t->p == '\'')
        {
          char *s = parse_string (t);
          if (s == NULL)
            return NULL;
          g_ptr_array_add (parts, s);
        }
      else if (is_bare (*t->p))
        {
          const char *start = t->p;
          while (is_bare (*t->p))
            t->p++;
          g_ptr_array_add (parts, g_strndup (start, t->p - start));
        }
      else
        {
          fail (t, "expected a key");
          return NULL;
        }
      skip_blanks (t);
      if (*t->p != '.')
        return g_steal_pointer (&parts);
      t->p++;
    }
}

static gboolean
append_utf8 (Toml *t, GString *out, int digits)
{
  gunichar c = 0;

  for (int i = 0; i < digits; i++, t->p++)
    {
      if (!g_ascii_isxdigit (*t->p))
        return fail (t, "\\u needs %d hexadecimal digits", digits);
      c = c * 16 + (gunichar) g_ascii_xdigit_value (*t->p);
    }
  if (!g_unichar_validate (c) || c == 0)
    return fail (t, "\\u%0*X is not a character a string may hold", digits, c);
  g_string_append_unichar (out, c);
  return TRUE;
}

/* A basic ("...", with escapes) or literal ('...') string on one line. */
static char *
parse_string (Toml *t)
{
  char quote = *t->p;
  g_autoptr (GString) out = g_string_new (NULL);

  if (t->p[1] == quote && t->p[2] == quote)
    {
      fail (t, "multi-line strings (%c%c%c) are not read", quote, quote, quote);
      return NULL;
    }
  for (t->p++; *t->p != quote; t->p++)
    {
      if (*t->p == '\0' || *t->p == '\n' || *t->p == '\r')
        {
          fail (t, "a string that does not close on its line");
          return NULL;
        }
      if ((guchar) *t->p < 0x20 && *t->p != '\t')
        {
          fail (t, "a string holds the control character U+%04X", (guint) (guchar) *t->p);
          return NULL;
        }
      if (*t->p != '\\' || quote == '\'')
        {
          g_string_append_c (out, *t->p);
          continue;
        }
      t->p++;
      switch (*t->p)
        {
        case 'b': g_string_append_c (out, '\b'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 'f': g_string_append_c (out, '\f'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case '"': g_string_append_c (out, '"'); break;
        case '\\': g_string_append_c (out, '\\'); break;
        case 'u':
        case 'U':
          {
            int digits = *t->p == 'u' ? 4 : 8;
            t->p++;
            if (!append_utf8 (t, out, digits))
              return NULL;
            t->p--;
            break;
          }
        default:
          fail (t, "\\%c is not an escape TOML has", *t->p != '\0' ? *t->p : ' ');
          return NULL;
        }
    }
  t->p++;
  if (!g_utf8_validate (out->str, (gssize) out->len, NULL))
    {
      fail (t, "a string that is not UTF-8");
      return NULL;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* An integer or a float, or true/false. */
static JsonNode *
parse_scalar (Toml *t)
{
  const char *start = t->p;
  g_autofree char *token = NULL;
  g_autoptr (GString) digits = g_string_new (NULL);
  gboolean is_float = FALSE;
  char *end = NULL;

  while (g_ascii_isalnum (*t->p) || *t->p == '_' || *t->p == '.' || *t->p == '+' || *t->p == '-' || *t->p == ':')
    t->p++;
  token = g_strndup (start, t->p - start);
  if (g_str_equal (token, "true") || g_str_equal (token, "false"))
    {
      JsonNode *n = json_node_new (JSON_NODE_VALUE);
      json_node_set_boolean (n, token[0] == 't');
      return n;
    }
  if (token[0] == '\0')
    {
      fail (t, "expected a value");
      return NULL;
    }
  if (strchr (token, ':') != NULL || (strlen (token) >= 10 && g_ascii_isdigit (token[0]) && token[4] == '-'))
    {
      fail (t, "dates and times are not read");
      return NULL;
    }
  if (strstr (token, "inf") != NULL || strstr (token, "nan") != NULL)
    {
      fail (t, "%s is not a finite number", token);
      return NULL;
    }
  /* "_" only between two digits. */
  for (const char *c = token; *c != '\0'; c++)
    {
      if (*c == '_')
        {
          if (c == token || !g_ascii_isdigit (c[-1]) || !g_ascii_isdigit (c[1]))
            {
              fail (t, "%s is not a number (\"_\" goes between digits)", token);
              return NULL;
            }
          continue;
        }
      if (*c == '.' || *c == 'e' || *c == 'E')
        is_float = TRUE;
      g_string_append_c (digits, *c);
    }
  if (g_str_has_prefix (digits->str, "0x") || g_str_has_prefix (digits->str, "0o") ||
      g_str_has_prefix (digits->str, "0b"))
    {
      guint base = digits->str[1] == 'x' ? 16 : digits->str[1] == 'o' ? 8 : 2;
      guint64 v;
      JsonNode *n;
      errno = 0;
      v = g_ascii_strtoull (digits->str + 2, &end, base);
      if (digits->len == 2 || *end != '\0' || errno != 0 || v > G_MAXINT64)
        {
          fail (t, "%s is not a 64-bit integer", token);
          return NULL;
        }
      n = json_node_new (JSON_NODE_VALUE);
      json_node_set_int (n, (gint64) v);
      return n;
    }
  {
    const char *d = digits->str + (digits->str[0] == '+' || digits->str[0] == '-');
    if (!g_ascii_isdigit (d[0]) || (d[0] == '0' && g_ascii_isdigit (d[1])))
      {
        fail (t, "%s is not a number", token);
        return NULL;
      }
  }
  errno = 0;
  if (is_float)
    {
      double v = g_ascii_strtod (digits->str, &end);
      JsonNode *n;
      if (*end != '\0' || !isfinite (v) || end[-1] == '.' || strstr (digits->str, ".e") != NULL)
        {
          fail (t, "%s is not a number", token);
          return NULL;
        }
      n = json_node_new (JSON_NODE_VALUE);
      json_node_set_double (n, v);
      return n;
    }
  {
    gint64 v = g_ascii_strtoll (digits->str, &end, 10);
    JsonNode *n;
    if (*end != '\0')
      {
        fail (t, "%s is not a number", token);
        return NULL;
      }
    if (errno == ERANGE)
      {
        fail (t, "%s is past the 64-bit integers TOML has", token);
        return NULL;
      }
    n = json_node_new (JSON_NODE_VALUE);
    json_node_set_int (n, v);
    return n;
  }
}

static JsonNode *parse_value (Toml *t, guint depth);
static gboolean  set_dotted (Toml *t, JsonObject *table, GPtrArray *key, JsonNode *value);

static JsonNode *
parse_array (Toml *t, guint depth)
{
  g_autoptr (JsonArray) array = json_array_new ();
  JsonNode *node;

  for (t->p++;;)
    {
      skip_space_and_lines (t);
      if (*t->p == ']')
        break;
      node = parse_value (t, depth + 1);
      if (node == NULL)
        return NULL;
      json_array_add_element (array, node);
      skip_space_and_lines (t);
      if (*t->p == ',')
        t->p++;
      else if (*t->p != ']')
        {
          fail (t, *t->p == '\0' ? "an array that never closes" : "expected \",\" or \"]\" in the array");
          return NULL;
        }
    }
  t->p++;
  node = json_node_new (JSON_NODE_ARRAY);
  json_node_set_array (node, array);
  return node;
}

/* { key = value, ... } on one line. */
static JsonNode *
parse_inline_table (Toml *t, guint depth)
{
  g_autoptr (JsonObject) table = json_object_new ();
  JsonNode *node;

  t->p++;
  skip_blanks (t);
  if (*t->p != '}')
    for (;;)
      {
        g_autoptr (GPtrArray) key = parse_key (t);
        JsonNode *value;
        if (key == NULL)
          return NULL;
        if (*t->p != '=')
          {
            fail (t, "expected \"=\" after the key");
            return NULL;
          }
        t->p++;
        skip_blanks (t);
        value = parse_value (t, depth + 1);
        if (value == NULL || !set_dotted (t, table, key, value))
          return NULL;
        skip_blanks (t);
        if (*t->p == '}')
          break;
        if (*t->p != ',')
          {
            fail (t, "expected \",\" or \"}\" in the inline table (it stays on one line)");
            return NULL;
          }
        t->p++;
      }
  t->p++;
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, table);
  return node;
}

static JsonNode *
parse_value (Toml *t, guint depth)
{
  if (depth > 64)
    {
      fail (t, "arrays and tables nested more than 64 deep");
      return NULL;
    }
  skip_blanks (t);
  if (*t->p == '"' || *t->p == '\'')
    {
      char *s = parse_string (t);
      JsonNode *n;
      if (s == NULL)
        return NULL;
      n = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (n, s);
      g_free (s);
      return n;
    }
  if (*t->p == '[')
    return parse_array (t, depth);
  if (*t->p == '{')
    return parse_inline_table (t, depth);
  return parse_scalar (t);
}

/* The object `name` of `table`, made when absent; the last element when it is an
 * array of tables. NULL (an error) when it is a value. */
static JsonObject *
sub_table (Toml *t, JsonObject *table, const char *name)
{
  JsonNode *n = json_object_get_member (table, name);

  if (n == NULL)
    {
      json_object_set_object_member (table, name, json_object_new ());
      return json_object_get_object_member (table, name);
    }
  if (JSON_NODE_HOLDS_OBJECT (n))
    return json_node_get_object (n);
  if (JSON_NODE_HOLDS_ARRAY (n) && json_array_get_length (json_node_get_array (n)) > 0)
    {
      JsonArray *a = json_node_get_array (n);
      JsonNode *last = json_array_get_element (a, json_array_get_length (a) - 1);
      if (JSON_NODE_HOLDS_OBJECT (last))
        return json_node_get_object (last);
    }
  fail (t, "\"%s\" already holds a value, not a table", name);
  return NULL;
}

/* Takes `value`. */
static gboolean
set_dotted (Toml *t, JsonObject *table, GPtrArray *key, JsonNode *value)
{
  const char *last = g_ptr_array_index (key, key->len - 1);

  for (guint i = 0; i + 1 < key->len && table != NULL; i++)
    table = sub_table (t, table, g_ptr_array_index (key, i));
  if (table == NULL || json_object_has_member (table, last))
    {
      json_node_unref (value);
      return table == NULL ? FALSE : fail (t, "\"%s\" is defined twice", last);
    }
  json_object_set_member (table, last, value);
  return TRUE;
}

/* [a.b] or [[a.b]]: the table later keys go to (made before the rest of the line is
 * read, so that a message names the header's line). */
static JsonObject *
parse_header (Toml *t, JsonObject *root)
{
  gboolean array = t->p[1] == '[';
  g_autoptr (GPtrArray) key = NULL;
  g_autoptr (GString) dotted = g_string_new (NULL);
  JsonObject *table = root, *opened;
  const char *last;

  t->p += array ? 2 : 1;
  key = parse_key (t);
  if (key == NULL)
    return NULL;
  if (*t->p != ']' || (array && t->p[1] != ']'))
    {
      fail (t, array ? "expected \"]]\" after the table name" : "expected \"]\" after the table name");
      return NULL;
    }
  t->p += array ? 2 : 1;
  for (guint i = 0; i < key->len; i++)
    g_string_append_printf (dotted, "%s%s", i ? "." : "", (const char *) g_ptr_array_index (key, i));
  for (guint i = 0; i + 1 < key->len && table != NULL; i++)
    table = sub_table (t, table, g_ptr_array_index (key, i));
  if (table == NULL)
    return NULL;
  last = g_ptr_array_index (key, key->len - 1);
  if (array)
    {
      JsonNode *n = json_object_get_member (table, last);
      if (n == NULL)
        json_object_set_array_member (table, last, json_array_new ());
      else if (!JSON_NODE_HOLDS_ARRAY (n) || g_hash_table_contains (t->headers, dotted->str))
        {
          fail (t, "[[%s]] names something that is not an array of tables", dotted->str);
          return NULL;
        }
      json_array_add_object_element (json_object_get_array_member (table, last), json_object_new ());
      opened = sub_table (t, table, last);
    }
  else
    {
      if (g_hash_table_contains (t->headers, dotted->str) ||
          (json_object_has_member (table, last) && !JSON_NODE_HOLDS_OBJECT (json_object_get_member (table, last))))
        {
          fail (t, "the table [%s] is defined twice", dotted->str);
          return NULL;
        }
      g_hash_table_add (t->headers, g_string_free (g_steal_pointer (&dotted), FALSE));
      opened = sub_table (t, table, last);
    }
  if (opened == NULL || !end_of_line (t, "the table header"))
    return NULL;
  return opened;
}

JsonNode *
plx_toml_parse (const char *text,
                const char *source,
                GError    **error)
{
  g_autoptr (JsonObject) root = json_object_new ();
  g_autoptr (GHashTable) headers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  Toml t = { text, text, 1, source, error, headers };
  JsonObject *table = root;
  JsonNode *node;

  if (g_str_has_prefix (t.p, "\xef\xbb\xbf"))
    t.p += 3;
  for (;;)
    {
      skip_space_and_lines (&t);
      if (*t.p == '\0')
        break;
      if (*t.p == '[')
        {
          table = parse_header (&t, root);
          if (table == NULL)
            return NULL;
          continue;
        }
      {
        g_autoptr (GPtrArray) key = parse_key (&t);
        JsonNode *value;
        if (key == NULL)
          return NULL;
        if (*t.p != '=')
          {
            fail (&t, "expected \"=\" after the key");
            return NULL;
          }
        t.p++;
        skip_blanks (&t);
        if (*t.p == '\n' || *t.p == '\0' || *t.p == '#' || *t.p == '\r')
          {
            fail (&t, "expected a value after \"=\"");
            return NULL;
          }
        value = parse_value (&t, 0);
        if (value == NULL || !set_dotted (&t, table, key, value) || !end_of_line (&t, "the value"))
          return NULL;
      }
    }
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, root);
  return node;
}
