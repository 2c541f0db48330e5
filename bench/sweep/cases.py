"""The memory-bound sweep cases: several hundred graphs, each a kiln text graph and the PyTorch
function that computes the same thing. Pure Python, no torch: generating needs nothing installed.

    from cases import all_cases
    for case in all_cases():
        case.name, case.cls, case.dtype, case.inputs   # {"x": [1024, 50257]}
        case.textproto()                               # the kiln graph file's text
        case.torch_expr                                # "torch.softmax(x, -1)" over the input names

Classes: pointwise (1 to 4 inputs, row and column broadcasts), row reductions and normalizations
(sum, max, softmax, layernorm, rmsnorm, logsumexp over the last axis, rows of 1 to 2M elements,
1 to 1M rows), reductions over a leading or middle axis, and transposes (2-D, batched last two,
3-D, 4-D), each in f32, bf16 and f16. No tensor of a case exceeds MAX_TENSOR_BYTES.
"""

from __future__ import annotations

import dataclasses

MAX_TENSOR_BYTES = 2 << 30
DTYPES = ("f32", "bf16", "f16")
DTYPE_BYTES = {"f32": 4, "bf16": 2, "f16": 2}
PROTO_DTYPE = {"f32": "F32", "bf16": "BF16", "f16": "F16"}
# Normalizations of 16-bit tensors compute in f32, as models (and PyTorch's kernels) do.
EPS = 1e-5

# Row lengths from 1 to 2M: powers of two, one either side of them, primes (4093, 8191, 131071),
# and vocabulary sizes (GPT-2's 50257, Llama 3's 128256).
ROW_LENGTHS = (1, 2, 3, 7, 31, 32, 33, 127, 128, 255, 257, 1000, 1023, 1024, 1025, 2048, 4093, 4096,
               8191, 8192, 16384, 32000, 32768, 50257, 65536, 128256, 131071, 262144, 524288,
               1048576, 2097152)
# The subset the 16-bit dtypes sweep.
ROW_LENGTHS_16 = (1, 33, 128, 1000, 1024, 4093, 8192, 32768, 50257, 128256, 524288, 2097152)
# Rows per case: enough for about 2^26 elements (a few hundred microseconds of traffic), at least 1.
TARGET_ELEMENTS = 1 << 26
# Row counts swept at a fixed short and long row: 1 to 1M rows.
ROW_COUNTS = (1, 4, 64, 132, 1000, 4096, 16384, 65536, 262144, 1048576)
ROW_OPS = ("sum", "max", "softmax", "layernorm", "rmsnorm", "logsumexp")


@dataclasses.dataclass
class Case:
    name: str
    cls: str                      # pointwise, row, axis_reduction, transpose
    dtype: str
    inputs: dict[str, list[int]]  # name -> shape, in graph input order
    nodes: list[str]              # textproto node lines after the inputs
    outputs: list[str]
    torch_expr: str               # PyTorch over the input names; may use F (torch.nn.functional)

    def textproto(self) -> str:
        lines = ["format_version: 1"]
        for name, shape in self.inputs.items():
            lines.append(f'node {{ name: "{name}" op: "input" dtype: {PROTO_DTYPE[self.dtype]} '
                         f'shape: [{", ".join(map(str, shape))}] }}')
        lines += self.nodes
        lines += [f'output: "{o}"' for o in self.outputs]
        return "\n".join(lines) + "\n"

    def largest_bytes(self) -> int:
        return largest_tensor_bytes(self.inputs, self.dtype)


def _count(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def largest_tensor_bytes(inputs: dict[str, list[int]], dtype: str) -> int:
    """Bytes of the largest of `inputs` (name -> shape) in `dtype`."""
    return max(_count(s) for s in inputs.values()) * DTYPE_BYTES[dtype]


def _node(name: str, op: str, operands, **fields) -> str:
    ops = ", ".join(f'"{o}"' for o in operands)
    extra = ""
    for key, value in fields.items():
        if isinstance(value, bool):
            extra += f" {key}: {'true' if value else 'false'}"
        elif isinstance(value, (list, tuple)):
            extra += f" {key}: [{', '.join(map(str, value))}]"
        elif isinstance(value, str):
            extra += f" {key}: {value}"
        else:
            extra += f" {key}: {value!r}"
    return f'node {{ name: "{name}" op: "{op}" operand: [{ops}]{extra} }}'


def _constant(name: str, value: float) -> str:
    return f'node {{ name: "{name}" op: "constant" dtype: F32 value: {value!r} }}'


def _dims(shape) -> str:
    return "x".join(map(str, shape))


def _fits(dtype: str, *shapes) -> bool:
    return all(_count(s) * DTYPE_BYTES[dtype] <= MAX_TENSOR_BYTES for s in shapes)


# ---- pointwise


POINTWISE_SIZES = ((1, 1), (1, 1000), (7, 33), (1000, 1000), (1024, 1024), (333, 12345), (4096, 4096),
                   (8191, 8191), (16384, 16384), (32768, 16384))


def pointwise_case(arity: int, rows: int, cols: int, dtype: str) -> Case:
    # a full; b a row ([cols]) broadcast down; c a column ([rows, 1]) broadcast across; d full.
    shapes = {"a": [rows, cols], "b": [cols], "c": [rows, 1], "d": [rows, cols]}
    names = list(shapes)[:arity]
    inputs = {n: shapes[n] for n in names}
    nodes, expr = {
        1: ([_node("y", "exp", ["a"])], "torch.exp(a)"),
        2: ([_node("t1", "mul", ["a", "b"]), _node("y", "add", ["t1", "a"])], "a * b + a"),
        3: ([_node("t1", "mul", ["a", "b"]), _node("y", "add", ["t1", "c"])], "a * b + c"),
        4: ([_node("t1", "mul", ["a", "b"]), _node("t2", "add", ["t1", "c"]), _node("y", "mul", ["t2", "d"])],
            "(a * b + c) * d"),
    }[arity]
    return Case(name=f"pointwise{arity}_{_dims([rows, cols])}_{dtype}", cls="pointwise", dtype=dtype,
                inputs=inputs, nodes=nodes, outputs=["y"], torch_expr=expr)


# ---- row reductions and normalizations over the last axis


def row_case(op: str, rows: int, length: int, dtype: str) -> Case:
    shape = [rows, length]
    inputs = {"x": shape}
    wide = dtype != "f32"
    nodes: list[str] = []
    x = "x"
    if op in ("softmax", "layernorm", "rmsnorm", "logsumexp") and wide:
        nodes.append(_node("x32", "cast", ["x"], dtype="F32"))
        x = "x32"
    out = "y32" if (wide and op in ("softmax", "layernorm", "rmsnorm", "logsumexp")) else "y"
    if op == "sum":
        nodes.append(_node("y", "reduce_sum", [x], axes=[1]))
        expr = "x.sum(-1)"
    elif op == "max":
        nodes.append(_node("y", "reduce_max", [x], axes=[1]))
        expr = "x.amax(-1)"
    elif op == "softmax":
        nodes += [_node("m", "reduce_max", [x], axes=[1], keepdims=True), _node("d", "sub", [x, "m"]),
                  _node("e", "exp", ["d"]), _node("s", "reduce_sum", ["e"], axes=[1], keepdims=True),
                  _node(out, "div", ["e", "s"])]
        expr = "torch.softmax(x, -1)"
    elif op == "logsumexp":
        nodes += [_node("m", "reduce_max", [x], axes=[1], keepdims=True), _node("d", "sub", [x, "m"]),
                  _node("e", "exp", ["d"]), _node("s", "reduce_sum", ["e"], axes=[1], keepdims=True),
                  _node("l", "log", ["s"]), _node(out, "add", ["l", "m"])]
        expr = "torch.logsumexp(x.float(), -1, keepdim=True).to(x.dtype)"
    elif op == "layernorm":
        inputs = {"x": shape, "w": [length], "b": [length]}
        w, b = ("w", "b")
        if wide:
            nodes += [_node("w32", "cast", ["w"], dtype="F32"), _node("b32", "cast", ["b"], dtype="F32")]
            w, b = ("w32", "b32")
        nodes += [_node("mean", "reduce_mean", [x], axes=[1], keepdims=True), _node("d", "sub", [x, "mean"]),
                  _node("dd", "mul", ["d", "d"]), _node("var", "reduce_mean", ["dd"], axes=[1], keepdims=True),
                  _constant("eps", EPS), _node("ve", "add", ["var", "eps"]), _node("r", "rsqrt", ["ve"]),
                  _node("n", "mul", ["d", "r"]), _node("nw", "mul", ["n", w]), _node(out, "add", ["nw", b])]
        expr = f"F.layer_norm(x, (x.shape[-1],), w, b, {EPS})"
    elif op == "rmsnorm":
        inputs = {"x": shape, "w": [length]}
        w = "w"
        if wide:
            nodes.append(_node("w32", "cast", ["w"], dtype="F32"))
            w = "w32"
        nodes += [_node("xx", "mul", [x, x]), _node("ms", "reduce_mean", ["xx"], axes=[1], keepdims=True),
                  _constant("eps", EPS), _node("me", "add", ["ms", "eps"]), _node("r", "rsqrt", ["me"]),
                  _node("n", "mul", [x, "r"]), _node(out, "mul", ["n", w])]
        expr = f"F.rms_norm(x, (x.shape[-1],), w, {EPS})"
    else:
        raise ValueError(op)
    if out == "y32":
        nodes.append(_node("y", "cast", ["y32"], dtype=PROTO_DTYPE[dtype]))
    return Case(name=f"{op}_{_dims(shape)}_{dtype}", cls="row", dtype=dtype, inputs=inputs, nodes=nodes,
                outputs=["y"], torch_expr=expr)


# ---- reductions over a leading or middle axis


AXIS_SHAPES = (([1024, 1024], 0), ([16384, 1024], 0), ([100000, 7], 0), ([7, 100000], 0), ([65536, 4096], 0),
               ([64, 1024, 64], 1), ([8, 4096, 1024], 1), ([128, 33, 4093], 1), ([2, 1000000, 3], 1),
               ([1000, 1000, 32], 1))


def axis_case(op: str, shape: list[int], axis: int, dtype: str) -> Case:
    kiln_op = {"sum": "reduce_sum", "max": "reduce_max"}[op]
    torch_op = {"sum": f"x.sum({axis})", "max": f"x.amax({axis})"}[op]
    return Case(name=f"{op}_axis{axis}_{_dims(shape)}_{dtype}", cls="axis_reduction", dtype=dtype,
                inputs={"x": shape}, nodes=[_node("y", kiln_op, ["x"], axes=[axis])], outputs=["y"],
                torch_expr=torch_op)


# ---- transposes and permutations


TRANSPOSES = (
    ([1024, 1024], [1, 0]), ([4096, 4096], [1, 0]), ([16384, 8192], [1, 0]), ([1000, 3], [1, 0]),
    ([4093, 8191], [1, 0]), ([32, 1024, 1024], [0, 2, 1]), ([64, 333, 777], [0, 2, 1]),
    ([512, 1024, 64], [2, 0, 1]), ([256, 256, 256], [1, 0, 2]), ([8, 16, 1024, 128], [0, 2, 1, 3]),
    ([8, 1024, 16, 128], [0, 2, 3, 1]), ([4, 12, 1025, 64], [0, 2, 1, 3]),
)


def transpose_case(shape: list[int], perm: list[int], dtype: str) -> Case:
    return Case(name=f"transpose{''.join(map(str, perm))}_{_dims(shape)}_{dtype}", cls="transpose",
                dtype=dtype, inputs={"x": shape}, nodes=[_node("y", "transpose", ["x"], perm=perm)],
                outputs=["y"], torch_expr=f"x.permute({', '.join(map(str, perm))}).contiguous()")


def all_cases() -> list[Case]:
    cases: list[Case] = []
    for dtype in DTYPES:
        for arity in (1, 2, 3, 4):
            for rows, cols in POINTWISE_SIZES:
                cases.append(pointwise_case(arity, rows, cols, dtype))
        lengths = ROW_LENGTHS if dtype == "f32" else ROW_LENGTHS_16
        for op in ROW_OPS:
            for length in lengths:
                cases.append(row_case(op, max(1, TARGET_ELEMENTS // length), length, dtype))
            for rows in ROW_COUNTS:  # the row-count sweep, at a short and a long row
                for length in (128, 32768):
                    cases.append(row_case(op, rows, length, dtype))
        for op in ("sum", "max"):
            for shape, axis in AXIS_SHAPES:
                cases.append(axis_case(op, list(shape), axis, dtype))
        for shape, perm in TRANSPOSES:
            cases.append(transpose_case(list(shape), list(perm), dtype))
    seen, unique = set(), []
    for case in cases:
        if case.name in seen or not _fits(case.dtype, *case.inputs.values()):
            continue
        seen.add(case.name)
        unique.append(case)
    return unique
