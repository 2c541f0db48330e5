#!/bin/bash
# Call 2 (s12): the 32-bit row indices (kiln) against c3d16fb (kiln_prev). GPU row tests and the
# differential suite, memcheck of the small row graphs, racecheck of cluster kernels held in
# registers (is s12 call 1's racecheck failure the tool's or the shared-memory segments'?), the
# split-softmax prototype with streamed variants, then timings.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
mkdir -p /tmp/d/san
start=$(date +%s)
( KILN_CACHE_DIR=/tmp/kc-t timeout 240 .gpu/run runtime_test --gtest_filter='RowGpuTest.*' > $OUT/tests.log 2>&1
  echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/tests.log ) &
( KILN_CACHE_DIR=/tmp/kc-g timeout 240 .gpu/run gpu_test --gtest_filter='DifferentialGpuTest.Random*' > $OUT/gpu_test.log 2>&1
  echo "rc=$? $(( $(date +%s) - start ))s" >> $OUT/gpu_test.log ) &
(
  export KILN_CACHE_DIR=/tmp/kc-s
  for g in .gpu/graphs/san2/*.textproto .gpu/graphs/san/softmax_naive_16x131072_f32.textproto; do
    n=$(basename $g .textproto)
    timeout 100 compute-sanitizer --tool racecheck --racecheck-report hazard --error-exitcode 99 --kernel-name kns=f0_row_reduction --launch-count 2 \
      .gpu/run kiln_prev run $g --iters=2 > /tmp/d/san/racecheck-prev-$n.log 2>&1
    echo "racecheck kiln_prev $n: exit $? $(grep -E 'RACECHECK SUMMARY' /tmp/d/san/racecheck-prev-$n.log | tail -1); $(grep -o 'check: .*' /tmp/d/san/racecheck-prev-$n.log | head -1)" >> $OUT/sanitizer.txt
  done
  for g in .gpu/graphs/san/*.textproto; do
    n=$(basename $g .textproto)
    timeout 100 compute-sanitizer --tool memcheck --error-exitcode 99 --kernel-name kns=f0_row_reduction --launch-count 2 \
      .gpu/run kiln run $g --iters=2 > /tmp/d/san/memcheck-$n.log 2>&1
    echo "memcheck kiln $n: exit $? $(grep -E 'ERROR SUMMARY' /tmp/d/san/memcheck-$n.log | tail -1); $(grep -o 'check: .*' /tmp/d/san/memcheck-$n.log | head -1)" >> $OUT/sanitizer.txt
  done
) &
wait
echo "tests done $(( $(date +%s) - start ))s" >> $OUT/sanitizer.txt
.gpu/proto/split_softmax > $OUT/proto.txt 2>&1
echo "proto done $(( $(date +%s) - start ))s" >> $OUT/proto.txt
for g in .gpu/graphs/odd/*.textproto; do
  echo "$(basename $g .textproto) $(KILN_CACHE_DIR=/tmp/kc-kiln .gpu/run kiln run $g --iters=3 2>&1 | grep -o 'check: .*')" >> $OUT/checks.txt
done
for turn in 1 2; do
  for g in .gpu/graphs/odd/*.textproto; do
    n=$(basename $g .textproto)
    for b in kiln_prev kiln; do
      t=$(KILN_CACHE_DIR=/tmp/kc-$b .gpu/run $b run $g --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)}')
      echo "$n $b $turn $t" >> $OUT/timing.txt
    done
  done
done
for g in .gpu/graphs/rows/*.textproto; do
  n=$(basename $g .textproto)
  for b in kiln_prev kiln; do
    t=$(KILN_CACHE_DIR=/tmp/kc-$b .gpu/run $b run $g --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)}')
    echo "$n $b 1 $t" >> $OUT/timing.txt
  done
  [ $(( $(date +%s) - start )) -gt 520 ] && break
done
echo "timing done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
tar -C /tmp/d -czf $OUT/san.tgz san
