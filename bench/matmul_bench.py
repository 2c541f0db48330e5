#!/usr/bin/env python3
"""kiln's matmul tier against the libraries, in one run on one GPU.

    python3 bench/matmul_bench.py --kiln ".gpu/run kiln" --out DIR \\
        [--graphs bench/graphs/matmul/*.textproto] [--max-autotune | --skip-compile] [--reps 50] [--no-check]
        [--rounds N]

For each graph bench/graphs/matmul/<workload>_<M>x<N>x<K>_<dtype>.textproto:
  kiln      `kiln run FILE --json`: the fused plan, its matmul tuned on first use (the tuning
            lines and time are kept), checked against the reference interpreter unless --no-check;
            f32 graphs run twice, exact (FFMA) and with --allow-tf32 (the row named "... tf32"),
            each against cuBLAS with TF32 off and on respectively
  cublas    torch.relu(a @ b): cuBLAS, then a second kernel for the ReLU (matmul_relu);
            for f32 with TF32 off (exact fp32, as kiln computes it) and, for reference, on
  cublaslt  torch._addmm_activation(bias, a, b, use_gelu=True): cuBLASLt's fused bias + GeLU
            epilogue (matmul_bias_gelu)
  compile   torch.compile of the same function (mode max-autotune-no-cudagraphs with
            --max-autotune, which costs minutes a shape; left out with --skip-compile)
Every peer time is the median of --reps repetitions between CUDA events, after warm-up, on
random inputs (never zeros). With --rounds N the peers and kiln take turns N times on each graph
(torch.compile only in the first), and each figure is the median of its rounds, every round kept
in the JSON: at 8192³ the H200's clocks drift with its power draw over a run, which a single
measurement of each side, one after the other, lets favour either. Then the SASS check of the
config kiln ran: the kernel is emitted again (`kiln emit --matmul-tile=CONFIG`), built with
`nvcc -cubin -Xptxas -v`, and its registers, spills, shared memory and HGMMA instructions are
recorded.
Writes DIR/matmul.json and DIR/matmul.md; prints the table last. `--report-only` rewrites
DIR/matmul.md from DIR/matmul.json, with no GPU or PyTorch.
"""

from __future__ import annotations

import argparse
import datetime
import glob
import json
import pathlib
import re
import shlex
import statistics
import subprocess
import sys
import tempfile


def parse_name(path: str):
    """'matmul_relu_8192x8192x1024_bf16' -> ('matmul_relu', (8192, 8192, 1024), 'bf16')."""
    stem = pathlib.Path(path).stem
    rest, dtype = stem.rsplit("_", 1)
    workload, dims = rest.rsplit("_", 1)
    m, n, k = (int(d) for d in dims.split("x"))
    return workload, (m, n, k), dtype




def peers(workload: str, shape, dtype: str, reps: int, max_autotune: bool, skip_compile: bool) -> dict:
    # PyTorch is needed only to time the peers, on the GPU machine.
    import torch
    from cuda_timing import median_us

    def gelu_tanh(x):
        return 0.5 * x * (1 + torch.tanh(0.79788456 * (x + 0.044715 * x * x * x)))

    m, n, k = shape
    t = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[dtype]
    a = torch.randn(m, k, device="cuda", dtype=t)
    b = torch.randn(k, n, device="cuda", dtype=t)
    out = {}
    if workload == "matmul_relu":
        def fn(a, b):
            return torch.relu(a @ b)
        args = (a, b)
        if dtype == "f32":
            torch.backends.cuda.matmul.allow_tf32 = False
            out["cublas"] = {"what": "torch.relu(a @ b), TF32 off", "us": median_us(lambda: fn(*args), reps)}
            torch.backends.cuda.matmul.allow_tf32 = True
            out["cublas_tf32"] = {"what": "torch.relu(a @ b), TF32 on", "us": median_us(lambda: fn(*args), reps)}
            torch.backends.cuda.matmul.allow_tf32 = False
        else:
            out["cublas"] = {"what": "torch.relu(a @ b)", "us": median_us(lambda: fn(*args), reps)}
    elif workload == "matmul_bias_gelu":
        bias = torch.randn(n, device="cuda", dtype=t)

        def fn(a, b, bias):
            return gelu_tanh(a @ b + bias)
        args = (a, b, bias)
        out["cublaslt"] = {"what": "torch._addmm_activation(bias, a, b, use_gelu=True)",
                           "us": median_us(lambda: torch._addmm_activation(bias, a, b, use_gelu=True), reps)}
        out["cublas"] = {"what": "torch.addmm then the naive GeLU, eager", "us": median_us(lambda: fn(*args), reps)}
    else:
        raise SystemExit(f"unknown matmul workload {workload}")
    if skip_compile:
        return out
    mode = "max-autotune-no-cudagraphs" if max_autotune else "default"
    compiled = torch.compile(fn, mode=mode)
    out["compile"] = {"what": f"torch.compile ({mode})", "us": median_us(lambda: compiled(*args), reps)}
    return out


def run_kiln(kiln: list[str], graph: str, check: bool, flags: list[str]) -> dict:
    cmd = kiln + ["run", graph, "--json"] + flags + ([] if check else ["--no-check"])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    result = {"command": " ".join(cmd), "exit_code": proc.returncode,
              "tuning": [line for line in proc.stderr.splitlines() if line.strip()]}
    try:
        result["report"] = json.loads(proc.stdout)
    except ValueError:
        result["error"] = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return result


def sass_check(kiln: list[str], graph: str, config: str, flags: list[str]) -> dict:
    """Registers, spills, shared memory and HGMMA count of the kernel kiln ran."""
    with tempfile.TemporaryDirectory() as tmp:
        source = pathlib.Path(tmp) / "kernel.cu"
        emit = subprocess.run(kiln + ["emit", graph, f"--matmul-tile={config}"] + flags, capture_output=True,
                              text=True)
        if emit.returncode != 0:
            return {"error": emit.stderr.strip()[-300:]}
        source.write_text(emit.stdout)
        cubin = pathlib.Path(tmp) / "kernel.cubin"
        build = subprocess.run(["nvcc", "-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-Xptxas", "-v",
                                "-o", str(cubin), str(source)], capture_output=True, text=True)
        if build.returncode != 0:
            return {"error": build.stderr.strip()[-300:]}
        info = {}
        if m := re.search(r"Used (\d+) registers", build.stderr):
            info["registers"] = int(m.group(1))
        if m := re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", build.stderr):
            info["spill_bytes"] = int(m.group(1)) + int(m.group(2))
        if m := re.search(r"(\d+) bytes stack frame", build.stderr):
            info["stack_bytes"] = int(m.group(1))
        sass = subprocess.run(["cuobjdump", "--dump-sass", str(cubin)], capture_output=True, text=True).stdout
        info["hgmma"] = len(re.findall(r"\bHGMMA\b", sass))
        info["local_memory_ops"] = len(re.findall(r"\b(LDL|STL)\b", sass))
        return info


def kernel_figures(result: dict) -> dict:
    report = result.get("report") or {}
    kernels = report.get("kernels") or []
    if not kernels:
        return {}
    k = kernels[0]
    return {"us": k.get("us"), "strategy": k.get("strategy"), "config": (k.get("matmul") or {}).get("config"),
            "config_source": (k.get("matmul") or {}).get("source"),
            "shared_bytes": (k.get("launch") or {}).get("shared_bytes"),
            "check": report.get("check")}


def markdown(rows: list[dict], gpu: str, date: str) -> str:
    lines = [f"# kiln matmul tier on {gpu}, {date}", "",
             "| graph | kiln µs | TFLOP/s | config (source) | tuning s | peer | peer µs | kiln vs peer | "
             "regs | spills | HGMMA |",
             "|---|---:|---:|---|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        kiln = r["kiln"]
        for name, peer in r["peers"].items():
            ratio = peer["us"] / kiln["us"] if kiln.get("us") else float("nan")
            sass = r.get("sass", {})
            lines.append(
                f"| {r['graph']} | {kiln.get('us', float('nan')):.1f} | {r['tflops']:.0f} | "
                f"{kiln.get('config')} ({kiln.get('config_source')}) | {r.get('tuning_seconds', 0):.1f} | "
                f"{peer['what']} | {peer['us']:.1f} | {ratio:.2f}x | {sass.get('registers', '-')} | "
                f"{sass.get('spill_bytes', '-')} | {sass.get('hgmma', '-')} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", default="kiln", help="how to run kiln, e.g. '.gpu/run kiln'")
    parser.add_argument("--out", required=True)
    parser.add_argument("--graphs", nargs="+", default=sorted(glob.glob(
        str(pathlib.Path(__file__).parent / "graphs" / "matmul" / "*.textproto"))))
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=1, help="turns of the peers and kiln on each graph")
    parser.add_argument("--max-autotune", action="store_true")
    parser.add_argument("--skip-compile", action="store_true", help="leave torch.compile out (it compiles per shape)")
    parser.add_argument("--no-check", action="store_true", help="skip kiln's check against the reference")
    parser.add_argument("--report-only", action="store_true", help="rewrite OUT/matmul.md from OUT/matmul.json")
    args = parser.parse_args()
    kiln = shlex.split(args.kiln)
    out = pathlib.Path(args.out)
    if args.report_only:
        saved = json.loads((out / "matmul.json").read_text())
        table = markdown(saved["rows"], saved["gpu"], saved["date"])
        (out / "matmul.md").write_text(table)
        print(table)
        return 0
    import torch

    out.mkdir(parents=True, exist_ok=True)
    gpu = torch.cuda.get_device_name()
    date = str(datetime.date.today())
    rows = []
    for graph in args.graphs:
        workload, shape, dtype = parse_name(graph)
        name = pathlib.Path(graph).stem
        print(f"== {name}", flush=True)
        peer_rounds = [peers(workload, shape, dtype, args.reps, args.max_autotune, args.skip_compile)]
        # f32: exact against cuBLAS with TF32 off, then tf32 against cuBLAS with it on.
        variants = [("", [])] + ([(" tf32", ["--allow-tf32"])] if "cublas_tf32" in peer_rounds[0] else [])
        kiln_rounds = {suffix: [run_kiln(kiln, graph, not args.no_check, flags)] for suffix, flags in variants}
        for _ in range(args.rounds - 1):
            peer_rounds.append(peers(workload, shape, dtype, args.reps, False, True))
            for suffix, flags in variants:
                kiln_rounds[suffix].append(run_kiln(kiln, graph, False, flags))
        all_peers = {key: {"what": peer["what"],
                           "us": statistics.median(r[key]["us"] for r in peer_rounds if key in r),
                           "rounds_us": [r[key]["us"] for r in peer_rounds if key in r]}
                     for key, peer in peer_rounds[0].items()}
        for suffix, flags in variants:
            result = kiln_rounds[suffix][0]
            figures = kernel_figures(result)
            round_us = [kernel_figures(r).get("us") for r in kiln_rounds[suffix]]
            if all(us is not None for us in round_us):
                figures["us"] = statistics.median(round_us)
                figures["rounds_us"] = round_us
            compared = {k: v for k, v in all_peers.items() if (k == "cublas_tf32") == (suffix == " tf32")}
            m, n, k = shape
            row = {"graph": name + suffix, "workload": workload, "shape": shape, "dtype": dtype, "flags": flags,
                   "kiln": figures, "kiln_run": result,
                   "tflops": 2.0 * m * n * k / (figures.get("us") or float("inf")) / 1e6, "peers": compared}
            tuned = [line for line in result["tuning"] if "tuned in" in line]
            if tuned and (m_seconds := re.search(r"tuned in ([0-9.]+) s", tuned[-1])):
                row["tuning_seconds"] = float(m_seconds.group(1))
            if figures.get("config"):
                row["sass"] = sass_check(kiln, graph, figures["config"], flags)
            rows.append(row)
            (out / "matmul.json").write_text(
                json.dumps({"gpu": gpu, "date": date, "rows": rows}, indent=1) + "\n")
    table = markdown(rows, gpu, date)
    (out / "matmul.md").write_text(table)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
