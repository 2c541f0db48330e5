#!/bin/bash
# Call 2 (s10): one-barrier block and cluster reductions. Row tests, then main's kiln against
# the new one on split and block-per-row cases (two turns each), then part of the differential.
export PATH=/usr/local/cuda/bin:$PATH KILN_CACHE_DIR=/tmp/kiln-cache PYTHONUNBUFFERED=1
mkdir -p /tmp/d
start=$(date +%s)
timeout 150 .gpu/run runtime_test --gtest_filter='RowGpuTest.*:AttentionGpuTest.*' > $OUT/row_test.log 2>&1
echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/row_test.log
for g in .gpu/graphs/rows/*.textproto; do
  n=$(basename $g .textproto)
  .gpu/run kiln run $g --iters=5 > /tmp/d/$n.check.txt 2>&1   # checked once, and the cache warmed
  for turn in 1 2; do
    for b in kiln_main kiln; do
      t=$(.gpu/run $b run $g --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)}')
      echo "$n $b $turn $t" >> $OUT/timing.txt
    done
  done
  echo "$n $(grep -o 'check: .*' /tmp/d/$n.check.txt)" >> $OUT/checks.txt
done
echo "timing done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
KILN_DIFFERENTIAL_GRAPHS=400 timeout $(( 560 - ($(date +%s) - start) )) .gpu/run gpu_test --gtest_filter='DifferentialGpuTest.Random*' > $OUT/gpu_test.log 2>&1
echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/gpu_test.log
grep -E "OK|FAIL|rc=" $OUT/row_test.log $OUT/gpu_test.log | head -30; cat $OUT/checks.txt
python3 - <<PY
import collections
d=collections.defaultdict(list)
for l in open("$OUT/timing.txt"):
    p=l.split()
    if len(p)==4: d[(p[0],p[1])].append(float(p[3]))
for n in sorted({k[0] for k in d}):
    a=d[(n,'kiln_main')]; b=d[(n,'kiln')]
    print(f"{n:45s} main {min(a):8.1f}  new {min(b):8.1f}  {min(a)/min(b):5.2f}x")
PY
