/* test-cli-import.c: parallax-cli import (docs/cli.md, "import"). Each framework's
 * documented example (tests/data/import/, SOURCES.md) is imported, the scenario is
 * compared key by key with what the example launches (the values read off the file by
 * hand, written here), simulate accepts it, and the settings left out are named on
 * stderr. Then the shell forms of launch scripts, the cluster flags and the errors. */
#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "test-files.h"
#include "test-cli-run.h"

static char *
data_path (const char *name)
{
  return g_build_filename (g_getenv ("G_TEST_SRCDIR"), "data", name, NULL);
}

/* The member at a dotted path of a JSON document. */
static JsonNode *
member (JsonNode *root, const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, ".", -1);
  JsonNode *node = root;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        g_error ("%s: no object on the way", path);
      node = json_object_get_member (json_node_get_object (node), parts[i]);
    }
  if (node == NULL)
    g_error ("%s: absent", path);
  return node;
}

static void
assert_int (JsonNode *root, const char *path, gint64 want)
{
  g_assert_cmpint (json_node_get_int (member (root, path)), ==, want);
}

static void
assert_str (JsonNode *root, const char *path, const char *want)
{
  g_assert_cmpstr (json_node_get_string (member (root, path)), ==, want);
}

static void
assert_bool (JsonNode *root, const char *path, gboolean want)
{
  g_assert_cmpint (json_node_get_boolean (member (root, path)), ==, want);
}

static void
assert_absent (JsonNode *root, const char *path)
{
  g_autofree char *parent = g_strdup (path);
  char *dot = strrchr (parent, '.');

  *dot = '\0';
  g_assert_false (json_object_has_member (json_node_get_object (member (root, parent)), dot + 1));
}

/* Every needle is on stderr, each on a line of its own that says "not mapped". */
static void
assert_lost (const char *err, const char *const *needles)
{
  g_auto (GStrv) lines = g_strsplit (err, "\n", -1);

  for (guint i = 0; needles[i] != NULL; i++)
    {
      gboolean found = FALSE;
      for (guint l = 0; lines[l] != NULL && !found; l++)
        found = strstr (lines[l], needles[i]) != NULL && strstr (lines[l], ": not mapped: ") != NULL;
      if (!found)
        g_error ("\"%s\" is not on a \"not mapped\" line of stderr:\n%s", needles[i], err);
    }
}

typedef struct
{
  char     *dir;
  char     *scenario;  /* the imported scenario, written by --out */
  JsonNode *root;
  char     *err;
} Imported;

static void
imported_clear (Imported *im)
{
  test_rm_rf (im->dir);
  g_free (im->dir);
  g_free (im->scenario);
  g_clear_pointer (&im->root, json_node_unref);
  g_free (im->err);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Imported, imported_clear)

/* parallax-cli import ARGS... on stdout, then the same with --out, which must write
 * the same document; and simulate must accept it. */
static void
import (Imported *im, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_auto (CliRun) r = { 0 };
  g_auto (CliRun) to_file = { 0 };
  g_auto (CliRun) sim = { 0 };
  g_autofree char *written = NULL;

  im->dir = test_make_tmp_dir ("plx-import");
  im->scenario = g_build_filename (im->dir, "imported.json", NULL);
  g_ptr_array_add (argv, NULL);
  g_ptr_array_add (argv, (gpointer) "import");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  cli_run (&r, NULL, NULL, (const char *const *) argv->pdata);
  g_assert_cmpint (r.status, ==, 0);
  im->root = json_from_string (r.out, &error);
  g_assert_no_error (error);
  im->err = g_steal_pointer (&r.err);

  g_ptr_array_remove_index (argv, argv->len - 1);
  g_ptr_array_add (argv, (gpointer) "--out");
  g_ptr_array_add (argv, im->scenario);
  g_ptr_array_add (argv, NULL);
  cli_run (&to_file, NULL, NULL, (const char *const *) argv->pdata);
  g_assert_cmpint (to_file.status, ==, 0);
  g_assert_cmpstr (to_file.out, ==, "");
  g_assert_true (g_file_get_contents (im->scenario, &written, NULL, NULL));
  /* The same document (print_json ends standard output's with a line break,
   * plx_json_write_file the file's without, as every JSON file Parallax writes). */
  g_assert_true (g_str_has_suffix (r.out, "\n"));
  g_assert_cmpuint (strlen (written) + 1, ==, strlen (r.out));
  g_assert_true (strncmp (written, r.out, strlen (written)) == 0);

  {
    const char *const sim_args[] = { NULL, "simulate", im->scenario, "--engine", "analytical", NULL };
    cli_run (&sim, NULL, NULL, sim_args);
    g_assert_cmpint (sim.status, ==, 0);
  }
}

/* Megatron-LM's examples/gpt3/train_gpt3_175b_distributed.sh: GPT_MODEL_ARGS 96
 * layers, hidden 12288, 96 heads, sequence and positions 2048 (GPT-2 BPE vocabulary
 * 50257, padded to 128 x TP 8 = 1024: 51200, the gpt3-175b preset), micro-batch 1,
 * global batch 1536, --fp16, TP 8 x PP 16; torchrun on 8 GPUs x 1 node, which do not
 * hold 128 a copy: 16 nodes. */
static void
test_megatron_gpt3_175b (void)
{
  g_autofree char *path = data_path ("import/train_gpt3_175b_distributed.sh");
  const char *const args[] = { path, NULL };
  const char *const lost[] = {
    "--train-iters 500000", "--lr 6.0e-5", "--weight-decay 0.1", "--split 949,50,1",
    "--step-batch-size-schedule 0:16 2.4B:320", "--save $CHECKPOINT_PATH", "--data-path $DATA_PATH",
    "--master_addr localhost", "--nproc_per_node x --nnodes 8", NULL,
  };
  g_auto (Imported) im = { 0 };

  import (&im, args);
  assert_str (im.root, "model.preset", "gpt3-175b");
  assert_str (im.root, "cluster.preset", "dgx-a100-80gb");
  assert_int (im.root, "cluster.num_nodes", 16);
  assert_int (im.root, "strategy.tp", 8);
  assert_int (im.root, "strategy.pp", 16);
  assert_int (im.root, "strategy.cp", 1);
  assert_int (im.root, "strategy.micro_batch_size", 1);
  assert_int (im.root, "strategy.global_batch_size", 1536);
  assert_int (im.root, "strategy.seq_length", 2048);
  assert_str (im.root, "strategy.dtype", "fp16");
  assert_str (im.root, "strategy.schedule", "1f1b");
  assert_str (im.root, "strategy.implementation", "megatron");
  /* --attention-backend auto: Transformer Engine's fused attention. */
  assert_bool (im.root, "strategy.flash_attention", TRUE);
  /* Neither --overlap-grad-reduce nor --use-distributed-optimizer. */
  assert_bool (im.root, "strategy.overlap_dp_comm", FALSE);
  assert_absent (im.root, "strategy.zero_stage");
  assert_absent (im.root, "strategy.sequence_parallel");
  assert_lost (im.err, lost);
  /* Lines name where the flag was written, not where its array was expanded. */
  g_assert_nonnull (strstr (im.err, "train_gpt3_175b_distributed.sh:41: --train-iters 500000"));
}

/* torchtitan's llama3_8b.toml: flavor 8B (the llama-3-8b preset), local batch 1,
 * sequence 8192, FSDP over every GPU (shard -1), selective checkpointing, no compile;
 * no GPU count: the default cluster's 64, so a global batch of 64. */
static void
test_torchtitan_llama3_8b (void)
{
  g_autofree char *path = data_path ("import/llama3_8b.toml");
  const char *const args[] = { path, NULL };
  const char *const lost[] = {
    "activation_checkpoint.selective_ac_option op", "training.steps = 1000", "optimizer.lr = 0.0003",
    "quantize.linear.float8.enable_fsdp_float8_all_gather = false", "checkpoint.interval = 500",
    "GPUs (not stated)", NULL,
  };
  g_auto (Imported) im = { 0 };

  import (&im, args);
  assert_str (im.root, "model.preset", "llama-3-8b");
  assert_int (im.root, "cluster.num_nodes", 8);
  assert_int (im.root, "strategy.seq_length", 8192);
  assert_int (im.root, "strategy.micro_batch_size", 1);
  assert_int (im.root, "strategy.global_batch_size", 64);
  assert_int (im.root, "strategy.tp", 1);
  assert_int (im.root, "strategy.pp", 1);
  assert_int (im.root, "strategy.zero_stage", 3);
  assert_absent (im.root, "strategy.shard_group_size");
  assert_str (im.root, "strategy.recompute", "selective");
  assert_str (im.root, "strategy.implementation", "pytorch");
  assert_str (im.root, "strategy.dtype", "bf16");
  assert_bool (im.root, "strategy.flash_attention", TRUE);
  assert_lost (im.err, lost);
}

/* HSDP: 2 replicas of 4-way shards, and JobConfig's default model (llama3's
 * debugmodel: dim 256, 6 layers, 16 heads, vocab 2048; FFN int(2 x 1024 / 3) = 682
 * rounded up to 256: 768). */
static void
test_torchtitan_hsdp_defaults (void)
{
  const char *toml = "[parallelism]\ndata_parallel_shard_degree = 4\ndata_parallel_replicate_degree = 2\n"
                     "[training]\nlocal_batch_size = 2\n";
  g_autofree char *dir = test_make_tmp_dir ("plx-import-toml");
  g_autofree char *path = test_write_file (dir, "hsdp.toml", toml, -1);
  const char *const args[] = { path, NULL };
  g_auto (Imported) im = { 0 };

  import (&im, args);
  assert_str (im.root, "model.model_type", "llama");
  assert_int (im.root, "model.hidden_size", 256);
  assert_int (im.root, "model.num_hidden_layers", 6);
  assert_int (im.root, "model.intermediate_size", 768);
  assert_int (im.root, "model.vocab_size", 2048);
  assert_int (im.root, "cluster.num_nodes", 1);
  assert_int (im.root, "strategy.dp", 8);
  assert_int (im.root, "strategy.zero_stage", 3);
  assert_int (im.root, "strategy.shard_group_size", 4);
  assert_int (im.root, "strategy.global_batch_size", 16);
  assert_int (im.root, "strategy.seq_length", 2048);
  /* Every setting of the file was mapped. */
  g_assert_null (strstr (im.err, ": not mapped: "));
  test_rm_rf (dir);
}

/* --cluster and --nodes as simulate reads them: the batch follows the new dp. */
static void
test_cluster_flags (void)
{
  g_autofree char *path = data_path ("import/llama3_8b.toml");
  const char *const args[] = { path, "--cluster", "dgx-h100-80gb", "--nodes", "4", NULL };
  g_auto (Imported) im = { 0 };

  import (&im, args);
  assert_str (im.root, "cluster.preset", "dgx-h100-80gb");
  assert_int (im.root, "cluster.num_nodes", 4);
  assert_int (im.root, "strategy.global_batch_size", 32);
  g_assert_null (strstr (im.err, "GPUs (not stated)"));
}

/* The NeMo launcher's conf/training/gpt3/5b.yaml: 16 nodes x 8 devices, bf16, TP 1,
 * PP 1, micro-batch 4, global 2048, 24 layers of 4096 with 32 heads, FFN
 * ${multiply:4, ${.hidden_size}} = 16384 (4h, GPT-2's own), sequence 2048, GPT-2 BPE
 * padded to 128: 50304; distributed_fused_adam with overlap_grad_sync: ZeRO-1 and
 * overlapped reduction; Transformer Engine. */
static void
test_nemo_gpt3_5b (void)
{
  g_autofree char *path = data_path ("import/gpt3_5b.yaml");
  const char *const args[] = { path, NULL };
  const char *const lost[] = {
    "trainer.max_steps = 75000", "model.optim.lr = 0.00016", "model.init_method_std = 0.01",
    "run.results_dir = \"${base_results_dir}/${.name}\"", "model.data.splits_string", "exp_manager.name", NULL,
  };
  g_auto (Imported) im = { 0 };

  import (&im, args);
  assert_str (im.root, "model.model_type", "gpt2");
  assert_int (im.root, "model.n_layer", 24);
  assert_int (im.root, "model.n_embd", 4096);
  assert_int (im.root, "model.n_head", 32);
  assert_int (im.root, "model.vocab_size", 50304);
  assert_int (im.root, "model.n_positions", 2048);
  assert_absent (im.root, "model.n_inner");
  assert_int (im.root, "cluster.num_nodes", 16);
  assert_int (im.root, "strategy.tp", 1);
  assert_int (im.root, "strategy.pp", 1);
  assert_int (im.root, "strategy.micro_batch_size", 4);
  assert_int (im.root, "strategy.global_batch_size", 2048);
  assert_int (im.root, "strategy.seq_length", 2048);
  assert_str (im.root, "strategy.dtype", "bf16");
  assert_int (im.root, "strategy.zero_stage", 1);
  assert_bool (im.root, "strategy.overlap_dp_comm", TRUE);
  assert_bool (im.root, "strategy.flash_attention", TRUE);
  assert_str (im.root, "strategy.implementation", "megatron");
  assert_absent (im.root, "strategy.recompute");
  assert_lost (im.err, lost);
}

/* DeepSpeed's tests/model/Megatron_GPT2/ds_config_func_bs8_zero2_gas3.json with GPT-2's
 * config.json: micro-batch 8, accumulation 3, ZeRO-2, fp16; no train_batch_size, so
 * the default cluster's 64 GPUs make 8 x 3 x 64 = 1536. */
static void
test_deepspeed_zero2 (void)
{
  g_autofree char *path = data_path ("import/ds_config_func_bs8_zero2_gas3.json");
  g_autofree char *hf = data_path ("hf-configs/openai-community--gpt2.json");
  const char *const args[] = { path, hf, NULL };
  const char *const lost[] = {
    "activation_checkpointing.partition_activations = true", "zero_optimization.reduce_bucket_size = 7000000",
    "fp16.loss_scale_window = 1000", "gradient_clipping = 1", "seq_length", NULL,
  };
  g_auto (Imported) im = { 0 };

  import (&im, args);
  assert_str (im.root, "model.model_type", "gpt2");
  assert_int (im.root, "model.n_layer", 12);
  assert_int (im.root, "strategy.micro_batch_size", 8);
  assert_int (im.root, "strategy.global_batch_size", 1536);
  assert_int (im.root, "strategy.zero_stage", 2);
  assert_str (im.root, "strategy.dtype", "fp16");
  assert_str (im.root, "strategy.implementation", "deepspeed");
  /* overlap_comm is on by default only for stage 3. */
  assert_bool (im.root, "strategy.overlap_dp_comm", FALSE);
  assert_lost (im.err, lost);
}

/* A launch script in the forms bash scripts use: continuations, arrays, variables
 * set in the script (and one that is not), ${X:-default}, $((...)), quotes, comments,
 * "--flag=value"; a Llama-style model with grouped-query attention, the distributed
 * optimizer and interleaving. */
static void
test_megatron_shell_forms (void)
{
  const char *script =
    "#!/bin/bash\n"
    "GPUS_PER_NODE=8\n"
    "NNODES=${NNODES:-4}\n"
    "export TP=2\n"
    "LAYERS=32  # the depth\n"
    "MODEL_ARGS=(\n"
    "  --num-layers $LAYERS --hidden-size 4096  # 7B-ish\n"
    "  --num-attention-heads 32 --group-query-attention --num-query-groups 8\n"
    "  --ffn-hidden-size 14336 --swiglu --normalization RMSNorm\n"
    "  --position-embedding-type rope --disable-bias-linear\n"
    "  --untie-embeddings-and-output-weights --vocab-size 128000\n"
    "  --seq-length 4096 --max-position-embeddings 8192\n"
    ")\n"
    "TRAIN=\"--micro-batch-size 1 --global-batch-size 256 --bf16\"\n"
    "torchrun --nproc_per_node $GPUS_PER_NODE --nnodes $NNODES pretrain_gpt.py \\\n"
    "  ${MODEL_ARGS[@]} $TRAIN \\\n"
    "  --tensor-model-parallel-size=$TP --pipeline-model-parallel-size $((TP * 2)) \\\n"
    "  --num-layers-per-virtual-pipeline-stage 4 --sequence-parallel \\\n"
    "  --use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather \\\n"
    "  --recompute-granularity selective --cross-entropy-loss-fusion \\\n"
    "  --save \"$CKPT_DIR\" --lr '3e-4'\n";
  g_autofree char *dir = test_make_tmp_dir ("plx-import-sh");
  g_autofree char *path = test_write_file (dir, "llama.sh", script, -1);
  const char *const args[] = { path, NULL };
  const char *const lost[] = { "--save $CKPT_DIR", "--lr 3e-4", NULL };
  g_auto (Imported) im = { 0 };

  import (&im, args);
  assert_str (im.root, "model.model_type", "llama");
  assert_int (im.root, "model.num_hidden_layers", 32);
  assert_int (im.root, "model.num_key_value_heads", 8);
  assert_int (im.root, "model.intermediate_size", 14336);
  /* 128000 padded to 128 x TP 2 = 256: 128000. */
  assert_int (im.root, "model.vocab_size", 128000);
  assert_int (im.root, "model.max_position_embeddings", 8192);
  assert_bool (im.root, "model.tie_word_embeddings", FALSE);
  /* 8 GPUs x 4 nodes (NNODES's default). */
  assert_int (im.root, "cluster.num_nodes", 4);
  assert_int (im.root, "strategy.tp", 2);
  assert_int (im.root, "strategy.pp", 4);
  /* 32 layers over 4 stages of 4-layer chunks: 2 chunks a stage. */
  assert_int (im.root, "strategy.virtual_stages", 2);
  assert_str (im.root, "strategy.schedule", "interleaved-1f1b");
  assert_int (im.root, "strategy.micro_batch_size", 1);
  assert_int (im.root, "strategy.global_batch_size", 256);
  assert_int (im.root, "strategy.seq_length", 4096);
  assert_str (im.root, "strategy.dtype", "bf16");
  assert_bool (im.root, "strategy.sequence_parallel", TRUE);
  assert_int (im.root, "strategy.zero_stage", 1);
  assert_bool (im.root, "strategy.overlap_dp_comm", TRUE);
  assert_str (im.root, "strategy.recompute", "selective");
  assert_str (im.root, "strategy.cross_entropy_fusion", "native");
  assert_lost (im.err, lost);
  /* Every setting of the model was mapped. */
  g_assert_null (strstr (im.err, "--swiglu"));
  g_assert_null (strstr (im.err, "--disable-bias-linear"));
  test_rm_rf (dir);
}

/* Exit 1 naming the file (and line and text where there is one), or 2 for usage. */
static void
assert_refused (const char *const *argv, int status, const char *needle)
{
  g_auto (CliRun) r = { 0 };

  cli_run (&r, NULL, NULL, argv);
  g_assert_cmpint (r.status, ==, status);
  if (strstr (r.err, needle) == NULL)
    g_error ("\"%s\" not in: %s", needle, r.err);
  g_assert_cmpstr (r.out, ==, "");
}

static void
test_errors (void)
{
  g_autofree char *dir = test_make_tmp_dir ("plx-import-bad");
  g_autofree char *unknown = test_write_file (dir, "notes.txt", "hello world\n", -1);
  g_autofree char *toml = test_write_file (dir, "bad.toml", "[training]\nseq_len 8192\n", -1);
  g_autofree char *yaml = test_write_file (dir, "bad.yaml", "model:\n  num_layers: 2\n  devices 8\n", -1);
  g_autofree char *no_value = test_write_file (dir, "a.sh", "python pretrain_gpt.py --num-layers 2 --hidden-size\n", -1);
  g_autofree char *not_number = test_write_file (dir, "b.sh", "python pretrain_gpt.py \\\n  --num-layers two\n", -1);
  g_autofree char *nemo_text = test_write_file (dir, "c.yaml", "model:\n  num_layers: many\n", -1);
  g_autofree char *missing = g_build_filename (dir, "missing.sh", NULL);
  g_autofree char *hf = data_path ("hf-configs/openai-community--gpt2.json");
  g_autofree char *ds = data_path ("import/ds_config_func_bs8_zero2_gas3.json");
  const char *const a1[] = { NULL, "import", missing, NULL };
  const char *const a2[] = { NULL, "import", unknown, NULL };
  const char *const a3[] = { NULL, "import", "--from", "jax", unknown, NULL };
  const char *const a4[] = { NULL, "import", toml, NULL };
  const char *const a5[] = { NULL, "import", yaml, NULL };
  const char *const a6[] = { NULL, "import", no_value, NULL };
  const char *const a7[] = { NULL, "import", not_number, NULL };
  const char *const a8[] = { NULL, "import", nemo_text, NULL };
  const char *const a9[] = { NULL, "import", toml, yaml, NULL };
  const char *const a10[] = { NULL, "import", NULL };
  const char *const a11[] = { NULL, "import", hf, NULL };
  const char *const a12[] = { NULL, "import", ds, hf, "--model", "gpt2", NULL };
  const char *const a13[] = { NULL, "import", "--from", "torchtitan", unknown, NULL };

  assert_refused (a1, 1, "missing.sh");
  assert_refused (a2, 1, "notes.txt: not a configuration this command knows");
  assert_refused (a3, 2, "--from: \"jax\" is not megatron, torchtitan, nemo or deepspeed");
  assert_refused (a4, 1, "bad.toml:2: expected \"=\" after the key: \"seq_len 8192\"");
  assert_refused (a5, 1, "bad.yaml:3: expected \"key: value\": \"devices 8\"");
  assert_refused (a6, 1, "a.sh:1: --hidden-size: needs a value");
  assert_refused (a7, 1, "b.sh:2: --num-layers: \"two\" is not a whole number");
  assert_refused (a8, 1, "c.yaml: model.num_layers: \"many\" is not a whole number");
  assert_refused (a9, 1, "bad.yaml: a second configuration");
  assert_refused (a10, 2, "import: no file given");
  assert_refused (a11, 1, "a model's config.json, not a training configuration");
  assert_refused (a12, 1, "--model: the model is already");
  /* Forced: read as TOML, and refused as TOML. */
  assert_refused (a13, 1, "notes.txt:1: expected \"=\" after the key: \"hello world\"");
  test_rm_rf (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli-import/megatron-gpt3-175b", test_megatron_gpt3_175b);
  g_test_add_func ("/cli-import/megatron-shell-forms", test_megatron_shell_forms);
  g_test_add_func ("/cli-import/torchtitan-llama3-8b", test_torchtitan_llama3_8b);
  g_test_add_func ("/cli-import/torchtitan-hsdp-defaults", test_torchtitan_hsdp_defaults);
  g_test_add_func ("/cli-import/cluster-flags", test_cluster_flags);
  g_test_add_func ("/cli-import/nemo-gpt3-5b", test_nemo_gpt3_5b);
  g_test_add_func ("/cli-import/deepspeed-zero2", test_deepspeed_zero2);
  g_test_add_func ("/cli-import/errors", test_errors);
  return g_test_run ();
}
