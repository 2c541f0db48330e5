#!/bin/bash
# Call 4 (s15): the pointwise build to land (a step per vector for columns and rows, whole vectors
# within a row, 2 vectors in flight on straddling rows): the pointwise GPU tests, the differential
# suite, ncu of pointwise3 [8191,8191] bf16; the axis-0 lane-shape probe (axis0_probe.cu); then
# the sweep's pointwise cases measured again against torch, on a copy of the s14 sweep.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
.gpu/bin/probe > $OUT/probe.txt 2>&1
echo "probe done $(( $(date +%s) - start ))s" >> $OUT/probe.txt
KILN_CACHE_DIR=/tmp/kc-t timeout 200 .gpu/run runtime_test --gtest_filter='PointwiseGpuTest.*' > $OUT/tests.log 2>&1
echo "runtime_test rc=$? $(( $(date +%s) - start ))s" >> $OUT/tests.log
KILN_CACHE_DIR=/tmp/kc-g KILN_DIFFERENTIAL_GRAPHS=300 timeout 150 .gpu/run gpu_test --gtest_filter='DifferentialGpuTest.Random*' 2>&1 | tail -4 >> $OUT/tests.log
echo "gpu_test rc=$? $(( $(date +%s) - start ))s" >> $OUT/tests.log
n=pointwise3_8191x8191_bf16
KILN_CACHE_DIR=/tmp/kc-kiln timeout 90 ncu --set full -k regex:f0_ -c 1 -f -o /tmp/$n .gpu/run kiln run .gpu/graphs/s15/$n.textproto --iters=1 --no-check > /tmp/$n.log 2>&1
ncu --import /tmp/$n.ncu-rep --page details > $OUT/$n.details.txt 2>&1
mkdir -p /tmp/d15 && rm -rf /tmp/d15/sweep && cp -r bench/results/2026-12-04-h200-s14/sweep /tmp/d15/sweep
python3 -c "
import json; p='/tmp/d15/sweep/sweep.json'; d=json.load(open(p))
d['cases']=[c for c in d['cases'] if not c['name'].startswith('pointwise')]; json.dump(d, open(p,'w'))"
left=$(( 555 - ($(date +%s) - start) ))
timeout $(( left + 20 )) python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out /tmp/d15/sweep --filter '^pointwise' \
  --skip-done --budget-s $left > $OUT/sweep.log 2>&1
tar -C /tmp/d15/sweep -czf $OUT/sweep.tgz sweep.json sweep.md phases.json plots
echo "all done $(( $(date +%s) - start ))s" >> $OUT/tests.log
