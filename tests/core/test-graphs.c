/* DisCo's benchmark models as graph files (tests/data/graphs, written by
 * tools/graphgen; docs/graph-format.md, "Benchmark models"): their parameters and
 * forward FLOPs against the papers' configurations counted by hand, each trained and
 * run data-parallel on eight A100s, and the files equal to what graphgen writes. */
#include <math.h>
#include <string.h>

#include "parallax/parallax.h"
#include "ir/plx-ir.h"

typedef struct
{
  const char *model;  /* graphgen's name */
  const char *file;   /* in tests/data/graphs */
  gint64      batch;
} Bench;

static const Bench benches[] = {
  { "gpt2", "gpt2-b256.json", 256 },
  { "bert-large", "bert-large-b256.json", 256 },
  { "resnet50", "resnet50-b2048.json", 2048 },
  { "vgg16", "vgg16-b1024.json", 1024 },
};

static PlxIrGraph *
load (const Bench *b)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "graphs", b->file, NULL);
  g_autoptr (GError) error = NULL;
  PlxIrGraph *g = plx_ir_graph_new_from_file (path, &error);

  g_assert_no_error (error);
  return g;
}

static gint64
parameters (const PlxIrGraph *g)
{
  gint64 n = 0;

  for (guint t = 0; t < g->tensors->len; t++)
    {
      const PlxIrTensor *x = g->tensors->pdata[t];
      if (x->producer < 0 && x->role == PLX_IR_ROLE_WEIGHT)
        n += plx_ir_tensor_elements (x);
    }
  return n;
}

/* Multiply-accumulates of the matmuls and convolutions (half their FLOPs). */
static double
macs (const PlxIrGraph *g)
{
  double f = 0.0;

  for (guint i = 0; i < g->ops->len; i++)
    {
      const PlxIrOp *op = g->ops->pdata[i];
      if (op->kind == PLX_IR_MATMUL || op->kind == PLX_IR_CONV)
        f += plx_ir_op_flops (g, op) / 2.0;
    }
  return f;
}

static void
test_parameters (void)
{
  /* GPT-2 small (Radford et al. 2019; h = 768, 12 layers, vocabulary 50,257, context
   * 1,024), the LM head tied to the token embedding:
   *   embeddings 50,257 x 768 + 1,024 x 768           = 38,597,376 + 786,432
   *   a layer: 2 layer norms 2 x 1,536; QKV 768 x 2,304 + 2,304 = 1,771,776;
   *     projection 768 x 768 + 768 = 590,592; MLP 768 x 3,072 + 3,072 = 2,362,368
   *     and 3,072 x 768 + 768 = 2,360,064               = 7,087,872, x 12 = 85,054,464
   *   final layer norm                                 = 1,536
   *   total 124,439,808, the published count. */
  /* BERT-large (Devlin et al. 2019; h = 1024, 24 layers, 16 heads, vocabulary 30,522,
   * 512 positions) with the masked-LM head and no pooler or next-sentence head
   * (HF's BertForMaskedLM):
   *   embeddings 30,522 x 1,024 + 512 x 1,024 + 2 x 1,024 + layer norm 2,048
   *                                                    = 31,782,912
   *   a layer: Q, K, V 3 x (1,024^2 + 1,024) = 3,148,800; output 1,049,600; layer
   *     norm 2,048; FFN 1,024 x 4,096 + 4,096 = 4,198,400 and 4,096 x 1,024 + 1,024 =
   *     4,195,328; layer norm 2,048                   = 12,596,224, x 24 = 302,309,376
   *   MLM head: dense 1,049,600, layer norm 2,048, decoder bias 30,522 (its matrix the
   *     tied word embedding)                           = 1,082,170
   *   total 335,174,458 (BertModel with its pooler is the 335,141,888 usually quoted:
   *   1,049,600 for the pooler instead of the head's 1,082,170). */
  static const gint64 expected[] = { 124439808, 335174458,
                                     /* torchvision's resnet50 and vgg16 (He et al.
                                      * 2016; Simonyan & Zisserman 2015, config D) */
                                     25557032, 138357544 };

  for (guint m = 0; m < G_N_ELEMENTS (benches); m++)
    {
      g_autoptr (PlxIrGraph) g = load (&benches[m]);
      g_assert_cmpint (parameters (g), ==, expected[m]);
      g_assert_cmpint (plx_ir_graph_batch (g), ==, benches[m].batch);
    }
}

static void
test_forward_flops (void)
{
  double per_sample[G_N_ELEMENTS (benches)];

  /* A transformer layer on s tokens of width h: the QKV, output and two MLP matmuls
   * are 3h^2 + h^2 + 8h^2 = 12 h^2 multiply-adds a token, 12 s h^2 in all; Q K^T and
   * the context P V are s^2 h each (over all heads), 2 s^2 h. FLOPs are twice:
   * 24 s h^2 + 4 s^2 h a layer. The LM head is 2 s h V; BERT's dense transform before
   * it another 2 s h^2. */
  {
    double s = 1024, h = 768, v = 50257;
    /* 12 x (24 s h^2 + 4 s^2 h) + 2 s h V = 291,648,307,200 a sequence; 2 x params x
     * tokens (254,852,726,784) misses the attention (38.7 G) and counts the position
     * table as if it were multiplied (1.6 G). */
    per_sample[0] = 12 * (24 * s * h * h + 4 * s * s * h) + 2 * s * h * v;
  }
  {
    double s = 512, h = 1024, v = 30522;
    per_sample[1] = 24 * (24 * s * h * h + 4 * s * s * h) + 2 * s * h * h + 2 * s * h * v;   /* 368,085,827,584 */
  }
  {
    /* ResNet-50 v1.5, multiply-adds of each convolution P Q K C R S (output size,
     * filters, input channels, kernel):
     *   stem 7x7/2: 112^2 x 64 x 3 x 49                                  = 118,013,952
     *   a bottleneck of width w on an n x n input (output n/stride), input channels c:
     *     1x1 c -> w at n, 3x3 w -> w at n/stride, 1x1 w -> 4w at n/stride, and on a
     *     stage's first block the 1x1/stride shortcut c -> 4w at n/stride; e.g. stage
     *     1's first block 56^2 (64 x 64 + 9 x 64^2 + 64 x 256 + 64 x 256) = 231,211,008
     *   stages of 3, 4, 6 and 3 blocks of width 64, 128, 256, 512 from 56 x 56 (the
     *     stem's max pool), the later three halving the size on their first block
     *   fc 2,048 x 1,000 = 2,048,000
     * summed below, block by block. */
    static const double w[4] = { 64, 128, 256, 512 }, n_blocks[4] = { 3, 4, 6, 3 };
    double total = 112.0 * 112 * 64 * 3 * 49, n = 56, c = 64;
    for (guint st = 0; st < 4; st++)
      for (guint k = 0; k < n_blocks[st]; k++)
        {
          double out = k == 0 && st > 0 ? n / 2 : n;
          total += n * n * c * w[st] + out * out * 9 * w[st] * w[st] + out * out * w[st] * 4 * w[st];
          if (k == 0)
            total += out * out * c * 4 * w[st];
          c = 4 * w[st];
          n = out;
        }
    per_sample[2] = 2 * (total + 2048.0 * 1000);
    /* 4,089,184,256 multiply-adds: the "about 4.1 G" quoted for v1.5. He et al.'s
     * Table 1 gives 3.8 x 10^9 for v1, which strides the first 1x1 and so runs it on
     * the smaller output. */
    g_assert_cmpfloat (per_sample[2] / 2, ==, 4089184256.0);
  }
  {
    /* VGG-16: 3x3 convolutions at 224 (3 -> 64, 64 -> 64), 112 (-> 128 twice), 56
     * (-> 256 three times), 28 and 14 (-> 512 three times each), then 25,088 x 4,096 +
     * 4,096 x 4,096 + 4,096 x 1,000 = 123,633,664: 15,470,264,320 multiply-adds. */
    double total = 224.0 * 224 * 9 * (3 * 64 + 64 * 64) + 112.0 * 112 * 9 * (64 * 128 + 128 * 128) +
                   56.0 * 56 * 9 * (128 * 256 + 2 * 256 * 256) + 28.0 * 28 * 9 * (256 * 512 + 2 * 512 * 512) +
                   14.0 * 14 * 9 * 3 * 512 * 512 + 25088.0 * 4096 + 4096.0 * 4096 + 4096.0 * 1000;
    g_assert_cmpfloat (total, ==, 15470264320.0);
    per_sample[3] = 2 * total;
  }
  for (guint m = 0; m < G_N_ELEMENTS (benches); m++)
    {
      g_autoptr (PlxIrGraph) g = load (&benches[m]);
      g_assert_cmpfloat (2 * macs (g) / (double) benches[m].batch, ==, per_sample[m]);
    }
}

/* Each model trained with Adam and spread over 8 GPUs of a DGX A100 by data
 * parallelism: every weight replicated, so one gradient all-reduce a weight (no
 * bucketing: that is DisCo's tensor fusion, still to come) carrying each GPU's whole
 * gradient, 2 bytes a parameter; every GPU a batch of batch / 8. */
static void
test_train_dp8 (void)
{
  g_autoptr (PlxCluster) cluster = plx_cluster_new_preset ("dgx-a100-80gb", NULL);

  g_assert_nonnull (cluster);
  for (guint m = 0; m < G_N_ELEMENTS (benches); m++)
    {
      g_autoptr (PlxIrGraph) fwd = load (&benches[m]);
      g_autoptr (GError) error = NULL;
      g_autoptr (PlxIrGraph) t = plx_ir_training_graph (fwd, PLX_IR_OPTIMIZER_ADAM, benches[m].file, &error);
      PlxIrParallel par = { 8, 1, 1, 1, PLX_IR_SCHEDULE_1F1B };
      g_autoptr (PlxIrGraph) p = NULL;
      guint n_weights = 0, n_reduce = 0;
      double reduced = 0.0;
      PlxIrRun run;

      g_assert_no_error (error);
      p = plx_ir_parallelize (t, &par, cluster, benches[m].file, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (p->n_devices, ==, 8);
      for (guint i = 0; i < fwd->tensors->len; i++)
        {
          const PlxIrTensor *x = fwd->tensors->pdata[i];
          n_weights += x->producer < 0 && x->role == PLX_IR_ROLE_WEIGHT;
        }
      for (guint i = 0; i < p->ops->len; i++)
        {
          const PlxIrOp *op = p->ops->pdata[i];
          if (op->kind == PLX_IR_ALL_REDUCE)
            {
              n_reduce++;
              reduced += plx_ir_tensor_bytes (p->tensors->pdata[op->inputs[0]]);
              g_assert_cmpuint (op->n_devices, ==, 8);
            }
          /* The images or sequences each GPU runs: an eighth. */
          if (op->kind == PLX_IR_LOSS)
            g_assert_cmpint (((const PlxIrTensor *) p->tensors->pdata[op->inputs[0]])->shape[0], ==,
                             benches[m].batch / 8);
        }
      g_assert_cmpuint (n_reduce, ==, n_weights);
      g_assert_cmpfloat (reduced, ==, 2.0 * (double) parameters (fwd));
      g_assert_true (plx_ir_simulate (p, cluster, &run, &error));
      g_assert_no_error (error);
      g_assert_true (isfinite (run.makespan_s) && run.makespan_s > 0.0);
      /* Every GPU holds at least its weights, gradients and Adam's 12 bytes a
       * parameter of state: 2 + 2 + 12 = 16 bytes a parameter. */
      g_assert_cmpfloat (run.peak_bytes, >=, 16.0 * (double) parameters (fwd));
      plx_ir_run_clear (&run);
    }
}

static gboolean
run_graphgen (const char *const *args, char **out, char **err, GError **error)
{
  const char *exe = g_getenv ("PLX_GRAPHGEN");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  gint wait = 0;

  g_assert_nonnull (exe);
  g_ptr_array_add (argv, (gpointer) exe);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, &wait,
                               NULL));
  return g_spawn_check_wait_status (wait, error);
}

/* The committed files are what graphgen writes now, byte for byte. */
static void
test_files_current (void)
{
  for (guint m = 0; m < G_N_ELEMENTS (benches); m++)
    {
      g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "graphs", benches[m].file, NULL);
      g_autofree char *want = NULL, *out = NULL, *err = NULL, *batch = g_strdup_printf ("%" G_GINT64_FORMAT,
                                                                                        benches[m].batch);
      const char *args[] = { benches[m].model, "--batch", batch, NULL };
      g_autoptr (GError) error = NULL;

      g_assert_true (g_file_get_contents (path, &want, NULL, NULL));
      g_assert_true (run_graphgen (args, &out, &err, &error));
      g_assert_no_error (error);
      g_assert_cmpstr (out, ==, want);
    }
}

static void
test_graphgen_refusals (void)
{
  static const struct
  {
    const char *args[4];
    const char *message;
  } cases[] = {
    { { "resnet50", "--batch", "0", NULL }, "--batch: \"0\" is not a whole number from 1 to 1048576" },
    { { "resnet50", "--batch", "-3", NULL }, "--batch: \"-3\" is not a whole number from 1 to 1048576" },
    { { "gpt2", "--batch", "99999999999999999999", NULL }, "\"99999999999999999999\" is not a whole number" },
    { { "gpt2", "--batch", "8x", NULL }, "\"8x\" is not a whole number" },
    { { "gpt2", "--batches", "8", NULL }, "\"--batches\" is not an option" },
    { { "resnet-50", NULL }, "\"resnet-50\" is not a model (gpt2, bert-large, resnet50, vgg16)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      g_autoptr (GError) error = NULL;

      g_assert_false (run_graphgen (cases[i].args, &out, &err, &error));
      g_assert_cmpstr (out, ==, "");
      g_assert_nonnull (strstr (err, cases[i].message));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/graphs/parameters", test_parameters);
  g_test_add_func ("/core/graphs/forward-flops", test_forward_flops);
  g_test_add_func ("/core/graphs/train-dp8", test_train_dp8);
  g_test_add_func ("/core/graphs/files-current", test_files_current);
  g_test_add_func ("/core/graphs/graphgen-refusals", test_graphgen_refusals);
  return g_test_run ();
}
