#!/bin/bash
# Call 9 (s20, H100): main at c1c8ff1, both patches together (kiln_merged and
# its tests): the row GPU tests, 100 differential graphs, two cases timed and checked.
export PATH=/usr/local/cuda/bin:$PATH
KILN_CACHE_DIR=/tmp/kc-m timeout 120 .gpu/run runtime_test_merged --gtest_filter='RowGpuTest.*' 2>&1 \
  | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure" > $OUT/tests_merged.log
KILN_CACHE_DIR=/tmp/kc-gm KILN_DIFFERENTIAL_GRAPHS=100 timeout 50 .gpu/run gpu_test_merged \
  --gtest_filter='DifferentialGpuTest.Random*' 2>&1 | tail -3 >> $OUT/tests_merged.log
for f in layernorm_1335x50257_bf16 logsumexp_2048x32768_bf16; do
  KILN_CACHE_DIR=/tmp/kc_merged timeout 20 .gpu/run kiln_merged run .gpu/graphs/$f.textproto --iters=30 2>&1 \
    | grep -E "^total|check" | tr '\n' ' ' >> $OUT/tests_merged.log
  echo >> $OUT/tests_merged.log
done
