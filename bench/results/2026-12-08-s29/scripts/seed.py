#!/usr/bin/env python3
"""Writes the sweep state a call starts from: an earlier sweep.json without the cases that the chosen
build runs with other code than the build that measured them (a list that
`bench/sweep/changed_cases.py --old-builds` printed), so that `run_sweep.py --skip-done` times only
those and the cases the earlier sweep lacks.

    python3 bench/results/2026-12-08-s29/scripts/seed.py \
        --changed bench/results/2026-12-08-s29/changed/h200_full.txt \
        --sweep bench/results/2026-12-04-h200-s15/sweep/sweep.json --out .gpu/state/h200.json
"""

import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "sweep"))
from changed_cases import write_seed  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--changed", type=pathlib.Path, required=True)
parser.add_argument("--sweep", type=pathlib.Path, required=True)
parser.add_argument("--out", type=pathlib.Path, required=True)
args = parser.parse_args()
changed = set(args.changed.read_text().split())
held = {entry["name"] for entry in json.loads(args.sweep.read_text())["cases"]}
print(f"{args.out}: {write_seed(args.sweep, args.out, held - changed)} of {len(held)} entries kept")
