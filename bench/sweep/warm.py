"""The warm phase: before any case is timed, worker processes compile the cases in parallel, so that
the serial timing phase finds every compile on disk (caches.py says where).

    settings = WarmSettings(kiln=["build/kiln"], graphs=pathlib.Path("OUT/graphs"), skip_compile=False)
    with WarmPool(jobs=14, settings=settings, gpu_bytes=64 << 30) as pool:
        for result in pool.warm(cases, timeout_s=200.0):
            result["name"], result["seconds"], result.get("error")

Each case: `kiln tune GRAPH`, which plans for the GPU and compiles the kernels with NVRTC into
kiln's disk cache and, the sweep's graphs having no matmul, times nothing; then, unless
skip_compile, torch.compile of the case's function called once on unwritten tensors of the
inputs' shapes (Inductor compiles, Triton compiles and benchmarks its reduction configs; all of
it lands in the cache). The first call runs the kernels, so this phase never overlaps the timing
phase. The workers' device memory is bounded by GpuMemoryGate. A worker that dies, or a case still
compiling at the timeout, costs that case its warm-up (the timing phase then compiles it cold),
never a hang.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import multiprocessing
import os
import pathlib
import subprocess
import time

from schedule import case_bytes

# A kiln compile that takes longer is stuck: the timing phase will report what kiln run says.
KILN_TIMEOUT_S = 120


@dataclasses.dataclass(frozen=True)
class WarmSettings:
    kiln: list[str]
    graphs: pathlib.Path
    skip_compile: bool
    work: object = None  # the per-case function, warm_case unless a test gives its own


class GpuMemoryGate:
    """At most `capacity` bytes of device memory held by the warm workers at once, shared between
    processes; a case larger than that waits until it can run alone."""

    def __init__(self, context, capacity: int):
        self.capacity = capacity
        self._condition = context.Condition()
        self._used = context.RawValue("q", 0)

    def used(self) -> int:
        return self._used.value

    @contextlib.contextmanager
    def hold(self, nbytes: int):
        n = min(nbytes, self.capacity)
        with self._condition:
            while self._used.value and self._used.value + n > self.capacity:
                self._condition.wait()
            self._used.value += n
        try:
            yield
        finally:
            with self._condition:
                self._used.value -= n
                self._condition.notify_all()


def write_graph(case, graphs: pathlib.Path) -> pathlib.Path:
    path = graphs / f"{case.name}.textproto"
    path.write_text(case.textproto())
    return path


def last_line(text: str, fallback: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else fallback


def warm_case(case, settings: WarmSettings, gate: GpuMemoryGate) -> dict:
    """Compiles one case for kiln and, unless skip_compile, for torch.compile."""
    out = {}
    graph = write_graph(case, settings.graphs)
    start = time.monotonic()
    try:
        proc = subprocess.run(settings.kiln + ["tune", str(graph)], capture_output=True, text=True,
                              timeout=KILN_TIMEOUT_S)
        if proc.returncode != 0:
            out["kiln_error"] = last_line(proc.stderr, "kiln tune failed with no message")
    except subprocess.TimeoutExpired:
        out["kiln_error"] = f"kiln tune took over {KILN_TIMEOUT_S} s"
    out["kiln_s"] = time.monotonic() - start
    if settings.skip_compile:
        return out
    start = time.monotonic()
    import torch
    from torch_case import empty_inputs, torch_function
    out["import_s"] = time.monotonic() - start  # a worker's first case pays for importing torch
    # The inputs and an output of about the largest input's size.
    with gate.hold(case_bytes(case) + case.largest_bytes()):
        start = time.monotonic()
        try:
            torch._dynamo.reset()
            args = empty_inputs(case)
            torch.compile(torch_function(case))(*args)
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001  (the timing phase records the peer's failure)
            out["compile_error"] = f"{type(e).__name__}: {last_line(str(e), '')}"
        finally:
            args = None
            torch.cuda.empty_cache()  # an idle worker keeps no device memory from the timing phase
        out["compile_s"] = time.monotonic() - start
    return out


_settings: WarmSettings | None = None
_gate: GpuMemoryGate | None = None


def _start_worker(settings: WarmSettings, gate: GpuMemoryGate) -> None:
    global _settings, _gate
    _settings, _gate = settings, gate
    # The workers already compile side by side; Inductor's own pool of compile processes in each would
    # oversubscribe the CPUs, and those pools' semaphores outlive the workers (the run's "leaked
    # semaphore objects" warning at exit). Set before torch is imported, which reads it once.
    os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"


def _warm_one(case) -> dict:
    start = time.monotonic()
    try:
        out = (_settings.work or warm_case)(case, _settings, _gate)
    except Exception as e:  # noqa: BLE001  (one case's failure is its own)
        out = {"error": f"{type(e).__name__}: {e}"}
    out.update(name=case.name, seconds=time.monotonic() - start)
    return out


class WarmPool:
    """`jobs` worker processes (spawned: CUDA does not survive a fork), kept for the whole run so
    that torch is imported once per worker."""

    def __init__(self, jobs: int, settings: WarmSettings, gpu_bytes: int):
        self._jobs = jobs
        self._settings = settings
        self._context = multiprocessing.get_context("spawn")
        self._gate = GpuMemoryGate(self._context, gpu_bytes)
        self._executor = None

    def __enter__(self) -> "WarmPool":
        return self

    def __exit__(self, *exc) -> None:
        self._stop()

    def _start(self):
        if self._executor is None:
            self._executor = concurrent.futures.ProcessPoolExecutor(
                self._jobs, mp_context=self._context, initializer=_start_worker,
                initargs=(self._settings, self._gate))
        return self._executor

    def _stop(self) -> None:
        if self._executor is None:
            return
        # Workers still compiling (a timeout) are ended by their own ids; idle ones exit on shutdown.
        for process in list(getattr(self._executor, "_processes", {}).values()):
            if process.is_alive():
                process.terminate()
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._executor = None

    def warm(self, cases, timeout_s: float) -> list[dict]:
        """Warms `cases`, returning one result per case (finished or not) within about `timeout_s`."""
        executor = self._start()
        futures = {executor.submit(_warm_one, case): case for case in cases}
        done, not_done = concurrent.futures.wait(futures, timeout=max(0.0, timeout_s))
        results = []
        for future in done:
            try:
                results.append(future.result())
            except concurrent.futures.process.BrokenProcessPool:
                results.append({"name": futures[future].name, "error": "a warm worker died"})
        for future in not_done:
            results.append({"name": futures[future].name, "error": "not warmed: the warm phase's time ran out",
                            "not_reached": True})
        if not_done or any(r.get("error") == "a warm worker died" for r in results):
            self._stop()  # a fresh pool for the next chunk
        return results
