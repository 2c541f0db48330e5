#!/bin/bash
# Call 7 (s9): transpose row ends written element by element from shared memory in whole items
# apart from the vector path (no calls, no clipped vectors): timing against the binary before
# the inline fix (1145b23), alone on the GPU; then every transpose GPU test beside the first 300
# differential graphs.
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
start=$(date +%s)
( KILN_DIFFERENTIAL_GRAPHS=200 timeout 110 .gpu/run gpu_test --gtest_filter='DifferentialGpuTest.Random*' > $OUT/gpu_test.log 2>&1; echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/gpu_test.log ) &
timeout 110 .gpu/run runtime_test --gtest_filter='TransposeGpuTest.*' > $OUT/transpose_test.log 2>&1; echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/transpose_test.log
wait
cat $OUT/timing.log; grep -E "OK|FAIL|differential|rc=" $OUT/transpose_test.log $OUT/gpu_test.log
