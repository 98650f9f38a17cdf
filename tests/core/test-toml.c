/* test-toml.c: the TOML subset reader (plx-toml.h) against the specification's rules
 * (toml.io/en/v1.0.0) and a real configuration, torchtitan's Llama 3 8B job config
 * (tests/data/import/llama3_8b.toml; SOURCES.md). */
#include <string.h>

#include "parallax/parallax.h"
#include "base/plx-json.h"
#include "base/plx-toml.h"

/* `toml` reads as the JSON `expected`. */
static void
assert_reads (const char *toml, const char *expected)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) got = plx_toml_parse (toml, "t.toml", &error);
  g_autoptr (JsonNode) want = plx_json_parse_data (expected, -1, "expected", NULL);

  g_assert_no_error (error);
  g_assert_nonnull (want);
  if (!json_node_equal (got, want))
    {
      g_autofree char *text = json_to_string (got, FALSE);
      g_error ("%s\nread as %s\nnot %s", toml, text, expected);
    }
}

/* `toml` is refused with a message starting `prefix` (file and line) and holding
 * `part`. */
static void
assert_refused (const char *toml, const char *prefix, const char *part)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) got = plx_toml_parse (toml, "t.toml", &error);

  g_assert_null (got);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_PARSE);
  if (!g_str_has_prefix (error->message, prefix) || strstr (error->message, part) == NULL)
    g_error ("%s: message \"%s\", wanted %s...%s", toml, error->message, prefix, part);
}

static void
test_values (void)
{
  assert_reads ("a = 1\nb = -2\nc = 1_000\nd = 0x1F\n", "{\"a\": 1, \"b\": -2, \"c\": 1000, \"d\": 31}");
  assert_reads ("a = 3e-4\nb = 1.5\nc = -0.25\nd = 1e8", "{\"a\": 3e-4, \"b\": 1.5, \"c\": -0.25, \"d\": 1e8}");
  assert_reads ("t = true\nf = false", "{\"t\": true, \"f\": false}");
  assert_reads ("s = \"a \\\"q\\\" \\u00e9\\n\"\nl = 'C:\\path'", "{\"s\": \"a \\\"q\\\" \\u00e9\\n\", \"l\": \"C:\\\\path\"}");
  assert_reads ("a = [1, 2, 3]\nb = [\"x\",\n  \"y\", # comment\n]\nc = []\nd = [[1], [2, 3]]",
                "{\"a\": [1, 2, 3], \"b\": [\"x\", \"y\"], \"c\": [], \"d\": [[1], [2, 3]]}");
  assert_reads ("p = { x = 1, y = \"two\" }", "{\"p\": {\"x\": 1, \"y\": \"two\"}}");
  assert_reads ("enable=false  # no spaces, a comment\n", "{\"enable\": false}");
}

static void
test_tables (void)
{
  assert_reads ("top = 1\n[a]\nx = 1\n[b.c]\ny = 2\n[a.d]\nz = 3\n",
                "{\"top\": 1, \"a\": {\"x\": 1, \"d\": {\"z\": 3}}, \"b\": {\"c\": {\"y\": 2}}}");
  assert_reads ("a.b.c = 1\n\"quoted key\" = 2\n[ t . u ]\nv = 3",
                "{\"a\": {\"b\": {\"c\": 1}}, \"quoted key\": 2, \"t\": {\"u\": {\"v\": 3}}}");
  assert_reads ("[[run]]\nn = 1\n[[run]]\nn = 2\n", "{\"run\": [{\"n\": 1}, {\"n\": 2}]}");
  assert_reads ("# only a comment\n\n", "{}");
}

static void
test_refused (void)
{
  assert_refused ("a = 1\nseq_len 8192\n", "t.toml:2: expected \"=\" after the key", "\"seq_len 8192\"");
  assert_refused ("a = \n", "t.toml:1: expected a value", "\"a =\"");
  assert_refused ("a = 1\na = 2\n", "t.toml:2: \"a\" is defined twice", "a = 2");
  assert_refused ("[x]\n[x]\n", "t.toml:2: the table [x] is defined twice", "[x]");
  assert_refused ("a = \"open\n", "t.toml:1: a string that does not close", "open");
  assert_refused ("a = \"\"\"multi\"\"\"", "t.toml:1: multi-line strings", "multi");
  assert_refused ("d = 1979-05-27\n", "t.toml:1: dates and times are not read", "1979");
  assert_refused ("n = 1x\n", "t.toml:1: 1x is not a number", "n = 1x");
  assert_refused ("n = 01\n", "t.toml:1: 01 is not a number", "n = 01");
  assert_refused ("n = 1__0\n", "t.toml:1: 1__0 is not a number", "1__0");
  assert_refused ("n = inf\n", "t.toml:1: inf is not a finite number", "inf");
  assert_refused ("n = 99999999999999999999\n", "t.toml:1: 99999999999999999999 is past", "9999");
  assert_refused ("a = 1 b = 2\n", "t.toml:1: text after the value", "a = 1 b = 2");
  assert_refused ("a = [1, 2\n", "t.toml:2: an array that never closes", "");
  assert_refused ("[a\n", "t.toml:1: expected \"]\"", "[a");
  assert_refused ("a = 1\n[a]\n", "t.toml:2: the table [a] is defined twice", "[a]");
  assert_refused ("s = \"\\q\"\n", "t.toml:1: \\q is not an escape", "s =");
}

/* torchtitan's Llama 3 8B config: dotted table headers ([quantize.linear.float8]),
 * "enable=false", comments after values. */
static void
test_torchtitan_file (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "data", "import", "llama3_8b.toml", NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = NULL;
  JsonObject *root, *training, *parallelism;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  node = plx_toml_parse (text, "llama3_8b.toml", &error);
  g_assert_no_error (error);
  root = json_node_get_object (node);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (root, "model"), "flavor"), ==, "8B");
  training = json_object_get_object_member (root, "training");
  g_assert_cmpint (json_object_get_int_member (training, "seq_len"), ==, 8192);
  g_assert_cmpint (json_object_get_int_member (training, "local_batch_size"), ==, 1);
  parallelism = json_object_get_object_member (root, "parallelism");
  g_assert_cmpint (json_object_get_int_member (parallelism, "data_parallel_shard_degree"), ==, -1);
  g_assert_false (json_object_get_boolean_member (json_object_get_object_member (root, "compile"), "enable"));
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (root, "activation_checkpoint"),
                                                  "selective_ac_option"), ==, "op");
  g_assert_true (json_object_has_member (json_object_get_object_member (json_object_get_object_member (
                                           json_object_get_object_member (root, "quantize"), "linear"), "float8"),
                                         "filter_fqns"));
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (root, "optimizer"), "lr"), ==, 3e-4);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/toml/values", test_values);
  g_test_add_func ("/toml/tables", test_tables);
  g_test_add_func ("/toml/refused", test_refused);
  g_test_add_func ("/toml/torchtitan-file", test_torchtitan_file);
  return g_test_run ();
}
