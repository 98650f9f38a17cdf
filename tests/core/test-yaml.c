/* test-yaml.c: the YAML subset reader (plx-yaml.h) against YAML 1.2's block and flow
 * forms and a real recipe, NeMo-Framework-Launcher's GPT-3 5B training config
 * (tests/data/import/gpt3_5b.yaml; SOURCES.md). */
#include <string.h>

#include "parallax/parallax.h"
#include "base/plx-json.h"
#include "base/plx-yaml.h"

static void
assert_reads (const char *yaml, const char *expected)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) got = plx_yaml_parse (yaml, "r.yaml", &error);
  g_autoptr (JsonNode) want = plx_json_parse_data (expected, -1, "expected", NULL);

  g_assert_no_error (error);
  g_assert_nonnull (want);
  if (!json_node_equal (got, want))
    {
      g_autofree char *text = json_to_string (got, FALSE);
      g_error ("%s\nread as %s\nnot %s", yaml, text, expected);
    }
}

static void
assert_refused (const char *yaml, const char *prefix, const char *part)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) got = plx_yaml_parse (yaml, "r.yaml", &error);

  g_assert_null (got);
  g_assert_error (error, PLX_ERROR, PLX_ERROR_PARSE);
  if (!g_str_has_prefix (error->message, prefix) || strstr (error->message, part) == NULL)
    g_error ("%s: message \"%s\", wanted %s...%s", yaml, error->message, prefix, part);
}

static void
test_scalars (void)
{
  assert_reads ("a: 1\nb: -2\nc: 1.5\nd: 1e-5\ne: .0333\nf: 1.6e-4",
                "{\"a\": 1, \"b\": -2, \"c\": 1.5, \"d\": 1e-5, \"e\": 0.0333, \"f\": 1.6e-4}");
  assert_reads ("t: True\nf: false\nn: null\nm: ~\ne:", "{\"t\": true, \"f\": false, \"n\": null, \"m\": null, \"e\": null}");
  assert_reads ("s: 'it''s'\nd: \"a \\\"b\\\" \\u00e9\"\np: plain text here\nq: '#not a comment'",
                "{\"s\": \"it's\", \"d\": \"a \\\"b\\\" \\u00e9\", \"p\": \"plain text here\", \"q\": \"#not a comment\"}");
  assert_reads ("i: ${multiply:4, ${.h}}\nt: \"6-00:00:00\"\nu: 05:23:30:00",
                "{\"i\": \"${multiply:4, ${.h}}\", \"t\": \"6-00:00:00\", \"u\": \"05:23:30:00\"}");
  assert_reads ("a: 1 # comment\nb: x#y", "{\"a\": 1, \"b\": \"x#y\"}");
}

static void
test_blocks (void)
{
  assert_reads ("model:\n  a: 1\n  sub:\n    b: 2\n  c: 3\nother: 4",
                "{\"model\": {\"a\": 1, \"sub\": {\"b\": 2}, \"c\": 3}, \"other\": 4}");
  /* A sequence in its key's column, and indented. */
  assert_reads ("betas:\n- 0.9\n- 0.95\nnext: 1", "{\"betas\": [0.9, 0.95], \"next\": 1}");
  assert_reads ("betas:\n    - 0.9\n    - 0.95\n", "{\"betas\": [0.9, 0.95]}");
  assert_reads ("defaults:\n  - _self_\n  - optional x@y.z:\n  - name: a\n    value: 2\nh: 1",
                "{\"defaults\": [\"_self_\", {\"optional x@y.z\": null}, {\"name\": \"a\", \"value\": 2}], \"h\": 1}");
  assert_reads ("- - 1\n  - 2\n- 3", "[[1, 2], 3]");
  assert_reads ("trace: [nvtx,cuda]\nranks: [0]\nm: {a: 1, b: [x, 'y z']}\ne: []\nf: {}",
                "{\"trace\": [\"nvtx\", \"cuda\"], \"ranks\": [0], \"m\": {\"a\": 1, \"b\": [\"x\", \"y z\"]}, "
                "\"e\": [], \"f\": {}}");
  assert_reads ("---\n# c\na: 1\n", "{\"a\": 1}");
  assert_reads ("\n# nothing\n", "null");
}

static void
test_refused (void)
{
  assert_refused ("trainer:\n  num_nodes: 2\n  devices 8\n", "r.yaml:3: expected \"key: value\"", "\"devices 8\"");
  assert_refused ("a: 1\n   b: 2\n", "r.yaml:2: indented more than the block", "b: 2");
  assert_refused ("a:\n  b: 1\n c: 2\n", "r.yaml:3: indented more than the block it follows (1 columns, not 0)",
                  "c: 2");
  assert_refused ("  a: 1\nb: 2\n", "r.yaml:2: indented less than the document's first line", "b: 2");
  assert_refused ("a: 1\na: 2\n", "r.yaml:2: the key \"a\" is given twice", "a: 2");
  assert_refused ("a:\n  - 1\n  b: 2\n", "r.yaml:3: a mapping entry among sequence entries", "b: 2");
  assert_refused ("a: 1\n- 2\n", "r.yaml:2: a sequence entry among mapping entries", "- 2");
  assert_refused ("a: |\n  text\n", "r.yaml:1: block scalars (|) are not read", "a: |");
  assert_refused ("a: &x 1\n", "r.yaml:1: anchors are not read", "a: &x 1");
  assert_refused ("a: *x\n", "r.yaml:1: aliases are not read", "a: *x");
  assert_refused ("a: [1, 2\n", "r.yaml:1: a flow collection ([...]) that does not close", "[1, 2");
  assert_refused ("a: 'open\n", "r.yaml:1: a quoted string that does not close", "open");
  assert_refused ("a: 1\n---\nb: 2\n", "r.yaml:2: several documents", "---");
  assert_refused ("a:\n\tb: 1\n", "r.yaml:2: a tab in the indentation", "b: 1");
  assert_refused ("a: b: c\n", "r.yaml:1: a mapping cannot start after a key", "a: b: c");
}

/* The launcher's GPT-3 5B config: the values the importer reads, interpolations left
 * as written. */
static void
test_nemo_file (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("G_TEST_SRCDIR"), "data", "import", "gpt3_5b.yaml", NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = NULL;
  JsonObject *root, *model, *optim;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  node = plx_yaml_parse (text, "gpt3_5b.yaml", &error);
  g_assert_no_error (error);
  root = json_node_get_object (node);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (root, "trainer"), "num_nodes"), ==, 16);
  model = json_object_get_object_member (root, "model");
  g_assert_cmpint (json_object_get_int_member (model, "global_batch_size"), ==, 2048);
  g_assert_cmpstr (json_object_get_string_member (model, "ffn_hidden_size"), ==, "${multiply:4, ${.hidden_size}}");
  g_assert_true (json_node_is_null (json_object_get_member (model, "activations_checkpoint_granularity")));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_object_get_object_member (model, "data"),
                                                                          "data_prefix")), ==, 60);
  optim = json_object_get_object_member (model, "optim");
  g_assert_cmpfloat (json_array_get_double_element (json_object_get_array_member (optim, "betas"), 1), ==, 0.95);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (model, "tokenizer"), "type"), ==,
                   "GPT2BPETokenizer");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/yaml/scalars", test_scalars);
  g_test_add_func ("/yaml/blocks", test_blocks);
  g_test_add_func ("/yaml/refused", test_refused);
  g_test_add_func ("/yaml/nemo-file", test_nemo_file);
  return g_test_run ();
}
