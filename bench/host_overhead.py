#!/usr/bin/env python3
"""Host cost per Run against device time, for plans where the host is the bottleneck: a one-kernel
and a five-kernel small graph (both replay as CUDA graphs), and a 1000x1000 f32 softmax
against torch.softmax.

    python3 bench/host_overhead.py --kiln ".gpu/run kiln" --out DIR [--iters 200]

For kiln, `kiln run --json` reports host_us_per_run (Executable::Run called back to back, the way
a serving loop calls it, so a plan of several kernels is measured on its CUDA graph replay path),
run_launch (how those Runs launched) and the plan's median device time. For torch.softmax, host
microseconds per call are measured the same way (calls queued back to back, then one
synchronize) and device time with CUDA events (bench/cuda_timing.py). Writes DIR/host_overhead.json
and DIR/host_overhead.md. Needs PyTorch: it runs on the GPU machine.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import shlex
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

# name, workload, dtype, dims, extra kiln run flags
GRAPHS = (
    ("gelu 64x64, 1 kernel", "gelu_naive", "f32", "64x64", []),
    ("softmax 64x64 unfused, 5 kernels", "softmax_naive", "f32", "64x64", ["--unfused"]),
    ("softmax 1000x1000, 1 kernel", "softmax_naive", "f32", "1000x1000", []),
)
HOST_CALLS = 200


def kiln_row(kiln: list[str], work: pathlib.Path, name: str, workload: str, dtype: str, dims: str,
             flags: list[str], iters: int) -> dict:
    graph = work / f"{workload}_{dims}_{dtype}.textproto"
    subprocess.run(kiln + ["workload", workload, dtype, dims, f"--out={graph}"], check=True, capture_output=True)
    cmd = kiln + ["run", str(graph), "--json", f"--iters={iters}"] + flags
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return {"name": name, "command": " ".join(cmd), "error": proc.stderr.strip().splitlines()[-1:]}
    report = json.loads(proc.stdout)
    return {"name": name, "command": " ".join(cmd), "kernels": len(report["kernels"]),
            "host_us_per_run": report["host_us_per_run"], "run_launch": report.get("run_launch", ""),
            "device_us": report["total"]["us"], "check_passed": report["check"]["passed"]}


def torch_row(iters: int) -> dict:
    import torch
    from cuda_timing import median_us

    x = torch.randn(1000, 1000, device="cuda")
    for _ in range(10):
        torch.softmax(x, -1)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(HOST_CALLS):
        torch.softmax(x, -1)
    host_us = (time.perf_counter() - start) * 1e6 / HOST_CALLS
    torch.cuda.synchronize()
    return {"name": "torch.softmax 1000x1000 f32", "kernels": 1, "host_us_per_run": host_us,
            "run_launch": "eager", "device_us": median_us(lambda: torch.softmax(x, -1), iters)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", default="build/kiln", help="how to run kiln, as shell words")
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--iters", type=int, default=200)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    kiln = shlex.split(args.kiln)
    rows = [kiln_row(kiln, args.out, *graph, args.iters) for graph in GRAPHS]
    rows.append(torch_row(args.iters))
    (args.out / "host_overhead.json").write_text(json.dumps(rows, indent=1) + "\n")
    lines = ["| graph | kernels | host us per Run | launched as | device us |", "|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['name']} | failed: {' '.join(r['error'])} | | | |")
        else:
            lines.append(f"| {r['name']} | {r['kernels']} | {r['host_us_per_run']:.2f} | {r['run_launch']} | "
                         f"{r['device_us']:.2f} |")
    (args.out / "host_overhead.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
