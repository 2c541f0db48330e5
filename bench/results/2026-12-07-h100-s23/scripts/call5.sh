#!/bin/bash
# Call 5 (for the next session, on an H200 if one comes): the H200's resident clusters, and the held
# rows over clusters of 8, 4 and 2 (--max-cluster-blocks caps them), to choose how held rows fit
# their clusters; then the change's 72 cases under kiln_base and kiln as in call 4.
# Bundle as call 4 did: .gpu/graphs4 holds changed_plans.txt's cases, .gpu/bin/kiln_base main before
# the change (1f44765), .gpu/bin/cluster_residency the probe. Results are tarred into $OUT.
export PATH=/usr/local/cuda/bin:$PATH
cap=${1:-400}
start=$(date +%s)
o=/tmp/o5; mkdir -p $o
left() { echo $(( cap - ($(date +%s) - start) )); }
save() { tar czf $OUT/call5.tgz -C $o .; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt
.gpu/bin/cluster_residency > $o/cluster_residency.txt 2>&1
save
for c in layernorm rmsnorm softmax; do
  for g in .gpu/graphs4/${c}_{32x2097152,64x1048576,128x524288}_*.textproto; do
    [ -f $g ] || continue
    [ $(left) -lt 200 ] && break 2
    for m in 8 4 2; do
      echo "== $(basename $g .textproto) clusters<=$m" >> $o/held.txt
      KILN_CACHE_DIR=/tmp/kc5 timeout 30 .gpu/run kiln run $g --max-cluster-blocks=$m --iters=50 --no-check 2>&1 \
        | grep -E "^f[0-9]+_|^total|clusters of|launch bound" >> $o/held.txt
    done
  done
done
save
for g in .gpu/graphs4/*.textproto; do
  [ $(left) -lt 20 ] && { echo "timing stopped at $g" >> $o/log.txt; break; }
  for b in kiln_base kiln; do
    echo "== $(basename $g .textproto) $b" >> $o/times.txt
    KILN_CACHE_DIR=/tmp/kc5 timeout 30 .gpu/run $b run $g --iters=50 --no-check 2>&1 \
      | grep -E "^f[0-9]+_|^total|clusters of|error|Error" >> $o/times.txt
  done
done
echo "all done $(( $(date +%s) - start ))s" >> $o/log.txt; save
