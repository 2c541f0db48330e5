#!/bin/bash
# Call 2 (s15): pointwise broadcasts find each vector's column and row by a step from one division
# a thread, and a vector within one row reads its columns without per-element selects. The
# pointwise GPU tests and the differential suite; old (kiln_base, fcc08f4) against new kiln run
# times on the sweep's pointwise cases with broadcasts; ncu of pointwise3 [8191,8191] bf16.
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
G=.gpu/graphs/s15
KILN_CACHE_DIR=/tmp/kc-t timeout 200 .gpu/run runtime_test --gtest_filter='PointwiseGpuTest.*' > $OUT/tests.log 2>&1
echo "runtime_test rc=$? $(( $(date +%s) - start ))s" >> $OUT/tests.log
KILN_CACHE_DIR=/tmp/kc-g KILN_DIFFERENTIAL_GRAPHS=300 timeout 150 .gpu/run gpu_test --gtest_filter='DifferentialGpuTest.Random*' 2>&1 | tail -4 >> $OUT/tests.log
echo "gpu_test rc=$? $(( $(date +%s) - start ))s" >> $OUT/tests.log
for g in pointwise3_8191x8191_bf16 pointwise4_8191x8191_f32 pointwise3_333x12345_bf16 pointwise4_7x33_f16; do
  KILN_CACHE_DIR=/tmp/kc-kiln timeout 60 .gpu/run kiln run $G/$g.textproto --iters=3 2>&1 | grep -iE "check" | head -3 | sed "s/^/$g: /" >> $OUT/tests.log
done
for g in $G/*.textproto; do
  for b in kiln_base kiln kiln_base kiln; do
    t=$(KILN_CACHE_DIR=/tmp/kc-$b .gpu/run $b run $g --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)}')
    echo "$(basename $g .textproto) $b $t" >> $OUT/timing.txt
  done
done
echo "timing done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
n=pointwise3_8191x8191_bf16
KILN_CACHE_DIR=/tmp/kc-kiln timeout 90 ncu --set full -k regex:f0_ -c 1 -f -o /tmp/$n .gpu/run kiln run $G/$n.textproto --iters=1 --no-check > /tmp/$n.log 2>&1
ncu --import /tmp/$n.ncu-rep --page details > $OUT/$n.details.txt 2>&1
echo "all done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
