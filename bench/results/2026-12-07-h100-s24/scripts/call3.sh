#!/bin/bash
# Call 3 (s24), where no H200 came for the sweep: what limits two classes the sweep still misses,
# from ncu's full set on the H100. kiln run times each case first (50 iterations, no check); then
# ncu profiles its kernel:
# - transpose10 [4093, 8191] bf16 (unaligned rows both ways) beside [16384, 8192] bf16 (aligned);
# - layernorm [1335, 50257] and [523, 128256] bf16 (rows split over a cluster and held) beside
#   rmsnorm of the same shapes, which reaches 0.86-0.90 of copy where layernorm reaches 0.73-0.78.
# Tuning launches the same kernel names before the run does, so a first ncu pass counts the f0_
# launches with one metric, and the full set profiles the last of them, a launch of the run. (Under
# ncu a tuner times profiled launches, so it may keep another variant than outside it.) Clocks are
# left to the GPU (--clock-control none), as kiln run --measure does. Results are tarred into $OUT.
export PATH=/usr/local/cuda/bin:$PATH
cap=${1:-300}
start=$(date +%s)
o=/tmp/o3; mkdir -p $o
left() { echo $(( cap - ($(date +%s) - start) )); }
save() { tar czf $OUT/call3.tgz -C $o .; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt
for g in .gpu/graphs6/*.textproto; do
  KILN_CACHE_DIR=/tmp/kc3 timeout 60 .gpu/run kiln run $g --iters=50 --no-check > $o/run_$(basename $g .textproto).txt 2>&1
done
save
for g in .gpu/graphs6/*.textproto; do
  [ $(left) -lt 40 ] && { echo "ncu stopped at $g" >> $o/log.txt; break; }
  n=$(KILN_CACHE_DIR=/tmp/kc3 timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:'^f0_' \
    .gpu/run kiln run $g --iters=1 --no-check 2>&1 | grep -c "), Context")
  KILN_CACHE_DIR=/tmp/kc3 timeout 90 ncu --clock-control none --set full -k regex:'^f0_' --launch-skip $(( n > 0 ? n - 1 : 0 )) \
    -c 1 .gpu/run kiln run $g --iters=1 --no-check > $o/ncu_$(basename $g .textproto).txt 2>&1
  echo "ncu $(basename $g) rc=$? (launch $n of the f0_ kernel) $(( $(date +%s) - start ))s" >> $o/log.txt; save
done
echo "all done $(( $(date +%s) - start ))s" >> $o/log.txt; save
