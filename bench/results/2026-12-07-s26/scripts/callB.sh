#!/bin/bash
# Call B and after (s26): the committed change (edge first, slots in a loop; no switch), then the
# sweep. On one machine, in this order:
# - RowGpuTest (every row kernel against the CPU reference; the gated layernorm's spilling ask tuned);
# - ncu of layernorm and rmsnorm [1335, 50257] bf16 (untuned, one launch): where layernorm's second
#   column operand goes (L1/L2 traffic, stalls);
# - the sweep for the time left, from .gpu/state/<card>.json: on an H100 call A's sweep.json (595
#   cases); on an H200 s15's entries less the 99 cases s26 changes (533), so 319 are timed.
# A warm machine goes on from /tmp/ds; copy the previous call's sweep.json to the state between calls.
# The first argument caps the call (seconds); the second is the tests' gtest filter ("none": no
# tests). Call A ran every RowGpuTest on source identical to this commit's; the test that is new
# here is ALaunchBoundThatSpillsIsTuned's gated layernorm.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cap=${1:-590}
start=$(date +%s)
o=/tmp/oB; mkdir -p $o
left() { echo $(( cap - ($(date +%s) - start) )); }
save() { tar czf $OUT/callB.tgz -C $o .; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt
filter=${2:-RowGpuTest.*}
if [ "$filter" != none ]; then
  KILN_CACHE_DIR=/tmp/kcB timeout 150 .gpu/run runtime_test --gtest_filter="$filter" > $o/tests_runtime.log 2>&1
  echo "runtime tests rc=$? $(( $(date +%s) - start ))s" >> $o/log.txt; save
fi
for c in layernorm_1335x50257_bf16 rmsnorm_1335x50257_bf16; do
  KILN_CACHE_DIR=/tmp/kcB timeout 60 ncu --kernel-name f0_row_reduction --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section Occupancy --section LaunchStats \
    .gpu/run kiln run .gpu/graphs9/$c.textproto --iters=1 --no-check --autotune=off > $o/ncu_$c.txt 2>&1
  echo "ncu $c rc=$? $(( $(date +%s) - start ))s" >> $o/log.txt; save
done
card=h100; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && card=h200
gate=64; [ "$card" = h100 ] && gate=40
sweep=/tmp/ds/sweep-$card; mkdir -p $sweep
[ -f $sweep/sweep.json ] || cp .gpu/state/$card.json $sweep/sweep.json
echo "sweep starts with $(python3 -c "import json;print(len(json.load(open('$sweep/sweep.json'))['cases']))") cases" >> $o/log.txt
( while sleep 20; do cp $sweep/sweep.json $o/ 2>/dev/null; save; done ) &
timeout $(( $(left) + 20 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out $sweep \
  --skip-done --warm-gpu-gb $gate --budget-s $(( $(left) - 15 )) >> $o/sweep.log 2>&1
cp $sweep/sweep.json $sweep/phases.json $o/ 2>/dev/null
echo "all done $(( $(date +%s) - start ))s" >> $o/log.txt; save
