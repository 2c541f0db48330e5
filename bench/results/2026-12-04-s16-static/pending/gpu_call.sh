#!/bin/bash
# The first GPU call for pending/transpose_half_swap.patch, written in s16 (no GPU was lent) and not
# yet run. Before it, on the CPU machine:
#   git checkout -b half-swap main && git am bench/results/2026-12-04-s16-static/pending/transpose_half_swap.patch
#   (cd build && ninja) && cp build/kiln /tmp/kb/kiln_half_swap && git checkout main && (cd build && ninja)
#   ../shared/tools/gpu-bundle .gpu build/kiln /tmp/kb/kiln_half_swap build/tests/runtime_test build/tests/gpu_test
#     (runtime_test and gpu_test built on the half-swap branch)
#   python3 bench/sweep/generate_cases.py /tmp/g && mkdir -p .gpu/graphs/half-swap && cp /tmp/g/transpose*.textproto .gpu/graphs/half-swap/
# Then run with carry [".gpu"]: bash bench/results/2026-12-04-s16-static/pending/gpu_call.sh
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
# Correctness first: the transpose GPU tests and the differential suite, on the half-swap build.
KILN_CACHE_DIR=/tmp/kc-t timeout 150 .gpu/run runtime_test --gtest_filter='TransposeGpuTest.*' 2>&1 \
  | grep -E "OK|FAIL|PASSED|SKIPPED|Failure" > $OUT/tests.log
KILN_CACHE_DIR=/tmp/kc-g KILN_DIFFERENTIAL_GRAPHS=300 timeout 130 .gpu/run gpu_test \
  --gtest_filter='DifferentialGpuTest.Random*' 2>&1 | tail -3 >> $OUT/tests.log
for g in transpose10_4093x8191_bf16 transpose10_4093x8191_f32 transpose021_64x333x777_f16; do
  KILN_CACHE_DIR=/tmp/kc-c timeout 60 .gpu/run kiln_half_swap run .gpu/graphs/half-swap/$g.textproto --iters=3 2>&1 \
    | grep -i check | sed "s/^/$g: /" >> $OUT/tests.log
done
timeout 60 compute-sanitizer --tool memcheck .gpu/run kiln_half_swap run \
  .gpu/graphs/half-swap/transpose10_4093x8191_bf16.textproto --iters=1 2>&1 | tail -3 > $OUT/sanitizer.txt
# Time: main against the half swap, alternating, three turns; every transpose case, so the
# unchanged ones (aligned or contiguous writes) are the control.
for turn in 1 2 3; do
  for g in .gpu/graphs/half-swap/*.textproto; do
    for b in kiln kiln_half_swap; do
      t=$(KILN_CACHE_DIR=/tmp/kc-$b .gpu/run $b run $g --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)}')
      echo "$(basename $g .textproto) $b $turn $t" >> $OUT/timing.txt
    done
  done
done
# Shared-memory wavefronts and bank conflicts of the changed kernel, both builds.
for b in kiln kiln_half_swap; do
  KILN_CACHE_DIR=/tmp/kc-$b timeout 120 ncu -k regex:f0_ -c 1 --metrics \
    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum \
    .gpu/run $b run .gpu/graphs/half-swap/transpose10_4093x8191_bf16.textproto --iters=1 --no-check > $OUT/ncu-$b.txt 2>&1
done
echo "all done $(( $(date +%s) - start ))s" >> $OUT/tests.log
