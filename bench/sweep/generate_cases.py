#!/usr/bin/env python3
"""Writes every sweep case (cases.py) as a kiln graph file, plus cases.json describing them.

    python3 bench/sweep/generate_cases.py OUT_DIR [--filter REGEX]
    python3 bench/sweep/generate_cases.py --list > bench/sweep/cases.txt

The graphs are generated at run time (run_sweep.py calls this module), not committed: some hold
2 GB inputs, and the text is cheap to write. bench/sweep/cases.txt, the list of case names, is
committed so that a change to the set shows in review.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from cases import all_cases  # noqa: E402


def write_cases(out: pathlib.Path, pattern: str | None = None) -> list[dict]:
    out.mkdir(parents=True, exist_ok=True)
    described = []
    for case in all_cases():
        if pattern and not re.search(pattern, case.name):
            continue
        path = out / f"{case.name}.textproto"
        path.write_text(case.textproto())
        described.append({"name": case.name, "class": case.cls, "dtype": case.dtype, "inputs": case.inputs,
                          "torch": case.torch_expr, "graph": str(path)})
    (out / "cases.json").write_text(json.dumps(described, indent=1) + "\n")
    return described


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", type=pathlib.Path)
    parser.add_argument("--filter", help="only cases whose name matches this regular expression")
    parser.add_argument("--list", action="store_true", help="print the case names, one a line")
    args = parser.parse_args()
    if args.list:
        for case in all_cases():
            if not args.filter or re.search(args.filter, case.name):
                print(case.name)
        return 0
    if args.out is None:
        parser.error("give OUT_DIR or --list")
    described = write_cases(args.out, args.filter)
    print(f"wrote {len(described)} graphs to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
