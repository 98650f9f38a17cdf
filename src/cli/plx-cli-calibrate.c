/* parallax-cli calibrate TABLE.json... --cluster PRESET [--fit LIST] [--out FILE] [--json]:
 * fits the preset's global parameters to the tables' runs on it, prints the fit and
 * the leave-one-source-out error, and writes the calibrated cluster file. */
#include <stdio.h>

#include "parallax/parallax.h"

#include "plx-cli-calibrate.h"
#include "plx-cli-calibrate-gemm.h"
#include "plx-cli-calibrate-kineto.h"
#include "plx-cli-util.h"

static const char help[] =
  "Usage: parallax-cli calibrate TABLE.json... --cluster PRESET [--fit LIST] [--out FILE] [--json]\n"
  "       parallax-cli calibrate --nccl-tests FILE... --gpus-per-node N --nodes N\n"
  "                              [--cluster PRESET|FILE] [--out FILE] [--json] [--with-uncertainty]\n\n"
  "Fit a few global parameters of a GPU type to the published runs made on it: the\n"
  "cases of the tables whose scenario names cluster preset PRESET. Prints each\n"
  "parameter with its standard error, the mean error per source before and after,\n"
  "and each source's error when the fit leaves it out.\n\n"
  "  --cluster PRESET   the built-in cluster preset to calibrate (required)\n"
  "  --fit LIST         parameters to fit, comma-separated (default all):\n"
  "                     matmul, memory, network, overhead\n"
  "  --out FILE         write the preset with the fitted \"calibration\" to FILE\n"
  "  --json             print the fit as JSON\n\n"
  "With --nccl-tests: fit the link the files measured (one node: intra-node, several:\n"
  "inter-node) - its efficiency per size and its latency - on the cluster (default\n"
  "dgx-a100-80gb), print measured busbw, efficiency, model time and residual per size,\n"
  "and write the fitted cluster with --out (docs/calibration.md); --with-uncertainty\n"
  "writes the latency's standard error and the repeats' spread as distributions.\n"
  "parallax-cli calibrate --kineto TRACE.json ...: a PyTorch profiler trace instead\n"
  "(parallax-cli calibrate --kineto - --help).\n"
  "With --gemm FILE.csv or --membw FILE.csv: fits efficiency curves to sweeps instead\n"
  "(parallax-cli calibrate --gemm x --help).\n";

static gboolean
write_cluster (const PlxCalibration *cal, const char *path, GError **error)
{
  g_autoptr (JsonNode) cluster = plx_calibration_cluster_json (cal, error);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autofree char *text = NULL;

  if (cluster == NULL)
    return FALSE;
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, cluster);
  text = json_generator_to_data (gen, NULL);
  /* Written to a temporary file and renamed over: never half a file. */
  if (!g_file_set_contents (path, text, -1, error))
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
  const char *preset = NULL, *out = NULL;
  gboolean json = FALSE;

  {
    /* Measurements of one kind a run; each writes a cluster the next can start from
     * (--out of one as --cluster of the other). */
    gboolean nccl = FALSE, kineto = FALSE, sweep = plx_cli_calibrate_gemm_wanted (argc, argv);

    for (int i = 2; i < argc; i++)
      {
        nccl |= g_str_equal (argv[i], "--nccl-tests");
        kineto |= g_str_equal (argv[i], "--kineto");
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
  for (int i = 2; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--help") || g_str_equal (argv[i], "-h"))
        {
          printf ("%s", help);
          return 0;
        }
      else if (g_str_equal (argv[i], "--json"))
        json = TRUE;
      else if (g_str_equal (argv[i], "--cluster") || g_str_equal (argv[i], "--out") ||
               g_str_equal (argv[i], "--fit"))
        {
          if (i + 1 >= argc)
            return usage_error ("%s needs a value", argv[i]);
          if (g_str_equal (argv[i], "--cluster"))
            preset = argv[++i];
          else if (g_str_equal (argv[i], "--out"))
            out = argv[++i];
          else if (!plx_cal_params_parse (argv[++i], fit, &error))
            return usage_error ("%s", error->message);
        }
      else if (argv[i][0] == '-' && argv[i][1] != '\0')
        return usage_error ("calibrate: unknown option \"%s\"", argv[i]);
      else
        {
          PlxValidationTable *t = plx_validation_table_load (argv[i], &error);
          if (t == NULL)
            return user_error (error);
          g_ptr_array_add (tables, t);
        }
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
        printf ("Wrote %s\n", out);
    }
  return 0;
}
