#!/usr/bin/env python3
"""Times kiln's peers on one benchmark graph, on one GPU, and checks each against kiln's output.

    python3 bench/peers.py --io DIR --workload gelu_naive --shape 16384x16384 --dtype f32 \\
        --out peers.json [--reps 50]

DIR is what `kiln run FILE --save-io DIR` wrote (io.json and one raw little-endian file per
tensor), so every peer runs on exactly kiln's inputs and is checked against kiln's output by
relative L2 error. Where DIR/io.json is missing (kiln's run failed, or no DIR is given)
the peers get fresh random inputs and are checked against a float64 PyTorch computation.

Peers:
  copy     device-to-device copy of the largest input: the bandwidth ceiling (read + write)
  eager    PyTorch eager on docs/design.md's naive op sequence, one op at a time
  builtin  PyTorch's own op: F.gelu(x, approximate="tanh"), torch.softmax(x, 1), x.sum(1),
           torch.relu(a @ b)
  compile  torch.compile of the naive function
  triton   the seed lecture's Triton kernel (softmax only where a row fits in one block)

Each time is the median over --reps repetitions, each between its own pair of CUDA events,
after --warmup calls. The output JSON (schema report.PEERS_SCHEMA) is read by bench/report.py.
Needs PyTorch, Triton and numpy: it runs on the GPU machine.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import pathlib
import platform
import statistics
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F
import triton
import triton.language as tl

from report import DTYPE_BYTES, PEERS_SCHEMA, compulsory_cost, parse_dims

TORCH_DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
# kiln saves bf16 as its raw 16-bit patterns; numpy has no bfloat16, so they are read as int16.
FILE_DTYPES = {"f32": np.float32, "f16": np.float16, "bf16": np.int16}

# The seed's softmax holds a whole row in one block; past this many columns that stops compiling
# to anything sensible (the registers spill), so the kernel is reported as not applicable.
TRITON_SOFTMAX_MAX_COLS = 16384


# ---------------------------------------------------------------------------------------------
# The naive functions, exactly docs/design.md's op sequences (also the float64 reference math).
# ---------------------------------------------------------------------------------------------

def naive_gelu(x):
    t1 = x * x
    t2 = t1 * x
    t3 = 0.044715 * t2
    t4 = x + t3
    t5 = 0.79788456 * t4
    t6 = torch.tanh(t5)
    t7 = 1 + t6
    t8 = 0.5 * x
    return t8 * t7


def naive_softmax(x):
    m = torch.amax(x, dim=1, keepdim=True)
    d = x - m
    e = torch.exp(d)
    s = torch.sum(e, dim=1, keepdim=True)
    return e / s


def naive_row_sum(x):
    return torch.sum(x, dim=1)


def naive_matmul_relu(a, b):
    c = a @ b
    return torch.relu(c)


NAIVE = {
    "gelu_naive": naive_gelu,
    "softmax_naive": naive_softmax,
    "row_sum": naive_row_sum,
    "matmul_relu": naive_matmul_relu,
}

BUILTIN = {
    "gelu_naive": ('F.gelu(x, approximate="tanh")', lambda x: F.gelu(x, approximate="tanh")),
    "softmax_naive": ("torch.softmax(x, 1)", lambda x: torch.softmax(x, 1)),
    "row_sum": ("x.sum(1)", lambda x: x.sum(1)),
    "matmul_relu": ("torch.relu(a @ b)", lambda a, b: torch.relu(a @ b)),
}


# ---------------------------------------------------------------------------------------------
# The seed lecture's Triton kernels. Loads are widened to fp32 so that the same kernels take
# bf16/f16 (Triton's exp wants fp32); stores narrow to the output's dtype.
# ---------------------------------------------------------------------------------------------

@triton.jit
def gelu_kernel(x_ptr, y_ptr, num_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < num_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    # The seed has no tl.tanh: tanh(a) = (exp(2a) - 1) / (exp(2a) + 1), NaN once exp overflows.
    a = 0.79788456 * (x + 0.044715 * x * x * x)
    e = tl.exp(2 * a)
    y = 0.5 * x * (1 + (e - 1) / (e + 1))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def triton_gelu(x):
    y = torch.empty_like(x)
    n = x.numel()
    block = 1024
    gelu_kernel[(triton.cdiv(n, block),)](x, y, n, BLOCK_SIZE=block)
    return y


@triton.jit
def softmax_kernel(x_ptr, y_ptr, x_row_stride, y_row_stride, num_cols,
                   BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < num_cols
    # -inf is the identity of max and vanishes under exp, so padding lanes change nothing.
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=float("-inf"))
    x = x.to(tl.float32)
    x = x - tl.max(x, axis=0)
    numerator = tl.exp(x)
    denominator = tl.sum(numerator, axis=0)
    y = numerator / denominator
    tl.store(y_ptr + row * y_row_stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def triton_softmax(x):
    rows, cols = x.shape
    y = torch.empty_like(x)
    block = triton.next_power_of_2(cols)
    # The seed leaves num_warps at Triton's default; this is the scaling of Triton's
    # fused-softmax tutorial, which the seed's kernel comes from.
    num_warps = 4 if block < 2048 else 8 if block < 4096 else 16
    softmax_kernel[(rows,)](x, y, x.stride(0), y.stride(0), cols, BLOCK_SIZE=block,
                            num_warps=num_warps)
    return y


@triton.jit
def row_sum_kernel(x_ptr, y_ptr, num_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, num_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + row * num_cols + cols, mask=cols < num_cols, other=0.0)
        acc += x.to(tl.float32)
    tl.store(y_ptr + row, tl.sum(acc, axis=0).to(y_ptr.dtype.element_ty))


def triton_row_sum(x):
    rows, cols = x.shape
    y = torch.empty(rows, device=x.device, dtype=x.dtype)
    row_sum_kernel[(rows,)](x, y, cols, BLOCK_SIZE=1024)
    return y


@triton.jit
def matmul_relu_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                       stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_ptrs = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(rows[:, None] < M) & (ks[None, :] + k < K), other=0.0)
        b = tl.load(b_ptrs, mask=(ks[:, None] + k < K) & (cols[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    acc = tl.maximum(acc, 0.0)  # the fused ReLU: free, the tile is still in registers
    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty),
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def triton_matmul_relu(a, b):
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty((m, n), device=a.device, dtype=a.dtype)
    grid = (triton.cdiv(m, 64), triton.cdiv(n, 64))
    matmul_relu_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0),
                             b.stride(1), c.stride(0), c.stride(1),
                             BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return c


TRITON = {
    "gelu_naive": triton_gelu,
    "softmax_naive": triton_softmax,
    "row_sum": triton_row_sum,
    "matmul_relu": triton_matmul_relu,
}


# ---------------------------------------------------------------------------------------------
# Inputs, reference and checks
# ---------------------------------------------------------------------------------------------

def input_shapes(workload: str, dims: list[int]) -> list[list[int]]:
    if workload == "matmul_relu":
        m, n, k = dims
        return [[m, k], [k, n]]
    return [dims]


def load_tensor(path: pathlib.Path, dtype: str, shape: list[int]) -> torch.Tensor:
    """One raw little-endian file kiln saved, on the GPU."""
    expected = math.prod(shape) * DTYPE_BYTES[dtype]
    size = path.stat().st_size
    if size != expected:
        raise ValueError(f"{path}: {size} bytes, expected {expected} for {dtype} {shape}")
    host = torch.from_numpy(np.fromfile(path, dtype=FILE_DTYPES[dtype]))
    return host.view(TORCH_DTYPES[dtype]).reshape(shape).cuda()


def load_io(io_dir: pathlib.Path, workload: str, dims: list[int], dtype: str):
    """kiln's inputs (in io.json order) and its output, or None where it saved none."""
    spec = json.loads((io_dir / "io.json").read_text())["tensors"]
    inputs = [t for t in spec if t["role"] == "input"]
    outputs = [t for t in spec if t["role"] == "output"]
    want = input_shapes(workload, dims)
    got = [list(t["shape"]) for t in inputs]
    if got != want or any(t["dtype"] != dtype for t in inputs):
        raise ValueError(f"{io_dir}/io.json has inputs {got} of "
                         f"{[t['dtype'] for t in inputs]}; {workload} {dtype} needs {want}")
    tensors = [load_tensor(io_dir / t["file"], t["dtype"], t["shape"]) for t in inputs]
    output = None
    if outputs and (io_dir / outputs[0]["file"]).exists():
        o = outputs[0]
        output = load_tensor(io_dir / o["file"], o["dtype"], o["shape"])
    return tensors, output


def random_inputs(workload: str, dims: list[int], dtype: str, seed: int) -> list[torch.Tensor]:
    gen = torch.Generator(device="cuda").manual_seed(seed)
    return [torch.randn(shape, generator=gen, device="cuda").to(TORCH_DTYPES[dtype])
            for shape in input_shapes(workload, dims)]


def tolerance(workload: str, dtype: str) -> float:
    """docs/design.md's bounds; fp32 matmul gets the tf32 bound because cuBLAS or Triton may use it."""
    if dtype in ("bf16", "f16"):
        return 1e-2
    return 1e-3 if workload == "matmul_relu" else 1e-5


def relative_l2(out: torch.Tensor, ref: torch.Tensor) -> float | None:
    """‖out − ref‖ / ‖ref‖ in float64; None when out has NaN/Inf or a different element count."""
    if out.numel() != ref.numel():
        return None
    ref64 = ref.reshape(-1).double()
    diff = torch.linalg.vector_norm(out.reshape(-1).double() - ref64).item()
    norm = torch.linalg.vector_norm(ref64).item()
    err = diff / norm if norm else diff
    return err if math.isfinite(err) else None


def median_us(fn, reps: int, warmup: int) -> float:
    """Median time of fn in microseconds, one CUDA event pair per repetition."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(reps)]
    for start, end in events:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(end) for start, end in events) * 1e3


def copy_us(src: torch.Tensor, reps: int, warmup: int) -> float:
    """The copy ceiling: a device-to-device copy of src into a fresh buffer of its size."""
    dst = torch.empty_like(src)
    return median_us(lambda: dst.copy_(src), reps, warmup)


# ---------------------------------------------------------------------------------------------
# Running the peers
# ---------------------------------------------------------------------------------------------

def peer_list(workload: str, dims: list[int], dtype: str, compile_mode: str):
    """(peer, label, function or None, note) in report order; None marks "not applicable"."""
    naive = NAIVE[workload]
    builtin_label, builtin = BUILTIN[workload]
    if workload in ("row_sum", "matmul_relu"):
        eager = ("eager", "PyTorch eager, naive ops", None,
                 f"the naive sequence is the built-in's own ops ({builtin_label}): see built-in")
    else:
        eager = ("eager", "PyTorch eager, naive ops", naive, "")
    if workload == "softmax_naive" and dims[1] > TRITON_SOFTMAX_MAX_COLS:
        seed = ("triton", "Triton, seed kernel", None,
                f"not applicable: the seed's kernel keeps a whole row in one block; a row of "
                f"{dims[1]} exceeds {TRITON_SOFTMAX_MAX_COLS} columns")
    elif workload == "matmul_relu" and dtype == "f32":
        seed = ("triton", "Triton, seed kernel (tl.dot in tf32)", TRITON[workload], "")
    else:
        seed = ("triton", "Triton, seed kernel", TRITON[workload], "")
    return [
        eager,
        ("builtin", builtin_label, builtin, ""),
        ("compile", "torch.compile(naive)" if compile_mode == "default"
         else f"torch.compile(naive, mode={compile_mode!r})",
         torch.compile(naive, mode=compile_mode, dynamic=False), ""),
        seed,
    ]


def run_peer(fn, inputs, reference, tol: float, args) -> dict:
    """Checks fn's first result against the reference, then times it."""
    out = fn(*inputs)  # the first call also compiles (torch.compile, Triton)
    torch.cuda.synchronize()
    err = relative_l2(out, reference)
    del out
    us = median_us(lambda: fn(*inputs), args.reps, args.warmup)
    note = "" if err is not None else "output has NaN/Inf or the wrong number of elements"
    return {"us": us, "rel_error": err, "tolerance": tol,
            "passed": err is not None and err <= tol, "note": note}


def driver_version() -> str | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.splitlines()[0].strip() if out.strip() else None


def environment(compile_mode: str) -> dict:
    props = torch.cuda.get_device_properties(0)
    return {
        "gpu": props.name,
        "driver": driver_version(),
        "cuda": torch.version.cuda,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "sms": props.multi_processor_count,
        "l2_bytes": getattr(props, "L2_cache_size", None),
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "compile_mode": compile_mode,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def run(args) -> dict:
    dims = parse_dims(args.shape)
    nbytes, flops = compulsory_cost(args.workload, args.shape, args.dtype)
    matmul = args.workload == "matmul_relu"
    tol = tolerance(args.workload, args.dtype)

    kiln_output = None
    if args.io and (args.io / "io.json").exists():
        inputs, kiln_output = load_io(args.io, args.workload, dims, args.dtype)
        source = "kiln's saved inputs"
    else:
        inputs = random_inputs(args.workload, dims, args.dtype, args.seed)
        source = f"random normal inputs (seed {args.seed})"
    if kiln_output is not None:
        reference, reference_name = kiln_output, "kiln's output"
    else:
        reference = NAIVE[args.workload](*(t.double() for t in inputs))
        reference_name = "a float64 PyTorch computation (no kiln output)"

    def row(peer: str, label: str, **fields) -> dict:
        base = {"workload": args.workload, "shape": args.shape, "dtype": args.dtype,
                "peer": peer, "label": label, "us": None, "bytes": nbytes, "flops": flops,
                "rel_error": None, "tolerance": None, "passed": None, "note": ""}
        base.update(fields)
        if base["us"]:
            if matmul and peer != "copy":
                base["tflops"] = flops / base["us"] / 1e6
            else:
                base["gbps"] = base["bytes"] / base["us"] / 1e3
        return base

    largest = max(inputs, key=lambda t: t.numel())
    rows = [row("copy", "copy ceiling (device-to-device copy)", bytes=2 * largest.nbytes,
                us=copy_us(largest, args.reps, args.warmup),
                note=f"copy of {largest.nbytes:,} bytes, counted read + write")]

    for peer, label, fn, note in peer_list(args.workload, dims, args.dtype, args.compile_mode):
        if fn is None:
            rows.append(row(peer, label, note=note))
            continue
        try:
            rows.append(row(peer, label, **run_peer(fn, inputs, reference, tol, args)))
        except Exception as err:  # one broken peer is recorded; the others still run
            first_line = next(iter(str(err).splitlines()), "")
            rows.append(row(peer, label, passed=False,
                            note=f"error: {type(err).__name__}: {first_line}"))
        torch.cuda.empty_cache()
        print(f"peers: {args.workload} {args.shape} {args.dtype} {peer}: "
              f"{rows[-1]['us'] or rows[-1]['note']}", file=sys.stderr)

    return {
        "schema": PEERS_SCHEMA,
        "workload": args.workload, "shape": args.shape, "dtype": args.dtype,
        "inputs": source,
        "reference": reference_name,
        "environment": environment(args.compile_mode),
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--io", type=pathlib.Path,
                        help="directory written by `kiln run --save-io`; absent: random inputs")
    parser.add_argument("--workload", required=True, choices=sorted(NAIVE))
    parser.add_argument("--shape", required=True, help="e.g. 16384x16384; matmul: MxNxK")
    parser.add_argument("--dtype", required=True, choices=sorted(TORCH_DTYPES))
    parser.add_argument("--out", required=True, type=pathlib.Path, help="peers JSON to write")
    parser.add_argument("--reps", type=int, default=50, help="timed repetitions per peer")
    parser.add_argument("--warmup", type=int, default=5, help="untimed calls before timing")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    parser.add_argument("--compile-mode", default="default",
                        help="torch.compile mode (default, max-autotune, ...)")
    args = parser.parse_args(argv)
    try:
        compulsory_cost(args.workload, args.shape, args.dtype)
    except ValueError as err:
        parser.error(str(err))
    if not torch.cuda.is_available():
        print("peers: no CUDA device visible to PyTorch", file=sys.stderr)
        return 1
    result = run(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
