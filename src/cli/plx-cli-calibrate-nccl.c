/* parallax-cli calibrate --nccl-tests FILE... --gpus-per-node N --nodes N
 * [--cluster PRESET|FILE] [--out FILE] [--json]: fits the measured link's efficiency
 * curve and latency to nccl-tests output (docs/calibration.md "From nccl-tests"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parallax/parallax.h"

#include "plx-cli-calibrate.h"
#include "plx-cli-options.h"
#include "plx-cli-stdout.h"
#include "plx-cli-util.h"
#include "base/plx-json.h"
#include "calibrate/plx-nccl-tests.h"

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

int
plx_cli_calibrate_nccl (int argc, char **argv)
{
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_nccl_file_free);
  g_autoptr (PlxNcclFit) fit = NULL;
  g_autoptr (JsonNode) base = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *cluster_arg = NULL, *out = NULL, *gpus_text = NULL, *nodes_text = NULL;
  g_auto (GStrv) paths = NULL;
  const char *cluster = "dgx-a100-80gb";
  guint gpus_per_node = 0, nodes = 0;
  gboolean json = FALSE, with_uncertainty = FALSE;
  const GOptionEntry entries[] = {
    { "nccl-tests", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &paths, "an nccl-tests output file (repeatable)", "FILE" },
    { "gpus-per-node", 0, 0, G_OPTION_ARG_STRING, &gpus_text, "GPUs per node in the group measured (required)", "N" },
    { "nodes", 0, 0, G_OPTION_ARG_STRING, &nodes_text, "nodes in the group measured (required)", "N" },
    { "cluster", 0, 0, G_OPTION_ARG_FILENAME, &cluster_arg, "the cluster to fit (default dgx-a100-80gb)",
      "PRESET|FILE" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out, "write the fitted cluster to FILE", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "print the fit as JSON", NULL },
    { "with-uncertainty", 0, 0, G_OPTION_ARG_NONE, &with_uncertainty,
      "--out also writes the latency's standard error and the repeats' spread as distributions", NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (PlxCliOptions) options = plx_cli_options_new (
    "calibrate", "--nccl-tests FILE... --gpus-per-node N --nodes N",
    "Fit the link the files measured (one node: intra-node, several: inter-node) - its\n"
    "efficiency per size and its latency - on the cluster, print measured busbw,\n"
    "efficiency, model time and residual per size, and write the fitted cluster with\n"
    "--out (docs/calibration.md).",
    NULL);
  char **positionals;
  int status;

  plx_cli_options_add_entries (options, entries);
  status = plx_cli_options_parse (options, argc, argv);
  if (status != PLX_CLI_OPTIONS_CONTINUE)
    return status;
  if (!plx_cli_output_take ("--out", &out, &error))
    return usage_error ("calibrate: %s", error->message);
  positionals = plx_cli_options_positionals (options);
  if (positionals[0] != NULL)
    return usage_error ("calibrate --nccl-tests: unexpected \"%s\" (validation tables and --fit belong to the "
                        "other form of calibrate)", positionals[0]);
  if (gpus_text != NULL && !parse_count ("--gpus-per-node", gpus_text, &gpus_per_node))
    return usage_error ("--gpus-per-node: \"%.40s\" is not a count from 1 to 100000", gpus_text);
  if (nodes_text != NULL && !parse_count ("--nodes", nodes_text, &nodes))
    return usage_error ("--nodes: \"%.40s\" is not a count from 1 to 100000", nodes_text);
  if (cluster_arg != NULL)
    cluster = cluster_arg;
  for (guint i = 0; paths != NULL && paths[i] != NULL; i++)
    {
      PlxNcclFile *f = plx_nccl_file_load (paths[i], &error);
      if (f == NULL)
        return user_error (error);
      g_ptr_array_add (files, f);
    }
  if (gpus_per_node == 0 || nodes == 0)
    return usage_error ("calibrate --nccl-tests: --gpus-per-node N and --nodes N (the group measured) are required");

  base = plx_cli_cluster_json (cluster, &error);
  if (base == NULL)
    return user_error (error);
  fit = plx_nccl_fit (base, cluster, (PlxNcclFile *const *) files->pdata, files->len, gpus_per_node, nodes, &error);
  if (fit == NULL)
    return user_error (error);
  if (out != NULL)
    {
      g_autoptr (JsonNode) cluster_out = with_uncertainty ? plx_nccl_fit_uncertain_cluster (fit)
                                                          : json_node_ref (fit->cluster);
      if (!plx_json_write_file (cluster_out, out, &error))
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
        printf ("Wrote %s\n", plx_cli_shown (plx_cli_output_name (out)));
    }
  return 0;
}
