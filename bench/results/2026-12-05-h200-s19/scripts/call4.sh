#!/bin/bash
# Call 4, for the next session (this one had no device time left for it):
# is exp_fold.patch correct, and is it faster? The patched build's row GPU
# tests (RowGpuTest.OnlineExpsOfRowsFarFromZeroMatchTheReference among them)
# and 300 graphs of the differential suite; memcheck on a held, a clustered
# and a streamed case; main and the patch timed main/new/main/new on the 65
# cases whose kernel takes an online pair, the targets first; then each
# checked against the CPU reference, smallest first, while time is left.
# About 9 minutes.
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
KILN_CACHE_DIR=/tmp/kc-t timeout 120 .gpu/run runtime_test --gtest_filter='RowGpuTest.*' 2>&1 \
  | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) |Failure" > $OUT/tests.log
echo "runtime_test $(( $(date +%s) - start ))s" >> $OUT/tests.log
KILN_CACHE_DIR=/tmp/kc-g KILN_DIFFERENTIAL_GRAPHS=300 timeout 150 .gpu/run gpu_test \
  --gtest_filter='DifferentialGpuTest.Random*' 2>&1 | tail -3 >> $OUT/tests.log
echo "gpu_test $(( $(date +%s) - start ))s" >> $OUT/tests.log
for g in logsumexp_2048x32768_bf16 softmax_523x128256_f32 logsumexp_32x2097152_bf16; do
  echo "$g memcheck: $(KILN_CACHE_DIR=/tmp/kc-s timeout 40 compute-sanitizer --tool memcheck .gpu/run kiln_new run .gpu/graphs/$g.textproto --iters=1 2>&1 | grep -E 'ERROR SUMMARY|^check' | tr '\n' ' ')"
done > $OUT/sanitizer.txt
t() { KILN_CACHE_DIR=/tmp/kc_$1 .gpu/run kiln_$1 run .gpu/graphs/$2.textproto --iters=30 --no-check | awk '/^total/ {print $(NF-3)}'; }
for f in $(cat .gpu/online_cases.txt); do
  echo "$f main $(t main $f) new $(t new $f) main $(t main $f) new $(t new $f)" >> $OUT/timing.txt
  [ $(( $(date +%s) - start )) -gt 400 ] && break
done
echo "timing $(( $(date +%s) - start ))s" >> $OUT/tests.log
for f in $(cat .gpu/online_cases.txt | awk '{split($0, p, "_"); split(p[2], d, "x"); print d[1] * d[2], $0}' \
    | sort -n | awk '{print $2}'); do
  KILN_CACHE_DIR=/tmp/kc_new .gpu/run kiln_new run .gpu/graphs/$f.textproto --iters=1 > /tmp/chk.txt 2>&1
  echo "$f rc=$? $(grep -i -m2 'check\|error' /tmp/chk.txt | tr '\n' ' ')" >> $OUT/checks.txt
  [ $(( $(date +%s) - start )) -gt 560 ] && break
done
echo "all done $(( $(date +%s) - start ))s" >> $OUT/tests.log
