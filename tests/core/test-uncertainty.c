/* Uncertain cluster inputs: reading and refusing distributions, sampled quantiles and
 * out-of-memory probability against relations derived by hand, elasticities, Sobol
 * indices (docs/uncertainty.md). */
#include <math.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "parallax/parallax.h"

#include "test-home.h"
#include "test-util.h"
#include "calibrate/plx-sobol.h"
#include "calibrate/plx-uncertainty.h"
#include "hardware/plx-cluster-inputs.h"

/* The ideal cluster of test-util.h (efficiencies 1, no latency) with one key replaced. */
#define UQ_CLUSTER(peak, hbm, inter_bw) \
  "{ \"name\": \"ideal\", \"num_nodes\": 2, \"gpus_per_node\": 8," \
  "  \"gpu\": { \"name\": \"ideal\", \"peak_flops\": { \"bf16\": " peak " }," \
  "           \"hbm_bytes\": " hbm ", \"hbm_bw_Bps\": 1e12," \
  "           \"efficiency\": { \"matmul\": [[1, 1.0]], \"memory\": [[1, 1.0]], \"kernel_launch_s\": 0," \
  "                           \"attention\": 1.0 } }," \
  "  \"intra_node\": { \"bw_Bps\": 1e11, \"latency_s\": 0, \"efficiency\": [[1, 1.0]] }," \
  "  \"inter_node\": { \"bw_Bps\": " inter_bw ", \"latency_s\": 0, \"efficiency\": [[1, 1.0]] } }"

#define UQ_SCENARIO(cluster) \
  "{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": " cluster "," \
  "  \"strategy\": { \"seq_length\": 1024, \"global_batch_size\": 64, \"micro_batch_size\": 4," \
  "                \"tp\": 2, \"pp\": 2, \"dp\": 4 } }"

static PlxCluster *
cluster_from (const char *json, GError **error)
{
  g_autoptr (JsonNode) node = plx_json_parse_data (json, -1, "test", NULL);
  return plx_cluster_new_from_json (node, "test", error);
}

static void
test_read (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxCluster) c = cluster_from (UQ_CLUSTER ("{ \"mean\": 1e14, \"sd\": 1e13 }", "85899345920",
                                                       "{ \"min\": 1e10, \"max\": 3e10 }"), &error);
  const PlxUncertainInput *in;

  g_assert_no_error (error);
  g_assert_nonnull (c->uncertain);
  g_assert_cmpuint (c->uncertain->len, ==, 2);
  /* Every command sees the midpoint and the mean. */
  g_assert_cmpfloat (c->inter_node.bw_Bps, ==, 2e10);
  g_assert_cmpfloat (c->peak_flops[PLX_DTYPE_BF16], ==, 1e14);
  in = g_ptr_array_index (c->uncertain, 0);
  g_assert_cmpstr (plx_cluster_input_path (in->input), ==, "gpu.peak_flops.bf16");
  g_assert_cmpint (in->kind, ==, PLX_DIST_NORMAL);
  in = g_ptr_array_index (c->uncertain, 1);
  g_assert_cmpstr (plx_cluster_input_path (in->input), ==, "inter_node.bw_Bps");
  g_assert_cmpint (in->kind, ==, PLX_DIST_UNIFORM);
  /* Uniform inverse CDF: a + u (b - a). */
  g_assert_cmpfloat_with_epsilon (plx_uncertain_input_quantile (in, 0.25), 1.5e10, 1.0);
}

static void
test_refused (void)
{
  static const struct { const char *json, *message; } cases[] = {
    { UQ_CLUSTER ("1e14", "85899345920", "{ \"min\": 3e10, \"max\": 1e10 }"), "cluster.inter_node.bw_Bps: min 3e+10 is above max 1e+10" },
    { UQ_CLUSTER ("{ \"mean\": 1e14, \"sd\": -1 }", "85899345920", "1e10"), "cluster.gpu.peak_flops.bf16: sd -1 is negative" },
    { UQ_CLUSTER ("1e14", "85899345920", "{ \"min\": 1e10 }"), "cluster.inter_node.bw_Bps.max: (missing) is not a finite number" },
    { UQ_CLUSTER ("1e14", "85899345920", "{ \"min\": 1e10, \"sd\": 1 }"), "cluster.inter_node.bw_Bps: \"sd\" does not belong" },
    { UQ_CLUSTER ("{ \"min\": 0, \"max\": 1e14 }", "85899345920", "1e10"), "cluster.gpu.peak_flops.bf16: the range 0 .. 1e+14 is outside 1 .. 1e+18" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxCluster) c = cluster_from (cases[i].json, &error);
      g_assert_null (c);
      g_assert_nonnull (error);
      if (strstr (error->message, cases[i].message) == NULL)
        g_error ("case %u: \"%s\" does not contain \"%s\"", i, error->message, cases[i].message);
    }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (PlxCluster) c = cluster_from ("{ \"preset\": \"dgx-a100-80gb\", \"num_nodes\": { \"min\": 1, \"max\": 4 } }",
                                             &error);
    g_assert_null (c);
    g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
    g_assert_nonnull (strstr (error->message, "cluster.num_nodes: takes a whole number"));
  }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (PlxCluster) c = cluster_from ("{ \"preset\": \"dgx-a100-80gb\", \"gpu\": { \"tdp_w\": { \"min\": 300, \"max\": 400 } } }",
                                             &error);
    g_assert_null (c);
    g_assert_nonnull (strstr (error->message, "cluster.gpu.tdp_w: a range or distribution is refused"));
  }
}

/* The draws as docs/uncertainty.md specifies them: mt19937 seeded with the seed, one
 * gsl_rng_uniform_pos per uncertain input per draw, in the cluster file's order. */
static void
replay_uniform (guint64 seed, guint n, double a, double b, double *x)
{
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);

  gsl_rng_set (rng, (unsigned long) seed);
  for (guint j = 0; j < n; j++)
    x[j] = a + gsl_rng_uniform_pos (rng) * (b - a);
  gsl_rng_free (rng);
}

static double
step_at (const PlxScenario *sc, guint input, double value)
{
  g_autoptr (PlxCluster) c = plx_cluster_copy (sc->cluster);
  PlxReport r;

  plx_cluster_input_set (c, input, value);
  g_assert_true (plx_analytic_run (sc->model, c, sc->strategy, &r, NULL));
  return r.step_time_s;
}

static void
test_quantiles_monotone (void)
{
  /* Only the inter-node bandwidth varies, and the step falls as it rises: each
   * sampled step is f(x_j) with f decreasing, so the sorted steps are f of the
   * sorted x reversed. With n = 101 draws GSL's quantile at q sits exactly on the
   * order statistic q (n - 1) (5, 50, 95 of 0..100): step p5 = f(x_(95)),
   * p50 = f(x_(50)), p95 = f(x_(5)), equal to the last bit. */
  g_autoptr (PlxScenario) sc = test_scenario_from_string (
    UQ_SCENARIO (UQ_CLUSTER ("1e14", "85899345920", "{ \"min\": 5e9, \"max\": 5e10 }")));
  PlxUncertaintyResult r;
  double x[101];
  guint bw = (guint) plx_cluster_input_find ("inter_node.bw_Bps");

  g_assert_true (plx_uncertainty_sample (sc->model, sc->cluster, sc->strategy, 101, 7, &r, NULL));
  replay_uniform (7, 101, 5e9, 5e10, x);
  gsl_sort (x, 1, 101);
  g_assert_cmpfloat (r.step_p5_s, ==, step_at (sc, bw, x[95]));
  g_assert_cmpfloat (r.step_p50_s, ==, step_at (sc, bw, x[50]));
  g_assert_cmpfloat (r.step_p95_s, ==, step_at (sc, bw, x[5]));
  /* The spread is real: the slowest link is a tenth of the fastest. */
  g_assert_cmpfloat (r.step_p95_s, >, r.step_p5_s);
  g_assert_cmpuint (r.n_uncertain, ==, 1);
}

static void
test_seed (void)
{
  g_autoptr (PlxScenario) sc = test_scenario_from_string (
    UQ_SCENARIO (UQ_CLUSTER ("{ \"min\": 5e13, \"max\": 2e14 }", "85899345920", "{ \"min\": 5e9, \"max\": 5e10 }")));
  PlxUncertaintyResult a, b, c;

  g_assert_true (plx_uncertainty_sample (sc->model, sc->cluster, sc->strategy, 500, 1, &a, NULL));
  g_assert_true (plx_uncertainty_sample (sc->model, sc->cluster, sc->strategy, 500, 1, &b, NULL));
  g_assert_true (plx_uncertainty_sample (sc->model, sc->cluster, sc->strategy, 500, 2, &c, NULL));
  /* Field by field: the struct has padding. */
  g_assert_cmpfloat (a.step_p5_s, ==, b.step_p5_s);
  g_assert_cmpfloat (a.step_p50_s, ==, b.step_p50_s);
  g_assert_cmpfloat (a.step_p95_s, ==, b.step_p95_s);
  g_assert_cmpfloat (a.step_mean_s, ==, b.step_mean_s);
  g_assert_cmpfloat (a.mfu_p50, ==, b.mfu_p50);
  g_assert_cmpfloat (a.oom_probability, ==, b.oom_probability);
  g_assert_cmpfloat (a.step_p50_s, !=, c.step_p50_s);
}

static void
test_oom_probability (void)
{
  /* Peak memory P does not depend on the HBM size; with hbm uniform on [lo, hi] and
   * nothing reserved, a draw runs out iff hbm < P: probability (P - lo) / (hi - lo).
   * lo and hi are set from P so that this is 1/4. */
  g_autoptr (PlxScenario) probe = test_scenario_from_string (UQ_SCENARIO (UQ_CLUSTER ("1e14", "85899345920", "2e10")));
  PlxReport nominal = test_run (probe);
  double p = (double) nominal.peak_memory_bytes, width = 4e9, lo = p - 0.25 * width, hi = lo + width;
  g_autofree char *cluster = g_strdup_printf (UQ_CLUSTER ("1e14", "{ \"min\": %.0f, \"max\": %.0f }", "2e10"), lo, hi);
  g_autofree char *scenario = g_strdup_printf (UQ_SCENARIO ("%s"), cluster);
  g_autoptr (PlxScenario) sc = test_scenario_from_string (scenario);
  const guint n = 40000;
  g_autofree double *x = g_new (double, n);
  PlxUncertaintyResult r;
  guint short_draws = 0;

  g_assert_true (plx_uncertainty_sample (sc->model, sc->cluster, sc->strategy, n, 3, &r, NULL));
  /* Exactly the replayed draws below P (HBM rounded to whole bytes as the loader does). */
  replay_uniform (3, n, lo, hi, x);
  for (guint j = 0; j < n; j++)
    short_draws += round (x[j]) < p ? 1 : 0;
  g_assert_cmpfloat (r.oom_probability, ==, (double) short_draws / n);
  /* And near 1/4: the binomial's sd is sqrt(0.25 * 0.75 / 40000) = 0.0022; 4 sd. */
  g_assert_cmpfloat_with_epsilon (r.oom_probability, 0.25, 4 * 0.0022);
}

static void
test_no_uncertainty (void)
{
  g_autoptr (PlxScenario) sc = test_scenario_from_string (UQ_SCENARIO (UQ_CLUSTER ("1e14", "85899345920", "2e10")));
  PlxReport nominal = test_run (sc);
  PlxUncertaintyResult r;
  g_autoptr (GError) error = NULL;

  g_assert_true (plx_uncertainty_sample (sc->model, sc->cluster, sc->strategy, 10, 1, &r, NULL));
  g_assert_cmpuint (r.n_uncertain, ==, 0);
  g_assert_cmpfloat (r.step_p50_s, ==, nominal.step_time_s);
  g_assert_cmpfloat (r.step_sd_s, ==, 0.0);
  g_assert_false (plx_uncertainty_sample (sc->model, sc->cluster, sc->strategy, 0, 1, &r, &error));
  g_assert_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE);
}

static void
test_elasticity_homogeneous (void)
{
  /* On the ideal cluster every time is work / rate (efficiencies 1, latencies and
   * launch costs 0), so scaling every rate - peak FLOP/s, HBM and both links'
   * bandwidths - by l scales the step by 1/l: the step is homogeneous of degree -1
   * in them and, by Euler's theorem, their elasticities sum to -1. The central
   * difference of a sum of c_i / x_i is exact to O(h^2) = 1e-4. */
  g_autoptr (PlxScenario) sc = test_scenario_from_string (UQ_SCENARIO (UQ_CLUSTER ("1e14", "85899345920", "2e10")));
  g_autoptr (GArray) s = plx_sensitivity_run (sc->model, sc->cluster, sc->strategy, 0, 1, NULL);
  static const char *const rates[] = { "gpu.peak_flops.bf16", "gpu.hbm_bw_Bps", "intra_node.bw_Bps",
                                       "inter_node.bw_Bps" };
  double sum = 0.0;

  g_assert_nonnull (s);
  for (guint i = 0; i < s->len; i++)
    {
      const PlxSensitivity *e = &g_array_index (s, PlxSensitivity, i);
      if (g_strv_contains (rates, plx_cluster_input_path (e->input)))
        sum += e->step_elasticity;
      g_assert_true (isnan (e->sobol_first));
      if (i > 0)
        g_assert_cmpfloat (fabs (e->step_elasticity), <=, fabs (g_array_index (s, PlxSensitivity, i - 1).step_elasticity));
    }
  g_assert_cmpfloat_with_epsilon (sum, -1.0, 1e-3);
}

/* Ishigami and Homma (1990): sin x1 + a sin^2 x2 + b x3^4 sin x1 on [-pi, pi]^3. */
static double
ishigami_at (const double *u)
{
  double x1 = -G_PI + 2 * G_PI * u[0], x2 = -G_PI + 2 * G_PI * u[1], x3 = -G_PI + 2 * G_PI * u[2];
  return sin (x1) + 7.0 * sin (x2) * sin (x2) + 0.1 * pow (x3, 4) * sin (x1);
}

static void
ishigami (const double *u, double *y, gpointer data)
{
  y[0] = ishigami_at (u);
}

static void
additive (const double *u, double *y, gpointer data)
{
  y[0] = u[0] + 2.0 * u[1];
}

/* Both at once: output 0 Ishigami, output 1 the additive model of the first two. */
static void
both (const double *u, double *y, gpointer data)
{
  y[0] = ishigami_at (u);
  y[1] = u[0] + 2.0 * u[1];
}

/* The estimators against their exact values, with an allowance derived from their own
 * spread: R independent replicates (seeds 1 .. R) of n rows each; their mean's
 * standard error is the replicates' sd / sqrt(R), and the mean must lie within 4 of
 * them (Student's t with 15 degrees of freedom passes |t| > 4 with probability 0.001;
 * the seeds are fixed, so the outcome is too). The ratio estimators' bias is O(1/n),
 * far below that at n = 4096. */
static void
assert_sobol_replicates (guint k, PlxSobolModel model, const double *exact_first, const double *exact_total)
{
  enum { R = 16, N = 4096 };
  double first[R][3], total[R][3];

  g_assert_cmpuint (k, <=, 3);
  for (guint r = 0; r < R; r++)
    plx_sobol_indices (k, 1, N, r + 1, model, NULL, first[r], total[r]);
  for (guint i = 0; i < k; i++)
    for (guint which = 0; which < 2; which++)
      {
        double v[R], mean, se;
        for (guint r = 0; r < R; r++)
          v[r] = which == 0 ? first[r][i] : total[r][i];
        mean = gsl_stats_mean (v, 1, R);
        se = gsl_stats_sd_m (v, 1, R, mean) / sqrt (R);
        g_test_message ("input %u %s: %.4f +- %.4f (exact %.4f)", i, which == 0 ? "S1" : "ST", mean, se,
                        which == 0 ? exact_first[i] : exact_total[i]);
        g_assert_cmpfloat (fabs (mean - (which == 0 ? exact_first[i] : exact_total[i])), <=, 4.0 * se);
        /* And the allowance is a tight one: the judgement it replaced was 0.03. */
        g_assert_cmpfloat (4.0 * se, <, 0.03);
      }
}

static void
test_sobol_ishigami (void)
{
  /* With a = 7, b = 0.1 the analytic first-order indices are S1 = 0.3139,
   * S2 = 0.4424, S3 = 0, and the total effects ST1 = 0.5576, ST2 = 0.4424,
   * ST3 = 0.2437 (Ishigami and Homma 1990; Sobol' 2001). */
  static const double exact_first[] = { 0.3139, 0.4424, 0.0 }, exact_total[] = { 0.5576, 0.4424, 0.2437 };

  assert_sobol_replicates (3, ishigami, exact_first, exact_total);
}

static void
test_sobol_additive (void)
{
  /* Y = X1 + 2 X2, uniform: V = 1/12 + 4/12, S1 = 1/5, S2 = 4/5; no interaction, so
   * the total effects equal them. */
  static const double exact[] = { 0.2, 0.8 };

  assert_sobol_replicates (2, additive, exact, exact);
}

static void
test_sobol_outputs_together (void)
{
  /* Two outputs from one set of rows: each output's indices are bit for bit those of
   * a run of that output alone with the same seed. */
  double first[6], total[6], first_i[3], total_i[3], first_a[3], total_a[3];

  plx_sobol_indices (3, 2, 2048, 7, both, NULL, first, total);
  plx_sobol_indices (3, 1, 2048, 7, ishigami, NULL, first_i, total_i);
  plx_sobol_indices (3, 1, 2048, 7, additive, NULL, first_a, total_a);
  for (guint i = 0; i < 3; i++)
    {
      g_assert_cmpfloat (first[i], ==, first_i[i]);
      g_assert_cmpfloat (total[i], ==, total_i[i]);
      g_assert_cmpfloat (first[3 + i], ==, first_a[i]);
      g_assert_cmpfloat (total[3 + i], ==, total_a[i]);
    }
  /* The additive output does not read u[2]: f(A_B^3) = f(A) in every row, exactly 0. */
  g_assert_cmpfloat (first[5], ==, 0.0);
  g_assert_cmpfloat (total[5], ==, 0.0);
}

/* What plx_cluster_input_set makes of x (1 +- 1 %) for a whole-byte input. */
static double
bytes_at (double x, double factor)
{
  return round (x * factor);
}

static void
test_hbm_use_elasticity (void)
{
  /* HBM use u = P / (H - R): peak P depends on no cluster input, so by central
   * differences at x (1 +- h), with the byte counts rounded as the loader rounds them,
   *   e_H = [ln (H- - R) - ln (H+ - R)] / [ln (1 + h) - ln (1 - h)]   (about -H / (H - R)),
   *   e_R = [ln (H - R-) - ln (H - R+)] / [ln (1 + h) - ln (1 - h)]   (about  R / (H - R)),
   * and every other input's is 0, as is every input's peak-memory elasticity. */
  const double H = 85899345920.0, R = 4294967296.0, h = 0.01, dlnx = log1p (h) - log1p (-h);
  g_autoptr (PlxScenario) sc = test_scenario_from_string (
    UQ_SCENARIO (UQ_CLUSTER ("1e14", "85899345920, \"reserved_bytes\": 4294967296", "2e10")));
  g_autoptr (GArray) s = plx_sensitivity_run (sc->model, sc->cluster, sc->strategy, 0, 1, NULL);
  double e_h = (log (bytes_at (H, 1 - h) - R) - log (bytes_at (H, 1 + h) - R)) / dlnx;
  double e_r = (log (H - bytes_at (R, 1 - h)) - log (H - bytes_at (R, 1 + h))) / dlnx;
  guint seen = 0;

  g_assert_nonnull (s);
  for (guint i = 0; i < s->len; i++)
    {
      const PlxSensitivity *e = &g_array_index (s, PlxSensitivity, i);
      const char *path = plx_cluster_input_path (e->input);

      g_assert_cmpfloat (e->memory_elasticity, ==, 0.0);
      if (g_str_equal (path, "gpu.hbm_bytes"))
        {
          g_assert_cmpfloat_with_epsilon (e->hbm_use_elasticity, e_h, 1e-9);
          g_assert_cmpfloat_with_epsilon (e->hbm_use_elasticity, -H / (H - R), 1e-3);
          seen++;
        }
      else if (g_str_equal (path, "gpu.reserved_bytes"))
        {
          g_assert_cmpfloat_with_epsilon (e->hbm_use_elasticity, e_r, 1e-9);
          g_assert_cmpfloat_with_epsilon (e->hbm_use_elasticity, R / (H - R), 1e-3);
          seen++;
        }
      else
        g_assert_cmpfloat (e->hbm_use_elasticity, ==, 0.0);
    }
  g_assert_cmpuint (seen, ==, 2);
}

static void
test_sobol_hbm_use (void)
{
  /* HBM size and inter-node bandwidth both uniform. The step does not read the HBM
   * size and HBM use does not read the bandwidth, so in every row f(A_B^i) = f(A)
   * for those pairs and their indices are exactly 0; each output's other input
   * explains all its variance: its indices are 1 within 4 standard errors, taken
   * from 16 replicates (seeds 1 .. 16, 1024 rows each) as in assert_sobol_replicates. */
  enum { R = 16 };
  g_autoptr (PlxScenario) sc = test_scenario_from_string (
    UQ_SCENARIO (UQ_CLUSTER ("1e14", "{ \"min\": 60e9, \"max\": 90e9 }", "{ \"min\": 1e10, \"max\": 3e10 }")));
  double v[4][R];

  for (guint r = 0; r < R; r++)
    {
      g_autoptr (GArray) s = plx_sensitivity_run (sc->model, sc->cluster, sc->strategy, 1024, r + 1, NULL);
      guint seen = 0;

      g_assert_nonnull (s);
      for (guint i = 0; i < s->len; i++)
        {
          const PlxSensitivity *e = &g_array_index (s, PlxSensitivity, i);
          const char *path = plx_cluster_input_path (e->input);

          if (g_str_equal (path, "gpu.hbm_bytes"))
            {
              g_assert_cmpfloat (e->sobol_first, ==, 0.0);
              g_assert_cmpfloat (e->sobol_total, ==, 0.0);
              v[0][r] = e->sobol_first_hbm_use;
              v[1][r] = e->sobol_total_hbm_use;
              seen++;
            }
          else if (g_str_equal (path, "inter_node.bw_Bps"))
            {
              g_assert_cmpfloat (e->sobol_first_hbm_use, ==, 0.0);
              g_assert_cmpfloat (e->sobol_total_hbm_use, ==, 0.0);
              v[2][r] = e->sobol_first;
              v[3][r] = e->sobol_total;
              seen++;
            }
          else
            g_assert_true (isnan (e->sobol_first_hbm_use));
        }
      g_assert_cmpuint (seen, ==, 2);
    }
  for (guint q = 0; q < 4; q++)
    {
      double mean = gsl_stats_mean (v[q], 1, R), se = gsl_stats_sd_m (v[q], 1, R, mean) / sqrt (R);
      g_test_message ("index %u: %.4f +- %.4f (exact 1)", q, mean, se);
      g_assert_cmpfloat (fabs (mean - 1.0), <=, 4.0 * se);
    }
}

static void
test_attention_pytorch_follows (void)
{
  /* A file without attention_pytorch means "the same as attention": a draw of
   * attention sets both. One that gives it keeps it. */
  g_autoptr (PlxCluster) same = cluster_from (UQ_CLUSTER ("1e14", "85899345920", "2e10"), NULL);
  g_autofree char *own_json = g_strdup (UQ_CLUSTER ("1e14", "85899345920", "2e10"));
  g_autoptr (PlxCluster) own = NULL;
  gint attention = plx_cluster_input_find ("gpu.efficiency.attention");
  char *at = strstr (own_json, "\"attention\": 1.0");
  g_autoptr (GString) edited = g_string_new (NULL);

  g_assert_nonnull (at);
  g_string_append_len (edited, own_json, at - own_json);
  g_string_append (edited, "\"attention\": 1.0, \"attention_pytorch\": 0.7");
  g_string_append (edited, at + strlen ("\"attention\": 1.0"));
  own = cluster_from (edited->str, NULL);
  g_assert_nonnull (same);
  g_assert_nonnull (own);
  g_assert_cmpint (attention, >=, 0);
  plx_cluster_input_set (same, (guint) attention, 0.5);
  plx_cluster_input_set (own, (guint) attention, 0.5);
  g_assert_cmpfloat (same->attention_efficiency_pytorch, ==, 0.5);
  g_assert_cmpfloat (own->attention_efficiency, ==, 0.5);
  g_assert_cmpfloat (own->attention_efficiency_pytorch, ==, 0.7);
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/uncertainty/read", test_read);
  g_test_add_func ("/uncertainty/refused", test_refused);
  g_test_add_func ("/uncertainty/quantiles-monotone", test_quantiles_monotone);
  g_test_add_func ("/uncertainty/seed", test_seed);
  g_test_add_func ("/uncertainty/oom-probability", test_oom_probability);
  g_test_add_func ("/uncertainty/no-uncertainty", test_no_uncertainty);
  g_test_add_func ("/uncertainty/elasticity-homogeneous", test_elasticity_homogeneous);
  g_test_add_func ("/uncertainty/sobol-ishigami", test_sobol_ishigami);
  g_test_add_func ("/uncertainty/sobol-additive", test_sobol_additive);
  g_test_add_func ("/uncertainty/sobol-outputs-together", test_sobol_outputs_together);
  g_test_add_func ("/uncertainty/hbm-use-elasticity", test_hbm_use_elasticity);
  g_test_add_func ("/uncertainty/sobol-hbm-use", test_sobol_hbm_use);
  g_test_add_func ("/uncertainty/attention-pytorch-follows", test_attention_pytorch_follows);
  return g_test_run ();
}
