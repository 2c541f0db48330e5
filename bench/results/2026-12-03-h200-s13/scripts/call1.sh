#!/bin/bash
# Call 1 (s13): the streamed logsumexp and the vector-at-a-time online recurrence. Row GPU tests and
# the differential suite on the new build; memcheck/synccheck of the new kernels; A/B timing against
# HEAD before (kiln_prev); the current build on the sweep's worst cases; ncu of five kernels.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
el() { echo "$(( $(date +%s) - start ))s"; }
G=.gpu/graphs/s13
KILN_CACHE_DIR=/tmp/kc-t timeout 100 .gpu/run runtime_test --gtest_filter='RowGpuTest.*' > $OUT/tests.log 2>&1
echo "rc=$? $(el)" >> $OUT/tests.log
KILN_DIFFERENTIAL_GRAPHS=400 KILN_CACHE_DIR=/tmp/kc-d timeout 200 .gpu/run gpu_test --gtest_filter='DifferentialGpuTest.Random*' > $OUT/differential.log 2>&1
echo "rc=$? $(el)" >> $OUT/differential.log
mkdir -p /tmp/san
for g in .gpu/graphs/san3/*.textproto .gpu/graphs/san/logsumexp_264x32768_bf16.textproto .gpu/graphs/san/softmax_300x50257_f16.textproto; do
  n=$(basename $g .textproto)
  for tool in memcheck synccheck; do
    KILN_CACHE_DIR=/tmp/kc-s timeout 60 compute-sanitizer --tool $tool --kernel-name kns=f0_row_reduction --launch-count 2 .gpu/run kiln run $g --iters=2 > /tmp/san/$n.$tool.log 2>&1
    echo "$n $tool rc=$? $(grep -h 'ERROR SUMMARY' /tmp/san/$n.$tool.log) $(grep -h 'check:' /tmp/san/$n.$tool.log)" >> $OUT/sanitizer.txt
  done
done
echo "sanitizer done $(el)" >> $OUT/sanitizer.txt
for n in $(cat $G/ab.txt); do
  for b in kiln_prev kiln; do
    chk=--no-check; [ $b = kiln ] && chk=
    t=$(KILN_CACHE_DIR=/tmp/kc-$b timeout 60 .gpu/run $b run $G/$n.textproto --iters=30 $chk 2>&1 | awk '/^total/ {print $(NF-3)} /check:|rror/ {print}' | tr '\n' ' ')
    echo "$n $b $t" >> $OUT/ab.txt
  done
done
echo "ab done $(el)" >> $OUT/ab.txt
for n in $(cat $G/cur.txt); do
  t=$(KILN_CACHE_DIR=/tmp/kc-kiln timeout 60 .gpu/run kiln run $G/$n.textproto --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)} /rror/ {print}' | tr '\n' ' ')
  echo "$n $t" >> $OUT/current.txt
done
echo "current done $(el)" >> $OUT/current.txt
mkdir -p /tmp/ncu
for n in softmax_523x128256_bf16 softmax_4096x32768_bf16 logsumexp_524288x128_bf16 logsumexp_1335x50257_f16 layernorm_67108x1000_f16; do
  [ $(( $(date +%s) - start )) -gt 470 ] && break
  KILN_CACHE_DIR=/tmp/kc-kiln timeout 60 ncu --set full -k regex:f0_ -c 1 -f -o /tmp/ncu/$n .gpu/run kiln run $G/$n.textproto --iters=1 --no-check > /tmp/ncu/$n.log 2>&1
  ncu -i /tmp/ncu/$n.ncu-rep --page details > /tmp/ncu/$n.details.txt 2>&1
  ncu -i /tmp/ncu/$n.ncu-rep --page source --csv --print-source sass > /tmp/ncu/$n.sass.csv 2>&1
  echo "$n $(el)" >> /tmp/ncu/done.txt
done
tar czf $OUT/ncu.tgz -C /tmp ncu san
echo "all done $(el)" >> $OUT/ab.txt
