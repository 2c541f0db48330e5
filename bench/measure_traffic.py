#!/usr/bin/env python3
"""Measures kiln's kernels' DRAM traffic with Nsight Compute over many graphs and tabulates it.

    python3 bench/measure_traffic.py --kiln ".gpu/run kiln" \\
        --graphs 'bench/graphs/*.textproto' --out bench/results/traffic

For every graph file and both plans (fused, unfused) this runs `kiln run --measure --json FILE
[--unfused]`: kiln itself runs the plan under `ncu`, reads each kernel's dram__bytes_read.sum and
dram__bytes_write.sum back and puts them next to its traffic model (frontends/cli/run_measure.h
says how). This script only collects those reports: every figure goes to OUT/traffic.json, and the
table, with the kernels more than --tolerance (10 %) away from the model flagged, to OUT/traffic.md.

ncu flushes the caches before each profiled kernel, so reads come from DRAM. Writes can
under-count: up to an L2's worth (60 MB on an H200) of dirty lines may still sit in L2 when the
kernel ends, which is why the bundled inputs are far larger than L2.
Standard library only.
"""

from __future__ import annotations

import argparse
import datetime
import glob
import json
import pathlib
import shlex
import subprocess
import sys

PLANS = ("fused", "unfused")


def run_command(cmd: list[str], log: pathlib.Path, timeout: float) -> subprocess.CompletedProcess:
    """Runs cmd, appending the command line and its stderr to log; a timeout is a failure."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc = subprocess.CompletedProcess(cmd, -1, "", f"timed out after {timeout:.0f} s")
    with log.open("a") as f:
        f.write(f"$ {shlex.join(cmd)}\n[exit {proc.returncode}]\n{proc.stderr}\n")
    return proc


def last_line(text: str) -> str:
    """The last line that is not ncu's own chatter (==PROF==, ==WARNING==), else the last line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    own = [line for line in lines if not line.startswith("==")]
    return (own or lines or ["no output"])[-1]


def rows_from_measure(graph: str, plan: str, measured: dict, tolerance: float) -> list[dict]:
    """kiln run --measure --json's kernels as this script's rows, flagged at `tolerance`."""
    rows = []
    for k in measured.get("kernels", []):
        deviation = k.get("deviation")
        rows.append({"graph": graph, "plan": plan, "kernel": k["kernel"], "kind": k.get("kind"),
                     "strategy": k.get("strategy"), "model_read": k["model_read"],
                     "model_write": k["model_write"], "measured_read": k.get("measured_read"),
                     "measured_write": k.get("measured_write"), "launches": k.get("launches", 0),
                     "deviation": deviation,
                     "flagged": deviation is not None and abs(deviation) > tolerance,
                     "note": k.get("note", "")})
    return rows


def measure_graph(graph: pathlib.Path, args, out: pathlib.Path) -> tuple[list[dict], list[dict], str]:
    """(rows, errors, ncu command) for both plans of one graph."""
    name = graph.stem
    log = out / "logs" / f"{name}.log"
    log.write_text("")
    rows, errors, command = [], [], ""
    for which in PLANS:
        cmd = [*args.kiln, "run", "--measure", "--json", str(graph)]
        if which == "unfused":
            cmd.append("--unfused")
        proc = run_command(cmd, log, args.timeout)
        if proc.returncode != 0:
            errors.append({"graph": name, "plan": which, "error": f"kiln run --measure: {last_line(proc.stderr)}"})
            continue
        try:
            measured = json.loads(proc.stdout)
        except ValueError as err:
            errors.append({"graph": name, "plan": which, "error": f"kiln run --measure --json: {err}"})
            continue
        command = measured.get("command", command)
        rows += rows_from_measure(name, which, measured, args.tolerance)
    return rows, errors, command


def fmt_bytes(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f}"


def fmt_deviation(measured: float | None, model: float) -> str:
    if measured is None:
        return "—"
    return f"{(measured - model) / model:+.1%}" if model else "model 0"


def render_markdown(result: dict) -> str:
    tol = result["tolerance"]
    out = [
        "# Measured DRAM traffic against kiln's traffic model",
        "",
        f"{result['environment']} · {result['date']}",
        "",
        f"`kiln run --measure FILE [--unfused]`, which runs `{result['command']} kiln run FILE --iters=1 "
        f"--no-check`; each kernel's last profiled launch. Flagged (⚠): read + write more than {tol:.0%} away from the "
        "model. Writes may under-count by what is still dirty in L2 when a kernel ends.",
        "",
        "| graph | plan | kernel | strategy | model read | measured read | model write | "
        "measured write | total off | |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in result["kernels"]:
        total = "—" if r["deviation"] is None else f"{r['deviation']:+.1%}"
        mark = "⚠" if r["flagged"] else r["note"]
        out.append(
            f"| {r['graph']} | {r['plan']} | {r['kernel']} | {r['strategy'] or ''} | "
            f"{fmt_bytes(r['model_read'])} | {fmt_bytes(r['measured_read'])} "
            f"({fmt_deviation(r['measured_read'], r['model_read'])}) | "
            f"{fmt_bytes(r['model_write'])} | {fmt_bytes(r['measured_write'])} "
            f"({fmt_deviation(r['measured_write'], r['model_write'])}) | {total} | {mark} |")
    if result.get("sources"):
        out += ["", "## Runs merged here", ""]
        out += [f"- {s['date']}: {', '.join(s['graphs'])}" for s in result["sources"]]
    if result["errors"]:
        out += ["", "## Not measured", ""]
        out += [f"- {e['graph']} ({e['plan']}): {e['error']}" for e in result["errors"]]
    return "\n".join(out) + "\n"


def merge_results(results: list[dict], tolerance: float) -> dict:
    """One result from several runs' traffic.json, graph by graph: a later run replaces every row
    of a graph that an earlier one measured. Each row keeps the date of the run that measured it."""
    by_graph: dict[str, tuple[int, list[dict], list[dict]]] = {}
    for index, result in enumerate(results):
        graphs = {r["graph"] for r in result["kernels"]} | {e["graph"] for e in result["errors"]}
        for graph in graphs:
            by_graph[graph] = (
                index,
                [dict(r, date=result["date"]) for r in result["kernels"] if r["graph"] == graph],
                [e for e in result["errors"] if e["graph"] == graph])
    sources = []
    for index, result in enumerate(results):
        graphs = sorted(g for g, (source, _, _) in by_graph.items() if source == index)
        if graphs:
            sources.append({"date": result["date"], "environment": result["environment"], "graphs": graphs})
    return {
        "date": max(s["date"] for s in sources),
        "environment": " | ".join(sorted({s["environment"] for s in sources})),
        "command": results[-1]["command"],
        "tolerance": tolerance,
        "sources": sources,
        "kernels": [r for graph in sorted(by_graph) for r in by_graph[graph][1]],
        "errors": [e for graph in sorted(by_graph) for e in by_graph[graph][2]],
    }


def tool_line(cmd: list[str]) -> str | None:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return last_line(proc.stdout) if proc.returncode == 0 else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", default="kiln", type=shlex.split,
                        help='how to run kiln, e.g. ".gpu/run kiln" (default: kiln on PATH)')
    parser.add_argument("--graphs", nargs="+", default=["bench/graphs/*.textproto"],
                        help="globs of graph files (default: %(default)s)")
    parser.add_argument("--out", required=True, type=pathlib.Path,
                        help="directory for traffic.json, traffic.md and logs")
    parser.add_argument("--ncu", default="ncu",
                        help="Nsight Compute CLI, for its version in the report; kiln finds ncu itself "
                             "(PATH, or KILN_NCU) (default: ncu)")
    parser.add_argument("--tolerance", type=float, default=0.10,
                        help="relative deviation that flags a kernel (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds one kiln or ncu command may take (default: %(default)s)")
    parser.add_argument("--merge", nargs="+", type=pathlib.Path, metavar="TRAFFIC_JSON",
                        help="measure nothing: merge earlier runs' traffic.json files, a later file "
                             "replacing an earlier one graph by graph, into OUT")
    args = parser.parse_args(argv)
    if args.merge:
        result = merge_results([json.loads(p.read_text()) for p in args.merge], args.tolerance)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "traffic.json").write_text(json.dumps(result, indent=1) + "\n")
        (args.out / "traffic.md").write_text(render_markdown(result))
        print(f"measure_traffic: merged {len(result['kernels'])} kernel(s) from "
              f"{len(result['sources'])} run(s) -> {args.out}/traffic.{{json,md}}")
        return 0
    graphs = sorted({pathlib.Path(p) for pattern in args.graphs for p in glob.glob(pattern)})
    if not graphs:
        parser.error(f"no graph file matches {' '.join(args.graphs)!r}")
    (args.out / "logs").mkdir(parents=True, exist_ok=True)

    kernels, errors, command = [], [], ""
    for graph in graphs:
        rows, errs, used = measure_graph(graph, args, args.out)
        kernels += rows
        errors += errs
        command = used or command
        for r in rows:
            state = "FLAG" if r["flagged"] else "ok  "
            off = "—" if r["deviation"] is None else f"{r['deviation']:+.1%}"
            print(f"{state} {r['graph']} {r['plan']} {r['kernel']}: model "
                  f"{r['model_read'] + r['model_write']:,} B, off {off} {r['note']}")
        for e in errs:
            print(f"skip {e['graph']} {e['plan']}: {e['error']}")

    gpu = tool_line(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "environment": f"GPU, driver: {gpu or 'unknown'} · ncu: "
                       f"{tool_line([args.ncu, '--version']) or 'unknown'}",
        "command": command,
        "tolerance": args.tolerance,
        "kernels": kernels,
        "errors": errors,
    }
    (args.out / "traffic.json").write_text(json.dumps(result, indent=1) + "\n")
    (args.out / "traffic.md").write_text(render_markdown(result))
    flagged = sum(r["flagged"] for r in kernels)
    print(f"measure_traffic: {len(kernels)} kernel(s) measured, {flagged} flagged, "
          f"{len(errors)} plan(s) not measured -> {args.out}/traffic.{{json,md}}")
    return 0 if kernels else 1


if __name__ == "__main__":
    sys.exit(main())
