/* The window as a person uses it: every test clicks, drags and types through the X
 * server (gui-input.h), never by calling the window's functions, and then checks
 * what the person would see: the labels, the numbers, the open page. */
#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plx-calibration-page.h"
#include "plx-chart-view.h"
#include "plx-format.h"
#include "plx-graph-page.h"
#include "plx-history.h"
#include "plx-key-names.h"
#include "plx-partition-view.h"
#include "plx-reshard-page.h"
#include "plx-scenario-panel.h"
#include "plx-search-page.h"
#include "plx-sensitivity-page.h"
#include "plx-window.h"
#include "gui-env.h"
#include "gui-input.h"
#include "gui-window.h"
#include "test-files.h"
#include "test-tools.h"
#include "calibrate/plx-kineto-match.h"
#include "calibrate/plx-measurement.h"
#include "calibrate/plx-uncertainty.h"
#include "hardware/plx-cluster-inputs.h"

/* ---- 1. choosing a preset from a dropdown ------------------------------------------ */

static void
check_llama_2_7b (PlxWindow *w)
{
  PlxResult *r;

  settle (w);
  r = plx_window_get_result (w);
  g_assert_nonnull (r);
  /* Llama 2 7B (Touvron et al. 2023, Table 1): 32 layers, hidden 4096, 32 heads. */
  g_assert_cmpuint (r->scenario->model->n_layers, ==, 32);
  g_assert_cmpuint (r->scenario->model->hidden, ==, 4096);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (gi_find_type (panel_row (w, "Layers"),
                                                                               GTK_TYPE_SPIN_BUTTON))), ==, 32.0);
  /* The degrees followed the model: TP 8 and PP 8 divide 32 heads and 32 layers. */
  g_assert_cmpuint (r->scenario->strategy->tp, ==, 8);
  g_assert_cmpstr (slider_text (w, "Tensor parallel"), ==, "8");
}

static void
test_model_dropdown_mouse (void)
{
  PlxWindow *w = open_window (1400, 900);

  gi_choose_in_combo (panel (w), "Model", "llama-2-7b");
  check_llama_2_7b (w);
  close_window (w);
}

/* The Blocks row says how a model's blocks differ (issue 37 item 5), following the
 * model chosen in the dropdown, and is not shown for one block repeated (GPT-3); a
 * config that leaves a key out shows the default transformers gives it in the Assumed
 * row, hidden otherwise. */
static void
test_model_blocks_row (void)
{
  PlxWindow *w = open_window (1400, 900);
  g_autofree char *dir = test_make_tmp_dir ("plx-use");
  /* Gemma 2 2B's shape without vocab_size: Gemma2Config's 256000, and 13 of 26 blocks
   * with its 4096-token window (every other block). */
  g_autofree char *path = write_scenario (dir, "gemma2.json",
    "{ \"model\": { \"model_type\": \"gemma2\", \"hidden_size\": 2304, \"intermediate_size\": 9216,"
    "  \"num_attention_heads\": 8, \"num_key_value_heads\": 4, \"head_dim\": 256, \"num_hidden_layers\": 26,"
    "  \"sliding_window\": 4096 }, \"cluster\": { \"preset\": \"dgx-h100-80gb\", \"num_nodes\": 1 },"
    "  \"strategy\": { \"global_batch_size\": 64 } }");

  /* Hidden: not found among the rows a person sees. */
  g_assert_null (panel_row (w, "Blocks"));
  g_assert_null (panel_row (w, "Assumed"));
  open_by_keyboard (w, path);
  g_assert_null (plx_window_get_error (w));
  g_assert_cmpstr (row_subtitle (w, "Blocks"), ==, "26 blocks: 13 with a sliding window of 4096 tokens, 13 global");
  g_assert_cmpstr (row_subtitle (w, "Assumed"), ==, "vocab_size 256000");
  /* A preset from the dropdown: its blocks, and nothing assumed. */
  gi_choose_in_combo (panel (w), "Model", "mixtral-8x7b");
  settle (w);
  g_assert_cmpstr (row_subtitle (w, "Blocks"), ==, "32 blocks, each with 8 experts (top 2)");
  g_assert_null (panel_row (w, "Assumed"));
  close_window (w);
  test_rm_rf (dir);
}

static void
test_model_dropdown_keyboard (void)
{
  PlxWindow *w = open_window (1400, 900);
  GtkWidget *row = panel_row (w, "Model");
  GtkWidget *popover;

  /* Open with the keyboard, walk down the list with the arrows, choose with Enter. */
  gi_click (row);
  g_assert_true (gi_wait (gi_popover_is_open, NULL, 3000));
  popover = gi_open_popover ();
  for (guint i = 0; i < 20 && !gi_find (popover, gi_match_label_prefix, "llama-2-7b"); i++)
    gi_pump (50);
  {
    /* Arrow down until the focused row is Llama 2 7B, at most once per item. */
    guint steps = 0;
    for (; steps < 40; steps++)
      {
        GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (popover));
        if (focus != NULL && gi_find (focus, gi_match_label_prefix, "llama-2-7b") != NULL)
          break;
        gi_doing = "walking a dropdown with the arrow keys";
        gi_key (NULL, XK_Down);
      }
    g_assert_cmpuint (steps, <, 40);
  }
  gi_key (NULL, XK_Return);
  g_assert_true (gi_wait (gi_popover_is_closed, NULL, 3000));
  check_llama_2_7b (w);
  close_window (w);
}

static void
test_cluster_dropdown (void)
{
  PlxWindow *w = open_window (1400, 900);
  PlxResult *r;

  gi_choose_in_combo (panel (w), "Cluster", "dgx-h100-80gb");
  settle (w);
  r = plx_window_get_result (w);
  g_assert_nonnull (r);
  g_assert_cmpstr (r->scenario->cluster->gpu_name, ==, "H100-SXM5-80GB");
  /* The node count is kept: still 64 GPUs. */
  g_assert_cmpuint (r->report.n_gpus, ==, 64);
  close_window (w);
}

/* ---- 3. sliders offer only values valid with the rest of the strategy ------------- */

typedef struct
{
  PlxWindow *w;
  GPtrArray *seen;   /* the labels shown during the drag */
} DragLog;

static void
log_slider (guint step, gpointer data)
{
  DragLog *log = data;
  const char *text = slider_text (log->w, "Tensor parallel");

  if (log->seen->len == 0 || g_strcmp0 (g_ptr_array_index (log->seen, log->seen->len - 1), text) != 0)
    g_ptr_array_add (log->seen, g_strdup (text));
}

static void
test_training_code_dropdown (void)
{
  /* Choosing the training code in its dropdown changes the prediction to what the
   * command line predicts for the same strategy: PyTorch's eager kernels are slower. */
  PlxWindow *w = open_window (1400, 900);
  PlxResult *r;
  double before, after;

  settle (w);
  r = plx_window_get_result (w);
  g_assert_nonnull (r);
  before = r->report.step_time_s;
  g_assert_false (plx_strategy_is_pytorch (r->scenario->strategy));
  gi_choose_in_combo (panel (w), "Training code", "PyTorch");
  settle (w);
  r = plx_window_get_result (w);
  g_assert_nonnull (r);
  g_assert_cmpint (r->scenario->strategy->implementation, ==, PLX_IMPLEMENTATION_PYTORCH);
  after = r->report.step_time_s;
  g_assert_cmpfloat (after, >, before);
  {
    /* The same scenario, run here without the window: the numbers on screen. */
    PlxReport check;
    g_assert_true (plx_sim_run_scenario (r->scenario->model, r->scenario->cluster, r->scenario->strategy, &check,
                                         NULL, NULL, NULL, NULL));
    g_assert_cmpfloat (fabs (check.step_time_s - after) / after, <, 1e-9);
  }
  close_window (w);
}

static gboolean
switch_is_on (gpointer sw)
{
  return gtk_switch_get_active (GTK_SWITCH (sw));
}

static void
test_deepspeed_code (void)
{
  /* Megatron-DeepSpeed reduces gradients after the last backward pass: choosing it
   * turns the overlap switch off on screen as in the strategy, and the step is what
   * the command line predicts for it. */
  PlxWindow *w = open_window (1400, 900);
  GtkWidget *overlap;
  PlxResult *r;

  settle (w);
  overlap = gi_find_type (panel_row (w, "Overlap data-parallel communication"), GTK_TYPE_SWITCH);
  g_assert_nonnull (overlap);
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (overlap)));
  {
    /* Choosing in the list must not scroll the panel under the pointer (it did, by
     * 40 px, so the release chose the item below under load). */
    GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (
      GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (panel_row (w, "Training code"), GTK_TYPE_SCROLLED_WINDOW)));
    double before;

    gi_reveal (panel_row (w, "Training code"));
    before = gtk_adjustment_get_value (adj);
    gi_choose_in_combo (panel (w), "Training code", "Megatron-DeepSpeed");
    g_assert_cmpfloat (gtk_adjustment_get_value (adj), ==, before);
  }
  settle (w);
  r = plx_window_get_result (w);
  g_assert_nonnull (r);
  g_assert_cmpint (r->scenario->strategy->implementation, ==, PLX_IMPLEMENTATION_DEEPSPEED);
  g_assert_false (r->scenario->strategy->overlap_dp_comm);
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (overlap)));
  {
    PlxReport check;
    g_assert_true (plx_sim_run_scenario (r->scenario->model, r->scenario->cluster, r->scenario->strategy, &check,
                                         NULL, NULL, NULL, NULL));
    g_assert_cmpfloat (fabs (check.step_time_s - r->report.step_time_s) / check.step_time_s, <, 1e-9);
  }
  /* The user may still overlap: a click on the switch says so in the strategy. The
   * switch flips when GTK has the click, which under a sanitizer on a loaded machine
   * can be after the window looked idle: wait for what the person sees first. */
  gi_click (overlap);
  g_assert_true (gi_wait (switch_is_on, overlap, 10000));
  settle (w);
  r = plx_window_get_result (w);
  g_assert_true (r->scenario->strategy->overlap_dp_comm);
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (overlap)));
  close_window (w);
}

/* ---- the attention kernel ----------------------------------------------------------- */

static gboolean step_card_is_not (gpointer data);

static gboolean
switch_is_off (gpointer sw)
{
  return !switch_is_on (sw);
}

/* Clicks a switch until it shows `on`, at most three times: GTK 4.8 under Xvfb may
 * swallow the first click after a dropdown's list closed (as gi_choose_in_dropdown
 * knows), and a person whose click did nothing clicks again. */
static void
click_switch_to (GtkWidget *sw, gboolean on)
{
  for (guint attempt = 0; attempt < 3 && gtk_switch_get_active (GTK_SWITCH (sw)) != on; attempt++)
    {
      gi_click (sw);
      gi_wait (on ? switch_is_on : switch_is_off, sw, 2000);
    }
  g_assert_cmpint (gtk_switch_get_active (GTK_SWITCH (sw)), ==, on);
}

/* The number the card titled `title` shows, in its unit's base: a time ("12.865 s",
 * "850.21 ms", "912 µs") in seconds, memory ("61.3 GiB") in GiB. */
static double
shown_card_value (PlxWindow *w, const char *title)
{
  static const struct { const char *unit; double scale; } units[] = {
    { "s", 1.0 }, { "ms", 1e-3 }, { "µs", 1e-6 }, { "GiB", 1.0 },
  };
  GtkWidget *value = gtk_widget_get_next_sibling (gi_find_label (GTK_WIDGET (w), title));
  const char *text, *unit;
  char *end;
  double v;

  g_assert_true (GTK_IS_LABEL (value));
  text = gtk_label_get_text (GTK_LABEL (value));
  v = g_ascii_strtod (text, &end);
  g_assert_true (end != text);
  unit = end + strspn (end, " ");
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_str_equal (unit, units[i].unit))
      return v * units[i].scale;
  g_error ("the %s card shows \"%s\", not a number with a known unit", title, text);
  return 0.0;
}

static double
shown_step_s (PlxWindow *w)
{
  return shown_card_value (w, "Step time");
}

/* The strategy's string `key` as Save would write it; NULL: no such key. */
static const char *
saved_strategy_string (PlxWindow *w, const char *key)
{
  static char saved[64];
  g_autoptr (JsonNode) scenario = plx_scenario_panel_get_json (PLX_SCENARIO_PANEL (panel (w)));
  JsonObject *s = json_object_get_object_member (json_node_get_object (scenario), "strategy");

  if (!json_object_has_member (s, key))
    return NULL;
  g_strlcpy (saved, json_object_get_string_member (s, key), sizeof saved);
  return saved;
}

/* The strategy as Save would write it: attention_kernel `kernel` (NULL: no such key)
 * and flash_attention `flash`. */
static void
assert_saved_attention (PlxWindow *w, const char *kernel, gboolean flash)
{
  g_autoptr (JsonNode) scenario = plx_scenario_panel_get_json (PLX_SCENARIO_PANEL (panel (w)));
  JsonObject *s = json_object_get_object_member (json_node_get_object (scenario), "strategy");

  g_assert_cmpstr (saved_strategy_string (w, "attention_kernel"), ==, kernel);
  g_assert_cmpint (json_object_get_boolean_member_with_default (s, "flash_attention", FALSE), ==, flash);
}

static void
test_attention_kernel (void)
{
  /* The Attention kernel row as a person uses it. With FlashAttention on, Megatron
   * code's automatic kernel is cuDNN, on the A100 at FlashAttention-2's ceiling; the
   * Triton kernel reaches that ceiling over 1.8 (Dao 2023), so choosing it makes the
   * step longer. (The default scenario has FlashAttention off: against its unfused
   * attention any fused kernel may be faster, so the step to beat is the one with
   * FlashAttention on and the kernel Automatic.) A named kernel is a fused one:
   * choosing it turns FlashAttention on, and turning FlashAttention off takes the
   * row back to Automatic and the key out of the strategy. */
  PlxWindow *w = open_window (1400, 900);
  GtkWidget *row = panel_row (w, "Attention kernel");
  GtkWidget *flash = gi_find_type (panel_row (w, "FlashAttention"), GTK_TYPE_SWITCH);
  g_autofree char *unfused = NULL, *fused = NULL, *triton = NULL;
  double fused_s;
  PlxResult *r;

  g_assert_nonnull (row);
  g_assert_nonnull (flash);
  /* The default scenario: attention unfused, the kernel left to the code. */
  settle (w);
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (flash)));
  g_assert_nonnull (gi_find_label (row, "Automatic"));
  assert_saved_attention (w, NULL, FALSE);
  unfused = g_strdup (plx_window_get_card_text (w, 0));

  /* FlashAttention on, with the automatic kernel: the step to beat. */
  click_switch_to (flash, TRUE);
  settle (w);
  g_assert_nonnull (gi_find_label (row, "Automatic"));
  assert_saved_attention (w, NULL, TRUE);
  fused = g_strdup (plx_window_get_card_text (w, 0));
  fused_s = shown_step_s (w);

  /* FlashAttention in Triton, chosen in the row's list: a slower kernel, a longer step. */
  gi_choose_in_combo (panel (w), "Attention kernel", "FlashAttention in Triton");
  {
    gpointer d[2] = { w, fused };
    g_assert_true (gi_wait (step_card_is_not, d, 10000));
  }
  settle (w);
  g_assert_nonnull (gi_find_label (row, "FlashAttention in Triton"));
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (flash)));
  assert_saved_attention (w, "triton", TRUE);
  r = plx_window_get_result (w);
  g_assert_nonnull (r);
  g_assert_cmpint (r->scenario->strategy->attention_kernel, ==, PLX_ATTENTION_KERNEL_TRITON);
  g_assert_cmpfloat (shown_step_s (w), >, fused_s);
  triton = g_strdup (plx_window_get_card_text (w, 0));

  /* FlashAttention off, clicked: no fused kernel, the row back to Automatic, the
   * key gone, and the step of the scenario as it opened. */
  click_switch_to (flash, FALSE);
  settle (w);
  g_assert_nonnull (gi_find_label (row, "Automatic"));
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (row)), ==, 0);
  assert_saved_attention (w, NULL, FALSE);
  g_assert_cmpint (plx_window_get_result (w)->scenario->strategy->attention_kernel, ==, PLX_ATTENTION_KERNEL_AUTO);
  g_assert_cmpstr (plx_window_get_card_text (w, 0), ==, unfused);

  /* With FlashAttention off, choosing the Triton kernel turns it on: the step of the
   * same choice above. */
  gi_choose_in_combo (panel (w), "Attention kernel", "FlashAttention in Triton");
  g_assert_true (gi_wait (switch_is_on, flash, 10000));
  settle (w);
  assert_saved_attention (w, "triton", TRUE);
  g_assert_cmpstr (plx_window_get_card_text (w, 0), ==, triton);
  close_window (w);
}

/* The card `d[1]` (an index) shows other text than `d[2]`, and the window is idle. */
static gboolean
card_is_not (gpointer data)
{
  gpointer *d = data;
  return !plx_window_is_busy (d[0]) && g_strcmp0 (plx_window_get_card_text (d[0], GPOINTER_TO_UINT (d[1])), d[2]) != 0;
}

/* Chooses `item` in the combo row `title` and waits until card `card` changes. */
static void
choose_and_wait_for_card (PlxWindow *w, const char *title, const char *item, guint card)
{
  g_autofree char *before = g_strdup (plx_window_get_card_text (w, card));
  gpointer d[3] = { w, GUINT_TO_POINTER (card), before };

  gi_choose_in_combo (panel (w), title, item);
  g_assert_true (gi_wait (card_is_not, d, 10000));
  settle (w);
  g_assert_nonnull (gi_find_label (panel_row (w, title), item));
}

static void
test_loss_and_gradients (void)
{
  /* The Loss and Gradients rows as a person uses them. The default scenario runs the
   * loss unfused on fp32 logits; Transformer Engine's one-pass kernel does less work,
   * so the step gets shorter. Its gradients are automatic (fp32 under bf16); 16-bit
   * gradient buffers take half the gradient memory, so the peak falls. Each choice
   * is written to the strategy as its key. */
  PlxWindow *w = open_window (1400, 900);
  GtkWidget *loss = panel_row (w, "Loss");
  GtkWidget *grads = panel_row (w, "Gradients");
  double unfused_s, fp32_gib;
  PlxResult *r;

  g_assert_nonnull (loss);
  g_assert_nonnull (grads);
  settle (w);
  g_assert_nonnull (gi_find_label (loss, "Unfused"));
  g_assert_nonnull (gi_find_label (grads, "Automatic"));
  g_assert_null (saved_strategy_string (w, "cross_entropy_fusion"));
  g_assert_null (saved_strategy_string (w, "grad_dtype"));
  unfused_s = shown_step_s (w);

  choose_and_wait_for_card (w, "Loss", "Fused (TE)", 0);
  g_assert_cmpstr (saved_strategy_string (w, "cross_entropy_fusion"), ==, "te");
  r = plx_window_get_result (w);
  g_assert_nonnull (r);
  g_assert_cmpint (r->scenario->strategy->cross_entropy_fusion, ==, PLX_CROSS_ENTROPY_TE);
  g_assert_cmpfloat (shown_step_s (w), <, unfused_s);

  /* The peak to beat: with the loss as now chosen, so only the gradients differ. */
  fp32_gib = shown_card_value (w, "Peak memory");
  choose_and_wait_for_card (w, "Gradients", "BF16", 3);
  g_assert_cmpstr (saved_strategy_string (w, "grad_dtype"), ==, "bf16");
  /* The loss chosen before stays chosen. */
  g_assert_cmpstr (saved_strategy_string (w, "cross_entropy_fusion"), ==, "te");
  r = plx_window_get_result (w);
  g_assert_cmpint (r->scenario->strategy->grad_dtype, ==, PLX_GRAD_DTYPE_BF16);
  g_assert_cmpfloat (shown_card_value (w, "Peak memory"), <, fp32_gib);
  close_window (w);
}

static void
test_tab_changes_nothing (void)
{
  /* Tabbing through the panel's fields changes nothing: leaving a field used to
   * commit the rounded text it shows (2.039 TB/s of HBM bandwidth became 2.04). */
  PlxWindow *w = open_window (1400, 900);
  GtkWidget *layers;
  PlxResult *r;
  double before;

  settle (w);
  r = plx_window_get_result (w);
  before = r->report.step_time_s;
  g_assert_cmpfloat (r->scenario->cluster->hbm_bw_Bps, ==, 2.039e12);
  layers = gi_find_type (panel_row (w, "Layers"), GTK_TYPE_TEXT);
  g_assert_nonnull (layers);
  gi_click (layers);
  for (guint i = 0; i < 40; i++)
    gi_key (NULL, XK_Tab);
  settle (w);
  r = plx_window_get_result (w);
  g_assert_false (plx_window_is_dirty (w));
  g_assert_cmpfloat (r->scenario->cluster->hbm_bw_Bps, ==, 2.039e12);
  g_assert_cmpfloat (r->report.step_time_s, ==, before);
  close_window (w);
}

static void
test_tp_drag_valid_only (void)
{
  PlxWindow *w = open_window (1400, 900);
  GtkWidget *scale = gi_find_type (panel_row (w, "Tensor parallel"), GTK_TYPE_SCALE);
  g_autoptr (GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  DragLog log = { w, seen };
  GtkWidget *slider;
  graphene_rect_t knob;
  double y;

  /* The default is TP 8 x PP 8 on 64 GPUs: TP may be 1, 2, 4 or 8 (it divides 96
   * heads, fits a node, and TP x 8 divides 64); 3 and 6 are not valid with PP 8. */
  g_assert_cmpstr (slider_text (w, "Tensor parallel"), ==, "8");
  {
    /* The knob: the scale's "slider" node, found by its CSS name. */
    GtkWidget *trough = NULL;
    for (GtkWidget *c = gtk_widget_get_first_child (scale); c; c = gtk_widget_get_next_sibling (c))
      if (g_str_equal (gtk_widget_get_css_name (c), "trough"))
        trough = c;
    g_assert_nonnull (trough);
    slider = gtk_widget_get_first_child (trough);
    while (slider != NULL && !g_str_equal (gtk_widget_get_css_name (slider), "slider"))
      slider = gtk_widget_get_next_sibling (slider);
    g_assert_nonnull (slider);
    g_assert_true (gtk_widget_compute_bounds (slider, scale, &knob));
  }
  y = knob.origin.y + knob.size.height / 2;
  gi_doing = "dragging the TP slider";
  gi_drag (scale, knob.origin.x + knob.size.width / 2, y, 2, y, 24, log_slider, &log);
  settle (w);
  for (guint i = 0; i < seen->len; i++)
    {
      const char *t = g_ptr_array_index (seen, i);
      if (!g_str_equal (t, "8") && !g_str_equal (t, "4") && !g_str_equal (t, "2") && !g_str_equal (t, "1"))
        g_error ("the TP slider offered %s, which is not valid with PP 8 on 64 GPUs", t);
    }
  g_assert_cmpstr (slider_text (w, "Tensor parallel"), ==, "1");
  g_assert_null (plx_window_get_error (w));
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->tp, ==, 1);
  close_window (w);
}

/* ---- 4. an opened scenario's values are the ones shown ----------------------------- */

static void
test_open_shows_values (void)
{
  PlxWindow *w = open_window (1400, 900);
  g_autofree char *dir = test_make_tmp_dir ("plx-use");
  g_autofree char *a = write_scenario (dir, "a.json",
    "{ \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 8 },"
    "  \"strategy\": { \"tp\": 4, \"pp\": 8, \"micro_batch_size\": 1, \"global_batch_size\": 1536 } }");
  g_autofree char *b = write_scenario (dir, "b.json",
    "{ \"model\": { \"preset\": \"llama-2-7b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 8 },"
    "  \"strategy\": { \"tp\": 8, \"pp\": 4, \"micro_batch_size\": 1, \"global_batch_size\": 512 } }");
  g_autoptr (GFile) fa = g_file_new_for_path (a);
  g_autoptr (GFile) fb = g_file_new_for_path (b);

  /* Opening goes through the file chooser in person; what is tested here is that the
   * controls show the file's values, whatever the sliders showed before. */
  g_assert_true (plx_window_open_file (w, fa, NULL));
  settle (w);
  g_assert_cmpstr (slider_text (w, "Tensor parallel"), ==, "4");
  g_assert_true (plx_window_open_file (w, fb, NULL));
  settle (w);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->tp, ==, 8);
  g_assert_cmpstr (slider_text (w, "Tensor parallel"), ==, "8");
  g_assert_cmpstr (slider_text (w, "Pipeline parallel"), ==, "4");
  g_remove (a);
  g_remove (b);
  g_rmdir (dir);
  close_window (w);
}

static GtkWidget *
error_bar (PlxWindow *w)
{
  GtkWidget *label = gi_find_label (GTK_WIDGET (w), plx_window_get_error (w));
  g_assert_nonnull (label);
  return gtk_widget_get_ancestor (label, GTK_TYPE_REVEALER);
}

static void
test_power_limit (void)
{
  PlxWindow *w = open_window (1400, 900);
  GtkWidget *row, *spin;
  double full = plx_window_get_result (w)->report.step_time_s;
  PlxResult *r;

  /* The default A100s (400 W, 90 W static) capped at 300 W: the GEMMs at
   * (210/310)^(1/3) = 87.8 % speed, the step slower by less than that. */
  type_into_spin (w, "Power limit", "300");
  r = plx_window_get_result (w);
  g_assert_cmpfloat (r->scenario->cluster->power_limit_w, ==, 300.0);
  g_assert_cmpfloat_with_epsilon (r->scenario->cluster->compute_clock_factor, cbrt (210.0 / 310.0), 1e-12);
  g_assert_cmpfloat (r->report.step_time_s, >, full * 1.03);
  g_assert_cmpfloat (r->report.step_time_s, <, full / cbrt (210.0 / 310.0));
  row = panel_row (w, "Power limit");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==, "W per GPU; tensor cores at 88 % of full speed");
  /* Above the board's 400 W the row does not go: typed 500 comes back as 400. */
  type_into_spin (w, "Power limit", "500");
  spin = gi_find_type (row, GTK_TYPE_SPIN_BUTTON);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), ==, 400.0);
  g_assert_cmpfloat (plx_window_get_result (w)->report.step_time_s, ==, full);
  /* Another cluster comes at its own full power, 700 W for H100. */
  type_into_spin (w, "Power limit", "250");
  gi_choose_in_combo (panel (w), "Cluster", "dgx-h100-80gb");
  settle (w);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), ==, 700.0);
  g_assert_cmpfloat (plx_window_get_result (w)->scenario->cluster->compute_clock_factor, ==, 1.0);
  close_window (w);
}

/* ---- 2. an invalid strategy keeps the page, greys the charts, offers fixes -------- */

static void
test_invalid_keeps_page (void)
{
  PlxWindow *w = open_window (1400, 900);
  GtkWidget *timeline = plx_window_get_chart (w, "timeline");
  GtkWidget *fix;

  g_assert_cmpstr (plx_window_get_page (w), ==, "timeline");
  /* 1001 sequences on DP 1: 1001 micro-batches, not a multiple of PP 8 as
   * interleaved 1F1B needs (1001 = 8 x 125 + 1). */
  type_into_spin (w, "Global batch size", "1001");
  g_assert_nonnull (plx_window_get_error (w));
  g_assert_nonnull (strstr (plx_window_get_error (w), "1001"));
  /* Still the timeline, still drawn (greyed) with the error over it. */
  g_assert_cmpstr (plx_window_get_page (w), ==, "timeline");
  g_assert_true (gtk_widget_get_mapped (timeline));
  g_assert_cmpstr (plx_chart_view_get_error (PLX_CHART_VIEW (timeline)), ==, plx_window_get_error (w));
  g_assert_true (plx_scenario_panel_is_fault (PLX_SCENARIO_PANEL (panel (w)), "global_batch_size"));
  g_assert_false (plx_scenario_panel_is_fault (PLX_SCENARIO_PANEL (panel (w)), "zero_stage"));
  /* A one-click fix: the nearest valid global batch. 1000 and 1008 are the nearest
   * multiples of 8; 1000 is nearer. */
  fix = gi_find (error_bar (w), gi_match_label_prefix, "Global batch");
  g_assert_nonnull (fix);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (fix)), ==, "Global batch 1000");
  gi_click (fix);
  settle (w);
  g_assert_null (plx_window_get_error (w));
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->global_batch_size, ==, 1000);
  g_assert_null (plx_chart_view_get_error (PLX_CHART_VIEW (timeline)));
  g_assert_false (plx_scenario_panel_is_fault (PLX_SCENARIO_PANEL (panel (w)), "global_batch_size"));
  close_window (w);
}

/* ---- 5. a file's error is escaped and stays ---------------------------------------- */

static void
test_broken_file_message (void)
{
  PlxWindow *w = open_window (1400, 900);
  g_autofree char *dir = test_make_tmp_dir ("plx-use");
  g_autofree char *path = write_scenario (dir, "broken.json", "{ \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": ");
  const char *message;

  open_by_keyboard (w, path);
  message = plx_window_get_file_error (w);
  g_assert_nonnull (message);
  g_assert_nonnull (strstr (message, "broken.json"));
  /* The label shows the message itself, "<data>" and all, not empty markup. */
  g_assert_nonnull (gi_find_label (GTK_WIDGET (w), message));
  /* It stays: a toast would be gone after its timeout. */
  gi_pump (1500);
  g_assert_nonnull (plx_window_get_file_error (w));
  g_assert_nonnull (plx_window_get_result (w));
  g_remove (path);
  g_rmdir (dir);
  close_window (w);
}

/* ---- 9. the subtitle says what runs; 10. a config keeps the strategy --------------- */


/* A scale's CSS node `name` ("trough", or the knob, "slider", inside it). */
static GtkWidget *
scale_node (GtkWidget *parent, const char *name)
{
  for (GtkWidget *c = gtk_widget_get_first_child (parent); c; c = gtk_widget_get_next_sibling (c))
    if (g_str_equal (gtk_widget_get_css_name (c), name))
      return c;
  return NULL;
}

/* Clicks the slider row `title` (strategy key `key`) where `value` sits on its
 * trough: the knob's centre travels from one end of the trough to the other. */
static void
click_choice_to (PlxWindow *w, const char *title, const char *key, const char *value)
{
  GtkWidget *scale = gi_find_type (panel_row (w, title), GTK_TYPE_SCALE);
  GArray *values = plx_scenario_panel_get_choices (PLX_SCENARIO_PANEL (panel (w)), key);
  GtkWidget *trough = scale_node (scale, "trough"), *knob = trough != NULL ? scale_node (trough, "slider") : NULL;
  graphene_rect_t t, k;
  guint target = G_MAXUINT;

  for (guint i = 0; i < values->len; i++)
    if (g_array_index (values, guint64, i) == g_ascii_strtoull (value, NULL, 10))
      target = i;
  g_assert_cmpuint (target, !=, G_MAXUINT);
  g_assert_nonnull (knob);
  g_assert_true (gtk_widget_compute_bounds (trough, scale, &t));
  g_assert_true (gtk_widget_compute_bounds (knob, scale, &k));
  /* A click on the trough moves the knob there (GTK's primary-button-warps-slider). */
  gi_click_at (scale, t.origin.x + k.size.width / 2 + (t.size.width - k.size.width) * target / MAX (values->len - 1, 1),
               k.origin.y + k.size.height / 2);
  settle (w);
  g_assert_cmpstr (slider_text (w, title), ==, value);
}

static void
drag_tp_to (PlxWindow *w, const char *value)
{
  click_choice_to (w, "Tensor parallel", "tp", value);
}

static gboolean
choices_hold (GArray *values, guint64 v)
{
  for (guint i = 0; i < values->len; i++)
    if (g_array_index (values, guint64, i) == v)
      return TRUE;
  return FALSE;
}

static void
test_expert_rows (void)
{
  /* The expert rows as a person uses them, on Mixtral 8x7B over 8 GPUs at TP 2 and
   * EP 4. Expert TP follows TP (2) until set; at 1 the experts may spread over the
   * TP ranks too, so EP 8 becomes valid (8 x 1 divides TP 2 x DP 4) and the
   * subtitle says it. DeepEP is chosen from its dropdown. A dense model has no
   * experts: the rows go, and so do the keys, with no error. */
  PlxWindow *w = open_window (1400, 900);
  double step_s;
  g_autofree char *dir = test_make_tmp_dir ("plx-use");
  g_autofree char *path = write_scenario (dir, "mixtral.json",
    "{ \"model\": { \"preset\": \"mixtral-8x7b\" }, \"cluster\": { \"preset\": \"dgx-h100-80gb\" },"
    "  \"strategy\": { \"tp\": 2, \"ep\": 4, \"sequence_parallel\": true, \"seq_length\": 4096,"
    "                \"global_batch_size\": 8, \"micro_batch_size\": 1, \"recompute\": \"full\" } }");
  PlxResult *r;

  open_by_keyboard (w, path);
  g_assert_null (plx_window_get_error (w));
  g_assert_true (gtk_widget_get_visible (panel_row (w, "Expert tensor parallel")));
  g_assert_true (gtk_widget_get_visible (panel_row (w, "Token exchange")));
  g_assert_cmpstr (slider_text (w, "Expert tensor parallel"), ==, "2");
  g_assert_false (choices_hold (plx_scenario_panel_get_choices (PLX_SCENARIO_PANEL (panel (w)), "ep"), 8));

  click_choice_to (w, "Expert tensor parallel", "etp", "1");
  r = plx_window_get_result (w);
  g_assert_null (plx_window_get_error (w));
  g_assert_cmpuint (r->scenario->strategy->etp, ==, 1);
  g_assert_nonnull (strstr (subtitle (w), "expert TP 1"));
  g_assert_true (choices_hold (plx_scenario_panel_get_choices (PLX_SCENARIO_PANEL (panel (w)), "ep"), 8));
  click_choice_to (w, "Expert parallel", "ep", "8");
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->ep, ==, 8);

  /* On one node with one expert a rank, DeepEP moves what the all-to-all does: a
   * token's two experts are on two other ranks either way, 7/8 x 2 copies. */
  g_assert_null (saved_strategy_string (w, "moe_dispatcher"));
  step_s = shown_step_s (w);
  gi_choose_in_combo (panel (w), "Token exchange", "DeepEP");
  settle (w);
  g_assert_nonnull (gi_find_label (panel_row (w, "Token exchange"), "DeepEP"));
  g_assert_cmpstr (saved_strategy_string (w, "moe_dispatcher"), ==, "deepep");
  g_assert_cmpint (plx_window_get_result (w)->scenario->strategy->moe_dispatcher, ==, PLX_MOE_DISPATCHER_DEEPEP);
  g_assert_cmpfloat (shown_step_s (w), ==, step_s);

  gi_choose_in_combo (panel (w), "Model", "llama-2-7b");
  settle (w);
  g_assert_null (plx_window_get_error (w));
  g_assert_cmpuint (plx_window_get_result (w)->scenario->model->experts, ==, 0);
  /* Gone from sight: a person finds neither row. */
  g_assert_null (gi_find_row (panel (w), "Expert tensor parallel"));
  g_assert_null (gi_find_row (panel (w), "Token exchange"));
  g_assert_null (saved_strategy_string (w, "moe_dispatcher"));
  {
    g_autoptr (JsonNode) scenario = plx_scenario_panel_get_json (PLX_SCENARIO_PANEL (panel (w)));
    JsonObject *st = json_object_get_object_member (json_node_get_object (scenario), "strategy");
    g_assert_false (json_object_has_member (st, "etp"));
  }
  g_remove (path);
  g_rmdir (dir);
  close_window (w);
}

/* Selects the entry row's text and types `text` over it, then Enter. */
static void
type_into_row (PlxWindow *w, GtkWidget *row, const char *text)
{
  GtkWidget *entry = gi_find_type (row, GTK_TYPE_TEXT);

  g_assert_nonnull (entry);
  gi_click (entry);
  gi_key (NULL, XK_End);
  gi_key ("shift", XK_Home);
  gi_key (NULL, XK_BackSpace);
  gi_type (text);
  gi_key (NULL, XK_Return);
  settle (w);
}

static void
test_pipeline_layout_row (void)
{
  /* The default scenario, GPT-3's 96 layers over PP 8 x 3 chunks: Megatron-LM's
   * layout string puts the embedding and 3 layers on the first chunk, 4 on each of
   * the 22 in between and 5 with the loss on the last (3 + 88 + 5 = 96). A layout
   * whose chunks do not match PP x chunks is refused with the key named; an empty
   * one goes back to the even split; another PP drops the layout. */
  PlxWindow *w = open_window (1400, 900);
  const char *layout = "Et*3|(t*4|)*22t*5L";
  GtkWidget *row = panel_row (w, "Pipeline layout");
  PlxResult *r;

  g_assert_nonnull (row);
  g_assert_null (saved_strategy_string (w, "pipeline_layout"));
  type_into_row (w, row, layout);
  g_assert_null (plx_window_get_error (w));
  g_assert_cmpstr (saved_strategy_string (w, "pipeline_layout"), ==, layout);
  r = plx_window_get_result (w);
  g_assert_cmpstr (r->scenario->strategy->pipeline_layout, ==, layout);
  g_assert_cmpuint (r->scenario->strategy->n_layers_per_stage, ==, 24);
  g_assert_cmpuint (r->scenario->strategy->layers_per_stage[0], ==, 3);
  g_assert_cmpuint (r->scenario->strategy->layers_per_stage[1], ==, 4);
  g_assert_cmpuint (r->scenario->strategy->layers_per_stage[23], ==, 5);

  type_into_row (w, row, "Et*48|t*48L");
  g_assert_nonnull (plx_window_get_error (w));
  g_assert_nonnull (strstr (plx_window_get_error (w), "pipeline_layout"));

  type_into_row (w, row, "");
  g_assert_null (plx_window_get_error (w));
  g_assert_null (saved_strategy_string (w, "pipeline_layout"));
  g_assert_null (plx_window_get_result (w)->scenario->strategy->pipeline_layout);

  type_into_row (w, row, layout);
  g_assert_null (plx_window_get_error (w));
  click_choice_to (w, "Pipeline parallel", "pp", "4");
  g_assert_null (plx_window_get_error (w));
  g_assert_null (saved_strategy_string (w, "pipeline_layout"));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (row)), ==, "");
  close_window (w);
}

static void
test_subtitle_follows (void)
{
  PlxWindow *w = open_window (1400, 900);

  g_assert_nonnull (strstr (subtitle (w), "TP 8"));
  drag_tp_to (w, "4");
  /* 64 GPUs / (TP 4 x PP 8) = DP 2. */
  g_assert_nonnull (strstr (subtitle (w), "TP 4"));
  g_assert_nonnull (strstr (subtitle (w), "DP 2"));
  close_window (w);
}

static void
test_hf_config_keeps_strategy (void)
{
  PlxWindow *w = open_window (1400, 900);
  g_autofree char *dir = test_make_tmp_dir ("plx-use");
  /* A Llama with 40 layers: 8 stages of 3 chunks (24) do not divide 40 evenly. */
  g_autofree char *path = write_scenario (dir, "config.json",
    "{ \"model_type\": \"llama\", \"num_hidden_layers\": 40, \"hidden_size\": 5120, \"num_attention_heads\": 40,"
    "  \"num_key_value_heads\": 8, \"intermediate_size\": 13824, \"vocab_size\": 32000,"
    "  \"max_position_embeddings\": 8192 }");
  PlxResult *r;

  open_by_keyboard (w, path);
  r = plx_window_get_result (w);
  g_assert_null (plx_window_get_error (w));
  g_assert_nonnull (r);
  g_assert_cmpuint (r->scenario->model->n_layers, ==, 40);
  /* The sequence length of the scenario stays (2048), not the config's 8192. */
  g_assert_cmpuint (r->scenario->strategy->seq_length, ==, 2048);
  /* PP 8 and TP 8 suit 40 layers and 40 heads; the 3 chunks per stage stay (24
   * chunks of 40 layers are split unevenly, balanced, since issue 10). */
  g_assert_cmpuint (r->scenario->strategy->pp, ==, 8);
  g_assert_cmpuint (r->scenario->strategy->virtual_stages, ==, 3);
  g_remove (path);
  g_rmdir (dir);
  close_window (w);
}

/* ---- undo and redo ---------------------------------------------------------------- */

static void
test_undo_redo (void)
{
  PlxWindow *w = open_window (1400, 900);

  drag_tp_to (w, "4");
  /* Two separate moves, not one drag: more than the history's merge window apart. */
  gi_pump (PLX_HISTORY_MERGE_US / 1000 + 100);
  drag_tp_to (w, "2");
  gi_focus_window (GTK_WINDOW (w));
  gi_key ("ctrl", XK_z);
  settle (w);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->tp, ==, 4);
  g_assert_cmpstr (slider_text (w, "Tensor parallel"), ==, "4");
  g_assert_true (plx_window_is_dirty (w));
  gi_key ("ctrl", XK_z);
  settle (w);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->tp, ==, 8);
  /* Every edit undone: the scenario is the one the window opened with, named as it
   * was and without the "•" of unsaved changes. */
  g_assert_false (plx_window_is_dirty (w));
  g_assert_cmpstr (title (w), ==, "GPT-3 175B on 64 A100-80GB, TP 8 x PP 8, interleaved 1F1B");
  gi_key ("ctrl+shift", XK_z);
  settle (w);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->tp, ==, 4);
  g_assert_true (plx_window_is_dirty (w));
  g_assert_true (g_str_has_prefix (title (w), "• "));
  close_window (w);
}

/* ---- 15. nothing pinned: nothing to compare -------------------------------------- */

static void
test_compare_needs_pin (void)
{
  PlxWindow *w = open_window (1400, 900);
  GtkWidget *popover, *item;

  gi_click (gi_find_tooltip (GTK_WIDGET (w), "Export"));
  g_assert_true (gi_wait (gi_popover_is_open, NULL, 3000));
  popover = gi_open_popover ();
  item = gi_find_label (popover, "Export Comparison…");
  g_assert_nonnull (item);
  g_assert_false (gtk_widget_is_sensitive (item));
  gi_key (NULL, XK_Escape);
  g_assert_true (gi_wait (gi_popover_is_closed, NULL, 3000));
  /* Pin (Ctrl+P): now there is something to compare. */
  gi_pump (300);
  gi_focus_window (GTK_WINDOW (w));
  gi_key ("ctrl", XK_p);
  g_assert_nonnull (plx_window_get_pinned (w));
  gi_pump (300);
  gi_click (gi_find_tooltip (GTK_WIDGET (w), "Export"));
  /* Under Xvfb (no window manager) the menu button may still count itself pressed
   * after Escape, and the first click only releases it. */
  if (!gi_wait (gi_popover_is_open, NULL, 1000))
    gi_click (gi_find_tooltip (GTK_WIDGET (w), "Export"));
  g_assert_true (gi_wait (gi_popover_is_open, NULL, 3000));
  item = gi_find_label (gi_open_popover (), "Export Comparison…");
  g_assert_true (gtk_widget_is_sensitive (item));
  gi_key (NULL, XK_Escape);
  close_window (w);
}

/* ---- 8. small windows: nothing clipped -------------------------------------------- */

static void
assert_not_clipped (GtkWidget *w, const char *what)
{
  int min_w, nat_w;

  gtk_widget_measure (w, GTK_ORIENTATION_HORIZONTAL, -1, &min_w, &nat_w, NULL, NULL);
  if (gtk_widget_get_width (w) < min_w)
    g_error ("%s is %d px wide, less than the %d px it needs", what, gtk_widget_get_width (w), min_w);
}

static void
test_small_window (void)
{
  static const int sizes[][2] = { { 1024, 640 }, { 1024, 700 }, { 1280, 720 } };

  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      PlxWindow *w = open_window (sizes[k][0], sizes[k][1]);
      GtkWidget *cards = gi_find_label (GTK_WIDGET (w), "Peak memory");
      GtkWidget *main_box;

      gi_pump (300);
      /* The window keeps the size asked for: its content fits in it. */
      g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (w)), <=, sizes[k][0]);
      g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (w)), <=, sizes[k][1]);
      g_assert_nonnull (cards);
      main_box = gtk_widget_get_parent (gtk_widget_get_ancestor (cards, GTK_TYPE_FLOW_BOX));
      assert_not_clipped (main_box, "the right pane");
      {
        /* Every card's number is shown whole, and the fit verdict leads its line. */
        const char *titles[] = { "Step time", "Throughput", "MFU", "Peak memory", "Bubble" };
        double first_y = 0;
        for (guint i = 0; i < G_N_ELEMENTS (titles); i++)
          {
            GtkWidget *card = gtk_widget_get_parent (gi_find_label (GTK_WIDGET (w), titles[i]));
            GtkWidget *value = gtk_widget_get_next_sibling (gi_find_label (GTK_WIDGET (w), titles[i]));
            PangoLayout *layout = gtk_label_get_layout (GTK_LABEL (value));
            int text_w;
            graphene_rect_t b;
            pango_layout_get_pixel_size (layout, &text_w, NULL);
            g_assert_cmpint (text_w, <=, gtk_widget_get_width (value));
            assert_not_clipped (card, titles[i]);
            /* One row of cards: on a short window two rows would take the chart's room. */
            g_assert_true (gtk_widget_compute_bounds (card, GTK_WIDGET (w), &b));
            if (i == 0)
              first_y = b.origin.y;
            g_assert_cmpfloat (fabs (b.origin.y - first_y), <, 1.0);
          }
      }
      g_assert_true (g_str_has_prefix (plx_window_get_card_text (w, 3) + strcspn (plx_window_get_card_text (w, 3), " ") + 5,
                                       "fits"));
      close_window (w);
    }
}

/* ---- 7. charts follow the style; 16. small things ---------------------------------- */

static void
test_charts_follow_style (void)
{
  PlxWindow *w = open_window (1400, 900);
  AdwStyleManager *sm = adw_style_manager_get_default ();

  g_assert_false (plx_window_charts_are_dark (w));
  adw_style_manager_set_color_scheme (sm, ADW_COLOR_SCHEME_FORCE_DARK);
  gi_pump (100);
  g_assert_true (plx_window_charts_are_dark (w));
  adw_style_manager_set_color_scheme (sm, ADW_COLOR_SCHEME_DEFAULT);
  gi_pump (100);
  g_assert_false (plx_window_charts_are_dark (w));
  close_window (w);
}

static void
test_small_things (void)
{
  PlxWindow *w = open_window (1400, 900);
  GtkWidget *sp_row, *sp;

  /* About's icon is found without installing anything. */
  g_assert_true (gtk_icon_theme_has_icon (gtk_icon_theme_get_for_display (gdk_display_get_default ()),
                                          "org.parallax.Parallax"));
  /* GPT-3 has no experts: no expert-parallel slider. */
  g_assert_null (panel_row (w, "Expert parallel"));
  /* Sequence parallelism at TP 1 has nothing to split. */
  drag_tp_to (w, "1");
  sp_row = panel_row (w, "Sequence parallelism");
  sp = gi_find_type (sp_row, GTK_TYPE_SWITCH);
  g_assert_false (gtk_widget_is_sensitive (sp));
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (sp)));
  /* The model list: sizes, smallest first (gpt2 124 M before gpt2-medium 355 M). */
  {
    GtkWidget *row = panel_row (w, "Model");
    GListModel *m = adw_combo_row_get_model (ADW_COMBO_ROW (row));
    g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (m), 0), ==, "gpt2 · 124 M");
    g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (m), 1), ==, "gpt2-medium · 355 M");
  }
  close_window (w);
}

/* ---- the wheel scrolls the panel, never a value under the pointer ------------------ */

static void
test_wheel_scrolls_panel (void)
{
  PlxWindow *w = open_window (1400, 900);
  GtkWidget *row = panel_row (w, "Pipeline parallel");
  GtkWidget *scale = gi_find_type (row, GTK_TYPE_SCALE);
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (
    GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (panel (w), GTK_TYPE_SCROLLED_WINDOW)));
  double before;

  gi_reveal (scale);
  before = gtk_adjustment_get_value (adj);
  /* Three notches down with the pointer on the PP slider, then on the sequence length. */
  gi_scroll (scale, gtk_widget_get_width (scale) / 2.0, gtk_widget_get_height (scale) / 2.0, FALSE, 3);
  settle (w);
  g_assert_cmpfloat (gtk_adjustment_get_value (adj), >, before);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->pp, ==, 8);
  {
    GtkWidget *spin = gi_find_type (panel_row (w, "Sequence length"), GTK_TYPE_SPIN_BUTTON);
    gi_reveal (spin);
    gi_scroll (spin, gtk_widget_get_width (spin) / 2.0, gtk_widget_get_height (spin) / 2.0, TRUE, 3);
    settle (w);
  }
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->seq_length, ==, 2048);
  g_assert_false (plx_window_is_dirty (w));
  close_window (w);
}

/* ---- 15. exports have the CLI's options ----------------------------------------- */

static GtkWidget *
second_window (PlxWindow *w)
{
  GListModel *tops = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (tops); i++)
    {
      g_autoptr (GtkWidget) top = g_list_model_get_item (tops, i);
      if (top != GTK_WIDGET (w) && gtk_widget_get_mapped (top))
        return top;
    }
  return NULL;
}

static void
test_export_options (void)
{
  PlxWindow *w = open_window (1400, 900);
  g_autofree char *dir = test_make_tmp_dir ("plx-use");
  g_autofree char *png = g_build_filename (dir, "t.png", NULL);
  PlxExportOptions o = { 1920, 1080, 2.0, 1, TRUE };
  cairo_surface_t *img;
  GtkWidget *dialog;

  /* Ctrl+E: the chooser offers size, background and title. */
  gi_key ("ctrl", XK_e);
  g_assert_true (gi_wait (file_dialog_open, NULL, 5000));
  gi_pump (300);
  dialog = second_window (w);
  g_assert_nonnull (dialog);
  g_assert_nonnull (gi_find_label (dialog, "Size"));
  g_assert_nonnull (gi_find_label (dialog, "Background"));
  g_assert_nonnull (gi_find_label (dialog, "Title"));
  gi_focus_window (GTK_WINDOW (dialog));
  gi_key (NULL, XK_Escape);
  g_assert_true (gi_wait (file_dialog_closed, NULL, 5000));
  /* What the choices do: 1920 x 1080 at 2x is a 3840 x 2160 image, dark background. */
  g_assert_true (plx_window_export_chart_with (w, "timeline", png, &o, NULL));
  img = cairo_image_surface_create_from_png (png);
  g_assert_cmpint (cairo_image_surface_get_width (img), ==, 3840);
  g_assert_cmpint (cairo_image_surface_get_height (img), ==, 2160);
  {
    /* The top-left pixel is background: dark (each channel below 0x40). */
    guint32 px = *(guint32 *) cairo_image_surface_get_data (img);
    g_assert_cmpuint ((px >> 16) & 0xff, <, 0x40);
    g_assert_cmpuint ((px >> 8) & 0xff, <, 0x40);
  }
  cairo_surface_destroy (img);
  g_remove (png);
  g_rmdir (dir);
  close_window (w);
}

/* ---- 13. numbers a person reads ----------------------------------------------------- */

static void
test_breakdown_and_numbers (void)
{
  PlxWindow *w = open_window (1400, 900);
  PlxResult *r = plx_window_get_result (w);
  char expect[64];
  GType level = GTK_TYPE_LEVEL_BAR;

  /* Throughput grouped by thousands with a narrow space: "10 137", not "10137". */
  g_assert_nonnull (strstr (plx_window_get_card_text (w, 1), "\u202f"));
  g_snprintf (expect, sizeof expect, "%.0f", r->report.tokens_per_s);
  g_assert_null (strstr (plx_window_get_card_text (w, 1), expect));
  /* The Time breakdown tab, clicked: bars in the timeline's colours, no level bars
   * (which turn green past 75 % for no reason). */
  gi_click (gi_find_label (GTK_WIDGET (w), "Time breakdown"));
  gi_pump (200);
  g_assert_cmpstr (plx_window_get_page (w), ==, "breakdown");
  g_assert_null (gi_find (GTK_WIDGET (w), gi_match_type, &level));
  for (guint i = 0; i < PLX_N_TIME; i++)
    g_assert_cmpfloat (plx_window_get_breakdown_share (w, i), ==, r->report.time_s[i] / r->report.step_time_s);
  close_window (w);
}

/* ---- the model editor ---------------------------------------------------------------- */

static void
test_model_editor (void)
{
  PlxWindow *w = open_window (1400, 900);
  PlxResult *r;

  /* GPT-3 175B: per layer 12h^2 + 13h = 1 812 099 072 parameters (h = 12288), plus
   * the embeddings (51200 + 2048) x h and the final norm 2h = 654 336 000: 96 layers
   * make 174.62 B, shown to three digits as "175 B" (issue 34: "125 M", not "0.13 B").
   * A GPT-2-style config has no grouped-query attention or experts. */
  g_assert_cmpstr (row_subtitle (w, "Parameters"), ==, "175 B");
  g_assert_null (panel_row (w, "Key-value heads"));
  g_assert_null (panel_row (w, "Experts"));
  /* 48 layers (6 per stage at PP 8, 2 per chunk of 3): 48 x 1 812 099 072 + 654 336 000
   * = 87.64 B ("87.6 B"), and the charts follow. */
  type_into_spin (w, "Layers", "48");
  r = plx_window_get_result (w);
  g_assert_nonnull (r);
  g_assert_cmpuint (r->scenario->model->n_layers, ==, 48);
  g_assert_cmpuint (plx_model_get_n_params (r->scenario->model), ==, G_GUINT64_CONSTANT (87635091456));
  g_assert_cmpstr (row_subtitle (w, "Parameters"), ==, "87.6 B");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (panel_row (w, "Model"))), ==,
                   "custom: values changed");
  /* A hidden size the heads do not divide: the error names the setting, as its row
   * is titled (not the file's key, n_embd), and the value. */
  type_into_spin (w, "Hidden size", "12289");
  g_assert_nonnull (plx_window_get_error (w));
  g_assert_nonnull (strstr (plx_window_get_error (w), "Hidden size"));
  g_assert_null (strstr (plx_window_get_error (w), "n_embd"));
  g_assert_nonnull (strstr (plx_window_get_error (w), "12289"));
  /* Typing the value that mends it works while the model is invalid. */
  type_into_spin (w, "Hidden size", "12288");
  g_assert_null (plx_window_get_error (w));
  g_assert_cmpuint (plx_window_get_result (w)->scenario->model->hidden, ==, 12288);
  /* Undo three times, the keyboard focus still in the spin button's text: back to
   * 175 B. */
  gi_focus_window (GTK_WINDOW (w));
  for (guint i = 0; i < 3; i++)
    {
      gi_key ("ctrl", XK_z);
      settle (w);
    }
  g_assert_null (plx_window_get_error (w));
  g_assert_cmpuint (plx_window_get_result (w)->scenario->model->n_layers, ==, 96);
  g_assert_cmpstr (row_subtitle (w, "Parameters"), ==, "175 B");
  close_window (w);
}

/* ---- saving a cluster under a name ------------------------------------------------ */

static gboolean
second_window_gone (gpointer data)
{
  return !file_dialog_open (data);
}

static void
test_save_cluster (void)
{
  PlxWindow *w = open_window (1400, 900);
  g_autofree char *path = g_build_filename (g_get_user_data_dir (), "parallax", "clusters", "my-lab.json", NULL);
  GtkWidget *combo_row;
  PlxResult *r;

  /* An A100 node with 96 GiB per GPU: custom values. */
  type_into_spin (w, "HBM capacity", "96");
  combo_row = panel_row (w, "Cluster");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (combo_row)), ==, "custom: values changed");
  /* Save As…, type a name, Enter. */
  gi_click (gi_find_label (panel (w), "Save As…"));
  g_assert_true (gi_wait (file_dialog_open, NULL, 5000));
  gi_pump (300);
  gi_type ("my-lab");
  gi_key (NULL, XK_Return);
  g_assert_true (gi_wait (second_window_gone, NULL, 5000));
  settle (w);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  r = plx_window_get_result (w);
  g_assert_cmpuint (r->scenario->cluster->hbm_bytes, ==, G_GUINT64_CONSTANT (96) * 1073741824);
  /* The scenario now names the preset: no longer "custom". */
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (combo_row)), ==, "");
  /* Listed with the built-in ones: away to a built-in and back through the dropdown. */
  gi_choose_in_combo (panel (w), "Cluster", "dgx-a100-80gb");
  settle (w);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->cluster->hbm_bytes, ==, G_GUINT64_CONSTANT (80) * 1073741824);
  gi_choose_in_combo (panel (w), "Cluster", "my-lab · 8× A100-SXM4-80GB, 96 GiB (yours)");
  settle (w);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->cluster->hbm_bytes, ==, G_GUINT64_CONSTANT (96) * 1073741824);
  g_assert_cmpuint (plx_window_get_result (w)->report.n_gpus, ==, 64);
  close_window (w);
  g_unlink (path);
}

/* ---- 12. the search page: empty state, every deciding column, a readable plot ----- */

static void
test_search_page (void)
{
  PlxWindow *w = open_window (1920, 1040);
  GtkWidget *page = plx_window_get_search_page (w);
  GtkWidget *empty, *start, *table, *paned, *plot;
  int pos, moved_to;
  static const char *const deciding[] = { "DP", "MBS", "ZeRO" };

  /* Ctrl+F: the search page, with an empty state that says what a search does and
   * offers the button, and no empty table. */
  gi_key ("ctrl", XK_f);
  gi_pump (200);
  g_assert_cmpstr (plx_window_get_page (w), ==, "search");
  empty = gi_find_type (page, ADW_TYPE_STATUS_PAGE);
  g_assert_true (gi_is_shown (empty));
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (empty)), ==, "Search the Strategy Space");
  g_assert_null (gi_find_type (page, GTK_TYPE_COLUMN_VIEW));

  start = gi_find_label (empty, "Search");
  g_assert_nonnull (start);
  gi_click (start);
  g_assert_true (gi_wait (search_done, page, 60000));
  g_assert_true (gi_wait (results_shown, page, 10000));
  gi_pump (100);
  g_assert_false (gtk_widget_get_mapped (empty));
  table = gi_find_type (page, GTK_TYPE_COLUMN_VIEW);
  g_assert_nonnull (table);

  /* The table shows every column that decides a choice (the issue saw DP,
   * micro-batch, schedule and ZeRO hidden behind a 560 px pane), and the plot keeps
   * at least 460 px. */
  paned = gi_find_type (page, GTK_TYPE_PANED);
  pos = gtk_paned_get_position (GTK_PANED (paned));
  for (guint i = 0; i < G_N_ELEMENTS (deciding); i++)
    {
      if (column_right_edge (GTK_COLUMN_VIEW (table), deciding[i]) > pos)
        g_error ("column %s ends at %d px, right of the divider at %d px", deciding[i],
                 column_right_edge (GTK_COLUMN_VIEW (table), deciding[i]), pos);
    }
  plot = GTK_WIDGET (plx_search_page_get_scatter (PLX_SEARCH_PAGE (page)));
  g_assert_cmpint (gtk_widget_get_width (plot), >=, 460);

  /* Dragging the divider 200 px left: it stays where the user put it, also after the
   * next search re-lays the page out. */
  gi_drag (paned, pos + 3, gtk_widget_get_height (paned) / 2.0, pos - 197, gtk_widget_get_height (paned) / 2.0, 10,
           NULL, NULL);
  gi_pump (200);
  moved_to = gtk_paned_get_position (GTK_PANED (paned));
  /* Within GTK's drag threshold of where the pointer went. */
  g_assert_cmpint (abs (moved_to - (pos - 200)), <=, 10);
  gi_click (gi_find_label (page, "Search"));
  gi_pump (500);
  g_assert_true (gi_wait (search_done, page, 60000));
  gi_pump (300);
  g_assert_cmpint (gtk_paned_get_position (GTK_PANED (paned)), ==, moved_to);
  close_window (w);
}

/* ---- what would fit ----------------------------------------------------------------- */

/* The CLI's JSON report for a scenario file and extra flags. */
static JsonObject *
cli_report (const char *path, const char *flag, const char *value)
{
  const char *argv[] = { g_getenv ("PLX_CLI"), "simulate", "--json", path, flag, value, NULL };
  g_autofree char *out = NULL;
  int status = 0;
  JsonNode *root;
  JsonObject *o;

  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status,
                               NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  root = json_from_string (out, NULL);
  g_assert_nonnull (root);
  o = json_object_ref (json_node_get_object (root));
  json_node_unref (root);
  return o;
}

static gboolean
fit_bar_gone (gpointer data)
{
  GtkWidget *label = data;
  return !gtk_widget_get_mapped (label);
}

/* GPT-3 175B, TP 4 x PP 8 on 1024 A100 without ZeRO: does not fit. */
static const char *gpt3_tp4_scenario =
  "{ \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 128 },"
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 1536, \"micro_batch_size\": 1, \"tp\": 4, \"pp\": 8,"
  "                \"sequence_parallel\": true, \"recompute\": \"selective\" } }";

/* The first button of the fit bar, or NULL. */
static GtkWidget *
first_fix_button (GtkWidget *fix_box)
{
  GtkWidget *child = gtk_widget_get_first_child (fix_box);
  return child != NULL ? gi_find_type (child, GTK_TYPE_BUTTON) : NULL;
}

/* The fit bar's buttons are the CLI's suggestions, in its order, one button each. */
static void
assert_fix_buttons (GtkWidget *fix_box, JsonArray *suggestions)
{
  guint n_buttons = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (fix_box); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *button = gi_find_type (child, GTK_TYPE_BUTTON);
      JsonObject *s = json_array_get_object_element (suggestions, n_buttons);
      g_assert_nonnull (button);
      g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (button)), ==, json_object_get_string_member (s, "label"));
      n_buttons++;
    }
  g_assert_cmpuint (n_buttons, ==, json_array_get_length (suggestions));
}

/* GPT-3 175B, TP 4 x PP 8 on 1024 A100 without ZeRO does not fit (the CLI says 113.4 of
 * 77 GiB). The bar under the cards says by how much and offers the CLI's single
 * changes as buttons; pressing one applies it, the result fits and the bar goes; undo
 * brings both back. At 1024x640 the bar takes its room from the charts, not from a
 * window that would grow past the screen. */
static void
test_fit_advice (void)
{
  PlxWindow *w = open_window (1024, 640);
  g_autofree char *dir = test_make_tmp_dir ("plx-use");
  g_autofree char *path = write_scenario (dir, "big.json", gpt3_tp4_scenario);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (JsonObject) cli = cli_report (path, NULL, NULL);
  g_autoptr (JsonObject) cli_fixed = NULL;
  JsonArray *suggestions = json_object_get_array_member (cli, "fit_suggestions");
  GtkWidget *bar_label, *first_fix, *fix_box;
  g_autofree char *expect = NULL;

  g_assert_false (json_object_get_boolean_member (cli, "fits_in_memory"));
  g_assert_true (plx_window_open_file (w, file, NULL));
  settle (w);

  /* Why: the CLI's peak and usable memory. */
  expect = g_strdup_printf ("Does not fit: %.1f GiB needed, %.1f GiB usable (%.1f GiB over)",
                            json_object_get_double_member (cli, "peak_memory_bytes") / 1073741824.0,
                            json_object_get_double_member (cli, "hbm_usable_bytes") / 1073741824.0,
                            (json_object_get_double_member (cli, "peak_memory_bytes") -
                             json_object_get_double_member (cli, "hbm_usable_bytes")) / 1073741824.0);
  bar_label = gi_find (GTK_WIDGET (w), gi_match_label_prefix, expect);
  g_assert_nonnull (bar_label);
  g_assert_true (gtk_widget_get_mapped (bar_label));

  /* What would: the CLI's suggestions, in its order, one button each. */
  g_assert_cmpuint (json_array_get_length (suggestions), >=, 2);
  fix_box = gtk_widget_get_next_sibling (bar_label);
  assert_fix_buttons (fix_box, suggestions);
  /* The micro-batch row says even one sequence is too much (CLI: 0). */
  g_assert_cmpint (json_object_get_int_member (cli, "max_micro_batch_size"), ==, 0);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (panel_row (w, "Micro-batch size"))), ==,
                   "None fits, not even 1");
  /* The window kept its size with the bar in it, and with a peak of three digits
   * (113.4 GiB) the five cards still share one row of a 1024 px window. */
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (w)), <=, 640);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (w)), <=, 1024);

  /* Pressing the first (fastest) change applies it: the CLI with that one flag. */
  first_fix = first_fix_button (fix_box);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (first_fix)), ==, "ZeRO 1");
  cli_fixed = cli_report (path, "--zero-stage", "1");
  gi_click (first_fix);
  settle (w);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->zero_stage, ==, 1);
  g_assert_true (plx_window_get_result (w)->report.fits_in_memory);
  g_assert_cmpfloat (plx_window_get_result (w)->report.step_time_s, ==,
                     json_object_get_double_member (cli_fixed, "step_time_s"));
  g_assert_true (gi_wait (fit_bar_gone, bar_label, 3000));
  g_assert_nonnull (strstr (plx_window_get_card_text (w, 3), "fits:"));

  /* Ctrl+Z: back to the strategy that does not fit, and its advice. */
  gi_focus_window (GTK_WINDOW (w));
  gi_key ("ctrl", XK_z);
  settle (w);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->zero_stage, ==, 0);
  g_assert_nonnull (gi_find (GTK_WIDGET (w), gi_match_label_prefix, expect));
  g_assert_true (gtk_widget_get_mapped (gi_find (GTK_WIDGET (w), gi_match_label_prefix, expect)));

  g_remove (path);
  g_rmdir (dir);
  close_window (w);
}

/* The marks under a degree slider: GtkScale makes each a widget named "mark". */
static guint
count_marks (GtkWidget *widget)
{
  guint n = g_str_equal (gtk_widget_get_css_name (widget), "mark") ? 1 : 0;

  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    n += count_marks (c);
  return n;
}

/* One mark for each value a slider offers, at most 12 values, none past that. */
static void
check_marks (PlxWindow *w, const char *title)
{
  GtkWidget *scale = gi_find_type (panel_row (w, title), GTK_TYPE_SCALE);
  guint n_values = (guint) gtk_adjustment_get_upper (gtk_range_get_adjustment (GTK_RANGE (scale))) + 1;

  g_assert_cmpuint (count_marks (scale), ==, n_values <= 12 ? n_values : 0);
}


/* Back and forth between TP 4, which does not fit, and TP 8, which does: TP 4's
 * advice comes back with the same buttons (not made anew each time), and they still
 * work; advice with other changes (TP 2) gets buttons of its own, the CLI's. The CP
 * and micro-batch sliders offer more values at one TP than at the other: their marks
 * follow, one a value, as the list grows and shrinks. */
static void
test_fit_advice_kept (void)
{
  PlxWindow *w = open_window (1400, 900);
  g_autofree char *dir = test_make_tmp_dir ("plx-use");
  g_autofree char *path = write_scenario (dir, "big.json", gpt3_tp4_scenario);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (JsonObject) cli_tp2 = cli_report (path, "--tp", "2");
  JsonArray *suggestions = json_object_get_array_member (cli_tp2, "fit_suggestions");
  GtkWidget *bar_label, *fix_box, *first;

  g_assert_true (plx_window_open_file (w, file, NULL));
  settle (w);
  bar_label = gi_find (GTK_WIDGET (w), gi_match_label_prefix, "Does not fit:");
  g_assert_nonnull (bar_label);
  fix_box = gtk_widget_get_next_sibling (bar_label);
  first = first_fix_button (fix_box);
  g_assert_nonnull (first);
  g_object_ref (first);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (first)), ==, "ZeRO 1");

  for (guint i = 0; i < 4; i++)
    {
      plx_scenario_panel_set_strategy_int (PLX_SCENARIO_PANEL (panel (w)), "tp", i % 2 == 0 ? 8 : 4);
      settle (w);
      g_assert_true (plx_window_get_result (w)->report.fits_in_memory == (i % 2 == 0));
      g_assert_true (gtk_widget_get_mapped (bar_label) == (i % 2 != 0));
      check_marks (w, "Context parallel");
      check_marks (w, "Micro-batch size");
    }
  g_assert_true (first_fix_button (fix_box) == first);
  g_object_unref (first);
  gi_click (first_fix_button (fix_box));
  settle (w);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->zero_stage, ==, 1);
  g_assert_true (plx_window_get_result (w)->report.fits_in_memory);

  /* Back to ZeRO 0; TP 2 does not fit either, and the CLI offers other changes for it. */
  gi_focus_window (GTK_WINDOW (w));
  gi_key ("ctrl", XK_z);
  settle (w);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->zero_stage, ==, 0);
  g_assert_false (json_object_get_boolean_member (cli_tp2, "fits_in_memory"));
  plx_scenario_panel_set_strategy_int (PLX_SCENARIO_PANEL (panel (w)), "tp", 2);
  settle (w);
  g_assert_true (gtk_widget_get_mapped (bar_label));
  assert_fix_buttons (fix_box, suggestions);
  check_marks (w, "Context parallel");
  check_marks (w, "Micro-batch size");

  g_remove (path);
  g_rmdir (dir);
  close_window (w);
}

/* ---- issue 34: advice that leads somewhere ----------------------------------------- */

/* The buttons after the "Nearest valid:" label, their labels joined by " | ". */
static char *
nearest_buttons (PlxWindow *w, GtkWidget **first)
{
  GtkWidget *label = gi_find_label (GTK_WIDGET (w), "Nearest valid:");
  GString *out = g_string_new (NULL);

  *first = NULL;
  for (GtkWidget *b = label != NULL ? gtk_widget_get_next_sibling (label) : NULL; b != NULL;
       b = gtk_widget_get_next_sibling (b))
    {
      g_string_append_printf (out, "%s%s", out->len > 0 ? " | " : "", gtk_button_get_label (GTK_BUTTON (b)));
      if (*first == NULL)
        *first = b;
    }
  return g_string_free (out, FALSE);
}

/* The built-in default's strategy on 12 nodes (96 GPUs, which TP 8 x PP 8 = 64 does
 * not divide) had no suggestion; no one strategy key mends it (tests/core/test-advice.c),
 * and 16 nodes (|ln 16/12| = 0.29) and 8 (|ln 12/8| = 0.41) do, as the CLI says.
 * Pressing the first sets the cluster's node count, not a strategy key. */
static void
test_nearest_node_count (void)
{
  PlxWindow *w = open_window (1400, 900);
  g_autofree char *dir = test_make_tmp_dir ("plx-use");
  g_autofree char *path = write_scenario (dir, "nodes.json",
    "{ \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 12 },"
    "  \"strategy\": { \"tp\": 8, \"pp\": 8, \"schedule\": \"interleaved-1f1b\", \"virtual_stages\": 3,"
    "                \"global_batch_size\": 64, \"seq_length\": 2048, \"sequence_parallel\": true } }");
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autofree char *buttons = NULL;
  GtkWidget *first = NULL;

  g_assert_true (plx_window_open_file (w, file, NULL));
  settle (w);
  g_assert_nonnull (plx_window_get_error (w));
  buttons = nearest_buttons (w, &first);
  g_assert_cmpstr (buttons, ==, "16 nodes (128 GPUs) | 8 nodes (64 GPUs)");
  gi_click (first);
  settle (w);
  g_assert_null (plx_window_get_error (w));
  g_assert_cmpuint (plx_window_get_result (w)->scenario->cluster->num_nodes, ==, 16);
  g_assert_cmpuint (plx_window_get_result (w)->report.n_gpus, ==, 128);
  /* dp re-derived: 128 / 64. */
  g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->dp, ==, 2);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (gi_find_type (gi_find_row (panel (w), "Nodes"),
                                                                               GTK_TYPE_SPIN_BUTTON))), ==, 16.0);
  g_remove (path);
  g_rmdir (dir);
  close_window (w);
}

/* ZeRO shards over DP x CP, as the cost model does: at TP 8 x PP 2 x CP 4 (DP 1) ZeRO
 * 1 keeps a quarter of the optimizer state (tests/core/test-advice.c) and the row says
 * nothing; at TP 8 x PP 8 (DP x CP = 1) it says ZeRO has no effect. GPT-2 with TP 4 x
 * PP 2 on 8 GPUs and a global batch of 2,500,000 is 5 million passes, which the event
 * engine refuses: the window, which has no other engine, names what the user can
 * change. */
static void
test_advice_wording (void)
{
  PlxWindow *w = open_window (1400, 900);
  g_autofree char *dir = test_make_tmp_dir ("plx-use");
  g_autofree char *cp4 = write_scenario (dir, "cp4.json",
    "{ \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 8 },"
    "  \"strategy\": { \"tp\": 8, \"pp\": 2, \"cp\": 4, \"global_batch_size\": 64, \"zero_stage\": 1 } }");
  g_autofree char *dp1 = write_scenario (dir, "dp1.json",
    "{ \"model\": { \"preset\": \"gpt3-175b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 8 },"
    "  \"strategy\": { \"tp\": 8, \"pp\": 8, \"global_batch_size\": 64, \"zero_stage\": 1 } }");
  g_autofree char *passes = write_scenario (dir, "passes.json",
    "{ \"model\": { \"preset\": \"gpt2\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 1 },"
    "  \"strategy\": { \"tp\": 4, \"pp\": 2, \"schedule\": \"1f1b\", \"global_batch_size\": 2500000 } }");
  const char *const files[] = { cp4, dp1, passes };

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr (GFile) file = g_file_new_for_path (files[i]);
      g_assert_true (plx_window_open_file (w, file, NULL));
      settle (w);
      if (i == 0)
        {
          g_assert_cmpuint (plx_window_get_result (w)->scenario->strategy->dp, ==, 1);
          g_assert_cmpstr (row_subtitle (w, "ZeRO"), ==, "");
        }
      else if (i == 1)
        g_assert_cmpstr (row_subtitle (w, "ZeRO"), ==,
                         "No effect at DP × CP = 1: ZeRO shards over the data- and context-parallel ranks");
      else
        {
          const char *error = plx_window_get_error (w);
          g_assert_nonnull (error);
          g_assert_nonnull (strstr (error, "a larger micro-batch size or a smaller global batch size"));
          g_assert_null (strstr (error, "analytical"));
        }
      g_remove (files[i]);
    }
  g_rmdir (dir);
  close_window (w);
}

/* Compare said "B is 431 % slower" of different models on different GPU counts. A:
 * the default (GPT-3 175B on 64 GPUs), pinned with Ctrl+P; B: Llama 2 70B on 128. The
 * comparison the window exports (as PDF, whose text pdftotext reads) names both and
 * compares MFU. */
static void
test_compare_unlike (void)
{
  PlxWindow *w = open_window (1400, 900);
  g_autofree char *dir = test_make_tmp_dir ("plx-use");
  g_autofree char *b = write_scenario (dir, "b.json",
    "{ \"model\": { \"preset\": \"llama-2-70b\" }, \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 16 },"
    "  \"strategy\": { \"tp\": 8, \"pp\": 8, \"global_batch_size\": 64, \"schedule\": \"1f1b\" } }");
  g_autofree char *pdf = g_build_filename (dir, "compare.pdf", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (b);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *flat = NULL;
  g_autofree char *expect = NULL;
  const char *argv[] = { "pdftotext", pdf, "-", NULL };

  if (!test_have_tool ("pdftotext"))
    {
      close_window (w);
      return;
    }
  gi_key ("ctrl", XK_p);
  g_assert_nonnull (plx_window_get_pinned (w));
  g_assert_true (plx_window_open_file (w, file, NULL));
  settle (w);
  g_assert_true (plx_window_export_chart (w, "compare", pdf, &error));
  g_assert_no_error (error);
  g_assert_cmpint (test_run_tool (argv, &text), ==, 0);
  /* pdftotext breaks lines where the layout does; the words are what count. */
  flat = g_strdelimit (g_strdup (text), "\n", ' ');
  expect = g_strdup_printf ("A (gpt3-175b, 64 GPUs) vs B (llama-2-70b, 128 GPUs): MFU %.1f %% vs %.1f %%",
                            plx_window_get_pinned (w)->report.mfu * 100.0, plx_window_get_result (w)->report.mfu * 100.0);
  if (strstr (flat, expect) == NULL)
    g_test_message ("pdftotext: %s", flat);
  g_assert_nonnull (strstr (flat, expect));
  g_assert_null (strstr (flat, "slower"));
  g_remove (pdf);
  g_remove (b);
  g_rmdir (dir);
  close_window (w);
}

/* ---- a graph model ------------------------------------------------------------------ */

static gboolean
graph_computed (gpointer data)
{
  PlxGraphPage *page = data;
  return !plx_graph_page_is_busy (page) &&
         (plx_graph_page_get_result (page) != NULL || plx_graph_page_get_error (page) != NULL);
}

/* The CLI's step time for the graph with these flags (parallax-cli simulate --model). */
static double
cli_graph_step (const char *graph, const char *const *flags)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *out = NULL;
  g_autoptr (JsonNode) root = NULL;
  int status = 0;

  g_ptr_array_add (argv, (gpointer) g_getenv ("PLX_CLI"));
  g_ptr_array_add (argv, (gpointer) "simulate");
  g_ptr_array_add (argv, (gpointer) "--model");
  g_ptr_array_add (argv, (gpointer) graph);
  g_ptr_array_add (argv, (gpointer) "--json");
  for (guint i = 0; flags[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) flags[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                               &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  root = json_from_string (out, NULL);
  g_assert_nonnull (root);
  return json_object_get_double_member (json_node_get_object (root), "step_time_s");
}

static gboolean
spin_took (gpointer data)
{
  gpointer *d = data;
  return gtk_spin_button_get_value (d[0]) == g_ascii_strtod (d[1], NULL);
}

static void
type_into (PlxGraphPage *page, GtkWidget *spin, const char *text)
{
  gpointer d[2] = { spin, (gpointer) text };

  type_into_spin_button (spin, text);
  /* Under load the typed keys may reach the spin after a fixed pause: until they
   * have, the page is idle with the old result. A value the spin refuses or clamps
   * never shows; the page is waited for all the same. (3 s was too short for
   * /gui/use/graph-partition under ASan with two GUI tests at a time.) */
  gi_wait (spin_took, d, 10000);
  gi_pump (100);
  g_assert_true (gi_wait (graph_computed, page, 10000));
  gi_pump (100);
}

/* Opening a graph of ops (what Ctrl+O's dialog and a drop do with the file) shows it
 * on its own page, run on the scenario's cluster, with the step the CLI predicts;
 * typing a degree, pressing a spin button's +, and choosing in a dropdown rerun it to
 * the CLI's step with the same flags; a degree the batch does not split into says
 * why, naming the file, tensor and sizes. At 1024x640 and at 1600x1000. */
static void
test_open_graph (void)
{
  static const guint sizes[][2] = { { 1024, 640 }, { 1600, 1000 } };
  g_autofree char *graph = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "graphs", "mlp-2layer.json", NULL);

  for (guint z = 0; z < G_N_ELEMENTS (sizes); z++)
    {
      PlxWindow *w = open_window ((int) sizes[z][0], (int) sizes[z][1]);
      g_autoptr (GFile) file = g_file_new_for_path (graph);
      PlxGraphPage *page = PLX_GRAPH_PAGE (plx_window_get_graph_page (w));
      GtkWidget *dp, *pp, *plus = NULL;
      static const char *const none[] = { NULL };
      static const char *const dp2[] = { "--dp", "2", NULL };
      static const char *const dp2pp2[] = { "--dp", "2", "--pp", "2", NULL };
      static const char *const sgd[] = { "--dp", "2", "--pp", "2", "--optimizer", "sgd", NULL };
      const char *error;

      g_assert_true (plx_window_open_file (w, file, NULL));
      g_assert_cmpstr (plx_window_get_page (w), ==, "graph");
      g_assert_true (gi_wait (graph_computed, page, 10000));
      gi_pump (200);
      g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (page)));
      g_assert_nonnull (strstr (plx_graph_page_get_facts (page), "mlp-2layer.json: a graph of "));
      g_assert_true (g_str_has_prefix (plx_graph_page_get_numbers (page), "Step "));
      g_assert_cmpfloat (plx_graph_page_get_result (page)->report.step_time_s, ==, cli_graph_step (graph, none));
      g_assert_true (plx_graph_page_get_result (page)->timeline->per_device);

      /* The panel shows the graph's model, not the scenario's: 5 ops, two weights of
       * 1024 x 1024 (2,097,152 parameters), batch 64; the scenario's model and
       * strategy rows and its summary cards are out of sight. */
      {
        g_autofree char *params = plx_format_count (2.0 * 1024 * 1024);
        g_autofree char *weights = g_strdup_printf ("2 tensors, %s parameters", params);
        GtkWidget *ops = gi_find_row (GTK_WIDGET (w), "Operations");
        GtkWidget *weights_row = gi_find_row (GTK_WIDGET (w), "Weights");
        GtkWidget *batch = gi_find_row (GTK_WIDGET (w), "Batch");

        g_assert_nonnull (ops);
        g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (ops)), ==, "5");
        g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (weights_row)), ==, weights);
        g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (batch)), ==, "64");
        g_assert_null (gi_find_row (GTK_WIDGET (w), "Parameters"));
        g_assert_null (gi_find_row (GTK_WIDGET (w), "Tensor parallel"));
        g_assert_null (gi_find_label (GTK_WIDGET (w), "Step time"));
        /* Clicked: the Timeline tab. The scenario's model, strategy and numbers are back. */
        click_tab (w, "Timeline", "timeline");
        g_assert_nonnull (gi_find_row (GTK_WIDGET (w), "Parameters"));
        g_assert_nonnull (gi_find_label (GTK_WIDGET (w), "Step time"));
        g_assert_null (gi_find_row (GTK_WIDGET (w), "Operations"));
        /* And the Graph tab again. */
        click_tab (w, "Graph", "graph");
        g_assert_nonnull (gi_find_row (GTK_WIDGET (w), "Operations"));
      }

      /* Typed: data parallel 2. */
      dp = plx_graph_page_get_control (page, "dp");
      type_into (page, dp, "2");
      g_assert_cmpfloat (plx_graph_page_get_result (page)->report.step_time_s, ==, cli_graph_step (graph, dp2));
      g_assert_cmpuint (plx_graph_page_get_result (page)->timeline->n_ranks, ==, 2);

      /* Pressed: the pipeline spin's "+". */
      pp = plx_graph_page_get_control (page, "pp");
      for (GtkWidget *c = gtk_widget_get_last_child (pp); c != NULL && plus == NULL; c = gtk_widget_get_prev_sibling (c))
        if (GTK_IS_BUTTON (c) && gtk_widget_is_sensitive (c))
          plus = c;
      g_assert_nonnull (plus);
      gi_click (plus);
      gi_pump (100);
      g_assert_true (gi_wait (graph_computed, page, 10000));
      g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (pp)), ==, 2.0);
      g_assert_cmpfloat (plx_graph_page_get_result (page)->report.step_time_s, ==, cli_graph_step (graph, dp2pp2));

      /* Chosen: SGD in the optimizer's dropdown, through its popover. */
      gi_choose_in_dropdown (plx_graph_page_get_control (page, "optimizer"), "SGD");
      g_assert_true (gi_wait (graph_computed, page, 10000));
      gi_pump (100);
      g_assert_true (gi_wait (graph_computed, page, 10000));
      g_assert_cmpfloat (plx_graph_page_get_result (page)->report.step_time_s, ==, cli_graph_step (graph, sgd));

      /* Chosen: Interleaved 1F1B with 4 micro-batches typed; the chunks spin, greyed
       * until then, offers two, and the run is the CLI's with two chunks per stage. */
      {
        static const char *const interleaved[] = { "--dp", "2", "--pp", "2", "--optimizer", "sgd", "--micro-batches", "4",
                                                   "--schedule", "interleaved-1f1b", "--virtual-stages", "2", NULL };
        GtkWidget *chunks = plx_graph_page_get_control (page, "chunks");

        g_assert_false (gtk_widget_is_sensitive (chunks));
        type_into (page, plx_graph_page_get_control (page, "micro-batches"), "4");
        gi_choose_in_dropdown (plx_graph_page_get_control (page, "schedule"), "Interleaved 1F1B");
        gi_pump (100);
        g_assert_true (gi_wait (graph_computed, page, 10000));
        g_assert_true (gtk_widget_is_sensitive (chunks));
        g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (chunks)), ==, 2.0);
        g_assert_null (plx_graph_page_get_error (page));
        g_assert_cmpfloat (plx_graph_page_get_result (page)->report.step_time_s, ==, cli_graph_step (graph, interleaved));
      }

      /* A batch of 64 does not split into 4 micro-batches x 3 ways: said, the last
       * charts kept. */
      type_into (page, dp, "3");
      error = plx_graph_page_get_error (page);
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error, "mlp-2layer.json: tensor \"x\": dimension 0 (64) does not split into 12 "
                                       "(micro-batches 4 x data parallel 3)"));
      g_assert_true (gtk_widget_get_mapped (gi_find_label (GTK_WIDGET (page), error)));
      close_window (w);
    }
}

/* `parallax-cli fuse GRAPH --dp N --json`: the found step and the baselines. */
static JsonObject *
cli_fuse (const char *graph, const char *dp)
{
  const char *argv[] = { g_getenv ("PLX_CLI"), "fuse", graph, "--dp", dp, "--json", NULL };
  g_autofree char *out = NULL;
  JsonNode *root;
  JsonObject *o;
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                               &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  root = json_from_string (out, NULL);
  g_assert_nonnull (root);
  o = json_object_ref (json_node_get_object (root));
  json_node_unref (root);
  return o;
}

/* How many of the run's timeline events carry `label`, and that each is
 * data-parallel communication on its GPU's dp stream. */
static guint
dp_events_labelled (PlxGraphPage *page, const char *label)
{
  PlxTimelineIter ev_iter;
  PlxTimelineEvent ev_buf;
  const PlxTimeline *tl = plx_graph_page_get_result (page)->timeline;
  guint n = 0;

  for (plx_timeline_iter_init (&ev_iter, tl); plx_timeline_iter_next (&ev_iter, &ev_buf);)
    {
      const PlxTimelineEvent *ev = &ev_buf;
      if (ev->label == NULL || !g_str_equal (ev->label, label))
        continue;
      g_assert_cmpint (ev->kind, ==, PLX_KIND_DP_COMM);
      g_assert_cmpint (ev->stream, ==, PLX_STREAM_DP);
      n++;
    }
  return n;
}

/* Chooses in one of the page's dropdowns, as often as a test likes. GTK 4.8 under
 * Xvfb (no window manager) lets the first click on a dropdown whose list has just
 * closed on a choice go by without opening it - seen by hand with xdotool on the
 * Optimizer dropdown too - so a person clicks again; so does this. */
static void
choose_on_page (PlxGraphPage *page, const char *control, const char *item)
{
  GtkWidget *dropdown = plx_graph_page_get_control (page, control);

  /* GTK 4.8 under Xvfb swallows the first click after a list closed (docs/
   * gui-testing.md), and a loaded machine (CI runs tests two at a time) can take
   * seconds to open one: as a person would, click until the list is open, then
   * choose in it. */
  for (guint tries = 0; tries < 3 && !gi_popover_is_open (NULL); tries++)
    {
      gi_click (dropdown);
      if (!gi_wait (gi_popover_is_open, NULL, 3000))
        gi_pump (500);
    }
  g_assert_true (gi_popover_is_open (NULL));
  gi_choose_in_open_list (item);
  gi_pump (100);
  g_assert_true (gi_wait (graph_computed, page, 20000));
  gi_pump (100);
  g_assert_true (gi_wait (graph_computed, page, 20000));
}


/* Types into a spin button right after a dropdown choice (type_into's click waits
 * for the focus the closing list may still hold), a value the spin must take. */
static void
type_after_choice (PlxGraphPage *page, GtkWidget *spin, const char *text)
{
  type_into (page, spin, text);
  /* Every value typed this way is one the spin takes. */
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), ==, g_ascii_strtod (text, NULL));
}

static void
choose_fusion (PlxGraphPage *page, const char *item)
{
  choose_on_page (page, "fusion", item);
  g_assert_null (plx_graph_page_get_error (page));
}

/* The Fusion dropdown on a four-layer MLP (512 x 512 bf16 weights: 0.5 MiB gradients)
 * over 2 GPUs. DDP's buckets take the gradients in backward order and close the first
 * once it holds 1 MiB: d:w4 and d:w3, then d:w2 and d:w1 in the second (under 25
 * MiB, closed by the end), so two all-reduces, each named by its tensors and drawn as
 * data-parallel communication on both GPUs. Every elementwise chain fuses the two
 * memory-bound chains there are - relu4 into the loss, and the loss's gradient into
 * relu4's - with one all-reduce per gradient. Each step is the one `parallax-cli fuse`
 * reports for the same plan, and the unfused step the page names is its "none".
 * Pipeline stages 2 greys the dropdown, says why, and falls back to no fusion. */
static void
test_graph_fusion (void)
{
  g_autofree char *graph = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "graphs", "mlp-4x512.json", NULL);
  g_autoptr (JsonObject) cli = cli_fuse (graph, "2");
  JsonObject *base = json_object_get_object_member (cli, "baselines");
  PlxWindow *w = open_window (1400, 900);
  g_autoptr (GFile) file = g_file_new_for_path (graph);
  PlxGraphPage *page = PLX_GRAPH_PAGE (plx_window_get_graph_page (w));
  GtkWidget *fusion = plx_graph_page_get_control (page, "fusion");
  g_autofree char *none = plx_format_time (json_object_get_double_member (base, "none"));
  g_autofree char *unfused = NULL;
  static const char *const dp2pp2[] = { "--dp", "2", "--pp", "2", NULL };

  g_assert_true (plx_window_open_file (w, file, NULL));
  g_assert_true (gi_wait (graph_computed, page, 10000));
  gi_pump (200);
  g_assert_true (gtk_widget_is_sensitive (fusion));
  type_into (page, plx_graph_page_get_control (page, "dp"), "2");
  g_assert_cmpfloat (plx_graph_page_get_result (page)->report.step_time_s, ==,
                     json_object_get_double_member (base, "none"));
  g_assert_null (strstr (plx_graph_page_get_numbers (page), "Fusion"));

  choose_fusion (page, "DDP buckets");
  unfused = g_strdup ("Fusion (DDP buckets): 0 kernels, 4 gradients in 2 all-reduces · ");
  g_assert_nonnull (strstr (plx_graph_page_get_numbers (page), unfused));
  g_assert_nonnull (strstr (plx_graph_page_get_numbers (page), none));
  g_assert_cmpuint (dp_events_labelled (page, "allreduce bucket0: d:w4, d:w3"), ==, 2);
  g_assert_cmpuint (dp_events_labelled (page, "allreduce bucket1: d:w2, d:w1"), ==, 2);
  g_assert_cmpfloat (plx_graph_page_get_result (page)->report.step_time_s, ==,
                     json_object_get_double_member (base, "ddp_25mb"));

  choose_fusion (page, "Every elementwise chain");
  g_assert_nonnull (strstr (plx_graph_page_get_numbers (page),
                            "Fusion (every elementwise chain): 2 kernels, 4 gradients in 4 all-reduces · "));
  g_assert_cmpuint (dp_events_labelled (page, "allreduce bucket0: d:w4, d:w3"), ==, 0);
  g_assert_cmpfloat (plx_graph_page_get_result (page)->report.step_time_s, ==,
                     json_object_get_double_member (base, "fuse_elementwise"));

  choose_fusion (page, "Searched");
  g_assert_nonnull (strstr (plx_graph_page_get_numbers (page), "Fusion (searched): "));
  g_assert_cmpfloat (plx_graph_page_get_result (page)->report.step_time_s, ==,
                     json_object_get_double_member (cli, "step_time_s"));

  type_into (page, plx_graph_page_get_control (page, "pp"), "2");
  g_assert_false (gtk_widget_is_sensitive (fusion));
  g_assert_cmpuint (gtk_drop_down_get_selected (GTK_DROP_DOWN (fusion)), ==, 0);
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (fusion), "Fusion is for data-parallel runs"));
  g_assert_null (strstr (plx_graph_page_get_numbers (page), "Fusion"));
  g_assert_cmpfloat (plx_graph_page_get_result (page)->report.step_time_s, ==, cli_graph_step (graph, dp2pp2));
  close_window (w);
}

/* The partition of the four-layer MLP over 2 stages of 4 micro-batches. Nearest
 * split: the forward time is 4 matmuls m, 4 ReLUs r and the loss l; half of it,
 * 2m + 2r + l/2, is l/2 from the boundary after relu2 and further from the others
 * (r + l/2 after fc2, m - l/2 after fc3), so fc3 (op 4) starts stage 1 and one edge,
 * relu2 -> fc3, is cut. Optimal runs as `--split optimal` does, DAG as `--split dag`. By hand, fc4 (op 6)
 * typed as stage 1's first op leaves three layers on stage 0 and one on stage 1: with
 * 4 micro-batches through 2 stages the slower stage sets the pace (1F1B: about
 * (4 + 2 - 1) of its forward-backward times), so the step is longer than the nearest
 * split's balanced two and two. Over 3 stages a boundary typed before the one ahead
 * of it is refused by value, and the last run stays. */
static void
test_graph_partition (void)
{
  g_autofree char *graph = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "graphs", "mlp-4x512.json", NULL);
  static const char *const nearest_flags[] = { "--pp", "2", "--micro-batches", "4", NULL };
  static const char *const optimal_flags[] = { "--pp", "2", "--micro-batches", "4", "--split", "optimal", NULL };
  static const char *const dag_flags[] = { "--pp", "2", "--micro-batches", "4", "--split", "dag", NULL };
  PlxWindow *w = open_window (1400, 900);
  g_autoptr (GFile) file = g_file_new_for_path (graph);
  PlxGraphPage *page = PLX_GRAPH_PAGE (plx_window_get_graph_page (w));
  PlxPartitionView *view = PLX_PARTITION_VIEW (plx_graph_page_get_partition_view (page));
  GtkWidget *split = plx_graph_page_get_control (page, "split");
  double nearest;
  const char *error;

  g_assert_true (plx_window_open_file (w, file, NULL));
  g_assert_true (gi_wait (graph_computed, page, 10000));
  gi_pump (200);
  g_assert_false (gtk_widget_is_sensitive (split));
  g_assert_cmpint (plx_partition_view_get_stage (view, "fc3"), ==, 0);
  type_into (page, plx_graph_page_get_control (page, "micro-batches"), "4");
  type_into (page, plx_graph_page_get_control (page, "pp"), "2");
  g_assert_true (gtk_widget_is_sensitive (split));
  nearest = plx_graph_page_get_result (page)->report.step_time_s;
  g_assert_cmpfloat (nearest, ==, cli_graph_step (graph, nearest_flags));

  /* Clicked: the Partition tab. */
  {
    GtkWidget *tab = gtk_widget_get_ancestor (gi_find_label (GTK_WIDGET (page), "Partition"), GTK_TYPE_TOGGLE_BUTTON);
    g_assert_nonnull (tab);
    gi_click (tab);
    gi_pump (200);
    g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (view)));
  }
  g_assert_cmpuint (plx_partition_view_get_n_stages (view), ==, 2);
  g_assert_cmpint (plx_partition_view_get_stage (view, "relu2"), ==, 0);
  g_assert_cmpint (plx_partition_view_get_stage (view, "fc3"), ==, 1);
  g_assert_cmpuint (plx_partition_view_get_n_cut (view), ==, 1);

  choose_on_page (page, "split", "Optimal");
  g_assert_cmpfloat (plx_graph_page_get_result (page)->report.step_time_s, ==, cli_graph_step (graph, optimal_flags));

  /* The DAG partitioner's split runs as `--split dag` does; on a chain of four layers
   * its least cut is one edge, and every op is on stage 0 or 1. */
  choose_on_page (page, "split", "DAG");
  g_assert_cmpfloat (plx_graph_page_get_result (page)->report.step_time_s, ==, cli_graph_step (graph, dag_flags));
  g_assert_cmpuint (plx_partition_view_get_n_cut (view), ==, 1);
  g_assert_cmpint (plx_partition_view_get_stage (view, "fc1"), ==, 0);
  g_assert_cmpint (plx_partition_view_get_stage (view, "loss"), ==, 1);

  choose_on_page (page, "split", "By hand");
  g_assert_nonnull (plx_graph_page_get_control (page, "boundary-1"));
  g_assert_null (plx_graph_page_get_control (page, "boundary-2"));
  type_after_choice (page, plx_graph_page_get_control (page, "boundary-1"), "6");
  g_assert_null (plx_graph_page_get_error (page));
  g_assert_cmpint (plx_partition_view_get_stage (view, "relu3"), ==, 0);
  g_assert_cmpint (plx_partition_view_get_stage (view, "fc4"), ==, 1);
  g_assert_cmpuint (plx_partition_view_get_n_cut (view), ==, 1);
  g_assert_cmpfloat (plx_graph_page_get_result (page)->report.step_time_s, >, nearest);

  /* Three stages (4 micro-batches go through 3 stages): the boundaries start evenly,
   * ops 3 and 6; the second typed as 2 is not after the first. */
  type_into (page, plx_graph_page_get_control (page, "pp"), "3");
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (plx_graph_page_get_control (page, "boundary-1"))), ==,
                     3.0);
  type_into_spin_button (plx_graph_page_get_control (page, "boundary-2"), "2");
  gi_pump (200);
  error = plx_graph_page_get_error (page);
  g_assert_nonnull (error);
  g_assert_cmpstr (error, ==, "Stage 2's first op 2 is not after stage 1's (3): each boundary must be further on "
                              "than the one before");
  g_assert_true (gtk_widget_get_mapped (gi_find_label (GTK_WIDGET (page), error)));
  g_assert_nonnull (plx_graph_page_get_result (page));
  close_window (w);
}

/* ---- the Reshard page -------------------------------------------------------------- */

/* Clicks into an entry, selects what it holds and types `text` over it. */
static void
type_into_entry (GtkWidget *entry, const char *text)
{
  GtkWidget *field = gi_find_type (entry, GTK_TYPE_TEXT);   /* what takes the focus */

  g_assert_nonnull (field);
  click_until_focused (field);
  gi_key ("ctrl", XK_a);
  gi_type (text);
  gi_pump (100);
}

static GtkWidget *
reshard_control (PlxReshardPage *page, const char *name)
{
  GtkWidget *w = plx_reshard_page_get_control (page, name);

  g_assert_nonnull (w);
  return w;
}

/* Issue 14's example typed into the page: 12288x49152 bf16 on 8x8 from [x,y] to
 * [y,-] on the default scenario's cluster. The page's totals are the planner's for
 * the same input, bit for bit, and what parallax-cli reshard prints (10.440 ms). Its
 * peak by hand: the target [y,-] holds 12288/8 x 49152 x 2 B = 144 MiB per GPU, the
 * source [x,y] 1/64 of the array, 18 MiB; the plan all-gathers y away (18 -> 144 MiB)
 * and then all-to-alls y over (144 in, 144 out): 288 MiB, twice the bound B = 144.
 * A layout that names x twice is refused beside its entry, with the parser's message,
 * and nothing is planned. The checkpoint mode moves the default GPT-3 175B from its
 * TP 8 x PP 8 to TP 4 x PP 8 (32 GPUs a copy, not 64: refused by name) and then to
 * TP 4 x PP 16, to plx_reshard_model's total (the CLI's 269.7 ms); without the
 * optimizer state, to its total without. The chart exports as a PNG. */
static void
test_reshard (void)
{
  PlxWindow *w = open_window (1400, 900);
  PlxReshardPage *page = PLX_RESHARD_PAGE (plx_window_get_reshard_page (w));
  const PlxCluster *cluster = plx_window_get_result (w)->scenario->cluster;
  const PlxScenario *sc = plx_window_get_result (w)->scenario;
  PlxArrayShape shape = { 2, { 12288, 49152 }, 2 };
  PlxMesh mesh;
  PlxSharding from, to, bad;
  g_autoptr (PlxReshardPlan) plan = NULL;
  g_autoptr (PlxReshardPlan) base = NULL;
  g_autoptr (PlxReshardModel) model = NULL;
  g_autoptr (PlxReshardModel) weights_only = NULL;
  g_autoptr (GError) bad_error = NULL;
  g_autofree char *dir = test_make_tmp_dir ("plx-use-reshard");
  g_autofree char *png = g_build_filename (dir, "reshard.png", NULL);
  g_autofree char *contents = NULL;
  gsize length = 0;
  double t, peak, bt, bpeak;
  GtkWidget *entry;

  g_assert_true (plx_mesh_parse ("8x8", &mesh, NULL));
  g_assert_true (plx_sharding_parse ("[x,y]", &mesh, 2, &from, NULL));
  g_assert_true (plx_sharding_parse ("[y,-]", &mesh, 2, &to, NULL));
  g_assert_false (plx_sharding_parse ("[x,x]", &mesh, 2, &bad, &bad_error));
  plan = plx_reshard_plan (cluster, &mesh, &shape, &from, &to, NULL);
  base = plx_reshard_plan_baseline (cluster, &mesh, &shape, &from, &to, NULL);
  g_assert_nonnull (plan);
  g_assert_nonnull (base);
  g_assert_cmpfloat (plan->peak_bytes, ==, 288.0 * 1048576.0);

  click_tab (w, "Reshard", "reshard");
  type_into_entry (reshard_control (page, "shape"), "12288x49152");
  type_into_entry (reshard_control (page, "mesh"), "8x8");
  type_into_entry (reshard_control (page, "from"), "[x,y]");
  type_into_entry (reshard_control (page, "to"), "[y,-]");
  g_assert_null (plx_reshard_page_get_error (page));
  g_assert_true (plx_reshard_page_get_totals (page, &t, &peak, &bt, &bpeak));
  g_assert_cmpfloat (t, ==, plan->time_s);
  g_assert_cmpfloat (peak, ==, plan->peak_bytes);
  g_assert_cmpfloat (bt, ==, base->time_s);
  g_assert_cmpfloat (bpeak, ==, base->peak_bytes);
  g_assert_nonnull (strstr (plx_reshard_page_get_totals_text (page), "Plan: 10.440 ms, peak 288.0 MiB per GPU"));

  entry = reshard_control (page, "from");
  type_into_entry (entry, "[x,x]");
  g_assert_cmpstr (plx_reshard_page_get_error (page), ==, bad_error->message);
  g_assert_true (gtk_widget_has_css_class (entry, "error"));
  g_assert_true (gtk_widget_get_mapped (gi_find_label (GTK_WIDGET (page), bad_error->message)));
  g_assert_false (plx_reshard_page_get_totals (page, NULL, NULL, NULL, NULL));
  g_assert_cmpstr (plx_reshard_page_get_totals_text (page), ==, "–");
  gi_pump (200);
  type_into_entry (entry, "[x,y]");
  g_assert_false (gtk_widget_has_css_class (entry, "error"));
  g_assert_true (plx_reshard_page_get_totals (page, &t, NULL, NULL, NULL));
  g_assert_cmpfloat (t, ==, plan->time_s);

  gi_click (reshard_control (page, "mode-checkpoint"));
  gi_pump (200);
  g_assert_true (gtk_widget_get_mapped (reshard_control (page, "tp")));
  type_into_spin_button (reshard_control (page, "tp"), "4");
  type_into_spin_button (reshard_control (page, "pp"), "8");
  gi_pump (100);
  g_assert_nonnull (plx_reshard_page_get_error (page));
  g_assert_true (gtk_widget_get_mapped (gi_find_label (GTK_WIDGET (page), plx_reshard_page_get_error (page))));
  g_assert_false (plx_reshard_page_get_totals (page, NULL, NULL, NULL, NULL));
  type_into_spin_button (reshard_control (page, "pp"), "16");
  gi_pump (100);
  model = plx_reshard_scenario (sc, 4, 16, TRUE, NULL);
  g_assert_nonnull (model);
  g_assert_null (plx_reshard_page_get_error (page));
  g_assert_true (plx_reshard_page_get_totals (page, &t, &peak, NULL, NULL));
  g_assert_cmpfloat (t, ==, model->time_s);
  g_assert_cmpfloat (peak, ==, model->peak_bytes);
  g_assert_nonnull (strstr (plx_reshard_page_get_totals_text (page), "Plan: 269.7 ms"));

  gi_click (reshard_control (page, "optimizer"));
  gi_pump (100);
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (reshard_control (page, "optimizer"))));
  weights_only = plx_reshard_scenario (sc, 4, 16, FALSE, NULL);
  g_assert_true (plx_reshard_page_get_totals (page, &t, NULL, NULL, NULL));
  g_assert_cmpfloat (t, ==, weights_only->time_s);

  /* Ctrl+E's target on this page; a PNG file. */
  g_assert_true (plx_window_export_chart (w, "reshard", png, NULL));
  g_assert_true (g_file_get_contents (png, &contents, &length, NULL));
  g_assert_cmpuint (length, >, 8);
  g_assert_cmpmem (contents, 8, "\x89PNG\r\n\x1a\n", 8);
  g_unlink (png);
  g_rmdir (dir);
  close_window (w);
}

/* An ONNX model with a symbolic batch (written by python3-onnx, make-models.py)
 * opens on the Graph page saying which size to give; typed under Sizes, it runs, to
 * the CLI's step with --dim batch=8. A malformed size says so. */
static void
test_open_onnx_sizes (void)
{
  g_autofree char *script = g_build_filename (g_test_get_dir (G_TEST_DIST), "onnx", "make-models.py", NULL);
  g_autofree char *dir = test_make_tmp_dir ("plx-use-onnx");
  g_autofree char *model = g_build_filename (dir, "gpt2.onnx", NULL);
  const char *argv[] = { "/usr/bin/python3", script, dir, NULL };
  static const char *const batch8[] = { "--dim", "batch=8", NULL };
  PlxWindow *w = open_window (1024, 640);
  g_autoptr (GFile) file = g_file_new_for_path (model);
  PlxGraphPage *page = PLX_GRAPH_PAGE (plx_window_get_graph_page (w));
  GtkWidget *sizes;
  int wait = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &wait,
                               NULL));
  g_assert_true (g_spawn_check_wait_status (wait, NULL));
  g_assert_true (plx_window_open_file (w, file, NULL));
  gi_pump (200);
  g_assert_cmpstr (plx_window_get_page (w), ==, "graph");
  g_assert_nonnull (plx_graph_page_get_error (page));
  g_assert_nonnull (strstr (plx_graph_page_get_error (page), "dimension 0 is symbolic (\"batch\")"));
  g_assert_nonnull (strstr (plx_graph_page_get_error (page), "Type it under Sizes"));
  g_assert_null (plx_graph_page_get_result (page));

  sizes = gi_find_type (gtk_widget_get_parent (gi_find_label (GTK_WIDGET (page), "Sizes")), GTK_TYPE_TEXT);
  g_assert_nonnull (sizes);
  gi_click (sizes);
  gi_type ("batch=eight");
  gi_key (NULL, XK_Return);
  gi_pump (200);
  g_assert_nonnull (strstr (plx_graph_page_get_error (page), "Sizes: \"batch=eight\" is not NAME=N"));
  gi_key ("ctrl", XK_a);
  gi_type ("batch=8");
  gi_key (NULL, XK_Return);
  gi_pump (100);
  g_assert_true (gi_wait (graph_computed, page, 10000));
  g_assert_null (plx_graph_page_get_error (page));
  g_assert_cmpfloat (plx_graph_page_get_result (page)->report.step_time_s, ==, cli_graph_step (model, batch8));
  close_window (w);
  test_rm_rf (dir);
}

/* ---- issue 15: uncertainty and sensitivity ------------------------------------------ */

/* GPT-3 175B on 1024 A100 with the inter-node bandwidth a range, the matmul
 * calibration a distribution and the HBM size a range whose low end is below the
 * peak (57 GiB = 61.2e9 B): some draws do not fit. */
#define UNCERTAIN_SCENARIO \
  "{ \"name\": \"uncertain\", \"model\": { \"preset\": \"gpt3-175b\" }," \
  "  \"cluster\": { \"preset\": \"dgx-a100-80gb\", \"num_nodes\": 128," \
  "    \"gpu\": { \"hbm_bytes\": { \"min\": 60e9, \"max\": 100e9 } }," \
  "    \"inter_node\": { \"bw_Bps\": { \"min\": 10e9, \"max\": 25e9 } }," \
  "    \"calibration\": { \"matmul_scale\": { \"mean\": 1.0, \"sd\": 0.05 } } }," \
  "  \"strategy\": { \"seq_length\": 2048, \"global_batch_size\": 1536, \"micro_batch_size\": 1," \
  "    \"tp\": 8, \"pp\": 8, \"sequence_parallel\": true, \"recompute\": \"selective\" } }"

/* Opened through Ctrl+O as a person would, the step card shows the band that
 * plx_uncertainty_sample gives for the same draws and seed, the memory card its OOM
 * risk; the default scenario (no ranges) shows neither. */
static void
test_uncertainty_band (void)
{
  PlxWindow *w = open_window (1400, 900);
  g_autofree char *dir = test_make_tmp_dir ("plx-use");
  g_autofree char *path = write_scenario (dir, "uncertain.json", UNCERTAIN_SCENARIO);
  g_autoptr (GError) error = NULL;
  g_autoptr (PlxScenario) sc = NULL;
  PlxUncertaintyResult u;
  g_autofree char *p5 = NULL, *p95 = NULL, *band = NULL, *risk = NULL;
  double pct;

  g_assert_nonnull (strstr (plx_window_get_card_text (w, 0), "per step on"));
  g_assert_null (strstr (plx_window_get_card_text (w, 0), "p5"));
  g_assert_null (strstr (plx_window_get_card_text (w, 3), "OOM risk"));

  sc = plx_scenario_new_from_file (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sc->cluster->uncertain->len, ==, 3);
  g_assert_true (plx_uncertainty_sample (sc->model, sc->cluster, sc->strategy, PLX_GUI_UNCERTAINTY_SAMPLES,
                                         PLX_UNCERTAINTY_DEFAULT_SEED, &u, &error));
  /* The HBM range starts below the peak: some draws must not fit, not all. */
  g_assert_cmpfloat (u.oom_probability, >, 0.0);
  g_assert_cmpfloat (u.oom_probability, <, 1.0);
  p5 = plx_format_time_short (u.step_p5_s);
  p95 = plx_format_time_short (u.step_p95_s);
  band = g_strdup_printf ("p5–p95 %s – %s", p5, p95);
  pct = u.oom_probability * 100.0;
  risk = g_strdup_printf ("OOM risk %.*f %%", pct >= 10.0 ? 0 : pct >= 1.0 ? 1 : 2, pct);

  open_by_keyboard (w, path);
  g_assert_nonnull (plx_window_get_result (w));
  g_assert_true (plx_window_get_result (w)->sampled);
  g_assert_cmpfloat (plx_window_get_result (w)->uncertainty.step_p5_s, ==, u.step_p5_s);
  g_assert_cmpfloat (plx_window_get_result (w)->uncertainty.step_p95_s, ==, u.step_p95_s);
  /* What a person reads: the card's second line. */
  g_assert_nonnull (gi_find_label (GTK_WIDGET (w), band));
  g_assert_nonnull (strstr (plx_window_get_card_text (w, 3), risk));
  /* And on the card itself, first, where a line cut short at its end keeps it. */
  g_assert_nonnull (gi_find (GTK_WIDGET (w), gi_match_label_prefix, risk));

  /* The sidebar's spins show the nominal values and say which are ranges: HBM
   * 60e9-100e9 B is 55.9-93.1 GiB (0 decimals), the inter-node link 10-25 GB/s (1).
   * Typing a value replaces the range with that number: two uncertain inputs left. */
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (panel_row (w, "HBM capacity"))), ==,
                   "GiB per GPU; range 56 – 93, midpoint shown");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (panel_row (w, "Inter-node bandwidth"))),
                   ==, "GB/s per GPU, each way; range 10.0 – 25.0, midpoint shown");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (panel_row (w, "Intra-node bandwidth"))),
                   ==, "GB/s per GPU, each way");
  type_into_spin (w, "HBM capacity", "80");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (panel_row (w, "HBM capacity"))), ==,
                   "GiB per GPU");
  g_assert_cmpuint (plx_window_get_result (w)->scenario->cluster->uncertain->len, ==, 2);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->cluster->hbm_bytes, ==, 80ull << 30);
  g_remove (path);
  g_rmdir (dir);
  close_window (w);
}

static gboolean
sensitivity_shown (gpointer page)
{
  return plx_sensitivity_page_get_layout (page) != NULL;
}

static gboolean
sensitivity_of_hbm_use (gpointer page)
{
  const PlxTornadoLayout *l = plx_sensitivity_page_get_layout (page);
  return l != NULL && g_str_has_prefix (l->title, "HBM use");
}

/* The Sensitivity tab, clicked: the widest bar is the input whose step elasticity
 * plx_sensitivity_run puts first (the largest |d ln step / d ln x|), and Ctrl+E's
 * export writes it. */
static void
test_sensitivity_page (void)
{
  PlxWindow *w = open_window (1400, 900);
  PlxSensitivityPage *page = PLX_SENSITIVITY_PAGE (plx_window_get_sensitivity_page (w));
  const PlxScenario *sc = plx_window_get_result (w)->scenario;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) s = plx_sensitivity_run (sc->model, sc->cluster, sc->strategy, 0, PLX_UNCERTAINTY_DEFAULT_SEED,
                                              &error);
  g_autofree char *dir = test_make_tmp_dir ("plx-use");
  g_autofree char *png = g_build_filename (dir, "sensitivity.png", NULL);
  g_autofree char *bytes = NULL;
  const PlxTornadoLayout *l;
  const PlxSensitivity *top;
  const char *first;
  gsize len;
  guint found = 0;

  g_assert_no_error (error);
  g_assert_cmpuint (s->len, >, 1);
  top = &g_array_index (s, PlxSensitivity, 0);
  /* Nothing computed while the page is not shown. */
  g_assert_null (plx_sensitivity_page_get_layout (page));
  click_tab (w, "Sensitivity", "sensitivity");
  g_assert_true (gi_wait (sensitivity_shown, page, 10000));
  l = plx_sensitivity_page_get_layout (page);
  g_assert_cmpuint (l->rows->len, >, 1);
  first = l->labels[g_array_index (l->rows, PlxTornadoRow, 0).index];
  /* Two inputs may tie (peak bf16 FLOP/s and the matmul scale both scale the same
   * term): the first bar's input has the largest |elasticity|, whichever it is. */
  for (guint i = 0; i < s->len; i++)
    {
      const PlxSensitivity *e = &g_array_index (s, PlxSensitivity, i);
      /* Named as the window's rows are ("Peak BF16", not gpu.peak_flops.bf16). */
      if (g_str_equal (plx_key_label (plx_cluster_input_path (e->input)), first))
        {
          g_assert_cmpfloat_with_epsilon (fabs (e->step_elasticity), fabs (top->step_elasticity),
                                          1e-12 * fabs (top->step_elasticity));
          found++;
        }
    }
  g_assert_cmpuint (found, ==, 1);
  g_assert_true (plx_window_export_chart (w, "sensitivity", png, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (png, &bytes, &len, NULL));
  g_assert_cmpmem (bytes, 4, "\x89PNG", 4);

  /* The other output, chosen in the page's drop-down: HBM use P / (H - R) moves only
   * with the HBM size H and the reserved bytes R. At H (1 - 1 %) it is
   * (H - R) / (0.99 H - R) times the nominal, so the bar's end there is
   * 100 ((H - R) / (0.99 H - R) - 1) %; at R (1 + 1 %), 100 ((H - R) / (H - 1.01 R) - 1) %. */
  {
    GtkWidget *dropdown = gi_find_type (GTK_WIDGET (page), GTK_TYPE_DROP_DOWN);
    double H = (double) sc->cluster->hbm_bytes, R = (double) sc->cluster->reserved_bytes;
    const PlxTornadoRow *rows;

    gi_choose_in_dropdown (dropdown, "HBM use");
    g_assert_true (gi_wait (sensitivity_of_hbm_use, page, 10000));
    l = plx_sensitivity_page_get_layout (page);
    g_assert_cmpfloat (R, >, 0.0);
    g_assert_cmpuint (l->rows->len, ==, 2);
    rows = (const PlxTornadoRow *) (const void *) l->rows->data;
    g_assert_cmpstr (l->labels[rows[0].index], ==, "HBM capacity");
    g_assert_cmpstr (l->labels[rows[1].index], ==, "Reserved memory");
    g_assert_cmpfloat_with_epsilon (rows[0].low, 100.0 * ((H - R) / (round (0.99 * H) - R) - 1.0), 1e-9);
    g_assert_cmpfloat_with_epsilon (rows[1].high, 100.0 * ((H - R) / (H - round (1.01 * R)) - 1.0), 1e-9);
    g_remove (png);
    g_assert_true (plx_window_export_chart (w, "sensitivity", png, &error));
    g_assert_no_error (error);
  }
  g_remove (png);
  g_rmdir (dir);
  close_window (w);
}

static gboolean
calibration_fitted (gpointer page)
{
  return !plx_calibration_page_is_busy (page) && plx_calibration_page_get_fit (page) != NULL;
}

static gboolean
step_card_is_not (gpointer data)
{
  gpointer *d = data;
  return !plx_window_is_busy (d[0]) && g_strcmp0 (plx_window_get_card_text (d[0], 0), d[1]) != 0;
}

/* `calibrate --nccl-tests FILE --gpus-per-node 8 --nodes 1 --cluster dgx-a100-80gb --json`. */
static JsonNode *
cli_calibrate_nccl (const char *file)
{
  const char *argv[] = { g_getenv ("PLX_CLI"), "calibrate", "--nccl-tests", file, "--gpus-per-node", "8", "--nodes", "1",
                         "--cluster", "dgx-a100-80gb", "--json", NULL };
  g_autofree char *out = NULL;
  int status;

  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status,
                               NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return json_from_string (out, NULL);
}

/* The Calibration tab, clicked: empty until a file is opened; the real H100 nccl-tests
 * file opened through its button and the file chooser; the group taken from the
 * file's rank lines; the residuals those the CLI prints for the same file and
 * cluster, and one checked by hand; Use This Cluster changes the step, Ctrl+Z brings
 * it back; Ctrl+E's export writes the chart; a file of no known kind is named in
 * the error. */
static void
test_calibration_page (void)
{
  PlxWindow *w = open_window (1400, 900);
  PlxCalibrationPage *page = PLX_CALIBRATION_PAGE (plx_window_get_calibration_page (w));
  g_autofree char *file = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "nccl-tests",
                                            "h100-1x8-nvlink-five-ops.txt", NULL);
  g_autoptr (JsonNode) cli = cli_calibrate_nccl (file);
  g_autofree char *dir = test_make_tmp_dir ("plx-use");
  g_autofree char *png = g_build_filename (dir, "calibration.png", NULL);
  g_autofree char *notes = write_scenario (dir, "notes.csv", "when,what\n2024-01-01,hello\n");
  /* A bandwidth sweep (another kind: the nccl-tests fit is set aside for it) whose
   * second row is not a positive bandwidth: its fit fails. */
  g_autofree char *negative = write_scenario (dir, "negative.csv", "bytes,GB/s\n1048576,100\n2097152,-5\n");
  g_autofree char *before_step = NULL, *bytes = NULL;
  g_autoptr (GError) error = NULL;
  JsonArray *ops;
  const PlxCalCurve *c;
  const PlxCalResidual *ag = NULL;
  double before_bw, before_curve_y;
  guint k = 0;
  gsize len;

  g_assert_nonnull (cli);
  click_tab (w, "Calibration", "calibration");
  g_assert_nonnull (gi_find_label (GTK_WIDGET (w), "No Measurements"));
  g_assert_null (plx_calibration_page_get_fit (page));

  gi_click (gi_find_label (GTK_WIDGET (page), "Open Measurements…"));
  type_into_file_dialog (w, file);
  g_assert_true (gi_wait (calibration_fitted, page, 20000));
  gi_pump (200);
  /* Found only while shown. */
  g_assert_null (gi_find_label (GTK_WIDGET (w), "No Measurements"));
  /* The file lists 8 ranks on one host (cnode3-002): the group it measured, not the
   * scenario's 8 x 8. */
  g_assert_cmpuint (plx_calibration_page_get_fit (page)->gpus_per_node, ==, 8);
  g_assert_cmpuint (plx_calibration_page_get_fit (page)->nodes, ==, 1);
  c = plx_calibration_page_get_curve (page);
  g_assert_nonnull (c);
  g_assert_cmpint (c->role, ==, PLX_CAL_CURVE_INTRA_NODE);
  g_assert_cmpuint (c->series->len, ==, 5);

  /* Every residual is the CLI's, in its order (op by op, size by size). */
  ops = json_object_get_array_member (json_node_get_object (cli), "ops");
  for (guint o = 0; o < json_array_get_length (ops); o++)
    {
      JsonArray *pts = json_object_get_array_member (json_array_get_object_element (ops, o), "points");
      for (guint i = 0; i < json_array_get_length (pts); i++, k++)
        {
          JsonObject *p = json_array_get_object_element (pts, i);
          const PlxCalResidual *r = &g_array_index (c->residuals, PlxCalResidual, k);
          g_assert_cmpuint (r->series, ==, o);
          g_assert_cmpfloat (r->size, ==, json_object_get_double_member (p, "bytes"));
          g_assert_cmpfloat (r->measured, ==, json_object_get_double_member (p, "measured_time_s"));
          g_assert_cmpfloat_with_epsilon (r->fitted, json_object_get_double_member (p, "model_time_s"),
                                          1e-9 * r->fitted);
          g_assert_cmpfloat_with_epsilon (r->residual_pct, json_object_get_double_member (p, "residual_pct"), 1e-6);
          /* And against the op's own curve where it got one (all but all-reduce here). */
          if (json_object_has_member (p, "own_residual_pct"))
            g_assert_cmpfloat_with_epsilon (r->own_residual_pct, json_object_get_double_member (p, "own_residual_pct"),
                                            1e-6);
          else
            g_assert_true (isnan (r->own_residual_pct));
          if (g_str_equal (json_object_get_string_member (json_array_get_object_element (ops, o), "op"), "all_gather") &&
              r->size == 33554432.0)
            ag = r;
        }
    }
  g_assert_cmpuint (k, ==, c->residuals->len);
  /* By hand, all-gather of 32 MiB on 8 GPUs: measured min(120.61, in-place) us. The
   * curve is all-reduce's, which the fit reproduces: 2(p-1) latency steps +
   * 2(p-1)/p S/B = 182.87 us. All-gather takes (p-1) steps + (p-1)/p S/B at the same
   * B: exactly half, 91.435 us; residual (91.435 - 120.61) / 120.61 = -24.19 %. */
  g_assert_nonnull (ag);
  g_assert_cmpfloat_with_epsilon (ag->measured, 120.61e-6, 1e-12);
  g_assert_cmpfloat_with_epsilon (ag->fitted, 182.87e-6 / 2.0, 1e-4 * 91.435e-6);
  g_assert_cmpfloat_with_epsilon (ag->residual_pct, (91.435 - 120.61) / 120.61 * 100.0, 0.01);
  /* The table says so, in its units. */
  g_assert_nonnull (gi_find_label (GTK_WIDGET (page), "121 µs"));
  g_assert_nonnull (gi_find_label (GTK_WIDGET (page), "91.4 µs"));
  g_assert_nonnull (gi_find_label (GTK_WIDGET (page), "-24.2 %"));
  /* The all-gather's own curve (efficiency_by_collective) reproduces it. */
  g_assert_nonnull (gi_find_label (GTK_WIDGET (page), "Own curve"));
  g_assert_true (isfinite (ag->own_residual_pct));
  g_assert_cmpfloat (fabs (ag->own_residual_pct), <, 1e-6);

  /* Use This Cluster: NVLink at the H100's 470 GB/s instead of the A100's; the step changes. */
  settle (w);
  before_step = g_strdup (plx_window_get_card_text (w, 0));
  before_bw = plx_window_get_result (w)->scenario->cluster->intra_node.bw_Bps;
  g_assert_cmpuint (plx_calibration_page_get_curve (page)->before->len, >, 0);
  before_curve_y = g_array_index (plx_calibration_page_get_curve (page)->before, PlxCalXY, 0).y;
  g_assert_cmpfloat (before_curve_y, !=, g_array_index (plx_calibration_page_get_curve (page)->fitted, PlxCalXY, 0).y);
  gi_click (gi_find_label (GTK_WIDGET (page), "Use This Cluster"));
  {
    gpointer d[2] = { w, before_step };
    g_assert_true (gi_wait (step_card_is_not, d, 10000));
  }
  settle (w);
  g_assert_true (gi_wait (calibration_fitted, page, 20000));
  /* The scenario's cluster is now the fit's own: the chart keeps the cluster it
   * replaced as "before" (not a refit on the calibrated one, whose "before" would
   * be the fitted curve itself), and Use This Cluster has nothing left to do. */
  g_assert_cmpfloat (g_array_index (plx_calibration_page_get_curve (page)->before, PlxCalXY, 0).y, ==, before_curve_y);
  g_assert_false (gtk_widget_is_sensitive (gi_find_label (GTK_WIDGET (page), "Use This Cluster")));
  g_assert_cmpfloat_with_epsilon (plx_window_get_result (w)->scenario->cluster->intra_node.bw_Bps,
                                  plx_calibration_page_get_curve (page)->peak_Bps, 1e-6);
  g_assert_cmpfloat (plx_window_get_result (w)->scenario->cluster->intra_node.bw_Bps, !=, before_bw);
  gi_focus_window (GTK_WINDOW (w));
  gi_key ("ctrl", XK_z);
  settle (w);
  g_assert_cmpstr (plx_window_get_card_text (w, 0), ==, before_step);
  g_assert_cmpfloat (plx_window_get_result (w)->scenario->cluster->intra_node.bw_Bps, ==, before_bw);

  g_assert_true (plx_window_export_chart (w, "calibration", png, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (png, &bytes, &len, NULL));
  g_assert_cmpmem (bytes, 4, "\x89PNG", 4);

  /* Not a measurement: named, and the fit on screen stays. */
  gi_click (gi_find_label (GTK_WIDGET (page), "Open Measurements…"));
  type_into_file_dialog (w, notes);
  g_assert_nonnull (gi_find (GTK_WIDGET (page), gi_match_label_prefix, notes));
  g_assert_nonnull (plx_calibration_page_get_fit (page));
  /* A measurement whose fit fails: named, the nccl-tests fit back on screen, and no
   * notice left saying the new file set it aside. */
  gi_click (gi_find_label (GTK_WIDGET (page), "Open Measurements…"));
  type_into_file_dialog (w, negative);
  gi_pump (200);
  g_assert_true (gi_wait (calibration_fitted, page, 20000));
  gi_pump (100);
  g_assert_nonnull (gi_find (GTK_WIDGET (page), gi_match_label_prefix, negative));
  g_assert_cmpint (plx_calibration_page_get_fit (page)->kind, ==, PLX_MEASUREMENT_NCCL_TESTS);
  g_assert_nonnull (gi_find (GTK_WIDGET (page), gi_match_label, "h100-1x8-nvlink-five-ops.txt (nccl-tests output)"));
  g_assert_null (gi_find (GTK_WIDGET (page), gi_match_label_prefix, "negative.csv is a"));
  g_remove (negative);
  g_remove (png);
  g_remove (notes);
  g_rmdir (dir);
  close_window (w);
}

static guint
gemms_measured (PlxCalibrationPage *page)
{
  const PlxGemmMatch *m = plx_calibration_page_get_fit (page)->gemm_match;
  guint n = 0;

  g_assert_nonnull (m);
  for (guint i = 0; i < m->rows->len; i++)
    n += g_array_index (m->rows, PlxGemmMatchRow, i).measured_s > 0.0;
  return n;
}

static gboolean
calibration_fitted_with (gpointer data)
{
  gpointer *d = data;
  return calibration_fitted (d[0]) && gemms_measured (d[0]) == GPOINTER_TO_UINT (d[1]);
}

/* `simulate SCENARIO --cluster` the cluster `calibrate --kineto TRACE --scenario
 * SCENARIO --out` writes: its step time. */
static double
cli_step_with_trace (const char *trace, const char *scenario, const char *dir)
{
  g_autofree char *out = g_build_filename (dir, "traced.json", NULL);
  const char *argv[] = { g_getenv ("PLX_CLI"), "calibrate", "--kineto", trace, "--scenario", scenario, "--out", out,
                         NULL };
  int status = 0;
  g_autoptr (JsonObject) report = NULL;

  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, NULL, NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  report = cli_report (scenario, "--cluster", out);
  g_remove (out);
  return json_object_get_double_member (report, "step_time_s");
}

/* A Kineto trace on the Calibration page is matched to the scenario's GEMMs as
 * `calibrate --kineto --scenario` does (tests/data/kineto-gemm/README.md: fc1 and
 * fc2's six products of the real trace's two MLP shapes, of 15), the table says so;
 * a hidden size of 2048 leaves no shape of the trace (0 of 15), Ctrl+Z brings the 6
 * back; Use This Cluster gives the step the CLI computes with the cluster it writes,
 * and Ctrl+Z the step before. */
static void
test_calibration_trace (void)
{
  PlxWindow *w = open_window (1400, 900);
  PlxCalibrationPage *page = PLX_CALIBRATION_PAGE (plx_window_get_calibration_page (w));
  g_autofree char *trace = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "kineto-gemm", "hta-mlp-a100.json", NULL);
  g_autofree char *scenario = g_build_filename (g_test_get_dir (G_TEST_DIST), "data", "kineto-gemm",
                                                "gpt2-mlp1024-a100.json", NULL);
  g_autofree char *dir = test_make_tmp_dir ("plx-use");
  g_autofree char *before_step = NULL;
  g_autoptr (JsonObject) plain = cli_report (scenario, "--engine", "event");
  double with_trace = cli_step_with_trace (trace, scenario, dir);
  gpointer six[2] = { page, GUINT_TO_POINTER (6) }, none[2] = { page, GUINT_TO_POINTER (0) };

  g_autoptr (GFile) scenario_file = g_file_new_for_path (scenario);

  g_assert_true (plx_window_open_file (w, scenario_file, NULL));
  settle (w);
  g_assert_cmpfloat_with_epsilon (plx_window_get_result (w)->report.step_time_s,
                                  json_object_get_double_member (plain, "step_time_s"), 1e-9);
  click_tab (w, "Calibration", "calibration");
  gi_click (gi_find_label (GTK_WIDGET (page), "Open Measurements…"));
  type_into_file_dialog (w, trace);
  g_assert_true (gi_wait (calibration_fitted_with, six, 20000));
  gi_pump (200);
  g_assert_cmpuint (plx_calibration_page_get_fit (page)->gemm_match->rows->len, ==, 15);
  g_assert_nonnull (gi_find_label (GTK_WIDGET (page),
                                   "The scenario's GEMMs: 6 of 15 products measured in the trace, used in place of "
                                   "the roofline"));
  /* fc1's forward: median (60 + 63) / 2 us of the 1024 x 1024 * 1024 x 2048 GEMMs. */
  g_assert_nonnull (gi_find_label (GTK_WIDGET (page), "61.5 µs"));

  type_into_spin (w, "Hidden size", "2048");
  g_assert_true (gi_wait (calibration_fitted_with, none, 20000));
  gi_focus_window (GTK_WINDOW (w));
  gi_key ("ctrl", XK_z);
  settle (w);
  g_assert_true (gi_wait (calibration_fitted_with, six, 20000));

  before_step = g_strdup (plx_window_get_card_text (w, 0));
  gi_click (gi_find_label (GTK_WIDGET (page), "Use This Cluster"));
  {
    gpointer d[2] = { w, before_step };
    g_assert_true (gi_wait (step_card_is_not, d, 10000));
  }
  settle (w);
  g_assert_cmpuint (plx_window_get_result (w)->scenario->cluster->n_measured_gemms, ==, 2);
  g_assert_cmpfloat_with_epsilon (plx_window_get_result (w)->report.step_time_s, with_trace, 1e-9);
  /* 61.5 and 58.5 us against a 508 us fp32 roofline: faster. */
  g_assert_cmpfloat (with_trace, <, json_object_get_double_member (plain, "step_time_s"));
  gi_focus_window (GTK_WINDOW (w));
  gi_key ("ctrl", XK_z);
  settle (w);
  g_assert_cmpstr (plx_window_get_card_text (w, 0), ==, before_step);
  g_rmdir (dir);
  close_window (w);
}

int
main (int argc, char **argv)
{
  char *home = gui_env_init (&argc, &argv);

  g_test_add_func ("/gui/use/model-dropdown-mouse", test_model_dropdown_mouse);
  g_test_add_func ("/gui/use/model-blocks-row", test_model_blocks_row);
  g_test_add_func ("/gui/use/open-graph", test_open_graph);
  g_test_add_func ("/gui/use/open-onnx-sizes", test_open_onnx_sizes);
  g_test_add_func ("/gui/use/graph-fusion", test_graph_fusion);
  g_test_add_func ("/gui/use/graph-partition", test_graph_partition);
  g_test_add_func ("/gui/use/reshard", test_reshard);
  g_test_add_func ("/gui/use/model-dropdown-keyboard", test_model_dropdown_keyboard);
  g_test_add_func ("/gui/use/cluster-dropdown", test_cluster_dropdown);
  g_test_add_func ("/gui/use/power-limit", test_power_limit);
  g_test_add_func ("/gui/use/tp-drag-valid-only", test_tp_drag_valid_only);
  g_test_add_func ("/gui/use/training-code-dropdown", test_training_code_dropdown);
  g_test_add_func ("/gui/use/deepspeed-code", test_deepspeed_code);
  g_test_add_func ("/gui/use/attention-kernel", test_attention_kernel);
  g_test_add_func ("/gui/use/loss-and-gradients", test_loss_and_gradients);
  g_test_add_func ("/gui/use/expert-rows", test_expert_rows);
  g_test_add_func ("/gui/use/pipeline-layout-row", test_pipeline_layout_row);
  g_test_add_func ("/gui/use/tab-changes-nothing", test_tab_changes_nothing);
  g_test_add_func ("/gui/use/open-shows-values", test_open_shows_values);
  g_test_add_func ("/gui/use/invalid-keeps-page", test_invalid_keeps_page);
  g_test_add_func ("/gui/use/broken-file-message", test_broken_file_message);
  g_test_add_func ("/gui/use/subtitle-follows", test_subtitle_follows);
  g_test_add_func ("/gui/use/hf-config-keeps-strategy", test_hf_config_keeps_strategy);
  g_test_add_func ("/gui/use/undo-redo", test_undo_redo);
  g_test_add_func ("/gui/use/compare-needs-pin", test_compare_needs_pin);
  g_test_add_func ("/gui/use/small-window", test_small_window);
  g_test_add_func ("/gui/use/charts-follow-style", test_charts_follow_style);
  g_test_add_func ("/gui/use/small-things", test_small_things);
  g_test_add_func ("/gui/use/wheel-scrolls-panel", test_wheel_scrolls_panel);
  g_test_add_func ("/gui/use/export-options", test_export_options);
  g_test_add_func ("/gui/use/breakdown-and-numbers", test_breakdown_and_numbers);
  g_test_add_func ("/gui/use/search-page", test_search_page);
  g_test_add_func ("/gui/use/model-editor", test_model_editor);
  g_test_add_func ("/gui/use/save-cluster", test_save_cluster);
  g_test_add_func ("/gui/use/fit-advice", test_fit_advice);
  g_test_add_func ("/gui/use/fit-advice-kept", test_fit_advice_kept);
  g_test_add_func ("/gui/use/nearest-node-count", test_nearest_node_count);
  g_test_add_func ("/gui/use/advice-wording", test_advice_wording);
  g_test_add_func ("/gui/use/compare-unlike", test_compare_unlike);
  g_test_add_func ("/gui/use/uncertainty-band", test_uncertainty_band);
  g_test_add_func ("/gui/use/sensitivity-page", test_sensitivity_page);
  g_test_add_func ("/gui/use/calibration", test_calibration_page);
  g_test_add_func ("/gui/use/calibration-trace", test_calibration_trace);
  return gui_env_finish (home, g_test_run ());
}
