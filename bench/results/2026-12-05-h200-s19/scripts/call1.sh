#!/bin/bash
# Call 1: is the patch correct on the GPU? The row GPU tests and the
# differential suite from the patched build; memcheck and synccheck on a
# kernel of each new kind (online pair over a cluster, moments over a
# cluster, over a block of 1024 threads, and streamed); racecheck on an
# entropy whose block reductions share the scratch (main's b7606a6 and the
# patch); then every changed case checked against the CPU reference. About
# 6 minutes.
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
KILN_CACHE_DIR=/tmp/kc-t timeout 120 .gpu/run runtime_test --gtest_filter='RowGpuTest.*' 2>&1 \
  | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure" > $OUT/tests.log
echo "runtime_test $(( $(date +%s) - start ))s" >> $OUT/tests.log
KILN_CACHE_DIR=/tmp/kc-g KILN_DIFFERENTIAL_GRAPHS=300 timeout 150 .gpu/run gpu_test \
  --gtest_filter='DifferentialGpuTest.Random*' 2>&1 | tail -3 >> $OUT/tests.log
echo "gpu_test $(( $(date +%s) - start ))s" >> $OUT/tests.log
# Main as it is (3227c8f): its row GPU tests (s17's tuner test among them)
# and the differential suite.
KILN_CACHE_DIR=/tmp/kc-tm timeout 120 .gpu/run runtime_test_main --gtest_filter='RowGpuTest.*' 2>&1 \
  | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure" > $OUT/tests_main.log
KILN_CACHE_DIR=/tmp/kc-gm KILN_DIFFERENTIAL_GRAPHS=300 timeout 150 .gpu/run gpu_test_main \
  --gtest_filter='DifferentialGpuTest.Random*' 2>&1 | tail -3 >> $OUT/tests_main.log
echo "main tests $(( $(date +%s) - start ))s" >> $OUT/tests.log
for g in softmax_1335x50257_bf16 layernorm_1335x50257_bf16 layernorm_1000x32768_bf16 layernorm_32x2097152_bf16; do
  for tool in memcheck synccheck; do
    echo "$g $tool: $(KILN_CACHE_DIR=/tmp/kc-s timeout 40 compute-sanitizer --tool $tool .gpu/run kiln_pairs run .gpu/graphs/$g.textproto --iters=1 2>&1 | grep -E 'ERROR SUMMARY|^check' | tr '\n' ' ')"
  done
done > $OUT/sanitizer.txt
# b7606a6's scratch halves: an entropy, an online softmax pair and then a
# plain sum in one block a row (without clusters), which racecheck can see.
for b in main pairs; do
  echo "entropy $b racecheck: $(KILN_CACHE_DIR=/tmp/kc-s timeout 60 compute-sanitizer --tool racecheck .gpu/run kiln_$b run --no-clusters .gpu/graphs/entropy_132x65536_f32.textproto --iters=1 2>&1 | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^check' | tr '\n' ' ')"
done >> $OUT/sanitizer.txt
echo "sanitizer $(( $(date +%s) - start ))s" >> $OUT/tests.log
for f in $(cat .gpu/cases.txt); do
  KILN_CACHE_DIR=/tmp/kc_pairs .gpu/run kiln_pairs run .gpu/graphs/$f.textproto --iters=3 > /tmp/chk.txt 2>&1
  echo "$f rc=$? $(grep -i -m2 'check\|error' /tmp/chk.txt | tr '\n' ' ')"
  [ $(( $(date +%s) - start )) -gt 560 ] && break
done > $OUT/checks.txt
echo "all done $(( $(date +%s) - start ))s" >> $OUT/tests.log
