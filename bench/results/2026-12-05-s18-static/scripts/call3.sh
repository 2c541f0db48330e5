#!/bin/bash
# Call 3, if call 2 leaves a case slower or short of its target: ncu's speed
# of light, warp states and source counters for main's kernel and the
# patch's, side by side. Reports under $OUT/ncu/<case>_<build>.txt.
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/ncu
for f in softmax_512x131071_f32 layernorm_1335x50257_bf16 layernorm_523x128256_f32 layernorm_32x2097152_bf16; do
  for b in main pairs; do
    KILN_CACHE_DIR=/tmp/kc_$b timeout 60 ncu --section SpeedOfLight --section WarpStateStats --section Occupancy \
      --section SourceCounters -k regex:f0_ -c 1 .gpu/run kiln_$b run .gpu/graphs/$f.textproto --iters=1 --no-check \
      > $OUT/ncu/${f}_$b.txt 2>&1
  done
done
