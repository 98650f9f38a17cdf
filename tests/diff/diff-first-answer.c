/* diff-first-answer.c: one path of the differential test (test-differential.c): a
 * fresh process that dlopen()s libparallax.so, as Python and plugin hosts load it, and
 * prints its answers for one scenario file, the first engine named being the process's
 * first simulate() (issue 34: the first call was the one that went wrong).
 *
 *   diff-first-answer LIBRARY FILE ENGINE...
 *
 * One line per engine: "ENGINE ok STEP_S MFU PEAK_BYTES" (doubles to 17 digits, which
 * read back to the same double), or "ENGINE refused MESSAGE". Linked with GLib only:
 * every Parallax symbol comes from the dlopen()ed library. */
#include <dlfcn.h>
#include <glib.h>
#include <stdio.h>

typedef void    *(*ScenarioNew) (const char *path, GError **error);
typedef void     (*Free) (void *p);
typedef void    *(*Simulate) (const void *scenario, const char *engine, GError **error);
typedef double   (*ReportDouble) (const void *report);
typedef guint64  (*ReportBytes) (const void *report);

int
main (int argc, char **argv)
{
  void *lib;
  ScenarioNew scenario_new;
  Free scenario_free, report_free;
  Simulate simulate;
  ReportDouble step_time, mfu;
  ReportBytes peak;
  void *scenario;
  GError *error = NULL;

  if (argc < 4)
    {
      fprintf (stderr, "usage: %s LIBRARY FILE ENGINE...\n", argv[0]);
      return 2;
    }
  lib = dlopen (argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    {
      fprintf (stderr, "%s\n", dlerror ());
      return 2;
    }
  scenario_new = (ScenarioNew) dlsym (lib, "plx_scenario_new_from_file");
  scenario_free = (Free) dlsym (lib, "plx_scenario_free");
  simulate = (Simulate) dlsym (lib, "plx_scenario_simulate_with_engine");
  report_free = (Free) dlsym (lib, "plx_report_free");
  step_time = (ReportDouble) dlsym (lib, "plx_report_get_step_time_s");
  mfu = (ReportDouble) dlsym (lib, "plx_report_get_mfu");
  peak = (ReportBytes) dlsym (lib, "plx_report_get_peak_memory_bytes");
  if (!scenario_new || !scenario_free || !simulate || !report_free || !step_time || !mfu || !peak)
    {
      fprintf (stderr, "%s lacks a symbol of the GI layer\n", argv[1]);
      return 2;
    }

  scenario = scenario_new (argv[2], &error);
  for (int i = 3; i < argc; i++)
    {
      void *report = scenario != NULL ? simulate (scenario, argv[i], &error) : NULL;

      if (report == NULL)
        {
          /* One line per answer: a message of several lines is joined. */
          g_strdelimit (error->message, "\n", ' ');
          printf ("%s refused %s\n", argv[i], error->message);
          if (scenario != NULL)
            g_clear_error (&error);
          continue;
        }
      printf ("%s ok %.17g %.17g %" G_GUINT64_FORMAT "\n", argv[i], step_time (report), mfu (report),
              peak (report));
      report_free (report);
    }
  g_clear_error (&error);
  if (scenario != NULL)
    scenario_free (scenario);
  /* The library stays loaded: GLib types it registered cannot be unloaded. */
  return 0;
}
