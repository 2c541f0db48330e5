#!/bin/bash
# Call 2 (s25): held moments in one pass (kiln_moments_shifted), with call 1's rows taken in turn
# taken back out. On one machine, in this order:
# - the GPU tests of the row kernels against the CPU reference, and the CLI's GPU tests;
# - compute-sanitizer's memcheck of layernorm [1335, 50257] bf16 over clusters of 4, untuned;
# - moments_cases.txt (the 25 sweep cases whose kernel the change alters, the largest first) under kiln_base (3d8b85f,
#   two passes) and kiln (this change), in turn, 50 iterations, no check, twice while time is left.
# Results stay in /tmp/o2 and are tarred into $OUT at each step: only a few files come back.
export PATH=/usr/local/cuda/bin:$PATH
cap=${1:-420}
start=$(date +%s)
o=/tmp/o2; mkdir -p $o
here=$(dirname "$0")
left() { echo $(( cap - ($(date +%s) - start) )); }
save() { tar czf $OUT/call2.tgz -C $o .; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt
KILN_CACHE_DIR=/tmp/kc2 timeout 170 .gpu/run runtime_test --gtest_filter='RowGpuTest.*' > $o/tests_runtime.log 2>&1
echo "runtime tests rc=$? $(( $(date +%s) - start ))s" >> $o/log.txt; save
KILN_CACHE_DIR=/tmp/kc2 timeout 60 .gpu/run frontends_test --gtest_filter='RunCliGpuTest.*' > $o/tests_cli.log 2>&1
echo "cli tests rc=$? $(( $(date +%s) - start ))s" >> $o/log.txt; save
KILN_CACHE_DIR=/tmp/kc2 timeout 40 compute-sanitizer --tool memcheck --print-limit 5 \
  .gpu/run kiln run .gpu/graphs8/layernorm_1335x50257_bf16.textproto --iters=1 --no-check --autotune=off \
  > $o/memcheck.log 2>&1
echo "memcheck rc=$? $(( $(date +%s) - start ))s" >> $o/log.txt; save
for round in 1 2; do
  for c in $(cat $here/moments_cases.txt); do
    [ $(left) -lt 15 ] && { echo "timing stopped at $c round $round" >> $o/log.txt; break 2; }
    for b in kiln_base kiln; do
      echo "== $c $b $round" >> $o/times.txt
      KILN_CACHE_DIR=/tmp/kc2 timeout 30 .gpu/run $b run .gpu/graphs8/$c.textproto --iters=50 --no-check 2>&1 \
        | grep -E "^f[0-9]+_|^total|clusters|blocks|tuned|error|Error" >> $o/times.txt
    done
  done
  save
done
echo "all done $(( $(date +%s) - start ))s" >> $o/log.txt; save
