#!/bin/bash
# Call 1 (s25): held rows in shared memory taken in turn (codegen/row_emitter.cc, rows_strided_;
# runtime/kernel_launch.h), and held moments in one pass (kiln_moments_shifted). On one machine, in
# this order:
# - the GPU tests of the change: every row kernel against the CPU reference with the new
#   RowGpuTest.RowsTakenInTurnMatchTheReference, the loaded-kernel tests, the CLI's GPU tests;
# - compute-sanitizer's memcheck of two strided kernels (a cluster on unaligned rows, a block a row)
#   and racecheck of the second, untuned;
# - timed_cases.txt under kiln_base (3d8b85f, one row a block or cluster), kiln_strided (ee0cff0, rows
#   taken in turn) and kiln (da342fc, rows taken in turn and held moments in one pass), in turn,
#   50 iterations, no check, twice while time is left; kiln's notes come with them.
# Results stay in /tmp/o1 and are tarred into $OUT at each step: only a few files come back.
export PATH=/usr/local/cuda/bin:$PATH
cap=${1:-480}
start=$(date +%s)
o=/tmp/o1; mkdir -p $o
here=$(dirname "$0")
left() { echo $(( cap - ($(date +%s) - start) )); }
save() { tar czf $OUT/call1.tgz -C $o .; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt
save
KILN_CACHE_DIR=/tmp/kc1 timeout 200 .gpu/run runtime_test \
  --gtest_filter='LoadedKernelGpuTest.*:LoadedKernelTest.*:RowGpuTest.*:ExecutableGpuTest.*' \
  > $o/tests_runtime.log 2>&1
echo "runtime tests rc=$? $(( $(date +%s) - start ))s" >> $o/log.txt; save
KILN_CACHE_DIR=/tmp/kc1 timeout 90 .gpu/run frontends_test --gtest_filter='RunCliGpuTest.*' > $o/tests_cli.log 2>&1
echo "cli tests rc=$? $(( $(date +%s) - start ))s" >> $o/log.txt; save
for check in memcheck:layernorm_1335x50257_bf16 memcheck:rmsnorm_1000x32768_bf16 racecheck:rmsnorm_1000x32768_bf16; do
  tool=${check%%:*}; c=${check#*:}
  KILN_CACHE_DIR=/tmp/kc1 timeout 60 compute-sanitizer --tool $tool --print-limit 5 \
    .gpu/run kiln run .gpu/graphs7/$c.textproto --iters=1 --no-check --autotune=off > $o/$tool-$c.log 2>&1
  echo "$tool $c rc=$? $(( $(date +%s) - start ))s" >> $o/log.txt
done
save
for round in 1 2; do
  for c in $(cat $here/timed_cases.txt); do
    [ $(left) -lt 20 ] && { echo "timing stopped at $c round $round" >> $o/log.txt; break 2; }
    for b in kiln_base kiln_strided kiln; do
      echo "== $c $b $round" >> $o/times.txt
      KILN_CACHE_DIR=/tmp/kc1 timeout 40 .gpu/run $b run .gpu/graphs7/$c.textproto --iters=50 --no-check 2>&1 \
        | grep -E "^f[0-9]+_|^total|clusters|blocks|tuned|error|Error" >> $o/times.txt
    done
  done
  save
done
echo "all done $(( $(date +%s) - start ))s" >> $o/log.txt; save
