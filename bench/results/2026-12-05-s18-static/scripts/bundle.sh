#!/bin/bash
# Builds the bundle for calls 1 and 2 (run from the repository root, on the
# CPU machine): kiln_main from main as it is, kiln_pairs and the GPU test
# binaries from the patch's base (b7606a6) with pending/held_pairs.patch
# applied, in a worktree and build folder of their own (about 25 minutes on
# 2 cores), and the graphs of the 72 cases whose plan the patch changes.
# Main's sources and build/ are left as they are.
set -euo pipefail
here=bench/results/2026-12-05-s18-static
src=/tmp/kiln-pairs-src
mkdir -p /tmp/kb
cmake --build build --target kiln
cp build/kiln /tmp/kb/kiln_main
[ -d "$src" ] || git worktree add --detach "$src" b7606a6
git -C "$src" checkout -- .
git -C "$src" apply "$PWD/$here/pending/held_pairs.patch"
[ -f /tmp/kiln-pairs-build/build.ninja ] || cmake -S "$src" -B /tmp/kiln-pairs-build -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda
cmake --build /tmp/kiln-pairs-build
cp /tmp/kiln-pairs-build/kiln /tmp/kb/kiln_pairs
python3 bench/sweep/generate_cases.py /tmp/g > /dev/null
rm -rf .gpu
/work/shared/tools/gpu-bundle .gpu /tmp/kb/kiln_main /tmp/kb/kiln_pairs /tmp/kiln-pairs-build/tests/runtime_test \
  /tmp/kiln-pairs-build/tests/gpu_test
mkdir -p .gpu/graphs
for c in $(cat "$here/cases.txt"); do cp "/tmp/g/$c.textproto" .gpu/graphs/; done
cp "$here"/graphs/*.textproto .gpu/graphs/
cp "$here/cases.txt" "$here"/scripts/call*.sh .gpu/
