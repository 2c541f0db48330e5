#!/bin/bash
# Call A (s27). Two kiln builds: kiln_base (d7b09b6, s26's held-rows change) and kiln (two rows a
# cluster: a cluster of twice the blocks holds two rows and reads each column vector once for both).
# On one machine, in this order:
# - RowGpuTest with the new build (every row kernel against the CPU reference, two rows a cluster
#   among them, and s26's gated-layernorm tuning test, never run on a GPU before);
# - the rows-per-block prototype (../prototype), twice;
# - the 8 sweep cases the change alters and 3 more (rows of 50256, layernorm without bias), each
#   with both builds, twice in turn;
# - ncu of layernorm and rmsnorm [1335, 50257] bf16 with both builds (untuned, one launch);
# - compute-sanitizer memcheck of unaligned cluster and block-per-row kernels (new build);
# - the sweep for the time left, from .gpu/state/<card>.json (new build).
# The first argument caps the call (seconds).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cap=${1:-590}
start=$(date +%s)
o=/tmp/oA; mkdir -p $o
left() { echo $(( cap - ($(date +%s) - start) )); }
stamp() { echo "$1 rc=$2 $(( $(date +%s) - start ))s" >> $o/log.txt; tar czf $OUT/callA.tgz -C $o .; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt
KILN_CACHE_DIR=/tmp/kcA timeout 200 .gpu/run runtime_test --gtest_filter='RowGpuTest.*' > $o/tests_runtime.log 2>&1
stamp "runtime tests (new)" $?
for t in 1 2; do timeout 60 .gpu/bin/rows_per_block 50 > $o/proto_$t.txt 2>&1; done
stamp prototype $?
for round in 1 2; do
  for f in .gpu/graphs11/*.textproto; do
    c=$(basename $f .textproto)
    for b in kiln_base kiln; do
      KILN_CACHE_DIR=/tmp/kc_$b timeout 60 .gpu/run $b run $f --iters=100 --no-check > $o/time_${c}_${b}_$round.txt 2>&1
    done
  done
  stamp "timing round $round" $?
done
for c in layernorm_1335x50257_bf16 rmsnorm_1335x50257_bf16; do
  for b in kiln_base kiln; do
    KILN_CACHE_DIR=/tmp/kc_$b timeout 60 ncu --kernel-name f0_row_reduction --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
      --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats \
      .gpu/run $b run .gpu/graphs11/$c.textproto --iters=1 --no-check --autotune=off > $o/ncu_${c}_$b.txt 2>&1
    stamp "ncu $c $b" $?
  done
done
for c in layernorm_1335x50257_bf16 rmsnorm_1335x50257_f32 layernorm_16396x4093_bf16; do
  f=.gpu/graphs11/$c.textproto; [ -f $f ] || f=.gpu/graphs9/$c.textproto
  KILN_CACHE_DIR=/tmp/kc_kiln timeout 90 compute-sanitizer --tool memcheck --error-exitcode 7 \
    .gpu/run kiln run $f --iters=1 --autotune=off > $o/memcheck_$c.txt 2>&1
  stamp "memcheck $c" $?
done
card=h100; nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && card=h200
gate=64; [ "$card" = h100 ] && gate=40
sweep=/tmp/ds/sweep-$card; mkdir -p $sweep
[ -f $sweep/sweep.json ] || cp .gpu/state/$card.json $sweep/sweep.json
echo "sweep starts with $(python3 -c "import json;print(len(json.load(open('$sweep/sweep.json'))['cases']))") cases" >> $o/log.txt
( while sleep 20; do cp $sweep/sweep.json $o/ 2>/dev/null; tar czf $OUT/callA.tgz -C $o .; done ) &
timeout $(( $(left) + 20 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out $sweep \
  --skip-done --warm-gpu-gb $gate --budget-s $(( $(left) - 15 )) >> $o/sweep.log 2>&1
cp $sweep/sweep.json $sweep/phases.json $o/ 2>/dev/null
stamp "all done" 0
