"""A sweep case on the PyTorch side: its function and its input tensors. Imports torch, so only the
GPU machine (the timing process and the warm workers) loads it.

    fn = torch_function(case)              # torch.softmax(x, -1) as a function of the inputs
    args = random_inputs(case)             # seeded, on the GPU, in the case's dtype
    args = kiln_inputs(case)               # exactly the inputs `kiln run` draws itself
    compiled = torch.compile(fn); compiled(*empty_inputs(case))   # warms the caches
"""

from __future__ import annotations

import functools
import math
import pathlib
import subprocess

import numpy as np
import torch
import torch.nn.functional as F

from kiln_inputs import SelfCheckGraph, kiln_values

TORCH_DTYPE = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


def torch_function(case):
    return eval(f"lambda {', '.join(case.inputs)}: {case.torch_expr}", {"torch": torch, "F": F})  # noqa: S307


def random_inputs(case) -> list:
    generator = torch.Generator(device="cuda").manual_seed(1)
    dtype = TORCH_DTYPE[case.dtype]
    return [torch.randn(shape, device="cuda", dtype=torch.float32, generator=generator).to(dtype)
            for shape in case.inputs.values()]


class TorchOps:
    """kiln_inputs.py's array library on the GPU."""

    @staticmethod
    def arange(start, stop):
        return torch.arange(start, stop, dtype=torch.int64, device="cuda")

    @staticmethod
    def to_float64(t):
        return t.to(torch.float64)

    @staticmethod
    def bits_to_float(t):
        return t.view(torch.float64)

    @staticmethod
    def float_to_bits(t):
        return t.view(torch.int64)

    @staticmethod
    def round(t):
        return torch.round(t)  # ties to even

    @staticmethod
    def round_f32(t):
        return t.to(torch.float32).to(torch.float64)

    @staticmethod
    def maximum(t, m):
        return torch.clamp(t, min=m)

    @staticmethod
    def where(condition, value, t):
        return torch.where(condition, value, t)


def kiln_inputs(case) -> list:
    """The case's inputs as `kiln run --seed=1` draws them (kiln_inputs.py), on the GPU. Each is a
    tensor of its own, not a view, like random_inputs' and empty_inputs': the compile cache's key
    holds what the warm phase compiled for."""
    return [kiln_values(TorchOps, case.dtype, math.prod(shape), seed=1 + k).to(TORCH_DTYPE[case.dtype])
            .reshape(shape).clone() for k, shape in enumerate(case.inputs.values())]


@functools.cache
def kiln_draws_differ(kiln: tuple, folder: str) -> str:
    """Why kiln_inputs cannot stand for kiln's own draws, or "" when it can: for every dtype, its
    values against those `kiln eval` reports for SelfCheckGraph, element by element."""
    for dtype in TORCH_DTYPE:
        graph = SelfCheckGraph(dtype)
        path = pathlib.Path(folder) / f"draws_{dtype}.textproto"
        out = pathlib.Path(folder) / f"draws_{dtype}.out"
        path.write_text(graph.textproto())
        try:
            proc = subprocess.run(list(kiln) + ["eval", str(path), f"--save-outputs={out}"], capture_output=True,
                                  text=True)
            if proc.returncode != 0:
                return f"kiln eval failed: {proc.stderr.strip()}"
            for k, (name, shape) in enumerate(zip("yz", graph.shapes)):
                want = torch.from_numpy(np.load(out / f"{name}.npy")).to("cuda", torch.float64)
                got = 2 * kiln_values(TorchOps, dtype, math.prod(shape), seed=1 + k)
                if not torch.equal(got, want):
                    return f"{dtype} input {k}: {int((got != want).sum())} of {got.numel()} elements differ"
        finally:
            path.unlink()
            for saved in out.glob("*.npy"):
                saved.unlink()
            if out.exists():
                out.rmdir()
    return ""


def empty_inputs(case) -> list:
    """Tensors of the inputs' shapes, dtypes and (contiguous) strides, left unwritten: what a compile
    is keyed on, without the cost of filling them."""
    return [torch.empty(shape, device="cuda", dtype=TORCH_DTYPE[case.dtype]) for shape in case.inputs.values()]


def inductor_cache_counters() -> dict[str, int]:
    """Dynamo's counters of the Inductor and AOTAutograd caches (hits, misses, bypasses) so far."""
    from torch._dynamo.utils import counters
    found = {}
    for group in ("inductor", "aot_autograd"):
        for name, value in counters[group].items():
            if "cache" in name:
                found[f"{group}.{name}"] = value
    return found


def counter_change(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}
