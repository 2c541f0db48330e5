#!/bin/bash
# Call 3 (s12): main with the lane-strided scalar rows (kiln) against the 32-bit indices alone
# (kiln_int, call 2's build). GPU row tests and the differential suite, checks of the odd rows,
# A/B timings, ncu of the two rows of 127 still slowest, then the sweep's never-run cases.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
mkdir -p /tmp/d/ncu
start=$(date +%s)
( KILN_CACHE_DIR=/tmp/kc-t timeout 260 .gpu/run runtime_test --gtest_filter='RowGpuTest.*' > $OUT/tests.log 2>&1
  echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/tests.log ) &
( KILN_CACHE_DIR=/tmp/kc-g KILN_DIFFERENTIAL_GRAPHS=400 timeout 260 .gpu/run gpu_test --gtest_filter='DifferentialGpuTest.Random*' > $OUT/gpu_test.log 2>&1
  echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/gpu_test.log ) &
wait
graphs=".gpu/graphs/odd/*127_f32.textproto .gpu/graphs/odd2/*.textproto"
for g in $graphs; do
  echo "$(basename $g .textproto) $(KILN_CACHE_DIR=/tmp/kc-kiln .gpu/run kiln run $g --iters=3 2>&1 | grep -o 'check: .*')" >> $OUT/checks.txt
done
echo "checks done $(( $(date +%s) - start ))s" >> $OUT/checks.txt
for turn in 1 2; do
  for g in $graphs; do
    n=$(basename $g .textproto)
    for b in kiln_int kiln; do
      t=$(KILN_CACHE_DIR=/tmp/kc-$b .gpu/run $b run $g --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)}')
      echo "$n $b $turn $t" >> $OUT/timing.txt
    done
  done
done
for g in .gpu/graphs/odd/*128_f32.textproto; do
  echo "$(basename $g .textproto) kiln 1 $(KILN_CACHE_DIR=/tmp/kc-kiln .gpu/run kiln run $g --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)}')" >> $OUT/timing.txt
done
echo "timing done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
for n in logsumexp_528416x127_f32 layernorm_528416x127_f32; do
  KILN_CACHE_DIR=/tmp/kc-kiln timeout 60 ncu --set full -k regex:f0_ -c 1 -f -o /tmp/d/ncu/$n .gpu/run kiln run .gpu/graphs/odd/$n.textproto --iters=1 --no-check > /tmp/d/ncu/$n.ncu.log 2>&1
  ncu --import /tmp/d/ncu/$n.ncu-rep --page details > /tmp/d/ncu/$n.details.txt 2>&1
  ncu --import /tmp/d/ncu/$n.ncu-rep --page source --csv --print-source sass > /tmp/d/ncu/$n.sass.csv 2>/dev/null
done
tar -C /tmp/d -czf $OUT/ncu.tgz ncu
left=$(( 550 - ($(date +%s) - start) ))
if [ $left -gt 60 ]; then
  cp -r .gpu/sweep_s12 /tmp/d/sweep
  timeout $(( left + 20 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out /tmp/d/sweep --skip-done \
    --budget-s $left > $OUT/sweep.log 2>&1
  tar -C /tmp/d/sweep -czf $OUT/sweep.tgz sweep.json sweep.md phases.json plots
fi
echo "all done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
