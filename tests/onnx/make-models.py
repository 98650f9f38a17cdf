#!/usr/bin/python3
"""Writes the ONNX models test-onnx reads, with Debian's python3-onnx: an MLP, a small
CNN (also with its weights in external data, then deleted), a ResNet stem and block
(batch norms exported for training, max pools), a GPT-2-shaped decoder
with a symbolic batch, the same decoder with a KV cache (symbolic batch, sequence and
past: what Hugging Face exports as decoder_with_past_model.onnx), and a model with an
op Parallax cannot cost.

Usage: make-models.py OUTDIR
       make-models.py OUTDIR --gpt2-big LAYERS   (bench-ir: GPT-2 small's width, the
                                                  weights in a side file that is absent)"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 17)]


ABSENT = False   # weights as references to a data file that does not exist


def weight(name, *dims):
    if not ABSENT:
        return numpy_helper.from_array(np.zeros(dims, dtype=np.float32), name)
    t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=dims,
                    data_location=TensorProto.EXTERNAL)
    entry = t.external_data.add()
    entry.key, entry.value = "location", "absent.data"
    return t


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def save(graph, path, **kw):
    model = helper.make_model(graph, opset_imports=OPSET, producer_name="parallax-tests")
    onnx.save(model, path, **kw)


def mlp(out):
    # x [32, 256] -> Gemm (256 x 512, bias) -> Relu -> MatMul (512 x 10)
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1"),
        helper.make_node("Relu", ["h"], ["a"], name="relu"),
        helper.make_node("MatMul", ["a", "w2"], ["y"], name="fc2"),
    ]
    g = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [32, 256])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [32, 10])],
        [weight("w1", 256, 512), weight("b1", 512), weight("w2", 512, 10)])
    save(g, os.path.join(out, "mlp.onnx"))


def cnn(out):
    # [8, 3, 32, 32] -> Conv 3x3 (16) -> Relu -> Conv 3x3 stride 2 (32) -> Relu
    #   -> GlobalAveragePool -> Flatten -> Gemm (32 x 10)
    nodes = [
        helper.make_node("Conv", ["x", "c1", "c1b"], ["h1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["h1"], ["a1"], name="relu1"),
        helper.make_node("Conv", ["a1", "c2"], ["h2"], name="conv2", pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["h2"], ["a2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["a2"], ["p"], name="pool"),
        helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc", "fcb"], ["y"], name="fc"),
    ]
    g = helper.make_graph(
        nodes, "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 3, 32, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 10])],
        [weight("c1", 16, 3, 3, 3), weight("c1b", 16), weight("c2", 32, 16, 3, 3),
         weight("fc", 32, 10), weight("fcb", 10)])
    save(g, os.path.join(out, "cnn.onnx"))
    # The same with every weight in a side file, which is then removed: Parallax
    # needs the shapes only.
    save(g, os.path.join(out, "cnn-external.onnx"), save_as_external_data=True,
         all_tensors_to_one_file=True, location="cnn-external.data", size_threshold=0)
    os.remove(os.path.join(out, "cnn-external.data"))


def resnet_block(out):
    # ResNet's stem and one basic block (He et al. 2016, Fig. 2 and Table 1), exported
    # for training (BatchNormalization with training_mode=1 and its running
    # statistics as outputs):
    # [4, 3, 32, 32] -> Conv 7x7 stride 2 pad 3 (16) -> BN -> Relu
    #   -> MaxPool 3x3 stride 2 pad 1 -> Conv 3x3 pad 1 (16) -> BN -> Add (shortcut)
    #   -> Relu -> MaxPool 3x3 stride 2 ceil_mode -> GlobalAveragePool -> Flatten
    #   -> Gemm (16 x 10)
    def bn(name, x, y):
        return helper.make_node("BatchNormalization", [x, name + "_s", name + "_b", name + "_m", name + "_v"],
                                [y, name + "_m_out", name + "_v_out"], name=name, training_mode=1)
    nodes = [
        helper.make_node("Conv", ["x", "c1"], ["h1"], name="conv1", pads=[3, 3, 3, 3], strides=[2, 2],
                         kernel_shape=[7, 7]),
        bn("bn1", "h1", "n1"),
        helper.make_node("Relu", ["n1"], ["a1"], name="relu1"),
        helper.make_node("MaxPool", ["a1"], ["p1"], name="pool1", kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["p1", "c2"], ["h2"], name="conv2", pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        bn("bn2", "h2", "n2"),
        helper.make_node("Add", ["n2", "p1"], ["r"], name="shortcut"),
        helper.make_node("Relu", ["r"], ["a2"], name="relu2"),
        helper.make_node("MaxPool", ["a2"], ["p2"], name="pool2", kernel_shape=[3, 3], strides=[2, 2],
                         ceil_mode=1),
        helper.make_node("GlobalAveragePool", ["p2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc", "fcb"], ["y"], name="fc"),
    ]
    inits = [weight("c1", 16, 3, 7, 7), weight("c2", 16, 16, 3, 3), weight("fc", 16, 10), weight("fcb", 10)]
    for name in ("bn1", "bn2"):
        inits += [weight(name + s, 16) for s in ("_s", "_b", "_m", "_v")]
    g = helper.make_graph(
        nodes, "resnet-block",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3, 32, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 10])],
        inits)
    save(g, os.path.join(out, "resnet-block.onnx"))


def gpt2(out, layers=2, seq=64, hidden=128, heads=4, vocab=1000, name="gpt2.onnx", past=False):
    # GPT-2's decoder (Radford et al. 2019): token and position embeddings; per
    # block LayerNorm, fused QKV projection, attention over heads, output
    # projection, residual; LayerNorm, 4h MLP with GELU, residual; final LayerNorm
    # and the LM head. The batch is symbolic.
    # With `past`, the decoder as it runs with a KV cache (what Hugging Face exports
    # as decoder_with_past_model.onnx): the new tokens' keys and values appended to
    # each layer's cache (inputs past_key.i, past_value.i of [batch, heads, past,
    # head_dim]) along the sequence axis, the new queries attending over all of
    # them; the sequence and past are symbolic too, `seq` the positions it knows.
    d = hidden // heads
    tokens = "sequence" if past else seq
    nodes, inits = [], [weight("wte", vocab, hidden), weight("wpe", seq, hidden),
                        ints("heads_shape", [0, -1 if past else seq, heads, d]),
                        ints("merge_shape", [0, -1 if past else seq, hidden]),
                        numpy_helper.from_array(np.array(1.0 / np.sqrt(d), dtype=np.float32), "scale")]
    inputs = [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", tokens]),
              helper.make_tensor_value_info("pos", TensorProto.INT64, [1, tokens])]
    nodes += [helper.make_node("Gather", ["wte", "ids"], ["tok"], name="wte"),
              helper.make_node("Gather", ["wpe", "pos"], ["posemb"], name="wpe"),
              helper.make_node("Add", ["tok", "posemb"], ["x0"], name="embed")]
    x = "x0"
    for i in range(layers):
        p = f"h{i}."
        inits += [weight(p + "ln1_g", hidden), weight(p + "ln1_b", hidden),
                  weight(p + "attn_w", hidden, 3 * hidden), weight(p + "attn_b", 3 * hidden),
                  weight(p + "proj_w", hidden, hidden), weight(p + "proj_b", hidden),
                  weight(p + "ln2_g", hidden), weight(p + "ln2_b", hidden),
                  weight(p + "fc_w", hidden, 4 * hidden), weight(p + "fc_b", 4 * hidden),
                  weight(p + "out_w", 4 * hidden, hidden), weight(p + "out_b", hidden)]
        n = lambda op, ins, outs, **kw: nodes.append(
            helper.make_node(op, [p + v if not v.startswith("@") else v[1:] for v in ins],
                             [p + v for v in outs], name=p + outs[0], **kw))
        n("LayerNormalization", ["@" + x, "ln1_g", "ln1_b"], ["ln1"], axis=-1)
        n("MatMul", ["ln1", "attn_w"], ["qkv0"])
        n("Add", ["qkv0", "attn_b"], ["qkv"])
        n("Split", ["qkv"], ["q0", "k0", "v0"], axis=2)
        for t in ("q", "k", "v"):
            n("Reshape", [t + "0", "@heads_shape"], [t + "1"])
        n("Transpose", ["q1"], ["q"], perm=[0, 2, 1, 3])
        n("Transpose", ["v1"], ["v"], perm=[0, 2, 1, 3])
        values = "v"
        if past:
            inputs += [helper.make_tensor_value_info(f"past_key.{i}", TensorProto.FLOAT, ["batch", heads, "past", d]),
                       helper.make_tensor_value_info(f"past_value.{i}", TensorProto.FLOAT,
                                                     ["batch", heads, "past", d])]
            n("Transpose", ["k1"], ["k"], perm=[0, 2, 1, 3])
            n("Concat", [f"@past_key.{i}", "k"], ["present_key"], axis=2)
            n("Concat", [f"@past_value.{i}", "v"], ["present_value"], axis=2)
            n("Transpose", ["present_key"], ["kT"], perm=[0, 1, 3, 2])
            values = "present_value"
        else:
            n("Transpose", ["k1"], ["kT"], perm=[0, 2, 3, 1])
        n("MatMul", ["q", "kT"], ["s0"])
        n("Mul", ["s0", "@scale"], ["s"])
        n("Softmax", ["s"], ["pr"], axis=-1)
        n("MatMul", ["pr", values], ["ctx0"])
        n("Transpose", ["ctx0"], ["ctx1"], perm=[0, 2, 1, 3])
        n("Reshape", ["ctx1", "@merge_shape"], ["ctx"])
        n("MatMul", ["ctx", "proj_w"], ["o0"])
        n("Add", ["o0", "proj_b"], ["o"])
        n("Add", ["@" + x, "o"], ["r1"])
        n("LayerNormalization", ["r1", "ln2_g", "ln2_b"], ["ln2"], axis=-1)
        n("MatMul", ["ln2", "fc_w"], ["f0"])
        n("Add", ["f0", "fc_b"], ["f1"])
        n("Gelu", ["f1"], ["f2"])
        n("MatMul", ["f2", "out_w"], ["m0"])
        n("Add", ["m0", "out_b"], ["m"])
        n("Add", ["r1", "m"], ["r2"])
        x = p + "r2"
    inits += [weight("lnf_g", hidden), weight("lnf_b", hidden), weight("lm_head", hidden, vocab)]
    nodes += [helper.make_node("LayerNormalization", [x, "lnf_g", "lnf_b"], ["lnf"], name="lnf", axis=-1),
              helper.make_node("MatMul", ["lnf", "lm_head"], ["logits"], name="lm_head")]
    g = helper.make_graph(
        nodes, "gpt2", inputs,
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", tokens, vocab])],
        inits)
    save(g, os.path.join(out, name))


def unsupported(out):
    nodes = [helper.make_node("Einsum", ["x", "w"], ["y"], name="mix", equation="ij,jk->ik")]
    g = helper.make_graph(
        nodes, "einsum",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])],
        [weight("w", 8, 8)])
    save(g, os.path.join(out, "einsum.onnx"))


if __name__ == "__main__":
    out = sys.argv[1]
    if len(sys.argv) == 4 and sys.argv[2] == "--gpt2-big":
        ABSENT = True
        gpt2(out, layers=int(sys.argv[3]), seq=1024, hidden=768, heads=12, vocab=50257,
             name="gpt2-big.onnx")
        sys.exit(0)
    mlp(out)
    cnn(out)
    resnet_block(out)
    gpt2(out)
    gpt2(out, seq=1024, name="gpt2-past.onnx", past=True)
    unsupported(out)
