#!/usr/bin/env python3
"""Writes kiln's ONNX test models and onnxruntime's outputs on fixed inputs.

    python3 tests/onnx/make_models.py OUT_DIR           # write the models
    python3 tests/onnx/make_models.py --check tests/onnx/models

For each model M it writes OUT_DIR/M.onnx, the inputs OUT_DIR/M/inputs/<name>.npy
(seeded, fixed) and onnxruntime's CPU results OUT_DIR/M/outputs/<name>.npy:
the independent oracle that kiln's importer and reference interpreter are
checked against (tests/frontends/onnx_models_test.cc). --check regenerates
everything in a temporary folder and compares it with the committed files:
the .onnx files and inputs byte for byte, the outputs within 1e-6 relative
(onnxruntime's CPU kernels may round differently on another processor).
"""

import argparse
import filecmp
import math
import os
import sys
import tempfile

import ml_dtypes
import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

# Shapes of the small GPT-2-style blocks: batch, sequence, model width, heads.
B, S, D, H = 2, 8, 32, 4
HD = D // H


class ModelWriter:
    """Collects the nodes, initializers and value infos of one ONNX graph."""

    def __init__(self, name, seed, float_dtype=np.float32):
        self.name = name
        self.rng = np.random.default_rng(seed)
        # Float inputs, weights and constants are stored in this type (bf16 for the benchmark).
        self.float_dtype = float_dtype
        self.nodes, self.initializers, self.inputs, self.outputs = [], [], [], []
        self.feeds = {}
        self.count = 0

    def fresh(self, stem):
        self.count += 1
        return f"/{stem}_{self.count}"

    def input(self, name, shape, dtype=np.float32, values=None):
        array = values if values is not None else self.rng.uniform(-2, 2, size=shape).astype(dtype)
        array = self.floats(array)
        self.feeds[name] = array
        elem = helper.np_dtype_to_tensor_dtype(array.dtype)
        self.inputs.append(helper.make_tensor_value_info(name, elem, list(array.shape)))
        return name

    def weight(self, stem, shape, scale=None, values=None):
        array = values
        if array is None:
            scale = scale if scale is not None else 1.0 / math.sqrt(shape[0])
            array = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        name = f"{stem}"
        self.initializers.append(numpy_helper.from_array(self.floats(np.asarray(array)), name))
        return name

    def floats(self, array):
        return array.astype(self.float_dtype) if array.dtype == np.float32 else array

    def const(self, values, stem="const"):
        """A Constant node, as PyTorch's exporter writes small constants."""
        out = self.fresh(stem) + "_output_0"
        self.nodes.append(helper.make_node("Constant", [], [out], name=self.fresh(stem),
                                           value=numpy_helper.from_array(self.floats(np.asarray(values)))))
        return out

    def op(self, op_type, inputs, stem=None, outputs=1, **attrs):
        stem = stem or op_type
        name = self.fresh(stem)
        outs = [f"{name}_output_{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=name, **attrs))
        return outs[0] if outputs == 1 else outs

    def output(self, value, name):
        self.nodes.append(helper.make_node("Identity", [value], [name], name=f"/{name}/Identity"))
        self.outputs.append(helper.make_empty_tensor_value_info(name))
        return name

    def model(self, opset):
        graph = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                                  producer_name="kiln-tests")
        model.ir_version = 8
        # The outputs' types and shapes, from ONNX's own shape inference.
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
        known = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
        for output in model.graph.output:
            output.CopyFrom(known[output.name])
        return model


def gelu_erf(w, x):
    # PyTorch's exact GELU: x * 0.5 * (1 + erf(x / sqrt(2))).
    t = w.op("Div", [x, w.const(np.float32(math.sqrt(2.0)))])
    t = w.op("Erf", [t])
    t = w.op("Add", [t, w.const(np.float32(1.0))])
    t = w.op("Mul", [x, t])
    return w.op("Mul", [t, w.const(np.float32(0.5))])


def gelu_tanh(w, x):
    # GPT-2's gelu_new: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
    cube = w.op("Pow", [x, w.const(np.float32(3.0))])
    inner = w.op("Add", [x, w.op("Mul", [cube, w.const(np.float32(0.044715))])])
    t = w.op("Tanh", [w.op("Mul", [inner, w.const(np.float32(math.sqrt(2.0 / math.pi)))])])
    t = w.op("Add", [t, w.const(np.float32(1.0))])
    return w.op("Mul", [w.op("Mul", [x, w.const(np.float32(0.5))]), t])


def mlp(name="mlp"):
    w = ModelWriter(name, seed=1)
    x = w.input("x", [8, 32])
    h = w.op("Gemm", [x, w.weight("fc1.weight", [64, 32], 0.2), w.weight("fc1.bias", [64], 0.1)], transB=1)
    h = gelu_erf(w, h)
    y = w.op("Gemm", [h, w.weight("fc2.weight", [16, 64], 0.15), w.weight("fc2.bias", [16], 0.1)], transB=1)
    w.output(y, "y")
    return w, w.model(13)


def layer_norm(w, x, stem, opset, d):
    gamma = w.weight(f"{stem}.weight", [d], values=(1.0 + 0.1 * w.rng.standard_normal(d)).astype(np.float32))
    beta = w.weight(f"{stem}.bias", [d], values=(0.1 * w.rng.standard_normal(d)).astype(np.float32))
    if opset == 17:
        return w.op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=1e-5)
    # Decomposed, as exporters write it before opset 17; opset 18 takes the axes as an input.
    def mean(t):
        if opset >= 18:
            return w.op("ReduceMean", [t, w.const(np.array([-1], dtype=np.int64))], keepdims=1)
        return w.op("ReduceMean", [t], axes=[-1], keepdims=1)
    d = w.op("Sub", [x, mean(x)])
    var = mean(w.op("Pow", [d, w.const(np.float32(2.0))]))
    std = w.op("Sqrt", [w.op("Add", [var, w.const(np.float32(1e-5))])])
    return w.op("Add", [w.op("Mul", [w.op("Div", [d, std]), gamma]), beta])


def heads_shape(w, x, h, hd):
    # The reshape target from the input's own shape, as PyTorch exports
    # x.view(B, S, H, HD): Shape -> Gather -> Unsqueeze -> Concat, folded at import.
    shape = w.op("Shape", [x])
    dims = []
    for i in (0, 1):
        g = w.op("Gather", [shape, w.const(np.array(i, dtype=np.int64))], axis=0)
        dims.append(w.op("Unsqueeze", [g, w.const(np.array([0], dtype=np.int64))]))
    return w.op("Concat", dims + [w.const(np.array([h, hd], dtype=np.int64))], axis=0)


def gpt2_block(opset, b=B, s=S, d=D, h=H, float_dtype=np.float32, name=None):
    """A GPT-2 block as PyTorch exports it: x [b, s, d] -> y [b, s, d], h heads."""
    hd = d // h
    w = ModelWriter(name or f"gpt2_block_opset{opset}", seed=opset, float_dtype=float_dtype)
    x = w.input("x", [b, s, d])
    B, S, D, H, HD = b, s, d, h, hd  # noqa: N806 (the names of the formulas)
    h = layer_norm(w, x, "ln_1", opset, D)
    qkv = w.op("Add", [w.op("MatMul", [h, w.weight("attn.c_attn.weight", [D, 3 * D])]),
                       w.weight("attn.c_attn.bias", [3 * D], 0.1)])
    if opset >= 18:
        q, k, v = w.op("Split", [qkv], outputs=3, axis=2, num_outputs=3)
    else:
        q, k, v = w.op("Split", [qkv, w.const(np.array([D, D, D], dtype=np.int64))], outputs=3, axis=2)
    target = heads_shape(w, x, H, HD)
    q = w.op("Transpose", [w.op("Reshape", [q, target])], perm=[0, 2, 1, 3])
    k = w.op("Transpose", [w.op("Reshape", [k, target])], perm=[0, 2, 3, 1])
    v = w.op("Transpose", [w.op("Reshape", [v, target])], perm=[0, 2, 1, 3])
    scores = w.op("MatMul", [q, k])
    # 1/sqrt(head dim) from q's shape, folded at import.
    hd = w.op("Cast", [w.op("Gather", [w.op("Shape", [q]), w.const(np.array(-1, dtype=np.int64))], axis=0)],
              to=helper.np_dtype_to_tensor_dtype(np.dtype(float_dtype)))
    scores = w.op("Div", [scores, w.op("Sqrt", [hd])])
    # The causal mask: a lower triangle of a larger buffer, sliced to S x S.
    buffer = max(16, S)
    if opset >= 14:
        ones = w.op("ConstantOfShape", [w.const(np.array([buffer, buffer], dtype=np.int64))],
                    value=numpy_helper.from_array(np.array([1.0], dtype=np.float32)))
        tri = w.op("Cast", [w.op("Trilu", [ones], upper=0)], to=TensorProto.BOOL)
    else:  # Trilu came with opset 14: a buffer, as GPT-2's `bias`.
        tri = w.weight("attn.bias", [buffer, buffer], values=np.tril(np.ones((buffer, buffer), dtype=bool)))
    tri = w.op("Unsqueeze", [tri, w.const(np.array([0, 1], dtype=np.int64))])
    causal = w.op("Slice", [tri, w.const(np.array([0, 0], dtype=np.int64)),
                            w.const(np.array([S, S], dtype=np.int64)), w.const(np.array([2, 3], dtype=np.int64))])
    scores = w.op("Where", [causal, scores, w.const(np.float32(ml_dtypes.finfo(float_dtype).min))])
    probs = w.op("Softmax", [scores], axis=-1)
    probs = w.op("Dropout", [probs])
    attn = w.op("MatMul", [probs, v])
    attn = w.op("Reshape", [w.op("Transpose", [attn], perm=[0, 2, 1, 3]),
                            w.const(np.array([B, S, D], dtype=np.int64))])
    proj = w.op("Add", [w.op("MatMul", [attn, w.weight("attn.c_proj.weight", [D, D])]),
                        w.weight("attn.c_proj.bias", [D], 0.1)])
    h1 = w.op("Add", [x, proj])
    m = layer_norm(w, h1, "ln_2", opset, D)
    m = w.op("Add", [w.op("MatMul", [m, w.weight("mlp.c_fc.weight", [D, 4 * D])]),
                     w.weight("mlp.c_fc.bias", [4 * D], 0.1)])
    m = gelu_tanh(w, m)
    m = w.op("Add", [w.op("MatMul", [m, w.weight("mlp.c_proj.weight", [4 * D, D])]),
                     w.weight("mlp.c_proj.bias", [D], 0.1)])
    w.output(w.op("Add", [h1, m]), "y")
    return w, w.model(opset)


def elementwise_ops():
    w = ModelWriter("elementwise_ops", seed=7)
    a = w.input("a", [3, 4])
    b = w.input("b", [4])
    pos = w.op("Add", [w.op("Abs", [a]), w.const(np.float32(0.5))])  # > 0 for Sqrt, Log, Pow
    outs = {
        "add": w.op("Add", [a, b]), "sub": w.op("Sub", [a, b]), "mul": w.op("Mul", [a, b]),
        "div": w.op("Div", [a, b]), "pow": w.op("Pow", [pos, b]), "sqrt": w.op("Sqrt", [pos]),
        "reciprocal": w.op("Reciprocal", [pos]), "exp": w.op("Exp", [a]), "log": w.op("Log", [pos]),
        "tanh": w.op("Tanh", [a]), "erf": w.op("Erf", [a]), "sigmoid": w.op("Sigmoid", [a]),
        "relu": w.op("Relu", [a]), "neg": w.op("Neg", [a]), "abs": w.op("Abs", [a]),
        "max": w.op("Max", [a, b, w.const(np.float32(0.25))]), "min": w.op("Min", [a, b]),
        "clip": w.op("Clip", [a, w.const(np.float32(-0.5)), w.const(np.float32(1.0))]),
        "pow_int": w.op("Pow", [a, w.const(np.int64(2))]),
    }
    less = w.op("Less", [a, b])
    outs["where"] = w.op("Where", [less, a, b])
    outs["equal"] = w.op("Equal", [w.op("Relu", [a]), w.op("Relu", [b])])
    outs["less"] = less
    outs["greater"] = w.op("Greater", [a, b])
    outs["less_or_equal"] = w.op("LessOrEqual", [a, b])
    outs["greater_or_equal"] = w.op("GreaterOrEqual", [a, b])
    outs["not"] = w.op("Not", [less])
    outs["cast"] = w.op("Cast", [w.op("Cast", [a], to=TensorProto.FLOAT16)], to=TensorProto.FLOAT)
    outs["cast_bool"] = w.op("Cast", [less], to=TensorProto.FLOAT)
    for name, value in outs.items():
        w.output(value, name)
    return w, w.model(14)


def layout_ops():
    w = ModelWriter("layout_ops", seed=9)
    x = w.input("x", [2, 3, 4, 5])
    r = w.input("r", [1, 3, 1, 5])
    i64 = lambda *v: w.const(np.array(v, dtype=np.int64))
    outs = {
        "transpose": w.op("Transpose", [x], perm=[3, 1, 0, 2]),
        "reshape": w.op("Reshape", [x, i64(0, -1, 5)]),
        "flatten": w.op("Flatten", [x], axis=2),
        "squeeze": w.op("Squeeze", [r, i64(0, 2)]),
        "unsqueeze": w.op("Unsqueeze", [r, i64(-1)]),
        "slice": w.op("Slice", [x, i64(-1, 0), i64(100, 5), i64(0, 3), i64(1, 2)]),
        "expand": w.op("Expand", [r, i64(2, 1, 4, 1)]),
        "gather_scalar": w.op("Gather", [x, w.const(np.array(1, dtype=np.int64))], axis=1),
        "gather_range": w.op("Gather", [x, i64(0, 2)], axis=2),
        "trilu": w.op("Trilu", [x, w.const(np.array(1, dtype=np.int64))], upper=1),
        "softmax_axis1": w.op("Softmax", [x], axis=1),
        "log_softmax": w.op("LogSoftmax", [x], axis=-1),
        "reduce_sum": w.op("ReduceSum", [x, i64(1, -1)], keepdims=0),
        "reduce_mean": w.op("ReduceMean", [x, i64(2)], keepdims=1),
        "reduce_max": w.op("ReduceMax", [x], keepdims=0),
        "matmul_broadcast": w.op("MatMul", [w.op("Reshape", [x, i64(2, 1, 12, 5)]),
                                            w.weight("m", [3, 5, 6], 0.5)]),
        "matmul_vector": w.op("MatMul", [x, w.weight("v", [5], 0.5)]),
        "gemm": w.op("Gemm", [w.weight("gemm_a", [5, 6], 0.5), w.op("Reshape", [x, i64(-1, 24)]),
                              w.weight("gemm_c", [6, 1], 0.5)], transA=1, alpha=0.5, beta=2.0),
    }
    a, b2, c = w.op("Split", [x], outputs=3, axis=3, num_outputs=3)  # sizes 2, 2, 1
    outs["split_a"], outs["split_c"] = a, c
    # Known tensors folded at import, then used at run time.
    grid = w.op("Concat", [w.op("Range", [w.const(np.float32(0)), w.const(np.float32(5)), w.const(np.float32(1))]),
                           w.op("ConstantOfShape", [i64(2)])], axis=0)
    picked = w.op("Gather", [grid, i64(4, 5, 6, 0, 1)], axis=0)
    outs["folded"] = w.op("Add", [x, picked])
    outs["identity"] = w.op("Identity", [b2])
    for name, value in outs.items():
        w.output(value, name)
    return w, w.model(18)


def run_onnxruntime(model, feeds):
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds)))


def write(out_dir, writer, model, external=False):
    onnx.checker.check_model(model)
    results = run_onnxruntime(model, writer.feeds)
    path = os.path.join(out_dir, f"{writer.name}.onnx")
    if external:
        data = os.path.join(out_dir, f"{writer.name}.onnx.data")
        if os.path.exists(data):
            os.remove(data)  # onnx appends to an existing file
        onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=f"{writer.name}.onnx.data", size_threshold=0)
    else:
        onnx.save_model(model, path)
    for kind, arrays in (("inputs", writer.feeds), ("outputs", results)):
        folder = os.path.join(out_dir, writer.name, kind)
        os.makedirs(folder, exist_ok=True)
        for name, array in arrays.items():
            np.save(os.path.join(folder, f"{name}.npy"), array)


def write_all(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    write(out_dir, *mlp())
    write(out_dir, *mlp("mlp_external"), external=True)
    for opset in (13, 17, 18):
        write(out_dir, *gpt2_block(opset))
    write(out_dir, *elementwise_ops())
    write(out_dir, *layout_ops())


def check(committed):
    with tempfile.TemporaryDirectory() as fresh:
        write_all(fresh)
        problems = []
        for root, _, files in os.walk(fresh):
            for file in sorted(files):
                new = os.path.join(root, file)
                rel = os.path.relpath(new, fresh)
                old = os.path.join(committed, rel)
                if not os.path.exists(old):
                    problems.append(f"{rel}: not committed")
                elif "/outputs/" in new:
                    a, b = np.load(old), np.load(new)
                    scale = max(np.linalg.norm(b.astype(np.float64)), 1e-30)
                    if a.shape != b.shape or a.dtype != b.dtype or \
                            np.linalg.norm(a.astype(np.float64) - b.astype(np.float64)) / scale > 1e-6:
                        problems.append(f"{rel}: onnxruntime now gives other values")
                elif not filecmp.cmp(old, new, shallow=False):
                    problems.append(f"{rel}: differs from what make_models.py writes")
        for root, _, files in os.walk(committed):
            for file in files:
                rel = os.path.relpath(os.path.join(root, file), committed)
                if not os.path.exists(os.path.join(fresh, rel)):
                    problems.append(f"{rel}: committed but no longer written")
    for p in problems:
        print(p)
    print(f"make_models.py --check: {len(problems)} problem(s)")
    return 1 if problems else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--check", action="store_true", help="compare with the files in DIR instead of writing")
    args = parser.parse_args()
    if args.check:
        return check(args.dir)
    write_all(args.dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
