/* plx-yaml.c: a YAML subset reader (plx-yaml.h). The document is cut into lines, each
 * with its indentation and its content without the comment; a block is the run of
 * lines at one indentation (YAML 1.2 §8.2: a mapping's entries and a sequence's
 * entries each start in one column; a sequence may sit in its key's column). A "- "
 * entry whose content is itself a block ("- key: value", "- - x") is read as a block
 * starting at the content's column, as the specification's compact forms are. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "parallax/plx-error.h"
#include "plx-json.h"
#include "plx-yaml.h"

typedef struct
{
  guint  number;   /* 1-based */
  guint  indent;   /* columns before the content */
  char  *text;     /* the whole line, for messages */
  char  *content;  /* from the indentation on, comment and trailing blanks dropped */
} Line;

typedef struct
{
  GArray     *lines;   /* Line, blank and comment-only lines left out */
  guint       next;    /* the line being read */
  const char *source;
  GError    **error;
} Yaml;

#define MAX_DEPTH 64

static gboolean G_GNUC_PRINTF (3, 4)
fail_line (Yaml *y, const Line *line, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  plx_json_set_line_error (y->error, y->source, line->number, line->text, fmt, ap);
  va_end (ap);
  return FALSE;
}

static void
line_clear (Line *line)
{
  g_free (line->text);
  g_free (line->content);
}

/* Where a scalar may open: after the indentation, "- ", ": ", "[", "{" or ",". */
static gboolean
scalar_may_open (const char *content, const char *p)
{
  while (p > content && (p[-1] == ' ' || p[-1] == '\t'))
    p--;
  return p == content || p[-1] == ':' || p[-1] == '-' || p[-1] == '[' || p[-1] == '{' || p[-1] == ',';
}

/* The content without its comment: a "#" at the start or after a blank, outside
 * quotes. */
static char *
strip_comment (const char *content)
{
  char quote = 0;
  const char *p;

  for (p = content; *p != '\0'; p++)
    {
      if (quote == '\'' && *p == '\'' && p[1] == '\'')
        p++;
      else if (quote == '"' && *p == '\\' && p[1] != '\0')
        p++;
      else if (quote != 0 && *p == quote)
        quote = 0;
      else if (quote == 0 && (*p == '"' || *p == '\'') && scalar_may_open (content, p))
        quote = *p;
      else if (quote == 0 && *p == '#' && (p == content || p[-1] == ' ' || p[-1] == '\t'))
        break;
    }
  return g_strchomp (g_strndup (content, p - content));
}

static gboolean
split_lines (Yaml *y, const char *text)
{
  g_auto (GStrv) raw = g_strsplit (g_str_has_prefix (text, "\xef\xbb\xbf") ? text + 3 : text, "\n", -1);
  gboolean started = FALSE;

  for (guint i = 0; raw[i] != NULL; i++)
    {
      Line line = { i + 1, 0, NULL, NULL };
      gsize len = strlen (raw[i]);

      if (len > 0 && raw[i][len - 1] == '\r')
        raw[i][len - 1] = '\0';
      line.text = g_strdup (raw[i]);
      while (raw[i][line.indent] == ' ')
        line.indent++;
      if (raw[i][line.indent] == '\t')
        {
          fail_line (y, &line, "a tab in the indentation (YAML indents with spaces)");
          line_clear (&line);
          return FALSE;
        }
      line.content = strip_comment (raw[i] + line.indent);
      if (line.content[0] == '\0' || (line.indent == 0 && g_str_has_prefix (line.content, "%")))
        {
          line_clear (&line);
          continue;
        }
      if (line.indent == 0 && (g_str_equal (line.content, "---") || g_str_equal (line.content, "...")))
        {
          if (started || line.content[0] == '.')
            {
              fail_line (y, &line, "several documents in one file are not read");
              line_clear (&line);
              return FALSE;
            }
          line_clear (&line);
          continue;
        }
      started = TRUE;
      g_array_append_val (y->lines, line);
    }
  return TRUE;
}

static Line *
line_at (Yaml *y, guint i)
{
  return i < y->lines->len ? &g_array_index (y->lines, Line, i) : NULL;
}

static gboolean
is_entry (const char *content)
{
  return content[0] == '-' && (content[1] == '\0' || content[1] == ' ');
}

/* A quoted scalar from *p (at its quote) to its closing quote, on this line. */
static char *
quoted (Yaml *y, const Line *line, const char **p)
{
  char quote = **p;
  g_autoptr (GString) out = g_string_new (NULL);
  const char *c;

  for (c = *p + 1;; c++)
    {
      if (*c == '\0')
        {
          fail_line (y, line, "a quoted string that does not close on its line");
          return NULL;
        }
      if (quote == '\'' && *c == '\'' && c[1] == '\'')
        {
          g_string_append_c (out, '\'');
          c++;
          continue;
        }
      if (*c == quote)
        break;
      if (quote == '"' && *c == '\\')
        {
          c++;
          switch (*c)
            {
            case 'n': g_string_append_c (out, '\n'); break;
            case 't': g_string_append_c (out, '\t'); break;
            case '"': g_string_append_c (out, '"'); break;
            case '\\': g_string_append_c (out, '\\'); break;
            case '/': g_string_append_c (out, '/'); break;
            case 'u':
              {
                gunichar u = 0;
                for (int k = 1; k <= 4; k++)
                  {
                    if (!g_ascii_isxdigit (c[k]))
                      {
                        fail_line (y, line, "\\u needs four hexadecimal digits");
                        return NULL;
                      }
                    u = u * 16 + (gunichar) g_ascii_xdigit_value (c[k]);
                  }
                if (u == 0 || !g_unichar_validate (u))
                  {
                    fail_line (y, line, "\\u%04X is not a character a string may hold", u);
                    return NULL;
                  }
                g_string_append_unichar (out, u);
                c += 4;
                break;
              }
            default:
              fail_line (y, line, "\\%c is an escape this reader does not know", *c != '\0' ? *c : ' ');
              return NULL;
            }
          continue;
        }
      g_string_append_c (out, *c);
    }
  *p = c + 1;
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* A plain scalar's text typed by the core schema (YAML 1.2 §10.3.2). */
static JsonNode *
plain (const char *text)
{
  JsonNode *n = json_node_new (JSON_NODE_VALUE);
  char *end = NULL;

  if (g_str_equal (text, "~") || g_str_equal (text, "null") || g_str_equal (text, "Null") ||
      g_str_equal (text, "NULL"))
    {
      json_node_init_null (n);
      return n;
    }
  if (g_str_equal (text, "true") || g_str_equal (text, "True") || g_str_equal (text, "TRUE"))
    {
      json_node_set_boolean (n, TRUE);
      return n;
    }
  if (g_str_equal (text, "false") || g_str_equal (text, "False") || g_str_equal (text, "FALSE"))
    {
      json_node_set_boolean (n, FALSE);
      return n;
    }
  if (g_regex_match_simple ("^[-+]?[0-9]+$", text, 0, 0))
    {
      gint64 v;
      errno = 0;
      v = g_ascii_strtoll (text, &end, 10);
      if (errno == 0)
        {
          json_node_set_int (n, v);
          return n;
        }
    }
  else if (g_regex_match_simple ("^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$", text, 0, 0))
    {
      double v = g_ascii_strtod (text, &end);
      if (isfinite (v))
        {
          json_node_set_double (n, v);
          return n;
        }
    }
  json_node_set_string (n, text);
  return n;
}

static JsonNode *flow (Yaml *y, const Line *line, const char **p, guint depth);

/* A flow collection's plain element: up to ",", "]" or "}" (and ": " in a mapping). */
static char *
flow_plain (const char **p, gboolean key)
{
  const char *start = *p, *c = *p;

  while (*c != '\0' && *c != ',' && *c != ']' && *c != '}' && !(key && *c == ':' && (c[1] == ' ' || c[1] == '\0')))
    c++;
  *p = c;
  return g_strstrip (g_strndup (start, c - start));
}

static JsonNode *
flow_element (Yaml *y, const Line *line, const char **p, guint depth)
{
  while (**p == ' ')
    (*p)++;
  if (**p == '[' || **p == '{')
    return flow (y, line, p, depth + 1);
  if (**p == '"' || **p == '\'')
    {
      char *s = quoted (y, line, p);
      JsonNode *n;
      if (s == NULL)
        return NULL;
      n = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (n, s);
      g_free (s);
      return n;
    }
  {
    g_autofree char *text = flow_plain (p, FALSE);
    return plain (text);
  }
}

/* [a, b] or {a: 1, b: 2}, closed on this line. */
static JsonNode *
flow (Yaml *y, const Line *line, const char **p, guint depth)
{
  gboolean map = **p == '{';
  char close = map ? '}' : ']';
  g_autoptr (JsonArray) array = map ? NULL : json_array_new ();
  g_autoptr (JsonObject) object = map ? json_object_new () : NULL;
  JsonNode *node;

  if (depth > MAX_DEPTH)
    {
      fail_line (y, line, "collections nested more than %d deep", MAX_DEPTH);
      return NULL;
    }
  for ((*p)++;;)
    {
      while (**p == ' ')
        (*p)++;
      if (**p == close)
        break;
      if (**p == '\0')
        {
          fail_line (y, line, "a flow collection (%c...%c) that does not close on its line", map ? '{' : '[', close);
          return NULL;
        }
      if (map)
        {
          g_autofree char *key = NULL;
          JsonNode *value;
          if (**p == '"' || **p == '\'')
            key = quoted (y, line, p);
          else
            key = flow_plain (p, TRUE);
          if (key == NULL)
            return NULL;
          while (**p == ' ')
            (*p)++;
          if (**p != ':')
            {
              fail_line (y, line, "expected \"key: value\" in the flow mapping");
              return NULL;
            }
          (*p)++;
          value = flow_element (y, line, p, depth);
          if (value == NULL)
            return NULL;
          if (json_object_has_member (object, key))
            {
              json_node_unref (value);
              fail_line (y, line, "the key \"%s\" is given twice", key);
              return NULL;
            }
          json_object_set_member (object, key, value);
        }
      else
        {
          JsonNode *value = flow_element (y, line, p, depth);
          if (value == NULL)
            return NULL;
          json_array_add_element (array, value);
        }
      while (**p == ' ')
        (*p)++;
      if (**p == ',')
        (*p)++;
      else if (**p == '\0')
        {
          fail_line (y, line, "a flow collection (%c...%c) that does not close on its line", map ? '{' : '[', close);
          return NULL;
        }
      else if (**p != close)
        {
          fail_line (y, line, "expected \",\" or \"%c\" in the flow collection", close);
          return NULL;
        }
    }
  (*p)++;
  if (map)
    {
      node = json_node_new (JSON_NODE_OBJECT);
      json_node_set_object (node, object);
    }
  else
    {
      node = json_node_new (JSON_NODE_ARRAY);
      json_node_set_array (node, array);
    }
  return node;
}

/* The value written on a line after "key: " or "- ". */
static JsonNode *
inline_value (Yaml *y, const Line *line, const char *text, guint depth)
{
  const char *p = text;
  JsonNode *node;

  if (*p == '|' || *p == '>')
    {
      fail_line (y, line, "block scalars (%c) are not read", *p);
      return NULL;
    }
  if (*p == '&' || *p == '*' || *p == '!')
    {
      fail_line (y, line, "%s are not read", *p == '&' ? "anchors" : *p == '*' ? "aliases" : "tags");
      return NULL;
    }
  if (*p == '[' || *p == '{')
    node = flow (y, line, &p, depth);
  else if (*p == '"' || *p == '\'')
    {
      char *s = quoted (y, line, &p);
      if (s == NULL)
        return NULL;
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (node, s);
      g_free (s);
    }
  else
    {
      const char *colon = strstr (text, ": ");
      if (colon != NULL && strstr (text, "${") == NULL)
        {
          fail_line (y, line, "a mapping cannot start after a key on the same line");
          return NULL;
        }
      return plain (text);
    }
  if (node == NULL)
    return NULL;
  while (*p == ' ')
    p++;
  if (*p != '\0')
    {
      json_node_unref (node);
      fail_line (y, line, "text after the value");
      return NULL;
    }
  return node;
}

/* The key of "key: value" or "key:" and where its value starts; NULL when the
 * content is not such an entry. */
static char *
split_key (Yaml *y, Line *line, const char **value)
{
  const char *c = line->content;
  char *key;

  if (*c == '"' || *c == '\'')
    {
      key = quoted (y, line, &c);
      if (key == NULL)
        return NULL;
      while (*c == ' ')
        c++;
      if (*c != ':' || (c[1] != ' ' && c[1] != '\0'))
        {
          g_free (key);
          fail_line (y, line, "expected \"key: value\"");
          return NULL;
        }
    }
  else
    {
      for (; *c != '\0'; c++)
        if (*c == ':' && (c[1] == ' ' || c[1] == '\0'))
          break;
      if (*c == '\0')
        {
          fail_line (y, line, "expected \"key: value\"");
          return NULL;
        }
      key = g_strstrip (g_strndup (line->content, c - line->content));
      if (key[0] == '?' || key[0] == '[' || key[0] == '{' || key[0] == '&' || key[0] == '*' || key[0] == '!')
        {
          g_free (key);
          fail_line (y, line, "only plain or quoted keys are read");
          return NULL;
        }
    }
  c++;
  while (*c == ' ')
    c++;
  *value = c;
  return key;
}

static JsonNode *block (Yaml *y, guint indent, guint depth);
static JsonNode *sequence (Yaml *y, guint indent, gboolean aligned, guint depth);

/* The value of a "key:" or "- " with nothing after it: the block below (more indented;
 * a sequence may also sit in the key's own column), or null. */
static JsonNode *
nested (Yaml *y, guint indent, gboolean sequence_may_align, guint depth)
{
  Line *next = line_at (y, y->next);

  if (next != NULL && sequence_may_align && next->indent == indent && is_entry (next->content))
    return sequence (y, indent, TRUE, depth + 1);
  if (next != NULL && next->indent > indent)
    return block (y, next->indent, depth + 1);
  return json_node_init_null (json_node_alloc ());
}

/* A line below an entry, indented more than the block but not taken by the entry. */
static gboolean
check_not_deeper (Yaml *y, guint indent)
{
  Line *line = line_at (y, y->next);

  if (line != NULL && line->indent > indent)
    return fail_line (y, line, "indented more than the block it follows (%u columns, not %u)", line->indent,
                      indent);
  return TRUE;
}

/* Whether "- REST" opens a block in REST's column: "- key: value", "- key:", "- - x". */
static gboolean
entry_opens_block (const char *rest)
{
  if (is_entry (rest))
    return TRUE;
  if (*rest == '"' || *rest == '\'' || *rest == '[' || *rest == '{')
    return FALSE;
  for (const char *c = rest; *c != '\0'; c++)
    {
      if (c[0] == '$' && c[1] == '{')
        return FALSE;
      if (*c == ':' && (c[1] == ' ' || c[1] == '\0'))
        return TRUE;
    }
  return FALSE;
}

/* Entries "- ..." in column `indent`; stops at a line left of it, or when `aligned`
 * (the sequence sits in its key's column) at a non-entry in it: the mapping's next
 * key. */
static JsonNode *
sequence (Yaml *y, guint indent, gboolean aligned, guint depth)
{
  g_autoptr (JsonArray) array = json_array_new ();
  Line *line;
  JsonNode *node;

  while ((line = line_at (y, y->next)) != NULL && line->indent == indent && is_entry (line->content))
    {
      const char *rest = line->content + 1;
      JsonNode *item;

      while (*rest == ' ')
        rest++;
      if (*rest == '\0')
        {
          y->next++;
          item = nested (y, indent, FALSE, depth);
        }
      else if (entry_opens_block (rest))
        {
          /* The entry's content opens a block in its own column. */
          char *content = g_strdup (rest);
          line->indent += (guint) (rest - line->content);
          g_free (line->content);
          line->content = content;
          item = block (y, line->indent, depth + 1);
        }
      else
        {
          y->next++;
          item = inline_value (y, line, rest, depth);
        }
      if (item == NULL)
        return NULL;
      json_array_add_element (array, item);
      if (!check_not_deeper (y, indent))
        return NULL;
    }
  if (!aligned && line != NULL && line->indent == indent)
    {
      fail_line (y, line, "a mapping entry among sequence entries");
      return NULL;
    }
  node = json_node_new (JSON_NODE_ARRAY);
  json_node_set_array (node, array);
  return node;
}

/* "key: value" entries in column `indent`; stops at a line left of it. */
static JsonNode *
mapping (Yaml *y, guint indent, guint depth)
{
  g_autoptr (JsonObject) object = json_object_new ();
  Line *line;
  JsonNode *node;

  while ((line = line_at (y, y->next)) != NULL && line->indent == indent)
    {
      const char *value = NULL;
      g_autofree char *key = NULL;
      JsonNode *v;

      if (is_entry (line->content))
        {
          fail_line (y, line, "a sequence entry among mapping entries");
          return NULL;
        }
      key = split_key (y, line, &value);
      if (key == NULL)
        return NULL;
      if (json_object_has_member (object, key))
        {
          fail_line (y, line, "the key \"%s\" is given twice", key);
          return NULL;
        }
      y->next++;
      if (*value == '\0')
        v = nested (y, indent, TRUE, depth);
      else
        v = inline_value (y, line, value, depth);
      if (v == NULL)
        return NULL;
      json_object_set_member (object, key, v);
      if (!check_not_deeper (y, indent))
        return NULL;
    }
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, object);
  return node;
}

/* The block of lines in column `indent` from y->next on. */
static JsonNode *
block (Yaml *y, guint indent, guint depth)
{
  Line *first = line_at (y, y->next);

  if (depth > MAX_DEPTH)
    {
      fail_line (y, first, "blocks nested more than %d deep", MAX_DEPTH);
      return NULL;
    }
  if (is_entry (first->content))
    return sequence (y, indent, FALSE, depth);
  if (y->next == 0 && y->lines->len == 1 && !entry_opens_block (first->content))
    {
      /* A document that is one scalar. */
      y->next++;
      return inline_value (y, first, first->content, depth);
    }
  return mapping (y, indent, depth);
}

JsonNode *
plx_yaml_parse (const char *text,
                const char *source,
                GError    **error)
{
  g_autoptr (GArray) lines = g_array_new (FALSE, TRUE, sizeof (Line));
  Yaml y = { lines, 0, source, error };
  JsonNode *node = NULL;
  Line *first;

  g_array_set_clear_func (lines, (GDestroyNotify) line_clear);
  if (!split_lines (&y, text))
    return NULL;
  first = line_at (&y, 0);
  if (first == NULL)
    return json_node_init_null (json_node_alloc ());
  node = block (&y, first->indent, 0);
  if (node == NULL)
    return NULL;
  if (y.next < lines->len)
    {
      /* A line left of the first block's column, or a mapping entry after a
       * top-level sequence. */
      Line *left = line_at (&y, y.next);
      json_node_unref (node);
      fail_line (&y, left, left->indent < first->indent ? "indented less than the document's first line"
                                                         : "a mapping entry among sequence entries");
      return NULL;
    }
  return node;
}
