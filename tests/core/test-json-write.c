/* test-json-write.c: plx_json_to_text writes what JSON readers accept (issue 34:
 * json-glib 1.6 wrote 1e17 as `1e+17.0` and NaN as `nan.0`), laid out as json-glib's
 * generator lays it out, so existing output keeps its shape. */
#include <math.h>

#include "parallax/parallax.h"
#include "base/plx-json.h"

static JsonNode *
object_node (JsonObject *o)
{
  JsonNode *n = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (n, o);
  return n;
}

/* Doubles: integral ones keep ".0" unless printed with an exponent; every text reads
 * back to the same double (%.17g, as json-glib). */
static void
test_doubles (void)
{
  static const struct { double v; const char *text; } cases[] = {
    { 3.0, "3.0" },
    { -0.0, "-0.0" },
    { 1e17, "1e+17" },          /* json-glib: 1e+17.0 */
    { 1e308, "1e+308" },        /* json-glib: 1e+308.0 (a Kineto span) */
    { 1e16, "10000000000000000.0" },
    { 0.5, "0.5" },
    { 1e-7, "9.9999999999999995e-08" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (JsonNode) n = json_node_new (JSON_NODE_VALUE);
      g_autofree char *text = NULL;
      g_autoptr (JsonNode) back = NULL;
      g_autoptr (GError) error = NULL;

      json_node_set_double (n, cases[i].v);
      text = plx_json_to_text (n, TRUE, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (text, ==, cases[i].text);
      back = plx_json_parse_data (text, -1, "test", &error);
      g_assert_no_error (error);
      g_assert_cmpfloat (json_node_get_double (back), ==, cases[i].v);
    }
}

/* NaN and infinities have no JSON: refused, naming the key path. */
static void
test_non_finite (void)
{
  JsonObject *inner = json_object_new ();
  JsonObject *outer = json_object_new ();
  JsonArray *list = json_array_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  json_array_add_double_element (list, 1.0);
  json_array_add_double_element (list, NAN);
  json_object_set_array_member (inner, "busbw", list);
  json_object_set_object_member (outer, "fit", inner);
  root = object_node (outer);
  text = plx_json_to_text (root, TRUE, &error);
  g_assert_null (text);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_assert_cmpstr (error->message, ==, "fit.busbw[1]: NaN is not a number JSON can hold");
  g_clear_error (&error);

  json_array_remove_element (list, 1);
  json_array_add_double_element (list, -INFINITY);
  text = plx_json_to_text (root, FALSE, &error);
  g_assert_null (text);
  g_assert_cmpstr (error->message, ==, "fit.busbw[1]: an infinity is not a number JSON can hold");
}

/* The layout of json-glib's generator, pretty and compact, for a document without
 * empty objects (json-glib writes those as "{  }"; here "{}"). */
static void
test_layout_as_json_glib (void)
{
  static const char doc[] = "{\"a\": [1, [2, {\"b\": null}]], \"c\": {\"d\": true, \"e\": \"x\\\"\\\\\\n\\u0001\\u007f\"},"
                            " \"f\": 1.5, \"g\": [], \"h\": -7}";
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root = plx_json_parse_data (doc, -1, "test", &error);

  g_assert_no_error (error);
  for (guint pretty = 0; pretty <= 1; pretty++)
    {
      g_autofree char *ours = plx_json_to_text (root, pretty, &error);
      g_autofree char *theirs = json_to_string (root, pretty);
      g_assert_no_error (error);
      g_assert_cmpstr (ours, ==, theirs);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json-write/doubles", test_doubles);
  g_test_add_func ("/json-write/non-finite", test_non_finite);
  g_test_add_func ("/json-write/layout-as-json-glib", test_layout_as_json_glib);
  return g_test_run ();
}
