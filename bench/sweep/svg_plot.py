"""A tiny SVG scatter plot with a log x axis, hand-written so that it needs nothing installed.

    svg = scatter_svg("title", "x label", "y label", {"series": [(x, y, "tooltip"), ...]},
                      reference=("faster peer", [(x, y, "tooltip"), ...]),
                      curve=("a copy of the same bytes", [(x, y, "tooltip"), ...]))   # a line in x order
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
WIDTH, HEIGHT = 960, 540
LEFT, RIGHT, TOP, BOTTOM = 70, 330, 50, 60  # margins; the legend sits right


def scatter_svg(title: str, x_label: str, y_label: str, series: dict, reference=None, curve=None) -> str:
    points = [p for s in series.values() for p in s]
    points += (reference[1] if reference else []) + (curve[1] if curve else [])
    xs = [p[0] for p in points if p[0] > 0] or [1]
    lo = 10 ** math.floor(math.log10(min(xs)))
    hi = 10 ** math.ceil(math.log10(max(xs)))
    hi = hi if hi > lo else lo * 10
    y_hi = max([1.2] + [p[1] for p in points if math.isfinite(p[1])])
    right, bottom = WIDTH - RIGHT, HEIGHT - BOTTOM

    def px(x):
        return LEFT + (right - LEFT) * (math.log10(max(x, lo)) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

    def py(y):
        return bottom - (bottom - TOP) * min(y, y_hi) / y_hi

    out = [f'<?xml version="1.0" encoding="UTF-8"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{LEFT}" y="24" font-size="15">{escape(title)}</text>']
    decade = lo
    while decade <= hi * 1.0001:
        out.append(f'<line x1="{px(decade):.1f}" y1="{TOP}" x2="{px(decade):.1f}" y2="{bottom}" stroke="#ddd"/>'
                   f'<text x="{px(decade):.1f}" y="{bottom + 18}" text-anchor="middle">{decade:g}</text>')
        decade *= 10
    step = 0.2
    for i in range(int(y_hi / step) + 1):
        y = i * step
        color = "#999" if abs(y - 1) < 1e-9 else "#ddd"  # 1.0: the copy rate
        out.append(f'<line x1="{LEFT}" y1="{py(y):.1f}" x2="{right}" y2="{py(y):.1f}" stroke="{color}"/>'
                   f'<text x="{LEFT - 6}" y="{py(y) + 4:.1f}" text-anchor="end">{y:.1f}</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{right - LEFT}" height="{bottom - TOP}" fill="none" stroke="black"/>')
    out.append(f'<text x="{(LEFT + right) / 2}" y="{HEIGHT - 16}" text-anchor="middle">{escape(x_label)}</text>')
    out.append(f'<text x="18" y="{(TOP + bottom) / 2}" transform="rotate(-90 18 {(TOP + bottom) / 2})" '
               f'text-anchor="middle">{escape(y_label)}</text>')
    legend_y = TOP + 10
    if reference:
        name, ref_points = reference
        for x, y, tip in ref_points:
            out.append(f'<rect x="{px(x) - 3:.1f}" y="{py(y) - 3:.1f}" width="6" height="6" fill="none" '
                       f'stroke="#888"><title>{escape(tip)}: {y:.3f}</title></rect>')
        out.append(f'<rect x="{right + 16}" y="{legend_y - 6}" width="8" height="8" fill="none" stroke="#888"/>'
                   f'<text x="{right + 30}" y="{legend_y + 2}">{escape(name)}</text>')
        legend_y += 18
    if curve:
        name, curve_points = curve
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y, _ in sorted(curve_points))
        out.append(f'<polyline points="{path}" fill="none" stroke="#444" stroke-dasharray="4 3"/>'
                   f'<line x1="{right + 12}" y1="{legend_y - 2}" x2="{right + 28}" y2="{legend_y - 2}" stroke="#444" '
                   f'stroke-dasharray="4 3"/><text x="{right + 30}" y="{legend_y + 2}">{escape(name)}</text>')
        legend_y += 18
    for i, (name, pts) in enumerate(sorted(series.items())):
        color = COLORS[i % len(COLORS)]
        for x, y, tip in pts:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3.5" fill="{color}">'
                       f'<title>{escape(tip)}: {y:.3f}</title></circle>')
        out.append(f'<circle cx="{right + 20}" cy="{legend_y - 2}" r="4" fill="{color}"/>'
                   f'<text x="{right + 30}" y="{legend_y + 2}">{escape(name[:44])}</text>')
        legend_y += 18
    out.append("</svg>")
    return "\n".join(out) + "\n"
