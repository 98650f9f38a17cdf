/* parallax-cli calibrate TABLE.json... --cluster PRESET [--fit LIST] [--out FILE] [--json]:
 * fits the preset's global parameters to the tables' runs on it, prints the fit and
 * the leave-one-source-out error, and writes the calibrated cluster file. */
#include <stdio.h>

#include "parallax/parallax.h"

#include "plx-cli-calibrate.h"
#include "plx-cli-calibrate-gemm.h"
#include "plx-cli-calibrate-kineto.h"
#include "plx-cli-options.h"
#include "plx-cli-stdout.h"
#include "plx-cli-util.h"
#include "base/plx-json.h"
#include "base/plx-presets.h"

/* What the help says beyond the flag list (plx_cli_options_new). */
static const char summary[] =
  "Fit a few global parameters of a GPU type to the published runs made on it: the\n"
  "cases of the tables whose scenario names cluster preset PRESET. Prints each\n"
  "parameter with its standard error, the mean error per source before and after,\n"
  "and each source's error when the fit leaves it out.";

static const char description[] =
  "--fit takes a comma-separated list of matmul, memory, network, overhead.\n"
  "\n"
  "  parallax-cli calibrate --nccl-tests FILE... --gpus-per-node N --nodes N\n"
  "                         [--cluster PRESET|FILE] [--out FILE] [--json] [--with-uncertainty]\n"
  "fits the link the files measured (one node: intra-node, several: inter-node) - its\n"
  "efficiency per size and its latency - on the cluster (default dgx-a100-80gb), prints\n"
  "measured busbw, efficiency, model time and residual per size, and writes the fitted\n"
  "cluster with --out (docs/calibration.md); --with-uncertainty writes the latency's\n"
  "standard error and the repeats' spread as distributions.\n"
  "parallax-cli calibrate --kineto TRACE.json ...: a PyTorch profiler trace instead\n"
  "(parallax-cli calibrate --kineto - --help).\n"
  "With --gemm FILE.csv or --membw FILE.csv: fits efficiency curves to sweeps instead\n"
  "(parallax-cli calibrate --gemm x --help).\n";

static gboolean
write_cluster (const PlxCalibration *cal, const char *path, GError **error)
{
  g_autoptr (JsonNode) cluster = plx_calibration_cluster_json (cal, error);

  if (cluster == NULL)
    return FALSE;
  /* Never half a file, numbers a cluster file can be read back with. */
  if (!plx_json_write_file (cluster, path, error))
    {
      g_prefix_error (error, "--out: ");
      return FALSE;
    }
  return TRUE;
}

int
plx_cli_calibrate (int argc, char **argv)
{
  g_autoptr (GPtrArray) tables = g_ptr_array_new_with_free_func ((GDestroyNotify) plx_validation_table_free);
  g_autoptr (PlxCalibration) cal = NULL;
  g_autoptr (GError) error = NULL;
  gboolean fit[PLX_N_CAL] = { TRUE, TRUE, TRUE, TRUE };
  g_autofree char *preset = NULL, *out = NULL, *fit_text = NULL;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "cluster", 0, 0, G_OPTION_ARG_STRING, &preset, "the built-in cluster preset to calibrate (required)", "PRESET" },
    { "fit", 0, 0, G_OPTION_ARG_STRING, &fit_text, "parameters to fit, comma-separated (default all)", "LIST" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out, "write the preset with the fitted \"calibration\" to FILE", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "print the fit as JSON", NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (PlxCliOptions) options = plx_cli_options_new ("calibrate", "TABLE.json... --cluster PRESET", summary,
                                                           description);
  char **paths;
  int status;

  plx_cli_options_add_entries (options, entries);
  {
    /* Measurements of one kind a run; each writes a cluster the next can start from
     * (--out of one as --cluster of the other). */
    gboolean nccl = FALSE, kineto = FALSE, sweep = plx_cli_calibrate_gemm_wanted (argc, argv);

    for (int i = 2; i < argc; i++)
      {
        nccl |= g_str_equal (argv[i], "--nccl-tests") || g_str_has_prefix (argv[i], "--nccl-tests=");
        kineto |= g_str_equal (argv[i], "--kineto") || g_str_has_prefix (argv[i], "--kineto=");
      }
    if (nccl + kineto + sweep > 1)
      return usage_error ("calibrate: one kind of measurement a run (--nccl-tests, --kineto, or --gemm/--membw); "
                          "run one with --out FILE, then the next with --cluster FILE");
    if (nccl)
      return plx_cli_calibrate_nccl (argc, argv);
    if (kineto)
      return plx_cli_calibrate_kineto (argc, argv);
    if (sweep)
      return plx_cli_calibrate_gemm (argc, argv);
  }
  status = plx_cli_options_parse (options, argc, argv);
  if (status != PLX_CLI_OPTIONS_CONTINUE)
    return status;
  if (!plx_cli_output_take ("--out", &out, &error))
    return usage_error ("calibrate: %s", error->message);
  if (fit_text != NULL && !plx_cal_params_parse (fit_text, fit, &error))
    return usage_error ("%s", error->message);
  paths = plx_cli_options_positionals (options);
  for (guint i = 0; paths[i] != NULL; i++)
    {
      PlxValidationTable *t = plx_validation_table_load (paths[i], &error);
      if (t == NULL)
        return user_error (error);
      g_ptr_array_add (tables, t);
    }
  if (tables->len == 0)
    return usage_error ("calibrate: no table given");
  if (preset == NULL)
    return usage_error ("calibrate: --cluster PRESET is required");
  if (!plx_presets_is_builtin (PLX_PRESET_CLUSTER, preset))
    {
      g_set_error (&error, PLX_ERROR, PLX_ERROR_NOT_FOUND, "--cluster: \"%.60s\" is not a built-in cluster preset",
                   preset);
      return user_error (error);
    }

  cal = plx_calibrate ((PlxValidationTable *const *) tables->pdata, tables->len, preset, fit, &error);
  if (cal == NULL)
    return user_error (error);
  if (out != NULL && !write_cluster (cal, out, &error))
    return user_error (error);
  if (json)
    {
      g_autoptr (JsonNode) node = plx_calibration_to_json (cal);
      print_json (node);
    }
  else
    {
      g_autofree char *text = plx_calibration_to_text (cal);
      printf ("%s", text);
      if (out != NULL)
        printf ("Wrote %s\n", plx_cli_shown (plx_cli_output_name (out)));
    }
  return 0;
}
