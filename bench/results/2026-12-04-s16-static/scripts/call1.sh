#!/bin/bash
# Call 1 (s16, lent at the session's end): main (5c6d025) on the GPU — the transpose and row GPU
# tests, the CLI's GPU tests from the bundle, the differential suite, memcheck — then main against
# the pending half-swap patch (kiln_half_swap) on the sweep's transposes: checked, then timed.
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
KILN_CACHE_DIR=/tmp/kc-t timeout 150 .gpu/run runtime_test --gtest_filter='TransposeGpuTest.*:RowGpuTest.*' 2>&1 \
  | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure" > $OUT/tests.log
echo "runtime_test $(( $(date +%s) - start ))s" >> $OUT/tests.log
KILN_CACHE_DIR=/tmp/kc-f timeout 90 .gpu/run frontends_test --gtest_filter='*GpuTest.*' 2>&1 \
  | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure" >> $OUT/tests.log
echo "frontends_test $(( $(date +%s) - start ))s" >> $OUT/tests.log
KILN_CACHE_DIR=/tmp/kc-g KILN_DIFFERENTIAL_GRAPHS=300 timeout 130 .gpu/run gpu_test \
  --gtest_filter='DifferentialGpuTest.Random*' 2>&1 | tail -3 >> $OUT/tests.log
echo "gpu_test $(( $(date +%s) - start ))s" >> $OUT/tests.log
(timeout 60 compute-sanitizer --tool memcheck .gpu/run kiln run .gpu/graphs/s16/layernorm_1335x50257_bf16.textproto --iters=1 2>&1 | tail -2
 timeout 60 compute-sanitizer --tool memcheck .gpu/run kiln_half_swap run .gpu/graphs/s16/transpose10_4093x8191_bf16.textproto --iters=1 2>&1 | tail -2) > $OUT/sanitizer.txt 2>&1
echo "sanitizer $(( $(date +%s) - start ))s" >> $OUT/tests.log
# The six whose writes straddle (the patch changes only those), then the rest as the control.
changed=$(ls .gpu/graphs/s16/transpose{10_4093x8191,021_64x333x777}_*.textproto)
others=$(ls .gpu/graphs/s16/transpose*.textproto | grep -v -e 4093x8191 -e 64x333x777)
for g in $changed; do
  KILN_CACHE_DIR=/tmp/kc-c timeout 60 .gpu/run kiln_half_swap run $g --iters=3 2>&1 | grep -iE "^check" | sed "s/^/$(basename $g .textproto): /" >> $OUT/checks.txt
done
echo "checks $(( $(date +%s) - start ))s" >> $OUT/tests.log
for turn in 1 2; do
  for g in $changed $others; do
    for b in kiln kiln_half_swap; do
      t=$(KILN_CACHE_DIR=/tmp/kc-$b .gpu/run $b run $g --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)}')
      echo "$(basename $g .textproto) $b $turn $t" >> $OUT/timing.txt
    done
    [ $(( $(date +%s) - start )) -gt 540 ] && break 2
  done
done
echo "all done $(( $(date +%s) - start ))s" >> $OUT/tests.log
