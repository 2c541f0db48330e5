#!/usr/bin/env python3
"""GPT-2-small block in bf16 (B = 8, S = 1024, d = 768, 12 heads) through kiln's ONNX
importer, side by side in one run with PyTorch eager and torch.compile of the same module.

    python3 bench/gpt2_block.py --kiln "build/kiln" --models bench/models --out bench/results/DIR

--models is the folder bench/gpt2_block_model.py wrote on the CPU machine (the .onnx model
and weights.npz). --kiln is how to start kiln (for a gpu-bundle: "BUNDLE/run kiln"). The
script makes the input from a seed, runs

  kiln fused      kiln run MODEL --inputs x=x.npy --save-outputs ... --json
  kiln unfused    the same with --unfused (one kernel per op)
  torch eager     the block as a torch.nn.Module, weights from weights.npz
  torch.compile   torch.compile of that module

and reports, for each, kernels per forward, HBM bytes and time (median of --reps CUDA-event
timed forwards after warm-up). kiln's bytes are its traffic model (compulsory bytes of the
plan); PyTorch's are measured by Nsight Compute (dram__bytes_read.sum + dram__bytes_write.sum
over one forward) when --ncu is given and ncu is on PATH, else not reported. PyTorch's
kernels are counted with torch.profiler. Every output is checked against torch eager by
relative L2 error. Writes OUT/gpt2_block.json and OUT/gpt2_block.md. Needs torch and numpy.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

from cuda_timing import median_us

MODEL = "gpt2_small_block_bf16"
BATCH, SEQ, WIDTH, HEADS = 8, 1024, 768, 12


class Block(torch.nn.Module):
    """The ONNX graph of tests/onnx/make_models.py's gpt2_block, op for op, in PyTorch."""

    def __init__(self, weights: dict[str, torch.Tensor]):
        super().__init__()
        for name, tensor in weights.items():
            self.register_buffer(name.replace(".", "_"), tensor)
        self.scale = 1.0 / math.sqrt(WIDTH // HEADS)
        self.mask_value = torch.finfo(torch.bfloat16).min

    def forward(self, x):
        b, s, d = x.shape
        h = F.layer_norm(x, (d,), self.ln_1_weight, self.ln_1_bias, 1e-5)
        qkv = h @ self.attn_c_attn_weight + self.attn_c_attn_bias
        q, k, v = qkv.split(d, dim=2)
        q = q.view(b, s, HEADS, d // HEADS).transpose(1, 2)
        k = k.view(b, s, HEADS, d // HEADS).permute(0, 2, 3, 1)
        v = v.view(b, s, HEADS, d // HEADS).transpose(1, 2)
        scores = (q @ k) * self.scale
        causal = self.attn_bias[:s, :s]
        scores = torch.where(causal, scores, torch.tensor(self.mask_value, dtype=scores.dtype, device=scores.device))
        attn = torch.softmax(scores, dim=-1) @ v
        attn = attn.transpose(1, 2).reshape(b, s, d)
        h1 = x + (attn @ self.attn_c_proj_weight + self.attn_c_proj_bias)
        m = F.layer_norm(h1, (d,), self.ln_2_weight, self.ln_2_bias, 1e-5)
        m = m @ self.mlp_c_fc_weight + self.mlp_c_fc_bias
        m = 0.5 * m * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (m + 0.044715 * m.pow(3.0))))
        return h1 + (m @ self.mlp_c_proj_weight + self.mlp_c_proj_bias)


def load_weights(path: pathlib.Path) -> dict[str, torch.Tensor]:
    weights = {}
    with np.load(path) as npz:
        for name in npz.files:
            array = npz[name]
            if array.dtype == np.uint16:  # bf16 bit patterns
                weights[name] = torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
            else:
                weights[name] = torch.from_numpy(array)
    # The causal mask is computed inside the ONNX model (Trilu, folded by kiln's importer).
    weights["attn.bias"] = torch.tril(torch.ones(SEQ, SEQ, dtype=torch.bool))
    return {k: v.cuda() for k, v in weights.items()}




def count_kernels(fn) -> int:
    fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)


def relative_l2(out: torch.Tensor, ref: torch.Tensor) -> float:
    out, ref = out.double(), ref.double()
    return float(torch.linalg.norm(out - ref) / torch.linalg.norm(ref))


def ncu_bytes(args, variant: str) -> int | None:
    """DRAM bytes of one forward of `variant`, measured by Nsight Compute in a child process."""
    if not args.ncu or shutil.which("ncu") is None:
        return None
    command = ["ncu", "--csv", "--nvtx", "--nvtx-include", "forward/", "--metrics",
               "dram__bytes_read.sum,dram__bytes_write.sum", sys.executable, __file__, "--models", str(args.models),
               "--child", variant]
    result = subprocess.run(command, capture_output=True, text=True)
    total = 0
    for line in result.stdout.splitlines():
        fields = [f.strip('"') for f in line.split('","')]
        if len(fields) > 3 and fields[-3] in ("dram__bytes_read.sum", "dram__bytes_write.sum"):
            unit, value = fields[-2], float(fields[-1].replace(",", ""))
            total += value * {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}.get(unit, 1)
    return int(total) if total else None


def torch_variants(models: pathlib.Path):
    block = Block(load_weights(models / "weights.npz")).cuda().eval()
    return {"torch eager": block, "torch.compile": torch.compile(block)}


def child(args) -> int:
    torch.manual_seed(args.seed)
    x = (torch.rand(BATCH, SEQ, WIDTH, device="cuda") * 4 - 2).bfloat16()
    fn = torch_variants(args.models)[args.child]
    with torch.no_grad():
        for _ in range(3):
            fn(x)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("forward")
        fn(x)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
    return 0


def run_kiln(args, x_path: pathlib.Path, out_dir: pathlib.Path, unfused: bool) -> dict:
    command = shlex.split(args.kiln) + ["run", str(args.models / f"{MODEL}.onnx"), "--json", "--no-check",
                                        f"--iters={args.reps}", f"--inputs=x={x_path}", f"--save-outputs={out_dir}"]
    if unfused:
        command.append("--unfused")
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        return {"error": (result.stderr or result.stdout).strip()}
    report = json.loads(result.stdout[result.stdout.index("{"):])
    per_kernel = [{"name": k["name"], "kind": k["kind"], "strategy": k["strategy"], "bytes": k["bytes"],
                   "us": k["us"], "roofline_us": k["roofline_us"]} for k in report["kernels"]]
    return {"kernels": len(report["kernels"]), "bytes": report["total"]["bytes"], "us": report["total"]["us"],
            "roofline_us": report["total"]["roofline_us"], "compile_ms": report["compile_ms"], "gpu": report["gpu"],
            "per_kernel": per_kernel}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kiln", default="build/kiln")
    parser.add_argument("--models", type=pathlib.Path, default=pathlib.Path("bench/models"))
    parser.add_argument("--out", type=pathlib.Path)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ncu", action="store_true", help="measure PyTorch's DRAM bytes with Nsight Compute")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    if args.out is None:
        parser.error("--out is required")
    args.out.mkdir(parents=True, exist_ok=True)

    torch.manual_seed(args.seed)
    x = (torch.rand(BATCH, SEQ, WIDTH, device="cuda") * 4 - 2).bfloat16()
    rows = []
    with torch.no_grad(), tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        np.save(tmp / "x.npy", x.float().cpu().numpy())  # bf16 values, exactly, as float32
        variants = torch_variants(args.models)
        reference = variants["torch eager"](x)
        for label, unfused in (("kiln fused", False), ("kiln unfused", True)):
            row = {"label": label, **run_kiln(args, tmp / "x.npy", tmp / label.replace(" ", "_"), unfused)}
            saved = tmp / label.replace(" ", "_") / "y.npy"
            if saved.exists():
                row["rel_l2_vs_eager"] = relative_l2(torch.from_numpy(np.load(saved)).cuda(), reference)
            rows.append(row)
        for label, fn in variants.items():
            out = fn(x)
            rows.append({"label": label, "kernels": count_kernels(lambda: fn(x)), "bytes": ncu_bytes(args, label),
                         "us": median_us(lambda: fn(x), args.reps), "rel_l2_vs_eager": relative_l2(out, reference)})

    result = {"workload": f"GPT-2-small block, bf16, B={BATCH} S={SEQ} d={WIDTH} heads={HEADS}, exported-style ONNX",
              "gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "reps": args.reps, "rows": rows}
    (args.out / "gpt2_block.json").write_text(json.dumps(result, indent=1) + "\n")
    lines = [f"# {result['workload']}", "", f"GPU: {result['gpu']}; torch {result['torch']}; median of {args.reps}.", "",
             "| variant | kernels | bytes | time (us) | rel. L2 vs eager |", "|---|---:|---:|---:|---:|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['label']} | failed: {r['error'][:120]} | | | |")
            continue
        nbytes = f"{r['bytes']:,}" if r.get("bytes") else "not measured"
        lines.append(f"| {r['label']} | {r['kernels']} | {nbytes} | {r['us']:.1f} | {r.get('rel_l2_vs_eager', float('nan')):.2e} |")
    fused = next((r for r in rows if r["label"] == "kiln fused" and "per_kernel" in r), None)
    if fused:
        # Where kiln's time goes: each kernel against its roofline (bytes / copy rate, or FLOPs / the
        # matmul rate), so the kernels that miss theirs stand out.
        lines += ["", f"kiln fused, kernel by kernel (roofline of the plan {fused['roofline_us']:.1f} us):", "",
                  "| kernel | strategy | bytes | time (us) | roofline (us) | of roofline |", "|---|---|---:|---:|---:|---:|"]
        for k in fused["per_kernel"]:
            lines.append(f"| {k['name']} | {k['strategy']} | {k['bytes']:,} | {k['us']:.1f} | {k['roofline_us']:.1f} | "
                         f"{k['roofline_us'] / k['us']:.0%} |")
    (args.out / "gpt2_block.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
