#!/bin/bash
# Call 2 (s28): three builds of the same tree, side by side on one GPU.
# - kiln_base: 585525c, the committed code;
# - kiln_words: row kernels read bf16 vector elements from their 32-bit words (kiln_bf16_at),
#   kiln_load_span joins a 16-bit vector's two paths as words, and the tuning cache keeps the
#   launch-bound and cluster-size choices (runtime/tuning_cache.h);
# - kiln_full: kiln_words, plus the cluster exchange's polls sleep until the half completes
#   (mbarrier.try_wait with a suspend-time hint). It is 35d3ff7.
# In this order, the timing early in case the call is cut short:
# - RowGpuTest (row kernels against the CPU reference, the two tuning-cache tests),
#   LoadedKernelGpuTest and AutotunerGpuTest, with the working tree's runtime_test;
# - the cases the change touches, each with the three builds in turn;
# - RunCliGpuTest (--measure among them) and DifferentialGpuTest.RandomGraphsMatchTheReference;
# - compute-sanitizer memcheck of kiln_full's cluster kernel and unaligned rows;
# - ncu of kiln_full's layernorm [1335, 50257] bf16: source counters, as call 1 had them of the base;
# - the cases again, for the time left.
# The first argument caps the call (seconds).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cap=${1:-560}
start=$(date +%s)
o=/tmp/o2; mkdir -p $o
left() { echo $(( cap - ($(date +%s) - start) )); }
stamp() { echo "$1 rc=$2 $(( $(date +%s) - start ))s" >> $o/log.txt; tar czf $OUT/call2.tgz -C $o .; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt
cp .gpu/bin/kiln_full .gpu/bin/kiln
KILN_CACHE_DIR=/tmp/kc2t timeout 150 .gpu/run runtime_test \
  --gtest_filter='RowGpuTest.*:LoadedKernelGpuTest.*:AutotunerGpuTest.*' > $o/tests_runtime.log 2>&1
stamp "runtime tests" $?
time_round() {
  for c in $(cat bench/results/2026-12-07-s28/scripts/ab_cases.txt); do
    for b in kiln_base kiln_words kiln_full; do
      [ $(left) -lt 40 ] && return
      KILN_CACHE_DIR=/tmp/kc_$b timeout 40 .gpu/run $b run .gpu/graphs11/$c.textproto --iters=100 --no-check > $o/time_${c}_${b}_$1.txt 2>&1
    done
  done
}
time_round 1
stamp "timing round 1" $?
KILN_CACHE_DIR=/tmp/kc2t timeout 45 .gpu/run frontends_test --gtest_filter='RunCliGpuTest.*' > $o/tests_frontends.log 2>&1
stamp "frontends tests" $?
KILN_CACHE_DIR=/tmp/kc2t timeout 30 .gpu/run gpu_test --gtest_filter='DifferentialGpuTest.RandomGraphsMatchTheReference' > $o/tests_gpu.log 2>&1
stamp "differential test" $?
for c in layernorm_1335x50257_bf16 rmsnorm_1335x50257_f16 layernorm_16396x4093_bf16; do
  KILN_CACHE_DIR=/tmp/kc_full timeout 60 compute-sanitizer --tool memcheck --error-exitcode 7 \
    .gpu/run kiln_full run .gpu/graphs11/$c.textproto --iters=1 --autotune=off > $o/memcheck_$c.txt 2>&1
  stamp "memcheck $c" $?
done
c=layernorm_1335x50257_bf16
KILN_CACHE_DIR=/tmp/kc_full timeout 50 ncu --kernel-name regex:row_reduction --launch-count 1 \
  --section SourceCounters --section InstructionStats --section WarpStateStats --section SchedulerStats \
  --section SpeedOfLight -o $o/ncu_$c \
  .gpu/run kiln_full run .gpu/graphs11/$c.textproto --iters=1 --no-check --autotune=off > $o/ncu_$c.log 2>&1
r=$?
ncu -i $o/ncu_$c.ncu-rep --page details > $o/ncu_$c.txt 2>&1
ncu -i $o/ncu_$c.ncu-rep --page source --print-source sass --csv | gzip > $o/ncu_${c}_sass.csv.gz
rm -f $o/*.ncu-rep
stamp "ncu $c" $r
time_round 2
stamp "timing round 2" $?
stamp "all done" 0
