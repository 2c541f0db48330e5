#!/usr/bin/env python3
"""Each sweep case's kernels as ptxas compiles them, beside the case's measured fraction of copy: the
registers, spills and shared memory of every kernel and the blocks an SM, limits and waves they allow,
from `kiln plan --resources --json`. It needs no GPU, so the cases a sweep measured on the H200 can be
read against their occupancy on any machine, before device time is spent on profiles.

    python3 bench/sweep/resources.py --kiln build/kiln --sweep bench/results/DATE-h200/sweep \
        [--filter REGEX] [--jobs N]

Writes SWEEP/resources.json (case name -> kiln's resource rows; a later run replaces the cases it
covers) and SWEEP/resources.md: a summary per class of the cases above L2, and a table of those below
0.90 of copy, worst first.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from cases import all_cases, largest_tensor_bytes  # noqa: E402
from sweep_results import load_results  # noqa: E402
from targets import L2_BYTES  # noqa: E402

# Below this fraction of copy, a case above L2 misses the target.
FLOOR = 0.90
THREADS_PER_SM = 2048


def case_resources(kiln: list[str], graph: pathlib.Path) -> list[dict] | str:
    """kiln's resource rows for the fused plan of `graph`, or its error's last line."""
    run = subprocess.run([*kiln, "plan", "--json", "--resources", str(graph)], capture_output=True, text=True)
    if run.returncode != 0:
        lines = run.stderr.strip().splitlines()
        return lines[-1] if lines else f"kiln exited with {run.returncode}"
    return json.loads(run.stdout)["resources"]


def collect(kiln: list[str], names: list[str], jobs: int) -> dict:
    """Writes each case's graph to a temporary folder and asks kiln for its resources, `jobs` at once."""
    cases = {case.name: case for case in all_cases()}
    unknown = [n for n in names if n not in cases]
    if unknown:
        raise SystemExit(f"not sweep cases (bench/sweep/cases.py): {', '.join(unknown)}")
    with tempfile.TemporaryDirectory() as tmp:
        graphs = []
        for name in names:
            graph = pathlib.Path(tmp) / f"{name}.textproto"
            graph.write_text(cases[name].textproto())
            graphs.append(graph)
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            return dict(zip(names, pool.map(lambda g: case_resources(kiln, g), graphs)))


def occupancy(row: dict) -> float:
    """Threads an SM holds, as a share of its 2048."""
    return row["blocks_per_sm"] * row["threads"] / THREADS_PER_SM


def markdown(measured: dict, resources: dict) -> str:
    """measured: the sweep.json entries by name; resources: collect's result."""
    big = [r for r in measured.values() if "kiln_fraction_of_copy" in r and largest_tensor_bytes(r["inputs"], r["dtype"]) > L2_BYTES
           and isinstance(resources.get(r["name"]), list)]
    lines = ["# Kernel resources of the sweep's cases", "",
             "ptxas's registers, spills and shared memory for each kernel of a case's fused plan, and the blocks "
             "an SM then holds (`kiln plan --resources`, no GPU). Occupancy: the threads an SM holds, as a share "
             "of 2048. A kernel whose launch bound spills has more than one ask; the runtime times them, and the "
             "figures here are the planner's ask.", "",
             "## Cases above L2", "",
             "| class | cases | below 0.90 | median occupancy, below | median occupancy, at or above | "
             "spilling, below | spilling, at or above |", "|---|---|---|---|---|---|---|"]
    by_class = collections.defaultdict(list)
    for r in big:
        by_class[r["class"]].append(r)
    for cls in sorted(by_class):
        low = [r for r in by_class[cls] if r["kiln_fraction_of_copy"] < FLOOR]
        high = [r for r in by_class[cls] if r["kiln_fraction_of_copy"] >= FLOOR]

        def median_occupancy(group):
            return f"{statistics.median(occupancy(resources[r['name']][0]) for r in group):.2f}" if group else "-"

        def spilling(group):
            return sum(1 for r in group if resources[r["name"]][0]["spill_store_bytes"] > 0)

        lines.append(f"| {cls} | {len(by_class[cls])} | {len(low)} | {median_occupancy(low)} | "
                     f"{median_occupancy(high)} | {spilling(low)} | {spilling(high)} |")
    lines += ["", f"## Cases above L2 below {FLOOR:.2f} of copy, worst first", "",
              "| case | fraction of copy | kiln us | kernel | threads | cluster | registers | spill st/ld B | "
              "blocks/SM | limited by | occupancy | waves | strategy |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(big, key=lambda r: r["kiln_fraction_of_copy"]):
        if r["kiln_fraction_of_copy"] >= FLOOR:
            break
        for k in resources[r["name"]]:
            if k["tuned_ask"]:
                continue
            waves = "-" if k["waves"] is None else f"{k['waves']:.2f}"
            lines.append(f"| {r['name']} | {r['kiln_fraction_of_copy']:.3f} | {r['kiln_us']:.1f} | {k['kernel']} | "
                         f"{k['threads']} | {k['cluster']} | {k['registers']} | "
                         f"{k['spill_store_bytes']}/{k['spill_load_bytes']} | {k['blocks_per_sm']} | "
                         f"{', '.join(k['limited_by'])} | {occupancy(k):.2f} | {waves} | {r.get('strategy', '')} |")
    failed = sorted(name for name, rows in resources.items() if not isinstance(rows, list))
    if failed:
        lines += ["", "## Cases kiln could not compile", ""]
        lines += [f"- {name}: {resources[name]}" for name in failed]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", default="build/kiln", help="how to run kiln (split on spaces)")
    parser.add_argument("--sweep", type=pathlib.Path, required=True, help="a folder holding sweep.json")
    parser.add_argument("--filter", help="only cases whose name matches this regular expression")
    parser.add_argument("--jobs", type=int, default=2, help="kiln processes at once (each compiles with NVRTC)")
    args = parser.parse_args(argv)
    measured = load_results(args.sweep / "sweep.json")
    if not measured:
        parser.error(f"{args.sweep / 'sweep.json'} holds no cases")
    names = sorted(n for n in measured if not args.filter or re.search(args.filter, n))
    path = args.sweep / "resources.json"
    resources = json.loads(path.read_text()) if path.exists() else {}
    resources.update(collect(args.kiln.split(), names, args.jobs))
    path.write_text(json.dumps(resources, indent=1, sort_keys=True) + "\n")
    (args.sweep / "resources.md").write_text(markdown(measured, resources))
    print(f"wrote the resources of {len(names)} cases to {path} and {args.sweep / 'resources.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
