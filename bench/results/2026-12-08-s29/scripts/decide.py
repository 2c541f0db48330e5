#!/usr/bin/env python3
"""Call A's choice between the builds it timed side by side, by a rule fixed before the call:
a candidate (full, then words) is kept over base when every GPU test and memcheck step in log.txt
passed, it ran at least 12 of the A/B cases, its kernel times are below base's by 1% or more in
geometric mean, and no case is more than 3% slower. Times: the `total` line of each
time_<case>_<build>_<round>.txt, the fastest round. Prints the table and, last, the chosen build.

    python3 bench/results/2026-12-08-s29/scripts/decide.py OUTDIR
"""

import collections
import math
import pathlib
import re
import sys

TOTAL = re.compile(r"^total\s+\d+ kernels?\s+([\d.]+)", re.M)
STEPS = ("runtime tests", "frontends tests", "memcheck")

out = pathlib.Path(sys.argv[1])
times = collections.defaultdict(dict)  # case -> build -> fastest us
for f in out.glob("time_*_kiln_*_*.txt"):
    m = re.match(r"time_(.+)_(kiln_[a-z]+)_(\d+)\.txt$", f.name)
    found = TOTAL.search(f.read_text())
    if m and found:
        us = float(found[1])
        times[m[1]][m[2]] = min(us, times[m[1]].get(m[2], us))
log = (out / "log.txt").read_text() if (out / "log.txt").exists() else ""
failed = [line for line in log.splitlines() if line.startswith(STEPS) and " rc=0 " not in line]
ran = [s for s in STEPS if any(line.startswith(s) for line in log.splitlines())]
print(f"{'case':34} {'base':>9} {'words':>9} {'full':>9}")
for case in sorted(times):
    t = times[case]
    print(f"{case:34} " + " ".join(f"{t[b]:9.1f}" if b in t else f"{'-':>9}"
                                    for b in ("kiln_base", "kiln_words", "kiln_full")))
choice = "base"
for build in ("kiln_full", "kiln_words"):
    ratios = [t[build] / t["kiln_base"] for t in times.values() if build in t and "kiln_base" in t]
    if not ratios:
        continue
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    ok = not failed and len(ran) == len(STEPS) and len(ratios) >= 12 and geomean <= 0.99 and max(ratios) <= 1.03
    print(f"{build}: {len(ratios)} cases, geometric mean {geomean:.3f} of base, worst {max(ratios):.3f}; "
          f"steps failed: {failed or 'none'}; steps run: {ran} -> {'keep' if ok else 'no'}")
    if ok:
        choice = build.removeprefix("kiln_")
        break
print(choice)
