#!/usr/bin/env python3
"""Measures each kiln kernel's DRAM traffic with Nsight Compute and compares it with the model.

    python3 bench/measure_traffic.py --kiln ".gpu/run kiln" \\
        --graphs 'bench/graphs/*.textproto' --out bench/results/traffic

For every graph file and for both plans (fused, unfused):
  1. `kiln plan FILE --json` gives the model's bytes_read/bytes_written per kernel;
  2. `kiln run FILE --iters 1 --check=false [--unfused] --json` runs under
     `ncu --clock-control none --metrics dram__bytes_read.sum,dram__bytes_write.sum`, limited
     to the plan's kernels and their first two launches each, exported to a report that is then
     printed with `ncu --import ... --csv --page raw --print-units base` (so kiln's own stdout
     never mixes with the CSV);
  3. each plan kernel is joined to its launches by name (kiln uses the same kernel names in its
     plan, its run output and the generated CUDA functions) and measured on its last profiled
     launch, the timed iteration.
A kernel whose measured read + write bytes differ from the model's by more than --tolerance
(10 %) is flagged on stdout and in OUT/traffic.md; every figure goes to OUT/traffic.json.

ncu flushes the caches before each profiled kernel, so reads come from DRAM. Writes can
under-count: up to an L2's worth (60 MB on an H200) of dirty lines may still sit in L2 when the
kernel ends, which is why the bundled inputs are far larger than L2.
Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import glob
import io
import json
import pathlib
import re
import shlex
import subprocess
import sys

METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum")
PLANS = ("fused", "unfused")


def kernel_base_name(name: str) -> str:
    """"f0_pointwise(float const*, float*)" -> "f0_pointwise": what the plan calls it."""
    return name.split("(", 1)[0].strip()


def parse_number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def parse_ncu_csv(text: str) -> list[dict]:
    """Launches in an ncu CSV: [{"id", "kernel", "read", "write"}], in launch order.

    Accepts both layouts ncu prints: the raw page (one row per launch, one column per metric,
    a units row under the header) and the details page (one row per launch and metric, with
    "Metric Name"/"Metric Value" columns). Lines before the header (==PROF== messages) are skipped.
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return []
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))
    launches: dict[int, dict] = {}
    for row in rows:
        launch_id = parse_number(row.get("ID") or "")
        if launch_id is None:  # the units row of the raw page
            continue
        launch = launches.setdefault(int(launch_id), {
            "id": int(launch_id), "kernel": kernel_base_name(row.get("Kernel Name", "")),
            "read": None, "write": None})
        if "Metric Name" in row:
            pairs = [(row["Metric Name"], row.get("Metric Value", ""))]
        else:
            pairs = [(metric, row.get(metric, "")) for metric in METRICS]
        for metric, value in pairs:
            if metric in METRICS:
                launch["read" if metric == METRICS[0] else "write"] = parse_number(value)
    return sorted(launches.values(), key=lambda launch: launch["id"])


def parse_run_json(stdout: str) -> dict[str, dict]:
    """kiln run's kernels by name, from its stdout under ncu ({} if it cannot be read)."""
    text = "\n".join(line for line in stdout.splitlines() if not line.startswith("=="))
    try:
        return {k["name"]: k for k in json.loads(text).get("kernels", [])}
    except (ValueError, AttributeError, KeyError, TypeError):
        return {}


def compare(model: list[dict], launches: list[dict], tolerance: float,
            run_kernels: dict[str, dict] | None = None) -> list[dict]:
    """Joins the plan's kernels to their last launch and computes the relative deviation.

    run_kernels (kiln run's own JSON) only cross-checks the plan: `kiln plan` assumes an H200's
    limits, so on another GPU `kiln run` may choose another strategy than the model describes.
    """
    last = {launch["kernel"]: launch for launch in launches}
    counts: dict[str, int] = {}
    for launch in launches:
        counts[launch["kernel"]] = counts.get(launch["kernel"], 0) + 1
    out = []
    for kernel in model:
        name = kernel["name"]
        model_read, model_write = kernel["bytes_read"], kernel["bytes_written"]
        launch = last.get(name)
        ran = (run_kernels or {}).get(name, {})
        row = {"kernel": name, "kind": kernel.get("kind"), "strategy": kernel.get("strategy"),
               "model_read": model_read, "model_write": model_write,
               "measured_read": None, "measured_write": None, "launches": counts.get(name, 0),
               "deviation": None, "flagged": False, "note": ""}
        if launch is None:
            row["note"] = "no launch of this kernel was profiled"
        elif launch["read"] is None or launch["write"] is None:
            row["note"] = "ncu reported no value for a DRAM metric"
        else:
            row["measured_read"], row["measured_write"] = launch["read"], launch["write"]
            model_total = model_read + model_write
            measured = launch["read"] + launch["write"]
            row["deviation"] = (measured - model_total) / model_total if model_total else None
            row["flagged"] = row["deviation"] is not None and abs(row["deviation"]) > tolerance
        if ran and ran.get("strategy") != kernel.get("strategy"):
            mismatch = (f"kiln run chose {ran.get('strategy')}, the plan "
                        f"{kernel.get('strategy')}: the model may not apply")
            row["note"] = "; ".join(filter(None, [row["note"], mismatch]))
        out.append(row)
    return out


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


def measure_graph(graph: pathlib.Path, args, out: pathlib.Path) -> tuple[list[dict], list[dict]]:
    """(compared kernels, errors) for both plans of one graph."""
    name = graph.stem
    log = out / "logs" / f"{name}.log"
    log.write_text("")
    proc = run_command([*args.kiln, "plan", str(graph), "--json"], log, args.timeout)
    if proc.returncode != 0:
        return [], [{"graph": name, "plan": "both", "error": f"kiln plan: {last_line(proc.stderr)}"}]
    try:
        plan = json.loads(proc.stdout)
        models = {"fused": plan["kernels"], "unfused": plan["unfused_kernels"]}
    except (ValueError, KeyError, TypeError) as err:
        return [], [{"graph": name, "plan": "both", "error": f"kiln plan --json: {err}"}]

    rows, errors = [], []
    for which in PLANS:
        report = out / "ncu" / f"{name}_{which}"
        run = [*args.kiln, "run", str(graph), "--iters", "1", "--check=false", "--json"]
        if which == "unfused":
            run.append("--unfused")
        # Only the plan's kernels, and only their first two launches each (kiln run's first
        # run, then its first timed one): it launches the plan 200 more times to time the host,
        # and ncu flushes the caches before every profiled launch, so any launch measures alike.
        names = [kernel["name"] for kernel in models[which]]
        if not names:
            continue
        only_plan = f"regex:^({'|'.join(re.escape(n) for n in names)})$"
        proc = run_command([args.ncu, "--clock-control", "none", "--metrics", ",".join(METRICS),
                            "--kernel-name", only_plan, "--launch-count", str(2 * len(names)),
                            "--export", str(report), "--force-overwrite", *run], log, args.timeout)
        if proc.returncode != 0:
            errors.append({"graph": name, "plan": which,
                           "error": f"kiln run under ncu: {last_line(proc.stderr)}"})
            continue
        run_kernels = parse_run_json(proc.stdout)
        proc = run_command([args.ncu, "--import", f"{report}.ncu-rep", "--csv", "--page", "raw",
                            "--print-units", "base"], log, args.timeout)
        launches = parse_ncu_csv(proc.stdout) if proc.returncode == 0 else []
        if not launches:
            errors.append({"graph": name, "plan": which,
                           "error": f"ncu --import gave no launches: {last_line(proc.stderr)}"})
            continue
        for row in compare(models[which], launches, args.tolerance, run_kernels):
            rows.append({"graph": name, "plan": which, **row})
    return rows, errors


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
        f"`{result['command']}` on `kiln run FILE --iters 1 --check=false [--unfused]`; each "
        f"kernel's last profiled launch. Flagged (⚠): read + write more than {tol:.0%} away from the "
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
                        help="directory for traffic.json, traffic.md, ncu reports and logs")
    parser.add_argument("--ncu", default="ncu", help="Nsight Compute CLI (default: ncu)")
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
    for sub in ("ncu", "logs"):
        (args.out / sub).mkdir(parents=True, exist_ok=True)

    kernels, errors = [], []
    for graph in graphs:
        rows, errs = measure_graph(graph, args, args.out)
        kernels += rows
        errors += errs
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
        "command": f"{args.ncu} --clock-control none --metrics {','.join(METRICS)}",
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
