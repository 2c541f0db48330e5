#!/bin/bash
# Call 1 (s14): the GPU tests of the two changes (inputs drawn on the device, the launch bound
# dropped where it spills) and the row suite; kiln run's wall time and kernel time on the largest
# sweep cases and on the row kernels that spilled; then the whole sweep, from nothing, for the
# time left.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
mkdir -p /tmp/d14
KILN_CACHE_DIR=/tmp/kc-t timeout 200 .gpu/run runtime_test \
  --gtest_filter='DeviceRandom*:RowGpuTest.*:DeviceBuffer*:LoadedKernel*' > $OUT/tests.log 2>&1
echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/tests.log
for turn in 1 2; do
  for g in .gpu/graphs/s14/*.textproto; do
    s=$(date +%s.%N)
    line=$(KILN_CACHE_DIR=/tmp/kc-kiln .gpu/run kiln run $g --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)} /dropped/')
    e=$(date +%s.%N)
    echo "$(basename $g .textproto) $turn wall_s=$(echo "$e - $s" | bc) $line" >> $OUT/timing.txt
  done
done
echo "tests and timing done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
left=$(( 560 - ($(date +%s) - start) ))
timeout $(( left + 30 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out /tmp/d14/sweep \
  --budget-s $left > $OUT/sweep.log 2>&1
tar -C /tmp/d14/sweep -czf $OUT/sweep.tgz sweep.json sweep.md phases.json plots
echo "all done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
