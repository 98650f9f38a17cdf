/* Model builders: parameter counts against the published ones, FLOPs per step
 * against Narayanan et al. 2021 eq. 3 and Korthikanti et al. 2022 §6. */
#include <math.h>

#include "parallax/parallax.h"
#include "test-home.h"

#include "test-util.h"

typedef struct
{
  const char *preset;
  double      published;
  gboolean    exact;    /* the published count is the exact tensor-size sum */
} ParamCase;

/* Exact counts: the sums of the released checkpoints' tensor sizes (Hugging Face
 * model cards / safetensors index of each model). Rounded counts: the papers. */
static const ParamCase param_cases[] = {
  { "gpt2", 124439808, TRUE },
  { "gpt2-medium", 354823168, TRUE },
  { "gpt2-large", 774030080, TRUE },
  { "gpt2-xl", 1557611200, TRUE },
  { "gpt3-175b", 175.0e9, FALSE },      /* Brown et al. 2020, Table 2.1 */
  { "megatron-22b", 22e9, FALSE },      /* Korthikanti et al. 2022, Table 3 */
  { "megatron-530b", 530e9, FALSE },    /* Korthikanti et al. 2022, Table 3 */
  { "megatron-1t", 1.0e12, FALSE },     /* Narayanan et al. 2021, Table 1: 1008B */
  { "llama-2-7b", 6738415616, TRUE },
  { "llama-2-13b", 13015864320, TRUE },
  { "llama-2-70b", 68976648192, TRUE },
  { "llama-3-8b", 8030261248, TRUE },
  { "llama-3-70b", 70553706496, TRUE },
  { "llama-3.1-405b", 405853388800, TRUE },
  { "mixtral-8x7b", 46702792704, TRUE },
  { "deepseek-v3", 671026419200, TRUE }, /* by hand: test-loaders /loaders/model/deepseek */
};

static void
test_param_counts (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (param_cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxModel) m = plx_model_new_preset (param_cases[i].preset, &error);
      double n;

      g_assert_no_error (error);
      n = (double) plx_model_get_n_params (m);
      g_test_message ("%s: %.0f parameters, published %.0f", param_cases[i].preset, n, param_cases[i].published);
      if (param_cases[i].exact)
        g_assert_cmpfloat (n, ==, param_cases[i].published);
      else
        g_assert_cmpfloat (fabs (n - param_cases[i].published) / param_cases[i].published, <=, 0.01);
    }
}

static void
test_gpt2_by_hand (void)
{
  /* GPT-2 small: wte 50257*768 + wpe 1024*768 + 12 blocks of (2 LayerNorms 4*768,
   * qkv 768*2304 + 2304, proj 768*768 + 768, fc 768*3072 + 3072, proj 3072*768 + 768)
   * + ln_f 2*768, LM head tied. */
  g_autoptr (PlxModel) m = plx_model_new_preset ("gpt2", NULL);
  guint64 block = 4 * 768 + (768 * 2304 + 2304) + (768 * 768 + 768) + (768 * 3072 + 3072) + (3072 * 768 + 768);

  g_assert_cmpuint (plx_model_get_n_params (m), ==, 50257 * 768 + 1024 * 768 + 12 * block + 2 * 768);
}

static void
test_mixtral_active (void)
{
  /* Mixtral 8x7B: 12.9B parameters active per token (Jiang et al. 2024, §2): two of
   * eight experts. Each expert is 3 * 4096 * 14336 weights in 32 layers. */
  g_autoptr (PlxModel) m = plx_model_new_preset ("mixtral-8x7b", NULL);
  guint64 expert = G_GUINT64_CONSTANT (3) * 4096 * 14336 * 32;

  g_assert_cmpuint (plx_model_get_n_params (m) - plx_model_get_n_active_params (m), ==, 6 * expert);
  g_assert_cmpfloat (fabs (plx_model_get_n_active_params (m) - 12.9e9) / 12.9e9, <=, 0.01);
}

#define GPT3_SCENARIO \
  "{ \"model\": { \"preset\": \"gpt3-175b\" }," \
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 8 }," \
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 64, \"tp\": 8, \"pp\": 8," \
  "                \"recompute\": \"%s\" } }"

static void
test_flops_narayanan_eq3 (void)
{
  /* Narayanan et al. 2021 eq. 3, with full recompute (four passes over the layers):
   * F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)). */
  g_autofree char *json = g_strdup_printf (GPT3_SCENARIO, "full");
  g_autoptr (PlxScenario) sc = test_scenario_from_string (json);
  PlxReport r = test_run (sc);
  double B = 64, s = 2048, l = 96, h = 12288, V = 51200;
  double F = 96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));

  g_assert_cmpfloat (fabs (r.hardware_flops_per_step - F) / F, <, 1e-12);
}

static void
test_flops_korthikanti (void)
{
  /* Korthikanti et al. 2022 §6: model FLOPs 72 B s l h^2 (1 + s/(6h) + V/(12 l h)).
   * Selective recompute repeats the attention core's two matmuls forward, 4 B s^2 h
   * per layer, so hardware FLOPs add 4 B s^2 h l. */
  g_autofree char *json = g_strdup_printf (GPT3_SCENARIO, "selective");
  g_autoptr (PlxScenario) sc = test_scenario_from_string (json);
  PlxReport r = test_run (sc);
  double B = 64, s = 2048, l = 96, h = 12288, V = 51200;
  double model = 72.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * l * h));
  double hw = model + 4.0 * B * s * s * h * l;

  g_assert_cmpfloat (fabs (r.model_flops_per_step - model) / model, <, 1e-12);
  g_assert_cmpfloat (fabs (r.hardware_flops_per_step - hw) / hw, <, 1e-12);
  /* The published run: 13.75 s is 51.4% MFU (Korthikanti Table 5). */
  g_assert_cmpfloat (fabs (model / (13.75 * 64 * 312e12) - 0.514) , <, 0.0005);
}

static void
test_flops_no_recompute (void)
{
  g_autofree char *json = g_strdup_printf (GPT3_SCENARIO, "none");
  g_autoptr (PlxScenario) sc = test_scenario_from_string (json);
  PlxReport r = test_run (sc);

  g_assert_cmpfloat (r.hardware_flops_per_step, ==, r.model_flops_per_step);
}

int
main (int argc, char **argv)
{
  test_init_private_home (&argc, &argv);
  g_test_add_func ("/core/model/param-counts", test_param_counts);
  g_test_add_func ("/core/model/gpt2-by-hand", test_gpt2_by_hand);
  g_test_add_func ("/core/model/mixtral-active", test_mixtral_active);
  g_test_add_func ("/core/model/flops-narayanan-eq3", test_flops_narayanan_eq3);
  g_test_add_func ("/core/model/flops-korthikanti", test_flops_korthikanti);
  g_test_add_func ("/core/model/flops-no-recompute", test_flops_no_recompute);
  return g_test_run ();
}
