#!/bin/bash
# Builds the bundle for call 4 (run from the repository root, on the CPU
# machine): kiln_main from the checkout as it is, and kiln_new and the GPU
# test binaries from the commit that pending/exp_fold.patch applies to
# (8c590bd) with the patch applied, in a worktree and build folder of their
# own (about 25 minutes on 2 cores); and the graphs of the 65 sweep cases
# whose kernel takes an online pair (softmax and logsumexp). The checkout's sources and
# build/ are left as they are.
set -euo pipefail
here=bench/results/2026-12-05-h200-s19
src=/tmp/kiln-exp-src
mkdir -p /tmp/kb
cmake --build build --target kiln
cp build/kiln /tmp/kb/kiln_main
[ -d "$src" ] || git worktree add --detach "$src" 8c590bd
git -C "$src" checkout -- .
git -C "$src" apply "$PWD/$here/pending/exp_fold.patch"
[ -f /tmp/kiln-exp-build/build.ninja ] || cmake -S "$src" -B /tmp/kiln-exp-build -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda
cmake --build /tmp/kiln-exp-build --target kiln runtime_test gpu_test
cp /tmp/kiln-exp-build/kiln /tmp/kb/kiln_new
python3 bench/sweep/generate_cases.py /tmp/g > /dev/null
rm -rf .gpu
/work/shared/tools/gpu-bundle .gpu /tmp/kb/kiln_main /tmp/kb/kiln_new /tmp/kiln-exp-build/tests/runtime_test \
  /tmp/kiln-exp-build/tests/gpu_test
mkdir -p .gpu/graphs
for c in $(cat "$here/pending/online_cases.txt"); do cp "/tmp/g/$c.textproto" .gpu/graphs/; done
cp "$here/pending/online_cases.txt" "$here/scripts/call4.sh" .gpu/
