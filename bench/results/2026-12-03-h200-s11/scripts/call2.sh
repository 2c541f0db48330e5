#!/bin/bash
# Call 2 (s11): main with rows in shared memory (rule of 9c11da9) and size1 merged (7da8c40).
# Its GPU tests beside 400 differential graphs; the previous main (1c4e4e1) against it on the row
# cases the rule decides; then the sweep's cases that never ran (s7's sweep.json, --skip-done).
export PATH=/usr/local/cuda/bin:$PATH KILN_CACHE_DIR=/tmp/kiln-cache PYTHONUNBUFFERED=1
mkdir -p /tmp/d
start=$(date +%s)
( timeout 260 .gpu/run runtime_test --gtest_filter='PointwiseGpuTest.UnitReductions*:RowGpuTest.*:AxisReductionGpuTest.*' > $OUT/tests.log 2>&1
  echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/tests.log ) &
( KILN_DIFFERENTIAL_GRAPHS=400 timeout 260 .gpu/run gpu_test --gtest_filter='DifferentialGpuTest.Random*' > $OUT/gpu_test.log 2>&1
  echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/gpu_test.log ) &
wait
grep -E "OK \]|FAILED|PASSED|rc=" $OUT/tests.log $OUT/gpu_test.log
for g in rows/layernorm_8193x8191_f32 rows/rmsnorm_16396x4093_bf16 rows/softmax_256x262144_f32 rows/layernorm_523x128256_bf16 rows/softmax_naive_512x131072_f32 rows/logsumexp_4096x32768_bf16 layernorm_16384x32768_bf16; do
  n=$(basename $g)
  KILN_CACHE_DIR=/tmp/kc-new .gpu/run kiln run .gpu/graphs/$g.textproto --iters=5 > /tmp/d/$n.check.txt 2>&1
  KILN_CACHE_DIR=/tmp/kc-prev .gpu/run kiln_prev run .gpu/graphs/$g.textproto --iters=3 --no-check > /dev/null 2>&1
  for turn in 1 2; do
    for b in prev new; do
      bin=kiln; [ $b = prev ] && bin=kiln_prev
      t=$(KILN_CACHE_DIR=/tmp/kc-$b .gpu/run $bin run .gpu/graphs/$g.textproto --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)}')
      echo "$n $b $turn $t" >> $OUT/timing.txt
    done
  done
  echo "$n $(grep -o 'check: .*' /tmp/d/$n.check.txt)" >> $OUT/checks.txt
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
    a=d[(n,'prev')]; b=d[(n,'new')]
    if a and b: print(f"{n:45s} prev {min(a):8.1f}  new {min(b):8.1f}  {min(a)/min(b):5.2f}x")
PY
left=$(( 380 - ($(date +%s) - start) ))
if [ $left -gt 90 ]; then
  cp -r .gpu/sweep_s7 /tmp/d/sweep
  timeout $(( left + 20 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out /tmp/d/sweep --skip-done \
    --budget-s $left > $OUT/sweep.log 2>&1
  tar -C /tmp/d/sweep -czf $OUT/sweep.tgz sweep.json sweep.md phases.json plots
fi
tail -12 $OUT/sweep.log
