"""The memory-bound issue's targets, measured on the sweep's results: for each target, how many of the
cases it covers meet it, and the ones that miss. write_report puts the table in DIR/sweep.md.
Standard library only.

    lines = targets_markdown(results)   # results: the sweep.json entries
"""

from __future__ import annotations

import re

from cases import largest_tensor_bytes

# Above this, a tensor does not fit in the H200's L2 (50 MiB): its cases must run at the copy rate.
L2_BYTES = 50 * 2**20
# A case below its target whose same-size copy also runs below this fraction of the large copy's rate is
# bound by its size (launch, ramp, tail), not by its kernel.
SAME_SIZE_FLOOR = 0.90
# "layernorm_1335x50257_bf16" -> op, rows, row length, dtype.
ROW_CASE = re.compile(r"([a-z]+)_(\d+)x(\d+)_(bf16|f16|f32)$")


def _counted(cases: list[dict], floor: float) -> tuple[int, int, list[str]]:
    """How many of `cases` reach `floor` of copy, of how many, and the others as 'name (fraction)'."""
    misses = sorted((r for r in cases if r["kiln_fraction_of_copy"] < floor), key=lambda r: r["kiln_fraction_of_copy"])
    return len(cases) - len(misses), len(cases), [f"{r['name']} ({r['kiln_fraction_of_copy']:.3f})" for r in misses]


def target_of(entry: dict) -> float:
    """The issue's floor for a case above L2: 0.85 of copy for transposes, 0.90 for every other class."""
    return 0.85 if entry["class"] == "transpose" else 0.90


def odd_row_pairs(measured: list[dict]) -> list[tuple[dict, dict, float]]:
    """Each row case whose length is no multiple of 8 (and at least 8), against the case of the same op
    and dtype at the next multiple of 8 whose traffic is within 10%: (odd, even, time-per-byte ratio)."""
    by_key = {}
    for r in measured:
        m = ROW_CASE.match(r["name"])
        if r["class"] == "row" and m:
            by_key.setdefault((m[1], int(m[3]), m[4]), []).append(r)
    pairs = []
    for r in measured:
        m = ROW_CASE.match(r["name"])
        if r["class"] != "row" or not m or int(m[3]) % 8 == 0 or int(m[3]) < 8:
            continue
        even = [o for o in by_key.get((m[1], (int(m[3]) + 7) // 8 * 8, m[4]), [])
                if abs(o["bytes"] / r["bytes"] - 1) < 0.1]
        if even:
            o = min(even, key=lambda o: abs(o["bytes"] / r["bytes"] - 1))
            pairs.append((r, o, (r["kiln_us"] / r["bytes"]) / (o["kiln_us"] / o["bytes"])))
    return pairs


def targets_markdown(results: list[dict]) -> list[str]:
    measured = [r for r in results if "kiln_us" in r]
    big = [r for r in measured if largest_tensor_bytes(r["inputs"], r["dtype"]) > L2_BYTES]
    rows = []  # (target, met, covered, misses)

    met, covered, _ = _counted(big, 0.90)
    rows.append(("every class above L2 at >= 0.90 of copy", met, covered, ["by class below"]))
    # A miss that a copy of the same bytes misses too is bound by its size (launch, ramp, tail), not its kernel.
    missed = [r for r in big if r["kiln_fraction_of_copy"] < 0.90 and "kiln_fraction_of_same_size_copy" in r]
    far = sorted((r for r in missed if r["kiln_fraction_of_same_size_copy"] < SAME_SIZE_FLOOR),
                 key=lambda r: r["kiln_fraction_of_same_size_copy"])
    rows.append(("of those below 0.90 of copy, >= 0.90 of a copy of their own bytes", len(missed) - len(far),
                 len(missed), [f"{r['name']} ({r['kiln_fraction_of_same_size_copy']:.3f})" for r in far]))
    for cls in sorted({r["class"] for r in big}):
        rows.append((f"{cls} above L2 at >= 0.90 of copy", *_counted([r for r in big if r["class"] == cls], 0.90)))
    with_peer = [r for r in measured if "kiln_speedup_vs_faster_peer" in r]
    slower = sorted((r for r in with_peer if r["kiln_speedup_vs_faster_peer"] < 1.0),
                    key=lambda r: r["kiln_speedup_vs_faster_peer"])
    share = 100 * (len(with_peer) - len(slower)) / len(with_peer) if with_peer else 0
    rows.append((f">= 1.0x the faster peer on >= 95% of cases ({share:.1f}%)", len(with_peer) - len(slower),
                 len(with_peer), [f"{r['name']} ({r['kiln_speedup_vs_faster_peer']:.2f}x)" for r in slower]))
    leading = [r for r in big if r["class"] == "axis_reduction" and "_axis0_" in r["name"]]
    rows.append(("leading-axis reductions above L2 at >= 0.90", *_counted(leading, 0.90)))
    rows.append(("transposes above L2 at >= 0.85",
                 *_counted([r for r in big if r["class"] == "transpose"], 0.85)))
    multi = [r for r in big if r["class"] == "pointwise" and r["dtype"] != "f32"
             and not r["name"].startswith("pointwise1_")]
    rows.append(("bf16/f16 multi-input pointwise above L2 at >= 0.92", *_counted(multi, 0.92)))
    norms = [r for r in big if r["dtype"] == "bf16" and re.match(r"(layernorm|rmsnorm|softmax)_", r["name"])]
    rows.append(("bf16 normalizations above L2 at >= 0.90", *_counted(norms, 0.90)))
    pairs = odd_row_pairs(measured)
    far = [f"{odd['name']} ({ratio:.2f}x {even['name']})" for odd, even, ratio in pairs if ratio > 1.1]
    rows.append(("odd row lengths within 10% of the next multiple of 8 (time per byte)", len(pairs) - len(far),
                 len(pairs), far))
    split = [r for r in measured if r["name"] == "softmax_512x131071_f32"]
    if split:
        us = split[0]["kiln_us"]
        rows.append((f"split softmax 512x131071 f32 <= 140 us ({us:.1f} us)", int(us <= 140), 1,
                     [] if us <= 140 else [f"softmax_512x131071_f32 ({us:.1f} us)"]))

    lines = ["## Targets", "", "Above L2: the case's largest tensor exceeds 50 MiB. Misses, worst first.", "",
             "| target | met | of | misses |", "|---|---|---|---|"]
    lines += [f"| {target} | {met} | {covered} | {', '.join(misses)} |" for target, met, covered, misses in rows]
    return lines + [""]
