#!/usr/bin/env python3
"""Profiles the sweep's misses with Nsight Compute and says, case by case, what limits each kernel:
DRAM throughput, issue rate, occupancy and what caps it, waves, and where warps stall. The issue asks
that every case that misses its target be explained by a profile; this makes those profiles in one
run, on the GPU machine, from a sweep's results.

    python3 bench/sweep/profile_misses.py --kiln ".gpu/run kiln" --sweep DIR [--filter REGEX]
        [--budget-s 300]

A miss is a case above L2 below its class's target (0.85 of copy for transposes, 0.90 otherwise)
that a copy of the same bytes does not explain: below 0.90 of that copy too, or not measured against
one. Each is first run once by `kiln run` outside ncu, so that the choices the autotuner keeps in
kiln's tuning cache are there, then once more under ncu (`--iters=1 --no-check`). ncu profiles every
launch of the plan's kernels; a tuner that does not keep its choice times its variants again under
ncu, under the kernel's name, so each kernel's last launch is the one read: the plan's own, after
tuning. Each kernel's figures go to DIR/profiles.json (case -> kernels), the table to
DIR/profiles.md, worst case first. Cases already in profiles.json are skipped; rerun with --again to
profile them anew. Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from cases import all_cases, largest_tensor_bytes  # noqa: E402
from sweep_results import load_results  # noqa: E402
from targets import L2_BYTES, SAME_SIZE_FLOOR, target_of  # noqa: E402

SECTIONS = ["SpeedOfLight", "Occupancy", "LaunchStats", "SchedulerStats", "WarpStateStats"]
# The raw metrics read from those sections.
DURATION = "gpu__time_duration.sum"
DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
ISSUED = "smsp__issue_active.avg.per_cycle_active"
ACHIEVED = "sm__warps_active.avg.pct_of_peak_sustained_active"
THEORETICAL = "sm__maximum_warps_per_active_cycle_pct"
REGISTERS = "launch__registers_per_thread"
WAVES = "launch__waves_per_multiprocessor"
# What caps the blocks an SM holds: launch__occupancy_limit_<what>, in blocks.
OCCUPANCY_LIMIT = re.compile(r"launch__occupancy_limit_([a-z_]+)$")
# Cycles a warp spends in each stall state per issued instruction.
STALL = re.compile(r"smsp__average_warps_issue_stalled_([a-z_]+)_per_issue_active\.ratio$")
# At or above this share of peak DRAM throughput, a kernel counts as bandwidth-bound.
DRAM_BOUND_PCT = 80.0
# At or above this many instructions a cycle per scheduler (of 1), it counts as issue-bound.
ISSUE_BOUND = 0.7
CASE_TIMEOUT_S = 120


def misses(results: list[dict]) -> list[dict]:
    """The entries above L2 below their target that a same-size copy does not explain, worst first."""
    found = [r for r in results if "kiln_us" in r and largest_tensor_bytes(r["inputs"], r["dtype"]) > L2_BYTES
             and r["kiln_fraction_of_copy"] < target_of(r)
             and r.get("kiln_fraction_of_same_size_copy", 0) < SAME_SIZE_FLOOR]
    return sorted(found, key=lambda r: r["kiln_fraction_of_copy"])


def number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def parse_raw_csv(text: str) -> list[dict]:
    """ncu's raw page (`--csv --page raw`): one dict per launch, metric -> text, in launch order. Lines
    before the header (==PROF== messages) and the units row under it are skipped."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    header = rows[0]
    launches = [dict(zip(header, row)) for row in rows[1:] if row and number(row[0]) is not None]
    return sorted(launches, key=lambda r: number(r["ID"]))


def kernel_name(raw: dict) -> str:
    """The launch's kernel without ncu's parameter list: f0_row_reduction(const float *) -> f0_row_reduction."""
    return raw.get("Kernel Name", "").split("(")[0].strip()


def limiters(raw: dict) -> dict:
    """The figures that say what limits one launch, and a verdict; a figure ncu did not report is
    left out."""
    values = {name: v for name, text in raw.items() if (v := number(text)) is not None}
    out = {"kernel": kernel_name(raw)}
    for key, name, scale in [("us", DURATION, 1e-3), ("dram_pct", DRAM, 1), ("issued_per_cycle", ISSUED, 1),
                             ("achieved_occupancy_pct", ACHIEVED, 1), ("theoretical_occupancy_pct", THEORETICAL, 1),
                             ("registers", REGISTERS, 1), ("waves", WAVES, 1)]:
        if name in values:
            out[key] = values[name] * scale
    caps = {m[1]: v for k, v in values.items() if (m := OCCUPANCY_LIMIT.match(k))}
    if caps:
        fewest = min(caps.values())
        out["blocks_per_sm"] = fewest
        out["occupancy_limited_by"] = sorted(k for k, v in caps.items() if v == fewest)
    stalls = {m[1]: v for k, v in values.items() if (m := STALL.match(k)) and m[1] != "selected"}
    total = sum(stalls.values())
    if total > 0:
        out["stalls"] = {k: round(v / total, 3) for k, v in sorted(stalls.items(), key=lambda kv: -kv[1]) if v > 0}
    out["verdict"] = verdict(out)
    return out


def verdict(f: dict) -> str:
    """One line: what the figures say limits the launch."""
    stalls = list(f.get("stalls", {}).items())
    top = f"{stalls[0][0]} {100 * stalls[0][1]:.0f}% of stalls" if stalls else "no stall breakdown"
    if f.get("dram_pct", 0) >= DRAM_BOUND_PCT:
        return f"DRAM-bound ({f['dram_pct']:.0f}% of peak)"
    if f.get("issued_per_cycle", 0) >= ISSUE_BOUND:
        return f"issue-bound ({f['issued_per_cycle']:.2f} instructions a cycle a scheduler; {top})"
    parts = [f"latency-bound: {top}"]
    if "achieved_occupancy_pct" in f:
        limit = "/".join(f.get("occupancy_limited_by", [])) or "?"
        parts.append(f"occupancy {f['achieved_occupancy_pct']:.0f}% (at most "
                     f"{f.get('theoretical_occupancy_pct', float('nan')):.0f}%, limited by {limit})")
    if f.get("waves", 2) < 2:
        parts.append(f"{f['waves']:.2f} waves")
    return "; ".join(parts)


def profile_case(kiln: list[str], ncu: str, graph: pathlib.Path, report: pathlib.Path) -> list[dict] | str:
    """Each launch's limiters for `graph`, or what failed."""
    steps = [[*kiln, "run", str(graph), "--iters=1", "--no-check"],
             [ncu, "--clock-control", "none", *[a for s in SECTIONS for a in ("--section", s)],
              "--kernel-name", "regex:^f[0-9]+_", "--export", str(report), "--force-overwrite",
              *kiln, "run", str(graph), "--iters=1", "--no-check"],
             [ncu, "--import", f"{report}.ncu-rep", "--csv", "--page", "raw", "--print-units", "base"]]
    for step in steps:
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=CASE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return f"{shlex.join(step[:2])} timed out after {CASE_TIMEOUT_S} s"
        except OSError as e:
            return f"{shlex.join(step[:2])} could not start: {e.strerror}"
        if done.returncode != 0:
            last = (done.stderr.strip() or done.stdout.strip()).splitlines()
            return f"{shlex.join(step[:2])} exited with {done.returncode}: {last[-1] if last else ''}"
    last = {}  # kernel -> its last launch, in the order the kernels first ran
    for raw in parse_raw_csv(done.stdout):
        last[kernel_name(raw)] = raw
    return [limiters(raw) for raw in last.values()] or "ncu reported no launch"


def markdown(results: dict, profiles: dict) -> str:
    lines = ["# What limits the sweep's misses (Nsight Compute)", "",
             "Misses: cases above L2 below their target (0.85 of copy for transposes, 0.90 otherwise) and "
             "below 0.90 of a copy of their own bytes. One profiled run each, ncu's clocks unlocked. Stalls: "
             "the share of a warp's stall cycles in each state (ncu's names), the two largest.", "",
             "| case | of copy | kernel | ncu us | DRAM % | issued a cycle | occupancy (max) | blocks/SM, limited by "
             "| registers | waves | stalls | verdict |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def fmt(f, key, spec):
        return format(f[key], spec) if key in f else "-"

    for name in sorted(profiles, key=lambda n: results.get(n, {}).get("kiln_fraction_of_copy", 0)):
        fraction = results.get(name, {}).get("kiln_fraction_of_copy")
        shown = f"{fraction:.3f}" if fraction is not None else "-"
        kernels = profiles[name]
        if isinstance(kernels, str):
            lines.append(f"| {name} | {shown} | | | | | | | | | | failed: {kernels} |")
            continue
        for f in kernels:
            stalls = ", ".join(f"{k} {100 * v:.0f}%" for k, v in list(f.get("stalls", {}).items())[:2])
            occupancy = f"{fmt(f, 'achieved_occupancy_pct', '.0f')}% ({fmt(f, 'theoretical_occupancy_pct', '.0f')}%)"
            blocks = f"{fmt(f, 'blocks_per_sm', '.0f')}, {'/'.join(f.get('occupancy_limited_by', [])) or '-'}"
            lines.append(f"| {name} | {shown} | {f['kernel']} | {fmt(f, 'us', '.1f')} | {fmt(f, 'dram_pct', '.0f')} | "
                         f"{fmt(f, 'issued_per_cycle', '.2f')} | {occupancy} | {blocks} | {fmt(f, 'registers', '.0f')} | "
                         f"{fmt(f, 'waves', '.2f')} | {stalls} | {f['verdict']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", default="build/kiln", help="how to run kiln, as shell words")
    parser.add_argument("--ncu", default="ncu")
    parser.add_argument("--sweep", type=pathlib.Path, required=True, help="the sweep's folder (its sweep.json)")
    parser.add_argument("--filter", help="only misses whose name matches this regular expression")
    parser.add_argument("--again", action="store_true", help="profile cases profiles.json already holds")
    parser.add_argument("--budget-s", type=float, default=300, help="start no case after this many seconds")
    args = parser.parse_args(argv)
    results = load_results(args.sweep / "sweep.json")
    store = args.sweep / "profiles.json"
    profiles = json.loads(store.read_text()) if store.exists() else {}
    todo = [r["name"] for r in misses(list(results.values()))
            if (not args.filter or re.search(args.filter, r["name"])) and (args.again or r["name"] not in profiles)]
    cases = {case.name: case for case in all_cases()}
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for n, name in enumerate(todo):
            if time.monotonic() - start > args.budget_s:
                print(f"budget spent: {len(todo) - n} of {len(todo)} misses left (run again to go on)")
                break
            graph = pathlib.Path(tmp) / f"{name}.textproto"
            graph.write_text(cases[name].textproto())
            profiles[name] = profile_case(shlex.split(args.kiln), args.ncu, graph, pathlib.Path(tmp) / name)
            store.write_text(json.dumps(profiles, indent=1) + "\n")
            kernels = profiles[name]
            print(f"{name}: {kernels if isinstance(kernels, str) else '; '.join(k['verdict'] for k in kernels)}",
                  flush=True)
    (args.sweep / "profiles.md").write_text(markdown(results, profiles))
    return 0


if __name__ == "__main__":
    sys.exit(main())
