/* Efficiency curves: interpolation in log10(size), clamping, and input checks. */
#include <math.h>
#include <string.h>

#include "parallax/parallax.h"
#include "test-home.h"

static void
test_single_point (void)
{
  const double x[] = { 1e6 }, y[] = { 0.5 };
  g_autoptr (PlxCurve) c = plx_curve_new (x, y, 1, NULL);

  g_assert_cmpfloat (plx_curve_eval (c, 1.0), ==, 0.5);
  g_assert_cmpfloat (plx_curve_eval (c, 1e12), ==, 0.5);
}

static void
test_two_points_log_linear (void)
{
  /* Two points interpolate linearly in log10 x: at 1e4, halfway between 1e3 and
   * 1e5, the value is halfway between 0.2 and 0.6. */
  const double x[] = { 1e3, 1e5 }, y[] = { 0.2, 0.6 };
  g_autoptr (PlxCurve) c = plx_curve_new (x, y, 2, NULL);

  g_assert_cmpfloat_with_epsilon (plx_curve_eval (c, 1e4), 0.4, 1e-12);
  /* A quarter of the way in log space: 10^3.5. */
  g_assert_cmpfloat_with_epsilon (plx_curve_eval (c, 3162.2776601683795), 0.3, 1e-12);
  /* Outside the table the end values hold. */
  g_assert_cmpfloat (plx_curve_eval (c, 10.0), ==, 0.2);
  g_assert_cmpfloat (plx_curve_eval (c, 1e9), ==, 0.6);
  g_assert_cmpfloat (plx_curve_eval (c, 0.0), ==, 0.2);
}

static void
test_steffen_monotone (void)
{
  /* A knee: Steffen's spline passes through every point and never overshoots. */
  const double x[] = { 1e2, 1e3, 1e4, 1e5 }, y[] = { 0.1, 0.7, 0.75, 0.76 };
  g_autoptr (PlxCurve) c = plx_curve_new (x, y, 4, NULL);
  double prev = 0.0;

  for (guint i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (plx_curve_eval (c, x[i]), y[i], 1e-12);
  for (double lx = 2.0; lx <= 5.0; lx += 0.01)
    {
      double v = plx_curve_eval (c, pow (10.0, lx));
      g_assert_cmpfloat (v, >=, prev - 1e-15);
      g_assert_cmpfloat (v, <=, 0.76 + 1e-15);
      prev = v;
    }
}

static void
test_bad_points (void)
{
  const double x_dec[] = { 1e3, 1e2 }, y_ok[] = { 0.1, 0.2 };
  const double x_ok[] = { 1e2, 1e3 }, y_zero[] = { 0.0, 0.2 }, y_big[] = { 0.1, 1.5 };
  const double x_neg[] = { -1.0, 1e3 };
  g_autoptr (GError) error = NULL;

  g_assert_null (plx_curve_new (x_dec, y_ok, 2, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "does not increase"));
  g_clear_error (&error);

  g_assert_null (plx_curve_new (x_ok, y_zero, 2, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "efficiency 0"));
  g_clear_error (&error);

  g_assert_null (plx_curve_new (x_ok, y_big, 2, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "1.5"));
  g_clear_error (&error);

  g_assert_null (plx_curve_new (x_neg, y_ok, 2, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
  g_clear_error (&error);

  g_assert_null (plx_curve_new (x_ok, y_ok, 0, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/core/curve/single-point", test_single_point);
  g_test_add_func ("/core/curve/two-points-log-linear", test_two_points_log_linear);
  g_test_add_func ("/core/curve/steffen-monotone", test_steffen_monotone);
  g_test_add_func ("/core/curve/bad-points", test_bad_points);
  return g_test_run ();
}
