#!/bin/bash
# Call 1 (s11): size1's GPU tests; rows-in-shared's row tests; main against rows-in-shared on the
# row cases (checked first, then two turns each, the better kept).
export PATH=/usr/local/cuda/bin:$PATH KILN_CACHE_DIR=/tmp/kiln-cache PYTHONUNBUFFERED=1
mkdir -p /tmp/d
start=$(date +%s)
.gpu/proto/tr > $OUT/proto_tr.txt 2>&1; cat $OUT/proto_tr.txt
for n in tr_bf16 tr_f32 tr3_bf16 tr3_f32; do KILN_CACHE_DIR=/tmp/kc-main .gpu/run kiln run .gpu/graphs/$n.textproto --iters=30 2>&1 | grep -E "^total|check" | sed "s/^/$n /" >> $OUT/proto_tr.txt; done; tail -8 $OUT/proto_tr.txt
timeout 120 .gpu/run .gpu/size1/runtime_test --gtest_filter='RowGpuTest.*:PointwiseGpuTest.*:AxisReductionGpuTest.*' > $OUT/size1_test.log 2>&1
echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/size1_test.log
timeout 100 .gpu/run .gpu/ris/runtime_test --gtest_filter='RowGpuTest.*' > $OUT/ris_row_test.log 2>&1
echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/ris_row_test.log
grep -E "OK \]|FAILED|PASSED|rc=" $OUT/size1_test.log $OUT/ris_row_test.log | grep -v ' OK ' | head -30
for g in .gpu/graphs/rows/*.textproto .gpu/graphs/layernorm_16384x32768_bf16.textproto .gpu/graphs/softmax_67108x1000_bf16.textproto; do
  n=$(basename $g .textproto)
  KILN_CACHE_DIR=/tmp/kc-ris .gpu/run .gpu/ris/kiln run $g --iters=5 > /tmp/d/$n.check.txt 2>&1
  KILN_CACHE_DIR=/tmp/kc-main .gpu/run kiln run $g --iters=3 --no-check > /dev/null 2>&1
  for turn in 1 2; do
    for b in main ris; do
      bin=kiln; [ $b = ris ] && bin=.gpu/ris/kiln
      t=$(KILN_CACHE_DIR=/tmp/kc-$b .gpu/run $bin run $g --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)}')
      echo "$n $b $turn $t" >> $OUT/timing.txt
    done
  done
  echo "$n $(grep -o 'check: .*' /tmp/d/$n.check.txt)" >> $OUT/checks.txt
  [ $(( $(date +%s) - start )) -gt 540 ] && break
done
echo "timing done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
cat $OUT/checks.txt
python3 - <<PY
import collections
d=collections.defaultdict(list)
for l in open("$OUT/timing.txt"):
    p=l.split()
    if len(p)==4: d[(p[0],p[1])].append(float(p[3]))
for n in sorted({k[0] for k in d}):
    a=d[(n,'main')]; b=d[(n,'ris')]
    if a and b: print(f"{n:45s} main {min(a):8.1f}  ris {min(b):8.1f}  {min(a)/min(b):5.2f}x")
PY
tail -1 $OUT/timing.txt
