#!/bin/bash
# Call 6 (s14): the tuned launch bound (83e9a84). Its GPU test, the device draws and the matmul
# autotuner (whose buffers now draw on the device); kiln run on the kernels whose bound spills
# (total time and the tuning note); then the sweep's 47 cases whose bound spills (ptxas -v,
# /tmp/spills.sh), measured again on this build.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
KILN_CACHE_DIR=/tmp/kc-t timeout 90 .gpu/run runtime_test \
  --gtest_filter='RowGpuTest.ALaunchBound*:DeviceRandom*:AutotunerGpuTest.*' > $OUT/tests.log 2>&1
echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/tests.log
for g in .gpu/graphs/s14/*.textproto; do
  echo "$(basename $g .textproto) $(KILN_CACHE_DIR=/tmp/kc-kiln .gpu/run kiln run $g --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)} /tuned/')" >> $OUT/timing.txt
done
echo "timing done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
mkdir -p /tmp/d14 && cp -r bench/results/2026-12-04-h200-s14/sweep /tmp/d14/sweep
left=$(( 245 - ($(date +%s) - start) ))
timeout $(( left + 25 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out /tmp/d14/sweep \
  --filter "$(cat .gpu/filter.txt)" --budget-s $left > $OUT/sweep.log 2>&1
tar -C /tmp/d14/sweep -czf $OUT/sweep.tgz sweep.json sweep.md phases.json plots
echo "all done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
