#!/bin/bash
# Call 8 (s20, the same warm H100): ncu of the one exp-fold case that slowed
# (logsumexp [32, 2097152] bf16) and of layernorm [1335, 50257] bf16 on main,
# with the shift chosen once a row, and on rows of 50256; four more checks.
export PATH=/usr/local/cuda/bin:$PATH; mkdir -p $OUT/ncu
for b in main new; do
  KILN_CACHE_DIR=/tmp/kc_$b timeout 60 ncu --section SpeedOfLight --section WarpStateStats --section LaunchStats \
    --section Occupancy --metrics smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed -k regex:f0_ -c 1 \
    .gpu/run kiln_$b run .gpu/graphs/logsumexp_32x2097152_bf16.textproto --iters=1 --no-check \
    > $OUT/ncu/logsumexp_32x2097152_bf16_$b.txt 2>&1
done
for b in main align; do
  KILN_CACHE_DIR=/tmp/kc_$b timeout 60 ncu --section SpeedOfLight --section WarpStateStats --section LaunchStats \
    --metrics smsp__inst_executed.sum -k regex:f0_ -c 1 .gpu/run kiln_$b run .gpu/graphs/layernorm_1335x50257_bf16.textproto \
    --iters=1 --no-check > $OUT/ncu/layernorm_1335x50257_bf16_$b.txt 2>&1
done
KILN_CACHE_DIR=/tmp/kc_main timeout 60 ncu --section SpeedOfLight --metrics smsp__inst_executed.sum -k regex:f0_ -c 1 \
  .gpu/run kiln_main run .gpu/graphs/layernorm_1335x50256_bf16.textproto --iters=1 --no-check \
  > $OUT/ncu/layernorm_1335x50256_bf16_main.txt 2>&1
for f in logsumexp_32x2097152_bf16 logsumexp_128x524288_bf16 softmax_4x32768_f16 logsumexp_32x2097152_f32; do
  KILN_CACHE_DIR=/tmp/kc_new .gpu/run kiln_new run .gpu/graphs/$f.textproto --iters=1 > /tmp/c.txt 2>&1
  echo "new $f rc=$? $(grep -i -m2 'check\|error' /tmp/c.txt | tr '\n' ' ')" >> $OUT/checks2.txt
done
