/* parallax-cli calibrate --nccl-tests FILE... --gpus-per-node N --nodes N
 * [--cluster PRESET|FILE] [--out FILE] [--json]: fits the measured link's efficiency
 * curve and latency to nccl-tests output (docs/calibration.md "From nccl-tests"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parallax/parallax.h"

#include "plx-cli-calibrate.h"
#include "plx-cli-util.h"

static gboolean
parse_count (const char *flag, const char *value, guint *out)
{
  char *end = NULL;
  guint64 v = g_ascii_strtoull (value, &end, 10);

  if (end == value || *end != '\0' || v == 0 || v > 100000)
    return FALSE;
  (void) flag;
  *out = (guint) v;
  return TRUE;
}

/* A built-in preset's JSON, or a cluster file's (which may name a preset). */
static JsonNode *
base_cluster_json (const char *name, GError **error)
{
  g_autoptr (JsonNode) node = NULL;

  if (strchr (name, '/') == NULL && !g_str_has_suffix (name, ".json") && !plx_input_is_stdin (name))
    return plx_presets_lookup (PLX_PRESET_CLUSTER, name, error);
  node = plx_json_parse_file (name, error);
  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, PLX_ERROR, PLX_ERROR_PARSE, "%s: a cluster file is a JSON object", name);
      return NULL;
    }
  return plx_presets_expand (PLX_PRESET_CLUSTER, node, name, "cluster", NULL, error);
}

int
plx_cli_calibrate_nccl (int argc, char **argv)
{
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_nccl_file_free);
  g_autoptr (PlxNcclFit) fit = NULL;
  g_autoptr (JsonNode) base = NULL;
  g_autoptr (GError) error = NULL;
  const char *cluster = "dgx-a100-80gb", *out = NULL;
  guint gpus_per_node = 0, nodes = 0;
  gboolean json = FALSE, with_uncertainty = FALSE;

  for (int i = 2; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--json"))
        json = TRUE;
      else if (g_str_equal (argv[i], "--with-uncertainty"))
        with_uncertainty = TRUE;
      else if (g_str_equal (argv[i], "--nccl-tests") || g_str_equal (argv[i], "--gpus-per-node") ||
               g_str_equal (argv[i], "--nodes") || g_str_equal (argv[i], "--cluster") || g_str_equal (argv[i], "--out"))
        {
          const char *flag = argv[i];
          if (i + 1 >= argc)
            return usage_error ("%s needs a value", flag);
          i++;
          if (g_str_equal (flag, "--nccl-tests"))
            {
              PlxNcclFile *f = plx_nccl_file_load (argv[i], &error);
              if (f == NULL)
                return user_error (error);
              g_ptr_array_add (files, f);
            }
          else if (g_str_equal (flag, "--gpus-per-node") && !parse_count (flag, argv[i], &gpus_per_node))
            return usage_error ("--gpus-per-node: \"%.40s\" is not a count from 1 to 100000", argv[i]);
          else if (g_str_equal (flag, "--nodes") && !parse_count (flag, argv[i], &nodes))
            return usage_error ("--nodes: \"%.40s\" is not a count from 1 to 100000", argv[i]);
          else if (g_str_equal (flag, "--cluster"))
            cluster = argv[i];
          else if (g_str_equal (flag, "--out"))
            out = argv[i];
        }
      else
        return usage_error ("calibrate --nccl-tests: unexpected \"%s\" (validation tables and --fit belong to the "
                            "other form of calibrate)", argv[i]);
    }
  if (gpus_per_node == 0 || nodes == 0)
    return usage_error ("calibrate --nccl-tests: --gpus-per-node N and --nodes N (the group measured) are required");

  base = base_cluster_json (cluster, &error);
  if (base == NULL)
    return user_error (error);
  fit = plx_nccl_fit (base, cluster, (PlxNcclFile *const *) files->pdata, files->len, gpus_per_node, nodes, &error);
  if (fit == NULL)
    return user_error (error);
  if (out != NULL)
    {
      g_autoptr (JsonGenerator) gen = json_generator_new ();
      g_autofree char *text = NULL;
      g_autoptr (JsonNode) cluster_out = with_uncertainty ? plx_nccl_fit_uncertain_cluster (fit)
                                                          : json_node_ref (fit->cluster);
      json_generator_set_pretty (gen, TRUE);
      json_generator_set_root (gen, cluster_out);
      text = json_generator_to_data (gen, NULL);
      /* g_file_set_contents writes a temporary file and renames it over. */
      if (!g_file_set_contents (out, text, -1, &error))
        {
          g_prefix_error (&error, "--out: ");
          return user_error (error);
        }
    }
  if (json)
    {
      g_autoptr (JsonNode) node = plx_nccl_fit_to_json (fit);
      print_json (node);
    }
  else
    {
      g_autofree char *text = plx_nccl_fit_to_text (fit);
      printf ("%s", text);
      if (out != NULL)
        printf ("Wrote %s\n", out);
    }
  return 0;
}
