/* parallax-cli calibrate --gemm FILE.csv [--membw FILE.csv] [--cluster PRESET|FILE]
 * [--out FILE] [--json]: fits the matmul and memory efficiency curves of a cluster to
 * the user's own sweeps and writes the cluster file with them. */
#include <stdio.h>
#include <string.h>

#include "parallax/parallax.h"

#include "plx-cli-calibrate-gemm.h"
#include "plx-cli-options.h"
#include "plx-cli-stdout.h"
#include "plx-cli-util.h"
#include "base/plx-json.h"
#include "calibrate/plx-sweep-fit.h"
#include "calibrate/plx-sweep.h"

static const char summary[] =
  "Fit the cluster's GEMM efficiency curves (per dtype) to a GEMM sweep and its\n"
  "memory-bandwidth curve to a bandwidth sweep, and write the cluster file with them.\n"
  "Each curve is eff(x) = e_max x / (x + x_half); prints the parameters with their\n"
  "standard errors, the residuals and the curve's points.";

static const char description[] =
  "--gemm's CSV: m, n, k, dtype, and time_s|time_ms|time_us or tflops (batch optional).\n"
  "--membw's CSV: bytes (read + written), and time_s|time_ms|time_us or GB/s.\n"
  "--cluster names the preset or cluster file whose peaks the sweeps are measured\n"
  "against and whose other values the written file keeps. --with-uncertainty writes\n"
  "e_max's relative standard error as calibration.matmul_scale / memory_scale\n"
  "{\"mean\": 1, \"sd\": ...} for simulate --samples.\n";

gboolean
plx_cli_calibrate_gemm_wanted (int argc, char **argv)
{
  for (int i = 2; i < argc; i++)
    if (g_str_equal (argv[i], "--gemm") || g_str_equal (argv[i], "--membw") || g_str_has_prefix (argv[i], "--gemm=") ||
        g_str_has_prefix (argv[i], "--membw="))
      return TRUE;
  return FALSE;
}

int
plx_cli_calibrate_gemm (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) cjson = NULL;
  g_autoptr (PlxCluster) cluster = NULL;
  g_autoptr (PlxGemmSweep) gemm = NULL;
  g_autoptr (PlxMembwSweep) membw = NULL;
  g_autoptr (GPtrArray) fits = NULL;
  g_autofree char *gemm_path = NULL, *membw_path = NULL, *cluster_arg = NULL, *out = NULL;
  const char *cluster_name = "dgx-a100-80gb";
  gboolean json = FALSE, with_uncertainty = FALSE;
  const GOptionEntry entries[] = {
    { "gemm", 0, 0, G_OPTION_ARG_FILENAME, &gemm_path, "the GEMM sweep (CSV)", "FILE.csv" },
    { "membw", 0, 0, G_OPTION_ARG_FILENAME, &membw_path, "the memory-bandwidth sweep (CSV)", "FILE.csv" },
    { "cluster", 0, 0, G_OPTION_ARG_FILENAME, &cluster_arg, "the cluster to fit (default dgx-a100-80gb)",
      "PRESET|FILE" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out, "write the cluster file with the fitted curves", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "print the fits as JSON", NULL },
    { "with-uncertainty", 0, 0, G_OPTION_ARG_NONE, &with_uncertainty,
      "also write e_max's relative standard error (below)", NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (PlxCliOptions) options = plx_cli_options_new ("calibrate", "--gemm FILE.csv [--membw FILE.csv]", summary,
                                                           description);
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
    return usage_error ("calibrate: \"%s\": validation tables and --gemm/--membw sweeps are separate runs",
                        positionals[0]);
  if (cluster_arg != NULL)
    cluster_name = cluster_arg;

  cjson = plx_cli_cluster_json (cluster_name, &error);
  if (cjson != NULL)
    cluster = plx_cluster_new_from_json (cjson, cluster_name, &error);
  if (cluster == NULL)
    return user_error (error);
  if (gemm_path != NULL && (gemm = plx_gemm_sweep_load (gemm_path, &error)) == NULL)
    return user_error (error);
  if (membw_path != NULL && (membw = plx_membw_sweep_load (membw_path, &error)) == NULL)
    return user_error (error);
  fits = plx_sweep_calibrate (cjson, out != NULL ? plx_cli_output_name (out) : cluster_name, gemm, membw, with_uncertainty, &error);
  if (fits == NULL)
    return user_error (error);
  if (out != NULL)
    {
      if (!plx_json_write_file (cjson, out, &error))
        {
          g_prefix_error (&error, "--out: ");
          return user_error (error);
        }
    }
  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      g_autoptr (JsonNode) root = NULL;
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "cluster");
      json_builder_add_string_value (b, cluster_name);
      json_builder_set_member_name (b, "fits");
      json_builder_begin_array (b);
      for (guint i = 0; i < fits->len; i++)
        json_builder_add_value (b, plx_sweep_fit_to_json (fits->pdata[i]));
      json_builder_end_array (b);
      if (out != NULL)
        {
          json_builder_set_member_name (b, "out");
          json_builder_add_string_value (b, plx_cli_output_name (out));
        }
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      print_json (root);
    }
  else
    {
      printf ("Sweeps fitted against %s (%s)\n\n", cluster_name, cluster->gpu_name);
      for (guint i = 0; i < fits->len; i++)
        {
          const PlxSweepFit *f = fits->pdata[i];
          g_autofree char *text = plx_sweep_fit_to_text (f, g_str_equal (f->name, "memory") ? "bytes" : "FLOPs");
          printf ("%s\n", text);
        }
      if (out != NULL)
        printf ("Wrote %s\n", plx_cli_shown (plx_cli_output_name (out)));
    }
  return 0;
}
