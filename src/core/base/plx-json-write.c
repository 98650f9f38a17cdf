/* JSON text from a JsonNode tree, as json-glib's generator lays it out (the same
 * indentation and separators, so existing output keeps its shape), except for
 * numbers: json-glib 1.6 appends ".0" to any double printed without a point, so
 * 1e17 came out as `1e+17.0` and NaN as `nan.0`, neither of them JSON (issue 34).
 * Here a double keeps ".0" only when it is printed as a plain integer, and a NaN or
 * an infinity is refused with the key that holds it: JSON has no way to say them. */
#include <math.h>
#include <string.h>

#include "parallax/plx-error.h"
#include "base/plx-json.h"
#include "base/plx-output.h"

typedef struct
{
  GString  *out;
  GString  *where;   /* the key path of the value being written, for errors */
  gboolean  pretty;
} Writer;

static void
write_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (; *s != '\0'; s++)
    {
      unsigned char c = (unsigned char) *s;
      switch (c)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\b': g_string_append (out, "\\b"); break;
        case '\f': g_string_append (out, "\\f"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        default:
          if (c < 0x20 || c == 0x7f)
            g_string_append_printf (out, "\\u%04x", c);
          else
            g_string_append_c (out, (char) c);
        }
    }
  g_string_append_c (out, '"');
}

gboolean
plx_json_format_double (double   v,
                        char    *buf,
                        gsize    size)
{
  if (!isfinite (v))
    return FALSE;
  /* Shortest text that reads back to the same double, always with '.', whatever
   * the locale. */
  g_ascii_dtostr (buf, (int) size, v);
  if (strpbrk (buf, ".eE") == NULL && strlen (buf) + 2 < size)
    strcat (buf, ".0");
  return TRUE;
}

static void
indent (Writer *w, guint level)
{
  if (w->pretty)
    for (guint i = 0; i < level; i++)
      g_string_append (w->out, "  ");
}

static gboolean write_node (Writer *w, JsonNode *node, guint level, GError **error);

static gboolean
write_value (Writer *w, JsonNode *node, GError **error)
{
  GType type = json_node_get_value_type (node);
  char buf[G_ASCII_DTOSTR_BUF_SIZE + 4];

  if (type == G_TYPE_INT64)
    g_string_append_printf (w->out, "%" G_GINT64_FORMAT, json_node_get_int (node));
  else if (type == G_TYPE_DOUBLE)
    {
      if (!plx_json_format_double (json_node_get_double (node), buf, sizeof buf))
        {
          g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE, "%s: %s is not a number JSON can hold",
                       w->where->len > 0 ? w->where->str : "(top level)",
                       isnan (json_node_get_double (node)) ? "NaN" : "an infinity");
          return FALSE;
        }
      g_string_append (w->out, buf);
    }
  else if (type == G_TYPE_BOOLEAN)
    g_string_append (w->out, json_node_get_boolean (node) ? "true" : "false");
  else if (type == G_TYPE_STRING)
    write_string (w->out, json_node_get_string (node));
  else
    g_string_append (w->out, "null");
  return TRUE;
}

static gboolean
write_object (Writer *w, JsonObject *obj, guint level, GError **error)
{
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;
  gboolean first = TRUE;

  if (json_object_get_size (obj) == 0)
    {
      g_string_append (w->out, "{}");
      return TRUE;
    }
  g_string_append_c (w->out, '{');
  json_object_iter_init_ordered (&iter, obj);
  while (json_object_iter_next_ordered (&iter, &key, &value))
    {
      gsize mark = w->where->len;

      g_string_append (w->out, first ? "" : ",");
      if (w->pretty)
        g_string_append_c (w->out, '\n');
      first = FALSE;
      indent (w, level + 1);
      write_string (w->out, key);
      g_string_append (w->out, w->pretty ? " : " : ":");
      g_string_append_printf (w->where, "%s%s", mark > 0 ? "." : "", key);
      if (!write_node (w, value, level + 1, error))
        return FALSE;
      g_string_truncate (w->where, mark);
    }
  if (w->pretty)
    g_string_append_c (w->out, '\n');
  indent (w, level);
  g_string_append_c (w->out, '}');
  return TRUE;
}

static gboolean
write_array (Writer *w, JsonArray *array, guint level, GError **error)
{
  guint n = json_array_get_length (array);

  if (n == 0)
    {
      g_string_append (w->out, "[]");
      return TRUE;
    }
  g_string_append_c (w->out, '[');
  for (guint i = 0; i < n; i++)
    {
      gsize mark = w->where->len;

      if (i > 0)
        g_string_append_c (w->out, ',');
      if (w->pretty)
        g_string_append_c (w->out, '\n');
      indent (w, level + 1);
      g_string_append_printf (w->where, "[%u]", i);
      if (!write_node (w, json_array_get_element (array, i), level + 1, error))
        return FALSE;
      g_string_truncate (w->where, mark);
    }
  if (w->pretty)
    g_string_append_c (w->out, '\n');
  indent (w, level);
  g_string_append_c (w->out, ']');
  return TRUE;
}

static gboolean
write_node (Writer *w, JsonNode *node, guint level, GError **error)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      return write_object (w, json_node_get_object (node), level, error);
    case JSON_NODE_ARRAY:
      return write_array (w, json_node_get_array (node), level, error);
    case JSON_NODE_VALUE:
      return write_value (w, node, error);
    case JSON_NODE_NULL:
    default:
      g_string_append (w->out, "null");
      return TRUE;
    }
}

char *
plx_json_to_text (JsonNode  *node,
                  gboolean   pretty,
                  GError   **error)
{
  Writer w = { g_string_new (NULL), g_string_new (NULL), pretty };
  gboolean ok = write_node (&w, node, 0, error);

  g_string_free (w.where, TRUE);
  if (!ok)
    {
      g_string_free (w.out, TRUE);
      return NULL;
    }
  return g_string_free (w.out, FALSE);
}

gboolean
plx_json_write_file (JsonNode   *node,
                     const char *path,
                     GError    **error)
{
  g_autofree char *text = plx_json_to_text (node, TRUE, error);

  if (text == NULL)
    {
      g_prefix_error (error, "%.200s: ", path);
      return FALSE;
    }
  return plx_output_write_file (path, text, -1, error);
}
