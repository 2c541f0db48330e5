"""A sweep case on the PyTorch side: its function and its input tensors. Imports torch, so only the
GPU machine (the timing process and the warm workers) loads it.

    fn = torch_function(case)              # torch.softmax(x, -1) as a function of the inputs
    args = random_inputs(case)             # seeded, on the GPU, in the case's dtype
    compiled = torch.compile(fn); compiled(*empty_inputs(case))   # warms the caches
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

TORCH_DTYPE = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


def torch_function(case):
    return eval(f"lambda {', '.join(case.inputs)}: {case.torch_expr}", {"torch": torch, "F": F})  # noqa: S307


def random_inputs(case) -> list:
    generator = torch.Generator(device="cuda").manual_seed(1)
    dtype = TORCH_DTYPE[case.dtype]
    return [torch.randn(shape, device="cuda", dtype=torch.float32, generator=generator).to(dtype)
            for shape in case.inputs.values()]


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
