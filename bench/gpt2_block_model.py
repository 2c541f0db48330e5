#!/usr/bin/env python3
"""Writes the benchmark's GPT-2-small block as an exported-style ONNX model, in bf16.

    build/oracle-venv/bin/python bench/gpt2_block_model.py bench/models

B = 8, S = 1024, d = 768, 12 heads: the same graph as the test models of
tests/onnx/make_models.py (LayerNormalization at opset 17, fused QKV MatMul +
Split, heads by Reshape/Transpose, scaled scores, causal mask, Softmax, output
projection, residual adds, tanh-GELU MLP) at GPT-2 small's sizes. Writes, into
the folder:
  gpt2_small_block_bf16.onnx   the model (weights inside, 14 MB)
  weights.npz                  every initializer, bf16 as its uint16 bit patterns (for the PyTorch peers)
(the input is made on the GPU machine by bench/gpt2_block.py, from a seed).
Needs onnx and ml_dtypes (the oracle's venv, `make oracle-check` makes it); runs
on the CPU machine. bench/gpt2_block.py then runs everything on the GPU.
"""

import os
import sys

import ml_dtypes
import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "onnx"))
import make_models  # noqa: E402

BATCH, SEQ, WIDTH, HEADS = 8, 1024, 768, 12
NAME = "gpt2_small_block_bf16"


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    writer, model = make_models.gpt2_block(17, b=BATCH, s=SEQ, d=WIDTH, h=HEADS, float_dtype=ml_dtypes.bfloat16,
                                           name=NAME)
    onnx.checker.check_model(model)
    onnx.save_model(model, os.path.join(out, f"{NAME}.onnx"))
    weights = {}
    for t in model.graph.initializer:
        array = numpy_helper.to_array(t)
        weights[t.name] = array.view(np.uint16) if array.dtype == ml_dtypes.bfloat16 else array
    np.savez(os.path.join(out, "weights.npz"), **weights)
    print(f"wrote {out}/{NAME}.onnx ({len(weights)} initializers) and weights.npz")
    return 0


if __name__ == "__main__":
    sys.exit(main())
