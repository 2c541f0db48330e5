#!/usr/bin/env python3
"""Attention derived by fusion against PyTorch's attention kernels, in one run on one GPU.

    python3 bench/attention_bench.py --kiln ".gpu/run kiln" --out DIR \\
        [--graphs bench/graphs/attention/*.textproto] [--reps 30] [--skip-compile]

For each graph bench/graphs/attention/<attention_naive|attention_causal>_<B>x<H>x<S>x<D>_<dtype>.textproto:
  kiln     `kiln run FILE --json --no-check`: the naive graph as kiln plans it (one attention
           kernel); correctness is the GPU suite's (tests/runtime/attention_gpu_test.cc), whose
           CPU reference at these sizes would take minutes
  flash    F.scaled_dot_product_attention with the flash backend
  efficient  the same with the memory-efficient backend
  compile  torch.compile of the naive function (q @ kᵀ / sqrt(D), mask, softmax, @ v), unless
           --skip-compile
  eager    the naive function in eager PyTorch
TFLOP/s count 4·B·H·S²·D, halved for causal. Times are medians of --reps repetitions between
CUDA events after warm-up, on random inputs. Writes DIR/attention.json and DIR/attention.md.
"""

from __future__ import annotations

import argparse
import datetime
import glob
import json
import math
import pathlib
import shlex
import subprocess
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from cuda_timing import median_us

TORCH_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


def parse_name(path: str):
    stem = pathlib.Path(path).stem
    rest, dtype = stem.rsplit("_", 1)
    workload, dims = rest.rsplit("_", 1)
    return workload, tuple(int(d) for d in dims.split("x")), dtype




def naive(q, k, v, causal: bool):
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        n = s.shape[-1]
        visible = torch.ones(n, n, dtype=torch.bool, device=s.device).tril()
        s = s.masked_fill(~visible, float("-inf"))
    return torch.softmax(s, dim=-1) @ v


def peers(shape, dtype: str, causal: bool, reps: int, skip_compile: bool) -> dict:
    b, h, s, d = shape
    t = TORCH_DTYPES[dtype]
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=t) for _ in range(3))
    out = {}
    for name, backend in (("flash", SDPBackend.FLASH_ATTENTION), ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
        with sdpa_kernel(backend):
            out[name] = {"what": f"SDPA ({name})",
                         "us": median_us(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), reps)}
    if not skip_compile:
        compiled = torch.compile(lambda q, k, v: naive(q, k, v, causal))
        out["compile"] = {"what": "torch.compile of the naive function", "us": median_us(lambda: compiled(q, k, v), reps)}
    if s <= 4096:  # eager materializes S x S scores per head
        out["eager"] = {"what": "eager naive", "us": median_us(lambda: naive(q, k, v, causal), reps)}
    return out


def run_kiln(kiln: list[str], graph: str) -> dict:
    cmd = kiln + ["run", graph, "--json", "--no-check"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    result = {"command": " ".join(cmd), "exit_code": proc.returncode}
    try:
        report = json.loads(proc.stdout)
        result["report"] = report
        kernels = report.get("kernels") or []
        result["us"] = (report.get("total") or {}).get("us")
        result["kernels"] = [{"name": k.get("name"), "strategy": k.get("strategy"), "us": k.get("us")} for k in kernels]
    except ValueError:
        result["error"] = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", default="kiln")
    parser.add_argument("--out", required=True)
    parser.add_argument("--graphs", nargs="+", default=sorted(glob.glob(
        str(pathlib.Path(__file__).parent / "graphs" / "attention" / "*.textproto"))))
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--skip-compile", action="store_true", help="leave torch.compile out (it compiles per shape)")
    args = parser.parse_args()
    kiln = shlex.split(args.kiln)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    gpu = torch.cuda.get_device_name()
    rows = []
    lines = [f"# kiln attention by fusion on {gpu}, {datetime.date.today()}", "",
             "| graph | kiln µs | kiln TFLOP/s | kernels | peer | peer µs | peer TFLOP/s | kiln vs peer |",
             "|---|---:|---:|---:|---|---:|---:|---:|"]
    for graph in args.graphs:
        workload, shape, dtype = parse_name(graph)
        causal = workload == "attention_causal"
        b, h, s, d = shape
        flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
        name = pathlib.Path(graph).stem
        print(f"== {name}", flush=True)
        kiln_result = run_kiln(kiln, graph)
        row = {"graph": name, "shape": shape, "dtype": dtype, "causal": causal, "flops": flops, "kiln": kiln_result,
               "peers": peers(shape, dtype, causal, args.reps, args.skip_compile)}
        rows.append(row)
        kiln_us = kiln_result.get("us") or float("nan")
        for peer in row["peers"].values():
            lines.append(f"| {name} | {kiln_us:.1f} | {flops / kiln_us / 1e6:.0f} | {len(kiln_result.get('kernels', []))} | "
                         f"{peer['what']} | {peer['us']:.1f} | {flops / peer['us'] / 1e6:.0f} | "
                         f"{peer['us'] / kiln_us:.2f}x |")
        (out / "attention.json").write_text(json.dumps({"gpu": gpu, "date": str(datetime.date.today()), "rows": rows},
                                                       indent=1) + "\n")
    table = "\n".join(lines) + "\n"
    (out / "attention.md").write_text(table)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
