#!/bin/bash
# Call 3 (s13): the final build. Differential suite, row and pointwise GPU suites, memcheck of the
# kernels with approximate exps; A/B of a register floor of 40 (kiln_lb40, not committed) on kernels
# that spill at the 32-register cap.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
start=$(date +%s)
el() { echo "$(( $(date +%s) - start ))s"; }
G=.gpu/graphs/s13
KILN_DIFFERENTIAL_GRAPHS=400 KILN_CACHE_DIR=/tmp/kc-d timeout 150 .gpu/run gpu_test --gtest_filter='DifferentialGpuTest.Random*' > $OUT/differential.log 2>&1
echo "rc=$? $(el)" >> $OUT/differential.log
KILN_CACHE_DIR=/tmp/kc-t timeout 170 .gpu/run runtime_test --gtest_filter='RowGpuTest.*:PointwiseGpuTest.*' > $OUT/tests.log 2>&1
echo "rc=$? $(el)" >> $OUT/tests.log
for g in .gpu/graphs/san3/logsumexp_4x262147_bf16.textproto .gpu/graphs/san/softmax_300x50257_f16.textproto; do
  n=$(basename $g .textproto)
  KILN_CACHE_DIR=/tmp/kc-s timeout 40 compute-sanitizer --tool memcheck --kernel-name kns=f0_row_reduction --launch-count 2 .gpu/run kiln run $g --iters=2 > /tmp/$n.memcheck.log 2>&1
  echo "$n memcheck rc=$? $(grep -h 'ERROR SUMMARY' /tmp/$n.memcheck.log) $(grep -h 'check:' /tmp/$n.memcheck.log)" >> $OUT/sanitizer.txt
done
echo "sanitizer done $(el)" >> $OUT/sanitizer.txt
for n in layernorm_1335x50257_f16 layernorm_1335x50257_bf16 layernorm_523x128256_bf16 layernorm_1000x32768_bf16 rmsnorm_523x128256_bf16 softmax_4096x32768_bf16 softmax_523x128256_bf16; do
  [ $(( $(date +%s) - start )) -gt 390 ] && break
  for b in kiln kiln_lb40; do
    chk=--no-check; [ $b = kiln_lb40 ] && chk=
    t=$(KILN_CACHE_DIR=/tmp/kc-$b timeout 40 .gpu/run $b run $G/$n.textproto --iters=30 $chk 2>&1 | awk '/^total/ {print $(NF-3)} /check:|rror/ {print}' | tr '\n' ' ')
    echo "$n $b $t" >> $OUT/ab.txt
  done
done
echo "all done $(el)" >> $OUT/ab.txt
