#!/bin/bash
# Call B (s27): the committed code after the revert (70c0701, whose row kernels are d7b09b6's).
# - RowGpuTest (every row kernel against the CPU reference; s26's gated-layernorm tuning test);
# - compute-sanitizer memcheck of the unaligned cluster kernel, layernorm [1335, 50257] bf16;
# - ncu of layernorm [1335, 50257] bf16's instructions (source counters: where its warps stall, which
#   instructions issue most; untuned, one launch);
# - the sweep's cases left on this card, for the time left.
# The first argument caps the call (seconds); the second is the tests' gtest filter.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cap=${1:-590}
start=$(date +%s)
o=/tmp/oB; mkdir -p $o
left() { echo $(( cap - ($(date +%s) - start) )); }
stamp() { echo "$1 rc=$2 $(( $(date +%s) - start ))s" >> $o/log.txt; tar czf $OUT/callB.tgz -C $o .; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt
KILN_CACHE_DIR=/tmp/kcB timeout 200 .gpu/run runtime_test --gtest_filter="${2:-RowGpuTest.*}" > $o/tests_runtime.log 2>&1
stamp "runtime tests" $?
KILN_CACHE_DIR=/tmp/kcB timeout 60 compute-sanitizer --tool memcheck --error-exitcode 7 \
  .gpu/run kiln run .gpu/graphs11/layernorm_1335x50257_bf16.textproto --iters=1 --autotune=off > $o/memcheck_layernorm_1335x50257_bf16.txt 2>&1
stamp "memcheck" $?
KILN_CACHE_DIR=/tmp/kcB timeout 90 ncu --kernel-name f0_row_reduction --launch-count 1 \
  --section SourceCounters --section InstructionStats --section WarpStateStats --section SchedulerStats \
  .gpu/run kiln run .gpu/graphs11/layernorm_1335x50257_bf16.textproto --iters=1 --no-check --autotune=off > $o/ncu_source_layernorm.txt 2>&1
stamp "ncu source counters" $?
card=h100; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && card=h200
gate=64; [ "$card" = h100 ] && gate=40
sweep=/tmp/ds/sweep-$card; mkdir -p $sweep
[ -f $sweep/sweep.json ] || cp .gpu/state/$card.json $sweep/sweep.json
echo "sweep starts with $(python3 -c "import json;print(len(json.load(open('$sweep/sweep.json'))['cases']))") cases" >> $o/log.txt
( while sleep 15; do cp $sweep/sweep.json $o/ 2>/dev/null; tar czf $OUT/callB.tgz -C $o .; done ) &
timeout $(( $(left) + 20 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out $sweep \
  --skip-done --warm-gpu-gb $gate --budget-s $(( $(left) - 15 )) >> $o/sweep.log 2>&1
cp $sweep/sweep.json $sweep/phases.json $o/ 2>/dev/null
stamp "all done" 0
