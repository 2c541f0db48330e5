#!/bin/bash
# Call 2 (s13): approximate exp where values reach only 16-bit outputs; logsumexp streams only past a
# block. GPU suites of row, pointwise, attention and matmul kernels; A/B timing against the session's
# start (kiln_prev); ncu of layernorm [1335, 50257] f16 and of softmax [523, 128256] bf16.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
el() { echo "$(( $(date +%s) - start ))s"; }
G=.gpu/graphs/s13
KILN_CACHE_DIR=/tmp/kc-t timeout 200 .gpu/run runtime_test --gtest_filter='RowGpuTest.*:PointwiseGpuTest.*:AttentionGpuTest.*:MatmulGpuTest.*' > $OUT/tests.log 2>&1
echo "rc=$? $(el)" >> $OUT/tests.log
for n in $(cat $G/ab2.txt); do
  for b in kiln_prev kiln; do
    chk=--no-check; [ $b = kiln ] && chk=
    t=$(KILN_CACHE_DIR=/tmp/kc-$b timeout 60 .gpu/run $b run $G/$n.textproto --iters=30 $chk 2>&1 | awk '/^total/ {print $(NF-3)} /check:|rror/ {print}' | tr '\n' ' ')
    echo "$n $b $t" >> $OUT/ab.txt
  done
done
echo "ab done $(el)" >> $OUT/ab.txt
mkdir -p /tmp/ncu
for n in layernorm_1335x50257_f16 softmax_523x128256_bf16 logsumexp_1335x50257_bf16; do
  [ $(( $(date +%s) - start )) -gt 480 ] && break
  KILN_CACHE_DIR=/tmp/kc-kiln timeout 60 ncu --set full -k regex:f0_ -c 1 -f -o /tmp/ncu/$n .gpu/run kiln run $G/$n.textproto --iters=1 --no-check > /tmp/ncu/$n.log 2>&1
  ncu -i /tmp/ncu/$n.ncu-rep --page details > /tmp/ncu/$n.details.txt 2>&1
  ncu -i /tmp/ncu/$n.ncu-rep --page source --csv --print-source sass > /tmp/ncu/$n.sass.csv 2>&1
  echo "$n $(el)" >> /tmp/ncu/done.txt
done
tar czf $OUT/ncu.tgz -C /tmp ncu
echo "all done $(el)" >> $OUT/ab.txt
