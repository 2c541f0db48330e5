#!/bin/bash
# Call 3 (s9): the transpose edge fix (element-wise ends inline, no calls). Old against new
# timing of the straddling transposes first, alone on the GPU; then the transpose GPU tests (the
# new graph-654 case included) beside the 1000-graph differential suite.
export PATH=/usr/local/cuda/bin:$PATH
export KILN_CACHE_DIR=/tmp/kiln-cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $OUT/gpu.txt
G=.gpu/graphs
{
for g in tr_bf16 tr_f32 tr3_bf16 tr3_f32; do
  for k in kiln_old kiln kiln_old kiln; do
    echo "== $g $k"; timeout 60 .gpu/run $k run $G/$g.textproto --iters=100 2>&1 | grep -E "^f0_|check"
  done
done
echo "== t654 new"; timeout 60 .gpu/run kiln run $G/t654.textproto --seed=1654 --iters=5 2>&1 | grep check
echo "== g654 new"; timeout 60 .gpu/run kiln run $G/g654.pb --seed=1654 --iters=5 2>&1 | grep check
echo "== g654 new unfused"; timeout 60 .gpu/run kiln run $G/g654.pb --seed=1654 --iters=5 --unfused 2>&1 | grep check
} > $OUT/timing.log 2>&1
start=$(date +%s)
( timeout 420 .gpu/run gpu_test > $OUT/gpu_test.log 2>&1; echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/gpu_test.log ) &
timeout 400 .gpu/run runtime_test --gtest_filter='TransposeGpuTest.*:PointwiseGpuTest.*' > $OUT/transpose_test.log 2>&1; echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/transpose_test.log
wait
cat $OUT/timing.log; grep -E "OK|FAIL|differential|rc=" $OUT/transpose_test.log $OUT/gpu_test.log
