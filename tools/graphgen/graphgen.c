/* graphgen: DisCo's benchmark models (Yi et al. 2022) as Parallax graph files
 * (docs/graph-format.md): GPT-2 small, BERT-large, ResNet-50 and VGG-16 at a given
 * global batch, written to standard output.
 *
 *   graphgen gpt2|bert-large|resnet50|vgg16 [--batch N] > FILE.json
 *
 * The graph is built with the IR's own API and checked as a file would be
 * (plx_ir_graph_check), so what it writes always reads back. One tensor or op a
 * line keeps the files small and their diffs readable. Where each model comes
 * from, and what is left out, is in docs/graph-format.md ("Benchmark models"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parallax/parallax.h"
#include "ir/plx-ir.h"

typedef struct
{
  PlxIrGraph *g;
} Gen;

/* A tensor of bf16 (dtype given for the rest) with the shape in `shape`. */
static guint
tensor (Gen *gen, const char *name, PlxIrRole role, PlxDtype dtype, guint rank, const gint64 *shape)
{
  return plx_ir_graph_add_tensor (gen->g, name, rank, shape, dtype, role);
}

static const PlxIrTensor *
tensor_at (Gen *gen, guint t)
{
  return gen->g->tensors->pdata[t];
}

static guint
weight (Gen *gen, const char *prefix, const char *what, guint rank, const gint64 *shape)
{
  g_autofree char *name = g_strdup_printf ("%s.%s", prefix, what);

  return tensor (gen, name, PLX_IR_ROLE_WEIGHT, PLX_DTYPE_BF16, rank, shape);
}

/* Op `name` of `kind` writing one new activation "name.out" of `shape`. */
static guint
op (Gen *gen, const char *name, PlxIrKind kind, const guint *in, guint n_in, guint rank, const gint64 *shape,
    PlxIrOp **made)
{
  static const guint device0 = 0;
  g_autofree char *tname = g_strdup_printf ("%s.out", name);
  guint out = tensor (gen, tname, PLX_IR_ROLE_DATA, PLX_DTYPE_BF16, rank, shape);
  PlxIrOp *o = plx_ir_graph_add_op (gen->g, name, kind, in, n_in, &out, 1, &device0, 1);

  if (made != NULL)
    *made = o;
  return out;
}

/* An op whose output is its first input's shape. */
static guint
same (Gen *gen, const char *name, PlxIrKind kind, const guint *in, guint n_in)
{
  const PlxIrTensor *x = tensor_at (gen, in[0]);
  gint64 shape[PLX_IR_MAX_RANK];

  memcpy (shape, x->shape, sizeof shape);
  return op (gen, name, kind, in, n_in, x->rank, shape, NULL);
}

static guint
unary (Gen *gen, const char *prefix, const char *what, PlxIrKind kind, guint x)
{
  g_autofree char *name = g_strdup_printf ("%s.%s", prefix, what);

  return same (gen, name, kind, &x, 1);
}

static guint
add (Gen *gen, const char *name, guint a, guint b)
{
  guint in[2] = { a, b };

  return same (gen, name, PLX_IR_ADD, in, 2);
}

/* x [..., k] times a weight [k, n], plus a bias [n] if asked: "prefix.w", "prefix.b". */
static guint
linear (Gen *gen, const char *prefix, guint x, gint64 n, gboolean bias)
{
  const PlxIrTensor *xt = tensor_at (gen, x);
  gint64 wshape[2] = { xt->shape[xt->rank - 1], n }, shape[PLX_IR_MAX_RANK];
  guint rank = xt->rank, in[2] = { x, weight (gen, prefix, "w", 2, wshape) }, y;
  g_autofree char *mm = g_strdup_printf ("%s.matmul", prefix);

  memcpy (shape, xt->shape, sizeof shape);
  shape[rank - 1] = n;
  y = op (gen, bias ? mm : prefix, PLX_IR_MATMUL, in, 2, rank, shape, NULL);
  if (!bias)
    return y;
  return add (gen, prefix, y, weight (gen, prefix, "b", 1, &n));
}

/* A layer norm over the last dimension with its scale and shift (Ba et al. 2016). */
static guint
layer_norm (Gen *gen, const char *prefix, guint x)
{
  const PlxIrTensor *xt = tensor_at (gen, x);
  gint64 h = xt->shape[xt->rank - 1];
  guint in[3] = { x, 0, 0 };

  in[1] = weight (gen, prefix, "g", 1, &h);
  in[2] = weight (gen, prefix, "b", 1, &h);
  return same (gen, prefix, PLX_IR_LAYER_NORM, in, 3);
}

/* ---- transformers ------------------------------------------------------------- */

typedef struct
{
  gint64   layers, hidden, heads, vocab, seq;
  gboolean post_ln;   /* BERT: LN(x + f(x)); GPT-2: x + f(LN(x)) */
} TransformerConfig;

/* [b, s, heads x d] -> [b, heads, s, d] (or back, `to_heads` FALSE). */
static guint
heads_view (Gen *gen, const char *prefix, guint x, const TransformerConfig *c, gboolean to_heads)
{
  const PlxIrTensor *xt = tensor_at (gen, x);
  gint64 b = xt->shape[0], d = c->hidden / c->heads;
  gint64 split[4] = { b, c->seq, c->heads, d }, heads[4] = { b, c->heads, c->seq, d };
  gint64 whole[3] = { b, c->seq, c->hidden };
  g_autofree char *rname = g_strdup_printf ("%s.reshape", prefix), *tname = g_strdup_printf ("%s.transpose", prefix);
  PlxIrOp *t;
  guint y;

  if (to_heads)
    {
      y = op (gen, rname, PLX_IR_RESHAPE, &x, 1, 4, split, NULL);
      y = op (gen, tname, PLX_IR_TRANSPOSE, &y, 1, 4, heads, &t);
    }
  else
    {
      y = op (gen, tname, PLX_IR_TRANSPOSE, &x, 1, 4, split, &t);
      y = op (gen, rname, PLX_IR_RESHAPE, &y, 1, 3, whole, NULL);
    }
  /* [0, 2, 1, 3] is its own inverse. */
  t->n_perm = 4;
  t->perm[0] = 0;
  t->perm[1] = 2;
  t->perm[2] = 1;
  t->perm[3] = 3;
  return y;
}

/* Multi-head self-attention (Vaswani et al. 2017 §3.2): one QKV projection, per head
 * Q K^T as a matmul over batch dimensions [b, heads], softmax, times V, the heads
 * joined and projected. The 1/sqrt(d) scale and the mask are left out (elementwise,
 * fused into the softmax by the frameworks). */
static guint
attention (Gen *gen, const char *prefix, guint x, const TransformerConfig *c)
{
  const PlxIrTensor *xt = tensor_at (gen, x);
  gint64 b = xt->shape[0], h = c->hidden;
  gint64 part[3] = { b, c->seq, h }, scores[4] = { b, c->heads, c->seq, c->seq };
  gint64 ctx_shape[4] = { b, c->heads, c->seq, h / c->heads };
  g_autofree char *qkv_name = g_strdup_printf ("%s.qkv", prefix), *split_name = g_strdup_printf ("%s.split", prefix);
  g_autofree char *sname = g_strdup_printf ("%s.scores", prefix), *pname = g_strdup_printf ("%s.softmax", prefix);
  g_autofree char *cname = g_strdup_printf ("%s.context", prefix), *oname = g_strdup_printf ("%s.proj", prefix);
  guint qkv = linear (gen, qkv_name, x, 3 * h, TRUE), parts[3], heads[3], in[2], s, p, ctx;
  static const char *const which[3] = { "q", "k", "v" };
  PlxIrOp *o;

  for (guint j = 0; j < 3; j++)
    {
      g_autofree char *tname = g_strdup_printf ("%s.%s", prefix, which[j]);
      parts[j] = tensor (gen, tname, PLX_IR_ROLE_DATA, PLX_DTYPE_BF16, 3, part);
    }
  {
    static const guint device0 = 0;
    o = plx_ir_graph_add_op (gen->g, split_name, PLX_IR_SPLIT, &qkv, 1, parts, 3, &device0, 1);
    o->axis = 2;
  }
  for (guint j = 0; j < 3; j++)
    {
      g_autofree char *vname = g_strdup_printf ("%s.%s", prefix, which[j]);
      heads[j] = heads_view (gen, vname, parts[j], c, TRUE);
    }
  in[0] = heads[0];
  in[1] = heads[1];
  s = op (gen, sname, PLX_IR_MATMUL, in, 2, 4, scores, &o);
  o->transpose_b = TRUE;   /* K stored [b, heads, s, d]: Q K^T */
  p = op (gen, pname, PLX_IR_SOFTMAX, &s, 1, 4, scores, NULL);
  in[0] = p;
  in[1] = heads[2];
  ctx = op (gen, cname, PLX_IR_MATMUL, in, 2, 4, ctx_shape, NULL);
  ctx = heads_view (gen, cname, ctx, c, FALSE);
  return linear (gen, oname, ctx, h, TRUE);
}

/* The position-wise MLP: h -> 4h, GELU, -> h (both models use GELU; Hendrycks &
 * Gimpel 2016). */
static guint
mlp (Gen *gen, const char *prefix, guint x, const TransformerConfig *c)
{
  g_autofree char *fc = g_strdup_printf ("%s.fc", prefix), *proj = g_strdup_printf ("%s.proj", prefix);
  guint y = linear (gen, fc, x, 4 * c->hidden, TRUE);

  y = unary (gen, prefix, "gelu", PLX_IR_GELU, y);
  return linear (gen, proj, y, c->hidden, TRUE);
}

static guint
block (Gen *gen, guint l, guint x, const TransformerConfig *c)
{
  g_autofree char *p = g_strdup_printf ("h%u", l);
  g_autofree char *attn = g_strdup_printf ("%s.attn", p), *ffn = g_strdup_printf ("%s.mlp", p);
  g_autofree char *ln1 = g_strdup_printf ("%s.ln1", p), *ln2 = g_strdup_printf ("%s.ln2", p);
  g_autofree char *res1 = g_strdup_printf ("%s.residual1", p), *res2 = g_strdup_printf ("%s.residual2", p);

  if (c->post_ln)
    {
      x = layer_norm (gen, ln1, add (gen, res1, x, attention (gen, attn, x, c)));
      return layer_norm (gen, ln2, add (gen, res2, x, mlp (gen, ffn, x, c)));
    }
  x = add (gen, res1, x, attention (gen, attn, layer_norm (gen, ln1, x), c));
  return add (gen, res2, x, mlp (gen, ffn, layer_norm (gen, ln2, x), c));
}

/* A lookup in `table` by `ids`: [..., h]. */
static guint
embed (Gen *gen, const char *name, guint table, guint ids)
{
  const PlxIrTensor *it = tensor_at (gen, ids), *tt = tensor_at (gen, table);
  gint64 shape[PLX_IR_MAX_RANK];
  guint in[2] = { table, ids };

  memcpy (shape, it->shape, it->rank * sizeof shape[0]);
  shape[it->rank] = tt->shape[1];
  return op (gen, name, PLX_IR_GATHER, in, 2, it->rank + 1, shape, NULL);
}

/* GPT-2 (Radford et al. 2019) and BERT (Devlin et al. 2019): token and learned
 * position embeddings (and BERT's segment embeddings), the blocks, and a language
 * modelling head whose output matrix is the token embedding (tied, as both papers'
 * code does), then softmax cross-entropy against a label per position. Token ids,
 * positions and labels are 4-byte integers, written fp32 (the IR has no integer
 * dtype). */
static void
transformer (Gen *gen, gint64 b, const TransformerConfig *c)
{
  gint64 ids[2] = { b, c->seq }, pos[2] = { 1, c->seq };
  gint64 wte_shape[2] = { c->vocab, c->hidden }, wpe_shape[2] = { c->seq, c->hidden };
  gint64 logits_shape[3] = { b, c->seq, c->vocab }, one = 1;
  guint tokens = tensor (gen, "tokens", PLX_IR_ROLE_DATA, PLX_DTYPE_FP32, 2, ids);
  guint positions = tensor (gen, "positions", PLX_IR_ROLE_DATA, PLX_DTYPE_FP32, 2, pos);
  guint segments = c->post_ln ? tensor (gen, "segments", PLX_IR_ROLE_DATA, PLX_DTYPE_FP32, 2, ids) : 0;
  guint labels = tensor (gen, "labels", PLX_IR_ROLE_DATA, PLX_DTYPE_FP32, 2, ids);
  guint wte = weight (gen, "embed", "tokens", 2, wte_shape), x, in[2], logits, loss_out;

  /* One tensor-making call an expression: C leaves the order of arguments open, and
   * the file has to come out the same from every compiler. */
  x = embed (gen, "embed.token", wte, tokens);
  x = add (gen, "embed.sum", x, embed (gen, "embed.position", weight (gen, "embed", "positions", 2, wpe_shape),
                                       positions));
  if (c->post_ln)
    {
      gint64 type_shape[2] = { 2, c->hidden };
      x = add (gen, "embed.sum2", x, embed (gen, "embed.segment", weight (gen, "embed", "segments", 2, type_shape),
                                            segments));
      x = layer_norm (gen, "embed.ln", x);
    }
  for (guint l = 0; l < c->layers; l++)
    x = block (gen, l, x, c);
  if (c->post_ln)
    {
      /* BERT's MLM head: a dense layer, GELU, layer norm, then the tied decoder with
       * its own bias (Devlin et al.'s BertLMPredictionHead). */
      x = linear (gen, "head.transform", x, c->hidden, TRUE);
      x = unary (gen, "head", "gelu", PLX_IR_GELU, x);
      x = layer_norm (gen, "head.ln", x);
    }
  else
    x = layer_norm (gen, "ln_f", x);
  in[0] = x;
  in[1] = wte;
  {
    PlxIrOp *o;
    logits = op (gen, c->post_ln ? "head.decoder" : "head.logits", PLX_IR_MATMUL, in, 2, 3, logits_shape, &o);
    o->transpose_b = TRUE;   /* the embedding [vocab, hidden] as [hidden, vocab] */
  }
  if (c->post_ln)
    logits = add (gen, "head.logits", logits, weight (gen, "head", "bias", 1, &c->vocab));
  in[0] = logits;
  in[1] = labels;
  loss_out = tensor (gen, "loss.out", PLX_IR_ROLE_DATA, PLX_DTYPE_FP32, 1, &one);
  {
    static const guint device0 = 0;
    plx_ir_graph_add_op (gen->g, "loss", PLX_IR_LOSS, in, 2, &loss_out, 1, &device0, 1);
  }
}

/* ---- convolutional networks --------------------------------------------------- */

/* A square convolution of `k` filters r x r, stride and padding as given; with a
 * bias (VGG) or without (ResNet, where a batch norm follows). */
static guint
conv (Gen *gen, const char *prefix, guint x, gint64 k, gint64 r, gint64 stride, gint64 pad, gboolean bias)
{
  const PlxIrTensor *xt = tensor_at (gen, x);
  gint64 wshape[4] = { k, xt->shape[1], r, r };
  gint64 p = (xt->shape[2] + 2 * pad - r) / stride + 1, q = (xt->shape[3] + 2 * pad - r) / stride + 1;
  gint64 shape[4] = { xt->shape[0], k, p, q };
  guint in[3] = { x, 0, 0 };

  in[1] = weight (gen, prefix, "w", 4, wshape);
  if (bias)
    in[2] = weight (gen, prefix, "b", 1, &k);
  return op (gen, prefix, PLX_IR_CONV, in, bias ? 3 : 2, 4, shape, NULL);
}

/* Ioffe & Szegedy 2015: per-channel scale and shift. */
static guint
batch_norm (Gen *gen, const char *prefix, guint x)
{
  gint64 c = tensor_at (gen, x)->shape[1];
  guint in[3] = { x, 0, 0 };

  in[1] = weight (gen, prefix, "g", 1, &c);
  in[2] = weight (gen, prefix, "b", 1, &c);
  return same (gen, prefix, PLX_IR_BATCH_NORM, in, 3);
}

static guint
max_pool (Gen *gen, const char *name, guint x, gint64 r, gint64 stride, gint64 pad)
{
  const PlxIrTensor *xt = tensor_at (gen, x);
  gint64 shape[4] = { xt->shape[0], xt->shape[1], (xt->shape[2] + 2 * pad - r) / stride + 1,
                      (xt->shape[3] + 2 * pad - r) / stride + 1 };

  return op (gen, name, PLX_IR_MAX_POOL, &x, 1, 4, shape, NULL);
}

/* conv, batch norm, and ReLU if asked: "prefix.conv", "prefix.bn", "prefix.relu". */
static guint
conv_bn (Gen *gen, const char *prefix, guint x, gint64 k, gint64 r, gint64 stride, gboolean relu)
{
  g_autofree char *cname = g_strdup_printf ("%s.conv", prefix), *bname = g_strdup_printf ("%s.bn", prefix);
  guint y = batch_norm (gen, bname, conv (gen, cname, x, k, r, stride, (r - 1) / 2, FALSE));

  return relu ? unary (gen, prefix, "relu", PLX_IR_RELU, y) : y;
}

/* The classifier: [N, features] -> 1000 classes, softmax cross-entropy against a
 * class id per image (4 bytes, written fp32). */
static void
classifier_loss (Gen *gen, guint logits)
{
  gint64 n = tensor_at (gen, logits)->shape[0], one = 1;
  guint in[2] = { logits, tensor (gen, "labels", PLX_IR_ROLE_DATA, PLX_DTYPE_FP32, 1, &n) };
  guint out = tensor (gen, "loss.out", PLX_IR_ROLE_DATA, PLX_DTYPE_FP32, 1, &one);
  static const guint device0 = 0;

  plx_ir_graph_add_op (gen->g, "loss", PLX_IR_LOSS, in, 2, &out, 1, &device0, 1);
}

static guint
images (Gen *gen, gint64 b)
{
  gint64 shape[4] = { b, 3, 224, 224 };

  return tensor (gen, "images", PLX_IR_ROLE_DATA, PLX_DTYPE_BF16, 4, shape);
}

/* ResNet-50 (He et al. 2016, Table 1) in the v1.5 form torchvision and NVIDIA train:
 * a bottleneck's stride on its 3x3 convolution rather than its first 1x1; a batch
 * norm after every convolution; a projection shortcut (1x1 conv and batch norm) on
 * each stage's first block. */
static void
resnet50 (Gen *gen, gint64 b)
{
  static const gint64 widths[4] = { 64, 128, 256, 512 }, blocks[4] = { 3, 4, 6, 3 };
  guint x = conv_bn (gen, "stem", images (gen, b), 64, 7, 2, TRUE);
  gint64 pooled[2], fc_out = 1000;

  x = max_pool (gen, "stem.pool", x, 3, 2, 1);
  for (guint s = 0; s < 4; s++)
    for (gint64 k = 0; k < blocks[s]; k++)
      {
        g_autofree char *p = g_strdup_printf ("layer%u.%" G_GINT64_FORMAT, s + 1, k);
        g_autofree char *c1 = g_strdup_printf ("%s.1", p), *c2 = g_strdup_printf ("%s.2", p);
        g_autofree char *c3 = g_strdup_printf ("%s.3", p), *sc = g_strdup_printf ("%s.shortcut", p);
        g_autofree char *res = g_strdup_printf ("%s.residual", p);
        gint64 stride = k == 0 && s > 0 ? 2 : 1, w = widths[s];
        guint y = conv_bn (gen, c1, x, w, 1, 1, TRUE);

        y = conv_bn (gen, c2, y, w, 3, stride, TRUE);
        y = conv_bn (gen, c3, y, 4 * w, 1, 1, FALSE);
        if (k == 0)
          x = conv_bn (gen, sc, x, 4 * w, 1, stride, FALSE);
        x = unary (gen, p, "relu", PLX_IR_RELU, add (gen, res, y, x));
      }
  /* Global average pooling, then the 1000-way fully connected layer. */
  pooled[0] = b;
  pooled[1] = tensor_at (gen, x)->shape[1];
  x = op (gen, "pool", PLX_IR_REDUCE_MEAN, &x, 1, 2, pooled, NULL);
  classifier_loss (gen, linear (gen, "fc", x, fc_out, TRUE));
}

/* VGG-16 (Simonyan & Zisserman 2015, Table 1, configuration D): 13 3x3 convolutions
 * with bias and ReLU in five groups, each ending in a 2x2 max pool, then three fully
 * connected layers. Dropout is left out (elementwise; the IR has no random op). */
static void
vgg16 (Gen *gen, gint64 b)
{
  static const gint64 widths[5] = { 64, 128, 256, 512, 512 }, convs[5] = { 2, 2, 3, 3, 3 };
  guint x = images (gen, b);
  gint64 flat[2];

  for (guint s = 0; s < 5; s++)
    {
      g_autofree char *pool = g_strdup_printf ("pool%u", s + 1);
      for (gint64 k = 0; k < convs[s]; k++)
        {
          g_autofree char *p = g_strdup_printf ("conv%u_%" G_GINT64_FORMAT, s + 1, k + 1);
          x = unary (gen, p, "relu", PLX_IR_RELU, conv (gen, p, x, widths[s], 3, 1, 1, TRUE));
        }
      x = max_pool (gen, pool, x, 2, 2, 0);
    }
  flat[0] = b;
  flat[1] = plx_ir_tensor_elements (tensor_at (gen, x)) / b;
  x = op (gen, "flatten", PLX_IR_RESHAPE, &x, 1, 2, flat, NULL);
  x = unary (gen, "fc6", "relu", PLX_IR_RELU, linear (gen, "fc6", x, 4096, TRUE));
  x = unary (gen, "fc7", "relu", PLX_IR_RELU, linear (gen, "fc7", x, 4096, TRUE));
  classifier_loss (gen, linear (gen, "fc8", x, 1000, TRUE));
}

/* ---- writing ------------------------------------------------------------------ */

/* The graph as plx_ir_graph_to_json writes it, one tensor or op a line, without what
 * a graph file leaves to its defaults (bf16, one device). */
static void
write_graph (const PlxIrGraph *g, FILE *out)
{
  g_autoptr (JsonNode) root = plx_ir_graph_to_json (g);
  JsonObject *obj = json_node_get_object (root);
  static const char *const lists[2] = { "tensors", "ops" };

  fputs ("{\n  \"format\": \"parallax-ir\",\n  \"version\": 1,\n", out);
  for (guint l = 0; l < 2; l++)
    {
      JsonArray *array = json_object_get_array_member (obj, lists[l]);
      fprintf (out, "  \"%s\": [\n", lists[l]);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *e = json_array_get_element (array, i);
          JsonObject *eo = json_node_get_object (e);
          g_autofree char *text = NULL;
          json_object_remove_member (eo, "devices");
          if (json_object_has_member (eo, "dtype") && g_str_equal (json_object_get_string_member (eo, "dtype"), "bf16"))
            json_object_remove_member (eo, "dtype");
          text = json_to_string (e, FALSE);
          fprintf (out, "    %s%s\n", text, i + 1 < json_array_get_length (array) ? "," : "");
        }
      fprintf (out, "  ]%s\n", l == 0 ? "," : "");
    }
  fputs ("}\n", out);
}

static const char *const models[] = { "gpt2", "bert-large", "resnet50", "vgg16" };
/* The global batch each file in tests/data/graphs has (docs/graph-format.md). */
static const gint64 default_batch[] = { 256, 256, 2048, 1024 };
#define MAX_BATCH G_GINT64_CONSTANT (1048576)

static int
usage (const char *why)
{
  fprintf (stderr, "graphgen: %s\nusage: graphgen gpt2|bert-large|resnet50|vgg16 [--batch N] > FILE.json\n", why);
  return 2;
}

int
main (int argc, char **argv)
{
  g_autoptr (PlxIrGraph) graph = plx_ir_graph_new (1);
  g_autoptr (GError) error = NULL;
  Gen gen = { graph };
  guint m;
  gint64 batch;

  if (argc != 2 && argc != 4)
    return usage ("give one model, and --batch N if not the default");
  for (m = 0; m < G_N_ELEMENTS (models) && !g_str_equal (models[m], argv[1]); m++)
    ;
  if (m == G_N_ELEMENTS (models))
    {
      g_autofree char *why = g_strdup_printf ("\"%s\" is not a model (gpt2, bert-large, resnet50, vgg16)", argv[1]);
      return usage (why);
    }
  batch = default_batch[m];
  if (argc == 4)
    {
      char *end = NULL;
      if (!g_str_equal (argv[2], "--batch"))
        {
          g_autofree char *why = g_strdup_printf ("\"%s\" is not an option (--batch)", argv[2]);
          return usage (why);
        }
      batch = g_ascii_strtoll (argv[3], &end, 10);
      if (end == argv[3] || *end != '\0' || batch < 1 || batch > MAX_BATCH)
        {
          g_autofree char *why = g_strdup_printf ("--batch: \"%s\" is not a whole number from 1 to %" G_GINT64_FORMAT,
                                                  argv[3], MAX_BATCH);
          return usage (why);
        }
    }
  switch (m)
    {
    case 0:
      {
        /* GPT-2 small: the 117M (124M counted exactly) model of Radford et al. 2019
         * Table 2, with the released code's 1024-token context. */
        static const TransformerConfig gpt2 = { 12, 768, 12, 50257, 1024, FALSE };
        transformer (&gen, batch, &gpt2);
        break;
      }
    case 1:
      {
        /* BERT-large (Devlin et al. 2019 §3): L = 24, H = 1024, A = 16, WordPiece
         * vocabulary of 30,522, sequences of 512. */
        static const TransformerConfig bert = { 24, 1024, 16, 30522, 512, TRUE };
        transformer (&gen, batch, &bert);
        break;
      }
    case 2:
      resnet50 (&gen, batch);
      break;
    default:
      vgg16 (&gen, batch);
      break;
    }
  if (!plx_ir_graph_check (graph, models[m], &error))
    {
      fprintf (stderr, "graphgen: %s\n", error->message);
      return 1;
    }
  write_graph (graph, stdout);
  return fflush (stdout) == 0 ? 0 : 1;
}
