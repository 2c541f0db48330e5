#!/bin/bash
# The one-line calls of s14, as they ran (each a separate `run`).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
case "$1" in
  3)  # the sweep's last cases
    timeout 480 python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out /tmp/d14/sweep --skip-done --budget-s 440 > $OUT/sweep.log 2>&1
    tar -C /tmp/d14/sweep -czf $OUT/sweep.tgz sweep.json sweep.md phases.json plots ;;
  4)  # the failed and slower cases measured again
    timeout 300 python3 bench/sweep/run_sweep.py --kiln ".gpu/run kiln" --out /tmp/d14/sweep --rerun-slower --budget-s 240 > $OUT/sweep.log 2>&1
    tar -C /tmp/d14/sweep -czf $OUT/sweep.tgz sweep.json sweep.md phases.json plots ;;
  5)  # ncu of the two layernorms whose bound had spilled (launch bound dropped, 6b4d4c0)
    mkdir -p /tmp/n
    for n in layernorm_1335x50257_bf16 layernorm_1335x50257_f16; do
      KILN_CACHE_DIR=/tmp/kc-kiln timeout 90 ncu --set full -k regex:f0_ -c 1 -f -o /tmp/n/$n .gpu/run kiln run .gpu/graphs/s14/$n.textproto --iters=1 --no-check > /tmp/n/$n.log 2>&1
      ncu --import /tmp/n/$n.ncu-rep --page details > $OUT/$n.details.txt 2>&1
    done ;;
  7)  # memcheck of the device draws and the tuned launch bound (83e9a84)
    (timeout 100 compute-sanitizer --tool memcheck --leak-check full .gpu/run runtime_test --gtest_filter='DeviceRandom*:RowGpuTest.ALaunchBound*' 2>&1 | tail -6
     timeout 100 compute-sanitizer --tool memcheck .gpu/run kiln run .gpu/graphs/s14/layernorm_1335x50257_bf16.textproto --iters=1 2>&1 | tail -8) > $OUT/sanitizer.txt 2>&1 ;;
  8)  # the differential suite on 83e9a84
    KILN_CACHE_DIR=/tmp/kc-g KILN_DIFFERENTIAL_GRAPHS=300 timeout 150 .gpu/run gpu_test --gtest_filter='DifferentialGpuTest.Random*' > $OUT/gpu_test.log 2>&1 ;;
esac
