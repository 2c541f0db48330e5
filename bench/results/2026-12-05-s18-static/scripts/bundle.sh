#!/bin/bash
# Builds the bundle for calls 1 and 2 (run from the repository root, on the
# CPU machine): kiln_main from main as it is, kiln_pairs and the GPU test
# binaries from main with pending/held_pairs.patch applied, and the graphs of
# the 72 cases whose plan the patch changes. Leaves the sources as it found
# them; build/ keeps the patched objects until the next build.
set -euo pipefail
here=bench/results/2026-12-05-s18-static
mkdir -p /tmp/kb
cmake --build build --target kiln
cp build/kiln /tmp/kb/kiln_main
git apply "$here/pending/held_pairs.patch"
trap 'git apply -R "$here/pending/held_pairs.patch"' EXIT
cmake --build build
cp build/kiln /tmp/kb/kiln_pairs
python3 bench/sweep/generate_cases.py /tmp/g > /dev/null
rm -rf .gpu
/work/shared/tools/gpu-bundle .gpu /tmp/kb/kiln_main /tmp/kb/kiln_pairs build/tests/runtime_test build/tests/gpu_test
mkdir -p .gpu/graphs
for c in $(cat "$here/cases.txt"); do cp "/tmp/g/$c.textproto" .gpu/graphs/; done
cp "$here"/graphs/*.textproto .gpu/graphs/
cp "$here/cases.txt" "$here"/scripts/call*.sh .gpu/
