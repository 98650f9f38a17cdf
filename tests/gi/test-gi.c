/* test-gi.c: the bindable layer (plx-gi.h) from C, linked to the shared libparallax,
 * so that its ownership - boxed copies, the lists search returns, a scenario rebuilt
 * in place - runs under AddressSanitizer too (the Python test does not run there).
 * Built as a program outside the project is (tests/gi/meson.build): the installed
 * headers alone, opaque structs, only the symbols the library exports. */
#include <math.h>
#include <string.h>

#include <parallax/plx-gi.h>

/* The built-in default: GPT-3 175B on 8 nodes of 8 A100s, tp 8, pp 8, dp 1. */
static void
test_copy_is_independent (void)
{
  g_autoptr (PlxScenario) sc = plx_scenario_new_default ();
  g_autoptr (PlxScenario) copy = g_boxed_copy (PLX_TYPE_SCENARIO, sc);
  g_autoptr (GError) error = NULL;

  g_assert_true (plx_scenario_set_strategy_int (copy, "tp", 4, &error));
  g_assert_no_error (error);
  /* 64 GPUs / (tp 4 x pp 8 x cp 1) = 2 */
  g_assert_cmpuint (plx_strategy_get_dp (plx_scenario_get_strategy (copy)), ==, 2);
  g_assert_cmpuint (plx_strategy_get_tp (plx_scenario_get_strategy (sc)), ==, 8);
  g_assert_cmpuint (plx_strategy_get_dp (plx_scenario_get_strategy (sc)), ==, 1);
  g_assert_cmpstr (plx_scenario_get_name (copy), ==, plx_scenario_get_name (sc));
}

static void
test_refused_change_keeps_scenario (void)
{
  g_autoptr (PlxScenario) sc = plx_scenario_new_default ();
  g_autofree char *before = plx_scenario_to_string (sc);
  g_autofree char *after = NULL;
  g_autoptr (GError) error = NULL;

  /* dp given with tp is kept, not derived: 4 x 8 x 1 = 32 GPUs of the 64. */
  g_assert_false (plx_scenario_update_strategy (sc, "{\"tp\": 4, \"dp\": 1}", &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INCONSISTENT);
  g_assert_nonnull (strstr (error->message, "dp"));
  g_clear_error (&error);
  g_assert_false (plx_scenario_set_strategy_string (sc, "schedule", "2f2b", &error));
  g_assert_nonnull (strstr (error->message, "2f2b"));
  g_clear_error (&error);
  g_assert_false (plx_scenario_set_strategy_double (sc, "moe_capacity_factor", INFINITY, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_clear_error (&error);
  after = plx_scenario_to_string (sc);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpuint (plx_strategy_get_tp (plx_scenario_get_strategy (sc)), ==, 8);

  /* Both in one change: 4 x 8 x 2 = 64. */
  g_assert_true (plx_scenario_update_strategy (sc, "{\"tp\": 4, \"dp\": 2}", &error));
  g_assert_no_error (error);
}

static void
test_report_copy (void)
{
  g_autoptr (PlxScenario) sc = plx_scenario_new_default ();
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxReport) report = plx_scenario_simulate (sc, &error);
  g_autoptr (PlxReport) copy = NULL;
  guint64 sum = 0, bytes;

  g_assert_no_error (error);
  copy = g_boxed_copy (PLX_TYPE_REPORT, report);
  g_assert_cmpfloat (plx_report_get_step_time_s (copy), ==, plx_report_get_step_time_s (report));
  g_assert_cmpstr (plx_report_get_engine (copy), ==, "event");
  for (const char *const *c = plx_report_memory_categories (); *c != NULL; c++)
    {
      g_assert_true (plx_report_get_memory_bytes (copy, *c, &bytes, &error));
      sum += bytes;
    }
  /* The categories are the split of one number, the peak's. */
  g_assert_cmpuint (sum, ==, plx_report_get_peak_memory_bytes (report));
  g_assert_false (plx_report_get_time_s (copy, "idle", &(double) { 0 }, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
}

static void
test_search_list_owns_results (void)
{
  g_autoptr (PlxScenario) sc = plx_scenario_new_default ();
  g_autoptr (GError) error = NULL;
  GList *results = plx_scenario_search (sc, "pp=8,tp=8", 2, &error);
  PlxSearchResult *kept;

  g_assert_no_error (error);
  g_assert_cmpuint (g_list_length (results), ==, 2);
  for (GList *l = results; l != NULL; l = l->next)
    {
      const PlxStrategy *s = plx_search_result_get_strategy (l->data);
      g_assert_cmpuint (plx_strategy_get_pp (s), ==, 8);
      g_assert_cmpuint (plx_strategy_get_tp (s), ==, 8);
    }
  g_assert_cmpfloat (plx_search_result_get_step_time_s (results->data), <=,
                     plx_search_result_get_step_time_s (results->next->data));
  kept = g_boxed_copy (PLX_TYPE_SEARCH_RESULT, results->data);
  g_list_free_full (results, (GDestroyNotify) plx_search_result_free);
  g_assert_true (plx_scenario_apply_search_result (sc, kept, &error));
  g_assert_cmpuint (plx_strategy_get_tp (plx_scenario_get_strategy (sc)), ==, 8);
  plx_search_result_free (kept);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gi/scenario/copy", test_copy_is_independent);
  g_test_add_func ("/gi/scenario/refused-change", test_refused_change_keeps_scenario);
  g_test_add_func ("/gi/report/copy", test_report_copy);
  g_test_add_func ("/gi/search/list", test_search_list_owns_results);
  return g_test_run ();
}
