#!/usr/bin/env python3
"""Runs the memory-bound sweep (cases.py) on one GPU: kiln against PyTorch's built-in op and
torch.compile of the same function, in the same run, with kiln's output checked against torch's.

    python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out DIR [--filter REGEX] [--max-cases N]
        [--skip-done | --rerun-slower] [--jobs 14] [--budget-s 540] [--skip-compile] [--report-only]

The cases run in a round robin over the classes (schedule.py), so a run cut short still covers
every class, in chunks of two phases:
1. warm: --jobs worker processes compile the chunk's cases in parallel (warm.py): `kiln tune GRAPH`
   fills kiln's kernel cache, torch.compile fills Inductor's and Triton's (caches.py; --cache-dir).
2. time: one case at a time, nothing else on the GPU (case_run.py): `kiln run GRAPH --json
   --no-check --seed=1`, the built-in op and torch.compile (now a cache hit), timed with CUDA
   events, and kiln's outputs (as .npy in --io-dir, /dev/shm by default) checked against torch's
   on the same inputs: kiln's own draws, which torch makes again (kiln_inputs.py).
Fractions of copy use kiln's traffic model bytes for every variant and the copy ceiling kiln
measured in the same run.

The budget (--budget-s, 540 s by default: one GPU call is limited to 10 minutes) covers both
phases: a chunk is as many cases as the time left is predicted to hold (a cost model fitted to the
cases measured so far), and no case starts that is predicted to end after the budget; the run says
how many cases are left (rerun with --skip-done). Results accumulate in DIR/sweep.json, saved
every few seconds and at the end, so a run cut short keeps what it finished and later slices add
to it; each case records the kiln build that ran it, and `--rerun-slower` measures again the cases
held as failed or slower than the faster peer. Each run then rewrites DIR/sweep.md and
DIR/plots/<class>.svg (sweep_results.py), prints where its time went (phases, the timing phase's steps summed over its cases, and whether the
caches hit) and writes the same to DIR/phases.json. `--report-only` rewrites the report from
DIR/sweep.json alone. Needs PyTorch (with Triton for torch.compile) and numpy: it runs on the GPU
machine.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import math
import os
import pathlib
import shlex
import sys
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from caches import cache_env  # noqa: E402
from case_run import CaseSettings, prepare, remove_io, run_case  # noqa: E402
from cases import all_cases  # noqa: E402
from schedule import CostModel, PhaseClock, case_bytes, chunk_size, select  # noqa: E402
from sweep_results import load_results, save_results, write_report  # noqa: E402
from warm import WarmPool, WarmSettings  # noqa: E402

# sweep.json is rewritten at most this often while cases finish (it holds every case: about 1 MB).
SAVE_EVERY_S = 5.0
# The largest chunk, in cases per warm worker: larger chunks leave workers idle less often at the
# end of a warm phase, smaller ones let the cost model correct the chunk size sooner.
CHUNK_PER_JOB = 10


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", default="build/kiln", help="how to run kiln, as shell words")
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--filter", help="only cases whose name matches this regular expression")
    parser.add_argument("--max-cases", type=int, help="at most this many cases (the first in round-robin order)")
    parser.add_argument("--skip-done", action="store_true", help="leave out cases DIR/sweep.json already holds")
    parser.add_argument("--rerun-slower", action="store_true",
                        help="only the cases DIR/sweep.json holds as failed or slower than the faster peer, "
                             "measured again (after a change, or where an older build measured them)")
    parser.add_argument("--reps", type=int, default=30, help="timed repetitions of each variant")
    parser.add_argument("--check-max-elements", type=int, default=1 << 26,
                        help="compare with torch only where the largest input has at most this many elements")
    parser.add_argument("--skip-compile", action="store_true", help="leave torch.compile out (it compiles per shape)")
    parser.add_argument("--budget-s", type=float, default=540,
                        help="the run's wall time, warm and timing phases together (one GPU call is limited to "
                             "10 minutes)")
    parser.add_argument("--jobs", type=int, default=min(14, os.cpu_count() or 1),
                        help="warm-phase worker processes (0: no warm phase; every compile then happens, cold, "
                             "in the timing phase)")
    parser.add_argument("--warm-gpu-gb", type=float, default=64,
                        help="device memory the warm workers' tensors may hold at once")
    parser.add_argument("--cache-dir", type=pathlib.Path, default=pathlib.Path("/tmp/kiln-sweep-cache"),
                        help="kiln's, Inductor's and Triton's caches (unless KILN_CACHE_DIR, "
                             "TORCHINDUCTOR_CACHE_DIR or TRITON_CACHE_DIR name their own)")
    parser.add_argument("--io-dir", type=pathlib.Path,
                        help="where checked cases' tensors go as .npy (default /dev/shm/kiln-sweep-io, or "
                             "DIR/io without /dev/shm)")
    parser.add_argument("--report-only", action="store_true")
    return parser.parse_args(argv)


class Saver:
    """Saves sweep.json when SAVE_EVERY_S have passed since the last save, and when asked to."""

    def __init__(self, path: pathlib.Path, results: dict, now):
        self._path, self._results, self._now = path, results, now
        self._last = now()

    def maybe(self) -> None:
        if self._now() - self._last >= SAVE_EVERY_S:
            self.now()

    def now(self) -> None:
        save_results(self._path, self._results)
        self._last = self._now()


def slower_or_failed(results: dict) -> set[str]:
    """The names of the cases whose result is an error or slower than the faster peer."""
    return {name for name, r in results.items()
            if "kiln_us" not in r or r.get("kiln_speedup_vs_faster_peer", 1.0) < 1.0}


def summary_line(result: dict, seconds: float) -> str:
    if result.get("error"):
        return f"{result['error']} ({seconds:.1f} s)"
    return (f"kiln {result['kiln_us']:.1f} us, {result['kiln_fraction_of_copy']:.2f} of copy, "
            f"{result.get('kiln_speedup_vs_faster_peer', math.nan):.2f}x the faster peer ({seconds:.1f} s)")


class Background:
    """`fn()` on a thread of its own; finish() waits for it and gives its result, or what it raised."""

    def __init__(self, fn):
        self._out: list[str] = []

        def body():
            try:
                self._out.append(fn())
            except Exception as e:  # noqa: BLE001  (the timing phase then records each case's error)
                self._out.append(f"preparing the timing process failed: {type(e).__name__}: {e}")

        self._thread = threading.Thread(target=body, daemon=True)
        self._thread.start()

    def finish(self) -> str:
        self._thread.join()
        return self._out[0]


class Sweep:
    """The chunked warm-then-time loop over `cases`, within `budget_s` of wall time from its start.

    run_case(case) -> result, prepare() -> message (the timing process's one-time work, run beside
    the first warm phase) and the pool (WarmPool, or None for no warm phase) are given, so that the
    loop is tested without a GPU."""

    def __init__(self, *, run_case, pool, jobs: int, budget_s: float, results: dict, saver: Saver,
                 prepare=lambda: "", now=time.monotonic, log=lambda line: print(line, flush=True)):
        self._run_case, self._pool, self._jobs, self._prepare = run_case, pool, jobs, prepare
        self._budget, self._results, self._saver = budget_s, results, saver
        self._now, self._log = now, log
        self.phases = PhaseClock(now)       # warm, time
        self.warm_work = PhaseClock(now)    # worker seconds: kiln tune, torch.compile
        self.steps = PhaseClock(now)        # the timing phase's steps, summed over cases
        self.model = CostModel()
        self.caches: dict[str, int] = collections.Counter()
        self.inputs_from: dict[str, int] = collections.Counter()
        self.warm_errors: list[str] = []
        self.chunks = 0
        self.timed = 0
        self.left = 0

    def _seconds_left(self) -> float:
        return self._budget - (self._now() - self._start)

    def _warm(self, pending: list) -> list:
        """Warms the next chunk; returns the cases of it that are ready to time."""
        n = chunk_size(pending, self.model, self._seconds_left(), self._jobs, most=CHUNK_PER_JOB * self._jobs)
        if n == 0:
            return []
        chunk = pending[:n]
        predicted_timing = sum(self.model.predict("time", case_bytes(c)) for c in chunk)
        start = self._now()
        warmed = self._pool.warm(chunk, timeout_s=self._seconds_left() - predicted_timing)
        wall = self._now() - start
        self.phases.add("warm", wall)
        self.chunks += 1
        by_name = {w["name"]: w for w in warmed}
        ready = []
        for case in chunk:
            w = by_name[case.name]
            if "seconds" not in w:  # the warm phase's time ran out before this case
                continue
            ready.append(case)
            # Importing torch is once per worker, not per case.
            self.model.add("warm", case_bytes(case), w["seconds"] - w.get("import_s", 0.0))
            for step in ("kiln_s", "compile_s"):
                if step in w:
                    self.warm_work.add({"kiln_s": "kiln tune", "compile_s": "torch.compile"}[step], w[step])
            for key in ("error", "kiln_error", "compile_error"):
                if w.get(key):
                    self.warm_errors.append(f"{case.name}: {w[key]}")
        # A case the warm phase did not reach is no error: it waits for the next run.
        unreached = sum(1 for w in warmed if w.get("not_reached"))
        errors = sum(1 for w in warmed
                     if not w.get("not_reached") and any(w.get(k) for k in ("error", "kiln_error", "compile_error")))
        self._log(f"== warm chunk {self.chunks}: {len(ready)} of {n} cases warmed with {self._jobs} workers in "
                  f"{wall:.1f} s; {errors} with errors, {unreached} not reached in the time left")
        return ready

    def run(self, cases: list) -> None:
        self._start = self._now()
        pending = list(cases)
        preparing = Background(self._prepare)
        while pending:
            chunk = self._warm(pending) if self._pool else pending
            if not chunk:
                break
            if preparing:
                self._log(preparing.finish())
                preparing = None
            ran = self._time(chunk, total=len(cases))
            done = {c.name for c in chunk[:ran]}
            pending = [c for c in pending if c.name not in done]
            if ran < len(chunk):
                break
        self.left = len(pending)
        if preparing:
            preparing.finish()

    def _time(self, chunk: list, total: int) -> int:
        for i, case in enumerate(chunk):
            nbytes = case_bytes(case)
            if self.model.predict("time", nbytes) > self._seconds_left():
                return i
            start = self._now()
            try:
                result = self._run_case(case)
            except Exception as e:  # noqa: BLE001  (one case's failure is recorded; the rest still run)
                result = {"name": case.name, "class": case.cls, "dtype": case.dtype, "inputs": case.inputs,
                          "error": f"the runner failed: {type(e).__name__}: {e}"}
            seconds = self._now() - start
            self.phases.add("time", seconds)
            self.model.add("time", nbytes, seconds)
            for step, s in result.get("seconds", {}).items():
                self.steps.add(step, s)
            for key in ("compiles", "disk_hits"):
                self.caches[f"kiln.{key}"] += result.get("kiln_cache", {}).get(key, 0)
            for key, value in result.get("compile_cache", {}).items():
                self.caches[key] += value
            if "inputs_from" in result:
                self.inputs_from[result["inputs_from"]] += 1
            self._results[case.name] = result
            self._saver.maybe()
            self.timed += 1
            self._log(f"[{self.timed}/{total}] {case.name}: {summary_line(result, seconds)}")
        return len(chunk)

    def report(self) -> dict:
        total = self._now() - self._start
        return {"wall_s": total, "cases_timed": self.timed, "cases_left": self.left, "chunks": self.chunks,
                "jobs": self._jobs, "phases_s": dict(self.phases.seconds),
                "warm_worker_s": dict(self.warm_work.seconds), "timing_steps_s": dict(self.steps.seconds),
                "caches_while_timing": dict(self.caches), "checked_inputs_from": dict(self.inputs_from),
                "warm_errors": self.warm_errors,
                "cost_model": {p: self.model.coefficients(p) for p in ("warm", "time")}}


def report_lines(report: dict) -> list[str]:
    total = report["wall_s"]
    lines = [f"== where the {total:.1f} s went ({report['cases_timed']} cases timed, {report['chunks']} warm chunks, "
             f"{report['jobs']} warm workers)"]
    clock = PhaseClock()
    for name, seconds in report["phases_s"].items():
        clock.add(name, seconds)
    clock.add("other (startup, report)", max(0.0, total - sum(report["phases_s"].values())))
    lines += ["phases, wall:"] + clock.lines(total)
    for title, key in (("warm workers, summed over cases (divide by the workers for wall):", "warm_worker_s"),
                       ("timing phase steps, summed over cases:", "timing_steps_s")):
        clock = PhaseClock()
        for name, seconds in report[key].items():
            clock.add(name, seconds)
        if clock.seconds:
            lines += [title] + clock.lines()
    caches = report["caches_while_timing"]
    lines.append("caches while timing (after a warm phase, kiln.compiles and the misses should be 0): " +
                 (", ".join(f"{k} {v}" for k, v in sorted(caches.items())) or "none reported"))
    lines.append("checked cases' inputs (kiln's draws unless torch's did not match kiln eval's): " +
                 (", ".join(f"{k} {v}" for k, v in sorted(report["checked_inputs_from"].items())) or "none"))
    fixed, per_byte = report["cost_model"]["time"]
    lines.append(f"timing cost per case: {fixed:.2f} s + {per_byte * 1e9:.2f} s per GB of inputs")
    if report["warm_errors"]:
        lines.append(f"warm errors ({len(report['warm_errors'])}; the timing phase records each case's own): " +
                     "; ".join(report["warm_errors"][:5]))
    if report["cases_left"]:
        lines.append(f"budget spent: {report['cases_left']} cases left (rerun with --skip-done)")
    return lines


def main(argv=None, case_runner=run_case, case_preparer=prepare, make_pool=WarmPool, now=time.monotonic) -> int:
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    results_path = args.out / "sweep.json"
    results = load_results(results_path)
    if not args.report_only:
        os.environ.update(cache_env(args.cache_dir, os.environ))
        graphs = args.out / "graphs"
        graphs.mkdir(exist_ok=True)
        shm = pathlib.Path("/dev/shm")
        io = args.io_dir or (shm / "kiln-sweep-io" if shm.is_dir() else args.out / "io")
        io.mkdir(parents=True, exist_ok=True)
        remove_io(io)  # what a killed run left there (in /dev/shm it holds memory)
        kiln = shlex.split(args.kiln)
        cases = select(all_cases(), args.filter, set(results) if args.skip_done else set(), args.max_cases,
                       slower_or_failed(results) if args.rerun_slower else None)
        settings = CaseSettings(kiln=kiln, graphs=graphs, io=io, reps=args.reps,
                                check_max=args.check_max_elements, skip_compile=args.skip_compile)
        saver = Saver(results_path, results, now)
        with contextlib.ExitStack() as stack:
            pool = None
            if args.jobs > 0:
                warm_settings = WarmSettings(kiln=kiln, graphs=graphs, skip_compile=args.skip_compile)
                pool = stack.enter_context(make_pool(args.jobs, warm_settings, int(args.warm_gpu_gb * (1 << 30))))
            stack.callback(saver.now)  # what finished is kept, however the run ends
            sweep = Sweep(run_case=lambda case: case_runner(case, settings), pool=pool, jobs=args.jobs,
                          budget_s=args.budget_s, results=results, saver=saver,
                          prepare=lambda: case_preparer(settings), now=now)
            sweep.run(cases)
        report = sweep.report()
        (args.out / "phases.json").write_text(json.dumps(report, indent=1) + "\n")
        print("\n".join(report_lines(report)))
    write_report(args.out, results)
    print(f"wrote {args.out / 'sweep.json'}, {args.out / 'sweep.md'} and {args.out / 'plots'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
