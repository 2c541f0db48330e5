#!/bin/bash
# Call 1 (s22): main with the clusters' residency note: the CLI's and the residency's GPU tests,
# kiln run on four graphs (one of them the broadcast-only rows of the 58ff4a0 planner fix), then
# the sweep's 316 cases whose kernels changed since s15 (../../2026-12-06-h100-s21/changed_cases.txt),
# for the time left.
# .gpu/state/sweep.json is s15's sweep.json without those cases, so --skip-done leaves the rest to
# their s15 entries. The sweep's state stays in /tmp/ds for the next call on this machine.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
# The first argument caps the call (seconds), for when less device time is left than a full call.
cap=${1:-560}
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $OUT/gpu.txt
# The clusters the GPU holds at once (bench/probes/cluster_residency.cu, built here with nvcc).
.gpu/bin/cluster_residency > $OUT/cluster_residency.txt 2>&1
KILN_CACHE_DIR=/tmp/kc-t timeout 90 .gpu/run frontends_test --gtest_filter='RunCliGpuTest.*' 2>&1 \
  | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure" > $OUT/tests.log
KILN_CACHE_DIR=/tmp/kc-t timeout 120 .gpu/run runtime_test \
  --gtest_filter='LoadedKernelGpuTest.*:ClusterWaves*:RowGpuTest.ALaunchBoundThatSpillsIsTuned' 2>&1 \
  | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure|clusters of" >> $OUT/tests.log
echo "tests done $(( $(date +%s) - start ))s" >> $OUT/tests.log
for g in .gpu/graphs/*.textproto; do
  KILN_CACHE_DIR=/tmp/kc-t timeout 30 .gpu/run kiln run $g --iters=30 > $OUT/run_$(basename $g .textproto).txt 2>&1
done
echo "runs done $(( $(date +%s) - start ))s" >> $OUT/tests.log
# An H100 holds 80 GB: leave the timing process room beside the warm workers.
gate=64; [ "$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)" -lt 100000 ] && gate=40
left=$(( cap - 5 - ($(date +%s) - start) ))
# On an H200 the sweep keeps s15's (H200) entries of the unchanged cases; on any other card it starts
# from nothing, since its times cannot stand beside an H200's, and takes the changed cases alone.
only=".*"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then sweep=/tmp/ds/sweep
else sweep=/tmp/ds/sweep-other; only="^($(paste -sd'|' .gpu/state/changed.txt))$"; fi
mkdir -p $sweep
[ -f $sweep/sweep.json ] || { [ $sweep = /tmp/ds/sweep ] && cp .gpu/state/sweep.json $sweep/; }
( while sleep 20; do cp $sweep/sweep.json $OUT/ 2>/dev/null; done ) &
timeout $(( left + 30 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out $sweep \
  --filter "$only" --skip-done --warm-gpu-gb $gate --budget-s $left > $OUT/sweep.log 2>&1
cp $sweep/sweep.json $sweep/phases.json $OUT/ 2>/dev/null
echo "all done $(( $(date +%s) - start ))s" >> $OUT/tests.log
