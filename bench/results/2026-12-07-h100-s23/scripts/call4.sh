#!/bin/bash
# Call 4 (s23): few rows over clusters that all fit at once. On one machine, in this order:
# - the GPU tests of the change: the device's resident-cluster table, the row kernels against the
#   CPU reference (RowGpuTest, which covers 2, 8 and 64 rows over clusters), and the CLI's tuning test;
# - each case whose plan changed (changed_plans.txt, in .gpu/graphs4) timed under kiln_base (main
#   before the change, clusters of 8) and kiln (this change), 50 iterations, no check;
# - compute-sanitizer's memcheck of two changed kernels;
# - kiln run's check against the CPU reference of the changed cases, for the time left.
# Results stay in /tmp/o4 and are tarred into $OUT at each step: only a few files come back.
export PATH=/usr/local/cuda/bin:$PATH
cap=${1:-400}
start=$(date +%s)
o=/tmp/o4; mkdir -p $o
left() { echo $(( cap - ($(date +%s) - start) )); }
save() { tar czf $OUT/call4.tgz -C $o .; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt
KILN_CACHE_DIR=/tmp/kc4 timeout 150 .gpu/run runtime_test \
  --gtest_filter='LoadedKernelGpuTest.*:LoadedKernelTest.*:RowGpuTest.*:DeviceGpuTest.*' > $o/tests_runtime.log 2>&1
KILN_CACHE_DIR=/tmp/kc4 timeout 60 .gpu/run frontends_test --gtest_filter='RunCliGpuTest.TuneAheadOfTimeIsWhatRunUses' \
  > $o/tests_cli.log 2>&1
echo "tests done $(( $(date +%s) - start ))s" >> $o/log.txt; save
for g in .gpu/graphs4/*.textproto; do
  [ $(left) -lt 120 ] && { echo "timing stopped at $g" >> $o/log.txt; break; }
  for b in kiln_base kiln; do
    echo "== $(basename $g .textproto) $b" >> $o/times.txt
    KILN_CACHE_DIR=/tmp/kc4 timeout 30 .gpu/run $b run $g --iters=50 --no-check 2>&1 \
      | grep -E "^f[0-9]+_|^total|clusters of|error|Error" >> $o/times.txt
  done
done
echo "timing done $(( $(date +%s) - start ))s" >> $o/log.txt; save
for c in logsumexp_32x2097152_bf16 layernorm_32x2097152_bf16; do
  KILN_CACHE_DIR=/tmp/kc4 timeout 60 compute-sanitizer --tool memcheck --print-limit 5 \
    .gpu/run kiln run .gpu/graphs4/$c.textproto --iters=1 --no-check > $o/memcheck_$c.log 2>&1
  echo "memcheck $c rc=$?" >> $o/log.txt
done
save
for g in .gpu/graphs4/*.textproto; do
  [ $(left) -lt 25 ] && { echo "checks stopped at $g" >> $o/log.txt; break; }
  echo "== $(basename $g .textproto)" >> $o/checks.txt
  KILN_CACHE_DIR=/tmp/kc4 timeout 20 .gpu/run kiln run $g --iters=1 2>&1 | grep -i -E "check|match|error|differ" >> $o/checks.txt
done
echo "all done $(( $(date +%s) - start ))s" >> $o/log.txt; save
