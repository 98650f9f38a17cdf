#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "parallax/plx-error.h"
#include "base/plx-input.h"
#include "base/plx-json.h"

#define MAX_DEPTH 256

/* Steps a scan's string state over the byte c: TRUE while c belongs to a string,
 * its quotes and escapes included. */
static inline gboolean
json_string_step (char      c,
                  gboolean *in_string,
                  gboolean *escaped)
{
  if (!*in_string)
    return (*in_string = c == '"');
  if (*escaped)
    *escaped = FALSE;
  else if (c == '\\')
    *escaped = TRUE;
  else if (c == '"')
    *in_string = FALSE;
  return TRUE;
}

/* What json-glib cannot be trusted with, found in one pass over the raw text:
 * - nesting: json-glib parses recursively, so a hostile file of 100,000 nested
 *   brackets would exhaust the stack. No scenario nests more than a handful of levels;
 * - "\u0000" in a string: json-glib hands strings out as C strings, so everything
 *   after the NUL vanished unseen, past the control-character check of
 *   plx_json_get_string (issue 34). No name or label of Parallax holds a NUL.
 * Returns the offending byte offset and sets *why, or returns -1. */
static gssize
find_unsafe (const char  *data,
             gsize        length,
             const char **why)
{
  gboolean in_string = FALSE, escaped = FALSE;
  guint depth = 0;

  for (gsize i = 0; i < length; i++)
    {
      char c = data[i];

      if (in_string && escaped && c == 'u' && i + 4 < length && memcmp (data + i + 1, "0000", 4) == 0)
        {
          *why = "a string holds \\u0000 (NUL), which no name or value may contain";
          return (gssize) i - 1;
        }
      if (json_string_step (c, &in_string, &escaped))
        continue;
      if (c == '[' || c == '{')
        {
          if (++depth > MAX_DEPTH)
            {
              *why = "nested more than " G_STRINGIFY (MAX_DEPTH) " levels deep";
              return (gssize) i;
            }
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
    }
  return -1;
}

/* Where json-glib found a syntax error, and what it expected - never the text it
 * found there: json-glib quotes the offending token ("unexpected identifier `root'"),
 * which for a file that is not JSON at all is the file's content (issue 34: /etc/shadow
 * named as hf_config printed its first word). */
static const char *const non_json_numbers[] = { "NaN", "Infinity", "nan", "inf", "infinity" };

static char *
syntax_error_position (const char *message)
{
  const char *expected = strstr (message, ", expected ");
  guint line = 0, column = 0;

  if (sscanf (message, "<data>:%u:%u:", &line, &column) != 2)
    return g_strdup ("");
  /* The non-JSON numbers other tools write are named: they are a fixed list, so
   * naming one quotes nothing of the file's own. */
  for (guint i = 0; i < G_N_ELEMENTS (non_json_numbers); i++)
    {
      g_autofree char *token = g_strdup_printf ("unexpected identifier `%s'", non_json_numbers[i]);
      if (strstr (message, token) != NULL)
        return g_strdup_printf (" at line %u, column %u: %s is not a JSON number", line, column, non_json_numbers[i]);
    }
  /* json-glib's "expected character `,'" names JSON's syntax, not the file's text. */
  if (expected != NULL && strlen (expected) < 40)
    return g_strdup_printf (" at line %u, column %u: %s", line, column, expected + 2);
  return g_strdup_printf (" at line %u, column %u", line, column);
}

/* json-glib 1.6 reads an integer literal past the 64-bit range without an error, as
 * some other number: 18446744073709551615 becomes -1 and 9223372036854775808
 * INT64_MIN, and every message after quoted those. Such a literal is refused here, as
 * written, with the path of its key ("strategy.global_batch_size", "tp[2]"). Run
 * after nesting_too_deep: the path is at most MAX_DEPTH deep. */
typedef struct
{
  const char *key;       /* the member being read, in an object; NULL in an array */
  gsize       key_len;
  gboolean    array;
  guint       index;
} ScanLevel;

static gboolean
integer_out_of_range (const char *digits, gsize n, gboolean negative)
{
  /* 2^63 - 1, and 2^63 below zero; JSON has no leading zeros, json-glib skips them. */
  const char *limit = negative ? "9223372036854775808" : "9223372036854775807";
  gsize lim = strlen (limit);

  while (n > 1 && digits[0] == '0')
    digits++, n--;
  return n > lim || (n == lim && memcmp (digits, limit, n) > 0);
}

static char *
scan_path (const ScanLevel *levels, guint depth)
{
  GString *path = g_string_new (NULL);

  for (guint d = 0; d < depth; d++)
    if (levels[d].array)
      g_string_append_printf (path, "[%u]", levels[d].index);
    else if (levels[d].key != NULL)
      g_string_append_printf (path, "%s%.*s", path->len > 0 ? "." : "", (int) MIN (levels[d].key_len, 60),
                              levels[d].key);
  return g_string_free (path, FALSE);
}

static gboolean
check_integers (const char *data,
                gsize       length,
                const char *source,
                GError    **error)
{
  ScanLevel levels[MAX_DEPTH + 1];
  guint depth = 0;
  const char *string = NULL, *last = NULL;
  gsize last_len = 0;
  gboolean escaped = FALSE;

  for (gsize i = 0; i < length; i++)
    {
      char c = data[i];

      if (string != NULL)
        {
          if (escaped)
            escaped = FALSE;
          else if (c == '\\')
            escaped = TRUE;
          else if (c == '"')
            last = string, last_len = (gsize) (data + i - string), string = NULL;
          continue;
        }
      if (c == '"')
        string = data + i + 1;
      else if ((c == '{' || c == '[') && depth <= MAX_DEPTH)
        levels[depth++] = (ScanLevel) { NULL, 0, c == '[', 0 };
      else if ((c == '}' || c == ']') && depth > 0)
        depth--;
      else if (c == ':' && depth > 0 && !levels[depth - 1].array)
        levels[depth - 1].key = last, levels[depth - 1].key_len = last_len;
      else if (c == ',' && depth > 0 && levels[depth - 1].array)
        levels[depth - 1].index++;
      else if (c == '-' || g_ascii_isdigit (c))
        {
          gsize start = c == '-' ? i + 1 : i, end = start;
          while (end < length && g_ascii_isdigit (data[end]))
            end++;
          /* A fraction or exponent makes it a double, which json-glib reads right;
           * the whole number is passed over, exponent digits and all. */
          if (end < length && (data[end] == '.' || data[end] == 'e' || data[end] == 'E'))
            {
              while (end < length && data[end] != '\0' &&
                     (g_ascii_isdigit (data[end]) || strchr (".eE+-", data[end]) != NULL))
                end++;
            }
          else if (integer_out_of_range (data + start, end - start, c == '-'))
            {
              g_autofree char *path = scan_path (levels, depth);
              g_autofree char *safe = plx_printable (path);
              g_autofree char *literal = end - i <= 40 ? g_strndup (data + i, end - i)
                                                       : g_strdup_printf ("%.20s... (%" G_GSIZE_FORMAT " digits)",
                                                                          data + i, end - start);
              g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
                           "%.200s: %s%s%s is out of range (past the 64-bit integers JSON is read with)", source,
                           safe, safe[0] != '\0' ? ": " : "", literal);
              return FALSE;
            }
          i = end - 1;
        }
    }
  return TRUE;
}

/* Python's json module writes the non-finite floats as bare NaN, Infinity and
 * -Infinity (json.dumps' allow_nan, on by default), which JSON does not have: real
 * Hugging Face configs hold them (Nemotron-H's time_step_limit [0.0, Infinity]).
 * Outside strings each becomes the string of itself ("NaN"), so a key Parallax reads
 * is refused by name as not a number, with the value, and every other key is read
 * past. NULL when the text has none; otherwise the new text, its length in
 * *out_length. */
static char *
python_literals_to_strings (const char *data,
                         gsize       length,
                         gsize      *out_length)
{
  static const char *const words[] = { "-Infinity", "Infinity", "NaN" };
  GString *out = NULL;
  gboolean in_string = FALSE, escaped = FALSE;
  gsize copied = 0;

  for (gsize i = 0; i < length; i++)
    {
      char c = data[i];

      if (json_string_step (c, &in_string, &escaped) || (c != '-' && c != 'I' && c != 'N'))
        continue;
      for (guint w = 0; w < G_N_ELEMENTS (words); w++)
        {
          gsize n = strlen (words[w]);
          if (i + n <= length && memcmp (data + i, words[w], n) == 0 &&
              (i + n == length || !g_ascii_isalnum (data[i + n])) && (i == 0 || !g_ascii_isalnum (data[i - 1])))
            {
              if (out == NULL)
                out = g_string_sized_new (length + 16);
              g_string_append_len (out, data + copied, (gssize) (i - copied));
              g_string_append_c (out, '"');
              g_string_append (out, words[w]);
              g_string_append_c (out, '"');
              copied = i + n;
              i += n - 1;
              break;
            }
        }
    }
  if (out == NULL)
    return NULL;
  g_string_append_len (out, data + copied, (gssize) (length - copied));
  *out_length = out->len;
  return g_string_free (out, FALSE);
}

JsonNode *
plx_json_parse_data (const char *data,
                     gssize      length,
                     const char *source,
                     GError    **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) local_error = NULL;
  g_autofree char *python = NULL;

  const char *why = NULL;
  gssize at = find_unsafe (data, length < 0 ? strlen (data) : (gsize) length, &why);

  if (at >= 0)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%.200s: %s (byte %" G_GSSIZE_FORMAT ")", source, why, at);
      return NULL;
    }

  if (!check_integers (data, length < 0 ? strlen (data) : (gsize) length, source, error))
    return NULL;
  {
    gsize new_length = 0;
    python = python_literals_to_strings (data, length < 0 ? strlen (data) : (gsize) length, &new_length);
    if (python != NULL)
      data = python, length = (gssize) new_length;
  }
  if (!json_parser_load_from_data (parser, data, length, &local_error))
    {
      g_autofree char *where = syntax_error_position (local_error->message);
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%.200s: not valid JSON%s", source, where);
      return NULL;
    }
  if (json_parser_get_root (parser) == NULL)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%.200s: empty document", source);
      return NULL;
    }
  return json_node_copy (json_parser_get_root (parser));
}

#define MAX_FILE_BYTES (64 * 1024 * 1024)

/* Reads a whole regular file of at most MAX_FILE_BYTES. json-glib reads a 4 GB file as
 * happily as a 4 kB one, and g_file_get_contents reads /dev/zero or a pipe forever:
 * only regular files are read, and never more than the limit plus one byte. */
static char *
read_file_limited (const char *path,
                   gsize      *length,
                   GError    **error)
{
  g_autofree char *data = NULL;
  gsize used = 0;
  GStatBuf st = { 0 };
  int fd;

  /* O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one. */
  fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, PLX_ERROR, e == ENOENT ? PLX_ERROR_NOT_FOUND : PLX_ERROR_IO, "%.200s: %s", path,
                   e == ENOENT ? "no such file" : e == EACCES ? "permission denied" : "cannot be read");
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      gboolean dir = S_ISDIR (st.st_mode);
      g_close (fd, NULL);
      g_set_error (error, PLX_ERROR, PLX_ERROR_IO, "%.200s: %s", path,
                   dir ? "is a directory" : "is not a regular file (a device, pipe or socket)");
      return NULL;
    }
  if (st.st_size > MAX_FILE_BYTES)
    {
      g_close (fd, NULL);
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE,
                   "%.200s: %" G_GINT64_FORMAT " bytes is too large for a scenario, model or table file (limit %d MiB)",
                   path, (gint64) st.st_size, MAX_FILE_BYTES / (1024 * 1024));
      return NULL;
    }
  data = g_malloc ((gsize) st.st_size + 2);
  for (;;)
    {
      /* One byte beyond the size: a file that grew since fstat is caught below. */
      gssize n = read (fd, data + used, (gsize) st.st_size + 1 - used);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          g_close (fd, NULL);
          g_set_error (error, PLX_ERROR, PLX_ERROR_IO, "%.200s: cannot be read", path);
          return NULL;
        }
      used += (gsize) n;
      if (n == 0 || used == (gsize) st.st_size + 1)
        break;
    }
  g_close (fd, NULL);
  if (used > (gsize) st.st_size)
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_IO, "%.200s: changed while being read", path);
      return NULL;
    }
  data[used] = '\0';
  *length = used;
  return g_steal_pointer (&data);
}

char *
plx_json_read_text_file (const char *path,
                         gsize      *length,
                         GError    **error)
{
  return plx_input_is_stdin (path) ? plx_input_read_stdin (MAX_FILE_BYTES, length, error)
                                   : read_file_limited (path, length, error);
}

JsonNode *
plx_json_parse_file (const char *path,
                     GError    **error)
{
  gsize length = 0;
  g_autofree char *data = plx_json_read_text_file (path, &length, error);

  if (data == NULL)
    return NULL;
  return plx_json_parse_data (data, (gssize) length, plx_input_name (path), error);
}

/* A tree that shares nothing with `node`, down to its leaves. json_node_copy shares
 * objects and arrays, and even a leaf's JsonValue, and json-glib 1.6 counts the
 * references of all three without atomics: two threads each holding a "copy" then
 * raced on the same counts (the GUI's worker freed its job's tree while the window
 * copied the panel's), and a lost count freed a value still in use. Reading `node`
 * here changes no count, so threads may copy one tree at once. */
JsonNode *
plx_json_deep_copy (JsonNode *node)
{
  JsonNode *copy;

  if (node == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *out = json_object_new ();
      JsonObjectIter iter;
      const char *key;
      JsonNode *value;

      json_object_iter_init (&iter, json_node_get_object (node));
      while (json_object_iter_next (&iter, &key, &value))
        json_object_set_member (out, key, plx_json_deep_copy (value));
      copy = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (copy, out);
      return copy;
    }
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *in = json_node_get_array (node);
      JsonArray *out = json_array_sized_new (json_array_get_length (in));

      for (guint i = 0; i < json_array_get_length (in); i++)
        json_array_add_element (out, plx_json_deep_copy (json_array_get_element (in, i)));
      copy = json_node_new (JSON_NODE_ARRAY);
      json_node_take_array (copy, out);
      return copy;
    }
  if (JSON_NODE_HOLDS_VALUE (node))
    {
      GValue value = G_VALUE_INIT;

      /* A fresh node gets a JsonValue of its own. */
      json_node_get_value (node, &value);
      copy = json_node_new (JSON_NODE_VALUE);
      json_node_set_value (copy, &value);
      g_value_unset (&value);
      return copy;
    }
  return json_node_new (JSON_NODE_NULL);
}

JsonNode *
plx_json_merge (JsonNode *base,
                JsonNode *overrides)
{
  JsonNode *result;
  JsonObject *out;
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  if (overrides == NULL)
    return plx_json_deep_copy (base);
  if (base == NULL || !JSON_NODE_HOLDS_OBJECT (base) || !JSON_NODE_HOLDS_OBJECT (overrides))
    return plx_json_deep_copy (overrides);

  result = plx_json_deep_copy (base);
  out = json_node_get_object (result);
  json_object_iter_init (&iter, json_node_get_object (overrides));
  while (json_object_iter_next (&iter, &key, &value))
    {
      JsonNode *old = json_object_get_member (out, key);
      json_object_set_member (out, key, plx_json_merge (old, value));
    }
  return result;
}

void
plx_json_set_line_error (GError    **error,
                         const char *source,
                         guint       line,
                         const char *text,
                         const char *fmt,
                         va_list     ap)
{
  g_autofree char *what = g_strdup_vprintf (fmt, ap);
  g_autofree char *shown = g_strndup (text, MIN (strcspn (text, "\r\n"), 120));

  g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s:%u: %s: \"%s\"", source, line, what, g_strstrip (shown));
}

char *
plx_json_value_to_string (JsonNode *node)
{
  g_autofree char *text = NULL;

  if (node == NULL)
    return g_strdup ("(absent)");
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_DOUBLE)
    return g_strdup_printf ("%g", json_node_get_double (node));
  text = json_to_string (node, FALSE);
  /* Keep messages one line and short even for a hostile 1 MB value, cut between
   * characters; JSON leaves DEL and C1 controls unescaped, plx_printable does not. */
  if (strlen (text) > 60)
    {
      const char *end = text + 57;
      if (g_utf8_validate (text, -1, NULL))
        end = g_utf8_find_prev_char (text, text + 58);
      {
        g_autofree char *head = g_strndup (text, (gsize) (end - text));
        g_autofree char *safe = plx_printable (head);
        return g_strdup_printf ("%s...", safe);
      }
    }
  return plx_printable (text);
}

/* What a terminal obeys rather than shows: C0 controls, DEL and the C1 controls
 * (U+0080-U+009F, CSI among them). */
static gboolean
is_terminal_control (gunichar c)
{
  return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f);
}

char *
plx_printable (const char *text)
{
  GString *out = g_string_sized_new (strlen (text));
  const char *p = text;

  while (*p != '\0')
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf (out, "\\x%02X", (guchar) *p);
          p++;
          continue;
        }
      if (is_terminal_control (c))
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
  return g_string_free (out, FALSE);
}

static char *
key_name (const char *path,
          const char *key)
{
  /* Keys come from the file: printed as plx_printable shows them. */
  g_autofree char *safe = plx_printable (key);

  if (path == NULL || *path == '\0')
    return g_steal_pointer (&safe);
  return g_strdup_printf ("%s.%s", path, safe);
}

/* Levenshtein distance (Levenshtein 1966), two rows, capped at 64 characters. */
static guint
edit_distance (const char *a, const char *b)
{
  guint la = MIN (strlen (a), 64), lb = MIN (strlen (b), 64);
  guint prev[65], cur[65];

  for (guint j = 0; j <= lb; j++)
    prev[j] = j;
  for (guint i = 1; i <= la; i++)
    {
      cur[0] = i;
      for (guint j = 1; j <= lb; j++)
        {
          guint sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
          cur[j] = MIN (MIN (prev[j] + 1, cur[j - 1] + 1), sub);
        }
      memcpy (prev, cur, sizeof (guint) * (lb + 1));
    }
  return prev[lb];
}

const char *
plx_json_closest_key (const char        *key,
                      const char *const *known)
{
  const char *best = NULL;
  guint best_d = G_MAXUINT, limit = CLAMP ((guint) strlen (key) / 3, 1, 3);

  for (guint i = 0; known[i] != NULL; i++)
    {
      guint d = edit_distance (key, known[i]);
      if (d < best_d)
        {
          best_d = d;
          best = known[i];
        }
    }
  return best_d <= limit ? best : NULL;
}

/* Every key of `obj` not in `known` is an error naming the nearest known one; with
 * near_only, only the keys that have a near one (a typo), the rest let pass. */
static gboolean
check_keys (JsonObject        *obj,
            const char        *source,
            const char        *path,
            const char *const *known,
            gboolean           near_only,
            GError           **error)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  json_object_iter_init (&iter, obj);
  while (json_object_iter_next (&iter, &key, &value))
    {
      const char *near;
      g_autofree char *name = NULL;

      if (g_strv_contains (known, key))
        continue;
      near = plx_json_closest_key (key, known);
      if (near == NULL && near_only)
        continue;
      name = key_name (path, key);
      if (near != NULL)
        g_set_error (error, PLX_ERROR, PLX_ERROR_UNKNOWN_KEY, "%.200s: %.200s: unknown key; did you mean \"%s\"?",
                     source, name, near);
      else
        {
          /* One readable line: past 240 characters the rest are counted, not listed
           * (the strategy has 28 keys; docs/formats.md lists them all). */
          GString *list = g_string_new (NULL);
          guint shown = 0, total = g_strv_length ((char **) known);
          for (; shown < total && list->len + strlen (known[shown]) < 240; shown++)
            g_string_append_printf (list, "%s%s", shown ? " " : "", known[shown]);
          if (shown < total)
            g_string_append_printf (list, " and %u more, docs/formats.md", total - shown);
          g_set_error (error, PLX_ERROR, PLX_ERROR_UNKNOWN_KEY, "%.200s: %.200s: unknown key (known: %s)", source,
                       name, list->str);
          g_string_free (list, TRUE);
        }
      return FALSE;
    }
  return TRUE;
}

gboolean
plx_json_check_keys (JsonObject        *obj,
                     const char        *source,
                     const char        *path,
                     const char *const *known,
                     GError           **error)
{
  return check_keys (obj, source, path, known, FALSE, error);
}

gboolean
plx_json_check_near_keys (JsonObject        *obj,
                          const char        *source,
                          const char        *path,
                          const char *const *known,
                          GError           **error)
{
  return check_keys (obj, source, path, known, TRUE, error);
}

/* "SOURCE: PATH.KEY: VALUE RULE" */
static gboolean
bad_value (GError    **error,
           int         code,
           const char *source,
           const char *path,
           const char *key,
           JsonNode   *node,
           const char *rule)
{
  g_autofree char *name = key_name (path, key);
  g_autofree char *value = plx_json_value_to_string (node);

  g_set_error (error, PLX_ERROR, code, "%.200s: %s: %s %s", source, name, value, rule);
  return FALSE;
}

static gboolean
missing_key (GError    **error,
             const char *source,
             const char *path,
             const char *key)
{
  g_autofree char *name = key_name (path, key);

  g_set_error (error, PLX_ERROR, PLX_ERROR_MISSING_KEY, "%.200s: %s: required key is missing", source, name);
  return FALSE;
}

static gboolean
member_number (JsonObject *obj,
               const char *source,
               const char *path,
               const char *key,
               gboolean    required,
               JsonNode  **out,
               GError    **error)
{
  JsonNode *node = json_object_get_member (obj, key);

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      if (required)
        return missing_key (error, source, path, key);
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (node)
      || (json_node_get_value_type (node) != G_TYPE_INT64
          && json_node_get_value_type (node) != G_TYPE_DOUBLE))
    return bad_value (error, PLX_ERROR_PARSE, source, path, key, node, "is not a number");
  *out = node;
  return TRUE;
}

gboolean
plx_json_get_uint (JsonObject *obj,
                   const char *source,
                   const char *path,
                   const char *key,
                   gboolean    required,
                   guint64     min,
                   guint64     max,
                   guint64    *out,
                   GError    **error)
{
  JsonNode *node;
  double d;

  if (!member_number (obj, source, path, key, required, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;

  if (json_node_get_value_type (node) == G_TYPE_INT64)
    {
      gint64 v = json_node_get_int (node);
      if (v < 0 || (guint64) v < min || (guint64) v > max)
        goto out_of_range;
      *out = (guint64) v;
      return TRUE;
    }

  /* 2.4e10 is a fine way to write an integer byte count in JSON. */
  d = json_node_get_double (node);
  if (!isfinite (d) || d != floor (d))
    return bad_value (error, PLX_ERROR_INVALID_VALUE, source, path, key, node, "is not a whole number");
  if (d < (double) min || d > (double) max)
    goto out_of_range;
  *out = (guint64) d;
  return TRUE;

out_of_range:
  {
    g_autofree char *rule = g_strdup_printf ("is out of range (allowed %" G_GUINT64_FORMAT
                                             " to %" G_GUINT64_FORMAT ")", min, max);
    return bad_value (error, PLX_ERROR_INVALID_VALUE, source, path, key, node, rule);
  }
}

gboolean
plx_json_get_double (JsonObject *obj,
                     const char *source,
                     const char *path,
                     const char *key,
                     gboolean    required,
                     double      min,
                     double      max,
                     double     *out,
                     GError    **error)
{
  JsonNode *node;
  double d;

  if (!member_number (obj, source, path, key, required, &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;
  d = json_node_get_double (node);
  if (!isfinite (d) || d < min || d > max)
    {
      g_autofree char *rule = g_strdup_printf ("is out of range (allowed %g to %g)", min, max);
      return bad_value (error, PLX_ERROR_INVALID_VALUE, source, path, key, node, rule);
    }
  *out = d;
  return TRUE;
}

gboolean
plx_json_get_bool (JsonObject *obj,
                   const char *source,
                   const char *path,
                   const char *key,
                   gboolean   *out,
                   GError    **error)
{
  JsonNode *node = json_object_get_member (obj, key);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return bad_value (error, PLX_ERROR_PARSE, source, path, key, node, "is not true or false");
  *out = json_node_get_boolean (node);
  return TRUE;
}

gboolean
plx_json_get_string (JsonObject  *obj,
                     const char  *source,
                     const char  *path,
                     const char  *key,
                     gboolean     required,
                     const char **out,
                     GError     **error)
{
  JsonNode *node = json_object_get_member (obj, key);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      if (required)
        return missing_key (error, source, path, key);
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return bad_value (error, PLX_ERROR_PARSE, source, path, key, node, "is not a string");
  {
    /* Names and labels reach terminals: an ESC or a C1 control would be obeyed, not
     * shown (a scenario named "\e[2J" cleared the screen). Tabs and newlines pass. */
    for (const char *p = json_node_get_string (node); *p != '\0'; p++)
      {
        gunichar c = g_utf8_get_char_validated (p, -1);
        if (c < 0x80000000 && is_terminal_control (c) && c != '\t' && c != '\n')
          {
            g_autofree char *reason = g_strdup_printf ("contains the control character U+%04X", c);
            return bad_value (error, PLX_ERROR_INVALID_VALUE, source, path, key, node, reason);
          }
        if (c < 0x80000000)
          p = g_utf8_next_char (p) - 1;
      }
  }
  *out = json_node_get_string (node);
  return TRUE;
}

JsonObject *
plx_json_get_object (JsonObject *obj,
                     const char *source,
                     const char *path,
                     const char *key,
                     gboolean    required,
                     GError    **error)
{
  JsonNode *node = json_object_get_member (obj, key);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      if (required)
        missing_key (error, source, path, key);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      bad_value (error, PLX_ERROR_PARSE, source, path, key, node, "is not an object");
      return NULL;
    }
  return json_node_get_object (node);
}

void
plx_json_set_normal (JsonObject *object,
                     const char *key,
                     double      mean,
                     double      sd)
{
  JsonObject *d = json_object_new ();

  json_object_set_double_member (d, "mean", mean);
  json_object_set_double_member (d, "sd", sd);
  json_object_set_object_member (object, key, d);
}

JsonObject *
plx_json_object_member_made (JsonObject *object,
                             const char *key)
{
  if (!json_object_has_member (object, key) || !JSON_NODE_HOLDS_OBJECT (json_object_get_member (object, key)))
    json_object_set_object_member (object, key, json_object_new ());
  return json_object_get_object_member (object, key);
}
