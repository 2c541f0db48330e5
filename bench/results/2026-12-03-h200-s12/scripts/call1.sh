#!/bin/bash
# Call 1 (s12): compute-sanitizer of the row kernels whose segments sit in shared memory (owed
# from s11); the split-softmax prototype; ncu of that softmax and of rows of 127 against 128;
# kiln's times for the rows of 127 and 128.
export PATH=/usr/local/cuda/bin:$PATH KILN_CACHE_DIR=/tmp/kiln-cache PYTHONUNBUFFERED=1
mkdir -p /tmp/d/san /tmp/d/ncu
start=$(date +%s)
for g in .gpu/graphs/san/*.textproto; do .gpu/run kiln plan $g --explain | grep -A1 '^f0' | tail -1 >> $OUT/san_plans.txt; done
for tool in memcheck racecheck synccheck; do
  (
    for g in .gpu/graphs/san/*.textproto; do
      n=$(basename $g .textproto)
      opt=""; [ $tool = racecheck ] && opt="--racecheck-report hazard"; [ $tool = memcheck ] && opt="--leak-check full"
      timeout 120 compute-sanitizer --tool $tool $opt --error-exitcode 99 --kernel-name kns=f0_row_reduction --launch-count 2 \
        .gpu/run kiln run $g --iters=2 > /tmp/d/san/$tool-$n.log 2>&1
      echo "$tool $n: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/d/san/$tool-$n.log | tail -1); $(grep -o 'check: .*' /tmp/d/san/$tool-$n.log | head -1)" >> $OUT/sanitizer.txt
    done
  ) &
done
wait
echo "sanitizer done $(( $(date +%s) - start ))s" >> $OUT/sanitizer.txt
.gpu/proto/split_softmax > $OUT/proto.txt 2>&1
echo "proto done $(( $(date +%s) - start ))s" >> $OUT/proto.txt
for g in rows/softmax_naive_512x131072_f32 odd/sum_528416x127_f32 odd/sum_524288x128_f32 odd/rmsnorm_528416x127_f32 odd/rmsnorm_524288x128_f32 odd/max_528416x127_f32; do
  n=$(basename $g)
  timeout 60 ncu --set full -k regex:f0_ -c 1 -f -o /tmp/d/ncu/$n .gpu/run kiln run .gpu/graphs/$g.textproto --iters=1 --no-check > /tmp/d/ncu/$n.ncu.log 2>&1
  ncu --import /tmp/d/ncu/$n.ncu-rep --page details > /tmp/d/ncu/$n.details.txt 2>&1
  ncu --import /tmp/d/ncu/$n.ncu-rep --page source --csv --print-source sass > /tmp/d/ncu/$n.sass.csv 2>/dev/null
done
echo "ncu done $(( $(date +%s) - start ))s" >> $OUT/proto.txt
for g in .gpu/graphs/odd/*.textproto .gpu/graphs/rows/softmax_naive_512x131072_f32.textproto; do
  n=$(basename $g .textproto)
  .gpu/run kiln run $g --iters=30 > /tmp/d/$n.txt 2>&1
  echo "$n $(awk '/^total/ {print $(NF-3)}' /tmp/d/$n.txt) $(grep -o 'check: .*' /tmp/d/$n.txt)" >> $OUT/timing.txt
done
echo "timing done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
tar -C /tmp/d -czf $OUT/san.tgz san
tar -C /tmp/d -czf $OUT/ncu.tgz ncu
