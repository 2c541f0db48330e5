#!/bin/bash
# Call 4 (s12): bounds tests only on the slots that can pass a segment's end (kFullSlots). The row
# GPU tests, then the rows of 127 timed against call 3's build (kiln_scalar).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
KILN_CACHE_DIR=/tmp/kc-t timeout 80 .gpu/run runtime_test --gtest_filter='RowGpuTest.*' > $OUT/tests.log 2>&1
echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/tests.log
for g in .gpu/graphs/odd/logsumexp_528416x127_f32 .gpu/graphs/odd2/logsumexp_528416x127_bf16 .gpu/graphs/odd2/softmax_528416x127_bf16 .gpu/graphs/rows/rmsnorm_16396x4093_bf16; do
  n=$(basename $g)
  for b in kiln_scalar kiln; do
    t=$(KILN_CACHE_DIR=/tmp/kc-$b .gpu/run $b run $g.textproto --iters=30 2>&1 | awk '/^total/ {print $(NF-3)} /check:/ {print}' | tr '\n' ' ')
    echo "$n $b $t" >> $OUT/timing.txt
  done
done
echo "done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
