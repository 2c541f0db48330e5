"""kiln's seeded random inputs, drawn again outside kiln: the exact values `kiln run` gives a graph
input that no --inputs names (graph/host_tensor.cc), so that a checked case's inputs need not go
through .npy files (kiln reads those one element at a time). Element i of input k (graph input
order, from 0) is splitmix64 of seed 1 + k at index i, scaled to [-2, 2) and rounded to the dtype
straight from double, ties to even; a draw that rounds up to 2 wraps to -2.

    values = kiln_values(ops, "bf16", count=4096, seed=1)   # float64, every one a bf16 value

`ops` is the array library: torch_case.TorchOps on the GPU, a plain-Python one in the tests. The
code is written once against it, with the arithmetic operators of its tensors (int64 that wraps
around, float64) and these functions: arange(start, stop) as int64, to_float64, bits_to_float and
float_to_bits (the same 64 bits read as the other type), round (ties to even), round_f32 (to the
nearest float32, as float64), maximum(tensor, number) and where(condition, number, tensor).
run_sweep.py checks it against `kiln eval` before it relies on it (inputs_match_kiln).
"""

from __future__ import annotations

import dataclasses

GAMMA, MIX1, MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
# Stored fraction bits and smallest normal exponent of the 16-bit formats.
FORMATS = {"bf16": (7, -126), "f16": (10, -14)}


def _signed(c: int) -> int:
    """A uint64 constant as the int64 with the same bits."""
    return c - (1 << 64) if c >= 1 << 63 else c


def _shr(z, k: int):
    """Logical shift right of int64 bits (the tensors' >> is arithmetic)."""
    return (z >> k) & ((1 << (64 - k)) - 1)


def _pow2(ops, k):
    """2.0 ** k, exactly, for int64 tensors k in the normal range of float64."""
    return ops.bits_to_float((k + 1023) << 52)


def uniform(ops, count: int, seed: int):
    """kiln's draws in [0, 1): (splitmix64(seed, i) >> 11) * 2^-53 for i in [0, count)."""
    z = ops.arange(1, count + 1) * _signed(GAMMA) + seed
    z = (z ^ _shr(z, 30)) * _signed(MIX1)
    z = (z ^ _shr(z, 27)) * _signed(MIX2)
    z = z ^ _shr(z, 31)
    return ops.to_float64(_shr(z, 11)) * 2.0 ** -53


def round_to_format(ops, v, mantissa: int, min_exponent: int):
    """float64 values (0 or normal) rounded straight to a binary format, ties to even, as kiln's
    RoundToBinaryFormat (graph/dtype.cc) does: through float32 would round twice."""
    # |v| = f * 2^exponent with f in [0.5, 1).
    exponent = ((ops.float_to_bits(v) >> 52) & 0x7FF) - 1022
    unit = ops.maximum(exponent - 1, min_exponent) - mantissa
    return ops.round(v * _pow2(ops, -unit)) * _pow2(ops, unit)


def kiln_values(ops, dtype: str, count: int, seed: int):
    """The float64 values of a `count`-element input of `dtype` drawn with `seed`."""
    v = uniform(ops, count, seed) * 4.0 - 2.0  # 0 or at least 2^-51 in magnitude
    v = ops.round_f32(v) if dtype == "f32" else round_to_format(ops, v, *FORMATS[dtype])
    return ops.where(v >= 2.0, -2.0, v)


@dataclasses.dataclass
class SelfCheckGraph:
    """A graph that returns twice each of its two inputs (doubling is exact in every dtype): kiln
    eval on it shows kiln's draws for inputs 0 and 1."""
    dtype: str
    shapes: tuple = ((5 * (1 << 16) + 3,), (7,))

    def textproto(self) -> str:
        proto = {"f32": "F32", "bf16": "BF16", "f16": "F16"}[self.dtype]
        lines = ["format_version: 1"]
        for name, shape in zip("xw", self.shapes):
            lines.append(f'node {{ name: "{name}" op: "input" dtype: {proto} shape: [{", ".join(map(str, shape))}] }}')
        lines += ['node { name: "y" op: "add" operand: ["x", "x"] }', 'node { name: "z" op: "add" operand: ["w", "w"] }',
                  'output: "y"', 'output: "z"']
        return "\n".join(lines) + "\n"
