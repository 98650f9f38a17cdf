#include <glib/gi18n-lib.h>
#include <string.h>

#include "plx-key-names.h"

/* The same words as the panel's rows (plx-scenario-panel.c), so one translation
 * serves both. Cluster keys go by their path below "cluster."; a model key by its
 * name in GPT-2 and in Hugging Face configs. */
static const struct
{
  const char *key;
  const char *label;
} labels[] = {
  { "tp", N_("Tensor parallel") },
  { "pp", N_("Pipeline parallel") },
  { "cp", N_("Context parallel") },
  { "ep", N_("Expert parallel") },
  { "etp", N_("Expert tensor parallel") },
  { "moe_dispatcher", N_("Token exchange") },
  { "dp", N_("Data parallel") },
  { "micro_batch_size", N_("Micro-batch size") },
  { "global_batch_size", N_("Global batch size") },
  { "seq_length", N_("Sequence length") },
  { "schedule", N_("Pipeline schedule") },
  { "virtual_stages", N_("Model chunks per stage") },
  { "recompute", N_("Recompute") },
  { "zero_stage", N_("ZeRO") },
  { "dtype", N_("Precision") },
  { "implementation", N_("Training code") },
  { "attention_kernel", N_("Attention kernel") },
  { "grad_dtype", N_("Gradients") },
  { "cross_entropy_fusion", N_("Loss") },
  { "sequence_parallel", N_("Sequence parallelism") },
  { "flash_attention", N_("FlashAttention") },
  { "overlap_dp_comm", N_("Overlap data-parallel communication") },
  { "overlap_tp_comm", N_("Overlap tensor-parallel communication") },
  { "grad_bucket_bytes", N_("Gradient bucket") },
  { "num_nodes", N_("Nodes") },
  { "gpus_per_node", N_("GPUs per node") },
  { "gpu.peak_flops", N_("Peak BF16") },
  { "gpu.hbm_bytes", N_("HBM capacity") },
  { "gpu.hbm_bw_Bps", N_("HBM bandwidth") },
  { "intra_node.bw_Bps", N_("Intra-node bandwidth") },
  { "intra_node.latency_s", N_("Intra-node latency") },
  { "inter_node.bw_Bps", N_("Inter-node bandwidth") },
  { "inter_node.latency_s", N_("Inter-node latency") },
  { "gpu.power_limit_w", N_("Power limit") },
  { "gpu.reserved_bytes", N_("Reserved memory") },
  { "gpu.tdp_w", N_("Board power") },
  { "gpu.static_power_w", N_("Static power") },
  /* The cluster's uncertain inputs (plx-cluster-inputs.c), as the Sensitivity page
   * names its bars. */
  { "gpu.peak_flops.bf16", N_("Peak BF16") },
  { "gpu.peak_flops.fp16", N_("Peak FP16") },
  { "gpu.peak_flops.fp8", N_("Peak FP8") },
  { "gpu.peak_flops.fp32", N_("Peak FP32") },
  { "gpu.peak_flops.tf32", N_("Peak TF32") },
  { "gpu.efficiency.kernel_launch_s", N_("Kernel launch time") },
  { "gpu.efficiency.attention", N_("Attention efficiency") },
  { "gpu.efficiency.attention_pytorch", N_("Attention efficiency (PyTorch)") },
  { "gpu.boost_clock_mhz", N_("Boost clock") },
  { "gpu.clock_mhz", N_("Clock") },
  { "calibration.matmul_scale", N_("Matmul calibration") },
  { "calibration.memory_scale", N_("Memory calibration") },
  { "calibration.network_scale", N_("Network calibration") },
  { "calibration.layer_overhead_s", N_("Overhead per layer") },
  { "calibration.overlap_slowdown", N_("Overlap slowdown") },
  { "n_layer", N_("Layers") },
  { "num_hidden_layers", N_("Layers") },
  { "n_embd", N_("Hidden size") },
  { "hidden_size", N_("Hidden size") },
  { "n_head", N_("Attention heads") },
  { "num_attention_heads", N_("Attention heads") },
  { "num_key_value_heads", N_("Key-value heads") },
  { "n_inner", N_("FFN hidden size") },
  { "intermediate_size", N_("FFN hidden size") },
  { "vocab_size", N_("Vocabulary") },
  { "num_local_experts", N_("Experts") },
  { "num_experts_per_tok", N_("Experts per token") },
};

/* The degrees in a product ("dp*tp*pp*cp = 2*8*4*1") keep their short names, as the
 * panel's subtitles write them. */
static const char *const degrees[] = { "dp", "tp", "pp", "cp", "ep", "etp" };

static gboolean
is_degree (const char *word)
{
  for (guint i = 0; i < G_N_ELEMENTS (degrees); i++)
    if (g_str_equal (word, degrees[i]))
      return TRUE;
  return FALSE;
}

const char *
plx_key_label (const char *key)
{
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    if (g_str_equal (labels[i].key, key))
      return _(labels[i].label);
  /* A GPU's key named without its group ("tdp_w" beside "gpu.static_power_w"). */
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    {
      if (g_str_has_prefix (labels[i].key, "gpu.") && g_str_equal (labels[i].key + 4, key))
        return _(labels[i].label);
    }
  return NULL;
}

static gboolean
is_key_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '.';
}

/* A word of key characters at `p`, as long as it runs. */
static gsize
word_length (const char *p)
{
  gsize n = 0;

  while (is_key_char (p[n]))
    n++;
  /* A sentence's full stop is not part of the key. */
  while (n > 0 && p[n - 1] == '.')
    n--;
  return n;
}

char *
plx_key_names_humanize (const char *message)
{
  GString *out = g_string_new (NULL);
  const char *p = message;

  while (p != NULL && *p != '\0')
    {
      gsize n;
      g_autofree char *word = NULL;
      const char *key, *label;

      if (!is_key_char (*p) || (p > message && is_key_char (p[-1])))
        {
          g_string_append_c (out, *p++);
          continue;
        }
      n = word_length (p);
      if (n == 0)
        {
          g_string_append_c (out, *p++);
          continue;
        }
      word = g_strndup (p, n);
      /* "strategy.tp", "cluster.gpu.hbm_bytes", "model.n_embd", or a bare key. */
      key = g_str_has_prefix (word, "strategy.") ? word + 9
            : g_str_has_prefix (word, "cluster.") ? word + 8
            : g_str_has_prefix (word, "model.")   ? word + 6
                                                  : word;
      if (key == word && is_degree (word))
        {
          /* A bare degree: upper case, "DP" as the panel's rows abbreviate. */
          g_autofree char *up = g_ascii_strup (word, -1);
          g_string_append (out, up);
        }
      /* A bare word is a key only if it cannot be English ("zero_stage", "dtype"):
       * "full recompute" stays as it is. */
      else if ((key != word || strchr (word, '_') != NULL || g_str_equal (word, "dtype")) &&
               (label = plx_key_label (key)) != NULL)
        g_string_append (out, label);
      else
        g_string_append_len (out, p, (gssize) n);
      p += n;
    }
  return g_string_free (out, FALSE);
}
