#!/bin/bash
# Call 3 (s10): main (691c09d) with the size-1 reductions (branch size1) and the transpose ends
# (branch transpose-ends) rebased on it, built as .gpu/c/. Its GPU tests and the whole differential
# at once; then main's kiln against it on transposes and size-1 reductions; then the sweep's row
# cases that were below 0.90 of copy (s7), run again with it for what time is left.
export PATH=/usr/local/cuda/bin:$PATH KILN_CACHE_DIR=/tmp/kiln-cache PYTHONUNBUFFERED=1
mkdir -p /tmp/d
start=$(date +%s)
( timeout 280 .gpu/run .gpu/c/runtime_test --gtest_filter='RowGpuTest.*:PointwiseGpuTest.*:AxisReductionGpuTest.*:TransposeGpuTest.*' > $OUT/tests.log 2>&1
  echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/tests.log ) &
( KILN_DIFFERENTIAL_GRAPHS=1000 timeout 290 .gpu/run .gpu/c/gpu_test --gtest_filter='DifferentialGpuTest.Random*' > $OUT/gpu_test.log 2>&1
  echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/gpu_test.log ) &
wait
for g in .gpu/graphs/tr_bf16.textproto .gpu/graphs/tr3_bf16.textproto .gpu/graphs/tr_f32.textproto .gpu/graphs/tr3_f32.textproto .gpu/graphs/unit/*.textproto; do
  n=$(basename $g .textproto)
  .gpu/run .gpu/c/kiln run $g --iters=5 > /tmp/d/$n.check.txt 2>&1
  echo "$n $(grep -E '^f0' /tmp/d/$n.check.txt | cut -c1-80) $(grep -o 'check: .*' /tmp/d/$n.check.txt)" >> $OUT/checks.txt
  for turn in 1 2; do
    for b in kiln .gpu/c/kiln; do
      t=$(.gpu/run $b run $g --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)}')
      echo "$n $b $turn $t" >> $OUT/timing.txt
    done
  done
done
echo "timing done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
left=$(( 430 - ($(date +%s) - start) ))
if [ $left -gt 90 ]; then
  timeout $(( left + 20 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run .gpu/c/kiln" --out /tmp/d/sweep --skip-compile \
    --budget-s $left --filter "$(cat .gpu/badrows.txt)" > $OUT/sweep.log 2>&1
  tar -C /tmp/d/sweep -czf $OUT/sweep.tgz sweep.json sweep.md phases.json plots
fi
grep -E "^\[  (PASSED|FAILED)|FAILED|rc=|differential:" $OUT/tests.log $OUT/gpu_test.log | head -30; cat $OUT/checks.txt
python3 - <<PY
import collections
d=collections.defaultdict(list)
for l in open("$OUT/timing.txt"):
    p=l.split()
    if len(p)==4: d[(p[0],p[1])].append(float(p[3]))
for n in sorted({k[0] for k in d}):
    a=d[(n,'kiln')]; b=d[(n,'.gpu/c/kiln')]
    print(f"{n:40s} main {min(a):8.1f}  combined {min(b):8.1f}  {min(a)/min(b):5.2f}x")
PY
tail -15 $OUT/sweep.log
