#!/bin/bash
# Call A (s27): the committed code of d7b09b6 (s26's held-rows change, first on a GPU without a switch).
# On one machine, in this order:
# - RowGpuTest (every row kernel against the CPU reference; the gated layernorm's spilling ask tuned);
# - layernorm and rmsnorm over 1335 rows of 50257 and of 50256 (aligned) bf16, and layernorm without
#   its bias (one column operand), timed twice in turn, then each under ncu (untuned, one launch): what
#   the second column operand and the unaligned rows cost, and where the column operands' bytes go;
# - the rows-per-block prototype (../prototype), twice;
# - compute-sanitizer memcheck of unaligned cluster and block-per-row kernels, untuned, one launch;
# - the sweep for the time left, from .gpu/state/<card>.json.
# The first argument caps the call (seconds); the second is the tests' gtest filter ("none": no tests).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cap=${1:-590}
start=$(date +%s)
o=/tmp/oA; mkdir -p $o
left() { echo $(( cap - ($(date +%s) - start) )); }
save() { tar czf $OUT/callA.tgz -C $o .; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt
filter=${2:-RowGpuTest.*}
if [ "$filter" != none ]; then
  KILN_CACHE_DIR=/tmp/kcA timeout 150 .gpu/run runtime_test --gtest_filter="$filter" > $o/tests_runtime.log 2>&1
  echo "runtime tests rc=$? $(( $(date +%s) - start ))s" >> $o/log.txt; save
fi
for t in 1 2; do timeout 60 .gpu/bin/rows_per_block 50 > $o/proto_$t.txt 2>&1; done
echo "prototype rc=$? $(( $(date +%s) - start ))s" >> $o/log.txt; save
cases="layernorm_1335x50257_bf16 layernorm_1335x50256_bf16 layernormnobias_1335x50257_bf16 rmsnorm_1335x50257_bf16 rmsnorm_1335x50256_bf16"
for round in 1 2; do
  for c in $cases; do
    KILN_CACHE_DIR=/tmp/kcA timeout 60 .gpu/run kiln run .gpu/graphs10/$c.textproto --iters=100 --no-check > $o/time_${c}_$round.txt 2>&1
  done
done
echo "timing rc=$? $(( $(date +%s) - start ))s" >> $o/log.txt; save
for c in $cases; do
  [ "$c" = rmsnorm_1335x50256_bf16 ] && continue
  KILN_CACHE_DIR=/tmp/kcA timeout 60 ncu --kernel-name f0_row_reduction --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats \
    .gpu/run kiln run .gpu/graphs10/$c.textproto --iters=1 --no-check --autotune=off > $o/ncu_$c.txt 2>&1
  echo "ncu $c rc=$? $(( $(date +%s) - start ))s" >> $o/log.txt; save
done
for c in layernorm_1335x50257_bf16 softmax_512x131071_f32 layernorm_16396x4093_bf16; do
  KILN_CACHE_DIR=/tmp/kcA timeout 90 compute-sanitizer --tool memcheck --error-exitcode 7 \
    .gpu/run kiln run .gpu/graphs9/$c.textproto --iters=1 --autotune=off > $o/memcheck_$c.txt 2>&1
  echo "memcheck $c rc=$? $(( $(date +%s) - start ))s" >> $o/log.txt; save
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
