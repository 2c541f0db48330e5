#!/bin/bash
# Call 3 (s28): call 2 cut to the ~260 s the budget left, the builds as call 2 names them.
# - kiln_base against kiln_full (35d3ff7) on 8 of the A/B cases;
# - RowGpuTest with the working tree's runtime_test (every row kernel against the CPU reference,
#   the two tuning-cache tests);
# - compute-sanitizer memcheck of kiln_full's cluster kernel;
# - AutotunerGpuTest and RunCliGpuTest, each for what time is left;
# - the A/B cases with all three builds, for what time is left.
# The first argument caps the call (seconds).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cap=${1:-260}
start=$(date +%s)
o=/tmp/o3; mkdir -p $o
left() { echo $(( cap - ($(date +%s) - start) )); }
stamp() { echo "$1 rc=$2 $(( $(date +%s) - start ))s" >> $o/log.txt; tar czf $OUT/call3.tgz -C $o .; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt
cp .gpu/bin/kiln_full .gpu/bin/kiln
time_cases() {  # round, builds, cases
  for c in $3; do
    for b in $2; do
      [ $(left) -lt 15 ] && return
      KILN_CACHE_DIR=/tmp/kc_$b timeout 30 .gpu/run $b run .gpu/graphs11/$c.textproto --iters=100 --no-check > $o/time_${c}_${b}_$1.txt 2>&1
    done
  done
}
key="layernorm_1335x50257_bf16 rmsnorm_1335x50257_bf16 softmax_1335x50257_bf16 layernorm_16396x4093_bf16 layernorm_32x2097152_bf16 softmax_512x131071_f32 layernorm_523x128256_bf16 layernorm_1335x50257_f32"
time_cases 1 "kiln_base kiln_full" "$key"
stamp "timing base/full" $?
KILN_CACHE_DIR=/tmp/kc3t timeout 120 .gpu/run runtime_test --gtest_filter='RowGpuTest.*' > $o/tests_runtime.log 2>&1
stamp "RowGpuTest" $?
KILN_CACHE_DIR=/tmp/kc_full timeout 30 compute-sanitizer --tool memcheck --error-exitcode 7 \
  .gpu/run kiln_full run .gpu/graphs11/layernorm_1335x50257_bf16.textproto --iters=1 --autotune=off > $o/memcheck_layernorm_1335x50257_bf16.txt 2>&1
stamp "memcheck" $?
[ $(left) -gt 40 ] && KILN_CACHE_DIR=/tmp/kc3t timeout $(( $(left) - 25 )) .gpu/run frontends_test --gtest_filter='RunCliGpuTest.*' > $o/tests_frontends.log 2>&1
stamp "RunCliGpuTest" $?
[ $(left) -gt 40 ] && KILN_CACHE_DIR=/tmp/kc3t timeout $(( $(left) - 25 )) .gpu/run runtime_test --gtest_filter='AutotunerGpuTest.*' > $o/tests_autotuner.log 2>&1
stamp "AutotunerGpuTest" $?
time_cases 2 "kiln_base kiln_words kiln_full" "$(cat bench/results/2026-12-07-s28/scripts/ab_cases.txt)"
stamp "all done" 0
