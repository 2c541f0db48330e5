#!/bin/bash
# Call 1 (s28): the committed code (585525c; its row kernels are d7b09b6's).
# - RowGpuTest (every row kernel against the CPU reference; s26's gated-layernorm tuning test, which
#   has never run on this code);
# - compute-sanitizer memcheck of the unaligned cluster kernel, layernorm [1335, 50257] bf16;
# - ncu source counters, SASS by SASS, of layernorm and rmsnorm [1335, 50257] bf16 (which
#   instructions issue most, where warps stall) and of layernorm [32, 2097152] bf16 in clusters of 8
#   (how much of it waits on the cluster's exchange); untuned, one launch each;
# - the sweep's cases left on this card, for the time left.
# The first argument caps the call (seconds); the second is the tests' gtest filter.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cap=${1:-590}
start=$(date +%s)
o=/tmp/o1; mkdir -p $o
left() { echo $(( cap - ($(date +%s) - start) )); }
stamp() { echo "$1 rc=$2 $(( $(date +%s) - start ))s" >> $o/log.txt; tar czf $OUT/call1.tgz -C $o .; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt
KILN_CACHE_DIR=/tmp/kc1 timeout 200 .gpu/run runtime_test --gtest_filter="${2:-RowGpuTest.*}" > $o/tests_runtime.log 2>&1
stamp "runtime tests" $?
KILN_CACHE_DIR=/tmp/kc1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 7 \
  .gpu/run kiln run .gpu/graphs11/layernorm_1335x50257_bf16.textproto --iters=1 --autotune=off > $o/memcheck_layernorm_1335x50257_bf16.txt 2>&1
stamp "memcheck" $?
for c in layernorm_1335x50257_bf16 rmsnorm_1335x50257_bf16 layernorm_32x2097152_bf16; do
  KILN_CACHE_DIR=/tmp/kc1 timeout 90 ncu --kernel-name regex:row_reduction --launch-count 1 \
    --section SourceCounters --section InstructionStats --section WarpStateStats --section SchedulerStats \
    --section SpeedOfLight --section LaunchStats --section Occupancy -o $o/ncu_$c \
    .gpu/run kiln run .gpu/graphs11/$c.textproto --iters=1 --no-check --autotune=off > $o/ncu_$c.log 2>&1
  r=$?
  ncu -i $o/ncu_$c.ncu-rep --page details > $o/ncu_$c.txt 2>&1
  ncu -i $o/ncu_$c.ncu-rep --page source --print-source sass --csv > $o/ncu_${c}_sass.csv 2>&1
  stamp "ncu $c" $r
done
rm -f $o/*.ncu-rep
card=h100; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && card=h200
gate=64; [ "$card" = h100 ] && gate=40
sweep=/tmp/ds/sweep-$card; mkdir -p $sweep
[ -f $sweep/sweep.json ] || cp .gpu/state/$card.json $sweep/sweep.json
echo "sweep starts with $(python3 -c "import json;print(len(json.load(open('$sweep/sweep.json'))['cases']))") cases" >> $o/log.txt
( while sleep 15; do cp $sweep/sweep.json $o/ 2>/dev/null; tar czf $OUT/call1.tgz -C $o .; done ) &
timeout $(( $(left) + 20 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out $sweep \
  --skip-done --warm-gpu-gb $gate --budget-s $(( $(left) - 15 )) >> $o/sweep.log 2>&1
cp $sweep/sweep.json $sweep/phases.json $o/ 2>/dev/null
stamp "all done" 0
