#!/bin/bash
# Call 6 (s20): both pending patches in one call, the essentials of calls 4
# and 5 under time caps, for a session whose device starts mostly failed.
# exp: the online exps (kiln_new, runtime_test, gpu_test); align: the column
# shift chosen once a row (kiln_align, runtime_test_align); kiln_main: main.
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
el() { echo $(( $(date +%s) - start )); }
KILN_CACHE_DIR=/tmp/kc-t timeout 110 .gpu/run runtime_test --gtest_filter='RowGpuTest.*' 2>&1 \
  | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure" > $OUT/tests.log
echo "exp runtime_test $(el)s" >> $OUT/tests.log
KILN_CACHE_DIR=/tmp/kc-ta timeout 80 .gpu/run runtime_test_align \
  --gtest_filter='RowGpuTest.Unaligned*:RowGpuTest.ALaunchBound*' 2>&1 \
  | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure" >> $OUT/tests.log
echo "align runtime_test $(el)s" >> $OUT/tests.log
KILN_CACHE_DIR=/tmp/kc-g KILN_DIFFERENTIAL_GRAPHS=150 timeout 70 .gpu/run gpu_test \
  --gtest_filter='DifferentialGpuTest.Random*' 2>&1 | tail -3 >> $OUT/tests.log
echo "exp gpu_test $(el)s" >> $OUT/tests.log
for b in "new logsumexp_2048x32768_bf16" "new softmax_523x128256_f32" "align layernorm_1335x50257_bf16"; do
  set -- $b
  echo "$1 $2 memcheck: $(KILN_CACHE_DIR=/tmp/kc-s$1 timeout 40 compute-sanitizer --tool memcheck .gpu/run kiln_$1 run .gpu/graphs/$2.textproto --iters=1 2>&1 | grep -E 'ERROR SUMMARY|^check' | tr '\n' ' ')"
done > $OUT/sanitizer.txt
echo "sanitizer $(el)s" >> $OUT/tests.log
t() { KILN_CACHE_DIR=/tmp/kc_$1 .gpu/run kiln_$1 run .gpu/graphs/$2.textproto --iters=30 --no-check | awk '/^total/ {print $(NF-3)}'; }
for f in layernorm_1335x50256_bf16 layernorm_1335x50257_bf16; do echo "$f main $(t main $f)" >> $OUT/align.txt; done
for f in $(cat .gpu/exp_key.txt); do
  echo "$f main $(t main $f) new $(t new $f) main $(t main $f) new $(t new $f)" >> $OUT/timing.txt
  [ $(el) -gt 330 ] && break
done
echo "exp timing $(el)s" >> $OUT/tests.log
for f in $(cat .gpu/align_key.txt); do
  echo "$f main $(t main $f) align $(t align $f)" >> $OUT/timing_align.txt
  [ $(el) -gt 430 ] && break
done
echo "align timing $(el)s" >> $OUT/tests.log
for b in "new logsumexp_1000x32768_f16" "align rmsnorm_16396x4093_f16" "new softmax_1000x32768_bf16" \
         "align layernorm_1335x50257_f32" "new logsumexp_1335x50257_bf16" "align layernorm_65600x1023_f32" \
         "new softmax_512x131071_f32" "align layernorm_16396x4093_bf16"; do
  set -- $b
  KILN_CACHE_DIR=/tmp/kc_$1 .gpu/run kiln_$1 run .gpu/graphs/$2.textproto --iters=1 > /tmp/chk.txt 2>&1
  echo "$1 $2 rc=$? $(grep -i -m2 'check\|error' /tmp/chk.txt | tr '\n' ' ')" >> $OUT/checks.txt
  [ $(el) -gt 560 ] && break
done
echo "all done $(el)s" >> $OUT/tests.log
