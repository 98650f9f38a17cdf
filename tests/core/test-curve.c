/* Efficiency curves: interpolation in log10(size), clamping, input checks, and the
 * fast path (binade table, per-thread memo) against the former evaluation. */
#include <float.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_interp.h>

#include "parallax/parallax.h"
#include "test-home.h"
#include "base/plx-presets.h"

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

/* The reference: plx_curve_eval as it was before the binade table (commit 68a9a3a),
 * rebuilt from the curve's points - GSL's Steffen (or, under three points, linear)
 * interpolant in log2 x read off as one cubic per interval, the interval found by a
 * scan from the first. The fast path must give the same double for every size. */
typedef struct
{
  gsize   n;
  double *x, *y, *log_x, *a, *b, *c;
} RefCurve;

static RefCurve *
ref_curve_new (const PlxCurve *curve)
{
  RefCurve *r = g_new0 (RefCurve, 1);
  gsize n = plx_curve_get_n_points (curve);

  r->n = n;
  r->x = g_new (double, n);
  r->y = g_new (double, n);
  r->log_x = g_new (double, n);
  r->a = g_new0 (double, n);
  r->b = g_new0 (double, n);
  r->c = g_new0 (double, n);
  for (gsize i = 0; i < n; i++)
    {
      plx_curve_get_point (curve, i, &r->x[i], &r->y[i]);
      r->log_x[i] = log2 (r->x[i]);
    }
  if (n >= 2)
    {
      const gsl_interp_type *type = n >= gsl_interp_type_min_size (gsl_interp_steffen) ? gsl_interp_steffen
                                                                                     : gsl_interp_linear;
      gsl_interp *interp = gsl_interp_alloc (type, n);

      g_assert_cmpint (gsl_interp_init (interp, r->log_x, r->y, n), ==, 0);
      for (gsize i = 0; i + 1 < n; i++)
        {
          double h = r->log_x[i + 1] - r->log_x[i];

          r->c[i] = gsl_interp_eval_deriv (interp, r->log_x, r->y, r->log_x[i], NULL);
          r->b[i] = 0.5 * gsl_interp_eval_deriv2 (interp, r->log_x, r->y, r->log_x[i], NULL);
          r->a[i] = (r->y[i + 1] - r->y[i] - h * (r->c[i] + h * r->b[i])) / (h * h * h);
        }
      gsl_interp_free (interp);
    }
  return r;
}

static void
ref_curve_free (RefCurve *r)
{
  g_free (r->x);
  g_free (r->y);
  g_free (r->log_x);
  g_free (r->a);
  g_free (r->b);
  g_free (r->c);
  g_free (r);
}

static double
ref_curve_eval (const RefCurve *r,
                double          x)
{
  double lx, dx;
  gsize i = 0;

  if (r->n == 1 || !(x > r->x[0]))
    return r->y[0];
  if (x >= r->x[r->n - 1])
    return r->y[r->n - 1];
  lx = log2 (x);
  while (i + 2 < r->n && lx >= r->log_x[i + 1])
    i++;
  dx = lx - r->log_x[i];
  return r->y[i] + dx * (r->c[i] + dx * (r->b[i] + dx * r->a[i]));
}

/* Same bits (so -0.0 is not 0.0), and never a NaN. */
static void
assert_same_double (const PlxCurve *curve,
                    const RefCurve *ref,
                    double          x)
{
  double want = ref_curve_eval (ref, x);

  /* The first lookup computes (unless an earlier one left it in the memo), the
   * second is the memo's. */
  for (guint again = 0; again < 2; again++)
    {
      double got = plx_curve_eval (curve, x);

      if (memcmp (&got, &want, sizeof got) != 0 || isnan (got))
        g_error ("size %.17g: plx_curve_eval %.17g, reference %.17g", x, got, want);
    }
}

/* Every measured point and its neighbouring doubles, every power of two over the
 * range and its neighbours, the ends and beyond, non-finite and non-positive sizes,
 * and 20000 log-uniform sizes from a fixed seed. Returns how many were compared. */
static guint
compare_with_reference (const PlxCurve *curve)
{
  RefCurve *ref = ref_curve_new (curve);
  double lo = ref->x[0], hi = ref->x[ref->n - 1];
  const double odd[] = { 0.0, -0.0, -1.0, -INFINITY, INFINITY, NAN, 1e-320, 5e-324, DBL_MIN, DBL_MAX };
  g_autoptr (GRand) rand = g_rand_new_with_seed (17);
  guint count = 0;

  for (guint i = 0; i < G_N_ELEMENTS (odd); i++, count++)
    assert_same_double (curve, ref, odd[i]);
  for (gsize i = 0; i < ref->n; i++)
    {
      double x = ref->x[i], below = x, above = x;

      assert_same_double (curve, ref, x);
      for (guint step = 0; step < 4; step++, count += 3)
        {
          below = nextafter (below, 0.0);
          above = nextafter (above, INFINITY);
          assert_same_double (curve, ref, below);
          assert_same_double (curve, ref, above);
          assert_same_double (curve, ref, 0.5 * (x + (i + 1 < ref->n ? ref->x[i + 1] : 2.0 * x)));
        }
    }
  for (int e = ilogb (lo) - 1; e <= ilogb (hi) + 1; e++, count += 3)
    {
      double p = ldexp (1.0, e);

      assert_same_double (curve, ref, p);
      assert_same_double (curve, ref, nextafter (p, 0.0));
      assert_same_double (curve, ref, nextafter (p, INFINITY));
    }
  for (guint i = 0; i < 20000; i++, count++)
    assert_same_double (curve, ref, exp2 (g_rand_double_range (rand, log2 (lo) - 1.0, log2 (hi) + 1.0)));
  ref_curve_free (ref);
  return count;
}

static void
test_fast_path_synthetic (void)
{
  /* Shapes the binade table must get right: knots several to a binade (1.1, 1.2,
   * 1.5 and 1.9 share [1, 2)), knots on exact powers of two, a subnormal first size,
   * a range over most of the exponents, two points (linear) and three. */
  const double dense_x[] = { 1.1, 1.2, 1.5, 1.9, 2.0, 4.0, 4.5, 1e3, 1.5e3, 1e6 };
  const double dense_y[] = { 0.1, 0.15, 0.3, 0.31, 0.4, 0.5, 0.52, 0.8, 0.81, 0.9 };
  const double pow2_x[] = { 1024.0, 2048.0, 4096.0, 65536.0, 1048576.0 };
  const double pow2_y[] = { 0.2, 0.4, 0.45, 0.7, 0.95 };
  const double wide_x[] = { 1e-310, 1e-200, 1e-10, 1.0, 1e100, 1e300 };
  const double wide_y[] = { 0.01, 0.2, 0.3, 0.5, 0.9, 1.0 };
  const double two_x[] = { 3e3, 7e9 }, two_y[] = { 0.3, 0.9 };
  const double three_x[] = { 1e2, 1e5, 1e8 }, three_y[] = { 0.2, 0.9, 0.7 };
  const struct { const double *x, *y; gsize n; } shapes[] = {
    { dense_x, dense_y, G_N_ELEMENTS (dense_x) }, { pow2_x, pow2_y, G_N_ELEMENTS (pow2_x) },
    { wide_x, wide_y, G_N_ELEMENTS (wide_x) }, { two_x, two_y, 2 }, { three_x, three_y, 3 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxCurve) c = plx_curve_new (shapes[i].x, shapes[i].y, shapes[i].n, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (compare_with_reference (c), >, 20000);
    }
}

static void
test_fast_path_presets (void)
{
  /* Every curve of every built-in cluster: the sizes the engines really look up. */
  g_auto (GStrv) names = plx_presets_list (PLX_PRESET_CLUSTER);
  guint curves = 0;

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxCluster) cluster = plx_cluster_new_preset (names[i], &error);
      const PlxCurve *each[7];

      g_assert_no_error (error);
      each[0] = cluster->matmul_efficiency;
      each[1] = cluster->memory_efficiency;
      each[2] = cluster->matmul_fp8_efficiency;
      each[3] = cluster->matmul_tf32_efficiency;
      each[4] = cluster->matmul_fp32_efficiency;
      each[5] = cluster->intra_node.efficiency;
      each[6] = cluster->inter_node.efficiency;
      for (guint j = 0; j < G_N_ELEMENTS (each); j++)
        if (each[j] != NULL)
          {
            compare_with_reference (each[j]);
            curves++;
          }
    }
  /* At least a matmul, a memory and two link curves per cluster. */
  g_assert_cmpuint (curves, >=, 4 * g_strv_length (names));
}

static void
test_memo_after_free (void)
{
  /* A curve freed and another made at once (malloc hands back the same block as a
   * rule) must not answer with the first one's remembered value: at 1e4, halfway in
   * log space, the first gives 0.4 and the second 0.6 (halfway between 0.2 and 1.0). */
  const double x[] = { 1e3, 1e5 }, y_first[] = { 0.2, 0.6 }, y_second[] = { 0.2, 1.0 };

  for (guint round = 0; round < 8; round++)
    {
      PlxCurve *first = plx_curve_new (x, y_first, 2, NULL);
      g_autoptr (PlxCurve) second = NULL;

      g_assert_cmpfloat_with_epsilon (plx_curve_eval (first, 1e4), 0.4, 1e-12);
      g_assert_cmpfloat_with_epsilon (plx_curve_eval (first, 1e4), 0.4, 1e-12);
      plx_curve_free (first);
      second = plx_curve_new (x, y_second, 2, NULL);
      g_assert_cmpfloat_with_epsilon (plx_curve_eval (second, 1e4), 0.6, 1e-12);
    }
}

typedef struct
{
  const PlxCurve *curves[2];
  const RefCurve *refs[2];
  guint           seed;
} MemoThreadData;

static gpointer
memo_thread (gpointer user_data)
{
  const MemoThreadData *d = user_data;
  g_autoptr (GRand) rand = g_rand_new_with_seed (d->seed);

  /* Few distinct sizes, so that most lookups come from this thread's memo, and two
   * curves that share their sizes, so that slots change hands between curves. */
  for (guint i = 0; i < 200000; i++)
    {
      guint which = g_rand_int_range (rand, 0, 2);
      double x = exp2 (10.0 + g_rand_int_range (rand, 0, 400) * 0.05);

      assert_same_double (d->curves[which], d->refs[which], x);
    }
  return NULL;
}

static void
test_memo_threads (void)
{
  /* Curves are shared read-only between threads (the search's pool): four threads
   * looking up the same two curves at once each get the reference's value. */
  const double x[] = { 1e3, 1e4, 1e5, 1e6, 1e7 };
  const double y_a[] = { 0.1, 0.4, 0.7, 0.8, 0.85 }, y_b[] = { 0.3, 0.35, 0.6, 0.9, 0.95 };
  g_autoptr (PlxCurve) a = plx_curve_new (x, y_a, 5, NULL);
  g_autoptr (PlxCurve) b = plx_curve_new (x, y_b, 5, NULL);
  RefCurve *ref_a = ref_curve_new (a), *ref_b = ref_curve_new (b);
  MemoThreadData data[4];
  GThread *threads[4];

  for (guint t = 0; t < 4; t++)
    {
      data[t] = (MemoThreadData) { { a, b }, { ref_a, ref_b }, t + 1 };
      threads[t] = g_thread_new ("curve-memo", memo_thread, &data[t]);
    }
  for (guint t = 0; t < 4; t++)
    g_thread_join (threads[t]);
  ref_curve_free (ref_a);
  ref_curve_free (ref_b);
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/core/curve/single-point", test_single_point);
  g_test_add_func ("/core/curve/two-points-log-linear", test_two_points_log_linear);
  g_test_add_func ("/core/curve/steffen-monotone", test_steffen_monotone);
  g_test_add_func ("/core/curve/bad-points", test_bad_points);
  g_test_add_func ("/core/curve/fast-path-synthetic", test_fast_path_synthetic);
  g_test_add_func ("/core/curve/fast-path-presets", test_fast_path_presets);
  g_test_add_func ("/core/curve/memo-after-free", test_memo_after_free);
  g_test_add_func ("/core/curve/memo-threads", test_memo_threads);
  return g_test_run ();
}
