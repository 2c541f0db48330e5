#!/bin/bash
# s17 call 5, the last of the session. kiln_fence: the st.async cluster
# exchange whose waits poll relaxed and acquire once, with a fence restricted
# to shared memory (the build of the tests too). Its row GPU tests, the
# differential suite (100 graphs) and memcheck; then old (cluster barriers,
# main b73006d), new (st.async, every poll an acquire at cluster scope) and
# fence on the cases call 3 found slower and some it found faster, while the
# device time lasts.
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
KILN_CACHE_DIR=/tmp/kc-t timeout 90 .gpu/run runtime_test --gtest_filter='RowGpuTest.*' 2>&1 \
  | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure" > $OUT/tests.log
echo "runtime_test $(( $(date +%s) - start ))s" >> $OUT/tests.log
KILN_CACHE_DIR=/tmp/kc-g KILN_DIFFERENTIAL_GRAPHS=100 timeout 45 .gpu/run gpu_test \
  --gtest_filter='DifferentialGpuTest.Random*' 2>&1 | tail -3 >> $OUT/tests.log
echo "gpu_test $(( $(date +%s) - start ))s" >> $OUT/tests.log
for g in softmax_1335x50257_bf16; do
  for tool in memcheck; do
    echo "$g $tool: $(KILN_CACHE_DIR=/tmp/kc-s timeout 35 compute-sanitizer --tool $tool .gpu/run kiln_fence run .gpu/graphs/$g.textproto --iters=1 2>&1 | grep -E 'ERROR SUMMARY|^check' | tr '\n' ' ')"
  done
done > $OUT/sanitizer.txt
echo "sanitizer $(( $(date +%s) - start ))s" >> $OUT/tests.log
t() { KILN_CACHE_DIR=/tmp/kc_$1 .gpu/run kiln_$1 run .gpu/graphs/$2.textproto --iters=30 --no-check | awk '/^total/ {print $(NF-3)}'; }
for f in $(cat .gpu/subset.txt); do
  KILN_CACHE_DIR=/tmp/kc_fence .gpu/run kiln_fence run .gpu/graphs/$f.textproto --iters=3 2>&1 | grep -m1 "^check" | sed "s/^/$f (fence): /" >> $OUT/checks.txt
  echo "$f old $(t old $f) new $(t new $f) fence $(t fence $f)" >> $OUT/timing5.txt
  [ $(( $(date +%s) - start )) -gt 165 ] && break
done
echo "all done $(( $(date +%s) - start ))s" >> $OUT/tests.log
