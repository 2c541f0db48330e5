"""Times one sweep case on the GPU: kiln, PyTorch's built-in op and torch.compile of the same function,
with kiln's outputs checked against torch's on the same inputs. The caller runs one case at a time:
nothing else uses the GPU meanwhile.

    settings = CaseSettings(kiln=["build/kiln"], graphs=OUT / "graphs", io=pathlib.Path("/dev/shm/io"),
                            reps=30, check_max=1 << 26, skip_compile=False)
    result = run_case(case, settings)
    result["kiln_us"], result.get("compile_us"), result["seconds"]   # seconds: wall time per step

Steps (result["seconds"] has each): "inputs" (on the GPU: for a checked case exactly the inputs kiln
draws itself with --seed=1, kiln_inputs.py, or, should torch's draws not match `kiln eval`'s,
seeded torch tensors passed to kiln as .npy in the io folder, /dev/shm by default), "kiln run" (one
`kiln run GRAPH --json --no-check` process: plans, loads its kernels from the disk cache the warm
phase filled, measures the copy ceiling and a copy of the case's own bytes, runs and times, and
saves a checked case's outputs as .npy in the io folder), "check" (kiln's saved outputs against the
torch function's), "builtin" (the eager op's CUDA-event median), "compile" (torch.compile's first
call: a cache hit after the warm phase), "compile timing". Inputs over check_max elements are timed,
not checked: torch and kiln then each make their own and no tensor goes through files. Relative L2 error at
most 1e-4 for f32 and 2e-2 for bf16/f16.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import pathlib
import shlex
import subprocess
import time

from schedule import PhaseClock
from warm import last_line, write_graph

TOLERANCE = {"f32": 1e-4, "bf16": 2e-2, "f16": 2e-2}
# A kiln run that takes longer is stuck (the largest case takes about 10 s).
KILN_TIMEOUT_S = 180
# Device memory torch may keep cached between cases; above it the cache is emptied for kiln's sake.
TORCH_CACHE_BYTES = 16 << 30


@dataclasses.dataclass(frozen=True)
class CaseSettings:
    kiln: list[str]
    graphs: pathlib.Path
    io: pathlib.Path
    reps: int
    check_max: int
    skip_compile: bool


def remove_io(io: pathlib.Path, name: str = "*") -> None:
    """Deletes the .npy files of case `name` (every case's, by default) from the io folder, and the
    output folders they leave empty."""
    for path in list(io.glob(f"{name}.*.npy")) + list(io.glob(f"{name}.out/*.npy")):
        path.unlink()
    for folder in io.glob(f"{name}.out"):
        if not any(folder.iterdir()):
            folder.rmdir()


def relative_error(got, want) -> float:
    import torch
    got, want = got.double(), want.double()
    if not torch.isfinite(got).all():
        return math.inf
    norm = torch.linalg.vector_norm(want).item()
    diff = torch.linalg.vector_norm(got - want).item()
    return diff / norm if norm > 0 else diff


def _kiln(case, settings: CaseSettings, files_of, out_dir, result: dict, steps: PhaseClock):
    """Runs kiln: on its own draws with --seed=1, or on `files_of` (tensors to pass as .npy) unless
    that is None; with its outputs saved to `out_dir` unless that is None. Returns its JSON report,
    or None with result["error"] set."""
    import numpy as np
    graph = write_graph(case, settings.graphs)
    cmd = settings.kiln + ["run", str(graph), "--json", "--no-check", f"--iters={settings.reps}", "--seed=1"]
    if files_of is not None:
        with steps.phase("inputs"):
            files = []
            for name, t in zip(case.inputs, files_of):
                path = settings.io / f"{case.name}.{name}.npy"
                # NumPy has no bf16: its values go as float32 (exactly) and kiln narrows them back.
                np.save(path, (t.float() if case.dtype == "bf16" else t).cpu().numpy())
                files.append(f"{name}={path}")
        cmd.append("--inputs=" + ",".join(files))
    if out_dir is not None:
        cmd.append(f"--save-outputs={out_dir}")
    result["command"] = " ".join(shlex.quote(c) for c in cmd)
    with steps.phase("kiln run"):
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=KILN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            result["error"] = f"kiln run took over {KILN_TIMEOUT_S} s"
            return None
    if proc.returncode != 0:
        result["error"] = last_line(proc.stderr, "kiln failed with no message")
        return None
    return json.loads(proc.stdout)


def _time_compiled(fn, args, reps: int, result: dict, steps: PhaseClock) -> None:
    import torch
    from cuda_timing import median_us
    from torch_case import counter_change, inductor_cache_counters
    torch._dynamo.reset()  # every case is a new shape: keep the recompile limit out of the way
    compiled = torch.compile(fn)
    before = inductor_cache_counters()
    try:
        with steps.phase("compile"):
            compiled(*args)
            torch.cuda.synchronize()
        result["compile_cache"] = counter_change(before, inductor_cache_counters())
        with steps.phase("compile timing"):
            result["compile_us"] = median_us(lambda: compiled(*args), reps)
    except Exception as e:  # noqa: BLE001  (a peer failing is a finding, not a crash)
        result["compile_error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"


def _fractions(result: dict) -> None:
    copy_bps = result["copy_gbps"] * 1e9
    for variant in ("kiln", "builtin", "compile"):
        us = result.get(f"{variant}_us")
        if us:
            result[f"{variant}_fraction_of_copy"] = result["bytes"] / (us * 1e-6) / copy_bps
    if result.get("same_size_copy_gbps"):
        # How near kiln comes to a copy moving its bytes, the reference for a case of this size (a
        # reduction, which mostly reads, can pass it).
        result["kiln_fraction_of_same_size_copy"] = result["bytes"] / (result["kiln_us"] * 1e-6) / (
            result["same_size_copy_gbps"] * 1e9)
    peers = [result[k] for k in ("builtin_us", "compile_us") if result.get(k)]
    if peers:
        result["faster_peer_us"] = min(peers)
        result["kiln_speedup_vs_faster_peer"] = min(peers) / result["kiln_us"]


def prepare(settings: CaseSettings) -> str:
    """The timing process's one-time work, done before its first case (while the first warm phase
    runs): imports torch, starts CUDA, and checks kiln_inputs against `kiln eval`. Says what it found."""
    start = time.monotonic()
    import torch
    from torch_case import kiln_draws_differ
    importlib.import_module("cuda_timing")  # here, not inside the first timed case
    torch.cuda.init()
    differ = kiln_draws_differ(tuple(settings.kiln), str(settings.io))
    inputs = f"checked cases' inputs go as .npy files: {differ}" if differ else \
        "checked cases run on kiln's own draws (torch's match kiln eval's)"
    return f"timing process ready in {time.monotonic() - start:.1f} s; {inputs}"


def run_case(case, settings: CaseSettings) -> dict:
    import numpy as np
    import torch
    from cuda_timing import median_us
    from torch_case import kiln_draws_differ, kiln_inputs, random_inputs, torch_function

    steps = PhaseClock()
    result = {"name": case.name, "class": case.cls, "dtype": case.dtype, "inputs": case.inputs,
              "seconds": steps.seconds}
    check = max(math.prod(shape) for shape in case.inputs.values()) <= settings.check_max
    with steps.phase("inputs"):
        # A checked case's inputs: kiln's own draws, made again by torch, unless they cannot be.
        differ = kiln_draws_differ(tuple(settings.kiln), str(settings.io)) if check else ""
        tensors = kiln_inputs(case) if check and not differ else random_inputs(case)
    if check:
        result["inputs_from"] = f".npy files ({differ})" if differ else "kiln's draws"
    out_dir = settings.io / f"{case.name}.out"
    try:
        report = _kiln(case, settings, tensors if differ else None, out_dir if check else None, result, steps)
        if report is None:
            return result
        total = report["total"]
        result.update({
            "gpu": report["gpu"],
            "copy_gbps": report["copy_gbps"],
            "same_size_copy_gbps": report["same_size_copy_gbps"],
            "bytes": total["bytes"],
            "kernels": len(report["kernels"]),
            "strategy": " + ".join(k["strategy"] for k in report["kernels"]) or "no kernel",
            "kiln_us": total["us"],
            "host_us_per_run": report["host_us_per_run"],
            "run_launch": report.get("run_launch", ""),
            "kiln_compile_ms": report.get("compile_ms"),
            "kiln_cache": report.get("cache", {}),
            "kiln_build": report.get("kiln", ""),
            # What compiling decided beyond the plan, such as a tuned launch bound.
            "kiln_compile_notes": [k["compile_note"] for k in report["kernels"] if k.get("compile_note")],
        })
        fn = torch_function(case)
        if check:
            with steps.phase("check"):
                want = fn(*tensors)
                got = torch.from_numpy(np.load(out_dir / "y.npy")).to("cuda")
                error = relative_error(got.reshape(want.shape), want.float())
                result["error_vs_torch"] = error
                result["check_passed"] = error <= TOLERANCE[case.dtype]
                del want, got
        with steps.phase("builtin"):
            result["builtin_us"] = median_us(lambda: fn(*tensors), settings.reps)
        if not settings.skip_compile:
            _time_compiled(fn, tensors, settings.reps, result, steps)
        _fractions(result)
        return result
    finally:
        with steps.phase("check"):
            remove_io(settings.io, case.name)
            tensors.clear()  # the device memory goes back before the next case
            if torch.cuda.memory_reserved() > TORCH_CACHE_BYTES:
                torch.cuda.empty_cache()
