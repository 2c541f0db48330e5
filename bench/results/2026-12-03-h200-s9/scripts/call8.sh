#!/bin/bash
# Call 8 (s9): transpose row ends by every thread of the block after the vector path, tensor ends
# by a whole tile element by element: timing against the binary before the inline fix, then every
# transpose GPU test.
export PATH=/usr/local/cuda/bin:$PATH
export KILN_CACHE_DIR=/tmp/kiln-cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
G=.gpu/graphs
{
for g in tr_bf16 tr_f32 tr3_bf16 tr3_f32; do
  for k in kiln_old kiln; do
    echo "== $g $k"; timeout 30 .gpu/run $k run $G/$g.textproto --iters=100 2>&1 | grep -E "^f0_|check"
  done
done
echo "== t654"; timeout 30 .gpu/run kiln run $G/t654.textproto --seed=1654 --iters=5 2>&1 | grep check
} > $OUT/timing.log 2>&1
timeout 60 .gpu/run runtime_test --gtest_filter='TransposeGpuTest.*' > $OUT/transpose_test.log 2>&1; echo "rc=$?" >> $OUT/transpose_test.log
cat $OUT/timing.log; grep -E "OK|FAIL|rc=" $OUT/transpose_test.log
