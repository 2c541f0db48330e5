#!/bin/bash
# Call 1 (s15): 32-bit pointwise indices. The pointwise GPU tests and the differential suite on
# the new build; old (kiln_base, fcc08f4) against new kiln run times on the sweep's misses; ncu of
# the misses that had no profile: pointwise3 [8191,8191] bf16 (new), transpose10 [4093,8191] bf16,
# sum axis0 [16384,1024] f32, softmax [512,131071] f32.
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
G=.gpu/graphs/s15
KILN_CACHE_DIR=/tmp/kc-t timeout 120 .gpu/run runtime_test --gtest_filter='PointwiseGpuTest.*:RowGpuTest.*Broadcast*' > $OUT/tests.log 2>&1
echo "runtime_test rc=$? $(( $(date +%s) - start ))s" >> $OUT/tests.log
KILN_CACHE_DIR=/tmp/kc-g KILN_DIFFERENTIAL_GRAPHS=300 timeout 150 .gpu/run gpu_test --gtest_filter='DifferentialGpuTest.Random*' 2>&1 | tail -4 >> $OUT/tests.log
echo "gpu_test rc=$? $(( $(date +%s) - start ))s" >> $OUT/tests.log
for g in pointwise3_8191x8191_bf16 pointwise4_8191x8191_f16 pointwise3_333x12345_bf16; do
  KILN_CACHE_DIR=/tmp/kc-kiln timeout 60 .gpu/run kiln run $G/$g.textproto --iters=3 2>&1 | grep -iE "check|max|error" | head -3 | sed "s/^/$g: /" >> $OUT/tests.log
done
for turn in 1 2; do
  for g in $G/*.textproto; do
    for b in kiln_base kiln; do
      t=$(KILN_CACHE_DIR=/tmp/kc-$b .gpu/run $b run $g --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)}')
      echo "$(basename $g .textproto) $b $turn $t" >> $OUT/timing.txt
    done
  done
done
echo "timing done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
for n in pointwise3_8191x8191_bf16 transpose10_4093x8191_bf16 sum_axis0_16384x1024_f32 softmax_512x131071_f32; do
  KILN_CACHE_DIR=/tmp/kc-kiln timeout 90 ncu --set full -k regex:f0_ -c 1 -f -o /tmp/$n .gpu/run kiln run $G/$n.textproto --iters=1 --no-check > /tmp/$n.log 2>&1
  ncu --import /tmp/$n.ncu-rep --page details > $OUT/$n.details.txt 2>&1
  ncu --import /tmp/$n.ncu-rep --page source --csv --print-source sass 2>/dev/null | head -c 3000000 > /tmp/$n.sass.csv
done
tar -C /tmp -czf $OUT/sass.tgz $(cd /tmp && ls *.sass.csv)
echo "all done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
