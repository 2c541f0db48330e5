#!/usr/bin/env python3
"""Which sweep cases run different GPU code under two kiln builds, found without a GPU. Each build
dumps every case's plan (`kiln plan --dump`: each kernel's CUDA source and launch, and the device
library that build holds), and nvcc compiles each dumped kernel to PTX. A case whose kernels have
the same launches and the same PTX under both builds runs the same code, so what a sweep measured
with the old build stands; the others need measuring again. (A launch bound that `kiln run` tunes
is chosen at run time, from the same code, so it is not compared.)

    python3 bench/sweep/changed_cases.py --old OLD/kiln --new build/kiln > changed.txt
    python3 bench/sweep/changed_cases.py --old OLD/kiln --new build/kiln \\
        --keep OLD_SWEEP/sweep.json --seed NEW_SWEEP/sweep.json

With --keep and --seed it also writes, at the --seed path, the --keep sweep's entries of the cases
compared and found unchanged: a sweep started on it with --skip-done (run_sweep.py) measures only the
rest.

A sweep that several builds measured (each entry's `kiln_build`) takes --old-builds instead of --old:
a JSON object from those build strings to the shell words of a kiln built from the same code. Each
case is then compared against the build that measured its --keep entry; a case whose build the
object does not name, or that --keep does not hold, counts as changed.

    python3 bench/sweep/changed_cases.py --old-builds builds.json --new build/kiln \\
        --keep OLD_SWEEP/sweep.json --seed NEW_SWEEP/sweep.json
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from cases import all_cases  # noqa: E402

# What kiln's NVRTC compile targets (codegen); the same for both builds, so only the code differs.
NVCC_FLAGS = ["-ptx", "-arch=sm_90a", "-std=c++17", "-w"]


@functools.cache
def _nvcc() -> str:
    found = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.path.exists(found):
        raise SystemExit("changed_cases.py needs nvcc (the CUDA toolkit) on PATH")
    return found


def fingerprint(kiln: list[str], graph: pathlib.Path, work: pathlib.Path) -> str:
    """The launches and PTX of every kernel of `graph`'s fused plan under `kiln`, as one text; an
    error's text when kiln or nvcc fails, which then differs from any build that succeeds."""
    dump = subprocess.run([*kiln, "plan", str(graph), f"--dump={work}"], capture_output=True, text=True)
    if dump.returncode != 0:
        return f"kiln plan failed: {dump.stderr.strip()}"
    parts = []
    for source in sorted((work / "kernels").glob("*.cu")):
        launch = [line for line in source.read_text().splitlines() if line.startswith("// launch:")]
        ptx = subprocess.run([_nvcc(), *NVCC_FLAGS, "-o", "-", source.name], cwd=source.parent, capture_output=True,
                             text=True)
        if ptx.returncode != 0:
            return f"nvcc failed on {source.name}: {ptx.stderr.strip()}"
        # Comments carry the compiler's build and the file's name, not the code.
        code = [line for line in ptx.stdout.splitlines() if not line.lstrip().startswith("//")]
        parts.append("\n".join([source.name, *launch, *code]))
    return "\n".join(parts)


def changed_cases(old: list[str] | dict[str, list[str] | None], new: list[str], names: list[str],
                  jobs: int) -> list[str]:
    """The names among `names` whose fingerprint differs between the old build and the new, in their
    order. `old` is one build's shell words, or each name's own old build (None: not known, so the
    case counts as changed)."""
    cases = {case.name: case for case in all_cases()}
    unknown = [n for n in names if n not in cases]
    if unknown:
        raise SystemExit(f"not sweep cases (bench/sweep/cases.py): {', '.join(unknown)}")
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)

        def differs(name: str) -> bool:
            old_build = old.get(name) if isinstance(old, dict) else old
            if old_build is None:
                return True
            graph = root / f"{name}.textproto"
            graph.write_text(cases[name].textproto())
            return fingerprint(old_build, graph, root / "old" / name) != fingerprint(new, graph, root / "new" / name)

        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            flags = list(pool.map(differs, names))
    return [name for name, flag in zip(names, flags) if flag]


def old_builds_of(builds: pathlib.Path, keep: pathlib.Path) -> dict[str, list[str] | None]:
    """Each case of `keep`'s sweep to the shell words `builds` gives the build that measured it."""
    commands = json.loads(builds.read_text())
    return {entry["name"]: shlex.split(commands[entry.get("kiln_build")]) if entry.get("kiln_build") in commands
            else None for entry in json.loads(keep.read_text())["cases"]}


def write_seed(keep: pathlib.Path, seed: pathlib.Path, unchanged: set[str]) -> int:
    """Writes `keep`'s sweep.json with only the entries of `unchanged` to `seed`; returns how many."""
    held = json.loads(keep.read_text())
    held["cases"] = [entry for entry in held["cases"] if entry["name"] in unchanged]
    seed.parent.mkdir(parents=True, exist_ok=True)
    seed.write_text(json.dumps(held, indent=1) + "\n")
    return len(held["cases"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    olds = parser.add_mutually_exclusive_group(required=True)
    olds.add_argument("--old", help="the build a sweep measured, as shell words")
    olds.add_argument("--old-builds", type=pathlib.Path,
                      help="JSON: each kiln_build string of the --keep sweep to the shell words of that build")
    parser.add_argument("--new", required=True, help="the build to measure, as shell words")
    parser.add_argument("--filter", help="only cases whose name matches this regular expression")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--keep", type=pathlib.Path, help="the old build's sweep.json")
    parser.add_argument("--seed", type=pathlib.Path, help="where to write --keep without the changed cases")
    args = parser.parse_args()
    if (args.keep is None) != (args.seed is None):
        parser.error("--keep and --seed go together")
    if args.old_builds is not None and args.keep is None:
        parser.error("--old-builds needs --keep: its entries say which build measured each case")
    names = [c.name for c in all_cases() if not args.filter or re.search(args.filter, c.name)]
    old = shlex.split(args.old) if args.old is not None else old_builds_of(args.old_builds, args.keep)
    changed = changed_cases(old, shlex.split(args.new), names, args.jobs)
    for name in changed:
        print(name)
    print(f"{len(changed)} of {len(names)} cases run different code", file=sys.stderr)
    if args.keep is not None:
        kept = write_seed(args.keep, args.seed, set(names) - set(changed))
        print(f"{args.seed}: {kept} entries of {args.keep} kept", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
