#!/bin/bash
# Call 1 (s21): main at 6d3ea20 (kiln run times a copy of the plan's own bytes): the row and CLI GPU
# tests, 100 differential graphs, kiln run on four sizes, then the sweep's cases whose kernels changed
# since s15 (../changed_cases.txt: their PTX differs between f5b067c and main), for the time left.
# .gpu/state/sweep.json is s15's sweep.json without those cases, so --skip-done leaves the rest to
# their s15 entries. The sweep's state stays in /tmp/ds for the next call on this machine.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $OUT/gpu.txt
KILN_CACHE_DIR=/tmp/kc-t timeout 120 .gpu/run runtime_test --gtest_filter='RowGpuTest.*' 2>&1 \
  | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure" > $OUT/tests.log
KILN_CACHE_DIR=/tmp/kc-t timeout 60 .gpu/run frontends_test --gtest_filter='RunCliGpuTest.*' 2>&1 \
  | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure" >> $OUT/tests.log
KILN_CACHE_DIR=/tmp/kc-g KILN_DIFFERENTIAL_GRAPHS=100 timeout 60 .gpu/run gpu_test \
  --gtest_filter='DifferentialGpuTest.Random*' 2>&1 | tail -3 >> $OUT/tests.log
echo "tests done $(( $(date +%s) - start ))s" >> $OUT/tests.log
for g in .gpu/graphs/*.textproto; do
  KILN_CACHE_DIR=/tmp/kc-t timeout 30 .gpu/run kiln run $g --iters=30 > $OUT/run_$(basename $g .textproto).txt 2>&1
done
echo "runs done $(( $(date +%s) - start ))s" >> $OUT/tests.log
# An H100 holds 80 GB: leave the timing process room beside the warm workers.
gate=64; [ "$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)" -lt 100000 ] && gate=40
left=$(( 555 - ($(date +%s) - start) ))
mkdir -p /tmp/ds/sweep
[ -f /tmp/ds/sweep/sweep.json ] || cp .gpu/state/sweep.json /tmp/ds/sweep/
timeout $(( left + 30 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out /tmp/ds/sweep \
  --skip-done --warm-gpu-gb $gate --budget-s $left > $OUT/sweep.log 2>&1
cp /tmp/ds/sweep/sweep.json /tmp/ds/sweep/phases.json $OUT/ 2>/dev/null
echo "all done $(( $(date +%s) - start ))s" >> $OUT/tests.log
