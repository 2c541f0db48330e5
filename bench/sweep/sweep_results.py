"""The sweep's result files: DIR/sweep.json (one entry per case, accumulating over runs), and from it
DIR/sweep.md (per class: kiln's median fraction of copy, kiln against the faster peer, every case
where kiln is slower, wrong or failed; the issue's targets, targets.py) and DIR/plots/<class>.svg
(fraction of copy against bytes, one series per kiln strategy). Standard library only.

    results = load_results(DIR / "sweep.json")       # name -> entry
    results[name] = entry; save_results(DIR / "sweep.json", results)
    write_report(DIR, results)
"""

from __future__ import annotations

import collections
import json
import math
import os
import pathlib
import re
import statistics

from svg_plot import scatter_svg
from targets import targets_markdown


def load_results(path: pathlib.Path) -> dict:
    if path.exists():
        return {r["name"]: r for r in json.loads(path.read_text())["cases"]}
    return {}


def save_results(path: pathlib.Path, results: dict) -> None:
    """Writes every entry, sorted by name, through a temporary file: a run killed while writing
    leaves the previous file whole."""
    ordered = sorted(results.values(), key=lambda r: r["name"])
    gpu = next((r["gpu"] for r in ordered if r.get("gpu")), "")
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps({"gpu": gpu, "cases": ordered}, indent=1) + "\n")
    os.replace(temporary, path)


def markdown(results: list[dict], gpu: str) -> str:
    lines = [f"# Memory-bound sweep on {gpu}", "",
             "Fraction of copy: the traffic model's bytes over the time, against the device-to-device copy "
             "kiln measured in the same run; of a same-size copy: against a copy moving the case's bytes, "
             "which small cases cannot reach the ceiling with either. Speedup: the faster of torch's built-in "
             "op and torch.compile, over kiln's time (above 1: kiln is faster).", "",
             "| class | cases | kiln failed | check failed | kiln median fraction of copy | "
             "of a same-size copy | peer median | median speedup | kiln < 1.0x |",
             "|---|---|---|---|---|---|---|---|---|"]
    classes = sorted({r["class"] for r in results})
    slow_sections = []
    for cls in classes:
        rows = [r for r in results if r["class"] == cls]
        ok = [r for r in rows if "kiln_us" in r]
        fractions = [r["kiln_fraction_of_copy"] for r in ok]
        same_size = [r["kiln_fraction_of_same_size_copy"] for r in ok if "kiln_fraction_of_same_size_copy" in r]
        peer = [r["bytes"] / (r["faster_peer_us"] * 1e-6) / (r["copy_gbps"] * 1e9) for r in ok if "faster_peer_us" in r]
        speedups = [r["kiln_speedup_vs_faster_peer"] for r in ok if "kiln_speedup_vs_faster_peer" in r]
        slow = sorted((r for r in ok if r.get("kiln_speedup_vs_faster_peer", 1) < 1.0),
                      key=lambda r: r["kiln_speedup_vs_faster_peer"])
        bad = [r for r in ok if r.get("check_passed") is False]
        med = lambda v: f"{statistics.median(v):.3f}" if v else "-"  # noqa: E731
        lines.append(f"| {cls} | {len(rows)} | {len(rows) - len(ok)} | {len(bad)} | {med(fractions)} | "
                     f"{med(same_size)} | {med(peer)} | {med(speedups)} | {len(slow)} |")
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
    builds = collections.Counter(r.get("kiln_build") or "not recorded (older runs)" for r in results)
    measured = ["## Measured by", "", "Slices of the sweep run at different times; `--rerun-slower` measures the "
                "failed and slower cases again.", "", "| kiln build | cases |", "|---|---|"]
    measured += [f"| {build} | {count} |" for build, count in sorted(builds.items())]
    return "\n".join(lines + [""] + targets_markdown(results) + slow_sections + measured) + "\n"


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
        copy = [(r["bytes"], r["same_size_copy_gbps"] / r["copy_gbps"], r["name"])
                for r in rows if r["class"] == cls and r.get("same_size_copy_gbps")]
        (plots / f"{cls}.svg").write_text(scatter_svg(f"{cls}: fraction of copy against bytes moved ({gpu})",
                                                      "HBM bytes (traffic model, log scale)", "fraction of copy",
                                                      series, reference=("faster peer", peer),
                                                      curve=("a copy of the same bytes", copy)))
