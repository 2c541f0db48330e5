#!/usr/bin/env python3
"""Merges kiln's and the peers' benchmark JSON into results.json, results.md and results.svg.

    python3 bench/report.py OUTDIR [OUTDIR...] [--out DIR]

Every OUTDIR is searched recursively for two kinds of JSON file:
  * `kiln run --json` output: an object with "graph" and "plan". An object with "error" in place
    of "total" records a kiln run that failed (bench/run_all.sh writes it): the row then shows
    the peers alone.
  * bench/peers.py output: an object whose "schema" is PEERS_SCHEMA.
A later OUTDIR overrides an earlier one for the same graph and implementation. The three result
files go to --out (default: the first OUTDIR).

Rates are computed here, not taken from the inputs, with one convention for every implementation
of a row: a workload's compulsory HBM bytes (docs/design.md's fused traffic model with the row kept on
chip) or 2*M*N*K FLOPs, divided by the measured time. Every rate of a row is therefore
proportional to 1/time, and "fraction of the copy ceiling" reads directly as efficiency.

Standard library only: this file and its tests run on machines without PyTorch.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import math
import pathlib
import sys
from xml.sax.saxutils import escape, quoteattr

PEERS_SCHEMA = "kiln-bench-peers/1"
RESULTS_SCHEMA = "kiln-bench-results/1"

DTYPE_BYTES = {"f32": 4, "bf16": 2, "f16": 2}
WORKLOADS = ("gelu_naive", "softmax_naive", "row_sum", "matmul_relu")

# docs/design.md's benchmark table, in its order; rows not listed here sort after it by name.
BENCH_ORDER = (
    "gelu_naive_16384x16384_f32",
    "gelu_naive_16384x16384_bf16",
    "softmax_naive_65536x1024_f32",
    "softmax_naive_16384x4096_f32",
    "softmax_naive_4096x16384_f32",
    "softmax_naive_512x131072_f32",
    "row_sum_16384x16384_f32",
    "row_sum_256x1048576_f32",
    "matmul_relu_4096x4096x4096_f32",
    "matmul_relu_8192x8192x8192_bf16",
    "matmul_relu_4096x4096x4096_f16",
)

# Implementations in display order. The copy ceiling is a line in the chart, not a bar.
IMPLEMENTATIONS = ("copy", "kiln_fused", "kiln_unfused", "eager", "builtin", "compile", "triton")
PEERS = ("eager", "builtin", "compile", "triton")
LABELS = {
    "copy": "copy ceiling",
    "kiln_fused": "kiln fused",
    "kiln_unfused": "kiln unfused",
    "eager": "PyTorch eager (naive ops)",
    "builtin": "PyTorch built-in",
    "compile": "torch.compile (naive)",
    "triton": "Triton (seed kernel)",
}
# Okabe-Ito colours: distinguishable with the common forms of colour blindness.
COLORS = {
    "kiln_fused": "#D55E00",
    "kiln_unfused": "#E69F00",
    "eager": "#56B4E9",
    "builtin": "#0072B2",
    "compile": "#009E73",
    "triton": "#CC79A7",
}
FAILED_FILL = "#C8C8C8"


# ---------------------------------------------------------------------------------------------
# Workload names and the compulsory cost model (peers.py uses these too).
# ---------------------------------------------------------------------------------------------

def parse_graph_name(name: str) -> tuple[str, str, str]:
    """Splits "softmax_naive_512x131072_f32" into ("softmax_naive", "512x131072", "f32")."""
    parts = name.rsplit("_", 2)
    if len(parts) != 3 or parts[0] not in WORKLOADS or parts[2] not in DTYPE_BYTES:
        raise ValueError(f"graph name {name!r} is not <workload>_<shape>_<dtype>")
    parse_dims(parts[1])
    return parts[0], parts[1], parts[2]


def parse_dims(shape: str) -> list[int]:
    """"16384x4096" -> [16384, 4096]; matmul shapes are MxNxK."""
    try:
        dims = [int(d) for d in shape.split("x")]
    except ValueError:
        dims = []
    if not dims or any(d <= 0 for d in dims):
        raise ValueError(f"shape {shape!r} is not positive integers joined by 'x'")
    return dims


def compulsory_cost(workload: str, shape: str, dtype: str) -> tuple[int, int]:
    """(bytes, flops) every implementation must at least spend; flops only for matmul.

    Bytes follow docs/design.md's traffic model for a plan that keeps each row on chip: GeLU and
    softmax read x and write y once; row sum reads x and writes one value per row; matmul reads
    A and B and writes C once.
    """
    dims = parse_dims(shape)
    size = DTYPE_BYTES[dtype]
    want = 3 if workload == "matmul_relu" else 2
    if workload not in WORKLOADS or len(dims) != want:
        raise ValueError(f"{workload} takes {want} dims, got {shape!r}")
    if workload == "matmul_relu":
        m, n, k = dims
        return (m * k + k * n + m * n) * size, 2 * m * n * k
    rows, cols = dims
    if workload == "row_sum":
        return (rows * cols + rows) * size, 0
    return 2 * rows * cols * size, 0


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Entry:
    """Everything measured for one graph (workload, shape, dtype)."""
    kiln: dict = dataclasses.field(default_factory=dict)     # "fused"/"unfused" -> kiln JSON
    peers: dict = dataclasses.field(default_factory=dict)    # peer name -> peers.py row
    reference: str | None = None                             # what the peers were checked against
    peers_error: str | None = None                           # peers.py failed as a whole
    environment: dict = dataclasses.field(default_factory=dict)


def load_dirs(dirs: list[pathlib.Path]) -> dict[tuple[str, str, str], Entry]:
    """Reads every kiln and peers JSON under dirs; keys are (workload, shape, dtype)."""
    entries: dict[tuple[str, str, str], Entry] = {}
    for root in dirs:
        for path in sorted(root.rglob("*.json")):
            try:
                obj = json.loads(path.read_text())
            except (OSError, ValueError) as err:
                print(f"report: skipping {path}: {err}", file=sys.stderr)
                continue
            if isinstance(obj, dict):
                add_record(entries, obj, path)
    return entries


def add_record(entries: dict, obj: dict, path: pathlib.Path) -> None:
    """Files one parsed JSON object under its graph; ignores files of other kinds."""
    try:
        if obj.get("schema") == PEERS_SCHEMA:
            key = (obj["workload"], obj["shape"], obj["dtype"])
            entry = entries.setdefault(key, Entry())
            entry.peers.update({row["peer"]: row for row in obj.get("rows", [])})
            entry.reference = obj.get("reference", entry.reference)
            entry.peers_error = obj.get("error")
            entry.environment.update(obj.get("environment", {}))
        elif "graph" in obj and obj.get("plan") in ("fused", "unfused"):
            key = parse_graph_name(obj["graph"])
            entries.setdefault(key, Entry()).kiln[obj["plan"]] = obj
    except (KeyError, TypeError, ValueError) as err:
        print(f"report: skipping {path}: {err}", file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# Figures: one per (graph, implementation)
# ---------------------------------------------------------------------------------------------

def kiln_figure(run: dict) -> dict:
    """A kiln run JSON as a figure: time and the result of kiln's own check."""
    if "total" not in run:
        return {"us": None, "note": f"did not run: {run.get('error', 'no result')}"}
    kernels = run.get("kernels", [])
    names = ", ".join(f"{k.get('name')} ({k.get('strategy')})" for k in kernels[:3])
    more = f" +{len(kernels) - 3} more" if len(kernels) > 3 else ""
    check = run.get("check") or {}
    checked = check.get("checked", True)
    error = f"; exited with: {run['error']}" if run.get("error") else ""
    return {
        "us": run["total"].get("us"),
        "rel_error": check.get("max_rel_error") if checked else None,
        "tolerance": check.get("tolerance") if checked else None,
        "passed": check.get("passed") if checked else None,
        "note": f"{len(kernels)} kernel(s): {names}{more}{error}",
    }


def peer_figure(row: dict) -> dict:
    return {k: row.get(k) for k in ("us", "rel_error", "tolerance", "passed", "note", "label", "bytes")}


def summarize(key: tuple[str, str, str], entry: Entry) -> dict:
    """One graph's figures with their rates, fraction of the ceiling and ratio to kiln fused."""
    workload, shape, dtype = key
    nbytes, flops = compulsory_cost(workload, shape, dtype)
    matmul = workload == "matmul_relu"

    figures: dict[str, dict] = {}
    for plan in ("fused", "unfused"):
        if plan in entry.kiln:
            figures[f"kiln_{plan}"] = kiln_figure(entry.kiln[plan])
    for name, row in entry.peers.items():
        figures[name] = peer_figure(row)

    def rate(name: str, fig: dict) -> float | None:
        us = fig.get("us")
        if not us:
            return None
        if name == "copy":
            return fig["bytes"] / us / 1e3 if fig.get("bytes") else None
        return flops / us / 1e6 if matmul else nbytes / us / 1e3

    for name, fig in figures.items():
        fig["rate"] = rate(name, fig)
        fig["unit"] = "GB/s" if name == "copy" or not matmul else "TFLOP/s"

    # The ceiling is the copy rate for memory-bound graphs (the peers' copy, else the one kiln
    # measured in its own run) and cuBLAS for matmul, provided cuBLAS passed its check.
    if matmul:
        ceiling_name = "cuBLAS"
        builtin = figures.get("builtin", {})
        ceiling = builtin.get("rate") if builtin.get("passed") else None
    else:
        ceiling_name = "copy"
        ceiling = figures.get("copy", {}).get("rate") or next(
            (run["copy_gbps"] for run in entry.kiln.values() if run.get("copy_gbps")), None)

    # A kiln result that fails its check is not compared with anything either.
    fused = figures.get("kiln_fused", {})
    fused_us = fused.get("us") if fused.get("passed") is not False else None
    for name, fig in figures.items():
        same_unit = fig["unit"] == ("TFLOP/s" if matmul else "GB/s")
        fig["fraction"] = fig["rate"] / ceiling if fig["rate"] and ceiling and same_unit else None
        ranked = name not in ("copy", "kiln_fused") and fig.get("passed") is not False
        fig["kiln_fused_speedup"] = (fig["us"] / fused_us
                                     if ranked and fig.get("us") and fused_us else None)

    return {
        "graph": f"{workload}_{shape}_{dtype}",
        "workload": workload, "shape": shape, "dtype": dtype,
        "bytes": nbytes, "flops": flops,
        "unit": "TFLOP/s" if matmul else "GB/s",
        "ceiling": {"name": ceiling_name, "rate": ceiling},
        "reference": entry.reference,
        "peers_error": entry.peers_error,
        "figures": [dict(impl=name, label=figures[name].get("label") or LABELS[name],
                         **{k: v for k, v in figures[name].items() if k != "label"})
                    for name in IMPLEMENTATIONS if name in figures],
    }


def headline(row: dict) -> dict:
    """kiln fused against its unfused plan and the fastest peer that passed its check."""
    figs = {f["impl"]: f for f in row["figures"]}
    fused = figs.get("kiln_fused", {})
    passing = [figs[p] for p in PEERS if figs.get(p, {}).get("us") and figs[p].get("passed")]
    best = min(passing, key=lambda f: f["us"], default=None)
    if not fused.get("us"):
        kiln_note = fused.get("note", "kiln not run")
    else:
        kiln_note = "fails its check" if fused.get("passed") is False else None
    return {
        "graph": row["graph"],
        "kiln_fused_us": fused.get("us"),
        "kiln_note": kiln_note,
        "vs_unfused": figs.get("kiln_unfused", {}).get("kiln_fused_speedup"),
        "best_peer": best["impl"] if best else None,
        "best_peer_label": best["label"] if best else None,
        "best_peer_us": best["us"] if best else None,
        "vs_best_peer": best["kiln_fused_speedup"] if best else None,
        "fraction": fused.get("fraction"),
        "ceiling": row["ceiling"]["name"],
    }


def sort_key(row: dict) -> tuple:
    graph = row["graph"]
    return (BENCH_ORDER.index(graph) if graph in BENCH_ORDER else len(BENCH_ORDER), graph)


def merged_environment(entries: dict) -> dict:
    """GPU, driver and versions: the peers' environment, completed by kiln's own fields."""
    env: dict = {}
    for entry in entries.values():
        for key, value in entry.environment.items():
            env.setdefault(key, value)
        for run in entry.kiln.values():
            for field, name in (("gpu", "gpu"), ("driver", "driver"), ("nvrtc", "kiln_nvrtc")):
                if run.get(field):
                    env.setdefault(name, run[field])
    return env


def build_results(entries: dict, generated: str) -> dict:
    rows = sorted((summarize(key, entry) for key, entry in entries.items()), key=sort_key)
    return {
        "schema": RESULTS_SCHEMA,
        "generated": generated,
        "environment": merged_environment(entries),
        "headline": [headline(row) for row in rows],
        "rows": rows,
    }


# ---------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------

def fmt_us(us: float | None) -> str:
    return f"{us:,.1f}" if us else "—"


def fmt_rate(rate: float | None, unit: str) -> str:
    if rate is None:
        return "—"
    return f"{rate:,.0f} {unit}" if unit == "GB/s" else f"{rate:,.1f} {unit}"


def fmt_ratio(ratio: float | None) -> str:
    return f"{ratio:.2f}×" if ratio else "—"


def fmt_check(fig: dict) -> str:
    if fig.get("passed") is None:
        return "—"
    err, tol = fig.get("rel_error"), fig.get("tolerance")
    detail = "non-finite" if err is None else f"{err:.1e}" + (f" vs {tol:.0e}" if tol else "")
    return f"pass ({detail})" if fig["passed"] else f"**FAIL** ({detail})"


def md_cell(text: str | None) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ")


def environment_line(env: dict) -> str:
    parts = [
        ("GPU", env.get("gpu")), ("driver", env.get("driver")), ("CUDA", env.get("cuda")),
        ("torch", env.get("torch")), ("triton", env.get("triton")),
        ("kiln NVRTC", env.get("kiln_nvrtc")),
        ("fp32 matmul precision", env.get("float32_matmul_precision")),
        ("measured", env.get("date")),
    ]
    return " · ".join(f"{name} {value}" for name, value in parts if value)


def render_markdown(results: dict) -> str:
    out = ["# kiln benchmark results", ""]
    out.append(environment_line(results["environment"]) + f" · report {results['generated']}")
    out += [
        "",
        "Times are medians of many CUDA-event-timed repetitions after warm-up, on inputs larger "
        "than L2. Rates divide one fixed amount of work per row by the time: the compulsory HBM "
        "bytes of the workload (GB/s) or 2·M·N·K (TFLOP/s), so rates within a row compare like "
        "times. \"× kiln\" is the peer's time divided by kiln fused's (above 1: kiln is faster). "
        "A peer that fails its check is shown but never ranked.",
        "",
        "## Headline",
        "",
        "| graph | kiln fused (µs) | of ceiling | × vs kiln unfused | best passing peer | "
        "× vs best peer |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for h in results["headline"]:
        fused = fmt_us(h["kiln_fused_us"])
        if h["kiln_note"]:
            fused += f" ({md_cell(h['kiln_note'])})"
        fraction = f"{h['fraction']:.2f} of {h['ceiling']}" if h["fraction"] else "—"
        best = (f"{md_cell(h['best_peer_label'])}: {fmt_us(h['best_peer_us'])} µs"
                if h["best_peer"] else "—")
        out.append(f"| {h['graph']} | {fused} | {fraction} | {fmt_ratio(h['vs_unfused'])} | "
                   f"{best} | {fmt_ratio(h['vs_best_peer'])} |")

    out += ["", "## Per graph", ""]
    for row in results["rows"]:
        ceiling = row["ceiling"]["name"]
        what = (f"{row['flops']:,} FLOPs" if row["unit"] == "TFLOP/s"
                else f"{row['bytes']:,} compulsory bytes")
        out += [f"### {row['workload']} {row['shape']} {row['dtype']}", ""]
        out.append(f"Rates from {what}; peers checked against {row['reference'] or 'nothing'}.")
        if row["peers_error"]:
            out.append(f"peers.py failed: {md_cell(row['peers_error'])}")
        out += [
            "",
            f"| implementation | time (µs) | rate | of {ceiling} | × kiln | check | note |",
            "|---|---:|---:|---:|---:|---|---|",
        ]
        for fig in row["figures"]:
            fraction = f"{fig['fraction']:.2f}" if fig["fraction"] else "—"
            speedup = "1.00×" if fig["impl"] == "kiln_fused" and fig["us"] else \
                fmt_ratio(fig["kiln_fused_speedup"])
            out.append(
                f"| {md_cell(fig['label'])} | {fmt_us(fig['us'])} | "
                f"{fmt_rate(fig['rate'], fig['unit'])} | {fraction} | {speedup} | "
                f"{fmt_check(fig)} | {md_cell(fig.get('note'))} |")
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# SVG: grouped horizontal bars, one group per graph, one panel per unit
# ---------------------------------------------------------------------------------------------

WIDTH = 1000
LABEL_RIGHT = 205      # bar labels end here
PLOT_LEFT = 215
PLOT_WIDTH = 520
VALUE_LEFT = PLOT_LEFT + PLOT_WIDTH + 12   # values in their own column, clear of the copy line
BAR_H = 14
BAR_STEP = 19
FONT = 'font-family="Helvetica, Arial, sans-serif"'


def nice_axis(max_value: float) -> tuple[float, float]:
    """(axis maximum, tick step) with a 1/2/2.5/5 step and about five ticks."""
    raw = max_value / 5 if max_value > 0 else 1.0
    base = 10 ** math.floor(math.log10(raw))
    step = next(m * base for m in (1, 2, 2.5, 5, 10) if m * base >= raw)
    return math.ceil(max_value / step) * step if max_value > 0 else step * 5, step


def svg_text(x: float, y: float, text: str, *, size: int = 12, anchor: str = "start",
             weight: str = "normal", fill: str = "#222", css: str = "label") -> str:
    return (f'<text class="{css}" x="{x:.1f}" y="{y:.1f}" font-size="{size}" '
            f'text-anchor="{anchor}" font-weight="{weight}" fill="{fill}" {FONT}>'
            f'{escape(text)}</text>')


def bar_caption(fig: dict, ceiling_name: str) -> str:
    text = fmt_rate(fig["rate"], fig["unit"])
    if fig["fraction"]:
        text += f" · {fig['fraction']:.2f} of {ceiling_name}"
    if fig.get("passed") is False:
        text += " · ✗ fails check"
    return text


def render_panel(rows: list[dict], title: str, unit: str, top: float) -> tuple[list[str], float]:
    """One panel of groups sharing an x axis; returns its elements and the y below it."""
    rates = [f["rate"] for r in rows for f in r["figures"] if f["impl"] != "copy" and f["rate"]]
    rates += [r["ceiling"]["rate"] for r in rows if r["unit"] == "GB/s" and r["ceiling"]["rate"]]
    axis_max, step = nice_axis(max(rates, default=1.0))

    def sx(value: float) -> float:
        return PLOT_LEFT + PLOT_WIDTH * min(value, axis_max) / axis_max

    parts = [svg_text(20, top + 16, title, size=15, weight="bold", css="panel-title")]
    y = top + 34
    plot_top = y
    for row in rows:
        parts.append(svg_text(20, y + 13, f"{row['workload']}  {row['shape']}  {row['dtype']}",
                              size=13, weight="bold", css="group-title"))
        group_top = y + 18
        y = group_top
        for fig in row["figures"]:
            # Peers that do not apply (their reason is in the table) get no line in the chart.
            skipped = fig["impl"] in PEERS and not fig["us"] and fig.get("passed") is None
            if fig["impl"] == "copy" or skipped:
                continue
            parts.append(svg_text(LABEL_RIGHT, y + BAR_H - 3, LABELS[fig["impl"]], size=11,
                                  anchor="end"))
            if fig["rate"]:
                failed = fig.get("passed") is False
                color = COLORS[fig["impl"]]
                width = max(sx(fig["rate"]) - PLOT_LEFT, 1.0)
                tip = f"{fig['label']}: {fmt_us(fig['us'])} µs, {fmt_rate(fig['rate'], fig['unit'])}"
                parts.append(
                    f'<rect class="bar" data-impl="{fig["impl"]}" x="{PLOT_LEFT}" y="{y:.1f}" '
                    f'width="{width:.1f}" height="{BAR_H}" fill="{FAILED_FILL if failed else color}" '
                    f'stroke="{color}" stroke-width="{1.5 if failed else 0}">'
                    f'<title>{escape(tip)}</title></rect>')
                parts.append(svg_text(VALUE_LEFT, y + BAR_H - 3,
                                      bar_caption(fig, row["ceiling"]["name"]), size=11))
            else:
                parts.append(svg_text(PLOT_LEFT + 4, y + BAR_H - 3,
                                      shorten(fig.get("note") or "no result"),
                                      size=11, fill="#777", css="missing"))
            y += BAR_STEP
        ceiling = row["ceiling"]["rate"]
        if unit == "GB/s" and ceiling:
            x = sx(ceiling)
            parts.append(f'<line class="ceiling" x1="{x:.1f}" y1="{group_top - 4:.1f}" '
                         f'x2="{x:.1f}" y2="{y:.1f}" stroke="#B00020" stroke-width="1.5" '
                         f'stroke-dasharray="5,3"/>')
            parts.append(svg_text(x + 4, group_top - 6, f"copy {ceiling:,.0f} GB/s", size=10,
                                  fill="#B00020", css="ceiling-label"))
        y += 10

    grid = []
    tick = 0.0
    while tick <= axis_max + step / 2:
        x = sx(tick)
        grid.append(f'<line class="grid" x1="{x:.1f}" y1="{plot_top:.1f}" x2="{x:.1f}" '
                    f'y2="{y:.1f}" stroke="#e4e4e4" stroke-width="1"/>')
        grid.append(svg_text(x, y + 14, f"{tick:,.0f}" if step >= 1 else f"{tick:g}", size=10,
                             anchor="middle", fill="#555", css="tick"))
        tick += step
    grid.append(svg_text(PLOT_LEFT + PLOT_WIDTH / 2, y + 30, axis_title(unit), size=11,
                         anchor="middle", fill="#333", css="axis-title"))
    # The grid goes first so that bars and text are drawn over it.
    return parts[:1] + grid + parts[1:], y + 48


def axis_title(unit: str) -> str:
    if unit == "GB/s":
        return "achieved GB/s (compulsory HBM bytes / time); dashed: device-to-device copy"
    return "achieved TFLOP/s (2·M·N·K / time)"


def shorten(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_legend(top: float) -> tuple[list[str], float]:
    """Swatches in a grid of four columns: the implementations, the ceiling, a failed check."""
    items = [(f'<rect class="swatch" x="{{x:.1f}}" y="{{y:.1f}}" width="12" height="12" '
              f'fill="{COLORS[impl]}"/>', LABELS[impl]) for impl in IMPLEMENTATIONS[1:]]
    items.append(('<line class="legend-ceiling" x1="{x:.1f}" y1="{y6:.1f}" x2="{x12:.1f}" '
                  'y2="{y6:.1f}" stroke="#B00020" stroke-width="1.5" stroke-dasharray="4,2"/>',
                  "copy ceiling"))
    items.append((f'<rect class="swatch" x="{{x:.1f}}" y="{{y:.1f}}" width="12" height="12" '
                  f'fill="{FAILED_FILL}"/>', "fails its check"))
    parts = []
    for i, (mark, label) in enumerate(items):
        x, y = 20.0 + 240 * (i % 4), top + 18 * (i // 4)
        parts.append(mark.format(x=x, y=y, y6=y + 6, x12=x + 12))
        parts.append(svg_text(x + 17, y + 10.5, label, size=11))
    return parts, top + 18 * math.ceil(len(items) / 4) + 6


def render_svg(results: dict) -> str:
    env = results["environment"]
    title = "kiln vs peers" + (f" on {env['gpu']}" if env.get("gpu") else "")
    body = [svg_text(20, 28, title, size=18, weight="bold", css="title"),
            svg_text(20, 46, environment_line(env), size=11, fill="#555", css="subtitle")]
    legend, y = render_legend(58)
    body += legend
    panels = (("Memory-bound graphs: achieved bandwidth", "GB/s"),
              ("Matmul + ReLU: achieved throughput", "TFLOP/s"))
    for panel_title, unit in panels:
        rows = [r for r in results["rows"] if r["unit"] == unit]
        if rows:
            parts, y = render_panel(rows, panel_title, unit, y + 10)
            body += parts
    height = math.ceil(y + 10)
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label={quoteattr(title)}>',
        f'<rect class="background" x="0" y="0" width="{WIDTH}" height="{height}" fill="white"/>',
        *body,
        "</svg>",
        "",
    ])


# ---------------------------------------------------------------------------------------------

def write_reports(dirs: list[pathlib.Path], out: pathlib.Path) -> dict:
    """Loads dirs, writes results.json/.md/.svg into out and returns the results object."""
    generated = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    results = build_results(load_dirs(dirs), generated)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    (out / "results.md").write_text(render_markdown(results))
    (out / "results.svg").write_text(render_svg(results))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=pathlib.Path, metavar="OUTDIR",
                        help="directories holding kiln and peers JSON (searched recursively)")
    parser.add_argument("--out", type=pathlib.Path,
                        help="where results.json/.md/.svg go (default: the first OUTDIR)")
    args = parser.parse_args(argv)
    missing = [str(d) for d in args.dirs if not d.is_dir()]
    if missing:
        parser.error(f"not a directory: {', '.join(missing)}")
    out = args.out or args.dirs[0]
    results = write_reports(args.dirs, out)
    print(f"report: {len(results['rows'])} graph(s) -> {out}/results.{{json,md,svg}}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
