#!/usr/bin/env python3
"""Tests of the sweep runner's logic without a GPU or torch: which cases run in which order, how the
budget is spent, the warm pool's processes, the result files, and the whole run with the GPU parts
faked (a fake clock, a fake case runner, a fake warm pool).

    python3 bench/sweep/test_sweep.py        (standard library only; ctest runs it)
"""

from __future__ import annotations

import array
import collections
import contextlib
import io
import json
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import run_sweep  # noqa: E402
from caches import cache_env  # noqa: E402
from case_run import _fractions, remove_io  # noqa: E402
from changed_cases import changed_cases, old_builds_of, write_seed  # noqa: E402
from cases import all_cases  # noqa: E402
from kiln_inputs import FORMATS, SelfCheckGraph, kiln_values, round_to_format  # noqa: E402
import profile_misses  # noqa: E402
from resources import collect as collect_resources  # noqa: E402
from resources import markdown as resources_markdown  # noqa: E402
from schedule import CostModel, PhaseClock, case_bytes, chunk_size, round_robin, select  # noqa: E402
from sweep_results import load_results, save_results, write_report  # noqa: E402
from targets import targets_markdown  # noqa: E402
from warm import WarmPool, WarmSettings, warm_case  # noqa: E402

CASES = all_cases()
CLASSES = {"pointwise", "row", "axis_reduction", "transpose"}
KILN = pathlib.Path(os.environ.get("KILN", HERE.parents[1] / "build" / "kiln"))


class FakeClock:
    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def fake_result(case, kiln_us=100.0) -> dict:
    result = {"name": case.name, "class": case.cls, "dtype": case.dtype, "inputs": case.inputs, "gpu": "Fake GPU",
              "copy_gbps": 4000.0, "same_size_copy_gbps": 3600.0, "bytes": 2 * case_bytes(case), "kernels": 1,
              "strategy": "vectorized tiles x4",
              "kiln_us": kiln_us, "builtin_us": 1.5 * kiln_us, "compile_us": 1.2 * kiln_us,
              "seconds": {"inputs": 0.1, "kiln run": 0.4, "compile": 0.05},
              "kiln_cache": {"compiles": 0, "disk_hits": 1}, "compile_cache": {"inductor.fxgraph_cache_hit": 1},
              "inputs_from": "kiln's draws", "kiln_build": "0.1.0 (git fake)"}
    _fractions(result)
    return result


class FakeRunner:
    """run_case that takes 0.5 s plus 2 s per GB of inputs on the fake clock."""

    def __init__(self, clock: FakeClock):
        self.clock = clock
        self.ends: list[float] = []
        self.ran: list[str] = []

    def __call__(self, case, settings=None) -> dict:
        self.clock.t += 0.5 + 2e-9 * case_bytes(case)
        self.ends.append(self.clock.t)
        self.ran.append(case.name)
        return fake_result(case)


class FakePool:
    """A warm pool on the fake clock: each case costs 2 s of worker time; `stuck` names never finish."""

    def __init__(self, clock: FakeClock, jobs: int, stuck=()):
        self.clock, self.jobs, self.stuck = clock, jobs, set(stuck)
        self.chunks: list[list[str]] = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def warm(self, cases, timeout_s):
        self.chunks.append([c.name for c in cases])
        self.clock.t += 2.0 * len(cases) / self.jobs
        return [{"name": c.name, "error": "not warmed", "not_reached": True} if c.name in self.stuck else
                {"name": c.name, "seconds": 2.0, "kiln_s": 0.5, "compile_s": 1.5, "import_s": 0.5} for c in cases]


class NullSaver:
    def __init__(self):
        self.saves = 0

    def maybe(self):
        return None

    def now(self):
        self.saves += 1


class SelectionTest(unittest.TestCase):
    def test_round_robin_is_a_permutation(self):
        ordered = round_robin(CASES)
        self.assertEqual(sorted(c.name for c in ordered), sorted(c.name for c in CASES))

    def test_every_prefix_covers_every_class_in_proportion(self):
        ordered = round_robin(CASES)
        self.assertEqual({c.cls for c in ordered[:4]}, CLASSES)
        totals = collections.Counter(c.cls for c in CASES)
        for n in (20, 100, 333, 600):
            seen = collections.Counter(c.cls for c in ordered[:n])
            for cls, total in totals.items():
                # Off by at most one of its own and one for each tie between classes' positions.
                self.assertLessEqual(abs(seen[cls] - n * total / len(CASES)), 2.0, (n, cls))

    def test_a_prefix_spreads_over_the_dtypes(self):
        ordered = round_robin(CASES)
        for cls in CLASSES:
            first = [c for c in ordered if c.cls == cls][:6]
            self.assertEqual({c.dtype for c in first}, {"f32", "bf16", "f16"}, cls)

    def test_select_filters_skips_done_and_caps(self):
        done = {"softmax_1000x32768_f32"}
        chosen = select(CASES, "^softmax_", done, None)
        self.assertTrue(chosen and all(c.name.startswith("softmax_") for c in chosen))
        self.assertIn("softmax_1000x32768_f32", {c.name for c in CASES})
        self.assertNotIn("softmax_1000x32768_f32", {c.name for c in chosen})
        self.assertEqual(len(chosen), sum(1 for c in CASES if c.name.startswith("softmax_")) - 1)
        self.assertEqual([c.name for c in select(CASES, "^softmax_", done, 3)], [c.name for c in chosen[:3]])
        only = {"softmax_1000x32768_f32", chosen[0].name, "sum_1x128_f32"}
        self.assertEqual([c.name for c in select(CASES, "^softmax_", done, None, only)], [chosen[0].name])

    def test_case_bytes_counts_every_input(self):
        case = next(c for c in CASES if c.name == "layernorm_65536x1024_bf16")
        self.assertEqual(case_bytes(case), (65536 * 1024 + 2 * 1024) * 2)

    def test_generated_list_is_the_committed_one(self):
        listed = subprocess.run([sys.executable, str(HERE / "generate_cases.py"), "--list"], capture_output=True,
                                text=True, check=True).stdout
        self.assertEqual(listed, (HERE / "cases.txt").read_text())


class CostModelTest(unittest.TestCase):
    def test_defaults_before_any_case(self):
        model = CostModel({"warm": (4.0, 0.0), "time": (0.5, 1e-9)})
        self.assertAlmostEqual(model.predict("time", 2_000_000_000), 2.5)

    def test_fits_a_line(self):
        model = CostModel()
        for nbytes in (0, 1_000_000_000, 3_000_000_000):
            model.add("time", nbytes, 0.3 + 2e-9 * nbytes)
        fixed, per_byte = model.coefficients("time")
        self.assertAlmostEqual(fixed, 0.3)
        self.assertAlmostEqual(per_byte * 1e9, 2.0)

    def test_one_size_keeps_the_default_slope(self):
        model = CostModel({"warm": (4.0, 0.0), "time": (0.5, 1e-9)})
        model.add("time", 1_000_000_000, 3.0)
        model.add("time", 1_000_000_000, 5.0)
        self.assertAlmostEqual(model.predict("time", 1_000_000_000), 4.0)

    def test_never_predicts_less_with_more_bytes(self):
        model = CostModel()
        model.add("time", 0, 2.0)
        model.add("time", 1_000_000_000, 1.0)
        self.assertEqual(model.coefficients("time"), (1.5, 0.0))


class ChunkSizeTest(unittest.TestCase):
    def setUp(self):
        small = [c for c in CASES if case_bytes(c) < 1 << 20]
        self.cases = small[:50]
        self.model = CostModel({"warm": (4.0, 0.0), "time": (1.0, 0.0)})

    def test_holds_what_fits(self):
        # Each case: 4 s of warm work over 4 workers (1 s) plus 1 s of timing.
        self.assertEqual(chunk_size(self.cases, self.model, seconds_left=20.5, jobs=4, most=100), 10)

    def test_respects_the_cap(self):
        self.assertEqual(chunk_size(self.cases, self.model, seconds_left=1000, jobs=4, most=7), 7)

    def test_the_longest_warm_case_bounds_a_wide_pool(self):
        # With 100 workers the warm phase still takes one case's 4 s.
        self.assertEqual(chunk_size(self.cases, self.model, seconds_left=10, jobs=100, most=100), 6)

    def test_nothing_when_one_case_does_not_fit(self):
        self.assertEqual(chunk_size(self.cases, self.model, seconds_left=1.5, jobs=4, most=100), 0)


class PhaseClockTest(unittest.TestCase):
    def test_sums_phases_and_prints_shares(self):
        clock = FakeClock()
        phases = PhaseClock(clock)
        with phases.phase("kiln run"):
            clock.t += 3.0
        with phases.phase("check"):
            clock.t += 1.0
        with phases.phase("kiln run"):
            clock.t += 1.0
        self.assertEqual(dict(phases.seconds), {"kiln run": 4.0, "check": 1.0})
        self.assertEqual(phases.lines(total=10.0), ["  kiln run       4.0 s   40.0%", "  check          1.0 s   10.0%"])


class CacheEnvTest(unittest.TestCase):
    def test_directories_under_the_root_unless_named(self):
        env = cache_env(pathlib.Path("/c"), {"TRITON_CACHE_DIR": "/mine"})
        self.assertEqual(env["KILN_CACHE_DIR"], "/c/kiln")
        self.assertEqual(env["TORCHINDUCTOR_CACHE_DIR"], "/c/inductor")
        self.assertEqual(env["TRITON_CACHE_DIR"], "/mine")
        self.assertEqual(env["TORCHINDUCTOR_FX_GRAPH_CACHE"], "1")
        self.assertEqual(env["TORCHINDUCTOR_AUTOGRAD_CACHE"], "1")
        self.assertEqual(env["TORCHINDUCTOR_COMPILE_THREADS"], "1")


class SweepLoopTest(unittest.TestCase):
    def sweep(self, budget_s, jobs=4, stuck=(), log=None):
        clock = FakeClock()
        runner = FakeRunner(clock)
        pool = FakePool(clock, jobs, stuck) if jobs else None
        results = {}
        sweep = run_sweep.Sweep(run_case=runner, pool=pool, jobs=jobs, budget_s=budget_s, results=results,
                                saver=NullSaver(), now=clock, log=log or (lambda line: None))
        return sweep, runner, pool, results, clock

    def test_times_every_case_when_the_budget_holds_them(self):
        cases = select(CASES, "^transpose", set(), None)
        sweep, runner, pool, results, _ = self.sweep(budget_s=10_000)
        sweep.run(cases)
        self.assertEqual(runner.ran, [c.name for c in cases])
        self.assertEqual(set(results), {c.name for c in cases})
        self.assertEqual(sum(len(c) for c in pool.chunks), len(cases))
        report = sweep.report()
        self.assertEqual((report["cases_timed"], report["cases_left"]), (len(cases), 0))
        self.assertEqual(report["caches_while_timing"]["kiln.compiles"], 0)
        self.assertEqual(report["caches_while_timing"]["inductor.fxgraph_cache_hit"], len(cases))
        self.assertAlmostEqual(report["timing_steps_s"]["kiln run"], 0.4 * len(cases))
        self.assertEqual(report["checked_inputs_from"], {"kiln's draws": len(cases)})

    def test_a_cut_run_ends_within_the_budget_and_covers_every_class(self):
        cases = select(CASES, None, set(), None)
        sweep, runner, pool, results, clock = self.sweep(budget_s=120)
        sweep.run(cases)
        self.assertLessEqual(clock.t, 120)
        self.assertGreater(len(runner.ran), 40)
        self.assertEqual({results[n]["class"] for n in runner.ran}, CLASSES)
        self.assertEqual(sweep.left, len(cases) - len(runner.ran))
        self.assertGreater(len(pool.chunks), 1)  # later chunks sized from what was measured
        self.assertEqual(sweep.model.coefficients("warm"), (1.5, 0.0))  # torch's import left out

    def test_no_warm_phase_times_within_the_budget(self):
        cases = select(CASES, None, set(), None)
        sweep, runner, _, _, clock = self.sweep(budget_s=30, jobs=0)
        sweep.run(cases)
        self.assertLessEqual(clock.t, 30)
        self.assertEqual(sweep.left, len(cases) - len(runner.ran))
        self.assertEqual(sweep.chunks, 0)

    def test_cases_the_warm_phase_did_not_finish_are_left(self):
        cases = select(CASES, "^max_axis", set(), 8)
        stuck = {cases[2].name, cases[5].name}
        lines = []
        sweep, runner, _, _, _ = self.sweep(budget_s=10_000, stuck=stuck, log=lines.append)
        sweep.run(cases)
        self.assertEqual(runner.ran, [c.name for c in cases if c.name not in stuck])
        self.assertEqual(sweep.left, 2)
        # Cases left for the next run are counted as such, not as errors.
        self.assertIn("6 of 8 cases warmed with 4 workers in 4.0 s; 0 with errors, 2 not reached in the time left",
                      lines[0])

    def test_a_case_whose_runner_raises_is_recorded_and_the_rest_run(self):
        cases = select(CASES, "^transpose", set(), 5)
        sweep, runner, _, results, _ = self.sweep(budget_s=10_000)

        def flaky(case):
            if case.name == cases[1].name:
                raise RuntimeError("CUDA out of memory")
            return runner(case)

        sweep._run_case = flaky
        sweep.run(cases)
        self.assertEqual(results[cases[1].name]["error"], "the runner failed: RuntimeError: CUDA out of memory")
        self.assertEqual(len(results), 5)

    def test_the_timing_process_is_prepared_beside_the_first_warm_phase(self):
        cases = select(CASES, "^transpose", set(), 3)
        clock = FakeClock()
        runner = FakeRunner(clock)
        lines, seen = [], []

        def prepare():
            seen.append(list(runner.ran))
            return "ready"

        sweep = run_sweep.Sweep(run_case=runner, pool=FakePool(clock, 2), jobs=2, budget_s=1000, results={},
                                saver=NullSaver(), prepare=prepare, now=clock, log=lines.append)
        sweep.run(cases)
        self.assertEqual(seen, [[]])  # before any case
        self.assertEqual(lines[1], "ready")  # after the first warm chunk's line, before the cases'

    def test_a_failing_preparation_is_said_and_the_cases_still_run(self):
        def prepare():
            raise RuntimeError("no CUDA")

        lines = []
        clock = FakeClock()
        runner = FakeRunner(clock)
        sweep = run_sweep.Sweep(run_case=runner, pool=None, jobs=0, budget_s=1000, results={}, saver=NullSaver(),
                                prepare=prepare, now=clock, log=lines.append)
        sweep.run(select(CASES, "^transpose", set(), 2))
        self.assertEqual(lines[0], "preparing the timing process failed: RuntimeError: no CUDA")
        self.assertEqual(len(runner.ran), 2)

    def test_report_lines_name_the_phases_and_what_is_left(self):
        sweep, _, _, _, _ = self.sweep(budget_s=60)
        sweep.run(select(CASES, None, set(), None))
        text = "\n".join(run_sweep.report_lines(sweep.report()))
        for needle in ("phases, wall:", "warm", "time", "kiln run", "kiln tune", "torch.compile", "kiln.compiles 0",
                       "kiln's draws",
                       "cases left (rerun with --skip-done)"):
            self.assertIn(needle, text)


def _fake_work(case, settings, gate):
    if case.name.startswith("max_"):
        raise ValueError("no max today")
    with gate.hold(case_bytes(case) if case.dtype != "f16" else 10 * gate.capacity):
        used = gate.used()
        time.sleep(0.05)
    return {"used": used, "pid": os.getpid()}


def _crashing_work(case, settings, gate):
    if case.name == settings.graphs.name:
        os._exit(3)
    return {}


def _slow_work(case, settings, gate):
    time.sleep(30)
    return {}


class WarmPoolTest(unittest.TestCase):
    def settings(self, work, graphs="g"):
        return WarmSettings(kiln=["kiln"], graphs=pathlib.Path(graphs), skip_compile=True, work=work)

    def test_warms_every_case_in_parallel_within_the_memory_gate(self):
        cases = select(CASES, "^(sum|max)_axis", set(), 16)
        capacity = 3 * max(case_bytes(c) for c in cases)
        with WarmPool(3, self.settings(_fake_work), capacity) as pool:
            results = {r["name"]: r for r in pool.warm(cases, timeout_s=60)}
        self.assertEqual(set(results), {c.name for c in cases})
        for case in cases:
            r = results[case.name]
            self.assertIn("seconds", r)
            if case.name.startswith("max_"):
                self.assertEqual(r["error"], "ValueError: no max today")
            elif case.dtype == "f16":
                self.assertEqual(r["used"], capacity)  # too large for the gate: it ran alone
            else:
                self.assertLessEqual(r["used"], capacity)
        self.assertGreater(len({r["pid"] for r in results.values() if "pid" in r}), 1)

    def test_a_dying_worker_costs_its_case_not_the_run(self):
        cases = select(CASES, "^transpose", set(), 6)
        with WarmPool(2, self.settings(_crashing_work, graphs=cases[1].name), 1 << 30) as pool:
            results = {r["name"]: r for r in pool.warm(cases, timeout_s=60)}
            self.assertEqual(results[cases[1].name]["error"], "a warm worker died")
            again = pool.warm(cases[2:4], timeout_s=60)  # a fresh pool takes over
        self.assertEqual(len(results), len(cases))
        self.assertTrue(all("seconds" in r for r in again))

    def test_the_timeout_returns_what_finished(self):
        cases = select(CASES, "^transpose", set(), 2)
        start = time.monotonic()
        with WarmPool(2, self.settings(_slow_work), 1 << 30) as pool:
            results = pool.warm(cases, timeout_s=1.0)
        self.assertLess(time.monotonic() - start, 20)
        self.assertTrue(all(r["error"].startswith("not warmed") for r in results))


class WarmCaseTest(unittest.TestCase):
    # A stand-in for kiln: `tune GRAPH` fails, naming the node, for graphs of a max.
    FAKE_KILN = [sys.executable, "-c", "import sys; g = open(sys.argv[2]).read(); "
                 "sys.exit('node y (reduce_max): no' if 'reduce_max' in g else 0)"]

    def test_writes_the_graph_runs_kiln_tune_and_keeps_its_last_error_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            settings = WarmSettings(kiln=self.FAKE_KILN, graphs=pathlib.Path(tmp), skip_compile=True)
            for case in select(CASES, "^(sum|max)_axis0_1024x1024_f32$", set(), None):
                out = warm_case(case, settings, gate=None)
                self.assertEqual((pathlib.Path(tmp) / f"{case.name}.textproto").read_text(), case.textproto())
                self.assertGreater(out["kiln_s"], 0)
                if case.name.startswith("max_"):
                    self.assertEqual(out["kiln_error"], "node y (reduce_max): no")
                else:
                    self.assertNotIn("kiln_error", out)


def _wrap(x: int) -> int:
    x &= (1 << 64) - 1
    return x - (1 << 64) if x >= 1 << 63 else x


class Vec:
    """A plain-Python int64 (wrapping) or float64 vector: the ops kiln_inputs needs, as torch has them."""

    def __init__(self, values, floating: bool):
        self.values, self.floating = list(values), floating

    def _map(self, other, f, floating=None):
        floating = self.floating if floating is None else floating
        others = other.values if isinstance(other, Vec) else [other] * len(self.values)
        out = [f(a, b) for a, b in zip(self.values, others)]
        return Vec(out if floating else [_wrap(v) for v in out], floating)

    def __add__(self, o): return self._map(o, lambda a, b: a + b)
    def __sub__(self, o): return self._map(o, lambda a, b: a - b)
    def __mul__(self, o): return self._map(o, lambda a, b: a * b)
    def __xor__(self, o): return self._map(o, lambda a, b: a ^ b)
    def __and__(self, o): return self._map(o, lambda a, b: a & b)
    def __rshift__(self, o): return self._map(o, lambda a, b: a >> b)
    def __lshift__(self, o): return self._map(o, lambda a, b: a << b)
    def __neg__(self): return self._map(0, lambda a, b: -a)
    def __ge__(self, o): return self._map(o, lambda a, b: a >= b, floating=True)


class ListOps:
    @staticmethod
    def arange(start, stop): return Vec(range(start, stop), False)
    @staticmethod
    def to_float64(t): return Vec([float(v) for v in t.values], True)
    @staticmethod
    def bits_to_float(t): return Vec(array.array("d", array.array("q", t.values).tobytes()), True)
    @staticmethod
    def float_to_bits(t): return Vec(array.array("q", array.array("d", t.values).tobytes()), False)
    @staticmethod
    def round(t): return Vec([float(round(v)) for v in t.values], True)
    @staticmethod
    def round_f32(t): return Vec(array.array("f", t.values), True)
    @staticmethod
    def maximum(t, m): return Vec([max(v, m) for v in t.values], False)
    @staticmethod
    def where(c, a, t): return Vec([a if ci else v for ci, v in zip(c.values, t.values)], True)


def read_npy(path: pathlib.Path) -> list[float]:
    data = path.read_bytes()
    header_length = int.from_bytes(data[8:10], "little")
    header = data[10:10 + header_length].decode()
    code = {"'<f4'": "f", "'<f2'": "e"}[header.split("'descr': ")[1].split(",")[0]]
    return list(array.array(code, data[10 + header_length:])) if code == "f" else \
        [struct.unpack_from("<e", data, 10 + header_length + 2 * i)[0] for i in range((len(data) - 10 - header_length) // 2)]


class KilnInputsTest(unittest.TestCase):
    @unittest.skipUnless(KILN.exists() or "KILN" in os.environ, f"no kiln binary at {KILN} (ctest sets KILN)")
    def test_draws_exactly_what_kiln_draws(self):
        for dtype in ("f32", "bf16", "f16"):
            graph = SelfCheckGraph(dtype, shapes=((3000,), (7,)))
            with tempfile.TemporaryDirectory() as tmp:
                path = pathlib.Path(tmp) / "g.textproto"
                path.write_text(graph.textproto())
                subprocess.run([str(KILN), "eval", str(path), f"--save-outputs={tmp}"], check=True,
                               capture_output=True)
                for k, (name, shape) in enumerate(zip("yz", graph.shapes)):
                    want = read_npy(pathlib.Path(tmp) / f"{name}.npy")
                    got = [2 * v for v in kiln_values(ListOps, dtype, shape[0], seed=1 + k).values]
                    self.assertEqual(got, want, (dtype, name))

    def test_rounds_ties_to_even_straight_from_double(self):
        # 1 + 2^-8 is a bf16 tie (to 1.0); 1 + 2^-8 + 2^-40 is just above it (to 1 + 2^-7): a round
        # through float32 would take both to the tie and then to 1.0.
        v = Vec([1 + 2 ** -8, 1 + 2 ** -8 + 2 ** -40, -(1 + 3 * 2 ** -8), 0.0, 2 ** -20], True)
        self.assertEqual(round_to_format(ListOps, v, *FORMATS["bf16"]).values,
                         [1.0, 1 + 2 ** -7, -(1 + 4 * 2 ** -8), 0.0, 2 ** -20])
        # f16's subnormals step by 2^-24: 3 * 2^-26 rounds to 2^-24.
        self.assertEqual(round_to_format(ListOps, Vec([3 * 2 ** -26], True), *FORMATS["f16"]).values, [2 ** -24])


class RemoveIoTest(unittest.TestCase):
    def test_removes_one_case_or_every_case(self):
        with tempfile.TemporaryDirectory() as tmp:
            io_dir = pathlib.Path(tmp)
            for name in ("a_f32", "b_f32"):
                (io_dir / f"{name}.x.npy").write_bytes(b"")
                (io_dir / f"{name}.out").mkdir()
                (io_dir / f"{name}.out" / "y.npy").write_bytes(b"")
            (io_dir / "keep.txt").write_text("not ours")
            (io_dir / "mine.out").mkdir()
            (io_dir / "mine.out" / "notes.txt").write_text("not ours either")
            remove_io(io_dir, "a_f32")
            self.assertEqual(sorted(p.name for p in io_dir.iterdir()),
                             ["b_f32.out", "b_f32.x.npy", "keep.txt", "mine.out"])
            remove_io(io_dir)
            self.assertEqual(sorted(p.name for p in io_dir.iterdir()), ["keep.txt", "mine.out"])


class ResultFilesTest(unittest.TestCase):
    def test_save_load_and_report(self):
        cases = select(CASES, "^(softmax|transpose10)_", set(), 12)
        results = {c.name: fake_result(c, kiln_us=100.0 if i % 3 else 500.0) for i, c in enumerate(cases)}
        results[cases[1].name] = {"name": cases[1].name, "class": cases[1].cls, "error": "kiln failed: boom"}
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            save_results(out / "sweep.json", results)
            self.assertEqual(load_results(out / "sweep.json"), json.loads(json.dumps(results)))
            self.assertEqual(json.loads((out / "sweep.json").read_text())["gpu"], "Fake GPU")
            self.assertFalse((out / "sweep.json.tmp").exists())
            write_report(out, results)
            md = (out / "sweep.md").read_text()
            self.assertIn("# Memory-bound sweep on Fake GPU", md)
            self.assertIn("kiln failed: boom", md)
            self.assertIn(f"| 0.1.0 (git fake) | {len(cases) - 1} |", md)
            self.assertIn("| not recorded (older runs) | 1 |", md)
            self.assertIn("| row | ", md)
            self.assertIn("## Targets", md)
            for cls in ("row", "transpose"):
                self.assertIn("<svg", (out / "plots" / f"{cls}.svg").read_text())


def timed_result(name, fraction=None, us=None) -> dict:
    """The fake result of case `name`, timed to run at `fraction` of copy (or in `us`)."""
    r = fake_result(next(c for c in CASES if c.name == name))
    r["kiln_us"] = us if us is not None else r["bytes"] / (fraction * r["copy_gbps"] * 1e3)
    _fractions(r)
    return r


class TargetsTest(unittest.TestCase):
    at = staticmethod(timed_result)

    def row(self, lines, target):
        found = [line for line in lines if line.startswith(f"| {target}")]
        self.assertEqual(len(found), 1, lines)
        return found[0]

    def test_counts_the_cases_a_target_covers_and_lists_the_misses_worst_first(self):
        results = [self.at("pointwise3_8191x8191_bf16", 0.80), self.at("pointwise2_8191x8191_bf16", 0.95),
                   self.at("pointwise2_8191x8191_f16", 0.91), self.at("pointwise1_8191x8191_bf16", 0.50),
                   self.at("pointwise3_1000x1000_bf16", 0.30), self.at("pointwise3_8191x8191_f32", 0.70)]
        lines = targets_markdown(results)
        # One-input, f32 and below-L2 cases are not multi-input 16-bit pointwise above L2.
        self.assertEqual(self.row(lines, "bf16/f16 multi-input pointwise above L2 at >= 0.92"),
                         "| bf16/f16 multi-input pointwise above L2 at >= 0.92 | 1 | 3 | "
                         "pointwise3_8191x8191_bf16 (0.800), pointwise2_8191x8191_f16 (0.910) |")
        self.assertEqual(self.row(lines, "pointwise above L2 at >= 0.90"),
                         "| pointwise above L2 at >= 0.90 of copy | 2 | 5 | pointwise1_8191x8191_bf16 (0.500), "
                         "pointwise3_8191x8191_f32 (0.700), pointwise3_8191x8191_bf16 (0.800) |")

    def test_misses_a_copy_of_the_same_bytes_misses_too_are_told_apart(self):
        # A same-size copy at 3600 of the 4000 GB/s ceiling: 0.85 of copy is 0.944 of it, 0.80 is 0.889.
        results = [self.at("pointwise2_8191x8191_bf16", 0.85), self.at("pointwise3_8191x8191_bf16", 0.80),
                   self.at("pointwise1_8191x8191_bf16", 0.95)]
        self.assertAlmostEqual(results[0]["kiln_fraction_of_same_size_copy"], 0.85 / 0.9)
        self.assertEqual(self.row(targets_markdown(results), "of those below 0.90 of copy"),
                         "| of those below 0.90 of copy, >= 0.90 of a copy of their own bytes | 1 | 2 | "
                         "pointwise3_8191x8191_bf16 (0.889) |")

    def test_slower_cases_against_the_faster_peer(self):
        results = [self.at("pointwise2_8191x8191_bf16", 0.95), self.at("pointwise1_8191x8191_bf16", 0.95)]
        results[1]["kiln_speedup_vs_faster_peer"] = 0.97
        self.assertEqual(self.row(targets_markdown(results), ">= 1.0x the faster peer"),
                         "| >= 1.0x the faster peer on >= 95% of cases (50.0%) | 1 | 2 | "
                         "pointwise1_8191x8191_bf16 (0.97x) |")

    def test_odd_rows_are_timed_per_byte_against_the_next_multiple_of_8(self):
        even = self.at("softmax_16384x4096_f32", us=100.0)
        near = self.at("softmax_16396x4093_f32", us=100.0 * 1.05 * (16396 * 4093) / (16384 * 4096))
        self.assertEqual(self.row(targets_markdown([even, near]), "odd row lengths"),
                         "| odd row lengths within 10% of the next multiple of 8 (time per byte) | 1 | 1 |  |")
        far = self.at("softmax_16396x4093_f32", us=100.0 * 1.2 * (16396 * 4093) / (16384 * 4096))
        self.assertEqual(self.row(targets_markdown([even, far]), "odd row lengths"),
                         "| odd row lengths within 10% of the next multiple of 8 (time per byte) | 0 | 1 | "
                         "softmax_16396x4093_f32 (1.20x softmax_16384x4096_f32) |")

    def test_the_split_softmax_and_the_failed_cases(self):
        failed = {"name": "softmax_16384x4096_f32", "class": "row", "error": "kiln failed: boom"}
        lines = targets_markdown([self.at("softmax_512x131071_f32", us=150.0), failed])
        self.assertEqual(self.row(lines, "split softmax"),
                         "| split softmax 512x131071 f32 <= 140 us (150.0 us) | 0 | 1 | "
                         "softmax_512x131071_f32 (150.0 us) |")
        self.assertNotIn("split softmax", "".join(targets_markdown([self.at("softmax_16384x4096_f32", 0.9)])))


class ResourcesTest(unittest.TestCase):
    @staticmethod
    def kernel(registers, blocks, limited_by, spill=0, tuned=False):
        return {"kernel": "f0_row_reduction", "launch_bound_blocks": 4, "tuned_ask": tuned, "grid": 5340,
                "threads": 512, "cluster": 4, "registers": registers, "stack_bytes": spill,
                "spill_store_bytes": spill, "spill_load_bytes": spill, "static_shared_bytes": 2048,
                "dynamic_shared_bytes": 32768, "blocks_per_sm": blocks, "limited_by": limited_by,
                "waves": 5340 / (blocks * 132)}

    def test_the_misses_above_l2_with_their_kernels_worst_first(self):
        measured = {name: timed_result(name, fraction)
                    for name, fraction in (("layernorm_1335x50257_bf16", 0.45), ("softmax_1335x50257_bf16", 0.62),
                                           ("rmsnorm_1335x50257_bf16", 0.95), ("softmax_1000x128_bf16", 0.02))}
        resources = {
            "layernorm_1335x50257_bf16": [self.kernel(32, 4, ["threads", "registers"], spill=48),
                                          self.kernel(40, 3, ["registers"], spill=8, tuned=True)],
            "softmax_1335x50257_bf16": [self.kernel(32, 4, ["threads", "registers"])],
            "rmsnorm_1335x50257_bf16": [self.kernel(40, 3, ["registers"])],
            "softmax_1000x128_bf16": "kiln: no compiler",
        }
        md = resources_markdown(measured, resources).splitlines()
        # The below-L2 case is not summarized; its failure is listed.
        self.assertIn("| row | 3 | 2 | 1.00 | 0.75 | 1 | 0 |", md)
        table = [line for line in md if line.startswith("| layernorm") or line.startswith("| softmax_1335")]
        self.assertEqual(table, [
            "| layernorm_1335x50257_bf16 | 0.450 | " + f"{measured['layernorm_1335x50257_bf16']['kiln_us']:.1f}"
            + " | f0_row_reduction | 512 | 4 | 32 | 48/48 | 4 | threads, registers | 1.00 | 10.11 | "
            "vectorized tiles x4 |",
            "| softmax_1335x50257_bf16 | 0.620 | " + f"{measured['softmax_1335x50257_bf16']['kiln_us']:.1f}"
            + " | f0_row_reduction | 512 | 4 | 32 | 0/0 | 4 | threads, registers | 1.00 | 10.11 | "
            "vectorized tiles x4 |"])
        self.assertEqual(md[-1], "- softmax_1000x128_bf16: kiln: no compiler")

    @unittest.skipUnless(KILN.exists() or "KILN" in os.environ, f"no kiln binary at {KILN} (ctest sets KILN)")
    def test_kiln_compiles_each_case_without_a_gpu(self):
        names = ["sum_1000x128_f32", "transpose10_4096x4096_f32"]
        found = collect_resources([str(KILN)], names, jobs=2)
        self.assertEqual(sorted(found), names)
        for name in names:
            rows = found[name]
            self.assertIsInstance(rows, list, rows)
            self.assertGreater(rows[0]["registers"], 0)
            self.assertGreater(rows[0]["blocks_per_sm"], 0)
        with self.assertRaises(SystemExit):
            collect_resources([str(KILN)], ["not_a_case"], jobs=1)


class ChangedCasesTest(unittest.TestCase):
    @unittest.skipUnless((KILN.exists() or "KILN" in os.environ) and
                         (shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc")),
                         "needs a kiln binary and nvcc")
    def test_a_build_that_plans_other_launches_changes_those_cases_only(self):
        names = ["softmax_1335x50257_bf16", "sum_1000x128_f32"]
        self.assertEqual(changed_cases([str(KILN)], [str(KILN)], names, jobs=2), [])
        with tempfile.TemporaryDirectory() as tmp:
            # The same kiln, planning for clusters of at most 2 blocks: the split softmax's launch changes.
            other = pathlib.Path(tmp) / "kiln"
            other.write_text(f'#!/bin/sh\nexec "{KILN}" "$@" --max-cluster-blocks=2\n')
            other.chmod(0o755)
            self.assertEqual(changed_cases([str(KILN)], [str(other)], names, jobs=2), ["softmax_1335x50257_bf16"])
            # Each case against its own old build: the one whose build is unknown has changed.
            self.assertEqual(changed_cases({"sum_1000x128_f32": [str(other)]}, [str(KILN)], names, jobs=2),
                             ["softmax_1335x50257_bf16"])

    def test_each_kept_entry_names_the_build_that_measured_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            keep, builds = pathlib.Path(tmp) / "sweep.json", pathlib.Path(tmp) / "builds.json"
            keep.write_text(json.dumps({"cases": [
                {"name": "sum_1000x128_f32", "kiln_build": "0.1.0 (git aaaa)"},
                {"name": "softmax_1335x50257_bf16", "kiln_build": "0.1.0 (git bbbb-dirty)"},
                {"name": "max_1000x128_f32"}]}))
            builds.write_text(json.dumps({"0.1.0 (git aaaa)": "/opt/kiln-a --flag"}))
            old = old_builds_of(builds, keep)
            self.assertEqual(old, {"sum_1000x128_f32": ["/opt/kiln-a", "--flag"], "softmax_1335x50257_bf16": None,
                                   "max_1000x128_f32": None})
            # Cases of no known build count as changed without running anything.
            names = ["softmax_1335x50257_bf16", "max_1000x128_f32", "transpose10_4096x4096_f32"]
            self.assertEqual(changed_cases(old, ["/nonexistent/kiln"], names, jobs=2), names)

    def test_the_seed_keeps_only_the_unchanged_entries(self):
        with tempfile.TemporaryDirectory() as tmp:
            keep, seed = pathlib.Path(tmp) / "old.json", pathlib.Path(tmp) / "new" / "sweep.json"
            keep.write_text(json.dumps({"gpu": "Fake GPU", "cases": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}))
            self.assertEqual(write_seed(keep, seed, {"a", "c"}), 2)
            self.assertEqual(json.loads(seed.read_text()), {"gpu": "Fake GPU", "cases": [{"name": "a"}, {"name": "c"}]})


# ncu's raw page as `--csv --page raw --print-units base` prints it: a units row under the header, and
# here two launches of one kernel (a tuning variant, then the plan's own) and one of another.
NCU_RAW = "\n".join([
    "==PROF== Connected to process 7",
    '"ID","Kernel Name","gpu__time_duration.sum","dram__throughput.avg.pct_of_peak_sustained_elapsed",'
    '"smsp__issue_active.avg.per_cycle_active","sm__warps_active.avg.pct_of_peak_sustained_active",'
    '"sm__maximum_warps_per_active_cycle_pct","launch__registers_per_thread","launch__waves_per_multiprocessor",'
    '"launch__occupancy_limit_registers","launch__occupancy_limit_shared_mem","launch__occupancy_limit_warps",'
    '"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",'
    '"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",'
    '"smsp__average_warps_issue_stalled_selected_per_issue_active.ratio"',
    '"","","nsecond","%","","%","%","register/thread","","block","block","block","ratio","ratio","ratio"',
    '"0","f0_row_reduction(const unsigned short *)","250,000","40","0.30","40","50","64","0.97","2","7","4",'
    '"9","1","1"',
    '"1","f0_row_reduction(const unsigned short *)","196,000","60.9","0.39","46.09","50","55","0.97","2","7","4",'
    '"15.4","2.2","1"',
    '"2","f1_pointwise(const float *, float *)","80,000","91.5","0.2","85","100","16","12.1","8","32","4",'
    '"12","0","1"',
])


class ProfileMissesTest(unittest.TestCase):
    def test_the_raw_page_reads_as_one_row_per_launch(self):
        launches = profile_misses.parse_raw_csv(NCU_RAW)
        self.assertEqual([r["ID"] for r in launches], ["0", "1", "2"])
        self.assertEqual(launches[1]["launch__registers_per_thread"], "55")
        self.assertEqual(profile_misses.parse_raw_csv("==PROF== no kernels were profiled"), [])

    def test_limiters_name_what_caps_a_launch(self):
        launches = profile_misses.parse_raw_csv(NCU_RAW)
        latency = profile_misses.limiters(launches[1])
        self.assertEqual(latency["kernel"], "f0_row_reduction")
        self.assertAlmostEqual(latency["us"], 196.0)
        self.assertEqual(latency["blocks_per_sm"], 2)
        self.assertEqual(latency["occupancy_limited_by"], ["registers"])
        # Shares of the stall cycles, "selected" (issuing) left out: 15.4 and 2.2 of 17.6.
        self.assertEqual(latency["stalls"], {"long_scoreboard": 0.875, "barrier": 0.125})
        self.assertEqual(latency["verdict"], "latency-bound: long_scoreboard 88% of stalls; occupancy 46% "
                                             "(at most 50%, limited by registers); 0.97 waves")
        bound = profile_misses.limiters(launches[2])
        self.assertEqual(bound["verdict"], "DRAM-bound (92% of peak)")
        self.assertEqual(bound["occupancy_limited_by"], ["warps"])
        issue = dict(launches[1], **{"smsp__issue_active.avg.per_cycle_active": "0.81"})
        self.assertTrue(profile_misses.limiters(issue)["verdict"].startswith("issue-bound (0.81 instructions"))
        # Metrics ncu did not report are left out, and the verdict says what it lacks.
        bare = profile_misses.limiters({"Kernel Name": "f0_transpose"})
        self.assertEqual(bare, {"kernel": "f0_transpose", "verdict": "latency-bound: no stall breakdown"})

    def test_misses_are_below_target_and_below_a_same_size_copy(self):
        results = [timed_result("layernorm_1335x50257_bf16", fraction=0.80),  # 0.89 of a same-size copy
                   timed_result("softmax_1335x50257_bf16", fraction=0.85),  # 0.94: its size explains it
                   timed_result("transpose10_4093x8191_bf16", fraction=0.70),
                   timed_result("transpose10_4096x4096_bf16", fraction=0.80),  # 64 MiB: below the L2 rule
                   timed_result("rmsnorm_1335x50257_bf16", fraction=0.95)]
        self.assertEqual([r["name"] for r in profile_misses.misses(results)],
                         ["transpose10_4093x8191_bf16", "layernorm_1335x50257_bf16"])

    def test_each_kernel_is_read_from_its_last_launch_and_the_table_is_written(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            (tmp / "raw.csv").write_text(NCU_RAW)
            ncu = tmp / "ncu"
            ncu.write_text(f'#!/bin/sh\ncase " $* " in *" --import "*) cat "{tmp}/raw.csv" ;; esac\n')
            kiln = tmp / "kiln"
            kiln.write_text("#!/bin/sh\necho \"$*\" >> " + str(tmp / "kiln.log") + "\n")
            for tool in (ncu, kiln):
                tool.chmod(0o755)
            sweep = tmp / "sweep"
            sweep.mkdir()
            save_results(sweep / "sweep.json", {r["name"]: r for r in [
                timed_result("layernorm_1335x50257_bf16", fraction=0.80),
                timed_result("rmsnorm_1335x50257_bf16", fraction=0.95)]})
            argv = ["--kiln", str(kiln), "--ncu", str(ncu), "--sweep", str(sweep)]
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(profile_misses.main(argv), 0)
            profiles = json.loads((sweep / "profiles.json").read_text())
            self.assertEqual(list(profiles), ["layernorm_1335x50257_bf16"])
            self.assertEqual([k["kernel"] for k in profiles["layernorm_1335x50257_bf16"]],
                             ["f0_row_reduction", "f1_pointwise"])
            self.assertEqual(profiles["layernorm_1335x50257_bf16"][0]["registers"], 55)
            table = (sweep / "profiles.md").read_text()
            self.assertIn("| layernorm_1335x50257_bf16 | 0.800 | f0_row_reduction | 196.0 | 61 | 0.39 | 46% (50%) | "
                          "2, registers | 55 | 0.97 | long_scoreboard 88%, barrier 12% |", table)
            # kiln ran the case once outside ncu, before ncu ran it.
            self.assertEqual(len((tmp / "kiln.log").read_text().splitlines()), 1)
            # A second run finds the case profiled and runs nothing.
            with contextlib.redirect_stdout(io.StringIO()):
                profile_misses.main(argv)
            self.assertEqual(len((tmp / "kiln.log").read_text().splitlines()), 1)
            # Without ncu, the case's result says that ncu could not start.
            self.assertEqual(profile_misses.profile_case([str(kiln)], str(tmp / "no-ncu"), tmp / "g.textproto",
                                                         tmp / "r"), f"{tmp / 'no-ncu'} --clock-control could not "
                                                                     "start: No such file or directory")


class MainTest(unittest.TestCase):
    def setUp(self):
        self._environ = dict(os.environ)

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self._environ)

    def main(self, out, *flags):
        clock = FakeClock()
        runner = FakeRunner(clock)
        pools = []

        def make_pool(jobs, settings, gpu_bytes):
            pools.append(FakePool(clock, jobs))
            return pools[-1]

        argv = ["--out", str(out), "--cache-dir", str(out / "cache"), "--io-dir", str(out / "io"), *flags]
        with contextlib.redirect_stdout(io.StringIO()) as stdout:
            self.assertEqual(run_sweep.main(argv, case_runner=runner, case_preparer=lambda settings: "prepared",
                                            make_pool=make_pool, now=clock), 0)
        return runner, pools, stdout.getvalue()

    def test_a_run_then_skip_done_then_report_only(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            runner, pools, text = self.main(out, "--filter", "^rmsnorm_", "--max-cases", "7", "--jobs", "3")
            self.assertEqual(len(runner.ran), 7)
            self.assertEqual(pools[0].jobs, 3)
            self.assertEqual(os.environ["KILN_CACHE_DIR"], str(out / "cache" / "kiln"))
            self.assertIn("== where the", text)
            self.assertIn("prepared", text)
            self.assertEqual(len(load_results(out / "sweep.json")), 7)
            phases = json.loads((out / "phases.json").read_text())
            self.assertEqual((phases["cases_timed"], phases["cases_left"]), (7, 0))
            self.assertTrue((out / "sweep.md").exists() and (out / "plots" / "row.svg").exists())

            runner, _, _ = self.main(out, "--filter", "^rmsnorm_", "--max-cases", "3", "--skip-done", "--jobs", "0")
            self.assertEqual(len(runner.ran), 3)
            self.assertTrue(set(runner.ran).isdisjoint(set(load_results(out / "sweep.json")) - set(runner.ran)))
            self.assertEqual(len(load_results(out / "sweep.json")), 10)

            (out / "sweep.md").unlink()
            runner, pools, _ = self.main(out, "--report-only")
            self.assertEqual((runner.ran, pools), ([], []))
            self.assertIn("| row | 10 |", (out / "sweep.md").read_text())

    def test_rerun_slower_measures_the_slower_and_failed_cases_again(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            self.main(out, "--filter", "^sum_", "--max-cases", "6", "--jobs", "0")
            results = load_results(out / "sweep.json")
            names = sorted(results)
            results[names[0]]["kiln_speedup_vs_faster_peer"] = 0.8
            results[names[1]] = {"name": names[1], "class": "row", "error": "kiln failed: boom"}
            save_results(out / "sweep.json", results)
            runner, _, _ = self.main(out, "--rerun-slower", "--jobs", "0")
            self.assertEqual(sorted(runner.ran), names[:2])
            self.assertEqual(len(load_results(out / "sweep.json")), 6)
            self.assertNotIn("error", load_results(out / "sweep.json")[names[1]])

    def test_the_budget_cuts_the_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            runner, _, text = self.main(out, "--budget-s", "40", "--jobs", "14")
            self.assertLessEqual(runner.ends[-1], 40)
            self.assertIn("cases left (rerun with --skip-done)", text)


if __name__ == "__main__":
    unittest.main()
