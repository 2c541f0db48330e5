#!/usr/bin/env python3
"""Tests of bench/report.py and measure_traffic.py, on synthetic JSON (ncu's CSV is parsed by kiln itself:
tests/frontends/ncu_report_test.cc).

    python3 bench/test_report.py        (standard library only; no GPU, no PyTorch)
"""

import contextlib
import io
import json
import pathlib
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import measure_traffic  # noqa: E402
import report  # noqa: E402

GELU = "gelu_naive_16384x16384_f32"
GELU_BYTES = 2 * 16384 * 16384 * 4
MATMUL = "matmul_relu_8192x8192x8192_bf16"
MATMUL_FLOPS = 2 * 8192 ** 3


def kiln_run(graph: str, plan: str, us: float, kernels: int = 1) -> dict:
    return {
        "graph": graph, "plan": plan, "gpu": "NVIDIA H200", "driver": "580.1", "nvrtc": "13.0",
        "copy_gbps": 4223.0, "iters": 50,
        "total": {"us": us, "bytes": GELU_BYTES, "flops": 0},
        "kernels": [{"name": f"{plan[0]}{i}_pointwise", "kind": "pointwise",
                     "strategy": "vector", "us": us / kernels} for i in range(kernels)],
        "check": {"max_rel_error": 1.2e-7, "tolerance": 1e-5, "passed": True},
    }


def peer(graph: str, name: str, us: float | None, passed: bool | None = True, **extra) -> dict:
    workload, shape, dtype = report.parse_graph_name(graph)
    row = {"workload": workload, "shape": shape, "dtype": dtype, "peer": name,
           "label": f"{name} label", "us": us, "rel_error": 1e-7 if passed else 0.5,
           "tolerance": 1e-5, "passed": passed, "note": ""}
    row.update(extra)
    return row


def peers_file(graph: str, rows: list[dict], reference: str = "kiln's output") -> dict:
    workload, shape, dtype = report.parse_graph_name(graph)
    return {"schema": report.PEERS_SCHEMA, "workload": workload, "shape": shape, "dtype": dtype,
            "reference": reference, "rows": rows,
            "environment": {"gpu": "NVIDIA H200", "torch": "2.11.0", "triton": "3.6.0",
                            "cuda": "13.0", "date": "2026-11-29T12:00:00+00:00"}}


def write(path: pathlib.Path, obj: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj))


def write_fixture(root: pathlib.Path) -> None:
    """GeLU with every implementation (a failing Triton that would be fastest) and a matmul
    row that kiln could not run, laid out as bench/run_all.sh lays them out."""
    write(root / GELU / "kiln_fused.json", kiln_run(GELU, "fused", 512.0))
    write(root / GELU / "kiln_unfused.json", kiln_run(GELU, "unfused", 5400.0, kernels=9))
    write(root / GELU / "peers.json", peers_file(GELU, [
        peer(GELU, "copy", 508.4, passed=None, bytes=GELU_BYTES),
        peer(GELU, "eager", 5481.0),
        peer(GELU, "builtin", 510.0),
        peer(GELU, "compile", 511.0),
        peer(GELU, "triton", 400.0, passed=False),
    ]))
    failure = {"graph": MATMUL, "error": "Unimplemented: node \"c\" (matmul)", "exit_code": 3}
    write(root / MATMUL / "kiln_fused.json", dict(failure, plan="fused"))
    write(root / MATMUL / "kiln_unfused.json", dict(failure, plan="unfused"))
    write(root / MATMUL / "peers.json", peers_file(MATMUL, [
        peer(MATMUL, "copy", 300.0, passed=None, bytes=2 * 8192 * 8192 * 2),
        peer(MATMUL, "eager", None, passed=None, note="the built-in's own ops"),
        peer(MATMUL, "builtin", 1641.0),
        peer(MATMUL, "compile", 1589.0),
        peer(MATMUL, "triton", 4000.0),
    ], reference="a float64 PyTorch computation (no kiln output)"))


class CostModelTest(unittest.TestCase):
    def test_design_table_bytes(self):
        self.assertEqual(report.compulsory_cost("gelu_naive", "16384x16384", "f32"),
                         (2_147_483_648, 0))
        self.assertEqual(report.compulsory_cost("gelu_naive", "16384x16384", "bf16"),
                         (1_073_741_824, 0))
        self.assertEqual(report.compulsory_cost("softmax_naive", "512x131072", "f32"),
                         (2 * 512 * 131072 * 4, 0))
        self.assertEqual(report.compulsory_cost("row_sum", "256x1048576", "f32"),
                         ((256 * 1048576 + 256) * 4, 0))
        self.assertEqual(report.compulsory_cost("matmul_relu", "4096x2048x1024", "f16"),
                         ((4096 * 1024 + 1024 * 2048 + 4096 * 2048) * 2,
                          2 * 4096 * 2048 * 1024))

    def test_graph_names(self):
        self.assertEqual(report.parse_graph_name("softmax_naive_512x131072_f32"),
                         ("softmax_naive", "512x131072", "f32"))
        self.assertEqual(report.parse_graph_name(MATMUL), ("matmul_relu", "8192x8192x8192", "bf16"))
        for bad in ("gelu_naive_16384x16384", "conv_16x16_f32", "row_sum_16x0_f32",
                    "row_sum_16xq_f32", "row_sum_16x16_f64"):
            with self.assertRaises(ValueError, msg=bad):
                report.parse_graph_name(bad)

    def test_wrong_rank_is_rejected(self):
        with self.assertRaisesRegex(ValueError, "matmul_relu takes 3 dims"):
            report.compulsory_cost("matmul_relu", "64x64", "f32")


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        write_fixture(self.root)
        self.results = report.build_results(report.load_dirs([self.root]), "2026-11-29")
        self.rows = {row["graph"]: row for row in self.results["rows"]}

    def tearDown(self):
        self.tmp.cleanup()

    def figures(self, graph: str) -> dict:
        return {f["impl"]: f for f in self.rows[graph]["figures"]}

    def test_rows_follow_the_design_table_order(self):
        self.assertEqual([row["graph"] for row in self.results["rows"]], [GELU, MATMUL])

    def test_memory_bound_rates_fractions_and_ratios(self):
        figs = self.figures(GELU)
        copy_rate = GELU_BYTES / 508.4 / 1e3
        self.assertAlmostEqual(self.rows[GELU]["ceiling"]["rate"], copy_rate)
        self.assertAlmostEqual(figs["kiln_fused"]["rate"], GELU_BYTES / 512.0 / 1e3)
        self.assertAlmostEqual(figs["kiln_fused"]["fraction"], 508.4 / 512.0)
        self.assertAlmostEqual(figs["copy"]["fraction"], 1.0)
        self.assertAlmostEqual(figs["kiln_unfused"]["kiln_fused_speedup"], 5400.0 / 512.0)
        self.assertAlmostEqual(figs["builtin"]["kiln_fused_speedup"], 510.0 / 512.0)
        self.assertIsNone(figs["copy"]["kiln_fused_speedup"])
        self.assertEqual(figs["builtin"]["label"], "builtin label")
        self.assertEqual(figs["kiln_fused"]["label"], "kiln fused")

    def test_a_failing_peer_is_shown_but_never_ranked(self):
        figs = self.figures(GELU)
        self.assertEqual(figs["triton"]["us"], 400.0)
        self.assertIsNone(figs["triton"]["kiln_fused_speedup"])
        head = self.results["headline"][0]
        self.assertEqual(head["best_peer"], "builtin")
        self.assertAlmostEqual(head["vs_best_peer"], 510.0 / 512.0)
        self.assertAlmostEqual(head["vs_unfused"], 5400.0 / 512.0)

    def test_matmul_without_kiln_shows_the_peers_against_cublas(self):
        figs = self.figures(MATMUL)
        self.assertIsNone(figs["kiln_fused"]["us"])
        self.assertIn("Unimplemented", figs["kiln_fused"]["note"])
        self.assertEqual(self.rows[MATMUL]["unit"], "TFLOP/s")
        self.assertAlmostEqual(figs["compile"]["rate"], MATMUL_FLOPS / 1589.0 / 1e6)
        self.assertAlmostEqual(figs["compile"]["fraction"], 1641.0 / 1589.0)
        self.assertEqual(figs["copy"]["unit"], "GB/s")
        self.assertIsNone(figs["copy"]["fraction"])
        head = self.results["headline"][1]
        self.assertIsNone(head["kiln_fused_us"])
        self.assertEqual(head["best_peer"], "compile")
        self.assertIsNone(head["vs_best_peer"])

    def test_markdown_table_values(self):
        md = report.render_markdown(self.results)
        self.assertIn("| gelu_naive_16384x16384_f32 | 512.0 | 0.99 of copy | 10.55× | "
                      "builtin label: 510.0 µs | 1.00× |", md)
        self.assertIn("| kiln fused | 512.0 | 4,194 GB/s | 0.99 | 1.00× | pass (1.2e-07 vs 1e-05)",
                      md)
        self.assertIn("| triton label | 400.0 | 5,369 GB/s | 1.27 | — | **FAIL** (5.0e-01 vs 1e-05)",
                      md)
        self.assertIn("| compile label | 1,589.0 | 692.0 TFLOP/s | 1.03 | — | pass", md)
        self.assertIn("did not run: Unimplemented: node \"c\" (matmul)", md)
        self.assertIn("GPU NVIDIA H200 · driver 580.1 · CUDA 13.0 · torch 2.11.0", md)

    def test_svg_is_well_formed_with_one_bar_per_figure(self):
        svg = ET.fromstring(report.render_svg(self.results))
        ns = "{http://www.w3.org/2000/svg}"
        bars = [e for e in svg.iter(f"{ns}rect") if e.get("class") == "bar"]
        # GeLU: kiln fused and unfused + 4 peers; matmul: 3 measured peers. The copy is a line.
        self.assertEqual(len(bars), 9)
        self.assertEqual(sorted(b.get("data-impl") for b in bars),
                         sorted(["kiln_fused", "kiln_unfused", "eager", "builtin", "compile",
                                 "triton", "builtin", "compile", "triton"]))
        failed = [b for b in bars if b.get("fill") == report.FAILED_FILL]
        self.assertEqual([b.get("data-impl") for b in failed], ["triton"])
        ceilings = [e for e in svg.iter(f"{ns}line") if e.get("class") == "ceiling"]
        self.assertEqual(len(ceilings), 1)
        widths = {b.get("data-impl"): float(b.get("width")) for b in bars[:6]}
        self.assertGreater(widths["kiln_fused"], 10 * widths["eager"] * 0.9)
        texts = " ".join(e.text or "" for e in svg.iter(f"{ns}text"))
        self.assertIn("did not run: Unimplemented", texts)
        self.assertNotIn("the built-in's own ops", texts)  # not-applicable peers: table only

    def test_a_kiln_result_failing_its_check_is_not_ranked(self):
        failing = kiln_run(GELU, "fused", 300.0)
        failing["check"].update(max_rel_error=0.3, passed=False)
        failing["error"] = "kiln: result differs from the reference interpreter"
        with tempfile.TemporaryDirectory() as later:
            write(pathlib.Path(later) / "kiln_fused.json", failing)
            results = report.build_results(
                report.load_dirs([self.root, pathlib.Path(later)]), "now")
        figs = {f["impl"]: f for f in results["rows"][0]["figures"]}
        self.assertFalse(figs["kiln_fused"]["passed"])
        self.assertIn("result differs", figs["kiln_fused"]["note"])
        self.assertIsNone(figs["builtin"]["kiln_fused_speedup"])
        head = results["headline"][0]
        self.assertEqual(head["kiln_note"], "fails its check")
        self.assertIsNone(head["vs_best_peer"])
        self.assertIn("| gelu_naive_16384x16384_f32 | 300.0 (fails its check) |",
                      report.render_markdown(results))

    def test_unchecked_kiln_runs_show_no_verdict(self):
        unchecked = kiln_run(GELU, "fused", 512.0)
        unchecked["check"].update(passed=True, checked=False)
        figure = report.kiln_figure(unchecked)
        self.assertIsNone(figure["passed"])
        self.assertEqual(report.fmt_check(figure), "—")

    def test_later_directories_override_earlier_ones(self):
        with tempfile.TemporaryDirectory() as later:
            write(pathlib.Path(later) / "x" / "kiln_fused.json", kiln_run(GELU, "fused", 600.0))
            results = report.build_results(
                report.load_dirs([self.root, pathlib.Path(later)]), "now")
        fused = next(f for f in results["rows"][0]["figures"] if f["impl"] == "kiln_fused")
        self.assertEqual(fused["us"], 600.0)

    def test_kiln_copy_rate_is_the_ceiling_when_peers_are_missing(self):
        with tempfile.TemporaryDirectory() as only_kiln:
            write(pathlib.Path(only_kiln) / "kiln_fused.json", kiln_run(GELU, "fused", 512.0))
            results = report.build_results(report.load_dirs([pathlib.Path(only_kiln)]), "now")
        row = results["rows"][0]
        self.assertEqual(row["ceiling"]["rate"], 4223.0)
        self.assertAlmostEqual(row["figures"][0]["fraction"], GELU_BYTES / 512.0 / 1e3 / 4223.0)

    def test_main_writes_three_files_and_skips_unrelated_json(self):
        (self.root / "notes.json").write_text('{"something": "else"}')
        (self.root / "broken.json").write_text("{not json")
        out = self.root / "report"
        messages = io.StringIO()
        with contextlib.redirect_stdout(messages), contextlib.redirect_stderr(messages):
            self.assertEqual(report.main([str(self.root), "--out", str(out)]), 0)
            # Its own results.json is not read back as input on a second run.
            self.assertEqual(report.main([str(self.root), "--out", str(out)]), 0)
        self.assertIn("skipping", messages.getvalue())
        results = json.loads((out / "results.json").read_text())
        self.assertEqual(results["schema"], report.RESULTS_SCHEMA)
        self.assertEqual(len(results["rows"]), 2)
        self.assertTrue((out / "results.md").read_text().startswith("# kiln benchmark results"))
        ET.parse(out / "results.svg")


MEASURED = {
    "graph": "g", "plan": "unfused", "target": "NVIDIA H200",
    "command": "ncu --clock-control none --metrics dram__bytes_read.sum,dram__bytes_write.sum",
    "tolerance": 0.10,
    "kernels": [
        {"kernel": "u0_mul", "kind": "pointwise", "strategy": "vector", "model_read": 100, "model_write": 100,
         "measured_read": 100, "measured_write": 40, "launches": 2, "deviation": -0.3, "flagged": True, "note": ""},
        {"kernel": "u1_exp", "kind": "pointwise", "strategy": "vector", "model_read": 64, "model_write": 64,
         "measured_read": None, "measured_write": None, "launches": 0, "deviation": None, "flagged": False,
         "note": "no launch of this kernel was profiled"},
    ],
}


class TrafficTest(unittest.TestCase):
    def test_kiln_measure_reports_become_rows_flagged_at_the_tolerance(self):
        rows = measure_traffic.rows_from_measure("g", "unfused", MEASURED, 0.10)
        self.assertEqual([(r["graph"], r["plan"], r["kernel"], r["flagged"]) for r in rows],
                         [("g", "unfused", "u0_mul", True), ("g", "unfused", "u1_exp", False)])
        self.assertEqual(rows[1]["note"], "no launch of this kernel was profiled")
        loose = measure_traffic.rows_from_measure("g", "unfused", MEASURED, 0.5)
        self.assertFalse(loose[0]["flagged"])

    def test_main_collects_both_plans_from_kiln(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            graph = tmp / "g.textproto"
            graph.write_text("")
            fake = tmp / "fake-kiln"
            fake.write_text("#!/bin/sh\n"
                            "case \"$*\" in *--unfused*) echo 'kiln: no GPU to run on' >&2; exit 1;; esac\n"
                            f"cat <<'EOF'\n{json.dumps(MEASURED)}\nEOF\n")
            fake.chmod(0o755)
            with contextlib.redirect_stdout(io.StringIO()):
                status = measure_traffic.main(["--kiln", str(fake), "--graphs", str(graph), "--out", str(tmp / "out"),
                                               "--ncu", "/nonexistent/ncu"])
            self.assertEqual(status, 0)
            result = json.loads((tmp / "out" / "traffic.json").read_text())
            self.assertEqual([(r["plan"], r["kernel"]) for r in result["kernels"]],
                             [("fused", "u0_mul"), ("fused", "u1_exp")])
            self.assertEqual(result["errors"],
                             [{"graph": "g", "plan": "unfused", "error": "kiln run --measure: kiln: no GPU to run on"}])
            self.assertEqual(result["command"], MEASURED["command"])
            self.assertIn("| g | fused | u0_mul |", (tmp / "out" / "traffic.md").read_text())

    def test_markdown_marks_flagged_kernels(self):
        kernels = measure_traffic.rows_from_measure("g", "unfused", MEASURED, 0.10)[:1]
        md = measure_traffic.render_markdown({
            "environment": "GPU", "date": "today", "command": "ncu", "tolerance": 0.10,
            "kernels": kernels, "errors": [{"graph": "m", "plan": "fused", "error": "Unimplemented"}]})
        self.assertIn("| g | unfused | u0_mul | vector | 100 | 100 (+0.0%) | 100 | 40 (-60.0%) "
                      "| -30.0% | ⚠ |", md)
        self.assertIn("- m (fused): Unimplemented", md)

    def test_merge_replaces_earlier_runs_graph_by_graph(self):
        def row(graph, kernel, deviation):
            return {"graph": graph, "plan": "fused", "kernel": kernel, "strategy": "s", "model_read": 1,
                    "model_write": 1, "measured_read": 1, "measured_write": 1, "deviation": deviation,
                    "flagged": False, "note": ""}
        old = {"date": "d1", "environment": "GPU", "command": "ncu", "tolerance": 0.1,
               "kernels": [row("a", "f0", 0.01), row("b", "f0", 0.02)],
               "errors": [{"graph": "m", "plan": "fused", "error": "Unimplemented"}]}
        new = {"date": "d2", "environment": "GPU", "command": "ncu", "tolerance": 0.1,
               "kernels": [row("b", "f0", 0.03), row("b", "f1", 0.04), row("m", "f0", 0.5)], "errors": []}
        merged = measure_traffic.merge_results([old, new], 0.1)
        self.assertEqual([(r["graph"], r["kernel"], r["date"]) for r in merged["kernels"]],
                         [("a", "f0", "d1"), ("b", "f0", "d2"), ("b", "f1", "d2"), ("m", "f0", "d2")])
        self.assertEqual(merged["errors"], [])
        self.assertEqual([(s["date"], s["graphs"]) for s in merged["sources"]],
                         [("d1", ["a"]), ("d2", ["b", "m"])])
        self.assertIn("- d2: b, m", measure_traffic.render_markdown(merged))


if __name__ == "__main__":
    unittest.main()
