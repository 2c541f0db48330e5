#!/bin/bash
# Call 3 (s15): vectors in flight per thread for pointwise kernels with a row operand on rows of no
# multiple of the vector: kiln_u4 (call 2's build), kiln_u3, kiln_u2, twice each, interleaved.
export PATH=/usr/local/cuda/bin:$PATH
start=$(date +%s)
for g in .gpu/graphs/s15/*.textproto; do
  for b in kiln_u4 kiln_u3 kiln_u2 kiln_u4 kiln_u3 kiln_u2; do
    t=$(KILN_CACHE_DIR=/tmp/kc-$b .gpu/run $b run $g --iters=30 --no-check 2>&1 | awk '/^total/ {print $(NF-3)}')
    echo "$(basename $g .textproto) $b $t" >> $OUT/timing.txt
  done
done
echo "timing done $(( $(date +%s) - start ))s" >> $OUT/timing.txt
