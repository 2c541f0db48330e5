#!/usr/bin/env python3
"""Runs the memory-bound sweep (cases.py) on one GPU: kiln against PyTorch's built-in op and
torch.compile of the same function, in the same run, with kiln's output checked against torch's.

    python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out DIR [--filter REGEX] [--max-cases N]

For each case it writes the graph (generate_cases.py), makes seeded random inputs with torch and
saves them as .npy, runs `kiln run GRAPH --json --no-check --inputs=... --save-outputs=...`, and
compares kiln's outputs with the torch function's on the same inputs (relative L2 error, at most
1e-4 for f32 and 2e-2 for bf16/f16; inputs over --check-max-elements are timed but not checked).
Then it times the torch function eagerly (the built-in op, e.g. torch.softmax) and compiled, with
CUDA events (bench/cuda_timing.py). Fractions of copy use kiln's traffic model bytes for every
variant and the copy ceiling kiln measured in the same run.

Results accumulate in DIR/sweep.json, one entry per case, written after every case, so a run cut
short keeps what it finished and later slices (--filter, --max-cases, --skip-done) add to it.
Each run then rewrites DIR/sweep.md (per class: median fraction of copy, kiln against the faster
peer, every case where kiln is slower) and DIR/plots/<class>.svg (fraction of copy against bytes,
one series per kiln strategy). `--report-only` rewrites those from DIR/sweep.json alone.
Needs PyTorch (with Triton for torch.compile) and numpy: it runs on the GPU machine.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import re
import shlex
import statistics
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from cases import all_cases  # noqa: E402
from svg_plot import scatter_svg  # noqa: E402

TORCH_DTYPE = {"f32": "float32", "bf16": "bfloat16", "f16": "float16"}
TOLERANCE = {"f32": 1e-4, "bf16": 2e-2, "f16": 2e-2}


def load_results(path: pathlib.Path) -> dict:
    if path.exists():
        return {r["name"]: r for r in json.loads(path.read_text())["cases"]}
    return {}


def save_results(path: pathlib.Path, results: dict, gpu: str) -> None:
    ordered = sorted(results.values(), key=lambda r: r["name"])
    path.write_text(json.dumps({"gpu": gpu, "cases": ordered}, indent=1) + "\n")


def relative_error(got, want) -> float:
    import torch
    got, want = got.double(), want.double()
    if not torch.isfinite(got).all():
        return math.inf
    norm = torch.linalg.vector_norm(want).item()
    diff = torch.linalg.vector_norm(got - want).item()
    return diff / norm if norm > 0 else diff


def run_case(case, kiln: list[str], work: pathlib.Path, reps: int, check_max: int, skip_compile: bool) -> dict:
    import numpy as np
    import torch
    import torch.nn.functional as F  # noqa: F401  (the torch expressions use it)
    from cuda_timing import median_us

    result = {"name": case.name, "class": case.cls, "dtype": case.dtype, "inputs": case.inputs}
    graph = work / f"{case.name}.textproto"
    graph.write_text(case.textproto())
    dtype = getattr(torch, TORCH_DTYPE[case.dtype])
    generator = torch.Generator(device="cuda").manual_seed(1)
    tensors = {name: torch.randn(shape, device="cuda", dtype=torch.float32, generator=generator).to(dtype)
               for name, shape in case.inputs.items()}
    elements = max(t.numel() for t in tensors.values())
    check = elements <= check_max
    cmd = kiln + ["run", str(graph), "--json", "--no-check", f"--iters={reps}"]
    out_dir = work / f"{case.name}.out"
    if check:
        files = []
        for name, t in tensors.items():
            path = work / f"{case.name}.{name}.npy"
            # NumPy has no bf16: its values go as float32 (exactly) and kiln narrows them back.
            np.save(path, (t.float() if case.dtype == "bf16" else t).cpu().numpy())
            files.append(f"{name}={path}")
        cmd += ["--inputs=" + ",".join(files), f"--save-outputs={out_dir}"]
    result["command"] = " ".join(shlex.quote(c) for c in cmd)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        result["error"] = (proc.stderr.strip().splitlines() or ["kiln failed with no message"])[-1]
        return result
    report = json.loads(proc.stdout)
    total = report["total"]
    result.update({
        "gpu": report["gpu"],
        "copy_gbps": report["copy_gbps"],
        "bytes": total["bytes"],
        "kernels": len(report["kernels"]),
        "strategy": " + ".join(k["strategy"] for k in report["kernels"]) or "no kernel",
        "kiln_us": total["us"],
        "host_us_per_run": report["host_us_per_run"],
        "run_launch": report.get("run_launch", ""),
    })

    fn = eval(f"lambda {', '.join(case.inputs)}: {case.torch_expr}", {"torch": torch, "F": F})  # noqa: S307
    args = [tensors[n] for n in case.inputs]
    want = fn(*args)
    if check:
        got = torch.from_numpy(np.load(out_dir / "y.npy")).to("cuda")
        error = relative_error(got.reshape(want.shape), want.float())
        result["error_vs_torch"] = error
        result["check_passed"] = error <= TOLERANCE[case.dtype]
    result["builtin_us"] = median_us(lambda: fn(*args), reps)
    if not skip_compile:
        torch._dynamo.reset()  # every case is a new shape: keep the recompile limit out of the way
        compiled = torch.compile(fn)
        try:
            compiled(*args)
            result["compile_us"] = median_us(lambda: compiled(*args), reps)
        except Exception as e:  # noqa: BLE001  (a peer failing is a finding, not a crash)
            result["compile_error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    copy_bps = result["copy_gbps"] * 1e9
    for variant in ("kiln", "builtin", "compile"):
        us = result.get(f"{variant}_us")
        if us:
            result[f"{variant}_fraction_of_copy"] = result["bytes"] / (us * 1e-6) / copy_bps
    peers = [result[k] for k in ("builtin_us", "compile_us") if result.get(k)]
    if peers:
        result["faster_peer_us"] = min(peers)
        result["kiln_speedup_vs_faster_peer"] = min(peers) / result["kiln_us"]
    for path in list(work.glob(f"{case.name}.*.npy")) + list(out_dir.glob("*.npy")):
        path.unlink()
    return result


def markdown(results: list[dict], gpu: str) -> str:
    lines = [f"# Memory-bound sweep on {gpu}", "",
             "Fraction of copy: the traffic model's bytes over the time, against the device-to-device copy "
             "kiln measured in the same run. Speedup: the faster of torch's built-in op and torch.compile, "
             "over kiln's time (above 1: kiln is faster).", "",
             "| class | cases | kiln failed | check failed | kiln median fraction of copy | peer median | "
             "median speedup | kiln < 1.0x |", "|---|---|---|---|---|---|---|---|"]
    classes = sorted({r["class"] for r in results})
    slow_sections = []
    for cls in classes:
        rows = [r for r in results if r["class"] == cls]
        ok = [r for r in rows if "kiln_us" in r]
        fractions = [r["kiln_fraction_of_copy"] for r in ok]
        peer = [r["bytes"] / (r["faster_peer_us"] * 1e-6) / (r["copy_gbps"] * 1e9) for r in ok if "faster_peer_us" in r]
        speedups = [r["kiln_speedup_vs_faster_peer"] for r in ok if "kiln_speedup_vs_faster_peer" in r]
        slow = sorted((r for r in ok if r.get("kiln_speedup_vs_faster_peer", 1) < 1.0),
                      key=lambda r: r["kiln_speedup_vs_faster_peer"])
        bad = [r for r in ok if r.get("check_passed") is False]
        med = lambda v: f"{statistics.median(v):.3f}" if v else "-"  # noqa: E731
        lines.append(f"| {cls} | {len(rows)} | {len(rows) - len(ok)} | {len(bad)} | {med(fractions)} | {med(peer)} | "
                     f"{med(speedups)} | {len(slow)} |")
        if slow or bad or len(ok) < len(rows):
            section = [f"## {cls}: where kiln is slower, wrong or failed", "",
                       "| case | strategy | bytes | kiln us | builtin us | compile us | speedup | kiln fraction of copy |",
                       "|---|---|---|---|---|---|---|---|"]
            for r in slow:
                section.append(f"| {r['name']} | {r['strategy']} | {r['bytes']:,} | {r['kiln_us']:.2f} | "
                               f"{r.get('builtin_us', math.nan):.2f} | {r.get('compile_us', math.nan):.2f} | "
                               f"{r['kiln_speedup_vs_faster_peer']:.2f}x | {r['kiln_fraction_of_copy']:.3f} |")
            for r in bad:
                section.append(f"| {r['name']} | {r['strategy']} | check failed: relative error "
                               f"{r['error_vs_torch']:.3g} against torch | | | | | |")
            for r in rows:
                if "kiln_us" not in r:
                    section.append(f"| {r['name']} | kiln failed: {r.get('error', '?')} | | | | | | |")
            slow_sections += section + [""]
    return "\n".join(lines + [""] + slow_sections)


def write_report(out: pathlib.Path, results: dict) -> None:
    rows = sorted(results.values(), key=lambda r: r["name"])
    gpu = next((r["gpu"] for r in rows if "gpu" in r), "no GPU")
    (out / "sweep.md").write_text(markdown(rows, gpu))
    plots = out / "plots"
    plots.mkdir(exist_ok=True)
    for cls in sorted({r["class"] for r in rows}):
        series: dict[str, list] = {}
        for r in rows:
            if r["class"] == cls and "kiln_fraction_of_copy" in r:
                # The strategy without its per-shape numbers: "split (cluster per row, persistent) xN".
                strategy = re.sub(r"x\d+", "xN", r["strategy"])
                series.setdefault(strategy, []).append((r["bytes"], r["kiln_fraction_of_copy"], r["name"]))
        peer = [(r["bytes"], r["bytes"] / (r["faster_peer_us"] * 1e-6) / (r["copy_gbps"] * 1e9), r["name"])
                for r in rows if r["class"] == cls and "faster_peer_us" in r]
        (plots / f"{cls}.svg").write_text(scatter_svg(f"{cls}: fraction of copy against bytes moved ({gpu})",
                                                      "HBM bytes (traffic model, log scale)", "fraction of copy",
                                                      series, reference=("faster peer", peer)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", default="build/kiln", help="how to run kiln, as shell words")
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--filter", help="only cases whose name matches this regular expression")
    parser.add_argument("--max-cases", type=int, help="stop after this many cases")
    parser.add_argument("--skip-done", action="store_true", help="leave out cases DIR/sweep.json already holds")
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--check-max-elements", type=int, default=1 << 26,
                        help="compare with torch only where the largest input has at most this many elements")
    parser.add_argument("--skip-compile", action="store_true", help="leave torch.compile out (it compiles per shape)")
    parser.add_argument("--budget-s", type=float, default=540,
                        help="start no case after this many seconds (one GPU call is limited to 10 minutes)")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    results_path = args.out / "sweep.json"
    results = load_results(results_path)
    if not args.report_only:
        work = args.out / "graphs"
        work.mkdir(exist_ok=True)
        kiln = shlex.split(args.kiln)
        cases = [c for c in all_cases() if not args.filter or re.search(args.filter, c.name)]
        if args.skip_done:
            cases = [c for c in cases if c.name not in results]
        if args.max_cases is not None:
            cases = cases[:args.max_cases]
        start = time.monotonic()
        for i, case in enumerate(cases):
            if time.monotonic() - start > args.budget_s:
                print(f"budget of {args.budget_s:.0f} s spent; {len(cases) - i} cases left (rerun with --skip-done)")
                break
            result = run_case(case, kiln, work, args.reps, args.check_max_elements, args.skip_compile)
            results[case.name] = result
            save_results(results_path, results, result.get("gpu", ""))
            summary = result.get("error") or (f"kiln {result['kiln_us']:.1f} us, "
                                              f"{result['kiln_fraction_of_copy']:.2f} of copy, "
                                              f"{result.get('kiln_speedup_vs_faster_peer', math.nan):.2f}x the faster peer")
            print(f"[{i + 1}/{len(cases)}] {case.name}: {summary}", flush=True)
    write_report(args.out, results)
    print(f"wrote {args.out / 'sweep.json'}, {args.out / 'sweep.md'} and {args.out / 'plots'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
