#include <math.h>

#include "parallax/plx-error.h"
#include "parallax/plx-report.h"

static const char *const mem_names[PLX_N_MEM] = {
  "weights", "gradients", "optimizer", "activations", "other",
};
static const char *const time_names[PLX_N_TIME] = {
  "compute", "recompute", "tp_comm", "pp_comm", "dp_comm", "bubble", "optimizer",
};

PlxReport *
plx_report_copy (const PlxReport *report)
{
  return g_memdup2 (report, sizeof *report);
}

void
plx_report_free (PlxReport *report)
{
  g_free (report);
}

const char *
plx_mem_category_to_string (PlxMemCategory category)
{
  return mem_names[category];
}

const char *
plx_time_category_to_string (PlxTimeCategory category)
{
  return time_names[category];
}

JsonNode *
plx_report_to_json (const PlxReport *r)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "engine");
  json_builder_add_string_value (b, r->engine);
#define NUM(key, value) \
  json_builder_set_member_name (b, key); \
  json_builder_add_double_value (b, value)
  NUM ("step_time_s", r->step_time_s);
  NUM ("tokens_per_s", r->tokens_per_s);
  NUM ("model_flops_per_step", r->model_flops_per_step);
  NUM ("hardware_flops_per_step", r->hardware_flops_per_step);
  NUM ("mfu", r->mfu);
  NUM ("hfu", r->hfu);
  NUM ("bubble_fraction", r->bubble_fraction);
#undef NUM
  json_builder_set_member_name (b, "fits_in_memory");
  json_builder_add_boolean_value (b, r->fits_in_memory);
  json_builder_set_member_name (b, "peak_memory_bytes");
  json_builder_add_int_value (b, (gint64) r->peak_memory_bytes);
  json_builder_set_member_name (b, "hbm_bytes");
  json_builder_add_int_value (b, (gint64) r->hbm_bytes);
  json_builder_set_member_name (b, "hbm_usable_bytes");
  json_builder_add_int_value (b, (gint64) r->hbm_usable_bytes);
  json_builder_set_member_name (b, "memory_bytes");
  json_builder_begin_object (b);
  for (guint i = 0; i < PLX_N_MEM; i++)
    {
      json_builder_set_member_name (b, mem_names[i]);
      json_builder_add_int_value (b, (gint64) r->memory_bytes[i]);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "time_s");
  json_builder_begin_object (b);
  for (guint i = 0; i < PLX_N_TIME; i++)
    {
      json_builder_set_member_name (b, time_names[i]);
      json_builder_add_double_value (b, r->time_s[i]);
    }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "n_gpus");
  json_builder_add_int_value (b, r->n_gpus);
  json_builder_set_member_name (b, "reported_stage");
  json_builder_add_int_value (b, r->reported_stage);
  json_builder_set_member_name (b, "layer_forward_s");
  json_builder_add_double_value (b, r->layer_forward_s);
  json_builder_set_member_name (b, "layer_backward_s");
  json_builder_add_double_value (b, r->layer_backward_s);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* Seconds with a unit that keeps three significant digits readable. */
static char *
format_time (double s)
{
  if (s == 0.0)
    return g_strdup ("0 s");
  if (s >= 1.0)
    return g_strdup_printf ("%.3f s", s);
  if (s >= 1e-3)
    return g_strdup_printf ("%.3f ms", s * 1e3);
  return g_strdup_printf ("%.1f µs", s * 1e6);
}

static char *
format_bytes (guint64 bytes)
{
  return g_strdup_printf ("%.2f GiB", bytes / 1073741824.0);
}

char *
plx_report_to_text (const PlxReport *r)
{
  GString *out = g_string_new (NULL);
  g_autofree char *step = format_time (r->step_time_s);
  g_autofree char *peak = format_bytes (r->peak_memory_bytes);
  g_autofree char *usable = format_bytes (r->hbm_usable_bytes);
  g_autofree char *hbm = format_bytes (r->hbm_bytes);
  g_autofree char *lf = format_time (r->layer_forward_s);
  g_autofree char *lb = format_time (r->layer_backward_s);

  g_string_append_printf (out, "Engine            %s\n", r->engine);
  g_string_append_printf (out, "Step time         %s\n", step);
  g_string_append_printf (out, "Throughput        %.0f tokens/s (%.1f tokens/s per GPU)\n",
                          r->tokens_per_s, r->tokens_per_s / r->n_gpus);
  g_string_append_printf (out, "MFU               %.1f %%   (HFU %.1f %%)\n", r->mfu * 100.0, r->hfu * 100.0);
  g_string_append_printf (out, "Model FLOPs       %.3e FLOP per step\n", r->model_flops_per_step);
  g_string_append_printf (out, "Pipeline bubble   %.1f %% of the step\n", r->bubble_fraction * 100.0);
  g_string_append_printf (out, "One layer         forward %s, backward %s (one micro-batch)\n", lf, lb);
  g_string_append_printf (out, "Peak memory       %s of %s usable (%s HBM), pipeline stage %u: %s\n",
                          peak, usable, hbm, r->reported_stage,
                          r->fits_in_memory ? "fits" : "DOES NOT FIT");
  for (guint i = 0; i < PLX_N_MEM; i++)
    {
      g_autofree char *v = format_bytes (r->memory_bytes[i]);
      g_string_append_printf (out, "  %-15s %10s\n", mem_names[i], v);
    }
  g_string_append (out, "Time per step on that GPU\n");
  for (guint i = 0; i < PLX_N_TIME; i++)
    {
      g_autofree char *v = format_time (r->time_s[i]);
      g_string_append_printf (out, "  %-15s %12s  %5.1f %%\n", time_names[i], v,
                              r->step_time_s > 0 ? 100.0 * r->time_s[i] / r->step_time_s : 0.0);
    }
  return g_string_free (out, FALSE);
}

gboolean
plx_report_check (const PlxReport *r,
                  guint64          seq_length,
                  guint64          micro_batch_size,
                  GError         **error)
{
  const char *what = NULL, *unit = "";
  double value = 0.0;
  const double figures[] = { r->step_time_s, r->tokens_per_s, r->mfu, r->hfu, r->bubble_fraction,
                             r->model_flops_per_step, r->hardware_flops_per_step };

  for (guint i = 0; i < PLX_N_MEM && what == NULL; i++)
    if ((double) r->memory_bytes[i] >= PLX_REPORT_MAX_BYTES)
      {
        what = plx_mem_category_to_string ((PlxMemCategory) i);
        value = (double) r->memory_bytes[i];
        unit = " bytes";
      }
  for (guint i = 0; i < PLX_N_TIME && what == NULL; i++)
    if (!isfinite (r->time_s[i]) || r->time_s[i] < 0.0)
      {
        what = plx_time_category_to_string ((PlxTimeCategory) i);
        value = r->time_s[i];
        unit = " s";
      }
  for (guint i = 0; i < G_N_ELEMENTS (figures) && what == NULL; i++)
    if (!isfinite (figures[i]) || figures[i] < 0.0)
      {
        what = "the step time, throughput, MFU or FLOP count";
        value = figures[i];
      }
  if (what == NULL)
    return TRUE;
  g_set_error (error, PLX_ERROR, PLX_ERROR_INVALID_VALUE,
               "strategy: %s would come to %.3g%s on one GPU, past what Parallax can count (memory up to 4 EiB, "
               "finite times): seq_length %" G_GUINT64_FORMAT " with micro_batch_size %" G_GUINT64_FORMAT
               " (or the model's size) is beyond any GPU",
               what, value, unit, seq_length, micro_batch_size);
  return FALSE;
}
